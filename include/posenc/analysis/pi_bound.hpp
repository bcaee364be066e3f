// SPDX-License-Identifier: MIT
// posenc/analysis/pi_bound.hpp: Position Interpolation's bound against RoFormer's extrapolation bound.
//
// Source: Chen et al. 2023, arXiv 2306.15595, section 2.3, Theorem 2.1, eqs. 5-8; proof in
// Appendix A, eqs. 9-17; the "~600x" claim in the abstract and end of section 2.3
// (docs/formulas.md P2). All bounds are in units of max_j |h_j| (the content factor).
//
// Interpolation (Theorem 2.1, as printed): for s in [s1, s2],
//   |a(s) - a_linear(s)| <= d (s - s1)(s2 - s) / (8 ln c)                           (eq. 5)
// and on an integer grid ((s - s1)(s2 - s) <= 1/4) the coefficient d / (32 ln c)    (eq. 7).
// The proof's eq. 14 uses c^x <= 1 + x ln c for x < 0, which is backwards (c^x is convex), so
// d / (4 ln c) is a LOWER bound on sum_j theta_j^2. The valid form (docs/formulas.md P2):
//   |a(s) - a_linear(s)| <= sum_j theta_j^2 (s - s1)(s2 - s) / 2,
//   sum_j theta_j^2 = (1 - c^-2) / (1 - c^(-4/d)),   grid coefficient sum_j theta_j^2 / 8.
// d = 128, c = 1e4: paper 0.434294, corrected 0.499789 (x 1.151).
//
// Extrapolation (eq. 8): |a(s)| <= 2 B(s), B(s) = sum_{k=1..d/2} |A_k(s)| (= P U(s), roformer_bound.hpp).
// The ratio of the two bounds is 2 B(s) / coefficient = 64 ln c B(s) / d with the paper's
// coefficient: >= 589.46 ("about 600x") whenever B(s) >= d, which holds for d = 128 on
// s in [0, 4096] (min B/d = 1.1159 at s = 3643: ratio >= 658; corrected coefficient: >= 572) but
// fails for d = 64 (min B/d = 0.628).
#pragma once

#include <cmath>
#include <cstdint>

#include "posenc/analysis/roformer_bound.hpp"
#include "posenc/error.hpp"
#include "posenc/frequencies.hpp"
#include "posenc/spec.hpp"

namespace posenc {

/// Which interpolation coefficient: Theorem 2.1 as printed, or with the proof's inequality fixed.
enum class PiCoefficient { paper, corrected };

namespace detail {
/// Throws posenc::error unless `which` is one of the named enumerators (a value cast from another
/// integer would otherwise act as PiCoefficient::corrected).
inline void require_pi_coefficient(PiCoefficient which)
{
    if (which != PiCoefficient::paper && which != PiCoefficient::corrected)
        raise("which", static_cast<int>(which), "must be PiCoefficient::paper or PiCoefficient::corrected");
}
}  // namespace detail

/// Integer-grid interpolation coefficient: paper d / (32 ln c) (eq. 7); corrected
/// sum_j theta_j^2 / 8 summed over the spec's pairs (= (1 - c^-2) / (8 (1 - c^(-4/d)))).
/// d = rotary_dim, c = base. Error < 1e-15 relative. Throws posenc::error for a `which` that
/// names no enumerator.
inline double pi_grid_coefficient(const RopeSpec& spec, PiCoefficient which)
{
    detail::require_pi_coefficient(which);
    if (which == PiCoefficient::paper) return static_cast<double>(spec.rotary_dim()) / (32.0 * std::log(spec.base()));
    double sum = 0.0;
    const FrequencyTable table = FrequencyTable::from_spec(spec);
    for (int j = 0; j < table.num_pairs(); ++j) sum += table.inv_freq(j) * table.inv_freq(j);
    return sum / 8.0;
}

/// Theorem 2.1's bound at s in [s1, s2]: paper d (s - s1)(s2 - s) / (8 ln c) (eq. 5); corrected
/// sum_j theta_j^2 (s - s1)(s2 - s) / 2. Throws posenc::error unless s1 <= s <= s2, all finite,
/// and `which` names an enumerator.
inline double pi_interpolation_bound(const RopeSpec& spec, double s, double s1, double s2, PiCoefficient which)
{
    detail::require_pi_coefficient(which);
    detail::require(std::isfinite(s1) && std::isfinite(s2) && s1 <= s2, "s2", s2, "must be finite and >= s1 (finite)");
    if (!(std::isfinite(s) && s >= s1 && s <= s2))
        detail::raise("s", s,
                      "must lie in [s1, s2] = [" + detail::format_value(s1) + ", " + detail::format_value(s2) + "]");
    // (s - s1)(s2 - s) <= 1/4 on a grid of spacing 1: the grid coefficient is the bound at 1/4.
    return pi_grid_coefficient(spec, which) * 4.0 * (s - s1) * (s2 - s);
}

/// B(s) = sum_{k=1..P} |A_k(s)|, A_k(s) = sum_{j<k} e^{i s theta_j} (eq. 8), for any table.
/// Throws unless |s| <= 2^50.
inline double pi_extrapolation_sum(const FrequencyTable& table, double s)
{
    return roformer_partial_sum_norms(table, s);
}

/// Where B(s) is smallest over the integers of [first, last], and its value.
struct ExtrapolationSumMinimum {
    std::int64_t distance;
    double sum;
};

/// The minimum of B(s) over integer s in [first, last] (ties: the smallest s). d = 128, c = 1e4:
/// s = 1893 on [0, 2048] (B/d = 1.40748), s = 3643 on [0, 4096] (B/d = 1.11591).
/// The values are pi_extrapolation_sum's: distances are screened incrementally
/// (detail::PartialSumNormsWalk) and only those that may beat the minimum so far are evaluated
/// directly. Cost O((last - first) P), capped at last - first < 2^28 / P (search_limit.hpp),
/// about a second.
/// Throws posenc::error unless 0 <= first <= last <= 2^50, last - first < 2^28 / P, and last is
/// within the exact reduction's range for the table's frequencies.
inline ExtrapolationSumMinimum pi_extrapolation_sum_minimum(const FrequencyTable& table, std::int64_t first,
                                                            std::int64_t last)
{
    detail::require(first >= 0, "first", first, "must be >= 0");
    if (last < first) detail::raise("last", last, "must be >= first " + std::to_string(first));
    detail::require_distance(table, static_cast<double>(last));
    const std::int64_t most = max_search_distances(table.num_pairs());
    if (last - first >= most)
        detail::raise("last", last,
                      "must be < first " + std::to_string(first) + " + " + std::to_string(most) + " " +
                          detail::search_limit_text(table.num_pairs()));
    const double margin = detail::PartialSumNormsWalk::tolerance(table.num_pairs());
    detail::PartialSumNormsWalk walk(table, first);
    walk.next();
    ExtrapolationSumMinimum best {first, pi_extrapolation_sum(table, static_cast<double>(first))};
    for (std::int64_t s = first + 1; s <= last; ++s) {
        if (walk.next() - margin >= best.sum) continue;  // cannot be below the minimum so far
        const double b = pi_extrapolation_sum(table, static_cast<double>(s));
        if (b < best.sum) best = {s, b};
    }
    return best;
}

/// The ratio of the extrapolation bound 2 B(s) to the integer-grid interpolation bound, at the
/// smallest B(s) over [first, last]: 2 min B / coefficient. d = 128, c = 1e4, [0, 4096]: 657.79
/// (paper), 571.59 (corrected). Throws as pi_extrapolation_sum_minimum, and for a `which` that
/// names no enumerator (checked first).
inline double pi_bound_ratio(const RopeSpec& spec, std::int64_t first, std::int64_t last, PiCoefficient which)
{
    detail::require_pi_coefficient(which);
    const ExtrapolationSumMinimum m = pi_extrapolation_sum_minimum(FrequencyTable::from_spec(spec), first, last);
    return 2.0 * m.sum / pi_grid_coefficient(spec, which);
}

}  // namespace posenc
