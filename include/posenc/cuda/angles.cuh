// SPDX-License-Identifier: MIT
// posenc/cuda/angles.cuh: the two angle sources of the CUDA kernels, views of cos/sin values the
// caller has placed in device memory (or, for the CPU emulation, in host memory).
//
//   TableAngles   a CosSinCache's float rows, gathered by position:
//                 row of position m at rows + (m - first) * 2P: [a cos(m theta_0) .. | a sin(m theta_0) ..]
//                 (the CPU cache's layout, angle_cache.hpp). One value = the exactly reduced double
//                 angle's cos/sin rounded once to float: error <= 2^-25 a + 5e-15 a.
//   DigitAngles   an OnTheFlyAngles's L double digit tables (O(N^(1/3)) rows: 4.5 MiB for 64 pairs
//                 up to 2^31 - 1); a cos/sin is the product of one row per digit of |m| in double
//                 (digit_product.hpp, the CPU's own scalar step), rounded once to float:
//                 error <= 2^-25 a + L * 6e-15 a at every |m| <= max_position.
// Both are exact to float rounding at every position they serve, up to 2^31 - 1; neither forms
// the float32 product m * theta that loses 6.7e-2 rad at m = 10^6.
//
// Building one. The host object (CosSinCache, OnTheFlyAngles) computes the values; the caller
// copies its bytes (table_bytes / digit_bytes, from table_values / digit_values) into device
// memory it owns and makes the view with that device pointer. With no pointer given the view
// reads the host object itself (the CPU emulation, tests/cuda). posenc allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>

#include "posenc/detail/host_device.hpp"
#include "posenc/kernels/angle_cache.hpp"
#include "posenc/kernels/digit_product.hpp"
#include "posenc/kernels/on_the_fly_angles.hpp"

namespace posenc::cuda {

/// attention_factor * (cos, sin) of one (position, pair), as the kernels use it.
struct FloatCosSin {
    float cos;
    float sin;
};

/// A CosSinCache's rows in device memory; see the file comment.
struct TableAngles {
    const float* rows = nullptr;  ///< (count) rows of 2 * num_pairs floats
    int num_pairs = 0;
    std::int64_t first = 0;  ///< position of row 0
    std::int64_t count = 0;  ///< rows

    /// Whether the table holds position m.
    POSENC_HD bool serves(std::int64_t m) const noexcept { return m >= first && m - first < count; }
    /// cos/sin of pair i at position m. Precondition: serves(m), 0 <= i < num_pairs.
    POSENC_HD FloatCosSin at(std::int64_t m, int i) const noexcept
    {
        const float* row = rows + (m - first) * 2 * static_cast<std::int64_t>(num_pairs);
        return {row[i], row[num_pairs + i]};
    }
};

/// An OnTheFlyAngles's digit tables in device memory; see the file comment.
struct DigitAngles {
    const double* levels[4] = {nullptr, nullptr, nullptr, nullptr};  ///< level k's rows
    int num_levels = 0;
    int bits_per_level = 0;
    int num_pairs = 0;
    std::int64_t max_position = 0;  ///< serves [-max_position, max_position]

    POSENC_HD bool serves(std::int64_t m) const noexcept { return m >= -max_position && m <= max_position; }
    /// cos/sin of pair i at position m (negative m: sin negated). Precondition: serves(m).
    POSENC_HD FloatCosSin at(std::int64_t m, int i) const noexcept
    {
        const std::int64_t magnitude = m < 0 ? -m : m;
        const std::int64_t digit_mask = (std::int64_t {1} << bits_per_level) - 1;
        const double* rows[4] = {};
        for (int k = 0; k < 4; ++k)  // a constant trip count: unrolled, rows[k] stays in registers on the device
            if (k < num_levels)
                rows[k] = levels[k] +
                          ((magnitude >> (k * bits_per_level)) & digit_mask) * 2 * static_cast<std::int64_t>(num_pairs);
        const CosSin cs = kernels::detail::digit_product<void>(rows, num_levels, num_pairs, i);
        return {static_cast<float>(cs.cos), static_cast<float>(m < 0 ? -cs.sin : cs.sin)};
    }
};

/// The bytes to copy to the device for `cache`: table_bytes(cache) from table_values(cache).
inline std::size_t table_bytes(const kernels::CosSinCache& cache) noexcept { return cache.memory_bytes(); }
inline const float* table_values(const kernels::CosSinCache& cache) noexcept
{
    return cache.cos_row(cache.first_position());
}

/// The view of `cache`'s rows copied to `device_rows` (null: the host cache itself, for the CPU emulation).
inline TableAngles table_angles(const kernels::CosSinCache& cache, const float* device_rows = nullptr) noexcept
{
    return {device_rows != nullptr ? device_rows : table_values(cache), cache.num_pairs(), cache.first_position(),
            cache.num_positions()};
}

/// The bytes to copy to the device for `angles`: digit_bytes(angles) from digit_values(angles)
/// (the levels are one contiguous buffer, level 0 first).
inline std::size_t digit_bytes(const kernels::OnTheFlyAngles& angles) noexcept { return angles.memory_bytes(); }
inline const double* digit_values(const kernels::OnTheFlyAngles& angles) noexcept { return angles.level_values(0); }

/// The view of `angles`'s tables copied to `device_values` (null: the host tables, for the CPU emulation).
inline DigitAngles digit_angles(const kernels::OnTheFlyAngles& angles, const double* device_values = nullptr) noexcept
{
    DigitAngles d;
    const double* base = device_values != nullptr ? device_values : digit_values(angles);
    for (int k = 0; k < angles.levels(); ++k) d.levels[k] = base + (angles.level_values(k) - digit_values(angles));
    d.num_levels = angles.levels();
    d.bits_per_level = angles.bits_per_level();
    d.num_pairs = angles.num_pairs();
    d.max_position = angles.max_position();
    return d;
}

}  // namespace posenc::cuda
