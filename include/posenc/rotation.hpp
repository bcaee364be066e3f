// SPDX-License-Identifier: MIT
// posenc/rotation.hpp: the rotation-matrix form of RoPE (Eigen) and the scalar reference apply.
//
// RoFormer (Su et al. 2021, arXiv 2104.09864) eq. 13-15: position m multiplies a head vector by
//   R_{Theta,m} = diag(R(m theta_0), R(m theta_1), ..., R(m theta_{R/2-1}), I_{H-R})
//   R(phi)      = [cos phi  -sin phi]
//                 [sin phi   cos phi]
// where the 2x2 block of pair i acts on that pair's coordinates (spec.hpp, Pairing). With
// Pairing::interleaved the matrix is literally block-diagonal; with Pairing::half_split it is
// the same matrix with coordinates permuted: R_half = P R_interleaved P^T (pairing_permutation).
//
// apply_rope_reference is the obviously-correct scalar path every fast kernel is tested
// against: one pair at a time, cos/sin from the exactly reduced angle (angles.hpp), math in
// double, one rounding into T at the end. Error in double: < 1e-14 * |x| per pair; in float:
// the final rounding (half an ulp per coordinate) dominates.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <type_traits>

#include "posenc/angles.hpp"
#include "posenc/detail/pair_rotation.hpp"
#include "posenc/error.hpp"
#include "posenc/frequencies.hpp"
#include "posenc/spec.hpp"

namespace posenc {

/// R(phi) = [[cos, -sin], [sin, cos]], counter-clockwise by phi radians.
template <class Scalar = double>
Eigen::Matrix<Scalar, 2, 2> rotation_2x2(Scalar phi)
{
    using std::cos;
    using std::sin;
    Eigen::Matrix<Scalar, 2, 2> r;
    r << cos(phi), -sin(phi), sin(phi), cos(phi);
    return r;
}

namespace detail {
inline void require_matching_pairs(const RopeSpec& spec, const FrequencyTable& table)
{
    if (table.num_pairs() != spec.num_pairs())
        raise("table.num_pairs", table.num_pairs(),
              "must equal spec.num_pairs " + std::to_string(spec.num_pairs()) + " (rotary_dim / 2)");
}
}  // namespace detail

/// R_{Theta,m} of RoFormer eq. 15 as a head_dim x head_dim matrix, placed by spec.pairing();
/// cos/sin include table.attention_factor() (so it is a rotation times that factor on the
/// rotary slice) and the pass-through dims are the identity.
/// Throws posenc::error if table.num_pairs() != spec.num_pairs() or the position lies outside
/// the exact reduction's range (require_exact_angle_range: |position| <= 2^53,
/// |position * inv_freq| <= 2^50). Error as cos_sin (< 5e-15).
/// `Matrix` is always Eigen::MatrixXd: a template parameter only so that a translation unit that
/// never calls this does not instantiate Eigen's matrix classes (docs/benchmarks.md, "Compile time").
template <class Matrix = Eigen::MatrixXd>
Matrix rotation_matrix(const RopeSpec& spec, const FrequencyTable& table, std::int64_t position)
{
    static_assert(std::is_same_v<Matrix, Eigen::MatrixXd>, "rotation_matrix returns an Eigen::MatrixXd");
    detail::require_matching_pairs(spec, table);
    require_exact_angle_range("position", position, table);
    Matrix r = Matrix::Identity(spec.head_dim(), spec.head_dim());
    for (int i = 0; i < spec.num_pairs(); ++i) {
        const CosSin cs = cos_sin(table, position, i);
        const PairCoordinates p = spec.pair_coordinates(i);
        r(p.first, p.first) = cs.cos;
        r(p.first, p.second) = -cs.sin;
        r(p.second, p.first) = cs.sin;
        r(p.second, p.second) = cs.cos;
    }
    return r;
}

/// The permutation P with x_half_split = P x_interleaved for a spec's head: inside the rotated
/// slice (o = rotary_offset) coordinate o + 2i goes to o + i and o + 2i + 1 to o + i + R/2;
/// pass-through coordinates stay. Then R_half = P R_interleaved P^T.
/// `Permutation` is always Eigen::PermutationMatrix<Eigen::Dynamic> (a template parameter for
/// the same reason as rotation_matrix's).
template <class Permutation = Eigen::PermutationMatrix<Eigen::Dynamic>>
Permutation pairing_permutation(const RopeSpec& spec)
{
    static_assert(std::is_same_v<Permutation, Eigen::PermutationMatrix<Eigen::Dynamic>>,
                  "pairing_permutation returns an Eigen::PermutationMatrix<Eigen::Dynamic>");
    Permutation p(spec.head_dim());
    for (int d = 0; d < spec.head_dim(); ++d) p.indices()[d] = d;
    const int o = spec.rotary_offset();
    for (int i = 0; i < spec.num_pairs(); ++i) {
        p.indices()[o + 2 * i] = o + i;
        p.indices()[o + 2 * i + 1] = o + i + spec.num_pairs();
    }
    return p;
}

/// Rotates one head vector head[0 .. head_dim) in place to `position`: for every pair (a, b)
/// (spec.pair_coordinates: inside the slice [rotary_offset, rotary_offset + rotary_dim))
///   head[a] <- head[a] cos - head[b] sin,   head[b] <- head[b] cos + head[a] sin
/// with cos/sin of the exactly reduced angle times the attention factor, computed in double
/// and rounded once into T; coordinates outside the slice are not touched. A negative position
/// applies the inverse rotation (times the attention factor, as Hugging Face's cos, -sin does:
/// DeepSeek-V4 rotates its attention output back this way, RopeGroup::inverse_rope_on_output).
/// A pair of frequency 0 is left bit-identical when the attention factor is 1.
/// Throws posenc::error, before writing, if table.num_pairs() != spec.num_pairs() or the
/// position lies outside the exact reduction's range (require_exact_angle_range).
template <class T>
void apply_rope_reference(const RopeSpec& spec, const FrequencyTable& table, T* head, std::int64_t position)
{
    static_assert(std::is_floating_point_v<T>, "apply_rope_reference rotates float, double or long double data.");
    detail::require_matching_pairs(spec, table);
    require_exact_angle_range("position", position, table);
    for (int i = 0; i < spec.num_pairs(); ++i) {
        const CosSin cs = cos_sin(table, position, i);
        const PairCoordinates p = spec.pair_coordinates(i);
        const double a = static_cast<double>(head[p.first]);
        const double b = static_cast<double>(head[p.second]);
        const detail::RotatedPair<double> rotated = detail::rotate_pair(a, b, cs.cos, cs.sin);
        head[p.first] = static_cast<T>(rotated.first);
        head[p.second] = static_cast<T>(rotated.second);
    }
}

/// The same for a contiguous Eigen vector (Eigen::VectorXf, VectorXd, ...) of length
/// spec.head_dim(); throws posenc::error for any other length.
template <class Derived>
void apply_rope_reference(const RopeSpec& spec, const FrequencyTable& table, Eigen::PlainObjectBase<Derived>& head,
                          std::int64_t position)
{
    if (head.size() != spec.head_dim())
        detail::raise("head.size", static_cast<long long>(head.size()),
                      "must equal head_dim " + std::to_string(spec.head_dim()));
    apply_rope_reference(spec, table, head.data(), position);
}

}  // namespace posenc
