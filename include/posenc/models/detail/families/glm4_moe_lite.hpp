// SPDX-License-Identifier: MIT
// posenc/models/detail/families/glm4_moe_lite.hpp: GLM-4.7-Flash (glm4_moe_lite/configuration_glm4_moe_lite.py,
// transformers 5.16).
//
//   DeepSeek-V3's MLA (the row's traits), with head_dim an alias of qk_rope_head_dim (attribute_map
//   {"head_dim": "qk_rope_head_dim"}): either key gives the rotary width; both that disagree are
//   refused, naming head_dim (which one wins depends on the order Python sees them). The group
//   reader's MLA width step reads the alias (FamilySteps::qk_rope_head_dim_alias). No layer rule: the
//   config is read as it is.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/glm4_moe_lite.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <string>

#include "posenc/models/detail/families/family_config.hpp"

namespace posenc::hf::detail::families {

/// The rule for GLM-4.7-Flash: the config as it is, and its head_dim alias.
inline FamilyConfig glm4_moe_lite_config(const json& text, const std::string&, const Family&)
{
    FamilyConfig out(text);
    out.steps.qk_rope_head_dim_alias = "head_dim";
    return out;
}

}  // namespace posenc::hf::detail::families
