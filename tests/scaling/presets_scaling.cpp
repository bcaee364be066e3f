// SPDX-License-Identifier: MIT
// Presets: the lessons' models with their YaRN scalings (lesson C2-5 table) and the real models
// of H12 (docs/formulas.md). Expected values are the H12 table's and the lesson's.
#include <posenc/models/presets.hpp>
#include <posenc/rotation.hpp>
#include <posenc/scaling/scaling.hpp>
#include <posenc/spec.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <variant>

#include "scaling/checks.hpp"

namespace scaling_presets_scaling_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

TEST_CASE("[presets] the names posenc-inspect needs all resolve, and every RoPE preset builds a spec and a scaling")
{
    for (const char* name : {"qwen3-8b", "qwen3.8-27b", "deepseek-v4.1-flash", "course-small", "gpt2", "llama-3.1-8b",
                             "deepseek-v3", "phi-3-mini-128k", "gpt-oss-20b", "mistral-7b", "llama-3.2-1b",
                             "qwen2.5-7b", "codellama-7b", "pythia-70m", "phi-2", "llama-2-7b"}) {
        CAPTURE(name);
        CHECK(std::string(posenc::models::find_preset(name).name) == name);
    }
    for (const posenc::ModelPreset& p : posenc::models::all_presets) {
        CAPTURE(std::string(p.name));
        CHECK_NOTHROW(p.scaling());
        if (p.kind != posenc::PositionEncodingKind::rope) continue;
        const posenc::FrequencyTable table = posenc::frequency_table(p.rope_spec(), p.scaling());
        CHECK(table.num_pairs() == p.rotary_dim / 2);
        CHECK(p.native_length <= p.extended_length);
    }
    CHECK(std::holds_alternative<posenc::NoScaling>(posenc::models::gpt2.scaling()));
}

TEST_CASE("[lesson C2-5 #14] the lesson presets carry YaRN x4, x4, x16 over their native lengths")
{
    const auto yarn = [](const posenc::ModelPreset& p) { return std::get<posenc::YarnScaling>(p.scaling()); };
    CHECK(yarn(posenc::models::qwen3_8b) == posenc::YarnScaling(4.0, 32768));
    CHECK(yarn(posenc::models::qwen3_8_27b) == posenc::YarnScaling(4.0, 262144));
    CHECK(yarn(posenc::models::deepseek_v4_1_flash) == posenc::YarnScaling(16.0, 65536));
    for (const posenc::ModelPreset* p :
         {&posenc::models::qwen3_8b, &posenc::models::qwen3_8_27b, &posenc::models::deepseek_v4_1_flash}) {
        CHECK(yarn(*p).original_max_position_embeddings() == p->native_length);
        CHECK(static_cast<double>(p->extended_length) == yarn(*p).factor() * static_cast<double>(p->native_length));
    }
    CHECK(std::holds_alternative<posenc::NoScaling>(posenc::models::course_small.scaling()));
    CHECK(posenc::models::qwen3_8b.max_position_embeddings == 40960);  // Qwen3-8B config.json (H12)
}

TEST_CASE("[H12] real-model dims, bases and scalings")
{
    using namespace posenc::models;
    // Llama-3.1-8B: 128 (128), 500000, max_pos 131072, llama3 {8, 1, 4, 8192}.
    CHECK(llama_3_1_8b.rope_spec() == posenc::RopeSpec(128, 128, 5e5));
    CHECK(std::get<posenc::Llama3Scaling>(llama_3_1_8b.scaling()) == posenc::Llama3Scaling(8.0, 1.0, 4.0, 8192));
    CHECK(llama_3_1_8b.max_position_embeddings == 131072);
    // Llama-3.2-1B: 2048/32 = 64, llama3 factor 32.
    CHECK(llama_3_2_1b.d_model / llama_3_2_1b.num_heads == 64);
    CHECK(std::get<posenc::Llama3Scaling>(llama_3_2_1b.scaling()).factor() == 32.0);
    // DeepSeek-V3: qk_rope 64, interleaved, yarn factor 40 L0 4096 mscale 1/1, max_pos 163840 = 40 x 4096.
    CHECK(deepseek_v3.rope_spec() == posenc::RopeSpec(64, 64, 1e4, posenc::Pairing::interleaved));
    const auto ds = std::get<posenc::YarnScaling>(deepseek_v3.scaling());
    CHECK(ds.factor() == 40.0);
    CHECK(ds.mscale() == 1.0);
    CHECK(ds.mscale_all_dim() == 1.0);
    CHECK(deepseek_v3.max_position_embeddings == 40 * 4096);
    CHECK(posenc::deepseek_softmax_scale(deepseek_v3.qk_head_dim, ds) ==
          doctest::Approx(0.13523377886).epsilon(1e-10));  // H8
    // Phi-3-mini-128k: 3072/32 = 96, longrope, L0 4096, 48 factors each.
    CHECK(phi_3_mini_128k.d_model / phi_3_mini_128k.num_heads == 96);
    const auto phi3 = std::get<posenc::LongRopeScaling>(phi_3_mini_128k.scaling());
    CHECK(phi3.short_factor().size() == 48);
    CHECK(phi3.long_factor().front() == 1.0700000524520874);
    CHECK(phi3.long_factor().back() == 64.76000213623047);
    CHECK(phi3.short_factor().back() == 3.049999999999997);
    // gpt-oss-20b: head_dim 64 although 2880 / 64 = 45; yarn factor 32, truncate false.
    CHECK(gpt_oss_20b.d_model / gpt_oss_20b.num_heads == 45);
    CHECK(gpt_oss_20b.rope_spec() == posenc::RopeSpec(64, 64, 150000.0));
    CHECK(std::get<posenc::YarnScaling>(gpt_oss_20b.scaling()).rounding() ==
          posenc::YarnCorrectionRounding::fractional);
    // Qwen2.5-7B: 3584/28 = 128, theta 1e6, max_pos 32768, README yarn factor 4 over 32768.
    CHECK(qwen2_5_7b.d_model / qwen2_5_7b.num_heads == 128);
    CHECK(std::get<posenc::YarnScaling>(qwen2_5_7b.scaling()) == posenc::YarnScaling(4.0, 32768));
    CHECK(qwen2_5_7b.max_position_embeddings == 32768);
    // Mistral-7B-v0.1, CodeLlama-7b, Llama-2-7b: no scaling; theta 1e4 / 1e6 / 1e4.
    CHECK(std::holds_alternative<posenc::NoScaling>(mistral_7b.scaling()));
    CHECK(mistral_7b.base == 1e4);
    CHECK(codellama_7b.base == 1e6);
    CHECK(codellama_7b.max_position_embeddings == 16384);
    CHECK(llama_2_7b.base == 1e4);
    // Pythia-70m (rotary_pct 0.25 of 64) and Phi-2 (0.4 of 80): HF's int(H * prf).
    CHECK(pythia_70m.rope_spec() == posenc::RopeSpec::from_partial_rotary_factor(64, 0.25, 1e4));
    CHECK(phi_2.rope_spec() == posenc::RopeSpec::from_partial_rotary_factor(80, 0.4, 1e4));
    CHECK(phi_2.rope_spec().rotary_dim() == 32);
}

}  // namespace scaling_presets_scaling_tests
