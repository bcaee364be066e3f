// SPDX-License-Identifier: MIT
// posenc/encodings/t5_buckets.hpp: T5's relative position buckets.
//
// Raffel et al. 2020 ("Exploring the Limits of Transfer Learning...", JMLR, arXiv 1910.10683)
// section 2.1: each attention head adds a learned scalar per bucket of the relative position
// rel = key - query; buckets are exact for small |rel| and logarithmically wider up to
// max_distance, beyond which everything shares the last bucket. The rule below is the one of
// Hugging Face's T5Attention._relative_position_bucket (identical to mesh-tensorflow); see
// P5 (docs/formulas.md)
//
//   bidirectional (encoder):  nb = num_buckets / 2; offset = nb if rel > 0 else 0; n = |rel|
//   unidirectional (decoder): nb = num_buckets;     offset = 0;                   n = max(-rel, 0)
//   max_exact = nb / 2
//   bucket = offset + n                                                           if n < max_exact
//          = offset + min(nb - 1, max_exact + floor(ln(n / max_exact) / ln(max_distance / max_exact)
//                                                    * (nb - max_exact)))        otherwise
//
// Defaults (32 buckets, max_distance 128, bidirectional): |rel| 0-7 exact; 8-11, 12-15, 16-22,
// 23-31, 32-45, 46-63, 64-90, >= 91 share buckets 8..15 (+16 when the key is after the query).
// The last bucket already starts at 91, not 128: max_distance only sets the log scale.
//
// Arithmetic: the log term is computed in double and a value within 1e-9 of an integer is taken
// as that integer, so the exact boundaries (n = max_exact * (max_distance/max_exact)^(j/(nb - max_exact)),
// e.g. 16, 32, 64 for the defaults) land where exact arithmetic puts them. P5 (docs/formulas.md)
// checked that Hugging Face's float32 computation gives the same ids for |rel| <= 300 with the
// defaults; elsewhere float32 may differ from exact arithmetic by one bucket right at a boundary.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <string>

#include "posenc/encodings/shaw_relative.hpp"  // detail::signed_distance
#include "posenc/error.hpp"

namespace posenc {
namespace encodings {

/// Whether keys after the query get buckets of their own.
enum class BucketDirection {
    bidirectional,  ///< encoder: half the buckets for keys before (or at) the query, half for after
    unidirectional,  ///< decoder: only keys at or before the query are told apart; later keys share bucket 0
};

/// T5's bucketing of relative positions for one (num_buckets, max_distance, direction).
///
/// Invariants (checked on construction, posenc::error otherwise): num_buckets even and >= 4 when
/// bidirectional, >= 2 when unidirectional (so max_exact >= 1); max_distance > max_exact (the
/// exact range; the log scale ln(max_distance / max_exact) must be > 0).
class T5RelativeBuckets
{
public:
    explicit T5RelativeBuckets(int num_buckets = 32, int max_distance = 128,
                               BucketDirection direction = BucketDirection::bidirectional)
        : num_buckets_(num_buckets), max_distance_(max_distance), direction_(direction)
    {
        using posenc::detail::require;
        require(direction == BucketDirection::bidirectional || direction == BucketDirection::unidirectional,
                "direction", static_cast<int>(direction),
                "must be BucketDirection::bidirectional or BucketDirection::unidirectional");
        require(num_buckets > 0, "num_buckets", num_buckets, "must be > 0");
        if (direction == BucketDirection::bidirectional) {
            require(num_buckets % 2 == 0, "num_buckets", num_buckets,
                    "must be even when bidirectional (half for keys before the query, half for after)");
            require(num_buckets >= 4, "num_buckets", num_buckets, "must be >= 4 when bidirectional (max_exact >= 1)");
        } else {
            require(num_buckets >= 2, "num_buckets", num_buckets, "must be >= 2 when unidirectional (max_exact >= 1)");
        }
        require(max_distance > max_exact(), "max_distance", max_distance,
                ("must be > max_exact " + std::to_string(max_exact()) + " (the exact range)").c_str());
    }

    int num_buckets() const noexcept { return num_buckets_; }
    int max_distance() const noexcept { return max_distance_; }
    BucketDirection direction() const noexcept { return direction_; }
    /// Buckets per side: num_buckets / 2 when bidirectional, num_buckets otherwise.
    int buckets_per_side() const noexcept
    {
        return direction_ == BucketDirection::bidirectional ? num_buckets_ / 2 : num_buckets_;
    }
    /// Distances below this get a bucket each: buckets_per_side() / 2.
    int max_exact() const noexcept { return buckets_per_side() / 2; }

    /// The bucket of rel = key - query, in [0, num_buckets) (file comment). Any int64 rel.
    int bucket(std::int64_t relative_position) const noexcept
    {
        return bucket_of(relative_position < 0, magnitude(relative_position));
    }

    /// The bucket of key_position - query_position, computed without overflow for any int64 positions.
    int bucket(std::int64_t query_position, std::int64_t key_position) const noexcept
    {
        const detail::SignedDistance d = detail::signed_distance(query_position, key_position);
        return bucket_of(d.negative, d.magnitude);
    }

    /// query_length x key_length matrix of bucket(key j - query i) for positions 0 .. length - 1.
    /// Throws unless both lengths are > 0.
    Eigen::MatrixXi bucket_matrix(int query_length, int key_length) const
    {
        posenc::detail::require(query_length > 0, "query_length", query_length, "must be > 0");
        posenc::detail::require(key_length > 0, "key_length", key_length, "must be > 0");
        Eigen::MatrixXi m(query_length, key_length);
        for (int i = 0; i < query_length; ++i)
            for (int j = 0; j < key_length; ++j) m(i, j) = bucket(static_cast<std::int64_t>(j) - i);
        return m;
    }

    /// T5's per-head position bias: bias(i, j) = bucket_values[bucket(j - i)], to be added to the
    /// attention logits. Throws unless bucket_values has num_buckets finite entries and both lengths > 0.
    Eigen::MatrixXd bias(const Eigen::VectorXd& bucket_values, int query_length, int key_length) const
    {
        posenc::detail::require(bucket_values.size() == num_buckets_, "bucket_values.size",
                                static_cast<long long>(bucket_values.size()),
                                ("must equal num_buckets " + std::to_string(num_buckets_)).c_str());
        for (Eigen::Index b = 0; b < bucket_values.size(); ++b)
            if (!std::isfinite(bucket_values(b)))
                posenc::detail::raise("bucket_values(" + std::to_string(b) + ")", bucket_values(b), "must be finite");
        const Eigen::MatrixXi buckets = bucket_matrix(query_length, key_length);
        Eigen::MatrixXd out(query_length, key_length);
        for (int i = 0; i < query_length; ++i)
            for (int j = 0; j < key_length; ++j) out(i, j) = bucket_values(buckets(i, j));
        return out;
    }

    /// The smallest distance n = |rel| (bidirectional) or -rel (unidirectional) that falls in
    /// bucket `b` of its side, for b in [0, buckets_per_side()); -1 if no distance does (a log
    /// bucket skipped because two boundaries fall between the same integers). The start of the
    /// last bucket is where saturation begins (91 for the defaults).
    /// Throws unless 0 <= b < buckets_per_side().
    std::int64_t smallest_distance_in_bucket(int b) const
    {
        posenc::detail::require(
            b >= 0 && b < buckets_per_side(), "bucket", b,
            ("must be in [0, buckets_per_side " + std::to_string(buckets_per_side()) + ")").c_str());
        if (b < max_exact()) return b;
        // side_bucket is non-decreasing in n and reaches the last bucket by n = max_distance:
        // binary search for the first n with side_bucket(n) >= b.
        std::uint64_t lo = static_cast<std::uint64_t>(max_exact()), hi = static_cast<std::uint64_t>(max_distance_);
        while (lo < hi) {
            const std::uint64_t mid = lo + (hi - lo) / 2;
            if (side_bucket(mid) >= b) hi = mid;
            else lo = mid + 1;
        }
        return side_bucket(lo) == b ? static_cast<std::int64_t>(lo) : -1;
    }

private:
    static std::uint64_t magnitude(std::int64_t rel) noexcept
    {
        return rel < 0 ? static_cast<std::uint64_t>(0) - static_cast<std::uint64_t>(rel)
                       : static_cast<std::uint64_t>(rel);
    }

    // Bucket within one side for a distance n >= 0.
    int side_bucket(std::uint64_t n) const noexcept
    {
        const int nb = buckets_per_side();
        const int exact = max_exact();
        if (n < static_cast<std::uint64_t>(exact)) return static_cast<int>(n);
        const double scaled = std::log(static_cast<double>(n) / exact) /
                              std::log(static_cast<double>(max_distance_) / exact) * (nb - exact);
        const double nearest = std::nearbyint(scaled);
        const double steps = std::abs(scaled - nearest) <= 1e-9 ? nearest : std::floor(scaled);
        return steps >= static_cast<double>(nb - 1 - exact) ? nb - 1 : exact + static_cast<int>(steps);
    }

    int bucket_of(bool key_before_query, std::uint64_t n) const noexcept
    {
        if (direction_ == BucketDirection::bidirectional) {
            const int offset = (!key_before_query && n > 0) ? buckets_per_side() : 0;
            return offset + side_bucket(n);
        }
        return key_before_query ? side_bucket(n) : 0;
    }

    int num_buckets_;
    int max_distance_;
    BucketDirection direction_;
};

}  // namespace encodings
}  // namespace posenc
