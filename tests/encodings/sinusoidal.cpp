// SPDX-License-Identifier: MIT
// Sinusoidal position encoding (include/posenc/encodings/sinusoidal.hpp), Vaswani et al. 2017
// (arXiv 1706.03762) sections 3.4-3.5.
// Expected values: P5 (docs/formulas.md) (printed to 6 digits), the same
// recomputed with python3 + mpmath at 40 digits (quoted), and trigonometric identities
// evaluated in the test with std::sin/std::cos of pos * 10000^(-2i/d) (independent of posenc's
// exact angle reduction). The lesson's point (C2-2 timeline, generation 1'): "added to the input,
// the attention score changes when the whole sentence is shifted" while RoPE's does not.
#include <posenc/encodings/sinusoidal.hpp>
#include <posenc/rotation.hpp>
#include <posenc/spec.hpp>

#include <doctest/doctest.h>

#include <Eigen/Core>
#include <Eigen/LU>  // determinant
#include <cmath>
#include <cstdint>

namespace encodings_sinusoidal_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

namespace enc = posenc::encodings;

double frequency(int pair, int d_model) { return std::pow(10000.0, -2.0 * pair / d_model); }

Eigen::MatrixXd fixed_matrix(int rows, int cols, double seed)
{
    Eigen::MatrixXd m(rows, cols);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) m(r, c) = std::sin(1.3 * r + 0.77 * c + seed);
    return m;
}

}  // namespace

TEST_CASE("[Vaswani 3.5 / P5] d_model 512: PE(1, 0..3) = [0.841471, 0.540302, 0.821856, 0.569695]")
{
    const enc::SinusoidalEncoding pe(512);
    const Eigen::VectorXd v = pe.encode(1);
    CHECK(v(0) == doctest::Approx(0.841471).epsilon(1e-6));
    CHECK(v(1) == doctest::Approx(0.540302).epsilon(1e-6));
    CHECK(v(2) == doctest::Approx(0.821856).epsilon(1e-6));
    CHECK(v(3) == doctest::Approx(0.569695).epsilon(1e-6));
    // mpmath: sin 1, cos 1, sin(10000^(-2/512)), cos(10000^(-2/512)).
    CHECK(v(0) == doctest::Approx(0.84147098480789650665).epsilon(1e-14));
    CHECK(v(1) == doctest::Approx(0.54030230586813971740).epsilon(1e-14));
    CHECK(v(2) == doctest::Approx(0.82185619001753170878).epsilon(1e-14));
    CHECK(v(3) == doctest::Approx(0.56969500869313118219).epsilon(1e-14));
    CHECK(pe.value(1, 2) == v(2));
}

TEST_CASE("[Vaswani 3.5 / P5] d_model 512: PE(1, 510..511) = [0.00010366, 0.99999999]")
{
    const enc::SinusoidalEncoding pe(512);
    CHECK(pe.value(1, 510) == doctest::Approx(0.00010366).epsilon(1e-4));
    CHECK(pe.value(1, 511) == doctest::Approx(0.99999999).epsilon(1e-8));
    // mpmath: 1.0366329265810748983e-4 and 0.99999999462696086321.
    CHECK(pe.value(1, 510) == doctest::Approx(1.0366329265810748983e-4).epsilon(1e-13));
    CHECK(pe.value(1, 511) == doctest::Approx(0.99999999462696086321).epsilon(1e-15));
}

TEST_CASE("[Vaswani 3.5 / P5] d_model 512: PE(100, 0..3) = [-0.506366, 0.862319, 0.797542, -0.603263]")
{
    const Eigen::VectorXd v = enc::SinusoidalEncoding(512).encode(100);
    CHECK(v(0) == doctest::Approx(-0.506366).epsilon(1e-5));
    CHECK(v(1) == doctest::Approx(0.862319).epsilon(1e-6));
    CHECK(v(2) == doctest::Approx(0.797542).epsilon(1e-6));
    CHECK(v(3) == doctest::Approx(-0.603263).epsilon(1e-6));
    // mpmath at 40 digits.
    CHECK(v(0) == doctest::Approx(-0.50636564110975879366).epsilon(1e-14));
    CHECK(v(1) == doctest::Approx(0.86231887228768393410).epsilon(1e-14));
    CHECK(v(2) == doctest::Approx(0.79754236340344481979).epsilon(1e-14));
    CHECK(v(3) == doctest::Approx(-0.60326294314904471929).epsilon(1e-14));
}

TEST_CASE("[Vaswani 3.5] wavelengths run from 2pi to 10000*2pi; d_model 512's last pair: 60,611.5")
{
    const enc::SinusoidalEncoding pe(512);
    CHECK(pe.num_pairs() == 256);
    CHECK(pe.wavelength(0) == doctest::Approx(6.283185307179586).epsilon(1e-15));
    // mpmath: 2pi * 10000^(510/512) = 60611.477166261057...
    CHECK(pe.wavelength(255) == doctest::Approx(60611.477166261057).epsilon(1e-14));
    CHECK(pe.wavelength(255) == doctest::Approx(60611.5).epsilon(1e-6));
    // Geometric progression: each wavelength is 10000^(2/512) times the one before.
    for (int i = 1; i < 256; ++i)
        CHECK(pe.wavelength(i) / pe.wavelength(i - 1) == doctest::Approx(std::pow(10000.0, 2.0 / 512)).epsilon(1e-14));
}

TEST_CASE("[Vaswani 3.4] the sqrt(d_model) embedding scale: sqrt(512) = 22.6274, sqrt(1024) = 32")
{
    CHECK(enc::SinusoidalEncoding(512).embedding_scale() == 1.0);
    CHECK(enc::SinusoidalEncoding(512, enc::EmbeddingScale::sqrt_d_model).embedding_scale() ==
          doctest::Approx(22.6274).epsilon(1e-6));
    CHECK(enc::SinusoidalEncoding(1024, enc::EmbeddingScale::sqrt_d_model).embedding_scale() == 32.0);

    // x = sqrt(d) E + PE, token t at position first + t.
    const enc::SinusoidalEncoding scaled(16, enc::EmbeddingScale::sqrt_d_model);
    const Eigen::MatrixXd e = fixed_matrix(3, 16, 0.4);
    const Eigen::MatrixXd x = scaled.add_to(e, 5);
    for (int t = 0; t < 3; ++t)
        for (int c = 0; c < 16; ++c) {
            const double angle = (5 + t) * frequency(c / 2, 16);
            const double expected = 4.0 * e(t, c) + (c % 2 == 0 ? std::sin(angle) : std::cos(angle));
            CHECK(x(t, c) == doctest::Approx(expected).epsilon(1e-14));
        }
    const Eigen::MatrixXd unscaled = enc::SinusoidalEncoding(16).add_to(e, 5);
    CHECK((unscaled - (e + scaled.encode_positions(5, 3))).cwiseAbs().maxCoeff() < 1e-15);
}

TEST_CASE("[Vaswani 3.5] PE(pos + k) is a fixed rotation of PE(pos) within each (sin, cos) pair")
{
    // sin(a + b) = sin a cos b + cos a sin b; cos(a + b) = cos a cos b - sin a sin b, so
    // (sin, cos)(a + b) = [[cos b, sin b], [-sin b, cos b]] (sin, cos)(a), b = k w_i, for every a.
    const int d = 64;
    const enc::SinusoidalEncoding pe(d);
    for (std::int64_t k : {1, 3, 18, 1000, -7}) {
        for (int i : {0, 1, 7, 31}) {
            const double b = static_cast<double>(k) * frequency(i, d);
            Eigen::Matrix2d expected;
            expected << std::cos(b), std::sin(b), -std::sin(b), std::cos(b);
            const Eigen::Matrix2d m = pe.shift_rotation(i, k);
            CHECK((m - expected).cwiseAbs().maxCoeff() < 1e-12);
            CHECK((m.transpose() * m - Eigen::Matrix2d::Identity()).cwiseAbs().maxCoeff() < 1e-15);  // a rotation
            CHECK(m.determinant() == doctest::Approx(1.0).epsilon(1e-15));
            for (std::int64_t pos : {0, 5, 37, 4096, 1000000}) {
                const Eigen::VectorXd from = pe.encode(pos), to = pe.encode(pos + k);
                const Eigen::Vector2d moved = m * Eigen::Vector2d(from(2 * i), from(2 * i + 1));
                CHECK(std::abs(moved(0) - to(2 * i)) < 1e-14);
                CHECK(std::abs(moved(1) - to(2 * i + 1)) < 1e-14);
            }
        }
    }
}

TEST_CASE("[Vaswani 3.5, lesson C2-2 timeline, gen. 1 formula] PE(p).PE(q) = sum_i cos((p - q) w_i): it depends only "
          "on the distance")
{
    const int d = 128;
    const enc::SinusoidalEncoding pe(d);
    for (std::int64_t distance : {0, 1, 3, 18, 500}) {
        double expected = 0.0;  // sin a sin b + cos a cos b = cos(a - b), summed over the pairs
        for (int i = 0; i < d / 2; ++i) expected += std::cos(static_cast<double>(distance) * frequency(i, d));
        for (std::int64_t p : {0, 7, 100, 12345, 1000000}) {
            CHECK(pe.encode(p + distance).dot(pe.encode(p)) == doctest::Approx(expected).epsilon(1e-12));
            CHECK(pe.encode(p).dot(pe.encode(p + distance)) ==
                  doctest::Approx(pe.encode(p + 2 * distance).dot(pe.encode(p + distance))).epsilon(1e-12));
        }
    }
    CHECK(pe.encode(42).squaredNorm() == doctest::Approx(d / 2.0).epsilon(1e-14));  // distance 0: d/2
}

TEST_CASE("[lesson C2-2 timeline, gen. 1 formula] added sinusoidal PE: shifting the sentence by +18 changes the score; "
          "RoPE's does not")
{
    // Two content vectors a (query token at m) and b (key token at n), one head with W_q, W_k.
    // Sinusoidal: score = ((a + PE(m)) W_q) . ((b + PE(n)) W_k). Shifting both positions by s
    // changes it, because the cross terms (a W_q).(PE(n) W_k) and (PE(m) W_q).(b W_k) depend on
    // the absolute positions. RoPE: score = (R_m a W_q) . (R_n b W_k) = (a W_q)^T R_{n-m} (b W_k).
    const int d = 16;
    const Eigen::MatrixXd wq = fixed_matrix(d, d, 0.2), wk = fixed_matrix(d, d, 1.9);
    const Eigen::RowVectorXd a = fixed_matrix(1, d, 3.3).row(0), b = fixed_matrix(1, d, 6.1).row(0);
    const std::int64_t m = 5, n = 2, shift = 18;
    const enc::SinusoidalEncoding pe(d);

    auto sinusoidal_score = [&](std::int64_t s) {
        const Eigen::RowVectorXd xq = a + pe.encode(m + s).transpose(), xk = b + pe.encode(n + s).transpose();
        return (xq * wq).dot(xk * wk);
    };
    // The same score expanded into content-content, content-position, position-content and
    // position-position terms, with PE evaluated by std::sin/std::cos.
    auto by_terms = [&](std::int64_t s) {
        Eigen::RowVectorXd pm(d), pn(d);
        for (int c = 0; c < d; ++c) {
            const double am = (m + s) * frequency(c / 2, d), an = (n + s) * frequency(c / 2, d);
            pm(c) = c % 2 == 0 ? std::sin(am) : std::cos(am);
            pn(c) = c % 2 == 0 ? std::sin(an) : std::cos(an);
        }
        return (a * wq).dot(b * wk) + (a * wq).dot(pn * wk) + (pm * wq).dot(b * wk) + (pm * wq).dot(pn * wk);
    };
    const double before = sinusoidal_score(0), after = sinusoidal_score(shift);
    CHECK(before == doctest::Approx(by_terms(0)).epsilon(1e-12));
    CHECK(after == doctest::Approx(by_terms(shift)).epsilon(1e-12));
    CHECK(std::abs(after - before) > 0.1);

    // RoPE on the same content, same positions: unchanged by the shift (to rounding).
    const posenc::RopeSpec spec = posenc::RopeSpec::full(d, 10000.0);
    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
    auto rope_score = [&](std::int64_t s) {
        Eigen::VectorXd q = (a * wq).transpose(), k = (b * wk).transpose();
        posenc::apply_rope_reference(spec, table, q, m + s);
        posenc::apply_rope_reference(spec, table, k, n + s);
        return q.dot(k);
    };
    CHECK(rope_score(shift) == doctest::Approx(rope_score(0)).epsilon(1e-13));
    // ... and it equals (a W_q)^T R_{n-m} (b W_k), RoFormer eq. 16.
    const Eigen::VectorXd qa = (a * wq).transpose(), kb = (b * wk).transpose();
    CHECK(rope_score(0) == doctest::Approx(qa.dot(posenc::rotation_matrix(spec, table, n - m) * kb)).epsilon(1e-13));
}

TEST_CASE("[Vaswani 3.5] the frequencies are RoPE's theta_i for rotary_dim = d_model, base 10000")
{
    const enc::SinusoidalEncoding pe(128);
    const posenc::FrequencyTable rope = posenc::FrequencyTable::from_spec(posenc::RopeSpec::full(128, 10000.0));
    for (int i = 0; i < 64; ++i) {
        CHECK(pe.inv_freq(i) == rope.inv_freq(i));
        CHECK(pe.inv_freq(i) == doctest::Approx(frequency(i, 128)).epsilon(1e-15));
    }
    // A non-default base (e.g. for a longer wavelength range).
    const enc::SinusoidalEncoding wide(8, enc::EmbeddingScale::none, 1e6);
    CHECK(wide.base() == 1e6);
    CHECK(wide.inv_freq(3) == doctest::Approx(std::pow(1e6, -6.0 / 8.0)).epsilon(1e-15));
}

}  // namespace encodings_sinusoidal_tests
