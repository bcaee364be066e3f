// SPDX-License-Identifier: MIT
// posenc/encodings/shaw_relative.hpp: clipped relative position representations (Shaw et al. 2018).
//
// "Self-Attention with Relative Position Representations" (arXiv 1803.02155) section 3:
//
//   e_ij = x_i W^Q (x_j W^K + a^K_ij)^T / sqrt(d_z)                                   (eq. 4)
//   z_i  = sum_j alpha_ij (x_j W^V + a^V_ij)                                          (eq. 3)
//   a_ij = w_{clip(j - i, k)},   clip(x, k) = max(-k, min(k, x))
//
// One table holds 2k + 1 learned vectors w_{-k} .. w_k (stored as rows 0 .. 2k, row = offset + k);
// every pair of tokens farther apart than k shares an end vector (j - i = -200, k = 16: w_{-16}).
// The paper uses one table for keys (a^K) and one for values (a^V); build two objects.
// Section 4.1: k = 16 (base model), k = 8 (big model); the ablation includes k = 0.
// Only j - i enters, so shifting every position by the same amount changes nothing.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

#include "posenc/error.hpp"

namespace posenc {
namespace encodings {

namespace detail {

/// to - from as (sign, magnitude), without signed overflow for any two int64 values.
struct SignedDistance {
    bool negative;
    std::uint64_t magnitude;
};

inline SignedDistance signed_distance(std::int64_t from, std::int64_t to) noexcept
{
    // Unsigned subtraction is exact modulo 2^64, and the true |to - from| < 2^64.
    if (to >= from) return {false, static_cast<std::uint64_t>(to) - static_cast<std::uint64_t>(from)};
    return {true, static_cast<std::uint64_t>(from) - static_cast<std::uint64_t>(to)};
}

inline void require_max_distance(int max_distance)
{
    posenc::detail::require(max_distance >= 0, "max_distance", max_distance, "must be >= 0");
    posenc::detail::require(max_distance < (1 << 30), "max_distance", max_distance,
                            "must be < 2^30 (2k + 1 rows must fit an int)");
}

}  // namespace detail

/// clip(key - query, k) = max(-k, min(k, key - query)) in [-k, k] (Shaw 2018 section 3), exact for
/// any int64 positions. Throws posenc::error unless 0 <= max_distance < 2^30.
inline int clipped_relative_position(std::int64_t query_position, std::int64_t key_position, int max_distance)
{
    detail::require_max_distance(max_distance);
    const detail::SignedDistance d = detail::signed_distance(query_position, key_position);
    const int magnitude =
        d.magnitude > static_cast<std::uint64_t>(max_distance) ? max_distance : static_cast<int>(d.magnitude);
    return d.negative ? -magnitude : magnitude;
}

/// One table of 2k + 1 relative position vectors (dim each) with Shaw's clipped lookup.
///
/// Invariants (checked on construction, posenc::error otherwise): 0 <= max_distance k < 2^30,
/// dim > 0, 2k + 1 rows, every entry finite.
class ClippedRelativePositions
{
public:
    /// A zero-initialised table of 2k + 1 vectors of `dim` numbers (training sets the values).
    ClippedRelativePositions(int max_distance, int dim)
        : ClippedRelativePositions(max_distance, zeros(max_distance, dim))
    {}

    /// A table with the given vectors; row r holds w_{r - k}.
    ClippedRelativePositions(int max_distance, Eigen::MatrixXd vectors)
        : max_distance_(max_distance), vectors_(std::move(vectors))
    {
        detail::require_max_distance(max_distance);
        posenc::detail::require(vectors_.rows() == 2 * static_cast<Eigen::Index>(max_distance) + 1, "vectors.rows",
                                static_cast<long long>(vectors_.rows()),
                                ("must equal 2 * max_distance + 1 = " + std::to_string(2 * max_distance + 1)).c_str());
        posenc::detail::require(vectors_.cols() > 0, "dim", static_cast<long long>(vectors_.cols()), "must be > 0");
        for (Eigen::Index c = 0; c < vectors_.cols(); ++c)
            for (Eigen::Index r = 0; r < vectors_.rows(); ++r)
                if (!std::isfinite(vectors_(r, c)))
                    posenc::detail::raise("vectors(" + std::to_string(r) + ", " + std::to_string(c) + ")",
                                          vectors_(r, c), "must be finite");
    }

    int max_distance() const noexcept { return max_distance_; }
    /// 2k + 1.
    int num_vectors() const noexcept { return 2 * max_distance_ + 1; }
    int dim() const noexcept { return static_cast<int>(vectors_.cols()); }
    /// (2k + 1) * dim learned numbers per table.
    std::int64_t parameter_count() const noexcept { return static_cast<std::int64_t>(vectors_.size()); }
    const Eigen::MatrixXd& vectors() const noexcept { return vectors_; }
    /// Writable vectors (as training would). Values must stay finite; lookups do not re-check.
    Eigen::MatrixXd& vectors() noexcept { return vectors_; }

    /// clip(key - query, k) in [-k, k].
    int offset(std::int64_t query_position, std::int64_t key_position) const
    {
        return clipped_relative_position(query_position, key_position, max_distance_);
    }
    /// The row of w_{clip(key - query, k)}: offset + k in [0, 2k].
    int index(std::int64_t query_position, std::int64_t key_position) const
    {
        return offset(query_position, key_position) + max_distance_;
    }
    /// a_ij = w_{clip(j - i, k)} for query position i and key position j.
    Eigen::VectorXd vector(std::int64_t query_position, std::int64_t key_position) const
    {
        return vectors_.row(index(query_position, key_position)).transpose();
    }

    /// T x T matrix of index(i, j) for the positions 0 .. T - 1 (any common shift gives the same).
    /// Throws unless length > 0.
    Eigen::MatrixXi index_matrix(int length) const
    {
        posenc::detail::require(length > 0, "length", length, "must be > 0");
        Eigen::MatrixXi m(length, length);
        for (int i = 0; i < length; ++i)
            for (int j = 0; j < length; ++j) m(i, j) = index(i, j);
        return m;
    }

    /// Eq. 4 from projected queries Q = X W^Q and keys K = X W^K (T x dim each, token t at position t):
    ///   e_ij = Q_i . (K_j + w_{clip(j - i, k)}) / sqrt(dim).
    /// Throws unless both are T x dim with T > 0 and finite.
    Eigen::MatrixXd logits(const Eigen::MatrixXd& queries, const Eigen::MatrixXd& keys) const
    {
        require_tokens(queries, "queries", queries.rows());
        require_tokens(keys, "keys", queries.rows());
        const double scale = 1.0 / std::sqrt(static_cast<double>(dim()));
        Eigen::MatrixXd e(queries.rows(), keys.rows());
        for (Eigen::Index i = 0; i < queries.rows(); ++i)
            for (Eigen::Index j = 0; j < keys.rows(); ++j)
                e(i, j) = queries.row(i).dot(keys.row(j) + vectors_.row(index(i, j))) * scale;
        return e;
    }

    /// Eq. 3 from attention weights alpha (T x T) and projected values V = X W^V (T x dim):
    ///   z_i = sum_j alpha_ij (V_j + w_{clip(j - i, k)}).
    /// Throws unless alpha is T x T, V is T x dim, T > 0 and both finite.
    Eigen::MatrixXd outputs(const Eigen::MatrixXd& alpha, const Eigen::MatrixXd& values) const
    {
        require_tokens(values, "values", values.rows());
        posenc::detail::require(alpha.rows() == values.rows(), "alpha.rows", static_cast<long long>(alpha.rows()),
                                ("must equal the number of tokens " + std::to_string(values.rows())).c_str());
        posenc::detail::require(alpha.cols() == values.rows(), "alpha.cols", static_cast<long long>(alpha.cols()),
                                ("must equal the number of tokens " + std::to_string(values.rows())).c_str());
        require_finite(alpha, "alpha");
        Eigen::MatrixXd z = Eigen::MatrixXd::Zero(values.rows(), values.cols());
        for (Eigen::Index i = 0; i < alpha.rows(); ++i)
            for (Eigen::Index j = 0; j < alpha.cols(); ++j)
                z.row(i) += alpha(i, j) * (values.row(j) + vectors_.row(index(i, j)));
        return z;
    }

private:
    static Eigen::MatrixXd zeros(int max_distance, int dim)
    {
        detail::require_max_distance(max_distance);
        posenc::detail::require(dim > 0, "dim", dim, "must be > 0");
        return Eigen::MatrixXd::Zero(2 * static_cast<Eigen::Index>(max_distance) + 1, dim);
    }

    static void require_finite(const Eigen::MatrixXd& m, const char* name)
    {
        for (Eigen::Index c = 0; c < m.cols(); ++c)
            for (Eigen::Index r = 0; r < m.rows(); ++r)
                if (!std::isfinite(m(r, c)))
                    posenc::detail::raise(std::string(name) + "(" + std::to_string(r) + ", " + std::to_string(c) + ")",
                                          m(r, c), "must be finite");
    }

    void require_tokens(const Eigen::MatrixXd& m, const char* name, Eigen::Index tokens) const
    {
        const std::string n(name);
        posenc::detail::require(m.rows() > 0, (n + ".rows").c_str(), static_cast<long long>(m.rows()), "must be > 0");
        posenc::detail::require(m.rows() == tokens, (n + ".rows").c_str(), static_cast<long long>(m.rows()),
                                ("must equal the number of tokens " + std::to_string(tokens)).c_str());
        posenc::detail::require(m.cols() == dim(), (n + ".cols").c_str(), static_cast<long long>(m.cols()),
                                ("must equal dim " + std::to_string(dim())).c_str());
        require_finite(m, name);
    }

    int max_distance_;
    Eigen::MatrixXd vectors_;
};

}  // namespace encodings
}  // namespace posenc
