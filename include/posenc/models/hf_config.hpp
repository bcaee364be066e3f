// SPDX-License-Identifier: MIT
// posenc/models/hf_config.hpp: a Hugging Face config.json as posenc objects: per group a RopeSpec,
// a Scaling, the lengths, and the two multipliers (cos/sin and softmax scale); for the whole
// model a ModelRope (read_model, parse_model).
//
// Optional, like hf_config_json.hpp (the JSON stage it builds on): it needs nlohmann_json
// (Debian nlohmann-json3-dev); nothing else in posenc does, and the umbrella header does not
// include it.
//
// Mapping (docs/formulas.md H1-H8 and H11; transformers 4.56 and later):
//   rope_type   Scaling              built from
//   default     NoScaling            -
//   linear      LinearScaling        factor
//   dynamic     DynamicNtkScaling    factor, max_position_embeddings (NOT the original length, H4)
//   yarn        YarnScaling          factor, L0, beta_fast or 32, beta_slow or 1 (Python `or`: 0 means
//                                    the default), mscale / mscale_all_dim (0 = unset), attention_factor,
//                                    truncate (false = fractional correction range)
//   llama3      Llama3Scaling        factor, low_freq_factor, high_freq_factor, L0
//   longrope    LongRopeScaling      short_factor, long_factor, L0, factor, attention_factor
// L0 follows the priority of transformers 5.x (top-level original_max_position_embeddings, then the dict's, then
// max_position_embeddings), resolved by the JSON stage.
//
// The softmax-scale multiplier g(s, mscale_all_dim)^2 exists only in DeepSeek-style (MLA)
// attention (H8): it is reported for configs with qk_rope_head_dim and is 1 otherwise.
//
// Errors: the library validates every value (spec.hpp, scaling/*.hpp). Its refusals are re-thrown
// as posenc::error whose field is the config's key path and whose message reads
//     rope_scaling.factor: must be >= 1 and finite in float32, got 1e+308
// (JSON-stage errors keep their own "expected ..." wording, hf_config_json.hpp).
#pragma once

#include <cmath>
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
#include "posenc/models/hf_config_json.hpp"
#include "posenc/models/hf_families.hpp"
#include "posenc/multi_axis.hpp"
#include "posenc/query_scale.hpp"
#include "posenc/scaling/scaling.hpp"
#include "posenc/spec.hpp"

namespace posenc::hf {

/// A model's rotary embedding read from a config.json, as validated posenc objects.
struct HfModelRope {
    std::string name;        ///< "_name_or_path", else model_type, else ""
    std::string model_type;  ///< "" when absent
    RopeSpec spec;
    Scaling scaling;
    std::int64_t max_position_embeddings;  ///< 0 when the config has none
    /// The length the model was trained at before extension: the scaling's
    /// original_max_position_embeddings (yarn, llama3, longrope), dynamic NTK's reference length
    /// (max_position_embeddings), else max_position_embeddings; 0 when the config names none.
    std::int64_t original_length;
    /// The factor Hugging Face multiplies cos and sin by at init (scaling_attention_factor).
    double attention_factor;
    /// DeepSeek-V3-style MLA (qk_rope_head_dim present, model_type deepseek_v3, deepseek_v32,
    /// longcat_flash, or one posenc does not know read with ReadOptions::assume_half_split):
    /// g(s, mscale_all_dim)^2 for YaRN with a non-zero mscale_all_dim;
    /// 1 for every other model, DeepSeek-V2 included (transformers' DeepseekV2Attention uses
    /// qk_head_dim^(-1/2) alone).
    double softmax_scale_multiplier;
    int qk_head_dim;  ///< DeepSeek MLA: qk_nope_head_dim + qk_rope_head_dim; 0 otherwise
    std::vector<ConfigWarning> warnings;
    std::vector<std::string> notes;

    /// The attention softmax scale: width^(-1/2) * softmax_scale_multiplier, width = qk_head_dim
    /// for MLA, else head_dim; in Hugging Face's order (`width ** -0.5`, then `* m * m`).
    /// DeepSeek-V3: 192^(-1/2) * 1.3688879454113936^2 = 0.1352337788608801 (H8).
    double softmax_scale() const
    {
        if (qk_head_dim > 0 && softmax_scale_multiplier != 1.0)
            if (const auto* yarn = std::get_if<YarnScaling>(&scaling))
                return deepseek_softmax_scale(qk_head_dim, *yarn);
        return std::pow(static_cast<double>(qk_head_dim > 0 ? qk_head_dim : spec.head_dim()), -0.5);
    }

    /// The frequency table at Hugging Face's init (frequency_table(spec, scaling)).
    FrequencyTable table(Precision precision = Precision::exact) const
    {
        return frequency_table(spec, scaling, precision);
    }

    /// The table in effect for a sequence of `sequence_length` tokens (dynamic NTK, LongRoPE).
    /// Throws posenc::error for sequence_length <= 0.
    FrequencyTable table(std::int64_t sequence_length, Precision precision = Precision::exact) const
    {
        return frequency_table(spec, scaling, sequence_length, precision);
    }
};

namespace detail_config {

using detail_json::HfGroupConfig;
using detail_json::HfModelConfig;
using detail_json::HfRopeConfig;

/// The config key path behind a field name the library reports ("yarn.beta_fast",
/// "longrope.short_factor[3]", "base", "rotary_dim", ...).
inline std::string key_path_of(const std::string& field, const HfRopeConfig& config)
{
    if (field == "base") return config.rope_theta_key;
    if (field == "rotary_dim") return config.rotary_dim_key;
    if (field == "head_dim") return config.head_dim_key;
    for (std::string_view method : {"linear.", "ntk_aware.", "dynamic.", "yarn.", "llama3.", "longrope.", "proportional."}) {
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
    if (c.rope_type == "proportional") return ProportionalScaling(c.proportional_fraction.value_or(1.0), c.factor.value_or(1.0));
    return NoScaling{};
}

/// Turns the JSON stage's facts of one group into posenc objects and checks that the frequency
/// table can be built. Throws posenc::error naming the config key path when the library refuses a
/// value (e.g. "rope_scaling.beta_fast: must be > beta_slow 32, got 1"). Keeps the JSON stage's
/// warnings and notes, and adds a note when a non-MLA config sets mscale_all_dim.
inline HfModelRope group_rope(const HfRopeConfig& config)
{
    using detail_config::relabelled;
    const RopeSpec spec = relabelled(config, [&] {
        return RopeSpec(config.head_dim, config.rotary_dim, config.rope_theta, config.pairing, config.rotary_offset);
    });
    const Scaling scaling = relabelled(config, [&] { return detail_config::scaling_of(config); });
    const FrequencyTable table = relabelled(config, [&] { return frequency_table(spec, scaling); });

    const bool mla = config.qk_head_dim > 0;
    const hf::FamilyRules* family = hf::find_family(config.model_type);
    const bool softmax_mscale = mla && (family == nullptr || (family->traits & hf::trait::mla_softmax_mscale) != 0);
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

    const std::int64_t original_length =
        scaling_original_length(scaling).value_or(config.max_position_embeddings);
    return HfModelRope{config.name_or_path.empty() ? config.model_type : config.name_or_path,
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

}  // namespace detail_config

/// What the reader said about one RoPE group alone (HfModel::group_findings).
struct HfGroupFindings {
    std::vector<ConfigWarning> warnings;
    std::vector<std::string> notes;  ///< without the "<group>: " prefix that HfModel::notes gives them
};

/// A whole model read from a config.json: its ModelRope plus what the reader has to say.
struct HfModel {
    std::string name;        ///< "_name_or_path", else model_type, else ""
    std::string model_type;  ///< the language model's type ("" when absent)
    ModelRope rope;
    int qk_head_dim;  ///< DeepSeek MLA: qk_nope_head_dim + qk_rope_head_dim; 0 otherwise
    std::vector<ConfigWarning> warnings;
    std::vector<std::string> notes;
    /// The attention's sizes as the config gives them (HfModelConfig): an engine reads them here
    /// instead of parsing config.json again. num_key_value_heads is num_attention_heads when absent.
    std::optional<int> num_attention_heads, num_key_value_heads, hidden_size;
    std::optional<double> rms_norm_eps;
    std::string key_prefix;  ///< "text_config." when the language model is nested, else ""
    /// Per group, in rope.groups() order: the warnings and notes about that group alone.
    /// `warnings` and `notes` hold the model's own first, then these, group by group.
    std::vector<HfGroupFindings> group_findings;
};

namespace detail_config {

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

/// Turns the JSON stage's model (hf_config_json.hpp) into a ModelRope: one RopeGroup per group
/// (group_rope of its HfRopeConfig), the layer map, and the M-RoPE layout (MultiAxisLayout
/// sections, or interleaved for mrope_interleaved). Throws posenc::error naming the config key.
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
        groups.push_back(RopeGroup{g.name, r.spec, r.scaling, r.max_position_embeddings, r.original_length,
                                   r.attention_factor, r.softmax_scale_multiplier, g.config.inverse_rope_on_output});
        for (const ConfigWarning& w : r.warnings) warnings.push_back(w);
        for (const std::string& n : r.notes)
            notes.push_back(config.groups.size() > 1 ? g.name + ": " + n : n);
        findings.push_back({r.warnings, r.notes});
        if (&g == &config.primary_group()) qk_head_dim = r.qk_head_dim;
    }
    std::optional<MultiAxisLayout> layout;
    if (!config.mrope_section.empty()) {
        const HfRopeConfig& primary = config.primary_group().config;
        const std::string key = pre + primary.scaling_key + ".mrope_section";
        const int pairs = groups.front().spec.num_pairs();
        try {
            layout = config.mrope_height_width_alternating
                         ? MultiAxisLayout::height_width_alternating(config.mrope_section, pairs)
                     : config.mrope_coordinate_sections ? MultiAxisLayout::coordinate_sections(config.mrope_section, pairs)
                     : config.mrope_interleaved       ? MultiAxisLayout::interleaved(config.mrope_section, pairs)
                                                      : MultiAxisLayout::sections(config.mrope_section, pairs);
        } catch (const posenc::error& e) {
            throw posenc::error(key, e.value(), e.rule(), key + ": " + e.rule() + ", got " + e.value());
        }
    }
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
    return HfModel{name, config.model_type, std::move(rope), qk_head_dim,
                   std::move(warnings), std::move(notes), config.num_attention_heads, config.num_key_value_heads,
                   config.hidden_size, config.rms_norm_eps, config.key_prefix, std::move(findings)};
}

}  // namespace detail_config

/// Every layer's RoPE from config.json text, with the attention's sizes: the engine's entry.
/// Malformed JSON, numbers outside double's range and nesting deeper than 64 levels are refused
/// with posenc::error; so is every value posenc cannot represent, naming the config key path
/// (prefixed "text_config." when the language model is nested).
inline HfModel parse_model(std::string_view text, const ReadOptions& options = {})
{
    return detail_config::model_of(detail_json::parse_model_values(text, options));
}

/// parse_model on a file. Throws posenc::error naming the path when the file cannot be opened
/// (or is a directory, a device, larger than 16 MiB), and the key path when a value is refused.
inline HfModel read_model(const std::string& path, const ReadOptions& options = {})
{
    return detail_config::model_of(detail_json::read_model_values(path, options));
}

/// parse_model on a config object the caller has already parsed (nlohmann_json).
inline HfModel model_from_json(const nlohmann::json& config, const ReadOptions& options = {})
{
    return detail_config::model_of(detail_json::resolve_model(config, options));
}

/// The single-group view of a model: its primary group (the only one, else "full_attention",
/// ModelRope::primary_group) with the model's name, type and qk_head_dim; the warnings are the
/// model's own, one naming the other groups and one listing the NoPE layers when there are any,
/// then the primary group's; the notes are the model's own, then the primary group's.
inline HfModelRope single_group(const HfModel& model)
{
    const RopeGroup& primary = model.rope.primary_group();
    const auto index = static_cast<std::size_t>(&primary - model.rope.groups().data());
    std::size_t group_warnings = 0, group_notes = 0;
    for (const HfGroupFindings& f : model.group_findings) {
        group_warnings += f.warnings.size();
        group_notes += f.notes.size();
    }
    std::vector<ConfigWarning> warnings(model.warnings.begin(),
                                        model.warnings.end() - static_cast<std::ptrdiff_t>(group_warnings));
    if (model.rope.num_groups() > 1) {
        std::string others;
        for (const RopeGroup& g : model.rope.groups())
            if (&g != &primary) others += (others.empty() ? "" : ", ") + g.name;
        warnings.push_back({model.key_prefix + "layer_types",
                            "this model has " + std::to_string(model.rope.num_groups()) + " RoPE groups; this view shows \"" +
                                primary.name + "\" only (also: " + others + ")"});
    }
    std::string nope;
    for (const int layer : model.rope.nope_layers()) nope += (nope.empty() ? "" : ", ") + std::to_string(layer);
    if (!nope.empty())
        warnings.push_back({model.key_prefix + "layers", "layers without RoPE (NoPE): " + detail_json::ellipsized(nope, 60)});
    const HfGroupFindings& own = model.group_findings.at(index);
    warnings.insert(warnings.end(), own.warnings.begin(), own.warnings.end());
    std::vector<std::string> notes(model.notes.begin(), model.notes.end() - static_cast<std::ptrdiff_t>(group_notes));
    notes.insert(notes.end(), own.notes.begin(), own.notes.end());
    return HfModelRope{model.name, model.model_type, primary.spec, primary.scaling, primary.max_position_embeddings,
                       primary.original_length, primary.attention_factor, primary.softmax_scale_multiplier,
                       model.qk_head_dim, std::move(warnings), std::move(notes)};
}

}  // namespace posenc::hf
