// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_indexer_json.hpp: the sparse-attention indexer's RoPE (hf_indexer_rope.hpp)
// from the config: which families have one, its head width key and class default, its key
// positions (hf_indexer_values.hpp); then, once the model's groups are built, its RopeSpec over the
// group's table.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/hf_indexer_json.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "posenc/model_rope.hpp"
#include "posenc/models/detail/hf_indexer_values.hpp"
#include "posenc/models/detail/hf_json_values.hpp"
#include "posenc/models/detail/hf_model_identity.hpp"
#include "posenc/models/hf_indexer_rope.hpp"
#include "posenc/spec.hpp"

namespace posenc::hf::detail {

/// Step 5c: the indexer of HY-V4 (index_head_dim, class default 128) or Qwen4-Exp (indexer_head_dim
/// and indexer_compress_ratio, no class default: a config without indexer_head_dim gets no indexer
/// and a warning, as transformers cannot build the model without it); nullopt for other families.
inline std::optional<IndexerConfig> read_indexer(const ModelIdentity& id, std::vector<ConfigWarning>& warnings)
{
    const json& text = id.text();
    IndexerConfig out;
    if (id.model_type == "hy_v4" || id.model_type == "hy_v4_vl_text") {
        out.key = id.pre + "index_head_dim";
        const json* v = member(text, "index_head_dim");
        out.head_dim = v ? positive_int(*v, out.key) : 128;
        out.suffix = true, out.pairing = Pairing::interleaved;
        out.source = id.model_type == "hy_v4" ? "hy_v4/modeling_hy_v4.py" : "hy_v4_vl/modeling_hy_v4_vl.py";
        return out;
    }
    if (id.model_type != "qwen4_exp_text") return std::nullopt;
    out.key = id.pre + "indexer_head_dim";
    const json* v = member(text, "indexer_head_dim");
    if (!v || v->is_null()) {
        warnings.push_back({out.key, "absent: Qwen4-Exp's QSA indexer has no width, so its RoPE is not described "
                                     "(transformers cannot build the model without the indexer_* keys)"});
        return std::nullopt;
    }
    out.head_dim = positive_int(*v, out.key);
    const json* ratio = member(text, "indexer_compress_ratio");
    if (!ratio)
        fail(id.pre + "indexer_compress_ratio",
             "expected a positive integer beside indexer_head_dim (its configuration "
             "class requires every indexer_* key once one is set)",
             "nothing");
    out.compress_ratio = positive_int(*ratio, id.pre + "indexer_compress_ratio");
    out.keys = IndexerKeys::block_start;
    out.source = "qwen4_exp/modeling_qwen4_exp.py";
    return out;
}

/// The indexer's RopeSpec over group `group` of `rope`: the group's rotary width and base on the
/// indexer's head. Refuses a head narrower than the rotated slice, naming its key.
inline IndexerRope indexer_rope(const IndexerConfig& c, const ModelRope& rope, int group)
{
    const RopeSpec& g = rope.groups()[static_cast<std::size_t>(group)].spec;
    if (g.rotary_dim() > c.head_dim)
        fail(c.key,
             "expected at least the attention's rotary width " + std::to_string(g.rotary_dim()) +
                 ": the indexer rotates that many of its coordinates with the attention's table",
             std::to_string(c.head_dim));
    const int offset = c.suffix ? c.head_dim - g.rotary_dim() : 0;
    return IndexerRope {RopeSpec(c.head_dim, g.rotary_dim(), g.base(), c.pairing, offset),
                        group,
                        c.keys,
                        c.compress_ratio,
                        c.key,
                        c.source};
}

}  // namespace posenc::hf::detail
