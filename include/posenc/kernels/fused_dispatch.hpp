// SPDX-License-Identifier: MIT
// posenc/kernels/fused_dispatch.hpp: runtime dispatch of the fused steps (qk_norm_rope.hpp,
// kv_cache_write.hpp) as dispatch.hpp dispatches apply_rope (the per-ISA units also define
// run_fused_<isa>). Each comes in dispatch.hpp's forms (op, op_on(isa, ...), op_unchecked,
// op_unchecked_on(isa, ...); docs/kernels.md, "Entry-point names") with the arguments, checks,
// results and error bounds of the kernels:: entry point of the same name (to within each ISA's
// rounding). Angle sources: CosSinCache or OnTheFlyAngles. double tensors (qk_norm_rope only)
// take the reference path in the calling unit. The multi-axis forms (fused_multi_axis.hpp:
// MultiAxisIds in place of PositionIds) come in the same four forms.
#pragma once

#include <type_traits>

#include "posenc/error.hpp"
#include "posenc/kernels/dispatch.hpp"
#include "posenc/kernels/qk_norm_rope.hpp"
#include "posenc/kernels/kv_cache_write.hpp"
#include "posenc/kernels/fused_multi_axis.hpp"

namespace posenc::kernels::detail::dispatch {

/// Whether an angle source is the gathering source of a multi-axis call (multi_axis_rows.hpp).
template <class Angles>
inline constexpr bool is_multi_axis_rows = false;
template <class Inner>
inline constexpr bool is_multi_axis_rows<kernels::detail::MultiAxisRows<Inner>> = true;

template <class T, class Angles>
void run_fused_on(Isa isa, const RopeSpec& spec, const kernels::detail::FusedArgs<T>& f, const Angles& angles,
                  const PositionIds& positions, TokenRange range) noexcept
{
    if constexpr (is_multi_axis_rows<Angles>) require_dispatchable_angle_source<typename Angles::Inner>();
    else require_dispatchable_angle_source<Angles>();
    POSENC_ASSERT(isa_available(isa));
    if constexpr (!std::is_same_v<T, double>) {
        if (run_compiled(isa, make_call(spec, angles, positions, f, Direction::forward, range),
                         &EntryPoints::run_fused))
            return;
    }
    kernels::detail::run_fused_on(kernels::default_arch {}, spec, f, angles, positions, range);
}

}  // namespace posenc::kernels::detail::dispatch

namespace posenc::kernels::dispatch {

/// Checked qk_norm_rope on a chosen ISA.
template <class T, class Angles>
void qk_norm_rope_on(Isa isa, const RopeSpec& spec, const QkNorm& norm, const Angles& angles,
                     const PositionIds& positions, const QKViews<T>& views, TokenRange range = all_tokens,
                     FloatSpan q_multipliers = {})
{
    detail::dispatch::require_isa(isa);
    range = kernels::detail::within(range, views.tokens());
    const auto f = kernels::detail::norm_args(spec, norm, views, spec.rotary_dim(), q_multipliers);
    kernels::detail::check_norm_call(spec, angles, positions, views, f, static_cast<int>(norm.weighting), range);
    detail::dispatch::run_fused_on(isa, spec, f, angles, positions, range);
}

/// Checked qk_norm_rope on best_isa().
template <class T, class Angles>
void qk_norm_rope(const RopeSpec& spec, const QkNorm& norm, const Angles& angles, const PositionIds& positions,
                  const QKViews<T>& views, TokenRange range = all_tokens, FloatSpan q_multipliers = {})
{
    qk_norm_rope_on(best_isa(), spec, norm, angles, positions, views, range, q_multipliers);
}

/// Unchecked qk_norm_rope on a chosen ISA: kernels::qk_norm_rope_unchecked's preconditions, plus
/// isa_available(isa).
template <class T, class Angles>
void qk_norm_rope_unchecked_on(Isa isa, const RopeSpec& spec, const QkNorm& norm, const Angles& angles,
                               const PositionIds& positions, const QKViews<T>& views, TokenRange range = all_tokens,
                               FloatSpan q_multipliers = {}) noexcept
{
    range = kernels::detail::within(range, views.tokens());
    const auto f = kernels::detail::norm_args(spec, norm, views, spec.rotary_dim(), q_multipliers);
    POSENC_ASSERT(kernels::detail::passes([&] {
        kernels::detail::check_norm_call(spec, angles, positions, views, f, static_cast<int>(norm.weighting), range);
    }));
    detail::dispatch::run_fused_on(isa, spec, f, angles, positions, range);
}

/// Unchecked qk_norm_rope on best_isa().
template <class T, class Angles>
void qk_norm_rope_unchecked(const RopeSpec& spec, const QkNorm& norm, const Angles& angles,
                            const PositionIds& positions, const QKViews<T>& views, TokenRange range = all_tokens,
                            FloatSpan q_multipliers = {}) noexcept
{
    qk_norm_rope_unchecked_on(best_isa(), spec, norm, angles, positions, views, range, q_multipliers);
}

/// Checked rope_into_cache on a chosen ISA.
template <class T, class Angles>
void rope_into_cache_on(Isa isa, const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                        const CacheWrite<T>& write, TokenRange range = all_tokens)
{
    detail::dispatch::require_isa(isa);
    range = kernels::detail::within(range, write.k.tokens);
    const auto f = kernels::detail::cache_args(spec, write);
    kernels::detail::check_cache_call(spec, angles, positions, f, 0, range);
    detail::dispatch::run_fused_on(isa, spec, f, angles, positions, range);
}

/// Checked rope_into_cache on best_isa().
template <class T, class Angles>
void rope_into_cache(const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                     const CacheWrite<T>& write, TokenRange range = all_tokens)
{
    rope_into_cache_on(best_isa(), spec, angles, positions, write, range);
}

/// Unchecked rope_into_cache on a chosen ISA: kernels::rope_into_cache_unchecked's preconditions, plus
/// isa_available(isa).
template <class T, class Angles>
void rope_into_cache_unchecked_on(Isa isa, const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                                  const CacheWrite<T>& write, TokenRange range = all_tokens) noexcept
{
    range = kernels::detail::within(range, write.k.tokens);
    const auto f = kernels::detail::cache_args(spec, write);
    POSENC_ASSERT(
        kernels::detail::passes([&] { kernels::detail::check_cache_call(spec, angles, positions, f, 0, range); }));
    detail::dispatch::run_fused_on(isa, spec, f, angles, positions, range);
}

/// Unchecked rope_into_cache on best_isa().
template <class T, class Angles>
void rope_into_cache_unchecked(const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                               const CacheWrite<T>& write, TokenRange range = all_tokens) noexcept
{
    rope_into_cache_unchecked_on(best_isa(), spec, angles, positions, write, range);
}

/// Checked qk_norm_rope_into_cache on a chosen ISA.
template <class T, class Angles>
void qk_norm_rope_into_cache_on(Isa isa, const RopeSpec& spec, const QkNorm& norm, const Angles& angles,
                                const PositionIds& positions, const CacheWrite<T>& write, TokenRange range = all_tokens)
{
    detail::dispatch::require_isa(isa);
    range = kernels::detail::within(range, write.k.tokens);
    const auto f = kernels::detail::cache_args(spec, norm, write);
    kernels::detail::check_cache_call(spec, angles, positions, f, static_cast<int>(norm.weighting), range);
    detail::dispatch::run_fused_on(isa, spec, f, angles, positions, range);
}

/// Checked qk_norm_rope_into_cache on best_isa().
template <class T, class Angles>
void qk_norm_rope_into_cache(const RopeSpec& spec, const QkNorm& norm, const Angles& angles,
                             const PositionIds& positions, const CacheWrite<T>& write, TokenRange range = all_tokens)
{
    qk_norm_rope_into_cache_on(best_isa(), spec, norm, angles, positions, write, range);
}

/// Unchecked qk_norm_rope_into_cache on a chosen ISA: kernels::qk_norm_rope_into_cache_unchecked's preconditions, plus
/// isa_available(isa).
template <class T, class Angles>
void qk_norm_rope_into_cache_unchecked_on(Isa isa, const RopeSpec& spec, const QkNorm& norm, const Angles& angles,
                                          const PositionIds& positions, const CacheWrite<T>& write,
                                          TokenRange range = all_tokens) noexcept
{
    range = kernels::detail::within(range, write.k.tokens);
    const auto f = kernels::detail::cache_args(spec, norm, write);
    POSENC_ASSERT(kernels::detail::passes([&] {
        kernels::detail::check_cache_call(spec, angles, positions, f, static_cast<int>(norm.weighting), range);
    }));
    detail::dispatch::run_fused_on(isa, spec, f, angles, positions, range);
}

/// Unchecked qk_norm_rope_into_cache on best_isa().
template <class T, class Angles>
void qk_norm_rope_into_cache_unchecked(const RopeSpec& spec, const QkNorm& norm, const Angles& angles,
                                       const PositionIds& positions, const CacheWrite<T>& write,
                                       TokenRange range = all_tokens) noexcept
{
    qk_norm_rope_into_cache_unchecked_on(best_isa(), spec, norm, angles, positions, write, range);
}

// ---- multi-axis forms (fused_multi_axis.hpp): the 1-D forms above with the gathering source ---

/// Checked multi-axis qk_norm_rope on a chosen ISA.
template <class T, class Angles>
void qk_norm_rope_on(Isa isa, const RopeSpec& spec, const QkNorm& norm, const Angles& angles, const MultiAxisIds& ids,
                     const QKViews<T>& views, TokenRange range = all_tokens, FloatSpan q_multipliers = {})
{
    detail::dispatch::require_isa(isa);
    kernels::detail::check_fused_multi_axis(spec, angles, ids, views.tokens(), range);
    qk_norm_rope_on(isa, spec, norm, kernels::detail::rows_of(angles, ids, views.tokens()), PositionIds::contiguous(0),
                    views, range, q_multipliers);
}

/// Checked multi-axis qk_norm_rope on best_isa().
template <class T, class Angles>
void qk_norm_rope(const RopeSpec& spec, const QkNorm& norm, const Angles& angles, const MultiAxisIds& ids,
                  const QKViews<T>& views, TokenRange range = all_tokens, FloatSpan q_multipliers = {})
{
    qk_norm_rope_on(best_isa(), spec, norm, angles, ids, views, range, q_multipliers);
}

/// Unchecked multi-axis qk_norm_rope on a chosen ISA.
template <class T, class Angles>
void qk_norm_rope_unchecked_on(Isa isa, const RopeSpec& spec, const QkNorm& norm, const Angles& angles,
                               const MultiAxisIds& ids, const QKViews<T>& views, TokenRange range = all_tokens,
                               FloatSpan q_multipliers = {}) noexcept
{
    POSENC_ASSERT(kernels::detail::passes(
        [&] { kernels::detail::check_fused_multi_axis(spec, angles, ids, views.tokens(), range); }));
    qk_norm_rope_unchecked_on(isa, spec, norm, kernels::detail::rows_of(angles, ids, views.tokens()),
                              PositionIds::contiguous(0), views, range, q_multipliers);
}

/// Unchecked multi-axis qk_norm_rope on best_isa().
template <class T, class Angles>
void qk_norm_rope_unchecked(const RopeSpec& spec, const QkNorm& norm, const Angles& angles, const MultiAxisIds& ids,
                            const QKViews<T>& views, TokenRange range = all_tokens,
                            FloatSpan q_multipliers = {}) noexcept
{
    qk_norm_rope_unchecked_on(best_isa(), spec, norm, angles, ids, views, range, q_multipliers);
}

/// Checked multi-axis rope_into_cache on a chosen ISA.
template <class T, class Angles>
void rope_into_cache_on(Isa isa, const RopeSpec& spec, const Angles& angles, const MultiAxisIds& ids,
                        const CacheWrite<T>& write, TokenRange range = all_tokens)
{
    detail::dispatch::require_isa(isa);
    kernels::detail::check_fused_multi_axis(spec, angles, ids, write.k.tokens, range);
    rope_into_cache_on(isa, spec, kernels::detail::rows_of(angles, ids, write.k.tokens), PositionIds::contiguous(0),
                       write, range);
}

/// Checked multi-axis rope_into_cache on best_isa().
template <class T, class Angles>
void rope_into_cache(const RopeSpec& spec, const Angles& angles, const MultiAxisIds& ids, const CacheWrite<T>& write,
                     TokenRange range = all_tokens)
{
    rope_into_cache_on(best_isa(), spec, angles, ids, write, range);
}

/// Unchecked multi-axis rope_into_cache on a chosen ISA.
template <class T, class Angles>
void rope_into_cache_unchecked_on(Isa isa, const RopeSpec& spec, const Angles& angles, const MultiAxisIds& ids,
                                  const CacheWrite<T>& write, TokenRange range = all_tokens) noexcept
{
    POSENC_ASSERT(kernels::detail::passes(
        [&] { kernels::detail::check_fused_multi_axis(spec, angles, ids, write.k.tokens, range); }));
    rope_into_cache_unchecked_on(isa, spec, kernels::detail::rows_of(angles, ids, write.k.tokens),
                                 PositionIds::contiguous(0), write, range);
}

/// Unchecked multi-axis rope_into_cache on best_isa().
template <class T, class Angles>
void rope_into_cache_unchecked(const RopeSpec& spec, const Angles& angles, const MultiAxisIds& ids,
                               const CacheWrite<T>& write, TokenRange range = all_tokens) noexcept
{
    rope_into_cache_unchecked_on(best_isa(), spec, angles, ids, write, range);
}

/// Checked multi-axis qk_norm_rope_into_cache on a chosen ISA.
template <class T, class Angles>
void qk_norm_rope_into_cache_on(Isa isa, const RopeSpec& spec, const QkNorm& norm, const Angles& angles,
                                const MultiAxisIds& ids, const CacheWrite<T>& write, TokenRange range = all_tokens)
{
    detail::dispatch::require_isa(isa);
    kernels::detail::check_fused_multi_axis(spec, angles, ids, write.k.tokens, range);
    qk_norm_rope_into_cache_on(isa, spec, norm, kernels::detail::rows_of(angles, ids, write.k.tokens),
                               PositionIds::contiguous(0), write, range);
}

/// Checked multi-axis qk_norm_rope_into_cache on best_isa().
template <class T, class Angles>
void qk_norm_rope_into_cache(const RopeSpec& spec, const QkNorm& norm, const Angles& angles, const MultiAxisIds& ids,
                             const CacheWrite<T>& write, TokenRange range = all_tokens)
{
    qk_norm_rope_into_cache_on(best_isa(), spec, norm, angles, ids, write, range);
}

/// Unchecked multi-axis qk_norm_rope_into_cache on a chosen ISA.
template <class T, class Angles>
void qk_norm_rope_into_cache_unchecked_on(Isa isa, const RopeSpec& spec, const QkNorm& norm, const Angles& angles,
                                          const MultiAxisIds& ids, const CacheWrite<T>& write,
                                          TokenRange range = all_tokens) noexcept
{
    POSENC_ASSERT(kernels::detail::passes(
        [&] { kernels::detail::check_fused_multi_axis(spec, angles, ids, write.k.tokens, range); }));
    qk_norm_rope_into_cache_unchecked_on(isa, spec, norm, kernels::detail::rows_of(angles, ids, write.k.tokens),
                                         PositionIds::contiguous(0), write, range);
}

/// Unchecked multi-axis qk_norm_rope_into_cache on best_isa().
template <class T, class Angles>
void qk_norm_rope_into_cache_unchecked(const RopeSpec& spec, const QkNorm& norm, const Angles& angles,
                                       const MultiAxisIds& ids, const CacheWrite<T>& write,
                                       TokenRange range = all_tokens) noexcept
{
    qk_norm_rope_into_cache_unchecked_on(best_isa(), spec, norm, angles, ids, write, range);
}

}  // namespace posenc::kernels::dispatch
