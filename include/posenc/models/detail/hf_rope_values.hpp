// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_rope_values.hpp: one RoPE group of a config.json as plain values
// (HfRopeConfig), resolved as Hugging Face resolves them, with the key path each value came from;
// and what the whole-model reader tells the group reader beyond the config object (GroupContext).
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/hf_rope_values.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "posenc/models/hf_read_options.hpp"
#include "posenc/spec.hpp"

namespace posenc::hf::detail {

/// The RoPE-relevant content of a config.json, resolved as Hugging Face resolves it.
struct HfRopeConfig {
    std::string name_or_path;  ///< "_name_or_path" when present, else ""
    std::string model_type;  ///< "" when absent
    int head_dim = 0;  ///< width of the tensor RoPE is applied to
    int rotary_dim = 0;  ///< int(head_dim * partial_rotary_factor), or GPT-J's rotary_dim
    double rope_theta = 10000.0;
    Pairing pairing = Pairing::half_split;
    std::int64_t max_position_embeddings = 0;  ///< 0 when absent

    /// "default", "linear", "dynamic", "yarn", "longrope" or "llama3" (legacy "type" and
    /// Phi-3's "su" already mapped).
    std::string rope_type = "default";
    std::string scaling_key;  ///< "rope_scaling", "rope_parameters" or "" (no scaling dict)
    std::optional<double> factor;
    std::optional<std::int64_t> original_max_position_embeddings;  ///< resolved L0 (transformers v5 priority)
    std::optional<double> attention_factor, beta_fast, beta_slow, mscale, mscale_all_dim;
    std::optional<double> low_freq_factor, high_freq_factor;
    std::optional<bool> truncate;
    std::vector<double> short_factor, long_factor;
    /// M-RoPE: pairs per position axis (temporal, height, width), from the dict's mrope_section.
    std::vector<int> mrope_section;
    bool mrope_interleaved = false;  ///< the dict's mrope_interleaved (Qwen3-VL)
    bool mrope_interleaved_given = false;  ///< whether the dict holds mrope_interleaved at all
    std::optional<double> alpha;  ///< HunYuan's dynamic-NTK alpha, from the dict
    /// Proportional RoPE (rope_type "proportional"): the dict's partial_rotary_factor, the fraction
    /// of the whole head's pairs that rotate (rotary_dim stays head_dim).
    std::optional<double> proportional_fraction;
    /// PhiMoE's LongRoPE magnitudes (the dict's short_mscale and long_mscale).
    std::optional<double> short_mscale, long_mscale;
    /// Mistral 4's MLA: qk_rope_head_dim, the rotated part at the end of the head (0 otherwise).
    int mla_rope_head_dim = 0;
    /// First rotated coordinate of the head (Mistral 4: head_dim - rotary_dim; 0: a prefix).
    int rotary_offset = 0;
    bool inverse_rope_on_output = false;  ///< the attention output's slice is rotated back (DeepSeek-V4)

    /// DeepSeek MLA: qk_nope_head_dim + qk_rope_head_dim (the softmax-scale width); 0 otherwise.
    int qk_head_dim = 0;
    /// MLA attention multiplies its softmax scale by g(s, mscale_all_dim)^2 under YaRN: the family's
    /// trait::mla_softmax_mscale, true for a model_type posenc does not know (read from the family
    /// record by the JSON stage, so that the objects stage does not look model_type up again).
    bool mla_softmax_mscale = true;

    /// Where a resolved value came from, as a key path (or an expression of key paths), so that a
    /// later stage (hf_config.hpp) can name the key when the library refuses the value.
    std::string head_dim_key =
        "head_dim";  ///< "head_dim", "qk_rope_head_dim", "hidden_size / num_attention_heads", ...
    std::string rotary_dim_key =
        "head_dim";  ///< "partial_rotary_factor", "rotary_pct", "rotary_dim", "<dict>.partial_rotary_factor", or head_dim's key
    std::string rope_theta_key = "rope_theta";  ///< "rope_theta", "rotary_emb_base" or "<dict>.rope_theta"
    std::string factor_key;  ///< "<dict>.factor" or "max_position_embeddings / original_max_position_embeddings"
    std::string
        original_max_position_embeddings_key;  ///< "original_max_position_embeddings", "<dict>.original_max_position_embeddings" or "max_position_embeddings"

    std::vector<ConfigWarning> warnings;
    std::vector<std::string> notes;  ///< facts worth telling the user (e.g. DeepSeek's de-interleave)
};

struct Family;  // family_row.hpp
namespace families {
struct FamilySteps;  // families/family_steps.hpp
}

/// What the model-level reader (hf_model_reader.hpp) tells the one-group resolver beyond the
/// config object itself.
struct GroupContext {
    /// The scaling dict to use instead of the config's own (one entry of a per-layer-type
    /// rope_parameters), and the key path that names it.
    const nlohmann::json* dict = nullptr;
    std::string dict_key;
    /// Read the group without any scaling dict (Gemma 3's sliding-window layers).
    bool no_scaling = false;
    /// A base that replaces rope_theta (Gemma 3's rope_local_base_freq), and its key.
    std::optional<double> base;
    std::string base_key;
    /// The model_type and name when the object is a nested text_config that lacks them.
    std::string model_type, name_or_path;
    /// Compare a rope_scaling that sits beside rope_parameters with this group's dict (the
    /// full-attention group's; other layer types' dicts are not what rope_scaling describes).
    bool check_rope_scaling = true;
    /// The object's rope_parameters is the config's own, not a wrapper's text default (hf_class_defaults.hpp)
    /// or a family rule's canonical rewrite (families/own_rope_keys.hpp), whose code may not read rope_scaling.
    bool own_object = true;
    /// `dict` is one entry of a per-layer-type rope_parameters (transformers 5 standardizes those
    /// apart from a single dict: no top-level original_max_position_embeddings, truncate read from the
    /// top level of rope_parameters).
    bool per_layer_type = false;
    /// A head dim that replaces the config's for this group (Gemma 4's full_attention layers:
    /// global_head_dim), and the key it comes from.
    std::optional<int> head_dim;
    std::string head_dim_key;
    /// The record of model_type (family_row.hpp), when the whole-model reader has looked it up: the
    /// group reader then reads it instead of looking model_type up again.
    const Family* family = nullptr;
    /// The hooks of the family's rule in the group steps (families/family_steps.hpp), nullptr: none.
    const families::FamilySteps* steps = nullptr;
};

}  // namespace posenc::hf::detail
