// SPDX-License-Identifier: MIT
// posenc/kernels/on_the_fly_angles.hpp: OnTheFlyAngles, cos/sin for any position up to 2^31 - 1
// without an O(N) table, by splitting the position into digits and adding angles.
//
// Split. Write |m| in base 2^b with L digits:  |m| = d_0 + d_1 2^b + ... + d_{L-1} 2^{(L-1)b}.
// Level k holds, for every digit value d and pair i, in double (angles.hpp's exact reduction,
// error < 5e-15),
//
//     C_k[d][i] + j S_k[d][i] = a_k * exp(j * (d 2^{kb}) theta_i),   a_0 = attention factor, a_k = 1 (k > 0)
//
// and by angle addition a * exp(j m theta_i) = prod_k (C_k + j S_k)[d_k][i], evaluated in double
// (L - 1 complex products per pair) and rounded once to float (docs/formulas.md, "Kernels"). A
// negative m uses |m| and negates sin.
//
// Two levels is the high/low split: m = hi * 2^b + lo, O(sqrt N) rows per pair. The default
// picks L = ceil(bits(max_position) / 11) levels of b = ceil(bits / L) bits, so 2^31 - 1 takes
// three 11-bit digits (2,048 + 2,048 + 512 rows, O(N^(1/3))): 4.5 MiB for 64 pairs, where two
// 16-bit levels would take 98,304 rows (96 MiB). Pass `levels` to choose.
//
// Error (absolute, against a * cos/sin of the exact real angle):
//   table entries < 5e-15 a each; each complex product adds < 3 * 2^-53 relative (|z| = 1);
//   total before the float rounding < L * 6e-15 a; after it <= half an ulp of the value
//   (<= 2^-25 for a = 1) + L * 6e-15 a, at every position in range, whatever its size.
// Work per token: (L - 1) complex multiplies in double per pair, vectorised, once per token and
// shared by every head. Immutable after construction: safe to share between threads.
#pragma once

#define POSENC_KERNELS_DETAIL_ALLOWED 1  // this public header may include posenc/kernels/detail/*.hpp

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "posenc/config.hpp"
#include "posenc/angles.hpp"
#include "posenc/error.hpp"
#include "posenc/frequencies.hpp"
#include "posenc/kernels/angle_cache.hpp"
#include "posenc/kernels/angle_source.hpp"
#include "posenc/kernels/digit_product.hpp"
#include "posenc/kernels/detail/simd_ops.hpp"

namespace posenc::kernels {

/// cos/sin (attention factor folded in) for every position in [-max_position, max_position],
/// from L small double tables combined by angle addition; see the file comment.
class OnTheFlyAngles
{
public:
    /// Throws posenc::error if max_position is outside [1, 2^31 - 1], levels is outside [0, 4]
    /// (0 = automatic) or leaves a level with more than 2^24 rows, or some inv_freq is too
    /// large for exact reduction (theta_i * max_position > 2^50).
    explicit OnTheFlyAngles(const FrequencyTable& table, std::int64_t max_position = max_kernel_position,
                            int levels = 0)
        : table_(table), num_pairs_(table.num_pairs()), max_position_(max_position)
    {
        posenc::detail::require(max_position >= 1 && max_position <= max_kernel_position, "max_position", max_position,
                                "must be in [1, 2147483647]");
        posenc::detail::require(levels >= 0 && levels <= 4, "levels", levels, "must be in [0, 4] (0 = automatic)");
        detail::require_reducible(table, max_position);
        int bits = 0;
        while ((max_position >> bits) != 0) ++bits;  // bit length of max_position, 1..31
        levels_ = levels != 0 ? levels : std::max(1, (bits + 10) / 11);
        levels_ = std::min(levels_, bits);
        bits_per_level_ = (bits + levels_ - 1) / levels_;
        posenc::detail::require(
            bits_per_level_ <= 24, "levels", levels,
            posenc::detail::cat({"must leave at most 2^24 rows per level; max_position needs ", bits, " bits"})
                .c_str());

        const std::size_t row = 2 * static_cast<std::size_t>(num_pairs_);
        std::size_t total_rows = 0;
        for (int k = 0; k < levels_; ++k) {
            offset_[k] = total_rows * row;
            const std::int64_t highest_digit = std::min<std::int64_t>((max_position >> (k * bits_per_level_)),
                                                                      (std::int64_t {1} << bits_per_level_) - 1);
            total_rows += static_cast<std::size_t>(highest_digit) + 1;
        }
        values_.resize(total_rows * row);
        for (int k = 0; k < levels_; ++k) {
            const std::size_t rows = (k + 1 < levels_ ? offset_[k + 1] : values_.size()) - offset_[k];
            const double factor = k == 0 ? table.attention_factor() : 1.0;
            for (std::size_t d = 0; d < rows / row; ++d) {
                const std::int64_t digit_position = static_cast<std::int64_t>(d) << (k * bits_per_level_);
                double* r = values_.data() + offset_[k] + d * row;
                for (int i = 0; i < num_pairs_; ++i) {
                    const CosSin cs = posenc::cos_sin(digit_position, table.inv_freq(i), factor);
                    r[i] = cs.cos;
                    r[num_pairs_ + i] = cs.sin;
                }
            }
        }
    }

    int num_pairs() const noexcept { return num_pairs_; }
    std::int64_t max_position() const noexcept { return max_position_; }
    /// [-max_position, max_position].
    PositionRange position_range() const noexcept { return {-max_position_, max_position_}; }
    const char* name() const noexcept { return "OnTheFlyAngles"; }
    const FrequencyTable& frequencies() const noexcept { return table_; }
    /// Number of digit tables L (2 = the high/low split).
    int levels() const noexcept { return levels_; }
    /// Bits per digit b; level k covers bits [k b, (k + 1) b) of |position|.
    int bits_per_level() const noexcept { return bits_per_level_; }
    /// Bytes held by the double tables.
    std::size_t memory_bytes() const noexcept { return values_.size() * sizeof(double); }
    /// Rows of level k's table (0 <= level < levels()): digit values 0 .. level_rows(k) - 1.
    std::size_t level_rows(int level) const noexcept
    {
        POSENC_ASSERT(level >= 0 && level < levels_);
        const std::size_t end = level + 1 < levels_ ? offset_[level + 1] : values_.size();
        return (end - offset_[level]) / (2 * static_cast<std::size_t>(num_pairs_));
    }
    /// Level k's table, level_rows(k) rows of 2 * num_pairs() doubles: row d holds
    /// a_k cos(d 2^(k b) theta_i) for every pair i, then a_k sin(d 2^(k b) theta_i) (see the file
    /// comment), so that a device copy can form the same digit products (posenc.torch).
    const double* level_values(int level) const noexcept
    {
        POSENC_ASSERT(level >= 0 && level < levels_);
        return values_.data() + offset_[level];
    }

    /// a * (cos, sin)(position * theta_pair) in double, by the same digit products as row().
    /// Preconditions: |position| <= max_position(), 0 <= pair < num_pairs(). Error < L * 6e-15 a.
    CosSin cos_sin(std::int64_t position, int pair) const noexcept
    {
        POSENC_ASSERT(position >= -max_position() && position <= max_position());
        const std::int64_t m = position < 0 ? -position : position;
        const double* rows[4] = {};
        for (int k = 0; k < levels_; ++k) rows[k] = digit_row<void>(k, m);
        const CosSin cs = digit_product<void>(rows, pair);
        return {cs.cos, position < 0 ? -cs.sin : cs.sin};
    }

    /// The angle-source protocol (angle_source.hpp): fills scratch_cos / scratch_sin with `count`
    /// float values of pairs [pair_begin, pair_begin + count), vectorised for Arch.
    template <class Arch>
    AngleRow row(Arch, std::int64_t position, int pair_begin, int count, float* scratch_cos,
                 float* scratch_sin) const noexcept
    {
        using vec = detail::simd::doubles<Arch>;
        constexpr int lanes = detail::simd::double_lanes<Arch>;
        const std::int64_t m = position < 0 ? -position : position;
        const vec sign(position < 0 ? -1.0 : 1.0);
        const double* rows[4] = {};
        for (int k = 0; k < levels_; ++k) rows[k] = digit_row<Arch>(k, m) + pair_begin;
        const std::ptrdiff_t sin_offset = num_pairs_;
        int j = 0;
        for (; j + lanes <= count; j += lanes) {
            vec c = vec::load_unaligned(rows[0] + j);
            vec s = vec::load_unaligned(rows[0] + sin_offset + j);
            for (int k = 1; k < levels_; ++k) {
                const vec ck = vec::load_unaligned(rows[k] + j);
                const vec sk = vec::load_unaligned(rows[k] + sin_offset + j);
                const vec next_c = detail::simd::mul_sub<Arch>(c, ck, s * sk);
                s = detail::simd::mul_add<Arch>(s, ck, c * sk);
                c = next_c;
            }
            detail::simd::store_as_float<Arch>(scratch_cos + j, c);
            detail::simd::store_as_float<Arch>(scratch_sin + j, s * sign);
        }
        for (; j < count; ++j) {  // fewer than `lanes` pairs left: the same products, one pair at a time
            const CosSin cs = digit_product<Arch>(rows, j);
            scratch_cos[j] = static_cast<float>(cs.cos);
            scratch_sin[j] = static_cast<float>(position < 0 ? -cs.sin : cs.sin);
        }
        return {scratch_cos, scratch_sin};
    }

private:
    // Templates on the arch only so that per-ISA translation units (dispatch.hpp) each get their own copy.
    template <class Arch>
    const double* digit_row(int level, std::int64_t m) const noexcept
    {
        const std::int64_t digit = (m >> (level * bits_per_level_)) & ((std::int64_t {1} << bits_per_level_) - 1);
        return values_.data() + offset_[level] +
               static_cast<std::size_t>(digit) * 2 * static_cast<std::size_t>(num_pairs_);
    }

    /// The digit products prod_k (C_k + j S_k) of element j of the levels' rows (cos at j, sin at
    /// num_pairs + j), in double, for |position| (digit_product.hpp).
    template <class Arch>
    POSENC_ALWAYS_INLINE CosSin digit_product(const double* const* rows, std::ptrdiff_t j) const noexcept
    {
        return detail::digit_product<Arch>(rows, levels_, num_pairs_, j);
    }

    FrequencyTable table_;
    int num_pairs_;
    std::int64_t max_position_;
    int levels_ = 1;
    int bits_per_level_ = 31;
    std::size_t offset_[4] = {0, 0, 0, 0};
    std::vector<double> values_;
};

}  // namespace posenc::kernels
