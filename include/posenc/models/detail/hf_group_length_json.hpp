// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_group_length_json.hpp: the original context length L0 of one RoPE group
// (top-level, the dict's, max_position_embeddings; transformers 5's priority) and the keys each
// rope type requires.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/hf_group_length_json.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
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

/// The top-level original_max_position_embeddings (Phi-3), which transformers 5 copies over a single dict's.
inline TopLevelLength read_top_level_original_length(const GroupFacts& g)
{
    // transformers 5 (standardize_rope_params) copies the configuration's attribute over a single
    // dict's value (the key, else a class default such as Phi-3's 4096); a per-layer-type dict keeps
    // its own value, else max_position_embeddings.
    TopLevelLength top;
    if (const json* v = member(g.config, "original_max_position_embeddings")) {
        top.l0 = positive_int(*v, "original_max_position_embeddings");
        top.written = true;
    } else if (g.default_original_max_position_embeddings > 0) {
        top.l0 = g.default_original_max_position_embeddings;
    }
    top.ignored = g.context.per_layer_type && top.written;
    if (g.context.per_layer_type) top.l0.reset();
    return top;
}

/// L0: transformers v5 priority (top-level attribute, then the dict, then max_position_embeddings).
inline void resolve_original_length(const GroupFacts& g, const ScalingDict& sd, const TopLevelLength& top,
                                    HfRopeConfig& out)
{
    // L0: transformers v5 priority (top-level attribute, then the dict, then max_position_embeddings).
    std::optional<std::int64_t> dict_l0;
    if ((out.rope_type == "yarn" || out.rope_type == "llama3" || out.rope_type == "longrope") && !top.l0 &&
        explicit_null(*sd.dict, "original_max_position_embeddings"))
        fail(sd.at("original_max_position_embeddings"),
             "expected a positive integer or no key at all (transformers keeps the null, which its arithmetic cannot "
             "use)",
             "null");
    if (const json* v = member(*sd.dict, "original_max_position_embeddings"))
        dict_l0 = positive_int(*v, sd.at("original_max_position_embeddings"));
    if (out.rope_type == "yarn" || out.rope_type == "llama3" || out.rope_type == "longrope") {
        if (top.ignored)
            out.warnings.push_back({"original_max_position_embeddings",
                                    "not read for the per-layer-type " + g.context.dict_key +
                                        " (transformers fills only a single RoPE dict from it); ignored"});
        if (top.l0) {
            out.original_max_position_embeddings = top.l0;
            out.original_max_position_embeddings_key = "original_max_position_embeddings";
            if (!top.written) {
                out.notes.push_back("original_max_position_embeddings absent: " + out.model_type + "'s class default " +
                                    std::to_string(*top.l0) + ", which transformers copies over " +
                                    sd.at("original_max_position_embeddings"));
                out.original_max_position_embeddings_key =
                    "original_max_position_embeddings (" + out.model_type + "'s class default)";
            }
            if (dict_l0 && *dict_l0 != *top.l0)
                out.warnings.push_back({sd.at("original_max_position_embeddings"),
                                        "replaced by the top-level original_max_position_embeddings " +
                                            std::to_string(*top.l0) + (top.written ? "" : " (class default)") +
                                            ", as transformers does; ignored"});
        } else if (dict_l0) {
            out.original_max_position_embeddings = dict_l0;
            out.original_max_position_embeddings_key = sd.at("original_max_position_embeddings");
        } else if (out.rope_type != "llama3" && out.max_position_embeddings > 0) {
            out.original_max_position_embeddings = out.max_position_embeddings;
            out.original_max_position_embeddings_key = "max_position_embeddings";
        }
    } else if (dict_l0) {
        out.original_max_position_embeddings = dict_l0;
        out.original_max_position_embeddings_key = sd.at("original_max_position_embeddings");
    }
}

inline void require_key(const ScalingDict& sd, const HfRopeConfig& out, bool present, const char* key)
{
    if (!present) fail(sd.at(key), "expected a value (required for rope_type \"" + out.rope_type + "\")", "nothing");
}

/// YaRN: factor (else L / L0, transformers 5) and L0.
inline void check_yarn(const ScalingDict& sd, HfRopeConfig& out)
{
    const double L = static_cast<double>(out.max_position_embeddings);
    if (!out.factor) {
        // transformers v5: factor falls back to L / L0 when missing.
        require_key(sd, out, out.original_max_position_embeddings.has_value() && out.max_position_embeddings > 0,
                    "factor");
        out.factor = L / static_cast<double>(*out.original_max_position_embeddings);
        out.factor_key = "max_position_embeddings / original_max_position_embeddings";
        if (*out.factor < 1.0)
            fail(out.factor_key, "expected a number >= 1", posenc::detail::format_value(*out.factor));
        out.warnings.push_back(
            {sd.at("factor"), "missing; using max_position_embeddings / original_max_position_embeddings = " +
                                  posenc::detail::format_value(*out.factor)});
    } else if (out.original_max_position_embeddings && out.max_position_embeddings > 0) {
        const double implied = L / static_cast<double>(*out.original_max_position_embeddings);
        if (implied != *out.factor && implied != 1.0)
            out.notes.push_back(sd.at("factor") + " " + posenc::detail::format_value(*out.factor) +
                                " is used, as transformers does (max_position_embeddings / "
                                "original_max_position_embeddings = " +
                                posenc::detail::format_value(implied) + ")");
    }
    if (!out.original_max_position_embeddings)
        fail(sd.at("original_max_position_embeddings"), "expected a value (no max_position_embeddings to fall back on)",
             "nothing");
}

/// llama3: every parameter is required.
inline void check_llama3(const ScalingDict& sd, HfRopeConfig& out)
{
    require_key(sd, out, out.factor.has_value(), "factor");
    require_key(sd, out, out.low_freq_factor.has_value(), "low_freq_factor");
    require_key(sd, out, out.high_freq_factor.has_value(), "high_freq_factor");
    require_key(sd, out, out.original_max_position_embeddings.has_value(), "original_max_position_embeddings");
}

/// LongRoPE: both lists of rotary_dim / 2 numbers, L0, a factor >= 1.
inline void check_longrope(const ScalingDict& sd, const TopLevelLength& top, HfRopeConfig& out)
{
    const double L = static_cast<double>(out.max_position_embeddings);
    require_key(sd, out, !out.short_factor.empty(), "short_factor");
    require_key(sd, out, !out.long_factor.empty(), "long_factor");
    const std::size_t pairs = static_cast<std::size_t>(out.rotary_dim / 2);
    for (const auto& [key, list] :
         {std::pair<const char*, const std::vector<double>*> {"short_factor", &out.short_factor},
          {"long_factor", &out.long_factor}})
        if (list->size() != pairs)
            fail(sd.at(key), "expected " + std::to_string(pairs) + " numbers (rotary_dim / 2)",
                 std::to_string(list->size()) + " numbers");
    if (!out.original_max_position_embeddings)
        fail("original_max_position_embeddings", "expected a value for rope_type \"longrope\"", "nothing");
    if (top.l0) {
        // transformers 4.45-4.57 override the factor with L / L0 when the top-level attribute exists; v5 only fills a missing one.
        if (!out.factor && out.max_position_embeddings > 0) {
            out.factor = L / static_cast<double>(*top.l0);
            out.factor_key = "max_position_embeddings / original_max_position_embeddings";
        }
        if (top.written)
            out.notes.push_back("original_max_position_embeddings " + std::to_string(*top.l0) +
                                " (top level) is LongRoPE's original length, as transformers reads it");
    }
    if (!out.factor) {
        if (out.max_position_embeddings > 0) {
            out.factor = L / static_cast<double>(*out.original_max_position_embeddings);
            out.factor_key = "max_position_embeddings / original_max_position_embeddings";
        } else out.warnings.push_back({sd.at("factor"), "missing and no max_position_embeddings: factor taken as 1"});
    }
    // Hugging Face computes with a derived s < 1 (attention factor 1); posenc's scalings extend
    // contexts only (scaling/common.hpp), so the reader refuses it here, like YaRN's derived factor.
    if (out.factor && *out.factor < 1.0)
        fail(out.factor_key, "expected a number >= 1", posenc::detail::format_value(*out.factor));
}

/// The required keys of each rope type and their cross-checks (modeling_rope_utils.py validation).
inline void check_required_keys(const ScalingDict& sd, const TopLevelLength& top, HfRopeConfig& out)
{
    if (out.rope_type == "linear" || out.rope_type == "dynamic") require_key(sd, out, out.factor.has_value(), "factor");
    if (out.rope_type == "dynamic" && out.max_position_embeddings <= 0)  // a top-level key, not in the dict
        fail("max_position_embeddings", "expected a value (required for rope_type \"dynamic\")", "nothing");
    if (out.rope_type == "yarn") check_yarn(sd, out);
    if (out.rope_type == "llama3") check_llama3(sd, out);
    if (out.rope_type == "longrope") check_longrope(sd, top, out);
}

}  // namespace posenc::hf::detail
