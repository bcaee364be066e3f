// SPDX-License-Identifier: MIT
// posenc/models/detail/families/bamba.hpp: Bamba (bamba/configuration_bamba.py layers_block_type,
// bamba/modular_bamba.py, transformers 5.16).
//
//   attention at the layers of attn_layer_indices, mamba elsewhere; mamba layers have no attention,
//   hence no RoPE. Without indices every layer is mamba: refused (no layer would rotate). The
//   code takes its layers from attn_layer_indices, so layer_types is not read (a warning says so).
//   partial_rotary_factor: the configuration class overwrites it with the row's 0.5 (known_families),
//   so another value is refused (transformers versions differ on whether one inside rope_parameters
//   survives that); the group reader's partial-factor step calls the check (FamilySteps).
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/bamba.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "posenc/error.hpp"
#include "posenc/models/detail/families/family_config.hpp"

namespace posenc::hf::detail::families {

/// Bamba's partial rotary factor (FamilySteps::check_partial_factor): the row's, whatever the config says.
inline void bamba_partial_factor(const FamilyRules& row, const std::string& key, double value,
                                 const std::string& model_type)
{
    const double forced = row.partial_rotary_factor.value_or(1.0);
    if (value != forced)
        fail(key,
             "expected " + posenc::detail::format_value(forced) + " (" + model_type +
                 "'s code sets partial_rotary_factor " + posenc::detail::format_value(forced) +
                 " whatever the config says)",
             posenc::detail::format_value(value));
}

/// The rule for Bamba (see the file comment).
inline FamilyConfig bamba_config(const json& text, const std::string& pre, const Family& family)
{
    const std::string model_type(family.model_type);
    FamilyConfig out(text);
    if (member(text, "layer_types"))
        out.warnings.push_back(
            {pre + "layer_types",
             "model_type \"" + model_type + "\"'s code takes its layers from attn_layer_indices; ignored"});
    const int n = layer_count(text, pre, family, out);
    json types = json::array();
    for (int i = 0; i < n; ++i) types.push_back("mamba");
    const json* idxs = member(text, "attn_layer_indices");
    const bool any_attention = idxs && mark_listed_layers(*idxs, pre, "attn_layer_indices", n, types, "attention");
    if (!any_attention)
        fail(pre + "attn_layer_indices",
             "expected at least one attention layer below num_hidden_layers " + std::to_string(n) +
                 " (every other layer is mamba, without RoPE)",
             idxs ? shown(*idxs) : std::string("nothing"));
    out.text["layer_types"] = std::move(types);
    out.text.erase("attn_layer_indices");
    out.nope_layer_types.push_back("mamba");
    out.steps.check_partial_factor = &bamba_partial_factor;
    return out;
}

}  // namespace posenc::hf::detail::families
