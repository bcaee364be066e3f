// SPDX-License-Identifier: MIT
// posenc/scaling/linear.hpp: linear scaling, i.e. Position Interpolation.
//
// Source: Chen et al. 2023, "Extending Context Window of Large Language Models via Positional
// Interpolation", arXiv 2306.15595, eq. 4: f'(x, m) = f(x, m L / L'), position m -> m / s.
// Hugging Face `_compute_linear_scaling_parameters` divides the frequencies instead, which is
// the same rotation:  theta'_i = theta_i / s,  attention factor 1  (docs/formulas.md H3).
// Every pair's angle step shrinks to 1/s; the farthest position L' = s L lands exactly on L.
#pragma once

#include <cstddef>
#include <vector>

#include "posenc/scaling/common.hpp"

namespace posenc {

/// Position Interpolation by `factor` s. Invariant: s >= 1 and finite in float32.
class LinearScaling
{
public:
    /// Throws posenc::error ("linear.factor 0.5 must be >= 1 and finite in float32").
    explicit LinearScaling(double factor) : factor_(factor) { detail::require_scaling_factor("linear", factor); }

    double factor() const noexcept { return factor_; }

    friend bool operator==(const LinearScaling& a, const LinearScaling& b) noexcept { return a.factor_ == b.factor_; }
    friend bool operator!=(const LinearScaling& a, const LinearScaling& b) noexcept { return !(a == b); }

private:
    double factor_;
};

/// theta'_i = theta_i / s for every pair.
///   exact:      base^(-2i/R) / s in double (relative error < (2 + |ln base|) 2^-52)
///   hf_float32: default_j (/) fl(s)   (HF divides the float32 default table in place)
/// Throws posenc::error only for a base beyond float32 in hf_float32 mode.
inline std::vector<double> linear_inv_freq(const RopeSpec& spec, const LinearScaling& scaling,
                                           Precision precision = Precision::exact)
{
    detail::require_precision(precision);
    if (precision == Precision::exact) {
        std::vector<double> inv = detail::default_inv_freq(spec);
        for (double& x : inv) x /= scaling.factor();
        return inv;
    }
    detail::require_float32_base(spec.base());
    std::vector<float> inv = hf32::default_inv_freq(spec.base(), spec.rotary_dim());
    const float s = hf32::round(scaling.factor());
    for (float& x : inv) x = hf32::div(x, s);
    return detail::widen(inv);
}

}  // namespace posenc
