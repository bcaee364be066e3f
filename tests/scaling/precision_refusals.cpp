// SPDX-License-Identifier: MIT
// Values that would become inf or 0 in the precision they are used in are refused under the
// name of the field that produced them (include/posenc/scaling/common.hpp, frequencies.hpp).
// Every expected number below is worked out by hand from IEEE 754 arithmetic (shown next to
// the check); none is read back from the library.
#include <posenc/posenc.hpp>
#include <posenc/scaling/scaling.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "scaling/checks.hpp"

namespace scaling_precision_refusals_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

using posenc_test::message_of;

namespace {
bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }
}  // namespace

TEST_CASE("[IEEE 754 double] dynamic NTK: factors from 2^53 on lose s - 1 and are refused; 2^53 - 1 keeps the base")
{
    // 2^53 = 9007199254740992: the first double whose predecessor-by-one (2^53 - 1) is exact but
    // whose s - 1 rounds back to s for s = 2^53 + 2 (spacing 2 there). 1e17: s - (s - 1) = 0.
    const char* rule = " must be < 2^53 = 9007199254740992 (the largest factor whose s - 1 is exact in double)";
    CHECK(message_of([] { return posenc::DynamicNtkScaling(9007199254740992.0, 4096); }) ==
          std::string("dynamic.factor 9007199254740992") + rule);
    CHECK(message_of([] { return posenc::DynamicNtkScaling(9007199254740994.0, 4096); }) ==
          std::string("dynamic.factor 9007199254740994") + rule);
    CHECK(message_of([] { return posenc::DynamicNtkScaling(1e17, 4096); }) ==
          std::string("dynamic.factor 1e+17") + rule);
    // 2^53 - 1: s n / L = s at n = L (s * L exact for L = 4096 = 2^12, then / L exact), s - 1
    // exact, so the growth term is exactly 1 and the init base is the spec's base, bit for bit.
    const posenc::RopeSpec spec = posenc::RopeSpec::full(128, 10000.0);
    const posenc::DynamicNtkScaling largest(9007199254740991.0, 4096);
    CHECK(posenc::dynamic_ntk_base(spec, largest) == 10000.0);
}

TEST_CASE("[IEEE 754 float32] dynamic NTK hf_float32: fl(s) n / L - fl(s - 1) = 0 is refused under dynamic.factor")
{
    // s = 2^30, L = 2^30, n = L + 1: fl(s) (x) fl(n) = 2^60 + 2^30 rounds to 2^60 in float32
    // (24-bit significand), (/) 2^30 = 2^30, fl(s - 1) = fl(2^30 - 1) = 2^30: x = 0, base 0.
    const posenc::RopeSpec spec = posenc::RopeSpec::full(128, 10000.0);
    const posenc::DynamicNtkScaling dynamic(1073741824.0, 1073741824);
    CHECK(message_of([&] {
              return posenc::dynamic_ntk_inv_freq(spec, dynamic, std::int64_t {1073741825},
                                                  posenc::Precision::hf_float32);
          }) ==
          "dynamic.factor 1073741824 makes the float32 scaled base 0 at sequence_length 1073741825 (must stay >= 1)");
    // The same call in exact arithmetic keeps x = 2^30 * (2^30 + 1) / 2^30 - (2^30 - 1) = 2.
    CHECK(message_of([&] { return posenc::dynamic_ntk_inv_freq(spec, dynamic, std::int64_t {1073741825}); }) ==
          "(no error)");
}

TEST_CASE("[IEEE 754 float32] LongRoPE factors that are 0 or subnormal in float32 are refused when built")
{
    const std::string rule =
        " must be >= 2^-126 = 1.1754943508222875e-38 (below it the factor is 0 or subnormal in float32, where "
        "Hugging Face divides by it)";
    const std::vector<double> ones(2, 1.0);
    // 1e-46 and 1e-300 round to 0 in float32; 1e-40 is a float32 subnormal (min normal 2^-126).
    for (double tiny : {1e-46, 1e-300, 1e-40}) {
        const std::vector<double> list {1.0, tiny};
        CHECK(message_of([&] { return posenc::LongRopeScaling(list, ones, 4096, 32.0); }) ==
              "longrope.short_factor[1] " + posenc::detail::format_value(tiny) + rule);
        CHECK(message_of([&] { return posenc::LongRopeScaling(ones, list, 4096, 32.0); }) ==
              "longrope.long_factor[1] " + posenc::detail::format_value(tiny) + rule);
    }
    // 2^-126 itself is normal: accepted.
    const std::vector<double> smallest {1.0, 1.1754943508222875e-38};
    CHECK(message_of([&] { return posenc::LongRopeScaling(smallest, ones, 4096, 32.0); }) == "(no error)");
}

TEST_CASE("[IEEE 754 float32] LongRoPE: a factor that overflows fl(ext) (x) base^(2j/R) names the list entry")
{
    // R = 4, base 10^4: pos_freqs = (1, 100). ext_1 = 3e38: 3e38 (x) 100 = inf in float32, so
    // 1 (/) inf = 0. In double theta_1 / ext_1 = 0.01 / 3e38 = 3.3e-41 is normal: accepted there.
    const posenc::RopeSpec spec = posenc::RopeSpec::full(4, 10000.0);
    const posenc::LongRopeScaling longrope({1.0, 3e38}, {1.0, 1.0}, 4096, 32.0);
    CHECK(message_of(
              [&] { return posenc::longrope_inv_freq(spec, longrope, std::nullopt, posenc::Precision::hf_float32); }) ==
          "longrope.short_factor[1] 3e+38 makes inv_freq[1] 0, not a normal float32 number (it would act as 0 or inf)");
    CHECK(message_of([&] { return posenc::longrope_inv_freq(spec, longrope); }) == "(no error)");
}

TEST_CASE("[attention factor range] outside [2^-10, 2^10] is refused under the field that set it")
{
    const std::string range = " must be in [2^-10, 2^10] = [0.0009765625, 1024] (the attention factor range)";
    const std::vector<double> one {1.0};
    CHECK(message_of([&] { return posenc::FrequencyTable(one, 1e300); }) == "attention_factor 1e+300" + range);
    CHECK(message_of([&] { return posenc::FrequencyTable(one, 1e-50); }) == "attention_factor 1e-50" + range);
    CHECK(message_of([&] { return posenc::FrequencyTable(one, 1024.0000000000002); }) ==
          "attention_factor 1024.0000000000002" + range);
    CHECK(message_of([&] { return posenc::FrequencyTable(one, 1024.0); }) == "(no error)");
    CHECK(message_of([&] { return posenc::FrequencyTable(one, 0.0009765625); }) == "(no error)");
    const posenc::YarnScaling yarn(4.0, 4096);
    CHECK(message_of([&] { return yarn.with_attention_factor(1e300); }) == "yarn.attention_factor 1e+300" + range);
    const posenc::LongRopeScaling longrope(one, one, 4096, 32.0);
    CHECK(message_of([&] { return longrope.with_attention_factor(2048.0); }) ==
          "longrope.attention_factor 2048" + range);
    // mscale 1e300: 0.1 * 1e300 * ln 4 + 1 = 1.4e299 > 1024.
    CHECK(message_of([&] { return yarn.with_mscale(1e300, 1.0); }) ==
          "yarn.mscale 1e+300 must keep 0.1 * mscale * ln(factor 4) + 1 <= 1024 (the attention factor range)");
    CHECK(message_of([&] { return yarn.with_mscale(1.0, 1e300); }) ==
          "yarn.mscale_all_dim 1e+300 must keep 0.1 * mscale_all_dim * ln(factor 4) + 1 <= 1024 (the attention factor "
          "range)");
}

TEST_CASE("[IEEE 754 double] a scaled inv_freq that underflows is refused under the method's factor or the base")
{
    // R = 128, base 1e300: theta_63 = 10^(-300 * 126 / 128) = 10^-295.3; / 3e38 = 1.6e-334,
    // below DBL_MIN = 2.2e-308 (the first pair to fall below is i = 58: 10^(-300 * 116 / 128)
    // / 3e38 = 4.4e-311): refused under linear.factor.
    const posenc::RopeSpec spec = posenc::RopeSpec::full(128, 1e300);
    const std::string linear = message_of([&] { return posenc::frequency_table(spec, posenc::LinearScaling(3e38)); });
    CHECK(starts_with(linear, "linear.factor 3e+38 makes inv_freq[58] "));
    CHECK(linear.find("not a normal double number") != std::string::npos);
    // R = 256, base 3e38 in float32: theta_127 = (3e38)^(-254/256) = 10^-38.17 = 6.7e-39, below
    // float32's 2^-126 = 1.18e-38 with no scaling at all: the base is named.
    const posenc::RopeSpec wide = posenc::RopeSpec::full(256, 3e38);
    const std::string none =
        message_of([&] { return posenc::frequency_table(wide, posenc::NoScaling {}, posenc::Precision::hf_float32); });
    CHECK(starts_with(none, "base 3e+38 makes inv_freq[127] "));
    CHECK(none.find("not a normal float32 number") != std::string::npos);
}

}  // namespace scaling_precision_refusals_tests
