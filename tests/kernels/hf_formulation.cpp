// SPDX-License-Identifier: MIT
// The kernel against the Hugging Face formulation written out literally here (the Hugging Face rules of docs/formulas.md;
// transformers modeling_llama / modeling_gptj), evaluated independently in long double:
//
//   inv_freq = 1 / base^(arange(0, R, 2) / R)
//   freqs    = positions[:, None] * inv_freq[None, :]
//   half_split (rotate_half, Llama/NeoX):  emb = cat(freqs, freqs); cos = emb.cos(); sin = emb.sin()
//       q_embed = q * cos + rotate_half(q) * sin,  rotate_half(x) = cat(-x[R/2:], x[:R/2])
//   interleaved (GPT-J rotate_every_two):  cos/sin repeated pairwise (repeat_interleave(2))
//       q_embed = q * cos + rotate_every_two(q) * sin,  rotate_every_two(x)[2i] = -x[2i+1], [2i+1] = x[2i]
//   partial rotary: only q[..., :R] rotates, q[..., R:] is concatenated back unchanged.
//
// At positions below 4096 the long double product position * inv_freq is exact to ~1e-16, so
// this is the exact RoPE of the HF definition; the float kernel must be within 4 ulp of |x| per
// pair (apply.hpp). This fixes which coordinates pair up, the sign of sin and the pass-through.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernel_test_support.hpp"

namespace kernels_hf_formulation_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using namespace posenc::kernels;

std::vector<long double> hf_rope(const std::vector<float>& q, int rotary_dim, double base, std::int64_t position,
                                 bool half_split)
{
    const int half = rotary_dim / 2;
    std::vector<long double> cos_emb(static_cast<std::size_t>(rotary_dim)),
        sin_emb(static_cast<std::size_t>(rotary_dim));
    for (int i = 0; i < half; ++i) {
        const long double inv_freq = 1.0L / std::pow(static_cast<long double>(base), (2.0L * i) / rotary_dim);
        const long double angle = static_cast<long double>(position) * inv_freq;
        const int j0 = half_split ? i : 2 * i, j1 = half_split ? i + half : 2 * i + 1;
        cos_emb[static_cast<std::size_t>(j0)] = cos_emb[static_cast<std::size_t>(j1)] = std::cos(angle);
        sin_emb[static_cast<std::size_t>(j0)] = sin_emb[static_cast<std::size_t>(j1)] = std::sin(angle);
    }
    std::vector<long double> rotated(static_cast<std::size_t>(rotary_dim));
    for (int j = 0; j < rotary_dim; ++j) {
        long double partner;
        if (half_split)
            partner = j < half ? -q[static_cast<std::size_t>(j + half)] : q[static_cast<std::size_t>(j - half)];
        else partner = j % 2 == 0 ? -q[static_cast<std::size_t>(j + 1)] : q[static_cast<std::size_t>(j - 1)];
        rotated[static_cast<std::size_t>(j)] = q[static_cast<std::size_t>(j)] * cos_emb[static_cast<std::size_t>(j)] +
                                               partner * sin_emb[static_cast<std::size_t>(j)];
    }
    std::vector<long double> out(q.begin(), q.end());
    for (int j = 0; j < rotary_dim; ++j) out[static_cast<std::size_t>(j)] = rotated[static_cast<std::size_t>(j)];
    return out;
}

}  // namespace

TEST_CASE("[Hugging Face] q*cos + rotate_half(q)*sin and GPT-J rotate_every_two, partial rotary, every arch path")
{
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-3.0f, 3.0f);
    struct Model {
        int head_dim, rotary_dim;
        double base;
    };
    // Qwen3-8B (128/128, 1e6), a 25% partial rotary like Qwen3.8-27B (256/64, 1e7), GPT-J-like (256/64, 1e4)
    const Model models[] = {{128, 128, 1e6}, {256, 64, 1e7}, {256, 64, 1e4}, {80, 32, 1e4}};
    for (const kernel_test::ArchPath& path : kernel_test::arch_paths())
        for (const Model& m : models)
            for (bool half_split : {true, false}) {
                const posenc::RopeSpec spec(m.head_dim, m.rotary_dim, m.base,
                                            half_split ? posenc::Pairing::half_split : posenc::Pairing::interleaved);
                const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
                const CosSinCache cache(table, 4096);
                const std::vector<std::int32_t> positions {0, 1, 7, 100, 2047, 4095};
                const std::ptrdiff_t tokens = static_cast<std::ptrdiff_t>(positions.size());
                std::vector<float> q(static_cast<std::size_t>(tokens * m.head_dim));
                for (float& v : q) v = u(rng);
                std::vector<float> out(q.size());
                kernel_test::apply_on(path, spec, cache, PositionIds(positions),
                                      QKViews<float>::out_of_place(HeadsView<const float>(q, {tokens, 1, m.head_dim}),
                                                                   HeadsView<float>(out, {tokens, 1, m.head_dim})));
                for (std::ptrdiff_t t = 0; t < tokens; ++t) {
                    const std::vector<float> head(q.begin() + t * m.head_dim, q.begin() + (t + 1) * m.head_dim);
                    const std::vector<long double> want =
                        hf_rope(head, m.rotary_dim, m.base, positions[static_cast<std::size_t>(t)], half_split);
                    CAPTURE(path.name);
                    CAPTURE(m.head_dim);
                    CAPTURE(m.rotary_dim);
                    CAPTURE(half_split);
                    CAPTURE(positions[static_cast<std::size_t>(t)]);
                    for (int i = 0; i < m.rotary_dim / 2; ++i) {
                        const int a = half_split ? i : 2 * i, b = half_split ? i + m.rotary_dim / 2 : 2 * i + 1;
                        const double norm =
                            std::hypot(head[static_cast<std::size_t>(a)], head[static_cast<std::size_t>(b)]);
                        for (int d : {a, b})
                            CHECK(std::fabs(out[static_cast<std::size_t>(t * m.head_dim + d)] -
                                            want[static_cast<std::size_t>(d)]) <= 4 * kernel_test::float_ulp(norm));
                    }
                    for (int d = m.rotary_dim; d < m.head_dim; ++d)  // pass-through copied exactly
                        CHECK(out[static_cast<std::size_t>(t * m.head_dim + d)] == head[static_cast<std::size_t>(d)]);
                }
            }
}

}  // namespace kernels_hf_formulation_tests
