// SPDX-License-Identifier: MIT
// posenc/models/detail/families/llama4.hpp: Llama 4's text model (llama4/configuration_llama4.py,
// llama4/modeling_llama4.py, transformers 5.16).
//
//   layers        no_rope_layers / no_rope_layer_interval, as SmolLM3 (no_rope_layers.hpp)
//   query scale   attention temperature tuning: with attn_temperature_tuning (class default true), the
//                 query of each NoPE layer times 1 + attn_scale * ln(1 + floor((pos + 1) / floor_scale))
//                 (class defaults 0.1 and 8192); attn_scale 0 or no NoPE layer: none. The reader's
//                 query-scale step calls it (FamilySteps::query_scale).
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/llama4.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "posenc/models/detail/families/family_config.hpp"
#include "posenc/models/detail/families/no_rope_layers.hpp"
#include "posenc/models/detail/hf_model_values.hpp"

namespace posenc::hf::detail::families {

/// Llama 4's attention temperature tuning (see the file comment); `layer_groups`: -1 for a NoPE layer.
inline std::optional<HfQueryScale> llama4_temperature_tuning(const json& text, const std::string& pre,
                                                             const std::vector<int>& layer_groups)
{
    if (const json* v = member(text, "attn_temperature_tuning")) {
        if (!v->is_boolean()) fail_json(pre + "attn_temperature_tuning", "expected true or false", *v);
        if (!v->get<bool>()) return std::nullopt;
    }
    HfQueryScale q {0.1, 8192, 1, {}, pre + "attn_scale"};
    if (const json* v = member(text, "attn_scale")) {
        q.beta = number(*v, pre + "attn_scale", "expected a finite number >= 0");
        if (!(q.beta >= 0.0)) fail_json(pre + "attn_scale", "expected a finite number >= 0", *v);
    }
    if (const json* v = member(text, "floor_scale")) q.divisor = positive_int(*v, pre + "floor_scale");
    for (std::size_t i = 0; i < layer_groups.size(); ++i)
        if (layer_groups[i] < 0) q.layers.push_back(static_cast<int>(i));
    if (q.layers.empty() || q.beta == 0.0) return std::nullopt;
    return q;
}

/// The rule for Llama 4's text model: SmolLM3's layer rule, and its query scale.
inline FamilyConfig llama4_config(const json& text, const std::string& pre, const Family& family)
{
    FamilyConfig out = no_rope_layers_config(text, pre, family);
    out.steps.query_scale = &llama4_temperature_tuning;
    return out;
}

}  // namespace posenc::hf::detail::families
