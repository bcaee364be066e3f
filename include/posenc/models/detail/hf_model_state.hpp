// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_model_state.hpp: the state the whole-model reader's stages share
// (ModelState), and the first fact: which object holds the language model (text_config when
// nested), its model_type and its family row.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error "posenc/models/detail/hf_model_state.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
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

#include "posenc/error.hpp"
#include "posenc/model_rope.hpp"
#include "posenc/models/detail/families/family_rules.hpp"
#include "posenc/models/detail/hf_group_json.hpp"
#include "posenc/models/detail/hf_json_values.hpp"
#include "posenc/models/detail/hf_layer_json.hpp"
#include "posenc/models/detail/hf_model_values.hpp"
#include "posenc/models/hf_class_defaults.hpp"
#include "posenc/models/hf_families.hpp"
#include "posenc/models/hf_read_options.hpp"

namespace posenc::hf::detail_json {

/// What every stage of the whole-model reader shares: the config, the result being filled, and
/// the facts the stages settle one after another (the language model's object, the family row,
/// the layer types, which layers rotate). The stages derive from it one after another, each may
/// use the ones before, and ModelReader::read sets the order of the calls: ModelChecks
/// (hf_model_checks_json.hpp), LayerMapRules (hf_layer_rules_json.hpp), GroupRules
/// (hf_group_rules_json.hpp), MropeRules (hf_mrope_json.hpp), QueryScaleRules
/// (hf_query_scale_json.hpp), AttentionSizes (hf_attention_sizes_json.hpp).
class ModelState
{
public:
    ModelState(const json& root, const ReadOptions& options) : root(root), options(options) {}

protected:
    const json& root;
    const ReadOptions& options;
    HfModelConfig out;
    const json* text = nullptr;  ///< the language model's object (root, or text_config)
    std::vector<std::string> family_nope_types;  ///< layer types without RoPE, by the family rule
    std::vector<families::FamilyConfig::LayerTypeGroup> family_groups;  ///< what a layer type's group reads beyond its dict, by the family rule
    bool table_per_layer_type = false;  ///< one group per layer type from the one dict, by the family rule
    json family_text;             ///< the language model's object as its family rule leaves it (families/), when it has one
    std::string pre;             ///< "text_config." when nested, else ""
    const FamilyRules* family = nullptr;
    std::string type_shown;      ///< model_type quoted, or "(absent)"
    const json* rope_parameters = nullptr;
    bool per_type = false;       ///< rope_parameters holds one dict per layer type
    std::vector<std::string> types;        ///< layer type per layer (empty: no layer map)
    std::vector<bool> rotates;             ///< whether layer i has RoPE
    std::vector<std::string> group_types;  ///< the layer type each group serves ("" = every RoPE layer)
    json class_default_rope;               ///< a family's class-default per-layer-type rope_parameters

    int need_layers(const char* why) const
    {
        if (!out.num_layers)
            fail(pre + "num_hidden_layers", std::string("expected a positive integer (") + why + ")", "nothing");
        return *out.num_layers;
    }

    /// The layer types in order of first use (only those of layers with RoPE when `rotating_only`).
    std::vector<std::string> distinct_layer_types(bool rotating_only) const
    {
        std::vector<std::string> seen;
        for (std::size_t i = 0; i < types.size(); ++i)
            if ((!rotating_only || rotates[i]) && std::find(seen.begin(), seen.end(), types[i]) == seen.end())
                seen.push_back(types[i]);
        return seen;
    }

    HfRopeConfig resolve_group(const GroupContext& context) const
    {
        HfRopeConfig c = resolve_config_values(*text, context);
        if (c.name_or_path.empty()) c.name_or_path = out.name_or_path;
        return c;
    }

    GroupContext base_context() const
    {
        GroupContext base;
        base.model_type = out.model_type;
        base.name_or_path = out.name_or_path;
        return base;
    }

    /// The sub-config that holds a composite model's language model, and what the note says of it:
    /// the thinker of Qwen2.5-Omni / Qwen3-Omni (thinker_config), the decoder of an encoder-decoder
    /// (Dia, BLT: decoder_config; T5Gemma, T5Gemma 2: decoder). nullptr for other models.
    static const json* language_model_config_of(const json& root, const std::string& outer_type, std::string& key,
                                                 std::string& note)
    {
        if (outer_type == "qwen2_5_omni" || outer_type == "qwen3_omni_moe")
            key = "thinker_config", note = "this is the thinker's language model; read talker_config on its own for the talker";
        else if (outer_type == "dia" || outer_type == "blt")
            key = "decoder_config", note = "this is the decoder; read encoder_config on its own for the encoder";
        else if (outer_type == "t5gemma" || outer_type == "t5gemma2")
            key = "decoder", note = "this is the decoder; read encoder on its own for the encoder";
        else
            return nullptr;
        const json* v = member(root, key.c_str());
        if (!v) fail(key, "expected an object (model_type \"" + outer_type + "\" keeps its language model there)", "nothing");
        if (!v->is_object()) fail_json(key, "expected an object", *v);
        return v;
    }

    /// model_type, _name_or_path, the language model's object (text_config when nested; a thinker's
    /// text_config under thinker_config), the family row.
    void read_identity()
    {
        std::string outer_type;
        if (const json* v = member(root, "model_type")) {
            if (!v->is_string()) fail_json("model_type", "expected a string", *v);
            outer_type = v->get<std::string>();
        }
        if (const json* v = member(root, "_name_or_path")) {
            if (!v->is_string()) fail_json("_name_or_path", "expected a string", *v);
            out.name_or_path = v->get<std::string>();
        }

        text = &root;
        std::string sub_key, sub_note;
        if (const json* sub = language_model_config_of(root, outer_type, sub_key, sub_note)) {
            // A composite model: its other transformers have layers and RoPE of their own, read on their own.
            text = sub;
            out.key_prefix = sub_key + ".";
            out.notes.push_back("model_type " + ellipsized('"' + outer_type + '"') + " holds several transformers: " +
                                sub_note);
        }
        if (const json* v = member(*text, "text_config")) {
            if (!v->is_object()) fail_json(out.key_prefix + "text_config", "expected an object", *v);
            text = v;
            out.key_prefix += "text_config.";
        }
        pre = out.key_prefix;
        out.model_type = text == &root ? outer_type : std::string(text_model_type_of(outer_type));
        if (text != &root)
            if (const json* v = member(*text, "model_type")) {
                if (!v->is_string()) fail_json(pre + "model_type", "expected a string", *v);
                out.model_type = v->get<std::string>();
            }
        family = find_family(out.model_type);
        if (const families::FamilyConfigRule normalise = family ? families::family_config_rule(out.model_type) : nullptr) {
            // The family's configuration class fills in layer_types and per-layer-type rope_parameters
            // (models/detail/families/); the reader reads the result.
            families::FamilyConfig normalised = normalise(*text, pre, out.model_type);
            family_text = std::move(normalised.text);
            text = &family_text;
            out.notes.insert(out.notes.end(), normalised.notes.begin(), normalised.notes.end());
            out.warnings.insert(out.warnings.end(), normalised.warnings.begin(), normalised.warnings.end());
            family_nope_types = std::move(normalised.nope_layer_types);
            family_groups = std::move(normalised.layer_type_groups);
            table_per_layer_type = normalised.table_per_layer_type;
        }
        type_shown = out.model_type.empty() ? "(absent)" : ellipsized('"' + out.model_type + '"');  // as shown() cuts
        rope_parameters = member(*text, "rope_parameters");
        per_type = is_per_layer_type(rope_parameters);
    }
};

}  // namespace posenc::hf::detail_json
