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
#include <type_traits>
#include <vector>

#include "posenc/analysis/search_limit.hpp"
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

/// require_distance, then the exact reduction's range for the table's largest frequency: the
/// integer part of the distance times theta within 2^50 (tables with frequencies above 1, such
/// as LongRoPE's with factors below 1 or a table built by hand, reach it before 2^50 tokens).
inline void require_distance(const FrequencyTable& table, double distance)
{
    require_distance(distance);
    const double theta = largest_inv_freq(table);
    const double angle = std::abs(std::trunc(distance) * theta);
    if (!(angle <= max_exact_angle))
        raise("distance", distance,
              "must keep |distance * inv_freq| <= 2^50 (the exact angle reduction's range); inv_freq " +
                  format_value(theta) + " gives " + format_value(angle));
}

/// sum_j |S_j(r)| = P U(r) at r = first, first + 1, ... without a cos/sin per term: the unit
/// phasors e^{i r theta_k} advance by one complex product each per step and are re-anchored on
/// exactly reduced angles (cos_sin) every 256 steps. Each value is within tolerance() of
/// roformer_partial_sum_norms(table, r) as computed: a phasor drifts by at most 256 x (5e-15 +
/// 4 ulp) < 1.5e-12 between anchors, S_j by j times that plus its rounding, and the sum of the
/// |S_j| by P (P + 1) / 2 x 1.5e-12 plus P^3 ulp / 3; the direct evaluation carries errors of
/// the same form, and the tolerance, 2e-11 P (P + 1) + 1e-12, covers both with a margin of
/// about ten. Callers screen with the walk and decide with the direct evaluation, so their
/// answers are the direct evaluation's, bit for bit.
/// Precondition: first >= 0 and every distance walked within require_distance(table, .).
class PartialSumNormsWalk
{
public:
    PartialSumNormsWalk(const FrequencyTable& table, std::int64_t first)
        : table_(table), r_(first), pairs_(static_cast<std::size_t>(table.num_pairs())), step_re_(pairs_),
          step_im_(pairs_), re_(pairs_), im_(pairs_)
    {
        for (std::size_t k = 0; k < pairs_; ++k) {
            const CosSin cs = cos_sin(1, table.inv_freq(static_cast<int>(k)));
            step_re_[k] = cs.cos;
            step_im_[k] = cs.sin;
        }
        anchor();
    }

    /// The screening margin for a table of `num_pairs` pairs (see the class comment).
    static double tolerance(int num_pairs) noexcept
    {
        const double p = static_cast<double>(num_pairs);
        return 2e-11 * p * (p + 1.0) + 1e-12;
    }

    std::int64_t distance() const noexcept { return r_; }

    /// sum_j |S_j| at distance(), then moves to distance() + 1.
    double next()
    {
        double sum_re = 0.0, sum_im = 0.0, total = 0.0;
        for (std::size_t k = 0; k < pairs_; ++k) {
            sum_re += re_[k];
            sum_im += im_[k];
            total += std::sqrt(sum_re * sum_re + sum_im * sum_im);
        }
        ++r_;
        if (++since_anchor_ == anchor_every) {
            anchor();
        } else {
            for (std::size_t k = 0; k < pairs_; ++k) {
                const double a = re_[k], b = im_[k];
                re_[k] = a * step_re_[k] - b * step_im_[k];
                im_[k] = a * step_im_[k] + b * step_re_[k];
            }
        }
        return total;
    }

private:
    static constexpr int anchor_every = 256;

    void anchor()
    {
        for (std::size_t k = 0; k < pairs_; ++k) {
            const CosSin cs = cos_sin(r_, table_.inv_freq(static_cast<int>(k)));
            re_[k] = cs.cos;
            im_[k] = cs.sin;
        }
        since_anchor_ = 0;
    }

    const FrequencyTable& table_;
    std::int64_t r_;
    std::size_t pairs_;
    std::vector<double> step_re_, step_im_, re_, im_;
    int since_anchor_ = 0;
};

}  // namespace detail

/// sum_{j=1..P} |S_j(r)| for the table's frequencies (the attention factor is ignored); this is
/// also Position Interpolation's B(s) (pi_bound.hpp). Throws posenc::error unless |r| <= 2^50
/// and |trunc(r) * inv_freq| <= 2^50 for the table's largest frequency.
inline double roformer_partial_sum_norms(const FrequencyTable& table, double distance)
{
    detail::require_distance(table, distance);
    std::complex<double> partial_sum {0.0, 0.0};
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
/// distance beyond 2^50 (or beyond the exact reduction's range for the table's frequencies).
/// `Sample` is always BoundSample: a template only so that a translation unit that never calls
/// this does not compile it (docs/benchmarks.md, "Compile time").
template <class Sample = BoundSample>
std::vector<Sample> roformer_bound_curve(const FrequencyTable& table, double first, double last, int count)
{
    static_assert(std::is_same_v<Sample, BoundSample>, "roformer_bound_curve returns BoundSample values");
    detail::require(count >= 2, "count", count, "must be >= 2");
    detail::require_distance(table, first);
    detail::require_distance(table, last);
    if (!(last >= first)) detail::raise("last", last, "must be >= first " + detail::format_value(first));
    std::vector<Sample> curve(static_cast<std::size_t>(count));  // sized, not grown: fewer vector members to compile
    for (int i = 0; i < count; ++i) {
        const double r = i + 1 == count ? last : first + (last - first) * static_cast<double>(i) / (count - 1);
        curve[static_cast<std::size_t>(i)] = {r, roformer_relative_bound(table, r)};
    }
    return curve;
}

/// The smallest integer distance r in [0, max_distance] with U(r) < level, or nullopt if U stays
/// at or above it (32 pairs, level 8.25 = U(0)/2: 15 / 35 / 46 for bases 1e4 / 1e6 / 1e7).
/// The answer is roformer_relative_bound's: distances are screened incrementally
/// (detail::PartialSumNormsWalk, a few ns per pair) and a candidate decided by the direct
/// evaluation. Cost O(min(answer, max_distance) * P); the scan stops at max_search_distances
/// (search_limit.hpp: 2^28 / P distances, 8,388,608 for 32 pairs, about a second), so a
/// max_distance beyond that limit is fine when the answer lies within it.
/// Throws posenc::error for max_distance < 0, a max_distance outside the exact reduction's range
/// for the table's frequencies (require_distance), a NaN level, or when no distance within the
/// limit is below the level and max_distance reaches past it (the rest is never scanned).
inline std::optional<std::int64_t> first_distance_below(const FrequencyTable& table, double level,
                                                        std::int64_t max_distance);

namespace detail {

/// first_distance_below scanning at most `most` distances (0 .. most - 1): the public function
/// passes max_search_distances; tests pass a small limit to reach the refusal quickly.
inline std::optional<std::int64_t> first_distance_below_within(const FrequencyTable& table, double level,
                                                               std::int64_t max_distance, std::int64_t most)
{
    detail::require(max_distance >= 0, "max_distance", max_distance, "must be >= 0");
    detail::require_distance(table, static_cast<double>(max_distance));
    detail::require(!std::isnan(level), "level", level, "must not be NaN");
    const std::int64_t last = max_distance < most ? max_distance : most - 1;
    const double pairs = static_cast<double>(table.num_pairs());
    const double margin = detail::PartialSumNormsWalk::tolerance(table.num_pairs());
    detail::PartialSumNormsWalk walk(table, 0);
    for (std::int64_t r = 0; r <= last; ++r) {
        const double screened = walk.next();
        if (screened - margin < level * pairs && roformer_relative_bound(table, static_cast<double>(r)) < level)
            return r;
    }
    if (last < max_distance)
        detail::raise("max_distance", max_distance,
                      "must be < " + std::to_string(most) + " when no distance below it has U(r) < level " +
                          detail::format_value(level) + " " + detail::search_limit_text(table.num_pairs()) +
                          ": distances past the limit are not searched");
    return std::nullopt;
}

}  // namespace detail

inline std::optional<std::int64_t> first_distance_below(const FrequencyTable& table, double level,
                                                        std::int64_t max_distance)
{
    return detail::first_distance_below_within(table, level, max_distance, max_search_distances(table.num_pairs()));
}

}  // namespace posenc
