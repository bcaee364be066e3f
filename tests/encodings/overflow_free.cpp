// SPDX-License-Identifier: MIT
// Finite inputs whose squares or products leave double's range. RMS, cosine similarity and
// RMSNorm scale their vectors by a power of two first (as hypot does), so they give finite,
// correct results where v_i^2 overflows (1e200) or underflows (1e-200), and the very numbers the
// plain formulas give wherever those are normal. The single-head attention refuses, naming x,
// what is not representable: projections or logits beyond double (the softmax would give NaN).
// Expected values are exact identities: RMS(c, c) = c, RMS(3c, 4c) = c sqrt(12.5),
// cos(v, 2^k v) = 1, cos of orthogonal vectors = 0, RMSNorm(c, c) = (1, 1) for c^2 >> epsilon.
#include <posenc/encodings/additive_index.hpp>
#include <posenc/encodings/attention.hpp>

#include <doctest/doctest.h>

#include "support/error_messages.hpp"

#include <Eigen/Core>
#include <cmath>
#include <string>

namespace encodings_overflow_free_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {
using test_support::message_of;

Eigen::VectorXd vec(std::initializer_list<double> values)
{
    Eigen::VectorXd v(static_cast<Eigen::Index>(values.size()));
    Eigen::Index i = 0;
    for (double x : values) v(i++) = x;
    return v;
}

bool close(double got, double want, double relative = 4e-16)
{
    return std::abs(got - want) <= relative * std::abs(want);
}
}  // namespace

TEST_CASE("[RMS identities] RMS of finite entries is finite and exact where v_i^2 overflows or underflows")
{
    namespace enc = posenc::encodings;
    CHECK(enc::root_mean_square(vec({1e200, 1e200})) == 1e200);
    CHECK(enc::root_mean_square(vec({-1.7e308, 1.7e308, -1.7e308})) == 1.7e308);
    CHECK(close(enc::root_mean_square(vec({3e200, 4e200})), std::sqrt(12.5) * 1e200, 1e-15));
    CHECK(close(enc::root_mean_square(vec({3e-200, 4e-200})), std::sqrt(12.5) * 1e-200, 1e-15));
    CHECK(enc::root_mean_square(vec({1e-310, 1e-310})) == 1e-310);  // subnormal entries
    CHECK(enc::root_mean_square(vec({0.0, 0.0})) == 0.0);
    CHECK(close(enc::content_to_position_ratio(vec({1e200, 1e200}), 4), 0.25e200, 1e-15));
}

TEST_CASE("[cosine identities] cos(v, 2^k v) = 1 and orthogonal vectors give 0, whatever the magnitudes")
{
    namespace enc = posenc::encodings;
    CHECK(close(enc::cosine_similarity(vec({1e200, 1e200}), vec({1.0, 1.0})), 1.0));
    CHECK(close(enc::cosine_similarity(vec({1e300, -1e300, 3e300}), vec({1e-300, -1e-300, 3e-300})), 1.0));
    CHECK(enc::cosine_similarity(vec({1e300, 1e300}), vec({1e300, -1e300})) == 0.0);
    CHECK(close(enc::cosine_similarity(vec({1e200, 0.0}), vec({1e200, 1e200})), std::sqrt(0.5)));
    CHECK(message_of([] { enc::cosine_similarity(vec({0.0, 0.0}), vec({1.0, 1.0})); }) == "a.norm 0 must be > 0");
}

TEST_CASE("[RMSNorm, Zhang & Sennrich eq. 4] finite x gives a finite result of RMS 1 where mean(x_i^2) overflows or "
          "underflows")
{
    namespace enc = posenc::encodings;
    const Eigen::VectorXd big = enc::rms_norm(vec({1e200, 1e200}));
    CHECK(close(big(0), 1.0));
    CHECK(close(big(1), 1.0));
    const Eigen::VectorXd tiny = enc::rms_norm(vec({3e-200, 4e-200}), 0.0);  // epsilon 0: x / RMS(x)
    CHECK(close(tiny(0), 3.0 / std::sqrt(12.5), 1e-15));
    CHECK(close(tiny(1), 4.0 / std::sqrt(12.5), 1e-15));
    // |x| far below sqrt(epsilon): x / sqrt(epsilon)
    const Eigen::VectorXd damped = enc::rms_norm(vec({1e-200, -2e-200}), 1e-6);
    CHECK(close(damped(0), 1e-197, 1e-15));
    CHECK(close(damped(1), -2e-197, 1e-15));
    CHECK(message_of([] { enc::rms_norm(vec({0.0, 0.0}), 0.0); }) == "x.rms 0 must be > 0 when epsilon is 0");
}

TEST_CASE("[RMS, cosine, RMSNorm] ordinary vectors give the plain formulas' numbers bit for bit")
{
    namespace enc = posenc::encodings;
    for (int seed = 1; seed <= 20; ++seed) {
        Eigen::VectorXd a(16), b(16);
        for (int i = 0; i < 16; ++i) {
            a(i) = std::sin(seed * 1.3 + i * 0.7) * std::pow(10.0, (seed % 7) - 3);
            b(i) = std::cos(seed * 0.9 - i * 1.1) * 0.02;
        }
        CHECK(enc::root_mean_square(a) == std::sqrt(a.squaredNorm() / 16.0));
        CHECK(enc::cosine_similarity(a, b) == a.dot(b) / (a.norm() * b.norm()));
        const Eigen::VectorXd plain = a / std::sqrt(a.squaredNorm() / 16.0 + 1e-6);
        CHECK(enc::rms_norm(a) == plain);
    }
}

TEST_CASE(
    "[Vaswani eq. 1] projections and logits beyond double are refused naming x; a logit + bias overflow names the bias")
{
    namespace enc = posenc::encodings;
    const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(2, 2);
    const enc::SingleHeadAttention attention(identity, identity, identity);
    const Eigen::MatrixXd huge = Eigen::MatrixXd::Constant(3, 2, 1e300);
    const std::string logits =
        "x 3x2 must keep the logits Q K^T / sqrt(d_key) finite in double (the products overflow, "
        "the softmax would give NaN)";
    CHECK(message_of([&] { attention.logits(huge); }) == logits);
    CHECK(message_of([&] { attention.logits(huge, enc::causal_mask(3)); }) == logits);
    CHECK(message_of([&] { attention.weights(huge, Eigen::MatrixXd::Zero(3, 3)); }) == logits);
    CHECK(message_of([&] { attention.forward(huge); }) == logits);
    CHECK(message_of([&] { attention.forward(huge, enc::AttentionMask::causal); }) == logits);

    const enc::SingleHeadAttention loud(1e300 * identity, identity, identity);
    CHECK(message_of([&] { loud.queries(huge); }) ==
          "x 3x2 must keep X W_q finite in double (a product or a sum overflows)");
    CHECK(message_of([&] { loud.forward(huge); }) ==
          "x 3x2 must keep X W_q finite in double (a product or a sum overflows)");
    const enc::SingleHeadAttention loud_values(identity, identity, 1e300 * identity);
    CHECK(message_of([&] { loud_values.values(huge); }) ==
          "x 3x2 must keep X W_v finite in double (a product or a sum overflows)");

    // logits 1e154^2 / sqrt(2) = 7.1e307 are finite; a bias of 1.5e308 on top is not
    Eigen::MatrixXd x = Eigen::MatrixXd::Zero(2, 2);
    x(0, 0) = 1e154;
    x(1, 0) = 1e154;
    Eigen::MatrixXd bias = Eigen::MatrixXd::Zero(2, 2);
    bias(1, 0) = 1.5e308;
    const std::string bias_error = message_of([&] { attention.forward(x, bias); });
    CHECK(bias_error.rfind("bias(1, 0) 1.5e+308 must keep logit + bias finite in double (logit 7.07", 0) == 0);
    // a finite negative sum past -DBL_MAX would mask the key by accident
    x(1, 0) = -1e154;
    bias(1, 0) = -1.5e308;
    CHECK(message_of([&] {
              attention.logits(x, bias);
          }).rfind("bias(1, 0) -1.5e+308 must keep logit + bias finite in double (logit -7.07", 0) == 0);
    // finite results are untouched: a masked key stays -inf
    CHECK(std::isinf(attention.logits(Eigen::MatrixXd::Ones(3, 2), enc::causal_mask(3))(0, 1)));
    CHECK(attention.forward(Eigen::MatrixXd::Constant(3, 2, 1e150)).allFinite());
}

}  // namespace encodings_overflow_free_tests
