// SPDX-License-Identifier: MIT
// posenc/multimodal_positions.hpp: the position ids of a multimodal prompt, per axis, as Hugging
// Face's get_rope_index builds them for models whose tokens carry several positions
// (multi_axis.hpp routes each pair to one axis).
//
// A prompt is a list of PromptSegments: runs of text tokens and single images / videos given by
// their vision grid (t, h, w) before merging (the processor's image_grid_thw / video_grid_thw).
// The result, AxisPositionIds, is axes-major ids[axis * tokens + token], Hugging Face's
// position_ids[:, b, :] of one sequence (kernels::MultiAxisPositions::axes_major views it).
//
// ERNIE-4.5-VL (models/ernie4_5_vl_moe/modeling_ernie4_5_vl_moe.py, get_rope_index and
// get_vision_position_ids; axes (temporal, height, width); c = the running position, from 0):
//   text of n tokens        every axis c, c + 1, ..., c + n - 1;            then c += n
//   image / video (t, h, w) T = t / tm, H = h / sm, W = w / sm (integer division; tm = 1 for an
//                           image, temporal_merge_size for a video; sm = spatial_merge_size);
//                           T H W tokens in (t, h, w) row-major order, token (i, j, k) at
//                           (c + i, c + j, c + k) (time_interval 1);  then c += max(h, w) / sm
// HunYuan-VL (models/hunyuan_vl/modeling_hunyuan_vl.py, get_rope_index and
// get_vision_position_ids; n = 3 or 4 axes, the last three (width, height, image index), a
// fourth first one the sequence index):
//   every token             every axis: its index s in the sequence (0, 1, ...)
//   image (t, h, w)         H = h / sm, W = w / sm; the span is H (W + 1) grid tokens (one
//                           extra "newline" column per row), or those plus a begin and an end
//                           token when `delimited` (those two keep s); grid token (r, q), row-major
//                           over H rows of W + 1 columns, gets width q, height r, image index
//                           = the image's ordinal (first_image_index, + 1 per image; Hugging Face
//                           counts images across the whole batch); the first n - 3 axes keep s.
// Both: rope_delta = max(ids) + 1 - tokens (Hugging Face's rope_deltas): the position of the
// token after the prompt on every axis is tokens + rope_delta (ERNIE; HunYuan-VL decodes at s).
// Two consecutive vision segments of one kind are refused: Hugging Face groups consecutive tokens
// of one type into one span and would read them as one image.
//
// Both functions are templates on their result type (always AxisPositionIds) only so that a
// translation unit that includes this header without calling them does not compile them and
// their lists of lists (docs/benchmarks.md, "Compile time").
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "posenc/error.hpp"

namespace posenc {

/// One run of a multimodal prompt: text tokens, or one image or video by its vision grid.
struct PromptSegment {
    enum class Kind { text, image, video };
    Kind kind = Kind::text;
    std::int64_t length = 0;  ///< text: number of tokens (vision: unused)
    std::int64_t t = 0;  ///< vision grid before merging (grid_thw), unused for text
    std::int64_t h = 0;
    std::int64_t w = 0;
    bool delimited = false;  ///< HunYuan-VL: the image span also holds a begin and an end token
    /// Qwen2.5-VL video: seconds per temporal grid step (the processor's second_per_grid_ts);
    /// empty: not given (Qwen2.5-VL then reads 1). Refused by families that do not read it.
    std::optional<double> seconds_per_grid;

    static PromptSegment text(std::int64_t tokens) { return {Kind::text, tokens, 0, 0, 0, false, std::nullopt}; }
    static PromptSegment image(std::int64_t t, std::int64_t h, std::int64_t w, bool delimited = false)
    {
        return {Kind::image, 0, t, h, w, delimited, std::nullopt};
    }
    static PromptSegment video(std::int64_t t, std::int64_t h, std::int64_t w)
    {
        return {Kind::video, 0, t, h, w, false, std::nullopt};
    }
    /// A video with its seconds per temporal grid step (Qwen2.5-VL's second_per_grid_ts).
    static PromptSegment video(std::int64_t t, std::int64_t h, std::int64_t w, double seconds_per_grid)
    {
        PromptSegment s {Kind::video, 0, t, h, w, false, std::nullopt};
        s.seconds_per_grid = seconds_per_grid;
        return s;
    }
};

/// Position ids of one sequence, axes-major: ids[axis * tokens + token].
struct AxisPositionIds {
    int num_axes = 0;
    std::int64_t tokens = 0;
    std::vector<std::int64_t> ids;
    std::int64_t rope_delta = 0;  ///< max(ids) + 1 - tokens

    /// Position of `token` on `axis`. Precondition: 0 <= axis < num_axes, 0 <= token < tokens.
    std::int64_t operator()(int axis, std::int64_t token) const noexcept
    {
        return ids[static_cast<std::size_t>(axis) * static_cast<std::size_t>(tokens) + static_cast<std::size_t>(token)];
    }
};

namespace detail {
/// The largest number of tokens a prompt may have: 2^31 - 1 (every position fits int32 too).
inline constexpr std::int64_t max_prompt_tokens = 2147483647;

inline std::string segment_field(std::size_t index, const char* what)
{
    return "segments[" + std::to_string(index) + "]." + what;
}

inline void require_grid(const PromptSegment& s, std::size_t index, std::int64_t temporal_merge,
                         std::int64_t spatial_merge)
{
    if (s.t < temporal_merge)
        raise(segment_field(index, "t"), s.t, "must be >= the temporal merge size " + std::to_string(temporal_merge));
    if (s.h < spatial_merge)
        raise(segment_field(index, "h"), s.h, "must be >= spatial_merge_size " + std::to_string(spatial_merge));
    if (s.w < spatial_merge)
        raise(segment_field(index, "w"), s.w, "must be >= spatial_merge_size " + std::to_string(spatial_merge));
    if (s.h > max_prompt_tokens || s.w > max_prompt_tokens || s.t > max_prompt_tokens)
        raise(segment_field(index, "grid"), std::max({s.t, s.h, s.w}), "must be <= 2^31 - 1");
}

inline void require_segment_order(const std::vector<PromptSegment>& segments, std::size_t index)
{
    const PromptSegment& s = segments[index];
    if (s.kind == PromptSegment::Kind::text) {
        if (s.length < 0) raise(segment_field(index, "length"), s.length, "must be >= 0");
        return;
    }
    if (index > 0 && segments[index - 1].kind == s.kind)
        raise(segment_field(index, "kind"), s.kind == PromptSegment::Kind::image ? "image" : "video",
              "must not follow another segment of the same kind (Hugging Face's get_rope_index groups consecutive "
              "tokens of one type into one span)");
}

inline void require_prompt_size(std::int64_t tokens)
{
    if (tokens > max_prompt_tokens) raise("tokens", tokens, "must be <= 2^31 - 1");
}

/// The per-axis lists (a std::vector of std::vector<std::int64_t>) laid out axes-major.
template <class Axes>
AxisPositionIds axes_major(const Axes& per_axis)
{
    AxisPositionIds out;
    out.num_axes = static_cast<int>(per_axis.size());
    out.tokens = static_cast<std::int64_t>(per_axis.front().size());
    std::int64_t largest = -1;
    out.ids.reserve(per_axis.size() * per_axis.front().size());
    for (const std::vector<std::int64_t>& axis : per_axis) {
        for (std::int64_t v : axis) {
            out.ids.push_back(v);  // push_back, not a range insert: one fewer vector member to compile
            largest = std::max(largest, v);
        }
    }
    out.rope_delta = largest + 1 - out.tokens;
    return out;
}
}  // namespace detail

/// ERNIE-4.5-VL's 3-D position ids (temporal, height, width) of a prompt; see the file comment.
/// Throws posenc::error for merge sizes < 1, a negative text length, a vision grid smaller than
/// its merge sizes, two consecutive vision segments of one kind, or more than 2^31 - 1 tokens.
template <class Ids = AxisPositionIds>
Ids ernie_4_5_vl_position_ids(const std::vector<PromptSegment>& segments, int spatial_merge_size,
                              int temporal_merge_size)
{
    static_assert(std::is_same_v<Ids, AxisPositionIds>, "the position ids are an AxisPositionIds");
    detail::require(spatial_merge_size >= 1, "spatial_merge_size", spatial_merge_size, "must be >= 1");
    detail::require(temporal_merge_size >= 1, "temporal_merge_size", temporal_merge_size, "must be >= 1");
    std::vector<decltype(Ids::ids)> axes(3);
    std::int64_t c = 0;
    for (std::size_t index = 0; index < segments.size(); ++index) {
        const PromptSegment& s = segments[index];
        detail::require_segment_order(segments, index);
        if (s.kind == PromptSegment::Kind::text) {
            detail::require_prompt_size(static_cast<std::int64_t>(axes[0].size()) + s.length);
            for (std::int64_t k = 0; k < s.length; ++k)
                for (auto& axis : axes) axis.push_back(c + k);
            c += s.length;
            continue;
        }
        const std::int64_t tm = s.kind == PromptSegment::Kind::image ? 1 : temporal_merge_size;
        detail::require_grid(s, index, tm, spatial_merge_size);
        const std::int64_t T = s.t / tm, H = s.h / spatial_merge_size, W = s.w / spatial_merge_size;
        detail::require_prompt_size(static_cast<std::int64_t>(axes[0].size()) + T * H * W);
        for (std::int64_t i = 0; i < T; ++i)
            for (std::int64_t j = 0; j < H; ++j)
                for (std::int64_t k = 0; k < W; ++k) {
                    axes[0].push_back(c + i);
                    axes[1].push_back(c + j);
                    axes[2].push_back(c + k);
                }
        c += std::max(s.h, s.w) / spatial_merge_size;
    }
    return detail::axes_major(axes);
}

/// HunYuan-VL's position ids on `num_axes` (3 or 4) axes; see the file comment. Images only.
/// Throws posenc::error for num_axes outside [3, 4], spatial_merge_size < 1, first_image_index
/// < 0, a video segment, a negative text length, a grid smaller than the merge size, two
/// consecutive images, or more than 2^31 - 1 tokens.
template <class Ids = AxisPositionIds>
Ids hunyuan_vl_position_ids(const std::vector<PromptSegment>& segments, int num_axes, int spatial_merge_size,
                            std::int64_t first_image_index = 0)
{
    static_assert(std::is_same_v<Ids, AxisPositionIds>, "the position ids are an AxisPositionIds");
    detail::require(num_axes >= 3 && num_axes <= 4, "num_axes", num_axes,
                    "must be 3 (width, height, image index) or 4 (position, width, height, image index)");
    detail::require(spatial_merge_size >= 1, "spatial_merge_size", spatial_merge_size, "must be >= 1");
    detail::require(first_image_index >= 0, "first_image_index", first_image_index, "must be >= 0");
    std::vector<decltype(Ids::ids)> axes(static_cast<std::size_t>(num_axes));
    const std::size_t offset = static_cast<std::size_t>(num_axes - 3);
    std::int64_t image_index = first_image_index;
    const auto push_plain = [&axes]() {
        const std::int64_t s = static_cast<std::int64_t>(axes[0].size());
        for (auto& axis : axes) axis.push_back(s);
    };
    for (std::size_t index = 0; index < segments.size(); ++index) {
        const PromptSegment& seg = segments[index];
        detail::require_segment_order(segments, index);
        if (seg.kind == PromptSegment::Kind::video)
            detail::raise(detail::segment_field(index, "kind"), "video",
                          "is not a HunYuan-VL input (its get_rope_index reads images only)");
        if (seg.kind == PromptSegment::Kind::text) {
            detail::require_prompt_size(static_cast<std::int64_t>(axes[0].size()) + seg.length);
            for (std::int64_t k = 0; k < seg.length; ++k) push_plain();
            continue;
        }
        detail::require_grid(seg, index, 1, spatial_merge_size);
        const std::int64_t H = seg.h / spatial_merge_size, W = seg.w / spatial_merge_size;
        detail::require_prompt_size(static_cast<std::int64_t>(axes[0].size()) + H * (W + 1) + 2);
        if (seg.delimited) push_plain();
        for (std::int64_t r = 0; r < H; ++r)
            for (std::int64_t q = 0; q <= W; ++q) {
                const std::int64_t s = static_cast<std::int64_t>(axes[0].size());
                for (std::size_t a = 0; a < offset; ++a) axes[a].push_back(s);
                axes[offset].push_back(q);
                axes[offset + 1].push_back(r);
                axes[offset + 2].push_back(image_index);
            }
        if (seg.delimited) push_plain();
        ++image_index;
    }
    if (axes[0].empty()) return Ids {num_axes, 0, {}, 0};
    return detail::axes_major(axes);
}

}  // namespace posenc
