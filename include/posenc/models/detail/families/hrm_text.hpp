// SPDX-License-Identifier: MIT
// posenc/models/detail/families/hrm_text.hpp: HRM's text model (hrm_text/configuration_hrm_text.py,
// transformers 5.16).
//
//   layers   without num_layers_per_stack, the configuration class reads num_hidden_layers
//            (class default 16) as the blocks per stack, keeps it as num_layers_per_stack and sets
//            num_hidden_layers = num_layers_per_stack * H_cycles * (L_cycles + 1) (class defaults 2
//            and 3): one layer slot per attention call of the recurrent forward. With
//            num_layers_per_stack (a saved config), num_hidden_layers is read as given.
//   RoPE     one table for every layer.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/hrm_text.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "posenc/model_rope.hpp"
#include "posenc/models/detail/families/family_config.hpp"

namespace posenc::hf::detail::families {

/// The rule for HRM's text model (see the file comment).
inline FamilyConfig hrm_text_config(const json& text, const std::string& pre, const Family& family)
{
    const std::string model_type(family.model_type);
    FamilyConfig out(text);
    if (member(text, "num_layers_per_stack")) return out;
    const int per_stack = layer_count(text, pre, family, out);
    auto cycles = [&](const char* key, int class_default) {
        const json* v = member(text, key);
        return v ? positive_int(*v, pre + key) : class_default;
    };
    const std::int64_t h = cycles("H_cycles", 2), l = cycles("L_cycles", 3);
    // Each factor <= 10^6 before multiplying, so the product (<= 10^18) fits in 64 bits.
    const bool small = per_stack <= ModelRope::max_layers && h <= ModelRope::max_layers && l < ModelRope::max_layers;
    const std::int64_t slots = small ? per_stack * h * (l + 1) : std::int64_t {ModelRope::max_layers} + 1;
    if (slots > ModelRope::max_layers)
        fail(pre + "num_hidden_layers",
             "expected num_hidden_layers * H_cycles * (L_cycles + 1) <= 1000000 (the layer slots model_type \"" +
                 model_type + "\"'s configuration class makes of it)",
             std::to_string(per_stack) + " * " + std::to_string(h) + " * (" + std::to_string(l) + " + 1)");
    out.text["num_hidden_layers"] = slots;
    out.notes.push_back(
        "num_layers_per_stack absent: the configuration class reads num_hidden_layers " + std::to_string(per_stack) +
        " as the blocks per stack and makes " + std::to_string(slots) +
        " layer slots of it (num_hidden_layers * H_cycles * (L_cycles + 1)), every one with the one table");
    return out;
}

}  // namespace posenc::hf::detail::families
