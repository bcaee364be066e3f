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
// (<- posenc's avx512_bf16); on AArch64 xsimd::neon64 (<- posenc's neon64_bf16). Each column of
// the table is one file of arch/, included below in that order (an overload may call a narrower
// family's, so the narrower is declared first):
//   arch/generic.hpp          the register types and the generic column
//   arch/x86_sse.hpp          the sse2 family
//   arch/x86_avx2.hpp         the avx and avx2 families
//   arch/x86_avx512.hpp       the avx512f family
//   arch/x86_avx512_bf16.hpp  posenc's avx512_bf16 tag (its overloads are avx512bw's)
//   arch/arm_neon.hpp         the AArch64 column (neon64)
//   arch/arm_neon_bf16.hpp    posenc's neon64_bf16 tag and its bfloat16 stores
// This file holds the operations' public forms, which bind to the nearest overload.
//
// Every function is a template on the arch, so that translation units compiled with different
// -m flags (runtime dispatch, dispatch.hpp) never share a non-template symbol whose code depends
// on those flags. Conversions round to nearest even and agree bit for bit with dtypes.hpp for
// every non-NaN input (NaN stays NaN).
#pragma once

#ifndef POSENC_KERNELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/kernels/detail/simd_ops.hpp is internal to the kernels: include <posenc/kernels/apply.hpp> (or <posenc/kernels.hpp>) instead"
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
#include "posenc/kernels/detail/arch/generic.hpp"
#include "posenc/kernels/detail/arch/x86_sse.hpp"
#include "posenc/kernels/detail/arch/x86_avx2.hpp"
#include "posenc/kernels/detail/arch/x86_avx512.hpp"
#include "posenc/kernels/detail/arch/x86_avx512_bf16.hpp"
#include "posenc/kernels/detail/arch/arm_neon.hpp"
#include "posenc/kernels/detail/arch/arm_neon_bf16.hpp"

namespace posenc::kernels::detail::simd::impl {

// The generic bfloat16 / float16 load and store, composed of the widening and narrowing of 16-bit
// lanes (widen_u16 / narrow_u16) and the lane-wise conversions of arch/generic.hpp. They are
// defined here, after every arch file, because a qualified call in a template sees only the
// overloads declared before it: here the SSE2 and AVX2 forms of widen_u16 / narrow_u16 are in
// view, as they must be.
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

}  // namespace posenc::kernels::detail::simd::impl

namespace posenc::kernels {

/// The arch the header-only kernels use: the best the compiler targets (xsimd::default_arch:
/// SSE2 with no flags on x86-64, AVX-512 under -mavx512bw, ...), or avx512_bf16 when the
/// translation unit also enables AVX512_BF16 (e.g. -march=native on such a machine); on AArch64
/// xsimd::neon64, or neon64_bf16 when the unit enables FP16 and BF16 (arch/arm_neon_bf16.hpp).
#if POSENC_WITH_AVX512BF16
using default_arch = detail::simd::avx512_bf16;
#elif POSENC_WITH_NEON_BF16
using default_arch = detail::simd::neon64_bf16;
#else
using default_arch = xsimd::default_arch;
#endif

}  // namespace posenc::kernels

namespace posenc::kernels::detail::simd {

/// a * b + c, one rounding where the arch has FMA (fma3, AVX-512), two otherwise.
template <class A, class T>
xsimd::batch<T, A> mul_add(const xsimd::batch<T, A>& a, const xsimd::batch<T, A>& b,
                           const xsimd::batch<T, A>& c) noexcept
{
    return impl::mul_add<A>(a, b, c, A {});
}

/// a / b in every lane, correctly rounded (IEEE 754). (xsimd 8.1's NEON division is a reciprocal
/// estimate refined by Newton steps: arch/arm_neon.hpp gives fdiv.)
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

/// Whether load_first / store_first of T on arch A are one masked access (float on AVX-512,
/// arch/x86_avx512.hpp) rather than a copy through a register-sized buffer, whose narrow stores
/// and wide load stall store-to-load forwarding on every row tail.
template <class A, class T>
inline constexpr bool masked_first_access =
#if XSIMD_WITH_AVX512F
    std::is_base_of_v<xsimd::avx512f, A>&& std::is_same_v<T, float>;
#else
    false;
#endif

/// Like load_as_floats, for the first `count` elements only (0 < count <= float_lanes<A>); the other lanes
/// are zero. Never reads p[count] or beyond: a masked load (masked_first_access), else the elements go
/// through a register-sized buffer.
template <class A, class T>
floats<A> load_first(const T* p, int count) noexcept
{
    if constexpr (masked_first_access<A, T>) {
        return impl::load_first<A>(p, count, A {});
    } else {
        T buffer[floats<A>::size] = {};
        std::memcpy(buffer, p, static_cast<std::size_t>(count) * sizeof(T));
        return simd::load_as_floats<A>(buffer);
    }
}

/// Like store_rounded, for the first `count` lanes only; never writes p[count] or beyond.
template <class A, class T>
void store_first(T* p, const floats<A>& v, int count) noexcept
{
    if constexpr (masked_first_access<A, T>) {
        impl::store_first<A>(p, v, count, A {});
    } else {
        T buffer[floats<A>::size];
        simd::store_rounded<A>(buffer, v);
        std::memcpy(p, buffer, static_cast<std::size_t>(count) * sizeof(T));
    }
}

}  // namespace posenc::kernels::detail::simd
