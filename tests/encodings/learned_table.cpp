// SPDX-License-Identifier: MIT
// Learned absolute position table (include/posenc/encodings/learned_table.hpp).
// Sources: lesson C2-2 (x_t = E[id_t] + P[t]; GPT-2 1,024 x 768; no row beyond the table; the
// forced clamp-to-row-127 run), docs/lessons.md items 8-9. The lesson's own numbers are in
// tests/lessons/c2_2_index.cpp; this file checks the table's behaviour around them.
#include <posenc/encodings/learned_table.hpp>
#include <posenc/spec.hpp>

#include <doctest/doctest.h>

#include <Eigen/Core>
#include <cstdint>
#include <initializer_list>
#include <string>

namespace encodings_learned_table_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {
namespace enc = posenc::encodings;

Eigen::MatrixXd numbered_rows(int rows, int cols)
{
    Eigen::MatrixXd m(rows, cols);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) m(r, c) = 100.0 * r + c;
    return m;
}
}  // namespace

TEST_CASE("[lesson C2-2] x_t = E[id_t] + P[t]: add_to adds row first + t to token t")
{
    const Eigen::MatrixXd p = numbered_rows(8, 4);  // the lesson's small scale: L = 8, d = 4
    const enc::LearnedPositionTable table(p);
    CHECK(table.parameter_count() == 32);
    CHECK(table.policy() == enc::OutOfRange::error);
    const Eigen::MatrixXd e = Eigen::MatrixXd::Constant(3, 4, 0.5);  // T = 3 tokens
    const Eigen::MatrixXd x = table.add_to(e);
    for (int t = 0; t < 3; ++t) CHECK(x.row(t) == (e.row(t) + p.row(t)));
    const Eigen::MatrixXd shifted = table.add_to(e, 5);
    for (int t = 0; t < 3; ++t) CHECK(shifted.row(t) == (e.row(t) + p.row(5 + t)));
    CHECK_THROWS_AS(table.add_to(e, 6), posenc::error);  // positions 6, 7, 8: no row 8
}

TEST_CASE("[lesson C2-2] the table is trainable data: writes show up in lookups; rows are independent")
{
    enc::LearnedPositionTable table(4, 2);
    CHECK(table.lookup(3) == Eigen::Vector2d::Zero());
    table.weights().row(3) << 1.5, -2.0;
    CHECK(table.lookup(3) == Eigen::Vector2d(1.5, -2.0));
    CHECK(table.lookup(2) == Eigen::Vector2d::Zero());  // position 2 learned nothing from position 3
}

TEST_CASE("[lesson C2-2 #9] clamp_to_last_row is explicit and only affects positions >= L")
{
    const Eigen::MatrixXd p = numbered_rows(8, 2);
    const enc::LearnedPositionTable clamped(p, enc::OutOfRange::clamp_to_last_row);
    CHECK(std::string(enc::to_string(clamped.policy())) == "clamp_to_last_row");
    for (std::int64_t t = 0; t < 8; ++t) CHECK(clamped.row_for(t) == t);
    for (std::int64_t t : std::initializer_list<std::int64_t> {8, 9, 100, std::int64_t {1} << 40})
        CHECK(clamped.row_for(t) == 7);
    CHECK_THROWS_AS((void)clamped.row_for(-1), posenc::error);  // negative positions never clamp
    // Sixteen tokens from position 0: tokens 8..15 all get row 7.
    const Eigen::MatrixXd x = clamped.add_to(Eigen::MatrixXd::Zero(16, 2));
    for (int t = 8; t < 16; ++t) CHECK(x.row(t) == p.row(7));
}

TEST_CASE("[presets] the GPT-2 table agrees with models::gpt2 (n_positions 1,024 x n_embd 768)")
{
    const enc::LearnedPositionTable table = enc::LearnedPositionTable::from_preset(posenc::models::gpt2);
    CHECK(table.num_positions() == posenc::models::gpt2.native_length);
    CHECK(table.dim() == posenc::models::gpt2.d_model);
    CHECK(table.parameter_count() == posenc::models::gpt2.learned_table_parameters());
    const enc::LearnedPositionTable clamped =
        enc::LearnedPositionTable::from_preset(posenc::models::gpt2, enc::OutOfRange::clamp_to_last_row);
    CHECK(clamped.row_for(5000) == 1023);
}

}  // namespace encodings_learned_table_tests
