// SPDX-License-Identifier: MIT
// posenc/models/detail/families/linear_attention.hpp: hybrids of linear attention (Gated DeltaNet)
// and full attention, where only full_attention layers rotate: Qwen3-Next, Qwen3.5 and Qwen3.5-MoE
// (qwen3_next/, qwen3_5/, qwen3_5_moe/ configuration files), OLMo Hybrid (olmo_hybrid/,
// transformers 5.16) and Bailing hybrid (bailing_hybrid/, transformers 5.25.0: MLA full-attention
// layers, its linear-attention layers take no position embeddings).
//
//   layer_types   as given, with the legacy names renamed as the configuration classes do
//                 (remap_legacy_layer_types: "mamba" and "conv" are linear_attention, "attention"
//                 full_attention); an entry other than linear_attention / full_attention is refused,
//                 naming it; else linear_attention unless (i + 1) % full_attention_interval == 0
//                 (default 4; OLMo Hybrid: always 4, and its last layer full_attention when no layer
//                 would be; Bailing hybrid: every layer_group_size-th, default 6)
//   RoPE          linear_attention layers have none; full_attention layers the one table
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/linear_attention.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <string>

#include "posenc/models/detail/families/family_config.hpp"
#include "posenc/models/detail/hf_layer_json.hpp"

namespace posenc::hf::detail::families {

/// The rule for the linear-attention hybrids (see the file comment).
inline FamilyConfig linear_attention_config(const json& text, const std::string& pre, const Family& family)
{
    const std::string model_type(family.model_type);
    FamilyConfig out(text);
    out.nope_layer_types.push_back("linear_attention");
    const bool qwen4 = model_type == "qwen4_exp_text";
    if (qwen4)
        out.notes.push_back(
            "model_type \"qwen4_exp_text\" has a QSA indexer (queries rotate their first rotary_dim dims; "
            "keys mean-pooled per block of indexer_compress_ratio tokens, RMS-normed and rotated at the "
            "block's first position): see indexer");
    if (const json* given = member(text, "layer_types")) {
        if (!given->is_array()) return out;  // the reader refuses it, naming layer_types
        json& types = out.text["layer_types"];
        for (std::size_t i = 0; i < types.size(); ++i) {
            json& t = types[i];
            if (!t.is_string()) continue;  // the reader refuses it, naming the entry
            if (t == "mamba" || t == "conv") t = "linear_attention";
            if (t == "attention") t = "full_attention";
            if (qwen4 && t == "full_attention") t = "indexed_attention";  // its class renames them
            if (t != "linear_attention" && t != (qwen4 ? "indexed_attention" : "full_attention"))
                fail(pre + "layer_types[" + std::to_string(i) + "]",
                     std::string("expected \"linear_attention\" or \"") +
                         (qwen4 ? "indexed_attention" : "full_attention") + "\" for model_type \"" + model_type + "\"",
                     '"' + t.get<std::string>() + '"');
        }
        return out;
    }
    const int n = layer_count(text, pre, family, out);
    const bool olmo = model_type == "olmo_hybrid";
    const bool bailing = model_type == "bailing_hybrid";
    const char* const interval_key = bailing ? "layer_group_size" : "full_attention_interval";
    const int every = olmo ? 4 : pattern_value(text, interval_key, bailing ? 6 : 4, pre);
    json types = json::array();
    bool any_full = false;
    for (int i = 0; i < n; ++i) {
        const bool full = (i + 1) % every == 0;
        any_full = any_full || full;
        types.push_back(full ? (qwen4 ? "indexed_attention" : "full_attention") : "linear_attention");
    }
    if (olmo && !any_full && n > 0) types.back() = "full_attention";  // "at least one full attention layer"
    out.text["layer_types"] = std::move(types);
    out.text.erase(interval_key);
    return out;
}

}  // namespace posenc::hf::detail::families
