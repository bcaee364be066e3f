// SPDX-License-Identifier: MIT
// posenc/kernels/detail/arch/x86_avx2.hpp: the AVX and AVX2 families' overloads of the vector
// operations (xsimd's avx <- fma3<avx>, avx2 <- fma3<avx2>): pair swap by vpermilps, duplicate
// by unpack + vperm2f128, double -> float by vcvtpd2ps, 32-byte non-temporal stores (avx);
// 16-bit storage widened by vpmovzxwd and narrowed by packusdw, float16 by F16C's vcvtph2ps /
// vcvtps2ph where the unit enables F16C (avx2).
#pragma once

#ifndef POSENC_DETAIL_SIMD_OPS_PART
#error                                                                                                                 \
    "posenc/kernels/detail/arch/x86_avx2.hpp is a part of simd_ops.hpp: include <posenc/kernels/apply.hpp> (or <posenc/kernels.hpp>) instead"
#endif

namespace posenc::kernels::detail::simd::impl {

#if XSIMD_WITH_AVX
template <class A>
floats<A> swap_pairs(const floats<A>& v, requires_arch<xsimd::avx>) noexcept
{
    return _mm256_permute_ps(v, 0xB1);
}
#endif
#if XSIMD_WITH_AVX
template <class A>
FloatPair<A> duplicate(const floats<A>& c, requires_arch<xsimd::avx>) noexcept
{
    const __m256 lo = _mm256_unpacklo_ps(c, c);  // c0 c0 c1 c1 | c4 c4 c5 c5
    const __m256 hi = _mm256_unpackhi_ps(c, c);  // c2 c2 c3 c3 | c6 c6 c7 c7
    return {_mm256_permute2f128_ps(lo, hi, 0x20), _mm256_permute2f128_ps(lo, hi, 0x31)};
}
#endif
#if XSIMD_WITH_AVX
template <class A>
void store_as_float(float* dst, const doubles<A>& v, requires_arch<xsimd::avx>) noexcept
{
    _mm_storeu_ps(dst, _mm256_cvtpd_ps(v));
}
#endif
#if XSIMD_WITH_AVX2
template <class A>
int32s<A> widen_u16(const std::uint16_t* p, requires_arch<xsimd::avx2>) noexcept
{
    return _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
template <class A>
void narrow_u16(std::uint16_t* p, const int32s<A>& v, requires_arch<xsimd::avx2>) noexcept
{
    // lanes hold values in [0, 2^16) (callers mask), so unsigned saturation is exact
    const __m128i packed = _mm_packus_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), packed);
}
#endif
#if XSIMD_WITH_AVX2 && defined(__F16C__)
template <class A>
floats<A> load(const float16* p, requires_arch<xsimd::avx2>) noexcept
{
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
template <class A>
void store(float16* p, const floats<A>& v, requires_arch<xsimd::avx2>) noexcept
{
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
#endif
#if XSIMD_WITH_AVX
template <class A>
void stream_copy(std::byte* dst, const std::byte* src, std::size_t bytes, requires_arch<xsimd::avx>) noexcept
{
    if ((reinterpret_cast<std::uintptr_t>(dst) | bytes) % 32 != 0)
        return impl::stream_copy<A>(dst, src, bytes, xsimd::sse2 {});
    for (std::size_t i = 0; i < bytes; i += 32)
        _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i),
                            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i)));
}
#endif

}  // namespace posenc::kernels::detail::simd::impl
