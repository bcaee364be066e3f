// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_layer_rules_json.hpp: the layer map of a whole model: the number of
// layers, each layer's type (layer_types as given, or as a family rule in families/ writes them),
// which layers rotate (NoPE by the layer types a family rule names), and, once the groups are
// known, the group index of each layer.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/hf_layer_rules_json.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "posenc/model_rope.hpp"
#include "posenc/models/detail/hf_layer_json.hpp"
#include "posenc/models/detail/hf_model_identity.hpp"
#include "posenc/models/hf_class_defaults.hpp"

namespace posenc::hf::detail {

/// The layers of a model: how many (when the config says), each one's type, whether it rotates.
struct LayerMap {
    std::optional<int> num_layers;
    std::vector<std::string> types;  ///< the type of each layer; empty when the config names none
    std::vector<bool> rotates;  ///< whether layer i has RoPE (one entry per type)

    /// The layer types in order of first use (only those of layers with RoPE when `rotating_only`).
    std::vector<std::string> distinct_types(bool rotating_only) const
    {
        std::vector<std::string> seen;
        for (std::size_t i = 0; i < types.size(); ++i)
            if ((!rotating_only || rotates[i]) && std::find(seen.begin(), seen.end(), types[i]) == seen.end())
                seen.push_back(types[i]);
        return seen;
    }
};

/// Step 4: num_hidden_layers (n_layer, num_layers), else the class default when layer_types does
/// not say it (hf_class_defaults.hpp), else nothing.
inline std::optional<int> read_num_layers(const ModelIdentity& id, ReadLog& log)
{
    const json& text = id.text();
    for (const char* key : {"num_hidden_layers", "n_layer", "num_layers"})
        if (const json* v = member(text, key)) {
            const int n = positive_int(*v, id.pre + key);
            if (n > ModelRope::max_layers) fail_json(id.pre + key, "expected a positive integer <= 1000000", *v);
            return n;
        }
    const ClassDefaults* defaults = id.family ? id.row->class_defaults : nullptr;
    if (defaults && defaults->num_hidden_layers > 0 && !member(text, "layer_types")) {
        log.notes.push_back("num_hidden_layers absent: " + id.model_type + "'s class default " +
                            std::to_string(defaults->num_hidden_layers) + " (" + std::string(defaults->source) + ")");
        return defaults->num_hidden_layers;
    }
    return std::nullopt;
}

/// Step 6: layer_types as given (a family rule writes them where its configuration class derives
/// them; an unknown family's must be all alike) and which layers rotate: every layer but those of
/// the layer types the family rule names. A map without any RoPE layer is refused.
inline LayerMap read_layer_map(const ModelIdentity& id, std::optional<int> num_layers)
{
    const json& text = id.text();
    const std::string& pre = id.pre;
    LayerMap map;
    map.num_layers = num_layers;
    if (const json* v = member(text, "layer_types")) {
        map.types = layer_type_list(*v, pre + "layer_types");
        if (!map.num_layers) {
            if (map.types.empty() || map.types.size() > static_cast<std::size_t>(ModelRope::max_layers))
                fail_json(pre + "layer_types", "expected one entry per layer (1 to 1000000)", *v);
            map.num_layers = static_cast<int>(map.types.size());
        }
        if (map.types.size() != static_cast<std::size_t>(*map.num_layers))
            fail(pre + "layer_types",
                 "expected one entry per layer (num_hidden_layers " + std::to_string(*map.num_layers) + ")",
                 std::to_string(map.types.size()) + " entries");
    }
    if (!id.family)
        for (std::size_t i = 1; i < map.types.size(); ++i)
            if (map.types[i] != map.types[0])
                fail(pre + "layer_types[" + std::to_string(i) + "]",
                     "expected every layer of the same type for model_type " + id.type_shown +
                         " (whether its layer types share one RoPE cannot be told from the config)",
                     '"' + map.types[i] + '"');

    map.rotates.assign(map.types.size(), true);
    for (std::size_t i = 0; i < map.types.size(); ++i)  // a family rule's layer types without position embeddings
        if (std::find(id.nope_layer_types.begin(), id.nope_layer_types.end(), map.types[i]) !=
            id.nope_layer_types.end())
            map.rotates[i] = false;
    // ModelRope holds at least one group used by some layer: refused, naming the key that decided it.
    if (!map.types.empty() && !id.per_layer_type() &&
        std::find(map.rotates.begin(), map.rotates.end(), true) == map.rotates.end())
        fail(pre + "layer_types", "expected at least one layer with RoPE",
             std::to_string(map.types.size()) + " layers without");
    return map;
}

/// Step 8: the group index of each layer, -1 for NoPE; `group_types` names the layer type each
/// group serves ("" alone: one group for every RoPE layer). Empty when the layer count is unknown.
inline std::vector<int> layer_groups_of(const LayerMap& map, const std::vector<std::string>& group_types)
{
    std::vector<int> groups;
    if (!map.num_layers) return groups;
    const auto n = static_cast<std::size_t>(*map.num_layers);
    groups.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        if (i < map.rotates.size() && !map.rotates[i]) {
            groups[i] = -1;
            continue;
        }
        if (group_types.size() > 1 || !group_types.front().empty())
            for (std::size_t g = 0; g < group_types.size(); ++g)
                if (group_types[g] == map.types[i]) groups[i] = static_cast<int>(g);
    }
    return groups;
}

}  // namespace posenc::hf::detail
