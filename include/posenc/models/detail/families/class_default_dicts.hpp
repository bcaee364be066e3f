// SPDX-License-Identifier: MIT
// posenc/models/detail/families/class_default_dicts.hpp: families of transformers 5.25.0 whose
// configuration class fills rope_parameters with one dict per layer type when the config has none,
// and whose rotary embedding builds one table per layer type from those dicts: Dory, UltraBERT and
// LFM3 (dory/, ultrabert/, lfm3/ configuration and modeling files).
//
//   Dory       layer_types as given; released configs list an attention block and an "mlp" block
//              per layer, which the class folds (layer_types[::2], num_hidden_layers // 2). Absent:
//              full_attention where (i + 1) % 4 == 0, else sliding_attention. Class-default dicts:
//              default at 10,000 (sliding_attention) and 10,000,000 (full_attention). Every layer
//              rotates; the recurrent section (n_recurrent_layers after n_input_layers) runs
//              n_recurrent_loops times per token at the same positions, with the same tables.
//   UltraBERT  layer_types as given, else from the legacy attention_windows (a window: sliding_attention,
//              0 or null: full_attention), else sliding_attention unless (i + 1) % 3 == 0. A legacy
//              rope_theta LIST (one base per layer) becomes the dicts {layer type: default at the
//              base of that type's last listed layer} when rope_parameters is absent (a single number
//              fails in transformers: refused, naming it). Class-default dicts: default at 10,000
//              (sliding_attention) and 2,560,000 (full_attention). A bidirectional encoder.
//   LFM3       layer_types as given (entries conv, sliding_attention, full_attention), else
//              full_attention where i % 4 == 2, sliding_attention where i % 4 == 0 and i > 0, conv
//              elsewhere; conv layers (short convolutions) have no RoPE. Class-default dicts: default
//              at 10,000 (sliding_attention) and proportional RoPE at 1,000,000 over half the head
//              (full_attention; rope type "proportional", hf_families.hpp
//              trait::proportional_full_attention).
//
// Given dicts are read as given: each layer type with RoPE needs a dict; one without rope_theta
// takes the top-level rope_theta (not UltraBERT's, which its class pops first), else the class's
// default_theta (LFM3 1,000,000, the others 10,000), as transformers 5.25.0's
// convert_rope_params_to_dict fills it; a single dict, or rope_scaling, is refused (the rotary
// embedding looks the dicts up by layer type, and fails on a single one); a top-level rope_theta
// beside dicts that all have their own is not read (a warning). The rule reads the class-default
// dicts from its record's hand row (default_rope in known_families) and default_theta from its
// generated class defaults (rope_theta).
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/class_default_dicts.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

#include "posenc/models/detail/families/family_config.hpp"
#include "posenc/models/detail/hf_layer_json.hpp"

namespace posenc::hf::detail::families {

namespace class_default_dicts_steps {

/// Dory's released layout (an "mlp" entry after each attention entry) folded as its class does.
inline void fold_dory_blocks(const json& text, const std::string& pre, const Family& family, FamilyConfig& out)
{
    const json* given = member(text, "layer_types");
    if (!given || !given->is_array()) return;
    bool has_mlp = false;
    for (const json& t : *given) has_mlp = has_mlp || (t.is_string() && t == "mlp");
    if (!has_mlp) return;
    json folded = json::array();
    for (std::size_t i = 0; i < given->size(); i += 2) folded.push_back((*given)[i]);
    const int n = layer_count(text, pre, family, out);
    out.text["layer_types"] = std::move(folded);
    out.text["num_hidden_layers"] = n / 2;
    out.notes.push_back(
        "layer_types lists attention and mlp blocks: folded to every other entry and num_hidden_layers // 2, "
        "as dory's configuration class does");
}

/// UltraBERT's legacy attention_windows, read into layer_types when those are absent.
inline void ultrabert_windows(const json& text, const std::string& pre, FamilyConfig& out)
{
    const json* windows = member(text, "attention_windows");
    if (!windows) return;
    if (!windows->is_array())
        fail_json(pre + "attention_windows", "expected a list of windows, one per layer", *windows);
    if (member(text, "layer_types")) return;
    json types = json::array();
    for (const json& w : *windows) {
        const bool window =
            !w.is_null() && !(w.is_number() && w.get<double>() == 0.0) && !(w.is_boolean() && !w.get<bool>());
        types.push_back(window ? "sliding_attention" : "full_attention");
    }
    out.text["layer_types"] = std::move(types);
    out.notes.push_back(
        "layer_types absent: from attention_windows (a window: sliding_attention), as ultrabert's class does");
}

/// The class pattern for `n` layers.
inline json default_layer_types(const std::string& model_type, int n)
{
    json types = json::array();
    for (int i = 0; i < n; ++i) {
        if (model_type == "dory") types.push_back((i + 1) % 4 == 0 ? "full_attention" : "sliding_attention");
        else if (model_type == "ultrabert") types.push_back((i + 1) % 3 != 0 ? "sliding_attention" : "full_attention");
        else types.push_back(i % 4 == 2 ? "full_attention" : (i % 4 == 0 && i > 0 ? "sliding_attention" : "conv"));
    }
    return types;
}

/// UltraBERT's legacy rope_theta list as dicts per layer type (zip(layer_types, rope_theta): the last
/// listed layer of a type wins).
inline json ultrabert_theta_dicts(const json& thetas, const json& types, const std::string& pre)
{
    if (!thetas.is_array())
        fail_json(pre + "rope_theta",
                  "expected a list of bases, one per layer: ultrabert's configuration class zips it "
                  "with layer_types (a single number fails there)",
                  thetas);
    json dicts = json::object();
    for (std::size_t i = 0; i < thetas.size() && i < types.size(); ++i) {
        if (!types[i].is_string()) continue;  // the reader refuses it, naming the entry
        dicts[types[i].get<std::string>()] = {
            {"rope_type", "default"}, {"rope_theta", number(thetas[i], pre + "rope_theta[" + std::to_string(i) + "]")}};
    }
    return dicts;
}

/// The base transformers 5.25.0 gives a dict without rope_theta (convert_rope_params_to_dict's
/// setdefault): the top-level rope_theta (UltraBERT's class pops it first), else the class's
/// default_theta from the record's generated class defaults (LFM3: 1,000,000; Dory, UltraBERT
/// declare none: PreTrainedConfig's 10,000).
inline double filled_base(const json& text, const std::string& pre, const Family& family, std::string& from)
{
    const std::string model_type(family.model_type);
    if (const json* v = member(text, "rope_theta"); v && model_type != "ultrabert") {
        from = "the top-level rope_theta";
        return number(*v, pre + "rope_theta");
    }
    from = model_type + "'s default_theta";
    const ClassDefaults* d = family.class_defaults;
    return d && d->rope_theta > 0.0 ? d->rope_theta : 10000.0;
}

/// Each layer type with RoPE has a dict (see the file comment); one without rope_theta gets
/// filled_base, with a note. True when the top-level rope_theta filled one.
inline bool complete_dicts(FamilyConfig& out, const json& text, const std::string& pre, const Family& family)
{
    const std::string model_type(family.model_type);
    json& dicts = out.text["rope_parameters"];
    bool used = false;
    if (!dicts.is_object() || !is_per_layer_type(&dicts))
        fail_json(pre + "rope_parameters",
                  "expected one dict per layer type: model_type \"" + model_type +
                      "\"'s rotary embedding looks its dicts up by layer type",
                  dicts);
    for (const json& t : out.text["layer_types"]) {
        if (!t.is_string() || t == "conv") continue;
        const std::string type = t.get<std::string>();
        json* dict = dicts.contains(type) ? &dicts[type] : nullptr;
        if (!dict || !dict->is_object())
            fail_json(pre + "rope_parameters",
                      "expected a dict for layer type \"" + type + "\": model_type \"" + model_type +
                          "\"'s rotary embedding looks its dicts up by layer type",
                      dicts);
        if (dict->contains("rope_theta")) continue;
        std::string from;
        (*dict)["rope_theta"] = filled_base(text, pre, family, from);
        used = used || from == "the top-level rope_theta";
        out.notes.push_back("rope_parameters." + type + ".rope_theta absent: " + from +
                            " (convert_rope_params_to_dict)");
    }
    return used;
}

}  // namespace class_default_dicts_steps

/// The rule for Dory, UltraBERT and LFM3 (see the file comment).
inline FamilyConfig class_default_dicts_config(const json& text, const std::string& pre, const Family& family)
{
    const std::string model_type(family.model_type);
    namespace d = class_default_dicts_steps;
    FamilyConfig out(text);
    if (const json* v = member(text, "rope_scaling"))
        fail_json(pre + "rope_scaling",
                  "expected no rope_scaling: model_type \"" + model_type +
                      "\" reads rope_parameters per layer type only",
                  *v);
    if (model_type == "dory") d::fold_dory_blocks(text, pre, family, out);
    if (model_type == "ultrabert") d::ultrabert_windows(text, pre, out);
    if (model_type == "lfm3") out.nope_layer_types.push_back("conv");
    if (!member(out.text, "layer_types")) {
        out.text["layer_types"] = d::default_layer_types(model_type, layer_count(out.text, pre, family, out));
        out.notes.push_back("layer_types absent: " + model_type + "'s class pattern");
    }
    const json* thetas = member(text, "rope_theta");
    if (!member(text, "rope_parameters")) {
        const bool from_list = model_type == "ultrabert" && thetas;
        out.text["rope_parameters"] = from_list ? d::ultrabert_theta_dicts(*thetas, out.text["layer_types"], pre)
                                                : json::parse(family.hand->default_rope);
        out.notes.push_back(
            from_list
                ? std::string("rope_parameters absent: one dict per layer type from the rope_theta list")
                : "rope_parameters absent: " + model_type + "'s class default " + out.text["rope_parameters"].dump());
        if (from_list) thetas = nullptr;
    }
    const bool theta_used = d::complete_dicts(out, text, pre, family);
    if (thetas && !theta_used)
        ignore_key(text, pre, model_type, "rope_theta", "keeps the per-layer-type dicts' own bases", out);
    out.text.erase("rope_theta");
    out.text.erase("attention_windows");
    return out;
}

}  // namespace posenc::hf::detail::families
