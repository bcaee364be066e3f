// SPDX-License-Identifier: MIT
// The two angle sources against angles.hpp's exactly reduced cos_sin (itself tested against
// mpmath in tests/reference/angles_reference.cpp, < 5e-15):
//   OnTheFlyAngles, any number of levels (1 = a full table, 2 = the high/low split, 3, 4): the
//   double digit products within L * 6e-15 of cos_sin, and every float row value within half an
//   ulp of float of it (plus that), at positions spread over [-(2^31 - 1), 2^31 - 1];
//   CosSinCache rows: float(cos_sin) exactly, for a window [first, first + N) as for [0, N).
// Memory of the split: (rows per level summed) * pairs * 16 bytes, as the header states.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernel_test_support.hpp"

namespace kernels_angle_sources_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using namespace posenc::kernels;

std::vector<std::int64_t> spread_positions(std::int64_t max_position)
{
    std::vector<std::int64_t> p {0, 1, 2, 4095, 4096, 131072, 1000000, 16777216, max_position, -1, -max_position};
    std::mt19937_64 rng(17);
    std::uniform_int_distribution<std::int64_t> any(-max_position, max_position);
    for (int i = 0; i < 300; ++i) p.push_back(any(rng));
    std::vector<std::int64_t> in_range;
    for (std::int64_t x : p)
        if (x >= -max_position && x <= max_position) in_range.push_back(x);
    return in_range;
}

}  // namespace

TEST_CASE("[angles.hpp] OnTheFlyAngles with 1 to 4 levels agrees with the exact cos_sin at positions up to 2^31 - 1")
{
    const posenc::RopeSpec spec(128, 128, 1e6);
    const posenc::FrequencyTable table(posenc::FrequencyTable::from_spec(spec).inv_freq(), 1.25);
    struct Setting {
        std::int64_t max_position;
        int levels;
    };
    for (Setting s : {Setting {4095, 1}, Setting {(std::int64_t {1} << 20) - 1, 2}, Setting {max_kernel_position, 2},
                      Setting {max_kernel_position, 0}, Setting {max_kernel_position, 4}}) {
        const OnTheFlyAngles angles(table, s.max_position, s.levels);
        CAPTURE(s.max_position);
        CAPTURE(angles.levels());
        double worst_double = 0, worst_float_excess = 0;
        for (std::int64_t m : spread_positions(s.max_position)) {
            float cos_row[64], sin_row[64];
            const AngleRow row = angles.row(xsimd::default_arch {}, m, 0, 64, cos_row, sin_row);
            for (int i = 0; i < 64; ++i) {
                const posenc::CosSin exact = posenc::cos_sin(table, m, i);
                const posenc::CosSin split = angles.cos_sin(m, i);
                worst_double =
                    std::max({worst_double, std::fabs(split.cos - exact.cos), std::fabs(split.sin - exact.sin)});
                const double c_err = std::fabs(row.cos[i] - exact.cos) - 0.5 * kernel_test::float_ulp(exact.cos);
                const double s_err = std::fabs(row.sin[i] - exact.sin) - 0.5 * kernel_test::float_ulp(exact.sin);
                worst_float_excess = std::max({worst_float_excess, c_err, s_err});
            }
        }
        CHECK(worst_double <= angles.levels() * 6e-15 * 1.25);
        CHECK(worst_float_excess <= angles.levels() * 6e-15 * 1.25);
    }
}

TEST_CASE(
    "[angles.hpp] default split of 2^31 - 1 is three 11-bit digits (4.5 MiB for 64 pairs); two levels take 96 MiB")
{
    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(posenc::RopeSpec(128, 128, 1e6));
    const OnTheFlyAngles automatic(table);
    CHECK(automatic.levels() == 3);
    CHECK(automatic.bits_per_level() == 11);
    CHECK(automatic.memory_bytes() == (2048 + 2048 + 512) * 64 * 16);  // the top digit is (2^31 - 1) >> 22 = 511
    const OnTheFlyAngles split(table, max_kernel_position, 2);
    CHECK(split.bits_per_level() == 16);
    CHECK(split.memory_bytes() == (65536 + 32768) * 64 * 16);
    const OnTheFlyAngles small(table, 32767);
    CHECK(small.levels() == 2);
    CHECK(small.memory_bytes() == (256 + 128) * 64 * 16);
}

TEST_CASE("[angles.hpp] CosSinCache rows are float(cos_sin) with the attention factor, for [0, N) and for a window "
          "[first, first + N)")
{
    const posenc::RopeSpec spec(64, 64, 1e4);
    const posenc::FrequencyTable table(posenc::FrequencyTable::from_spec(spec).inv_freq(), 0.8);
    const CosSinCache from_zero(table, 50);
    const CosSinCache window(table, 20, 2000000000);
    CHECK(from_zero.position_range().first == 0);
    CHECK(from_zero.position_range().last == 49);
    CHECK(window.position_range().first == 2000000000);
    CHECK(window.memory_bytes() == 20 * 64 * sizeof(float));
    for (std::int64_t m : {std::int64_t {0}, std::int64_t {49}})
        for (int i = 0; i < 32; ++i) {
            CHECK(from_zero.cos_row(m)[i] == static_cast<float>(posenc::cos_sin(table, m, i).cos));
            CHECK(from_zero.sin_row(m)[i] == static_cast<float>(posenc::cos_sin(table, m, i).sin));
        }
    for (std::int64_t m : {std::int64_t {2000000000}, std::int64_t {2000000019}})
        for (int i = 0; i < 32; ++i) {
            CHECK(window.cos_row(m)[i] == static_cast<float>(posenc::cos_sin(table, m, i).cos));
            CHECK(window.sin_row(m)[i] == static_cast<float>(posenc::cos_sin(table, m, i).sin));
        }
}

}  // namespace kernels_angle_sources_tests
