// SPDX-License-Identifier: MIT
// Per-position query scaling (query_scale.hpp) against the formulas of Llama 4 (attention
// temperature tuning) and Ministral 3 / Mistral 4 (llama_4_scaling_beta), evaluated in mpmath by
// tests/reference/query_scale_reference_values.py; the bound under test is the header's 2^-51 m.
#include <posenc/query_scale.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "support/error_messages.hpp"

namespace reference_query_scale_tests {  // per-file namespace: a folder builds as one unit

using test_support::message_of;

struct Value {
    std::int64_t position;
    double multiplier;  // mpmath, 20 digits
};

const Value llama4[] = {{0, 1.0},
                        {8190, 1.0},
                        {8191, 1.0693147180559945348},
                        {8192, 1.0693147180559945348},
                        {16383, 1.1098612288668109752},
                        {1000000, 1.4812184355372417762},
                        {2147483647, 2.2476653064769005948}};

const Value ministral3[] = {{0, 1.0},
                            {16383, 1.0},
                            {16384, 1.0693147180559945348},
                            {32768, 1.1098612288668109752},
                            {262143, 1.2772588722239781392},
                            {2147483647, 2.1783502069519070914}};

TEST_CASE("[HF llama4 attn_temperature_tuning] 1 + 0.1 ln(1 + floor((pos + 1) / 8192)), within 2^-51 m")
{
    const posenc::QueryScale q = posenc::QueryScale::llama4_temperature_tuning(0.1, 8192);
    CHECK(q.beta() == 0.1);
    CHECK(q.divisor() == 8192);
    CHECK(q.position_offset() == 1);
    for (const Value& v : llama4)
        CHECK(std::abs(q.multiplier(v.position) - v.multiplier) <= std::ldexp(v.multiplier, -51));
    CHECK(q.floor_quotient(8190) == 0);
    CHECK(q.floor_quotient(8191) == 1);
}

TEST_CASE("[HF ministral3 get_llama_4_attn_scale] 1 + 0.1 ln(1 + floor(pos / 16384)), within 2^-51 m")
{
    const posenc::QueryScale q = posenc::QueryScale::llama_4_scaling_beta(0.1, 16384);
    CHECK(q.position_offset() == 0);
    for (const Value& v : ministral3)
        CHECK(std::abs(q.multiplier(v.position) - v.multiplier) <= std::ldexp(v.multiplier, -51));
}

TEST_CASE("[exact floor] pos + 1 = 9216 * 8192 - 1 stays in quotient 9215 (Hugging Face's float32 position rounds it "
          "to 9216)")
{
    const posenc::QueryScale q = posenc::QueryScale::llama4_temperature_tuning(0.1, 8192);
    CHECK(q.floor_quotient(75497470) == 9215);
    CHECK(q.floor_quotient(75497471) == 9216);
}

TEST_CASE(
    "[float multipliers] fill_multipliers over a run equals float(multiplier) token by token, across quotient steps")
{
    const posenc::QueryScale q = posenc::QueryScale::llama4_temperature_tuning(0.1, 8192);
    const std::int64_t first = 8180;
    const std::vector<float> run = q.multipliers(first, 8300);
    REQUIRE(run.size() == 8300);
    for (std::size_t k = 0; k < run.size(); ++k)
        CHECK(run[k] == static_cast<float>(q.multiplier(first + static_cast<std::int64_t>(k))));
    CHECK(run[10] == 1.0f);  // pos 8190
    CHECK(run[11] == static_cast<float>(1.0693147180559945348));  // pos 8191
    const std::int64_t ids[] = {2147483647, 0, 16383};
    float out[3];
    q.fill_multipliers_at(ids, out, 3);
    CHECK(out[0] == static_cast<float>(2.2476653064769005948));
    CHECK(out[1] == 1.0f);
    CHECK(out[2] == static_cast<float>(1.1098612288668109752));
}

TEST_CASE("[refusals] invalid parameters and positions name the field, the value and the rule")
{
    CHECK(message_of([] { return posenc::QueryScale(-0.1, 8192); }) == "query_scale.beta -0.1 must be finite and >= 0");
    CHECK(message_of([] { return posenc::QueryScale(0.1, 0); }) == "query_scale.divisor 0 must be >= 1");
    CHECK(message_of([] { return posenc::QueryScale(0.1, 8192, -1); }) ==
          "query_scale.position_offset -1 must be in [0, 2^53]");
    const posenc::QueryScale q(0.1, 8192, 1);
    CHECK(message_of([&] { q.multiplier(-1); }) == "position -1 must be >= 0 (positions count from 0)");
    CHECK(message_of([&] { q.multiplier(std::int64_t {1} << 53); }) ==
          "position 9007199254740992 must keep position + position_offset 1 <= 2^53");
    const std::int64_t ids[] = {3, -2};
    float out[2] = {7.0f, 7.0f};
    CHECK(message_of([&] { q.fill_multipliers_at(ids, out, 2); }) ==
          "positions[1] -2 must be >= 0 (positions count from 0)");
    CHECK(out[0] == 7.0f);  // nothing written
    CHECK(message_of([&] { q.fill_multipliers(0, out, -1); }) == "count -1 must be >= 0");
}

}  // namespace reference_query_scale_tests
