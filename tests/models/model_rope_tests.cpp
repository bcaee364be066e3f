// SPDX-License-Identifier: MIT
// The model-level reader (posenc/models/hf_config.hpp read_model, hf_config_json.hpp) and
// ModelRope (posenc/model_rope.hpp) on real configs of every family with per-layer RoPE, NoPE
// layers, multi-axis RoPE, nested text_config, interleaved pairing or model-specific defaults.
//
// Expected values: tests/models/model_rope_reference_values.py (output pasted in
// model_rope_reference_values.inc), which applies Hugging Face transformers' rules written out
// from the transformers sources it names, independently of posenc: the layer map (NoPE layers,
// group per layer), each group's head_dim / rotary_dim / base / pairing, every inv_freq exactly
// (mpmath) and in Hugging Face's float32 arithmetic (numpy float32), and the M-RoPE axis of each
// pair. Checked: hf_float32 tables within 1e-6 relative of the float32 values, exact tables
// within 1e-12 relative. The configs and their sources: tests/data/configs/README.md.
#include <posenc/model_rope.hpp>
#include <posenc/models/hf_config.hpp>
#include <posenc/models/presets.hpp>
#include <posenc/multi_axis.hpp>
#include <posenc/rotation.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "support/model_parse_errors.hpp"

#ifndef POSENC_TEST_DATA_DIR
#error "POSENC_TEST_DATA_DIR must point at tests/data"
#endif

namespace models_model_rope_tests_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

struct ExpectedGroup {
    const char* name;
    int head_dim;
    int rotary_dim;
    double base;
    posenc::Pairing pairing;
    const std::vector<double>* exact;
    const std::vector<double>* f32;
};

struct ExpectedModel {
    const char* file;
    int num_layers;
    std::vector<int> layer_group;  // index into groups, -1 = NoPE
    std::vector<ExpectedGroup> groups;
    std::vector<int> axes;  // M-RoPE axis per pair; empty = one position axis
};

#include "models/model_rope_reference_values.inc"

posenc::hf::HfModel load(const std::string& file)
{
    return posenc::hf::read_model(std::string(POSENC_TEST_DATA_DIR) + "/configs/" + file);
}

using test_support::models::error_of;

double relative(double got, double want) { return want == 0.0 ? std::abs(got) : std::abs(got - want) / std::abs(want); }

/// Checks one model read from its config against the script's values.
void check_model(const ExpectedModel& want, const posenc::ModelRope& rope)
{
    REQUIRE(rope.num_layers().has_value());
    CHECK(*rope.num_layers() == want.num_layers);
    REQUIRE(rope.num_groups() == static_cast<int>(want.groups.size()));
    std::vector<int> nope;
    for (int layer = 0; layer < want.num_layers; ++layer) {
        const int g = want.layer_group[static_cast<std::size_t>(layer)];
        if (g < 0) {
            nope.push_back(layer);
            CHECK_FALSE(rope.layer_has_rope(layer));
            continue;
        }
        REQUIRE(rope.layer_has_rope(layer));
        CHECK(rope.group_of_layer(layer).name == want.groups[static_cast<std::size_t>(g)].name);
    }
    CHECK(rope.nope_layers() == nope);
    for (const ExpectedGroup& eg : want.groups) {
        INFO("group " << eg.name);
        const posenc::RopeGroup& g = rope.group(eg.name);
        CHECK(g.spec.head_dim() == eg.head_dim);
        CHECK(g.spec.rotary_dim() == eg.rotary_dim);
        CHECK(relative(g.spec.base(), eg.base) <= 1e-14);
        CHECK(g.spec.pairing() == eg.pairing);
        const posenc::FrequencyTable exact = g.table(posenc::Precision::exact);
        const posenc::FrequencyTable f32 = g.table(posenc::Precision::hf_float32);
        REQUIRE(exact.num_pairs() == static_cast<int>(eg.exact->size()));
        REQUIRE(f32.num_pairs() == static_cast<int>(eg.f32->size()));
        double worst_exact = 0.0, worst_f32 = 0.0;
        for (int i = 0; i < exact.num_pairs(); ++i) {
            worst_exact = std::max(worst_exact, relative(exact.inv_freq(i), (*eg.exact)[static_cast<std::size_t>(i)]));
            worst_f32 = std::max(worst_f32, relative(f32.inv_freq(i), (*eg.f32)[static_cast<std::size_t>(i)]));
        }
        CHECK(worst_exact <= 1e-12);
        CHECK(worst_f32 <= 1e-6);
    }
    if (want.axes.empty()) {
        CHECK_FALSE(rope.multi_axis().has_value());
    } else {
        REQUIRE(rope.multi_axis().has_value());
        CHECK(rope.multi_axis()->pair_axes() == want.axes);
    }
}

}  // namespace

TEST_CASE("[HF rules, model_rope_reference_values.py] every real config: layer map, groups, tables, M-RoPE axes")
{
    for (const ExpectedModel* want : expected_models) {
        INFO("config " << want->file);
        const posenc::hf::HfModel model = load(want->file);
        check_model(*want, model.rope);
    }
}

TEST_CASE("[HF configuration files] per-model defaults for missing keys")
{
    // falcon/configuration_falcon.py: max_position_embeddings 2048 (tiiuae/falcon-7b has none).
    CHECK(load("falcon-7b.json").rope.primary_group().max_position_embeddings == 2048);
    // ernie4_5/configuration_ernie4_5.py: rope_theta 500000 when absent.
    CHECK(load("ernie-4.5-0.3b-no-rope-theta.json").rope.primary_group().spec.base() == 500000.0);
    // qwen3_next/configuration_qwen3_next.py: partial_rotary_factor 0.25 -> 256 * 0.25 = 64.
    CHECK(load("qwen3-next-no-partial-rotary-factor.json").rope.primary_group().spec.rotary_dim() == 64);
    // gpt_neox/configuration_gpt_neox.py: rotary_pct 0.25 -> 96 * 0.25 = 24; max_position_embeddings 2048.
    const auto neox = load("gpt-neox-20b-no-rotary-pct.json");
    CHECK(neox.rope.primary_group().spec.rotary_dim() == 24);
    CHECK(neox.rope.primary_group().max_position_embeddings == 2048);
    // gemma3/configuration_gemma3.py: google/gemma-3-4b-it's text_config names neither head_dim
    // nor rope_theta nor rope_local_base_freq: 256, 1e6, 1e4.
    const auto gemma = load("gemma-3-4b-it.json");
    CHECK(gemma.model_type == "gemma3_text");
    CHECK(gemma.rope.group("full_attention").spec.base() == 1e6);
    CHECK(gemma.rope.group("sliding_attention").spec.base() == 1e4);
    CHECK(gemma.rope.group("full_attention").spec.head_dim() == 256);
    CHECK(gemma.rope.primary_group().name == "full_attention");
    // gpt_oss/configuration_gpt_oss.py: head_dim 64, rope_theta 150000, max_position_embeddings
    // 131072, and without a RoPE dict yarn {factor 32, beta 32 / 1, L0 4096, truncate false}.
    const auto oss = posenc::hf::parse_model(R"({"model_type": "gpt_oss", "hidden_size": 2880,
                                                 "num_attention_heads": 64, "num_hidden_layers": 24})");
    const posenc::RopeGroup& g = oss.rope.primary_group();
    CHECK(g.spec.head_dim() == 64);
    CHECK(g.spec.base() == 150000.0);
    CHECK(g.max_position_embeddings == 131072);
    REQUIRE(std::holds_alternative<posenc::YarnScaling>(g.scaling));
    const auto& yarn = std::get<posenc::YarnScaling>(g.scaling);
    CHECK(yarn.factor() == 32.0);
    CHECK(yarn.original_max_position_embeddings() == 4096);
    CHECK(yarn.rounding() == posenc::YarnCorrectionRounding::fractional);
}

TEST_CASE("[HF modeling files] the pairing comes from model_type")
{
    CHECK(load("ernie-4.5-0.3b-pt.json").rope.primary_group().spec.pairing() == posenc::Pairing::interleaved);
    CHECK(load("llama-4-scout-17b-16e-instruct.json").rope.primary_group().spec.pairing() ==
          posenc::Pairing::interleaved);
    CHECK(load("command-r7b-12-2024.json").rope.primary_group().spec.pairing() == posenc::Pairing::interleaved);
    CHECK(load("olmo-2-1124-7b.json").rope.primary_group().spec.pairing() == posenc::Pairing::half_split);
    // An unknown model_type with plain keys: refused by default (its code decides the pairing);
    // with ReadOptions::assume_half_split, half_split and one warning saying so.
    const std::string unknown = R"({"model_type": "brand_new_lm", "hidden_size": 1024,
                                    "num_attention_heads": 8, "num_hidden_layers": 4, "rope_theta": 1e4})";
    CHECK(error_of(unknown).rfind("model_type: expected a model type posenc knows", 0) == 0);
    posenc::hf::ReadOptions opt_in;
    opt_in.assume_half_split = true;
    const auto m = posenc::hf::parse_model(unknown, opt_in);
    CHECK(m.rope.primary_group().spec.pairing() == posenc::Pairing::half_split);
    REQUIRE(m.warnings.size() == 1);
    CHECK(m.warnings[0].key == "model_type");
    CHECK(m.warnings[0].message == "\"brand_new_lm\" is not a model type posenc knows; half_split pairing "
                                   "(rotate_half) and generic defaults assumed");
}

TEST_CASE("[published configs] head counts and rms_norm_eps come with the model: Gemma 3 1B, Llama 3.1 8B, GPT-J")
{
    // gemma-3-1b-it config.json: hidden_size 1152, 4 heads, 1 key-value head, rms_norm_eps 1e-06.
    const posenc::hf::HfModel gemma = load("gemma-3-1b-it.json");
    CHECK(gemma.num_attention_heads == 4);
    CHECK(gemma.num_key_value_heads == 1);
    CHECK(gemma.hidden_size == 1152);
    CHECK(gemma.rms_norm_eps == 1e-6);
    // Llama-3.1-8B config.json: 32 heads, 8 key-value heads, hidden_size 4096; no rms_norm_eps in the
    // test file, so LlamaConfig's class default 1e-6 (llama/configuration_llama.py).
    const posenc::hf::HfModel llama = load("llama-3.1-8b.json");
    CHECK(llama.num_attention_heads == 32);
    CHECK(llama.num_key_value_heads == 8);
    CHECK(llama.hidden_size == 4096);
    CHECK(llama.rms_norm_eps == 1e-6);
    // GPT-J's n_head / n_embd; no num_key_value_heads: every head has its own keys (= n_head 16).
    const posenc::hf::HfModel gptj = load("gpt-j-6b.json");
    CHECK(gptj.num_attention_heads == 16);
    CHECK(gptj.num_key_value_heads == 16);
    CHECK(gptj.hidden_size == 4096);
    CHECK(error_of(R"({"model_type": "llama", "head_dim": 64, "num_attention_heads": 0})") ==
          "num_attention_heads: expected a positive integer, got 0");
    CHECK(error_of(R"({"model_type": "llama", "head_dim": 64, "rms_norm_eps": -1})") ==
          "rms_norm_eps: expected a finite number > 0, got -1");
}

TEST_CASE("[gemma3/configuration_gemma3.py, llama/configuration_llama.py class defaults] gemma-3-4b-it omits its head "
          "counts: 8 heads, 4 key-value heads, rms_norm_eps 1e-06")
{
    // Gemma3TextConfig.__init__ (transformers): num_attention_heads=8, num_key_value_heads=4,
    // hidden_size=2304, rms_norm_eps=1e-6. gemma-3-4b-it's text_config gives hidden_size 2560 only.
    const posenc::hf::HfModel gemma = load("gemma-3-4b-it.json");
    CHECK(gemma.num_attention_heads == 8);
    CHECK(gemma.num_key_value_heads == 4);
    CHECK(gemma.hidden_size == 2560);  // the config's own value wins over the class default 2304
    CHECK(gemma.rms_norm_eps == 1e-6);
    // The key-value default is the class's 4, not num_attention_heads (the class sets no such rule).
    const posenc::hf::HfModel heads_only =
        posenc::hf::parse_model(R"({"model_type": "gemma3_text", "num_hidden_layers": 6, "num_attention_heads": 16})");
    CHECK(heads_only.num_attention_heads == 16);
    CHECK(heads_only.num_key_value_heads == 4);
    CHECK(heads_only.hidden_size == 2304);
    // Every family takes its class's defaults (llama/configuration_llama.py: 32 layers, hidden_size
    // 4096, 32 heads, num_key_value_heads None = num_attention_heads, rms_norm_eps 1e-6); a config
    // with no size at all gets head_dim = 4096 // 32 = 128 from them, as transformers' object does.
    const posenc::hf::HfModel llama = posenc::hf::parse_model(R"({"model_type": "llama"})");
    CHECK(llama.num_attention_heads == 32);
    CHECK(llama.num_key_value_heads == 32);
    CHECK(llama.hidden_size == 4096);
    CHECK(llama.rms_norm_eps == 1e-6);
    CHECK(llama.rope.num_layers() == 32);
    CHECK(llama.rope.primary_group().spec.head_dim() == 128);
    // A model_type read under the half_split opt-in has no class: nothing is filled in.
    posenc::hf::ReadOptions opt_in;
    opt_in.assume_half_split = true;
    const posenc::hf::HfModel unknown =
        posenc::hf::parse_model(R"({"model_type": "brand_new_lm", "head_dim": 64})", opt_in);
    CHECK_FALSE(unknown.num_attention_heads.has_value());
    CHECK_FALSE(unknown.hidden_size.has_value());
    CHECK_FALSE(unknown.rms_norm_eps.has_value());
    CHECK_FALSE(unknown.rope.num_layers().has_value());
}

TEST_CASE("[llama4/modeling_llama4.py temperature tuning, mpmath] Llama 4 Scout: NoPE layers' query times 1 + 0.1 ln(1 "
          "+ floor((pos + 1) / 8192))")
{
    // The published config: attn_temperature_tuning true, attn_scale 0.1, floor_scale 8192, 48 layers,
    // every 4th NoPE (no_rope_layers).
    const posenc::hf::HfModel m = load("llama-4-scout-17b-16e-instruct.json");
    REQUIRE(m.rope.query_scale().has_value());
    const posenc::ModelQueryScale& q = *m.rope.query_scale();
    CHECK(q.layers == m.rope.nope_layers());
    CHECK(q.layers.size() == 12);
    CHECK(q.scale.beta() == 0.1);
    CHECK(q.scale.divisor() == 8192);
    CHECK(q.scale.position_offset() == 1);
    CHECK(std::abs(q.scale.multiplier(16382) - 1.0693147180559945309) <= 1e-15);  // 1 + 0.1 ln 2
    CHECK(std::abs(q.scale.multiplier(16383) - 1.1098612288668109691) <= 1e-15);  // 1 + 0.1 ln 3
    // attn_temperature_tuning false: no query scale.
    const auto off = posenc::hf::parse_model(R"({"model_type": "llama4_text", "num_hidden_layers": 4,
        "attn_temperature_tuning": false})");
    CHECK_FALSE(off.rope.query_scale().has_value());
    // A model without a per-position query scale has none.
    CHECK_FALSE(load("llama-3.1-8b.json").rope.query_scale().has_value());
}

TEST_CASE("[ModelRope] a NoPE layer has no table, and says so by number")
{
    const auto smol = load("smollm3-3b.json");
    CHECK(smol.rope.nope_layers() == std::vector<int> {3, 7, 11, 15, 19, 23, 27, 31, 35});
    std::string message;
    try {
        (void)smol.rope.table_for_layer(3);
    } catch (const posenc::error& e) {
        message = e.what();
    }
    CHECK(message == "layer 3 has no RoPE (NoPE layer); there is no table to apply");
    CHECK(smol.rope.table_for_layer(2).num_pairs() == 64);
    try {
        (void)smol.rope.table_for_layer(36);
        message = "(accepted)";
    } catch (const posenc::error& e) {
        message = e.what();
    }
    CHECK(message == "layer 36 must be < num_layers 36");
}

TEST_CASE("[ModelRope] validation: names, layer map, multi-axis width")
{
    const auto group = posenc::RopeGroup::make("default", posenc::RopeSpec::full(64, 1e4));
    auto message_of = [](auto&& build) {
        try {
            build();
        } catch (const posenc::error& e) {
            return std::string(e.what());
        }
        return std::string("(accepted)");
    };
    CHECK(message_of([&] {
              posenc::ModelRope({group, group}, {0, 1});
          }) == "groups[1].name \"default\" must differ from every other group's name");
    CHECK(message_of([&] {
              posenc::ModelRope({group}, {0, 2});
          }) == "layer_groups[1] 2 must be ModelRope::no_rope or a group index (0 .. 0)");
    CHECK(message_of([&] {
              posenc::ModelRope({group, posenc::RopeGroup::make("other", posenc::RopeSpec::full(64, 1e6))}, {0, 0});
          }) == "groups[1] \"other\" is used by no layer");
    CHECK(message_of([&] {
              posenc::ModelRope({group}, {0}, posenc::MultiAxisLayout::sections({8, 12, 12}, 64));
          }).rfind("mrope_section sum", 0) == 0);
    CHECK(message_of([&] {
              posenc::ModelRope({group}, {0}, posenc::MultiAxisLayout::sections({16, 24, 24}, 64));
          }) == "multi_axis.num_pairs 64 must equal the pairs of group \"default\" (32)");
    CHECK(message_of([&] {
              posenc::ModelRope({group}, {0}, posenc::MultiAxisLayout::sections({8, 12, 12}, 32));
          }) == "(accepted)");
    CHECK(message_of([&] { (void)posenc::ModelRope::uniform(group); }) == "(accepted)");
    CHECK_FALSE(posenc::ModelRope::uniform(group).num_layers().has_value());
}

TEST_CASE("[refusals] every key posenc cannot represent is an error naming the key")
{
    // Falcon's ALiBi attention biases are not RoPE.
    CHECK(error_of(R"({"model_type": "falcon", "alibi": true, "hidden_size": 4544, "n_head": 71})") ==
          "alibi: expected false: ALiBi adds attention biases instead of rotating q and k, and posenc describes RoPE "
          "only, got true");
    // Model-specific keys under a model_type posenc does not know.
    CHECK(error_of(R"({"model_type": "mystery", "head_dim": 64, "rope_local_base_freq": 10000})") ==
          "rope_local_base_freq: is read only for model types posenc knows; model_type \"mystery\" is not one, and how "
          "its code uses this key cannot be told from the config, got 10000");
    CHECK(error_of(R"({"model_type": "mystery", "head_dim": 64, "num_hidden_layers": 2, "no_rope_layers": [1, 0]})")
              .rfind("no_rope_layers: is read only for model types posenc knows", 0) == 0);
    CHECK(error_of(R"({"model_type": "mystery", "head_dim": 64, "num_hidden_layers": 2, "no_rope_layer_interval": 2})")
              .rfind("no_rope_layer_interval: is read only for model types posenc knows", 0) == 0);
    CHECK(error_of(R"({"model_type": "mystery", "head_dim": 64, "num_hidden_layers": 4, "sliding_window_pattern": 2})")
              .rfind("sliding_window_pattern: is read only for model types posenc knows", 0) == 0);
    CHECK(error_of(R"({"model_type": "mystery", "head_dim": 64, "full_attention_interval": 4})")
              .rfind("full_attention_interval: is read only for model types posenc knows", 0) == 0);
    CHECK(error_of(R"({"model_type": "mystery", "head_dim": 64,
                       "rope_scaling": {"type": "mrope", "mrope_section": [8, 12, 12]}})")
              .rfind("rope_scaling.mrope_section: is read only for model types posenc knows", 0) == 0);
    CHECK(error_of(R"({"model_type": "mystery", "head_dim": 64,
                       "rope_scaling": {"rope_type": "default", "mrope_interleaved": true}})")
              .rfind("rope_scaling.mrope_interleaved: is read only for model types posenc knows", 0) == 0);
    CHECK(error_of(R"({"model_type": "mystery", "head_dim": 64, "max_position_embeddings": 4096,
                       "rope_scaling": {"type": "dynamic", "factor": 1.0, "alpha": 1000.0}})")
              .rfind("rope_scaling.alpha: is read only for model types posenc knows", 0) == 0);
    // Mixed layer types: refused also when the caller opts in to reading the unknown type as half_split.
    std::string mixed = "(accepted)";
    try {
        posenc::hf::ReadOptions opt_in;
        opt_in.assume_half_split = true;
        posenc::hf::parse_model(
            R"({"model_type": "mystery", "head_dim": 64, "layer_types": ["full_attention", "sliding_attention"]})",
            opt_in);
    } catch (const posenc::error& e) {
        mixed = e.what();
    }
    CHECK(mixed ==
          "layer_types[1]: expected every layer of the same type for model_type \"mystery\" (whether its layer types "
          "share one RoPE cannot be told from the config), got \"sliding_attention\"");
    CHECK(error_of(R"({"model_type": "mystery", "head_dim": 64, "layer_types": ["full_attention"],
                       "rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 1e4}}})")
              .rfind("rope_parameters: expected one dict for model_type \"mystery\"", 0) == 0);
    // Known families, values their code cannot use.
    CHECK(
        error_of(
            R"({"model_type": "exaone4", "head_dim": 64, "num_hidden_layers": 4, "sliding_window_pattern": "LLLG"})") ==
        "sliding_window_pattern: expected a positive integer (a string pattern is read only together with an "
        "explicit layer_types), got \"LLLG\"");
    CHECK(error_of(R"({"model_type": "cohere2", "hidden_size": 512, "num_attention_heads": 8, "num_hidden_layers": 4,
                       "sliding_window": null})") ==
          "sliding_window: expected a window: Cohere 2 rotates only its sliding-window layers, so null leaves the "
          "model without RoPE, got null");
    CHECK(error_of(
              R"({"model_type": "smollm3", "head_dim": 64, "num_hidden_layers": 4, "no_rope_layers": [1, 0, 1, 2]})") ==
          "no_rope_layers[3]: expected 1 (RoPE) or 0 (NoPE), got 2");
    CHECK(error_of(R"({"model_type": "smollm3", "head_dim": 64, "num_hidden_layers": 4, "no_rope_layers": [1, 0]})") ==
          "no_rope_layers: expected a list of 0 / 1 with at least one entry per layer (4), got [1,0]");
    CHECK(
        error_of(R"({"model_type": "qwen2_vl", "hidden_size": 512, "num_attention_heads": 8,
                       "rope_scaling": {"type": "mrope", "mrope_section": [8, 12, 8]}})") ==
        "rope_scaling.mrope_section: must equal num_pairs 32 (mrope_section [8, 12, 8] counts pairs: rotary_dim / 2), "
        "got 28");
    // gemma3/configuration_gemma3.py completes per-layer-type dicts: a missing full_attention entry is
    // {"rope_type": "default"} at the class default 1e6.
    const auto completed = posenc::hf::parse_model(R"({"model_type": "gemma3", "text_config": {"num_hidden_layers": 2,
        "head_dim": 64, "layer_types": ["sliding_attention", "full_attention"],
        "rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 1e4}}}})");
    CHECK(completed.rope.group("full_attention").spec.base() == 1e6);
    CHECK(completed.rope.group("sliding_attention").spec.base() == 1e4);
    CHECK(error_of(R"({"model_type": "gemma3_text", "head_dim": 64, "num_hidden_layers": 2,
                       "layer_types": ["sliding_attention", "chunked_attention"]})") ==
          "layer_types: expected \"sliding_attention\" or \"full_attention\" for Gemma 3, got \"chunked_attention\"");
    CHECK(
        error_of(
            R"({"model_type": "llama", "head_dim": 64, "num_hidden_layers": 3, "layer_types": ["full_attention"]})") ==
        "layer_types: expected one entry per layer (num_hidden_layers 3), got 1 entries");
    CHECK(error_of(R"({"model_type": "llama", "head_dim": 64, "position_embedding_type": "absolute"})") ==
          "position_embedding_type: expected \"rope\" (posenc describes RoPE only), got \"absolute\"");
    CHECK(error_of(R"({"model_type": "llama", "head_dim": 64, "rope_scaling": {"rope_type": "proportional"}})") ==
          "rope_scaling.rope_type: expected one of default, linear, dynamic, yarn, longrope, llama3, got "
          "\"proportional\"");
}

TEST_CASE("[messages] values shown as written, long values cut, rope_scaling beside rope_parameters")
{
    // 1e-400 underflows double: refused, shown as written (not "0").
    CHECK(error_of(R"({"model_type": "llama", "head_dim": 64, "rope_theta": 1e-400})") ==
          "rope_theta: expected a finite number within double's range (the literal underflows to 0), got 1e-400");
    // A 5,000-digit integer in an unrelated key: named, and cut with an ellipsis.
    const std::string huge =
        R"({"model_type": "llama", "head_dim": 64, "vocab_size": 1)" + std::string(4999, '7') + "}";
    const std::string message = error_of(huge);
    CHECK(message.size() < 160);
    CHECK(message == "vocab_size: expected a number within double's range, got 1" + std::string(56, '7') + "...");
    // Both dicts, disagreeing (Chameleon's configs): transformers (decba1d2) convert_rope_params_to_dict takes
    // `rope_scaling or rope_parameters`, so rope_scaling's factor 2 is read and rope_parameters is named as ignored.
    const auto both =
        posenc::hf::parse_model(R"({"model_type": "llama", "head_dim": 64, "max_position_embeddings": 4096,
                       "rope_scaling": {"rope_type": "linear", "factor": 2.0},
                       "rope_parameters": {"rope_type": "linear", "factor": 4.0, "rope_theta": 1e4}})");
    CHECK(posenc::scaling_factor(both.rope.primary_group().scaling) == 2.0);
    REQUIRE(!both.warnings.empty());
    CHECK(both.warnings.back().key == "rope_parameters");
    CHECK(both.warnings.back().message.find("rope_scaling or rope_parameters") != std::string::npos);
    // Both dicts, agreeing (legacy "type" spelling, v5 adding rope_theta): accepted.
    const auto agree =
        posenc::hf::parse_model(R"({"model_type": "llama", "head_dim": 64, "max_position_embeddings": 4096,
                       "rope_scaling": {"type": "linear", "factor": 2.0},
                       "rope_parameters": {"rope_type": "linear", "factor": 2, "rope_theta": 1e4}})");
    CHECK(posenc::scaling_factor(agree.rope.primary_group().scaling) == 2.0);
    // Nested: key paths carry text_config.
    CHECK(error_of(R"({"model_type": "llama4", "text_config": {"head_dim": 64, "num_hidden_layers": 4,
                       "rope_theta": 0.5}})") == "text_config.rope_theta: expected a finite number > 1, got 0.5");
}

TEST_CASE("[presets] Gemma 3, Llama 4, SmolLM3, Qwen2.5-VL as ModelRope equal the script's values")
{
    const std::vector<std::pair<posenc::ModelRope, const ExpectedModel*>> presets {
        {posenc::models::gemma_3_4b_it_rope(), &gemma_3_4b_it_json},
        {posenc::models::llama_4_scout_rope(), &llama_4_scout_17b_16e_instruct_json},
        {posenc::models::smollm3_3b_rope(), &smollm3_3b_json},
        {posenc::models::qwen2_5_vl_7b_rope(), &qwen2_5_vl_7b_instruct_json},
    };
    for (const auto& preset : presets) {
        const ExpectedModel* want = preset.second;
        INFO("preset for " << want->file);
        check_model(*want, preset.first);
    }
}

// ---- docs/models.md engine example, verbatim ----
namespace docs_example {

struct LayerRope {
    std::optional<posenc::RopeSpec> spec;  // empty: NoPE layer
    std::optional<posenc::FrequencyTable> table;
};

std::vector<LayerRope> prepare(const std::string& config_path)
{
    const posenc::hf::HfModel model = posenc::hf::read_model(config_path);
    const posenc::ModelRope& rope = model.rope;
    std::vector<LayerRope> layers(static_cast<std::size_t>(rope.num_layers().value_or(1)));
    for (int i = 0; i < static_cast<int>(layers.size()); ++i) {
        if (!rope.layer_has_rope(i)) continue;  // e.g. SmolLM3 layers 3, 7, 11, ...
        const posenc::RopeGroup& group = rope.group_of_layer(i);
        layers[static_cast<std::size_t>(i)] = {group.spec, group.table(posenc::Precision::hf_float32)};
    }
    return layers;
}

// One head of layer `i` at `position` (text tokens: every M-RoPE axis holds the same position).
void rotate(const posenc::ModelRope& rope, const std::vector<LayerRope>& layers, int i, float* head,
            std::int64_t position)
{
    const LayerRope& layer = layers[static_cast<std::size_t>(i)];
    if (!layer.spec) return;  // NoPE: q and k pass unrotated
    if (rope.multi_axis()) {
        const std::vector<std::int64_t> positions(static_cast<std::size_t>(rope.multi_axis()->num_axes()), position);
        posenc::apply_multi_axis_rope_reference(*layer.spec, *layer.table, *rope.multi_axis(), head, positions);
    } else {
        posenc::apply_rope_reference(*layer.spec, *layer.table, head, position);
    }
}

}  // namespace docs_example

TEST_CASE("[docs/models.md engine example] NoPE layers pass unrotated; Gemma 3's two groups rotate differently")
{
    const std::string dir = std::string(POSENC_TEST_DATA_DIR) + "/configs/";
    const auto smol_layers = docs_example::prepare(dir + "smollm3-3b.json");
    const auto smol = load("smollm3-3b.json").rope;
    std::vector<float> a(128, 0.5f), b(128, 0.5f);
    docs_example::rotate(smol, smol_layers, 3, a.data(), 1000);  // NoPE layer
    CHECK(a == std::vector<float>(128, 0.5f));
    docs_example::rotate(smol, smol_layers, 2, b.data(), 1000);
    CHECK(b != std::vector<float>(128, 0.5f));

    const auto gemma_layers = docs_example::prepare(dir + "gemma-3-1b-it.json");
    const auto gemma = load("gemma-3-1b-it.json").rope;
    std::vector<float> local(256, 0.5f), global(256, 0.5f);
    docs_example::rotate(gemma, gemma_layers, 0, local.data(), 1000);  // sliding, base 1e4
    docs_example::rotate(gemma, gemma_layers, 5, global.data(), 1000);  // full, base 1e6
    // Pair 1 (coordinates 1 and 129): angle 1000 * base^(-2/256); cos differs between the bases.
    CHECK(std::abs(local[1] - global[1]) > 0.1f);

    // M-RoPE text tokens: all axes equal gives the 1-D rotation exactly.
    const auto qwen_layers = docs_example::prepare(dir + "qwen2.5-vl-7b-instruct.json");
    const auto qwen = load("qwen2.5-vl-7b-instruct.json").rope;
    std::vector<float> m(128, 0.25f), plain(128, 0.25f);
    docs_example::rotate(qwen, qwen_layers, 0, m.data(), 777);
    posenc::apply_rope_reference(*qwen_layers[0].spec, *qwen_layers[0].table, plain.data(), 777);
    CHECK(m == plain);
}

}  // namespace models_model_rope_tests_tests
