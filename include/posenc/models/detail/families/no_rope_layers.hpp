// SPDX-License-Identifier: MIT
// posenc/models/detail/families/no_rope_layers.hpp: a per-layer RoPE switch, SmolLM3 and Llama 4
// (smollm3/modeling_smollm3.py, llama4/modeling_llama4.py: `use_rope = no_rope_layers[layer_idx]`,
// transformers 5.16).
//
//   no_rope_layers[i]   1 (or true): layer i rotates; 0 (or false): it has no RoPE; at least one
//                       entry per layer. Llama 4 reads an empty list as absent (`if
//                       self.no_rope_layers`), SmolLM3 only a missing one.
//   absent              every no_rope_layer_interval-th layer ((i + 1) % interval == 0; default 4)
//                       has no RoPE
//   A list of zeros leaves the model without RoPE: refused, naming no_rope_layers. The layers keep
//   their layer types; those without RoPE get the type "nope".
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/no_rope_layers.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "posenc/models/detail/families/family_config.hpp"

namespace posenc::hf::detail::families {

/// The rule for SmolLM3 and Llama 4 (see the file comment).
inline FamilyConfig no_rope_layers_config(const json& text, const std::string& pre, const Family& family)
{
    const std::string model_type(family.model_type);
    FamilyConfig out(text);
    const json* given_types = member(text, "layer_types");
    const int n = given_types && given_types->is_array() && !member(text, "num_hidden_layers")
                      ? static_cast<int>(given_types->size())
                      : layer_count(text, pre, family, out);
    std::vector<bool> rotates(static_cast<std::size_t>(n), true);
    const json* list = member(text, "no_rope_layers");
    if (list && model_type == "llama4_text" && list->is_array() && list->empty()) list = nullptr;
    if (list) {
        if (!list->is_array() || list->size() < static_cast<std::size_t>(n))
            fail_json(pre + "no_rope_layers",
                      "expected a list of 0 / 1 with at least one entry per layer (" + std::to_string(n) + ")", *list);
        for (int i = 0; i < n; ++i) {
            const json& e = (*list)[static_cast<std::size_t>(i)];
            const std::string path = pre + "no_rope_layers[" + std::to_string(i) + "]";
            if (e.is_boolean()) {
                rotates[static_cast<std::size_t>(i)] = e.get<bool>();
            } else {
                const std::int64_t x = integer(e, path, "expected 1 (RoPE) or 0 (NoPE)");
                if (x != 0 && x != 1) fail_json(path, "expected 1 (RoPE) or 0 (NoPE)", e);
                rotates[static_cast<std::size_t>(i)] = x == 1;
            }
        }
        bool any = false;
        for (bool r : rotates) any = any || r;
        if (!any && n > 0)
            fail(pre + "no_rope_layers",
                 "expected at least one 1 (a layer with RoPE): every entry is 0, so none of the " + std::to_string(n) +
                     " layers rotates and there is no RoPE to describe",
                 shown(*list));
    } else {
        int interval = 4;
        if (const json* v = member(text, "no_rope_layer_interval"))
            interval = positive_int(*v, pre + "no_rope_layer_interval");
        for (int i = 0; i < n; ++i) rotates[static_cast<std::size_t>(i)] = (i + 1) % interval != 0;
        out.notes.push_back("no_rope_layers absent: every " + std::to_string(interval) +
                            "th layer has no RoPE (no_rope_layer_interval)");
    }
    json types = json::array();
    for (int i = 0; i < n; ++i) {
        const json* t = given_types && given_types->is_array() && static_cast<std::size_t>(i) < given_types->size()
                            ? &(*given_types)[static_cast<std::size_t>(i)]
                            : nullptr;
        types.push_back(!rotates[static_cast<std::size_t>(i)] ? json("nope") : t ? *t : json("full_attention"));
    }
    if (given_types && given_types->is_array() && given_types->size() != static_cast<std::size_t>(n))
        return out;  // the reader refuses the count, naming layer_types
    out.text["layer_types"] = std::move(types);
    out.nope_layer_types.push_back("nope");
    for (const char* key : {"no_rope_layers", "no_rope_layer_interval"}) out.text.erase(key);
    return out;
}

}  // namespace posenc::hf::detail::families
