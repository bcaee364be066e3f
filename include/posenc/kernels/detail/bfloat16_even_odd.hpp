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
// A half_split slice of exactly 16 pairs (rotary_dim 32) is the exception: its a and b are one
// 32-element chunk, rotated in element order and rounded by one vcvtne2ps2bf16, which puts
// (a', b') in element order with no permutation (HalfSplit16Pairs, below). A half_split row of
// 17 to 31 pairs stores its results as the head's two 64-byte lines rather than b' across one
// (HalfSplitWindowPairs, below).
#pragma once

#ifndef POSENC_KERNELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/kernels/detail/bfloat16_even_odd.hpp is internal to the kernels: include <posenc/kernels/apply.hpp> (or <posenc/kernels.hpp>) instead"
#endif

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "posenc/config.hpp"
#include "posenc/kernels/dtypes.hpp"
#include "posenc/kernels/detail/prefetch.hpp"
#include "posenc/kernels/detail/rotation_skeleton.hpp"
#include "posenc/kernels/detail/simd_ops.hpp"
#include "posenc/kernels/views.hpp"
#include "posenc/spec.hpp"

#if POSENC_WITH_AVX512BF16
#include <immintrin.h>

namespace posenc::kernels::detail::even_odd {

/// True when apply.hpp rotates T on arch A with this file's even/odd kernels.
template <class A, class T>
inline constexpr bool used_for = std::is_same_v<A, simd::avx512_bf16>&& std::is_same_v<T, bfloat16>;

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
    alignas(64) static constexpr std::uint16_t interleave[32] = {0,  16, 1,  17, 2,  18, 3,  19, 4,  20, 5,
                                                                 21, 6,  22, 7,  23, 8,  24, 9,  25, 10, 26,
                                                                 11, 27, 12, 28, 13, 29, 14, 30, 15, 31};
    const __m512i packed = (__m512i)_mm512_cvtne2ps_pbh(odd, even);
    const __m512i in_order = _mm512_maskz_permutexvar_epi16(~__mmask32 {0}, _mm512_load_si512(interleave), packed);
    // zeros and subnormals take the exact path; tested in element order, where `words` applies
    // (in packed order a partial mask would cover the zeros of lanes that were never loaded)
    if (_mm512_mask_testn_epi16_mask(words, in_order, _mm512_set1_epi16(0x7f80)) != 0) {
        store_exact<A>(p, even, odd, words);
        return;
    }
    if (words == ~__mmask32 {0}) _mm512_storeu_si512(p, in_order);
    else _mm512_mask_storeu_epi16(p, words, in_order);
}

/// (a, b) -> (a c - b s, b c + a s); the inverse comes with s negated (rope_loops.hpp).
POSENC_ALWAYS_INLINE void rotate(__m512 a, __m512 b, __m512 c, __m512 s, __m512& a_out, __m512& b_out) noexcept
{
    a_out = _mm512_fmsub_ps(a, c, _mm512_mul_ps(b, s));
    b_out = _mm512_fmadd_ps(b, c, _mm512_mul_ps(a, s));
}

/// The mask of a width's first words: all for a whole chunk, the first `count` otherwise.
POSENC_ALWAYS_INLINE __mmask32 words_of(FullWidth, int) noexcept { return ~__mmask32 {0}; }
POSENC_ALWAYS_INLINE __mmask32 words_of(PartialWidth w, int words_per_unit) noexcept
{
    return first_words(words_per_unit * w.count);
}

/// The pairing policy (rotation_skeleton.hpp) of interleaved pairs: a chunk is 16 pairs (32 elements at
/// element 2j, even lanes the pairs' a, odd lanes their b), rotated with cos/sin of its pairs as
/// the row stores them (at pair j); j counted in pairs. Plain epilogue only.
template <class A>
struct InterleavedPairs {
    static constexpr int chunk = 16;
    static constexpr bool forms_inv_rms = false;
    template <std::size_t N>
    struct Regs {
        Lanes x[N];
    };
    template <std::size_t N>
    struct Coefficients {
        __m512 c[N], s[N];
    };

    POSENC_ALWAYS_INLINE int extent(int pairs) const noexcept { return pairs; }
    static POSENC_ALWAYS_INLINE int element(int j) noexcept { return 2 * j; }  ///< pair j's first element

    template <class Width, std::size_t... K>
    POSENC_ALWAYS_INLINE void coefficients(const AngleRow& row, const Plain&, int j, Width width,
                                           Coefficients<sizeof...(K)>& c, std::index_sequence<K...>) const noexcept
    {
        const auto row_mask = static_cast<__mmask16>(words_of(width, 1));
        ((c.c[K] = _mm512_maskz_loadu_ps(row_mask, row.cos + j + 16 * K),
          c.s[K] = _mm512_maskz_loadu_ps(row_mask, row.sin + j + 16 * K)),
         ...);
    }
    template <class Width, std::size_t... K>
    POSENC_ALWAYS_INLINE void load(const bfloat16* head, Width width, Regs<sizeof...(K)>& x,
                                   std::index_sequence<K...>) const noexcept
    {
        ((x.x[K] = even_odd::load<A>(head + 32 * K, words_of(width, 2))), ...);
    }
    template <class Epilogue, class Order, class Width, std::size_t... K>
    POSENC_ALWAYS_INLINE void rotate_store(const Regs<sizeof...(K)>& x, const Coefficients<sizeof...(K)>& c, NoScale,
                                           bfloat16* head, Width width, std::index_sequence<K...>) const noexcept
    {
        Regs<sizeof...(K)> y;
        (even_odd::rotate(x.x[K].even, x.x[K].odd, c.c[K], c.s[K], y.x[K].even, y.x[K].odd), ...);
        (even_odd::store<A>(head + 32 * K, y.x[K].even, y.x[K].odd, words_of(width, 2)), ...);
    }
    template <std::size_t... K>
    POSENC_ALWAYS_INLINE void prefetch(const bfloat16* head, std::ptrdiff_t stride,
                                       std::index_sequence<K...>) const noexcept
    {
        (simd::prefetch(head, simd::prefetch_heads_ahead * stride + static_cast<std::ptrdiff_t>(32 * K)), ...);
    }
};

/// The pairing policy of half_split pairs: a chunk is 32 pairs of a (at j) and of b (at half + j),
/// loaded as even pairs (j, j+2, ...) and odd pairs (j+1, j+3, ...), rotated with cos/sin
/// permuted the same way (two vpermt2ps per chunk and run of heads, not per head). Plain only.
template <class A>
struct HalfSplitPairs {
    static constexpr int chunk = 32;
    static constexpr bool forms_inv_rms = false;
    std::ptrdiff_t half;
    template <std::size_t N>
    struct Regs {
        Lanes a[N], b[N];
    };
    template <std::size_t N>
    struct Coefficients {
        __m512 c_even[N], c_odd[N], s_even[N], s_odd[N];
    };

    POSENC_ALWAYS_INLINE int extent(int pairs) const noexcept { return pairs; }
    static POSENC_ALWAYS_INLINE int element(int j) noexcept { return j; }

    template <class Width, std::size_t... K>
    POSENC_ALWAYS_INLINE void coefficients(const AngleRow& row, const Plain&, int j, Width width,
                                           Coefficients<sizeof...(K)>& c, std::index_sequence<K...>) const noexcept
    {
        alignas(64) static constexpr std::int32_t even_index[16] = {0,  2,  4,  6,  8,  10, 12, 14,
                                                                    16, 18, 20, 22, 24, 26, 28, 30};
        alignas(64) static constexpr std::int32_t odd_index[16] = {1,  3,  5,  7,  9,  11, 13, 15,
                                                                   17, 19, 21, 23, 25, 27, 29, 31};
        const __m512i even = _mm512_load_si512(even_index), odd = _mm512_load_si512(odd_index);
        const __mmask32 words = words_of(width, 1);
        const auto low_mask = static_cast<__mmask16>(words), high_mask = static_cast<__mmask16>(words >> 16);
        auto split = [&](const float* p, const __m512i& index) {
            return _mm512_maskz_permutex2var_ps(simd::impl::all_lanes, _mm512_maskz_loadu_ps(low_mask, p), index,
                                                _mm512_maskz_loadu_ps(high_mask, p + 16));
        };
        ((c.c_even[K] = split(row.cos + j + 32 * K, even), c.c_odd[K] = split(row.cos + j + 32 * K, odd)), ...);
        ((c.s_even[K] = split(row.sin + j + 32 * K, even), c.s_odd[K] = split(row.sin + j + 32 * K, odd)), ...);
    }
    template <class Width, std::size_t... K>
    POSENC_ALWAYS_INLINE void load(const bfloat16* head, Width width, Regs<sizeof...(K)>& x,
                                   std::index_sequence<K...>) const noexcept
    {
        const __mmask32 words = words_of(width, 1);
        ((x.a[K] = even_odd::load<A>(head + 32 * K, words), x.b[K] = even_odd::load<A>(head + half + 32 * K, words)),
         ...);
    }
    template <class Epilogue, class Order, class Width, std::size_t... K>
    POSENC_ALWAYS_INLINE void rotate_store(const Regs<sizeof...(K)>& x, const Coefficients<sizeof...(K)>& c, NoScale,
                                           bfloat16* head, Width width, std::index_sequence<K...>) const noexcept
    {
        Regs<sizeof...(K)> y;
        (even_odd::rotate(x.a[K].even, x.b[K].even, c.c_even[K], c.s_even[K], y.a[K].even, y.b[K].even), ...);
        (even_odd::rotate(x.a[K].odd, x.b[K].odd, c.c_odd[K], c.s_odd[K], y.a[K].odd, y.b[K].odd), ...);
        const __mmask32 words = words_of(width, 1);
        (even_odd::store<A>(head + 32 * K, y.a[K].even, y.a[K].odd, words), ...);
        (even_odd::store<A>(head + half + 32 * K, y.b[K].even, y.b[K].odd, words), ...);
    }
    template <std::size_t... K>
    POSENC_ALWAYS_INLINE void prefetch(const bfloat16* head, std::ptrdiff_t stride,
                                       std::index_sequence<K...> k) const noexcept
    {
        simd::prefetch_halves_ahead<32>(head, head + half, stride, k);
    }
};

/// The pairing policy of a half_split row of n pairs, 16 < n < 32 (MiniMax-M3-VL's 30 pairs of a
/// 64-dim head), whose a (n elements) and b (the next n) lie in the head's first 2n <= 64
/// elements, the window. HalfSplitPairs' partial chunk stores b with a masked 32-word store at
/// element n, which crosses a 64-byte line in every head (b starts 2n bytes in). Here the
/// results go back as the window's line-aligned words [0, 32) and [32, 2n): one vpermt2w and
/// one vpermw straight from vcvtne2ps2bf16's packed order (store()'s element-order permutation
/// folded in), then a whole store and a masked one inside the head. Loads stay as they were
/// (a from the first line, b by a masked load from element n): a load across a line measured
/// cheaper than taking b out of the two lines by a vpermt2w. The lanes, cos/sin permutation,
/// rotation and rounding are HalfSplitPairs' (its coefficients), so the bits are too (zeros and
/// subnormals rounded one by one, as store()). Plain only; one partial chunk (PartialWidth {n})
/// at pair 0.
template <class A>
struct HalfSplitWindowPairs : HalfSplitPairs<A> {
    /// The word permutations of a window of n pairs (built at compile time: window_table).
    struct Indices {
        alignas(64) std::uint16_t low[32];  ///< window word w < 32: packed a' (w < n) or packed b' (32 + ...)
        alignas(64) std::uint16_t high[32];  ///< window word 32 + w: packed b'
    };
    /// Packed word of element e of a 32-element chunk: even elements in words 0..15, odd in 16..31.
    static constexpr int packed(int e) noexcept { return e % 2 == 0 ? e / 2 : 16 + e / 2; }
    static constexpr Indices indices_of(int n) noexcept
    {
        Indices r {};
        for (int w = 0; w < 32; ++w) {
            r.low[w] = static_cast<std::uint16_t>(w < n ? packed(w) : 32 + packed(w - n));
            r.high[w] = static_cast<std::uint16_t>(32 + w - n < n ? packed(32 + w - n) : 0);
        }
        return r;
    }
    static constexpr Indices window_table[15] = {indices_of(17), indices_of(18), indices_of(19), indices_of(20),
                                                 indices_of(21), indices_of(22), indices_of(23), indices_of(24),
                                                 indices_of(25), indices_of(26), indices_of(27), indices_of(28),
                                                 indices_of(29), indices_of(30), indices_of(31)};

    __m512i low_from_packed, high_from_packed;
    __mmask32 high_words;  ///< the window's words [32, 2n), from word 32

    /// Precondition: 16 < n < 32.
    explicit HalfSplitWindowPairs(int n) noexcept
        : HalfSplitPairs<A> {n}, low_from_packed(_mm512_load_si512(window_table[n - 17].low)),
          high_from_packed(_mm512_load_si512(window_table[n - 17].high)), high_words(first_words(2 * n - 32))
    {}

    static POSENC_ALWAYS_INLINE Lanes lanes_of(__m512i w) noexcept
    {
        return {_mm512_castsi512_ps(_mm512_maskz_slli_epi32(simd::impl::all_lanes, w, 16)),
                _mm512_castsi512_ps(_mm512_and_si512(w, _mm512_set1_epi32(static_cast<int>(0xffff0000u))))};
    }
    template <class Width>
    POSENC_ALWAYS_INLINE void load(const bfloat16* head, Width, typename HalfSplitPairs<A>::template Regs<1>& x,
                                   std::index_sequence<0>) const noexcept
    {
        const int n = static_cast<int>(this->half);
        x.a[0] = lanes_of(_mm512_loadu_si512(head));
        x.b[0] = lanes_of(_mm512_maskz_loadu_epi16(first_words(n), head + n));
    }
    template <class Epilogue, class Order, class Width>
    POSENC_ALWAYS_INLINE void rotate_store(const typename HalfSplitPairs<A>::template Regs<1>& x,
                                           const typename HalfSplitPairs<A>::template Coefficients<1>& c, NoScale,
                                           bfloat16* head, Width, std::index_sequence<0>) const noexcept
    {
        typename HalfSplitPairs<A>::template Regs<1> y;
        even_odd::rotate(x.a[0].even, x.b[0].even, c.c_even[0], c.s_even[0], y.a[0].even, y.b[0].even);
        even_odd::rotate(x.a[0].odd, x.b[0].odd, c.c_odd[0], c.s_odd[0], y.a[0].odd, y.b[0].odd);
        const __m512i a = (__m512i)_mm512_cvtne2ps_pbh(y.a[0].odd, y.a[0].even);
        const __m512i b = (__m512i)_mm512_cvtne2ps_pbh(y.b[0].odd, y.b[0].even);
        const __m512i low = _mm512_maskz_permutex2var_epi16(~__mmask32 {0}, a, low_from_packed, b);
        const __m512i high = _mm512_maskz_permutexvar_epi16(~__mmask32 {0}, high_from_packed, b);
        const __m512i exponent = _mm512_set1_epi16(0x7f80);
        if ((_mm512_testn_epi16_mask(low, exponent) | _mm512_mask_testn_epi16_mask(high_words, high, exponent)) != 0) {
            const int n = static_cast<int>(this->half);  // zeros, subnormals: store()'s exact path
            store_exact<A>(head, y.a[0].even, y.a[0].odd, first_words(n));
            store_exact<A>(head + n, y.b[0].even, y.b[0].odd, first_words(n));
            return;
        }
        _mm512_storeu_si512(head, low);
        _mm512_mask_storeu_epi16(head + 32, high_words, high);
    }
    /// Both of the window's lines, prefetch_heads_ahead heads on (HalfSplitPairs' a and a + n
    /// would take the first line twice for n < 32).
    POSENC_ALWAYS_INLINE void prefetch(const bfloat16* head, std::ptrdiff_t stride,
                                       std::index_sequence<0> k) const noexcept
    {
        simd::prefetch_halves_ahead<32>(head, head + 32, stride, k);
    }
};

/// The pairing policy of a half_split slice of exactly 16 pairs (rotary_dim 32: a Gemma 4 vision
/// chunk of a 64-dim head, a 32-dim rotary slice), whose a (16 elements) and b (the next 16) are
/// one 32-element chunk. Rotated in element order (a and b widened from 16 elements each, cos/sin
/// as the row stores them): a' = a c - b s, b' = b c + a s, the arithmetic of HalfSplitPairs
/// (a product rounded, then a fused multiply-add) bit for bit; vcvtne2ps2bf16 of (b', a') is then
/// the 32 results in element order, stored as one register without the even/odd permutation
/// (zeros and subnormals rounded one by one, as store()). Where HalfSplitPairs would run a
/// masked, half-used 32-pair chunk over a and another over b. Plain only; whole chunks only
/// (chunk k: pairs [16k, 16k + 16) at elements [32k, 32k + 32)), so callers take it for a row
/// of 16 pairs, a single group.
template <class A>
struct HalfSplit16Pairs {
    static constexpr int chunk = 16;
    static constexpr bool forms_inv_rms = false;
    template <std::size_t N>
    struct Regs {
        __m512 a[N], b[N];
    };
    template <std::size_t N>
    struct Coefficients {
        __m512 c[N], s[N];
    };

    POSENC_ALWAYS_INLINE int extent(int pairs) const noexcept { return pairs; }
    static POSENC_ALWAYS_INLINE int element(int j) noexcept { return 2 * j; }  ///< the first element of chunk j / 16

    template <class Width, std::size_t... K>
    POSENC_ALWAYS_INLINE void coefficients(const AngleRow& row, const Plain&, int j, Width,
                                           Coefficients<sizeof...(K)>& c, std::index_sequence<K...>) const noexcept
    {
        static_assert(std::is_same_v<Width, FullWidth>, "whole chunks of 16 pairs");
        ((c.c[K] = _mm512_loadu_ps(row.cos + j + 16 * K), c.s[K] = _mm512_loadu_ps(row.sin + j + 16 * K)), ...);
    }
    /// 16 bfloat16 at p widened to float (exact).
    static POSENC_ALWAYS_INLINE __m512 widen(const bfloat16* p) noexcept
    {
        const __m256i words = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
        const __m512i w = _mm512_maskz_cvtepu16_epi32(simd::impl::all_lanes, words);
        return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(simd::impl::all_lanes, w, 16));
    }
    template <class Width, std::size_t... K>
    POSENC_ALWAYS_INLINE void load(const bfloat16* head, Width, Regs<sizeof...(K)>& x,
                                   std::index_sequence<K...>) const noexcept
    {
        ((x.a[K] = widen(head + 32 * K), x.b[K] = widen(head + 32 * K + 16)), ...);
    }
    /// (a, b) rounded to bfloat16 at p, p + 16 (nearest even, as to_bfloat16).
    static POSENC_ALWAYS_INLINE void store_chunk(bfloat16* p, __m512 a, __m512 b) noexcept
    {
        const __m512i packed = (__m512i)_mm512_cvtne2ps_pbh(b, a);  // words 0..15 from a, 16..31 from b
        if (_mm512_testn_epi16_mask(packed, _mm512_set1_epi16(0x7f80)) != 0) {  // zeros, subnormals: exact path
            alignas(64) float v[32];
            _mm512_store_ps(v, a);
            _mm512_store_ps(v + 16, b);
            for (int i = 0; i < 32; ++i) p[i] = posenc::kernels::detail::to_bfloat16_on<A>(v[i]);
            return;
        }
        _mm512_storeu_si512(p, packed);
    }
    template <class Epilogue, class Order, class Width, std::size_t... K>
    POSENC_ALWAYS_INLINE void rotate_store(const Regs<sizeof...(K)>& x, const Coefficients<sizeof...(K)>& c, NoScale,
                                           bfloat16* head, Width, std::index_sequence<K...>) const noexcept
    {
        Regs<sizeof...(K)> y;
        (even_odd::rotate(x.a[K], x.b[K], c.c[K], c.s[K], y.a[K], y.b[K]), ...);
        (store_chunk(head + 32 * K, y.a[K], y.b[K]), ...);
    }
    template <std::size_t... K>
    POSENC_ALWAYS_INLINE void prefetch(const bfloat16* head, std::ptrdiff_t stride,
                                       std::index_sequence<K...>) const noexcept
    {
        (simd::prefetch(head, simd::prefetch_heads_ahead * stride + static_cast<std::ptrdiff_t>(32 * K)), ...);
    }
};

}  // namespace posenc::kernels::detail::even_odd
#endif
