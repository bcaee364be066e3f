// SPDX-License-Identifier: MIT
// LongRoPE (Phi-3-mini-128k) against Hugging Face's semantics (docs/formulas.md H6, H12)
// and P6 (docs/formulas.md)
//
// Provenance: attention factors are the closed form sqrt(1 + ln s / ln L0) as H12 and
// P6 (docs/formulas.md) print them (1.1902380714238083; float32 1.190238118171692 = the GGUF key
// phi3.rope.scaling.attn_factor); the inv values come from tests/scaling/hf_reference_values.py
// (independent float32 emulation and mpmath theta_j / ext_j with the list entries as doubles).
#include <posenc/models/presets.hpp>
#include <posenc/scaling/scaling.hpp>
#include <posenc/spec.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "scaling/checks.hpp"

namespace scaling_hf_longrope_vectors_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

using posenc_test::relative_error;
using posenc_test::ulp_distance;

TEST_CASE("[HF longrope] Phi-3-mini-128k attention factor sqrt(1 + ln 32 / ln 4096) = 1.1902380714238083 (float32 "
          "1.190238118)")
{
    const posenc::LongRopeScaling phi3 = std::get<posenc::LongRopeScaling>(posenc::models::phi_3_mini_128k.scaling());
    CHECK(phi3.factor() == 32.0);
    CHECK(phi3.original_max_position_embeddings() == 4096);
    CHECK(posenc::longrope_attention_factor(phi3) == 1.1902380714238083);
    CHECK(posenc::longrope_attention_factor(phi3) == doctest::Approx(std::sqrt(17.0 / 12.0)).epsilon(1e-15));
    CHECK(posenc::hf32::round(posenc::longrope_attention_factor(phi3)) == 1.190238118171692f);
}

TEST_CASE("[LongRoPE / P6] LongRoPE attention factor: L0 4096 s 16 -> 1.154701; L0 8192 s 16 -> 1.143544; L0 2048 s 8 "
          "-> 1.128152")
{
    const std::vector<double> ones(4, 1.0);
    CHECK(posenc::longrope_attention_factor(posenc::LongRopeScaling(ones, ones, 4096, 16.0)) ==
          doctest::Approx(1.154701).epsilon(1e-6));
    CHECK(posenc::longrope_attention_factor(posenc::LongRopeScaling(ones, ones, 8192, 16.0)) ==
          doctest::Approx(1.143544).epsilon(1e-6));
    CHECK(posenc::longrope_attention_factor(posenc::LongRopeScaling(ones, ones, 2048, 8.0)) ==
          doctest::Approx(1.128152).epsilon(1e-6));
    CHECK(posenc::longrope_attention_factor(posenc::LongRopeScaling(ones, ones, 2048, 1.0)) == 1.0);  // s <= 1
    // An explicit attention factor is used verbatim (mlx-lm PR #1507).
    CHECK(posenc::longrope_attention_factor(
              posenc::LongRopeScaling(ones, ones, 2048, 8.0).with_attention_factor(1.5)) == 1.5);
}

TEST_CASE(
    "[HF longrope] the long factors apply strictly above original_max_position_embeddings (4096 short, 4097 long)")
{
    const posenc::RopeSpec spec = posenc::models::phi_3_mini_128k.rope_spec();
    const posenc::Scaling scaling = posenc::models::phi_3_mini_128k.scaling();
    const posenc::FrequencyTable init = posenc::frequency_table(spec, scaling);
    const posenc::FrequencyTable at_l0 = posenc::frequency_table(spec, scaling, 4096);
    const posenc::FrequencyTable above = posenc::frequency_table(spec, scaling, 4097);
    const posenc::FrequencyTable far = posenc::frequency_table(spec, scaling, 131072);
    const posenc::FrequencyTable original = posenc::FrequencyTable::from_spec(spec);
    CHECK(init.inv_freq() == at_l0.inv_freq());  // HF init: short factors
    CHECK(above.inv_freq() == far.inv_freq());
    for (int j = 0; j < 48; ++j) {
        CAPTURE(j);
        const double short_factor = posenc::models::phi_3_mini_128k_short_factor[static_cast<std::size_t>(j)];
        const double long_factor = posenc::models::phi_3_mini_128k_long_factor[static_cast<std::size_t>(j)];
        CHECK(relative_error(at_l0.inv_freq(j), original.inv_freq(j) / short_factor) <= 1e-15);
        CHECK(relative_error(above.inv_freq(j), original.inv_freq(j) / long_factor) <= 1e-15);
    }
    // The attention factor is not recomputed on the switch.
    CHECK(at_l0.attention_factor() == above.attention_factor());
}

TEST_CASE("[HF longrope] Phi-3-mini-128k inv_freq, short and long: float32 within 2 ulp, exact within 1e-12")
{
    const posenc::RopeSpec spec = posenc::models::phi_3_mini_128k.rope_spec();
    const posenc::Scaling scaling = posenc::models::phi_3_mini_128k.scaling();
    const struct {
        int pair;
        float short32;
        double short_exact;
        float long32;
        double long_exact;
    } vectors[] = {{0, 0.9090908765792847f, 0.90909090909090902, 0.9345793724060059f, 0.93457939343865418},
                   {1, 0.7503674030303955f, 0.75036744115274396, 0.7369679808616638f, 0.73696801942310809},
                   {17, 0.01915593631565571f, 0.01915593424778643, 0.0019339662976562977f, 0.0019339661548925913},
                   {47, 3.9722213841741905e-05f, 3.9722218315691461e-5, 1.870796040748246e-06f, 1.8707961992959698e-6}};
    const posenc::FrequencyTable short32 = posenc::frequency_table(spec, scaling, 4096, posenc::Precision::hf_float32);
    const posenc::FrequencyTable long32 = posenc::frequency_table(spec, scaling, 8192, posenc::Precision::hf_float32);
    const posenc::FrequencyTable short_exact = posenc::frequency_table(spec, scaling, 4096);
    const posenc::FrequencyTable long_exact = posenc::frequency_table(spec, scaling, 8192);
    for (const auto& v : vectors) {
        CAPTURE(v.pair);
        CHECK(ulp_distance(static_cast<float>(short32.inv_freq(v.pair)), v.short32) <= 2);
        CHECK(ulp_distance(static_cast<float>(long32.inv_freq(v.pair)), v.long32) <= 2);
        CHECK(relative_error(short_exact.inv_freq(v.pair), v.short_exact) <= 1e-12);
        CHECK(relative_error(long_exact.inv_freq(v.pair), v.long_exact) <= 1e-12);
    }
}

}  // namespace scaling_hf_longrope_vectors_tests
