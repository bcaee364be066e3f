// SPDX-License-Identifier: MIT
// posenc/models/detail/families/longcat_flash.hpp: LongCat Flash (longcat_flash/configuration_longcat_flash.py,
// longcat_flash/modeling_longcat_flash.py, transformers 5.16).
//
//   layers           num_layers decoder layers (class default 28) of two attention sublayers each,
//                    every one with the one table: the model sets num_hidden_layers = 2 * num_layers
//                    (a different num_hidden_layers in the config gets a warning and is replaced)
//   layer_types      not read (a warning)
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/longcat_flash.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <string>

#include "posenc/model_rope.hpp"
#include "posenc/models/detail/families/family_config.hpp"

namespace posenc::hf::detail::families {

/// The rule for LongCat Flash (see the file comment).
inline FamilyConfig longcat_flash_config(const json& text, const std::string& pre, const Family& family)
{
    const std::string model_type(family.model_type);
    FamilyConfig out(text);
    const std::string shown_type = "\"" + model_type + "\"";
    int decoder_layers = 28;
    if (const json* v = member(text, "num_layers")) {
        decoder_layers = positive_int(*v, pre + "num_layers");
        if (decoder_layers > ModelRope::max_layers / 2)
            fail_json(pre + "num_layers", "expected a positive integer <= 500000 (two attention layers each)", *v);
    } else {
        out.notes.push_back("num_layers absent: " + model_type + "'s class default 28");
    }
    const int attention_layers = 2 * decoder_layers;
    if (const json* v = member(text, "num_hidden_layers");
        v && !(v->is_number() && v->get<double>() == attention_layers))
        out.warnings.push_back({pre + "num_hidden_layers", "model_type " + shown_type +
                                                               "'s model sets it to 2 * num_layers = " +
                                                               std::to_string(attention_layers) + "; ignored"});
    out.text["num_hidden_layers"] = attention_layers;
    out.text.erase("num_layers");
    ignore_key(text, pre, model_type, "layer_types", "does not read it (every attention sublayer has the one table)",
               out);
    out.text.erase("layer_types");
    out.notes.push_back("two attention sublayers per decoder layer: " + std::to_string(attention_layers) +
                        " attention layers (2 * num_layers), every one with the one table");
    return out;
}

}  // namespace posenc::hf::detail::families
