// SPDX-License-Identifier: MIT
// posenc/kernels/angle_cache.hpp: CosSinCache, a float table of cos/sin for a range of positions.
//
// Row of position m (one per position, 2 * num_pairs floats, contiguous):
//
//     [ a cos(m theta_0) ... a cos(m theta_{P-1}) | a sin(m theta_0) ... a sin(m theta_{P-1}) ]
//
// with a = the table's attention factor folded in (so the kernel multiplies by nothing else).
// The same half-width row serves both pairings (the kernel duplicates it in registers for
// interleaved pairs). Each value is cos_sin() of angles.hpp (exact reduction of m * theta_i in
// double, error < 5e-15) rounded once to float: error <= half an ulp of the value (<= 2^-25 for
// a = 1, < 3.0e-8) plus 5e-15 * a, at every position the cache holds, however large. The same
// layout as vLLM's cos_sin_cache, but always float32 and built from exact angles.
//
// Memory: num_positions * num_pairs * 8 bytes (Qwen3-8B, 64 pairs: 512 bytes per position, 16 MiB
// for 32,768 positions). For positions beyond what a table should hold, use OnTheFlyAngles.
// Immutable after construction: one cache may be shared by any number of threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "posenc/angles.hpp"
#include "posenc/error.hpp"
#include "posenc/frequencies.hpp"
#include "posenc/kernels/angle_source.hpp"

namespace posenc::kernels {

namespace detail {

/// Throws unless |m| * theta_i <= 2^50 for every pair and |m| <= max_position (the range of
/// reduced_angle). With max_position <= 2^31 - 1 this asks theta_i <= 2^19.
inline void require_reducible(const FrequencyTable& table, std::int64_t max_abs_position)
{
    const double limit = 1125899906842624.0;  // 2^50
    for (int i = 0; i < table.num_pairs(); ++i)
        if (table.inv_freq(i) * static_cast<double>(max_abs_position) > limit)
            posenc::detail::raise("inv_freq[" + std::to_string(i) + "]", table.inv_freq(i),
                                  "must be <= 2^50 / " + std::to_string(max_abs_position) +
                                      " so that position * inv_freq stays in the exact reduction's range");
}

}  // namespace detail

/// cos/sin (attention factor folded in) for the positions [first_position, first_position + num_positions),
/// as float rows; see the file comment for layout, accuracy and memory.
class CosSinCache
{
public:
    /// Builds the rows from `table`. Throws posenc::error if num_positions < 1, first_position is
    /// outside [0, max_kernel_position], the last position exceeds max_kernel_position (2^31 - 1), or some inv_freq is too large
    /// for exact reduction at the last position (theta_i * last > 2^50).
    CosSinCache(const FrequencyTable& table, std::int64_t num_positions, std::int64_t first_position = 0)
        : table_(table), num_pairs_(table.num_pairs()), first_(first_position), count_(num_positions)
    {
        posenc::detail::require(num_positions >= 1, "num_positions", num_positions, "must be >= 1");
        posenc::detail::require(first_position >= 0, "first_position", first_position, "must be >= 0");
        posenc::detail::require(first_position <= max_kernel_position, "first_position", first_position,
                                "must be <= 2147483647 (max_kernel_position)");
        posenc::detail::require(num_positions - 1 <= max_kernel_position - first_position, "num_positions",
                                num_positions,
                                posenc::detail::cat({"must be <= ", max_kernel_position - first_position + 1,
                                                     " so that the last position stays <= 2^31 - 1"})
                                    .c_str());
        detail::require_reducible(table, first_position + num_positions - 1);
        const std::size_t row = 2 * static_cast<std::size_t>(num_pairs_);
        values_.resize(static_cast<std::size_t>(num_positions) * row);
        for (std::int64_t k = 0; k < num_positions; ++k) {
            float* r = values_.data() + static_cast<std::size_t>(k) * row;
            for (int i = 0; i < num_pairs_; ++i) {
                const CosSin cs = posenc::cos_sin(table, first_position + k, i);
                r[i] = static_cast<float>(cs.cos);
                r[num_pairs_ + i] = static_cast<float>(cs.sin);
            }
        }
    }

    int num_pairs() const noexcept { return num_pairs_; }
    std::int64_t num_positions() const noexcept { return count_; }
    std::int64_t first_position() const noexcept { return first_; }
    /// [first_position, first_position + num_positions - 1].
    PositionRange position_range() const noexcept { return {first_, first_ + count_ - 1}; }
    const char* name() const noexcept { return "CosSinCache"; }
    /// The frequency table the cache was built from (its copy).
    const FrequencyTable& frequencies() const noexcept { return table_; }
    /// Bytes held by the float rows.
    std::size_t memory_bytes() const noexcept { return values_.size() * sizeof(float); }

    /// num_pairs() cos values of `position`. Precondition: position_range().contains(position).
    const float* cos_row(std::int64_t position) const noexcept
    {
        return values_.data() + static_cast<std::size_t>(position - first_) * 2 * static_cast<std::size_t>(num_pairs_);
    }
    /// num_pairs() sin values of `position`. Precondition: position_range().contains(position).
    const float* sin_row(std::int64_t position) const noexcept { return cos_row(position) + num_pairs_; }

    /// Rows point into the cache: the scratch arrays of row() are never written.
    static constexpr bool row_uses_scratch = false;

    /// The angle-source protocol (angle_source.hpp): pointers into the row, no scratch used.
    template <class Arch>
    AngleRow row(Arch, std::int64_t position, int pair_begin, int /*count*/, float* /*scratch_cos*/,
                 float* /*scratch_sin*/) const noexcept
    {
        const float* c = cos_row(position);
        return {c + pair_begin, c + num_pairs_ + pair_begin};
    }

private:
    FrequencyTable table_;
    int num_pairs_;
    std::int64_t first_;
    std::int64_t count_;
    std::vector<float> values_;
};

}  // namespace posenc::kernels
