// SPDX-License-Identifier: MIT
// RoFormer's relative upper bound U(r) (Su et al. 2021, section 3.4.3, eq. 37, Figure 2) against
// P1 (docs/formulas.md)
//
// Provenance: the table (32 pairs, bases 1e4 / 1e6 / 1e7) and the d = 128 values are mpmath at
// 30 digits (tests/scaling/hf_reference_values.py bounds: U(r) summed over the real-number
// theta_k); P1 (docs/formulas.md) prints the same to 4 decimals and the two mpmath checks
// 8.81433442344 and 2.80555622175. U(0) = (P + 1) / 2 is the closed form (S_j(0) = j).
// At r = 2^40 the reference takes the double theta_k = 10000.0 ** (-k / 32) (Python float pow) as
// input and sums exactly in mpmath, because the double rounding of theta_k alone moves
// r theta_k by ~1e-4 rad there.
#include <posenc/analysis/roformer_bound.hpp>
#include <posenc/spec.hpp>

#include <doctest/doctest.h>

#include "scaling/checks.hpp"

namespace analysis_roformer_bound_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

using posenc_test::relative_error;

TEST_CASE("[RoFormer 3.4.3 eq. 37] U(r) for 32 pairs at bases 1e4, 1e6, 1e7 (docs/formulas.md P1 table)")
{
    const struct {
        double base;
        double u[7];  // r = 0, 1, 10, 100, 1000, 10000, 100000
    } rows[] = {
        {1e4, {16.5, 15.9477637976, 8.81433442344, 7.46527659994, 4.08969082508, 4.41363559323, 4.37260810739}},
        {1e6, {16.5, 15.9932902925, 10.4565180165, 7.25433441328, 7.11213717668, 2.47522390436, 2.90202173066}},
        {1e7, {16.5, 16.0119011631, 11.0032199937, 7.95544515253, 8.06563305293, 6.19132675295, 2.80555622175}},
    };
    const double r[] = {0, 1, 10, 100, 1000, 10000, 100000};
    for (const auto& row : rows) {
        const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(posenc::RopeSpec::full(64, row.base));
        for (int i = 0; i < 7; ++i) {
            CAPTURE(row.base);
            CAPTURE(r[i]);
            // 12 significant digits printed; the double computation is far more accurate than that.
            CHECK(relative_error(posenc::roformer_relative_bound(table, r[i]), row.u[i]) <= 1e-11);
        }
    }
}

TEST_CASE("[RoFormer] U(0) = (P + 1) / 2 for any base and pair count (16.5 for 32 pairs, 32.5 for 64)")
{
    for (int rotary_dim : {2, 16, 64, 128, 256})
        for (double base : {10.0, 1e4, 5e5, 1e7}) {
            const posenc::RopeSpec spec = posenc::RopeSpec::full(rotary_dim, base);
            CHECK(posenc::roformer_relative_bound(spec, 0.0) ==
                  doctest::Approx((rotary_dim / 2 + 1) / 2.0).epsilon(1e-15));
        }
}

TEST_CASE("[RoFormer Figure 2] d = 128, base 1e4: U(5) = 20.845358, U(250) = 6.548179; fractional r = 10.5 for d = 64")
{
    const posenc::FrequencyTable d128 = posenc::FrequencyTable::from_spec(posenc::RopeSpec::full(128, 1e4));
    CHECK(posenc::roformer_relative_bound(d128, 0.0) == 32.5);
    CHECK(relative_error(posenc::roformer_relative_bound(d128, 5.0), 20.845358) <= 1e-7);
    CHECK(relative_error(posenc::roformer_relative_bound(d128, 250.0), 6.548179) <= 1e-7);
    const posenc::FrequencyTable d64 = posenc::FrequencyTable::from_spec(posenc::RopeSpec::full(64, 1e4));
    CHECK(relative_error(posenc::roformer_relative_bound(d64, 10.5), 8.7014322019726) <= 1e-12);
}

TEST_CASE("[RoFormer] accurate at r = 2^40 for the double frequencies (4.48736455239638)")
{
    const posenc::FrequencyTable d64 = posenc::FrequencyTable::from_spec(posenc::RopeSpec::full(64, 1e4));
    CHECK(relative_error(posenc::roformer_relative_bound(d64, 1099511627776.0), 4.48736455239638) <= 1e-12);
}

TEST_CASE("[lesson C2-5 #26 / P1] U first drops below half (8.25) at r = 15, 35, 46 for bases 1e4, 1e6, 1e7")
{
    const double half = 16.5 / 2.0;
    const double bases[] = {1e4, 1e6, 1e7};
    const std::int64_t first[] = {15, 35, 46};
    for (int i = 0; i < 3; ++i) {
        const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(posenc::RopeSpec::full(64, bases[i]));
        CHECK(posenc::first_distance_below(table, half, 1000) == first[i]);
    }
    // Not monotone: base 1e6 climbs back above half after r = 35 (last such r <= 1000 is 988).
    const posenc::FrequencyTable b6 = posenc::FrequencyTable::from_spec(posenc::RopeSpec::full(64, 1e6));
    CHECK(posenc::roformer_relative_bound(b6, 988.0) >= half);
    CHECK(!posenc::first_distance_below(b6, 0.1, 100));  // U never gets that low early on
}

TEST_CASE("[RoFormer] the sampled curve: count points from first to last inclusive")
{
    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(posenc::RopeSpec::full(64, 1e4));
    const std::vector<posenc::BoundSample> curve = posenc::roformer_bound_curve(table, 0.0, 100.0, 11);
    REQUIRE(curve.size() == 11);
    CHECK(curve.front().distance == 0.0);
    CHECK(curve.front().bound == 16.5);
    CHECK(curve[1].distance == 10.0);
    CHECK(relative_error(curve[1].bound, 8.81433442344) <= 1e-11);
    CHECK(curve.back().distance == 100.0);
    CHECK(relative_error(curve.back().bound, 7.46527659994) <= 1e-11);
}

}  // namespace analysis_roformer_bound_tests
