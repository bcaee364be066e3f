// SPDX-License-Identifier: MIT
// posenc/models/detail/families/layer_rope_theta.hpp: a base per layer, 0 = no RoPE
// (layer_rope_theta): Granite-SWA and GraniteMoE-SWA (granite_swa/, granitemoe_swa/ modeling and
// configuration files), Muse Glimmer's text model (muse_glimmer/, transformers 5.16) and Muse Spark's
// (muse_spark/, transformers 5.25.0: the same rule).
//
//   Granite-SWA, GraniteMoE-SWA   one table per distinct non-zero value of layer_rope_theta: the
//                                 RoPE dict (rope_parameters, its scaling included) with that
//                                 rope_theta; layers at 0 have no RoPE. Class default: every layer at
//                                 rope_theta.
//   Muse Glimmer, Muse Spark      layers at 0 have no RoPE; every other layer uses the one table of
//                                 rope_parameters (a non-zero entry only says "rotate": its value is not
//                                 the table's base, and a warning says so where they differ). Class
//                                 default: 0 on every 4th layer counted back from the last. Without a
//                                 RoPE dict, the family row's class-default dict (Muse Spark: default at
//                                 500000), else default at rope_theta.
//
// The groups are named by what the model keys its tables by: "default" when there is one table,
// else "rope_theta=<value>"; the layers without RoPE carry the type "nope".
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/layer_rope_theta.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

#include "posenc/models/detail/families/family_config.hpp"
#include "posenc/models/hf_families.hpp"

namespace posenc::hf::detail::families {

/// The rule for layer_rope_theta (see the file comment).
inline FamilyConfig layer_rope_theta_config(const json& text, const std::string& pre, const Family& family)
{
    const std::string model_type(family.model_type);
    FamilyConfig out(text);
    const bool one_table = model_type == "muse_glimmer_text" || model_type == "muse_spark_text";
    const int n = layer_count(text, pre, family, out);
    // The RoPE dict every table starts from, with the base transformers' standardisation gives it.
    json dict = {{"rope_type", "default"}};
    if (const json* v = member(text, "rope_parameters"); v && v->is_object()) dict = *v;
    else if (const json* v = member(text, "rope_scaling"); v && v->is_object()) dict = *v;
    else if (family.hand && !family.hand->default_rope.empty())
        dict = json::parse(family.hand->default_rope);  // the class-default dict (Muse Spark: default at 500000)
    double base = 10000.0;
    if (const json* v = member(dict, "rope_theta")) base = number(*v, pre + "rope_parameters.rope_theta");
    else if (const json* v = member(text, "rope_theta")) base = number(*v, pre + "rope_theta");
    dict["rope_theta"] = base;

    std::vector<double> thetas;
    if (const json* list = member(text, "layer_rope_theta")) {
        if (!list->is_array() || list->size() != static_cast<std::size_t>(n))
            fail_json(pre + "layer_rope_theta", "expected one base per layer (" + std::to_string(n) + "; 0 = no RoPE)",
                      *list);
        for (std::size_t i = 0; i < list->size(); ++i) {
            const std::string path = pre + "layer_rope_theta[" + std::to_string(i) + "]";
            const double t = number((*list)[i], path, "expected 0 (no RoPE) or a base > 1");
            if (t != 0.0 && !(t > 1.0)) fail_json(path, "expected 0 (no RoPE) or a base > 1", (*list)[i]);
            thetas.push_back(t);
            if (one_table && t != 0.0 && t != base)
                out.warnings.push_back({path, "model_type \"" + model_type +
                                                  "\" rotates every layer with a non-zero entry by "
                                                  "the one table of rope_parameters (base " +
                                                  posenc::detail::format_value(base) +
                                                  "); this value only says that the layer rotates"});
        }
    } else {
        for (int i = 0; i < n; ++i) thetas.push_back(one_table && (n - 1 - i) % 4 == 0 ? 0.0 : base);
        out.notes.push_back(
            "layer_rope_theta absent: " + model_type + "'s class default" +
            (one_table ? " (0 on every 4th layer counted back from the last)" : " (rope_theta on every layer)"));
    }
    std::set<double> distinct;
    for (double t : thetas)
        if (t != 0.0) distinct.insert(one_table ? base : t);
    auto type_of = [&](double t) -> std::string {
        if (t == 0.0) return "nope";
        if (one_table || distinct.size() == 1) return "default";
        return "rope_theta=" + posenc::detail::format_value(t);
    };
    json types = json::array();
    json dicts = json::object();
    for (double t : thetas) {
        const std::string name = type_of(t);
        types.push_back(name);
        if (name == "nope" || dicts.contains(name)) continue;
        dicts[name] = dict;
        if (!one_table) dicts[name]["rope_theta"] = t;
    }
    out.text["layer_types"] = std::move(types);
    out.text["rope_parameters"] = std::move(dicts);
    out.nope_layer_types.push_back("nope");
    for (const char* key : {"rope_scaling", "rope_theta", "layer_rope_theta"}) out.text.erase(key);
    return out;
}

}  // namespace posenc::hf::detail::families
