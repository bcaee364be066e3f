// SPDX-License-Identifier: MIT
// posenc/kernels/qk_norm_rope.hpp: QK-norm and RoPE in one pass over Q and K.
//
// Qwen3, OLMo 2 and Gemma 3 normalise every Q and K head with an RMSNorm (a learned weight of
// head_dim values, one for Q and one for K) right before RoPE. Per head x (head_dim = n values):
//
//     rms(x)   = sqrt( (x_0^2 + ... + x_{n-1}^2) / n + eps )
//     y        = RoPE( x / rms(x) * w )          NormWeighting::weight           (Qwen3, OLMo 2)
//     y        = RoPE( x / rms(x) * (1 + w) )    NormWeighting::one_plus_weight  (Gemma, Gemma 3)
//
// The norm covers all head_dim dims; RoPE (apply.hpp's rotation, forward, the spec's pairing)
// the rotated slice [rotary_offset, rotary_offset + rotary_dim) of them; the other dims come out
// normalised, not rotated. qk_rms_norm is the norm alone (the first pass of an unfused engine).
//
// Per-token query multipliers (optional, the range-taking entries' last argument): a float m[t]
// per token of the views, and Q of token t comes out as
//     q_out = m[t] * RoPE( q / rms(q) * w' )             (K is not scaled)
// (an attention temperature that grows with the position: the engine computes m[t]). It is
// folded into the weights, w' m[t] in one more float rounding, which adds u |m[t]| A |y| to the
// bound below. The checked entries refuse multipliers with data null, fewer than `tokens` of
// them, one that is not finite in the range, or memory shared with an output view.
//
// Arithmetic: read as float; the sum of squares in float (fma, four partial sums), then
// r = 1 / sqrt(sum / n + eps), each step one float rounding; w'_d = w_d + offset (offset 1 for
// Gemma, 0 otherwise; w + 1 rounded to float as Hugging Face's float32 weight is). A rotated
// pair (a, b) with the angle source's (c, s) is RoPE(x r w') reassociated (c w' and s w' formed
// once per token and tile of heads):
//     a' = r (a (c w'_a) - b (s w'_b)),   b' = r (b (c w'_b) + a (s w'_a))
// A pass-through dim is x_d (r w'_d). Then one rounding into the storage type. double tensors
// take a scalar reference path in double.
//
// Error bound (float storage), u = 2^-24, n = head_dim, A = attention factor, against the exact
// real result (an exact RMSNorm followed by the exact rotation), y = the exact normalised pair
// (derived in docs/formulas.md, "Kernels"): per coordinate of a rotated pair
//       |error| <= (n/2 + 9) u A |y|                   (n = 128: 73 u = 4.4e-6 of A |y|)
//   and per pass-through dim (n/2 + 6) u |y_d|. 16-bit storage adds half an ulp of the format.
//   tests/kernels/qk_norm_rope.cpp checks it against a long double RMSNorm composed with
//   apply_rope_reference, on every arch path.
// Range: head_dim <= max_fused_head_dim (512); the sum of squares of a head must be finite in
// float (|x| below about 1e18): a larger head would overflow to inf and normalise to zero.
// eps as configured (rms_norm_eps: Qwen3 1e-6), finite and >= 0.
//
// Quantised Q (the q_rows form): Q goes, instead of to q_out, to rows of a cache view in that
// view's storage and scale (fp8 e4m3 / e5m2 or int8 codes of exactly the float a float q_out
// would hold, one rounding more; kv_cache_write.hpp's CacheWrite::q_rows in the cache steps).
//
// Checked entry points throw posenc::error for anything apply_rope refuses, a head_dim above
// 512, eps negative or not finite, a weighting outside the enum, a missing or short weight for a
// tensor that is normalised, or a weight an output overlaps (unchecked: debug assertions).
#pragma once

#define POSENC_KERNELS_DETAIL_ALLOWED 1  // this public header may include posenc/kernels/detail/*.hpp

#include <type_traits>

#include "posenc/config.hpp"
#include "posenc/kernels/angle_source.hpp"
#include "posenc/kernels/detail/fused_checks.hpp"
#include "posenc/kernels/detail/fused_loops.hpp"
#include "posenc/kernels/detail/simd_ops.hpp"
#include "posenc/kernels/dtypes.hpp"
#include "posenc/kernels/kv_cache_view.hpp"
#include "posenc/kernels/views.hpp"
#include "posenc/spec.hpp"

namespace posenc::kernels {

/// How the RMSNorm weight scales the normalised head; see the file comment.
enum class NormWeighting {
    weight,  ///< x / rms(x) * w        (Qwen3, OLMo 2; Hugging Face Qwen3RMSNorm)
    one_plus_weight,  ///< x / rms(x) * (1 + w)  (Gemma; Hugging Face GemmaRMSNorm)
};

/// The per-head RMSNorm of Q and K: weighting, eps and the two weight vectors, sized spans of at
/// least head_dim floats each (a std::vector converts; a pointer goes as FloatSpan(data, size)),
/// outliving the call; k_weight may be absent when a call has no K. The checked entries refuse a
/// span shorter than head_dim, so every weight read lies inside it.
struct QkNorm {
    NormWeighting weighting = NormWeighting::weight;
    float eps = 1e-6f;
    FloatSpan q_weight;
    FloatSpan k_weight;
};

namespace detail {

/// f with the QK-norm of `norm` switched on (qk_norm_rope, qk_norm_rope_into_cache).
template <class T>
FusedArgs<T> with_norm(FusedArgs<T> f, const QkNorm& norm) noexcept
{
    f.norm = true;
    f.eps = norm.eps;
    f.weight_offset = norm.weighting == NormWeighting::one_plus_weight ? 1.0f : 0.0f;
    f.q_weight = norm.q_weight;
    f.k_weight = norm.k_weight;
    return f;
}

template <class T>
FusedArgs<T> norm_args(const RopeSpec& spec, const QkNorm& norm, const QKViews<T>& views, int rotary_dim,
                       FloatSpan q_multipliers = {}) noexcept
{
    FusedArgs<T> f;
    f.head_dim = spec.head_dim();
    f.rotary_dim = rotary_dim;
    f.rotary_offset = rotary_dim == 0 ? 0 : spec.rotary_offset();
    f.q_in = views.q_in;
    f.q_out = views.q_out;
    f.k_in = views.k_in;
    f.k_out = views.k_out;
    f.q_multipliers = q_multipliers;
    return with_norm(f, norm);
}

template <class Arch, class T, class Angles>
void run_fused_on(Arch, const RopeSpec& spec, const FusedArgs<T>& f, const Angles& angles, const PositionIds& positions,
                  TokenRange range) noexcept
{
    if constexpr (std::is_same_v<T, double>) fused_tokens_double(spec, f, angles, positions, range);
    else fused_run<Arch>(spec.pairing(), f, angles, positions, range);
}

}  // namespace detail

/// Unchecked QK-norm + RoPE on an explicit arch (enabled by the translation unit's flags).
/// Preconditions: what qk_norm_rope checks (debug builds assert it).
template <class Arch, class T, class Angles>
void qk_norm_rope_unchecked_on(Arch, const RopeSpec& spec, const QkNorm& norm, const Angles& angles,
                               const PositionIds& positions, const QKViews<T>& views, TokenRange range = all_tokens,
                               FloatSpan q_multipliers = {}) noexcept
{
    static_assert(is_storage_type<T>, "qk_norm_rope reads float, bfloat16, float16 or double tensors.");
    range = detail::within(range, views.tokens());
    const detail::FusedArgs<T> f = detail::norm_args(spec, norm, views, spec.rotary_dim(), q_multipliers);
#if !POSENC_DETAIL_DISPATCH_UNIT
    POSENC_ASSERT(detail::passes(
        [&] { detail::check_norm_call(spec, angles, positions, views, f, static_cast<int>(norm.weighting), range); }));
#endif
    detail::run_fused_on(Arch {}, spec, f, angles, positions, range);
}

/// qk_norm_rope_unchecked_on with kernels::default_arch.
template <class T, class Angles>
void qk_norm_rope_unchecked(const RopeSpec& spec, const QkNorm& norm, const Angles& angles,
                            const PositionIds& positions, const QKViews<T>& views, TokenRange range = all_tokens,
                            FloatSpan q_multipliers = {}) noexcept
{
    qk_norm_rope_unchecked_on(kernels::default_arch {}, spec, norm, angles, positions, views, range, q_multipliers);
}

/// Checked QK-norm + RoPE of tokens `range` (default all_tokens): Q with norm.q_weight, K (if
/// the views have one) with norm.k_weight, in place or out of place. q_multipliers (optional,
/// one float per token of the views): Q of token t comes out multiplied by
/// q_multipliers.data[t] (K is not scaled). See the file comment.
template <class T, class Angles>
void qk_norm_rope(const RopeSpec& spec, const QkNorm& norm, const Angles& angles, const PositionIds& positions,
                  const QKViews<T>& views, TokenRange range = all_tokens, FloatSpan q_multipliers = {})
{
    range = detail::within(range, views.tokens());
    const detail::FusedArgs<T> f = detail::norm_args(spec, norm, views, spec.rotary_dim(), q_multipliers);
    detail::check_norm_call(spec, angles, positions, views, f, static_cast<int>(norm.weighting), range);
    detail::run_fused_on(kernels::default_arch {}, spec, f, angles, positions, range);
}

/// Checked QK-norm + RoPE with Q to rows of a cache view instead of q_out (views.q_out absent):
/// Q of token t (views.q_in) to row t of q_rows, [tokens][heads][head_dim] as
/// KvCacheView::contiguous(data, size, tokens, heads, head_dim, token_major, scale) builds it, in
/// that view's storage and scale: fp8 e4m3 / e5m2 or int8 codes convert(fl(y / scale)) (quantize.hpp;
/// a scale per tensor or per head) of exactly the float y that qk_norm_rope writes to a float
/// q_out, or float / bfloat16 / float16 (the attention kernel's quantised Q straight from the norm
/// and rotation pass). K (if the views have one) as qk_norm_rope. Refused besides qk_norm_rope's
/// rules (with q_in in q_out's place): q_rows absent or invalid (kv_cache_view.hpp's rules),
/// fewer rows than tokens, q_out given, q_rows meeting any other argument. float, bfloat16 and
/// float16 tensors.
template <class T, class Angles>
void qk_norm_rope(const RopeSpec& spec, const QkNorm& norm, const Angles& angles, const PositionIds& positions,
                  const QKViews<T>& views, const KvCacheView& q_rows, TokenRange range = all_tokens,
                  FloatSpan q_multipliers = {})
{
    static_assert(is_storage_type<T> && !std::is_same_v<T, double>,
                  "Q to rows reads float, bfloat16 or float16 tensors.");
    range = detail::within(range, views.tokens());
    detail::FusedArgs<T> f = detail::norm_args(spec, norm, views, spec.rotary_dim(), q_multipliers);
    f.q_rows = q_rows;
    detail::check_norm_rows_call(spec, angles, positions, views, f, static_cast<int>(norm.weighting), range);
    detail::fused_run<kernels::default_arch>(spec.pairing(), f, angles, positions, range);
}

/// Checked RMSNorm alone (no rotation) of every head of Q (and K) over head_dim, same rules
/// and arithmetic as qk_norm_rope (the rotary part of `spec` is not used).
template <class T>
void qk_rms_norm(const RopeSpec& spec, const QkNorm& norm, const QKViews<T>& views, TokenRange range = all_tokens)
{
    static_assert(is_storage_type<T> && !std::is_same_v<T, double>,
                  "qk_rms_norm reads float, bfloat16 or float16 tensors.");
    range = detail::within(range, views.tokens());
    const detail::FusedArgs<T> f = detail::norm_args(spec, norm, views, 0);
    const detail::NoAngles none {spec.num_pairs()};
    const PositionIds positions = PositionIds::contiguous(0);
    detail::check_norm_call(spec, none, positions, views, f, static_cast<int>(norm.weighting), range);
    detail::fused_run<kernels::default_arch>(spec.pairing(), f, none, positions, range);
}

}  // namespace posenc::kernels
