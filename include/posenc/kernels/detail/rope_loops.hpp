// SPDX-License-Identifier: MIT
// posenc/kernels/detail/rope_loops.hpp: the loops of the SIMD RoPE kernel (apply.hpp holds the
// formula, the error bound and the entry points): per-register rotations, the head and token
// loops, the interleaved row expansion, the one decode path (DecodeRow, rotate_token_heads) that
// every one-token entrance takes, and the scalar double reference path. Helpers that do
// not depend on the arch still take it as a template parameter, so that each per-ISA unit of
// runtime dispatch has its own copy (dispatch.hpp).
#pragma once

#ifndef POSENC_KERNELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/kernels/detail/rope_loops.hpp is internal to the kernels: include <posenc/kernels/apply.hpp> (or <posenc/kernels.hpp>) instead"
#endif

#include <xsimd/xsimd.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "posenc/angles.hpp"
#include "posenc/config.hpp"
#include "posenc/detail/pair_rotation.hpp"
#include "posenc/frequencies.hpp"
#include "posenc/kernels/angle_source.hpp"
#include "posenc/kernels/detail/bfloat16_even_odd.hpp"
#include "posenc/kernels/detail/float_window_pairs.hpp"
#include "posenc/kernels/detail/prefetch.hpp"
#include "posenc/kernels/detail/rotation_skeleton.hpp"
#include "posenc/kernels/detail/simd_ops.hpp"
#include "posenc/kernels/dtypes.hpp"
#include "posenc/kernels/views.hpp"
#include "posenc/spec.hpp"

namespace posenc::kernels {

namespace detail {

/// cos (c0..c_{n-1}) -> (c0 c0 c1 c1 ...); sin -> (-s0, s0, -s1, s1, ...).
template <class A>
void expand_interleaved_row(const AngleRow& row, int n, float* cos_dup, float* sin_folded) noexcept
{
    using vec = simd::floats<A>;
    constexpr int lanes = simd::float_lanes<A>;
    alignas(64) float signs[lanes];
    for (int l = 0; l < lanes; ++l) signs[l] = (l % 2 == 0) ? -1.0f : 1.0f;
    const vec sign = vec::load_aligned(signs);
    int j = 0;
    for (; j + lanes <= n; j += lanes) {
        const simd::FloatPair<A> c = simd::duplicate<A>(vec::load_unaligned(row.cos + j));
        const simd::FloatPair<A> s = simd::duplicate<A>(vec::load_unaligned(row.sin + j));
        c.first.store_unaligned(cos_dup + 2 * j);
        c.second.store_unaligned(cos_dup + 2 * j + lanes);
        (s.first * sign).store_unaligned(sin_folded + 2 * j);
        (s.second * sign).store_unaligned(sin_folded + 2 * j + lanes);
    }
    for (; j < n; ++j) {
        cos_dup[2 * j] = cos_dup[2 * j + 1] = row.cos[j];
        sin_folded[2 * j] = -row.sin[j];
        sin_folded[2 * j + 1] = row.sin[j];
    }
}

/// -sin of a row into `out` (exact): the inverse rotation's row (apply.hpp).
template <class A>
const float* negated_row(const float* sin, int n, float* out) noexcept
{
    using vec = simd::floats<A>;
    constexpr int lanes = simd::float_lanes<A>;
    int j = 0;
    for (; j + lanes <= n; j += lanes) (-vec::load_unaligned(sin + j)).store_aligned(out + j);
    for (; j < n; ++j) out[j] = -sin[j];
    return out;
}

/// Copies coordinates [begin, end) of every head of one token (pass-through dims, out of place).
template <class A, class T>
void copy_pass_through(const HeadsView<const T>& in, const HeadsView<T>& out, std::ptrdiff_t t, std::ptrdiff_t begin,
                       std::ptrdiff_t end) noexcept
{
    if (begin >= end) return;
    const std::size_t bytes = static_cast<std::size_t>(end - begin) * sizeof(T);
    for (std::ptrdiff_t h = 0; h < in.heads; ++h) std::memcpy(out.head(t, h) + begin, in.head(t, h) + begin, bytes);
}

/// The views from coordinate `offset` of every head on (data + offset, head_dim - offset): the
/// rotated slice [offset, offset + rotary_dim) of the spec is their prefix. Absent views stay
/// absent.
template <class A, class T>
QKViews<T> views_from_coordinate(const QKViews<T>& views, int offset) noexcept
{
    auto shift = [offset](auto v) {
        if (v.present()) {
            v.data += offset;
            v.size -= offset;
            v.head_dim -= offset;
        }
        return v;
    };
    return {shift(views.q_in), shift(views.q_out), shift(views.k_in), shift(views.k_out)};
}

/// Whether rotate_heads takes interleaved pairs' cos/sin as the row stores them (bfloat16 on
/// avx512_bf16, bfloat16_even_odd.hpp) rather than duplicated and sign-folded.
template <class A, class T>
#if POSENC_WITH_AVX512BF16
inline constexpr bool rotates_row_as_stored = even_odd::used_for<A, T>;
#else
inline constexpr bool rotates_row_as_stored = false;
#endif

/// Chunks per group of apply's rotation, whose cos/sin stay in registers (2 per chunk): 4 take 8
/// of SSE/AVX2's 16 registers; on AVX-512 an interleaved group of 8 covers a 128-dim head (one
/// sweep in address order). bfloat16's even/odd chunks are 32 (half_split) or 16 pairs: 2 and 4.
template <class A, Pairing P, class T>
inline constexpr int apply_chunks = rotates_row_as_stored<A, T> ? (P == Pairing::half_split ? 2 : 4)
                                    : (P == Pairing::interleaved && simd::float_lanes<A> >= 16) ? 8
                                                                                                : 4;

/// The pairing policy (rotation_skeleton.hpp) apply rotates T with on arch A; num_pairs: the row's pairs
/// (a half_split pair's b is num_pairs elements after its a).
template <class A, Pairing P, class T>
auto apply_pairs(int num_pairs) noexcept
{
#if POSENC_WITH_AVX512BF16
    if constexpr (even_odd::used_for<A, T>) {
        if constexpr (P == Pairing::half_split) return even_odd::HalfSplitPairs<A> {num_pairs};
        else return even_odd::InterleavedPairs<A> {};
    } else
#endif
        if constexpr (P == Pairing::half_split)
        return HalfSplitPairs<A> {num_pairs};
    else return InterleavedPairs<A> {};
}

/// Pairs [pair0, pair0 + n) of every head of one tensor and token (interleaved rows expanded
/// unless rotates_row_as_stored): apply's rotation. The row is read once per group of registers
/// and run of heads, so no load of it waits on a store to a head (store-to-load "4K aliasing"
/// between a row and a head at the same page offset). bfloat16 half_split rows of 16 pairs on
/// avx512_bf16 (Gemma 4's vision chunks) take even_odd::HalfSplit16Pairs: one 32-element chunk
/// per head rather than a half-used even/odd chunk over a and another over b; rows of 17 to 31
/// pairs (MiniMax-M3-VL's 30) even_odd::HalfSplitWindowPairs: a' and b' stored as the head's
/// first 64 elements, line by line, rather than b' across a line; float rows of 17 to 31 pairs on
/// AVX-512 float_window::FloatWindowPairs: the head read and written once, by its 16-float
/// registers, rather than a whole register of pairs, then the partial one, in two loops over
/// the heads with b across lines. Not forced inline:
/// one copy per type.
template <class A, Pairing P, class T>
void rotate_heads(const HeadRun<T>& run, int num_pairs, int pair0, int n, const AngleRow& row) noexcept
{
    const int first = P == Pairing::half_split ? pair0 : 2 * pair0;  // the first element of the pairs
#if POSENC_WITH_AVX512BF16
    if constexpr (P == Pairing::half_split && even_odd::used_for<A, T>) {
        if (num_pairs == even_odd::HalfSplit16Pairs<A>::chunk) {  // (so pair0 0, n 16): a and b one 32-element chunk
            rotate_group<A, GroupedStores>(run, even_odd::HalfSplit16Pairs<A> {}, Plain {}, row, 0, FullWidth {},
                                           std::index_sequence<0> {});
            return;
        }
        if (num_pairs > 16 && num_pairs < 32) {  // (so pair0 0, n num_pairs): a and b in the first 64 elements
            rotate_group<A, GroupedStores>(run, even_odd::HalfSplitWindowPairs<A>(num_pairs), Plain {}, row, 0,
                                           PartialWidth {num_pairs}, std::index_sequence<0> {});
            return;
        }
    }
#endif
#if XSIMD_WITH_AVX512F
    if constexpr (P == Pairing::half_split && float_window::used_for<A, T>) {
        if (num_pairs > 16 && num_pairs < 32) {  // (so pair0 0, n num_pairs): one pass over the window
            rotate_group<A, GroupedStores>(run, float_window::FloatWindowPairs<A>(num_pairs), Plain {}, row, 0,
                                           FullWidth {}, std::index_sequence<0> {});
            return;
        }
    }
#endif
    rotate_row<A, apply_chunks<A, P, T>, GroupedStores>(run.from(first), apply_pairs<A, P, T>(num_pairs), Plain {}, row,
                                                        n);
}

/// The heads of one tensor at one token as a run: the first element of head 0 in and out, the
/// head strides (0 for a single head: the head loop steps past the last head, which must not
/// form an overflowing pointer from a stride that is never used) and the count.
template <class A, class T>
POSENC_ALWAYS_INLINE HeadRun<T> token_heads(const HeadsView<const T>& in, const HeadsView<T>& out,
                                            std::ptrdiff_t t) noexcept
{
    const bool many = in.heads > 1;
    return {in.data + t * in.token_stride, out.data + t * out.token_stride, many ? in.head_stride : 0,
            many ? out.head_stride : 0, in.heads};
}

/// The general loop of rope_tokens: every token of `range`, each row of up to
/// max_pairs_per_row pairs (negated for the inverse, expanded for interleaved pairs), every head
/// of Q and K, then the pass-through dims of an out-of-place call.
template <class A, Pairing P, class T, class Angles>
void rope_token_loop(const RopeSpec& spec, const Angles& angles, const PositionIds& positions, const QKViews<T>& views,
                     Direction direction, TokenRange range) noexcept
{
    const int num_pairs = spec.num_pairs();
    const bool has_k = views.has_k();
    // prefetch hints for several tokens only: one token (decode) is usually in cache
    const bool prefetch = range.end - range.begin > 1 && simd::software_prefetch_pays<A>();
    const bool inverse = direction == Direction::inverse;
    // out of place with pass-through dims: those are copied (the rotation never reads them)
    const bool partial = spec.rotary_dim() < views.q_in.head_dim;  // (the views may start at the rotary offset)
    const bool copy_q =
        partial && static_cast<const void*>(views.q_out.data) != static_cast<const void*>(views.q_in.data);
    const bool copy_k =
        partial && has_k && static_cast<const void*>(views.k_out.data) != static_cast<const void*>(views.k_in.data);
    alignas(64) float scratch_cos[max_pairs_per_row];
    alignas(64) float scratch_sin[max_pairs_per_row];
    alignas(64) float minus_sin[max_pairs_per_row];
    alignas(64) float cos_dup[P == Pairing::interleaved ? 2 * max_pairs_per_row : 1];
    alignas(64) float sin_folded[P == Pairing::interleaved ? 2 * max_pairs_per_row : 1];

    for (std::ptrdiff_t t = range.begin; t < range.end; ++t) {
        const std::int64_t position = positions[t];
        HeadRun<T> q = token_heads<A>(views.q_in, views.q_out, t);
        HeadRun<T> k = has_k ? token_heads<A>(views.k_in, views.k_out, t) : HeadRun<T> {};
        q.prefetch = k.prefetch = prefetch;
        for (int pair0 = 0; pair0 < num_pairs; pair0 += max_pairs_per_row) {
            const int n = std::min(max_pairs_per_row, num_pairs - pair0);
            const AngleRow row = angles.row(A {}, position, pair0, n, scratch_cos, scratch_sin);
            const float* cos = row.cos;
            const float* sin = inverse ? negated_row<A>(row.sin, n, minus_sin) : row.sin;
            if constexpr (P == Pairing::interleaved && !rotates_row_as_stored<A, T>) {
                expand_interleaved_row<A>(AngleRow {cos, sin}, n, cos_dup, sin_folded);
                cos = cos_dup;
                sin = sin_folded;
            }
            rotate_heads<A, P>(q, num_pairs, pair0, n, AngleRow {cos, sin});
            if (has_k) rotate_heads<A, P>(k, num_pairs, pair0, n, AngleRow {cos, sin});
        }
        if (copy_q) copy_pass_through<A>(views.q_in, views.q_out, t, spec.rotary_dim(), views.q_in.head_dim);
        if (copy_k) copy_pass_through<A>(views.k_in, views.k_out, t, spec.rotary_dim(), views.k_in.head_dim);
    }
}

/// rotate_heads on heads rotated in place (x in and out), out of line: the decode step's rows
/// that are not whole half_split registers, whose run is built here rather than in the caller.
template <class A, Pairing P, class T>
POSENC_NOINLINE void rotate_heads_at(T* x, std::ptrdiff_t stride, std::ptrdiff_t heads, int n, const float* cos,
                                     const float* sin) noexcept
{
    rotate_heads<A, P>(HeadRun<T> {x, x, stride, stride, heads}, n, 0, n, AngleRow {cos, sin});
}

/// The half_split rows of whole registers (n % float_lanes<A> == 0) other than one group, in
/// place: rotate_row on one pointer and one stride, each register's pair stored as formed.
template <class A, class T>
POSENC_NOINLINE void rotate_heads_in_place_rows(T* x, std::ptrdiff_t head_stride, std::ptrdiff_t heads, int n,
                                                const float* cos, const float* sin) noexcept
{
    rotate_row<A, apply_chunks<A, Pairing::half_split, T>, PairStores>(
        InPlaceRun<T> {x, head_stride, heads}, HalfSplitPairs<A> {n}, Plain {}, AngleRow {cos, sin}, n);
}

/// The heads of one tensor of one token rotated in place, half_split, by one row of n pairs
/// (n % float_lanes<A> == 0). A row of one group (rotary_dim 128 on AVX-512) is one loop over the
/// heads without saved registers; other rows go through rotate_heads_in_place_rows out of line.
template <class A, class T>
void rotate_heads_in_place(T* x, std::ptrdiff_t head_stride, std::ptrdiff_t heads, int n, const float* cos,
                           const float* sin) noexcept
{
    constexpr int chunks = apply_chunks<A, Pairing::half_split, T>;
    if (n == chunks * simd::float_lanes<A>)
        rotate_group<A, PairStores>(InPlaceRun<T> {x, head_stride, heads}, HalfSplitPairs<A> {n}, Plain {},
                                    AngleRow {cos, sin}, 0, FullWidth {}, std::make_index_sequence<chunks>());
    else rotate_heads_in_place_rows<A>(x, head_stride, heads, n, cos, sin);
}

/// The decode step's rotation of one tensor's heads of one token by one row: in place
/// (rotate_heads_in_place where every pair is in whole half_split registers, rotate_heads_at
/// otherwise) when in and out are the same heads, rotate_heads otherwise.
template <class A, Pairing P, class T>
POSENC_ALWAYS_INLINE void rotate_token_heads(const HeadRun<T>& h, int n, const AngleRow& row) noexcept
{
    if (static_cast<const void*>(h.in) == static_cast<const void*>(h.out) && h.in_stride == h.out_stride) {
        if constexpr (P == Pairing::half_split && !rotates_row_as_stored<A, T>) {
            if (n % simd::float_lanes<A> == 0) {
                rotate_heads_in_place<A>(h.out, h.out_stride, h.heads, n, row.cos, row.sin);
                return;
            }
        }
        rotate_heads_at<A, P>(h.out, h.out_stride, h.heads, n, row.cos, row.sin);
    } else {
        rotate_heads<A, P>(h, n, 0, n, row);
    }
}

/// Every head of Q and K of token t rotated by one row (rotate_token_heads).
template <class A, Pairing P, class T>
POSENC_ALWAYS_INLINE void rotate_one_token(const QKViews<T>& views, std::ptrdiff_t t, int n,
                                           const AngleRow& row) noexcept
{
    rotate_token_heads<A, P>(token_heads<A>(views.q_in, views.q_out, t), n, row);
    if (views.has_k()) rotate_token_heads<A, P>(token_heads<A>(views.k_in, views.k_out, t), n, row);
}

/// The arrays a DecodeRow holds where it needs them (empty bases otherwise, which take no room):
/// the angle source's scratch row and the expanded interleaved row.
template <bool Present>
struct ScratchRow {
    alignas(64) float scratch_cos[max_pairs_per_row];
    alignas(64) float scratch_sin[max_pairs_per_row];
};
template <>
struct ScratchRow<false> {};
template <bool Present>
struct ExpandedRow {
    alignas(64) float cos_dup[2 * max_pairs_per_row];
    alignas(64) float sin_folded[2 * max_pairs_per_row];
};
template <>
struct ExpandedRow<false> {};

/// The one decode path's row: the pairs [0, n) at `position` (n <= max_pairs_per_row, forward)
/// as the rotation takes them, as stored (half_split, or bfloat16's even/odd interleaved path)
/// or duplicated and sign-folded (other interleaved rows, expand_interleaved_row). It holds
/// arrays only where the angle source or the expansion needs them (a CosSinCache hands out rows
/// of its own storage). Every decode entrance asks it for the row: rope_token_in_place (the
/// checked entries' and dispatch's decode step) and rope_decode_token (the unchecked one-token
/// call).
template <class A, Pairing P, class T, class Angles>
class DecodeRow : ScratchRow<angle_row_uses_scratch<Angles>>,
                  ExpandedRow<P == Pairing::interleaved && !rotates_row_as_stored<A, T>>
{
    static constexpr bool expands = P == Pairing::interleaved && !rotates_row_as_stored<A, T>;

    POSENC_ALWAYS_INLINE AngleRow stored(const Angles& angles, std::int64_t position, int n) noexcept
    {
        if constexpr (angle_row_uses_scratch<Angles>)
            return angles.row(A {}, position, 0, n, this->scratch_cos, this->scratch_sin);
        else  // rows of the source's own storage (CosSinCache): no arrays on the stack
            return angles.row(A {}, position, 0, n, nullptr, nullptr);
    }

public:
    POSENC_ALWAYS_INLINE AngleRow at(const Angles& angles, std::int64_t position, int n) noexcept
    {
        if constexpr (expands) {
            expand_interleaved_row<A>(stored(angles, position, n), n, this->cos_dup, this->sin_folded);
            return {this->cos_dup, this->sin_folded};
        } else {
            return stored(angles, position, n);
        }
    }
};

/// One token t of Q and K in the usual case (a decode step outside the checked entries): one row
/// of pairs (num_pairs <= max_pairs_per_row), the forward direction and no pass-through dims to
/// copy. The row once (DecodeRow), then each tensor's heads (rotate_one_token), without the
/// general loop (row decode_f32/cache_half against decode_f32/plain_table_loop of
/// docs/benchmarks.md).
template <class A, Pairing P, class T, class Angles>
void rope_decode_token(const RopeSpec& spec, const Angles& angles, std::int64_t position, const QKViews<T>& views,
                       std::ptrdiff_t t) noexcept
{
    const int n = spec.num_pairs();
    DecodeRow<A, P, T, Angles> decode_row;
    rotate_one_token<A, P>(views, t, n, decode_row.at(angles, position, n));
}

/// One tensor of one token rotated in place, forward, by the row at `position`: the checked
/// entries' decode step (Q alone, in place; apply.hpp, and through dispatch's table of decode
/// steps). Six arguments, all in registers, so that the checked entry reaches it by a jump.
/// Preconditions: 1 <= n = num_pairs <= max_pairs_per_row; the heads valid for x (head_stride is
/// not used for one head).
template <class A, Pairing P, class T, class Angles>
POSENC_NOINLINE void rope_token_in_place(const Angles& angles, std::int64_t position, T* x, std::ptrdiff_t heads,
                                         std::ptrdiff_t head_stride, int n) noexcept
{
    const std::ptrdiff_t stride = heads > 1 ? head_stride : 0;  // see token_heads
    DecodeRow<A, P, T, Angles> decode_row;
    rotate_token_heads<A, P>(HeadRun<T> {x, x, stride, stride, heads}, n, decode_row.at(angles, position, n));
}

/// rope_tokens on views whose rotated slice is the prefix of each head (the spec's rotary_offset
/// is 0, or the views start at it: views_from_coordinate); head_dim is the views'. One token
/// forward takes the one decode path: rope_token_in_place for Q alone in place (the very kernel
/// the checked entries jump to), rope_decode_token otherwise, unless pass-through dims must be
/// copied or an interleaved row would be expanded (the general loop then).
template <class A, Pairing P, class T, class Angles>
POSENC_ALWAYS_INLINE void rope_prefix_tokens(const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                                             const QKViews<T>& views, Direction direction, TokenRange range) noexcept
{
    if (range.end - range.begin != 1) {
        rope_token_loop<A, P>(spec, angles, positions, views, direction, range);
        return;
    }
    if (direction == Direction::forward && spec.num_pairs() <= max_pairs_per_row) {
        if (!views.has_k()) {  // Q alone in place: the checked entries' decode step
            const HeadRun<T> q = token_heads<A>(views.q_in, views.q_out, range.begin);
            if (q.in == q.out && q.in_stride == q.out_stride) {
                rope_token_in_place<A, P>(angles, positions[range.begin], q.out, q.heads, q.out_stride,
                                          spec.num_pairs());
                return;
            }
        }
        if constexpr (P == Pairing::half_split || rotates_row_as_stored<A, T>) {  // the row as stored
            if (spec.rotary_dim() == views.q_in.head_dim ||  // or no pass-through dims to copy
                (static_cast<const void*>(views.q_out.data) == static_cast<const void*>(views.q_in.data) &&
                 static_cast<const void*>(views.k_out.data) == static_cast<const void*>(views.k_in.data))) {
                rope_decode_token<A, P>(spec, angles, positions[range.begin], views, range.begin);
                return;
            }
        }
    }
    rope_token_loop<A, P>(spec, angles, positions, views, direction, range);
}

/// The kernel: every token of `range`, every head of Q (and K), pairs by pairing P over the
/// rotated slice [rotary_offset, rotary_offset + rotary_dim) of each head. A slice that does not
/// start the head: rope_tokens_at_offset, below.
template <class A, Pairing P, class T, class Angles>
POSENC_NOINLINE void rope_tokens_at_offset(const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                                           const QKViews<T>& views, Direction direction, TokenRange range) noexcept;
template <class A, Pairing P, class T, class Angles>
void rope_tokens(const RopeSpec& spec, const Angles& angles, const PositionIds& positions, const QKViews<T>& views,
                 Direction direction, TokenRange range) noexcept
{
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, bfloat16> || std::is_same_v<T, float16>,
                  "The SIMD kernel stores float, bfloat16 or float16; double takes the reference path.");
    if (spec.rotary_offset() != 0) {  // out of line: the usual call (and its decode step) keeps its frame
        rope_tokens_at_offset<A, P>(spec, angles, positions, views, direction, range);
        return;
    }
    rope_prefix_tokens<A, P>(spec, angles, positions, views, direction, range);
}

/// rope_tokens of a slice that does not start the head: the prefix kernel on views from the
/// slice's first coordinate, the coordinates before it copied when out of place.
template <class A, Pairing P, class T, class Angles>
POSENC_NOINLINE void rope_tokens_at_offset(const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                                           const QKViews<T>& views, Direction direction, TokenRange range) noexcept
{
    const int offset = spec.rotary_offset();
    const bool copy_q = static_cast<const void*>(views.q_out.data) != static_cast<const void*>(views.q_in.data);
    const bool copy_k =
        views.has_k() && static_cast<const void*>(views.k_out.data) != static_cast<const void*>(views.k_in.data);
    for (std::ptrdiff_t t = range.begin; t < range.end; ++t) {
        if (copy_q) copy_pass_through<A>(views.q_in, views.q_out, t, 0, offset);
        if (copy_k) copy_pass_through<A>(views.k_in, views.k_out, t, 0, offset);
    }
    rope_prefix_tokens<A, P>(spec, angles, positions, views_from_coordinate<A>(views, offset), direction, range);
}

/// One token of double storage: cos/sin in double from the exactly reduced angle of `table` at
/// position_of_pair(i) for pair i, then every Q and K head by pairs, and the pass-through dims
/// copied when out of place. Shared by the 1-D and the multi-axis paths.
template <class PositionOfPair>
void rope_token_double(const RopeSpec& spec, const FrequencyTable& table, const QKViews<double>& views,
                       std::ptrdiff_t t, double sign, PositionOfPair position_of_pair) noexcept
{
    const int num_pairs = spec.num_pairs();
    double cos_row[max_pairs_per_row];
    double sin_row[max_pairs_per_row];
    for (int pair0 = 0; pair0 < num_pairs; pair0 += max_pairs_per_row) {
        const int n = std::min(max_pairs_per_row, num_pairs - pair0);
        for (int j = 0; j < n; ++j) {
            const CosSin cs = posenc::cos_sin(table, position_of_pair(pair0 + j), pair0 + j);
            cos_row[j] = cs.cos;
            sin_row[j] = sign * cs.sin;
        }
        auto rotate_tensor = [&](const HeadsView<const double>& in, const HeadsView<double>& out) {
            for (std::ptrdiff_t h = 0; h < in.heads; ++h) {
                const double* x = in.head(t, h);
                double* y = out.head(t, h);
                for (int j = 0; j < n; ++j) {
                    const PairCoordinates p = spec.pair_coordinates(pair0 + j);
                    const auto rotated = posenc::detail::rotate_pair(x[p.first], x[p.second], cos_row[j], sin_row[j]);
                    y[p.first] = rotated.first;
                    y[p.second] = rotated.second;
                }
            }
        };
        rotate_tensor(views.q_in, views.q_out);
        if (views.has_k()) rotate_tensor(views.k_in, views.k_out);
    }
    // the pass-through dims, out of place: before and after the rotated slice
    const int begin = spec.rotary_offset(), end = begin + spec.rotary_dim();
    if (views.q_out.data != views.q_in.data) {
        copy_pass_through<void>(views.q_in, views.q_out, t, 0, begin);
        copy_pass_through<void>(views.q_in, views.q_out, t, end, spec.head_dim());
    }
    if (views.has_k() && views.k_out.data != views.k_in.data) {
        copy_pass_through<void>(views.k_in, views.k_out, t, 0, begin);
        copy_pass_through<void>(views.k_in, views.k_out, t, end, spec.head_dim());
    }
}

/// The reference path for double storage: per token, cos/sin in double from the exactly reduced
/// angle of the angle source's frequency table (not its float values), then every head by pairs.
/// Error < 1e-14 |x| per pair (posenc/rotation.hpp's apply_rope_reference).
template <class Angles>
void rope_tokens_double(const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                        const QKViews<double>& views, Direction direction, TokenRange range) noexcept
{
    const double sign = direction == Direction::forward ? 1.0 : -1.0;
    for (std::ptrdiff_t t = range.begin; t < range.end; ++t) {
        const std::int64_t position = positions[t];
        rope_token_double(spec, angles.frequencies(), views, t, sign, [position](int) { return position; });
    }
}

}  // namespace detail

}  // namespace posenc::kernels
