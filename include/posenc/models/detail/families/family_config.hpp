// SPDX-License-Identifier: MIT
// posenc/models/detail/families/family_config.hpp: what a family rule returns, and the helpers the
// rules share.
//
// A family rule does what the family's configuration class does before its rotary embedding reads
// the config (its __post_init__ and convert_rope_params_to_dict in transformers): it turns the
// language model's config object into the canonical form the generic reader reads — layer_types,
// and rope_parameters with one dict per layer type — and says what it filled in (notes) or what the
// class does not read (warnings). The reader then reads the result like any config with that form.
// One header per family (or per group of families whose classes share the rule) in this folder;
// family_rules.hpp lists them.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/family_config.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "posenc/models/detail/families/family_steps.hpp"
#include "posenc/models/detail/family_row.hpp"
#include "posenc/models/detail/hf_json_values.hpp"
#include "posenc/models/detail/hf_layer_json.hpp"
#include "posenc/models/hf_class_defaults.hpp"
#include "posenc/models/hf_read_options.hpp"

namespace posenc::hf::detail::families {

/// A family rule's result: the normalised language-model config, and what to tell the reader's user.
struct FamilyConfig {
    /// The rule starts from the config object as given.
    explicit FamilyConfig(json given) : text(std::move(given)) {}

    json text;  ///< the config object as the configuration class leaves it (layer_types, rope_parameters)
    /// Layer types (of text's layer_types) whose layers get no position embeddings at all.
    std::vector<std::string> nope_layer_types;
    /// What the group of one layer type reads beyond its RoPE dict: a base of its own and its key
    /// (Gemma 3's sliding_attention layers: rope_local_base_freq), no scaling dict at all (the same
    /// layers), a head dim of its own and its key (Gemma 4's full_attention layers: global_head_dim).
    struct LayerTypeGroup {
        std::string layer_type;
        std::optional<double> base;
        std::string base_key;
        bool unscaled = false;
        std::optional<int> head_dim;
        std::string head_dim_key;
    };
    std::vector<LayerTypeGroup> layer_type_groups;
    /// The rotary embedding builds one table per layer type from the one RoPE dict (OLMo 3; Gemma 3
    /// without per-layer-type dicts): the reader makes one group per layer type with RoPE, named by
    /// it, even where two tables are equal. (Per-layer-type rope_parameters give one group per layer
    /// type anyway.)
    bool table_per_layer_type = false;
    /// What the family's code decides inside the generic steps, called by them (family_steps.hpp).
    FamilySteps steps;
    std::vector<std::string> notes;
    std::vector<ConfigWarning> warnings;
};

// A family rule is a FamilyConfigRule (models/detail/family_row.hpp): it receives its model_type's
// record, and reads its class defaults and hand row from there.

/// num_hidden_layers as given, else the configuration class's default (the record's class defaults),
/// with a note.
inline int layer_count(const json& text, const std::string& pre, const Family& family, FamilyConfig& out)
{
    if (const json* v = member(text, "num_hidden_layers")) return positive_int(*v, pre + "num_hidden_layers");
    const ClassDefaults* d = family.class_defaults;
    const std::string model_type(family.model_type);
    if (!d || d->num_hidden_layers <= 0)
        fail(pre + "num_hidden_layers", "expected a positive integer (the layer pattern needs it)", "nothing");
    out.notes.push_back("num_hidden_layers absent: " + model_type + "'s class default " +
                        std::to_string(d->num_hidden_layers) + " (" + std::string(d->source) + ")");
    out.text["num_hidden_layers"] = d->num_hidden_layers;
    return d->num_hidden_layers;
}

/// The configuration class's default base of the full_attention layers (`local` false: its
/// default_theta's "global" entry) or the sliding_attention layers (`local` true: "local"), from the
/// record's generated class defaults (Gemma 3: 1e6 and 1e4; ModernBERT: 160000 and 10000). A
/// family without it in the generated table is refused, naming model_type.
inline double class_default_base(const Family& family, bool local)
{
    const ClassDefaults* d = family.class_defaults;
    const double base = d ? (local ? d->local_rope_theta : d->rope_theta) : 0.0;
    if (!(base > 0.0))
        fail("model_type",
             "expected a family whose generated class defaults hold default_theta's \"global\" and \"local\" "
             "bases (scripts/extract-class-defaults.py)",
             "\"" + std::string(family.model_type) + "\"");
    return base;
}

/// text[key] as an integer >= 0, else 0 (first_k_dense_replace, num_nextn_predict_layers, ...).
inline std::int64_t count_or_zero(const json& text, const std::string& pre, const char* key)
{
    const json* v = member(text, key);
    if (!v) return 0;
    const std::int64_t x = integer(*v, pre + key, "expected an integer >= 0");
    if (x < 0) fail_json(pre + key, "expected an integer >= 0", *v);
    return x;
}

/// Sets types[i] = `mark` for each index i < n of the list at `key` (attn_layer_indices,
/// cross_attention_layers, full_attn_idxs); indices past the last layer are not layers. Refuses
/// a value that is not a list and an index below 0, naming the entry. True when a layer was marked.
inline bool mark_listed_layers(const json& list, const std::string& pre, const char* key, int n, json& types,
                               const char* mark)
{
    if (!list.is_array()) fail_json(pre + key, "expected a list of layer indices", list);
    bool marked = false;
    for (std::size_t k = 0; k < list.size(); ++k) {
        const std::string path = pre + key + "[" + std::to_string(k) + "]";
        const std::int64_t i = integer(list[k], path, "expected a layer index >= 0");
        if (i < 0) fail_json(path, "expected a layer index >= 0", list[k]);
        if (i < n) types[static_cast<std::size_t>(i)] = mark, marked = true;
    }
    return marked;
}

/// Refuses a rope_parameters that is one dict rather than one per layer type, for a family whose
/// configuration class keeps a given rope_parameters and then looks its entries up by layer type
/// (Gemma 3, OLMo 3, ModernBERT): transformers 5 leaves such a dict unread.
inline void require_dicts_per_layer_type(const json& text, const std::string& pre, const std::string& model_type)
{
    if (const json* given = member(text, "rope_parameters"); given && !is_per_layer_type(given))
        fail(pre + "rope_parameters",
             "expected one dict per layer type (\"sliding_attention\", \"full_attention\"): "
             "model_type \"" +
                 model_type +
                 "\"'s configuration class looks its dicts up by "
                 "layer type, and transformers 5 leaves a single dict unread",
             shown(*given));
}

/// How complete_layer_type_dict left an entry's rope_theta.
enum class ThetaFill { given, from_key, class_default };

/// What the per-layer-type configuration classes (Gemma 3, OLMo 3, ModernBERT) do to one entry of
/// their rope_parameters: a missing or null entry becomes {"rope_type": "default"}, and one without
/// rope_theta takes the top-level `key` (nullptr: none), else `class_default` (their setdefault).
/// Refuses an entry that is not a dict, naming it.
inline ThetaFill complete_layer_type_dict(json& dicts, const char* layer_type, const json& text, const std::string& pre,
                                          const char* key, double class_default)
{
    json& entry = dicts[layer_type];
    if (entry.is_null()) entry = {{"rope_type", "default"}};
    if (!entry.is_object()) fail_json(pre + "rope_parameters." + layer_type, "expected a dict", entry);
    if (entry.contains("rope_theta")) return ThetaFill::given;
    if (const json* v = key ? member(text, key) : nullptr) {
        entry["rope_theta"] = number(*v, pre + key);
        return ThetaFill::from_key;
    }
    entry["rope_theta"] = class_default;
    return ThetaFill::class_default;
}

/// A top-level key the family's configuration class does not read: a warning naming it.
inline void ignore_key(const json& text, const std::string& pre, const std::string& model_type, const char* key,
                       const std::string& why, FamilyConfig& out)
{
    if (member(text, key))
        out.warnings.push_back({pre + key, "model_type \"" + model_type + "\"'s configuration " + why + "; ignored"});
}

}  // namespace posenc::hf::detail::families
