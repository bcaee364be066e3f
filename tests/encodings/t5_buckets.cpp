// SPDX-License-Identifier: MIT
// T5 relative position buckets (include/posenc/encodings/t5_buckets.hpp), Raffel et al. 2020
// section 2.1 and Hugging Face T5Attention._relative_position_bucket.
// Expected values: P5 (docs/formulas.md) (sample ids, bucket boundaries,
// unidirectional samples), and the bucket starts of two more settings computed with python3 +
// mpmath at 50 digits by an independent transcription of the same formula:
//   unidirectional (32, 128): buckets 16..31 start at 16 19 21 24 27 31 35 40 46 52 59 67 77 87 99 113
//   bidirectional (64, 256), per side: buckets 16..31 start at 16 20 23 27 32 39 46 54 64 77 91 108 128 153 182 216
#include <posenc/encodings/t5_buckets.hpp>

#include <doctest/doctest.h>

#include <Eigen/Core>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace encodings_t5_buckets_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {
namespace enc = posenc::encodings;
}  // namespace

TEST_CASE("[T5 / P5] bidirectional, 32 buckets, max_distance 128: the sample ids (-200 -> 15, +90 -> 30, +91 -> 31)")
{
    const enc::T5RelativeBuckets t5;  // the defaults: 32, 128, bidirectional
    CHECK(t5.num_buckets() == 32);
    CHECK(t5.max_distance() == 128);
    CHECK(t5.max_exact() == 8);
    const std::vector<std::pair<int, int>> samples {{-200, 15}, {-128, 15}, {-100, 15}, {-64, 14}, {-63, 13}, {-32, 12},
                                                    {-16, 10},  {-8, 8},    {-7, 7},    {-1, 1},   {0, 0},    {1, 17},
                                                    {7, 23},    {8, 24},    {16, 26},   {32, 28},  {64, 30},  {90, 30},
                                                    {91, 31},   {128, 31},  {200, 31}};
    for (const std::pair<int, int>& sample : samples) {
        const int relative = sample.first, expected = sample.second;
        CAPTURE(relative);
        CHECK(t5.bucket(relative) == expected);
        CHECK(t5.bucket(1000, 1000 + relative) == expected);  // (query, key) form, key - query = relative
    }
}

TEST_CASE("[T5 / P5] bucket boundaries: |rel| 0-7 exact, then 8, 12, 16, 23, 32, 46, 64, 91 start buckets 8..15")
{
    const enc::T5RelativeBuckets t5;
    CHECK(t5.buckets_per_side() == 16);
    for (int b = 0; b < 8; ++b) CHECK(t5.smallest_distance_in_bucket(b) == b);
    const std::vector<std::int64_t> starts {8, 12, 16, 23, 32, 46, 64, 91};
    for (int b = 8; b < 16; ++b) {
        const std::int64_t start = starts[static_cast<std::size_t>(b - 8)];
        CAPTURE(b);
        CHECK(t5.smallest_distance_in_bucket(b) == start);
        // Both sides: keys before the query in b, keys after in b + 16; one less falls in b - 1.
        CHECK(t5.bucket(-start) == b);
        CHECK(t5.bucket(start) == b + 16);
        CHECK(t5.bucket(-(start - 1)) == b - 1);
    }
    // Saturation already at 91, not 128: max_distance only sets the log scale.
    for (std::int64_t n : {91, 128, 1000, 1000000}) CHECK(t5.bucket(-n) == 15);
}

TEST_CASE("[T5 / P5] unidirectional (decoder): -200 -> 31, -64 -> 26, -32 -> 21, -16 -> 16, -15 -> 15, rel >= 0 -> 0")
{
    const enc::T5RelativeBuckets t5(32, 128, enc::BucketDirection::unidirectional);
    CHECK(t5.max_exact() == 16);
    CHECK(t5.bucket(-200) == 31);
    CHECK(t5.bucket(-64) == 26);
    CHECK(t5.bucket(-32) == 21);
    CHECK(t5.bucket(-16) == 16);
    CHECK(t5.bucket(-15) == 15);
    for (std::int64_t rel : {0, 1, 5, 1000}) CHECK(t5.bucket(rel) == 0);

    const std::vector<std::int64_t> starts {16, 19, 21, 24, 27, 31, 35, 40, 46, 52, 59, 67, 77, 87, 99, 113};  // mpmath
    for (int b = 16; b < 32; ++b) CHECK(t5.smallest_distance_in_bucket(b) == starts[static_cast<std::size_t>(b - 16)]);
}

TEST_CASE("[mpmath] bidirectional, 64 buckets, max_distance 256: exact boundaries 32, 64, 128 land on their buckets")
{
    const enc::T5RelativeBuckets t5(64, 256);
    CHECK(t5.max_exact() == 16);
    const std::vector<std::int64_t> starts {16, 20, 23, 27, 32, 39, 46, 54, 64, 77, 91, 108, 128, 153, 182, 216};
    for (int b = 16; b < 32; ++b) CHECK(t5.smallest_distance_in_bucket(b) == starts[static_cast<std::size_t>(b - 16)]);
    // Sample ids (mpmath): -1000 -> 31, -255 -> 31, -100 -> 26, +17 -> 48, +100 -> 58, +200 -> 62, +255 -> 63.
    CHECK(t5.bucket(-1000) == 31);
    CHECK(t5.bucket(-255) == 31);
    CHECK(t5.bucket(-100) == 26);
    CHECK(t5.bucket(17) == 48);
    CHECK(t5.bucket(100) == 58);
    CHECK(t5.bucket(200) == 62);
    CHECK(t5.bucket(255) == 63);
}

TEST_CASE("[T5] buckets depend only on key - query: matrix, bias, and extreme positions")
{
    const enc::T5RelativeBuckets t5;
    const Eigen::MatrixXi m = t5.bucket_matrix(5, 7);
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 7; ++j) CHECK(m(i, j) == t5.bucket(j - i));

    Eigen::VectorXd per_bucket(32);
    for (int b = 0; b < 32; ++b) per_bucket(b) = 0.25 * b - 3.0;
    const Eigen::MatrixXd bias = t5.bias(per_bucket, 5, 7);
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 7; ++j) CHECK(bias(i, j) == per_bucket(m(i, j)));

    // No overflow at the ends of int64: the farthest keys saturate.
    const std::int64_t lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
    CHECK(t5.bucket(lo) == 15);
    CHECK(t5.bucket(hi) == 31);
    CHECK(t5.bucket(hi, lo) == 15);
    CHECK(t5.bucket(lo, hi) == 31);
}

}  // namespace encodings_t5_buckets_tests
