// SPDX-License-Identifier: MIT
// posenc/models/detail/families/flint.hpp: Flint (flint/ configuration and modeling files,
// transformers 5.25.0), whose attention rotates only its sliding-window layers.
//
//   layer_types   as given, else full_attention on the first two layers, on every layer with
//                 i % 4 == 1 and on the last layer, sliding_attention elsewhere (the configuration
//                 class's pattern; no key sets it)
//   RoPE          a layer rotates when it is sliding_attention and sliding_window is set (the
//                 attention keeps config.sliding_window on sliding layers, None on the others, and
//                 rotates `if self.sliding_window is not None`); sliding_window null leaves no layer
//                 rotating: refused, naming it
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/flint.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <string>

#include "posenc/models/detail/families/family_config.hpp"

namespace posenc::hf::detail::families {

/// The rule for Flint (see the file comment).
inline FamilyConfig flint_config(const json& text, const std::string& pre, const Family& family)
{
    FamilyConfig out(text);
    const auto window = text.find("sliding_window");
    if (window != text.end() && window->is_null())
        fail(pre + "sliding_window",
             "expected a window: Flint rotates only its sliding-window layers, so null leaves the "
             "model without RoPE",
             "null");
    json types = json::array();
    if (const json* given = member(text, "layer_types")) {
        if (!given->is_array()) return out;  // the reader refuses it, naming layer_types
        types = *given;
    } else {
        const int n = layer_count(text, pre, family, out);
        for (int i = 0; i < n; ++i)
            types.push_back(i < 2 || i % 4 == 1 || i == n - 1 ? "full_attention" : "sliding_attention");
    }
    json marked = json::array();
    for (const json& t : types) marked.push_back(t.is_string() && t == "sliding_attention" ? "default" : "nope");
    out.text["layer_types"] = std::move(marked);
    out.nope_layer_types.push_back("nope");
    out.notes.push_back("only sliding_attention layers rotate (Flint's attention); the others have no RoPE");
    return out;
}

}  // namespace posenc::hf::detail::families
