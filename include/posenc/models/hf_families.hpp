// SPDX-License-Identifier: MIT
// posenc/models/hf_families.hpp: what Hugging Face's code, not the config, decides per model_type.
//
// A config.json does not say everything about a model's RoPE. Three things come from the
// model's own Python files in transformers, keyed by `model_type`:
//   1. the pairing (modeling_*.py: rotate_half gives half_split pairs (i, i + R/2);
//      rotate_every_two, repeat_interleave or complex views give interleaved pairs (2i, 2i + 1));
//   2. the value of a key the config leaves out (configuration_*.py class defaults);
//   3. which layers rotate at all, and with which parameters (layer types, NoPE layers).
// This header says what a family's row holds (FamilyRules, its trait:: bits, the refusals, the
// wrappers that nest a language model) and how to look a model_type up; the rows themselves, with
// the file each comes from (paths in the transformers repository), are in
// models/detail/family_tables.hpp (known_families, family_refusals, rope_outside_language,
// language_model_wrappers). docs/models.md prints the same table for readers. The config reader
// joins a model_type's row with its generated class defaults (hf_class_defaults.hpp) and its rule
// (models/detail/families/) into one record, once per read (models/detail/family_row.hpp).
//
// A model_type not listed is refused, naming model_type: its code decides the pairing and the
// class defaults, and the config does not say them. A caller may opt in to reading it with
// half_split pairing and generic defaults (ReadOptions::assume_half_split in hf_read_options.hpp),
// with a warning, as long as its config uses only keys whose meaning does not depend on the model
// (the others are refused, naming the key). Families whose RoPE posenc cannot represent (layer
// maps it does not read, per-forward rules) are listed in family_refusals and refused by name,
// always or for the configs that use the rule; the opt-in does not lift those.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "posenc/spec.hpp"

namespace posenc::hf {

/// Properties of a family's code beyond pairing and defaults (bits of FamilyRules::traits), each read
/// by the generic reader. What only one family's code does lives in that family's rule
/// (models/detail/families/: Bamba's forced partial factor, Llama 4's temperature tuning, Qwen4-Exp's
/// temporal M-RoPE section, DeepSeek-V4's rotary slice, PhiMoE's mscales, HunYuan-VL's XD-RoPE,
/// ERNIE-4.5-VL's M-RoPE layout, Mistral 4's head, GLM-4.7-Flash's head_dim alias), not here. Bits 5,
/// 13, 15, 16, 17, 18, 19, 24 and 25 are free.
namespace trait {
inline constexpr unsigned multi_axis = 1u << 0;  ///< reads mrope_section (and mrope_interleaved) from the RoPE dict
inline constexpr unsigned hunyuan_alpha = 1u << 1;  ///< dynamic RoPE with "alpha": base * alpha^(H / (H - 2)), static
/// head_dim is always hidden_size // num_attention_heads: the configuration class declares head_dim
/// and overwrites it, so a head_dim key is ignored (DeepSeek-OCR 2's text model).
inline constexpr unsigned head_dim_from_hidden = 1u << 2;
inline constexpr unsigned mla =
    1u << 3;  ///< DeepSeek MLA: RoPE on qk_rope_head_dim (class default 64; qk_nope_head_dim 128)
inline constexpr unsigned reads_rope_interleave =
    1u << 4;  ///< rope_interleave: true (default) interleaved, false half_split
/// MLA attention that multiplies its softmax scale by g(s, mscale_all_dim)^2 when YaRN sets
/// mscale_all_dim (DeepseekV3Attention, DeepseekV32Attention); DeepseekV2Attention uses
/// qk_head_dim^(-1/2) alone.
inline constexpr unsigned mla_softmax_mscale = 1u << 6;
/// MLA whose rotary table is head_dim wide (LongCat Flash: class default 64; DeepSeek-V3 and its
/// look-alikes: the class sets head_dim = qk_rope_head_dim, and a head_dim key overrides it), not
/// qk_rope_head_dim wide: the two must agree, else transformers cannot apply it.
inline constexpr unsigned mla_table_width_head_dim = 1u << 7;
/// The attention reads the RoPE dict's mrope_section on every forward pass and the configuration
/// class has no default (Qwen2.5-Omni's talker): a config without it is refused.
inline constexpr unsigned mrope_required = 1u << 9;
/// The attention rotates only the first rotary_dim = int(head_dim * partial_rotary_factor) dims of
/// each head (it slices q and k, or its rotary embedding covers the part). Without this bit a known
/// family's attention multiplies the whole head by cos / sin, and a partial_rotary_factor other than 1
/// is refused: transformers 5's default table ignores it (the whole head rotates), its scaled types and
/// transformers 4 build a narrower table that cannot be applied.
inline constexpr unsigned partial_rotary = 1u << 10;
/// M-RoPE always interleaved (apply_interleaved_mrope, whatever mrope_interleaved says), with the class
/// default sections [24, 20, 20] when the RoPE dict has none (Qwen3-VL's text rotary embedding).
inline constexpr unsigned always_interleaved_mrope = 1u << 11;
/// The family's layers may use rope_type "proportional" (transformers' _compute_proportional_rope_parameters:
/// the first int(p * H / 2) half-split pairs rotate at base^(-2i / H), the rest have frequency 0) (Gemma 4,
/// whose rule also gives its full_attention layers the head dim global_head_dim; LFM3).
inline constexpr unsigned proportional_full_attention = 1u << 12;
/// Every layer's query multiplied by 1 + beta * ln(1 + floor(pos / L0)), beta the RoPE dict's
/// llama_4_scaling_beta and L0 its original_max_position_embeddings (Ministral 3's attention).
inline constexpr unsigned llama_4_scaling_beta = 1u << 14;
/// The rotary width is the top-level rotary_dim (class default 64), not head_dim *
/// partial_rotary_factor (GPT-J, CodeGen).
inline constexpr unsigned rotary_dim_key = 1u << 20;
/// Rope types default and longrope only, the legacy "su" and "yarn" read as longrope
/// (phi3/configuration_phi3.py validate_rope).
inline constexpr unsigned longrope_only = 1u << 21;
/// GPT-NeoX's key names (GPT-NeoX, GPT-NeoX-Japanese): the configuration class reads the base from
/// rotary_emb_base (class default 10000) and the partial factor from rotary_pct, each only where the
/// RoPE dict has none (setdefault), and never a top-level rope_theta or partial_rotary_factor. Other
/// known families read rope_theta and partial_rotary_factor and leave rotary_emb_base and rotary_pct
/// unread.
inline constexpr unsigned neox_key_names = 1u << 22;
/// The attention's head is hidden_size // num_attention_heads and it rotates int(that * partial
/// factor) dims itself; a head_dim key reaches only the rotary table (StableLM, Persimmon, GLM-4V's
/// text model), so one that makes the table another width cannot be applied and is refused.
inline constexpr unsigned rotary_from_hidden_head = 1u << 23;
}  // namespace trait

/// What a model family's code decides; see the file comment.
struct FamilyRules {
    std::string_view model_type;
    Pairing pairing;
    std::string_view pairing_source;  ///< modeling file (transformers repository path)
    // Defaults the family's code sets for keys a config may leave out, where the configuration
    // class declares no field default for them or another one (nullopt / 0: none here). The class's
    // field defaults (the base, head_dim, max_position_embeddings, the attention sizes) are
    // generated into models/detail/family_class_defaults.hpp (columns: hf_class_defaults.hpp); the
    // reader takes this row's value first.
    std::optional<double> partial_rotary_factor;  ///< the code's default, generic: 1
    int head_dim = 0;  ///< generic: the class's, else hidden_size // num_attention_heads
    std::int64_t max_position_embeddings = 0;  ///< generic: the class's, else none
    std::string_view defaults_source;  ///< configuration file, "" when no default differs
    unsigned traits = 0;  ///< trait:: bits
    /// The key that holds head_dim when it is not "head_dim" (JetMoE: kv_channels); its class
    /// default is head_dim above.
    std::string_view head_dim_key = "";
    /// The class-default RoPE dict (JSON) used when the config has neither rope_parameters nor
    /// rope_scaling; "" when the default is plain RoPE.
    std::string_view default_rope = "";
    /// A key read for rope_theta in place of rope_theta (LFM2: theta, its original name); a config
    /// with both that disagree is refused.
    std::string_view rope_theta_alias = "";
    /// Keys of the RoPE dict the family's configuration class reads beyond the rope type's own
    /// (space-separated; its ignore_keys_at_rope_validation): not reported as unrecognized.
    std::string_view extra_rope_keys = "";
    /// A top-level original_max_position_embeddings the family's code sets (0: none here; a class
    /// field default such as Phi-3's 4096 is in hf_class_defaults.hpp). transformers copies the
    /// attribute over the RoPE dict's own value for yarn, llama3 and longrope, so a config without the
    /// key still gets this length.
    std::int64_t original_max_position_embeddings = 0;
    /// MLA class defaults (trait::mla): qk_rope_head_dim and qk_nope_head_dim (DeepSeek: 64 and 128).
    int qk_rope_head_dim = 64;
    int qk_nope_head_dim = 128;
    /// The M-RoPE sections the family's rotary embedding uses when the RoPE dict has none (JSON list;
    /// "" when it has no default): Qwen3-VL [24, 20, 20], ERNIE-4.5-VL [22, 22, 20], Qwen3.5 [11, 11, 10].
    std::string_view default_mrope_section = "";

    /// This row with default_mrope_section set (rows list their positional fields up to the last one
    /// they need; later fields are set by name this way).
    constexpr FamilyRules with_default_mrope_section(std::string_view sections) const noexcept
    {
        FamilyRules r = *this;
        r.default_mrope_section = sections;
        return r;
    }

    constexpr bool has(unsigned t) const noexcept { return (traits & t) != 0; }
};

/// When a family's config is refused (FamilyRefusal::when).
enum class RefuseWhen {
    always,  ///< every config of the family
    scaled,  ///< a single (not per-layer-type) RoPE dict with a rope_type other than "default"
    longrope,  ///< a RoPE dict with rope_type "longrope" (or legacy "su")
    scaled_except_longrope,  ///< a single RoPE dict with a rope_type other than "default" and "longrope"
    /// unless the RoPE dict (the config's, else the family's class default) sets `key` to 0: the
    /// code reads `key` on every forward pass (absent from a config's dict, it fails there)
    unless_zero,
};

/// A family whose RoPE posenc cannot represent (always, or for some configs): the reader refuses
/// it with an error naming `key` and giving `reason`, instead of a wrong table.
struct FamilyRefusal {
    std::string_view model_type;
    RefuseWhen when;
    std::string_view
        key;  ///< the key named (always: a top-level key, else "model_type"; otherwise a key of the RoPE dict)
    std::string_view reason;  ///< the rule of the error message
    std::string_view source;  ///< the transformers file that decides it
};

/// What a non-language model_type with RoPE is (RoPEOutsideLanguage::kind).
enum class TowerKind {
    vision,  ///< a vision encoder: 2-D (or 3-D) RoPE over image patches or video frames
    audio,  ///< an audio or speech encoder, or an audio decoder (vocoder, codec)
    other,  ///< time series, image matching, a byte model's global transformer
};

/// A model_type whose code applies RoPE outside a language model's attention (the sweep of
/// transformers' own code found these; docs/models.md). The reader refuses its config, naming
/// model_type and saying what it is: posenc describes language models' RoPE, with one position per
/// token or a few position axes.
struct RoPEOutsideLanguage {
    std::string_view model_type;
    TowerKind kind;
};

/// A model_type whose config nests its language model (a multimodal or composite wrapper): the
/// model_type its text_config has when it names none, and, for a composite model, the sub-config
/// that holds the language model (a thinker's or a decoder's) and what the reader's note says of it.
struct LanguageModelWrapper {
    std::string_view model_type;
    std::string_view text_model_type;  ///< text_config's model_type when it names none
    /// The key of the sub-config that holds the language model ("" when text_config sits at the top).
    std::string_view language_model_key = "";
    std::string_view language_model_note = "";  ///< the note the reader adds (with language_model_key)
    /// A text_config model_type the wrapper rebuilds as text_model_type (Kimi K2.5 builds its kimi_k2
    /// text config as deepseek_v3): "" when it keeps the one written there.
    std::string_view renamed_text_model_type = "";
};

}  // namespace posenc::hf

#define POSENC_MODELS_DETAIL_ALLOWED 1  // this public header may include posenc/models/detail/*.hpp
#include "posenc/models/detail/family_tables.hpp"

namespace posenc::hf {

/// The entry of `model_type` in rope_outside_language, or nullptr.
inline const RoPEOutsideLanguage* find_rope_outside_language(std::string_view model_type) noexcept
{
    for (const RoPEOutsideLanguage& t : rope_outside_language)
        if (t.model_type == model_type) return &t;
    return nullptr;
}

/// The refusal of `model_type`, or nullptr.
inline const FamilyRefusal* find_refusal(std::string_view model_type) noexcept
{
    for (const FamilyRefusal& r : family_refusals)
        if (r.model_type == model_type) return &r;
    return nullptr;
}

/// The rules of `model_type`, or nullptr for a model_type posenc does not know.
inline const FamilyRules* find_family(std::string_view model_type) noexcept
{
    for (const FamilyRules& f : known_families)
        if (f.model_type == model_type) return &f;
    return nullptr;
}

/// The wrapper row of `model_type`, or nullptr when its config is not a wrapper.
inline const LanguageModelWrapper* find_language_model_wrapper(std::string_view model_type) noexcept
{
    for (const LanguageModelWrapper& w : language_model_wrappers)
        if (w.model_type == model_type) return &w;
    return nullptr;
}

/// The text model_type a multimodal wrapper nests in text_config when text_config itself has none.
inline std::string_view text_model_type_of(std::string_view outer) noexcept
{
    const LanguageModelWrapper* w = find_language_model_wrapper(outer);
    return w ? w->text_model_type : outer;
}

/// The model_type a multimodal wrapper gives its text config in place of the one written there,
/// or "" where it keeps it (LanguageModelWrapper::renamed_text_model_type).
inline std::string_view renamed_text_model_type(std::string_view outer, std::string_view inner) noexcept
{
    const LanguageModelWrapper* w = find_language_model_wrapper(outer);
    return w && !w->renamed_text_model_type.empty() && w->renamed_text_model_type == inner ? w->text_model_type
                                                                                           : std::string_view {};
}

}  // namespace posenc::hf
