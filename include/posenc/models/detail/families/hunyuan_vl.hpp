// SPDX-License-Identifier: MIT
// posenc/models/detail/families/hunyuan_vl.hpp: HunYuan-VL's text model (HunyuanOCR;
// hunyuan_vl/configuration_hunyuan_vl.py convert_rope_params_to_dict, hunyuan_vl/modeling_hunyuan_vl.py,
// transformers 5.16).
//
//   XD-RoPE     rope type "xdrope" is read as "dynamic" (with alpha: HunYuan's static base change,
//               trait::hunyuan_alpha), with a note
//   sections    xdrope_section, an alias of mrope_section (1 to 4 axes); both present and different
//               is refused, naming mrope_section
//   layout      the doubled sections cut the head's coordinates, as transformers 5.x applies them
//               (MultiAxisLayout::coordinate_sections)
// The group reader's rope-type and scaling steps and the M-RoPE step call these (FamilySteps). No
// layer rule: the config is read as it is.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/hunyuan_vl.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstddef>
#include <string>

#include "posenc/models/detail/families/family_config.hpp"
#include "posenc/models/detail/hf_model_values.hpp"
#include "posenc/models/detail/hf_rope_values.hpp"

namespace posenc::hf::detail::families {

/// "xdrope" read as "dynamic" (FamilySteps::rope_type_alias).
inline void hunyuan_vl_rope_type(const std::string& type_key, HfRopeConfig& out)
{
    if (out.rope_type != "xdrope") return;
    out.notes.push_back(type_key + " \"xdrope\" is read as \"dynamic\" (HunYuan-VL's configuration class)");
    out.rope_type = "dynamic";
}

/// xdrope_section, an alias of mrope_section (FamilySteps::section_alias); mrope_section, when given,
/// is read after this.
inline void hunyuan_vl_xdrope_section(const json& dict, const std::string& dict_key, HfRopeConfig& out)
{
    const json* v = member(dict, "xdrope_section");
    if (!v) return;
    const std::string key = dict_key + ".xdrope_section";
    if (!v->is_array() || v->empty()) fail_json(key, "expected a list of positive integers", *v);
    if (const json* m = member(dict, "mrope_section")) {
        const auto same = [](const json& a, const json& b) {
            return a.is_number() && b.is_number() && a.get<double>() == b.get<double>();
        };
        if (!(m->is_array() && m->size() == v->size() && std::equal(m->begin(), m->end(), v->begin(), same)))
            fail(dict_key + ".mrope_section",
                 "expected the values of xdrope_section " + shown(*v) +
                     " (transformers refuses a config whose two sections differ)",
                 shown(*m));
        return;
    }
    for (std::size_t i = 0; i < v->size(); ++i)
        out.mrope_section.push_back(positive_int((*v)[i], key + "[" + std::to_string(i) + "]"));
}

/// The doubled sections cut the head's coordinates (FamilySteps::mrope_layout).
inline void hunyuan_vl_mrope_layout(MropeLayout& layout) { layout.coordinate_sections = true; }

/// The rule for HunYuan-VL's text model: the config as it is, and its XD-RoPE steps.
inline FamilyConfig hunyuan_vl_config(const json& text, const std::string&, const Family&)
{
    FamilyConfig out(text);
    out.steps.rope_type_alias = &hunyuan_vl_rope_type;
    out.steps.section_alias = &hunyuan_vl_xdrope_section;
    out.steps.mrope_layout = &hunyuan_vl_mrope_layout;
    return out;
}

}  // namespace posenc::hf::detail::families
