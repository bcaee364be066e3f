// SPDX-License-Identifier: MIT
// YaRN against Hugging Face's values (docs/formulas.md H5 and H12).
//
// Provenance of the expected values:
//   * "HF float32" literals (9 significant digits) are the float32 values the Hugging Face rules of docs/formulas.md
//     H12 prints for transformers' `_compute_yarn_parameters` (+-1 ulp of torch);
//   * the 17-digit values are tests/scaling/hf_reference_values.py: the correction dims and
//     attention factors in Python double in HF's operation order, the float32 table by an
//     independent float32 emulation (struct rounding, mpmath pow), and the exact table as the
//     real-number formula in mpmath at 60 digits;
//   * the ratio columns of P3 (docs/formulas.md) (course small model worked example).
// Checked: float32 emulation within 2 ulp, exact mode within 1e-12 relative.
#include <posenc/spec.hpp>
#include <posenc/scaling/scaling.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "scaling/checks.hpp"

namespace scaling_hf_yarn_vectors_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

using posenc_test::relative_error;
using posenc_test::ulp_distance;

namespace {
struct InvVector {
    int pair;
    float hf32;  // float32 value (H12 literal or the Python emulation)
    double exact;  // mpmath, real-number formula
};

void check_inv(const posenc::RopeSpec& spec, const posenc::Scaling& scaling, const std::vector<InvVector>& vectors)
{
    const posenc::FrequencyTable f32 = posenc::frequency_table(spec, scaling, posenc::Precision::hf_float32);
    const posenc::FrequencyTable exact = posenc::frequency_table(spec, scaling);
    for (const InvVector& v : vectors) {
        CAPTURE(v.pair);
        CHECK(ulp_distance(static_cast<float>(f32.inv_freq(v.pair)), v.hf32) <= 2);
        CHECK(relative_error(exact.inv_freq(v.pair), v.exact) <= 1e-12);
    }
}
}  // namespace

TEST_CASE("[HF yarn] Qwen x4 (R 128, b 1e6, L0 32768): raw dims 23.5959 / 39.6509, range [23, 40], attention "
          "1.138629436111989")
{
    const posenc::RopeSpec spec(128, 128, 1e6);
    const posenc::YarnScaling yarn(4.0, 32768);
    const posenc::YarnCorrectionRange range = posenc::yarn_correction_range(spec, yarn);
    CHECK(relative_error(range.raw_low, 23.5959476083381) <= 1e-14);  // Python double
    CHECK(relative_error(range.raw_high, 39.6508807104171) <= 1e-14);
    CHECK(range.low == 23.0);
    CHECK(range.high == 40.0);
    CHECK(range.ramp_high == 40.0);
    CHECK(posenc::yarn_attention_factor(yarn) == 1.138629436111989);  // H12, Python double
    CHECK(posenc::frequency_table(spec, yarn).attention_factor() == 1.138629436111989);
}

TEST_CASE("[HF yarn] Qwen x4 inv_freq: [23] 0.00697830599, [24] 0.00537532149, [39] 6.4903943e-05, [40] 4.44569851e-05")
{
    check_inv(posenc::RopeSpec(128, 128, 1e6), posenc::YarnScaling(4.0, 32768),
              {{23, 0.00697830599f, 0.0069783058485986634},  // H12
               {24, 0.00537532149f, 0.0053753214907901015},
               {39, 6.4903943e-05f, 6.4903943208370288e-5},
               {40, 4.44569851e-05f, 4.445698525097307e-5},
               {0, 1.0f, 1.0},  // hf_reference_values.py
               {1, 0.8058422207832336f, 0.80584218776148182},
               {30, 0.0010643609566614032f, 0.0010643609812470018},
               {63, 3.102344408034696e-07f, 3.1023444018792989e-7}});
}

TEST_CASE("[HF yarn] DeepSeek-V3 x40 (R 64, b 1e4, L0 4096, mscale 1/1): range [10, 23], cos/sin factor 1, softmax "
          "scale 0.13523377886")
{
    const posenc::RopeSpec spec(64, 64, 1e4, posenc::Pairing::interleaved);
    const posenc::YarnScaling yarn = posenc::YarnScaling(40.0, 4096).with_betas(32.0, 1.0).with_mscale(1.0, 1.0);
    const posenc::YarnCorrectionRange range = posenc::yarn_correction_range(spec, yarn);
    CHECK(relative_error(range.raw_low, 10.472240810318025) <= 1e-14);
    CHECK(relative_error(range.raw_high, 22.513440636877274) <= 1e-14);
    CHECK(range.low == 10.0);
    CHECK(range.high == 23.0);
    CHECK(posenc::yarn_attention_factor(yarn) == 1.0);  // g(40,1) / g(40,1)
    CHECK(posenc::yarn_mscale(40.0, 1.0) == 1.3688879454113936);
    CHECK(relative_error(posenc::deepseek_softmax_scale(192, yarn), 0.1352337788608801) <= 1e-15);
    CHECK(relative_error(posenc::yarn_softmax_scale_multiplier(yarn), 1.3688879454113936 * 1.3688879454113936) <=
          1e-15);
    check_inv(spec, yarn,
              {{10, 0.0562341288f, 0.056234132519034908},  // H12
               {11, 0.0390069261f, 0.039006926567143858},
               {22, 0.00017782794f, 0.00017782794100389228},
               {23, 3.3338034e-05f, 3.3338035804083101e-5},
               {0, 1.0f, 1.0},  // hf_reference_values.py
               {31, 3.3338035336782923e-06f, 3.3338035804083101e-6}});
}

TEST_CASE(
    "[HF yarn] gpt-oss-20b truncate=false: lo 8.092779115512402, hi 17.39802450158856, attention 1.3465735902799727")
{
    const posenc::RopeSpec spec(64, 64, 150000.0);
    const posenc::YarnScaling yarn =
        posenc::YarnScaling(32.0, 4096).with_betas(32.0, 1.0).with_rounding(posenc::YarnCorrectionRounding::fractional);
    const posenc::YarnCorrectionRange range = posenc::yarn_correction_range(spec, yarn);
    CHECK(relative_error(range.low, 8.092779115512402) <= 1e-14);  // H12 (also vLLM PR #28244)
    CHECK(relative_error(range.high, 17.39802450158856) <= 1e-14);
    CHECK(posenc::yarn_attention_factor(yarn) == 1.3465735902799727);
    check_inv(spec, yarn,
              {{0, 1.0f, 1.0},  // H12
               {1, 0.689044297f, 0.68904430588816327},
               {8, 0.0508132726f, 0.050813274815461474},
               {9, 0.0317056961f, 0.031705696184663769},
               {17, 0.000129318694f, 0.00012931870124506328},
               {18, 3.83088118e-05f, 3.8308812373753383e-5},
               {31, 3.0235114e-07f, 3.0235114281192144e-7}});
}

TEST_CASE("[HF yarn transformers 4.48-4.55] the factor override: Qwen3-8B s = 40960/32768 = 1.25 (attention "
          "1.0223143551314209); Qwen2.5 s = 1")
{
    const posenc::YarnScaling qwen3 = posenc::YarnScaling(4.0, 32768).with_g2_factor_override(40960);
    CHECK(qwen3.factor() == 1.25);
    CHECK(posenc::yarn_attention_factor(qwen3) == 1.0223143551314209);  // H5, Python double
    // Qwen2.5 README snippet: L = L0 = 32768 -> s = 1, so YaRN is a no-op (attention factor 1.0).
    const posenc::RopeSpec spec(128, 128, 1e6);
    const posenc::YarnScaling qwen25 = posenc::YarnScaling(4.0, 32768).with_g2_factor_override(32768);
    CHECK(qwen25.factor() == 1.0);
    CHECK(posenc::yarn_attention_factor(qwen25) == 1.0);
    CHECK(posenc::frequency_table(spec, qwen25).inv_freq() == posenc::FrequencyTable::from_spec(spec).inv_freq());
}

TEST_CASE("[HF yarn] low == high gets high += 0.001 (R 32, b 1e4, L0 6: raw -6.10 / -0.08 -> [0, 0])")
{
    const posenc::RopeSpec spec(32, 32, 1e4);
    const posenc::YarnScaling yarn(4.0, 6);
    const posenc::YarnCorrectionRange range = posenc::yarn_correction_range(spec, yarn);
    CHECK(range.low == 0.0);
    CHECK(range.high == 0.0);
    CHECK(range.ramp_high == 0.001);
    // ramp_0 = 0, ramp_j = j / 0.001 -> 1: pair 0 kept, all others divided by 4.
    check_inv(spec, yarn,
              {{0, 1.0f, 1.0},
               {1, 0.14058533310890198f, 0.14058533129758727},
               {2, 0.07905694097280502f, 0.079056941504209483}});
}

TEST_CASE(
    "[HF yarn] the high clamp is R - 1, not R/2 - 1: R 16, b 10, L0 1024 -> [5, 15], pair 7 never fully interpolated")
{
    // c(1) = 17.70 -> ceil 18 -> min(18, 15) = 15 although only 8 pairs exist; ramp_7 = (7 - 5) / 10.
    const posenc::RopeSpec spec(16, 16, 10.0);
    const posenc::YarnScaling yarn(8.0, 1024);
    const posenc::YarnCorrectionRange range = posenc::yarn_correction_range(spec, yarn);
    CHECK(range.low == 5.0);
    CHECK(range.high == 15.0);
    const std::vector<double> ramp = posenc::yarn_ramp(spec, yarn);
    CHECK(ramp[7] == doctest::Approx(0.2).epsilon(1e-15));
    const posenc::FrequencyTable original = posenc::FrequencyTable::from_spec(spec);
    const posenc::FrequencyTable scaled = posenc::frequency_table(spec, yarn);
    CHECK(scaled.inv_freq(7) / original.inv_freq(7) == doctest::Approx(0.825).epsilon(1e-14));  // 0.8 + 0.2 / 8
    check_inv(spec, yarn,
              {{0, 1.0f, 1.0},
               {5, 0.23713736236095428f, 0.23713737056616553},
               {6, 0.1622679978609085f, 0.16226799616605171},
               {7, 0.11001552641391754f, 0.11001551815347423}});
}

TEST_CASE("[HF yarn] low beyond the clamp (R 16, b 10, L0 65536: low 20 > high 15) divides every pair by s, as HF does")
{
    const posenc::RopeSpec spec(16, 16, 10.0);
    const posenc::YarnScaling yarn(8.0, 65536);
    const posenc::YarnCorrectionRange range = posenc::yarn_correction_range(spec, yarn);
    CHECK(range.low == 20.0);
    CHECK(range.high == 15.0);
    check_inv(spec, yarn, {{0, 0.125f, 0.125}, {7, 0.0166690181940794f, 0.01666901790204155}});
}

TEST_CASE(
    "[YaRN paper / P3] course small model x4 (R 32, b 1e4, L0 128): HF range [0, 6], ratios 1, 7/8, 3/4, ..., 1/4")
{
    const posenc::RopeSpec spec(32, 32, 1e4);
    const posenc::YarnScaling yarn(4.0, 128);
    const posenc::YarnCorrectionRange range = posenc::yarn_correction_range(spec, yarn);
    CHECK(range.raw_low == doctest::Approx(-0.7845).epsilon(1e-4));  // P3 (docs/formulas.md)
    CHECK(range.raw_high == doctest::Approx(5.2361).epsilon(1e-4));
    CHECK(range.low == 0.0);
    CHECK(range.high == 6.0);
    const posenc::FrequencyTable original = posenc::FrequencyTable::from_spec(spec);
    const posenc::FrequencyTable scaled = posenc::frequency_table(spec, yarn);
    const double hf_ratio[] = {1.0, 0.875, 0.75, 0.625, 0.5, 0.375, 0.25};  // P3 (docs/formulas.md)
    for (int i = 0; i < 16; ++i) {
        CAPTURE(i);
        CHECK(scaled.inv_freq(i) / original.inv_freq(i) == doctest::Approx(hf_ratio[i < 6 ? i : 6]).epsilon(1e-14));
    }
    // truncate=False: gamma = 1 - ramp = 1, 0.8090, 0.6180, 0.4271, 0.2361, 0.0451, 0 (P3, docs/formulas.md).
    const std::vector<double> ramp =
        posenc::yarn_ramp(spec, yarn.with_rounding(posenc::YarnCorrectionRounding::fractional));
    const double gamma[] = {1.0, 0.8090, 0.6180, 0.4271, 0.2361, 0.0451, 0.0};
    for (int i = 0; i < 7; ++i)
        CHECK(1.0 - ramp[static_cast<std::size_t>(i)] == doctest::Approx(gamma[i]).epsilon(1e-4));
    check_inv(spec, yarn,
              {{1, 0.4920486509799957f, 0.49204865954155545}, {3, 0.11114246398210526f, 0.11114246312743268}});
}

TEST_CASE("[HF yarn] YaRN is static: the same table at every sequence length")
{
    const posenc::RopeSpec spec(128, 128, 1e6);
    const posenc::YarnScaling yarn(4.0, 32768);
    const std::vector<double> init = posenc::frequency_table(spec, yarn).inv_freq();
    CHECK(posenc::frequency_table(spec, yarn, 1).inv_freq() == init);
    CHECK(posenc::frequency_table(spec, yarn, 1'000'000).inv_freq() == init);
}

TEST_CASE("[HF yarn] beta_fast = beta_slow (Kimi K2: 1 and 1): a one-pair ramp, as _compute_yarn_parameters builds it")
{
    // modeling_rope_utils.py accepts equal betas (it warns only for beta_fast < beta_slow):
    // low = floor(c(1)), high = ceil(c(1)), c(r) = R ln(L0 / (2 pi r)) / (2 ln b), and
    // linear_ramp_factor widens an empty range by 0.001. Kimi K2's rope slice: R 64, b 50000,
    // L0 4096, s 64: c(1) = 19.16..., so pairs 0..19 keep theta_j and 20..31 divide it by 64.
    const posenc::RopeSpec spec(64, 64, 50000.0, posenc::Pairing::interleaved);
    const posenc::YarnScaling yarn = posenc::YarnScaling(64.0, 4096).with_betas(1.0, 1.0);
    const double pi = 3.14159265358979323846;
    const double c = 64.0 * std::log(4096.0 / (2.0 * pi)) / (2.0 * std::log(50000.0));
    REQUIRE(std::floor(c) == 19.0);
    REQUIRE(std::ceil(c) == 20.0);
    const posenc::FrequencyTable exact = posenc::frequency_table(spec, posenc::Scaling(yarn));
    for (int j = 0; j < 32; ++j) {
        CAPTURE(j);
        const double theta = std::pow(50000.0, -2.0 * j / 64.0);
        CHECK(relative_error(exact.inv_freq(j), j <= 19 ? theta : theta / 64.0) <= 1e-12);
    }
    // Both correction dims at 0 (L0 of 1 token, betas 0.2): low = high = 0, the ramp's
    // denominator 0.001: pair 0 keeps theta, every other pair is divided by s.
    const posenc::YarnScaling tiny = posenc::YarnScaling(4.0, 1).with_betas(0.2, 0.2);
    const posenc::RopeSpec small(32, 32, 1e4);
    const double c_tiny = 32.0 * std::log(1.0 / (2.0 * pi * 0.2)) / (2.0 * std::log(1e4));  // -0.397
    REQUIRE(std::floor(c_tiny) == -1.0);  // clamped to 0
    REQUIRE(std::ceil(c_tiny) == 0.0);
    const posenc::FrequencyTable t = posenc::frequency_table(small, posenc::Scaling(tiny));
    for (int j = 0; j < 16; ++j) {
        CAPTURE(j);
        const double theta = std::pow(1e4, -2.0 * j / 32.0);
        CHECK(relative_error(t.inv_freq(j), j == 0 ? theta : theta / 4.0) <= 1e-12);
    }
}

}  // namespace scaling_hf_yarn_vectors_tests
