// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_model_objects.hpp: the config reader's second stage: the JSON stage's
// plain values (HfModelConfig, hf_model_values.hpp) turned into posenc objects (HfModel,
// hf_model.hpp): per group a RopeSpec and a Scaling validated by the library, whose refusals are
// re-thrown under the config key path; the layer map, the M-RoPE layout and the query scale.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/hf_model_objects.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/frequencies.hpp"
#include "posenc/model_rope.hpp"
#include "posenc/models/detail/hf_indexer_json.hpp"
#include "posenc/models/detail/hf_model_values.hpp"
#include "posenc/models/hf_model.hpp"
#include "posenc/multi_axis.hpp"
#include "posenc/query_scale.hpp"
#include "posenc/scaling/scaling.hpp"
#include "posenc/spec.hpp"

namespace posenc::hf::detail {

using detail::HfGroupConfig;
using detail::HfModelConfig;
using detail::HfRopeConfig;

/// The config key path behind a field name the library reports ("yarn.beta_fast",
/// "longrope.short_factor[3]", "base", "rotary_dim", ...).
inline std::string key_path_of(const std::string& field, const HfRopeConfig& config)
{
    if (field == "base") return config.rope_theta_key;
    if (field == "rotary_dim") return config.rotary_dim_key;
    if (field == "head_dim") return config.head_dim_key;
    for (std::string_view method :
         {"linear.", "ntk_aware.", "dynamic.", "yarn.", "llama3.", "longrope.", "proportional."}) {
        if (field.compare(0, method.size(), method) != 0) continue;
        const std::string rest = field.substr(method.size());
        const std::string dict = config.scaling_key.empty() ? std::string("rope_scaling") : config.scaling_key;
        if (rest == "factor") return config.factor_key.empty() ? dict + ".factor" : config.factor_key;
        if (rest == "original_max_position_embeddings")
            return config.original_max_position_embeddings_key.empty() ? dict + "." + rest
                                                                       : config.original_max_position_embeddings_key;
        if (rest == "max_position_embeddings") return "max_position_embeddings";
        if (rest == "scaled_base") return dict + ".factor (scaled base)";
        return dict + "." + rest;
    }
    return field;
}

/// Runs `build`, re-throwing a library refusal with the config's key path.
template <class Build>
auto relabelled(const HfRopeConfig& config, Build&& build) -> decltype(build())
{
    try {
        return build();
    } catch (const posenc::error& e) {
        const std::string path = key_path_of(e.field(), config);
        throw posenc::error(path, e.value(), e.rule(), path + ": " + e.rule() + ", got " + e.value());
    }
}

inline Scaling scaling_of(const HfRopeConfig& c)
{
    // The JSON stage guarantees the required keys of each type (H11), so the optionals
    // dereferenced below are engaged.
    if (c.rope_type == "linear") return LinearScaling(*c.factor);
    if (c.rope_type == "dynamic") return DynamicNtkScaling(*c.factor, c.max_position_embeddings);
    if (c.rope_type == "llama3")
        return Llama3Scaling(*c.factor, *c.low_freq_factor, *c.high_freq_factor, *c.original_max_position_embeddings);
    if (c.rope_type == "yarn") {
        // Python `or`: an absent or zero beta means the default.
        const double beta_fast = c.beta_fast.value_or(0.0) != 0.0 ? *c.beta_fast : YarnScaling::default_beta_fast;
        const double beta_slow = c.beta_slow.value_or(0.0) != 0.0 ? *c.beta_slow : YarnScaling::default_beta_slow;
        YarnScaling yarn = YarnScaling(*c.factor, *c.original_max_position_embeddings)
                               .with_betas(beta_fast, beta_slow)
                               .with_mscale(c.mscale.value_or(0.0), c.mscale_all_dim.value_or(0.0));
        if (c.attention_factor) yarn = yarn.with_attention_factor(*c.attention_factor);
        if (c.truncate && !*c.truncate) yarn = yarn.with_rounding(YarnCorrectionRounding::fractional);
        return yarn;
    }
    if (c.rope_type == "longrope") {
        LongRopeScaling longrope(c.short_factor, c.long_factor, *c.original_max_position_embeddings,
                                 c.factor.value_or(1.0));
        if (c.attention_factor) longrope = longrope.with_attention_factor(*c.attention_factor);
        if (c.short_mscale && c.long_mscale) longrope = longrope.with_phimoe_mscales(*c.short_mscale, *c.long_mscale);
        return longrope;
    }
    if (c.rope_type == "proportional")
        return ProportionalScaling(c.proportional_fraction.value_or(1.0), c.factor.value_or(1.0));
    return NoScaling {};
}

/// Turns the JSON stage's facts of one group into posenc objects and checks that the frequency
/// table can be built. Throws posenc::error naming the config key path when the library refuses a
/// value (e.g. "rope_scaling.beta_fast: must be >= beta_slow 32, got 1"). Keeps the JSON stage's
/// warnings and notes, and adds a note when a non-MLA config sets mscale_all_dim.
inline HfModelRope group_rope(const HfRopeConfig& config)
{
    using detail::relabelled;
    const RopeSpec spec = relabelled(config, [&] {
        return RopeSpec(config.head_dim, config.rotary_dim, config.rope_theta, config.pairing, config.rotary_offset);
    });
    const Scaling scaling = relabelled(config, [&] { return detail::scaling_of(config); });
    const FrequencyTable table = relabelled(config, [&] { return frequency_table(spec, scaling); });

    const bool mla = config.qk_head_dim > 0;
    const bool softmax_mscale = mla && config.mla_softmax_mscale;
    std::vector<std::string> notes = config.notes;
    if (const auto* yarn = std::get_if<YarnScaling>(&scaling)) {
        if (!mla && yarn->mscale_all_dim() != 0.0)
            notes.push_back(config.scaling_key +
                            ".mscale_all_dim enters the softmax scale only in DeepSeek-style (MLA) attention; "
                            "here it only divides the cos/sin factor");
        if (mla && !softmax_mscale && yarn->mscale_all_dim() != 0.0)
            notes.push_back(config.scaling_key + ".mscale_all_dim: transformers' " + config.model_type +
                            " attention scales the softmax by qk_head_dim^(-1/2) alone (no g(s, mscale_all_dim)^2); "
                            "it only divides the cos/sin factor here");
    }

    const std::int64_t original_length = scaling_original_length(scaling).value_or(config.max_position_embeddings);
    return HfModelRope {config.name_or_path.empty() ? config.model_type : config.name_or_path,
                        config.model_type,
                        spec,
                        scaling,
                        config.max_position_embeddings,
                        original_length,
                        table.attention_factor(),
                        softmax_mscale ? softmax_scale_multiplier(scaling) : 1.0,
                        config.qk_head_dim,
                        config.warnings,
                        std::move(notes)};
}

/// Re-throws a library refusal with the key path of a nested config ("text_config.") in front.
template <class Build>
auto prefixed(const std::string& prefix, Build&& build) -> decltype(build())
{
    try {
        return build();
    } catch (const posenc::error& e) {
        if (prefix.empty() || e.field().rfind(prefix, 0) == 0) throw;
        const std::string path = prefix + e.field();
        throw posenc::error(path, e.value(), e.rule(), path + ": " + e.rule() + ", got " + e.value());
    }
}

/// Turns the JSON stage's model (hf_model_values.hpp) into a ModelRope: one RopeGroup per group
/// (group_rope of its HfRopeConfig), the layer map, and the M-RoPE layout (MultiAxisLayout
/// sections, or interleaved for mrope_interleaved). Throws posenc::error naming the config key.
/// MLA's layout from the primary group's widths: the query head [nope, rope], the key assembled the
/// same way from a per-head nope part and one shared rope part (hf_attention_facts.hpp).
inline MlaFacts mla_facts(int qk_head_dim, int qk_rope_head_dim, const detail::AttentionFactsConfig& a)
{
    MlaFacts m;
    m.qk_head_dim = qk_head_dim;
    m.qk_rope_head_dim = qk_rope_head_dim;
    m.qk_nope_head_dim = qk_head_dim - qk_rope_head_dim;
    m.query_rope_offset = m.key_rope_offset = m.qk_nope_head_dim;
    m.key_rope_shared = true;
    m.v_head_dim = a.v_head_dim;
    m.kv_lora_rank = a.kv_lora_rank;
    m.q_lora_rank = a.q_lora_rank;
    return m;
}

/// The model's M-RoPE layout from its sections over the first group's pairs (none without
/// mrope_section); a layout the sections cannot make is refused under the sections' key.
inline std::optional<MultiAxisLayout> mrope_layout_of(const HfModelConfig& config, const std::vector<RopeGroup>& groups)
{
    if (config.mrope_section.empty()) return std::nullopt;
    const std::string& pre = config.key_prefix;
    const HfRopeConfig& primary = config.primary_group().config;
    // The sections' key; a family's default sections (no RoPE dict) are named where they would be.
    const std::string key =
        pre + (primary.scaling_key.empty() ? std::string("rope_parameters") : primary.scaling_key) + ".mrope_section";
    const int pairs = groups.front().spec.num_pairs();
    try {
        return config.mrope_height_width_alternating
                   ? MultiAxisLayout::height_width_alternating(config.mrope_section, pairs)
               : config.mrope_coordinate_sections ? MultiAxisLayout::coordinate_sections(config.mrope_section, pairs)
               : config.mrope_interleaved         ? MultiAxisLayout::interleaved(config.mrope_section, pairs)
                                                  : MultiAxisLayout::sections(config.mrope_section, pairs);
    } catch (const posenc::error& e) {
        throw posenc::error(key, e.value(), e.rule(), key + ": " + e.rule() + ", got " + e.value());
    }
}

inline HfModel model_of(const HfModelConfig& config)
{
    const std::string& pre = config.key_prefix;
    std::vector<RopeGroup> groups;
    std::vector<ConfigWarning> warnings = config.warnings;
    std::vector<std::string> notes = config.notes;
    std::vector<HfGroupFindings> findings;
    int qk_head_dim = 0;
    for (const HfGroupConfig& g : config.groups) {
        const HfModelRope r = prefixed(pre, [&] { return group_rope(g.config); });
        groups.push_back(RopeGroup {g.name, r.spec, r.scaling, r.max_position_embeddings, r.original_length,
                                    r.attention_factor, r.softmax_scale_multiplier, g.config.inverse_rope_on_output});
        for (const ConfigWarning& w : r.warnings) warnings.push_back(w);
        for (const std::string& n : r.notes) notes.push_back(config.groups.size() > 1 ? g.name + ": " + n : n);
        findings.push_back({r.warnings, r.notes});
        if (&g == &config.primary_group()) qk_head_dim = r.qk_head_dim;
    }
    std::optional<MultiAxisLayout> layout = mrope_layout_of(config, groups);
    const HfRopeConfig& primary = config.primary_group().config;
    std::string name = config.name_or_path.empty() ? primary.name_or_path : config.name_or_path;
    if (name.empty()) name = config.model_type;
    ModelRope rope(std::move(groups), config.layer_groups, std::move(layout));
    if (const auto& q = config.query_scale) {
        try {
            rope = rope.with_query_scale(QueryScale(q->beta, q->divisor, q->position_offset), q->layers);
        } catch (const posenc::error& e) {
            throw posenc::error(q->key, e.value(), e.rule(), q->key + ": " + e.rule() + ", got " + e.value());
        }
    }
    const int rope_width = config.primary_group().config.rotary_dim;
    HfModel model {name,
                   config.model_type,
                   std::move(rope),
                   qk_head_dim,
                   std::move(warnings),
                   std::move(notes),
                   config.num_attention_heads,
                   config.num_key_value_heads,
                   config.hidden_size,
                   config.rms_norm_eps,
                   config.key_prefix,
                   std::move(findings),
                   {},
                   {},
                   {}};
    if (config.attention.qk_norm_known) model.qk_norm = config.attention.qk_norm;
    if (qk_head_dim > 0) model.mla = mla_facts(qk_head_dim, rope_width, config.attention);
    if (config.indexer)
        model.indexer = detail::indexer_rope(*config.indexer, model.rope,
                                             static_cast<int>(&config.primary_group() - config.groups.data()));
    return model;
}

}  // namespace posenc::hf::detail
