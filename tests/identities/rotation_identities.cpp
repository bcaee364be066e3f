// SPDX-License-Identifier: MIT
// Exact identities of the rotation group that RoPE relies on (RoFormer section 3.4, eq. 13-16).
// Each holds in exact arithmetic; the tolerances are a few ulp of double times the dimension.
#include <posenc/frequencies.hpp>
#include <posenc/rotation.hpp>
#include <posenc/spec.hpp>

#include <doctest/doctest.h>

#include <Eigen/Core>
#include <cstdint>
#include <random>
#include <vector>

namespace identities_rotation_identities_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

const posenc::Pairing both_pairings[] = {posenc::Pairing::half_split, posenc::Pairing::interleaved};

Eigen::VectorXd random_vector(int n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Eigen::VectorXd v(n);
    for (int i = 0; i < n; ++i) v[i] = u(rng);
    return v;
}

// A partial-rotary spec: 96 of 128 dims rotate, the last 32 pass through.
posenc::RopeSpec partial_spec(posenc::Pairing pairing) { return posenc::RopeSpec(128, 96, 1e4, pairing); }

}  // namespace

TEST_CASE("[identity] R(a)^T = R(-a) and R(a) R(b) = R(a + b) for 2x2 rotations")
{
    for (double a : {0.0, 0.3, -1.7, 3.14159, 100.0})
        for (double b : {0.0, 0.9, -2.5, 42.0}) {
            CAPTURE(a);
            CAPTURE(b);
            CHECK((posenc::rotation_2x2(a).transpose() - posenc::rotation_2x2(-a)).norm() < 1e-15);
            CHECK((posenc::rotation_2x2(a) * posenc::rotation_2x2(b) - posenc::rotation_2x2(a + b)).norm() < 1e-13);
        }
}

TEST_CASE("[identity] R_m^T R_n = R_{n-m} for the full block matrix, so (R_m q).(R_n k) = q^T R_{n-m} k")
{
    for (posenc::Pairing pairing : both_pairings) {
        const posenc::RopeSpec spec = partial_spec(pairing);
        const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
        const Eigen::VectorXd q = random_vector(128, 1), k = random_vector(128, 2);
        for (std::int64_t m : {0, 7, 4095, 131072})
            for (std::int64_t n : {0, 3, 4000, 1000000}) {
                CAPTURE(m);
                CAPTURE(n);
                const Eigen::MatrixXd rm = posenc::rotation_matrix(spec, table, m);
                const Eigen::MatrixXd rn = posenc::rotation_matrix(spec, table, n);
                CHECK((rm.transpose() * rn - posenc::rotation_matrix(spec, table, n - m)).norm() < 1e-13);
                const double lhs = (rm * q).dot(rn * k);
                const double rhs = q.dot(posenc::rotation_matrix(spec, table, n - m) * k);
                CHECK(lhs == doctest::Approx(rhs).epsilon(1e-12));
            }
    }
}

TEST_CASE("[identity] a rotation preserves norms; pass-through dims are untouched")
{
    for (posenc::Pairing pairing : both_pairings) {
        const posenc::RopeSpec spec = partial_spec(pairing);
        const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
        Eigen::VectorXd x = random_vector(128, 3);
        const Eigen::VectorXd original = x;
        posenc::apply_rope_reference(spec, table, x, 123456789);
        CHECK(x.norm() == doctest::Approx(original.norm()).epsilon(1e-14));
        CHECK((x.tail(32) - original.tail(32)).norm() == 0.0);
        CHECK((x.head(96) - original.head(96)).norm() > 0.1);
    }
}

TEST_CASE("[identity] position -m undoes position m; p0 then p1 equals p0 + p1")
{
    for (posenc::Pairing pairing : both_pairings) {
        const posenc::RopeSpec spec = partial_spec(pairing);
        const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
        const Eigen::VectorXd original = random_vector(128, 4);
        for (std::int64_t m : {1, 4095, 1 << 24, 2147483647}) {
            CAPTURE(m);
            Eigen::VectorXd x = original;
            posenc::apply_rope_reference(spec, table, x, m);
            posenc::apply_rope_reference(spec, table, x, -m);
            CHECK((x - original).norm() < 1e-13);
        }
        for (std::int64_t p0 : {3, 100000, 1 << 24})
            for (std::int64_t p1 : {5, 65536, 2000000000}) {
                CAPTURE(p0);
                CAPTURE(p1);
                Eigen::VectorXd two_steps = original, one_step = original;
                posenc::apply_rope_reference(spec, table, two_steps, p0);
                posenc::apply_rope_reference(spec, table, two_steps, p1);
                posenc::apply_rope_reference(spec, table, one_step, p0 + p1);
                CHECK((two_steps - one_step).norm() < 1e-13);
            }
    }
}

TEST_CASE("[identity] the matrix form and the pairwise scalar reference agree to 1e-12 in double")
{
    for (posenc::Pairing pairing : both_pairings)
        for (int rotary_dim : {2, 64, 96, 128}) {
            const posenc::RopeSpec spec(128, rotary_dim, 1e6, pairing);
            const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
            const Eigen::VectorXd q = random_vector(128, 5);
            for (std::int64_t m : {0, 1, 4095, 131072, 1000000, 1 << 24, 2147483647}) {
                CAPTURE(m);
                CAPTURE(rotary_dim);
                Eigen::VectorXd by_pairs = q;
                posenc::apply_rope_reference(spec, table, by_pairs, m);
                const Eigen::VectorXd by_matrix = posenc::rotation_matrix(spec, table, m) * q;
                CHECK((by_pairs - by_matrix).lpNorm<Eigen::Infinity>() < 1e-12);
            }
        }
}

TEST_CASE("[identity] the two pairings differ by a permutation: R_half = P R_interleaved P^T")
{
    const posenc::RopeSpec half(128, 96, 1e4, posenc::Pairing::half_split);
    const posenc::RopeSpec inter(128, 96, 1e4, posenc::Pairing::interleaved);
    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(half);
    const auto p = posenc::pairing_permutation(half);
    for (std::int64_t m : {1, 77, 1000000}) {
        const Eigen::MatrixXd r_half = posenc::rotation_matrix(half, table, m);
        const Eigen::MatrixXd r_inter = posenc::rotation_matrix(inter, table, m);
        CHECK((r_half - p * r_inter * p.transpose()).norm() == 0.0);
        CHECK((r_half - r_inter).norm() > 1.0);  // they are different matrices
    }
    // Interleaved R is block diagonal: nothing outside the 2x2 blocks on the diagonal.
    const Eigen::MatrixXd r = posenc::rotation_matrix(inter, table, 5);
    for (int row = 0; row < 96; ++row)
        for (int col = 0; col < 96; ++col)
            if (row / 2 != col / 2) CHECK(r(row, col) == 0.0);
}

}  // namespace identities_rotation_identities_tests

namespace identities_rotation_identities_tests {

TEST_CASE(
    "[identity] a slice at rotary_offset o rotates exactly as a head of rotary_dim placed at o; the rest is untouched")
{
    for (posenc::Pairing pairing : both_pairings) {
        // DeepSeek-V4's layout scaled down: the last 16 of 48 coordinates rotate.
        const posenc::RopeSpec suffix = posenc::RopeSpec::suffix(48, 16, 1e4, pairing);
        const posenc::RopeSpec alone(16, 16, 1e4, pairing);
        CHECK(suffix.rotary_offset() == 32);
        const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(alone);
        for (std::int64_t m : {0, 1, 77, 2147483647}) {
            Eigen::VectorXd head = random_vector(48, 7);
            Eigen::VectorXd slice = head.tail(16);
            const Eigen::VectorXd before = head;
            posenc::apply_rope_reference(suffix, table, head, m);
            posenc::apply_rope_reference(alone, table, slice, m);
            CHECK((head.head(32) - before.head(32)).norm() == 0.0);
            CHECK((head.tail(16) - slice).norm() == 0.0);
            // The matrix form agrees: identity outside the slice, the slice's own R inside.
            const Eigen::MatrixXd r = posenc::rotation_matrix(suffix, table, m);
            CHECK((r * before - head).norm() < 1e-14 * before.norm());
            CHECK((r.topLeftCorner(32, 32) - Eigen::MatrixXd::Identity(32, 32)).norm() == 0.0);
        }
    }
}

TEST_CASE("[identity] R_half = P R_interleaved P^T also for a slice at an offset")
{
    const posenc::RopeSpec half(40, 16, 1e4, posenc::Pairing::half_split, 20);
    const posenc::RopeSpec inter(40, 16, 1e4, posenc::Pairing::interleaved, 20);
    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(half);
    const auto p = posenc::pairing_permutation(half);
    for (std::int64_t m : {1, 1000000}) {
        const Eigen::MatrixXd r_half = posenc::rotation_matrix(half, table, m);
        const Eigen::MatrixXd r_inter = posenc::rotation_matrix(inter, table, m);
        CHECK((r_half - p * r_inter * p.transpose()).norm() == 0.0);
    }
}

TEST_CASE(
    "[identity] inverse RoPE on the output: rotating at -m undoes m (attention factor 1), as DeepSeek-V4's cos, -sin")
{
    const posenc::RopeSpec spec = posenc::RopeSpec::suffix(48, 16, 1e4, posenc::Pairing::interleaved);
    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
    for (std::int64_t m : {3, 4096, 2147483647}) {
        Eigen::VectorXd v = random_vector(48, 11);
        const Eigen::VectorXd before = v;
        posenc::apply_rope_reference(spec, table, v, m);
        posenc::apply_rope_reference(spec, table, v, -m);
        CHECK((v - before).norm() < 4e-15 * before.norm());
        // R(-m) = R(m)^T (an orthogonal matrix).
        CHECK((posenc::rotation_matrix(spec, table, -m) - posenc::rotation_matrix(spec, table, m).transpose()).norm() <
              1e-14);
    }
}

TEST_CASE("[identity] pairs of frequency 0 (proportional RoPE) are left bit-identical at every position")
{
    const posenc::RopeSpec spec = posenc::RopeSpec::full(16, 1e6);
    const posenc::FrequencyTable table({1.0, 0.3, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0});
    for (std::int64_t m : {1, 123456789}) {
        Eigen::VectorXd v = random_vector(16, 3);
        const Eigen::VectorXd before = v;
        posenc::apply_rope_reference(spec, table, v, m);
        for (int i = 2; i < 8; ++i) {
            CHECK(v[i] == before[i]);
            CHECK(v[i + 8] == before[i + 8]);
        }
        CHECK(v[0] != before[0]);
    }
}

}  // namespace identities_rotation_identities_tests
