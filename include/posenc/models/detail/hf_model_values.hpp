// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_model_values.hpp: the JSON stage's whole model as plain values
// (HfModelConfig): its RoPE groups (HfRopeConfig each, hf_rope_values.hpp), the layer map, the
// M-RoPE sections, the query scale, the attention's sizes. Filled by ModelReader
// (hf_model_reader.hpp); turned into posenc objects by hf_model_objects.hpp.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/hf_model_values.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
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

#include "posenc/models/detail/hf_indexer_values.hpp"
#include "posenc/models/detail/hf_rope_values.hpp"
#include "posenc/models/hf_attention_facts.hpp"

namespace posenc::hf::detail {

/// One RoPE group of a model: the layer type that names it, and its resolved values.
struct HfGroupConfig {
    std::string name;  ///< "default" when the model has one group, else the layer type
    HfRopeConfig config;
};

/// A per-position query multiplier read from the config (query_scale.hpp): the query of each
/// listed layer times 1 + beta * ln(1 + floor((pos + position_offset) / divisor)).
struct HfQueryScale {
    double beta = 0;
    std::int64_t divisor = 1;
    std::int64_t position_offset = 0;
    std::vector<int> layers;
    std::string key;  ///< the config key of beta, for messages
};

/// The M-RoPE sections a model's code applies, and their layout; `section` empty: no M-RoPE
/// (hf_mrope_json.hpp read_mrope).
struct MropeLayout {
    std::vector<int> section;
    bool interleaved = false;
    bool coordinate_sections = false;  ///< HunYuan-VL (families/hunyuan_vl.hpp)
    bool height_width_alternating = false;  ///< ERNIE-4.5-VL (families/ernie4_5_vl.hpp)
};

/// What the reader knows of the attention beside the RoPE; see hf_attention_facts.hpp.
struct AttentionFactsConfig {
    QkNormFacts qk_norm;
    bool qk_norm_known = false;  ///< false for a model_type posenc does not know (assume_half_split)
    std::optional<int> v_head_dim, kv_lora_rank, q_lora_rank;
};

/// A whole model's RoPE as read from a config.json; see the file comment.
struct HfModelConfig {
    std::string name_or_path;  ///< "_name_or_path" of the outer config, "" when absent
    std::string model_type;  ///< the language model's type (text_config's when nested)
    std::string key_prefix;  ///< "text_config." when the language model is nested, else ""
    std::optional<int> num_layers;
    std::vector<HfGroupConfig> groups;
    /// Group index per layer, -1 for a layer without RoPE; empty when the number of layers is unknown.
    std::vector<int> layer_groups;
    std::vector<int> mrope_section;  ///< empty unless the model uses M-RoPE
    bool mrope_interleaved = false;
    /// HunYuan-VL: the sections cut the head's coordinates, not its pairs (MultiAxisLayout::coordinate_sections).
    bool mrope_coordinate_sections = false;
    /// ERNIE-4.5-VL: [h, w, t] with h and w alternating pair by pair (MultiAxisLayout::height_width_alternating).
    bool mrope_height_width_alternating = false;
    /// The attention's sizes, so that an engine need not read config.json a second time:
    /// num_attention_heads (GPT-2 style: n_head), num_key_value_heads (absent: the family's class
    /// default, else num_attention_heads, as the configuration classes set it), hidden_size (n_embd);
    /// absent: the family's class default (hf_families.hpp), else empty.
    std::optional<int> num_attention_heads, num_key_value_heads, hidden_size;
    std::optional<double> rms_norm_eps;  ///< the RMSNorm epsilon (else the family's class default), when known
    AttentionFactsConfig attention;  ///< QK-norm and MLA sizes (hf_attention_facts_json.hpp)
    std::optional<HfQueryScale> query_scale;  ///< Llama 4's temperature tuning, Ministral 3's beta
    std::optional<IndexerConfig> indexer;  ///< a sparse-attention indexer's RoPE (hf_indexer_json.hpp)
    std::vector<ConfigWarning> warnings;
    std::vector<std::string> notes;

    /// The group the single-table views describe: the only one, else "full_attention", else the first.
    const HfGroupConfig& primary_group() const noexcept
    {
        if (groups.size() > 1)
            for (const HfGroupConfig& g : groups)
                if (g.name == "full_attention") return g;
        return groups.front();
    }
    HfGroupConfig& primary_group() noexcept
    {
        return const_cast<HfGroupConfig&>(static_cast<const HfModelConfig&>(*this).primary_group());
    }
};

}  // namespace posenc::hf::detail
