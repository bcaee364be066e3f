// SPDX-License-Identifier: MIT
// posenc/query_scale.hpp: per-position query scaling, QueryScale.
//
// Some models multiply the query of token at position pos (counted from 0) by
//
//     m(pos) = 1 + beta * ln(1 + floor((pos + position_offset) / divisor))
//
// which grows by beta * ln 2 at pos + offset = divisor, then logarithmically. Sources
// (Hugging Face transformers 5.x):
//   Llama 4 attention temperature tuning (models/llama4/modeling_llama4.py, Llama4TextAttention:
//     `log1p(floor((positions + 1) / floor_scale)) * attn_scale + 1`, on the layers without RoPE
//     when `attn_temperature_tuning`; positions = cache positions):
//       beta = attn_scale, divisor = floor_scale, position_offset = 1
//       (QueryScale::llama4_temperature_tuning; config defaults attn_scale 0.1, floor_scale 8192)
//   Ministral 3 and Mistral 4 (models/ministral3/modeling_ministral3.py and
//     models/mistral4/modeling_mistral4.py, get_llama_4_attn_scale:
//     `1 + beta * log(1 + floor(position_ids / original_max_position_embeddings))`, every layer,
//     after RoPE; beta = rope_parameters["llama_4_scaling_beta"]):
//       beta = llama_4_scaling_beta, divisor = original_max_position_embeddings, position_offset = 0
//       (QueryScale::llama_4_scaling_beta)
// The multiplier commutes with the rotation (a scalar per token), so it may be applied before or
// after RoPE, and after a QK norm.
//
// Exactness: n = floor((pos + offset) / divisor) is an exact integer division; ln(1 + n) is
// std::log1p of the double n (exact for n <= 2^53), within 1 ulp; the product and the sum round
// once each. So multiplier() is within 2^-51 * m(pos) of the real value (about 2 ulp of double),
// and the float values of fill_multipliers are the correctly rounded float of that double (off
// by at most 1 ulp of float, only when the real value lies within 2^-51 m of a float rounding
// boundary). Hugging Face computes in float32 (position_ids as float32, float32 log): its floor
// agrees with the exact one for pos + offset < 2^24 (every float32 integer quotient is exact
// there), and its value is within a few float32 ulp of this one.
// Range: pos >= 0 and pos + offset <= 2^53 (refused otherwise, naming the position).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "posenc/error.hpp"

namespace posenc {

/// m(pos) = 1 + beta * ln(1 + floor((pos + position_offset) / divisor)); see the file comment.
/// Invariants (posenc::error otherwise): beta finite and >= 0; divisor >= 1;
/// position_offset in [0, 2^53].
class QueryScale
{
public:
    /// The largest pos + position_offset served: 2^53.
    static constexpr std::int64_t max_shifted_position = std::int64_t {1} << 53;

    /// Throws posenc::error ("query_scale.beta -0.1 must be finite and >= 0",
    /// "query_scale.divisor 0 must be >= 1", "query_scale.position_offset -1 must be in [0, 2^53]").
    QueryScale(double beta, std::int64_t divisor, std::int64_t position_offset = 0)
        : beta_(beta), divisor_(divisor), position_offset_(position_offset)
    {
        if (!(std::isfinite(beta) && beta >= 0.0)) detail::raise("query_scale.beta", beta, "must be finite and >= 0");
        if (divisor < 1) detail::raise("query_scale.divisor", divisor, "must be >= 1");
        if (position_offset < 0 || position_offset > max_shifted_position)
            detail::raise("query_scale.position_offset", position_offset, "must be in [0, 2^53]");
    }

    /// Llama 4's attention temperature tuning: beta = attn_scale, divisor = floor_scale, offset 1.
    static QueryScale llama4_temperature_tuning(double attn_scale, std::int64_t floor_scale)
    {
        return QueryScale(attn_scale, floor_scale, 1);
    }

    /// Ministral 3 / Mistral 4: beta = llama_4_scaling_beta, divisor =
    /// original_max_position_embeddings, offset 0.
    static QueryScale llama_4_scaling_beta(double beta, std::int64_t original_max_position_embeddings)
    {
        return QueryScale(beta, original_max_position_embeddings, 0);
    }

    double beta() const noexcept { return beta_; }
    std::int64_t divisor() const noexcept { return divisor_; }
    std::int64_t position_offset() const noexcept { return position_offset_; }

    /// floor((position + position_offset) / divisor), exact. Throws posenc::error unless
    /// position >= 0 and position + position_offset <= 2^53
    /// ("position -1 must be >= 0 (positions count from 0)").
    std::int64_t floor_quotient(std::int64_t position) const
    {
        require_position(position);
        return (position + position_offset_) / divisor_;
    }

    /// m(position) in double, within 2^-51 m of the real value. Throws as floor_quotient.
    double multiplier(std::int64_t position) const
    {
        return 1.0 + beta_ * std::log1p(static_cast<double>(floor_quotient(position)));
    }

    /// out[k] = float(m(first_position + k)) for k in [0, count): the per-token multipliers of a
    /// run of consecutive positions (a prefill chunk or a decode step), what a fused
    /// QK-norm + RoPE step takes as its per-token query multipliers. m is constant between
    /// multiples of the divisor, so one log per distinct quotient. Throws posenc::error, before
    /// writing, for count < 0 or a position outside the range; out must hold count floats.
    void fill_multipliers(std::int64_t first_position, float* out, std::ptrdiff_t count) const
    {
        if (count < 0) detail::raise("count", static_cast<long long>(count), "must be >= 0");
        if (count == 0) return;
        require_position(first_position);
        if (static_cast<std::int64_t>(count - 1) > max_shifted_position - position_offset_ - first_position)
            detail::raise("first_position + count - 1",
                          static_cast<double>(first_position) + static_cast<double>(count - 1),
                          "must keep position + position_offset <= 2^53");
        std::int64_t quotient = -1;
        float value = 1.0f;
        for (std::ptrdiff_t k = 0; k < count; ++k) {
            const std::int64_t q = (first_position + static_cast<std::int64_t>(k) + position_offset_) / divisor_;
            if (q != quotient) {
                quotient = q;
                value = static_cast<float>(1.0 + beta_ * std::log1p(static_cast<double>(q)));
            }
            out[k] = value;
        }
    }

    /// The same into a new vector of `count` floats.
    std::vector<float> multipliers(std::int64_t first_position, std::int64_t count) const
    {
        if (count < 0) detail::raise("count", count, "must be >= 0");
        std::vector<float> out(static_cast<std::size_t>(count));
        fill_multipliers(first_position, out.data(), static_cast<std::ptrdiff_t>(count));
        return out;
    }

    /// out[k] = float(m(positions[k])) for explicit position ids (packed or shuffled tokens).
    /// Throws posenc::error, before writing, naming positions[k] when one is out of range.
    void fill_multipliers_at(const std::int64_t* positions, float* out, std::ptrdiff_t count) const
    {
        if (count < 0) detail::raise("count", static_cast<long long>(count), "must be >= 0");
        for (std::ptrdiff_t k = 0; k < count; ++k) require_position(positions[k], k);
        for (std::ptrdiff_t k = 0; k < count; ++k) out[k] = static_cast<float>(multiplier(positions[k]));
    }

    friend bool operator==(const QueryScale& a, const QueryScale& b) noexcept
    {
        return a.beta_ == b.beta_ && a.divisor_ == b.divisor_ && a.position_offset_ == b.position_offset_;
    }
    friend bool operator!=(const QueryScale& a, const QueryScale& b) noexcept { return !(a == b); }

private:
    void require_position(std::int64_t position, std::ptrdiff_t index = -1) const
    {
        const std::string field = index < 0 ? "position" : "positions[" + std::to_string(index) + "]";
        if (position < 0) detail::raise(field, position, "must be >= 0 (positions count from 0)");
        if (position > max_shifted_position - position_offset_)
            detail::raise(field, position,
                          "must keep position + position_offset " + std::to_string(position_offset_) + " <= 2^53");
    }

    double beta_;
    std::int64_t divisor_;
    std::int64_t position_offset_;
};

}  // namespace posenc
