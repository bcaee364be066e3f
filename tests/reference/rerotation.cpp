// SPDX-License-Identifier: MIT
// Re-rotating cached keys from one table to another (rerotation.hpp) against a direct rotation
// with the new table (apply_rope_reference, itself checked against mpmath in this folder), at
// positions up to 2^31 - 1, within the bound the header states; the angle difference against
// mpmath at 400 bits (tests/reference/rerotation_reference_values.py).
#include <posenc/rerotation.hpp>
#include <posenc/rotation.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "support/error_messages.hpp"

namespace reference_rerotation_tests {  // per-file namespace: a folder builds as one unit

using test_support::message_of;

struct DifferenceVector {
    std::int64_t position;
    double from, to;
    double difference;  // mpmath, 25 digits
};

const DifferenceVector differences[] = {
    {2147483647, 0x1.0000000000000p+0, 0x1.0000000000000p-1, 1.165339702916325319990514},
    {2147483647, 0x1.8030294777ee5p-1, 0x1.7953df4b3d834p-1, 1.875787666096144919690362},
    {4097, 0x1.8030294777ee5p-1, 0x1.7953df4b3d834p-1, 1.651236938297874307662641},
    {1000000, 0x1.4d36d075a7054p-15, 0x1.f63022ca09149p-20, -0.1523102733179741650925721},
};

TEST_CASE("[mpmath 400 bits] angle_difference: m theta_to - m theta_from folded into [-pi, pi], error < 9e-15 rad")
{
    for (const DifferenceVector& v : differences)
        CHECK(std::abs(posenc::angle_difference(v.position, v.from, v.to) - v.difference) < 9e-15);
}

// A short and a long table of 8 pairs (LongRoPE-like: every frequency divided by its own factor),
// and a magnitude change as PhiMoE's (1.1 -> 1.3).
std::vector<double> divided(const std::vector<double>& factors)
{
    std::vector<double> out;
    for (std::size_t j = 0; j < factors.size(); ++j)
        out.push_back(std::pow(10000.0, -2.0 * static_cast<double>(j) / 16.0) / factors[j]);
    return out;
}
const posenc::FrequencyTable short_table(divided({1.0, 1.1, 1.3, 1.5, 2.0, 2.0, 2.5, 3.0}), 1.1);
const posenc::FrequencyTable long_table(divided({1.0, 1.2, 2.0, 5.0, 9.0, 30.0, 60.0, 64.0}), 1.3);
const std::int64_t positions[] = {0, 1, 4095, 4096, 4097, 65537, 1000000, 123456789, 2147483646, 2147483647};

template <class T>
std::vector<T> test_keys(int tokens, int heads, int head_dim)
{
    std::vector<T> k(static_cast<std::size_t>(tokens * heads * head_dim));
    for (std::size_t i = 0; i < k.size(); ++i)
        k[i] = static_cast<T>(std::sin(0.7 * static_cast<double>(i) + 0.3) * 3.0);
    return k;
}

/// Largest per-pair error |got - want| / |original pair| over the buffer.
template <class T>
double worst_pair_error(const posenc::RopeSpec& spec, const std::vector<T>& got, const std::vector<T>& want,
                        const std::vector<T>& original, int heads_total)
{
    double worst = 0.0;
    const std::size_t d = static_cast<std::size_t>(spec.head_dim());
    for (int h = 0; h < heads_total; ++h)
        for (int i = 0; i < spec.num_pairs(); ++i) {
            const posenc::PairCoordinates p = spec.pair_coordinates(i);
            const std::size_t a = static_cast<std::size_t>(h) * d + static_cast<std::size_t>(p.first);
            const std::size_t b = static_cast<std::size_t>(h) * d + static_cast<std::size_t>(p.second);
            const double norm = std::hypot(static_cast<double>(original[a]), static_cast<double>(original[b]));
            const double err = std::hypot(static_cast<double>(got[a]) - static_cast<double>(want[a]),
                                          static_cast<double>(got[b]) - static_cast<double>(want[b]));
            worst = std::max(worst, err / norm);
        }
    return worst;
}

template <class T>
double rerotation_vs_direct(const posenc::RopeSpec& spec)
{
    const int tokens = 10, heads = 3;
    const std::vector<T> original = test_keys<T>(tokens, heads, spec.head_dim());
    std::vector<T> cached = original, direct = original;
    for (int t = 0; t < tokens; ++t)
        for (int h = 0; h < heads; ++h) {
            T* at = cached.data() + (t * heads + h) * spec.head_dim();
            posenc::apply_rope_reference(spec, short_table, at, positions[t]);
            posenc::apply_rope_reference(spec, long_table, direct.data() + (t * heads + h) * spec.head_dim(),
                                         positions[t]);
        }
    posenc::rerotate_keys(spec, short_table, long_table, cached.data(), tokens, heads, positions);
    return worst_pair_error(spec, cached, direct, original, tokens * heads);
}

TEST_CASE("[direct rotation] double keys re-rotated short -> long equal the long-table rotation within 3e-14 rho |x| "
          "up to 2^31 - 1")
{
    const double rho = 1.3 / 1.1;
    // The header's 1.2e-14 rho |x| plus the two reference rotations' own 1e-14 A |x| each.
    CHECK(rerotation_vs_direct<double>(posenc::RopeSpec(16, 16, 10000.0)) < 3.5e-14 * rho);
    CHECK(rerotation_vs_direct<double>(posenc::RopeSpec(16, 16, 10000.0, posenc::Pairing::interleaved)) <
          3.5e-14 * rho);
}

TEST_CASE("[direct rotation] float keys: within (2^-24 (1 + rho) + 1.2e-14 rho) sqrt(2) |x| plus the direct rotation's "
          "rounding")
{
    const double rho = 1.3 / 1.1, u = std::ldexp(1.0, -24);
    // cached: rounding of the first rotation (u A_old |x| per coordinate), carried over times rho,
    // and the final rounding; direct: its own final rounding (u A_new |x|).
    const double bound = ((u * 1.1 * rho + u * 1.3 + 1.2e-14 * rho) * std::sqrt(2.0)) + u * 1.3 * std::sqrt(2.0);
    CHECK(rerotation_vs_direct<float>(posenc::RopeSpec(16, 16, 10000.0)) < bound);
    CHECK(rerotation_vs_direct<float>(posenc::RopeSpec(24, 16, 10000.0, posenc::Pairing::interleaved, 8)) < bound);
}

TEST_CASE(
    "[identity] the slice [rotary_offset, rotary_offset + rotary_dim) moves; the other coordinates stay bit-identical")
{
    const posenc::RopeSpec spec = posenc::RopeSpec::suffix(24, 16, 10000.0, posenc::Pairing::interleaved);
    std::vector<float> k = test_keys<float>(1, 1, 24);
    const std::vector<float> before = k;
    posenc::rerotate_head(spec, short_table, long_table, k.data(), 1000000);
    for (int d = 0; d < 8; ++d) CHECK(k[static_cast<std::size_t>(d)] == before[static_cast<std::size_t>(d)]);
    int changed = 0;
    for (int d = 8; d < 24; ++d)
        changed += k[static_cast<std::size_t>(d)] != before[static_cast<std::size_t>(d)] ? 1 : 0;
    CHECK(changed > 8);
}

TEST_CASE("[identity] equal frequencies with equal attention factors (zero-frequency pairs included) leave keys "
          "bit-identical")
{
    const posenc::RopeSpec spec(8, 8, 10000.0);
    const posenc::FrequencyTable from({1.0, 0.5, 0.0, 0.0}, 1.0);
    const posenc::FrequencyTable to({0.25, 0.5, 0.0, 0.0}, 1.0);
    std::vector<double> k = test_keys<double>(1, 1, 8);
    const std::vector<double> before = k;
    posenc::rerotate_head(spec, from, to, k.data(), 2147483647);
    CHECK(k[0] != before[0]);  // pair 0 (0, 4) turns
    for (int d : {1, 2, 3, 5, 6, 7}) CHECK(k[static_cast<std::size_t>(d)] == before[static_cast<std::size_t>(d)]);
}

TEST_CASE("[refusals] tables of another size and positions outside the exact reduction's range")
{
    const posenc::RopeSpec spec(16, 16, 10000.0);
    const posenc::FrequencyTable four({1.0, 0.5, 0.25, 0.125});
    std::vector<double> k(16, 1.0);
    CHECK(message_of([&] { posenc::rerotate_head(spec, four, long_table, k.data(), 1); }) ==
          "from.num_pairs 4 must equal spec.num_pairs 8 (rotary_dim / 2)");
    CHECK(message_of([&] { posenc::rerotate_head(spec, short_table, four, k.data(), 1); }) ==
          "to.num_pairs 4 must equal spec.num_pairs 8 (rotary_dim / 2)");
    const std::int64_t bad[] = {5, std::int64_t {1} << 54};
    CHECK(message_of([&] {
              posenc::rerotate_keys(spec, short_table, long_table, k.data(), 2, 1, bad);
          }).find("positions[1] 18014398509481984 must be in [-2^53, 2^53]") == 0);
    CHECK(message_of([&] {
              posenc::rerotate_keys(spec, short_table, long_table, k.data(), -1, 1, std::int64_t {0});
          }) == "tokens -1 must be >= 0");
}

}  // namespace reference_rerotation_tests
