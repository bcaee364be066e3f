// SPDX-License-Identifier: MIT
// posenc/kernels/detail/arch/x86_sse.hpp: the SSE2 family's overloads of the vector operations
// (xsimd's sse2 <- sse3 <- ssse3 <- sse4_1 <- sse4_2 <- fma3<sse4_2>): pair swap by shufps,
// duplicate by unpcklps / unpckhps, double -> float by cvtpd2ps, 16-bit storage widened by
// punpcklwd and narrowed by packssdw, 16-byte non-temporal stores.
#pragma once

#ifndef POSENC_DETAIL_SIMD_OPS_PART
#error                                                                                                                 \
    "posenc/kernels/detail/arch/x86_sse.hpp is a part of simd_ops.hpp: include <posenc/kernels/apply.hpp> (or <posenc/kernels.hpp>) instead"
#endif

#if XSIMD_WITH_SSE2
namespace posenc::kernels::detail::simd::impl {

template <class A>
floats<A> swap_pairs(const floats<A>& v, requires_arch<xsimd::sse2>) noexcept
{
    return _mm_shuffle_ps(v, v, 0xB1);  // lanes (1, 0, 3, 2)
}

template <class A>
FloatPair<A> duplicate(const floats<A>& c, requires_arch<xsimd::sse2>) noexcept
{
    return {_mm_unpacklo_ps(c, c), _mm_unpackhi_ps(c, c)};
}

template <class A>
void store_as_float(float* dst, const doubles<A>& v, requires_arch<xsimd::sse2>) noexcept
{
    _mm_storel_epi64(reinterpret_cast<__m128i*>(dst), _mm_castps_si128(_mm_cvtpd_ps(v)));
}

template <class A>
int32s<A> widen_u16(const std::uint16_t* p, requires_arch<xsimd::sse2>) noexcept
{
    return _mm_unpacklo_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)), _mm_setzero_si128());
}
template <class A>
void narrow_u16(std::uint16_t* p, const int32s<A>& v, requires_arch<xsimd::sse2>) noexcept
{
    // packs saturates signed values: sign-extend the low 16 bits first so every pattern survives.
    const __m128i low16 = _mm_srai_epi32(_mm_slli_epi32(v, 16), 16);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(p), _mm_packs_epi32(low16, low16));
}

template <class A>
void stream_copy(std::byte* dst, const std::byte* src, std::size_t bytes, requires_arch<xsimd::sse2>) noexcept
{
    for (std::size_t i = 0; i < bytes; i += 16)
        _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i),
                         _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
}

}  // namespace posenc::kernels::detail::simd::impl
#endif
