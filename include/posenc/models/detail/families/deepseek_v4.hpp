// SPDX-License-Identifier: MIT
// posenc/models/detail/families/deepseek_v4.hpp: DeepSeek-V4 (deepseek_v4/configuration_deepseek_v4.py
// __post_init__, deepseek_v4/modeling_deepseek_v4.py, transformers 5.16).
//
//   layer_types      as given, else the legacy compress_ratios (0 sliding_attention, 4
//                    compressed_sparse_attention, 128 heavily_compressed_attention), else two heavily
//                    compressed layers, then compressed_sparse_attention at odd i and heavily compressed
//                    at even i; the rotary embedding keys its tables by rope label, so the canonical
//                    layer types are the labels: "main" (sliding_attention) and "compress" (the others)
//   rope_parameters  {"main", "compress"} as given; else built as the class folds a flat config: main
//                    {default, rope_theta (10000)}, compress {the flat dict's keys (YaRN),
//                    compress_rope_theta (160000), attention_factor 1 for yarn unless given}, both with
//                    partial_rotary_factor = the top-level one, else the legacy qk_rope_head_dim /
//                    head_dim, else 64 / 512
//
// The rotated slice is the LAST int(head_dim * partial_rotary_factor) coordinates and the output's
// slice is rotated back (deepseek_v4_rotary_slice, which the group reader's rotary-width step calls:
// FamilySteps::rotary_slice); a qk_rope_head_dim key does not make the head MLA's.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/deepseek_v4.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "posenc/models/detail/families/family_config.hpp"
#include "posenc/models/detail/hf_layer_json.hpp"
#include "posenc/models/detail/hf_rope_values.hpp"

namespace posenc::hf::detail::families {

/// DeepSeek-V4's rope label per layer: "main" for sliding_attention (or compress ratio 0),
/// "compress" otherwise, from layer_types, else compress_ratios, else every layer "compress".
/// Null when layer_types is not a list (the reader refuses it, naming layer_types).
inline json deepseek_v4_layer_labels(const json& text, const std::string& pre, const Family& family, FamilyConfig& out)
{
    json labels = json::array();
    if (const json* given = member(text, "layer_types")) {
        if (!given->is_array()) return nullptr;
        for (std::size_t i = 0; i < given->size(); ++i) {
            const json& t = (*given)[i];
            const std::string s = t.is_string() ? t.get<std::string>() : std::string();
            if (s != "sliding_attention" && s != "compressed_sparse_attention" && s != "heavily_compressed_attention")
                fail(pre + "layer_types[" + std::to_string(i) + "]",
                     "expected sliding_attention, compressed_sparse_attention or heavily_compressed_attention",
                     t.is_string() ? '"' + ellipsized(s) + '"' : shown(t));
            labels.push_back(s == "sliding_attention" ? "main" : "compress");
        }
        return labels;
    }
    const int n = layer_count(text, pre, family, out);
    const json* ratios = member(text, "compress_ratios");
    if (!ratios) {
        for (int i = 0; i < n; ++i)
            labels.push_back("compress");  // heavily compressed / compressed sparse: all compress
        return labels;
    }
    if (!ratios->is_array()) fail_json(pre + "compress_ratios", "expected a list of 0, 4 or 128", *ratios);
    for (std::size_t k = 0; k < ratios->size() && k < static_cast<std::size_t>(n); ++k) {
        const std::string path = pre + "compress_ratios[" + std::to_string(k) + "]";
        const std::int64_t r = integer((*ratios)[k], path, "expected 0, 4 or 128");
        if (r != 0 && r != 4 && r != 128) fail_json(path, "expected 0, 4 or 128", (*ratios)[k]);
        labels.push_back(r == 0 ? "main" : "compress");
    }
    if (labels.size() != static_cast<std::size_t>(n))
        fail(pre + "compress_ratios", "expected at least one entry per layer (" + std::to_string(n) + ")",
             std::to_string(ratios->size()) + " entries");
    return labels;
}

/// The {main, compress} rope dicts transformers folds a flat config into: both rotate
/// qk_rope_head_dim / head_dim of the head (64 / 512 by default); main at rope_theta (1e4) without
/// scaling, compress at compress_rope_theta (160000) with the flat dict's scaling.
inline json deepseek_v4_folded_dicts(const json& text, const std::string& pre, const json* given)
{
    double head_dim = 512.0;
    if (const json* v = member(text, "head_dim")) head_dim = positive_int(*v, pre + "head_dim");
    double prf = 64.0 / 512.0;
    if (const json* v = member(text, "qk_rope_head_dim")) prf = positive_int(*v, pre + "qk_rope_head_dim") / head_dim;
    if (const json* v = member(text, "partial_rotary_factor")) prf = number(*v, pre + "partial_rotary_factor");
    json flat = json::object();
    if (given && given->is_object()) flat = *given;
    else if (const json* v = member(text, "rope_scaling"); v && v->is_object()) flat = *v;
    json compress = flat;
    compress.erase("main");
    compress.erase("compress");
    compress["rope_theta"] = 160000.0;
    if (const json* v = member(text, "compress_rope_theta")) compress["rope_theta"] = *v;
    compress["partial_rotary_factor"] = prf;
    if (!compress.contains("rope_type") && !compress.contains("type")) compress["rope_type"] = "default";
    const json& type = compress.contains("rope_type") ? compress["rope_type"] : compress["type"];
    if (type == "yarn" && !compress.contains("attention_factor")) compress["attention_factor"] = 1.0;
    json main = {{"rope_type", "default"}, {"rope_theta", 10000.0}, {"partial_rotary_factor", prf}};
    if (const json* v = member(text, "rope_theta")) main["rope_theta"] = *v;
    return {{"main", main}, {"compress", compress}};
}

/// The rule for DeepSeek-V4 (see the file comment).
/// DeepSeek-V4's rotary slice (FamilySteps::rotary_slice): the last rotary_dim coordinates of the head,
/// the attention output's slice rotated back.
inline void deepseek_v4_rotary_slice(HfRopeConfig& out)
{
    out.rotary_offset = out.head_dim - out.rotary_dim;
    out.inverse_rope_on_output = true;
}

inline FamilyConfig deepseek_v4_config(const json& text, const std::string& pre, const Family& family)
{
    const std::string model_type(family.model_type);
    FamilyConfig out(text);
    out.steps.rotary_slice = &deepseek_v4_rotary_slice;
    json labels = deepseek_v4_layer_labels(text, pre, family, out);
    if (labels.is_null()) return out;  // the reader refuses layer_types, naming it
    out.text["layer_types"] = std::move(labels);

    const json* given = member(text, "rope_parameters");
    if (given && given->is_object() && member(*given, "main") && member(*given, "compress") &&
        (*given)["main"].is_object() && (*given)["compress"].is_object()) {
        out.text["rope_parameters"] = {{"main", (*given)["main"]}, {"compress", (*given)["compress"]}};
        return out;
    }
    if (given && is_per_layer_type(given))
        fail_json(pre + "rope_parameters",
                  "expected {\"main\": {...}, \"compress\": {...}} or one flat dict (model_type \"" + model_type +
                      "\" keys its tables by rope label)",
                  *given);
    out.text["rope_parameters"] = deepseek_v4_folded_dicts(text, pre, given);
    out.notes.push_back("rope_parameters {main, compress} built as transformers folds the config: " +
                        ellipsized(out.text["rope_parameters"].dump(), 400));
    return out;
}

}  // namespace posenc::hf::detail::families
