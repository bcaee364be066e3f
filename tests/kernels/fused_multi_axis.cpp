// SPDX-License-Identifier: MIT
// The fused steps with multi-axis positions (fused_multi_axis.hpp) on every arch path, against
// the composition of independent reference steps: an RMSNorm from its definition in long double
// and the foundation's scalar multi-axis rotation apply_multi_axis_rope_reference (double,
// exact angles, pair i at positions[axis_of_pair(i)]). Random shapes: Qwen2-VL contiguous
// sections and Qwen3-VL interleaved sections, both pairings, partial rotary, text tokens (every
// axis equal) and image tokens (axes apart), positions up to 2^31 - 1 with on-the-fly angles.
// fp8 e4m3 caches are checked through the cache case below.
// Tolerances are the headers' bounds: qk_norm_rope's (n/2 + 9) u A |y| per rotated coordinate
// and (n/2 + 6) u |y_d| per pass-through one, apply's 4 u A |x| without the norm, plus half an
// ulp of a 16-bit format. Into the cache: K at its slot of a paged cache (float: the bound; fp8
// e4m3: this file's definition-based quantiser of fl(float cache value / scale)), V copied bit
// for bit, every other cache byte unchanged; text tokens give the 1-D step's bytes.
// A focused set of instantiations (float and double, on-the-fly angles): the fused loops are
// the 1-D steps', tested for every storage type and both angle sources elsewhere
// (qk_norm_rope.cpp, rope_cache.cpp), and the gathering source's rows for both angle sources by
// multi_axis_kernels.cpp; each instantiation of the fused loops costs seconds of compile time.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <posenc/kernels/fused_dispatch.hpp>
#include <posenc/multi_axis.hpp>

#include "kernel_test_support.hpp"

namespace kernels_fused_multi_axis_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using namespace posenc::kernels;
using kernel_test::ArchPath;

constexpr double u = 5.9604644775390625e-08;  // 2^-24
constexpr std::int64_t largest = 2147483647;  // 2^31 - 1

/// One random multi-axis shape: spec, table, layout and [tokens][3] positions.
struct Shape {
    posenc::RopeSpec spec;
    posenc::FrequencyTable table;
    posenc::MultiAxisLayout layout;
    std::vector<std::int64_t> ids;  // [tokens][3]
    std::ptrdiff_t tokens;
};

Shape random_shape(std::mt19937& rng, std::int64_t max_position, bool text_only = false)
{
    std::uniform_int_distribution<int> coin(0, 1);
    const posenc::Pairing pairing = coin(rng) ? posenc::Pairing::half_split : posenc::Pairing::interleaved;
    const int head_dim = coin(rng) ? 128 : 2 * std::uniform_int_distribution<int>(3, 80)(rng);
    const int rotary_dim = coin(rng) ? head_dim : 2 * std::uniform_int_distribution<int>(3, head_dim / 2)(rng);
    const posenc::RopeSpec spec(head_dim, rotary_dim, coin(rng) ? 1e4 : 1e6, pairing);
    const posenc::FrequencyTable table(posenc::FrequencyTable::from_spec(spec).inv_freq(),
                                       coin(rng) ? 1.0 : 1.1386294361119891);
    const int pairs = rotary_dim / 2;
    const int s1 = std::uniform_int_distribution<int>(0, pairs / 3)(rng),
              s2 = std::uniform_int_distribution<int>(0, pairs / 3)(rng);
    const std::vector<int> sections {pairs - s1 - s2, s1, s2};
    const posenc::MultiAxisLayout layout = coin(rng) ? posenc::MultiAxisLayout::sections(sections, pairs)
                                                     : posenc::MultiAxisLayout::interleaved(sections, pairs);
    const std::ptrdiff_t tokens = std::uniform_int_distribution<int>(1, 6)(rng);
    std::vector<std::int64_t> ids(static_cast<std::size_t>(tokens * 3));
    std::uniform_int_distribution<std::int64_t> position(0, max_position);
    for (std::ptrdiff_t t = 0; t < tokens; ++t) {
        std::int64_t* p = ids.data() + t * 3;
        if (text_only || coin(rng)) p[0] = p[1] = p[2] = position(rng);  // a text token
        else p[0] = position(rng), p[1] = position(rng), p[2] = coin(rng) ? max_position : position(rng);
    }
    return {spec, table, layout, ids, tokens};
}

/// The reference of one head: RMSNorm in long double (when `norm`), then the multi-axis rotation
/// in double. bound[d]: the header's error bound of coordinate d.
std::vector<double> reference_head(const Shape& s, const std::vector<double>& x, const float* w, bool norm, float eps,
                                   std::ptrdiff_t t, std::vector<double>& bound)
{
    const std::size_t n = x.size();
    std::vector<double> y(n);
    long double sum = 0.0L;
    for (double v : x) sum += static_cast<long double>(v) * v;
    const long double rms = std::sqrt(sum / static_cast<long double>(n) + static_cast<long double>(eps));
    for (std::size_t d = 0; d < n; ++d) y[d] = norm ? static_cast<double>(x[d] / rms * w[d]) : x[d];
    std::vector<double> rotated = y;
    posenc::apply_multi_axis_rope_reference(s.spec, s.table, s.layout, rotated.data(), s.ids.data() + t * 3);
    bound.assign(n, 0.0);
    const double A = s.table.attention_factor();
    const double factor = norm ? static_cast<double>(n) / 2 + 9 : 4;
    for (std::size_t d = 0; d < n; ++d)
        bound[d] = (norm ? (static_cast<double>(n) / 2 + 6) : 0.0) * u * std::fabs(y[d]);
    for (int i = 0; i < s.spec.num_pairs(); ++i) {
        const posenc::PairCoordinates pc = s.spec.pair_coordinates(i);
        const auto a = static_cast<std::size_t>(pc.first), b = static_cast<std::size_t>(pc.second);
        bound[a] = bound[b] = factor * u * A * std::hypot(y[a], y[b]);
    }
    return rotated;
}

/// QK-norm + multi-axis RoPE in place over Q and K on one path, every coordinate against the
/// reference; returns the number of coordinates checked.
template <class T, class Angles>
int check_qk_norm_case(const ArchPath& path, std::mt19937& rng, const Shape& s, const Angles& angles)
{
    const int n = s.spec.head_dim();
    const std::ptrdiff_t q_heads = std::uniform_int_distribution<int>(1, 6)(rng),
                         k_heads = std::uniform_int_distribution<int>(0, 3)(rng);
    std::vector<T> q(static_cast<std::size_t>(s.tokens * q_heads * n)),
        k(static_cast<std::size_t>(s.tokens * k_heads * n) + 1);
    std::uniform_real_distribution<double> value(-3.0, 3.0);
    for (T& v : q) v = kernel_test::from_double<T>(value(rng));
    for (T& v : k) v = kernel_test::from_double<T>(value(rng));
    const std::vector<T> q0 = q, k0 = k;
    std::normal_distribution<float> wdist(1.0f, 0.3f);
    std::vector<float> qw(static_cast<std::size_t>(n)), kw(static_cast<std::size_t>(n));
    for (float& w : qw) w = wdist(rng);
    for (float& w : kw) w = wdist(rng);
    const QkNorm norm {NormWeighting::weight, 1e-6f, qw, kw};
    const HeadsView<T> qv(q.data(), static_cast<std::ptrdiff_t>(q.size()), {s.tokens, q_heads, n});
    const HeadsView<T> kv = k_heads
                                ? HeadsView<T>(k.data(), static_cast<std::ptrdiff_t>(k.size()), {s.tokens, k_heads, n})
                                : HeadsView<T> {};
    const auto views = QKViews<T>::in_place(qv, kv);
    const MultiAxisIds ids(s.layout, MultiAxisPositions(s.ids, 3));
    if (path.dispatched) dispatch::qk_norm_rope_on(path.isa, s.spec, norm, angles, ids, views);
    else qk_norm_rope(s.spec, norm, angles, ids, views);
    int checked = 0;
    for (int tensor = 0; tensor < 2; ++tensor) {
        const std::vector<T>& before = tensor ? k0 : q0;
        const std::vector<T>& after = tensor ? k : q;
        const std::ptrdiff_t heads = tensor ? k_heads : q_heads;
        for (std::ptrdiff_t t = 0; t < s.tokens; ++t)
            for (std::ptrdiff_t h = 0; h < heads; ++h) {
                const std::size_t at = static_cast<std::size_t>((t * heads + h) * n);
                std::vector<double> x(static_cast<std::size_t>(n)), bound;
                for (int d = 0; d < n; ++d)
                    x[static_cast<std::size_t>(d)] = kernel_test::to_double(before[at + static_cast<std::size_t>(d)]);
                const std::vector<double> want =
                    reference_head(s, x, tensor ? kw.data() : qw.data(), true, 1e-6f, t, bound);
                for (int d = 0; d < n; ++d) {
                    const auto i = static_cast<std::size_t>(d);
                    const double got = kernel_test::to_double(after[at + i]);
                    const double tol = std::is_same_v<T, double> ? 1e-12 * (std::fabs(want[i]) + 1e-3)
                                                                 : bound[i] + kernel_test::half_ulp<T>(want[i]);
                    if (!(std::fabs(got - want[i]) <= tol))
                        FAIL(path.name << " " << kernel_test::type_name<T>() << " "
                                       << std::string(posenc::to_string(s.spec.pairing())) << " "
                                       << std::string(posenc::to_string(s.layout.kind())) << " head_dim " << n
                                       << " rotary " << s.spec.rotary_dim() << " tensor " << tensor << " t " << t
                                       << " h " << h << " d " << d << " positions "
                                       << s.ids[static_cast<std::size_t>(t * 3)] << ","
                                       << s.ids[static_cast<std::size_t>(t * 3 + 1)] << ","
                                       << s.ids[static_cast<std::size_t>(t * 3 + 2)] << ": got " << got << " want "
                                       << want[i] << " bound " << tol);
                    ++checked;
                }
            }
    }
    REQUIRE(kernel_test::bits_of(k.back()) == kernel_test::bits_of(k0.back()));  // the element past K
    return checked;
}

}  // namespace

TEST_CASE("[reference] fused QK-norm + M-RoPE equals a long double RMSNorm composed with "
          "apply_multi_axis_rope_reference, every arch path")
{
    std::mt19937 rng(20261206);
    int checked = 0;
    for (const ArchPath& path : kernel_test::arch_paths()) {
        for (int c = 0; c < kernel_test::random_cases(16); ++c) {
            const Shape small = random_shape(rng, 4095);
            const Shape large = random_shape(rng, largest);
            const OnTheFlyAngles otf(large.table);
            checked += check_qk_norm_case<float>(path, rng, small, OnTheFlyAngles(small.table));
            checked += check_qk_norm_case<float>(path, rng, large, otf);
            if (!path.dispatched) checked += check_qk_norm_case<double>(path, rng, large, otf);
        }
    }
    CHECK(checked > 10000);
}

namespace {

/// A paged float or fp8 cache of 4 blocks of 8 slots, heads x head_dim per slot, token_major or
/// heads_major, with 64 guard bytes after it.
struct Cache {
    std::vector<std::uint8_t> bytes;
    KvCacheView view;
    Cache(CacheStorage storage, CacheLayout layout, std::ptrdiff_t heads, int head_dim, CacheScale scale)
    {
        const std::ptrdiff_t elements = 32 * heads * head_dim;
        bytes.assign(static_cast<std::size_t>(elements) * element_bytes(storage) + 64, 0xA5);
        view = storage == CacheStorage::float32
                   ? KvCacheView::paged(reinterpret_cast<float*>(bytes.data()), elements, 4, 8, heads, head_dim, layout)
                   : KvCacheView::paged(reinterpret_cast<posenc::float8_e4m3*>(bytes.data()), elements, 4, 8, heads,
                                        head_dim, layout, scale);
    }
};

using kernel_test::e4m3_definition;

/// One cache case: (QK-norm +) multi-axis RoPE of Q in place and K into a float cache, V copied,
/// checked against the reference; the same call into an fp8 cache checked code by code against the
/// float cache's values; with text-only positions the 1-D step's cache bytes.
void check_cache_case(const ArchPath& path, std::mt19937& rng, bool text_only)
{
    const Shape s = random_shape(rng, largest, text_only);
    const int n = s.spec.head_dim();
    const bool with_norm = std::uniform_int_distribution<int>(0, 1)(rng) != 0;
    const CacheLayout layout =
        std::uniform_int_distribution<int>(0, 1)(rng) ? CacheLayout::token_major : CacheLayout::heads_major;
    const std::ptrdiff_t q_heads = 4, kv_heads = 2;
    std::uniform_real_distribution<float> value(-3.0f, 3.0f);
    std::vector<float> q(static_cast<std::size_t>(s.tokens * q_heads * n)),
        k(static_cast<std::size_t>(s.tokens * kv_heads * n)), v(k.size());
    for (auto* x : {&q, &k, &v})
        for (float& e : *x) e = value(rng);
    const std::vector<float> q0 = q, weight_q(static_cast<std::size_t>(n), 1.25f),
                             weight_k(static_cast<std::size_t>(n), 0.75f);
    std::vector<std::int32_t> slots(static_cast<std::size_t>(s.tokens));
    for (std::ptrdiff_t t = 0; t < s.tokens; ++t)
        slots[static_cast<std::size_t>(t)] = t == 1 ? -1 : static_cast<std::int32_t>(31 - 3 * t);
    const OnTheFlyAngles angles(s.table);
    const MultiAxisIds positions(s.layout, MultiAxisPositions(s.ids, 3));
    const QkNorm norm {NormWeighting::weight, 1e-6f, weight_q, weight_k};
    auto run = [&](const KvCacheView& key, const KvCacheView& value_cache, std::vector<float>& q_io, bool one_d) {
        q_io = q0;
        CacheWrite<float> w;
        w.q_in = HeadsView<const float>(q_io.data(), static_cast<std::ptrdiff_t>(q_io.size()), {s.tokens, q_heads, n});
        w.q_out = HeadsView<float>(q_io.data(), static_cast<std::ptrdiff_t>(q_io.size()), {s.tokens, q_heads, n});
        w.k = HeadsView<const float>(k.data(), static_cast<std::ptrdiff_t>(k.size()), {s.tokens, kv_heads, n});
        w.v = HeadsView<const float>(v.data(), static_cast<std::ptrdiff_t>(v.size()), {s.tokens, kv_heads, n});
        w.key_cache = key;
        w.value_cache = value_cache;
        w.slot_mapping = SlotMapping(slots);
        if (one_d) {  // text tokens: axis 0 is every axis
            std::vector<std::int64_t> ids(static_cast<std::size_t>(s.tokens));
            for (std::ptrdiff_t t = 0; t < s.tokens; ++t)
                ids[static_cast<std::size_t>(t)] = s.ids[static_cast<std::size_t>(t * 3)];
            if (path.dispatched && with_norm)
                dispatch::qk_norm_rope_into_cache_on(path.isa, s.spec, norm, angles, PositionIds(ids), w);
            else if (path.dispatched) dispatch::rope_into_cache_on(path.isa, s.spec, angles, PositionIds(ids), w);
            else if (with_norm) qk_norm_rope_into_cache(s.spec, norm, angles, PositionIds(ids), w);
            else rope_into_cache(s.spec, angles, PositionIds(ids), w);
        } else if (path.dispatched) {
            if (with_norm) dispatch::qk_norm_rope_into_cache_on(path.isa, s.spec, norm, angles, positions, w);
            else dispatch::rope_into_cache_on(path.isa, s.spec, angles, positions, w);
        } else {
            if (with_norm) qk_norm_rope_into_cache(s.spec, norm, angles, positions, w);
            else rope_into_cache(s.spec, angles, positions, w);
        }
    };
    Cache key(CacheStorage::float32, layout, kv_heads, n, {}),
        value_cache(CacheStorage::float32, layout, kv_heads, n, {});
    const std::vector<std::uint8_t> untouched = key.bytes;
    std::vector<float> q_out;
    run(key.view, value_cache.view, q_out, false);
    std::vector<std::uint8_t> key_expected = untouched;  // the written slots filled in below
    const std::string what = path.name + " " + posenc::to_string(s.spec.pairing()) + " " +
                             posenc::to_string(s.layout.kind()) + " head_dim " + std::to_string(n) + " rotary " +
                             std::to_string(s.spec.rotary_dim()) + (with_norm ? " norm" : " no norm") +
                             (text_only ? " text" : " mixed");
    INFO(what);
    for (std::ptrdiff_t t = 0; t < s.tokens; ++t) {
        for (int tensor = 0; tensor < 2; ++tensor) {
            const std::ptrdiff_t heads = tensor ? kv_heads : q_heads;
            for (std::ptrdiff_t h = 0; h < heads; ++h) {
                const float* src = (tensor ? k.data() : q0.data()) + (t * heads + h) * n;
                std::vector<double> x(src, src + n), bound;
                const std::vector<double> want =
                    reference_head(s, x, tensor ? weight_k.data() : weight_q.data(), with_norm, 1e-6f, t, bound);
                const std::int32_t slot = slots[static_cast<std::size_t>(t)];
                if (tensor == 1 && slot < 0) continue;
                const float* got = tensor ? reinterpret_cast<const float*>(key.view.head(slot, h))
                                          : q_out.data() + (t * heads + h) * n;
                for (int d = 0; d < n; ++d)
                    REQUIRE(std::fabs(got[d] - want[static_cast<std::size_t>(d)]) <=
                            bound[static_cast<std::size_t>(d)]);
                if (tensor == 1) {
                    const std::size_t at = static_cast<std::size_t>(key.view.head(slot, h) -
                                                                    reinterpret_cast<std::byte*>(key.bytes.data()));
                    std::memcpy(key_expected.data() + at, got, static_cast<std::size_t>(n) * sizeof(float));
                    REQUIRE(std::memcmp(value_cache.view.head(slot, h), v.data() + (t * kv_heads + h) * n,
                                        static_cast<std::size_t>(n) * sizeof(float)) == 0);
                }
            }
        }
    }
    REQUIRE(key.bytes == key_expected);  // nothing but the written rows changed, guards included

    // fp8 e4m3 with a scale per head: the code of fl(float cache value / scale)
    const std::vector<float> scales {0.5f, 0.0625f};
    Cache key8(CacheStorage::float8_e4m3, layout, kv_heads, n, CacheScale::heads(scales));
    Cache value8(CacheStorage::float8_e4m3, layout, kv_heads, n, CacheScale::heads(scales));
    std::vector<float> q8;
    run(key8.view, value8.view, q8, false);
    REQUIRE(q8 == q_out);
    for (std::ptrdiff_t t = 0; t < s.tokens; ++t) {
        const std::int32_t slot = slots[static_cast<std::size_t>(t)];
        for (std::ptrdiff_t h = 0; slot >= 0 && h < kv_heads; ++h) {
            const auto* f = reinterpret_cast<const float*>(key.view.head(slot, h));
            const auto* codes = reinterpret_cast<const std::uint8_t*>(key8.view.head(slot, h));
            for (int d = 0; d < n; ++d)
                REQUIRE(static_cast<int>(codes[d]) ==
                        static_cast<int>(e4m3_definition(f[d] / scales[static_cast<std::size_t>(h)])));
        }
    }
    if (!text_only) return;
    Cache key1(CacheStorage::float32, layout, kv_heads, n, {}), value1(CacheStorage::float32, layout, kv_heads, n, {});
    std::vector<float> q1;
    run(key1.view, value1.view, q1, true);
    REQUIRE(q1 == q_out);
    REQUIRE(key1.bytes == key.bytes);
    REQUIRE(value1.bytes == value_cache.bytes);
}

}  // namespace

TEST_CASE("[reference] (QK-norm +) M-RoPE into a paged float and fp8 cache equals the reference; text tokens give the "
          "1-D step's bytes, every arch path")
{
    std::mt19937 rng(7);
    for (const ArchPath& path : kernel_test::arch_paths())
        for (int c = 0; c < kernel_test::random_cases(12); ++c) {
            check_cache_case(path, rng, false);
            check_cache_case(path, rng, true);
        }
}

TEST_CASE("[errors] the multi-axis fused steps refuse a layout or positions they cannot apply, naming the field")
{
    const posenc::RopeSpec spec(128, 128, 1e6, posenc::Pairing::half_split);
    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
    const OnTheFlyAngles cache(table, 63);  // positions [0, 63]
    const std::vector<float> w(128, 1.0f);
    const QkNorm norm {NormWeighting::weight, 1e-6f, w, w};
    std::vector<float> q(2 * 128);
    const auto views = QKViews<float>::in_place(HeadsView<float>(q.data(), 256, {2, 1, 128}));
    const posenc::MultiAxisLayout layout = posenc::MultiAxisLayout::interleaved({24, 20, 20}, 64);
    auto message = [&](const posenc::MultiAxisLayout& l, const std::vector<std::int32_t>& ids, int axes) {
        try {
            qk_norm_rope(spec, norm, cache, MultiAxisIds(l, MultiAxisPositions(ids, axes)), views);
        } catch (const posenc::error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(message(posenc::MultiAxisLayout::sections({16, 8, 8}, 32), {0, 0, 0, 1, 1, 1}, 3).find("layout.num_pairs") !=
          std::string::npos);
    CHECK(message(layout, {0, 0, 0, 1, 1, 64}, 3).find("positions[1][2]") != std::string::npos);
    CHECK(message(layout, {0, 0, 1, 1}, 2).find("positions.axes") != std::string::npos);
    CHECK(message(layout, {0, 0, 0}, 3).find("positions.tokens") != std::string::npos);
    CHECK(message(posenc::MultiAxisLayout::coordinate_sections({21, 21, 22}, 64), {0, 0, 0, 1, 1, 1}, 3)
              .find("splits pairs") != std::string::npos);
    CHECK(message(layout, {0, 0, 0, 1, 1, 1}, 3) == "no error");
    // into the cache: the same rules, before the cache's own
    std::vector<float> key(64 * 128);
    std::vector<std::int32_t> slots {0, 1};
    CacheWrite<float> write;
    write.k = HeadsView<const float>(q.data(), 256, {2, 1, 128});
    write.key_cache = KvCacheView::contiguous(key.data(), static_cast<std::ptrdiff_t>(key.size()), 64, 1, 128);
    write.slot_mapping = SlotMapping(slots);
    const std::vector<std::int64_t> far {0, 0, 0, 1, 1, largest};
    const MultiAxisIds far_ids(layout, MultiAxisPositions(far, 3));
    CHECK_THROWS_WITH_AS(rope_into_cache(spec, cache, far_ids, write), doctest::Contains("positions[1][2]"),
                         posenc::error);
    CHECK_THROWS_WITH_AS(dispatch::qk_norm_rope_into_cache(spec, norm, cache, far_ids, write),
                         doctest::Contains("positions[1][2]"), posenc::error);
}

}  // namespace kernels_fused_multi_axis_tests
