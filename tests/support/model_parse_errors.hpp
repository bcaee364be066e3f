// SPDX-License-Identifier: MIT
// Shared by the tests of the config reader's whole-model entry (posenc::hf::parse_model): the
// message it throws for a config text. Nothing here computes an expected value.
#pragma once

#include <posenc/error.hpp>
#include <posenc/models/hf_config.hpp>

#include <string>

namespace test_support::models {

/// e.what() of the posenc::error that parse_model(text) throws, or "(accepted)".
inline std::string error_of(const std::string& text)
{
    try {
        posenc::hf::parse_model(text);
    } catch (const posenc::error& e) {
        return e.what();
    }
    return "(accepted)";
}

}  // namespace test_support::models
