// SPDX-License-Identifier: MIT
// posenc/models/detail/families/family_steps.hpp: the parts of the generic reader's steps that one
// family's code decides, as hooks its rule returns (FamilyConfig::steps).
//
// A rule runs before any generic step (hf_model_identity.hpp with_family_rule), so a check it ran
// itself would come first, and a config with two faults would be refused for another one than
// before. A check or a rewrite that belongs to one family is therefore a hook here: the family's
// rule header holds its code and sets the hook, and the one generic step named on it calls it at
// the point of that step where the family's check runs. A hook left nullptr: the step does what it
// does for every family.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/family_steps.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "posenc/models/detail/hf_model_values.hpp"
#include "posenc/models/detail/hf_rope_values.hpp"
#include "posenc/models/hf_families.hpp"

namespace posenc::hf::detail::families {

/// The hooks of one family's code in the generic steps; see the file comment.
struct FamilySteps {
    /// hf_group_width_json.hpp read_head_dim, where a family's head width would be read: the family
    /// reads head_dim (and the rope part, HfRopeConfig::mla_rope_head_dim) from the config object
    /// itself; `row` is its hand row (its class defaults). Such a family is not read as MLA for a
    /// qk_rope_head_dim key (hf_group_facts.hpp read_group_identity). Mistral 4 (mistral4.hpp).
    void (*head_dim)(const nlohmann::json& config, const FamilyRules& row, HfRopeConfig& out) = nullptr;
    /// hf_group_width_json.hpp read_mla_head_dim: a key of the config that is an alias of
    /// qk_rope_head_dim (either gives the width; both that disagree are refused, naming it).
    /// GLM-4.7-Flash's head_dim (glm4_moe_lite.hpp).
    const char* qk_rope_head_dim_alias = nullptr;
    /// hf_group_width_json.hpp check_partial_factor, after the range and whole-head checks: refuses a
    /// partial rotary factor (`value`, read from `key`) the family's code does not apply; `row` is the
    /// family's hand row (its defaults). Bamba (bamba.hpp).
    void (*check_partial_factor)(const FamilyRules& row, const std::string& key, double value,
                                 const std::string& model_type) = nullptr;
    /// hf_group_scaling_json.hpp read_rope_type, after the Phi-3 aliases: a rope type the family's
    /// configuration class renames (`type_key`: where it was read), with a note. HunYuan-VL
    /// (hunyuan_vl.hpp).
    void (*rope_type_alias)(const std::string& type_key, HfRopeConfig& out) = nullptr;
    /// hf_group_scaling_json.hpp read_scaling_parameters, before mrope_section is read: M-RoPE
    /// sections the family reads under a key of its own in the RoPE dict `dict` (key path
    /// `dict_key`). HunYuan-VL's xdrope_section (hunyuan_vl.hpp).
    void (*section_alias)(const nlohmann::json& dict, const std::string& dict_key, HfRopeConfig& out) = nullptr;
    /// hf_group_scaling_json.hpp read_scaling_parameters, after alpha: keys of the RoPE dict `dict`
    /// (key path `dict_key`) the family's code reads for out.rope_type. PhiMoE's short_mscale and
    /// long_mscale (phimoe.hpp).
    void (*scaling_keys)(const nlohmann::json& dict, const std::string& dict_key, HfRopeConfig& out) = nullptr;
    /// hf_group_width_json.hpp read_rotary_dim, after the width checks: where the rotary slice sits in
    /// the head (HfRopeConfig::rotary_offset, inverse_rope_on_output). A family that places its slice
    /// so is not read as MLA for a qk_rope_head_dim key (hf_group_facts.hpp read_group_identity).
    /// DeepSeek-V4 (deepseek_v4.hpp).
    void (*rotary_slice)(HfRopeConfig& out) = nullptr;
    /// hf_mrope_json.hpp read_mrope, after the default sections and the interleaving: the sections the
    /// family's code applies, written into `primary`, with a note of what changed (`dict`: the RoPE
    /// dict's key; `type_shown`: model_type as messages show it). Qwen4-Exp (qwen4_exp.hpp).
    void (*mrope_section)(HfRopeConfig& primary, const std::string& dict, const std::string& type_shown,
                          std::vector<std::string>& notes) = nullptr;
    /// hf_mrope_json.hpp read_mrope, once the family's sections are read: the layout its code applies
    /// them with beyond contiguous or interleaved. HunYuan-VL's coordinate sections (hunyuan_vl.hpp),
    /// ERNIE-4.5-VL's alternating height / width (ernie4_5_vl.hpp).
    void (*mrope_layout)(MropeLayout& layout) = nullptr;
    /// hf_query_scale_json.hpp read_query_scale: the per-position query multiplier of the family's
    /// attention, from the config object `text` (key path `pre`) and the layer map (-1: NoPE).
    /// Llama 4 (llama4.hpp).
    std::optional<HfQueryScale> (*query_scale)(const nlohmann::json& text, const std::string& pre,
                                               const std::vector<int>& layer_groups) = nullptr;
};

}  // namespace posenc::hf::detail::families
