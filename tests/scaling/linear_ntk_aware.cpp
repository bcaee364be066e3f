// SPDX-License-Identifier: MIT
// Position Interpolation (linear) and static NTK-aware scaling.
//
// Provenance: bloc97's bases for LLaMA (d 128, b 1e4) and the course model are P3 of
// docs/formulas.md (82,684.6 / 40,889.9 / 20,221.3 / 43,873.0), here to 17 digits from mpmath
// (tests/scaling/hf_reference_values.py); Qwen3 x4's 4,088,994.24 is lesson C2-5's; the per-pair
// ratio s^(-2i/(d-2)) is docs/formulas.md P3's closed form; the float32 values come from the
// script's independent emulation (default float32 table with fl(b'), resp. default (/) fl(s)).
#include <posenc/spec.hpp>
#include <posenc/scaling/scaling.hpp>

#include <doctest/doctest.h>

#include <cmath>

#include "scaling/checks.hpp"

namespace scaling_linear_ntk_aware_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

using posenc_test::relative_error;
using posenc_test::ulp_distance;

TEST_CASE("[NTK-aware bloc97] base' = b s^(d/(d-2)): LLaMA x8 82,684.6, x4 40,889.9, x2 20,221.3; d 32 x4 43,873.0")
{
    const posenc::RopeSpec llama(128, 128, 1e4);
    CHECK(relative_error(posenc::ntk_aware_base(llama, posenc::NtkAwareScaling(8.0)), 82684.622640562218) <= 1e-14);
    CHECK(relative_error(posenc::ntk_aware_base(llama, posenc::NtkAwareScaling(4.0)), 40889.942432486216) <= 1e-14);
    CHECK(relative_error(posenc::ntk_aware_base(llama, posenc::NtkAwareScaling(2.0)), 20221.261689737912) <= 1e-14);
    CHECK(relative_error(posenc::ntk_aware_base(posenc::RopeSpec(32, 32, 1e4), posenc::NtkAwareScaling(4.0)),
                         43872.999187785038) <= 1e-14);
    CHECK(relative_error(posenc::ntk_aware_base(posenc::RopeSpec(128, 128, 1e6), posenc::NtkAwareScaling(4.0)),
                         4088994.2432486216) <= 1e-14);
}

TEST_CASE("[NTK-aware] theta'_i / theta_i = s^(-2i/(d-2)): 1 for the fastest pair, exactly 1/s for the slowest")
{
    const posenc::RopeSpec spec(128, 128, 1e6);
    const posenc::FrequencyTable original = posenc::FrequencyTable::from_spec(spec);
    const posenc::FrequencyTable scaled = posenc::frequency_table(spec, posenc::NtkAwareScaling(4.0));
    for (int i = 0; i < 64; ++i) {
        CAPTURE(i);
        CHECK(relative_error(scaled.inv_freq(i) / original.inv_freq(i), std::pow(4.0, -2.0 * i / 126.0)) <= 1e-13);
    }
    CHECK(scaled.inv_freq(0) == 1.0);
    CHECK(scaled.attention_factor() == 1.0);
    // float32 (bloc97's patch: default float32 formula with fl(b')), independent emulation:
    const posenc::FrequencyTable f32 =
        posenc::frequency_table(spec, posenc::NtkAwareScaling(4.0), posenc::Precision::hf_float32);
    CHECK(ulp_distance(static_cast<float>(f32.inv_freq(1)), 0.788303554058075f) <= 2);
    CHECK(ulp_distance(static_cast<float>(f32.inv_freq(40)), 7.374620327027515e-05f) <= 2);
    CHECK(ulp_distance(static_cast<float>(f32.inv_freq(62)), 3.9354694081339403e-07f) <= 2);
    CHECK(relative_error(scaled.inv_freq(1), 0.78830356789278022) <= 1e-12);  // mpmath
    CHECK(relative_error(scaled.inv_freq(62), 3.9354691875519446e-7) <= 1e-12);
}

TEST_CASE("[PI Chen 2023 eq. 4] linear scaling: theta'_i = theta_i / s for every pair, attention factor 1")
{
    const posenc::RopeSpec spec(128, 128, 1e6);
    const posenc::FrequencyTable original = posenc::FrequencyTable::from_spec(spec);
    const posenc::FrequencyTable scaled = posenc::frequency_table(spec, posenc::LinearScaling(4.0));
    for (int i = 0; i < 64; ++i) CHECK(scaled.inv_freq(i) == original.inv_freq(i) / 4.0);
    CHECK(scaled.attention_factor() == 1.0);
    // Rotating position m under PI is rotating position m / s unscaled (s = 4, m = 4k).
    for (std::int64_t m : {4, 400, 131072, 4'000'000})
        for (int i : {0, 1, 40, 63})
            CHECK(posenc::reduced_angle(m, scaled.inv_freq(i)) ==
                  doctest::Approx(posenc::reduced_angle(m / 4, original.inv_freq(i))).epsilon(1e-12));
    // float32: default_j (/) fl(4), independent emulation.
    const posenc::FrequencyTable f32 =
        posenc::frequency_table(spec, posenc::LinearScaling(4.0), posenc::Precision::hf_float32);
    CHECK(ulp_distance(static_cast<float>(f32.inv_freq(1)), 0.2014605551958084f) <= 2);
    CHECK(ulp_distance(static_cast<float>(f32.inv_freq(40)), 4.4456985051510856e-05f) <= 2);
    CHECK(ulp_distance(static_cast<float>(f32.inv_freq(62)), 3.8498163235090033e-07f) <= 2);
}

}  // namespace scaling_linear_ntk_aware_tests
