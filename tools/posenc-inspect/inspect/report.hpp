// SPDX-License-Identifier: MIT
// report.hpp: everything posenc-inspect prints, computed before anything is printed (so an error
// can never leave half a table or half a JSON document behind).
//
// The numbers are posenc's extension diagnostics (posenc/analysis/diagnostics.hpp: the widget of
// lesson C2-5) for the setups of model.hpp, in exact (double) arithmetic, one per RoPE group
// (or, with --compare, one per compared scaling of the group in focus), and the RoFormer bound
// behind the third chart (posenc/analysis/roformer_bound.hpp).
#pragma once

#include <posenc/analysis/diagnostics.hpp>
#include <posenc/analysis/roformer_bound.hpp>
#include <posenc/frequencies.hpp>
#include <posenc/scaling/scaling.hpp>
#include <posenc/token_angles.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "inspect/axis_reach.hpp"
#include "inspect/model.hpp"
#include "inspect/options.hpp"

namespace inspect {

/// A model without RoPE (GPT-2): its learned position table.
struct LearnedTable {
    std::int64_t positions;  ///< rows; position `positions` and beyond have none
    int width;  ///< d_model
    std::int64_t parameters() const { return positions * width; }
};

/// One group's (or one compared scaling's) results.
struct GroupReport {
    std::string name;  ///< the group's name; with --compare, the scaling type
    std::vector<int> layers;  ///< layers of the group (empty when unknown)
    posenc::Scaling scaling;
    posenc::ExtensionDiagnostics diagnostics;
    int rotary_offset = 0;  ///< first rotated coordinate of the head (0: a prefix)
    bool inverse_rope_on_output = false;  ///< the model rotates its attention output's slice back

    /// Pairs of the rotated slice whose frequency (at the target length) is exactly 0.
    int zero_freq_pairs() const
    {
        int n = 0;
        for (const posenc::PairDiagnostics& p : diagnostics.pairs) n += p.inv_freq == 0.0 ? 1 : 0;
        return n;
    }
};

/// Number of distances sampled on each RoFormer curve of the chart.
inline constexpr int roformer_samples = 240;

/// Farthest distance searched for the first U(r) below U(0)/2.
inline constexpr std::int64_t roformer_search_limit = std::int64_t {1} << 20;

/// One base's RoFormer curve.
struct BoundSeries {
    double base;
    bool model_base;  ///< the group's own base (else a comparison base)
    std::vector<double> values;  ///< U(r) at BoundReport::distances
    std::vector<double> decade_values;  ///< U(r) at BoundReport::decades
    std::optional<std::int64_t> first_below_half;  ///< smallest integer r with U(r) < U(0)/2
    double value_at_first_below = 0;  ///< U(first_below_half)
};

/// The numbers behind roformer_bound.svg: U(r) = (1/P) sum_j |S_j(r)| for P pairs.
struct BoundReport {
    int pairs = 0;
    double start = 0;  ///< U(0) = (P + 1) / 2
    std::vector<double> distances;  ///< the chart's sample distances, 1 .. L' (log-spaced)
    std::vector<double> decades;  ///< 1, 10, 100, ... up to L' (the text and JSON rows)
    std::vector<BoundSeries> series;
};

/// --prompt: what the prompt came to (inspect/prompt.hpp).
struct PromptReport {
    std::string rule;  ///< the get_rope_index rule (posenc::hf::rule_name)
    std::int64_t tokens = 0;  ///< the prompt's tokens
    std::int64_t rope_delta = 0;  ///< decoded token n (n >= tokens) is at n + rope_delta on every axis
};

/// One run's results.
struct Report {
    std::string name;
    std::optional<LearnedTable> learned_table;  ///< set for a learned-table model; the rest is then empty
    std::vector<GroupReport> groups;  ///< every RoPE group (the focus one with the overrides)
    std::size_t focus = 0;  ///< index of the group shown in full
    std::vector<GroupReport> compared;  ///< --compare: the focus group under each scaling
    posenc::Scaling scaling;  ///< the focus group's (copy, for single-table views)
    posenc::ExtensionDiagnostics diagnostics;  ///< the focus group's (copy)
    std::optional<int> num_layers;
    std::vector<int> nope_layers;
    std::optional<std::vector<int>> mrope_section;
    bool mrope_interleaved = false;
    std::vector<int> pair_axis;  ///< M-RoPE: axis of each pair of the focus group (empty otherwise)
    std::vector<int> partner_pair_axis;  ///< axis of each pair's second coordinate, when it differs
    std::string multi_axis_kind;  ///< "" without M-RoPE
    int num_axes = 0;
    std::optional<QueryScale> query_scale;  ///< per-position query multiplier, when the model has one
    std::optional<AttentionFacts> attention;  ///< a config's QK-norm and MLA facts (model.hpp)
    BoundReport bound;
    std::vector<posenc::hf::ConfigWarning> warnings;
    std::vector<std::string> notes;
    std::optional<PromptReport> prompt;  ///< --prompt
    std::optional<posenc::TokenAngles> angles;  ///< --angles
    /// M-RoPE with height and width axes: the positions each pair's axis reaches (inspect/axis_reach.hpp)
    std::optional<AxisReach> axis_reach;
};

namespace detail {

/// The two comparison bases: base / 100 and base x 10, replaced by base x 100 and base / 10
/// where one is not a valid base (finite, > 1).
inline std::vector<double> comparison_bases(double base)
{
    std::vector<double> out;
    for (double candidate : {base / 100.0, base * 10.0, base * 100.0, base / 10.0})
        if (out.size() < 2 && std::isfinite(candidate) && candidate > 1.0) out.push_back(candidate);
    return out;
}

inline GroupReport group_report(const std::string& name, const std::vector<int>& layers, const Setup& setup)
{
    GroupReport g {name,
                   layers,
                   setup.scaling,
                   posenc::extension_diagnostics(setup.spec, setup.scaling, setup.original_length, setup.target_length),
                   setup.spec.rotary_offset(),
                   setup.inverse_rope_on_output};
    g.diagnostics.softmax_scale_multiplier = setup.softmax_scale_multiplier;
    return g;
}

}  // namespace detail

/// The RoFormer bound for `pairs` pairs at `base` and the two comparison bases, over 1 .. `last`.
inline BoundReport bound_report(int pairs, double base, std::int64_t last_distance)
{
    BoundReport b;
    b.pairs = pairs;
    b.start = (static_cast<double>(pairs) + 1.0) / 2.0;  // |S_j(0)| = j
    const double last = static_cast<double>(std::max<std::int64_t>(last_distance, 2));
    for (int k = 0; k < roformer_samples; ++k)
        b.distances.push_back(std::pow(last, static_cast<double>(k) / (roformer_samples - 1)));
    for (double d = 1; d <= last; d *= 10) b.decades.push_back(d);
    // The search costs (limit x pairs) complex products; keep it near 2^26.
    const std::int64_t search_limit =
        std::max<std::int64_t>(1000, std::min<std::int64_t>(roformer_search_limit, (std::int64_t {1} << 26) / pairs));
    std::vector<double> bases {base};
    for (double c : detail::comparison_bases(base)) bases.push_back(c);
    for (std::size_t i = 0; i < bases.size(); ++i) {
        const posenc::FrequencyTable table =
            posenc::FrequencyTable::from_spec(posenc::RopeSpec(2 * pairs, 2 * pairs, bases[i]));
        BoundSeries s {bases[i], i == 0, {}, {}, std::nullopt};
        for (double r : b.distances) s.values.push_back(posenc::roformer_relative_bound(table, r));
        for (double r : b.decades) s.decade_values.push_back(posenc::roformer_relative_bound(table, r));
        s.first_below_half =
            posenc::first_distance_below(table, b.start / 2.0, std::min<std::int64_t>(last_distance, search_limit));
        if (s.first_below_half)
            s.value_at_first_below = posenc::roformer_relative_bound(table, static_cast<double>(*s.first_below_half));
        b.series.push_back(std::move(s));
    }
    return b;
}

/// Loads the model the options name, resolves every group's setup and computes the report.
/// Throws UsageError (option mistakes) or posenc::error (a rejected config).
inline Report report_for(const Model& model, const Options& options)
{
    Report r;
    r.name = model.name;
    r.warnings = model.warnings;
    r.notes = model.notes;
    if (model.learned()) {
        for (const char* option : {"--layer", "--scaling", "--compare", "--original-length", "--length", "--svg",
                                   "--csv", "--bound-pairs", "--grid-side"})
            if (options.given(option)) throw UsageError(learned_table_refusal(model));
        r.learned_table = LearnedTable {model.learned_positions, model.learned_width};
        return r;
    }
    r.num_layers = model.num_layers;
    r.nope_layers = model.nope_layers;
    r.mrope_section = model.mrope_section;
    r.mrope_interleaved = model.mrope_interleaved;
    r.pair_axis = model.pair_axis;
    r.partner_pair_axis = model.partner_pair_axis;
    r.multi_axis_kind = model.multi_axis_kind;
    r.num_axes = model.num_axes;
    r.query_scale = model.query_scale;
    r.attention = model.attention;
    r.focus = focus_group(model, options);
    for (std::size_t g = 0; g < model.groups.size(); ++g) {
        const Group& group = model.groups[g];
        const bool focus = g == r.focus;
        r.groups.push_back(detail::group_report(
            group.name, group.layers, resolve_setup(group, options, focus, focus ? options.scaling : std::nullopt)));
    }
    const Group& focus = model.groups[r.focus];
    if (options.compare)
        for (const std::string& type : *options.compare)
            r.compared.push_back(detail::group_report(type, focus.layers, resolve_setup(focus, options, true, type)));
    r.scaling = r.groups[r.focus].scaling;
    r.diagnostics = r.groups[r.focus].diagnostics;
    const int pairs = options.bound_pairs.value_or(r.diagnostics.summary.pairs);
    r.bound = bound_report(pairs, r.diagnostics.base, r.diagnostics.target_length);
    r.axis_reach = axis_reach(options, model.name, model.multi_axis_kind, model.num_axes, model.pair_axis,
                              r.diagnostics.training_length);
    return r;
}

/// Loads the model the options name and computes its report.
inline Report build_report(const Options& options) { return report_for(load_model(options), options); }

}  // namespace inspect
