// SPDX-License-Identifier: MIT
// render_svg.hpp: the report as three standalone SVG charts (svg_chart.hpp).
//
//   turns.svg           turns of each pair within L on a log axis, with the one-turn line; bars of
//                       the pairs out of range at L' in red (class "bar out-of-range"), pairs that
//                       never turn but stay in range in light blue ("bar incomplete"), the rest
//                       in blue ("bar") -- lesson C2-5's chart
//   compression.svg     theta'_i / theta_i per pair ("bar compressed" below 1 - 1e-9, else "bar")
//   roformer_bound.svg  RoFormer's relative upper bound U(r) (Su et al. 2021 eq. 37) over distances
//                       1 .. L' (log axis) for the model's base and two others (base / 100 and
//                       base x 10 where valid), all with the model's pair count
#pragma once

#include <posenc/analysis/roformer_bound.hpp>
#include <posenc/frequencies.hpp>
#include <posenc/scaling/scaling.hpp>
#include <posenc/spec.hpp>

#include <cmath>
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

/// Colours and classes of the turns chart's bars.
inline constexpr const char* color_complete = "#4e79a7";
inline constexpr const char* color_incomplete = "#a0cbe8";
inline constexpr const char* color_out_of_range = "#d62728";

/// Number of distances sampled on the RoFormer curve.
inline constexpr int roformer_samples = 240;

namespace detail {

/// "yarn x4" / "none" / "longrope x32".
inline std::string scaling_label(const posenc::Scaling& scaling)
{
    const std::string type = posenc::scaling_type_name(scaling);
    if (type == "none") return "direct extrapolation (no scaling)";
    return type + " x" + number_text(posenc::scaling_factor(scaling));
}

/// `name` cut to `width` characters ("..." marks the cut), for titles and legends.
inline std::string short_name(const std::string& name, std::size_t width)
{
    if (name.size() <= width) return name;
    std::size_t cut = width - 3;
    while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 sequence
    return name.substr(0, cut) + "...";
}

/// The two comparison bases: base / 100 and base x 10, replaced by base x 100 and base / 10
/// where one is not a valid base (finite, > 1).
inline std::vector<double> comparison_bases(double base)
{
    std::vector<double> out;
    for (double candidate : {base / 100.0, base * 10.0, base * 100.0, base / 10.0})
        if (out.size() < 2 && std::isfinite(candidate) && candidate > 1.0) out.push_back(candidate);
    return out;
}

}  // namespace detail

/// The turns chart.
inline SvgFile turns_chart(const Report& r)
{
    const posenc::ExtensionDiagnostics& d = r.diagnostics;
    BarChart c;
    c.title = detail::short_name(r.name, 40) + ": turns of each pair within L = " + std::to_string(d.training_length);
    c.subtitle = detail::scaling_label(r.scaling) + " at L' = " + std::to_string(d.target_length) + ": " +
                 std::to_string(d.summary.out_of_range_pairs) + " of " + std::to_string(d.summary.pairs) +
                 " pairs out of range (red)";
    c.x_label = "pair i";
    c.y_label = "turns L theta_i / 2 pi (log)";
    c.log_y = true;
    c.reference_line = 1.0;
    c.reference_label = "1 turn";
    for (const posenc::PairDiagnostics& p : d.pairs) {
        c.values.push_back(p.turns_original);
        if (p.out_of_range) {
            c.classes.push_back("bar out-of-range");
            c.colors.push_back(color_out_of_range);
        } else if (!p.completes_turn) {
            c.classes.push_back("bar incomplete");
            c.colors.push_back(color_incomplete);
        } else {
            c.classes.push_back("bar");
            c.colors.push_back(color_complete);
        }
    }
    c.legend = {{color_complete, "completes a turn within L"},
                {color_incomplete, "no full turn, in range at L'"},
                {color_out_of_range, "out of range at L'"}};
    return {"turns.svg", render(c)};
}

/// The compression chart.
inline SvgFile compression_chart(const Report& r)
{
    const posenc::ExtensionDiagnostics& d = r.diagnostics;
    BarChart c;
    c.title = detail::short_name(r.name, 40) + ": compression theta'_i / theta_i per pair";
    c.subtitle = detail::scaling_label(r.scaling) + " at L' = " + std::to_string(d.target_length) + ": " +
                 std::to_string(d.summary.compressed_pairs) + " of " + std::to_string(d.summary.pairs) +
                 " pairs compressed";
    c.x_label = "pair i";
    c.y_label = "theta'_i / theta_i";
    c.reference_line = 1.0;
    c.reference_label = "1 = untouched";
    for (const posenc::PairDiagnostics& p : d.pairs) {
        c.values.push_back(p.compression);
        c.classes.push_back(p.compressed ? "bar compressed" : "bar");
        c.colors.push_back(p.compressed ? "#f28e2b" : color_complete);
    }
    c.legend = {{color_complete, "untouched"}, {"#f28e2b", "compressed"}};
    return {"compression.svg", render(c)};
}

/// The RoFormer decay-bound chart.
inline SvgFile roformer_chart(const Report& r)
{
    const posenc::ExtensionDiagnostics& d = r.diagnostics;
    LineChart c;
    c.title = "RoFormer relative upper bound U(r), " + std::to_string(d.summary.pairs) + " pairs";
    c.subtitle = "(1/P) sum_j |S_j(r)|, Su et al. 2021 eq. 37; larger bases decay later";
    c.x_label = "relative distance r (tokens, log)";
    c.y_label = "U(r)";
    c.log_x = true;
    const double last = static_cast<double>(d.target_length > 1 ? d.target_length : 2);
    std::vector<double> distances;
    for (int k = 0; k < roformer_samples; ++k)
        distances.push_back(std::pow(last, static_cast<double>(k) / (roformer_samples - 1)));
    std::vector<double> bases{d.base};
    for (double b : detail::comparison_bases(d.base)) bases.push_back(b);
    const char* colors[] = {"#d62728", "#4e79a7", "#59a14f"};
    for (std::size_t i = 0; i < bases.size(); ++i) {
        const posenc::FrequencyTable table =
            posenc::FrequencyTable::from_spec(posenc::RopeSpec(d.rotary_dim, d.rotary_dim, bases[i]));
        Series s;
        s.label = "base " + detail::number_text(bases[i]) + (i == 0 ? " (" + detail::short_name(r.name, 16) + ")" : "");
        s.color = colors[i];
        for (double distance : distances) {
            s.x.push_back(distance);
            s.y.push_back(posenc::roformer_relative_bound(table, distance));
        }
        c.series.push_back(std::move(s));
    }
    return {"roformer_bound.svg", render(c)};
}

/// The three charts. Precondition: r has RoPE diagnostics (not a learned table).
inline std::vector<SvgFile> render_svgs(const Report& r)
{
    return {turns_chart(r), compression_chart(r), roformer_chart(r)};
}

}  // namespace inspect
