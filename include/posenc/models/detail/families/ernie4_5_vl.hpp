// SPDX-License-Identifier: MIT
// posenc/models/detail/families/ernie4_5_vl.hpp: ERNIE-4.5-VL's text model
// (ernie4_5_vl_moe/modeling_ernie4_5_vl_moe.py, transformers 5.16).
//
//   3-D RoPE: mrope_section [h, w, t] (default [22, 22, 20], the row's); the first h + w pairs
//   alternate height / width, the last t pairs follow time (MultiAxisLayout::height_width_alternating).
//   The reader's M-RoPE step calls the layout (FamilySteps::mrope_layout). No layer rule: the config is
//   read as it is.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/ernie4_5_vl.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <string>

#include "posenc/models/detail/families/family_config.hpp"
#include "posenc/models/detail/hf_model_values.hpp"

namespace posenc::hf::detail::families {

/// ERNIE-4.5-VL's M-RoPE layout (see the file comment).
inline void ernie4_5_vl_mrope_layout(MropeLayout& layout) { layout.height_width_alternating = true; }

/// The rule for ERNIE-4.5-VL's text model: the config as it is, and its M-RoPE layout.
inline FamilyConfig ernie4_5_vl_config(const json& text, const std::string&, const Family&)
{
    FamilyConfig out(text);
    out.steps.mrope_layout = &ernie4_5_vl_mrope_layout;
    return out;
}

}  // namespace posenc::hf::detail::families
