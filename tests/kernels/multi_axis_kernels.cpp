// SPDX-License-Identifier: MIT
// The multi-axis kernel (kernels/multi_axis.hpp) on every arch path.
//
// 1. Text tokens: with every axis at the same position the multi-axis kernel must give the bits
//    of the 1-D kernel (apply_rope) at that position: every layout, pairing, storage type,
//    angle source, direction, int32 / int64, token-major / axes-major positions.
// 2. Mixed tokens, pair by pair: each pair must hold the bits the 1-D kernel gives that pair
//    when every token sits at the position of the pair's axis (one 1-D call per axis).
// 3. Against the scalar reference (posenc::apply_multi_axis_rope_reference, double, exact
//    angles) on random shapes with guard elements before, after and between every row: the
//    rotary slices within apply.hpp's bound (float: 4 ulp of A|x| per pair; 16-bit: plus half
//    an ulp of the format; double: 1e-13 A|x|), everything else bit-identical (pass-through
//    dims out of place: the input's bits).
#include <doctest/doctest.h>

#include <posenc/kernels/multi_axis.hpp>
#include <posenc/multi_axis.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernel_test_support.hpp"

namespace kernels_multi_axis_kernels_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using namespace posenc::kernels;
using kernel_test::ArchPath;
using posenc::MultiAxisLayout;

/// The checked multi-axis apply on one path.
template <class T, class Angles>
void apply_multi_on(const ArchPath& path, const posenc::RopeSpec& spec, const MultiAxisLayout& layout,
                    const Angles& angles, const MultiAxisPositions& positions, const QKViews<T>& views,
                    Direction direction)
{
    if (path.dispatched)
        dispatch::apply_multi_axis_rope_on(path.isa, spec, layout, angles, positions, views, direction);
    else apply_multi_axis_rope(spec, layout, angles, positions, views, direction);
}

/// The layouts of a spec with `pairs` pairs (pairs >= 3 for M-RoPE, even for axial).
std::vector<MultiAxisLayout> layouts_for(int pairs)
{
    std::vector<MultiAxisLayout> out {MultiAxisLayout::single(pairs)};
    if (pairs >= 3) {
        const int t = pairs / 4, h = (pairs - t) / 2;
        out.push_back(MultiAxisLayout::sections({t, h, pairs - t - h}, pairs));
        out.push_back(MultiAxisLayout::interleaved({pairs - 2 * (pairs / 3), pairs / 3, pairs / 3}, pairs));
    }
    if (pairs % 2 == 0) out.push_back(MultiAxisLayout::axial_2d(pairs));
    std::vector<int> axes(static_cast<std::size_t>(pairs));
    for (int i = 0; i < pairs; ++i) axes[static_cast<std::size_t>(i)] = (i * 7 + i / 5) % 4;
    out.push_back(MultiAxisLayout::from_pair_axes(axes, 4));
    return out;
}

template <class T>
std::vector<T> random_data(std::mt19937& rng, std::size_t n)
{
    std::uniform_real_distribution<double> value(-2.0, 2.0);
    std::vector<T> v(n);
    for (T& x : v) x = kernel_test::from_double<T>(value(rng));
    return v;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

struct Sources {
    posenc::FrequencyTable table;
    CosSinCache cache;
    OnTheFlyAngles on_the_fly;
};

const Sources& sources_for(int rotary_dim)
{
    static std::vector<std::pair<int, std::unique_ptr<Sources>>> memo;
    for (auto& [r, s] : memo)
        if (r == rotary_dim) return *s;
    const double factor = rotary_dim % 3 == 0 ? 1.1386294361119891 : 1.0;
    const posenc::RopeSpec spec(rotary_dim, rotary_dim, rotary_dim % 4 == 0 ? 1e4 : 1e6);
    posenc::FrequencyTable table(posenc::FrequencyTable::from_spec(spec).inv_freq(), factor);
    memo.emplace_back(rotary_dim, new Sources {table, CosSinCache(table, 4096), OnTheFlyAngles(table)});
    return *memo.back().second;
}

/// Positions as int32 or int64, token-major or axes-major, from a [tokens][axes] list.
struct PositionStore {
    std::vector<std::int32_t> i32;
    std::vector<std::int64_t> i64;
    MultiAxisPositions view(std::ptrdiff_t tokens, int axes, bool use64, bool axes_major) const
    {
        const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(i64.size());
        if (use64)
            return axes_major ? MultiAxisPositions::axes_major(i64.data(), n, tokens, axes)
                              : MultiAxisPositions(i64, axes);
        return axes_major ? MultiAxisPositions::axes_major(i32.data(), n, tokens, axes)
                          : MultiAxisPositions(i32.data(), n, tokens, axes);
    }
};

PositionStore store_positions(const std::vector<std::vector<std::int64_t>>& p, bool axes_major)
{
    PositionStore s;
    const std::size_t tokens = p.size(), axes = p.empty() ? 0 : p[0].size();
    s.i64.resize(tokens * axes);
    for (std::size_t t = 0; t < tokens; ++t)
        for (std::size_t a = 0; a < axes; ++a) s.i64[axes_major ? a * tokens + t : t * axes + a] = p[t][a];
    s.i32.assign(s.i64.begin(), s.i64.end());
    return s;
}

template <class T>
void text_tokens_case(const ArchPath& path, std::mt19937& rng, int& checked)
{
    std::uniform_int_distribution<int> coin(0, 1);
    for (posenc::Pairing pairing : {posenc::Pairing::half_split, posenc::Pairing::interleaved}) {
        for (int rotary_dim : {128, 80, 46}) {
            const int head_dim = rotary_dim + (rotary_dim == 46 ? 10 : 0);
            const posenc::RopeSpec spec(head_dim, rotary_dim, 1e4, pairing);
            const Sources& src = sources_for(rotary_dim);
            const std::ptrdiff_t tokens = 7, q_heads = 5, k_heads = 2;
            std::vector<std::int64_t> ids(tokens);
            for (auto& id : ids) id = std::uniform_int_distribution<std::int64_t>(0, 4095)(rng);
            const std::vector<T> q0 = random_data<T>(rng, static_cast<std::size_t>(tokens * q_heads * head_dim));
            const std::vector<T> k0 = random_data<T>(rng, static_cast<std::size_t>(tokens * k_heads * head_dim));
            for (const MultiAxisLayout& layout : layouts_for(spec.num_pairs())) {
                for (bool use_cache : {true, false}) {
                    const Direction direction = coin(rng) ? Direction::forward : Direction::inverse;
                    std::vector<T> q1 = q0, k1 = k0, q2 = q0, k2 = k0;
                    auto views = [&](std::vector<T>& q, std::vector<T>& k) {
                        return QKViews<T>::in_place(HeadsView<T>(q, {tokens, q_heads, head_dim}),
                                                    HeadsView<T>(k, {tokens, k_heads, head_dim}));
                    };
                    std::vector<std::vector<std::int64_t>> p(static_cast<std::size_t>(tokens));
                    for (std::ptrdiff_t t = 0; t < tokens; ++t)
                        p[static_cast<std::size_t>(t)].assign(static_cast<std::size_t>(layout.num_axes()),
                                                              ids[static_cast<std::size_t>(t)]);
                    const bool axes_major = coin(rng) != 0, use64 = coin(rng) != 0;
                    const PositionStore store = store_positions(p, axes_major);
                    const MultiAxisPositions positions = store.view(tokens, layout.num_axes(), use64, axes_major);
                    if (use_cache) {
                        kernel_test::apply_on(path, spec, src.cache, PositionIds(ids), views(q1, k1), direction);
                        apply_multi_on(path, spec, layout, src.cache, positions, views(q2, k2), direction);
                    } else {
                        kernel_test::apply_on(path, spec, src.on_the_fly, PositionIds(ids), views(q1, k1), direction);
                        apply_multi_on(path, spec, layout, src.on_the_fly, positions, views(q2, k2), direction);
                    }
                    INFO(path.name << " " << kernel_test::type_name<T>() << " " << posenc::to_string(pairing)
                                   << " rotary " << rotary_dim << " " << posenc::to_string(layout.kind())
                                   << (use_cache ? " cache" : " on-the-fly"));
                    CHECK(same_bits(q1, q2));
                    CHECK(same_bits(k1, k2));
                    ++checked;
                }
            }
        }
    }
}

template <class T>
void per_pair_case(const ArchPath& path, std::mt19937& rng, int& checked)
{
    for (posenc::Pairing pairing : {posenc::Pairing::half_split, posenc::Pairing::interleaved}) {
        for (int rotary_dim : {128, 62}) {
            const int head_dim = rotary_dim + 6;
            const posenc::RopeSpec spec(head_dim, rotary_dim, 1e4, pairing);
            const Sources& src = sources_for(rotary_dim);
            const std::ptrdiff_t tokens = 9, heads = 3;
            const std::vector<T> x0 = random_data<T>(rng, static_cast<std::size_t>(tokens * heads * head_dim));
            for (const MultiAxisLayout& layout : layouts_for(spec.num_pairs())) {
                const int axes = layout.num_axes();
                std::vector<std::vector<std::int64_t>> p(static_cast<std::size_t>(tokens));
                for (auto& row : p) {
                    row.resize(static_cast<std::size_t>(axes));
                    for (auto& v : row) v = std::uniform_int_distribution<std::int64_t>(0, 4095)(rng);
                }
                p[3].assign(static_cast<std::size_t>(axes), 17);  // one text token among vision tokens
                if (axes > 2) p[5][2] = p[5][0];  // two axes equal, one not
                for (bool use_cache : {true, false}) {
                    const PositionStore store = store_positions(p, false);
                    std::vector<T> got(x0.size());
                    const QKViews<T> v_got = QKViews<T>::out_of_place(HeadsView<const T>(x0, {tokens, heads, head_dim}),
                                                                      HeadsView<T>(got, {tokens, heads, head_dim}));
                    if (use_cache)
                        apply_multi_on(path, spec, layout, src.cache, store.view(tokens, axes, true, false), v_got,
                                       Direction::forward);
                    else
                        apply_multi_on(path, spec, layout, src.on_the_fly, store.view(tokens, axes, false, false),
                                       v_got, Direction::forward);
                    for (int a = 0; a < axes; ++a) {
                        std::vector<std::int64_t> ids(static_cast<std::size_t>(tokens));
                        for (std::ptrdiff_t t = 0; t < tokens; ++t)
                            ids[static_cast<std::size_t>(t)] =
                                p[static_cast<std::size_t>(t)][static_cast<std::size_t>(a)];
                        std::vector<T> want(x0.size());
                        const QKViews<T> v_want =
                            QKViews<T>::out_of_place(HeadsView<const T>(x0, {tokens, heads, head_dim}),
                                                     HeadsView<T>(want, {tokens, heads, head_dim}));
                        if (use_cache) kernel_test::apply_on(path, spec, src.cache, PositionIds(ids), v_want);
                        else kernel_test::apply_on(path, spec, src.on_the_fly, PositionIds(ids), v_want);
                        int mismatches = 0;
                        for (std::ptrdiff_t row = 0; row < tokens * heads; ++row)
                            for (int i = 0; i < spec.num_pairs(); ++i) {
                                if (layout.axis_of_pair(i) != a) continue;
                                const posenc::PairCoordinates c = spec.pair_coordinates(i);
                                for (int d : {c.first, c.second}) {
                                    const std::size_t idx = static_cast<std::size_t>(row * head_dim + d);
                                    mismatches +=
                                        kernel_test::bits_of(got[idx]) != kernel_test::bits_of(want[idx]) ? 1 : 0;
                                }
                            }
                        for (std::ptrdiff_t row = 0; row < tokens * heads; ++row)  // pass-through copied
                            for (int d = rotary_dim; d < head_dim; ++d) {
                                const std::size_t idx = static_cast<std::size_t>(row * head_dim + d);
                                mismatches += kernel_test::bits_of(got[idx]) != kernel_test::bits_of(x0[idx]) ? 1 : 0;
                            }
                        INFO(path.name << " " << kernel_test::type_name<T>() << " " << posenc::to_string(pairing)
                                       << " rotary " << rotary_dim << " " << posenc::to_string(layout.kind())
                                       << " axis " << a << (use_cache ? " cache" : " on-the-fly"));
                        CHECK(mismatches == 0);
                        ++checked;
                    }
                }
            }
        }
    }
}

template <class T>
T guard_value()
{
    if constexpr (std::is_same_v<T, double>) return -777.25;
    else if constexpr (std::is_same_v<T, float>) return -777.25f;
    else return posenc::store_from_float<T>(-777.25f);
}

struct Failure {
    int count = 0;
    std::string first;
};

/// One random call against the scalar reference, with guards; Q and K either in separate
/// buffers with gaps between heads and tokens, or slices of one packed QKV buffer.
template <class T>
void reference_case(const ArchPath& path, std::mt19937& rng, Failure& failure)
{
    std::uniform_int_distribution<int> coin(0, 1);
    const posenc::Pairing pairing = coin(rng) ? posenc::Pairing::half_split : posenc::Pairing::interleaved;
    const int rotary_dim = 2 * std::uniform_int_distribution<int>(1, 80)(rng);
    const int head_dim = rotary_dim + (coin(rng) ? 0 : std::uniform_int_distribution<int>(1, 40)(rng));
    const posenc::RopeSpec spec(head_dim, rotary_dim, 1e4, pairing);
    const Sources& src = sources_for(rotary_dim);
    const std::vector<MultiAxisLayout> layouts = layouts_for(spec.num_pairs());
    const MultiAxisLayout& layout = layouts[std::uniform_int_distribution<std::size_t>(0, layouts.size() - 1)(rng)];
    const int axes = layout.num_axes();
    const std::ptrdiff_t tokens = std::uniform_int_distribution<int>(1, 6)(rng);
    const std::ptrdiff_t q_heads = std::uniform_int_distribution<int>(1, 12)(rng);
    const std::ptrdiff_t k_heads = coin(rng) ? 0 : std::uniform_int_distribution<int>(1, 4)(rng);
    const bool use_cache = coin(rng) != 0, in_place = coin(rng) != 0, packed = k_heads > 0 && coin(rng) != 0;
    const Direction direction = coin(rng) ? Direction::forward : Direction::inverse;

    std::vector<std::vector<std::int64_t>> p(static_cast<std::size_t>(tokens));
    std::uniform_int_distribution<std::int64_t> cache_pos(0, 4095), any_pos(-max_kernel_position, max_kernel_position);
    for (auto& row : p) {
        row.resize(static_cast<std::size_t>(axes));
        for (auto& v : row) v = use_cache || coin(rng) ? cache_pos(rng) : any_pos(rng);
        if (coin(rng) && coin(rng)) row.assign(row.size(), row[0]);  // some text tokens
    }
    const bool axes_major = coin(rng) != 0, use64 = coin(rng) != 0;
    const PositionStore store = store_positions(p, axes_major);
    const MultiAxisPositions positions = store.view(tokens, axes, use64, axes_major);

    // one memory per tensor (or one for packed Q and K), guards of 29 elements at both ends
    const std::ptrdiff_t guard = 29, gap_h = std::uniform_int_distribution<int>(0, 7)(rng),
                         gap_t = std::uniform_int_distribution<int>(0, 7)(rng);
    struct Tensor {
        std::vector<T>* memory;
        std::ptrdiff_t offset, token_stride, head_stride, heads;
    };
    std::vector<std::unique_ptr<std::vector<T>>> memories;
    auto new_memory = [&](std::ptrdiff_t extent) {
        memories.emplace_back(new std::vector<T>(static_cast<std::size_t>(extent + 2 * guard), guard_value<T>()));
        return memories.back().get();
    };
    auto make_tensors = [&]() {
        std::vector<Tensor> out;
        if (packed) {
            const std::ptrdiff_t stride = (q_heads + 2 * k_heads) * head_dim + gap_t;
            std::vector<T>* m = new_memory((tokens - 1) * stride + (q_heads + 2 * k_heads) * head_dim);
            out.push_back({m, guard, stride, head_dim, q_heads});
            out.push_back({m, guard + q_heads * head_dim, stride, head_dim, k_heads});
            return out;
        }
        for (std::ptrdiff_t h : {q_heads, k_heads}) {
            if (h == 0) break;
            const std::ptrdiff_t hs = head_dim + gap_h, ts = h * hs + gap_t;
            out.push_back({new_memory((tokens - 1) * ts + (h - 1) * hs + head_dim), guard, ts, hs, h});
        }
        return out;
    };
    const std::vector<Tensor> in = make_tensors();
    const std::vector<Tensor> out = in_place ? in : make_tensors();
    auto view = [&](const Tensor& x) {  // the view may address up to the trailing guard, not into it
        const std::ptrdiff_t room = static_cast<std::ptrdiff_t>(x.memory->size()) - guard - x.offset;
        return HeadsView<T>(x.memory->data() + x.offset, room, {tokens, x.heads, head_dim},
                            {x.token_stride, x.head_stride});
    };
    std::uniform_real_distribution<double> value(-2.0, 2.0);
    for (const Tensor& x : in)
        for (std::ptrdiff_t t = 0; t < tokens; ++t)
            for (std::ptrdiff_t h = 0; h < x.heads; ++h)
                for (int d = 0; d < head_dim; ++d) view(x).head(t, h)[d] = kernel_test::from_double<T>(value(rng));
    std::vector<std::vector<T>> before;
    for (const auto& m : memories) before.push_back(*m);

    const QKViews<T> views =
        in_place ? QKViews<T>::in_place(view(in[0]), k_heads ? view(in[1]) : HeadsView<T> {})
                 : QKViews<T>::out_of_place(view(in[0]), view(out[0]),
                                            k_heads ? HeadsView<const T>(view(in[1])) : HeadsView<const T> {},
                                            k_heads ? view(out[1]) : HeadsView<T> {});
    if (use_cache) apply_multi_on(path, spec, layout, src.cache, positions, views, direction);
    else apply_multi_on(path, spec, layout, src.on_the_fly, positions, views, direction);

    auto index_of = [&](const std::vector<T>* m) {
        for (std::size_t i = 0; i < memories.size(); ++i)
            if (memories[i].get() == m) return i;
        return memories.size();
    };
    std::vector<std::vector<T>> expected = before;
    std::vector<std::vector<char>> rotary(memories.size());
    for (std::size_t m = 0; m < memories.size(); ++m) rotary[m].assign(memories[m]->size(), 0);
    const double factor = src.table.attention_factor();
    for (std::size_t tensor = 0; tensor < in.size(); ++tensor) {
        const Tensor& i_t = in[tensor];
        const Tensor& o_t = out[tensor];
        const std::size_t im = index_of(i_t.memory), om = index_of(o_t.memory);
        for (std::ptrdiff_t t = 0; t < tokens; ++t) {
            std::vector<std::int64_t> pos = p[static_cast<std::size_t>(t)];
            if (direction == Direction::inverse)
                for (auto& v : pos) v = -v;
            for (std::ptrdiff_t h = 0; h < i_t.heads; ++h) {
                const std::size_t irow =
                    static_cast<std::size_t>(i_t.offset + t * i_t.token_stride + h * i_t.head_stride);
                const std::size_t orow =
                    static_cast<std::size_t>(o_t.offset + t * o_t.token_stride + h * o_t.head_stride);
                std::vector<double> x(static_cast<std::size_t>(head_dim));
                for (int d = 0; d < head_dim; ++d)
                    x[static_cast<std::size_t>(d)] =
                        kernel_test::to_double(before[im][irow + static_cast<std::size_t>(d)]);
                std::vector<double> ref = x;
                posenc::apply_multi_axis_rope_reference(spec, src.table, layout, ref.data(), pos);
                for (int d = rotary_dim; d < head_dim; ++d)
                    expected[om][orow + static_cast<std::size_t>(d)] = before[im][irow + static_cast<std::size_t>(d)];
                for (int i = 0; i < spec.num_pairs(); ++i) {
                    const posenc::PairCoordinates c = spec.pair_coordinates(i);
                    const double norm =
                        std::hypot(x[static_cast<std::size_t>(c.first)], x[static_cast<std::size_t>(c.second)]);
                    for (int d : {c.first, c.second}) {
                        const std::size_t idx = orow + static_cast<std::size_t>(d);
                        rotary[om][idx] = 1;
                        const double got = kernel_test::to_double((*memories[om])[idx]);
                        const double want = ref[static_cast<std::size_t>(d)];
                        const double tolerance =
                            std::is_same_v<T, double>
                                ? 1e-13 * factor * norm + 1e-300
                                : 4 * kernel_test::float_ulp(factor * norm) +
                                      (std::is_same_v<T, float> ? 0.0 : kernel_test::half_ulp<T>(std::fabs(got)));
                        if (!(std::fabs(got - want) <= tolerance) && failure.count++ == 0)
                            failure.first = path.name + " " + kernel_test::type_name<T>() + " " +
                                            posenc::to_string(pairing) + " " + posenc::to_string(layout.kind()) +
                                            " rotary " + std::to_string(rotary_dim) + " token " + std::to_string(t) +
                                            " head " + std::to_string(h) + " dim " + std::to_string(d) + ": got " +
                                            std::to_string(got) + " want " + std::to_string(want);
                    }
                }
            }
        }
    }
    for (std::size_t m = 0; m < memories.size(); ++m)
        for (std::size_t i = 0; i < memories[m]->size(); ++i)
            if (!rotary[m][i] && kernel_test::bits_of((*memories[m])[i]) != kernel_test::bits_of(expected[m][i]) &&
                failure.count++ == 0)
                failure.first = path.name + " " + kernel_test::type_name<T>() + " memory " + std::to_string(m) +
                                " element " + std::to_string(i) + " (guard, gap, input or pass-through) was changed";
}

}  // namespace

TEST_CASE_TEMPLATE("[identity] multi-axis text tokens give the 1-D kernel's bits on every arch path", T, float,
                   posenc::bfloat16, posenc::float16, double)
{
    for (const std::string& skipped : kernel_test::skipped_paths()) MESSAGE("skipping arch path " << skipped);
    for (const ArchPath& path : kernel_test::arch_paths()) {
        std::mt19937 rng(99u + static_cast<unsigned>(path.isa));
        int checked = 0;
        text_tokens_case<T>(path, rng, checked);
        CHECK(checked > 0);
    }
}

TEST_CASE_TEMPLATE("[identity] multi-axis mixed tokens: every pair holds the 1-D kernel's bits at its axis's position",
                   T, float, posenc::bfloat16, posenc::float16, double)
{
    for (const ArchPath& path : kernel_test::arch_paths()) {
        std::mt19937 rng(7u + static_cast<unsigned>(path.isa));
        int checked = 0;
        per_pair_case<T>(path, rng, checked);
        CHECK(checked > 0);
    }
}

TEST_CASE_TEMPLATE("[reference] multi-axis kernel matches apply_multi_axis_rope_reference on random shapes with guards",
                   T, float, posenc::bfloat16, posenc::float16, double)
{
    for (const ArchPath& path : kernel_test::arch_paths()) {
        std::mt19937 rng(4321u + static_cast<unsigned>(path.isa));
        Failure failure;
        const int cases = kernel_test::random_cases(60);
        for (int c = 0; c < cases; ++c) reference_case<T>(path, rng, failure);
        INFO(failure.first);
        CHECK(failure.count == 0);
    }
}

}  // namespace kernels_multi_axis_kernels_tests
