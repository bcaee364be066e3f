// SPDX-License-Identifier: MIT
// posenc/models/hf_config.hpp: the config reader's entry points. A Hugging Face config.json in
// (text: parse_model, a file: read_model, a parsed object: model_from_json), the model description
// out (HfModel, hf_model.hpp): every layer's RoPE as a ModelRope, per group a RopeSpec, a Scaling,
// the lengths and the two multipliers (cos/sin and softmax scale), and the attention's sizes.
// single_group(model) is its one-group view (HfModelRope). The implementation: the JSON stage in
// hf_config_json.hpp and detail/, the objects in detail/hf_model_objects.hpp.
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

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "posenc/model_rope.hpp"
#define POSENC_MODELS_DETAIL_ALLOWED 1  // this public header may include posenc/models/detail/*.hpp
#include "posenc/models/detail/hf_json_values.hpp"
#include "posenc/models/detail/hf_model_objects.hpp"
#include "posenc/models/hf_config_json.hpp"
#include "posenc/models/hf_model.hpp"
#include "posenc/models/hf_read_options.hpp"

namespace posenc::hf {

/// Every layer's RoPE from config.json text, with the attention's sizes: the engine's entry.
/// Malformed JSON, numbers outside double's range and nesting deeper than 64 levels are refused
/// with posenc::error; so is every value posenc cannot represent, naming the config key path
/// (prefixed "text_config." when the language model is nested).
inline HfModel parse_model(std::string_view text, const ReadOptions& options = {})
{
    return detail::model_of(detail::parse_model_values(text, options));
}

/// parse_model on a file. Throws posenc::error naming the path when the file cannot be opened
/// (or is a directory, a device, larger than 16 MiB), and the key path when a value is refused.
inline HfModel read_model(const std::string& path, const ReadOptions& options = {})
{
    return detail::model_of(detail::read_model_values(path, options));
}

/// parse_model on a config object the caller has already parsed (nlohmann_json).
inline HfModel model_from_json(const nlohmann::json& config, const ReadOptions& options = {})
{
    return detail::model_of(detail::resolve_model(config, options));
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
                            "this model has " + std::to_string(model.rope.num_groups()) +
                                " RoPE groups; this view shows \"" + primary.name + "\" only (also: " + others + ")"});
    }
    std::string nope;
    for (const int layer : model.rope.nope_layers()) nope += (nope.empty() ? "" : ", ") + std::to_string(layer);
    if (!nope.empty())
        warnings.push_back(
            {model.key_prefix + "layers", "layers without RoPE (NoPE): " + detail::ellipsized(nope, 60)});
    const HfGroupFindings& own = model.group_findings.at(index);
    warnings.insert(warnings.end(), own.warnings.begin(), own.warnings.end());
    std::vector<std::string> notes(model.notes.begin(), model.notes.end() - static_cast<std::ptrdiff_t>(group_notes));
    notes.insert(notes.end(), own.notes.begin(), own.notes.end());
    return HfModelRope {model.name,
                        model.model_type,
                        primary.spec,
                        primary.scaling,
                        primary.max_position_embeddings,
                        primary.original_length,
                        primary.attention_factor,
                        primary.softmax_scale_multiplier,
                        model.qk_head_dim,
                        std::move(warnings),
                        std::move(notes)};
}

}  // namespace posenc::hf
