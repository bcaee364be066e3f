// SPDX-License-Identifier: MIT
// posenc/kernels/tower_rope.hpp: TowerRope, a vision tower's RoPE for one patch grid on the SIMD
// kernels: build it once per image (VisionTower + PatchGrid, vision_tower.hpp), then
// apply_tower_rope rotates Q and K of every layer, token t of the views being token t of
// tower_token_angles (the rows of pixel_values, with Llama 4's CLS and DINOv3's prefix tokens
// where the tower puts them).
//
// Each rule becomes one or two passes of the multi-axis kernel (kernels/multi_axis.hpp) or, for
// real-valued coordinates, one pass of the 1-D kernel over CoordinateAngles rows
// (kernels/coordinate_angles.hpp). Q = H/4, f the tower's frequencies (vision_tower.hpp,
// tower_frequency exact):
//
//   rule                            spec (pairing, rotated slice)     layout                 positions
//   rows_columns_shared (Qwen2-VL)  half_split, whole head            axial_2d(H/2)          (row, column)
//   rows_columns_even_odd (Pixtral) half_split, whole head            axial_2d(H/2)          (row, column)
//   columns_rows_offset_shared      half_split, whole head            axial_2d(H/2)          (column + 1, row + 1)
//     (Muse Glimmer: x before y)
//   columns_rows_interleaved_cls    interleaved, whole head           axial_2d(H/2)          (column + 1, row + 1),
//     (Llama 4: x before y)                                                                  CLS (0, 0)
//   columns_rows_alternating (Kimi) half_split, whole head            from_pair_axes(i % 2)  (column, row)
//   frames_rows_columns_partial     half_split, dims [0, 6F)          xd_sections([F,F,F])   (frame, row, column)
//     (MiniMax-M3-VL; dims [6F, H) pass through)
//   columns_rows_chunked (Gemma 4)  two passes: half_split on dims    single(Q) each         column, then row
//                                   [0, H/2), then on [H/2, H)
//   columns_rows_interleaved_scaled interleaved, whole head           axial_2d(H/2)          (column mod w, row mod w)
//     (SAM 3, windowed or scale 1)
//   columns_rows_interleaved_scaled interleaved, whole head           axial_2d(H/2)          real (s column, s row)
//     (SAM 3, global, scale s != 1)
//   rows_columns_centres (DINOv3)   half_split, whole head            axial_2d(H/2)          real (2 pi y, 2 pi x),
//                                                                                            prefix tokens (0, 0)
//
// Gemma 4's pairs (i, i + Q) inside each H/2-dim chunk are half_split pairs of a rotated slice
// of width H/2 at offset 0 and at offset H/2 (spec.hpp's rotary_offset): the plan describes the
// chunked head as those two single-axis passes (passes(), for an engine's own angle source), and
// apply_tower_rope runs them as one pass over the heads, both chunks of a head rotated together
// (detail/chunked_pairs.hpp: the same checks, the same bits).
//
// Integer rules read a CosSinCache of the positions [0, the largest coordinate] (memory: that
// many rows of H/2 pairs x 8 bytes; at most the grid's tokens + 2 rows); real-valued rules a
// CoordinateAngles of one row per token. Both build every value from the exact angle in double,
// so the kernel's result against rotating by tower_token_angles(tower, grid, Precision::exact)
// is apply.hpp's bound (float: < 4 ulp of |x| per pair; bfloat16 / float16 storage: plus half an
// ulp of the format), plus CoordinateAngles' A (2^-24 + 2^-52 |angle|) per cos/sin value for
// real coordinates. The model's own float32 angles (Precision::hf_float32) differ from the exact
// ones by vision_tower.hpp's bound (2^-20 |angle| for the integer rules, 2^-20 2 pi f_j for
// DINOv3): the rotation then differs by at most that angle difference times |x| per pair.
#pragma once

#define POSENC_KERNELS_DETAIL_ALLOWED 1  // this public header may include posenc/kernels/detail/*.hpp

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/frequencies.hpp"
#include "posenc/kernels/angle_cache.hpp"
#include "posenc/kernels/apply.hpp"
#include "posenc/kernels/coordinate_angles.hpp"
#include "posenc/kernels/detail/chunked_pairs.hpp"
#include "posenc/kernels/multi_axis.hpp"
#include "posenc/kernels/multi_axis_positions.hpp"
#include "posenc/kernels/views.hpp"
#include "posenc/multi_axis.hpp"
#include "posenc/spec.hpp"
#include "posenc/vision_tower.hpp"

namespace posenc::kernels {

/// One pass of a tower's rotation: the rotated slice and pairing (spec), which axis each of its
/// pairs reads (layout), the frequencies, and the first of the plan's position axes it reads
/// (the pass reads axes [first_axis, first_axis + layout.num_axes())).
struct TowerRopePass {
    RopeSpec spec;
    MultiAxisLayout layout;
    FrequencyTable table;
    int first_axis;
};

namespace detail {

/// The exact frequencies of pairs [0, count) of a tower (vision_tower.hpp).
inline FrequencyTable tower_table(const VisionTower& tower, int count)
{
    std::vector<double> f(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i)
        f[static_cast<std::size_t>(i)] = posenc::detail::tower_frequency(tower, i, Precision::exact);
    return FrequencyTable(std::move(f));
}

/// The passes of a tower's rule (the table of the file comment).
inline std::vector<TowerRopePass> tower_passes(const VisionTower& tower)
{
    const int h = tower.head_dim, pairs = tower.num_pairs();
    switch (tower.rule) {
    case VisionTowerRule::columns_rows_chunked: {
        const FrequencyTable chunk = tower_table(tower, h / 4);
        return {
            {RopeSpec(h, h / 2, tower.theta, Pairing::half_split, 0), MultiAxisLayout::single(h / 4), chunk, 0},
            {RopeSpec(h, h / 2, tower.theta, Pairing::half_split, h / 2), MultiAxisLayout::single(h / 4), chunk, 1}};
    }
    case VisionTowerRule::frames_rows_columns_partial: {
        const int f = tower.axis_frequencies();
        return {{RopeSpec(h, 2 * pairs, tower.theta, Pairing::half_split, 0),
                 MultiAxisLayout::xd_sections({f, f, f}, pairs), tower_table(tower, pairs), 0}};
    }
    case VisionTowerRule::columns_rows_alternating: {
        std::vector<int> axes(static_cast<std::size_t>(pairs));
        for (int i = 0; i < pairs; ++i) axes[static_cast<std::size_t>(i)] = i % 2;
        return {{RopeSpec::full(h, tower.theta, Pairing::half_split),
                 MultiAxisLayout::from_pair_axes(std::move(axes), 2), tower_table(tower, pairs), 0}};
    }
    case VisionTowerRule::columns_rows_interleaved_cls:
    case VisionTowerRule::columns_rows_interleaved_scaled:
        return {{RopeSpec::full(h, tower.theta, Pairing::interleaved), MultiAxisLayout::axial_2d(pairs),
                 tower_table(tower, pairs), 0}};
    default:
        return {{RopeSpec::full(h, tower.theta, Pairing::half_split), MultiAxisLayout::axial_2d(pairs),
                 tower_table(tower, pairs), 0}};
    }
}

/// Whether the tower's rotary reads real-valued coordinates (DINOv3; SAM 3 with a scale other than 1).
inline bool tower_reads_real_coordinates(const VisionTower& tower) noexcept
{
    return tower.rule == VisionTowerRule::rows_columns_centres ||
           (tower.rule == VisionTowerRule::columns_rows_interleaved_scaled && tower.scale != 1.0);
}

/// Integer positions, token-major, in tower_token_angles' token order (file comment).
inline std::vector<std::int64_t> tower_integer_positions(const VisionTower& tower, const PatchGrid& grid)
{
    const bool frames_axis = tower.rule == VisionTowerRule::frames_rows_columns_partial;
    const bool cls = tower.rule == VisionTowerRule::columns_rows_interleaved_cls;
    const auto frame = patch_positions(grid.rows, grid.columns, tower.merge_size);
    std::vector<std::int64_t> out;
    out.reserve(static_cast<std::size_t>(grid.frames) * (frame.size() + 1) * (frames_axis ? 3 : 2));
    for (std::int64_t t = 0; t < grid.frames; ++t) {
        for (const auto& rc : frame) {
            if (frames_axis) {
                out.insert(out.end(), {t, rc[0], rc[1]});
            } else {
                const auto xy = tower_coordinates(tower, rc[0], rc[1]);
                out.insert(out.end(), {xy[0], xy[1]});
            }
        }
        if (cls) out.insert(out.end(), {0, 0});
    }
    return out;
}

/// Real coordinates, token-major, in tower_token_angles' order: DINOv3's prefix tokens at (0, 0),
/// then (2 pi y, 2 pi x) row-major; SAM 3's (s column, s row) row-major (exact, in double).
inline std::vector<double> tower_real_coordinates(const VisionTower& tower, const PatchGrid& grid)
{
    const double two_pi = 6.283185307179586476925286766559;
    const bool centres = tower.rule == VisionTowerRule::rows_columns_centres;
    std::vector<double> out;
    out.reserve(2 * static_cast<std::size_t>(grid.frames * (grid.rows * grid.columns + tower.prefix_tokens)));
    for (std::int64_t t = 0; t < grid.frames; ++t) {
        for (int k = 0; k < tower.prefix_tokens; ++k) out.insert(out.end(), {0.0, 0.0});
        for (std::int64_t r = 0; r < grid.rows; ++r)
            for (std::int64_t c = 0; c < grid.columns; ++c) {
                if (centres) {
                    out.push_back(two_pi * patch_centre(r, grid.rows, Precision::exact));
                    out.push_back(two_pi * patch_centre(c, grid.columns, Precision::exact));
                } else {
                    out.push_back(static_cast<double>(c) * tower.scale);
                    out.push_back(static_cast<double>(r) * tower.scale);
                }
            }
    }
    return out;
}

}  // namespace detail

/// A tower's rotation for one grid, ready for the kernels; see the file comment.
class TowerRope
{
public:
    /// Throws posenc::error for a tower that fails check() or a grid tower_token_angles refuses.
    TowerRope(const VisionTower& tower, const PatchGrid& grid) : passes_(detail::tower_passes((tower.check(), tower)))
    {
        const bool cls = tower.rule == VisionTowerRule::columns_rows_interleaved_cls;
        const bool fixed =
            cls || (tower.rule == VisionTowerRule::columns_rows_interleaved_scaled && tower.max_side > 0);
        const bool centres = tower.rule == VisionTowerRule::rows_columns_centres;
        posenc::detail::require_patch_grid(grid, tower.merge_size, tower.num_pairs(), tower.max_side, fixed,
                                           centres ? tower.prefix_tokens : 1);
        num_axes_ = tower.rule == VisionTowerRule::frames_rows_columns_partial ? 3 : 2;
        if (detail::tower_reads_real_coordinates(tower)) {
            coordinates_ = detail::tower_real_coordinates(tower, grid);
            tokens_ = static_cast<std::ptrdiff_t>(coordinates_.size()) / num_axes_;
            coordinate_angles_ =
                std::make_shared<const CoordinateAngles>(passes_[0].table, passes_[0].layout, coordinates_);
            return;
        }
        positions_ = detail::tower_integer_positions(tower, grid);
        tokens_ = static_cast<std::ptrdiff_t>(positions_.size()) / num_axes_;
        std::int64_t largest = 0;
        for (const std::int64_t p : positions_) largest = p > largest ? p : largest;
        cache_ = std::make_shared<const CosSinCache>(passes_[0].table, largest + 1);
    }

    /// The tokens of the grid (rows of Q and K the views must have).
    std::ptrdiff_t tokens() const noexcept { return tokens_; }
    /// Position axes: 3 for frames_rows_columns_partial, else 2.
    int num_axes() const noexcept { return num_axes_; }
    /// One pass, or two for columns_rows_chunked (file comment).
    const std::vector<TowerRopePass>& passes() const noexcept { return passes_; }
    /// True when the rows come from real-valued coordinates (coordinate_angles()).
    bool real_coordinates() const noexcept { return coordinate_angles_ != nullptr; }
    /// Integer rules: token-major [tokens][num_axes] positions (empty for real coordinates).
    const std::vector<std::int64_t>& positions() const noexcept { return positions_; }
    /// Real-coordinate rules: token-major [tokens][num_axes] coordinates (empty otherwise).
    const std::vector<double>& coordinates() const noexcept { return coordinates_; }
    /// The positions pass k reads, as the multi-axis kernel takes them. Precondition: integer rule.
    MultiAxisPositions pass_positions(std::size_t k) const noexcept
    {
        const int first = passes_[k].first_axis;
        return MultiAxisPositions::strided(positions_.data() + first,
                                           static_cast<std::ptrdiff_t>(positions_.size()) - first, tokens_,
                                           passes_[k].layout.num_axes(), num_axes_, 1);
    }
    /// The integer rules' cos/sin table (null for real coordinates).
    const CosSinCache* cache() const noexcept { return cache_.get(); }
    /// The real-coordinate rules' rows (null for integer rules).
    const CoordinateAngles* coordinate_angles() const noexcept { return coordinate_angles_.get(); }

private:
    std::vector<TowerRopePass> passes_;
    int num_axes_ = 2;
    std::ptrdiff_t tokens_ = 0;
    std::vector<std::int64_t> positions_;
    std::vector<double> coordinates_;
    std::shared_ptr<const CosSinCache> cache_;
    std::shared_ptr<const CoordinateAngles> coordinate_angles_;
};

namespace detail {

/// Whether apply_tower_rope runs the plan's chunked head in one pass (chunked_pairs.hpp): two
/// passes of the chunks' halves, whose rows fit one row of the kernel.
inline bool tower_runs_chunked(const TowerRope& plan) noexcept
{
    return plan.passes().size() == 2 && 2 * plan.passes()[0].spec.num_pairs() <= max_pairs_per_row;
}

/// Gemma 4's chunked head in one pass: each pass's call checked as apply_multi_axis_rope checks
/// it, then chunk c of every head rotated by axis c's row, token by token (chunked_pairs.hpp;
/// the bits of the two passes).
template <class T>
void apply_chunked_tower_rope(const TowerRope& plan, const QKViews<T>& views, Direction direction)
{
    for (std::size_t k = 0; k < plan.passes().size(); ++k) {
        const TowerRopePass& pass = plan.passes()[k];
        check_multi_axis_call(pass.spec, pass.layout, *plan.cache(), plan.pass_positions(k), views,
                              TokenRange {0, plan.tokens(), false});
    }
    check_direction(direction);
    const std::vector<std::int64_t>& p = plan.positions();
    const MultiAxisPositions both = MultiAxisPositions::strided(p.data(), static_cast<std::ptrdiff_t>(p.size()),
                                                                plan.tokens(), plan.num_axes(), plan.num_axes(), 1);
    chunked_rope_tokens<kernels::default_arch>(plan.passes()[0].spec.num_pairs(),
                                               static_cast<int>(plan.passes().size()), *plan.cache(), both, views,
                                               direction, TokenRange {0, plan.tokens(), false});
}

/// Several passes one after the other, block by block of tokens, so that the later passes find
/// the block's heads in cache (about 128 KiB of Q and K per block).
template <class T>
void apply_tower_passes(const TowerRope& plan, const QKViews<T>& views, Direction direction)
{
    const std::ptrdiff_t token_bytes = (views.q_in.heads + (views.has_k() ? views.k_in.heads : 0)) *
                                       views.q_in.head_dim * static_cast<std::ptrdiff_t>(sizeof(T));
    const std::ptrdiff_t block =
        token_bytes > 0 ? std::max<std::ptrdiff_t>(1, (std::ptrdiff_t {1} << 17) / token_bytes) : 1;
    for (std::ptrdiff_t begin = 0; begin < plan.tokens(); begin += block) {
        const TokenRange range {begin, std::min(begin + block, plan.tokens()), false};
        for (std::size_t k = 0; k < plan.passes().size(); ++k) {
            const QKViews<T> v = k == 0 ? views : QKViews<T>::in_place(views.q_out, views.k_out);
            const TowerRopePass& pass = plan.passes()[k];
            apply_multi_axis_rope(pass.spec, pass.layout, *plan.cache(), plan.pass_positions(k), v, direction, range);
        }
    }
}

}  // namespace detail

/// Rotates Q (and K) of one image by the tower's RoPE: token t of the views is token t of the
/// plan (tower_token_angles' order). Float, bfloat16 or float16 storage (double: rotate with
/// posenc::apply_multi_axis_rope_reference). Throws posenc::error for views whose token count
/// differs from plan.tokens() and for anything apply_multi_axis_rope / apply_rope refuse (for
/// Gemma 4's chunks: refused by either pass). Gemma 4's two passes run as one pass over the
/// heads (detail/chunked_pairs.hpp), with the passes' bits.
template <class T>
void apply_tower_rope(const TowerRope& plan, const QKViews<T>& views, Direction direction = Direction::forward)
{
    static_assert(is_storage_type<T> && !std::is_same_v<T, double>,
                  "apply_tower_rope rotates float, bfloat16 or float16 tensors.");
    if (views.q_in.tokens != plan.tokens())
        posenc::detail::raise("views.tokens", views.q_in.tokens,
                              "must equal the grid's tokens " + std::to_string(plan.tokens()));
    if (plan.real_coordinates()) {
        apply_rope(plan.passes()[0].spec, *plan.coordinate_angles(), PositionIds::contiguous(0), views, direction);
        return;
    }
    if (plan.passes().size() == 1) {
        const TowerRopePass& pass = plan.passes()[0];
        apply_multi_axis_rope(pass.spec, pass.layout, *plan.cache(), plan.pass_positions(0), views, direction);
        return;
    }
    if (detail::tower_runs_chunked(plan)) detail::apply_chunked_tower_rope(plan, views, direction);
    else detail::apply_tower_passes(plan, views, direction);
}

}  // namespace posenc::kernels
