// SPDX-License-Identifier: MIT
// posenc/models/presets.hpp: the models the lessons use, and real models, as data.
//
// Sources: lesson C2-5's model table, lesson C2-2 for Qwen3 / Qwen3.8 / GPT-2 (docs/lessons.md),
// and the published Hugging Face configs (tests/data/configs/README.md; V = confirmed against
// the published config, U = unverified).
// A value no source states is marked "assumed" with the reason; an unverified one "unverified".
//
// Presets are constexpr data. They become validated objects only when asked: rope_spec() builds
// the RopeSpec, scaling() the shipped context extension (a posenc::Scaling, scaling/scaling.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/model_rope.hpp"
#include "posenc/multi_axis.hpp"
#include "posenc/scaling/scaling.hpp"
#include "posenc/spec.hpp"

namespace posenc {

/// How a preset encodes position.
enum class PositionEncodingKind { rope, learned_absolute };

/// One model's position-encoding facts.
struct ModelPreset {
    std::string_view name;  ///< lookup key, e.g. "qwen3-8b"
    std::string_view display_name;  ///< as the lessons or the hub write it, e.g. "Qwen3-8B"
    PositionEncodingKind kind;
    int d_model;  ///< hidden size (0 where no source states it)
    int num_heads;  ///< attention heads (0 where no source states it)
    int head_dim;
    int rotary_dim;  ///< 0 for a learned table
    double base;  ///< rope_theta; 0 for a learned table
    Pairing pairing;
    std::int64_t native_length;  ///< training / original context length (YaRN's, Llama 3's, LongRoPE's L0)
    std::int64_t extended_length;  ///< context after the model's shipped extension (= native if none)
    std::int64_t
        max_position_embeddings;  ///< the config's max_position_embeddings (dynamic NTK's L; the L of the transformers 4.48-4.55 YaRN override)
    int qk_head_dim;  ///< width of q.k in the softmax scale qk_head_dim^-1/2 (192 for DeepSeek-V3's MLA)
    Scaling (*shipped_scaling)();  ///< builds the shipped scaling; nullptr = none

    /// The model's RopeSpec. Throws posenc::error for a preset that does not use RoPE.
    RopeSpec rope_spec() const
    {
        if (kind != PositionEncodingKind::rope)
            detail::raise("preset", std::string(name), "uses a learned position table, not RoPE");
        return RopeSpec(head_dim, rotary_dim, base, pairing);
    }

    /// The context extension the model ships (NoScaling if none), validated.
    Scaling scaling() const { return shipped_scaling ? shipped_scaling() : Scaling {NoScaling {}}; }

    /// Parameters of a learned absolute table, native_length x d_model (0 for RoPE presets).
    std::int64_t learned_table_parameters() const noexcept
    {
        return kind == PositionEncodingKind::learned_absolute ? native_length * d_model : 0;
    }
};

namespace models {

/// Phi-3-mini-128k-instruct rope_scaling lists, 48 each, as Microsoft quotes
/// them (the current revision via a Microsoft script and llama.cpp notes; unverified against the hub file).
inline constexpr std::array<double, 48> phi_3_mini_128k_long_factor {
    1.0700000524520874, 1.1200000047683716, 1.149999976158142,  1.4199999570846558, 1.5699999332427979,
    1.7999999523162842, 2.129999876022339,  2.129999876022339,  3.009999990463257,  5.910000324249268,
    6.950000286102295,  9.070000648498535,  9.930000305175781,  10.710000038146973, 11.130000114440918,
    14.609999656677246, 15.409998893737793, 19.809999465942383, 37.279998779296875, 38.279998779296875,
    38.599998474121094, 40.12000274658203,  46.20000457763672,  50.940006256103516, 53.66000747680664,
    54.9373893737793,   56.89738845825195,  57.28738784790039,  59.98738479614258,  60.86738586425781,
    60.887386322021484, 61.71739196777344,  62.91739273071289,  62.957393646240234, 63.41739273071289,
    63.8173942565918,   63.83739471435547,  63.897396087646484, 63.93739700317383,  64.06739807128906,
    64.11434936523438,  64.12435150146484,  64.15435028076172,  64.19435119628906,  64.24435424804688,
    64.57435607910156,  64.69000244140625,  64.76000213623047};
inline constexpr std::array<double, 48> phi_3_mini_128k_short_factor {
    1.1, 1.1, 1.1, 1.3000000000000003, 1.3500000000000003, 1.3500000000000003, 1.4000000000000004, 1.5500000000000005,
    // 2.000000000000001 x 17
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
    // 2.0500000000000007 x 6, 2.1000000000000005 x 2, 2.1500000000000004, 2.25 x 5
    2.0500000000000007, 2.0500000000000007, 2.0500000000000007, 2.0500000000000007, 2.0500000000000007,
    2.0500000000000007, 2.1000000000000005, 2.1000000000000005, 2.1500000000000004, 2.25, 2.25, 2.25, 2.25, 2.25,
    2.3999999999999995, 2.4499999999999993, 2.499999999999999, 2.6999999999999984, 2.6999999999999984,
    2.7499999999999982, 2.799999999999998, 2.8999999999999977, 3.049999999999997};

}  // namespace models

namespace detail {
// Builders of the presets' shipped scalings (ModelPreset::shipped_scaling).

inline Scaling preset_qwen3_8b_yarn() { return YarnScaling(4.0, 32768); }
inline Scaling preset_qwen3_8_27b_yarn() { return YarnScaling(4.0, 262144); }
inline Scaling preset_deepseek_v4_1_flash_yarn() { return YarnScaling(16.0, 65536); }
inline Scaling preset_llama_3_1_8b_llama3() { return Llama3Scaling(8.0, 1.0, 4.0, 8192); }
inline Scaling preset_llama_3_2_1b_llama3() { return Llama3Scaling(32.0, 1.0, 4.0, 8192); }
inline Scaling preset_deepseek_v3_yarn() { return YarnScaling(40.0, 4096).with_betas(32.0, 1.0).with_mscale(1.0, 1.0); }
inline Scaling preset_gpt_oss_20b_yarn()
{
    return YarnScaling(32.0, 4096).with_betas(32.0, 1.0).with_rounding(YarnCorrectionRounding::fractional);
}
inline Scaling preset_qwen2_5_7b_yarn() { return YarnScaling(4.0, 32768); }

/// Phi-3: s = max_position_embeddings / original_max_position_embeddings = 131072 / 4096 = 32
/// (transformers 4.45-4.57 derive it from the top-level L0; docs/formulas.md, LongRoPE).
inline Scaling preset_phi_3_mini_128k_longrope()
{
    const auto& short_factor = models::phi_3_mini_128k_short_factor;
    const auto& long_factor = models::phi_3_mini_128k_long_factor;
    return LongRopeScaling(std::vector<double>(short_factor.begin(), short_factor.end()),
                           std::vector<double>(long_factor.begin(), long_factor.end()), 4096, 131072.0 / 4096.0);
}

}  // namespace detail

namespace models {

// ---------------------------------------------------------------- the lessons' models

/// Qwen3-8B: base 1e6, all 128 dims rotate, native 32,768, YaRN x4 -> 131,072 (lesson C2-5 table;
/// hidden 4096 / 32 heads and max_position_embeddings 40,960 from its config.json, V). The YaRN
/// snippet {"rope_type":"yarn","factor":4.0,"original_max_position_embeddings":32768} is the
/// model card's (unverified against the hub file).
inline constexpr ModelPreset qwen3_8b {"qwen3-8b",
                                       "Qwen3-8B",
                                       PositionEncodingKind::rope,
                                       4096,
                                       32,
                                       128,
                                       128,
                                       1e6,
                                       Pairing::half_split,
                                       32768,
                                       131072,
                                       40960,
                                       128,
                                       &posenc::detail::preset_qwen3_8b_yarn};

/// Qwen3.8-27B: base 1e7, 64 of 256 dims rotate (25%), native 262,144, YaRN x4 -> 1,048,576 (lesson C2-5).
/// d_model and heads: not stated by the lesson. Pairing: assumed half_split like every Qwen.
/// max_position_embeddings: assumed = native (the lesson gives none).
inline constexpr ModelPreset qwen3_8_27b {"qwen3.8-27b",
                                          "Qwen3.8-27B",
                                          PositionEncodingKind::rope,
                                          0,
                                          0,
                                          256,
                                          64,
                                          1e7,
                                          Pairing::half_split,
                                          262144,
                                          1048576,
                                          262144,
                                          256,
                                          &posenc::detail::preset_qwen3_8_27b_yarn};

/// DeepSeek-V4.1-Flash: base 10,000, 64 rotary dims of a 512-dim head, native 65,536, YaRN x16 -> 1,048,576
/// (lesson C2-5). Pairing: assumed interleaved like DeepSeek-V2/V3 (HF de-interleaves to half_split).
/// YaRN: the lesson gives only the factor; betas assumed default, mscale assumed unset, so cos/sin
/// carry g(16) = 1.277259 (DeepSeek-V3 instead puts g^2 into the softmax scale; same logits).
/// max_position_embeddings: assumed 1,048,576 (DeepSeek-V3's convention L0 x factor).
/// qk_head_dim: assumed the lesson's 512-dim head.
inline constexpr ModelPreset deepseek_v4_1_flash {"deepseek-v4.1-flash",
                                                  "DeepSeek-V4.1-Flash",
                                                  PositionEncodingKind::rope,
                                                  0,
                                                  0,
                                                  512,
                                                  64,
                                                  1e4,
                                                  Pairing::interleaved,
                                                  65536,
                                                  1048576,
                                                  1048576,
                                                  512,
                                                  &posenc::detail::preset_deepseek_v4_1_flash_yarn};

/// The course's small model: d_model 256, 8 heads of 32 dims, base 10,000, training length 128 (lesson C2-5).
/// Pairing: assumed half_split (Hugging Face's default); the lesson does not say. No scaling shipped.
inline constexpr ModelPreset course_small {"course-small",
                                           "course small model",
                                           PositionEncodingKind::rope,
                                           256,
                                           8,
                                           32,
                                           32,
                                           1e4,
                                           Pairing::half_split,
                                           128,
                                           128,
                                           128,
                                           32,
                                           nullptr};

/// GPT-2: a learned position table of n_positions 1,024 x n_embd 768 (lesson C2-2).
inline constexpr ModelPreset gpt2 {
    "gpt2", "GPT-2", PositionEncodingKind::learned_absolute, 768, 12, 64, 0, 0.0, Pairing::half_split, 1024, 1024, 1024,
    64,     nullptr};

// ---------------------------------------------------------------- real models (published configs)

/// meta-llama/Llama-2-7b-hf: 4096 / 32 = 128, rope_theta absent (default 10,000), 4,096 (V).
inline constexpr ModelPreset llama_2_7b {"llama-2-7b",
                                         "Llama-2-7b-hf",
                                         PositionEncodingKind::rope,
                                         4096,
                                         32,
                                         128,
                                         128,
                                         1e4,
                                         Pairing::half_split,
                                         4096,
                                         4096,
                                         4096,
                                         128,
                                         nullptr};

/// meta-llama/Llama-3.1-8B: head 128, theta 500,000, max_position_embeddings 131,072, llama3 scaling
/// {factor 8, low_freq_factor 1, high_freq_factor 4, original_max_position_embeddings 8192} (V).
inline constexpr ModelPreset llama_3_1_8b {"llama-3.1-8b",
                                           "Llama-3.1-8B",
                                           PositionEncodingKind::rope,
                                           4096,
                                           32,
                                           128,
                                           128,
                                           5e5,
                                           Pairing::half_split,
                                           8192,
                                           131072,
                                           131072,
                                           128,
                                           &posenc::detail::preset_llama_3_1_8b_llama3};

/// meta-llama/Llama-3.2-1B: 2048 / 32 = 64, theta 500,000, llama3 with factor 32, otherwise as 3.1 (V).
/// extended_length = max_position_embeddings 131,072 (not 32 x 8192).
inline constexpr ModelPreset llama_3_2_1b {"llama-3.2-1b",
                                           "Llama-3.2-1B",
                                           PositionEncodingKind::rope,
                                           2048,
                                           32,
                                           64,
                                           64,
                                           5e5,
                                           Pairing::half_split,
                                           8192,
                                           131072,
                                           131072,
                                           64,
                                           &posenc::detail::preset_llama_3_2_1b_llama3};

/// deepseek-ai/DeepSeek-V3: MLA with qk_rope_head_dim 64 (HF sets head_dim = 64 for RoPE), qk_nope 128,
/// so qk_head_dim 192; theta 10,000; max_position_embeddings 163,840; yarn {factor 40, beta_fast 32,
/// beta_slow 1, mscale 1.0, mscale_all_dim 1.0, original_max_position_embeddings 4096}; interleaved
/// (rope_scaling V). hidden 7168 / 128 heads from its config.json.
inline constexpr ModelPreset deepseek_v3 {"deepseek-v3",
                                          "DeepSeek-V3",
                                          PositionEncodingKind::rope,
                                          7168,
                                          128,
                                          64,
                                          64,
                                          1e4,
                                          Pairing::interleaved,
                                          4096,
                                          163840,
                                          163840,
                                          192,
                                          &posenc::detail::preset_deepseek_v3_yarn};

/// microsoft/Phi-3-mini-128k-instruct: 3072 / 32 = 96, theta 10,000, max_position_embeddings 131,072,
/// top-level original_max_position_embeddings 4096, longrope (V; the factor lists as quoted, unverified).
inline constexpr ModelPreset phi_3_mini_128k {"phi-3-mini-128k",
                                              "Phi-3-mini-128k-instruct",
                                              PositionEncodingKind::rope,
                                              3072,
                                              32,
                                              96,
                                              96,
                                              1e4,
                                              Pairing::half_split,
                                              4096,
                                              131072,
                                              131072,
                                              96,
                                              &posenc::detail::preset_phi_3_mini_128k_longrope};

/// openai/gpt-oss-20b: head_dim 64 (hidden 2880 / 64 heads = 45 is NOT the head), theta 150,000,
/// max_position_embeddings 131,072, yarn {factor 32, beta_fast 32, beta_slow 1, L0 4096, truncate false} (V).
inline constexpr ModelPreset gpt_oss_20b {"gpt-oss-20b",
                                          "gpt-oss-20b",
                                          PositionEncodingKind::rope,
                                          2880,
                                          64,
                                          64,
                                          64,
                                          150000.0,
                                          Pairing::half_split,
                                          4096,
                                          131072,
                                          131072,
                                          64,
                                          &posenc::detail::preset_gpt_oss_20b_yarn};

/// Qwen/Qwen2.5-7B-Instruct: 3584 / 28 = 128, theta 1e6, max_position_embeddings 32,768, rope_scaling null;
/// with its README's YaRN snippet {"factor": 4.0, "original_max_position_embeddings": 32768, "type": "yarn"}
/// (V: Qwen2-7B dims and the README snippet). Under transformers 4.48-4.55 that snippet is a no-op (s = 1).
inline constexpr ModelPreset qwen2_5_7b {"qwen2.5-7b",
                                         "Qwen2.5-7B-Instruct",
                                         PositionEncodingKind::rope,
                                         3584,
                                         28,
                                         128,
                                         128,
                                         1e6,
                                         Pairing::half_split,
                                         32768,
                                         131072,
                                         32768,
                                         128,
                                         &posenc::detail::preset_qwen2_5_7b_yarn};

/// mistralai/Mistral-7B-v0.1: head 128, theta 10,000, max_position_embeddings 32,768, sliding window 4096 (V).
/// (v0.2-Instruct has theta 1e6 and no window: unverified, not a preset.)
inline constexpr ModelPreset mistral_7b {"mistral-7b",
                                         "Mistral-7B-v0.1",
                                         PositionEncodingKind::rope,
                                         4096,
                                         32,
                                         128,
                                         128,
                                         1e4,
                                         Pairing::half_split,
                                         32768,
                                         32768,
                                         32768,
                                         128,
                                         nullptr};

/// codellama/CodeLlama-7b-Instruct-hf: head 128, theta 1,000,000, max_position_embeddings 16,384 (V;
/// the base -hf model is the same, unverified).
inline constexpr ModelPreset codellama_7b {"codellama-7b",
                                           "CodeLlama-7b-Instruct-hf",
                                           PositionEncodingKind::rope,
                                           4096,
                                           32,
                                           128,
                                           128,
                                           1e6,
                                           Pairing::half_split,
                                           16384,
                                           16384,
                                           16384,
                                           128,
                                           nullptr};

/// EleutherAI/pythia-70m: 512 / 8 = 64, rotary_pct 0.25 -> 16 rotary dims, base 10,000, 2,048 (V).
inline constexpr ModelPreset pythia_70m {"pythia-70m", "pythia-70m", PositionEncodingKind::rope, 512,  8,    64,
                                         16,           1e4,          Pairing::half_split,        2048, 2048, 2048,
                                         64,           nullptr};

/// microsoft/phi-2: 2560 / 32 = 80, partial_rotary_factor 0.4 -> 32 rotary dims, theta 10,000, 2,048 (V).
inline constexpr ModelPreset phi_2 {"phi-2", "phi-2", PositionEncodingKind::rope, 2560, 32,   80,
                                    32,      1e4,     Pairing::half_split,        2048, 2048, 2048,
                                    80,      nullptr};

/// Every preset: the lessons' models in lesson order, then the real models.
inline constexpr std::array<ModelPreset, 16> all_presets {
    qwen3_8b,     qwen3_8_27b, deepseek_v4_1_flash, course_small, gpt2,       llama_2_7b, llama_3_1_8b,
    llama_3_2_1b, deepseek_v3, phi_3_mini_128k,     gpt_oss_20b,  qwen2_5_7b, mistral_7b, codellama_7b,
    pythia_70m,   phi_2};

/// The preset called `name` (its `name` field). Throws posenc::error listing the known names otherwise.
inline const ModelPreset& find_preset(std::string_view name)
{
    std::string known;
    for (const ModelPreset& p : all_presets) {
        if (p.name == name) return p;
        known += (known.empty() ? "" : ", ") + std::string(p.name);
    }
    detail::raise("preset", std::string(name), "is not a known preset (known: " + known + ")");
}

// ---------------------------------------------------------------- whole models (ModelRope)
// Models whose layers do not all rotate alike, as ModelRope values. Each value is the published
// config.json of the named repository read with Hugging Face's rules (tests/data/configs/ holds
// the same configs; docs/models.md explains the layouts).

namespace detail {

/// Layer map of `n` layers where layer i uses group `odd` unless (i + 1) % every == 0, then `other`.
inline std::vector<int> every_nth(int n, int every, int odd, int other)
{
    std::vector<int> map(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) map[static_cast<std::size_t>(i)] = (i + 1) % every != 0 ? odd : other;
    return map;
}

}  // namespace detail

/// google/gemma-3-4b-it: 34 layers; layer i slides (window 1024) unless (i + 1) % 6 == 0.
/// sliding_attention: head 256, base 10,000 (rope_local_base_freq), no scaling;
/// full_attention: head 256, base 1e6, linear x8. max_position_embeddings 131,072 (class default).
inline ModelRope gemma_3_4b_it_rope()
{
    std::vector<RopeGroup> groups {
        RopeGroup::make("sliding_attention", RopeSpec::full(256, 1e4), NoScaling {}, 131072),
        RopeGroup::make("full_attention", RopeSpec::full(256, 1e6), LinearScaling(8.0), 131072)};
    return ModelRope(std::move(groups), detail::every_nth(34, 6, 0, 1));
}

/// meta-llama/Llama-4-Scout-17B-16E-Instruct (text model): 48 layers, every 4th NoPE (no_rope_layers
/// default, interval 4); head 128, base 500,000, interleaved (complex) pairs, llama3 scaling
/// {factor 16, low 1, high 1, L0 8192}; max_position_embeddings 10,485,760; attention temperature
/// tuning on the NoPE layers (attn_temperature_tuning true, attn_scale 0.1, floor_scale 8192:
/// query times 1 + 0.1 ln(1 + floor((pos + 1) / 8192)), query_scale.hpp).
inline ModelRope llama_4_scout_rope()
{
    const ModelRope rope({RopeGroup::make("default", RopeSpec(128, 128, 5e5, Pairing::interleaved),
                                          Llama3Scaling(16.0, 1.0, 1.0, 8192), 10485760)},
                         detail::every_nth(48, 4, 0, ModelRope::no_rope));
    return rope.with_query_scale(QueryScale::llama4_temperature_tuning(0.1, 8192), rope.nope_layers());
}

/// HuggingFaceTB/SmolLM3-3B: 36 layers, every 4th NoPE (no_rope_layers); head 2048 / 16 = 128,
/// base 5e6, no scaling; max_position_embeddings 65,536.
inline ModelRope smollm3_3b_rope()
{
    return ModelRope({RopeGroup::make("default", RopeSpec::full(128, 5e6), NoScaling {}, 65536)},
                     detail::every_nth(36, 4, 0, ModelRope::no_rope));
}

/// Qwen/Qwen2.5-VL-7B-Instruct (language model): 28 layers, head 3584 / 28 = 128, base 1e6, M-RoPE
/// sections [16, 24, 24] (temporal, height, width pairs); max_position_embeddings 128,000.
inline ModelRope qwen2_5_vl_7b_rope()
{
    return ModelRope::uniform(RopeGroup::make("default", RopeSpec::full(128, 1e6), NoScaling {}, 128000), 28,
                              MultiAxisLayout::sections({16, 24, 24}, 64));
}

/// google/gemma-4-E2B-it (text model): 35 layers; layer i is full attention when (i + 1) % 5 == 0
/// (layers 4, 9, ..., 34), else sliding. sliding_attention: head_dim 256, default RoPE, base 10,000;
/// full_attention: global_head_dim 512, proportional RoPE {partial_rotary_factor 0.25, base 1e6}
/// (64 of 256 pairs rotate, scaling/proportional.hpp); max_position_embeddings 131,072.
/// Unverified against the hub file: the head dims, layer pattern and rope_parameters as several
/// independent public copies of the config quote them, and transformers' Gemma4TextConfig defaults.
inline ModelRope gemma_4_e2b_rope()
{
    std::vector<RopeGroup> groups {
        RopeGroup::make("sliding_attention", RopeSpec::full(256, 1e4), NoScaling {}, 131072),
        RopeGroup::make("full_attention", RopeSpec::full(512, 1e6), ProportionalScaling(0.25), 131072)};
    return ModelRope(std::move(groups), detail::every_nth(35, 5, 0, 1));
}

/// tencent/HunyuanOCR (HunYuan-VL language model): 24 layers, head_dim 128, rope_theta 10,000,
/// rope_scaling {type "xdrope", alpha 1000, xdrope_section [16, 16, 16, 16]}: the NTK-alpha base
/// 10,000 * 1000^(128/126) (NtkAwareScaling(1000): transformers' HunYuanVLRotaryEmbedding turns
/// xdrope + alpha into that base) and the four-axis layout as transformers 5.x applies it
/// (MultiAxisLayout::coordinate_sections; Tencent's own code: xd_sections);
/// max_position_embeddings 32,768. Unverified against the hub file: as public ports of the
/// checkpoint (a conversion script and an MLX port) quote its text config.
inline ModelRope hunyuan_ocr_rope()
{
    return ModelRope::uniform(RopeGroup::make("default", RopeSpec::full(128, 1e4), NtkAwareScaling(1000.0), 32768), 24,
                              MultiAxisLayout::coordinate_sections({16, 16, 16, 16}, 64));
}

/// baidu/ERNIE-4.5-VL-28B-A3B (language model): 28 layers, head_dim 128 (2560 / 20 heads),
/// rope_theta 500,000, interleaved pairs, 3-D RoPE with freq_allocation 20, which transformers
/// reads as mrope_section [22, 22, 20] (height, width, temporal pairs:
/// MultiAxisLayout::height_width_alternating); max_position_embeddings 131,072. These are
/// transformers' Ernie4_5_VLMoeTextConfig defaults (default_theta 500,000, the rotary's default
/// mrope_section [22, 22, 20]), which it documents as this checkpoint's; the hub file itself is
/// unverified.
inline ModelRope ernie_4_5_vl_28b_a3b_rope()
{
    return ModelRope::uniform(
        RopeGroup::make("default", RopeSpec(128, 128, 5e5, Pairing::interleaved), NoScaling {}, 131072), 28,
        MultiAxisLayout::height_width_alternating({22, 22, 20}, 64));
}

}  // namespace models
}  // namespace posenc
