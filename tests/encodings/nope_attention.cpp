// SPDX-License-Identifier: MIT
// NoPE on a tiny single-head attention (include/posenc/encodings/{attention,nope}.hpp).
// Sources: lesson C2-2's timeline, generation 0 ("swap 小明打了小王 into 小王打了小明 and every
// token's output vector is identical, difference = 0", computed in lesson C2-1); Vaswani 2017
// eq. 1 for attention itself; the causal-mask remark (the count of visible tokens is the only
// position signal) from Haviv et al. 2022. Expected values are exact identities (equality to 0)
// or closed forms evaluated here with plain Eigen expressions, independent of the head's code.
#include <posenc/encodings/nope.hpp>
#include <posenc/encodings/sinusoidal.hpp>

#include <doctest/doctest.h>

#include <Eigen/Core>
#include <cmath>
#include <vector>

namespace encodings_nope_attention_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

namespace enc = posenc::encodings;

// Deterministic "random-looking" matrices: entries sin(a*r + b*c + seed), in [-1, 1].
Eigen::MatrixXd fixed_matrix(int rows, int cols, double seed)
{
    Eigen::MatrixXd m(rows, cols);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) m(r, c) = std::sin(1.7 * r + 0.61 * c + seed) * (1.0 + 0.1 * c);
    return m;
}

enc::SingleHeadAttention fixed_head(int d_model, int d_key, int d_value)
{
    return enc::SingleHeadAttention(fixed_matrix(d_model, d_key, 0.3), fixed_matrix(d_model, d_key, 1.1),
                                    fixed_matrix(d_model, d_value, 2.9));
}

// softmax over each row of (Q K^T / sqrt(d) + bias), then times V: Vaswani eq. 1 with Eigen expressions.
Eigen::MatrixXd attention_by_formula(const Eigen::MatrixXd& x, const Eigen::MatrixXd& wq, const Eigen::MatrixXd& wk,
                                     const Eigen::MatrixXd& wv, const Eigen::MatrixXd& bias)
{
    const Eigen::MatrixXd logits = (x * wq) * (x * wk).transpose() / std::sqrt(static_cast<double>(wq.cols())) + bias;
    Eigen::MatrixXd a(logits.rows(), logits.cols());
    for (Eigen::Index i = 0; i < logits.rows(); ++i) {
        const Eigen::RowVectorXd e = (logits.row(i).array() - logits.row(i).maxCoeff()).exp();
        a.row(i) = e / e.sum();
    }
    return a * (x * wv);
}

}  // namespace

TEST_CASE("[Vaswani 2017 eq. 1] the tiny head computes softmax(Q K^T / sqrt(d_k) + B) V")
{
    const Eigen::MatrixXd wq = fixed_matrix(6, 4, 0.3), wk = fixed_matrix(6, 4, 1.1), wv = fixed_matrix(6, 5, 2.9);
    const enc::SingleHeadAttention head(wq, wk, wv);
    const Eigen::MatrixXd x = fixed_matrix(7, 6, 4.2);
    CHECK(head.d_model() == 6);
    CHECK(head.d_key() == 4);
    CHECK(head.d_value() == 5);

    const Eigen::MatrixXd none = head.forward(x);
    CHECK((none - attention_by_formula(x, wq, wk, wv, Eigen::MatrixXd::Zero(7, 7))).cwiseAbs().maxCoeff() < 1e-14);

    const Eigen::MatrixXd causal = head.forward(x, enc::AttentionMask::causal);
    CHECK((causal - attention_by_formula(x, wq, wk, wv, enc::causal_mask(7))).cwiseAbs().maxCoeff() < 1e-14);

    // Attention weights: rows sum to 1; under the causal mask nothing above the diagonal.
    const Eigen::MatrixXd a = head.weights(x, enc::causal_mask(7));
    for (int i = 0; i < 7; ++i) {
        CHECK(a.row(i).sum() == doctest::Approx(1.0).epsilon(1e-15));
        for (int j = i + 1; j < 7; ++j) CHECK(a(i, j) == 0.0);
    }
    // The first token sees only itself under the causal mask: its output is its own value row.
    CHECK((causal.row(0) - head.values(x).row(0)).cwiseAbs().maxCoeff() < 1e-15);
}

TEST_CASE("[lesson C2-2 timeline, gen. 0] NoPE: swapping 小明 and 小王 swaps their outputs, difference exactly 0")
{
    const enc::SingleHeadAttention head = fixed_head(4, 4, 4);
    // "小明 打了 小王": three content vectors, no position signal.
    const Eigen::MatrixXd sentence = fixed_matrix(3, 4, 7.0);
    const std::vector<int> swap_ends {2, 1, 0};  // "小王 打了 小明"
    const Eigen::MatrixXd swapped = enc::reorder_tokens(sentence, swap_ends);
    CHECK(swapped.row(0) == sentence.row(2));

    const Eigen::MatrixXd out = head.forward(sentence);
    const Eigen::MatrixXd out_swapped = head.forward(swapped);
    // 小明's output, now at position 2, is bit for bit what it was at position 0; and so on.
    CHECK(out_swapped.row(2) == out.row(0));
    CHECK(out_swapped.row(1) == out.row(1));
    CHECK(out_swapped.row(0) == out.row(2));
    CHECK(enc::permutation_equivariance_gap(head, sentence, swap_ends) == 0.0);
}

TEST_CASE("[NoPE] attention without positions is permutation-equivariant for every reordering tried (gap exactly 0)")
{
    const enc::SingleHeadAttention head = fixed_head(8, 6, 5);
    const Eigen::MatrixXd x = fixed_matrix(9, 8, 0.5);
    const std::vector<std::vector<int>> orders {{0, 1, 2, 3, 4, 5, 6, 7, 8},
                                                {8, 7, 6, 5, 4, 3, 2, 1, 0},
                                                {1, 0, 2, 3, 4, 5, 6, 7, 8},
                                                {3, 8, 1, 6, 0, 4, 7, 2, 5},
                                                {4, 5, 6, 7, 8, 0, 1, 2, 3}};
    for (const std::vector<int>& order : orders) CHECK(enc::permutation_equivariance_gap(head, x, order) == 0.0);

    // A sentence with a repeated token: the two copies get identical outputs.
    Eigen::MatrixXd repeated = x;
    repeated.row(6) = repeated.row(2);
    const Eigen::MatrixXd out = head.forward(repeated);
    CHECK(out.row(6) == out.row(2));
}

TEST_CASE("[NoPE vs. a position signal] adding sinusoidal positions breaks the equivariance")
{
    const enc::SingleHeadAttention head = fixed_head(8, 6, 5);
    const Eigen::MatrixXd x = fixed_matrix(5, 8, 0.5);
    const enc::SinusoidalEncoding sinusoidal(8);
    const std::vector<int> swap_ends {4, 1, 2, 3, 0};
    // Content + position for the sentence and for the swapped sentence (positions stay 0..4).
    const Eigen::MatrixXd with_pe = sinusoidal.add_to(x);
    const Eigen::MatrixXd swapped_with_pe = sinusoidal.add_to(enc::reorder_tokens(x, swap_ends));
    const Eigen::MatrixXd out = head.forward(with_pe);
    const Eigen::MatrixXd out_swapped = head.forward(swapped_with_pe);
    // The token moved from position 0 to 4 now has a different output: order is visible.
    CHECK((out_swapped.row(4) - out.row(0)).cwiseAbs().maxCoeff() > 1e-3);
}

TEST_CASE("[NoPE, causal mask] token t sees a set of t + 1 tokens: reordering its prefix changes nothing")
{
    const enc::SingleHeadAttention head = fixed_head(6, 4, 3);
    const Eigen::MatrixXd x = fixed_matrix(6, 6, 2.0);
    const Eigen::MatrixXd out = head.forward(x, enc::AttentionMask::causal);
    // Shuffle tokens 0..3 among themselves: tokens 4 and 5 see the same set, bit-identical output.
    const Eigen::MatrixXd shuffled = enc::reorder_tokens(x, {2, 0, 3, 1, 4, 5});
    const Eigen::MatrixXd out_shuffled = head.forward(shuffled, enc::AttentionMask::causal);
    CHECK(out_shuffled.row(4) == out.row(4));
    CHECK(out_shuffled.row(5) == out.row(5));
    // Token 3 of the original now sits at position 2 and sees fewer tokens: its output changes.
    CHECK((out_shuffled.row(2) - out.row(3)).cwiseAbs().maxCoeff() > 1e-6);
}

TEST_CASE("[NoPE, causal mask] the count of visible tokens is a position signal: BOS + t copies of e")
{
    // A distinct first token b followed by copies of one token e. Query e at position t sees b once
    // and e t times, so (closed form of the softmax) its output is
    //     (w_b v_b + t w_e v_e) / (w_b + t w_e),  w_b = exp(s_b), w_e = exp(s_e),
    // s_b = (e W_q).(b W_k)/sqrt(d_k), s_e = (e W_q).(e W_k)/sqrt(d_k): a different vector at every t.
    const Eigen::MatrixXd wq = fixed_matrix(4, 4, 0.3), wk = fixed_matrix(4, 4, 1.1), wv = fixed_matrix(4, 3, 2.9);
    const enc::SingleHeadAttention head(wq, wk, wv);
    const Eigen::RowVectorXd b = fixed_matrix(1, 4, 5.0).row(0), e = fixed_matrix(1, 4, 9.0).row(0);
    Eigen::MatrixXd x(8, 4);
    x.row(0) = b;
    for (int t = 1; t < 8; ++t) x.row(t) = e;

    const Eigen::MatrixXd out = head.forward(x, enc::AttentionMask::causal);
    const double s_b = (e * wq).dot(b * wk) / 2.0, s_e = (e * wq).dot(e * wk) / 2.0;  // sqrt(d_k) = 2
    const Eigen::RowVectorXd v_b = b * wv, v_e = e * wv;
    for (int t = 1; t < 8; ++t) {
        const Eigen::RowVectorXd expected =
            (std::exp(s_b) * v_b + t * std::exp(s_e) * v_e) / (std::exp(s_b) + t * std::exp(s_e));
        CHECK((out.row(t) - expected).cwiseAbs().maxCoeff() < 1e-14);
        if (t > 1) CHECK((out.row(t) - out.row(t - 1)).cwiseAbs().maxCoeff() > 1e-6);
    }
}

}  // namespace encodings_nope_attention_tests
