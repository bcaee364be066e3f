// SPDX-License-Identifier: MIT
// The config reader's second stage (posenc/models/hf_config.hpp): every config in
// tests/data/configs/ becomes a RopeSpec, a Scaling, lengths and multipliers, checked against
// independent values.
//
// Provenance of the expected values:
//   * "HN" literals are the Hugging Face rules of docs/formulas.md (H12 for the real
//     configs; float32 values there are transformers' own, +-1 ulp of torch);
//   * 17-digit "exact" values are tests/models/hf_config_reference_values.py: the real-number
//     formulas in mpmath at 50 digits (written from the reference, not from posenc);
//   * the scaling parameters are the published config values (tests/data/configs/README.md).
// Checked: float32 tables (Precision::hf_float32) within 2 ulp, exact tables within 1e-12 relative.
#include <posenc/models/hf_config.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "scaling/checks.hpp"

#ifndef POSENC_TEST_DATA_DIR
#error "POSENC_TEST_DATA_DIR must point at tests/data"
#endif

namespace models_hf_config_tests_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

using posenc_test::relative_error;
using posenc_test::ulp_distance;

namespace {

posenc::hf::HfModelRope load(const char* file)
{
    return posenc::hf::single_group(posenc::hf::read_model(std::string(POSENC_TEST_DATA_DIR) + "/configs/" + file));
}

std::string error_of(const std::string& text)
{
    try {
        posenc::hf::single_group(posenc::hf::parse_model(text));
    } catch (const posenc::error& e) {
        return e.what();
    }
    return "(accepted)";
}

struct Expected {
    int pair;
    float hf32;  // 0 when the reference gives no float32 value
    double exact;  // mpmath
};

void check_table(const posenc::hf::HfModelRope& m, const std::vector<Expected>& expected)
{
    const posenc::FrequencyTable exact = m.table();
    const posenc::FrequencyTable f32 = m.table(posenc::Precision::hf_float32);
    for (const Expected& e : expected) {
        CAPTURE(e.pair);
        CHECK(relative_error(exact.inv_freq(e.pair), e.exact) <= 1e-12);
        if (e.hf32 != 0.0f) CHECK(ulp_distance(static_cast<float>(f32.inv_freq(e.pair)), e.hf32) <= 2);
    }
}

template <class T>
const T& scaling_as(const posenc::hf::HfModelRope& m)
{
    REQUIRE(std::holds_alternative<T>(m.scaling));
    return std::get<T>(m.scaling);
}

}  // namespace

TEST_CASE("[H2/H12] Llama-2-7b: default table, theta 10000, inv[1] 0.865964353 ... inv[63] 0.000115478193")
{
    const auto m = load("llama-2-7b.json");
    CHECK(m.spec == posenc::RopeSpec(128, 128, 10000.0, posenc::Pairing::half_split));
    CHECK(std::holds_alternative<posenc::NoScaling>(m.scaling));
    CHECK(m.max_position_embeddings == 4096);
    CHECK(m.original_length == 4096);
    CHECK(m.attention_factor == 1.0);
    CHECK(m.softmax_scale_multiplier == 1.0);
    CHECK(m.softmax_scale() == std::pow(128.0, -0.5));
    check_table(m, {{1, 0.865964353f, 0.86596432336006535},
                    {2, 0.749894202f, 0.74989420933245583},
                    {32, 0.00999999978f, 0.01},
                    {63, 0.000115478193f, 0.00011547819846894582}});
}

TEST_CASE("[H12] CodeLlama-7b and Mistral-7B-v0.1: unscaled, theta 1e6 / 1e4, lengths 16384 / 32768")
{
    const auto code = load("codellama-7b-instruct.json");
    CHECK(code.spec == posenc::RopeSpec(128, 128, 1e6));
    CHECK(std::holds_alternative<posenc::NoScaling>(code.scaling));
    CHECK(code.original_length == 16384);
    check_table(code, {{1, 0.0f, 0.80584218776148182}, {63, 0.0f, 1.2409377607517196e-6}});

    const auto mistral = load("mistral-7b-v0.1.json");
    CHECK(mistral.spec == posenc::RopeSpec(128, 128, 1e4));
    CHECK(std::holds_alternative<posenc::NoScaling>(mistral.scaling));
    CHECK(mistral.max_position_embeddings == 32768);
    CHECK(mistral.original_length == 32768);
    check_table(mistral, {{63, 0.000115478193f, 0.00011547819846894582}});
}

TEST_CASE("[H7/H12] Llama-3.1-8B: llama3 8 / 1 / 4 / 8192; bands 0-28, 29-34, 35-63; inv[28] 0.00321144611 ... inv[63] "
          "3.06892588e-07")
{
    const auto m = load("llama-3.1-8b.json");
    CHECK(m.spec == posenc::RopeSpec(128, 128, 500000.0));
    const auto& llama = scaling_as<posenc::Llama3Scaling>(m);
    CHECK(llama.factor() == 8.0);
    CHECK(llama.low_freq_factor() == 1.0);
    CHECK(llama.high_freq_factor() == 4.0);
    CHECK(llama.original_max_position_embeddings() == 8192);
    CHECK(m.max_position_embeddings == 131072);
    CHECK(m.original_length == 8192);
    CHECK(m.attention_factor == 1.0);
    check_table(m, {{0, 1.0f, 1.0},
                    {28, 0.00321144611f, 0.003211445994752591},
                    {29, 0.00216657063f, 0.0021665707635033586},
                    {34, 0.000178507791f, 0.00017850781276799642},
                    {35, 9.55621217e-05f, 9.556212353964683e-5},
                    {63, 3.06892588e-07f, 3.0689259889145111e-7}});
    const auto bands = posenc::llama3_bands(m.spec, llama);
    for (int j = 0; j < 64; ++j) {
        CAPTURE(j);
        const auto expected = j <= 28   ? posenc::Llama3Band::kept
                              : j <= 34 ? posenc::Llama3Band::smoothed
                                        : posenc::Llama3Band::divided;
        CHECK(bands[static_cast<std::size_t>(j)] == expected);
    }
}

TEST_CASE("[H7/H12] Llama-3.2-1B: 2048/32 = 64, llama3 factor 32; bands 0-14, 15-17, 18-31")
{
    const auto m = load("llama-3.2-1b.json");
    CHECK(m.spec == posenc::RopeSpec(64, 64, 500000.0));
    const auto& llama = scaling_as<posenc::Llama3Scaling>(m);
    CHECK(llama.factor() == 32.0);
    const auto bands = posenc::llama3_bands(m.spec, llama);
    for (int j = 0; j < 32; ++j) {
        CAPTURE(j);
        const auto expected = j <= 14   ? posenc::Llama3Band::kept
                              : j <= 17 ? posenc::Llama3Band::smoothed
                                        : posenc::Llama3Band::divided;
        CHECK(bands[static_cast<std::size_t>(j)] == expected);
    }
}

TEST_CASE("[H5/H12] Qwen YaRN x4 in three spellings: range [23, 40], attention 1.138629436111989, inv[23] "
          "0.00697830599 ... inv[40] 4.44569851e-05")
{
    // Qwen3-8B with its README snippet (rope_type), Qwen2.5-7B's (legacy type), and v5 rope_parameters.
    struct File {
        const char* name;
        std::int64_t max_position_embeddings;
    };
    for (const File f : {File {"qwen3-8b-yarn.json", 40960}, File {"qwen2.5-7b-instruct-yarn.json", 32768},
                         File {"qwen3-8b-v5-rope-parameters.json", 131072}}) {
        CAPTURE(f.name);
        const auto m = load(f.name);
        CHECK(m.spec == posenc::RopeSpec(128, 128, 1e6));
        const auto& yarn = scaling_as<posenc::YarnScaling>(m);
        CHECK(yarn.factor() == 4.0);
        CHECK(yarn.original_max_position_embeddings() == 32768);
        CHECK(yarn.beta_fast() == 32.0);
        CHECK(yarn.beta_slow() == 1.0);
        CHECK(yarn.rounding() == posenc::YarnCorrectionRounding::floor_ceil);
        CHECK(m.max_position_embeddings == f.max_position_embeddings);
        CHECK(m.original_length == 32768);
        CHECK(m.attention_factor == 1.138629436111989);
        CHECK(m.softmax_scale_multiplier == 1.0);
        const auto range = posenc::yarn_correction_range(m.spec, yarn);
        CHECK(range.low == 23.0);
        CHECK(range.high == 40.0);
        check_table(m, {{23, 0.00697830599f, 0.0069783058485986634},
                        {24, 0.00537532149f, 0.0053753214907901015},
                        {30, 0.0f, 0.0010643609812470018},
                        {39, 6.4903943e-05f, 6.4903943208370288e-5},
                        {40, 4.44569851e-05f, 4.445698525097307e-5}});
    }
}

TEST_CASE("[H8/H12] DeepSeek-V3: yarn x40 over 4096, range [10, 23], cos/sin factor 1, softmax x g(40)^2, scale "
          "0.1352337788608801")
{
    const auto m = load("deepseek-v3.json");
    CHECK(m.spec == posenc::RopeSpec(64, 64, 10000.0, posenc::Pairing::interleaved));
    const auto& yarn = scaling_as<posenc::YarnScaling>(m);
    CHECK(yarn.factor() == 40.0);
    CHECK(yarn.original_max_position_embeddings() == 4096);
    CHECK(yarn.mscale() == 1.0);
    CHECK(yarn.mscale_all_dim() == 1.0);
    CHECK(m.max_position_embeddings == 163840);
    CHECK(m.original_length == 4096);
    CHECK(m.qk_head_dim == 192);
    CHECK(m.attention_factor == 1.0);  // g(40, 1) / g(40, 1)
    CHECK(relative_error(m.softmax_scale_multiplier, 1.8738542070926266) <= 4e-16);  // mpmath g(40)^2
    CHECK(relative_error(m.softmax_scale(), 0.1352337788608801) <= 2e-16);  // H12
    const auto range = posenc::yarn_correction_range(m.spec, yarn);
    CHECK(range.low == 10.0);
    CHECK(range.high == 23.0);
    check_table(m, {{10, 0.0562341288f, 0.056234132519034908},
                    {11, 0.0390069261f, 0.039006926567143858},
                    {22, 0.00017782794f, 0.00017782794100389228},
                    {23, 3.3338034e-05f, 3.3338035804083101e-5}});
}

TEST_CASE("[H5/H12] gpt-oss-20b: yarn x32 without truncation, range 8.0928 .. 17.398, attention 1.3465735902799727")
{
    const auto m = load("gpt-oss-20b.json");
    CHECK(m.spec == posenc::RopeSpec(64, 64, 150000.0));
    const auto& yarn = scaling_as<posenc::YarnScaling>(m);
    CHECK(yarn.factor() == 32.0);
    CHECK(yarn.rounding() == posenc::YarnCorrectionRounding::fractional);
    CHECK(m.original_length == 4096);
    CHECK(m.max_position_embeddings == 131072);
    CHECK(m.attention_factor == 1.3465735902799727);  // H12: 0.1 ln 32 + 1
    CHECK(m.softmax_scale_multiplier == 1.0);
    const auto range = posenc::yarn_correction_range(m.spec, yarn);
    CHECK(relative_error(range.low, 8.092779115512402) <= 1e-14);  // H12 (= vLLM PR #28244)
    CHECK(relative_error(range.high, 17.39802450158856) <= 1e-14);
    check_table(m, {{0, 1.0f, 1.0},
                    {1, 0.689044297f, 0.68904430588816327},
                    {8, 0.0508132726f, 0.050813274815461474},
                    {9, 0.0317056961f, 0.031705696184663766},
                    {17, 0.000129318694f, 0.00012931870124506272},
                    {18, 3.83088118e-05f, 3.8308812373753383e-5},
                    {31, 3.0235114e-07f, 3.0235114281192144e-7}});
}

TEST_CASE("[H6/H12] Phi-3-mini-128k: longrope over 4096, s 32, attention 1.1902380714238083; short table at init, long "
          "past 4096")
{
    const auto m = load("phi-3-mini-128k-instruct.json");
    CHECK(m.spec == posenc::RopeSpec(96, 96, 10000.0));
    const auto& longrope = scaling_as<posenc::LongRopeScaling>(m);
    CHECK(longrope.factor() == 32.0);
    CHECK(longrope.original_max_position_embeddings() == 4096);
    CHECK(longrope.short_factor().size() == 48);
    CHECK(m.original_length == 4096);
    CHECK(m.max_position_embeddings == 131072);
    CHECK(m.attention_factor == 1.1902380714238083);  // H12, Python double
    // init and any length <= 4096: the short factors; 4097 and beyond: the long ones (H6).
    const posenc::FrequencyTable init = m.table();
    const posenc::FrequencyTable at_l0 = m.table(4096);
    const posenc::FrequencyTable past = m.table(4097);
    CHECK(relative_error(init.inv_freq(0), 0.90909090909090902) <= 1e-12);
    CHECK(relative_error(init.inv_freq(47), 3.9722218315691461e-5) <= 1e-12);
    CHECK(at_l0.inv_freq() == init.inv_freq());
    CHECK(relative_error(past.inv_freq(0), 0.93457939343865418) <= 1e-12);
    CHECK(relative_error(past.inv_freq(47), 1.8707961992959698e-6) <= 1e-12);
    CHECK(past.attention_factor() == init.attention_factor());
}

TEST_CASE("[H10/H12] partial rotary and interleaved families: GLM-4 64 of 128, Pythia 16 of 64, Phi-2 32 of 80, GPT-J "
          "64 of 256")
{
    const auto glm = load("glm-4-9b-chat-hf.json");
    CHECK(glm.spec == posenc::RopeSpec(128, 64, 10000.0, posenc::Pairing::interleaved));
    check_table(glm, {{31, 0.0f, 0.0001333521432163324}});

    const auto pythia = load("pythia-70m.json");
    CHECK(pythia.spec == posenc::RopeSpec(64, 16, 10000.0, posenc::Pairing::half_split));
    CHECK(pythia.original_length == 2048);
    check_table(pythia, {{1, 0.0f, 0.31622776601683793}, {7, 0.0f, 0.00031622776601683793}});

    const auto phi2 = load("phi-2.json");
    CHECK(phi2.spec == posenc::RopeSpec(80, 32, 10000.0));
    check_table(phi2, {{15, 0.0f, 0.00017782794100389228}});

    const auto gptj = load("gpt-j-6b.json");
    CHECK(gptj.spec == posenc::RopeSpec(256, 64, 10000.0, posenc::Pairing::interleaved));
    CHECK(gptj.max_position_embeddings == 2048);
    CHECK(gptj.original_length == 2048);
    check_table(gptj, {{31, 0.0f, 0.0001333521432163324}});
}

TEST_CASE("[H11] the JSON stage's notes survive the second stage; official configs get no warning they cannot act on")
{
    // Qwen3-8B's YaRN card: factor 4 while 40960 / 32768 = 1.25; transformers uses the factor. A note, not a warning.
    const auto qwen3 = load("qwen3-8b-yarn.json");
    CHECK(qwen3.warnings.empty());
    bool factor_noted = false;
    for (const auto& n : qwen3.notes) factor_noted |= n.rfind("rope_scaling.factor 4 is used", 0) == 0;
    CHECK(factor_noted);

    // DeepSeek-V3's integer factor 40: transformers logs and uses it; nothing for the user to change.
    const auto deepseek = load("deepseek-v3.json");
    CHECK(deepseek.warnings.empty());
    bool integer_noted = false;
    for (const auto& n : deepseek.notes) integer_noted |= n.rfind("rope_scaling.factor is an integer (40)", 0) == 0;
    CHECK(integer_noted);

    // Phi-3-mini-128k: its top-level original_max_position_embeddings is read without a warning.
    CHECK(load("phi-3-mini-128k-instruct.json").warnings.empty());

    CHECK(load("llama-3.1-8b.json").warnings.empty());
}

TEST_CASE("[H4] dynamic NTK: the reference length is max_position_embeddings, and the init table is the default one")
{
    const auto m = posenc::hf::single_group(posenc::hf::parse_model(
        R"({"head_dim": 128, "max_position_embeddings": 4096, "rope_theta": 10000.0,
            "rope_scaling": {"rope_type": "dynamic", "factor": 2.0, "original_max_position_embeddings": 1024}})"));
    const auto& dynamic = scaling_as<posenc::DynamicNtkScaling>(m);
    CHECK(dynamic.max_position_embeddings() == 4096);  // not 1024: HF never reads it (H4)
    CHECK(m.original_length == 4096);
    check_table(m, {{63, 0.000115478193f, 0.00011547819846894582}});
    // Section 4: b' at n = 8192 is 30527.73675 (R 128, b 1e4, L 4096, s 2).
    CHECK(relative_error(posenc::dynamic_ntk_base(m.spec, dynamic, 8192), 30527.73675) <= 1e-9);
}

TEST_CASE("[H5/H8] YaRN options: zero betas mean the defaults, explicit attention_factor wins, mscale_all_dim outside "
          "MLA is only a note")
{
    const auto m = posenc::hf::single_group(posenc::hf::parse_model(
        R"({"head_dim": 128, "max_position_embeddings": 131072, "rope_theta": 1000000.0,
            "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768,
                             "beta_fast": 0, "beta_slow": 0, "mscale": 1.0, "mscale_all_dim": 1.0}})"));
    const auto& yarn = scaling_as<posenc::YarnScaling>(m);
    CHECK(yarn.beta_fast() == 32.0);
    CHECK(yarn.beta_slow() == 1.0);
    CHECK(m.attention_factor == 1.0);  // g(4, 1) / g(4, 1)
    CHECK(m.softmax_scale_multiplier == 1.0);  // not DeepSeek: Llama-style attention never applies it
    CHECK(m.notes.size() == 1);

    const auto explicit_factor = posenc::hf::single_group(posenc::hf::parse_model(
        R"({"head_dim": 64, "max_position_embeddings": 8192,
            "rope_scaling": {"rope_type": "yarn", "factor": 2.0, "attention_factor": 1.5}})"));
    CHECK(explicit_factor.attention_factor == 1.5);  // mlx-lm PR #1507: explicit value verbatim
}

TEST_CASE("[errors] values the library refuses are reported with the config key path")
{
    // 1e308 passes JSON (a finite double) but not posenc: Hugging Face rounds the factor to float32.
    CHECK(error_of(R"({"head_dim": 64, "rope_scaling": {"type": "linear", "factor": 1e308}})") ==
          "rope_scaling.factor: must be >= 1 and finite in float32, got 1e+308");
    CHECK(error_of(R"({"head_dim": 64, "max_position_embeddings": 4096,
                       "rope_parameters": {"rope_type": "yarn", "factor": 1e300, "original_max_position_embeddings": 1}})") ==
          "rope_parameters.factor: must be >= 1 and finite in float32, got 1e+300");
    CHECK(error_of(R"({"head_dim": 64, "max_position_embeddings": 4096,
                       "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "beta_fast": 1.0, "beta_slow": 32.0}})") ==
          "rope_scaling.beta_fast: must be >= beta_slow 32, got 1");
    CHECK(error_of(R"({"head_dim": 64, "max_position_embeddings": 4096,
                       "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "mscale": -1.0}})") ==
          "rope_scaling.mscale: must be finite and >= 0, got -1");
    CHECK(error_of(R"({"head_dim": 64, "max_position_embeddings": 4096,
                       "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "attention_factor": 0.0}})") ==
          "rope_scaling.attention_factor: must be finite and > 0, got 0");
    CHECK(error_of(R"({"head_dim": 64, "max_position_embeddings": 131072,
                       "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 4.0,
                                        "high_freq_factor": 1.0, "original_max_position_embeddings": 8192}})") ==
          "rope_scaling.low_freq_factor: must be <= high_freq_factor 1, got 4");
    CHECK(error_of(R"({"head_dim": 4, "max_position_embeddings": 100,
                       "rope_scaling": {"rope_type": "longrope", "short_factor": [1.0, 1e308], "long_factor": [1.0, 2.0],
                                        "original_max_position_embeddings": 10, "factor": 2.0}})") ==
          "rope_scaling.short_factor[1]: must be > 0 and finite in float32, got 1e+308");
    // Phi-3 style: the factor is derived from the lengths, and the key path says so (refused by the
    // JSON stage already, as YaRN's derived factor is).
    CHECK(error_of(R"({"head_dim": 4, "max_position_embeddings": 2048, "original_max_position_embeddings": 4096,
                       "rope_scaling": {"type": "longrope", "short_factor": [1.0, 1.0], "long_factor": [1.0, 2.0]}})") ==
          "max_position_embeddings / original_max_position_embeddings: expected a number >= 1, got 0.5");
    // The NTK family needs rotary_dim > 2; the key is where rotary_dim came from.
    CHECK(error_of(R"({"head_dim": 4, "partial_rotary_factor": 0.5, "max_position_embeddings": 64,
                       "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}})") ==
          "partial_rotary_factor: must be > 2 for dynamic scaling (exponent R / (R - 2)), got 2");
    // The field of the thrown error is the key path too.
    try {
        posenc::hf::single_group(
            posenc::hf::parse_model(R"({"head_dim": 64, "rope_scaling": {"type": "linear", "factor": 1e308}})"));
        FAIL("accepted");
    } catch (const posenc::error& e) {
        CHECK(e.field() == "rope_scaling.factor");
        CHECK(e.value() == "1e+308");
        CHECK(e.rule() == "must be >= 1 and finite in float32");
    }
}

TEST_CASE("[errors] hostile configs through both stages: huge lists, huge heads, huge bases, deep junk, NaN spellings")
{
    // 10,000-element factor lists: refused when they do not match rotary_dim / 2 ...
    std::string list = "[";
    for (int i = 0; i < 10000; ++i) list += (i ? ",1.5" : "1.5");
    list += "]";
    const std::string longrope =
        R"("rope_scaling": {"type": "longrope", "short_factor": )" + list + R"(, "long_factor": )" + list + "}}";
    CHECK(error_of(R"({"head_dim": 96, "max_position_embeddings": 131072, "original_max_position_embeddings": 4096, )" +
                   longrope) == "rope_scaling.short_factor: expected 48 numbers (rotary_dim / 2), got 10000 numbers");
    // ... and accepted when the head really has 10,000 pairs.
    const auto wide = posenc::hf::single_group(posenc::hf::parse_model(
        R"({"head_dim": 20000, "max_position_embeddings": 131072, "original_max_position_embeddings": 4096, )" +
        longrope));
    CHECK(wide.spec.num_pairs() == 10000);
    CHECK(wide.table().num_pairs() == 10000);

    CHECK(error_of(R"({"head_dim": 2000000000})") ==
          "head_dim: expected a head of at most 65536 dimensions, got 2000000000");
    CHECK(error_of(R"({"hidden_size": 2000000000, "num_attention_heads": 2})") ==
          "hidden_size / num_attention_heads: expected a head of at most 65536 dimensions, got 1000000000");
    CHECK(error_of(R"({"head_dim": 45})") ==
          "head_dim: expected a rotary_dim that is even, > 0 and <= head_dim 45, got 45");

    // A base of 1e308 is a valid spec; the table is finite and positive.
    const auto huge_base =
        posenc::hf::single_group(posenc::hf::parse_model(R"({"head_dim": 64, "rope_theta": 1e308})"));
    CHECK(huge_base.table().inv_freq(31) > 0.0);

    // Junk nested 60 deep under an unknown key is ignored; 65 deep is refused before parsing.
    const auto nested = [](int depth) {
        return R"({"head_dim": 64, "junk": )" + std::string(static_cast<std::size_t>(depth), '[') +
               std::string(static_cast<std::size_t>(depth), ']') + "}";
    };
    CHECK(error_of(nested(60)) == "(accepted)");
    CHECK(error_of(nested(64)) == "config: expected JSON nested at most 64 levels deep, got deeper nesting");

    CHECK(error_of(R"({"head_dim": 64, "rope_theta": "NaN"})") == "rope_theta: expected a finite number, got \"NaN\"");
    CHECK(error_of(R"({"head_dim": 64, "rope_theta": -Infinity})").rfind("config: expected valid JSON", 0) == 0);
    CHECK(error_of(R"({"head_dim": 64, "max_position_embeddings": 4096,
                       "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": "4096"}})") ==
          "rope_scaling.original_max_position_embeddings: expected a positive integer, got \"4096\"");
    CHECK(error_of(R"({"head_dim": 64, "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "beta_fast": [32]}})") ==
          "rope_scaling.beta_fast: expected a finite number, got [32]");
}

}  // namespace models_hf_config_tests_tests
