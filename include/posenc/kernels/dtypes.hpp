// SPDX-License-Identifier: MIT
// posenc/kernels/dtypes.hpp: the storage types the kernels read and write, and their scalar
// conversions to and from float.
//
//   float      IEEE binary32; the kernels compute in it.
//   bfloat16   the top 16 bits of a binary32 (1 sign, 8 exponent, 7 mantissa bits).
//   float16    IEEE binary16 (1 sign, 5 exponent, 10 mantissa bits; max 65504, subnormals).
//   double     binary64; only the reference path (scalar, exact double angles) stores it.
//
// Widening (bfloat16 or float16 to float) is exact. Narrowing (float to bfloat16 or float16)
// rounds to nearest, ties to even (IEEE 754 roundTiesToEven), with the usual consequences:
// a float16 result of magnitude >= 65520 becomes infinity, tiny results become subnormal or
// zero, NaN stays NaN (quiet; its payload is not preserved). The SIMD paths (simd_ops.hpp)
// produce bit-identical results; tests/kernels/dtypes_rounding.cpp checks both against a
// definition-based oracle (the nearest representable value, ties to the even mantissa).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "posenc/detail/host_device.hpp"

namespace posenc {

/// A bfloat16 value as its 16 storage bits. Trivially copyable: arrays of it alias model tensors.
struct bfloat16 {
    std::uint16_t bits;
};

/// An IEEE binary16 value as its 16 storage bits.
struct float16 {
    std::uint16_t bits;
};

static_assert(sizeof(bfloat16) == 2 && std::is_trivially_copyable_v<bfloat16>, "bfloat16 must be 2 plain bytes.");
static_assert(sizeof(float16) == 2 && std::is_trivially_copyable_v<float16>, "float16 must be 2 plain bytes.");

/// The storage types a kernel call can carry (used by runtime dispatch to pick an instantiation).
enum class StorageType { float32, bfloat16, float16, float64 };

/// "float32", "bfloat16", "float16" or "float64".
inline const char* to_string(StorageType type) noexcept
{
    constexpr const char* names[] = {"float32", "bfloat16", "float16", "float64"};
    const auto i = static_cast<unsigned>(type);
    return i < sizeof(names) / sizeof(names[0]) ? names[i] : "unknown";
}

/// storage_type_of<T>: the StorageType of float, bfloat16, float16 or double.
template <class T>
inline constexpr StorageType storage_type_of = std::is_same_v<T, float>      ? StorageType::float32
                                               : std::is_same_v<T, bfloat16> ? StorageType::bfloat16
                                               : std::is_same_v<T, float16>  ? StorageType::float16
                                                                             : StorageType::float64;

/// True for the four storage types the kernels accept.
template <class T>
inline constexpr bool is_storage_type =
    std::is_same_v<T, float> || std::is_same_v<T, bfloat16> || std::is_same_v<T, float16> || std::is_same_v<T, double>;

namespace kernels::detail {

POSENC_HD inline std::uint32_t float_bits(float f) noexcept
{
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

POSENC_HD inline float float_from_bits(std::uint32_t u) noexcept
{
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

}  // namespace kernels::detail

/// bfloat16 -> float, exact: the 16 bits become the top half of the binary32.
POSENC_HD inline float to_float(bfloat16 x) noexcept
{
    return kernels::detail::float_from_bits(static_cast<std::uint32_t>(x.bits) << 16);
}

namespace kernels::detail {
/// to_bfloat16's body, as a template on an arch tag so that a per-ISA dispatch unit gets a copy
/// of its own (kernels/dispatch.hpp).
template <class Arch>
POSENC_HD bfloat16 to_bfloat16_on(float f) noexcept
{
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u) return {static_cast<std::uint16_t>((u >> 16) | 0x0040u)};
    const std::uint32_t rounded = u + 0x7fffu + ((u >> 16) & 1u);  // ties go to the even upper half
    return {static_cast<std::uint16_t>(rounded >> 16)};
}
}  // namespace kernels::detail

/// float -> bfloat16, round to nearest even on the 16 dropped bits; NaN -> quiet NaN (same sign).
/// Error: at most half an ulp of bfloat16 (2^-9 relative) for finite results.
POSENC_HD inline bfloat16 to_bfloat16(float f) noexcept { return kernels::detail::to_bfloat16_on<void>(f); }

/// float16 -> float, exact (subnormals, infinities and NaN included).
POSENC_HD inline float to_float(float16 x) noexcept
{
    const std::uint32_t h = x.bits;
    const std::uint32_t sign = (h & 0x8000u) << 16;
    const std::uint32_t exponent = (h >> 10) & 0x1fu;
    const std::uint32_t mantissa = h & 0x3ffu;
    if (exponent == 0x1fu) return kernels::detail::float_from_bits(sign | 0x7f800000u | (mantissa << 13));
    if (exponent == 0) {
        // subnormal: mantissa * 2^-24, exact in float (2^-24 = 5.9604644775390625e-08)
        const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-08f;
        return kernels::detail::float_from_bits(sign | kernels::detail::float_bits(magnitude));
    }
    return kernels::detail::float_from_bits(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

/// float -> float16, round to nearest even; |f| >= 65520 -> infinity; NaN -> quiet NaN 0x7e00
/// with f's sign. Error: half an ulp of float16 for results in range.
POSENC_HD inline float16 to_float16(float f) noexcept
{
    const std::uint32_t u = kernels::detail::float_bits(f);
    const std::uint32_t sign = (u >> 16) & 0x8000u;
    const std::uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u) return {static_cast<std::uint16_t>(sign | 0x7e00u)};
    if (a >= 0x47800000u) return {static_cast<std::uint16_t>(sign | 0x7c00u)};  // >= 65536 or infinity
    if (a < 0x38800000u) {
        // below 2^-14: subnormal or zero. Adding 0.5f aligns the value to float16's subnormal
        // spacing 2^-24 (the ulp of 0.5f), so the FPU's own round-to-nearest-even does the work.
        const float shifted = kernels::detail::float_from_bits(a) + 0.5f;
        return {static_cast<std::uint16_t>(sign | (kernels::detail::float_bits(shifted) - 0x3f000000u))};
    }
    // normal: rebias the exponent (127 -> 15), round the 13 dropped bits to nearest even; a carry
    // propagates into the exponent (and from 65520 up into infinity, as it must).
    const std::uint32_t odd = (a >> 13) & 1u;
    return {static_cast<std::uint16_t>(sign | ((a - 0x38000000u + 0x0fffu + odd) >> 13))};
}

/// Storage -> float (identity for float). For tests and scalar code.
POSENC_HD inline float load_as_float(float x) noexcept { return x; }
POSENC_HD inline float load_as_float(bfloat16 x) noexcept { return to_float(x); }
POSENC_HD inline float load_as_float(float16 x) noexcept { return to_float(x); }

/// float -> storage T with the rounding above (T = float: identity).
template <class T>
POSENC_HD T store_from_float(float x) noexcept
{
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, bfloat16> || std::is_same_v<T, float16>,
                  "store_from_float writes float, bfloat16 or float16.");
    if constexpr (std::is_same_v<T, float>) return x;
    else if constexpr (std::is_same_v<T, bfloat16>) return to_bfloat16(x);
    else return to_float16(x);
}

}  // namespace posenc
