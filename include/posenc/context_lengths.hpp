// SPDX-License-Identifier: MIT
// posenc/context_lengths.hpp: the two lengths at which a RoPE group's context extension is
// judged (extension_diagnostics, posenc/analysis/diagnostics.hpp): the original length L the
// group was trained at, and the target length L' it is extended to; and the check that the
// group's frequencies exist at L'. posenc-inspect's "Lengths" (docs/cli.md) and the Python
// module read them here, so that both give a config the same L and L'.
//
//   L0 = trained_length(group, request): request.original_length, else group.original_length
//        (0 there, unknown, is refused). A scaling the caller builds for the group (an override
//        naming an original length: yarn, llama3, longrope, dynamic) is built with L0.
//   L  = scaling_original_length(scaling) (yarn, llama3, longrope: original_max_position_embeddings;
//        dynamic NTK: its reference length), else L0; except Position Interpolation: the group's
//        own linear scaling, whose config names only the extended length (group.original_length
//        == max_position_embeddings, no request.original_length), has
//        L = round(max_position_embeddings / factor), at least 1 (positions below L'/factor keep
//        the trained angles).
//   L' = request.target_length; else round(L x request.target_factor) (a sweep of scalings at one
//        factor, or no scaling extrapolated S times); else, where the config names the extended
//        length (max_position_embeddings > 0, and the scaling is longrope, or the group's own
//        llama3 or linear), max_position_embeddings when the scaling is longrope or it exceeds L
//        (Llama 3.1's 131072: Llama 3's factor is not L'/L); else round(L x factor(scaling)).
//   Both lengths are in [1, context_length_limit = 2^50].
// Source of the rules: the config keys' meaning in Hugging Face's rotary embeddings
// (original_max_position_embeddings, max_position_embeddings; docs/models.md) and lesson C2-5.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "posenc/error.hpp"
#include "posenc/model_rope.hpp"
#include "posenc/scaling/scaling.hpp"

namespace posenc {

/// The longest length context_lengths gives or accepts: 2^50 positions.
inline constexpr std::int64_t context_length_limit = std::int64_t {1} << 50;

/// What the caller asks for beyond the group's own lengths (all optional).
struct LengthRequest {
    std::optional<std::int64_t> original_length;  ///< L0 instead of the group's original length
    std::optional<std::int64_t> target_length;  ///< L' as given
    std::optional<double> target_factor;  ///< L' = round(L x target_factor), >= 1
    bool own_scaling = true;  ///< the scaling is the group's own (perhaps rebuilt with L0), not a caller's override
};

/// L and L' of a group (file comment).
struct ContextLengths {
    std::int64_t original = 0;  ///< L
    std::int64_t target = 0;  ///< L'
};

/// L0: request.original_length, else group.original_length. Throws posenc::error
/// ("original_length 0 must be > 0 (the group names no max_position_embeddings or original length)")
/// when neither is known, and for a length beyond context_length_limit.
inline std::int64_t trained_length(const RopeGroup& group, const LengthRequest& request)
{
    const std::int64_t length = request.original_length.value_or(group.original_length);
    if (length <= 0)
        detail::raise("original_length", length,
                      "must be > 0 (the group names no max_position_embeddings or original length)");
    if (length > context_length_limit) detail::raise("original_length", length, "must be <= 2^50");
    return length;
}

namespace detail {

/// round(length x factor), refused under `field` beyond context_length_limit.
inline std::int64_t scaled_length(std::int64_t length, double factor, const char* field)
{
    const double t = std::round(static_cast<double>(length) * factor);
    if (!(t <= static_cast<double>(context_length_limit)))
        raise(field, t, "must be <= 2^50 (L x factor); name the target length instead");
    return t >= 1.0 ? static_cast<std::int64_t>(t) : 1;
}

/// Position Interpolation's original length: round(extended / factor), at least 1.
inline std::int64_t interpolated_length(std::int64_t extended, double factor)
{
    const double l = std::round(static_cast<double>(extended) / factor);
    return l >= 1.0 ? static_cast<std::int64_t>(l) : 1;
}

}  // namespace detail

/// L and L' of `group` under `scaling` (the group's own, or the caller's override built with
/// trained_length) for `request` (file comment). Throws posenc::error for an unknown L0
/// (trained_length), a target_factor below 1 or not finite ("target_factor"), a given target
/// length outside [1, 2^50], or an L x factor beyond 2^50 ("target_length").
inline ContextLengths context_lengths(const RopeGroup& group, const Scaling& scaling, const LengthRequest& request)
{
    const std::int64_t trained = trained_length(group, request);
    const bool longrope = std::holds_alternative<LongRopeScaling>(scaling);
    const bool linear = std::holds_alternative<LinearScaling>(scaling);
    const bool llama3 = std::holds_alternative<Llama3Scaling>(scaling);
    const bool config_names_target =
        group.max_position_embeddings > 0 && (longrope || (request.own_scaling && (llama3 || linear)));

    ContextLengths out;
    out.original = scaling_original_length(scaling).value_or(trained);
    if (config_names_target && linear && !request.original_length &&
        group.original_length == group.max_position_embeddings)
        out.original = detail::interpolated_length(group.max_position_embeddings, scaling_factor(scaling));

    if (request.target_length) {
        const std::int64_t t = *request.target_length;
        if (t <= 0 || t > context_length_limit) detail::raise("target_length", t, "must be in [1, 2^50]");
        out.target = t;
    } else if (request.target_factor) {
        const double f = *request.target_factor;
        if (!(f >= 1.0 && std::isfinite(f))) detail::raise("target_factor", f, "must be >= 1 and finite");
        out.target = detail::scaled_length(out.original, f, "target_length");
    } else if (config_names_target && (longrope || group.max_position_embeddings > out.original)) {
        out.target = group.max_position_embeddings;
    } else {
        out.target = detail::scaled_length(out.original, scaling_factor(scaling), "target_length");
    }
    return out;
}

/// Checks that the frequencies of `spec` under `scaling` exist at sequence length `length`
/// (exact precision): exactly what scaled_inv_freq(spec, scaling, length, Precision::exact)
/// refuses, with the same posenc::error (LongRoPE's list lengths and entries, dynamic NTK's base
/// at `length`, an NTK rotary_dim of 2, a frequency outside the normal doubles, length <= 0).
/// Dynamic NTK is checked without its table: theta'_i = b'^(-2i/R) falls from theta'_0 = 1, so
/// the table is valid when b' = dynamic_ntk_base(spec, scaling, length) is and its last
/// frequency is a normal double; any refusal is left to scaled_inv_freq, for its message.
inline void require_frequencies_at(const RopeSpec& spec, const Scaling& scaling, std::int64_t length)
{
    detail::require_sequence_length(length);
    if (const auto* dynamic = std::get_if<DynamicNtkScaling>(&scaling)) {
        const double base = dynamic_ntk_base(spec, *dynamic, length);  // throws as the table would
        const double r = static_cast<double>(spec.rotary_dim());
        const double last = std::pow(base, -2.0 * static_cast<double>(spec.num_pairs() - 1) / r);
        if (detail::normal_in(last, Precision::exact)) return;
    }
    (void)scaled_inv_freq(spec, scaling, length, Precision::exact);
}

}  // namespace posenc
