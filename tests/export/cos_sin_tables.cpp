// SPDX-License-Identifier: MIT
// The engine layouts of posenc/export/cos_sin_tables.hpp against the layout rules restated here:
// vLLM / FlashInfer row m = [cos(m theta_i) for i < P | sin(m theta_i) for i < P] (vLLM
// rotary_embedding/base.py _compute_cos_sin_cache: cat((cos, sin), -1)); transformers row m =
// cos(cat(freqs, freqs)) (modeling_llama.py LlamaRotaryEmbedding.forward).
//
// Provenance of the expected values: long double cosl/sinl of the product m * theta computed in
// long double. The frequencies are chosen with short significands (theta = k / 2^j) so that the
// product is exact in the 64-bit long double significand and glibc's cosl/sinl reduce it
// correctly: an evaluation independent of posenc's Cody-Waite reduction, at positions up to 2^31 - 1.
#include <posenc/export/cos_sin_tables.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace export_cos_sin_tables_tests {  // per-file namespace: a folder builds as one unit

// Short significands: m * theta is exact in long double for m < 2^31.
const std::vector<double> short_thetas = {1.0, 0.5, 0.375, 0.0078125, 3.0 / 1024.0, 1.0 / 65536.0};

long double exact_cos(std::int64_t m, double theta) { return cosl(static_cast<long double>(m) * theta); }
long double exact_sin(std::int64_t m, double theta) { return sinl(static_cast<long double>(m) * theta); }

// |value - expected| in units of the float32 ulp at the expected value (at least 2^-149).
double float_ulps(float value, long double expected)
{
    const float e = static_cast<float>(expected);
    const float ulp = std::nextafter(std::fabs(e), 1e30f) - std::fabs(e);
    return static_cast<double>(std::fabs(static_cast<long double>(value) - expected) / ulp);
}

TEST_CASE("[vLLM layout] row m is cos of every pair then sin of every pair, rounded once to float (0.5 ulp) at "
          "positions up to 2^31 - 1")
{
    const posenc::FrequencyTable table(short_thetas);
    const int pairs = table.num_pairs();
    const std::int64_t first = 2147483647 - 3;
    const std::vector<float> cache = posenc::exports::vllm_cos_sin_cache<float>(table, 4, first);
    REQUIRE(cache.size() == 4u * 2u * static_cast<std::size_t>(pairs));
    for (std::int64_t row = 0; row < 4; ++row)
        for (int i = 0; i < pairs; ++i) {
            const std::size_t at = static_cast<std::size_t>(row * 2 * pairs + i);
            CHECK(float_ulps(cache[at], exact_cos(first + row, short_thetas[static_cast<std::size_t>(i)])) <= 0.5);
            CHECK(float_ulps(cache[at + static_cast<std::size_t>(pairs)],
                             exact_sin(first + row, short_thetas[static_cast<std::size_t>(i)])) <= 0.5);
        }
}

TEST_CASE("[vLLM layout] double entries are within 1e-14 of cosl/sinl and the attention factor multiplies both halves")
{
    const posenc::FrequencyTable table(short_thetas, 1.25);
    const int pairs = table.num_pairs();
    const std::vector<double> cache = posenc::exports::vllm_cos_sin_cache(table, 7, 1000000);
    for (std::int64_t row = 0; row < 7; ++row)
        for (int i = 0; i < pairs; ++i) {
            const double theta = short_thetas[static_cast<std::size_t>(i)];
            const std::size_t at = static_cast<std::size_t>(row * 2 * pairs + i);
            CHECK(std::fabs(cache[at] - 1.25L * exact_cos(1000000 + row, theta)) <= 1e-14);
            CHECK(std::fabs(cache[at + static_cast<std::size_t>(pairs)] - 1.25L * exact_sin(1000000 + row, theta)) <=
                  1e-14);
        }
}

TEST_CASE("[FlashInfer layout] the float32 cache equals vLLM's layout in float")
{
    const posenc::FrequencyTable table(short_thetas);
    CHECK(posenc::exports::flashinfer_cos_sin_cache(table, 5, 40) ==
          posenc::exports::vllm_cos_sin_cache<float>(table, 5, 40));
}

TEST_CASE("[transformers layout] cos and sin rows are cat(freqs, freqs): pair i at columns i and i + P")
{
    const posenc::FrequencyTable table(short_thetas, 0.5);
    const int pairs = table.num_pairs();
    const auto hf = posenc::exports::hf_cos_sin<float>(table, 3, 123456789);
    REQUIRE(hf.cos.size() == 3u * 2u * static_cast<std::size_t>(pairs));
    for (std::int64_t row = 0; row < 3; ++row)
        for (int i = 0; i < pairs; ++i) {
            const double theta = short_thetas[static_cast<std::size_t>(i)];
            for (int half = 0; half < 2; ++half) {
                const std::size_t at = static_cast<std::size_t>(row * 2 * pairs + half * pairs + i);
                CHECK(float_ulps(hf.cos[at], 0.5L * exact_cos(123456789 + row, theta)) <= 0.5);
                CHECK(float_ulps(hf.sin[at], 0.5L * exact_sin(123456789 + row, theta)) <= 0.5);
            }
        }
}

TEST_CASE("[range] tables beyond 2^31 - 1, empty tables and negative positions are refused naming the argument")
{
    const posenc::FrequencyTable table(short_thetas);
    const auto message = [&](std::int64_t count, std::int64_t first) {
        try {
            (void)posenc::exports::vllm_cos_sin_cache(table, count, first);
        } catch (const posenc::error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(message(0, 0) == "num_positions 0 must be >= 1");
    CHECK(message(1, -1) == "first_position -1 must be >= 0");
    CHECK(message(2, 2147483647) == "num_positions 2 must be <= 1 so that the last position stays <= 2^31 - 1");
    CHECK(message(1, 2147483648) == "first_position 2147483648 must be <= 2147483647 (2^31 - 1)");
    CHECK(message(std::int64_t {1} << 30, 0)
              .rfind("num_positions 1073741824 must be <= 178956970 (at most 2^31 entries", 0) == 0);
}

}  // namespace export_cos_sin_tables_tests
