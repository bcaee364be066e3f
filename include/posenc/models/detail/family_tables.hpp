// SPDX-License-Identifier: MIT
// posenc/models/detail/family_tables.hpp: the hand-written rows of every model_type the config
// reader knows: known_families (what each family's code decides: pairing, defaults its code sets,
// trait:: bits), family_refusals (families refused by name), rope_outside_language (towers refused
// by name), language_model_wrappers (where a wrapper keeps its language model). The row types and
// the look-ups are in posenc/models/hf_families.hpp, which includes this file after them; the
// generated class defaults are in family_class_defaults.hpp; models/detail/family_row.hpp joins
// one model_type's rows into one record.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error "posenc/models/detail/family_tables.hpp is internal to the config reader: include <posenc/models/hf_families.hpp> instead"
#endif

#include <string_view>

#include "posenc/spec.hpp"

namespace posenc::hf {


/// The families posenc knows. Paths are relative to src/transformers/models/ in the transformers repository.
inline constexpr FamilyRules known_families[] = {
    // ---- half_split (rotate_half), generic defaults
    {"llama", Pairing::half_split, "llama/modeling_llama.py", {}, 0, 0, "", 0},
    {"mistral", Pairing::half_split, "mistral/modeling_mistral.py", {}, 0, 0, "", 0},
    {"mixtral", Pairing::half_split, "mixtral/modeling_mixtral.py", {}, 0, 0, "", 0},
    {"qwen2", Pairing::half_split, "qwen2/modeling_qwen2.py", {}, 0, 0, "", 0},
    {"qwen2_moe", Pairing::half_split, "qwen2_moe/modeling_qwen2_moe.py", {}, 0, 0, "", 0},
    {"qwen3", Pairing::half_split, "qwen3/modeling_qwen3.py", {}, 0, 0, "qwen3/configuration_qwen3.py", 0},
    {"qwen3_moe", Pairing::half_split, "qwen3_moe/modeling_qwen3_moe.py", {}, 0, 0, "", 0},
    {"qwen3_next", Pairing::half_split, "qwen3_next/modeling_qwen3_next.py", 0.25, 0, 0, "qwen3_next/configuration_qwen3_next.py", trait::partial_rotary},
    // OLMo Hybrid: Gated DeltaNet layers without RoPE, full_attention every 4th ((i + 1) % 4 == 0); the
    // released checkpoints set rope_theta null (no rotary embedding at all: refused, naming rope_theta)
    {"olmo_hybrid", Pairing::half_split, "olmo_hybrid/modeling_olmo_hybrid.py", {}, 0, 0, "olmo_hybrid/configuration_olmo_hybrid.py", 0},
    // Qwen3.5 (text models of qwen3_5 / qwen3_5_moe): Qwen3-Next's layers and 25 % rotary part with
    // Qwen3-VL's always-interleaved M-RoPE, default sections [11, 11, 10]
    FamilyRules{"qwen3_5_text", Pairing::half_split, "qwen3_5/modeling_qwen3_5.py", 0.25, 0, 0, "qwen3_5/configuration_qwen3_5.py",
     trait::partial_rotary | trait::multi_axis | trait::always_interleaved_mrope}.with_default_mrope_section("[11, 11, 10]"),
    FamilyRules{"qwen3_5_moe_text", Pairing::half_split, "qwen3_5_moe/modeling_qwen3_5_moe.py", 0.25, 0, 0, "qwen3_5_moe/configuration_qwen3_5_moe.py",
     trait::partial_rotary | trait::multi_axis | trait::always_interleaved_mrope}.with_default_mrope_section("[11, 11, 10]"),
    // Qwen4-Exp's text model (transformers 5.25.0): linear_attention layers NoPE, indexed_attention layers
    // rotate the first int(head_dim * partial_rotary_factor) dims (class default: the whole 256) with
    // Qwen3-VL's interleaved M-RoPE over the first 3 x sections (default [11, 11, 10]), the rest temporal
    // (families/qwen4_exp.hpp); its QSA indexer is named in a warning, not read (families/linear_attention.hpp)
    FamilyRules{"qwen4_exp_text", Pairing::half_split, "qwen4_exp/modeling_qwen4_exp.py", {}, 0, 0, "qwen4_exp/configuration_qwen4_exp.py",
     trait::partial_rotary | trait::multi_axis | trait::always_interleaved_mrope}.with_default_mrope_section("[11, 11, 10]"),
    {"phi", Pairing::half_split, "phi/modeling_phi.py", 0.5, 0, 0, "phi/configuration_phi.py", trait::partial_rotary},
    // Phi-3: rope types default and longrope only (legacy "su" / "yarn" read as longrope); the
    // class-default top-level original_max_position_embeddings 4096 wins over the dict's
    {"phi3", Pairing::half_split, "phi3/modeling_phi3.py", {}, 0, 0, "phi3/configuration_phi3.py", trait::partial_rotary | trait::longrope_only},
    {"gpt_neox", Pairing::half_split, "gpt_neox/modeling_gpt_neox.py", 0.25, 0, 0, "gpt_neox/configuration_gpt_neox.py", trait::partial_rotary | trait::neox_key_names},
    {"falcon", Pairing::half_split, "falcon/modeling_falcon.py", {}, 0, 0, "falcon/configuration_falcon.py", 0},
    {"gemma", Pairing::half_split, "gemma/modeling_gemma.py", {}, 0, 0, "gemma/configuration_gemma.py", 0},
    {"gemma2", Pairing::half_split, "gemma2/modeling_gemma2.py", {}, 0, 0, "gemma2/configuration_gemma2.py", 0},
    {"gemma3_text", Pairing::half_split, "gemma3/modeling_gemma3.py", {}, 0, 0, "gemma3/configuration_gemma3.py", 0},
    // T5Gemma 2's text models (the encoder's text_config and the decoder): Gemma 3's configuration rules
    {"t5gemma2_text", Pairing::half_split, "t5gemma2/modeling_t5gemma2.py", {}, 0, 0, "t5gemma2/configuration_t5gemma2.py", 0},
    {"t5gemma2_decoder", Pairing::half_split, "t5gemma2/modeling_t5gemma2.py", {}, 0, 0, "t5gemma2/configuration_t5gemma2.py", 0},
    // Gemma 4: sliding_attention {default, 1e4} over head_dim 256, full_attention {proportional, p 0.25, 1e6}
    // over global_head_dim 512; 30 layers by default, every 6th full, the last forced full
    {"gemma4_text", Pairing::half_split, "gemma4/modeling_gemma4.py", {}, 0, 0, "gemma4/configuration_gemma4.py", trait::proportional_full_attention, "",
     R"({"sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}, "full_attention": {"rope_type": "proportional", "partial_rotary_factor": 0.25, "rope_theta": 1000000.0}})",
     "", "", 0},
    // Gemma 4's layout in Gemma 4 Unified's and DiffusionGemma's text models (the same configuration rules)
    {"gemma4_unified_text", Pairing::half_split, "gemma4_unified/modeling_gemma4_unified.py", {}, 0, 0, "gemma4_unified/configuration_gemma4_unified.py", trait::proportional_full_attention, "",
     R"({"sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}, "full_attention": {"rope_type": "proportional", "partial_rotary_factor": 0.25, "rope_theta": 1000000.0}})"},
    {"diffusion_gemma_text", Pairing::half_split, "diffusion_gemma/modeling_diffusion_gemma.py", {}, 0, 0, "diffusion_gemma/configuration_diffusion_gemma.py", trait::proportional_full_attention, "",
     R"({"sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}, "full_attention": {"rope_type": "proportional", "partial_rotary_factor": 0.25, "rope_theta": 1000000.0}})"},
    {"gemma3n_text", Pairing::half_split, "gemma3n/modeling_gemma3n.py", {}, 0, 0, "gemma3n/configuration_gemma3n.py", 0},
    {"olmo", Pairing::half_split, "olmo/modeling_olmo.py", {}, 0, 0, "", 0},
    {"olmo2", Pairing::half_split, "olmo2/modeling_olmo2.py", {}, 0, 0, "", 0},
    {"gpt_oss", Pairing::half_split, "gpt_oss/modeling_gpt_oss.py", {}, 0, 0, "gpt_oss/configuration_gpt_oss.py", 0, "",
     R"({"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0, "beta_slow": 1.0, "truncate": false, "original_max_position_embeddings": 4096})"},
    {"smollm3", Pairing::half_split, "smollm3/modeling_smollm3.py", {}, 0, 0, "smollm3/configuration_smollm3.py", 0},
    {"exaone4", Pairing::half_split, "exaone4/modeling_exaone4.py", {}, 0, 0, "exaone4/configuration_exaone4.py", 0},
    // Mllama's text model (Llama 3.2 Vision): Llama's rotate_half, base 5e5; the cross-attention layers
    // attend to the image and get no RoPE (models/detail/families/mllama.hpp)
    {"mllama_text_model", Pairing::half_split, "mllama/modeling_mllama.py", {}, 0, 0, "mllama/configuration_mllama.py", 0},
    {"exaone_moe", Pairing::half_split, "exaone_moe/modeling_exaone_moe.py", {}, 0, 0, "exaone_moe/configuration_exaone_moe.py", 0},
    // Kolibri 1 (transformers 5.25): EXAONE 4's attention rule (only sliding_attention layers rotate while a
    // window is set), its class pattern every 5th layer full_attention, window 513
    {"kolibri1", Pairing::half_split, "kolibri1/modeling_kolibri1.py", {}, 0, 0, "kolibri1/configuration_kolibri1.py", 0},
    // Llama's rotate_half over the whole head on every layer (transformers 5.25): Apertus 1.5's text
    // model (Apertus's class-default llama3 x8 dict at 12e6), MiniCPM 5 MoE, Molmo 2's and Granite
    // Docling's text models, ESM C
    {"apertus1p5_text", Pairing::half_split, "apertus1p5/modeling_apertus1p5.py", {}, 0, 0, "apertus1p5/configuration_apertus1p5.py", 0, "",
     R"({"rope_type": "llama3", "rope_theta": 12000000.0, "factor": 8.0, "original_max_position_embeddings": 8192, "low_freq_factor": 1.0, "high_freq_factor": 4.0})"},
    {"minicpm5_moe", Pairing::half_split, "minicpm5_moe/modeling_minicpm5_moe.py", {}, 0, 0, "minicpm5_moe/configuration_minicpm5_moe.py", 0},
    {"molmo2_text", Pairing::half_split, "molmo2/modeling_molmo2.py", {}, 0, 0, "molmo2/configuration_molmo2.py", 0},
    {"granite_docling_text", Pairing::half_split, "granite_docling/modeling_granite_docling.py", {}, 0, 0, "granite_docling/configuration_granite_docling.py", 0},
    {"esmc", Pairing::half_split, "esmc/modeling_esmc.py", {}, 0, 0, "esmc/configuration_esmc.py", 0},
    // Flint (transformers 5.25): Llama's rotate_half on its sliding_attention layers only (families/flint.hpp)
    {"flint", Pairing::half_split, "flint/modeling_flint.py", {}, 0, 0, "flint/configuration_flint.py", 0},
    // Lara Mini, Pocket TTS and Gradium Phonon TTS's backbones (transformers 5.25.0): Llama's rotate_half on the
    // whole head; Lara Mini rotates its sliding_attention layers only (families/sliding_layers_rope.hpp)
    {"lara_mini", Pairing::half_split, "lara_mini/modeling_lara_mini.py", {}, 0, 0, "lara_mini/configuration_lara_mini.py", 0},
    {"pocket_tts", Pairing::half_split, "pocket_tts/modeling_pocket_tts.py", {}, 0, 0, "pocket_tts/configuration_pocket_tts.py", 0},
    {"gradium_phonon_tts", Pairing::half_split, "gradium_phonon_tts/modeling_gradium_phonon_tts.py", {}, 0, 0, "gradium_phonon_tts/configuration_gradium_phonon_tts.py", 0},
    // Dory, UltraBERT and LFM3 (transformers 5.25.0): one table per layer type from class-default dicts
    // (families/class_default_dicts.hpp; the class-default dicts in default_rope); LFM3's full_attention
    // layers use proportional RoPE
    {"dory", Pairing::half_split, "dory/modeling_dory.py", {}, 0, 0, "dory/configuration_dory.py", 0, "",
     R"({"sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}, "full_attention": {"rope_type": "default", "rope_theta": 10000000.0}})"},
    {"ultrabert", Pairing::half_split, "ultrabert/modeling_ultrabert.py", {}, 0, 0, "ultrabert/configuration_ultrabert.py", 0, "",
     R"({"sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}, "full_attention": {"rope_type": "default", "rope_theta": 2560000.0}})"},
    {"lfm3", Pairing::half_split, "lfm3/modeling_lfm3.py", {}, 0, 0, "lfm3/configuration_lfm3.py", trait::proportional_full_attention, "",
     R"({"sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}, "full_attention": {"rope_type": "proportional", "rope_theta": 1000000.0, "partial_rotary_factor": 0.5}})"},
    // Unlimited-OCR's text model (transformers 5.25.0): its configuration class sets head_dim = hidden_size //
    // num_attention_heads whatever the config says
    {"unlimited_ocr_text", Pairing::half_split, "unlimited_ocr/modeling_unlimited_ocr.py", {}, 0, 0, "unlimited_ocr/configuration_unlimited_ocr.py", trait::head_dim_from_hidden},
    // GTE (mGTE encoders, transformers 5.25): Llama's rotate_half, base 160000 (class default); the legacy
    // {"type": "ntk"} dict that its configuration class rewrites is not read (an unknown rope type, refused)
    {"gte", Pairing::half_split, "gte/modeling_gte.py", {}, 0, 0, "gte/configuration_gte.py", 0},
    {"hunyuan_v1_dense", Pairing::half_split, "hunyuan_v1_dense/modeling_hunyuan_v1_dense.py", {}, 0, 0, "", trait::hunyuan_alpha},
    {"hunyuan_v1_moe", Pairing::half_split, "hunyuan_v1_moe/modeling_hunyuan_v1_moe.py", {}, 0, 0, "", trait::hunyuan_alpha},
    // HunYuan-VL (HunyuanOCR): HunYuan's alpha base with XD-RoPE over up to four position axes
    // (models/detail/families/hunyuan_vl.hpp)
    {"hunyuan_vl_text", Pairing::half_split, "hunyuan_vl/modeling_hunyuan_vl.py", {}, 0, 0, "hunyuan_vl/configuration_hunyuan_vl.py",
     trait::hunyuan_alpha | trait::multi_axis, "", "", "", "beta_fast beta_slow mscale mscale_all_dim xdrope_section"},
    {"qwen2_vl", Pairing::half_split, "qwen2_vl/modeling_qwen2_vl.py", {}, 0, 0, "", trait::multi_axis},
    {"qwen2_vl_text", Pairing::half_split, "qwen2_vl/modeling_qwen2_vl.py", {}, 0, 0, "", trait::multi_axis},
    {"qwen2_5_vl", Pairing::half_split, "qwen2_5_vl/modeling_qwen2_5_vl.py", {}, 0, 0, "", trait::multi_axis},
    {"qwen2_5_vl_text", Pairing::half_split, "qwen2_5_vl/modeling_qwen2_5_vl.py", {}, 0, 0, "", trait::multi_axis},
    FamilyRules{"qwen3_vl_text", Pairing::half_split, "qwen3_vl/modeling_qwen3_vl.py", {}, 0, 0, "", trait::multi_axis | trait::always_interleaved_mrope}
        .with_default_mrope_section("[24, 20, 20]"),
    FamilyRules{"qwen3_vl_moe_text", Pairing::half_split, "qwen3_vl_moe/modeling_qwen3_vl_moe.py", {}, 0, 0, "", trait::multi_axis | trait::always_interleaved_mrope}
        .with_default_mrope_section("[24, 20, 20]"),
    // Qwen3-Omni's thinker text model (nested in thinker_config.text_config): Qwen3-VL-MoE's text rotary
    // embedding, class-level default_theta 1e6
    FamilyRules{"qwen3_omni_moe_text", Pairing::half_split, "qwen3_omni_moe/modeling_qwen3_omni_moe.py", {}, 0, 0, "qwen3_omni_moe/configuration_qwen3_omni_moe.py",
                trait::multi_axis | trait::always_interleaved_mrope}
        .with_default_mrope_section("[24, 20, 20]"),
    // Qwen3-Omni's talker (talker_config.text_config) rotates like the thinker; its code predictor has a plain
    // one-axis table (Qwen3OmniMoeRotaryEmbedding)
    FamilyRules{"qwen3_omni_moe_talker_text", Pairing::half_split, "qwen3_omni_moe/modeling_qwen3_omni_moe.py", {}, 0, 0, "qwen3_omni_moe/configuration_qwen3_omni_moe.py",
                trait::multi_axis | trait::always_interleaved_mrope}
        .with_default_mrope_section("[24, 20, 20]"),
    {"qwen3_omni_moe_talker_code_predictor", Pairing::half_split, "qwen3_omni_moe/modeling_qwen3_omni_moe.py", {}, 0, 0, "qwen3_omni_moe/configuration_qwen3_omni_moe.py", 0},
    // Cosmos3 Edge's text model: Qwen3-VL's interleaved M-RoPE written as a masked 3 x (R/2) frequency matrix;
    // rope_parameters["mrope_section"] is required (the class default dict has [24, 20, 20])
    FamilyRules{"cosmos3_edge_text", Pairing::half_split, "cosmos3_edge/modeling_cosmos3_edge.py", {}, 0, 0, "cosmos3_edge/configuration_cosmos3_edge.py",
                trait::multi_axis | trait::always_interleaved_mrope | trait::mrope_required, "",
                R"({"rope_type": "default", "rope_theta": 100000000.0, "mrope_section": [24, 20, 20]})"},
    // GLM-Image's text model: rotate_half on the rotary part with GLM-4.5V's M-RoPE sections (default [8, 12, 12])
    FamilyRules{"glm_image_text", Pairing::half_split, "glm_image/modeling_glm_image.py", {}, 0, 0, "glm_image/configuration_glm_image.py", trait::multi_axis | trait::partial_rotary}
        .with_default_mrope_section("[8, 12, 12]"),
    // MiniMax-M3-VL's text model: MiniMax-M2's rotary part (its class declares rotary_dim 64, which the rotary
    // embedding does not read: see check_unread_rotary_dim), base 5e6
    {"minimax_m3_vl_text", Pairing::half_split, "minimax_m3_vl/modeling_minimax_m3_vl.py", {}, 0, 0, "minimax_m3_vl/configuration_minimax_m3_vl.py", trait::partial_rotary},
    // PaddleOCR-VL's language model: Qwen2-VL's M-RoPE sections with rotate_half, read from
    // rope_parameters["mrope_section"] on every forward pass (no default); hub configs are flat
    {"paddleocr_vl", Pairing::half_split, "paddleocr_vl/modeling_paddleocr_vl.py", {}, 0, 0, "paddleocr_vl/configuration_paddleocr_vl.py", trait::multi_axis | trait::mrope_required},
    {"paddleocr_vl_text", Pairing::half_split, "paddleocr_vl/modeling_paddleocr_vl.py", {}, 0, 0, "paddleocr_vl/configuration_paddleocr_vl.py", trait::multi_axis | trait::mrope_required},
    // Qwen2.5-Omni's language models (the wrapper qwen2_5_omni holds both and is refused below):
    // the thinker's text model and the talker, M-RoPE sections with rotate_half. The thinker's
    // configuration class fills a missing dict with sections [16, 24, 24]; the talker has no
    // default (its attention needs mrope_section) and declares head_dim 128 (its hidden_size /
    // heads is not the head width).
    {"qwen2_5_omni_text", Pairing::half_split, "qwen2_5_omni/modeling_qwen2_5_omni.py", {}, 0, 0, "qwen2_5_omni/configuration_qwen2_5_omni.py", trait::multi_axis, "",
     R"({"rope_type": "default", "mrope_section": [16, 24, 24]})"},
    {"qwen2_5_omni_talker", Pairing::half_split, "qwen2_5_omni/modeling_qwen2_5_omni.py", {}, 0, 0, "qwen2_5_omni/configuration_qwen2_5_omni.py", trait::multi_axis | trait::mrope_required},
    // half_split, rotating only the first rotary_dim = int(head_dim * partial_rotary_factor) dims
    {"stablelm", Pairing::half_split, "stablelm/modeling_stablelm.py", 0.25, 0, 0, "stablelm/configuration_stablelm.py", trait::rotary_from_hidden_head | trait::partial_rotary},
    {"persimmon", Pairing::half_split, "persimmon/modeling_persimmon.py", 0.5, 0, 0, "persimmon/configuration_persimmon.py", trait::rotary_from_hidden_head | trait::partial_rotary},
    {"nemotron", Pairing::half_split, "nemotron/modeling_nemotron.py", 0.5, 0, 0, "nemotron/configuration_nemotron.py", trait::partial_rotary},
    {"glm4_moe", Pairing::half_split, "glm4_moe/modeling_glm4_moe.py", 0.5, 0, 0, "glm4_moe/configuration_glm4_moe.py", trait::partial_rotary},
    // GLM-4.5V's text model: GPT-NeoX's apply_rotary_pos_emb (rotate_half on the rotary part), M-RoPE
    // sections over the pairs (unlike GLM-4.1V's interleaved pairs)
    FamilyRules{"glm4v_moe_text", Pairing::half_split, "glm4v_moe/modular_glm4v_moe.py", 0.5, 0, 0, "glm4v_moe/configuration_glm4v_moe.py", trait::multi_axis | trait::partial_rotary}
        .with_default_mrope_section("[8, 12, 12]"),
    // half_split over the whole head, class defaults that differ from the generic ones
    {"starcoder2", Pairing::half_split, "starcoder2/modeling_starcoder2.py", {}, 0, 0, "starcoder2/configuration_starcoder2.py", 0},
    {"granite", Pairing::half_split, "granite/modeling_granite.py", {}, 0, 0, "granite/configuration_granite.py", 0},
    {"granitemoe", Pairing::half_split, "granitemoe/modeling_granitemoe.py", {}, 0, 0, "granitemoe/configuration_granitemoe.py", 0},
    {"olmoe", Pairing::half_split, "olmoe/modeling_olmoe.py", {}, 0, 0, "olmoe/configuration_olmoe.py", 0},
    {"olmo3", Pairing::half_split, "olmo3/modeling_olmo3.py", {}, 0, 0, "olmo3/configuration_olmo3.py", 0},
    // PhiMoE: LongRoPE with the short factors at every length, cos/sin times short_mscale up to
    // original_max_position_embeddings and long_mscale past it (PhimoeRotaryEmbedding.forward;
    // models/detail/families/phimoe.hpp)
    {"phimoe", Pairing::half_split, "phimoe/modeling_phimoe.py", {}, 0, 0, "phimoe/configuration_phimoe.py", 0, "", "", "", "short_mscale long_mscale"},
    // MiniCPM3: MLA (q and k split into a nope part and a qk_rope_head_dim part) with rotate_half on
    // the rope part, class defaults qk_rope_head_dim 32 and qk_nope_head_dim 64
    {"minicpm3", Pairing::half_split, "minicpm3/modeling_minicpm3.py", {}, 0, 0, "minicpm3/configuration_minicpm3.py", trait::mla, "", "", "", "", 0, 32, 64},
    {"minicpm", Pairing::half_split, "minicpm/modeling_minicpm.py", {}, 0, 32768, "minicpm/configuration_minicpm.py", 0},
    {"ministral", Pairing::half_split, "ministral/modeling_ministral.py", {}, 0, 0, "ministral/configuration_ministral.py", 0},
    {"dots1", Pairing::half_split, "dots1/modeling_dots1.py", {}, 0, 0, "dots1/configuration_dots1.py", 0},
    {"seed_oss", Pairing::half_split, "seed_oss/modeling_seed_oss.py", {}, 0, 0, "seed_oss/configuration_seed_oss.py", 0},
    {"arcee", Pairing::half_split, "arcee/modeling_arcee.py", {}, 0, 0, "arcee/configuration_arcee.py", 0},
    {"bitnet", Pairing::half_split, "bitnet/modeling_bitnet.py", {}, 0, 0, "bitnet/configuration_bitnet.py", 0},
    {"jetmoe", Pairing::half_split, "jetmoe/modeling_jetmoe.py", {}, 0, 0, "jetmoe/configuration_jetmoe.py", 0, "kv_channels"},
    {"vaultgemma", Pairing::half_split, "vaultgemma/modeling_vaultgemma.py", {}, 0, 0, "vaultgemma/configuration_vaultgemma.py", 0},
    {"falcon_h1", Pairing::half_split, "falcon_h1/modeling_falcon_h1.py", {}, 0, 0, "falcon_h1/configuration_falcon_h1.py", 0},
    {"lfm2", Pairing::half_split, "lfm2/modeling_lfm2.py", {}, 0, 0, "lfm2/configuration_lfm2.py", 0, "", "", "theta"},
    // LFM2, LFM2-MoE: conv layers without RoPE (models/detail/families/lfm2.hpp); LFM2-MoE reads layer_types
    // only (no full_attn_idxs, no theta alias)
    {"lfm2_moe", Pairing::half_split, "lfm2_moe/modular_lfm2_moe.py", {}, 0, 0, "lfm2_moe/configuration_lfm2_moe.py", 0},
    // Bamba: attention at attn_layer_indices only, partial factor 0.5 whatever the config says
    // (models/detail/families/bamba.hpp)
    {"bamba", Pairing::half_split, "bamba/modular_bamba.py", 0.5, 0, 0, "bamba/configuration_bamba.py", trait::partial_rotary},
    {"apertus", Pairing::half_split, "apertus/modeling_apertus.py", {}, 0, 0, "apertus/configuration_apertus.py", 0, "",
     R"({"rope_type": "llama3", "rope_theta": 12000000.0, "factor": 8.0, "original_max_position_embeddings": 8192, "low_freq_factor": 1.0, "high_freq_factor": 4.0})"},
    // CWM: Llama's rotate_half over the whole head, one table for every layer (layer types set only
    // the sliding window); no RoPE dict = llama3 x16 at 1e6
    {"cwm", Pairing::half_split, "cwm/modeling_cwm.py", {}, 0, 0, "cwm/configuration_cwm.py", 0, "",
     R"({"rope_type": "llama3", "rope_theta": 1000000.0, "factor": 16.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0, "original_max_position_embeddings": 8192})"},
    {"flex_olmo", Pairing::half_split, "flex_olmo/modular_flex_olmo.py", {}, 0, 0, "flex_olmo/configuration_flex_olmo.py", 0},
    // Ministral 3: Mistral's rotate_half; no RoPE dict = YaRN x16 with Llama 4's query scale
    // (llama_4_scaling_beta: trait::llama_4_scaling_beta)
    {"ministral3", Pairing::half_split, "ministral3/modular_ministral3.py", {}, 0, 0, "ministral3/configuration_ministral3.py", trait::llama_4_scaling_beta, "",
     R"({"rope_type": "yarn", "rope_theta": 1000000.0, "factor": 16.0, "original_max_position_embeddings": 16384, "beta_fast": 32.0, "beta_slow": 1.0, "mscale_all_dim": 1.0, "mscale": 1.0, "llama_4_scaling_beta": 0.1})",
     "", "llama_4_scaling_beta max_position_embeddings"},
    // Mistral 4: MLA, the rope part the last qk_rope_head_dim (64) of a 128 head, interleaved unless
    // rope_interleave is false (models/detail/families/mistral4.hpp); no RoPE dict = YaRN x128 with Llama 4's
    // query scale
    {"mistral4", Pairing::interleaved, "mistral4/modeling_mistral4.py", {}, 0, 0, "mistral4/configuration_mistral4.py",
     trait::partial_rotary | trait::reads_rope_interleave | trait::mla_softmax_mscale | trait::llama_4_scaling_beta, "",
     R"({"type": "yarn", "rope_theta": 10000.0, "factor": 128.0, "original_max_position_embeddings": 8192, "beta_fast": 32.0, "beta_slow": 1.0, "mscale_all_dim": 1.0, "mscale": 1.0, "llama_4_scaling_beta": 0.1})",
     "", "llama_4_scaling_beta max_position_embeddings", 0, 64, 64},
    // MiniMax-M2: GLM-4-MoE-style rotate_half on the first int(head_dim * partial_rotary_factor) dims; its
    // configuration class declares neither the factor nor rotary_dim (a config's partial_rotary_factor
    // reaches the dict, rotary_dim is not read); class-level default_theta 5e6
    {"minimax_m2", Pairing::half_split, "minimax_m2/modeling_minimax_m2.py", {}, 0, 0, "minimax_m2/configuration_minimax_m2.py", trait::partial_rotary},
    // Llama's rotate_half over the whole head, one table for every layer; class defaults as each
    // configuration class declares them (default_theta / rope_theta, head_dim, max_position_embeddings)
    {"aria_text", Pairing::half_split, "aria/modeling_aria.py", {}, 0, 0, "aria/configuration_aria.py", 0},
    {"chameleon", Pairing::half_split, "chameleon/modeling_chameleon.py", {}, 0, 0, "chameleon/configuration_chameleon.py", 0},
    {"csm", Pairing::half_split, "csm/modeling_csm.py", {}, 0, 0, "csm/configuration_csm.py", 0},
    {"csm_depth_decoder_model", Pairing::half_split, "csm/modeling_csm.py", {}, 0, 0, "csm/configuration_csm.py", 0},
    {"deepseek_ocr2_text", Pairing::half_split, "deepseek_ocr2/modeling_deepseek_ocr2.py", {}, 0, 0, "deepseek_ocr2/configuration_deepseek_ocr2.py", trait::head_dim_from_hidden},
    {"deepseek_ocr2_encoder", Pairing::half_split, "deepseek_ocr2/modeling_deepseek_ocr2.py", {}, 0, 0, "deepseek_ocr2/configuration_deepseek_ocr2.py", 0},
    {"dia_decoder", Pairing::half_split, "dia/modeling_dia.py", {}, 0, 0, "dia/configuration_dia.py", 0},
    {"dia_encoder", Pairing::half_split, "dia/modeling_dia.py", {}, 0, 0, "dia/configuration_dia.py", 0},
    {"diffllama", Pairing::half_split, "diffllama/modeling_diffllama.py", {}, 0, 0, "diffllama/configuration_diffllama.py", 0},
    {"doge", Pairing::half_split, "doge/modeling_doge.py", {}, 0, 0, "doge/configuration_doge.py", 0},
    {"emu3_text_model", Pairing::half_split, "emu3/modeling_emu3.py", {}, 0, 0, "emu3/configuration_emu3.py", 0},
    {"eurobert", Pairing::half_split, "eurobert/modeling_eurobert.py", {}, 0, 0, "eurobert/configuration_eurobert.py", 0},
    {"evolla", Pairing::half_split, "evolla/modeling_evolla.py", {}, 0, 0, "evolla/configuration_evolla.py", 0},
    {"EvollaModel", Pairing::half_split, "evolla/modeling_evolla.py", {}, 0, 0, "evolla/configuration_evolla.py", 0},
    {"gpt_neox_japanese", Pairing::half_split, "gpt_neox_japanese/modeling_gpt_neox_japanese.py", {}, 0, 0, "gpt_neox_japanese/configuration_gpt_neox_japanese.py", trait::neox_key_names},
    {"granite4_vision_text", Pairing::half_split, "granite4_vision/modeling_granite4_vision.py", {}, 0, 0, "granite4_vision/configuration_granite4_vision.py", 0},
    {"granitemoeshared", Pairing::half_split, "granitemoeshared/modeling_granitemoeshared.py", {}, 0, 0, "granitemoeshared/configuration_granitemoeshared.py", 0},
    {"hrm_text", Pairing::half_split, "hrm_text/modeling_hrm_text.py", {}, 0, 0, "hrm_text/configuration_hrm_text.py", 0},
    {"hy_v3", Pairing::half_split, "hy_v3/modeling_hy_v3.py", {}, 0, 0, "hy_v3/configuration_hy_v3.py", 0},
    {"hyperclovax", Pairing::half_split, "hyperclovax/modeling_hyperclovax.py", {}, 0, 0, "hyperclovax/configuration_hyperclovax.py", 0},
    {"jais2", Pairing::half_split, "jais2/modeling_jais2.py", {}, 0, 0, "jais2/configuration_jais2.py", 0},
    {"jina_embeddings_v3", Pairing::half_split, "jina_embeddings_v3/modeling_jina_embeddings_v3.py", {}, 0, 0, "jina_embeddings_v3/configuration_jina_embeddings_v3.py", 0},
    {"kyutai_speech_to_text", Pairing::half_split, "kyutai_speech_to_text/modeling_kyutai_speech_to_text.py", {}, 0, 0, "kyutai_speech_to_text/configuration_kyutai_speech_to_text.py", 0},
    {"moshi", Pairing::half_split, "moshi/modeling_moshi.py", {}, 0, 0, "moshi/configuration_moshi.py", 0},
    {"nanochat", Pairing::half_split, "nanochat/modeling_nanochat.py", {}, 0, 0, "nanochat/configuration_nanochat.py", 0},
    {"nomic_bert", Pairing::half_split, "nomic_bert/modeling_nomic_bert.py", {}, 0, 0, "nomic_bert/configuration_nomic_bert.py", 0},
    {"solar_open", Pairing::half_split, "solar_open/modeling_solar_open.py", {}, 0, 0, "solar_open/configuration_solar_open.py", 0},
    {"t5_gemma_module", Pairing::half_split, "t5gemma/modeling_t5gemma.py", {}, 0, 0, "t5gemma/configuration_t5gemma.py", 0},
    {"voxtral_realtime_text", Pairing::half_split, "voxtral_realtime/modeling_voxtral_realtime.py", {}, 0, 0, "voxtral_realtime/configuration_voxtral_realtime.py", 0},
    {"voxtral_realtime_encoder", Pairing::half_split, "voxtral_realtime/modeling_voxtral_realtime.py", {}, 0, 0, "voxtral_realtime/configuration_voxtral_realtime.py", 0},
    // ... rotating the first int(head_dim * partial_rotary_factor) dims (the attention slices q and k)
    {"phi4_multimodal", Pairing::half_split, "phi4_multimodal/modeling_phi4_multimodal.py", {}, 0, 0, "phi4_multimodal/configuration_phi4_multimodal.py", trait::partial_rotary | trait::longrope_only},
    // ... with a class-default llama3 dict
    {"higgs_audio_v2", Pairing::half_split, "higgs_audio_v2/modeling_higgs_audio_v2.py", {}, 0, 0, "higgs_audio_v2/configuration_higgs_audio_v2.py", 0, "",
     R"({"rope_type": "llama3", "rope_theta": 500000.0, "factor": 32.0, "high_freq_factor": 0.5, "low_freq_factor": 0.125, "original_max_position_embeddings": 1024})"},
    // Families whose configuration class fills in per-layer-type rope_parameters (models/detail/families/):
    // Laguna, MiMo-V2-Flash, ZAYA rotate the first int(head_dim * partial_rotary_factor) dims with rotate_half
    {"laguna", Pairing::half_split, "laguna/modeling_laguna.py", {}, 0, 0, "laguna/configuration_laguna.py", trait::partial_rotary},
    {"mimo_v2_flash", Pairing::half_split, "mimo_v2_flash/modeling_mimo_v2_flash.py", {}, 0, 0, "mimo_v2_flash/configuration_mimo_v2_flash.py", trait::partial_rotary},
    {"zaya", Pairing::half_split, "zaya/modeling_zaya.py", {}, 0, 0, "zaya/configuration_zaya.py", trait::partial_rotary},
    {"mellum", Pairing::half_split, "mellum/modeling_mellum.py", {}, 0, 0, "mellum/configuration_mellum.py", 0},
    {"modernbert", Pairing::half_split, "modernbert/modeling_modernbert.py", {}, 0, 0, "modernbert/configuration_modernbert.py", 0},
    {"modernbert-decoder", Pairing::half_split, "modernbert_decoder/modeling_modernbert_decoder.py", {}, 0, 0, "modernbert_decoder/configuration_modernbert_decoder.py", 0},
    // A base per layer, 0 = NoPE (layer_rope_theta; models/detail/families/layer_rope_theta.hpp)
    {"granite_swa", Pairing::half_split, "granite_swa/modeling_granite_swa.py", {}, 0, 0, "granite_swa/configuration_granite_swa.py", 0},
    {"granitemoe_swa", Pairing::half_split, "granitemoe_swa/modeling_granitemoe_swa.py", {}, 0, 0, "granitemoe_swa/configuration_granitemoe_swa.py", 0},
    // Muse Glimmer's draft model: rotate_half on every layer (its queries take the table's last rows)
    {"muse_glimmer_assistant", Pairing::half_split, "muse_glimmer_assistant/modeling_muse_glimmer_assistant.py", {}, 0, 0, "muse_glimmer_assistant/configuration_muse_glimmer_assistant.py", 0},
    {"muse_glimmer_text", Pairing::half_split, "muse_glimmer/modeling_muse_glimmer.py", {}, 0, 0, "muse_glimmer/configuration_muse_glimmer.py", 0},
    // Muse Spark's text model (transformers 5.25.0): Muse Glimmer's layer_rope_theta rule (families/layer_rope_theta.hpp);
    // no RoPE dict = {default, 500000} (its configuration class)
    {"muse_spark_text", Pairing::half_split, "muse_spark/modeling_muse_spark.py", {}, 0, 0, "muse_spark/configuration_muse_spark.py", 0, "",
     R"({"rope_type": "default", "rope_theta": 500000.0})"},
    // RoPE decided per layer by the attention kind (models/detail/families/nope_by_attention.hpp)
    {"afmoe", Pairing::half_split, "afmoe/modeling_afmoe.py", {}, 0, 0, "afmoe/configuration_afmoe.py", 0},
    {"cohere2_moe", Pairing::interleaved, "cohere2_moe/modeling_cohere2_moe.py", {}, 0, 0, "cohere2_moe/configuration_cohere2_moe.py", 0},
    // Encoders that switch RoPE on with keys of their own (models/detail/families/own_rope_keys.hpp)
    {"wav2vec2-bert", Pairing::half_split, "wav2vec2_bert/modeling_wav2vec2_bert.py", {}, 0, 5000, "wav2vec2_bert/configuration_wav2vec2_bert.py", 0},
    {"wav2vec2-conformer", Pairing::half_split, "wav2vec2_conformer/modeling_wav2vec2_conformer.py", {}, 0, 5000, "wav2vec2_conformer/configuration_wav2vec2_conformer.py", 0},
    {"seamless_m4t", Pairing::half_split, "seamless_m4t/modeling_seamless_m4t.py", {}, 0, 4096, "seamless_m4t/configuration_seamless_m4t.py", 0},
    {"esm", Pairing::half_split, "esm/modeling_esm.py", {}, 0, 0, "esm/configuration_esm.py", 0},
    {"clvp_encoder", Pairing::half_split, "clvp/modeling_clvp.py", {}, 0, 0, "clvp/configuration_clvp.py", trait::partial_rotary},
    // RoFormer (the RoPE paper's model): interleaved pairs over the whole head, base 10000
    {"roformer", Pairing::interleaved, "roformer/modeling_roformer.py", {}, 0, 0, "roformer/configuration_roformer.py", 0},
    // Moonshine: GLM-style interleaved pairs (repeat_interleave of cos / sin's first half) in the rotary part
    {"moonshine", Pairing::interleaved, "moonshine/modeling_moonshine.py", 0.9, 0, 0, "moonshine/configuration_moonshine.py", trait::partial_rotary},
    {"moonshine_streaming", Pairing::interleaved, "moonshine_streaming/modeling_moonshine_streaming.py", {}, 0, 0, "moonshine_streaming/configuration_moonshine_streaming.py", trait::partial_rotary, "",
     R"({"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.8})"},
    // Step 3.5 / 3.7: per-layer rope_theta and partial_rotary_factors lists, one table per layer type
    {"step3p5", Pairing::half_split, "step3p7/modeling_step3p7.py", {}, 0, 0, "step3p7/configuration_step3p7.py", trait::partial_rotary},
    // ---- interleaved pairs (2i, 2i + 1)
    // DeepSeek-V4: interleaved pairs on the last int(head_dim * partial_rotary_factor) (64 of 512) coordinates,
    // the output's slice rotated back; groups "main" and "compress" (models/detail/families/deepseek_v4.hpp)
    {"deepseek_v4", Pairing::interleaved, "deepseek_v4/modeling_deepseek_v4.py", {}, 0, 0, "deepseek_v4/configuration_deepseek_v4.py",
     trait::partial_rotary},
    {"gptj", Pairing::interleaved, "gptj/modeling_gptj.py", {}, 0, 0, "", trait::rotary_dim_key},
    {"codegen", Pairing::interleaved, "codegen/modeling_codegen.py", {}, 0, 0, "", trait::rotary_dim_key},
    {"cohere", Pairing::interleaved, "cohere/modeling_cohere.py", {}, 0, 0, "", 0},
    {"cohere2", Pairing::interleaved, "cohere2/modeling_cohere2.py", {}, 0, 0, "cohere2/configuration_cohere2.py", 0},
    {"glm", Pairing::interleaved, "glm/modeling_glm.py", 0.5, 0, 0, "glm/configuration_glm.py", trait::partial_rotary},
    {"glm4", Pairing::interleaved, "glm4/modeling_glm4.py", 0.5, 0, 0, "glm4/configuration_glm4.py", trait::partial_rotary},
    // DeepSeek MLA: RoPE on the qk_rope_head_dim slice; V2 rotates complex pairs, V3 reads rope_interleave, V3.2 always interleaves
    {"deepseek_v2", Pairing::interleaved, "deepseek_v2/modeling_deepseek_v2.py", {}, 0, 0, "deepseek_v2/configuration_deepseek_v2.py", trait::mla},
    {"deepseek_v3", Pairing::interleaved, "deepseek_v3/modeling_deepseek_v3.py", {}, 0, 0, "deepseek_v3/configuration_deepseek_v3.py", trait::mla | trait::reads_rope_interleave | trait::mla_softmax_mscale | trait::mla_table_width_head_dim},
    {"deepseek_v32", Pairing::interleaved, "deepseek_v32/modeling_deepseek_v32.py", {}, 0, 0, "deepseek_v32/configuration_deepseek_v32.py", trait::mla | trait::mla_softmax_mscale},
    // LongCat Flash: DeepSeek-V3's MLA with apply_rotary_pos_emb_interleave always (rope_interleave not
    // read); the table is head_dim wide (class default 64), which must equal qk_rope_head_dim; two
    // attention sublayers per decoder layer
    {"longcat_flash", Pairing::interleaved, "longcat_flash/modeling_longcat_flash.py", {}, 0, 0, "longcat_flash/configuration_longcat_flash.py", trait::mla | trait::mla_softmax_mscale | trait::mla_table_width_head_dim},
    {"ernie4_5", Pairing::interleaved, "ernie4_5/modeling_ernie4_5.py", {}, 0, 0, "ernie4_5/configuration_ernie4_5.py", 0},
    {"ernie4_5_moe", Pairing::interleaved, "ernie4_5_moe/modeling_ernie4_5_moe.py", {}, 0, 0, "ernie4_5_moe/configuration_ernie4_5_moe.py", 0},
    // ERNIE-4.5-VL: ERNIE 4.5's interleaved pairs with its 3-D RoPE (models/detail/families/ernie4_5_vl.hpp)
    FamilyRules{"ernie4_5_vl_moe_text", Pairing::interleaved, "ernie4_5_vl_moe/modeling_ernie4_5_vl_moe.py", {}, 0, 0, "ernie4_5_vl_moe/configuration_ernie4_5_vl_moe.py", trait::multi_axis}
        .with_default_mrope_section("[22, 22, 20]"),
    // DeepSeek-V3's MLA in other families: RoPE on the qk_rope_head_dim slice, rope_interleave read (true by
    // default; false: rotate_half), the softmax scale times g(s, mscale_all_dim)^2 under YaRN
    {"axk1", Pairing::interleaved, "axk1/modeling_axk1.py", {}, 0, 0, "axk1/configuration_axk1.py",
     trait::mla | trait::reads_rope_interleave | trait::mla_softmax_mscale | trait::mla_table_width_head_dim, "", "", "", "", 0, 64, 128},
    // GLM-4.7-Flash: head_dim an alias of qk_rope_head_dim (models/detail/families/glm4_moe_lite.hpp)
    {"glm4_moe_lite", Pairing::interleaved, "glm4_moe_lite/modeling_glm4_moe_lite.py", {}, 0, 0, "glm4_moe_lite/configuration_glm4_moe_lite.py",
     trait::mla | trait::reads_rope_interleave | trait::mla_softmax_mscale, "", "", "", "", 0, 64, 192},
    {"youtu", Pairing::interleaved, "youtu/modeling_youtu.py", {}, 0, 0, "youtu/configuration_youtu.py",
     trait::mla | trait::reads_rope_interleave | trait::mla_softmax_mscale | trait::mla_table_width_head_dim, "", "", "", "", 0, 64, 128},
    // DeepSeek-V3.2's MLA (always interleaved) with a sparse-attention indexer; the indexer's own use of
    // the table (AXK2: rotate_half on its first qk_rope_head_dim dims) scores tokens, it is not attention
    {"axk2", Pairing::interleaved, "axk2/modeling_axk2.py", {}, 0, 0, "axk2/configuration_axk2.py",
     trait::mla | trait::mla_softmax_mscale, "", "", "", "", 0, 32, 64},
    {"glm_moe_dsa", Pairing::interleaved, "glm_moe_dsa/modeling_glm_moe_dsa.py", {}, 0, 0, "glm_moe_dsa/configuration_glm_moe_dsa.py",
     trait::mla | trait::mla_softmax_mscale, "", "", "", "", 0, 64, 192},
    // Bailing hybrid (transformers 5.25.0): MLA full_attention layers, interleaved on the qk_rope_head_dim
    // slice (head_dim set to it, yarn_apply_mscale in the softmax scale); its linear_attention layers
    // take no position embeddings (families/linear_attention.hpp, every layer_group_size-th layer full)
    {"bailing_hybrid", Pairing::interleaved, "bailing_hybrid/modeling_bailing_hybrid.py", {}, 0, 0, "bailing_hybrid/configuration_bailing_hybrid.py",
     trait::mla | trait::mla_softmax_mscale, "", "", "", "", 0, 64, 128},
    // HY-V4 and HY-V4-VL's text model (transformers 5.25): GLM-MoE-DSA's MLA (interleaved on the qk_rope_head_dim
    // slice, head_dim set to it, yarn_apply_mscale in the softmax scale); the indexer rotates the LAST
    // qk_rope_head_dim of its index_head_dim (128) dims with the same table, interleaved: not read
    {"hy_v4", Pairing::interleaved, "hy_v4/modeling_hy_v4.py", {}, 0, 0, "hy_v4/configuration_hy_v4.py",
     trait::mla | trait::mla_softmax_mscale, "", "", "", "", 0, 64, 192},
    // HY-V4-VL's text model adds Qwen3-VL's interleaved M-RoPE over the pairs (T H W T H W ...; its
    // configuration class sets mrope_section [12, 10, 10] when the dict has none)
    FamilyRules{"hy_v4_vl_text", Pairing::interleaved, "hy_v4_vl/modeling_hy_v4_vl.py", {}, 0, 0, "hy_v4_vl/configuration_hy_v4_vl.py",
     trait::mla | trait::mla_softmax_mscale | trait::multi_axis | trait::always_interleaved_mrope, "", "", "", "", 0, 64, 192}
        .with_default_mrope_section("[12, 10, 10]"),
    // OpenAI's privacy filter: gpt-oss's class-default YaRN x32 at base 150000 with interleaved pairs
    // (_apply_rotary_emb: x[..., ::2] and x[..., 1::2])
    {"openai_privacy_filter", Pairing::interleaved, "openai_privacy_filter/modeling_openai_privacy_filter.py", {}, 0, 0, "openai_privacy_filter/configuration_openai_privacy_filter.py", 0, "",
     R"({"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0, "beta_slow": 1.0, "truncate": false, "original_max_position_embeddings": 4096})"},
    {"helium", Pairing::interleaved, "helium/modeling_helium.py", {}, 0, 0, "helium/configuration_helium.py", 0},
    // Ergo (transformers 5.25.0): interleaved pairs on its sliding_attention layers only (families/sliding_layers_rope.hpp)
    {"ergo", Pairing::interleaved, "ergo/modeling_ergo.py", {}, 0, 0, "ergo/configuration_ergo.py", 0},
    // GLM-OCR's text model: GLM-4.1V's interleaved pairs (apply_rotary_pos_emb repeat_interleave) in the
    // rotary part, M-RoPE sections, default [8, 12, 12]
    FamilyRules{"glm_ocr_text", Pairing::interleaved, "glm_ocr/modeling_glm_ocr.py", {}, 0, 0, "glm_ocr/configuration_glm_ocr.py", trait::multi_axis | trait::partial_rotary}
        .with_default_mrope_section("[8, 12, 12]"),
    FamilyRules{"glm4v_text", Pairing::interleaved, "glm4v/modeling_glm4v.py", {}, 0, 0, "glm4v/configuration_glm4v.py", trait::multi_axis | trait::rotary_from_hidden_head | trait::partial_rotary}
        .with_default_mrope_section("[8, 12, 12]"),
    // Llama 4's text model: NoPE layers by no_rope_layers, their queries temperature-tuned (families/llama4.hpp)
    {"llama4_text", Pairing::interleaved, "llama4/modeling_llama4.py", {}, 0, 0, "llama4/configuration_llama4.py", 0},
};

/// BLT's attention multiplies q by cos / sin built with repeat_interleave (cos[2i] = cos[2i + 1] =
/// cos(theta_i)) but rotates with rotate_half (coordinate j with j + H/2): the two coordinates of a
/// pair turn by different angles, which is not a rotation.
inline constexpr std::string_view blt_reason =
    "is not representable: BLT pairs coordinate j with j + H/2 (rotate_half) but builds cos and sin with repeat_interleave, "
    "so the two coordinates of a pair turn by different angles (theta_{j/2} and theta_{j/2 + H/4}); that is not a "
    "rotation, and posenc describes rotations only";

/// The refusals. Paths are relative to src/transformers/models/ in the transformers repository.
inline constexpr FamilyRefusal family_refusals[] = {
    {"moshi_depth", RefuseWhen::always, "model_type",
     "has no RoPE: Moshi's depth decoder builds its attention layers with use_rope=False (no rotary embedding), "
     "so no table describes it; read the main model (model_type moshi) for Moshi's RoPE",
     "moshi/modeling_moshi.py"},
    {"phimoe", RefuseWhen::scaled_except_longrope, "short_mscale",
     "is not representable: PhiMoE multiplies cos and sin by short_mscale or long_mscale, chosen on every forward pass by the "
     "sequence length, in place of the rope type's attention factor (its configuration class requires both for every rope "
     "type but default); posenc represents that for rope type longrope only (LongRopeSwitchRule::phimoe_magnitude_only)",
     "phimoe/modeling_phimoe.py, phimoe/configuration_phimoe.py"},
    {"minicpm", RefuseWhen::longrope, "rope_type",
     "is not representable: MiniCPM's own LongRoPE (short_factor or long_factor chosen on every forward pass by "
     "max(position_ids) + 1) needs a table that changes with the sequence, which a posenc group (one table) cannot hold",
     "minicpm/modular_minicpm.py"},
    {"olmo3", RefuseWhen::scaled, "rope_type",
     "is not representable as one dict: OLMo 3 scales only its full_attention layers (sliding_attention layers rotate "
     "unscaled), and transformers versions differ on how a single dict is applied; give rope_parameters per layer type",
     "olmo3/modular_olmo3.py"},
    {"granitemoehybrid", RefuseWhen::always, "position_embedding_type",
     "is not representable: GraniteMoeHybrid rotates only when position_embedding_type is \"rope\" (absent means no RoPE "
     "at all), then only on its attention layers (mamba layers have none), and transformers versions differ on whether "
     "its attention applies the rotation at all",
     "granitemoehybrid/modular_granitemoehybrid.py"},
    {"zamba2", RefuseWhen::always, "use_mem_rope",
     "is not representable: Zamba2 rotates only its shared hybrid blocks, only when use_mem_rope is true, with heads of "
     "2 * hidden_size / num_attention_heads and a long-context base",
     "zamba2/modular_zamba2.py"},
    {"dbrx", RefuseWhen::always, "attn_config",
     "is not representable: DBRX keeps rope_theta in attn_config and its sizes in d_model / n_heads, which posenc does not "
     "read",
     "dbrx/configuration_dbrx.py"},
    {"minimax", RefuseWhen::always, "model_type",
     "is not representable: MiniMax rotates only its full-attention layers (lightning attention layers have none), and its "
     "rotary width is not settled by the config",
     "minimax/modular_minimax.py"},
    {"recurrent_gemma", RefuseWhen::always, "partial_rotary_factor",
     "is not representable as one answer: RecurrentGemma's configuration sets it to 0.5 by default, the released model "
     "rotates half of each head, transformers 5.16's default rope table ignores it (the whole head rotates) while its "
     "scaled rope types honour it",
     "recurrent_gemma/configuration_recurrent_gemma.py, recurrent_gemma/modeling_recurrent_gemma.py"},
    {"blt_local_decoder", RefuseWhen::always, "model_type", blt_reason, "blt/modeling_blt.py"},
    {"blt_local_encoder", RefuseWhen::always, "model_type", blt_reason, "blt/modeling_blt.py"},
    {"blt_patcher", RefuseWhen::always, "model_type", blt_reason, "blt/modeling_blt.py"},
    {"cohere_compass_text", RefuseWhen::always, "rope_parameters",
     "is not representable: Cohere Compass builds one M-RoPE table per layer type (mrope_section in each layer type's "
     "dict), and posenc's model has one multi-axis layout for all its layers",
     "cohere_compass/modeling_cohere_compass.py"},
    // Families added after decba1d2, read in transformers 5.25.0 (the released files; the sweep's
    // tests/data/transformers_sweep_families.json holds what their code computes).
    {"embedding_gemma2_text", RefuseWhen::always, "per_layer_config",
     "is not representable yet: EmbeddingGemma 2 takes each layer's head_dim from per_layer_config (512 on its "
     "full_attention layers in the class default), which posenc does not read",
     "embedding_gemma2/configuration_embedding_gemma2.py"},
    {"neomme", RefuseWhen::always, "rope_parameters",
     "is not representable: NeoMME's text layers rotate two position axes (rows on the even frequencies, columns on "
     "the odd ones) with one table per layer type (its own rope_theta and partial_rotary_factor each), and posenc's "
     "model has one multi-axis layout for all its layers",
     "neomme/modeling_neomme.py, neomme/configuration_neomme.py"},
    {"kolibri1_1", RefuseWhen::always, "kv_source_layers",
     "is not representable: Kolibri 1.1 rotates only its sliding_attention layers that compute their own keys; a layer "
     "whose kv_source_layers entry names another layer takes that layer's rotated keys and leaves its queries unrotated, "
     "which posenc's per-layer description (rotate q and k, or neither) cannot say",
     "kolibri1_1/modeling_kolibri1_1.py, kolibri1_1/configuration_kolibri1_1.py"},
    {"beam", RefuseWhen::always, "layer_types",
     "is not representable: Beam rotates only its sliding_attention layers, and multiplies the query of each "
     "full_attention (NoPE) layer by (1 + (position + 1) / 2048)^0.1, a query scale posenc's model does not hold (it "
     "holds Llama 4's and Ministral 3's logarithmic ones)",
     "beam/modeling_beam.py, beam/configuration_beam.py"},
    {"mistral_large4_text", RefuseWhen::always, "model_type",
     "is not representable: Mistral Large 4 multiplies each query by scale_h * ln(position + 1) + bias_h with learned "
     "per-head weights (MistralLarge4TextSoftmaxScaling), which no config key states, and its NoPE layers "
     "(no_rope_layers) share keys with other layers",
     "mistral_large4/modeling_mistral_large4.py"},
    {"glm5_next_text", RefuseWhen::always, "model_type",
     "has no RoPE: GLM-5-Next's language model builds no rotary embedding (its MLA layers have qk_rope_head_dim 0 and "
     "3 of 4 layers are linear attention), so no table describes it",
     "glm5_next/modeling_glm5_next.py"},
    {"kimi_linear", RefuseWhen::always, "model_type",
     "has no RoPE: Kimi Linear's MLA layers apply no rotary embedding (NoPE) and its other layers are linear attention, "
     "so no table describes it",
     "kimi_linear/modeling_kimi_linear.py"},
    {"inkling2_text", RefuseWhen::always, "model_type",
     "has no RoPE: Inkling 2's language model builds no rotary embedding; its attention adds a learned relative-position "
     "bias (d_rel states per head, zero beyond rel_extent tokens back) and scales by 1 + log_scaling_alpha * "
     "ln(max((position + 1) / log_scaling_n_floor, 1)), neither of which is a rotation",
     "inkling2/modeling_inkling2.py"},
    {"dots3_note_text", RefuseWhen::always, "per_layer_config",
     "is not representable yet: dots.3 Note takes its sliding_attention layers' MLA sizes from per_layer_config (the "
     "released swa_* keys: head_dim 256, qk_nope_head_dim 192, so a rotary slice of its own) with a base of their own "
     "(swa_rope_theta, default 50000), beside indexed_attention layers whose sparse-attention indexer also rotates; "
     "posenc does not read per_layer_config",
     "dots3_note/configuration_dots3_note.py, dots3_note/modeling_dots3_note.py"},
    {"dots3_note", RefuseWhen::always, "per_layer_config",
     "is not representable yet: dots.3 Note (its text model at the top level, as the released checkpoints store it) "
     "takes its sliding_attention layers' MLA sizes and base from per_layer_config and swa_* keys, which posenc does "
     "not read",
     "dots3_note/configuration_dots3_note.py"},
    {"nemotron_h", RefuseWhen::always, "model_type",
     "has no RoPE: NemotronH's attention layers apply no rotary embedding (its other layers are Mamba and MoE blocks), "
     "so no table describes it",
     "nemotron_h/modeling_nemotron_h.py"},
    {"nemo_speechlm", RefuseWhen::always, "model_type",
     "has no RoPE in its language model: Nemotron 3.5 Transcribe's text_config is a NemotronH model (no rotary "
     "embedding); its RoPE is in the speech encoder and the word-timestamp head (audio towers, not read)",
     "nemotron3_5_transcribe/configuration_nemotron3_5_transcribe.py"},
    {"unlimited_ocr", RefuseWhen::always, "language_config",
     "expected the language model in text_config: Unlimited-OCR's configuration class falls back to the original "
     "checkpoints' language_config (with sliding_window taken from the top level), which posenc does not read",
     "unlimited_ocr/configuration_unlimited_ocr.py"},
    // Families transformers does not define: their RoPE lives in the checkpoints' remote code, which
    // posenc does not follow.
    {"deepseek_v41", RefuseWhen::always, "model_type",
     "is not defined in a transformers release (5.25.0 has no deepseek_v41 folder; its files exist only on an unmerged "
     "branch), so posenc has no released code to check its RoPE against",
     "(no released transformers file)"},
    {"k2_horizon", RefuseWhen::always, "model_type",
     "is not defined in a transformers release (5.25.0 has no k2_horizon folder; its files exist only on an unmerged "
     "branch), so posenc has no released code to check its RoPE against",
     "(no released transformers file)"},
    {"bailing_moe", RefuseWhen::always, "model_type",
     "is not defined in transformers (Bailing / Ling models run their checkpoint's own remote code, whose RoPE "
     "posenc has not been checked against)",
     "(no transformers file)"},
    {"bailing_moe_v2", RefuseWhen::always, "model_type",
     "is not defined in transformers (Bailing / Ling models run their checkpoint's own remote code, whose RoPE "
     "posenc has not been checked against)",
     "(no transformers file)"},
    {"bailingmm", RefuseWhen::always, "model_type",
     "is not defined in transformers (Ling's vision-language models run their checkpoint's own remote code, whose "
     "multimodal RoPE posenc has not been checked against)",
     "(no transformers file)"},
};

/// The towers with RoPE the language-model reader refuses (see RoPEOutsideLanguage).
inline constexpr RoPEOutsideLanguage rope_outside_language[] = {
    {"chameleon_vqgan", TowerKind::vision}, {"cohere_compass_vision", TowerKind::vision},
    {"cosmos3_edge_vision", TowerKind::vision}, {"deepseek_ocr2_sam_vision_model", TowerKind::vision},
    {"deepseek_ocr2_vision", TowerKind::vision}, {"dinov3_vit", TowerKind::vision}, {"edgetam_video", TowerKind::vision},
    {"emu3_vqgan", TowerKind::vision}, {"eomt_dinov3", TowerKind::vision}, {"ernie4_5_vl_moe_vision", TowerKind::vision},
    {"exaone4_5_vision", TowerKind::vision}, {"gemma3n_vision", TowerKind::vision}, {"gemma4_unified_vision", TowerKind::vision},
    {"gemma4_vision", TowerKind::vision}, {"glm4v_moe_vision", TowerKind::vision}, {"glm4v_vision", TowerKind::vision},
    {"glm_image_vision", TowerKind::vision}, {"glm_image_vqmodel", TowerKind::vision}, {"glm_ocr_vision", TowerKind::vision},
    {"hunyuan_vl_vision", TowerKind::vision}, {"idefics_perciever", TowerKind::vision}, {"idefics_vision", TowerKind::vision},
    {"kimi_k25_vision", TowerKind::vision}, {"llama4_vision_model", TowerKind::vision}, {"minimax_m3_vl_vision", TowerKind::vision},
    {"mlcd", TowerKind::vision}, {"mlcd_vision_model", TowerKind::vision}, {"mllama_vision_model", TowerKind::vision},
    {"muse_glimmer_vision", TowerKind::vision}, {"paddleocr_vl_vision", TowerKind::vision},
    {"phi4_multimodal_vision", TowerKind::vision}, {"pixtral", TowerKind::vision},
    {"qwen2_5_omni_vision_encoder", TowerKind::vision}, {"qwen2_5_vl_vision", TowerKind::vision},
    {"qwen2_vl_vision", TowerKind::vision}, {"qwen3_5_moe_vision", TowerKind::vision}, {"qwen3_5_vision", TowerKind::vision},
    {"qwen3_omni_moe_vision_encoder", TowerKind::vision}, {"qwen3_vl_moe_vision", TowerKind::vision},
    {"qwen3_vl_vision", TowerKind::vision}, {"sam2_video", TowerKind::vision}, {"sam3_detr_decoder", TowerKind::vision},
    {"sam3_detr_encoder", TowerKind::vision}, {"sam3_geometry_encoder", TowerKind::vision},
    {"sam3_mask_decoder", TowerKind::vision}, {"sam3_tracker_video", TowerKind::vision}, {"sam3_vision_model", TowerKind::vision},
    {"sam3_vit_model", TowerKind::vision}, {"sapiens2", TowerKind::vision}, {"sapiens2_head", TowerKind::vision},
    {"step3p5_vision", TowerKind::vision}, {"video_llama_3_vision", TowerKind::vision}, {"vjepa2", TowerKind::vision},
    {"gemma3n_audio", TowerKind::audio}, {"gemma4_audio", TowerKind::audio}, {"gemma4_unified_audio", TowerKind::audio},
    {"glmasr_encoder", TowerKind::audio}, {"lasr_ctc", TowerKind::audio}, {"lasr_encoder", TowerKind::audio},
    {"mimi", TowerKind::audio}, {"moonshine_streaming_encoder", TowerKind::audio}, {"pe_audio_encoder", TowerKind::audio},
    {"phi4_multimodal_audio", TowerKind::audio}, {"qwen2_5_omni_audio_encoder", TowerKind::audio},
    {"qwen2_5_omni_bigvgan", TowerKind::audio}, {"qwen2_5_omni_dit", TowerKind::audio}, {"qwen2_5_omni_token2wav", TowerKind::audio},
    {"qwen3_omni_moe_audio_encoder", TowerKind::audio}, {"xcodec2", TowerKind::audio},
    {"blt_global_transformer", TowerKind::other}, {"efficientloftr", TowerKind::other}, {"lightglue", TowerKind::other},
    {"timesfm2_5", TowerKind::other},
    // transformers 5.25.0's new towers (the sweep of tests/data/transformers_sweep_families.json)
    {"apertus1p5_vision_tokenizer", TowerKind::vision}, {"dots3_note_vision_encoder", TowerKind::vision},
    {"edgetam_video_mask_decoder", TowerKind::vision}, {"edgetam_video_prompt_encoder", TowerKind::vision},
    {"glm5_next_vision", TowerKind::vision}, {"granite_docling_vision", TowerKind::vision},
    {"hy_v4_vl_vision", TowerKind::vision}, {"inkling2_vision", TowerKind::vision}, {"lfm3_vl_vision", TowerKind::vision},
    {"llava_onevision1_5_vision", TowerKind::vision}, {"molmo2_adapter", TowerKind::vision}, {"molmo2_vision", TowerKind::vision},
    {"muse_spark_vision", TowerKind::vision}, {"qwen4_exp_vision", TowerKind::vision},
    {"sam2_video_mask_decoder", TowerKind::vision}, {"sam2_video_prompt_encoder", TowerKind::vision},
    {"sam3_tracker_video_mask_decoder", TowerKind::vision}, {"sam3_tracker_video_prompt_encoder", TowerKind::vision},
    {"unlimited_ocr_sam_vision_model", TowerKind::vision}, {"unlimited_ocr_vision", TowerKind::vision},
    {"unlimited_ocr_vision_encoder", TowerKind::vision},
    {"dots3_note_audio_encoder", TowerKind::audio}, {"muse_spark_audio", TowerKind::audio},
    {"nemotron3_5_transcribe_asr_audio", TowerKind::audio}, {"nemotron3_5_transcribe_audio", TowerKind::audio},
    {"nemotron3_diarization", TowerKind::audio}, {"nemotron3_diarization_audio", TowerKind::audio},
    {"neucodec", TowerKind::audio}, {"pocket_tts_audio_tokenizer", TowerKind::audio},
    {"esmfold2", TowerKind::other},
    // transformers 5.25.0, the families of docs/models.md's "not read yet" list
    {"nemotron3_5_transcribe_word_timestamp", TowerKind::audio}, {"pi05", TowerKind::other},
};

/// The wrappers that nest a language model (see LanguageModelWrapper): text_config's model_type
/// when it names none, and the sub-config of a composite model's language model.
inline constexpr LanguageModelWrapper language_model_wrappers[] = {
    {"gemma3", "gemma3_text"},
    {"llama4", "llama4_text"},
    {"qwen2_vl", "qwen2_vl_text"},
    {"qwen2_5_vl", "qwen2_5_vl_text"},
    {"qwen3_vl", "qwen3_vl_text"},
    {"qwen3_vl_moe", "qwen3_vl_moe_text"},
    {"glm4v", "glm4v_text"},
    {"glm4v_moe", "glm4v_moe_text"},
    {"qwen2_5_omni_thinker", "qwen2_5_omni_text"},
    {"gemma3n", "gemma3n_text"},
    {"gemma4", "gemma4_text"},
    {"hunyuan_vl", "hunyuan_vl_text"},
    {"ernie4_5_vl_moe", "ernie4_5_vl_moe_text"},
    {"qwen3_5", "qwen3_5_text"},
    {"qwen3_5_moe", "qwen3_5_moe_text"},
    {"glm_ocr", "glm_ocr_text"},
    {"paddleocr_vl", "paddleocr_vl_text"},
    {"qwen3_omni_moe_thinker", "qwen3_omni_moe_text"},
    {"qwen3_omni_moe", "qwen3_omni_moe_text", "thinker_config",
     "this is the thinker's language model; read talker_config on its own for the talker"},
    {"qwen2_5_omni", "qwen2_5_omni_text", "thinker_config",
     "this is the thinker's language model; read talker_config on its own for the talker"},
    {"aria", "aria_text"},
    {"deepseek_ocr2", "deepseek_ocr2_text"},
    {"emu3", "emu3_text_model"},
    {"voxtral_realtime", "voxtral_realtime_text"},
    {"dia", "dia_decoder", "decoder_config",
     "this is the decoder; read encoder_config on its own for the encoder"},
    {"blt", "blt_local_decoder", "decoder_config",
     "this is the decoder; read encoder_config on its own for the encoder"},
    {"mllama", "mllama_text_model"},
    {"step3p7", "step3p5"},
    {"muse_glimmer", "muse_glimmer_text"},
    {"clvp", "clvp_encoder"},
    {"cohere_compass", "cohere_compass_text"},
    {"qwen4_exp", "qwen4_exp_text"},
    {"apertus1p5", "apertus1p5_text"},
    {"molmo2", "molmo2_text"},
    {"muse_spark", "muse_spark_text"},
    {"mistral_large4", "mistral_large4_text"},
    {"granite_docling", "granite_docling_text"},
    {"embedding_gemma2", "embedding_gemma2_text"},
    {"hy_v4_vl", "hy_v4_vl_text"},
    {"inkling2", "inkling2_text"},
    {"lfm3_vl", "lfm3"},  // lfm3_vl/configuration_lfm3_vl.py: text_config defaults to lfm3
    {"dots3_note", "dots3_note_text"},
    {"unlimited_ocr", "unlimited_ocr_text"},
    {"nemo_speechlm", "nemotron_h"},  // its configuration class's text_config default
    {"glm5_next", "glm5_next_text"},
    {"cosmos3_edge", "cosmos3_edge_text"},
    {"glm_image", "glm_image_text"},
    {"minimax_m3_vl", "minimax_m3_vl_text"},
    {"pe_audio", "modernbert"},
    {"gemma4_unified", "gemma4_unified_text"},
    {"diffusion_gemma", "diffusion_gemma_text"},
    {"t5gemma", "t5_gemma_module", "decoder",
     "this is the decoder; read encoder on its own for the encoder"},
    {"t5gemma2", "t5gemma2_decoder", "decoder",
     "this is the decoder; read encoder on its own for the encoder"},
    {"t5gemma2_encoder", "t5gemma2_text"},
    {"mistral3", "mistral"},  // mistral3/configuration_mistral3.py: text_config defaults to mistral
    // kimi_k25/configuration_kimi_k25.py: text_config defaults to deepseek_v3, and one of model_type kimi_k2
    // (no configuration class of its own) is built as deepseek_v3
    {"kimi_k25", "deepseek_v3", "", "", "kimi_k2"},
};

}  // namespace posenc::hf
