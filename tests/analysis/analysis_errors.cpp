// SPDX-License-Identifier: MIT
// Invalid inputs to the bounds: each throws posenc::error "<field> <value> <rule>".
#include <posenc/analysis/base_bound.hpp>
#include <posenc/analysis/pi_bound.hpp>
#include <posenc/analysis/roformer_bound.hpp>
#include <posenc/spec.hpp>

#include <doctest/doctest.h>

#include <limits>

#include "scaling/checks.hpp"

namespace analysis_analysis_errors_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

using posenc_test::message_of;

TEST_CASE("[errors] RoFormer bound: non-finite or huge distances, bad curve arguments")
{
    const posenc::FrequencyTable t = posenc::FrequencyTable::from_spec(posenc::RopeSpec::full(64, 1e4));
    const double nan_value = std::numeric_limits<double>::quiet_NaN();
    CHECK(message_of([&] { return posenc::roformer_relative_bound(t, nan_value); }) ==
          "distance nan must be finite and |distance| <= 2^50");
    CHECK(message_of([&] { return posenc::roformer_relative_bound(t, 1e300); }) ==
          "distance 1e+300 must be finite and |distance| <= 2^50");
    CHECK(message_of([&] { return posenc::roformer_bound_curve(t, 0.0, 10.0, 1); }) == "count 1 must be >= 2");
    CHECK(message_of([&] { return posenc::roformer_bound_curve(t, 10.0, 0.0, 5); }) == "last 0 must be >= first 10");
    CHECK(message_of([&] { return posenc::first_distance_below(t, 8.0, -1); }) == "max_distance -1 must be >= 0");
}

TEST_CASE("[errors] PI bound: s outside [s1, s2], reversed ranges")
{
    const posenc::RopeSpec spec = posenc::RopeSpec::full(128, 1e4);
    CHECK(message_of([&] {
              return posenc::pi_interpolation_bound(spec, 12.0, 10.0, 11.0, posenc::PiCoefficient::paper);
          }) == "s 12 must lie in [s1, s2] = [10, 11]");
    CHECK(message_of([&] {
              return posenc::pi_interpolation_bound(spec, 10.5, 11.0, 10.0, posenc::PiCoefficient::paper);
          }) == "s2 10 must be finite and >= s1 (finite)");
    const posenc::FrequencyTable t = posenc::FrequencyTable::from_spec(spec);
    CHECK(message_of([&] { return posenc::pi_extrapolation_sum_minimum(t, 10, 5); }) == "last 5 must be >= first 10");
    CHECK(message_of([&] { return posenc::pi_extrapolation_sum_minimum(t, -1, 5); }) == "first -1 must be >= 0");
}

TEST_CASE("[errors] base bound: search limits, grids, rotary_dim")
{
    const posenc::FrequencyTable t = posenc::FrequencyTable::from_spec(posenc::RopeSpec::full(128, 1e4));
    CHECK(message_of([&] { return posenc::max_context_length(t, 0); }) == "search_limit 0 must be >= 1");
    CHECK(message_of([] {
              return posenc::smallest_base_for_context(128, 4096, {1.0, 10.0, 1.1});
          }) == "grid.first 1 must be finite and > 1");
    CHECK(message_of([] {
              return posenc::smallest_base_for_context(128, 4096, {100.0, 10.0, 1.1});
          }) == "grid.last 10 must be finite and >= grid.first 100");
    CHECK(message_of([] {
              return posenc::smallest_base_for_context(128, 4096, {10.0, 100.0, 1.0});
          }) == "grid.ratio 1 must be finite and > 1");
    CHECK(message_of([] {
              return posenc::smallest_base_for_context(128, 4096, {10.0, 1e9, 1.0000000001});
          }) == "grid.ratio 1.0000000001 gives more than 10^7 grid points");
    CHECK(message_of([] {
              return posenc::smallest_base_for_context(128, 0, {10.0, 100.0, 1.1});
          }) ==
          "context_length 0 must be in [1, 4194304] (the search's limit: distances x pairs <= 2^28 for 64 pairs)");
    CHECK(message_of([] {
              return posenc::smallest_base_for_context(127, 4096, {10.0, 100.0, 1.1});
          }) == "rotary_dim 127 must be even");
}

}  // namespace analysis_analysis_errors_tests
