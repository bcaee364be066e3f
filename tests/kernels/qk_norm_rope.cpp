// SPDX-License-Identifier: MIT
// QK-norm + RoPE (qk_norm_rope.hpp) on every arch path against the composition of two
// independent steps: an RMSNorm evaluated from its definition in long double,
//     y_d = x_d / sqrt(sum_e x_e^2 / n + eps) * (w_d + offset)   (offset 0: Qwen3 / OLMo 2, 1: Gemma)
// and the foundation's scalar rotation apply_rope_reference (double, exact angles). Random
// shapes: head_dim 2..300, rotary_dim even <= head_dim (partial rotary), both pairings, both
// weightings, eps 1e-6 or 1e-5, 1..12 Q heads, 0..4 K heads, float / bfloat16 / float16 (and
// double on the reference path), in place and out of place, gaps between heads and tokens or a
// packed QKV buffer, both angle sources. Every buffer has guard elements around and between the
// views; all of them must keep their bits. Tolerance: the header's bound, (n/2 + 9) u A |y| per
// rotated coordinate and (n/2 + 6) u |y_d| per pass-through dim, plus half an ulp of a 16-bit
// format (double: 1e-13 relative).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <posenc/kernels/fused_dispatch.hpp>
#include <posenc/rotation.hpp>

#include "kernel_test_support.hpp"

namespace kernels_qk_norm_rope_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using namespace posenc::kernels;
using kernel_test::ArchPath;

constexpr double u = 5.9604644775390625e-08;  // 2^-24

template <class T>
T guard_value()
{
    return kernel_test::from_double<T>(-555.5);
}

/// The long double RMSNorm of one head, from the definition.
std::vector<long double> rms_norm_reference(const std::vector<long double>& x, const float* w, float eps, bool one_plus)
{
    long double sum = 0.0L;
    for (long double v : x) sum += v * v;
    const long double rms = std::sqrt(sum / static_cast<long double>(x.size()) + static_cast<long double>(eps));
    std::vector<long double> y(x.size());
    for (std::size_t d = 0; d < x.size(); ++d)
        y[d] = x[d] / rms * (static_cast<long double>(w[d]) + (one_plus ? 1.0L : 0.0L));
    return y;
}

template <class T>
void run_case(const ArchPath& path, std::mt19937& rng, int& failures, std::string& first_failure, bool& any_checked)
{
    std::uniform_int_distribution<int> coin(0, 1);
    const posenc::Pairing pairing = coin(rng) ? posenc::Pairing::half_split : posenc::Pairing::interleaved;
    // one case in three has a head of 32, 64 or 128 dims (see rope_cache.cpp: the per-head norm)
    const int head_dim = std::uniform_int_distribution<int>(0, 2)(rng) == 0
                             ? 32 << std::uniform_int_distribution<int>(0, 2)(rng)
                             : std::uniform_int_distribution<int>(1, 150)(rng) * 2;
    const int rotary_dim = coin(rng) ? head_dim : 2 * std::uniform_int_distribution<int>(1, head_dim / 2)(rng);
    const posenc::RopeSpec spec(head_dim, rotary_dim, coin(rng) ? 1e4 : 1e6, pairing);
    const posenc::FrequencyTable table(posenc::FrequencyTable::from_spec(spec).inv_freq(),
                                       coin(rng) ? 1.0 : 1.1386294361119891);
    const std::ptrdiff_t tokens = std::uniform_int_distribution<int>(1, 5)(rng);
    const std::ptrdiff_t q_heads = std::uniform_int_distribution<int>(1, 12)(rng);
    const std::ptrdiff_t k_heads = std::uniform_int_distribution<int>(0, 4)(rng);
    const bool in_place = coin(rng) != 0;
    const bool packed = k_heads > 0 && coin(rng) != 0;
    const bool one_plus = coin(rng) != 0;
    const float eps = coin(rng) ? 1e-6f : 1e-5f;

    // weights: around 1 (Qwen3-like) or around 0 (Gemma stores w with 1 + w applied)
    std::normal_distribution<float> wdist(one_plus ? 0.0f : 1.0f, 0.3f);
    std::vector<float> q_weight(static_cast<std::size_t>(head_dim)), k_weight(static_cast<std::size_t>(head_dim));
    for (float& w : q_weight) w = wdist(rng);
    for (float& w : k_weight) w = wdist(rng);
    const QkNorm norm {one_plus ? NormWeighting::one_plus_weight : NormWeighting::weight, eps, q_weight,
                       k_heads ? FloatSpan(k_weight) : FloatSpan {}};

    // one buffer for the inputs (packed [q | k | v] per token, or Q then K with gaps), one for the outputs
    const std::ptrdiff_t guard = 19;
    std::uniform_int_distribution<int> gapd(0, 7);
    const std::ptrdiff_t head_stride = packed ? head_dim : head_dim + gapd(rng);
    const std::ptrdiff_t heads_total = packed ? q_heads + 2 * k_heads : q_heads;
    const std::ptrdiff_t token_stride = heads_total * head_stride + gapd(rng);
    const std::ptrdiff_t q_extent = (tokens - 1) * token_stride + heads_total * head_stride;
    const std::ptrdiff_t k_token_stride = k_heads * head_stride + gapd(rng);
    const std::ptrdiff_t k_extent = packed || k_heads == 0 ? 0 : (tokens - 1) * k_token_stride + k_heads * head_stride;
    const std::size_t size = static_cast<std::size_t>(2 * guard + q_extent + k_extent + guard);
    std::vector<T> in_buf(size, guard_value<T>()), out_buf(size, guard_value<T>());
    auto views_in = [&](std::vector<T>& buf) {
        T* base = buf.data() + guard;
        const std::ptrdiff_t room = static_cast<std::ptrdiff_t>(buf.size()) - guard;  // from base to the end
        HeadsView<T> q(base, room, {tokens, q_heads, head_dim}, {token_stride, head_stride});
        HeadsView<T> k;
        if (k_heads && packed)
            k = HeadsView<T>(base + q_heads * head_dim, room - q_heads * head_dim, {tokens, k_heads, head_dim},
                             {token_stride, head_stride});
        else if (k_heads)
            k = HeadsView<T>(base + q_extent + guard, room - q_extent - guard, {tokens, k_heads, head_dim},
                             {k_token_stride, head_stride});
        return std::pair<HeadsView<T>, HeadsView<T>>(q, k);
    };
    const auto [q_in, k_in] = views_in(in_buf);
    const auto [q_out_oop, k_out_oop] = views_in(out_buf);
    std::uniform_real_distribution<double> value(-3.0, 3.0);
    for (const HeadsView<T>& v : {q_in, k_in})
        if (v.present())
            for (std::ptrdiff_t t = 0; t < tokens; ++t)
                for (std::ptrdiff_t h = 0; h < v.heads; ++h)
                    for (int d = 0; d < head_dim; ++d) v.head(t, h)[d] = kernel_test::from_double<T>(value(rng));
    const std::vector<T> in_before = in_buf, out_before = out_buf;

    std::vector<std::int64_t> ids(static_cast<std::size_t>(tokens));
    for (auto& p : ids) p = std::uniform_int_distribution<std::int64_t>(0, 4095)(rng);
    const PositionIds positions(ids);
    const HeadsView<T> q_out = in_place ? q_in : q_out_oop, k_out = in_place ? k_in : k_out_oop;
    const QKViews<T> views = in_place ? QKViews<T>::in_place(q_in, k_in)
                                      : QKViews<T>::out_of_place(q_in, q_out, k_in, k_heads ? k_out : HeadsView<T> {});
    const bool cache = coin(rng) != 0;
    if constexpr (std::is_same_v<T, double>)
        if (path.dispatched) return;
    // only the angle source this case uses is built (a 4096-position cache costs more than the case)
    std::optional<CosSinCache> cos_sin;
    std::optional<OnTheFlyAngles> otf;
    if (cache) cos_sin.emplace(table, 4096);
    else otf.emplace(table, 4096);
    if constexpr (std::is_same_v<T, double>) {
        if (cache) qk_norm_rope(spec, norm, *cos_sin, positions, views);
        else qk_norm_rope(spec, norm, *otf, positions, views);
    } else if (path.dispatched) {
        if (cache) dispatch::qk_norm_rope_on(path.isa, spec, norm, *cos_sin, positions, views);
        else dispatch::qk_norm_rope_on(path.isa, spec, norm, *otf, positions, views);
    } else {
        if (cache) qk_norm_rope(spec, norm, *cos_sin, positions, views);
        else qk_norm_rope(spec, norm, *otf, positions, views);
    }
    any_checked = true;

    // expected: the composition; every other element of both buffers keeps its bits
    std::vector<T> expected_in = in_before, expected_out = out_before;
    std::vector<char> touched(size, 0);
    std::vector<T>& written = in_place ? in_buf : out_buf;
    std::vector<T>& expected_written = in_place ? expected_in : expected_out;
    const double A = table.attention_factor();
    const double n = head_dim;
    auto fail = [&](const std::string& what) {
        if (failures++ == 0) first_failure = what;
    };
    for (int tensor = 0; tensor < (k_heads ? 2 : 1); ++tensor) {
        const HeadsView<T> in = tensor == 0 ? q_in : k_in;
        const HeadsView<T> out = tensor == 0 ? q_out : k_out;
        const float* w = tensor == 0 ? q_weight.data() : k_weight.data();
        for (std::ptrdiff_t t = 0; t < tokens; ++t)
            for (std::ptrdiff_t h = 0; h < in.heads; ++h) {
                std::vector<long double> x(static_cast<std::size_t>(head_dim));
                const T* src = in_before.data() + (in.head(t, h) - in_buf.data());
                for (int d = 0; d < head_dim; ++d) x[static_cast<std::size_t>(d)] = kernel_test::to_double(src[d]);
                const std::vector<long double> y = rms_norm_reference(x, w, eps, one_plus);
                std::vector<double> rotated(y.begin(), y.end());
                posenc::apply_rope_reference(spec, table, rotated.data(), ids[static_cast<std::size_t>(t)]);
                const std::ptrdiff_t offset = out.head(t, h) - (in_place ? in_buf.data() : out_buf.data());
                for (int d = 0; d < head_dim; ++d) {
                    touched[static_cast<std::size_t>(offset + d)] = 1;
                    double bound;
                    if (d < rotary_dim) {
                        const posenc::PairCoordinates pc = spec.pair_coordinates(
                            pairing == posenc::Pairing::half_split ? (d % (rotary_dim / 2)) : d / 2);
                        const double norm_y = std::hypot(static_cast<double>(y[static_cast<std::size_t>(pc.first)]),
                                                         static_cast<double>(y[static_cast<std::size_t>(pc.second)]));
                        bound = std::is_same_v<T, double> ? 1e-13 * A * norm_y + 1e-300 : (n / 2 + 9) * u * A * norm_y;
                    } else {
                        const double yd = std::fabs(static_cast<double>(y[static_cast<std::size_t>(d)]));
                        bound = std::is_same_v<T, double> ? 1e-13 * yd + 1e-300 : (n / 2 + 6) * u * yd;
                    }
                    bound += kernel_test::half_ulp<T>(rotated[static_cast<std::size_t>(d)]);
                    const double got = kernel_test::to_double(written[static_cast<std::size_t>(offset + d)]);
                    if (!(std::fabs(got - rotated[static_cast<std::size_t>(d)]) <= bound))
                        fail(path.name + " " + kernel_test::type_name<T>() + " " + posenc::to_string(pairing) +
                             " head_dim " + std::to_string(head_dim) + " rotary " + std::to_string(rotary_dim) +
                             (one_plus ? " gemma" : " qwen") + " tensor " + std::to_string(tensor) + " t " +
                             std::to_string(t) + " h " + std::to_string(h) + " d " + std::to_string(d) + ": got " +
                             std::to_string(got) + " expected " + std::to_string(rotated[static_cast<std::size_t>(d)]) +
                             " bound " + std::to_string(bound));
                }
            }
    }
    for (std::size_t i = 0; i < size; ++i) {
        if (touched[i]) continue;
        if (kernel_test::bits_of(written[i]) != kernel_test::bits_of(expected_written[i]))
            fail(path.name + " guard or untouched element changed at " + std::to_string(i));
        if (!in_place && kernel_test::bits_of(in_buf[i]) != kernel_test::bits_of(in_before[i]))
            fail(path.name + " input changed at " + std::to_string(i));
    }
}

}  // namespace

TEST_CASE("qk_norm_rope equals a long double RMSNorm composed with apply_rope_reference, every arch path")
{
    for (const std::string& s : kernel_test::skipped_paths()) MESSAGE("arch path skipped: " << s);
    std::mt19937 rng(20261130);
    for (const ArchPath& path : kernel_test::arch_paths()) {
        int failures = 0;
        std::string first;
        bool checked = false;
        const int cases = kernel_test::random_cases(60);
        for (int i = 0; i < cases; ++i) {
            run_case<float>(path, rng, failures, first, checked);
            run_case<posenc::bfloat16>(path, rng, failures, first, checked);
            run_case<posenc::float16>(path, rng, failures, first, checked);
            run_case<double>(path, rng, failures, first, checked);
        }
        INFO(path.name << ": " << first);
        CHECK(checked);
        CHECK(failures == 0);
    }
}

TEST_CASE("qk_rms_norm equals the long double RMSNorm (Qwen3 weight convention and Gemma's 1 + w)")
{
    std::mt19937 rng(7);
    for (bool one_plus : {false, true}) {
        const int head_dim = 128;
        const posenc::RopeSpec spec(head_dim, head_dim, 1e6);
        std::vector<float> w(head_dim);
        for (float& x : w) x = std::uniform_real_distribution<float>(-1.0f, 1.5f)(rng);
        std::vector<float> q(3 * head_dim);
        for (float& x : q) x = std::uniform_real_distribution<float>(-4.0f, 4.0f)(rng);
        const std::vector<float> before = q;
        const QkNorm norm {one_plus ? NormWeighting::one_plus_weight : NormWeighting::weight, 1e-6f, w, nullptr};
        qk_rms_norm(spec, norm, QKViews<float>::in_place(HeadsView<float>(q, {1, 3, head_dim})));
        for (int h = 0; h < 3; ++h) {
            std::vector<long double> x(before.begin() + h * head_dim, before.begin() + (h + 1) * head_dim);
            const std::vector<long double> y = rms_norm_reference(x, w.data(), 1e-6f, one_plus);
            for (int d = 0; d < head_dim; ++d) {
                const double e = static_cast<double>(y[static_cast<std::size_t>(d)]);
                CHECK(std::fabs(q[static_cast<std::size_t>(h * head_dim + d)] - e) <=
                      (head_dim / 2.0 + 6) * u * std::fabs(e) + 1e-30);
            }
        }
    }
}

TEST_CASE("qk_norm_rope refuses what it cannot compute, naming the field")
{
    const posenc::RopeSpec spec(64, 64, 1e4);
    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
    const CosSinCache cache(table, 16);
    std::vector<float> q(64), k(64), w(64, 1.0f);
    const auto views = QKViews<float>::in_place(HeadsView<float>(q, {1, 1, 64}), HeadsView<float>(k, {1, 1, 64}));
    const PositionIds pos = PositionIds::contiguous(0);
    auto message = [&](const QkNorm& norm) {
        try {
            qk_norm_rope(spec, norm, cache, pos, views);
        } catch (const posenc::error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(message({NormWeighting::weight, -1e-6f, w, w}).find("norm.eps") != std::string::npos);
    CHECK(message({NormWeighting::weight, std::nanf(""), w, w}).find("norm.eps") != std::string::npos);
    CHECK(message({NormWeighting::weight, 1e-6f, w, nullptr}).find("norm.k_weight") != std::string::npos);
    CHECK(message({NormWeighting::weight, 1e-6f, nullptr, w}).find("norm.q_weight") != std::string::npos);
    CHECK(message({static_cast<NormWeighting>(7), 1e-6f, w, w}).find("norm.weighting") != std::string::npos);
    // an output overlapping a weight
    CHECK(message({NormWeighting::weight, 1e-6f, FloatSpan(q.data(), 64), w}).find("norm weight") != std::string::npos);
    const posenc::RopeSpec wide(520, 64, 1e4);
    std::vector<float> big(520), wbig(520, 1.0f);
    const QkNorm norm {NormWeighting::weight, 1e-6f, wbig, nullptr};
    std::string m;
    try {
        qk_norm_rope(wide, norm, cache, pos, QKViews<float>::in_place(HeadsView<float>(big, {1, 1, 520})));
    } catch (const posenc::error& e) {
        m = e.what();
    }
    CHECK(m.find("spec.head_dim") != std::string::npos);
    CHECK(m.find("520") != std::string::npos);
}

}  // namespace kernels_qk_norm_rope_tests
