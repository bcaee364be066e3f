// SPDX-License-Identifier: MIT
// posenc/kernels/cpu_features.hpp: what the CPU and the operating system let runtime dispatch
// (dispatch.hpp) use: x86 cpuid and xgetbv (the register state the OS saves), AArch64 Linux's
// HWCAP words. Each entry of the ISA list (dispatch_isas.hpp) states its CPU test on these
// fields.
#pragma once

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define POSENC_DISPATCH_X86 1
#else
#define POSENC_DISPATCH_X86 0
#endif
#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>  // getauxval: the CPU features the kernel reports (HWCAP words)
#define POSENC_DISPATCH_AARCH64_LINUX 1
#else
#define POSENC_DISPATCH_AARCH64_LINUX 0
#endif

namespace posenc::kernels::dispatch {

/// What the CPU and the operating system support (x86: register state enabled in XCR0; AArch64:
/// what the kernel reports in AT_HWCAP and AT_HWCAP2, the /proc/cpuinfo "Features" names).
struct CpuFeatures {
    bool sse4_2 = false;
    bool avx2 = false;  ///< with the OS saving ymm state
    bool fma = false;
    bool f16c = false;
    bool avx512f = false;  ///< with the OS saving zmm and opmask state
    bool avx512cd = false;
    bool avx512dq = false;
    bool avx512bw = false;
    bool avx512_bf16 = false;
    bool asimd = false;  ///< AArch64 Advanced SIMD (HWCAP_ASIMD, "asimd")
    bool fphp = false;  ///< half-precision scalar arithmetic (HWCAP_FPHP, "fphp")
    bool asimdhp = false;  ///< half-precision vector arithmetic (HWCAP_ASIMDHP, "asimdhp")
    bool bf16 = false;  ///< BFloat16 instructions, BFCVTN among them (HWCAP2_BF16, "bf16")
};

/// Reads cpuid (leaves 1, 7.0 and 7.1) and xgetbv on x86, getauxval(AT_HWCAP, AT_HWCAP2) on
/// AArch64 Linux; all false elsewhere or on other compilers.
inline CpuFeatures detect_cpu_features() noexcept
{
    CpuFeatures f;
#if POSENC_DISPATCH_AARCH64_LINUX
    // bit numbers of the Linux arm64 ABI (asm/hwcap.h): HWCAP_ASIMD 1, HWCAP_FPHP 9,
    // HWCAP_ASIMDHP 10; HWCAP2_BF16 14
    const unsigned long hwcap = getauxval(AT_HWCAP);
    const unsigned long hwcap2 = getauxval(AT_HWCAP2);
    f.asimd = (hwcap >> 1) & 1u;
    f.fphp = (hwcap >> 9) & 1u;
    f.asimdhp = (hwcap >> 10) & 1u;
    f.bf16 = (hwcap2 >> 14) & 1u;
#endif
#if POSENC_DISPATCH_X86
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (__get_cpuid(1, &a, &b, &c, &d) == 0) return f;
    f.sse4_2 = (c >> 20) & 1u;
    f.fma = (c >> 12) & 1u;
    f.f16c = (c >> 29) & 1u;
    const bool osxsave = (c >> 27) & 1u;
    const bool avx = (c >> 28) & 1u;
    unsigned long long xcr0 = 0;
    if (osxsave) {
        unsigned lo = 0, hi = 0;
        __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        xcr0 = (static_cast<unsigned long long>(hi) << 32) | lo;
    }
    const bool ymm_state = (xcr0 & 0x6u) == 0x6u;  // SSE and AVX state
    const bool zmm_state = (xcr0 & 0xe6u) == 0xe6u;  // plus opmask, zmm0-15 upper halves, zmm16-31
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return f;
    f.avx2 = avx && ymm_state && ((b >> 5) & 1u);
    f.fma = f.fma && ymm_state;
    f.f16c = f.f16c && ymm_state;
    f.avx512f = zmm_state && ((b >> 16) & 1u);
    f.avx512dq = f.avx512f && ((b >> 17) & 1u);
    f.avx512cd = f.avx512f && ((b >> 28) & 1u);
    f.avx512bw = f.avx512f && ((b >> 30) & 1u);
    if (__get_cpuid_count(7, 1, &a, &b, &c, &d) != 0) f.avx512_bf16 = f.avx512f && ((a >> 5) & 1u);
#endif
    return f;
}

/// detect_cpu_features(), read once per process (a function-local constant: no mutable state).
inline const CpuFeatures& cpu_features() noexcept
{
    static const CpuFeatures features = detect_cpu_features();
    return features;
}

}  // namespace posenc::kernels::dispatch
