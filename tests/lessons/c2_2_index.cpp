// Lesson C2-2 "telling the model the index directly" (shared/seeds/000_54e4ad357338620b.txt).
// Expected values are the lesson's own numbers (shared/reference/lesson-numbers.md items 10-11);
// the checked values are computed through posenc's public API.
#include <posenc/posenc.hpp>

#include <doctest/doctest.h>

#include <vector>

TEST_CASE("[lesson C2-2 #10] Qwen3: 24 of 64 pairs never complete a turn within 32,768 (pairs 40..63)")
{
    const posenc::RopeSpec spec = posenc::models::qwen3_8b.rope_spec();
    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
    CHECK(table.num_pairs() == 64);
    CHECK(table.count_without_full_turn(32768) == 24);

    std::vector<int> expected;
    for (int i = 40; i <= 63; ++i) expected.push_back(i);  // lesson: theta_i * 32768 < 2pi for i = 40..63
    CHECK(table.pairs_without_full_turn(32768) == expected);
}

TEST_CASE("[lesson C2-2 #11] Qwen3.8: 64 rotary dims are 25% of 256, and 10 of 32 pairs never turn within 262,144")
{
    const posenc::RopeSpec spec = posenc::models::qwen3_8_27b.rope_spec();
    CHECK(spec.rotary_dim() == 64);
    CHECK(posenc::RopeSpec::from_partial_rotary_factor(256, 0.25, 1e7).rotary_dim() == spec.rotary_dim());

    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
    CHECK(table.num_pairs() == 32);
    CHECK(table.count_without_full_turn(262144) == 10);
    std::vector<int> expected;
    for (int i = 22; i <= 31; ++i) expected.push_back(i);  // lesson-numbers.md: i = 22..31
    CHECK(table.pairs_without_full_turn(262144) == expected);
}
