// SPDX-License-Identifier: MIT
// posenc/models/hf_audio_tower.hpp: read an audio tower's RoPE out of a Hugging Face config.json,
// as users have it: a model's config with the tower nested (glmasr's, pe_audio's, dots3_note's and
// nemotron3_diarization's `audio_config`, lasr_ctc's `encoder_config`,
// nemotron3_5_transcribe_audio's `asr_config`) or a tower's own config (audio_tower_rows).
//
// Every audio tower posenc reads applies a 1-D RoPE over its frames (transformers' rotary module,
// cos/sin of position x inv_freq, inv_freq_i = theta^(-2i / rotary_dim)): one RopeGroup, given as a
// ModelRope with one group ("default") and no layer map. What is read, per tower (the
// configuration class's defaults when a key is absent, as transformers fills them; the row's
// fields say which rule applies):
//   head_dim   head_dim, else hidden_size / num_attention_heads (integer division);
//              pe_audio_encoder's class default head_dim is 128; dots3_note_audio_encoder's class
//              overwrites head_dim with hidden_size / num_attention_heads (a warning names it);
//   rotary     the whole head, except the towers that read partial_rotary_factor (glmasr_encoder,
//              dots3_note_audio_encoder: class default 0.5; nemotron3_diarization_audio: 1;
//              nemotron3_5_transcribe_asr_audio: 0.5 without rope_parameters, else 1):
//              int(head_dim x factor), the factor from rope_parameters, else a top-level key (which
//              nemotron3_5_transcribe_asr_audio ignores without rope_parameters). The other towers'
//              rotary modules do not read the factor (a warning says so);
//   theta      rope_parameters.rope_theta, else a top-level rope_theta, else 10,000. Without
//              rope_parameters, pe_audio_encoder's class sets 20,000 and
//              nemotron3_5_transcribe_asr_audio's 10,000 before a top-level rope_theta is read,
//              which is then ignored (a warning says so);
//   pairing    half_split (rotate_half), except pe_audio_encoder: interleaved (its apply
//              multiplies adjacent (2i, 2i + 1) pairs by a 2 x 2 rotation of frequency i);
//   positions  the frame index from 0 (`torch.arange` over the frames the tower is given, after
//              its subsampling or patching); mimi and pocket_tts_audio_tokenizer add the frames
//              their streaming cache has seen (past_seen_tokens), so a chunk's first frame is at
//              that offset.
// A rope_type other than "default" is refused (posenc reads no scaled RoPE in an audio tower).
// Refused, naming model_type (posenc::error): the audio model_types transformers lists whose
// attention applies no RoPE posenc can represent (audio_tower_refusals says why, each), and a
// config without an audio tower.
#pragma once

#define POSENC_MODELS_DETAIL_ALLOWED 1  // this public header may include posenc/models/detail/*.hpp
#include "posenc/models/detail/hf_json_values.hpp"
#include "posenc/models/detail/hf_model_reader.hpp"
#include "posenc/models/hf_config_file.hpp"
#include "posenc/models/hf_read_options.hpp"
#include "posenc/model_rope.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace posenc::hf {

/// Where an audio tower's frame positions start.
enum class AudioPositions {
    frames_from_zero,  ///< 0, 1, 2, ... over the tower's frames, every call
    frames_from_cache_offset  ///< past_seen_tokens + 0, 1, 2, ...: a streaming cache's offset (mimi)
};

/// "frames_from_zero" or "frames_from_cache_offset".
inline const char* to_string(AudioPositions p) noexcept
{
    return p == AudioPositions::frames_from_zero ? "frames_from_zero" : "frames_from_cache_offset";
}

/// An audio tower posenc reads: its model_type, the wrapper whose default tower it is and the key
/// that nests it, and its configuration class's defaults (configuration_<model>.py).
struct AudioTowerRow {
    std::string_view model_type;
    std::string_view wrapper;  ///< the model_type whose config nests this tower ("" for none)
    std::string_view nest_key;  ///< "audio_config", "encoder_config", "asr_config" ("" for none)
    int default_hidden;
    int default_heads;
    int default_head_dim;  ///< > 0: the class default; 0: hidden_size / num_attention_heads;
        ///< -1: hidden_size / num_attention_heads whatever head_dim says
    double default_theta;  ///< theta when rope_parameters is absent
    bool top_level_theta_without_parameters;  ///< a top-level rope_theta counts when rope_parameters is absent
    double partial_without_parameters;  ///< the factor when rope_parameters is absent; 0: the factor is not read
    double partial_in_parameters;  ///< the factor when rope_parameters has none (and no top-level one)
    bool
        top_level_partial_without_parameters;  ///< a top-level partial_rotary_factor counts when rope_parameters is absent
    std::int64_t default_max_positions;
    Pairing pairing;
    AudioPositions positions;
};

/// The audio towers posenc reads (their rotary modules and attention in modeling_<model>.py;
/// the last four are transformers 5.25.0's).
inline constexpr AudioTowerRow audio_tower_rows[] = {
    {"mimi", "", "", 512, 8, 0, 10000.0, true, 0.0, 0.0, false, 8000, Pairing::half_split,
     AudioPositions::frames_from_cache_offset},
    {"glmasr_encoder", "glmasr", "audio_config", 1280, 20, 0, 10000.0, true, 0.5, 0.5, true, 1500, Pairing::half_split,
     AudioPositions::frames_from_zero},
    {"lasr_encoder", "lasr_ctc", "encoder_config", 512, 8, 0, 10000.0, true, 0.0, 0.0, false, 10000,
     Pairing::half_split, AudioPositions::frames_from_zero},
    {"pe_audio_encoder", "pe_audio", "audio_config", 1792, 14, 128, 20000.0, false, 0.0, 0.0, false, 10000,
     Pairing::interleaved, AudioPositions::frames_from_zero},
    {"dots3_note_audio_encoder", "dots3_note", "audio_config", 1280, 20, -1, 10000.0, true, 0.5, 0.5, true, 6000,
     Pairing::half_split, AudioPositions::frames_from_zero},
    {"nemotron3_5_transcribe_asr_audio", "nemotron3_5_transcribe_audio", "asr_config", 1280, 10, 0, 10000.0, false, 0.5,
     1.0, false, 5000, Pairing::half_split, AudioPositions::frames_from_zero},
    {"nemotron3_diarization_audio", "nemotron3_diarization", "audio_config", 512, 8, 0, 10000.0, true, 1.0, 1.0, true,
     5000, Pairing::half_split, AudioPositions::frames_from_zero},
    {"pocket_tts_audio_tokenizer", "", "", 512, 8, 0, 10000.0, true, 0.0, 0.0, false, 8000, Pairing::half_split,
     AudioPositions::frames_from_cache_offset},
};

/// An audio model_type that transformers' sweep lists beside the RoPE towers, and why posenc
/// does not read it as one.
struct AudioTowerRefusal {
    std::string_view model_type;
    std::string_view why;
};

/// Audio model_types refused by name (read from their modeling files at transformers decba1d2).
inline constexpr AudioTowerRefusal audio_tower_refusals[] = {
    {"gemma3n_audio", "its conformer attention adds a relative position term (sinusoids of the key-query distance, "
                      "Transformer-XL style), not RoPE"},
    {"gemma4_audio", "its conformer attention adds a relative position term (sinusoids of the key-query distance), "
                     "not RoPE"},
    {"gemma4_unified_audio", "no audio encoder: its embedder projects raw waveform frames into the text model, "
                             "whose RoPE places them (the text model's config)"},
    {"phi4_multimodal_audio", "its conformer attention adds a learned relative attention bias (clipped distance "
                              "buckets), not RoPE"},
    {"qwen2_5_omni_audio_encoder", "it adds absolute sinusoidal position embeddings to its frames; its attention "
                                   "applies no RoPE"},
    {"qwen3_omni_moe_audio_encoder", "it adds absolute sinusoidal position embeddings to its frames; its attention "
                                     "applies no RoPE"},
    {"moonshine_streaming_encoder", "its encoder attention has no position encoding (the model's RoPE is its "
                                    "decoder's, model_type moonshine_streaming)"},
    {"qwen2_5_omni_bigvgan", "a convolutional vocoder: no attention, no RoPE"},
    {"qwen2_5_omni_dit", "its attention rotates the first head only (interleaved pairs) and leaves the other heads "
                         "unrotated; posenc's RopeSpec rotates every head"},
    {"qwen2_5_omni_token2wav", "its DiT (dit_config, model_type qwen2_5_omni_dit) rotates the first head only; "
                               "posenc's RopeSpec rotates every head"},
    {"neucodec", "its rotary positions are the attention head indices 0..num_attention_heads - 1, the same for every "
                 "frame (as XCodec2: the rotation cancels in q . k): no position over frames"},
    {"muse_spark_audio", "a causal convolutional encoder without attention: no RoPE"},
    {"xcodec2", "its rotary positions are the attention head indices 0..num_attention_heads - 1, the same for every "
                "frame (q and k of a head turn by the same angle, which cancels in q . k): no position over frames"},
};

/// An audio tower read from a config: its model_type, where it was found ("audio_config." or ""),
/// its RoPE (one group "default", no layer map), the head width its attention splits q and k
/// into, where its positions start, and what transformers ignores in the config.
struct HfAudioTower {
    std::string model_type;
    std::string key_prefix;
    ModelRope rope;
    int head_dim;
    AudioPositions positions;
    std::vector<ConfigWarning> warnings;

    /// The one RoPE group every layer of the tower uses.
    const RopeGroup& group() const { return rope.groups().front(); }
};

namespace detail::audio_tower {

using detail::fail;
using detail::fail_json;
using detail::json;
using detail::member;
using detail::shown;

inline const AudioTowerRow* find_row(std::string_view model_type)
{
    for (const AudioTowerRow& r : audio_tower_rows)
        if (r.model_type == model_type) return &r;
    return nullptr;
}

inline const AudioTowerRefusal* find_refusal(std::string_view model_type)
{
    for (const AudioTowerRefusal& r : audio_tower_refusals)
        if (r.model_type == model_type) return &r;
    return nullptr;
}

inline std::string type_of(const json& object, const std::string& pre)
{
    const json* v = member(object, "model_type");
    if (!v) return {};
    if (!v->is_string()) fail_json(pre + "model_type", "expected a string", *v);
    return v->get<std::string>();
}

/// The tower object, its key prefix and its model_type: the wrapper's nest key (its model_type
/// defaulting to the wrapper's tower), else the config itself.
struct Located {
    const json* tower;
    std::string prefix;
    std::string model_type;
};

inline Located locate(const json& config)
{
    if (!config.is_object()) fail_json("config", "expected a JSON object", config);
    const std::string outer = type_of(config, "");
    for (const AudioTowerRow& r : audio_tower_rows) {
        if (r.wrapper.empty() || r.wrapper != outer) continue;
        const std::string key(r.nest_key);
        const json* nested = member(config, key.c_str());
        static const json no_keys = json::object();  // the class builds its default tower
        if (!nested) return {&no_keys, key + ".", std::string(r.model_type)};
        if (!nested->is_object()) fail_json(key, "expected an object (the audio tower's config)", *nested);
        const std::string inner = type_of(*nested, key + ".");
        return {nested, key + ".", inner.empty() ? std::string(r.model_type) : inner};
    }
    for (const char* key : {"audio_config", "encoder_config"})
        if (const json* nested = member(config, key); nested && nested->is_object())
            if (const std::string inner = type_of(*nested, std::string(key) + "."); !inner.empty())
                return {nested, std::string(key) + ".", inner};
    return {&config, "", outer};
}

[[noreturn]] inline void refuse(const std::string& path, const std::string& model_type)
{
    if (const AudioTowerRefusal* r = find_refusal(model_type))
        fail(path, "names an audio model posenc does not read as a RoPE tower: " + std::string(r->why),
             "\"" + model_type + "\"");
    fail(path,
         "expected an audio tower whose code applies RoPE (audio_tower_rows in posenc/models/hf_audio_tower.hpp "
         "lists them: mimi, glmasr_encoder, lasr_encoder, pe_audio_encoder, ...)",
         model_type.empty() ? "(absent)" : "\"" + model_type + "\"");
}

inline int positive_or(const json& tower, const char* key, int fallback, const std::string& pre)
{
    const json* v = member(tower, key);
    return v ? detail::positive_int(*v, pre + key) : fallback;
}

/// The head: head_dim (absent or null: the class default, else hidden_size / num_attention_heads;
/// a tower whose class overwrites head_dim names it in a warning).
inline int head_of(const json& tower, const AudioTowerRow& row, const std::string& pre,
                   std::vector<ConfigWarning>& warnings)
{
    const json* h = member(tower, "head_dim");
    if (h && row.default_head_dim >= 0) return detail::positive_int(*h, pre + "head_dim");
    if (row.default_head_dim > 0) return row.default_head_dim;
    const int hidden = positive_or(tower, "hidden_size", row.default_hidden, pre);
    const int heads = positive_or(tower, "num_attention_heads", row.default_heads, pre);
    if (hidden / heads < 2)
        fail(pre + "hidden_size", "expected hidden_size / num_attention_heads >= 2",
             std::to_string(hidden) + " / " + std::to_string(heads));
    if (h && !(h->is_number() && h->get<double>() == hidden / heads))
        warnings.push_back({pre + "head_dim", shown(*h) + " is ignored: " + std::string(row.model_type) +
                                                  "'s class sets head_dim = hidden_size / num_attention_heads = " +
                                                  std::to_string(hidden / heads)});
    return hidden / heads;
}

/// Where transformers 5.25.0 reads a tower's theta differently from decba1d2, whose rule the
/// reader follows: pe_audio_encoder's class there has default_theta 20,000 and no rope_parameters of
/// its own, so a top-level rope_theta counts and a rope_parameters without rope_theta gets 20,000.
inline bool theta_rule_changed_in_5_25(std::string_view model_type) { return model_type == "pe_audio_encoder"; }

/// theta and the rope_parameters object (nullptr when absent); a rope_type other than "default"
/// is refused.
inline double theta_of(const json& tower, const AudioTowerRow& row, const std::string& pre,
                       std::vector<ConfigWarning>& warnings)
{
    const json* params = member(tower, "rope_parameters");
    const json* top = member(tower, "rope_theta");
    if (const json* legacy = member(tower, "rope_scaling"))
        fail_json(pre + "rope_scaling", "expected none: posenc reads no scaled RoPE in an audio tower", *legacy);
    if (!params) {
        if (top && row.top_level_theta_without_parameters) return detail::number(*top, pre + "rope_theta");
        if (top)
            warnings.push_back(
                {pre + "rope_theta",
                 shown(*top) + " is ignored: without rope_parameters " + std::string(row.model_type) +
                     "'s class sets theta " + std::to_string(static_cast<long long>(row.default_theta)) +
                     (theta_rule_changed_in_5_25(row.model_type) ? " (at transformers decba1d2; 5.25.0 reads it)"
                                                                 : "")});
        return row.default_theta;
    }
    if (!params->is_object()) fail_json(pre + "rope_parameters", "expected an object", *params);
    for (const auto& item : params->items()) {
        const std::string& k = item.key();
        if (k == "rope_type" || k == "rope_theta" || k == "partial_rotary_factor" || item.value().is_null()) continue;
        if (item.value().is_object())
            fail_json(pre + "rope_parameters." + k,
                      "expected one RoPE dict: an audio tower's rotary module reads no per-layer-type parameters",
                      item.value());
        warnings.push_back({pre + "rope_parameters." + k, shown(item.value()) + " is not read: the default RoPE of " +
                                                              std::string(row.model_type) +
                                                              " uses rope_theta (and partial_rotary_factor) only"});
    }
    if (const json* type = member(*params, "rope_type");
        type && !(type->is_string() && type->get<std::string>() == "default"))
        fail_json(pre + "rope_parameters.rope_type",
                  "expected \"default\": posenc reads no scaled RoPE in an audio tower", *type);
    if (const json* t = member(*params, "rope_theta")) return detail::number(*t, pre + "rope_parameters.rope_theta");
    if (top) return detail::number(*top, pre + "rope_theta");
    if (theta_rule_changed_in_5_25(row.model_type))
        warnings.push_back(
            {pre + "rope_parameters", "has no rope_theta: transformers decba1d2 fills 10000 (read here); "
                                      "5.25.0 fills " +
                                          std::string(row.model_type) + "'s 20000"});
    return 10000.0;  // transformers' default theta fills a rope_parameters without one
}

/// The rotated width: int(head x partial_rotary_factor) for a tower that reads the factor (from
/// rope_parameters, else a top-level key where the class lets it count, else the class's), else
/// the head (a factor in the config is named in a warning).
inline int rotary_of(const json& tower, const AudioTowerRow& row, int head, const std::string& pre,
                     std::vector<ConfigWarning>& warnings)
{
    const json* params = member(tower, "rope_parameters");
    const json* in_params = params && params->is_object() ? member(*params, "partial_rotary_factor") : nullptr;
    const json* top = member(tower, "partial_rotary_factor");
    const std::string type(row.model_type);
    if (row.partial_without_parameters == 0.0) {
        if (in_params)
            warnings.push_back(
                {pre + "rope_parameters.partial_rotary_factor",
                 shown(*in_params) + " is ignored: " + type + "'s rotary module rotates the whole head"});
        if (top)
            warnings.push_back({pre + "partial_rotary_factor",
                                shown(*top) + " is ignored: " + type + "'s rotary module rotates the whole head"});
        return head;
    }
    const bool top_counts = params || row.top_level_partial_without_parameters;
    if (top && !in_params && !top_counts)
        warnings.push_back({pre + "partial_rotary_factor", shown(*top) + " is ignored: without rope_parameters " +
                                                               type + "'s class sets its own (partial_rotary_factor " +
                                                               detail::shown(json(row.partial_without_parameters)) +
                                                               ")"});
    const json* given = in_params ? in_params : top_counts ? top : nullptr;
    const std::string key = pre + (in_params ? "rope_parameters.partial_rotary_factor" : "partial_rotary_factor");
    const double factor = given    ? detail::number(*given, key)
                          : params ? row.partial_in_parameters
                                   : row.partial_without_parameters;
    if (!(factor > 0.0 && factor <= 1.0)) fail(key, "expected a factor in (0, 1]", std::to_string(factor));
    const int rotary = static_cast<int>(static_cast<double>(head) * factor);
    if (rotary < 2 || rotary % 2 != 0)
        fail(key, "expected int(head_dim x partial_rotary_factor) even and >= 2",
             std::to_string(head) + " x " + std::to_string(factor) + " -> " + std::to_string(rotary));
    return rotary;
}

inline HfAudioTower resolve(const json& config)
{
    const Located at = locate(config);
    const AudioTowerRow* row = find_row(at.model_type);
    if (!row) refuse(at.prefix + "model_type", at.model_type);
    const json& tower = *at.tower;
    const std::string& pre = at.prefix;
    std::vector<ConfigWarning> warnings;
    const int head = head_of(tower, *row, pre, warnings);
    if (head > detail::max_head_dim)
        fail(pre + "head_dim", "expected at most " + std::to_string(detail::max_head_dim), std::to_string(head));
    const double theta = theta_of(tower, *row, pre, warnings);
    if (!(theta > 1.0)) fail(pre + "rope_theta", "expected a base > 1", std::to_string(theta));
    const int rotary = rotary_of(tower, *row, head, pre, warnings);
    if (rotary % 2 != 0) fail(pre + "head_dim", "expected an even head: the tower rotates pairs", std::to_string(head));
    const json* m = member(tower, "max_position_embeddings");
    const std::int64_t max_positions =
        m ? detail::positive_int(*m, pre + "max_position_embeddings") : row->default_max_positions;
    const RopeSpec spec(head, rotary, theta, row->pairing);
    return HfAudioTower {at.model_type,
                         pre,
                         ModelRope::uniform(RopeGroup::make("default", spec, NoScaling {}, max_positions)),
                         head,
                         row->positions,
                         std::move(warnings)};
}

}  // namespace detail::audio_tower

/// The audio tower of a parsed config.json (see the file comment). Throws posenc::error naming
/// the key for a tower posenc refuses or a value it cannot use.
inline HfAudioTower audio_tower_from_json(const nlohmann::json& config) { return detail::audio_tower::resolve(config); }

/// audio_tower_from_json on config.json text.
inline HfAudioTower parse_audio_tower(std::string_view text)
{
    return detail::with_parsed_text(text, [](const nlohmann::json& j) { return detail::audio_tower::resolve(j); });
}

/// parse_audio_tower on a file (errors name the path when it cannot be read).
inline HfAudioTower read_audio_tower(const std::string& path) { return parse_audio_tower(read_config_file(path)); }

}  // namespace posenc::hf
