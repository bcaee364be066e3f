// SPDX-License-Identifier: MIT
// posenc/encodings/learned_table.hpp: the learned absolute position table (GPT-2 style).
//
// Lesson C2-2 (docs/lessons.md), "generation 1": every position t has its own trained
// vector, added to the token embedding,
//
//     x_t = E[id_t] + P[t],      P: L rows (positions 0 .. L-1) x d dims, L * d parameters
//
// GPT-2: L = n_positions = 1,024, d = n_embd = 768, 1,024 * 768 = 786,432 parameters
// (docs/lessons.md item 8). The table has no row for position L: the lesson's "the model
// cannot run at all" (item 9). posenc makes that an explicit choice, OutOfRange:
//   error               (default) a lookup at t >= L throws posenc::error naming t and L;
//   clamp_to_last_row   t >= L reads row L - 1, the lesson's "forced" experiment (the course's
//                       model, L = 128: every position from 128 on reads row 127).
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/models/presets.hpp"

namespace posenc {
namespace encodings {

/// What a learned table does with a position it has no row for.
enum class OutOfRange {
    error,  ///< throw posenc::error naming the position and the table size (default)
    clamp_to_last_row,  ///< reuse row L - 1 for every position >= L (lesson C2-2's forced run)
};

/// "error" or "clamp_to_last_row".
inline const char* to_string(OutOfRange policy) noexcept
{
    return policy == OutOfRange::error ? "error" : "clamp_to_last_row";
}

/// A learned absolute position table P (num_positions x dim) and its lookup policy.
///
/// Invariants (checked on construction, posenc::error otherwise): num_positions > 0, dim > 0,
/// every weight finite, policy one of OutOfRange's values. Holds num_positions * dim doubles.
class LearnedPositionTable
{
public:
    /// A zero-initialised table (the values are what training would set).
    LearnedPositionTable(int num_positions, int dim, OutOfRange policy = OutOfRange::error)
        : LearnedPositionTable(checked_zeros(num_positions, dim), policy)
    {}

    /// A table with the given weights, one row per position.
    explicit LearnedPositionTable(Eigen::MatrixXd weights, OutOfRange policy = OutOfRange::error)
        : weights_(std::move(weights)), policy_(policy)
    {
        posenc::detail::require(weights_.rows() > 0, "num_positions", static_cast<long long>(weights_.rows()),
                                "must be > 0");
        posenc::detail::require(weights_.cols() > 0, "dim", static_cast<long long>(weights_.cols()), "must be > 0");
        for (Eigen::Index c = 0; c < weights_.cols(); ++c)
            for (Eigen::Index r = 0; r < weights_.rows(); ++r)
                if (!std::isfinite(weights_(r, c)))
                    posenc::detail::raise("weights(" + std::to_string(r) + ", " + std::to_string(c) + ")",
                                          weights_(r, c), "must be finite");
        posenc::detail::require(policy == OutOfRange::error || policy == OutOfRange::clamp_to_last_row, "policy",
                                static_cast<int>(policy), "must be OutOfRange::error or OutOfRange::clamp_to_last_row");
    }

    /// The table of a learned-position preset: native_length rows x d_model dims (GPT-2: 1,024 x 768).
    /// Throws posenc::error for a preset that uses RoPE.
    static LearnedPositionTable from_preset(const ModelPreset& preset, OutOfRange policy = OutOfRange::error)
    {
        if (preset.kind != PositionEncodingKind::learned_absolute)
            posenc::detail::raise("preset", std::string(preset.name), "uses RoPE, not a learned position table");
        posenc::detail::require(preset.native_length > 0 && preset.native_length <= std::numeric_limits<int>::max(),
                                "preset.native_length", preset.native_length, "must be in [1, 2^31 - 1]");
        return LearnedPositionTable(static_cast<int>(preset.native_length), preset.d_model, policy);
    }

    /// L * d without building a table; throws posenc::error unless both are > 0.
    static std::int64_t parameter_count(int num_positions, int dim)
    {
        posenc::detail::require(num_positions > 0, "num_positions", num_positions, "must be > 0");
        posenc::detail::require(dim > 0, "dim", dim, "must be > 0");
        return static_cast<std::int64_t>(num_positions) * dim;
    }

    int num_positions() const noexcept { return static_cast<int>(weights_.rows()); }
    int dim() const noexcept { return static_cast<int>(weights_.cols()); }
    OutOfRange policy() const noexcept { return policy_; }
    /// L * d trainable numbers (GPT-2: 786,432).
    std::int64_t parameter_count() const noexcept { return static_cast<std::int64_t>(weights_.size()); }

    const Eigen::MatrixXd& weights() const noexcept { return weights_; }
    /// The weights, writable (as training would). Values must stay finite; lookups do not re-check.
    Eigen::MatrixXd& weights() noexcept { return weights_; }

    /// The row a position reads: t itself for 0 <= t < L; for t >= L, L - 1 under clamp_to_last_row,
    /// otherwise posenc::error ("position 1024 must be < num_positions 1024 ..."). t < 0 always throws.
    int row_for(std::int64_t position) const
    {
        posenc::detail::require(position >= 0, "position", position, "must be >= 0");
        if (position < num_positions()) return static_cast<int>(position);
        if (policy_ == OutOfRange::clamp_to_last_row) return num_positions() - 1;
        posenc::detail::raise("position", position,
                              "must be < num_positions " + std::to_string(num_positions()) +
                                  " (the table has no row for it; OutOfRange::clamp_to_last_row reuses row " +
                                  std::to_string(num_positions() - 1) + ")");
    }

    /// P[row_for(t)], a dim-vector. Throws as row_for.
    Eigen::VectorXd lookup(std::int64_t position) const { return weights_.row(row_for(position)).transpose(); }

    /// X = E + P[first .. first + T - 1]: adds row_for(first + t) to row t of the token embeddings
    /// (T x dim). Throws posenc::error for a width other than dim, a non-finite embedding, or a
    /// position the policy rejects.
    Eigen::MatrixXd add_to(const Eigen::MatrixXd& token_embeddings, std::int64_t first_position = 0) const
    {
        posenc::detail::require(token_embeddings.cols() == dim(), "token_embeddings.cols",
                                static_cast<long long>(token_embeddings.cols()),
                                ("must equal dim " + std::to_string(dim())).c_str());
        posenc::detail::require(first_position >= 0, "first_position", first_position, "must be >= 0");
        posenc::detail::require(first_position <= std::numeric_limits<std::int64_t>::max() - token_embeddings.rows(),
                                "first_position", first_position, "must leave room for every token's position");
        Eigen::MatrixXd x = token_embeddings;
        for (Eigen::Index t = 0; t < x.rows(); ++t) {
            for (Eigen::Index c = 0; c < x.cols(); ++c)
                if (!std::isfinite(x(t, c)))
                    posenc::detail::raise("token_embeddings(" + std::to_string(t) + ", " + std::to_string(c) + ")",
                                          x(t, c), "must be finite");
            x.row(t) += weights_.row(row_for(first_position + static_cast<std::int64_t>(t)));
        }
        return x;
    }

private:
    static Eigen::MatrixXd checked_zeros(int num_positions, int dim)
    {
        parameter_count(num_positions, dim);  // validates both sizes before allocating
        return Eigen::MatrixXd::Zero(num_positions, dim);
    }

    Eigen::MatrixXd weights_;
    OutOfRange policy_;
};

}  // namespace encodings
}  // namespace posenc
