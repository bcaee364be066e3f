// SPDX-License-Identifier: MIT
// Gemma 4's chunked head in one pass (posenc/kernels/detail/chunked_pairs.hpp, through
// kernels::apply_tower_rope). Expected values, independent of the SIMD code:
//   1. the scalar formula on the angle source's own float cos c and sin s (forward; -s inverse):
//      pair j of chunk c, (a, b) = (x[2Qc + j], x[2Qc + Q + j]) at chunk c's position becomes
//      a' = round(a c - b s), b' = round(b c + a s) with apply.hpp's arithmetic (the product b s
//      rounded to float, then one fused multiply-subtract where the arch has FMA, a rounded
//      product and a subtraction otherwise; one rounding to the storage type), bit for bit;
//   2. posenc::apply_multi_axis_rope_reference in double, per chunk as its own rotary slice, at
//      positions up to 2^31 - 1: within apply.hpp's bound;
//   3. an identity: the plan's two passes run one after the other by apply_multi_axis_rope (the
//      1-D kernel's loops), bit for bit but for the sign of a zero result at angle 0 in the
//      inverse on AVX-512 (same_values).
// Head sizes cover each pairing of the file comment on every arch the binary is built for
// (Q = 4, 8, 16, 32 and 10: a register of pairs per chunk on SSE / AVX2 / AVX-512, bfloat16's
// 16-pair chunks, whole and partial even/odd chunks, rows of several registers).
#include <posenc/kernels/on_the_fly_angles.hpp>
#include <posenc/kernels/tower_rope.hpp>
#include <posenc/multi_axis.hpp>
#include <posenc/vision_tower.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace towers_chunked_one_pass_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

namespace k = posenc::kernels;
using posenc::bfloat16;
using posenc::float16;

#if defined(__FMA__) || defined(__aarch64__)
constexpr bool fused = true;  // the kernels' mul_add / mul_sub are fused multiply-adds (simd_ops.hpp)
#else
constexpr bool fused = false;
#endif

/// Random values, every seventh zero, every eleventh tiny (products that are subnormal floats).
template <class T>
std::vector<T> mixed_values(std::size_t n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-4.0f, 4.0f);
    std::vector<T> v(n);
    for (std::size_t i = 0; i < n; ++i)
        v[i] = posenc::store_from_float<T>(i % 7 == 0 ? 0.0f : i % 11 == 0 ? std::ldexp(u(rng), -120) : u(rng));
    return v;
}

/// a c - b s and b c + a s as apply.hpp evaluates them (file comment, 1).
float rotated_a(float a, float b, float c, float s)
{
    const volatile float bs = b * s;  // volatile: no contraction of the expected value itself
    if (fused) return std::fma(a, c, -bs);
    const volatile float ac = a * c;
    return ac - bs;
}
float rotated_b(float a, float b, float c, float s)
{
    const volatile float as = a * s;
    if (fused) return std::fma(b, c, as);
    const volatile float bc = b * c;
    return bc + as;
}

/// Expected heads (file comment, 1): tokens x heads x (chunks 2q), chunk c of token t at
/// positions[t * chunks + c], cos/sin read from the angle source's rows.
template <class T, class Angles>
std::vector<T> expected(const std::vector<T>& x, const Angles& angles, const std::vector<std::int64_t>& positions,
                        int heads, int chunks, int q, double sign)
{
    std::vector<T> y = x;
    const std::size_t head_dim = static_cast<std::size_t>(2 * q * chunks);
    std::vector<float> sc(static_cast<std::size_t>(q)), ss(static_cast<std::size_t>(q));
    for (std::size_t n = 0; n < positions.size(); ++n) {
        const std::size_t t = n / static_cast<std::size_t>(chunks), c = n % static_cast<std::size_t>(chunks);
        const k::AngleRow row = angles.row(k::default_arch {}, positions[n], 0, q, sc.data(), ss.data());
        for (int h = 0; h < heads; ++h)
            for (int j = 0; j < q; ++j) {
                const std::size_t at = (t * static_cast<std::size_t>(heads) + static_cast<std::size_t>(h)) * head_dim +
                                       2 * static_cast<std::size_t>(q) * c + static_cast<std::size_t>(j);
                const float a = posenc::load_as_float(x[at]), b = posenc::load_as_float(x[at + q]);
                const float s = static_cast<float>(sign) * row.sin[j];
                y[at] = posenc::store_from_float<T>(rotated_a(a, b, row.cos[j], s));
                y[at + q] = posenc::store_from_float<T>(rotated_b(a, b, row.cos[j], s));
            }
    }
    return y;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

/// Bit for bit, except that a zero equals a zero of either sign: the 1-D kernel's inverse negates
/// its sin row with xsimd's negation, which on AVX-512 is 0 - s (+0 for s = +0), so at angle 0 a
/// result of -0 may come out +0 there (float16's inputs include -0).
template <class T>
bool same_values(const std::vector<T>& a, const std::vector<T>& b)
{
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const float x = posenc::load_as_float(a[i]), y = posenc::load_as_float(b[i]);
        if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0 && !(x == 0.0f && y == 0.0f)) return false;
    }
    return true;
}

/// A Gemma 4 tower (columns_rows_chunked, theta 100) of the given head size.
posenc::VisionTower chunked_tower(int head_dim)
{
    posenc::VisionTower t;
    t.rule = posenc::VisionTowerRule::columns_rows_chunked;
    t.head_dim = head_dim;
    t.theta = 100.0;
    return t;
}

/// apply_tower_rope on a 5 x 7 grid against the formula (1) and the two passes (3), in place and
/// out of place, both directions.
template <class T>
int check_tower(int head_dim)
{
    const int q_heads = 3, k_heads = 2, q = head_dim / 4;
    const k::TowerRope plan(chunked_tower(head_dim), {1, 5, 7});
    const std::ptrdiff_t n = plan.tokens();
    const k::HeadsShape qs {n, q_heads, head_dim}, ks {n, k_heads, head_dim};
    int failures = 0;
    for (const k::Direction direction : {k::Direction::forward, k::Direction::inverse}) {
        const double sign = direction == k::Direction::forward ? 1.0 : -1.0;
        const std::vector<T> xq = mixed_values<T>(static_cast<std::size_t>(n * q_heads * head_dim), 3u);
        const std::vector<T> xk = mixed_values<T>(static_cast<std::size_t>(n * k_heads * head_dim), 5u);
        const std::vector<T> want_q = expected(xq, *plan.cache(), plan.positions(), q_heads, 2, q, sign);
        const std::vector<T> want_k = expected(xk, *plan.cache(), plan.positions(), k_heads, 2, q, sign);
        std::vector<T> oq = xq, ok = xk;  // one pass, in place
        k::apply_tower_rope(plan, k::QKViews<T>::in_place(k::HeadsView<T>(oq, qs), k::HeadsView<T>(ok, ks)), direction);
        std::vector<T> pq = xq, pk = xk;  // the two passes (3)
        for (std::size_t p = 0; p < plan.passes().size(); ++p)
            k::apply_multi_axis_rope(
                plan.passes()[p].spec, plan.passes()[p].layout, *plan.cache(), plan.pass_positions(p),
                k::QKViews<T>::in_place(k::HeadsView<T>(pq, qs), k::HeadsView<T>(pk, ks)), direction);
        std::vector<T> rq(xq.size()), rk(xk.size());  // one pass, out of place
        k::apply_tower_rope(plan,
                            k::QKViews<T>::out_of_place(k::HeadsView<const T>(xq, qs), k::HeadsView<T>(rq, qs),
                                                        k::HeadsView<const T>(xk, ks), k::HeadsView<T>(rk, ks)),
                            direction);
        failures += !same_bits(oq, want_q) + !same_bits(ok, want_k) + !same_values(pq, oq) + !same_values(pk, ok) +
                    !same_bits(rq, want_q) + !same_bits(rk, want_k);
    }
    return failures;
}

/// Values of y (forward) farther than apply.hpp's bound (4 ulp of |x| per pair: 2^-21 |x|) from
/// each chunk of x rotated as a half_split slice of its own in double (file comment, 2).
int far_from_reference(const std::vector<float>& x, const std::vector<float>& y, const posenc::FrequencyTable& table,
                       const std::vector<std::int64_t>& positions, int heads, int chunks, int q)
{
    const int head_dim = 2 * q * chunks, tokens = static_cast<int>(positions.size()) / chunks;
    int far = 0;
    for (int t = 0; t < tokens; ++t)
        for (int c = 0; c < chunks; ++c) {
            const posenc::RopeSpec spec(head_dim, 2 * q, 100.0, posenc::Pairing::half_split, 2 * q * c);
            const std::vector<std::int64_t> at = {positions[static_cast<std::size_t>(t * chunks + c)]};
            for (int h = 0; h < heads; ++h) {
                const std::size_t base = static_cast<std::size_t>((t * heads + h) * head_dim);
                std::vector<double> want(x.begin() + static_cast<std::ptrdiff_t>(base),
                                         x.begin() + static_cast<std::ptrdiff_t>(base) + head_dim);
                posenc::apply_multi_axis_rope_reference(spec, table, posenc::MultiAxisLayout::single(q), want.data(),
                                                        at.data());
                for (int j = 0; j < q; ++j) {
                    const std::size_t d = static_cast<std::size_t>(2 * q * c + j), e = d + static_cast<std::size_t>(q);
                    const double tol = std::ldexp(1.0, -21) * std::hypot(want[d], want[e]) + 1e-37;
                    far += std::abs(y[base + d] - want[d]) > tol || std::abs(y[base + e] - want[e]) > tol;
                }
            }
        }
    return far;
}

}  // namespace

TEST_CASE("Gemma 4's chunked head in one pass: the formula's bits and the two passes' bits, float, bfloat16, float16")
{
    for (const int head_dim : {16, 32, 64, 128, 40}) {
        CAPTURE(head_dim);
        CHECK(check_tower<float>(head_dim) == 0);
        CHECK(check_tower<bfloat16>(head_dim) == 0);
        CHECK(check_tower<float16>(head_dim) == 0);
    }
}

TEST_CASE("Chunked heads in one pass: three chunks, positions up to 2^31 - 1, against the double reference")
{
    // three chunks of 16 pairs (a lone chunk after a group of two), each its own axis
    const int chunks = 3, q = 16, head_dim = 2 * q * chunks, heads = 2, tokens = 9;
    std::vector<double> f(static_cast<std::size_t>(q));
    for (int j = 0; j < q; ++j) f[static_cast<std::size_t>(j)] = std::pow(100.0, -4.0 * j / 64.0);
    const posenc::FrequencyTable table(f);
    const k::OnTheFlyAngles angles(table);
    std::vector<std::int64_t> positions(static_cast<std::size_t>(tokens * chunks));
    std::mt19937 rng(29);
    std::uniform_int_distribution<std::int64_t> large(std::int64_t {1} << 24, 2147483647);
    for (std::size_t i = 0; i < positions.size(); ++i)
        positions[i] = i < 3 ? 2147483647 - static_cast<std::int64_t>(i) : i % 4 == 0 ? 0 : large(rng);
    const k::MultiAxisPositions ids(positions, chunks);
    const k::HeadsShape shape {tokens, heads, head_dim};
    for (const k::Direction direction : {k::Direction::forward, k::Direction::inverse}) {
        const double sign = direction == k::Direction::forward ? 1.0 : -1.0;
        const std::vector<float> x = mixed_values<float>(static_cast<std::size_t>(tokens * heads * head_dim), 17u);
        std::vector<float> y = x;
        k::detail::chunked_rope_tokens<k::default_arch>(q, chunks, angles, ids,
                                                        k::QKViews<float>::in_place(k::HeadsView<float>(y, shape)),
                                                        direction, k::TokenRange {0, tokens, false});
        CHECK(same_bits(y, expected(x, angles, positions, heads, chunks, q, sign)));
        if (direction == k::Direction::forward)
            CHECK(far_from_reference(x, y, table, positions, heads, chunks, q) == 0);
    }
}

}  // namespace towers_chunked_one_pass_tests
