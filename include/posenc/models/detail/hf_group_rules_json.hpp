// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_group_rules_json.hpp: the RoPE groups of a whole model: one per layer
// type with its own dict (per-layer-type rope_parameters, a family's class-default dicts), one per
// layer type from the one dict where a family rule says its rotary embedding builds a table per
// layer type (OLMo 3, Gemma 3), else one group for every RoPE layer; each resolved by GroupReader
// (hf_group_json.hpp).
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error "posenc/models/detail/hf_group_rules_json.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "posenc/models/detail/hf_layer_rules_json.hpp"

namespace posenc::hf::detail_json {

/// The RoPE groups of a model: which dict each layer type reads, resolved by GroupReader.
class GroupRules : protected LayerMapRules
{
public:
    using LayerMapRules::LayerMapRules;

protected:
    /// One group per layer type with its own dict (per-layer-type rope_parameters) or its own table (a
    /// family rule's table_per_layer_type), else one (named "default").
    void build_groups()
    {
        if (per_type) per_layer_type_groups();
        else if (table_per_layer_type) layer_type_groups();
        else one_group();
        if (out.groups.empty())
            fail(pre + "layer_types", "expected at least one layer with RoPE", std::to_string(types.size()) + " layers without");
        // A family whose attention builds one table per layer type (or per rope label) names its
        // groups so even when the config uses only one of them (DeepSeek-V4's class defaults: every
        // layer "compress"); one_group's "default" is the one-table models' name.
    }

    /// `c` with what the family rule gives layer type `t` beyond its dict (its own base, no scaling,
    /// its own head dim).
    GroupContext layer_type_context(const std::string& t, GroupContext c) const
    {
        for (const families::FamilyConfig::LayerTypeGroup& g : family_groups)
            if (g.layer_type == t) {
                if (g.base) c.base = g.base, c.base_key = g.base_key;
                if (g.unscaled) c.no_scaling = true;
                if (g.head_dim) c.head_dim = g.head_dim, c.head_dim_key = g.head_dim_key;
            }
        return c;
    }

    /// v5 per-layer-type rope_parameters: one group per layer type that rotates.
    void per_layer_type_groups()
    {
        const GroupContext base = base_context();
        group_types = distinct_layer_types(true);
        if (types.empty())
            fail(pre + "rope_parameters", "expected layer_types (or num_hidden_layers and a layer pattern) to say "
                                          "which layers use which entry",
                 shown(*rope_parameters));
        for (const std::string& t : group_types) {
            const json* dict = member(*rope_parameters, t.c_str());
            if (!dict)
                fail(pre + "rope_parameters", "expected an entry for layer type \"" + t + "\" (used in layer_types)",
                     shown(*rope_parameters));
            GroupContext c = base;
            c.dict = dict;
            c.dict_key = "rope_parameters." + t;
            c.per_layer_type = true;
            c.check_rope_scaling = t == "full_attention" || group_types.size() == 1;
            out.groups.push_back({t, resolve_group(layer_type_context(t, c))});
        }
    }

    /// One table per layer type from the one dict (a family rule's table_per_layer_type: OLMo 3, Gemma
    /// 3 without per-layer-type dicts): groups named by layer type.
    void layer_type_groups()
    {
        group_types = distinct_layer_types(true);
        for (const std::string& t : group_types) out.groups.push_back({t, resolve_group(layer_type_context(t, base_context()))});
    }

    /// One group for every RoPE layer; a family's class-default dict when the config has none.
    void one_group()
    {
        const GroupContext base = base_context();
        group_types.push_back("");
        // A family's class-default RoPE dict (gpt_oss: YaRN x32; apertus: llama3 x8) when the config has none.
        json class_default;
        GroupContext c = base;
        if (family && !family->default_rope.empty() && !member(*text, "rope_parameters") && !member(*text, "rope_scaling")) {
            class_default = json::parse(family->default_rope.begin(), family->default_rope.end());
            if (const json* theta = member(*text, "rope_theta"); theta && class_default.contains("rope_theta") &&
                                                                  !(theta->is_number() && *theta == class_default["rope_theta"]))
                fail(pre + "rope_theta", "expected no rope_theta without rope_parameters, or " +
                                             class_default["rope_theta"].dump() + ": model_type " + type_shown +
                                             "'s class-default rope_parameters carries its own rope_theta, and whether a "
                                             "top-level value replaces it depends on the transformers version",
                     shown(*theta));
            c.dict = &class_default;
            c.dict_key = "rope_parameters";
            out.notes.push_back("rope_parameters absent: " + out.model_type + "'s class default " +
                                std::string(family->default_rope));
        }
        out.groups.push_back({"default", resolve_group(c)});
    }
};

}  // namespace posenc::hf::detail_json
