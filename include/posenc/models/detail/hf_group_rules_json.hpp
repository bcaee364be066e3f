// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_group_rules_json.hpp: the RoPE groups of a whole model: one per layer
// type with its own dict (per-layer-type rope_parameters, a family's class-default dicts), one per
// layer type from the one dict where a family rule says its rotary embedding builds a table per
// layer type (OLMo 3, Gemma 3), else one group for every RoPE layer; each resolved by resolve_config_values
// (hf_group_json.hpp).
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/hf_group_rules_json.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "posenc/models/detail/hf_group_json.hpp"
#include "posenc/models/detail/hf_layer_rules_json.hpp"
#include "posenc/models/detail/hf_model_identity.hpp"

namespace posenc::hf::detail {

/// The RoPE groups of a model, and the layer type each serves ("" alone: every RoPE layer).
struct RopeGroups {
    std::vector<HfGroupConfig> groups;
    std::vector<std::string> layer_types;
};

namespace group_rules {

/// The group reader's context for this model: its type and name, for a nested object that lacks them.
inline GroupContext model_context(const ModelIdentity& id)
{
    GroupContext c;
    c.model_type = id.model_type;
    c.name_or_path = id.name_or_path;
    c.family = id.row;
    c.steps = &id.steps;
    // rope_parameters is the config's own: not a wrapper's text default, not a family rule's rewrite.
    c.own_object = !id.completed && id.given && member(*id.given, "rope_parameters") != nullptr;
    return c;
}

/// `c` with what the family rule gives layer type `t` beyond its dict (its own base, no scaling,
/// its own head dim).
inline GroupContext with_layer_type(const ModelIdentity& id, const std::string& t, GroupContext c)
{
    for (const families::FamilyConfig::LayerTypeGroup& g : id.layer_type_groups)
        if (g.layer_type == t) {
            if (g.base) c.base = g.base, c.base_key = g.base_key;
            if (g.unscaled) c.no_scaling = true;
            if (g.head_dim) c.head_dim = g.head_dim, c.head_dim_key = g.head_dim_key;
        }
    return c;
}

/// One group's values (resolve_config_values), with the model's name when the group's object has none.
inline HfRopeConfig resolve(const ModelIdentity& id, const GroupContext& c)
{
    HfRopeConfig config = resolve_config_values(id.text(), c);
    if (config.name_or_path.empty()) config.name_or_path = id.name_or_path;
    return config;
}

/// v5 per-layer-type rope_parameters: one group per layer type that rotates.
inline RopeGroups per_layer_type_dicts(const ModelIdentity& id, const LayerMap& map)
{
    RopeGroups out;
    const json& dicts = *id.rope_parameters();
    out.layer_types = map.distinct_types(true);
    if (map.types.empty())
        fail(id.pre + "rope_parameters",
             "expected layer_types (or num_hidden_layers and a layer pattern) to say "
             "which layers use which entry",
             shown(dicts));
    for (const std::string& t : out.layer_types) {
        const json* dict = member(dicts, t.c_str());
        if (!dict)
            fail(id.pre + "rope_parameters", "expected an entry for layer type \"" + t + "\" (used in layer_types)",
                 shown(dicts));
        GroupContext c = model_context(id);
        c.dict = dict;
        c.dict_key = "rope_parameters." + t;
        c.per_layer_type = true;
        c.check_rope_scaling = t == "full_attention" || out.layer_types.size() == 1;
        out.groups.push_back({t, resolve(id, with_layer_type(id, t, c))});
    }
    return out;
}

/// One table per layer type from the one dict (a family rule's table_per_layer_type: OLMo 3, Gemma
/// 3 without per-layer-type dicts): groups named by layer type.
inline RopeGroups table_per_layer_type(const ModelIdentity& id, const LayerMap& map)
{
    RopeGroups out;
    out.layer_types = map.distinct_types(true);
    for (const std::string& t : out.layer_types)
        out.groups.push_back({t, resolve(id, with_layer_type(id, t, model_context(id)))});
    return out;
}

/// One group for every RoPE layer, named "default"; a family's class-default dict (gpt_oss: YaRN
/// x32; apertus: llama3 x8) when the config has none.
inline RopeGroups one_group(const ModelIdentity& id, ReadLog& log)
{
    const json& text = id.text();
    RopeGroups out;
    out.layer_types.push_back("");
    json class_default;
    GroupContext c = model_context(id);
    if (id.family && !id.family->default_rope.empty() && !member(text, "rope_parameters") &&
        !member(text, "rope_scaling")) {
        class_default = json::parse(id.family->default_rope.begin(), id.family->default_rope.end());
        if (const json* theta = member(text, "rope_theta");
            theta && class_default.contains("rope_theta") &&
            !(theta->is_number() && *theta == class_default["rope_theta"]))
            fail(id.pre + "rope_theta",
                 "expected no rope_theta without rope_parameters, or " + class_default["rope_theta"].dump() +
                     ": model_type " + id.type_shown +
                     "'s class-default rope_parameters carries its own rope_theta, and whether a "
                     "top-level value replaces it depends on the transformers version",
                 shown(*theta));
        c.dict = &class_default;
        c.dict_key = "rope_parameters";
        log.notes.push_back("rope_parameters absent: " + id.model_type + "'s class default " +
                            std::string(id.family->default_rope));
    }
    out.groups.push_back({"default", resolve(id, c)});
    return out;
}

}  // namespace group_rules

/// Step 7: one group per layer type with its own dict (per-layer-type rope_parameters) or its own
/// table (a family rule's table_per_layer_type), else one (named "default"). A family whose
/// attention builds one table per layer type names its groups so even when the config uses only
/// one of them (DeepSeek-V4's class defaults: every layer "compress").
inline RopeGroups read_groups(const ModelIdentity& id, const LayerMap& map, ReadLog& log)
{
    RopeGroups out = id.per_layer_type()       ? group_rules::per_layer_type_dicts(id, map)
                     : id.table_per_layer_type ? group_rules::table_per_layer_type(id, map)
                                               : group_rules::one_group(id, log);
    if (out.groups.empty())
        fail(id.pre + "layer_types", "expected at least one layer with RoPE",
             std::to_string(map.types.size()) + " layers without");
    return out;
}

}  // namespace posenc::hf::detail
