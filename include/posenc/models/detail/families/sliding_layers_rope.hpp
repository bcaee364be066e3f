// SPDX-License-Identifier: MIT
// posenc/models/detail/families/sliding_layers_rope.hpp: families of transformers 5.25.0 whose
// model hands position embeddings to its sliding_attention layers only, one table for all of them:
// Ergo (ergo/ configuration and modeling files) and Lara Mini (lara_mini/).
//
//   Ergo        layer_types as given, else sliding_attention unless (i + 1) %
//               global_attention_every_n_layers == 0 (class default 4), full_attention there.
//               rope_parameters: a single dict describes the sliding layers (its
//               convert_rope_params_to_dict makes it {"sliding_attention": dict, "full_attention":
//               None}); given per layer type, the sliding_attention entry is read and a
//               full_attention entry must be null (the model passes
//               position_embeddings.get(layer_type), so a full_attention dict would rotate those
//               layers with a second table: refused, naming it); a YaRN dict's truncate false is
//               refused, naming it (transformers reads truncate from the top level of the nested
//               rope_parameters, where it is absent: true). A non-null global_attention_scale (a
//               logit multiplier on the NoPE layers) is named in a warning. Pairs interleaved
//               (x[..., ::2], x[..., 1::2] with repeat_interleave'd cos / sin); the angles are
//               computed in float64.
//   Lara Mini   layer_types as given, else the period-5 pattern linear_attention, sliding_attention,
//               linear_attention, full_attention, sliding_attention; the model passes
//               position_embeddings `if layer_type == "sliding_attention" else None`, so
//               linear_attention and full_attention layers have no RoPE. One rope_parameters dict.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/sliding_layers_rope.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "posenc/models/detail/families/family_config.hpp"
#include "posenc/models/detail/hf_layer_json.hpp"

namespace posenc::hf::detail::families {

namespace sliding_layers_steps {

/// The class's layer pattern for `n` layers.
inline json default_layer_types(const json& text, const std::string& pre, const std::string& model_type, int n)
{
    json types = json::array();
    if (model_type == "lara_mini") {
        static const char* const period[] = {"linear_attention", "sliding_attention", "linear_attention",
                                             "full_attention", "sliding_attention"};
        for (int i = 0; i < n; ++i) types.push_back(period[i % 5]);
        return types;
    }
    const int every = pattern_value(text, "global_attention_every_n_layers", 4, pre);
    for (int i = 0; i < n; ++i) types.push_back((i + 1) % every != 0 ? "sliding_attention" : "full_attention");
    return types;
}

/// Ergo's rope_parameters given per layer type: the sliding_attention dict as the one dict.
inline void read_ergo_dicts(const json& given, const std::string& pre, FamilyConfig& out)
{
    if (const json* full = member(given, "full_attention"); full && !full->is_null())
        fail_json(
            pre + "rope_parameters.full_attention",
            "expected null: Ergo's full_attention layers take no position embeddings, and a dict there would make "
            "its model rotate them with a second table, which posenc does not read",
            *full);
    const json* sliding = member(given, "sliding_attention");
    if (!sliding || !sliding->is_object())
        fail_json(pre + "rope_parameters",
                  "expected a dict for \"sliding_attention\": Ergo's rotary embedding looks it up by layer type",
                  given);
    out.text["rope_parameters"] = *sliding;
    out.notes.push_back("rope_parameters per layer type: the sliding_attention dict is the one table");
}

/// Ergo keeps its one dict under "sliding_attention", and transformers' YaRN reads truncate from the top
/// level of rope_parameters (absent there, so true): a dict's truncate false is not applied. Refused, naming it.
inline void refuse_unapplied_truncate(const json& dict, const std::string& path)
{
    const json* type = member(dict, "rope_type");
    if (!type) type = member(dict, "type");
    const json* truncate = member(dict, "truncate");
    if (type && *type == "yarn" && truncate && *truncate == false)
        fail(path + ".truncate",
             "expected true or no value: Ergo's configuration class files its one RoPE dict under "
             "\"sliding_attention\", and transformers' YaRN reads truncate from the top level of "
             "rope_parameters, where it is absent, so it truncates whatever the dict says",
             "false");
}

}  // namespace sliding_layers_steps

/// The rule for Ergo and Lara Mini (see the file comment).
inline FamilyConfig sliding_layers_rope_config(const json& text, const std::string& pre, const Family& family)
{
    const std::string model_type(family.model_type);
    FamilyConfig out(text);
    if (model_type == "ergo") {
        if (const json* given = member(text, "rope_parameters"); given && is_per_layer_type(given))
            sliding_layers_steps::read_ergo_dicts(*given, pre, out);
        for (const char* key : {"rope_scaling", "rope_parameters"})
            if (const json* dict = member(out.text, key); dict && dict->is_object())
                sliding_layers_steps::refuse_unapplied_truncate(*dict, pre + key);
        if (const json* v = member(text, "global_attention_scale"); v && !v->is_null())
            out.warnings.push_back(
                {pre + "global_attention_scale",
                 "multiplies the attention logits of Ergo's full_attention layers (no RoPE there; set by "
                 "checkpoints whose context was extended): not part of posenc's RoPE description"});
    }
    json types;
    if (const json* given = member(text, "layer_types")) {
        if (!given->is_array()) return out;  // the reader refuses it, naming layer_types
        types = *given;
    } else {
        types = sliding_layers_steps::default_layer_types(text, pre, model_type, layer_count(text, pre, family, out));
        out.notes.push_back("layer_types absent: " + model_type + "'s class pattern");
    }
    json marked = json::array();
    for (const json& t : types) marked.push_back(t.is_string() && t == "sliding_attention" ? "default" : "nope");
    out.text["layer_types"] = std::move(marked);
    out.text.erase("global_attention_every_n_layers");
    out.nope_layer_types.push_back("nope");
    out.notes.push_back("only sliding_attention layers rotate (" + model_type + "'s model); the others have no RoPE");
    return out;
}

}  // namespace posenc::hf::detail::families
