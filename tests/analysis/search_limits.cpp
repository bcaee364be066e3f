// SPDX-License-Identifier: MIT
// The searches over distances (first_distance_below, pi_extrapolation_sum_minimum, pi_bound_ratio,
// max_context_length, smallest_base_for_context) are capped at distances x pairs <= 2^28 (about a
// second): first_distance_below and max_context_length stop there (an answer found within the
// limit is returned whatever range was asked; no answer within it is refused, naming the limit),
// the others refuse a larger range at once, instead of running for hours (2^50 distances at 32
// pairs took about 3 s per 10^6). Their answers are those of the direct
// evaluation of RoFormer's U(r) (eq. 37) and Chen et al.'s B(s) (eq. 8) at every distance, which
// the tests below scan themselves: the incremental screening changes no answer.
#include <posenc/analysis/base_bound.hpp>
#include <posenc/analysis/pi_bound.hpp>
#include <posenc/analysis/roformer_bound.hpp>
#include <posenc/frequencies.hpp>
#include <posenc/spec.hpp>

#include <doctest/doctest.h>

#include "support/error_messages.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace analysis_search_limits_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {
using test_support::message_of;

posenc::FrequencyTable table_of(int pairs, double base)
{
    return posenc::FrequencyTable::from_spec(posenc::RopeSpec::full(2 * pairs, base));
}

/// RoFormer eq. 37 scanned directly: the first r in [0, max] with U(r) < level.
std::optional<std::int64_t> direct_first_below(const posenc::FrequencyTable& t, double level, std::int64_t max)
{
    for (std::int64_t r = 0; r <= max; ++r)
        if (posenc::roformer_relative_bound(t, static_cast<double>(r)) < level) return r;
    return std::nullopt;
}
}  // namespace

TEST_CASE("[RoFormer 3.4.3 eq. 37] first_distance_below is the direct scan's answer, for every level")
{
    for (double base : {1e4, 1e6, 5e5}) {
        const posenc::FrequencyTable t = table_of(32, base);
        for (double level : {16.0, 12.5, 8.25, 6.0, 4.0, 3.0, 2.5, 2.2, 0.5, -1.0}) {
            CAPTURE(base);
            CAPTURE(level);
            CHECK(posenc::first_distance_below(t, level, 3000) == direct_first_below(t, level, 3000));
        }
        // the level at a distance's own U: that distance is not below it, the next one below may be
        const double at_100 = posenc::roformer_relative_bound(t, 100.0);
        CHECK(posenc::first_distance_below(t, at_100, 3000) == direct_first_below(t, at_100, 3000));
    }
    // a table with a frequency above 1 and an odd pair count
    const posenc::FrequencyTable odd(std::vector<double> {3.5, 1.0, 0.3, 0.01, 1e-5});
    for (double level : {2.9, 2.0, 1.2, 0.9})
        CHECK(posenc::first_distance_below(odd, level, 5000) == direct_first_below(odd, level, 5000));
    CHECK(message_of([&] { posenc::first_distance_below(odd, test_support::not_a_number, 10); }) ==
          "level nan must not be NaN");
}

TEST_CASE("[Chen et al. 2023 eq. 8] pi_extrapolation_sum_minimum is the direct scan's minimum, first on ties")
{
    for (const posenc::FrequencyTable& t : {table_of(64, 1e4), table_of(32, 1e4), table_of(16, 500.0)}) {
        for (auto [first, last] : {std::pair<std::int64_t, std::int64_t> {0, 4096}, {1000, 1500}, {7, 7}}) {
            posenc::ExtrapolationSumMinimum best {first, posenc::pi_extrapolation_sum(t, static_cast<double>(first))};
            for (std::int64_t s = first + 1; s <= last; ++s) {
                const double b = posenc::pi_extrapolation_sum(t, static_cast<double>(s));
                if (b < best.sum) best = {s, b};
            }
            const posenc::ExtrapolationSumMinimum got = posenc::pi_extrapolation_sum_minimum(t, first, last);
            CHECK(got.distance == best.distance);
            CHECK(got.sum == best.sum);
        }
    }
    // B(s) is even in s and B(0) = P (P + 1) / 2 is its maximum: on [0, 0] the minimum is there
    CHECK(posenc::pi_extrapolation_sum_minimum(table_of(4, 1e4), 0, 0).sum == 10.0);
}

TEST_CASE("[errors] searches beyond 2^28 distances x pairs are refused, naming the limit; early answers are not")
{
    const posenc::FrequencyTable t32 = table_of(32, 1e4);
    const std::int64_t two_to_50 = std::int64_t {1} << 50;
    // An answer within the limit is an answer, however far max_distance reaches (U falls below
    // half of U(0) at 15 for base 1e4: RoFormer Figure 2, lesson C2-5).
    CHECK(posenc::first_distance_below(t32, 8.25, two_to_50) == direct_first_below(t32, 8.25, 100));
    // Past the limit nothing is scanned: no answer within it is a refusal, not a claim about the
    // rest (RoFormer's bound at 2^50 distances: about a hundred years at 3 s per 10^6). The scan
    // logic is the public function's with a small limit, so the refusal is reached at once.
    CHECK(
        message_of([&] { posenc::detail::first_distance_below_within(t32, 0.0, two_to_50, 100); }) ==
        "max_distance 1125899906842624 must be < 100 when no distance below it has U(r) < level 0 (the search's limit: "
        "distances x pairs <= 2^28 for 32 pairs): distances past the limit are not searched");
    CHECK(message_of([&] { posenc::detail::first_distance_below_within(t32, 0.0, 100, 100); }) ==
          "max_distance 100 must be < 100 when no distance below it has U(r) < level 0 (the search's limit: "
          "distances x pairs <= 2^28 for 32 pairs): distances past the limit are not searched");
    CHECK(posenc::detail::first_distance_below_within(t32, 0.0, 99, 100) == std::nullopt);
    CHECK(posenc::detail::first_distance_below_within(t32, 8.25, 1000, 100) == direct_first_below(t32, 8.25, 100));
    // max_context_length: L_theta within the limit is the answer for any search_limit
    const posenc::FrequencyTable d128 = table_of(64, 2.7e4);
    CHECK(posenc::max_context_length(d128, two_to_50) == 4078);  // Su's value, docs/formulas.md P4
    CHECK(posenc::detail::max_context_length_within(d128, 5000, 4079) == 4078);
    CHECK(message_of([&] { posenc::detail::max_context_length_within(d128, 5000, 4078); }) ==
          "search_limit 5000 must be <= 4078 when B stays >= 0 up to it (the search's limit: distances x pairs <= 2^28 "
          "for "
          "64 pairs): L_theta exceeds what the search may show");
    CHECK(posenc::detail::max_context_length_within(d128, 4078, 4078) == 4078);
    // the searches that need their whole range are refused at once
    CHECK(message_of([&] { posenc::pi_extrapolation_sum_minimum(t32, 0, two_to_50); }) ==
          "last 1125899906842624 must be < first 0 + 8388608 (the search's limit: distances x pairs <= 2^28 for 32 "
          "pairs)");
    CHECK(message_of([&] { posenc::pi_extrapolation_sum_minimum(t32, 1000, 1000 + 8388608); }) ==
          "last 8389608 must be < first 1000 + 8388608 (the search's limit: distances x pairs <= 2^28 for 32 pairs)");
    CHECK(message_of([&] {
              posenc::pi_bound_ratio(posenc::RopeSpec::full(128, 1e4), 0, two_to_50, posenc::PiCoefficient::paper);
          }) == "last 1125899906842624 must be < first 0 + 4194304 (the search's limit: distances x pairs <= 2^28 for "
                "64 pairs)");
    CHECK(message_of([] {
              posenc::smallest_base_for_context(128, std::int64_t {1} << 40, {1e4, 1e5, 1.01});
          }) == "context_length 1099511627776 must be in [1, 4194304] (the search's limit: distances x pairs <= 2^28 "
                "for 64 pairs)");
    CHECK(message_of([] {
              posenc::smallest_base_for_context(128, 4096, {1e4, 1e9, 1.00001});
          }) ==
          "grid.ratio 1.00001 gives 1151299 grid points; with context_length 4096 and 64 pairs the scan must stay "
          "within grid points x context_length x pairs <= 2^32");
    CHECK(posenc::max_search_distances(32) == 8388608);
    CHECK(posenc::max_search_distances(1 << 30) == 1);
}

}  // namespace analysis_search_limits_tests
