// SPDX-License-Identifier: MIT
// posenc/scaling/llama3.hpp: Llama 3.1's frequency-band scaling.
//
// Source: Meta's Llama 3.1 reference code (`apply_scaling`) and Hugging Face
// `_compute_llama3_parameters` (docs/formulas.md H7; P6 (docs/formulas.md)).
// With wavelength lambda_j = 2 pi / theta_j, lambda_lo = L0 / low_freq_factor and
// lambda_hi = L0 / high_freq_factor:
//     lambda_j <  lambda_hi                 theta_j           (high frequency: kept)
//     lambda_j >  lambda_lo                 theta_j / s       (low frequency: divided)
//     otherwise (both bounds inclusive)     (1 - m_j) theta_j / s + m_j theta_j,
//                                           m_j = (L0 / lambda_j - lf) / (hf - lf)
// Attention factor 1. This is YaRN's NTK-by-parts with the ramp linear in r = L0 / lambda
// (alpha = low_freq_factor, beta = high_freq_factor) and no temperature. Llama-3.1-8B
// (R 128, b 5e5, s 8, 1 / 4, L0 8192): pairs 0-28 kept, 29-34 smoothed, 35-63 divided by 8.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "posenc/scaling/common.hpp"

namespace posenc {

/// Llama 3 scaling. Invariants: factor >= 1 and finite in float32; 0 < low_freq_factor <=
/// high_freq_factor, both finite in float32; original_max_position_embeddings > 0.
/// Equal band factors (Llama 4: 1 and 1) make a step with no smoothed band: wavelengths below
/// L0 / lf are kept, above it divided by s; a pair whose wavelength equals L0 / lf exactly would
/// divide by hf - lf = 0 (Hugging Face gives NaN there), and the table refuses it by pair.
class Llama3Scaling
{
public:
    /// Throws posenc::error ("llama3.low_freq_factor 4 must be <= high_freq_factor 1").
    Llama3Scaling(double factor, double low_freq_factor, double high_freq_factor,
                  std::int64_t original_max_position_embeddings)
        : factor_(factor), low_freq_factor_(low_freq_factor), high_freq_factor_(high_freq_factor),
          original_max_position_embeddings_(original_max_position_embeddings)
    {
        detail::require_scaling_factor("llama3", factor);
        detail::require(detail::finite_in_float32(low_freq_factor) && low_freq_factor > 0.0, "llama3.low_freq_factor",
                        low_freq_factor, "must be > 0 and finite in float32");
        detail::require(detail::finite_in_float32(high_freq_factor) && high_freq_factor > 0.0,
                        "llama3.high_freq_factor", high_freq_factor, "must be > 0 and finite in float32");
        if (!(low_freq_factor <= high_freq_factor))
            detail::raise("llama3.low_freq_factor", low_freq_factor,
                          "must be <= high_freq_factor " + detail::format_value(high_freq_factor));
        detail::require_positive_length("llama3.original_max_position_embeddings", original_max_position_embeddings);
    }

    double factor() const noexcept { return factor_; }
    double low_freq_factor() const noexcept { return low_freq_factor_; }
    double high_freq_factor() const noexcept { return high_freq_factor_; }
    std::int64_t original_max_position_embeddings() const noexcept { return original_max_position_embeddings_; }
    /// lambda_lo = L0 / low_freq_factor: longer wavelengths are divided by s.
    double low_freq_wavelength() const noexcept
    {
        return static_cast<double>(original_max_position_embeddings_) / low_freq_factor_;
    }
    /// lambda_hi = L0 / high_freq_factor: shorter wavelengths are kept.
    double high_freq_wavelength() const noexcept
    {
        return static_cast<double>(original_max_position_embeddings_) / high_freq_factor_;
    }

    friend bool operator==(const Llama3Scaling& a, const Llama3Scaling& b) noexcept
    {
        return a.factor_ == b.factor_ && a.low_freq_factor_ == b.low_freq_factor_ &&
               a.high_freq_factor_ == b.high_freq_factor_ &&
               a.original_max_position_embeddings_ == b.original_max_position_embeddings_;
    }
    friend bool operator!=(const Llama3Scaling& a, const Llama3Scaling& b) noexcept { return !(a == b); }

private:
    double factor_;
    double low_freq_factor_;
    double high_freq_factor_;
    std::int64_t original_max_position_embeddings_;
};

/// Which of Llama 3's three bands a pair falls in.
enum class Llama3Band { kept, smoothed, divided };

/// "kept", "smoothed" or "divided".
inline const char* to_string(Llama3Band band) noexcept
{
    return band == Llama3Band::kept ? "kept" : band == Llama3Band::smoothed ? "smoothed" : "divided";
}

namespace detail {

struct Llama3Pair {
    double inv_freq;
    Llama3Band band;
};

/// Exact (double) band and frequency of one pair from its default theta.
inline Llama3Pair llama3_exact(const Llama3Scaling& llama, double theta) noexcept
{
    const double wavelength = two_pi / theta;
    const double s = llama.factor();
    if (wavelength < llama.high_freq_wavelength()) return {theta, Llama3Band::kept};
    if (wavelength > llama.low_freq_wavelength()) return {theta / s, Llama3Band::divided};
    const double smooth =
        (static_cast<double>(llama.original_max_position_embeddings()) / wavelength - llama.low_freq_factor()) /
        (llama.high_freq_factor() - llama.low_freq_factor());
    return {(1.0 - smooth) * theta / s + smooth * theta, Llama3Band::smoothed};
}

/// Hugging Face's float32 band and frequency of one pair from its float32 default inv_freq.
inline Llama3Pair llama3_hf32(const Llama3Scaling& llama, float inv) noexcept
{
    const float s = hf32::round(llama.factor());
    const float wavelength = hf32::mul(hf32::div(1.0f, inv), hf32::round(two_pi));
    const float lambda_lo = hf32::round(llama.low_freq_wavelength());
    const float lambda_hi = hf32::round(llama.high_freq_wavelength());
    const float base = wavelength > lambda_lo ? hf32::div(inv, s) : inv;
    const float original_length = hf32::round(static_cast<double>(llama.original_max_position_embeddings()));
    const float smooth = hf32::div(
        hf32::sub(hf32::mul(hf32::div(1.0f, wavelength), original_length), hf32::round(llama.low_freq_factor())),
        hf32::round(llama.high_freq_factor() - llama.low_freq_factor()));
    const float smoothed = hf32::add(hf32::div(hf32::mul(hf32::sub(1.0f, smooth), base), s), hf32::mul(smooth, base));
    const bool medium = !(wavelength < lambda_hi) && !(wavelength > lambda_lo);
    if (medium) return {static_cast<double>(smoothed), Llama3Band::smoothed};
    return {static_cast<double>(base), wavelength > lambda_lo ? Llama3Band::divided : Llama3Band::kept};
}

/// The band and frequency of every pair, written to `bands` and `inv_freq` (either may be null;
/// each, when given, holds spec.num_pairs() entries). Written out rather than returned as a
/// vector of Llama3Pair: fewer vector types and members for every includer to compile.
inline void llama3_pairs(const RopeSpec& spec, const Llama3Scaling& llama, Precision precision,
                         std::vector<Llama3Band>* bands, std::vector<double>* inv_freq)
{
    detail::require_precision(precision);
    std::size_t j = 0;
    const auto put = [bands, inv_freq, &j](const Llama3Pair& p) {
        if (bands) (*bands)[j] = p.band;
        if (inv_freq) (*inv_freq)[j] = p.inv_freq;
        ++j;
    };
    if (precision == Precision::exact) {
        for (double theta : default_inv_freq(spec)) put(llama3_exact(llama, theta));
        return;
    }
    require_float32_base(spec.base());
    for (float inv : hf32::default_inv_freq(spec.base(), spec.rotary_dim())) put(llama3_hf32(llama, inv));
}

}  // namespace detail

/// The band of every pair. exact: wavelengths in double; hf_float32: Hugging Face's float32
/// wavelengths compared with fl(lambda) (they agree for Llama 3.1 and 3.2).
inline std::vector<Llama3Band> llama3_bands(const RopeSpec& spec, const Llama3Scaling& llama,
                                            Precision precision = Precision::exact)
{
    std::vector<Llama3Band> bands(static_cast<std::size_t>(spec.num_pairs()));
    detail::llama3_pairs(spec, llama, precision, &bands, nullptr);
    return bands;
}

/// Llama 3's frequencies.
///   exact:      the file comment's formula in double (relative error < (4 + |ln b|) 2^-52)
///   hf_float32: from the float32 default inv_j: wl = (1 (/) inv) (x) fl(2 pi);
///               base = wl > fl(lambda_lo) ? inv (/) fl(s) : inv;
///               m = ((1 (/) wl) (x) fl(L0) (-) fl(lf)) (/) fl(hf - lf);
///               smooth = (((1 (-) m) (x) base) (/) fl(s)) (+) (m (x) base);
///               inv' = smooth where !(wl < fl(lambda_hi)) && !(wl > fl(lambda_lo)), else base
/// Throws posenc::error only for a base beyond float32 in hf_float32 mode.
inline std::vector<double> llama3_inv_freq(const RopeSpec& spec, const Llama3Scaling& llama,
                                           Precision precision = Precision::exact)
{
    std::vector<double> inv(static_cast<std::size_t>(spec.num_pairs()));
    detail::llama3_pairs(spec, llama, precision, nullptr, &inv);
    return inv;
}

}  // namespace posenc
