// SPDX-License-Identifier: MIT
// posenc/omni_prompt_positions.hpp: the 3-D position ids (temporal, height, width) of a prompt of
// text, image and video runs for the Omni thinkers, as Hugging Face transformers (decba1d2)
// builds them (qwen2_5_omni/modeling_qwen2_5_omni.py and qwen3_omni_moe/modeling_qwen3_omni_moe.py,
// get_rope_index and get_llm_pos_ids_for_vision). Audio runs and audio interleaved with a video
// (use_audio_in_video) are not covered: the prompt segments do not carry them.
//
// Every run starts at s = max(ids so far) + 1 (0 for the first), on every axis:
//   text of n tokens        s, s + 1, ..., s + n - 1
//   image / video (t, h, w) T = t, H = h / sm, W = w / sm; T H W tokens in (t, h, w) row-major
//                           order, token (i, j, k) at (s + tau_i, s + j, s + k), with
//                             image  tau_i = i * p
//                             video  tau_i = (i * S) * p in float32 (S the seconds per temporal grid
//                                    step, second_per_grids, required), then truncated toward 0
//                                    (Qwen2.5-Omni: `.long()`); Qwen3-Omni keeps the float, so a
//                                    tau_i that is not a whole number is refused here
//                           (p = the thinker's position_id_per_seconds, sm = its vision_config's
//                           spatial_merge_size).
// The text before a vision run ends with its start token and the text after it begins with its
// end token, which get_rope_index finds by token id: a vision segment must have a text segment on
// each side (two tokens at least between two vision runs). Both families pass tau through float32 (torch.Tensor(t_index); Qwen3-Omni keeps every
// id in float32), so ids and tau_i above 2^24 (where float32 stops holding every integer) are refused.
// rope_delta = max(ids) + 1 - tokens; decoded token n (n >= tokens) is at n + rope_delta.
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

/// The facts an Omni thinker's get_rope_index reads.
struct OmniPromptRule {
    int spatial_merge_size = 2;  ///< thinker vision_config.spatial_merge_size
    std::int64_t position_id_per_seconds = 25;  ///< thinker position_id_per_seconds
    bool float_positions = false;  ///< Qwen3-Omni: tau kept in float32 (not truncated)
};

namespace detail {

/// The largest id float32 holds exactly together with every integer below it.
inline constexpr std::int64_t max_float32_id = std::int64_t {1} << 24;

inline void require_omni_segment(const std::vector<PromptSegment>& segments, std::size_t index,
                                 const OmniPromptRule& rule)
{
    const PromptSegment& s = segments[index];
    const auto text_at = [&segments](std::size_t i) {
        return i < segments.size() && segments[i].kind == PromptSegment::Kind::text && segments[i].length >= 1;
    };
    if (s.kind == PromptSegment::Kind::text) {
        if (s.length < 0) raise(segment_field(index, "length"), s.length, "must be >= 0");
        if (index > 0 && index + 1 < segments.size() && !text_at(index - 1) && !text_at(index + 1) && s.length < 2)
            raise(segment_field(index, "length"), s.length,
                  "must be >= 2 between two vision runs (the first's end token and the second's start token)");
        return;
    }
    if (index == 0 || !text_at(index - 1) || !text_at(index + 1))
        raise(segment_field(index, "kind"), s.kind == PromptSegment::Kind::image ? "image" : "video",
              "must have a text segment before it (ending with its start token) and after it (beginning with its end "
              "token): the Omni thinkers' get_rope_index finds vision runs by those tokens");
    require_grid(s, index, 1, rule.spatial_merge_size);
    if (s.h % rule.spatial_merge_size != 0 || s.w % rule.spatial_merge_size != 0)
        raise(segment_field(index, s.h % rule.spatial_merge_size != 0 ? "h" : "w"),
              s.h % rule.spatial_merge_size != 0 ? s.h : s.w,
              "must be a multiple of spatial_merge_size " + std::to_string(rule.spatial_merge_size));
    if (s.kind == PromptSegment::Kind::image && s.seconds_per_grid)
        raise(segment_field(index, "seconds_per_grid"), *s.seconds_per_grid, "is read for videos only");
    if (s.kind == PromptSegment::Kind::video && !s.seconds_per_grid)
        raise(segment_field(index, "seconds_per_grid"), "absent",
              "must be given for an Omni video (video:TxHxW@S): get_rope_index reads second_per_grids, which has no "
              "default");
    if (s.seconds_per_grid &&
        !(std::isfinite(*s.seconds_per_grid) && *s.seconds_per_grid >= 0 && *s.seconds_per_grid < 16777216.0))
        raise(segment_field(index, "seconds_per_grid"), *s.seconds_per_grid, "must be finite, >= 0 and < 2^24");
}

/// tau_i of the file comment.
inline std::int64_t omni_tau(const PromptSegment& s, std::size_t index, std::int64_t i, const OmniPromptRule& rule)
{
    if (s.kind == PromptSegment::Kind::image) {
        if (i * rule.position_id_per_seconds > max_float32_id)
            raise(segment_field(index, "t"), s.t,
                  "gives temporal offsets past 2^24, which float32 does not hold exactly");
        return i * rule.position_id_per_seconds;
    }
    // torch: arange(t) (int64) * float32 scalar -> float32, then * position_id_per_seconds in float32.
    const float product = static_cast<float>(i) * static_cast<float>(*s.seconds_per_grid);
    const float tau = product * static_cast<float>(rule.position_id_per_seconds);
    if (!(tau <= static_cast<float>(max_float32_id)))
        raise(segment_field(index, "t"), s.t, "gives temporal offsets past 2^24, which float32 does not hold exactly");
    if (rule.float_positions && tau != std::trunc(tau))
        raise(segment_field(index, "seconds_per_grid"), *s.seconds_per_grid,
              "gives a fractional temporal position (" + format_value(static_cast<double>(tau)) +
                  "), which Qwen3-Omni keeps as a float and posenc's integer position ids do not hold");
    return static_cast<std::int64_t>(tau);
}

}  // namespace detail

/// The Omni thinkers' position ids (temporal, height, width) of a prompt; see the file comment.
/// Throws posenc::error for spatial_merge_size < 1, position_id_per_seconds outside [0, 2^24], a
/// negative text length, a vision segment without text on both sides, a grid smaller than the
/// merge size or not a multiple of it, a video without seconds_per_grid (or an image with one),
/// seconds outside [0, 2^24), a fractional temporal position under float_positions, or ids past 2^24.
template <class Ids = AxisPositionIds>
Ids omni_prompt_position_ids(const std::vector<PromptSegment>& segments, const OmniPromptRule& rule)
{
    static_assert(std::is_same_v<Ids, AxisPositionIds>, "the position ids are an AxisPositionIds");
    detail::require(rule.spatial_merge_size >= 1, "spatial_merge_size", rule.spatial_merge_size, "must be >= 1");
    detail::require(rule.position_id_per_seconds >= 0 && rule.position_id_per_seconds <= detail::max_float32_id,
                    "position_id_per_seconds", rule.position_id_per_seconds, "must be in [0, 2^24]");
    std::vector<decltype(Ids::ids)> axes(3);
    std::int64_t largest = -1;
    const auto push = [&axes, &largest](std::int64_t t, std::int64_t h, std::int64_t w) {
        axes[0].push_back(t);
        axes[1].push_back(h);
        axes[2].push_back(w);
        largest = std::max({largest, t, h, w});
    };
    for (std::size_t index = 0; index < segments.size(); ++index) {
        const PromptSegment& s = segments[index];
        detail::require_omni_segment(segments, index, rule);
        const std::int64_t start = largest + 1;
        if (s.kind == PromptSegment::Kind::text) {
            if (start + s.length > detail::max_float32_id)
                detail::raise(detail::segment_field(index, "length"), s.length,
                              "gives position ids past 2^24, which the Omni thinkers' float32 does not hold exactly");
            for (std::int64_t k = 0; k < s.length; ++k) push(start + k, start + k, start + k);
            continue;
        }
        const std::int64_t sm = rule.spatial_merge_size, H = s.h / sm, W = s.w / sm;
        detail::require_prompt_size(static_cast<std::int64_t>(axes[0].size()) + s.t * H * W);
        const std::int64_t last_tau = detail::omni_tau(s, index, s.t - 1, rule);
        if (start + std::max({last_tau, H, W}) > detail::max_float32_id)
            detail::raise(detail::segment_field(index, "grid"), s.t * H * W,
                          "gives position ids past 2^24, which the Omni thinkers' float32 does not hold exactly");
        for (std::int64_t i = 0; i < s.t; ++i) {
            const std::int64_t tau = detail::omni_tau(s, index, i, rule);
            for (std::int64_t j = 0; j < H; ++j)
                for (std::int64_t k = 0; k < W; ++k) push(start + tau, start + j, start + k);
        }
    }
    if (axes[0].empty()) return Ids {3, 0, {}, 0};
    return detail::axes_major(axes);
}

}  // namespace posenc
