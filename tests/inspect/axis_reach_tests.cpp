// SPDX-License-Identifier: MIT
// M-RoPE turns over the positions each pair's axis reaches (inspect/axis_reach.hpp, docs/cli.md
// "M-RoPE: turns over the axis each pair reads"): temporal pairs over L, height and width pairs
// over the patch grid's side, in the text table, JSON and the turns chart. Expected turns are
// hand-computed as reach x base^(-2i/R) / 2 pi (Python's math module, printed with repr):
//   Qwen2.5-VL-7B (base 1e6, R = 128, mrope_section [16, 24, 24]: pairs 0-15 temporal, 16-39
//   height, 40-63 width; L = 128000):
//     pair 0  over 128000: 20371.832715762604     pair 15 over 128000: 799.4293730475581
//     pair 16 over 35:     0.17615224236570462    pair 40 over 35:     0.0009905768540718189
//     pair 16 over 128:    0.6442139149374341     pair 40 over 128:    0.0036226810663197947
//   Qwen3-VL-8B (base 5e6, R = 128, interleaved [24, 20, 20]: pair 1 height, 2 width, 3 temporal,
//   60-63 temporal; L = 262144):
//     pair 1 over 35: 4.377405403475726   pair 2 over 35: 3.439896402502133
//     pair 3 over 262144: 20246.30778124284
#include "inspect/render_json.hpp"
#include "inspect/render_svg.hpp"
#include "inspect/render_text.hpp"
#include "inspect/report.hpp"

#include <nlohmann/json.hpp>

#include <doctest/doctest.h>

#include <regex>
#include <string>
#include <vector>

namespace inspect_axis_reach_tests_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

inspect::Report run(const std::vector<std::string>& args)
{
    return inspect::build_report(inspect::parse_options(args));
}

std::string usage_error(const std::vector<std::string>& args)
{
    try {
        run(args);
    } catch (const inspect::UsageError& e) {
        return e.what();
    }
    return "";
}

nlohmann::ordered_json json_of(const std::vector<std::string>& args)
{
    return nlohmann::ordered_json::parse(inspect::render_json(run(args)));
}

}  // namespace

TEST_CASE("[cli mrope] Qwen2.5-VL: temporal pairs turn over L, height and width pairs over the grid side")
{
    const nlohmann::ordered_json j = json_of({"--preset", "qwen2.5-vl-7b", "--json"});
    REQUIRE(j["axis_reach"].is_object());
    CHECK(j["axis_reach"]["temporal"] == 128000);
    CHECK(j["axis_reach"]["height"] == 35);
    CHECK(j["axis_reach"]["width"] == 35);
    CHECK(j["axis_reach"]["grid_side_source"].get<std::string>().rfind("assumed", 0) == 0);
    const auto& pairs = j["pairs"];
    REQUIRE(pairs.size() == 64);
    CHECK(pairs[0]["axis"] == 0);
    CHECK(pairs[0]["reach"] == 128000);
    CHECK(pairs[0]["turns_in_reach"].get<double>() == doctest::Approx(20371.832715762604).epsilon(1e-13));
    CHECK(pairs[15]["turns_in_reach"].get<double>() == doctest::Approx(799.4293730475581).epsilon(1e-13));
    CHECK(pairs[16]["axis"] == 1);
    CHECK(pairs[16]["reach"] == 35);
    CHECK(pairs[16]["turns_in_reach"].get<double>() == doctest::Approx(0.17615224236570462).epsilon(1e-13));
    CHECK(pairs[16]["completes_turn_in_reach"] == false);
    CHECK(pairs[16]["completes_turn"] == true);  // over L, as a text token sees it: 644 turns
    CHECK(pairs[40]["axis"] == 2);
    CHECK(pairs[40]["turns_in_reach"].get<double>() == doctest::Approx(0.0009905768540718189).epsilon(1e-13));

    const nlohmann::ordered_json g = json_of({"--preset", "qwen2.5-vl-7b", "--grid-side", "128", "--json"});
    CHECK(g["axis_reach"]["height"] == 128);
    CHECK(g["axis_reach"]["grid_side_source"] == "--grid-side");
    CHECK(g["pairs"][16]["turns_in_reach"].get<double>() == doctest::Approx(0.6442139149374341).epsilon(1e-13));
    CHECK(g["pairs"][40]["turns_in_reach"].get<double>() == doctest::Approx(0.0036226810663197947).epsilon(1e-13));
    CHECK(g["pairs"][0]["turns_in_reach"] == j["pairs"][0]["turns_in_reach"]);  // the temporal reach is L either way
}

TEST_CASE("[cli mrope] the text table and the turns chart count over the axis reach and say which")
{
    const inspect::Report r = run({"--preset", "qwen2.5-vl-7b"});
    const std::string text = inspect::render_text(r);
    const std::string joined = std::regex_replace(text, std::regex("\\s+"), " ");
    CHECK(text.find("axis turns") != std::string::npos);
    CHECK(joined.find("height and width pairs 35 patch rows / columns (assumed: a square image") != std::string::npos);
    // pairs 16-63 (height and width) turn less than once over 35 rows; pair 16: 0.17615
    CHECK(joined.find("48 of 64 pairs never complete a turn within their axis's reach (pairs 16-63)") !=
          std::string::npos);
    CHECK(text.find("   16  3.1623e-02     0.17615  no") != std::string::npos);
    for (std::size_t start = 0, end; start < text.size(); start = end + 1) {
        end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        CHECK(end - start <= inspect::text_width);
    }
    const inspect::SvgFile turns = inspect::turns_chart(r);
    CHECK(turns.content.find("within L = 128000 (temporal) or 35 rows / columns (height, width, assumed)") !=
          std::string::npos);
    CHECK(turns.content.find("reach·θᵢ") != std::string::npos);

    // --compare's table counts the same turns.
    const std::string compared =
        inspect::render_text(run({"--preset", "qwen2.5-vl-7b", "--compare", "yarn,linear", "--factor", "2"}));
    CHECK(compared.find(" pair  axis turns") != std::string::npos);
    CHECK(compared.find("   16     0.17615") != std::string::npos);
}

TEST_CASE("[cli mrope] Qwen3-VL's interleaved pairs: each pair's own axis decides its reach")
{
    const std::string config = std::string(POSENC_TEST_DATA_DIR) + "/configs/qwen3-vl-8b-instruct.json";
    const nlohmann::ordered_json j = json_of({"--config", config, "--json"});
    REQUIRE(j["axis_reach"].is_object());
    CHECK(j["axis_reach"]["temporal"] == 262144);
    CHECK(j["pairs"][1]["reach"] == 35);
    CHECK(j["pairs"][1]["turns_in_reach"].get<double>() == doctest::Approx(4.377405403475726).epsilon(1e-13));
    CHECK(j["pairs"][2]["turns_in_reach"].get<double>() == doctest::Approx(3.439896402502133).epsilon(1e-13));
    CHECK(j["pairs"][3]["reach"] == 262144);
    CHECK(j["pairs"][3]["turns_in_reach"].get<double>() == doctest::Approx(20246.30778124284).epsilon(1e-13));
    CHECK(j["pairs"][60]["axis"] == 0);
}

TEST_CASE("[cli mrope] --grid-side: refused where there is no height or width axis, and out of range")
{
    CHECK(usage_error({"--preset", "qwen3-8b", "--grid-side", "35"}) ==
          "--grid-side applies to M-RoPE models with height and width axes; Qwen3-8B has none");
    CHECK(usage_error({"--preset", "qwen2.5-vl-7b", "--grid-side", "0"}).find("--grid-side: ") == 0);
    CHECK(usage_error({"--preset", "qwen2.5-vl-7b", "--grid-side", "16777216"}).find("--grid-side: ") == 0);
    CHECK(usage_error({"--preset", "gpt2", "--grid-side", "35"}).find("learned position table") != std::string::npos);
    const nlohmann::ordered_json plain = json_of({"--preset", "qwen3-8b", "--json"});
    CHECK(plain["axis_reach"].is_null());
    CHECK(plain["pairs"][0].count("turns_in_reach") == 0);
}

TEST_CASE("[cli mrope] a layout without height and width axes (XD-RoPE's 4 sections) keeps turns over L and says so")
{
    const posenc::RopeGroup group =
        posenc::RopeGroup::make("default", posenc::RopeSpec(128, 128, 10000.0), posenc::NoScaling {}, 32768);
    const inspect::Model model = inspect::model_from_rope(
        "xd-model", posenc::ModelRope::uniform(group, 2, posenc::MultiAxisLayout::xd_sections({16, 16, 16, 16}, 64)),
        false);
    const inspect::Report r = inspect::report_for(model, inspect::parse_options({"--preset", "x"}));
    CHECK_FALSE(r.axis_reach.has_value());
    const std::string joined = std::regex_replace(inspect::render_text(r), std::regex("\\s+"), " ");
    CHECK(joined.find("every pair's turns are counted over L: posenc does not know which axes of the xd_sections "
                      "layout are image rows and columns.") != std::string::npos);
    CHECK(joined.find(" pair theta_i turns in L turn") != std::string::npos);
    try {
        inspect::report_for(model, inspect::parse_options({"--preset", "x", "--grid-side", "35"}));
        FAIL("--grid-side accepted");
    } catch (const inspect::UsageError& e) {
        CHECK(std::string(e.what()) ==
              "--grid-side applies to M-RoPE models with height and width axes; xd-model has the layout xd_sections");
    }
}

}  // namespace inspect_axis_reach_tests_tests
