// SPDX-License-Identifier: MIT
// posenc/kernels/detail/multi_axis_rows.hpp: the implementation of kernels/multi_axis.hpp: the
// gathering angle source the 1-D kernel loops run with, the double reference loop, and the
// checks of the checked entry points.
#pragma once

#ifndef POSENC_KERNELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/kernels/detail/multi_axis_rows.hpp is internal to the kernels: include <posenc/kernels/multi_axis.hpp> (or <posenc/kernels.hpp>) instead"
#endif

#include <cstddef>
#include <cstdint>
#include <string>

#include "posenc/angles.hpp"
#include "posenc/error.hpp"
#include "posenc/frequencies.hpp"
#include "posenc/kernels/angle_source.hpp"
#include "posenc/kernels/detail/axis_run_gather.hpp"
#include "posenc/kernels/detail/checks.hpp"
#include "posenc/kernels/detail/rope_loops.hpp"
#include "posenc/kernels/multi_axis_positions.hpp"
#include "posenc/kernels/views.hpp"
#include "posenc/multi_axis.hpp"
#include "posenc/spec.hpp"

namespace posenc::kernels {

namespace detail {

/// The angle source the 1-D kernel sees for a multi-axis call: its "position" is the token
/// index t (the call passes PositionIds::contiguous(0)), and row() gathers each pair's cos/sin
/// from the inner source's rows at the token's axis positions. Plain data (pointers into the
/// caller's layout and positions), built per call; row() is a template on the arch only, so
/// per-ISA dispatch units each get their own copy (dispatch.hpp). row()'s scratch arrays hold
/// max_pairs_per_row floats, as every loop of the kernels passes them: on AVX-512 the row is
/// gathered a register at a time (axis_run_gather.hpp).
template <class Angles>
struct MultiAxisRows {
    using Inner = Angles;  ///< the angle source it gathers from
    const Angles* angles;
    const AxisRun* runs;
    int num_runs;
    int num_axes;
    const std::int32_t* ids32;
    const std::int64_t* ids64;
    std::ptrdiff_t token_stride;
    std::ptrdiff_t axis_stride;
    std::ptrdiff_t tokens;
    const int* pair_axes;  ///< the layout's axis of every pair

    int num_pairs() const noexcept { return angles->num_pairs(); }
    /// The token indices [0, tokens - 1] (what the 1-D kernel passes as "positions").
    PositionRange position_range() const noexcept { return {0, tokens - 1}; }
    const char* name() const noexcept { return angles->name(); }
    const FrequencyTable& frequencies() const noexcept { return angles->frequencies(); }

    /// The position pair `pair` of token `token` rotates by (the double reference path of the
    /// fused steps, fused_loops.hpp's reference_position).
    std::int64_t position_of_pair(std::int64_t token, int pair) const noexcept
    {
        const std::ptrdiff_t i = static_cast<std::ptrdiff_t>(token) * token_stride + pair_axes[pair] * axis_stride;
        return ids32 != nullptr ? static_cast<std::int64_t>(ids32[i]) : ids64[i];
    }

    template <class Arch>
    AngleRow row(Arch, std::int64_t token, int pair_begin, int count, float* scratch_cos,
                 float* scratch_sin) const noexcept
    {
        std::int64_t p[max_position_axes];
        const std::ptrdiff_t base = static_cast<std::ptrdiff_t>(token) * token_stride;
        bool all_equal = true;
        for (int a = 0; a < num_axes; ++a) {
            const std::ptrdiff_t i = base + a * axis_stride;
            p[a] = ids32 != nullptr ? static_cast<std::int64_t>(ids32[i]) : ids64[i];
            all_equal = all_equal && p[a] == p[0];
        }
        if (all_equal) return angles->row(Arch {}, p[0], pair_begin, count, scratch_cos, scratch_sin);

        // One row per distinct position, always for the whole row (as the 1-D kernel asks, so
        // the values are the 1-D kernel's bit for bit), then each run copied from its axis's row.
        alignas(64) float axis_cos[max_position_axes][max_pairs_per_row];
        alignas(64) float axis_sin[max_position_axes][max_pairs_per_row];
        AngleRow rows[max_position_axes];
        for (int a = 0; a < num_axes; ++a) {
            int same = a;
            for (int b = 0; b < a; ++b)
                if (p[b] == p[a]) {
                    same = b;
                    break;
                }
            rows[a] = same < a ? rows[same] : angles->row(Arch {}, p[a], pair_begin, count, axis_cos[a], axis_sin[a]);
        }
        gather_axis_runs<Arch>(rows, {runs, num_runs, pair_axes, num_axes}, pair_begin, count, scratch_cos,
                               scratch_sin);
        return {scratch_cos, scratch_sin};
    }
};

template <class Angles>
MultiAxisRows<Angles> make_multi_axis_rows(const MultiAxisLayout& layout, const Angles& angles,
                                           const MultiAxisPositions& positions, std::ptrdiff_t tokens) noexcept
{
    const void* data = positions.data();
    const bool is32 = positions.kind() == MultiAxisPositions::Kind::int32_ids;
    return {&angles,
            layout.axis_runs().data(),
            static_cast<int>(layout.axis_runs().size()),
            layout.num_axes(),
            is32 ? static_cast<const std::int32_t*>(data) : nullptr,
            is32 ? nullptr : static_cast<const std::int64_t*>(data),
            positions.tokens() > 1 ? positions.token_stride() : 0,  // a stride of an axis of extent 1 is never used
            positions.axes() > 1 ? positions.axis_stride() : 0,
            tokens,
            layout.pair_axes().data()};
}

/// double storage: per token and pair, cos/sin in double from the exact angle at the pair's
/// axis position, then every head by pairs (apply_multi_axis_rope_reference's arithmetic;
/// rope_loops.hpp's rope_token_double with the pair's axis choosing the position).
template <class Angles>
void multi_axis_tokens_double(const RopeSpec& spec, const MultiAxisLayout& layout, const Angles& angles,
                              const MultiAxisPositions& positions, const QKViews<double>& views, Direction direction,
                              TokenRange range) noexcept
{
    const double sign = direction == Direction::forward ? 1.0 : -1.0;
    for (std::ptrdiff_t t = range.begin; t < range.end; ++t)
        rope_token_double(spec, angles.frequencies(), views, t, sign,
                          [&](int pair) { return positions(t, layout.axis_of_pair(pair)); });
}

/// The positions' buffer: data present, strides of axes longer than 1 >= 1, and the last
/// position read, (tokens - 1) token_stride + (axes - 1) axis_stride, inside [0, size); in
/// overflow-free arithmetic. Precondition: tokens >= 1, axes >= 1.
inline void check_positions_buffer(const MultiAxisPositions& p)
{
    if (p.data() == nullptr) throw posenc::error("positions.data", "null", "must point to tokens x axes position ids");
    const std::ptrdiff_t tokens = p.tokens(), axes = p.axes();
    if (tokens > 1 && p.token_stride() < 1)
        posenc::detail::raise("positions.token_stride", p.token_stride(),
                              "must be >= 1 (positions walk their buffer forwards)");
    if (axes > 1 && p.axis_stride() < 1)
        posenc::detail::raise("positions.axis_stride", p.axis_stride(),
                              "must be >= 1 (positions walk their buffer forwards)");
    // the [tokens, axes] grid of positions read as a view of rows of one element (checks.hpp)
    const ViewGeometry grid {0, p.size(), tokens, axes, 1, p.token_stride(), p.axis_stride(), 0, 0, 0};
    if (last_index_within(grid) < 0)
        posenc::detail::raise("positions.size", p.size(),
                              "must be >= 1 + (tokens - 1) * token_stride + (axes - 1) * axis_stride = 1 + " +
                                  std::to_string(tokens - 1) + " * " + std::to_string(p.token_stride()) + " + " +
                                  std::to_string(axes - 1) + " * " + std::to_string(p.axis_stride()) +
                                  ", the elements its positions occupy");
}

/// The layout against the spec: the spec's pair count, and no pair split across two axes.
inline void check_layout(const RopeSpec& spec, const MultiAxisLayout& layout)
{
    if (!pairs_match(layout.num_pairs(), spec.num_pairs()))
        posenc::detail::raise("layout.num_pairs", layout.num_pairs(),
                              "must equal spec.num_pairs " + std::to_string(spec.num_pairs()) + " (rotary_dim / 2)");
    if (layout.splits_pairs())
        posenc::detail::raise("layout", "coordinate_sections",
                              "splits pairs across axes (a pair's two coordinates read different positions), which "
                              "the multi-axis kernels cannot apply: use apply_multi_axis_rope_reference "
                              "(posenc/multi_axis.hpp)");
}

/// The positions of a call of `tokens` tokens: layout.num_axes() axes, `tokens` tokens, inside
/// their buffer, and every position of every axis of the range in the angle source's range.
template <class Angles>
void check_axis_positions(const MultiAxisLayout& layout, const Angles& angles, const MultiAxisPositions& positions,
                          std::ptrdiff_t tokens, TokenRange range)
{
    if (positions.axes() != layout.num_axes())
        posenc::detail::raise("positions.axes", positions.axes(),
                              "must equal layout.num_axes " + std::to_string(layout.num_axes()));
    if (positions.tokens() != tokens)
        posenc::detail::raise("positions.tokens", positions.tokens(), "must equal tokens " + std::to_string(tokens));
    if (tokens > 0) check_positions_buffer(positions);
    const PositionRange allowed = angles.position_range();
    for (std::ptrdiff_t t = range.begin; t < range.end; ++t)
        for (int a = 0; a < positions.axes(); ++a)
            if (!allowed.contains(positions(t, a)))
                posenc::detail::raise(
                    "positions[" + std::to_string(t) + "][" + std::to_string(a) + "]", positions(t, a),
                    "must be in [" + std::to_string(allowed.first) + ", " + std::to_string(allowed.last) +
                        "], the positions the " + angles.name() + " serves");
}

/// Everything apply_rope checks (views, range, the angle source's pair count), plus the layout
/// against the spec and every position of every axis of the range against the angle source.
template <class T, class Angles>
void check_multi_axis_call(const RopeSpec& spec, const MultiAxisLayout& layout, const Angles& angles,
                           const MultiAxisPositions& positions, const QKViews<T>& views, TokenRange range)
{
    check_layout(spec, layout);
    const std::ptrdiff_t tokens = views.q_in.tokens;
    const MultiAxisRows<Angles> rows = make_multi_axis_rows(layout, angles, positions, tokens);
    check_rope_call(spec, rows, PositionIds::contiguous(0), views, range);
    check_axis_positions(layout, angles, positions, tokens, range);
}

}  // namespace detail

}  // namespace posenc::kernels
