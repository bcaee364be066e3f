// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_group_facts.hpp: the group reader's first step (model_type,
// _name_or_path, the family row, max_position_embeddings) and the values its later steps pass on:
// GroupFacts (what is known before any RoPE key is read), ScalingDict (the dict in effect),
// RotaryFraction (the partial rotary factor and where it came from), TopLevelLength (the top-level
// original_max_position_embeddings).
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/hf_group_facts.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "posenc/error.hpp"
#include "posenc/models/detail/family_lookup.hpp"
#include "posenc/models/detail/family_row.hpp"
#include "posenc/models/detail/hf_json_values.hpp"
#include "posenc/models/detail/hf_rope_values.hpp"
#include "posenc/models/detail/hf_scaling_dict_json.hpp"
#include "posenc/models/hf_class_defaults.hpp"
#include "posenc/models/hf_families.hpp"

namespace posenc::hf::detail {

/// What the group reader knows before it reads a RoPE key: the config object, what the model-level
/// reader says of it (GroupContext), and the family row with the two facts it decides first.
struct GroupFacts {
    const json& config;
    const GroupContext& context;
    const FamilyRules* family = nullptr;
    bool gptj_like = false;  ///< GPT-J / CodeGen: rotary_dim, not partial_rotary_factor
    bool deepseek = false;  ///< MLA: RoPE on the qk_rope_head_dim slice
    const ClassDefaults* class_defaults =
        nullptr;  ///< the family's configuration-class defaults (hf_class_defaults.hpp)
    /// The family rule's hooks in the group steps (families/family_steps.hpp): the context's, when its
    /// record is this group's family; nullptr otherwise.
    const families::FamilySteps* steps = nullptr;
    /// The family's defaults for head_dim, max_position_embeddings and the top-level
    /// original_max_position_embeddings (0: none): the row's
    /// (hf_families.hpp: a value the family's code sets), else the configuration class's field
    /// default (hf_class_defaults.hpp).
    int default_head_dim = 0;
    std::int64_t default_max_position_embeddings = 0;
    std::int64_t default_original_max_position_embeddings = 0;  ///< the top-level attribute's (Phi-3: 4096)
};

/// The scaling dict in effect (nullptr: none) and its key path.
struct ScalingDict {
    const json* dict = nullptr;
    std::string key;
    std::string at(const char* k) const { return key + "." + k; }  ///< the key path of one of its keys
};

/// The partial rotary factor in effect, its key, and how it was given (for messages; "" when it
/// is the generic 1).
struct RotaryFraction {
    double value = 1.0;
    std::string key, shown;
};

/// The top-level original_max_position_embeddings (or the family's class default), which
/// transformers 5 copies over a single dict's value; `written`: the config has the key; `ignored`:
/// it does but the group's dict is a per-layer-type entry, which keeps its own.
struct TopLevelLength {
    std::optional<std::int64_t> l0;
    bool written = false;
    bool ignored = false;
};

/// Whether the scaling dict asks for proportional RoPE, for a family whose code has it.
inline bool is_proportional(const GroupFacts& g, const ScalingDict& sd)
{
    const json* type = sd.dict ? member(*sd.dict, "rope_type") : nullptr;
    return type && *type == "proportional" && g.family && g.family->has(trait::proportional_full_attention);
}

/// Step 1: model_type and _name_or_path (else the context's), and the family record: the context's
/// (the whole-model reader's look-up) for the same model_type, else the one look-up here.
inline GroupFacts read_group_identity(const json& config, const GroupContext& context, HfRopeConfig& out)
{
    if (const json* v = member(config, "model_type")) {
        if (!v->is_string()) fail_json("model_type", "expected a string", *v);
        out.model_type = v->get<std::string>();
    }
    if (const json* v = member(config, "_name_or_path")) {
        if (!v->is_string()) fail_json("_name_or_path", "expected a string", *v);
        out.name_or_path = v->get<std::string>();
    }
    if (out.model_type.empty()) out.model_type = context.model_type;
    if (out.name_or_path.empty()) out.name_or_path = context.name_or_path;
    GroupFacts g {config, context};
    const bool context_row = context.family && context.family->model_type == out.model_type;
    const Family& row = context_row ? *context.family : family_row(out.model_type);
    g.family = row.hand;
    g.steps = context_row ? context.steps : nullptr;
    const FamilyRules* family = g.family;
    out.mla_softmax_mscale = family == nullptr || family->has(trait::mla_softmax_mscale);
    g.gptj_like = family && family->has(trait::rotary_dim_key);
    // A family whose rule reads its head width or places its rotary slice itself (FamilySteps::head_dim:
    // Mistral 4; FamilySteps::rotary_slice: DeepSeek-V4) reads its widths otherwise.
    const bool own_slice = g.steps && (g.steps->head_dim || g.steps->rotary_slice);
    g.deepseek = (member(config, "qk_rope_head_dim") != nullptr || (family && family->has(trait::mla))) && !own_slice;
    if (family) {
        g.class_defaults = row.class_defaults;
        const ClassDefaults* defaults = g.class_defaults;
        g.default_head_dim = family->head_dim > 0 ? family->head_dim : defaults ? defaults->head_dim : 0;
        g.default_max_position_embeddings = family->max_position_embeddings > 0 ? family->max_position_embeddings
                                            : defaults                          ? defaults->max_position_embeddings
                                                                                : 0;
        g.default_original_max_position_embeddings = family->original_max_position_embeddings > 0
                                                         ? family->original_max_position_embeddings
                                                     : defaults ? defaults->original_max_position_embeddings
                                                                : 0;
    }
    return g;
}

/// Step 2: max_position_embeddings (GPT-J: n_positions), else the class default.
inline void read_max_position_embeddings(const GroupFacts& g, HfRopeConfig& out)
{
    if (const json* v = member(g.config, "max_position_embeddings"))
        out.max_position_embeddings = positive_int(*v, "max_position_embeddings");
    else if (const json* n = member(g.config, "n_positions"))
        out.max_position_embeddings = positive_int(*n, "n_positions");
    else if (g.default_max_position_embeddings > 0) {
        out.max_position_embeddings = g.default_max_position_embeddings;
        out.notes.push_back("max_position_embeddings absent: " + out.model_type + "'s class default " +
                            std::to_string(g.default_max_position_embeddings));
    }
}

}  // namespace posenc::hf::detail
