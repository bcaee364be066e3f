// SPDX-License-Identifier: MIT
// posenc/kernels/detail/simd_ops.hpp: the few vector operations the RoPE kernel needs that xsimd 8.1
// does not provide, one overload per instruction-set family, selected by the architecture tag
// exactly as xsimd's own kernels are (a `requires_arch<X>` parameter binds to the nearest
// ancestor of the caller's arch that has an overload).
//
//   operation                          generic (any arch)     sse2 family      avx family     avx2 family        avx512f family
//   mul_add / mul_sub (a*b +- c)       xsimd::fma / fms       (same)           (same)         (same, fused)      vfmadd / vfmsub (fused)
//   divide, sqrt (IEEE)                a / b, xsimd::sqrt     (same)           (same)         (same)             vdivps / vsqrtps zmm
//   swap_pairs (v1 v0 v3 v2 ...)       scalar                 shufps           vpermilps      (avx)              vpermilps zmm
//   duplicate (c0 c0 c1 c1 ...)        scalar                 unpcklps/hps     unpck + vperm2f128 (avx)          vpermps zmm
//   store_as_float (double -> float)   scalar                 cvtpd2ps         vcvtpd2ps      (avx)              vcvtpd2ps zmm
//   load/store bfloat16                scalar                 punpcklwd/packs  (generic)      vpmovzxwd/packus   vpmovzxwd/vpmovdw
//                                      (on avx512_bf16 the kernel rotates bfloat16 by bfloat16_even_odd.hpp instead)
//   load/store float16                 scalar                 integer RNE      (generic)      F16C vcvtph2ps     vcvtph2ps zmm
//   horizontal_sum, lane_sums          xsimd::hadd / haddp    (same)           (same)         (same)             zero-masking extracts / shuffles
//
// Families follow xsimd's tag hierarchy: sse2 <- sse3 <- ssse3 <- sse4_1 <- sse4_2 (<- fma3<sse4_2>,
// fma4); avx (<- fma3<avx>); avx2 (<- fma3<avx2>); avx512f <- avx512cd <- avx512dq <- avx512bw
// (<- posenc's avx512_bf16, below). The AArch64 column (xsimd::neon64 <- posenc's neon64_bf16)
// is simd_ops_neon.hpp.
//
// Every function is a template on the arch, so that translation units compiled with different
// -m flags (runtime dispatch, dispatch.hpp) never share a non-template symbol whose code depends
// on those flags. Conversions round to nearest even and agree bit for bit with dtypes.hpp for
// every non-NaN input (NaN stays NaN).
#pragma once

#ifndef POSENC_KERNELS_DETAIL_ALLOWED
#error "posenc/kernels/detail/simd_ops.hpp is internal to the kernels: include <posenc/kernels/apply.hpp> (or <posenc/kernels.hpp>) instead"
#endif

#include <xsimd/xsimd.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "posenc/config.hpp"  // POSENC_ALWAYS_INLINE
#include "posenc/kernels/dtypes.hpp"

#define POSENC_DETAIL_SIMD_OPS_PART 1  // lets the parts below be included
#include "posenc/kernels/detail/arm_archs.hpp"  // simd::neon64_bf16

#if XSIMD_WITH_AVX512BW && defined(__AVX512BF16__)
#define POSENC_WITH_AVX512BF16 1
#else
#define POSENC_WITH_AVX512BF16 0
#endif

namespace posenc::kernels::detail::simd {

/// AVX-512 (xsimd::avx512bw) plus the AVX512_BF16 extension (Cooper Lake, Sapphire Rapids, Zen 4),
/// whose vcvtneps2bf16 rounds float to bfloat16 in one instruction. An xsimd arch tag of posenc's
/// own: every xsimd kernel and simd_ops overload binds to its avx512bw base; bfloat16 heads take
/// bfloat16_even_odd.hpp's rotation, which uses the extension.
/// Being a distinct type, its instantiations never collide with avx512bw ones compiled without
/// the extension (one-definition rule across the dispatch units).
struct avx512_bf16 : xsimd::avx512bw {
    static constexpr bool supported() noexcept { return POSENC_WITH_AVX512BF16 != 0; }
    static constexpr bool available() noexcept { return true; }
    static constexpr unsigned version() noexcept { return xsimd::generic::version(3, 5, 0); }
    static constexpr char const* name() noexcept { return "avx512bw+bf16"; }
};

}  // namespace posenc::kernels::detail::simd

#if POSENC_WITH_AVX512BF16
namespace xsimd::types {
XSIMD_DECLARE_SIMD_REGISTER_ALIAS(posenc::kernels::detail::simd::avx512_bf16, avx512bw);
template <class T>
struct get_bool_simd_register<T, posenc::kernels::detail::simd::avx512_bf16> {
    using type = simd_avx512_bool_register<T>;
};
}  // namespace xsimd::types
#endif

namespace posenc::kernels {

/// The arch the header-only kernels use: the best the compiler targets (xsimd::default_arch:
/// SSE2 with no flags on x86-64, AVX-512 under -mavx512bw, ...), or avx512_bf16 when the
/// translation unit also enables AVX512_BF16 (e.g. -march=native on such a machine); on AArch64
/// xsimd::neon64, or neon64_bf16 when the unit enables FP16 and BF16 (arm_archs.hpp).
#if POSENC_WITH_AVX512BF16
using default_arch = detail::simd::avx512_bf16;
#elif POSENC_WITH_NEON_BF16
using default_arch = detail::simd::neon64_bf16;
#else
using default_arch = xsimd::default_arch;
#endif

}  // namespace posenc::kernels

namespace posenc::kernels::detail::simd {

template <class A>
using floats = xsimd::batch<float, A>;
template <class A>
using doubles = xsimd::batch<double, A>;
template <class A>
using int32s = xsimd::batch<std::int32_t, A>;

/// Lanes of float in one register of arch A (4 for SSE, 8 for AVX, 16 for AVX-512).
template <class A>
inline constexpr int float_lanes = static_cast<int>(floats<A>::size);
/// Lanes of double (half of float_lanes).
template <class A>
inline constexpr int double_lanes = static_cast<int>(doubles<A>::size);

template <class A>
using requires_arch = xsimd::kernel::requires_arch<A>;

/// Two registers, e.g. the low and high halves of a duplicated vector.
template <class A>
struct FloatPair {
    floats<A> first;
    floats<A> second;
};

namespace impl {

#if XSIMD_WITH_AVX512F
// AVX-512 intrinsics are used in their zero-masking form with an all-ones mask: the same
// instruction, but without GCC 12's _mm512_undefined_*() pass-through operand, which trips a
// false -Wmaybe-uninitialized once inlined (GCC bug 105593).
inline constexpr __mmask16 all_lanes = 0xffff;
#endif

// ---- multiply-add ----------------------------------------------------------------------------
template <class A, class T>
xsimd::batch<T, A> mul_add(const xsimd::batch<T, A>& a, const xsimd::batch<T, A>& b, const xsimd::batch<T, A>& c,
                           requires_arch<xsimd::generic>) noexcept
{
    return xsimd::fma(a, b, c);
}
template <class A, class T>
xsimd::batch<T, A> mul_sub(const xsimd::batch<T, A>& a, const xsimd::batch<T, A>& b, const xsimd::batch<T, A>& c,
                           requires_arch<xsimd::generic>) noexcept
{
    return xsimd::fms(a, b, c);
}
#if XSIMD_WITH_AVX512F  // (xsimd 8.1 has no avx512f fma: its generic one is x * y + z)
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
#endif

// ---- division (IEEE, correctly rounded in every lane) -------------------------------------------------
template <class A>
floats<A> divide(const floats<A>& a, const floats<A>& b, requires_arch<xsimd::generic>) noexcept
{
    return a / b;
}

// ---- square root (IEEE, correctly rounded in every lane) --------------------------------------------
template <class A>
floats<A> sqrt(const floats<A>& v, requires_arch<xsimd::generic>) noexcept
{
    return xsimd::sqrt(v);
}
#if XSIMD_WITH_AVX512F
template <class A>
floats<A> sqrt(const floats<A>& v, requires_arch<xsimd::avx512f>) noexcept
{
    return _mm512_maskz_sqrt_ps(all_lanes, v);  // not _mm512_sqrt_ps: GCC bug 105593, as above
}
#endif

// ---- the sum of one register's lanes ----------------------------------------------------------------
template <class A>
float horizontal_sum(const floats<A>& v, requires_arch<xsimd::generic>) noexcept
{
    return xsimd::hadd(v);
}
#if XSIMD_WITH_AVX512F
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
#endif

// ---- lane sums of float_lanes<A> registers at once: result lane k = sum of the lanes of rows[k] ----
template <class A>
floats<A> lane_sums(const floats<A>* rows, requires_arch<xsimd::generic>) noexcept
{
    return xsimd::haddp(rows);
}
#if XSIMD_WITH_AVX512F
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
#endif

// ---- pair swap: (v0 v1 v2 v3 ...) -> (v1 v0 v3 v2 ...) --------------------------------------------
template <class A>
floats<A> swap_pairs(const floats<A>& v, requires_arch<xsimd::generic>) noexcept
{
    alignas(64) float in[floats<A>::size];
    alignas(64) float out[floats<A>::size];
    v.store_aligned(in);
    for (std::size_t i = 0; i < floats<A>::size; i += 2) {
        out[i] = in[i + 1];
        out[i + 1] = in[i];
    }
    return floats<A>::load_aligned(out);
}
#if XSIMD_WITH_SSE2
template <class A>
floats<A> swap_pairs(const floats<A>& v, requires_arch<xsimd::sse2>) noexcept
{
    return _mm_shuffle_ps(v, v, 0xB1);  // lanes (1, 0, 3, 2)
}
#endif
#if XSIMD_WITH_AVX
template <class A>
floats<A> swap_pairs(const floats<A>& v, requires_arch<xsimd::avx>) noexcept
{
    return _mm256_permute_ps(v, 0xB1);
}
#endif
#if XSIMD_WITH_AVX512F
template <class A>
floats<A> swap_pairs(const floats<A>& v, requires_arch<xsimd::avx512f>) noexcept
{
    return _mm512_maskz_permute_ps(all_lanes, v, 0xB1);
}
#endif

// ---- duplicate: c -> (c0 c0 c1 c1 ... c_{n/2-1} c_{n/2-1}), (c_{n/2} c_{n/2} ... c_{n-1} c_{n-1}) ---------
template <class A>
FloatPair<A> duplicate(const floats<A>& c, requires_arch<xsimd::generic>) noexcept
{
    constexpr std::size_t n = floats<A>::size;
    alignas(64) float in[n];
    alignas(64) float out[2 * n];
    c.store_aligned(in);
    for (std::size_t i = 0; i < n; ++i) out[2 * i] = out[2 * i + 1] = in[i];
    return {floats<A>::load_aligned(out), floats<A>::load_aligned(out + n)};
}
#if XSIMD_WITH_SSE2
template <class A>
FloatPair<A> duplicate(const floats<A>& c, requires_arch<xsimd::sse2>) noexcept
{
    return {_mm_unpacklo_ps(c, c), _mm_unpackhi_ps(c, c)};
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
#if XSIMD_WITH_AVX512F
template <class A>
FloatPair<A> duplicate(const floats<A>& c, requires_arch<xsimd::avx512f>) noexcept
{
    const __m512i low_index = _mm512_set_epi32(7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0);
    const __m512i high_index = _mm512_set_epi32(15, 15, 14, 14, 13, 13, 12, 12, 11, 11, 10, 10, 9, 9, 8, 8);
    return {_mm512_maskz_permutexvar_ps(all_lanes, low_index, c), _mm512_maskz_permutexvar_ps(all_lanes, high_index, c)};
}
#endif

// ---- double -> float: store double_lanes floats ------------------------------------------------------
template <class A>
void store_as_float(float* dst, const doubles<A>& v, requires_arch<xsimd::generic>) noexcept
{
    alignas(64) double in[doubles<A>::size];
    v.store_aligned(in);
    for (std::size_t i = 0; i < doubles<A>::size; ++i) dst[i] = static_cast<float>(in[i]);
}
#if XSIMD_WITH_SSE2
template <class A>
void store_as_float(float* dst, const doubles<A>& v, requires_arch<xsimd::sse2>) noexcept
{
    _mm_storel_epi64(reinterpret_cast<__m128i*>(dst), _mm_castps_si128(_mm_cvtpd_ps(v)));
}
#endif
#if XSIMD_WITH_AVX
template <class A>
void store_as_float(float* dst, const doubles<A>& v, requires_arch<xsimd::avx>) noexcept
{
    _mm_storeu_ps(dst, _mm256_cvtpd_ps(v));
}
#endif
#if XSIMD_WITH_AVX512F
template <class A>
void store_as_float(float* dst, const doubles<A>& v, requires_arch<xsimd::avx512f>) noexcept
{
    _mm256_storeu_ps(dst, _mm512_maskz_cvtpd_ps(static_cast<__mmask8>(0xff), v));
}
#endif

// ---- 16-bit storage <-> 32-bit lanes (zero-extended) ---------------------------------------------------
// Lanes are int32: xsimd 8.1 selects and compares on int32 portably; all values here are < 2^31
// where compared, and shifts whose sign extension matters are masked.
template <class A>
int32s<A> widen_u16(const std::uint16_t* p, requires_arch<xsimd::generic>) noexcept
{
    alignas(64) std::int32_t lanes[int32s<A>::size];
    for (std::size_t i = 0; i < int32s<A>::size; ++i) lanes[i] = p[i];
    return int32s<A>::load_aligned(lanes);
}
template <class A>
void narrow_u16(std::uint16_t* p, const int32s<A>& v, requires_arch<xsimd::generic>) noexcept
{
    alignas(64) std::int32_t lanes[int32s<A>::size];
    v.store_aligned(lanes);
    for (std::size_t i = 0; i < int32s<A>::size; ++i) p[i] = static_cast<std::uint16_t>(lanes[i] & 0xffff);
}
#if XSIMD_WITH_SSE2
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

// ---- float16 <-> float in 32-bit lanes, integer arithmetic (dtypes.hpp's scalar rules, lane-wise) ----
template <class A>
floats<A> half_bits_to_float(const int32s<A>& h) noexcept
{
    using i32 = int32s<A>;
    const i32 sign = (h & i32(0x8000)) << 16;
    const i32 exponent = (h >> 10) & i32(0x1f);
    const i32 mantissa = h & i32(0x3ff);
    const i32 normal = sign | ((exponent + i32(112)) << 23) | (mantissa << 13);
    const i32 special = sign | i32(0x7f800000) | (mantissa << 13);
    const floats<A> sub_magnitude = xsimd::to_float(mantissa) * floats<A>(5.9604644775390625e-08f);  // * 2^-24
    const i32 subnormal = sign | xsimd::bitwise_cast<i32>(sub_magnitude);
    const i32 bits = xsimd::select(exponent == i32(0x1f), special, xsimd::select(exponent == i32(0), subnormal, normal));
    return xsimd::bitwise_cast<floats<A>>(bits);
}

template <class A>
int32s<A> float_to_half_bits(const floats<A>& f) noexcept
{
    using i32 = int32s<A>;
    const i32 u = xsimd::bitwise_cast<i32>(f);
    const i32 sign = (u >> 16) & i32(0x8000);
    const i32 a = u & i32(0x7fffffff);
    const i32 shifted = xsimd::bitwise_cast<i32>(xsimd::bitwise_cast<floats<A>>(a) + floats<A>(0.5f));
    const i32 subnormal = shifted - i32(0x3f000000);
    const i32 normal = (a - i32(0x38000000 - 0x0fff) + ((a >> 13) & i32(1))) >> 13;
    i32 bits = xsimd::select(a < i32(0x38800000), subnormal, normal);
    bits = xsimd::select(a >= i32(0x47800000), i32(0x7c00), bits);
    bits = xsimd::select(a > i32(0x7f800000), i32(0x7e00), bits);
    return bits | sign;
}

template <class A>
int32s<A> float_to_bfloat16_bits(const floats<A>& f) noexcept
{
    using i32 = int32s<A>;
    const i32 u = xsimd::bitwise_cast<i32>(f);
    const i32 a = u & i32(0x7fffffff);
    const i32 rounded = ((u + i32(0x7fff) + ((u >> 16) & i32(1))) >> 16) & i32(0xffff);
    const i32 quiet_nan = ((u >> 16) & i32(0xffff)) | i32(0x0040);
    return xsimd::select(a > i32(0x7f800000), quiet_nan, rounded);
}

// ---- storage load / store (register width elements) ---------------------------------------------------
template <class A>
floats<A> load(const float* p, requires_arch<xsimd::generic>) noexcept
{
    return floats<A>::load_unaligned(p);
}
template <class A>
void store(float* p, const floats<A>& v, requires_arch<xsimd::generic>) noexcept
{
    v.store_unaligned(p);
}

template <class A>
floats<A> load(const bfloat16* p, requires_arch<xsimd::generic>) noexcept
{
    const int32s<A> lanes = impl::widen_u16<A>(reinterpret_cast<const std::uint16_t*>(p), A {});
    return xsimd::bitwise_cast<floats<A>>(lanes << 16);
}
template <class A>
void store(bfloat16* p, const floats<A>& v, requires_arch<xsimd::generic>) noexcept
{
    impl::narrow_u16<A>(reinterpret_cast<std::uint16_t*>(p), float_to_bfloat16_bits<A>(v), A {});
}

template <class A>
floats<A> load(const float16* p, requires_arch<xsimd::generic>) noexcept
{
    return half_bits_to_float<A>(impl::widen_u16<A>(reinterpret_cast<const std::uint16_t*>(p), A {}));
}
template <class A>
void store(float16* p, const floats<A>& v, requires_arch<xsimd::generic>) noexcept
{
    impl::narrow_u16<A>(reinterpret_cast<std::uint16_t*>(p), float_to_half_bits<A>(v), A {});
}
#if XSIMD_WITH_AVX512F
// bfloat16 with AVX-512 intrinsics rather than xsimd's integer shifts, whose GCC 12 expansion
// (_mm512_undefined_epi32 merge operand) trips a false -Wmaybe-uninitialized (GCC bug 105593).
template <class A>
floats<A> load(const bfloat16* p, requires_arch<xsimd::avx512f>) noexcept
{
    const __m512i lanes = _mm512_maskz_cvtepu16_epi32(all_lanes, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
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
#if XSIMD_WITH_AVX512F
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
#endif

// ---- non-temporal copy of a staged row (dst 16-byte aligned, bytes % 16 == 0): the widest such
// store the alignment allows; memcpy on generic archs ------------------------------------------------
template <class A>
void stream_copy(std::byte* dst, const std::byte* src, std::size_t bytes, requires_arch<xsimd::generic>) noexcept
{
    std::memcpy(dst, src, bytes);
}
#if XSIMD_WITH_SSE2
template <class A>
void stream_copy(std::byte* dst, const std::byte* src, std::size_t bytes, requires_arch<xsimd::sse2>) noexcept
{
    for (std::size_t i = 0; i < bytes; i += 16)
        _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
}
#endif
#if XSIMD_WITH_AVX
template <class A>
void stream_copy(std::byte* dst, const std::byte* src, std::size_t bytes, requires_arch<xsimd::avx>) noexcept
{
    if ((reinterpret_cast<std::uintptr_t>(dst) | bytes) % 32 != 0) return impl::stream_copy<A>(dst, src, bytes, xsimd::sse2 {});
    for (std::size_t i = 0; i < bytes; i += 32)
        _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i)));
}
#endif
#if XSIMD_WITH_AVX512F
template <class A>
void stream_copy(std::byte* dst, const std::byte* src, std::size_t bytes, requires_arch<xsimd::avx512f>) noexcept
{
    if ((reinterpret_cast<std::uintptr_t>(dst) | bytes) % 64 != 0) return impl::stream_copy<A>(dst, src, bytes, xsimd::avx {});
    for (std::size_t i = 0; i < bytes; i += 64)
        _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + i), _mm512_loadu_si512(reinterpret_cast<const void*>(src + i)));
}
#endif

// ---- two registers of 16-bit storage in one access ----------------------------------------------------
// Only where paired_access (below) holds: AArch64 (simd_ops_neon.hpp defines them). Declared here
// so that the name is a template on every ISA.
template <class A, class T>
FloatPair<A> load_two(const T* p, requires_arch<xsimd::generic>) noexcept;
template <class A, class T>
void store_two(T* p, const floats<A>& lo, const floats<A>& hi, requires_arch<xsimd::generic>) noexcept;

}  // namespace impl
}  // namespace posenc::kernels::detail::simd

#include "posenc/kernels/detail/simd_ops_neon.hpp"  // the AArch64 column of the table above

namespace posenc::kernels::detail::simd {

/// a * b + c, one rounding where the arch has FMA (fma3, AVX-512), two otherwise.
template <class A, class T>
xsimd::batch<T, A> mul_add(const xsimd::batch<T, A>& a, const xsimd::batch<T, A>& b,
                           const xsimd::batch<T, A>& c) noexcept
{
    return impl::mul_add<A>(a, b, c, A {});
}

/// a / b in every lane, correctly rounded (IEEE 754). (xsimd 8.1's NEON division is a reciprocal
/// estimate refined by Newton steps: simd_ops_neon.hpp gives fdiv.)
template <class A>
floats<A> divide(const floats<A>& a, const floats<A>& b) noexcept
{
    return impl::divide<A>(a, b, A {});
}

/// The square root of every lane, correctly rounded (IEEE 754).
template <class A>
floats<A> sqrt(const floats<A>& v) noexcept
{
    return impl::sqrt<A>(v, A {});
}

/// Copies `bytes` from src (any alignment) to dst with non-temporal stores (to memory without
/// reading or keeping the destination's cache lines); dst 16-byte aligned and bytes a multiple of
/// 16 (stream_copy_possible). A memcpy where the arch has no such store. Call store_fence<A>()
/// once after the last one.
template <class A>
void stream_copy(std::byte* dst, const std::byte* src, std::size_t bytes) noexcept
{
    impl::stream_copy<A>(dst, src, bytes, A {});
}

/// Whether stream_copy may write `bytes` at dst.
template <class A>
bool stream_copy_possible(const void* dst, std::size_t bytes) noexcept
{
    return (reinterpret_cast<std::uintptr_t>(dst) | bytes) % 16 == 0;
}

/// Orders the streaming stores before every later store (sfence on x86; nothing elsewhere, where
/// stream_copy is a memcpy): after it, another thread that synchronises with this one sees the data.
template <class A>
void store_fence() noexcept
{
#if XSIMD_WITH_SSE2
    _mm_sfence();
#endif
}

/// Lane k: the sum of the lanes of rows[k], for k < float_lanes<A> (an add tree; the order of
/// the additions is the tree's, not left to right).
template <class A>
floats<A> lane_sums(const floats<A>* rows) noexcept
{
    return impl::lane_sums<A>(rows, A {});
}

/// The sum of v's lanes (an add tree: halves, then halves of those).
template <class A>
float horizontal_sum(const floats<A>& v) noexcept
{
    return impl::horizontal_sum<A>(v, A {});
}

/// a * b - c, one rounding where the arch has FMA, two otherwise.
template <class A, class T>
xsimd::batch<T, A> mul_sub(const xsimd::batch<T, A>& a, const xsimd::batch<T, A>& b,
                           const xsimd::batch<T, A>& c) noexcept
{
    return impl::mul_sub<A>(a, b, c, A {});
}

/// (v1, v0, v3, v2, ...): swaps the two members of every interleaved pair. Exact.
template <class A>
floats<A> swap_pairs(const floats<A>& v) noexcept
{
    return impl::swap_pairs<A>(v, A {});
}

/// Each lane twice, in order: first = (c0 c0 c1 c1 ...), second = the upper half's lanes. Exact.
template <class A>
FloatPair<A> duplicate(const floats<A>& c) noexcept
{
    return impl::duplicate<A>(c, A {});
}

/// Rounds double_lanes<A> doubles to float (nearest even) and stores them at dst (unaligned).
template <class A>
void store_as_float(float* dst, const doubles<A>& v) noexcept
{
    impl::store_as_float<A>(dst, v, A {});
}

/// float_lanes<A> elements of storage type T (float, bfloat16, float16) widened to float. Exact.
template <class A, class T>
floats<A> load_as_floats(const T* p) noexcept
{
    return impl::load<A>(p, A {});
}

/// Stores float_lanes<A> elements into storage type T, rounding to nearest even.
template <class A, class T>
void store_rounded(T* p, const floats<A>& v) noexcept
{
    impl::store<A>(p, v, A {});
}

/// Whether two registers of storage type T are loaded and stored as one access of twice the
/// width: 16-bit storage on AArch64, where one 128-bit load feeds the widening of both halves
/// (fcvtl / fcvtl2, ushll / ushll2) and the narrowing of two registers feeds one 128-bit store,
/// so a register of 16-bit data costs half a load instead of one. Elsewhere false: one access
/// per register, as load_as_floats and store_rounded.
template <class A, class T>
inline constexpr bool paired_access =
#if XSIMD_WITH_NEON64
    std::is_base_of_v<xsimd::neon64, A> && sizeof(T) == 2;
#else
    false;
#endif

/// load_as_floats of p + k * float_lanes<A> into v[k] for k < N, two registers per access.
/// Only where paired_access<A, T> holds, for an even N. (Written out by pack expansion, not a
/// loop, so that the registers never go through memory.)
template <class A, int N, class T, std::size_t... J>
POSENC_ALWAYS_INLINE void load_pairs_as_floats(const T* p, floats<A> (&v)[N], std::index_sequence<J...>) noexcept
{
    static_assert(paired_access<A, T> && N == 2 * sizeof...(J), "load_pairs_as_floats: paired_access, N / 2 pairs");
    const FloatPair<A> two[] = {impl::load_two<A>(p + 2 * J * float_lanes<A>, A {})...};
    ((v[2 * J] = two[J].first, v[2 * J + 1] = two[J].second), ...);
}
template <class A, int N, class T>
POSENC_ALWAYS_INLINE void load_pairs_as_floats(const T* p, floats<A> (&v)[N]) noexcept
{
    simd::load_pairs_as_floats<A>(p, v, std::make_index_sequence<N / 2>());
}

/// store_rounded of v[k] at p + k * float_lanes<A> for k < N, two registers per access.
/// Only where paired_access<A, T> holds, for an even N (pack expansion, as above).
template <class A, int N, class T, std::size_t... J>
POSENC_ALWAYS_INLINE void store_rounded_pairs(T* p, const floats<A> (&v)[N], std::index_sequence<J...>) noexcept
{
    static_assert(paired_access<A, T> && N == 2 * sizeof...(J), "store_rounded_pairs: paired_access, N / 2 pairs");
    (impl::store_two<A>(p + 2 * J * float_lanes<A>, v[2 * J], v[2 * J + 1], A {}), ...);
}
template <class A, int N, class T>
POSENC_ALWAYS_INLINE void store_rounded_pairs(T* p, const floats<A> (&v)[N]) noexcept
{
    simd::store_rounded_pairs<A>(p, v, std::make_index_sequence<N / 2>());
}

/// Like load_as_floats, for the first `count` elements only (0 < count <= float_lanes<A>); the other lanes
/// are zero. Never reads p[count] or beyond: the elements go through a register-sized buffer.
template <class A, class T>
floats<A> load_first(const T* p, int count) noexcept
{
    T buffer[floats<A>::size] = {};
    std::memcpy(buffer, p, static_cast<std::size_t>(count) * sizeof(T));
    return simd::load_as_floats<A>(buffer);
}

/// Like store_rounded, for the first `count` lanes only; never writes p[count] or beyond.
template <class A, class T>
void store_first(T* p, const floats<A>& v, int count) noexcept
{
    T buffer[floats<A>::size];
    simd::store_rounded<A>(buffer, v);
    std::memcpy(p, buffer, static_cast<std::size_t>(count) * sizeof(T));
}

}  // namespace posenc::kernels::detail::simd
