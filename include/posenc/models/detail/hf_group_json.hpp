// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_group_json.hpp: one RoPE group of a Hugging Face config.json, as plain
// values (HfRopeConfig, hf_rope_values.hpp). The whole-model reader (hf_model_reader.hpp) calls
// resolve_config_values once per group, which runs the group reader's steps in order.
//
// Rules (transformers src/transformers/modeling_rope_utils.py and the model files named in
// hf_families.hpp):
//   head_dim     head_dim, else the family's class default, else hidden_size // num_attention_heads
//                (DeepSeek MLA: qk_rope_head_dim)
//   rotary_dim   int(head_dim * partial_rotary_factor) (rotary_pct for GPT-NeoX; a dict's v5
//                partial_rotary_factor must agree with the top-level value or class default, which
//                transformers copies over it; other than 1 only for families whose attention rotates
//                a part of the head; GPT-J / CodeGen: rotary_dim, class default 64)
//   base         the dict's rope_theta (v5), else rope_theta, else rotary_emb_base, else the
//                family's class default, else 10000
//   scaling      rope_parameters (v5) or rope_scaling (v4): rope_type, legacy "type", Phi-3's
//                "su" / "yarn" (= longrope), the M-RoPE families' "mrope" (= default); types by exact
//                name; the required keys of each type; an explicit null where transformers reads it
//                as a value (rope_type, truncate, rope_theta, original_max_position_embeddings) refused
//   L0           yarn / llama3 / longrope: a single dict takes the top-level
//                original_max_position_embeddings (or Phi-3's class default 4096) over its own; a
//                per-layer-type entry its own, else max_position_embeddings (standardize_rope_params)
//
// Errors: posenc::error with the key path, e.g.
//     rope_scaling.factor: expected a number >= 1, got "four"
// Warnings that Hugging Face only logs (unknown keys, integer factors, factor/length mismatch)
// are collected in HfRopeConfig::warnings instead.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/hf_group_json.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "posenc/models/detail/hf_group_base_json.hpp"
#include "posenc/models/detail/hf_group_facts.hpp"
#include "posenc/models/detail/hf_group_length_json.hpp"
#include "posenc/models/detail/hf_group_scaling_json.hpp"
#include "posenc/models/detail/hf_group_width_json.hpp"

namespace posenc::hf::detail {

/// One RoPE group of `config`: the group reader's steps in order, each a function of what the
/// steps before it returned: identity and length (hf_group_facts.hpp) -> head width
/// (hf_group_width_json.hpp) -> scaling dict (hf_group_scaling_json.hpp) -> partial rotary factor
/// and rotary width -> base and pairing (hf_group_base_json.hpp) -> original length
/// (hf_group_length_json.hpp) -> with a scaling dict: rope type, its keys and values, L0, the
/// required keys, HunYuan's alpha.
inline HfRopeConfig resolve_config_values(const nlohmann::json& config, const GroupContext& context = {})
{
    if (!config.is_object()) fail_json("config", "expected a JSON object", config);
    HfRopeConfig out;
    const GroupFacts g = read_group_identity(config, context, out);
    read_max_position_embeddings(g, out);
    read_head_dim(g, out);
    if (out.head_dim > max_head_dim)
        fail(out.head_dim_key, "expected a head of at most " + std::to_string(max_head_dim) + " dimensions",
             std::to_string(out.head_dim));
    out.rotary_dim_key = out.head_dim_key;
    const ScalingDict sd = choose_scaling_dict(g, out);
    const RotaryFraction f = read_partial_rotary_factor(g, sd, out);
    read_rotary_dim(g, sd, f, out);
    read_base(g, sd, out);
    read_pairing(g, out);
    const TopLevelLength top = read_top_level_original_length(g);
    if (!sd.dict) return out;
    read_rope_type(g, sd, out);
    warn_unknown_scaling_keys(g, sd, out);
    read_scaling_parameters(g, sd, out);
    resolve_original_length(g, sd, top, out);
    check_required_keys(sd, top, out);
    apply_hunyuan_alpha(g, sd, out);
    return out;
}

}  // namespace posenc::hf::detail
