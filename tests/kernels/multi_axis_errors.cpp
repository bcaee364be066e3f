// SPDX-License-Identifier: MIT
// Invalid multi-axis kernel calls: each throws posenc::error naming the field, the value and the
// rule, before any element is written. The expected strings are the rules documented in
// kernels/multi_axis.hpp (apply_multi_axis_rope) and detail/checks.hpp.
#include <doctest/doctest.h>

#include <posenc/kernels/multi_axis.hpp>

#include <cstdint>
#include <vector>

#include "kernel_test_support.hpp"
#include "support/error_messages.hpp"

namespace kernels_multi_axis_errors_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using namespace posenc::kernels;
using posenc::MultiAxisLayout;
using test_support::message_of;

const posenc::RopeSpec spec(64, 64, 1e4);
const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
const CosSinCache cache(table, 100);
const OnTheFlyAngles on_the_fly(table, 1000);
const MultiAxisLayout mrope = MultiAxisLayout::sections({8, 12, 12}, 32);

}  // namespace

TEST_CASE("[errors] multi-axis calls name the field, the value and the rule")
{
    std::vector<float> q(4 * 2 * 64, 0.5f);
    const std::vector<float> untouched = q;
    const auto views = QKViews<float>::in_place(HeadsView<float>(q, {4, 2, 64}));
    std::vector<std::int32_t> ids {0, 0, 0, 1, 2, 3, 5, 5, 5, 6, 7, 99};  // [4][3]
    const MultiAxisPositions positions(ids, 3);

    CHECK(message_of([&] { apply_multi_axis_rope(spec, MultiAxisLayout::axial_2d(16), cache, positions, views); }) ==
          "layout.num_pairs 16 must equal spec.num_pairs 32 (rotary_dim / 2)");
    CHECK(message_of([&] { apply_multi_axis_rope(spec, MultiAxisLayout::axial_2d(32), cache, positions, views); }) ==
          "positions.axes 3 must equal layout.num_axes 2");
    CHECK(message_of([&] {
              apply_multi_axis_rope(spec, mrope, cache, MultiAxisPositions(ids.data(), 12, 3, 3), views);
          }) == "positions.tokens 3 must equal tokens 4");
    CHECK(message_of([&] {
              apply_multi_axis_rope(spec, mrope, cache,
                                    MultiAxisPositions(static_cast<const std::int64_t*>(nullptr), 0, 4, 3), views);
          }) == "positions.data null must point to tokens x axes position ids");
    CHECK(
        message_of(
            [&] { apply_multi_axis_rope(spec, mrope, cache, MultiAxisPositions(ids.data(), 11, 4, 3), views); }) ==
        "positions.size 11 must be >= 1 + (tokens - 1) * token_stride + (axes - 1) * axis_stride = 1 + 3 * 3 + 2 * 1, "
        "the elements its positions occupy");
    CHECK(
        message_of([&] {
            apply_multi_axis_rope(spec, mrope, cache, MultiAxisPositions::axes_major(ids.data(), 11, 4, 3), views);
        }) ==
        "positions.size 11 must be >= 1 + (tokens - 1) * token_stride + (axes - 1) * axis_stride = 1 + 3 * 1 + 2 * 4, "
        "the elements its positions occupy");
    CHECK(message_of([&] {
              apply_multi_axis_rope(spec, mrope, cache, MultiAxisPositions::strided(ids.data(), 12, 4, 3, 3, 0), views);
          }) == "positions.axis_stride 0 must be >= 1 (positions walk their buffer forwards)");
    CHECK(message_of([&] {
              apply_multi_axis_rope(spec, mrope, cache, MultiAxisPositions::strided(ids.data(), 12, 4, 3, -3, 1),
                                    views);
          }) == "positions.token_stride -3 must be >= 1 (positions walk their buffer forwards)");
    // the largest strides that still fit are accepted (exact bound: last index 11 of 12)
    CHECK(message_of([&] {
              apply_multi_axis_rope(spec, mrope, cache, MultiAxisPositions::axes_major(ids.data(), 12, 4, 3), views);
          }) == "(no error)");
    q = untouched;
    ids[11] = 100;  // token 3, axis 2: one past the cache
    CHECK(message_of([&] { apply_multi_axis_rope(spec, mrope, cache, positions, views); }) ==
          "positions[3][2] 100 must be in [0, 99], the positions the CosSinCache serves");
    ids[11] = -1001;
    CHECK(message_of([&] { apply_multi_axis_rope(spec, mrope, on_the_fly, positions, views); }) ==
          "positions[3][2] -1001 must be in [-1000, 1000], the positions the OnTheFlyAngles serves");
    // a sub-range checks only its own tokens
    CHECK(message_of([&] {
              apply_multi_axis_rope(spec, mrope, on_the_fly, positions, views, Direction::forward, TokenRange {0, 3});
          }) == "(no error)");
    q = untouched;
    // the 1-D checks still apply (here: the angle source's pair count, then the range)
    const posenc::FrequencyTable small = posenc::FrequencyTable::from_spec(posenc::RopeSpec(32, 32, 1e4));
    const CosSinCache small_cache(small, 10);
    CHECK(message_of([&] { apply_multi_axis_rope(spec, mrope, small_cache, positions, views); }) ==
          "angles.num_pairs 16 must equal spec.num_pairs 32 (rotary_dim / 2): the angle source was built for another "
          "rotary_dim");
    CHECK(message_of([&] {
              apply_multi_axis_rope(spec, mrope, on_the_fly, positions, views, Direction::forward, TokenRange {2, 5});
          }) == "range [2, 5) must satisfy 0 <= begin <= end <= tokens 4");
    for (posenc::kernels::dispatch::Isa isa : posenc::kernels::dispatch::dispatch_isas) {
        if (!posenc::kernels::dispatch::isa_available(isa)) continue;
        CHECK(message_of([&] { dispatch::apply_multi_axis_rope_on(isa, spec, mrope, on_the_fly, positions, views); }) ==
              "positions[3][2] -1001 must be in [-1000, 1000], the positions the OnTheFlyAngles serves");
    }
    CHECK(message_of([&] { dispatch::apply_multi_axis_rope(spec, mrope, cache, positions, views); }) ==
          "positions[3][2] -1001 must be in [0, 99], the positions the CosSinCache serves");
    CHECK(q == untouched);  // nothing was written by a refused call
}

}  // namespace kernels_multi_axis_errors_tests

namespace kernels_multi_axis_errors_tests {

// HunYuan-VL's coordinate sections (multi_axis.hpp) can give a pair's two coordinates different
// axes; the kernels route whole pairs, so such a layout is refused before any element is written
// (applying it per pair would be a silent wrong answer wherever the two positions differ).
TEST_CASE("[errors] a layout that splits pairs across axes is refused by the multi-axis kernels")
{
    const MultiAxisLayout split = MultiAxisLayout::coordinate_sections({8, 8, 8, 8}, 32);
    REQUIRE(split.splits_pairs());
    std::vector<float> q(2 * 2 * 64, 0.5f);
    const std::vector<float> untouched = q;
    const auto views = QKViews<float>::in_place(HeadsView<float>(q, {2, 2, 64}));
    std::vector<std::int32_t> ids {0, 0, 0, 0, 1, 2, 3, 4};  // [2][4]
    const MultiAxisPositions positions(ids, 4);
    const std::string expected =
        "layout \"coordinate_sections\" splits pairs across axes (a pair's two coordinates read different "
        "positions), which the multi-axis kernels cannot apply: use apply_multi_axis_rope_reference "
        "(posenc/multi_axis.hpp)";
    CHECK(message_of([&] { apply_multi_axis_rope(spec, split, cache, positions, views); }) == expected);
    CHECK(message_of([&] { apply_multi_axis_rope(spec, split, on_the_fly, positions, views); }) == expected);
    CHECK(q == untouched);
}

}  // namespace kernels_multi_axis_errors_tests
