// SPDX-License-Identifier: MIT
// posenc/models/detail/families/indexer_rope.hpp: MLA families with a sparse-attention indexer
// that rotates with the attention's table too: HY-V4 and HY-V4-VL's text model (hy_v4/, hy_v4_vl/
// modeling files, transformers 5.25.0).
//
//   main attention  read as usual: interleaved pairs on the qk_rope_head_dim slice
//   indexer         its queries and keys (index_head_dim wide, class default 128) rotate their LAST
//                   qk_rope_head_dim coordinates with the same table, interleaved (the head split
//                   [index_head_dim - qk_rope_head_dim, qk_rope_head_dim]): read into
//                   HfModel::indexer (hf_indexer_rope.hpp, detail/hf_indexer_json.hpp); this rule
//                   only says so in a note. The layers and the config are returned unchanged.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/families/indexer_rope.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <string>

#include "posenc/models/detail/families/family_config.hpp"

namespace posenc::hf::detail::families {

/// The rule for HY-V4's indexer (see the file comment).
inline FamilyConfig indexer_rope_config(const json& text, const std::string& /*pre*/, const Family& family)
{
    const std::string model_type(family.model_type);
    FamilyConfig out(text);
    out.notes.push_back(
        "model_type \"" + model_type +
        "\" has a sparse-attention indexer that rotates the last "
        "qk_rope_head_dim of its index_head_dim coordinates (interleaved, with this table): see indexer");
    return out;
}

}  // namespace posenc::hf::detail::families
