// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_group_base_json.hpp: the base of one RoPE group (the dict's rope_theta,
// rope_theta, aliases, class defaults, Gemma 3's local base) and its pairing (the family's,
// rope_interleave).
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/hf_group_base_json.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
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

#include "posenc/models/detail/hf_group_facts.hpp"
#include "posenc/models/hf_class_defaults.hpp"

namespace posenc::hf::detail {

/// The top-level key the configuration class reads for the base: GPT-NeoX's rotary_emb_base
/// (trait::neox_key_names), every other known family's rope_theta; a config of no known family:
/// rope_theta, else the older rotary_emb_base. The other key is not read (a warning names it).
inline const char* read_top_level_base(const GroupFacts& g, const ScalingDict& sd, HfRopeConfig& out)
{
    const bool neox = g.family && g.family->has(trait::neox_key_names);
    const char* top_key = neox ? "rotary_emb_base" : "rope_theta";
    if (const auto it = g.config.find(top_key);
        it != g.config.end() && it->is_null() && !(sd.dict && member(*sd.dict, "rope_theta")))
        fail(top_key,
             "expected a finite number > 1 or no key at all (transformers reads null as a value here, "
             "not as absent)",
             "null");
    if (const json* v = member(g.config, "rotary_emb_base"); v && !g.family)
        out.rope_theta = number(*v, "rotary_emb_base"), out.rope_theta_key = "rotary_emb_base";
    if (const json* v = member(g.config, top_key)) out.rope_theta = number(*v, top_key), out.rope_theta_key = top_key;
    if (const char* unread = neox ? "rope_theta" : "rotary_emb_base"; g.family && member(g.config, unread))
        out.warnings.push_back({unread, "model_type \"" + out.model_type +
                                            "\"'s configuration class reads the base from " + top_key + ", not from " +
                                            unread + "; ignored"});
    return top_key;
}

/// A family's own name for the base (LFM2: "theta"), read before rope_theta; refused when the
/// config carries both and they disagree. Null when the family has none or the config lacks it.
inline const json* read_base_alias(const GroupFacts& g, const char* top_key, HfRopeConfig& out)
{
    const std::string alias = g.family ? std::string(g.family->rope_theta_alias) : std::string();
    const json* alias_value = alias.empty() ? nullptr : member(g.config, alias.c_str());
    if (!alias_value) return nullptr;
    const double x = number(*alias_value, alias);
    if (member(g.config, top_key) && x != out.rope_theta)
        fail(alias,
             "expected the value of " + std::string(top_key) + " " + posenc::detail::format_value(out.rope_theta) +
                 " (" + out.model_type + "'s code reads " + alias +
                 " first; the config carries both and they "
                 "disagree)",
             shown(*alias_value));
    out.rope_theta = x, out.rope_theta_key = alias;
    return alias_value;
}

/// The dict's rope_theta. transformers 5 reads the dict's value (setdefault), transformers 4 only
/// the top-level attribute (a v4 rope_scaling dict's rope_theta is not read): a v4 dict that
/// disagrees with the top-level key has no one answer and is refused.
inline void read_dict_base(const GroupFacts& g, const ScalingDict& sd, const char* top_key, HfRopeConfig& out)
{
    const json* v = sd.dict ? member(*sd.dict, "rope_theta") : nullptr;
    if (!v) return;
    const double x = number(*v, sd.at("rope_theta"));
    if (sd.key == "rope_scaling")
        if (const json* top = member(g.config, top_key); top && number(*top, top_key) != x)
            fail(sd.at("rope_theta"),
                 "expected the value of " + std::string(top_key) + " " + shown(*top) +
                     " (transformers 4 reads only the top-level " + top_key +
                     ", transformers 5 the dict's; the config carries both and they "
                     "disagree)",
                 shown(*v));
    out.rope_theta = x, out.rope_theta_key = sd.at("rope_theta");
}

/// Refuses a base that is not a finite number > 1, quoting the value as written ("-0" stays "-0")
/// when one key holds it.
inline void check_base(const GroupFacts& g, const ScalingDict& sd, const HfRopeConfig& out)
{
    if (out.rope_theta > 1.0) return;
    std::string written = posenc::detail::format_value(out.rope_theta);
    if (const json* v = member(g.config, out.rope_theta_key.c_str())) written = shown(*v);
    else if (sd.dict && out.rope_theta_key == sd.at("rope_theta")) written = shown(*member(*sd.dict, "rope_theta"));
    fail(out.rope_theta_key, "expected a finite number > 1", written);
}

/// The base: the dict's rope_theta (v5), the top-level key the family reads (rope_theta; GPT-NeoX:
/// rotary_emb_base), an alias, the class default (hf_class_defaults.hpp), in that order of
/// precedence; a family rule's own base (g.context.base) above all.
inline void read_base(const GroupFacts& g, const ScalingDict& sd, HfRopeConfig& out)
{
    if (!g.gptj_like) {
        const char* top_key = read_top_level_base(g, sd, out);
        const json* alias_value = read_base_alias(g, top_key, out);
        read_dict_base(g, sd, top_key, out);
        const bool theta_given = member(g.config, top_key) || (!g.family && member(g.config, "rotary_emb_base")) ||
                                 alias_value || (sd.dict && member(*sd.dict, "rope_theta"));
        const ClassDefaults* defaults = g.class_defaults;
        if (!theta_given && defaults && defaults->rope_theta > 0.0) {
            out.rope_theta = defaults->rope_theta;
            out.notes.push_back("rope_theta absent: " + out.model_type + "'s class default " +
                                posenc::detail::format_value(defaults->rope_theta) + " (" +
                                std::string(defaults->source) + ")");
        }
        if (g.context.base) out.rope_theta = *g.context.base, out.rope_theta_key = g.context.base_key;
    }
    check_base(g, sd, out);
}

/// The family's pairing; DeepSeek-V3's rope_interleave.
inline void read_pairing(const GroupFacts& g, HfRopeConfig& out)
{
    out.pairing = g.family ? g.family->pairing : Pairing::half_split;
    // rope_interleave: DeepSeek-V3 applies interleaved pairs when true (the default), rotate_half
    // when false. Other families' code does not read it (the model-level reader warns or refuses).
    if (const json* v = member(g.config, "rope_interleave")) {
        if (!v->is_boolean()) fail_json("rope_interleave", "expected true or false", *v);
        if (g.family && g.family->has(trait::reads_rope_interleave))
            out.pairing = v->get<bool>() ? Pairing::interleaved : Pairing::half_split;
    }
    if (g.deepseek)
        out.notes.push_back(
            out.pairing == Pairing::interleaved
                ? "DeepSeek MLA: RoPE acts on the qk_rope_head_dim slice only; Hugging Face de-interleaves "
                  "it (even then odd indices) and rotates half_split, which equals interleaved pairs on "
                  "the checkpoint layout"
                : "DeepSeek MLA: RoPE acts on the qk_rope_head_dim slice only, half_split (rope_interleave "
                  "false)");
}

}  // namespace posenc::hf::detail
