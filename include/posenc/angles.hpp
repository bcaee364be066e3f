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
#pragma once

#include <cmath>
#include <cstdint>

#include "posenc/frequencies.hpp"

namespace posenc {

namespace detail {
// 2*pi = two_pi_c1 + two_pi_c2 + two_pi_c3 (each the double nearest the remainder).
// Split computed with mpmath at 300 bits.
inline constexpr double two_pi_c1 = 0x1.921fb54442d18p+2;     // 6.283185307179586
inline constexpr double two_pi_c2 = 0x1.1a62633145c07p-52;    // 2.4492935982947064e-16
inline constexpr double two_pi_c3 = -0x1.f1976b7ed8fbcp-108;  // -5.989539619436679e-33
inline constexpr double inv_two_pi = 0.15915494309189535;     // 1 / (2*pi), rounded
inline constexpr double pi_d = 0x1.921fb54442d18p+1;          // pi, rounded
}  // namespace detail

/// (m * theta) mod 2pi in [-pi, pi], from the exact product; see the file comment.
/// Range |position| <= 2^53, |position * inv_freq| <= 2^50. Error < 4e-15 rad.
inline double reduced_angle(std::int64_t position, double inv_freq) noexcept
{
    const double m = static_cast<double>(position);  // exact for |position| <= 2^53
    const double hi = m * inv_freq;
    const double lo = std::fma(m, inv_freq, -hi);     // m * inv_freq = hi + lo exactly
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
inline CosSin cos_sin(std::int64_t position, double inv_freq, double attention_factor = 1.0) noexcept
{
    const double r = reduced_angle(position, inv_freq);
    return {attention_factor * std::cos(r), attention_factor * std::sin(r)};
}

/// cos/sin of pair `pair` of `table` at `position`, attention factor folded in.
/// Precondition: 0 <= pair < table.num_pairs().
inline CosSin cos_sin(const FrequencyTable& table, std::int64_t position, int pair) noexcept
{
    return cos_sin(position, table.inv_freq(pair), table.attention_factor());
}

}  // namespace posenc
