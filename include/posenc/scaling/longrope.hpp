// SPDX-License-Identifier: MIT
// posenc/scaling/longrope.hpp: LongRoPE per-pair factors (Phi-3, Phi-3.5, Phi-4-mini).
//
// Source: Ding et al. 2024, "LongRoPE: Extending LLM Context Window Beyond 2 Million Tokens",
// arXiv 2402.13753, section 3.2 eq. 3 (per-dimension rescale factors found by search); the
// shipped form is Hugging Face `_compute_longrope_parameters` (docs/formulas.md H6;
// P6 (docs/formulas.md)):
//     theta'_j = theta_j / ext_j,   ext = long_factor if sequence_length > L0 (strictly), else short_factor
//     attention factor = sqrt(1 + ln s / ln L0) for s > 1 (1 otherwise), unless given explicitly
// The attention factor does not change when the table switches (HF computes it once).
// Phi-3-mini-128k (R 96, L0 4096, s = 131072 / 4096 = 32): sqrt(17/12) = 1.1902380714.
// Hugging Face's runtime switch (and Phi-3's re-prefill at the first switch) is state the caller
// keeps; the table here is a pure function of the sequence length (absent: HF's init, short).
// The paper's n-hat initial positions kept unscaled are not part of the shipped form.
//
// What switches at the original length differs by family (LongRopeSwitchRule). In every case the
// sequence length n is Hugging Face's `seq_len = max(position_ids) + 1` of the forward call:
//   phi3_factor_tables     Phi-3 / Phi-3.5 / Phi-4-mini (models/phi3/modeling_phi3.py) and
//                          Phi-4-multimodal (models/phi4_multimodal/modeling_phi4_multimodal.py):
//                          `dynamic_rope_update` -> `longrope_frequency_update` (modeling_rope_utils.py)
//                          installs the long_factor table when n > L0, the short one otherwise;
//                          the attention factor is the init one at every length.
//   phimoe_magnitude_only  PhiMoE (models/phimoe/modeling_phimoe.py, PhimoeRotaryEmbedding.forward):
//                          the forward recomputes the table with no sequence length, so the
//                          short_factor table is used at EVERY length; only the cos/sin magnitude
//                          switches: long_mscale when n > L0, short_mscale otherwise (the
//                          config's rope_parameters keys; the computed sqrt(...) factor is unused).
// All of these families' generate() drops the cache and re-prefills the first time the sequence
// passes L0 (prepare_inputs_for_generation); an engine that keeps its cache instead re-rotates
// the cached keys (posenc/rerotation.hpp).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "posenc/scaling/common.hpp"

namespace posenc {

/// What a LongRoPE model switches when the sequence passes L0; see the file comment.
enum class LongRopeSwitchRule {
    phi3_factor_tables,  ///< short -> long factor table, attention factor fixed (Phi-3, Phi-4)
    phimoe_magnitude_only  ///< short table always; short_mscale -> long_mscale (PhiMoE)
};

/// "phi3_factor_tables" or "phimoe_magnitude_only".
inline const char* to_string(LongRopeSwitchRule rule) noexcept
{
    return rule == LongRopeSwitchRule::phimoe_magnitude_only ? "phimoe_magnitude_only" : "phi3_factor_tables";
}

/// LongRoPE: two per-pair factor lists of the same length (it must be R/2 for the spec they are
/// used with, checked when a table is built), the switch length L0 and the factor s that sets
/// the attention factor. Invariants: lists non-empty and of equal size, each entry a normal
/// float32 number (in [2^-126, float32 max]); L0 > 1; s >= 1 and finite in float32; an explicit
/// attention factor in [2^-10, 2^10].
class LongRopeScaling
{
public:
    /// Throws posenc::error ("longrope.long_factor.size 47 must equal short_factor.size 48",
    /// "longrope.short_factor[3] nan must be > 0 and finite in float32", ...).
    LongRopeScaling(std::vector<double> short_factor, std::vector<double> long_factor,
                    std::int64_t original_max_position_embeddings, double factor)
        : short_factor_(std::move(short_factor)), long_factor_(std::move(long_factor)),
          original_max_position_embeddings_(original_max_position_embeddings), factor_(factor)
    {
        validate();
    }

    /// A copy whose attention factor is `attention_factor` verbatim.
    /// Throws ("longrope.attention_factor -1 must be finite and > 0").
    LongRopeScaling with_attention_factor(double attention_factor) const
    {
        LongRopeScaling l = *this;
        l.attention_factor_ = attention_factor;
        l.validate();
        return l;
    }

    /// A copy under PhiMoE's rule (LongRopeSwitchRule::phimoe_magnitude_only): the short table at
    /// every length, cos/sin multiplied by short_mscale for n <= L0 and long_mscale for n > L0.
    /// Throws ("longrope.long_mscale 0 must be in [2^-10, 2^10] ...") for a magnitude outside
    /// the attention factor range.
    LongRopeScaling with_phimoe_mscales(double short_mscale, double long_mscale) const
    {
        LongRopeScaling l = *this;
        l.has_mscales_ = true;
        l.short_mscale_ = short_mscale;
        l.long_mscale_ = long_mscale;
        l.validate();
        return l;
    }

    /// Which rule switches at L0: phimoe_magnitude_only once with_phimoe_mscales was applied,
    /// else phi3_factor_tables.
    LongRopeSwitchRule switch_rule() const noexcept
    {
        return has_mscales_ ? LongRopeSwitchRule::phimoe_magnitude_only : LongRopeSwitchRule::phi3_factor_tables;
    }
    /// PhiMoE's short_mscale / long_mscale (std::nullopt under phi3_factor_tables).
    std::optional<double> short_mscale() const noexcept
    {
        return has_mscales_ ? std::optional<double>(short_mscale_) : std::nullopt;
    }
    std::optional<double> long_mscale() const noexcept
    {
        return has_mscales_ ? std::optional<double>(long_mscale_) : std::nullopt;
    }

    const std::vector<double>& short_factor() const noexcept { return short_factor_; }
    const std::vector<double>& long_factor() const noexcept { return long_factor_; }
    std::int64_t original_max_position_embeddings() const noexcept { return original_max_position_embeddings_; }
    double factor() const noexcept { return factor_; }
    std::optional<double> explicit_attention_factor() const noexcept { return attention_factor_; }

    /// True when the sequence is past the original length: sequence_length > L0 (strictly; HF
    /// `seq_len > original_max_position_embeddings`). False without a length.
    bool past_original_length(std::optional<std::int64_t> sequence_length) const noexcept
    {
        return sequence_length && *sequence_length > original_max_position_embeddings_;
    }

    /// True when a table for `sequence_length` uses the long factors: past_original_length under
    /// phi3_factor_tables (HF `if seq_len and seq_len > original_max_position_embeddings`);
    /// never under phimoe_magnitude_only.
    bool uses_long_factors(std::optional<std::int64_t> sequence_length) const noexcept
    {
        return !has_mscales_ && past_original_length(sequence_length);
    }

    friend bool operator==(const LongRopeScaling& a, const LongRopeScaling& b) noexcept
    {
        return a.short_factor_ == b.short_factor_ && a.long_factor_ == b.long_factor_ &&
               a.original_max_position_embeddings_ == b.original_max_position_embeddings_ && a.factor_ == b.factor_ &&
               a.attention_factor_ == b.attention_factor_ && a.has_mscales_ == b.has_mscales_ &&
               (!a.has_mscales_ || (a.short_mscale_ == b.short_mscale_ && a.long_mscale_ == b.long_mscale_));
    }
    friend bool operator!=(const LongRopeScaling& a, const LongRopeScaling& b) noexcept { return !(a == b); }

private:
    static void validate_list(const std::vector<double>& list, const char* name)
    {
        if (list.empty()) detail::raise(std::string("longrope.") + name + ".size", list.size(), "must be > 0");
        for (std::size_t i = 0; i < list.size(); ++i)
            if (!(list[i] > 0.0 && detail::finite_in_float32(list[i])))
                detail::raise(std::string("longrope.") + name + "[" + std::to_string(i) + "]", list[i],
                              "must be > 0 and finite in float32");
            else if (list[i] < detail::float32_min_normal)
                detail::raise(std::string("longrope.") + name + "[" + std::to_string(i) + "]", list[i],
                              "must be >= 2^-126 = 1.1754943508222875e-38 (below it the factor is 0 or subnormal "
                              "in float32, where Hugging Face divides by it)");
    }

    void validate() const
    {
        validate_list(short_factor_, "short_factor");
        validate_list(long_factor_, "long_factor");
        if (long_factor_.size() != short_factor_.size())
            detail::raise("longrope.long_factor.size", long_factor_.size(),
                          "must equal short_factor.size " + std::to_string(short_factor_.size()));
        detail::require(original_max_position_embeddings_ > 1, "longrope.original_max_position_embeddings",
                        original_max_position_embeddings_, "must be > 1 (the attention factor divides by ln L0)");
        detail::require_scaling_factor("longrope", factor_);
        if (attention_factor_) detail::require_attention_factor("longrope.attention_factor", *attention_factor_);
        if (has_mscales_) {
            detail::require_attention_factor("longrope.short_mscale", short_mscale_);
            detail::require_attention_factor("longrope.long_mscale", long_mscale_);
        }
    }

    std::vector<double> short_factor_;
    std::vector<double> long_factor_;
    std::int64_t original_max_position_embeddings_;
    double factor_;
    std::optional<double> attention_factor_;
    bool has_mscales_ = false;  ///< PhiMoE's rule: short_mscale_ and long_mscale_ hold its magnitudes
    double short_mscale_ = 1.0;
    double long_mscale_ = 1.0;
};

/// The attention factor without a sequence length (HF's init). phi3_factor_tables: the explicit
/// attention factor if given; else 1 for s <= 1, else sqrt(1 + ln s / ln L0) (Python double,
/// HF's order; Phi-3-mini-128k: 1.1902380714238083; error < 3 ulp). phimoe_magnitude_only:
/// short_mscale (what every forward up to L0 uses).
inline double longrope_attention_factor(const LongRopeScaling& longrope) noexcept
{
    if (longrope.short_mscale()) return *longrope.short_mscale();
    if (longrope.explicit_attention_factor()) return *longrope.explicit_attention_factor();
    if (longrope.factor() <= 1.0) return 1.0;
    return std::sqrt(1.0 + std::log(longrope.factor()) /
                               std::log(static_cast<double>(longrope.original_max_position_embeddings())));
}

/// The attention factor for a sequence of `sequence_length` tokens (HF's seq_len =
/// max(position_ids) + 1): phimoe_magnitude_only: long_mscale when sequence_length > L0, else
/// short_mscale; phi3_factor_tables: longrope_attention_factor(longrope) at every length.
/// Absent length: longrope_attention_factor(longrope).
inline double longrope_attention_factor(const LongRopeScaling& longrope,
                                        std::optional<std::int64_t> sequence_length) noexcept
{
    if (longrope.long_mscale() && longrope.past_original_length(sequence_length)) return *longrope.long_mscale();
    return longrope_attention_factor(longrope);
}

/// LongRoPE's frequencies for `sequence_length` (absent: HF's init table, short factors): the
/// long factors when longrope.uses_long_factors(sequence_length) (never under PhiMoE's rule).
///   exact:      theta_j / ext_j in double (relative error < (2 + |ln b|) 2^-52)
///   hf_float32: 1 (/) (fl(ext_j) (x) pow32(fl(b), e_j))
/// Throws posenc::error if the lists do not have R/2 entries
/// ("longrope.short_factor.size 47 must equal rotary_dim / 2 = 48"), if sequence_length <= 0,
/// for a base beyond float32 in hf_float32 mode, or when a factor makes some inv_freq 0,
/// subnormal or inf in the precision (the error names that list entry).
inline std::vector<double> longrope_inv_freq(const RopeSpec& spec, const LongRopeScaling& longrope,
                                             std::optional<std::int64_t> sequence_length = std::nullopt,
                                             Precision precision = Precision::exact)
{
    detail::require_precision(precision);
    const std::size_t pairs = static_cast<std::size_t>(spec.num_pairs());
    const auto require_pairs = [pairs](const std::vector<double>& list, const char* name) {
        if (list.size() != pairs)
            detail::raise(std::string("longrope.") + name + ".size", list.size(),
                          "must equal rotary_dim / 2 = " + std::to_string(pairs));
    };
    require_pairs(longrope.short_factor(), "short_factor");
    require_pairs(longrope.long_factor(), "long_factor");
    if (sequence_length) detail::require_sequence_length(*sequence_length);
    const std::vector<double>& ext =
        longrope.uses_long_factors(sequence_length) ? longrope.long_factor() : longrope.short_factor();
    const char* list_name = longrope.uses_long_factors(sequence_length) ? "long_factor" : "short_factor";
    std::vector<double> inv;
    if (precision == Precision::exact) {
        inv = detail::default_inv_freq(spec);
        for (std::size_t j = 0; j < pairs; ++j) inv[j] /= ext[j];
    } else {
        detail::require_float32_base(spec.base());
        std::vector<float> inv32 = hf32::pos_freqs(spec.base(), spec.rotary_dim());
        for (std::size_t j = 0; j < pairs; ++j) inv32[j] = hf32::div(1.0f, hf32::mul(hf32::round(ext[j]), inv32[j]));
        inv = detail::widen(inv32);
    }
    // theta_j / ext_j leaves the precision's normal range only through an extreme ext_j (or base):
    // blame the list entry.
    for (std::size_t j = 0; j < pairs; ++j)
        if (!detail::normal_in(inv[j], precision))
            detail::raise(std::string("longrope.") + list_name + "[" + std::to_string(j) + "]", ext[j],
                          "makes inv_freq[" + std::to_string(j) + "] " + detail::format_value(inv[j]) +
                              ", not a normal " + (precision == Precision::exact ? "double" : "float32") +
                              " number (it would act as 0 or inf)");
    return inv;
}

}  // namespace posenc
