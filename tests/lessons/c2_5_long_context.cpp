// Lesson C2-5 "can a computable encoding read long text?" (shared/seeds/001_b36a7ac6db7f3c71.txt).
// Expected values are the lesson's own numbers (lesson-numbers.md items 14-17, 25) or closed
// forms from its text; the checked values come from posenc's public API.
#include <posenc/posenc.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

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

TEST_CASE("[lesson C2-5 #16] the course's small model: 32 dims per head (256 / 8), 10 of 16 pairs never turn within 128")
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
    for (int i = 6; i <= 15; ++i) expected.push_back(i);  // lesson-numbers.md: i = 6..15
    CHECK(table.pairs_without_full_turn(128) == expected);
}

TEST_CASE("[lesson C2-5 #17] the small model's fastest pair turns only ~20 times within 128, fewer than YaRN's beta = 32")
{
    const posenc::FrequencyTable table =
        posenc::FrequencyTable::from_spec(posenc::models::course_small.rope_spec());
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
