// SPDX-License-Identifier: MIT
// posenc/models/detail/families/step3p7.hpp: Step 3.5 / Step 3.7's language model (model_type
// step3p5; step3p7/configuration_step3p7.py, Step3p5TextConfig, transformers 5.16).
//
//   layer_types      as given, else from sparse_attention_config.sparse_attention_freq (non-zero:
//                    minimax_m3_sparse, else full_attention), else every layer full_attention; a
//                    list of num_hidden_layers + num_nextn_predict_layers entries loses its trailing
//                    multi-token-prediction entries
//   rope_parameters  as given when it has a dict for every layer type; else one dict per layer type
//                    built from the per-layer lists: rope_theta (a list, or one number for every layer;
//                    class default 10000) and partial_rotary_factors, each layer type taking the values
//                    of its first layer; rope_scaling is merged into full_attention's dict
//
// transformers takes each layer type's values from its first layer ("they all agree"); a config
// whose later layers of the same type disagree is refused here, naming the entry, since transformers
// would apply the first layer's values to them.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/step3p7.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <map>
#include <string>

#include "posenc/models/detail/families/family_config.hpp"

namespace posenc::hf::detail::families {

/// A per-layer list of `key` as the model reads it: padded with the multi-token-prediction
/// layers (n + mtp entries), it loses its tail; anything else is returned as written (null when
/// absent).
inline json step3p7_trimmed(const json& text, const char* key, int n, std::int64_t mtp)
{
    const json* v = member(text, key);
    if (!v || !v->is_array()) return v ? *v : json();
    json list = *v;
    if (mtp > 0 && list.size() == static_cast<std::size_t>(n + mtp)) list.erase(list.begin() + n, list.end());
    return list;
}

/// layer_types when the config has none: from sparse_attention_config.sparse_attention_freq
/// (non-zero: minimax_m3_sparse, else full_attention), else every layer full_attention.
inline json step3p7_default_layer_types(const json& text, const std::string& pre, int n, FamilyConfig& out)
{
    json types = json::array();
    const json* sparse = member(text, "sparse_attention_config");
    const json* freq = sparse && sparse->is_object() ? member(*sparse, "sparse_attention_freq") : nullptr;
    if (freq) {
        if (!freq->is_array())
            fail_json(pre + "sparse_attention_config.sparse_attention_freq", "expected a list", *freq);
        for (const json& f : *freq)
            types.push_back((f.is_number() && f.get<double>() != 0.0) || (f.is_boolean() && f.get<bool>())
                                ? "minimax_m3_sparse"
                                : "full_attention");
    } else {
        for (int i = 0; i < n; ++i) types.push_back("full_attention");
    }
    out.notes.push_back("layer_types absent: " +
                        std::string(freq ? "from sparse_attention_freq" : "every layer full_attention"));
    return types;
}

/// One rope dict per layer type from the per-layer rope_theta / partial_rotary_factors (one value,
/// or one per layer): transformers builds each type's table from its first layer, so a later
/// layer of the type with other values is refused; rope_scaling joins full_attention's dict.
inline json step3p7_per_type_dicts(const json& text, const std::string& pre, const json& types, int n, std::int64_t mtp)
{
    const json thetas = step3p7_trimmed(text, "rope_theta", n, mtp);
    const json factors = step3p7_trimmed(text, "partial_rotary_factors", n, mtp);
    auto entry = [&](const json& list, const char* key, std::size_t i) -> const json* {
        if (list.is_null()) return nullptr;
        if (!list.is_array()) return &list;  // one value for every layer
        if (i >= list.size())
            fail(pre + key, "expected one entry per layer (" + std::to_string(types.size()) + ")",
                 std::to_string(list.size()) + " entries");
        return &list[i];
    };
    json dicts = json::object();
    std::map<std::string, std::size_t> first;
    for (std::size_t i = 0; i < types.size(); ++i) {
        if (!types[i].is_string()) break;
        const std::string t = types[i].get<std::string>();
        json d = {{"rope_type", "default"}};
        const json* theta = entry(thetas, "rope_theta", i);
        d["rope_theta"] =
            theta ? json(number(*theta, pre + "rope_theta" +
                                            (thetas.is_array() ? "[" + std::to_string(i) + "]" : std::string())))
                  : json(10000.0);
        if (const json* f = entry(factors, "partial_rotary_factors", i))
            d["partial_rotary_factor"] = number(*f, pre + "partial_rotary_factors[" + std::to_string(i) + "]");
        const auto [it, inserted] = first.emplace(t, i);
        if (inserted) {
            dicts[t] = d;
        } else if (d != dicts[t]) {
            const std::string key = d["rope_theta"] != dicts[t]["rope_theta"] ? "rope_theta" : "partial_rotary_factors";
            fail(pre + key + "[" + std::to_string(i) + "]",
                 "expected the value of layer " + std::to_string(it->second) + ", the first " + t +
                     " layer: transformers builds one table per layer type from its first layer",
                 (key == "rope_theta" ? d["rope_theta"] : d["partial_rotary_factor"]).dump());
        }
    }
    if (const json* scaling = member(text, "rope_scaling");
        scaling && scaling->is_object() && dicts.contains("full_attention"))
        dicts["full_attention"].update(*scaling);
    return dicts;
}

/// The rule for Step 3.5 / 3.7 (see the file comment).
inline FamilyConfig step3p7_config(const json& text, const std::string& pre, const Family& family)
{
    FamilyConfig out(text);
    const int n = layer_count(text, pre, family, out);
    const std::int64_t mtp = count_or_zero(text, pre, "num_nextn_predict_layers");
    json types = step3p7_trimmed(text, "layer_types", n, mtp);
    if (types.is_null()) types = step3p7_default_layer_types(text, pre, n, out);
    out.text["layer_types"] = types;
    if (!types.is_array()) return out;  // the reader refuses it, naming layer_types

    const json* given = member(text, "rope_parameters");
    bool per_type = given && given->is_object() && !given->empty();
    if (per_type)
        for (const json& t : types)
            if (!t.is_string() || !member(*given, t.get<std::string>().c_str()) ||
                !(*given)[t.get<std::string>()].is_object())
                per_type = false;
    if (!per_type) {
        out.text["rope_parameters"] = step3p7_per_type_dicts(text, pre, types, n, mtp);
        out.notes.push_back(
            "rope_parameters built per layer type from the per-layer rope_theta / partial_rotary_factors");
    }
    for (const char* key : {"rope_theta", "partial_rotary_factors", "rope_scaling", "partial_rotary_factor"})
        out.text.erase(key);
    return out;
}

}  // namespace posenc::hf::detail::families
