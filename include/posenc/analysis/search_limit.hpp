// SPDX-License-Identifier: MIT
// posenc/analysis/search_limit.hpp: how far the analysis searches may scan.
//
// first_distance_below (roformer_bound.hpp), pi_extrapolation_sum_minimum and pi_bound_ratio
// (pi_bound.hpp), max_context_length and smallest_base_for_context (base_bound.hpp) evaluate a
// bound at every integer distance of a range, each evaluation costing one step per frequency
// pair. No shortcut gives their answers without the scan (the bounds are not monotone), so the
// work is capped: distances x pairs <= 2^28 per search (about a second on one core of a current
// x86-64 machine, optimised; under a second for the usual calls, which stop early). A larger
// range is refused with posenc::error naming the argument and the limit, never run for hours.
#pragma once

#include <cstdint>
#include <string>

#include "posenc/error.hpp"

namespace posenc {

/// The most distances x pairs one analysis search may scan: 2^28.
inline constexpr std::int64_t max_search_work = std::int64_t {1} << 28;

/// The most distances a search over a table of `num_pairs` pairs may scan: 2^28 / num_pairs
/// (at least 1).
inline constexpr std::int64_t max_search_distances(int num_pairs) noexcept
{
    const std::int64_t pairs = num_pairs > 0 ? num_pairs : 1;
    const std::int64_t n = max_search_work / pairs;
    return n > 0 ? n : 1;
}

namespace detail {

/// "(the search's limit: distances x pairs <= 2^28 for 32 pairs)".
inline std::string search_limit_text(int num_pairs)
{
    return "(the search's limit: distances x pairs <= 2^28 for " + std::to_string(num_pairs) + " pairs)";
}

}  // namespace detail
}  // namespace posenc
