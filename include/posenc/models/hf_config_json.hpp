// SPDX-License-Identifier: MIT
// posenc/models/hf_config_json.hpp: read the RoPE facts out of a Hugging Face config.json.
//
// Optional: the only part of posenc that needs nlohmann_json (Debian nlohmann-json3-dev).
// This header resolves the JSON into plain values (HfRopeConfig) following
// H1, H10 and H11 (docs/formulas.md); hf_config.hpp turns those into a
// RopeSpec and a Scaling.
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
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/spec.hpp"

namespace posenc::hf {

/// One warning Hugging Face would log while loading the config.
struct ConfigWarning {
    std::string key;      ///< key path, e.g. "rope_scaling.factor"
    std::string message;  ///< what Hugging Face would say
};

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
    std::optional<std::int64_t> original_max_position_embeddings;  ///< resolved L0 (transformers 5.x priority)
    std::optional<double> attention_factor, beta_fast, beta_slow, mscale, mscale_all_dim;
    std::optional<double> low_freq_factor, high_freq_factor;
    std::optional<bool> truncate;
    std::vector<double> short_factor, long_factor;

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

namespace detail_json {

using json = nlohmann::json;

/// Largest config file read_config accepts (real ones are kilobytes).
inline constexpr std::size_t max_config_bytes = std::size_t{16} << 20;

/// Deeper nesting than this is refused before parsing (real configs nest 3 levels).
inline constexpr int max_nesting_depth = 64;

/// Widest head the reader accepts. Published models stay at or below 512; the limit keeps a
/// hostile config from asking for a table of a billion pairs (8 GB) downstream.
inline constexpr int max_head_dim = 65536;

inline std::string shown(const json& v)
{
    std::string s = v.dump();
    if (s.size() > 60) s = s.substr(0, 57) + "...";
    return s;
}

[[noreturn]] inline void fail(const std::string& path, const std::string& rule, const std::string& got)
{
    throw posenc::error(path, got, rule, path + ": " + rule + ", got " + got);
}

[[noreturn]] inline void fail_json(const std::string& path, const std::string& rule, const json& got)
{
    fail(path, rule, shown(got));
}

/// Refuses text nested deeper than max_nesting_depth (outside strings) before it reaches the parser.
inline void check_nesting(std::string_view text)
{
    int depth = 0;
    bool in_string = false, escaped = false;
    for (char c : text) {
        if (in_string) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == '"') in_string = true;
        else if (c == '{' || c == '[') {
            if (++depth > max_nesting_depth)
                fail("config", "expected JSON nested at most " + std::to_string(max_nesting_depth) + " levels deep",
                     "deeper nesting");
        } else if (c == '}' || c == ']') --depth;
    }
}

/// A JSON object's member, or nullptr when absent or null (Python's "attribute or None").
inline const json* member(const json& object, const char* key)
{
    const auto it = object.find(key);
    if (it == object.end() || it->is_null()) return nullptr;
    return &*it;
}

inline double number(const json& v, const std::string& path, const char* rule = "expected a finite number")
{
    if (!v.is_number()) fail_json(path, rule, v);
    const double x = v.get<double>();
    if (!std::isfinite(x)) fail_json(path, rule, v);
    return x;
}

inline std::int64_t integer(const json& v, const std::string& path, const char* rule)
{
    if (v.is_number_integer()) {
        if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
            fail_json(path, rule, v);
        return v.get<std::int64_t>();
    }
    if (v.is_number_float()) {
        const double x = v.get<double>();
        if (std::isfinite(x) && x == std::floor(x) && std::abs(x) < 9.0e15) return static_cast<std::int64_t>(x);
    }
    fail_json(path, rule, v);
}

inline int positive_int(const json& v, const std::string& path)
{
    const std::int64_t i = integer(v, path, "expected a positive integer");
    if (i <= 0 || i > std::numeric_limits<int>::max()) fail_json(path, "expected a positive integer", v);
    return static_cast<int>(i);
}

inline std::vector<double> number_list(const json& v, const std::string& path)
{
    if (!v.is_array()) fail_json(path, "expected a list of numbers", v);
    std::vector<double> out;
    out.reserve(v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
        out.push_back(number(v[i], path + "[" + std::to_string(i) + "]", "expected a finite number > 0"));
    for (std::size_t i = 0; i < out.size(); ++i)
        if (!(out[i] > 0)) fail_json(path + "[" + std::to_string(i) + "]", "expected a finite number > 0", v[i]);
    return out;
}

/// Keys each rope type accepts (docs/formulas.md H11, with the additions of transformers 5.x).
inline std::set<std::string> known_scaling_keys(const std::string& type)
{
    std::set<std::string> keys{"rope_type", "type", "rope_theta", "partial_rotary_factor"};
    auto add = [&](std::initializer_list<const char*> more) {
        for (const char* k : more) keys.insert(k);
    };
    if (type == "linear") add({"factor"});
    if (type == "dynamic") add({"factor", "original_max_position_embeddings"});
    if (type == "yarn")
        add({"factor", "attention_factor", "beta_fast", "beta_slow", "original_max_position_embeddings", "mscale",
             "mscale_all_dim", "truncate"});
    if (type == "longrope") add({"short_factor", "long_factor", "attention_factor", "factor", "original_max_position_embeddings"});
    if (type == "llama3") add({"factor", "original_max_position_embeddings", "low_freq_factor", "high_freq_factor"});
    return keys;
}

inline bool is_interleaved_family(const std::string& model_type)
{
    // H10 (docs/formulas.md).
    for (const char* t : {"gptj", "codegen", "cohere", "cohere2", "glm", "glm4", "deepseek_v2", "deepseek_v3"})
        if (model_type == t) return true;
    return false;
}

}  // namespace detail_json

namespace detail_json {

inline HfRopeConfig resolve_config_values(const nlohmann::json& config)
{
    if (!config.is_object()) fail_json("config", "expected a JSON object", config);
    HfRopeConfig out;

    if (const json* v = member(config, "model_type")) {
        if (!v->is_string()) fail_json("model_type", "expected a string", *v);
        out.model_type = v->get<std::string>();
    }
    if (const json* v = member(config, "_name_or_path")) {
        if (!v->is_string()) fail_json("_name_or_path", "expected a string", *v);
        out.name_or_path = v->get<std::string>();
    }
    const bool gptj_like = out.model_type == "gptj" || out.model_type == "codegen";
    const bool deepseek = member(config, "qk_rope_head_dim") != nullptr;

    // ---- max_position_embeddings (GPT-J: n_positions) ----
    if (const json* v = member(config, "max_position_embeddings"))
        out.max_position_embeddings = positive_int(*v, "max_position_embeddings");
    else if (const json* n = member(config, "n_positions"))
        out.max_position_embeddings = positive_int(*n, "n_positions");

    // ---- head_dim (H) ----
    if (deepseek) {
        out.head_dim = positive_int(*member(config, "qk_rope_head_dim"), "qk_rope_head_dim");
        out.head_dim_key = "qk_rope_head_dim";
        int nope = 0;
        if (const json* v = member(config, "qk_nope_head_dim")) {
            nope = positive_int(*v, "qk_nope_head_dim");
            if (nope > max_head_dim) fail_json("qk_nope_head_dim", "expected a positive integer <= 65536", *v);
        }
        out.qk_head_dim = nope + out.head_dim;  // both <= 65536: no overflow
        out.notes.push_back("DeepSeek MLA: RoPE acts on the qk_rope_head_dim slice only; Hugging Face de-interleaves "
                            "it (even then odd indices) and rotates half_split, which equals interleaved pairs on the "
                            "checkpoint layout");
    } else if (const json* v = member(config, "head_dim")) {
        out.head_dim = positive_int(*v, "head_dim");
        out.head_dim_key = "head_dim";
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
    if (out.head_dim > max_head_dim)
        fail(out.head_dim_key, "expected a head of at most " + std::to_string(max_head_dim) + " dimensions",
             std::to_string(out.head_dim));
    out.rotary_dim_key = out.head_dim_key;

    // ---- the scaling dict: v5 rope_parameters, else rope_scaling ----
    const json* scaling = nullptr;
    for (const char* key : {"rope_parameters", "rope_scaling"}) {
        if (const json* v = member(config, key)) {
            if (!v->is_object()) fail_json(key, "expected an object or null", *v);
            scaling = v;
            out.scaling_key = key;
            break;
        }
    }
    const std::string sk = out.scaling_key;
    auto skey = [&](const char* k) { return sk + "." + k; };

    // ---- partial rotary ----
    double prf = out.model_type == "glm" || out.model_type == "glm4" ? 0.5 : 1.0;
    std::string prf_key = out.model_type == "glm" || out.model_type == "glm4" ? "partial_rotary_factor" : "";
    if (const json* v = member(config, "rotary_pct")) prf = number(*v, "rotary_pct"), prf_key = "rotary_pct";
    if (const json* v = member(config, "partial_rotary_factor")) prf = number(*v, "partial_rotary_factor"), prf_key = "partial_rotary_factor";
    if (scaling)
        if (const json* v = member(*scaling, "partial_rotary_factor"))
            prf = number(*v, skey("partial_rotary_factor")), prf_key = skey("partial_rotary_factor");
    if (!(prf > 0.0 && prf <= 1.0)) fail(prf_key, "expected a number in (0, 1]", detail::format_value(prf));

    if (gptj_like && member(config, "rotary_dim")) {
        out.rotary_dim = positive_int(*member(config, "rotary_dim"), "rotary_dim");
        out.rotary_dim_key = "rotary_dim";
    } else {
        out.rotary_dim = static_cast<int>(static_cast<double>(out.head_dim) * prf);  // HF: int(H * prf)
        if (!prf_key.empty()) out.rotary_dim_key = prf_key;
    }
    if (out.rotary_dim <= 0 || out.rotary_dim % 2 != 0 || out.rotary_dim > out.head_dim)
        fail(out.rotary_dim_key,
             "expected a rotary_dim that is even, > 0 and <= head_dim " + std::to_string(out.head_dim),
             std::to_string(out.rotary_dim));

    // ---- base ----
    if (!gptj_like) {
        if (const json* v = member(config, "rotary_emb_base"))
            out.rope_theta = number(*v, "rotary_emb_base"), out.rope_theta_key = "rotary_emb_base";
        if (const json* v = member(config, "rope_theta")) out.rope_theta = number(*v, "rope_theta"), out.rope_theta_key = "rope_theta";
        if (scaling)
            if (const json* v = member(*scaling, "rope_theta"))
                out.rope_theta = number(*v, skey("rope_theta")), out.rope_theta_key = skey("rope_theta");
    }
    if (!(out.rope_theta > 1.0))
        fail(out.rope_theta_key, "expected a finite number > 1", detail::format_value(out.rope_theta));

    // ---- pairing ----
    out.pairing = detail_json::is_interleaved_family(out.model_type) ? Pairing::interleaved : Pairing::half_split;
    if (deepseek)
        if (const json* v = member(config, "rope_interleave")) {
            if (!v->is_boolean()) fail_json("rope_interleave", "expected true or false", *v);
            if (!v->get<bool>()) out.pairing = Pairing::half_split;
        }

    // ---- top-level original_max_position_embeddings (Phi-3) ----
    std::optional<std::int64_t> top_level_l0;
    if (const json* v = member(config, "original_max_position_embeddings"))
        top_level_l0 = positive_int(*v, "original_max_position_embeddings");

    if (!scaling) return out;

    // ---- rope type ----
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
    if (out.rope_type == "su") out.rope_type = "longrope";
    if (out.rope_type.find("dynamic") != std::string::npos) out.rope_type = "dynamic";  // HF: substring test
    const std::set<std::string> types{"default", "linear", "dynamic", "yarn", "longrope", "llama3"};
    if (types.count(out.rope_type) == 0)
        fail_json(type_key, "expected one of default, linear, dynamic, yarn, longrope, llama3", *type_value);

    // ---- unknown keys: warnings ----
    const std::set<std::string> known = known_scaling_keys(out.rope_type);
    for (auto it = scaling->begin(); it != scaling->end(); ++it)
        if (known.count(it.key()) == 0)
            out.warnings.push_back({skey(it.key().c_str()), "unrecognized key for rope_type \"" + out.rope_type + "\""});

    // ---- parameters ----
    auto optional_number = [&](const char* key) -> std::optional<double> {
        if (const json* v = member(*scaling, key)) return number(*v, skey(key));
        return std::nullopt;
    };
    if (const json* v = member(*scaling, "factor")) {
        out.factor_key = skey("factor");
        out.factor = number(*v, skey("factor"), "expected a number >= 1");
        if (*out.factor < 1.0) fail_json(skey("factor"), "expected a number >= 1", *v);
        if (v->is_number_integer())
            out.warnings.push_back({skey("factor"), "is an integer (" + v->dump() +
                                                        "); Hugging Face expects a float, warns, and uses it"});
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
    }
    if (const json* v = member(*scaling, "short_factor")) out.short_factor = number_list(*v, skey("short_factor"));
    if (const json* v = member(*scaling, "long_factor")) out.long_factor = number_list(*v, skey("long_factor"));

    // L0: transformers 5.x priority (top-level attribute, then the dict, then max_position_embeddings).
    std::optional<std::int64_t> dict_l0;
    if (const json* v = member(*scaling, "original_max_position_embeddings"))
        dict_l0 = positive_int(*v, skey("original_max_position_embeddings"));
    if (out.rope_type == "yarn" || out.rope_type == "llama3" || out.rope_type == "longrope") {
        if (top_level_l0) {
            out.original_max_position_embeddings = top_level_l0;
            out.original_max_position_embeddings_key = "original_max_position_embeddings";
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

    // ---- required keys and cross-checks (H11) ----
    auto require_key = [&](bool present, const char* key) {
        if (!present) fail(skey(key), "expected a value (required for rope_type \"" + out.rope_type + "\")", "nothing");
    };
    const double L = static_cast<double>(out.max_position_embeddings);
    if (out.rope_type == "linear" || out.rope_type == "dynamic") require_key(out.factor.has_value(), "factor");
    if (out.rope_type == "dynamic" && out.max_position_embeddings <= 0)  // a top-level key, not in the dict
        fail("max_position_embeddings", "expected a value (required for rope_type \"dynamic\")", "nothing");
    if (out.rope_type == "yarn") {
        if (!out.factor) {
            // transformers 5.x: factor falls back to L / L0 when missing.
            require_key(out.original_max_position_embeddings.has_value() && out.max_position_embeddings > 0, "factor");
            out.factor = L / static_cast<double>(*out.original_max_position_embeddings);
            out.factor_key = "max_position_embeddings / original_max_position_embeddings";
            if (*out.factor < 1.0) fail(out.factor_key, "expected a number >= 1", detail::format_value(*out.factor));
            out.warnings.push_back({skey("factor"), "missing; using max_position_embeddings / original_max_position_embeddings = " +
                                                        detail::format_value(*out.factor)});
        } else if (out.original_max_position_embeddings && out.max_position_embeddings > 0) {
            const double implied = L / static_cast<double>(*out.original_max_position_embeddings);
            if (implied != *out.factor && implied != 1.0)
                out.warnings.push_back({skey("factor"), "differs from max_position_embeddings / original_max_position_embeddings = " +
                                                            detail::format_value(implied) + "; using the explicit factor"});
        }
        if (!out.original_max_position_embeddings)
            fail(skey("original_max_position_embeddings"), "expected a value (no max_position_embeddings to fall back on)",
                 "nothing");
    }
    if (out.rope_type == "llama3") {
        require_key(out.factor.has_value(), "factor");
        require_key(out.low_freq_factor.has_value(), "low_freq_factor");
        require_key(out.high_freq_factor.has_value(), "high_freq_factor");
        require_key(out.original_max_position_embeddings.has_value(), "original_max_position_embeddings");
    }
    if (out.rope_type == "longrope") {
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
            // transformers 4.45-4.57 override the factor with L / L0 when the top-level attribute exists; transformers 5.x only fills a missing one.
            if (!out.factor && out.max_position_embeddings > 0) {
                out.factor = L / static_cast<double>(*top_level_l0);
                out.factor_key = "max_position_embeddings / original_max_position_embeddings";
            }
            out.warnings.push_back({"original_max_position_embeddings",
                                    "top-level value used as longrope's original length; Hugging Face prefers "
                                    "rope_scaling.factor"});
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
    return out;
}

}  // namespace detail_json

/// Resolves a parsed config.json object. Throws posenc::error with the key path on wrong types,
/// missing required keys or values outside what Hugging Face (or posenc) accepts; an exception
/// of nlohmann_json itself (a caller-built value holding invalid UTF-8, say) becomes a
/// posenc::error naming "config" too.
inline HfRopeConfig resolve_config(const nlohmann::json& config)
{
    try {
        return detail_json::resolve_config_values(config);
    } catch (const nlohmann::json::exception& e) {
        detail_json::fail("config", "expected JSON values nlohmann_json can read (" + std::string(e.what()) + ")",
                          "an unreadable value");
    }
}

/// Parses config.json text and resolves it (resolve_config). Malformed JSON, numbers outside
/// double's range, and nesting deeper than 64 levels are refused with posenc::error naming "config".
inline HfRopeConfig parse_config(std::string_view text)
{
    detail_json::check_nesting(text);
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for 1e999
        detail_json::fail("config", "expected valid JSON (" + std::string(e.what()) + ")",
                          std::to_string(text.size()) + " bytes");
    }
    return resolve_config(j);
}

/// Reads and parses a config.json file; an unreadable file or a directory is a posenc::error
/// naming the path.
inline HfRopeConfig read_config(const std::string& path)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw posenc::error("path", '"' + path + '"', "is a directory", path + ": is a directory, not a config file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw posenc::error("path", '"' + path + '"', "cannot be opened", path + ": cannot be opened");
    // Read at most max_config_bytes + 1: a config is kilobytes (Phi-3's, with 96 factors, is
    // 4 KB), and a device such as /dev/zero must not be read forever.
    std::string text(detail_json::max_config_bytes + 1, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (text.size() > detail_json::max_config_bytes)
        throw posenc::error("path", '"' + path + '"', "is larger than 16 MiB",
                            path + ": is larger than 16 MiB, not a config file");
    return parse_config(text);
}

}  // namespace posenc::hf
