// SPDX-License-Identifier: MIT
// posenc/mrope_prompt_positions.hpp: the 3-D position ids (temporal, height, width) of a prompt
// for the M-RoPE families that share Qwen2-VL's rule, and the position of each decoded token.
//
// Hugging Face transformers (decba1d2), get_rope_index and get_vision_position_ids of
//   Qwen2-VL, PaddleOCR-VL       (qwen2_vl/, paddleocr_vl/modeling_*.py)      rule "qwen2_vl"
//   Qwen2.5-VL                   (qwen2_5_vl/modeling_qwen2_5_vl.py)           rule "qwen2_5_vl"
//   Qwen3-VL, Qwen3-VL-MoE, Qwen3.5, Qwen3.5-MoE, GLM-4.1V / GLM-4.5V / GLM-4.6V, GLM-OCR,
//   Cosmos3-Edge                 (qwen3_vl/, glm4v/, ... modeling_*.py)        rule "video_frames"
// With c the running position (from 0) and sm = vision_config.spatial_merge_size:
//   text of n tokens        every axis c, c + 1, ..., c + n - 1;  then c += n
//   image / video (t, h, w) (the processor's grid_thw, before merging) T = t, H = h / sm,
//                           W = w / sm; T H W tokens in (t, h, w) row-major order, token (i, j, k)
//                           at (c + i * interval, c + j, c + k);  then c += max(h, w) / sm
//                           (not the temporal extent: a long video's temporal ids may pass c)
//   interval                1, except a Qwen2.5-VL video: tokens_per_second * int(s), s its
//                           seconds per grid step (second_per_grid_ts, 1 when not given),
//                           int() truncating toward 0 (0.5 s gives interval 0, 2.9 s gives 2)
// rule "video_frames": the processor writes a timestamp (text) before each temporal grid step of
// a video, so video_grid_thw (t, h, w) becomes t grids (1, h, w), one per frame run; a prompt gives
// each frame as its own video segment of t = 1, the timestamp text between them (two video
// segments in a row would be one run to get_rope_index). A video segment with t > 1 is refused:
// Hugging Face would pair its t H W tokens with one frame's H W ids and fail.
// rope_delta = max(ids) + 1 - tokens (Hugging Face's rope_deltas): decoded token n (n >= tokens)
// is at n + rope_delta on every axis.
//
// Memory: three int64 ids per token, up to 2^31 - 1 tokens; a caller holding untrusted segments
// bounds them first (prompt_segments.hpp prompt_tokens_upper_bound).
// Exact: integer arithmetic; every id is checked to fit 2^31 - 1. Merged grids whose h or w is not
// a multiple of sm are refused (the processor never writes them; Hugging Face would floor).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/multimodal_positions.hpp"

namespace posenc {

/// Which get_rope_index a Qwen-lineage family runs (see the file comment).
enum class MropePromptFamily { qwen2_vl, qwen2_5_vl, video_frames };

/// "qwen2_vl", "qwen2_5_vl" or "video_frames".
inline const char* to_string(MropePromptFamily f) noexcept
{
    return f == MropePromptFamily::qwen2_vl     ? "qwen2_vl"
           : f == MropePromptFamily::qwen2_5_vl ? "qwen2_5_vl"
                                                : "video_frames";
}

/// The facts get_rope_index reads from the model's config.
struct MropePromptRule {
    MropePromptFamily family = MropePromptFamily::qwen2_vl;
    int spatial_merge_size = 2;  ///< vision_config.spatial_merge_size
    std::int64_t tokens_per_second = 0;  ///< Qwen2.5-VL: vision_config.tokens_per_second (others: unused)
};

namespace detail {

inline void require_qwen_segment(const PromptSegment& s, std::size_t index, const MropePromptRule& rule)
{
    if (s.kind == PromptSegment::Kind::text) return;
    require_grid(s, index, 1, rule.spatial_merge_size);
    if (s.h % rule.spatial_merge_size != 0)
        raise(segment_field(index, "h"), s.h,
              "must be a multiple of spatial_merge_size " + std::to_string(rule.spatial_merge_size));
    if (s.w % rule.spatial_merge_size != 0)
        raise(segment_field(index, "w"), s.w,
              "must be a multiple of spatial_merge_size " + std::to_string(rule.spatial_merge_size));
    if (s.seconds_per_grid && (s.kind != PromptSegment::Kind::video || rule.family != MropePromptFamily::qwen2_5_vl))
        raise(segment_field(index, "seconds_per_grid"), *s.seconds_per_grid,
              "is read for Qwen2.5-VL videos only (second_per_grid_ts); this is a " +
                  std::string(s.kind == PromptSegment::Kind::video ? "video" : "image") + " of rule " +
                  to_string(rule.family));
    if (s.seconds_per_grid &&
        !(std::isfinite(*s.seconds_per_grid) && *s.seconds_per_grid >= 0 && *s.seconds_per_grid < 2147483648.0))
        raise(segment_field(index, "seconds_per_grid"), *s.seconds_per_grid, "must be finite, >= 0 and < 2^31");
    if (rule.family == MropePromptFamily::video_frames && s.kind == PromptSegment::Kind::video && s.t != 1)
        raise(segment_field(index, "t"), s.t,
              "must be 1: this family's processor writes a timestamp before each frame, so each temporal grid step is "
              "its own video segment (video:1xHxW, text between)");
}

/// The temporal step between a segment's grid steps (file comment, "interval").
inline std::int64_t temporal_interval(const PromptSegment& s, const MropePromptRule& rule)
{
    if (s.kind != PromptSegment::Kind::video || rule.family != MropePromptFamily::qwen2_5_vl) return 1;
    return rule.tokens_per_second * static_cast<std::int64_t>(s.seconds_per_grid.value_or(1.0));  // int() truncates
}

inline void require_id(std::int64_t id)
{
    if (id > max_prompt_tokens) raise("position id", id, "must be <= 2^31 - 1");
}

}  // namespace detail

/// The position ids (temporal, height, width) of a prompt as the rule's get_rope_index builds
/// them (see the file comment). Throws posenc::error for spatial_merge_size < 1, a negative
/// tokens_per_second, a negative text length, a grid smaller than spatial_merge_size or not a
/// multiple of it, two consecutive vision segments of one kind, seconds_per_grid outside
/// Qwen2.5-VL videos or outside [0, 2^31), a video with t != 1 under rule video_frames, or more
/// than 2^31 - 1 tokens or a position id past it.
template <class Ids = AxisPositionIds>
Ids mrope_prompt_position_ids(const std::vector<PromptSegment>& segments, const MropePromptRule& rule)
{
    static_assert(std::is_same_v<Ids, AxisPositionIds>, "the position ids are an AxisPositionIds");
    detail::require(rule.spatial_merge_size >= 1, "spatial_merge_size", rule.spatial_merge_size, "must be >= 1");
    detail::require(rule.tokens_per_second >= 0 && rule.tokens_per_second <= detail::max_prompt_tokens,
                    "tokens_per_second", rule.tokens_per_second, "must be in [0, 2^31 - 1]");
    std::vector<decltype(Ids::ids)> axes(3);
    std::int64_t c = 0;
    for (std::size_t index = 0; index < segments.size(); ++index) {
        const PromptSegment& s = segments[index];
        detail::require_segment_order(segments, index);
        detail::require_qwen_segment(s, index, rule);
        if (s.kind == PromptSegment::Kind::text) {
            detail::require_prompt_size(static_cast<std::int64_t>(axes[0].size()) + s.length);
            detail::require_id(c + s.length);
            for (std::int64_t k = 0; k < s.length; ++k)
                for (auto& axis : axes) axis.push_back(c + k);
            c += s.length;
            continue;
        }
        const std::int64_t sm = rule.spatial_merge_size, H = s.h / sm, W = s.w / sm;
        detail::require_prompt_size(static_cast<std::int64_t>(axes[0].size()) + s.t * H * W);
        const std::int64_t interval = detail::temporal_interval(s, rule);
        detail::require_id(c + std::max(H, W));
        if (interval > 0 && s.t > 1 && interval > (detail::max_prompt_tokens - c) / (s.t - 1))
            detail::raise(detail::segment_field(index, "t"), s.t, "gives temporal position ids past 2^31 - 1");
        for (std::int64_t i = 0; i < s.t; ++i)
            for (std::int64_t j = 0; j < H; ++j)
                for (std::int64_t k = 0; k < W; ++k) {
                    axes[0].push_back(c + i * interval);
                    axes[1].push_back(c + j);
                    axes[2].push_back(c + k);
                }
        c += std::max(s.h, s.w) / sm;
    }
    if (axes[0].empty()) return Ids {3, 0, {}, 0};
    return detail::axes_major(axes);
}

}  // namespace posenc
