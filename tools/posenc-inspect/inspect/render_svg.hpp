// SPDX-License-Identifier: MIT
// render_svg.hpp: the report as standalone SVG charts (svg_chart.hpp).
//
//   turns.svg           turns of each pair within L on a log axis, with the one-turn line -- the
//                       chart of lesson C2-5. Bars: out of range at L' red ("bar out-of-range"),
//                       no full turn but in range light blue ("bar incomplete"), the rest blue
//                       ("bar")
//   compression.svg     theta'_i / theta_i per pair: compressed pairs orange ("bar compressed"),
//                       untouched pairs grey ("bar")
//   roformer_bound.svg  RoFormer's relative upper bound U(r) (Su et al. 2021, eq. 37) over
//                       distances 1 .. L' (log axis) for the group's base (black) and two
//                       comparison bases (grey, dashed and dotted), with the U(0)/2 line and a
//                       circle where each curve first drops below it; --bound-pairs sets P
//   compare.svg         with --compare: theta'_i / theta_i per pair, one line per scaling, red
//                       circles on the pairs out of range at L'
// One meaning per colour across the charts (the colour constants below); the numbers behind
// every chart are also in the text and JSON output.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "inspect/render_text.hpp"
#include "inspect/report.hpp"
#include "inspect/svg_chart.hpp"

namespace inspect {

/// One file to write: its name inside the --svg directory and its content.
struct SvgFile {
    std::string name;
    std::string content;
};

/// The colours, one meaning each.
inline constexpr const char* color_complete = "#4e79a7";  ///< a pair that turns within L
inline constexpr const char* color_incomplete = "#a0cbe8";  ///< no full turn within L, in range at L'
inline constexpr const char* color_out_of_range = "#d62728";  ///< out of range at L'
inline constexpr const char* color_untouched = "#bab0ac";  ///< theta'_i = theta_i
inline constexpr const char* color_compressed = "#f28e2b";  ///< theta'_i < theta_i
inline constexpr const char* color_model_base = "#000000";  ///< the group's own base (RoFormer chart)
inline constexpr const char* color_other_base = "#79706e";  ///< a comparison base (RoFormer chart)
/// The compared scalings, in --compare order.
inline const std::vector<std::string>& compare_colors()
{
    static const std::vector<std::string> colors {"#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#ff9da7", "#9c755f"};
    return colors;
}

namespace detail {

/// `name` made printable and cut to `width` columns, for titles and legends.
inline std::string short_name(const std::string& name, std::size_t width) { return cut(printable(name), width); }

}  // namespace detail

namespace detail {

/// The model's name for a chart title, with the group shown when the model has several
/// ("gemma-3-4b-it, group full_attention"): a chart of a multi-group model says which group it is.
inline std::string chart_name(const Report& r, std::size_t width)
{
    std::string name = short_name(r.name, width);
    if (r.groups.size() > 1) name += ", group " + short_name(r.groups[r.focus].name, 24);
    return name;
}

}  // namespace detail

/// The turns chart: turns within L; for M-RoPE with height and width axes, within each pair's
/// axis reach (inspect/axis_reach.hpp: L for temporal pairs, the grid side for height and width).
inline SvgFile turns_chart(const Report& r)
{
    const posenc::ExtensionDiagnostics& d = r.diagnostics;
    const AxisReach* reach = r.axis_reach ? &*r.axis_reach : nullptr;
    BarChart c;
    c.title = detail::chart_name(r, 40) + ": turns of each pair within L = " + std::to_string(d.training_length) +
              (reach ? " (temporal) or " + std::to_string(reach->grid_side) + " rows / columns (height, width" +
                           (reach->grid_assumed ? ", assumed)" : ")")
                     : std::string());
    c.subtitle = detail::scaling_label(r.scaling) + " at L' = " + std::to_string(d.target_length) + ": " +
                 std::to_string(d.summary.out_of_range_pairs) + " of " + std::to_string(d.summary.pairs) +
                 " pairs out of range (red)";
    c.x_label = "pair i";
    c.y_label = reach ? "turns reach·θᵢ / 2π (log)" : "turns L·θᵢ / 2π (log)";
    c.log_y = true;
    c.reference_line = 1.0;
    c.reference_label = "1 turn";
    for (const posenc::PairDiagnostics& p : d.pairs) {
        const double turns = reach ? reach->turns(p) : p.turns_original;
        c.values.push_back(turns);
        if (p.out_of_range) {
            c.classes.push_back("bar out-of-range");
            c.colors.push_back(color_out_of_range);
        } else if (reach ? !(turns >= 1.0) : !p.completes_turn) {
            c.classes.push_back("bar incomplete");
            c.colors.push_back(color_incomplete);
        } else {
            c.classes.push_back("bar");
            c.colors.push_back(color_complete);
        }
    }
    c.legend = {{color_complete, reach ? "completes a turn within its reach" : "completes a turn within L"},
                {color_incomplete, "no full turn, in range at L'"},
                {color_out_of_range, "out of range at L'"}};
    return {"turns.svg", render(c)};
}

/// The compression chart.
inline SvgFile compression_chart(const Report& r)
{
    const posenc::ExtensionDiagnostics& d = r.diagnostics;
    BarChart c;
    c.title = detail::chart_name(r, 40) + ": compression θ′ᵢ / θᵢ per pair";
    c.subtitle = detail::scaling_label(r.scaling) + " at L' = " + std::to_string(d.target_length) + ": " +
                 std::to_string(d.summary.compressed_pairs) + " of " + std::to_string(d.summary.pairs) +
                 " pairs compressed";
    c.x_label = "pair i";
    c.y_label = "θ′ᵢ / θᵢ";
    c.reference_line = 1.0;
    c.reference_label = "1 = untouched";
    for (const posenc::PairDiagnostics& p : d.pairs) {
        c.values.push_back(p.compression);
        c.classes.push_back(p.compressed ? "bar compressed" : "bar");
        c.colors.push_back(p.compressed ? color_compressed : color_untouched);
    }
    c.legend = {{color_untouched, "untouched"}, {color_compressed, "compressed"}};
    return {"compression.svg", render(c)};
}

/// The RoFormer decay-bound chart.
inline SvgFile roformer_chart(const Report& r)
{
    const BoundReport& b = r.bound;
    LineChart c;
    c.title = "RoFormer relative upper bound U(r), " + std::to_string(b.pairs) + " pairs" +
              (r.groups.size() > 1 ? " (" + detail::chart_name(r, 32) + ")" : "");
    c.subtitle = "(1/P) Σ |Sⱼ(r)| over the P pairs j, Su et al. 2021 eq. 37; circles: first r with U(r) < U(0)/2";
    c.x_label = "relative distance r (tokens, log)";
    c.y_label = "U(r)";
    c.log_x = true;
    c.reference_line = b.start / 2;
    c.reference_label = "U(0)/2 = " + detail::number_text(b.start / 2);
    const char* dashes[] = {"", "6 3", "2 3"};
    for (std::size_t i = 0; i < b.series.size(); ++i) {
        const BoundSeries& bs = b.series[i];
        Series s;
        s.label = "base " + detail::number_text(bs.base) +
                  (bs.model_base ? " (" + detail::short_name(r.name, 16) + ")" : "") +
                  (bs.first_below_half ? ", r = " + std::to_string(*bs.first_below_half) : "");
        s.color = bs.model_base ? color_model_base : color_other_base;
        s.dash = dashes[i < 3 ? i : 2];
        for (std::size_t k = 0; k < b.distances.size(); ++k) {
            if (bs.first_below_half && (k == 0 || b.distances[k - 1] < static_cast<double>(*bs.first_below_half)) &&
                b.distances[k] >= static_cast<double>(*bs.first_below_half)) {
                if (b.distances[k] != static_cast<double>(*bs.first_below_half)) {
                    s.x.push_back(static_cast<double>(*bs.first_below_half));
                    s.y.push_back(bs.value_at_first_below);
                }
            }
            s.x.push_back(b.distances[k]);
            s.y.push_back(bs.values[k]);
        }
        if (bs.first_below_half) {
            s.marks_x.push_back(static_cast<double>(*bs.first_below_half));
            s.mark_color = s.color;
            s.mark_class = "half-crossing";
        }
        c.series.push_back(std::move(s));
    }
    return {"roformer_bound.svg", render(c)};
}

/// The --compare chart: theta'_i / theta_i of each scaling, out-of-range pairs circled in red.
inline SvgFile compare_chart(const Report& r)
{
    LineChart c;
    const posenc::ExtensionDiagnostics& first = r.compared.front().diagnostics;
    c.title = detail::chart_name(r, 40) + ": " + std::to_string(r.compared.size()) + " scalings compared";
    c.subtitle = "θ′ᵢ / θᵢ per pair at L' = " + std::to_string(first.target_length) +
                 " (L = " + std::to_string(first.training_length) + "); red circles: out of range at L'";
    c.x_label = "pair i";
    c.y_label = "θ′ᵢ / θᵢ (log)";
    c.log_y = true;
    c.integer_x = true;
    for (std::size_t i = 0; i < r.compared.size(); ++i) {
        const GroupReport& g = r.compared[i];
        Series s;
        s.label = detail::scaling_label(g.scaling);
        s.color = compare_colors()[i % compare_colors().size()];
        for (const posenc::PairDiagnostics& p : g.diagnostics.pairs) {
            s.x.push_back(p.index);
            s.y.push_back(p.compression);
            if (p.out_of_range) s.marks_x.push_back(p.index);
        }
        s.mark_color = color_out_of_range;
        s.mark_class = "mark out-of-range";
        c.series.push_back(std::move(s));
    }
    c.extra_legend = {{color_out_of_range, "out of range at L'"}};
    return {"compare.svg", render(c)};
}

/// The charts: turns, compression, RoFormer bound, and with --compare the combined chart;
/// `title`, when not empty, names the model in their titles instead of the report's name
/// (--title). Precondition: r has RoPE diagnostics (not a learned table).
inline std::vector<SvgFile> render_svgs(const Report& r, const std::string& title = "")
{
    if (!title.empty()) {
        Report named = r;
        named.name = title;
        return render_svgs(named);
    }
    std::vector<SvgFile> files {turns_chart(r), compression_chart(r), roformer_chart(r)};
    if (!r.compared.empty()) files.push_back(compare_chart(r));
    return files;
}

}  // namespace inspect
