// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_query_scale_json.hpp: the query-scale reading: Llama 4's attention
// temperature tuning on its NoPE layers and Ministral 3's llama_4_scaling_beta on every layer, as
// an HfQueryScale.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error "posenc/models/detail/hf_query_scale_json.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
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

#include "posenc/models/detail/hf_mrope_json.hpp"

namespace posenc::hf::detail_json {

/// The per-position query multiplier (query_scale.hpp) of the families whose attention applies one.
class QueryScaleRules : protected MropeRules
{
public:
    using MropeRules::MropeRules;

protected:
    /// Per-position query scaling (hf_families.hpp trait::llama4_temperature_tuning, trait::llama_4_scaling_beta).
    void read_query_scale()
    {
        if (family && family->has(trait::llama4_temperature_tuning)) llama4_temperature_tuning();
        if (family && family->has(trait::llama_4_scaling_beta)) llama_4_scaling_beta();
    }

    /// llama4/modeling_llama4.py: NoPE layers' query times 1 + attn_scale ln(1 + floor((pos + 1) / floor_scale)).
    void llama4_temperature_tuning()
    {
        if (const json* v = member(*text, "attn_temperature_tuning")) {
            if (!v->is_boolean()) fail_json(pre + "attn_temperature_tuning", "expected true or false", *v);
            if (!v->get<bool>()) return;
        }
        HfQueryScale q{0.1, 8192, 1, {}, pre + "attn_scale"};
        if (const json* v = member(*text, "attn_scale")) {
            q.beta = number(*v, pre + "attn_scale", "expected a finite number >= 0");
            if (!(q.beta >= 0.0)) fail_json(pre + "attn_scale", "expected a finite number >= 0", *v);
        }
        if (const json* v = member(*text, "floor_scale")) q.divisor = positive_int(*v, pre + "floor_scale");
        for (std::size_t i = 0; i < out.layer_groups.size(); ++i)
            if (out.layer_groups[i] < 0) q.layers.push_back(static_cast<int>(i));
        if (!q.layers.empty() && q.beta != 0.0) out.query_scale = q;
    }

    /// ministral3/modeling_ministral3.py: every query times 1 + beta ln(1 + floor(pos / L0)), beta and
    /// L0 from the RoPE dict (rope_parameters.get(...): absent, the forward pass fails).
    void llama_4_scaling_beta()
    {
        const HfRopeConfig& c = out.primary_group().config;
        json class_default;
        const json* dict = member(*text, "rope_parameters");
        if (!dict) dict = member(*text, "rope_scaling");
        std::string dict_key = c.scaling_key.empty() ? std::string("rope_parameters") : c.scaling_key;
        std::string shown_as;
        if (!dict && !family->default_rope.empty()) {
            class_default = json::parse(family->default_rope.begin(), family->default_rope.end());
            dict = &class_default;
            shown_as = " (the class-default rope_parameters)";
        }
        const std::string key = pre + dict_key + ".llama_4_scaling_beta";
        const json* v = dict && dict->is_object() ? member(*dict, "llama_4_scaling_beta") : nullptr;
        if (!v)
            fail(key, "expected a number: model_type " + type_shown + "'s attention multiplies every query by 1 + "
                      "llama_4_scaling_beta * ln(1 + floor(position / original_max_position_embeddings)) and reads it "
                      "from the RoPE dict on every forward pass",
                 "nothing");
        HfQueryScale q{number(*v, key, "expected a finite number >= 0"), 1, 0, {}, key};
        if (!(q.beta >= 0.0)) fail(key, "expected a finite number >= 0", shown(*v) + shown_as);
        if (q.beta == 0.0) return;
        if (!c.original_max_position_embeddings)
            fail(pre + dict_key + ".original_max_position_embeddings",
                 "expected a positive integer: model_type " + type_shown + "'s query scale divides the position by it",
                 "nothing");
        q.divisor = *c.original_max_position_embeddings;
        for (std::size_t i = 0; i < out.layer_groups.size(); ++i)
            if (out.layer_groups[i] >= 0) q.layers.push_back(static_cast<int>(i));
        if (out.layer_groups.empty())
            fail(pre + "num_hidden_layers", "expected a positive integer (the query scale applies to every layer)",
                 "nothing");
        out.query_scale = q;
    }
};

}  // namespace posenc::hf::detail_json
