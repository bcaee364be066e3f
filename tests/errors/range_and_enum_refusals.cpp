// SPDX-License-Identifier: MIT
// Refusals added where a checked entry point used to pass bad input on: positions and distances
// beyond the exact angle reduction's range (angles.hpp: |m| <= 2^53, |m theta| <= 2^50) reaching
// the unchecked reduction through a checked caller; YaRN's helpers given NaN, inf or
// non-positive arguments (HF find_correction_dim and get_mscale take logarithms of them); enum
// values cast from integers that name no enumerator; and RopeGroup::make's fields. Each asserts
// the full "<field> <value> <rule>" message of docs/errors.md.
#include <posenc/analysis/base_bound.hpp>
#include <posenc/analysis/pi_bound.hpp>
#include <posenc/analysis/roformer_bound.hpp>
#include <posenc/angle_precision.hpp>
#include <posenc/angles.hpp>
#include <posenc/model_rope.hpp>
#include <posenc/multi_axis.hpp>
#include <posenc/rotation.hpp>
#include <posenc/scaling/scaling.hpp>
#include <posenc/scaling/yarn.hpp>

#include <doctest/doctest.h>

#include "support/error_messages.hpp"

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace errors_range_and_enum_refusals_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {
using test_support::infinity;
using test_support::message_of;
using test_support::not_a_number;

constexpr std::int64_t two_to_50 = std::int64_t {1} << 50;
constexpr std::int64_t two_to_53 = std::int64_t {1} << 53;
const std::string beyond_53 = "9007199254740993 must be in [-2^53, 2^53] (the exact angle reduction's range)";
const std::string beyond_50 = "1125899906842625 must keep |position * inv_freq| <= 2^50 (the exact angle reduction's "
                              "range); inv_freq 1 gives 1125899906842625";
}  // namespace

TEST_CASE(
    "[angles.hpp range] checked callers of the exact reduction refuse |m| > 2^53 and |m theta| > 2^50 before writing")
{
    const posenc::RopeSpec spec = posenc::RopeSpec::full(8, 1e4);
    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);  // theta_0 = 1
    CHECK(message_of([&] { posenc::rotation_matrix(spec, table, two_to_53 + 1); }) == "position " + beyond_53);
    CHECK(message_of([&] { posenc::rotation_matrix(spec, table, -two_to_53 - 1); }) ==
          "position -9007199254740993 must be in [-2^53, 2^53] (the exact angle reduction's range)");
    CHECK(message_of([&] { posenc::rotation_matrix(spec, table, two_to_50 + 1); }) == "position " + beyond_50);
    double head[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    CHECK(message_of([&] { posenc::apply_rope_reference(spec, table, head, two_to_50 + 1); }) ==
          "position " + beyond_50);
    CHECK(head[0] == 1.0);  // nothing written before the refusal
    Eigen::VectorXf v = Eigen::VectorXf::Ones(8);
    CHECK(message_of([&] { posenc::apply_rope_reference(spec, table, v, two_to_53 + 1); }) == "position " + beyond_53);
    // the edge itself is served
    CHECK(message_of([&] { posenc::rotation_matrix(spec, table, two_to_50); }) == "(no error)");

    // a frequency above 1 (a table built by hand, or LongRoPE factors below 1) reaches 2^50 sooner
    const posenc::FrequencyTable fast(std::vector<double> {1024.0, 1.0, 0.5, 0.25});
    CHECK(message_of([&] { posenc::rotation_matrix(spec, fast, two_to_50 / 512); }) ==
          "position 2199023255552 must keep |position * inv_freq| <= 2^50 (the exact angle reduction's range); "
          "inv_freq 1024 gives 2251799813685248");

    // multi-axis: each axis is checked against its own pairs' frequencies
    const posenc::MultiAxisLayout layout = posenc::MultiAxisLayout::sections({1, 1, 2}, 4);
    const std::vector<std::int64_t> positions {0, two_to_53 + 1, 0};
    CHECK(message_of([&] { posenc::apply_multi_axis_rope_reference(spec, table, layout, head, positions); }) ==
          "positions[1] " + beyond_53);
    const std::vector<std::int64_t> far_first {two_to_50 + 1, 0, 0};
    CHECK(message_of([&] { posenc::apply_multi_axis_rope_reference(spec, table, layout, head, far_first); }) ==
          "positions[0] 1125899906842625 must keep |positions[0] * inv_freq| <= 2^50 (the exact angle reduction's "
          "range); inv_freq 1 gives 1125899906842625");
    CHECK(head[0] == 1.0);

    // rotation_angle and cos_sin with a Precision: the pair and the position are checked too
    CHECK(message_of([&] { posenc::rotation_angle(table, two_to_50 + 1, 0, posenc::Precision::exact); }) ==
          "position " + beyond_50);
    CHECK(message_of([&] { posenc::cos_sin(table, two_to_53 + 1, 3, posenc::Precision::hf_float32); }) ==
          "position " + beyond_53);
    CHECK(message_of([&] { posenc::rotation_angle(table, 5, 4, posenc::Precision::exact); }) ==
          "pair 4 must be in [0, num_pairs 4)");
    CHECK(message_of([&] { posenc::cos_sin(table, 5, -1, posenc::Precision::exact); }) ==
          "pair -1 must be in [0, num_pairs 4)");
    // pair 3's frequency is 1e-3: far positions are fine for it
    CHECK(message_of([&] { posenc::rotation_angle(table, two_to_50 + 1, 3, posenc::Precision::exact); }) ==
          "(no error)");
}

TEST_CASE("[angles.hpp range] the analysis bounds refuse distances whose angle leaves the exact reduction")
{
    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(posenc::RopeSpec::full(8, 1e4));
    CHECK(message_of([&] { posenc::similarity_margin(table, two_to_53 + 1); }) == "distance " + beyond_53);
    CHECK(message_of([&] { posenc::similarity_margin(table, two_to_50 + 1); }) ==
          "distance 1125899906842625 must keep |distance * inv_freq| <= 2^50 (the exact angle reduction's range); "
          "inv_freq 1 gives 1125899906842625");
    CHECK(std::isfinite(posenc::similarity_margin(table, two_to_50)));
    // theta = 4 (a LongRoPE factor of 1/4 on pair 0): 2^49 tokens is 2^51 rad
    const posenc::FrequencyTable fast(std::vector<double> {4.0, 1.0, 0.5, 0.25});
    CHECK(message_of([&] { posenc::roformer_relative_bound(fast, 562949953421312.0); }) ==
          "distance 562949953421312 must keep |distance * inv_freq| <= 2^50 (the exact angle reduction's range); "
          "inv_freq 4 gives 2251799813685248");
    CHECK(message_of([&] { posenc::pi_extrapolation_sum(fast, -562949953421312.0); }) ==
          "distance -562949953421312 must keep |distance * inv_freq| <= 2^50 (the exact angle reduction's range); "
          "inv_freq 4 gives 2251799813685248");
    CHECK(message_of([&] { posenc::roformer_bound_curve(fast, 0.0, 562949953421312.0, 3); }) ==
          "distance 562949953421312 must keep |distance * inv_freq| <= 2^50 (the exact angle reduction's range); "
          "inv_freq 4 gives 2251799813685248");
    // a frequency so large that a short search already leaves the range
    const posenc::FrequencyTable huge(std::vector<double> {1e300});
    CHECK(message_of([&] { posenc::max_context_length(huge, 10); }) ==
          "search_limit 10 must keep |search_limit * inv_freq| <= 2^50 (the exact angle reduction's range); "
          "inv_freq 1e+300 gives 1e+301");
    CHECK(message_of([&] { posenc::first_distance_below(huge, 0.5, 10); }) ==
          "distance 10 must keep |distance * inv_freq| <= 2^50 (the exact angle reduction's range); "
          "inv_freq 1e+300 gives 1e+301");
    // within the range, the reduction stays in [-pi, pi] up to the edge
    for (std::int64_t m : {two_to_50, two_to_50 - 1, -two_to_50, two_to_50 - 12345})
        CHECK(std::abs(posenc::reduced_angle(m, 1.0)) <= 3.141592653589794);
}

TEST_CASE("[YaRN eq. 22, HF get_mscale and find_correction_dim] NaN, inf and non-positive arguments are refused")
{
    const posenc::RopeSpec spec = posenc::RopeSpec::full(128, 1e6);
    CHECK(message_of([] { posenc::yarn_mscale(not_a_number); }) == "scale nan must be finite and > 0");
    CHECK(message_of([] { posenc::yarn_mscale(infinity); }) == "scale inf must be finite and > 0");
    CHECK(message_of([] { posenc::yarn_mscale(0.0); }) == "scale 0 must be finite and > 0");
    CHECK(message_of([] { posenc::yarn_mscale(-2.0); }) == "scale -2 must be finite and > 0");
    CHECK(message_of([] { posenc::yarn_mscale(4.0, not_a_number); }) == "mscale nan must be finite");
    CHECK(message_of([] { posenc::yarn_mscale(4.0, -infinity); }) == "mscale -inf must be finite");
    CHECK(posenc::yarn_mscale(0.5) == 1.0);  // s <= 1 still gives 1, as HF
    CHECK(message_of([&] { posenc::yarn_correction_dim(spec, 0.0, 4096); }) ==
          "num_rotations 0 must be finite and > 0");
    CHECK(message_of([&] { posenc::yarn_correction_dim(spec, -1.0, 4096); }) ==
          "num_rotations -1 must be finite and > 0");
    CHECK(message_of([&] { posenc::yarn_correction_dim(spec, not_a_number, 4096); }) ==
          "num_rotations nan must be finite and > 0");
    CHECK(message_of([&] { posenc::yarn_correction_dim(spec, infinity, 4096); }) ==
          "num_rotations inf must be finite and > 0");
    CHECK(message_of([&] { posenc::yarn_correction_dim(spec, 32.0, 0); }) == "original_length 0 must be > 0");
    CHECK(message_of([&] { posenc::yarn_correction_dim(spec, 32.0, -4096); }) == "original_length -4096 must be > 0");
    CHECK(std::isfinite(posenc::yarn_correction_dim(spec, 32.0, 32768)));
}

TEST_CASE(
    "[enum values] a Precision or PiCoefficient cast from another integer is refused by name where it is consumed")
{
    const posenc::RopeSpec spec = posenc::RopeSpec::full(64, 1e4);
    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
    const auto bad = static_cast<posenc::Precision>(5);
    const std::string precision = "precision 5 must be Precision::exact or Precision::hf_float32";
    CHECK(message_of([&] { posenc::frequency_table(spec, posenc::NoScaling {}, bad); }) == precision);
    CHECK(message_of([&] { posenc::frequency_table(spec, posenc::YarnScaling(4.0, 4096), 8192, bad); }) == precision);
    CHECK(message_of([&] { posenc::scaled_inv_freq(spec, posenc::LinearScaling(2.0), std::nullopt, bad); }) ==
          precision);
    CHECK(message_of([&] { posenc::linear_inv_freq(spec, posenc::LinearScaling(2.0), bad); }) == precision);
    CHECK(message_of([&] { posenc::ntk_aware_inv_freq(spec, posenc::NtkAwareScaling(2.0), bad); }) == precision);
    CHECK(message_of([&] { posenc::dynamic_ntk_inv_freq(spec, posenc::DynamicNtkScaling(2.0, 4096), 8192, bad); }) ==
          precision);
    CHECK(message_of([&] { posenc::yarn_inv_freq(spec, posenc::YarnScaling(4.0, 4096), bad); }) == precision);
    CHECK(message_of([&] { posenc::llama3_inv_freq(spec, posenc::Llama3Scaling(8.0, 1.0, 4.0, 8192), bad); }) ==
          precision);
    const std::vector<double> ones(32, 1.0);
    CHECK(message_of([&] {
              posenc::longrope_inv_freq(spec, posenc::LongRopeScaling(ones, ones, 4096, 2.0), 100, bad);
          }) == precision);
    CHECK(message_of([&] { posenc::rotation_angle(table, 5, 0, bad); }) == precision);
    CHECK(message_of([&] { posenc::cos_sin(table, 5, 0, static_cast<posenc::Precision>(-1)); }) ==
          "precision -1 must be Precision::exact or Precision::hf_float32");
    const posenc::RopeGroup group = posenc::RopeGroup::make("default", spec);
    CHECK(message_of([&] { group.table(bad); }) == precision);
    CHECK(std::string(posenc::to_string(bad)) == "(not a Precision)");

    const auto bad_which = static_cast<posenc::PiCoefficient>(7);
    const std::string which = "which 7 must be PiCoefficient::paper or PiCoefficient::corrected";
    CHECK(message_of([&] { posenc::pi_grid_coefficient(spec, bad_which); }) == which);
    CHECK(message_of([&] { posenc::pi_interpolation_bound(spec, 1.5, 1.0, 2.0, bad_which); }) == which);
    CHECK(message_of([&] { posenc::pi_bound_ratio(spec, 0, 100, bad_which); }) == which);
}

TEST_CASE("[model_rope.hpp invariants] RopeGroup::make refuses an empty name and a negative max_position_embeddings")
{
    const posenc::RopeSpec spec = posenc::RopeSpec::full(64, 1e4);
    CHECK(message_of([&] { posenc::RopeGroup::make("", spec); }) == "name \"\" must not be empty");
    CHECK(message_of([&] { posenc::RopeGroup::make("default", spec, posenc::NoScaling {}, -1); }) ==
          "max_position_embeddings -1 must be >= 0 (0 when unknown)");
    CHECK(posenc::RopeGroup::make("default", spec, posenc::NoScaling {}, 0).max_position_embeddings == 0);
}

}  // namespace errors_range_and_enum_refusals_tests
