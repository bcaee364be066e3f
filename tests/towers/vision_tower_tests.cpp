// SPDX-License-Identifier: MIT
// Vision towers' RoPE (posenc/vision_tower.hpp, posenc/models/hf_vision_tower.hpp) against
// transformers' own code: tests/data/transformers_sweep_towers.json holds, for every tower of the
// Qwen2-VL rule, its class-default config and the position ids and angles its rotary module
// produced in the tower's forward for a few grids (scripts/sweep_towers.py), and the head dims
// each angle rotates, probed through the modeling file's apply function.
#include <posenc/models/hf_vision_tower.hpp>
#include <posenc/vision_tower.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <set>
#include <string>

namespace {

nlohmann::json load_towers_sweep()
{
    std::ifstream in(std::string(POSENC_TEST_DATA_DIR) + "/transformers_sweep_towers.json");
    REQUIRE(in.good());
    return nlohmann::json::parse(in);
}

std::string error_of(const std::string& text)
{
    try {
        (void)posenc::hf::parse_vision_tower(text);
    } catch (const posenc::error& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("towers sweep: every tower's per-token angles and positions match transformers' forward")
{
    const nlohmann::json data = load_towers_sweep();
    REQUIRE(data.at("towers").size() >= 26);
    int towers = 0, bit_equal = 0, values = 0;
    for (const auto& t : data.at("towers")) {
        const std::string type = t.at("model_type");
        CAPTURE(type);
        nlohmann::json config = t.at("config");
        config["model_type"] = type;
        const posenc::hf::HfVisionTower read = posenc::hf::vision_tower_from_json(config);
        CHECK(read.tower.model_type == type);
        for (const auto& c : t.at("cases")) {
            const auto g = c.at("grid_thw");
            const posenc::PatchGrid grid {g[0].get<long>(), g[1].get<long>(), g[2].get<long>()};
            CAPTURE(g.dump());
            const posenc::TokenAngles a = posenc::tower_token_angles(read.tower, grid);
            CHECK(c.value("table_is_cat", true));  // Pixtral's table: cat(h, h), the half_split layout
            const auto& want = c.at("angles");
            const auto& want_pos = c.at("positions");
            REQUIRE(a.num_tokens() == want.size());
            REQUIRE(a.num_pairs() == want[0].size());
            for (std::size_t n = 0; n < a.num_tokens(); ++n) {
                // integers, or DINOv3's float32 patch centres (stored with 9 significant digits)
                REQUIRE(a.positions[n].size() == want_pos[n].size());
                for (std::size_t x = 0; x < want_pos[n].size(); ++x)
                    CHECK(static_cast<float>(a.positions[n][x]) == static_cast<float>(want_pos[n][x].get<double>()));
                for (std::size_t k = 0; k < a.num_pairs(); ++k) {
                    const double w = want[n][k].get<double>();
                    // the sweep stores float32 values with 9 significant digits: exact to float32
                    CHECK(std::abs(a.tokens[n][k] - w) <= std::ldexp(std::abs(w), -22));
                    bit_equal += static_cast<float>(a.tokens[n][k]) == static_cast<float>(w);
                    ++values;
                }
            }
        }
        if (t.contains("windowed")) {  // SAM 3's windowed layers: the same tower, window = window_size, scale 1
            const auto& w = t.at("windowed");
            posenc::VisionTower win = read.tower;
            win.window = w.at("window").get<int>();
            win.scale = 1.0;
            const auto& g = t.at("cases")[0].at("grid_thw");
            const posenc::TokenAngles a =
                posenc::tower_token_angles(win, {g[0].get<long>(), g[1].get<long>(), g[2].get<long>()});
            REQUIRE(a.num_tokens() == w.at("angles").size());
            for (std::size_t n = 0; n < a.num_tokens(); ++n) {
                CHECK(a.positions[n][0] == w.at("positions")[n][0].get<double>());
                CHECK(a.positions[n][1] == w.at("positions")[n][1].get<double>());
                for (std::size_t k = 0; k < a.num_pairs(); ++k)
                    CHECK(static_cast<float>(a.tokens[n][k]) == static_cast<float>(w.at("angles")[n][k].get<double>()));
            }
        }
        if (t.contains("probe")) {  // the apply function's partner dims and cos for one token (Llama 4, Gemma 4)
            const auto& probe = t.at("probe");
            const auto& g = t.at("cases")[probe.value("case", std::size_t {0})].at("grid_thw");
            const posenc::TokenAngles a =
                posenc::tower_token_angles(read.tower, {g[0].get<long>(), g[1].get<long>(), g[2].get<long>()});
            const std::size_t n = probe.at("token").get<std::size_t>();
            if (probe.contains("unrotated")) {  // DINOv3: the tokens the apply function leaves as they are
                CHECK(probe.at("unrotated").size() == static_cast<std::size_t>(read.tower.prefix_tokens));
                for (const auto& u : probe.at("unrotated"))
                    for (const double x : a.tokens[u.get<std::size_t>()]) CHECK(x == 0.0);
            }
            std::vector<int> paired(probe.at("partner").size(), 0);
            for (const auto& pr : a.pairs)
                paired.at(static_cast<std::size_t>(pr[0])) = paired.at(static_cast<std::size_t>(pr[1])) = 1;
            for (std::size_t d = 0; d < paired.size(); ++d)  // a dim in no pair passes through (MiniMax-M3-VL's tail)
                if (!paired[d]) CHECK(probe.at("partner")[d].get<int>() == -1);
            for (std::size_t k = 0; k < a.num_pairs(); ++k) {
                const int d0 = a.pairs[k][0], d1 = a.pairs[k][1];
                CAPTURE(k);
                CHECK(probe.at("partner")[static_cast<std::size_t>(d0)].get<int>() == d1);
                CHECK(probe.at("partner")[static_cast<std::size_t>(d1)].get<int>() == d0);
                CHECK(a.tokens[n][k] != 0.0);
                // cos of a float32 angle below 10, as the model's float32 cos gives it
                CHECK(std::abs(probe.at("cos")[static_cast<std::size_t>(d0)].get<double>() -
                               std::cos(a.tokens[n][k])) <= 1e-6);
                CHECK(std::abs(probe.at("cos")[static_cast<std::size_t>(d1)].get<double>() -
                               std::cos(a.tokens[n][k])) <= 1e-6);
            }
        }
        if (t.contains("pairs")) {
            const posenc::TokenAngles a =
                posenc::tower_token_angles(read.tower, {1, 2 * read.tower.merge_size, 2 * read.tower.merge_size});
            REQUIRE(a.num_pairs() == t.at("pairs").size());
            for (std::size_t k = 0; k < a.num_pairs(); ++k) {
                CHECK(a.pairs[k][0] == t.at("pairs")[k][0].get<int>());
                CHECK(a.pairs[k][1] == t.at("pairs")[k][1].get<int>());
            }
        }
        ++towers;
    }
    // torch's float32 pow rounds one inv_freq entry of the 224-wide class-default heads
    // (Qwen2.5-VL, EXAONE 4.5) and one of the 96-wide heads (Muse Glimmer, Step 3.7: j = 10) the
    // other way from pow in double rounded once: those angles are 1 ulp off, within the tolerance
    // above (at most 2 x 160 + 104 + 74 of them: the non-zero coordinates of those columns);
    // every other angle is bit-equal.
    MESSAGE(towers << " towers, " << bit_equal << " of " << values << " angles bit-equal to transformers' float32");
    CHECK(bit_equal >= values - 2 * 160 - 104 - 74);
}

TEST_CASE("Qwen2.5-VL-7B-Instruct's config.json: head 1280 / 16 = 80, theta 10000, 2x2 merge blocks")
{
    // vision_config as the checkpoint's config.json writes it (no theta: the tower's constructor default)
    const std::string text = R"({"model_type": "qwen2_5_vl", "architectures": ["Qwen2_5_VLForConditionalGeneration"],
        "hidden_size": 3584, "num_attention_heads": 28,
        "vision_config": {"depth": 32, "hidden_act": "silu", "hidden_size": 1280, "intermediate_size": 3420,
            "num_heads": 16, "in_chans": 3, "out_hidden_size": 3584, "patch_size": 14, "spatial_merge_size": 2,
            "spatial_patch_size": 14, "window_size": 112, "fullatt_block_indexes": [7, 15, 23, 31],
            "tokens_per_second": 2, "temporal_patch_size": 2}})";
    const posenc::hf::HfVisionTower t = posenc::hf::parse_vision_tower(text);
    CHECK(t.tower.model_type == "qwen2_5_vl_vision");
    CHECK(t.key_prefix == "vision_config.");
    CHECK(t.tower.head_dim == 80);
    CHECK(t.tower.theta == 10000.0);
    CHECK(t.tower.merge_size == 2);
    CHECK(t.warnings.empty());
    // grid 1 x 2 x 4: two merge blocks side by side; block-major order
    const posenc::TokenAngles a = posenc::tower_token_angles(t.tower, {1, 2, 4}, posenc::Precision::exact);
    const double want[8][2] = {{0, 0}, {0, 1}, {1, 0}, {1, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}};
    REQUIRE(a.num_tokens() == 8);
    for (int n = 0; n < 8; ++n) {
        CHECK(a.positions[static_cast<std::size_t>(n)][0] == want[n][0]);
        CHECK(a.positions[static_cast<std::size_t>(n)][1] == want[n][1]);
    }
    // pair 1 reads the row at 10000^(-4/80); pair 21 the column at the same frequency
    CHECK(a.tokens[6][1] == doctest::Approx(1.0 * std::pow(10000.0, -0.05)).epsilon(1e-15));
    CHECK(a.tokens[6][21] == doctest::Approx(2.0 * std::pow(10000.0, -0.05)).epsilon(1e-15));
    CHECK(a.pairs[3][0] == 3);
    CHECK(a.pairs[3][1] == 43);
}

TEST_CASE("a video repeats the frame's (row, column) order once per temporal patch")
{
    posenc::VisionTower t;
    t.head_dim = 16;
    t.merge_size = 2;
    const posenc::TokenAngles a = posenc::tower_token_angles(t, {3, 2, 2});
    REQUIRE(a.num_tokens() == 12);
    for (std::size_t n = 0; n < 4; ++n) {
        CHECK(a.positions[n] == a.positions[n + 4]);
        CHECK(a.tokens[n] == a.tokens[n + 8]);
    }
}

TEST_CASE("the float32 angle stays within 2^-20 relative of the exact one up to the largest grid side")
{
    using R = posenc::VisionTowerRule;
    for (const R rule :
         {R::rows_columns_shared, R::rows_columns_even_odd, R::columns_rows_interleaved_cls, R::columns_rows_chunked,
          R::columns_rows_alternating, R::columns_rows_offset_shared, R::columns_rows_interleaved_scaled}) {
        posenc::VisionTower t;
        t.rule = rule;
        t.head_dim = 80;
        t.max_side = rule == R::columns_rows_interleaved_cls ? posenc::max_grid_side : 0;
        CAPTURE(posenc::to_string(rule));
        for (const std::int64_t c :
             {std::int64_t {1}, std::int64_t {4095}, std::int64_t {1} << 20, posenc::max_grid_side})
            for (int pair = 0; pair < 40; ++pair) {
                const double exact = posenc::tower_angle(t, c, c, pair, posenc::Precision::exact);
                const double f32 = posenc::tower_angle(t, c, c, pair, posenc::Precision::hf_float32);
                // the float32 exponent fl(2j / (H/2)) (ln(theta) e 2^-24 <= 9.3 x 2^-24 relative), pow's
                // and the division's rounding (2 x 2^-24), the product's rounding (2^-24)
                CHECK(std::abs(f32 - exact) <= std::ldexp(exact, -20));
            }
    }
    posenc::VisionTower t;
    t.head_dim = 80;
    CHECK_THROWS_AS(posenc::tower_angle(t, posenc::max_grid_side + 1, 0, 0), posenc::error);
    CHECK_THROWS_AS(posenc::tower_angle(t, 0, 0, 40), posenc::error);
}

TEST_CASE("PaddleOCR-VL's encoder numbers patches row-major whatever spatial_merge_size says")
{
    const posenc::hf::HfVisionTower t =
        posenc::hf::parse_vision_tower(R"({"model_type": "paddleocr_vl", "vision_config": {"hidden_size": 1152,
        "num_attention_heads": 16, "spatial_merge_size": 2}})");
    CHECK(t.tower.head_dim == 72);
    CHECK(t.tower.merge_size == 1);
    const posenc::TokenAngles a = posenc::tower_token_angles(t.tower, {1, 2, 4});
    CHECK(a.positions[1] == std::vector<double> {0, 1});
    CHECK(a.positions[2] == std::vector<double> {0, 2});
}

TEST_CASE("a tower's own config, the Omni thinker's nesting, class defaults and an ignored rope_theta")
{
    const auto own =
        posenc::hf::parse_vision_tower(R"({"model_type": "qwen2_vl_vision", "embed_dim": 1280, "num_heads": 16})");
    CHECK(own.key_prefix.empty());
    CHECK(own.tower.head_dim == 80);
    const auto omni = posenc::hf::parse_vision_tower(
        R"({"model_type": "qwen3_omni_moe", "thinker_config": {"vision_config": {"rope_theta": 5}}})");
    CHECK(omni.tower.model_type == "qwen3_omni_moe_vision_encoder");
    CHECK(omni.tower.head_dim == 72);  // class defaults 1152 / 16
    CHECK(omni.tower.theta == 10000.0);
    REQUIRE(omni.warnings.size() == 1);
    CHECK(omni.warnings[0].key == "thinker_config.vision_config.rope_theta");
    const auto glm46v = posenc::hf::parse_vision_tower(R"({"model_type": "glm46v", "vision_config": {}})");
    CHECK(glm46v.tower.model_type == "glm4v_vision");
}

TEST_CASE("towers posenc does not represent, towers without RoPE and bad grids are refused by name")
{
    CHECK(error_of(R"({"model_type": "video_llama_3", "vision_config": {}})").find("video_llama_3_vision") !=
          std::string::npos);
    CHECK(error_of(R"({"model_type": "sam2_video"})").find("axial RoPE") != std::string::npos);
    CHECK(error_of(R"({"model_type": "llava", "vision_config": {"model_type": "clip_vision_model"}})")
              .find("vision_config.model_type") != std::string::npos);
    CHECK(error_of(R"({"model_type": "llama"})").find("vision_config") != std::string::npos);
    CHECK(error_of(R"({"model_type": "qwen2_vl", "vision_config": {"embed_dim": 1280, "num_heads": 0}})")
              .find("vision_config.num_heads") != std::string::npos);
    CHECK(error_of(R"({"model_type": "qwen2_vl", "vision_config": {"embed_dim": 1000, "num_heads": 8}})")
              .find("multiple of 4") != std::string::npos);
    CHECK(error_of(R"({"model_type": "qwen2_vl", "vision_config": []})").find("vision_config") != std::string::npos);
    posenc::VisionTower t;
    t.head_dim = 80;
    t.merge_size = 2;
    CHECK_THROWS_AS(posenc::tower_token_angles(t, {1, 3, 4}), posenc::error);
    CHECK_THROWS_AS(posenc::tower_token_angles(t, {0, 2, 2}), posenc::error);
    CHECK_THROWS_AS(posenc::tower_token_angles(t, {1 << 20, 1 << 12, 1 << 12}), posenc::error);
}

TEST_CASE("every vision model type with RoPE is a tower row or a refusal naming it")
{
    std::set<std::string> rows;
    for (const auto& r : posenc::hf::vision_tower_rows) rows.insert(std::string(r.model_type));
    int vision = 0, read = 0;
    for (const auto& o : posenc::hf::rope_outside_language) {
        if (o.kind != posenc::hf::TowerKind::vision) continue;
        ++vision;
        const std::string type(o.model_type);
        CAPTURE(type);
        if (rows.count(type)) {
            ++read;
            continue;
        }
        const std::string e = error_of(R"({"model_type": ")" + type + R"("})");
        CHECK(e.find("\"" + type + "\"") != std::string::npos);
    }
    MESSAGE(read << " of " << vision << " vision model types with RoPE read as towers");
    CHECK(read == static_cast<int>(rows.size()));
    int explained = 0;
    for (const auto& r : posenc::hf::vision_tower_refusals)
        explained += posenc::hf::find_rope_outside_language(r.model_type) != nullptr;
    CHECK(explained == static_cast<int>(std::size(posenc::hf::vision_tower_refusals)));
    MESSAGE((vision - read) << " refused, " << explained << " of them saying what posenc would need");
}

TEST_CASE("Pixtral: theta and head from the config, row-major patches, the grid bounded by image_size / patch_size")
{
    // Mistral-Small-3.1's vision_config as the checkpoint writes it (head_dim 64 = 1024 / 16)
    const auto t =
        posenc::hf::parse_vision_tower(R"({"model_type": "mistral3", "vision_config": {"model_type": "pixtral",
        "head_dim": 64, "hidden_size": 1024, "num_attention_heads": 16, "image_size": 1540, "patch_size": 14,
        "rope_theta": 10000.0}})");
    CHECK(t.tower.rule == posenc::VisionTowerRule::rows_columns_even_odd);
    CHECK(t.tower.head_dim == 64);
    CHECK(t.tower.max_side == 110);
    CHECK(t.warnings.empty());
    const posenc::TokenAngles a = posenc::tower_token_angles(t.tower, {1, 2, 3}, posenc::Precision::exact);
    CHECK(a.positions[1] == std::vector<double> {0, 1});
    // pair 1 reads the row at phi_2 = 1e4^(-4/64); pair 17 the column at phi_3 = 1e4^(-6/64)
    CHECK(a.tokens[4][1] == doctest::Approx(std::pow(1e4, -4.0 / 64)).epsilon(1e-15));
    CHECK(a.tokens[4][17] == doctest::Approx(std::pow(1e4, -6.0 / 64)).epsilon(1e-15));
    CHECK_THROWS_AS(posenc::tower_token_angles(t.tower, {1, 111, 2}), posenc::error);
    const auto theta = posenc::hf::parse_vision_tower(
        R"({"model_type": "pixtral", "rope_parameters": {"rope_type": "default", "rope_theta": 1e6}, "head_dim": 32})");
    CHECK(theta.tower.theta == 1e6);
    CHECK(theta.tower.head_dim == 64);
    REQUIRE(theta.warnings.size() == 1);
    CHECK(theta.warnings[0].key == "head_dim");
    CHECK(error_of(R"({"model_type": "pixtral", "rope_parameters": {"rope_type": "yarn", "factor": 2}})")
              .find("rope_parameters.rope_type") != std::string::npos);
}

TEST_CASE("Llama 4 Scout's vision_config: interleaved pairs over (column + 1, row + 1), a CLS token last, a fixed grid")
{
    // vision_config as Llama-4-Scout-17B-16E-Instruct's config.json writes it (the RoPE keys)
    const auto t = posenc::hf::parse_vision_tower(R"({"model_type": "llama4", "vision_config": {"model_type":
        "llama4_vision_model", "hidden_size": 1408, "num_attention_heads": 16, "image_size": 336, "patch_size": 14,
        "rope_theta": 10000}})");
    CHECK(t.tower.rule == posenc::VisionTowerRule::columns_rows_interleaved_cls);
    CHECK(t.tower.head_dim == 88);
    CHECK(t.tower.max_side == 24);
    const posenc::TokenAngles a = posenc::tower_token_angles(t.tower, {1, 24, 24}, posenc::Precision::exact);
    REQUIRE(a.num_tokens() == 24 * 24 + 1);
    // token 25: row 1, column 1 -> coordinates (2, 2); token 2: row 0, column 2 -> (3, 1)
    CHECK(a.positions[2] == std::vector<double> {3, 1});
    CHECK(a.tokens[2][1] == doctest::Approx(3.0 * std::pow(1e4, -4.0 / 88)).epsilon(1e-15));
    CHECK(a.tokens[2][23] == doctest::Approx(1.0 * std::pow(1e4, -4.0 / 88)).epsilon(1e-15));
    CHECK(a.pairs[5] == std::array<int, 2> {10, 11});
    CHECK(a.positions.back() == std::vector<double> {0, 0});
    for (const double x : a.tokens.back()) CHECK(x == 0.0);
    CHECK_THROWS_AS(posenc::tower_token_angles(t.tower, {1, 24, 23}), posenc::error);
    const auto two = posenc::tower_token_angles(t.tower, {2, 24, 24});
    CHECK(two.num_tokens() == 2 * (24 * 24 + 1));
    CHECK(two.tokens[24 * 24 + 1] == two.tokens[0]);
    const auto defaults = posenc::hf::parse_vision_tower(R"({"model_type": "llama4", "vision_config": {}})");
    CHECK(defaults.tower.max_side == 32);  // 448 / 14
    CHECK(defaults.tower.head_dim == 48);
}

TEST_CASE("Gemma 4's vision_config: two head chunks, a 1-D RoPE each over (column, row), theta 100")
{
    const auto t =
        posenc::hf::parse_vision_tower(R"({"model_type": "gemma4", "vision_config": {"model_type": "gemma4_vision",
        "hidden_size": 768, "num_attention_heads": 12, "head_dim": 64, "patch_size": 16,
        "rope_parameters": {"rope_type": "default", "rope_theta": 100.0}}})");
    CHECK(t.tower.rule == posenc::VisionTowerRule::columns_rows_chunked);
    CHECK(t.tower.head_dim == 64);
    CHECK(t.tower.theta == 100.0);
    const posenc::TokenAngles a = posenc::tower_token_angles(t.tower, {1, 3, 5}, posenc::Precision::exact);
    // token 7: row 1, column 2; pair 3 is chunk 0 (the column), pair 19 chunk 1 (the row), both at 100^(-6/32)
    CHECK(a.positions[7] == std::vector<double> {2, 1});
    CHECK(a.tokens[7][3] == doctest::Approx(2.0 * std::pow(100.0, -6.0 / 32)).epsilon(1e-15));
    CHECK(a.tokens[7][19] == doctest::Approx(1.0 * std::pow(100.0, -6.0 / 32)).epsilon(1e-15));
    CHECK(a.pairs[3] == std::array<int, 2> {3, 19});
    CHECK(a.pairs[19] == std::array<int, 2> {35, 51});
    const auto defaults =
        posenc::hf::parse_vision_tower(R"({"model_type": "gemma4", "vision_config": {"head_dim": null}})");
    CHECK(defaults.tower.head_dim == 64);  // 768 / 12
    CHECK(defaults.tower.theta == 100.0);
    CHECK(error_of(R"({"model_type": "gemma4", "vision_config": {"head_dim": 30}})").find("vision_config.head_dim") !=
          std::string::npos);
    CHECK(error_of(
              R"({"model_type": "gemma4", "vision_config": {"rope_parameters": {"rope_type": "linear", "factor": 2}}})")
              .find("rope_type") != std::string::npos);
}

TEST_CASE("Kimi K2.5's tower: half_split pairs whose axis alternates pair by pair, the column first")
{
    const auto t = posenc::hf::parse_vision_tower(R"({"model_type": "kimi_k25", "vision_config": {"hidden_size": 1152,
        "num_attention_heads": 16, "patch_size": 14}})");
    CHECK(t.tower.rule == posenc::VisionTowerRule::columns_rows_alternating);
    CHECK(t.tower.head_dim == 72);
    CHECK(t.tower.theta == 10000.0);
    const posenc::TokenAngles a = posenc::tower_token_angles(t.tower, {2, 3, 5}, posenc::Precision::exact);
    REQUIRE(a.num_tokens() == 30);
    // token 7: row 1, column 2; pair 2 reads the column, pair 3 the row, both at 1e4^(-4/72)
    CHECK(a.positions[7] == std::vector<double> {2, 1});
    CHECK(a.tokens[7][2] == doctest::Approx(2.0 * std::pow(1e4, -4.0 / 72)).epsilon(1e-15));
    CHECK(a.tokens[7][3] == doctest::Approx(1.0 * std::pow(1e4, -4.0 / 72)).epsilon(1e-15));
    CHECK(a.pairs[3] == std::array<int, 2> {3, 39});
    CHECK(a.tokens[22] == a.tokens[7]);  // the second frame repeats the first
}

TEST_CASE("Muse Glimmer's tower: the Qwen2-VL pairs over (column + 1, row + 1), row-major")
{
    const auto t = posenc::hf::parse_vision_tower(R"({"model_type": "muse_glimmer", "vision_config": {}})");
    CHECK(t.tower.rule == posenc::VisionTowerRule::columns_rows_offset_shared);
    CHECK(t.tower.head_dim == 96);
    const posenc::TokenAngles a = posenc::tower_token_angles(t.tower, {1, 3, 5}, posenc::Precision::exact);
    // token 7: row 1, column 2 -> (3, 2); pair 1 reads the column, pair 25 the row, at 1e4^(-4/96)
    CHECK(a.positions[7] == std::vector<double> {3, 2});
    CHECK(a.tokens[7][1] == doctest::Approx(3.0 * std::pow(1e4, -4.0 / 96)).epsilon(1e-15));
    CHECK(a.tokens[7][25] == doctest::Approx(2.0 * std::pow(1e4, -4.0 / 96)).epsilon(1e-15));
    CHECK(a.pairs[25] == std::array<int, 2> {25, 73});
}

TEST_CASE("MiniMax-M3-VL's tower: (frame, row, column) bands of 13 frequencies, the head's last 2 dims unrotated")
{
    const auto t =
        posenc::hf::parse_vision_tower(R"({"model_type": "minimax_m3_vl", "vision_config": {"hidden_size": 1280,
        "num_attention_heads": 16, "spatial_merge_size": 2}})");
    CHECK(t.tower.rule == posenc::VisionTowerRule::frames_rows_columns_partial);
    CHECK(t.tower.head_dim == 80);
    CHECK(t.tower.merge_size == 2);
    const posenc::TokenAngles a = posenc::tower_token_angles(t.tower, {2, 2, 4}, posenc::Precision::exact);
    REQUIRE(a.num_pairs() == 39);  // A = 2 floor(floor(80 / 3) / 2) = 26 dims per axis, 13 pairs
    CHECK(a.pairs[38] == std::array<int, 2> {38, 77});
    // token 15: frame 1, the second merge block's last patch (row 1, column 3)
    CHECK(a.positions[15] == std::vector<double> {1, 1, 3});
    CHECK(a.tokens[15][1] == doctest::Approx(1.0 * std::pow(1e4, -2.0 / 26)).epsilon(1e-15));
    CHECK(a.tokens[15][27] == doctest::Approx(3.0 * std::pow(1e4, -2.0 / 26)).epsilon(1e-15));
    CHECK(a.tokens[3][0] == 0.0);  // frame 0
    CHECK_THROWS_AS(posenc::tower_angle(t.tower, 0, 0, 0), posenc::error);
}

TEST_CASE("SAM 3's ViT: interleaved pairs over (s x column, s x row), the global table and the windowed one")
{
    const auto t = posenc::hf::parse_vision_tower(R"({"model_type": "sam3_vit_model", "hidden_size": 1024,
        "num_attention_heads": 16, "image_size": 1008, "patch_size": 14, "window_size": 24, "rope_theta": 10000.0})");
    CHECK(t.tower.rule == posenc::VisionTowerRule::columns_rows_interleaved_scaled);
    CHECK(t.tower.head_dim == 64);
    CHECK(t.tower.max_side == 72);
    CHECK(t.tower.scale == 24.0 / 72.0);
    REQUIRE(t.warnings.size() == 1);
    CHECK(t.warnings[0].key == "window_size");
    const posenc::TokenAngles a = posenc::tower_token_angles(t.tower, {1, 72, 72}, posenc::Precision::exact);
    // token 72 + 30: row 1, column 30; pair 1 reads the column at 1e4^(-4/64), pair 17 the row
    CHECK(a.tokens[102][1] == doctest::Approx(30.0 / 3 * std::pow(1e4, -4.0 / 64)).epsilon(1e-15));
    CHECK(a.tokens[102][17] == doctest::Approx(1.0 / 3 * std::pow(1e4, -4.0 / 64)).epsilon(1e-15));
    CHECK(a.pairs[17] == std::array<int, 2> {34, 35});
    posenc::VisionTower windowed = t.tower;
    windowed.window = 24;
    windowed.scale = 1.0;
    const posenc::TokenAngles w = posenc::tower_token_angles(windowed, {1, 72, 72}, posenc::Precision::exact);
    CHECK(w.positions[102] == std::vector<double> {6, 1});  // column 30 is column 6 of its window
    CHECK_THROWS_AS(posenc::tower_token_angles(t.tower, {1, 48, 72}), posenc::error);
    posenc::VisionTower qwen;
    qwen.head_dim = 16;
    qwen.scale = 0.5;  // only SAM 3's rule scales
    CHECK_THROWS_AS(qwen.check(), posenc::error);
}

TEST_CASE("Step 3.7's tower: the Qwen2-VL rule, row-major, theta and head from the config")
{
    const auto t = posenc::hf::parse_vision_tower(R"({"model_type": "step3p7", "vision_config": {"hidden_size": 1536,
        "num_attention_heads": 16, "rope_parameters": {"rope_type": "default", "rope_theta": 1e5}}})");
    CHECK(t.tower.rule == posenc::VisionTowerRule::rows_columns_shared);
    CHECK(t.tower.head_dim == 96);
    CHECK(t.tower.theta == 1e5);
    CHECK(t.tower.merge_size == 1);
    const posenc::TokenAngles a = posenc::tower_token_angles(t.tower, {1, 2, 4}, posenc::Precision::exact);
    CHECK(a.positions[5] == std::vector<double> {1, 1});
    CHECK(a.tokens[6][25] == doctest::Approx(2.0 * std::pow(1e5, -4.0 / 96)).epsilon(1e-15));
}

TEST_CASE("DINOv3: 2 pi x patch centres in [-1, 1] x theta^(-4j/H), the CLS token and registers unrotated")
{
    // facebook/dinov3-vits16-pretrain-lvd1689m's config.json (the RoPE keys)
    const auto t = posenc::hf::parse_vision_tower(R"({"model_type": "dinov3_vit", "hidden_size": 384,
        "num_attention_heads": 6, "num_register_tokens": 4, "rope_theta": 100.0, "patch_size": 16, "image_size": 224})");
    CHECK(t.tower.rule == posenc::VisionTowerRule::rows_columns_centres);
    CHECK(t.tower.head_dim == 64);
    CHECK(t.tower.theta == 100.0);
    CHECK(t.tower.prefix_tokens == 5);
    const posenc::TokenAngles a = posenc::tower_token_angles(t.tower, {1, 4, 6}, posenc::Precision::exact);
    REQUIRE(a.num_tokens() == 5 + 24);
    for (std::size_t n = 0; n < 5; ++n)
        for (const double x : a.tokens[n]) CHECK(x == 0.0);
    // token 5 + 8: row 1 of 4 (y = 2 x 1.5 / 4 - 1 = -1/4), column 2 of 6 (x = 2 x 2.5 / 6 - 1 = -1/6)
    CHECK(a.positions[13][0] == doctest::Approx(-0.25).epsilon(1e-15));
    CHECK(a.positions[13][1] == doctest::Approx(-1.0 / 6).epsilon(1e-15));
    const double pi = 3.14159265358979323846;
    CHECK(a.tokens[13][1] == doctest::Approx(2 * pi * -0.25 * std::pow(100.0, -4.0 / 64)).epsilon(1e-15));
    CHECK(a.tokens[13][17] == doctest::Approx(2 * pi * (-1.0 / 6) * std::pow(100.0, -4.0 / 64)).epsilon(1e-15));
    CHECK(a.pairs[17] == std::array<int, 2> {17, 49});
    const auto eomt = posenc::hf::parse_vision_tower(R"({"model_type": "eomt_dinov3"})");
    CHECK(eomt.tower.prefix_tokens == 5);
    CHECK(eomt.tower.head_dim == 64);
    CHECK(posenc::hf::parse_vision_tower(R"({"model_type": "sapiens2"})").tower.prefix_tokens == 9);
    CHECK_THROWS_AS(posenc::tower_angle(t.tower, 0, 0, 0), posenc::error);
    CHECK_THROWS_AS(posenc::tower_centre_angle(t.tower, 1.5, 0, 0), posenc::error);
    CHECK_THROWS_AS(posenc::patch_centre(4, 4), posenc::error);
    CHECK(error_of(R"({"model_type": "dinov3_vit", "num_register_tokens": -1})").find("num_register_tokens") !=
          std::string::npos);
    CHECK(error_of(R"({"model_type": "eomt_dinov3", "rope_parameters": {"rope_type": "yarn", "factor": 2}})")
              .find("rope_type") != std::string::npos);
}

TEST_CASE("DINOv3's float32 angle stays within 2^-20 x 2 pi x f_j of the exact one, up to sides of 2^24 - 1")
{
    for (const auto& head_theta : {std::pair<int, double> {64, 100.0}, std::pair<int, double> {80, 1e4}}) {
        const int head = head_theta.first;  // no structured bindings in captured checks (clang 14)
        const double theta = head_theta.second;
        posenc::VisionTower t;
        t.rule = posenc::VisionTowerRule::rows_columns_centres;
        t.head_dim = head;
        t.theta = theta;
        CAPTURE(head);
        for (const std::int64_t n : {std::int64_t {1}, std::int64_t {3}, std::int64_t {14}, std::int64_t {37},
                                     std::int64_t {4095}, std::int64_t {1} << 20, posenc::max_grid_side})
            for (const std::int64_t i : {std::int64_t {0}, n / 3, n / 2, n - 1}) {
                CAPTURE(n);
                CAPTURE(i);
                const double c32 = posenc::patch_centre(i, n), c = posenc::patch_centre(i, n, posenc::Precision::exact);
                CHECK(std::abs(c32 - c) <= std::ldexp(1.0, -23));
                for (int pair = 0; pair < head / 2; ++pair) {
                    const double exact = posenc::tower_centre_angle(t, c, c, pair, posenc::Precision::exact);
                    const double f32 = posenc::tower_centre_angle(t, c32, c32, pair);
                    const double f = std::pow(theta, -4.0 * (pair % (head / 4)) / head);
                    CHECK(std::abs(f32 - exact) <= std::ldexp(2 * 3.14159265358979323846 * f, -20));
                }
            }
    }
}

// posenc-inspect --config C --tower vision --grid T,H,W --angles --json, through the tool's own
// pieces (tools/posenc-inspect/inspect/tower.hpp), against the sweep: a Qwen2.5-VL wrapper config whose
// vision_config is the swept tower's.
#include "inspect/tower.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>

TEST_CASE("[cli] --tower vision --grid --angles --json gives transformers' per-token angles in pixel_values order")
{
    const nlohmann::json data = load_towers_sweep();
    for (const auto& t : data.at("towers")) {
        if (t.at("model_type") != "qwen2_5_vl_vision") continue;
        const std::string path =
            (std::filesystem::temp_directory_path() / ("posenc-tower-" + std::to_string(::getpid()) + ".json"))
                .string();
        {
            std::ofstream out(path);
            out << nlohmann::json {{"model_type", "qwen2_5_vl"}, {"vision_config", t.at("config")}}.dump();
        }
        const auto& c = t.at("cases")[1];
        const std::string grid = std::to_string(c.at("grid_thw")[0].get<int>()) + "," +
                                 std::to_string(c.at("grid_thw")[1].get<int>()) + "," +
                                 std::to_string(c.at("grid_thw")[2].get<int>());
        const inspect::Options o =
            inspect::parse_options({"--config", path, "--tower", "vision", "--grid", grid, "--angles", "--json"});
        inspect::check_tower_options(o);
        const nlohmann::json j = nlohmann::json::parse(inspect::render_tower_json(inspect::build_tower_report(o)));
        std::remove(path.c_str());
        CHECK(j.at("head_dim") == 224);  // the class default 3584 / 16
        CHECK(j.at("num_tokens") == c.at("angles").size());
        const auto& a = j.at("angles");
        REQUIRE(a.at("tokens").size() == c.at("angles").size());
        CHECK(a.at("positions") == c.at("positions"));
        for (std::size_t n = 0; n < a.at("tokens").size(); ++n)
            for (std::size_t k = 0; k < a.at("tokens")[n].size(); ++k) {
                const double w = c.at("angles")[n][k].get<double>();
                CHECK(std::abs(a.at("tokens")[n][k].get<double>() - w) <= std::ldexp(std::abs(w), -22));
            }
        CHECK(a.at("pairs") == t.at("pairs"));
        return;
    }
    FAIL("qwen2_5_vl_vision missing from the towers sweep");
}

TEST_CASE("[cli] tower usage errors")
{
    const auto usage = [](const std::vector<std::string>& args) -> std::string {
        try {
            inspect::check_tower_options(inspect::parse_options(args));
        } catch (const inspect::UsageError& e) {
            return e.what();
        }
        return "(accepted)";
    };
    CHECK(usage({"--config", "c.json", "--tower", "vision"}).find("needs --grid") != std::string::npos);
    CHECK(usage({"--config", "c.json", "--tower", "audio", "--grid", "1,2,2"}).find("--tower") != std::string::npos);
    CHECK(usage({"--preset", "qwen3-8b", "--tower", "vision", "--grid", "1,2,2"}).find("--config only") !=
          std::string::npos);
    CHECK(usage({"--config", "c.json", "--grid", "1,2,2"}) == "--grid needs --tower vision");
    CHECK(usage({"--config", "c.json", "--tower", "vision", "--grid", "1,2"}).find("T,H,W") != std::string::npos);
    CHECK(usage({"--config", "c.json", "--tower", "vision", "--grid", "1,0,2"}).find("--grid") != std::string::npos);
    CHECK(usage({"--config", "c.json", "--tower", "vision", "--grid", "1,2,2", "--factor", "4"}).find("--factor") !=
          std::string::npos);
    CHECK(usage({"--config", "c.json", "--tower", "vision", "--grid", "1,2,2", "--angles", "--json"}) == "(accepted)");
}
