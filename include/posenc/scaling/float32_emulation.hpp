// SPDX-License-Identifier: MIT
// posenc/scaling/float32_emulation.hpp: Hugging Face's float32 tensor arithmetic, one rounding per op.
//
// Hugging Face transformers computes inverse frequencies as float32 torch tensors. To reproduce
// its values bit for bit (docs/formulas.md H14) posenc evaluates every tensor
// operation as one float32 rounding, in Hugging Face's operation order:
//
//   fl(x)      x rounded to float32, to nearest even (the C++ double -> float conversion)
//   a (+) b    fl(a + b), and likewise (-), (x), (/): the exact result rounded once
//   pow32      fl(pow(x, y)) with pow in double: torch's float32 pow is within 1 ulp (SLEEF on
//              CPU, powf on CUDA); the correctly rounded value matches it except in rare 1-ulp cases
//
// Each op is evaluated in double and rounded to float32 by a cast. For + - x / on float32
// operands this double rounding is innocuous (53 >= 2 * 24 + 2 bits, Figueroa 1995), so the
// result is the correctly rounded float32 operation; and because every intermediate is a cast,
// a compiler allowed to contract a*b + c into an fma (-ffp-contract=fast, the GCC default for
// gnu++17) cannot fuse two emulated ops. -ffast-math is not supported.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace posenc::hf32 {

/// fl(x): x rounded to float32, nearest even. |x| > 3.4028235e38 gives +-inf.
inline float round(double x) noexcept { return static_cast<float>(x); }

/// a (+) b: the float32 sum, rounded once.
inline float add(float a, float b) noexcept
{
    return static_cast<float>(static_cast<double>(a) + static_cast<double>(b));
}
/// a (-) b: the float32 difference, rounded once.
inline float sub(float a, float b) noexcept
{
    return static_cast<float>(static_cast<double>(a) - static_cast<double>(b));
}
/// a (x) b: the float32 product, rounded once (the double product of two floats is exact).
inline float mul(float a, float b) noexcept
{
    return static_cast<float>(static_cast<double>(a) * static_cast<double>(b));
}
/// a (/) b: the float32 quotient, rounded once.
inline float div(float a, float b) noexcept
{
    return static_cast<float>(static_cast<double>(a) / static_cast<double>(b));
}
/// pow32(x, y) = fl(x^y), x^y evaluated in double (glibc pow, < 1 ulp of double).
inline float pow(float x, float y) noexcept
{
    return static_cast<float>(std::pow(static_cast<double>(x), static_cast<double>(y)));
}

/// e_j = fl(2j) (/) fl(R), j = 0 .. R/2 - 1: Hugging Face's `torch.arange(0, R, 2).float() / R`.
inline std::vector<float> default_exponents(int rotary_dim)
{
    std::vector<float> e(static_cast<std::size_t>(rotary_dim / 2));
    for (std::size_t j = 0; j < e.size(); ++j)
        e[j] = div(round(2.0 * static_cast<double>(j)), round(static_cast<double>(rotary_dim)));
    return e;
}

/// p_j = pow32(fl(base), e_j): Hugging Face's `base ** (arange / R)` ("pos_freqs").
inline std::vector<float> pos_freqs(double base, int rotary_dim)
{
    std::vector<float> p = default_exponents(rotary_dim);
    const float b = round(base);
    for (float& x : p) x = pow(b, x);
    return p;
}

/// The default inverse frequencies inv_j = 1 (/) p_j (HF `_compute_default_rope_parameters`,
/// H2 (docs/formulas.md)). Check values b = 1e4, R = 128: inv[1] = 0.865964353.
inline std::vector<float> default_inv_freq(double base, int rotary_dim)
{
    std::vector<float> p = pos_freqs(base, rotary_dim);
    for (float& x : p) x = div(1.0f, x);
    return p;
}

}  // namespace posenc::hf32
