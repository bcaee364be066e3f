// SPDX-License-Identifier: MIT
// Dynamic NTK's table switching (dynamic_ntk_switch.hpp) against transformers' update rule.
//
// Provenance: tests/scaling/dynamic_ntk_switch_reference_values.py restates transformers'
// dynamic_frequency_update (modeling_rope_utils.py: growth when seq_len > the cached length,
// reset when seq_len < max_position_embeddings and the cached length exceeds it) and prints the
// cached length and table after each pass of the sequence below; those lines are pasted here.
#include <posenc/scaling/dynamic_ntk.hpp>
#include <posenc/scaling/dynamic_ntk_switch.hpp>
#include <posenc/scaling/scaling.hpp>
#include <posenc/spec.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <optional>

#include "scaling/checks.hpp"

namespace scaling_dynamic_ntk_switch_tests {  // per-file namespace: a folder builds as one unit

using posenc_test::message_of;

struct Step {
    std::int64_t sequence_length;
    std::int64_t cached_length;
    std::int64_t table_length;  // 0: the init table
};

// python3 tests/scaling/dynamic_ntk_switch_reference_values.py (L = 4096)
const Step trace[] = {
    {100, 4096, 0},     {4096, 4096, 0},
    {4097, 4097, 4097}, {5000, 5000, 5000},
    {4500, 5000, 5000}, {4096, 5000, 5000},
    {4095, 4096, 0},    {8192, 8192, 8192},
    {10, 4096, 0},      {3000, 4096, 0},
    {9000, 9000, 9000}, {9000, 9000, 9000},
    {4096, 9000, 9000}, {2147483647, 2147483647, 2147483647},
    {1, 4096, 0},
};

TEST_CASE("[HF dynamic_frequency_update] growth past the cached length, reset below L, else unchanged")
{
    posenc::DynamicNtkSwitch rule(4096);
    CHECK(rule.cached_length() == 4096);
    CHECK(!rule.table_length());
    for (const Step& step : trace) {
        CAPTURE(step.sequence_length);
        const std::optional<std::int64_t> table = rule.update(step.sequence_length);
        CHECK(rule.cached_length() == step.cached_length);
        CHECK(table.value_or(0) == step.table_length);
        CHECK(rule.table_length() == table);
    }
}

TEST_CASE("[HF dynamic_frequency_update] the table in effect is dynamic NTK's at the cached length")
{
    const posenc::RopeSpec spec(128, 128, 10000.0);
    const posenc::DynamicNtkScaling scaling(2.0, 4096);
    posenc::DynamicNtkSwitch rule(4096);
    // 8192 grows the table; 6000 keeps the 8192 one (transformers recomputes only on growth).
    rule.update(8192);
    const std::optional<std::int64_t> kept = rule.update(6000);
    REQUIRE(kept);
    CHECK(posenc::dynamic_ntk_inv_freq(spec, scaling, kept) == posenc::dynamic_ntk_inv_freq(spec, scaling, 8192));
    // b' = b (s n / L - (s - 1))^(R / (R - 2)) = 1e4 * 3^(128/126) at n = 8192 (R 128, L 4096, s 2)
    CHECK(posenc::dynamic_ntk_base(spec, scaling, kept) ==
          doctest::Approx(10000.0 * std::pow(3.0, 128.0 / 126.0)).epsilon(1e-14));
    // A pass shorter than L restores the init table (the unscaled one: n = L leaves b unchanged).
    CHECK(!rule.update(100));
    CHECK(posenc::dynamic_ntk_base(spec, scaling, rule.table_length()) == 10000.0);
}

TEST_CASE("dynamic NTK switching refuses lengths <= 0 by name and keeps its state")
{
    CHECK(message_of([] { return posenc::DynamicNtkSwitch(0); }).find("dynamic.original_length 0 must be > 0") == 0);
    posenc::DynamicNtkSwitch rule(4096);
    rule.update(5000);
    CHECK(message_of([&] { return rule.update(0); }).find("sequence_length 0 must be > 0") == 0);
    CHECK(message_of([&] { return rule.update(-3); }).find("sequence_length -3 must be > 0") == 0);
    CHECK(rule.cached_length() == 5000);
}

}  // namespace scaling_dynamic_ntk_switch_tests
