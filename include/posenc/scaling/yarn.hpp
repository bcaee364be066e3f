// SPDX-License-Identifier: MIT
// posenc/scaling/yarn.hpp: YaRN (NTK-by-parts + attention temperature), as Hugging Face computes it.
//
// Source: Peng et al. 2023, "YaRN: Efficient Context Window Extension of Large Language Models",
// arXiv 2309.00071 v2, section 3.2 (NTK-by-parts, Definition 2, eqs. 17-20) and section 3.4
// (YaRN, Definition 3, eqs. 21-22). Posenc reproduces Hugging Face `_compute_yarn_parameters`
// in the form of transformers 4.56 and later (H5 (docs/formulas.md)):
//
//   c(r)       = R ln(L0 / (r 2 pi)) / (2 ln b)        pair index whose period turns r times in L0
//   low, high  = c(beta_fast), c(beta_slow)            beta_fast = 32 (paper beta), beta_slow = 1 (alpha)
//   truncate   low = floor(low), high = ceil(high)     (default; YarnCorrectionRounding::floor_ceil)
//   clamp      low = max(low, 0), high = min(high, R - 1)       R - 1, not R/2 - 1 (HF quirk)
//   ramp_j     = clamp((j - low) / (high - low), 0, 1),  high += 0.001 when low == high
//   theta'_j   = theta_j / s * ramp_j + theta_j * (1 - ramp_j)
//   attention factor  g(s, 1) = 0.1 ln s + 1  (s > 1), or g(s, mscale) / g(s, mscale_all_dim) when
//                     both are set, or an explicit attention_factor verbatim
//
// Where Hugging Face differs from the paper:
//   * the paper's ramp gamma(r) is linear in the turn count r = L0 / lambda_j; HF (and the
//     authors' reference code) is linear in the pair index j, i.e. in log r;
//   * the clamp is R - 1: when c(beta_slow) > R/2 - 1 the last pairs are never fully interpolated;
//     when floor(c(beta_fast)) > R - 1 then low > high and every pair is divided by s;
//   * transformers 4.48-4.55 replaced factor by max_position_embeddings / L0 whenever the
//     config named L0 (transformers #38224); `with_g2_factor_override` reproduces that on request.
// YaRN is static: the same table at every sequence length.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "posenc/scaling/common.hpp"

namespace posenc {

/// How the two correction dims are rounded: Hugging Face's `truncate` (true = floor_ceil, the
/// default; gpt-oss ships false = fractional).
enum class YarnCorrectionRounding { floor_ceil, fractional };

/// "floor_ceil" or "fractional".
inline const char* to_string(YarnCorrectionRounding rounding) noexcept
{
    return rounding == YarnCorrectionRounding::floor_ceil ? "floor_ceil" : "fractional";
}

/// YaRN parameters, validated on every construction and every `with_...` copy.
/// Invariants: factor >= 1 and finite in float32; original_max_position_embeddings > 0;
/// beta_fast >= beta_slow > 0, both finite (equal betas: an empty ramp, widened by 0.001 as
/// Hugging Face does; Kimi K2 ships 1 and 1); mscale and mscale_all_dim finite and >= 0 (0 means
/// "not set", as Python's truthiness treats it) with 0.1 m ln s + 1 <= 1024 for both; an
/// explicit attention factor in [2^-10, 2^10] (frequencies.hpp).
class YarnScaling
{
public:
    static constexpr double default_beta_fast = 32.0;
    static constexpr double default_beta_slow = 1.0;

    /// YaRN by `factor` s over the original (pre-extension) length L0.
    /// Throws posenc::error ("yarn.original_max_position_embeddings 0 must be > 0").
    YarnScaling(double factor, std::int64_t original_max_position_embeddings)
        : factor_(factor), original_max_position_embeddings_(original_max_position_embeddings)
    {
        validate();
    }

    /// A copy with other rotation counts. Throws ("yarn.beta_fast 1 must be >= beta_slow 32").
    YarnScaling with_betas(double beta_fast, double beta_slow) const
    {
        YarnScaling y = *this;
        y.beta_fast_ = beta_fast;
        y.beta_slow_ = beta_slow;
        y.validate();
        return y;
    }

    /// A copy with DeepSeek's mscale pair: attention factor g(s, mscale) / g(s, mscale_all_dim)
    /// when both are non-zero. Throws ("yarn.mscale -1 must be finite and >= 0").
    YarnScaling with_mscale(double mscale, double mscale_all_dim) const
    {
        YarnScaling y = *this;
        y.mscale_ = mscale;
        y.mscale_all_dim_ = mscale_all_dim;
        y.validate();
        return y;
    }

    /// A copy whose attention factor is `attention_factor` verbatim (overrides mscale).
    /// Throws ("yarn.attention_factor 0 must be finite and > 0").
    YarnScaling with_attention_factor(double attention_factor) const
    {
        YarnScaling y = *this;
        y.attention_factor_ = attention_factor;
        y.validate();
        return y;
    }

    /// A copy with Hugging Face's `truncate` choice.
    YarnScaling with_rounding(YarnCorrectionRounding rounding) const
    {
        YarnScaling y = *this;
        y.rounding_ = rounding;
        y.validate();
        return y;
    }

    /// Transformers 4.48-4.55 compatibility: a copy whose factor is
    /// max_position_embeddings / original_max_position_embeddings (Python double division).
    /// Qwen3-8B (40,960 / 32,768): s = 1.25; Qwen2.5 (32,768 / 32,768): s = 1, YaRN a no-op.
    /// Throws if max_position_embeddings <= 0 or the ratio is below 1.
    YarnScaling with_g2_factor_override(std::int64_t max_position_embeddings) const
    {
        detail::require_positive_length("yarn.max_position_embeddings", max_position_embeddings);
        YarnScaling y = *this;
        y.factor_ =
            static_cast<double>(max_position_embeddings) / static_cast<double>(original_max_position_embeddings_);
        y.validate();
        return y;
    }

    double factor() const noexcept { return factor_; }
    std::int64_t original_max_position_embeddings() const noexcept { return original_max_position_embeddings_; }
    double beta_fast() const noexcept { return beta_fast_; }
    double beta_slow() const noexcept { return beta_slow_; }
    /// 0 when not set.
    double mscale() const noexcept { return mscale_; }
    /// 0 when not set.
    double mscale_all_dim() const noexcept { return mscale_all_dim_; }
    /// The explicit attention factor, if one was given.
    std::optional<double> explicit_attention_factor() const noexcept { return attention_factor_; }
    YarnCorrectionRounding rounding() const noexcept { return rounding_; }

    friend bool operator==(const YarnScaling& a, const YarnScaling& b) noexcept
    {
        return a.factor_ == b.factor_ && a.original_max_position_embeddings_ == b.original_max_position_embeddings_ &&
               a.beta_fast_ == b.beta_fast_ && a.beta_slow_ == b.beta_slow_ && a.mscale_ == b.mscale_ &&
               a.mscale_all_dim_ == b.mscale_all_dim_ && a.attention_factor_ == b.attention_factor_ &&
               a.rounding_ == b.rounding_;
    }
    friend bool operator!=(const YarnScaling& a, const YarnScaling& b) noexcept { return !(a == b); }

private:
    /// g(s, m) = 0.1 m ln s + 1 within the attention factor range, for the mscale `field`.
    void require_mscale_in_range(double m, const char* field) const
    {
        if (factor_ > 1.0 && 0.1 * m * std::log(factor_) + 1.0 > max_attention_factor)
            detail::raise(field, m,
                          "must keep 0.1 * " + std::string(field + 5) + " * ln(factor " +
                              detail::format_value(factor_) + ") + 1 <= 1024 (the attention factor range)");
    }

    void validate() const
    {
        detail::require_scaling_factor("yarn", factor_);
        detail::require_positive_length("yarn.original_max_position_embeddings", original_max_position_embeddings_);
        detail::require(std::isfinite(beta_fast_) && beta_fast_ > 0.0, "yarn.beta_fast", beta_fast_,
                        "must be finite and > 0");
        detail::require(std::isfinite(beta_slow_) && beta_slow_ > 0.0, "yarn.beta_slow", beta_slow_,
                        "must be finite and > 0");
        // Hugging Face warns for beta_fast < beta_slow and builds a reversed ramp; posenc refuses it.
        if (!(beta_fast_ >= beta_slow_))
            detail::raise("yarn.beta_fast", beta_fast_, "must be >= beta_slow " + detail::format_value(beta_slow_));
        detail::require(std::isfinite(mscale_) && mscale_ >= 0.0, "yarn.mscale", mscale_, "must be finite and >= 0");
        detail::require(std::isfinite(mscale_all_dim_) && mscale_all_dim_ >= 0.0, "yarn.mscale_all_dim",
                        mscale_all_dim_, "must be finite and >= 0");
        if (attention_factor_) detail::require_attention_factor("yarn.attention_factor", *attention_factor_);
        // g(s, m) = 0.1 m ln s + 1 (yarn_mscale) must stay in the attention factor range for both
        // m: their ratio is the cos/sin factor and g(s, mscale_all_dim)^2 the softmax multiplier.
        require_mscale_in_range(mscale_, "yarn.mscale");
        require_mscale_in_range(mscale_all_dim_, "yarn.mscale_all_dim");
        detail::require(rounding_ == YarnCorrectionRounding::floor_ceil ||
                            rounding_ == YarnCorrectionRounding::fractional,
                        "yarn.rounding", static_cast<int>(rounding_),
                        "must be YarnCorrectionRounding::floor_ceil or YarnCorrectionRounding::fractional");
    }

    double factor_;
    std::int64_t original_max_position_embeddings_;
    double beta_fast_ = default_beta_fast;
    double beta_slow_ = default_beta_slow;
    double mscale_ = 0.0;
    double mscale_all_dim_ = 0.0;
    std::optional<double> attention_factor_;
    YarnCorrectionRounding rounding_ = YarnCorrectionRounding::floor_ceil;
};

namespace detail {
/// yarn_mscale without its checks, for arguments a YarnScaling has validated.
inline double yarn_mscale_unchecked(double scale, double mscale) noexcept
{
    if (scale <= 1.0) return 1.0;
    return 0.1 * mscale * std::log(scale) + 1.0;
}
}  // namespace detail

/// g(s, mscale) = 1 if s <= 1, else 0.1 * mscale * ln s + 1 (YaRN eq. 22's sqrt(1/t); HF
/// `get_mscale`, DeepSeek `yarn_get_mscale`), in HF's order. g(4) = 1.138629, g(16) = 1.277259,
/// g(40) = 1.3688879454. Error: < 2 ulp.
/// Throws posenc::error unless scale is finite and > 0 and mscale is finite (a NaN or infinite
/// argument would come back as NaN or inf).
inline double yarn_mscale(double scale, double mscale = 1.0)
{
    detail::require(std::isfinite(scale) && scale > 0.0, "scale", scale, "must be finite and > 0");
    detail::require(std::isfinite(mscale), "mscale", mscale, "must be finite");
    return detail::yarn_mscale_unchecked(scale, mscale);
}

/// The factor YaRN multiplies cos and sin by: the explicit attention factor if given; else
/// g(s, mscale) / g(s, mscale_all_dim) if both are non-zero (DeepSeek-V3: g(40,1)/g(40,1) = 1);
/// else g(s, 1). Qwen3 x4: 1.138629436111989.
inline double yarn_attention_factor(const YarnScaling& yarn) noexcept
{
    if (yarn.explicit_attention_factor()) return *yarn.explicit_attention_factor();
    if (yarn.mscale() != 0.0 && yarn.mscale_all_dim() != 0.0)
        return detail::yarn_mscale_unchecked(yarn.factor(), yarn.mscale()) /
               detail::yarn_mscale_unchecked(yarn.factor(), yarn.mscale_all_dim());
    return detail::yarn_mscale_unchecked(yarn.factor(), 1.0);
}

namespace detail {
/// yarn_correction_dim without its checks, for a YarnScaling's validated betas and length.
inline double yarn_correction_dim_unchecked(const RopeSpec& spec, double num_rotations,
                                            std::int64_t original_length) noexcept
{
    constexpr double pi = 3.141592653589793;
    return (static_cast<double>(spec.rotary_dim()) *
            std::log(static_cast<double>(original_length) / (num_rotations * 2.0 * pi))) /
           (2.0 * std::log(spec.base()));
}
}  // namespace detail

/// c(r) = R ln(L0 / (r 2 pi)) / (2 ln b): the fractional pair index whose period completes
/// `num_rotations` turns within L0 (HF `find_correction_dim`, same operation order).
/// Throws posenc::error unless num_rotations is finite and > 0 and original_length > 0 (the
/// logarithm would give -inf, inf or NaN).
inline double yarn_correction_dim(const RopeSpec& spec, double num_rotations, std::int64_t original_length)
{
    detail::require(std::isfinite(num_rotations) && num_rotations > 0.0, "num_rotations", num_rotations,
                    "must be finite and > 0");
    detail::require(original_length > 0, "original_length", original_length, "must be > 0");
    return detail::yarn_correction_dim_unchecked(spec, num_rotations, original_length);
}

/// The correction range: raw c(beta_fast), c(beta_slow), and [low, high] after rounding and the
/// clamp to [0, R - 1] (HF `find_correction_range`). `ramp_high` is the denominator end actually
/// used: high, or high + 0.001 when low == high.
struct YarnCorrectionRange {
    double raw_low;
    double raw_high;
    double low;
    double high;
    double ramp_high;
};

/// Qwen3 x4 (R 128, b 1e6, L0 32768): raw 23.596 / 39.651 -> [23, 40]; DeepSeek-V3 -> [10, 23];
/// the course's small model (R 32, b 1e4, L0 128): raw -0.78 / 5.24 -> [0, 6].
inline YarnCorrectionRange yarn_correction_range(const RopeSpec& spec, const YarnScaling& yarn) noexcept
{
    YarnCorrectionRange range {};
    range.raw_low =
        detail::yarn_correction_dim_unchecked(spec, yarn.beta_fast(), yarn.original_max_position_embeddings());
    range.raw_high =
        detail::yarn_correction_dim_unchecked(spec, yarn.beta_slow(), yarn.original_max_position_embeddings());
    double low = range.raw_low;
    double high = range.raw_high;
    if (yarn.rounding() == YarnCorrectionRounding::floor_ceil) {
        low = std::floor(low);
        high = std::ceil(high);
    }
    range.low = std::max(low, 0.0);
    range.high = std::min(high, static_cast<double>(spec.rotary_dim() - 1));
    range.ramp_high = range.low == range.high ? range.high + 0.001 : range.high;
    return range;
}

/// ramp_j = clamp((j - low) / (ramp_high - low), 0, 1) in double: 0 keeps pair j, 1 divides it
/// by s (Hugging Face's `1 - inv_freq_extrapolation_factor`).
inline std::vector<double> yarn_ramp(const RopeSpec& spec, const YarnScaling& yarn)
{
    const YarnCorrectionRange range = yarn_correction_range(spec, yarn);
    std::vector<double> ramp(static_cast<std::size_t>(spec.num_pairs()));
    for (std::size_t j = 0; j < ramp.size(); ++j)
        ramp[j] = std::clamp((static_cast<double>(j) - range.low) / (range.ramp_high - range.low), 0.0, 1.0);
    return ramp;
}

/// YaRN's frequencies.
///   exact:      theta_j (ramp 0), theta_j / s (ramp 1), theta_j (1 - ramp) + (theta_j / s) ramp
///               between; double, relative error < (3 + |ln b|) 2^-52
///   hf_float32: p_j = pow32(fl(b), e_j); X = 1 (/) p; I = 1 (/) (fl(s) (x) p);
///               ramp = clamp((fl(j) (-) fl(low)) (/) fl(ramp_high - low)); E = 1 (-) ramp;
///               inv = (I (x) (1 (-) E)) (+) (X (x) E)   (HF's exact order)
/// Throws posenc::error only for a base beyond float32 in hf_float32 mode.
inline std::vector<double> yarn_inv_freq(const RopeSpec& spec, const YarnScaling& yarn,
                                         Precision precision = Precision::exact)
{
    detail::require_precision(precision);
    const YarnCorrectionRange range = yarn_correction_range(spec, yarn);
    const std::size_t pairs = static_cast<std::size_t>(spec.num_pairs());
    if (precision == Precision::exact) {
        const std::vector<double> ramp = yarn_ramp(spec, yarn);
        std::vector<double> inv = detail::default_inv_freq(spec);
        for (std::size_t j = 0; j < pairs; ++j) {
            const double extrapolated = inv[j];
            const double interpolated = inv[j] / yarn.factor();
            if (ramp[j] == 0.0) inv[j] = extrapolated;
            else if (ramp[j] == 1.0) inv[j] = interpolated;
            else inv[j] = extrapolated * (1.0 - ramp[j]) + interpolated * ramp[j];
        }
        return inv;
    }
    detail::require_float32_base(spec.base());
    const std::vector<float> p = hf32::pos_freqs(spec.base(), spec.rotary_dim());
    const float s = hf32::round(yarn.factor());
    const float low = hf32::round(range.low);
    const float width = hf32::round(range.ramp_high - range.low);
    std::vector<float> inv(pairs);
    for (std::size_t j = 0; j < pairs; ++j) {
        const float extrapolation = hf32::div(1.0f, p[j]);
        const float interpolation = hf32::div(1.0f, hf32::mul(s, p[j]));
        const float ramp = std::clamp(hf32::div(hf32::sub(static_cast<float>(j), low), width), 0.0f, 1.0f);
        const float extrapolation_factor = hf32::sub(1.0f, ramp);
        inv[j] = hf32::add(hf32::mul(interpolation, hf32::sub(1.0f, extrapolation_factor)),
                           hf32::mul(extrapolation, extrapolation_factor));
    }
    return detail::widen(inv);
}

}  // namespace posenc
