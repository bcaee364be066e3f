// SPDX-License-Identifier: MIT
// Proportional RoPE (Gemma 4's full-attention layers) against Hugging Face's
// `_compute_proportional_rope_parameters`.
//
// Provenance: every expected number comes from tests/scaling/proportional_reference_values.py
// (mpmath at 60 digits for the exact table, a float32 emulation in Hugging Face's operation order
// for hf_float32, Python's own `int(p * H // 2)` for the rotated-pair counts), not from posenc.
#include <posenc/frequencies.hpp>
#include <posenc/scaling/scaling.hpp>
#include <posenc/spec.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "scaling/checks.hpp"

namespace scaling_hf_proportional_vectors_tests {  // per-file namespace: a folder builds as one unit

using posenc_test::message_of;
using posenc_test::relative_error;
using posenc_test::ulp_distance;

const posenc::RopeSpec gemma4_full = posenc::RopeSpec::full(512, 1e6);

TEST_CASE("[HF proportional] Gemma 4 full attention (H 512, p 0.25, base 1e6): 64 rotated pairs, 192 exact zeros")
{
    const posenc::FrequencyTable t = posenc::frequency_table(gemma4_full, posenc::ProportionalScaling(0.25));
    REQUIRE(t.num_pairs() == 256);
    CHECK(t.zero_freq_pairs() == 192);
    CHECK(t.rotated_pairs() == 64);
    CHECK(t.attention_factor() == 1.0);
    // mpmath: 1e6^(-2i/512), the exponent over the whole head dim 512
    CHECK(t.inv_freq(0) == 1.0);
    CHECK(relative_error(t.inv_freq(1), 0.94746352565537539776) < 4e-15);
    CHECK(relative_error(t.inv_freq(2), 0.89768713244731419454) < 4e-15);
    CHECK(relative_error(t.inv_freq(32), 0.17782794100389228012) < 4e-15);
    CHECK(relative_error(t.inv_freq(63), 0.033376246942920385462) < 4e-15);
    for (int i = 64; i < 256; ++i) {
        CHECK(t.inv_freq(i) == 0.0);
        CHECK(t.is_zero_freq(i));
        CHECK(std::isinf(t.period(i)));
        CHECK(t.turns(i, 1e9) == 0.0);
    }
    CHECK(!t.is_zero_freq(63));
    // Zero pairs never turn: they are among the pairs without a full turn at any length.
    CHECK(t.count_without_full_turn(1e12) == 192);
}

TEST_CASE(
    "[HF proportional] the exponent is over head_dim, not over p * head_dim (which a partial rotary width would use)")
{
    const posenc::FrequencyTable proportional = posenc::frequency_table(gemma4_full, posenc::ProportionalScaling(0.25));
    const posenc::RopeSpec partial = posenc::RopeSpec::from_partial_rotary_factor(512, 0.25, 1e6);
    const posenc::FrequencyTable prefix = posenc::frequency_table(partial, posenc::NoScaling {});
    // 1e6^(-2/512) versus 1e6^(-2/128) (mpmath: 0.805842187761481817).
    CHECK(relative_error(prefix.inv_freq(1), 0.805842187761481817) < 4e-15);
    CHECK(relative_error(proportional.inv_freq(1), 0.94746352565537539776) < 4e-15);
}

TEST_CASE("[HF proportional] hf_float32: 1 / pow32(fl(1e6), fl(2i) / fl(512)), zeros stay 0")
{
    const posenc::FrequencyTable t =
        posenc::frequency_table(gemma4_full, posenc::ProportionalScaling(0.25), posenc::Precision::hf_float32);
    CHECK(ulp_distance(static_cast<float>(t.inv_freq(1)), 0.9474635124206543f) <= 1);
    CHECK(ulp_distance(static_cast<float>(t.inv_freq(2)), 0.8976871371269226f) <= 1);
    CHECK(ulp_distance(static_cast<float>(t.inv_freq(32)), 0.17782793939113617f) <= 1);
    CHECK(ulp_distance(static_cast<float>(t.inv_freq(63)), 0.03337624669075012f) <= 1);
    CHECK(t.zero_freq_pairs() == 192);
}

TEST_CASE("[HF proportional] factor 8 divides every rotated frequency; 0 / 8 stays exactly 0")
{
    const posenc::ProportionalScaling s(0.25, 8.0);
    const posenc::FrequencyTable exact = posenc::frequency_table(gemma4_full, s);
    CHECK(relative_error(exact.inv_freq(1), 0.11843294070692192472) < 4e-15);
    CHECK(relative_error(exact.inv_freq(63), 0.0041720308678650481827) < 4e-15);
    CHECK(exact.zero_freq_pairs() == 192);
    const posenc::FrequencyTable f32 = posenc::frequency_table(gemma4_full, s, posenc::Precision::hf_float32);
    CHECK(ulp_distance(static_cast<float>(f32.inv_freq(1)), 0.11843293905258179f) <= 1);
    CHECK(ulp_distance(static_cast<float>(f32.inv_freq(63)), 0.004172030836343765f) <= 1);
    CHECK(posenc::scaling_factor(s) == 8.0);
    CHECK(posenc::scaling_attention_factor(s) == 1.0);
}

TEST_CASE("[HF proportional] rotated pairs K = int(p * H // 2), Python's truncation")
{
    // Python: 0.29 * 100 = 28.999999999999996 -> 14; 0.3 * 10 = 3.0 -> 1; 0.75 * 6 = 4.5 -> 2;
    // 1.0 * 256 -> 128; 0.0 -> 0; 0.5 * 2 = 1.0 -> 0; 0.33 * 128 = 42.24 -> 21.
    CHECK(posenc::ProportionalScaling(0.29).rotated_pairs(100) == 14);
    CHECK(posenc::ProportionalScaling(0.3).rotated_pairs(10) == 1);
    CHECK(posenc::ProportionalScaling(0.75).rotated_pairs(6) == 2);
    CHECK(posenc::ProportionalScaling(1.0).rotated_pairs(256) == 128);
    CHECK(posenc::ProportionalScaling(0.0).rotated_pairs(64) == 0);
    CHECK(posenc::ProportionalScaling(0.5).rotated_pairs(2) == 0);
    CHECK(posenc::ProportionalScaling(0.33).rotated_pairs(128) == 21);
    CHECK(posenc::ProportionalScaling(0.33).zero_freq_pairs(128) == 43);
    // p = 0: every pair has frequency 0 (the table is valid: nothing rotates).
    const posenc::FrequencyTable none =
        posenc::frequency_table(posenc::RopeSpec::full(64, 1e4), posenc::ProportionalScaling(0.0));
    CHECK(none.zero_freq_pairs() == 32);
    // p = 1 (the key's default): the default table over the whole head.
    const posenc::FrequencyTable all =
        posenc::frequency_table(posenc::RopeSpec::full(256, 1e4), posenc::ProportionalScaling());
    CHECK(all.zero_freq_pairs() == 0);
    CHECK(relative_error(all.inv_freq(1), 0.93057204092969897929) < 4e-15);
}

TEST_CASE("[HF proportional] names and parameters")
{
    const posenc::Scaling s = posenc::ProportionalScaling(0.25, 2.0);
    CHECK(std::string(posenc::scaling_type_name(s)) == "proportional");
    const std::vector<posenc::ScalingParameter> p = posenc::scaling_parameters(s);
    REQUIRE(p.size() == 2);
    CHECK(p[0].name == "factor");
    CHECK(std::get<double>(p[0].value) == 2.0);
    CHECK(p[1].name == "partial_rotary_factor");
    CHECK(std::get<double>(p[1].value) == 0.25);
    CHECK(!posenc::scaling_original_length(s));
}

TEST_CASE("[HF proportional] refusals name the field, the value and the rule")
{
    CHECK(message_of([] { return posenc::ProportionalScaling(1.5); }) ==
          "proportional.partial_rotary_factor 1.5 must be in [0, 1]");
    CHECK(message_of([] { return posenc::ProportionalScaling(-0.25); }) ==
          "proportional.partial_rotary_factor -0.25 must be in [0, 1]");
    CHECK(message_of([] { return posenc::ProportionalScaling(0.25, 0.5); }) ==
          "proportional.factor 0.5 must be >= 1 and finite in float32");
    const posenc::RopeSpec partial(512, 128, 1e6);
    CHECK(message_of([&] {
              return posenc::frequency_table(partial, posenc::ProportionalScaling(0.25));
          }).find("rotary_dim 128 must equal head_dim 512 for proportional RoPE") == 0);
    // A factor that would push a rotated frequency to a subnormal is refused under its own name.
    CHECK(message_of([&] {
              return posenc::frequency_table(gemma4_full, posenc::ProportionalScaling(0.25, 3e38),
                                             posenc::Precision::hf_float32);
          }).find("proportional.factor 3e+38 makes inv_freq[") == 0);
}

}  // namespace scaling_hf_proportional_vectors_tests
