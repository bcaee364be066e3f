// SPDX-License-Identifier: MIT
// posenc-inspect --config --json: the "attention" object (docs/cli.md) carries HfModel's QK-norm
// and MLA facts. Expected values: the configs' own numbers (DeepSeek-V3: 128 + 64, v_head_dim 128,
// kv_lora_rank 512, q_lora_rank 1536) and the modeling files' facts (qwen3/modeling_qwen3.py:
// Qwen3RMSNorm(head_dim) on q and k before RoPE, weight multiplied).
#include "inspect/render_json.hpp"
#include "inspect/report.hpp"

#include <nlohmann/json.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

#ifndef POSENC_TEST_DATA_DIR
#error "POSENC_TEST_DATA_DIR must point at tests/data"
#endif

namespace inspect_attention_json_tests_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

nlohmann::ordered_json config_json(const char* file)
{
    const std::vector<std::string> args {"--config", std::string(POSENC_TEST_DATA_DIR) + "/configs/" + file, "--json"};
    return nlohmann::ordered_json::parse(inspect::render_json(inspect::build_report(inspect::parse_options(args))));
}

TEST_CASE("--config --json: DeepSeek-V3's MLA layout and Qwen3's QK-norm")
{
    const auto ds = config_json("deepseek-v3.json");
    REQUIRE(ds.contains("attention"));
    const auto& a = ds["attention"];
    CHECK(a["qk_head_dim"] == 192);
    CHECK(a["qk_norm"]["kind"] == "none");
    CHECK(a["mla"]["qk_nope_head_dim"] == 128);
    CHECK(a["mla"]["qk_rope_head_dim"] == 64);
    CHECK(a["mla"]["v_head_dim"] == 128);
    CHECK(a["mla"]["kv_lora_rank"] == 512);
    CHECK(a["mla"]["q_lora_rank"] == 1536);
    CHECK(a["mla"]["query_rope_offset"] == 128);
    CHECK(a["mla"]["key_rope_offset"] == 128);
    CHECK(a["mla"]["key_rope_shared"] == true);

    const auto qwen = config_json("qwen3-8b-yarn.json")["attention"];
    CHECK(qwen["qk_head_dim"] == 0);
    CHECK(qwen["mla"].is_null());
    CHECK(qwen["qk_norm"]["kind"] == "rms_weight");
    CHECK(qwen["qk_norm"]["scope"] == "per_head");
    CHECK(qwen["qk_norm"]["place"] == "before_rope");
    CHECK(qwen["qk_norm"]["source"] == "qwen3/modeling_qwen3.py");
}

TEST_CASE("--config --json: a sparse-attention indexer's RoPE (Qwen4-Exp's QSA), null for other models")
{
    // qwen4_exp/modeling_qwen4_exp.py: the index head rotates its first int(256 * 0.25) = 64 dims with the
    // attention's table (rotate_half); keys pooled per block of indexer_compress_ratio tokens.
    const auto a = config_json("qwen4-exp-qsa-indexer.json")["attention"];
    REQUIRE(a["indexer"].is_object());
    CHECK(a["indexer"]["head_dim"] == 128);
    CHECK(a["indexer"]["rotary_dim"] == 64);
    CHECK(a["indexer"]["rotary_offset"] == 0);
    CHECK(a["indexer"]["pairing"] == "half_split");
    CHECK(a["indexer"]["keys"] == "block_start");
    CHECK(a["indexer"]["compress_ratio"] == 4);
    CHECK(a["indexer"]["head_dim_key"] == "text_config.indexer_head_dim");
    CHECK(config_json("qwen3-8b-yarn.json")["attention"]["indexer"].is_null());
}

}  // namespace inspect_attention_json_tests_tests
