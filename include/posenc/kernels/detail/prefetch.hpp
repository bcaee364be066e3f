// SPDX-License-Identifier: MIT
// posenc/kernels/detail/prefetch.hpp: software prefetch of the heads a kernel is about to read:
// the distance, the hint, and on which CPUs the kernels issue it (the loops of rope_loops.hpp,
// bfloat16_even_odd.hpp and fused_loops.hpp, only for calls with several tokens).
#pragma once

#ifndef POSENC_KERNELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/kernels/detail/prefetch.hpp is internal to the kernels: include <posenc/kernels/apply.hpp> (or <posenc/kernels.hpp>) instead"
#endif

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
#include <intrin.h>
#endif

#include <cstddef>
#include <cstdint>
#include <utility>

#include "posenc/kernels/detail/simd_ops.hpp"

namespace posenc::kernels::detail::simd {

/// Heads ahead of the current one whose cache lines the kernel prefetches when it streams
/// several tokens and software_prefetch_pays: a head loop walks many short runs (a and b halves,
/// Q and K), which some hardware prefetchers follow late. Rows prefill_f32/cache_half_pos0 and
/// prefill_bf16/cache_half_pos0 (docs/benchmarks.md, "Measurements behind the kernels' choices").
inline constexpr std::ptrdiff_t prefetch_heads_ahead = 8;

namespace impl {
/// Whether software prefetch was measured to pay on this CPU: Intel ("GenuineIntel" in CPUID leaf
/// 0), or AMD ("AuthenticAMD") from family 1Ah (Zen 5) on; false where CPUID is not available.
template <class A>
bool cpu_prefetch_pays() noexcept
{
    unsigned vendor_b = 0, vendor_c = 0, vendor_d = 0, signature = 0;
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid(0, &eax, &ebx, &ecx, &edx) == 0) return false;
    vendor_b = ebx, vendor_c = ecx, vendor_d = edx;
    if (eax >= 1 && __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0) signature = eax;
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
    int r[4] = {};
    __cpuid(r, 0);
    vendor_b = static_cast<unsigned>(r[1]), vendor_c = static_cast<unsigned>(r[2]),
    vendor_d = static_cast<unsigned>(r[3]);
    if (r[0] >= 1) {
        __cpuid(r, 1);
        signature = static_cast<unsigned>(r[0]);
    }
#else
    return false;
#endif
    const bool intel =
        vendor_b == 0x756e6547u && vendor_d == 0x49656e69u && vendor_c == 0x6c65746eu;  // "Genu" "ineI" "ntel"
    const bool amd =
        vendor_b == 0x68747541u && vendor_d == 0x69746e65u && vendor_c == 0x444d4163u;  // "Auth" "enti" "cAMD"
    // family: the base family, plus the extended family when the base is 0Fh (CPUID leaf 1 EAX)
    const unsigned base_family = (signature >> 8) & 0xfu;
    const unsigned family = base_family == 0xfu ? base_family + ((signature >> 20) & 0xffu) : base_family;
    return intel || (amd && family >= 0x1au);
}
}  // namespace impl

/// Whether the kernels issue software prefetches (prefetch_heads_ahead) when a call streams
/// several tokens: on the CPUs of impl::cpu_prefetch_pays (rows prefill_f32/*, fused_f32/norm_rope
/// and mrope_f32/* with and without the hints; docs/benchmarks.md). CPUID is read once per arch.
template <class A>
bool software_prefetch_pays() noexcept
{
    static const bool pays = impl::cpu_prefetch_pays<A>();
    return pays;
}

/// Hints that the cache line holding p + offset elements will be read soon. The address is
/// formed in integer arithmetic (it may lie past the tensor, where a pointer may not point) and
/// a prefetch never faults. No effect with compilers other than GCC and Clang.
template <class T>
POSENC_ALWAYS_INLINE void prefetch(const T* p, std::ptrdiff_t offset) noexcept
{
#if defined(__GNUC__) || defined(__clang__)
    const std::uintptr_t address =
        reinterpret_cast<std::uintptr_t>(p) + static_cast<std::uintptr_t>(offset) * sizeof(T);
    __builtin_prefetch(reinterpret_cast<const void*>(address), 0, 3);
#else
    (void)p;
    (void)offset;
#endif
}

/// prefetch for one group of a half_split loop: the registers K... (`Step` elements apart) of
/// both halves of the head prefetch_heads_ahead heads after the one at a and b (heads
/// `head_stride` elements apart).
template <std::ptrdiff_t Step, class T, std::size_t... K>
POSENC_ALWAYS_INLINE void prefetch_halves_ahead(const T* a, const T* b, std::ptrdiff_t head_stride,
                                                std::index_sequence<K...>) noexcept
{
    const std::ptrdiff_t ahead = prefetch_heads_ahead * head_stride;
    (prefetch(a, ahead + static_cast<std::ptrdiff_t>(K) * Step), ...);
    (prefetch(b, ahead + static_cast<std::ptrdiff_t>(K) * Step), ...);
}

}  // namespace posenc::kernels::detail::simd
