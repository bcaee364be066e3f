// SPDX-License-Identifier: MIT
// posenc/models/hf_families.hpp: what Hugging Face's code, not the config, decides per model_type.
//
// A config.json does not say everything about a model's RoPE. Three things come from the
// model's own Python files in transformers, keyed by `model_type`:
//   1. the pairing (modeling_*.py: rotate_half gives half_split pairs (i, i + R/2);
//      rotate_every_two, repeat_interleave or complex views give interleaved pairs (2i, 2i + 1));
//   2. the value of a key the config leaves out (configuration_*.py class defaults);
//   3. which layers rotate at all, and with which parameters (layer types, NoPE layers).
// This header is that table, as data, with the file each row comes from (paths in the
// transformers repository). docs/models.md prints the same table for readers.
//
// A model_type not listed here is read with half_split pairing and generic defaults, with a
// warning, as long as its config uses only keys whose meaning does not depend on the model
// (hf_model.hpp refuses the others, naming the key).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "posenc/spec.hpp"

namespace posenc::hf {

/// Which layers carry RoPE, and with what, beyond "every layer alike".
enum class LayerRule {
    uniform,             ///< every attention layer rotates with the one table (layer_types, if any, do not matter)
    gemma3_local_base,   ///< sliding_attention layers: rope_local_base_freq, no scaling; full_attention: rope_theta + scaling
    nope_when_full,      ///< full_attention layers have no RoPE (Cohere 2 always; EXAONE 4 when a sliding window is set)
    linear_attention_nope,  ///< linear_attention layers (Gated DeltaNet) have no RoPE at all
    no_rope_layers,      ///< no_rope_layers[i] == 1: layer i rotates; 0: NoPE; default every no_rope_layer_interval-th layer NoPE
};

/// What a model family's code decides; see the file comment.
struct FamilyRules {
    std::string_view model_type;
    Pairing pairing;
    std::string_view pairing_source;  ///< modeling file (transformers repository path)
    // Class defaults for keys a config may leave out (nullopt / 0: the generic default).
    std::optional<double> rope_theta;             ///< generic: 10000
    std::optional<double> partial_rotary_factor;  ///< generic: 1
    int head_dim = 0;                             ///< generic: hidden_size // num_attention_heads
    std::int64_t max_position_embeddings = 0;     ///< generic: none
    std::string_view defaults_source;             ///< configuration file, "" when no default differs
    LayerRule layers = LayerRule::uniform;
    int layer_pattern = 0;  ///< default sliding_window_pattern / full_attention_interval / no_rope_layer_interval
    bool multi_axis = false;  ///< reads mrope_section (and mrope_interleaved) from the RoPE dict
    bool hunyuan_alpha = false;  ///< dynamic RoPE with "alpha": base * alpha^(H / (H - 2)), static
    bool head_dim_from_hidden = false;  ///< head_dim is always hidden_size // num_attention_heads (a head_dim key is overwritten)
};

/// The families posenc knows. Paths are relative to src/transformers/models/ in the transformers repository.
inline constexpr FamilyRules known_families[] = {
    // ---- half_split (rotate_half), generic defaults
    {"llama", Pairing::half_split, "llama/modeling_llama.py", {}, {}, 0, 0, "", LayerRule::uniform, 0, false, false, false},
    {"mistral", Pairing::half_split, "mistral/modeling_mistral.py", {}, {}, 0, 0, "", LayerRule::uniform, 0, false, false, false},
    {"mixtral", Pairing::half_split, "mixtral/modeling_mixtral.py", {}, {}, 0, 0, "", LayerRule::uniform, 0, false, false, false},
    {"qwen2", Pairing::half_split, "qwen2/modeling_qwen2.py", {}, {}, 0, 0, "", LayerRule::uniform, 0, false, false, false},
    {"qwen2_moe", Pairing::half_split, "qwen2_moe/modeling_qwen2_moe.py", {}, {}, 0, 0, "", LayerRule::uniform, 0, false, false, false},
    {"qwen3", Pairing::half_split, "qwen3/modeling_qwen3.py", {}, {}, 128, 0, "qwen3/configuration_qwen3.py", LayerRule::uniform, 0, false, false, false},
    {"qwen3_moe", Pairing::half_split, "qwen3_moe/modeling_qwen3_moe.py", {}, {}, 128, 0, "qwen3_moe/configuration_qwen3_moe.py", LayerRule::uniform, 0, false, false, false},
    {"qwen3_next", Pairing::half_split, "qwen3_next/modeling_qwen3_next.py", {}, 0.25, 256, 0, "qwen3_next/configuration_qwen3_next.py", LayerRule::linear_attention_nope, 4, false, false, false},
    {"phi", Pairing::half_split, "phi/modeling_phi.py", {}, 0.5, 0, 2048, "phi/configuration_phi.py", LayerRule::uniform, 0, false, false, false},
    {"phi3", Pairing::half_split, "phi3/modeling_phi3.py", {}, {}, 0, 0, "", LayerRule::uniform, 0, false, false, false},
    {"gpt_neox", Pairing::half_split, "gpt_neox/modeling_gpt_neox.py", {}, 0.25, 0, 2048, "gpt_neox/configuration_gpt_neox.py", LayerRule::uniform, 0, false, false, false},
    {"falcon", Pairing::half_split, "falcon/modeling_falcon.py", {}, {}, 0, 2048, "falcon/configuration_falcon.py", LayerRule::uniform, 0, false, false, false},
    {"gemma", Pairing::half_split, "gemma/modeling_gemma.py", {}, {}, 256, 0, "gemma/configuration_gemma.py", LayerRule::uniform, 0, false, false, false},
    {"gemma2", Pairing::half_split, "gemma2/modeling_gemma2.py", {}, {}, 256, 0, "gemma2/configuration_gemma2.py", LayerRule::uniform, 0, false, false, false},
    {"gemma3_text", Pairing::half_split, "gemma3/modeling_gemma3.py", 1e6, {}, 256, 131072, "gemma3/configuration_gemma3.py", LayerRule::gemma3_local_base, 6, false, false, false},
    {"olmo", Pairing::half_split, "olmo/modeling_olmo.py", {}, {}, 0, 0, "", LayerRule::uniform, 0, false, false, false},
    {"olmo2", Pairing::half_split, "olmo2/modeling_olmo2.py", {}, {}, 0, 0, "", LayerRule::uniform, 0, false, false, false},
    {"gpt_oss", Pairing::half_split, "gpt_oss/modeling_gpt_oss.py", 150000.0, {}, 64, 0, "gpt_oss/configuration_gpt_oss.py", LayerRule::uniform, 0, false, false, false},
    {"smollm3", Pairing::half_split, "smollm3/modeling_smollm3.py", 2000000.0, {}, 0, 0, "smollm3/configuration_smollm3.py", LayerRule::no_rope_layers, 4, false, false, false},
    {"exaone4", Pairing::half_split, "exaone4/modeling_exaone4.py", {}, {}, 0, 0, "exaone4/configuration_exaone4.py", LayerRule::nope_when_full, 4, false, false, false},
    {"hunyuan_v1_dense", Pairing::half_split, "hunyuan_v1_dense/modeling_hunyuan_v1_dense.py", {}, {}, 0, 0, "", LayerRule::uniform, 0, false, true, false},
    {"hunyuan_v1_moe", Pairing::half_split, "hunyuan_v1_moe/modeling_hunyuan_v1_moe.py", {}, {}, 0, 0, "", LayerRule::uniform, 0, false, true, false},
    {"qwen2_vl", Pairing::half_split, "qwen2_vl/modeling_qwen2_vl.py", {}, {}, 0, 0, "", LayerRule::uniform, 0, true, false, false},
    {"qwen2_vl_text", Pairing::half_split, "qwen2_vl/modeling_qwen2_vl.py", {}, {}, 0, 0, "", LayerRule::uniform, 0, true, false, false},
    {"qwen2_5_vl", Pairing::half_split, "qwen2_5_vl/modeling_qwen2_5_vl.py", {}, {}, 0, 0, "", LayerRule::uniform, 0, true, false, false},
    {"qwen2_5_vl_text", Pairing::half_split, "qwen2_5_vl/modeling_qwen2_5_vl.py", {}, {}, 0, 0, "", LayerRule::uniform, 0, true, false, false},
    {"qwen3_vl_text", Pairing::half_split, "qwen3_vl/modeling_qwen3_vl.py", {}, {}, 0, 0, "", LayerRule::uniform, 0, true, false, false},
    {"qwen3_vl_moe_text", Pairing::half_split, "qwen3_vl_moe/modeling_qwen3_vl_moe.py", {}, {}, 0, 0, "", LayerRule::uniform, 0, true, false, false},
    // ---- interleaved pairs (2i, 2i + 1)
    {"gptj", Pairing::interleaved, "gptj/modeling_gptj.py", {}, {}, 0, 0, "", LayerRule::uniform, 0, false, false, false},
    {"codegen", Pairing::interleaved, "codegen/modeling_codegen.py", {}, {}, 0, 0, "", LayerRule::uniform, 0, false, false, false},
    {"cohere", Pairing::interleaved, "cohere/modeling_cohere.py", {}, {}, 0, 0, "", LayerRule::uniform, 0, false, false, false},
    {"cohere2", Pairing::interleaved, "cohere2/modeling_cohere2.py", {}, {}, 0, 0, "cohere2/configuration_cohere2.py", LayerRule::nope_when_full, 4, false, false, true},
    {"glm", Pairing::interleaved, "glm/modeling_glm.py", {}, 0.5, 0, 0, "glm/configuration_glm.py", LayerRule::uniform, 0, false, false, false},
    {"glm4", Pairing::interleaved, "glm4/modeling_glm4.py", {}, 0.5, 0, 0, "glm4/configuration_glm4.py", LayerRule::uniform, 0, false, false, false},
    {"deepseek_v2", Pairing::interleaved, "deepseek_v2/modeling_deepseek_v2.py", {}, {}, 0, 0, "", LayerRule::uniform, 0, false, false, false},
    {"deepseek_v3", Pairing::interleaved, "deepseek_v3/modeling_deepseek_v3.py", {}, {}, 0, 0, "", LayerRule::uniform, 0, false, false, false},
    {"ernie4_5", Pairing::interleaved, "ernie4_5/modeling_ernie4_5.py", 500000.0, {}, 128, 0, "ernie4_5/configuration_ernie4_5.py", LayerRule::uniform, 0, false, false, false},
    {"ernie4_5_moe", Pairing::interleaved, "ernie4_5_moe/modeling_ernie4_5_moe.py", 500000.0, {}, 0, 0, "ernie4_5_moe/configuration_ernie4_5_moe.py", LayerRule::uniform, 0, false, false, false},
    {"llama4_text", Pairing::interleaved, "llama4/modeling_llama4.py", 500000.0, {}, 128, 0, "llama4/configuration_llama4.py", LayerRule::no_rope_layers, 4, false, false, false},
};

/// The rules of `model_type`, or nullptr for a model_type posenc does not know.
inline const FamilyRules* find_family(std::string_view model_type) noexcept
{
    for (const FamilyRules& f : known_families)
        if (f.model_type == model_type) return &f;
    return nullptr;
}

/// The text model_type a multimodal wrapper nests in text_config when text_config itself has none.
inline std::string_view text_model_type_of(std::string_view outer) noexcept
{
    if (outer == "gemma3") return "gemma3_text";
    if (outer == "llama4") return "llama4_text";
    if (outer == "qwen2_vl") return "qwen2_vl_text";
    if (outer == "qwen2_5_vl") return "qwen2_5_vl_text";
    if (outer == "qwen3_vl") return "qwen3_vl_text";
    if (outer == "qwen3_vl_moe") return "qwen3_vl_moe_text";
    return outer;
}

}  // namespace posenc::hf
