// SPDX-License-Identifier: MIT
// Shared by the error tests: the message a call throws as posenc::error, and the non-finite
// constants they feed in. Nothing here computes an expected value.
#pragma once

#include <posenc/error.hpp>

#include <limits>
#include <string>

namespace test_support {

/// e.what() of the posenc::error that f() throws, or "(no error)" when it returns normally.
template <class F>
std::string message_of(F&& f)
{
    try {
        f();
    } catch (const posenc::error& e) {
        return e.what();
    }
    return "(no error)";
}

inline constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();
inline constexpr double infinity = std::numeric_limits<double>::infinity();

}  // namespace test_support
