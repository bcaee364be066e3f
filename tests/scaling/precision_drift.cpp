// SPDX-License-Identifier: MIT
// How far Hugging Face's float32 angles drift from exact ones, and what exact mode delivers at
// large positions (docs/formulas.md H9 and H14).
//
// Table: Qwen3-8B under YaRN x4 (R 128, b 1e6, L0 32768). Hugging Face float32 angle of pair j at
// position m: fl(inv32_j (x) fl(m)); exact angle: m * theta'_j with theta'_j the real-number YaRN
// frequency. Expected drifts (hf - exact, folded into [-pi, pi]) come from
// tests/scaling/hf_reference_values.py: the float32 table by an independent emulation, the exact
// angle in mpmath at 60 digits. Exact-mode angles at 2^24 + 1 and 2^31 - 1 likewise.
#include <posenc/spec.hpp>
#include <posenc/scaling/scaling.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <utility>

#include "scaling/checks.hpp"

namespace scaling_precision_drift_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

using posenc_test::relative_error;
using posenc_test::ulp_distance;
using posenc_test::wrap_angle;

namespace {
const posenc::RopeSpec qwen3_spec(128, 128, 1e6);
const posenc::YarnScaling qwen3_yarn(4.0, 32768);

double drift(const posenc::FrequencyTable& f32, const posenc::FrequencyTable& exact, std::int64_t m, int pair)
{
    return wrap_angle(posenc::rotation_angle(f32, m, pair, posenc::Precision::hf_float32) -
                      posenc::rotation_angle(exact, m, pair, posenc::Precision::exact));
}

// Exact mode's own error at position m: the double theta' is within (3 + ln b) 2^-52 relative of
// the real one (yarn.hpp), which m multiplies, plus the reduction's 4e-15 rad.
double exact_mode_bound(std::int64_t m, double theta)
{
    return static_cast<double>(m) * theta * (3.0 + std::log(1e6)) * 0x1p-52 + 4e-15;
}

// The pair whose float32 angle drifts most from the exact one at position m, and that |drift|.
std::pair<int, double> largest_drift(const posenc::FrequencyTable& f32, const posenc::FrequencyTable& exact,
                                     std::int64_t m)
{
    int worst_pair = 0;
    double worst = 0.0;
    for (int j = 0; j < exact.num_pairs(); ++j) {
        const double d = std::abs(drift(f32, exact, m, j));
        if (d > worst) {
            worst = d;
            worst_pair = j;
        }
    }
    return {worst_pair, worst};
}

}  // namespace

TEST_CASE("[HF float32] Qwen3-8B YaRN x4 at position 131,072: float32 angles drift up to 0.0056 rad (pair 3)")
{
    const posenc::FrequencyTable f32 = posenc::frequency_table(qwen3_spec, qwen3_yarn, posenc::Precision::hf_float32);
    const posenc::FrequencyTable exact = posenc::frequency_table(qwen3_spec, qwen3_yarn);
    const std::int64_t m = 131072;
    const struct {
        int pair;
        double drift;
    } expected[] = {{0, 0.0},
                    {1, 0.0043282270552818384},
                    {2, 0.00078604283050353848},
                    {23, 1.8273413492912912e-5},
                    {40, -2.614391137568046e-8}};
    for (const auto& e : expected) {
        CAPTURE(e.pair);
        CHECK(std::abs(drift(f32, exact, m, e.pair) - e.drift) <= exact_mode_bound(m, exact.inv_freq(e.pair)));
    }
    const auto [worst_pair, worst] = largest_drift(f32, exact, m);
    CHECK(worst_pair == 3);
    CHECK(worst == doctest::Approx(0.00562796712824).epsilon(1e-8));
    // The float32 angle itself: pair 1 at 131072 is the float 105623.3515625, reduced 3.0065488111513229.
    CHECK(posenc::rotation_angle(f32, m, 1, posenc::Precision::hf_float32) ==
          doctest::Approx(3.0065488111513229).epsilon(1e-15));
}

TEST_CASE("[HF float32] ... and at position 1,000,000: up to 0.062 rad (pair 1)")
{
    const posenc::FrequencyTable f32 = posenc::frequency_table(qwen3_spec, qwen3_yarn, posenc::Precision::hf_float32);
    const posenc::FrequencyTable exact = posenc::frequency_table(qwen3_spec, qwen3_yarn);
    const std::int64_t m = 1'000'000;
    const struct {
        int pair;
        double drift;
    } expected[] = {{0, 0.0},
                    {1, 0.062238518182997425},
                    {2, -0.0065762113151280328},
                    {23, 0.00030374508661585168},
                    {40, 2.2265974246936447e-7}};
    for (const auto& e : expected) {
        CAPTURE(e.pair);
        CHECK(std::abs(drift(f32, exact, m, e.pair) - e.drift) <= exact_mode_bound(m, exact.inv_freq(e.pair)));
    }
    const auto [worst_pair, worst] = largest_drift(f32, exact, m);
    CHECK(worst_pair == 1);
    CHECK(worst == doctest::Approx(0.062238518183).epsilon(1e-8));
}

TEST_CASE("[HF float32] the drift is the product rounding plus the float32 frequency's error times the position")
{
    // |fl(a m) - theta m| <= |a m| 2^-24 + m |a - theta| with a the float32 inv_freq and m <= 2^24
    // exact in float32 (one rounding of the exact product a m): checked for every pair at both positions.
    const posenc::FrequencyTable f32 = posenc::frequency_table(qwen3_spec, qwen3_yarn, posenc::Precision::hf_float32);
    const posenc::FrequencyTable exact = posenc::frequency_table(qwen3_spec, qwen3_yarn);
    for (std::int64_t m : {std::int64_t {131072}, std::int64_t {1'000'000}})
        for (int j = 0; j < 64; ++j) {
            CAPTURE(m);
            CAPTURE(j);
            const double a = f32.inv_freq(j);
            const double bound = std::ldexp(a * static_cast<double>(m), -24) +
                                 static_cast<double>(m) * std::abs(a - exact.inv_freq(j)) +
                                 exact_mode_bound(m, exact.inv_freq(j));
            CHECK(std::abs(drift(f32, exact, m, j)) <= bound);
        }
}

TEST_CASE("[HF float32] cos/sin = fl(cos a) (x) fl(attention factor): pair 1 at 131,072, float32 vs exact")
{
    const posenc::FrequencyTable f32 = posenc::frequency_table(qwen3_spec, qwen3_yarn, posenc::Precision::hf_float32);
    const posenc::FrequencyTable exact = posenc::frequency_table(qwen3_spec, qwen3_yarn);
    const posenc::CosSin hf = posenc::cos_sin(f32, 131072, 1, posenc::Precision::hf_float32);
    CHECK(ulp_distance(static_cast<float>(hf.cos), -1.1282627582550049f) <= 1);
    CHECK(ulp_distance(static_cast<float>(hf.sin), 0.15329794585704803f) <= 1);
    const posenc::CosSin ex = posenc::cos_sin(exact, 131072, 1, posenc::Precision::exact);
    // attention factor 1.138629 included; exact mode's bound at 131072 (exact_mode_bound) is 3.9e-10 rad.
    const double bound = 1.14 * exact_mode_bound(131072, exact.inv_freq(1));
    CHECK(std::abs(ex.cos - -1.1275886296656842) <= bound);
    CHECK(std::abs(ex.sin - 0.15817988187304583) <= bound);
    const posenc::CosSin hf_far = posenc::cos_sin(f32, 1'000'000, 1, posenc::Precision::hf_float32);
    CHECK(ulp_distance(static_cast<float>(hf_far.cos), 0.19533921778202057f) <= 1);
    CHECK(ulp_distance(static_cast<float>(hf_far.sin), -1.121748447418213f) <= 1);
    const posenc::CosSin ex_far = posenc::cos_sin(exact, 1'000'000, 1, posenc::Precision::exact);
    // exact mode's bound at 1e6: 1e6 * 0.806 * (3 + ln 1e6) 2^-52 = 3e-9 rad, times the factor 1.14.
    const double bound_far = 1.14 * exact_mode_bound(1'000'000, exact.inv_freq(1));
    CHECK(std::abs(ex_far.cos - 0.12519010311258159) <= bound_far);
    CHECK(std::abs(ex_far.sin - -1.1317263056337285) <= bound_far);
}

TEST_CASE("[exact] Precision::exact at positions 2^24 + 1 and 2^31 - 1 stays within its stated bound of mpmath")
{
    const posenc::FrequencyTable exact = posenc::frequency_table(qwen3_spec, qwen3_yarn);
    const struct {
        std::int64_t m;
        int pair;
        double reduced;
    } vectors[] = {{16777217, 1, 1.8157732140999608},     {16777217, 30, 0.20250570949530439},
                   {16777217, 40, -1.8345628329961337},   {2147483647, 1, 2.8016230399720989},
                   {2147483647, 30, 0.65068702009975229}, {2147483647, 40, -2.3519212089577887}};
    for (const auto& v : vectors) {
        CAPTURE(v.m);
        CAPTURE(v.pair);
        const double bound = exact_mode_bound(v.m, exact.inv_freq(v.pair));
        CHECK(std::abs(wrap_angle(posenc::rotation_angle(exact, v.m, v.pair, posenc::Precision::exact) - v.reduced)) <=
              bound);
        CHECK(bound < 1e-5);  // 2^31 * 0.806 * 3.7e-15 = 6.4e-6 rad at worst
    }
}

TEST_CASE("[HF float32] beyond 2^24 float32 positions collide: token 2^24 + 1 gets token 2^24's angle")
{
    // docs/formulas.md H9: position ids become float32, exact only up to 2^24.
    const posenc::FrequencyTable f32 = posenc::frequency_table(qwen3_spec, qwen3_yarn, posenc::Precision::hf_float32);
    const posenc::FrequencyTable exact = posenc::frequency_table(qwen3_spec, qwen3_yarn);
    const std::int64_t p = std::int64_t {1} << 24;
    CHECK(posenc::rotation_angle(f32, p + 1, 0, posenc::Precision::hf_float32) ==
          posenc::rotation_angle(f32, p, 0, posenc::Precision::hf_float32));
    // exact mode separates them by theta_0 = 1 rad.
    CHECK(wrap_angle(posenc::rotation_angle(exact, p + 1, 0, posenc::Precision::exact) -
                     posenc::rotation_angle(exact, p, 0, posenc::Precision::exact)) ==
          doctest::Approx(1.0).epsilon(1e-14));
}

}  // namespace scaling_precision_drift_tests
