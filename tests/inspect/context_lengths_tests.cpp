// SPDX-License-Identifier: MIT
// posenc::context_lengths, trained_length and require_frequencies_at (posenc/context_lengths.hpp):
// the length rules posenc-inspect and the Python module share, on RoPE groups built as the
// published configs give them (Llama 3.1 8B: original_max_position_embeddings 8192,
// max_position_embeddings 131072; Phi-3-mini-128k: 4096 and 131072; Qwen3 with YaRN x4: 32768,
// L' = 4 x 32768 = 131072, the length its card names; Position Interpolation x4 of a 16384 config:
// trained at 16384 / 4 = 4096), and the frequency check against the table's own refusals.
#include <posenc/context_lengths.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace inspect_context_lengths_tests_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

posenc::RopeGroup group_of(const posenc::Scaling& scaling, std::int64_t max_position_embeddings, int rotary_dim = 128,
                           double base = 500000.0)
{
    return posenc::RopeGroup::make("default", posenc::RopeSpec(rotary_dim, rotary_dim, base), scaling,
                                   max_position_embeddings);
}

/// The field of the posenc::error `f` throws ("" when it throws none).
template <class F>
std::string refused_field(F&& f)
{
    try {
        f();
    } catch (const posenc::error& e) {
        return e.field();
    }
    return "";
}

/// The message of the posenc::error `f` throws ("" when it throws none).
template <class F>
std::string refusal(F&& f)
{
    try {
        f();
    } catch (const posenc::error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("[lengths] the config's extended length is L' for its own llama3, linear and longrope scaling")
{
    const posenc::RopeGroup llama31 = group_of(posenc::Llama3Scaling(8.0, 1.0, 4.0, 8192), 131072);
    posenc::ContextLengths l = posenc::context_lengths(llama31, llama31.scaling, {});
    CHECK(l.original == 8192);
    CHECK(l.target == 131072);  // not 8 x 8192 = 65536: Llama 3's factor is not L'/L

    // The same llama3 as a caller's override: L' = L x factor.
    posenc::LengthRequest override_request;
    override_request.own_scaling = false;
    l = posenc::context_lengths(llama31, llama31.scaling, override_request);
    CHECK(l.original == 8192);
    CHECK(l.target == 65536);

    const std::vector<double> ones(32, 1.0);
    const posenc::RopeGroup phi3 = group_of(posenc::LongRopeScaling(ones, ones, 4096, 32.0), 131072, 96, 10000.0);
    l = posenc::context_lengths(phi3, phi3.scaling, override_request);  // longrope: always the config's length
    CHECK(l.original == 4096);
    CHECK(l.target == 131072);

    // Position Interpolation x4 on a config naming only the extended 16384: trained at 4096.
    const posenc::RopeGroup pi = group_of(posenc::LinearScaling(4.0), 16384, 128, 10000.0);
    l = posenc::context_lengths(pi, pi.scaling, {});
    CHECK(l.original == 4096);
    CHECK(l.target == 16384);
    posenc::LengthRequest given;
    given.original_length = 2048;
    l = posenc::context_lengths(pi, pi.scaling, given);
    CHECK(l.original == 2048);
    CHECK(l.target == 16384);
}

TEST_CASE("[lengths] factor-based scalings run at L x factor; a given L' or target factor wins")
{
    const posenc::RopeGroup qwen3 = group_of(posenc::YarnScaling(4.0, 32768), 40960, 128, 1000000.0);
    posenc::ContextLengths l = posenc::context_lengths(qwen3, qwen3.scaling, {});
    CHECK(l.original == 32768);
    CHECK(l.target == 131072);

    posenc::LengthRequest request;
    request.target_length = 100000;
    l = posenc::context_lengths(qwen3, qwen3.scaling, request);
    CHECK(l.target == 100000);

    const posenc::RopeGroup plain = group_of(posenc::NoScaling {}, 4096, 128, 10000.0);
    l = posenc::context_lengths(plain, plain.scaling, {});
    CHECK(l.original == 4096);
    CHECK(l.target == 4096);
    request = {};
    request.target_factor = 8.0;  // no scaling, extrapolated 8 times
    l = posenc::context_lengths(plain, plain.scaling, request);
    CHECK(l.target == 32768);
    CHECK(posenc::trained_length(plain, request) == 4096);
    request.original_length = 1000;
    CHECK(posenc::trained_length(plain, request) == 1000);
    CHECK(posenc::context_lengths(plain, plain.scaling, request).target == 8000);
}

TEST_CASE("[lengths] refusals: unknown L0, a target factor below 1, L x factor beyond 2^50")
{
    const posenc::RopeGroup unknown = group_of(posenc::NoScaling {}, 0);
    CHECK(refusal([&] { posenc::trained_length(unknown, {}); }) ==
          "original_length 0 must be > 0 (the group names no max_position_embeddings or original length)");
    CHECK(refused_field([&] { posenc::context_lengths(unknown, unknown.scaling, {}); }) == "original_length");

    const posenc::RopeGroup plain = group_of(posenc::NoScaling {}, 4096);
    posenc::LengthRequest request;
    request.target_factor = 0.5;
    CHECK(refusal([&] { posenc::context_lengths(plain, plain.scaling, request); }) ==
          "target_factor 0.5 must be >= 1 and finite");
    request.target_factor = std::numeric_limits<double>::infinity();
    CHECK(refused_field([&] { posenc::context_lengths(plain, plain.scaling, request); }) == "target_factor");
    request.target_factor = 1e12;  // 4096 x 10^12 > 2^50
    CHECK(refusal([&] { posenc::context_lengths(plain, plain.scaling, request); }) ==
          "target_length 4.096e+15 must be <= 2^50 (L x factor); name the target length instead");
    request.target_factor = std::nullopt;
    request.target_length = 0;
    CHECK(refusal([&] { posenc::context_lengths(plain, plain.scaling, request); }) ==
          "target_length 0 must be in [1, 2^50]");
    request.target_length = posenc::context_length_limit;
    CHECK(posenc::context_lengths(plain, plain.scaling, request).target == (std::int64_t {1} << 50));
}

TEST_CASE("[lengths] require_frequencies_at refuses exactly what the table at that length refuses")
{
    const posenc::RopeSpec spec(128, 128, 10000.0);
    const posenc::RopeSpec two(2, 2, 10000.0);
    const std::vector<double> ones(64, 1.0);
    const std::vector<double> short_list(63, 1.0);
    std::vector<double> huge_last = ones;
    huge_last[63] = 3e38;
    const posenc::RopeSpec huge_base(4, 4, 1e300);
    struct Case {
        posenc::RopeSpec spec;
        posenc::Scaling scaling;
        std::int64_t length;
        bool valid;
    };
    const std::vector<Case> cases {
        {spec, posenc::DynamicNtkScaling(4.0, 4096), 2147483647, true},  // dynamic's base at 2^31 - 1: valid
        {spec, posenc::DynamicNtkScaling(4.0, 4096), 4096, true},
        {huge_base, posenc::DynamicNtkScaling(4.0, 4096), std::int64_t {1} << 40, false},  // the base overflows
        {huge_base, posenc::DynamicNtkScaling(4.0, 4096), 8192, true},
        {two, posenc::DynamicNtkScaling(4.0, 4096), 8192, false},  // exponent R / (R - 2)
        {spec, posenc::DynamicNtkScaling(4.0, 4096), 0, false},
        {spec, posenc::LongRopeScaling(ones, ones, 4096, 32.0), 131072, true},
        {spec, posenc::LongRopeScaling(short_list, short_list, 4096, 32.0), 131072, false},  // 63 factors, 64 pairs
        {spec, posenc::LongRopeScaling(ones, huge_last, 4096, 32.0), 131072, true},  // past L0: the long list
        {spec, posenc::LinearScaling(3e38), 4096, true},
        {spec, posenc::YarnScaling(4.0, 32768), 131072, true},
    };
    for (std::size_t i = 0; i < cases.size(); ++i) {
        CAPTURE(i);
        const Case& c = cases[i];
        const std::string expected =
            refusal([&] { posenc::scaled_inv_freq(c.spec, c.scaling, c.length, posenc::Precision::exact); });
        CHECK(expected.empty() == c.valid);
        CHECK(refusal([&] { posenc::require_frequencies_at(c.spec, c.scaling, c.length); }) == expected);
    }
}

}  // namespace inspect_context_lengths_tests_tests
