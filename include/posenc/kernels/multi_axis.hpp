// SPDX-License-Identifier: MIT
// posenc/kernels/multi_axis.hpp: the SIMD kernel for multi-axis RoPE (M-RoPE sections,
// interleaved M-RoPE, 2-D axial vision RoPE; posenc/multi_axis.hpp) and its checked and
// unchecked entry points.
//
// Pair i of token t rotates by positions(t, layout.axis_of_pair(i)) * theta_i. Positions come
// as a [tokens][axes] array of int32 or int64 (MultiAxisPositions; any strides, so also the
// axes-major [axes][tokens] of Hugging Face's position_ids and vLLM's M-RoPE positions).
//
// How: once per token (and row of up to 256 pairs) the kernel fetches the 1-D cos/sin row of
// each distinct position of the token, gathers each pair's cos/sin from the row of its axis, and
// hands the gathered row to the 1-D kernel's loops (detail/rope_loops.hpp), unchanged, for every
// Q and K head of the token. A token whose positions are all equal (text) uses the 1-D row itself.
//
// Bit-exactness. Every pair's cos/sin is the value the 1-D kernel would use for that pair at its
// axis's position, and the head loops are the 1-D kernel's: a token with every axis at m gives
// exactly the bits of apply_rope at m, on every arch, storage type and angle source, and any
// token gives, pair by pair, the 1-D result at that pair's position. Error bounds are therefore
// apply.hpp's (float: < 4 ulp of A |x| per pair; 16-bit storage: plus half an ulp).
// double storage takes the reference path: cos/sin in double from the exact angle, per pair at
// its axis's position (posenc::apply_multi_axis_rope_reference's arithmetic).
#pragma once

#define POSENC_KERNELS_DETAIL_ALLOWED 1  // this public header may include posenc/kernels/detail/*.hpp

#include <type_traits>

#include "posenc/config.hpp"
#include "posenc/kernels/apply.hpp"
#include "posenc/kernels/detail/multi_axis_rows.hpp"
#include "posenc/kernels/dtypes.hpp"
#include "posenc/kernels/multi_axis_positions.hpp"
#include "posenc/kernels/views.hpp"
#include "posenc/multi_axis.hpp"
#include "posenc/spec.hpp"

namespace posenc::kernels {

/// Unchecked multi-axis apply on an explicit architecture: tokens `range` (default all_tokens)
/// of views, pair i of token t by positions(t, layout.axis_of_pair(i)); see the file comment.
/// Preconditions (what apply_multi_axis_rope checks): those of apply_rope_unchecked_on, plus
/// layout.num_pairs() == spec.num_pairs(), positions of layout.num_axes() axes for every token
/// of the views, each in angles.position_range(). Violations are undefined behaviour (debug
/// builds assert them).
template <class Arch, class T, class Angles>
void apply_multi_axis_rope_unchecked_on(Arch, const RopeSpec& spec, const MultiAxisLayout& layout, const Angles& angles,
                                        const MultiAxisPositions& positions, const QKViews<T>& views,
                                        Direction direction = Direction::forward,
                                        TokenRange range = all_tokens) noexcept
{
    static_assert(is_storage_type<T>, "apply_multi_axis_rope rotates float, bfloat16, float16 or double tensors.");
    range = detail::within(range, views.tokens());
#if !POSENC_DETAIL_DISPATCH_UNIT
    POSENC_ASSERT(
        detail::passes([&] { detail::check_multi_axis_call(spec, layout, angles, positions, views, range); }));
#endif
    if constexpr (std::is_same_v<T, double>) {
        detail::multi_axis_tokens_double(spec, layout, angles, positions, views, direction, range);
    } else {
        const detail::MultiAxisRows<Angles> rows =
            detail::make_multi_axis_rows(layout, angles, positions, views.tokens());
        apply_rope_unchecked_on(Arch {}, spec, rows, PositionIds::contiguous(0), views, direction, range);
    }
}

/// apply_multi_axis_rope_unchecked_on with kernels::default_arch.
template <class T, class Angles>
void apply_multi_axis_rope_unchecked(const RopeSpec& spec, const MultiAxisLayout& layout, const Angles& angles,
                                     const MultiAxisPositions& positions, const QKViews<T>& views,
                                     Direction direction = Direction::forward, TokenRange range = all_tokens) noexcept
{
    apply_multi_axis_rope_unchecked_on(kernels::default_arch {}, spec, layout, angles, positions, views, direction,
                                       range);
}

/// Checked multi-axis apply of tokens `range` (default all_tokens): throws posenc::error for
/// anything apply_rope refuses (checks.hpp) and for a layout of another pair count, positions
/// of another axis count or token count, or any position outside the angle source
/// ("positions[5][1] 40000 must be in [0, 32767], the positions the CosSinCache serves").
template <class T, class Angles>
void apply_multi_axis_rope(const RopeSpec& spec, const MultiAxisLayout& layout, const Angles& angles,
                           const MultiAxisPositions& positions, const QKViews<T>& views,
                           Direction direction = Direction::forward, TokenRange range = all_tokens)
{
    range = detail::within(range, views.tokens());
    detail::check_multi_axis_call(spec, layout, angles, positions, views, range);
    detail::check_direction(direction);
    apply_multi_axis_rope_unchecked(spec, layout, angles, positions, views, direction, range);
}

}  // namespace posenc::kernels
