// SPDX-License-Identifier: MIT
// posenc/scaling/common.hpp: the checks every scaling method shares, and small helpers.
//
// Rules (each violation throws posenc::error "<method>.<field> <value> <rule>"):
//   factor                               >= 1 and finite in float32 (Hugging Face rounds it to
//                                        float32 where it meets a tensor; 1e308 would become inf)
//   lengths (original_max_position_embeddings, max_position_embeddings)   > 0
//   sequence_length (where a table depends on it)                       > 0
//   attention factor (explicit, or computed from mscale)   in [2^-10, 2^10] (frequencies.hpp)
//   every scaled inv_freq   a normal number of the precision it is built in (double for
//                           Precision::exact, float32 for hf_float32): a factor that would turn
//                           a frequency into 0, a subnormal or inf is refused under its own name
// Hugging Face only logs warnings for factor < 1 (docs/formulas.md H11); posenc
// refuses it, because every method here is meant to extend a context, and a factor below 1 turns
// several formulas (YaRN's ln s, LongRoPE's sqrt) into values no model ships.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/scaling/precision.hpp"
#include "posenc/spec.hpp"

namespace posenc {

/// The largest finite float32, 3.4028234663852886e38.
inline constexpr double float32_max = 3.4028234663852886e38;

namespace detail {

inline bool finite_in_float32(double x) noexcept { return std::isfinite(x) && std::abs(x) <= float32_max; }

/// The smallest normal float32, 2^-126.
inline constexpr double float32_min_normal = 1.1754943508222875e-38;

/// A value a table built in `precision` can hold without underflow or overflow: finite and at
/// least the smallest normal number of that precision (DBL_MIN or 2^-126).
inline bool normal_in(double x, Precision precision) noexcept
{
    const double lowest = precision == Precision::exact ? 2.2250738585072014e-308 : float32_min_normal;
    return std::isfinite(x) && x >= lowest && (precision == Precision::exact || x <= float32_max);
}

inline void require_scaling_factor(const std::string& method, double factor)
{
    if (!(factor >= 1.0 && finite_in_float32(factor)))
        raise(method + ".factor", factor, "must be >= 1 and finite in float32");
}

inline void require_positive_length(const std::string& field, std::int64_t length)
{
    if (length <= 0) raise(field, length, "must be > 0");
}

inline void require_sequence_length(std::int64_t sequence_length)
{
    require_positive_length("sequence_length", sequence_length);
}

/// NTK-style bases use the exponent R / (R - 2), undefined for R = 2.
inline void require_ntk_rotary_dim(const RopeSpec& spec, const std::string& method)
{
    if (spec.rotary_dim() <= 2)
        raise("rotary_dim", spec.rotary_dim(), "must be > 2 for " + method + " scaling (exponent R / (R - 2))");
}

/// Hugging Face rounds the base to float32; a base beyond float32 would become inf.
inline void require_float32_base(double base, const char* field = "base")
{
    if (!finite_in_float32(base)) raise(field, base, "must be finite in float32 for Precision::hf_float32");
}

inline std::vector<double> widen(const std::vector<float>& values)
{
    std::vector<double> out(values.size());  // an index loop, not the range constructor: one fewer template
    for (std::size_t i = 0; i < values.size(); ++i) out[i] = static_cast<double>(values[i]);
    return out;
}

/// Every value of a scaled table must be normal in its precision (normal_in). The base alone
/// never fails this (base > 1 finite gives theta_i in [1/base, 1]), so the culprit is the
/// method's factor: `field` names it and `value` is the factor as given.
inline void require_normal_inv_freq(const std::vector<double>& inv_freq, Precision precision, const std::string& field,
                                    double value)
{
    for (std::size_t i = 0; i < inv_freq.size(); ++i)
        if (!normal_in(inv_freq[i], precision))
            raise(field, value,
                  "makes inv_freq[" + std::to_string(i) + "] " + format_value(inv_freq[i]) + ", not a normal " +
                      (precision == Precision::exact ? "double" : "float32") + " number (it would act as 0 or inf)");
}

/// theta_i = base^(-2i/R) for every pair (frequencies.hpp), the exact-mode starting point.
inline std::vector<double> default_inv_freq(const RopeSpec& spec) { return FrequencyTable::from_spec(spec).inv_freq(); }

}  // namespace detail
}  // namespace posenc
