// SPDX-License-Identifier: MIT
// posenc/models/hf_prompt_rule.hpp: which get_rope_index a multimodal config.json's model runs, and
// the vision_config facts it reads (spatial_merge_size, tokens_per_second, temporal_merge_size), as
// transformers (decba1d2) reads them: the config's value, else the vision configuration class's
// default. Then a prompt's position ids (mrope_prompt_positions.hpp, multimodal_positions.hpp) and
// what each prompt token's pairs rotate by (prompt_angles.hpp).
//
//   model_type (top level, or the language model's own *_text type)      rule
//   qwen2_vl, paddleocr_vl                                                qwen2_vl
//   qwen2_5_vl                                                            qwen2_5_vl (+ tokens_per_second, default 4)
//   qwen3_vl, qwen3_vl_moe, qwen3_5, qwen3_5_moe, glm4v, glm4v_moe,
//   glm46v, glm_ocr, cosmos3_edge                                         video_frames
//   ernie4_5_vl_moe                                                       ERNIE-4.5-VL (+ temporal_merge_size, default 2)
//   hunyuan_vl                                                            HunYuan-VL (hunyuan_vl_position_ids, images
//                                                                         only; axes: len(mrope_section), 3 or 4)
//   qwen2_5_omni, qwen3_omni_moe (their thinker_config), *_thinker        Omni (omni_prompt_positions.hpp; the
//                                                                         thinker's position_id_per_seconds, default 25)
// spatial_merge_size defaults to 2 in every one of these classes. A *_text config (no
// vision_config) uses the class defaults, with a note saying so.
// Refused by name: the Omni talkers (their positions follow the thinker's), glm_image,
// minimax_m3_vl, and every other model_type. A HunYuan-VL image:1xHxW segment is its grid
// span of (H / m) (W / m + 1) tokens (a newline column per row); write its begin and end tokens,
// if any, as text (they keep their sequence index, as text does).
//
// Optional like hf_config.hpp: it needs nlohmann_json.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/multimodal_positions.hpp"
#include "posenc/mrope_prompt_positions.hpp"
#include "posenc/omni_prompt_positions.hpp"

namespace posenc::hf {

/// The get_rope_index of a config's model, with the facts it reads.
struct HfPromptRule {
    enum class Kind { mrope, ernie_4_5_vl, omni, hunyuan_vl };
    std::string model_type;  ///< as the config names it (top level)
    Kind kind = Kind::mrope;
    MropePromptRule mrope;  ///< Kind::mrope (spatial_merge_size is used by both kinds)
    int temporal_merge_size = 0;  ///< Kind::ernie_4_5_vl: vision_config.temporal_merge_size
    OmniPromptRule omni;  ///< Kind::omni: the thinker's facts
    int num_axes = 0;  ///< Kind::hunyuan_vl: the length of the text model's mrope_section
    std::vector<std::string> notes;  ///< defaults taken from the configuration classes
};

namespace detail {

struct PromptFamily {
    const char* model_type;
    HfPromptRule::Kind kind;
    MropePromptFamily family;
};

inline const std::vector<PromptFamily>& prompt_families()
{
    using K = HfPromptRule::Kind;
    using F = MropePromptFamily;
    static const std::vector<PromptFamily> families {
        {"qwen2_vl", K::mrope, F::qwen2_vl},
        {"paddleocr_vl", K::mrope, F::qwen2_vl},
        {"qwen2_5_vl", K::mrope, F::qwen2_5_vl},
        {"qwen3_vl", K::mrope, F::video_frames},
        {"qwen3_vl_moe", K::mrope, F::video_frames},
        {"qwen3_5", K::mrope, F::video_frames},
        {"qwen3_5_moe", K::mrope, F::video_frames},
        {"glm4v", K::mrope, F::video_frames},
        {"glm4v_moe", K::mrope, F::video_frames},
        {"glm46v", K::mrope, F::video_frames},
        {"glm_ocr", K::mrope, F::video_frames},
        {"cosmos3_edge", K::mrope, F::video_frames},
        {"ernie4_5_vl_moe", K::ernie_4_5_vl, F::qwen2_vl},
        {"qwen2_5_omni", K::omni, F::qwen2_vl},
        {"qwen2_5_omni_thinker", K::omni, F::qwen2_vl},
        {"qwen3_omni_moe", K::omni, F::qwen2_vl},
        {"qwen3_omni_moe_thinker", K::omni, F::qwen2_vl},
        {"hunyuan_vl", K::hunyuan_vl, F::qwen2_vl},
    };
    return families;
}

inline const char* refusal_reason(const std::string& model_type)
{
    if (model_type.rfind("qwen2_5_omni", 0) == 0 || model_type.rfind("qwen3_omni_moe", 0) == 0)
        return "is not a thinker: the Omni talkers' positions follow the thinker's (read the thinker's config)";
    if (model_type.rfind("glm_image", 0) == 0 || model_type.rfind("minimax_m3_vl", 0) == 0)
        return "is not supported for --prompt: its get_rope_index is not one of the rules posenc implements";
    return "has no prompt position rule in posenc (qwen2_vl, qwen2_5_vl, qwen3_vl, qwen3_vl_moe, qwen3_5, qwen3_5_moe, "
           "glm4v, glm4v_moe, glm46v, glm_ocr, cosmos3_edge, paddleocr_vl, ernie4_5_vl_moe, qwen2_5_omni, "
           "qwen3_omni_moe, hunyuan_vl)";
}

/// vision_config.<key> as a whole number >= 1 (a JSON integer), else the class default (noted).
inline std::int64_t vision_int(const nlohmann::json* vision, const char* key, std::int64_t class_default,
                               HfPromptRule& out, const std::string& prefix = "vision_config.")
{
    const std::string path = prefix + key;
    if (!vision || !vision->contains(key)) {
        out.notes.push_back(path + " absent: the configuration class's default " + std::to_string(class_default));
        return class_default;
    }
    const nlohmann::json& v = (*vision)[key];
    if (!v.is_number_integer() || v.get<std::int64_t>() < 1 || v.get<std::int64_t>() > 65536)
        throw error(path, v.dump(), "expected a whole number in [1, 65536]",
                    path + ": expected a whole number in [1, 65536], got " + v.dump());
    return v.get<std::int64_t>();
}

/// `key` of `config` when it is an object, nullptr when absent; refused naming `path` otherwise.
inline const nlohmann::json* object_member(const nlohmann::json* config, const char* key, const std::string& path)
{
    if (!config || !config->contains(key)) return nullptr;
    const nlohmann::json& v = (*config)[key];
    if (!v.is_object())
        throw error(path, v.dump(), "expected an object", path + ": expected an object, got " + v.dump());
    return &v;
}

/// An Omni model's thinker facts: thinker_config (the whole model's config), else the config
/// itself (a thinker's own config), else the class defaults (a *_text config).
inline HfPromptRule omni_rule(const nlohmann::json& config, const std::string& base, HfPromptRule& out)
{
    const bool whole = base == "qwen2_5_omni" || base == "qwen3_omni_moe";
    std::string prefix = whole ? "thinker_config." : "";
    const nlohmann::json* thinker = whole ? object_member(&config, "thinker_config", "thinker_config") : &config;
    if (out.model_type.size() > 5 && out.model_type.compare(out.model_type.size() - 5, 5, "_text") == 0)
        thinker = nullptr;
    out.omni.float_positions = base.rfind("qwen3_omni_moe", 0) == 0;
    out.omni.position_id_per_seconds = vision_int(thinker, "position_id_per_seconds", 25, out, prefix);
    const nlohmann::json* vision = object_member(thinker, "vision_config", prefix + "vision_config");
    out.omni.spatial_merge_size =
        static_cast<int>(vision_int(vision, "spatial_merge_size", 2, out, prefix + "vision_config."));
    out.mrope.spatial_merge_size = out.omni.spatial_merge_size;
    return out;
}

/// HunYuan-VL's axis count: len(mrope_section) (or its alias xdrope_section) of the text model's
/// RoPE dict, which get_rope_index reads (text_config.rope_parameters, else rope_scaling).
inline int hunyuan_axes(const nlohmann::json& config)
{
    const bool nested = config.contains("text_config") && config["text_config"].is_object();
    const nlohmann::json& text = nested ? config["text_config"] : config;
    const std::string pre = nested ? "text_config." : "";
    for (const char* dict : {"rope_parameters", "rope_scaling"}) {
        if (!text.contains(dict) || !text[dict].is_object()) continue;
        for (const char* key : {"mrope_section", "xdrope_section"})
            if (text[dict].contains(key) && text[dict][key].is_array()) {
                const std::size_t n = text[dict][key].size();
                if (n < 3 || n > 4)
                    throw error(pre + dict + "." + key, text[dict][key].dump(), "expected 3 or 4 sections",
                                pre + dict + "." + key +
                                    ": expected 3 or 4 sections (HunYuan-VL's get_rope_index axes), got " +
                                    text[dict][key].dump());
                return static_cast<int>(n);
            }
    }
    throw error(pre + "rope_parameters.mrope_section", "absent", "is read by get_rope_index",
                pre + "rope_parameters.mrope_section: expected a list of 3 or 4 sections (HunYuan-VL's get_rope_index "
                      "reads its length; the class has no default)");
}

}  // namespace detail

/// The prompt rule of a parsed config.json (see the file comment). Throws posenc::error naming
/// model_type when the model has no rule here, and naming vision_config.<key> for a value that is
/// not a whole number in [1, 65536].
inline HfPromptRule prompt_rule_from_json(const nlohmann::json& config)
{
    if (!config.is_object()) throw error("config", "", "expected a JSON object", "config: expected a JSON object");
    HfPromptRule out;
    const auto type = config.find("model_type");
    if (type == config.end() || !type->is_string())
        throw error("model_type", type == config.end() ? "absent" : type->dump(), "names the prompt rule",
                    "model_type: expected the model's type (a string), which decides the prompt position rule");
    out.model_type = type->get<std::string>();
    std::string base = out.model_type;
    if (base.size() > 5 && base.compare(base.size() - 5, 5, "_text") == 0) base.resize(base.size() - 5);
    const detail::PromptFamily* family = nullptr;
    for (const detail::PromptFamily& f : detail::prompt_families())
        if (base == f.model_type) family = &f;
    if (!family)
        throw error("model_type", out.model_type, detail::refusal_reason(out.model_type),
                    "model_type \"" + out.model_type + "\" " + detail::refusal_reason(out.model_type));
    out.kind = family->kind;
    out.mrope.family = family->family;
    if (out.kind == HfPromptRule::Kind::omni) return detail::omni_rule(config, base, out);
    const auto vc = config.find("vision_config");
    if (vc != config.end() && !vc->is_object())
        throw error("vision_config", vc->dump(), "expected an object",
                    "vision_config: expected an object, got " + vc->dump());
    const nlohmann::json* vision = vc == config.end() ? nullptr : &*vc;
    out.mrope.spatial_merge_size = static_cast<int>(detail::vision_int(vision, "spatial_merge_size", 2, out));
    if (out.mrope.family == MropePromptFamily::qwen2_5_vl && out.kind == HfPromptRule::Kind::mrope)
        out.mrope.tokens_per_second = detail::vision_int(vision, "tokens_per_second", 4, out);
    if (out.kind == HfPromptRule::Kind::ernie_4_5_vl)
        out.temporal_merge_size = static_cast<int>(detail::vision_int(vision, "temporal_merge_size", 2, out));
    if (out.kind == HfPromptRule::Kind::hunyuan_vl) out.num_axes = detail::hunyuan_axes(config);
    return out;
}

/// prompt_rule_from_json on config.json text. Throws posenc::error for malformed JSON too.
inline HfPromptRule parse_prompt_rule(std::string_view text)
{
    nlohmann::json config = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
    if (config.is_discarded()) throw error("config", "", "is not valid JSON", "config: not valid JSON");
    return prompt_rule_from_json(config);
}

/// The rule's name: "qwen2_vl", "qwen2_5_vl", "video_frames", "ernie_4_5_vl", "qwen2_5_omni" or
/// "qwen3_omni" (posenc-inspect's prompt.rule).
inline std::string rule_name(const HfPromptRule& rule)
{
    if (rule.kind == HfPromptRule::Kind::ernie_4_5_vl) return "ernie_4_5_vl";
    if (rule.kind == HfPromptRule::Kind::hunyuan_vl) return "hunyuan_vl";
    if (rule.kind == HfPromptRule::Kind::omni) return rule.omni.float_positions ? "qwen3_omni" : "qwen2_5_omni";
    return to_string(rule.mrope.family);
}

/// The prompt's position ids under `rule` (mrope_prompt_position_ids, omni_prompt_position_ids or
/// ernie_4_5_vl_position_ids). Throws posenc::error as those do; ERNIE-4.5-VL refuses @S.
inline AxisPositionIds prompt_position_ids(const HfPromptRule& rule, const std::vector<PromptSegment>& segments)
{
    if (rule.kind == HfPromptRule::Kind::mrope) return mrope_prompt_position_ids(segments, rule.mrope);
    if (rule.kind == HfPromptRule::Kind::omni) return omni_prompt_position_ids(segments, rule.omni);
    if (rule.kind == HfPromptRule::Kind::hunyuan_vl) {
        for (std::size_t i = 0; i < segments.size(); ++i)
            if (segments[i].kind == PromptSegment::Kind::image && segments[i].t != 1)
                posenc::detail::raise(posenc::detail::segment_field(i, "t"), segments[i].t,
                                      "must be 1 (a HunYuan-VL image)");
        return hunyuan_vl_position_ids(segments, rule.num_axes, rule.mrope.spatial_merge_size);
    }
    for (std::size_t i = 0; i < segments.size(); ++i)
        if (segments[i].seconds_per_grid)
            posenc::detail::raise(posenc::detail::segment_field(i, "seconds_per_grid"), *segments[i].seconds_per_grid,
                                  "is read for Qwen2.5-VL videos only (second_per_grid_ts)");
    return ernie_4_5_vl_position_ids(segments, rule.mrope.spatial_merge_size, rule.temporal_merge_size);
}

}  // namespace posenc::hf
