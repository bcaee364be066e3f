// SPDX-License-Identifier: MIT
// The DeepSeek-V4 engine recipe of docs/models.md ("DeepSeek-V4: compressed keys and the inverse
// rope on the output"), run with the SIMD kernels and checked against the scalar reference
// (apply_rope_reference on RopeSpec::suffix(512, 64, ...), the rotated slice at offset 448):
//   - compressed KV entry w rotates at position w * compress_rate (Hugging Face
//     models/deepseek_v4/modeling_deepseek_v4.py: positions = arange(n_windows) * compress_rate
//     + first_window_position, first_window_position = entry_count * compress_rate);
//   - the compress rope's attention factor is 1 whatever its YaRN says;
//   - the attention output's rope slice is rotated back at the query's position
//     (apply_rotary_pos_emb(attn_output, cos, -sin)).
// Bound: the kernels' float error, <= 4 ulp of A |x| per coordinate (kernels/apply.hpp), A = 1.
#include <posenc/kernels.hpp>
#include <posenc/rotation.hpp>
#include <posenc/scaling/scaling.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace recipes_deepseek_v4_compress_recipe_tests {  // per-file namespace: a folder builds as one unit

namespace k = posenc::kernels;

constexpr int head_dim = 512, rope_dim = 64, heads = 2;
constexpr std::int64_t compress_rate = 128;

/// The compress rope of the recipe: interleaved, base compress_rope_theta, YaRN's frequencies,
/// attention factor 1.
posenc::FrequencyTable compress_table(const posenc::RopeSpec& rope)
{
    const posenc::FrequencyTable yarn = posenc::frequency_table(rope, posenc::YarnScaling(16.0, 65536));
    return posenc::FrequencyTable(yarn.inv_freq(), 1.0);
}

/// The rotated slice of every head of a [tokens, heads, 512] buffer: coordinates [448, 512).
k::HeadsView<float> rope_slice(std::vector<float>& buffer, std::int64_t tokens)
{
    return k::HeadsView<float>(buffer.data() + (head_dim - rope_dim),
                               static_cast<std::ptrdiff_t>(buffer.size()) - (head_dim - rope_dim),
                               {tokens, heads, rope_dim}, {heads * head_dim, head_dim});
}

std::vector<float> test_buffer(std::int64_t tokens)
{
    std::vector<float> b(static_cast<std::size_t>(tokens * heads * head_dim));
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i)));
    return b;
}

TEST_CASE("[scalar reference] compressed entries w = 3..10 rotate at w * 128 on the last 64 of 512 coordinates")
{
    const posenc::RopeSpec rope(rope_dim, rope_dim, 160000.0, posenc::Pairing::interleaved);
    const posenc::FrequencyTable table = compress_table(rope);
    const k::OnTheFlyAngles angles(table);
    const std::int64_t first_entry = 3, n = 8;
    std::vector<float> compressed = test_buffer(n);
    const std::vector<float> original = compressed;
    std::vector<std::int64_t> positions(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) positions[static_cast<std::size_t>(i)] = (first_entry + i) * compress_rate;
    k::apply_rope(rope, angles, k::PositionIds(positions), k::QKViews<float>::in_place(rope_slice(compressed, n)));

    const posenc::RopeSpec whole_head =
        posenc::RopeSpec::suffix(head_dim, rope_dim, 160000.0, posenc::Pairing::interleaved);
    for (std::int64_t t = 0; t < n; ++t)
        for (int h = 0; h < heads; ++h) {
            const std::size_t at = static_cast<std::size_t>((t * heads + h) * head_dim);
            std::vector<double> want(original.begin() + static_cast<std::ptrdiff_t>(at),
                                     original.begin() + static_cast<std::ptrdiff_t>(at + head_dim));
            posenc::apply_rope_reference(whole_head, table, want.data(), (first_entry + t) * compress_rate);
            for (int d = 0; d < head_dim - rope_dim; ++d)
                CHECK(compressed[at + static_cast<std::size_t>(d)] == original[at + static_cast<std::size_t>(d)]);
            for (int d = head_dim - rope_dim; d < head_dim; d += 2) {
                const double pair =
                    std::hypot(want[static_cast<std::size_t>(d)], want[static_cast<std::size_t>(d + 1)]);
                for (int c : {d, d + 1})
                    CHECK(std::abs(compressed[at + static_cast<std::size_t>(c)] - want[static_cast<std::size_t>(c)]) <=
                          4.0 * std::ldexp(pair, -24) + 1e-30);
            }
        }
}

TEST_CASE("[scalar reference] the output's rope slice rotated back at the query positions (Direction::inverse)")
{
    const posenc::RopeSpec rope(rope_dim, rope_dim, 160000.0, posenc::Pairing::interleaved);
    const posenc::FrequencyTable table = compress_table(rope);
    const k::OnTheFlyAngles angles(table);
    const std::vector<std::int64_t> queries {1000, 1001, 65535, 2147483647};
    const std::int64_t n = static_cast<std::int64_t>(queries.size());
    std::vector<float> output = test_buffer(n);
    const std::vector<float> original = output;
    k::apply_rope(rope, angles, k::PositionIds(queries), k::QKViews<float>::in_place(rope_slice(output, n)),
                  k::Direction::inverse);
    const posenc::RopeSpec whole_head =
        posenc::RopeSpec::suffix(head_dim, rope_dim, 160000.0, posenc::Pairing::interleaved);
    for (std::int64_t t = 0; t < n; ++t)
        for (int h = 0; h < heads; ++h) {
            const std::size_t at = static_cast<std::size_t>((t * heads + h) * head_dim);
            std::vector<double> want(original.begin() + static_cast<std::ptrdiff_t>(at),
                                     original.begin() + static_cast<std::ptrdiff_t>(at + head_dim));
            posenc::apply_rope_reference(whole_head, table, want.data(), -queries[static_cast<std::size_t>(t)]);
            for (int d = head_dim - rope_dim; d < head_dim; d += 2) {
                const double pair =
                    std::hypot(want[static_cast<std::size_t>(d)], want[static_cast<std::size_t>(d + 1)]);
                for (int c : {d, d + 1})
                    CHECK(std::abs(output[at + static_cast<std::size_t>(c)] - want[static_cast<std::size_t>(c)]) <=
                          4.0 * std::ldexp(pair, -24) + 1e-30);
            }
        }
}

}  // namespace recipes_deepseek_v4_compress_recipe_tests
