// SPDX-License-Identifier: MIT
// posenc/kernels/detail/arch/generic.hpp: the types every arch's vector operations share (the
// float / double / int32 registers of an xsimd arch A, FloatPair, requires_arch) and the generic
// overload of each operation: xsimd's portable forms, or a scalar loop through a register-sized
// buffer where xsimd 8.1 has none. Each operation's per-ISA overloads are in the other files of
// arch/ (x86_sse, x86_avx2, x86_avx512, arm_neon, arm_neon_bf16); simd_ops.hpp includes them all
// and holds the operations' public forms.
#pragma once

#ifndef POSENC_DETAIL_SIMD_OPS_PART
#error                                                                                                                 \
    "posenc/kernels/detail/arch/generic.hpp is a part of simd_ops.hpp: include <posenc/kernels/apply.hpp> (or <posenc/kernels.hpp>) instead"
#endif

#include <xsimd/xsimd.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "posenc/kernels/dtypes.hpp"

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

// ---- the sum of one register's lanes ----------------------------------------------------------------
template <class A>
float horizontal_sum(const floats<A>& v, requires_arch<xsimd::generic>) noexcept
{
    return xsimd::hadd(v);
}

// ---- lane sums of float_lanes<A> registers at once: result lane k = sum of the lanes of rows[k] ----
template <class A>
floats<A> lane_sums(const floats<A>* rows, requires_arch<xsimd::generic>) noexcept
{
    return xsimd::haddp(rows);
}

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

// ---- double -> float: store double_lanes floats ------------------------------------------------------
template <class A>
void store_as_float(float* dst, const doubles<A>& v, requires_arch<xsimd::generic>) noexcept
{
    alignas(64) double in[doubles<A>::size];
    v.store_aligned(in);
    for (std::size_t i = 0; i < doubles<A>::size; ++i) dst[i] = static_cast<float>(in[i]);
}

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
    const i32 bits =
        xsimd::select(exponent == i32(0x1f), special, xsimd::select(exponent == i32(0), subnormal, normal));
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

// (The generic bfloat16 / float16 load and store are composed of widen_u16 / narrow_u16, whose
// per-ISA overloads must be declared before them: simd_ops.hpp defines them after every arch
// file.)

// ---- non-temporal copy of a staged row (dst 16-byte aligned, bytes % 16 == 0): the widest such
// store the alignment allows; memcpy on generic archs ------------------------------------------------
template <class A>
void stream_copy(std::byte* dst, const std::byte* src, std::size_t bytes, requires_arch<xsimd::generic>) noexcept
{
    std::memcpy(dst, src, bytes);
}

// ---- two registers of 16-bit storage in one access ----------------------------------------------------
// Only where paired_access (below) holds: AArch64 (arch/arm_neon.hpp defines them). Declared here
// so that the name is a template on every ISA.
template <class A, class T>
FloatPair<A> load_two(const T* p, requires_arch<xsimd::generic>) noexcept;
template <class A, class T>
void store_two(T* p, const floats<A>& lo, const floats<A>& hi, requires_arch<xsimd::generic>) noexcept;

// ---- the first `count` elements in one masked access ------------------------------------------------
// Only where masked_first_access (simd_ops.hpp) holds: float on AVX-512 (arch/x86_avx512.hpp defines
// them). Declared here so that the name is a template on every ISA.
template <class A, class T>
floats<A> load_first(const T* p, int count, requires_arch<xsimd::generic>) noexcept;
template <class A, class T>
void store_first(T* p, const floats<A>& v, int count, requires_arch<xsimd::generic>) noexcept;

}  // namespace impl
}  // namespace posenc::kernels::detail::simd
