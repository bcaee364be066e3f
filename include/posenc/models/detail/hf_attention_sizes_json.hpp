// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_attention_sizes_json.hpp: the attention's sizes an engine reads with the
// RoPE (not used by the tables): num_attention_heads, num_key_value_heads, hidden_size,
// rms_norm_eps.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/hf_attention_sizes_json.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <initializer_list>
#include <optional>

#include "posenc/models/detail/hf_model_identity.hpp"
#include "posenc/models/hf_class_defaults.hpp"

namespace posenc::hf::detail {

/// The attention's sizes an engine needs beside the RoPE tables; empty when neither the config
/// nor the family's class defaults say them.
struct AttentionSizes {
    std::optional<int> num_attention_heads, num_key_value_heads, hidden_size;
    std::optional<double> rms_norm_eps;
};

/// Step 5: head counts, hidden size and rms_norm_eps: the config's value, else the family's class
/// default (hf_class_defaults.hpp), else empty (num_key_value_heads: else num_attention_heads).
inline AttentionSizes read_attention_sizes(const ModelIdentity& id)
{
    const json& text = id.text();
    const ClassDefaults* defaults = id.family ? id.row->class_defaults : nullptr;
    auto count = [&](std::initializer_list<const char*> keys, int class_default) -> std::optional<int> {
        for (const char* key : keys)
            if (const json* v = member(text, key)) return positive_int(*v, id.pre + key);
        if (class_default > 0) return class_default;
        return std::nullopt;
    };
    AttentionSizes out;
    out.num_attention_heads = count({"num_attention_heads", "n_head"}, defaults ? defaults->num_attention_heads : 0);
    out.num_key_value_heads = count({"num_key_value_heads"}, defaults ? defaults->num_key_value_heads : 0);
    if (!out.num_key_value_heads) out.num_key_value_heads = out.num_attention_heads;
    out.hidden_size = count({"hidden_size", "n_embd"}, defaults ? defaults->hidden_size : 0);
    if (const json* v = member(text, "rms_norm_eps")) {
        const double eps = number(*v, id.pre + "rms_norm_eps", "expected a finite number > 0");
        if (!(eps > 0.0)) fail_json(id.pre + "rms_norm_eps", "expected a finite number > 0", *v);
        out.rms_norm_eps = eps;
    } else if (defaults && defaults->rms_norm_eps > 0.0) {
        out.rms_norm_eps = defaults->rms_norm_eps;
    }
    return out;
}

}  // namespace posenc::hf::detail
