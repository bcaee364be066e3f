// SPDX-License-Identifier: MIT
// posenc/kernels/quantize.hpp: the 8-bit storage a KV cache may use, fp8 e4m3 and int8 with a
// scale, and their scalar conversions.
//
// float8_e4m3 is the OCP 8-bit floating-point format E4M3 ("e4m3fn" in PyTorch): 1 sign bit,
// 4 exponent bits (bias 7), 3 mantissa bits, no infinities, one NaN pattern per sign (S.1111.111).
//   normal     e = 1..15 (except the NaN pattern)   value = (-1)^S 2^(e - 7) (1 + m / 8)
//   subnormal  e = 0                                 value = (-1)^S 2^-6 (m / 8)     (m / 512)
//   largest finite 448 (0x7E), smallest normal 2^-6, smallest subnormal 2^-9.
//
// to_float8_e4m3(x): the representable value nearest to x, ties to the even mantissa (IEEE 754
// roundTiesToEven), SATURATING: every |x| >= 448, infinities included, becomes +-448 (the
// convention of vLLM's fp8 KV cache, which clamps before converting; a plain cast in PyTorch
// gives NaN instead). NaN becomes the NaN pattern of its sign. A float below the smallest
// subnormal's half rounds to a signed zero. Relies on the default rounding mode (nearest).
// to_float(float8_e4m3) is exact (every e4m3 value is a float).
//
// float8_e5m2 is the OCP 8-bit format E5M2 ("e5m2" in PyTorch): 1 sign bit, 5 exponent bits
// (bias 15), 2 mantissa bits, IEEE-like (the top byte of a binary16):
//   normal     e = 1..30                             value = (-1)^S 2^(e - 15) (1 + m / 4)
//   subnormal  e = 0                                 value = (-1)^S 2^-14 (m / 4)      (m / 65536)
//   e = 31: infinity (m = 0) and NaN; largest finite 57344 (0x7B), smallest subnormal 2^-16.
// to_float8_e5m2(x): nearest, ties to the even mantissa, SATURATING as e4m3 (every |x| >= 57344,
// infinities included, becomes +-57344: the result is always finite); NaN becomes S.11111.11.
// to_float(float8_e5m2) is exact. tests/kernels/quantize_e5m2.cpp checks every code, every
// midpoint and its float neighbours, and a sweep of the floats against a definition-based converter.
//
// int8 (quantize_int8(x)): x rounded to the nearest integer, ties to even, saturating to
// [-127, 127] (symmetric: -128 is never written, so negating a stored value never overflows);
// infinities saturate, NaN becomes 0 (int8 has no NaN). Dequantize with float(q).
//
// With a scale s > 0 (per tensor or per head, kv_cache_view.hpp) the stored code of x is
// to_float8_e4m3(fl(x / s)) or quantize_int8(fl(x / s)): the float quotient (one rounding),
// then the conversion above; the value it stands for is to_float(code) * s.
// tests/kernels/quantize_conversions.cpp checks every e4m3 code, every midpoint between codes and
// its float neighbours, and a dense sweep of all floats against a definition-based converter.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "posenc/detail/host_device.hpp"

namespace posenc {

/// An fp8 E4M3 value as its storage byte; see the file comment.
struct float8_e4m3 {
    std::uint8_t bits;
};

static_assert(sizeof(float8_e4m3) == 1 && std::is_trivially_copyable_v<float8_e4m3>,
              "float8_e4m3 must be one plain byte.");

/// An fp8 E5M2 value as its storage byte; see the file comment.
struct float8_e5m2 {
    std::uint8_t bits;
};

static_assert(sizeof(float8_e5m2) == 1 && std::is_trivially_copyable_v<float8_e5m2>,
              "float8_e5m2 must be one plain byte.");

/// The value of an e5m2 code (exact): infinities and NaN for exponent 31.
inline float to_float(float8_e5m2 v) noexcept
{
    const std::uint32_t sign = static_cast<std::uint32_t>(v.bits & 0x80u) << 24;
    const std::uint32_t e = (v.bits >> 2) & 0x1Fu;
    const std::uint32_t m = v.bits & 0x3u;
    std::uint32_t bits;
    if (e == 31) {
        bits = sign | (m == 0 ? 0x7F800000u : 0x7FC00000u);
    } else if (e == 0) {
        float magnitude = static_cast<float>(m) * 1.52587890625e-05f;  // m * 2^-16, exact
        std::memcpy(&bits, &magnitude, sizeof bits);
        bits |= sign;
    } else {
        bits = sign | ((e + 112u) << 23) | (m << 21);  // exponent e - 15 + 127, mantissa m in the top 2 bits
    }
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

/// The value of an e4m3 code (exact); NaN for the two NaN patterns.
POSENC_HD inline float to_float(float8_e4m3 v) noexcept
{
    const std::uint32_t sign = static_cast<std::uint32_t>(v.bits & 0x80u) << 24;
    const std::uint32_t e = (v.bits >> 3) & 0xFu;
    const std::uint32_t m = v.bits & 0x7u;
    std::uint32_t bits;
    if (e == 15 && m == 7) {
        bits = sign | 0x7FC00000u;
    } else if (e == 0) {
        float magnitude = static_cast<float>(m) * 0.001953125f;  // m * 2^-9, exact
        std::memcpy(&bits, &magnitude, sizeof bits);
        bits |= sign;
    } else {
        bits = sign | ((e + 120u) << 23) | (m << 20);  // exponent e - 7 + 127, mantissa m in the top 3 bits
    }
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

namespace kernels::detail {

/// to_float8_e4m3, as a template on the caller's arch so that a per-ISA dispatch unit gets a
/// copy of its own (never shared with code compiled for another ISA).
template <class Arch>
POSENC_HD float8_e4m3 to_float8_e4m3_on(float x) noexcept
{
    std::uint32_t u;
    std::memcpy(&u, &x, sizeof u);
    const auto sign = static_cast<std::uint8_t>((u >> 24) & 0x80u);
    const std::uint32_t a = u & 0x7FFFFFFFu;
    if (a > 0x7F800000u) return {static_cast<std::uint8_t>(sign | 0x7Fu)};  // NaN
    if (a >= 0x43E00000u) return {static_cast<std::uint8_t>(sign | 0x7Eu)};  // |x| >= 448, inf: saturate
    if (a < 0x3C800000u) {  // |x| < 2^-6: multiples of 2^-9
        float magnitude;
        std::memcpy(&magnitude, &a, sizeof magnitude);
        // exact scaling; q in 0..8 (8 = 2^-6, code 0x08). The double overload is the C library's
        // function: std::nearbyint(float) is an inline wrapper that a per-ISA unit would emit with
        // its own instructions under a name baseline code shares (scripts/check-isa-symbols.sh).
        const double q = std::nearbyint(static_cast<double>(magnitude) * 512.0);
        return {static_cast<std::uint8_t>(sign | static_cast<std::uint8_t>(q))};
    }
    // Normal: round the 23-bit mantissa to 3 bits, ties to even; a carry moves into the exponent.
    const std::uint32_t rounded = (a + 0x7FFFFu + ((a >> 20) & 1u)) >> 20;  // (exponent + 127) << 3 | m
    return {static_cast<std::uint8_t>(sign | (rounded - ((127u - 7u) << 3)))};
}

/// to_float8_e5m2, as a template on the caller's arch (see to_float8_e4m3_on).
template <class Arch>
float8_e5m2 to_float8_e5m2_on(float x) noexcept
{
    std::uint32_t u;
    std::memcpy(&u, &x, sizeof u);
    const auto sign = static_cast<std::uint8_t>((u >> 24) & 0x80u);
    const std::uint32_t a = u & 0x7FFFFFFFu;
    if (a > 0x7F800000u) return {static_cast<std::uint8_t>(sign | 0x7Fu)};  // NaN
    if (a >= 0x47600000u) return {static_cast<std::uint8_t>(sign | 0x7Bu)};  // |x| >= 57344, inf: saturate
    if (a < 0x38800000u) {  // |x| < 2^-14: multiples of 2^-16
        float magnitude;
        std::memcpy(&magnitude, &a, sizeof magnitude);
        const double q = std::nearbyint(static_cast<double>(magnitude) * 65536.0);  // 0..4 (4 = 2^-14, code 0x04)
        return {static_cast<std::uint8_t>(sign | static_cast<std::uint8_t>(q))};
    }
    // Normal: round the 23-bit mantissa to 2 bits, ties to even; a carry moves into the exponent
    // (below 57344 it never reaches exponent 31).
    const std::uint32_t rounded = (a + 0xFFFFFu + ((a >> 21) & 1u)) >> 21;  // (exponent + 127) << 2 | m
    return {static_cast<std::uint8_t>(sign | (rounded - ((127u - 15u) << 2)))};
}

/// quantize_int8, as a template on the caller's arch (see above).
template <class Arch>
POSENC_HD std::int8_t quantize_int8_on(float x) noexcept
{
    if (!(x == x)) return 0;
    if (x >= 127.0f) return 127;
    if (x <= -127.0f) return -127;
    return static_cast<std::int8_t>(std::nearbyint(static_cast<double>(x)));  // the C function (see above)
}

}  // namespace kernels::detail

/// x rounded to nearest-even e4m3, saturating to +-448; see the file comment.
POSENC_HD inline float8_e4m3 to_float8_e4m3(float x) noexcept { return kernels::detail::to_float8_e4m3_on<void>(x); }

/// x rounded to nearest-even e5m2, saturating to +-57344; see the file comment.
inline float8_e5m2 to_float8_e5m2(float x) noexcept { return kernels::detail::to_float8_e5m2_on<void>(x); }

/// x rounded to the nearest integer (ties to even), saturating to [-127, 127]; NaN -> 0.
POSENC_HD inline std::int8_t quantize_int8(float x) noexcept { return kernels::detail::quantize_int8_on<void>(x); }

}  // namespace posenc
