// SPDX-License-Identifier: MIT
// posenc/models/detail/families/qwen4_exp.hpp: Qwen4-Exp's text model (qwen4_exp/configuration_qwen4_exp.py,
// qwen4_exp/modeling_qwen4_exp.py, transformers 5.25.0).
//
//   layers        the linear-attention hybrids' rule (linear_attention.hpp: linear_attention layers
//                 NoPE, the others indexed_attention)
//   M-RoPE        interleaved; recomposition_frequencies reads only mrope_section[1] and [2]: height
//                 and width take pairs 1, 4, ... below 3 x section[1] and 2, 5, ... below 3 x
//                 section[2], and every other pair of the rotary part keeps the temporal axis, so the
//                 temporal section is rotary_dim / 2 minus the other two, whatever section[0] says (a
//                 note says so). The reader's M-RoPE step calls it (FamilySteps::mrope_section).
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/qwen4_exp.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "posenc/models/detail/families/family_config.hpp"
#include "posenc/models/detail/families/linear_attention.hpp"
#include "posenc/models/detail/hf_rope_values.hpp"

namespace posenc::hf::detail::families {

/// Qwen4-Exp's temporal section: the pairs height and width leave (see the file comment).
inline void qwen4_exp_mrope_section(HfRopeConfig& primary, const std::string& dict, const std::string& type_shown,
                                    std::vector<std::string>& notes)
{
    if (primary.mrope_section.size() != 3) return;
    const int rest = primary.rotary_dim / 2 - primary.mrope_section[1] - primary.mrope_section[2];
    if (rest == primary.mrope_section[0]) return;
    notes.push_back(dict + ".mrope_section[0]: model_type " + type_shown +
                    "'s code does not read it; the "
                    "temporal axis takes the other " +
                    std::to_string(rest) + " pairs");
    primary.mrope_section[0] = rest;
}

/// The rule for Qwen4-Exp's text model: the linear-attention hybrids' layer rule, and its M-RoPE sections.
inline FamilyConfig qwen4_exp_config(const json& text, const std::string& pre, const Family& family)
{
    FamilyConfig out = linear_attention_config(text, pre, family);
    out.steps.mrope_section = &qwen4_exp_mrope_section;
    return out;
}

}  // namespace posenc::hf::detail::families
