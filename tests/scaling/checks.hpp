// SPDX-License-Identifier: MIT
// Small comparison helpers for the context-extension tests (tests/scaling, tests/analysis,
// tests/lessons/c2_5_long_context.cpp). Include as "scaling/checks.hpp".
#pragma once

#include <posenc/error.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "support/error_messages.hpp"

namespace posenc_test {

/// Distance in float32 units in the last place between two finite floats (0 = identical).
inline std::int64_t ulp_distance(float a, float b)
{
    const auto ordered = [](float x) {
        std::int32_t i;
        std::memcpy(&i, &x, sizeof i);
        return i < 0 ? std::int64_t {INT32_MIN} - i : std::int64_t {i};
    };
    return std::llabs(ordered(a) - ordered(b));
}

/// |value - expected| / |expected|.
inline double relative_error(double value, double expected) { return std::abs(value - expected) / std::abs(expected); }

/// x - 2 pi round(x / 2 pi): an angle difference folded into [-pi, pi].
inline double wrap_angle(double x)
{
    const double two_pi = 6.283185307179586476925286766559;
    return x - two_pi * std::nearbyint(x / two_pi);
}

/// The posenc::error message `f` throws, or "(no error)".
using test_support::message_of;

}  // namespace posenc_test
