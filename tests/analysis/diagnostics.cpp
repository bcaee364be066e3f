// SPDX-License-Identifier: MIT
// The per-pair diagnostics' definitions (include/posenc/analysis/diagnostics.hpp), checked as
// identities and closed forms; the lesson's own numbers are in tests/lessons/c2_5_long_context.cpp.
#include <posenc/analysis/diagnostics.hpp>
#include <posenc/models/presets.hpp>
#include <posenc/spec.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "scaling/checks.hpp"

namespace analysis_diagnostics_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

using posenc_test::message_of;

TEST_CASE("[diagnostics] fields follow their formulas: period 2pi/theta, turns L theta / 2pi, compression theta'/theta")
{
    const posenc::RopeSpec spec(128, 128, 1e6);
    const posenc::ExtensionDiagnostics d =
        posenc::extension_diagnostics(spec, posenc::YarnScaling(4.0, 32768), 32768, 131072);
    CHECK(d.scaling_type == "yarn");
    CHECK(d.head_dim == 128);
    CHECK(d.rotary_dim == 128);
    CHECK(d.base == 1e6);
    CHECK(d.pairing == posenc::Pairing::half_split);
    CHECK(d.training_length == 32768);
    CHECK(d.target_length == 131072);
    CHECK(d.attention_factor == doctest::Approx(0.1 * std::log(4.0) + 1.0).epsilon(1e-15));
    CHECK(d.softmax_scale_multiplier == 1.0);
    REQUIRE(d.pairs.size() == 64);
    CHECK(d.summary.pairs == 64);
    const double two_pi = 6.283185307179586;
    for (const posenc::PairDiagnostics& p : d.pairs) {
        CAPTURE(p.index);
        CHECK(p.inv_freq_original == std::pow(1e6, -2.0 * p.index / 128.0));
        CHECK(p.period_original == doctest::Approx(two_pi / p.inv_freq_original).epsilon(1e-15));
        CHECK(p.period == doctest::Approx(two_pi / p.inv_freq).epsilon(1e-15));
        CHECK(p.turns_original == doctest::Approx(32768.0 * p.inv_freq_original / two_pi).epsilon(1e-15));
        CHECK(p.completes_turn == (p.turns_original >= 1.0));
        CHECK(p.max_angle_training == 32768.0 * p.inv_freq_original);
        CHECK(p.max_angle_target == 131072.0 * p.inv_freq);
        CHECK(p.compression == p.inv_freq / p.inv_freq_original);
    }
}

TEST_CASE(
    "[diagnostics] direct extrapolation: every pair that never turned is out of range once L' > L, none at L' = L")
{
    const posenc::RopeSpec spec(64, 64, 1e4);
    const posenc::ExtensionDiagnostics longer = posenc::extension_diagnostics(spec, posenc::NoScaling {}, 1000, 1001);
    CHECK(longer.summary.out_of_range_pairs == longer.summary.incomplete_pairs);
    CHECK(longer.summary.compressed_pairs == 0);
    const posenc::ExtensionDiagnostics same = posenc::extension_diagnostics(spec, posenc::NoScaling {}, 1000, 1000);
    CHECK(same.summary.out_of_range_pairs == 0);
    // The 1e-9 relative tolerance: L' = L + 1 with L = 1e10 (excess 1e-10) stays in range, L' = L + 100
    // (1e-8) does not. Base 1e20 so that pairs 15..31 never turn within 1e10 tokens.
    const posenc::RopeSpec slow(64, 64, 1e20);
    const std::int64_t L = 10'000'000'000;
    const posenc::ExtensionDiagnostics edge = posenc::extension_diagnostics(slow, posenc::NoScaling {}, L, L + 1);
    CHECK(edge.summary.incomplete_pairs == 17);
    CHECK(edge.summary.out_of_range_pairs == 0);
    const posenc::ExtensionDiagnostics over = posenc::extension_diagnostics(slow, posenc::NoScaling {}, L, L + 100);
    CHECK(over.summary.out_of_range_pairs == over.summary.incomplete_pairs);
}

TEST_CASE("[diagnostics] DeepSeek-V3's softmax multiplier g(40)^2 and dynamic NTK evaluated at the target length")
{
    const posenc::ExtensionDiagnostics ds = posenc::extension_diagnostics(
        posenc::models::deepseek_v3.rope_spec(), posenc::models::deepseek_v3.scaling(), 4096, 163840);
    CHECK(ds.softmax_scale_multiplier == doctest::Approx(1.3688879454113936 * 1.3688879454113936).epsilon(1e-15));
    CHECK(ds.attention_factor == 1.0);
    CHECK(ds.summary.out_of_range_pairs == 0);
    // Dynamic NTK's table at L' = 8192 uses base' = 30527.7367488067 (docs/formulas.md H4).
    const posenc::RopeSpec spec(128, 128, 1e4);
    const posenc::ExtensionDiagnostics dyn =
        posenc::extension_diagnostics(spec, posenc::DynamicNtkScaling(2.0, 4096), 4096, 8192);
    CHECK(dyn.pairs[1].inv_freq == doctest::Approx(std::pow(30527.7367488067, -2.0 / 128.0)).epsilon(1e-14));
}

TEST_CASE("[diagnostics] any two tables; mismatched pair counts and non-positive lengths are errors")
{
    const posenc::FrequencyTable a({1.0, 0.1, 0.01});
    const posenc::FrequencyTable b({1.0, 0.05, 0.005});
    const posenc::ExtensionDiagnostics d = posenc::diagnose_tables(a, b, 100, 200);
    CHECK(d.scaling_type == "custom");
    CHECK(d.compressed_indices() == std::vector<int> {1, 2});
    CHECK(d.out_of_range_indices().empty());  // pair 2: 200 * 0.005 = 100 * 0.01, the boundary
    CHECK(message_of([&] { posenc::diagnose_tables(a, posenc::FrequencyTable({1.0}), 100, 200); }) ==
          "scaled.num_pairs 1 must equal original.num_pairs 3");
    CHECK(message_of([&] { posenc::diagnose_tables(a, b, 0, 200); }) == "training_length 0 must be > 0");
    CHECK(message_of([&] {
              posenc::extension_diagnostics(posenc::RopeSpec(8, 8, 1e4), posenc::NoScaling {}, 100, -1);
          }) == "target_length -1 must be > 0");
}

}  // namespace analysis_diagnostics_tests

namespace analysis_diagnostics_tests {

TEST_CASE("[proportional] Gemma 4 full attention: 192 zero-frequency pairs are neither incomplete, out of range nor "
          "compressed")
{
    // Expected: K = int(0.25 * 512 // 2) = 64 rotated pairs (transformers' rule), the other 192
    // have frequency 0; factor 1 changes nothing, factor 8 compresses exactly the 64 rotated pairs.
    const posenc::RopeSpec spec = posenc::RopeSpec::full(512, 1e6);
    const posenc::ExtensionDiagnostics plain =
        posenc::extension_diagnostics(spec, posenc::ProportionalScaling(0.25), 131072, 262144);
    CHECK(plain.summary.zero_freq_pairs == 192);
    CHECK(plain.summary.compressed_pairs == 0);
    CHECK(plain.pairs[100].zero_freq);
    CHECK(plain.pairs[100].compression == 1.0);
    CHECK(!plain.pairs[100].out_of_range);
    CHECK(std::isinf(plain.pairs[100].period));
    CHECK(!plain.pairs[63].zero_freq);
    // Rotated pairs that never turn within 131,072: theta_i < 2 pi / 131072, i.e. 1e6^(-i/256) < 4.79e-5,
    // i > 256 ln(2.0861e4) / ln(1e6) = 184.2: none of the 64 rotated pairs.
    CHECK(plain.summary.incomplete_pairs == 0);
    const posenc::ExtensionDiagnostics scaled =
        posenc::extension_diagnostics(spec, posenc::ProportionalScaling(0.25, 8.0), 131072, 262144);
    CHECK(scaled.summary.compressed_pairs == 64);
    CHECK(scaled.summary.zero_freq_pairs == 192);
    CHECK(scaled.pairs[1].compression == doctest::Approx(0.125).epsilon(1e-15));
}

}  // namespace analysis_diagnostics_tests
