// SPDX-License-Identifier: MIT
// posenc/models/detail/families/gemma4.hpp: Gemma 4's text model and the families that share its
// configuration rules, Gemma 4 Unified and DiffusionGemma (gemma4/configuration_gemma4.py,
// gemma4_unified/..., diffusion_gemma/..., transformers 5.16).
//
//   layer_types      as given, else sliding_attention unless (i + 1) % 6 == 0; the last layer is
//                    always full_attention (a given list that says otherwise gets a warning)
//   rope_parameters  one dict per layer type only (a flat dict or rope_scaling is refused: the rotary
//                    embedding looks its dicts up by layer type), else the class default (the row's
//                    default_rope: sliding_attention default at 1e4, full_attention proportional 0.25
//                    at 1e6)
//   head dim         full_attention layers use global_head_dim (class default 512), the others head_dim
//
// Proportional RoPE itself (rope_type "proportional": the first int(p * H / 2) pairs rotate at
// base^(-2i / H), the rest have frequency 0) is read where the row has
// trait::proportional_full_attention (hf_families.hpp).
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/gemma4.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <string>

#include "posenc/models/detail/families/family_config.hpp"
#include "posenc/models/detail/hf_layer_json.hpp"
#include "posenc/models/hf_families.hpp"

namespace posenc::hf::detail::families {

/// The rule for Gemma 4 and its look-alikes (see the file comment).
inline FamilyConfig gemma4_config(const json& text, const std::string& pre, const Family& family)
{
    const std::string model_type(family.model_type);
    FamilyConfig out(text);
    const std::string shown_type = "\"" + model_type + "\"";
    const json* given = member(text, "rope_parameters");
    if (given && !is_per_layer_type(given))
        fail(pre + "rope_parameters",
             "expected one dict per layer type (\"sliding_attention\", \"full_attention\"): "
             "model_type " +
                 shown_type + " looks its dicts up by layer type",
             shown(*given));
    if (const json* v = member(text, "rope_scaling"))
        fail(pre + "rope_scaling",
             "expected no rope_scaling: model_type " + shown_type + " reads rope_parameters per layer type only",
             shown(*v));
    if (!given) {
        const std::string_view dicts = family.hand->default_rope;  // the class-default dicts: the row's default_rope
        out.text["rope_parameters"] = json::parse(dicts.begin(), dicts.end());
        out.notes.push_back("rope_parameters absent: " + model_type + "'s class default " +
                            out.text["rope_parameters"].dump());
    }
    if (const json* types = member(text, "layer_types")) {
        if (types->is_array() && !types->empty() && types->back().is_string() && types->back() != "full_attention") {
            out.warnings.push_back({pre + "layer_types", "the last entry is \"" +
                                                             ellipsized(types->back().get<std::string>()) +
                                                             "\"; transformers forces the last layer to full_attention "
                                                             "(write \"full_attention\" there to silence this)"});
            out.text["layer_types"].back() = "full_attention";
        }
    } else {
        const int n = layer_count(text, pre, family, out);
        json types_out = json::array();
        for (int i = 0; i < n; ++i)
            types_out.push_back((i + 1) % 6 != 0 && i != n - 1 ? "sliding_attention" : "full_attention");
        out.text["layer_types"] = std::move(types_out);
    }
    int global = 512;
    if (const json* v = member(text, "global_head_dim")) {
        global = positive_int(*v, pre + "global_head_dim");
        if (global > max_head_dim) fail_json(pre + "global_head_dim", "expected a positive integer <= 65536", *v);
    } else {
        out.notes.push_back("global_head_dim absent: " + model_type + "'s class default 512");
    }
    FamilyConfig::LayerTypeGroup full;
    full.layer_type = "full_attention";
    full.head_dim = global, full.head_dim_key = "global_head_dim";
    out.layer_type_groups.push_back(full);
    return out;
}

}  // namespace posenc::hf::detail::families
