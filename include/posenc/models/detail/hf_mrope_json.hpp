// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_mrope_json.hpp: M-RoPE of a whole model: the primary group's
// mrope_section, the family's default sections, and the layout its code applies (contiguous,
// interleaved, coordinate sections, height / width alternating).
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error "posenc/models/detail/hf_mrope_json.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
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

#include "posenc/models/detail/hf_group_rules_json.hpp"

namespace posenc::hf::detail_json {

/// M-RoPE: the sections and their layout, where the family reads them.
class MropeRules : protected GroupRules
{
public:
    using GroupRules::GroupRules;

protected:
    /// M-RoPE sections and interleaving, where the family reads them.
    void read_mrope()
    {
        HfRopeConfig& primary = out.primary_group().config;
        const std::string dict = primary.scaling_key.empty() ? std::string("rope_parameters") : primary.scaling_key;
        if (family && !family->default_mrope_section.empty() && primary.mrope_section.empty()) {
            // The rotary embedding's rope_parameters.get("mrope_section", <default>) (qwen3_vl, ernie4_5_vl_moe,
            // qwen3_5, glm_ocr modeling files).
            primary.mrope_section = json::parse(family->default_mrope_section.begin(), family->default_mrope_section.end())
                                        .get<std::vector<int>>();
            out.notes.push_back(dict + ".mrope_section absent: " + out.model_type + "'s default " +
                                std::string(family->default_mrope_section));
        }
        if (family && family->has(trait::always_interleaved_mrope) && !primary.mrope_interleaved) {
            // qwen3_vl/modeling_qwen3_vl.py: the text rotary embedding always applies apply_interleaved_mrope
            // (mrope_interleaved is not read); an explicit false in the group's dict is not what the code does.
            if (primary.mrope_interleaved_given)
                out.warnings.push_back({pre + dict + ".mrope_interleaved",
                                        "model_type " + type_shown + "'s code always interleaves the M-RoPE axes; ignored"});
            primary.mrope_interleaved = true;
        }
        if (!primary.mrope_section.empty()) {
            if (family && !family->has(trait::multi_axis))
                out.warnings.push_back({pre + primary.scaling_key + ".mrope_section",
                                        "model_type " + type_shown + "'s code does not read it; ignored"});
            else {
                out.mrope_section = primary.mrope_section;
                out.mrope_interleaved = primary.mrope_interleaved;
                out.mrope_coordinate_sections = family && family->has(trait::xd_coordinate_sections);
                out.mrope_height_width_alternating = family && family->has(trait::height_width_alternating_mrope);
            }
        }
        if (primary.mrope_section.empty() && family && family->has(trait::mrope_required))
            fail(pre + (primary.scaling_key.empty() ? std::string("rope_scaling") : primary.scaling_key) + ".mrope_section",
                 "expected a list of pairs per position axis: model_type " + type_shown +
                     "'s attention reads mrope_section on every forward pass and its configuration class has no default",
                 "nothing");
    }
};

}  // namespace posenc::hf::detail_json
