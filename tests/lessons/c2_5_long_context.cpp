// SPDX-License-Identifier: MIT
// Lesson C2-5 "can a computable encoding read long text?" (docs/lessons.md).
// Expected values are the lesson's own numbers (docs/lessons.md items 14-26) or closed
// forms from its text; the checked values come from posenc's public API (items 18-26 through the
// diagnostics of include/posenc/analysis/diagnostics.hpp, the lesson's widget as data).
#include <posenc/analysis/diagnostics.hpp>
#include <posenc/analysis/pi_bound.hpp>
#include <posenc/analysis/roformer_bound.hpp>
#include <posenc/models/presets.hpp>
#include <posenc/scaling/scaling.hpp>
#include <posenc/spec.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

namespace lessons_c2_5_long_context_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {
constexpr double pi = 3.14159265358979323846;
}

TEST_CASE("[lesson C2-5 #14] the model table: rotary dims, native and extended lengths")
{
    using posenc::models::find_preset;
    const posenc::ModelPreset& qwen3 = find_preset("qwen3-8b");
    CHECK(qwen3.base == 1'000'000.0);
    CHECK(qwen3.rope_spec().rotary_dim() == 128);
    CHECK(qwen3.rope_spec().rotary_dim() == qwen3.rope_spec().head_dim());  // "128 (all)"
    CHECK(qwen3.native_length == 32'768);
    CHECK(qwen3.extended_length == 4 * 32'768);  // YaRN x4 -> 131,072
    CHECK(qwen3.extended_length == 131'072);

    const posenc::ModelPreset& qwen38 = find_preset("qwen3.8-27b");
    CHECK(qwen38.base == 10'000'000.0);
    CHECK(qwen38.rope_spec().rotary_dim() == 64);
    CHECK(qwen38.rope_spec().head_dim() == 256);  // "64 (25% of each head's 256 dims)"
    CHECK(static_cast<double>(qwen38.rope_spec().rotary_dim()) / qwen38.rope_spec().head_dim() == 0.25);
    CHECK(qwen38.native_length == 262'144);
    CHECK(qwen38.extended_length == 4 * 262'144);  // "about 1,000,000 (4 x 262,144 = 1,048,576)"
    CHECK(qwen38.extended_length == 1'048'576);

    const posenc::ModelPreset& deepseek = find_preset("deepseek-v4.1-flash");
    CHECK(deepseek.base == 10'000.0);
    CHECK(deepseek.rope_spec().rotary_dim() == 64);
    CHECK(deepseek.rope_spec().head_dim() == 512);
    CHECK(deepseek.native_length == 65'536);
    CHECK(deepseek.extended_length == 16 * 65'536);  // "65,536 x YaRN 16 = 1,048,576"
    CHECK(deepseek.extended_length == 1'048'576);
}

TEST_CASE("[lesson C2-5 #15] Qwen3's fastest pair turns more than 5,000 times within 32,768 (32768 / 2pi = 5215.19)")
{
    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(posenc::models::qwen3_8b.rope_spec());
    CHECK(table.inv_freq(0) == 1.0);  // theta_0 = base^0
    CHECK(table.turns(0, 32768) > 5000.0);
    CHECK(table.turns(0, 32768) == doctest::Approx(32768.0 / (2.0 * pi)).epsilon(1e-15));
    CHECK(table.turns(0, 32768) == doctest::Approx(5215.19).epsilon(1e-6));
}

TEST_CASE(
    "[lesson C2-5 #16] the course's small model: 32 dims per head (256 / 8), 10 of 16 pairs never turn within 128")
{
    const posenc::ModelPreset& small = posenc::models::find_preset("course-small");
    CHECK(small.d_model / small.num_heads == 32);
    const posenc::RopeSpec spec = small.rope_spec();
    CHECK(spec.head_dim() == small.d_model / small.num_heads);
    CHECK(spec.base() == 10'000.0);
    CHECK(small.native_length == 128);

    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
    CHECK(table.num_pairs() == 16);
    CHECK(table.count_without_full_turn(128) == 10);
    std::vector<int> expected;
    for (int i = 6; i <= 15; ++i) expected.push_back(i);  // docs/lessons.md: i = 6..15
    CHECK(table.pairs_without_full_turn(128) == expected);
}

TEST_CASE(
    "[lesson C2-5 #17] the small model's fastest pair turns only ~20 times within 128, fewer than YaRN's beta = 32")
{
    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(posenc::models::course_small.rope_spec());
    CHECK(table.turns(0, 128) == doctest::Approx(128.0 / (2.0 * pi)).epsilon(1e-15));  // 20.37
    CHECK(table.turns(0, 128) == doctest::Approx(20.37).epsilon(1e-3));
    // beta = 32 turns marks a pair "safe"; no pair reaches it, so every pair has fewer turns.
    for (int i = 0; i < table.num_pairs(); ++i) CHECK(table.turns(i, 128) < 32.0);
}

TEST_CASE("[lesson C2-5 #25] DeepSeek-V4.1-Flash: every pair turns within 65,536 (slowest period 47,117.2)")
{
    const posenc::FrequencyTable table =
        posenc::FrequencyTable::from_spec(posenc::models::deepseek_v4_1_flash.rope_spec());
    CHECK(table.num_pairs() == 32);
    CHECK(table.count_without_full_turn(65536) == 0);
    CHECK(table.period(31) == doctest::Approx(47117.2).epsilon(1e-6));
    // closed form: 2pi * 10000^(62/64)
    CHECK(table.period(31) == doctest::Approx(2.0 * pi * std::pow(10000.0, 62.0 / 64.0)).epsilon(1e-14));
}

// ---------------------------------------------------------------- items 18-26: the widget

namespace {
std::vector<int> range_of(int first, int last)
{
    std::vector<int> v;
    for (int i = first; i <= last; ++i) v.push_back(i);
    return v;
}

posenc::ExtensionDiagnostics qwen3_x4(const posenc::Scaling& scaling)
{
    // Qwen3-8B trained on 32,768, read at 4 x 32,768 = 131,072 (lesson table).
    return posenc::extension_diagnostics(posenc::models::qwen3_8b.rope_spec(), scaling, 32768, 131072);
}
}  // namespace

TEST_CASE("[lesson C2-5 #12] YaRN x4: Qwen3 32,768 -> 131,072; Qwen3.8 262,144 -> 1,048,576 (the presets' scalings)")
{
    // docs/lessons.md lists item 12 under lesson C2-2; the C2-5 model table repeats it.
    const auto yarn_of = [](const posenc::ModelPreset& p) { return std::get<posenc::YarnScaling>(p.scaling()); };
    const posenc::YarnScaling qwen3 = yarn_of(posenc::models::qwen3_8b);
    CHECK(qwen3.factor() == 4.0);
    CHECK(qwen3.original_max_position_embeddings() == 32'768);
    CHECK(qwen3.factor() * qwen3.original_max_position_embeddings() == 131'072);
    const posenc::YarnScaling qwen38 = yarn_of(posenc::models::qwen3_8_27b);
    CHECK(qwen38.factor() == 4.0);
    CHECK(qwen38.original_max_position_embeddings() == 262'144);
    CHECK(qwen38.factor() * qwen38.original_max_position_embeddings() == 1'048'576);
}

TEST_CASE(
    "[lesson C2-5 #18] direct extrapolation of Qwen3-8B to 4x: the 24 pairs that never turned reach unseen angles")
{
    const posenc::ExtensionDiagnostics d = qwen3_x4(posenc::NoScaling {});
    CHECK(d.summary.incomplete_pairs == 24);
    CHECK(d.summary.out_of_range_pairs == 24);  // the red bars
    CHECK(d.out_of_range_indices() == range_of(40, 63));
    CHECK(d.summary.compressed_pairs == 0);
}

TEST_CASE(
    "[lesson C2-5 #19] Position Interpolation (m -> m/s): 0 pairs out of range, every pair's angle step shrinks to 1/s")
{
    const posenc::ExtensionDiagnostics d = qwen3_x4(posenc::LinearScaling(4.0));
    CHECK(d.summary.out_of_range_pairs == 0);
    CHECK(d.summary.compressed_pairs == 64);  // "被压扁的高频对是全部"
    for (const posenc::PairDiagnostics& p : d.pairs) CHECK(p.compression == 0.25);
}

TEST_CASE("[lesson C2-5 #20] the PI paper's bound: interpolated scores about 600x smaller than extrapolated ones")
{
    // PI paper's setting (LLaMA: d = 128, c = 10,000): 2 * 32 ln c = 589.5 when B(s) >= d, and the
    // actual minimum of B over s <= 2048 (the paper's L) gives a larger ratio still.
    const posenc::RopeSpec llama = posenc::RopeSpec::full(128, 1e4);
    const double at_premise = 2.0 * 128.0 / posenc::pi_grid_coefficient(llama, posenc::PiCoefficient::paper);
    CHECK(at_premise == doctest::Approx(64.0 * std::log(1e4)).epsilon(1e-14));
    CHECK(at_premise == doctest::Approx(600.0).epsilon(0.02));
    CHECK(posenc::pi_bound_ratio(llama, 0, 2048, posenc::PiCoefficient::paper) > at_premise);
}

TEST_CASE("[lesson C2-5 #21] NTK-aware x4: base' = 4,088,994.24 and 23 pairs (40 to 62) still out of range")
{
    const posenc::RopeSpec spec = posenc::models::qwen3_8b.rope_spec();
    CHECK(posenc::ntk_aware_base(spec, posenc::NtkAwareScaling(4.0)) == doctest::Approx(4088994.24).epsilon(2e-9));
    const posenc::ExtensionDiagnostics d = qwen3_x4(posenc::NtkAwareScaling(4.0));
    CHECK(d.summary.out_of_range_pairs == 23);
    CHECK(d.out_of_range_indices() == range_of(40, 62));
    // "the fastest pair barely moves, the slowest is compressed exactly s times"
    CHECK(d.pairs.front().compression == 1.0);
    CHECK(d.pairs.back().compression == doctest::Approx(0.25).epsilon(1e-14));
    CHECK(d.pairs.back().out_of_range == false);
}

TEST_CASE("[lesson C2-5 #22] YaRN x4 (HF floor/ceil): low = floor(23.596) = 23, high = ceil(39.651) = 40")
{
    const posenc::RopeSpec spec = posenc::models::qwen3_8b.rope_spec();
    const posenc::YarnScaling yarn = std::get<posenc::YarnScaling>(posenc::models::qwen3_8b.scaling());
    const posenc::YarnCorrectionRange range = posenc::yarn_correction_range(spec, yarn);
    CHECK(range.raw_low == doctest::Approx(23.596).epsilon(1e-4));
    CHECK(range.raw_high == doctest::Approx(39.651).epsilon(1e-4));
    CHECK(range.low == 23.0);
    CHECK(range.high == 40.0);
    const posenc::ExtensionDiagnostics d = qwen3_x4(yarn);
    for (const posenc::PairDiagnostics& p : d.pairs) {
        CAPTURE(p.index);
        if (p.index <= 23) CHECK(p.compression == 1.0);  // pairs 0..23 untouched
        if (p.index >= 40) CHECK(p.compression == doctest::Approx(0.25).epsilon(1e-15));  // 40..63 divided by 4
        if (p.index > 23 && p.index < 40) CHECK((p.compression < 1.0 && p.compression > 0.25));  // the ramp
    }
}

TEST_CASE("[lesson C2-5 #23] YaRN x4: 0 pairs out of range and no originally safe pair (32+ turns) compressed")
{
    const posenc::ExtensionDiagnostics d = qwen3_x4(posenc::models::qwen3_8b.scaling());
    CHECK(d.summary.out_of_range_pairs == 0);
    int safe = 0;
    for (const posenc::PairDiagnostics& p : d.pairs)
        if (p.turns_original >= 32.0) {
            ++safe;
            CHECK(!p.compressed);
        }
    CHECK(safe == 24);  // pairs 0..23 turn at least 32 times within 32,768
}

TEST_CASE("[lesson C2-5 #17] the small model under YaRN x4: low clamps to 0, high 6, every pair from 1 on interpolated")
{
    const posenc::RopeSpec spec = posenc::models::course_small.rope_spec();
    const posenc::YarnScaling yarn(4.0, 128);  // train 128, read 512
    const posenc::YarnCorrectionRange range = posenc::yarn_correction_range(spec, yarn);
    CHECK(range.raw_low < 0.0);  // no pair turns 32 times: "没有一组算安全"
    CHECK(range.low == 0.0);
    CHECK(range.high == 6.0);
    const posenc::ExtensionDiagnostics d = posenc::extension_diagnostics(spec, yarn, 128, 512);
    CHECK(d.summary.out_of_range_pairs == 0);
    CHECK(d.compressed_indices() == range_of(1, 15));  // "几乎全部被插值"
    CHECK(d.pairs.front().compression == 1.0);
}

TEST_CASE(
    "[lesson C2-5 #24] YaRN temperature: q and k each scaled by 0.1 ln s + 1 = 1.138629 (s = 4), 1.277259 (s = 16)")
{
    const posenc::ExtensionDiagnostics qwen3 = qwen3_x4(posenc::models::qwen3_8b.scaling());
    CHECK(qwen3.attention_factor == doctest::Approx(1.138629).epsilon(1e-6));
    CHECK(qwen3.attention_factor == doctest::Approx(0.1 * std::log(4.0) + 1.0).epsilon(1e-15));
    const posenc::ExtensionDiagnostics deepseek = posenc::extension_diagnostics(
        posenc::models::deepseek_v4_1_flash.rope_spec(), posenc::models::deepseek_v4_1_flash.scaling(), 65536, 1048576);
    CHECK(deepseek.attention_factor == doctest::Approx(1.277259).epsilon(1e-6));
    // logits scale by the square (both q and k carry the factor).
    CHECK(deepseek.attention_factor * deepseek.attention_factor ==
          doctest::Approx(std::pow(0.1 * std::log(16.0) + 1.0, 2.0)).epsilon(1e-15));
}

TEST_CASE("[lesson C2-5 #25] DeepSeek-V4.1-Flash direct extrapolation to 1,048,576: 0 pairs out of range")
{
    const posenc::ExtensionDiagnostics d = posenc::extension_diagnostics(
        posenc::models::deepseek_v4_1_flash.rope_spec(), posenc::NoScaling {}, 65536, 1048576);
    CHECK(d.summary.incomplete_pairs == 0);
    CHECK(d.summary.out_of_range_pairs == 0);
}

TEST_CASE("[lesson C2-5 #26] RoFormer's decay bound for 64 rotary dims: 16.5 at r = 0 at every base; larger base "
          "decays later")
{
    std::int64_t previous = -1;
    for (double base : {1e4, 1e6, 1e7}) {
        CAPTURE(base);
        const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(posenc::RopeSpec::full(64, base));
        CHECK(posenc::roformer_relative_bound(table, 0.0) == 16.5);
        const std::optional<std::int64_t> half = posenc::first_distance_below(table, 16.5 / 2.0, 1000);
        REQUIRE(half);
        CHECK(*half > previous);
        previous = *half;
    }
}

}  // namespace lessons_c2_5_long_context_tests
