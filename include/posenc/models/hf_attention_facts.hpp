// SPDX-License-Identifier: MIT
// posenc/models/hf_attention_facts.hpp: what an engine's fused RoPE step needs to know about the
// attention around RoPE, beyond the RoPE keys: the QK-norm (per model_type, from Hugging Face's
// modeling code) and the MLA layout (DeepSeek-style multi-head latent attention, from the config).
//
// QK-norm. Some attentions normalise each query and key head (or the whole projection) right
// before RoPE; the fused step (kernels/qk_norm_rope.hpp) must know whether, how and over what:
//   kind   RmsWeight        x / rms(x) * w           (Qwen3: Qwen3RMSNorm, weight initialised to 1)
//          RmsOnePlusWeight x / rms(x) * (1 + w)     (Gemma 3, Qwen3.5, Qwen3-Next: weight initialised to 0)
//          RmsNoWeight      x / rms(x)               (Llama 4's L2Norm, NanoChat, Muse Glimmer)
//          LayerNorm        (x - mean) / std * w (+ b)  (Phi, Persimmon, StableLM, Cohere, Chameleon)
//          Other            ZAYA: x * sqrt(head_dim) / |x|, K then times a learned per-KV-head scale
//   scope  PerHead          over head_dim, one weight vector for every head
//          PerHeadOwnWeight over head_dim, a weight vector per head (StableLM, Cohere, Chameleon)
//          PerProjection    over the whole projection, num_heads * head_dim values (OLMo 2, OLMo 3,
//                           OLMoE, OLMo hybrid, MiniMax-M2): the norm is not per head, so a per-head
//                           fused step cannot apply it
//   place  BeforeRope, or AfterRope (Llama 4, NanoChat, HunYuan)
// Some families switch it with a config key (switch_key, with the configuration class's default);
// qk_norm_rules has one row per model_type that has QK-norm in some configuration, every other
// known model_type has none. Attentions that normalise only an auxiliary projection (the sparse
// indexers' k_norm of DeepSeek-V3.2, GLM-MoE-DSA, A.X K2), a vision tower (GLM-OCR) or the
// cross-attention layers without RoPE (Mllama) have none here: the RoPE'd query and key are not
// normalised. Source: each row's modeling file at the
// transformers commit in docs/models.md. scripts/sweep-qk-norm.py builds every family's attention
// with transformers' own code and probes its norm modules (tests/data/qk_norm_sweep.json), and
// tests/models/attention_facts_tests.cpp checks these rows' kind and scope against that data;
// the place (before or after RoPE) is read from the forward, not probed.
//
// MLA (qk_head_dim > 0; DeepSeek-V2/V3/V3.2, MiniCPM3, LongCat-Flash, GLM-4.7-Flash, Mistral 4):
// the query head is qk_nope_head_dim + qk_rope_head_dim wide, split [nope, rope]: the rotated
// slice starts at qk_nope_head_dim (query_rope_offset) in the query head and in the key head the
// attention assembles (key_rope_offset). The key's rope part is ONE head per token shared by every
// query head (k_rot, projected once and broadcast): an engine rotates it once and caches it beside
// the kv_lora_rank latent (the cache row is kv_lora_rank + qk_rope_head_dim wide, per token, not
// per head). v_head_dim is the value head. Transformers reads the four keys from the config;
// posenc reports the config's values (kv_lora_rank, q_lora_rank, v_head_dim empty when absent: the
// class defaults differ by family; q_lora_rank null means the query is projected without LoRA).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace posenc::hf {

enum class QkNormKind { none, rms_weight, rms_one_plus_weight, rms_no_weight, layer_norm, other };
enum class QkNormScope { per_head, per_head_own_weight, per_projection };
enum class QkNormPlace { before_rope, after_rope };

inline const char* to_string(QkNormKind k) noexcept
{
    switch (k) {
    case QkNormKind::none: return "none";
    case QkNormKind::rms_weight: return "rms_weight";
    case QkNormKind::rms_one_plus_weight: return "rms_one_plus_weight";
    case QkNormKind::rms_no_weight: return "rms_no_weight";
    case QkNormKind::layer_norm: return "layer_norm";
    default: return "other";
    }
}
inline const char* to_string(QkNormScope s) noexcept
{
    switch (s) {
    case QkNormScope::per_head: return "per_head";
    case QkNormScope::per_head_own_weight: return "per_head_own_weight";
    default: return "per_projection";
    }
}
inline const char* to_string(QkNormPlace p) noexcept
{
    return p == QkNormPlace::before_rope ? "before_rope" : "after_rope";
}

/// One model_type's QK-norm, as its modeling file builds it; see the file comment.
struct QkNormRule {
    std::string_view model_type;
    QkNormKind kind;
    QkNormScope scope;
    QkNormPlace place;
    std::string_view switch_key;  ///< "" when always present
    bool switch_default;  ///< the configuration class's default of switch_key
    std::string_view source;  ///< modeling file (transformers repository path, under src/transformers/models/)
};

namespace detail {
using K = QkNormKind;
using S = QkNormScope;
constexpr QkNormPlace before = QkNormPlace::before_rope;
constexpr QkNormPlace after = QkNormPlace::after_rope;
}  // namespace detail

// clang-format off
/// Every model_type with a QK-norm in some configuration (the others have none).
inline constexpr QkNormRule qk_norm_rules[] = {
#define POSENC_QK(mt, kind, scope, place, key, dflt, src) {mt, detail::K::kind, detail::S::scope, detail::place, key, dflt, src}
    POSENC_QK("qwen3", rms_weight, per_head, before, "", true, "qwen3/modeling_qwen3.py"),
    POSENC_QK("qwen3_moe", rms_weight, per_head, before, "", true, "qwen3_moe/modeling_qwen3_moe.py"),
    POSENC_QK("qwen3_next", rms_one_plus_weight, per_head, before, "", true, "qwen3_next/modeling_qwen3_next.py"),
    POSENC_QK("qwen3_5_text", rms_one_plus_weight, per_head, before, "", true, "qwen3_5/modeling_qwen3_5.py"),
    POSENC_QK("qwen3_5_moe_text", rms_one_plus_weight, per_head, before, "", true, "qwen3_5_moe/modeling_qwen3_5_moe.py"),
    POSENC_QK("qwen3_vl_text", rms_weight, per_head, before, "", true, "qwen3_vl/modeling_qwen3_vl.py"),
    POSENC_QK("qwen3_vl_moe_text", rms_weight, per_head, before, "", true, "qwen3_vl_moe/modeling_qwen3_vl_moe.py"),
    POSENC_QK("qwen3_omni_moe_text", rms_weight, per_head, before, "", true, "qwen3_omni_moe/modeling_qwen3_omni_moe.py"),
    POSENC_QK("qwen3_omni_moe_talker_text", rms_weight, per_head, before, "", true, "qwen3_omni_moe/modeling_qwen3_omni_moe.py"),
    POSENC_QK("qwen3_omni_moe_talker_code_predictor", rms_weight, per_head, before, "", true, "qwen3_omni_moe/modeling_qwen3_omni_moe.py"),
    POSENC_QK("dots1", rms_weight, per_head, before, "", true, "dots1/modeling_dots1.py"),
    POSENC_QK("mellum", rms_weight, per_head, before, "", true, "mellum/modeling_mellum.py"),
    POSENC_QK("doge", rms_weight, per_head, before, "", true, "doge/modeling_doge.py"),
    POSENC_QK("hy_v3", rms_weight, per_head, before, "", true, "hy_v3/modeling_hy_v3.py"),
    POSENC_QK("laguna", rms_weight, per_head, before, "", true, "laguna/modeling_laguna.py"),
    POSENC_QK("afmoe", rms_weight, per_head, before, "", true, "afmoe/modeling_afmoe.py"),
    POSENC_QK("apertus", rms_weight, per_head, before, "", true, "apertus/modeling_apertus.py"),
    POSENC_QK("exaone4", rms_weight, per_head, before, "", true, "exaone4/modeling_exaone4.py"),
    POSENC_QK("exaone_moe", rms_weight, per_head, before, "", true, "exaone_moe/modeling_exaone_moe.py"),
    POSENC_QK("lfm2", rms_weight, per_head, before, "", true, "lfm2/modeling_lfm2.py"),
    POSENC_QK("muse_glimmer_assistant", rms_weight, per_head, before, "", true, "muse_glimmer_assistant/modeling_muse_glimmer_assistant.py"),
    POSENC_QK("glm4_moe", rms_weight, per_head, before, "use_qk_norm", false, "glm4_moe/modeling_glm4_moe.py"),
    POSENC_QK("gemma3_text", rms_one_plus_weight, per_head, before, "", true, "gemma3/modeling_gemma3.py"),
    POSENC_QK("t5gemma2_text", rms_one_plus_weight, per_head, before, "", true, "t5gemma2/modeling_t5gemma2.py"),
    POSENC_QK("t5gemma2_decoder", rms_one_plus_weight, per_head, before, "", true, "t5gemma2/modeling_t5gemma2.py"),
    POSENC_QK("minimax_m3_vl_text", rms_one_plus_weight, per_head, before, "", true, "minimax_m3_vl/modeling_minimax_m3_vl.py"),
    POSENC_QK("step3p5", rms_one_plus_weight, per_head, before, "", true, "step3p7/modeling_step3p7.py"),
    // Gemma 3n and Gemma 4 went back to a plain weight (initialised to 1)
    POSENC_QK("gemma3n_text", rms_weight, per_head, before, "", true, "gemma3n/modeling_gemma3n.py"),
    POSENC_QK("gemma4_text", rms_weight, per_head, before, "", true, "gemma4/modeling_gemma4.py"),
    POSENC_QK("gemma4_unified_text", rms_weight, per_head, before, "", true, "gemma4_unified/modeling_gemma4_unified.py"),
    POSENC_QK("diffusion_gemma_text", rms_weight, per_head, before, "", true, "diffusion_gemma/modeling_diffusion_gemma.py"),
    // the OLMo line and MiniMax-M2 normalise the whole projection (num_heads * head_dim values)
    POSENC_QK("olmo2", rms_weight, per_projection, before, "", true, "olmo2/modeling_olmo2.py"),
    POSENC_QK("olmo3", rms_weight, per_projection, before, "", true, "olmo3/modeling_olmo3.py"),
    POSENC_QK("olmoe", rms_weight, per_projection, before, "", true, "olmoe/modeling_olmoe.py"),
    POSENC_QK("olmo_hybrid", rms_weight, per_projection, before, "", true, "olmo_hybrid/modeling_olmo_hybrid.py"),
    POSENC_QK("minimax_m2", rms_weight, per_projection, before, "", true, "minimax_m2/modeling_minimax_m2.py"),
    POSENC_QK("flex_olmo", rms_weight, per_projection, before, "", true, "flex_olmo/modeling_flex_olmo.py"),
    // HunYuan: query_layernorm / key_layernorm, RMSNorm with a weight, after RoPE
    POSENC_QK("hunyuan_v1_dense", rms_weight, per_head, after, "", true, "hunyuan_v1_dense/modeling_hunyuan_v1_dense.py"),
    POSENC_QK("hunyuan_v1_moe", rms_weight, per_head, after, "", true, "hunyuan_v1_moe/modeling_hunyuan_v1_moe.py"),
    POSENC_QK("hunyuan_vl_text", rms_weight, per_head, after, "", true, "hunyuan_vl/modeling_hunyuan_vl.py"),
    // without a weight; Llama 4 only on its RoPE layers, and after RoPE
    POSENC_QK("llama4_text", rms_no_weight, per_head, after, "use_qk_norm", true, "llama4/modeling_llama4.py"),
    POSENC_QK("nanochat", rms_no_weight, per_head, after, "", true, "nanochat/modeling_nanochat.py"),
    POSENC_QK("muse_glimmer_text", rms_no_weight, per_head, before, "", true, "muse_glimmer/modeling_muse_glimmer.py"),
    // LayerNorm (mean subtracted)
    POSENC_QK("phi", layer_norm, per_head, before, "qk_layernorm", false, "phi/modeling_phi.py"),
    POSENC_QK("persimmon", layer_norm, per_head, before, "qk_layernorm", true, "persimmon/modeling_persimmon.py"),
    POSENC_QK("stablelm", layer_norm, per_head_own_weight, before, "qk_layernorm", false, "stablelm/modeling_stablelm.py"),
    POSENC_QK("cohere", layer_norm, per_head_own_weight, before, "use_qk_norm", false, "cohere/modeling_cohere.py"),
    POSENC_QK("chameleon", layer_norm, per_head_own_weight, before, "", true, "chameleon/modeling_chameleon.py"),
    POSENC_QK("zaya", other, per_head, before, "", true, "zaya/modeling_zaya.py"),
#undef POSENC_QK
};
// clang-format on

/// The rule of a model_type, or nullptr when its attention has no QK-norm.
inline const QkNormRule* find_qk_norm_rule(std::string_view model_type) noexcept
{
    for (const QkNormRule& r : qk_norm_rules)
        if (r.model_type == model_type) return &r;
    return nullptr;
}

/// A model's QK-norm as its config and its family's code give it (HfModel::qk_norm).
struct QkNormFacts {
    QkNormKind kind = QkNormKind::none;
    QkNormScope scope = QkNormScope::per_head;  ///< meaningless when kind is none
    QkNormPlace place = QkNormPlace::before_rope;  ///< meaningless when kind is none
    std::string source;  ///< the modeling file, and the switch key with its value when one decided
    bool present() const noexcept { return kind != QkNormKind::none; }
};

/// DeepSeek-style MLA's layout (HfModel::mla); see the file comment.
struct MlaFacts {
    int qk_nope_head_dim = 0;
    int qk_rope_head_dim = 0;
    int qk_head_dim = 0;  ///< qk_nope_head_dim + qk_rope_head_dim: the query and key head
    int query_rope_offset = 0;  ///< where the rotated slice starts in the query head (= qk_nope_head_dim)
    int key_rope_offset = 0;  ///< where it starts in the key head (= qk_nope_head_dim)
    bool key_rope_shared = true;  ///< the key's rotated part is one head per token shared by all heads
    std::optional<int> v_head_dim, kv_lora_rank, q_lora_rank;  ///< the config's values; empty when absent or null
};

}  // namespace posenc::hf
