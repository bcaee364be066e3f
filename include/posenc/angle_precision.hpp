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

#include "posenc/angles.hpp"
#include "posenc/frequencies.hpp"
#include "posenc/scaling/float32_emulation.hpp"

namespace posenc {

/// Which arithmetic builds an angle (and a scaled table); see the file comment.
enum class Precision { exact, hf_float32 };

/// "exact" or "hf_float32".
inline const char* to_string(Precision precision) noexcept
{
    return precision == Precision::exact ? "exact" : "hf_float32";
}

/// The angle of pair `pair` at `position`, reduced into [-pi, pi].
///   exact:      reduced_angle(position, inv_freq)   (error < 4e-15 rad, angles.hpp)
///   hf_float32: the float32 angle fl(fl(inv_freq) (x) fl(position)) that Hugging Face computes,
///               then reduced exactly (the reduction adds no error for |angle| <= 2^50).
/// Precondition: 0 <= pair < table.num_pairs(); |position| <= 2^50.
inline double rotation_angle(const FrequencyTable& table, std::int64_t position, int pair,
                             Precision precision) noexcept
{
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
/// Precondition: 0 <= pair < table.num_pairs(); |position| <= 2^50.
inline CosSin cos_sin(const FrequencyTable& table, std::int64_t position, int pair, Precision precision) noexcept
{
    if (precision == Precision::exact) return cos_sin(table, position, pair);
    const double angle = rotation_angle(table, position, pair, Precision::hf_float32);
    const float factor = hf32::round(table.attention_factor());
    return {static_cast<double>(hf32::mul(hf32::round(std::cos(angle)), factor)),
            static_cast<double>(hf32::mul(hf32::round(std::sin(angle)), factor))};
}

}  // namespace posenc
