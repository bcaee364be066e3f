// SPDX-License-Identifier: MIT
// bfloat16 half_split slices of exactly 16 pairs (rotary_dim 32: Gemma 4's vision chunks, 32-dim
// rotary slices), which the AVX-512 BF16 kernel rotates as one 32-element chunk per head, a and b
// rounded by one vcvtne2ps2bf16 (bfloat16_even_odd.hpp's HalfSplit16Pairs). Expected values, independent of the SIMD code:
//   each pair (a, b) at position m with the cache's float cos c and sin s (forward; -s inverse)
//   becomes a' = to_bfloat16(fma(a, c, -(b s))), b' = to_bfloat16(fma(b, c, a s)): one product
//   rounded to float, one fused multiply-add, one rounding to bfloat16 (the arithmetic apply.hpp
//   states for FMA arches), the coordinates outside the slice untouched;
// and, bit for bit, the element-order AVX-512 kernel (same arithmetic, different plumbing).
// Inputs include zeros, subnormal and huge values (the even/odd store's exact-rounding path).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bfloat16_half_split_formula.hpp"
#include "kernel_test_support.hpp"

namespace kernels_bfloat16_16_pairs_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using namespace posenc::kernels;
namespace pd = posenc::kernels::dispatch;
using posenc::bfloat16;

}  // namespace

TEST_CASE("[bfloat16] 16-pair half_split slices on AVX-512 BF16: the fused formula rounded once, and the element-order "
          "kernel's bits")
{
    if (!pd::isa_available(pd::Isa::avx512_bf16) || !pd::isa_available(pd::Isa::avx512)) {
        MESSAGE("skipped: this binary or CPU lacks the avx512_bf16 or avx512 dispatch path");
        return;
    }
    const int heads = 3, head_dim = 64;
    const std::vector<std::int32_t> ids = {0, 1, 17, 999, 4095, 65535, 7};
    const PositionIds positions(ids);
    int cases = 0;
    for (const int offset : {0, 32, 16}) {
        const posenc::RopeSpec spec(head_dim, 32, 100.0, posenc::Pairing::half_split, offset);
        const CosSinCache cache(posenc::FrequencyTable::from_spec(spec), 65536);
        for (const Direction direction : {Direction::forward, Direction::inverse}) {
            CAPTURE(offset);
            CAPTURE(static_cast<int>(direction));
            const std::vector<bfloat16> x =
                kernel_test::mixed_bfloat16_values(ids.size() * heads * head_dim, 11u + static_cast<unsigned>(offset));
            const std::vector<bfloat16> want = kernel_test::half_split_formula(
                x, cache, ids, heads, head_dim, offset, 16, direction == Direction::forward ? 1.0 : -1.0);
            const HeadsShape shape {static_cast<std::ptrdiff_t>(ids.size()), heads, head_dim};
            std::vector<bfloat16> even_odd = x, element_order = x;
            pd::apply_rope_on(pd::Isa::avx512_bf16, spec, cache, positions,
                              QKViews<bfloat16>::in_place(HeadsView<bfloat16>(even_odd, shape)), direction);
            pd::apply_rope_on(pd::Isa::avx512, spec, cache, positions,
                              QKViews<bfloat16>::in_place(HeadsView<bfloat16>(element_order, shape)), direction);
            CHECK(kernel_test::same_bits(even_odd, want));
            CHECK(kernel_test::same_bits(element_order, want));
            // out of place, one token (the decode path): the same bits, pass-through dims copied
            std::vector<bfloat16> out(x.size());
            const HeadsShape one {1, heads, head_dim};
            for (std::size_t t = 0; t < ids.size(); ++t) {
                const std::size_t at = t * heads * head_dim;
                const std::vector<bfloat16> in(x.begin() + static_cast<std::ptrdiff_t>(at),
                                               x.begin() + static_cast<std::ptrdiff_t>(at + heads * head_dim));
                std::vector<bfloat16> o(in.size());
                pd::apply_rope_on(
                    pd::Isa::avx512_bf16, spec, cache, PositionIds(&ids[t], 1),
                    QKViews<bfloat16>::out_of_place(HeadsView<const bfloat16>(in, one), HeadsView<bfloat16>(o, one)),
                    direction);
                std::copy(o.begin(), o.end(), out.begin() + static_cast<std::ptrdiff_t>(at));
            }
            CHECK(kernel_test::same_bits(out, want));
            ++cases;
        }
    }
    CHECK(cases == 6);
}

}  // namespace kernels_bfloat16_16_pairs_tests
