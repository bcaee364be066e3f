// SPDX-License-Identifier: MIT
// posenc/frequencies.hpp: theta_i, periods, turns, and the FrequencyTable every later layer consumes.
//
// Formulas (RoFormer, Su et al. 2021, arXiv 2104.09864, eq. 15 with 0-based i as in section 3.4.3):
//   inv_freq  theta_i = base^(-2i/R)                i = 0 .. R/2 - 1
//   period    P_i     = 2*pi / theta_i              tokens per full turn of pair i
//   turns     r_i(L)  = L / P_i = L * theta_i / 2pi  full turns of pair i within L tokens
// Pair i "completes a turn" within L when r_i(L) >= 1 (lesson C2-2, C2-5).
//
// Everything here is double. Error: std::pow is within 1 ulp (glibc), and the exponent -2i/R
// is rounded once, so theta_i carries a relative error below (1 + |ln base|) * 2^-52.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/spec.hpp"

namespace posenc {

/// 2*pi rounded to double.
inline constexpr double two_pi = 6.283185307179586476925286766559;

/// theta_i = base^(-2i/rotary_dim) in double. Source: RoFormer eq. 15.
/// Precondition: 0 <= pair < spec.num_pairs(). Relative error < (1 + |ln base|) * 2^-52.
inline double inv_freq(const RopeSpec& spec, int pair) noexcept
{
    return std::pow(spec.base(), -2.0 * static_cast<double>(pair) / static_cast<double>(spec.rotary_dim()));
}

/// Period of a pair in tokens, 2*pi / theta.
inline double period_of(double inv_freq) noexcept { return two_pi / inv_freq; }

/// Full turns of a pair within `length` tokens, length * theta / 2pi.
inline double turns_of(double inv_freq, double length) noexcept { return length * inv_freq / two_pi; }

/// The range an attention factor must lie in: [2^-10, 2^10] = [0.0009765625, 1024]. Every
/// shipped model's factor is within [1, 2] (YaRN's 0.1 ln s + 1 stays below 10 even at s =
/// 3.4e38); far outside it the factor would no longer scale a rotation but flood or empty the
/// float32 cos/sin values (1e300 becomes inf there, 1e-50 becomes 0).
inline constexpr double min_attention_factor = 0.0009765625;
inline constexpr double max_attention_factor = 1024.0;

namespace detail {
/// Throws "<field> <value> must be finite and > 0" or "... must be in [2^-10, 2^10] ...".
inline void require_attention_factor(const std::string& field, double value)
{
    if (!(std::isfinite(value) && value > 0.0)) raise(field, value, "must be finite and > 0");
    if (!(value >= min_attention_factor && value <= max_attention_factor))
        raise(field, value, "must be in [2^-10, 2^10] = [0.0009765625, 1024] (the attention factor range)");
}
}  // namespace detail

/// Per-pair inverse frequencies (rad/token, double) plus the attention factor that
/// multiplies cos and sin (1 unless a scaling method says otherwise, e.g. YaRN's mscale).
///
/// Invariants (checked on construction, posenc::error otherwise): at least one pair;
/// every inv_freq finite and >= 0; attention_factor finite and in [2^-10, 2^10].
class FrequencyTable
{
public:
    explicit FrequencyTable(std::vector<double> inv_freq, double attention_factor = 1.0)
        : inv_freq_(std::move(inv_freq)), attention_factor_(attention_factor)
    {
        detail::require(!inv_freq_.empty(), "inv_freq.size", inv_freq_.size(), "must be > 0");
        for (std::size_t i = 0; i < inv_freq_.size(); ++i) {
            const double f = inv_freq_[i];
            if (!(std::isfinite(f) && f >= 0.0))
                detail::raise("inv_freq[" + std::to_string(i) + "]", f, "must be finite and >= 0");
        }
        detail::require_attention_factor("attention_factor", attention_factor);
    }

    /// The unscaled table of a spec: theta_i = base^(-2i/R), attention factor 1.
    static FrequencyTable from_spec(const RopeSpec& spec)
    {
        std::vector<double> f(static_cast<std::size_t>(spec.num_pairs()));
        for (int i = 0; i < spec.num_pairs(); ++i) f[static_cast<std::size_t>(i)] = posenc::inv_freq(spec, i);
        return FrequencyTable(std::move(f));
    }

    int num_pairs() const noexcept { return static_cast<int>(inv_freq_.size()); }
    const std::vector<double>& inv_freq() const noexcept { return inv_freq_; }
    /// theta_i. Precondition: 0 <= pair < num_pairs().
    double inv_freq(int pair) const noexcept { return inv_freq_[static_cast<std::size_t>(pair)]; }
    double attention_factor() const noexcept { return attention_factor_; }

    /// Pairs whose frequency is exactly 0 (proportional RoPE's unrotated pairs,
    /// scaling/proportional.hpp): their angle is 0 at every position, period infinite, turns 0.
    int zero_freq_pairs() const noexcept
    {
        int n = 0;
        for (double f : inv_freq_) n += f == 0.0 ? 1 : 0;
        return n;
    }
    /// Whether pair `pair` has frequency exactly 0. Precondition: 0 <= pair < num_pairs().
    bool is_zero_freq(int pair) const noexcept { return inv_freq(pair) == 0.0; }
    /// Pairs that rotate at all: num_pairs() - zero_freq_pairs().
    int rotated_pairs() const noexcept { return num_pairs() - zero_freq_pairs(); }

    /// 2*pi / theta_i (infinite for a zero frequency).
    double period(int pair) const noexcept { return period_of(inv_freq(pair)); }
    /// length * theta_i / 2pi.
    double turns(int pair, double length) const noexcept { return turns_of(inv_freq(pair), length); }
    /// turns(pair, length) >= 1.
    bool completes_turn(int pair, double length) const noexcept { return turns(pair, length) >= 1.0; }

    /// Indices of the pairs that never complete a turn within `length` tokens, ascending.
    std::vector<int> pairs_without_full_turn(double length) const
    {
        std::vector<int> out;
        for (int i = 0; i < num_pairs(); ++i)
            if (!completes_turn(i, length)) out.push_back(i);
        return out;
    }

    /// How many pairs never complete a turn within `length` tokens.
    int count_without_full_turn(double length) const noexcept
    {
        int n = 0;
        for (int i = 0; i < num_pairs(); ++i) n += completes_turn(i, length) ? 0 : 1;
        return n;
    }

private:
    std::vector<double> inv_freq_;
    double attention_factor_;
};

}  // namespace posenc
