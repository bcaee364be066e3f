// SPDX-License-Identifier: MIT
// posenc/models/detail/families/modernbert.hpp: ModernBERT and ModernBERT-decoder
// (modernbert/configuration_modernbert.py, modernbert_decoder/configuration_modernbert_decoder.py,
// transformers 5.16).
//
//   layer_types      as given, else full_attention at every global_attn_every_n_layers-th layer
//                    from layer 0 (i % n == 0; class default n = 3), sliding_attention elsewhere
//   rope_parameters  as given (one dict per layer type; a single dict is refused, transformers 5
//                    leaves it unread), else {"rope_type": "default"} for both; a
//                    rope_scaling dict is merged into both; each dict's rope_theta, when it has none,
//                    is global_rope_theta (full_attention; default 160000) or local_rope_theta
//                    (sliding_attention; default 10000: the class's default_theta, read from the
//                    family's record)
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/modernbert.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <string>
#include <tuple>

#include "posenc/models/detail/families/family_config.hpp"
#include "posenc/models/detail/hf_layer_json.hpp"

namespace posenc::hf::detail::families {

/// The rule for ModernBERT (see the file comment).
inline FamilyConfig modernbert_config(const json& text, const std::string& pre, const Family& family)
{
    const std::string model_type(family.model_type);
    FamilyConfig out(text);
    if (!member(text, "layer_types")) {
        const int n = layer_count(text, pre, family, out);
        std::int64_t every = 3;
        if (const json* v = member(text, "global_attn_every_n_layers")) {
            every = integer(*v, pre + "global_attn_every_n_layers", "expected a positive integer");
            if (every <= 0) fail_json(pre + "global_attn_every_n_layers", "expected a positive integer", *v);
        }
        json types = json::array();
        for (int i = 0; i < n; ++i) types.push_back(i % every == 0 ? "full_attention" : "sliding_attention");
        out.text["layer_types"] = std::move(types);
        out.notes.push_back("layer_types absent: full_attention every " + std::to_string(every) +
                            " layers from layer 0 (global_attn_every_n_layers)");
    }
    json dicts = json::object();
    if (const json* given = member(text, "rope_parameters")) {
        require_dicts_per_layer_type(text, pre, model_type);
        dicts = *given;
    } else {
        dicts = {{"sliding_attention", {{"rope_type", "default"}}}, {"full_attention", {{"rope_type", "default"}}}};
    }
    if (const json* scaling = member(text, "rope_scaling"); scaling && scaling->is_object())
        for (const char* t : {"full_attention", "sliding_attention"}) dicts[t].update(*scaling);
    for (const auto& [type, key, local] : {std::tuple {"full_attention", "global_rope_theta", false},
                                           std::tuple {"sliding_attention", "local_rope_theta", true}}) {
        const double class_default = class_default_base(family, local);
        if (complete_layer_type_dict(dicts, type, text, pre, key, class_default) == ThetaFill::class_default)
            out.notes.push_back(std::string(key) + " absent: " + model_type + "'s class default " +
                                posenc::detail::format_value(class_default));
    }
    out.text["rope_parameters"] = std::move(dicts);
    out.text.erase("rope_scaling");
    return out;
}

}  // namespace posenc::hf::detail::families
