// SPDX-License-Identifier: MIT
// Men et al. 2024, "Base of RoPE bounds context length" (arXiv 2405.14591, eqs. 9-11), against
// P4 (docs/formulas.md)
//
// Provenance: L_theta at the paper's printed bases (27,000 -> 4,078; 310,000 -> 12,222;
// 7.8e6 -> 128,914) and the smallest passing bases on a 1e-5 grid (1K 4,293.45, 4K 26,952.5,
// reproducing Su's brute force) are docs/formulas.md P4's, which computed them with a separate
// C program; the values at 26,952.5 and 4,293.45 and one grid step below them
// (4,188 / 4,011 and 1,076 / 1,008) were recomputed by direct float64 summation in
// tests/scaling/hf_reference_values.py (men_first_negative).
#include <posenc/analysis/base_bound.hpp>
#include <posenc/spec.hpp>

#include <doctest/doctest.h>

#include <cmath>

#include "scaling/checks.hpp"

namespace analysis_base_bound_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {
posenc::FrequencyTable table_128(double base)
{
    return posenc::FrequencyTable::from_spec(posenc::RopeSpec::full(128, base));
}
}  // namespace

TEST_CASE("[Men 2024 eq. 9] B_{m,theta} = sum_i cos(m theta_i): P at m = 0, equal to the direct sum")
{
    const posenc::FrequencyTable t = table_128(27000.0);
    CHECK(posenc::similarity_margin(t, 0) == 64.0);
    double direct = 0.0;
    for (int i = 0; i < 64; ++i) direct += std::cos(4079.0 * std::pow(27000.0, -2.0 * i / 128.0));
    CHECK(posenc::similarity_margin(t, 4079) == doctest::Approx(direct).epsilon(1e-12));
    CHECK(posenc::similarity_margin(t, 4079) < 0.0);  // the first negative m for base 27,000
}

TEST_CASE("[Men et al. / P4] L_theta at the paper's printed bases: 2.7e4 -> 4,078, 3.1e5 -> 12,222, 7.8e6 -> 128,914 "
          "(just short)")
{
    CHECK(posenc::max_context_length(table_128(2.7e4), 1 << 20) == 4078);
    CHECK(posenc::max_context_length(table_128(3.1e5), 1 << 20) == 12222);
    CHECK(posenc::max_context_length(table_128(7.8e6), 1 << 20) == 128914);
    // Capped by the search limit when B stays non-negative that far.
    CHECK(posenc::max_context_length(table_128(7.8e6), 1000) == 1000);
}

TEST_CASE("[Men 2024 eq. 10] the phasor recurrence agrees with the direct sum on the first negative m")
{
    for (double base : {4293.45, 26952.5, 1.0e5}) {
        CAPTURE(base);
        const posenc::FrequencyTable t = table_128(base);
        const std::int64_t L = posenc::max_context_length(t, 20000);
        for (std::int64_t m = 0; m <= L; ++m)
            if (posenc::similarity_margin(t, m) < -1e-10) FAIL("direct sum negative inside L_theta at m = " << m);
        if (L < 20000) CHECK(posenc::similarity_margin(t, L + 1) < 0.0);
    }
}

TEST_CASE(
    "[Men et al. / Su / P4] smallest base on a 1e-5 grid: 1K -> 4,293.45, 4K -> 26,952.5; knife-edged one step below")
{
    const std::optional<double> b1k = posenc::smallest_base_for_context(128, 1024, {4280.0, 4300.0, 1.00001});
    REQUIRE(b1k);
    CHECK(std::abs(*b1k / 4293.45 - 1.0) <= 2e-5);  // within two grid steps of Su's value
    const std::optional<double> b4k = posenc::smallest_base_for_context(128, 4096, {26900.0, 27000.0, 1.00001});
    REQUIRE(b4k);
    CHECK(std::abs(*b4k / 26952.5 - 1.0) <= 2e-5);
    // Knife edge: the printed values pass with little room, one 1e-5 step below fails far short.
    CHECK(posenc::max_context_length(table_128(26952.5), 8192) == 4188);
    CHECK(posenc::max_context_length(table_128(26952.5 / 1.00001), 8192) == 4011);
    CHECK(posenc::max_context_length(table_128(4293.45), 8192) == 1076);
    CHECK(posenc::max_context_length(table_128(4293.45 / 1.00001), 8192) == 1008);
    // A grid that misses the window returns nothing.
    CHECK(!posenc::smallest_base_for_context(128, 4096, {26000.0, 26900.0, 1.0001}));
}

}  // namespace analysis_base_bound_tests
