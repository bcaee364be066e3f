// SPDX-License-Identifier: MIT
// Invalid inputs to the classic encodings (include/posenc/encodings/): each throws posenc::error
// whose message names the field, the value and the rule (checked once, at the public entry
// point): zero or negative sizes, k < 0, odd num_buckets when bidirectional, max_distance <= the
// exact range, NaN).
#include <posenc/encodings.hpp>
#include <posenc/spec.hpp>

#include <doctest/doctest.h>

#include "support/error_messages.hpp"

#include <Eigen/Core>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace errors_encodings_errors_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

namespace enc = posenc::encodings;

using test_support::message_of;

using test_support::infinity;
using test_support::not_a_number;

Eigen::MatrixXd with_nan_at(Eigen::MatrixXd m, int r, int c)
{
    m(r, c) = not_a_number;
    return m;
}

}  // namespace

TEST_CASE("[errors] SingleHeadAttention: shapes, NaN weights and inputs, bias rows that mask every key")
{
    const Eigen::MatrixXd w = Eigen::MatrixXd::Identity(4, 4);
    CHECK(message_of([] {
              enc::SingleHeadAttention(Eigen::MatrixXd(0, 4), Eigen::MatrixXd(0, 4), Eigen::MatrixXd(0, 4));
          }) == "w_query.rows 0 must be > 0");
    CHECK(message_of([&] { enc::SingleHeadAttention(w, Eigen::MatrixXd::Identity(4, 3), w); }) ==
          "w_key.cols 3 must equal w_query.cols 4");
    CHECK(message_of([&] { enc::SingleHeadAttention(w, w, Eigen::MatrixXd::Identity(5, 4)); }) ==
          "w_value.rows 5 must equal w_query.rows 4");
    CHECK(message_of([&] { enc::SingleHeadAttention(w, with_nan_at(w, 1, 2), w); }) ==
          "w_key(1, 2) nan must be finite");

    const enc::SingleHeadAttention head(w, w, w);
    CHECK(message_of([&] { (void)head.forward(Eigen::MatrixXd(0, 4)); }) == "x.rows 0 must be > 0 (tokens)");
    CHECK(message_of([&] { (void)head.forward(Eigen::MatrixXd::Ones(3, 5)); }) == "x.cols 5 must equal d_model 4");
    CHECK(message_of([&] { (void)head.forward(with_nan_at(Eigen::MatrixXd::Ones(3, 4), 2, 0)); }) ==
          "x(2, 0) nan must be finite");
    const Eigen::MatrixXd x = Eigen::MatrixXd::Ones(3, 4);
    CHECK(message_of([&] { (void)head.forward(x, Eigen::MatrixXd::Zero(2, 3)); }) ==
          "bias.rows 2 must equal the number of tokens 3");
    Eigen::MatrixXd bias = Eigen::MatrixXd::Zero(3, 3);
    bias(0, 1) = infinity;
    CHECK(message_of([&] { (void)head.forward(x, bias); }) == "bias(0, 1) inf must be finite or -inf");
    bias(0, 1) = not_a_number;
    CHECK(message_of([&] { (void)head.weights(x, bias); }) == "bias(0, 1) nan must be finite or -inf");
    bias = Eigen::MatrixXd::Zero(3, 3);
    bias.row(1).setConstant(-infinity);
    CHECK(message_of([&] { (void)head.forward(x, bias); }) ==
          "bias.row 1 must have an entry > -inf (a query must see at least one key)");
    CHECK(message_of([&] { (void)head.forward(x, static_cast<enc::AttentionMask>(9)); }) ==
          "mask 9 must be AttentionMask::none or AttentionMask::causal");
    CHECK(message_of([] { (void)enc::causal_mask(0); }) == "length 0 must be > 0");
}

TEST_CASE("[errors] NoPE reordering: the order must be a permutation of the tokens")
{
    const Eigen::MatrixXd x = Eigen::MatrixXd::Ones(3, 2);
    CHECK(message_of([&] {
              (void)enc::reorder_tokens(x, {0, 1});
          }) == "order.size 2 must equal the number of tokens 3");
    CHECK(message_of([&] { (void)enc::reorder_tokens(x, {0, 3, 1}); }) == "order[1] 3 must be a token index in [0, 3)");
    CHECK(message_of([&] {
              (void)enc::reorder_tokens(x, {0, -1, 1});
          }) == "order[1] -1 must be a token index in [0, 3)");
    CHECK(message_of([&] {
              (void)enc::reorder_tokens(x, {2, 0, 2});
          }) == "order[2] 2 must not repeat an earlier entry (order is a permutation)");
}

TEST_CASE("[errors] additive index, RMS, cosine and RMSNorm")
{
    const Eigen::VectorXd e = Eigen::VectorXd::Ones(4);
    CHECK(message_of([&] { (void)enc::add_index_to_every_dim(e, -1); }) == "position -1 must be >= 0");
    CHECK(message_of([] { (void)enc::add_index_to_every_dim(Eigen::VectorXd(0), 3); }) == "content.size 0 must be > 0");
    CHECK(message_of([&] { (void)enc::add_index_to_every_dim(with_nan_at(e, 2, 0), 3); }) ==
          "content(2) nan must be finite");
    CHECK(message_of([&] { (void)enc::content_to_position_ratio(e, 0); }) ==
          "position 0 must be > 0 (position 0 adds no signal)");
    CHECK(message_of([] { (void)enc::content_to_position_ratio(not_a_number, 37); }) ==
          "content_rms nan must be finite and >= 0");
    CHECK(message_of([] { (void)enc::content_to_position_ratio(-0.02, 37); }) ==
          "content_rms -0.02 must be finite and >= 0");
    CHECK(message_of([] { (void)enc::root_mean_square(Eigen::VectorXd(0)); }) == "v.size 0 must be > 0");
    CHECK(message_of([&] { (void)enc::cosine_similarity(e, Eigen::VectorXd::Ones(3)); }) ==
          "b.size 3 must equal a.size 4");
    CHECK(message_of([&] { (void)enc::cosine_similarity(Eigen::VectorXd::Zero(4), e); }) == "a.norm 0 must be > 0");
    CHECK(message_of([&] { (void)enc::rms_norm(e, -1e-6); }) == "epsilon -1e-06 must be finite and >= 0");
    CHECK(message_of([&] { (void)enc::rms_norm(e, not_a_number); }) == "epsilon nan must be finite and >= 0");
    CHECK(message_of([] { (void)enc::rms_norm(Eigen::VectorXd::Zero(4), 0.0); }) ==
          "x.rms 0 must be > 0 when epsilon is 0");
}

TEST_CASE("[errors] index divided by length: T >= 2, 0 <= t < T, value in [0, 1]")
{
    CHECK(message_of([] { (void)enc::normalized_index(0, 1); }) ==
          "length 1 must be >= 2 (t / (T - 1) needs T - 1 > 0)");
    CHECK(message_of([] { (void)enc::normalized_neighbour_gap(0); }) ==
          "length 0 must be >= 2 (t / (T - 1) needs T - 1 > 0)");
    CHECK(message_of([] { (void)enc::normalized_index(3, 3); }) == "position 3 must be in [0, length 3)");
    CHECK(message_of([] { (void)enc::normalized_index(-1, 3); }) == "position -1 must be in [0, length 3)");
    CHECK(message_of([] { (void)enc::position_named_by(1.5, 3); }) == "normalized_value 1.5 must be in [0, 1]");
    CHECK(message_of([] { (void)enc::position_named_by(not_a_number, 3); }) ==
          "normalized_value nan must be in [0, 1]");
}

TEST_CASE("[errors] learned table: sizes, NaN weights, positions, policy, preset kind")
{
    using enc::LearnedPositionTable;
    CHECK(message_of([] { LearnedPositionTable(0, 768); }) == "num_positions 0 must be > 0");
    CHECK(message_of([] { LearnedPositionTable(1024, -768); }) == "dim -768 must be > 0");
    CHECK(message_of([] { (void)LearnedPositionTable::parameter_count(-1, 768); }) == "num_positions -1 must be > 0");
    CHECK(message_of([] { LearnedPositionTable(with_nan_at(Eigen::MatrixXd::Zero(4, 2), 3, 1)); }) ==
          "weights(3, 1) nan must be finite");
    CHECK(message_of([] { LearnedPositionTable(4, 2, static_cast<enc::OutOfRange>(5)); }) ==
          "policy 5 must be OutOfRange::error or OutOfRange::clamp_to_last_row");
    CHECK(message_of([] { (void)LearnedPositionTable::from_preset(posenc::models::qwen3_8b); }) ==
          "preset \"qwen3-8b\" uses RoPE, not a learned position table");

    const LearnedPositionTable table(4, 2);
    CHECK(message_of([&] { (void)table.lookup(-3); }) == "position -3 must be >= 0");
    CHECK(message_of([&] { (void)table.lookup(4); }) ==
          "position 4 must be < num_positions 4 (the table has no row for it; "
          "OutOfRange::clamp_to_last_row reuses row 3)");
    CHECK(message_of([&] { (void)table.add_to(Eigen::MatrixXd::Zero(2, 3)); }) ==
          "token_embeddings.cols 3 must equal dim 2");
    CHECK(message_of([&] { (void)table.add_to(Eigen::MatrixXd::Zero(2, 2), -1); }) == "first_position -1 must be >= 0");
    CHECK(message_of([&] { (void)table.add_to(with_nan_at(Eigen::MatrixXd::Zero(2, 2), 1, 1)); }) ==
          "token_embeddings(1, 1) nan must be finite");
    CHECK(message_of([&] {
              (void)table.add_to(Eigen::MatrixXd::Zero(2, 2), std::numeric_limits<std::int64_t>::max());
          }) == "first_position 9223372036854775807 must leave room for every token's position");
}

TEST_CASE("[errors] sinusoidal: d_model even and > 0, base > 1, dims and positions in range")
{
    using enc::SinusoidalEncoding;
    CHECK(message_of([] { SinusoidalEncoding(0); }) == "d_model 0 must be > 0");
    CHECK(message_of([] { SinusoidalEncoding(-8); }) == "d_model -8 must be > 0");
    CHECK(message_of([] { SinusoidalEncoding(511); }) == "d_model 511 must be even (sin, cos pairs)");
    CHECK(message_of([] { SinusoidalEncoding(512, enc::EmbeddingScale::none, 1.0); }) ==
          "base 1 must be finite and > 1");
    CHECK(message_of([] { SinusoidalEncoding(512, enc::EmbeddingScale::none, not_a_number); }) ==
          "base nan must be finite and > 1");
    CHECK(message_of([] { SinusoidalEncoding(512, static_cast<enc::EmbeddingScale>(3)); }) ==
          "scale 3 must be EmbeddingScale::none or EmbeddingScale::sqrt_d_model");

    const SinusoidalEncoding pe(8);
    CHECK(message_of([&] { (void)pe.value(0, 8); }) == "dim 8 must be in [0, d_model 8)");
    CHECK(message_of([&] { (void)pe.value(0, -1); }) == "dim -1 must be in [0, d_model 8)");
    CHECK(message_of([&] { (void)pe.inv_freq(4); }) == "pair 4 must be in [0, d_model / 2 = 4)");
    CHECK(message_of([&] { (void)pe.encode((std::int64_t {1} << 50) + 1); }) ==
          "position 1125899906842625 must satisfy |position| <= 2^50");
    CHECK(message_of([&] { (void)pe.shift_rotation(0, -(std::int64_t {1} << 51)); }) ==
          "offset -2251799813685248 must satisfy |position| <= 2^50");
    CHECK(message_of([&] { (void)pe.encode_positions(0, 0); }) == "count 0 must be > 0");
    CHECK(message_of([&] { (void)pe.add_to(Eigen::MatrixXd::Zero(2, 6)); }) ==
          "token_embeddings.cols 6 must equal d_model 8");
    CHECK(message_of([&] { (void)pe.add_to(with_nan_at(Eigen::MatrixXd::Zero(2, 8), 0, 7)); }) ==
          "token_embeddings(0, 7) nan must be finite");
}

TEST_CASE("[errors] Shaw relative positions: k < 0, dim, table rows, NaN")
{
    using enc::ClippedRelativePositions;
    CHECK(message_of([] { ClippedRelativePositions(-1, 64); }) == "max_distance -1 must be >= 0");
    CHECK(message_of([] { (void)enc::clipped_relative_position(0, 5, -2); }) == "max_distance -2 must be >= 0");
    CHECK(message_of([] { ClippedRelativePositions(16, 0); }) == "dim 0 must be > 0");
    CHECK(message_of([] { ClippedRelativePositions(16, Eigen::MatrixXd::Zero(32, 4)); }) ==
          "vectors.rows 32 must equal 2 * max_distance + 1 = 33");
    CHECK(message_of([] { ClippedRelativePositions(1, with_nan_at(Eigen::MatrixXd::Zero(3, 2), 2, 0)); }) ==
          "vectors(2, 0) nan must be finite");
    const ClippedRelativePositions table(2, 3);
    CHECK(message_of([&] { (void)table.index_matrix(0); }) == "length 0 must be > 0");
    CHECK(message_of([&] { (void)table.logits(Eigen::MatrixXd::Zero(4, 3), Eigen::MatrixXd::Zero(5, 3)); }) ==
          "keys.rows 5 must equal the number of tokens 4");
    CHECK(message_of([&] { (void)table.logits(Eigen::MatrixXd::Zero(4, 2), Eigen::MatrixXd::Zero(4, 2)); }) ==
          "queries.cols 2 must equal dim 3");
    CHECK(message_of([&] { (void)table.outputs(Eigen::MatrixXd::Zero(4, 3), Eigen::MatrixXd::Zero(4, 3)); }) ==
          "alpha.cols 3 must equal the number of tokens 4");
    CHECK(message_of([&] {
              (void)table.outputs(with_nan_at(Eigen::MatrixXd::Zero(4, 4), 0, 0), Eigen::MatrixXd::Zero(4, 3));
          }) == "alpha(0, 0) nan must be finite");
}

TEST_CASE("[errors] T5 buckets: odd num_buckets when bidirectional, max_distance <= the exact range")
{
    using enc::BucketDirection;
    using enc::T5RelativeBuckets;
    CHECK(message_of([] { T5RelativeBuckets(31, 128); }) ==
          "num_buckets 31 must be even when bidirectional (half for keys before the query, half for after)");
    CHECK(message_of([] { T5RelativeBuckets(0, 128); }) == "num_buckets 0 must be > 0");
    CHECK(message_of([] { T5RelativeBuckets(-32, 128); }) == "num_buckets -32 must be > 0");
    CHECK(message_of([] { T5RelativeBuckets(2, 128); }) ==
          "num_buckets 2 must be >= 4 when bidirectional (max_exact >= 1)");
    CHECK(message_of([] { T5RelativeBuckets(1, 128, BucketDirection::unidirectional); }) ==
          "num_buckets 1 must be >= 2 when unidirectional (max_exact >= 1)");
    CHECK(message_of([] { T5RelativeBuckets(32, 8); }) == "max_distance 8 must be > max_exact 8 (the exact range)");
    CHECK(message_of([] { T5RelativeBuckets(32, 0); }) == "max_distance 0 must be > max_exact 8 (the exact range)");
    CHECK(message_of([] { T5RelativeBuckets(32, 16, BucketDirection::unidirectional); }) ==
          "max_distance 16 must be > max_exact 16 (the exact range)");
    CHECK(message_of([] { T5RelativeBuckets(32, 128, static_cast<BucketDirection>(2)); }) ==
          "direction 2 must be BucketDirection::bidirectional or BucketDirection::unidirectional");
    // An odd count is fine for a decoder (all buckets on one side).
    CHECK(T5RelativeBuckets(31, 128, BucketDirection::unidirectional).max_exact() == 15);

    const T5RelativeBuckets t5;
    CHECK(message_of([&] { (void)t5.bucket_matrix(0, 4); }) == "query_length 0 must be > 0");
    CHECK(message_of([&] { (void)t5.bias(Eigen::VectorXd::Zero(16), 2, 2); }) ==
          "bucket_values.size 16 must equal num_buckets 32");
    Eigen::VectorXd values = Eigen::VectorXd::Zero(32);
    values(7) = not_a_number;
    CHECK(message_of([&] { (void)t5.bias(values, 2, 2); }) == "bucket_values(7) nan must be finite");
    CHECK(message_of([&] { (void)t5.smallest_distance_in_bucket(16); }) ==
          "bucket 16 must be in [0, buckets_per_side 16)");
}

TEST_CASE("[errors] ALiBi: head count, slope, length")
{
    CHECK(message_of([] { (void)enc::alibi_slopes(0); }) == "num_heads 0 must be > 0");
    CHECK(message_of([] { (void)enc::alibi_slopes(-8); }) == "num_heads -8 must be > 0");
    CHECK(message_of([] { (void)enc::alibi_causal_bias(not_a_number, 4); }) == "slope nan must be finite and > 0");
    CHECK(message_of([] { (void)enc::alibi_causal_bias(0.0, 4); }) == "slope 0 must be finite and > 0");
    CHECK(message_of([] { (void)enc::alibi_causal_bias(-0.5, 4); }) == "slope -0.5 must be finite and > 0");
    CHECK(message_of([] { (void)enc::alibi_causal_bias(0.5, 0); }) == "length 0 must be > 0");
}

}  // namespace errors_encodings_errors_tests
