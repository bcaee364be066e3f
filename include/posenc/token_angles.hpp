// SPDX-License-Identifier: MIT
// posenc/token_angles.hpp: what each token of a sequence gets from a rotary embedding, pair by
// pair, so that a user can diff posenc against an engine or a reference implementation.
//
// For a sequence of N tokens and a head whose rotated pairs are P:
//
//   pairs[k]      = {a, b}: the two head dimensions (0-based) that rotated pair k mixes
//                   (half_split: (i, i + R/2); interleaved: (2i, 2i + 1); other layouts say
//                   their own, e.g. a pair inside one chunk of a chunked head);
//   positions[n]  = token n's coordinates as the rotary reads them (one per axis: a prompt's
//                   per-axis position ids; a vision patch's row and column, possibly
//                   fractional; the same count for every token);
//   tokens[n][k]  = the angle in radians by which the model rotates pair k of token n
//                   (position times frequency, not reduced modulo 2 pi; attention scaling
//                   excluded). A token the model does not rotate has angle 0 on every pair.
//
// The record only carries values; the functions that fill it (a tower's patch grid, a prompt's
// position ids) say how each angle is computed and to what accuracy. check() states the shape
// rules that every producer must meet.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "posenc/error.hpp"

namespace posenc {

/// Per-token, per-pair rotation angles of a sequence (see the file comment).
struct TokenAngles {
    std::vector<std::array<int, 2>> pairs;  ///< head dims mixed by each rotated pair
    std::vector<std::vector<double>> positions;  ///< one row per token: its coordinates per axis
    std::vector<std::vector<double>> tokens;  ///< one row per token: its angle per pair (rad)

    std::size_t num_tokens() const noexcept { return tokens.size(); }
    std::size_t num_pairs() const noexcept { return pairs.size(); }

    /// Throws posenc::error unless every token has one angle per pair and one coordinate per
    /// axis (as many as the first token), as many position rows as angle rows, and every pair
    /// names two distinct non-negative dims.
    void check() const
    {
        const auto n_str = [](std::size_t n) { return std::to_string(n); };
        if (positions.size() != tokens.size())
            throw error("TokenAngles.positions", n_str(positions.size()) + " rows",
                        "must have one row per token (" + n_str(tokens.size()) + " tokens)");
        for (std::size_t k = 0; k < pairs.size(); ++k)
            if (pairs[k][0] < 0 || pairs[k][1] < 0 || pairs[k][0] == pairs[k][1])
                throw error("TokenAngles.pairs[" + n_str(k) + "]",
                            "(" + std::to_string(pairs[k][0]) + ", " + std::to_string(pairs[k][1]) + ")",
                            "must name two distinct non-negative dims");
        for (std::size_t n = 0; n < tokens.size(); ++n) {
            if (tokens[n].size() != pairs.size())
                throw error("TokenAngles.tokens[" + n_str(n) + "]", n_str(tokens[n].size()) + " angles",
                            "must have one angle per pair (" + n_str(pairs.size()) + " pairs)");
            if (positions[n].size() != positions[0].size())
                throw error("TokenAngles.positions[" + n_str(n) + "]", n_str(positions[n].size()) + " coordinates",
                            "must have as many coordinates as token 0 (" + n_str(positions[0].size()) + ")");
        }
    }
};

}  // namespace posenc
