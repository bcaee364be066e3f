// SPDX-License-Identifier: MIT
// posenc/analysis/roformer_bound.hpp: RoFormer's long-term-decay bound U(r).
//
// Source: Su et al. 2021, RoFormer, arXiv 2104.09864, section 3.4.3, eqs. 35-37 and Figure 2
// (docs/formulas.md P1). Summation by parts bounds the relative score
//   |sum_i h_i e^{i r theta_i}| <= (max_i |h_{i+1} - h_i|) * sum_{j=1..P} |S_j(r)|,
//   S_j(r) = sum_{k=0..j-1} e^{i r theta_k},
// and the paper plots the content-free "relative upper bound"
//   U(r) = (1/P) sum_{j=1..P} |S_j(r)|        (P = number of pairs, r = m - n)
// U(0) = (P + 1) / 2 (16.5 for 32 pairs). U is not monotone: it first drops below half its start
// at r = 15 / 35 / 46 for bases 1e4 / 1e6 / 1e7 (32 pairs) and keeps making excursions above.
// The bound is only relative: the content factor max|h_{i+1} - h_i| is unbounded.
//
// Accuracy: the angles are reduced exactly (angles.hpp) for the integer part of r, so U is
// within P * 1e-15 (absolute, relative to U(0)) of the exact value at any r up to 2^50.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <optional>
#include <vector>

#include "posenc/angles.hpp"
#include "posenc/error.hpp"
#include "posenc/frequencies.hpp"

namespace posenc {

namespace detail {

/// r * theta reduced modulo 2 pi: the integer part of r exactly (reduced_angle), the fraction
/// times theta added (|f theta| < theta, one rounding).
inline double angle_at_distance(double distance, double theta) noexcept
{
    const double whole = std::trunc(distance);
    return reduced_angle(static_cast<std::int64_t>(whole), theta) + (distance - whole) * theta;
}

inline void require_distance(double distance)
{
    if (!(std::isfinite(distance) && std::abs(distance) <= 1125899906842624.0))  // 2^50
        raise("distance", distance, "must be finite and |distance| <= 2^50");
}

}  // namespace detail

/// sum_{j=1..P} |S_j(r)| for the table's frequencies (the attention factor is ignored); this is
/// also Position Interpolation's B(s) (pi_bound.hpp). Throws posenc::error unless |r| <= 2^50.
inline double roformer_partial_sum_norms(const FrequencyTable& table, double distance)
{
    detail::require_distance(distance);
    std::complex<double> partial_sum{0.0, 0.0};
    double total = 0.0;
    for (int k = 0; k < table.num_pairs(); ++k) {
        const double a = detail::angle_at_distance(distance, table.inv_freq(k));
        partial_sum += std::complex<double>(std::cos(a), std::sin(a));
        total += std::abs(partial_sum);
    }
    return total;
}

/// U(r) = (1/P) sum_{j=1..P} |S_j(r)| (RoFormer eq. 37's relative bound, Figure 2).
/// 32 pairs, base 1e4: U(0) = 16.5, U(10) = 8.81433442344. Throws unless |r| <= 2^50.
inline double roformer_relative_bound(const FrequencyTable& table, double distance)
{
    return roformer_partial_sum_norms(table, distance) / static_cast<double>(table.num_pairs());
}

/// U(r) for the unscaled frequencies of a spec (any base and pair count).
inline double roformer_relative_bound(const RopeSpec& spec, double distance)
{
    return roformer_relative_bound(FrequencyTable::from_spec(spec), distance);
}

/// One point of the U(r) curve.
struct BoundSample {
    double distance;
    double bound;
};

/// U(r) at `count` evenly spaced distances from `first` to `last` inclusive (count >= 2), e.g.
/// for plotting RoFormer's Figure 2. Throws posenc::error for count < 2, last < first or a
/// distance beyond 2^50.
inline std::vector<BoundSample> roformer_bound_curve(const FrequencyTable& table, double first, double last, int count)
{
    detail::require(count >= 2, "count", count, "must be >= 2");
    detail::require_distance(first);
    detail::require_distance(last);
    if (!(last >= first)) detail::raise("last", last, "must be >= first " + detail::format_value(first));
    std::vector<BoundSample> curve;
    curve.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
        const double r = i + 1 == count ? last : first + (last - first) * static_cast<double>(i) / (count - 1);
        curve.push_back({r, roformer_relative_bound(table, r)});
    }
    return curve;
}

/// The smallest integer distance r in [0, max_distance] with U(r) < level, or nullopt if U stays
/// at or above it (32 pairs, level 8.25 = U(0)/2: 15 / 35 / 46 for bases 1e4 / 1e6 / 1e7).
/// Cost O(max_distance * P). Throws posenc::error unless 0 <= max_distance <= 2^50.
inline std::optional<std::int64_t> first_distance_below(const FrequencyTable& table, double level,
                                                        std::int64_t max_distance)
{
    detail::require(max_distance >= 0, "max_distance", max_distance, "must be >= 0");
    detail::require_distance(static_cast<double>(max_distance));
    for (std::int64_t r = 0; r <= max_distance; ++r)
        if (roformer_relative_bound(table, static_cast<double>(r)) < level) return r;
    return std::nullopt;
}

}  // namespace posenc
