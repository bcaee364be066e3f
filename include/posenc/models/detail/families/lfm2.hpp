// SPDX-License-Identifier: MIT
// posenc/models/detail/families/lfm2.hpp: LFM2 and LFM2-MoE (lfm2/configuration_lfm2.py,
// lfm2/modeling_lfm2.py, lfm2_moe/modular_lfm2_moe.py, transformers 5.16).
//
//   conv layers (short convolutions) have no attention, hence no RoPE; the others are
//   full_attention with the one table. layer_types as given (entries "full_attention" or "conv";
//   another entry is refused, naming it); else, for LFM2, full_attention at full_attn_idxs and conv
//   elsewhere (absent: every layer attention). LFM2-MoE's code reads layer_types[i] for every layer
//   and has no default: a config without it is refused (full_attn_idxs is not read there).
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/lfm2.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "posenc/models/detail/families/family_config.hpp"

namespace posenc::hf::detail::families {

/// The rule for LFM2 and LFM2-MoE (see the file comment).
inline FamilyConfig lfm2_config(const json& text, const std::string& pre, const Family& family)
{
    const std::string model_type(family.model_type);
    FamilyConfig out(text);
    out.nope_layer_types.push_back("conv");
    if (const json* given = member(text, "layer_types")) {
        if (given->is_array())
            for (std::size_t i = 0; i < given->size(); ++i) {
                const json& t = (*given)[i];
                if (t.is_string() && t != "full_attention" && t != "conv")
                    fail(pre + "layer_types[" + std::to_string(i) + "]",
                         "expected \"conv\" or \"full_attention\" for model_type \"" + model_type + "\"",
                         '"' + t.get<std::string>() + '"');
            }
        return out;
    }
    if (model_type == "lfm2_moe")
        fail(pre + "layer_types",
             "expected one entry per layer: model_type \"" + model_type +
                 "\"'s code reads layer_types[i] for every layer and has no default for it",
             "nothing");
    const int n = layer_count(text, pre, family, out);
    json types = json::array();
    for (int i = 0; i < n; ++i) types.push_back("full_attention");
    if (const json* idxs = member(text, "full_attn_idxs")) {
        for (json& t : types) t = "conv";  // a value that is not a list is refused below
        mark_listed_layers(*idxs, pre, "full_attn_idxs", n, types, "full_attention");
        out.text.erase("full_attn_idxs");
    }
    out.text["layer_types"] = std::move(types);
    return out;
}

}  // namespace posenc::hf::detail::families
