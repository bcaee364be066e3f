// SPDX-License-Identifier: MIT
// posenc/angle_precision.hpp: the two precisions an angle and its cos/sin come in (the scaled
// tables of scaling/ are built in the same two, scaling/precision.hpp).
//
//   Precision::exact       inv_freq in double from the real-number formula; the angle of
//                          (position, pair) is the exact product position * inv_freq reduced
//                          modulo 2pi (angles.hpp), cos/sin rounded once. Error < 5e-15.
//   Precision::hf_float32  Hugging Face's float32 pipeline, for bit-compatibility checks:
//                          inv_freq rounded to float32 in Hugging Face's operation order (each
//                          method's header says which), angle = fl(inv_freq (x) fl(position)),
//                          cos/sin = fl(cos angle) (x) fl(attention_factor)
//                          (Hugging Face LlamaRotaryEmbedding.forward).
//
// The float32 angle is off by up to |angle| * 2^-24 from its own float32 inputs, and the float32
// inv_freq carries up to 2^-24 relative error that the position multiplies: at position
// 1,000,000 Qwen3-8B's pair 1 under YaRN x4 is 0.062 rad away from the exact angle
// (tests/scaling/precision_drift.cpp). Never the default.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "posenc/angles.hpp"
#include "posenc/error.hpp"
#include "posenc/frequencies.hpp"
#include "posenc/scaling/float32_emulation.hpp"

namespace posenc {

/// Which arithmetic builds an angle (and a scaled table); see the file comment.
enum class Precision { exact, hf_float32 };

/// "exact" or "hf_float32"; "(not a Precision)" for a value that names no enumerator
/// (static_cast<Precision>(5)).
inline const char* to_string(Precision precision) noexcept
{
    switch (precision) {
    case Precision::exact: return "exact";
    case Precision::hf_float32: return "hf_float32";
    }
    return "(not a Precision)";
}

namespace detail {

/// Throws posenc::error unless `precision` is one of the named enumerators: a value cast from
/// another integer would otherwise act as hf_float32.
inline void require_precision(Precision precision)
{
    if (precision != Precision::exact && precision != Precision::hf_float32)
        raise("precision", static_cast<int>(precision), "must be Precision::exact or Precision::hf_float32");
}

/// The checks of rotation_angle and cos_sin with a Precision, in this order: the precision, the
/// pair, the position's range for that pair's frequency.
inline void require_angle_arguments(const FrequencyTable& table, std::int64_t position, int pair, Precision precision)
{
    require_precision(precision);
    if (pair < 0 || pair >= table.num_pairs())
        raise("pair", pair, "must be in [0, num_pairs " + std::to_string(table.num_pairs()) + ")");
    require_exact_angle_range("position", position, table.inv_freq(pair));
}

}  // namespace detail

/// The angle of pair `pair` at `position`, reduced into [-pi, pi].
///   exact:      reduced_angle(position, inv_freq)   (error < 4e-15 rad, angles.hpp)
///   hf_float32: the float32 angle fl(fl(inv_freq) (x) fl(position)) that Hugging Face computes,
///               then reduced exactly (the reduction adds no error for |angle| <= 2^50).
/// Throws posenc::error for a precision that names no enumerator, a pair outside
/// [0, num_pairs), or a position outside the exact reduction's range for the pair
/// (require_exact_angle_range: |position| <= 2^53, |position * inv_freq| <= 2^50).
inline double rotation_angle(const FrequencyTable& table, std::int64_t position, int pair, Precision precision)
{
    detail::require_angle_arguments(table, position, pair, precision);
    if (precision == Precision::exact) return reduced_angle(position, table.inv_freq(pair));
    const float angle = hf32::mul(hf32::round(table.inv_freq(pair)), static_cast<float>(position));
    return reduced_angle(1, static_cast<double>(angle));
}

/// cos and sin of pair `pair` at `position`, attention factor folded in.
///   exact:      attention_factor * (cos, sin)(reduced_angle)          (error < 5e-15 * factor)
///   hf_float32: fl(cos a) (x) fl(attention_factor), fl(sin a) (x) fl(attention_factor) with a the
///               float32 angle above (values are float32 numbers held in double).
/// Use a table built with Precision::hf_float32 for Hugging Face's values; with an exact table the
/// float32 mode rounds the double inv_freq once instead of following HF's operation order.
/// Throws posenc::error as rotation_angle.
inline CosSin cos_sin(const FrequencyTable& table, std::int64_t position, int pair, Precision precision)
{
    detail::require_angle_arguments(table, position, pair, precision);
    if (precision == Precision::exact) return cos_sin(table, position, pair);
    const double angle = rotation_angle(table, position, pair, Precision::hf_float32);
    const float factor = hf32::round(table.attention_factor());
    return {static_cast<double>(hf32::mul(hf32::round(std::cos(angle)), factor)),
            static_cast<double>(hf32::mul(hf32::round(std::sin(angle)), factor))};
}

}  // namespace posenc
