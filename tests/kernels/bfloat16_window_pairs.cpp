// SPDX-License-Identifier: MIT
// bfloat16 half_split rows of 17 to 31 pairs (MiniMax-M3-VL's 30 pairs of a 64-dim head), which
// the AVX-512 BF16 kernel loads and stores as the head's first 64 elements, line by line
// (bfloat16_even_odd.hpp's HalfSplitWindowPairs). Expected values, independent of the SIMD code:
//   each pair (a, b) at position m with the cache's float cos c and sin s (forward; -s inverse)
//   becomes a' = to_bfloat16(fma(a, c, -(b s))), b' = to_bfloat16(fma(b, c, a s)): one product
//   rounded to float, one fused multiply-add, one rounding to bfloat16 (the arithmetic apply.hpp
//   states for FMA arches), every coordinate outside the slice untouched (the tail after 2n
//   included, in place and out of place);
// and, bit for bit, the element-order AVX-512 kernel. Positions up to 2^31 - 1; inputs include
// zeros, subnormal and huge values (the store's exact-rounding path).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "bfloat16_half_split_formula.hpp"
#include "kernel_test_support.hpp"

namespace kernels_bfloat16_window_pairs_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using namespace posenc::kernels;
namespace pd = posenc::kernels::dispatch;
using posenc::bfloat16;

/// One spec on both ISAs, in place (several tokens) and out of place (one token at a time: the
/// decode path), against the formula; the number of mismatches.
int mismatches(int n, int offset, Direction direction, const std::vector<std::int64_t>& ids, const CosSinCache& cache)
{
    const int heads = 3, head_dim = 64;
    const posenc::RopeSpec spec(head_dim, 2 * n, 10000.0, posenc::Pairing::half_split, offset);
    const PositionIds positions(ids);
    const std::vector<bfloat16> x =
        kernel_test::mixed_bfloat16_values(ids.size() * heads * head_dim, 7u + static_cast<unsigned>(n));
    const std::vector<bfloat16> want = kernel_test::half_split_formula(x, cache, ids, heads, head_dim, offset, n,
                                                                       direction == Direction::forward ? 1.0 : -1.0);
    const HeadsShape shape {static_cast<std::ptrdiff_t>(ids.size()), heads, head_dim};
    std::vector<bfloat16> even_odd = x, element_order = x;
    pd::apply_rope_on(pd::Isa::avx512_bf16, spec, cache, positions,
                      QKViews<bfloat16>::in_place(HeadsView<bfloat16>(even_odd, shape)), direction);
    pd::apply_rope_on(pd::Isa::avx512, spec, cache, positions,
                      QKViews<bfloat16>::in_place(HeadsView<bfloat16>(element_order, shape)), direction);
    std::vector<bfloat16> out = x;  // pass-through dims copied
    const HeadsShape one {1, heads, head_dim};
    for (std::size_t t = 0; t < ids.size(); ++t) {
        const std::size_t at = t * heads * head_dim;
        std::vector<bfloat16> o(static_cast<std::size_t>(heads * head_dim));
        pd::apply_rope_on(pd::Isa::avx512_bf16, spec, cache, PositionIds(&ids[t], 1),
                          QKViews<bfloat16>::out_of_place(
                              HeadsView<const bfloat16>(x.data() + at, static_cast<std::ptrdiff_t>(o.size()), one),
                              HeadsView<bfloat16>(o, one)),
                          direction);
        std::memcpy(out.data() + at, o.data(), o.size() * sizeof(bfloat16));
    }
    return !kernel_test::same_bits(even_odd, want) + !kernel_test::same_bits(element_order, want) +
           !kernel_test::same_bits(out, want);
}

}  // namespace

TEST_CASE("[bfloat16] half_split rows of 17 to 31 pairs on AVX-512 BF16: the fused formula rounded once, and the "
          "element-order kernel's bits, up to position 2^31 - 1")
{
    if (!pd::isa_available(pd::Isa::avx512_bf16) || !pd::isa_available(pd::Isa::avx512)) {
        MESSAGE("skipped: this binary or CPU lacks the avx512_bf16 or avx512 dispatch path");
        return;
    }
    int cases = 0;
    for (const int n : {30, 17, 24, 31}) {
        std::vector<double> f(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) f[static_cast<std::size_t>(i)] = std::pow(10000.0, -2.0 * i / (2.0 * n));
        const posenc::FrequencyTable table(f);
        const CosSinCache small(table, 4096), large(table, 8, 2147483640);
        for (const int offset : {0, 64 - 2 * n, 1}) {
            for (const Direction direction : {Direction::forward, Direction::inverse}) {
                CAPTURE(n);
                CAPTURE(offset);
                CAPTURE(static_cast<int>(direction));
                CHECK(mismatches(n, offset, direction, {0, 1, 17, 999, 4095, 7}, small) == 0);
                CHECK(mismatches(n, offset, direction, {2147483647, 2147483640, 2147483646}, large) == 0);
                ++cases;
            }
        }
    }
    CHECK(cases == 24);
}

}  // namespace kernels_bfloat16_window_pairs_tests
