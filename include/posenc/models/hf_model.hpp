// SPDX-License-Identifier: MIT
// posenc/models/hf_model.hpp: what the config reader returns (hf_config.hpp): the model description
// HfModel (every layer's RoPE as a ModelRope, the attention's sizes, the reader's warnings and
// notes) and its one-group view HfModelRope (hf::single_group). Plain structs over posenc's
// objects; no dependency on nlohmann_json.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "posenc/frequencies.hpp"
#include "posenc/model_rope.hpp"
#include "posenc/models/hf_attention_facts.hpp"
#include "posenc/models/hf_indexer_rope.hpp"
#include "posenc/models/hf_read_options.hpp"
#include "posenc/query_scale.hpp"
#include "posenc/scaling/scaling.hpp"
#include "posenc/spec.hpp"

namespace posenc::hf {

/// A model's rotary embedding read from a config.json, as validated posenc objects.
struct HfModelRope {
    std::string name;  ///< "_name_or_path", else model_type, else ""
    std::string model_type;  ///< "" when absent
    RopeSpec spec;
    Scaling scaling;
    std::int64_t max_position_embeddings;  ///< 0 when the config has none
    /// The length the model was trained at before extension: the scaling's
    /// original_max_position_embeddings (yarn, llama3, longrope), dynamic NTK's reference length
    /// (max_position_embeddings), else max_position_embeddings; 0 when the config names none.
    std::int64_t original_length;
    /// The factor Hugging Face multiplies cos and sin by at init (scaling_attention_factor).
    double attention_factor;
    /// DeepSeek-V3-style MLA (qk_rope_head_dim present, model_type deepseek_v3, deepseek_v32,
    /// longcat_flash, or one posenc does not know read with ReadOptions::assume_half_split):
    /// g(s, mscale_all_dim)^2 for YaRN with a non-zero mscale_all_dim;
    /// 1 for every other model, DeepSeek-V2 included (transformers' DeepseekV2Attention uses
    /// qk_head_dim^(-1/2) alone).
    double softmax_scale_multiplier;
    int qk_head_dim;  ///< DeepSeek MLA: qk_nope_head_dim + qk_rope_head_dim; 0 otherwise
    std::vector<ConfigWarning> warnings;
    std::vector<std::string> notes;

    /// The attention softmax scale: width^(-1/2) * softmax_scale_multiplier, width = qk_head_dim
    /// for MLA, else head_dim; in Hugging Face's order (`width ** -0.5`, then `* m * m`).
    /// DeepSeek-V3: 192^(-1/2) * 1.3688879454113936^2 = 0.1352337788608801 (H8).
    double softmax_scale() const
    {
        if (qk_head_dim > 0 && softmax_scale_multiplier != 1.0)
            if (const auto* yarn = std::get_if<YarnScaling>(&scaling))
                return deepseek_softmax_scale(qk_head_dim, *yarn);
        return std::pow(static_cast<double>(qk_head_dim > 0 ? qk_head_dim : spec.head_dim()), -0.5);
    }

    /// The frequency table at Hugging Face's init (frequency_table(spec, scaling)).
    FrequencyTable table(Precision precision = Precision::exact) const
    {
        return frequency_table(spec, scaling, precision);
    }

    /// The table in effect for a sequence of `sequence_length` tokens (dynamic NTK, LongRoPE).
    /// Throws posenc::error for sequence_length <= 0.
    FrequencyTable table(std::int64_t sequence_length, Precision precision = Precision::exact) const
    {
        return frequency_table(spec, scaling, sequence_length, precision);
    }
};

/// What the reader said about one RoPE group alone (HfModel::group_findings).
struct HfGroupFindings {
    std::vector<ConfigWarning> warnings;
    std::vector<std::string> notes;  ///< without the "<group>: " prefix that HfModel::notes gives them
};

/// A whole model read from a config.json: its ModelRope plus what the reader has to say.
struct HfModel {
    std::string name;  ///< "_name_or_path", else model_type, else ""
    std::string model_type;  ///< the language model's type ("" when absent)
    ModelRope rope;
    int qk_head_dim;  ///< DeepSeek MLA: qk_nope_head_dim + qk_rope_head_dim; 0 otherwise
    std::vector<ConfigWarning> warnings;
    std::vector<std::string> notes;
    /// The attention's sizes as the config gives them, else the configuration class's defaults
    /// where hf_families.hpp gives them (Gemma 3: gemma3/configuration_gemma3.py), else empty: an
    /// engine reads them here instead of parsing config.json again. num_key_value_heads is
    /// num_attention_heads when absent and the family gives no default.
    std::optional<int> num_attention_heads, num_key_value_heads, hidden_size;
    std::optional<double> rms_norm_eps;
    std::string key_prefix;  ///< "text_config." when the language model is nested, else ""
    /// Per group, in rope.groups() order: the warnings and notes about that group alone.
    /// `warnings` and `notes` hold the model's own first, then these, group by group.
    std::vector<HfGroupFindings> group_findings;
    /// The QK-norm around RoPE (hf_attention_facts.hpp); empty (nullopt) for a model_type posenc
    /// does not know (ReadOptions::assume_half_split): its code decides, the config does not say.
    std::optional<QkNormFacts> qk_norm;
    /// MLA's layout (qk_head_dim > 0): where the rotated slice sits in the query and key heads, the
    /// key's shared rope part, the config's v_head_dim, kv_lora_rank, q_lora_rank; else nullopt.
    std::optional<MlaFacts> mla;
    /// A sparse-attention indexer's RoPE (HY-V4, Qwen4-Exp: hf_indexer_rope.hpp): its head, rotated
    /// slice, pairing and key positions over one of rope's groups' tables; nullopt for other models.
    std::optional<IndexerRope> indexer;
};

}  // namespace posenc::hf
