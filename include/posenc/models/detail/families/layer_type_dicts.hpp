// SPDX-License-Identifier: MIT
// posenc/models/detail/families/layer_type_dicts.hpp: families whose configuration class keeps
// rope_parameters as given, one dict per layer type, with a class default when absent (its
// convert_rope_params_to_dict returns without folding top-level keys into the dicts): Laguna,
// MiMo-V2-Flash, Mellum, ZAYA (transformers 5.16: laguna/, mimo_v2_flash/, mellum/, zaya/
// configuration files).
//
//   layer_types   as given, else the class's pattern:
//                   Laguna, Mellum   every layer full_attention
//                   MiMo-V2-Flash    full_attention at layer 0 and each (i + 1) % 6 == 0, else sliding_attention
//                   ZAYA             every layer "hybrid"
//   rope_parameters  as given (one dict per layer type, each with its own rope_theta and, where the
//                 family rotates part of the head, partial_rotary_factor: absent, the rotary
//                 embedding's default, 1, MiMo-V2-Flash's 0.334), else the class default;
//                 a flat dict or rope_scaling is refused (the rotary embedding looks the dicts up by
//                 layer type); top-level rope_theta / partial_rotary_factor are not read (a warning).
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/layer_type_dicts.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "posenc/models/detail/families/family_config.hpp"

namespace posenc::hf::detail::families {

namespace layer_type_dicts_steps {

/// The class's default layer types for `model_type` and `n` layers.
inline json default_layer_types(const std::string& model_type, int n)
{
    json types = json::array();
    for (int i = 0; i < n; ++i) {
        if (model_type == "mimo_v2_flash")
            types.push_back(i == 0 || (i + 1) % 6 == 0 ? "full_attention" : "sliding_attention");
        else if (model_type == "zaya") types.push_back("hybrid");
        else types.push_back("full_attention");
    }
    return types;
}

/// The class-default rope_parameters (JSON text).
inline const char* default_rope_parameters(const std::string& model_type)
{
    if (model_type == "laguna")
        return R"({"full_attention": {"rope_type": "default", "rope_theta": 500000.0, "partial_rotary_factor": 0.5},
                   "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 1.0}})";
    if (model_type == "mimo_v2_flash")
        return R"({"full_attention": {"rope_type": "default", "rope_theta": 5000000.0, "partial_rotary_factor": 0.334},
                   "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.334}})";
    if (model_type == "mellum")
        return R"({"full_attention": {"rope_type": "default", "rope_theta": 500000.0},
                   "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}})";
    return R"({"hybrid": {"rope_type": "default", "rope_theta": 5000000.0, "partial_rotary_factor": 0.5},
               "hybrid_sliding": {"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.5}})";
}

}  // namespace layer_type_dicts_steps

/// The rule for Laguna, MiMo-V2-Flash, Mellum and ZAYA (see the file comment).
inline FamilyConfig layer_type_dicts_config(const json& text, const std::string& pre, const Family& family)
{
    const std::string model_type(family.model_type);
    FamilyConfig out(text);
    if (const json* v = member(text, "rope_scaling"))
        fail_json(pre + "rope_scaling",
                  "expected no rope_scaling: model_type \"" + model_type +
                      "\" reads rope_parameters per layer type only",
                  *v);
    if (!member(text, "layer_types")) {
        const int n = layer_count(text, pre, family, out);
        out.text["layer_types"] = layer_type_dicts_steps::default_layer_types(model_type, n);
        out.notes.push_back("layer_types absent: " + model_type + "'s class pattern");
    }
    const json* given = member(text, "rope_parameters");
    if (!given) {
        const char* dflt = layer_type_dicts_steps::default_rope_parameters(model_type);
        out.text["rope_parameters"] = json::parse(dflt);
        out.notes.push_back("rope_parameters absent: " + model_type + "'s class default " +
                            out.text["rope_parameters"].dump());
    } else {
        if (!given->is_object()) fail_json(pre + "rope_parameters", "expected one dict per layer type", *given);
        for (const json& t : out.text["layer_types"]) {
            if (!t.is_string()) break;  // the reader refuses the list, naming the entry
            const json* dict = member(*given, t.get<std::string>().c_str());
            if (!dict || !dict->is_object())
                fail_json(pre + "rope_parameters",
                          "expected a dict for layer type \"" + t.get<std::string>() + "\": model_type \"" +
                              model_type + "\"'s rotary embedding looks its dicts up by layer type",
                          *given);
            if (!member(*dict, "rope_theta"))
                fail(pre + "rope_parameters." + t.get<std::string>() + ".rope_theta",
                     "expected a number: model_type \"" + model_type +
                         "\"'s configuration keeps rope_parameters as "
                         "given, and its rotary embedding reads rope_theta from each layer type's dict",
                     "nothing");
            // mimo_v2_flash/modeling_mimo_v2_flash.py: rope_parameters[layer_type].get("partial_rotary_factor",
            // 0.334) (the other families' default is 1).
            if (model_type == "mimo_v2_flash" && !member(*dict, "partial_rotary_factor")) {
                out.text["rope_parameters"][t.get<std::string>()]["partial_rotary_factor"] = 0.334;
                out.notes.push_back("rope_parameters." + t.get<std::string>() +
                                    ".partial_rotary_factor absent: mimo_v2_flash's rotary embedding default 0.334");
            }
        }
    }
    for (const char* key : {"rope_theta", "partial_rotary_factor"}) {
        ignore_key(text, pre, model_type, key, "keeps rope_parameters as given and does not read it", out);
        out.text.erase(key);
    }
    return out;
}

}  // namespace posenc::hf::detail::families
