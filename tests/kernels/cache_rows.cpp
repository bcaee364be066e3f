// SPDX-License-Identifier: MIT
// Cache rows wider than the rotated part (kv_cache_view.hpp, KvCacheView::in_rows): K rotated
// into columns [column, column + head_dim) of rows row_width elements wide, V (of another width)
// copied or converted into other columns of the same rows in the same call, on every arch path.
// Expected values: K by the foundation's scalar rotation apply_rope_reference (double, exact
// angles; positions up to 2^31 - 1 with on-the-fly angles) within apply's bound 4 u A |x| per
// pair coordinate (float cache), that value rounded by the library's scalar bfloat16 conversion
// within half an ulp more (bfloat16 cache), or the code of fl(float cache value / scale) by this
// file's definition-based fp8 e4m3 quantiser (fp8 cache); V's bits copied, rounded to bfloat16 or
// quantised the same way. Every other byte of the rows and the guard bytes keep their values.
// The DeepSeek-V3 MLA decode step ([c_kv 512 | k_pe 64] rows, q_pe inside [nope 128 | pe 64]
// query heads) is one of the cases, as docs/kernels.md writes it.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <posenc/kernels/fused_dispatch.hpp>
#include <posenc/rotation.hpp>

#include "kernel_test_support.hpp"

namespace kernels_cache_rows_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using namespace posenc::kernels;
using kernel_test::ArchPath;

constexpr double u = 5.9604644775390625e-08;  // 2^-24

using kernel_test::e4m3_definition;

/// One geometry of wide rows: `heads` rows per slot of row_width elements; K's columns
/// [k_column, k_column + head_dim), V's [v_column, v_column + v_dim).
struct Rows {
    std::ptrdiff_t heads, row_width, k_column, v_column;
    int head_dim, v_dim;
    CacheLayout layout;
};

/// A buffer of 3 blocks of 4 slots of those rows in `storage`, 0xA5 everywhere, 32 guard bytes after.
struct WideCache {
    std::vector<std::uint8_t> bytes;
    KvCacheView key, value;
    WideCache(const Rows& r, CacheStorage storage, CacheScale scale)
    {
        const std::ptrdiff_t elements = 12 * r.heads * r.row_width;
        bytes.assign(static_cast<std::size_t>(elements) * element_bytes(storage) + 32, 0xA5);
        auto view = [&](std::ptrdiff_t dim) {
            void* data = bytes.data();
            switch (storage) {
            case CacheStorage::float32:
                return KvCacheView::paged(static_cast<float*>(data), elements, 3, 4, r.heads, dim, r.layout);
            case CacheStorage::bfloat16:
                return KvCacheView::paged(static_cast<posenc::bfloat16*>(data), elements, 3, 4, r.heads, dim, r.layout);
            default:
                return KvCacheView::paged(static_cast<posenc::float8_e4m3*>(data), elements, 3, 4, r.heads, dim,
                                          r.layout, scale);
            }
        };
        key = view(r.head_dim).in_rows(r.row_width, r.k_column);
        value = view(r.v_dim).in_rows(r.row_width, r.v_column);
    }
};

/// One call: Q (optional) in place, K into key columns, V into value columns, on `path`.
struct Inputs {
    const posenc::RopeSpec& spec;
    const OnTheFlyAngles& angles;
    const std::vector<std::int64_t>& ids;
    std::vector<float> k, v;
    std::vector<std::int32_t> slots;
    std::ptrdiff_t tokens;
};

void write_rows(const ArchPath& path, const Inputs& in, const Rows& r, const WideCache& cache)
{
    CacheWrite<float> w;
    w.k =
        HeadsView<const float>(in.k.data(), static_cast<std::ptrdiff_t>(in.k.size()), {in.tokens, r.heads, r.head_dim});
    w.v = HeadsView<const float>(in.v.data(), static_cast<std::ptrdiff_t>(in.v.size()), {in.tokens, r.heads, r.v_dim});
    w.key_cache = cache.key;
    w.value_cache = cache.value;
    w.slot_mapping = SlotMapping(in.slots);
    const PositionIds positions(in.ids);
    if (path.dispatched) dispatch::rope_into_cache_on(path.isa, in.spec, in.angles, positions, w);
    else rope_into_cache(in.spec, in.angles, positions, w);
}

void check_rows_case(const ArchPath& path, std::mt19937& rng)
{
    std::uniform_int_distribution<int> coin(0, 1);
    Rows r {};
    r.heads = std::uniform_int_distribution<int>(1, 3)(rng);
    r.head_dim = 2 * std::uniform_int_distribution<int>(1, 64)(rng);
    r.v_dim = std::uniform_int_distribution<int>(1, 200)(rng);
    const std::ptrdiff_t gap = std::uniform_int_distribution<int>(0, 9)(rng);
    r.row_width = r.head_dim + r.v_dim + gap + std::uniform_int_distribution<int>(0, 5)(rng);
    const bool v_first = coin(rng) != 0;  // [v | gap | k] or [k | gap | v]
    r.v_column = v_first ? 0 : r.head_dim + gap;
    r.k_column = v_first ? r.v_dim + gap : 0;
    r.layout = coin(rng) ? CacheLayout::token_major : CacheLayout::heads_major;
    const int rotary_dim = coin(rng) ? r.head_dim : 2 * std::uniform_int_distribution<int>(1, r.head_dim / 2)(rng);
    const posenc::RopeSpec spec(r.head_dim, rotary_dim, 1e4,
                                coin(rng) ? posenc::Pairing::half_split : posenc::Pairing::interleaved);
    const posenc::FrequencyTable table(posenc::FrequencyTable::from_spec(spec).inv_freq(),
                                       coin(rng) ? 1.0 : 1.1386294361119891);
    const OnTheFlyAngles angles(table);
    const std::ptrdiff_t tokens = std::uniform_int_distribution<int>(1, 5)(rng);
    std::vector<std::int64_t> ids(static_cast<std::size_t>(tokens));
    for (auto& p : ids)
        p = coin(rng) ? 2147483647 - std::uniform_int_distribution<int>(0, 3)(rng)
                      : std::uniform_int_distribution<int>(0, 100000)(rng);
    Inputs in {spec, angles, ids, {}, {}, {}, tokens};
    std::uniform_real_distribution<float> value(-3.0f, 3.0f);
    in.k.resize(static_cast<std::size_t>(tokens * r.heads * r.head_dim));
    in.v.resize(static_cast<std::size_t>(tokens * r.heads * r.v_dim));
    for (float& x : in.k) x = value(rng);
    for (float& x : in.v) x = value(rng);
    for (std::ptrdiff_t t = 0; t < tokens; ++t) in.slots.push_back(t == 2 ? -1 : static_cast<std::int32_t>(11 - 2 * t));

    const std::vector<float> scales {0.25f, 0.03125f, 1.0f};
    WideCache f32(r, CacheStorage::float32, {}), bf16(r, CacheStorage::bfloat16, {}),
        fp8(r, CacheStorage::float8_e4m3, CacheScale::heads(scales));
    const std::vector<std::uint8_t> f32_before = f32.bytes, bf16_before = bf16.bytes, fp8_before = fp8.bytes;
    write_rows(path, in, r, f32);
    write_rows(path, in, r, bf16);
    write_rows(path, in, r, fp8);
    std::vector<std::uint8_t> f32_expected = f32_before, bf16_expected = bf16_before, fp8_expected = fp8_before;
    const std::string what = path.name + " heads " + std::to_string(r.heads) + " head_dim " +
                             std::to_string(r.head_dim) + " rotary " + std::to_string(rotary_dim) + " v_dim " +
                             std::to_string(r.v_dim) + " row_width " + std::to_string(r.row_width) + " k_column " +
                             std::to_string(r.k_column) + " v_column " + std::to_string(r.v_column) +
                             (r.layout == CacheLayout::token_major ? " token_major" : " heads_major");
    INFO(what);
    const double A = table.attention_factor();
    for (std::ptrdiff_t t = 0; t < tokens; ++t) {
        const std::int32_t slot = in.slots[static_cast<std::size_t>(t)];
        if (slot < 0) continue;
        for (std::ptrdiff_t h = 0; h < r.heads; ++h) {
            const float* k = in.k.data() + (t * r.heads + h) * r.head_dim;
            std::vector<double> want(k, k + r.head_dim);
            posenc::apply_rope_reference(spec, table, want.data(), ids[static_cast<std::size_t>(t)]);
            const auto* got = reinterpret_cast<const float*>(f32.key.head(slot, h));
            const auto* got16 = reinterpret_cast<const posenc::bfloat16*>(bf16.key.head(slot, h));
            const auto* codes = reinterpret_cast<const std::uint8_t*>(fp8.key.head(slot, h));
            const float scale = scales[static_cast<std::size_t>(h)];
            for (int d = 0; d < r.head_dim; ++d) {
                const auto i = static_cast<std::size_t>(d);
                double bound = 0.0;  // a pass-through coordinate is copied
                if (d < rotary_dim) {
                    const posenc::PairCoordinates pc = spec.pair_coordinates(
                        spec.pairing() == posenc::Pairing::half_split ? d % (rotary_dim / 2) : d / 2);
                    bound = 4 * u * A * std::hypot(static_cast<double>(k[pc.first]), static_cast<double>(k[pc.second]));
                }
                REQUIRE(std::fabs(got[d] - want[i]) <= bound);
                REQUIRE(kernel_test::bits_of(got16[d]) ==
                        kernel_test::bits_of(posenc::store_from_float<posenc::bfloat16>(got[d])));
                REQUIRE(static_cast<int>(codes[d]) == static_cast<int>(e4m3_definition(got[d] / scale)));
            }
            auto at = [&](const KvCacheView& c, const std::vector<std::uint8_t>& b) {
                return static_cast<std::size_t>(c.head(slot, h) - reinterpret_cast<const std::byte*>(b.data()));
            };
            std::memcpy(f32_expected.data() + at(f32.key, f32.bytes), got, static_cast<std::size_t>(r.head_dim) * 4);
            std::memcpy(bf16_expected.data() + at(bf16.key, bf16.bytes), got16,
                        static_cast<std::size_t>(r.head_dim) * 2);
            std::memcpy(fp8_expected.data() + at(fp8.key, fp8.bytes), codes, static_cast<std::size_t>(r.head_dim));
            // V: copied, rounded, quantised (expected bytes written from the inputs)
            const float* v = in.v.data() + (t * r.heads + h) * r.v_dim;
            std::memcpy(f32_expected.data() + at(f32.value, f32.bytes), v, static_cast<std::size_t>(r.v_dim) * 4);
            for (int d = 0; d < r.v_dim; ++d) {
                const posenc::bfloat16 b = posenc::store_from_float<posenc::bfloat16>(v[d]);
                std::memcpy(bf16_expected.data() + at(bf16.value, bf16.bytes) + 2 * static_cast<std::size_t>(d), &b, 2);
                fp8_expected[at(fp8.value, fp8.bytes) + static_cast<std::size_t>(d)] = e4m3_definition(v[d] / scale);
            }
        }
    }
    REQUIRE(f32.bytes == f32_expected);  // V and every byte outside the written columns, guards included
    REQUIRE(bf16.bytes == bf16_expected);
    REQUIRE(fp8.bytes == fp8_expected);
}

}  // namespace

TEST_CASE("[reference] K rotated into a slice of wider cache rows, V into other columns of the same rows (float, "
          "bfloat16, fp8), every arch path")
{
    std::mt19937 rng(576);
    for (const ArchPath& path : kernel_test::arch_paths())
        for (int c = 0; c < kernel_test::random_cases(24); ++c) check_rows_case(path, rng);
}

TEST_CASE("[reference] the DeepSeek-V3 MLA decode step: q_pe rotated in place, k_pe into [512, 576) of the cache rows, "
          "c_kv into [0, 512), bfloat16")
{
    using posenc::bfloat16;
    const posenc::RopeSpec spec(64, 64, 10000.0, posenc::Pairing::interleaved);  // qk_rope_head_dim 64, rope_interleave
    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
    const OnTheFlyAngles angles(table);
    constexpr std::ptrdiff_t tokens = 4, q_heads = 16, blocks = 8, block_size = 16;
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> value(-2.0f, 2.0f);
    std::vector<bfloat16> kv_a(tokens * 576),
        q(tokens * q_heads * 192);  // [c_kv | k_pe] per token; [nope 128 | pe 64] per head
    for (auto* buf : {&kv_a, &q})
        for (bfloat16& x : *buf) x = posenc::store_from_float<bfloat16>(value(rng));
    const std::vector<bfloat16> kv_a0 = kv_a, q0 = q;
    std::vector<bfloat16> cache(blocks * block_size * 576, posenc::store_from_float<bfloat16>(7.0f));
    const std::vector<bfloat16> cache0 = cache;
    const std::vector<std::int64_t> positions {5, 4095, 65536, 2147483647};
    const std::vector<std::int64_t> slots {17, 3, 127, 64};
    for (const ArchPath& path : kernel_test::arch_paths()) {
        kv_a = kv_a0, q = q0, cache = cache0;
        CacheWrite<bfloat16> w;
        w.q_in = HeadsView<const bfloat16>(q.data() + 128, static_cast<std::ptrdiff_t>(q.size()) - 128,
                                           {tokens, q_heads, 64}, {q_heads * 192, 192});
        w.q_out = HeadsView<bfloat16>(q.data() + 128, static_cast<std::ptrdiff_t>(q.size()) - 128,
                                      {tokens, q_heads, 64}, {q_heads * 192, 192});
        w.k = HeadsView<const bfloat16>(kv_a.data() + 512, static_cast<std::ptrdiff_t>(kv_a.size()) - 512,
                                        {tokens, 1, 64}, {576, 64});
        w.v = HeadsView<const bfloat16>(kv_a.data(), static_cast<std::ptrdiff_t>(kv_a.size()), {tokens, 1, 512},
                                        {576, 512});
        const auto size = static_cast<std::ptrdiff_t>(cache.size());
        w.key_cache = KvCacheView::paged(cache.data(), size, blocks, block_size, 1, 64).in_rows(576, 512);
        w.value_cache = KvCacheView::paged(cache.data(), size, blocks, block_size, 1, 512).in_rows(576, 0);
        w.slot_mapping = SlotMapping(slots.data(), tokens);
        if (path.dispatched) dispatch::rope_into_cache_on(path.isa, spec, angles, PositionIds(positions), w);
        else rope_into_cache(spec, angles, PositionIds(positions), w);
        const std::string what = path.name;
        INFO(what);
        std::vector<bfloat16> expected = cache0;
        for (std::ptrdiff_t t = 0; t < tokens; ++t) {
            const std::size_t row = static_cast<std::size_t>(slots[static_cast<std::size_t>(t)] * 576);
            std::vector<double> k_pe(64);
            for (int d = 0; d < 64; ++d)
                k_pe[static_cast<std::size_t>(d)] =
                    posenc::to_float(kv_a0[static_cast<std::size_t>(t * 576 + 512 + d)]);
            const std::vector<double> k_in = k_pe;
            posenc::apply_rope_reference(spec, table, k_pe.data(), positions[static_cast<std::size_t>(t)]);
            for (int d = 0; d < 64; ++d) {
                const double x = posenc::to_float(cache[row + 512 + static_cast<std::size_t>(d)]);
                const double bound =
                    4 * u * std::hypot(k_in[static_cast<std::size_t>(d & ~1)], k_in[static_cast<std::size_t>(d | 1)]) +
                    kernel_test::half_ulp<bfloat16>(k_pe[static_cast<std::size_t>(d)]);
                REQUIRE(std::fabs(x - k_pe[static_cast<std::size_t>(d)]) <= bound);
                expected[row + 512 + static_cast<std::size_t>(d)] = cache[row + 512 + static_cast<std::size_t>(d)];
            }
            std::copy(kv_a0.begin() + t * 576, kv_a0.begin() + t * 576 + 512,
                      expected.begin() + static_cast<std::ptrdiff_t>(row));
            for (std::ptrdiff_t h = 0; h < q_heads; ++h) {
                const std::size_t head = static_cast<std::size_t>((t * q_heads + h) * 192);
                std::vector<double> q_pe(64);
                for (int d = 0; d < 64; ++d)
                    q_pe[static_cast<std::size_t>(d)] = posenc::to_float(q0[head + 128 + static_cast<std::size_t>(d)]);
                const std::vector<double> q_in = q_pe;
                posenc::apply_rope_reference(spec, table, q_pe.data(), positions[static_cast<std::size_t>(t)]);
                for (int d = 0; d < 64; ++d) {
                    const double bound =
                        4 * u *
                            std::hypot(q_in[static_cast<std::size_t>(d & ~1)], q_in[static_cast<std::size_t>(d | 1)]) +
                        kernel_test::half_ulp<bfloat16>(q_pe[static_cast<std::size_t>(d)]);
                    REQUIRE(std::fabs(posenc::to_float(q[head + 128 + static_cast<std::size_t>(d)]) -
                                      q_pe[static_cast<std::size_t>(d)]) <= bound);
                }
                for (int d = 0; d < 128; ++d)
                    REQUIRE(kernel_test::bits_of(q[head + static_cast<std::size_t>(d)]) ==
                            kernel_test::bits_of(q0[head + static_cast<std::size_t>(d)]));
            }
        }
        for (std::size_t i = 0; i < cache.size(); ++i)
            REQUIRE(kernel_test::bits_of(cache[i]) == kernel_test::bits_of(expected[i]));
        for (std::size_t i = 0; i < kv_a.size(); ++i)
            REQUIRE(kernel_test::bits_of(kv_a[i]) == kernel_test::bits_of(kv_a0[i]));
    }
}

/// One K head of T into its rows with no Q in the call, on every arch path: the rows as the same
/// call with a Q writes them (bit for bit; with a Q the row is expanded, without one interleaved
/// rows of whole registers are rotated as the source gives them, and bfloat16 on AVX-512 BF16 by
/// the even/odd rotation), and within the reference bound (plus half an ulp of T).
template <class T>
void check_one_head_rows(int rotary_dim, posenc::Pairing pairing)
{
    const int head_dim = rotary_dim + 8;  // 8 pass-through dims after the rotated ones
    const posenc::RopeSpec spec(head_dim, rotary_dim, 10000.0, pairing);
    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
    const OnTheFlyAngles angles(table);
    constexpr std::ptrdiff_t tokens = 3;
    const std::vector<std::int64_t> ids {0, (1 << 24) + 3, 2147483647};
    const std::vector<std::int64_t> slots {5, 0, 2};
    std::mt19937 rng(static_cast<unsigned>(rotary_dim));
    std::uniform_real_distribution<float> value(-2.0f, 2.0f);
    std::vector<T> k(static_cast<std::size_t>(tokens * head_dim)), q(k.size());
    for (T& x : k) x = kernel_test::from_double<T>(value(rng));
    for (T& x : q) x = kernel_test::from_double<T>(value(rng));
    for (const ArchPath& path : kernel_test::arch_paths()) {
        // K alone (as given where whole registers), then with a Q in the same call (expanded)
        std::vector<T> alone(static_cast<std::size_t>(6 * head_dim + 8), kernel_test::from_double<T>(7.0)),
            with_q(alone), q_out(q);
        for (std::vector<T>* cache : {&alone, &with_q}) {
            CacheWrite<T> w;
            if (cache == &with_q) {
                w.q_in = HeadsView<const T>(q.data(), static_cast<std::ptrdiff_t>(q.size()), {tokens, 1, head_dim});
                w.q_out = HeadsView<T>(q_out.data(), static_cast<std::ptrdiff_t>(q_out.size()), {tokens, 1, head_dim});
            }
            w.k = HeadsView<const T>(k.data(), static_cast<std::ptrdiff_t>(k.size()), {tokens, 1, head_dim});
            w.key_cache = KvCacheView::contiguous(cache->data(), 6 * head_dim, 6, 1, head_dim);
            w.slot_mapping = SlotMapping(slots.data(), tokens);
            if (path.dispatched) dispatch::rope_into_cache_on(path.isa, spec, angles, PositionIds(ids), w);
            else rope_into_cache(spec, angles, PositionIds(ids), w);
        }
        const std::string what = path.name + " " + kernel_test::type_name<T>() + " rotary " +
                                 std::to_string(rotary_dim) +
                                 (pairing == posenc::Pairing::interleaved ? " interleaved" : " half_split");
        INFO(what);
        for (std::size_t i = 0; i < alone.size(); ++i)
            REQUIRE(kernel_test::bits_of(alone[i]) == kernel_test::bits_of(with_q[i]));
        for (std::ptrdiff_t t = 0; t < tokens; ++t) {
            std::vector<double> x(static_cast<std::size_t>(head_dim)), want(x.size());
            for (int d = 0; d < head_dim; ++d)
                x[static_cast<std::size_t>(d)] = kernel_test::to_double(k[static_cast<std::size_t>(t * head_dim + d)]);
            want = x;
            posenc::apply_rope_reference(spec, table, want.data(), ids[static_cast<std::size_t>(t)]);
            const T* got = alone.data() + slots[static_cast<std::size_t>(t)] * head_dim;
            for (int d = 0; d < head_dim; ++d) {
                double bound = 0.0;  // pass-through: copied
                if (d < rotary_dim) {
                    const posenc::PairCoordinates pc =
                        spec.pair_coordinates(pairing == posenc::Pairing::half_split ? d % (rotary_dim / 2) : d / 2);
                    bound =
                        4 * u *
                            std::hypot(x[static_cast<std::size_t>(pc.first)], x[static_cast<std::size_t>(pc.second)]) +
                        kernel_test::half_ulp<T>(want[static_cast<std::size_t>(d)]);
                }
                REQUIRE(std::fabs(kernel_test::to_double(got[d]) - want[static_cast<std::size_t>(d)]) <= bound);
            }
        }
        for (std::size_t i = 6 * static_cast<std::size_t>(head_dim); i < alone.size(); ++i)
            REQUIRE(kernel_test::to_double(alone[i]) == 7.0);
    }
}

TEST_CASE("[reference] one K head into its rows with no Q (the row rotated as given), rotary 16 to 192, float and "
          "bfloat16, every arch path")
{
    // rotary_dim / 2 a multiple of every arch's register (the row as given) or not (16, 48: the
    // expanded row on AVX-512); 96 and 192 end in a lone register (the last one's second half)
    for (const int rotary_dim : {16, 32, 48, 64, 96, 128, 192})
        for (const posenc::Pairing pairing : {posenc::Pairing::interleaved, posenc::Pairing::half_split}) {
            check_one_head_rows<float>(rotary_dim, pairing);
            check_one_head_rows<posenc::bfloat16>(rotary_dim, pairing);
        }
}

namespace {

/// A Q output of 8-bit codes (CacheWrite::q_rows): e4m3 or e5m2, [tokens][heads][head_dim].
template <class Code>
std::uint8_t code_of(float x)
{
    if constexpr (std::is_same_v<Code, posenc::float8_e4m3>) return e4m3_definition(x);
    else return posenc::to_float8_e5m2(x).bits;  // checked against the definition in quantize_e5m2.cpp
}

template <class Code>
void check_q_rows_case(const ArchPath& path, std::mt19937& rng)
{
    std::uniform_int_distribution<int> coin(0, 1);
    const int head_dim = 2 * std::uniform_int_distribution<int>(4, 64)(rng);
    const int rotary_dim = coin(rng) ? head_dim : 2 * std::uniform_int_distribution<int>(1, head_dim / 2)(rng);
    const posenc::RopeSpec spec(head_dim, rotary_dim, 1e6,
                                coin(rng) ? posenc::Pairing::half_split : posenc::Pairing::interleaved);
    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
    const OnTheFlyAngles angles(table);
    const std::ptrdiff_t tokens = std::uniform_int_distribution<int>(1, 5)(rng),
                         q_heads = std::uniform_int_distribution<int>(1, 6)(rng);
    std::vector<std::int64_t> ids(static_cast<std::size_t>(tokens));
    for (auto& p : ids) p = coin(rng) ? 2147483647 : std::uniform_int_distribution<int>(0, 1 << 24)(rng);
    std::uniform_real_distribution<float> value(-3.0f, 3.0f);
    std::vector<float> q(static_cast<std::size_t>(tokens * q_heads * head_dim)),
        k(static_cast<std::size_t>(tokens * head_dim));
    for (float& x : q) x = value(rng);
    for (float& x : k) x = value(rng);
    std::normal_distribution<float> wdist(1.0f, 0.3f);
    std::vector<float> qw(static_cast<std::size_t>(head_dim)), kw(qw.size());
    for (float& w : qw) w = wdist(rng);
    for (float& w : kw) w = wdist(rng);
    const QkNorm norm {NormWeighting::weight, 1e-6f, qw, kw};
    std::vector<float> key(static_cast<std::size_t>(tokens * head_dim)), q_float(q.size());
    std::vector<std::int64_t> slots(static_cast<std::size_t>(tokens));
    for (std::ptrdiff_t t = 0; t < tokens; ++t) slots[static_cast<std::size_t>(t)] = t;
    std::vector<float> scales(static_cast<std::size_t>(q_heads));
    for (float& x : scales) x = std::ldexp(1.0f, std::uniform_int_distribution<int>(-12, 0)(rng)) * 1.5f;
    const CacheScale scale = coin(rng) ? CacheScale::tensor(scales[0]) : CacheScale::heads(scales);
    std::vector<Code> codes(q.size() + 8, Code {0xA5}), codes_axes(codes), codes_view(codes), codes_view_axes(codes);
    std::vector<float> k_view(k.size());
    const posenc::MultiAxisLayout layout = posenc::MultiAxisLayout::sections({rotary_dim / 2, 0, 0}, rotary_dim / 2);
    std::vector<std::int64_t> axis_ids;
    for (std::int64_t p : ids) axis_ids.insert(axis_ids.end(), {p, p, p});
    const MultiAxisIds multi(layout, MultiAxisPositions(axis_ids, 3));
    // the view-only step (qk_norm_rope's q_rows form): Q to the same rows, K to k_view
    auto view_only = [&](std::vector<Code>& q_codes, bool axes) {
        const auto views = QKViews<float>::out_of_place(
            HeadsView<const float>(q.data(), static_cast<std::ptrdiff_t>(q.size()), {tokens, q_heads, head_dim}), {},
            HeadsView<const float>(k.data(), static_cast<std::ptrdiff_t>(k.size()), {tokens, 1, head_dim}),
            HeadsView<float>(k_view.data(), static_cast<std::ptrdiff_t>(k_view.size()), {tokens, 1, head_dim}));
        const KvCacheView rows = KvCacheView::contiguous(q_codes.data(), static_cast<std::ptrdiff_t>(q.size()), tokens,
                                                         q_heads, head_dim, CacheLayout::token_major, scale);
        if (axes) qk_norm_rope(spec, norm, angles, multi, views, rows);
        else qk_norm_rope(spec, norm, angles, PositionIds(ids), views, rows);
    };
    auto call = [&](std::vector<float>* q_out, std::vector<Code>* q_codes, bool axes) {
        CacheWrite<float> w;
        w.q_in = HeadsView<const float>(q.data(), static_cast<std::ptrdiff_t>(q.size()), {tokens, q_heads, head_dim});
        if (q_out)
            w.q_out = HeadsView<float>(q_out->data(), static_cast<std::ptrdiff_t>(q_out->size()),
                                       {tokens, q_heads, head_dim});
        if (q_codes)
            w.q_rows = KvCacheView::contiguous(q_codes->data(), static_cast<std::ptrdiff_t>(q.size()), tokens, q_heads,
                                               head_dim, CacheLayout::token_major, scale);
        w.k = HeadsView<const float>(k.data(), static_cast<std::ptrdiff_t>(k.size()), {tokens, 1, head_dim});
        w.key_cache = KvCacheView::contiguous(key.data(), static_cast<std::ptrdiff_t>(key.size()), tokens, 1, head_dim);
        w.slot_mapping = SlotMapping(slots.data(), tokens);
        if (axes) qk_norm_rope_into_cache(spec, norm, angles, multi, w);
        else if (path.dispatched)
            dispatch::qk_norm_rope_into_cache_on(path.isa, spec, norm, angles, PositionIds(ids), w);
        else qk_norm_rope_into_cache(spec, norm, angles, PositionIds(ids), w);
    };
    call(&q_float, nullptr, false);
    call(nullptr, &codes, false);
    call(nullptr, &codes_axes, true);
    view_only(codes_view, false);
    view_only(codes_view_axes, true);
    for (std::size_t i = 0; i < key.size(); ++i)
        REQUIRE(kernel_test::bits_of(k_view[i]) == kernel_test::bits_of(key[i]));  // K as into the cache
    const std::string what = path.name + " head_dim " + std::to_string(head_dim) + " rotary " +
                             std::to_string(rotary_dim) + " heads " + std::to_string(q_heads) +
                             (scale.kind == CacheScale::Kind::per_head ? " per-head scales" : " one scale");
    INFO(what);
    const double n = head_dim, A = table.attention_factor();
    for (std::ptrdiff_t t = 0; t < tokens; ++t)
        for (std::ptrdiff_t h = 0; h < q_heads; ++h) {
            const std::size_t at = static_cast<std::size_t>((t * q_heads + h) * head_dim);
            long double sum = 0.0L;
            for (int d = 0; d < head_dim; ++d)
                sum +=
                    static_cast<long double>(q[at + static_cast<std::size_t>(d)]) * q[at + static_cast<std::size_t>(d)];
            const long double rms = std::sqrt(sum / head_dim + 1e-6L);
            std::vector<double> y(static_cast<std::size_t>(head_dim));
            for (int d = 0; d < head_dim; ++d)
                y[static_cast<std::size_t>(d)] =
                    static_cast<double>(q[at + static_cast<std::size_t>(d)] / rms * qw[static_cast<std::size_t>(d)]);
            std::vector<double> want = y;
            posenc::apply_rope_reference(spec, table, want.data(), ids[static_cast<std::size_t>(t)]);
            for (int d = 0; d < head_dim; ++d) {
                const auto i = static_cast<std::size_t>(d);
                double bound = (n / 2 + 6) * u * std::fabs(y[i]);
                if (d < rotary_dim) {
                    const posenc::PairCoordinates pc = spec.pair_coordinates(
                        spec.pairing() == posenc::Pairing::half_split ? d % (rotary_dim / 2) : d / 2);
                    bound = (n / 2 + 9) * u * A *
                            std::hypot(y[static_cast<std::size_t>(pc.first)], y[static_cast<std::size_t>(pc.second)]);
                }
                REQUIRE(std::fabs(q_float[at + i] - want[i]) <= bound);
                const float s =
                    scale.kind == CacheScale::Kind::per_head ? scales[static_cast<std::size_t>(h)] : scales[0];
                REQUIRE(static_cast<int>(codes[at + i].bits) == static_cast<int>(code_of<Code>(q_float[at + i] / s)));
                REQUIRE(codes_axes[at + i].bits == codes[at + i].bits);
                REQUIRE(static_cast<int>(codes_view[at + i].bits) ==
                        static_cast<int>(code_of<Code>(q_float[at + i] / s)));
                REQUIRE(codes_view_axes[at + i].bits == codes_view[at + i].bits);
            }
        }
    for (std::size_t i = q.size(); i < codes.size(); ++i)
        REQUIRE((codes[i].bits == 0xA5 && codes_view[i].bits == 0xA5));  // past the rows
}

}  // namespace

TEST_CASE("[reference] fp8 e4m3 and e5m2 Q from the QK-norm + RoPE pass (CacheWrite::q_rows; qk_norm_rope's q_rows "
          "form, view-only), one scale or one per head, 1-D and multi-axis, every arch path")
{
    std::mt19937 rng(8);
    for (const ArchPath& path : kernel_test::arch_paths())
        for (int c = 0; c < kernel_test::random_cases(10); ++c) {
            check_q_rows_case<posenc::float8_e4m3>(path, rng);
            check_q_rows_case<posenc::float8_e5m2>(path, rng);
        }
}

TEST_CASE("[errors] columns outside the row, key and value columns that meet, and V wider than 512 are refused by name")
{
    const posenc::RopeSpec spec(64, 64, 10000.0, posenc::Pairing::interleaved);
    const CosSinCache angles(posenc::FrequencyTable::from_spec(spec), 16);
    std::vector<float> kv_a(2 * 576), cache(4 * 576), wide_v(2 * 600);
    const std::vector<std::int32_t> slots {0, 1};
    auto message = [&](KvCacheView key, KvCacheView value, std::ptrdiff_t v_dim) {
        CacheWrite<float> w;
        w.k = HeadsView<const float>(kv_a.data() + 512, 576 * 2 - 512, {2, 1, 64}, {576, 64});
        w.v = v_dim == 512 ? HeadsView<const float>(kv_a.data(), 576 * 2, {2, 1, 512}, {576, 512})
                           : HeadsView<const float>(wide_v.data(), 1200, {2, 1, v_dim});
        w.key_cache = key;
        w.value_cache = value;
        w.slot_mapping = SlotMapping(slots);
        try {
            rope_into_cache(spec, angles, PositionIds::contiguous(0), w);
        } catch (const posenc::error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const KvCacheView k64 = KvCacheView::contiguous(cache.data(), 4 * 576, 4, 1, 64);
    const KvCacheView v512 = KvCacheView::contiguous(cache.data(), 4 * 576, 4, 1, 512);
    CHECK(message(k64.in_rows(576, 512), v512.in_rows(576, 0), 512) == "no error");
    CHECK(message(k64.in_rows(576, 513), v512.in_rows(576, 0), 512) ==
          "key_cache.column 513 must be in [0, row_width - head_dim] = [0, 512] (row_width 576, head_dim 64)");
    CHECK(message(k64.in_rows(576, -1), v512.in_rows(576, 0), 512) ==
          "key_cache.column -1 must be in [0, row_width - head_dim] = [0, 512] (row_width 576, head_dim 64)");
    CHECK(message(k64.in_rows(-576, 0), v512.in_rows(576, 0), 512) ==
          "key_cache.row_width -576 must be 0 (rows of head_dim) or in [1, 2^31)");
    CHECK(message(k64.in_rows(576, 511), v512.in_rows(576, 0), 512) ==
          "value_cache overlapping must not share memory with key_cache");
    const KvCacheView shifted = KvCacheView::contiguous(cache.data() + 1, 4 * 576 - 1, 3, 1, 512).in_rows(576, 0);
    CHECK(message(k64.in_rows(576, 512), shifted, 512) ==
          "value_cache overlapping must not share memory with key_cache");
    CHECK(message(k64.in_rows(576, 512), KvCacheView::contiguous(cache.data(), 4 * 576, 4, 1, 600).in_rows(576, 0),
                  600) == "v.head_dim 600 must be in [1, 512] for the fused steps");
    CHECK(message(k64.in_rows(576, 512), v512.in_rows(576, 65), 512) ==
          "value_cache.column 65 must be in [0, row_width - head_dim] = [0, 64] (row_width 576, head_dim 512)");
    KvCacheView small = v512.in_rows(576, 0);
    small.size = 4 * 576 - 1;
    CHECK(message(k64.in_rows(576, 512), small, 512) == "value_cache.size 2303 must be >= blocks x block_size x heads "
                                                        "x row_width = 2304 (the elements the buffer holds)");

    // q_rows: instead of q_out, a row per token, apart from the rest
    std::vector<float> q(2 * 4 * 64);
    std::vector<posenc::float8_e4m3> q8(2 * 4 * 64);
    auto q_message = [&](bool with_q_out, std::ptrdiff_t rows, CacheScale scale, void* at) {
        CacheWrite<float> w;
        w.q_in = HeadsView<const float>(q.data(), 512, {2, 4, 64});
        if (with_q_out) w.q_out = HeadsView<float>(q.data(), 512, {2, 4, 64});
        w.q_rows = KvCacheView::contiguous(static_cast<posenc::float8_e4m3*>(at), 512, rows, 4, 64,
                                           CacheLayout::token_major, scale);
        w.k = HeadsView<const float>(kv_a.data() + 512, 576 * 2 - 512, {2, 1, 64}, {576, 64});
        w.key_cache = k64;
        w.slot_mapping = SlotMapping(slots);
        try {
            rope_into_cache(spec, angles, PositionIds::contiguous(0), w);
        } catch (const posenc::error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(q_message(false, 2, CacheScale::tensor(0.5f), q8.data()) == "no error");
    CHECK(q_message(true, 2, CacheScale::tensor(0.5f), q8.data()) ==
          "q_out given must be absent when Q goes to q_rows");
    CHECK(q_message(false, 1, CacheScale::tensor(0.5f), q8.data()) ==
          "q_rows.slots 1 must be >= tokens 2 (a row per token)");
    CHECK(q_message(false, 2, CacheScale::none(), q8.data()) ==
          "q_rows.scale none must be given (per tensor or per head) for a float8_e4m3 cache");
    CHECK(q_message(false, 2, CacheScale::tensor(0.5f), q.data()) ==
          "q_rows overlapping must not share memory with q_in");

    // the same rules in the view-only step (qk_norm_rope's q_rows form), K to k_out
    const std::vector<float> w64(64, 1.0f);
    const QkNorm norm {NormWeighting::weight, 1e-6f, w64, w64};
    std::vector<float> k_out(2 * 64);
    auto view_message = [&](bool with_q_out, std::ptrdiff_t rows, CacheScale scale, void* at) {
        QKViews<float> views = QKViews<float>::out_of_place(
            HeadsView<const float>(q.data(), 512, {2, 4, 64}), {},
            HeadsView<const float>(kv_a.data() + 512, 576 * 2 - 512, {2, 1, 64}, {576, 64}),
            HeadsView<float>(k_out.data(), 128, {2, 1, 64}));
        if (with_q_out) views.q_out = HeadsView<float>(q.data(), 512, {2, 4, 64});
        const KvCacheView q_rows = at == nullptr
                                       ? KvCacheView {}
                                       : KvCacheView::contiguous(static_cast<posenc::float8_e4m3*>(at), 512, rows, 4,
                                                                 64, CacheLayout::token_major, scale);
        try {
            qk_norm_rope(spec, norm, angles, PositionIds::contiguous(0), views, q_rows);
        } catch (const posenc::error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(view_message(false, 2, CacheScale::tensor(0.5f), q8.data()) == "no error");
    CHECK(view_message(false, 2, CacheScale::tensor(0.5f), nullptr) ==
          "q_rows.data null must point to the rows that receive Q");
    CHECK(view_message(true, 2, CacheScale::tensor(0.5f), q8.data()) ==
          "q_out given must be absent when Q goes to q_rows");
    CHECK(view_message(false, 1, CacheScale::tensor(0.5f), q8.data()) ==
          "q_rows.slots 1 must be >= q_in.tokens 2 (a row per token)");
    CHECK(view_message(false, 2, CacheScale::none(), q8.data()) ==
          "q_rows.scale none must be given (per tensor or per head) for a float8_e4m3 cache");
    CHECK(view_message(false, 2, CacheScale::tensor(0.5f), q.data()) ==
          "q_rows overlapping must not share memory with q_in");
    CHECK(view_message(false, 2, CacheScale::tensor(0.5f), k_out.data()) ==
          "q_rows overlapping must not share memory with k_out");
}

}  // namespace kernels_cache_rows_tests
