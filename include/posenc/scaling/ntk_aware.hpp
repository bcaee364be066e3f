// SPDX-License-Identifier: MIT
// posenc/scaling/ntk_aware.hpp: static NTK-aware scaling (change the base, not the positions).
//
// Source: bloc97, "NTK-Aware Scaled RoPE allows LLaMA models to have extended (8k+) context size
// without any fine-tuning", r/LocalLLaMA, June 2023; YaRN (Peng et al. 2023, arXiv 2309.00071)
// section 3.1, Definition 1:
//     b' = b * s^(R / (R - 2)),   theta'_i = b'^(-2i/R)
// chosen so that the slowest pair (i = R/2 - 1) is interpolated exactly like PI, while the
// fastest (i = 0) does not move: theta'_i / theta_i = s^(-2i/(R-2)). Attention factor 1.
// Hugging Face has no static NTK type; bloc97's patch sets the base and runs the default
// formula, which is what Precision::hf_float32 emulates (b' in Python double, then fl(b')).
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

#include "posenc/scaling/common.hpp"

namespace posenc {

/// Static NTK-aware scaling by `factor` s. Invariant: s >= 1 and finite in float32.
class NtkAwareScaling
{
public:
    /// Throws posenc::error ("ntk_aware.factor nan must be >= 1 and finite in float32").
    explicit NtkAwareScaling(double factor) : factor_(factor) { detail::require_scaling_factor("ntk_aware", factor); }

    double factor() const noexcept { return factor_; }

    friend bool operator==(const NtkAwareScaling& a, const NtkAwareScaling& b) noexcept
    {
        return a.factor_ == b.factor_;
    }
    friend bool operator!=(const NtkAwareScaling& a, const NtkAwareScaling& b) noexcept { return !(a == b); }

private:
    double factor_;
};

/// b' = b * s^(R / (R - 2)) in double, bloc97's order (`base * a ** (dim / (dim - 2))`).
/// Qwen3-8B x4: 1e6 * 4^(128/126) = 4,088,994.24 (lesson C2-5). Relative error < 4 * 2^-52.
/// Throws posenc::error if rotary_dim <= 2 or b' overflows.
inline double ntk_aware_base(const RopeSpec& spec, const NtkAwareScaling& scaling)
{
    detail::require_ntk_rotary_dim(spec, "ntk_aware");
    const double r = static_cast<double>(spec.rotary_dim());
    const double base = spec.base() * std::pow(scaling.factor(), r / (r - 2.0));
    if (!std::isfinite(base)) detail::raise("ntk_aware.scaled_base", base, "must be finite");
    return base;
}

/// theta'_i = b'^(-2i/R).
///   exact:      pow in double (relative error < (1 + |ln b'|) 2^-52, ~ 2e-15 for b' = 4e6)
///   hf_float32: the default float32 formula with fl(b') (hf32::default_inv_freq)
/// Throws posenc::error if rotary_dim <= 2, b' overflows, or (hf_float32) b' exceeds float32.
inline std::vector<double> ntk_aware_inv_freq(const RopeSpec& spec, const NtkAwareScaling& scaling,
                                              Precision precision = Precision::exact)
{
    detail::require_precision(precision);
    const double base = ntk_aware_base(spec, scaling);
    if (precision == Precision::hf_float32) {
        detail::require_float32_base(base, "ntk_aware.scaled_base");
        return detail::widen(hf32::default_inv_freq(base, spec.rotary_dim()));
    }
    std::vector<double> inv(static_cast<std::size_t>(spec.num_pairs()));
    const double r = static_cast<double>(spec.rotary_dim());
    for (std::size_t i = 0; i < inv.size(); ++i) inv[i] = std::pow(base, -2.0 * static_cast<double>(i) / r);
    return inv;
}

}  // namespace posenc
