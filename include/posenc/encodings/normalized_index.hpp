// SPDX-License-Identifier: MIT
// posenc/encodings/normalized_index.hpp: naive scheme 2, the index divided by the length, t / (T - 1).
//
// Lesson C2-2 (docs/lessons.md), the "divide by the sentence length" dig (docs/lessons.md
// items 6-7; the HF blog "You could have designed state of the art positional encoding" rules
// it out in the same order). Position t of a T-token sequence becomes
//
//     u(t, T) = t / (T - 1)  in [0, 1]
//
// The scale problem is gone, but two new ones appear:
//   - neighbours are 1 / (T - 1) apart: 0.5 in a 3-token sentence, 1/1,023 = 0.000978 in a
//     1,024-token document, so "the previous token" has no stable signal;
//   - one value names different tokens: u = 0.5 is token #2 of 3 but about token #512 of 1,024
//     (0-based position u * (T - 1): 1 and 511.5).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "posenc/error.hpp"

namespace posenc {
namespace encodings {

namespace detail {
inline void require_length_of_two(std::int64_t length)
{
    posenc::detail::require(length >= 2, "length", length, "must be >= 2 (t / (T - 1) needs T - 1 > 0)");
}
}  // namespace detail

/// u(t, T) = t / (T - 1). Throws posenc::error unless T >= 2 and 0 <= t < T. One rounding (< 2^-53 relative).
inline double normalized_index(std::int64_t position, std::int64_t length)
{
    detail::require_length_of_two(length);
    if (position < 0 || position >= length)
        posenc::detail::raise("position", position, "must be in [0, length " + std::to_string(length) + ")");
    return static_cast<double>(position) / static_cast<double>(length - 1);
}

/// The gap between neighbours, u(t + 1, T) - u(t, T) = 1 / (T - 1). Throws unless T >= 2.
inline double normalized_neighbour_gap(std::int64_t length)
{
    detail::require_length_of_two(length);
    return 1.0 / static_cast<double>(length - 1);
}

/// The 0-based position a value u names in a T-token sequence, u * (T - 1) (fractional where no
/// token sits exactly there). Throws unless T >= 2 and u is in [0, 1].
inline double position_named_by(double normalized_value, std::int64_t length)
{
    detail::require_length_of_two(length);
    posenc::detail::require(normalized_value >= 0.0 && normalized_value <= 1.0, "normalized_value", normalized_value,
                            "must be in [0, 1]");
    return normalized_value * static_cast<double>(length - 1);
}

}  // namespace encodings
}  // namespace posenc
