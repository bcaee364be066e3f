// SPDX-License-Identifier: MIT
// HfModel::indexer (posenc/models/hf_indexer_rope.hpp): the sparse-attention indexers' RoPE of HY-V4
// and Qwen4-Exp, and Qwen4-Exp's QSA block starts. Expected values: the modeling files of
// transformers 5.25.0 (hy_v4/modeling_hy_v4.py HYV4Indexer: torch.split(q, [index_head_dim -
// qk_rope_head_dim, qk_rope_head_dim]) then apply_rotary_pos_emb_interleave on the second part;
// qwen4_exp/modeling_qwen4_exp.py Qwen4ExpTextQSAIndexer: apply_rotary_pos_emb on q[..., :rotary_dim]),
// and for the block starts the output of transformers' own _select_tokens
// (tests/models/qsa_block_starts_reference.py prints them).
#include <posenc/models/hf_config.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "support/model_parse_errors.hpp"

namespace indexer_rope_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

using posenc::hf::IndexerKeys;
using test_support::models::error_of;

TEST_CASE("[hy_v4/modeling_hy_v4.py (transformers 5.25.0)] the indexer rotates the last qk_rope_head_dim of "
          "index_head_dim, interleaved")
{
    const auto m = posenc::hf::parse_model(R"({"model_type": "hy_v4", "num_hidden_layers": 2})");
    REQUIRE(m.indexer.has_value());
    const posenc::hf::IndexerRope& x = *m.indexer;
    CHECK(x.spec.head_dim() == 128);  // index_head_dim's class default
    CHECK(x.spec.rotary_dim() == 64);
    CHECK(x.spec.rotary_offset() == 64);  // [128 - 64 pass, 64 rot]
    CHECK(x.spec.pairing() == posenc::Pairing::interleaved);
    CHECK(x.spec.base() == m.rope.groups()[static_cast<std::size_t>(x.group)].spec.base());
    CHECK(x.keys == IndexerKeys::per_token);
    CHECK(x.compress_ratio == 1);
    CHECK(x.head_dim_key == "index_head_dim");
    for (const posenc::hf::ConfigWarning& w : m.warnings) CHECK(w.key != "index_head_dim");  // read, not only named

    const auto vl = posenc::hf::parse_model(R"({"model_type": "hy_v4_vl", "text_config": {"num_hidden_layers": 2,
        "index_head_dim": 96}})");
    REQUIRE(vl.indexer.has_value());
    CHECK(vl.indexer->spec.head_dim() == 96);
    CHECK(vl.indexer->spec.rotary_offset() == 32);  // [96 - 64 pass, 64 rot]
    CHECK(vl.indexer->head_dim_key == "text_config.index_head_dim");
    // A head narrower than the rotated slice: torch.split cannot cut it.
    CHECK(error_of(R"({"model_type": "hy_v4", "num_hidden_layers": 2, "index_head_dim": 32})")
              .rfind("index_head_dim: expected at least the attention's rotary width 64", 0) == 0);
    CHECK_FALSE(posenc::hf::parse_model(R"({"model_type": "llama", "hidden_size": 512, "num_attention_heads": 8})")
                    .indexer.has_value());
}

TEST_CASE("[qwen4_exp/modeling_qwen4_exp.py (transformers 5.25.0)] the QSA indexer rotates its first rotary_dim dims; "
          "keys at block starts")
{
    const char* config = R"({"model_type": "qwen4_exp_text", "head_dim": 256, "num_hidden_layers": 4,
        "rope_parameters": {"rope_type": "default", "rope_theta": 1e7, "partial_rotary_factor": 0.25},
        "indexer_n_heads": 4, "indexer_kv_heads": 1, "indexer_head_dim": 128, "indexer_budget": 64,
        "indexer_compress_ratio": 4})";
    const auto m = posenc::hf::parse_model(config);
    REQUIRE(m.indexer.has_value());
    CHECK(m.indexer->spec.head_dim() == 128);
    CHECK(m.indexer->spec.rotary_dim() == 64);  // int(256 * 0.25), the attention's
    CHECK(m.indexer->spec.rotary_offset() == 0);
    CHECK(m.indexer->spec.pairing() == posenc::Pairing::half_split);
    CHECK(m.indexer->spec.base() == 1e7);
    CHECK(m.indexer->keys == IndexerKeys::block_start);
    CHECK(m.indexer->compress_ratio == 4);
    // Its configuration class: rotary_dim must fit the index head, and every indexer_* key is set once one is.
    CHECK(error_of(R"({"model_type": "qwen4_exp_text", "head_dim": 256, "num_hidden_layers": 4, "indexer_head_dim": 128,
        "indexer_compress_ratio": 4})")
              .rfind("indexer_head_dim: expected at least the attention's rotary width 256", 0) == 0);
    CHECK(error_of(
              R"({"model_type": "qwen4_exp_text", "head_dim": 256, "num_hidden_layers": 4, "indexer_head_dim": 256})")
              .rfind("indexer_compress_ratio: expected a positive integer", 0) == 0);
    // Without the indexer keys: no indexer, and a warning naming the width's key.
    const auto bare =
        posenc::hf::parse_model(R"({"model_type": "qwen4_exp_text", "head_dim": 256, "num_hidden_layers": 4})");
    CHECK_FALSE(bare.indexer.has_value());
    bool named = false;
    for (const posenc::hf::ConfigWarning& w : bare.warnings) named = named || w.key == "indexer_head_dim";
    CHECK(named);
}

TEST_CASE("[qwen4_exp/modeling_qwen4_exp.py (transformers 5.25.0)] qsa_block_start_tokens: the first visible token of "
          "each complete block")
{
    using posenc::hf::qsa_block_start_tokens;
    const auto range = [](std::int64_t a, std::int64_t b) {
        std::vector<std::int64_t> v;
        for (std::int64_t i = a; i < b; ++i) v.push_back(i);
        return v;
    };
    using V = std::vector<std::int64_t>;
    // transformers' _select_tokens on one query (qsa_block_starts_reference.py)
    CHECK(qsa_block_start_tokens(range(0, 13), 3) == V {0, 3, 6, 9});
    CHECK(qsa_block_start_tokens(range(0, 13), 4) == V {0, 4, 8});
    CHECK(qsa_block_start_tokens(range(0, 7), 4) == V {0});
    CHECK(qsa_block_start_tokens(range(0, 3), 4).empty());  // no complete block
    CHECK(qsa_block_start_tokens(V {0, 2, 3, 5, 7, 8, 11, 12}, 3) == V {0, 5});  // masked tokens are skipped
    CHECK(qsa_block_start_tokens(range(8, 13), 2) == V {8, 10});  // a sliding window
    CHECK_THROWS_AS(qsa_block_start_tokens(range(0, 4), 0), posenc::error);
}

}  // namespace indexer_rope_tests
