// SPDX-License-Identifier: MIT
// posenc/kernels/detail/arch/x86_avx512_bf16.hpp: posenc's own x86-64 arch tag, avx512_bf16
// (AVX-512 BW plus the AVX512_BF16 extension), and its register alias in xsimd. Every vector
// operation binds to its avx512bw base (x86_avx512.hpp); bfloat16 heads take the even/odd
// rotation of ../bfloat16_even_odd.hpp, which uses the extension's vcvtne2ps2bf16. A part of
// simd_ops.hpp.
#pragma once

#ifndef POSENC_DETAIL_SIMD_OPS_PART
#error                                                                                                                 \
    "posenc/kernels/detail/arch/x86_avx512_bf16.hpp is a part of simd_ops.hpp: include <posenc/kernels/apply.hpp> (or <posenc/kernels.hpp>) instead"
#endif

#include <xsimd/xsimd.hpp>

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
