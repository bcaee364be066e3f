// SPDX-License-Identifier: MIT
// posenc/models/detail/family_lookup.hpp: the one look-up of a model_type's record
// (family_row.hpp): every table's row of it, joined once per process into a map keyed by
// model_type. The reader calls family_row() once per model_type it reads (the outer config's and
// the language model's) and passes the record on.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/family_lookup.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <cstddef>
#include <functional>
#include <map>
#include <string_view>

#include "posenc/models/detail/families/family_rules.hpp"
#include "posenc/models/detail/family_row.hpp"
#include "posenc/models/hf_attention_facts.hpp"
#include "posenc/models/hf_class_defaults.hpp"
#include "posenc/models/hf_families.hpp"

namespace posenc::hf::detail {

namespace lookup {

using FamilyMap = std::map<std::string_view, Family, std::less<>>;

/// Sets column `column` of each row of `table` (keyed by its model_type) in `rows`, keeping a
/// column already set: the first row of a table for a model_type wins, as a search from the top finds it.
template <class Row, std::size_t n, class Column, class Value>
void join(FamilyMap& rows, const Row (&table)[n], Column Family::*column, Value value)
{
    for (const Row& r : table) {
        Family& f = rows[r.model_type];
        f.model_type = r.model_type;
        if (!(f.*column)) f.*column = value(r);
    }
}

/// Every table's rows, joined by model_type.
inline FamilyMap joined_rows()
{
    FamilyMap rows;
    join(rows, known_families, &Family::hand, [](const FamilyRules& r) { return &r; });
    join(rows, class_defaults_table, &Family::class_defaults, [](const ClassDefaults& r) { return &r; });
    join(rows, families::family_rule_column, &Family::rule, [](const families::FamilyRuleEntry& r) { return r.rule; });
    join(rows, language_model_wrappers, &Family::wrapper, [](const LanguageModelWrapper& r) { return &r; });
    join(rows, wrapper_text_defaults_table, &Family::wrapper_text_defaults,
         [](const WrapperTextDefaults& r) { return &r; });
    join(rows, family_refusals, &Family::refusal, [](const FamilyRefusal& r) { return &r; });
    join(rows, rope_outside_language, &Family::outside, [](const RoPEOutsideLanguage& r) { return &r; });
    join(rows, qk_norm_rules, &Family::qk_norm, [](const QkNormRule& r) { return &r; });
    return rows;
}

}  // namespace lookup

/// The record of `model_type`; a record with every column empty (and model_type "") when no table
/// names it.
inline const Family& family_row(std::string_view model_type)
{
    static const lookup::FamilyMap rows = lookup::joined_rows();
    static const Family none {};
    const auto found = rows.find(model_type);
    return found == rows.end() ? none : found->second;
}

}  // namespace posenc::hf::detail
