// SPDX-License-Identifier: MIT
// ALiBi (include/posenc/encodings/alibi.hpp), Press et al. 2021 (arXiv 2108.12409) section 3.
// Expected values: P5 (docs/formulas.md) (slopes 2^(-8h/n) for powers of two; the
// non-power-of-two lists for n = 6, 12, 20, written as powers of two and evaluated with
// std::exp2 here), the bias -m (i - j) of section 3, and a closed form of the softmax.
#include <posenc/encodings/alibi.hpp>
#include <posenc/encodings/attention.hpp>

#include <doctest/doctest.h>

#include <Eigen/Core>
#include <cmath>
#include <limits>
#include <vector>

namespace encodings_alibi_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

namespace enc = posenc::encodings;

// 2^(-e) for each exponent e.
std::vector<double> powers_of_two(const std::vector<double>& exponents)
{
    std::vector<double> out;
    for (double e : exponents) out.push_back(std::exp2(-e));
    return out;
}

void check_slopes(int heads, const std::vector<double>& exponents)
{
    const std::vector<double> slopes = enc::alibi_slopes(heads);
    const std::vector<double> expected = powers_of_two(exponents);
    REQUIRE(slopes.size() == expected.size());
    for (std::size_t h = 0; h < slopes.size(); ++h) {
        CAPTURE(h);
        CHECK(slopes[h] == doctest::Approx(expected[h]).epsilon(1e-15));
    }
}

}  // namespace

TEST_CASE("[ALiBi 3 / P5] 8 heads: slopes 1/2, 1/4, ..., 1/256 (exactly)")
{
    const std::vector<double> slopes = enc::alibi_slopes(8);
    REQUIRE(slopes.size() == 8);
    for (int h = 1; h <= 8; ++h) CHECK(slopes[static_cast<std::size_t>(h - 1)] == std::ldexp(1.0, -h));
}

TEST_CASE("[ALiBi 3 / P5] 16 heads: 2^-0.5, 2^-1, ..., 2^-8")
{
    std::vector<double> e;
    for (int h = 1; h <= 16; ++h) e.push_back(0.5 * h);
    check_slopes(16, e);
    CHECK(enc::alibi_slopes(1) == std::vector<double> {1.0 / 256.0});  // n = 1: 2^-8
}

TEST_CASE("[ALiBi 3 / P5] n = 6: 2^-2, 2^-4, 2^-6, 2^-8, then 2^-1, 2^-3") { check_slopes(6, {2, 4, 6, 8, 1, 3}); }

TEST_CASE("[ALiBi 3 / P5] n = 12: 2^-1 ... 2^-8, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5")
{
    check_slopes(12, {1, 2, 3, 4, 5, 6, 7, 8, 0.5, 1.5, 2.5, 3.5});
}

TEST_CASE("[ALiBi 3 / P5] n = 20: 2^-0.5 ... 2^-8 (step 0.5), then 2^-0.25, 2^-0.75, 2^-1.25, 2^-1.75")
{
    std::vector<double> e;
    for (int h = 1; h <= 16; ++h) e.push_back(0.5 * h);
    for (double x : {0.25, 0.75, 1.25, 1.75}) e.push_back(x);
    check_slopes(20, e);
}

TEST_CASE("[Press 2021 section 3] causal bias: row i is m * [-i, ..., -2, -1, 0], then masked")
{
    const double m = 0.25;
    const Eigen::MatrixXd bias = enc::alibi_causal_bias(m, 5);
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 5; ++j) {
            if (j <= i) CHECK(bias(i, j) == -m * (i - j));
            else CHECK(bias(i, j) == -std::numeric_limits<double>::infinity());
        }
    CHECK(bias(4, 0) == -1.0);
    CHECK(bias(4, 4) == 0.0);
}

TEST_CASE("[Press 2021 section 3] on identical tokens ALiBi weights decay by exp(-m) per step back")
{
    // All tokens equal: every content logit is the same, so softmax over keys 0..i of -m (i - j)
    // gives weight(i, j) = exp(-m (i - j)) / sum_{t=0..i} exp(-m t).
    const int length = 6;
    const double m = enc::alibi_slopes(8)[0];  // 1/2
    Eigen::MatrixXd w(3, 2);
    w << 0.3, -0.2, 0.1, 0.5, -0.4, 0.7;
    const enc::SingleHeadAttention head(w, w, w);
    const Eigen::MatrixXd x = Eigen::MatrixXd::Ones(length, 3);
    const Eigen::MatrixXd a = head.weights(x, enc::alibi_causal_bias(m, length));
    for (int i = 0; i < length; ++i) {
        double total = 0.0;
        for (int t = 0; t <= i; ++t) total += std::exp(-m * t);
        for (int j = 0; j <= i; ++j) CHECK(a(i, j) == doctest::Approx(std::exp(-m * (i - j)) / total).epsilon(1e-14));
        for (int j = i + 1; j < length; ++j) CHECK(a(i, j) == 0.0);
    }
}

}  // namespace encodings_alibi_tests
