// SPDX-License-Identifier: MIT
// Dynamic NTK against Hugging Face's semantics (docs/formulas.md H4) and the YaRN
// paper's dynamic scaling (docs/formulas.md P3).
//
// Provenance: the bases for R = 128, b = 1e4, L = 4096, s = 2 are H4's example
// (10004.96034, 30527.73675, 72195.86009), here to 15+ digits from Python double in HF's order
// (tests/scaling/hf_reference_values.py); the runtime float32 table at 8192 and its exact
// counterpart are from the same script (independent float32 emulation / mpmath).
#include <posenc/spec.hpp>
#include <posenc/scaling/scaling.hpp>

#include <doctest/doctest.h>

#include <cmath>

#include "scaling/checks.hpp"

namespace scaling_hf_dynamic_ntk_vectors_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

using posenc_test::relative_error;
using posenc_test::ulp_distance;

TEST_CASE("[HF dynamic] R 128, b 1e4, L 4096, s 2: base' 10000 at 4096, 10004.96034 at 4097, 30527.73675 at 8192, "
          "72195.86009 at 16384")
{
    const posenc::RopeSpec spec(128, 128, 1e4);
    const posenc::DynamicNtkScaling dynamic(2.0, 4096);
    CHECK(posenc::dynamic_ntk_base(spec, dynamic) == 10000.0);  // init: n = L
    CHECK(posenc::dynamic_ntk_base(spec, dynamic, 4096) == 10000.0);
    CHECK(posenc::dynamic_ntk_base(spec, dynamic, 100) == 10000.0);  // n = max(seq, L)
    CHECK(relative_error(posenc::dynamic_ntk_base(spec, dynamic, 4097), 10004.9603366797) <= 1e-14);
    CHECK(relative_error(posenc::dynamic_ntk_base(spec, dynamic, 8192), 30527.7367488067) <= 1e-14);
    CHECK(relative_error(posenc::dynamic_ntk_base(spec, dynamic, 16384), 72195.86008650938) <= 1e-14);
    CHECK(posenc::dynamic_ntk_base(spec, dynamic, 4097) == doctest::Approx(10004.96034).epsilon(1e-9));
    CHECK(posenc::dynamic_ntk_base(spec, dynamic, 8192) == doctest::Approx(30527.73675).epsilon(1e-9));
    CHECK(posenc::dynamic_ntk_base(spec, dynamic, 16384) == doctest::Approx(72195.86009).epsilon(1e-9));
}

TEST_CASE("[HF dynamic] the init table and every table up to L equal the default one")
{
    const posenc::RopeSpec spec(128, 128, 1e4);
    const posenc::DynamicNtkScaling dynamic(2.0, 4096);
    const posenc::FrequencyTable original = posenc::FrequencyTable::from_spec(spec);
    CHECK(posenc::frequency_table(spec, dynamic).inv_freq() == original.inv_freq());
    CHECK(posenc::frequency_table(spec, dynamic, 4096).inv_freq() == original.inv_freq());
    CHECK(posenc::frequency_table(spec, dynamic, 4097).inv_freq() != original.inv_freq());
    // float32 init = Hugging Face's default float32 table (H2 check value inv[1] = 0.865964353).
    const posenc::FrequencyTable f32 = posenc::frequency_table(spec, dynamic, posenc::Precision::hf_float32);
    CHECK(ulp_distance(static_cast<float>(f32.inv_freq(1)), 0.865964353f) <= 1);
    CHECK(ulp_distance(static_cast<float>(f32.inv_freq(63)), 0.000115478193f) <= 1);
}

TEST_CASE("[HF dynamic] the runtime recompute at 8192 in float32 (b'32 = 30527.740234375) and exact")
{
    const posenc::RopeSpec spec(128, 128, 1e4);
    const posenc::DynamicNtkScaling dynamic(2.0, 4096);
    const posenc::FrequencyTable f32 = posenc::frequency_table(spec, dynamic, 8192, posenc::Precision::hf_float32);
    const posenc::FrequencyTable exact = posenc::frequency_table(spec, dynamic, 8192);
    const struct {
        int pair;
        float hf32;
        double exact;
    } vectors[] = {{0, 1.0f, 1.0},
                   {1, 0.8509942889213562f, 0.85099429134121623},
                   {32, 0.005723381415009499f, 0.0057233815083812375},
                   {63, 3.8492726162075996e-05f, 3.8492732822981939e-5}};
    for (const auto& v : vectors) {
        CAPTURE(v.pair);
        CHECK(ulp_distance(static_cast<float>(f32.inv_freq(v.pair)), v.hf32) <= 2);
        CHECK(relative_error(exact.inv_freq(v.pair), v.exact) <= 1e-12);
    }
    // The float32 base rounds to 30527.740234375, so the slowest pair's float32 value is ~1.7e-7
    // relative below the exact one: much more than one ulp of its own.
    CHECK(relative_error(f32.inv_freq(63), exact.inv_freq(63)) > 1e-7);
}

TEST_CASE(
    "[YaRN paper / P3] dynamic NTK, HF schedule: d 32, b 1e4, L 128, factor 4, l 256 -> multiplier 5, base' 55,663.2")
{
    const posenc::RopeSpec spec(32, 32, 1e4);
    const double base = posenc::dynamic_ntk_base(spec, posenc::DynamicNtkScaling(4.0, 128), 256);
    CHECK(base == doctest::Approx(55663.2).epsilon(1e-6));
    CHECK(base == doctest::Approx(1e4 * std::pow(5.0, 32.0 / 30.0)).epsilon(1e-14));  // closed form
}

}  // namespace scaling_hf_dynamic_ntk_vectors_tests
