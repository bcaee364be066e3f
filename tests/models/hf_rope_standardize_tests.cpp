// SPDX-License-Identifier: MIT
// The config reader against transformers' own reading of the RoPE keys where a config can say two
// things at once: standardize_rope_params and the rope functions of modeling_rope_utils.py
// (transformers 5), the Phi-3 and GPT-J configuration classes, the attention code of the Llama-style
// families, and Qwen3-VL's text rotary embedding. Expected numbers come from
// tests/models/hf_rope_standardize_reference_values.py (mpmath, the formulas written out there).
#include <posenc/model_rope.hpp>
#include <posenc/models/hf_config.hpp>
#include <posenc/multi_axis.hpp>
#include <posenc/scaling/scaling.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <variant>
#include <vector>

#include "support/model_parse_errors.hpp"

namespace models_hf_rope_standardize_tests_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using test_support::models::error_of;

bool near(double got, double expected, double rel = 1e-12)
{
    return std::abs(got - expected) <= rel * std::abs(expected);
}

bool has_warning(const posenc::hf::HfModel& m, const std::string& key)
{
    for (const auto& w : m.warnings)
        if (w.key == key) return true;
    return false;
}

/// A Phi-3 longrope dict with 48 short factors 1 + j / 100 and long factors 2 + j / 2 (j = 0..47).
std::string phi3_longrope(const std::string& extra_dict_keys, const std::string& extra_top_keys)
{
    std::string short_f, long_f;
    for (int j = 0; j < 48; ++j) {
        short_f += (j ? ", " : "") + std::to_string(1.0 + j / 100.0);
        long_f += (j ? ", " : "") + std::to_string(2.0 + j / 2.0);
    }
    return R"({"model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 32, "num_hidden_layers": 2,
               "max_position_embeddings": 131072, "rope_theta": 10000.0)" +
           extra_top_keys + R"(, "rope_scaling": {"type": "longrope", "short_factor": [)" + short_f +
           R"(], "long_factor": [)" + long_f + "]" + extra_dict_keys + "}}";
}

}  // namespace

TEST_CASE(
    "[phi3/configuration_phi3.py, standardize_rope_params] Phi-3's class-default original_max_position_embeddings 4096 "
    "replaces the longrope dict's")
{
    // No top-level key: the attribute is the class default 4096, copied over the dict's 8192.
    const auto m = posenc::hf::parse_model(phi3_longrope(R"(, "original_max_position_embeddings": 8192)", ""));
    const posenc::RopeGroup& g = m.rope.primary_group();
    CHECK(g.original_length == 4096);
    CHECK(g.attention_factor == doctest::Approx(1.1902380714238083).epsilon(1e-15));  // sqrt(1 + ln 32 / ln 4096)
    CHECK(has_warning(m, "rope_scaling.original_max_position_embeddings"));
    // 5000 tokens are past 4096: the long factors (with 8192 the short ones would still apply).
    const auto long_table = g.table(5000);
    CHECK(near(long_table.inv_freq()[0], 0.5));
    CHECK(near(long_table.inv_freq()[1], 0.33016167410720737));
    CHECK(near(long_table.inv_freq()[47], 4.7510888573670135e-6));
    const auto short_table = g.table(4096);
    CHECK(near(short_table.inv_freq()[1], 0.81723186660199844));
    CHECK(near(short_table.inv_freq()[47], 8.2416847525754316e-5));

    // No L0 anywhere: still 4096, not max_position_embeddings.
    const auto bare = posenc::hf::parse_model(phi3_longrope("", ""));
    CHECK(bare.rope.primary_group().original_length == 4096);
    CHECK(bare.rope.primary_group().attention_factor == doctest::Approx(1.1902380714238083).epsilon(1e-15));
    // A top-level key is used as before.
    const auto top = posenc::hf::parse_model(phi3_longrope("", R"(, "original_max_position_embeddings": 8192)"));
    CHECK(top.rope.primary_group().original_length == 8192);
}

TEST_CASE("[phi3/configuration_phi3.py validate_rope] Phi-3 accepts default and longrope only")
{
    CHECK(error_of(
              R"({"model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 32, "max_position_embeddings": 8192,
                       "rope_scaling": {"type": "linear", "factor": 2.0}})") ==
          "rope_scaling.type: expected default or longrope (legacy su / yarn) for model_type \"phi3\" (its "
          "configuration class "
          "refuses other rope types), got \"linear\"");
    CHECK(error_of(
              R"({"model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 32, "max_position_embeddings": 8192,
                       "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}})")
              .rfind("rope_scaling.rope_type: expected default or longrope", 0) == 0);
}

TEST_CASE("[phimoe/configuration_phimoe.py validate_rope] PhiMoE: every scaled type carries short_mscale / long_mscale")
{
    // Any rope type but default needs both mscales, which modeling_phimoe.py picks per forward pass.
    CHECK(
        error_of(
            R"({"model_type": "phimoe", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 131072,
                       "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768,
                                        "short_mscale": 1.1, "long_mscale": 1.2}})")
            .rfind("rope_scaling.short_mscale: is not representable: PhiMoE multiplies cos and sin by short_mscale",
                   0) == 0);
    CHECK(
        error_of(
            R"({"model_type": "phimoe", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 131072,
                       "rope_scaling": {"rope_type": "linear", "factor": 4.0}})")
            .rfind("rope_scaling.rope_type: is not representable: PhiMoE", 0) == 0);
}

TEST_CASE("[standardize_rope_params, _compute_yarn_parameters] a per-layer-type YaRN dict takes L0 from itself or "
          "max_position_embeddings, never from the top-level key")
{
    const std::string layers = R"("model_type": "gemma3_text", "head_dim": 256, "num_hidden_layers": 2,
        "layer_types": ["sliding_attention", "full_attention"], "max_position_embeddings": 131072,
        "original_max_position_embeddings": 4096)";
    const auto m = posenc::hf::parse_model("{" + layers + R"(, "rope_parameters": {
        "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
        "full_attention": {"rope_type": "yarn", "factor": 8.0, "rope_theta": 1000000.0}}})");
    const posenc::RopeGroup& full = m.rope.group("full_attention");
    CHECK(full.original_length == 131072);
    CHECK(full.attention_factor == doctest::Approx(1.2079441541679836).epsilon(1e-15));  // 0.1 ln 8 + 1
    CHECK(has_warning(m, "original_max_position_embeddings"));
    // Correction range [60, 93] with L0 = 131072 (with 4096 it would be [31, 64]).
    const auto t = full.table();
    CHECK(near(t.inv_freq()[59], 0.0017154378963428789));
    CHECK(near(t.inv_freq()[65], 0.00077867558079710209));
    CHECK(near(t.inv_freq()[94], 4.9052371981056698e-6));
    CHECK(near(t.inv_freq()[127], 1.392467324993503e-7));

    // The entry's own value is kept (setdefault).
    const auto own = posenc::hf::parse_model("{" + layers + R"(, "rope_parameters": {
        "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
        "full_attention": {"rope_type": "yarn", "factor": 8.0, "rope_theta": 1000000.0,
                           "original_max_position_embeddings": 16384}}})");
    CHECK(own.rope.group("full_attention").original_length == 16384);
}

TEST_CASE(
    "[_compute_yarn_parameters] truncate is read from the top level of rope_parameters: false in a per-layer-type "
    "entry is refused")
{
    const std::string head = R"({"model_type": "gemma3_text", "head_dim": 256, "num_hidden_layers": 2,
        "layer_types": ["sliding_attention", "full_attention"], "max_position_embeddings": 131072, "rope_parameters": {
        "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
        "full_attention": {"rope_type": "yarn", "factor": 8.0, "rope_theta": 1000000.0, "truncate": )";
    CHECK(
        error_of(head + "false}}}") ==
        "rope_parameters.full_attention.truncate: expected true or no value in a per-layer-type rope_parameters entry "
        "(transformers reads truncate from the top level of rope_parameters, where it is absent, so it truncates "
        "whatever the entry says), got false");
    CHECK(error_of(head + "true}}}") == "(accepted)");
    // A single dict keeps its truncate (gpt-oss).
    const auto single =
        posenc::hf::parse_model(R"({"model_type": "llama", "head_dim": 64, "max_position_embeddings": 131072,
        "rope_parameters": {"rope_type": "yarn", "factor": 32.0, "original_max_position_embeddings": 4096, "truncate": false}})");
    const auto* yarn = std::get_if<posenc::YarnScaling>(&single.rope.primary_group().scaling);
    REQUIRE(yarn != nullptr);
    CHECK(yarn->rounding() == posenc::YarnCorrectionRounding::fractional);
}

TEST_CASE("[standardize_rope_params, modeling_llama.py] partial_rotary_factor: the configuration's value wins over the "
          "dict's, and Llama-style attention rotates the whole head")
{
    // The attribute (top-level key, else the class default) is copied over the dict's value: they must agree.
    CHECK(
        error_of(R"({"model_type": "phi", "hidden_size": 2560, "num_attention_heads": 32, "partial_rotary_factor": 0.4,
                       "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.5}})") ==
        "rope_parameters.partial_rotary_factor: expected the value of partial_rotary_factor 0.4 (transformers copies "
        "the "
        "configuration's partial_rotary_factor over the RoPE dict's; the two disagree), got 0.5");
    CHECK(
        error_of(R"({"model_type": "qwen3_next", "head_dim": 256, "num_hidden_layers": 4,
                       "rope_parameters": {"rope_type": "default", "rope_theta": 1e7, "partial_rotary_factor": 0.5}})") ==
        "rope_parameters.partial_rotary_factor: expected the value of the class default 0.25 (transformers copies the "
        "configuration's partial_rotary_factor over the RoPE dict's; the two disagree), got 0.5");
    // Agreeing values are read: Phi-2, 80 * 0.4 = 32.
    const auto phi2 = posenc::hf::parse_model(R"({"model_type": "phi", "hidden_size": 2560, "num_attention_heads": 32,
        "partial_rotary_factor": 0.4, "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.4}})");
    CHECK(phi2.rope.primary_group().spec.rotary_dim() == 32);
    // Llama's attention multiplies the whole head by cos / sin.
    CHECK(error_of(R"({"model_type": "llama", "head_dim": 128, "partial_rotary_factor": 0.5})") ==
          "partial_rotary_factor: expected 1: model_type \"llama\"'s attention rotates the whole head "
          "(llama/modeling_llama.py "
          "does not split off a rotary part), so transformers either ignores a partial rotary factor or fails on it, "
          "got 0.5");
    CHECK(error_of(R"({"model_type": "qwen2", "head_dim": 128,
                       "rope_parameters": {"rope_type": "default", "rope_theta": 1e6, "partial_rotary_factor": 0.5}})")
              .rfind("rope_parameters.partial_rotary_factor: expected 1: model_type \"qwen2\"'s attention rotates the "
                     "whole head",
                     0) == 0);
    CHECK(error_of(R"({"model_type": "llama", "head_dim": 128, "partial_rotary_factor": 1.0})") == "(accepted)");
    // Phi-3 rotates a part (Phi-4-mini: 128 * 0.75 = 96).
    const auto phi4 = posenc::hf::parse_model(R"({"model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 24,
        "partial_rotary_factor": 0.75})");
    CHECK(phi4.rope.primary_group().spec.rotary_dim() == 96);
}

TEST_CASE("[convert_rope_params_to_dict] a transformers 4 rope_scaling dict's rope_theta and partial_rotary_factor: "
          "read by transformers 5 only, refused when they change the answer")
{
    CHECK(error_of(R"({"model_type": "llama", "head_dim": 64, "rope_theta": 10000.0, "max_position_embeddings": 4096,
                       "rope_scaling": {"rope_type": "linear", "factor": 2.0, "rope_theta": 500000.0}})") ==
          "rope_scaling.rope_theta: expected the value of rope_theta 10000.0 (transformers 4 reads only the top-level "
          "rope_theta, transformers 5 the dict's; the config carries both and they disagree), got 500000.0");
    // Agreeing values, and the dict's value alone, are read (transformers 5 moves rope_scaling into rope_parameters).
    const auto same = posenc::hf::parse_model(R"({"model_type": "llama", "head_dim": 64, "rope_theta": 10000.0,
        "max_position_embeddings": 4096, "rope_scaling": {"rope_type": "linear", "factor": 2.0, "rope_theta": 10000.0}})");
    CHECK(same.rope.primary_group().spec.base() == 10000.0);
    CHECK(error_of(R"({"model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 24,
                       "rope_scaling": {"rope_type": "default", "partial_rotary_factor": 0.75}})") ==
          "rope_scaling.partial_rotary_factor: expected 1 or a top-level partial_rotary_factor (transformers 4 does "
          "not read "
          "it from rope_scaling and rotates with 1, transformers 5 reads the dict's), got 0.75");
    const auto v5 = posenc::hf::parse_model(R"({"model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 24,
        "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.75}})");
    CHECK(v5.rope.primary_group().spec.rotary_dim() == 96);
}

TEST_CASE("[standardize_rope_params, _compute_yarn_parameters] an explicit null where transformers reads it as a value")
{
    // setdefault keeps a null rope_type; ROPE_INIT_FUNCTIONS[None] fails (posenc read the legacy type before).
    CHECK(error_of(R"({"model_type": "llama", "head_dim": 64, "max_position_embeddings": 4096,
                       "rope_scaling": {"rope_type": null, "type": "linear", "factor": 2.0}})") ==
          "rope_scaling.rope_type: expected a string or no key at all (transformers reads null as a value here, not as "
          "absent), got null");
    CHECK(error_of(R"({"model_type": "llama", "head_dim": 64, "rope_scaling": {"type": null}})") ==
          "rope_scaling.type: expected a string or no key at all (transformers reads null as a value here, not as "
          "absent), "
          "got null");
    // rope_parameters.get("truncate", True) is None: no truncation (posenc truncated before).
    CHECK(error_of(R"({"model_type": "llama", "head_dim": 64, "max_position_embeddings": 131072,
                       "rope_parameters": {"rope_type": "yarn", "factor": 32.0, "original_max_position_embeddings": 4096,
                                           "truncate": null}})") ==
          "rope_parameters.truncate: expected true or false or no key at all (transformers reads null as a value here, "
          "not "
          "as absent), got null");
    CHECK(
        error_of(R"({"model_type": "llama", "head_dim": 64, "max_position_embeddings": 131072,
                       "rope_parameters": {"rope_type": "yarn", "factor": 32.0, "original_max_position_embeddings": null}})") ==
        "rope_parameters.original_max_position_embeddings: expected a positive integer or no key at all (transformers "
        "keeps the null, which its arithmetic cannot use), got null");
    CHECK(error_of(R"({"model_type": "llama", "head_dim": 64, "rope_theta": null})") ==
          "rope_theta: expected a finite number > 1 or no key at all (transformers reads null as a value here, not as "
          "absent), got null");
    // A null top-level rope_theta beside the dict's own is not read.
    CHECK(error_of(R"({"model_type": "llama", "head_dim": 64, "rope_theta": null,
                       "rope_parameters": {"rope_type": "default", "rope_theta": 500000.0}})") == "(accepted)");
    // Keys read with `or` (beta_fast, beta_slow) or `and` (mscale) treat null as absent, as posenc does.
    CHECK(error_of(R"({"model_type": "llama", "head_dim": 64, "max_position_embeddings": 131072,
                       "rope_parameters": {"rope_type": "yarn", "factor": 32.0, "original_max_position_embeddings": 4096,
                                           "beta_fast": null, "beta_slow": null, "mscale": null}})") == "(accepted)");
}

TEST_CASE("[ROPE_INIT_FUNCTIONS] rope types by exact name; su and mrope only where a configuration class renames them")
{
    CHECK(error_of(R"({"model_type": "llama", "head_dim": 64, "max_position_embeddings": 4096,
                       "rope_scaling": {"type": "ntk_dynamic", "factor": 2.0}})") ==
          "rope_scaling.type: expected one of default, linear, dynamic, yarn, longrope, llama3, got \"ntk_dynamic\"");
    CHECK(error_of(R"({"model_type": "llama", "head_dim": 8, "max_position_embeddings": 8192,
                       "rope_scaling": {"type": "su", "short_factor": [1, 1], "long_factor": [2, 2],
                                        "original_max_position_embeddings": 4096}})") ==
          "rope_scaling.type: expected one of default, linear, dynamic, yarn, longrope, llama3, got \"su\"");
    CHECK(error_of(R"({"model_type": "llama", "head_dim": 64, "rope_scaling": {"type": "mrope"}})") ==
          "rope_scaling.type: expected one of default, linear, dynamic, yarn, longrope, llama3, got \"mrope\"");
    // Phi-3 renames su to longrope.
    const auto phi3 =
        posenc::hf::parse_model(R"({"model_type": "phi3", "head_dim": 8, "hidden_size": 64, "num_attention_heads": 8,
        "max_position_embeddings": 8192, "original_max_position_embeddings": 4096,
        "rope_scaling": {"type": "su", "short_factor": [1, 1, 1, 1], "long_factor": [2, 2, 2, 2]}})");
    CHECK(std::holds_alternative<posenc::LongRopeScaling>(phi3.rope.primary_group().scaling));
}

TEST_CASE(
    "[qwen3_vl/modeling_qwen3_vl.py] Qwen3-VL always interleaves its M-RoPE axes, sections [24, 20, 20] by default")
{
    const auto m = posenc::hf::parse_model(R"({"model_type": "qwen3_vl", "text_config": {"head_dim": 128,
        "num_hidden_layers": 2, "rope_theta": 5000000, "rope_scaling": {"rope_type": "default", "mrope_interleaved": false}}})");
    REQUIRE(m.rope.multi_axis().has_value());
    const posenc::MultiAxisLayout& layout = *m.rope.multi_axis();
    CHECK(layout.is_interleaved());
    CHECK(layout.mrope_section() == std::vector<int> {24, 20, 20});
    const int expected[][2] = {{0, 0}, {1, 1}, {2, 2}, {58, 1}, {59, 2}, {60, 0}, {61, 0}, {62, 0}, {63, 0}};
    for (const auto& e : expected) CHECK(layout.axis_of_pair(e[0]) == e[1]);
    CHECK(has_warning(m, "text_config.rope_scaling.mrope_interleaved"));
    // Without any RoPE dict the default sections still apply.
    const auto bare =
        posenc::hf::parse_model(R"({"model_type": "qwen3_vl_text", "head_dim": 128, "num_hidden_layers": 1})");
    REQUIRE(bare.rope.multi_axis().has_value());
    CHECK(bare.rope.multi_axis()->is_interleaved());
}

TEST_CASE("[gptj/configuration_gptj.py, codegen/configuration_codegen.py] rotary_dim defaults to 64")
{
    const auto m = posenc::hf::parse_model(R"({"model_type": "gptj", "n_embd": 4096, "n_head": 16, "n_layer": 2})");
    const posenc::RopeGroup& g = m.rope.primary_group();
    CHECK(g.spec.head_dim() == 256);
    CHECK(g.spec.rotary_dim() == 64);
    CHECK(near(g.table().inv_freq()[1], 0.74989420933245583));
    CHECK(near(g.table().inv_freq()[31], 0.0001333521432163324));
    const auto codegen =
        posenc::hf::parse_model(R"({"model_type": "codegen", "n_embd": 1024, "n_head": 16, "n_layer": 2})");
    CHECK(codegen.rope.primary_group().spec.rotary_dim() == 64);
}

}  // namespace models_hf_rope_standardize_tests_tests
