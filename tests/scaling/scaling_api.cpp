// SPDX-License-Identifier: MIT
// The Scaling variant's shared API: type names (used by the CLI and its JSON), resolved
// parameters, factors, the unscaled table in both precisions, and the precision-aware cos/sin.
// Expected values: the names are the type names of docs/formulas.md and docs/cli.md; the float32 default values are
// docs/formulas.md H2's check values; the YaRN temperature is the closed form
// 0.1 ln s + 1 of YaRN eq. 22 (docs/formulas.md P3: s = 4 -> 1.1386).
#include <posenc/models/presets.hpp>
#include <posenc/scaling/scaling.hpp>
#include <posenc/spec.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "scaling/checks.hpp"

namespace scaling_scaling_api_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

using posenc_test::ulp_distance;

TEST_CASE("[api] scaling_type_name: none, linear, ntk_aware, dynamic, yarn, llama3, longrope")
{
    const std::vector<double> ones(2, 1.0);
    CHECK(std::string(posenc::scaling_type_name(posenc::NoScaling {})) == "none");
    CHECK(std::string(posenc::scaling_type_name(posenc::LinearScaling(2.0))) == "linear");
    CHECK(std::string(posenc::scaling_type_name(posenc::NtkAwareScaling(2.0))) == "ntk_aware");
    CHECK(std::string(posenc::scaling_type_name(posenc::DynamicNtkScaling(2.0, 4096))) == "dynamic");
    CHECK(std::string(posenc::scaling_type_name(posenc::YarnScaling(2.0, 4096))) == "yarn");
    CHECK(std::string(posenc::scaling_type_name(posenc::Llama3Scaling(8.0, 1.0, 4.0, 8192))) == "llama3");
    CHECK(std::string(posenc::scaling_type_name(posenc::LongRopeScaling(ones, ones, 4096, 2.0))) == "longrope");
}

TEST_CASE("[api] factor, original length, attention factor and softmax multiplier of each kind")
{
    CHECK(posenc::scaling_factor(posenc::NoScaling {}) == 1.0);
    CHECK(posenc::scaling_factor(posenc::YarnScaling(4.0, 32768)) == 4.0);
    CHECK(!posenc::scaling_original_length(posenc::LinearScaling(4.0)));
    CHECK(posenc::scaling_original_length(posenc::YarnScaling(4.0, 32768)) == 32768);
    CHECK(posenc::scaling_original_length(posenc::DynamicNtkScaling(2.0, 4096)) == 4096);
    CHECK(posenc::scaling_attention_factor(posenc::LinearScaling(4.0)) == 1.0);
    CHECK(posenc::scaling_attention_factor(posenc::YarnScaling(4.0, 32768)) ==
          doctest::Approx(0.1 * std::log(4.0) + 1.0).epsilon(1e-15));
    CHECK(posenc::scaling_attention_factor(posenc::YarnScaling(4.0, 32768).with_attention_factor(0.9)) == 0.9);
    CHECK(posenc::softmax_scale_multiplier(posenc::YarnScaling(4.0, 32768)) == 1.0);  // mscale_all_dim unset
    CHECK(posenc::softmax_scale_multiplier(posenc::YarnScaling(40.0, 4096).with_mscale(1.0, 1.0)) ==
          doctest::Approx(1.3688879454113936 * 1.3688879454113936).epsilon(1e-15));
    CHECK(posenc::softmax_scale_multiplier(posenc::Llama3Scaling(8.0, 1.0, 4.0, 8192)) == 1.0);
}

TEST_CASE("[api] scaling_parameters lists Hugging Face's keys with typed values")
{
    const std::vector<posenc::ScalingParameter> params = posenc::scaling_parameters(
        posenc::YarnScaling(32.0, 4096).with_rounding(posenc::YarnCorrectionRounding::fractional));
    std::vector<std::string> names;
    for (const auto& p : params) names.push_back(p.name);
    CHECK(names == std::vector<std::string> {"factor", "original_max_position_embeddings", "beta_fast", "beta_slow",
                                             "mscale", "mscale_all_dim", "truncate", "attention_factor"});
    CHECK(std::get<double>(params[0].value) == 32.0);
    CHECK(std::get<std::int64_t>(params[1].value) == 4096);
    CHECK(std::get<bool>(params[6].value) == false);
    CHECK(std::get<double>(params[7].value) == doctest::Approx(0.1 * std::log(32.0) + 1.0).epsilon(1e-15));
    CHECK(posenc::scaling_parameters(posenc::NoScaling {}).empty());
    const auto phi3 = posenc::scaling_parameters(posenc::models::phi_3_mini_128k.scaling());
    CHECK(phi3.back().name == "long_factor");
    CHECK(std::get<std::vector<double>>(phi3.back().value).size() == 48);
}

TEST_CASE("[HF default] NoScaling: exact table = FrequencyTable::from_spec; float32 = HF's check values within 1 ulp")
{
    const posenc::RopeSpec spec(128, 128, 1e4);
    CHECK(posenc::frequency_table(spec, posenc::NoScaling {}).inv_freq() ==
          posenc::FrequencyTable::from_spec(spec).inv_freq());
    const posenc::FrequencyTable f32 =
        posenc::frequency_table(spec, posenc::NoScaling {}, posenc::Precision::hf_float32);
    // H2 (docs/formulas.md): inv[0] = 1, inv[1] = 0.865964353, inv[2] = 0.749894202,
    // inv[32] = 0.00999999978, inv[63] = 0.000115478193.
    CHECK(f32.inv_freq(0) == 1.0);
    CHECK(ulp_distance(static_cast<float>(f32.inv_freq(1)), 0.865964353f) <= 1);
    CHECK(ulp_distance(static_cast<float>(f32.inv_freq(2)), 0.749894202f) <= 1);
    CHECK(ulp_distance(static_cast<float>(f32.inv_freq(32)), 0.00999999978f) <= 1);
    CHECK(ulp_distance(static_cast<float>(f32.inv_freq(63)), 0.000115478193f) <= 1);
    // Every float32-mode value is a float32 number.
    for (double x : f32.inv_freq()) CHECK(static_cast<double>(static_cast<float>(x)) == x);
}

TEST_CASE("[api] precision names and the float32 cos/sin multiply by fl(attention factor)")
{
    CHECK(std::string(posenc::to_string(posenc::Precision::exact)) == "exact");
    CHECK(std::string(posenc::to_string(posenc::Precision::hf_float32)) == "hf_float32");
    // Position 0: angle 0, so cos = fl(1) (x) fl(factor) = fl(factor), sin = 0.
    const posenc::RopeSpec spec(128, 128, 1e6);
    const posenc::FrequencyTable f32 =
        posenc::frequency_table(spec, posenc::YarnScaling(4.0, 32768), posenc::Precision::hf_float32);
    const posenc::CosSin cs = posenc::cos_sin(f32, 0, 5, posenc::Precision::hf_float32);
    CHECK(cs.cos == static_cast<double>(static_cast<float>(1.138629436111989)));
    CHECK(cs.sin == 0.0);
    // Exact mode at position 0: the double factor itself.
    CHECK(posenc::cos_sin(f32, 0, 5, posenc::Precision::exact).cos == 1.138629436111989);
}

}  // namespace scaling_scaling_api_tests
