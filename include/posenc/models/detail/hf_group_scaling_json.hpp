// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_group_scaling_json.hpp: the scaling of one RoPE group: which dict is in
// effect (rope_parameters, rope_scaling, a per-layer-type entry, none), its rope type (legacy
// spellings mapped), its keys and their values, HunYuan's alpha and XD-RoPE's sections.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/hf_group_scaling_json.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "posenc/models/detail/hf_group_facts.hpp"

namespace posenc::hf::detail {

/// The scaling dict: v5 rope_parameters, else rope_scaling (or the context's entry); GPT-J and
/// CodeGen read none.
inline ScalingDict choose_scaling_dict(const GroupFacts& g, HfRopeConfig& out)
{
    ScalingDict sd;
    if (g.gptj_like) {
        // gptj/modeling_gptj.py, codegen/modeling_codegen.py: create_sinusoidal_positions(max_positions,
        // rotary_dim) at base 10000, in transformers 4 and 5 alike; no RoPE dict or base key is read.
        for (const char* key : {"rope_parameters", "rope_scaling", "rope_theta"})
            if (member(g.config, key))
                out.warnings.push_back({key, "model_type \"" + out.model_type +
                                                 "\"'s code builds its table from rotary_dim "
                                                 "at base 10000 and does not read it; ignored"});
        return sd;
    }
    for (const char* key : {"rope_parameters", "rope_scaling"}) {
        if (const json* v = member(g.config, key)) {
            if (!v->is_object()) fail_json(key, "expected an object or null", *v);
            if (!sd.dict) {
                sd.dict = v;
                out.scaling_key = key;
            }
        }
    }
    if (const json* both = member(g.config, "rope_scaling");
        both && sd.dict && out.scaling_key == "rope_parameters" && g.context.check_rope_scaling) {
        const json* compared = sd.dict;
        std::string compared_key = "rope_parameters";
        if (g.context.dict) compared = g.context.dict, compared_key = g.context.dict_key;
        if (!g.context.dict && g.context.own_object && !both->empty() && !same_scaling(*both, *compared)) {
            // modeling_rope_utils.py (decba1d2) convert_rope_params_to_dict: `rope_parameters =
            // rope_scaling or rope_parameters`: a non-empty rope_scaling wins (Chameleon's configs carry both).
            out.warnings.push_back({"rope_parameters", "ignored: the config also carries rope_scaling " + shown(*both) +
                                                           ", which transformers' convert_rope_params_to_dict takes "
                                                           "first (rope_scaling or rope_parameters)"});
            sd.dict = both;
            out.scaling_key = "rope_scaling";
        } else if (!same_scaling(*both, *compared)) {
            // A per-layer-type entry, or a wrapper's completed text_config (its rope_parameters may be
            // the class's default): the rope_scaling beside it must say the same thing.
            fail("rope_scaling",
                 "expected the same RoPE parameters as " + compared_key +
                     " (the config carries both and they disagree)",
                 shown(*both));
        }
    }
    if (g.context.dict) {
        sd.dict = g.context.dict;
        out.scaling_key = g.context.dict_key;
    }
    if (g.context.no_scaling) {
        sd.dict = nullptr;
        out.scaling_key.clear();
    }
    sd.key = out.scaling_key;
    return sd;
}

/// The rope type by exact name (legacy aliases where a configuration class renames them).
inline void read_rope_type(const GroupFacts& g, const ScalingDict& sd, HfRopeConfig& out)
{
    // An explicit null is not "absent" where transformers reads the key with dict.get / setdefault:
    // rope_type null (or type null without rope_type) looks up the init function None and fails,
    // truncate null means no truncation, rope_theta null and original_max_position_embeddings null
    // (yarn, llama3, longrope) reach the arithmetic as None. posenc refuses them, naming the key.
    for (const char* key : {"rope_type", "truncate", "rope_theta"})
        if (explicit_null(*sd.dict, key))
            fail(sd.at(key),
                 std::string("expected ") +
                     (std::string(key) == "rope_type"  ? "a string"
                      : std::string(key) == "truncate" ? "true or false"
                                                       : "a finite number > 1") +
                     " or no key at all (transformers reads null as a value here, not as absent)",
                 "null");
    if (!sd.dict->contains("rope_type") && explicit_null(*sd.dict, "type"))
        fail(sd.at("type"),
             "expected a string or no key at all (transformers reads null as a value here, not as absent)", "null");
    const json* type_value = member(*sd.dict, "rope_type");
    std::string type_key = sd.at("rope_type");
    if (!type_value) type_value = member(*sd.dict, "type"), type_key = sd.at("type");
    if (type_value) {
        if (!type_value->is_string()) fail_json(type_key, "expected a string", *type_value);
        out.rope_type = type_value->get<std::string>();
    }
    if (g.family && g.family->has(trait::longrope_only) && (out.rope_type == "su" || out.rope_type == "yarn")) {
        out.notes.push_back(out.model_type + ": legacy rope type \"" + out.rope_type + "\" is read as \"longrope\"");
        out.rope_type = "longrope";
    }
    if (g.steps && g.steps->rope_type_alias) g.steps->rope_type_alias(type_key, out);  // the family's own (FamilySteps)
    if (out.rope_type == "su" && out.model_type.empty()) {
        // No model_type names no model: the generic description keeps the old LongRoPE alias.
        out.notes.push_back("legacy rope type \"su\" is read as \"longrope\"");
        out.rope_type = "longrope";
    }
    if (out.rope_type == "mrope" && g.family && g.family->has(trait::multi_axis)) {
        // Qwen2-VL's legacy spelling: Hugging Face reads it as "default" plus mrope_section.
        out.notes.push_back(type_key + " \"mrope\" is read as \"default\" with " + sd.key + ".mrope_section");
        out.rope_type = "default";
    }
    // The rotary embedding looks the type up by exact name (ROPE_INIT_FUNCTIONS, plus "default"):
    // "su" and "mrope" are aliases only where a configuration class renames them (Phi-3; the M-RoPE
    // families), and a name that merely contains "dynamic" is no dynamic type.
    const std::set<std::string> types {"default", "linear", "dynamic", "yarn", "longrope", "llama3"};
    if (out.rope_type == "proportional" && is_proportional(g, sd)) return;
    if (types.count(out.rope_type) == 0)
        fail_json(type_key, "expected one of default, linear, dynamic, yarn, longrope, llama3", *type_value);
    if (g.family && g.family->has(trait::longrope_only) && out.rope_type != "default" && out.rope_type != "longrope")
        // phi3/configuration_phi3.py validate_rope raises ValueError for any other type.
        fail_json(type_key,
                  "expected default or longrope (legacy su / yarn) for model_type \"" + out.model_type +
                      "\" (its configuration class refuses other rope types)",
                  *type_value);
}

/// Keys the rope type does not read: warnings, as transformers logs them.
inline void warn_unknown_scaling_keys(const GroupFacts& g, const ScalingDict& sd, HfRopeConfig& out)
{
    std::set<std::string> known = known_scaling_keys(out.rope_type);
    if (g.family) {
        // The family's own keys of the dict (Ministral 3: llama_4_scaling_beta, read by the model-level reader).
        std::istringstream extra {std::string(g.family->extra_rope_keys)};
        for (std::string k; extra >> k;) known.insert(k);
    }
    for (auto it = sd.dict->begin(); it != sd.dict->end(); ++it)
        if (known.count(it.key()) == 0)
            out.warnings.push_back(
                {sd.at(it.key().c_str()), "unrecognized key for rope_type \"" + out.rope_type + "\""});
}

/// The scaling dict's numbers and lists.
inline void read_scaling_parameters(const GroupFacts& g, const ScalingDict& sd, HfRopeConfig& out)
{
    auto optional_number = [&](const char* key) -> std::optional<double> {
        if (const json* v = member(*sd.dict, key)) return number(*v, sd.at(key));
        return std::nullopt;
    };
    if (const json* v = member(*sd.dict, "factor")) {
        out.factor_key = sd.at("factor");
        out.factor = number(*v, sd.at("factor"), "expected a number >= 1");
        if (*out.factor < 1.0) fail_json(sd.at("factor"), "expected a number >= 1", *v);
        if (v->is_number_integer())  // a fact, not a warning: nothing for the user to change
            out.notes.push_back(sd.at("factor") + " is an integer (" + v->dump() +
                                "); transformers logs a warning and uses it as " +
                                posenc::detail::format_value(*out.factor));
    }
    out.attention_factor = optional_number("attention_factor");
    out.beta_fast = optional_number("beta_fast");
    out.beta_slow = optional_number("beta_slow");
    out.mscale = optional_number("mscale");
    out.mscale_all_dim = optional_number("mscale_all_dim");
    out.low_freq_factor = optional_number("low_freq_factor");
    out.high_freq_factor = optional_number("high_freq_factor");
    if (const json* v = member(*sd.dict, "truncate")) {
        if (!v->is_boolean()) fail_json(sd.at("truncate"), "expected true or false", *v);
        out.truncate = v->get<bool>();
        if (g.context.per_layer_type && !*out.truncate && out.rope_type == "yarn")
            // _compute_yarn_parameters reads config.rope_parameters.get("truncate", True): the top level
            // of a per-layer-type rope_parameters, which has no truncate, so the entry's false is not seen.
            fail(sd.at("truncate"),
                 "expected true or no value in a per-layer-type rope_parameters entry (transformers "
                 "reads truncate from the top level of rope_parameters, where it is absent, so it "
                 "truncates whatever the entry says)",
                 "false");
    }
    if (g.steps && g.steps->section_alias)
        g.steps->section_alias(*sd.dict, sd.key, out);  // HunYuan-VL's xdrope_section
    if (const json* v = member(*sd.dict, "mrope_section")) {
        if (!v->is_array() || v->empty()) fail_json(sd.at("mrope_section"), "expected a list of positive integers", *v);
        for (std::size_t i = 0; i < v->size(); ++i)
            out.mrope_section.push_back(positive_int((*v)[i], sd.at("mrope_section") + "[" + std::to_string(i) + "]"));
    }
    if (const json* v = member(*sd.dict, "mrope_interleaved")) {
        if (!v->is_boolean()) fail_json(sd.at("mrope_interleaved"), "expected true or false", *v);
        out.mrope_interleaved = v->get<bool>();
        out.mrope_interleaved_given = true;
    }
    if (const json* v = member(*sd.dict, "alpha")) {
        out.alpha = number(*v, sd.at("alpha"), "expected a finite number > 0");
        if (!(*out.alpha > 0.0)) fail_json(sd.at("alpha"), "expected a finite number > 0", *v);
    }
    if (g.steps && g.steps->scaling_keys)
        g.steps->scaling_keys(*sd.dict, sd.key, out);  // PhiMoE's mscales (FamilySteps)
    if (const json* v = member(*sd.dict, "short_factor")) out.short_factor = number_list(*v, sd.at("short_factor"));
    if (const json* v = member(*sd.dict, "long_factor")) out.long_factor = number_list(*v, sd.at("long_factor"));
}

/// HunYuan: dynamic NTK with alpha is a static base change.
inline void apply_hunyuan_alpha(const GroupFacts& g, const ScalingDict& sd, HfRopeConfig& out)
{
    if (out.alpha && *out.alpha != 0.0) {
        if (g.family && g.family->has(trait::hunyuan_alpha) && out.rope_type == "dynamic") {
            // modeling_hunyuan_v1_dense.py: base = rope_theta * alpha ** (head_dim / (head_dim - 2)), then the
            // default table over the whole head (dim = head_dim), attention factor 1.
            const double h = static_cast<double>(out.head_dim);
            if (out.head_dim <= 2)
                fail(sd.at("alpha"), "expected a head_dim > 2 (alpha scales the base by alpha^(H / (H - 2)))",
                     std::to_string(out.head_dim));
            const double base = out.rope_theta * std::pow(*out.alpha, h / (h - 2.0));
            if (!(std::isfinite(base) && base > 1.0))
                fail(sd.at("alpha"), "expected rope_theta * alpha^(H / (H - 2)) finite and > 1",
                     posenc::detail::format_value(base));
            out.notes.push_back(
                "HunYuan alpha: base = rope_theta * alpha^(H / (H - 2)) = " + posenc::detail::format_value(base) +
                " with the default table (Hugging Face's init table, used up to max_position_embeddings)");
            out.rope_theta = base;
            out.rope_theta_key = out.rope_theta_key + " * " + sd.at("alpha") + "^(H/(H-2))";
            out.rotary_dim = out.head_dim;
            out.rope_type = "default";
            out.factor.reset();
            out.factor_key.clear();
        } else if (g.family) {
            out.warnings.push_back({sd.at("alpha"), "only HunYuan's dynamic RoPE reads it; " + out.model_type +
                                                        "'s code ignores it, and so does posenc"});
        }
    }
}

}  // namespace posenc::hf::detail
