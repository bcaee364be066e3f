// SPDX-License-Identifier: MIT
// posenc/spec.hpp: RopeSpec, the validated description of a model's rotary embedding.
//
// Notation used across posenc:
//   head_dim  H   dimensions of one attention head
//   rotary_dim R  dimensions that rotate: the slice [o, o + R) of the head, the others pass through
//   rotary_offset o  first rotated coordinate (0, a prefix, for almost every model; DeepSeek-V4 and
//                 Mistral 4's MLA rotate the LAST R coordinates, o = H - R)
//   pairs     P = R / 2, pair index i in [0, P)
//   base      b   theta_i = b^(-2i/R)  (RoFormer eq. 15, 0-based as in its section 3.4.3)
//
// Pairing: which two coordinates of the rotary slice form pair i.
//   half_split   (i, i + R/2)   Hugging Face rotate_half, GPT-NeoX, Llama/Qwen checkpoints   [c c s s 0 0]
//   interleaved  (2i, 2i + 1)   GPT-J, RoFormer, Meta's reference code (complex pairs)       [c s c s 0 0]
// The two differ only by a permutation of coordinates (see rotation.hpp).
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <utility>

#include "posenc/error.hpp"

namespace posenc {

/// Which coordinates of the rotary slice are rotated together; see the file comment.
enum class Pairing { half_split, interleaved };

/// "half_split" or "interleaved".
inline const char* to_string(Pairing pairing) noexcept
{
    return pairing == Pairing::half_split ? "half_split" : "interleaved";
}

/// The two coordinates (first, second) of one rotating pair.
struct PairCoordinates {
    int first;
    int second;
};

/// A validated rotary-embedding description: head_dim, rotary_dim, base, pairing and the offset of
/// the rotated slice inside the head.
///
/// Invariants (checked on construction, posenc::error otherwise):
///   head_dim > 0;  rotary_dim even, > 0 and <= head_dim;  base finite and > 1;
///   rotary_offset >= 0 and rotary_offset + rotary_dim <= head_dim.
class RopeSpec
{
public:
    /// Contract: throws posenc::error naming the first field that breaks the invariants.
    RopeSpec(int head_dim, int rotary_dim, double base, Pairing pairing = Pairing::half_split, int rotary_offset = 0)
        : head_dim_(head_dim), rotary_dim_(rotary_dim), base_(base), pairing_(pairing), rotary_offset_(rotary_offset)
    {
        detail::require(head_dim > 0, "head_dim", head_dim, "must be > 0");
        detail::require(rotary_dim > 0, "rotary_dim", rotary_dim, "must be > 0");
        detail::require(rotary_dim % 2 == 0, "rotary_dim", rotary_dim, "must be even");
        detail::require(rotary_dim <= head_dim, "rotary_dim", rotary_dim,
                        ("must be <= head_dim " + std::to_string(head_dim)).c_str());
        detail::require(std::isfinite(base) && base > 1.0, "base", base, "must be finite and > 1");
        detail::require(pairing == Pairing::half_split || pairing == Pairing::interleaved, "pairing",
                        static_cast<int>(pairing), "must be Pairing::half_split or Pairing::interleaved");
        detail::require(rotary_offset >= 0, "rotary_offset", rotary_offset, "must be >= 0");
        detail::require(rotary_offset <= head_dim - rotary_dim, "rotary_offset", rotary_offset,
                        ("must be <= head_dim - rotary_dim = " + std::to_string(head_dim - rotary_dim) +
                         " (the rotated slice [rotary_offset, rotary_offset + rotary_dim) lies in the head)")
                            .c_str());
    }

    /// The same spec with the rotated slice moved to [rotary_offset, rotary_offset + rotary_dim).
    /// Throws as the constructor does.
    RopeSpec with_rotary_offset(int rotary_offset) const
    {
        return RopeSpec(head_dim_, rotary_dim_, base_, pairing_, rotary_offset);
    }

    /// The last rotary_dim coordinates of the head rotate (rotary_offset = head_dim - rotary_dim),
    /// as in DeepSeek-V4's attention and Mistral 4's MLA.
    static RopeSpec suffix(int head_dim, int rotary_dim, double base, Pairing pairing = Pairing::half_split)
    {
        return RopeSpec(head_dim, rotary_dim, base, pairing, head_dim - rotary_dim);
    }

    /// Every dimension of the head rotates (rotary_dim = head_dim).
    static RopeSpec full(int head_dim, double base, Pairing pairing = Pairing::half_split)
    {
        return RopeSpec(head_dim, head_dim, base, pairing);
    }

    /// Partial rotary from a fraction of the head, with Hugging Face's truncation
    /// rotary_dim = int(head_dim * factor) (a double multiply, then truncation toward zero,
    /// so 100 * 0.29 = 28.999... gives 28). Source: H1 (docs/formulas.md).
    /// Throws if factor is outside (0, 1] or the truncated rotary_dim is odd or zero.
    static RopeSpec from_partial_rotary_factor(int head_dim, double partial_rotary_factor, double base,
                                               Pairing pairing = Pairing::half_split)
    {
        detail::require(head_dim > 0, "head_dim", head_dim, "must be > 0");
        detail::require(std::isfinite(partial_rotary_factor) && partial_rotary_factor > 0.0 &&
                            partial_rotary_factor <= 1.0,
                        "partial_rotary_factor", partial_rotary_factor, "must be in (0, 1]");
        const int rotary_dim = static_cast<int>(static_cast<double>(head_dim) * partial_rotary_factor);
        return RopeSpec(head_dim, rotary_dim, base, pairing);
    }

    int head_dim() const noexcept { return head_dim_; }
    int rotary_dim() const noexcept { return rotary_dim_; }
    /// Number of rotating pairs, rotary_dim / 2 (a shift: rotary_dim is positive and even; GCC
    /// has emitted a division for the signed / 2 in the kernels' entry tests).
    int num_pairs() const noexcept { return rotary_dim_ >> 1; }
    /// Dimensions that pass through unchanged, head_dim - rotary_dim.
    int pass_through_dim() const noexcept { return head_dim_ - rotary_dim_; }
    /// First rotated coordinate of the head: the rotated slice is [rotary_offset, rotary_offset + rotary_dim).
    int rotary_offset() const noexcept { return rotary_offset_; }
    double base() const noexcept { return base_; }
    Pairing pairing() const noexcept { return pairing_; }

    /// Coordinates of pair i within the head (rotary_offset included). Precondition: 0 <= i < num_pairs().
    PairCoordinates pair_coordinates(int i) const noexcept
    {
        if (pairing_ == Pairing::half_split) return {rotary_offset_ + i, rotary_offset_ + i + num_pairs()};
        return {rotary_offset_ + 2 * i, rotary_offset_ + 2 * i + 1};
    }

    friend bool operator==(const RopeSpec& a, const RopeSpec& b) noexcept
    {
        return a.head_dim_ == b.head_dim_ && a.rotary_dim_ == b.rotary_dim_ && a.base_ == b.base_ &&
               a.pairing_ == b.pairing_ && a.rotary_offset_ == b.rotary_offset_;
    }
    friend bool operator!=(const RopeSpec& a, const RopeSpec& b) noexcept { return !(a == b); }

private:
    int head_dim_;
    int rotary_dim_;
    double base_;
    Pairing pairing_;
    int rotary_offset_;
};

}  // namespace posenc
