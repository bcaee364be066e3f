// SPDX-License-Identifier: MIT
// posenc/models/hf_vision_tower.hpp: read a vision tower's RoPE (vision_tower.hpp) out of a
// Hugging Face config.json, as users have it: a multimodal model's config (the tower nested in
// `vision_config`, or `thinker_config.vision_config` for the Omni models) or a tower's own config
// (model_type "qwen2_5_vl_vision", ...).
//
// Which tower: vision_config's model_type, else the wrapper's default tower (the configuration
// class's sub-config: qwen2_5_vl -> qwen2_5_vl_vision, glm46v -> glm4v_vision, ...;
// vision_tower_rows). What is read, per tower (the configuration class's defaults when a key is
// absent, as transformers fills them):
//   head_dim    hidden_size / num_heads (Qwen2-VL: embed_dim / num_heads; PaddleOCR-VL:
//               hidden_size / num_attention_heads), integer division as the tower does it;
//   theta       10,000: the tower's rotary module is built with its constructor default, and no
//               config key reaches it (a rope_theta or rope_parameters in vision_config is
//               ignored by transformers; the reader says so in a warning);
//   merge_size  spatial_merge_size (PaddleOCR-VL: 1, its encoder numbers patches row-major and
//               merges after it).
// Pixtral (`pixtral`, Mistral 3's default tower; Pixtral-12B's llava config names it in
// vision_config.model_type): head = hidden_size / num_attention_heads (a head_dim key is
// overwritten by the configuration class: named in a warning), theta = rope_parameters.rope_theta
// (else rope_theta, else 10,000; a rope_type other than "default" is refused, as transformers
// does), patches row-major, the grid at most image_size / patch_size per side.
// Llama 4 (`llama4_vision_model`, Llama 4's default tower): read as Pixtral (head = hidden_size /
// num_attention_heads, theta from rope_parameters, 10,000 by default), the grid exactly
// image_size / patch_size per side (defaults 448 / 14); columns_rows_interleaved_cls.
// Gemma 4 (`gemma4_vision`, Gemma 4's default tower): head = head_dim (class default 64; a null
// head_dim: hidden_size / num_attention_heads), theta from rope_parameters (class default 100),
// no grid bound; columns_rows_chunked.
// Kimi K2.5 (`kimi_k25_vision`): head = head_dim (absent or null: hidden_size /
// num_attention_heads, 1152 / 16), theta from rope_parameters (10,000); columns_rows_alternating.
// Muse Glimmer (`muse_glimmer_vision`): read as Kimi K2.5 (1536 / 16 = 96 by default);
// columns_rows_offset_shared.
// Step 3.7 (`step3p5_vision`): the Qwen2-VL rule (rows_columns_shared, patches row-major), head
// = head_dim (else hidden_size / num_attention_heads, 1536 / 16 = 96), theta from rope_parameters
// (10,000).
// MiniMax-M3-VL (`minimax_m3_vl_vision`): head = hidden_size / num_attention_heads (1280 / 16 =
// 80), theta from rope_parameters (10,000), merge_size = spatial_merge_size (2);
// frames_rows_columns_partial.
// SAM 3's ViT (`sam3_vit_model`, as its own config): head = hidden_size / num_attention_heads,
// theta = rope_theta (10,000), the grid exactly image_size / patch_size per side (1008 / 14 = 72),
// scale = window_size / side (24 / 72): the global-attention layers' table. The windowed layers'
// table is the same tower with window = window_size and scale = 1 (a warning on window_size
// says so).
// DINOv3 (`dinov3_vit`) and the models built on its encoder (`eomt_dinov3`, `sapiens2`): head =
// hidden_size / num_attention_heads, theta from rope_theta (EoMT: rope_parameters; 100 by
// default), prefix_tokens = 1 + num_register_tokens (class defaults 0, 4, 8); rows_columns_centres.
// Every other key of vision_config (depth, patch_size, window_size, ...) does not change the
// angles a patch gets and is not read.
// Refused, naming model_type (posenc::error): a tower whose code applies a RoPE posenc does not
// represent yet (vision_tower_refusals says what each needs), a tower transformers applies no
// RoPE in (learned or no position table), a config without a vision tower.
#pragma once

#define POSENC_MODELS_DETAIL_ALLOWED 1  // this public header may include posenc/models/detail/*.hpp
#include "posenc/models/detail/hf_json_values.hpp"
#include "posenc/models/detail/hf_model_reader.hpp"
#include "posenc/models/hf_config_file.hpp"
#include "posenc/models/hf_families.hpp"
#include "posenc/models/hf_read_options.hpp"
#include "posenc/vision_tower.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace posenc::hf {

/// A tower posenc reads: its model_type, the wrappers whose default tower it is, the config keys
/// of its width and heads, and its configuration class's defaults.
struct VisionTowerRow {
    std::string_view model_type;
    std::string_view wrappers;  ///< space-separated wrapper model_types whose default tower this is
    std::string_view width_key;  ///< "hidden_size" (Qwen2-VL: "embed_dim")
    std::string_view heads_key;  ///< "num_heads" (PaddleOCR-VL: "num_attention_heads")
    int default_width;
    int default_heads;
    int default_merge;
    bool merges_in_encoder;  ///< false: positions row-major whatever spatial_merge_size says
    VisionTowerRule rule;
    bool reads_rope_parameters;  ///< theta from rope_parameters / rope_theta (else fixed 10,000), head_dim key read
    bool table_bounded_by_image;  ///< the table holds image_size / patch_size rows and columns
};

/// The towers posenc reads: the Qwen2-VL rule (VisionTowerRule::rows_columns_shared) and Pixtral
/// (rows_columns_even_odd), with the class defaults of transformers' configuration classes
/// (configuration_<model>.py).
inline constexpr VisionTowerRow vision_tower_rows[] = {
    {"qwen2_vl_vision", "qwen2_vl", "embed_dim", "num_heads", 1280, 16, 2, true, VisionTowerRule::rows_columns_shared,
     false, false},
    {"qwen2_5_vl_vision", "qwen2_5_vl", "hidden_size", "num_heads", 3584, 16, 2, true,
     VisionTowerRule::rows_columns_shared, false, false},
    {"qwen2_5_omni_vision_encoder", "qwen2_5_omni qwen2_5_omni_thinker", "hidden_size", "num_heads", 3584, 16, 2, true,
     VisionTowerRule::rows_columns_shared, false, false},
    {"qwen3_vl_vision", "qwen3_vl", "hidden_size", "num_heads", 1152, 16, 2, true, VisionTowerRule::rows_columns_shared,
     false, false},
    {"qwen3_vl_moe_vision", "qwen3_vl_moe", "hidden_size", "num_heads", 1152, 16, 2, true,
     VisionTowerRule::rows_columns_shared, false, false},
    {"qwen3_5_vision", "qwen3_5", "hidden_size", "num_heads", 1152, 16, 2, true, VisionTowerRule::rows_columns_shared,
     false, false},
    {"qwen3_5_moe_vision", "qwen3_5_moe", "hidden_size", "num_heads", 1152, 16, 2, true,
     VisionTowerRule::rows_columns_shared, false, false},
    {"qwen3_omni_moe_vision_encoder", "qwen3_omni_moe qwen3_omni_moe_thinker", "hidden_size", "num_heads", 1152, 16, 2,
     true, VisionTowerRule::rows_columns_shared, false, false},
    {"glm4v_vision", "glm4v glm46v", "hidden_size", "num_heads", 1536, 12, 2, true,
     VisionTowerRule::rows_columns_shared, false, false},
    {"glm4v_moe_vision", "glm4v_moe", "hidden_size", "num_heads", 1536, 12, 2, true,
     VisionTowerRule::rows_columns_shared, false, false},
    {"glm_ocr_vision", "glm_ocr", "hidden_size", "num_heads", 1024, 16, 2, true, VisionTowerRule::rows_columns_shared,
     false, false},
    {"ernie4_5_vl_moe_vision", "ernie4_5_vl_moe", "hidden_size", "num_heads", 1280, 16, 2, true,
     VisionTowerRule::rows_columns_shared, false, false},
    {"exaone4_5_vision", "exaone4_5", "hidden_size", "num_heads", 3584, 16, 2, true,
     VisionTowerRule::rows_columns_shared, false, false},
    {"cohere_compass_vision", "cohere_compass", "hidden_size", "num_heads", 1152, 16, 2, true,
     VisionTowerRule::rows_columns_shared, false, false},
    {"paddleocr_vl_vision", "paddleocr_vl", "hidden_size", "num_attention_heads", 1152, 16, 2, false,
     VisionTowerRule::rows_columns_shared, false, false},
    {"pixtral", "mistral3", "hidden_size", "num_attention_heads", 1024, 16, 1, false,
     VisionTowerRule::rows_columns_even_odd, true, true},
    {"llama4_vision_model", "llama4", "hidden_size", "num_attention_heads", 768, 16, 1, false,
     VisionTowerRule::columns_rows_interleaved_cls, true, true},
    {"gemma4_vision", "gemma4", "hidden_size", "num_attention_heads", 768, 12, 1, false,
     VisionTowerRule::columns_rows_chunked, true, false},
    {"kimi_k25_vision", "kimi_k25", "hidden_size", "num_attention_heads", 1152, 16, 1, false,
     VisionTowerRule::columns_rows_alternating, true, false},
    {"muse_glimmer_vision", "muse_glimmer", "hidden_size", "num_attention_heads", 1536, 16, 1, false,
     VisionTowerRule::columns_rows_offset_shared, true, false},
    {"minimax_m3_vl_vision", "minimax_m3_vl", "hidden_size", "num_attention_heads", 1280, 16, 2, true,
     VisionTowerRule::frames_rows_columns_partial, true, false},
    {"step3p5_vision", "step3p7", "hidden_size", "num_attention_heads", 1536, 16, 1, false,
     VisionTowerRule::rows_columns_shared, true, false},
    {"sam3_vit_model", "", "hidden_size", "num_attention_heads", 1024, 16, 1, false,
     VisionTowerRule::columns_rows_interleaved_scaled, true, true},
    {"dinov3_vit", "", "hidden_size", "num_attention_heads", 384, 6, 1, false, VisionTowerRule::rows_columns_centres,
     true, false},
    {"eomt_dinov3", "", "hidden_size", "num_attention_heads", 1024, 16, 1, false, VisionTowerRule::rows_columns_centres,
     true, false},
    {"sapiens2", "", "hidden_size", "num_attention_heads", 1024, 16, 1, false, VisionTowerRule::rows_columns_centres,
     true, false},
};

/// What a tower that reads rope_parameters takes from its configuration class when a key is
/// absent: theta, whether a head_dim key sets the head, image_size, patch_size and
/// num_register_tokens.
struct ConfiguredRopeDefaults {
    double theta;
    int head_dim;  ///< > 0: the class default of a head_dim key the tower reads; -1: a head_dim key is read,
        ///< absent it is width / heads; 0: head = width / heads (a head_dim key is not read)
    int image_size;
    int patch_size;
    int register_tokens;
};

/// Pixtral, Llama 4, Gemma 4 and the DINOv3 encoders' class defaults (configuration_<model>.py).
inline ConfiguredRopeDefaults configured_rope_defaults(std::string_view model_type) noexcept
{
    if (model_type == "llama4_vision_model") return {10000.0, 0, 448, 14, 0};
    if (model_type == "gemma4_vision") return {100.0, 64, 0, 16, 0};
    if (model_type == "dinov3_vit") return {100.0, 0, 224, 16, 0};
    if (model_type == "kimi_k25_vision" || model_type == "muse_glimmer_vision" || model_type == "step3p5_vision")
        return {10000.0, -1, 0, 14, 0};
    if (model_type == "eomt_dinov3") return {100.0, 0, 640, 16, 4};
    if (model_type == "sapiens2") return {100.0, 0, 224, 16, 8};
    if (model_type == "sam3_vit_model") return {10000.0, 0, 1008, 14, 0};
    return {10000.0, 0, 1024, 16, 0};  // pixtral
}

/// A tower whose code applies RoPE that posenc refuses, and what it would need.
struct VisionTowerRefusal {
    std::string_view model_type;
    std::string_view wrappers;  ///< wrapper model_types whose default tower this is
    std::string_view needs;
};

/// The other towers with RoPE in transformers (the towers sweep and the modeling files): refused
/// by name until posenc represents what each needs.
inline constexpr VisionTowerRefusal vision_tower_refusals[] = {
    {"gemma4_unified_vision", "gemma4_unified",
     "its vision embedder adds a learned factorized 2-D position table and "
     "applies no rotary (the model's RoPE is its text model's)"},
    {"sam3_vision_model", "sam3",
     "SAM 3's ViT nested in backbone_config, which the reader does not follow: read the "
     "backbone_config object (model_type sam3_vit_model) as its own config"},
    {"sam2_video", "", "SAM 2's axial RoPE on interleaved pairs over float-scaled coordinates"},
    {"sam3_tracker_video", "", "SAM's axial RoPE on interleaved pairs over float-scaled coordinates"},
    {"edgetam_video", "", "SAM's axial RoPE on interleaved pairs over float-scaled coordinates"},
    {"video_llama_3_vision", "video_llama_3", "a merge size per image or video given by the processor at run time"},
    {"mlcd_vision_model", "", "its CLS token and a 2-D table posenc has not checked against a sweep yet"},
    {"mlcd", "", "its CLS token and a 2-D table posenc has not checked against a sweep yet"},
    {"glm_image_vision", "glm_image", "GLM-Image's tower, not checked against posenc's sweep yet"},
    {"hunyuan_vl_vision", "hunyuan_vl", "HunYuan-VL's tower, not checked against posenc's sweep yet"},
    {"deepseek_ocr2_vision", "deepseek_ocr2", "1-D RoPE over its query token order, not read as a tower yet"},
};

/// A tower read from a config: the tower, where it was found ("vision_config." or "" for a
/// tower's own config) and what transformers ignores in it.
struct HfVisionTower {
    VisionTower tower;
    std::string key_prefix;
    std::vector<ConfigWarning> warnings;
};

namespace detail::vision_tower {

using detail::fail;
using detail::fail_json;
using detail::json;
using detail::member;
using detail::shown;

inline bool in_list(std::string_view list, std::string_view word)
{
    std::size_t at = 0;
    while (at <= list.size()) {
        const std::size_t end = std::min(list.find(' ', at), list.size());
        if (list.substr(at, end - at) == word) return true;
        at = end + 1;
    }
    return false;
}

inline const VisionTowerRow* find_row(std::string_view model_type)
{
    for (const VisionTowerRow& r : vision_tower_rows)
        if (r.model_type == model_type) return &r;
    return nullptr;
}

inline const VisionTowerRefusal* find_refusal(std::string_view model_type)
{
    for (const VisionTowerRefusal& r : vision_tower_refusals)
        if (r.model_type == model_type) return &r;
    return nullptr;
}

/// The tower model_type a wrapper's vision_config defaults to, or "".
inline std::string_view default_tower_of(std::string_view wrapper)
{
    for (const VisionTowerRow& r : vision_tower_rows)
        if (in_list(r.wrappers, wrapper)) return r.model_type;
    for (const VisionTowerRefusal& r : vision_tower_refusals)
        if (!r.wrappers.empty() && in_list(r.wrappers, wrapper)) return r.model_type;
    return {};
}

inline std::string string_member(const json& object, const char* key, const std::string& path)
{
    const json* v = member(object, key);
    if (!v) return {};
    if (!v->is_string()) fail_json(path + key, "expected a string", *v);
    return v->get<std::string>();
}

/// The tower object and its key prefix: vision_config, thinker_config.vision_config, or the config.
inline std::pair<const json*, std::string> tower_object(const json& config)
{
    if (const json* v = member(config, "vision_config")) {
        if (!v->is_object()) fail_json("vision_config", "expected an object (the vision tower's config)", *v);
        return {v, "vision_config."};
    }
    if (const json* t = member(config, "thinker_config"); t && t->is_object())
        if (const json* v = member(*t, "vision_config")) {
            if (!v->is_object()) fail_json("thinker_config.vision_config", "expected an object", *v);
            return {v, "thinker_config.vision_config."};
        }
    return {&config, ""};
}

[[noreturn]] inline void refuse(const std::string& path, const std::string& model_type)
{
    if (const VisionTowerRefusal* r = find_refusal(model_type))
        fail(path, "names a vision tower posenc does not represent yet: " + std::string(r->needs),
             "\"" + model_type + "\"");
    if (const RoPEOutsideLanguage* o = find_rope_outside_language(model_type))
        fail(path,
             o->kind == TowerKind::vision ? "names a vision model posenc does not read as a tower (its RoPE is not one "
                                            "of the tower rules of posenc/vision_tower.hpp)"
                                          : "names an audio or non-vision model, not a vision tower",
             "\"" + model_type + "\"");
    fail(path,
         "expected a vision tower whose code applies RoPE (posenc/models/hf_vision_tower.hpp lists them); transformers "
         "applies none in this one, or posenc does not know it",
         "\"" + model_type + "\"");
}

inline int read_positive(const json& tower, std::string_view key, int fallback, const std::string& pre)
{
    const std::string k(key);
    const json* v = member(tower, k.c_str());
    return v ? detail::positive_int(*v, pre + k) : fallback;
}

/// The head and theta of Pixtral, Llama 4 and Gemma 4. Head: Gemma 4 reads head_dim (null or
/// absent-with-no-default: width / heads); Pixtral and Llama 4 take width / heads (a differing
/// head_dim is named in a warning: the tower does not read it). rope_theta from rope_parameters
/// (transformers 5), else a top-level rope_theta, else the class default; a rope_type other than
/// "default" is refused.
inline void read_configured_rope(const json& tower, const std::string& pre, int width, int heads, HfVisionTower& out)
{
    const ConfiguredRopeDefaults defaults = configured_rope_defaults(out.tower.model_type);
    out.tower.head_dim = width / heads;
    const json* head = member(tower, "head_dim");
    if (defaults.head_dim != 0) {
        if (!head) out.tower.head_dim = defaults.head_dim > 0 ? defaults.head_dim : width / heads;
        else if (!head->is_null()) out.tower.head_dim = detail::positive_int(*head, pre + "head_dim");
    } else if (head && !(head->is_number() && head->get<double>() == out.tower.head_dim)) {
        out.warnings.push_back({pre + "head_dim", shown(*head) +
                                                      " is ignored: the tower's head is "
                                                      "hidden_size / num_attention_heads = " +
                                                      std::to_string(out.tower.head_dim)});
    }
    if (out.tower.head_dim % 4 != 0 && out.tower.rule != VisionTowerRule::frames_rows_columns_partial)
        fail(pre + (defaults.head_dim != 0 && head && !head->is_null() ? "head_dim" : "hidden_size"),
             "expected a head that is a multiple of 4: the tower rotates head / 4 pairs per axis",
             std::to_string(out.tower.head_dim));
    out.tower.theta = defaults.theta;
    if (const json* t = member(tower, "rope_theta")) out.tower.theta = detail::number(*t, pre + "rope_theta");
    if (const json* d = member(tower, "rope_parameters")) {
        if (!d->is_object()) fail_json(pre + "rope_parameters", "expected an object", *d);
        if (const json* type = member(*d, "rope_type");
            type && !(type->is_string() && type->get<std::string>() == "default"))
            fail_json(pre + "rope_parameters.rope_type",
                      "expected \"default\": posenc reads no other RoPE type in a vision tower", *type);
        if (const json* t = member(*d, "rope_theta"))
            out.tower.theta = detail::number(*t, pre + "rope_parameters.rope_theta");
    }
    if (!(out.tower.theta > 1.0)) fail(pre + "rope_theta", "expected a base > 1", std::to_string(out.tower.theta));
}

/// image_size / patch_size (integers), the side of Pixtral's and Llama 4's precomputed table.
inline std::int64_t image_side(const json& tower, const std::string& pre, const ConfiguredRopeDefaults& defaults)
{
    const json* image = member(tower, "image_size");
    const json* patch = member(tower, "patch_size");
    const int i = image ? detail::positive_int(*image, pre + "image_size") : defaults.image_size;
    const int p = patch ? detail::positive_int(*patch, pre + "patch_size") : defaults.patch_size;
    if (i / p < 1)
        fail(pre + "image_size", "expected at least one patch per side (image_size / patch_size >= 1)",
             std::to_string(i) + " / " + std::to_string(p));
    return i / p;
}

/// The towers whose config sets their RoPE (VisionTowerRow::reads_rope_parameters): head and
/// theta (read_configured_rope), the table's side, the merge size, DINOv3's prefix tokens.
inline void read_configured_tower(const json& tower, const std::string& pre, const VisionTowerRow& row, int width,
                                  int heads, HfVisionTower& out)
{
    const ConfiguredRopeDefaults defaults = configured_rope_defaults(row.model_type);
    read_configured_rope(tower, pre, width, heads, out);
    if (row.table_bounded_by_image) out.tower.max_side = image_side(tower, pre, defaults);
    if (row.merges_in_encoder)
        out.tower.merge_size = read_positive(tower, "spatial_merge_size", row.default_merge, pre);
    if (row.rule == VisionTowerRule::rows_columns_centres) {
        const json* r = member(tower, "num_register_tokens");
        const std::int64_t registers =
            r ? detail::integer(*r, pre + "num_register_tokens", "expected an integer >= 0") : defaults.register_tokens;
        if (registers < 0 || registers > 65536)
            fail(pre + "num_register_tokens", "expected an integer in [0, 65536]", std::to_string(registers));
        out.tower.prefix_tokens = 1 + static_cast<int>(registers);  // the CLS token, then the registers
    }
    if (row.rule == VisionTowerRule::columns_rows_interleaved_scaled) {
        const int window = read_positive(tower, "window_size", 24, pre);
        out.tower.scale = static_cast<double>(window) / static_cast<double>(out.tower.max_side);
        out.warnings.push_back(
            {pre + "window_size", std::to_string(window) +
                                      ": this is the global-attention layers' table "
                                      "(scale window_size / side); the windowed layers rotate each " +
                                      std::to_string(window) + " x " + std::to_string(window) +
                                      " window by the same rule with window = " + std::to_string(window) +
                                      " and scale = 1"});
    }
    out.tower.check();
}

inline HfVisionTower resolve(const json& config)
{
    if (!config.is_object()) fail_json("config", "expected a JSON object", config);
    const std::string wrapper = string_member(config, "model_type", "");
    const auto [tower_json, pre] = tower_object(config);
    std::string type = string_member(*tower_json, "model_type", pre);
    if (type.empty() && !pre.empty()) type = std::string(default_tower_of(wrapper));
    if (type.empty()) {
        if (pre.empty())
            fail("vision_config",
                 "expected a vision tower: the config has no vision_config and its model_type names no "
                 "tower posenc reads",
                 wrapper.empty() ? "(absent)" : "model_type \"" + wrapper + "\"");
        fail(pre + "model_type",
             "expected the tower's model_type: wrapper model_type \"" + wrapper +
                 "\" has no default tower posenc knows",
             "(absent)");
    }
    const VisionTowerRow* row = find_row(type);
    if (!row && pre.empty() && !find_refusal(type) && !find_rope_outside_language(type))
        fail("vision_config",
             "expected a vision tower: the config has no vision_config and its model_type names no "
             "vision tower",
             "model_type \"" + type + "\"");
    if (!row) refuse(pre + "model_type", type);
    HfVisionTower out;
    out.key_prefix = pre;
    out.tower.model_type = type;
    out.tower.rule = row->rule;
    const int width = read_positive(*tower_json, row->width_key, row->default_width, pre);
    const int heads = read_positive(*tower_json, row->heads_key, row->default_heads, pre);
    if (row->reads_rope_parameters) {
        read_configured_tower(*tower_json, pre, *row, width, heads, out);
        return out;
    }
    if (width % heads != 0)
        out.warnings.push_back({pre + std::string(row->width_key),
                                std::to_string(width) + " is not a multiple of " + std::string(row->heads_key) + " " +
                                    std::to_string(heads) + "; the tower's head is the integer quotient " +
                                    std::to_string(width / heads)});
    out.tower.head_dim = width / heads;
    if (out.tower.head_dim % 4 != 0)
        fail(pre + std::string(row->width_key),
             "expected a head (" + std::string(row->width_key) + " / " + std::string(row->heads_key) +
                 ") that is a multiple of 4: the tower rotates head / 4 pairs per axis",
             std::to_string(width) + " / " + std::to_string(heads) + " = " + std::to_string(out.tower.head_dim));
    const int merge = read_positive(*tower_json, "spatial_merge_size", row->default_merge, pre);
    out.tower.merge_size = row->merges_in_encoder ? merge : 1;
    out.tower.theta = 10000.0;
    for (const char* k : {"rope_theta", "rope_parameters", "rope_scaling"})
        if (const json* v = member(*tower_json, k))
            out.warnings.push_back(
                {pre + k, shown(*v) + " is ignored: " + type +
                              "'s rotary module is built with theta 10000 whatever the config says"});
    out.tower.check();
    return out;
}

}  // namespace detail::vision_tower

/// The vision tower of a parsed config.json (see the file comment). Throws posenc::error naming
/// the key for a tower posenc refuses or a value it cannot use.
inline HfVisionTower vision_tower_from_json(const nlohmann::json& config)
{
    return detail::vision_tower::resolve(config);
}

/// vision_tower_from_json on config.json text.
inline HfVisionTower parse_vision_tower(std::string_view text)
{
    return detail::with_parsed_text(text, [](const nlohmann::json& j) { return detail::vision_tower::resolve(j); });
}

/// parse_vision_tower on a file (errors name the path when it cannot be read).
inline HfVisionTower read_vision_tower(const std::string& path) { return parse_vision_tower(read_config_file(path)); }

}  // namespace posenc::hf
