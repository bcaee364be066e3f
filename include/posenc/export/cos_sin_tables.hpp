// SPDX-License-Identifier: MIT
// posenc/export/cos_sin_tables.hpp: cos/sin tables in the layouts inference engines load, built
// from exactly reduced angles.
//
// Every entry is  a cos(m theta_i)  or  a sin(m theta_i)  for position m and pair i of a
// FrequencyTable (a = its attention factor), computed by cos_sin() of angles.hpp (m theta_i
// reduced exactly modulo 2 pi in double; error < 5e-15 a) and then converted once to T:
// T = double keeps that error; T = float adds at most half an ulp of the value (<= 2^-25 a for
// |value| <= a). The error does not grow with the position. (An engine's own float32 table forms
// fl(m) * fl(theta_i) in float32 and is 6e-2 rad off near m = 1e6: docs/export.md measures both.)
//
// With P = table.num_pairs() and R = 2P (the rotary dimension), the rows are the positions
// first_position .. first_position + num_positions - 1, row-major:
//
//   vLLM's cos_sin_cache          [num_positions, R]; row m =
//                                     [a cos(m theta_0) .. a cos(m theta_{P-1}) | a sin(m theta_0) .. a sin(m theta_{P-1})]
//                                 Source: vLLM vllm/model_executor/layers/rotary_embedding/base.py,
//                                 RotaryEmbedding._compute_cos_sin_cache: freqs = outer(t, inv_freq)
//                                 ([max_position, R/2]), cache = cat((cos, sin), -1), kept in the
//                                 model's dtype; the YaRN and LongRoPE classes multiply cos and sin
//                                 by their mscale (here a). Both pairings read the same cache.
//   FlashInfer's cos_sin_cache    the same layout in float32 (flashinfer/rope.py,
//                                 apply_rope_with_cos_sin_cache: cos in the first half of
//                                 rotary_dim, sin in the second; float32 required).
//   transformers' (cos, sin)      two [num_positions, R] tables; row m of cos =
//                                     [a cos(m theta_0) .. a cos(m theta_{P-1}), a cos(m theta_0) .. a cos(m theta_{P-1})]
//                                 (and sin alike). Source: transformers models/llama/modeling_llama.py,
//                                 LlamaRotaryEmbedding.forward: emb = cat((freqs, freqs), -1),
//                                 cos = emb.cos() * attention_scaling.
//
// Range (posenc::error naming the argument otherwise): num_positions >= 1, first_position >= 0,
// the last position <= 2^31 - 1 (max_export_position) and within the exact reduction's range for
// every theta_i (|m theta_i| <= 2^50), and at most max_export_entries entries per table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "posenc/angles.hpp"
#include "posenc/error.hpp"
#include "posenc/frequencies.hpp"

namespace posenc::exports {

/// The largest position a table may hold: 2^31 - 1 (an int32 position id, as the engines use).
inline constexpr std::int64_t max_export_position = 2147483647;

/// The most entries (num_positions * R) one exported table may hold: 2^31 (8 GiB of float32).
inline constexpr std::int64_t max_export_entries = std::int64_t {1} << 31;

namespace detail {

/// Throws posenc::error unless the rows [first_position, first_position + num_positions) can be
/// exported from `table` (see the file comment's range).
inline void require_rows(const FrequencyTable& table, std::int64_t num_positions, std::int64_t first_position)
{
    posenc::detail::require(num_positions >= 1, "num_positions", num_positions, "must be >= 1");
    posenc::detail::require(first_position >= 0, "first_position", first_position, "must be >= 0");
    posenc::detail::require(first_position <= max_export_position, "first_position", first_position,
                            "must be <= 2147483647 (2^31 - 1)");
    if (num_positions - 1 > max_export_position - first_position)
        posenc::detail::raise("num_positions", num_positions,
                              "must be <= " + std::to_string(max_export_position - first_position + 1) +
                                  " so that the last position stays <= 2^31 - 1");
    const std::int64_t width = 2 * static_cast<std::int64_t>(table.num_pairs());
    if (num_positions > max_export_entries / width)
        posenc::detail::raise("num_positions", num_positions,
                              "must be <= " + std::to_string(max_export_entries / width) +
                                  " (at most 2^31 entries per table at rotary_dim " + std::to_string(width) + ")");
    require_exact_angle_range("position", first_position + num_positions - 1, table);
}

/// Calls write(row, pair, cos, sin) for every position row and pair, cos/sin with a folded in.
template <class Write>
void for_each_cos_sin(const FrequencyTable& table, std::int64_t num_positions, std::int64_t first_position,
                      Write&& write)
{
    require_rows(table, num_positions, first_position);
    for (std::int64_t row = 0; row < num_positions; ++row)
        for (int i = 0; i < table.num_pairs(); ++i) {
            const CosSin cs = posenc::cos_sin(table, first_position + row, i);
            write(static_cast<std::size_t>(row), static_cast<std::size_t>(i), cs.cos, cs.sin);
        }
}

}  // namespace detail

/// vLLM's cos_sin_cache (file comment): [num_positions, R], cos half then sin half, as T
/// (float or double). Throws posenc::error outside the file comment's range.
template <class T = double>
std::vector<T> vllm_cos_sin_cache(const FrequencyTable& table, std::int64_t num_positions,
                                  std::int64_t first_position = 0)
{
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "T is float or double");
    const std::size_t pairs = static_cast<std::size_t>(table.num_pairs());
    std::vector<T> out;
    detail::require_rows(table, num_positions, first_position);
    out.resize(static_cast<std::size_t>(num_positions) * 2 * pairs);
    detail::for_each_cos_sin(table, num_positions, first_position,
                             [&](std::size_t row, std::size_t i, double c, double s) {
                                 out[row * 2 * pairs + i] = static_cast<T>(c);
                                 out[row * 2 * pairs + pairs + i] = static_cast<T>(s);
                             });
    return out;
}

/// FlashInfer's float32 cos_sin_cache: vLLM's layout, always float.
inline std::vector<float> flashinfer_cos_sin_cache(const FrequencyTable& table, std::int64_t num_positions,
                                                   std::int64_t first_position = 0)
{
    return vllm_cos_sin_cache<float>(table, num_positions, first_position);
}

/// transformers' pair of tables, each [num_positions, R], row-major.
template <class T>
struct HfCosSin {
    std::vector<T> cos;
    std::vector<T> sin;
};

/// transformers' (cos, sin) (file comment): the half-width row written twice, as T (float or
/// double). Throws posenc::error outside the file comment's range.
template <class T = double>
HfCosSin<T> hf_cos_sin(const FrequencyTable& table, std::int64_t num_positions, std::int64_t first_position = 0)
{
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "T is float or double");
    const std::size_t pairs = static_cast<std::size_t>(table.num_pairs());
    HfCosSin<T> out;
    detail::require_rows(table, num_positions, first_position);
    out.cos.resize(static_cast<std::size_t>(num_positions) * 2 * pairs);
    out.sin.resize(out.cos.size());
    detail::for_each_cos_sin(table, num_positions, first_position,
                             [&](std::size_t row, std::size_t i, double c, double s) {
                                 const std::size_t at = row * 2 * pairs + i;
                                 out.cos[at] = out.cos[at + pairs] = static_cast<T>(c);
                                 out.sin[at] = out.sin[at + pairs] = static_cast<T>(s);
                             });
    return out;
}

}  // namespace posenc::exports
