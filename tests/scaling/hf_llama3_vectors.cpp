// SPDX-License-Identifier: MIT
// Llama 3 scaling against Hugging Face's values (docs/formulas.md H7 and H12) and
// Meta's band description (docs/formulas.md P6).
//
// Provenance: the 9-digit float32 literals and the wavelengths are H7 (docs/formulas.md)
// (emulated float32, +-1 ulp of torch); the 17-digit values come from
// tests/scaling/hf_reference_values.py (independent float32 emulation / mpmath real-number formula);
// the smoothed-pair table (lambda, smooth, theta'/theta) is P6 (docs/formulas.md)
#include <posenc/spec.hpp>
#include <posenc/scaling/scaling.hpp>

#include <doctest/doctest.h>

#include <vector>

#include "scaling/checks.hpp"

namespace scaling_hf_llama3_vectors_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

using posenc_test::relative_error;
using posenc_test::ulp_distance;

namespace {
std::vector<posenc::Llama3Band> expected_bands(int pairs, int first_smoothed, int first_divided)
{
    std::vector<posenc::Llama3Band> bands;
    for (int j = 0; j < pairs; ++j)
        bands.push_back(j < first_smoothed  ? posenc::Llama3Band::kept
                        : j < first_divided ? posenc::Llama3Band::smoothed
                                            : posenc::Llama3Band::divided);
    return bands;
}
}  // namespace

TEST_CASE(
    "[HF llama3] Llama-3.1-8B (R 128, b 5e5, s 8, 1/4, L0 8192): pairs 0-28 kept, 29-34 smoothed, 35-63 divided by 8")
{
    const posenc::RopeSpec spec(128, 128, 5e5);
    const posenc::Llama3Scaling llama(8.0, 1.0, 4.0, 8192);
    CHECK(posenc::llama3_bands(spec, llama) == expected_bands(64, 29, 35));
    CHECK(posenc::llama3_bands(spec, llama, posenc::Precision::hf_float32) == expected_bands(64, 29, 35));
    CHECK(llama.low_freq_wavelength() == 8192.0);
    CHECK(llama.high_freq_wavelength() == 2048.0);
    // Boundary wavelengths (H7): wl[28] = 1956.50, wl[29] = 2401.74, wl[34] = 6695.11, wl[35] = 8218.72.
    const posenc::FrequencyTable original = posenc::FrequencyTable::from_spec(spec);
    CHECK(original.period(28) == doctest::Approx(1956.50).epsilon(5e-6));
    CHECK(original.period(29) == doctest::Approx(2401.74).epsilon(5e-6));
    CHECK(original.period(34) == doctest::Approx(6695.11).epsilon(5e-6));
    CHECK(original.period(35) == doctest::Approx(8218.72).epsilon(5e-6));
    CHECK(posenc::frequency_table(spec, llama).attention_factor() == 1.0);
}

TEST_CASE(
    "[HF llama3] Llama-3.1 inv_freq: [28] 0.00321144611, [29] 0.00216657063, [34] 0.000178507791, [35] 9.55621217e-05")
{
    const posenc::RopeSpec spec(128, 128, 5e5);
    const posenc::Llama3Scaling llama(8.0, 1.0, 4.0, 8192);
    const posenc::FrequencyTable f32 = posenc::frequency_table(spec, llama, posenc::Precision::hf_float32);
    const posenc::FrequencyTable exact = posenc::frequency_table(spec, llama);
    const struct {
        int pair;
        float hf32;
        double exact;
    } vectors[] = {{28, 0.00321144611f, 0.003211445994752591},  // H7 / mpmath
                   {29, 0.00216657063f, 0.0021665707635033586},
                   {34, 0.000178507791f, 0.00017850781276799642},
                   {35, 9.55621217e-05f, 9.556212353964683e-5},
                   {63, 3.06892588e-07f, 3.0689259889145111e-7},
                   {0, 1.0f, 1.0},
                   {30, 0.0013718936825171113f, 0.0013718935677611382}};
    for (const auto& v : vectors) {
        CAPTURE(v.pair);
        CHECK(ulp_distance(static_cast<float>(f32.inv_freq(v.pair)), v.hf32) <= 2);
        CHECK(relative_error(exact.inv_freq(v.pair), v.exact) <= 1e-12);
    }
}

TEST_CASE("[Llama 3.1 / P6] Llama 3.1 smoothed pairs: theta'/theta = 0.8282, 0.6437, 0.4935, 0.3711, 0.2714, 0.1902")
{
    const posenc::RopeSpec spec(128, 128, 5e5);
    const posenc::FrequencyTable original = posenc::FrequencyTable::from_spec(spec);
    const posenc::FrequencyTable scaled = posenc::frequency_table(spec, posenc::Llama3Scaling(8.0, 1.0, 4.0, 8192));
    const double ratio[] = {0.8282, 0.6437, 0.4935, 0.3711, 0.2714, 0.1902};  // pairs 29..34
    for (int j = 29; j <= 34; ++j) {
        CAPTURE(j);
        CHECK(scaled.inv_freq(j) / original.inv_freq(j) == doctest::Approx(ratio[j - 29]).epsilon(2e-4));
    }
    // Pair 35 has wavelength 8218.7 > 8192: exactly 1/8; pair 28 exactly kept.
    CHECK(scaled.inv_freq(35) == original.inv_freq(35) / 8.0);
    CHECK(scaled.inv_freq(28) == original.inv_freq(28));
}

TEST_CASE("[HF llama3] Llama-3.2-1B (R 64, s 32): pairs 0-14 kept, 15-17 smoothed, 18-31 divided by 32")
{
    const posenc::RopeSpec spec(64, 64, 5e5);
    const posenc::Llama3Scaling llama(32.0, 1.0, 4.0, 8192);
    CHECK(posenc::llama3_bands(spec, llama) == expected_bands(32, 15, 18));
    CHECK(posenc::llama3_bands(spec, llama, posenc::Precision::hf_float32) == expected_bands(32, 15, 18));
    const posenc::FrequencyTable f32 = posenc::frequency_table(spec, llama, posenc::Precision::hf_float32);
    const posenc::FrequencyTable exact = posenc::frequency_table(spec, llama);
    const struct {
        int pair;
        float hf32;
        double exact;
    } vectors[] = {{14, 0.0032114461064338684f, 0.003211445994752591},  // hf_reference_values.py
                   {15, 0.0012905480107292533f, 0.0012905479282092638},
                   {17, 9.708286233944818e-05f, 9.7082878026276723e-5},
                   {18, 1.9461638657958247e-05f, 1.9461638184831124e-5},
                   {31, 9.418306490260875e-08f, 9.4183067254349098e-8}};
    for (const auto& v : vectors) {
        CAPTURE(v.pair);
        CHECK(ulp_distance(static_cast<float>(f32.inv_freq(v.pair)), v.hf32) <= 2);
        CHECK(relative_error(exact.inv_freq(v.pair), v.exact) <= 1e-12);
    }
}

}  // namespace scaling_hf_llama3_vectors_tests
