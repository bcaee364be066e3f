// SPDX-License-Identifier: MIT
// Expected bfloat16 half_split heads by the fused formula, shared by tests/kernels/*.cpp:
//   each pair (a, b) = (x[offset + i], x[offset + n + i]), i < n, at position m with the cache's
//   float cos c and sin s (forward; -s inverse) becomes a' = to_bfloat16(fma(a, c, -(b s))),
//   b' = to_bfloat16(fma(b, c, a s)): one product rounded to float, one fused multiply-add, one
//   rounding to bfloat16 (the arithmetic apply.hpp states for FMA arches); every other coordinate
//   is kept. Also the test inputs (zeros, subnormal products and ordinary values) and a bitwise
//   comparison. Nothing here runs the kernels.
#pragma once

#include <posenc/kernels.hpp>

#include <cmath>
#include <cstddef>
#include <cstring>
#include <random>
#include <vector>

namespace kernel_test {

/// Random bfloat16 values, every seventh zero, every eleventh tiny (a subnormal float product).
inline std::vector<posenc::bfloat16> mixed_bfloat16_values(std::size_t n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-4.0f, 4.0f);
    std::vector<posenc::bfloat16> v(n);
    for (std::size_t i = 0; i < n; ++i)
        v[i] = posenc::to_bfloat16(i % 7 == 0 ? 0.0f : i % 11 == 0 ? std::ldexp(u(rng), -120) : u(rng));
    return v;
}

/// The heads x ([tokens][heads][head_dim]) with pairs (offset + i, offset + n + i), i < n, rotated
/// by the fused formula (file comment) at positions[t], sign 1 forward or -1 inverse.
template <class Position>
std::vector<posenc::bfloat16>
half_split_formula(const std::vector<posenc::bfloat16>& x, const posenc::kernels::CosSinCache& cache,
                   const std::vector<Position>& positions, int heads, int head_dim, int offset, int n, double sign)
{
    std::vector<posenc::bfloat16> y = x;
    const auto b_at = static_cast<std::size_t>(n);
    for (std::size_t t = 0; t < positions.size(); ++t)
        for (int h = 0; h < heads; ++h)
            for (int i = 0; i < n; ++i) {
                const std::size_t at = (t * static_cast<std::size_t>(heads) + static_cast<std::size_t>(h)) *
                                           static_cast<std::size_t>(head_dim) +
                                       static_cast<std::size_t>(offset + i);
                const float a = posenc::to_float(x[at]), b = posenc::to_float(x[at + b_at]);
                const float c = cache.cos_row(positions[t])[i];
                const float s = static_cast<float>(sign) * cache.sin_row(positions[t])[i];
                y[at] = posenc::to_bfloat16(std::fma(a, c, -(b * s)));
                y[at + b_at] = posenc::to_bfloat16(std::fma(b, c, a * s));
            }
    return y;
}

/// Whether two arrays of bfloat16 hold the same bits.
inline bool same_bits(const std::vector<posenc::bfloat16>& a, const std::vector<posenc::bfloat16>& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(posenc::bfloat16)) == 0;
}

}  // namespace kernel_test
