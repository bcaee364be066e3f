// SPDX-License-Identifier: MIT
// posenc/models/detail/families/mistral4.hpp: Mistral 4 (mistral4/configuration_mistral4.py,
// mistral4/modeling_mistral4.py, transformers 5.16).
//
//   MLA whose rotary embedding spans the whole query head qk_nope_head_dim + qk_rope_head_dim (the
//   row's class defaults 64 + 64) with partial_rotary_factor qk_rope_head_dim / head_dim, applied to
//   the LAST qk_rope_head_dim coordinates (q split into [nope, rope]): rotary_offset = qk_nope_head_dim.
//   A head_dim key other than qk_nope_head_dim + qk_rope_head_dim is refused (the table would be built
//   from it while the attention rotates the qk_rope_head_dim part). The group reader's head-width step
//   calls the read (FamilySteps::head_dim); the partial factor and the offset follow from
//   HfRopeConfig::mla_rope_head_dim. No layer rule: the config is read as it is.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/mistral4.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <string>

#include "posenc/models/detail/families/family_config.hpp"
#include "posenc/models/detail/hf_rope_values.hpp"
#include "posenc/models/hf_families.hpp"

namespace posenc::hf::detail::families {

/// Mistral 4's head: qk_nope_head_dim + qk_rope_head_dim, the rope part its last qk_rope_head_dim
/// coordinates (see the file comment); `row` holds the class defaults.
inline void mistral4_head_dim(const json& config, const FamilyRules& row, HfRopeConfig& out)
{
    int rope = row.qk_rope_head_dim, nope = row.qk_nope_head_dim;
    if (const json* v = member(config, "qk_rope_head_dim")) rope = positive_int(*v, "qk_rope_head_dim");
    if (const json* v = member(config, "qk_nope_head_dim")) nope = positive_int(*v, "qk_nope_head_dim");
    if (rope > max_head_dim || nope > max_head_dim)
        fail("qk_nope_head_dim", "expected qk_nope_head_dim and qk_rope_head_dim <= 65536",
             std::to_string(nope) + " + " + std::to_string(rope));
    if (const json* v = member(config, "head_dim"); v && !(v->is_number() && v->get<double>() == nope + rope))
        // mistral4/configuration_mistral4.py derives the partial factor from qk_nope + qk_rope, then the
        // head_dim key replaces the head the table is built from: a table int(head_dim * factor) wide
        // that the attention cannot apply to its qk_rope_head_dim part.
        fail("head_dim",
             "expected qk_nope_head_dim + qk_rope_head_dim = " + std::to_string(nope + rope) + " (" + out.model_type +
                 "'s rotary table would be built from head_dim while its attention rotates "
                 "the last qk_rope_head_dim coordinates; transformers cannot apply it)",
             shown(*v));
    out.head_dim = nope + rope;
    out.head_dim_key = "qk_nope_head_dim + qk_rope_head_dim";
    out.qk_head_dim = out.head_dim;
    out.mla_rope_head_dim = rope;
}

/// The rule for Mistral 4: the config as it is, and its head width.
inline FamilyConfig mistral4_config(const json& text, const std::string&, const Family&)
{
    FamilyConfig out(text);
    out.steps.head_dim = &mistral4_head_dim;
    return out;
}

}  // namespace posenc::hf::detail::families
