// SPDX-License-Identifier: MIT
// The CUDA QK-norm + RoPE and RoPE-into-cache kernels (posenc/cuda), run through the CPU
// emulation of their whole grid, against the CPU kernels (qk_norm_rope.hpp, kv_cache_write.hpp)
// on the same angles, at positions up to 2^31 - 1.
//
// Bounds: each side's float result is within (n/2 + 9) u A |y| (QK-norm, n = head_dim) or
// 3.41 u A |x| (RoPE) of the exact value, so the two agree within twice that (taken here with
// |y| <= the head's largest result), plus one step of the stored format (16-bit, fp8 or int8
// code times its scale) where the two float values fall on either side of a rounding boundary.
// V is copied (rounded or quantised) by the same conversion on both sides: equal bit for bit.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "cuda_test_support.hpp"

namespace cuda_fused_tests {  // per-file namespace: a folder builds as one unit

namespace {

using namespace posenc;
using namespace posenc::kernels;

const std::int64_t top = max_kernel_position;

/// The value a cache element stands for, and one step of its format at that value.
template <class C>
double decoded(C x, float scale)
{
    if constexpr (std::is_same_v<C, float8_e4m3>) return static_cast<double>(to_float(x)) * scale;
    else if constexpr (std::is_same_v<C, std::int8_t>) return static_cast<double>(x) * scale;
    else return cuda_test::value_of(x);
}

template <class C>
double step_at(double v, float scale)
{
    if constexpr (std::is_same_v<C, float8_e4m3>) {
        const double code = std::fabs(v) / scale;
        return (code < 0.015625 ? 0.001953125 : std::ldexp(1.0, std::ilogb(code) - 3)) * scale;
    } else if constexpr (std::is_same_v<C, std::int8_t>) {
        return scale;
    } else {
        return std::is_same_v<C, float> ? 0.0 : cuda_test::spacing<C>(v);
    }
}

/// Counts elements of two [rows][d] buffers that differ by more than `relative` times their
/// row's largest magnitude plus one step of C.
template <class C>
int count_disagreements(const std::vector<C>& gpu, const std::vector<C>& cpu, int d, double relative, float scale)
{
    int bad = 0;
    for (std::size_t row = 0; row < cpu.size() / static_cast<std::size_t>(d); ++row) {
        double largest = 0.0;
        for (int i = 0; i < d; ++i) largest = std::max(largest, std::fabs(decoded(cpu[row * d + i], scale)));
        for (int i = 0; i < d; ++i) {
            const double g = decoded(gpu[row * d + i], scale), c = decoded(cpu[row * d + i], scale);
            bad += !(std::fabs(g - c) <= relative * largest + step_at<C>(std::max(std::fabs(g), std::fabs(c)), scale));
        }
    }
    return bad;
}

struct Setup {
    RopeSpec spec = RopeSpec(128, 96, 1e6, Pairing::interleaved, 16);
    std::int64_t tokens = 6;
    int q_heads = 4, kv_heads = 2;
    std::vector<std::int64_t> positions = {0, top, 1000000, 16777216, top - 1, 9};
    std::vector<std::int32_t> slots = {3, -1, 9, 0, 14, 6};  // 16 slots: 4 blocks of 4
    std::vector<float> q_weight = cuda_test::random_values<float>(128, 11u);
    std::vector<float> k_weight = cuda_test::random_values<float>(128, 12u);
    QkNorm norm(NormWeighting w) const { return {w, 1e-6f, q_weight, k_weight}; }
};

/// One cache call on the CPU and in the emulation; compares Q, the key cache and the value cache.
template <class T, class C>
void check_cache_call(const Setup& s, const QkNorm* norm, CacheLayout layout, CacheScale scale)
{
    const int d = s.spec.head_dim();
    const std::vector<T> input =
        cuda_test::random_values<T>(static_cast<std::size_t>(s.tokens * (s.q_heads + 2 * s.kv_heads) * d), 21u);
    const std::size_t cache_elements = static_cast<std::size_t>(16 * s.kv_heads * d);
    std::vector<T> qkv_cpu = input, qkv_gpu = input;
    std::vector<C> k_cpu(cache_elements), v_cpu(cache_elements), k_gpu(cache_elements), v_gpu(cache_elements);
    const OnTheFlyAngles digits(FrequencyTable::from_spec(s.spec));
    auto write_of = [&](std::vector<T>& qkv, std::vector<C>& kc, std::vector<C>& vc) {
        const PackedQkv<T> v = slice_packed_qkv(qkv, {s.tokens, s.q_heads, s.kv_heads, d});
        CacheWrite<T> w;
        w.q_in = v.q;
        w.q_out = v.q;
        w.k = v.k;
        w.v = v.v;
        w.key_cache =
            KvCacheView::paged(kc.data(), static_cast<std::ptrdiff_t>(kc.size()), 4, 4, s.kv_heads, d, layout, scale);
        w.value_cache =
            KvCacheView::paged(vc.data(), static_cast<std::ptrdiff_t>(vc.size()), 4, 4, s.kv_heads, d, layout, scale);
        w.slot_mapping = SlotMapping(s.slots);
        return w;
    };
    const PositionIds positions(s.positions);
    cuda_test::Status status;
    if (norm != nullptr) {
        qk_norm_rope_into_cache(s.spec, *norm, digits, positions, write_of(qkv_cpu, k_cpu, v_cpu));
        cuda::emulate(cuda::plan_qk_norm_rope_into_cache(s.spec, *norm, cuda::digit_angles(digits), positions,
                                                         write_of(qkv_gpu, k_gpu, v_gpu), status.get()));
    } else {
        rope_into_cache(s.spec, digits, positions, write_of(qkv_cpu, k_cpu, v_cpu));
        cuda::emulate(cuda::plan_rope_into_cache(s.spec, cuda::digit_angles(digits), positions,
                                                 write_of(qkv_gpu, k_gpu, v_gpu), status.get()),
                      cuda::ThreadOrder::reverse);
    }
    CHECK(status.word == 0u);
    const double relative = 2.0 * (norm != nullptr ? (d / 2 + 9) : 3.42) * cuda_test::u;
    const float s0 = scale.kind == CacheScale::Kind::per_tensor ? scale.value : 1.0f;
    CHECK(count_disagreements(qkv_gpu, qkv_cpu, d, relative, 1.0f) == 0);
    if (scale.kind != CacheScale::Kind::per_head) CHECK(count_disagreements(k_gpu, k_cpu, d, relative, s0) == 0);
    else
        for (int h = 0; h < s.kv_heads; ++h) {  // per head: compare each head's rows with its scale (token-major rows)
            std::vector<C> kg, kc;
            for (std::size_t i = 0; i < k_gpu.size(); ++i)
                if (static_cast<int>(i / d) % s.kv_heads == h) kg.push_back(k_gpu[i]), kc.push_back(k_cpu[i]);
            CHECK(count_disagreements(kg, kc, d, relative, scale.per_head.data[h]) == 0);
        }
    int v_bad = 0;
    for (std::size_t i = 0; i < v_cpu.size(); ++i)
        v_bad += cuda_test::bits_of(v_gpu[i]) != cuda_test::bits_of(v_cpu[i]);
    CHECK(v_bad == 0);
}

}  // namespace

TEST_CASE("cuda RoPE into a paged cache (emulated) agrees with the CPU kernel: every storage, both layouts, scales")
{
    const Setup s;
    const std::vector<float> head_scales = {0.02f, 0.005f};
    for (CacheLayout layout : {CacheLayout::token_major, CacheLayout::heads_major}) {
        check_cache_call<bfloat16, bfloat16>(s, nullptr, layout, {});
        check_cache_call<float16, float16>(s, nullptr, layout, {});
        check_cache_call<float, float>(s, nullptr, layout, {});
        check_cache_call<bfloat16, float8_e4m3>(s, nullptr, layout, CacheScale::tensor(0.01f));
        check_cache_call<bfloat16, std::int8_t>(s, nullptr, layout, CacheScale::tensor(0.01f));
    }
    check_cache_call<float16, float8_e4m3>(s, nullptr, CacheLayout::token_major, CacheScale::heads(head_scales));
}

TEST_CASE("cuda QK-norm + RoPE into a paged cache (emulated) agrees with the CPU kernel")
{
    const Setup s;
    const QkNorm plain = s.norm(NormWeighting::weight), gemma = s.norm(NormWeighting::one_plus_weight);
    check_cache_call<bfloat16, bfloat16>(s, &plain, CacheLayout::token_major, {});
    check_cache_call<float, float>(s, &gemma, CacheLayout::heads_major, {});
    check_cache_call<bfloat16, float8_e4m3>(s, &plain, CacheLayout::token_major, CacheScale::tensor(0.05f));
}

TEST_CASE("cuda QK-norm + RoPE (emulated) agrees with the CPU kernel, out of place, both weightings")
{
    const Setup s;
    const int d = s.spec.head_dim();
    const OnTheFlyAngles digits(FrequencyTable::from_spec(s.spec));
    const std::vector<float> q = cuda_test::random_values<float>(static_cast<std::size_t>(s.tokens * 4 * d), 31u);
    const std::vector<float> k = cuda_test::random_values<float>(static_cast<std::size_t>(s.tokens * 2 * d), 32u);
    for (NormWeighting w : {NormWeighting::weight, NormWeighting::one_plus_weight}) {
        std::vector<float> qc(q.size()), kc(k.size()), qg(q.size()), kg(k.size());
        auto views = [&](std::vector<float>& qo, std::vector<float>& ko) {
            return QKViews<float>::out_of_place(
                HeadsView<const float>(q.data(), static_cast<std::ptrdiff_t>(q.size()), {s.tokens, 4, d}),
                HeadsView<float>(qo, {s.tokens, 4, d}),
                HeadsView<const float>(k.data(), static_cast<std::ptrdiff_t>(k.size()), {s.tokens, 2, d}),
                HeadsView<float>(ko, {s.tokens, 2, d}));
        };
        const PositionIds positions(s.positions);
        qk_norm_rope(s.spec, s.norm(w), digits, positions, views(qc, kc));
        cuda_test::Status status;
        cuda::emulate(cuda::plan_qk_norm_rope(s.spec, s.norm(w), cuda::digit_angles(digits), positions, views(qg, kg),
                                              status.get()),
                      cuda::ThreadOrder::reverse);
        CHECK(status.word == 0u);
        const double relative = 2.0 * (d / 2 + 9) * cuda_test::u;
        CHECK(count_disagreements(qg, qc, d, relative, 1.0f) == 0);
        CHECK(count_disagreements(kg, kc, d, relative, 1.0f) == 0);
    }
}

TEST_CASE("cuda cache kernels report a slot outside the cache or a bad per-head scale, and write nothing there")
{
    Setup s;
    s.slots = {3, 16, 9, 0, 14, 6};  // 16: one past the last slot
    const int d = s.spec.head_dim();
    std::vector<bfloat16> qkv = cuda_test::random_values<bfloat16>(static_cast<std::size_t>(s.tokens * 8 * d), 41u);
    std::vector<float8_e4m3> kc(static_cast<std::size_t>(16 * 2 * d), float8_e4m3 {0x55}), vc = kc;
    const std::vector<float> scales = {0.5f, 0.0f};  // head 1's scale is not > 0
    const PackedQkv<bfloat16> v = slice_packed_qkv(qkv, {s.tokens, 4, 2, d});
    CacheWrite<bfloat16> w;
    w.k = v.k;
    w.v = v.v;
    w.key_cache = KvCacheView::paged(kc.data(), static_cast<std::ptrdiff_t>(kc.size()), 4, 4, 2, d,
                                     CacheLayout::token_major, CacheScale::heads(scales));
    w.value_cache = KvCacheView::paged(vc.data(), static_cast<std::ptrdiff_t>(vc.size()), 4, 4, 2, d,
                                       CacheLayout::token_major, CacheScale::heads(scales));
    w.slot_mapping = SlotMapping(s.slots);
    const OnTheFlyAngles digits(FrequencyTable::from_spec(s.spec));
    cuda_test::Status status;
    cuda::emulate(
        cuda::plan_rope_into_cache(s.spec, cuda::digit_angles(digits), PositionIds(s.positions), w, status.get()));
    CHECK(status.word == (cuda::status_slot_outside_cache | cuda::status_invalid_cache_scale));
    int head1_written = 0, head0_written = 0;
    for (std::size_t i = 0; i < kc.size(); ++i) {
        const bool written = kc[i].bits != 0x55 || vc[i].bits != 0x55;
        (static_cast<int>(i / d) % 2 == 1 ? head1_written : head0_written) += written;
    }
    CHECK(head1_written == 0);
    CHECK(head0_written > 0);
}

TEST_CASE("cuda cache plans refuse quantised Q rows and e5m2 caches, which the device kernels do not write")
{
    Setup s;
    const int d = s.spec.head_dim();
    std::vector<float> qkv = cuda_test::random_values<float>(static_cast<std::size_t>(s.tokens * 8 * d), 43u);
    std::vector<float> kc(static_cast<std::size_t>(16 * 2 * d));
    std::vector<float8_e4m3> qc(static_cast<std::size_t>(s.tokens * 4 * d));
    const PackedQkv<float> v = slice_packed_qkv(qkv, {s.tokens, 4, 2, d});
    CacheWrite<float> w;
    w.k = v.k;
    w.key_cache = KvCacheView::paged(kc.data(), static_cast<std::ptrdiff_t>(kc.size()), 4, 4, 2, d);
    w.slot_mapping = SlotMapping(s.slots);
    w.q_in = v.q;
    w.q_out = v.q;
    w.q_rows = KvCacheView::contiguous(qc.data(), static_cast<std::ptrdiff_t>(qc.size()), s.tokens, 4, d,
                                       CacheLayout::token_major, CacheScale::tensor(1.0f));
    const OnTheFlyAngles digits(FrequencyTable::from_spec(s.spec));
    cuda_test::Status status;
    std::string message = "(no error)";
    try {
        cuda::plan_rope_into_cache(s.spec, cuda::digit_angles(digits), PositionIds(s.positions), w, status.get());
    } catch (const posenc::error& e) {
        message = e.what();
    }
    CHECK(message.find("q_rows present are not written by the CUDA kernels") == 0);

    w.q_rows = {};
    std::vector<float8_e5m2> e5m2(kc.size());
    w.key_cache = KvCacheView::paged(e5m2.data(), static_cast<std::ptrdiff_t>(e5m2.size()), 4, 4, 2, d,
                                     CacheLayout::token_major, CacheScale::tensor(1.0f));
    message = "(no error)";
    try {
        cuda::plan_rope_into_cache(s.spec, cuda::digit_angles(digits), PositionIds(s.positions), w, status.get());
    } catch (const posenc::error& e) {
        message = e.what();
    }
    CHECK(message.find("key_cache.storage float8_e5m2 is not written by the CUDA kernels") == 0);
}

}  // namespace cuda_fused_tests
