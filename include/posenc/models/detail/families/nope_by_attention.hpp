// SPDX-License-Identifier: MIT
// posenc/models/detail/families/nope_by_attention.hpp: families whose attention decides per layer
// whether to rotate, from the layer's attention kind (transformers 5.16):
//
//   AFMoE (afmoe/modeling_afmoe.py)            only sliding_attention layers rotate; layer_types
//                                              as given, else full_attention every
//                                              global_attn_every_n_layers-th layer ((i + 1) % n == 0,
//                                              default 4)
//   Cohere 2 MoE (cohere2_moe/modeling_...)    a layer rotates when it is a sliding_attention layer and
//                                              sliding_window is set (default 4096), or when it is a
//                                              dense-MLP layer (mlp_layer_types[i] == "dense", the first
//                                              first_k_dense_replace layers by default) and
//                                              prefix_dense_sliding_window_pattern is 1 (force_rope);
//                                              layer_types as given, else the prefix's pattern
//                                              (prefix_dense_sliding_window_pattern, default 1) for the
//                                              dense layers and sliding_window_pattern (default 4)
//                                              for the rest
//
// Every rotating layer uses the one table; the rule marks the others with the layer type "nope".
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/nope_by_attention.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "posenc/models/detail/families/family_config.hpp"

namespace posenc::hf::detail::families {

namespace nope_by_attention_steps {

inline std::int64_t pattern(const json& text, const std::string& pre, const char* key, std::int64_t class_default)
{
    const json* v = member(text, key);
    if (!v) return class_default;
    const std::int64_t p = integer(*v, pre + key, "expected a positive integer");
    if (p <= 0) fail_json(pre + key, "expected a positive integer", *v);
    return p;
}

/// layer_types as a list of strings (the reader refuses anything else, naming the entry).
inline std::vector<std::string> strings(const json& list)
{
    std::vector<std::string> out;
    if (list.is_array())
        for (const json& t : list) out.push_back(t.is_string() ? t.get<std::string>() : std::string());
    return out;
}

}  // namespace nope_by_attention_steps

/// The rule for AFMoE (see the file comment).
inline FamilyConfig afmoe_config(const json& text, const std::string& pre, const Family& family)
{
    FamilyConfig out(text);
    std::vector<std::string> types;
    if (const json* v = member(text, "layer_types")) {
        if (!v->is_array()) return out;  // the reader refuses it, naming layer_types
        types = nope_by_attention_steps::strings(*v);
    } else {
        const int n = layer_count(text, pre, family, out);
        const std::int64_t every = nope_by_attention_steps::pattern(text, pre, "global_attn_every_n_layers", 4);
        for (int i = 0; i < n; ++i) types.push_back((i + 1) % every != 0 ? "sliding_attention" : "full_attention");
    }
    json marked = json::array();
    for (const std::string& t : types)
        marked.push_back(t == "sliding_attention" ? std::string("default") : std::string("nope"));
    out.text["layer_types"] = std::move(marked);
    out.nope_layer_types.push_back("nope");
    out.notes.push_back("only sliding_attention layers rotate (AFMoE's attention); the others have no RoPE");
    return out;
}

/// The rule for Cohere 2 MoE (see the file comment).
inline FamilyConfig cohere2_moe_config(const json& text, const std::string& pre, const Family& family)
{
    const std::string model_type(family.model_type);
    FamilyConfig out(text);
    // cohere2_moe/configuration_cohere2_moe.py declares rope_scaling as a plain field, so the generic
    // conversion (which pops it from the extra keys) never sees it: the RoPE is rope_parameters' alone.
    ignore_key(text, pre, model_type, "rope_scaling",
               "declares it as a plain field and builds its RoPE from rope_parameters only", out);
    out.text.erase("rope_scaling");
    const int n = layer_count(text, pre, family, out);
    const std::int64_t dense = count_or_zero(text, pre, "first_k_dense_replace");
    const std::int64_t prefix_pattern =
        nope_by_attention_steps::pattern(text, pre, "prefix_dense_sliding_window_pattern", 1);
    const std::int64_t rest_pattern = nope_by_attention_steps::pattern(text, pre, "sliding_window_pattern", 4);
    std::vector<std::string> types;
    if (const json* v = member(text, "layer_types")) {
        if (!v->is_array()) return out;
        types = nope_by_attention_steps::strings(*v);
    } else {
        for (std::int64_t i = 0; i < dense && i < n; ++i)
            types.push_back((i + 1) % prefix_pattern != 0 ? "sliding_attention" : "full_attention");
        for (std::int64_t i = 0; i < n - dense; ++i)
            types.push_back((i + 1) % rest_pattern != 0 ? "sliding_attention" : "full_attention");
    }
    std::vector<std::string> mlp;
    if (const json* v = member(text, "mlp_layer_types")) {
        if (!v->is_array() || v->size() != types.size())
            fail_json(pre + "mlp_layer_types", "expected one entry per layer (" + std::to_string(types.size()) + ")",
                      *v);
        mlp = nope_by_attention_steps::strings(*v);
    } else {
        for (std::size_t i = 0; i < types.size(); ++i)
            mlp.push_back(static_cast<std::int64_t>(i) < dense ? "dense" : "sparse");
    }
    const json* window = text.find("sliding_window") == text.end() ? nullptr : &text["sliding_window"];
    const bool windowed = !window || !window->is_null();  // class default 4096
    json marked = json::array();
    for (std::size_t i = 0; i < types.size(); ++i) {
        const bool force_rope = mlp[i] == "dense" && prefix_pattern == 1;
        marked.push_back((types[i] == "sliding_attention" && windowed) || force_rope ? "default" : "nope");
    }
    out.text["layer_types"] = std::move(marked);
    out.nope_layer_types.push_back("nope");
    out.notes.push_back(
        "a layer rotates when it is a sliding_attention layer with a window, or a dense-MLP layer under "
        "prefix_dense_sliding_window_pattern 1 (Cohere 2 MoE's attention); the others have no RoPE");
    return out;
}

}  // namespace posenc::hf::detail::families
