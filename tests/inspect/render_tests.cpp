// SPDX-License-Identifier: MIT
// posenc-inspect's three renderings (examples/inspect/render_*.hpp): the text fits 80 columns,
// the JSON is one object with exactly the documented keys (docs/cli.md) and the library's values at full
// precision, the SVG charts colour exactly the out-of-range pairs red.
// Expected counts are lesson C2-5's (docs/lessons.md items 18, 21, 23); the per-pair values
// are compared with posenc::extension_diagnostics called here directly (the JSON must carry the
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
        const std::string text = inspect::render_text(run({"--preset", "qwen3-8b", "--scaling", scaling, "--factor", "4"}));
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
    for (const std::string& line : lines_of(inspect::render_text(run({"--preset", "phi-3-mini-128k"})))) {
        CAPTURE(line);
        CHECK(line.size() <= 80);
    }
}

TEST_CASE("[cli json] one object, exactly docs/cli.md's keys in order, the library's values at full precision")
{
    const inspect::Report report = run({"--preset", "qwen3-8b", "--scaling", "yarn", "--factor", "4", "--json"});
    const nlohmann::ordered_json j = nlohmann::ordered_json::parse(inspect::render_json(report));
    REQUIRE(j.is_object());
    std::vector<std::string> keys;
    for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
    CHECK(keys == std::vector<std::string>{"name", "head_dim", "rotary_dim", "base", "pairing", "scaling",
                                           "original_length", "target_length", "attention_factor",
                                           "softmax_scale_multiplier", "pairs", "summary"});
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
    CHECK(j["attention_factor"] == 1.138629436111989);  // H12 (docs/formulas.md)
    CHECK(j["softmax_scale_multiplier"] == 1.0);
    CHECK(j["summary"] == nlohmann::ordered_json{{"pairs", 64}, {"incomplete_pairs", 24}, {"out_of_range_pairs", 0},
                                                 {"compressed_pairs", 40}});

    // Every pair equals the library's own diagnostics bit for bit (the JSON round-trips doubles).
    const posenc::ExtensionDiagnostics d =
        posenc::extension_diagnostics(posenc::RopeSpec(128, 128, 1e6), posenc::YarnScaling(4.0, 32768), 32768, 131072);
    REQUIRE(j["pairs"].size() == 64);
    for (std::size_t i = 0; i < 64; ++i) {
        CAPTURE(i);
        const auto& p = j["pairs"][i];
        std::vector<std::string> pair_keys;
        for (auto it = p.begin(); it != p.end(); ++it) pair_keys.push_back(it.key());
        CHECK(pair_keys == std::vector<std::string>{"index", "inv_freq_original", "inv_freq", "period", "turns_original",
                                                    "completes_turn", "out_of_range", "compression"});
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

TEST_CASE("[cli json] DeepSeek-V3: interleaved, mscale pair in the scaling object, softmax x g(40)^2; GPT-2: the learned table")
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
    CHECK(phi3["scaling"]["long_factor"][47] == 64.76000213623047);  // H12's list, full precision

    const auto gpt2 = nlohmann::ordered_json::parse(inspect::render_json(run({"--preset", "gpt2"})));
    CHECK(gpt2 == nlohmann::ordered_json{{"name", "GPT-2"}, {"position_encoding", "learned_absolute"},
                                         {"positions", 1024}, {"d_model", 768}, {"parameters", 786432}});
}

TEST_CASE("[cli svg, lesson C2-5 items 18, 21, 23] red bars: 24 for direct extrapolation, 23 for NTK-aware, 0 for PI and YaRN")
{
    struct Case {
        const char* scaling;
        int red;
        int compressed;
    };
    for (const Case c : {Case{"none", 24, 0}, Case{"linear", 0, 64}, Case{"ntk_aware", 23, 63}, Case{"yarn", 0, 40}}) {
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
        CHECK(bound.find("base 1000000 (Qwen3-8B)") != std::string::npos);
        CHECK(bound.find("base 10000<") != std::string::npos);
        CHECK(bound.find("base 10000000<") != std::string::npos);
        for (const auto& f : files) {
            CHECK(f.content.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
            CHECK(f.content.find("<script") == std::string::npos);
            CHECK(f.content.find("@font-face") == std::string::npos);
            CHECK(f.content.find("href") == std::string::npos);
        }
    }
}

TEST_CASE("[cli svg] hostile names stay well-formed XML: markup escaped, control bytes and broken UTF-8 replaced")
{
    inspect::Report report = run({"--preset", "course-small"});
    report.name = "a<b>&\"c\x01\xff\xc3\xa9";
    const auto files = inspect::render_svgs(report);
    const std::string& turns = file(files, "turns.svg").content;
    CHECK(turns.find("a&lt;b&gt;&amp;&quot;c??\xc3\xa9: turns") != std::string::npos);
}
