// SPDX-License-Identifier: MIT
// The default (unscaled) inverse frequencies against Hugging Face's float32 check values,
// H2 (docs/formulas.md): b = 1e4, R = 128, float32:
//   inv[0] = 1, inv[1] = 0.865964353, inv[2] = 0.749894202, inv[32] = 0.00999999978,
//   inv[63] = 0.000115478193.
// posenc keeps theta in double; rounded to float32 it must land within one float32 ulp of
// Hugging Face's value (HF rounds the exponent and the pow result separately).
#include <posenc/angles.hpp>
#include <posenc/frequencies.hpp>
#include <posenc/spec.hpp>

#include <doctest/doctest.h>

#include <cmath>

namespace reference_hf_default_inv_freq_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

TEST_CASE("[HF default] b = 1e4, R = 128: double theta_i rounds to Hugging Face's float32 values within 1 ulp")
{
    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(posenc::RopeSpec(128, 128, 1e4));
    const struct {
        int pair;
        float hf;
    } checks[] = {{0, 1.0f}, {1, 0.865964353f}, {2, 0.749894202f}, {32, 0.00999999978f}, {63, 0.000115478193f}};
    for (const auto& c : checks) {
        CAPTURE(c.pair);
        const float ours = static_cast<float>(table.inv_freq(c.pair));
        const float ulp = std::nextafter(c.hf, 2.0f) - c.hf;
        CHECK(std::abs(ours - c.hf) <= ulp);
    }
}

TEST_CASE("[closed form] theta_i = base^(-2i/R): theta_{R/4} = base^(-1/2), theta_{R/2-1} * base = base^(2/R)")
{
    for (double base : {1e4, 1e6, 1e7, 500000.0})
        for (int rotary_dim : {32, 64, 128}) {
            const posenc::RopeSpec spec(rotary_dim, rotary_dim, base);
            CHECK(posenc::inv_freq(spec, rotary_dim / 4) == doctest::Approx(1.0 / std::sqrt(base)).epsilon(1e-15));
            CHECK(posenc::inv_freq(spec, rotary_dim / 2 - 1) * base ==
                  doctest::Approx(std::pow(base, 2.0 / rotary_dim)).epsilon(1e-14));
        }
}

}  // namespace reference_hf_default_inv_freq_tests
