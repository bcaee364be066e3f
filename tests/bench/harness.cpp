// SPDX-License-Identifier: MIT
// The installed benchmark and accuracy harness (posenc/bench/): its accuracy verdict on two
// kernels whose error is known without running posenc, and its timing logic without asserting
// any speed.
//
// Independent expectations:
//  - a kernel that rotates by the float angle float(position) * float(inv_freq) through cosf and
//    sinf is wrong at 2^24: the float spacing of an angle near 2^24 rad is 2 rad, so pair 0's angle
//    is off by up to 1 rad and its output by up to 2 sin(1/2) |x| ~ 0.96 |x| (an identity of float
//    arithmetic), far above any tolerance; at position 0 .. tokens - 1 it is within a few float
//    ulp (angles below 8, cosf / sinf correctly rounded to within 1 ulp in glibc);
//  - the exact rotation written out by hand in long double (a second reference, not posenc's
//    code path) passes at every position up to 2^31 - 1;
//  - a kernel that leaves the data unchanged fails at position 1 and beyond but passes at 0
//    (the identity rotation), and one that writes NaN fails everywhere;
//  - quartiles of a known list, the streaming pass keeps the bytes, the loaded / too-short
//    verdicts follow from their definitions on hand-made timings.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <posenc/bench/harness.hpp>

namespace bench_harness_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace b = posenc::bench;

b::RopeProblem problem(posenc::Pairing pairing = posenc::Pairing::half_split)
{
    const posenc::RopeSpec spec(64, 64, 10000.0, pairing);
    return {spec, posenc::FrequencyTable::from_spec(spec), 4, 2};
}

/// The naive float32 kernel: angle = float(position) * float(theta_i), cosf / sinf.
struct NaiveFloatKernel {
    const b::RopeProblem* p;
    void operator()(float* data, const std::int64_t* positions) const
    {
        const int n = p->spec.num_pairs();
        for (int t = 0; t < p->tokens; ++t)
            for (int h = 0; h < p->heads; ++h) {
                float* x = data + (t * p->heads + h) * p->spec.head_dim();
                for (int i = 0; i < n; ++i) {
                    const float theta = std::pow(10000.0f, -2.0f * static_cast<float>(i) / 64.0f);
                    const float angle = static_cast<float>(positions[t]) * theta;
                    const float c = std::cos(angle), s = std::sin(angle);
                    const float a = x[i], bb = x[i + n];  // half_split pairs (i, i + 32)
                    x[i] = a * c - bb * s;
                    x[i + n] = bb * c + a * s;
                }
            }
    }
};

/// The exact rotation in long double with theta_i = 10000^(-i/32) and the angle reduced modulo
/// 2 pi in long double (positions < 2^31, theta <= 1: the product has 64 - 31 bits of fraction).
struct LongDoubleKernel {
    const b::RopeProblem* p;
    void operator()(float* data, const std::int64_t* positions) const
    {
        const int n = p->spec.num_pairs();
        for (int t = 0; t < p->tokens; ++t)
            for (int h = 0; h < p->heads; ++h) {
                float* x = data + (t * p->heads + h) * p->spec.head_dim();
                for (int i = 0; i < n; ++i) {
                    const long double theta = std::pow(10000.0L, -static_cast<long double>(i) / 32.0L);
                    const long double angle = static_cast<long double>(positions[t]) * theta;
                    const long double c = std::cos(angle), s = std::sin(angle);
                    const long double a = x[i], bb = x[i + n];
                    x[i] = static_cast<float>(a * c - bb * s);
                    x[i + n] = static_cast<float>(bb * c + a * s);
                }
            }
    }
};

TEST_CASE("a naive float32 kernel fails at 2^20, 2^24 and 2^31 - 1 and passes at 0")
{
    const b::RopeProblem p = problem();
    const auto rows = b::check_accuracy<float>(p, NaiveFloatKernel {&p});
    REQUIRE(rows.size() == 4);
    CHECK(rows[0].last_position == 0);
    CHECK(rows[0].pass());
    CHECK(rows[0].max_error <= 4 * 0x1p-24);
    CHECK(rows[2].last_position == (1 << 24));
    for (std::size_t r = 1; r < 4; ++r) {
        CHECK_FALSE(rows[r].pass());
        CHECK(rows[r].max_error > 1e-3);  // angle errors of the order of a radian at 2^24 and beyond
    }
    CHECK(rows[2].max_error > 0.1);
}

TEST_CASE("an exact long double rotation and posenc's kernel pass at every long position")
{
    const b::RopeProblem p = problem();
    for (const auto& row : b::check_accuracy<float>(p, LongDoubleKernel {&p})) {
        CAPTURE(row.last_position);
        CHECK(row.pass());
    }
    b::HarnessOptions o;
    o.time = false;
    const b::HarnessReport r = b::run_harness<float>(p, NaiveFloatKernel {&p}, o);
    CHECK_FALSE(r.accurate());
    CHECK_FALSE(r.timed);
    REQUIRE(r.posenc_accuracy.size() == 4);
    for (const auto& row : r.posenc_accuracy) CHECK(row.pass());
    const std::string t = r.table();
    CHECK(t.find("2^31 - 1") != std::string::npos);
    CHECK(t.find("FAIL") != std::string::npos);
}

TEST_CASE("an identity kernel passes only at position 0; a NaN kernel fails everywhere")
{
    b::RopeProblem p = problem(posenc::Pairing::interleaved);
    p.tokens = 1;  // one token per row: the row for P is position P alone
    const auto identity = b::check_accuracy<float>(p, [](float*, const std::int64_t*) {}, {0, 1, 1 << 20});
    CHECK(identity[0].pass());  // R(0) is the identity
    CHECK_FALSE(identity[1].pass());
    CHECK_FALSE(identity[2].pass());
    p.tokens = 4;  // tokens at 0 .. 3: three of them rotate
    CHECK_FALSE(b::check_accuracy<float>(p, [](float*, const std::int64_t*) {}, {0})[0].pass());
    const std::size_t n = p.elements();
    const auto nan = b::check_accuracy<float>(p, [n](float* x, const std::int64_t*) {
        for (std::size_t i = 0; i < n; ++i) x[i] = std::numeric_limits<float>::quiet_NaN();
    });
    for (const auto& row : nan) CHECK(row.max_error == std::numeric_limits<double>::infinity());
}

TEST_CASE("the harness refuses what it cannot check")
{
    b::RopeProblem p = problem();
    p.tokens = 0;
    CHECK_THROWS_AS(b::check_accuracy<float>(p, [](float*, const std::int64_t*) {}), posenc::error);
    const b::RopeProblem q = problem();
    CHECK_THROWS_AS(b::check_accuracy<float>(q, [](float*, const std::int64_t*) {}, {-1}), posenc::error);
    b::TimingOptions o;
    o.repetitions = 0;
    CHECK_THROWS_AS(b::time_alternating({[] {}}, o), posenc::error);
}

TEST_CASE("timing: quartiles, alternation, the streaming pass and the verdicts")
{
    CHECK(b::detail::quantile({1, 2, 3, 4, 5}, 0.5) == 3);
    CHECK(b::detail::quantile({1, 2, 3, 4, 5}, 0.25) == 2);
    CHECK(b::detail::quantile({1, 2, 3, 4}, 0.5) == 2.5);

    std::vector<unsigned char> bytes {0, 1, 2, 255};
    b::stream_pass(bytes.data(), bytes.size());
    CHECK(bytes == std::vector<unsigned char> {0, 1, 2, 255});

    std::vector<int> order;
    b::TimingOptions o;
    o.warmup = 0;
    o.repetitions = 3;
    o.min_repetition_seconds = 0;  // one call per repetition: the calls can be counted
    const auto t = b::time_alternating({[&] { order.push_back(0); }, [&] { order.push_back(1); }}, o);
    // calibration calls each once, then the rounds alternate 0 1 0 1 0 1
    CHECK(order == std::vector<int> {0, 1, 0, 1, 0, 1, 0, 1});
    REQUIRE(t.size() == 2);
    CHECK(t[0].calls_per_repetition == 1);
    CHECK(t[0].repetitions == 3);

    b::Timing quiet;
    quiet.median = 1.0;
    quiet.q1 = 0.98;
    quiet.q3 = 1.03;
    quiet.repetitions = 15;
    quiet.repetition_seconds = 0.01;
    b::Timing noisy = quiet;
    noisy.q3 = 1.2;
    CHECK(quiet.spread() == doctest::Approx(0.05));
    const b::TimingOptions defaults;
    CHECK(b::judge({quiet, quiet}, defaults).explanation.empty());
    CHECK(b::judge({quiet, noisy}, defaults).loaded);
    b::Timing short_run = quiet;
    short_run.repetitions = 3;
    const b::TimingVerdict v = b::judge({quiet, short_run}, defaults);
    CHECK(v.too_short);
    CHECK_FALSE(v.loaded);
    CHECK(v.explanation.find("too short") != std::string::npos);
}

TEST_CASE("a timed harness run reports three timings and both ratios, asserting no speed")
{
    const b::RopeProblem p = problem();
    b::HarnessOptions o;
    o.name = "naive float32";
    o.timing.repetitions = 5;
    o.timing.min_repetition_seconds = 1e-4;
    const b::HarnessReport r = b::run_harness<float>(p, NaiveFloatKernel {&p}, o);
    REQUIRE(r.timed);
    CHECK(r.stream.median > 0);
    CHECK(r.posenc.median > 0);
    CHECK(r.kernel.repetitions == 5);
    CHECK(r.ratio_to_stream() == doctest::Approx(r.kernel.median / r.stream.median));
    CHECK(r.ratio_to_posenc() == doctest::Approx(r.kernel.median / r.posenc.median));
    CHECK(r.table().find("naive float32: accuracy FAIL") != std::string::npos);
    CHECK(r.timing_verdict.too_short);  // 0.1 ms repetitions: below the 1 ms a run needs to be judged
    CHECK(r.table().find("WARNING: run too short") != std::string::npos);
}

}  // namespace bench_harness_tests
