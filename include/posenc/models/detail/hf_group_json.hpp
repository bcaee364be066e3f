// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_group_json.hpp: one RoPE group of a Hugging Face config.json, as plain
// values (HfRopeConfig). Included by hf_config_json.hpp, which reads the whole model (nested
// text_config, layer types, NoPE layers, per-layer-type rope_parameters) and calls the resolver
// here once per group.
//
// Rules (transformers src/transformers/modeling_rope_utils.py and the model files named in
// hf_families.hpp):
//   head_dim     head_dim, else the family's class default, else hidden_size // num_attention_heads
//                (DeepSeek MLA: qk_rope_head_dim)
//   rotary_dim   int(head_dim * partial_rotary_factor) (rotary_pct for GPT-NeoX; a dict's v5
//                partial_rotary_factor must agree with the top-level value or class default, which
//                transformers copies over it; other than 1 only for families whose attention rotates
//                a part of the head; GPT-J / CodeGen: rotary_dim, class default 64)
//   base         the dict's rope_theta (v5), else rope_theta, else rotary_emb_base, else the
//                family's class default, else 10000
//   scaling      rope_parameters (v5) or rope_scaling (v4): rope_type, legacy "type", Phi-3's
//                "su" / "yarn" (= longrope), the M-RoPE families' "mrope" (= default); types by exact
//                name; the required keys of each type; an explicit null where transformers reads it
//                as a value (rope_type, truncate, rope_theta, original_max_position_embeddings) refused
//   L0           yarn / llama3 / longrope: a single dict takes the top-level
//                original_max_position_embeddings (or Phi-3's class default 4096) over its own; a
//                per-layer-type entry its own, else max_position_embeddings (standardize_rope_params)
//
// Errors: posenc::error with the key path, e.g.
//     rope_scaling.factor: expected a number >= 1, got "four"
// Warnings that Hugging Face only logs (unknown keys, integer factors, factor/length mismatch)
// are collected in HfRopeConfig::warnings instead.
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/models/detail/hf_json_values.hpp"
#include "posenc/models/hf_families.hpp"
#include "posenc/spec.hpp"

namespace posenc::hf {

/// One warning Hugging Face would log while loading the config.
struct ConfigWarning {
    std::string key;      ///< key path, e.g. "rope_scaling.factor"
    std::string message;  ///< what Hugging Face would say
};

namespace detail_json {

/// The RoPE-relevant content of a config.json, resolved as Hugging Face resolves it.
struct HfRopeConfig {
    std::string name_or_path;    ///< "_name_or_path" when present, else ""
    std::string model_type;      ///< "" when absent
    int head_dim = 0;            ///< width of the tensor RoPE is applied to
    int rotary_dim = 0;          ///< int(head_dim * partial_rotary_factor), or GPT-J's rotary_dim
    double rope_theta = 10000.0;
    Pairing pairing = Pairing::half_split;
    std::int64_t max_position_embeddings = 0;  ///< 0 when absent

    /// "default", "linear", "dynamic", "yarn", "longrope" or "llama3" (legacy "type" and
    /// Phi-3's "su" already mapped).
    std::string rope_type = "default";
    std::string scaling_key;  ///< "rope_scaling", "rope_parameters" or "" (no scaling dict)
    std::optional<double> factor;
    std::optional<std::int64_t> original_max_position_embeddings;  ///< resolved L0 (transformers v5 priority)
    std::optional<double> attention_factor, beta_fast, beta_slow, mscale, mscale_all_dim;
    std::optional<double> low_freq_factor, high_freq_factor;
    std::optional<bool> truncate;
    std::vector<double> short_factor, long_factor;
    /// M-RoPE: pairs per position axis (temporal, height, width), from the dict's mrope_section.
    std::vector<int> mrope_section;
    bool mrope_interleaved = false;  ///< the dict's mrope_interleaved (Qwen3-VL)
    bool mrope_interleaved_given = false;  ///< whether the dict holds mrope_interleaved at all
    std::optional<double> alpha;     ///< HunYuan's dynamic-NTK alpha, from the dict
    /// Proportional RoPE (rope_type "proportional"): the dict's partial_rotary_factor, the fraction
    /// of the whole head's pairs that rotate (rotary_dim stays head_dim).
    std::optional<double> proportional_fraction;
    /// PhiMoE's LongRoPE magnitudes (the dict's short_mscale and long_mscale).
    std::optional<double> short_mscale, long_mscale;
    /// Mistral 4's MLA: qk_rope_head_dim, the rotated part at the end of the head (0 otherwise).
    int mla_rope_head_dim = 0;
    /// First rotated coordinate of the head (Mistral 4: head_dim - rotary_dim; 0: a prefix).
    int rotary_offset = 0;
    bool inverse_rope_on_output = false;  ///< the attention output's slice is rotated back (DeepSeek-V4)

    /// DeepSeek MLA: qk_nope_head_dim + qk_rope_head_dim (the softmax-scale width); 0 otherwise.
    int qk_head_dim = 0;

    /// Where a resolved value came from, as a key path (or an expression of key paths), so that a
    /// later stage (hf_config.hpp) can name the key when the library refuses the value.
    std::string head_dim_key = "head_dim";                ///< "head_dim", "qk_rope_head_dim", "hidden_size / num_attention_heads", ...
    std::string rotary_dim_key = "head_dim";              ///< "partial_rotary_factor", "rotary_pct", "rotary_dim", "<dict>.partial_rotary_factor", or head_dim's key
    std::string rope_theta_key = "rope_theta";            ///< "rope_theta", "rotary_emb_base" or "<dict>.rope_theta"
    std::string factor_key;                               ///< "<dict>.factor" or "max_position_embeddings / original_max_position_embeddings"
    std::string original_max_position_embeddings_key;     ///< "original_max_position_embeddings", "<dict>.original_max_position_embeddings" or "max_position_embeddings"

    std::vector<ConfigWarning> warnings;
    std::vector<std::string> notes;  ///< facts worth telling the user (e.g. DeepSeek's de-interleave)
};

/// What the model-level reader (hf_config_json.hpp) tells the one-group resolver beyond the
/// config object itself.
struct GroupContext {
    /// The scaling dict to use instead of the config's own (one entry of a per-layer-type
    /// rope_parameters), and the key path that names it.
    const nlohmann::json* dict = nullptr;
    std::string dict_key;
    /// Read the group without any scaling dict (Gemma 3's sliding-window layers).
    bool no_scaling = false;
    /// A base that replaces rope_theta (Gemma 3's rope_local_base_freq), and its key.
    std::optional<double> base;
    std::string base_key;
    /// The model_type and name when the object is a nested text_config that lacks them.
    std::string model_type, name_or_path;
    /// Compare a rope_scaling that sits beside rope_parameters with this group's dict (the
    /// full-attention group's; other layer types' dicts are not what rope_scaling describes).
    bool check_rope_scaling = true;
    /// `dict` is one entry of a per-layer-type rope_parameters (transformers 5 standardizes those
    /// apart from a single dict: no top-level original_max_position_embeddings, truncate read from the
    /// top level of rope_parameters).
    bool per_layer_type = false;
    /// A head dim that replaces the config's for this group (Gemma 4's full_attention layers:
    /// global_head_dim), and the key it comes from.
    std::optional<int> head_dim;
    std::string head_dim_key;
};

/// Whether two scaling dicts say the same: every key of rope_scaling (legacy "type" read as
/// "rope_type") is in rope_parameters with an equal value, and rope_parameters adds only
/// rope_theta and partial_rotary_factor (which v5 moves into it).
inline bool same_scaling(const json& rope_scaling, const json& rope_parameters)
{
    auto equal = [](const json& a, const json& b) {
        if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
        return a == b;
    };
    for (auto it = rope_scaling.begin(); it != rope_scaling.end(); ++it) {
        const std::string key = it.key() == "type" && !rope_scaling.contains("rope_type") ? "rope_type" : it.key();
        if (it->is_null()) continue;
        const json* other = member(rope_parameters, key.c_str());
        if (!other && key == "rope_type") other = member(rope_parameters, "type");
        if (!other) return false;
        if (key == "rope_type" && it->is_string() && other->is_string()) {
            // Legacy spellings Hugging Face maps on load.
            auto canonical = [](std::string t) { return t == "mrope" ? std::string("default") : t == "su" ? std::string("longrope") : t; };
            if (canonical(it->get<std::string>()) != canonical(other->get<std::string>())) return false;
            continue;
        }
        if (!equal(*it, *other)) return false;
    }
    for (auto it = rope_parameters.begin(); it != rope_parameters.end(); ++it) {
        const std::string& key = it.key();
        if (key == "rope_theta" || key == "partial_rotary_factor" || it->is_null()) continue;
        if (key == "rope_type" || key == "type") {
            if (!member(rope_scaling, "rope_type") && !member(rope_scaling, "type") && *it != json("default")) return false;
            continue;
        }
        if (!member(rope_scaling, key.c_str())) return false;
    }
    return true;
}

/// A key the object holds with the value null (transformers reads some keys with dict.get, where an
/// explicit null is a value, not an absence).
inline bool explicit_null(const json& object, const char* key)
{
    const auto it = object.find(key);
    return it != object.end() && it->is_null();
}

/// Reads one RoPE group out of a config object: one member function per section of the config,
/// called in the order of read().
class GroupReader
{
public:
    GroupReader(const json& config, const GroupContext& context) : config(config), context(context) {}

    HfRopeConfig read()
    {
        if (!config.is_object()) fail_json("config", "expected a JSON object", config);
        read_identity();
        read_max_position_embeddings();
        read_head_dim();
        if (out.head_dim > max_head_dim)
            fail(out.head_dim_key, "expected a head of at most " + std::to_string(max_head_dim) + " dimensions",
                 std::to_string(out.head_dim));
        out.rotary_dim_key = out.head_dim_key;
        choose_scaling_dict();
        read_partial_rotary_factor();
        read_rotary_dim();
        read_base();
        read_pairing();
        read_top_level_original_length();
        if (!scaling) return out;
        read_rope_type();
        warn_unknown_scaling_keys();
        read_scaling_parameters();
        resolve_original_length();
        check_required_keys();
        apply_hunyuan_alpha();
        return out;
    }

private:
    const json& config;
    const GroupContext& context;
    HfRopeConfig out;
    const FamilyRules* family = nullptr;
    bool gptj_like = false;         ///< GPT-J / CodeGen: rotary_dim, not partial_rotary_factor
    bool deepseek = false;          ///< MLA: RoPE on the qk_rope_head_dim slice
    const json* scaling = nullptr;  ///< the scaling dict in effect (nullptr: none)
    std::string sk;                 ///< its key path
    double prf = 1.0;               ///< the partial rotary factor in effect, its key and how it was given
    std::string prf_key, prf_shown;
    std::optional<std::int64_t> top_level_l0;  ///< top-level original_max_position_embeddings (or class default)
    bool top_level_l0_written = false;
    bool top_level_l0_ignored = false;

    std::string skey(const char* k) const { return sk + "." + k; }


    /// model_type and _name_or_path (else the context's), and the family row.
    void read_identity()
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
        family = find_family(out.model_type);
        gptj_like = out.model_type == "gptj" || out.model_type == "codegen";
        deepseek = (member(config, "qk_rope_head_dim") != nullptr || (family && family->has(trait::mla))) &&
                   !(family && (family->has(trait::mla_rope_suffix) || family->has(trait::rope_suffix_inverse_output)));
    }

    /// max_position_embeddings (GPT-J: n_positions), else the class default.
    void read_max_position_embeddings()
    {
        if (const json* v = member(config, "max_position_embeddings"))
            out.max_position_embeddings = positive_int(*v, "max_position_embeddings");
        else if (const json* n = member(config, "n_positions"))
            out.max_position_embeddings = positive_int(*n, "n_positions");
        else if (family && family->max_position_embeddings > 0) {
            out.max_position_embeddings = family->max_position_embeddings;
            out.notes.push_back("max_position_embeddings absent: " + out.model_type + "'s class default " +
                                std::to_string(family->max_position_embeddings));
        }
    }

    /// DeepSeek MLA: the table is qk_rope_head_dim wide; qk_head_dim for the softmax scale.
    void read_mla_head_dim()
    {
        // The MLA configuration classes' defaults (DeepSeek: qk_rope_head_dim 64, qk_nope_head_dim 128).
        const bool mla_family = family && family->has(trait::mla);
        out.head_dim_key = "qk_rope_head_dim";
        const int rope_default = mla_family ? family->qk_rope_head_dim : 64;
        if (const json* v = member(config, "qk_rope_head_dim")) out.head_dim = positive_int(*v, "qk_rope_head_dim");
        else {
            out.head_dim = rope_default;
            out.notes.push_back("qk_rope_head_dim absent: " + out.model_type + "'s class default " +
                                std::to_string(rope_default));
        }
        int nope = 0;
        if (const json* v = member(config, "qk_nope_head_dim")) {
            nope = positive_int(*v, "qk_nope_head_dim");
            if (nope > max_head_dim) fail_json("qk_nope_head_dim", "expected a positive integer <= 65536", *v);
        } else if (mla_family) {
            nope = family->qk_nope_head_dim;
            out.notes.push_back("qk_nope_head_dim absent: " + out.model_type + "'s class default " + std::to_string(nope));
        }
        out.qk_head_dim = nope + out.head_dim;  // both <= 65536: no overflow
        if (family && family->has(trait::mla_table_width_head_dim)) {
            // LongCat Flash: the rotary table is head_dim wide (class default family->head_dim) and
            // rotates the qk_rope_head_dim slice; transformers cannot apply a table of another width.
            int width = family->head_dim;
            std::string width_shown = "nothing (class default " + std::to_string(family->head_dim) + ")";
            if (const json* v = member(config, "head_dim")) width = positive_int(*v, "head_dim"), width_shown = shown(*v);
            if (width != out.head_dim)
                fail("head_dim", "expected qk_rope_head_dim's value " + std::to_string(out.head_dim) + " (" + out.model_type +
                                     "'s rotary table is head_dim wide and rotates the qk_rope_head_dim slice of each head; "
                                     "with other widths transformers cannot apply it)",
                     width_shown);
        }
    }

    /// Mistral 4: the query head is qk_nope_head_dim + qk_rope_head_dim (class defaults 64 + 64); the
    /// rope part is its last qk_rope_head_dim coordinates (the softmax width is the same head).
    void read_mla_suffix_head_dim()
    {
        int rope = family->qk_rope_head_dim, nope = family->qk_nope_head_dim;
        if (const json* v = member(config, "qk_rope_head_dim")) rope = positive_int(*v, "qk_rope_head_dim");
        if (const json* v = member(config, "qk_nope_head_dim")) nope = positive_int(*v, "qk_nope_head_dim");
        if (rope > max_head_dim || nope > max_head_dim)
            fail("qk_nope_head_dim", "expected qk_nope_head_dim and qk_rope_head_dim <= 65536",
                 std::to_string(nope) + " + " + std::to_string(rope));
        out.head_dim = nope + rope;
        out.head_dim_key = "qk_nope_head_dim + qk_rope_head_dim";
        out.qk_head_dim = out.head_dim;
        out.mla_rope_head_dim = rope;
    }

    /// JetMoE: head_dim under another key (kv_channels).
    void read_aliased_head_dim()
    {
        // JetMoE: head_dim is an alias of kv_channels (attribute_map), class default family->head_dim.
        const std::string key(family->head_dim_key);
        const json* v = member(config, key.c_str());
        out.head_dim_key = key;
        if (const json* alias = member(config, "head_dim")) {
            // Both set the same attribute; which one wins depends on the order Python sees them.
            if (v && !(alias->is_number() && v->is_number() && *alias == *v))
                fail("head_dim", "expected the value of " + key + " " + shown(*v) + " (" + out.model_type +
                                     "'s head_dim is an alias of " + key + "; the config carries both and they disagree)",
                     shown(*alias));
            if (!v) v = alias, out.head_dim_key = "head_dim";
        }
        if (v) out.head_dim = positive_int(*v, out.head_dim_key);
        else {
            out.head_dim = family->head_dim;
            out.notes.push_back(key + " absent: " + out.model_type + "'s class default " + std::to_string(family->head_dim));
        }
    }

    /// head_dim, else the class default, else hidden_size // num_attention_heads.
    void read_head_dim()
    {
        if (context.head_dim) {
            out.head_dim = *context.head_dim;
            out.head_dim_key = context.head_dim_key;
            return;
        }
        if (deepseek) return read_mla_head_dim();
        if (family && family->has(trait::mla_rope_suffix)) return read_mla_suffix_head_dim();
        if (family && !family->head_dim_key.empty()) return read_aliased_head_dim();
        if (const json* v = member(config, "head_dim"); v && !(family && family->has(trait::head_dim_from_hidden))) {
            out.head_dim = positive_int(*v, "head_dim");
            out.head_dim_key = "head_dim";
        } else if (family && family->head_dim > 0 && !family->has(trait::head_dim_from_hidden) && !member(config, "head_dim")) {
            out.head_dim = family->head_dim;
            out.head_dim_key = "head_dim";
            out.notes.push_back("head_dim absent: " + out.model_type + "'s class default " + std::to_string(family->head_dim));
        } else {
            const char* hidden_key = member(config, "hidden_size") ? "hidden_size" : "n_embd";
            const char* heads_key = member(config, "num_attention_heads") ? "num_attention_heads" : "n_head";
            const json* hidden = member(config, hidden_key);
            const json* heads = member(config, heads_key);
            if (!hidden) fail("hidden_size", "expected a positive integer (no head_dim given)", "nothing");
            if (!heads) fail("num_attention_heads", "expected a positive integer (no head_dim given)", "nothing");
            const int h = positive_int(*hidden, hidden_key);
            const int n = positive_int(*heads, heads_key);
            out.head_dim = h / n;  // Python floor division of positive ints
            out.head_dim_key = std::string(hidden_key) + " / " + heads_key;
            if (out.head_dim <= 0)
                fail(hidden_key, "expected hidden_size // num_attention_heads >= 1", std::to_string(h) + " // " + std::to_string(n));
        }
    }

    /// The scaling dict: v5 rope_parameters, else rope_scaling (or the context's entry).
    void choose_scaling_dict()
    {
        scaling = nullptr;
        for (const char* key : {"rope_parameters", "rope_scaling"}) {
            if (const json* v = member(config, key)) {
                if (!v->is_object()) fail_json(key, "expected an object or null", *v);
                if (!scaling) {
                    scaling = v;
                    out.scaling_key = key;
                }
            }
        }
        if (const json* both = member(config, "rope_scaling");
            both && scaling && out.scaling_key == "rope_parameters" && context.check_rope_scaling) {
            // v5 moved rope_scaling into rope_parameters; a config carrying both must say one thing.
            const json* compared = scaling;
            std::string compared_key = "rope_parameters";
            if (context.dict) compared = context.dict, compared_key = context.dict_key;
            if (!same_scaling(*both, *compared))
                fail("rope_scaling", "expected the same RoPE parameters as " + compared_key +
                                         " (the config carries both and they disagree; Hugging Face v5 would use " +
                                         compared_key + ")",
                     shown(*both));
        }
        if (context.dict) {
            scaling = context.dict;
            out.scaling_key = context.dict_key;
        }
        if (context.no_scaling) {
            scaling = nullptr;
            out.scaling_key.clear();
        }
        sk = out.scaling_key;
    }

    /// Whether the scaling dict asks for proportional RoPE, for a family whose code has it.
    bool is_proportional() const
    {
        const json* type = scaling ? member(*scaling, "rope_type") : nullptr;
        return type && *type == "proportional" && family && family->has(trait::proportional_full_attention);
    }

    /// Proportional RoPE: the dict's partial_rotary_factor is the fraction of the whole head's pairs
    /// that rotate (the table spans the head: rotary_dim = head_dim); a top-level value must agree.
    void read_proportional_fraction()
    {
        prf = 1.0;
        out.proportional_fraction = 1.0;
        if (const json* v = member(*scaling, "partial_rotary_factor")) {
            const double x = number(*v, skey("partial_rotary_factor"));
            if (const json* top = member(config, "partial_rotary_factor"); top && number(*top, "partial_rotary_factor") != x)
                fail(skey("partial_rotary_factor"), "expected the top-level partial_rotary_factor " + shown(*top) +
                                                        " (the config carries both and they disagree)",
                     shown(*v));
            out.proportional_fraction = x;
        }
    }

    /// The partial rotary factor: rotary_pct, partial_rotary_factor, the dict's, the class default.
    void read_partial_rotary_factor()
    {
        if (is_proportional()) return read_proportional_fraction();
        if (out.mla_rope_head_dim > 0) {
            // mistral4/configuration_mistral4.py: rope_parameters.setdefault("partial_rotary_factor",
            // qk_rope_head_dim / head_dim).
            prf = static_cast<double>(out.mla_rope_head_dim) / static_cast<double>(out.head_dim);
            prf_key = "qk_rope_head_dim / head_dim";
            if (const json* v = scaling ? member(*scaling, "partial_rotary_factor") : nullptr)
                prf = number(*v, skey("partial_rotary_factor")), prf_key = skey("partial_rotary_factor");
            return;
        }
        prf = family && family->partial_rotary_factor ? *family->partial_rotary_factor : 1.0;
        prf_key = family && family->partial_rotary_factor ? "partial_rotary_factor" : "";
        prf_shown = family && family->partial_rotary_factor
                                    ? "the class default " + detail::format_value(*family->partial_rotary_factor)
                                    : "";
        if (const json* v = member(config, "rotary_pct"))
            prf = number(*v, "rotary_pct"), prf_key = "rotary_pct", prf_shown = "rotary_pct " + shown(*v);
        if (const json* v = member(config, "partial_rotary_factor"))
            prf = number(*v, "partial_rotary_factor"), prf_key = "partial_rotary_factor",
            prf_shown = "partial_rotary_factor " + shown(*v);
        if (scaling)
            if (const json* v = member(*scaling, "partial_rotary_factor")) {
                const double x = number(*v, skey("partial_rotary_factor"));
                // standardize_rope_params (modeling_rope_utils.py) copies the configuration's own
                // partial_rotary_factor attribute (the top-level key, else the class default) over the
                // dict's value; transformers 4 does not read the dict's at all.
                if (!prf_shown.empty() && x != prf)
                    fail(skey("partial_rotary_factor"),
                         "expected the value of " + prf_shown + " (transformers copies the configuration's partial_rotary_factor "
                         "over the RoPE dict's; the two disagree)",
                         shown(*v));
                if (prf_shown.empty() && sk == "rope_scaling" && x != 1.0)
                    fail(skey("partial_rotary_factor"),
                         "expected 1 or a top-level partial_rotary_factor (transformers 4 does not read it from rope_scaling "
                         "and rotates with 1, transformers 5 reads the dict's)",
                         shown(*v));
                prf = x, prf_key = skey("partial_rotary_factor");
            }
        if (!(prf > 0.0 && prf <= 1.0)) fail(prf_key, "expected a number in (0, 1]", detail::format_value(prf));
        if (family && !family->has(trait::partial_rotary) && !gptj_like && prf != 1.0)
            // Llama-style attention multiplies the whole head by cos / sin: transformers 5's default table
            // ignores the factor (compute_default_rope_parameters uses head_dim), its scaled types and
            // transformers 4 build a table narrower than the head, which the attention cannot apply.
            fail(prf_key, "expected 1: model_type \"" + out.model_type + "\"'s attention rotates the whole head (" +
                              std::string(family->pairing_source) + " does not split off a rotary part), so transformers either "
                              "ignores a partial rotary factor or fails on it",
                 detail::format_value(prf));
        if (family && family->has(trait::forced_partial_rotary_factor) && prf != *family->partial_rotary_factor)
            // Bamba's configuration class overwrites the value; transformers versions differ on whether
            // a partial_rotary_factor inside rope_parameters would survive that.
            fail(prf_key, "expected " + detail::format_value(*family->partial_rotary_factor) + " (" + out.model_type +
                              "'s code sets partial_rotary_factor " + detail::format_value(*family->partial_rotary_factor) +
                              " whatever the config says)",
                 detail::format_value(prf));

    }

    /// rotary_dim = int(head_dim * partial_rotary_factor); GPT-J / CodeGen: rotary_dim (class default 64).
    void read_rotary_dim()
    {
        if (gptj_like && member(config, "rotary_dim")) {
            out.rotary_dim = positive_int(*member(config, "rotary_dim"), "rotary_dim");
            out.rotary_dim_key = "rotary_dim";
        } else if (gptj_like) {
            // gptj/configuration_gptj.py, codegen/configuration_codegen.py: rotary_dim defaults to 64 (the
            // first 64 dims of each head rotate), not to the whole head.
            out.rotary_dim = 64;
            out.rotary_dim_key = "rotary_dim";
            out.notes.push_back("rotary_dim absent: " + out.model_type + "'s class default 64");
        } else {
            out.rotary_dim = static_cast<int>(static_cast<double>(out.head_dim) * prf);  // HF: int(H * prf)
            if (!prf_key.empty()) out.rotary_dim_key = prf_key;
        }
        if (out.rotary_dim <= 0 || out.rotary_dim % 2 != 0 || out.rotary_dim > out.head_dim)
            fail(out.rotary_dim_key,
                 "expected a rotary_dim that is even, > 0 and <= head_dim " + std::to_string(out.head_dim),
                 std::to_string(out.rotary_dim));
        if (family && family->has(trait::rope_suffix_inverse_output)) {
            out.rotary_offset = out.head_dim - out.rotary_dim;
            out.inverse_rope_on_output = true;
        }
        if (out.mla_rope_head_dim > 0) {
            // The table (head_dim * partial_rotary_factor wide) rotates the last qk_rope_head_dim coordinates.
            if (out.rotary_dim != out.mla_rope_head_dim)
                fail(out.rotary_dim_key, "expected int(head_dim * partial_rotary_factor) = qk_rope_head_dim " +
                                             std::to_string(out.mla_rope_head_dim) + " (" + out.model_type +
                                             " applies the table to the last qk_rope_head_dim coordinates of each head; "
                                             "with another width transformers cannot apply it)",
                     std::to_string(out.rotary_dim));
            out.rotary_offset = out.head_dim - out.rotary_dim;
        }
    }

    /// The base: the dict's rope_theta (v5), rope_theta, rotary_emb_base, an alias, the class default.
    void read_base()
    {
        if (!gptj_like) {
            if (const auto it = config.find("rope_theta");
                it != config.end() && it->is_null() && !(scaling && member(*scaling, "rope_theta")))
                fail("rope_theta", "expected a finite number > 1 or no key at all (transformers reads null as a value here, "
                                   "not as absent)",
                     "null");
            if (const json* v = member(config, "rotary_emb_base"))
                out.rope_theta = number(*v, "rotary_emb_base"), out.rope_theta_key = "rotary_emb_base";
            if (const json* v = member(config, "rope_theta")) out.rope_theta = number(*v, "rope_theta"), out.rope_theta_key = "rope_theta";
            // A family's own name for the base (LFM2: "theta"), read before rope_theta.
            const std::string alias = family ? std::string(family->rope_theta_alias) : std::string();
            const json* alias_value = alias.empty() ? nullptr : member(config, alias.c_str());
            if (alias_value) {
                const double x = number(*alias_value, alias);
                if (member(config, "rope_theta") && x != out.rope_theta)
                    fail(alias, "expected the value of rope_theta " + detail::format_value(out.rope_theta) + " (" +
                                    out.model_type + "'s code reads " + alias + " first; the config carries both and they "
                                    "disagree)",
                         shown(*alias_value));
                out.rope_theta = x, out.rope_theta_key = alias;
            }
            if (scaling)
                if (const json* v = member(*scaling, "rope_theta")) {
                    const double x = number(*v, skey("rope_theta"));
                    // transformers 5 reads the dict's value (setdefault), transformers 4 only the top-level
                    // attribute (a v4 rope_scaling dict's rope_theta is not read): a v4 dict that disagrees
                    // with rope_theta has no one answer.
                    if (sk == "rope_scaling")
                        if (const json* top = member(config, "rope_theta"); top && number(*top, "rope_theta") != x)
                            fail(skey("rope_theta"), "expected the value of rope_theta " + shown(*top) +
                                                         " (transformers 4 reads only the top-level rope_theta, transformers 5 "
                                                         "the dict's; the config carries both and they disagree)",
                                 shown(*v));
                    out.rope_theta = x, out.rope_theta_key = skey("rope_theta");
                }
            const bool theta_given = member(config, "rope_theta") || member(config, "rotary_emb_base") || alias_value ||
                                     (scaling && member(*scaling, "rope_theta"));
            if (!theta_given && family && family->rope_theta) {
                out.rope_theta = *family->rope_theta;
                out.notes.push_back("rope_theta absent: " + out.model_type + "'s class default " +
                                    detail::format_value(*family->rope_theta));
            }
            if (context.base) out.rope_theta = *context.base, out.rope_theta_key = context.base_key;
        }
        if (!(out.rope_theta > 1.0)) {
            // The value as written ("-0" stays "-0") when one key holds it.
            std::string written = detail::format_value(out.rope_theta);
            if (const json* v = member(config, out.rope_theta_key.c_str())) written = shown(*v);
            else if (scaling && out.rope_theta_key == skey("rope_theta")) written = shown(*member(*scaling, "rope_theta"));
            fail(out.rope_theta_key, "expected a finite number > 1", written);
        }
    }

    /// The family's pairing; DeepSeek-V3's rope_interleave.
    void read_pairing()
    {
        out.pairing = family ? family->pairing : Pairing::half_split;
        // rope_interleave: DeepSeek-V3 applies interleaved pairs when true (the default), rotate_half
        // when false. Other families' code does not read it (the model-level reader warns or refuses).
        if (const json* v = member(config, "rope_interleave")) {
            if (!v->is_boolean()) fail_json("rope_interleave", "expected true or false", *v);
            if (family && family->has(trait::reads_rope_interleave))
                out.pairing = v->get<bool>() ? Pairing::interleaved : Pairing::half_split;
        }
        if (deepseek)
            out.notes.push_back(out.pairing == Pairing::interleaved
                                    ? "DeepSeek MLA: RoPE acts on the qk_rope_head_dim slice only; Hugging Face de-interleaves "
                                      "it (even then odd indices) and rotates half_split, which equals interleaved pairs on "
                                      "the checkpoint layout"
                                    : "DeepSeek MLA: RoPE acts on the qk_rope_head_dim slice only, half_split (rope_interleave "
                                      "false)");
    }

    /// The top-level original_max_position_embeddings (Phi-3), which transformers 5 copies over a single dict's.
    void read_top_level_original_length()
    {
        // transformers 5 (standardize_rope_params) copies the configuration's attribute over a single
        // dict's value (the key, else a class default such as Phi-3's 4096); a per-layer-type dict keeps
        // its own value, else max_position_embeddings.
        if (const json* v = member(config, "original_max_position_embeddings")) {
            top_level_l0 = positive_int(*v, "original_max_position_embeddings");
            top_level_l0_written = true;
        } else if (family && family->original_max_position_embeddings > 0) {
            top_level_l0 = family->original_max_position_embeddings;
        }
        top_level_l0_ignored = context.per_layer_type && top_level_l0_written;
        if (context.per_layer_type) top_level_l0.reset();
    }

    /// The rope type by exact name (legacy aliases where a configuration class renames them).
    void read_rope_type()
    {
        // An explicit null is not "absent" where transformers reads the key with dict.get / setdefault:
        // rope_type null (or type null without rope_type) looks up the init function None and fails,
        // truncate null means no truncation, rope_theta null and original_max_position_embeddings null
        // (yarn, llama3, longrope) reach the arithmetic as None. posenc refuses them, naming the key.
        for (const char* key : {"rope_type", "truncate", "rope_theta"})
            if (explicit_null(*scaling, key))
                fail(skey(key), std::string("expected ") + (std::string(key) == "rope_type" ? "a string" :
                                                            std::string(key) == "truncate" ? "true or false" : "a finite number > 1") +
                                    " or no key at all (transformers reads null as a value here, not as absent)",
                     "null");
        if (!scaling->contains("rope_type") && explicit_null(*scaling, "type"))
            fail(skey("type"), "expected a string or no key at all (transformers reads null as a value here, not as absent)", "null");
        const json* type_value = member(*scaling, "rope_type");
        std::string type_key = skey("rope_type");
        if (!type_value) type_value = member(*scaling, "type"), type_key = skey("type");
        if (type_value) {
            if (!type_value->is_string()) fail_json(type_key, "expected a string", *type_value);
            out.rope_type = type_value->get<std::string>();
        }
        if (out.model_type == "phi3" && (out.rope_type == "su" || out.rope_type == "yarn")) {
            out.notes.push_back("Phi-3: legacy rope type \"" + out.rope_type + "\" is read as \"longrope\"");
            out.rope_type = "longrope";
        }
        if (out.rope_type == "xdrope" && family && family->has(trait::xd_coordinate_sections)) {
            // hunyuan_vl/configuration_hunyuan_vl.py convert_rope_params_to_dict: "xdrope" is "dynamic".
            out.notes.push_back(type_key + " \"xdrope\" is read as \"dynamic\" (HunYuan-VL's configuration class)");
            out.rope_type = "dynamic";
        }
        if (out.rope_type == "su" && out.model_type.empty()) {
            // No model_type names no model: the generic description keeps the old LongRoPE alias.
            out.notes.push_back("legacy rope type \"su\" is read as \"longrope\"");
            out.rope_type = "longrope";
        }
        if (out.rope_type == "mrope" && family && family->has(trait::multi_axis)) {
            // Qwen2-VL's legacy spelling: Hugging Face reads it as "default" plus mrope_section.
            out.notes.push_back(type_key + " \"mrope\" is read as \"default\" with " + sk + ".mrope_section");
            out.rope_type = "default";
        }
        // The rotary embedding looks the type up by exact name (ROPE_INIT_FUNCTIONS, plus "default"):
        // "su" and "mrope" are aliases only where a configuration class renames them (Phi-3; the M-RoPE
        // families), and a name that merely contains "dynamic" is no dynamic type.
        const std::set<std::string> types{"default", "linear", "dynamic", "yarn", "longrope", "llama3"};
        if (out.rope_type == "proportional" && is_proportional()) return;
        if (types.count(out.rope_type) == 0)
            fail_json(type_key, "expected one of default, linear, dynamic, yarn, longrope, llama3", *type_value);
        if (out.model_type == "phi3" && out.rope_type != "default" && out.rope_type != "longrope")
            // phi3/configuration_phi3.py validate_rope raises ValueError for any other type.
            fail_json(type_key, "expected default or longrope (legacy su / yarn) for model_type \"phi3\" (its configuration "
                                "class refuses other rope types)",
                      *type_value);

    }

    /// Keys the rope type does not read: warnings, as transformers logs them.
    void warn_unknown_scaling_keys()
    {
        std::set<std::string> known = known_scaling_keys(out.rope_type);
        if (family) {
            // The family's own keys of the dict (Ministral 3: llama_4_scaling_beta, read by the model-level reader).
            std::istringstream extra{std::string(family->extra_rope_keys)};
            for (std::string k; extra >> k;) known.insert(k);
        }
        for (auto it = scaling->begin(); it != scaling->end(); ++it)
            if (known.count(it.key()) == 0)
                out.warnings.push_back({skey(it.key().c_str()), "unrecognized key for rope_type \"" + out.rope_type + "\""});
    }

    /// The scaling dict's numbers and lists.
    void read_scaling_parameters()
    {
        auto optional_number = [&](const char* key) -> std::optional<double> {
            if (const json* v = member(*scaling, key)) return number(*v, skey(key));
            return std::nullopt;
        };
        if (const json* v = member(*scaling, "factor")) {
            out.factor_key = skey("factor");
            out.factor = number(*v, skey("factor"), "expected a number >= 1");
            if (*out.factor < 1.0) fail_json(skey("factor"), "expected a number >= 1", *v);
            if (v->is_number_integer())  // a fact, not a warning: nothing for the user to change
                out.notes.push_back(skey("factor") + " is an integer (" + v->dump() +
                                    "); transformers logs a warning and uses it as " + detail::format_value(*out.factor));
        }
        out.attention_factor = optional_number("attention_factor");
        out.beta_fast = optional_number("beta_fast");
        out.beta_slow = optional_number("beta_slow");
        out.mscale = optional_number("mscale");
        out.mscale_all_dim = optional_number("mscale_all_dim");
        out.low_freq_factor = optional_number("low_freq_factor");
        out.high_freq_factor = optional_number("high_freq_factor");
        if (const json* v = member(*scaling, "truncate")) {
            if (!v->is_boolean()) fail_json(skey("truncate"), "expected true or false", *v);
            out.truncate = v->get<bool>();
            if (context.per_layer_type && !*out.truncate && out.rope_type == "yarn")
                // _compute_yarn_parameters reads config.rope_parameters.get("truncate", True): the top level
                // of a per-layer-type rope_parameters, which has no truncate, so the entry's false is not seen.
                fail(skey("truncate"), "expected true or no value in a per-layer-type rope_parameters entry (transformers "
                                       "reads truncate from the top level of rope_parameters, where it is absent, so it "
                                       "truncates whatever the entry says)",
                     "false");
        }
        read_xdrope_section();
        if (const json* v = member(*scaling, "mrope_section")) {
            if (!v->is_array() || v->empty()) fail_json(skey("mrope_section"), "expected a list of positive integers", *v);
            for (std::size_t i = 0; i < v->size(); ++i)
                out.mrope_section.push_back(positive_int((*v)[i], skey("mrope_section") + "[" + std::to_string(i) + "]"));
        }
        if (const json* v = member(*scaling, "mrope_interleaved")) {
            if (!v->is_boolean()) fail_json(skey("mrope_interleaved"), "expected true or false", *v);
            out.mrope_interleaved = v->get<bool>();
            out.mrope_interleaved_given = true;
        }
        if (const json* v = member(*scaling, "alpha")) {
            out.alpha = number(*v, skey("alpha"), "expected a finite number > 0");
            if (!(*out.alpha > 0.0)) fail_json(skey("alpha"), "expected a finite number > 0", *v);
        }
        if (family && family->has(trait::phimoe_mscales) && out.rope_type == "longrope")
            for (const char* key : {"short_mscale", "long_mscale"}) {
                // phimoe/configuration_phimoe.py validate_rope: both must be numbers for every rope type but default.
                const json* v = member(*scaling, key);
                if (!v) fail(skey(key), "expected a number (PhiMoE's configuration class requires it)", "nothing");
                (std::string(key) == "short_mscale" ? out.short_mscale : out.long_mscale) = number(*v, skey(key));
            }
        if (const json* v = member(*scaling, "short_factor")) out.short_factor = number_list(*v, skey("short_factor"));
        if (const json* v = member(*scaling, "long_factor")) out.long_factor = number_list(*v, skey("long_factor"));
    }

    /// HunYuan-VL: xdrope_section is an alias of mrope_section; both present and different is refused.
    void read_xdrope_section()
    {
        const json* v = member(*scaling, "xdrope_section");
        if (!v || !(family && family->has(trait::xd_coordinate_sections))) return;
        if (!v->is_array() || v->empty()) fail_json(skey("xdrope_section"), "expected a list of positive integers", *v);
        if (const json* m = member(*scaling, "mrope_section")) {
            const auto same = [](const json& a, const json& b) {
                return a.is_number() && b.is_number() && a.get<double>() == b.get<double>();
            };
            if (!(m->is_array() && m->size() == v->size() && std::equal(m->begin(), m->end(), v->begin(), same)))
                fail(skey("mrope_section"), "expected the values of xdrope_section " + shown(*v) +
                                                " (transformers refuses a config whose two sections differ)",
                     shown(*m));
            return;  // mrope_section is read next
        }
        for (std::size_t i = 0; i < v->size(); ++i)
            out.mrope_section.push_back(positive_int((*v)[i], skey("xdrope_section") + "[" + std::to_string(i) + "]"));
    }

    /// L0: transformers v5 priority (top-level attribute, then the dict, then max_position_embeddings).
    void resolve_original_length()
    {
        // L0: transformers v5 priority (top-level attribute, then the dict, then max_position_embeddings).
        std::optional<std::int64_t> dict_l0;
        if ((out.rope_type == "yarn" || out.rope_type == "llama3" || out.rope_type == "longrope") && !top_level_l0 &&
            explicit_null(*scaling, "original_max_position_embeddings"))
            fail(skey("original_max_position_embeddings"),
                 "expected a positive integer or no key at all (transformers keeps the null, which its arithmetic cannot use)",
                 "null");
        if (const json* v = member(*scaling, "original_max_position_embeddings"))
            dict_l0 = positive_int(*v, skey("original_max_position_embeddings"));
        if (out.rope_type == "yarn" || out.rope_type == "llama3" || out.rope_type == "longrope") {
            if (top_level_l0_ignored)
                out.warnings.push_back({"original_max_position_embeddings",
                                        "not read for the per-layer-type " + context.dict_key +
                                            " (transformers fills only a single RoPE dict from it); ignored"});
            if (top_level_l0) {
                out.original_max_position_embeddings = top_level_l0;
                out.original_max_position_embeddings_key = "original_max_position_embeddings";
                if (!top_level_l0_written) {
                    out.notes.push_back("original_max_position_embeddings absent: " + out.model_type + "'s class default " +
                                        std::to_string(*top_level_l0) + ", which transformers copies over " +
                                        skey("original_max_position_embeddings"));
                    out.original_max_position_embeddings_key =
                        "original_max_position_embeddings (" + out.model_type + "'s class default)";
                }
                if (dict_l0 && *dict_l0 != *top_level_l0)
                    out.warnings.push_back({skey("original_max_position_embeddings"),
                                            "replaced by the top-level original_max_position_embeddings " +
                                                std::to_string(*top_level_l0) + (top_level_l0_written ? "" : " (class default)") +
                                                ", as transformers does; ignored"});
            } else if (dict_l0) {
                out.original_max_position_embeddings = dict_l0;
                out.original_max_position_embeddings_key = skey("original_max_position_embeddings");
            } else if (out.rope_type != "llama3" && out.max_position_embeddings > 0) {
                out.original_max_position_embeddings = out.max_position_embeddings;
                out.original_max_position_embeddings_key = "max_position_embeddings";
            }
        } else if (dict_l0) {
            out.original_max_position_embeddings = dict_l0;
            out.original_max_position_embeddings_key = skey("original_max_position_embeddings");
        }
    }

    void require_key(bool present, const char* key) const
    {
        if (!present) fail(skey(key), "expected a value (required for rope_type \"" + out.rope_type + "\")", "nothing");
    }

    /// The required keys of each rope type and their cross-checks (modeling_rope_utils.py validation).
    void check_required_keys()
    {
        if (out.rope_type == "linear" || out.rope_type == "dynamic") require_key(out.factor.has_value(), "factor");
        if (out.rope_type == "dynamic" && out.max_position_embeddings <= 0)  // a top-level key, not in the dict
            fail("max_position_embeddings", "expected a value (required for rope_type \"dynamic\")", "nothing");
        if (out.rope_type == "yarn") check_yarn();
        if (out.rope_type == "llama3") check_llama3();
        if (out.rope_type == "longrope") check_longrope();
    }

    /// YaRN: factor (else L / L0, transformers 5) and L0.
    void check_yarn()
    {
        const double L = static_cast<double>(out.max_position_embeddings);
        if (!out.factor) {
            // transformers v5: factor falls back to L / L0 when missing.
            require_key(out.original_max_position_embeddings.has_value() && out.max_position_embeddings > 0, "factor");
            out.factor = L / static_cast<double>(*out.original_max_position_embeddings);
            out.factor_key = "max_position_embeddings / original_max_position_embeddings";
            if (*out.factor < 1.0) fail(out.factor_key, "expected a number >= 1", detail::format_value(*out.factor));
            out.warnings.push_back({skey("factor"), "missing; using max_position_embeddings / original_max_position_embeddings = " +
                                                        detail::format_value(*out.factor)});
        } else if (out.original_max_position_embeddings && out.max_position_embeddings > 0) {
            const double implied = L / static_cast<double>(*out.original_max_position_embeddings);
            if (implied != *out.factor && implied != 1.0)
                out.notes.push_back(skey("factor") + " " + detail::format_value(*out.factor) +
                                    " is used, as transformers does (max_position_embeddings / "
                                    "original_max_position_embeddings = " + detail::format_value(implied) + ")");
        }
        if (!out.original_max_position_embeddings)
            fail(skey("original_max_position_embeddings"), "expected a value (no max_position_embeddings to fall back on)",
                 "nothing");
    }

    /// llama3: every parameter is required.
    void check_llama3()
    {
        require_key(out.factor.has_value(), "factor");
        require_key(out.low_freq_factor.has_value(), "low_freq_factor");
        require_key(out.high_freq_factor.has_value(), "high_freq_factor");
        require_key(out.original_max_position_embeddings.has_value(), "original_max_position_embeddings");
    }

    /// LongRoPE: both lists of rotary_dim / 2 numbers, L0, a factor >= 1.
    void check_longrope()
    {
        const double L = static_cast<double>(out.max_position_embeddings);
        require_key(!out.short_factor.empty(), "short_factor");
        require_key(!out.long_factor.empty(), "long_factor");
        const std::size_t pairs = static_cast<std::size_t>(out.rotary_dim / 2);
        for (const auto& [key, list] : {std::pair<const char*, const std::vector<double>*>{"short_factor", &out.short_factor},
                                        {"long_factor", &out.long_factor}})
            if (list->size() != pairs)
                fail(skey(key), "expected " + std::to_string(pairs) + " numbers (rotary_dim / 2)",
                     std::to_string(list->size()) + " numbers");
        if (!out.original_max_position_embeddings)
            fail("original_max_position_embeddings", "expected a value for rope_type \"longrope\"", "nothing");
        if (top_level_l0) {
            // transformers 4.45-4.57 override the factor with L / L0 when the top-level attribute exists; v5 only fills a missing one.
            if (!out.factor && out.max_position_embeddings > 0) {
                out.factor = L / static_cast<double>(*top_level_l0);
                out.factor_key = "max_position_embeddings / original_max_position_embeddings";
            }
            if (top_level_l0_written)
                out.notes.push_back("original_max_position_embeddings " + std::to_string(*top_level_l0) +
                                    " (top level) is LongRoPE's original length, as transformers reads it");
        }
        if (!out.factor) {
            if (out.max_position_embeddings > 0) {
                out.factor = L / static_cast<double>(*out.original_max_position_embeddings);
                out.factor_key = "max_position_embeddings / original_max_position_embeddings";
            } else
                out.warnings.push_back({skey("factor"), "missing and no max_position_embeddings: factor taken as 1"});
        }
        // Hugging Face computes with a derived s < 1 (attention factor 1); posenc's scalings extend
        // contexts only (scaling/common.hpp), so the reader refuses it here, like YaRN's derived factor.
        if (out.factor && *out.factor < 1.0)
            fail(out.factor_key, "expected a number >= 1", detail::format_value(*out.factor));
    }

    /// HunYuan: dynamic NTK with alpha is a static base change.
    void apply_hunyuan_alpha()
    {
        if (out.alpha && *out.alpha != 0.0) {
            if (family && family->has(trait::hunyuan_alpha) && out.rope_type == "dynamic") {
                // modeling_hunyuan_v1_dense.py: base = rope_theta * alpha ** (head_dim / (head_dim - 2)), then the
                // default table over the whole head (dim = head_dim), attention factor 1.
                const double h = static_cast<double>(out.head_dim);
                if (out.head_dim <= 2)
                    fail(skey("alpha"), "expected a head_dim > 2 (alpha scales the base by alpha^(H / (H - 2)))",
                         std::to_string(out.head_dim));
                const double base = out.rope_theta * std::pow(*out.alpha, h / (h - 2.0));
                if (!(std::isfinite(base) && base > 1.0))
                    fail(skey("alpha"), "expected rope_theta * alpha^(H / (H - 2)) finite and > 1",
                         detail::format_value(base));
                out.notes.push_back("HunYuan alpha: base = rope_theta * alpha^(H / (H - 2)) = " + detail::format_value(base) +
                                    " with the default table (Hugging Face's init table, used up to max_position_embeddings)");
                out.rope_theta = base;
                out.rope_theta_key = out.rope_theta_key + " * " + skey("alpha") + "^(H/(H-2))";
                out.rotary_dim = out.head_dim;
                out.rope_type = "default";
                out.factor.reset();
                out.factor_key.clear();
            } else if (family) {
                out.warnings.push_back({skey("alpha"), "only HunYuan's dynamic RoPE reads it; " + out.model_type +
                                                           "'s code ignores it, and so does posenc"});
            }
        }
    }
};

/// One RoPE group of `config` (GroupReader).
inline HfRopeConfig resolve_config_values(const nlohmann::json& config, const GroupContext& context = {})
{
    return GroupReader(config, context).read();
}


}  // namespace detail_json

}  // namespace posenc::hf
