// SPDX-License-Identifier: MIT
// posenc/rerotation.hpp: move rotated keys from one frequency table to another in place.
//
// When a sequence passes a LongRoPE model's original length L0 the table (Phi-3) or the cos/sin
// magnitude (PhiMoE) changes (scaling/longrope.hpp). Keys already in a KV cache were rotated with
// the old table; an engine that keeps its cache (instead of re-prefilling as Hugging Face's
// generate() does) re-rotates them. A key k at position m was stored as
//     k_old = A_old R(m theta_old) k          (per pair, R(phi) the 2x2 rotation, A the attention factor)
// and is wanted as
//     k_new = A_new R(m theta_new) k  =  (A_new / A_old) R(m theta_new - m theta_old) k_old,
// since 2x2 rotations commute. Per pair, with the angles reduced exactly as angles.hpp does
// (reduced_angle: the exact product m * theta mod 2pi, error < 4e-15 rad each):
//     delta = reduced_angle(m, theta_new) - reduced_angle(m, theta_old), moved into [-pi, pi]
//     (a, b) <- (A_new / A_old) (a cos delta - b sin delta, b cos delta + a sin delta)
// the difference formed before cos/sin, in double, rounded into T once.
//
// Error bound (per pair, against the exact k_new of the stored k_old; rho = A_new / A_old,
// |x| = sqrt(a^2 + b^2) of the stored pair): the angle difference carries < 8e-15 rad + 1 ulp of
// pi (< 9e-15 rad), cos/sin of it < 1 ulp each, the products and sums in double a few ulp:
//     |k_computed - k_exact| <= 1.2e-14 * rho * |x|          before the rounding into T,
// plus, for float storage, the final rounding (half an ulp of float per coordinate,
// <= 2^-24 * rho * |x| on the pair). Against a key rotated directly with the new table the stored
// k_old's own rounding also carries over, multiplied by rho (a rotation preserves lengths):
// float keys rotated and re-rotated by apply_rope_reference differ from the direct rotation by
// <= (2^-24 (1 + rho) + 1.2e-14 rho) sqrt(2) |k| per pair. tests/reference/rerotation.cpp
// checks both at positions up to 2^31 - 1.
// A pair whose two frequencies are equal (delta 0) and rho = 1 is left bit-identical.
//
// Note: this reproduces the keys a prefill with the new table gives for the same projected keys.
// Hugging Face's Phi-3 / PhiMoE re-prefill recomputes every layer, so the keys of the layers above
// the first also see the new table through their inputs: re-rotation is the cache-keeping
// approximation of that, exact for the rotation itself.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "posenc/angles.hpp"
#include "posenc/detail/pair_rotation.hpp"
#include "posenc/error.hpp"
#include "posenc/frequencies.hpp"
#include "posenc/spec.hpp"

namespace posenc {

/// reduced_angle(position, to_inv_freq) - reduced_angle(position, from_inv_freq), moved into
/// [-pi, pi]. Precondition (not checked): both frequencies in the exact reduction's range at
/// `position` (require_exact_angle_range). Error < 9e-15 rad.
inline double angle_difference(std::int64_t position, double from_inv_freq, double to_inv_freq) noexcept
{
    double d = reduced_angle(position, to_inv_freq) - reduced_angle(position, from_inv_freq);
    if (d > detail::pi_d) d -= detail::two_pi_c1;
    else if (d < -detail::pi_d) d += detail::two_pi_c1;
    return d;
}

namespace detail {
inline void require_rerotation_tables(const RopeSpec& spec, const FrequencyTable& from, const FrequencyTable& to)
{
    if (from.num_pairs() != spec.num_pairs())
        raise("from.num_pairs", from.num_pairs(),
              "must equal spec.num_pairs " + std::to_string(spec.num_pairs()) + " (rotary_dim / 2)");
    if (to.num_pairs() != spec.num_pairs())
        raise("to.num_pairs", to.num_pairs(),
              "must equal spec.num_pairs " + std::to_string(spec.num_pairs()) + " (rotary_dim / 2)");
}

template <class T>
void rerotate_head_unchecked(const RopeSpec& spec, const FrequencyTable& from, const FrequencyTable& to, T* head,
                             std::int64_t position, double ratio) noexcept
{
    for (int i = 0; i < spec.num_pairs(); ++i) {
        const double d = angle_difference(position, from.inv_freq(i), to.inv_freq(i));
        const PairCoordinates p = spec.pair_coordinates(i);
        if (d == 0.0 && ratio == 1.0) continue;  // bit-identical
        const double c = ratio * std::cos(d);
        const double s = ratio * std::sin(d);
        const double a = static_cast<double>(head[p.first]);
        const double b = static_cast<double>(head[p.second]);
        const RotatedPair<double> rotated = rotate_pair(a, b, c, s);
        head[p.first] = static_cast<T>(rotated.first);
        head[p.second] = static_cast<T>(rotated.second);
    }
}
}  // namespace detail

/// Re-rotates one head vector head[0 .. head_dim), rotated at `position` with table `from`, to
/// table `to` (see the file comment): the pairs of spec.pairing() inside the slice
/// [rotary_offset, rotary_offset + rotary_dim); other coordinates untouched.
/// Throws posenc::error, before writing, if a table's pair count differs from the spec's or the
/// position lies outside the exact reduction's range for either table.
template <class T>
void rerotate_head(const RopeSpec& spec, const FrequencyTable& from, const FrequencyTable& to, T* head,
                   std::int64_t position)
{
    static_assert(std::is_floating_point_v<T>, "rerotate_head rotates float, double or long double data.");
    detail::require_rerotation_tables(spec, from, to);
    require_exact_angle_range("position", position, from);
    require_exact_angle_range("position", position, to);
    detail::rerotate_head_unchecked(spec, from, to, head, position, to.attention_factor() / from.attention_factor());
}

/// Re-rotates a contiguous [tokens, heads, head_dim] buffer of keys (a KV cache's K of one layer):
/// token t at positions[t]. Throws posenc::error, before writing, for tokens < 0 or heads < 1, a
/// table whose pair count differs from the spec's, or a position outside the exact reduction's
/// range (named "positions[t]"). `keys` must hold tokens * heads * head_dim values and
/// `positions` tokens values.
template <class T>
void rerotate_keys(const RopeSpec& spec, const FrequencyTable& from, const FrequencyTable& to, T* keys,
                   std::int64_t tokens, int heads, const std::int64_t* positions)
{
    static_assert(std::is_floating_point_v<T>, "rerotate_keys rotates float, double or long double data.");
    detail::require(tokens >= 0, "tokens", tokens, "must be >= 0");
    detail::require(heads >= 1, "heads", heads, "must be >= 1");
    detail::require_rerotation_tables(spec, from, to);
    const double largest = std::max(largest_inv_freq(from), largest_inv_freq(to));
    for (std::int64_t t = 0; t < tokens; ++t)
        require_exact_angle_range("positions[" + std::to_string(t) + "]", positions[t], largest);
    const double ratio = to.attention_factor() / from.attention_factor();
    const std::size_t head_dim = static_cast<std::size_t>(spec.head_dim());
    for (std::int64_t t = 0; t < tokens; ++t)
        for (int h = 0; h < heads; ++h)
            detail::rerotate_head_unchecked(
                spec, from, to,
                keys + (static_cast<std::size_t>(t) * static_cast<std::size_t>(heads) + static_cast<std::size_t>(h)) *
                           head_dim,
                positions[t], ratio);
}

/// The same for consecutive positions first_position, first_position + 1, ... (a cache filled
/// from position first_position on). Throws as above, naming "first_position + t".
template <class T>
void rerotate_keys(const RopeSpec& spec, const FrequencyTable& from, const FrequencyTable& to, T* keys,
                   std::int64_t tokens, int heads, std::int64_t first_position)
{
    static_assert(std::is_floating_point_v<T>, "rerotate_keys rotates float, double or long double data.");
    detail::require(tokens >= 0, "tokens", tokens, "must be >= 0");
    detail::require(heads >= 1, "heads", heads, "must be >= 1");
    detail::require_rerotation_tables(spec, from, to);
    if (tokens == 0) return;
    const double largest = std::max(largest_inv_freq(from), largest_inv_freq(to));
    require_exact_angle_range("first_position", first_position, largest);
    if (first_position > max_exact_position - (tokens - 1))
        detail::raise("first_position + tokens - 1",
                      static_cast<double>(first_position) + static_cast<double>(tokens - 1),
                      "must be <= 2^53 (the exact angle reduction's range)");
    require_exact_angle_range("first_position + tokens - 1", first_position + tokens - 1, largest);
    const double ratio = to.attention_factor() / from.attention_factor();
    const std::size_t head_dim = static_cast<std::size_t>(spec.head_dim());
    for (std::int64_t t = 0; t < tokens; ++t)
        for (int h = 0; h < heads; ++h)
            detail::rerotate_head_unchecked(
                spec, from, to,
                keys + (static_cast<std::size_t>(t) * static_cast<std::size_t>(heads) + static_cast<std::size_t>(h)) *
                           head_dim,
                first_position + t, ratio);
}

}  // namespace posenc
