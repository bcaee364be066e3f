// SPDX-License-Identifier: MIT
// posenc-inspect --prompt SEGMENTS --angles --json (tools/posenc-inspect/inspect/prompt.hpp): the JSON's
// "prompt" and "angles" for a config, against the position ids transformers' get_rope_index
// returned for the same prompt (tests/data/transformers_sweep_prompts.json, Qwen2-VL's first
// case, restated here), and the usage errors.
#include "inspect/prompt.hpp"
#include "inspect/render_json.hpp"
#include "inspect/report.hpp"

#include <nlohmann/json.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <exception>
#include <string>
#include <vector>

namespace inspect_prompt_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

nlohmann::ordered_json prompt_json(const std::vector<std::string>& args)
{
    const inspect::Options options = inspect::parse_options(args);
    inspect::Report report = inspect::build_report(options);
    inspect::add_prompt_angles(report, options);
    return nlohmann::ordered_json::parse(inspect::render_json(report));
}

template <class F>
std::string message_of(F&& f)
{
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "(no error)";
}

const std::string qwen2_vl = std::string(POSENC_TEST_DATA_DIR) + "/configs/qwen2-vl-7b-instruct.json";

TEST_CASE("[cli] --prompt --angles --json: each token's ids and angles (Qwen2-VL-7B)")
{
    const auto j = prompt_json({"--config", qwen2_vl, "--prompt", "text:3;image:1x4x6;text:2", "--angles", "--json"});
    // transformers' get_rope_index (spatial_merge_size 2): rope_delta -3.
    const std::vector<std::vector<double>> want {
        {0, 1, 2, 3, 3, 3, 3, 3, 3, 6, 7}, {0, 1, 2, 3, 3, 3, 4, 4, 4, 6, 7}, {0, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7}};
    CHECK(j.at("prompt").at("rope_delta") == -3);
    CHECK(j.at("prompt").at("next_position") == 8);
    CHECK(j.at("prompt").at("rule") == "qwen2_vl");
    const auto& a = j.at("angles");
    REQUIRE(a.at("tokens").size() == 11);
    REQUIRE(a.at("pairs").size() == 64);
    CHECK(a.at("pairs")[16] == nlohmann::ordered_json::array({16, 80}));
    for (std::size_t n = 0; n < 11; ++n) {
        for (std::size_t x = 0; x < 3; ++x) CHECK(a.at("positions")[n][x].get<double>() == want[x][n]);
        // mrope_section [16, 24, 24]: pairs 0-15 temporal, 16-39 height, 40-63 width; base 1e6.
        for (std::size_t k : {0u, 15u, 16u, 39u, 40u, 63u}) {
            const std::size_t axis = k < 16 ? 0 : k < 40 ? 1 : 2;
            CHECK(a.at("tokens")[n][k].get<double>() ==
                  doctest::Approx(want[axis][n] * std::pow(1e6, -2.0 * static_cast<double>(k) / 128)).epsilon(1e-15));
        }
    }
}

TEST_CASE("[cli] --prompt's usage errors name the segment, the option or the model")
{
    CHECK(message_of([] {
              return prompt_json({"--config", qwen2_vl, "--prompt", "text:3;img:1x4x4", "--angles", "--json"});
          }) == "--prompt: segment 1 \"img:1x4x4\": must be text:N, image:TxHxW, video:TxHxW or video:TxHxW@S (N, T, "
                "H, W whole "
                "numbers in [1, 2^31 - 1], S seconds >= 0)");
    CHECK(message_of([] {
              return prompt_json({"--config", qwen2_vl, "--prompt", "text:3", "--json"});
          }) == "--prompt needs --angles (the prompt's angles are what it adds)");
    CHECK(message_of([] {
              return prompt_json({"--config", qwen2_vl, "--prompt", "text:3", "--angles"});
          }) == "--angles needs --json (the angles are written as JSON)");
    CHECK(message_of([] {
              return prompt_json({"--preset", "qwen3-8b", "--prompt", "text:3", "--angles", "--json"});
          }) == "--prompt needs --config (get_rope_index reads the config's vision_config)");
    CHECK(message_of([] {
              return prompt_json(
                  {"--config", qwen2_vl, "--prompt", "text:1;image:1x2147483647x2147483647", "--angles", "--json"});
          }) ==
          "--prompt: \"text:1;image:1x2147483647x2147483647\" may hold more than 1048576 tokens (2 t h w per vision "
          "segment, before merging), the most --angles writes");
    const std::string llama = std::string(POSENC_TEST_DATA_DIR) + "/configs/llama-3.1-8b.json";
    CHECK(message_of([&] {
              return prompt_json({"--config", llama, "--prompt", "text:3", "--angles", "--json"});
          }).find("--prompt: llama-3.1-8b (model_type \"llama\") has no M-RoPE") == 0);
}

}  // namespace inspect_prompt_tests
