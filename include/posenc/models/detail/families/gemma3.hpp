// SPDX-License-Identifier: MIT
// posenc/models/detail/families/gemma3.hpp: Gemma 3's text model and the families that share its
// configuration rules, Gemma 3n and T5Gemma 2's decoder and encoder (gemma3/configuration_gemma3.py,
// gemma3n/..., t5gemma2/..., transformers 5.16).
//
//   layer_types      as given, else sliding_attention unless (i + 1) % pattern == 0, the pattern
//                    being sliding_window_pattern (class default 6; Gemma 3n: always 5, the key is
//                    not read)
//   rope_parameters  one dict per layer type: read as the class completes them (rope_scaling merged
//                    into full_attention; an entry without rope_theta takes rope_theta, class default
//                    1e6, for full_attention and rope_local_base_freq, 1e4, for sliding_attention).
//                    Otherwise (transformers 4's layout,
//                    rope_scaling) the rotary embedding builds one table per layer type:
//                    full_attention layers at rope_theta (class default 1e6) with the scaling dict,
//                    sliding_attention layers at rope_local_base_freq (class default 1e4) unscaled; a
//                    layer type other than these two is refused, naming it. A single rope_parameters
//                    dict is refused (transformers 5 leaves it unread), and so is a rope_scaling that
//                    says its type with the legacy key "type" only (transformers 5 ignores it there,
//                    transformers 4 applied it).
// The two class defaults are the class's default_theta {"global": 1e6, "local": 1e4}, read from the
// family's record (its generated class defaults: rope_theta and local_rope_theta).
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/gemma3.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <string>
#include <tuple>

#include "posenc/models/detail/families/family_config.hpp"
#include "posenc/models/detail/hf_layer_json.hpp"

namespace posenc::hf::detail::families {

/// Refuses a rope_scaling that says its type with the legacy key "type" only (file comment).
inline void refuse_legacy_scaling_type(const json& text, const std::string& pre, const std::string& model_type)
{
    const std::string shown_type = "\"" + model_type + "\"";
    if (const json* scaling = member(text, "rope_scaling");
        scaling && scaling->is_object() && !member(*scaling, "rope_type"))
        if (const json* type = member(*scaling, "type"); type && *type != "default")
            // configuration_gemma3.py merges rope_scaling into {"rope_type": "default"}: the legacy key
            // "type" does not replace rope_type there, so transformers 5 rotates unscaled; 4 applied it.
            fail(pre + "rope_scaling.type",
                 "expected the key rope_type: model_type " + shown_type +
                     "'s configuration class merges rope_scaling into {\"rope_type\": \"default\"}, "
                     "so transformers 5 ignores the legacy key type (transformers 4 applied it)",
                 shown(*type));
}

/// The per-layer-type rope_parameters `given`, completed as the class completes them (file comment).
inline void complete_gemma3_dicts(const json& given, const json& text, const std::string& pre, const Family& family,
                                  FamilyConfig& out)
{
    const std::string model_type(family.model_type);
    // The class completes the given dicts: rope_scaling merged into full_attention, a missing entry
    // {"rope_type": "default"}, and each entry's rope_theta, when it has none, from rope_theta
    // (full_attention; class default 1e6) or rope_local_base_freq (sliding_attention; 1e4).
    json dicts = given;
    for (const char* t : {"full_attention", "sliding_attention"})
        if (!dicts.contains(t) || dicts[t].is_null()) dicts[t] = {{"rope_type", "default"}};
    if (const json* scaling = member(text, "rope_scaling"); scaling && scaling->is_object())
        dicts["full_attention"].update(*scaling);
    for (const auto& [type, key, is_local] : {std::tuple {"full_attention", "rope_theta", false},
                                              std::tuple {"sliding_attention", "rope_local_base_freq", true}}) {
        const double class_default = class_default_base(family, is_local);
        const ThetaFill fill = complete_layer_type_dict(dicts, type, text, pre, key, class_default);
        if (fill != ThetaFill::given)
            out.notes.push_back("rope_parameters." + std::string(type) + ".rope_theta absent: " +
                                (fill == ThetaFill::from_key ? std::string(key) : model_type + "'s class default") +
                                " " + dicts[type]["rope_theta"].dump());
    }
    out.text["rope_parameters"] = std::move(dicts);
    for (const char* key : {"rope_scaling", "rope_theta"}) out.text.erase(key);
}

/// The rule for Gemma 3, Gemma 3n and T5Gemma 2 (see the file comment).
inline FamilyConfig gemma3_config(const json& text, const std::string& pre, const Family& family)
{
    const std::string model_type(family.model_type);
    FamilyConfig out(text);
    const bool gemma3n = model_type == "gemma3n_text";
    if (gemma3n)
        ignore_key(text, pre, model_type, "sliding_window_pattern", "uses every fifth layer as full_attention", out);
    if (!member(text, "layer_types")) {
        const int pattern = gemma3n ? 5 : pattern_value(text, "sliding_window_pattern", 6, pre);
        const int n = layer_count(text, pre, family, out);
        out.text["layer_types"] = json::array();
        for (int i = 0; i < n; ++i)
            out.text["layer_types"].push_back((i + 1) % pattern != 0 ? "sliding_attention" : "full_attention");
    }
    out.text.erase("sliding_window_pattern");
    require_dicts_per_layer_type(text, pre, model_type);
    refuse_legacy_scaling_type(text, pre, model_type);
    const json* local = member(text, "rope_local_base_freq");
    out.text.erase("rope_local_base_freq");
    if (const json* given = member(text, "rope_parameters"); is_per_layer_type(given)) {
        complete_gemma3_dicts(*given, text, pre, family, out);
        return out;
    }
    const json& types = out.text["layer_types"];
    for (std::size_t i = 0; types.is_array() && i < types.size(); ++i)
        if (types[i].is_string() && types[i] != "sliding_attention" && types[i] != "full_attention")
            fail(pre + "layer_types", "expected \"sliding_attention\" or \"full_attention\" for Gemma 3",
                 '"' + types[i].get<std::string>() + '"');
    FamilyConfig::LayerTypeGroup sliding;
    sliding.layer_type = "sliding_attention";
    sliding.base = local ? number(*local, pre + "rope_local_base_freq") : class_default_base(family, true);
    sliding.base_key = "rope_local_base_freq";
    sliding.unscaled = true;
    out.layer_type_groups.push_back(sliding);
    out.table_per_layer_type = true;
    return out;
}

}  // namespace posenc::hf::detail::families
