// SPDX-License-Identifier: MIT
// posenc/models/detail/families/mllama.hpp: Mllama's text model, Llama 3.2 Vision
// (mllama/configuration_mllama.py, mllama/modeling_mllama.py, transformers 5.16).
//
//   the layers listed in cross_attention_layers (class default [3, 8, 13, 18, 23, 28, 33, 38])
//   attend to the image and get no position embeddings; every other layer is Llama self-attention
//   with the one table. layer_types is not read (a warning says so); indices past the last layer
//   are not layers.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/mllama.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "posenc/models/detail/families/family_config.hpp"

namespace posenc::hf::detail::families {

/// The rule for Mllama (see the file comment).
inline FamilyConfig mllama_config(const json& text, const std::string& pre, const Family& family)
{
    const std::string model_type(family.model_type);
    FamilyConfig out(text);
    if (member(text, "layer_types"))
        out.warnings.push_back(
            {pre + "layer_types",
             "model_type \"" + model_type + "\"'s code takes its NoPE layers from cross_attention_layers; ignored"});
    const int n = layer_count(text, pre, family, out);
    json list = json::parse("[3, 8, 13, 18, 23, 28, 33, 38]");
    if (const json* v = member(text, "cross_attention_layers")) {
        list = *v;
    } else {
        out.notes.push_back("cross_attention_layers absent: " + model_type + "'s class default " + list.dump());
    }
    json types = json::array();
    for (int i = 0; i < n; ++i) types.push_back("self_attention");
    mark_listed_layers(list, pre, "cross_attention_layers", n, types, "cross_attention");
    out.text["layer_types"] = std::move(types);
    out.text.erase("cross_attention_layers");
    out.nope_layer_types.push_back("cross_attention");
    return out;
}

}  // namespace posenc::hf::detail::families
