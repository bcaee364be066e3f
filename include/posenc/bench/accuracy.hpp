// SPDX-License-Identifier: MIT
// posenc/bench/accuracy.hpp: any RoPE kernel's error at long positions against posenc's exact
// reference.
//
// The problem (RopeProblem): a [tokens, heads, head_dim] tensor, contiguous, rotated in place by
// a RopeSpec and its FrequencyTable (the pairing, the rotated slice, inv_freq and the attention
// factor A the kernel under test must implement). The kernel is any callable
//     kernel(T* data, const std::int64_t* positions)
// that rotates data in place, token t to positions[t].
//
// check_accuracy runs the kernel once per row of positions: the row for P gives the tokens the
// consecutive positions max(0, P - tokens + 1) ... , so its last token sits at P (default rows
// P = 0, 2^20, 2^24, 2^31 - 1: the short prompt and three long contexts, the last the largest
// position an int32 position id holds). The input is fixed pseudo-random data in [-1, 1). The
// expected output is apply_rope_reference (rotation.hpp) in double on the same input: the angle
// reduced exactly (angles.hpp), cos/sin in double, error < 1e-14 |x|.
//
// Error measure, per output coordinate of a rotated pair (a, b):
//     e = |out - expected| / (A |(a, b)|)            (relative to the pair's rotated length)
// and per pass-through coordinate |out - in| / |in| (any change when in is 0); a non-finite
// output is an infinite error. A row passes when its largest e is <= the tolerance.
//
// Tolerance (default_tolerance<T>): posenc's own error bound for the storage type, so that "pass"
// means "as accurate as posenc's kernel is guaranteed to be": float 4 u (u = 2^-24; apply.hpp
// proves 3.41 u); bfloat16 4 u + 2^-8 and float16 4 u + 2^-11 (the final rounding of the 16-bit
// format, half its ulp); double 2e-14 (two double paths each within 1e-14).
//
// Why long positions: a kernel that forms the angle as float(position) * float(inv_freq) loses
// it once position * inv_freq is large (at 2^24 the float spacing of the angle of pair 0 is 2
// radians): its error is then of the order of |x| itself, whatever its rotation code.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/frequencies.hpp"
#include "posenc/kernels/dtypes.hpp"
#include "posenc/rotation.hpp"
#include "posenc/spec.hpp"

namespace posenc::bench {

/// One benchmark problem: the rotation and the tensor's shape; see the file comment.
struct RopeProblem {
    RopeSpec spec;
    FrequencyTable table;
    int tokens = 1;
    int heads = 1;

    /// Elements of the [tokens, heads, head_dim] tensor.
    std::size_t elements() const noexcept
    {
        return static_cast<std::size_t>(tokens) * static_cast<std::size_t>(heads) *
               static_cast<std::size_t>(spec.head_dim());
    }
};

/// One row of positions and what the kernel got wrong on it.
struct AccuracyRow {
    std::int64_t last_position = 0;  ///< the row's largest position (its tokens end here)
    double max_error = 0;  ///< largest e (see the file comment); infinity for a non-finite output
    double tolerance = 0;
    bool pass() const noexcept { return max_error <= tolerance; }
};

/// 2^31 - 1: the largest position an int32 position id holds.
inline constexpr std::int64_t max_int32_position = 2147483647;

/// The default rows: 0, 2^20, 2^24, 2^31 - 1.
inline std::vector<std::int64_t> long_positions()
{
    return {0, std::int64_t(1) << 20, std::int64_t(1) << 24, max_int32_position};
}

/// posenc's own error bound for storage type T (see the file comment).
template <class T>
double default_tolerance() noexcept
{
    constexpr double u = 5.9604644775390625e-08;  // 2^-24
    if constexpr (std::is_same_v<T, double>) return 2e-14;
    else if constexpr (std::is_same_v<T, posenc::bfloat16>) return 4 * u + 0.00390625;  // + 2^-8
    else if constexpr (std::is_same_v<T, posenc::float16>) return 4 * u + 0.00048828125;  // + 2^-11
    else return 4 * u;
}

namespace detail {

template <class T>
double as_double(T x) noexcept
{
    if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) return static_cast<double>(x);
    else return static_cast<double>(posenc::load_as_float(x));
}

template <class T>
T from_double(double x) noexcept
{
    if constexpr (std::is_same_v<T, double>) return x;
    else return posenc::store_from_float<T>(static_cast<float>(x));
}

/// Fixed pseudo-random values in [-1, 1) (a 64-bit linear congruential generator), stored as T.
template <class T>
std::vector<T> sample_input(std::size_t n)
{
    std::vector<T> v(n);
    std::uint64_t s = 0x9e3779b97f4a7c15u;
    for (auto& x : v) {
        s = s * 6364136223846793005u + 1442695040888963407u;
        x = from_double<T>(static_cast<double>(s >> 11) * 0x1.0p-52 - 1.0);
    }
    return v;
}

/// The positions of the row that ends at `last`.
inline std::vector<std::int64_t> row_positions(std::int64_t last, int tokens)
{
    const std::int64_t first = std::max<std::int64_t>(0, last - tokens + 1);
    std::vector<std::int64_t> p(static_cast<std::size_t>(tokens));
    for (int t = 0; t < tokens; ++t) p[static_cast<std::size_t>(t)] = first + t;
    return p;
}

/// The largest e of one head (see the file comment).
template <class T>
double head_error(const RopeProblem& p, const T* in, const T* out, const double* expected)
{
    const RopeSpec& spec = p.spec;
    const double factor = p.table.attention_factor();
    double worst = 0;
    std::vector<bool> rotated(static_cast<std::size_t>(spec.head_dim()), false);
    for (int i = 0; i < spec.num_pairs(); ++i) {
        const PairCoordinates c = spec.pair_coordinates(i);
        rotated[static_cast<std::size_t>(c.first)] = rotated[static_cast<std::size_t>(c.second)] = true;
        const double length = std::fabs(factor) * std::hypot(as_double(in[c.first]), as_double(in[c.second]));
        for (int d : {c.first, c.second}) {
            const double e = std::fabs(as_double(out[d]) - expected[d]);
            if (!std::isfinite(as_double(out[d]))) return std::numeric_limits<double>::infinity();
            if (e > 0) worst = std::max(worst, length > 0 ? e / length : std::numeric_limits<double>::infinity());
        }
    }
    for (int d = 0; d < spec.head_dim(); ++d) {
        if (rotated[static_cast<std::size_t>(d)]) continue;
        const double a = as_double(in[d]), b = as_double(out[d]);
        if (!(a == b))
            worst = std::max(worst, a != 0 ? std::fabs(b - a) / std::fabs(a) : std::numeric_limits<double>::infinity());
    }
    return worst;
}

}  // namespace detail

/// The kernel's largest error on each row of `last_positions` (see the file comment), against
/// `tolerance` (default: default_tolerance<T>()). T: float, double, posenc::bfloat16 or
/// posenc::float16. Throws posenc::error for tokens or heads < 1, a table whose pairs do not
/// match the spec, a negative position or one beyond the exact reference's range.
template <class T, class Kernel>
std::vector<AccuracyRow> check_accuracy(const RopeProblem& problem, Kernel&& kernel,
                                        const std::vector<std::int64_t>& last_positions = long_positions(),
                                        double tolerance = default_tolerance<T>())
{
    posenc::detail::require(problem.tokens >= 1, "tokens", problem.tokens, "must be >= 1");
    posenc::detail::require(problem.heads >= 1, "heads", problem.heads, "must be >= 1");
    posenc::detail::require(problem.table.num_pairs() == problem.spec.num_pairs(), "table.num_pairs",
                            problem.table.num_pairs(), "must equal spec.num_pairs");
    const std::size_t head_dim = static_cast<std::size_t>(problem.spec.head_dim());
    const std::vector<T> input = detail::sample_input<T>(problem.elements());
    std::vector<AccuracyRow> rows;
    for (const std::int64_t last : last_positions) {
        posenc::detail::require(last >= 0, "position", last, "must be >= 0");
        const std::vector<std::int64_t> positions = detail::row_positions(last, problem.tokens);
        std::vector<T> data = input;
        std::vector<double> expected(head_dim);
        kernel(data.data(), positions.data());
        AccuracyRow row {last, 0, tolerance};
        for (std::size_t h = 0; h < problem.elements() / head_dim; ++h) {
            const T* in = input.data() + h * head_dim;
            for (std::size_t d = 0; d < head_dim; ++d) expected[d] = detail::as_double(in[d]);
            apply_rope_reference(problem.spec, problem.table, expected.data(),
                                 positions[h / static_cast<std::size_t>(problem.heads)]);
            row.max_error =
                std::max(row.max_error, detail::head_error(problem, in, data.data() + h * head_dim, expected.data()));
        }
        rows.push_back(row);
    }
    return rows;
}

}  // namespace posenc::bench
