// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_attention_facts_json.hpp: the attention facts beside the RoPE
// (hf_attention_facts.hpp): the QK-norm of the model_type, switched by its config key, and the MLA
// sizes the config gives (v_head_dim, kv_lora_rank, q_lora_rank).
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/hf_attention_facts_json.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "posenc/models/detail/hf_model_identity.hpp"
#include "posenc/models/detail/hf_model_values.hpp"
#include "posenc/models/hf_attention_facts.hpp"

namespace posenc::hf::detail {

/// Step 5b: the QK-norm of the family (qk_norm_rules), on or off by its switch key (a bool; null
/// reads as false, as Python's `if` does), and the MLA sizes (positive integers; q_lora_rank may
/// be null: no query LoRA).
inline AttentionFactsConfig read_attention_facts(const ModelIdentity& id)
{
    AttentionFactsConfig out;
    const json& text = id.text();
    out.qk_norm_known = id.family != nullptr;
    if (const QkNormRule* r = id.family ? id.row->qk_norm : nullptr) {
        std::string source(r->source);
        bool on = true;
        if (!r->switch_key.empty()) {
            const std::string key(r->switch_key);
            on = r->switch_default;
            if (const json* v = member(text, key.c_str())) {
                if (!v->is_boolean() && !v->is_null()) fail_json(id.pre + key, "expected true, false or null", *v);
                on = v->is_boolean() && v->get<bool>();
                source += ", " + key + " " + (on ? "true" : "false");
            } else {
                source += ", " + key + " absent: class default " + (on ? "true" : "false");
            }
        }
        out.qk_norm.source = source;
        if (on) {
            out.qk_norm.kind = r->kind;
            out.qk_norm.scope = r->scope;
            out.qk_norm.place = r->place;
        }
    }
    const auto size = [&](const char* key, bool nullable) -> std::optional<int> {
        const json* v = member(text, key);
        if (!v || (nullable && v->is_null())) return std::nullopt;
        return positive_int(*v, id.pre + key);
    };
    out.v_head_dim = size("v_head_dim", false);
    out.kv_lora_rank = size("kv_lora_rank", false);
    out.q_lora_rank = size("q_lora_rank", true);
    return out;
}

}  // namespace posenc::hf::detail
