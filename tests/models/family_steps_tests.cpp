// SPDX-License-Identifier: MIT
// The family rules' hooks in the generic steps (posenc/models/detail/families/family_steps.hpp):
// a family's own check runs inside the generic step where it belongs, not when its rule runs (before
// every step). A config with two faults is refused for the key the reader reads first: a key read
// by an earlier step wins over the family's check, and the family's check wins over a key read by a
// later step. The step order is resolve_config_values' (hf_group_json.hpp): head width, scaling
// dict, partial rotary factor, base, ..., the scaling dict's keys in the order they are read.
#include <posenc/models/hf_config.hpp>

#include <doctest/doctest.h>

#include <string>

#include "support/model_parse_errors.hpp"

namespace models_family_steps_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using test_support::models::error_of;

bool names(const std::string& message, const std::string& key) { return message.rfind(key + ": ", 0) == 0; }

}  // namespace

TEST_CASE("[bamba/configuration_bamba.py] the forced partial factor is checked in the partial-factor step")
{
    // head_dim is read before the factor; rope_theta after it.
    CHECK(
        names(error_of(R"({"model_type": "bamba", "head_dim": "wide", "num_hidden_layers": 2, "attn_layer_indices": [0],
                             "partial_rotary_factor": 1.0})"),
              "head_dim"));
    CHECK(names(error_of(R"({"model_type": "bamba", "head_dim": 128, "num_hidden_layers": 2, "attn_layer_indices": [0],
                             "partial_rotary_factor": 1.0, "rope_theta": "high"})"),
                "partial_rotary_factor"));
}

TEST_CASE("[phimoe/configuration_phimoe.py validate_rope] the mscales are read among the RoPE dict's keys")
{
    // factor is read before the mscales, short_factor after them.
    CHECK(names(error_of(R"({"model_type": "phimoe", "head_dim": 8, "max_position_embeddings": 131072,
                             "rope_scaling": {"type": "longrope", "factor": "four", "short_factor": [1, 1, 1, 1],
                                              "long_factor": [1, 1, 1, 1], "short_mscale": 1.2,
                                              "original_max_position_embeddings": 4096}})"),
                "rope_scaling.factor"));
    CHECK(names(error_of(R"({"model_type": "phimoe", "head_dim": 8, "max_position_embeddings": 131072,
                             "rope_scaling": {"type": "longrope", "short_factor": "short", "long_factor": [1, 1, 1, 1],
                                              "short_mscale": 1.2, "original_max_position_embeddings": 4096}})"),
                "rope_scaling.long_mscale"));
}

TEST_CASE("[mistral4/configuration_mistral4.py] the head width is read in the head-width step")
{
    // max_position_embeddings is read before the head width; the RoPE dict's base after it.
    CHECK(names(error_of(R"({"model_type": "mistral4", "head_dim": 96, "max_position_embeddings": "long"})"),
                "max_position_embeddings"));
    CHECK(names(error_of(R"({"model_type": "mistral4", "head_dim": 96,
                             "rope_parameters": {"rope_type": "default", "rope_theta": "high"}})"),
                "head_dim"));
}

}  // namespace models_family_steps_tests
