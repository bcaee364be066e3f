// SPDX-License-Identifier: MIT
// prompt.hpp: posenc-inspect's --prompt SEGMENTS --angles: the position ids a multimodal prompt's
// tokens get from the model's get_rope_index (posenc/models/hf_prompt_rule.hpp), and the angle by
// which each token's rotated pairs turn (posenc/prompt_angles.hpp), for the config's own RoPE of
// its primary (full-attention) group. A model without M-RoPE is refused, naming it.
#pragma once

#include <posenc/frequencies.hpp>
#include <posenc/models/hf_config.hpp>
#include <posenc/models/hf_prompt_rule.hpp>
#include <posenc/prompt_angles.hpp>
#include <posenc/prompt_segments.hpp>
#include <posenc/scaling/scaling.hpp>

#include <string>

#include "inspect/model.hpp"
#include "inspect/options.hpp"
#include "inspect/report.hpp"

namespace inspect {

/// The most prompt tokens --angles takes (an upper bound from the segments, prompt_tokens_upper_bound):
/// each token writes one angle per pair.
inline constexpr double max_prompt_tokens = 1048576;

/// Adds the prompt's summary and angles to `report` (--prompt; options.hpp checked the rest).
/// Throws UsageError for a malformed SEGMENTS (naming the segment) or a model without M-RoPE,
/// posenc::error for a prompt the model's rule refuses.
inline void add_prompt_angles(Report& report, const Options& options)
{
    if (!options.prompt) return;
    std::vector<posenc::PromptSegment> segments;
    try {
        segments = posenc::parse_prompt_segments(*options.prompt);
    } catch (const posenc::error& e) {
        throw UsageError(std::string("--prompt: ") + e.what());
    }
    if (posenc::prompt_tokens_upper_bound(segments) > max_prompt_tokens)
        throw UsageError("--prompt: " + detail::in_quotes(*options.prompt) +
                         " may hold more than 1048576 tokens (2 t h w per vision segment, before merging), the most "
                         "--angles writes");
    const std::string text = read_config_text(options.config_path);
    posenc::hf::ReadOptions read_options;
    read_options.assume_half_split = options.assume_half_split;
    const posenc::hf::HfModel model = posenc::hf::parse_model(text, read_options);
    if (!model.rope.multi_axis())
        throw UsageError("--prompt: " + detail::cut(detail::printable(report.name), 60) + " (model_type " +
                         detail::in_quotes(model.model_type) +
                         ") has no M-RoPE: each of its tokens is at its index on the one axis its pairs read");
    const posenc::hf::HfPromptRule rule = posenc::hf::parse_prompt_rule(text);
    const posenc::AxisPositionIds ids = posenc::hf::prompt_position_ids(rule, segments);
    const posenc::RopeGroup& group = model.rope.primary_group();
    report.angles = posenc::prompt_token_angles(group.spec, posenc::frequency_table(group.spec, group.scaling),
                                                *model.rope.multi_axis(), ids);
    report.prompt = PromptReport {posenc::hf::rule_name(rule), ids.tokens, ids.rope_delta};
    for (const std::string& note : rule.notes) report.notes.push_back(note);
}

}  // namespace inspect
