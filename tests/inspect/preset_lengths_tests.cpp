// SPDX-License-Identifier: MIT
// One original length L and one target length L' per preset and RoPE group, the same in
// --list-presets, the text table, JSON and the turns chart (docs/cli.md, "Lengths"); the values
// from the models' published configs and cards.
#include "inspect/preset_list.hpp"
#include "inspect/render_json.hpp"
#include "inspect/render_svg.hpp"
#include "inspect/render_text.hpp"
#include "inspect/report.hpp"

#include <nlohmann/json.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <regex>
#include <string>
#include <vector>

namespace inspect_preset_lengths_tests_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

struct Lengths {
    std::int64_t original = 0, target = 0;
};

/// The "L -> L'" of the list row named `row` (a preset, or "  <group>" under a whole model).
Lengths listed(const std::string& list, const std::string& row)
{
    std::smatch m;
    const std::regex pattern("(^|\\n)" + row + " [^\\n]* ([0-9]+) -> ([0-9]+)\\n");
    REQUIRE_MESSAGE(std::regex_search(list, m, pattern), row);
    return {std::stoll(m[2]), std::stoll(m[3])};
}

/// The shown group's lengths: its table's closing counts ("... never complete a turn within
/// L = X", "... out of range at L' = Y"); with several groups each group's summary comes first.
Lengths in_text(const std::string& text)
{
    const std::string joined = std::regex_replace(text, std::regex("\\s+"), " ");
    std::smatch m;
    REQUIRE(std::regex_search(joined, m, std::regex("pairs never complete a turn within L = ([0-9]+)")));
    const std::int64_t original = std::stoll(m[1]);
    REQUIRE(std::regex_search(joined, m, std::regex("pairs are out of range at L' = ([0-9]+)")));
    return {original, std::stoll(m[1])};
}

Lengths in_json(const std::string& json)
{
    const auto j = nlohmann::ordered_json::parse(json);
    return {j["original_length"].get<std::int64_t>(), j["target_length"].get<std::int64_t>()};
}

Lengths in_turns_chart(const std::string& svg)
{
    std::smatch m;
    REQUIRE(std::regex_search(svg, m, std::regex("within L = ([0-9]+)")));
    const std::int64_t original = std::stoll(m[1]);
    REQUIRE(std::regex_search(svg, m, std::regex("at L' = ([0-9]+)")));
    return {original, std::stoll(m[1])};
}

void check_agree(const std::string& list, const std::string& row, std::vector<std::string> args)
{
    CAPTURE(row);
    const Lengths l = listed(list, row);
    const inspect::Report r = inspect::build_report(inspect::parse_options(args));
    const Lengths t = in_text(inspect::render_text(r));
    const Lengths j = in_json(inspect::render_json(r));
    std::string svg;
    for (const inspect::SvgFile& f : inspect::render_svgs(r))
        if (f.name == "turns.svg") svg = f.content;
    REQUIRE_FALSE(svg.empty());
    const Lengths c = in_turns_chart(svg);
    CHECK(t.original == l.original);
    CHECK(t.target == l.target);
    CHECK(j.original == l.original);
    CHECK(j.target == l.target);
    CHECK(c.original == l.original);
    CHECK(c.target == l.target);
}

}  // namespace

TEST_CASE("[cli lengths, docs/cli.md] every preset: --list-presets, the table, JSON and the turns chart name the same "
          "L and L'")
{
    const std::string list = inspect::preset_list();
    for (const posenc::ModelPreset& p : posenc::models::all_presets) {
        if (p.kind != posenc::PositionEncodingKind::rope) continue;
        check_agree(list, std::string(p.name), {"--preset", std::string(p.name)});
    }
    for (const inspect::WholeModelPreset& p : inspect::whole_model_presets()) {
        const inspect::Model model = inspect::model_from_rope(p.display_name, p.rope(), false);
        if (model.groups.size() == 1) {
            check_agree(list, p.name, {"--preset", p.name});
            continue;
        }
        for (const inspect::Group& g : model.groups)
            check_agree(list, "  " + g.name, {"--preset", p.name, "--layer", std::to_string(g.layers.front())});
    }
}

TEST_CASE("[cli lengths, configs and model cards] Llama 3.x: 8192 -> max_position_embeddings; Gemma 3 global: 131072 / "
          "8 -> 131072")
{
    const std::string list = inspect::preset_list();
    // Llama 3.1 8B and 3.2 1B: original_max_position_embeddings 8192, max_position_embeddings
    // 131072 (the cards' 128K context); llama3's factor (8, 32) is not L'/L.
    CHECK(listed(list, "llama-3.1-8b").original == 8192);
    CHECK(listed(list, "llama-3.1-8b").target == 131072);
    CHECK(listed(list, "llama-3.2-1b").target == 131072);
    // Llama 4 Scout: max_position_embeddings 10485760 (the card's 10M context).
    CHECK(listed(list, "llama-4-scout").target == 10485760);
    // Gemma 3 4B: max_position_embeddings 131072 is the extended length (the card's 128K); the
    // global layers' linear x8 reads it as Position Interpolation from 131072 / 8.
    CHECK(listed(list, "  full_attention").original == 16384);
    CHECK(listed(list, "  full_attention").target == 131072);
    CHECK(listed(list, "  sliding_attention").original == 131072);
    CHECK(listed(list, "  sliding_attention").target == 131072);
    // YaRN's factor is L'/L: Qwen3-8B 32768 x 4, DeepSeek-V3 4096 x 40.
    CHECK(listed(list, "qwen3-8b").target == 131072);
    CHECK(listed(list, "deepseek-v3").target == 163840);
}

TEST_CASE("[cli lengths] --json gives each group's own lengths, as --list-presets does (Gemma 3's sliding group)")
{
    const std::string list = inspect::preset_list();
    const auto j = nlohmann::ordered_json::parse(
        inspect::render_json(inspect::build_report(inspect::parse_options({"--preset", "gemma-3-4b-it", "--json"}))));
    REQUIRE(j["rope_groups"].size() == 2);
    for (const auto& group : j["rope_groups"]) {
        const std::string name = group["name"].get<std::string>();
        CAPTURE(name);
        CHECK(group["original_length"].get<std::int64_t>() == listed(list, "  " + name).original);
        CHECK(group["target_length"].get<std::int64_t>() == listed(list, "  " + name).target);
    }
    // Model cards: the sliding layers' table is unscaled over the 131072 context; the global layers
    // interpolate 16384 x 8.
    CHECK(j["rope_groups"][0]["name"] == "sliding_attention");
    CHECK(j["rope_groups"][0]["original_length"] == 131072);
    CHECK(j["rope_groups"][1]["original_length"] == 16384);
}

}  // namespace inspect_preset_lengths_tests_tests
