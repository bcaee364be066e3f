// SPDX-License-Identifier: MIT
// posenc/models/detail/families/olmo3.hpp: OLMo 3 (olmo3/configuration_olmo3.py,
// olmo3/modeling_olmo3.py, transformers 5.16).
//
//   layer_types      as given, else sliding_attention unless (i + 1) % 4 == 0
//   rope_parameters  one dict per layer type: read as the class completes them (full_attention's
//                    rope_theta, when absent, the top-level rope_theta, else 500000; sliding_attention's
//                    500000); a single dict is refused (the class looks its entries up by layer type and
//                    leaves it unread). Otherwise the rotary embedding builds
//                    one table per layer type from the one dict (groups named by layer type, equal
//                    tables). The configuration class moves a top-level rope_theta into
//                    full_attention's dict only and gives sliding_attention the class default 500000:
//                    a top-level rope_theta other than 500000 with sliding_attention layers and no
//                    rope_parameters is refused (transformers 4 gave every layer that value).
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/olmo3.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

#include "posenc/models/detail/families/family_config.hpp"
#include "posenc/models/detail/hf_layer_json.hpp"

namespace posenc::hf::detail::families {

/// The rule for OLMo 3 (see the file comment).
inline FamilyConfig olmo3_config(const json& text, const std::string& pre, const Family& family)
{
    const std::string model_type(family.model_type);
    FamilyConfig out(text);
    if (!member(text, "layer_types")) {
        const int n = layer_count(text, pre, family, out);
        out.text["layer_types"] = json::array();
        for (int i = 0; i < n; ++i)
            out.text["layer_types"].push_back((i + 1) % 4 != 0 ? "sliding_attention" : "full_attention");
    }
    require_dicts_per_layer_type(text, pre, model_type);
    if (const json* given = member(text, "rope_parameters")) {
        // configuration_olmo3.py completes the given dicts: a missing entry {"rope_type": "default"};
        // full_attention's rope_theta, when absent, pops the top-level rope_theta (class default 500000),
        // so sliding_attention's, when absent, is the class default 500000.
        json dicts = *given;
        complete_layer_type_dict(dicts, "full_attention", text, pre, "rope_theta", 500000.0);
        complete_layer_type_dict(dicts, "sliding_attention", text, pre, nullptr, 500000.0);
        out.text["rope_parameters"] = std::move(dicts);
        out.text.erase("rope_theta");
        return out;
    }
    const json& types = out.text["layer_types"];
    const bool sliding =
        types.is_array() && std::find(types.begin(), types.end(), json("sliding_attention")) != types.end();
    if (const json* theta = member(text, "rope_theta");
        theta && !(theta->is_number() && theta->get<double>() == 500000.0) && sliding)
        fail(pre + "rope_theta",
             "expected 500000 or per-layer-type rope_parameters: transformers gives only "
             "full_attention layers the top-level rope_theta and sliding_attention layers "
             "the class default 500000",
             shown(*theta));
    out.table_per_layer_type = true;
    return out;
}

}  // namespace posenc::hf::detail::families
