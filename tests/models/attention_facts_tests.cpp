// SPDX-License-Identifier: MIT
// The attention facts beside the RoPE (posenc/models/hf_attention_facts.hpp): QK-norm per
// model_type and MLA's layout, on real configs (tests/data/configs).
// Expected values: the configs' own numbers (DeepSeek-V3: qk_nope_head_dim 128, qk_rope_head_dim 64,
// v_head_dim 128, kv_lora_rank 512, q_lora_rank 1536; Llama 4 Scout: use_qk_norm true; Phi-2: no
// qk_layernorm key, class default false) and facts of transformers' modeling files read by hand
// (the file named in each check): which attention builds q_norm / k_norm, with which RMSNorm
// (Qwen3RMSNorm: weight initialised to ones and multiplied; Gemma3RMSNorm: zeros and 1 + weight;
// Gemma4RMSNorm: ones and weight), over how many values (Olmo2RMSNorm(num_heads * head_dim)), and
// where the call sits against apply_rotary_pos_emb. And tests/data/qk_norm_sweep.json, written by
// scripts/sweep-qk-norm.py: every known family's attention built by transformers' own code, its
// norm modules probed (kind and scope), against every row of qk_norm_rules and every family
// without a row.
#include <posenc/models/hf_config.hpp>

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <string>

#ifndef POSENC_TEST_DATA_DIR
#error "POSENC_TEST_DATA_DIR must point at tests/data"
#endif

namespace models_attention_facts_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace hf = posenc::hf;

hf::HfModel model(const char* file) { return hf::read_model(std::string(POSENC_TEST_DATA_DIR) + "/configs/" + file); }

TEST_CASE("QK-norm of real configs: kind, weighting, scope, place")
{
    // qwen3/modeling_qwen3.py: Qwen3RMSNorm(self.head_dim) on q and k, then apply_rotary_pos_emb
    const hf::HfModel qwen3 = model("qwen3-8b-yarn.json");
    REQUIRE(qwen3.qk_norm);
    CHECK(qwen3.qk_norm->kind == hf::QkNormKind::rms_weight);
    CHECK(qwen3.qk_norm->scope == hf::QkNormScope::per_head);
    CHECK(qwen3.qk_norm->place == hf::QkNormPlace::before_rope);
    CHECK(qwen3.qk_norm->source == "qwen3/modeling_qwen3.py");
    // gemma3/modeling_gemma3.py: Gemma3RMSNorm, output * (1.0 + weight)
    CHECK(model("gemma-3-1b-it.json").qk_norm->kind == hf::QkNormKind::rms_one_plus_weight);
    // gemma4/modeling_gemma4.py: Gemma4RMSNorm, weight initialised to ones, output * weight
    CHECK(model("gemma-4-e2b-it.json").qk_norm->kind == hf::QkNormKind::rms_weight);
    // qwen3_next/modeling_qwen3_next.py: Qwen3NextRMSNorm, zeros and 1 + weight
    CHECK(model("qwen3-next-80b-a3b-instruct.json").qk_norm->kind == hf::QkNormKind::rms_one_plus_weight);
    // olmo2/modeling_olmo2.py: Olmo2RMSNorm(num_attention_heads * head_dim) on the whole projection
    const hf::HfModel olmo2 = model("olmo-2-1124-7b.json");
    CHECK(olmo2.qk_norm->kind == hf::QkNormKind::rms_weight);
    CHECK(olmo2.qk_norm->scope == hf::QkNormScope::per_projection);
    // llama4/modeling_llama4.py: Llama4TextL2Norm (x * rsqrt(mean(x^2) + eps), no weight) after RoPE
    const hf::HfModel llama4 = model("llama-4-scout-17b-16e-instruct.json");
    CHECK(llama4.qk_norm->kind == hf::QkNormKind::rms_no_weight);
    CHECK(llama4.qk_norm->place == hf::QkNormPlace::after_rope);
    CHECK(llama4.qk_norm->source == "llama4/modeling_llama4.py, use_qk_norm true");
    // no QK-norm at all: Llama, Mistral, Cohere 2 (cohere2/modeling_cohere2.py builds none)
    CHECK_FALSE(model("llama-3.1-8b.json").qk_norm->present());
    CHECK_FALSE(model("mistral-7b-v0.1.json").qk_norm->present());
    CHECK_FALSE(model("command-r7b-12-2024.json").qk_norm->present());
    // phi/modeling_phi.py: q_layernorm only `if config.qk_layernorm` (class default False)
    const hf::HfModel phi2 = model("phi-2.json");
    CHECK_FALSE(phi2.qk_norm->present());
    CHECK(phi2.qk_norm->source == "phi/modeling_phi.py, qk_layernorm absent: class default false");
}

TEST_CASE("a switch key turns the QK-norm on and off; a non-boolean is refused by name")
{
    const std::string phi = R"({"model_type": "phi", "hidden_size": 2560, "num_attention_heads": 32, "qk_layernorm": )";
    const hf::HfModel on = hf::parse_model(phi + "true}");
    CHECK(on.qk_norm->kind == hf::QkNormKind::layer_norm);
    CHECK(on.qk_norm->scope == hf::QkNormScope::per_head);
    CHECK_FALSE(hf::parse_model(phi + "false}").qk_norm->present());
    CHECK_FALSE(hf::parse_model(phi + "null}").qk_norm->present());  // Python's `if None:`
    try {
        (void)hf::parse_model(phi + "1}");
        FAIL("qk_layernorm 1 was accepted");
    } catch (const posenc::error& e) {
        CHECK(e.field() == "qk_layernorm");
    }
    // persimmon/configuration_persimmon.py: qk_layernorm defaults to True
    CHECK(hf::parse_model(R"({"model_type": "persimmon", "hidden_size": 4096, "num_attention_heads": 64})")
              .qk_norm->kind == hf::QkNormKind::layer_norm);
}

TEST_CASE("a model_type posenc does not know has no QK-norm fact, rather than none")
{
    hf::ReadOptions o;
    o.assume_half_split = true;
    const hf::HfModel m =
        hf::parse_model(R"({"model_type": "not_a_family", "hidden_size": 256, "num_attention_heads": 4})", o);
    CHECK_FALSE(m.qk_norm.has_value());
}

TEST_CASE("every QK-norm rule names a known family, once")
{
    std::set<std::string> seen;
    for (const hf::QkNormRule& r : hf::qk_norm_rules) {
        CAPTURE(r.model_type);
        CHECK(hf::find_family(r.model_type) != nullptr);
        CHECK(seen.insert(std::string(r.model_type)).second);
        CHECK_FALSE(r.source.empty());
    }
}

TEST_CASE("DeepSeek-V3's MLA layout: the rope slice after the 128 nope dims, the key's rope part shared")
{
    const hf::HfModel m = model("deepseek-v3.json");
    REQUIRE(m.mla);
    CHECK(m.qk_head_dim == 192);
    CHECK(m.mla->qk_head_dim == 192);
    CHECK(m.mla->qk_nope_head_dim == 128);
    CHECK(m.mla->qk_rope_head_dim == 64);
    // deepseek_v3/modeling_deepseek_v3.py: q split [qk_nope_head_dim, qk_rope_head_dim], cat(q_pass, q_rot);
    // key_states[..., :qk_nope_head_dim] = k_nope, [..., qk_nope_head_dim:] = k_rot expanded from one head
    CHECK(m.mla->query_rope_offset == 128);
    CHECK(m.mla->key_rope_offset == 128);
    CHECK(m.mla->key_rope_shared);
    CHECK(m.mla->v_head_dim == 128);
    CHECK(m.mla->kv_lora_rank == 512);
    CHECK(m.mla->q_lora_rank == 1536);
    CHECK_FALSE(m.qk_norm->present());  // q_a_layernorm / kv_a_layernorm act on the latents, not on q and k heads
    CHECK_FALSE(model("qwen3-8b-yarn.json").mla.has_value());
}

TEST_CASE("MLA sizes: null q_lora_rank is no query LoRA; a wrong type is refused by name")
{
    const std::string base = R"({"model_type": "deepseek_v3", "hidden_size": 7168, "num_attention_heads": 128, )";
    const hf::HfModel m = hf::parse_model(base + R"("q_lora_rank": null, "kv_lora_rank": 512})");
    REQUIRE(m.mla);
    CHECK_FALSE(m.mla->q_lora_rank.has_value());
    CHECK(m.mla->kv_lora_rank == 512);
    CHECK_FALSE(m.mla->v_head_dim.has_value());  // absent: the config does not say it
    try {
        (void)hf::parse_model(base + R"("kv_lora_rank": "512"})");
        FAIL("kv_lora_rank \"512\" was accepted");
    } catch (const posenc::error& e) {
        CHECK(e.field() == "kv_lora_rank");
    }
}

TEST_CASE("qk_norm_rules against transformers' own modules (tests/data/qk_norm_sweep.json)")
{
    std::ifstream in(std::string(POSENC_TEST_DATA_DIR) + "/qk_norm_sweep.json");
    REQUIRE(in.good());
    const nlohmann::json data = nlohmann::json::parse(in);
    int probed = 0, with_norm = 0, switched = 0;
    std::set<std::string> unprobed;
    for (const auto& family : data.at("model_types").items()) {  // no structured bindings: clang 14 cannot capture them
        const std::string model_type = family.key();
        const nlohmann::json& runs = family.value();
        CAPTURE(model_type);
        const hf::QkNormRule* rule = hf::find_qk_norm_rule(model_type);
        for (const auto& entry : runs.items()) {
            const std::string label = entry.key();
            const nlohmann::json& run = entry.value();
            CAPTURE(label);
            if (run.contains("error")) {
                unprobed.insert(model_type);
                continue;
            }
            // "default": the class defaults; "<key>=<value>": the switch key set the other way
            const bool on =
                label == "default" ? (!rule || rule->switch_default) : label.find("=True") != std::string::npos;
            const nlohmann::json& norms = run.at("norms");
            if (!rule || !on) {
                CHECK(norms.empty());
            } else {
                REQUIRE_FALSE(norms.empty());
                for (const auto& module : norms.items()) {
                    const std::string name = module.key();
                    const nlohmann::json& norm = module.value();
                    CAPTURE(name);
                    CHECK(norm.at("kind") == hf::to_string(rule->kind));
                    CHECK(norm.at("scope") == hf::to_string(rule->scope));
                }
                ++with_norm;
            }
            probed += label == "default";
            switched += label != "default";
        }
    }
    // Every row is in the data (probed, or listed with the error that kept its layer from being built).
    for (const hf::QkNormRule& r : hf::qk_norm_rules) {
        CAPTURE(r.model_type);
        CHECK(data.at("model_types").contains(std::string(r.model_type)));
    }
    MESSAGE("qk_norm_sweep.json: " << probed << " families probed, " << with_norm << " runs with a QK-norm, "
                                   << switched << " switch-key runs, " << unprobed.size() << " families not built");
    CHECK(probed >= 120);
    CHECK(with_norm >= 40);
    CHECK(switched >= 5);
}

}  // namespace models_attention_facts_tests
