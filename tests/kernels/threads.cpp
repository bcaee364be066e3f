// SPDX-License-Identifier: MIT
// Threading (partition.hpp): split_tokens covers every token once and balances the parts;
// suggested_parts keeps decode on one thread; any split of the tokens, run concurrently on
// std::threads sharing one const angle source, gives the same bits as one call (an exact
// identity: the kernel computes each token independently). scripts/test.sh runs the test cases
// named "*thread*" under ThreadSanitizer. This file does not use runtime dispatch, so it builds
// without the per-ISA kernel units.
#include <doctest/doctest.h>

#include <posenc/kernels.hpp>
#include <posenc/kernels/partition.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

namespace kernels_threads_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using namespace posenc::kernels;

}  // namespace

TEST_CASE("[partition] token ranges cover every token once, balanced, and suggested_parts keeps decode on one thread")
{
    for (std::ptrdiff_t tokens : {0, 1, 2, 7, 4096, 4097})
        for (int parts : {1, 2, 3, 8}) {
            const std::vector<TokenRange> ranges = split_tokens(tokens, parts);
            std::ptrdiff_t next = 0, smallest = tokens, largest = 0;
            for (const TokenRange& r : ranges) {
                CHECK(r.begin == next);
                next = r.end;
                smallest = std::min(smallest, r.size());
                largest = std::max(largest, r.size());
            }
            CHECK(next == tokens);
            CHECK(largest - smallest <= 1);
        }
    CHECK(suggested_parts(1, 40 * 128, 2) == 1);  // decode: 5,120 elements, below 32,768 per part
    CHECK(suggested_parts(4096, 32 * 128, 2) == 2);  // prefill
    CHECK(suggested_parts(4096, 32 * 128, 1) == 1);
    CHECK(suggested_parts(3, 1 << 20, 8) == 3);  // never more parts than tokens
}

TEST_CASE("[partition] threads on split token ranges, sharing one const angle source, equal one call bit for bit")
{
    const posenc::RopeSpec spec(128, 64, 1e4, posenc::Pairing::half_split);
    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
    const CosSinCache cache(table, 1000);
    const OnTheFlyAngles angles(table);
    const std::ptrdiff_t tokens = 301;
    std::mt19937 rng(9);
    std::uniform_real_distribution<float> u(-1, 1);
    std::vector<float> q0(static_cast<std::size_t>(tokens * 8 * 128)), k0(static_cast<std::size_t>(tokens * 2 * 128));
    for (float& v : q0) v = u(rng);
    for (float& v : k0) v = u(rng);
    std::vector<std::int32_t> ids(static_cast<std::size_t>(tokens));
    for (std::int32_t& p : ids) p = static_cast<std::int32_t>(rng() % 1000);
    for (int source = 0; source < 2; ++source) {
        std::vector<float> q1 = q0, k1 = k0, q2 = q0, k2 = k0;
        auto views = [&](std::vector<float>& q, std::vector<float>& k) {
            return QKViews<float>::in_place(HeadsView<float>(q, {tokens, 8, 128}),
                                            HeadsView<float>(k, {tokens, 2, 128}));
        };
        auto run = [&](const QKViews<float>& v, TokenRange r) {
            if (source == 0) apply_rope(spec, cache, PositionIds(ids), v, Direction::forward, r);
            else apply_rope(spec, angles, PositionIds(ids), v, Direction::forward, r);
        };
        run(views(q1, k1), TokenRange {0, tokens});
        const QKViews<float> shared = views(q2, k2);
        std::vector<std::thread> threads;
        for (const TokenRange& r : split_tokens(tokens, 3)) threads.emplace_back([&, r] { run(shared, r); });
        for (std::thread& t : threads) t.join();
        CAPTURE(source);
        CHECK(q1 == q2);
        CHECK(k1 == k2);
    }
}

}  // namespace kernels_threads_tests
