// SPDX-License-Identifier: MIT
// Zero-frequency pairs. Proportional RoPE (Gemma 4's global layers) rotates the whole head,
// half_split, with a frequency table whose last pairs have inv_freq exactly 0: those pairs turn
// by the angle 0 at every position, cos 1 and sin 0 exactly, so the exact result is the input.
// Every kernel must leave their coordinates bit-identical to its input (the rotation's identity
// R(0) = I; the attention factor is 1 here, as in those models): apply_rope on every arch path
// (both angle sources, both directions, in place and out of place, every storage type), the
// decode step, the multi-axis kernel and the KV-cache write (a cache of the input's own element
// type). The fused QK-norm + RoPE normalises the head first: there a zero-frequency coordinate
// must come out as a coordinate outside the rotated slice does, the normalised value within
// qk_norm_rope.hpp's bound for those, (n/2 + 6) u |y_d|. The other pairs are checked against
// apply_rope_reference (apply.hpp's bound, 4 ulp of |x|, plus half an ulp of a 16-bit format).
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

namespace kernels_zero_frequencies_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using namespace posenc::kernels;
using kernel_test::ArchPath;
using rotary_slice_test::Expected;
using rotary_slice_test::Failure;
using rotary_slice_test::Geometry;

constexpr double u = 5.9604644775390625e-08;  // 2^-24
constexpr int head_dim = 128;
constexpr int rotating_pairs = 16;  // of 64: the first 16 turn (base 1e6), the other 48 have inv_freq 0

posenc::FrequencyTable proportional_table()
{
    std::vector<double> inv_freq(head_dim / 2, 0.0);
    for (int i = 0; i < rotating_pairs; ++i) inv_freq[static_cast<std::size_t>(i)] = std::pow(1e6, -2.0 * i / head_dim);
    return posenc::FrequencyTable(inv_freq);
}

/// Coordinate d belongs to a pair of frequency 0.
bool zero_frequency(const posenc::RopeSpec& spec, std::ptrdiff_t d)
{
    for (int i = rotating_pairs; i < spec.num_pairs(); ++i) {
        const posenc::PairCoordinates c = spec.pair_coordinates(i);
        if (c.first == d || c.second == d) return true;
    }
    return false;
}

/// A zero-frequency coordinate keeps the input's bits; the others as apply_rope_reference says.
template <class T>
auto rope_expectation(const posenc::RopeSpec& spec, const posenc::FrequencyTable& table, const std::vector<T>& input,
                      const Geometry& g, const std::vector<std::int64_t>& ids, Direction direction)
{
    return [&spec, &table, &input, g, ids, direction](std::ptrdiff_t t, std::ptrdiff_t h, std::ptrdiff_t d) {
        const std::vector<double> x = rotary_slice_test::head_of(input, g, t, h);
        if (zero_frequency(spec, d)) return Expected {x[static_cast<std::size_t>(d)], 0.0, true};
        std::vector<double> ref = x;
        const std::int64_t m = ids[static_cast<std::size_t>(t)];
        posenc::apply_rope_reference(spec, table, ref.data(), direction == Direction::forward ? m : -m);
        const double want = ref[static_cast<std::size_t>(d)];
        const double norm = rotary_slice_test::pair_norm(spec, x, d);
        const double tolerance = std::is_same_v<T, double>
                                     ? 1e-13 * norm
                                     : 4 * kernel_test::float_ulp(norm) +
                                           (std::is_same_v<T, float> ? 0.0 : kernel_test::half_ulp<T>(std::fabs(want)));
        return Expected {want, tolerance, false};
    };
}

template <class T, class Angles>
void check_apply(const ArchPath& path, const posenc::RopeSpec& spec, const posenc::FrequencyTable& table,
                 const Angles& angles, const std::vector<std::int64_t>& ids, bool in_place, Direction direction,
                 const std::string& what, Failure& failure)
{
    std::mt19937 rng(21);
    const Geometry g {3, 4, head_dim, 3};
    std::vector<T> in = rotary_slice_test::make_buffer<T>(g, rng);
    const std::vector<T> before = in;
    std::vector<T> out(in.size(), rotary_slice_test::guard_value<T>());
    const std::vector<T> out_before = out;
    const QKViews<T> views =
        in_place ? QKViews<T>::in_place(rotary_slice_test::view_of(in, g))
                 : QKViews<T>::out_of_place(rotary_slice_test::view_of(in, g), rotary_slice_test::view_of(out, g));
    kernel_test::apply_on(path, spec, angles, PositionIds(ids), views, direction);
    rotary_slice_test::compare(in_place ? before : out_before, in_place ? in : out, g,
                               rope_expectation(spec, table, before, g, ids, direction),
                               what + (in_place ? " in place" : " out of place") +
                                   (direction == Direction::forward ? " forward " : " inverse ") +
                                   kernel_test::type_name<T>(),
                               failure);
}

const std::vector<std::int64_t> cache_ids = {7, 4095, 1000};
const std::vector<std::int64_t> on_the_fly_ids = {-5, 1000000, 3};

TEST_CASE_TEMPLATE(
    "[identity] zero-frequency pairs keep their bits through apply_rope, every arch path, angle source and direction",
    T, float, posenc::bfloat16, posenc::float16, double)
{
    const posenc::FrequencyTable table = proportional_table();
    const CosSinCache cache(table, 4096);
    const OnTheFlyAngles on_the_fly(table, 1 << 20);
    Failure failure;
    for (const ArchPath& path : kernel_test::arch_paths()) {
        if (std::is_same_v<T, double> && path.dispatched) continue;
        for (posenc::Pairing pairing : {posenc::Pairing::half_split, posenc::Pairing::interleaved}) {
            const posenc::RopeSpec spec(head_dim, head_dim, 1e6, pairing);
            for (bool in_place : {true, false})
                for (Direction direction : {Direction::forward, Direction::inverse}) {
                    const std::string what = path.name + " " + posenc::to_string(pairing);
                    check_apply<T>(path, spec, table, cache, cache_ids, in_place, direction, what + " cache", failure);
                    check_apply<T>(path, spec, table, on_the_fly, on_the_fly_ids, in_place, direction,
                                   what + " on-the-fly", failure);
                }
        }
    }
    CHECK_MESSAGE(failure.count == 0, failure.first);
}

TEST_CASE_TEMPLATE("[identity] zero-frequency pairs keep their bits through the decode step and the multi-axis kernel",
                   T, float, posenc::bfloat16, posenc::float16)
{
    const posenc::FrequencyTable table = proportional_table();
    const CosSinCache cache(table, 4096);
    const OnTheFlyAngles on_the_fly(table, 1 << 20);
    Failure failure;
    for (posenc::Pairing pairing : {posenc::Pairing::half_split, posenc::Pairing::interleaved}) {
        const posenc::RopeSpec spec(head_dim, head_dim, 1e6, pairing);
        for (int entry = 0; entry < 4; ++entry) {  // kernels:: and dispatch::, cache and on-the-fly
            std::mt19937 rng(4);
            const Geometry g {1, 8, head_dim, 0};
            std::vector<T> q = rotary_slice_test::make_buffer<T>(g, rng);
            const std::vector<T> before = q;
            const QKViews<T> views = QKViews<T>::in_place(rotary_slice_test::view_of(q, g));
            const std::int64_t m = entry % 2 == 0 ? 4000 : 999999;
            if (entry == 0) apply_rope(spec, cache, PositionIds::contiguous(m), views);
            else if (entry == 1) apply_rope(spec, on_the_fly, PositionIds::contiguous(m), views);
            else if (entry == 2) dispatch::apply_rope(spec, cache, PositionIds::contiguous(m), views);
            else dispatch::apply_rope(spec, on_the_fly, PositionIds::contiguous(m), views);
            rotary_slice_test::compare(before, q, g, rope_expectation(spec, table, before, g, {m}, Direction::forward),
                                       std::string("decode step ") + posenc::to_string(pairing) + " entry " +
                                           std::to_string(entry) + " " + kernel_test::type_name<T>(),
                                       failure);
        }
        // multi-axis, every axis at one position per token: the zero pairs stay, whatever the axis
        for (const ArchPath& path : kernel_test::arch_paths()) {
            std::vector<int> axis_of_pair(static_cast<std::size_t>(spec.num_pairs()));
            for (std::size_t i = 0; i < axis_of_pair.size(); ++i) axis_of_pair[i] = static_cast<int>(i % 3);
            const posenc::MultiAxisLayout layout = posenc::MultiAxisLayout::from_pair_axes(axis_of_pair, 3);
            const std::vector<std::int64_t> ids = {5, 5, 5, 90, 90, 90, 4000, 4000, 4000};
            std::mt19937 rng(6);
            const Geometry g {3, 2, head_dim, 1};
            std::vector<T> q = rotary_slice_test::make_buffer<T>(g, rng);
            const std::vector<T> before = q;
            const QKViews<T> views = QKViews<T>::in_place(rotary_slice_test::view_of(q, g));
            if (path.dispatched)
                dispatch::apply_multi_axis_rope_on(path.isa, spec, layout, on_the_fly, MultiAxisPositions(ids, 3),
                                                   views);
            else apply_multi_axis_rope(spec, layout, on_the_fly, MultiAxisPositions(ids, 3), views);
            rotary_slice_test::compare(
                before, q, g, rope_expectation(spec, table, before, g, {5, 90, 4000}, Direction::forward),
                path.name + " multi-axis " + posenc::to_string(pairing) + " " + kernel_test::type_name<T>(), failure);
        }
    }
    CHECK_MESSAGE(failure.count == 0, failure.first);
}

TEST_CASE_TEMPLATE("[identity] zero-frequency pairs of K reach a KV cache of K's type bit for bit, every arch path", T,
                   float, posenc::bfloat16, posenc::float16)
{
    const posenc::FrequencyTable table = proportional_table();
    const CosSinCache cache_angles(table, 4096);
    const OnTheFlyAngles on_the_fly(table, 1 << 20);
    Failure failure;
    for (const ArchPath& path : kernel_test::arch_paths())
        for (posenc::Pairing pairing : {posenc::Pairing::half_split, posenc::Pairing::interleaved})
            for (bool use_cache : {true, false}) {
                const posenc::RopeSpec spec(head_dim, head_dim, 1e6, pairing);
                std::mt19937 rng(8);
                const Geometry gk {3, 2, head_dim, 2}, gc {3, 2, head_dim, 0};
                std::vector<T> k = rotary_slice_test::make_buffer<T>(gk, rng);
                const std::vector<T> before = k;
                std::vector<T> cache(static_cast<std::size_t>(gc.buffer_size()), rotary_slice_test::guard_value<T>());
                const std::vector<T> cache_before = cache;
                const std::vector<std::int64_t> slots = {0, 1, 2};
                const std::vector<std::int64_t>& ids = use_cache ? cache_ids : on_the_fly_ids;
                CacheWrite<T> write;
                write.k = rotary_slice_test::view_of(k, gk);
                write.key_cache =
                    KvCacheView::contiguous(cache.data() + rotary_slice_test::guard, 3 * 2 * head_dim, 3, 2, head_dim);
                write.slot_mapping = SlotMapping(slots);
                auto run = [&](const auto& angles) {
                    if (path.dispatched) dispatch::rope_into_cache_on(path.isa, spec, angles, PositionIds(ids), write);
                    else rope_into_cache(spec, angles, PositionIds(ids), write);
                };
                if (use_cache) run(cache_angles);
                else run(on_the_fly);
                const auto expect = rope_expectation(spec, table, before, gk, ids, Direction::forward);
                rotary_slice_test::compare(cache_before, cache, gc, expect,
                                           path.name + " key_cache " + posenc::to_string(pairing) +
                                               (use_cache ? " cache " : " on-the-fly ") + kernel_test::type_name<T>(),
                                           failure);
            }
    CHECK_MESSAGE(failure.count == 0, failure.first);
}

TEST_CASE_TEMPLATE(
    "[identity] qk_norm_rope leaves zero-frequency coordinates as the norm alone makes them, every arch path", T, float,
    posenc::bfloat16, posenc::float16, double)
{
    const posenc::FrequencyTable table = proportional_table();
    const OnTheFlyAngles angles(table, 1 << 20);
    Failure failure;
    for (const ArchPath& path : kernel_test::arch_paths()) {
        if (std::is_same_v<T, double> && path.dispatched) continue;
        for (posenc::Pairing pairing : {posenc::Pairing::half_split, posenc::Pairing::interleaved}) {
            const posenc::RopeSpec spec(head_dim, head_dim, 1e6, pairing);
            std::mt19937 rng(10);
            std::normal_distribution<float> wd(1.0f, 0.3f);
            std::vector<float> w(static_cast<std::size_t>(head_dim));
            for (float& x : w) x = wd(rng);
            const QkNorm norm {NormWeighting::weight, 1e-6f, w, nullptr};
            // several tokens (the per-head norm's path where it applies) and one
            for (std::ptrdiff_t tokens : {1, 3}) {
                const Geometry g {tokens, 4, head_dim, 0};
                std::vector<T> q = rotary_slice_test::make_buffer<T>(g, rng);
                const std::vector<T> before = q;
                const QKViews<T> views = QKViews<T>::in_place(rotary_slice_test::view_of(q, g));
                const std::vector<std::int64_t> ids(on_the_fly_ids.begin(), on_the_fly_ids.begin() + tokens);
                if constexpr (std::is_same_v<T, double>) qk_norm_rope(spec, norm, angles, PositionIds(ids), views);
                else if (path.dispatched)
                    dispatch::qk_norm_rope_on(path.isa, spec, norm, angles, PositionIds(ids), views);
                else qk_norm_rope(spec, norm, angles, PositionIds(ids), views);
                auto expect = [&](std::ptrdiff_t t, std::ptrdiff_t h, std::ptrdiff_t d) {
                    const std::vector<double> x = rotary_slice_test::head_of(before, g, t, h);
                    long double sum = 0.0L;
                    for (double v : x) sum += static_cast<long double>(v) * static_cast<long double>(v);
                    const long double rms = std::sqrt(sum / head_dim + static_cast<long double>(1e-6f));
                    std::vector<double> y(x.size());
                    for (std::size_t e = 0; e < x.size(); ++e)
                        y[e] = static_cast<double>(static_cast<long double>(x[e]) / rms * w[e]);
                    const double n = head_dim;
                    if (zero_frequency(spec, d)) {
                        const double want = y[static_cast<std::size_t>(d)];
                        const double tolerance =
                            std::is_same_v<T, double>
                                ? 1e-13 * (std::fabs(want) + 1.0)
                                : (n / 2 + 6) * u * std::fabs(want) + kernel_test::half_ulp<T>(std::fabs(want)) * 1.01;
                        return Expected {want, tolerance, false};
                    }
                    std::vector<double> ref = y;
                    posenc::apply_rope_reference(spec, table, ref.data(), ids[static_cast<std::size_t>(t)]);
                    const double want = ref[static_cast<std::size_t>(d)];
                    const double tolerance = std::is_same_v<T, double>
                                                 ? 1e-13 * (std::fabs(want) + 1.0)
                                                 : (n / 2 + 9) * u * rotary_slice_test::pair_norm(spec, y, d) +
                                                       kernel_test::half_ulp<T>(std::fabs(want)) * 1.01;
                    return Expected {want, tolerance, false};
                };
                rotary_slice_test::compare(before, q, g, expect,
                                           path.name + " qk_norm_rope " + posenc::to_string(pairing) + " tokens " +
                                               std::to_string(tokens) + " " + kernel_test::type_name<T>(),
                                           failure);
            }
        }
    }
    CHECK_MESSAGE(failure.count == 0, failure.first);
}

}  // namespace

}  // namespace kernels_zero_frequencies_tests
