// SPDX-License-Identifier: MIT
// posenc/analysis/base_bound.hpp: "Base of RoPE bounds context length" (Men et al. 2024).
//
// Source: Men et al. 2024, arXiv 2405.14591, section 4.2 Theorem 1 (eq. 9), section 4.3
// eqs. 10-11, Table 2; Su's re-computation kexue.fm/archives/10122 (docs/formulas.md P4).
// For q, k with i.i.d. components, the ability to attend more to a similar token than to a
// random one at relative distance m is proportional to
//   B_{m,theta} = sum_{i=0..P-1} cos(m theta_i)                                       (eq. 9)
// and the usable context of a base is
//   L_theta = sup{ L : B_{m,theta} >= 0 for all m in {0, 1, ..., L} }                   (eq. 10)
//   base_L  = inf{ base : L_theta(base) >= L }                                          (eq. 11)
//
// Knife-edged and grid dependent: L_theta(base) is far from monotone in the base (so bisection
// fails), passing bases first appear as isolated windows 0.01-0.04% wide, and the minimum of B
// over m <= L is tiny (e.g. 4.4e-5 at 16K). "The smallest base" therefore depends on the grid the
// caller scans: d = 128, 4K: 26,952.5 on a 1e-5 grid, while the paper's 2-digit 2.7e4 gives
// L_theta = 4,078 (< 4,096). P4 (docs/formulas.md) tabulates both.
//
// Evaluation: B_{m,theta} for consecutive m by rotating unit phasors (one complex multiply per
// pair per step), re-anchored on exactly reduced angles (angles.hpp) every 1024 steps, so every
// B_{m,theta} is within P * 4e-13 of the exact sum.
#pragma once

#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "posenc/analysis/search_limit.hpp"
#include "posenc/angles.hpp"
#include "posenc/error.hpp"
#include "posenc/frequencies.hpp"
#include "posenc/spec.hpp"

namespace posenc {

/// B_{m,theta} = sum_i cos(m theta_i) for the table's frequencies, from exactly reduced angles
/// (error < P * 5e-15). B_0 = P. Throws posenc::error unless the distance lies in the exact
/// reduction's range for the table's largest frequency (require_exact_angle_range:
/// |distance| <= 2^53, |distance * inv_freq| <= 2^50).
inline double similarity_margin(const FrequencyTable& table, std::int64_t distance)
{
    require_exact_angle_range("distance", distance, table);
    double sum = 0.0;
    for (int i = 0; i < table.num_pairs(); ++i) sum += std::cos(reduced_angle(distance, table.inv_freq(i)));
    return sum;
}

/// L_theta capped at `search_limit`: the largest L <= search_limit with B_{m,theta} >= 0 for every
/// m in [0, L]; search_limit itself if B never goes negative up to there. d = 128:
/// base 27,000 -> 4,078; 310,000 -> 12,222; 7.8e6 -> 128,914 (docs/formulas.md P4).
/// Cost O(min(L_theta, search_limit) * P), one complex product per pair and distance; the scan
/// stops at max_search_distances (search_limit.hpp: 2^28 / P distances, 4,194,304 for 64 pairs,
/// about a second), so a search_limit beyond that limit is fine when B goes negative within it.
/// Throws posenc::error for search_limit < 1, a search_limit outside the exact reduction's range
/// for the table's frequencies (require_exact_angle_range), or when B stays >= 0 up to the limit
/// and search_limit reaches past it (L_theta is then larger than the search may show).
inline std::int64_t max_context_length(const FrequencyTable& table, std::int64_t search_limit);

namespace detail {

/// max_context_length scanning at most `most` distances: the public function passes
/// max_search_distances; tests pass a small limit to reach the refusal quickly.
inline std::int64_t max_context_length_within(const FrequencyTable& table, std::int64_t search_limit, std::int64_t most)
{
    detail::require(search_limit >= 1, "search_limit", search_limit, "must be >= 1");
    require_exact_angle_range("search_limit", search_limit, table);
    const std::int64_t last = search_limit < most ? search_limit : most;
    constexpr std::int64_t anchor_every = 1024;
    const std::size_t pairs = static_cast<std::size_t>(table.num_pairs());
    std::vector<std::complex<double>> step(pairs);
    std::vector<std::complex<double>> phasor(pairs);
    for (std::size_t i = 0; i < pairs; ++i) {
        const CosSin cs = cos_sin(1, table.inv_freq(static_cast<int>(i)));
        step[i] = {cs.cos, cs.sin};
    }
    for (std::int64_t m = 1; m <= last; ++m) {
        double sum = 0.0;
        if ((m - 1) % anchor_every == 0) {
            for (std::size_t i = 0; i < pairs; ++i) {
                const CosSin cs = cos_sin(m, table.inv_freq(static_cast<int>(i)));
                phasor[i] = {cs.cos, cs.sin};
                sum += cs.cos;
            }
        } else {
            for (std::size_t i = 0; i < pairs; ++i) {
                phasor[i] *= step[i];
                sum += phasor[i].real();
            }
        }
        if (sum < 0.0) return m - 1;
    }
    if (last < search_limit)
        detail::raise("search_limit", search_limit,
                      "must be <= " + std::to_string(most) + " when B stays >= 0 up to it " +
                          detail::search_limit_text(table.num_pairs()) + ": L_theta exceeds what the search may show");
    return search_limit;
}

}  // namespace detail

inline std::int64_t max_context_length(const FrequencyTable& table, std::int64_t search_limit)
{
    return detail::max_context_length_within(table, search_limit, max_search_distances(table.num_pairs()));
}

/// A geometric grid of bases first * ratio^k, k = 0, 1, ... while <= last.
struct BaseGrid {
    double first;
    double last;
    double ratio;
};

/// The smallest base on `grid` whose L_theta reaches `context_length` (d = rotary_dim), or
/// nullopt if none does. eq. 11 on a grid: knife-edged, see the file comment. d = 128, grid ratio
/// 1.00001: 1K -> 4,293.45, 4K -> 26,952.5 (Su's values, P4 (docs/formulas.md)).
/// Cost: one max_context_length per grid point (failing bases stop early), capped at
/// grid points x context_length x rotary_dim / 2 <= 2^32 (a few seconds at most).
/// Throws posenc::error for an invalid rotary_dim (as RopeSpec), context_length outside
/// [1, 2^28 / (rotary_dim / 2)] (max_context_length's limit), a grid with first <= 1,
/// last < first, ratio <= 1, more than 10^7 points, or more points than the cap allows.
inline std::optional<double> smallest_base_for_context(int rotary_dim, std::int64_t context_length,
                                                       const BaseGrid& grid)
{
    detail::require(std::isfinite(grid.first) && grid.first > 1.0, "grid.first", grid.first, "must be finite and > 1");
    if (!(std::isfinite(grid.last) && grid.last >= grid.first))
        detail::raise("grid.last", grid.last, "must be finite and >= grid.first " + detail::format_value(grid.first));
    detail::require(std::isfinite(grid.ratio) && grid.ratio > 1.0, "grid.ratio", grid.ratio, "must be finite and > 1");
    const double points = std::floor(std::log(grid.last / grid.first) / std::log(grid.ratio)) + 1.0;
    if (!(points <= 1e7)) detail::raise("grid.ratio", grid.ratio, "gives more than 10^7 grid points");
    const int pairs = rotary_dim / 2 > 0 ? rotary_dim / 2 : 1;  // rotary_dim is validated below
    const std::int64_t most = max_search_distances(pairs);
    if (context_length < 1 || context_length > most)
        detail::raise("context_length", context_length,
                      "must be in [1, " + std::to_string(most) + "] " + detail::search_limit_text(pairs));
    static_cast<void>(RopeSpec(rotary_dim, rotary_dim, grid.first));  // validates rotary_dim
    // The whole scan: every grid point may search up to context_length distances.
    if (points * static_cast<double>(context_length) * pairs > 4294967296.0)  // 2^32
        detail::raise("grid.ratio", grid.ratio,
                      "gives " + detail::format_value(points) + " grid points; with context_length " +
                          std::to_string(context_length) + " and " + std::to_string(pairs) +
                          " pairs the scan must stay within grid points x context_length x pairs <= 2^32");
    const std::int64_t count = static_cast<std::int64_t>(points);
    for (std::int64_t k = 0; k < count; ++k) {
        const double base = grid.first * std::pow(grid.ratio, static_cast<double>(k));
        if (base > grid.last) break;
        const FrequencyTable table = FrequencyTable::from_spec(RopeSpec(rotary_dim, rotary_dim, base));
        if (max_context_length(table, context_length) >= context_length) return base;
    }
    return std::nullopt;
}

}  // namespace posenc
