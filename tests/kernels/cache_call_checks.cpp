// SPDX-License-Identifier: MIT
// The checked cache calls' inline test of the usual case (detail::cache_call_is_usual, in
// kernels/detail/fused_checks.hpp) against the full rules that name each failure
// (detail::check_cache_call_rules): the short test may refuse what the rules accept (the call
// then goes through the rules), never the reverse. Valid calls of several shapes (one token and
// several, with and without Q, V and the norm, float and 8-bit caches with per-tensor and
// per-head scales, both cache layouts) are mutated one or two fields at a time: pointers moved
// into other buffers or off their alignment, extents, strides and sizes off by one or zeroed,
// enumerators out of range, scales, eps and weighting invalid, slots and positions outside their
// ranges, token ranges outside the tokens. Every unmutated call must take the short test.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <posenc/kernels/angle_cache.hpp>
#include <posenc/kernels/kv_cache_write.hpp>

namespace kernels_cache_call_checks_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using namespace posenc::kernels;

constexpr int dim = 32, q_heads = 4, kv_heads = 2, max_tokens = 3, slots_per_block = 4, blocks = 3;

/// One float arena holding packed QKV, both caches, the norm weights and the per-head scales, so
/// that a pointer moved by a mutation lands in another buffer of the same call.
struct Arena {
    static constexpr std::ptrdiff_t row = (q_heads + 2 * kv_heads) * dim;
    static constexpr std::ptrdiff_t qkv = max_tokens * row;
    static constexpr std::ptrdiff_t cache = blocks * slots_per_block * kv_heads * dim;
    static constexpr std::ptrdiff_t margin = 2 * dim;  // a view moved by +-dim stays inside the arena
    std::vector<float> data =
        std::vector<float>(static_cast<std::size_t>(margin + qkv + 2 * cache + 2 * dim + 2 * kv_heads + margin), 0.5f);
    float* qkv_at() { return data.data() + margin; }
    float* key_at() { return qkv_at() + qkv; }
    float* value_at() { return key_at() + cache; }
    float* weights_at() { return value_at() + cache; }
    float* scales_at() { return weights_at() + 2 * dim; }
};

struct Case {
    detail::FusedArgs<float> f;
    PositionIds positions = PositionIds::contiguous(0);
    TokenRange range {0, 1};
    int weighting = 0;
    const CosSinCache* angles = nullptr;
};

KvCacheView cache_view(float* at, CacheStorage storage, CacheLayout layout, CacheScale scale)
{
    KvCacheView c = KvCacheView::paged(at, Arena::cache, blocks, slots_per_block, kv_heads, dim, layout, scale);
    c.storage = storage;
    if (storage != CacheStorage::float32)  // the same bytes, counted in smaller elements
        c.size = Arena::cache * static_cast<std::ptrdiff_t>(sizeof(float) / element_bytes(storage));
    return c;
}

/// A valid call drawn at random.
Case valid_case(std::mt19937& rng, Arena& a, std::vector<std::int64_t>& slots, const CosSinCache& angles)
{
    auto coin = [&] { return std::uniform_int_distribution<int>(0, 1)(rng) == 1; };
    Case c;
    c.angles = &angles;
    const std::ptrdiff_t tokens = coin() ? 1 : max_tokens;
    const PackedQkv<float> p =
        slice_packed_qkv(a.qkv_at(), Arena::qkv, PackedQkvShape {tokens, q_heads, kv_heads, dim});
    detail::FusedArgs<float>& f = c.f;
    f.head_dim = dim;
    f.rotary_dim = dim;
    if (coin()) {
        f.q_in = p.q;
        f.q_out = p.q;
    }
    f.k_in = p.k;
    const CacheLayout layout = coin() ? CacheLayout::token_major : CacheLayout::heads_major;
    const int storage = std::uniform_int_distribution<int>(0, 3)(rng);
    for (std::ptrdiff_t h = 0; h < kv_heads; ++h) a.scales_at()[h] = 0.25f + 0.5f * static_cast<float>(h);
    const CacheScale scale = storage == 2   ? CacheScale::tensor(0.5f)
                             : storage == 3 ? CacheScale::heads(FloatSpan(a.scales_at(), kv_heads))
                                            : CacheScale {};
    const CacheStorage kinds[] = {CacheStorage::float32, CacheStorage::bfloat16, CacheStorage::int8,
                                  CacheStorage::float8_e4m3};
    f.key_cache = cache_view(a.key_at(), kinds[storage], layout, scale);
    if (coin()) {
        f.v_in = p.v;
        f.value_cache = cache_view(a.value_at(), kinds[storage], layout, scale);
    }
    if (coin()) {
        f.norm = true;
        f.eps = 1e-6f;
        f.q_weight = FloatSpan(a.weights_at(), dim);
        f.k_weight = FloatSpan(a.weights_at() + dim, dim);
        c.weighting = static_cast<int>(coin());
    }
    slots.assign(max_tokens + 2, 0);
    for (std::ptrdiff_t t = 0; t < tokens; ++t) slots[static_cast<std::size_t>(t)] = t == 1 ? -1 : 2 * t + 1;
    f.slots = SlotMapping(slots.data(), tokens);
    c.positions = PositionIds::contiguous(coin() ? 0 : 60);
    c.range = {0, tokens};
    return c;
}

/// One random change of one field.
void mutate(std::mt19937& rng, Case& c, Arena& a, std::vector<std::int64_t>& slots, const CosSinCache& other_angles)
{
    auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
    auto nudge = [&](std::ptrdiff_t& x) {
        const std::ptrdiff_t deltas[] = {-1, 1, -dim, dim, 0};
        if (pick(6) == 5) x = 0;
        else x += deltas[pick(5)];
    };
    auto elsewhere = [&]() -> float* {  // somewhere in the arena, sometimes off float alignment
        float* p =
            a.data.data() + Arena::margin + pick(static_cast<int>(a.data.size()) - 2 * static_cast<int>(Arena::margin));
        return pick(4) == 0 ? reinterpret_cast<float*>(reinterpret_cast<char*>(p) + 1 + pick(3)) : p;
    };
    detail::FusedArgs<float>& f = c.f;
    auto mutate_view = [&](auto& v) {
        switch (pick(8)) {
        case 0: v.data = pick(5) == 0 ? nullptr : elsewhere(); break;
        case 1: nudge(v.size); break;
        case 2: nudge(v.tokens); break;
        case 3: nudge(v.heads); break;
        case 4: nudge(v.head_dim); break;
        case 5: nudge(v.token_stride); break;
        case 6: nudge(v.head_stride); break;
        default: v.data = v.data == nullptr ? nullptr : v.data + (pick(2) ? 1 : -1) * dim; break;
        }
    };
    auto mutate_cache = [&](KvCacheView& k) {
        switch (pick(11)) {
        case 0: k.data = pick(5) == 0 ? nullptr : static_cast<void*>(elsewhere()); break;
        case 1: nudge(k.blocks); break;
        case 2: nudge(k.block_size); break;
        case 3: nudge(k.heads); break;
        case 4: nudge(k.head_dim); break;
        case 5: nudge(k.size); break;
        case 6: k.storage = static_cast<CacheStorage>(pick(7)); break;
        case 7: k.layout = static_cast<CacheLayout>(pick(4)); break;
        case 8: k.scale.kind = static_cast<CacheScale::Kind>(pick(5)); break;
        case 9: {
            const float values[] = {0.0f, -1.0f, std::numeric_limits<float>::quiet_NaN(),
                                    std::numeric_limits<float>::infinity(), 2.0f};
            k.scale.value = values[pick(5)];
            break;
        }
        default:
            if (pick(2))
                k.scale.per_head = pick(2) ? FloatSpan {} : FloatSpan(k.scale.per_head.data, k.scale.per_head.size - 1);
            else a.scales_at()[pick(kv_heads)] = pick(2) ? -0.5f : std::numeric_limits<float>::quiet_NaN();
            break;
        }
    };
    switch (pick(16)) {
    case 0: mutate_view(f.q_in); break;
    case 1: mutate_view(f.q_out); break;
    case 2: mutate_view(f.k_in); break;
    case 3: mutate_view(f.v_in); break;
    case 4: mutate_cache(f.key_cache); break;
    case 5: mutate_cache(f.value_cache); break;
    case 6:
        slots[static_cast<std::size_t>(pick(max_tokens))] =
            std::int64_t {pick(4) - 2} + (pick(2) ? blocks * slots_per_block : 0);
        break;
    case 7:
        f.slots = pick(3) == 0 ? SlotMapping() : SlotMapping(slots.data(), f.slots.count() + (pick(2) ? 1 : -1));
        break;
    case 8: c.positions = PositionIds::contiguous(pick(2) ? -1 : 64 - pick(3)); break;
    case 9: c.range = {c.range.begin + pick(3) - 1, c.range.end + pick(3) - 1}; break;
    case 10: f.eps = pick(2) ? -1e-6f : std::numeric_limits<float>::quiet_NaN(); break;
    case 11: c.weighting = pick(2) ? 2 : -1; break;
    case 12:
        (pick(2) ? f.q_weight : f.k_weight) = pick(3) == 0 ? FloatSpan {}
                                              : pick(2)    ? FloatSpan(elsewhere(), dim)
                                                           : FloatSpan(a.weights_at(), dim - 1);
        break;
    case 13: c.angles = &other_angles; break;
    case 14:  // V or Q present without its partner
        if (pick(2)) f.value_cache = {};
        else f.q_out = {};
        break;
    default: f.norm = !f.norm; break;
    }
}

}  // namespace

TEST_CASE("[checks] the inline test of a usual cache call accepts only calls the full rules accept, and every valid "
          "call drawn")
{
    const posenc::RopeSpec spec(dim, dim, 1e4);
    const CosSinCache angles(posenc::FrequencyTable::from_spec(spec), 64);
    const CosSinCache other_angles(posenc::FrequencyTable::from_spec(posenc::RopeSpec(dim, dim / 2, 1e4)), 64);
    std::mt19937 rng(20261201);
    int usual = 0, accepted_by_rules = 0, refused = 0, disagreements = 0;
    std::string first;
    for (int i = 0; i < 20000; ++i) {
        Arena a;
        std::vector<std::int64_t> slots;
        Case c = valid_case(rng, a, slots, angles);
        const bool mutated = i % 8 != 0;
        if (mutated) {
            mutate(rng, c, a, slots, other_angles);
            if (i % 3 == 0) mutate(rng, c, a, slots, other_angles);
        }
        const bool fast = detail::cache_call_is_usual(spec, *c.angles, c.positions, c.f, c.weighting, c.range);
        const bool rules = detail::passes(
            [&] { detail::check_cache_call_rules(spec, *c.angles, c.positions, c.f, c.weighting, c.range); });
        usual += fast;
        accepted_by_rules += rules;
        refused += !rules;
        if (!mutated && !fast && first.empty())
            first = "an unmutated valid call missed the inline test, case " + std::to_string(i);
        if (fast && !rules) {
            ++disagreements;
            if (first.empty()) first = "the inline test accepted a call the rules refuse, case " + std::to_string(i);
        }
    }
    INFO(first);
    CHECK(first.empty());
    CHECK(disagreements == 0);
    // the draw exercises both sides: valid calls the inline test takes, and many refusals
    CHECK(usual >= 2500);
    CHECK(refused >= 10000);
    CHECK(accepted_by_rules >= usual);
}

}  // namespace kernels_cache_call_checks_tests
