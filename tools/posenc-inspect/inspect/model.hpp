// SPDX-License-Identifier: MIT
// model.hpp: the model posenc-inspect looks at (a preset or a config.json) as a set of RoPE
// groups with a layer map, and the setup a run inspects for one group: its RopeSpec, the
// scaling in effect (the group's own, or the --scaling / --compare override), the original
// length L and the target length L'.
//
// Length rules (docs/cli.md, "Lengths"), one rule for the list, the table, JSON, CSV and charts:
//   L   = --original-length; else the original_max_position_embeddings of the scaling in effect
//         (yarn, llama3, longrope; dynamic NTK: its reference length); else, for the model's own
//         linear scaling whose config names no original length, max_position_embeddings / factor
//         (Position Interpolation: positions below L'/factor keep the trained angles); else the
//         group's original length: the lesson's native length for the lesson presets, the L0 of
//         the group's own scaling, else max_position_embeddings.
//   L'  = --length; else, for the model's own llama3, longrope or linear scaling,
//         max_position_embeddings when it exceeds L (those configs name the extended length
//         there: Llama 3.1's 131072, Phi-3's 131072, Gemma 3's 131072; Llama 3's factor is not
//         L'/L); else L x factor for the factor-based scalings (linear, ntk_aware, dynamic, yarn,
//         llama3; and none with --factor: direct extrapolation to S times L); else L.
// An override that names an original length (yarn, llama3, longrope, dynamic) is built with L.
// Overrides and --original-length / --length apply to the group in focus only (--layer N's
// group, else full_attention, else the only or first group); the other groups are shown with
// their own scaling and lengths.
#pragma once

#include <posenc/context_lengths.hpp>
#include <posenc/models/hf_config.hpp>
#include <posenc/models/hf_config_file.hpp>
#include <posenc/model_rope.hpp>
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

/// One RoPE configuration shared by a set of layers.
struct Group {
    std::string name;  ///< "default", or Hugging Face's layer type ("full_attention", ...)
    std::vector<int> layers;  ///< the layers that use it (empty when the layer count is unknown)
    posenc::RopeSpec spec;
    posenc::Scaling scaling;  ///< the group's own context extension
    std::int64_t max_position_embeddings = 0;  ///< 0 when unknown
    std::int64_t original_length = 0;  ///< see the file comment; 0 when unknown
    bool mla_softmax_scale = false;  ///< DeepSeek MLA: the softmax-scale multiplier applies
    bool inverse_rope_on_output = false;  ///< the attention output's rotated slice is rotated back
};

/// A per-position multiplier of the query: q times 1 + beta * ln(1 + floor((pos + position_offset)
/// / divisor)), pos counted from 0, on the listed layers.
struct QueryScale {
    double beta = 0;
    std::int64_t divisor = 1;
    std::int64_t position_offset = 0;
    std::vector<int> layers;
};

/// A model as posenc-inspect sees it, before any --scaling override.
/// What an engine's fused step reads beside the RoPE, from a config (HfModel's fields of the same names).
struct AttentionFacts {
    int qk_head_dim = 0;  ///< MLA's query / key head, 0 otherwise
    std::optional<posenc::hf::QkNormFacts> qk_norm;  ///< empty for a model_type posenc does not know
    std::optional<posenc::hf::MlaFacts> mla;
    std::optional<posenc::hf::IndexerRope> indexer;  ///< a sparse-attention indexer's RoPE (HY-V4, Qwen4-Exp)
};

struct Model {
    std::string name;
    std::vector<Group> groups;  ///< empty for a learned position table (GPT-2)
    std::optional<int> num_layers;  ///< when the source says
    std::vector<int> nope_layers;  ///< layers without RoPE, ascending
    std::optional<std::vector<int>> mrope_section;  ///< M-RoPE pairs per axis (temporal, height, width)
    bool mrope_interleaved = false;  ///< M-RoPE axes assigned round-robin by pair
    std::vector<int> pair_axis;  ///< M-RoPE: the axis of each pair (empty otherwise)
    std::vector<int> partner_pair_axis;  ///< the axis of each pair's second coordinate, when it differs (XD-RoPE)
    std::string multi_axis_kind;  ///< MultiAxisKind's name ("" without M-RoPE)
    int num_axes = 0;  ///< position axes the pairs read (0 without M-RoPE)
    std::optional<QueryScale> query_scale;  ///< null when the model scales no query by position
    std::int64_t learned_positions = 0;  ///< learned table: rows
    int learned_width = 0;  ///< learned table: d_model
    std::vector<posenc::hf::ConfigWarning> warnings;
    std::vector<std::string> notes;
    /// A config's attention facts beside the RoPE (posenc/models/hf_attention_facts.hpp); empty for presets.
    std::optional<AttentionFacts> attention;

    bool learned() const { return groups.empty(); }
};

/// A preset as a Model (one group, "default"). The DeepSeek presets use MLA attention, where
/// YaRN's mscale_all_dim enters the softmax scale.
inline Model model_from_preset(const posenc::ModelPreset& preset)
{
    Model m;
    m.name = std::string(preset.display_name);
    if (preset.kind == posenc::PositionEncodingKind::learned_absolute) {
        m.learned_positions = preset.native_length;
        m.learned_width = preset.d_model;
        return m;
    }
    Group g {"default",
             {},
             preset.rope_spec(),
             preset.scaling(),
             preset.max_position_embeddings,
             preset.native_length,
             preset.name.rfind("deepseek", 0) == 0};
    m.groups.push_back(std::move(g));
    return m;
}

/// A whole-model description (posenc/model_rope.hpp) as a Model: one Group per RopeGroup with
/// its layers, the NoPE layers, and the M-RoPE layout. `mla`: DeepSeek-style attention, where
/// YaRN's mscale_all_dim enters the softmax scale.
inline Model model_from_rope(const std::string& name, const posenc::ModelRope& rope, bool mla)
{
    Model m;
    m.name = name;
    m.num_layers = rope.num_layers();
    m.nope_layers = rope.nope_layers();
    for (int g = 0; g < rope.num_groups(); ++g) {
        const posenc::RopeGroup& r = rope.groups()[static_cast<std::size_t>(g)];
        m.groups.push_back(Group {r.name, rope.layers_of_group(g), r.spec, r.scaling, r.max_position_embeddings,
                                  r.original_length, mla, r.inverse_rope_on_output});
    }
    if (const auto& q = rope.query_scale())
        m.query_scale = QueryScale {q->scale.beta(), q->scale.divisor(), q->scale.position_offset(), q->layers};
    if (const auto& layout = rope.multi_axis()) {
        if (!layout->mrope_section().empty()) m.mrope_section = layout->mrope_section();
        m.mrope_interleaved = layout->is_interleaved();
        m.pair_axis = layout->pair_axes();
        if (layout->splits_pairs()) m.partner_pair_axis = layout->partner_axes();
        m.multi_axis_kind = posenc::to_string(layout->kind());
        m.num_axes = layout->num_axes();
    }
    return m;
}

namespace detail {

/// The name a config file gives its model when it has no _name_or_path: the file name without
/// its extension ("gemma-3-4b-it" for configs/gemma-3-4b-it.json), or, for a file called
/// config.json, its folder's name (a model's own folder: Llama-3.1-8B/config.json).
inline std::string config_file_model_name(const std::string& path)
{
    std::string p = path;
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    const std::size_t slash = p.find_last_of('/');
    std::string file = slash == std::string::npos ? p : p.substr(slash + 1);
    const std::size_t dot = file.find_last_of('.');
    if (dot != std::string::npos && dot > 0) file = file.substr(0, dot);
    if (file == "config" && slash != std::string::npos && slash > 0) {
        const std::string folder = p.substr(0, slash);
        const std::size_t up = folder.find_last_of('/');
        const std::string name = up == std::string::npos ? folder : folder.substr(up + 1);
        if (!name.empty() && name != "." && name != "..") return name;
    }
    return file.empty() ? path : file;
}

}  // namespace detail

/// A config.json (read by posenc/models/hf_config.hpp) as a Model, named by its _name_or_path,
/// else by its file (detail::config_file_model_name).
inline Model model_from_config(const posenc::hf::HfModel& hf, const std::string& path)
{
    Model m =
        model_from_rope(hf.name.empty() || hf.name == hf.model_type ? detail::config_file_model_name(path) : hf.name,
                        hf.rope, hf.qk_head_dim > 0);
    m.warnings = hf.warnings;
    m.notes = hf.notes;
    m.attention = AttentionFacts {hf.qk_head_dim, hf.qk_norm, hf.mla, hf.indexer};
    return m;
}

/// The presets of whole models whose layers do not all rotate alike (posenc/models/presets.hpp).
struct WholeModelPreset {
    const char* name;
    const char* display_name;
    posenc::ModelRope (*rope)();
};

inline const std::vector<WholeModelPreset>& whole_model_presets()
{
    static const std::vector<WholeModelPreset> presets {
        {"gemma-3-4b-it", "gemma-3-4b-it", &posenc::models::gemma_3_4b_it_rope},
        {"llama-4-scout", "Llama-4-Scout-17B-16E-Instruct", &posenc::models::llama_4_scout_rope},
        {"smollm3-3b", "SmolLM3-3B", &posenc::models::smollm3_3b_rope},
        {"qwen2.5-vl-7b", "Qwen2.5-VL-7B-Instruct", &posenc::models::qwen2_5_vl_7b_rope},
    };
    return presets;
}

/// The bytes of the config file at `path`: hf::read_config_file's checks (posenc/models/hf_config_file.hpp),
/// with messages that name --config. Throws UsageError.
inline std::string read_config_text(const std::string& path)
{
    try {
        return posenc::hf::read_config_file(path, "--config " + detail::in_quotes(path));
    } catch (const posenc::error& e) {
        throw UsageError(e.what());
    }
}

/// Names of every preset, for suggestions.
inline std::vector<std::string> preset_names()
{
    std::vector<std::string> out;
    for (const posenc::ModelPreset& p : posenc::models::all_presets) out.emplace_back(p.name);
    for (const WholeModelPreset& p : whole_model_presets()) out.emplace_back(p.name);
    return out;
}

/// The model --preset or --config names. Throws UsageError for an unknown preset (with a
/// suggestion) or an unreadable file, posenc::error for a rejected config (with the key path).
inline Model load_model(const Options& options)
{
    if (!options.preset.empty()) {
        for (const posenc::ModelPreset& p : posenc::models::all_presets)
            if (p.name == options.preset) return model_from_preset(p);
        for (const WholeModelPreset& p : whole_model_presets())
            if (p.name == options.preset) return model_from_rope(p.display_name, p.rope(), false);
        throw UsageError("--preset: no preset named " + detail::in_quotes(options.preset) +
                         detail::did_you_mean(options.preset, preset_names()) + " (see --list-presets)");
    }
    const std::string text = read_config_text(options.config_path);
    posenc::hf::ReadOptions read_options;
    read_options.assume_half_split = options.assume_half_split;
    return model_from_config(posenc::hf::parse_model(text, read_options), options.config_path);
}

/// Why a learned-table model takes no RoPE options.
inline std::string learned_table_refusal(const Model& model)
{
    return detail::cut(detail::printable(model.name), 40) +
           " uses a learned position table, not RoPE: --layer, --scaling, --compare, --original-length, --length, "
           "--csv and --svg do not apply";
}

/// The index of the group a run shows in full: --layer N's group, else "full_attention", else
/// the first. Throws UsageError for a layer out of range or without RoPE.
inline std::size_t focus_group(const Model& model, const Options& o)
{
    if (o.layer) {
        const int n = *o.layer;
        const std::string shown = "--layer " + o.as_written("--layer");
        if (model.num_layers && (n < 0 || n >= *model.num_layers))
            throw UsageError(shown + ": the model has " + std::to_string(*model.num_layers) + " layers (0 to " +
                             std::to_string(*model.num_layers - 1) + ")");
        if (n < 0) throw UsageError(shown + ": a layer index is 0 or more");
        for (int nope : model.nope_layers)
            if (nope == n) throw UsageError(shown + ": layer " + std::to_string(n) + " uses no RoPE (a NoPE layer)");
        if (!model.num_layers) {
            if (model.groups.size() == 1) return 0;
            throw UsageError(shown + ": the config names no layer count");
        }
        for (std::size_t g = 0; g < model.groups.size(); ++g)
            for (int layer : model.groups[g].layers)
                if (layer == n) return g;
        throw UsageError(shown + ": layer " + std::to_string(n) + " belongs to no RoPE group");
    }
    for (std::size_t g = 0; g < model.groups.size(); ++g)
        if (model.groups[g].name == "full_attention") return g;
    return 0;
}

/// What one run inspects for one group.
struct Setup {
    posenc::RopeSpec spec;
    posenc::Scaling scaling;
    std::int64_t original_length;  ///< L
    std::int64_t target_length;  ///< L'
    double softmax_scale_multiplier;
    bool inverse_rope_on_output = false;
};

namespace detail {

/// How the user asked for `type` ("--scaling yarn --factor 4", "--compare ..."), with the
/// lengths they gave, for messages about a value no single option carries.
inline std::string override_words(const Options& o, const std::string& type)
{
    std::string s = o.compare ? "--compare (" + type + ")" : "--scaling " + type;
    if (o.given("--factor")) s += " --factor " + o.as_written("--factor");
    if (o.given("--original-length")) s += " --original-length " + o.as_written("--original-length");
    if (o.given("--length")) s += " --length " + o.as_written("--length");
    return s;
}

/// "pair 1's scaled frequency" for "inv_freq[1]", else "" (a field that is no option or key).
inline std::string internal_quantity(const std::string& field)
{
    const std::string prefix = "inv_freq[";
    if (field.compare(0, prefix.size(), prefix) == 0 && field.back() == ']')
        return "the scaled frequency of pair " + field.substr(prefix.size(), field.size() - prefix.size() - 1);
    if (field == "scaled_base" || field.find(".scaled_base") != std::string::npos) return "the scaled base";
    return "";
}

/// The command-line option behind a library field name ("yarn.factor" -> "--factor",
/// "longrope.short_factor[3]" -> "--short-factor" item 3), or "" when no option carries it.
struct OptionOf {
    std::string option;
    std::string item;  ///< list item index, "" for a scalar; "count" for a list's size
};

inline OptionOf option_of(const std::string& field)
{
    std::string rest = field;
    const std::size_t dot = field.find('.');
    if (dot != std::string::npos) rest = field.substr(dot + 1);
    std::string item;
    const std::size_t bracket = rest.find('[');
    if (bracket != std::string::npos && rest.back() == ']') {
        item = rest.substr(bracket + 1, rest.size() - bracket - 2);
        rest = rest.substr(0, bracket);
    }
    const std::string size = ".size";
    if (rest.size() > size.size() && rest.compare(rest.size() - size.size(), size.size(), size) == 0) {
        rest = rest.substr(0, rest.size() - size.size());
        item = "count";
    }
    if (rest == "original_max_position_embeddings" || rest == "max_position_embeddings")
        return {"--original-length", item};
    for (const char* known : {"factor", "beta_fast", "beta_slow", "mscale", "mscale_all_dim", "attention_factor",
                              "low_freq_factor", "high_freq_factor", "short_factor", "long_factor"})
        if (rest == known) {
            std::string option = "--";
            for (char c : rest) option += c == '_' ? '-' : c;
            return {option, item};
        }
    return {"", ""};
}

/// Runs `build`, turning a library refusal of a command-line value into a UsageError that names
/// the option and quotes the value as the user wrote it (a list item: that item). A refused value
/// the user did not write (the model's own) is shown as the library formats it, with the model's
/// key; a refused derived quantity (a scaled frequency) names the options that led to it.
template <class Build>
auto with_option_names(const Options& o, const std::string& type, Build&& build) -> decltype(build())
{
    try {
        return build();
    } catch (const posenc::error& e) {
        const OptionOf which = option_of(e.field());
        if (!which.option.empty() && o.given(which.option)) {
            std::string value = o.as_written(which.option);
            std::string label = which.option;
            if (which.item == "count") {
                label += " (count)";
                value = std::to_string(split_commas(value).size());
                throw UsageError(label + ": " + e.rule() + ", got " + value);
            }
            if (!which.item.empty()) {
                const std::vector<std::string> items = split_commas(value);
                const std::size_t k = static_cast<std::size_t>(std::strtoull(which.item.c_str(), nullptr, 10));
                if (k < items.size()) value = items[k];
                label += " (item " + which.item + ")";
            }
            throw UsageError(label + ": " + e.rule() + ", got " + in_quotes(value));
        }
        const std::string quantity = internal_quantity(e.field());
        const std::string what = quantity.empty() ? "the model's " + cut(printable(e.field()), quoted_width) : quantity;
        const std::string context =
            o.scaling || o.compare ? override_words(o, type) : "the model's own " + type + " scaling";
        throw UsageError(context + ": " + what + " " + e.rule() + ", got " + cut(printable(e.value()), quoted_width));
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

/// The override of type `type`, built with original length `length` (where the type names one).
inline posenc::Scaling override_scaling(const Options& o, const std::string& type, const Group& group,
                                        std::int64_t length)
{
    if (type == "none") return posenc::NoScaling {};
    if (type == "linear") return posenc::LinearScaling(*o.factor);
    if (type == "ntk_aware") return posenc::NtkAwareScaling(*o.factor);
    if (type == "dynamic") return posenc::DynamicNtkScaling(*o.factor, length);
    if (type == "yarn") {
        posenc::YarnScaling y = posenc::YarnScaling(*o.factor, length)
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
    // longrope: the lists and factor from the options, else from the group's own LongRoPE.
    const auto* own = std::get_if<posenc::LongRopeScaling>(&group.scaling);
    if (!(o.short_factor && o.long_factor) && !own)
        throw UsageError(std::string(o.compare ? "--compare longrope" : "--scaling longrope") +
                         " needs --short-factor LIST and --long-factor LIST (the model has no LongRoPE lists)");
    std::optional<double> factor = o.factor;
    if (!factor && own) factor = own->factor();
    if (!factor && group.max_position_embeddings >= length)
        factor = static_cast<double>(group.max_position_embeddings) / static_cast<double>(length);
    if (!factor) throw UsageError("--scaling longrope needs --factor S (the model names no longer length)");
    posenc::LongRopeScaling l(o.short_factor ? *o.short_factor : own->short_factor(),
                              o.long_factor ? *o.long_factor : own->long_factor(), length, *factor);
    if (o.attention_factor) l = l.with_attention_factor(*o.attention_factor);
    return l;
}

}  // namespace detail

namespace detail {

/// `group` as the library's RopeGroup (its lengths and scaling; posenc/context_lengths.hpp reads them).
inline posenc::RopeGroup rope_group(const Group& group)
{
    posenc::RopeGroup g {group.name, group.spec, group.scaling, group.max_position_embeddings, group.original_length};
    g.inverse_rope_on_output = group.inverse_rope_on_output;
    return g;
}

/// What the options ask of the lengths of a group (the group in focus when `apply_options`,
/// `type` naming the override): --original-length, --length, and the factor L' = L x S of
/// --compare and of --factor without a scaling (`none`).
inline posenc::LengthRequest length_request(const Options& o, bool apply_options,
                                            const std::optional<std::string>& type, bool no_scaling)
{
    posenc::LengthRequest request;
    request.own_scaling = !(apply_options && type);
    if (!apply_options) return request;
    request.original_length = o.original_length;
    request.target_length = o.length;
    if ((o.compare || no_scaling) && o.factor) request.target_factor = *o.factor;
    return request;
}

/// `--factor: must be >= 1, got "<as written>"`, where L' = L x --factor (--compare without
/// --length, and no scaling with --factor).
inline void require_target_factor(const Options& o, bool needed)
{
    if (needed && !(*o.factor >= 1.0))
        throw UsageError("--factor: must be >= 1, got " + in_quotes(o.as_written("--factor")));
}

}  // namespace detail

/// The setup for `group`: with the overrides of `o` when `apply_options` (the group in focus),
/// `type` naming the override (one of --compare's types, or --scaling's); else the group's own
/// scaling and lengths. The lengths are posenc::context_lengths' (posenc/context_lengths.hpp).
/// Throws UsageError for a refused override value or frequencies that do not exist at L'
/// (naming the option), an unknown original length, or a target length beyond 2^50.
inline Setup resolve_setup(const Group& group, const Options& o, bool apply_options,
                           const std::optional<std::string>& type = std::nullopt)
{
    const posenc::RopeGroup rope = detail::rope_group(group);
    const posenc::LengthRequest model_request = detail::length_request(o, apply_options, type, false);
    if (model_request.original_length.value_or(group.original_length) <= 0)
        throw UsageError("the config names no max_position_embeddings or original length: give --original-length N");
    const std::int64_t model_length = posenc::trained_length(rope, model_request);

    const std::string label = type ? *type : posenc::scaling_type_name(group.scaling);
    const posenc::Scaling scaling = detail::with_option_names(o, label, [&]() -> posenc::Scaling {
        if (apply_options && type) return detail::override_scaling(o, *type, group, model_length);
        if (apply_options && o.original_length) return detail::with_original_length(group.scaling, *o.original_length);
        return group.scaling;
    });
    const bool no_scaling = std::holds_alternative<posenc::NoScaling>(scaling);
    const posenc::LengthRequest request = detail::length_request(o, apply_options, type, no_scaling);
    detail::require_target_factor(o, apply_options && no_scaling && o.factor);
    detail::require_target_factor(o, apply_options && o.compare && !o.length);
    posenc::ContextLengths lengths;
    try {
        lengths = posenc::context_lengths(rope, scaling, request);
    } catch (const posenc::error& e) {
        if (e.field() == "target_length")
            throw UsageError("the target length L x factor exceeds 2^50: give --length N");
        throw;
    }
    // The frequencies in effect at L' must exist (LongRoPE list lengths, dynamic NTK's base at L').
    detail::with_option_names(o, label, [&] { posenc::require_frequencies_at(group.spec, scaling, lengths.target); });
    const double multiplier = group.mla_softmax_scale ? posenc::softmax_scale_multiplier(scaling) : 1.0;
    return Setup {group.spec, scaling, lengths.original, lengths.target, multiplier, group.inverse_rope_on_output};
}

}  // namespace inspect
