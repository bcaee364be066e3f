// SPDX-License-Identifier: MIT
// bfloat16 rounding in the fused steps (rope_into_cache, K into a bfloat16 cache), on every arch
// path, for every input pattern: the fused steps round through simd_ops.hpp's stores (not the
// even/odd kernels of apply), whose fast forms must agree with exact rounding on zeros,
// subnormals, infinities and NaN as well as on normal values.
// Expected values, independent of the SIMD code: at position 0 every cos is the attention factor
// a and every sin is 0, so a pair (x, 0) becomes (round(fl32(x * a)), 0) (one float rounding:
// x * a - 0 * 0 and 0 * a + x * 0 add exact zeros), its partner NaN when x is infinite or NaN
// (x * 0); `round` is nearest even to bfloat16 by its definition (the top half of a binary32 with
// 7 mantissa bits: nearbyint(x / spacing) * spacing in double, the C library's round-half-even).
// Every one of the 65,536 bfloat16 patterns is an input x, 64 per head, so that some register
// groups hold only normal values and others a zero, a subnormal, an infinity or a NaN.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <posenc/kernels/fused_dispatch.hpp>

#include "kernel_test_support.hpp"

namespace kernels_bfloat16_store_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using namespace posenc::kernels;
using kernel_test::ArchPath;
using posenc::bfloat16;

/// Nearest bfloat16 to finite x (ties to even), as a double (infinite past the largest finite).
double round_bfloat16(double x)
{
    const double a = std::fabs(x);
    const double largest = std::ldexp(255.0 / 128.0, 127);
    if (a >= largest + std::ldexp(1.0, 127 - 8)) return std::copysign(std::numeric_limits<double>::infinity(), x);
    const double spacing = a < std::ldexp(1.0, -126) ? std::ldexp(1.0, -133) : std::ldexp(1.0, std::ilogb(a) - 7);
    return std::copysign(std::nearbyint(a / spacing) * spacing, x);
}

float float_of_bits(std::uint32_t u)
{
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

/// Where pattern b sits (head b / 64; its element in the head) and where its partner sits.
struct Place {
    std::size_t value, partner;
};
Place place_of(std::uint32_t b, posenc::Pairing pairing)
{
    const std::size_t head = b / 64, i = b % 64;
    if (pairing == posenc::Pairing::half_split) return {head * 128 + i, head * 128 + 64 + i};
    return {head * 128 + 2 * i, head * 128 + 2 * i + 1};
}

}  // namespace

TEST_CASE("[IEEE 754] the fused steps store bfloat16 rounded to nearest even: every pattern, zeros and subnormals "
          "among normal values, every arch path and pairing")
{
    constexpr std::ptrdiff_t tokens = 0x10000 / 64, head_dim = 128;
    const double factor = 1.0 + std::ldexp(1.0, -9) + std::ldexp(1.0, -12);  // products need rounding
    const float a = static_cast<float>(factor);
    const std::vector<std::int64_t> at_zero(tokens, 0);
    std::vector<std::int64_t> slots(tokens);
    for (std::ptrdiff_t t = 0; t < tokens; ++t)
        slots[static_cast<std::size_t>(t)] = (t * 37) % tokens;  // a permutation
    for (const posenc::Pairing pairing : {posenc::Pairing::half_split, posenc::Pairing::interleaved}) {
        const posenc::RopeSpec spec(head_dim, head_dim, 1e4, pairing);
        const CosSinCache cache(posenc::FrequencyTable(posenc::FrequencyTable::from_spec(spec).inv_freq(), factor), 1);
        std::vector<bfloat16> k(static_cast<std::size_t>(tokens * head_dim), bfloat16 {0});
        for (std::uint32_t b = 0; b < 0x10000; ++b)
            k[place_of(b, pairing).value] = bfloat16 {static_cast<std::uint16_t>(b)};
        for (const ArchPath& path : kernel_test::arch_paths()) {
            std::vector<bfloat16> rows(k.size(), bfloat16 {0x5555});
            CacheWrite<bfloat16> w;
            w.k = HeadsView<const bfloat16>(k.data(), static_cast<std::ptrdiff_t>(k.size()), {tokens, 1, head_dim});
            w.key_cache =
                KvCacheView::contiguous(rows.data(), static_cast<std::ptrdiff_t>(rows.size()), tokens, 1, head_dim);
            w.slot_mapping = SlotMapping(slots.data(), tokens);
            if (path.dispatched) dispatch::rope_into_cache_on(path.isa, spec, cache, PositionIds(at_zero), w);
            else rope_into_cache(spec, cache, PositionIds(at_zero), w);
            const std::string what =
                path.name + (pairing == posenc::Pairing::interleaved ? " interleaved" : " half_split");
            INFO(what);
            int mismatches = 0;
            for (std::uint32_t b = 0; b < 0x10000; ++b) {
                const Place p = place_of(b, pairing);
                const std::size_t row = static_cast<std::size_t>(slots[p.value / head_dim] * head_dim);
                const float x = float_of_bits(b << 16), product = x * a;
                const float got = posenc::to_float(rows[row + p.value % head_dim]);
                const float partner = posenc::to_float(rows[row + p.partner % head_dim]);
                bool ok = std::isnan(x) ? std::isnan(got)
                          : std::isinf(product)
                              ? got == product
                              : static_cast<double>(got) == round_bfloat16(static_cast<double>(product));
                ok = ok && (std::isfinite(x) ? partner == 0.0f : std::isnan(partner));
                if (!ok && mismatches++ < 5)
                    CHECK_MESSAGE(ok, "bfloat16 bits " << b << " -> " << got << ", partner " << partner);
            }
            CHECK(mismatches == 0);
        }
    }
}

}  // namespace kernels_bfloat16_store_tests
