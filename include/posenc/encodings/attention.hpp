// SPDX-License-Identifier: MIT
// posenc/encodings/attention.hpp: a tiny single-head attention (Eigen) to show what each
// encoding does to attention.
//
// Vaswani et al. 2017 (arXiv 1706.03762) section 3.2.1, eq. 1, with an additive bias:
//
//   Q = X W_q,  K = X W_k,  V = X W_v                 X: T tokens x d_model (one row per token)
//   logits = Q K^T / sqrt(d_key) + B                  B: T x T additive bias (0, a mask of -inf,
//                                                      an ALiBi or T5 bias; added after the scale)
//   A = softmax_rows(logits),  output = A V
//
// This is a teaching reference, not a fast kernel. It is written so that the lesson's claim
// "swap two tokens and their outputs swap, difference exactly 0" (lesson C2-2, generation 0)
// holds bit for bit, not only up to rounding: every row of Q, K, V is computed by the same
// loop from that token's row alone, and each softmax row is summed over its keys in an order
// fixed by the terms' contents (logit, then value vector), never by the keys' positions. So
// reordering the tokens reorders the outputs exactly. Error against exact arithmetic: each
// projection and logit is a plain double dot product (rounding < n * 2^-53 * sum|terms| for n
// terms), each softmax denominator a sum of T positive terms (< T * 2^-53 relative).
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "posenc/error.hpp"

namespace posenc {
namespace encodings {

/// Which additive mask SingleHeadAttention::forward applies.
///   none    every token sees every token (an encoder, or the lesson's "attention" of C2-1)
///   causal  token i sees keys j <= i (a decoder); see causal_mask.
enum class AttentionMask { none, causal };

namespace detail {

inline std::string index_text(const char* name, Eigen::Index r, Eigen::Index c)
{
    return std::string(name) + "(" + std::to_string(r) + ", " + std::to_string(c) + ")";
}

/// Throws unless every entry of m is finite; the message names the entry, e.g. "x(1, 0) nan must be finite".
inline void require_finite(const Eigen::MatrixXd& m, const char* name)
{
    for (Eigen::Index c = 0; c < m.cols(); ++c)
        for (Eigen::Index r = 0; r < m.rows(); ++r)
            if (!std::isfinite(m(r, c))) posenc::detail::raise(index_text(name, r, c), m(r, c), "must be finite");
}

/// X W with every output row computed by the same loop from its input row alone.
inline Eigen::MatrixXd project_rows(const Eigen::MatrixXd& x, const Eigen::MatrixXd& w)
{
    Eigen::MatrixXd out(x.rows(), w.cols());
    for (Eigen::Index t = 0; t < x.rows(); ++t)
        for (Eigen::Index c = 0; c < w.cols(); ++c) {
            double s = 0.0;
            for (Eigen::Index k = 0; k < w.rows(); ++k) s += x(t, k) * w(k, c);
            out(t, c) = s;
        }
    return out;
}

/// Order of the unmasked keys of one logit row: by logit, then by value row (lexicographic).
/// Depends only on the multiset of (logit, value) terms, never on where the keys sit.
inline std::vector<Eigen::Index> canonical_key_order(const Eigen::MatrixXd& logits, Eigen::Index row,
                                                     const Eigen::MatrixXd& values)
{
    std::vector<Eigen::Index> keys;
    for (Eigen::Index j = 0; j < logits.cols(); ++j)
        if (logits(row, j) != -std::numeric_limits<double>::infinity()) keys.push_back(j);
    std::sort(keys.begin(), keys.end(), [&](Eigen::Index a, Eigen::Index b) {
        if (logits(row, a) != logits(row, b)) return logits(row, a) < logits(row, b);
        for (Eigen::Index c = 0; c < values.cols(); ++c)
            if (values(a, c) != values(b, c)) return values(a, c) < values(b, c);
        return false;
    });
    return keys;
}

}  // namespace detail

/// The T x T causal mask of a decoder: 0 where key j <= query i, -inf where j > i
/// (Vaswani 2017 section 3.2.3). Throws posenc::error unless length > 0.
inline Eigen::MatrixXd causal_mask(int length)
{
    posenc::detail::require(length > 0, "length", length, "must be > 0");
    Eigen::MatrixXd mask = Eigen::MatrixXd::Zero(length, length);
    for (int i = 0; i < length; ++i)
        for (int j = i + 1; j < length; ++j) mask(i, j) = -std::numeric_limits<double>::infinity();
    return mask;
}

/// One attention head with fixed projections W_q, W_k (d_model x d_key) and W_v (d_model x d_value).
///
/// Invariants (checked on construction, posenc::error otherwise): every matrix non-empty and
/// finite; W_k has W_q's shape; W_v has W_q's number of rows.
class SingleHeadAttention
{
public:
    SingleHeadAttention(Eigen::MatrixXd w_query, Eigen::MatrixXd w_key, Eigen::MatrixXd w_value)
        : w_query_(std::move(w_query)), w_key_(std::move(w_key)), w_value_(std::move(w_value))
    {
        using posenc::detail::require;
        require(w_query_.rows() > 0, "w_query.rows", static_cast<long long>(w_query_.rows()), "must be > 0");
        require(w_query_.cols() > 0, "w_query.cols", static_cast<long long>(w_query_.cols()), "must be > 0");
        require(w_key_.rows() == w_query_.rows(), "w_key.rows", static_cast<long long>(w_key_.rows()),
                ("must equal w_query.rows " + std::to_string(w_query_.rows())).c_str());
        require(w_key_.cols() == w_query_.cols(), "w_key.cols", static_cast<long long>(w_key_.cols()),
                ("must equal w_query.cols " + std::to_string(w_query_.cols())).c_str());
        require(w_value_.rows() == w_query_.rows(), "w_value.rows", static_cast<long long>(w_value_.rows()),
                ("must equal w_query.rows " + std::to_string(w_query_.rows())).c_str());
        require(w_value_.cols() > 0, "w_value.cols", static_cast<long long>(w_value_.cols()), "must be > 0");
        detail::require_finite(w_query_, "w_query");
        detail::require_finite(w_key_, "w_key");
        detail::require_finite(w_value_, "w_value");
    }

    int d_model() const noexcept { return static_cast<int>(w_query_.rows()); }
    int d_key() const noexcept { return static_cast<int>(w_query_.cols()); }
    int d_value() const noexcept { return static_cast<int>(w_value_.cols()); }

    /// Q = X W_q, K = X W_k, V = X W_v. Throws posenc::error unless X is T x d_model, T > 0,
    /// finite, and the product is finite in double (finite inputs can overflow:
    /// "x 3x2 must keep X W_q finite in double (a product or a sum overflows)").
    Eigen::MatrixXd queries(const Eigen::MatrixXd& x) const { return projected(x, w_query_, "X W_q"); }
    Eigen::MatrixXd keys(const Eigen::MatrixXd& x) const { return projected(x, w_key_, "X W_k"); }
    Eigen::MatrixXd values(const Eigen::MatrixXd& x) const { return projected(x, w_value_, "X W_v"); }

    /// Q K^T / sqrt(d_key) (Vaswani eq. 1, before the softmax, without a bias). Throws
    /// posenc::error as queries, and when a logit overflows double (the softmax would give NaN):
    /// "x 3x2 must keep the logits Q K^T / sqrt(d_key) finite in double (...)".
    Eigen::MatrixXd logits(const Eigen::MatrixXd& x) const
    {
        Eigen::MatrixXd l = scaled_scores(queries(x), keys(x));
        if (!l.allFinite())
            throw posenc::error("x", shape_of(x),
                                "must keep the logits Q K^T / sqrt(d_key) finite in double (the products overflow, "
                                "the softmax would give NaN)");
        return l;
    }

    /// logits(x) + bias. Throws posenc::error unless bias is T x T, free of NaN and +inf, every
    /// row has at least one entry > -inf, and every finite entry keeps logit + bias finite.
    Eigen::MatrixXd logits(const Eigen::MatrixXd& x, const Eigen::MatrixXd& bias) const
    {
        Eigen::MatrixXd l = logits(x);
        require_bias(bias, l.rows());
        for (Eigen::Index j = 0; j < l.cols(); ++j)
            for (Eigen::Index i = 0; i < l.rows(); ++i)
                if (std::isfinite(bias(i, j)) && !std::isfinite(l(i, j) + bias(i, j)))
                    posenc::detail::raise(detail::index_text("bias", i, j), bias(i, j),
                                          "must keep logit + bias finite in double (logit " +
                                              posenc::detail::format_value(l(i, j)) + ")");
        for (Eigen::Index j = 0; j < l.cols(); ++j)
            for (Eigen::Index i = 0; i < l.rows(); ++i) l(i, j) += bias(i, j);  // a -inf entry masks the key
        return l;
    }

    /// The attention weights softmax_rows(logits(x, bias)); rows sum to 1 (to rounding).
    Eigen::MatrixXd weights(const Eigen::MatrixXd& x, const Eigen::MatrixXd& bias) const
    {
        const Eigen::MatrixXd l = logits(x, bias);
        const Eigen::MatrixXd v = values(x);
        Eigen::MatrixXd a = Eigen::MatrixXd::Zero(l.rows(), l.cols());
        for (Eigen::Index i = 0; i < l.rows(); ++i) {
            const Row row = softmax_row(l, i, v);
            for (std::size_t t = 0; t < row.keys.size(); ++t) a(i, row.keys[t]) = row.weights[t];
        }
        return a;
    }

    /// The head's output softmax_rows(logits(x, bias)) V, T x d_value.
    Eigen::MatrixXd forward(const Eigen::MatrixXd& x, const Eigen::MatrixXd& bias) const
    {
        const Eigen::MatrixXd l = logits(x, bias);
        const Eigen::MatrixXd v = values(x);
        Eigen::MatrixXd out = Eigen::MatrixXd::Zero(l.rows(), v.cols());
        for (Eigen::Index i = 0; i < l.rows(); ++i) {
            const Row row = softmax_row(l, i, v);
            for (std::size_t t = 0; t < row.keys.size(); ++t)
                for (Eigen::Index c = 0; c < v.cols(); ++c) out(i, c) += row.weights[t] * v(row.keys[t], c);
        }
        // A convex combination of finite values exceeds the largest only by rounding, which can
        // still carry a value within T ulp of DBL_MAX past it.
        if (!out.allFinite())
            throw posenc::error("x", shape_of(x),
                                "must keep the output A V finite in double (V is within rounding of overflow)");
        return out;
    }

    /// forward with no bias (AttentionMask::none) or with causal_mask(T) (AttentionMask::causal).
    Eigen::MatrixXd forward(const Eigen::MatrixXd& x, AttentionMask mask = AttentionMask::none) const
    {
        posenc::detail::require(mask == AttentionMask::none || mask == AttentionMask::causal, "mask",
                                static_cast<int>(mask), "must be AttentionMask::none or AttentionMask::causal");
        const Eigen::Index t = checked(x).rows();
        const Eigen::MatrixXd bias =
            mask == AttentionMask::causal ? causal_mask(static_cast<int>(t)) : Eigen::MatrixXd::Zero(t, t);
        return forward(x, bias);
    }

private:
    struct Row {
        std::vector<Eigen::Index> keys;  // unmasked keys in canonical order
        std::vector<double> weights;  // their softmax weights, same order
    };

    static std::string shape_of(const Eigen::MatrixXd& x)
    {
        return std::to_string(x.rows()) + "x" + std::to_string(x.cols());
    }

    Eigen::MatrixXd projected(const Eigen::MatrixXd& x, const Eigen::MatrixXd& w, const char* product) const
    {
        Eigen::MatrixXd out = detail::project_rows(checked(x), w);
        if (!out.allFinite())
            throw posenc::error("x", shape_of(x),
                                "must keep " + std::string(product) +
                                    " finite in double (a product or a sum overflows)");
        return out;
    }

    const Eigen::MatrixXd& checked(const Eigen::MatrixXd& x) const
    {
        posenc::detail::require(x.rows() > 0, "x.rows", static_cast<long long>(x.rows()), "must be > 0 (tokens)");
        posenc::detail::require(x.cols() == w_query_.rows(), "x.cols", static_cast<long long>(x.cols()),
                                ("must equal d_model " + std::to_string(w_query_.rows())).c_str());
        detail::require_finite(x, "x");
        return x;
    }

    static void require_bias(const Eigen::MatrixXd& bias, Eigen::Index tokens)
    {
        const std::string n = std::to_string(tokens);
        posenc::detail::require(bias.rows() == tokens, "bias.rows", static_cast<long long>(bias.rows()),
                                ("must equal the number of tokens " + n).c_str());
        posenc::detail::require(bias.cols() == tokens, "bias.cols", static_cast<long long>(bias.cols()),
                                ("must equal the number of tokens " + n).c_str());
        for (Eigen::Index i = 0; i < bias.rows(); ++i) {
            bool any_visible = false;
            for (Eigen::Index j = 0; j < bias.cols(); ++j) {
                const double b = bias(i, j);
                if (std::isnan(b) || b == std::numeric_limits<double>::infinity())
                    posenc::detail::raise(detail::index_text("bias", i, j), b, "must be finite or -inf");
                any_visible = any_visible || std::isfinite(b);
            }
            if (!any_visible)
                posenc::detail::raise("bias.row", static_cast<long long>(i),
                                      "must have an entry > -inf (a query must see at least one key)");
        }
    }

    static Eigen::MatrixXd scaled_scores(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k)
    {
        const double scale = 1.0 / std::sqrt(static_cast<double>(q.cols()));
        Eigen::MatrixXd s(q.rows(), k.rows());
        for (Eigen::Index i = 0; i < q.rows(); ++i)
            for (Eigen::Index j = 0; j < k.rows(); ++j) {
                double d = 0.0;
                for (Eigen::Index c = 0; c < q.cols(); ++c) d += q(i, c) * k(j, c);
                s(i, j) = d * scale;
            }
        return s;
    }

    // Softmax of row i over its unmasked keys, max-subtracted, summed in canonical order.
    static Row softmax_row(const Eigen::MatrixXd& logits, Eigen::Index i, const Eigen::MatrixXd& values)
    {
        Row row;
        row.keys = detail::canonical_key_order(logits, i, values);
        const double top = logits(i, row.keys.back());  // the largest logit (sorted ascending)
        double total = 0.0;
        row.weights.reserve(row.keys.size());
        for (Eigen::Index j : row.keys) {
            row.weights.push_back(std::exp(logits(i, j) - top));
            total += row.weights.back();
        }
        for (double& w : row.weights) w /= total;
        return row;
    }

    Eigen::MatrixXd w_query_;
    Eigen::MatrixXd w_key_;
    Eigen::MatrixXd w_value_;
};

}  // namespace encodings
}  // namespace posenc
