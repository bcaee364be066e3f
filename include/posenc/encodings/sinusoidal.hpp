// SPDX-License-Identifier: MIT
// posenc/encodings/sinusoidal.hpp: the sinusoidal position encoding of Vaswani et al. 2017.
//
// "Attention Is All You Need" (arXiv 1706.03762) section 3.5, for pair i = 0 .. d_model/2 - 1:
//
//     PE(pos, 2i)     = sin(pos / 10000^(2i/d_model))
//     PE(pos, 2i + 1) = cos(pos / 10000^(2i/d_model))
//
// Wavelengths 2pi .. 10000 * 2pi in a geometric progression. Section 3.4: the embeddings are
// multiplied by sqrt(d_model) before the PE is added (EmbeddingScale::sqrt_d_model; the lesson's
// side page notes the course's first run forgot it). Properties (tests/encodings/sinusoidal.cpp):
//   - PE(pos + k) is a fixed rotation of PE(pos) within each (sin, cos) pair (shift_rotation);
//   - PE(p) . PE(q) = sum_i cos((p - q) w_i) depends only on the distance p - q;
//   - added to the input, it makes the content-content attention score depend on the absolute
//     positions, so shifting the whole sentence changes it (RoPE's does not) (lesson C2-2).
//
// The frequencies are w_i = base^(-2i/d_model) in double (the same numbers RoPE's theta_i are,
// frequencies.hpp), the angles pos * w_i are reduced exactly (angles.hpp), so every value is
// within 5e-15 of the exact sin/cos of pos * w_i for |pos| <= 2^50. (pos * base^(-2i/d) and
// pos / base^(2i/d) differ by the rounding of w_i: relative < (1 + |ln base|) 2^-52.)
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "posenc/angles.hpp"
#include "posenc/error.hpp"
#include "posenc/frequencies.hpp"
#include "posenc/spec.hpp"

namespace posenc {
namespace encodings {

/// Whether token embeddings are multiplied by sqrt(d_model) before the encoding is added.
enum class EmbeddingScale {
    none,  ///< x = E + PE
    sqrt_d_model,  ///< x = sqrt(d_model) E + PE  (Vaswani 2017 section 3.4)
};

/// The sinusoidal table of one d_model, computed on demand for any position |pos| <= 2^50.
///
/// Invariants (checked on construction, posenc::error otherwise): d_model even and > 0;
/// base finite and > 1; scale one of EmbeddingScale's values.
class SinusoidalEncoding
{
public:
    /// Largest |position| (and |offset|) accepted: the angle range of angles.hpp with w_0 = 1.
    static constexpr std::int64_t max_position = std::int64_t {1} << 50;

    explicit SinusoidalEncoding(int d_model, EmbeddingScale scale = EmbeddingScale::none, double base = 10000.0)
        : d_model_(checked_d_model(d_model)), base_(checked_base(base)), scale_(scale),
          table_(FrequencyTable::from_spec(RopeSpec::full(d_model_, base_, Pairing::interleaved)))
    {
        posenc::detail::require(scale == EmbeddingScale::none || scale == EmbeddingScale::sqrt_d_model, "scale",
                                static_cast<int>(scale),
                                "must be EmbeddingScale::none or EmbeddingScale::sqrt_d_model");
    }

    int d_model() const noexcept { return d_model_; }
    int num_pairs() const noexcept { return d_model_ / 2; }
    double base() const noexcept { return base_; }
    EmbeddingScale scale() const noexcept { return scale_; }

    /// w_i = base^(-2i/d_model), radians per position. Throws unless 0 <= pair < d_model / 2.
    double inv_freq(int pair) const { return table_.inv_freq(checked_pair(pair)); }
    /// 2pi / w_i = 2pi * base^(2i/d_model) positions (2pi .. ~10000 * 2pi). Throws as inv_freq.
    double wavelength(int pair) const { return table_.period(checked_pair(pair)); }

    /// sqrt(d_model) under EmbeddingScale::sqrt_d_model, else 1.
    double embedding_scale() const noexcept
    {
        return scale_ == EmbeddingScale::sqrt_d_model ? std::sqrt(static_cast<double>(d_model_)) : 1.0;
    }

    /// PE(pos, dim): sin of pos * w_{dim/2} for even dim, cos for odd. Error < 5e-15.
    /// Throws unless 0 <= dim < d_model and |pos| <= max_position.
    double value(std::int64_t position, int dim) const
    {
        checked_position(position, "position");
        posenc::detail::require(dim >= 0 && dim < d_model_, "dim", dim,
                                ("must be in [0, d_model " + std::to_string(d_model_) + ")").c_str());
        const CosSin cs = cos_sin(position, table_.inv_freq(dim / 2));
        return dim % 2 == 0 ? cs.sin : cs.cos;
    }

    /// The d_model-vector PE(pos, 0 .. d_model - 1). Throws unless |pos| <= max_position.
    Eigen::VectorXd encode(std::int64_t position) const
    {
        checked_position(position, "position");
        Eigen::VectorXd pe(d_model_);
        for (int i = 0; i < num_pairs(); ++i) {
            const CosSin cs = cos_sin(position, table_.inv_freq(i));
            pe(2 * i) = cs.sin;
            pe(2 * i + 1) = cs.cos;
        }
        return pe;
    }

    /// count x d_model, row t = PE(first + t). Throws unless count > 0 and every position is in range.
    Eigen::MatrixXd encode_positions(std::int64_t first_position, int count) const
    {
        posenc::detail::require(count > 0, "count", count, "must be > 0");
        checked_position(first_position, "first_position");
        checked_position(first_position + count - 1, "last_position");
        Eigen::MatrixXd pe(count, d_model_);
        for (int t = 0; t < count; ++t) pe.row(t) = encode(first_position + t).transpose();
        return pe;
    }

    /// X = s E + PE(first .. first + T - 1), s = embedding_scale(), E: T x d_model token embeddings.
    /// Throws for a width other than d_model, a non-finite embedding, or positions out of range.
    Eigen::MatrixXd add_to(const Eigen::MatrixXd& token_embeddings, std::int64_t first_position = 0) const
    {
        posenc::detail::require(token_embeddings.rows() > 0, "token_embeddings.rows",
                                static_cast<long long>(token_embeddings.rows()), "must be > 0");
        posenc::detail::require(token_embeddings.cols() == d_model_, "token_embeddings.cols",
                                static_cast<long long>(token_embeddings.cols()),
                                ("must equal d_model " + std::to_string(d_model_)).c_str());
        for (Eigen::Index c = 0; c < token_embeddings.cols(); ++c)
            for (Eigen::Index t = 0; t < token_embeddings.rows(); ++t)
                if (!std::isfinite(token_embeddings(t, c)))
                    posenc::detail::raise("token_embeddings(" + std::to_string(t) + ", " + std::to_string(c) + ")",
                                          token_embeddings(t, c), "must be finite");
        return embedding_scale() * token_embeddings +
               encode_positions(first_position, static_cast<int>(token_embeddings.rows()));
    }

    /// The fixed 2x2 map M_k of pair i with (PE(pos + k, 2i), PE(pos + k, 2i + 1))^T =
    /// M_k (PE(pos, 2i), PE(pos, 2i + 1))^T for every pos:
    ///     M_k = [[cos(k w_i), sin(k w_i)], [-sin(k w_i), cos(k w_i)]] = R(-k w_i)
    /// (sin(a + b) = sin a cos b + cos a sin b; cos(a + b) = cos a cos b - sin a sin b). It
    /// depends on k, not on pos: the "linear function of PE(pos)" of Vaswani section 3.5.
    /// Throws unless 0 <= pair < d_model / 2 and |offset| <= max_position. Error < 5e-15.
    Eigen::Matrix2d shift_rotation(int pair, std::int64_t offset) const
    {
        checked_position(offset, "offset");
        const CosSin cs = cos_sin(offset, table_.inv_freq(checked_pair(pair)));
        Eigen::Matrix2d m;
        m << cs.cos, cs.sin, -cs.sin, cs.cos;
        return m;
    }

private:
    static int checked_d_model(int d_model)
    {
        posenc::detail::require(d_model > 0, "d_model", d_model, "must be > 0");
        posenc::detail::require(d_model % 2 == 0, "d_model", d_model, "must be even (sin, cos pairs)");
        return d_model;
    }

    static double checked_base(double base)
    {
        posenc::detail::require(std::isfinite(base) && base > 1.0, "base", base, "must be finite and > 1");
        return base;
    }

    int checked_pair(int pair) const
    {
        posenc::detail::require(pair >= 0 && pair < num_pairs(), "pair", pair,
                                ("must be in [0, d_model / 2 = " + std::to_string(num_pairs()) + ")").c_str());
        return pair;
    }

    static void checked_position(std::int64_t position, const char* field)
    {
        posenc::detail::require(position >= -max_position && position <= max_position, field, position,
                                "must satisfy |position| <= 2^50");
    }

    int d_model_;
    double base_;
    EmbeddingScale scale_;
    FrequencyTable table_;
};

}  // namespace encodings
}  // namespace posenc
