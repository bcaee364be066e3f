// SPDX-License-Identifier: MIT
// Per-token query multipliers of the fused QK-norm + RoPE (qk_norm_rope.hpp): Q of token t comes
// out as m[t] * RoPE(RMSNorm(q)), K unscaled. Checked against the scalar restatement of that
// formula: the RMSNorm from its definition in long double, apply_rope_reference (double, exact
// angles), then the product with m[t]. Tolerance: qk_norm_rope.hpp's bound with the multiplier's
// extra rounding, (n/2 + 10) u A |y| |m| per rotated coordinate and (n/2 + 7) u |y_d| |m| per
// other one, plus half an ulp of a 16-bit format. K must hold the bits of the same call without
// multipliers. The checked entries refuse multipliers they cannot read safely or that are not
// finite, naming the field.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <posenc/kernels/fused_dispatch.hpp>
#include <posenc/rotation.hpp>

#include "kernel_test_support.hpp"
#include "rotary_slice_support.hpp"
#include "support/error_messages.hpp"

namespace kernels_query_multipliers_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using namespace posenc::kernels;
using kernel_test::ArchPath;
using rotary_slice_test::Expected;
using rotary_slice_test::Failure;
using rotary_slice_test::Geometry;
using test_support::message_of;

constexpr double u = 5.9604644775390625e-08;  // 2^-24

const std::vector<std::int64_t> ids = {3, 700, 4000, 12};
// an attention temperature's values, 1 + beta ln(1 + floor(p / divisor)), and 1
const std::vector<float> multipliers = {1.0f, 1.2079442f, 1.5f, 0.75f};

/// m[t] * RoPE(RMSNorm(x)) of one head, restated (long double norm, double rotation).
std::vector<double> scaled_reference(const posenc::RopeSpec& spec, const posenc::FrequencyTable& table,
                                     const std::vector<double>& x, const std::vector<float>& w, std::int64_t position,
                                     double m, std::vector<double>& y)
{
    long double sum = 0.0L;
    for (double v : x) sum += static_cast<long double>(v) * static_cast<long double>(v);
    const long double rms = std::sqrt(sum / static_cast<long double>(x.size()) + static_cast<long double>(1e-6f));
    y.resize(x.size());
    for (std::size_t d = 0; d < x.size(); ++d) y[d] = static_cast<double>(static_cast<long double>(x[d]) / rms * w[d]);
    std::vector<double> ref = y;
    posenc::apply_rope_reference(spec, table, ref.data(), position);
    for (double& v : ref) v *= m;
    return ref;
}

template <class T>
void check_case(const ArchPath& path, const posenc::RopeSpec& spec, TokenRange range, const std::string& what,
                Failure& failure)
{
    const posenc::FrequencyTable table(posenc::FrequencyTable::from_spec(spec).inv_freq(), 1.1386294361119891);
    const CosSinCache angles(table, 4096);
    std::mt19937 rng(31);
    std::normal_distribution<float> wd(1.0f, 0.3f);
    std::vector<float> q_weight(static_cast<std::size_t>(spec.head_dim())), k_weight(q_weight.size());
    for (float& w : q_weight) w = wd(rng);
    for (float& w : k_weight) w = wd(rng);
    const QkNorm norm {NormWeighting::weight, 1e-6f, q_weight, k_weight};
    const Geometry gq {4, 3, spec.head_dim(), 2}, gk {4, 2, spec.head_dim(), 0};
    std::vector<T> q = rotary_slice_test::make_buffer<T>(gq, rng), k = rotary_slice_test::make_buffer<T>(gk, rng);
    std::vector<T> q_plain = q, k_plain = k;  // the same call without multipliers
    const std::vector<T> q_before = q;
    auto run = [&](std::vector<T>& qb, std::vector<T>& kb, FloatSpan m) {
        const QKViews<T> views =
            QKViews<T>::in_place(rotary_slice_test::view_of(qb, gq), rotary_slice_test::view_of(kb, gk));
        if constexpr (std::is_same_v<T, double>) qk_norm_rope(spec, norm, angles, PositionIds(ids), views, range, m);
        else if (path.dispatched)
            dispatch::qk_norm_rope_on(path.isa, spec, norm, angles, PositionIds(ids), views, range, m);
        else qk_norm_rope(spec, norm, angles, PositionIds(ids), views, range, m);
    };
    run(q, k, FloatSpan(multipliers));
    run(q_plain, k_plain, {});
    const double n = spec.head_dim();
    std::vector<char> rotated = rotary_slice_test::rotated_coordinates(spec);
    auto expect = [&](std::ptrdiff_t t, std::ptrdiff_t h, std::ptrdiff_t d) {
        const std::vector<double> x = rotary_slice_test::head_of(q_before, gq, t, h);
        if (t < range.begin || t >= range.end) return Expected {x[static_cast<std::size_t>(d)], 0.0, true};
        std::vector<double> y;
        const double m = multipliers[static_cast<std::size_t>(t)];
        const std::vector<double> ref =
            scaled_reference(spec, table, x, q_weight, ids[static_cast<std::size_t>(t)], m, y);
        const double want = ref[static_cast<std::size_t>(d)];
        const double bound =
            rotated[static_cast<std::size_t>(d)]
                ? (n / 2 + 10) * u * table.attention_factor() * rotary_slice_test::pair_norm(spec, y, d) * m
                : (n / 2 + 7) * u * std::fabs(y[static_cast<std::size_t>(d)]) * m;
        const double tolerance = std::is_same_v<T, double> ? 1e-13 * (std::fabs(want) + 1.0)
                                                           : bound + kernel_test::half_ulp<T>(std::fabs(want)) * 1.01;
        return Expected {want, tolerance, false};
    };
    rotary_slice_test::compare(q_before, q, gq, expect, what + " Q " + kernel_test::type_name<T>(), failure);
    if (!rotary_slice_test::same_bits(k, k_plain)) failure.note(what + ": K differs from the call without multipliers");
}

TEST_CASE_TEMPLATE(
    "[reference] qk_norm_rope with query multipliers equals m[t] RoPE(RMSNorm(q)), K unscaled, every arch path", T,
    float, posenc::bfloat16, posenc::float16, double)
{
    Failure failure;
    for (const ArchPath& path : kernel_test::arch_paths()) {
        if (std::is_same_v<T, double> && path.dispatched) continue;
        for (posenc::Pairing pairing : {posenc::Pairing::half_split, posenc::Pairing::interleaved})
            for (int head_dim :
                 {128, 64, 70})  // 128, 64: the per-head norm's path on AVX-512 / AVX2 for several tokens
                for (int rotary_dim : {head_dim, head_dim / 2 / 2 * 2})
                    for (TokenRange range : {TokenRange {0, 4}, TokenRange {1, 3}, TokenRange {2, 3}}) {
                        const posenc::RopeSpec spec(head_dim, rotary_dim, 1e4, pairing);
                        check_case<T>(path, spec, range,
                                      path.name + " " + posenc::to_string(pairing) + " head " +
                                          std::to_string(head_dim) + " rotary " + std::to_string(rotary_dim) +
                                          " tokens [" + std::to_string(range.begin) + ", " + std::to_string(range.end) +
                                          ")",
                                      failure);
                    }
    }
    CHECK_MESSAGE(failure.count == 0, failure.first);
}

TEST_CASE("[reference] qk_norm_rope_into_cache with query multipliers scales Q only; the cache holds the unscaled K")
{
    const posenc::RopeSpec spec(128, 128, 1e4);
    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
    const CosSinCache angles(table, 4096);
    std::vector<float> w(128, 1.0f);
    const QkNorm norm {NormWeighting::weight, 1e-6f, w, w};
    Failure failure;
    for (const ArchPath& path : kernel_test::arch_paths()) {
        std::mt19937 rng(2);
        const Geometry gq {4, 2, 128, 0}, gk {4, 1, 128, 0};
        std::vector<float> q = rotary_slice_test::make_buffer<float>(gq, rng),
                           k = rotary_slice_test::make_buffer<float>(gk, rng);
        std::vector<float> q_plain = q;
        std::vector<float> cache(4 * 128), cache_plain(4 * 128);
        const std::vector<std::int64_t> slots = {0, 1, 2, 3};
        auto run = [&](std::vector<float>& qb, std::vector<float>& cb, FloatSpan m) {
            CacheWrite<float> write;
            write.q_in = write.q_out = rotary_slice_test::view_of(qb, gq);
            write.k = rotary_slice_test::view_of(k, gk);
            write.key_cache = KvCacheView::contiguous(cb.data(), 4 * 128, 4, 1, 128);
            write.slot_mapping = SlotMapping(slots);
            write.q_multipliers = m;
            if (path.dispatched)
                dispatch::qk_norm_rope_into_cache_on(path.isa, spec, norm, angles, PositionIds(ids), write);
            else qk_norm_rope_into_cache(spec, norm, angles, PositionIds(ids), write);
        };
        run(q, cache, FloatSpan(multipliers));
        run(q_plain, cache_plain, {});
        if (cache != cache_plain) failure.note(path.name + ": the cache differs from the call without multipliers");
        // Q: the multiplier times the unscaled result, to within the multiplier's rounding (2 u |y|)
        for (std::ptrdiff_t t = 0; t < 4; ++t)
            for (std::ptrdiff_t d = 0; d < 2 * 128; ++d) {
                const auto i = static_cast<std::size_t>(gq.index(t, 0, d));
                const double m = multipliers[static_cast<std::size_t>(t)];
                const double want = m * q_plain[i];
                if (!(std::fabs(q[i] - want) <= 3 * u * (std::fabs(want) + 1e-30) * (128 / 2 + 10)))
                    failure.note(path.name + " token " + std::to_string(t) + " element " + std::to_string(d) +
                                 ": got " + std::to_string(q[i]) + " want " + std::to_string(want));
            }
    }
    CHECK_MESSAGE(failure.count == 0, failure.first);
}

TEST_CASE("[errors] query multipliers that are short, null, not finite or shared with an output are refused by name")
{
    const posenc::RopeSpec spec(64, 64, 1e4);
    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
    const CosSinCache angles(table, 4096);
    std::vector<float> w(64, 1.0f);
    const QkNorm norm {NormWeighting::weight, 1e-6f, w, w};
    std::vector<float> q(4 * 2 * 64, 0.5f), k(4 * 64, 0.5f);
    const QKViews<float> views =
        QKViews<float>::in_place(HeadsView<float>(q, {4, 2, 64}), HeadsView<float>(k, {4, 1, 64}));
    const PositionIds positions(ids);
    const TokenRange all {0, 4};
    const std::vector<float> three = {1.0f, 1.0f, 1.0f};
    std::vector<float> bad = {1.0f, std::numeric_limits<float>::infinity(), 1.0f, 1.0f};
    CHECK(message_of([&] { qk_norm_rope(spec, norm, angles, positions, views, all, FloatSpan(three)); }) ==
          "q_multipliers.size 3 must be >= tokens 4 (one multiplier per token)");
    CHECK(message_of([&] { dispatch::qk_norm_rope(spec, norm, angles, positions, views, all, FloatSpan(three)); }) ==
          "q_multipliers.size 3 must be >= tokens 4 (one multiplier per token)");
    CHECK(message_of([&] { qk_norm_rope(spec, norm, angles, positions, views, all, FloatSpan(nullptr, 4)); }) ==
          "q_multipliers.data null must point to one multiplier per token");
    CHECK(message_of([&] { qk_norm_rope(spec, norm, angles, positions, views, all, FloatSpan(bad)); }) ==
          "q_multipliers[1] inf must be finite");
    // outside the range, a value is never read
    CHECK(message_of([&] {
              qk_norm_rope(spec, norm, angles, positions, views, TokenRange {2, 4}, FloatSpan(bad));
          }) == "(no error)");
    CHECK(message_of([&] { qk_norm_rope(spec, norm, angles, positions, views, all, FloatSpan(q.data() + 8, 4)); }) ==
          "q_out overlapping must not share memory with q_multipliers");
    CHECK(message_of([&] { qk_norm_rope(spec, norm, angles, positions, views, all, FloatSpan(k.data() + 8, 4)); }) ==
          "k_out overlapping must not share memory with q_multipliers");

    std::vector<float> cache(4 * 64);
    const std::vector<std::int64_t> slots = {0, 1, 2, 3};
    CacheWrite<float> write;
    write.q_in = write.q_out = HeadsView<float>(q, {4, 2, 64});
    write.k = HeadsView<float>(k, {4, 1, 64});
    write.key_cache = KvCacheView::contiguous(cache.data(), 4 * 64, 4, 1, 64);
    write.slot_mapping = SlotMapping(slots);
    write.q_multipliers = FloatSpan(three);
    CHECK(message_of([&] { qk_norm_rope_into_cache(spec, norm, angles, positions, write); }) ==
          "q_multipliers.size 3 must be >= tokens 4 (one multiplier per token)");
    write.q_multipliers = FloatSpan(multipliers);
    CHECK(message_of([&] { rope_into_cache(spec, angles, positions, write); }) ==
          "q_multipliers given must be absent without the QK-norm (they scale Q in qk_norm_rope and "
          "qk_norm_rope_into_cache)");
    CHECK(message_of([&] { dispatch::rope_into_cache(spec, angles, positions, write); }) ==
          "q_multipliers given must be absent without the QK-norm (they scale Q in qk_norm_rope and "
          "qk_norm_rope_into_cache)");
    write.q_multipliers = FloatSpan(cache.data() + 4, 4);
    CHECK(message_of([&] { qk_norm_rope_into_cache(spec, norm, angles, positions, write); }) ==
          "key_cache overlapping must not share memory with q_multipliers");
}

}  // namespace

}  // namespace kernels_query_multipliers_tests
