// SPDX-License-Identifier: MIT
// posenc/encodings/nope.hpp: no position encoding (NoPE), and what attention can still tell.
//
// Generation 0 of the lessons' timeline (Vaswani 2017 section 3.5 premise; lesson C2-1, recalled
// in C2-2): tokens enter attention as their content vectors only. Attention without a mask is
// then permutation-equivariant: for any reordering P of the tokens,
//
//     Attention(P X) = P Attention(X)                          (exactly, not only to rounding;
//                                                               see attention.hpp)
//
// so swapping "小明" and "小王" in "小明打了小王" swaps their output rows and changes nothing
// else: difference 0. With a causal mask the output of token t is a function of the *set* of
// the t + 1 tokens it sees; reordering that prefix changes nothing, so the count of visible
// tokens is the only position signal left (Haviv et al. 2022, arXiv 2203.16634, show decoders
// learn position from it).
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "posenc/encodings/attention.hpp"
#include "posenc/error.hpp"

namespace posenc {
namespace encodings {

/// The same tokens read in another order: row t of the result is row order[t] of x
/// (e.g. order {2, 1, 0} turns "小明 打了 小王" into "小王 打了 小明").
/// Throws posenc::error unless order is a permutation of 0 .. x.rows() - 1.
inline Eigen::MatrixXd reorder_tokens(const Eigen::MatrixXd& x, const std::vector<int>& order)
{
    const auto tokens = static_cast<long long>(x.rows());
    posenc::detail::require(static_cast<long long>(order.size()) == tokens, "order.size",
                            static_cast<long long>(order.size()),
                            ("must equal the number of tokens " + std::to_string(tokens)).c_str());
    std::vector<bool> seen(order.size(), false);
    Eigen::MatrixXd out(x.rows(), x.cols());
    for (std::size_t t = 0; t < order.size(); ++t) {
        const int source = order[t];
        const std::string field = "order[" + std::to_string(t) + "]";
        if (source < 0 || source >= tokens)
            posenc::detail::raise(field, source, "must be a token index in [0, " + std::to_string(tokens) + ")");
        if (seen[static_cast<std::size_t>(source)])
            posenc::detail::raise(field, source, "must not repeat an earlier entry (order is a permutation)");
        seen[static_cast<std::size_t>(source)] = true;
        out.row(static_cast<Eigen::Index>(t)) = x.row(source);
    }
    return out;
}

/// max over tokens t and coordinates c of |Attention(reorder(x, order))(t, c) - Attention(x)(order[t], c)|,
/// with no mask: how far the head is from permutation equivariance. For NoPE this is exactly 0
/// (the statement of the file comment); any position signal added to x makes it > 0 in general.
/// Throws posenc::error for an invalid x (see SingleHeadAttention) or order (see reorder_tokens).
inline double permutation_equivariance_gap(const SingleHeadAttention& attention, const Eigen::MatrixXd& x,
                                           const std::vector<int>& order)
{
    const Eigen::MatrixXd reordered_output = attention.forward(reorder_tokens(x, order));
    const Eigen::MatrixXd output = attention.forward(x);
    double gap = 0.0;
    for (Eigen::Index t = 0; t < output.rows(); ++t)
        for (Eigen::Index c = 0; c < output.cols(); ++c)
            gap = std::max(gap, std::abs(reordered_output(t, c) - output(order[static_cast<std::size_t>(t)], c)));
    return gap;
}

}  // namespace encodings
}  // namespace posenc
