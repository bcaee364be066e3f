// SPDX-License-Identifier: MIT
// posenc/models/detail/families/own_rope_keys.hpp: encoders that switch RoPE on with a key of their
// own and size it from their own fields (transformers 5.16):
//
//   wav2vec2-bert, wav2vec2-conformer   position_embeddings_type "rotary" (class defaults "relative_key"
//                                       / "relative": not RoPE, refused naming the key); base
//                                       rotary_embedding_base (10000); head hidden_size //
//                                       num_attention_heads; length max_source_positions (5000)
//   seamless_m4t (its speech encoder)   the same keys; head hidden_size // speech_encoder_attention_heads;
//                                       length max_source_positions (4096)
//   esm                                 position_embedding_type "rotary" (class default "absolute":
//                                       refused); base 10000; head hidden_size // num_attention_heads
//   clvp_encoder                        use_rotary_embedding (default true; false: refused); base 10000;
//                                       the first max(projection_dim // (2 num_attention_heads), 32) dims of
//                                       each head rotate
//   moonshine                           the decoder's keys (attribute_map): num_attention_heads is
//                                       decoder_num_attention_heads, num_hidden_layers decoder_num_hidden_layers
//   roformer                            always RoPE (RoFormerSinusoidalPositionalEmbedding, base 10000, interleaved
//                                       pairs); rotary_value true (values rotated too) is refused: posenc describes
//                                       the rotation of queries and keys
//
// The result is the canonical config: rope_parameters {"rope_type": "default", "rope_theta": base},
// head_dim, partial_rotary_factor where part of the head rotates, max_position_embeddings.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/own_rope_keys.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

#include "posenc/models/detail/families/family_config.hpp"

namespace posenc::hf::detail::families {

namespace own_rope_keys_steps {

/// text[key] as a positive int, else `class_default`.
inline int size_or(const json& text, const std::string& pre, const char* key, int class_default)
{
    if (const json* v = member(text, key)) return positive_int(*v, pre + key);
    return class_default;
}

/// Refuses unless text[key] (else `class_default`) is `rotary`.
inline void require_value(const json& text, const std::string& pre, const std::string& model_type, const char* key,
                          const char* class_default, const char* rotary)
{
    const json* v = member(text, key);
    const std::string value =
        v && v->is_string() ? v->get<std::string>() : (v ? std::string() : std::string(class_default));
    if (value != rotary)
        fail(pre + key,
             std::string("expected \"") + rotary + "\": model_type \"" + model_type + "\" rotates only then (\"" +
                 value + "\" is another position encoding, which posenc does not describe" +
                 (v ? "" : "; it is the class default") + ")",
             v ? shown(*v) : '"' + value + '"');
}

}  // namespace own_rope_keys_steps

/// The rule for the encoders above (see the file comment).
inline FamilyConfig own_rope_keys_config(const json& text, const std::string& pre, const Family& family)
{
    const std::string model_type(family.model_type);
    using namespace own_rope_keys_steps;
    FamilyConfig out(text);
    const ClassDefaults* d = family.class_defaults;
    const int hidden = size_or(text, pre, "hidden_size", d ? d->hidden_size : 0);
    double base = 10000.0;
    if (model_type == "moonshine") {
        for (const char* key : {"num_attention_heads", "num_hidden_layers", "num_key_value_heads"}) {
            const std::string decoder_key = "decoder_" + std::string(key);
            if (const json* v = member(text, decoder_key.c_str())) out.text[key] = *v;
        }
        return out;
    }
    int heads = 0;
    if (model_type == "wav2vec2-bert" || model_type == "wav2vec2-conformer" || model_type == "seamless_m4t") {
        require_value(text, pre, model_type, "position_embeddings_type",
                      model_type == "wav2vec2-bert" ? "relative_key" : "relative", "rotary");
        if (const json* v = member(text, "rotary_embedding_base")) base = number(*v, pre + "rotary_embedding_base");
        const char* heads_key = model_type == "seamless_m4t" ? "speech_encoder_attention_heads" : "num_attention_heads";
        heads = size_or(text, pre, heads_key, model_type == "seamless_m4t" ? 16 : (d ? d->num_attention_heads : 0));
        out.text["max_position_embeddings"] =
            size_or(text, pre, "max_source_positions", model_type == "seamless_m4t" ? 4096 : 5000);
        out.text.erase("position_embeddings_type");
    } else if (model_type == "roformer") {
        if (const json* v = member(text, "rotary_value"); v && !(v->is_boolean() && !v->get<bool>()))
            fail_json(pre + "rotary_value",
                      "expected false: RoFormer then rotates the values too, and posenc describes the "
                      "rotation of queries and keys only",
                      *v);
        heads = size_or(text, pre, "num_attention_heads", d ? d->num_attention_heads : 0);
        out.text.erase("rotary_value");
    } else if (model_type == "esm") {
        require_value(text, pre, model_type, "position_embedding_type", "absolute", "rotary");
        heads = size_or(text, pre, "num_attention_heads", d ? d->num_attention_heads : 0);
        out.text.erase("position_embedding_type");
    } else {  // clvp_encoder
        if (const json* v = member(text, "use_rotary_embedding"); v && !(v->is_boolean() && v->get<bool>()))
            fail_json(pre + "use_rotary_embedding",
                      "expected true: model_type \"" + model_type + "\" rotates only then", *v);
        heads = size_or(text, pre, "num_attention_heads", d ? d->num_attention_heads : 0);
        const int projection = size_or(text, pre, "projection_dim", 768);
        if (heads > 0 && hidden / heads > 0) {
            const int rotary = std::max(projection / (2 * heads), 32);
            out.text["partial_rotary_factor"] = static_cast<double>(rotary) / static_cast<double>(hidden / heads);
        }
        out.text.erase("use_rotary_embedding");
    }
    if (hidden <= 0 || heads <= 0)
        fail(pre + "hidden_size", "expected a positive integer (the head is hidden_size // heads)", "nothing");
    out.text["head_dim"] = hidden / heads;
    out.text["rope_parameters"] = {{"rope_type", "default"}, {"rope_theta", base}};
    out.text.erase("rotary_embedding_base");
    return out;
}

}  // namespace posenc::hf::detail::families
