// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_mrope_json.hpp: M-RoPE of a whole model: the primary group's
// mrope_section, the family's default sections, and the layout its code applies (contiguous,
// interleaved, coordinate sections, height / width alternating).
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/hf_mrope_json.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "posenc/models/detail/hf_model_identity.hpp"
#include "posenc/models/hf_families.hpp"

namespace posenc::hf::detail {

/// Step 9: the M-RoPE sections and interleaving of the primary group, where the family reads them.
/// The family's default sections and always-interleaved layout are written into `primary` too.
inline MropeLayout read_mrope(const ModelIdentity& id, HfRopeConfig& primary, ReadLog& log)
{
    const FamilyRules* family = id.family;
    const std::string dict = primary.scaling_key.empty() ? std::string("rope_parameters") : primary.scaling_key;
    if (family && !family->default_mrope_section.empty() && primary.mrope_section.empty()) {
        // The rotary embedding's rope_parameters.get("mrope_section", <default>) (qwen3_vl, ernie4_5_vl_moe,
        // qwen3_5, glm_ocr modeling files).
        primary.mrope_section = json::parse(family->default_mrope_section.begin(), family->default_mrope_section.end())
                                    .get<std::vector<int>>();
        log.notes.push_back(dict + ".mrope_section absent: " + id.model_type + "'s default " +
                            std::string(family->default_mrope_section));
    }
    if (family && family->has(trait::always_interleaved_mrope) && !primary.mrope_interleaved) {
        // qwen3_vl/modeling_qwen3_vl.py: the text rotary embedding always applies apply_interleaved_mrope
        // (mrope_interleaved is not read); an explicit false in the group's dict is not what the code does.
        if (primary.mrope_interleaved_given)
            log.warnings.push_back(
                {id.pre + dict + ".mrope_interleaved",
                 "model_type " + id.type_shown + "'s code always interleaves the M-RoPE axes; ignored"});
        primary.mrope_interleaved = true;
    } else if (!(family && family->has(trait::always_interleaved_mrope)) && primary.mrope_interleaved) {
        // No modeling file of transformers 5.16 reads mrope_interleaved (vLLM's key): the other M-RoPE
        // families apply their own layout whatever it says.
        log.warnings.push_back(
            {id.pre + dict + ".mrope_interleaved",
             "model_type " + id.type_shown + "'s code does not read it (its M-RoPE layout is fixed); ignored"});
        primary.mrope_interleaved = false;
    }
    // The family's own sections (families/family_steps.hpp FamilySteps::mrope_section: Qwen4-Exp's temporal rest).
    if (id.steps.mrope_section) id.steps.mrope_section(primary, dict, id.type_shown, log.notes);
    MropeLayout out;
    if (!primary.mrope_section.empty()) {
        if (family && !family->has(trait::multi_axis)) {
            log.warnings.push_back({id.pre + primary.scaling_key + ".mrope_section",
                                    "model_type " + id.type_shown + "'s code does not read it; ignored"});
        } else {
            out.section = primary.mrope_section;
            out.interleaved = primary.mrope_interleaved;
            if (id.steps.mrope_layout) id.steps.mrope_layout(out);  // the family's own layout (FamilySteps)
        }
    }
    if (primary.mrope_section.empty() && family && family->has(trait::mrope_required))
        fail(id.pre + (primary.scaling_key.empty() ? std::string("rope_scaling") : primary.scaling_key) +
                 ".mrope_section",
             "expected a list of pairs per position axis: model_type " + id.type_shown +
                 "'s attention reads mrope_section on every forward pass and its configuration class has no default",
             "nothing");
    return out;
}

}  // namespace posenc::hf::detail
