// SPDX-License-Identifier: MIT
// posenc/encodings/alibi.hpp: ALiBi, attention with linear biases (Press et al. 2021).
//
// "Train Short, Test Long" (arXiv 2108.12409) section 3: no position is added to the input;
// head h adds a fixed penalty proportional to the distance to each key it sees,
//
//     softmax(q_i K^T + m_h * [-(i - 1), ..., -2, -1, 0])      (keys 1 .. i of query i, 1-based)
//
// i.e. bias(i, j) = -m_h (i - j) for j <= i, not scaled by 1/sqrt(d_k). Slopes: for n heads a
// power of two, the geometric sequence m_h = 2^(-8h/n), h = 1 .. n (8 heads: 1/2 .. 1/256).
// Otherwise (the paper's footnote and the official get_slopes) with c = 2^floor(log2 n): the c
// power-of-two slopes, then the even-indexed entries (0-based [0::2]) of the 2c-head sequence,
// the first n - c of them, i.e. 2^(-4h/c) for h = 1, 3, 5, ... (docs/formulas.md P5):
//     n = 6:  2^-2, 2^-4, 2^-6, 2^-8, then 2^-1, 2^-3
// The result is not sorted; the order matters for matching checkpoints.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <limits>
#include <vector>

#include "posenc/error.hpp"

namespace posenc {
namespace encodings {

namespace detail {
/// m_h = 2^(-8h/n), h = 1 .. n (n a power of two). exp2 of an exact multiple of 1/n: exact when 8h/n
/// is an integer, else within 1 ulp (the official code's start * ratio^i may differ in the last bits).
inline void append_power_of_two_slopes(std::vector<double>& out, int n, int every, int count)
{
    for (int h = 1, taken = 0; h <= n && taken < count; h += every, ++taken)
        out.push_back(std::exp2(-8.0 * static_cast<double>(h) / static_cast<double>(n)));
}
}  // namespace detail

/// The ALiBi slope of each of `num_heads` heads, in head order (file comment; Press 2021 section 3
/// and its official get_slopes). Throws posenc::error unless 0 < num_heads <= 2^20.
inline std::vector<double> alibi_slopes(int num_heads)
{
    posenc::detail::require(num_heads > 0, "num_heads", num_heads, "must be > 0");
    posenc::detail::require(num_heads <= (1 << 20), "num_heads", num_heads, "must be <= 2^20");
    int c = 1;
    while (c * 2 <= num_heads) c *= 2;  // c = 2^floor(log2 n)
    std::vector<double> slopes;
    slopes.reserve(static_cast<std::size_t>(num_heads));
    detail::append_power_of_two_slopes(slopes, c, 1, c);
    if (c < num_heads) detail::append_power_of_two_slopes(slopes, 2 * c, 2, num_heads - c);
    return slopes;
}

/// The T x T causal ALiBi bias of one head: -slope * (i - j) where key j <= query i, -inf where
/// j > i (the causal mask), ready to add to the scaled logits (attention.hpp). Exact for
/// slope * (T - 1) below 2^53 (one multiply of an exact integer). Throws posenc::error unless
/// slope is finite and > 0 and length > 0.
inline Eigen::MatrixXd alibi_causal_bias(double slope, int length)
{
    posenc::detail::require(std::isfinite(slope) && slope > 0.0, "slope", slope, "must be finite and > 0");
    posenc::detail::require(length > 0, "length", length, "must be > 0");
    Eigen::MatrixXd bias(length, length);
    for (int i = 0; i < length; ++i)
        for (int j = 0; j < length; ++j)
            bias(i, j) = j <= i ? -slope * static_cast<double>(i - j) : -std::numeric_limits<double>::infinity();
    return bias;
}

}  // namespace encodings
}  // namespace posenc
