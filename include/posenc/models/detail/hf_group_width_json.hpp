// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_group_width_json.hpp: the widths of one RoPE group: head_dim (its
// aliases, MLA's qk_rope_head_dim, hidden_size / num_attention_heads, class defaults) and
// rotary_dim (partial rotary factor, rotary_pct, GPT-J's rotary_dim, proportional RoPE's fraction).
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/hf_group_width_json.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
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

namespace posenc::hf::detail {

/// DeepSeek MLA: the table is qk_rope_head_dim wide; qk_head_dim for the softmax scale.
inline void read_mla_head_dim(const GroupFacts& g, HfRopeConfig& out)
{
    // The MLA configuration classes' defaults (DeepSeek: qk_rope_head_dim 64, qk_nope_head_dim 128).
    const bool mla_family = g.family && g.family->has(trait::mla);
    out.head_dim_key = "qk_rope_head_dim";
    const int rope_default = mla_family ? g.family->qk_rope_head_dim : 64;
    // The family rule's alias of qk_rope_head_dim (FamilySteps::qk_rope_head_dim_alias: GLM-4.7-Flash's head_dim).
    const char* alias_key = g.steps ? g.steps->qk_rope_head_dim_alias : nullptr;
    const json* alias = alias_key ? member(g.config, alias_key) : nullptr;
    if (const json* v = member(g.config, "qk_rope_head_dim");
        v && alias && !(v->is_number() && alias->is_number() && *v == *alias))
        // Which key of an attribute_map alias wins depends on the order Python sees them.
        fail(alias_key,
             "expected the value of qk_rope_head_dim " + shown(*v) + " (" + out.model_type + "'s " + alias_key +
                 " is an alias of qk_rope_head_dim; the config carries both and they disagree)",
             shown(*alias));
    if (const json* v = member(g.config, "qk_rope_head_dim")) out.head_dim = positive_int(*v, "qk_rope_head_dim");
    else if (alias) out.head_dim = positive_int(*alias, alias_key), out.head_dim_key = alias_key;
    else {
        out.head_dim = rope_default;
        out.notes.push_back("qk_rope_head_dim absent: " + out.model_type + "'s class default " +
                            std::to_string(rope_default));
    }
    int nope = 0;
    if (const json* v = member(g.config, "qk_nope_head_dim")) {
        nope = positive_int(*v, "qk_nope_head_dim");
        if (nope > max_head_dim) fail_json("qk_nope_head_dim", "expected a positive integer <= 65536", *v);
    } else if (mla_family) {
        nope = g.family->qk_nope_head_dim;
        out.notes.push_back("qk_nope_head_dim absent: " + out.model_type + "'s class default " + std::to_string(nope));
    }
    out.qk_head_dim = nope + out.head_dim;  // both <= 65536: no overflow
    if (g.family && g.family->has(trait::mla_table_width_head_dim)) {
        // The rotary table is head_dim wide (LongCat Flash: class default g.default_head_dim; DeepSeek-V3:
        // the class sets head_dim = qk_rope_head_dim) and rotates the qk_rope_head_dim slice;
        // transformers cannot apply a table of another width.
        const int width_default = g.default_head_dim > 0 ? g.default_head_dim : out.head_dim;
        int width = width_default;
        std::string width_shown = "nothing (class default " + std::to_string(width_default) + ")";
        if (const json* v = member(g.config, "head_dim")) width = positive_int(*v, "head_dim"), width_shown = shown(*v);
        if (width != out.head_dim)
            fail("head_dim",
                 "expected qk_rope_head_dim's value " + std::to_string(out.head_dim) + " (" + out.model_type +
                     "'s rotary table is head_dim wide and rotates the qk_rope_head_dim slice of each head; "
                     "with other widths transformers cannot apply it)",
                 width_shown);
    }
}

/// JetMoE: head_dim under another key (kv_channels).
inline void read_aliased_head_dim(const GroupFacts& g, HfRopeConfig& out)
{
    // JetMoE: head_dim is an alias of kv_channels (attribute_map), class default g.default_head_dim.
    const std::string key(g.family->head_dim_key);
    const json* v = member(g.config, key.c_str());
    out.head_dim_key = key;
    if (const json* alias = member(g.config, "head_dim")) {
        // Both set the same attribute; which one wins depends on the order Python sees them.
        if (v && !(alias->is_number() && v->is_number() && *alias == *v))
            fail("head_dim",
                 "expected the value of " + key + " " + shown(*v) + " (" + out.model_type +
                     "'s head_dim is an alias of " + key + "; the config carries both and they disagree)",
                 shown(*alias));
        if (!v) v = alias, out.head_dim_key = "head_dim";
    }
    if (v) out.head_dim = positive_int(*v, out.head_dim_key);
    else {
        out.head_dim = g.default_head_dim;
        out.notes.push_back(key + " absent: " + out.model_type + "'s class default " +
                            std::to_string(g.default_head_dim));
    }
}

/// head_dim, else the class default, else hidden_size // num_attention_heads.
inline void read_head_dim(const GroupFacts& g, HfRopeConfig& out)
{
    if (g.context.head_dim) {
        out.head_dim = *g.context.head_dim;
        out.head_dim_key = g.context.head_dim_key;
        return;
    }
    if (g.deepseek) return read_mla_head_dim(g, out);
    if (g.family && g.steps && g.steps->head_dim)
        return g.steps->head_dim(g.config, *g.family, out);  // Mistral 4's (FamilySteps)
    if (g.family && !g.family->head_dim_key.empty()) return read_aliased_head_dim(g, out);
    // The attention's head is hidden_size // num_attention_heads whatever a head_dim key says (a key
    // that changes the table is refused in read_rotary_dim, one the class overwrites gets a warning).
    const bool head_from_hidden =
        g.family && (g.family->has(trait::head_dim_from_hidden) || g.family->has(trait::rotary_from_hidden_head));
    if (const json* v = member(g.config, "head_dim"); v && !head_from_hidden) {
        out.head_dim = positive_int(*v, "head_dim");
        out.head_dim_key = "head_dim";
    } else if (g.default_head_dim > 0 && !head_from_hidden && !member(g.config, "head_dim")) {
        out.head_dim = g.default_head_dim;
        out.head_dim_key = "head_dim";
        out.notes.push_back("head_dim absent: " + out.model_type + "'s class default " +
                            std::to_string(g.default_head_dim));
    } else {
        const char* hidden_key = member(g.config, "hidden_size") ? "hidden_size" : "n_embd";
        const char* heads_key = member(g.config, "num_attention_heads") ? "num_attention_heads" : "n_head";
        const json* hidden = member(g.config, hidden_key);
        const json* heads = member(g.config, heads_key);
        // A key left out takes the configuration class's default (hf_class_defaults.hpp), as
        // transformers' config object holds it.
        const ClassDefaults* defaults = g.class_defaults;
        auto size = [&](const json* v, const char* key, const char* name, int class_default) {
            if (v) return positive_int(*v, key);
            if (class_default <= 0) fail(name, "expected a positive integer (no head_dim given)", "nothing");
            out.notes.push_back(std::string(name) + " absent: " + out.model_type + "'s class default " +
                                std::to_string(class_default));
            return class_default;
        };
        const int h = size(hidden, hidden_key, "hidden_size", defaults ? defaults->hidden_size : 0);
        const int n = size(heads, heads_key, "num_attention_heads", defaults ? defaults->num_attention_heads : 0);
        out.head_dim = h / n;  // Python floor division of positive ints
        out.head_dim_key = std::string(hidden_key) + " / " + heads_key;
        if (out.head_dim <= 0)
            fail(hidden_key, "expected hidden_size // num_attention_heads >= 1",
                 std::to_string(h) + " // " + std::to_string(n));
        if (const json* v = member(g.config, "head_dim");
            v && g.family->has(trait::head_dim_from_hidden) && !(v->is_number() && v->get<double>() == out.head_dim))
            out.warnings.push_back({"head_dim", "model_type \"" + out.model_type +
                                                    "\"'s configuration class sets head_dim = "
                                                    "hidden_size // num_attention_heads = " +
                                                    std::to_string(out.head_dim) + " over it; ignored"});
    }
}

/// Proportional RoPE: the dict's partial_rotary_factor is the fraction of the whole head's pairs
/// that rotate (the table spans the head: rotary_dim = head_dim); a top-level value must agree.
inline RotaryFraction read_proportional_fraction(const GroupFacts& g, const ScalingDict& sd, HfRopeConfig& out)
{
    out.proportional_fraction = 1.0;
    if (const json* v = member(*sd.dict, "partial_rotary_factor")) {
        const double x = number(*v, sd.at("partial_rotary_factor"));
        if (const json* top = member(g.config, "partial_rotary_factor");
            top && number(*top, "partial_rotary_factor") != x)
            fail(sd.at("partial_rotary_factor"),
                 "expected the top-level partial_rotary_factor " + shown(*top) +
                     " (the config carries both and they disagree)",
                 shown(*v));
        out.proportional_fraction = x;
    }
    return RotaryFraction {};  // the table spans the head
}

/// The top-level factor the configuration class reads: GPT-NeoX's rotary_pct
/// (trait::neox_key_names), every other known family's partial_rotary_factor; a config of no known
/// family: either. The other key is not read (a warning names it). Starts from the class default.
inline RotaryFraction read_top_level_partial_factor(const GroupFacts& g, HfRopeConfig& out)
{
    RotaryFraction f;
    f.value = g.family && g.family->partial_rotary_factor ? *g.family->partial_rotary_factor : 1.0;
    f.key = g.family && g.family->partial_rotary_factor ? "partial_rotary_factor" : "";
    f.shown = g.family && g.family->partial_rotary_factor
                  ? "the class default " + posenc::detail::format_value(*g.family->partial_rotary_factor)
                  : "";
    const bool neox = g.family && g.family->has(trait::neox_key_names);
    for (const char* key : {"rotary_pct", "partial_rotary_factor"}) {
        const json* v = member(g.config, key);
        if (!v) continue;
        if (g.family && neox != (std::string(key) == "rotary_pct")) {
            out.warnings.push_back({key, "model_type \"" + out.model_type +
                                             "\"'s configuration class reads the partial rotary "
                                             "factor from " +
                                             (neox ? "rotary_pct" : "partial_rotary_factor") + ", not from " + key +
                                             "; ignored"});
            continue;
        }
        f.value = number(*v, key), f.key = key, f.shown = std::string(key) + " " + shown(*v);
    }
    return f;
}

/// The dict's partial_rotary_factor over the top-level one, refused where transformers 4 and 5
/// (or the configuration's copy over the dict) would disagree.
inline void read_dict_partial_factor(const GroupFacts& g, const ScalingDict& sd, RotaryFraction& f)
{
    const json* v = sd.dict ? member(*sd.dict, "partial_rotary_factor") : nullptr;
    if (!v) return;
    const bool neox = g.family && g.family->has(trait::neox_key_names);
    const double x = number(*v, sd.at("partial_rotary_factor"));
    // GPT-NeoX: rope_parameters.setdefault("partial_rotary_factor", rotary_pct): the dict's wins in
    // transformers 5, transformers 4 reads rotary_pct only.
    if (neox && sd.key == "rope_scaling" && x != f.value)
        fail(sd.at("partial_rotary_factor"),
             "expected the value of " + (f.shown.empty() ? "rotary_pct" : f.shown) +
                 " (transformers 4 reads only rotary_pct, transformers 5 the dict's; the two disagree)",
             shown(*v));
    // standardize_rope_params (modeling_rope_utils.py) copies the configuration's own
    // partial_rotary_factor attribute (the top-level key, else the class default) over the
    // dict's value; transformers 4 does not read the dict's at all.
    if (!neox && !f.shown.empty() && x != f.value)
        fail(sd.at("partial_rotary_factor"),
             "expected the value of " + f.shown +
                 " (transformers copies the configuration's partial_rotary_factor "
                 "over the RoPE dict's; the two disagree)",
             shown(*v));
    if (!neox && f.shown.empty() && sd.key == "rope_scaling" && x != 1.0)
        fail(sd.at("partial_rotary_factor"),
             "expected 1 or a top-level partial_rotary_factor (transformers 4 does not read it from rope_scaling "
             "and rotates with 1, transformers 5 reads the dict's)",
             shown(*v));
    f.value = x, f.key = sd.at("partial_rotary_factor");
}

/// The factor's range, the families that cannot apply a factor below 1, and the family rule's own
/// check (families/family_steps.hpp FamilySteps::check_partial_factor).
inline void check_partial_factor(const GroupFacts& g, const RotaryFraction& f, const HfRopeConfig& out)
{
    if (!(f.value > 0.0 && f.value <= 1.0))
        fail(f.key, "expected a number in (0, 1]", posenc::detail::format_value(f.value));
    if (g.family && !g.family->has(trait::partial_rotary) && !g.gptj_like && f.value != 1.0)
        // Llama-style attention multiplies the whole head by cos / sin: transformers 5's default table
        // ignores the factor (compute_default_rope_parameters uses head_dim), its scaled types and
        // transformers 4 build a table narrower than the head, which the attention cannot apply.
        fail(f.key,
             "expected 1: model_type \"" + out.model_type + "\"'s attention rotates the whole head (" +
                 std::string(g.family->pairing_source) +
                 " does not split off a rotary part), so transformers either "
                 "ignores a partial rotary factor or fails on it",
             posenc::detail::format_value(f.value));
    if (g.family && g.steps && g.steps->check_partial_factor)
        g.steps->check_partial_factor(*g.family, f.key, f.value, out.model_type);
}

/// The partial rotary factor: partial_rotary_factor (GPT-NeoX: rotary_pct), the dict's, the class default.
inline RotaryFraction read_partial_rotary_factor(const GroupFacts& g, const ScalingDict& sd, HfRopeConfig& out)
{
    if (is_proportional(g, sd)) return read_proportional_fraction(g, sd, out);
    if (out.mla_rope_head_dim > 0) {
        // mistral4/configuration_mistral4.py: rope_parameters.setdefault("partial_rotary_factor",
        // qk_rope_head_dim / head_dim).
        RotaryFraction f;
        f.value = static_cast<double>(out.mla_rope_head_dim) / static_cast<double>(out.head_dim);
        f.key = "qk_rope_head_dim / head_dim";
        if (const json* v = sd.dict ? member(*sd.dict, "partial_rotary_factor") : nullptr)
            f.value = number(*v, sd.at("partial_rotary_factor")), f.key = sd.at("partial_rotary_factor");
        return f;
    }
    RotaryFraction f = read_top_level_partial_factor(g, out);
    read_dict_partial_factor(g, sd, f);
    check_partial_factor(g, f, out);
    return f;
}

/// A top-level rotary_dim outside GPT-J / CodeGen: transformers does not read it (the width is
/// int(head_dim * partial_rotary_factor)). Where it disagrees with that width, a config that gives
/// a partial_rotary_factor keeps it (with a warning: MiniMax-M2 ships both); one that gives none is
/// refused, since the checkpoint's own code may rotate rotary_dim dims where transformers rotates more.
inline void check_unread_rotary_dim(const GroupFacts& g, const ScalingDict& sd, const RotaryFraction& f,
                                    HfRopeConfig& out)
{
    const json* v = member(g.config, "rotary_dim");
    if (!v) return;
    const int given = positive_int(*v, "rotary_dim");
    if (given == out.rotary_dim) return;
    const bool explicit_factor = member(g.config, "partial_rotary_factor") || member(g.config, "rotary_pct") ||
                                 (sd.dict && member(*sd.dict, "partial_rotary_factor"));
    if (explicit_factor) {
        out.warnings.push_back({"rotary_dim", "transformers does not read it for model_type \"" + out.model_type +
                                                  "\": " + f.key + " gives rotary_dim " +
                                                  std::to_string(out.rotary_dim) + ", not " + std::to_string(given) +
                                                  "; ignored"});
        return;
    }
    fail("rotary_dim",
         "expected int(head_dim * partial_rotary_factor) = " + std::to_string(out.rotary_dim) + ": model_type \"" +
             out.model_type + "\"'s code does not read rotary_dim and rotates " + std::to_string(out.rotary_dim) +
             " dims of each head; give partial_rotary_factor " + "(rotary_dim / head_dim) to say the width",
         shown(*v));
}

/// rotary_dim = int(head_dim * partial_rotary_factor); GPT-J / CodeGen: rotary_dim (class default 64).
inline void read_rotary_dim(const GroupFacts& g, const ScalingDict& sd, const RotaryFraction& f, HfRopeConfig& out)
{
    if (g.gptj_like && member(g.config, "rotary_dim")) {
        out.rotary_dim = positive_int(*member(g.config, "rotary_dim"), "rotary_dim");
        out.rotary_dim_key = "rotary_dim";
    } else if (g.gptj_like) {
        // gptj/configuration_gptj.py, codegen/configuration_codegen.py: rotary_dim defaults to 64 (the
        // first 64 dims of each head rotate), not to the whole head.
        out.rotary_dim = 64;
        out.rotary_dim_key = "rotary_dim";
        out.notes.push_back("rotary_dim absent: " + out.model_type + "'s class default 64");
    } else {
        out.rotary_dim = static_cast<int>(static_cast<double>(out.head_dim) * f.value);  // HF: int(H * prf)
        if (!f.key.empty()) out.rotary_dim_key = f.key;
        check_unread_rotary_dim(g, sd, f, out);
    }
    if (const json* v = member(g.config, "head_dim"); v && g.family && g.family->has(trait::rotary_from_hidden_head)) {
        // stablelm, persimmon, glm4v modeling files: the table is int(head_dim * factor) wide from the
        // key, while the attention rotates int((hidden_size // num_attention_heads) * factor) dims.
        const int key_width = static_cast<int>(static_cast<double>(positive_int(*v, "head_dim")) * f.value);
        if (key_width != out.rotary_dim)
            fail("head_dim",
                 "expected a head_dim whose rotary part int(head_dim * partial_rotary_factor) is the "
                 "attention's " +
                     std::to_string(out.rotary_dim) + " (" + out.model_type +
                     "'s attention "
                     "head is hidden_size // num_attention_heads = " +
                     std::to_string(out.head_dim) + " and the table built from head_dim would be " +
                     std::to_string(key_width) + " wide; transformers cannot apply it)",
                 shown(*v));
    }
    if (out.rotary_dim <= 0 || out.rotary_dim % 2 != 0 || out.rotary_dim > out.head_dim)
        fail(out.rotary_dim_key,
             "expected a rotary_dim that is even, > 0 and <= head_dim " + std::to_string(out.head_dim),
             std::to_string(out.rotary_dim));
    if (g.steps && g.steps->rotary_slice) g.steps->rotary_slice(out);  // the family's own slice (FamilySteps)
    if (out.mla_rope_head_dim > 0) {
        // The table (head_dim * partial_rotary_factor wide) rotates the last qk_rope_head_dim coordinates.
        if (out.rotary_dim != out.mla_rope_head_dim)
            fail(out.rotary_dim_key,
                 "expected int(head_dim * partial_rotary_factor) = qk_rope_head_dim " +
                     std::to_string(out.mla_rope_head_dim) + " (" + out.model_type +
                     " applies the table to the last qk_rope_head_dim coordinates of each head; "
                     "with another width transformers cannot apply it)",
                 std::to_string(out.rotary_dim));
        out.rotary_offset = out.head_dim - out.rotary_dim;
    }
}

}  // namespace posenc::hf::detail
