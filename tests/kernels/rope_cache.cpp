// SPDX-License-Identifier: MIT
// RoPE into a KV cache (kv_cache_write.hpp) on every arch path, against the composition of the
// reference steps: K rotated by apply_rope_reference (double, exact angles), after a long double
// RMSNorm from its definition when the call normalises, then stored at slot_mapping[t]; V copied.
// Random shapes with guards: contiguous and paged caches, token-major and heads-major, int32 and
// int64 slot mappings with skipped (-1) tokens, with and without Q, V and the norm, both
// pairings, partial rotary, float / bfloat16 / float16 inputs.
//   float cache: the header's bound (apply's 3.41 u A |x|, or the norm's (n/2 + 9) u A |y|);
//   bfloat16 / float16 / fp8 e4m3 / int8 caches: bit for bit the conversion of the float cache's
//   value (library's scalar bfloat16 / float16 rounding, or this file's definition-based fp8 /
//   int8 quantiser applied to fl(value / scale)), per-tensor or per-head scale.
// Every byte of a cache outside the written slots, and guard bytes around it, keeps its value.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <posenc/kernels/fused_dispatch.hpp>
#include <posenc/rotation.hpp>

#include "kernel_test_support.hpp"

namespace kernels_rope_cache_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using namespace posenc::kernels;
using kernel_test::ArchPath;

constexpr double u = 5.9604644775390625e-08;  // 2^-24

using kernel_test::e4m3_definition;

std::int8_t int8_definition(float x)
{
    const double v = std::max(-127.0, std::min(127.0, static_cast<double>(x)));
    const double f = std::floor(v), d = v - f;
    return static_cast<std::int8_t>(d > 0.5 ? f + 1 : d < 0.5 ? f : (std::fmod(f, 2.0) == 0.0 ? f : f + 1));
}

struct Cache {
    std::vector<unsigned char> bytes;  // guard, tensor, guard
    static constexpr std::size_t guard = 64;
    KvCacheView view;
};

Cache make_cache(CacheStorage storage, bool paged, CacheLayout layout, std::ptrdiff_t slots, std::ptrdiff_t heads,
                 std::ptrdiff_t head_dim, CacheScale scale)
{
    Cache c;
    const std::ptrdiff_t block_size = paged ? 4 : slots;
    const std::ptrdiff_t blocks = paged ? (slots + 3) / 4 : 1;
    const std::size_t n = static_cast<std::size_t>(blocks * block_size * heads * head_dim) * element_bytes(storage);
    c.bytes.assign(n + 2 * Cache::guard, 0xA5);
    c.view.data = c.bytes.data() + Cache::guard;
    c.view.storage = storage;
    c.view.layout = layout;
    c.view.blocks = blocks;
    c.view.block_size = block_size;
    c.view.heads = heads;
    c.view.head_dim = head_dim;
    c.view.scale = scale;
    c.view.size = blocks * block_size * heads * head_dim;
    return c;
}

float cache_float(const KvCacheView& c, std::ptrdiff_t slot, std::ptrdiff_t h, int d)
{
    const std::byte* p = c.head(slot, h);
    float f;
    std::memcpy(&f, p + 4 * d, 4);
    return f;
}

template <class T>
struct Call {
    const ArchPath* path;
    const posenc::RopeSpec* spec;
    const QkNorm* norm;  // null: no norm
    const CosSinCache* angles;
    PositionIds positions = PositionIds::contiguous(0);
    void operator()(const CacheWrite<T>& w) const
    {
        if (path->dispatched) {
            if (norm) dispatch::qk_norm_rope_into_cache_on(path->isa, *spec, *norm, *angles, positions, w);
            else dispatch::rope_into_cache_on(path->isa, *spec, *angles, positions, w);
        } else {
            if (norm) qk_norm_rope_into_cache(*spec, *norm, *angles, positions, w);
            else rope_into_cache(*spec, *angles, positions, w);
        }
    }
};

/// The 4096-position cache of a frequency table, built once per table: the cases draw at most 80
/// distinct tables, and building a cache costs more than running a case.
const CosSinCache& cache_of(const posenc::FrequencyTable& table)
{
    static std::map<std::pair<std::vector<double>, double>, std::unique_ptr<CosSinCache>> built;
    std::unique_ptr<CosSinCache>& slot = built[{table.inv_freq(), table.attention_factor()}];
    if (!slot) slot = std::make_unique<CosSinCache>(table, 4096);
    return *slot;
}

template <class T>
void run_case(const ArchPath& path, std::mt19937& rng, int& failures, std::string& first)
{
    std::uniform_int_distribution<int> coin(0, 1);
    auto fail = [&](const std::string& what) {
        if (failures++ == 0) first = path.name + " " + kernel_test::type_name<T>() + ": " + what;
    };
    const posenc::Pairing pairing = coin(rng) ? posenc::Pairing::half_split : posenc::Pairing::interleaved;
    // one case in three has a head of 32, 64 or 128 dims: whole registers on every arch, and at
    // 128 (AVX-512) or 32 (AVX2) each half one group, where several-token calls form each head's
    // norm from the registers they rotate (fused_loops.hpp, rms_per_head)
    const int head_dim = std::uniform_int_distribution<int>(0, 2)(rng) == 0
                             ? 32 << std::uniform_int_distribution<int>(0, 2)(rng)
                             : 2 * std::uniform_int_distribution<int>(1, 80)(rng);
    const int rotary_dim = coin(rng) ? head_dim : 2 * std::uniform_int_distribution<int>(1, head_dim / 2)(rng);
    const posenc::RopeSpec spec(head_dim, rotary_dim, 1e4, pairing);
    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
    const CosSinCache& angles = cache_of(table);
    const std::ptrdiff_t tokens = std::uniform_int_distribution<int>(1, 7)(rng);
    const std::ptrdiff_t kv_heads = std::uniform_int_distribution<int>(1, 4)(rng);
    const std::ptrdiff_t q_heads = coin(rng) ? 0 : kv_heads * 2;
    const bool with_v = coin(rng) != 0;
    const bool with_norm = coin(rng) != 0;
    const bool paged = coin(rng) != 0;
    const CacheLayout layout = coin(rng) ? CacheLayout::token_major : CacheLayout::heads_major;
    const std::ptrdiff_t slots = tokens + std::uniform_int_distribution<int>(0, 9)(rng);

    // slot mapping: distinct slots, some tokens skipped
    std::vector<std::int64_t> perm(static_cast<std::size_t>(slots));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<std::int64_t> slot64(static_cast<std::size_t>(tokens));
    std::vector<std::int32_t> slot32(static_cast<std::size_t>(tokens));
    for (std::ptrdiff_t t = 0; t < tokens; ++t) {
        slot64[static_cast<std::size_t>(t)] =
            std::uniform_int_distribution<int>(0, 4)(rng) == 0 ? -1 : perm[static_cast<std::size_t>(t)];
        slot32[static_cast<std::size_t>(t)] = static_cast<std::int32_t>(slot64[static_cast<std::size_t>(t)]);
    }
    const SlotMapping mapping = coin(rng) ? SlotMapping(slot32) : SlotMapping(slot64);

    // packed [q | k | v] per token
    const std::ptrdiff_t width = (q_heads + 2 * kv_heads) * head_dim + 3;
    std::vector<T> qkv(static_cast<std::size_t>(tokens * width + 8));
    std::uniform_real_distribution<double> value(-2.0, 2.0);
    for (T& x : qkv) x = kernel_test::from_double<T>(value(rng));
    const std::vector<T> before = qkv;
    const HeadsStrides strides {width, head_dim};
    const std::ptrdiff_t size = static_cast<std::ptrdiff_t>(qkv.size());
    HeadsView<T> q(qkv.data(), size, {tokens, q_heads, head_dim}, strides);
    HeadsView<T> k(qkv.data() + q_heads * head_dim, size - q_heads * head_dim, {tokens, kv_heads, head_dim}, strides);
    HeadsView<T> v(qkv.data() + (q_heads + kv_heads) * head_dim, size - (q_heads + kv_heads) * head_dim,
                   {tokens, kv_heads, head_dim}, strides);
    std::vector<float> q_weight(static_cast<std::size_t>(head_dim)), k_weight(static_cast<std::size_t>(head_dim));
    for (float& w : q_weight) w = std::uniform_real_distribution<float>(0.5f, 1.5f)(rng);
    for (float& w : k_weight) w = std::uniform_real_distribution<float>(0.5f, 1.5f)(rng);
    const bool one_plus = coin(rng) != 0;
    const QkNorm norm {one_plus ? NormWeighting::one_plus_weight : NormWeighting::weight, 1e-6f, q_weight, k_weight};
    std::vector<std::int64_t> ids(static_cast<std::size_t>(tokens));
    for (auto& p : ids) p = std::uniform_int_distribution<std::int64_t>(0, 4095)(rng);
    Call<T> call {&path, &spec, with_norm ? &norm : nullptr, &angles, PositionIds(ids)};

    // 1. float caches, against the reference composition
    Cache kf = make_cache(CacheStorage::float32, paged, layout, slots, kv_heads, head_dim, {});
    Cache vf = make_cache(CacheStorage::float32, paged, layout, slots, kv_heads, head_dim, {});
    CacheWrite<T> w;
    if (q_heads) {
        w.q_in = q;
        w.q_out = q;
    }
    w.k = k;
    w.key_cache = kf.view;
    if (with_v) {
        w.v = v;
        w.value_cache = vf.view;
    }
    w.slot_mapping = mapping;
    w.stores = static_cast<CacheStores>(std::uniform_int_distribution<int>(0, 2)(rng));  // automatic, cached, streaming
    call(w);
    const double A = table.attention_factor(), n = head_dim;
    auto expected_head = [&](const HeadsView<T>& src, std::ptrdiff_t t, std::ptrdiff_t h, const float* weight,
                             std::vector<long double>& normalised) {
        const T* x = before.data() + (src.head(t, h) - qkv.data());
        normalised.assign(static_cast<std::size_t>(head_dim), 0.0L);
        long double sum = 0.0L;
        for (int d = 0; d < head_dim; ++d) {
            normalised[static_cast<std::size_t>(d)] = kernel_test::to_double(x[d]);
            sum += normalised[static_cast<std::size_t>(d)] * normalised[static_cast<std::size_t>(d)];
        }
        if (with_norm) {
            const long double rms = std::sqrt(sum / n + static_cast<long double>(1e-6f));
            for (int d = 0; d < head_dim; ++d)
                normalised[static_cast<std::size_t>(d)] =
                    normalised[static_cast<std::size_t>(d)] / rms *
                    (static_cast<long double>(weight[d]) + (one_plus ? 1.0L : 0.0L));
        }
        std::vector<double> r(normalised.begin(), normalised.end());
        posenc::apply_rope_reference(spec, table, r.data(), ids[static_cast<std::size_t>(t)]);
        return r;
    };
    auto bound = [&](const std::vector<long double>& y, int d) {
        const double c = with_norm ? n / 2 + 9 : 3.5;
        if (d >= rotary_dim)
            return (with_norm ? n / 2 + 6 : 0.0) * u * std::fabs(static_cast<double>(y[static_cast<std::size_t>(d)])) +
                   1e-300;
        const posenc::PairCoordinates pc =
            spec.pair_coordinates(pairing == posenc::Pairing::half_split ? d % (rotary_dim / 2) : d / 2);
        return c * u * A *
                   std::hypot(static_cast<double>(y[static_cast<std::size_t>(pc.first)]),
                              static_cast<double>(y[static_cast<std::size_t>(pc.second)])) +
               1e-300;
    };
    std::vector<char> written_slot(static_cast<std::size_t>(slots), 0);
    for (std::ptrdiff_t t = 0; t < tokens; ++t) {
        const std::int64_t s = mapping[t];
        std::vector<long double> y;
        if (q_heads)
            for (std::ptrdiff_t h = 0; h < q_heads; ++h) {
                const std::vector<double> e = expected_head(q, t, h, q_weight.data(), y);
                for (int d = 0; d < head_dim; ++d)
                    if (!(std::fabs(kernel_test::to_double(q.head(t, h)[d]) - e[static_cast<std::size_t>(d)]) <=
                          bound(y, d) + kernel_test::half_ulp<T>(e[static_cast<std::size_t>(d)])))
                        fail("q t " + std::to_string(t) + " h " + std::to_string(h) + " d " + std::to_string(d));
            }
        if (s < 0) continue;
        written_slot[static_cast<std::size_t>(s)] = 1;
        for (std::ptrdiff_t h = 0; h < kv_heads; ++h) {
            const std::vector<double> e = expected_head(k, t, h, k_weight.data(), y);
            for (int d = 0; d < head_dim; ++d)
                if (!(std::fabs(cache_float(kf.view, s, h, d) - e[static_cast<std::size_t>(d)]) <= bound(y, d)))
                    fail("key cache t " + std::to_string(t) + " slot " + std::to_string(s) + " h " + std::to_string(h) +
                         " d " + std::to_string(d) + " got " + std::to_string(cache_float(kf.view, s, h, d)) +
                         " expected " + std::to_string(e[static_cast<std::size_t>(d)]));
            if (with_v)
                for (int d = 0; d < head_dim; ++d)
                    if (cache_float(vf.view, s, h, d) !=
                        static_cast<float>(
                            kernel_test::to_double(before[static_cast<std::size_t>(v.head(t, h) - qkv.data() + d)])))
                        fail("value cache t " + std::to_string(t) + " d " + std::to_string(d));
        }
    }
    // untouched slots and guards keep 0xA5
    auto check_untouched = [&](const Cache& c, const char* name) {
        std::vector<char> inside(c.bytes.size(), 0);
        for (std::ptrdiff_t s = 0; s < slots; ++s)
            if (written_slot[static_cast<std::size_t>(s)])
                for (std::ptrdiff_t h = 0; h < kv_heads; ++h) {
                    const std::size_t at = static_cast<std::size_t>(c.view.head(s, h) -
                                                                    reinterpret_cast<const std::byte*>(c.bytes.data()));
                    std::fill_n(inside.begin() + static_cast<std::ptrdiff_t>(at),
                                static_cast<std::size_t>(head_dim) * element_bytes(c.view.storage), 1);
                }
        for (std::size_t i = 0; i < c.bytes.size(); ++i)
            if (!inside[i] && c.bytes[i] != 0xA5) {
                fail(std::string(name) + " byte " + std::to_string(i) + " outside the written slots changed");
                return;
            }
    };
    check_untouched(kf, "key_cache");
    if (with_v) check_untouched(vf, "value_cache");

    // 2. the same call into each other storage: the conversion of the float cache's values
    for (CacheStorage storage :
         {CacheStorage::bfloat16, CacheStorage::float16, CacheStorage::float8_e4m3, CacheStorage::int8}) {
        std::vector<float> head_scales(static_cast<std::size_t>(kv_heads));
        for (float& x : head_scales) x = std::uniform_real_distribution<float>(0.004f, 0.05f)(rng);
        const bool quantized = is_quantized(storage);
        const CacheScale scale = !quantized  ? CacheScale::none()
                                 : coin(rng) ? CacheScale::tensor(head_scales[0])
                                             : CacheScale::heads(head_scales);
        Cache kc = make_cache(storage, paged, layout, slots, kv_heads, head_dim, scale);
        Cache vc = make_cache(storage, paged, layout, slots, kv_heads, head_dim, scale);
        qkv = before;
        CacheWrite<T> w2 = w;
        w2.key_cache = kc.view;
        if (with_v) w2.value_cache = vc.view;
        call(w2);
        auto convert = [&](float x, std::ptrdiff_t h, unsigned char* out) {
            const float sc =
                scale.kind == CacheScale::Kind::per_head ? head_scales[static_cast<std::size_t>(h)] : scale.value;
            switch (storage) {
            case CacheStorage::bfloat16: {
                const posenc::bfloat16 b = posenc::store_from_float<posenc::bfloat16>(x);
                std::memcpy(out, &b, 2);
                break;
            }
            case CacheStorage::float16: {
                const posenc::float16 b = posenc::store_from_float<posenc::float16>(x);
                std::memcpy(out, &b, 2);
                break;
            }
            case CacheStorage::float8_e4m3: out[0] = e4m3_definition(x / sc); break;
            default: out[0] = static_cast<unsigned char>(int8_definition(x / sc)); break;
            }
        };
        for (std::ptrdiff_t t = 0; t < tokens; ++t) {
            const std::int64_t s = mapping[t];
            if (s < 0) continue;
            for (std::ptrdiff_t h = 0; h < kv_heads; ++h)
                for (int d = 0; d < head_dim; ++d) {
                    const std::size_t eb = element_bytes(storage);
                    unsigned char expected[2] = {0, 0};
                    convert(cache_float(kf.view, s, h, d), h, expected);
                    if (std::memcmp(kc.view.head(s, h) + eb * static_cast<std::size_t>(d), expected, eb) != 0)
                        fail(std::string(to_string(storage)) + " key cache t " + std::to_string(t) + " h " +
                             std::to_string(h) + " d " + std::to_string(d));
                    if (with_v) {
                        convert(cache_float(vf.view, s, h, d), h, expected);
                        if (std::memcmp(vc.view.head(s, h) + eb * static_cast<std::size_t>(d), expected, eb) != 0)
                            fail(std::string(to_string(storage)) + " value cache t " + std::to_string(t) + " d " +
                                 std::to_string(d));
                    }
                }
        }
        check_untouched(kc, "key_cache (8/16-bit)");
    }
}

/// K and V of float heads written with `stores` into fresh float caches of `layout` (K rotated,
/// normalised first when `norm` is given): the key cache's bytes, then the value cache's.
std::vector<unsigned char> cache_bytes_after(const ArchPath& path, const posenc::RopeSpec& spec, const QkNorm* norm,
                                             const CosSinCache& angles, std::int64_t first_position,
                                             const std::vector<float>& k, const std::vector<float>& v,
                                             const std::vector<std::int64_t>& slot, CacheLayout layout,
                                             std::ptrdiff_t slots, std::ptrdiff_t heads, CacheStores stores)
{
    const int dim = spec.head_dim();
    const std::ptrdiff_t tokens = static_cast<std::ptrdiff_t>(slot.size());
    Cache kc = make_cache(CacheStorage::float32, true, layout, slots, heads, dim, {});
    Cache vc = make_cache(CacheStorage::float32, true, layout, slots, heads, dim, {});
    CacheWrite<float> w;
    w.k = HeadsView<const float>(k.data(), static_cast<std::ptrdiff_t>(k.size()), {tokens, heads, dim});
    w.v = HeadsView<const float>(v.data(), static_cast<std::ptrdiff_t>(v.size()), {tokens, heads, dim});
    w.key_cache = kc.view;
    w.value_cache = vc.view;
    w.slot_mapping = SlotMapping(slot);
    w.stores = stores;
    Call<float> {&path, &spec, norm, &angles, PositionIds::contiguous(first_position)}(w);
    kc.bytes.insert(kc.bytes.end(), vc.bytes.begin(), vc.bytes.end());
    return std::move(kc.bytes);
}

}  // namespace

TEST_CASE(
    "rope_into_cache and qk_norm_rope_into_cache equal the reference composition, every arch path and cache layout")
{
    std::mt19937 rng(1130);
    for (const ArchPath& path : kernel_test::arch_paths()) {
        int failures = 0;
        std::string first;
        const int cases = kernel_test::random_cases(40);
        for (int i = 0; i < cases; ++i) {
            run_case<float>(path, rng, failures, first);
            run_case<posenc::bfloat16>(path, rng, failures, first);
            run_case<posenc::float16>(path, rng, failures, first);
        }
        INFO(first);
        CHECK(failures == 0);
    }
}

TEST_CASE("CacheStores: streaming, cached and automatic stores write the same bytes, every arch path")
{
    // 1,100 tokens of 8 K and 8 V float heads of 128 write 8.8 MB of rows: automatic streams
    // (from 4 MiB); the last token's slot is -1 and four slots stay unwritten.
    const posenc::RopeSpec spec(128, 128, 1e6);
    const CosSinCache angles(posenc::FrequencyTable::from_spec(spec), 2048);
    constexpr std::ptrdiff_t tokens = 1100, heads = 8, dim = 128, slots = 1104;
    static_assert(static_cast<std::size_t>(tokens * 2 * heads * dim) * sizeof(float) >= streaming_stores_from);
    std::mt19937 rng(77);
    std::vector<float> k(static_cast<std::size_t>(tokens * heads * dim)), v(k.size());
    for (float& x : k) x = std::uniform_real_distribution<float>(-2, 2)(rng);
    for (float& x : v) x = std::uniform_real_distribution<float>(-2, 2)(rng);
    std::vector<std::int64_t> slot(static_cast<std::size_t>(tokens));
    std::iota(slot.begin(), slot.end(), 0);
    std::shuffle(slot.begin(), slot.end(), rng);
    slot.back() = -1;
    for (const ArchPath& path : kernel_test::arch_paths()) {
        std::vector<std::vector<unsigned char>> written;
        for (CacheStores stores : {CacheStores::cached, CacheStores::streaming, CacheStores::automatic})
            written.push_back(cache_bytes_after(path, spec, nullptr, angles, 7, k, v, slot, CacheLayout::token_major,
                                                slots, heads, stores));
        INFO(path.name);
        CHECK(written[0] == written[1]);
        CHECK(written[0] == written[2]);
        // and the V rows are V, byte for byte (the K rows are checked against the reference above)
        Cache vc = make_cache(CacheStorage::float32, true, CacheLayout::token_major, slots, heads, dim, {});
        const std::size_t v_begin = written[1].size() / 2 + Cache::guard;
        CHECK(std::memcmp(written[1].data() + v_begin + static_cast<std::size_t>(vc.view.offset(slot[0], 0)) * 4,
                          v.data(), static_cast<std::size_t>(heads * dim) * 4) == 0);
    }
}

TEST_CASE("CacheStores: streamed rows of more heads than one staging buffer holds equal the cached rows, both layouts")
{
    // Streamed rows are formed up to 16 KiB at a time (cache_stage_bytes): 40 heads of 128 floats
    // (the per-head norm path takes them in one block) and 12 heads of 512 floats (blocks of 16
    // heads, 8 heads a stage) each need more than one stage per token.
    static_assert(40 * 128 * sizeof(float) > detail::cache_stage_bytes &&
                  12 * 512 * sizeof(float) > detail::cache_stage_bytes);
    std::mt19937 rng(78);
    for (const auto& shape : {std::pair<std::ptrdiff_t, int> {40, 128}, std::pair<std::ptrdiff_t, int> {12, 512}}) {
        const std::ptrdiff_t heads = shape.first;  // (not a structured binding: clang 14 cannot capture one)
        const int dim = shape.second;
        const posenc::RopeSpec spec(dim, dim, 1e6);
        const CosSinCache angles(posenc::FrequencyTable::from_spec(spec), 64);
        constexpr std::ptrdiff_t tokens = 3, slots = 8;
        std::vector<float> k(static_cast<std::size_t>(tokens * heads * dim)), v(k.size()),
            weight(static_cast<std::size_t>(dim));
        for (float& x : k) x = std::uniform_real_distribution<float>(-2, 2)(rng);
        for (float& x : v) x = std::uniform_real_distribution<float>(-2, 2)(rng);
        for (float& x : weight) x = std::uniform_real_distribution<float>(0.5f, 1.5f)(rng);
        const QkNorm norm {NormWeighting::weight, 1e-6f, weight, weight};
        std::vector<std::int64_t> slot {5, 0, 3};
        for (const ArchPath& path : kernel_test::arch_paths())
            for (CacheLayout layout : {CacheLayout::token_major, CacheLayout::heads_major})
                for (const QkNorm* n : {static_cast<const QkNorm*>(nullptr), &norm}) {
                    std::vector<std::vector<unsigned char>> written;
                    for (CacheStores stores : {CacheStores::cached, CacheStores::streaming})
                        written.push_back(
                            cache_bytes_after(path, spec, n, angles, 9, k, v, slot, layout, slots, heads, stores));
                    INFO(path.name << " heads " << heads << " dim " << dim
                                   << (layout == CacheLayout::heads_major ? " heads_major" : " token_major")
                                   << (n ? " with norm" : ""));
                    CHECK(written[0] == written[1]);
                }
    }
}

/// The message of a refused rope_into_cache call at position 0, or "no error".
std::string refusal(const posenc::RopeSpec& spec, const CosSinCache& angles, const CacheWrite<float>& write)
{
    try {
        rope_into_cache(spec, angles, PositionIds::contiguous(0), write);
    } catch (const posenc::error& e) {
        return std::string(e.what());
    }
    return std::string("no error");
}

TEST_CASE("rope_into_cache refuses slots outside the cache, naming the token and the slot")
{
    const posenc::RopeSpec spec(64, 64, 1e4);
    const CosSinCache angles(posenc::FrequencyTable::from_spec(spec), 64);
    std::vector<float> k(3 * 2 * 64), v(3 * 2 * 64), kc(8 * 2 * 64), vc(8 * 2 * 64);
    std::vector<std::int8_t> q8(8 * 2 * 64);
    std::vector<std::int32_t> slots {0, -1, 8};
    CacheWrite<float> w;
    w.k = HeadsView<float>(k, {3, 2, 64});
    w.v = HeadsView<float>(v, {3, 2, 64});
    w.key_cache = KvCacheView::paged(kc.data(), static_cast<std::ptrdiff_t>(kc.size()), 2, 4, 2, 64);
    w.value_cache = KvCacheView::paged(vc.data(), static_cast<std::ptrdiff_t>(vc.size()), 2, 4, 2, 64);
    w.slot_mapping = SlotMapping(slots);
    auto message = [&](const CacheWrite<float>& write) { return refusal(spec, angles, write); };
    std::string m = message(w);
    CHECK(m.find("slot_mapping[2]") != std::string::npos);
    CHECK(m.find("8") != std::string::npos);
    slots[2] = -2;
    CHECK(message(w).find("slot_mapping[2]") != std::string::npos);
    slots[2] = 7;
    CHECK(message(w) == "no error");
    CacheWrite<float> bad = w;
    bad.key_cache =
        KvCacheView::paged(q8.data(), static_cast<std::ptrdiff_t>(q8.size()), 2, 4, 2, 64);  // int8 without a scale
    CHECK(message(bad).find("key_cache.scale") != std::string::npos);
    bad.key_cache = KvCacheView::paged(kc.data(), static_cast<std::ptrdiff_t>(kc.size()), 2, 4, 2, 64,
                                       CacheLayout::token_major, CacheScale::tensor(0.5f));
    CHECK(message(bad).find("key_cache.scale") != std::string::npos);
    const float scales[2] = {0.5f, -1.0f};
    bad.key_cache = KvCacheView::paged(q8.data(), static_cast<std::ptrdiff_t>(q8.size()), 2, 4, 2, 64,
                                       CacheLayout::token_major, CacheScale::heads(FloatSpan(scales, 2)));
    CHECK(message(bad).find("key_cache.scale[1]") != std::string::npos);
    bad = w;
    bad.value_cache = KvCacheView::paged(vc.data(), static_cast<std::ptrdiff_t>(vc.size()), 2, 4, 3, 64);
    CHECK(message(bad).find("value_cache.heads") != std::string::npos);
    bad = w;
    // overlaps the key cache (the size claims 64 elements past kc; the call is refused before any write)
    bad.value_cache = KvCacheView::paged(kc.data() + 64, static_cast<std::ptrdiff_t>(kc.size()), 2, 4, 2, 64);
    CHECK(message(bad).find("value_cache") != std::string::npos);
    // A buffer one element short of blocks x block_size x heads x head_dim = 2 x 4 x 2 x 64 = 1024.
    bad = w;
    bad.key_cache = KvCacheView::paged(kc.data(), 1023, 2, 4, 2, 64);
    CHECK(message(bad) == "key_cache.size 1023 must be >= blocks x block_size x heads x head_dim = 1024 (the elements "
                          "the buffer holds)");
    bad = w;
    bad.value_cache = KvCacheView::contiguous(vc.data(), 1023, 8, 2, 64);
    CHECK(message(bad).rfind("value_cache.size 1023 must be >= ", 0) == 0);
    std::vector<std::int64_t> short_slots {0, 1};
    bad = w;
    bad.slot_mapping = SlotMapping(short_slots);
    CHECK(message(bad).find("slot_mapping.count") != std::string::npos);
}

TEST_CASE("[errors] a cache with an unknown storage, layout or scale kind, or data off its element alignment, is "
          "refused by name")
{
    const posenc::RopeSpec spec(64, 64, 1e4);
    const CosSinCache angles(posenc::FrequencyTable::from_spec(spec), 64);
    std::vector<float> k(2 * 64), kc(8 * 2 * 64);
    const std::int64_t slot = 1;
    CacheWrite<float> w;
    w.k = HeadsView<float>(k, {1, 2, 64});
    w.key_cache = KvCacheView::paged(kc.data(), static_cast<std::ptrdiff_t>(kc.size()), 2, 4, 2, 64);
    w.slot_mapping = SlotMapping(&slot, 1);
    REQUIRE(refusal(spec, angles, w) == "no error");
    CacheWrite<float> bad = w;
    bad.key_cache.storage = static_cast<CacheStorage>(7);
    CHECK(refusal(spec, angles, bad) ==
          "key_cache.storage 7 must be one of float32, bfloat16, float16, float8_e4m3, int8, float8_e5m2");
    bad = w;
    bad.key_cache.layout = static_cast<CacheLayout>(2);
    CHECK(refusal(spec, angles, bad) == "key_cache.layout 2 must be token_major or heads_major");
    bad = w;
    bad.key_cache.storage = CacheStorage::int8;
    bad.key_cache.scale.kind = static_cast<CacheScale::Kind>(3);
    CHECK(refusal(spec, angles, bad) == "key_cache.scale.kind 3 must be none, per_tensor or per_head");
    bad = w;
    bad.key_cache.data = reinterpret_cast<char*>(kc.data()) + 2;
    const std::string m = refusal(spec, angles, bad);
    CHECK(m.rfind("key_cache.data ", 0) == 0);
    CHECK(m.find("must be a multiple of 4 (the alignment of a float32 element)") != std::string::npos);
    bad.key_cache.storage = CacheStorage::bfloat16;  // 2-byte elements: that address is aligned
    CHECK(refusal(spec, angles, bad) == "no error");
}

TEST_CASE(
    "[rope_cache] every dispatched fused step has an unchecked form on a chosen ISA, bit for bit the checked one's")
{
    namespace pd = posenc::kernels::dispatch;
    const posenc::RopeSpec spec(64, 64, 10000.0);
    const CosSinCache angles(posenc::FrequencyTable::from_spec(spec), 16);
    std::vector<float> weight(64);
    for (std::size_t i = 0; i < weight.size(); ++i) weight[i] = 0.5f + 0.01f * static_cast<float>(i);
    QkNorm norm;
    norm.q_weight = FloatSpan(weight.data(), 64);
    norm.k_weight = FloatSpan(weight.data(), 64);
    std::vector<float> x(2 * 2 * 64);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37f * static_cast<float>(i));
    const std::vector<std::int32_t> slot_ids {3, 1};
    const HeadsShape shape {2, 2, 64};
    for (pd::Isa isa : {pd::Isa::baseline, pd::best_isa()}) {
        CAPTURE(pd::to_string(isa));
        // checked and unchecked qk_norm_rope on the ISA
        std::vector<float> a = x, b = x;
        pd::qk_norm_rope_on(isa, spec, norm, angles, PositionIds::contiguous(2),
                            QKViews<float>::in_place(HeadsView<float>(a, shape)), TokenRange {0, 2});
        pd::qk_norm_rope_unchecked_on(isa, spec, norm, angles, PositionIds::contiguous(2),
                                      QKViews<float>::in_place(HeadsView<float>(b, shape)), TokenRange {0, 2});
        CHECK(a != x);
        CHECK(a == b);
        // checked and unchecked rope_into_cache and qk_norm_rope_into_cache on the ISA
        for (bool with_norm : {false, true}) {
            CAPTURE(with_norm);
            std::vector<float> cache_a(4 * 2 * 64, 0.0f), cache_b = cache_a;
            auto write_into = [&](std::vector<float>& cache) {
                CacheWrite<float> w;
                w.k = HeadsView<const float>(x.data(), static_cast<std::ptrdiff_t>(x.size()), shape);
                w.key_cache =
                    KvCacheView::contiguous(cache.data(), static_cast<std::ptrdiff_t>(cache.size()), 4, 2, 64);
                w.slot_mapping = SlotMapping(slot_ids);
                return w;
            };
            const CacheWrite<float> wa = write_into(cache_a), wb = write_into(cache_b);
            const PositionIds positions = PositionIds::contiguous(5);
            if (with_norm) {
                pd::qk_norm_rope_into_cache_on(isa, spec, norm, angles, positions, wa, TokenRange {0, 2});
                pd::qk_norm_rope_into_cache_unchecked_on(isa, spec, norm, angles, positions, wb, TokenRange {0, 2});
            } else {
                pd::rope_into_cache_on(isa, spec, angles, positions, wa, TokenRange {0, 2});
                pd::rope_into_cache_unchecked_on(isa, spec, angles, positions, wb, TokenRange {0, 2});
            }
            CHECK(cache_a != std::vector<float>(cache_a.size(), 0.0f));
            CHECK(cache_a == cache_b);
        }
    }
}

}  // namespace kernels_rope_cache_tests
