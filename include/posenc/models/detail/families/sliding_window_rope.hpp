// SPDX-License-Identifier: MIT
// posenc/models/detail/families/sliding_window_rope.hpp: families whose full_attention layers have
// no RoPE while a sliding window is set: EXAONE 4 and EXAONE MoE (exaone4/, exaone_moe/ modeling
// files: `if self.sliding_window is None or self.is_sliding`) and Cohere 2 (cohere2/modular_cohere2.py:
// `if self.sliding_window is not None`), transformers 5.16; Kolibri 1 (kolibri1/modeling_kolibri1.py, the same
// test as EXAONE 4, transformers 5.25), whose class pattern is every 5th layer full_attention.
//
//   layer_types   as given (entries sliding_attention / full_attention; another is refused, naming
//                 it); else sliding_attention unless (i + 1) % sliding_window_pattern == 0 (default 4;
//                 Kolibri 1: always every 5th, kolibri1/configuration_kolibri1.py reads no pattern key);
//                 EXAONE with sliding_window null: every layer full_attention
//   RoPE          with a window (sliding_window absent means the class default, a window), the
//                 full_attention layers have none; without one, EXAONE rotates every layer and Cohere
//                 2 is refused (only its sliding-window layers rotate, so none would). A model whose
//                 every layer is full_attention under a window has no RoPE layer: refused.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/sliding_window_rope.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <string>

#include "posenc/models/detail/families/family_config.hpp"
#include "posenc/models/detail/hf_layer_json.hpp"

namespace posenc::hf::detail::families {

/// The rule for EXAONE 4, EXAONE MoE, Cohere 2 and Kolibri 1 (see the file comment).
inline FamilyConfig sliding_window_rope_config(const json& text, const std::string& pre, const Family& family)
{
    const std::string model_type(family.model_type);
    FamilyConfig out(text);
    const std::string shown_type = "\"" + model_type + "\"";
    const bool cohere = model_type == "cohere2";
    const auto window = text.find("sliding_window");
    const bool windowed = window == text.end() || !window->is_null();
    const json* given = member(text, "layer_types");
    if (given && given->is_array()) {
        for (std::size_t i = 0; i < given->size(); ++i) {
            const json& t = (*given)[i];
            if (t.is_string() && t != "sliding_attention" && t != "full_attention")
                fail(pre + "layer_types[" + std::to_string(i) + "]",
                     "expected \"sliding_attention\" or \"full_attention\" for model_type " + shown_type,
                     '"' + t.get<std::string>() + '"');
        }
    } else if (!given) {
        const int n = layer_count(text, pre, family, out);
        json types = json::array();
        if (!cohere && !windowed) {
            for (int i = 0; i < n; ++i) types.push_back("full_attention");
        } else {
            const int every = model_type == "kolibri1" ? 5 : pattern_value(text, "sliding_window_pattern", 4, pre);
            for (int i = 0; i < n; ++i) types.push_back((i + 1) % every != 0 ? "sliding_attention" : "full_attention");
        }
        out.text["layer_types"] = std::move(types);
    }
    if (model_type != "kolibri1") out.text.erase("sliding_window_pattern");  // Kolibri 1's class does not read it
    if (cohere && !windowed)
        fail(pre + "sliding_window",
             "expected a window: Cohere 2 rotates only its sliding-window layers, so null leaves "
             "the model without RoPE",
             "null");
    if (!windowed) return out;
    out.nope_layer_types.push_back("full_attention");
    const json& types = out.text["layer_types"];
    bool any_sliding = !types.is_array();  // not a list: the reader refuses it, naming layer_types
    for (const json& t : types.is_array() ? types : json::array())
        any_sliding = any_sliding || !t.is_string() || t == "sliding_attention";
    if (!any_sliding && !types.empty())
        fail(pre + "layer_types",
             "expected at least one \"sliding_attention\" layer: model_type " + shown_type +
                 " rotates only its sliding-window layers and every one of the " + std::to_string(types.size()) +
                 " layers is \"full_attention\", so no layer has RoPE",
             given ? shown(*given) : std::to_string(types.size()) + " full_attention layers");
    return out;
}

}  // namespace posenc::hf::detail::families
