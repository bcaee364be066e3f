// SPDX-License-Identifier: MIT
// The family record (posenc/models/detail/family_row.hpp): the config reader's one look-up of a
// model_type joins its row of every table. Each column is checked against that table's own
// look-up from the top (the find_* functions of hf_families.hpp, hf_class_defaults.hpp and
// hf_attention_facts.hpp), for every model_type any table names; Gemma 3's and ModernBERT's rules
// read their two default bases from their records, checked against the default_theta of
// gemma3/configuration_gemma3.py, {"global": 1_000_000.0, "local": 10_000.0} (Gemma 3n and T5Gemma 2
// declare the same), and of modernbert/configuration_modernbert.py, {"global": 160_000.0, "local":
// 10_000.0} (transformers 5.16).
#include <posenc/models/hf_config.hpp>
// hf_config.hpp allows the reader's internal headers (POSENC_MODELS_DETAIL_ALLOWED).
#include <posenc/models/detail/family_lookup.hpp>

#include <doctest/doctest.h>

#include <set>
#include <string_view>

namespace models_family_row_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace hf = posenc::hf;
using hf::detail::Family;
using hf::detail::family_row;

TEST_CASE(
    "[family_row.hpp] every table's row of a model_type is its record's column, as the table's own look-up finds it")
{
    std::set<std::string_view> types;
    for (const auto& r : hf::known_families) types.insert(r.model_type);
    for (const auto& r : hf::class_defaults_table) types.insert(r.model_type);
    for (const auto& r : hf::family_refusals) types.insert(r.model_type);
    for (const auto& r : hf::rope_outside_language) types.insert(r.model_type);
    for (const auto& r : hf::language_model_wrappers) types.insert(r.model_type);
    for (const auto& r : hf::wrapper_text_defaults_table) types.insert(r.model_type);
    for (const auto& r : hf::qk_norm_rules) types.insert(r.model_type);
    for (const auto& r : hf::detail::families::family_rule_column) types.insert(r.model_type);
    REQUIRE(types.size() > 300);
    for (const std::string_view t : types) {
        CAPTURE(t);
        const Family& f = family_row(t);
        CHECK(f.model_type == t);
        CHECK(f.hand == hf::find_family(t));
        CHECK(f.class_defaults == hf::find_class_defaults(t));
        CHECK(f.refusal == hf::find_refusal(t));
        CHECK(f.outside == hf::find_rope_outside_language(t));
        CHECK(f.wrapper == hf::find_language_model_wrapper(t));
        CHECK(f.wrapper_text_defaults == hf::find_wrapper_text_defaults(t));
        CHECK(f.qk_norm == hf::find_qk_norm_rule(t));
        CHECK(f.text_model_type() == hf::text_model_type_of(t));
    }
    // A rule runs only for a family posenc reads: every model_type of the rule column has a row.
    for (const auto& r : hf::detail::families::family_rule_column) {
        CAPTURE(r.model_type);
        CHECK(family_row(r.model_type).hand != nullptr);
        CHECK(static_cast<bool>(family_row(r.model_type).rule == r.rule));
    }
}

TEST_CASE("[family_row.hpp] a model_type no table names has an empty record")
{
    const Family& f = family_row("not_a_model_type");
    CHECK(f.model_type.empty());
    CHECK(f.hand == nullptr);
    CHECK(f.class_defaults == nullptr);
    CHECK_FALSE(static_cast<bool>(f.rule));
    CHECK(f.wrapper == nullptr);
    CHECK(f.refusal == nullptr);
    CHECK(f.outside == nullptr);
    CHECK(f.qk_norm == nullptr);
}

TEST_CASE("[gemma3/configuration_gemma3.py, modernbert/configuration_modernbert.py (transformers 5.16)] Gemma 3's and "
          "ModernBERT's rules read default_theta's bases from their records")
{
    int gemma3_rule_families = 0;
    for (const auto& r : hf::detail::families::family_rule_column) {
        if (r.rule != &hf::detail::families::gemma3_config) continue;
        CAPTURE(r.model_type);
        ++gemma3_rule_families;
        const hf::ClassDefaults* d = family_row(r.model_type).class_defaults;
        REQUIRE(d != nullptr);
        CHECK(d->rope_theta == 1'000'000.0);
        CHECK(d->local_rope_theta == 10'000.0);
    }
    CHECK(gemma3_rule_families == 4);  // gemma3_text, gemma3n_text, t5gemma2_text, t5gemma2_decoder
    // ModernBERT's rule the same way: modernbert/configuration_modernbert.py (and modernbert_decoder's)
    // default_theta {"global": 160_000.0, "local": 10_000.0}.
    for (const char* t : {"modernbert", "modernbert-decoder"}) {
        CAPTURE(t);
        const Family& f = family_row(t);
        CHECK(static_cast<bool>(f.rule == &hf::detail::families::modernbert_config));
        REQUIRE(f.class_defaults != nullptr);
        CHECK(f.class_defaults->rope_theta == 160'000.0);
        CHECK(f.class_defaults->local_rope_theta == 10'000.0);
    }
    // Through the reader: a Gemma 3 config without either base gets both.
    const hf::HfModel m = hf::parse_model(R"({"model_type": "gemma3_text", "num_hidden_layers": 6, "head_dim": 256,
        "hidden_size": 2304, "num_attention_heads": 8})");
    std::set<double> bases;
    for (const auto& g : m.rope.groups()) bases.insert(g.spec.base());
    CHECK(bases == std::set<double> {10'000.0, 1'000'000.0});
}

}  // namespace models_family_row_tests
