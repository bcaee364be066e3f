// SPDX-License-Identifier: MIT
// posenc/models/detail/families/phimoe.hpp: PhiMoE (phimoe/configuration_phimoe.py validate_rope,
// phimoe/modeling_phimoe.py, transformers 5.16).
//
//   LongRoPE whose forward pass keeps the short factors at every length and multiplies cos / sin by the
//   RoPE dict's short_mscale (n <= L0) or long_mscale (n > L0): the configuration class requires both
//   as numbers for every rope type but default; a longrope dict without one is refused, naming it
//   (other scaled types are refused by name in family_refusals). The group reader's scaling-keys step
//   calls the read (FamilySteps::scaling_keys). No layer rule: the config is read as it is.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/phimoe.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <string>

#include "posenc/models/detail/families/family_config.hpp"
#include "posenc/models/detail/hf_rope_values.hpp"

namespace posenc::hf::detail::families {

/// PhiMoE's short_mscale and long_mscale, under rope type longrope (see the file comment).
inline void phimoe_mscales(const json& dict, const std::string& dict_key, HfRopeConfig& out)
{
    if (out.rope_type != "longrope") return;
    for (const char* key : {"short_mscale", "long_mscale"}) {
        const std::string path = dict_key + "." + key;
        const json* v = member(dict, key);
        if (!v) fail(path, "expected a number (PhiMoE's configuration class requires it)", "nothing");
        (std::string(key) == "short_mscale" ? out.short_mscale : out.long_mscale) = number(*v, path);
    }
}

/// The rule for PhiMoE: the config as it is, and its mscales.
inline FamilyConfig phimoe_config(const json& text, const std::string&, const Family&)
{
    FamilyConfig out(text);
    out.steps.scaling_keys = &phimoe_mscales;
    return out;
}

}  // namespace posenc::hf::detail::families
