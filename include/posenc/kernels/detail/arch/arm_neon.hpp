// SPDX-License-Identifier: MIT
// posenc/kernels/detail/arch/arm_neon.hpp: the AArch64 column of simd_ops.hpp, Advanced SIMD
// intrinsics for every operation the kernels use, so that no storage type or pairing leaves the
// vector registers or calls out of line in a hot loop. (xsimd 8.1's NEON bitwise_cast goes
// through a table of function pointers that GCC 12 does not inline, and its float sqrt and
// division are estimates refined by Newton steps, not correctly rounded: none is used here.)
// Part of simd_ops.hpp, which includes it before the operations' public forms (they must see
// these overloads); neon64_bf16's own overloads are in arm_neon_bf16.hpp.
//
//   operation                          neon64                                    neon64_bf16
//   mul_add / mul_sub                  fmla / fneg + fmla (fused)                (neon64)
//   divide, sqrt (IEEE)                fdiv, fsqrt                               (neon64)
//   horizontal_sum, lane_sums          faddp + faddp; faddp tree                 (neon64)
//   swap_pairs                         rev64                                     (neon64)
//   duplicate                          zip1 / zip2                               (neon64)
//   store_as_float (double -> float)   fcvtn                                     (neon64)
//   load bfloat16                      ushll #16 (shift into the upper half)     (neon64)
//   store bfloat16                     integer RNE: cmtst, sub, addhn; NaN: orn   bfcvtn
//   load / store float16               fcvtl / fcvtn (base AArch64)              (neon64)
//   two registers of bfloat16 / float16 (paired_access): one 128-bit ldr / str for 8 elements,
//     widened by ushll + ushll2 / fcvtl + fcvtl2, narrowed by addhn + addhn2 / fcvtn + fcvtn2
//     (bfcvtn + bfcvtn2 on neon64_bf16)
//
// Rounding: fcvtn and bfcvtn round to nearest even under the default FPCR (Linux starts every
// thread so), matching dtypes.hpp bit for bit for every non-NaN input; a NaN stays a NaN (its
// bits may differ from dtypes.hpp's: fcvtn keeps the upper payload bits where the generic float16
// store writes 0x7e00; the integer bfloat16 store writes 0xffff).
#pragma once

#ifndef POSENC_DETAIL_SIMD_OPS_PART
#error                                                                                                                 \
    "posenc/kernels/detail/arch/arm_neon.hpp is a part of simd_ops.hpp: include <posenc/kernels/apply.hpp> (or <posenc/kernels.hpp>) instead"
#endif

#if XSIMD_WITH_NEON64
#include <arm_neon.h>

namespace posenc::kernels::detail::simd::impl {

// ---- multiply-add (one rounding) ---------------------------------------------------------------------
template <class A>
POSENC_ALWAYS_INLINE floats<A> mul_add(const floats<A>& a, const floats<A>& b, const floats<A>& c,
                                       requires_arch<xsimd::neon64>) noexcept
{
    return vfmaq_f32(c, a, b);
}
template <class A>
POSENC_ALWAYS_INLINE floats<A> mul_sub(const floats<A>& a, const floats<A>& b, const floats<A>& c,
                                       requires_arch<xsimd::neon64>) noexcept
{
    return vfmaq_f32(vnegq_f32(c), a, b);  // a*b + (-c): negation is exact, one rounding
}

// ---- division, square root, sums -------------------------------------------------------------------------
template <class A>
POSENC_ALWAYS_INLINE floats<A> divide(const floats<A>& a, const floats<A>& b, requires_arch<xsimd::neon64>) noexcept
{
    return vdivq_f32(a, b);  // IEEE, correctly rounded (xsimd's NEON division is an estimate)
}
template <class A>
POSENC_ALWAYS_INLINE floats<A> sqrt(const floats<A>& v, requires_arch<xsimd::neon64>) noexcept
{
    return vsqrtq_f32(v);  // IEEE, correctly rounded (xsimd's NEON sqrt is an estimate)
}
template <class A>
POSENC_ALWAYS_INLINE float horizontal_sum(const floats<A>& v, requires_arch<xsimd::neon64>) noexcept
{
    return vaddvq_f32(v);  // (v0 + v1) + (v2 + v3)
}
template <class A>
POSENC_ALWAYS_INLINE floats<A> lane_sums(const floats<A>* rows, requires_arch<xsimd::neon64>) noexcept
{
    const float32x4_t r01 = vpaddq_f32(rows[0], rows[1]);  // r0 pairs, r1 pairs
    const float32x4_t r23 = vpaddq_f32(rows[2], rows[3]);
    return vpaddq_f32(r01, r23);  // lane k: (rk0 + rk1) + (rk2 + rk3)
}

// ---- pair swap, duplicate ----------------------------------------------------------------------------------
template <class A>
POSENC_ALWAYS_INLINE floats<A> swap_pairs(const floats<A>& v, requires_arch<xsimd::neon64>) noexcept
{
    return vrev64q_f32(v);  // (v1 v0 v3 v2)
}
template <class A>
POSENC_ALWAYS_INLINE FloatPair<A> duplicate(const floats<A>& c, requires_arch<xsimd::neon64>) noexcept
{
    return {floats<A>(vzip1q_f32(c, c)), floats<A>(vzip2q_f32(c, c))};  // (c0 c0 c1 c1), (c2 c2 c3 c3)
}

// ---- double -> float ---------------------------------------------------------------------------------------
template <class A>
POSENC_ALWAYS_INLINE void store_as_float(float* dst, const doubles<A>& v, requires_arch<xsimd::neon64>) noexcept
{
    vst1_f32(dst, vcvt_f32_f64(v));
}

// ---- bfloat16 --------------------------------------------------------------------------------------------------
template <class A>
POSENC_ALWAYS_INLINE floats<A> load(const bfloat16* p, requires_arch<xsimd::neon64>) noexcept
{
    return vreinterpretq_f32_u32(vshll_n_u16(vld1_u16(reinterpret_cast<const std::uint16_t*>(p)), 16));
}
/// Round to nearest even in integer arithmetic: the upper half of u + 0x7fff + (bit 16 of u).
/// cmtst gives -1 where bit 16 is set, so 0x7fff - that is the bias, and addhn adds, keeps the
/// high halves and narrows in one instruction. A NaN becomes 0xffff (a NaN: orn with the
/// narrowed "is a number" mask), since rounding could carry its payload into the sign.
POSENC_ALWAYS_INLINE uint32x4_t bfloat16_rne_bias(uint32x4_t u) noexcept
{
    const uint32x4_t odd = vtstq_u32(u, vdupq_n_u32(0x10000));  // all ones where the kept part is odd
    return vsubq_u32(vdupq_n_u32(0x7fff), odd);
}
template <class A>
POSENC_ALWAYS_INLINE uint16x4_t bfloat16_bits_rne(const floats<A>& v) noexcept
{
    const uint32x4_t u = vreinterpretq_u32_f32(v);
    const uint16x4_t rounded = vaddhn_u32(u, bfloat16_rne_bias(u));
    const uint16x4_t is_number = vmovn_u32(vceqq_f32(v, v));
    return vorn_u16(rounded, is_number);
}
template <class A>
POSENC_ALWAYS_INLINE void store(bfloat16* p, const floats<A>& v, requires_arch<xsimd::neon64>) noexcept
{
    vst1_u16(reinterpret_cast<std::uint16_t*>(p), bfloat16_bits_rne<A>(v));
}
template <class A>
POSENC_ALWAYS_INLINE FloatPair<A> load_two(const bfloat16* p, requires_arch<xsimd::neon64>) noexcept
{
    const uint16x8_t u = vld1q_u16(reinterpret_cast<const std::uint16_t*>(p));
    return {floats<A>(vreinterpretq_f32_u32(vshll_n_u16(vget_low_u16(u), 16))),
            floats<A>(vreinterpretq_f32_u32(vshll_high_n_u16(u, 16)))};
}
template <class A>
POSENC_ALWAYS_INLINE void store_two(bfloat16* p, const floats<A>& lo, const floats<A>& hi,
                                    requires_arch<xsimd::neon64>) noexcept
{
    // bfloat16_bits_rne on both registers, narrowed into one by addhn + addhn2 and xtn + xtn2
    // (written out: a vcombine of two bfloat16_bits_rne compiles to more instructions).
    const uint32x4_t u_lo = vreinterpretq_u32_f32(lo), u_hi = vreinterpretq_u32_f32(hi);
    const uint16x8_t rounded =
        vaddhn_high_u32(vaddhn_u32(u_lo, bfloat16_rne_bias(u_lo)), u_hi, bfloat16_rne_bias(u_hi));
    const uint16x8_t is_number = vmovn_high_u32(vmovn_u32(vceqq_f32(lo, lo)), vceqq_f32(hi, hi));
    vst1q_u16(reinterpret_cast<std::uint16_t*>(p), vornq_u16(rounded, is_number));
}

// ---- float16 (the conversions are base AArch64) ------------------------------------------------------------------
template <class A>
POSENC_ALWAYS_INLINE floats<A> load(const float16* p, requires_arch<xsimd::neon64>) noexcept
{
    return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(reinterpret_cast<const std::uint16_t*>(p))));
}
template <class A>
POSENC_ALWAYS_INLINE void store(float16* p, const floats<A>& v, requires_arch<xsimd::neon64>) noexcept
{
    vst1_u16(reinterpret_cast<std::uint16_t*>(p), vreinterpret_u16_f16(vcvt_f16_f32(v)));
}
template <class A>
POSENC_ALWAYS_INLINE FloatPair<A> load_two(const float16* p, requires_arch<xsimd::neon64>) noexcept
{
    const float16x8_t h = vreinterpretq_f16_u16(vld1q_u16(reinterpret_cast<const std::uint16_t*>(p)));
    return {floats<A>(vcvt_f32_f16(vget_low_f16(h))), floats<A>(vcvt_high_f32_f16(h))};  // fcvtl, fcvtl2
}
template <class A>
POSENC_ALWAYS_INLINE void store_two(float16* p, const floats<A>& lo, const floats<A>& hi,
                                    requires_arch<xsimd::neon64>) noexcept
{
    const float16x8_t both = vcvt_high_f16_f32(vcvt_f16_f32(lo), hi);  // fcvtn, fcvtn2
    vst1q_u16(reinterpret_cast<std::uint16_t*>(p), vreinterpretq_u16_f16(both));
}

}  // namespace posenc::kernels::detail::simd::impl
#endif
