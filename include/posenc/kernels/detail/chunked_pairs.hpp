// SPDX-License-Identifier: MIT
// posenc/kernels/detail/chunked_pairs.hpp: the chunked head (Gemma 4's vision tower) in one pass:
// a head of C * 2Q coordinates cut into C contiguous chunks of 2Q, chunk c its own half_split
// RoPE of Q pairs on its own position axis:
//
//     pair j of chunk c: (a, b) = (x[2Qc + j], x[2Qc + Q + j]) by positions(t, c) * f_j
//     a' = a c - b s,  b' = b c + a s            (the inverse with s negated)
//
// Per token, each chunk's cos/sin row of Q pairs (the angle source's row at that chunk's
// position) is copied after the previous chunk's, so row pair cQ + j belongs to chunk c; then
// every head of Q and K is rotated by that one row of C Q pairs before the next token, so each
// head is loaded once and stored once (two rotary_offset passes of the 1-D kernel went over the
// heads twice).
//
// Pairings (rotation_skeleton.hpp's policies), by what a register holds:
//   ChunkedPairs<A>                  element order, Q == float_lanes<A> (a 64-dim head on AVX-512,
//                                    32 on AVX2, 16 on SSE / NEON): register k of a group is
//                                    chunk k's a, the next its b; a group of two chunks.
//   even_odd::HalfSplit16Pairs<A>    bfloat16 on AVX-512 BF16, Q == 16 (bfloat16_even_odd.hpp):
//                                    one 32-element chunk per register pair, two chunks a group.
//   otherwise                        each chunk as the 1-D kernel's half_split row of Q pairs
//                                    (apply_pairs: HalfSplitPairs or the even/odd form), chunk
//                                    after chunk inside the token.
// Every form does the 1-D kernel's arithmetic on the same cos/sin values (a product rounded, then
// a fused multiply-add or multiply-subtract, one rounding to the storage type), so the result is
// bit for bit the two single-axis passes over [0, 2Q), [2Q, 4Q), ... (tests/towers).
#pragma once

#ifndef POSENC_KERNELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/kernels/detail/chunked_pairs.hpp is internal to the kernels: include <posenc/kernels/tower_rope.hpp> instead"
#endif

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "posenc/angles.hpp"
#include "posenc/config.hpp"
#include "posenc/kernels/angle_source.hpp"
#include "posenc/kernels/detail/bfloat16_even_odd.hpp"
#include "posenc/kernels/detail/rope_loops.hpp"
#include "posenc/kernels/detail/rotation_skeleton.hpp"
#include "posenc/kernels/detail/simd_ops.hpp"
#include "posenc/kernels/multi_axis_positions.hpp"
#include "posenc/kernels/views.hpp"

namespace posenc::kernels::detail {

/// The pairing policy of chunks of 2 float_lanes<A> coordinates, each a half_split of one
/// register of pairs: chunk k of a group (row pairs [j + k lanes, j + (k + 1) lanes)) is
/// register a at element 2 (j + k lanes), register b right after it. Element order, any storage
/// type, Plain only, whole chunks only (file comment).
template <class A>
struct ChunkedPairs {
    using vec = simd::floats<A>;
    static constexpr int lanes = simd::float_lanes<A>;
    static constexpr int chunk = lanes;  ///< row units (pairs) per register
    static constexpr bool forms_inv_rms = false;

    template <std::size_t N>
    struct Regs {
        vec a[N], b[N];
    };
    template <std::size_t N>
    struct Coefficients {
        vec c[N], s[N];
    };

    POSENC_ALWAYS_INLINE int extent(int pairs) const noexcept { return pairs; }
    static POSENC_ALWAYS_INLINE int element(int j) noexcept { return 2 * j; }  ///< the first element of chunk j / lanes

    template <class Width, std::size_t... K>
    POSENC_ALWAYS_INLINE void coefficients(const AngleRow& row, const Plain&, int j, Width width,
                                           Coefficients<sizeof...(K)>& c, std::index_sequence<K...>) const noexcept
    {
        static_assert(std::is_same_v<Width, FullWidth>, "whole chunks");
        ((c.c[K] = load_lanes<A>(row.cos + j + static_cast<int>(K) * lanes, width),
          c.s[K] = load_lanes<A>(row.sin + j + static_cast<int>(K) * lanes, width)),
         ...);
    }
    template <class T, class Width, std::size_t... K>
    POSENC_ALWAYS_INLINE void load(const T* head, Width width, Regs<sizeof...(K)>& x,
                                   std::index_sequence<K...>) const noexcept
    {
        ((x.a[K] = load_lanes<A>(head + static_cast<int>(2 * K) * lanes, width),
          x.b[K] = load_lanes<A>(head + static_cast<int>(2 * K + 1) * lanes, width)),
         ...);
    }
    /// HalfSplitPairs' arithmetic (a' = a c - b s as mul_sub(a, c, b s), b' = mul_add(b, c, a s)).
    template <class Epilogue, class Order, class Out, class Width, std::size_t... K>
    POSENC_ALWAYS_INLINE void rotate_store(const Regs<sizeof...(K)>& x, const Coefficients<sizeof...(K)>& c, NoScale,
                                           Out* head, Width width, std::index_sequence<K...>) const noexcept
    {
        const vec a[] = {simd::mul_sub<A>(x.a[K], c.c[K], x.b[K] * c.s[K])...};
        const vec b[] = {simd::mul_add<A>(x.b[K], c.c[K], x.a[K] * c.s[K])...};
        ((store_lanes<A>(head + static_cast<int>(2 * K) * lanes, a[K], width),
          store_lanes<A>(head + static_cast<int>(2 * K + 1) * lanes, b[K], width)),
         ...);
    }
    template <class T, std::size_t... K>
    POSENC_ALWAYS_INLINE void prefetch(const T* head, std::ptrdiff_t stride, std::index_sequence<K...>) const noexcept
    {
        (simd::prefetch(head, simd::prefetch_heads_ahead * stride + static_cast<std::ptrdiff_t>(2 * K * lanes)), ...);
    }
};

/// Chunks of one register of pairs each (Pairs: ChunkedPairs or even_odd::HalfSplit16Pairs),
/// two to a group, for every head of the run.
template <class A, class Pairs, class T>
POSENC_ALWAYS_INLINE void rotate_register_chunks(const HeadRun<T>& run, int chunks, const AngleRow& row) noexcept
{
    int c = 0;
    for (; c + 2 <= chunks; c += 2)
        rotate_group<A, GroupedStores>(run, Pairs {}, Plain {}, row, c * Pairs::chunk, FullWidth {},
                                       std::index_sequence<0, 1> {});
    if (c < chunks)
        rotate_group<A, GroupedStores>(run, Pairs {}, Plain {}, row, c * Pairs::chunk, FullWidth {},
                                       std::index_sequence<0> {});
}

/// Every head of one tensor and token, `chunks` chunks of `chunk_pairs` pairs each, by one row
/// of chunks * chunk_pairs pairs (file comment). Not forced inline: one copy per type.
template <class A, class T>
void rotate_chunked_heads(const HeadRun<T>& run, int chunk_pairs, int chunks, const AngleRow& row) noexcept
{
#if POSENC_WITH_AVX512BF16
    if constexpr (even_odd::used_for<A, T>) {
        if (chunk_pairs == even_odd::HalfSplit16Pairs<A>::chunk) {
            rotate_register_chunks<A, even_odd::HalfSplit16Pairs<A>>(run, chunks, row);
            return;
        }
    } else
#endif
    {
        if (chunk_pairs == ChunkedPairs<A>::chunk) {
            rotate_register_chunks<A, ChunkedPairs<A>>(run, chunks, row);
            return;
        }
    }
    for (int c = 0; c < chunks; ++c)
        rotate_row<A, apply_chunks<A, Pairing::half_split, T>, GroupedStores>(
            run.from(2 * c * chunk_pairs), apply_pairs<A, Pairing::half_split, T>(chunk_pairs), Plain {},
            AngleRow {row.cos + c * chunk_pairs, row.sin + c * chunk_pairs}, chunk_pairs);
}

/// Chunk c's cos/sin row of `count` pairs at `position` copied to cos + c count, sin + c count
/// (sin negated for the inverse: exact).
template <class A, class Angles>
POSENC_ALWAYS_INLINE void copy_chunk_row(const Angles& angles, std::int64_t position, int count, bool inverse,
                                         float* cos, float* sin) noexcept
{
    alignas(64) float scratch_cos[max_pairs_per_row];
    alignas(64) float scratch_sin[max_pairs_per_row];
    const AngleRow r = angles.row(A {}, position, 0, count, scratch_cos, scratch_sin);
    for (int j = 0; j < count; ++j) {
        cos[j] = r.cos[j];
        sin[j] = inverse ? -r.sin[j] : r.sin[j];
    }
}

/// The chunked head's kernel: every token of `range`, every head of Q (and K), chunk c of each
/// head (coordinates [2 chunk_pairs c, 2 chunk_pairs (c + 1))) by positions(t, c) (file
/// comment). Preconditions (the caller's checks: kernels/tower_rope.hpp): views of head_dim
/// chunks * 2 chunk_pairs; angles of chunk_pairs pairs serving every position read;
/// 1 <= chunks <= positions.axes(); chunks * chunk_pairs <= max_pairs_per_row.
template <class A, class T, class Angles>
void chunked_rope_tokens(int chunk_pairs, int chunks, const Angles& angles, const MultiAxisPositions& positions,
                         const QKViews<T>& views, Direction direction, TokenRange range) noexcept
{
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, bfloat16> || std::is_same_v<T, float16>,
                  "The SIMD kernel stores float, bfloat16 or float16.");
    const bool inverse = direction == Direction::inverse, has_k = views.has_k();
    const bool prefetch = range.end - range.begin > 1 && simd::software_prefetch_pays<A>();
    alignas(64) float cos[max_pairs_per_row];
    alignas(64) float sin[max_pairs_per_row];
    for (std::ptrdiff_t t = range.begin; t < range.end; ++t) {
        for (int c = 0; c < chunks; ++c)
            copy_chunk_row<A>(angles, positions(t, c), chunk_pairs, inverse, cos + c * chunk_pairs,
                              sin + c * chunk_pairs);
        HeadRun<T> q = token_heads<A>(views.q_in, views.q_out, t);
        q.prefetch = prefetch;
        rotate_chunked_heads<A>(q, chunk_pairs, chunks, AngleRow {cos, sin});
        if (has_k) {
            HeadRun<T> k = token_heads<A>(views.k_in, views.k_out, t);
            k.prefetch = prefetch;
            rotate_chunked_heads<A>(k, chunk_pairs, chunks, AngleRow {cos, sin});
        }
    }
}

}  // namespace posenc::kernels::detail
