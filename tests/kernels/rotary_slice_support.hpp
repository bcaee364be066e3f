// SPDX-License-Identifier: MIT
// Helpers of the tests of rotated slices that do not start the head (rotary_offset), of
// zero-frequency pairs and of per-token query multipliers: strided buffers with guard elements
// around and between the heads, and one comparison of a call's output buffer against an
// expectation given per coordinate. Nothing here computes an expected value.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "kernel_test_support.hpp"

namespace rotary_slice_test {

using namespace posenc::kernels;

inline constexpr std::ptrdiff_t guard = 11;

/// A [tokens, heads, head_dim] tensor with `gap` guard elements between heads, `guard` elements
/// before the first and after the last, in its own buffer.
struct Geometry {
    std::ptrdiff_t tokens;
    std::ptrdiff_t heads;
    std::ptrdiff_t head_dim;
    std::ptrdiff_t gap;
    std::ptrdiff_t head_stride() const { return head_dim + gap; }
    std::ptrdiff_t token_stride() const { return heads * head_stride(); }
    std::ptrdiff_t buffer_size() const { return 2 * guard + tokens * token_stride(); }
    std::ptrdiff_t index(std::ptrdiff_t t, std::ptrdiff_t h, std::ptrdiff_t d) const
    {
        return guard + t * token_stride() + h * head_stride() + d;
    }
};

template <class T>
T guard_value()
{
    return kernel_test::from_double<T>(-333.25);
}

/// Guard values everywhere, values in [-2, 2] in the heads.
template <class T>
std::vector<T> make_buffer(const Geometry& g, std::mt19937& rng)
{
    std::vector<T> buffer(static_cast<std::size_t>(g.buffer_size()), guard_value<T>());
    std::uniform_real_distribution<double> value(-2.0, 2.0);
    for (std::ptrdiff_t t = 0; t < g.tokens; ++t)
        for (std::ptrdiff_t h = 0; h < g.heads; ++h)
            for (std::ptrdiff_t d = 0; d < g.head_dim; ++d)
                buffer[static_cast<std::size_t>(g.index(t, h, d))] = kernel_test::from_double<T>(value(rng));
    return buffer;
}

template <class T>
HeadsView<T> view_of(std::vector<T>& buffer, const Geometry& g)
{
    return HeadsView<T>(buffer.data() + guard, static_cast<std::ptrdiff_t>(buffer.size()) - guard,
                        {g.tokens, g.heads, g.head_dim}, {g.token_stride(), g.head_stride()});
}

/// The input head (t, h) as doubles.
template <class T>
std::vector<double> head_of(const std::vector<T>& buffer, const Geometry& g, std::ptrdiff_t t, std::ptrdiff_t h)
{
    std::vector<double> x(static_cast<std::size_t>(g.head_dim));
    for (std::ptrdiff_t d = 0; d < g.head_dim; ++d)
        x[static_cast<std::size_t>(d)] = kernel_test::to_double(buffer[static_cast<std::size_t>(g.index(t, h, d))]);
    return x;
}

/// Whether two buffers hold the same bits, element by element.
template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b)
{
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (kernel_test::bits_of(a[i]) != kernel_test::bits_of(b[i])) return false;
    return true;
}

/// What a coordinate must hold: `want` within `tolerance`, or (exact) the bits of `want` in T.
struct Expected {
    double want = 0.0;
    double tolerance = 0.0;
    bool exact = false;
};

struct Failure {
    int count = 0;
    std::string first;
    void note(const std::string& what)
    {
        if (count++ == 0) first = what;
    }
};

/// Every element of `after` (an output buffer of geometry g): in a head, as `expect(t, h, d)`
/// says; outside the heads, the bits of `before`.
template <class T>
void compare(const std::vector<T>& before, const std::vector<T>& after, const Geometry& g,
             const std::function<Expected(std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t)>& expect,
             const std::string& what, Failure& failure)
{
    std::vector<char> in_head(after.size(), 0);
    for (std::ptrdiff_t t = 0; t < g.tokens; ++t)
        for (std::ptrdiff_t h = 0; h < g.heads; ++h)
            for (std::ptrdiff_t d = 0; d < g.head_dim; ++d) {
                const auto i = static_cast<std::size_t>(g.index(t, h, d));
                in_head[i] = 1;
                const Expected e = expect(t, h, d);
                const std::string where =
                    what + " token " + std::to_string(t) + " head " + std::to_string(h) + " dim " + std::to_string(d);
                if (e.exact) {
                    if (kernel_test::bits_of(after[i]) != kernel_test::bits_of(kernel_test::from_double<T>(e.want)))
                        failure.note(where + ": got " + std::to_string(kernel_test::to_double(after[i])) +
                                     ", want exactly " + std::to_string(e.want));
                } else {
                    const double got = kernel_test::to_double(after[i]);
                    if (!(std::fabs(got - e.want) <= e.tolerance))
                        failure.note(where + ": got " + std::to_string(got) + " want " + std::to_string(e.want) +
                                     " within " + std::to_string(e.tolerance));
                }
            }
    for (std::size_t i = 0; i < after.size(); ++i)
        if (!in_head[i] && kernel_test::bits_of(after[i]) != kernel_test::bits_of(before[i]))
            failure.note(what + ": guard or gap element " + std::to_string(i) + " was changed");
}

/// Whether coordinate d of a head belongs to a pair of the spec (the rotated slice).
inline std::vector<char> rotated_coordinates(const posenc::RopeSpec& spec)
{
    std::vector<char> rotated(static_cast<std::size_t>(spec.head_dim()), 0);
    for (int i = 0; i < spec.num_pairs(); ++i) {
        const posenc::PairCoordinates c = spec.pair_coordinates(i);
        rotated[static_cast<std::size_t>(c.first)] = rotated[static_cast<std::size_t>(c.second)] = 1;
    }
    return rotated;
}

/// The norm of the pair that coordinate d belongs to, in x (d rotated).
inline double pair_norm(const posenc::RopeSpec& spec, const std::vector<double>& x, std::ptrdiff_t d)
{
    for (int i = 0; i < spec.num_pairs(); ++i) {
        const posenc::PairCoordinates c = spec.pair_coordinates(i);
        if (c.first == d || c.second == d)
            return std::hypot(x[static_cast<std::size_t>(c.first)], x[static_cast<std::size_t>(c.second)]);
    }
    return 0.0;
}

}  // namespace rotary_slice_test
