// SPDX-License-Identifier: MIT
// The checked apply's inline test of the usual call (detail::rope_call_is_usual, in
// kernels/detail/checks.hpp) against the full rules that name each failure
// (detail::check_rope_call_rules): the short test may refuse what the rules accept (the call then
// goes through the rules), never the reverse. Valid calls (one token and several, Q alone or with
// K, separate tensors or slices of one packed QKV buffer, strided and heads-major layouts) are
// mutated one or two fields at a time: pointers moved into the other tensor or off their
// alignment, extents, strides and sizes off by one, zeroed, negative or past 2^31, an output
// view that is not its input, half-absent K, positions and token ranges outside their ranges,
// an angle source of another rotary_dim. Every unmutated call must take the short test.
// The decode step's shorter test (detail::decode_call_is_usual: one token, Q alone in place) is
// held to the same rule on mutated decode calls.
// A further test compares the short test's view rule (usual_view_is_valid) with the general one
// (view_is_valid) on random geometries: equal wherever tokens, heads and strides lie in
// [0, 2^31), and never more permissive outside.
// No kernel runs here: only the checks read the views, so sizes may describe more memory than
// the arena holds.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <posenc/kernels/angle_cache.hpp>
#include <posenc/kernels/apply.hpp>

namespace kernels_rope_call_checks_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using namespace posenc::kernels;

constexpr int dim = 32, q_heads = 4, kv_heads = 2, max_tokens = 3;
constexpr std::ptrdiff_t big = std::ptrdiff_t {1} << 31;

template <class F>
bool passes(F&& check)
{
    try {
        check();
        return true;
    } catch (const posenc::error&) {
        return false;
    }
}

/// One float arena holding Q and K (separate or packed), so that a pointer moved by a mutation
/// lands in the other tensor of the same call.
struct Arena {
    static constexpr std::ptrdiff_t row = (q_heads + 2 * kv_heads) * dim;
    static constexpr std::ptrdiff_t margin = 2 * dim;
    std::vector<float> data = std::vector<float>(static_cast<std::size_t>(2 * margin + 2 * max_tokens * row), 0.5f);
    float* at() { return data.data() + margin; }
};

struct Case {
    QKViews<float> views;
    PositionIds positions = PositionIds::contiguous(0);
    TokenRange range {0, 1};
    const CosSinCache* angles = nullptr;
};

/// A valid in-place call drawn at random.
Case valid_case(std::mt19937& rng, Arena& a, const CosSinCache& angles)
{
    auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
    Case c;
    c.angles = &angles;
    const std::ptrdiff_t tokens = pick(2) ? 1 : max_tokens;
    HeadsView<float> q, k;
    switch (pick(3)) {
    case 0: {  // packed [tokens][q | k | v]
        const PackedQkv<float> p =
            slice_packed_qkv(a.at(), Arena::row * max_tokens, PackedQkvShape {tokens, q_heads, kv_heads, dim});
        q = p.q;
        k = p.k;
        break;
    }
    case 1:  // separate contiguous tensors
        q = HeadsView<float>(a.at(), tokens * q_heads * dim, {tokens, q_heads, dim});
        k = HeadsView<float>(a.at() + Arena::row * max_tokens, tokens * kv_heads * dim, {tokens, kv_heads, dim});
        break;
    default:  // heads-major Q with gaps, K after it
        q = HeadsView<float>(a.at(), Arena::row * max_tokens, {tokens, q_heads, dim},
                             {dim + 2, max_tokens * (dim + 2) + 3});
        k = HeadsView<float>(a.at() + Arena::row * max_tokens, tokens * kv_heads * dim, {tokens, kv_heads, dim});
        break;
    }
    c.views = QKViews<float>::in_place(q, pick(2) ? k : HeadsView<float> {});
    c.positions = PositionIds::contiguous(pick(2) ? 0 : 60);
    c.range = pick(2) ? TokenRange {0, tokens} : TokenRange {tokens - 1, tokens};
    return c;
}

/// One random change of one field.
void mutate(std::mt19937& rng, Case& c, Arena& a, const CosSinCache& other_angles)
{
    auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
    auto nudge = [&](std::ptrdiff_t& x) {
        switch (pick(8)) {
        case 0: x = 0; break;
        case 1: x = -x - 1; break;
        case 2: x = big + pick(3) - 1; break;  // around 2^31: outside the short test's domain
        case 3: x = x * 4096; break;
        default: {
            const std::ptrdiff_t deltas[] = {-1, 1, -dim, dim};
            x += deltas[pick(4)];
        }
        }
    };
    auto elsewhere = [&]() -> float* {  // somewhere in the arena, sometimes off float alignment
        float* p = a.data.data() + pick(static_cast<int>(a.data.size()) - dim);
        return pick(4) == 0 ? reinterpret_cast<float*>(reinterpret_cast<char*>(p) + 1 + pick(3)) : p;
    };
    auto mutate_view = [&](auto& v) {
        using Element = std::remove_pointer_t<decltype(v.data)>;
        switch (pick(8)) {
        case 0: v.data = pick(5) == 0 ? nullptr : elsewhere(); break;
        case 1: nudge(v.size); break;
        case 2: nudge(v.tokens); break;
        case 3: nudge(v.heads); break;
        case 4: nudge(v.head_dim); break;
        case 5: nudge(v.token_stride); break;
        case 6: nudge(v.head_stride); break;
        default: v.data = v.data == nullptr ? static_cast<Element*>(a.at()) : v.data + (pick(2) ? 1 : -1) * dim; break;
        }
    };
    QKViews<float>& v = c.views;
    switch (pick(9)) {
    case 0: mutate_view(v.q_in); break;
    case 1: mutate_view(v.q_out); break;
    case 2: mutate_view(v.k_in); break;
    case 3: mutate_view(v.k_out); break;
    case 4: {  // in and out changed together (still in place)
        HeadsView<float> q = v.q_out;
        mutate_view(q);
        v.q_in = q;
        v.q_out = q;
        break;
    }
    case 5:
        c.positions = pick(2) ? PositionIds::contiguous(pick(2) ? -1 : 64 - pick(3))
                              : PositionIds::contiguous(-(std::int64_t {1} << 62) - 5);
        break;
    case 6: c.range = {c.range.begin + pick(3) - 1, c.range.end + pick(3) - 1}; break;
    case 7: c.angles = &other_angles; break;
    default: {  // K in place, moved as a whole (onto Q, or half absent)
        HeadsView<float> k = v.k_out;
        if (pick(2)) mutate_view(k);
        else k.data = pick(2) ? nullptr : v.q_out.data;
        v.k_in = k;
        v.k_out = k;
        break;
    }
    }
}

/// A valid decode call drawn at random: one token, Q alone in place, range {0, 1}; Q contiguous,
/// heads-major with gaps, a slice of packed QKV, or one head (its strides unused: any token
/// stride, a head stride of 0 or 7).
Case valid_decode_case(std::mt19937& rng, Arena& a, const CosSinCache& angles)
{
    auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
    Case c;
    c.angles = &angles;
    HeadsView<float> q;
    switch (pick(4)) {
    case 0: q = slice_packed_qkv(a.at(), Arena::row * max_tokens, PackedQkvShape {1, q_heads, kv_heads, dim}).q; break;
    case 1: q = HeadsView<float>(a.at(), q_heads * dim, {1, q_heads, dim}); break;
    case 2:
        q = HeadsView<float>(a.at(), Arena::row * max_tokens, {1, q_heads, dim}, {dim + 2, max_tokens * (dim + 2) + 3});
        break;
    default: q = HeadsView<float>(a.at() + dim, dim, {1, 1, dim}, {pick(2) ? -5 : 0, pick(2) ? 7 : 0}); break;
    }
    c.views = QKViews<float>::in_place(q);
    c.positions = PositionIds::contiguous(pick(3) == 0 ? 0 : pick(2) ? 60 : 63);
    c.range = {0, 1};
    return c;
}

/// A view geometry drawn for the view-rule comparison: extents and strides small or near 2^31,
/// sizes that fit or miss by one.
HeadsView<float> random_view(std::mt19937& rng, float* base)
{
    auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
    auto extent = [&] {
        switch (pick(6)) {
        case 0: return std::ptrdiff_t {pick(3)};
        case 1: return big - 1 - pick(2);
        case 2: return big + pick(2);
        case 3: return -std::ptrdiff_t {pick(3)} - 1;
        default: return std::ptrdiff_t {1 + pick(40)};
        }
    };
    HeadsView<float> v;
    v.data = pick(10) == 0 ? nullptr : base + pick(8);
    v.tokens = extent();
    v.heads = extent();
    v.head_dim = pick(8) == 0 ? dim + 1 : dim;
    v.token_stride = pick(3) == 0 ? extent() : dim * (1 + pick(6));
    v.head_stride = pick(3) == 0 ? extent() : dim * (1 + pick(6));
    // the size the rules need (when it fits in 63 bits), then one less or a little more
    const long double last =
        (v.tokens > 1 ? static_cast<long double>(v.tokens - 1) * static_cast<long double>(v.token_stride) : 0.0L) +
        (v.heads > 1 ? static_cast<long double>(v.heads - 1) * static_cast<long double>(v.head_stride) : 0.0L) + dim;
    const bool fits = last > 0 && last < static_cast<long double>(detail::max_view_size(sizeof(float)));
    const std::ptrdiff_t needed = fits ? static_cast<std::ptrdiff_t>(last) : std::ptrdiff_t {pick(100)};
    v.size = needed + pick(3) - 1;
    return v;
}

}  // namespace

namespace {

/// What 20,000 draws of valid calls (draw), seven in eight mutated once or twice, showed of an
/// inline test (is_usual) against the rules.
struct Verdicts {
    int usual = 0, accepted_by_rules = 0, refused = 0, disagreements = 0;
    std::string
        first;  ///< the first call the inline test accepted and the rules refused, or an unmutated call it missed
};

template <class Draw, class IsUsual>
Verdicts mutated_verdicts(unsigned seed, Draw draw, IsUsual is_usual)
{
    const posenc::RopeSpec spec(dim, dim, 1e4);
    const CosSinCache angles(posenc::FrequencyTable::from_spec(spec), 64);
    const CosSinCache other_angles(posenc::FrequencyTable::from_spec(posenc::RopeSpec(dim, dim / 2, 1e4)), 64);
    std::mt19937 rng(seed);
    Verdicts v;
    for (int i = 0; i < 20000; ++i) {
        Arena a;
        Case c = draw(rng, a, angles);
        const bool mutated = i % 8 != 0;
        if (mutated) {
            mutate(rng, c, a, other_angles);
            if (i % 3 == 0) mutate(rng, c, a, other_angles);
        }
        const bool fast = is_usual(spec, *c.angles, c.positions, c.views, c.range);
        const bool rules =
            passes([&] { detail::check_rope_call_rules(spec, *c.angles, c.positions, c.views, c.range); });
        v.usual += fast;
        v.accepted_by_rules += rules;
        v.refused += !rules;
        if (!mutated && !fast && v.first.empty())
            v.first = "an unmutated valid call missed the inline test, case " + std::to_string(i);
        if (fast && !rules) {
            ++v.disagreements;
            if (v.first.empty())
                v.first = "the inline test accepted a call the rules refuse, case " + std::to_string(i);
        }
    }
    return v;
}

}  // namespace

TEST_CASE("[checks] the inline test of a usual apply call accepts only calls the full rules accept, and every valid "
          "call drawn")
{
    const Verdicts v =
        mutated_verdicts(20261202, valid_case, [](const auto&... call) { return detail::rope_call_is_usual(call...); });
    INFO(v.first);
    CHECK(v.first.empty());
    CHECK(v.disagreements == 0);
    // the draw exercises both sides: valid calls the inline test takes, and many refusals
    CHECK(v.usual >= 4000);
    CHECK(v.refused >= 8000);
    CHECK(v.accepted_by_rules > v.usual);  // some valid calls lie outside the inline test's domain
}

TEST_CASE("[checks] the decode step's inline test accepts only calls the full rules accept, and every valid decode "
          "call drawn")
{
    // detail::decode_call_is_usual (checks.hpp) lets kernels::apply_rope and dispatch::apply_rope
    // run a one-token call with no other check: it must never accept a call the rules refuse.
    const Verdicts v = mutated_verdicts(4242, valid_decode_case,
                                        [](const auto&... call) { return detail::decode_call_is_usual(call...); });
    INFO(v.first);
    CHECK(v.first.empty());
    CHECK(v.disagreements == 0);
    CHECK(v.usual >= 4000);
    CHECK(v.refused >= 8000);
}

TEST_CASE(
    "[checks] usual_view_is_valid equals view_is_valid for extents and strides below 2^31 and is never more permissive")
{
    std::vector<float> buffer(64, 0.0f);
    std::mt19937 rng(31);
    int both = 0, only_general = 0, neither = 0, wrong = 0;
    std::string first;
    for (int i = 0; i < 200000; ++i) {
        const HeadsView<float> v = random_view(rng, buffer.data());
        const bool usual = detail::usual_view_is_valid(v, dim);
        const bool general = detail::view_is_valid(detail::geometry(v), dim);
        const bool in_domain = ((v.tokens | v.heads | v.token_stride | v.head_stride) >= 0) && v.tokens < big &&
                               v.heads < big && v.token_stride < big && v.head_stride < big;
        both += usual && general;
        only_general += !usual && general;
        neither += !usual && !general;
        if ((usual && !general) || (in_domain && usual != general)) {
            ++wrong;
            if (first.empty())
                first = "tokens " + std::to_string(v.tokens) + " heads " + std::to_string(v.heads) + " strides " +
                        std::to_string(v.token_stride) + ", " + std::to_string(v.head_stride) + " size " +
                        std::to_string(v.size) + ": usual " + std::to_string(usual) + " general " +
                        std::to_string(general);
        }
    }
    INFO(first);
    CHECK(wrong == 0);
    CHECK(both >= 10000);
    CHECK(only_general >= 1000);  // valid views past 2^31 exist in the draw, and go to the general rule
    CHECK(neither >= 10000);
}

}  // namespace kernels_rope_call_checks_tests
