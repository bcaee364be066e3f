// SPDX-License-Identifier: MIT
// Exact identities of RoPE that the kernels must keep, on every arch path:
//   inverse undoes forward: R(-m theta) R(m theta) = I                    (RoFormer eq. 13 / 14)
//   re-rotation by a delta: R(d theta) R(m theta) = R((m + d) theta)      (llama.cpp's K-shift; test-rope.cpp)
//   (R_m q) . (R_n k) depends on n - m only                                (RoFormer eq. 16)
// and properties of the API that hold bit for bit (same arithmetic, different plumbing):
//   Q and K in one call = two separate calls; int32 ids = int64 ids = the contiguous shortcut;
//   the V slice of a packed QKV buffer and every pass-through dim stay untouched in place.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernel_test_support.hpp"

namespace kernels_kernel_identities_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using namespace posenc::kernels;
using kernel_test::ArchPath;

std::vector<float> random_values(std::size_t n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (float& x : v) x = u(rng);
    return v;
}

const posenc::Pairing both_pairings[] = {posenc::Pairing::half_split, posenc::Pairing::interleaved};

}  // namespace

TEST_CASE("[identity] inverse undoes forward and re-rotation by a delta equals rotation to the sum, at large positions")
{
    for (const ArchPath& path : kernel_test::arch_paths())
        for (posenc::Pairing pairing : both_pairings) {
            const posenc::RopeSpec spec(128, 96, 1e6, pairing);
            const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
            const OnTheFlyAngles angles(table);
            const std::ptrdiff_t tokens = 4, heads = 3;
            const std::vector<float> x = random_values(static_cast<std::size_t>(tokens * heads * 128), 11);
            const HeadsShape shape {tokens, heads, 128};
            CAPTURE(path.name);
            const std::string pairing_name = posenc::to_string(pairing);
            CAPTURE(pairing_name);

            for (std::int64_t m :
                 {std::int64_t {0}, std::int64_t {4095}, std::int64_t {1000000}, max_kernel_position - 8}) {
                std::vector<float> y = x;
                kernel_test::apply_on(path, spec, angles, PositionIds::contiguous(m),
                                      QKViews<float>::in_place(HeadsView<float>(y, shape)));
                kernel_test::apply_on(path, spec, angles, PositionIds::contiguous(m),
                                      QKViews<float>::in_place(HeadsView<float>(y, shape)), Direction::inverse);
                double worst = 0;
                for (std::size_t i = 0; i < x.size(); ++i)
                    worst = std::max(worst, static_cast<double>(std::fabs(y[i] - x[i])));
                CAPTURE(m);
                CHECK(worst <= 8 * kernel_test::float_ulp(1.5));  // two applications, 4 ulp each
            }

            // K-shift: rotate token t to m + t, then every token by the same delta, against m + t + delta
            const std::int64_t m = 123456789, delta = 1000003;
            const std::vector<std::int64_t> forward_delta(static_cast<std::size_t>(tokens), delta);
            const std::vector<std::int64_t> backward_delta(static_cast<std::size_t>(tokens), -delta);
            std::vector<float> shifted = x, direct = x, back = x;
            kernel_test::apply_on(path, spec, angles, PositionIds::contiguous(m),
                                  QKViews<float>::in_place(HeadsView<float>(shifted, shape)));
            kernel_test::apply_on(path, spec, angles, PositionIds(forward_delta),
                                  QKViews<float>::in_place(HeadsView<float>(shifted, shape)));
            kernel_test::apply_on(path, spec, angles, PositionIds::contiguous(m + delta),
                                  QKViews<float>::in_place(HeadsView<float>(direct, shape)));
            // negative positions rotate backwards: m + delta then -delta gives m
            kernel_test::apply_on(path, spec, angles, PositionIds::contiguous(m + delta),
                                  QKViews<float>::in_place(HeadsView<float>(back, shape)));
            kernel_test::apply_on(path, spec, angles, PositionIds(backward_delta),
                                  QKViews<float>::in_place(HeadsView<float>(back, shape)));
            std::vector<float> at_m = x;
            kernel_test::apply_on(path, spec, angles, PositionIds::contiguous(m),
                                  QKViews<float>::in_place(HeadsView<float>(at_m, shape)));
            double worst_shift = 0, worst_back = 0;
            for (std::size_t i = 0; i < x.size(); ++i) {
                worst_shift = std::max(worst_shift, static_cast<double>(std::fabs(shifted[i] - direct[i])));
                worst_back = std::max(worst_back, static_cast<double>(std::fabs(back[i] - at_m[i])));
            }
            CHECK(worst_shift <= 12 * kernel_test::float_ulp(1.5));
            CHECK(worst_back <= 12 * kernel_test::float_ulp(1.5));
        }
}

TEST_CASE("[identity] the q.k score after RoPE depends only on the position difference (RoFormer eq. 16)")
{
    for (const ArchPath& path : kernel_test::arch_paths())
        for (posenc::Pairing pairing : both_pairings) {
            const posenc::RopeSpec spec(64, 64, 1e4, pairing);
            const OnTheFlyAngles angles(posenc::FrequencyTable::from_spec(spec));
            const std::vector<float> q0 = random_values(64, 21), k0 = random_values(64, 22);
            auto score = [&](std::int64_t m, std::int64_t n) {
                std::vector<float> q = q0, k = k0;
                kernel_test::apply_on(path, spec, angles, PositionIds::contiguous(m),
                                      QKViews<float>::in_place(HeadsView<float>(q, {1, 1, 64})));
                kernel_test::apply_on(path, spec, angles, PositionIds::contiguous(n),
                                      QKViews<float>::in_place(HeadsView<float>(k, {1, 1, 64})));
                double s = 0;
                for (int d = 0; d < 64; ++d)
                    s += static_cast<double>(q[static_cast<std::size_t>(d)]) * k[static_cast<std::size_t>(d)];
                return s;
            };
            CAPTURE(path.name);
            const double reference = score(5, 12);
            for (std::int64_t shift : {std::int64_t {1000}, std::int64_t {1} << 24, std::int64_t {2000000000}})
                CHECK(std::fabs(score(5 + shift, 12 + shift) - reference) < 2e-5);
        }
}

TEST_CASE("[identity] Q and K in one call (GQA 32 + 8 heads) equal two calls; int32, int64 and contiguous positions "
          "agree bit for bit")
{
    for (const ArchPath& path : kernel_test::arch_paths())
        for (posenc::Pairing pairing : both_pairings) {
            const posenc::RopeSpec spec(128, 128, 1e6, pairing);
            const CosSinCache cache(posenc::FrequencyTable::from_spec(spec), 2048);
            const std::ptrdiff_t tokens = 5;
            const std::vector<float> q0 = random_values(static_cast<std::size_t>(tokens * 32 * 128), 31);
            const std::vector<float> k0 = random_values(static_cast<std::size_t>(tokens * 8 * 128), 32);
            std::vector<float> q1 = q0, k1 = k0, q2 = q0, k2 = k0, q3 = q0, q4 = q0;
            const std::vector<std::int32_t> ids32 {1000, 1001, 1002, 1003, 1004};
            const std::vector<std::int64_t> ids64 {1000, 1001, 1002, 1003, 1004};
            kernel_test::apply_on(path, spec, cache, PositionIds(ids32),
                                  QKViews<float>::in_place(HeadsView<float>(q1, {tokens, 32, 128}),
                                                           HeadsView<float>(k1, {tokens, 8, 128})));
            kernel_test::apply_on(path, spec, cache, PositionIds(ids64),
                                  QKViews<float>::in_place(HeadsView<float>(q2, {tokens, 32, 128})));
            kernel_test::apply_on(path, spec, cache, PositionIds(ids64),
                                  QKViews<float>::in_place(HeadsView<float>(k2, {tokens, 8, 128})));
            kernel_test::apply_on(path, spec, cache, PositionIds::contiguous(1000),
                                  QKViews<float>::in_place(HeadsView<float>(q3, {tokens, 32, 128})));
            kernel_test::apply_on(path, spec, cache, PositionIds(ids32.data(), tokens),
                                  QKViews<float>::in_place(HeadsView<float>(q4, {tokens, 32, 128})));
            CAPTURE(path.name);
            CHECK(std::memcmp(q1.data(), q2.data(), q1.size() * sizeof(float)) == 0);
            CHECK(std::memcmp(k1.data(), k2.data(), k1.size() * sizeof(float)) == 0);
            CHECK(std::memcmp(q1.data(), q3.data(), q1.size() * sizeof(float)) == 0);
            CHECK(std::memcmp(q1.data(), q4.data(), q1.size() * sizeof(float)) == 0);
        }
}

TEST_CASE("[identity] packed QKV in place: Q and K rotate, V and the pass-through dims keep their bits; out of place "
          "copies them")
{
    for (const ArchPath& path : kernel_test::arch_paths())
        for (posenc::Pairing pairing : both_pairings) {
            const int head_dim = 96, rotary_dim = 40;
            const posenc::RopeSpec spec(head_dim, rotary_dim, 1e4, pairing);
            const OnTheFlyAngles angles(posenc::FrequencyTable::from_spec(spec), 1 << 20);
            const std::ptrdiff_t tokens = 3, q_heads = 4, kv_heads = 2;
            const std::vector<float> original =
                random_values(static_cast<std::size_t>(tokens * (q_heads + 2 * kv_heads) * head_dim), 41);
            std::vector<float> qkv = original;
            const PackedQkv<float> packed = slice_packed_qkv(qkv, {tokens, q_heads, kv_heads, head_dim});
            kernel_test::apply_on(path, spec, angles, PositionIds::contiguous(777),
                                  QKViews<float>::in_place(packed.q, packed.k));
            // out of place from the original into separate Q and K buffers
            std::vector<float> source = original;
            const PackedQkv<float> src = slice_packed_qkv(source, {tokens, q_heads, kv_heads, head_dim});
            std::vector<float> q_out(static_cast<std::size_t>(tokens * q_heads * head_dim)),
                k_out(static_cast<std::size_t>(tokens * kv_heads * head_dim));
            kernel_test::apply_on(
                path, spec, angles, PositionIds::contiguous(777),
                QKViews<float>::out_of_place(src.q, HeadsView<float>(q_out, {tokens, q_heads, head_dim}), src.k,
                                             HeadsView<float>(k_out, {tokens, kv_heads, head_dim})));
            CAPTURE(path.name);
            CHECK(source == original);  // the input is read only
            for (std::ptrdiff_t t = 0; t < tokens; ++t) {
                for (std::ptrdiff_t h = 0; h < kv_heads; ++h)  // V untouched
                    CHECK(std::memcmp(packed.v.head(t, h), src.v.head(t, h), head_dim * sizeof(float)) == 0);
                for (std::ptrdiff_t h = 0; h < q_heads; ++h) {
                    CHECK(std::memcmp(packed.q.head(t, h) + rotary_dim, src.q.head(t, h) + rotary_dim,
                                      (head_dim - rotary_dim) * sizeof(float)) == 0);
                    CHECK(std::memcmp(packed.q.head(t, h), q_out.data() + (t * q_heads + h) * head_dim,
                                      head_dim * sizeof(float)) == 0);
                }
                for (std::ptrdiff_t h = 0; h < kv_heads; ++h)
                    CHECK(std::memcmp(packed.k.head(t, h), k_out.data() + (t * kv_heads + h) * head_dim,
                                      head_dim * sizeof(float)) == 0);
            }
        }
}

}  // namespace kernels_kernel_identities_tests
