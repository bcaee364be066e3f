// SPDX-License-Identifier: MIT
// posenc/models/hf_config_json.hpp: read a whole model's RoPE out of a Hugging Face config.json.
//
// Optional: the only part of posenc that needs nlohmann_json (Debian nlohmann-json3-dev).
// This is the reader's first stage, the JSON stage (its implementation in detail/: the pipeline
// resolve_model in hf_model_reader.hpp and the step headers it names, resolve_config_values in
// hf_group_json.hpp per RoPE group): the RoPE groups, which layer uses which group or none, and the M-RoPE sections, as plain
// values. hf_config.hpp turns them into a ModelRope (model_rope.hpp); call its entry points
// (hf::parse_model, hf::read_model, hf::model_from_json), not this stage.
//
// What it reads, as Hugging Face transformers does:
//   text_config        multimodal wrappers (Gemma 3 4B+, Llama 4, Qwen2.5-VL, Qwen3-VL) nest the
//                      language model there; its model_type defaults to the wrapper's text type
//                      (gemma3 -> gemma3_text, llama4 -> llama4_text, qwen2_5_vl -> qwen2_5_vl_text).
//   layer_types        one entry per layer ("full_attention", "sliding_attention",
//                      "linear_attention", "chunked_attention"); derived, when absent, from
//                      sliding_window_pattern (Gemma 3: 6, Cohere 2 and EXAONE 4: 4; layer i is
//                      sliding unless (i + 1) % pattern == 0) or full_attention_interval
//                      (Qwen3-Next: 4; linear unless (i + 1) % interval == 0).
//   rope_parameters    v5: one dict, or one dict per layer type ({"sliding_attention": {...},
//                      "full_attention": {...}}); v4: rope_scaling (+ rope_theta). A config with
//                      both that disagree is refused, naming both.
//   rope_local_base_freq   Gemma 3 (v4 layout): the sliding layers' base, unscaled.
//   no_rope_layers     SmolLM3, Llama 4: entry i == 1 means layer i USES RoPE, 0 means NoPE;
//                      absent (Llama 4: also empty) -> int((i + 1) % no_rope_layer_interval != 0),
//                      interval default 4 (every 4th layer NoPE).
//   NoPE by layer type Cohere 2: full_attention layers never rotate; EXAONE 4: not when a
//                      sliding window is set (sliding_window absent = the class default 4096);
//                      Qwen3-Next: linear_attention layers have no RoPE.
//   mrope_section      Qwen2-VL, Qwen2.5-VL (contiguous sections), Qwen3-VL (always interleaved,
//                      whatever mrope_interleaved says; default [24, 20, 20]): pairs per position
//                      axis [temporal, height, width].
//   rope_interleave    DeepSeek-V3 only (false: half_split); ignored with a warning by other known
//                      families, refused under an unknown model_type.
//   class-default dict gpt_oss (YaRN x32), apertus (llama3 x8), ministral3 (YaRN x16) when the
//                      config has no RoPE dict.
//   num_layers         LongCat Flash: two attention sublayers per decoder layer, 2 * num_layers
//                      attention layers (class default 28 decoder layers).
// Families and their pairing and defaults: hf_families.hpp; the families refused by name (and
// when): its family_refusals.
//
// The rule: a key that changes RoPE and that posenc cannot represent is an error naming the key.
// A model_type posenc does not know is refused, naming model_type (its code decides the pairing
// and the class defaults). ReadOptions::assume_half_split opts in to reading it with half_split
// pairing, generic defaults and a one-line warning, as long as its config uses no key whose
// meaning depends on the model's code (those are refused either way). A config without model_type
// names no model: it is read as the generic description (half_split), with that warning.
#pragma once

#define POSENC_MODELS_DETAIL_ALLOWED 1  // this public header may include posenc/models/detail/*.hpp
#include "posenc/models/detail/hf_model_reader.hpp"
#include "posenc/models/hf_families.hpp"
#include "posenc/models/hf_read_options.hpp"
