// SPDX-License-Identifier: MIT
// posenc/kernels/fused_multi_axis.hpp: the fused engine steps (qk_norm_rope, rope_into_cache,
// qk_norm_rope_into_cache) with multi-axis positions: QK-norm + M-RoPE (Qwen2-VL / Qwen2.5-VL
// contiguous sections, Qwen3-VL / Qwen3.5 interleaved sections, 2-D axial vision RoPE, any
// MultiAxisLayout that keeps each pair on one axis) in one pass, into the paged cache too.
//
// Each entry point takes the arguments of its 1-D form with MultiAxisIds in place of
// PositionIds: the layout (the axis each pair reads) and the [tokens][axes] positions together.
//
//     const MultiAxisIds ids(layout, MultiAxisPositions(positions, 3));
//     qk_norm_rope(spec, norm, angles, ids, views, range, q_multipliers)
//     qk_norm_rope(spec, norm, angles, ids, views, q_rows, range, q_multipliers)   (Q to rows)
//     rope_into_cache(spec, angles, ids, write, range)
//     qk_norm_rope_into_cache(spec, norm, angles, ids, write, range)
//
// Pair i of token t rotates by positions(t, layout.axis_of_pair(i)) * theta_i; everything else
// (the norm, the pairing, partial rotary, the pass-through dims, the cache's element type,
// slots, scales, stores, query multipliers) is the 1-D step's, formulas and error bounds
// included (qk_norm_rope.hpp, kv_cache_write.hpp).
//
// How: the 1-D step runs unchanged with the gathering angle source of kernels/multi_axis.hpp
// (detail::MultiAxisRows: its "position" is the token index, and each token's cos/sin row holds
// every pair's values at that pair's axis's position, the values the 1-D step would use at that
// position). So a token whose axes all hold m gives the 1-D step's bits at m, on every arch and
// storage type, and any token gives, pair by pair, the 1-D step's result at that pair's position
// (tests/kernels/fused_multi_axis.cpp checks both, and the scalar reference). double tensors
// (qk_norm_rope) take the reference path with each pair at its axis's position.
//
// Checked entry points refuse, naming the field, what apply_multi_axis_rope refuses about the
// layout and the positions (a layout of another pair count, one that splits a pair across axes,
// positions of another axis or token count, outside their buffer, or outside the angle source:
// "positions[5][1] ..."), then everything the 1-D step refuses.
#pragma once

#define POSENC_KERNELS_DETAIL_ALLOWED 1  // this public header may include posenc/kernels/detail/*.hpp

#include "posenc/config.hpp"
#include "posenc/kernels/detail/multi_axis_rows.hpp"
#include "posenc/kernels/kv_cache_write.hpp"
#include "posenc/kernels/multi_axis_positions.hpp"
#include "posenc/kernels/qk_norm_rope.hpp"
#include "posenc/kernels/views.hpp"
#include "posenc/multi_axis.hpp"
#include "posenc/spec.hpp"

namespace posenc::kernels {

/// The positions of a multi-axis fused call: the layout (which axis each pair reads) and every
/// token's position on every axis. Non-owning: both must outlive the call.
class MultiAxisIds
{
public:
    constexpr MultiAxisIds(const MultiAxisLayout& layout, MultiAxisPositions positions) noexcept
        : layout_(&layout), positions_(positions)
    {}
    MultiAxisIds(const MultiAxisLayout&&, MultiAxisPositions) = delete;  // a temporary layout would dangle

    constexpr const MultiAxisLayout& layout() const noexcept { return *layout_; }
    constexpr const MultiAxisPositions& positions() const noexcept { return positions_; }

private:
    const MultiAxisLayout* layout_;
    MultiAxisPositions positions_;
};

namespace detail {

/// The layout and the positions of a multi-axis fused call of `tokens` tokens (range clamped):
/// the checks the 1-D step does not make (it sees the gathering source and token indices).
template <class Angles>
void check_fused_multi_axis(const RopeSpec& spec, const Angles& angles, const MultiAxisIds& ids, std::ptrdiff_t tokens,
                            TokenRange range)
{
    check_layout(spec, ids.layout());
    check_axis_positions(ids.layout(), angles, ids.positions(), tokens, within(range, tokens));
}

/// The gathering angle source of a multi-axis call (its "positions" are the token indices).
template <class Angles>
MultiAxisRows<Angles> rows_of(const Angles& angles, const MultiAxisIds& ids, std::ptrdiff_t tokens) noexcept
{
    return make_multi_axis_rows(ids.layout(), angles, ids.positions(), tokens);
}

}  // namespace detail

/// Checked QK-norm + multi-axis RoPE; see the file comment and qk_norm_rope.hpp.
template <class T, class Angles>
void qk_norm_rope(const RopeSpec& spec, const QkNorm& norm, const Angles& angles, const MultiAxisIds& ids,
                  const QKViews<T>& views, TokenRange range = all_tokens, FloatSpan q_multipliers = {})
{
    detail::check_fused_multi_axis(spec, angles, ids, views.tokens(), range);
    qk_norm_rope(spec, norm, detail::rows_of(angles, ids, views.tokens()), PositionIds::contiguous(0), views, range,
                 q_multipliers);
}

/// Checked QK-norm + multi-axis RoPE with Q to rows of a cache view (qk_norm_rope.hpp's q_rows form).
template <class T, class Angles>
void qk_norm_rope(const RopeSpec& spec, const QkNorm& norm, const Angles& angles, const MultiAxisIds& ids,
                  const QKViews<T>& views, const KvCacheView& q_rows, TokenRange range = all_tokens,
                  FloatSpan q_multipliers = {})
{
    detail::check_fused_multi_axis(spec, angles, ids, views.tokens(), range);
    qk_norm_rope(spec, norm, detail::rows_of(angles, ids, views.tokens()), PositionIds::contiguous(0), views, q_rows,
                 range, q_multipliers);
}

/// Unchecked QK-norm + multi-axis RoPE on an explicit arch. Preconditions: what the checked form checks.
template <class Arch, class T, class Angles>
void qk_norm_rope_unchecked_on(Arch, const RopeSpec& spec, const QkNorm& norm, const Angles& angles,
                               const MultiAxisIds& ids, const QKViews<T>& views, TokenRange range = all_tokens,
                               FloatSpan q_multipliers = {}) noexcept
{
#if !POSENC_DETAIL_DISPATCH_UNIT
    POSENC_ASSERT(detail::passes([&] { detail::check_fused_multi_axis(spec, angles, ids, views.tokens(), range); }));
#endif
    qk_norm_rope_unchecked_on(Arch {}, spec, norm, detail::rows_of(angles, ids, views.tokens()),
                              PositionIds::contiguous(0), views, range, q_multipliers);
}

/// qk_norm_rope_unchecked_on (multi-axis) with kernels::default_arch.
template <class T, class Angles>
void qk_norm_rope_unchecked(const RopeSpec& spec, const QkNorm& norm, const Angles& angles, const MultiAxisIds& ids,
                            const QKViews<T>& views, TokenRange range = all_tokens,
                            FloatSpan q_multipliers = {}) noexcept
{
    qk_norm_rope_unchecked_on(kernels::default_arch {}, spec, norm, angles, ids, views, range, q_multipliers);
}

/// Checked multi-axis RoPE of K into the cache (V copied, Q rotated); see kv_cache_write.hpp.
template <class T, class Angles>
void rope_into_cache(const RopeSpec& spec, const Angles& angles, const MultiAxisIds& ids, const CacheWrite<T>& write,
                     TokenRange range = all_tokens)
{
    detail::check_fused_multi_axis(spec, angles, ids, write.k.tokens, range);
    rope_into_cache(spec, detail::rows_of(angles, ids, write.k.tokens), PositionIds::contiguous(0), write, range);
}

/// Unchecked multi-axis rope_into_cache on an explicit arch.
template <class Arch, class T, class Angles>
void rope_into_cache_unchecked_on(Arch, const RopeSpec& spec, const Angles& angles, const MultiAxisIds& ids,
                                  const CacheWrite<T>& write, TokenRange range = all_tokens) noexcept
{
#if !POSENC_DETAIL_DISPATCH_UNIT
    POSENC_ASSERT(detail::passes([&] { detail::check_fused_multi_axis(spec, angles, ids, write.k.tokens, range); }));
#endif
    rope_into_cache_unchecked_on(Arch {}, spec, detail::rows_of(angles, ids, write.k.tokens),
                                 PositionIds::contiguous(0), write, range);
}

template <class T, class Angles>
void rope_into_cache_unchecked(const RopeSpec& spec, const Angles& angles, const MultiAxisIds& ids,
                               const CacheWrite<T>& write, TokenRange range = all_tokens) noexcept
{
    rope_into_cache_unchecked_on(kernels::default_arch {}, spec, angles, ids, write, range);
}

/// Checked QK-norm + multi-axis RoPE of Q and K into the cache, V copied: one engine step of a
/// Qwen3-VL / Qwen3.5 style model.
template <class T, class Angles>
void qk_norm_rope_into_cache(const RopeSpec& spec, const QkNorm& norm, const Angles& angles, const MultiAxisIds& ids,
                             const CacheWrite<T>& write, TokenRange range = all_tokens)
{
    detail::check_fused_multi_axis(spec, angles, ids, write.k.tokens, range);
    qk_norm_rope_into_cache(spec, norm, detail::rows_of(angles, ids, write.k.tokens), PositionIds::contiguous(0), write,
                            range);
}

/// Unchecked multi-axis qk_norm_rope_into_cache on an explicit arch.
template <class Arch, class T, class Angles>
void qk_norm_rope_into_cache_unchecked_on(Arch, const RopeSpec& spec, const QkNorm& norm, const Angles& angles,
                                          const MultiAxisIds& ids, const CacheWrite<T>& write,
                                          TokenRange range = all_tokens) noexcept
{
#if !POSENC_DETAIL_DISPATCH_UNIT
    POSENC_ASSERT(detail::passes([&] { detail::check_fused_multi_axis(spec, angles, ids, write.k.tokens, range); }));
#endif
    qk_norm_rope_into_cache_unchecked_on(Arch {}, spec, norm, detail::rows_of(angles, ids, write.k.tokens),
                                         PositionIds::contiguous(0), write, range);
}

template <class T, class Angles>
void qk_norm_rope_into_cache_unchecked(const RopeSpec& spec, const QkNorm& norm, const Angles& angles,
                                       const MultiAxisIds& ids, const CacheWrite<T>& write,
                                       TokenRange range = all_tokens) noexcept
{
    qk_norm_rope_into_cache_unchecked_on(kernels::default_arch {}, spec, norm, angles, ids, write, range);
}

}  // namespace posenc::kernels
