// SPDX-License-Identifier: MIT
// posenc/kernels/apply.hpp: the SIMD RoPE kernel (one generic xsimd kernel, templated on the
// architecture and the pairing) and its checked and unchecked entry points.
//
// Per pair (a, b) of a head at position m, with (c, s) = attention_factor * (cos, sin)(m theta_i)
// from the angle source (RoFormer eq. 34; Hugging Face x*cos + rotate_half(x)*sin):
//
//     forward   a' = a c - b s      b' = b c + a s
//     inverse   a' = a c + b s      b' = b c - a s        (R(-m theta) = R(m theta)^T)
//
// The inverse runs the forward loops on the row's sin negated (once per token and row: exact,
// so it rounds exactly as the formula above), which keeps one compiled loop per pairing.
//
// How the loops evaluate it in registers: docs/kernels.md, "Layouts", and detail/rope_loops.hpp.
// The kernel never reads or writes an element outside the rotary slice of the views;
// pass-through dims are copied (out of place) or not touched (in place).
// Storage float / bfloat16 / float16: loaded to float, math in float, rounded to nearest even
// on store. double: the reference path (detail::rope_tokens_double): scalar, cos/sin in double
// from the exact angle (angles.hpp), for checking and for callers who want double results.
//
// Error per output coordinate, float storage; u = 2^-24, A = attention factor, |x| = sqrt(a^2 +
// b^2) of the input pair: <= (2 + sqrt(2)) u A |x| = 3.41 u A |x|, within 4 ulp of A |x| on every
// arch, with or without FMA (derived in docs/formulas.md, "Kernels"). tests/kernels/
// checks it against apply_rope_reference in double (measured: <= 1.4 ulp). 16-bit storage adds
// one final rounding (half an ulp of the 16-bit format) to that float result.
#pragma once

#define POSENC_KERNELS_DETAIL_ALLOWED 1  // this public header may include posenc/kernels/detail/*.hpp

#include <type_traits>

#include "posenc/config.hpp"
#include "posenc/kernels/angle_source.hpp"
#include "posenc/kernels/detail/checks.hpp"
#include "posenc/kernels/detail/rope_loops.hpp"
#include "posenc/kernels/dtypes.hpp"
#include "posenc/kernels/views.hpp"
#include "posenc/spec.hpp"

namespace posenc::kernels {

/// Unchecked apply on an explicit architecture: rotates tokens `range` (default all_tokens) of
/// views by the positions, with cos/sin from `angles` (CosSinCache, OnTheFlyAngles or any type
/// following angle_source.hpp). Formula and error: see the file comment.
/// Preconditions (what apply_rope checks, see checks.hpp): valid views of spec.head_dim, positions
/// in angles.position_range(), angles.num_pairs() == spec.num_pairs(). Violations are undefined
/// behaviour (debug builds assert the full check). Arch must be enabled by the translation
/// unit's flags (e.g. xsimd::default_arch).
template <class Arch, class T, class Angles>
void apply_rope_unchecked_on(Arch, const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                             const QKViews<T>& views, Direction direction = Direction::forward,
                             TokenRange range = all_tokens) noexcept
{
    static_assert(is_storage_type<T>, "apply_rope rotates float, bfloat16, float16 or double tensors.");
    range = detail::within(range, views.tokens());
#if !POSENC_DETAIL_DISPATCH_UNIT
    POSENC_ASSERT(detail::rope_call_is_valid(spec, angles, positions, views, range));
#else
    // In a per-ISA dispatch unit the full check (non-arch templates, built with that unit's -m
    // flags) must not be instantiated (dispatch.hpp, one-definition rule); dispatch asserts it in
    // the calling unit before entering here.
    POSENC_ASSERT(0 <= range.begin && range.begin <= range.end && range.end <= views.tokens());
#endif
    if constexpr (std::is_same_v<T, double>) {
        detail::rope_tokens_double(spec, angles, positions, views, direction, range);
    } else {
        if (spec.pairing() == Pairing::half_split)
            detail::rope_tokens<Arch, Pairing::half_split>(spec, angles, positions, views, direction, range);
        else detail::rope_tokens<Arch, Pairing::interleaved>(spec, angles, positions, views, direction, range);
    }
}

/// apply_rope_unchecked_on with the best architecture the compiler targets (kernels::default_arch,
/// simd_ops.hpp: AVX-512 under -mavx512bw or -march=native on such a machine, SSE2 with no flags).
template <class T, class Angles>
void apply_rope_unchecked(const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                          const QKViews<T>& views, Direction direction = Direction::forward,
                          TokenRange range = all_tokens) noexcept
{
    apply_rope_unchecked_on(kernels::default_arch {}, spec, angles, positions, views, direction, range);
}

namespace detail {

/// The checked entry's path for every call but the usual decode step: check_rope_call, then the
/// kernel. Out of line, so that the decode step's path holds no stack frame for it.
template <class T, class Angles>
POSENC_NOINLINE void check_and_apply_rope(const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                                          const QKViews<T>& views, Direction direction, TokenRange range)
{
    check_rope_call(spec, angles, positions, views, range);
    check_direction(direction);
    apply_rope_unchecked(spec, angles, positions, views, direction, range);
}

/// Whether a checked call is a decode step that run_decode_step may take without further
/// checks: forward, one row of pairs (num_pairs <= max_pairs_per_row), and decode_call_is_usual
/// (one token, Q alone in place, valid, at a position the angle source serves). Not for double,
/// which always takes the reference path.
template <class T, class Angles>
POSENC_ALWAYS_INLINE bool is_decode_step(const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                                         const QKViews<T>& views, Direction direction, TokenRange range) noexcept
{
    static_assert(!std::is_same_v<T, double>, "double storage has no decode step: the reference path runs");
    return direction == Direction::forward && spec.num_pairs() <= max_pairs_per_row &&
           decode_call_is_usual(spec, angles, positions, views, range);
}

/// A decode step (is_decode_step) on arch A: Q's heads at `position`, by pairing, through
/// rope_token_in_place (reached by a jump) from the first rotated coordinate of head 0.
template <class A, class T, class Angles>
POSENC_ALWAYS_INLINE void run_decode_step(const RopeSpec& spec, const Angles& angles, std::int64_t position,
                                          const HeadsView<T>& q) noexcept
{
    T* const x = q.data + spec.rotary_offset();
    if (spec.pairing() == Pairing::half_split)
        rope_token_in_place<A, Pairing::half_split>(angles, position, x, q.heads, q.head_stride, spec.num_pairs());
    else rope_token_in_place<A, Pairing::interleaved>(angles, position, x, q.heads, q.head_stride, spec.num_pairs());
}

}  // namespace detail

/// Checked apply of tokens `range` (default all_tokens): throws posenc::error for any violation
/// listed in checks.hpp (shapes, strides, overlaps, position ranges), then runs the kernel.
/// One call may process any sub-range, so threads can split a batch (partition.hpp). A decode
/// step (one token, forward, Q in place, no K) is accepted by one inline test and jumps straight
/// to its kernel (detail::is_decode_step, detail::run_decode_step); every other call goes
/// through all the checks.
template <class T, class Angles>
void apply_rope(const RopeSpec& spec, const Angles& angles, const PositionIds& positions, const QKViews<T>& views,
                Direction direction = Direction::forward, TokenRange range = all_tokens)
{
    range = detail::within(range, views.tokens());
    if constexpr (!std::is_same_v<T, double>) {  // (double: the reference path, never a decode step)
        if (detail::is_decode_step(spec, angles, positions, views, direction, range)) {
            detail::run_decode_step<kernels::default_arch>(spec, angles, positions.start(), views.q_out);
            return;
        }
    }
    detail::check_and_apply_rope(spec, angles, positions, views, direction, range);
}

}  // namespace posenc::kernels
