// SPDX-License-Identifier: MIT
// float half_split rows of 17 to 31 pairs (MiniMax-M3-VL's 30 pairs of a 64-dim head), which the
// AVX-512 kernels rotate in one pass over each head's first 2n elements by its 16-float registers
// (float_window_pairs.hpp), and multi-axis rows of such pairs, whose cos/sin the AVX-512 kernels
// gather from the axes' rows a register at a time (axis_run_gather.hpp). Expected values,
// independent of the SIMD code: each pair (a, b) at position m (for a multi-axis row: the
// position of the pair's axis) with the cache's float cos c and sin s (forward; -s inverse)
// becomes a' = fma(a, c, -(b s)), b' = fma(b, c, a s): one product rounded to float, one fused
// multiply-add (the arithmetic apply.hpp states for FMA arches), bit for bit; every coordinate
// outside the rotated slice keeps its bits (in place and out of place, heads with and without
// dims after the slice). Every dispatched x86 path with FMA this CPU runs (avx2: the kernels'
// element-order rows, the same formula); positions up to 2^31 - 1.
#include <doctest/doctest.h>

#include <posenc/kernels/multi_axis.hpp>
#include <posenc/multi_axis.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kernel_test_support.hpp"

namespace kernels_float_window_pairs_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using namespace posenc::kernels;
using kernel_test::ArchPath;

std::vector<float> random_floats(std::size_t n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-4.0f, 4.0f);
    std::vector<float> v(n);
    for (float& x : v) x = u(rng);
    return v;
}

/// A call's shape: tokens x heads x head_dim, pairs (offset + i, offset + n + i), i < n.
struct Shape {
    int tokens, heads, head_dim, offset, n;
    std::size_t size() const { return static_cast<std::size_t>(tokens * heads * head_dim); }
    HeadsShape heads_shape() const { return {tokens, heads, head_dim}; }
};

/// The expected heads (file comment); position_of(t, i): pair i's position at token t.
template <class PositionOf>
std::vector<float> expected(const std::vector<float>& x, const CosSinCache& cache, const Shape& s, double sign,
                            PositionOf position_of)
{
    std::vector<float> y = x;
    for (int t = 0; t < s.tokens; ++t)
        for (int h = 0; h < s.heads; ++h)
            for (int i = 0; i < s.n; ++i) {
                const std::size_t at = static_cast<std::size_t>((t * s.heads + h) * s.head_dim + s.offset + i);
                const std::size_t bt = at + static_cast<std::size_t>(s.n);
                const std::int64_t m = position_of(t, i);
                const float c = cache.cos_row(m)[i], sn = static_cast<float>(sign) * cache.sin_row(m)[i];
                y[at] = std::fma(x[at], c, -(x[bt] * sn));
                y[bt] = std::fma(x[bt], c, x[at] * sn);
            }
    return y;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

/// 1-D rows on one path: in place (all tokens) and out of place (one token at a time, the decode
/// path); the number of results that differ from the formula.
int one_axis_mismatches(const ArchPath& path, const Shape& s, Direction direction, const std::vector<std::int64_t>& ids,
                        const CosSinCache& cache)
{
    const posenc::RopeSpec spec(s.head_dim, 2 * s.n, 10000.0, posenc::Pairing::half_split, s.offset);
    const std::vector<float> x = random_floats(s.size(), 11u + static_cast<unsigned>(s.n + s.head_dim));
    const std::vector<float> want = expected(x, cache, s, direction == Direction::forward ? 1.0 : -1.0,
                                             [&](int t, int) { return ids[static_cast<std::size_t>(t)]; });
    std::vector<float> in_place = x;
    kernel_test::apply_on(path, spec, cache, PositionIds(ids),
                          QKViews<float>::in_place(HeadsView<float>(in_place, s.heads_shape())), direction);
    std::vector<float> out(x.size(), -7.0f);
    const std::size_t token_size = static_cast<std::size_t>(s.heads * s.head_dim);
    const HeadsShape one {1, s.heads, s.head_dim};
    for (int t = 0; t < s.tokens; ++t) {
        const std::size_t at = static_cast<std::size_t>(t) * token_size;
        kernel_test::apply_on(path, spec, cache, PositionIds(&ids[static_cast<std::size_t>(t)], 1),
                              QKViews<float>::out_of_place(
                                  HeadsView<const float>(x.data() + at, static_cast<std::ptrdiff_t>(token_size), one),
                                  HeadsView<float>(out.data() + at, static_cast<std::ptrdiff_t>(token_size), one)),
                              direction);
    }
    return !same_bits(in_place, want) + !same_bits(out, want);
}

/// The dispatched paths whose float rotation is fused (x86 with FMA), which the formula describes
/// bit for bit; other paths round a c and b s separately (apply.hpp's bound covers both).
std::vector<ArchPath> fused_paths()
{
    std::vector<ArchPath> out;
    for (const ArchPath& path : kernel_test::arch_paths())
        if (path.dispatched && (path.isa == dispatch::Isa::avx2 || path.isa == dispatch::Isa::avx512 ||
                                path.isa == dispatch::Isa::avx512_bf16))
            out.push_back(path);
    return out;
}

}  // namespace

TEST_CASE("[float] half_split rows of 17 to 31 pairs: the fused formula's bits on every path, the dims outside "
          "the slice untouched, up to position 2^31 - 1")
{
    const std::vector<ArchPath> paths = fused_paths();
    if (paths.empty()) {
        MESSAGE("skipped: no dispatched x86 path with FMA in this binary or on this CPU");
        return;
    }
    int cases = 0;
    for (const int n : {30, 17, 24, 31}) {
        std::vector<double> f(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) f[static_cast<std::size_t>(i)] = std::pow(10000.0, -2.0 * i / (2.0 * n));
        const posenc::FrequencyTable table(f);
        const CosSinCache small(table, 4096), large(table, 8, 2147483640);
        const Shape shapes[] = {{6, 3, 64, 0, n}, {6, 3, 64, 64 - 2 * n, n}, {6, 3, 64, 1, n}, {6, 3, 2 * n, 0, n}};
        for (const ArchPath& path : paths)
            for (const Shape& s : shapes)
                for (const Direction direction : {Direction::forward, Direction::inverse}) {
                    CAPTURE(path.name);
                    CAPTURE(n);
                    CAPTURE(s.head_dim);
                    CAPTURE(s.offset);
                    CAPTURE(static_cast<int>(direction));
                    CHECK(one_axis_mismatches(path, s, direction, {0, 1, 17, 999, 4095, 7}, small) == 0);
                    Shape three = s;
                    three.tokens = 3;
                    CHECK(one_axis_mismatches(path, three, direction, {2147483647, 2147483640, 2147483646}, large) ==
                          0);
                    ++cases;
                }
    }
    CHECK(cases >= 32);
}

TEST_CASE("[float] multi-axis rows of three runs (MiniMax-M3-VL's bands and M-RoPE sections across a register): "
          "each pair rotated by its axis's cos/sin, the fused formula's bits on every path")
{
    const std::vector<ArchPath> paths = fused_paths();
    if (paths.empty()) {
        MESSAGE("skipped: no dispatched x86 path with FMA in this binary or on this CPU");
        return;
    }
    int cases = 0;
    struct Layout {
        int n;
        std::vector<int> sections;
    };
    for (const Layout& l : {Layout {30, {10, 10, 10}}, Layout {24, {3, 15, 6}}, Layout {40, {7, 20, 13}}}) {
        const int n = l.n;
        std::vector<double> f(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) f[static_cast<std::size_t>(i)] = std::pow(10000.0, -2.0 * i / (2.0 * n));
        const CosSinCache cache(posenc::FrequencyTable(f), 8, 2147483640);
        const posenc::MultiAxisLayout layout = posenc::MultiAxisLayout::xd_sections(l.sections, n);
        const Shape s {5, 3, 2 * n + 4, 0, n};
        const posenc::RopeSpec spec(s.head_dim, 2 * n, 10000.0, posenc::Pairing::half_split);
        // token-major [tokens][3]: every token's axes at different positions of [2^31 - 8, 2^31 - 1]
        const std::vector<std::int64_t> ids {2147483640, 2147483647, 2147483643, 2147483641, 2147483641,
                                             2147483646, 2147483645, 2147483644, 2147483642, 2147483647,
                                             2147483640, 2147483643, 2147483642, 2147483646, 2147483641};
        const auto position_of = [&](int t, int i) {
            return ids[static_cast<std::size_t>(3 * t + layout.axis_of_pair(i))];
        };
        const std::vector<float> x = random_floats(s.size(), 5u + static_cast<unsigned>(n));
        for (const ArchPath& path : paths)
            for (const Direction direction : {Direction::forward, Direction::inverse}) {
                CAPTURE(path.name);
                CAPTURE(n);
                CAPTURE(static_cast<int>(direction));
                std::vector<float> y = x;
                const auto views = QKViews<float>::in_place(HeadsView<float>(y, s.heads_shape()));
                dispatch::apply_multi_axis_rope_on(path.isa, spec, layout, cache, MultiAxisPositions(ids, 3), views,
                                                   direction);
                CHECK(same_bits(y, expected(x, cache, s, direction == Direction::forward ? 1.0 : -1.0, position_of)));
                ++cases;
            }
    }
    CHECK(cases >= 6);
}

}  // namespace kernels_float_window_pairs_tests
