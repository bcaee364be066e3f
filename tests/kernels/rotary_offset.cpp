// SPDX-License-Identifier: MIT
// A rotated slice that does not start the head, [rotary_offset, rotary_offset + rotary_dim)
// (RopeSpec::rotary_offset): every kernel path against the foundation's scalar reference
// (rotation.hpp apply_rope_reference and multi_axis.hpp apply_multi_axis_rope_reference, which
// place pair i at RopeSpec::pair_coordinates(i), the offset included; double, exact angles).
// Shapes from the models that rotate the end of the head: DeepSeek-V4 (the last 64 of 512
// coordinates, interleaved pairs), Mistral 4 (the last 64 of 128), each with both pairings, and a
// slice in the middle of the head whose pairs end in a partial register. Every buffer has guard
// elements before, after and between the heads: they, and every coordinate outside the slice
// (left in place, copied out of place), must keep their bits.
// Tolerances, the headers' error analyses: apply (apply.hpp) 4 ulp of A |x| per pair coordinate,
// plus half an ulp of a 16-bit format, double 1e-13 A |x|; QK-norm + RoPE (qk_norm_rope.hpp)
// (n/2 + 9) u A |y| per rotated coordinate and (n/2 + 6) u |y_d| per other coordinate.
// The inverse direction is checked against the reference at -position (R(-m theta)).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <posenc/kernels/fused_dispatch.hpp>
#include <posenc/multi_axis.hpp>
#include <posenc/rotation.hpp>

#include "kernel_test_support.hpp"
#include "rotary_slice_support.hpp"

namespace kernels_rotary_offset_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using namespace posenc::kernels;
using kernel_test::ArchPath;
using rotary_slice_test::Expected;
using rotary_slice_test::Failure;
using rotary_slice_test::Geometry;

constexpr double u = 5.9604644775390625e-08;  // 2^-24

struct Shape {
    int head_dim, rotary_dim, offset;
    const char* source;
};

const Shape shapes[] = {
    {512, 64, 448, "DeepSeek-V4: the last 64 of 512"},
    {128, 64, 64, "Mistral 4: the last 64 of 128"},
    {96, 34, 30, "a slice inside the head, pairs ending in a partial register"},
};

std::string describe(const Shape& s, posenc::Pairing pairing)
{
    return std::string(s.source) + " " + posenc::to_string(pairing);
}

/// The table of a shape: rotary_dim's default frequencies, with an attention factor on the Mistral shape.
posenc::FrequencyTable table_of(const posenc::RopeSpec& spec)
{
    return posenc::FrequencyTable(posenc::FrequencyTable::from_spec(spec).inv_freq(),
                                  spec.head_dim() == 128 ? 1.1386294361119891 : 1.0);
}

const std::vector<std::int64_t> position_ids = {7, 4095, 1000};

/// apply's tolerance for coordinate d of a head x rotated to `got`.
template <class T>
double apply_tolerance(const posenc::RopeSpec& spec, const posenc::FrequencyTable& table, const std::vector<double>& x,
                       std::ptrdiff_t d, double got)
{
    const double scale = table.attention_factor() * rotary_slice_test::pair_norm(spec, x, d);
    if constexpr (std::is_same_v<T, double>) return 1e-13 * scale;
    else
        return 4 * kernel_test::float_ulp(scale) +
               (std::is_same_v<T, float> ? 0.0 : kernel_test::half_ulp<T>(std::fabs(got)));
}

/// The expectation of an apply call on one tensor: the reference rotation at the token's
/// position (negated for the inverse) on the slice, the input's bits elsewhere.
template <class T>
auto apply_expectation(const posenc::RopeSpec& spec, const posenc::FrequencyTable& table, const std::vector<T>& input,
                       const Geometry& g, const std::vector<std::int64_t>& ids, Direction direction)
{
    const std::vector<char> rotated = rotary_slice_test::rotated_coordinates(spec);
    return [&spec, &table, &input, g, ids, direction, rotated](std::ptrdiff_t t, std::ptrdiff_t h, std::ptrdiff_t d) {
        const std::vector<double> x = rotary_slice_test::head_of(input, g, t, h);
        if (!rotated[static_cast<std::size_t>(d)]) return Expected {x[static_cast<std::size_t>(d)], 0.0, true};
        std::vector<double> ref = x;
        const std::int64_t m = ids[static_cast<std::size_t>(t)];
        posenc::apply_rope_reference(spec, table, ref.data(), direction == Direction::forward ? m : -m);
        const double want = ref[static_cast<std::size_t>(d)];
        return Expected {want, apply_tolerance<T>(spec, table, x, d, want), false};
    };
}

template <class T, class Angles>
void check_apply(const ArchPath& path, const posenc::RopeSpec& spec, const posenc::FrequencyTable& table,
                 const Angles& angles, bool in_place, Direction direction, const std::string& what, Failure& failure)
{
    std::mt19937 rng(11);
    const Geometry gq {3, 3, spec.head_dim(), 5}, gk {3, 2, spec.head_dim(), 3};
    std::vector<T> q_in = rotary_slice_test::make_buffer<T>(gq, rng), k_in = rotary_slice_test::make_buffer<T>(gk, rng);
    const std::vector<T> q_before = q_in, k_before = k_in;
    std::vector<T> q_out(q_in.size(), rotary_slice_test::guard_value<T>()),
        k_out(k_in.size(), rotary_slice_test::guard_value<T>());
    const std::vector<T> q_out_before = q_out, k_out_before = k_out;
    const QKViews<T> views =
        in_place
            ? QKViews<T>::in_place(rotary_slice_test::view_of(q_in, gq), rotary_slice_test::view_of(k_in, gk))
            : QKViews<T>::out_of_place(rotary_slice_test::view_of(q_in, gq), rotary_slice_test::view_of(q_out, gq),
                                       rotary_slice_test::view_of(k_in, gk), rotary_slice_test::view_of(k_out, gk));
    kernel_test::apply_on(path, spec, angles, PositionIds(position_ids), views, direction);
    const std::string call = what + (in_place ? " in place" : " out of place") +
                             (direction == Direction::forward ? " forward " : " inverse ") +
                             kernel_test::type_name<T>();
    rotary_slice_test::compare(in_place ? q_before : q_out_before, in_place ? q_in : q_out, gq,
                               apply_expectation(spec, table, q_before, gq, position_ids, direction), call + " Q",
                               failure);
    rotary_slice_test::compare(in_place ? k_before : k_out_before, in_place ? k_in : k_out, gk,
                               apply_expectation(spec, table, k_before, gk, position_ids, direction), call + " K",
                               failure);
    if (!in_place && (!rotary_slice_test::same_bits(q_in, q_before) || !rotary_slice_test::same_bits(k_in, k_before)))
        failure.note(call + ": an input view was written");
}

TEST_CASE_TEMPLATE(
    "[reference] apply_rope on a slice at rotary_offset equals apply_rope_reference, every arch path, both directions",
    T, float, posenc::bfloat16, posenc::float16, double)
{
    Failure failure;
    int calls = 0;
    for (const ArchPath& path : kernel_test::arch_paths()) {
        if (std::is_same_v<T, double> && path.dispatched) continue;  // double: the reference path, in the calling unit
        for (const Shape& s : shapes)
            for (posenc::Pairing pairing : {posenc::Pairing::interleaved, posenc::Pairing::half_split}) {
                const posenc::RopeSpec spec(s.head_dim, s.rotary_dim, 1e4, pairing, s.offset);
                const posenc::FrequencyTable table = table_of(spec);
                const CosSinCache cache(table, 4096);
                const OnTheFlyAngles on_the_fly(table, 1 << 20);
                for (bool in_place : {true, false})
                    for (Direction direction : {Direction::forward, Direction::inverse}) {
                        const std::string what = path.name + " " + describe(s, pairing);
                        check_apply<T>(path, spec, table, cache, in_place, direction, what + " cache", failure);
                        check_apply<T>(path, spec, table, on_the_fly, in_place, direction, what + " on-the-fly",
                                       failure);
                        calls += 2;
                    }
            }
    }
    CHECK(calls >= 48);
    CHECK_MESSAGE(failure.count == 0, failure.first);
}

TEST_CASE_TEMPLATE(
    "[reference] the decode step (one token, Q alone in place) on a slice at rotary_offset equals apply_rope_reference",
    T, float, posenc::bfloat16, posenc::float16)
{
    Failure failure;
    for (const Shape& s : shapes)
        for (posenc::Pairing pairing : {posenc::Pairing::interleaved, posenc::Pairing::half_split}) {
            const posenc::RopeSpec spec(s.head_dim, s.rotary_dim, 1e4, pairing, s.offset);
            const posenc::FrequencyTable table = table_of(spec);
            const CosSinCache cache(table, 4096);
            for (int entry = 0; entry < 4; ++entry)
                for (std::ptrdiff_t heads : {1, 4}) {
                    std::mt19937 rng(3);
                    const Geometry g {1, heads, s.head_dim, 2};
                    std::vector<T> q = rotary_slice_test::make_buffer<T>(g, rng);
                    const std::vector<T> before = q;
                    const QKViews<T> views = QKViews<T>::in_place(rotary_slice_test::view_of(q, g));
                    const PositionIds at = PositionIds::contiguous(2049);
                    const TokenRange all {0, 1};
                    switch (entry) {
                    case 0: apply_rope(spec, cache, at, views); break;
                    case 1: apply_rope(spec, cache, at, views, Direction::forward, all); break;
                    case 2: dispatch::apply_rope(spec, cache, at, views); break;
                    default: dispatch::apply_rope(spec, cache, at, views, Direction::forward, all); break;
                    }
                    const std::string what = describe(s, pairing) + " entry " + std::to_string(entry) + " heads " +
                                             std::to_string(heads) + " " + kernel_test::type_name<T>();
                    rotary_slice_test::compare(before, q, g,
                                               apply_expectation(spec, table, before, g, {2049}, Direction::forward),
                                               what, failure);
                }
        }
    CHECK_MESSAGE(failure.count == 0, failure.first);
}

TEST_CASE_TEMPLATE(
    "[reference] apply_multi_axis_rope on a slice at rotary_offset equals apply_multi_axis_rope_reference", T, float,
    posenc::bfloat16, double)
{
    Failure failure;
    for (const ArchPath& path : kernel_test::arch_paths()) {
        if (std::is_same_v<T, double> && path.dispatched) continue;
        for (const Shape& s : shapes)
            for (posenc::Pairing pairing : {posenc::Pairing::interleaved, posenc::Pairing::half_split}) {
                const posenc::RopeSpec spec(s.head_dim, s.rotary_dim, 1e4, pairing, s.offset);
                const posenc::FrequencyTable table = table_of(spec);
                const CosSinCache cache(table, 4096);
                std::vector<int> axis_of_pair(static_cast<std::size_t>(spec.num_pairs()));
                for (std::size_t i = 0; i < axis_of_pair.size(); ++i) axis_of_pair[i] = static_cast<int>(i % 2);
                const posenc::MultiAxisLayout layout = posenc::MultiAxisLayout::from_pair_axes(axis_of_pair, 2);
                const std::vector<std::int64_t> ids = {3, 40, 17, 17, 4000, 9};  // [token][axis]
                const MultiAxisPositions positions(ids, 2);
                for (bool in_place : {true, false}) {
                    std::mt19937 rng(5);
                    const Geometry g {3, 3, s.head_dim, 4};
                    std::vector<T> in = rotary_slice_test::make_buffer<T>(g, rng);
                    const std::vector<T> before = in;
                    std::vector<T> out(in.size(), rotary_slice_test::guard_value<T>());
                    const std::vector<T> out_before = out;
                    const QKViews<T> views = in_place ? QKViews<T>::in_place(rotary_slice_test::view_of(in, g))
                                                      : QKViews<T>::out_of_place(rotary_slice_test::view_of(in, g),
                                                                                 rotary_slice_test::view_of(out, g));
                    if (path.dispatched)
                        dispatch::apply_multi_axis_rope_on(path.isa, spec, layout, cache, positions, views);
                    else apply_multi_axis_rope(spec, layout, cache, positions, views);
                    const std::vector<char> rotated = rotary_slice_test::rotated_coordinates(spec);
                    auto expect = [&](std::ptrdiff_t t, std::ptrdiff_t h, std::ptrdiff_t d) {
                        const std::vector<double> x = rotary_slice_test::head_of(before, g, t, h);
                        if (!rotated[static_cast<std::size_t>(d)])
                            return Expected {x[static_cast<std::size_t>(d)], 0.0, true};
                        std::vector<double> ref = x;
                        posenc::apply_multi_axis_rope_reference(spec, table, layout, ref.data(), ids.data() + 2 * t);
                        const double want = ref[static_cast<std::size_t>(d)];
                        return Expected {want, apply_tolerance<T>(spec, table, x, d, want), false};
                    };
                    const std::string what = path.name + " " + describe(s, pairing) +
                                             (in_place ? " in place " : " out of place ") + kernel_test::type_name<T>();
                    rotary_slice_test::compare(in_place ? before : out_before, in_place ? in : out, g, expect, what,
                                               failure);
                }
            }
    }
    CHECK_MESSAGE(failure.count == 0, failure.first);
}

/// The long double RMSNorm of a head (from its definition) with weights w (offset 0), as doubles.
std::vector<double> normalised(const std::vector<double>& x, const std::vector<float>& w, float eps)
{
    long double sum = 0.0L;
    for (double v : x) sum += static_cast<long double>(v) * static_cast<long double>(v);
    const long double rms = std::sqrt(sum / static_cast<long double>(x.size()) + static_cast<long double>(eps));
    std::vector<double> y(x.size());
    for (std::size_t d = 0; d < x.size(); ++d)
        y[d] = static_cast<double>(static_cast<long double>(x[d]) / rms * static_cast<long double>(w[d]));
    return y;
}

/// The expectation of the QK-norm + RoPE of one tensor (qk_norm_rope.hpp's bound): the norm over
/// the whole head, then the reference rotation of the slice at the token's position.
template <class T>
auto norm_expectation(const posenc::RopeSpec& spec, const posenc::FrequencyTable& table, const std::vector<T>& input,
                      const Geometry& g, const std::vector<float>& w, float eps)
{
    const std::vector<char> rotated = rotary_slice_test::rotated_coordinates(spec);
    return [&spec, &table, &input, g, &w, eps, rotated](std::ptrdiff_t t, std::ptrdiff_t h, std::ptrdiff_t d) {
        const std::vector<double> y = normalised(rotary_slice_test::head_of(input, g, t, h), w, eps);
        std::vector<double> ref = y;
        posenc::apply_rope_reference(spec, table, ref.data(), position_ids[static_cast<std::size_t>(t)]);
        const double want = ref[static_cast<std::size_t>(d)];
        const double n = static_cast<double>(spec.head_dim());
        const double scale = rotated[static_cast<std::size_t>(d)]
                                 ? (n / 2 + 9) * u * table.attention_factor() * rotary_slice_test::pair_norm(spec, y, d)
                                 : (n / 2 + 6) * u * std::fabs(y[static_cast<std::size_t>(d)]);
        const double tolerance = std::is_same_v<T, double> ? 1e-13 * (std::fabs(want) + 1.0)
                                                           : scale + kernel_test::half_ulp<T>(std::fabs(want)) * 1.01;
        return Expected {want, tolerance, false};
    };
}

TEST_CASE_TEMPLATE(
    "[reference] qk_norm_rope on a slice at rotary_offset: the norm over the whole head, the rotation of the slice", T,
    float, posenc::bfloat16, posenc::float16, double)
{
    Failure failure;
    for (const ArchPath& path : kernel_test::arch_paths()) {
        if (std::is_same_v<T, double> && path.dispatched) continue;
        for (const Shape& s : shapes)
            for (posenc::Pairing pairing : {posenc::Pairing::interleaved, posenc::Pairing::half_split}) {
                const posenc::RopeSpec spec(s.head_dim, s.rotary_dim, 1e4, pairing, s.offset);
                const posenc::FrequencyTable table = table_of(spec);
                const OnTheFlyAngles angles(table, 1 << 20);
                std::mt19937 rng(9);
                std::normal_distribution<float> wd(1.0f, 0.3f);
                std::vector<float> q_weight(static_cast<std::size_t>(s.head_dim)), k_weight(q_weight.size());
                for (float& w : q_weight) w = wd(rng);
                for (float& w : k_weight) w = wd(rng);
                const QkNorm norm {NormWeighting::weight, 1e-6f, q_weight, k_weight};
                for (bool in_place : {true, false}) {
                    const Geometry gq {3, 3, s.head_dim, 5}, gk {3, 2, s.head_dim, 0};
                    std::vector<T> q_in = rotary_slice_test::make_buffer<T>(gq, rng),
                                   k_in = rotary_slice_test::make_buffer<T>(gk, rng);
                    const std::vector<T> q_before = q_in, k_before = k_in;
                    std::vector<T> q_out(q_in.size(), rotary_slice_test::guard_value<T>()),
                        k_out(k_in.size(), rotary_slice_test::guard_value<T>());
                    const std::vector<T> q_out_before = q_out, k_out_before = k_out;
                    const QKViews<T> views = in_place ? QKViews<T>::in_place(rotary_slice_test::view_of(q_in, gq),
                                                                             rotary_slice_test::view_of(k_in, gk))
                                                      : QKViews<T>::out_of_place(rotary_slice_test::view_of(q_in, gq),
                                                                                 rotary_slice_test::view_of(q_out, gq),
                                                                                 rotary_slice_test::view_of(k_in, gk),
                                                                                 rotary_slice_test::view_of(k_out, gk));
                    if constexpr (std::is_same_v<T, double>)
                        qk_norm_rope(spec, norm, angles, PositionIds(position_ids), views);
                    else if (path.dispatched)
                        dispatch::qk_norm_rope_on(path.isa, spec, norm, angles, PositionIds(position_ids), views);
                    else qk_norm_rope(spec, norm, angles, PositionIds(position_ids), views);
                    const std::string what = path.name + " " + describe(s, pairing) +
                                             (in_place ? " in place " : " out of place ") + kernel_test::type_name<T>();
                    rotary_slice_test::compare(in_place ? q_before : q_out_before, in_place ? q_in : q_out, gq,
                                               norm_expectation(spec, table, q_before, gq, q_weight, 1e-6f),
                                               what + " Q", failure);
                    rotary_slice_test::compare(in_place ? k_before : k_out_before, in_place ? k_in : k_out, gk,
                                               norm_expectation(spec, table, k_before, gk, k_weight, 1e-6f),
                                               what + " K", failure);
                }
            }
    }
    CHECK_MESSAGE(failure.count == 0, failure.first);
}

/// K (and Q in place) of three tokens into a cache of T, slots in reverse token order, with or
/// without the QK-norm: the cache rows hold the reference (apply's or the norm's), Q likewise.
template <class T>
void check_cache_write(const ArchPath& path, const posenc::RopeSpec& spec, bool with_norm, const std::string& what,
                       Failure& failure)
{
    const posenc::FrequencyTable table = table_of(spec);
    const CosSinCache angles(table, 4096);
    std::mt19937 rng(13);
    std::normal_distribution<float> wd(1.0f, 0.3f);
    std::vector<float> q_weight(static_cast<std::size_t>(spec.head_dim())), k_weight(q_weight.size());
    for (float& w : q_weight) w = wd(rng);
    for (float& w : k_weight) w = wd(rng);
    const QkNorm norm {NormWeighting::weight, 1e-6f, q_weight, k_weight};
    const Geometry gq {3, 2, spec.head_dim(), 3}, gk {3, 2, spec.head_dim(), 1}, gc {3, 2, spec.head_dim(), 0};
    std::vector<T> q = rotary_slice_test::make_buffer<T>(gq, rng), k = rotary_slice_test::make_buffer<T>(gk, rng);
    const std::vector<T> q_before = q, k_before = k;
    std::vector<T> cache(static_cast<std::size_t>(gc.buffer_size()), rotary_slice_test::guard_value<T>());
    const std::vector<T> cache_before = cache;
    const std::vector<std::int64_t> slots = {2, 1, 0};
    CacheWrite<T> write;
    write.q_in = write.q_out = rotary_slice_test::view_of(q, gq);
    write.k = rotary_slice_test::view_of(k, gk);
    write.key_cache = KvCacheView::contiguous(cache.data() + rotary_slice_test::guard, 3 * 2 * spec.head_dim(), 3, 2,
                                              spec.head_dim());
    write.slot_mapping = SlotMapping(slots);
    const PositionIds positions(position_ids);
    if (with_norm) {
        if (path.dispatched) dispatch::qk_norm_rope_into_cache_on(path.isa, spec, norm, angles, positions, write);
        else qk_norm_rope_into_cache(spec, norm, angles, positions, write);
    } else {
        if (path.dispatched) dispatch::rope_into_cache_on(path.isa, spec, angles, positions, write);
        else rope_into_cache(spec, angles, positions, write);
    }
    // the cache as a tensor of geometry gc whose "token" s holds token 2 - s
    const auto k_expect = with_norm
                              ? std::function<Expected(std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t)>(
                                    norm_expectation(spec, table, k_before, gk, k_weight, 1e-6f))
                              : std::function<Expected(std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t)>(
                                    apply_expectation(spec, table, k_before, gk, position_ids, Direction::forward));
    rotary_slice_test::compare(
        cache_before, cache, gc,
        [&](std::ptrdiff_t s, std::ptrdiff_t h, std::ptrdiff_t d) { return k_expect(2 - s, h, d); },
        what + " key_cache", failure);
    const auto q_expect = with_norm
                              ? std::function<Expected(std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t)>(
                                    norm_expectation(spec, table, q_before, gq, q_weight, 1e-6f))
                              : std::function<Expected(std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t)>(
                                    apply_expectation(spec, table, q_before, gq, position_ids, Direction::forward));
    rotary_slice_test::compare(q_before, q, gq, q_expect, what + " Q", failure);
    if (!rotary_slice_test::same_bits(k, k_before)) failure.note(what + ": K was written");
}

TEST_CASE_TEMPLATE("[reference] rope_into_cache and qk_norm_rope_into_cache on a slice at rotary_offset equal the "
                   "reference, every arch path",
                   T, float, posenc::bfloat16, posenc::float16)
{
    Failure failure;
    for (const ArchPath& path : kernel_test::arch_paths())
        for (const Shape& s : shapes)
            for (posenc::Pairing pairing : {posenc::Pairing::interleaved, posenc::Pairing::half_split})
                for (bool with_norm : {false, true}) {
                    const posenc::RopeSpec spec(s.head_dim, s.rotary_dim, 1e4, pairing, s.offset);
                    check_cache_write<T>(path, spec, with_norm,
                                         path.name + " " + describe(s, pairing) +
                                             (with_norm ? " with the norm " : " ") + kernel_test::type_name<T>(),
                                         failure);
                }
    CHECK_MESSAGE(failure.count == 0, failure.first);
}

}  // namespace

}  // namespace kernels_rotary_offset_tests
