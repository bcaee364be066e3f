// SPDX-License-Identifier: MIT
// ModelRope (posenc/model_rope.hpp) for the families of this year: Gemma 4 (proportional RoPE on
// full_attention), Llama 4 (query temperature tuning on its NoPE layers), HunYuan-VL (NTK alpha,
// four position axes), ERNIE-4.5-VL (3-D RoPE), PhiMoE (LongRoPE magnitude switch), DeepSeek-V4
// (inverse RoPE on the attention output), and the query scale's checks.
//
// Expected values: tests/models/new_families_reference_values.py (mpmath, Hugging Face's formulas)
// and the layouts as transformers' code defines them (written out in the comments).
#include <posenc/model_rope.hpp>
#include <posenc/models/presets.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "support/error_messages.hpp"

namespace models_new_families_tests {  // per-file namespace: a folder builds as one unit

using test_support::message_of;

double relative_error(double value, double expected) { return std::abs(value - expected) / std::abs(expected); }

TEST_CASE(
    "[Gemma 4 E2B preset] sliding (head 256, base 1e4) and full_attention (head 512, proportional 0.25, base 1e6)")
{
    const posenc::ModelRope rope = posenc::models::gemma_4_e2b_rope();
    REQUIRE(rope.num_layers() == 35);
    CHECK(rope.layers_of_group(1) == std::vector<int> {4, 9, 14, 19, 24, 29, 34});
    const posenc::RopeGroup& full = rope.group("full_attention");
    CHECK(full.spec.head_dim() == 512);
    CHECK(full.spec.rotary_dim() == 512);
    CHECK(full.spec.rotary_offset() == 0);
    const posenc::FrequencyTable t = rope.table_for_layer(4);
    CHECK(t.zero_freq_pairs() == 192);
    CHECK(relative_error(t.inv_freq(63), 0.033376246942920385462) < 4e-15);
    CHECK(t.inv_freq(64) == 0.0);
    CHECK(rope.table_for_layer(0).zero_freq_pairs() == 0);
    CHECK(rope.group("sliding_attention").spec.head_dim() == 256);
    CHECK(!rope.query_scale());
}

TEST_CASE("[Llama 4 Scout preset] temperature tuning on the NoPE layers 3, 7, ..., 47: 1 + 0.1 ln(1 + floor((pos + 1) "
          "/ 8192))")
{
    const posenc::ModelRope rope = posenc::models::llama_4_scout_rope();
    REQUIRE(rope.query_scale());
    CHECK(rope.query_scale()->layers == rope.nope_layers());
    CHECK(rope.query_scale()->layers.front() == 3);
    CHECK(rope.query_scale()->layers.back() == 47);
    CHECK(rope.query_scale()->scale == posenc::QueryScale(0.1, 8192, 1));
    CHECK(std::abs(rope.query_multiplier(3, 100000) - 1.2564949357461536878) < 1e-15);
    CHECK(rope.query_multiplier(0, 100000) == 1.0);  // a RoPE layer: no temperature tuning
}

TEST_CASE("[HunyuanOCR preset] base 1e4 * 1000^(128/126), four axes as transformers 5 cuts the doubled sections")
{
    const posenc::ModelRope rope = posenc::models::hunyuan_ocr_rope();
    const posenc::FrequencyTable t = rope.table_for_layer(0);
    CHECK(relative_error(t.inv_freq(1), 0.7760343630469744113) < 1e-14);
    CHECK(relative_error(t.inv_freq(63), 1.1547819846894581797e-7) < 1e-13);
    REQUIRE(rope.multi_axis());
    const posenc::MultiAxisLayout& layout = *rope.multi_axis();
    CHECK(layout.kind() == posenc::MultiAxisKind::coordinate_sections);
    CHECK(layout.num_axes() == 4);
    CHECK(layout.splits_pairs());
    // coordinates [0, 32) axis 0, [32, 64) axis 1, [64, 96) axis 2, [96, 128) axis 3; pair i = (i, i + 64)
    CHECK(layout.axis_of_pair(0) == 0);
    CHECK(layout.partner_axis_of_pair(0) == 2);
    CHECK(layout.axis_of_pair(40) == 1);
    CHECK(layout.partner_axis_of_pair(40) == 3);
}

TEST_CASE("[ERNIE-4.5-VL preset] interleaved pairs, base 5e5, pairs 0-43 alternate height/width, 44-63 temporal")
{
    const posenc::ModelRope rope = posenc::models::ernie_4_5_vl_28b_a3b_rope();
    CHECK(rope.primary_group().spec.pairing() == posenc::Pairing::interleaved);
    REQUIRE(rope.multi_axis());
    const posenc::MultiAxisLayout& layout = *rope.multi_axis();
    CHECK(layout.kind() == posenc::MultiAxisKind::height_width_alternating);
    CHECK(layout.axis_of_pair(0) == 1);
    CHECK(layout.axis_of_pair(1) == 2);
    CHECK(layout.axis_of_pair(43) == 2);
    CHECK(layout.axis_of_pair(44) == 0);
    CHECK(layout.axis_of_pair(63) == 0);
    CHECK(!layout.splits_pairs());
}

TEST_CASE("[PhiMoE] a LongRoPE group under PhiMoE's rule keeps the short table and switches the magnitude past L0")
{
    const std::vector<double> ones(48, 1.0), twos(48, 2.0);
    const posenc::LongRopeScaling phimoe =
        posenc::LongRopeScaling(ones, twos, 4096, 32.0).with_phimoe_mscales(1.2431631, 1.2431631 * 1.1);
    const posenc::RopeGroup g = posenc::RopeGroup::make("default", posenc::RopeSpec::full(96, 1e4), phimoe, 131072);
    CHECK(g.attention_factor == 1.2431631);
    const posenc::FrequencyTable at_l0 = g.table(4096);
    const posenc::FrequencyTable past = g.table(4097);
    CHECK(at_l0.attention_factor() == 1.2431631);
    CHECK(past.attention_factor() == 1.2431631 * 1.1);
    CHECK(past.inv_freq() == at_l0.inv_freq());
    CHECK(past.inv_freq(1) == std::pow(1e4, -2.0 / 96.0));  // short factor 1: the unscaled table
}

TEST_CASE(
    "[DeepSeek-V4] inverse_rope_on_output is a group flag, false unless set; the rotated slice is the last 64 of 512")
{
    posenc::RopeGroup g =
        posenc::RopeGroup::make("main", posenc::RopeSpec::suffix(512, 64, 1e4, posenc::Pairing::interleaved));
    CHECK(!g.inverse_rope_on_output);
    g.inverse_rope_on_output = true;
    const posenc::ModelRope rope = posenc::ModelRope::uniform(g, 4);
    CHECK(rope.group("main").inverse_rope_on_output);
    CHECK(rope.group("main").spec.rotary_offset() == 448);
    CHECK(rope.group("main").spec.pair_coordinates(0).first == 448);
}

TEST_CASE("[query scale] layers must be non-empty, ascending, distinct and inside the model")
{
    const posenc::ModelRope rope = posenc::models::gemma_4_e2b_rope();
    const posenc::QueryScale q = posenc::QueryScale::llama_4_scaling_beta(0.1, 16384);
    CHECK(message_of([&] { return rope.with_query_scale(q, {}); }) == "query_scale.layers.size 0 must be > 0");
    CHECK(message_of([&] {
              return rope.with_query_scale(q, {3, 3});
          }) == "query_scale.layers[1] 3 must be > the previous layer 3 (ascending, distinct)");
    CHECK(message_of([&] {
              return rope.with_query_scale(q, {0, 35});
          }) == "query_scale.layers[1] 35 must be < num_layers 35");
    CHECK(message_of([&] { return rope.with_query_scale(q, {-1}); }) == "query_scale.layers[0] -1 must be >= 0");
    const posenc::ModelRope scaled = rope.with_query_scale(q, {0, 1, 34});
    CHECK(std::abs(scaled.query_multiplier(34, 16384) - 1.0693147180559945348) < 1e-15);  // 1 + 0.1 ln 2
    CHECK(scaled.query_multiplier(2, 16384) == 1.0);
    CHECK(message_of([&] { return scaled.query_multiplier(35, 0); }) == "layer 35 must be < num_layers 35");
}

}  // namespace models_new_families_tests
