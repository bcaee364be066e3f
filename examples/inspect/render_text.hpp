// SPDX-License-Identifier: MIT
// render_text.hpp: the report as a terminal table, at most 80 columns wide.
//
//   header   model, dims, base, pairing, scaling and its parameters, L and L', multipliers
//   table    one line per pair: index, inv_freq (original and scaled), period (scaled),
//            turns within L, completes a turn, out of range at L', compression
//   counts   incomplete, out-of-range and compressed pairs with their indices
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
    std::vector<std::string> words{std::string(posenc::scaling_type_name(scaling)) + ":"};
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
                    return "[" + std::to_string(v.size()) + " values: " + (v.empty() ? "" : number_text(v.front())) +
                           " .. " + (v.empty() ? "" : number_text(v.back())) + "]";
            },
            params[i].value);
        words.push_back(params[i].name);
        for (const std::string& w : split_words(value + sep)) words.push_back(w);
    }
    return words;
}

}  // namespace detail

/// The report as text; every line fits text_width columns for any pair count.
inline std::string render_text(const Report& r)
{
    using detail::number_text;
    using detail::wrap;
    std::string out = r.name + "\n";
    if (r.learned_table) {
        const LearnedTable& t = *r.learned_table;
        out += wrap("  position    ", "              ",
                    detail::split_words("learned absolute table of " + std::to_string(t.positions) + " rows x " +
                                        std::to_string(t.width) + " = " + std::to_string(t.parameters()) +
                                        " parameters; no row for position " + std::to_string(t.positions) +
                                        " or beyond. No RoPE to inspect."));
        return out;
    }
    const posenc::ExtensionDiagnostics& d = r.diagnostics;
    out += wrap("  rotary      ", "              ",
                detail::split_words("head_dim " + std::to_string(d.head_dim) + ", rotary_dim " +
                                    std::to_string(d.rotary_dim) + " (" + std::to_string(d.summary.pairs) +
                                    " pairs), base " + number_text(d.base) + ", " + posenc::to_string(d.pairing)));
    out += wrap("  scaling     ", "              ", detail::parameter_words(r.scaling));
    out += wrap("  lengths     ", "              ",
                detail::split_words("original L = " + std::to_string(d.training_length) + ", target L' = " +
                                    std::to_string(d.target_length)));
    out += wrap("  multipliers ", "              ",
                detail::split_words("cos/sin x " + number_text(d.attention_factor) + ", softmax scale x " +
                                    number_text(d.softmax_scale_multiplier)));
    for (const std::string& note : r.notes) out += wrap("  note        ", "              ", detail::split_words(note));

    char line[160];
    std::snprintf(line, sizeof line, "\n%5s  %10s  %10s  %11s  %11s  %-4s  %-3s  %11s\n", "pair", "inv_freq", "scaled",
                  "period", "turns in L", "turn", "out", "compression");
    out += line;
    for (const posenc::PairDiagnostics& p : d.pairs) {
        char compression[40];
        const bool plain = p.compression >= 1e-3 && p.compression < 1e4;
        std::snprintf(compression, sizeof compression, plain ? "%.6f" : "%.4e", p.compression);
        std::snprintf(line, sizeof line, "%5d  %10s  %10s  %11.5g  %11.5g  %-4s  %-3s  %11s\n", p.index,
                      detail::scientific(p.inv_freq_original).c_str(), detail::scientific(p.inv_freq).c_str(),
                      p.period, p.turns_original, p.completes_turn ? "yes" : "no", p.out_of_range ? "OUT" : "-",
                      compression);
        out += line;
    }
    out += "\n";
    out += wrap("", "", detail::split_words(
                            "inv_freq: theta_i = base^(-2i/R) rad/token; scaled: theta'_i in effect at L'; period: "
                            "2 pi / theta'_i tokens; turns in L: L theta_i / 2 pi; turn: at least one full turn "
                            "within L; out: out of range at L' (a pair that never completed a turn in training "
                            "driven to angles it never saw); compression: theta'_i / theta_i."));
    std::vector<int> incomplete;
    for (const posenc::PairDiagnostics& p : d.pairs)
        if (!p.completes_turn) incomplete.push_back(p.index);
    const auto count = [](int n, int of) { return std::to_string(n) + " of " + std::to_string(of); };
    out += "\n";
    const auto which = [](const std::vector<int>& indices) {
        return indices.empty() ? std::string(".") : " (pairs " + detail::index_ranges(indices) + ").";
    };
    out += wrap("", "  ", detail::split_words(count(d.summary.incomplete_pairs, d.summary.pairs) +
                                              " pairs never complete a turn within L = " +
                                              std::to_string(d.training_length) + which(incomplete)));
    out += wrap("", "  ", detail::split_words(count(d.summary.out_of_range_pairs, d.summary.pairs) +
                                              " pairs are out of range at L' = " + std::to_string(d.target_length) +
                                              which(d.out_of_range_indices())));
    out += wrap("", "  ", detail::split_words(count(d.summary.compressed_pairs, d.summary.pairs) +
                                              " pairs are compressed" + which(d.compressed_indices())));
    return out;
}

}  // namespace inspect
