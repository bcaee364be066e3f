// SPDX-License-Identifier: MIT
// posenc/prompt_angles.hpp: what each token of a multimodal prompt gets from a multi-axis RoPE,
// pair by pair (token_angles.hpp's record), from its per-axis position ids
// (multimodal_positions.hpp, mrope_prompt_positions.hpp) and the model's layout (multi_axis.hpp).
//
//   pairs[k]          spec.pair_coordinates(k): (o + k, o + k + R/2) half_split,
//                     (o + 2k, o + 2k + 1) interleaved, o the rotary offset
//   positions[n][a]   ids(a, n), the token's id on axis a
//   tokens[n][k]      ids(axis_of_pair(k), n) * theta_k, theta_k = table.inv_freq(k)
//
// Each angle is one double product of an exact integer (|id| < 2^31) and the table's frequency:
// within half an ulp of the exact product of those two. Hugging Face computes the same product in
// float32 (inv_freq as float32 times the position as float32); the angles here are the exact
// reference for it. Attention scaling is excluded (it scales cos / sin, not the angle).
// A layout whose pairs read two axes (HunYuan-VL's coordinate_sections) is refused for a token
// whose two axes differ: that pair is not a rotation by one angle.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/frequencies.hpp"
#include "posenc/multi_axis.hpp"
#include "posenc/multimodal_positions.hpp"
#include "posenc/spec.hpp"
#include "posenc/token_angles.hpp"

namespace posenc {

/// Per-token, per-pair angles of a prompt (see the file comment). Throws posenc::error when the
/// table, the spec and the layout disagree on the pair count, when the ids have another number
/// of axes than the layout, or for a split pair whose two axes differ.
inline TokenAngles prompt_token_angles(const RopeSpec& spec, const FrequencyTable& table, const MultiAxisLayout& layout,
                                       const AxisPositionIds& ids)
{
    if (table.num_pairs() != spec.num_pairs())
        detail::raise("table pairs", table.num_pairs(),
                      "must equal the spec's rotated pairs " + std::to_string(spec.num_pairs()));
    if (layout.num_pairs() != spec.num_pairs())
        detail::raise("layout pairs", layout.num_pairs(),
                      "must equal the spec's rotated pairs " + std::to_string(spec.num_pairs()));
    if (ids.num_axes != layout.num_axes())
        detail::raise("position axes", ids.num_axes,
                      "must equal the layout's axes " + std::to_string(layout.num_axes()));
    TokenAngles out;
    const int P = spec.num_pairs();
    for (int k = 0; k < P; ++k) {
        const PairCoordinates c = spec.pair_coordinates(k);
        out.pairs.push_back({c.first, c.second});
    }
    out.positions.resize(static_cast<std::size_t>(ids.tokens));
    out.tokens.resize(static_cast<std::size_t>(ids.tokens));
    for (std::int64_t n = 0; n < ids.tokens; ++n) {
        std::vector<double>& position = out.positions[static_cast<std::size_t>(n)];
        for (int a = 0; a < ids.num_axes; ++a) position.push_back(static_cast<double>(ids(a, n)));
        std::vector<double>& angles = out.tokens[static_cast<std::size_t>(n)];
        angles.reserve(static_cast<std::size_t>(P));
        for (int k = 0; k < P; ++k) {
            const std::int64_t p = ids(layout.axis_of_pair(k), n);
            if (layout.splits_pairs() && ids(layout.partner_axis_of_pair(k), n) != p)
                detail::raise("token " + std::to_string(n) + " pair " + std::to_string(k), p,
                              "reads two axes with different ids (" + std::to_string(p) + ", " +
                                  std::to_string(ids(layout.partner_axis_of_pair(k), n)) +
                                  "): not a rotation by one angle, so it has no angle to report");
            angles.push_back(static_cast<double>(p) * table.inv_freq(k));
        }
    }
    return out;
}

}  // namespace posenc
