// SPDX-License-Identifier: MIT
// Prompt position ids of the M-RoPE families (mrope_prompt_positions.hpp, hf_prompt_rule.hpp,
// prompt_segments.hpp, prompt_angles.hpp) against tests/data/transformers_sweep_prompts.json:
// the position ids and rope deltas transformers' own get_rope_index returned for each prompt
// (scripts/sweep-transformers.py --prompts), and the refusals.
#include <nlohmann/json.hpp>

#include <posenc/frequencies.hpp>
#include <posenc/models/hf_config.hpp>
#include <posenc/models/hf_prompt_rule.hpp>
#include <posenc/mrope_prompt_positions.hpp>
#include <posenc/prompt_angles.hpp>
#include <posenc/prompt_segments.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/error_messages.hpp"

namespace models_prompt_positions_tests {  // per-file namespace: a folder builds as one unit

using test_support::message_of;

nlohmann::json sweep_prompts()
{
    std::ifstream in(POSENC_TEST_DATA_DIR "/transformers_sweep_prompts.json");
    REQUIRE(in);
    std::stringstream text;
    text << in.rdbuf();
    return nlohmann::json::parse(text.str());
}

TEST_CASE("prompt position ids equal transformers' get_rope_index for every swept prompt")
{
    const nlohmann::json data = sweep_prompts();
    REQUIRE(data.at("failures").empty());
    REQUIRE(data.at("cases").size() >= 38);
    std::vector<std::string> types;
    for (const nlohmann::json& c : data.at("cases")) {
        const std::string prompt = c.at("prompt").get<std::string>();
        CAPTURE(prompt);
        CAPTURE(c.at("config").dump());
        const posenc::hf::HfPromptRule rule = posenc::hf::prompt_rule_from_json(c.at("config"));
        const posenc::AxisPositionIds ids =
            posenc::hf::prompt_position_ids(rule, posenc::parse_prompt_segments(prompt));
        const auto want = c.at("position_ids").get<std::vector<std::vector<std::int64_t>>>();
        REQUIRE(ids.num_axes == static_cast<int>(want.size()));
        REQUIRE(ids.tokens == static_cast<std::int64_t>(want[0].size()));
        for (int a = 0; a < ids.num_axes; ++a)
            for (std::int64_t n = 0; n < ids.tokens; ++n)
                CHECK(ids(a, n) == want[static_cast<std::size_t>(a)][static_cast<std::size_t>(n)]);
        CHECK(ids.rope_delta == c.at("rope_delta").get<std::int64_t>());
        types.push_back(rule.model_type);
    }
    for (const char* t : {"qwen2_vl", "qwen2_5_vl", "qwen3_vl", "qwen3_5", "glm4v", "glm_ocr", "paddleocr_vl",
                          "ernie4_5_vl_moe", "qwen2_5_omni_thinker", "qwen3_omni_moe_thinker", "hunyuan_vl"})
        CHECK(std::find(types.begin(), types.end(), t) != types.end());
}

TEST_CASE("prompt angles: each pair's angle is its axis's id times its frequency (Qwen2.5-VL-7B config)")
{
    const posenc::hf::HfModel model =
        posenc::hf::read_model(POSENC_TEST_DATA_DIR "/configs/qwen2.5-vl-7b-instruct.json");
    std::ifstream in(POSENC_TEST_DATA_DIR "/configs/qwen2.5-vl-7b-instruct.json");
    std::stringstream text;
    text << in.rdbuf();
    const posenc::hf::HfPromptRule rule = posenc::hf::parse_prompt_rule(text.str());
    CHECK(rule.mrope.tokens_per_second == 4);  // the class default: this copy of the config omits it
    const posenc::RopeGroup& g = model.rope.primary_group();
    const posenc::AxisPositionIds ids =
        posenc::hf::prompt_position_ids(rule, posenc::parse_prompt_segments("text:1;video:2x2x4@1;text:1"));
    const posenc::TokenAngles a =
        posenc::prompt_token_angles(g.spec, posenc::FrequencyTable::from_spec(g.spec), *model.rope.multi_axis(), ids);
    a.check();
    REQUIRE(a.num_tokens() == 6);
    REQUIRE(a.num_pairs() == 64);
    CHECK(a.pairs[0] == std::array<int, 2> {0, 64});
    CHECK(a.pairs[63] == std::array<int, 2> {63, 127});
    // Token 4: the video's second temporal step (interval 4 x int(1 s)), merged column 1:
    // (t, h, w) = (1 + 4, 1, 1 + 1); the text after it at c = 1 + max(2, 4) / 2 = 3.
    CHECK(a.positions[4] == std::vector<double> {5, 1, 2});
    CHECK(a.positions[5] == std::vector<double> {3, 3, 3});
    // mrope_section [16, 24, 24]: pair 0 temporal (theta 1), pair 16 height, pair 40 width;
    // theta_k = 1e6^(-2k / 128).
    CHECK(a.tokens[4][0] == 5.0);
    CHECK(a.tokens[4][16] == doctest::Approx(1.0 * std::pow(1e6, -32.0 / 128)).epsilon(1e-15));
    CHECK(a.tokens[4][40] == doctest::Approx(2.0 * std::pow(1e6, -80.0 / 128)).epsilon(1e-15));
    CHECK(a.tokens[5][40] == doctest::Approx(3.0 * std::pow(1e6, -80.0 / 128)).epsilon(1e-15));
    CHECK(ids.rope_delta == 0);  // max id 5, 6 tokens
}

TEST_CASE("prompt segments: the grammar and its refusals name the segment as written")
{
    const auto s = posenc::parse_prompt_segments("text:3;image:1x28x28;video:2x4x4@0.5");
    REQUIRE(s.size() == 3);
    CHECK(s[0].length == 3);
    CHECK((s[1].kind == posenc::PromptSegment::Kind::image && s[1].h == 28));
    CHECK(*s[2].seconds_per_grid == 0.5);
    CHECK(message_of([] { return posenc::parse_prompt_segments("text:3;imge:1x4x4"); }) ==
          "segment 1 \"imge:1x4x4\": must be text:N, image:TxHxW, video:TxHxW or video:TxHxW@S (N, T, H, W whole "
          "numbers in [1, 2^31 - 1], S seconds >= 0)");
    CHECK(message_of([] {
              return posenc::parse_prompt_segments("image:1x4");
          }).find("segment 0 \"image:1x4\": image:TxHxW needs") == 0);
    CHECK(message_of([] { return posenc::parse_prompt_segments("text:0"); }).find("segment 0 \"text:0\"") == 0);
    CHECK(message_of([] { return posenc::parse_prompt_segments("text:2;"); }).find("segment 1 \"\"") == 0);
    CHECK(message_of([] { return posenc::parse_prompt_segments("image:1x4x4@2"); }).find("only a video takes @S") !=
          std::string::npos);
    CHECK(message_of([] { return posenc::parse_prompt_segments("video:1x4x4@-1"); }).find("@S needs S") !=
          std::string::npos);
}

TEST_CASE("prompt rules refuse what get_rope_index would not read")
{
    using posenc::hf::prompt_rule_from_json;
    const auto ids_of = [](const char* config, const char* prompt) {
        return posenc::hf::prompt_position_ids(prompt_rule_from_json(nlohmann::json::parse(config)),
                                               posenc::parse_prompt_segments(prompt));
    };
    CHECK(message_of([&] { return ids_of(R"({"model_type": "qwen3_vl"})", "text:1;video:2x4x4"); }) ==
          "segments[1].t 2 must be 1: this family's processor writes a timestamp before each frame, so each temporal "
          "grid "
          "step is its own video segment (video:1xHxW, text between)");
    CHECK(message_of([&] {
              return ids_of(R"({"model_type": "qwen2_vl"})", "video:2x4x4@2");
          }).find("segments[0].seconds_per_grid 2 is read for Qwen2.5-VL videos only") == 0);
    CHECK(message_of([&] { return ids_of(R"({"model_type": "qwen2_vl"})", "image:1x4x3"); }) ==
          "segments[0].w 3 must be a multiple of spatial_merge_size 2");
    CHECK(message_of([&] {
              return ids_of(R"({"model_type": "glm4v"})", "video:1x4x4;video:1x4x4");
          }).find("segments[1].kind") == 0);
    CHECK(message_of([&] {
              return ids_of(R"({"model_type": "glm_image"})", "text:1");
          }).find("model_type \"glm_image\" is not supported") == 0);
    CHECK(message_of([&] {
              return ids_of(R"({"model_type": "llama"})", "text:1");
          }).find("model_type \"llama\" has no prompt position rule") == 0);
    CHECK(message_of([&] {
              return ids_of(R"({"model_type": "qwen2_5_vl", "vision_config": {"tokens_per_second": 2.5}})", "text:1");
          }) == "vision_config.tokens_per_second: expected a whole number in [1, 65536], got 2.5");
    // Omni: a vision run needs text on both sides (its start and end tokens), a video its seconds.
    CHECK(message_of([&] {
              return ids_of(R"({"model_type": "qwen2_5_omni_thinker"})", "image:1x4x4;text:2");
          }).find("segments[0].kind \"image\" must have a text segment before it") == 0);
    CHECK(message_of([&] {
              return ids_of(R"({"model_type": "qwen2_5_omni_thinker"})", "text:1;video:2x4x4;text:1");
          }).find("segments[1].seconds_per_grid \"absent\" must be given") == 0);
    CHECK(message_of([&] {
              return ids_of(R"({"model_type": "qwen2_5_omni_thinker"})",
                            "text:1;image:1x2x2;text:1;image:1x2x2;text:1");
          }).find("segments[2].length 1 must be >= 2") == 0);
    // Qwen3-Omni keeps 0.37 s x 25 = 9.25 as a float: not an integer position.
    CHECK(message_of([&] {
              return ids_of(R"({"model_type": "qwen3_omni_moe_thinker"})", "text:1;video:2x2x2@0.37;text:1");
          }).find("segments[1].seconds_per_grid 0.37 gives a fractional temporal position (9.25)") == 0);
    CHECK(message_of([&] {
              return ids_of(R"({"model_type": "qwen2_5_omni_talker"})", "text:1");
          }).find("model_type \"qwen2_5_omni_talker\" is not a thinker") == 0);
    const auto omni = prompt_rule_from_json(nlohmann::json::parse(
        R"({"model_type": "qwen2_5_omni", "thinker_config": {"position_id_per_seconds": 13, "vision_config": {"spatial_merge_size": 1}}})"));
    CHECK(omni.omni.position_id_per_seconds == 13);
    CHECK(omni.omni.spatial_merge_size == 1);
    CHECK(message_of([&] {
              return prompt_rule_from_json(nlohmann::json::parse(
                  R"({"model_type": "qwen3_omni_moe", "thinker_config": {"position_id_per_seconds": "25"}})"));
          }) == "thinker_config.position_id_per_seconds: expected a whole number in [1, 65536], got \"25\"");
    // HunYuan-VL: the axis count is len(mrope_section), which get_rope_index reads.
    CHECK(message_of([&] {
              return ids_of(R"({"model_type": "hunyuan_vl"})", "text:1");
          }).find("rope_parameters.mrope_section: expected a list of 3 or 4 sections") == 0);
    CHECK(
        message_of([&] {
            return ids_of(
                R"({"model_type": "hunyuan_vl", "text_config": {"rope_parameters": {"mrope_section": [16, 16, 16, 16]}}})",
                "text:1;video:1x2x2");
        }).find("segments[1].kind \"video\" is not a HunYuan-VL input") == 0);
    // A text-only config reads the class defaults and says so.
    const auto rule = prompt_rule_from_json(nlohmann::json::parse(R"({"model_type": "qwen2_5_vl_text"})"));
    CHECK(rule.mrope.spatial_merge_size == 2);
    CHECK(rule.mrope.tokens_per_second == 4);
    CHECK(rule.notes.size() == 2);
}

}  // namespace models_prompt_positions_tests
