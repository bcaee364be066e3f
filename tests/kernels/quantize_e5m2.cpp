// SPDX-License-Identifier: MIT
// fp8 e5m2 conversions (quantize.hpp) against a definition-based converter written here from the
// format's definition (OCP 8-bit floating point, E5M2: bias 15, 2 mantissa bits, exponent 31 for
// infinities and NaN, largest finite 57344): every one of the 256 codes (value and round trip),
// every midpoint between neighbouring finite codes with its two float neighbours, the saturation
// boundary, and a sweep over the float bit patterns in steps of 65,584 (65,489 inputs, every
// exponent).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>

#include <posenc/kernels/quantize.hpp>

namespace kernels_quantize_e5m2_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

/// The value of an e5m2 code from the definition; infinities and NaN for exponent 31.
double definition_value(int code)
{
    const int s = code >> 7, e = (code >> 2) & 31, m = code & 3;
    double magnitude;
    if (e == 31)
        magnitude = m == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
    else magnitude = e == 0 ? std::ldexp(m, -16) : std::ldexp(4 + m, e - 17);
    return s ? -magnitude : magnitude;
}

/// Nearest finite code to x (ties to the even code), saturating at 57344, NaN -> S.11111.11.
std::uint8_t definition_convert(float x)
{
    const int sign = std::signbit(x) ? 0x80 : 0;
    if (std::isnan(x)) return static_cast<std::uint8_t>(sign | 0x7F);
    const double a = std::fabs(static_cast<double>(x));
    if (a >= 57344.0) return static_cast<std::uint8_t>(sign | 0x7B);
    int code = 0;
    for (int c = 1; c <= 0x7B; ++c) {
        const double d = std::fabs(definition_value(c) - a), best = std::fabs(definition_value(code) - a);
        if (d < best || (d == best && (c & 1) == 0)) code = c;
    }
    return static_cast<std::uint8_t>(sign | code);
}

float float_of_bits(std::uint32_t u)
{
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

}  // namespace

TEST_CASE("e5m2: every code's value, its round trip, and the conversion of every midpoint and its neighbours")
{
    for (int code = 0; code < 256; ++code) {
        const double want = definition_value(code);
        const float got = posenc::to_float(posenc::float8_e5m2 {static_cast<std::uint8_t>(code)});
        INFO("code " << code);
        if (std::isnan(want)) {
            CHECK(std::isnan(got));
            continue;
        }
        CHECK(static_cast<double>(got) == want);
        if (std::isinf(want)) continue;
        CHECK(static_cast<int>(posenc::to_float8_e5m2(got).bits) == code);
    }
    int midpoints = 0;
    for (int code = 0; code < 0x7B; ++code) {  // midpoints between positive finite neighbours
        const double mid = 0.5 * (definition_value(code) + definition_value(code + 1));
        const float m = static_cast<float>(mid);  // exact: a 4-bit significand
        REQUIRE(static_cast<double>(m) == mid);
        for (float x : {m, std::nextafter(m, 0.0f), std::nextafter(m, 1e9f), -m}) {
            INFO("x " << x);
            CHECK(static_cast<int>(posenc::to_float8_e5m2(x).bits) == static_cast<int>(definition_convert(x)));
        }
        ++midpoints;
    }
    CHECK(midpoints == 0x7B);
    for (float x : {57344.0f, 57345.0f, 61440.0f, 65536.0f, std::numeric_limits<float>::infinity(), -1e30f})
        CHECK(static_cast<int>(posenc::to_float8_e5m2(x).bits) == static_cast<int>(definition_convert(x)));
    CHECK(posenc::to_float8_e5m2(std::numeric_limits<float>::quiet_NaN()).bits == 0x7F);
}

TEST_CASE("e5m2: a sweep over the float bit patterns matches the definition")
{
    int checked = 0;
    for (std::uint64_t u = 0; u < (std::uint64_t {1} << 32); u += 4099 * 16) {
        const float x = float_of_bits(static_cast<std::uint32_t>(u));
        if (static_cast<int>(posenc::to_float8_e5m2(x).bits) != static_cast<int>(definition_convert(x))) {
            FAIL_CHECK("bits " << u << " x " << x);
        }
        ++checked;
    }
    CHECK(checked > 60000);
}

}  // namespace kernels_quantize_e5m2_tests
