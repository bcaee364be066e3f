// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_layer_json.hpp: the whole-model reader's helpers for layer maps
// (hf_model_reader.hpp): layer_types lists, the v5 per-layer-type rope_parameters form, layer
// types derived from a sliding-window pattern, and the keys whose meaning depends on a model's
// own code.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/hf_layer_json.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "posenc/models/detail/hf_json_values.hpp"

namespace posenc::hf::detail {

/// Keys whose meaning depends on the model's own code (refused for an unknown model_type).
inline constexpr const char* model_specific_keys[] = {
    "rope_local_base_freq",   "no_rope_layers",          "no_rope_layer_interval",
    "sliding_window_pattern", "full_attention_interval", "full_attn_idxs",
    "attn_layer_indices",     "cross_attention_layers",  "layer_rope_theta"};

inline std::vector<std::string> layer_type_list(const json& v, const std::string& path)
{
    if (!v.is_array()) fail_json(path, "expected a list of layer type names", v);
    std::vector<std::string> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_string()) fail_json(path + "[" + std::to_string(i) + "]", "expected a layer type name", v[i]);
        out.push_back(v[i].get<std::string>());
    }
    return out;
}

/// rope_parameters of the v5 per-layer-type form: a non-empty object whose every value is an
/// object, or null for a layer type without RoPE (LFM2's "conv"), at least one an object.
inline bool is_per_layer_type(const json* rope_parameters)
{
    if (!rope_parameters || !rope_parameters->is_object() || rope_parameters->empty()) return false;
    bool any = false;
    for (auto it = rope_parameters->begin(); it != rope_parameters->end(); ++it) {
        if (!it->is_object() && !it->is_null()) return false;
        any = any || it->is_object();
    }
    return any;
}

/// Layer types derived from a pattern: `odd` for layer i unless (i + 1) % pattern == 0.
inline std::vector<std::string> pattern_layer_types(int num_layers, int pattern, const char* odd, const char* every)
{
    std::vector<std::string> out;
    for (int i = 0; i < num_layers; ++i) out.push_back((i + 1) % pattern != 0 ? odd : every);
    return out;
}

inline int pattern_value(const json& text, const char* key, int fallback, const std::string& prefix)
{
    if (const json* v = member(text, key)) {
        if (v->is_string())
            fail_json(
                prefix + key,
                "expected a positive integer (a string pattern is read only together with an explicit layer_types)",
                *v);
        return positive_int(*v, prefix + key);
    }
    return fallback;
}

}  // namespace posenc::hf::detail
