// SPDX-License-Identifier: MIT
// posenc-ten-degrees: the side lesson's 10-degree example, as two tables that fit 80 columns.
//
// Side lesson "does RoPE lose absolute position?" (docs/lessons.md, side lesson #29-#32): one
// rotating pair that turns 10 degrees per position, a query
// q at m = 5 and a key k at n = 2, then the whole sentence shifted by +18. It prints, for both
// placements, the angle each vector turns, their difference, the rotated vectors and their dot
// product; then the identity behind it, (R(m t) q).(R(n t) k) = q^T R((n - m) t) k.
// q and k are "two ordinary 2-d vectors" (the lesson's widget does not print its own); the same
// pair is used by tests/lessons/side_absolute_position.cpp.
//
// The ctest "example_ten_degrees" runs this program and compares its output with
// tests/encodings/ten_degrees.expected, whose numbers come from the lesson and from mpmath
// (tests/encodings/ten_degrees_reference.py).
#include <posenc/posenc.hpp>

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

constexpr double pi = 3.14159265358979323846;
constexpr double degree = pi / 180.0;

// The angle a position turns, in degrees within [0, 360): reduced exactly (angles.hpp), then
// moved from [-180, 180] into [0, 360) for printing.
double turned_degrees(std::int64_t position, double inv_freq)
{
    const double d = posenc::reduced_angle(position, inv_freq) / degree;
    return d < 0.0 ? d + 360.0 : d;
}

}  // namespace

int main()
{
    // A one-pair RoPE (head of 2 dims) whose only frequency is 10 degrees per position.
    const posenc::RopeSpec spec(2, 2, 10000.0, posenc::Pairing::interleaved);  // base unused: own table below
    const posenc::FrequencyTable table(std::vector<double> {10.0 * degree});
    const double theta = table.inv_freq(0);
    const Eigen::Vector2d q(1.0, 0.5), k(0.8, -0.3);

    std::printf("RoPE with one pair turning 10 degrees per position;\n"
                "q = (1, 0.5) at position m, k = (0.8, -0.3) at position n.\n\n");

    struct Placement {
        const char* name;
        std::int64_t m, n;
    };
    const Placement placements[] = {{"start", 5, 2}, {"shift +18", 5 + 18, 2 + 18}};
    std::printf("%-10s %3s %3s  %8s  %8s  %10s\n", "placement", "m", "n", "q turns", "k turns", "difference");
    for (const Placement& p : placements) {
        const double q_turns = turned_degrees(p.m, theta), k_turns = turned_degrees(p.n, theta);
        std::printf("%-10s %3lld %3lld  %8.3f  %8.3f  %10.3f\n", p.name, static_cast<long long>(p.m),
                    static_cast<long long>(p.n), q_turns, k_turns, q_turns - k_turns);
    }
    std::printf("\n%-10s  %-22s   %-22s  %9s\n", "placement", "R(m t) q", "R(n t) k", "dot");
    Eigen::Vector2d rotated_q[2];
    int row = 0;
    for (const Placement& p : placements) {
        const Eigen::Vector2d qm = posenc::rotation_matrix(spec, table, p.m) * q;
        const Eigen::Vector2d kn = posenc::rotation_matrix(spec, table, p.n) * k;
        std::printf("%-10s  (%9.6f, %9.6f)   (%9.6f, %9.6f)  %9.6f\n", p.name, qm.x(), qm.y(), kn.x(), kn.y(),
                    qm.dot(kn));
        rotated_q[row++] = qm;
    }

    // The identity: only n - m survives in the dot product.
    const double relative = q.dot(posenc::rotation_2x2((2 - 5) * theta) * k);
    std::printf("\nq^T R((n - m) t) k with n - m = -3 (-30 degrees): %9.6f,\nthe same for both placements.\n",
                relative);
    std::printf("Yet R(5 t) q and R(23 t) q are different vectors:\n|R(23 t) q - R(5 t) q| = %8.6f"
                " (18 positions = 180 degrees apart: 2 |q|).\n",
                (rotated_q[1] - rotated_q[0]).norm());
    return 0;
}
