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

/// RMS(v) = sqrt(mean(v_i^2)). Throws posenc::error for an empty or non-finite v.
inline double root_mean_square(const Eigen::VectorXd& v)
{
    detail::require_finite_vector(v, "v");
    return std::sqrt(v.squaredNorm() / static_cast<double>(v.size()));
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

/// cos(a, b) = a.b / (|a| |b|). Throws posenc::error unless a and b have the same size, are
/// finite and non-zero. Error: a few ulp (one dot product and two norms).
inline double cosine_similarity(const Eigen::VectorXd& a, const Eigen::VectorXd& b)
{
    detail::require_finite_vector(a, "a");
    detail::require_finite_vector(b, "b");
    posenc::detail::require(a.size() == b.size(), "b.size", static_cast<long long>(b.size()),
                            ("must equal a.size " + std::to_string(a.size())).c_str());
    const double na = a.norm(), nb = b.norm();
    posenc::detail::require(na > 0.0, "a.norm", na, "must be > 0");
    posenc::detail::require(nb > 0.0, "b.norm", nb, "must be > 0");
    return a.dot(b) / (na * nb);
}

/// RMSNorm without a learned gain: x / sqrt(mean(x_i^2) + epsilon) (Zhang & Sennrich 2019,
/// arXiv 1910.07467, eq. 4; epsilon as in Llama / Qwen's rms_norm_eps, 1e-6 for Qwen3).
/// It multiplies x by one positive number, so it never changes x's direction.
/// Throws posenc::error for an empty or non-finite x, epsilon < 0 or not finite, or x = 0 with epsilon = 0.
inline Eigen::VectorXd rms_norm(const Eigen::VectorXd& x, double epsilon = 1e-6)
{
    detail::require_finite_vector(x, "x");
    posenc::detail::require(std::isfinite(epsilon) && epsilon >= 0.0, "epsilon", epsilon, "must be finite and >= 0");
    const double mean_square = x.squaredNorm() / static_cast<double>(x.size()) + epsilon;
    posenc::detail::require(mean_square > 0.0, "x.rms", 0.0, "must be > 0 when epsilon is 0");
    return x / std::sqrt(mean_square);
}

}  // namespace encodings
}  // namespace posenc
