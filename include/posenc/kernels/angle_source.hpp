// SPDX-License-Identifier: MIT
// posenc/kernels/angle_source.hpp: what the apply kernel asks of an angle source.
//
// The kernel needs, for every token, attention_factor * (cos, sin) of the angles
// position * theta_i of a row of pairs, as float. cos/sin depend only on (position, pair), so
// the kernel asks once per token and reuses the row for every Q and K head of that token.
// An angle source is any type with
//
//   int            num_pairs() const noexcept;
//   PositionRange  position_range() const noexcept;   // the positions it can serve
//   const char*    name() const noexcept;              // for error messages
//   const FrequencyTable& frequencies() const noexcept;// the table it was built from (double path)
//   template <class Arch>
//   AngleRow row(Arch, std::int64_t position, int pair_begin, int count,
//                float* scratch_cos, float* scratch_sin) const noexcept;
//
// row() returns pointers to `count` cos and `count` sin values for pairs [pair_begin,
// pair_begin + count) of `position`; it may point into its own storage (CosSinCache) or fill
// the caller's scratch arrays of at least `count` floats (OnTheFlyAngles). A source whose rows
// never use the scratch arrays may say so with
//
//   static constexpr bool row_uses_scratch = false;
//
// (CosSinCache does): the one-token kernel then passes null scratch pointers and keeps no
// scratch arrays on its stack. Preconditions
// (checked by the checked entry points, not by row()): position within position_range(),
// 0 <= pair_begin, pair_begin + count <= num_pairs(), count <= max_pairs_per_row.
//
// posenc ships two: CosSinCache (angle_cache.hpp) and OnTheFlyAngles (on_the_fly_angles.hpp). Both
// build their float values from the exactly reduced double angles of angles.hpp.
#pragma once

#include <cstdint>
#include <type_traits>

namespace posenc::kernels {

/// The largest position either angle source serves: 2^31 - 1, the largest int32 position id.
inline constexpr std::int64_t max_kernel_position = 2147483647;

/// The kernel asks for at most this many pairs at a time (rotary_dim up to 512 is one row).
inline constexpr int max_pairs_per_row = 256;

/// Inclusive range [first, last] of positions an angle source serves.
struct PositionRange {
    std::int64_t first;
    std::int64_t last;
    bool contains(std::int64_t position) const noexcept { return first <= position && position <= last; }
};

/// Whether row() of an angle source may write the caller's scratch arrays: true unless the type
/// declares `static constexpr bool row_uses_scratch = false` (see the file comment).
template <class Angles, class = void>
inline constexpr bool angle_row_uses_scratch = true;
template <class Angles>
inline constexpr bool angle_row_uses_scratch<Angles, std::void_t<decltype(Angles::row_uses_scratch)>> =
    Angles::row_uses_scratch;

/// `count` cos and `count` sin values (attention factor folded in) of consecutive pairs.
struct AngleRow {
    const float* cos;
    const float* sin;
};

}  // namespace posenc::kernels
