// SPDX-License-Identifier: MIT
// posenc/models/detail/family_row.hpp: one model_type's record, as the config reader sees it.
//
// What posenc knows of a model_type is spread over tables that each say one thing: its hand row
// (known_families: pairing, trait:: bits, the defaults its code sets), its generated class
// defaults (family_class_defaults.hpp), its rule (a header of families/; the rule column of
// families/family_rules.hpp), the wrapper row of a config that nests its language model
// (language_model_wrappers, and the generated wrapper_text_defaults_table), a refusal
// (family_refusals, rope_outside_language), and its QK-norm (qk_norm_rules). family_row() joins them once, keyed by model_type, into
// one Family record; the reader looks each model_type up once and passes the record on, and a rule
// receives its record (its class defaults, its hand row) instead of looking them up again.
//
// Teaching posenc a family: its row in known_families (family_tables.hpp), a rule header in
// families/ with its line in the rule column (only where its configuration class derives
// layer_types or per-layer-type dicts, or its code decides a part of a generic step for it alone:
// families/family_steps.hpp), and a run of scripts/extract-class-defaults.py for its
// class defaults (CONTRIBUTING.md).
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/family_row.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <string>
#include <string_view>

#include "posenc/models/detail/hf_json_values.hpp"
#include "posenc/models/hf_attention_facts.hpp"
#include "posenc/models/hf_class_defaults.hpp"
#include "posenc/models/hf_families.hpp"

namespace posenc::hf::detail {

struct Family;

namespace families {
struct FamilyConfig;
/// A family rule (families/family_config.hpp): the language model's config object, its key prefix
/// ("text_config." when nested) and its record in, the normalised config out. Refusals are
/// posenc::error naming the key (with `pre`).
using FamilyConfigRule = FamilyConfig (*)(const json& text, const std::string& pre, const Family& family);
}  // namespace families

/// One model_type's record: a pointer to its row in each table that has one, nullptr where a table
/// has none. See the file comment.
struct Family {
    std::string_view model_type;  ///< "" for a model_type no table names
    const FamilyRules* hand = nullptr;  ///< known_families; nullptr: not a family posenc reads
    const ClassDefaults* class_defaults = nullptr;  ///< class_defaults_table (generated)
    families::FamilyConfigRule rule = nullptr;  ///< families/family_rules.hpp's rule column
    const LanguageModelWrapper* wrapper = nullptr;  ///< language_model_wrappers
    const WrapperTextDefaults* wrapper_text_defaults = nullptr;  ///< wrapper_text_defaults_table (generated)
    const FamilyRefusal* refusal = nullptr;  ///< family_refusals
    const RoPEOutsideLanguage* outside = nullptr;  ///< rope_outside_language
    const QkNormRule* qk_norm = nullptr;  ///< qk_norm_rules (hf_attention_facts.hpp)

    constexpr bool has(unsigned trait_bit) const noexcept { return hand && hand->has(trait_bit); }
    /// The model_type of the wrapper's text_config when it names none (the model_type itself if no wrapper).
    constexpr std::string_view text_model_type() const noexcept
    {
        return wrapper ? wrapper->text_model_type : model_type;
    }
};

}  // namespace posenc::hf::detail
