// SPDX-License-Identifier: MIT
// The family rules (posenc/models/detail/families/) through the whole-model reader
// (posenc/models/hf_config.hpp parse_model): what each family's configuration class fills in before
// its rotary embedding reads the config — layer types from the class's pattern, per-layer-type
// rope_parameters from legacy keys or per-layer lists — and what it refuses or ignores.
//
// Each test case is named after the transformers file that decides it. Expected values are written
// out from those rules (layer i full_attention when i % 3 == 0, ...) and inv_freq_i = base^(-2i / R)
// evaluated here with std::pow.
#include <posenc/models/hf_config.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "support/model_parse_errors.hpp"

namespace models_family_rules_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using test_support::models::error_of;

double relative(double got, double want) { return std::abs(got - want) / std::abs(want); }

/// The group's rotary width and base, and its table against base^(-2i / R).
void check_plain(const posenc::RopeGroup& g, int head_dim, int rotary_dim, double base)
{
    CHECK(g.spec.head_dim() == head_dim);
    CHECK(g.spec.rotary_dim() == rotary_dim);
    CHECK(g.spec.base() == base);
    const posenc::FrequencyTable t = g.table(posenc::Precision::exact);
    REQUIRE(t.num_pairs() == rotary_dim / 2);
    for (int i = 0; i < t.num_pairs(); ++i)
        CHECK(relative(t.inv_freq(i), std::pow(base, -2.0 * i / rotary_dim)) <= 1e-12);
}

/// The layers of the group called `name`.
std::vector<int> layers_named(const posenc::ModelRope& rope, const std::string& name)
{
    for (int g = 0; g < rope.num_groups(); ++g)
        if (rope.groups()[static_cast<std::size_t>(g)].name == name) return rope.layers_of_group(g);
    FAIL("no group " << name);
    return {};
}

bool has_warning(const posenc::hf::HfModel& m, const std::string& key)
{
    for (const auto& w : m.warnings)
        if (w.key == key) return true;
    return false;
}

}  // namespace

TEST_CASE("[modernbert/configuration_modernbert.py (transformers 5.16)] ModernBERT-base's legacy keys: global every "
          "3rd layer, 160000 / 10000")
{
    // answerdotai/ModernBERT-base's key set: 22 layers, 768 / 12 heads = 64, global_attn_every_n_layers 3,
    // global_rope_theta 160000, local_rope_theta 10000; no layer_types, no rope_parameters.
    const auto m =
        posenc::hf::parse_model(R"({"model_type": "modernbert", "hidden_size": 768, "num_attention_heads": 12,
        "num_hidden_layers": 22, "global_attn_every_n_layers": 3, "global_rope_theta": 160000.0, "local_rope_theta": 10000.0,
        "max_position_embeddings": 8192})");
    REQUIRE(m.rope.num_groups() == 2);
    std::vector<int> full;
    for (int i = 0; i < 22; i += 3) full.push_back(i);
    CHECK(layers_named(m.rope, "full_attention") == full);
    check_plain(m.rope.group("full_attention"), 64, 64, 160000.0);
    check_plain(m.rope.group("sliding_attention"), 64, 64, 10000.0);
    // every 2nd layer global, the class-default bases when the keys are absent
    const auto d =
        posenc::hf::parse_model(R"({"model_type": "modernbert", "hidden_size": 768, "num_attention_heads": 12,
        "num_hidden_layers": 4, "global_attn_every_n_layers": 2})");
    CHECK(layers_named(d.rope, "full_attention") == std::vector<int> {0, 2});
    CHECK(d.rope.group("full_attention").spec.base() == 160000.0);
    CHECK(d.rope.group("sliding_attention").spec.base() == 10000.0);
    CHECK(error_of(R"({"model_type": "modernbert", "num_hidden_layers": 4, "global_attn_every_n_layers": 0})") ==
          "global_attn_every_n_layers: expected a positive integer, got 0");
}

TEST_CASE("[step3p7/configuration_step3p7.py Step3p5TextConfig (transformers 5.16)] per-layer rope_theta and "
          "partial_rotary_factors lists")
{
    // Layer types from sparse_attention_freq (1: minimax_m3_sparse), each type's dict from its first
    // layer: full_attention theta 5e6 with 0.5 of the head, minimax_m3_sparse theta 1e4 with the whole head.
    const auto m = posenc::hf::parse_model(R"({"model_type": "step3p5", "head_dim": 128, "num_hidden_layers": 4,
        "sparse_attention_config": {"sparse_attention_freq": [0, 1, 0, 1]},
        "rope_theta": [5000000.0, 10000.0, 5000000.0, 10000.0], "partial_rotary_factors": [0.5, 1.0, 0.5, 1.0]})");
    REQUIRE(m.rope.num_groups() == 2);
    CHECK(m.rope.layer_map() == std::vector<int> {0, 1, 0, 1});
    check_plain(m.rope.group("full_attention"), 128, 64, 5e6);
    check_plain(m.rope.group("minimax_m3_sparse"), 128, 128, 1e4);
    // Lists padded with the multi-token-prediction layers lose their tail.
    const auto mtp = posenc::hf::parse_model(R"({"model_type": "step3p5", "head_dim": 128, "num_hidden_layers": 2,
        "num_nextn_predict_layers": 1, "rope_theta": [1e6, 1e6, 7.0], "partial_rotary_factors": [0.5, 0.5, 0.25]})");
    check_plain(mtp.rope.primary_group(), 128, 64, 1e6);
    // A later layer of the same type that disagrees: transformers would give it the first layer's values.
    CHECK(error_of(R"({"model_type": "step3p5", "head_dim": 128, "num_hidden_layers": 2, "rope_theta": [1e6, 2e6]})") ==
          "rope_theta[1]: expected the value of layer 0, the first full_attention layer: transformers builds one table "
          "per layer type from its first layer, got 2000000.0");
    // The wrapper step3p7 nests it in text_config.
    const auto w =
        posenc::hf::parse_model(R"({"model_type": "step3p7", "text_config": {"head_dim": 128, "num_hidden_layers": 1,
        "rope_theta": 1e6}})");
    CHECK(w.model_type == "step3p5");
    check_plain(w.rope.primary_group(), 128, 128, 1e6);
}

TEST_CASE("[laguna/configuration_laguna.py, mimo_v2_flash/configuration_mimo_v2_flash.py (transformers 5.16)] "
          "rope_parameters per layer type, as given")
{
    // MiMo-V2-Flash's class defaults: layer 0 and every 6th full_attention, head 192, both types 0.334 of
    // the head (int(192 * 0.334) = 64), bases 5e6 / 1e4.
    const auto m = posenc::hf::parse_model(R"({"model_type": "mimo_v2_flash", "num_hidden_layers": 12})");
    CHECK(layers_named(m.rope, "full_attention") == std::vector<int> {0, 5, 11});
    check_plain(m.rope.group("full_attention"), 192, 64, 5e6);
    check_plain(m.rope.group("sliding_attention"), 192, 64, 1e4);
    // Laguna: every layer full_attention by default, half the head at 5e5; a top-level rope_theta is not read.
    const auto l = posenc::hf::parse_model(R"({"model_type": "laguna", "num_hidden_layers": 2, "rope_theta": 1e4})");
    REQUIRE(l.rope.num_groups() == 1);
    check_plain(l.rope.primary_group(), 128, 64, 5e5);
    CHECK(has_warning(l, "rope_theta"));
    // Each given dict must carry its rope_theta (the rotary embedding indexes it), and a flat dict is refused.
    CHECK(
        error_of(
            R"({"model_type": "laguna", "num_hidden_layers": 1, "rope_parameters": {"full_attention": {"rope_type": "default"}}})") ==
        "rope_parameters.full_attention.rope_theta: expected a number: model_type \"laguna\"'s configuration keeps "
        "rope_parameters as given, and its rotary embedding reads rope_theta from each layer type's dict, got nothing");
    CHECK(
        error_of(
            R"({"model_type": "laguna", "num_hidden_layers": 1, "rope_parameters": {"rope_type": "default", "rope_theta": 1e4}})")
            .rfind("rope_parameters: expected a dict for layer type \"full_attention\"", 0) == 0);
}

TEST_CASE("[granite_swa/modeling_granite_swa.py, muse_glimmer/modeling_muse_glimmer.py (transformers 5.16)] "
          "layer_rope_theta: a base per layer, 0 = NoPE")
{
    // GraniteSWAModel: one rotary embedding per distinct non-zero theta (the dict with that rope_theta), None for 0.
    const auto g =
        posenc::hf::parse_model(R"({"model_type": "granite_swa", "hidden_size": 2560, "num_attention_heads": 20,
        "num_hidden_layers": 4, "layer_rope_theta": [10000, 0, 500000, 10000]})");
    CHECK(g.rope.nope_layers() == std::vector<int> {1});
    REQUIRE(g.rope.num_groups() == 2);
    CHECK(g.rope.layer_map() == std::vector<int> {0, -1, 1, 0});
    check_plain(g.rope.groups()[0], 128, 128, 1e4);
    check_plain(g.rope.groups()[1], 128, 128, 5e5);
    // The class default: every layer at rope_theta, one table.
    const auto one =
        posenc::hf::parse_model(R"({"model_type": "granite_swa", "hidden_size": 2560, "num_attention_heads": 20,
        "num_hidden_layers": 3, "rope_theta": 1e6})");
    REQUIRE(one.rope.num_groups() == 1);
    CHECK(one.rope.nope_layers().empty());
    check_plain(one.rope.primary_group(), 128, 128, 1e6);
    CHECK(error_of(R"({"model_type": "granite_swa", "num_hidden_layers": 2, "layer_rope_theta": [1e4]})")
              .rfind("layer_rope_theta: expected one base per layer (2; 0 = no RoPE)", 0) == 0);
    // Muse Glimmer: 0 on every 4th layer counted back from the last; every other layer the one table.
    const auto m = posenc::hf::parse_model(R"({"model_type": "muse_glimmer", "text_config": {"num_hidden_layers": 8,
        "rope_parameters": {"rope_type": "default", "rope_theta": 500000.0}}})");
    CHECK(m.rope.nope_layers() == std::vector<int> {3, 7});
    REQUIRE(m.rope.num_groups() == 1);
    check_plain(m.rope.primary_group(), 128, 128, 5e5);
    // A non-zero entry other than the table's base only says "rotate": a warning names it.
    const auto w = posenc::hf::parse_model(R"({"model_type": "muse_glimmer_text", "num_hidden_layers": 2,
        "rope_parameters": {"rope_type": "default", "rope_theta": 500000.0}, "layer_rope_theta": [0, 1000]})");
    CHECK(w.rope.nope_layers() == std::vector<int> {0});
    CHECK(w.rope.primary_group().spec.base() == 5e5);
    CHECK(has_warning(w, "layer_rope_theta[1]"));
}

TEST_CASE("[afmoe/modeling_afmoe.py, cohere2_moe/modeling_cohere2_moe.py (transformers 5.16)] RoPE decided by the "
          "layer's attention")
{
    // AFMoE: is_local_attention layers rotate; full_attention every 4th ((i + 1) % 4 == 0) by default.
    const auto a =
        posenc::hf::parse_model(R"({"model_type": "afmoe", "num_hidden_layers": 8, "sliding_window": null})");
    CHECK(a.rope.nope_layers() == std::vector<int> {3, 7});
    check_plain(a.rope.primary_group(), 128, 128, 1e4);
    // Cohere 2 MoE: sliding layers rotate while a window is set; the first first_k_dense_replace (dense)
    // layers under prefix_dense_sliding_window_pattern 1 are full_attention and rotate anyway (force_rope).
    const auto c =
        posenc::hf::parse_model(R"({"model_type": "cohere2_moe", "num_hidden_layers": 6, "first_k_dense_replace": 2})");
    // layer types: dense prefix [full, full] (pattern 1), then [sliding, sliding, sliding, full] (pattern 4)
    CHECK(c.rope.nope_layers() == std::vector<int> {5});
    CHECK(c.rope.primary_group().spec.pairing() == posenc::Pairing::interleaved);
    // no window: only the forced dense layers rotate
    const auto n =
        posenc::hf::parse_model(R"({"model_type": "cohere2_moe", "num_hidden_layers": 4, "first_k_dense_replace": 1,
        "sliding_window": null})");
    CHECK(n.rope.nope_layers() == std::vector<int> {1, 2, 3});
}

TEST_CASE("[wav2vec2_conformer, seamless_m4t, esm, clvp, moonshine modeling files (transformers 5.16)] RoPE switched "
          "on by keys of their own")
{
    // Wav2Vec2ConformerRotaryPositionalEmbedding: dim = hidden_size // num_attention_heads, base rotary_embedding_base.
    const auto w =
        posenc::hf::parse_model(R"({"model_type": "wav2vec2-conformer", "hidden_size": 1024, "num_attention_heads": 16,
        "num_hidden_layers": 2, "position_embeddings_type": "rotary", "rotary_embedding_base": 10000})");
    check_plain(w.rope.primary_group(), 64, 64, 1e4);
    CHECK(w.rope.primary_group().max_position_embeddings == 5000);  // max_source_positions' class default
    CHECK(error_of(R"({"model_type": "wav2vec2-conformer", "num_hidden_layers": 2})") ==
          "position_embeddings_type: expected \"rotary\": model_type \"wav2vec2-conformer\" rotates only then "
          "(\"relative\" is "
          "another position encoding, which posenc does not describe; it is the class default), got \"relative\"");
    // SeamlessM4T's speech encoder: hidden_size // speech_encoder_attention_heads.
    const auto m4t = posenc::hf::parse_model(
        R"({"model_type": "seamless_m4t", "hidden_size": 1024, "speech_encoder_attention_heads": 8,
        "num_hidden_layers": 2, "position_embeddings_type": "rotary", "rotary_embedding_base": 50000})");
    check_plain(m4t.rope.primary_group(), 128, 128, 5e4);
    // ESM-2: position_embedding_type "rotary", base 10000.
    const auto e = posenc::hf::parse_model(R"({"model_type": "esm", "hidden_size": 320, "num_attention_heads": 20,
        "num_hidden_layers": 6, "position_embedding_type": "rotary"})");
    check_plain(e.rope.primary_group(), 16, 16, 1e4);
    // CLVP: max(projection_dim // (2 heads), 32) = max(768 // 24, 32) = 32 of the 64-wide head rotate.
    const auto c =
        posenc::hf::parse_model(R"({"model_type": "clvp_encoder", "hidden_size": 768, "num_attention_heads": 12,
        "num_hidden_layers": 2, "projection_dim": 768})");
    check_plain(c.rope.primary_group(), 64, 32, 1e4);
    // Moonshine: the decoder's heads (attribute_map): 288 // 8 = 36, the class default 0.9 of it rotates.
    const auto mo =
        posenc::hf::parse_model(R"({"model_type": "moonshine", "hidden_size": 288, "decoder_num_attention_heads": 8,
        "decoder_num_hidden_layers": 6})");
    CHECK(mo.rope.num_layers() == 6);
    CHECK(mo.rope.primary_group().spec.head_dim() == 36);
    CHECK(mo.rope.primary_group().spec.rotary_dim() == 32);  // int(36 * 0.9)
    CHECK(mo.rope.primary_group().spec.pairing() == posenc::Pairing::interleaved);
}

TEST_CASE("[roformer/modeling_roformer.py (transformers 5.16)] RoFormer: interleaved pairs at base 10000; rotary_value "
          "refused")
{
    // RoFormerSinusoidalPositionalEmbedding over hidden_size // num_attention_heads = 64; apply_rotary_position_embeddings
    // pairs (2i, 2i + 1) (x[..., ::2] with x[..., 1::2]).
    const auto r = posenc::hf::parse_model(R"({"model_type": "roformer", "hidden_size": 768, "num_attention_heads": 12,
        "num_hidden_layers": 12, "max_position_embeddings": 1536})");
    check_plain(r.rope.primary_group(), 64, 64, 1e4);
    CHECK(r.rope.primary_group().spec.pairing() == posenc::Pairing::interleaved);
    CHECK(error_of(R"({"model_type": "roformer", "num_hidden_layers": 1, "rotary_value": true})") ==
          "rotary_value: expected false: RoFormer then rotates the values too, and posenc describes the rotation of "
          "queries "
          "and keys only, got true");
}

TEST_CASE("[cohere2_moe/configuration_cohere2_moe.py (transformers 5.16)] rope_scaling is a plain field, never applied")
{
    // Cohere2MoeConfig declares rope_scaling, so the generic conversion (which pops it from the extra
    // keys) never sees it: the table is rope_parameters' alone, here plain RoPE at base 10000.
    const auto m = posenc::hf::parse_model(R"({"model_type": "cohere2_moe", "head_dim": 64, "num_hidden_layers": 4,
        "rope_scaling": {"rope_type": "linear", "factor": 4.0}})");
    CHECK(has_warning(m, "rope_scaling"));
    check_plain(m.rope.groups().front(), 64, 64, 10000.0);
}

TEST_CASE("[gemma3/configuration_gemma3.py, gemma3n/configuration_gemma3n.py (transformers 5.16)] "
          "sliding_window_pattern sets Gemma 3's layer types; Gemma 3n's are fixed")
{
    // Gemma3TextConfig: layer_types absent, layer i is full_attention iff (i + 1) % sliding_window_pattern
    // == 0 (the key, class default 6). Gemma3nTextConfig: iff (i + 1) % 5 == 0, the key is not read.
    const auto m = posenc::hf::parse_model(R"({"model_type": "gemma3_text", "head_dim": 64, "num_hidden_layers": 8,
        "sliding_window_pattern": 4})");
    CHECK(layers_named(m.rope, "full_attention") == std::vector<int> {3, 7});
    check_plain(m.rope.group("sliding_attention"), 64, 64, 10000.0);
    check_plain(m.rope.group("full_attention"), 64, 64, 1e6);
    const auto d = posenc::hf::parse_model(R"({"model_type": "gemma3_text", "head_dim": 64, "num_hidden_layers": 12})");
    CHECK(layers_named(d.rope, "full_attention") == std::vector<int> {5, 11});
    const auto n = posenc::hf::parse_model(R"({"model_type": "gemma3n_text", "head_dim": 64, "num_hidden_layers": 10,
        "sliding_window_pattern": 4})");
    CHECK(layers_named(n.rope, "full_attention") == std::vector<int> {4, 9});
    CHECK(has_warning(n, "sliding_window_pattern"));
    CHECK(error_of(R"({"model_type": "gemma3_text", "num_hidden_layers": 4, "sliding_window_pattern": 0})") ==
          "sliding_window_pattern: expected a positive integer, got 0");
    // A single rope_parameters dict: transformers 5 leaves it unread (its rotary embedding looks its dicts
    // up by layer type); a rope_scaling typed with the legacy key "type" is merged into {"rope_type":
    // "default"} and ignored by transformers 5, applied by transformers 4. ModernBERT likewise.
    CHECK(error_of(R"({"model_type": "gemma3_text", "num_hidden_layers": 2, "rope_parameters": {"rope_type": "linear",
        "factor": 8.0}})")
              .rfind("rope_parameters: expected one dict per layer type", 0) == 0);
    CHECK(error_of(R"({"model_type": "gemma3_text", "num_hidden_layers": 2, "rope_scaling": {"type": "linear",
        "factor": 8.0}})")
              .rfind("rope_scaling.type: expected the key rope_type", 0) == 0);
    CHECK(error_of(R"({"model_type": "modernbert", "num_hidden_layers": 2, "rope_parameters": {"rope_type": "linear",
        "factor": 8.0}})")
              .rfind("rope_parameters: expected one dict per layer type", 0) == 0);
    CHECK(error_of(R"({"model_type": "olmo3", "num_hidden_layers": 4, "rope_parameters": {"rope_type": "default",
        "rope_theta": 50000.0}})")
              .rfind("rope_parameters: expected one dict per layer type", 0) == 0);
    // Per-layer-type dicts without rope_theta: full_attention takes rope_theta (class default 1e6),
    // sliding_attention rope_local_base_freq (class default 1e4), as the class's setdefault does.
    const auto per_type =
        posenc::hf::parse_model(R"({"model_type": "gemma3_text", "head_dim": 64, "num_hidden_layers": 6,
        "rope_local_base_freq": 20000, "rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 2.0},
        "sliding_attention": {"rope_type": "default"}}})");
    CHECK(per_type.rope.group("sliding_attention").spec.base() == 20000.0);
    CHECK(per_type.rope.group("full_attention").spec.base() == 1e6);
    // OLMo 3: full_attention's missing rope_theta pops the top-level rope_theta, sliding_attention's is 500000.
    const auto olmo3 = posenc::hf::parse_model(R"({"model_type": "olmo3", "head_dim": 64, "num_hidden_layers": 4,
        "rope_theta": 1e6, "rope_parameters": {"full_attention": {"rope_type": "default"},
        "sliding_attention": {"rope_type": "default"}}})");
    CHECK(olmo3.rope.group("full_attention").spec.base() == 1e6);
    CHECK(olmo3.rope.group("sliding_attention").spec.base() == 500000.0);
    // A layer type Gemma 3's rotary embedding has no table for, without per-layer-type dicts.
    CHECK(error_of(R"({"model_type": "gemma3_text", "layer_types": ["sliding_attention", "chunked_attention"]})") ==
          "layer_types: expected \"sliding_attention\" or \"full_attention\" for Gemma 3, got \"chunked_attention\"");
}

TEST_CASE("[hrm_text/configuration_hrm_text.py (transformers 5.16)] num_hidden_layers becomes num_hidden_layers * "
          "H_cycles * (L_cycles + 1) layer slots")
{
    // Without num_layers_per_stack the class keeps num_hidden_layers as the blocks per stack and sets
    // num_hidden_layers = blocks * H_cycles * (L_cycles + 1); class defaults H_cycles 2, L_cycles 3.
    const auto m = posenc::hf::parse_model(R"({"model_type": "hrm_text", "num_hidden_layers": 4, "head_dim": 64})");
    CHECK(m.rope.num_layers() == 4 * 2 * 4);
    const auto cycles = posenc::hf::parse_model(R"({"model_type": "hrm_text", "num_hidden_layers": 3, "H_cycles": 1,
        "L_cycles": 1, "head_dim": 64})");
    CHECK(cycles.rope.num_layers() == 6);
    // A saved config (num_layers_per_stack present) holds the slot count already.
    const auto saved = posenc::hf::parse_model(R"({"model_type": "hrm_text", "num_hidden_layers": 32,
        "num_layers_per_stack": 4, "head_dim": 64})");
    CHECK(saved.rope.num_layers() == 32);
    // Hostile sizes: the product is refused, never computed past 64 bits.
    CHECK(error_of(R"({"model_type": "hrm_text", "num_hidden_layers": 2000000000, "H_cycles": 2000000000,
        "L_cycles": 2000000000, "head_dim": 64})")
              .rfind("num_hidden_layers: expected num_hidden_layers * H_cycles", 0) == 0);
}

TEST_CASE("[flint/modeling_flint.py, flint/configuration_flint.py (transformers 5.25.0)] only sliding layers rotate, "
          "and only with a window")
{
    // The configuration class: full_attention at layers 0, 1, every i % 4 == 1 and the last; the
    // attention keeps sliding_window on sliding layers only and rotates `if self.sliding_window is not None`.
    const auto m = posenc::hf::parse_model(R"({"model_type": "flint", "num_hidden_layers": 8, "head_dim": 64})");
    CHECK(m.rope.nope_layers() == std::vector<int> {0, 1, 5, 7});
    CHECK(error_of(R"({"model_type": "flint", "num_hidden_layers": 8, "head_dim": 64, "sliding_window": null})")
              .rfind("sliding_window: expected a window", 0) == 0);
}

TEST_CASE("[kolibri1/configuration_kolibri1.py, kolibri1/modeling_kolibri1.py (transformers 5.25.0)] every 5th layer "
          "full and NoPE")
{
    const auto m = posenc::hf::parse_model(R"({"model_type": "kolibri1", "num_hidden_layers": 10, "head_dim": 64})");
    CHECK(m.rope.nope_layers() == std::vector<int> {4, 9});
    // Without a window (transformers refuses sliding layers without one; the attention would rotate every layer).
    const auto open = posenc::hf::parse_model(R"({"model_type": "kolibri1", "num_hidden_layers": 10, "head_dim": 64,
        "sliding_window": null})");
    CHECK(open.rope.nope_layers().empty());
}

TEST_CASE("[hy_v4/modeling_hy_v4.py (transformers 5.25.0)] the attention's RoPE on the qk_rope_head_dim slice; the "
          "indexer's is read beside it")
{
    const auto m = posenc::hf::parse_model(R"({"model_type": "hy_v4", "num_hidden_layers": 2})");
    CHECK(m.indexer.has_value());  // tests/models/indexer_rope_tests.cpp checks it
    CHECK(m.rope.groups().size() == 1);
    CHECK(m.rope.groups()[0].spec.head_dim() == 64);  // the qk_rope_head_dim slice
}

TEST_CASE("[qwen4_exp/configuration_qwen4_exp.py, qwen4_exp/modeling_qwen4_exp.py (transformers 5.25.0)] "
          "full_attention entries are indexed_attention; linear layers NoPE; sections 1 and 2 only")
{
    // The class renames "full_attention" to "indexed_attention"; the text model rotates those layers only.
    const auto m = posenc::hf::parse_model(R"({"model_type": "qwen4_exp_text", "head_dim": 256, "layer_types":
        ["linear_attention", "full_attention", "linear_attention", "indexed_attention"],
        "rope_parameters": {"rope_type": "default", "rope_theta": 1e7, "partial_rotary_factor": 0.25,
                            "mrope_section": [5, 11, 10]}})");
    CHECK(m.rope.nope_layers() == std::vector<int> {0, 2});
    // recomposition_frequencies reads mrope_section[1] and [2]: the temporal axis keeps the other 32 - 21 pairs.
    REQUIRE(m.rope.multi_axis().has_value());
    bool named = false;  // without the indexer_* keys its QSA indexer has no width: named in a warning
    for (const posenc::hf::ConfigWarning& w : m.warnings) named = named || w.key == "indexer_head_dim";
    CHECK(named);
    CHECK(error_of(R"({"model_type": "qwen4_exp_text", "head_dim": 256, "layer_types": ["sliding_attention"]})")
              .rfind("layer_types[0]: expected \"linear_attention\" or \"indexed_attention\"", 0) == 0);
}

TEST_CASE("[kimi_k25/configuration_kimi_k25.py (transformers 5.16)] Kimi K2.5's text_config of model_type kimi_k2 is "
          "read as deepseek_v3")
{
    // The wrapper's configuration class builds a text_config whose model_type is "kimi_k2" with
    // DeepSeek-V3's configuration class (kimi_k2 has none of its own); without text_config it
    // builds DeepSeek-V3's defaults. So the wrapped text model reads exactly as the same keys
    // under model_type deepseek_v3.
    const std::string keys = R"("hidden_size": 7168, "num_attention_heads": 64, "num_hidden_layers": 4,
        "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128, "kv_lora_rank": 512,
        "q_lora_rank": 1536, "rope_theta": 50000.0, "max_position_embeddings": 262144,
        "rope_scaling": {"type": "yarn", "factor": 64.0, "original_max_position_embeddings": 4096,
                         "beta_fast": 32.0, "beta_slow": 1.0, "mscale": 1.0, "mscale_all_dim": 1.0})";
    const posenc::hf::HfModel wrapped = posenc::hf::parse_model(
        R"({"model_type": "kimi_k25", "vision_config": {"model_type": "kimi_k25_vision"},
            "text_config": {"model_type": "kimi_k2", )" +
        keys + "}}");
    const posenc::hf::HfModel plain = posenc::hf::parse_model(R"({"model_type": "deepseek_v3", )" + keys + "}");
    CHECK(wrapped.model_type == "deepseek_v3");
    REQUIRE(wrapped.rope.num_groups() == plain.rope.num_groups());
    const posenc::RopeGroup& w = wrapped.rope.group_of_layer(0);
    const posenc::RopeGroup& p = plain.rope.group_of_layer(0);
    CHECK(w.spec.head_dim() == 64);
    CHECK(w.spec.pairing() == posenc::Pairing::interleaved);  // DeepSeek-V3's rope_interleave default
    CHECK(w.spec.head_dim() == p.spec.head_dim());
    CHECK(w.spec.base() == p.spec.base());
    CHECK(w.spec.pairing() == p.spec.pairing());
    CHECK(w.attention_factor == p.attention_factor);
    CHECK(w.softmax_scale_multiplier == p.softmax_scale_multiplier);
    const posenc::FrequencyTable tw = w.table(posenc::Precision::exact), tp = p.table(posenc::Precision::exact);
    REQUIRE(tw.num_pairs() == tp.num_pairs());
    for (int i = 0; i < tw.num_pairs(); ++i) CHECK(tw.inv_freq(i) == tp.inv_freq(i));
    CHECK(wrapped.qk_head_dim == 192);
    // Kimi K2's released YaRN dict, equal betas included, is read (transformers accepts it).
    std::string released = keys;
    released.replace(released.find("\"beta_fast\": 32.0"), std::string("\"beta_fast\": 32.0").size(),
                     "\"beta_fast\": 1.0");
    const posenc::hf::HfModel kimi = posenc::hf::parse_model(
        R"({"model_type": "kimi_k25", "text_config": {"model_type": "kimi_k2", )" + released + "}}");
    const auto* y = std::get_if<posenc::YarnScaling>(&kimi.rope.group_of_layer(0).scaling);
    REQUIRE(y != nullptr);
    CHECK(y->beta_fast() == 1.0);
    CHECK(y->beta_slow() == 1.0);
    // Another model_type in a Kimi K2.5 text_config is read as written (here refused as unknown).
    CHECK(error_of(R"({"model_type": "kimi_k25", "text_config": {"model_type": "kimi_k3"}})")
              .find("text_config.model_type") == 0);
}

// ---- the legacy key layouts of transformers 5.25.0's new families

TEST_CASE("[dory/configuration_dory.py, ultrabert/configuration_ultrabert.py (transformers 5.25.0)] legacy key layouts "
          "read as the classes do")
{
    // Expected values: the classes' own results (tests/models/legacy_keys_525_reference.py).
    // Dory's released layer_types list an attention block and an mlp block per layer: folded to 4 layers.
    const auto dory = posenc::hf::parse_model(R"({"model_type": "dory", "num_hidden_layers": 8, "layer_types":
        ["sliding_attention", "mlp", "sliding_attention", "mlp", "sliding_attention", "mlp", "full_attention", "mlp"]})");
    CHECK(dory.rope.num_layers() == std::optional<int>(4));
    CHECK(layers_named(dory.rope, "sliding_attention") == std::vector<int> {0, 1, 2});
    CHECK(layers_named(dory.rope, "full_attention") == std::vector<int> {3});
    for (const posenc::RopeGroup& g : dory.rope.groups())
        CHECK(g.spec.base() == (g.name == "full_attention" ? 1e7 : 1e4));  // the class-default dicts
    // A single dict: DoryRotaryEmbedding looks its dicts up by layer type (KeyError 'full_attention').
    CHECK(
        error_of(
            R"({"model_type": "dory", "num_hidden_layers": 4, "rope_parameters": {"rope_type": "default", "rope_theta": 5e5}})")
            .rfind("rope_parameters: expected one dict per layer type", 0) == 0);

    // UltraBERT: attention_windows [128, 0, 128, 0] and one base per layer; each type keeps its LAST layer's.
    const auto ub = posenc::hf::parse_model(R"({"model_type": "ultrabert", "num_hidden_layers": 4, "hidden_size": 256,
        "num_attention_heads": 4, "attention_windows": [128, 0, 128, 0], "rope_theta": [1e4, 1.6e5, 2e4, 3.2e5]})");
    CHECK(layers_named(ub.rope, "sliding_attention") == std::vector<int> {0, 2});
    CHECK(layers_named(ub.rope, "full_attention") == std::vector<int> {1, 3});
    for (const posenc::RopeGroup& g : ub.rope.groups())
        CHECK(g.spec.base() == (g.name == "full_attention" ? 3.2e5 : 2e4));
    // Dicts without rope_theta: convert_rope_params_to_dict's setdefault gives Dory's the top-level rope_theta, and
    // UltraBERT's the default_theta 10000 (its class pops rope_theta first; the key is then not read: a warning).
    const char* dicts = R"("rope_theta": 5e5, "rope_parameters": {"sliding_attention": {"rope_type": "default"},
        "full_attention": {"rope_type": "default"}}})";
    const auto dory_filled =
        posenc::hf::parse_model(std::string(R"({"model_type": "dory", "num_hidden_layers": 4, )") + dicts);
    for (const posenc::RopeGroup& g : dory_filled.rope.groups()) CHECK(g.spec.base() == 5e5);
    const auto ub_filled = posenc::hf::parse_model(
        std::string(
            R"({"model_type": "ultrabert", "num_hidden_layers": 3, "hidden_size": 256, "num_attention_heads": 4, )") +
        dicts);
    for (const posenc::RopeGroup& g : ub_filled.rope.groups()) CHECK(g.spec.base() == 1e4);
    CHECK(has_warning(ub_filled, "rope_theta"));
    CHECK_FALSE(has_warning(dory_filled, "rope_theta"));
    // A single rope_theta: the class zips it with layer_types (TypeError: 'float' object is not iterable).
    CHECK(error_of(R"({"model_type": "ultrabert", "num_hidden_layers": 3, "hidden_size": 256, "num_attention_heads": 4,
        "rope_theta": 5e4})")
              .rfind("rope_theta: expected a list of bases", 0) == 0);
}

TEST_CASE("[ergo/modeling_ergo.py, unlimited_ocr/configuration_unlimited_ocr.py (transformers 5.25.0)] what the "
          "readers refuse by name")
{
    // Ergo's full_attention layers take no position embeddings: a dict there would rotate them.
    CHECK(error_of(R"({"model_type": "ergo", "num_hidden_layers": 4, "rope_parameters": {"sliding_attention":
        {"rope_type": "default", "rope_theta": 1e6}, "full_attention": {"rope_type": "default", "rope_theta": 1e4}}})")
              .rfind("rope_parameters.full_attention: expected null", 0) == 0);
    const auto ergo = posenc::hf::parse_model(R"({"model_type": "ergo", "num_hidden_layers": 4, "rope_parameters":
        {"sliding_attention": {"rope_type": "default", "rope_theta": 5e5}, "full_attention": null}})");
    CHECK(ergo.rope.nope_layers() == std::vector<int> {3});
    CHECK(ergo.rope.group_of_layer(0).spec.base() == 5e5);
    CHECK(ergo.rope.group_of_layer(0).spec.pairing() == posenc::Pairing::interleaved);
    CHECK_FALSE(has_warning(ergo, "global_attention_scale"));
    CHECK(has_warning(
        posenc::hf::parse_model(R"({"model_type": "ergo", "num_hidden_layers": 4, "global_attention_scale": 1.3})"),
        "global_attention_scale"));
    // Unlimited-OCR's original checkpoints keep the text model in language_config, which posenc does not read.
    CHECK(error_of(R"({"model_type": "unlimited_ocr", "language_config": {"hidden_size": 1280}})")
              .rfind("language_config: ", 0) == 0);
    // Its text model's head is hidden_size // num_attention_heads whatever head_dim says.
    const auto ocr = posenc::hf::parse_model(R"({"model_type": "unlimited_ocr", "text_config": {"hidden_size": 1280,
        "num_attention_heads": 10, "head_dim": 64}})");
    CHECK(ocr.rope.group_of_layer(0).spec.head_dim() == 128);
}

}  // namespace models_family_rules_tests
