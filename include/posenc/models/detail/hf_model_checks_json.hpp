// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_model_checks_json.hpp: what the whole-model reader refuses or warns about
// before reading any value: other position encodings (ALiBi, dual chunk attention), the families
// refused by name (hf_families.hpp family_refusals), rope_interleave and the keys only a known
// family's code reads, and a model_type posenc does not know (ReadOptions::assume_half_split). One
// function per check, each reading the identity (hf_model_identity.hpp); check_model runs them.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/hf_model_checks_json.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "posenc/models/detail/hf_model_identity.hpp"
#include "posenc/models/hf_read_options.hpp"

namespace posenc::hf::detail {

/// ALiBi (Falcon, BLOOM, MPT) and position_embedding_type other than "rope".
inline void refuse_other_position_encodings(const ModelIdentity& id)
{
    const json& text = id.text();
    const std::string& pre = id.pre;
    // Falcon's alibi (also BLOOM- and MPT-style configs): attention biases instead of RoPE.
    if (const json* v = member(text, "alibi"); v && v->is_boolean() && v->get<bool>())
        fail(pre + "alibi",
             "expected false: ALiBi adds attention biases instead of rotating q and k, and posenc "
             "describes RoPE only",
             "true");
    // Qwen2.5-1M: dual chunk attention (vLLM's), which transformers does not implement: its qwen2 code
    // ignores the key and rotates as if it were absent, which is not what the model was trained for.
    if (const json* v = member(text, "dual_chunk_attention_config"))
        fail(pre + "dual_chunk_attention_config",
             "is not representable: dual chunk attention (Qwen2.5-1M) remaps positions per chunk, which "
             "transformers does not implement and posenc does not describe; remove the key to read the plain "
             "RoPE that transformers applies",
             shown(*v));
    if (const json* v = member(text, "position_embedding_type"); v && v->is_string() && v->get<std::string>() != "rope")
        fail(pre + "position_embedding_type", "expected \"rope\" (posenc describes RoPE only)", shown(*v));
}

/// The families posenc refuses, always or for some configs (hf_families.hpp family_refusals).
inline void apply_family_refusal(const ModelIdentity& id)
{
    const json& text = id.text();
    const std::string& pre = id.pre;
    const FamilyRefusal* refusal = id.row->refusal;
    if (!refusal) return;
    const std::string reason = std::string(refusal->reason) + " (" + std::string(refusal->source) + ")";
    if (refusal->when == RefuseWhen::always) {
        const std::string key(refusal->key);
        if (const json* v = member(text, key.c_str())) fail(pre + key, reason, shown(*v));
        fail(pre + "model_type", reason, id.type_shown);
    }
    // The single RoPE dict: rope_parameters, else rope_scaling (per-layer-type dicts say per
    // type what applies, and are read as given).
    const json* dict = id.rope_parameters();
    std::string dict_key = "rope_parameters";
    if (!dict || !dict->is_object()) dict = member(text, "rope_scaling"), dict_key = "rope_scaling";
    if (refusal->when == RefuseWhen::unless_zero) {
        // The config's dict, else the class default's value of the key (transformers fills a
        // missing dict with it).
        const std::string key(refusal->key);
        std::string shown_value = "nothing";
        std::string path = pre + (dict && dict->is_object() ? dict_key : std::string("rope_parameters")) + "." + key;
        bool zero = false;
        if (dict && dict->is_object()) {
            if (const json* v = member(*dict, key.c_str())) {
                zero = v->is_number() && v->get<double>() == 0.0;
                shown_value = shown(*v);
            }
        } else if (id.family && !id.family->default_rope.empty()) {
            const json class_default = json::parse(id.family->default_rope.begin(), id.family->default_rope.end());
            if (const json* v = member(class_default, key.c_str())) {
                zero = v->is_number() && v->get<double>() == 0.0;
                shown_value = shown(*v) + " (the class-default rope_parameters)";
            }
        }
        if (!zero) fail(path, reason, shown_value);
    }
    if (refusal->when != RefuseWhen::unless_zero && !id.per_layer_type() && dict && dict->is_object()) {
        const json* type = member(*dict, "rope_type");
        std::string type_key = dict_key + ".rope_type";
        if (!type) type = member(*dict, "type"), type_key = dict_key + ".type";
        const std::string t = type && type->is_string() ? type->get<std::string>() : "default";
        const bool longrope = t == "longrope" || t == "su";
        const bool refused = refusal->when == RefuseWhen::scaled                   ? t != "default"
                             : refusal->when == RefuseWhen::scaled_except_longrope ? t != "default" && !longrope
                                                                                   : longrope;
        if (refused) {
            const std::string key(refusal->key);
            if (const json* v = member(*dict, key.c_str())) fail(pre + dict_key + "." + key, reason, shown(*v));
            fail(pre + type_key, reason, shown(*type));
        }
    }
}

/// rope_interleave: read by the families whose code reads it (DeepSeek-V3); refused under an unknown model_type.
inline void check_rope_interleave(const ModelIdentity& id, ReadLog& log)
{
    const json& text = id.text();
    const std::string& pre = id.pre;
    // rope_interleave: read by the families whose code reads it (DeepSeek-V3); a boolean under a
    // model_type posenc does not know is refused (its code decides the pairing).
    if (const json* v = member(text, "rope_interleave"); v && v->is_boolean()) {
        if (!id.family)
            fail(pre + "rope_interleave",
                 "is read only for model types posenc knows; model_type " + id.type_shown +
                     " is not one, and how its code uses this key cannot be told from the config",
                 shown(*v));
        if (!id.family->has(trait::reads_rope_interleave))
            log.warnings.push_back(
                {pre + "rope_interleave", "model_type " + id.type_shown + "'s code does not read it; ignored"});
    }
}

/// Keys that only a known model's code gives a meaning: a family rule (families/) that reads one
/// takes it out of the config, so one still here is not read by the family's code.
inline void check_model_specific_keys(const ModelIdentity& id, ReadLog& log)
{
    const json& text = id.text();
    const std::string& pre = id.pre;
    for (const char* key : model_specific_keys) {
        if (!member(text, key)) continue;
        const std::string k = key;
        if (!id.family)
            fail(pre + k,
                 "is read only for model types posenc knows; model_type " + id.type_shown +
                     " is not one, and how its code uses this key cannot be told from the config",
                 shown(*member(text, key)));
        if (k != "sliding_window_pattern")
            log.warnings.push_back({pre + k, "model_type " + id.type_shown + "'s code does not read it; ignored"});
    }
}

/// A rope_parameters given per layer type to a known family whose code builds one table (families/
/// family_rules.hpp reads_dicts_per_layer_type): refused, naming rope_parameters.
inline void refuse_unread_dicts_per_layer_type(const ModelIdentity& id)
{
    const json* given = member(*id.given, "rope_parameters");
    if (!id.family || !is_per_layer_type(given) || families::reads_dicts_per_layer_type(*id.row)) return;
    fail(id.pre + "rope_parameters",
         "expected one dict: model_type " + id.type_shown +
             "'s rotary embedding builds one "
             "table, and transformers 5 does not apply a rope_parameters given per layer type "
             "there (it reads it as one dict of rope type default, or fails)",
         shown(*given));
}

/// A model_type posenc does not know: refused unless ReadOptions::assume_half_split.
inline void check_unknown_family(const ModelIdentity& id, const ReadOptions& options, ReadLog& log)
{
    const json& text = id.text();
    const std::string& pre = id.pre;
    if (id.family) return;
    if (const RoPEOutsideLanguage* tower = id.row->outside)
        fail(pre + "model_type",
             std::string("expected a language model's config: this is ") +
                 (tower->kind == TowerKind::vision
                      ? "a vision encoder's, whose RoPE runs over image patches or frames in 2-D or 3-D"
                  : tower->kind == TowerKind::audio
                      ? "an audio or speech model's (an encoder, vocoder or codec)"
                      : "a model outside language modelling (time series, image matching, or a "
                        "byte model's global transformer)") +
                 "; posenc describes the RoPE of language models' attention (read a multimodal model's text_config; "
                 "its towers with hf::read_vision_tower / hf::read_audio_tower, posenc-inspect --tower vision|audio)",
             id.type_shown);
    if (id.per_layer_type())
        fail(pre + "rope_parameters",
             "expected one dict for model_type " + id.type_shown +
                 " (per-layer-type RoPE is read only for model types posenc knows)",
             shown(*id.rope_parameters()));
    for (const char* dict_key : {"rope_parameters", "rope_scaling"})
        if (const json* d = member(text, dict_key); d && d->is_object())
            for (const char* k : {"mrope_section", "mrope_interleaved", "alpha"})
                if (const json* v = member(*d, k))
                    fail(pre + dict_key + "." + k,
                         "is read only for model types posenc knows; model_type " + id.type_shown +
                             " is not one, and how its code uses this key cannot be told from the config",
                         shown(*v));
    if (!id.model_type.empty() && !options.assume_half_split)
        fail(
            pre + "model_type",
            "expected a model type posenc knows (include/posenc/models/hf_families.hpp): the model's own code decides "
            "its pairing (rotate_half or interleaved) and class defaults, and the config does not say them; to read it "
            "with half_split pairing and generic defaults anyway, opt in with ReadOptions::assume_half_split "
            "(posenc-inspect --assume-half-split)",
            id.type_shown);
    log.warnings.push_back({pre + "model_type", id.type_shown + " is not a model type posenc knows; half_split "
                                                                "pairing (rotate_half) and generic defaults assumed"});
}

/// Step 3: every check above, in order.
inline void check_model(const ModelIdentity& id, const ReadOptions& options, ReadLog& log)
{
    refuse_other_position_encodings(id);
    apply_family_refusal(id);
    check_rope_interleave(id, log);
    check_model_specific_keys(id, log);
    refuse_unread_dicts_per_layer_type(id);
    check_unknown_family(id, options, log);
}

}  // namespace posenc::hf::detail
