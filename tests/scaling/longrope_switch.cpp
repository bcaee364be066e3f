// SPDX-License-Identifier: MIT
// LongRoPE past the original length, per family rule (Phi-3's factor tables, PhiMoE's magnitude).
//
// Provenance: tests/scaling/longrope_switch_reference_values.py restates Hugging Face's two rules
// (modeling_phi3.py with modeling_rope_utils.py's longrope_frequency_update; modeling_phimoe.py's
// PhimoeRotaryEmbedding.forward) and evaluates theta_j / ext_j in mpmath; the mscales below are
// test inputs, returned verbatim by the rule.
#include <posenc/models/presets.hpp>
#include <posenc/scaling/scaling.hpp>
#include <posenc/spec.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "scaling/checks.hpp"

namespace scaling_longrope_switch_tests {  // per-file namespace: a folder builds as one unit

using posenc_test::message_of;
using posenc_test::relative_error;

posenc::LongRopeScaling phi3() { return std::get<posenc::LongRopeScaling>(posenc::models::phi_3_mini_128k.scaling()); }
const posenc::RopeSpec spec(96, 96, 10000.0);

TEST_CASE("[HF phi3 longrope_frequency_update] short table up to n = L0 = 4096, long table from n = 4097; attention "
          "factor fixed")
{
    const posenc::LongRopeScaling l = phi3();
    CHECK(l.switch_rule() == posenc::LongRopeSwitchRule::phi3_factor_tables);
    const posenc::FrequencyTable at_l0 = posenc::frequency_table(spec, l, 4096);
    const posenc::FrequencyTable past = posenc::frequency_table(spec, l, 4097);
    CHECK(relative_error(at_l0.inv_freq(1), 0.75036744115274396276) < 4e-15);
    CHECK(relative_error(at_l0.inv_freq(47), 0.000039722218315691461486) < 4e-15);
    CHECK(relative_error(past.inv_freq(1), 0.73696801942310809375) < 4e-15);
    CHECK(relative_error(past.inv_freq(47), 1.8707961992959697788e-6) < 4e-15);
    CHECK(relative_error(at_l0.attention_factor(), 1.190238071423808333) < 4e-16);
    CHECK(past.attention_factor() == at_l0.attention_factor());
    CHECK(posenc::longrope_attention_factor(l, 1000000) == posenc::longrope_attention_factor(l));
    CHECK(!posenc::attention_factor_depends_on_length(l));
}

TEST_CASE("[HF phimoe forward] short table at every length; cos/sin times short_mscale up to L0, long_mscale past it")
{
    const posenc::LongRopeScaling l = phi3().with_phimoe_mscales(1.1, 1.3);
    CHECK(l.switch_rule() == posenc::LongRopeSwitchRule::phimoe_magnitude_only);
    CHECK(std::string(posenc::to_string(l.switch_rule())) == "phimoe_magnitude_only");
    CHECK(!l.uses_long_factors(4097));
    CHECK(l.past_original_length(4097));
    CHECK(!l.past_original_length(4096));
    const posenc::FrequencyTable at_l0 = posenc::frequency_table(spec, l, 4096);
    const posenc::FrequencyTable past = posenc::frequency_table(spec, l, 131072);
    CHECK(relative_error(past.inv_freq(1), 0.75036744115274396276) < 4e-15);  // short, not long
    CHECK(relative_error(past.inv_freq(47), 0.000039722218315691461486) < 4e-15);
    CHECK(past.inv_freq() == at_l0.inv_freq());
    CHECK(at_l0.attention_factor() == 1.1);
    CHECK(past.attention_factor() == 1.3);
    CHECK(posenc::frequency_table(spec, l).attention_factor() == 1.1);  // init: what n <= L0 uses
    CHECK(posenc::attention_factor_depends_on_length(l));
    // The parameters name both magnitudes.
    const std::vector<posenc::ScalingParameter> p = posenc::scaling_parameters(l);
    REQUIRE(p.size() == 7);
    CHECK(p[5].name == "short_mscale");
    CHECK(std::get<double>(p[5].value) == 1.1);
    CHECK(p[6].name == "long_mscale");
    CHECK(std::get<double>(p[6].value) == 1.3);
    CHECK(l != phi3());
}

TEST_CASE("[HF phimoe] magnitudes outside the attention factor range are refused by name")
{
    CHECK(message_of([] {
              return phi3().with_phimoe_mscales(0.0, 1.0);
          }).find("longrope.short_mscale 0 must be finite and > 0") == 0);
    CHECK(message_of([] {
              return phi3().with_phimoe_mscales(1.0, 4096.0);
          }).find("longrope.long_mscale 4096 must be in [2^-10, 2^10]") == 0);
}

}  // namespace scaling_longrope_switch_tests
