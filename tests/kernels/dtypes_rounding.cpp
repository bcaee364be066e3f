// SPDX-License-Identifier: MIT
// bfloat16 / float16 conversions (dtypes.hpp scalar, simd_ops.hpp vector on every arch path)
// against a definition-based oracle written here:
//   float16 value of bits (s, e, m) = (-1)^s * (e == 0 ? m 2^-24 : (1 + m/1024) 2^(e-15))   (IEEE 754 binary16)
//   rounding = the representable value nearest to x, ties to the even mantissa, computed as
//   nearbyint(x / spacing) * spacing in double (the C library's round-half-even, not the bit tricks
//   under test); float16 overflows to infinity from 65520 = 65504 + half its spacing.
//   bfloat16 = the top half of a binary32 (its definition), rounded the same way with 7 mantissa bits.
// Through the kernel: at position 0 every cos is the attention factor a and every sin is 0, so
// a pair (x, 0) becomes (round16(fl32(x * a)), 0): exactly one float rounding (fused or not,
// x*a is rounded once and 0*sin adds nothing) and one 16-bit rounding, which the oracle predicts.
#include <doctest/doctest.h>

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <vector>

#include "kernel_test_support.hpp"

namespace kernels_dtypes_rounding_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using namespace posenc::kernels;
using kernel_test::ArchPath;

double oracle_half_value(std::uint16_t bits)
{
    const int s = bits >> 15, e = (bits >> 10) & 0x1f, m = bits & 0x3ff;
    const double magnitude = e == 0 ? std::ldexp(m, -24) : std::ldexp(1.0 + m / 1024.0, e - 15);
    return s ? -magnitude : magnitude;
}

/// Nearest float16 to finite x (ties to even), as a double; +-inf past the overflow threshold.
double oracle_round_half(double x)
{
    const double a = std::fabs(x);
    if (a >= 65520.0) return std::copysign(std::numeric_limits<double>::infinity(), x);
    const double spacing = a < std::ldexp(1.0, -14) ? std::ldexp(1.0, -24) : std::ldexp(1.0, std::ilogb(a) - 10);
    return std::copysign(std::nearbyint(a / spacing) * spacing, x);
}

/// Nearest bfloat16 to finite x (ties to even), as a double (overflow past the largest finite).
double oracle_round_bfloat16(double x)
{
    const double a = std::fabs(x);
    const double largest = std::ldexp(255.0 / 128.0, 127);
    if (a >= largest + std::ldexp(1.0, 127 - 8)) return std::copysign(std::numeric_limits<double>::infinity(), x);
    const double spacing = a < std::ldexp(1.0, -126) ? std::ldexp(1.0, -133) : std::ldexp(1.0, std::ilogb(a) - 7);
    return std::copysign(std::nearbyint(a / spacing) * spacing, x);
}

std::map<double, std::uint16_t> half_bits_by_value()
{
    std::map<double, std::uint16_t> m;
    for (std::uint32_t b = 0; b < 0x10000; ++b) {
        if (((b >> 10) & 0x1f) == 0x1f) continue;  // inf / nan
        if (b == 0x8000) continue;  // -0 shares the key 0.0 with +0
        m[oracle_half_value(static_cast<std::uint16_t>(b))] = static_cast<std::uint16_t>(b);
    }
    m[std::numeric_limits<double>::infinity()] = 0x7c00;
    m[-std::numeric_limits<double>::infinity()] = 0xfc00;
    return m;
}

float float_of_bits(std::uint32_t u)
{
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

}  // namespace

TEST_CASE("[IEEE 754] float16 -> float is exact for all 65,536 bit patterns")
{
    REQUIRE(std::fegetround() == FE_TONEAREST);
    for (std::uint32_t b = 0; b < 0x10000; ++b) {
        CAPTURE(b);
        const float f = posenc::to_float(posenc::float16 {static_cast<std::uint16_t>(b)});
        if (((b >> 10) & 0x1f) == 0x1f && (b & 0x3ff) != 0) {
            CHECK(std::isnan(f));
        } else if (((b >> 10) & 0x1f) == 0x1f) {
            CHECK(f ==
                  ((b & 0x8000) ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity()));
        } else {
            CHECK(static_cast<double>(f) == oracle_half_value(static_cast<std::uint16_t>(b)));
            CHECK(std::signbit(f) == ((b & 0x8000) != 0));
        }
    }
}

TEST_CASE("[IEEE 754] float -> float16 and float -> bfloat16 round to nearest even (scalar)")
{
    const auto table = half_bits_by_value();
    std::mt19937 rng(20260401);
    std::vector<float> samples;
    // every half value, the midpoints between neighbours (exact ties), and points just beside them
    for (auto it = table.begin(); std::next(it) != table.end(); ++it) {
        const double lo = it->first, hi = std::next(it)->first;
        if (std::isinf(lo) || std::isinf(hi)) continue;
        const float mid = static_cast<float>((lo + hi) / 2);  // exact: 11 significant bits
        samples.insert(samples.end(),
                       {static_cast<float>(lo), mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f)});
    }
    // random bit patterns over the whole float range, plus the overflow threshold
    for (int i = 0; i < 200000; ++i) samples.push_back(float_of_bits(static_cast<std::uint32_t>(rng())));
    samples.insert(samples.end(), {65504.0f, 65519.99f, 65520.0f, 65536.0f, 1e-8f, 2.9802322e-08f, -0.0f, 0.0f});

    for (float x : samples) {
        CAPTURE(x);
        const posenc::float16 h = posenc::to_float16(x);
        const posenc::bfloat16 b = posenc::to_bfloat16(x);
        if (std::isnan(x)) {
            CHECK(std::isnan(posenc::to_float(h)));
            CHECK(std::isnan(posenc::to_float(b)));
            continue;
        }
        if (std::isinf(x)) {
            CHECK(posenc::to_float(h) == x);
            CHECK(posenc::to_float(b) == x);
            continue;
        }
        const double expected_half = oracle_round_half(x);
        const auto found = table.find(expected_half);
        REQUIRE(found != table.end());
        if (expected_half == 0.0) CHECK((h.bits & 0x7fff) == 0);
        else CHECK(h.bits == found->second);
        CHECK(static_cast<double>(posenc::to_float(b)) == oracle_round_bfloat16(x));
    }
}

TEST_CASE("[IEEE 754] every arch path stores bfloat16 and float16 rounded to nearest even (kernel at position 0)")
{
    const auto table = half_bits_by_value();
    for (const ArchPath& path : kernel_test::arch_paths()) {
        for (double factor :
             {1.0, 1.0 + std::ldexp(1.0, -11), 1.0 + std::ldexp(1.0, -9) + std::ldexp(1.0, -12), 0.7, 3.3}) {
            // one pair per head (rotary_dim 2), half_split: element 0 is x, element 1 stays 0
            const posenc::RopeSpec spec(2, 2, 10000.0, posenc::Pairing::half_split);
            const posenc::FrequencyTable freq({1.0}, factor);
            const CosSinCache cache(freq, 1);
            const float a = static_cast<float>(factor);  // the cached cos at position 0
            const std::vector<std::int32_t> at_zero(0x10000, 0);  // every token at position 0
            const PositionIds positions(at_zero);
            CAPTURE(path.name);
            CAPTURE(factor);

            // float16: every finite pattern
            std::vector<posenc::float16> h(2 * 0x10000);
            for (std::uint32_t b = 0; b < 0x10000; ++b) h[2 * b] = {static_cast<std::uint16_t>(b)}, h[2 * b + 1] = {0};
            kernel_test::apply_on(path, spec, cache, positions,
                                  QKViews<posenc::float16>::in_place(HeadsView<posenc::float16>(h, {0x10000, 1, 2})));
            int mismatches = 0;
            for (std::uint32_t b = 0; b < 0x10000; ++b) {
                if (((b >> 10) & 0x1f) == 0x1f) {
                    if (b & 0x3ff) mismatches += std::isnan(posenc::to_float(h[2 * b])) ? 0 : 1;
                    continue;
                }
                const float product = static_cast<float>(oracle_half_value(static_cast<std::uint16_t>(b))) * a;
                const double expected = oracle_round_half(product);
                const std::uint16_t got = h[2 * b].bits;
                const bool ok = expected == 0.0 ? (got & 0x7fff) == 0 : got == table.at(expected);
                if (!ok && mismatches++ < 5) CHECK_MESSAGE(ok, "float16 bits " << b << " -> " << got);
            }
            CHECK(mismatches == 0);

            // bfloat16: every pattern
            std::vector<posenc::bfloat16> bf(2 * 0x10000);
            for (std::uint32_t b = 0; b < 0x10000; ++b)
                bf[2 * b] = {static_cast<std::uint16_t>(b)}, bf[2 * b + 1] = {0};
            kernel_test::apply_on(
                path, spec, cache, positions,
                QKViews<posenc::bfloat16>::in_place(HeadsView<posenc::bfloat16>(bf, {0x10000, 1, 2})));
            mismatches = 0;
            for (std::uint32_t b = 0; b < 0x10000; ++b) {
                const float x = float_of_bits(b << 16);
                const float product = x * a;  // the one float rounding
                const float got = posenc::to_float(bf[2 * b]);
                bool ok;
                if (std::isnan(x)) ok = std::isnan(got);
                else if (std::isinf(product)) ok = got == product;
                else ok = static_cast<double>(got) == oracle_round_bfloat16(product);
                if (!ok && mismatches++ < 5) CHECK_MESSAGE(ok, "bfloat16 bits " << b << " -> " << got);
            }
            CHECK(mismatches == 0);
        }
    }
}

TEST_CASE("[IEEE 754] full registers: rows mixing subnormal, zero, infinite, NaN and normal 16-bit values round like "
          "the scalar conversion, every path and pairing")
{
    // 128-dim heads at position 0 (cos = a, sin = 0), so every output is round16(fl32(x * a)) of
    // its own input x, except that an infinite or NaN partner makes it NaN (partner * sin = NaN).
    // half_split: the first half of each head holds the values under test, the second half zeros
    // (partners always finite). interleaved: all 128 dims hold values under test. Each token is
    // one full register group, so some groups hold only normal values (a fast path may apply,
    // e.g. vcvtne2ps2bf16, which flushes subnormal inputs) and some a special value (an exact
    // path must). Expected values: the scalar conversions, checked against the oracle above.
    const double factor = 1.0 + std::ldexp(1.0, -9);
    const float a = static_cast<float>(factor);
    const std::ptrdiff_t tokens = 64;
    auto check_type = [&](auto tag, const kernel_test::ArchPath& path, posenc::Pairing pairing) {
        using T = decltype(tag);
        const posenc::RopeSpec spec(128, 128, 1e4, pairing);
        const CosSinCache cache(posenc::FrequencyTable(posenc::FrequencyTable::from_spec(spec).inv_freq(), factor), 1);
        const bool half = pairing == posenc::Pairing::half_split;
        const int tested_dims = half ? 64 : 128;
        std::mt19937 rng(77);
        std::vector<T> x(static_cast<std::size_t>(tokens * 128), posenc::store_from_float<T>(0.0f));
        for (std::ptrdiff_t t = 0; t < tokens; ++t)
            for (int d = 0; d < tested_dims; ++d) {
                std::uint16_t bits = static_cast<std::uint16_t>(0x3c00u + rng() % 0x0800u);  // normal (either format)
                const int mode = static_cast<int>(t % 8);
                if (mode == 1 && d == static_cast<int>(rng() % 64))
                    bits = static_cast<std::uint16_t>(1 + rng() % 0x3f);  // subnormal
                if (mode == 2 && d % 5 == 0) bits = static_cast<std::uint16_t>(rng() % 2 ? 0x8000 : 0);  // +-0
                if (mode == 3 && d == 7) bits = std::is_same_v<T, posenc::bfloat16> ? 0x7f80 : 0x7c00;  // +inf
                if (mode == 4 && d == 9) bits = std::is_same_v<T, posenc::bfloat16> ? 0xffc1 : 0xfe01;  // NaN
                if (mode == 5) bits = static_cast<std::uint16_t>(rng() % 0x10000);  // anything
                if (rng() % 2) bits = static_cast<std::uint16_t>(bits ^ 0x8000u);
                x[static_cast<std::size_t>(t * 128 + d)] = T {bits};
            }
        std::vector<T> y = x;
        const std::vector<std::int32_t> at_zero(static_cast<std::size_t>(tokens), 0);
        kernel_test::apply_on(path, spec, cache, PositionIds(at_zero),
                              QKViews<T>::in_place(HeadsView<T>(y, {tokens, 1, 128})));
        int mismatches = 0;
        for (std::size_t i = 0; i < x.size(); ++i) {
            const std::size_t d = i % 128, head = i - d;
            const std::size_t partner = half ? (d + 64) % 128 : d ^ 1u;
            const float in = posenc::load_as_float(x[i]);
            const float got = posenc::load_as_float(y[i]);
            const float want = std::isfinite(posenc::load_as_float(x[head + partner]))
                                   ? posenc::load_as_float(posenc::store_from_float<T>(in * a))
                                   : std::numeric_limits<float>::quiet_NaN();
            const bool ok = std::isnan(want) ? std::isnan(got) : got == want;
            if (!ok && mismatches++ < 5)
                CHECK_MESSAGE(ok, path.name << " " << kernel_test::type_name<T>()
                                            << (half ? " half_split" : " interleaved") << " element " << i << " got "
                                            << got << " want " << want);
        }
        CHECK(mismatches == 0);
    };
    for (const kernel_test::ArchPath& path : kernel_test::arch_paths())
        for (const posenc::Pairing pairing : {posenc::Pairing::half_split, posenc::Pairing::interleaved}) {
            check_type(posenc::bfloat16 {}, path, pairing);
            check_type(posenc::float16 {}, path, pairing);
        }
}

}  // namespace kernels_dtypes_rounding_tests
