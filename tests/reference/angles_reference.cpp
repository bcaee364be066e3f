// SPDX-License-Identifier: MIT
// Exact angle reduction (angles.hpp) against values computed independently with mpmath at 400
// bits (Python: x = mpf(position) * mpf(inv_freq); r = x - 2*pi*nint(x/(2*pi))), where inv_freq
// is the double written below in hex. Bound under test: < 4e-15 rad, cos/sin < 5e-15.
#include <posenc/angles.hpp>
#include <posenc/spec.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>

namespace reference_angles_reference_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {
struct AngleVector {
    std::int64_t position;
    double inv_freq;
    double reduced, cos, sin;  // mpmath, 25 digits
};

const AngleVector vectors[] = {
    {2147483647, 0x1.0000000000000p+0, -2.330679405832650639981027, -0.6888366918779438346797582,
     -0.7249165551445563905482933},
    {1000000, 0x1.0000000000000p+0, -0.3575641670857350440153317, 0.9367521275331447869385325,
     -0.3499935021712929521176525},
    {16777216, 0x1.bb5fad00ab22cp-1, -0.6544089377641451258218961, 0.7934078405775955658190097,
     -0.6086903962689050831138764},
    {131072, 0x1.4d1c97f4e952fp-20, 0.162652194177249381779049, 0.9868012689086433447955598,
     0.1619359616647623010815339},
    {2147483647, 0x1.bb5fad00ab22cp-1, -2.948899363836017251864796, -0.98149202237169520383969,
     -0.1915030287507739693012639},
    {1099511627776, 0x1.0000000000000p-1, -1.361921305460894081177471, 0.2073595042534137108707604,
     -0.9782648087280756830719841},
    {-2147483647, 0x1.0000000000000p+0, 2.330679405832650639981027, -0.6888366918779438346797582,
     0.7249165551445563905482933},
};
}  // namespace

TEST_CASE("[mpmath] reduced_angle is within 4e-15 rad of the exact m*theta mod 2pi up to position 2^40")
{
    for (const AngleVector& v : vectors) {
        CAPTURE(v.position);
        CAPTURE(v.inv_freq);
        const double r = posenc::reduced_angle(v.position, v.inv_freq);
        CHECK(std::abs(r - v.reduced) < 4e-15);
        const posenc::CosSin cs = posenc::cos_sin(v.position, v.inv_freq);
        CHECK(std::abs(cs.cos - v.cos) < 5e-15);
        CHECK(std::abs(cs.sin - v.sin) < 5e-15);
    }
}

TEST_CASE("[mpmath] the naive double product m*theta is already off by more than the reduced angle at 2^31 - 1")
{
    // Why the reduction exists: std::cos(double(m) * theta) rounds m*theta first (error up to
    // 2^31 * 2^-53 = 2.4e-7 rad for theta ~ 0.87) and then reduces that rounded value.
    const AngleVector& v = vectors[4];
    const double naive = std::cos(static_cast<double>(v.position) * v.inv_freq);
    const double exact = posenc::cos_sin(v.position, v.inv_freq).cos;
    CHECK(std::abs(exact - v.cos) < 5e-15);
    CHECK(std::abs(naive - v.cos) > 1e-12);
}

TEST_CASE("[mpmath] reduced_angle stays in [-pi, pi] and is odd in the position")
{
    const double pi = 3.141592653589793;
    for (std::int64_t m = -5000; m <= 5000; m += 7)
        for (double theta : {1.0, 0.5, 0.8659643233600653, 1e-4}) {
            const double r = posenc::reduced_angle(m, theta);
            CHECK(std::abs(r) <= pi);
            CHECK(posenc::reduced_angle(-m, theta) == -r);
        }
}

}  // namespace reference_angles_reference_tests
