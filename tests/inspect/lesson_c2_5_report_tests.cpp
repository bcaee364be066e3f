// SPDX-License-Identifier: MIT
// posenc-inspect's reports (tools/posenc-inspect/inspect/report.hpp) against lesson C2-5 (docs/lessons.md,
// #10-#25) and the length rules of docs/cli.md. Each expected number is the lesson's (or, where
// marked, the independent mpmath value of tests/models/hf_config_reference_values.py).
#include "inspect/report.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "scaling/checks.hpp"

#ifndef POSENC_TEST_DATA_DIR
#error "POSENC_TEST_DATA_DIR must point at tests/data"
#endif

namespace inspect_lesson_c2_5_report_tests_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

using posenc_test::relative_error;

namespace {

inspect::Report run(const std::vector<std::string>& args)
{
    return inspect::build_report(inspect::parse_options(args));
}

std::vector<int> range(int first, int last)
{
    std::vector<int> out;
    for (int i = first; i <= last; ++i) out.push_back(i);
    return out;
}

std::string config(const char* file) { return std::string(POSENC_TEST_DATA_DIR) + "/configs/" + file; }

std::string usage_error(const std::vector<std::string>& args)
{
    try {
        run(args);
    } catch (const inspect::UsageError& e) {
        return e.what();
    }
    return "(accepted)";
}

}  // namespace

TEST_CASE("[lesson C2-5 #10, #15, #18] Qwen3-8B, direct extrapolation to x4: 24 of 64 pairs (40-63) out of range")
{
    const auto r = run({"--preset", "qwen3-8b", "--scaling", "none", "--factor", "4"});
    const auto& d = r.diagnostics;
    CHECK(d.training_length == 32768);
    CHECK(d.target_length == 131072);
    CHECK(d.summary.pairs == 64);
    CHECK(d.summary.incomplete_pairs == 24);
    CHECK(d.out_of_range_indices() == range(40, 63));
    CHECK(d.summary.compressed_pairs == 0);
    CHECK(relative_error(d.pairs[0].turns_original, 5215.1891752352264) <= 1e-13);  // "more than 5,000 turns"
}

TEST_CASE("[lesson C2-5 #19] Qwen3-8B, PI x4: 0 out of range, and every pair squashed to 1/4")
{
    const auto d = run({"--preset", "qwen3-8b", "--scaling", "linear", "--factor", "4"}).diagnostics;
    CHECK(d.training_length == 32768);  // the lesson's native length, not max_position_embeddings 40960
    CHECK(d.summary.out_of_range_pairs == 0);
    CHECK(d.summary.compressed_pairs == 64);
    for (const auto& p : d.pairs) CHECK(relative_error(p.compression, 0.25) <= 1e-15);
}

TEST_CASE("[lesson C2-5 #21] Qwen3-8B, NTK-aware x4: 23 pairs (40-62) still out of range; fastest untouched, slowest "
          "exactly 1/4")
{
    const auto d = run({"--preset", "qwen3-8b", "--scaling", "ntk_aware", "--factor", "4"}).diagnostics;
    CHECK(d.out_of_range_indices() == range(40, 62));
    CHECK(d.pairs[0].compression == 1.0);
    CHECK(relative_error(d.pairs[63].compression, 0.25) <= 1e-13);
}

TEST_CASE("[lesson C2-5 #22-#24] Qwen3-8B, YaRN x4: 0 out of range, pairs 0-23 untouched, 40-63 divided by 4, "
          "temperature 1.138629")
{
    const auto r = run({"--preset", "qwen3-8b", "--scaling", "yarn", "--factor", "4"});
    const auto& d = r.diagnostics;
    CHECK(d.summary.out_of_range_pairs == 0);
    CHECK(d.compressed_indices() == range(24, 63));
    for (int i = 0; i <= 23; ++i) CHECK(d.pairs[static_cast<std::size_t>(i)].compression == 1.0);
    for (int i = 40; i <= 63; ++i)
        CHECK(relative_error(d.pairs[static_cast<std::size_t>(i)].compression, 0.25) <= 1e-15);
    CHECK(relative_error(d.pairs[30].compression, 0.69117647058823529) <= 1e-14);  // mpmath: 1 - 7/17 * 3/4
    CHECK(relative_error(d.attention_factor, 1.138629436111989) <= 1e-15);
    CHECK(d.softmax_scale_multiplier == 1.0);
    CHECK(r.scaling == posenc::Scaling {posenc::YarnScaling(4.0, 32768)});
}

TEST_CASE("[lesson C2-5 #16-#17] course small model: 10 of 16 pairs never turn within 128; YaRN x4 interpolates all "
          "but pair 0")
{
    const auto plain = run({"--preset", "course-small"}).diagnostics;
    CHECK(plain.training_length == 128);
    CHECK(plain.target_length == 128);
    CHECK(plain.summary.incomplete_pairs == 10);
    CHECK(relative_error(plain.pairs[0].turns_original, 128 / 6.283185307179586476925) <= 1e-15);  // ~20 turns

    // beta = 32 turns marks no pair as safe: range [0, 6] (mpmath: raw -0.784, 5.236).
    const auto yarn = run({"--preset", "course-small", "--scaling", "yarn", "--factor", "4"}).diagnostics;
    CHECK(yarn.target_length == 512);
    CHECK(yarn.compressed_indices() == range(1, 15));
    CHECK(yarn.summary.out_of_range_pairs == 0);
}

TEST_CASE("[lesson C2-5 #11-#12, #25] Qwen3.8-27B and DeepSeek-V4.1-Flash at their native lengths")
{
    const auto qwen38 = run({"--preset", "qwen3.8-27b"}).diagnostics;
    CHECK(qwen38.training_length == 262144);
    CHECK(qwen38.target_length == 1048576);  // YaRN x4
    CHECK(qwen38.summary.pairs == 32);
    CHECK(qwen38.summary.incomplete_pairs == 10);

    // Every pair turns within 65,536 (slowest period 47,117.2), so direct extrapolation to x16
    // drives no pair out of range -- yet the model ships YaRN x16.
    const auto flash = run({"--preset", "deepseek-v4.1-flash", "--scaling", "none", "--factor", "16"}).diagnostics;
    CHECK(flash.training_length == 65536);
    CHECK(flash.target_length == 1048576);
    CHECK(flash.summary.incomplete_pairs == 0);
    CHECK(flash.summary.out_of_range_pairs == 0);
    CHECK(relative_error(flash.pairs[31].period, 47117.242780167396) <= 1e-13);  // mpmath
    CHECK(run({"--preset", "deepseek-v4.1-flash"}).diagnostics.training_length == 65536);
}

TEST_CASE("[cli length rules] presets: L = the scaling's original length, else the model's; L' = the config's extended "
          "length for llama3 and LongRoPE, else L x factor, else L")
{
    struct Case {
        const char* preset;
        std::int64_t original, target;
    };
    // Lengths from the models' published configs and the lesson's model table.
    for (const Case c : {Case {"qwen3-8b", 32768, 131072}, Case {"qwen3.8-27b", 262144, 1048576},
                         Case {"deepseek-v4.1-flash", 65536, 1048576}, Case {"course-small", 128, 128},
                         Case {"llama-3.1-8b", 8192, 131072}, Case {"deepseek-v3", 4096, 163840},
                         Case {"phi-3-mini-128k", 4096, 131072}, Case {"gpt-oss-20b", 4096, 131072},
                         Case {"mistral-7b", 32768, 32768}}) {
        CAPTURE(std::string(c.preset));
        const auto d = run({"--preset", c.preset}).diagnostics;
        CHECK(d.training_length == c.original);
        CHECK(d.target_length == c.target);
    }
    // --original-length and --length override, also for the model's own scaling.
    const auto d = run({"--preset", "qwen3-8b", "--original-length", "16384", "--length", "50000"});
    CHECK(d.diagnostics.training_length == 16384);
    CHECK(d.diagnostics.target_length == 50000);
    CHECK(d.scaling == posenc::Scaling {posenc::YarnScaling(4.0, 16384)});
    // dynamic NTK is evaluated at the target: b' = 1e6 (4 * 131072 / 32768 - 3)^(128/126) (mpmath).
    const auto dynamic = run({"--preset", "qwen3-8b", "--scaling", "dynamic", "--factor", "4"}).diagnostics;
    CHECK(dynamic.target_length == 131072);
    CHECK(relative_error(dynamic.pairs[1].inv_freq, 0.77369245111870706) <= 1e-13);
}

TEST_CASE("[cli configs] configs read like the presets: Llama-3.1, DeepSeek-V3 (softmax x g(40)^2), Phi-3 (long "
          "factors past 4096)")
{
    const auto llama = run({"--config", config("llama-3.1-8b.json")}).diagnostics;
    CHECK(llama.training_length == 8192);
    CHECK(llama.target_length == 131072);  // max_position_embeddings: llama3's factor 8 is not L'/L
    CHECK(llama.scaling_type == "llama3");

    const auto deepseek = run({"--config", config("deepseek-v3.json"), "--json"});
    CHECK(deepseek.diagnostics.attention_factor == 1.0);
    CHECK(relative_error(deepseek.diagnostics.softmax_scale_multiplier, 1.8738542070926266) <= 4e-16);  // mpmath
    CHECK(deepseek.diagnostics.target_length == 163840);
    CHECK(deepseek.warnings.empty());  // the integer factor 40 is a note: transformers uses it as 40.0
    CHECK_FALSE(deepseek.notes.empty());

    const auto phi3 = run({"--config", config("phi-3-mini-128k-instruct.json")}).diagnostics;
    CHECK(phi3.target_length == 131072);
    CHECK(phi3.attention_factor == 1.1902380714238083);  // sqrt(1 + ln 32 / ln 4096), mpmath
    CHECK(relative_error(phi3.pairs[47].inv_freq, 1.8707961992959698e-6) <= 1e-12);  // long factor, mpmath

    const auto llama2 = run({"--config", config("llama-2-7b.json"), "--scaling", "yarn", "--factor", "2"}).diagnostics;
    CHECK(llama2.training_length == 4096);  // no L0 in the config: max_position_embeddings
    CHECK(llama2.target_length == 8192);
}

TEST_CASE("[cli] refusals: learned tables, bad override values, impossible lengths")
{
    const auto gpt2 = run({"--preset", "gpt2"});
    REQUIRE(gpt2.learned_table.has_value());
    CHECK(gpt2.learned_table->parameters() == 786432);  // lesson C2-2: 1,024 x 768
    CHECK(usage_error({"--preset", "gpt2", "--svg", "x"}) ==
          "GPT-2 uses a learned position table, not RoPE: --layer, --scaling, --compare, --original-length, --length, "
          "--csv and --svg do not apply");
    CHECK(usage_error({"--preset", "qwen3-8b", "--scaling", "linear", "--factor", "0.5"}) ==
          "--factor: must be >= 1 and finite in float32, got \"0.5\"");
    CHECK(usage_error({"--preset", "qwen3-8b", "--scaling", "none", "--factor", "0.5"}) ==
          "--factor: must be >= 1, got \"0.5\"");
    CHECK(usage_error({"--preset", "qwen3-8b", "--scaling", "yarn", "--factor", "4", "--beta-fast", "1", "--beta-slow",
                       "2"}) == "--beta-fast: must be >= beta_slow 2, got \"1\"");
    CHECK(usage_error({"--preset", "qwen3-8b", "--scaling", "longrope"}) ==
          "--scaling longrope needs --short-factor LIST and --long-factor LIST (the model has no LongRoPE lists)");
    CHECK(usage_error({"--preset", "course-small", "--scaling", "longrope", "--short-factor", "1,2", "--long-factor",
                       "1,2", "--factor", "2"}) == "--short-factor (count): must equal rotary_dim / 2 = 16, got 2");
    CHECK(usage_error({"--preset", "qwen3-8b", "--scaling", "none", "--factor", "1e15"}) ==
          "the target length L x factor exceeds 2^50: give --length N");
    // A refused derived quantity names the options that led to it, never a library field as if
    // it were an option (no "--inv-freq[1]").
    const std::string dynamic =
        usage_error({"--preset", "qwen3-8b", "--scaling", "dynamic", "--factor", "1e17", "--length", "100"});
    CAPTURE(dynamic);
    CHECK((dynamic.rfind("--scaling dynamic --factor 1e17 --length 100: ", 0) == 0 ||
           dynamic.rfind("--factor: ", 0) == 0));
    CHECK(dynamic.find("inv-freq") == std::string::npos);
    CHECK(dynamic.find("--inv") == std::string::npos);
    CHECK(usage_error({"--preset", "qwen3-8b", "--scaling", "yarn", "--factor", "4", "--beta-fast", "1.0e0",
                       "--beta-slow", "2"}) == "--beta-fast: must be >= beta_slow 2, got \"1.0e0\"");
    CHECK(usage_error({"--preset", "qwen3_8b"}) ==
          "--preset: no preset named \"qwen3_8b\" (did you mean qwen3-8b?) (see --list-presets)");
    CHECK(usage_error({"--preset", "qwen3-8b", "--layer", "1"}) == "(accepted)");  // one group, every layer
    CHECK(usage_error({"--preset", "phi-3-mini-128k", "--original-length", "1"}) ==
          "--original-length: must be > 1 (the attention factor divides by ln L0), got \"1\"");
}

}  // namespace inspect_lesson_c2_5_report_tests_tests
