// SPDX-License-Identifier: MIT
// posenc/scaling/dynamic_ntk.hpp: dynamic NTK scaling, Hugging Face's "dynamic" rope type.
//
// Source: emozilla, "Dynamically Scaled RoPE further increases performance of long context
// LLaMA with zero fine-tuning", r/LocalLLaMA 2023; YaRN (arXiv 2309.00071) section 3.3. Posenc
// reproduces Hugging Face `_compute_dynamic_ntk_parameters` (docs/formulas.md H4),
// whose schedule differs from the paper's s = max(1, l'/L):
//     n  = max(sequence_length, L)            L = max_position_embeddings (NOT the original length)
//     b' = b * (s n / L - (s - 1))^(R / (R - 2)),   theta'_i = b'^(-2i/R),   attention factor 1
// At n = L the base is unchanged. Hugging Face recomputes the table before a forward pass whose
// max(position_ids) + 1 exceeds the cached length (first L); posenc exposes the table as a pure
// function of the sequence length and leaves that state machine to the caller.
//
// Precision::hf_float32 follows Hugging Face's two code paths:
//   sequence_length absent or <= L (the table built at init, seq_len None): b' in Python double
//     with n = L, then the default float32 formula with fl(b');
//   sequence_length > L (the runtime recompute, seq_len a 0-d int64 tensor): float32 tensor math
//     x = (fl(s) (x) fl(n)) (/) fl(L) (-) fl(s - 1);  b'32 = fl(b) (x) pow32(x, fl(R / (R - 2)));
//     inv_j = 1 (/) pow32(b'32, e_j).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "posenc/scaling/common.hpp"

namespace posenc {

/// Dynamic NTK by `factor` s relative to `max_position_embeddings` L.
/// Invariants: 1 <= s < 2^53; L > 0.
class DynamicNtkScaling
{
public:
    /// 2^53: factors from here on lose s - 1 to rounding (the constructor refuses them).
    static constexpr double max_factor = 9007199254740992.0;

    /// Throws posenc::error ("dynamic.max_position_embeddings 0 must be > 0").
    DynamicNtkScaling(double factor, std::int64_t max_position_embeddings)
        : factor_(factor), max_position_embeddings_(max_position_embeddings)
    {
        detail::require_scaling_factor("dynamic", factor);
        // s n / L - (s - 1) must see s - 1 exactly: from 2^53 on, s - 1 rounds to s and the
        // init table's base becomes b * 0 = 0 (s = 1e17) or a wrong multiple of b.
        detail::require(factor < max_factor, "dynamic.factor", factor,
                        "must be < 2^53 = 9007199254740992 (the largest factor whose s - 1 is exact in double)");
        detail::require_positive_length("dynamic.max_position_embeddings", max_position_embeddings);
    }

    double factor() const noexcept { return factor_; }
    std::int64_t max_position_embeddings() const noexcept { return max_position_embeddings_; }

    friend bool operator==(const DynamicNtkScaling& a, const DynamicNtkScaling& b) noexcept
    {
        return a.factor_ == b.factor_ && a.max_position_embeddings_ == b.max_position_embeddings_;
    }
    friend bool operator!=(const DynamicNtkScaling& a, const DynamicNtkScaling& b) noexcept { return !(a == b); }

private:
    double factor_;
    std::int64_t max_position_embeddings_;
};

/// b' = b * (s n / L - (s - 1))^(R / (R - 2)) with n = max(sequence_length, L), in double and in
/// Hugging Face's order (`base * ((factor * seq_len / max_pos) - (factor - 1)) ** (dim / (dim - 2))`).
/// No sequence length means Hugging Face's init (n = L). R = 128, b = 1e4, L = 4096, s = 2:
/// n = 4097 -> 10004.96034, 8192 -> 30527.73675, 16384 -> 72195.86009. Relative error < 8 * 2^-52.
/// Throws posenc::error if rotary_dim <= 2, sequence_length <= 0, b' overflows or falls below 1.
inline double dynamic_ntk_base(const RopeSpec& spec, const DynamicNtkScaling& scaling,
                               std::optional<std::int64_t> sequence_length = std::nullopt)
{
    detail::require_ntk_rotary_dim(spec, "dynamic");
    if (sequence_length) detail::require_sequence_length(*sequence_length);
    const std::int64_t length = scaling.max_position_embeddings();
    const double n = static_cast<double>(sequence_length && *sequence_length > length ? *sequence_length : length);
    const double s = scaling.factor();
    const double r = static_cast<double>(spec.rotary_dim());
    const double base = spec.base() * std::pow((s * n / static_cast<double>(length)) - (s - 1.0), r / (r - 2.0));
    if (!std::isfinite(base)) detail::raise("dynamic.scaled_base", base, "must be finite");
    if (!(base >= 1.0))  // the growth term is >= 1 in exact arithmetic; rounding cannot take it to 0
        detail::raise("dynamic.factor", s, "makes the scaled base " + detail::format_value(base) + " (must stay >= 1)");
    return base;
}

/// The dynamic NTK frequencies at `sequence_length` (absent: the init table, equal to the default).
///   exact:      dynamic_ntk_base(...)^(-2i/R) in double (relative error < (1 + |ln b'|) 2^-52)
///   hf_float32: the two Hugging Face paths of the file comment
/// Throws posenc::error if rotary_dim <= 2, sequence_length <= 0, or the base overflows (in
/// hf_float32: overflows float32).
inline std::vector<double> dynamic_ntk_inv_freq(const RopeSpec& spec, const DynamicNtkScaling& scaling,
                                                std::optional<std::int64_t> sequence_length = std::nullopt,
                                                Precision precision = Precision::exact)
{
    detail::require_precision(precision);
    const double base = dynamic_ntk_base(spec, scaling, sequence_length);
    const double r = static_cast<double>(spec.rotary_dim());
    if (precision == Precision::exact) {
        std::vector<double> inv(static_cast<std::size_t>(spec.num_pairs()));
        for (std::size_t i = 0; i < inv.size(); ++i) inv[i] = std::pow(base, -2.0 * static_cast<double>(i) / r);
        return inv;
    }
    detail::require_float32_base(spec.base());
    const bool runtime = sequence_length && *sequence_length > scaling.max_position_embeddings();
    if (!runtime) {
        detail::require_float32_base(base, "dynamic.scaled_base");
        return detail::widen(hf32::default_inv_freq(base, spec.rotary_dim()));
    }
    const float s = hf32::round(scaling.factor());
    const float x = hf32::sub(hf32::div(hf32::mul(s, static_cast<float>(*sequence_length)),
                                        hf32::round(static_cast<double>(scaling.max_position_embeddings()))),
                              hf32::round(scaling.factor() - 1.0));
    const float base32 = hf32::mul(hf32::round(spec.base()), hf32::pow(x, hf32::round(r / (r - 2.0))));
    if (!std::isfinite(base32))
        detail::raise("dynamic.scaled_base", static_cast<double>(base32),
                      "must be finite in float32 for Precision::hf_float32");
    if (!(base32 >= 1.0f))  // float32 loses s - 1 from 2^24 on: fl(s) n / L - fl(s - 1) can reach 0
        detail::raise("dynamic.factor", scaling.factor(),
                      "makes the float32 scaled base " + detail::format_value(static_cast<double>(base32)) +
                          " at sequence_length " + std::to_string(*sequence_length) + " (must stay >= 1)");
    std::vector<float> inv = hf32::default_exponents(spec.rotary_dim());
    for (float& e : inv) e = hf32::div(1.0f, hf32::pow(base32, e));
    std::vector<double> wide = detail::widen(inv);
    detail::require_normal_inv_freq(wide, precision, "dynamic.factor", scaling.factor());
    return wide;
}

}  // namespace posenc
