// SPDX-License-Identifier: MIT
// Clipped relative positions (include/posenc/encodings/shaw_relative.hpp), Shaw et al. 2018
// (arXiv 1803.02155) section 3, eqs. 3-4. Expected values: P5 (docs/formulas.md) (k = 16:
// j - i = -200 -> -16, +5 -> +5; 2k + 1 vectors), the clip formula max(-k, min(k, x)), and
// eqs. 3-4 evaluated term by term with Eigen in the test.
#include <posenc/encodings/shaw_relative.hpp>

#include <doctest/doctest.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace encodings_shaw_relative_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

namespace enc = posenc::encodings;

Eigen::MatrixXd fixed_matrix(int rows, int cols, double seed)
{
    Eigen::MatrixXd m(rows, cols);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) m(r, c) = std::sin(0.9 * r + 0.53 * c + seed);
    return m;
}

}  // namespace

TEST_CASE("[Shaw 3 / P5] k = 16: j - i = -200 -> offset -16, +5 -> +5; 2k + 1 = 33 vectors")
{
    const enc::ClippedRelativePositions table(16, 64);
    CHECK(table.num_vectors() == 33);
    CHECK(table.parameter_count() == 33 * 64);
    CHECK(table.offset(200, 0) == -16);  // query at 200, key at 0: j - i = -200
    CHECK(table.offset(0, 5) == 5);
    CHECK(enc::clipped_relative_position(1000, 800, 16) == -16);
    CHECK(enc::clipped_relative_position(10, 15, 16) == 5);
    CHECK(table.index(200, 0) == 0);  // w_{-16} is row 0
    CHECK(table.index(0, 5) == 21);  // w_{+5} is row 5 + 16
    CHECK(table.index(7, 7) == 16);  // w_0 in the middle
}

TEST_CASE("[Shaw 2018 section 3] clip(x, k) = max(-k, min(k, x)) for every offset in [-40, 40] and k in {0, 1, 8, 16}")
{
    for (int k : {0, 1, 8, 16})
        for (int x = -40; x <= 40; ++x) {
            const int expected = std::max(-k, std::min(k, x));
            CHECK(enc::clipped_relative_position(100, 100 + x, k) == expected);
        }
    // Exact for any int64 positions (no overflow in j - i).
    const std::int64_t lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
    CHECK(enc::clipped_relative_position(lo, hi, 16) == 16);
    CHECK(enc::clipped_relative_position(hi, lo, 16) == -16);
    CHECK(enc::clipped_relative_position(hi, hi - 3, 16) == -3);
}

TEST_CASE("[Shaw 2018 section 3] every distance beyond k shares the end vector; k = 0 shares one vector for all")
{
    Eigen::MatrixXd vectors(9, 3);  // k = 4: rows w_{-4} .. w_{4}
    for (int r = 0; r < 9; ++r) vectors.row(r) = Eigen::RowVector3d(r, 10.0 * r, -r);
    const enc::ClippedRelativePositions table(4, vectors);
    for (std::int64_t far : {4, 5, 17, 1000000}) {
        CHECK(table.vector(0, far) == vectors.row(8).transpose());
        CHECK(table.vector(far, 0) == vectors.row(0).transpose());
    }
    CHECK(table.vector(10, 13) == vectors.row(7).transpose());  // j - i = 3 -> w_3

    const enc::ClippedRelativePositions single(0, 5);
    CHECK(single.num_vectors() == 1);
    for (std::int64_t j : {-50, 0, 50}) CHECK(single.index(0, j) == 0);
}

TEST_CASE("[Shaw 2018 section 3] only j - i enters: the index matrix is constant along diagonals")
{
    const enc::ClippedRelativePositions table(3, 2);
    const Eigen::MatrixXi m = table.index_matrix(10);
    for (int i = 0; i < 10; ++i)
        for (int j = 0; j < 10; ++j) {
            CHECK(m(i, j) == std::max(-3, std::min(3, j - i)) + 3);
            CHECK(table.index(i + 1000, j + 1000) == m(i, j));  // the whole sentence shifted
        }
}

TEST_CASE("[Shaw 2018 eq. 4, eq. 3] logits q_i.(k_j + a^K_ij)/sqrt(d) and outputs sum_j alpha_ij (v_j + a^V_ij)")
{
    const int tokens = 6, dim = 4, k = 2;
    const Eigen::MatrixXd q = fixed_matrix(tokens, dim, 0.1), keys = fixed_matrix(tokens, dim, 2.2),
                          values = fixed_matrix(tokens, dim, 3.7);
    const Eigen::MatrixXd wk = fixed_matrix(2 * k + 1, dim, 5.5), wv = fixed_matrix(2 * k + 1, dim, 8.8);
    const enc::ClippedRelativePositions a_key(k, wk), a_value(k, wv);

    const Eigen::MatrixXd e = a_key.logits(q, keys);
    Eigen::MatrixXd alpha(tokens, tokens);
    for (int i = 0; i < tokens; ++i) {
        for (int j = 0; j < tokens; ++j) {
            const int row = std::max(-k, std::min(k, j - i)) + k;
            const double expected = (q.row(i).dot(keys.row(j)) + q.row(i).dot(wk.row(row))) / 2.0;  // sqrt(4)
            CHECK(e(i, j) == doctest::Approx(expected).epsilon(1e-14));
        }
        const Eigen::RowVectorXd ex = (e.row(i).array() - e.row(i).maxCoeff()).exp();
        alpha.row(i) = ex / ex.sum();
    }

    const Eigen::MatrixXd z = a_value.outputs(alpha, values);
    for (int i = 0; i < tokens; ++i) {
        Eigen::RowVectorXd expected = Eigen::RowVectorXd::Zero(dim);
        for (int j = 0; j < tokens; ++j)
            expected += alpha(i, j) * (values.row(j) + wv.row(std::max(-k, std::min(k, j - i)) + k));
        CHECK((z.row(i) - expected).cwiseAbs().maxCoeff() < 1e-14);
    }
}

}  // namespace encodings_shaw_relative_tests
