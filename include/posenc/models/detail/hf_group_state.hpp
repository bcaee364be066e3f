// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_group_state.hpp: the state the group reader's stages share (GroupState),
// and the first facts: model_type, _name_or_path, the family row, max_position_embeddings.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error "posenc/models/detail/hf_group_state.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/models/detail/hf_json_values.hpp"
#include "posenc/models/detail/hf_rope_values.hpp"
#include "posenc/models/detail/hf_scaling_dict_json.hpp"
#include "posenc/models/hf_class_defaults.hpp"
#include "posenc/models/hf_families.hpp"

namespace posenc::hf::detail_json {

/// What every stage of the group reader shares: the config object, the context, the group being
/// filled, and the facts settled on the way (family row, scaling dict, partial rotary factor,
/// top-level original length). The stages derive from it one after another (each may use the
/// ones before): GroupScaling (hf_group_scaling_json.hpp), GroupWidth (hf_group_width_json.hpp),
/// GroupBase (hf_group_base_json.hpp), GroupLength (hf_group_length_json.hpp).
class GroupState
{
public:
    GroupState(const json& config, const GroupContext& context) : config(config), context(context) {}

protected:
    const json& config;
    const GroupContext& context;
    HfRopeConfig out;
    const FamilyRules* family = nullptr;
    bool gptj_like = false;         ///< GPT-J / CodeGen: rotary_dim, not partial_rotary_factor
    bool deepseek = false;          ///< MLA: RoPE on the qk_rope_head_dim slice
    const json* scaling = nullptr;  ///< the scaling dict in effect (nullptr: none)
    std::string sk;                 ///< its key path
    double prf = 1.0;               ///< the partial rotary factor in effect, its key and how it was given
    std::string prf_key, prf_shown;
    std::optional<std::int64_t> top_level_l0;  ///< top-level original_max_position_embeddings (or class default)
    bool top_level_l0_written = false;
    bool top_level_l0_ignored = false;

    std::string skey(const char* k) const { return sk + "." + k; }

    /// Whether the scaling dict asks for proportional RoPE, for a family whose code has it.
    bool is_proportional() const
    {
        const json* type = scaling ? member(*scaling, "rope_type") : nullptr;
        return type && *type == "proportional" && family && family->has(trait::proportional_full_attention);
    }

    /// model_type and _name_or_path (else the context's), and the family row.
    void read_identity()
    {
        if (const json* v = member(config, "model_type")) {
            if (!v->is_string()) fail_json("model_type", "expected a string", *v);
            out.model_type = v->get<std::string>();
        }
        if (const json* v = member(config, "_name_or_path")) {
            if (!v->is_string()) fail_json("_name_or_path", "expected a string", *v);
            out.name_or_path = v->get<std::string>();
        }
        if (out.model_type.empty()) out.model_type = context.model_type;
        if (out.name_or_path.empty()) out.name_or_path = context.name_or_path;
        family = find_family(out.model_type);
        gptj_like = family && family->has(trait::rotary_dim_key);
        deepseek = (member(config, "qk_rope_head_dim") != nullptr || (family && family->has(trait::mla))) &&
                   !(family && (family->has(trait::mla_rope_suffix) || family->has(trait::rope_suffix_inverse_output)));
    }

    /// max_position_embeddings (GPT-J: n_positions), else the class default.
    void read_max_position_embeddings()
    {
        if (const json* v = member(config, "max_position_embeddings"))
            out.max_position_embeddings = positive_int(*v, "max_position_embeddings");
        else if (const json* n = member(config, "n_positions"))
            out.max_position_embeddings = positive_int(*n, "n_positions");
        else if (family && family->max_position_embeddings > 0) {
            out.max_position_embeddings = family->max_position_embeddings;
            out.notes.push_back("max_position_embeddings absent: " + out.model_type + "'s class default " +
                                std::to_string(family->max_position_embeddings));
        }
    }
};

}  // namespace posenc::hf::detail_json
