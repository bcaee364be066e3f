// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_scaling_dict_json.hpp: comparisons of RoPE dicts: whether rope_scaling
// and rope_parameters say the same (legacy spellings read as transformers maps them), and a key
// held with an explicit null.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/hf_scaling_dict_json.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
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

#include "posenc/models/detail/hf_json_values.hpp"

namespace posenc::hf::detail {

/// Whether two scaling dicts say the same: every key of rope_scaling (legacy "type" read as
/// "rope_type") is in rope_parameters with an equal value, and rope_parameters adds only
/// rope_theta and partial_rotary_factor (which v5 moves into it).
inline bool same_scaling(const json& rope_scaling, const json& rope_parameters)
{
    auto equal = [](const json& a, const json& b) {
        if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
        return a == b;
    };
    for (auto it = rope_scaling.begin(); it != rope_scaling.end(); ++it) {
        const std::string key = it.key() == "type" && !rope_scaling.contains("rope_type") ? "rope_type" : it.key();
        if (it->is_null()) continue;
        const json* other = member(rope_parameters, key.c_str());
        if (!other && key == "rope_type") other = member(rope_parameters, "type");
        if (!other) return false;
        if (key == "rope_type" && it->is_string() && other->is_string()) {
            // Legacy spellings Hugging Face maps on load.
            auto canonical = [](std::string t) {
                return t == "mrope" ? std::string("default") : t == "su" ? std::string("longrope") : t;
            };
            if (canonical(it->get<std::string>()) != canonical(other->get<std::string>())) return false;
            continue;
        }
        if (!equal(*it, *other)) return false;
    }
    for (auto it = rope_parameters.begin(); it != rope_parameters.end(); ++it) {
        const std::string& key = it.key();
        if (key == "rope_theta" || key == "partial_rotary_factor" || it->is_null()) continue;
        if (key == "rope_type" || key == "type") {
            if (!member(rope_scaling, "rope_type") && !member(rope_scaling, "type") && *it != json("default"))
                return false;
            continue;
        }
        if (!member(rope_scaling, key.c_str())) return false;
    }
    return true;
}

/// A key the object holds with the value null (transformers reads some keys with dict.get, where an
/// explicit null is a value, not an absence).
inline bool explicit_null(const json& object, const char* key)
{
    const auto it = object.find(key);
    return it != object.end() && it->is_null();
}

}  // namespace posenc::hf::detail
