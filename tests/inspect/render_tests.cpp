// SPDX-License-Identifier: MIT
// posenc-inspect's renderings (tools/posenc-inspect/inspect/render_*.hpp): the text fits 80 columns and is
// terminal-safe, the JSON is one object with exactly docs/cli.md's keys and the library's values
// at full precision, the CSV has one row per pair, the SVG charts colour exactly the
// out-of-range pairs red and give each colour one meaning.
// Expected counts are lesson C2-5's (docs/lessons.md, #18, #21, #23); the per-pair values are
// compared with posenc::extension_diagnostics called here directly (the JSON must carry the
// library's numbers unchanged).
#include "inspect/render_json.hpp"
#include "inspect/render_svg.hpp"
#include "inspect/render_text.hpp"
#include "inspect/report.hpp"

#include <nlohmann/json.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace inspect_render_tests_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

inspect::Report run(const std::vector<std::string>& args)
{
    return inspect::build_report(inspect::parse_options(args));
}

std::vector<std::string> lines_of(const std::string& text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

int count(const std::string& haystack, const std::string& needle)
{
    int n = 0;
    for (std::size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++n;
    return n;
}

const inspect::SvgFile& file(const std::vector<inspect::SvgFile>& files, const std::string& name)
{
    for (const auto& f : files)
        if (f.name == name) return f;
    FAIL("no " << name);
    return files.front();
}

}  // namespace

TEST_CASE("[cli text] 64 pairs fit an 80-column terminal: one row per pair, counts at the end")
{
    const std::regex row(R"(^ {0,4}[0-9]+  [0-9]\.[0-9]{4}e[-+][0-9]{2}  .*)");
    for (const std::string scaling : {"none", "linear", "ntk_aware", "yarn"}) {
        CAPTURE(scaling);
        const std::string text =
            inspect::render_text(run({"--preset", "qwen3-8b", "--scaling", scaling, "--factor", "4"}));
        int rows = 0;
        for (const std::string& line : lines_of(text)) {
            CAPTURE(line);
            CHECK(line.size() <= 80);
            rows += std::regex_match(line, row) ? 1 : 0;
        }
        CHECK(rows == 64);
        CHECK(text.find("24 of 64 pairs never complete a turn within L = 32768 (pairs 40-63).") != std::string::npos);
    }
    const std::string none = inspect::render_text(run({"--preset", "qwen3-8b", "--scaling", "none", "--factor", "4"}));
    CHECK(none.find("24 of 64 pairs are out of range at L' = 131072 (pairs 40-63).") != std::string::npos);
    const std::string yarn = inspect::render_text(run({"--preset", "qwen3-8b"}));
    CHECK(yarn.find("0 of 64 pairs are out of range at L' = 131072.") != std::string::npos);
    CHECK(yarn.find("40 of 64 pairs are compressed (pairs 24-63).") != std::string::npos);
    CHECK(yarn.find("cos/sin x 1.138629436111989") != std::string::npos);
    // The longest header: Phi-3's two 48-entry lists are summarised, and still wrapped at 80.
    const std::string phi3 = inspect::render_text(run({"--preset", "phi-3-mini-128k"}));
    for (const std::string& line : lines_of(phi3)) {
        CAPTURE(line);
        CHECK(line.size() <= 80);
    }
    // The summary rounds the config's first and last factors to 6 digits (Python: "%.6g" of
    // 1.1, 3.049999999999997, 1.0700000524520874 and 64.76000213623047).
    const std::string header = std::regex_replace(phi3, std::regex("\\s+"), " ");  // wrapped lines joined
    CHECK(header.find("short_factor [48 values: 1.1 .. 3.05]") != std::string::npos);
    CHECK(header.find("long_factor [48 values: 1.07 .. 64.76]") != std::string::npos);
}

TEST_CASE("[cli json] one object, exactly docs/cli.md's keys in order, the library's values at full precision")
{
    const inspect::Report report = run({"--preset", "qwen3-8b", "--scaling", "yarn", "--factor", "4", "--json"});
    const nlohmann::ordered_json j = nlohmann::ordered_json::parse(inspect::render_json(report));
    REQUIRE(j.is_object());
    std::vector<std::string> keys;
    for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
    CHECK(keys == std::vector<std::string> {"name",
                                            "head_dim",
                                            "rotary_dim",
                                            "base",
                                            "pairing",
                                            "scaling",
                                            "original_length",
                                            "target_length",
                                            "attention_factor",
                                            "softmax_scale_multiplier",
                                            "pairs",
                                            "summary",
                                            "num_layers",
                                            "nope_layers",
                                            "rope_groups",
                                            "mrope_section",
                                            "mrope_interleaved",
                                            "multi_axis",
                                            "axis_reach",
                                            "query_scale",
                                            "roformer_bound"});
    CHECK(j["name"] == "Qwen3-8B");
    CHECK(j["head_dim"] == 128);
    CHECK(j["rotary_dim"] == 128);
    CHECK(j["base"] == 1e6);
    CHECK(j["pairing"] == "half_split");
    CHECK(j["scaling"]["type"] == "yarn");
    CHECK(j["scaling"]["factor"] == 4.0);
    CHECK(j["scaling"]["original_max_position_embeddings"] == 32768);
    CHECK(j["scaling"]["beta_fast"] == 32.0);
    CHECK(j["scaling"]["truncate"] == true);
    CHECK(j["original_length"] == 32768);
    CHECK(j["target_length"] == 131072);
    CHECK(j["attention_factor"] == 1.138629436111989);  // 0.1 ln 4 + 1, HF's YaRN default (mpmath)
    CHECK(j["softmax_scale_multiplier"] == 1.0);
    CHECK(j["summary"] ==
          nlohmann::ordered_json {
              {"pairs", 64}, {"incomplete_pairs", 24}, {"out_of_range_pairs", 0}, {"compressed_pairs", 40}});

    // Every pair equals the library's own diagnostics bit for bit (the JSON round-trips doubles).
    const posenc::ExtensionDiagnostics d =
        posenc::extension_diagnostics(posenc::RopeSpec(128, 128, 1e6), posenc::YarnScaling(4.0, 32768), 32768, 131072);
    REQUIRE(j["pairs"].size() == 64);
    for (std::size_t i = 0; i < 64; ++i) {
        CAPTURE(i);
        const auto& p = j["pairs"][i];
        std::vector<std::string> pair_keys;
        for (auto it = p.begin(); it != p.end(); ++it) pair_keys.push_back(it.key());
        CHECK(pair_keys == std::vector<std::string> {"index", "inv_freq_original", "inv_freq", "period",
                                                     "turns_original", "completes_turn", "out_of_range",
                                                     "compression"});
        CHECK(p["index"] == d.pairs[i].index);
        CHECK(p["inv_freq_original"].get<double>() == d.pairs[i].inv_freq_original);
        CHECK(p["inv_freq"].get<double>() == d.pairs[i].inv_freq);
        CHECK(p["period"].get<double>() == d.pairs[i].period);
        CHECK(p["turns_original"].get<double>() == d.pairs[i].turns_original);
        CHECK(p["completes_turn"] == d.pairs[i].completes_turn);
        CHECK(p["out_of_range"] == d.pairs[i].out_of_range);
        CHECK(p["compression"].get<double>() == d.pairs[i].compression);
    }
}

TEST_CASE("[cli json] DeepSeek-V3: interleaved, mscale pair in the scaling object, softmax x g(40)^2; GPT-2: the "
          "learned table")
{
    const auto j = nlohmann::ordered_json::parse(inspect::render_json(run({"--preset", "deepseek-v3"})));
    CHECK(j["pairing"] == "interleaved");
    CHECK(j["scaling"]["mscale"] == 1.0);
    CHECK(j["scaling"]["mscale_all_dim"] == 1.0);
    CHECK(j["attention_factor"] == 1.0);
    CHECK(std::abs(j["softmax_scale_multiplier"].get<double>() - 1.8738542070926266) <= 1e-15);  // mpmath g(40)^2
    CHECK(j["target_length"] == 163840);

    const auto phi3 = nlohmann::ordered_json::parse(inspect::render_json(run({"--preset", "phi-3-mini-128k"})));
    CHECK(phi3["scaling"]["short_factor"].size() == 48);
    CHECK(phi3["scaling"]["long_factor"][47] == 64.76000213623047);  // the config's last long factor, full precision

    const auto gpt2 = nlohmann::ordered_json::parse(inspect::render_json(run({"--preset", "gpt2"})));
    CHECK(gpt2 == nlohmann::ordered_json {{"name", "GPT-2"},
                                          {"position_encoding", "learned_absolute"},
                                          {"positions", 1024},
                                          {"d_model", 768},
                                          {"parameters", 786432}});
}

TEST_CASE(
    "[cli svg, lesson C2-5 #18, #21, #23] red bars: 24 for direct extrapolation, 23 for NTK-aware, 0 for PI and YaRN")
{
    struct Case {
        const char* scaling;
        int red;
        int compressed;
    };
    for (const Case c :
         {Case {"none", 24, 0}, Case {"linear", 0, 64}, Case {"ntk_aware", 23, 63}, Case {"yarn", 0, 40}}) {
        CAPTURE(std::string(c.scaling));
        const auto files = inspect::render_svgs(run({"--preset", "qwen3-8b", "--scaling", c.scaling, "--factor", "4"}));
        REQUIRE(files.size() == 3);
        const std::string& turns = file(files, "turns.svg").content;
        CHECK(count(turns, "<rect class=\"bar") == 64);
        CHECK(count(turns, "class=\"bar out-of-range\"") == c.red);
        CHECK(count(turns, "fill=\"#d62728\"><title>") == c.red);
        CHECK(count(turns, "1 turn") == 1);
        const std::string& compression = file(files, "compression.svg").content;
        CHECK(count(compression, "class=\"bar compressed\"") == c.compressed);
        const std::string& bound = file(files, "roformer_bound.svg").content;
        CHECK(count(bound, "<polyline") == 3);
        CHECK(bound.find("base 1000000 (Qwen3-8B), r = 35<") != std::string::npos);
        CHECK(bound.find("base 10000, r = 16<") != std::string::npos);
        CHECK(bound.find("base 10000000, r = 60<") != std::string::npos);
        for (const auto& f : files) {
            CHECK(f.content.rfind(
                      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
            CHECK(f.content.find("<script") == std::string::npos);
            CHECK(f.content.find("@font-face") == std::string::npos);
            CHECK(f.content.find("href") == std::string::npos);
        }
    }
}

TEST_CASE("[cli svg] hostile names stay well-formed XML: markup escaped, control bytes and broken UTF-8 shown as \\xNN")
{
    inspect::Report report = run({"--preset", "course-small"});
    report.name = "a<b>&\"c\x01\xff\xc3\xa9";
    const auto files = inspect::render_svgs(report);
    const std::string& turns = file(files, "turns.svg").content;
    CHECK(turns.find("a&lt;b&gt;&amp;&quot;c\\x01\\xff\xc3\xa9: turns") != std::string::npos);
}

TEST_CASE("[cli text] control characters in a name reach the terminal escaped; long names are cut to 80 columns")
{
    inspect::Report report = run({"--preset", "course-small"});
    report.name = "evil\x1b[31mRED\x07\r\nX";
    const std::string text = inspect::render_text(report);
    CHECK(text.rfind("evil\\x1b[31mRED\\x07\\x0d\\x0aX\n", 0) == 0);
    for (char c : text) {
        CAPTURE(static_cast<int>(static_cast<unsigned char>(c)));
        CHECK((c == '\n' || static_cast<unsigned char>(c) >= 0x20));
    }
    report.name = std::string(200, 'n');
    const std::string long_name = inspect::render_text(report);
    CHECK(long_name.rfind(std::string(77, 'n') + "...\n", 0) == 0);
    // Wide characters count two columns each: 40 CJK characters fill 80 columns.
    report.name.clear();
    for (int i = 0; i < 50; ++i) report.name += "\xe6\x96\x87";  // U+6587
    const std::string wide = inspect::render_text(report);
    std::string expected;
    for (int i = 0; i < 38; ++i) expected += "\xe6\x96\x87";
    CHECK(wide.rfind(expected + "...\n", 0) == 0);
}

TEST_CASE("[cli text] every column names the frequency it uses; the RoFormer numbers behind the chart are printed")
{
    const std::string text = inspect::render_text(run({"--preset", "qwen3-8b", "--scaling", "yarn", "--factor", "4"}));
    CHECK(text.find(" pair     theta_i  turns in L  turn  |   theta'_i   period'_i  out  theta'/theta\n") !=
          std::string::npos);
    CHECK(text.find("original frequency theta_i") != std::string::npos);
    CHECK(text.find("scaled frequency theta'_i at L'") != std::string::npos);
    // Pair 39: the scaled period and the original turns sit on opposite sides of the bar.
    CHECK(text.find("   39  1.7783e-04     0.92741  no    |") ==
          std::string::npos);  // pair 40 is the first without a turn
    CHECK(text.find("U(0) = 32.5, U(0)/2 = 16.25") != std::string::npos);  // (64 + 1) / 2
    CHECK(text.find("  first below              35              16              60\n") != std::string::npos);
}

TEST_CASE("[cli roformer, lesson C2-5 #26] --bound-pairs 32 draws the lesson's curve: U(0)/2 = 8.25 first crossed at r "
          "= 15, 35, 46")
{
    const inspect::Report r = run({"--preset", "qwen3-8b", "--bound-pairs", "32"});
    CHECK(r.bound.pairs == 32);
    CHECK(r.bound.start == 16.5);  // (1 + ... + 32) / 32
    REQUIRE(r.bound.series.size() == 3);
    CHECK(r.bound.series[0].base == 1e6);
    CHECK(r.bound.series[0].first_below_half == 35);
    CHECK(r.bound.series[1].base == 1e4);
    CHECK(r.bound.series[1].first_below_half == 15);
    CHECK(r.bound.series[2].base == 1e7);
    CHECK(r.bound.series[2].first_below_half == 46);
    const std::string svg =
        file(inspect::render_svgs(r), "roformer_bound.svg").content;  // a copy: the files are a temporary
    CHECK(count(svg, "class=\"half-crossing\"") == 3);
    CHECK(count(svg, "class=\"reference\"") == 1);
    CHECK(svg.find(">U(0)/2 = 8.25<") != std::string::npos);
    const auto j = nlohmann::ordered_json::parse(inspect::render_json(r));
    CHECK(j["roformer_bound"]["pairs"] == 32);
    CHECK(j["roformer_bound"]["half"] == 8.25);
    CHECK(j["roformer_bound"]["series"][1]["first_below_half"] == 15);
    CHECK(j["roformer_bound"]["distances"][1] == 10.0);
    // RoFormer's U(10) for 32 pairs at base 1e4, as the library's contract states it.
    CHECK(std::abs(j["roformer_bound"]["series"][1]["values"][1].get<double>() - 8.81433442344) <= 1e-10);
}

TEST_CASE("[cli svg] one meaning per colour across the charts, one number format per axis")
{
    const auto files =
        inspect::render_svgs(run({"--preset", "qwen3-8b", "--compare", "none,linear,ntk_aware,yarn", "--factor", "4"}));
    REQUIRE(files.size() == 4);
    const std::string& turns = file(files, "turns.svg").content;
    const std::string& compression = file(files, "compression.svg").content;
    const std::string& bound = file(files, "roformer_bound.svg").content;
    const std::string& compare = file(files, "compare.svg").content;
    // red: out of range, and nothing else.
    // + the legend swatch, listed only when some bar is red (the model's own YaRN x4: none).
    CHECK(count(turns, "out-of-range\"") == 0);
    CHECK(count(turns, "#d62728") == 0);
    CHECK(count(compression, "#d62728") == 0);
    CHECK(count(bound, "#d62728") == 0);
    CHECK(count(compare, "#d62728") == count(compare, "class=\"mark out-of-range\"") + 1);
    CHECK(count(compare, "class=\"mark out-of-range\"") == 24 + 23);  // direct extrapolation and NTK-aware
    // blue: a pair that turns (turns chart only); grey: untouched (compression chart only).
    CHECK(count(compression, "#4e79a7") == 0);
    CHECK(count(bound, "#4e79a7") == 0);
    CHECK(count(turns, "#bab0ac") == 0);
    CHECK(count(compare, "<polyline") == 4);
    // The compression axis of PI x4 runs from 0 to 1.05: every tick label has the same number of decimals.
    const std::regex tick(R"(text-anchor="end">([^<]*)</text>)");
    for (const std::string* chart : {&turns, &compression, &bound}) {
        std::vector<std::string> labels;
        for (std::sregex_iterator it(chart->begin(), chart->end(), tick), end; it != end; ++it)
            labels.push_back((*it)[1]);
        REQUIRE(labels.size() >= 2);
        const auto shape = [](const std::string& l) {
            const std::size_t dot = l.find('.');
            return std::make_pair(l.find('e') != std::string::npos, dot == std::string::npos ? 0 : l.size() - dot);
        };
        for (const std::string& l : labels) {
            CAPTURE(l);
            CHECK(shape(l) == shape(labels.front()));
        }
    }
}

TEST_CASE("[cli compare] several scalings of one model side by side: lesson C2-5's four methods at x4")
{
    const inspect::Report r = run({"--preset", "qwen3-8b", "--compare", "none,linear,ntk_aware,yarn", "--factor", "4"});
    REQUIRE(r.compared.size() == 4);
    CHECK(r.compared[0].diagnostics.summary.out_of_range_pairs == 24);
    CHECK(r.compared[1].diagnostics.summary.out_of_range_pairs == 0);
    CHECK(r.compared[1].diagnostics.summary.compressed_pairs == 64);
    CHECK(r.compared[2].diagnostics.summary.out_of_range_pairs == 23);
    CHECK(r.compared[3].diagnostics.summary.compressed_pairs == 40);
    for (const auto& g : r.compared) {
        CHECK(g.diagnostics.training_length == 32768);
        CHECK(g.diagnostics.target_length == 131072);
    }
    const std::string text = inspect::render_text(r);
    for (const std::string& line : lines_of(text)) {
        CAPTURE(line);
        CHECK(line.size() <= 80);
        CHECK((line.empty() || line.back() != ' '));  // no trailing space, '*' or not
    }
    // pair 40: 0.92741 turns; untouched and out of range, PI 1/4, NTK-aware 4^(-80/126), YaRN 1/4.
    CHECK(text.find("   40     0.92741 1.000000* 0.250000  0.414705* 0.250000\n") != std::string::npos);
    CHECK(text.find("ntk_aware x4: 23 of 64 out of range (pairs 40-62), 63 compressed") != std::string::npos);
    const auto j = nlohmann::ordered_json::parse(inspect::render_json(r));
    REQUIRE(j["compare"].size() == 4);
    CHECK(j["compare"][2]["scaling"]["type"] == "ntk_aware");
    CHECK(j["compare"][2]["summary"]["out_of_range_pairs"] == 23);
    CHECK(std::abs(j["compare"][2]["pairs"][40]["compression"].get<double>() - std::pow(4.0, -80.0 / 126.0)) <= 1e-15);
    const std::string csv = inspect::render_csv(r);
    CHECK(count(csv, "\n") == 1 + 4 * 64);
    CHECK(csv.rfind(
              "scaling,pair,inv_freq_original,inv_freq,period,turns_original,completes_turn,out_of_range,compression\n",
              0) == 0);
}

TEST_CASE("[cli csv] one row per pair, the JSON's numbers")
{
    const inspect::Report r = run({"--preset", "course-small"});
    const std::vector<std::string> rows = lines_of(inspect::render_csv(r));
    REQUIRE(rows.size() == 17);
    CHECK(rows[0] ==
          "group,pair,inv_freq_original,inv_freq,period,turns_original,completes_turn,out_of_range,compression");
    CHECK(rows[1].rfind("\"default\",0,1,1,6.283185307179586,", 0) == 0);  // 2 pi
    CHECK(rows[16].find(",false,false,1") != std::string::npos);  // pair 15: no turn within 128, in range
}

TEST_CASE("[cli groups] several RoPE groups and NoPE layers: layer map, one summary per group, --layer picks the table")
{
    // A Gemma-3-like model built by hand: layers 0-4 and 6-10 sliding (base 1e4), 5 and 11 full
    // (base 1e6, linear x8), plus a NoPE layer 12. Expected frequencies: base^(-2i/R), independently.
    inspect::Model m;
    m.name = "two-group test model";
    m.num_layers = 13;
    m.nope_layers = {12};
    m.groups.push_back(inspect::Group {"sliding_attention",
                                       {0, 1, 2, 3, 4, 6, 7, 8, 9, 10},
                                       posenc::RopeSpec(256, 256, 1e4),
                                       posenc::NoScaling {},
                                       32768,
                                       32768,
                                       false});
    m.groups.push_back(inspect::Group {
        "full_attention", {5, 11}, posenc::RopeSpec(256, 256, 1e6), posenc::LinearScaling(8.0), 131072, 131072, false});
    const inspect::Report r = inspect::report_for(m, inspect::parse_options({"--preset", "x"}));
    REQUIRE(r.groups.size() == 2);
    CHECK(r.focus == 1);  // full_attention
    CHECK(r.diagnostics.base == 1e6);
    CHECK(r.diagnostics.pairs[0].compression == 0.125);
    const std::string text = inspect::render_text(r);
    CHECK(text.find("  layers      13 layers: sliding_attention 0-4, 6-10; full_attention 5, 11;") !=
          std::string::npos);
    CHECK(text.find("without RoPE: 12\n") != std::string::npos);
    CHECK(text.find("group sliding_attention (layers 0-4, 6-10): 0 of 128 pairs out of range") != std::string::npos);
    CHECK(text.find("group full_attention (layers 5, 11), shown in full below:") != std::string::npos);
    for (const std::string& line : lines_of(text)) {
        CAPTURE(line);
        CHECK(line.size() <= 80);
    }
    const auto j = nlohmann::ordered_json::parse(inspect::render_json(r));
    CHECK(j["base"] == 1e6);  // the existing keys describe full_attention
    CHECK(j["num_layers"] == 13);
    CHECK(j["nope_layers"] == nlohmann::ordered_json::array({12}));
    REQUIRE(j["rope_groups"].size() == 2);
    const auto& sliding = j["rope_groups"][0];
    std::vector<std::string> keys;
    for (auto it = sliding.begin(); it != sliding.end(); ++it) keys.push_back(it.key());
    CHECK(keys == std::vector<std::string> {"name", "layers", "head_dim", "rotary_dim", "rotary_offset",
                                            "zero_freq_pairs", "inverse_rope_on_output", "base", "pairing", "scaling",
                                            "attention_factor", "original_length", "target_length", "pairs",
                                            "pair_axes"});
    CHECK(sliding["name"] == "sliding_attention");
    // Gemma 3 rotates a prefix of the whole head with no zero frequencies and no output rotation.
    CHECK(sliding["rotary_offset"] == 0);
    CHECK(sliding["zero_freq_pairs"] == 0);
    CHECK(sliding["inverse_rope_on_output"] == false);
    CHECK(j["query_scale"].is_null());
    CHECK(sliding["layers"] == nlohmann::ordered_json::array({0, 1, 2, 3, 4, 6, 7, 8, 9, 10}));
    CHECK(sliding["scaling"]["type"] == "none");
    REQUIRE(sliding["pairs"].size() == 128);
    CHECK(std::abs(sliding["pairs"][1]["inv_freq"].get<double>() / std::pow(1e4, -2.0 / 256.0) - 1) <= 1e-15);
    CHECK(std::abs(j["rope_groups"][1]["pairs"][1]["inv_freq"].get<double>() / (std::pow(1e6, -2.0 / 256.0) / 8) - 1) <=
          1e-15);
    CHECK(j["mrope_section"].is_null());
    CHECK(j["mrope_interleaved"] == false);
    CHECK(j["multi_axis"].is_null());
    CHECK(sliding["pair_axes"].is_null());

    const inspect::Report layer3 = inspect::report_for(m, inspect::parse_options({"--preset", "x", "--layer", "3"}));
    CHECK(layer3.focus == 0);
    CHECK(layer3.diagnostics.base == 1e4);
    // Overrides apply to the group in focus only.
    const inspect::Report yarn = inspect::report_for(
        m, inspect::parse_options({"--preset", "x", "--layer", "3", "--scaling", "yarn", "--factor", "4"}));
    CHECK(posenc::scaling_type_name(yarn.groups[0].scaling) == std::string("yarn"));
    CHECK(posenc::scaling_type_name(yarn.groups[1].scaling) == std::string("linear"));
    const auto refusal = [&](const std::vector<std::string>& args) {
        try {
            inspect::report_for(m, inspect::parse_options(args));
        } catch (const inspect::UsageError& e) {
            return std::string(e.what());
        }
        return std::string("(accepted)");
    };
    CHECK(refusal({"--preset", "x", "--layer", "12"}) == "--layer 12: layer 12 uses no RoPE (a NoPE layer)");
    CHECK(refusal({"--preset", "x", "--layer", "13"}) == "--layer 13: the model has 13 layers (0 to 12)");
    // A negative index gets the same range as one past the last layer (0 to L-1), not the
    // option grammar's.
    CHECK(refusal({"--preset", "x", "--layer", "-1"}) == "--layer -1: the model has 13 layers (0 to 12)");
}

TEST_CASE("[cli svg] legends name only colours in use; the RoFormer curves' dash patterns are in their swatches, marks "
          "on top")
{
    const auto direct = inspect::render_svgs(run({"--preset", "qwen3-8b", "--scaling", "none", "--factor", "4"}));
    const std::string& red_turns = file(direct, "turns.svg").content;
    CHECK(count(red_turns, "class=\"bar out-of-range\"") == 24);  // lesson C2-5 #18
    CHECK(count(red_turns, "#d62728") == 24 + 1);  // + its swatch
    const auto yarn = inspect::render_svgs(run({"--preset", "qwen3-8b", "--scaling", "yarn", "--factor", "4"}));
    CHECK(count(file(yarn, "turns.svg").content, "#d62728") == 0);  // no red bar, no red swatch
    CHECK(count(file(yarn, "turns.svg").content, "out of range at L'") == 0);
    const std::string& bound = file(yarn, "roformer_bound.svg").content;
    // Three curves: solid black (the model's base), dashed and dotted grey; each swatch is a
    // line drawn with its curve's colour and dash pattern.
    CHECK(count(bound, "<line class=\"swatch\"") == 3);
    CHECK(count(bound, "class=\"swatch\" x1=") == 3);
    CHECK(count(bound, "stroke-dasharray=\"6 3\"") == 2);  // curve + swatch
    CHECK(count(bound, "stroke-dasharray=\"2 3\"") == 2);
    // Every mark after every curve and the reference line, so none is drawn over.
    REQUIRE(bound.find("<circle") != std::string::npos);
    CHECK(bound.rfind("<polyline") < bound.find("<circle"));
    CHECK(bound.rfind("class=\"reference\"") < bound.find("<circle"));
}

TEST_CASE("[cli svg] log axes read 10^k; axis labels use the symbols theta_i and 2 pi")
{
    const auto files = inspect::render_svgs(run({"--preset", "qwen3-8b", "--scaling", "yarn", "--factor", "4"}));
    const std::string& turns = file(files, "turns.svg").content;
    // Turns of Qwen3-8B within 32768: 5215 (pair 0) down to 0.0067 (pair 63): decades 1e-3 .. 1e4.
    for (const char* tick : {">10⁻³<", ">10⁻²<", ">10⁻¹<", ">10⁰<", ">10¹<", ">10²<", ">10³<", ">10⁴<"}) {
        CAPTURE(tick);
        CHECK(count(turns, tick) == 1);
    }
    CHECK(count(turns, "10000.000") == 0);
    CHECK(count(turns, "turns L·θᵢ / 2π (log)") == 1);
    CHECK(count(file(files, "compression.svg").content, ">θ′ᵢ / θᵢ<") == 1);
    CHECK(count(file(files, "roformer_bound.svg").content, ">10⁰<") == 1);  // r from 1
}

TEST_CASE("[cli svg] chart titles name the model: _name_or_path, else the config file's name; --title")
{
    CHECK(inspect::detail::config_file_model_name("tests/data/configs/gemma-3-4b-it.json") == "gemma-3-4b-it");
    CHECK(inspect::detail::config_file_model_name("models/Llama-3.1-8B/config.json") == "Llama-3.1-8B");
    CHECK(inspect::detail::config_file_model_name("config.json") == "config");
    CHECK(inspect::detail::config_file_model_name("a.b/mistral") == "mistral");
    const std::string path = std::string(POSENC_TEST_DATA_DIR) + "/configs/gemma-3-4b-it.json";
    const auto named = inspect::render_svgs(run({"--config", path}));
    // Gemma 3 has two RoPE groups: every chart names the one it shows.
    CHECK(file(named, "turns.svg").content.find(">google/gemma-3-4b-it, group full_attention: turns of each pair") !=
          std::string::npos);
    CHECK(file(named, "roformer_bound.svg").content.find("pairs (google/gemma-3-4b-it, group full_attention)<") !=
          std::string::npos);
    const auto sliding = inspect::render_svgs(run({"--config", path, "--layer", "0"}));
    CHECK(
        file(sliding, "compression.svg").content.find(">google/gemma-3-4b-it, group sliding_attention: compression") !=
        std::string::npos);
    const inspect::Options titled =
        inspect::parse_options({"--config", path, "--title", "Gemma 3 4B <it>", "--svg", "d"});
    REQUIRE(titled.title);
    const auto retitled = inspect::render_svgs(inspect::build_report(titled), *titled.title);
    CHECK(
        file(retitled, "turns.svg").content.find(">Gemma 3 4B &lt;it&gt;, group full_attention: turns of each pair") !=
        std::string::npos);
    CHECK(file(retitled, "compression.svg").content.find(">Gemma 3 4B &lt;it&gt;, group full_attention: compression") !=
          std::string::npos);
}

}  // namespace inspect_render_tests_tests

namespace inspect_render_tests_tests {

TEST_CASE("[cli json] new keys from configs: Gemma 4's global head and zero-frequency pairs, Llama 4's query_scale")
{
    const std::string dir = std::string(POSENC_TEST_DATA_DIR) + "/configs/";
    // Gemma 4 E2B (gemma4_reference_values.py): full_attention over global_head_dim 512, 64 rotated pairs, 192 at 0.
    const auto g =
        nlohmann::ordered_json::parse(inspect::render_json(run({"--config", dir + "gemma-4-e2b-it.json", "--json"})));
    REQUIRE(g["rope_groups"].size() == 2);
    const auto& full = g["rope_groups"][1];
    CHECK(full["name"] == "full_attention");
    CHECK(full["head_dim"] == 512);
    CHECK(full["rotary_dim"] == 512);
    CHECK(full["rotary_offset"] == 0);
    CHECK(full["zero_freq_pairs"] == 192);
    CHECK(full["pairs"][64]["inv_freq"] == 0.0);
    CHECK(full["pairs"][63]["inv_freq"] != 0.0);
    CHECK(g["rope_groups"][0]["head_dim"] == 256);
    CHECK(g["rope_groups"][0]["zero_freq_pairs"] == 0);
    CHECK(g["query_scale"].is_null());
    // The text table says which pairs rotate.
    const std::string text = inspect::render_text(run({"--config", dir + "gemma-4-e2b-it.json"}));
    CHECK(text.find("64 rotated, 192 with") != std::string::npos);
    for (const std::string& line : lines_of(text)) CHECK(line.size() <= 80);
    // DeepSeek-V4: groups main and compress, the last 64 of 512 rotated, the output rotated back.
    const auto v4 = nlohmann::ordered_json::parse(
        inspect::render_json(run({"--config", dir + "deepseek-v4-legacy-keys.json", "--json"})));
    REQUIRE(v4["rope_groups"].size() == 2);
    CHECK(v4["rope_groups"][0]["name"] == "main");
    CHECK(v4["rope_groups"][1]["name"] == "compress");
    for (const auto& group : v4["rope_groups"]) {
        CHECK(group["head_dim"] == 512);
        CHECK(group["rotary_dim"] == 64);
        CHECK(group["rotary_offset"] == 448);
        CHECK(group["inverse_rope_on_output"] == true);
        CHECK(group["pairing"] == "interleaved");
    }
    CHECK(v4["rope_groups"][1]["base"] == 160000.0);
    // Llama 4 Scout: attn_scale 0.1, floor_scale 8192, position offset 1, on the 12 NoPE layers.
    const auto l = nlohmann::ordered_json::parse(
        inspect::render_json(run({"--config", dir + "llama-4-scout-17b-16e-instruct.json", "--json"})));
    REQUIRE(l["query_scale"].is_object());
    CHECK(l["query_scale"]["beta"] == 0.1);
    CHECK(l["query_scale"]["divisor"] == 8192);
    CHECK(l["query_scale"]["position_offset"] == 1);
    CHECK(l["query_scale"]["layers"] == l["nope_layers"]);
    CHECK(l["query_scale"]["layers"].size() == 12);
}

TEST_CASE("[cli json] pair_axes: the position axis each pair reads (ERNIE-4.5-VL's alternating layout, Qwen3-VL's "
          "interleaved)")
{
    const std::string dir = std::string(POSENC_TEST_DATA_DIR) + "/configs/";
    // ernie4_5_vl_moe/modeling_ernie4_5_vl_moe.py recomposition_to_3d: sections [22, 22, 20] split the
    // pre-permuted table into h (position row 1), w (row 2) and t (row 0); stack(h, w).flatten() makes
    // pairs 0..43 alternate row 1, row 2; pairs 44..63 read row 0.
    const auto e = nlohmann::ordered_json::parse(
        inspect::render_json(run({"--config", dir + "ernie-4.5-vl-28b-a3b-class-defaults.json", "--json"})));
    std::vector<int> ernie;
    for (int k = 0; k < 64; ++k) ernie.push_back(k < 44 ? 1 + k % 2 : 0);
    REQUIRE(e["rope_groups"].size() == 1);
    CHECK(e["rope_groups"][0]["pair_axes"] == nlohmann::ordered_json(ernie));
    CHECK(e["rope_groups"][0].count("partner_pair_axes") == 0);
    CHECK(e["multi_axis"]["kind"] == "height_width_alternating");
    CHECK(e["multi_axis"]["num_axes"] == 3);
    // qwen3_vl/modeling_qwen3_vl.py apply_interleaved_mrope, sections [24, 20, 20]: pair k reads row
    // k mod 3 while row 1 has pairs left (k < 3 * 20), row 0 after.
    const auto q = nlohmann::ordered_json::parse(
        inspect::render_json(run({"--config", dir + "qwen3-vl-8b-instruct.json", "--json"})));
    std::vector<int> qwen;
    for (int k = 0; k < 64; ++k) qwen.push_back(k < 60 ? k % 3 : 0);
    CHECK(q["rope_groups"][0]["pair_axes"] == nlohmann::ordered_json(qwen));
    CHECK(q["multi_axis"]["kind"] == "interleaved");
}

}  // namespace inspect_render_tests_tests
