// SPDX-License-Identifier: MIT
// The config reader's JSON stage against the published values of real configs
// (docs/formulas.md H12; files in tests/data/configs/, sources in
// its README) and against hostile input. Each expected value below is H12's number.
#include <posenc/models/hf_config_json.hpp>

#include <doctest/doctest.h>

#include <string>

#ifndef POSENC_TEST_DATA_DIR
#error "POSENC_TEST_DATA_DIR must point at tests/data"
#endif

namespace models_hf_config_json_tests_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

posenc::hf::detail::HfRopeConfig load(const char* file)
{
    return posenc::hf::detail::primary_values(
        posenc::hf::detail::read_model_values(std::string(POSENC_TEST_DATA_DIR) + "/configs/" + file));
}

std::string error_of(const std::string& text)
{
    try {
        posenc::hf::detail::primary_values(posenc::hf::detail::parse_model_values(text));
    } catch (const posenc::error& e) {
        return e.what();
    }
    return "(accepted)";
}

bool has_note(const posenc::hf::detail::HfRopeConfig& c, const std::string& start)
{
    for (const auto& n : c.notes)
        if (n.rfind(start, 0) == 0) return true;
    return false;
}

bool has_warning(const posenc::hf::detail::HfRopeConfig& c, const std::string& key)
{
    for (const auto& w : c.warnings)
        if (w.key == key) return true;
    return false;
}

}  // namespace

TEST_CASE("[H12] Llama-2-7b: 4096/32 = 128, no rope_theta key means 10000, no scaling")
{
    const auto c = load("llama-2-7b.json");
    CHECK(c.head_dim == 128);
    CHECK(c.rotary_dim == 128);
    CHECK(c.rope_theta == 10000.0);
    CHECK(c.max_position_embeddings == 4096);
    CHECK(c.rope_type == "default");
    CHECK(c.pairing == posenc::Pairing::half_split);
    CHECK(c.warnings.empty());
}

TEST_CASE("[H12] CodeLlama-7b: theta 1e6, max_pos 16384")
{
    const auto c = load("codellama-7b-instruct.json");
    CHECK(c.head_dim == 128);
    CHECK(c.rope_theta == 1e6);
    CHECK(c.max_position_embeddings == 16384);
    CHECK(c.rope_type == "default");
}

TEST_CASE("[H12] Llama-3.1-8B and 3.2-1B: llama3 factor 8 / 32, low 1, high 4, L0 8192, theta 5e5")
{
    const auto a = load("llama-3.1-8b.json");
    CHECK(a.head_dim == 128);
    CHECK(a.rope_theta == 500000.0);
    CHECK(a.max_position_embeddings == 131072);
    CHECK(a.rope_type == "llama3");
    CHECK(a.factor == 8.0);
    CHECK(a.low_freq_factor == 1.0);
    CHECK(a.high_freq_factor == 4.0);
    CHECK(a.original_max_position_embeddings == 8192);
    CHECK(a.warnings.empty());

    const auto b = load("llama-3.2-1b.json");
    CHECK(b.head_dim == 64);  // 2048 / 32
    CHECK(b.rotary_dim == 64);
    CHECK(b.factor == 32.0);
    CHECK(b.original_max_position_embeddings == 8192);
}

TEST_CASE("[H12] Mistral-7B-v0.1: theta 10000, max_pos 32768, unscaled")
{
    const auto c = load("mistral-7b-v0.1.json");
    CHECK(c.head_dim == 128);
    CHECK(c.rope_theta == 10000.0);
    CHECK(c.max_position_embeddings == 32768);
    CHECK(c.rope_type == "default");
}

TEST_CASE("[H12] Qwen2.5-7B README YaRN: legacy 'type' key, 3584/28 = 128, factor 4, L = L0 = 32768 (no warning)")
{
    const auto c = load("qwen2.5-7b-instruct-yarn.json");
    CHECK(c.head_dim == 128);
    CHECK(c.rope_theta == 1e6);
    CHECK(c.rope_type == "yarn");
    CHECK(c.factor == 4.0);
    CHECK(c.original_max_position_embeddings == 32768);
    CHECK(c.max_position_embeddings == 32768);
    CHECK_FALSE(has_warning(c, "rope_scaling.factor"));  // transformers 5.x stays silent when L / L0 = 1
}

TEST_CASE("[H5/H12] Qwen3-8B YaRN x4 with max_pos 40960: the explicit factor wins, with a note of the lengths' ratio")
{
    const auto c = load("qwen3-8b-yarn.json");
    CHECK(c.factor == 4.0);
    CHECK(c.original_max_position_embeddings == 32768);
    CHECK(c.max_position_embeddings == 40960);
    CHECK_FALSE(has_warning(c, "rope_scaling.factor"));  // 40960 / 32768 = 1.25 != 4: a note, nothing to change
    CHECK(has_note(c, "rope_scaling.factor 4 is used, as transformers does"));
}

TEST_CASE("[H1, transformers 5.x] transformers v5 rope_parameters: rope_theta and the YaRN keys inside it")
{
    const auto c = load("qwen3-8b-v5-rope-parameters.json");
    CHECK(c.scaling_key == "rope_parameters");
    CHECK(c.rope_theta == 1e6);
    CHECK(c.rope_type == "yarn");
    CHECK(c.factor == 4.0);
    CHECK(c.original_max_position_embeddings == 32768);
    CHECK(c.warnings.empty());  // 131072 / 32768 = 4 = factor
}

TEST_CASE("[H8/H12] DeepSeek-V3: qk_rope_head_dim 64, qk_head_dim 192, yarn factor 40 (an integer: noted), interleaved")
{
    const auto c = load("deepseek-v3.json");
    CHECK(c.head_dim == 64);
    CHECK(c.rotary_dim == 64);
    CHECK(c.qk_head_dim == 192);
    CHECK(c.rope_theta == 10000.0);
    CHECK(c.rope_type == "yarn");
    CHECK(c.factor == 40.0);
    CHECK(c.mscale == 1.0);
    CHECK(c.mscale_all_dim == 1.0);
    CHECK(c.beta_fast == 32.0);
    CHECK(c.beta_slow == 1.0);
    CHECK(c.original_max_position_embeddings == 4096);
    CHECK(c.pairing == posenc::Pairing::interleaved);
    CHECK_FALSE(has_warning(c, "rope_scaling.factor"));  // H11: isinstance(40, float) is False: logged, used; a note
    CHECK(has_note(c, "rope_scaling.factor is an integer (40)"));
    CHECK_FALSE(c.notes.empty());  // the de-interleave note
}

TEST_CASE("[H6/H12] Phi-3-mini-128k: 96 dims, top-level L0 4096, longrope with 48 + 48 factors, s = 131072 / 4096 = 32")
{
    const auto c = load("phi-3-mini-128k-instruct.json");
    CHECK(c.head_dim == 96);  // 3072 / 32
    CHECK(c.rope_type == "longrope");
    CHECK(c.original_max_position_embeddings == 4096);
    CHECK(c.short_factor.size() == 48);
    CHECK(c.long_factor.size() == 48);
    CHECK(c.long_factor.front() == 1.0700000524520874);
    CHECK(c.long_factor.back() == 64.76000213623047);
    CHECK(c.short_factor.back() == 3.049999999999997);
    CHECK(c.factor == 32.0);
    CHECK_FALSE(has_warning(c, "original_max_position_embeddings"));  // the official config: nothing to change
    CHECK(has_note(c, "original_max_position_embeddings 4096 (top level) is LongRoPE's original length"));
}

TEST_CASE("[H1/H12] gpt-oss-20b: head_dim 64 wins over 2880 / 64 = 45; yarn factor 32, truncate false")
{
    const auto c = load("gpt-oss-20b.json");
    CHECK(c.head_dim == 64);
    CHECK(c.rope_theta == 150000.0);
    CHECK(c.factor == 32.0);
    CHECK(c.truncate == false);
    CHECK(c.original_max_position_embeddings == 4096);
}

TEST_CASE("[H10/H12] partial rotary families: Pythia rotary_pct 0.25 (64 -> 16), Phi-2 0.4 (80 -> 32), GLM-4 0.5 "
          "interleaved, GPT-J rotary_dim 64 of 256")
{
    const auto pythia = load("pythia-70m.json");
    CHECK(pythia.head_dim == 64);
    CHECK(pythia.rotary_dim == 16);
    CHECK(pythia.rope_theta == 10000.0);  // rotary_emb_base
    CHECK(pythia.pairing == posenc::Pairing::half_split);

    const auto phi2 = load("phi-2.json");
    CHECK(phi2.head_dim == 80);
    CHECK(phi2.rotary_dim == 32);

    const auto glm = load("glm-4-9b-chat-hf.json");
    CHECK(glm.head_dim == 128);
    CHECK(glm.rotary_dim == 64);
    CHECK(glm.pairing == posenc::Pairing::interleaved);

    const auto gptj = load("gpt-j-6b.json");
    CHECK(gptj.head_dim == 256);  // 4096 / 16
    CHECK(gptj.rotary_dim == 64);
    CHECK(gptj.rope_theta == 10000.0);
    CHECK(gptj.pairing == posenc::Pairing::interleaved);
    CHECK(gptj.max_position_embeddings == 2048);  // n_positions
}

TEST_CASE("[H11] unknown keys are warnings, not errors")
{
    const auto c = posenc::hf::detail::primary_values(posenc::hf::detail::parse_model_values(
        R"({"head_dim": 64, "max_position_embeddings": 4096,
            "rope_scaling": {"rope_type": "linear", "factor": 2.0, "beta_fast": 32.0}})"));
    CHECK(c.rope_type == "linear");
    // The config names no model_type: one warning for that (half_split assumed), one for the key.
    REQUIRE(c.warnings.size() == 2);
    CHECK(c.warnings[0].key == "model_type");
    CHECK(c.warnings[1].key == "rope_scaling.beta_fast");
}

TEST_CASE("[errors] malformed and hostile configs name the key path, the rule and the value")
{
    CHECK(error_of(R"({"head_dim": 64, "rope_scaling": {"type": "linear", "factor": "four"}})") ==
          "rope_scaling.factor: expected a number >= 1, got \"four\"");
    CHECK(error_of(R"({"head_dim": 64, "rope_scaling": {"type": "linear", "factor": 0.5}})") ==
          "rope_scaling.factor: expected a number >= 1, got 0.5");
    CHECK(error_of(R"({"head_dim": 64, "rope_scaling": {"type": "linear"}})") ==
          "rope_scaling.factor: expected a value (required for rope_type \"linear\"), got nothing");
    CHECK(error_of(R"({"head_dim": 64, "rope_scaling": {"type": "wavy", "factor": 2.0}})") ==
          "rope_scaling.type: expected one of default, linear, dynamic, yarn, longrope, llama3, got \"wavy\"");
    CHECK(error_of(R"({"head_dim": "128"})") == "head_dim: expected a positive integer, got \"128\"");
    CHECK(error_of(R"({"head_dim": 0})") == "head_dim: expected a positive integer, got 0");
    CHECK(error_of(R"({"hidden_size": 4096})") ==
          "num_attention_heads: expected a positive integer (no head_dim given), got nothing");
    CHECK(error_of(R"({"head_dim": 64, "rope_theta": 1})") == "rope_theta: expected a finite number > 1, got 1");
    CHECK(error_of(R"({"head_dim": 64, "rope_theta": true})") == "rope_theta: expected a finite number, got true");
    CHECK(error_of(R"({"head_dim": 64, "partial_rotary_factor": 1.5})") ==
          "partial_rotary_factor: expected a number in (0, 1], got 1.5");
    CHECK(error_of(R"({"head_dim": 100, "partial_rotary_factor": 0.27})") ==
          "partial_rotary_factor: expected a rotary_dim that is even, > 0 and <= head_dim 100, got 27");
    CHECK(error_of(R"({"head_dim": 64, "rope_scaling": [1, 2]})") ==
          "rope_scaling: expected an object or null, got [1,2]");
    CHECK(error_of(R"({"head_dim": 64, "rope_scaling": {"type": "yarn", "factor": 4.0, "truncate": "no"}})") ==
          "rope_scaling.truncate: expected true or false, got \"no\"");
    CHECK(error_of("[1, 2, 3]") == "config: expected a JSON object, got [1,2,3]");
}

TEST_CASE("[errors] truncated JSON, NaN, deep nesting, huge lists and huge numbers")
{
    CHECK(error_of(R"({"head_dim": 64, "rope_sca)").rfind("config: expected valid JSON", 0) == 0);
    CHECK(error_of(R"({"head_dim": 64, "rope_theta": NaN})").rfind("config: expected valid JSON", 0) == 0);
    CHECK(error_of("").rfind("config: expected valid JSON", 0) == 0);
    CHECK(error_of(std::string(100000, '[') + std::string(100000, ']')) ==
          "config: expected JSON nested at most 64 levels deep, got deeper nesting");
    CHECK(error_of(R"({"head_dim": 64, "rope_theta": 1e999})") ==
          "rope_theta: expected a number within double's range, got 1e999");
    CHECK(error_of(R"({"head_dim": 64, "rope_scaling": {"type": "linear", "factor": 1e308}})") == "(accepted)");

    std::string list = "[";
    for (int i = 0; i < 10000; ++i) list += (i ? ",1.5" : "1.5");
    list += "]";
    CHECK(error_of(R"({"head_dim": 96, "max_position_embeddings": 131072, "original_max_position_embeddings": 4096,
                       "rope_scaling": {"type": "longrope", "short_factor": )" +
                   list + R"(, "long_factor": )" + list + "}}") ==
          "rope_scaling.short_factor: expected 48 numbers (rotary_dim / 2), got 10000 numbers");
    CHECK(error_of(R"({"head_dim": 64, "max_position_embeddings": 99999999999999999999})") ==
          "max_position_embeddings: expected a positive integer, got 1e+20");
}

TEST_CASE("[errors] an unreadable file names its path")
{
    try {
        posenc::hf::detail::primary_values(posenc::hf::detail::read_model_values("/nonexistent/config.json"));
        FAIL("no error");
    } catch (const posenc::error& e) {
        CHECK(std::string(e.what()) == "/nonexistent/config.json: cannot be opened (No such file or directory)");
    }
}

TEST_CASE("[errors] DeepSeek's qk_nope_head_dim is bounded so qk_head_dim cannot overflow")
{
    CHECK(error_of(R"({"qk_rope_head_dim": 64, "qk_nope_head_dim": 2147483647})") ==
          "qk_nope_head_dim: expected a positive integer <= 65536, got 2147483647");
    CHECK(posenc::hf::detail::primary_values(
              posenc::hf::detail::parse_model_values(R"({"qk_rope_head_dim": 64, "qk_nope_head_dim": 128})"))
              .qk_head_dim == 192);
}

TEST_CASE("[errors] the reader refuses a device like /dev/zero before reading it, not read forever")
{
    try {
        posenc::hf::detail::primary_values(posenc::hf::detail::read_model_values("/dev/zero"));
        FAIL("no error");
    } catch (const posenc::error& e) {
        CHECK(std::string(e.what()) ==
              "/dev/zero: is a character device, which could block or never end; expected a regular config.json file");
    }
}

}  // namespace models_hf_config_json_tests_tests

TEST_CASE("[docs/errors.md] messages a user can act on: -0 as written, a layer map without RoPE names its key, long "
          "values cut")
{
    const auto error_of = [](const std::string& text) {
        try {
            posenc::hf::detail::parse_model_values(text);
        } catch (const posenc::error& e) {
            return std::string(e.what());
        }
        return std::string("(accepted)");
    };
    // JSON's -0 is a zero: the base must be > 1, and the message shows the value as the config wrote it.
    CHECK(error_of(R"({"model_type": "llama", "head_dim": 64, "rope_theta": -0})") ==
          "rope_theta: expected a finite number > 1, got -0");
    CHECK(error_of(R"({"model_type": "llama", "head_dim": 64, "rope_theta": -0.0})") ==
          "rope_theta: expected a finite number > 1, got -0.0");
    // SmolLM3 with every no_rope_layers entry 0: no layer rotates; the key is named, not an internal group.
    CHECK(error_of(R"({"model_type": "smollm3", "head_dim": 64, "num_hidden_layers": 2, "no_rope_layers": [0, 0]})") ==
          "no_rope_layers: expected at least one 1 (a layer with RoPE): every entry is 0, so none of the 2 layers "
          "rotates and there is no RoPE to describe, got [0,0]");
    // Cohere 2 rotates only sliding-window layers: layer_types all full_attention leave none.
    CHECK(error_of(R"({"model_type": "cohere2", "hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 2,
                       "layer_types": ["full_attention", "full_attention"]})") ==
          "layer_types: expected at least one \"sliding_attention\" layer: model_type \"cohere2\" rotates only its "
          "sliding-window layers and every one of the 2 layers is \"full_attention\", so no layer has RoPE, got "
          "[\"full_attention\",\"full_attention\"]");
    // A 300-character model_type is shown cut: 57 characters and "...".
    const std::string long_type(300, 'x');
    const std::string message = error_of(R"({"model_type": ")" + long_type + R"(", "head_dim": 64})");
    CHECK(message.size() < 600);
    CHECK(message.substr(message.size() - 66) == ", got \"" + std::string(56, 'x') + "...");
}
