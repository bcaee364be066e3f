// SPDX-License-Identifier: MIT
// posenc/angles.hpp: the rotation angle of (position, pair), reduced exactly, and its cos/sin.
//
// The angle of pair i at position m is  m * theta_i  (RoFormer eq. 15). Taken literally in
// float32 (as Hugging Face does) it loses ~|m * theta| * 2^-24 rad: 0.06 rad at m = 1e6.
// posenc instead treats theta_i (a double) as exact and reduces the exact product:
//
//   1. hi + lo = m * theta exactly (hi = fl(m*theta), lo = fma(m, theta, -hi); exact for |m| <= 2^53)
//   2. k = nearest integer to hi / 2pi
//   3. r = hi - k*C1 - k*C2 - k*C3 + lo, with C1 + C2 + C3 = 2pi to ~160 bits
//      (Cody & Waite 1980; each k*Cj is folded in with one fma)
//   4. r is moved into [-pi, pi].
//
// Range: |m| <= 2^53 and |m * theta| <= 2^50. Error of the reduced angle: < 4e-15 rad
// (a few ulp of pi) against the exact real m*theta mod 2pi, whatever the position.
// cos/sin of it (glibc, < 1 ulp) are therefore within 5e-15 of the exact values.
//
// reduced_angle and cos_sin are unchecked noexcept primitives (the SIMD kernels call them per
// pair): outside the range their result is unspecified (an angle outside [-pi, pi], a wrong
// angle, or NaN for a non-finite product), never an error. Every checked entry point that
// reaches them (rotation_matrix, apply_rope_reference, apply_multi_axis_rope_reference,
// rotation_angle, the analysis bounds, the angle sources of the kernels) refuses first with
// require_exact_angle_range or its own equivalent; callers of the primitives can do the same.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "posenc/detail/host_device.hpp"
#include "posenc/error.hpp"
#include "posenc/frequencies.hpp"

namespace posenc {

namespace detail {
// 2*pi = two_pi_c1 + two_pi_c2 + two_pi_c3 (each the double nearest the remainder).
// Split computed with mpmath at 300 bits.
inline constexpr double two_pi_c1 = 0x1.921fb54442d18p+2;  // 6.283185307179586
inline constexpr double two_pi_c2 = 0x1.1a62633145c07p-52;  // 2.4492935982947064e-16
inline constexpr double two_pi_c3 = -0x1.f1976b7ed8fbcp-108;  // -5.989539619436679e-33
inline constexpr double inv_two_pi = 0.15915494309189535;  // 1 / (2*pi), rounded
inline constexpr double pi_d = 0x1.921fb54442d18p+1;  // pi, rounded
}  // namespace detail

/// The largest |position| the exact reduction serves: 2^53 (every int64 up to it is a double).
inline constexpr std::int64_t max_exact_position = std::int64_t {1} << 53;

/// The largest |position * inv_freq| the exact reduction serves: 2^50.
inline constexpr double max_exact_angle = 1125899906842624.0;

/// Throws posenc::error naming `field` unless `position` lies in the exact reduction's range for
/// every frequency up to `max_inv_freq` (>= 0): |position| <= 2^53 and
/// |position * max_inv_freq| <= 2^50 (a NaN or infinite frequency fails the second test), e.g.
///   position 9007199254740993 must be in [-2^53, 2^53] (the exact angle reduction's range)
///   position 1125899906842625 must keep |position * inv_freq| <= 2^50 (the exact angle
///     reduction's range); inv_freq 1 gives 1.125899906842625e+15
inline void require_exact_angle_range(const std::string& field, std::int64_t position, double max_inv_freq)
{
    if (position < -max_exact_position || position > max_exact_position)
        detail::raise(field, position, "must be in [-2^53, 2^53] (the exact angle reduction's range)");
    const double angle = std::abs(static_cast<double>(position) * max_inv_freq);
    if (!(angle <= max_exact_angle))
        detail::raise(field, position,
                      "must keep |" + field + " * inv_freq| <= 2^50 (the exact angle reduction's range); inv_freq " +
                          detail::format_value(max_inv_freq) + " gives " + detail::format_value(angle));
}

/// The largest frequency of a table (0 for an all-zero table).
inline double largest_inv_freq(const FrequencyTable& table) noexcept
{
    double m = 0.0;
    for (double f : table.inv_freq()) m = std::max(m, f);
    return m;
}

/// require_exact_angle_range for every pair of `table` (its largest frequency decides).
inline void require_exact_angle_range(const std::string& field, std::int64_t position, const FrequencyTable& table)
{
    require_exact_angle_range(field, position, largest_inv_freq(table));
}

/// (m * theta) mod 2pi in [-pi, pi], from the exact product; see the file comment.
/// Precondition (not checked): |position| <= 2^53 and |position * inv_freq| <= 2^50
/// (require_exact_angle_range); outside it the result is unspecified. Error < 4e-15 rad.
POSENC_HD inline double reduced_angle(std::int64_t position, double inv_freq) noexcept
{
    const double m = static_cast<double>(position);  // exact for |position| <= 2^53
    const double hi = m * inv_freq;
    const double lo = std::fma(m, inv_freq, -hi);  // m * inv_freq = hi + lo exactly
    const double k = std::nearbyint(hi * detail::inv_two_pi);
    double r = std::fma(-k, detail::two_pi_c1, hi);
    r = std::fma(-k, detail::two_pi_c2, r);
    r = std::fma(-k, detail::two_pi_c3, r);
    r += lo;
    if (r > detail::pi_d) r = (r - detail::two_pi_c1) - detail::two_pi_c2;
    else if (r < -detail::pi_d) r = (r + detail::two_pi_c1) + detail::two_pi_c2;
    return r;
}

/// cos and sin of one angle, already multiplied by an attention factor.
struct CosSin {
    double cos;
    double sin;
};

/// attention_factor * (cos, sin)(reduced_angle(position, inv_freq)). Error < 5e-15 * attention_factor.
/// Precondition (not checked): reduced_angle's.
POSENC_HD inline CosSin cos_sin(std::int64_t position, double inv_freq, double attention_factor = 1.0) noexcept
{
    const double r = reduced_angle(position, inv_freq);
    return {attention_factor * std::cos(r), attention_factor * std::sin(r)};
}

/// cos/sin of pair `pair` of `table` at `position`, attention factor folded in.
/// Precondition (not checked): 0 <= pair < table.num_pairs(); reduced_angle's range.
inline CosSin cos_sin(const FrequencyTable& table, std::int64_t position, int pair) noexcept
{
    return cos_sin(position, table.inv_freq(pair), table.attention_factor());
}

}  // namespace posenc
