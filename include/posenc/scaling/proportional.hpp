// SPDX-License-Identifier: MIT
// posenc/scaling/proportional.hpp: proportional RoPE (Gemma 4's full-attention layers).
//
// Source: Hugging Face transformers `_compute_proportional_rope_parameters`
// (src/transformers/modeling_rope_utils.py, rope_type "proportional", transformers 5.x), used by
// models/gemma4/modeling_gemma4.py for the "full_attention" layer type, whose head dim is the
// config's `global_head_dim` (per_layer_config overrides head_dim there). With H the head dim,
// p = partial_rotary_factor (default 1) and s = factor (default 1):
//
//     K         = floor(fl(p * H) / 2)          rotated pairs (Python `int(p * H // 2)`)
//     theta_i   = base^(-2i / H) / s            i in [0, K)     exponent over the WHOLE head dim H
//     theta_i   = 0                             i in [K, H/2)   (0 / s stays exactly 0)
//     attention factor 1
//
// and the table is applied over the whole head with half-split pairs (i, i + H/2): the RopeSpec
// is RopeSpec::full(H, base) (rotary_dim = H). Rotated and unrotated channels therefore
// interleave: channels [0, K) and [H/2, H/2 + K) rotate, the others have angle 0 at every
// position (cos 1, sin 0: they pass through unchanged, bit for bit in posenc's kernels).
// This differs from a partial rotary width R = p * H, whose exponent is over R and whose rotated
// channels are the prefix [0, R). Gemma 4 defaults: full_attention {proportional, p = 0.25,
// theta 1e6}, global_head_dim 512: K = 64 of 256 pairs rotate, theta_i = 1e6^(-i/256).
//
// Exact mode: theta_i = base^(-2i/H) / s in double, relative error < (2 + |ln base|) 2^-52;
// hf_float32: 1 (/) pow32(fl(base), fl(2i) (/) fl(H)), then (/) fl(s) (HF divides the float32
// table in place), zeros stay 0.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "posenc/scaling/common.hpp"
#include "posenc/scaling/float32_emulation.hpp"

namespace posenc {

/// Proportional RoPE: the fraction p of the head's pairs that rotate and the factor s that divides
/// every frequency. Invariants: p in [0, 1] (Hugging Face: "a value in the range [0.0, 1.0)";
/// 1 is the absent key's default); s >= 1 and finite in float32.
class ProportionalScaling
{
public:
    /// Throws posenc::error ("proportional.partial_rotary_factor 1.5 must be in [0, 1]",
    /// "proportional.factor 0.5 must be >= 1 and finite in float32").
    explicit ProportionalScaling(double partial_rotary_factor = 1.0, double factor = 1.0)
        : partial_rotary_factor_(partial_rotary_factor), factor_(factor)
    {
        if (!(partial_rotary_factor >= 0.0 && partial_rotary_factor <= 1.0))
            detail::raise("proportional.partial_rotary_factor", partial_rotary_factor, "must be in [0, 1]");
        detail::require_scaling_factor("proportional", factor);
    }

    double partial_rotary_factor() const noexcept { return partial_rotary_factor_; }
    double factor() const noexcept { return factor_; }

    /// K = floor(fl(p * head_dim) / 2): the pairs that rotate (Python `int(p * head_dim // 2)`,
    /// a double multiply, then floor division by 2). Gemma 4 (p 0.25, H 512): 64.
    /// Precondition: head_dim > 0.
    int rotated_pairs(int head_dim) const noexcept
    {
        const double product = partial_rotary_factor_ * static_cast<double>(head_dim);
        return static_cast<int>(std::floor(product / 2.0));
    }

    /// head_dim / 2 - K: the pairs whose frequency is exactly 0.
    int zero_freq_pairs(int head_dim) const noexcept { return head_dim / 2 - rotated_pairs(head_dim); }

    friend bool operator==(const ProportionalScaling& a, const ProportionalScaling& b) noexcept
    {
        return a.partial_rotary_factor_ == b.partial_rotary_factor_ && a.factor_ == b.factor_;
    }
    friend bool operator!=(const ProportionalScaling& a, const ProportionalScaling& b) noexcept { return !(a == b); }

private:
    double partial_rotary_factor_;
    double factor_;
};

namespace detail {
/// Proportional RoPE spans the whole head: rotary_dim must equal head_dim (so the offset is 0).
inline void require_whole_head(const RopeSpec& spec)
{
    if (spec.rotary_dim() != spec.head_dim())
        raise("rotary_dim", spec.rotary_dim(),
              "must equal head_dim " + std::to_string(spec.head_dim()) +
                  " for proportional RoPE (its half-split pairs span the whole head, the exponent is over "
                  "head_dim and the unrotated pairs have frequency 0; use RopeSpec::full(head_dim, base))");
}
}  // namespace detail

/// The proportional table of `spec` (see the file comment): H/2 entries, the first K
/// base^(-2i/H) / s, the rest exactly 0.
/// Throws posenc::error if spec.rotary_dim() != spec.head_dim() ("rotary_dim 128 must equal
/// head_dim 512 for proportional RoPE ..."), for a base beyond float32 in hf_float32 mode, or a
/// precision that names no enumerator.
inline std::vector<double> proportional_inv_freq(const RopeSpec& spec, const ProportionalScaling& scaling,
                                                 Precision precision = Precision::exact)
{
    detail::require_precision(precision);
    detail::require_whole_head(spec);
    const std::size_t rotated = static_cast<std::size_t>(scaling.rotated_pairs(spec.head_dim()));
    std::vector<double> inv(static_cast<std::size_t>(spec.num_pairs()), 0.0);
    if (precision == Precision::exact) {
        const std::vector<double> full = detail::default_inv_freq(spec);
        for (std::size_t i = 0; i < rotated; ++i) inv[i] = full[i] / scaling.factor();
        return inv;
    }
    detail::require_float32_base(spec.base());
    const std::vector<float> full = hf32::default_inv_freq(spec.base(), spec.head_dim());
    const float s = hf32::round(scaling.factor());
    for (std::size_t i = 0; i < rotated; ++i) inv[i] = static_cast<double>(hf32::div(full[i], s));
    return inv;
}

}  // namespace posenc
