// SPDX-License-Identifier: MIT
// Invalid specs and tables: each throws posenc::error whose message names the field, the value
// and the rule (checked once, at the public entry point): zero, odd or negative sizes, bases <= 1 or
// not finite, partial rotary factors out of range.
#include <posenc/frequencies.hpp>
#include <posenc/models/presets.hpp>
#include <posenc/rotation.hpp>
#include <posenc/spec.hpp>

#include <doctest/doctest.h>

#include "support/error_messages.hpp"

#include <limits>
#include <string>

namespace errors_spec_errors_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {
using test_support::infinity;
using test_support::message_of;
using test_support::not_a_number;
}  // namespace

TEST_CASE("[errors] RopeSpec names the field, the value and the rule")
{
    using posenc::RopeSpec;
    CHECK(message_of([] { RopeSpec(128, 127, 1e4); }) == "rotary_dim 127 must be even");
    CHECK(message_of([] { RopeSpec(128, 0, 1e4); }) == "rotary_dim 0 must be > 0");
    CHECK(message_of([] { RopeSpec(128, -4, 1e4); }) == "rotary_dim -4 must be > 0");
    CHECK(message_of([] { RopeSpec(128, 130, 1e4); }) == "rotary_dim 130 must be <= head_dim 128");
    CHECK(message_of([] { RopeSpec(0, 2, 1e4); }) == "head_dim 0 must be > 0");
    CHECK(message_of([] { RopeSpec(-64, 2, 1e4); }) == "head_dim -64 must be > 0");
    CHECK(message_of([] { RopeSpec(128, 128, 1.0); }) == "base 1 must be finite and > 1");
    CHECK(message_of([] { RopeSpec(128, 128, 0.5); }) == "base 0.5 must be finite and > 1");
    CHECK(message_of([] { RopeSpec(128, 128, not_a_number); }) == "base nan must be finite and > 1");
    CHECK(message_of([] { RopeSpec(128, 128, infinity); }) == "base inf must be finite and > 1");
    CHECK(message_of([] { RopeSpec(128, 128, -1e4); }) == "base -10000 must be finite and > 1");
    CHECK(message_of([] { RopeSpec(128, 128, 1e4, static_cast<posenc::Pairing>(7)); }) ==
          "pairing 7 must be Pairing::half_split or Pairing::interleaved");
}

TEST_CASE("[errors] partial_rotary_factor outside (0, 1], and truncations that give an odd or zero rotary_dim")
{
    using posenc::RopeSpec;
    CHECK(message_of([] { RopeSpec::from_partial_rotary_factor(128, 0.0, 1e4); }) ==
          "partial_rotary_factor 0 must be in (0, 1]");
    CHECK(message_of([] { RopeSpec::from_partial_rotary_factor(128, 1.5, 1e4); }) ==
          "partial_rotary_factor 1.5 must be in (0, 1]");
    CHECK(message_of([] { RopeSpec::from_partial_rotary_factor(128, -0.25, 1e4); }) ==
          "partial_rotary_factor -0.25 must be in (0, 1]");
    CHECK(message_of([] { RopeSpec::from_partial_rotary_factor(128, not_a_number, 1e4); }) ==
          "partial_rotary_factor nan must be in (0, 1]");
    // int(100 * 0.29) = int(28.999999999999996) = 28 (Hugging Face's truncation), which is even: accepted.
    CHECK(RopeSpec::from_partial_rotary_factor(100, 0.29, 1e4).rotary_dim() == 28);
    // int(100 * 0.27) = 27: odd.
    CHECK(message_of([] { RopeSpec::from_partial_rotary_factor(100, 0.27, 1e4); }) == "rotary_dim 27 must be even");
    CHECK(message_of([] { RopeSpec::from_partial_rotary_factor(8, 0.1, 1e4); }) == "rotary_dim 0 must be > 0");
}

TEST_CASE("[HF partial rotary] rotary_dim = int(head_dim * factor): Pythia 64 -> 16, Phi-2 80 -> 32, GLM-4 128 -> 64")
{
    // H10,  (docs/formulas.md)partial rotary examples.
    CHECK(posenc::RopeSpec::from_partial_rotary_factor(64, 0.25, 1e4).rotary_dim() == 16);
    CHECK(posenc::RopeSpec::from_partial_rotary_factor(80, 0.4, 1e4).rotary_dim() == 32);
    CHECK(posenc::RopeSpec::from_partial_rotary_factor(128, 0.5, 1e4).rotary_dim() == 64);
    CHECK(posenc::RopeSpec::from_partial_rotary_factor(96, 0.25, 1e4).rotary_dim() == 24);  // GPT-NeoX-20B
}

TEST_CASE("[errors] FrequencyTable, the reference apply and the preset lookup")
{
    CHECK(message_of([] { posenc::FrequencyTable(std::vector<double> {}); }) == "inv_freq.size 0 must be > 0");
    CHECK(message_of([] {
              posenc::FrequencyTable(std::vector<double> {1.0, not_a_number});
          }) == "inv_freq[1] nan must be finite and >= 0");
    CHECK(message_of([] {
              posenc::FrequencyTable(std::vector<double> {1.0, -0.5});
          }) == "inv_freq[1] -0.5 must be finite and >= 0");
    CHECK(message_of([] { posenc::FrequencyTable(std::vector<double> {1.0}, 0.0); }) ==
          "attention_factor 0 must be finite and > 0");
    CHECK(message_of([] { posenc::FrequencyTable(std::vector<double> {1.0}, infinity); }) ==
          "attention_factor inf must be finite and > 0");

    const posenc::RopeSpec spec(8, 8, 1e4);
    const posenc::FrequencyTable three({1.0, 0.1, 0.01});
    float head[8] = {};
    CHECK(message_of([&] { posenc::apply_rope_reference(spec, three, head, 1); }) ==
          "table.num_pairs 3 must equal spec.num_pairs 4 (rotary_dim / 2)");
    Eigen::VectorXd short_head(6);
    CHECK(message_of([&] {
              posenc::apply_rope_reference(spec, posenc::FrequencyTable::from_spec(spec), short_head, 1);
          }) == "head.size 6 must equal head_dim 8");

    CHECK(message_of([] { posenc::models::gpt2.rope_spec(); }) ==
          "preset \"gpt2\" uses a learned position table, not RoPE");
    CHECK(message_of([] {
              posenc::models::find_preset("llama-9");
          }).rfind("preset \"llama-9\" is not a known preset", 0) == 0);
}

TEST_CASE("[lesson C2-2 #8] GPT-2's learned position table has 1,024 x 768 = 786,432 parameters")
{
    CHECK(posenc::models::gpt2.learned_table_parameters() == 786'432);
    CHECK(posenc::models::qwen3_8b.learned_table_parameters() == 0);
}

}  // namespace errors_spec_errors_tests
