// SPDX-License-Identifier: MIT
// posenc/kernels/detail/arch/x86_avx512.hpp: the AVX-512 family's overloads of the vector operations
// (xsimd's avx512f <- avx512cd <- avx512dq <- avx512bw, and posenc's avx512_bf16 through its
// avx512bw base): fused multiply-add, sqrt, lane sums and the 16-bit conversions in their
// zero-masking forms (GCC bug 105593, below), pair swap by vpermilps zmm, duplicate by vpermps
// zmm, 64-byte non-temporal stores.
#pragma once

#ifndef POSENC_DETAIL_SIMD_OPS_PART
#error                                                                                                                 \
    "posenc/kernels/detail/arch/x86_avx512.hpp is a part of simd_ops.hpp: include <posenc/kernels/apply.hpp> (or <posenc/kernels.hpp>) instead"
#endif

#if XSIMD_WITH_AVX512F
namespace posenc::kernels::detail::simd::impl {

// AVX-512 intrinsics are used in their zero-masking form with an all-ones mask: the same
// instruction, but without GCC 12's _mm512_undefined_*() pass-through operand, which trips a
// false -Wmaybe-uninitialized once inlined (GCC bug 105593).
inline constexpr __mmask16 all_lanes = 0xffff;

// (xsimd 8.1 has no avx512f fma: its generic one is x * y + z)
template <class A, class T>
xsimd::batch<T, A> mul_add(const xsimd::batch<T, A>& a, const xsimd::batch<T, A>& b, const xsimd::batch<T, A>& c,
                           requires_arch<xsimd::avx512f>) noexcept
{
    if constexpr (std::is_same_v<T, float>) return _mm512_fmadd_ps(a, b, c);
    else return _mm512_fmadd_pd(a, b, c);
}
template <class A, class T>
xsimd::batch<T, A> mul_sub(const xsimd::batch<T, A>& a, const xsimd::batch<T, A>& b, const xsimd::batch<T, A>& c,
                           requires_arch<xsimd::avx512f>) noexcept
{
    if constexpr (std::is_same_v<T, float>) return _mm512_fmsub_ps(a, b, c);
    else return _mm512_fmsub_pd(a, b, c);
}

template <class A>
floats<A> sqrt(const floats<A>& v, requires_arch<xsimd::avx512f>) noexcept
{
    return _mm512_maskz_sqrt_ps(all_lanes, v);  // not _mm512_sqrt_ps: GCC bug 105593, as above
}

// Halves added down to one lane, in the zero-masking extract (xsimd's hadd uses the plain 256-bit
// extract: GCC bug 105593, as above).
template <class A>
float horizontal_sum(const floats<A>& v, requires_arch<xsimd::avx512f>) noexcept
{
    const __m512d d = _mm512_castps_pd(v);
    const __m256 s8 = _mm256_add_ps(_mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xFF, d, 0)),
                                    _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xFF, d, 1)));
    const __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps(s8, 1));
    const __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
    return _mm_cvtss_f32(_mm_add_ss(s2, _mm_shuffle_ps(s2, s2, 1)));
}

// A transposing add tree (128-bit quarters, then pairs, then lanes) in the zero-masking forms of
// the shuffles (xsimd's haddp uses the plain ones: GCC bug 105593, as above). The tree leaves
// row m's sum in lane position[m] for position = (0 2 1 3 8 10 9 11 4 6 5 7 12 14 13 15), an
// involution, so reading the rows in that order puts row k's sum in lane k.
template <class A>
floats<A> lane_sums(const floats<A>* rows, requires_arch<xsimd::avx512f>) noexcept
{
    constexpr int position[16] = {0, 2, 1, 3, 8, 10, 9, 11, 4, 6, 5, 7, 12, 14, 13, 15};
    __m512 t[8], u[4], v[2];
    for (int i = 0; i < 8; ++i) {
        const __m512 a = rows[position[i]], b = rows[position[i + 8]];
        t[i] = _mm512_add_ps(_mm512_maskz_shuffle_f32x4(all_lanes, a, b, _MM_SHUFFLE(1, 0, 1, 0)),
                             _mm512_maskz_shuffle_f32x4(all_lanes, a, b, _MM_SHUFFLE(3, 2, 3, 2)));
    }
    for (int i = 0; i < 4; ++i)
        u[i] = _mm512_add_ps(_mm512_maskz_shuffle_f32x4(all_lanes, t[i], t[i + 4], _MM_SHUFFLE(2, 0, 2, 0)),
                             _mm512_maskz_shuffle_f32x4(all_lanes, t[i], t[i + 4], _MM_SHUFFLE(3, 1, 3, 1)));
    for (int i = 0; i < 2; ++i)
        v[i] = _mm512_add_ps(_mm512_maskz_shuffle_ps(all_lanes, u[i], u[i + 2], _MM_SHUFFLE(1, 0, 1, 0)),
                             _mm512_maskz_shuffle_ps(all_lanes, u[i], u[i + 2], _MM_SHUFFLE(3, 2, 3, 2)));
    return _mm512_add_ps(_mm512_maskz_shuffle_ps(all_lanes, v[0], v[1], _MM_SHUFFLE(2, 0, 2, 0)),
                         _mm512_maskz_shuffle_ps(all_lanes, v[0], v[1], _MM_SHUFFLE(3, 1, 3, 1)));
}

template <class A>
floats<A> swap_pairs(const floats<A>& v, requires_arch<xsimd::avx512f>) noexcept
{
    return _mm512_maskz_permute_ps(all_lanes, v, 0xB1);
}

template <class A>
FloatPair<A> duplicate(const floats<A>& c, requires_arch<xsimd::avx512f>) noexcept
{
    const __m512i low_index = _mm512_set_epi32(7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0);
    const __m512i high_index = _mm512_set_epi32(15, 15, 14, 14, 13, 13, 12, 12, 11, 11, 10, 10, 9, 9, 8, 8);
    return {_mm512_maskz_permutexvar_ps(all_lanes, low_index, c),
            _mm512_maskz_permutexvar_ps(all_lanes, high_index, c)};
}

template <class A>
void store_as_float(float* dst, const doubles<A>& v, requires_arch<xsimd::avx512f>) noexcept
{
    _mm256_storeu_ps(dst, _mm512_maskz_cvtpd_ps(static_cast<__mmask8>(0xff), v));
}

// bfloat16 with AVX-512 intrinsics rather than xsimd's integer shifts, whose GCC 12 expansion
// (_mm512_undefined_epi32 merge operand) trips a false -Wmaybe-uninitialized (GCC bug 105593).
template <class A>
floats<A> load(const bfloat16* p, requires_arch<xsimd::avx512f>) noexcept
{
    const __m512i lanes =
        _mm512_maskz_cvtepu16_epi32(all_lanes, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
    return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(all_lanes, lanes, 16));
}
template <class A>
void store(bfloat16* p, const floats<A>& v, requires_arch<xsimd::avx512f>) noexcept
{
    const __m512i u = _mm512_castps_si512(v);
    const __m512i upper = _mm512_maskz_srli_epi32(all_lanes, u, 16);
    const __m512i odd = _mm512_and_si512(upper, _mm512_set1_epi32(1));
    const __m512i sum = _mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7fff)), odd);
    const __m512i rounded = _mm512_maskz_srli_epi32(all_lanes, sum, 16);
    const __m512i quiet_nan = _mm512_or_si512(upper, _mm512_set1_epi32(0x0040));
    const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    const __m512i bits = _mm512_mask_blend_epi32(nan, rounded, quiet_nan);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_maskz_cvtepi32_epi16(all_lanes, bits));
}

template <class A>
floats<A> load(const float16* p, requires_arch<xsimd::avx512f>) noexcept
{
    return _mm512_maskz_cvtph_ps(all_lanes, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}
template <class A>
void store(float16* p, const floats<A>& v, requires_arch<xsimd::avx512f>) noexcept
{
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p),
                        _mm512_maskz_cvtps_ph(all_lanes, v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

// The first `count` floats (0 < count <= 16) in one masked access: masked-off lanes are neither
// read nor written (no fault, no store), and the load zeroes them. simd_ops.hpp's load_first /
// store_first use these for float rows on AVX-512 (masked_first_access).
template <class A>
floats<A> load_first(const float* p, int count, requires_arch<xsimd::avx512f>) noexcept
{
    return _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << count) - 1u), p);
}
template <class A>
void store_first(float* p, const floats<A>& v, int count, requires_arch<xsimd::avx512f>) noexcept
{
    _mm512_mask_storeu_ps(p, static_cast<__mmask16>((1u << count) - 1u), v);
}

template <class A>
void stream_copy(std::byte* dst, const std::byte* src, std::size_t bytes, requires_arch<xsimd::avx512f>) noexcept
{
    if ((reinterpret_cast<std::uintptr_t>(dst) | bytes) % 64 != 0)
        return impl::stream_copy<A>(dst, src, bytes, xsimd::avx {});
    for (std::size_t i = 0; i < bytes; i += 64)
        _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + i),
                            _mm512_loadu_si512(reinterpret_cast<const void*>(src + i)));
}

}  // namespace posenc::kernels::detail::simd::impl
#endif
