// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_query_scale_json.hpp: the query-scale reading: a family rule's own (Llama
// 4's attention temperature tuning on its NoPE layers, families/llama4.hpp) and Ministral 3's
// llama_4_scaling_beta on every layer, as an HfQueryScale.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/hf_query_scale_json.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "posenc/models/detail/hf_model_identity.hpp"
#include "posenc/models/hf_families.hpp"

namespace posenc::hf::detail {

namespace query_scale_rules {

/// ministral3/modeling_ministral3.py: every query times 1 + beta ln(1 + floor(pos / L0)), beta and
/// L0 from the RoPE dict (rope_parameters.get(...): absent, the forward pass fails).
inline std::optional<HfQueryScale> llama_4_scaling_beta(const ModelIdentity& id, const HfRopeConfig& primary,
                                                        const std::vector<int>& layer_groups)
{
    const json& text = id.text();
    const std::string& pre = id.pre;
    json class_default;
    const json* dict = member(text, "rope_parameters");
    if (!dict) dict = member(text, "rope_scaling");
    const std::string dict_key = primary.scaling_key.empty() ? std::string("rope_parameters") : primary.scaling_key;
    std::string shown_as;
    if (!dict && !id.family->default_rope.empty()) {
        class_default = json::parse(id.family->default_rope.begin(), id.family->default_rope.end());
        dict = &class_default;
        shown_as = " (the class-default rope_parameters)";
    }
    const std::string key = pre + dict_key + ".llama_4_scaling_beta";
    const json* v = dict && dict->is_object() ? member(*dict, "llama_4_scaling_beta") : nullptr;
    if (!v)
        fail(key,
             "expected a number: model_type " + id.type_shown +
                 "'s attention multiplies every query by 1 + "
                 "llama_4_scaling_beta * ln(1 + floor(position / original_max_position_embeddings)) and reads it "
                 "from the RoPE dict on every forward pass",
             "nothing");
    HfQueryScale q {number(*v, key, "expected a finite number >= 0"), 1, 0, {}, key};
    if (!(q.beta >= 0.0)) fail(key, "expected a finite number >= 0", shown(*v) + shown_as);
    if (q.beta == 0.0) return std::nullopt;
    if (!primary.original_max_position_embeddings)
        fail(pre + dict_key + ".original_max_position_embeddings",
             "expected a positive integer: model_type " + id.type_shown + "'s query scale divides the position by it",
             "nothing");
    q.divisor = *primary.original_max_position_embeddings;
    for (std::size_t i = 0; i < layer_groups.size(); ++i)
        if (layer_groups[i] >= 0) q.layers.push_back(static_cast<int>(i));
    if (layer_groups.empty())
        fail(pre + "num_hidden_layers", "expected a positive integer (the query scale applies to every layer)",
             "nothing");
    return q;
}

}  // namespace query_scale_rules

/// Step 10: the per-position query multiplier (query_scale.hpp) of the families whose attention
/// applies one: the family rule's (families/family_steps.hpp FamilySteps::query_scale: Llama 4's
/// temperature tuning, families/llama4.hpp), else trait::llama_4_scaling_beta's (no family has both);
/// `layer_groups` is the layer map (-1: NoPE).
inline std::optional<HfQueryScale> read_query_scale(const ModelIdentity& id, const HfRopeConfig& primary,
                                                    const std::vector<int>& layer_groups)
{
    if (id.steps.query_scale) return id.steps.query_scale(id.text(), id.pre, layer_groups);
    if (id.family && id.family->has(trait::llama_4_scaling_beta))
        return query_scale_rules::llama_4_scaling_beta(id, primary, layer_groups);
    return std::nullopt;
}

}  // namespace posenc::hf::detail
