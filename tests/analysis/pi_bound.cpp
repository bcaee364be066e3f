// SPDX-License-Identifier: MIT
// Position Interpolation's Theorem 2.1 against RoFormer's extrapolation bound (Chen et al. 2023,
// arXiv 2306.15595 section 2.3 and Appendix A) and the correction P2 (docs/formulas.md) derives.
//
// Provenance: tests/scaling/hf_reference_values.py bounds: the coefficients in mpmath
// (d/(32 ln c); sum theta^2 = (1 - c^-2)/(1 - c^(-4/d)) and its eighth), the minima of B(s) by a
// float64 scan over integer s re-evaluated in mpmath; P2 (docs/formulas.md) prints the same to
// 4-5 digits (0.43429, 0.49979, 1.4075 at 1893, 1.1159 at 3643, 589.46, 658x, 572x, 0.8477,
// 0.6283, x1.151, x1.315).
#include <posenc/analysis/pi_bound.hpp>
#include <posenc/spec.hpp>

#include <doctest/doctest.h>

#include <cmath>

#include "scaling/checks.hpp"

namespace analysis_pi_bound_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

using posenc_test::relative_error;

TEST_CASE("[PI Theorem 2.1] grid coefficients, d 128, c 1e4: paper d/(32 ln c) = 0.434294, corrected 0.499789 (x1.151)")
{
    const posenc::RopeSpec d128 = posenc::RopeSpec::full(128, 1e4);
    const double paper = posenc::pi_grid_coefficient(d128, posenc::PiCoefficient::paper);
    const double corrected = posenc::pi_grid_coefficient(d128, posenc::PiCoefficient::corrected);
    CHECK(relative_error(paper, 0.434294481903252) <= 1e-14);
    CHECK(relative_error(corrected, 0.499788503162478) <= 1e-13);
    CHECK(128.0 / paper == doctest::Approx(294.73).epsilon(1e-5));  // eq. 7: d / 294.73 (the paper's number)
    // sum theta^2 = 3.99831 against the proof's d / (4 ln c) = 3.47436: the inequality is reversed.
    CHECK(relative_error(8.0 * corrected, 3.99830802529983) <= 1e-13);
    CHECK(8.0 * corrected > 128.0 / (4.0 * std::log(1e4)));
    CHECK(corrected / paper == doctest::Approx(1.151).epsilon(1e-3));
    const posenc::RopeSpec d64 = posenc::RopeSpec::full(64, 1e4);
    CHECK(relative_error(posenc::pi_grid_coefficient(d64, posenc::PiCoefficient::paper), 0.217147240951626) <= 1e-14);
    CHECK(relative_error(posenc::pi_grid_coefficient(d64, posenc::PiCoefficient::corrected), 0.285610696062098) <=
          1e-13);
    CHECK(posenc::pi_grid_coefficient(d64, posenc::PiCoefficient::corrected) /
              posenc::pi_grid_coefficient(d64, posenc::PiCoefficient::paper) ==
          doctest::Approx(1.315).epsilon(1e-3));
}

TEST_CASE("[PI eq. 5] the bound at s = 10.25 in [10, 11] is d (1/4)(3/4) / (8 ln c) = 0.325720861427439 (d 128)")
{
    const posenc::RopeSpec d128 = posenc::RopeSpec::full(128, 1e4);
    CHECK(relative_error(posenc::pi_interpolation_bound(d128, 10.25, 10.0, 11.0, posenc::PiCoefficient::paper),
                         0.325720861427439) <= 1e-14);
    // At the midpoint of a unit interval both forms reduce to their grid coefficient.
    for (auto which : {posenc::PiCoefficient::paper, posenc::PiCoefficient::corrected})
        CHECK(posenc::pi_interpolation_bound(d128, 10.5, 10.0, 11.0, which) ==
              doctest::Approx(posenc::pi_grid_coefficient(d128, which)).epsilon(1e-15));
    CHECK(posenc::pi_interpolation_bound(d128, 10.0, 10.0, 11.0, posenc::PiCoefficient::paper) == 0.0);
}

TEST_CASE("[PI eq. 8] B(s) = sum |A_k(s)|: B(0)/d = (d+2)/8; min over [0, 2048] at s = 1893 (1.40748 d), [0, 4096] at "
          "3643 (1.11591 d)")
{
    const posenc::FrequencyTable d128 = posenc::FrequencyTable::from_spec(posenc::RopeSpec::full(128, 1e4));
    CHECK(posenc::pi_extrapolation_sum(d128, 0.0) / 128.0 == doctest::Approx(130.0 / 8.0).epsilon(1e-15));  // 16.25
    const posenc::ExtrapolationSumMinimum m2048 = posenc::pi_extrapolation_sum_minimum(d128, 0, 2048);
    CHECK(m2048.distance == 1893);
    CHECK(relative_error(m2048.sum / 128.0, 1.40747526492) <= 1e-10);
    const posenc::ExtrapolationSumMinimum m4096 = posenc::pi_extrapolation_sum_minimum(d128, 0, 4096);
    CHECK(m4096.distance == 3643);
    CHECK(relative_error(m4096.sum / 128.0, 1.11590794802) <= 1e-10);
    // d = 64 breaks the paper's "B(s) >= d" premise.
    const posenc::FrequencyTable d64 = posenc::FrequencyTable::from_spec(posenc::RopeSpec::full(64, 1e4));
    const posenc::ExtrapolationSumMinimum s2048 = posenc::pi_extrapolation_sum_minimum(d64, 0, 2048);
    CHECK(s2048.distance == 1621);
    CHECK(relative_error(s2048.sum / 64.0, 0.847678293582) <= 1e-10);
    const posenc::ExtrapolationSumMinimum s4096 = posenc::pi_extrapolation_sum_minimum(d64, 0, 4096);
    CHECK(s4096.distance == 3901);
    CHECK(relative_error(s4096.sum / 64.0, 0.628285157724) <= 1e-10);
    CHECK(s4096.sum < 64.0);
}

TEST_CASE("[lesson C2-5 #20 / PI abstract] the interpolation bound is about 600x smaller: >= 589.46 when B >= d; 658x, "
          "572x corrected")
{
    const posenc::RopeSpec d128 = posenc::RopeSpec::full(128, 1e4);
    // 2 * d / (d / (32 ln c)) = 64 ln c = 589.46: the paper's "at least 2 * 294.73 ~ 600x".
    CHECK(relative_error(2.0 * 128.0 / posenc::pi_grid_coefficient(d128, posenc::PiCoefficient::paper),
                         589.461783806) <= 1e-11);
    CHECK(relative_error(posenc::pi_bound_ratio(d128, 0, 2048, posenc::PiCoefficient::paper), 829.6528803) <= 1e-9);
    CHECK(relative_error(posenc::pi_bound_ratio(d128, 0, 4096, posenc::PiCoefficient::paper), 657.7850896) <= 1e-9);
    CHECK(relative_error(posenc::pi_bound_ratio(d128, 0, 4096, posenc::PiCoefficient::corrected), 571.5866469) <= 1e-9);
    // d = 64: 370x with the paper's coefficient on [0, 4096], below 600.
    CHECK(relative_error(posenc::pi_bound_ratio(posenc::RopeSpec::full(64, 1e4), 0, 4096, posenc::PiCoefficient::paper),
                         370.3500898) <= 1e-9);
}

}  // namespace analysis_pi_bound_tests
