// SPDX-License-Identifier: MIT
// The GGUF factor tensors of posenc/export/rope_freqs.hpp against llama.cpp's conversion rule
// restated here (convert_hf_to_gguf.py: rope_freqs = 1 below the high-frequency wavelength,
// factor above the low-frequency one, 1 / ((1 - smooth) / factor + smooth) between; LongRoPE's
// rope_factors_long / rope_factors_short = the config's lists as float32).
//
// Provenance: the expected factors are evaluated here in long double from the rule (theta_i =
// base^(-2i/R) with powl), independently of posenc's Llama 3 code; the band counts (29 kept,
// 6 smoothed, 29 divided for Llama 3.1 8B) are Meta's published band split (docs/formulas.md P6).
#include <posenc/export/rope_freqs.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

namespace export_rope_freqs_tests {  // per-file namespace: a folder builds as one unit

TEST_CASE("[llama.cpp rope_freqs] Llama 3.1 8B: 29 pairs 1, 6 smoothed, 29 pairs 8, each the rule in long double "
          "rounded to float")
{
    const posenc::RopeSpec spec(128, 128, 500000.0);
    const posenc::Llama3Scaling llama(8.0, 1.0, 4.0, 8192);
    const std::vector<posenc::exports::GgufRopeFactors> tensors = posenc::exports::gguf_rope_factors(spec, llama);
    REQUIRE(tensors.size() == 1u);
    CHECK(tensors[0].name == "rope_freqs");
    const std::vector<float>& f = tensors[0].values;
    REQUIRE(f.size() == 64u);
    int kept = 0, smoothed = 0, divided = 0;
    for (int i = 0; i < 64; ++i) {
        const long double theta = powl(500000.0L, -2.0L * i / 128.0L);
        const long double wavelength = 2.0L * 3.14159265358979323846264338327950288L / theta;
        long double expected;
        if (wavelength < 8192.0L / 4.0L) {
            expected = 1.0L;
            ++kept;
        } else if (wavelength > 8192.0L / 1.0L) {
            expected = 8.0L;
            ++divided;
        } else {
            const long double smooth = (8192.0L / wavelength - 1.0L) / (4.0L - 1.0L);
            expected = 1.0L / ((1.0L - smooth) / 8.0L + smooth);
            ++smoothed;
        }
        const float e = static_cast<float>(expected);
        CHECK(std::fabs(f[static_cast<std::size_t>(i)] - e) <= std::nextafter(e, 100.0f) - e);  // within 1 float ulp
    }
    CHECK(kept == 29);
    CHECK(smoothed == 6);
    CHECK(divided == 29);
}

TEST_CASE("[llama.cpp rope_factors] LongRoPE writes the long and short factor lists as float32")
{
    const posenc::RopeSpec spec(8, 8, 10000.0);
    const std::vector<double> short_factor = {1.0, 1.5, 2.25, 3.0};
    const std::vector<double> long_factor = {1.0, 4.0, 16.0, 1.0000000001};
    const posenc::LongRopeScaling longrope(short_factor, long_factor, 4096, 32.0);
    const auto tensors = posenc::exports::gguf_rope_factors(spec, longrope);
    REQUIRE(tensors.size() == 2u);
    CHECK(tensors[0].name == "rope_factors_long");
    CHECK(tensors[1].name == "rope_factors_short");
    CHECK(tensors[0].values == std::vector<float> {1.0f, 4.0f, 16.0f, 1.0f});  // 1 + 1e-10 rounds to 1 in float32
    CHECK(tensors[1].values == std::vector<float> {1.0f, 1.5f, 2.25f, 3.0f});
}

TEST_CASE("[llama.cpp rope_freqs] scalings without a factor tensor are refused naming the rope type")
{
    const posenc::RopeSpec spec(64, 64, 10000.0);
    try {
        (void)posenc::exports::gguf_rope_factors(spec, posenc::LinearScaling(4.0));
        FAIL("no error");
    } catch (const posenc::error& e) {
        CHECK(std::string(e.what()) ==
              "rope_type \"linear\" has no per-pair factor tensor in GGUF (only llama3 and longrope)");
    }
}

}  // namespace export_rope_freqs_tests
