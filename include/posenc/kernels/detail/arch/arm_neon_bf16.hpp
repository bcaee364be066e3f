// SPDX-License-Identifier: MIT
// posenc/kernels/detail/arch/arm_neon_bf16.hpp: posenc's own AArch64 arch tag, neon64_bf16
// (AArch64 Advanced SIMD plus the FP16 and BF16 extensions), the ARM counterpart of
// simd::avx512_bf16, and its own overloads: the bfloat16 stores by BFCVTN / BFCVTN2. Every other
// operation binds to its neon64 base (arm_neon.hpp). A part of simd_ops.hpp.
#pragma once

#ifndef POSENC_DETAIL_SIMD_OPS_PART
#error                                                                                                                 \
    "posenc/kernels/detail/arch/arm_neon_bf16.hpp is a part of simd_ops.hpp: include <posenc/kernels/apply.hpp> (or <posenc/kernels.hpp>) instead"
#endif

#include <xsimd/xsimd.hpp>

#include <cstdint>

#if XSIMD_WITH_NEON64 && defined(__ARM_FEATURE_BF16_VECTOR_ARITHMETIC) && defined(__ARM_FEATURE_FP16_VECTOR_ARITHMETIC)
#define POSENC_WITH_NEON_BF16 1
#else
#define POSENC_WITH_NEON_BF16 0
#endif

namespace posenc::kernels::detail::simd {

/// AArch64 Advanced SIMD (xsimd::neon64) on a CPU with the FP16 and BF16 extensions
/// (-march=armv8.2-a+fp16+bf16: Neoverse V1/N2/V2, Graviton 3 and 4, Apple M2 on, Cortex-A510/A710
/// on), whose BFCVTN rounds four floats to bfloat16 (nearest even) in one instruction. Every
/// xsimd kernel and simd_ops overload binds to its neon64 base except the bfloat16 store. Being a
/// distinct type, its instantiations never collide with the neon64 ones of the baseline unit
/// (one-definition rule across the dispatch units).
struct neon64_bf16 : xsimd::neon64 {
    static constexpr bool supported() noexcept { return POSENC_WITH_NEON_BF16 != 0; }
    static constexpr bool available() noexcept { return true; }
    static constexpr unsigned version() noexcept { return xsimd::generic::version(8, 6, 0); }
    static constexpr char const* name() noexcept { return "arm64+neon+fp16+bf16"; }
};

}  // namespace posenc::kernels::detail::simd

#if POSENC_WITH_NEON_BF16
namespace xsimd::types {
XSIMD_DECLARE_SIMD_REGISTER_ALIAS(posenc::kernels::detail::simd::neon64_bf16, neon64);
template <class T>
struct get_bool_simd_register<T, posenc::kernels::detail::simd::neon64_bf16>
    : detail::neon_bool_simd_register<T, posenc::kernels::detail::simd::neon64_bf16> {};
}  // namespace xsimd::types

// xsimd 8.1's neon64 broadcast of a non-double value forwards to broadcast<neon64>, whose batch
// type does not convert to a derived arch's: for neon64_bf16, the same vdup, specialised.
namespace xsimd::kernel {
#define POSENC_NEON64_BF16_BROADCAST(T, vdup)                                                                          \
    template <>                                                                                                        \
    inline batch<T, posenc::kernels::detail::simd::neon64_bf16>                                                        \
    broadcast<posenc::kernels::detail::simd::neon64_bf16, T>(T val, requires_arch<neon64>) noexcept                    \
    {                                                                                                                  \
        return vdup(val);                                                                                              \
    }
POSENC_NEON64_BF16_BROADCAST(float, vdupq_n_f32)
POSENC_NEON64_BF16_BROADCAST(std::uint8_t, vdupq_n_u8)
POSENC_NEON64_BF16_BROADCAST(std::int8_t, vdupq_n_s8)
POSENC_NEON64_BF16_BROADCAST(std::uint16_t, vdupq_n_u16)
POSENC_NEON64_BF16_BROADCAST(std::int16_t, vdupq_n_s16)
POSENC_NEON64_BF16_BROADCAST(std::uint32_t, vdupq_n_u32)
POSENC_NEON64_BF16_BROADCAST(std::int32_t, vdupq_n_s32)
POSENC_NEON64_BF16_BROADCAST(std::uint64_t, vdupq_n_u64)
POSENC_NEON64_BF16_BROADCAST(std::int64_t, vdupq_n_s64)
#undef POSENC_NEON64_BF16_BROADCAST
}  // namespace xsimd::kernel
#endif

#if POSENC_WITH_NEON_BF16
namespace posenc::kernels::detail::simd::impl {

template <class A>
POSENC_ALWAYS_INLINE void store(bfloat16* p, const floats<A>& v, requires_arch<neon64_bf16>) noexcept
{
    vst1_u16(reinterpret_cast<std::uint16_t*>(p), vreinterpret_u16_bf16(vcvt_bf16_f32(v)));  // bfcvtn
}
template <class A>
POSENC_ALWAYS_INLINE void store_two(bfloat16* p, const floats<A>& lo, const floats<A>& hi,
                                    requires_arch<neon64_bf16>) noexcept
{
    const bfloat16x8_t both = vcvtq_high_bf16_f32(vcvtq_low_bf16_f32(lo), hi);  // bfcvtn, bfcvtn2
    vst1q_u16(reinterpret_cast<std::uint16_t*>(p), vreinterpretq_u16_bf16(both));
}

}  // namespace posenc::kernels::detail::simd::impl
#endif
