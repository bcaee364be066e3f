// SPDX-License-Identifier: MIT
// posenc/kernels/coordinate_angles.hpp: CoordinateAngles, the angle source of real-valued
// per-token coordinates (vision towers whose rotary reads fractional positions: DINOv3's patch
// centres in [-1, 1], SAM 3's global-attention coordinates s * column).
//
// Token t has one real coordinate c[t][a] per axis a of a MultiAxisLayout; pair i of token t
// rotates by
//
//     angle(t, i) = c[t][axis_of_pair(i)] * theta_i
//
// (theta_i the FrequencyTable's pair i). The constructor computes every token's row once, in the
// layout of a CosSinCache row,
//
//     [ A cos(angle(t, 0)) ... A cos(angle(t, P-1)) | A sin(angle(t, 0)) ... A sin(angle(t, P-1)) ]
//
// (A the table's attention factor), and serves it as the row of "position" t: the 1-D kernel
// (apply_rope) runs with PositionIds::contiguous(0), so the token index is the position, and its
// loops are the ones every other angle source feeds.
//
// Accuracy. The angle is the double product c * theta_i (one rounding, relative 2^-53), its
// cos and sin are std::cos / std::sin in double (within an ulp of double after exact argument
// reduction), times A, rounded once to float. Against A cos(c theta_i) and A sin(c theta_i) of
// the real numbers c and theta_i (the double values given) each stored value is within
//
//     A (2^-24 + 2^-52 |c theta_i|)
//
// (2^-24 covers the float rounding, half an ulp of a value below 1, and the double functions'
// error; the second term the product's rounding), at any coordinate the constructor accepts:
// |c| <= 2^31 and |c theta_i| <= 2^50. The apply kernels then add their own rounding (apply.hpp:
// float < 4 ulp of A|x| per pair, 16-bit storage plus half an ulp). A model that computes its
// angle in float32 (fl(fl(c) * fl(theta_i)), as transformers' towers do) differs from this angle
// by its own rounding: vision_tower.hpp states that bound per tower.
//
// Memory: tokens * num_pairs * 8 bytes, built in O(tokens * num_pairs) cos/sin evaluations: build
// it once per image and reuse it for every layer. Immutable after construction.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/frequencies.hpp"
#include "posenc/kernels/angle_source.hpp"
#include "posenc/multi_axis.hpp"

namespace posenc::kernels {

/// cos/sin rows of tokens at real-valued coordinates, one row per token; see the file comment.
class CoordinateAngles
{
public:
    /// coordinates: token-major [tokens][layout.num_axes()] doubles. Throws posenc::error unless
    /// the table and the layout have the same pair count, the layout keeps each pair on one axis
    /// (not splits_pairs()), coordinates hold a positive multiple of num_axes values, each finite
    /// with |c| <= 2^31 and |c * theta_i| <= 2^50 for every pair reading it.
    CoordinateAngles(const FrequencyTable& table, const MultiAxisLayout& layout, const std::vector<double>& coordinates)
        : table_(table), num_pairs_(table.num_pairs())
    {
        require_shape(table, layout, coordinates);
        const auto axes = static_cast<std::size_t>(layout.num_axes());
        tokens_ = static_cast<std::int64_t>(coordinates.size() / axes);
        const std::size_t row = 2 * static_cast<std::size_t>(num_pairs_);
        values_.resize(static_cast<std::size_t>(tokens_) * row);
        const double a = table.attention_factor();
        for (std::size_t t = 0; t < static_cast<std::size_t>(tokens_); ++t) {
            float* r = values_.data() + t * row;
            for (int i = 0; i < num_pairs_; ++i) {
                const double c = coordinates[t * axes + static_cast<std::size_t>(layout.axis_of_pair(i))];
                require_coordinate(c, table.inv_freq(i), t, layout.axis_of_pair(i));
                const double angle = c * table.inv_freq(i);
                r[i] = static_cast<float>(a * std::cos(angle));
                r[num_pairs_ + i] = static_cast<float>(a * std::sin(angle));
            }
        }
    }

    int num_pairs() const noexcept { return num_pairs_; }
    /// The tokens it holds rows for.
    std::int64_t tokens() const noexcept { return tokens_; }
    /// The token indices [0, tokens - 1]: the "positions" of the 1-D kernel.
    PositionRange position_range() const noexcept { return {0, tokens_ - 1}; }
    const char* name() const noexcept { return "CoordinateAngles"; }
    /// The frequency table the rows were built from (its copy).
    const FrequencyTable& frequencies() const noexcept { return table_; }
    /// Bytes held by the float rows.
    std::size_t memory_bytes() const noexcept { return values_.size() * sizeof(float); }

    /// num_pairs() cos values of token t, then (sin_row) its sin values. Precondition: 0 <= t < tokens().
    const float* cos_row(std::int64_t t) const noexcept
    {
        return values_.data() + static_cast<std::size_t>(t) * 2 * static_cast<std::size_t>(num_pairs_);
    }
    const float* sin_row(std::int64_t t) const noexcept { return cos_row(t) + num_pairs_; }

    /// Rows point into the table: the scratch arrays of row() are never written.
    static constexpr bool row_uses_scratch = false;

    /// The angle-source protocol (angle_source.hpp), `token` in place of a position.
    template <class Arch>
    AngleRow row(Arch, std::int64_t token, int pair_begin, int /*count*/, float* /*scratch_cos*/,
                 float* /*scratch_sin*/) const noexcept
    {
        const float* c = cos_row(token);
        return {c + pair_begin, c + num_pairs_ + pair_begin};
    }

private:
    static void require_shape(const FrequencyTable& table, const MultiAxisLayout& layout,
                              const std::vector<double>& coordinates)
    {
        if (layout.num_pairs() != table.num_pairs())
            posenc::detail::raise("layout.num_pairs", layout.num_pairs(),
                                  "must equal table.num_pairs " + std::to_string(table.num_pairs()));
        if (layout.splits_pairs())
            throw posenc::error("layout", to_string(layout.kind()),
                                "splits pairs across axes, which a row of cos/sin per pair cannot hold");
        const auto axes = static_cast<std::size_t>(layout.num_axes());
        if (coordinates.empty() || coordinates.size() % axes != 0)
            posenc::detail::raise("coordinates.size", coordinates.size(),
                                  "must be a positive multiple of num_axes " + std::to_string(axes) +
                                      " (token-major [tokens][axes])");
    }

    static void require_coordinate(double c, double inv_freq, std::size_t token, int axis)
    {
        const bool finite = std::fabs(c) <= 2147483648.0;
        if (finite && std::fabs(c) * inv_freq <= 1125899906842624.0) return;
        const std::string field = "coordinates[" + std::to_string(token) + "][" + std::to_string(axis) + "]";
        if (!finite) posenc::detail::raise(field, c, "must be finite with |c| <= 2^31");
        posenc::detail::raise(field, c,
                              "times inv_freq " + std::to_string(inv_freq) + " must stay within 2^50 in magnitude");
    }

    FrequencyTable table_;
    int num_pairs_;
    std::int64_t tokens_ = 0;
    std::vector<float> values_;
};

}  // namespace posenc::kernels
