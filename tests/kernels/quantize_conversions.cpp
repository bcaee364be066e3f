// SPDX-License-Identifier: MIT
// fp8 e4m3 and int8 conversions (quantize.hpp) against definition-based converters written here
// from the format's definition (OCP 8-bit floating point, E4M3: bias 7, 3 mantissa bits, no
// infinities, S.1111.111 = NaN, largest 448): every one of the 256 codes (value and round trip),
// every midpoint between neighbouring codes with its two float neighbours (the ties and the
// cases just off them), the saturation boundary, and a dense sweep over all 2^32 float bit
// patterns in steps of 4,099 (1,047,807 inputs, every exponent).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <posenc/kernels/quantize.hpp>

namespace kernels_quantize_conversions_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

/// The value of an e4m3 code from the definition; NaN for S.1111.111.
double definition_value(int code)
{
    const int s = code >> 7, e = (code >> 3) & 15, m = code & 7;
    if (e == 15 && m == 7) return std::numeric_limits<double>::quiet_NaN();
    const double magnitude = e == 0 ? std::ldexp(m, -9) : std::ldexp(8 + m, e - 10);
    return s ? -magnitude : magnitude;
}

/// Nearest code to x (ties to the even code), saturating at 448, NaN -> S.1111.111.
std::uint8_t definition_convert(float x)
{
    const int sign = std::signbit(x) ? 0x80 : 0;
    if (std::isnan(x)) return static_cast<std::uint8_t>(sign | 0x7F);
    const double a = std::fabs(static_cast<double>(x));
    if (a >= 448.0) return static_cast<std::uint8_t>(sign | 0x7E);
    int lo = 0, hi = 0x7E;  // largest code with value <= a
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (definition_value(mid) <= a) lo = mid;
        else hi = mid - 1;
    }
    int code = lo;
    if (definition_value(lo) != a) {
        const double below = a - definition_value(lo), above = definition_value(lo + 1) - a;
        if (above < below || (above == below && ((lo + 1) & 1) == 0)) code = lo + 1;
    }
    return static_cast<std::uint8_t>(sign | code);
}

/// Nearest integer (ties to even), saturating to [-127, 127], NaN -> 0.
int definition_int8(float x)
{
    if (std::isnan(x)) return 0;
    const double v = x;
    if (v >= 127.0) return 127;
    if (v <= -127.0) return -127;
    const double f = std::floor(v), d = v - f;
    double r = d > 0.5 ? f + 1 : d < 0.5 ? f : (std::fmod(f, 2.0) == 0.0 ? f : f + 1);
    return static_cast<int>(r);
}

float from_bits(std::uint32_t b)
{
    float f;
    std::memcpy(&f, &b, sizeof f);
    return f;
}

}  // namespace

TEST_CASE("fp8 e4m3: all 256 codes decode to their definition value and round-trip")
{
    int failures = 0;
    for (int code = 0; code < 256; ++code) {
        const float v = posenc::to_float(posenc::float8_e4m3 {static_cast<std::uint8_t>(code)});
        const double expected = definition_value(code);
        if (std::isnan(expected)) {
            failures += !std::isnan(v);
            failures += posenc::to_float8_e4m3(v).bits != code;  // NaN keeps its sign, S.1111.111
        } else {
            failures += static_cast<double>(v) != expected || std::signbit(v) != std::signbit(expected);
            failures += posenc::to_float8_e4m3(v).bits != code;
        }
    }
    CHECK(failures == 0);
    CHECK(posenc::to_float(posenc::float8_e4m3 {0x7E}) == 448.0f);
    CHECK(posenc::to_float(posenc::float8_e4m3 {0x01}) == std::ldexp(1.0f, -9));
}

TEST_CASE("fp8 e4m3: midpoints, their neighbours, saturation and a dense sweep match the definition")
{
    std::vector<float> inputs;
    for (int code = 0; code < 0x7E; ++code) {
        const float mid =
            static_cast<float>((definition_value(code) + definition_value(code + 1)) / 2);  // exact in float
        for (float x : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e30f)}) {
            inputs.push_back(x);
            inputs.push_back(-x);
        }
    }
    for (float x : {448.0f, 449.0f, 463.99997f, 464.0f, 480.0f, 1e6f, std::numeric_limits<float>::max(),
                    std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(), 0.0f,
                    std::ldexp(1.0f, -10), std::nextafter(std::ldexp(1.0f, -10), 1.0f), std::ldexp(1.0f, -149)}) {
        inputs.push_back(x);
        inputs.push_back(-x);
    }
    for (std::uint64_t b = 0; b < (std::uint64_t {1} << 32); b += 4099)
        inputs.push_back(from_bits(static_cast<std::uint32_t>(b)));
    int failures = 0;
    std::string first;
    for (float x : inputs) {
        const std::uint8_t got = posenc::to_float8_e4m3(x).bits, expected = definition_convert(x);
        if (got != expected && failures++ == 0)
            first = std::to_string(x) + ": got " + std::to_string(got) + " expected " + std::to_string(expected);
    }
    INFO(inputs.size() << " inputs; first failure: " << first);
    CHECK(failures == 0);
    CHECK(posenc::to_float8_e4m3(1e9f).bits == 0x7E);  // saturating
    CHECK(posenc::to_float8_e4m3(-std::numeric_limits<float>::infinity()).bits == 0xFE);
}

TEST_CASE("int8: ties to even, saturation to [-127, 127] and NaN -> 0 match the definition")
{
    std::vector<float> inputs;
    for (int k = -140; k <= 140; ++k) {
        const float half = static_cast<float>(k) + 0.5f;
        for (float x : {static_cast<float>(k), half, std::nextafter(half, -1e30f), std::nextafter(half, 1e30f)})
            inputs.push_back(x);
    }
    for (std::uint64_t b = 0; b < (std::uint64_t {1} << 32); b += 4099)
        inputs.push_back(from_bits(static_cast<std::uint32_t>(b)));
    inputs.push_back(std::numeric_limits<float>::infinity());
    inputs.push_back(-std::numeric_limits<float>::infinity());
    inputs.push_back(std::numeric_limits<float>::quiet_NaN());
    int failures = 0;
    for (float x : inputs) failures += posenc::quantize_int8(x) != definition_int8(x);
    CHECK(failures == 0);
    CHECK(posenc::quantize_int8(2.5f) == 2);
    CHECK(posenc::quantize_int8(-3.5f) == -4);
    CHECK(posenc::quantize_int8(-1000.0f) == -127);
}

}  // namespace kernels_quantize_conversions_tests
