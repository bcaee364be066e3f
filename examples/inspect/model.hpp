// SPDX-License-Identifier: MIT
// model.hpp: the model posenc-inspect looks at (a preset or a config.json), and the setup a run
// inspects: its RopeSpec, the scaling in effect (the model's own or the --scaling override),
// the original length L and the target length L'.
//
// Length rules (docs/cli.md):
//   L   = --original-length; else the original_max_position_embeddings of the scaling in effect
//         (yarn, llama3, longrope; dynamic NTK: its reference length); else the model's original
//         length: the lesson's native length for the lesson presets, the L0 of the model's own
//         scaling, else max_position_embeddings.
//   L'  = --length; else L x factor for the factor-based scalings (linear, ntk_aware, dynamic,
//         yarn, llama3; and none with --factor: direct extrapolation to S times L);
//         max_position_embeddings for longrope; else L.
// An override that names an original length (yarn, llama3, longrope, dynamic) is built with L.
#pragma once

#include <posenc/models/hf_config.hpp>
#include <posenc/models/presets.hpp>
#include <posenc/scaling/scaling.hpp>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "inspect/format.hpp"
#include "inspect/options.hpp"

namespace inspect {

/// A model as posenc-inspect sees it, before any --scaling override.
struct Model {
    std::string name;
    std::optional<posenc::RopeSpec> spec;   ///< nullopt for a learned position table (GPT-2)
    posenc::Scaling scaling;                 ///< the model's own context extension
    std::int64_t max_position_embeddings = 0;  ///< 0 when unknown
    std::int64_t original_length = 0;        ///< see the file comment; 0 when unknown
    bool mla_softmax_scale = false;          ///< DeepSeek MLA: the softmax-scale multiplier applies
    std::int64_t learned_positions = 0;      ///< learned table: rows
    int learned_width = 0;                   ///< learned table: d_model
    std::vector<posenc::hf::ConfigWarning> warnings;
    std::vector<std::string> notes;
};

/// A preset as a Model. The DeepSeek presets use MLA attention, where YaRN's mscale_all_dim
/// enters the softmax scale (docs/formulas.md H8).
inline Model model_from_preset(const posenc::ModelPreset& preset)
{
    Model m;
    m.name = std::string(preset.display_name);
    m.max_position_embeddings = preset.max_position_embeddings;
    m.original_length = preset.native_length;
    m.mla_softmax_scale = preset.name.rfind("deepseek", 0) == 0;
    if (preset.kind == posenc::PositionEncodingKind::learned_absolute) {
        m.learned_positions = preset.native_length;
        m.learned_width = preset.d_model;
        return m;
    }
    m.spec = preset.rope_spec();
    m.scaling = preset.scaling();
    return m;
}

/// A config.json (read by posenc/models/hf_config.hpp) as a Model; `path` names it when the
/// config has no _name_or_path.
inline Model model_from_config(const posenc::hf::HfModelRope& rope, const std::string& path)
{
    Model m;
    m.name = rope.name.empty() || rope.name == rope.model_type ? path : rope.name;
    m.spec = rope.spec;
    m.scaling = rope.scaling;
    m.max_position_embeddings = rope.max_position_embeddings;
    m.original_length = rope.original_length;
    m.mla_softmax_scale = rope.qk_head_dim > 0;
    m.warnings = rope.warnings;
    m.notes = rope.notes;
    return m;
}

/// The model --preset or --config names. Throws posenc::error for an unknown preset, an
/// unreadable file or a rejected config (with the key path).
inline Model load_model(const Options& options)
{
    if (!options.preset.empty()) return model_from_preset(posenc::models::find_preset(options.preset));
    return model_from_config(posenc::hf::read_model_rope(options.config_path), options.config_path);
}

/// Why a learned-table model takes no RoPE options.
inline std::string learned_table_refusal(const Model& model)
{
    return model.name + " uses a learned position table, not RoPE: --scaling, --original-length, --length and --svg "
                        "do not apply";
}

/// What one run inspects.
struct Setup {
    posenc::RopeSpec spec;
    posenc::Scaling scaling;
    std::int64_t original_length;  ///< L
    std::int64_t target_length;    ///< L'
    double softmax_scale_multiplier;
};

namespace detail {

/// "--factor" for "yarn.factor", "--original-length" for the lengths, "--short-factor[3]" ...
inline std::string option_of(const std::string& field)
{
    std::string rest = field;
    const std::size_t dot = field.find('.');
    if (dot != std::string::npos) rest = field.substr(dot + 1);
    if (rest == "original_max_position_embeddings" || rest == "max_position_embeddings") return "--original-length";
    if (rest == "scaled_base") return "--factor (scaled base)";
    std::string option = "--";
    for (char c : rest) option += c == '_' ? '-' : c;
    const std::string size = ".size";
    if (option.size() > size.size() && option.compare(option.size() - size.size(), size.size(), size) == 0)
        option = option.substr(0, option.size() - size.size()) + " (count)";
    return option;
}

/// Runs `build`, turning a library refusal of a command-line value into a UsageError naming the option.
template <class Build>
auto with_option_names(Build&& build) -> decltype(build())
{
    try {
        return build();
    } catch (const posenc::error& e) {
        throw UsageError(option_of(e.field()) + ": " + e.rule() + ", got " + e.value());
    }
}

/// `scaling` with its original length (dynamic NTK: reference length) replaced by `length`.
inline posenc::Scaling with_original_length(const posenc::Scaling& scaling, std::int64_t length)
{
    return std::visit(
        [length](const auto& s) -> posenc::Scaling {
            using T = std::decay_t<decltype(s)>;
            if constexpr (std::is_same_v<T, posenc::DynamicNtkScaling>) {
                return posenc::DynamicNtkScaling(s.factor(), length);
            } else if constexpr (std::is_same_v<T, posenc::YarnScaling>) {
                posenc::YarnScaling y = posenc::YarnScaling(s.factor(), length)
                                            .with_betas(s.beta_fast(), s.beta_slow())
                                            .with_mscale(s.mscale(), s.mscale_all_dim())
                                            .with_rounding(s.rounding());
                if (s.explicit_attention_factor()) y = y.with_attention_factor(*s.explicit_attention_factor());
                return y;
            } else if constexpr (std::is_same_v<T, posenc::Llama3Scaling>) {
                return posenc::Llama3Scaling(s.factor(), s.low_freq_factor(), s.high_freq_factor(), length);
            } else if constexpr (std::is_same_v<T, posenc::LongRopeScaling>) {
                posenc::LongRopeScaling l(s.short_factor(), s.long_factor(), length, s.factor());
                if (s.explicit_attention_factor()) l = l.with_attention_factor(*s.explicit_attention_factor());
                return l;
            } else {
                return s;
            }
        },
        scaling);
}

/// The --scaling override, built with original length `length` (where the type names one).
inline posenc::Scaling override_scaling(const Options& o, const Model& model, std::int64_t length)
{
    const std::string& type = *o.scaling;
    if (type == "none") return posenc::NoScaling{};
    if (type == "linear") return posenc::LinearScaling(*o.factor);
    if (type == "ntk_aware") return posenc::NtkAwareScaling(*o.factor);
    if (type == "dynamic") return posenc::DynamicNtkScaling(*o.factor, length);
    if (type == "yarn") {
        posenc::YarnScaling y =
            posenc::YarnScaling(*o.factor, length)
                .with_betas(o.beta_fast.value_or(posenc::YarnScaling::default_beta_fast),
                            o.beta_slow.value_or(posenc::YarnScaling::default_beta_slow))
                .with_mscale(o.mscale.value_or(0.0), o.mscale_all_dim.value_or(0.0));
        if (o.attention_factor) y = y.with_attention_factor(*o.attention_factor);
        if (o.truncate && !*o.truncate) y = y.with_rounding(posenc::YarnCorrectionRounding::fractional);
        return y;
    }
    if (type == "llama3")
        return posenc::Llama3Scaling(*o.factor, o.low_freq_factor.value_or(1.0), o.high_freq_factor.value_or(4.0),
                                     length);
    // longrope: the lists and factor from the options, else from the model's own LongRoPE.
    const auto* own = std::get_if<posenc::LongRopeScaling>(&model.scaling);
    if (!(o.short_factor && o.long_factor) && !own)
        throw UsageError("--scaling longrope needs --short-factor LIST and --long-factor LIST");
    std::optional<double> factor = o.factor;
    if (!factor && own) factor = own->factor();
    if (!factor && model.max_position_embeddings >= length)
        factor = static_cast<double>(model.max_position_embeddings) / static_cast<double>(length);
    if (!factor) throw UsageError("--scaling longrope needs --factor S (the model names no longer length)");
    posenc::LongRopeScaling l(o.short_factor ? *o.short_factor : own->short_factor(),
                              o.long_factor ? *o.long_factor : own->long_factor(), length, *factor);
    if (o.attention_factor) l = l.with_attention_factor(*o.attention_factor);
    return l;
}

}  // namespace detail

/// The setup the options ask for on `model` (see the file comment for the length rules).
/// Throws UsageError for a learned-table model, a refused override value or a table that cannot
/// be built at L' (naming the option), an unknown original length, or a target length beyond 2^50.
inline Setup resolve_setup(const Model& model, const Options& o)
{
    if (!model.spec) throw UsageError(learned_table_refusal(model));
    const std::int64_t model_length = o.original_length.value_or(model.original_length);
    if (model_length <= 0)
        throw UsageError("the config names no max_position_embeddings or original length: give --original-length N");

    const posenc::Scaling scaling = detail::with_option_names([&]() -> posenc::Scaling {
        if (o.scaling) return detail::override_scaling(o, model, model_length);
        if (o.original_length) return detail::with_original_length(model.scaling, *o.original_length);
        return model.scaling;
    });
    const std::int64_t original = posenc::scaling_original_length(scaling).value_or(model_length);

    std::int64_t target = original;
    const std::string type = posenc::scaling_type_name(scaling);
    double factor = posenc::scaling_factor(scaling);
    if (type == "none" && o.factor) {
        if (!(*o.factor >= 1.0)) throw UsageError("--factor: must be >= 1, got " + detail::number_text(*o.factor));
        factor = *o.factor;
    }
    if (o.length) {
        target = *o.length;
    } else if (type == "longrope" && model.max_position_embeddings > 0) {
        target = model.max_position_embeddings;
    } else {
        const double t = std::round(static_cast<double>(original) * factor);
        if (!(t <= static_cast<double>(max_length)))
            throw UsageError("the target length L x factor exceeds 2^50: give --length N");
        target = static_cast<std::int64_t>(t);
    }
    // The table in effect at L' must exist (LongRoPE list lengths, dynamic NTK's base at L').
    detail::with_option_names([&] { return posenc::frequency_table(*model.spec, scaling, target); });
    const double multiplier = model.mla_softmax_scale ? posenc::softmax_scale_multiplier(scaling) : 1.0;
    return Setup{*model.spec, scaling, original, target, multiplier};
}

}  // namespace inspect
