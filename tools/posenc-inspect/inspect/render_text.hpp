// SPDX-License-Identifier: MIT
// render_text.hpp: the report as a terminal table, at most 80 columns wide. Every text that
// comes from a config (the model name) is made terminal-safe (format.hpp printable) and cut
// with "..." where it would not fit.
//
//   header   model; with several groups or NoPE layers, the layer map and one summary per group
//   group    dims, base, pairing, scaling and its parameters, L and L', multipliers
//   table    one line per pair, every column named after the frequency it uses:
//              original theta_i:  theta_i, turns in L, turn (a full turn within L)
//              scaled theta'_i:   theta'_i, period'_i = 2 pi / theta'_i, out (at L'),
//                                 theta'/theta (the compression)
//   counts   incomplete, out-of-range and compressed pairs with their indices
//   bound    the RoFormer bound U(r) at r = 1, 10, 100, ... and where it first drops below U(0)/2
// With --compare: one column of theta'/theta per scaling (a '*' marks out of range) instead.
#pragma once

#include <posenc/scaling/scaling.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "inspect/format.hpp"
#include "inspect/report.hpp"

namespace inspect {

namespace detail {

/// "factor 4," "beta_fast 32," ... for the header (lists shortened to their size and ends).
inline std::vector<std::string> parameter_words(const posenc::Scaling& scaling)
{
    std::vector<std::string> words {std::string(posenc::scaling_type_name(scaling)) + ":"};
    const auto params = posenc::scaling_parameters(scaling);
    if (params.empty()) words.back() = "none (direct extrapolation)";
    for (std::size_t i = 0; i < params.size(); ++i) {
        const std::string sep = i + 1 < params.size() ? "," : "";
        const std::string value = std::visit(
            [](const auto& v) -> std::string {
                using T = std::decay_t<decltype(v)>;
                if constexpr (std::is_same_v<T, bool>) return v ? "true" : "false";
                else if constexpr (std::is_same_v<T, std::int64_t>) return std::to_string(v);
                else if constexpr (std::is_same_v<T, double>) return number_text(v);
                else
                    // A list's first and last values, at 6 significant digits (a summary: the
                    // JSON and CSV carry every value at full precision).
                    return "[" + std::to_string(v.size()) + " values: " + (v.empty() ? "" : summary_number(v.front())) +
                           " .. " + (v.empty() ? "" : summary_number(v.back())) + "]";
            },
            params[i].value);
        words.push_back(params[i].name);
        for (const std::string& w : split_words(value + sep)) words.push_back(w);
    }
    return words;
}

/// "yarn x4" / "direct extrapolation" / "longrope x32".
inline std::string scaling_label(const posenc::Scaling& scaling)
{
    const std::string type = posenc::scaling_type_name(scaling);
    if (type == "none") return "direct extrapolation (no scaling)";
    return type + " x" + number_text(posenc::scaling_factor(scaling));
}

inline std::string compression_text(double c)
{
    char buffer[40];
    const bool plain = c >= 1e-3 && c < 1e4;
    std::snprintf(buffer, sizeof buffer, plain ? "%.6f" : "%.4e", c);
    return buffer;
}

/// The name of the M-RoPE axis `axis`.
inline const char* axis_name(int axis)
{
    static const char* names[] = {"temporal", "height", "width"};
    return axis >= 0 && axis < 3 ? names[axis] : "axis";
}

/// "temporal pairs 0-15, height pairs 16-39, width pairs 40-63".
inline std::string axis_summary(const std::vector<int>& pair_axis)
{
    std::string out;
    for (int axis = 0; axis < 3; ++axis) {
        std::vector<int> pairs;
        for (std::size_t i = 0; i < pair_axis.size(); ++i)
            if (pair_axis[i] == axis) pairs.push_back(static_cast<int>(i));
        out += (axis ? "; " : "") + std::string(axis_name(axis)) + " pairs " + index_ranges(pairs);
    }
    return out;
}

/// The group's header lines: dims, scaling, lengths, multipliers.
inline std::string group_header(const GroupReport& g)
{
    const posenc::ExtensionDiagnostics& d = g.diagnostics;
    std::string out;
    out += wrap("  rotary      ", "              ",
                split_words("head_dim " + std::to_string(d.head_dim) + ", rotary_dim " + std::to_string(d.rotary_dim) +
                            (g.rotary_offset > 0 ? " at offset " + std::to_string(g.rotary_offset) : std::string()) +
                            " (" + std::to_string(d.summary.pairs) + " pairs" +
                            (g.zero_freq_pairs() > 0
                                 ? ", " + std::to_string(d.summary.pairs - g.zero_freq_pairs()) + " rotated, " +
                                       std::to_string(g.zero_freq_pairs()) + " with frequency 0"
                                 : std::string()) +
                            "), base " + number_text(d.base) + ", " + posenc::to_string(d.pairing) +
                            (g.inverse_rope_on_output ? ", output rotated back" : "")));
    out += wrap("  scaling     ", "              ", parameter_words(g.scaling));
    out += wrap("  lengths     ", "              ",
                split_words("original L = " + std::to_string(d.training_length) +
                            ", target L' = " + std::to_string(d.target_length)));
    out += wrap("  multipliers ", "              ",
                split_words("cos/sin x " + number_text(d.attention_factor) + ", softmax scale x " +
                            number_text(d.softmax_scale_multiplier)));
    return out;
}

inline std::string which(const std::vector<int>& indices)
{
    return indices.empty() ? std::string(".") : " (pairs " + index_ranges(indices) + ").";
}

inline std::vector<int> incomplete_indices(const posenc::ExtensionDiagnostics& d)
{
    std::vector<int> out;
    for (const posenc::PairDiagnostics& p : d.pairs)
        if (!p.completes_turn) out.push_back(p.index);
    return out;
}

inline std::string count_of(int n, int of) { return std::to_string(n) + " of " + std::to_string(of); }

/// The pair table and the counts of one group; `reach` (M-RoPE with height and width axes):
/// turns counted over each pair's axis reach instead of L.
inline std::string pair_table(const posenc::ExtensionDiagnostics& d, const AxisReach* reach = nullptr)
{
    std::string out;
    char line[200];
    std::snprintf(line, sizeof line, "\n%5s  %-30s| %s\n", "", "original frequency theta_i",
                  "scaled frequency theta'_i at L'");
    out += line;
    std::snprintf(line, sizeof line, "%5s  %10s  %10s  %-4s  | %10s  %10s  %-3s  %12s\n", "pair", "theta_i",
                  reach ? "axis turns" : "turns in L", "turn", "theta'_i", "period'_i", "out", "theta'/theta");
    out += line;
    for (const posenc::PairDiagnostics& p : d.pairs) {
        const double turns = reach ? reach->turns(p) : p.turns_original;
        const bool completes = reach ? turns >= 1.0 : p.completes_turn;
        std::snprintf(line, sizeof line, "%5d  %10s  %10.5g  %-4s  | %10s  %10.5g  %-3s  %12s\n", p.index,
                      scientific(p.inv_freq_original).c_str(), turns, completes ? "yes" : "no",
                      scientific(p.inv_freq).c_str(), p.period, p.out_of_range ? "OUT" : "-",
                      compression_text(p.compression).c_str());
        out += line;
    }
    out += "\n";
    const std::string turns_words =
        reach ? "axis turns = reach theta_i / 2 pi, the reach of the pair's axis (above); turn: at least one full "
                "turn within it. "
              : "turns in L = L theta_i / 2 pi; turn: at least one full turn within L. ";
    out += wrap("", "",
                split_words("theta_i = base^(-2i/R) rad/token, the trained frequency; " + turns_words +
                            "theta'_i: the frequency in effect at L'; "
                            "period'_i = 2 pi / theta'_i tokens; out: out of range at L' (a pair that never completed "
                            "a turn in training driven to angles it never saw); theta'/theta: the compression."));
    out += "\n";
    out += wrap("", "  ",
                split_words(count_of(d.summary.incomplete_pairs, d.summary.pairs) +
                            " pairs never complete a turn within L = " + std::to_string(d.training_length) +
                            which(incomplete_indices(d))));
    if (reach) {
        const std::vector<int> short_of_reach = reach->incomplete(d);
        out += wrap("", "  ",
                    split_words(count_of(static_cast<int>(short_of_reach.size()), d.summary.pairs) +
                                " pairs never complete a turn within their axis's reach" + which(short_of_reach)));
    }
    out += wrap("", "  ",
                split_words(count_of(d.summary.out_of_range_pairs, d.summary.pairs) +
                            " pairs are out of range at L' = " + std::to_string(d.target_length) +
                            which(d.out_of_range_indices())));
    out += wrap("", "  ",
                split_words(count_of(d.summary.compressed_pairs, d.summary.pairs) + " pairs are compressed" +
                            which(d.compressed_indices())));
    return out;
}

/// The layer map: which layers use which group, which use none.
inline std::string layer_map(const Report& r)
{
    std::string out;
    std::vector<std::string> words;
    for (const std::string& w :
         split_words(r.num_layers ? std::to_string(*r.num_layers) + " layers:" : std::string("(count unknown):")))
        words.push_back(w);
    for (std::size_t g = 0; g < r.groups.size(); ++g) {
        words.push_back(printable(r.groups[g].name));
        for (const std::string& w : split_words(
                 (r.groups[g].layers.empty() ? std::string("every layer") : index_ranges(r.groups[g].layers)) + ";"))
            words.push_back(w);
    }
    for (const std::string& w : split_words("without RoPE: " + index_ranges(r.nope_layers))) words.push_back(w);
    return wrap("  layers      ", "              ", words);
}

/// The RoFormer numbers behind roformer_bound.svg.
inline std::string bound_text(const BoundReport& b)
{
    std::string out = "\n";
    out += wrap("", "  ",
                split_words("RoFormer bound U(r) = (1/P) sum_j |S_j(r)| for P = " + std::to_string(b.pairs) +
                            " pairs (roformer_bound.svg): U(0) = " + number_text(b.start) + ", U(0)/2 = " +
                            number_text(b.start / 2) + "; first below: the smallest r with U(r) < U(0)/2."));
    char cell[64];
    std::string head = "            r";
    for (const BoundSeries& s : b.series) {
        const std::string label = "base " + number_text(s.base);
        std::snprintf(cell, sizeof cell, "  %14s", label.size() <= 14 ? label.c_str() : scientific(s.base).c_str());
        head += cell;
    }
    out += head + "\n";
    for (std::size_t k = 0; k < b.decades.size(); ++k) {
        std::snprintf(cell, sizeof cell, "%13.0f", b.decades[k]);
        std::string row = cell;
        for (const BoundSeries& s : b.series) {
            std::snprintf(cell, sizeof cell, "  %14.6f", s.decade_values[k]);
            row += cell;
        }
        while (!row.empty() && row.back() == ' ') row.pop_back();  // no trailing space ('*' absent)
        out += row + "\n";
    }
    std::string row = "  first below";
    for (const BoundSeries& s : b.series) {
        const std::string v = s.first_below_half ? std::to_string(*s.first_below_half) : std::string("not found");
        std::snprintf(cell, sizeof cell, "  %14s", v.c_str());
        row += cell;
    }
    return out + row + "\n";
}

/// --compare: theta'/theta of each scaling side by side ('*' = out of range at L').
inline std::string compare_table(const Report& r)
{
    std::string out;
    char cell[64];
    const AxisReach* reach = r.axis_reach ? &*r.axis_reach : nullptr;
    std::string head = reach ? "\n pair  axis turns" : "\n pair  turns in L";
    for (const GroupReport& g : r.compared) {
        std::snprintf(cell, sizeof cell, " %9s", g.name.substr(0, 9).c_str());
        head += cell;
    }
    out += head + "\n";
    const std::size_t pairs = r.compared.front().diagnostics.pairs.size();
    for (std::size_t i = 0; i < pairs; ++i) {
        const posenc::PairDiagnostics& first = r.compared.front().diagnostics.pairs[i];
        std::snprintf(cell, sizeof cell, "%5d  %10.5g", first.index,
                      reach ? reach->turns(first) : first.turns_original);
        std::string row = cell;
        for (const GroupReport& g : r.compared) {
            const posenc::PairDiagnostics& p = g.diagnostics.pairs[i];
            std::string c = compression_text(p.compression);
            if (c.size() > 8) c = scientific(p.compression).substr(0, 8);
            std::snprintf(cell, sizeof cell, " %8s%s", c.c_str(), p.out_of_range ? "*" : " ");
            row += cell;
        }
        while (!row.empty() && row.back() == ' ') row.pop_back();  // no trailing space ('*' absent)
        out += row + "\n";
    }
    out += "\n";
    out += wrap(
        "", "",
        split_words("Each column: theta'_i / theta_i under that scaling at L' = " +
                    std::to_string(r.compared.front().diagnostics.target_length) + "; * = out of range at L'. " +
                    (reach ? "axis turns (reach theta_i / 2 pi) use" : "turns in L uses") + " the original theta_i."));
    out += "\n";
    for (const GroupReport& g : r.compared) {
        const posenc::ExtensionDiagnostics& d = g.diagnostics;
        out += wrap(
            "", "  ",
            split_words(
                scaling_label(g.scaling) + ": " + count_of(d.summary.out_of_range_pairs, d.summary.pairs) +
                " out of range" +
                (d.out_of_range_indices().empty() ? "" : " (pairs " + index_ranges(d.out_of_range_indices()) + ")") +
                ", " + std::to_string(d.summary.compressed_pairs) + " compressed, cos/sin x " +
                number_text(d.attention_factor) + "."));
    }
    return out;
}

}  // namespace detail

/// The report as text; every line fits text_width columns for any pair count and any name.
inline std::string render_text(const Report& r)
{
    using detail::number_text;
    using detail::wrap;
    std::string out = detail::cut(detail::printable(r.name), text_width) + "\n";
    if (r.learned_table) {
        const LearnedTable& t = *r.learned_table;
        out += wrap("  position    ", "              ",
                    detail::split_words("learned absolute table of " + std::to_string(t.positions) + " rows x " +
                                        std::to_string(t.width) + " = " + std::to_string(t.parameters()) +
                                        " parameters; no row for position " + std::to_string(t.positions) +
                                        " or beyond. No RoPE to inspect."));
        return out;
    }
    const bool several = r.groups.size() > 1 || !r.nope_layers.empty();
    if (several || r.num_layers) out += detail::layer_map(r);
    if (r.mrope_section) {
        std::string sections;
        for (std::size_t i = 0; i < r.mrope_section->size(); ++i)
            sections += (i ? ", " : "") + std::to_string((*r.mrope_section)[i]);
        out += wrap("  M-RoPE      ", "              ",
                    detail::split_words(std::string(r.mrope_interleaved ? "interleaved" : "sections") + " [" +
                                        sections + "]: " + detail::axis_summary(r.pair_axis)));
    }
    if (r.axis_reach)
        out += wrap("  reach       ", "              ", detail::split_words(reach_summary(*r.axis_reach)));
    else if (!r.multi_axis_kind.empty() && r.multi_axis_kind != "single")
        out +=
            wrap("  reach       ", "              ",
                 detail::split_words("every pair's turns are counted over L: posenc does not know which axes of the " +
                                     r.multi_axis_kind + " layout are image rows and columns."));
    for (const std::string& note : r.notes)
        out += wrap("  note        ", "              ", detail::split_words(detail::printable(note)));
    if (several) {
        for (std::size_t g = 0; g < r.groups.size(); ++g) {
            const GroupReport& group = r.groups[g];
            const posenc::ExtensionDiagnostics& d = group.diagnostics;
            out += "\n";
            out += wrap(
                "group ", "  ",
                detail::split_words(detail::printable(group.name) + " (layers " +
                                    (group.layers.empty() ? std::string("all") : detail::index_ranges(group.layers)) +
                                    ")" + (g == r.focus ? ", shown in full below:" : ":") + " " +
                                    detail::count_of(d.summary.out_of_range_pairs, d.summary.pairs) +
                                    " pairs out of range at L' = " + std::to_string(d.target_length) + ", " +
                                    std::to_string(d.summary.compressed_pairs) + " compressed."));
            out += detail::group_header(group);
        }
        out += "\n" + wrap("", "  ",
                           detail::split_words("Pair table of group " + detail::printable(r.groups[r.focus].name) +
                                               " (--layer N shows another layer's group):"));
    } else {
        out += detail::group_header(r.groups[r.focus]);
    }
    if (!r.compared.empty()) {
        out += detail::compare_table(r);
    } else {
        out += detail::pair_table(r.diagnostics, r.axis_reach ? &*r.axis_reach : nullptr);
    }
    out += detail::bound_text(r.bound);
    return out;
}

}  // namespace inspect
