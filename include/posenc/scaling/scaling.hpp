// SPDX-License-Identifier: MIT
// posenc/scaling/scaling.hpp: `Scaling`, the one value that says how a model extends its context,
// and `frequency_table`, which turns a RopeSpec plus a Scaling into the FrequencyTable every
// later layer consumes.
//
//   Scaling = NoScaling | LinearScaling | NtkAwareScaling | DynamicNtkScaling | YarnScaling
//           | Llama3Scaling | LongRopeScaling | ProportionalScaling  (each validated when built)
//
// Type names (Hugging Face's rope_type where one exists; the CLI and JSON use them):
//   "none", "linear", "ntk_aware", "dynamic", "yarn", "llama3", "longrope", "proportional".
// Two methods depend on the current sequence length, which is therefore an explicit parameter:
// dynamic NTK (the base grows once the sequence exceeds max_position_embeddings) and LongRoPE
// (long factors once it exceeds original_max_position_embeddings, or, under PhiMoE's rule, the
// long magnitude factor: longrope.hpp). Without one, the table is Hugging Face's init table; the
// other methods ignore it.
// Proportional RoPE's unrotated pairs have frequency exactly 0: the only zeros a scaled table
// may hold (FrequencyTable::zero_freq_pairs counts them).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "posenc/frequencies.hpp"
#include "posenc/scaling/common.hpp"
#include "posenc/scaling/dynamic_ntk.hpp"
#include "posenc/scaling/linear.hpp"
#include "posenc/scaling/llama3.hpp"
#include "posenc/scaling/longrope.hpp"
#include "posenc/scaling/ntk_aware.hpp"
#include "posenc/scaling/proportional.hpp"
#include "posenc/scaling/softmax_scale.hpp"
#include "posenc/scaling/yarn.hpp"

namespace posenc {

/// No context extension: theta_i = base^(-2i/R), attention factor 1.
struct NoScaling {
    friend bool operator==(const NoScaling&, const NoScaling&) noexcept { return true; }
    friend bool operator!=(const NoScaling&, const NoScaling&) noexcept { return false; }
};

/// How a model's RoPE is extended; see the file comment.
using Scaling = std::variant<NoScaling, LinearScaling, NtkAwareScaling, DynamicNtkScaling, YarnScaling, Llama3Scaling,
                             LongRopeScaling, ProportionalScaling>;

namespace detail {
template <class T>
inline constexpr bool always_false = false;

/// f(alternative) for the alternative `scaling` holds, like std::visit but through a switch on
/// index(): std::visit's generated dispatch tables cost every includer of this header more
/// compile time than these eight cases. Throws std::bad_variant_access for a valueless variant.
template <class F>
decltype(auto) visit_scaling(F&& f, const Scaling& scaling)
{
    static_assert(std::variant_size_v<Scaling> == 8, "one case per alternative");
    switch (scaling.index()) {
    case 0: return f(*std::get_if<0>(&scaling));
    case 1: return f(*std::get_if<1>(&scaling));
    case 2: return f(*std::get_if<2>(&scaling));
    case 3: return f(*std::get_if<3>(&scaling));
    case 4: return f(*std::get_if<4>(&scaling));
    case 5: return f(*std::get_if<5>(&scaling));
    case 6: return f(*std::get_if<6>(&scaling));
    case 7: return f(*std::get_if<7>(&scaling));
    default: break;
    }
    throw std::bad_variant_access();
}
}  // namespace detail

/// "none", "linear", "ntk_aware", "dynamic", "yarn", "llama3", "longrope" or "proportional" ("valueless" for a
/// variant left empty by an exception during assignment).
inline const char* scaling_type_name(const Scaling& scaling) noexcept
{
    constexpr const char* names[] = {"none", "linear", "ntk_aware", "dynamic",
                                     "yarn", "llama3", "longrope",  "proportional"};
    static_assert(sizeof names / sizeof names[0] == std::variant_size_v<Scaling>, "one name per alternative");
    return scaling.valueless_by_exception() ? "valueless" : names[scaling.index()];
}

/// The factor s of a scaling (1 for none). Throws std::bad_variant_access only for a valueless variant.
inline double scaling_factor(const Scaling& scaling)
{
    return detail::visit_scaling(
        [](const auto& s) -> double {
            if constexpr (std::is_same_v<std::decay_t<decltype(s)>, NoScaling>) return 1.0;
            else return s.factor();
        },
        scaling);
}

/// The original (pre-extension) length a scaling names, if it names one (YaRN, Llama 3 and
/// LongRoPE's original_max_position_embeddings); dynamic NTK's reference length is
/// max_position_embeddings, returned here too because it plays the same role.
inline std::optional<std::int64_t> scaling_original_length(const Scaling& scaling)
{
    return detail::visit_scaling(
        [](const auto& s) -> std::optional<std::int64_t> {
            using T = std::decay_t<decltype(s)>;
            if constexpr (std::is_same_v<T, YarnScaling> || std::is_same_v<T, Llama3Scaling> ||
                          std::is_same_v<T, LongRopeScaling>)
                return s.original_max_position_embeddings();
            else if constexpr (std::is_same_v<T, DynamicNtkScaling>) return s.max_position_embeddings();
            else return std::nullopt;
        },
        scaling);
}

/// The factor a scaling multiplies cos and sin by: YaRN's (yarn_attention_factor), LongRoPE's
/// (longrope_attention_factor), 1 for the others.
inline double scaling_attention_factor(const Scaling& scaling) noexcept
{
    if (const auto* y = std::get_if<YarnScaling>(&scaling)) return yarn_attention_factor(*y);
    if (const auto* l = std::get_if<LongRopeScaling>(&scaling)) return longrope_attention_factor(*l);
    return 1.0;
}

/// The factor cos and sin are multiplied by for a sequence of `sequence_length` tokens: differs
/// from scaling_attention_factor(scaling) only for LongRoPE under PhiMoE's rule (long_mscale past
/// L0; longrope.hpp).
inline double scaling_attention_factor(const Scaling& scaling, std::optional<std::int64_t> sequence_length) noexcept
{
    if (const auto* l = std::get_if<LongRopeScaling>(&scaling)) return longrope_attention_factor(*l, sequence_length);
    return scaling_attention_factor(scaling);
}

/// Whether scaling_attention_factor(scaling, n) depends on n (LongRoPE under PhiMoE's rule).
inline bool attention_factor_depends_on_length(const Scaling& scaling) noexcept
{
    const auto* l = std::get_if<LongRopeScaling>(&scaling);
    return l != nullptr && l->switch_rule() == LongRopeSwitchRule::phimoe_magnitude_only;
}

/// The multiplier on the softmax scale outside cos/sin: g(s, mscale_all_dim)^2 for YaRN with a
/// non-zero mscale_all_dim (DeepSeek), 1 otherwise (softmax_scale.hpp).
inline double softmax_scale_multiplier(const Scaling& scaling) noexcept
{
    if (const auto* y = std::get_if<YarnScaling>(&scaling)) return yarn_softmax_scale_multiplier(*y);
    return 1.0;
}

/// One named parameter of a scaling, typed for serialisation.
struct ScalingParameter {
    std::string name;
    std::variant<bool, std::int64_t, double, std::vector<double>> value;
};

/// The resolved parameters of a scaling under Hugging Face's key names (factor,
/// original_max_position_embeddings, beta_fast, ..., plus "truncate" for YaRN's rounding and
/// the attention factor actually applied as "attention_factor"; PhiMoE's "short_mscale" and
/// "long_mscale"; proportional's "partial_rotary_factor"). None: empty.
/// `Parameter` is always ScalingParameter: a template only so that a translation unit that
/// never calls it does not compile it (docs/benchmarks.md, "Compile time").
template <class Parameter = ScalingParameter>
std::vector<Parameter> scaling_parameters(const Scaling& scaling);

/// The per-pair frequencies of `spec` under `scaling` (exact or Hugging Face float32; each
/// method's header gives the formula and error), for `sequence_length` where it matters.
/// Throws posenc::error as the method's function does (e.g. wrong LongRoPE list lengths,
/// rotary_dim 2 for the NTK methods, sequence_length <= 0), and first for a precision that names
/// no enumerator (static_cast<Precision>(5) is refused, not read as hf_float32).
inline std::vector<double> scaled_inv_freq(const RopeSpec& spec, const Scaling& scaling,
                                           std::optional<std::int64_t> sequence_length, Precision precision)
{
    detail::require_precision(precision);
    if (sequence_length) detail::require_sequence_length(*sequence_length);
    std::vector<double> inv = detail::visit_scaling(
        [&](const auto& s) -> std::vector<double> {
            using T = std::decay_t<decltype(s)>;
            if constexpr (std::is_same_v<T, NoScaling>) {
                if (precision == Precision::exact) return detail::default_inv_freq(spec);
                detail::require_float32_base(spec.base());
                return detail::widen(hf32::default_inv_freq(spec.base(), spec.rotary_dim()));
            } else if constexpr (std::is_same_v<T, LinearScaling>) {
                return linear_inv_freq(spec, s, precision);
            } else if constexpr (std::is_same_v<T, NtkAwareScaling>) {
                return ntk_aware_inv_freq(spec, s, precision);
            } else if constexpr (std::is_same_v<T, DynamicNtkScaling>) {
                return dynamic_ntk_inv_freq(spec, s, sequence_length, precision);
            } else if constexpr (std::is_same_v<T, YarnScaling>) {
                return yarn_inv_freq(spec, s, precision);
            } else if constexpr (std::is_same_v<T, Llama3Scaling>) {
                return llama3_inv_freq(spec, s, precision);
            } else if constexpr (std::is_same_v<T, LongRopeScaling>) {
                return longrope_inv_freq(spec, s, sequence_length, precision);
            } else if constexpr (std::is_same_v<T, ProportionalScaling>) {
                return proportional_inv_freq(spec, s, precision);
            } else {
                static_assert(detail::always_false<T>, "every Scaling alternative has frequencies");
            }
        },
        scaling);
    // A value the precision cannot hold (0, subnormal, inf) is refused under the name of what
    // produced it: the base when the unscaled table already fails, else the method's factor.
    // Proportional RoPE's unrotated pairs are the only exact zeros allowed.
    const auto* proportional = std::get_if<ProportionalScaling>(&scaling);
    const std::size_t rotated =
        proportional ? static_cast<std::size_t>(proportional->rotated_pairs(spec.head_dim())) : inv.size();
    for (std::size_t i = 0; i < inv.size(); ++i) {
        if (detail::normal_in(inv[i], precision) || (i >= rotated && inv[i] == 0.0)) continue;
        const double unscaled = precision == Precision::exact
                                    ? posenc::inv_freq(spec, static_cast<int>(i))
                                    : static_cast<double>(hf32::default_inv_freq(spec.base(), spec.rotary_dim())[i]);
        if (std::holds_alternative<NoScaling>(scaling) || !detail::normal_in(unscaled, precision))
            detail::raise("base", spec.base(),
                          "makes inv_freq[" + std::to_string(i) + "] " + detail::format_value(unscaled) +
                              ", not a normal " + (precision == Precision::exact ? "double" : "float32") + " number");
        detail::require_normal_inv_freq(inv, precision, std::string(scaling_type_name(scaling)) + ".factor",
                                        scaling_factor(scaling));
    }
    return inv;
}

/// The FrequencyTable of `spec` under `scaling` at Hugging Face's init (no sequence length):
/// scaled_inv_freq plus scaling_attention_factor. Throws posenc::error as scaled_inv_freq.
inline FrequencyTable frequency_table(const RopeSpec& spec, const Scaling& scaling,
                                      Precision precision = Precision::exact)
{
    return FrequencyTable(scaled_inv_freq(spec, scaling, std::nullopt, precision), scaling_attention_factor(scaling));
}

/// The FrequencyTable in effect for a sequence of `sequence_length` tokens (dynamic NTK's base,
/// LongRoPE's short/long choice and PhiMoE's magnitude; the static methods ignore it). Throws
/// posenc::error as scaled_inv_freq, and for sequence_length <= 0.
inline FrequencyTable frequency_table(const RopeSpec& spec, const Scaling& scaling, std::int64_t sequence_length,
                                      Precision precision = Precision::exact)
{
    return FrequencyTable(scaled_inv_freq(spec, scaling, sequence_length, precision),
                          scaling_attention_factor(scaling, sequence_length));
}

// ---------------------------------------------------------------- implementation

namespace detail {

/// Writes scaling_parameters' entries in order, into a vector sized beforehand (a first pass
/// without a target only counts them). Each value is built in place: appending would
/// instantiate ScalingParameter's moves, and the variant visits behind them. A template (on
/// ScalingParameter), like write_scaling_parameters, so that only scaling_parameters' callers
/// compile it.
template <class Parameter>
class ScalingParameterWriter
{
public:
    explicit ScalingParameterWriter(std::vector<Parameter>* target) noexcept : target_(target) {}

    void number(const char* name, double value)
    {
        if (Parameter* p = next(name)) p->value.template emplace<double>(value);
    }
    void integer(const char* name, std::int64_t value)
    {
        if (Parameter* p = next(name)) p->value.template emplace<std::int64_t>(value);
    }
    void flag(const char* name, bool value)
    {
        if (Parameter* p = next(name)) p->value.template emplace<bool>(value);
    }
    void list(const char* name, const std::vector<double>& value)
    {
        // An empty list emplaced, then assigned: emplacing a copy would instantiate the variant's
        // move assignment (libstdc++ builds a temporary when the copy may throw).
        if (Parameter* p = next(name)) p->value.template emplace<std::vector<double>>() = value;
    }

    std::size_t count() const noexcept { return count_; }

private:
    Parameter* next(const char* name)
    {
        ++count_;
        if (target_ == nullptr) return nullptr;
        Parameter& p = (*target_)[count_ - 1];
        p.name = name;
        return &p;
    }

    std::vector<Parameter>* target_;
    std::size_t count_ = 0;
};

template <class Writer>
void write_scaling_parameters(const Scaling& scaling, Writer& out)
{
    visit_scaling(
        [&out](const auto& s) {
            using T = std::decay_t<decltype(s)>;
            if constexpr (std::is_same_v<T, NoScaling>) {
            } else if constexpr (std::is_same_v<T, LinearScaling> || std::is_same_v<T, NtkAwareScaling>) {
                out.number("factor", s.factor());
            } else if constexpr (std::is_same_v<T, DynamicNtkScaling>) {
                out.number("factor", s.factor());
                out.integer("max_position_embeddings", s.max_position_embeddings());
            } else if constexpr (std::is_same_v<T, YarnScaling>) {
                out.number("factor", s.factor());
                out.integer("original_max_position_embeddings", s.original_max_position_embeddings());
                out.number("beta_fast", s.beta_fast());
                out.number("beta_slow", s.beta_slow());
                out.number("mscale", s.mscale());
                out.number("mscale_all_dim", s.mscale_all_dim());
                out.flag("truncate", s.rounding() == YarnCorrectionRounding::floor_ceil);
                out.number("attention_factor", yarn_attention_factor(s));
            } else if constexpr (std::is_same_v<T, Llama3Scaling>) {
                out.number("factor", s.factor());
                out.number("low_freq_factor", s.low_freq_factor());
                out.number("high_freq_factor", s.high_freq_factor());
                out.integer("original_max_position_embeddings", s.original_max_position_embeddings());
            } else if constexpr (std::is_same_v<T, LongRopeScaling>) {
                out.number("factor", s.factor());
                out.integer("original_max_position_embeddings", s.original_max_position_embeddings());
                out.number("attention_factor", longrope_attention_factor(s));
                out.list("short_factor", s.short_factor());
                out.list("long_factor", s.long_factor());
                if (s.short_mscale()) {
                    out.number("short_mscale", *s.short_mscale());
                    out.number("long_mscale", *s.long_mscale());
                }
            } else if constexpr (std::is_same_v<T, ProportionalScaling>) {
                out.number("factor", s.factor());
                out.number("partial_rotary_factor", s.partial_rotary_factor());
            } else {
                static_assert(always_false<T>, "every Scaling alternative lists its parameters");
            }
        },
        scaling);
}

}  // namespace detail

template <class Parameter>
std::vector<Parameter> scaling_parameters(const Scaling& scaling)
{
    static_assert(std::is_same_v<Parameter, ScalingParameter>, "scaling_parameters lists ScalingParameter values");
    detail::ScalingParameterWriter<Parameter> counter(nullptr);
    detail::write_scaling_parameters(scaling, counter);
    std::vector<Parameter> out(counter.count());
    detail::ScalingParameterWriter<Parameter> writer(&out);
    detail::write_scaling_parameters(scaling, writer);
    return out;
}

}  // namespace posenc
