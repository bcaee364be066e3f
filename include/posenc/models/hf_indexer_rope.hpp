// SPDX-License-Identifier: MIT
// posenc/models/hf_indexer_rope.hpp: the RoPE of a sparse-attention indexer, a small attention that
// scores which tokens the main attention reads. It rotates its own query and key heads with the
// main attention's table (the same frequencies and scaling, the same positions), over a slice of
// its own head. Read by the config reader into HfModel::indexer for two families (transformers
// 5.25.0):
//
//   HY-V4, HY-V4-VL's text model (hy_v4/modeling_hy_v4.py HYV4Indexer): queries and keys are
//     index_head_dim wide (class default 128), split [index_head_dim - qk_rope_head_dim,
//     qk_rope_head_dim]; the LAST qk_rope_head_dim coordinates rotate, interleaved
//     (apply_rotary_pos_emb_interleave): spec = RopeSpec::suffix(index_head_dim, qk_rope_head_dim,
//     base, Pairing::interleaved). Keys are per token (IndexerKeys::per_token).
//   Qwen4-Exp's text model (qwen4_exp/modeling_qwen4_exp.py Qwen4ExpTextQSAIndexer): queries and keys
//     are indexer_head_dim wide; the FIRST rotary_dim coordinates rotate (rotary_dim =
//     int(head_dim * partial_rotary_factor), the attention's; its configuration class requires
//     rotary_dim <= indexer_head_dim) with rotate_half and the attention's interleaved M-RoPE
//     layout. Queries rotate at their own positions. Keys are mean-pooled over blocks of
//     indexer_compress_ratio consecutive VISIBLE tokens (the query's attention mask decides which
//     tokens are visible; incomplete trailing blocks are dropped), RMS-normed, and rotated at the
//     position of the block's first token (IndexerKeys::block_start; qsa_block_start_tokens below
//     gives those tokens).
//
// The table is the one of the group whose layers hold the indexer (HY-V4: indexed_attention layers,
// Qwen4-Exp: indexed_attention layers; each model has that one rotating group, IndexerRope::group).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/spec.hpp"

namespace posenc::hf {

/// Where an indexer's keys take their positions.
enum class IndexerKeys {
    per_token,  ///< every key token rotates at its own position (HY-V4)
    block_start,  ///< one pooled key per block of compress_ratio visible tokens, at the block's first token (Qwen4-Exp)
};

inline const char* to_string(IndexerKeys k) noexcept
{
    return k == IndexerKeys::per_token ? "per_token" : "block_start";
}

/// A sparse-attention indexer's RoPE (see the file comment).
struct IndexerRope {
    /// The indexer's head (head_dim: its width), the rotated slice [rotary_offset, rotary_offset +
    /// rotary_dim), the pairing, and the base of the main attention's group.
    RopeSpec spec;
    int group = 0;  ///< index in HfModel::rope.groups() of the table it uses
    IndexerKeys keys = IndexerKeys::per_token;
    int compress_ratio = 1;  ///< tokens per pooled key (block_start); 1 for per_token
    std::string head_dim_key;  ///< the config key of the indexer's head width
    std::string source;  ///< the transformers file that decides it
};

/// Qwen4-Exp's QSA blocks: given the token indices a query sees (ascending; its attention mask's
/// visible entries), the first token of each complete block of `compress_ratio` consecutive visible
/// tokens, in order: visible[0], visible[r], ..., visible[(n / r - 1) * r] for n = visible.size().
/// The pooled key of block b rotates at the position of token result[b]. For a plain causal mask
/// the query at index t sees 0..t: blocks start at 0, r, 2r, ..., ((t + 1) / r - 1) * r.
/// Throws posenc::error for compress_ratio < 1.
inline std::vector<std::int64_t> qsa_block_start_tokens(const std::vector<std::int64_t>& visible, int compress_ratio)
{
    posenc::detail::require(compress_ratio >= 1, "compress_ratio", compress_ratio, "must be >= 1");
    const std::size_t r = static_cast<std::size_t>(compress_ratio);
    std::vector<std::int64_t> starts;
    starts.reserve(visible.size() / r);
    for (std::size_t b = 0; b < visible.size() / r; ++b) starts.push_back(visible[b * r]);
    return starts;
}

}  // namespace posenc::hf
