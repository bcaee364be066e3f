// SPDX-License-Identifier: MIT
// posenc/kernels/detail/bfloat16_even_odd.hpp: the rotation of bfloat16 heads on AVX-512 BF16 in
// even/odd lane order, which needs no widening or pair-swapping shuffles.
//
// Load. One 512-bit load holds 32 bfloat16 as 16 dwords; element 2i is the low half of dword i
// and element 2i + 1 its high half. Shifting each dword left by 16 gives the 16 even elements as
// floats, clearing its low half gives the 16 odd ones (both exact: bfloat16 is the top half of
// a binary32). Two single-cycle integer operations per 32 elements, against a vpmovzxwd (the
// shuffle port) and a shift per 16 for the element-order load (simd_ops.hpp).
//   interleaved (pairs (2i, 2i + 1)): even lanes are the pairs' a, odd lanes their b, so 16
//     pairs rotate as  a' = a c - b s,  b' = b c + a s  with cos/sin as the row stores them:
//     no pair swap, no duplicated or sign-folded row.
//   half_split (pairs (i, i + R/2)): a group of 32 pairs loads as even pairs (j, j+2, ...) and
//     odd pairs (j+1, j+3, ...) of a and of b, rotated with cos/sin permuted the same way
//     (two vpermt2ps per group and tensor, once per token, not per head).
// Store. vcvtne2ps2bf16 rounds both registers to nearest even in one instruction (even lanes'
// results in words 0..15, odd lanes' in 16..31) and one vpermw puts them back in element order.
// vcvtne2ps2bf16 treats subnormal inputs as zero; a normal float never rounds to a zero or
// subnormal bfloat16, so a zero exponent field in a result word is the only case where the
// instruction may differ from exact rounding, and then those 32 results are rounded one by
// one by to_bfloat16 instead (rare: zeros or |x| < 2^-126). Results are bit-identical to the
// element-order kernel on every arch; the error is apply.hpp's (float math, one rounding).
// Tails (fewer than 16 interleaved or 32 half_split pairs) use masked loads and stores, which
// never touch memory outside the mask.
#pragma once

#ifndef POSENC_KERNELS_DETAIL_ALLOWED
#error "posenc/kernels/detail/bfloat16_even_odd.hpp is internal to the kernels: include <posenc/kernels/apply.hpp> (or <posenc/kernels.hpp>) instead"
#endif

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "posenc/config.hpp"
#include "posenc/kernels/dtypes.hpp"
#include "posenc/kernels/detail/prefetch.hpp"
#include "posenc/kernels/detail/simd_ops.hpp"
#include "posenc/kernels/views.hpp"
#include "posenc/spec.hpp"

#if POSENC_WITH_AVX512BF16
#include <immintrin.h>

namespace posenc::kernels::detail::even_odd {

/// True when apply.hpp rotates T on arch A with this file's even/odd kernels.
template <class A, class T>
inline constexpr bool used_for = std::is_same_v<A, simd::avx512_bf16> && std::is_same_v<T, bfloat16>;

/// The even and the odd elements of 32 consecutive bfloat16 values, widened to float.
struct Lanes {
    __m512 even;
    __m512 odd;
};

/// Bits of a word mask of the first `count` elements (0 <= count <= 32).
inline __mmask32 first_words(int count) noexcept
{
    return count >= 32 ? ~__mmask32 {0} : static_cast<__mmask32>((std::uint32_t {1} << count) - 1);
}

/// The elements of `words` at p as (even, odd) floats; other lanes are zero and their memory is
/// not read. Exact.
template <class A>
POSENC_ALWAYS_INLINE Lanes load(const bfloat16* p, __mmask32 words) noexcept
{
    // an unmasked load where every word is wanted: a masked one costs an extra uop
    const __m512i w = words == ~__mmask32 {0} ? _mm512_loadu_si512(p) : _mm512_maskz_loadu_epi16(words, p);
    return {_mm512_castsi512_ps(_mm512_maskz_slli_epi32(simd::impl::all_lanes, w, 16)),
            _mm512_castsi512_ps(_mm512_and_si512(w, _mm512_set1_epi32(static_cast<int>(0xffff0000u))))};
}

/// The exact rounding, element by element, of what store() writes (its rare path).
template <class A>
void store_exact(bfloat16* p, __m512 even, __m512 odd, __mmask32 words) noexcept
{
    alignas(64) float e[16], o[16];
    _mm512_store_ps(e, even);
    _mm512_store_ps(o, odd);
    for (int i = 0; i < 32; ++i)
        if (((words >> i) & 1u) != 0) p[i] = posenc::kernels::detail::to_bfloat16_on<A>((i % 2 == 0 ? e : o)[i / 2]);
}

/// Rounds (even, odd) to bfloat16 (nearest even, as to_bfloat16) and writes the elements of
/// `words` at p in element order; nothing outside the mask is written.
template <class A>
POSENC_ALWAYS_INLINE void store(bfloat16* p, __m512 even, __m512 odd, __mmask32 words) noexcept
{
    // word 2i <- word i (even lane i), word 2i + 1 <- word 16 + i (odd lane i)
    alignas(64) static constexpr std::uint16_t interleave[32] = {0, 16, 1, 17, 2,  18, 3,  19, 4,  20, 5,
                                                                  21, 6, 22, 7, 23, 8, 24, 9, 25, 10, 26,
                                                                  11, 27, 12, 28, 13, 29, 14, 30, 15, 31};
    const __m512i packed = (__m512i)_mm512_cvtne2ps_pbh(odd, even);
    if (_mm512_mask_testn_epi16_mask(words, packed, _mm512_set1_epi16(0x7f80)) != 0) {
        store_exact<A>(p, even, odd, words);
        return;
    }
    const __m512i in_order = _mm512_maskz_permutexvar_epi16(~__mmask32 {0}, _mm512_load_si512(interleave), packed);
    if (words == ~__mmask32 {0}) _mm512_storeu_si512(p, in_order);
    else _mm512_mask_storeu_epi16(p, words, in_order);
}

/// (a, b) -> (a c - b s, b c + a s); the inverse comes with s negated (rope_loops.hpp).
POSENC_ALWAYS_INLINE void rotate(__m512 a, __m512 b, __m512 c, __m512 s, __m512& a_out, __m512& b_out) noexcept
{
    a_out = _mm512_fmsub_ps(a, c, _mm512_mul_ps(b, s));
    b_out = _mm512_fmadd_ps(b, c, _mm512_mul_ps(a, s));
}

/// Interleaved: chunk k of 16 pairs at element 32 k of every head, cos/sin of its pairs at 16 k.
/// `pairs` < 16 only for a single trailing chunk (masked).
template <class A, std::size_t... K>
POSENC_ALWAYS_INLINE void interleaved_chunks(const bfloat16* in, bfloat16* out, std::ptrdiff_t in_head_stride,
                                             std::ptrdiff_t out_head_stride, std::ptrdiff_t heads, const float* cos,
                                             const float* sin, int pairs, bool prefetch, std::index_sequence<K...>) noexcept
{
    const __mmask16 row_mask = static_cast<__mmask16>(first_words(pairs));
    const __mmask32 words = first_words(2 * pairs);
    const __m512 c[] = {_mm512_maskz_loadu_ps(row_mask, cos + 16 * K)...};
    const __m512 s[] = {_mm512_maskz_loadu_ps(row_mask, sin + 16 * K)...};
    for (std::ptrdiff_t h = 0; h < heads; ++h, in += in_head_stride, out += out_head_stride) {
        if (prefetch) (simd::prefetch(in, simd::prefetch_heads_ahead * in_head_stride + 32 * K), ...);
        const Lanes x[] = {load<A>(in + 32 * K, words)...};
        __m512 a[sizeof...(K)], b[sizeof...(K)];
        (rotate(x[K].even, x[K].odd, c[K], s[K], a[K], b[K]), ...);
        (store<A>(out + 32 * K, a[K], b[K], words), ...);
    }
}

/// half_split: group k of 32 pairs at pair 32 k of a (in_a) and b (in_b) of every head.
/// `pairs` < 32 only for a single trailing group (masked).
template <class A, std::size_t... K>
POSENC_ALWAYS_INLINE void half_split_groups(const bfloat16* in_a, const bfloat16* in_b, bfloat16* out_a, bfloat16* out_b,
                                            std::ptrdiff_t in_head_stride, std::ptrdiff_t out_head_stride,
                                            std::ptrdiff_t heads, const float* cos, const float* sin, int pairs,
                                            bool prefetch, std::index_sequence<K...>) noexcept
{
    alignas(64) static constexpr std::int32_t even_index[16] = {0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30};
    alignas(64) static constexpr std::int32_t odd_index[16] = {1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31};
    const __m512i even = _mm512_load_si512(even_index), odd = _mm512_load_si512(odd_index);
    const __mmask16 low_mask = static_cast<__mmask16>(first_words(pairs));
    const __mmask16 high_mask = static_cast<__mmask16>(first_words(pairs > 16 ? pairs - 16 : 0));
    const __mmask32 words = first_words(pairs);
    auto split = [&](const float* row, std::size_t k, const __m512i& index) {
        return _mm512_maskz_permutex2var_ps(simd::impl::all_lanes, _mm512_maskz_loadu_ps(low_mask, row + 32 * k), index,
                                            _mm512_maskz_loadu_ps(high_mask, row + 32 * k + 16));
    };
    const __m512 c_even[] = {split(cos, K, even)...}, c_odd[] = {split(cos, K, odd)...};
    const __m512 s_even[] = {split(sin, K, even)...}, s_odd[] = {split(sin, K, odd)...};
    for (std::ptrdiff_t h = 0; h < heads; ++h, in_a += in_head_stride, in_b += in_head_stride,
                        out_a += out_head_stride, out_b += out_head_stride) {
        if (prefetch) simd::prefetch_halves_ahead<32>(in_a, in_b, in_head_stride, std::index_sequence<K...> {});
        const Lanes a[] = {load<A>(in_a + 32 * K, words)...};
        const Lanes b[] = {load<A>(in_b + 32 * K, words)...};
        __m512 a_even[sizeof...(K)], b_even[sizeof...(K)], a_odd[sizeof...(K)], b_odd[sizeof...(K)];
        (rotate(a[K].even, b[K].even, c_even[K], s_even[K], a_even[K], b_even[K]), ...);
        (rotate(a[K].odd, b[K].odd, c_odd[K], s_odd[K], a_odd[K], b_odd[K]), ...);
        (store<A>(out_a + 32 * K, a_even[K], a_odd[K], words), ...);
        (store<A>(out_b + 32 * K, b_even[K], b_odd[K], words), ...);
    }
}

/// apply.hpp's rotate_heads for bfloat16 on avx512_bf16: pairs [pair0, pair0 + n) of every head
/// of one tensor and token, with the row's cos/sin (not expanded for interleaved pairs);
/// `prefetch`: hint the lines simd::prefetch_heads_ahead heads ahead.
template <class A, Pairing P>
POSENC_ALWAYS_INLINE void rotate_heads(const bfloat16* in, std::ptrdiff_t in_head_stride, bfloat16* out,
                                       std::ptrdiff_t out_head_stride, std::ptrdiff_t heads, int num_pairs, int pair0,
                                       int n, const float* cos, const float* sin, bool prefetch) noexcept
{
    if constexpr (P == Pairing::half_split) {
        const bfloat16* in_a = in + pair0;
        const bfloat16* in_b = in + num_pairs + pair0;
        bfloat16* out_a = out + pair0;
        bfloat16* out_b = out + num_pairs + pair0;
        int j = 0;
        for (; j + 64 <= n; j += 64)
            half_split_groups<A>(in_a + j, in_b + j, out_a + j, out_b + j, in_head_stride, out_head_stride, heads,
                                    cos + j, sin + j, 32, prefetch, std::make_index_sequence<2>());
        for (; j < n; j += 32)
            half_split_groups<A>(in_a + j, in_b + j, out_a + j, out_b + j, in_head_stride, out_head_stride, heads,
                                    cos + j, sin + j, n - j < 32 ? n - j : 32, prefetch, std::make_index_sequence<1>());
    } else {
        const bfloat16* in_x = in + 2 * pair0;
        bfloat16* out_x = out + 2 * pair0;
        int j = 0;  // pairs
        for (; j + 64 <= n; j += 64)
            interleaved_chunks<A>(in_x + 2 * j, out_x + 2 * j, in_head_stride, out_head_stride, heads, cos + j,
                                     sin + j, 16, prefetch, std::make_index_sequence<4>());
        for (; j < n; j += 16)
            interleaved_chunks<A>(in_x + 2 * j, out_x + 2 * j, in_head_stride, out_head_stride, heads, cos + j,
                                     sin + j, n - j < 16 ? n - j : 16, prefetch, std::make_index_sequence<1>());
    }
}

}  // namespace posenc::kernels::detail::even_odd
#endif
