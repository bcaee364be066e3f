// SPDX-License-Identifier: MIT
// posenc/kernels/detail/float_window_pairs.hpp: the rotation of a float half_split row of n
// pairs, 16 < n < 32, on AVX-512 (MiniMax-M3-VL's 30 pairs of a 64-dim head) as one pass over
// the head's first 2n elements, the window, loaded and stored by its 16-float registers.
//
// HalfSplitPairs (rotation_skeleton.hpp) runs such a row as a whole register of pairs [0, 16)
// over every head, then, in a second loop over the heads, the partial register of pairs
// [16, n); b starts at element n, so each of b's two registers crosses a 64-byte line in every
// head (b at 4n bytes). Here each head is read once as the window's registers
//   W0 = elements [0, 16), W1 = [16, 32), W2 = [32, min(48, 2n)), W3 = [48, 2n)
// (W2 and W3 by masked loads, which read nothing past 2n), and
//   a0 = W0, a1 = W1 (its lanes [n - 16, 16) belong to b, rotated and never stored),
//   b0 = elements [n, n + 16) = (W1, W2) from lane n - 16, b1 = (W2, W3) from lane n - 16,
// two vpermt2ps; rotated as HalfSplitPairs rotates (a' = a c - b s, b' = b c + a s: a product
// rounded, then a fused multiply-add, with the same cos and sin, the second register's loaded
// masked as its partial chunk), so every stored value has HalfSplitPairs' bits; then stored as
//   W0' = a0', W1' = (a1' lanes [0, n - 16), b0' from lane 0), W2' and W3' = b' from element 32
// and 48 on, three vpermt2ps, two whole stores and two masked ones, none across a line of the
// head. Elements [2n, ...) of the head (pass-through dims) are neither read nor written.
#pragma once

#ifndef POSENC_KERNELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/kernels/detail/float_window_pairs.hpp is internal to the kernels: include <posenc/kernels/apply.hpp> (or <posenc/kernels.hpp>) instead"
#endif

#include <xsimd/xsimd.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "posenc/angles.hpp"
#include "posenc/config.hpp"
#include "posenc/kernels/angle_source.hpp"
#include "posenc/kernels/detail/prefetch.hpp"
#include "posenc/kernels/detail/rotation_skeleton.hpp"
#include "posenc/kernels/detail/simd_ops.hpp"

#if XSIMD_WITH_AVX512F
namespace posenc::kernels::detail::float_window {

/// True when rotate_heads takes FloatWindowPairs for a float row of 17 to 31 pairs on arch A.
template <class A, class T>
inline constexpr bool used_for = std::is_base_of_v<xsimd::avx512f, A>&& std::is_same_v<T, float>;

/// The lane mask of the first `count` lanes of a register (count clamped to [0, 16]).
inline __mmask16 first_lanes(int count) noexcept
{
    return count <= 0 ? __mmask16 {0} : count >= 16 ? __mmask16 {0xffff} : static_cast<__mmask16>((1u << count) - 1u);
}

/// The lane indices of vpermt2ps over a window of n pairs (two 16-lane sources: 0..15, 16..31).
struct Indices {
    alignas(64) std::int32_t b_from_window[16];  ///< b0 of (W1, W2), b1 of (W2, W3): lane n - 16 + i
    alignas(64) std::int32_t w1[16];  ///< W1' of (a1', b0'): a1' lane i < n - 16, else b0' lane i - (n - 16)
    alignas(64) std::int32_t w2[16];  ///< W2' of (b0', b1'): b lane 32 - n + i (clamped: masked lanes)
    alignas(64) std::int32_t w3[16];  ///< W3' of (b0', b1'): b lane 48 - n + i (clamped: masked lanes)
};

constexpr std::int32_t clamp_lane(int i) noexcept { return i < 0 ? 0 : i > 31 ? 31 : i; }

constexpr Indices indices_of(int n) noexcept
{
    Indices r {};
    for (int i = 0; i < 16; ++i) {
        r.b_from_window[i] = clamp_lane(n - 16 + i);
        r.w1[i] = i < n - 16 ? i : 16 + i - (n - 16);
        r.w2[i] = clamp_lane(32 - n + i);
        r.w3[i] = clamp_lane(48 - n + i);
    }
    return r;
}

/// The pairing policy (rotation_skeleton.hpp) of a float half_split row of n pairs, 16 < n < 32,
/// on AVX-512: one group (FullWidth, pair 0) covering the whole row; see the file comment. Plain
/// only.
template <class A>
struct FloatWindowPairs {
    static constexpr int chunk = 32;
    static constexpr bool forms_inv_rms = false;
    static constexpr Indices table[15] = {indices_of(17), indices_of(18), indices_of(19), indices_of(20),
                                          indices_of(21), indices_of(22), indices_of(23), indices_of(24),
                                          indices_of(25), indices_of(26), indices_of(27), indices_of(28),
                                          indices_of(29), indices_of(30), indices_of(31)};

    template <std::size_t N>
    struct Regs {
        __m512 a0, a1, b0, b1;
    };
    template <std::size_t N>
    struct Coefficients {
        __m512 c0, c1, s0, s1;
    };

    __m512i b_from_window, w1, w2, w3;
    __mmask16 row_tail;  ///< pairs [16, n) of the row: the second register's lanes
    __mmask16 w2_lanes, w3_lanes;  ///< the window's elements [32, 2n) in W2 and W3

    /// Precondition: 16 < n < 32.
    explicit FloatWindowPairs(int n) noexcept
        : b_from_window(_mm512_load_si512(table[n - 17].b_from_window)), w1(_mm512_load_si512(table[n - 17].w1)),
          w2(_mm512_load_si512(table[n - 17].w2)), w3(_mm512_load_si512(table[n - 17].w3)),
          row_tail(first_lanes(n - 16)), w2_lanes(first_lanes(2 * n - 32)), w3_lanes(first_lanes(2 * n - 48))
    {}

    POSENC_ALWAYS_INLINE int extent(int pairs) const noexcept { return pairs; }
    static POSENC_ALWAYS_INLINE int element(int j) noexcept { return j; }

    template <class Width>
    POSENC_ALWAYS_INLINE void coefficients(const AngleRow& row, const Plain&, int, Width, Coefficients<1>& c,
                                           std::index_sequence<0>) const noexcept
    {
        c.c0 = _mm512_loadu_ps(row.cos);
        c.s0 = _mm512_loadu_ps(row.sin);
        c.c1 = _mm512_maskz_loadu_ps(row_tail, row.cos + 16);
        c.s1 = _mm512_maskz_loadu_ps(row_tail, row.sin + 16);
    }
    template <class Width>
    POSENC_ALWAYS_INLINE void load(const float* head, Width, Regs<1>& x, std::index_sequence<0>) const noexcept
    {
        const __m512 w1_in = _mm512_loadu_ps(head + 16);
        const __m512 w2_in = _mm512_maskz_loadu_ps(w2_lanes, head + 32);
        const __m512 w3_in = _mm512_maskz_loadu_ps(w3_lanes, head + 48);
        x.a0 = _mm512_loadu_ps(head);
        x.a1 = w1_in;
        x.b0 = _mm512_maskz_permutex2var_ps(simd::impl::all_lanes, w1_in, b_from_window, w2_in);
        x.b1 = _mm512_maskz_permutex2var_ps(simd::impl::all_lanes, w2_in, b_from_window, w3_in);
    }
    template <class Epilogue, class Order, class Width>
    POSENC_ALWAYS_INLINE void rotate_store(const Regs<1>& x, const Coefficients<1>& c, NoScale, float* head, Width,
                                           std::index_sequence<0>) const noexcept
    {
        // HalfSplitPairs' Plain arithmetic: mul_sub(a, c, b s) and mul_add(b, c, a s)
        const __m512 a0 = _mm512_fmsub_ps(x.a0, c.c0, _mm512_mul_ps(x.b0, c.s0));
        const __m512 b0 = _mm512_fmadd_ps(x.b0, c.c0, _mm512_mul_ps(x.a0, c.s0));
        const __m512 a1 = _mm512_fmsub_ps(x.a1, c.c1, _mm512_mul_ps(x.b1, c.s1));
        const __m512 b1 = _mm512_fmadd_ps(x.b1, c.c1, _mm512_mul_ps(x.a1, c.s1));
        _mm512_storeu_ps(head, a0);
        _mm512_storeu_ps(head + 16, _mm512_maskz_permutex2var_ps(simd::impl::all_lanes, a1, w1, b0));
        _mm512_mask_storeu_ps(head + 32, w2_lanes, _mm512_maskz_permutex2var_ps(simd::impl::all_lanes, b0, w2, b1));
        _mm512_mask_storeu_ps(head + 48, w3_lanes, _mm512_maskz_permutex2var_ps(simd::impl::all_lanes, b0, w3, b1));
    }
    /// The window's four lines (of a 64-byte-aligned head), prefetch_heads_ahead heads on.
    POSENC_ALWAYS_INLINE void prefetch(const float* head, std::ptrdiff_t stride,
                                       std::index_sequence<0> k) const noexcept
    {
        simd::prefetch_halves_ahead<16>(head, head + 32, stride, std::index_sequence<0, 1> {});
        (void)k;
    }
};

}  // namespace posenc::kernels::detail::float_window
#endif
