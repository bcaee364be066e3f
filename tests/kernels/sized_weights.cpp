// SPDX-License-Identifier: MIT
// Hostile weights and scales: QkNorm's weight vectors and CacheScale's per-head scales are sized
// spans, and every checked entry refuses one shorter than what the call reads (head_dim weights
// per normalised tensor, one scale per cache head), naming the field, the size and the rule,
// before any read (the rules of detail/fused_checks.hpp, docs/errors.md).
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <posenc/kernels/fused_dispatch.hpp>

#include "kernel_test_support.hpp"
#include "support/error_messages.hpp"

namespace kernels_sized_weights_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using namespace posenc::kernels;
using test_support::message_of;

const posenc::RopeSpec spec(64, 64, 1e4);

}  // namespace

TEST_CASE("[errors] a QK-norm weight shorter than head_dim is refused by every checked entry")
{
    const CosSinCache angles(posenc::FrequencyTable::from_spec(spec), 16);
    std::vector<float> q(2 * 64, 0.5f), k(64, 0.5f), w(64, 1.0f), short_w(63, 1.0f);
    const QKViews<float> views =
        QKViews<float>::in_place(HeadsView<float>(q, {1, 2, 64}), HeadsView<float>(k, {1, 1, 64}));
    const PositionIds at = PositionIds::contiguous(3);
    const QkNorm short_q {NormWeighting::weight, 1e-6f, short_w, w};
    const QkNorm short_k {NormWeighting::weight, 1e-6f, w, short_w};
    const QkNorm pointer_only {NormWeighting::weight, 1e-6f, FloatSpan(w.data(), 0), w};  // a pointer without its size
    const std::string q_rule = "norm.q_weight.size 63 must be >= head_dim 64 (one weight per coordinate)";
    const std::string k_rule = "norm.k_weight.size 63 must be >= head_dim 64 (one weight per coordinate)";
    CHECK(message_of([&] { qk_norm_rope(spec, short_q, angles, at, views); }) == q_rule);
    CHECK(message_of([&] { qk_norm_rope(spec, short_k, angles, at, views); }) == k_rule);
    CHECK(message_of([&] { qk_norm_rope(spec, pointer_only, angles, at, views); }) ==
          "norm.q_weight.size 0 must be >= head_dim 64 (one weight per coordinate)");
    CHECK(message_of([&] { dispatch::qk_norm_rope(spec, short_q, angles, at, views); }) == q_rule);
    CHECK(message_of([&] { qk_rms_norm(spec, short_k, views); }) == k_rule);
    for (dispatch::Isa isa : dispatch::dispatch_isas)
        if (dispatch::isa_available(isa))
            CHECK(message_of([&] { dispatch::qk_norm_rope_on(isa, spec, short_k, angles, at, views); }) == k_rule);
    // a K weight may be short, or absent, when the call has no K
    const QKViews<float> q_only = QKViews<float>::in_place(HeadsView<float>(q, {1, 2, 64}));
    CHECK(message_of([&] { qk_norm_rope(spec, short_k, angles, at, q_only); }) == "(no error)");

    std::vector<float> cache(4 * 64);
    const std::vector<std::int64_t> slots = {2};
    CacheWrite<float> write;
    write.k = HeadsView<float>(k, {1, 1, 64});
    write.key_cache = KvCacheView::contiguous(cache.data(), 4 * 64, 4, 1, 64);
    write.slot_mapping = SlotMapping(slots);
    CHECK(message_of([&] { qk_norm_rope_into_cache(spec, short_k, angles, at, write); }) == k_rule);
    CHECK(message_of([&] { dispatch::qk_norm_rope_into_cache(spec, short_k, angles, at, write); }) == k_rule);
    write.q_in = write.q_out = HeadsView<float>(q, {1, 2, 64});
    CHECK(message_of([&] { qk_norm_rope_into_cache(spec, short_q, angles, at, write); }) == q_rule);
    CHECK(message_of([&] {
              qk_norm_rope_into_cache(spec, QkNorm {NormWeighting::weight, 1e-6f, w, w}, angles, at, write);
          }) == "(no error)");
}

TEST_CASE("[errors] per-head cache scales fewer than the cache's heads are refused by every checked cache entry")
{
    const CosSinCache angles(posenc::FrequencyTable::from_spec(spec), 16);
    std::vector<float> k(2 * 64, 0.5f), v(2 * 64, 0.5f), w(64, 1.0f);
    std::vector<std::int8_t> key(4 * 2 * 64), value(4 * 2 * 64);
    const std::vector<float> one_scale = {0.5f}, two_scales = {0.5f, 0.25f};
    const std::vector<std::int64_t> slots = {1};
    CacheWrite<float> write;
    write.k = HeadsView<float>(k, {1, 2, 64});
    write.v = HeadsView<float>(v, {1, 2, 64});
    write.key_cache = KvCacheView::contiguous(key.data(), 4 * 2 * 64, 4, 2, 64, CacheLayout::token_major,
                                              CacheScale::heads(one_scale));
    write.value_cache = KvCacheView::contiguous(value.data(), 4 * 2 * 64, 4, 2, 64, CacheLayout::token_major,
                                                CacheScale::heads(two_scales));
    write.slot_mapping = SlotMapping(slots);
    const PositionIds at = PositionIds::contiguous(5);
    const std::string key_rule = "key_cache.scale.per_head.size 1 must be >= heads 2 (one scale per head)";
    CHECK(message_of([&] { rope_into_cache(spec, angles, at, write); }) == key_rule);
    CHECK(message_of([&] { dispatch::rope_into_cache(spec, angles, at, write); }) == key_rule);
    const QkNorm norm {NormWeighting::weight, 1e-6f, w, w};
    CHECK(message_of([&] { qk_norm_rope_into_cache(spec, norm, angles, at, write); }) == key_rule);
    write.key_cache.scale = CacheScale::heads(two_scales);
    write.value_cache.scale = CacheScale::heads(FloatSpan(two_scales.data(), 1));
    CHECK(message_of([&] { rope_into_cache(spec, angles, at, write); }) ==
          "value_cache.scale.per_head.size 1 must be >= heads 2 (one scale per head)");
    write.value_cache.scale = CacheScale::heads(two_scales);
    CHECK(message_of([&] { rope_into_cache(spec, angles, at, write); }) == "(no error)");
}

}  // namespace kernels_sized_weights_tests
