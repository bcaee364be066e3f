// SPDX-License-Identifier: MIT
// Every arch path against the foundation's scalar reference (rotation.hpp apply_rope_reference,
// double, exact angles) on random shapes: rotary_dim 2..130 in steps of 2, head_dim up to 576,
// 1..40 Q heads, 0..8 K heads, both pairings, both directions, both angle sources, float /
// bfloat16 / float16 / double, in place and out of place, int32 / int64 / contiguous positions,
// and four memory layouts (contiguous; gaps between heads and tokens; heads-major; Q and K
// slices of one packed QKV buffer), in one call or in one call per token (one-token ranges). Every buffer carries guard elements before and after and
// in every gap: after the call each element outside the rotary slices of the output views must
// be bit-identical to what it was (or, for out-of-place pass-through dims, to the input).
// Tolerances (apply.hpp's error analysis; A = attention factor, |x| = the input pair's norm):
//   float: 4 ulp of A|x| per pair; bfloat16/float16: that plus half an ulp of the format;
//   double: 1e-13 A|x| (the reference path computes the same formula as apply_rope_reference).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <posenc/rotation.hpp>

#include "kernel_test_support.hpp"

namespace kernels_apply_vs_reference_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using namespace posenc::kernels;
using kernel_test::ArchPath;

struct Sources {
    posenc::FrequencyTable table;
    CosSinCache cache;  // positions [0, 4096)
    OnTheFlyAngles on_the_fly;
};

/// One angle-source set per rotary_dim (built once: the on-the-fly tables are the slow part).
const Sources& sources_for(int rotary_dim)
{
    static std::map<int, std::unique_ptr<Sources>> memo;
    auto& slot = memo[rotary_dim];
    if (!slot) {
        const double base = rotary_dim % 4 == 0 ? 1e4 : 1e6;
        const double factor = rotary_dim % 3 == 0 ? 1.1386294361119891 : 1.0;
        const posenc::RopeSpec spec(rotary_dim, rotary_dim, base);
        posenc::FrequencyTable table(posenc::FrequencyTable::from_spec(spec).inv_freq(), factor);
        slot.reset(new Sources {table, CosSinCache(table, 4096), OnTheFlyAngles(table)});
    }
    return *slot;
}

template <class T>
T guard_value()
{
    if constexpr (std::is_same_v<T, double>) return -777.25;
    else if constexpr (std::is_same_v<T, float>) return -777.25f;
    else return posenc::store_from_float<T>(-777.25f);
}

/// A memory block with guards and the views placed in it.
template <class T>
struct Memory {
    std::vector<T> elements;
    std::ptrdiff_t guard = 0;
    T* at(std::ptrdiff_t offset) { return elements.data() + guard + offset; }
    /// Elements a view starting at `offset` may address: up to the trailing guard, not into it.
    std::ptrdiff_t room(std::ptrdiff_t offset) const
    {
        return static_cast<std::ptrdiff_t>(elements.size()) - 2 * guard - offset;
    }
};

struct Placement {
    std::ptrdiff_t offset, token_stride, head_stride;
};

/// Places a [tokens, heads, head_dim] view in a fresh memory by style; returns the placement.
Placement place(std::mt19937& rng, int style, std::ptrdiff_t tokens, std::ptrdiff_t heads, std::ptrdiff_t head_dim,
                std::ptrdiff_t& extent)
{
    std::uniform_int_distribution<int> gap(1, 9);
    Placement p {0, heads * head_dim, head_dim};
    if (style == 1) {  // gaps between heads and between tokens
        p.head_stride = head_dim + gap(rng);
        p.token_stride = heads * p.head_stride + gap(rng);
        p.offset = gap(rng);
    } else if (style == 2) {  // heads-major [heads, tokens, head_dim] with gaps
        p.token_stride = head_dim + gap(rng);
        p.head_stride = tokens * p.token_stride + gap(rng);
    }
    extent = p.offset + (tokens - 1) * p.token_stride + (heads - 1) * p.head_stride + head_dim;
    return p;
}

struct Failure {
    int count = 0;
    std::string first;
};

template <class T>
void run_case(const ArchPath& path, std::mt19937& rng, Failure& failure, int case_index)
{
    std::uniform_int_distribution<int> coin(0, 1);
    const posenc::Pairing pairing = coin(rng) ? posenc::Pairing::half_split : posenc::Pairing::interleaved;
    const int rotary_dim = 2 * std::uniform_int_distribution<int>(1, 65)(rng);
    const int extra = coin(rng) ? 0 : std::uniform_int_distribution<int>(1, 576 - rotary_dim)(rng) % 97;
    const int head_dim = case_index % 23 == 0 ? 576 : rotary_dim + extra;
    const posenc::RopeSpec spec(head_dim, rotary_dim, 1e4, pairing);
    const Sources& src = sources_for(rotary_dim);
    const std::ptrdiff_t tokens = std::uniform_int_distribution<int>(1, 6)(rng);
    const std::ptrdiff_t q_heads = std::uniform_int_distribution<int>(1, 40)(rng);
    const std::ptrdiff_t k_heads = coin(rng) ? 0 : std::uniform_int_distribution<int>(1, 8)(rng);  // 0 = no K
    const bool in_place = coin(rng) != 0;
    const bool use_cache = coin(rng) != 0;
    const Direction direction = coin(rng) ? Direction::forward : Direction::inverse;
    const int style = std::uniform_int_distribution<int>(0, 3)(rng);
    const int position_kind = std::uniform_int_distribution<int>(0, 2)(rng);

    // positions
    std::vector<std::int32_t> ids32(static_cast<std::size_t>(tokens));
    std::vector<std::int64_t> ids64(static_cast<std::size_t>(tokens));
    std::uniform_int_distribution<std::int64_t> cache_pos(0, 4095);
    std::uniform_int_distribution<std::int64_t> any_pos(-max_kernel_position, max_kernel_position);
    for (std::ptrdiff_t t = 0; t < tokens; ++t) {
        const std::int64_t p = use_cache ? cache_pos(rng) : (coin(rng) ? any_pos(rng) : cache_pos(rng));
        ids32[static_cast<std::size_t>(t)] = static_cast<std::int32_t>(p);
        ids64[static_cast<std::size_t>(t)] = p;
    }
    const std::int64_t start =
        use_cache ? std::uniform_int_distribution<std::int64_t>(0, 4096 - tokens)(rng) : any_pos(rng) / 2;
    const PositionIds positions = position_kind == 0   ? PositionIds::contiguous(start)
                                  : position_kind == 1 ? PositionIds(ids32)
                                                       : PositionIds(ids64);

    // memories: inputs (Q, K) and, out of place, outputs (Q, K)
    std::uniform_real_distribution<double> value(-2.0, 2.0);
    std::vector<Memory<T>> memories;
    auto new_memory = [&](std::ptrdiff_t extent) {
        Memory<T> m;
        m.guard = 37;
        m.elements.assign(static_cast<std::size_t>(extent + 2 * m.guard), guard_value<T>());
        memories.push_back(std::move(m));
        return memories.size() - 1;
    };
    struct Placed {
        std::size_t memory;
        Placement p;
        std::ptrdiff_t heads;
    };
    auto place_pair = [&](std::ptrdiff_t heads_q, std::ptrdiff_t heads_k, int s) {
        std::vector<Placed> out;
        if (s == 3 && heads_k > 0) {  // packed [tokens][q | k | v] with a per-token gap
            const std::ptrdiff_t gap = std::uniform_int_distribution<int>(0, 5)(rng);
            const std::ptrdiff_t stride = (heads_q + 2 * heads_k) * head_dim + gap;
            const std::size_t m = new_memory((tokens - 1) * stride + (heads_q + 2 * heads_k) * head_dim);
            out.push_back({m, {0, stride, head_dim}, heads_q});
            out.push_back({m, {heads_q * head_dim, stride, head_dim}, heads_k});
            return out;
        }
        for (std::ptrdiff_t h : {heads_q, heads_k}) {
            if (h == 0) break;
            std::ptrdiff_t extent = 0;
            const Placement p = place(rng, s % 3, tokens, h, head_dim, extent);
            out.push_back({new_memory(extent), p, h});
        }
        return out;
    };
    const std::vector<Placed> inputs = place_pair(q_heads, k_heads, style);
    const std::vector<Placed> outputs =
        in_place ? inputs : place_pair(q_heads, k_heads, std::uniform_int_distribution<int>(0, 3)(rng));
    auto view_of = [&](const Placed& pl) {
        return HeadsView<T>(memories[pl.memory].at(pl.p.offset), memories[pl.memory].room(pl.p.offset),
                            {tokens, pl.heads, head_dim}, {pl.p.token_stride, pl.p.head_stride});
    };
    for (const Placed& pl : inputs) {
        const HeadsView<T> v = view_of(pl);
        for (std::ptrdiff_t t = 0; t < tokens; ++t)
            for (std::ptrdiff_t h = 0; h < pl.heads; ++h)
                for (int d = 0; d < head_dim; ++d) v.head(t, h)[d] = kernel_test::from_double<T>(value(rng));
    }
    std::vector<std::vector<T>> before;
    for (const Memory<T>& m : memories) before.push_back(m.elements);

    QKViews<T> views =
        in_place ? QKViews<T>::in_place(view_of(inputs[0]), k_heads ? view_of(inputs[1]) : HeadsView<T> {})
                 : QKViews<T>::out_of_place(view_of(inputs[0]), view_of(outputs[0]),
                                            k_heads ? HeadsView<const T>(view_of(inputs[1])) : HeadsView<const T> {},
                                            k_heads ? view_of(outputs[1]) : HeadsView<T> {});
    // the whole call, or one call per token (one-token ranges at any token of the views: the
    // kernel's one-token path with token strides)
    const bool by_token = coin(rng) != 0;
    for (std::ptrdiff_t t = 0; t < (by_token ? tokens : 1); ++t) {
        const TokenRange range = by_token ? TokenRange {t, t + 1} : TokenRange {0, tokens};
        if (use_cache) kernel_test::apply_on(path, spec, src.cache, positions, views, direction, range);
        else kernel_test::apply_on(path, spec, src.on_the_fly, positions, views, direction, range);
    }

    // expected: every element bit-identical to before, except rotary slices of outputs (tolerance)
    // and out-of-place pass-through dims (the input's bits)
    std::vector<std::vector<T>> expected_bits = before;
    std::vector<std::vector<char>> rotary(memories.size());
    for (std::size_t m = 0; m < memories.size(); ++m) rotary[m].assign(memories[m].elements.size(), 0);
    const double factor = src.table.attention_factor();
    const int pairs = spec.num_pairs();
    auto describe = [&](std::ptrdiff_t t, std::ptrdiff_t h, int d) {
        return path.name + " " + kernel_test::type_name<T>() + " " + posenc::to_string(pairing) + " rotary " +
               std::to_string(rotary_dim) + " head " + std::to_string(head_dim) + " token " + std::to_string(t) +
               " head " + std::to_string(h) + " dim " + std::to_string(d) + (in_place ? " in place" : " out of place") +
               (use_cache ? " cache" : " on-the-fly") + (direction == Direction::forward ? " forward" : " inverse") +
               " style " + std::to_string(style) + (by_token ? " token by token" : "");
    };
    for (std::size_t tensor = 0; tensor < inputs.size(); ++tensor) {
        const Placed& in = inputs[tensor];
        const Placed& out = outputs[tensor];
        const std::size_t in_base = static_cast<std::size_t>(memories[in.memory].guard + in.p.offset);
        const std::size_t out_base = static_cast<std::size_t>(memories[out.memory].guard + out.p.offset);
        for (std::ptrdiff_t t = 0; t < tokens; ++t) {
            const std::int64_t position = positions[t];
            for (std::ptrdiff_t h = 0; h < in.heads; ++h) {
                const std::size_t in_row =
                    in_base + static_cast<std::size_t>(t * in.p.token_stride + h * in.p.head_stride);
                const std::size_t out_row =
                    out_base + static_cast<std::size_t>(t * out.p.token_stride + h * out.p.head_stride);
                std::vector<double> x(static_cast<std::size_t>(head_dim));
                for (int d = 0; d < head_dim; ++d)
                    x[static_cast<std::size_t>(d)] =
                        kernel_test::to_double(before[in.memory][in_row + static_cast<std::size_t>(d)]);
                std::vector<double> ref = x;
                posenc::apply_rope_reference(spec, src.table, ref.data(),
                                             direction == Direction::forward ? position : -position);
                for (int d = rotary_dim; d < head_dim; ++d)
                    expected_bits[out.memory][out_row + static_cast<std::size_t>(d)] =
                        before[in.memory][in_row + static_cast<std::size_t>(d)];
                for (int i = 0; i < pairs; ++i) {
                    const posenc::PairCoordinates c = spec.pair_coordinates(i);
                    const double norm =
                        std::hypot(x[static_cast<std::size_t>(c.first)], x[static_cast<std::size_t>(c.second)]);
                    for (int d : {c.first, c.second}) {
                        const std::size_t idx = out_row + static_cast<std::size_t>(d);
                        rotary[out.memory][idx] = 1;
                        const double got = kernel_test::to_double(memories[out.memory].elements[idx]);
                        const double want = ref[static_cast<std::size_t>(d)];
                        const double tolerance =
                            std::is_same_v<T, double>
                                ? 1e-13 * factor * norm + 1e-300
                                : 4 * kernel_test::float_ulp(factor * norm) +
                                      (std::is_same_v<T, float> ? 0.0 : kernel_test::half_ulp<T>(std::fabs(got)));
                        if (!(std::fabs(got - want) <= tolerance) && failure.count++ == 0)
                            failure.first =
                                describe(t, h, d) + ": got " + std::to_string(got) + " want " + std::to_string(want);
                    }
                }
            }
        }
    }
    for (std::size_t m = 0; m < memories.size(); ++m)
        for (std::size_t i = 0; i < memories[m].elements.size(); ++i)
            if (!rotary[m][i] &&
                kernel_test::bits_of(memories[m].elements[i]) != kernel_test::bits_of(expected_bits[m][i]) &&
                failure.count++ == 0)
                failure.first = path.name + " " + kernel_test::type_name<T>() + " memory " + std::to_string(m) +
                                " element " + std::to_string(i) + " (guard, gap, input or pass-through) was changed";
}

}  // namespace

TEST_CASE_TEMPLATE("[reference] every arch path matches apply_rope_reference on random shapes, layouts and guards", T,
                   float, posenc::bfloat16, posenc::float16, double)
{
    for (const std::string& skipped : kernel_test::skipped_paths()) MESSAGE("skipping arch path " << skipped);
    for (const ArchPath& path : kernel_test::arch_paths()) {
        std::mt19937 rng(1234u + static_cast<unsigned>(path.isa));
        Failure failure;
        const int cases = kernel_test::random_cases(150);
        for (int c = 0; c < cases; ++c) run_case<T>(path, rng, failure, c);
        CAPTURE(path.name);
        CHECK_MESSAGE(failure.count == 0, failure.first);
    }
}

/// The checked entries' decode step (one token, forward, Q alone in place: detail::is_decode_step,
/// which jumps straight to rope_token_in_place, or to best_isa()'s through dispatch) against
/// apply_rope_reference: rotary_dim of one register group on each arch (16, 32, 64 and 128 dims:
/// SSE, AVX2, AVX-512 half_split) and others, partial rotary, one head (strides unused) or many
/// with gaps, both pairings, both angle sources up to position 2^31 - 1, through both overloads
/// of kernels::apply_rope and dispatch::apply_rope. Guard elements before, after and between
/// the heads must keep their bits.
template <class T>
void check_decode_step(int rotary_dim, int head_dim, std::ptrdiff_t heads, std::ptrdiff_t gap, posenc::Pairing pairing,
                       bool use_cache, std::int64_t position, int entry, std::mt19937& rng, Failure& failure)
{
    const posenc::RopeSpec spec(head_dim, rotary_dim, 1e4, pairing);  // the angles come from src (its base and factor)
    const Sources& src = sources_for(rotary_dim);
    const posenc::FrequencyTable& table = src.table;
    const std::ptrdiff_t stride = head_dim + gap, guard = 7;
    const std::ptrdiff_t extent = (heads - 1) * stride + head_dim;
    std::vector<T> memory(static_cast<std::size_t>(extent + 2 * guard), guard_value<T>());
    std::uniform_real_distribution<double> value(-2.0, 2.0);
    for (std::ptrdiff_t h = 0; h < heads; ++h)
        for (int d = 0; d < head_dim; ++d)
            memory[static_cast<std::size_t>(guard + h * stride + d)] = kernel_test::from_double<T>(value(rng));
    const std::vector<T> before = memory;
    // one head: the stride is never used, any value in [0, 2^31) goes
    const HeadsView<T> q(memory.data() + guard, extent, {1, heads, head_dim}, {3, heads > 1 ? stride : 5});
    const QKViews<T> views = QKViews<T>::in_place(q);
    const PositionIds at = PositionIds::contiguous(position);
    auto run = [&](const auto& angles) {
        switch (entry) {
        case 0: apply_rope(spec, angles, at, views); break;
        case 1: apply_rope(spec, angles, at, views, Direction::forward, TokenRange {0, 1}); break;
        case 2: dispatch::apply_rope(spec, angles, at, views); break;
        default: dispatch::apply_rope(spec, angles, at, views, Direction::forward, TokenRange {0, 1}); break;
        }
    };
    if (use_cache) run(src.cache);
    else run(src.on_the_fly);
    const char* entries[] = {"kernels::apply_rope", "kernels::apply_rope(range)", "dispatch::apply_rope",
                             "dispatch::apply_rope(range)"};
    auto describe = [&](std::ptrdiff_t index) {
        return std::string(entries[entry]) + " " + kernel_test::type_name<T>() + " " + posenc::to_string(pairing) +
               " rotary " + std::to_string(rotary_dim) + " head " + std::to_string(head_dim) + " heads " +
               std::to_string(heads) + " gap " + std::to_string(gap) + (use_cache ? " cache" : " on-the-fly") +
               " position " + std::to_string(position) + " element " + std::to_string(index);
    };
    std::vector<char> rotary(memory.size(), 0);
    for (std::ptrdiff_t h = 0; h < heads; ++h) {
        const std::size_t row = static_cast<std::size_t>(guard + h * stride);
        std::vector<double> x(static_cast<std::size_t>(head_dim));
        for (int d = 0; d < head_dim; ++d)
            x[static_cast<std::size_t>(d)] = kernel_test::to_double(before[row + static_cast<std::size_t>(d)]);
        std::vector<double> ref = x;
        posenc::apply_rope_reference(spec, table, ref.data(), position);
        for (int i = 0; i < spec.num_pairs(); ++i) {
            const posenc::PairCoordinates c = spec.pair_coordinates(i);
            const double norm = std::hypot(x[static_cast<std::size_t>(c.first)], x[static_cast<std::size_t>(c.second)]);
            for (int d : {c.first, c.second}) {
                const std::size_t idx = row + static_cast<std::size_t>(d);
                rotary[idx] = 1;
                const double got = kernel_test::to_double(memory[idx]);
                const double tolerance = 4 * kernel_test::float_ulp(table.attention_factor() * norm) +
                                         (std::is_same_v<T, float> ? 0.0 : kernel_test::half_ulp<T>(std::fabs(got)));
                if (!(std::fabs(got - ref[static_cast<std::size_t>(d)]) <= tolerance) && failure.count++ == 0)
                    failure.first = describe(static_cast<std::ptrdiff_t>(idx)) + ": got " + std::to_string(got) +
                                    " want " + std::to_string(ref[static_cast<std::size_t>(d)]);
            }
        }
    }
    for (std::size_t i = 0; i < memory.size(); ++i)
        if (!rotary[i] && kernel_test::bits_of(memory[i]) != kernel_test::bits_of(before[i]) && failure.count++ == 0)
            failure.first = describe(static_cast<std::ptrdiff_t>(i)) + " (guard, gap or pass-through) was changed";
}

TEST_CASE_TEMPLATE("[reference] the checked decode step (one token, Q alone in place) matches apply_rope_reference "
                   "through kernels:: and dispatch::apply_rope",
                   T, float, posenc::bfloat16, posenc::float16)
{
    MESSAGE("dispatch::apply_rope runs " << std::string(dispatch::to_string(dispatch::best_isa())));
    std::mt19937 rng(77);
    Failure failure;
    int calls = 0;
    for (int rotary_dim : {2, 6, 16, 32, 34, 64, 96, 128, 130, 256})
        for (int pass_through : {0, 6})
            for (std::ptrdiff_t heads : {1, 3, 32})
                for (posenc::Pairing pairing : {posenc::Pairing::half_split, posenc::Pairing::interleaved})
                    for (bool use_cache : {true, false})
                        for (int entry = 0; entry < 4; ++entry) {
                            const std::int64_t positions[] = {0, use_cache ? 4095 : (std::int64_t {1} << 24) + 3,
                                                              use_cache ? 1000 : std::int64_t {2147483647}};
                            const std::int64_t position = positions[std::uniform_int_distribution<int>(0, 2)(rng)];
                            const std::ptrdiff_t gap = heads > 1 ? std::uniform_int_distribution<int>(0, 3)(rng) : 0;
                            check_decode_step<T>(rotary_dim, rotary_dim + pass_through, heads, gap, pairing, use_cache,
                                                 position, entry, rng, failure);
                            ++calls;
                        }
    CHECK(calls == 960);
    CHECK_MESSAGE(failure.count == 0, failure.first);
}

TEST_CASE("[reference] rotary_dim 576 (more pairs than one angle row) matches apply_rope_reference")
{
    // 288 pairs > max_pairs_per_row (256): the kernel fetches two rows per token.
    for (const ArchPath& path : kernel_test::arch_paths())
        for (posenc::Pairing pairing : {posenc::Pairing::half_split, posenc::Pairing::interleaved}) {
            const posenc::RopeSpec spec(576, 576, 1e4, pairing);
            const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
            const OnTheFlyAngles angles(table, 100000);
            std::mt19937 rng(5);
            std::uniform_real_distribution<float> u(-1, 1);
            std::vector<float> x(3 * 2 * 576);
            for (float& v : x) v = u(rng);
            std::vector<float> y = x;
            kernel_test::apply_on(path, spec, angles, PositionIds::contiguous(99990),
                                  QKViews<float>::in_place(HeadsView<float>(y, {3, 2, 576})));
            double worst = 0;
            for (int row = 0; row < 6; ++row) {
                std::vector<double> ref(x.begin() + row * 576, x.begin() + (row + 1) * 576);
                posenc::apply_rope_reference(spec, table, ref.data(), 99990 + row / 2);
                for (int d = 0; d < 576; ++d)
                    worst = std::max(worst, std::fabs(ref[static_cast<std::size_t>(d)] -
                                                      y[static_cast<std::size_t>(row * 576 + d)]));
            }
            CAPTURE(path.name);
            const std::string pairing_name = posenc::to_string(pairing);
            CAPTURE(pairing_name);
            CHECK(worst < 4 * kernel_test::float_ulp(1.5));
        }
}

}  // namespace kernels_apply_vs_reference_tests
