// SPDX-License-Identifier: MIT
// posenc/encodings/additive_index.hpp: the naive scheme x = e + p*1 (add the index to every dim).
//
// Lesson C2-2 (docs/lessons.md), "naive scheme 1": the token at position p gets
//
//     x = e + p * 1                     (1 = the all-ones vector of the embedding's dimension d)
//
// Why it fails, in numbers the lesson prints (docs/lessons.md items 1-5):
//   - the position signal p*1 has RMS p, so the content's share is RMS(e) / p:
//     1/37 = 2.7% at p = 37 for content of RMS 1; 0.02/1 = 2% at p = 1 and 0.02/37 = 0.054% at
//     p = 37 for content at the project's init scale (std 0.02);
//   - for content orthogonal to 1: cos(e + p1, e) = RMS(e) / sqrt(RMS(e)^2 + p^2), 0.027017 at p = 37;
//   - RMSNorm only rescales, so after it x still points along 1: cos(RMSNorm(e + p1), 1) =
//     p / sqrt(RMS(e)^2 + p^2) > 0.999999 at p = 262,143 (the widget's maximum).
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "posenc/error.hpp"

namespace posenc {
namespace encodings {

namespace detail {
inline void require_finite_vector(const Eigen::VectorXd& v, const char* name)
{
    posenc::detail::require(v.size() > 0, (std::string(name) + ".size").c_str(), static_cast<long long>(v.size()),
                            "must be > 0");
    for (Eigen::Index i = 0; i < v.size(); ++i)
        if (!std::isfinite(v(i)))
            posenc::detail::raise(std::string(name) + "(" + std::to_string(i) + ")", v(i), "must be finite");
}

/// v * 2^-e with e chosen so that the largest |v_i| lies in [1/2, 1) (e = 0 for v = 0; e no
/// lower than -1000, so the factor 2^-e stays finite). Multiplying by a power of two is exact
/// unless the result is subnormal, so sums of squares, norms and dot products of the scaled
/// vector are those of v times a power of two, rounded the same way, but cannot overflow (as
/// hypot avoids it) and lose only entries below 2^-511 of the largest to underflow.
struct ScaledVector {
    Eigen::VectorXd v;
    int exponent;  // the original is v * 2^exponent
};

inline ScaledVector scaled_to_unit(const Eigen::VectorXd& v)
{
    const double largest = v.cwiseAbs().maxCoeff();
    int exponent = 0;
    if (largest > 0.0) {
        std::frexp(largest, &exponent);
        exponent = std::max(exponent, -1000);
    }
    return {v * std::ldexp(1.0, -exponent), exponent};
}
}  // namespace detail

/// x = e + p * 1: the position index added to every dimension of the content vector.
/// Throws posenc::error for an empty or non-finite content or a negative position.
/// Exact for |e_i| + p < 2^53 up to one rounding per coordinate.
inline Eigen::VectorXd add_index_to_every_dim(const Eigen::VectorXd& content, std::int64_t position)
{
    detail::require_finite_vector(content, "content");
    posenc::detail::require(position >= 0, "position", position, "must be >= 0");
    return content.array() + static_cast<double>(position);
}

/// RMS(v) = sqrt(mean(v_i^2)), computed on v scaled by a power of two (detail::scaled_to_unit)
/// so that finite entries give a finite, correctly rounded result even where v_i^2 would
/// overflow (RMS of [1e200, 1e200] is 1e200) or underflow; bit for bit the plain formula's
/// result whenever the squares are normal numbers. Throws posenc::error for an empty or
/// non-finite v.
inline double root_mean_square(const Eigen::VectorXd& v)
{
    detail::require_finite_vector(v, "v");
    const detail::ScaledVector s = detail::scaled_to_unit(v);
    return std::ldexp(std::sqrt(s.v.squaredNorm() / static_cast<double>(v.size())), s.exponent);
}

/// Content's share of the position signal, RMS(e) / RMS(p * 1) = content_rms / p (lesson items 1-3).
/// Throws posenc::error unless content_rms is finite and >= 0 and position > 0 (p = 0 adds no signal).
inline double content_to_position_ratio(double content_rms, std::int64_t position)
{
    posenc::detail::require(std::isfinite(content_rms) && content_rms >= 0.0, "content_rms", content_rms,
                            "must be finite and >= 0");
    posenc::detail::require(position > 0, "position", position, "must be > 0 (position 0 adds no signal)");
    return content_rms / static_cast<double>(position);
}

/// The same from a content vector: RMS(content) / position.
inline double content_to_position_ratio(const Eigen::VectorXd& content, std::int64_t position)
{
    return content_to_position_ratio(root_mean_square(content), position);
}

/// cos(a, b) = a.b / (|a| |b|), computed on a and b each scaled by a power of two
/// (detail::scaled_to_unit; cos does not change) so that finite entries never overflow or
/// underflow on the way. Throws posenc::error unless a and b have the same size, are finite and
/// non-zero. Error: a few ulp (one dot product and two norms).
inline double cosine_similarity(const Eigen::VectorXd& a, const Eigen::VectorXd& b)
{
    detail::require_finite_vector(a, "a");
    detail::require_finite_vector(b, "b");
    posenc::detail::require(a.size() == b.size(), "b.size", static_cast<long long>(b.size()),
                            ("must equal a.size " + std::to_string(a.size())).c_str());
    const detail::ScaledVector sa = detail::scaled_to_unit(a), sb = detail::scaled_to_unit(b);
    const double na = sa.v.norm(), nb = sb.v.norm();
    posenc::detail::require(na > 0.0, "a.norm", na, "must be > 0");
    posenc::detail::require(nb > 0.0, "b.norm", nb, "must be > 0");
    return sa.v.dot(sb.v) / (na * nb);
}

/// RMSNorm without a learned gain: x / sqrt(mean(x_i^2) + epsilon) (Zhang & Sennrich 2019,
/// arXiv 1910.07467, eq. 4; epsilon as in Llama / Qwen's rms_norm_eps, 1e-6 for Qwen3).
/// It multiplies x by one positive number, so it never changes x's direction.
/// Computed on x scaled by a power of two, 2^-e x (detail::scaled_to_unit), with epsilon scaled
/// by 2^-2e: the same numbers, rounded the same way, whenever they are normal, and a finite,
/// correct result where mean(x_i^2) would overflow (x = [1e200, 1e200] gives [1, 1], not 0) or
/// underflow.
/// Throws posenc::error for an empty or non-finite x, epsilon < 0 or not finite, or x = 0 with epsilon = 0.
inline Eigen::VectorXd rms_norm(const Eigen::VectorXd& x, double epsilon = 1e-6)
{
    detail::require_finite_vector(x, "x");
    posenc::detail::require(std::isfinite(epsilon) && epsilon >= 0.0, "epsilon", epsilon, "must be finite and >= 0");
    const detail::ScaledVector s = detail::scaled_to_unit(x);
    const double scaled_epsilon = std::ldexp(epsilon, -2 * s.exponent);
    // |x| below 2^-500 with a normal epsilon: epsilon exceeds mean(x_i^2) by more than 2^1000,
    // and x / sqrt(epsilon) is the result to within rounding.
    if (std::isinf(scaled_epsilon)) return x / std::sqrt(epsilon);
    const double mean_square = s.v.squaredNorm() / static_cast<double>(x.size()) + scaled_epsilon;
    posenc::detail::require(mean_square > 0.0, "x.rms", 0.0, "must be > 0 when epsilon is 0");
    return s.v / std::sqrt(mean_square);
}

}  // namespace encodings
}  // namespace posenc
