// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_layer_rules_json.hpp: the layer map of a whole model: the number of
// layers, each layer's type (layer_types as given, or as a family rule in families/ writes them),
// which layers rotate (NoPE by the layer types a family rule names), and the group index of each
// layer.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error "posenc/models/detail/hf_layer_rules_json.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
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

#include "posenc/models/detail/hf_model_checks_json.hpp"

namespace posenc::hf::detail_json {

/// The layer count, each layer's type and whether it rotates, per layer rule, and the layer map.
class LayerMapRules : protected ModelChecks
{
public:
    using ModelChecks::ModelChecks;

protected:
    /// num_hidden_layers (n_layer, num_layers), else the class default when layer_types does not say it.
    void read_num_layers()
    {
        for (const char* key : {"num_hidden_layers", "n_layer", "num_layers"})
            if (const json* v = member(*text, key)) {
                const int n = positive_int(*v, pre + key);
                if (n > ModelRope::max_layers) fail_json(pre + key, "expected a positive integer <= 1000000", *v);
                out.num_layers = n;
                break;
            }
        const ClassDefaults* defaults = family ? find_class_defaults(out.model_type) : nullptr;
        if (!out.num_layers && defaults && defaults->num_hidden_layers > 0 && !member(*text, "layer_types")) {
            out.num_layers = defaults->num_hidden_layers;
            out.notes.push_back("num_hidden_layers absent: " + out.model_type + "'s class default " +
                                std::to_string(defaults->num_hidden_layers) + " (" + std::string(defaults->source) + ")");
        }
    }

    /// layer_types as given (a family rule in families/ writes them where its configuration class derives them).
    void read_layer_types()
    {
        if (const json* v = member(*text, "layer_types")) {
            types = layer_type_list(*v, pre + "layer_types");
            if (!out.num_layers) {
                if (types.empty() || types.size() > static_cast<std::size_t>(ModelRope::max_layers))
                    fail_json(pre + "layer_types", "expected one entry per layer (1 to 1000000)", *v);
                out.num_layers = static_cast<int>(types.size());
            }
            if (types.size() != static_cast<std::size_t>(*out.num_layers))
                fail(pre + "layer_types", "expected one entry per layer (num_hidden_layers " +
                                              std::to_string(*out.num_layers) + ")",
                     std::to_string(types.size()) + " entries");
        }
        if (!family && !types.empty())
            for (std::size_t i = 1; i < types.size(); ++i)
                if (types[i] != types[0])
                    fail(pre + "layer_types[" + std::to_string(i) + "]",
                         "expected every layer of the same type for model_type " + type_shown +
                             " (whether its layer types share one RoPE cannot be told from the config)",
                         '"' + types[i] + '"');
    }

    /// Which layers rotate: every layer but those of the layer types a family rule (families/) names.
    void decide_rotation()
    {
        rotates.assign(types.size(), true);
        for (std::size_t i = 0; i < types.size(); ++i)  // a family rule's layer types without position embeddings
            if (std::find(family_nope_types.begin(), family_nope_types.end(), types[i]) != family_nope_types.end())
                rotates[i] = false;
    }

    /// A layer map without any RoPE layer describes no rotary embedding: refused, naming the key that
    /// decided it and what to change (ModelRope holds at least one group used by some layer).
    void require_a_rope_layer() const
    {
        if (types.empty() || per_type || std::find(rotates.begin(), rotates.end(), true) != rotates.end()) return;
        const std::string n = std::to_string(types.size());
        fail(pre + "layer_types", "expected at least one layer with RoPE", n + " layers without");
    }

    /// The group index of each layer, -1 for NoPE.
    void build_layer_map()
    {
        if (out.num_layers) {
            const auto n = static_cast<std::size_t>(*out.num_layers);
            out.layer_groups.assign(n, 0);
            for (std::size_t i = 0; i < n; ++i) {
                if (i < rotates.size() && !rotates[i]) {
                    out.layer_groups[i] = -1;
                    continue;
                }
                if (group_types.size() > 1 || !group_types.front().empty())
                    for (std::size_t g = 0; g < group_types.size(); ++g)
                        if (group_types[g] == types[i]) out.layer_groups[i] = static_cast<int>(g);
            }
        }
    }
};

}  // namespace posenc::hf::detail_json
