// SPDX-License-Identifier: MIT
// posenc/models/detail/families/family_rules.hpp: which model_type has a family rule (a header of
// this folder): the rule column of the family records (models/detail/family_row.hpp). The config
// reader calls the rule, with the record, on the language model's config object before it reads
// anything else (hf_model_identity.hpp with_family_rule).
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/family_rules.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <string_view>

#include "posenc/models/detail/families/bamba.hpp"
#include "posenc/models/detail/families/class_default_dicts.hpp"
#include "posenc/models/detail/families/deepseek_v4.hpp"
#include "posenc/models/detail/families/ernie4_5_vl.hpp"
#include "posenc/models/detail/families/family_config.hpp"
#include "posenc/models/detail/families/flint.hpp"
#include "posenc/models/detail/families/gemma3.hpp"
#include "posenc/models/detail/families/gemma4.hpp"
#include "posenc/models/detail/families/glm4_moe_lite.hpp"
#include "posenc/models/detail/families/hrm_text.hpp"
#include "posenc/models/detail/families/hunyuan_vl.hpp"
#include "posenc/models/detail/families/indexer_rope.hpp"
#include "posenc/models/detail/families/layer_rope_theta.hpp"
#include "posenc/models/detail/families/lfm2.hpp"
#include "posenc/models/detail/families/mistral4.hpp"
#include "posenc/models/detail/families/longcat_flash.hpp"
#include "posenc/models/detail/families/linear_attention.hpp"
#include "posenc/models/detail/families/llama4.hpp"
#include "posenc/models/detail/families/layer_type_dicts.hpp"
#include "posenc/models/detail/families/mllama.hpp"
#include "posenc/models/detail/families/modernbert.hpp"
#include "posenc/models/detail/families/no_rope_layers.hpp"
#include "posenc/models/detail/families/olmo3.hpp"
#include "posenc/models/detail/families/nope_by_attention.hpp"
#include "posenc/models/detail/families/own_rope_keys.hpp"
#include "posenc/models/detail/families/phimoe.hpp"
#include "posenc/models/detail/families/qwen4_exp.hpp"
#include "posenc/models/detail/families/sliding_layers_rope.hpp"
#include "posenc/models/detail/families/sliding_window_rope.hpp"
#include "posenc/models/detail/families/step3p7.hpp"

namespace posenc::hf::detail::families {

/// One entry of the rule column: a model_type whose configuration class derives layer_types or
/// per-layer-type dicts, or whose code decides a part of a generic step for it alone (FamilySteps,
/// family_steps.hpp), and its rule (a header of this folder).
struct FamilyRuleEntry {
    std::string_view model_type;
    FamilyConfigRule rule;
};

/// The rule column of the family records (family_row.hpp): a model_type not listed has no rule,
/// and the generic reader reads its config as it is. A rule runs only for a model_type with a row
/// in known_families.
inline constexpr FamilyRuleEntry family_rule_column[] = {
    {"laguna", &layer_type_dicts_config},
    {"mimo_v2_flash", &layer_type_dicts_config},
    {"mellum", &layer_type_dicts_config},
    {"zaya", &layer_type_dicts_config},
    {"modernbert", &modernbert_config},
    {"modernbert-decoder", &modernbert_config},
    {"step3p5", &step3p7_config},
    {"deepseek_v4", &deepseek_v4_config},
    {"gemma4_text", &gemma4_config},
    {"gemma4_unified_text", &gemma4_config},
    {"diffusion_gemma_text", &gemma4_config},
    {"gemma3_text", &gemma3_config},
    {"gemma3n_text", &gemma3_config},
    {"t5gemma2_text", &gemma3_config},
    {"t5gemma2_decoder", &gemma3_config},
    {"olmo3", &olmo3_config},
    {"hrm_text", &hrm_text_config},
    {"longcat_flash", &longcat_flash_config},
    {"afmoe", &afmoe_config},
    {"flint", &flint_config},
    {"ergo", &sliding_layers_rope_config},
    {"lara_mini", &sliding_layers_rope_config},
    {"dory", &class_default_dicts_config},
    {"ultrabert", &class_default_dicts_config},
    {"lfm3", &class_default_dicts_config},
    {"hy_v4", &indexer_rope_config},
    {"hy_v4_vl_text", &indexer_rope_config},
    {"bamba", &bamba_config},
    {"lfm2", &lfm2_config},
    {"lfm2_moe", &lfm2_config},
    {"exaone4", &sliding_window_rope_config},
    {"exaone_moe", &sliding_window_rope_config},
    {"cohere2", &sliding_window_rope_config},
    {"kolibri1", &sliding_window_rope_config},
    {"smollm3", &no_rope_layers_config},
    {"llama4_text", &llama4_config},
    {"qwen3_next", &linear_attention_config},
    {"qwen3_5_text", &linear_attention_config},
    {"qwen3_5_moe_text", &linear_attention_config},
    {"olmo_hybrid", &linear_attention_config},
    {"bailing_hybrid", &linear_attention_config},
    {"qwen4_exp_text", &qwen4_exp_config},
    {"mllama_text_model", &mllama_config},
    {"wav2vec2-bert", &own_rope_keys_config},
    {"wav2vec2-conformer", &own_rope_keys_config},
    {"seamless_m4t", &own_rope_keys_config},
    {"esm", &own_rope_keys_config},
    {"clvp_encoder", &own_rope_keys_config},
    {"moonshine", &own_rope_keys_config},
    {"roformer", &own_rope_keys_config},
    {"cohere2_moe", &cohere2_moe_config},
    {"granite_swa", &layer_rope_theta_config},
    {"granitemoe_swa", &layer_rope_theta_config},
    {"muse_glimmer_text", &layer_rope_theta_config},
    {"muse_spark_text", &layer_rope_theta_config},
    // Rules that leave the config as it is and take over a part of a generic step (FamilySteps)
    {"phimoe", &phimoe_config},
    {"hunyuan_vl_text", &hunyuan_vl_config},
    {"ernie4_5_vl_moe_text", &ernie4_5_vl_config},
    {"glm4_moe_lite", &glm4_moe_lite_config},
    {"mistral4", &mistral4_config},
};

/// Whether the family's code reads a rope_parameters given as one dict per layer type: its rotary
/// embedding builds a table per layer type and its rule (gemma3.hpp, gemma4.hpp, layer_type_dicts.hpp,
/// modernbert.hpp, olmo3.hpp, step3p7.hpp, deepseek_v4.hpp, class_default_dicts.hpp) reads the
/// dicts, or its rule takes one dict out of them (Ergo's sliding_attention dict,
/// sliding_layers_rope.hpp). Elsewhere transformers 5 does not apply such a dict:
/// standardize_rope_params reads it as one dict of rope type default (its entries unread), or the
/// one-table rotary embedding fails looking up rope_type.
inline bool reads_dicts_per_layer_type(const Family& family) noexcept
{
    const FamilyConfigRule rule = family.rule;
    return rule == &gemma3_config || rule == &gemma4_config || rule == &layer_type_dicts_config ||
           rule == &modernbert_config || rule == &olmo3_config || rule == &step3p7_config ||
           rule == &deepseek_v4_config || rule == &class_default_dicts_config || family.model_type == "ergo";
}

}  // namespace posenc::hf::detail::families
