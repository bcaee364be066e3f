// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_model_identity.hpp: the whole-model reader's first step: which object of
// the config holds the language model (text_config when nested, a composite model's thinker or
// decoder), its model_type and family record (family_row.hpp: looked up once per model_type here,
// read from there by every later step), and the config as the family's rule (families/) leaves
// it. Every later step of hf_model_reader.hpp reads the config through ModelIdentity::text().
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/hf_model_identity.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/models/detail/families/family_config.hpp"
#include "posenc/models/detail/family_lookup.hpp"
#include "posenc/models/detail/family_row.hpp"
#include "posenc/models/detail/hf_json_values.hpp"
#include "posenc/models/detail/hf_layer_json.hpp"
#include "posenc/models/detail/hf_model_values.hpp"
#include "posenc/models/hf_class_defaults.hpp"
#include "posenc/models/hf_families.hpp"

namespace posenc::hf::detail {

/// What the reader's steps tell the caller besides the values: notes (what was filled in) and
/// warnings (keys not read), in the order the steps ran.
struct ReadLog {
    std::vector<std::string> notes;
    std::vector<ConfigWarning> warnings;
};

/// The language model a config describes; see the file comment.
struct ModelIdentity {
    std::string name_or_path;  ///< the outer config's _name_or_path, "" when absent
    std::string model_type;  ///< the language model's type (text_config's when nested)
    std::string pre;  ///< its key path: "", "text_config.", "thinker_config.text_config.", ...
    std::string type_shown;  ///< model_type quoted (cut as shown() cuts), or "(absent)"
    const Family* row = nullptr;  ///< its record (family_row.hpp), set by with_family_rule
    const FamilyRules* family = nullptr;  ///< row->hand: nullptr for a type posenc does not know
    const json* given = nullptr;  ///< the language model's object in the config (or `completed`)
    /// A wrapper's text_config completed with the wrapper's text defaults (hf_class_defaults.hpp
    /// WrapperTextDefaults), when the wrapper has them, or carrying the model_type the wrapper
    /// gives it (LanguageModelWrapper::renamed_text_model_type); `given` points to it.
    std::shared_ptr<const json> completed;
    std::optional<json> normalised;  ///< the object as the family rule leaves it, when the family has one
    /// From the family rule (families/family_config.hpp FamilyConfig): the layer types without RoPE,
    /// what a layer type's group reads beyond its dict, whether each layer type has a table of its own.
    std::vector<std::string> nope_layer_types;
    std::vector<families::FamilyConfig::LayerTypeGroup> layer_type_groups;
    bool table_per_layer_type = false;
    families::FamilySteps steps;  ///< the family's hooks in the generic steps (families/family_steps.hpp)

    /// The language model's config object, as the later steps read it.
    const json& text() const noexcept { return normalised ? *normalised : *given; }
    const json* rope_parameters() const { return member(text(), "rope_parameters"); }
    /// rope_parameters holds one dict per layer type (hf_layer_json.hpp is_per_layer_type).
    bool per_layer_type() const { return is_per_layer_type(rope_parameters()); }
};

/// The sub-config that holds a composite model's language model, and what the note says of it:
/// the thinker of Qwen2.5-Omni / Qwen3-Omni (thinker_config), the decoder of an encoder-decoder
/// (Dia, BLT: decoder_config; T5Gemma, T5Gemma 2: decoder): the wrapper row's language_model_key.
/// nullptr for other models.
inline const json* language_model_config_of(const json& root, const std::string& outer_type, const Family& outer)
{
    if (!outer.wrapper || outer.wrapper->language_model_key.empty()) return nullptr;
    const std::string key(outer.wrapper->language_model_key);
    const json* v = member(root, key.c_str());
    if (!v)
        fail(key, "expected an object (model_type \"" + outer_type + "\" keeps its language model there)", "nothing");
    if (!v->is_object()) fail_json(key, "expected an object", *v);
    return v;
}

/// Step 1: model_type, _name_or_path, and the language model's object (text_config when nested; a
/// thinker's text_config under thinker_config). The family is not looked up yet (with_family_rule).
inline ModelIdentity locate_language_model(const json& root, ReadLog& log)
{
    if (!root.is_object()) fail_json("config", "expected a JSON object", root);
    ModelIdentity id;
    std::string outer_type;
    if (const json* v = member(root, "model_type")) {
        if (!v->is_string()) fail_json("model_type", "expected a string", *v);
        outer_type = v->get<std::string>();
    }
    if (const json* v = member(root, "_name_or_path")) {
        if (!v->is_string()) fail_json("_name_or_path", "expected a string", *v);
        id.name_or_path = v->get<std::string>();
    }
    id.given = &root;
    const Family& outer = family_row(outer_type);
    if (const json* sub = language_model_config_of(root, outer_type, outer)) {
        // A composite model: its other transformers have layers and RoPE of their own, read on their own.
        id.given = sub;
        id.pre = std::string(outer.wrapper->language_model_key) + ".";
        log.notes.push_back("model_type " + ellipsized('"' + outer_type + '"') +
                            " holds several transformers: " + std::string(outer.wrapper->language_model_note));
    }
    const json* text_config = member(*id.given, "text_config");
    if (text_config && !text_config->is_object()) fail_json(id.pre + "text_config", "expected an object", *text_config);
    if (const WrapperTextDefaults* wrapper = outer.wrapper_text_defaults) {
        // The wrapper builds its text config from {**its text defaults, **text_config}.
        auto completed =
            std::make_shared<json>(json::parse(wrapper->text_defaults.begin(), wrapper->text_defaults.end()));
        if (text_config) completed->update(*text_config);
        if (!member(*completed, "model_type")) (*completed)["model_type"] = std::string(wrapper->text_model_type);
        log.notes.push_back(std::string(text_config ? "text_config completed with" : "text_config absent:") +
                            " model_type " + ellipsized('"' + outer_type + '"') + "'s text defaults (" +
                            std::string(wrapper->source) + ") for the keys it leaves out");
        id.completed = std::move(completed);
        id.given = id.completed.get();
        id.pre += "text_config.";
    } else if (text_config) {
        id.given = text_config;
        id.pre += "text_config.";
    }
    id.model_type = id.given == &root || !outer.wrapper ? outer_type : std::string(outer.wrapper->text_model_type);
    if (id.given != &root)
        if (const json* v = member(*id.given, "model_type")) {
            if (!v->is_string()) fail_json(id.pre + "model_type", "expected a string", *v);
            id.model_type = v->get<std::string>();
            if (outer.wrapper && !outer.wrapper->renamed_text_model_type.empty() &&
                outer.wrapper->renamed_text_model_type == id.model_type) {
                const std::string_view renamed = outer.wrapper->text_model_type;
                // As the wrapper does: the text config itself carries the new model_type, so every
                // later step reads the family it names.
                log.notes.push_back(id.pre + "model_type \"" + id.model_type + "\" read as \"" + std::string(renamed) +
                                    "\": model_type \"" + outer_type + "\" builds its text config so");
                auto renamed_config = std::make_shared<json>(*id.given);
                (*renamed_config)["model_type"] = std::string(renamed);
                id.completed = std::move(renamed_config);
                id.given = id.completed.get();
                id.model_type = std::string(renamed);
            }
        }
    id.type_shown = id.model_type.empty() ? "(absent)" : ellipsized('"' + id.model_type + '"');  // as shown() cuts
    return id;
}

/// Step 2: the family record (the one look-up of the language model's model_type), and the config
/// as the family's rule leaves it (families/): the rule fills in layer_types and per-layer-type
/// rope_parameters as its configuration class does.
inline ModelIdentity with_family_rule(ModelIdentity id, ReadLog& log)
{
    id.row = &family_row(id.model_type);
    id.family = id.row->hand;
    const families::FamilyConfigRule rule = id.family ? id.row->rule : nullptr;
    if (!rule) return id;
    families::FamilyConfig normalised = rule(*id.given, id.pre, *id.row);
    log.notes.insert(log.notes.end(), normalised.notes.begin(), normalised.notes.end());
    log.warnings.insert(log.warnings.end(), normalised.warnings.begin(), normalised.warnings.end());
    id.normalised = std::move(normalised.text);
    id.nope_layer_types = std::move(normalised.nope_layer_types);
    id.layer_type_groups = std::move(normalised.layer_type_groups);
    id.table_per_layer_type = normalised.table_per_layer_type;
    id.steps = normalised.steps;
    return id;
}

}  // namespace posenc::hf::detail
