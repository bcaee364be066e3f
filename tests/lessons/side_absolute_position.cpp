// SPDX-License-Identifier: MIT
// Side lesson "does RoPE lose absolute position?" (docs/lessons.md
// items 29-32): 10 degrees per position, q at m = 5 and k at n = 2, then the
// whole sentence shifted by +18. Expected values are the lesson's angles and closed forms
// (cos 30 deg = sqrt(3)/2, sin 30 deg = 1/2); q and k are the lesson's "two ordinary 2-d
// vectors" (its widget does not print them, so any fixed pair serves).
#include <posenc/angles.hpp>
#include <posenc/frequencies.hpp>
#include <posenc/rotation.hpp>
#include <posenc/spec.hpp>

#include <doctest/doctest.h>

#include <Eigen/Core>
#include <cmath>

namespace lessons_side_absolute_position_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

constexpr double pi = 3.14159265358979323846;
constexpr double degree = pi / 180.0;

// A one-pair RoPE turning 10 degrees per position.
const posenc::RopeSpec ten_degree_spec(2, 2, 10000.0, posenc::Pairing::interleaved);
const posenc::FrequencyTable ten_degree_table(std::vector<double> {10.0 * degree});

const Eigen::Vector2d q(1.0, 0.5);
const Eigen::Vector2d k(0.8, -0.3);

Eigen::Vector2d rotated(const Eigen::Vector2d& v, std::int64_t position)
{
    return posenc::rotation_matrix(ten_degree_spec, ten_degree_table, position) * v;
}

double angle_of(const Eigen::Vector2d& v) { return std::atan2(v.y(), v.x()); }

// Closed form of q^T R(phi) k for phi = -30 degrees: R(-30) = [[c, s], [-s, c]], c = sqrt(3)/2, s = 1/2.
double expected_dot_at_minus_30()
{
    const double c = std::sqrt(3.0) / 2.0, s = 0.5;
    const Eigen::Vector2d rk(c * k.x() + s * k.y(), -s * k.x() + c * k.y());
    return q.dot(rk);
}

}  // namespace

TEST_CASE("[lesson side #29] 10 degrees per position: k at n = 2 turns 20, q at m = 5 turns 50, 30 apart")
{
    CHECK(posenc::reduced_angle(2, ten_degree_table.inv_freq(0)) == doctest::Approx(20.0 * degree).epsilon(1e-15));
    CHECK(posenc::reduced_angle(5, ten_degree_table.inv_freq(0)) == doctest::Approx(50.0 * degree).epsilon(1e-15));
    // The rotated vectors moved by exactly those angles.
    CHECK(angle_of(rotated(k, 2)) - angle_of(k) == doctest::Approx(20.0 * degree).epsilon(1e-14));
    CHECK(angle_of(rotated(q, 5)) - angle_of(q) == doctest::Approx(50.0 * degree).epsilon(1e-14));
}

TEST_CASE("[lesson side #30] shift by +18: k at 20 turns 200, q at 23 turns 230, the rotated dot product is unchanged")
{
    // 200 and 230 degrees, reported in [-180, 180]: -160 and -130.
    CHECK(posenc::reduced_angle(20, ten_degree_table.inv_freq(0)) == doctest::Approx((200.0 - 360.0) * degree));
    CHECK(posenc::reduced_angle(23, ten_degree_table.inv_freq(0)) == doctest::Approx((230.0 - 360.0) * degree));

    const double before = rotated(q, 5).dot(rotated(k, 2));
    const double after = rotated(q, 23).dot(rotated(k, 20));
    CHECK(before == doctest::Approx(expected_dot_at_minus_30()).epsilon(1e-14));
    CHECK(after == doctest::Approx(expected_dot_at_minus_30()).epsilon(1e-14));
    CHECK(after == doctest::Approx(before).epsilon(1e-14));
}

TEST_CASE("[lesson side #31] the rotated q at position 5 and at position 23 are different vectors")
{
    const Eigen::Vector2d q5 = rotated(q, 5);
    const Eigen::Vector2d q23 = rotated(q, 23);
    // 23 - 5 = 18 positions = 180 degrees apart: q23 = -q5 exactly in exact arithmetic.
    CHECK((q23 + q5).norm() < 1e-14);
    CHECK((q23 - q5).norm() == doctest::Approx(2.0 * q.norm()).epsilon(1e-14));
}

TEST_CASE("[lesson side #32] (R(m t) q).(R(n t) k) = q^T R((n - m) t) k, also for the block-diagonal multi-frequency R")
{
    // One frequency, from R(a)^T = R(-a) and R(a) R(b) = R(a + b).
    for (int m : {0, 5, 23, 1000})
        for (int n : {0, 2, 20, 999}) {
            const double lhs = rotated(q, m).dot(rotated(k, n));
            const double rhs = q.dot(posenc::rotation_2x2((n - m) * 10.0 * degree) * k);
            CHECK(lhs == doctest::Approx(rhs).epsilon(1e-13));
        }

    // Many frequencies (Qwen3-8B's 64 pairs), both pairings.
    for (posenc::Pairing pairing : {posenc::Pairing::half_split, posenc::Pairing::interleaved}) {
        const posenc::RopeSpec spec(128, 128, 1e6, pairing);
        const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
        const Eigen::VectorXd qv = Eigen::VectorXd::LinSpaced(128, -1.0, 1.0);
        const Eigen::VectorXd kv = Eigen::VectorXd::LinSpaced(128, 0.5, -0.7).array().sin();
        const std::int64_t m = 5, n = 2;
        const double lhs =
            (posenc::rotation_matrix(spec, table, m) * qv).dot(posenc::rotation_matrix(spec, table, n) * kv);
        const double rhs = qv.dot(posenc::rotation_matrix(spec, table, n - m) * kv);
        CHECK(lhs == doctest::Approx(rhs).epsilon(1e-13));
        const double shifted =
            (posenc::rotation_matrix(spec, table, m + 18) * qv).dot(posenc::rotation_matrix(spec, table, n + 18) * kv);
        CHECK(shifted == doctest::Approx(lhs).epsilon(1e-13));
    }
}

}  // namespace lessons_side_absolute_position_tests
