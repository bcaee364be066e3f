// SPDX-License-Identifier: MIT
// Helpers shared by tests/cuda/*.cpp: buffers of random values, storage conversions and the
// tolerances that compare the emulated CUDA kernels (posenc/cuda/emulation.hpp) with the CPU
// kernels. Nothing here computes an expected value: the CPU kernels and mpmath's values do.
#pragma once

#include <posenc/cuda/emulation.hpp>
#include <posenc/kernels.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

namespace cuda_test {

using posenc::bfloat16;
using posenc::float16;

inline constexpr double u = 5.9604644775390625e-08;  // 2^-24, the unit roundoff of float

template <class T>
T from_float(float x)
{
    return posenc::store_from_float<T>(x);
}

template <class T>
double value_of(T x)
{
    if constexpr (std::is_same_v<T, float>) return x;
    else return posenc::to_float(x);
}

template <class T>
std::uint32_t bits_of(T x)
{
    std::uint32_t b = 0;
    std::memcpy(&b, &x, sizeof x);
    return b;
}

/// `n` values uniform in [-1, 1] (rounded to T), from `seed`.
template <class T>
std::vector<T> random_values(std::size_t n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<T> v(n);
    for (T& x : v) x = from_float<T>(dist(rng));
    return v;
}

/// The spacing of T's values at |v| (T = float, bfloat16, float16): one step of its rounding.
template <class T>
double spacing(double v)
{
    v = std::fabs(v);
    const int bits = std::is_same_v<T, float> ? 23 : std::is_same_v<T, bfloat16> ? 7 : 10;
    const double smallest = std::is_same_v<T, float16> ? std::ldexp(1.0, -24) : std::ldexp(1.0, -126 - bits);
    if (v == 0.0) return smallest;
    return std::max(smallest, std::ldexp(1.0, std::ilogb(v) - bits));
}

/// Whether two stored results of the same float formula agree: each is within `float_bound` of
/// the exact value before its rounding into T, so they differ by at most twice that plus one
/// step of T at their magnitude.
template <class T>
bool agree(T gpu, T cpu, double float_bound)
{
    const double g = value_of(gpu), c = value_of(cpu);
    const double step = std::is_same_v<T, float> ? 0.0 : spacing<T>(std::max(std::fabs(g), std::fabs(c)));
    return std::fabs(g - c) <= 2.0 * float_bound + step;
}

/// A device word for the kernels' reports, zeroed.
struct Status {
    unsigned word = 0;
    unsigned* get() { return &word; }
};

}  // namespace cuda_test
