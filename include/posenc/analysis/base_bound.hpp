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

#include "posenc/angles.hpp"
#include "posenc/error.hpp"
#include "posenc/frequencies.hpp"
#include "posenc/spec.hpp"

namespace posenc {

/// B_{m,theta} = sum_i cos(m theta_i) for the table's frequencies, from exactly reduced angles
/// (error < P * 5e-15). B_0 = P.
inline double similarity_margin(const FrequencyTable& table, std::int64_t distance) noexcept
{
    double sum = 0.0;
    for (int i = 0; i < table.num_pairs(); ++i) sum += std::cos(reduced_angle(distance, table.inv_freq(i)));
    return sum;
}

/// L_theta capped at `search_limit`: the largest L <= search_limit with B_{m,theta} >= 0 for every
/// m in [0, L]; search_limit itself if B never goes negative up to there. d = 128:
/// base 27,000 -> 4,078; 310,000 -> 12,222; 7.8e6 -> 128,914 (docs/formulas.md P4).
/// Cost O(L_theta * P). Throws posenc::error unless 0 < search_limit <= 2^40.
inline std::int64_t max_context_length(const FrequencyTable& table, std::int64_t search_limit)
{
    detail::require(search_limit > 0 && search_limit <= (std::int64_t{1} << 40), "search_limit", search_limit,
                    "must be in [1, 2^40]");
    constexpr std::int64_t anchor_every = 1024;
    const std::size_t pairs = static_cast<std::size_t>(table.num_pairs());
    std::vector<std::complex<double>> step(pairs);
    std::vector<std::complex<double>> phasor(pairs);
    for (std::size_t i = 0; i < pairs; ++i) {
        const CosSin cs = cos_sin(1, table.inv_freq(static_cast<int>(i)));
        step[i] = {cs.cos, cs.sin};
    }
    for (std::int64_t m = 1; m <= search_limit; ++m) {
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
    return search_limit;
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
/// Cost: one max_context_length per grid point (failing bases stop early).
/// Throws posenc::error for an invalid rotary_dim (as RopeSpec), context_length outside
/// [1, 2^40], a grid with first <= 1, last < first, ratio <= 1, or more than 10^7 points.
inline std::optional<double> smallest_base_for_context(int rotary_dim, std::int64_t context_length,
                                                       const BaseGrid& grid)
{
    detail::require(std::isfinite(grid.first) && grid.first > 1.0, "grid.first", grid.first, "must be finite and > 1");
    if (!(std::isfinite(grid.last) && grid.last >= grid.first))
        detail::raise("grid.last", grid.last, "must be finite and >= grid.first " + detail::format_value(grid.first));
    detail::require(std::isfinite(grid.ratio) && grid.ratio > 1.0, "grid.ratio", grid.ratio, "must be finite and > 1");
    const double points = std::floor(std::log(grid.last / grid.first) / std::log(grid.ratio)) + 1.0;
    if (!(points <= 1e7)) detail::raise("grid.ratio", grid.ratio, "gives more than 10^7 grid points");
    detail::require(context_length > 0 && context_length <= (std::int64_t{1} << 40), "context_length", context_length,
                    "must be in [1, 2^40]");
    static_cast<void>(RopeSpec(rotary_dim, rotary_dim, grid.first));  // validates rotary_dim
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
