// SPDX-License-Identifier: MIT
// posenc/models/detail/families/family_rules.hpp: which model_type has a family rule (a header of
// this folder). The config reader calls the rule on the language model's config object before it
// reads anything else (hf_model_identity.hpp with_family_rule).
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error "posenc/models/detail/families/family_rules.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <string_view>

#include "posenc/models/detail/families/bamba.hpp"
#include "posenc/models/detail/families/class_default_dicts.hpp"
#include "posenc/models/detail/families/deepseek_v4.hpp"
#include "posenc/models/detail/families/family_config.hpp"
#include "posenc/models/detail/families/flint.hpp"
#include "posenc/models/detail/families/gemma3.hpp"
#include "posenc/models/detail/families/gemma4.hpp"
#include "posenc/models/detail/families/hrm_text.hpp"
#include "posenc/models/detail/families/indexer_rope.hpp"
#include "posenc/models/detail/families/layer_rope_theta.hpp"
#include "posenc/models/detail/families/lfm2.hpp"
#include "posenc/models/detail/families/longcat_flash.hpp"
#include "posenc/models/detail/families/linear_attention.hpp"
#include "posenc/models/detail/families/layer_type_dicts.hpp"
#include "posenc/models/detail/families/mllama.hpp"
#include "posenc/models/detail/families/modernbert.hpp"
#include "posenc/models/detail/families/no_rope_layers.hpp"
#include "posenc/models/detail/families/olmo3.hpp"
#include "posenc/models/detail/families/nope_by_attention.hpp"
#include "posenc/models/detail/families/own_rope_keys.hpp"
#include "posenc/models/detail/families/sliding_layers_rope.hpp"
#include "posenc/models/detail/families/sliding_window_rope.hpp"
#include "posenc/models/detail/families/step3p7.hpp"

namespace posenc::hf::detail_json::families {

/// The family rule of `model_type`, or nullptr when the generic reader reads its config as it is.
inline FamilyConfigRule family_config_rule(std::string_view model_type) noexcept
{
    if (model_type == "laguna" || model_type == "mimo_v2_flash" || model_type == "mellum" || model_type == "zaya")
        return &layer_type_dicts_config;
    if (model_type == "modernbert" || model_type == "modernbert-decoder") return &modernbert_config;
    if (model_type == "step3p5") return &step3p7_config;
    if (model_type == "deepseek_v4") return &deepseek_v4_config;
    if (model_type == "gemma4_text" || model_type == "gemma4_unified_text" || model_type == "diffusion_gemma_text")
        return &gemma4_config;
    if (model_type == "gemma3_text" || model_type == "gemma3n_text" || model_type == "t5gemma2_text" ||
        model_type == "t5gemma2_decoder")
        return &gemma3_config;
    if (model_type == "olmo3") return &olmo3_config;
    if (model_type == "hrm_text") return &hrm_text_config;
    if (model_type == "longcat_flash") return &longcat_flash_config;
    if (model_type == "afmoe") return &afmoe_config;
    if (model_type == "flint") return &flint_config;
    if (model_type == "ergo" || model_type == "lara_mini") return &sliding_layers_rope_config;
    if (model_type == "dory" || model_type == "ultrabert" || model_type == "lfm3") return &class_default_dicts_config;
    if (model_type == "hy_v4" || model_type == "hy_v4_vl_text") return &indexer_rope_config;
    if (model_type == "bamba") return &bamba_config;
    if (model_type == "lfm2" || model_type == "lfm2_moe") return &lfm2_config;
    if (model_type == "exaone4" || model_type == "exaone_moe" || model_type == "cohere2" || model_type == "kolibri1")
        return &sliding_window_rope_config;
    if (model_type == "smollm3" || model_type == "llama4_text") return &no_rope_layers_config;
    if (model_type == "qwen3_next" || model_type == "qwen3_5_text" || model_type == "qwen3_5_moe_text" ||
        model_type == "olmo_hybrid" || model_type == "bailing_hybrid" || model_type == "qwen4_exp_text")
        return &linear_attention_config;
    if (model_type == "mllama_text_model") return &mllama_config;
    if (model_type == "wav2vec2-bert" || model_type == "wav2vec2-conformer" || model_type == "seamless_m4t" ||
        model_type == "esm" || model_type == "clvp_encoder" || model_type == "moonshine" || model_type == "roformer")
        return &own_rope_keys_config;
    if (model_type == "cohere2_moe") return &cohere2_moe_config;
    if (model_type == "granite_swa" || model_type == "granitemoe_swa" || model_type == "muse_glimmer_text" ||
        model_type == "muse_spark_text")
        return &layer_rope_theta_config;
    return nullptr;
}

/// Whether the family's code reads a rope_parameters given as one dict per layer type: its rotary
/// embedding builds a table per layer type and its rule (gemma3.hpp, gemma4.hpp, layer_type_dicts.hpp,
/// modernbert.hpp, olmo3.hpp, step3p7.hpp, deepseek_v4.hpp) reads the dicts. Elsewhere transformers 5
/// does not apply such a dict: standardize_rope_params reads it as one dict of rope type default
/// (its entries unread), or the one-table rotary embedding fails looking up rope_type.
inline bool reads_dicts_per_layer_type(std::string_view model_type) noexcept
{
    const FamilyConfigRule rule = family_config_rule(model_type);
    return rule == &gemma3_config || rule == &gemma4_config || rule == &layer_type_dicts_config ||
           rule == &modernbert_config || rule == &olmo3_config || rule == &step3p7_config || rule == &deepseek_v4_config ||
           rule == &class_default_dicts_config || model_type == "ergo";
}

}  // namespace posenc::hf::detail_json::families
