// SPDX-License-Identifier: MIT
// Lesson C2-2 "telling the model the index directly" (docs/lessons.md).
// Expected values are the lesson's own numbers (docs/lessons.md items 1-11);
// the checked values are computed through posenc's public API.
#include <posenc/encodings.hpp>
#include <posenc/spec.hpp>

#include <doctest/doctest.h>

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

namespace lessons_c2_2_index_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

TEST_CASE("[lesson C2-2 #10] Qwen3: 24 of 64 pairs never complete a turn within 32,768 (pairs 40..63)")
{
    const posenc::RopeSpec spec = posenc::models::qwen3_8b.rope_spec();
    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
    CHECK(table.num_pairs() == 64);
    CHECK(table.count_without_full_turn(32768) == 24);

    std::vector<int> expected;
    for (int i = 40; i <= 63; ++i) expected.push_back(i);  // lesson: theta_i * 32768 < 2pi for i = 40..63
    CHECK(table.pairs_without_full_turn(32768) == expected);
}

TEST_CASE("[lesson C2-2 #11] Qwen3.8: 64 rotary dims are 25% of 256, and 10 of 32 pairs never turn within 262,144")
{
    const posenc::RopeSpec spec = posenc::models::qwen3_8_27b.rope_spec();
    CHECK(spec.rotary_dim() == 64);
    CHECK(posenc::RopeSpec::from_partial_rotary_factor(256, 0.25, 1e7).rotary_dim() == spec.rotary_dim());

    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
    CHECK(table.num_pairs() == 32);
    CHECK(table.count_without_full_turn(262144) == 10);
    std::vector<int> expected;
    for (int i = 22; i <= 31; ++i) expected.push_back(i);  // docs/lessons.md: i = 22..31
    CHECK(table.pairs_without_full_turn(262144) == expected);
}

// ---- Items 1-9: the naive schemes and the learned table ------------------------------
// Expected values: the lesson's printed numbers, and closed forms from its text evaluated with
// python3 + mpmath at 40 digits (quoted next to each check). Content vectors are built as the
// lesson describes them: "content RMS 1" (or std 0.02) and orthogonal to the all-ones vector,
// here +-s alternating over 768 dims (GPT-2's n_embd; any even d gives the same numbers).

namespace {

// +s, -s, +s, ... : RMS exactly s, sum exactly 0 (orthogonal to 1).
Eigen::VectorXd alternating_content(int dim, double s)
{
    Eigen::VectorXd e(dim);
    for (int i = 0; i < dim; ++i) e(i) = (i % 2 == 0) ? s : -s;
    return e;
}

std::string error_message_of_lookup(const posenc::encodings::LearnedPositionTable& table, std::int64_t position)
{
    try {
        (void)table.lookup(position);
    } catch (const posenc::error& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("[lesson C2-2 #1] x = e + p*1: at p = 37 content (RMS 1) is 1/37 = 2.7% of the position signal")
{
    namespace enc = posenc::encodings;
    const Eigen::VectorXd e = alternating_content(768, 1.0);
    const Eigen::VectorXd x = enc::add_index_to_every_dim(e, 37);
    CHECK(enc::root_mean_square(x - e) == 37.0);  // the position signal 37*1 has RMS 37
    CHECK(enc::content_to_position_ratio(e, 37) == doctest::Approx(1.0 / 37.0).epsilon(1e-15));
    // The lesson prints 2.7% (1/37 = 0.027027027...).
    CHECK(enc::content_to_position_ratio(e, 37) * 100.0 == doctest::Approx(2.7).epsilon(0.002));
}

TEST_CASE("[lesson C2-2 #2] with the project's init scale (std 0.02) content is 2% of the position signal at p = 1")
{
    namespace enc = posenc::encodings;
    const Eigen::VectorXd e = alternating_content(768, 0.02);
    CHECK(enc::root_mean_square(e) == doctest::Approx(0.02).epsilon(1e-15));
    CHECK(enc::content_to_position_ratio(e, 1) == doctest::Approx(0.02).epsilon(1e-15));
}

TEST_CASE("[lesson C2-2 #3] ... and 0.054% at p = 37 (0.02/37 = 0.000540540...)")
{
    namespace enc = posenc::encodings;
    const Eigen::VectorXd e = alternating_content(768, 0.02);
    CHECK(enc::content_to_position_ratio(e, 37) == doctest::Approx(0.0005405405405405405).epsilon(1e-14));
    CHECK(enc::content_to_position_ratio(0.02, 37) * 100.0 == doctest::Approx(0.054).epsilon(0.001));
}

TEST_CASE("[lesson C2-2 #4] cosine of e + 37*1 with e is 1/sqrt(1 + 37^2) = 0.027017")
{
    namespace enc = posenc::encodings;
    const Eigen::VectorXd e = alternating_content(768, 1.0);
    const double cosine = enc::cosine_similarity(enc::add_index_to_every_dim(e, 37), e);
    // mpmath: 1/sqrt(1 + 37^2) = 0.027017161347914959531608...
    CHECK(cosine == doctest::Approx(0.027017161347914959).epsilon(1e-14));
    CHECK(cosine == doctest::Approx(0.027017).epsilon(1e-4));  // the widget's readout
}

TEST_CASE("[lesson C2-2 #5] at p = 262,143, after RMSNorm the vector is the all-ones direction: cosine > 0.999999")
{
    namespace enc = posenc::encodings;
    const std::int64_t p = 262143;
    const Eigen::VectorXd e = alternating_content(768, 1.0);
    const Eigen::VectorXd normed = enc::rms_norm(enc::add_index_to_every_dim(e, p));
    const Eigen::VectorXd ones = Eigen::VectorXd::Ones(768);
    const double cosine = enc::cosine_similarity(normed, ones);
    CHECK(cosine > 0.999999);
    // mpmath: p / sqrt(1 + p^2) = 0.99999999999272398687... (1 - cos = 7.276e-12)
    CHECK(cosine == doctest::Approx(0.99999999999272398687).epsilon(1e-14));
    // RMSNorm leaves RMS 1; what is left of the content (the part orthogonal to 1) has RMS
    // 1/sqrt(1 + p^2) = 3.8147118e-6 (mpmath).
    CHECK(enc::root_mean_square(normed) == doctest::Approx(1.0).epsilon(1e-12));
    const Eigen::VectorXd content_part = normed.array() - normed.mean();
    CHECK(enc::root_mean_square(content_part) == doctest::Approx(3.81471181756798384e-6).epsilon(1e-9));
}

TEST_CASE("[lesson C2-2 #6] index divided by length t/(T-1): neighbours differ by 1/2 = 0.5 in a 3-token sentence")
{
    namespace enc = posenc::encodings;
    CHECK(enc::normalized_neighbour_gap(3) == 0.5);
    CHECK(enc::normalized_index(0, 3) == 0.0);
    CHECK(enc::normalized_index(1, 3) == 0.5);
    CHECK(enc::normalized_index(2, 3) == 1.0);
}

TEST_CASE("[lesson C2-2 #7] ... by 1/1,023 = 0.000978 in 1,024 tokens; 0.5 is token #2 of 3 but about #512 of 1,024")
{
    namespace enc = posenc::encodings;
    // mpmath: 1/1023 = 0.00097751710654936461388...
    CHECK(enc::normalized_neighbour_gap(1024) == doctest::Approx(0.00097751710654936461).epsilon(1e-15));
    CHECK(enc::normalized_neighbour_gap(1024) == doctest::Approx(0.000978).epsilon(1e-3));  // the lesson's rounding
    CHECK(enc::normalized_index(512, 1024) - enc::normalized_index(511, 1024) ==
          doctest::Approx(1.0 / 1023.0).epsilon(1e-12));
    // The same value names different tokens: 0-based position 1 (token #2) of 3, 511.5 (about #512) of 1,024.
    CHECK(enc::position_named_by(0.5, 3) == 1.0);
    CHECK(enc::position_named_by(0.5, 1024) == 511.5);
}

TEST_CASE("[lesson C2-2 #8] GPT-2's learned position table: 1,024 rows x 768 dims = 786,432 parameters")
{
    namespace enc = posenc::encodings;
    const enc::LearnedPositionTable table = enc::LearnedPositionTable::from_preset(posenc::models::gpt2);
    CHECK(table.num_positions() == 1024);
    CHECK(table.dim() == 768);
    CHECK(table.parameter_count() == 786432);
    CHECK(table.parameter_count() == posenc::models::gpt2.learned_table_parameters());
    CHECK(enc::LearnedPositionTable::parameter_count(1024, 768) == 786432);
}

TEST_CASE("[lesson C2-2 #9] no row for position 1,024 (GPT-2) or 128 (course model); the forced run reuses row 127")
{
    namespace enc = posenc::encodings;
    const enc::LearnedPositionTable gpt2 = enc::LearnedPositionTable::from_preset(posenc::models::gpt2);
    CHECK_NOTHROW((void)gpt2.lookup(1023));
    CHECK(error_message_of_lookup(gpt2, 1024) ==
          "position 1024 must be < num_positions 1024 (the table has no row for it; "
          "OutOfRange::clamp_to_last_row reuses row 1023)");

    // The course's small model trained at length 128 (d_model 256): a 128-row table.
    Eigen::MatrixXd weights(128, 256);
    for (int r = 0; r < 128; ++r)
        for (int c = 0; c < 256; ++c) weights(r, c) = r + c / 1000.0;  // every row distinct
    const enc::LearnedPositionTable strict(weights);
    CHECK(error_message_of_lookup(strict, 128) ==
          "position 128 must be < num_positions 128 (the table has no row for it; "
          "OutOfRange::clamp_to_last_row reuses row 127)");

    // The lesson's forced experiment: every position from 128 on reads row 127, up to 512 and beyond.
    const enc::LearnedPositionTable forced(weights, enc::OutOfRange::clamp_to_last_row);
    for (std::int64_t p = 0; p < 128; ++p) CHECK(forced.lookup(p) == weights.row(p).transpose());
    for (std::int64_t p = 128; p < 512; ++p) {
        CHECK(forced.row_for(p) == 127);
        CHECK(forced.lookup(p) == weights.row(127).transpose());
    }
    // A 512-token sequence: its last 384 tokens all claim to stand at position 127.
    const Eigen::MatrixXd x = forced.add_to(Eigen::MatrixXd::Zero(512, 256));
    for (int t = 128; t < 512; ++t) CHECK(x.row(t) == weights.row(127));
}

}  // namespace lessons_c2_2_index_tests
