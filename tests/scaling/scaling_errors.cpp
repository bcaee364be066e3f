// SPDX-License-Identifier: MIT
// Invalid scalings: each throws posenc::error "<field> <value> <rule>" when it is built (or, for
// what needs the spec, when a table is built). Rules: include/posenc/scaling/common.hpp and each
// method's header; the cases: factor < 1, beta_fast <= beta_slow, non-positive
// lengths, wrong LongRoPE list lengths, low_freq_factor >= high_freq_factor, NaN anywhere).
#include <posenc/spec.hpp>
#include <posenc/scaling/scaling.hpp>

#include <doctest/doctest.h>

#include <limits>
#include <vector>

#include "scaling/checks.hpp"

namespace scaling_scaling_errors_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

using posenc_test::message_of;

namespace {
constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();
constexpr double infinity = std::numeric_limits<double>::infinity();
}  // namespace

TEST_CASE("[errors] factor < 1, NaN, infinite or beyond float32, for every factor-based method")
{
    CHECK(message_of([] { return posenc::LinearScaling(0.5); }) ==
          "linear.factor 0.5 must be >= 1 and finite in float32");
    CHECK(message_of([] { return posenc::LinearScaling(not_a_number); }) ==
          "linear.factor nan must be >= 1 and finite in float32");
    CHECK(message_of([] { return posenc::NtkAwareScaling(-2.0); }) ==
          "ntk_aware.factor -2 must be >= 1 and finite in float32");
    CHECK(message_of([] { return posenc::NtkAwareScaling(infinity); }) ==
          "ntk_aware.factor inf must be >= 1 and finite in float32");
    CHECK(message_of([] { return posenc::DynamicNtkScaling(0.0, 4096); }) ==
          "dynamic.factor 0 must be >= 1 and finite in float32");
    CHECK(message_of([] { return posenc::YarnScaling(0.99, 32768); }) ==
          "yarn.factor 0.99 must be >= 1 and finite in float32");
    CHECK(message_of([] { return posenc::YarnScaling(1e308, 32768); }) ==
          "yarn.factor 1e+308 must be >= 1 and finite in float32");
    CHECK(message_of([] { return posenc::Llama3Scaling(not_a_number, 1.0, 4.0, 8192); }) ==
          "llama3.factor nan must be >= 1 and finite in float32");
    const std::vector<double> ones(4, 1.0);
    CHECK(message_of([&] { return posenc::LongRopeScaling(ones, ones, 4096, 0.5); }) ==
          "longrope.factor 0.5 must be >= 1 and finite in float32");
    // factor 1 is the identity, accepted.
    CHECK(message_of([] { return posenc::LinearScaling(1.0); }) == "(no error)");
}

TEST_CASE("[errors] non-positive lengths")
{
    CHECK(message_of([] { return posenc::YarnScaling(4.0, 0); }) ==
          "yarn.original_max_position_embeddings 0 must be > 0");
    CHECK(message_of([] { return posenc::YarnScaling(4.0, -32768); }) ==
          "yarn.original_max_position_embeddings -32768 must be > 0");
    CHECK(message_of([] { return posenc::DynamicNtkScaling(2.0, 0); }) ==
          "dynamic.max_position_embeddings 0 must be > 0");
    CHECK(message_of([] { return posenc::Llama3Scaling(8.0, 1.0, 4.0, -1); }) ==
          "llama3.original_max_position_embeddings -1 must be > 0");
    const std::vector<double> ones(4, 1.0);
    CHECK(message_of([&] { return posenc::LongRopeScaling(ones, ones, 1, 2.0); }) ==
          "longrope.original_max_position_embeddings 1 must be > 1 (the attention factor divides by ln L0)");
    CHECK(message_of([] { return posenc::YarnScaling(4.0, 32768).with_g2_factor_override(0); }) ==
          "yarn.max_position_embeddings 0 must be > 0");
    // The transformers 4.48-4.55 override's L / L0 below 1 is a factor below 1.
    CHECK(message_of([] { return posenc::YarnScaling(4.0, 32768).with_g2_factor_override(16384); }) ==
          "yarn.factor 0.5 must be >= 1 and finite in float32");
    const posenc::RopeSpec spec(128, 128, 1e4);
    CHECK(message_of([&] { return posenc::frequency_table(spec, posenc::DynamicNtkScaling(2.0, 4096), 0); }) ==
          "sequence_length 0 must be > 0");
    CHECK(message_of([&] { return posenc::frequency_table(spec, posenc::YarnScaling(2.0, 4096), -5); }) ==
          "sequence_length -5 must be > 0");
}

TEST_CASE("[errors] YaRN: beta_fast < beta_slow, bad betas, mscale, attention factor, rounding")
{
    const posenc::YarnScaling yarn(4.0, 32768);
    CHECK(message_of([&] { yarn.with_betas(1.0, 1.0); }) == "(no error)");  // Kimi K2's betas: an empty ramp
    CHECK(message_of([&] { yarn.with_betas(1.0, 32.0); }) == "yarn.beta_fast 1 must be >= beta_slow 32");
    CHECK(message_of([&] { yarn.with_betas(0.0, -1.0); }) == "yarn.beta_fast 0 must be finite and > 0");
    CHECK(message_of([&] { yarn.with_betas(32.0, not_a_number); }) == "yarn.beta_slow nan must be finite and > 0");
    CHECK(message_of([&] { yarn.with_betas(infinity, 1.0); }) == "yarn.beta_fast inf must be finite and > 0");
    CHECK(message_of([&] { yarn.with_mscale(-1.0, 1.0); }) == "yarn.mscale -1 must be finite and >= 0");
    CHECK(message_of([&] { yarn.with_mscale(1.0, not_a_number); }) ==
          "yarn.mscale_all_dim nan must be finite and >= 0");
    CHECK(message_of([&] { yarn.with_attention_factor(0.0); }) == "yarn.attention_factor 0 must be finite and > 0");
    CHECK(message_of([&] { yarn.with_attention_factor(not_a_number); }) ==
          "yarn.attention_factor nan must be finite and > 0");
    CHECK(message_of([&] { yarn.with_rounding(static_cast<posenc::YarnCorrectionRounding>(7)); }) ==
          "yarn.rounding 7 must be YarnCorrectionRounding::floor_ceil or YarnCorrectionRounding::fractional");
    // A failed with_... leaves the original untouched (value semantics).
    CHECK(yarn.beta_fast() == 32.0);
    CHECK(yarn.beta_slow() == 1.0);
}

TEST_CASE("[errors] Llama 3: low_freq_factor > high_freq_factor, non-positive or NaN band factors")
{
    // Equal factors are Llama 4's step (no smoothed band) and are accepted.
    CHECK(posenc::Llama3Scaling(16.0, 1.0, 1.0, 8192).low_freq_factor() == 1.0);
    CHECK(message_of([] { return posenc::Llama3Scaling(8.0, 4.0, 1.0, 8192); }) ==
          "llama3.low_freq_factor 4 must be <= high_freq_factor 1");
    CHECK(message_of([] { return posenc::Llama3Scaling(8.0, 0.0, 4.0, 8192); }) ==
          "llama3.low_freq_factor 0 must be > 0 and finite in float32");
    CHECK(message_of([] { return posenc::Llama3Scaling(8.0, 1.0, not_a_number, 8192); }) ==
          "llama3.high_freq_factor nan must be > 0 and finite in float32");
}

TEST_CASE("[errors] LongRoPE: list lengths (against each other and against rotary_dim / 2), entries, attention factor")
{
    const std::vector<double> forty_eight(48, 1.5);
    const std::vector<double> forty_seven(47, 1.5);
    CHECK(message_of([&] { return posenc::LongRopeScaling(forty_eight, forty_seven, 4096, 32.0); }) ==
          "longrope.long_factor.size 47 must equal short_factor.size 48");
    CHECK(message_of([&] { return posenc::LongRopeScaling({}, {}, 4096, 32.0); }) ==
          "longrope.short_factor.size 0 must be > 0");
    std::vector<double> bad = forty_eight;
    bad[3] = not_a_number;
    CHECK(message_of([&] { return posenc::LongRopeScaling(bad, forty_eight, 4096, 32.0); }) ==
          "longrope.short_factor[3] nan must be > 0 and finite in float32");
    bad[3] = -1.0;
    CHECK(message_of([&] { return posenc::LongRopeScaling(forty_eight, bad, 4096, 32.0); }) ==
          "longrope.long_factor[3] -1 must be > 0 and finite in float32");
    bad[3] = 0.0;
    CHECK(message_of([&] { return posenc::LongRopeScaling(forty_eight, bad, 4096, 32.0); }) ==
          "longrope.long_factor[3] 0 must be > 0 and finite in float32");
    CHECK(message_of([&] {
              return posenc::LongRopeScaling(forty_eight, forty_eight, 4096, 32.0).with_attention_factor(-1.0);
          }) == "longrope.attention_factor -1 must be finite and > 0");
    // 47 entries are fine on their own, but not for a spec with 48 pairs (R = 96).
    const posenc::LongRopeScaling short_lists(forty_seven, forty_seven, 4096, 32.0);
    const posenc::RopeSpec phi3(96, 96, 1e4);
    CHECK(message_of([&] { return posenc::frequency_table(phi3, short_lists); }) ==
          "longrope.short_factor.size 47 must equal rotary_dim / 2 = 48");
    CHECK(message_of([&] { return posenc::frequency_table(phi3, short_lists, 8192, posenc::Precision::hf_float32); }) ==
          "longrope.short_factor.size 47 must equal rotary_dim / 2 = 48");
}

TEST_CASE("[errors] what only the spec reveals: rotary_dim 2 for NTK bases, overflowing bases, float32 range")
{
    const posenc::RopeSpec two(2, 2, 1e4);
    CHECK(message_of([&] { return posenc::frequency_table(two, posenc::NtkAwareScaling(4.0)); }) ==
          "rotary_dim 2 must be > 2 for ntk_aware scaling (exponent R / (R - 2))");
    CHECK(message_of([&] { return posenc::frequency_table(two, posenc::DynamicNtkScaling(2.0, 4096), 8192); }) ==
          "rotary_dim 2 must be > 2 for dynamic scaling (exponent R / (R - 2))");
    // b' = 1e300 * (3e38)^2 overflows double.
    const posenc::RopeSpec huge(4, 4, 1e300);
    CHECK(message_of([&] { return posenc::frequency_table(huge, posenc::NtkAwareScaling(3e38)); }) ==
          "ntk_aware.scaled_base inf must be finite");
    // 1e300 * (1e15 * 1e6 - (1e15 - 1))^2 = 1e300 * 1e42 overflows too.
    CHECK(message_of([&] { return posenc::frequency_table(huge, posenc::DynamicNtkScaling(1e15, 1), 1'000'000); }) ==
          "dynamic.scaled_base inf must be finite");
    // Hugging Face rounds the base to float32.
    const posenc::RopeSpec beyond(128, 128, 1e39);
    CHECK(message_of([&] {
              return posenc::frequency_table(beyond, posenc::NoScaling {}, posenc::Precision::hf_float32);
          }) == "base 1e+39 must be finite in float32 for Precision::hf_float32");
    CHECK(message_of([&] {
              return posenc::frequency_table(beyond, posenc::YarnScaling(4.0, 4096), posenc::Precision::hf_float32);
          }) == "base 1e+39 must be finite in float32 for Precision::hf_float32");
    CHECK(message_of([&] { return posenc::frequency_table(beyond, posenc::YarnScaling(4.0, 4096)); }) == "(no error)");
    CHECK(message_of([] { return posenc::deepseek_softmax_scale(0, posenc::YarnScaling(40.0, 4096)); }) ==
          "qk_head_dim 0 must be > 0");
}

}  // namespace scaling_scaling_errors_tests
