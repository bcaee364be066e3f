// SPDX-License-Identifier: MIT
// posenc/analysis/diagnostics.hpp: what a context extension does to each pair, as data
// (the widget of lesson C2-5, docs/lessons.md, "直接外推 / PI / NTK-aware / YaRN").
//
// For a spec, a scaling, a training length L and a target length L' (tokens), per pair i:
//   inv_freq_original  theta_i = base^(-2i/R)             inv_freq   theta'_i (the scaled table at L')
//   period_original    2 pi / theta_i                     period     2 pi / theta'_i
//   turns_original     L theta_i / 2 pi                   completes_turn   turns_original >= 1
//   max_angle_training L theta_i    (the largest angle pair i saw in training, treating L as the
//                                    farthest position, as the lesson does: PI's m/s maps L' onto L)
//   max_angle_target   L' theta'_i  (the largest angle at the target length)
//   out_of_range       !completes_turn && max_angle_target > max_angle_training (1 + 1e-9):
//                      a pair that saw only an arc of the circle in training is driven past it.
//                      The relative tolerance makes exact boundaries (PI, the slowest NTK pair,
//                      YaRN's fully interpolated pairs) count as in range.
//   compression        theta'_i / theta_i  (1 = untouched, 1/s = PI; 0 / 0 = 1);  compressed: < 1 - 1e-9
// and the counts. Dynamic NTK and LongRoPE are evaluated with the table in effect at L'.
// Pairs of frequency 0 in the scaled table (proportional RoPE's unrotated pairs,
// scaling/proportional.hpp) are marked zero_freq: period infinite, no turns, never out of range,
// not counted as compressed or incomplete (they do not rotate at all; summary.zero_freq_pairs
// counts them). For proportional RoPE the original table is the proportional table with factor 1,
// so its zero pairs are structural (compression 1), and only `factor` compresses.
// All values are double, exact mode; a consumer can print or serialise the structs field by field.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/frequencies.hpp"
#include "posenc/scaling/scaling.hpp"
#include "posenc/spec.hpp"

namespace posenc {

/// Relative tolerance of the out-of-range and compressed tests (exact boundaries stay in range).
inline constexpr double diagnostics_relative_tolerance = 1e-9;

/// One pair's numbers; see the file comment for each field's formula.
struct PairDiagnostics {
    int index;
    double inv_freq_original;
    double inv_freq;
    double period_original;
    double period;
    double turns_original;
    bool completes_turn;
    double max_angle_training;
    double max_angle_target;
    bool out_of_range;
    double compression;
    bool compressed;
    bool zero_freq;  ///< inv_freq == 0: the pair does not rotate (no turns, never out of range)
};

/// The counts over all pairs.
struct DiagnosticsSummary {
    int pairs;  ///< R / 2
    int incomplete_pairs;  ///< pairs that never complete a turn within L
    int out_of_range_pairs;  ///< pairs out of range at L'
    int compressed_pairs;  ///< pairs with compression < 1 - 1e-9
    int zero_freq_pairs;  ///< pairs of frequency 0 at L' (not counted above)
};

/// The whole widget for one (spec, scaling, L, L').
struct ExtensionDiagnostics {
    std::string scaling_type;  ///< scaling_type_name: "none", "linear", ...
    int head_dim;
    int rotary_dim;
    double base;
    Pairing pairing;
    std::int64_t training_length;  ///< L
    std::int64_t target_length;  ///< L'
    double attention_factor;  ///< multiplies cos and sin at L'
    double softmax_scale_multiplier;  ///< outside cos/sin (DeepSeek); 1 otherwise
    std::vector<PairDiagnostics> pairs;
    DiagnosticsSummary summary;

    /// Indices of the pairs out of range at L', ascending.
    std::vector<int> out_of_range_indices() const
    {
        std::vector<int> out;
        for (const PairDiagnostics& p : pairs)
            if (p.out_of_range) out.push_back(p.index);
        return out;
    }
    /// Indices of the compressed pairs, ascending.
    std::vector<int> compressed_indices() const
    {
        std::vector<int> out;
        for (const PairDiagnostics& p : pairs)
            if (p.compressed) out.push_back(p.index);
        return out;
    }
};

/// Per-pair diagnostics of an original and a scaled table with the same pair count (the general
/// form: any two tables). Fills everything except the spec and scaling fields (scaling_type
/// "custom", dims 0, base 0, softmax multiplier 1). Throws posenc::error if the pair counts differ
/// or a length is <= 0.
inline ExtensionDiagnostics diagnose_tables(const FrequencyTable& original, const FrequencyTable& scaled,
                                            std::int64_t training_length, std::int64_t target_length)
{
    detail::require(training_length > 0, "training_length", training_length, "must be > 0");
    detail::require(target_length > 0, "target_length", target_length, "must be > 0");
    if (scaled.num_pairs() != original.num_pairs())
        detail::raise("scaled.num_pairs", scaled.num_pairs(),
                      "must equal original.num_pairs " + std::to_string(original.num_pairs()));
    // The pairs vector sized up front, not grown: fewer vector members for every includer to compile.
    ExtensionDiagnostics d {"custom",
                            0,
                            0,
                            0.0,
                            Pairing::half_split,
                            training_length,
                            target_length,
                            scaled.attention_factor(),
                            1.0,
                            std::vector<PairDiagnostics>(static_cast<std::size_t>(original.num_pairs())),
                            {original.num_pairs(), 0, 0, 0, 0}};
    const double L = static_cast<double>(training_length);
    const double target = static_cast<double>(target_length);
    for (int i = 0; i < original.num_pairs(); ++i) {
        PairDiagnostics& p = d.pairs[static_cast<std::size_t>(i)];
        p.index = i;
        p.inv_freq_original = original.inv_freq(i);
        p.inv_freq = scaled.inv_freq(i);
        p.period_original = original.period(i);
        p.period = scaled.period(i);
        p.turns_original = original.turns(i, L);
        p.completes_turn = p.turns_original >= 1.0;
        p.max_angle_training = L * p.inv_freq_original;
        p.max_angle_target = target * p.inv_freq;
        p.out_of_range =
            !p.completes_turn && p.max_angle_target > p.max_angle_training * (1.0 + diagnostics_relative_tolerance);
        p.zero_freq = p.inv_freq == 0.0;
        // 0 / 0 (a structural zero pair) is untouched: 1; x / 0 (a pair that starts to rotate): inf.
        if (p.inv_freq_original != 0.0) p.compression = p.inv_freq / p.inv_freq_original;
        else p.compression = p.zero_freq ? 1.0 : std::numeric_limits<double>::infinity();
        p.compressed = !p.zero_freq && p.compression < 1.0 - diagnostics_relative_tolerance;
        d.summary.incomplete_pairs += p.completes_turn || p.zero_freq ? 0 : 1;
        d.summary.out_of_range_pairs += p.out_of_range ? 1 : 0;
        d.summary.compressed_pairs += p.compressed ? 1 : 0;
        d.summary.zero_freq_pairs += p.zero_freq ? 1 : 0;
    }
    return d;
}

/// The lesson's widget: `spec` trained on `training_length` tokens, run at `target_length` under
/// `scaling` (dynamic NTK and LongRoPE with their table at target_length). Exact (double) tables.
/// Qwen3-8B x4 (32,768 -> 131,072): none 24 out of range; linear 0; ntk_aware 23 (pairs 40-62);
/// yarn 0. Throws posenc::error for lengths <= 0 and as frequency_table.
inline ExtensionDiagnostics extension_diagnostics(const RopeSpec& spec, const Scaling& scaling,
                                                  std::int64_t training_length, std::int64_t target_length)
{
    detail::require(training_length > 0, "training_length", training_length, "must be > 0");
    detail::require(target_length > 0, "target_length", target_length, "must be > 0");
    const auto* proportional = std::get_if<ProportionalScaling>(&scaling);
    const FrequencyTable original =
        proportional ? frequency_table(spec, ProportionalScaling(proportional->partial_rotary_factor()))
                     : FrequencyTable::from_spec(spec);
    ExtensionDiagnostics d =
        diagnose_tables(original, frequency_table(spec, scaling, target_length), training_length, target_length);
    d.scaling_type = scaling_type_name(scaling);
    d.head_dim = spec.head_dim();
    d.rotary_dim = spec.rotary_dim();
    d.base = spec.base();
    d.pairing = spec.pairing();
    d.softmax_scale_multiplier = softmax_scale_multiplier(scaling);
    return d;
}

}  // namespace posenc
