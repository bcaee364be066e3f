// SPDX-License-Identifier: MIT
// Multimodal layouts and position ids (multi_axis.hpp, multimodal_positions.hpp) against
// tests/multi_axis/multimodal_reference.py, which restates Hugging Face transformers' code
// (HunYuan-VL's apply_multimodal_rotary_pos_emb and get_rope_index, ERNIE-4.5-VL's rotary
// embedding with its pre-permuted table and recomposition, and its get_rope_index) and Tencent's
// apply_rotary_pos_emb_xdrope with Python lists and mpmath, independently of posenc.
#include <posenc/frequencies.hpp>
#include <posenc/multi_axis.hpp>
#include <posenc/multimodal_positions.hpp>
#include <posenc/spec.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "support/error_messages.hpp"

namespace multi_axis_multimodal_layouts_tests {  // per-file namespace: a folder builds as one unit

using posenc::MultiAxisLayout;
using posenc::PromptSegment;
using test_support::message_of;

const std::vector<double> q16 {3 / 8.0, -5 / 8.0, 7 / 8.0,  2 / 8.0, -1 / 8.0, 4 / 8.0,  6 / 8.0, -8 / 8.0,
                               5 / 8.0, 1 / 8.0,  -3 / 8.0, 2 / 8.0, 7 / 8.0,  -6 / 8.0, 4 / 8.0, 3 / 8.0};

std::vector<double> rotated(const posenc::RopeSpec& spec, const MultiAxisLayout& layout,
                            std::vector<std::int64_t> positions)
{
    std::vector<double> head = q16;
    posenc::apply_multi_axis_rope_reference(spec, posenc::FrequencyTable::from_spec(spec), layout, head.data(),
                                            positions);
    return head;
}

void check_close(const std::vector<double>& got, const std::vector<double>& want)
{
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        CAPTURE(i);
        CHECK(std::abs(got[i] - want[i]) < 1e-14);
    }
}

TEST_CASE("[HF hunyuan_vl apply_multimodal_rotary_pos_emb] doubled sections [4, 4, 4, 4] cut the 16 coordinates; pairs "
          "read two axes")
{
    const MultiAxisLayout layout = MultiAxisLayout::coordinate_sections({2, 2, 2, 2}, 8);
    CHECK(layout.kind() == posenc::MultiAxisKind::coordinate_sections);
    CHECK(layout.num_axes() == 4);
    CHECK(layout.pair_axes() == std::vector<int> {0, 0, 0, 0, 1, 1, 1, 1});
    CHECK(layout.partner_axes() == std::vector<int> {2, 2, 2, 2, 3, 3, 3, 3});
    CHECK(layout.splits_pairs());
    CHECK(layout.mrope_section() == std::vector<int> {2, 2, 2, 2});
    check_close(rotated(posenc::RopeSpec::full(16, 1e4), layout, {10, 3, 5, 1}),
                {0.025361370902186463781, 0.6274517369907764792, 0.78831613693758344272, 0.15985792183699928404,
                 -0.15118981689580714271, 0.50709251817773758646, 0.74849662725253023674, -1.0003553061834392596,
                 -0.18230773708416051054, -0.62625936285665400383, 0.090403885569787856696, 0.28624547953932671301,
                 0.87370627119781128497, -0.74841511380827087515, 0.50074974987502083958, 0.37468375348925378106});
    // Every text token (all positions equal) rotates as 1-D RoPE whatever the layout.
    const std::vector<double> text = rotated(posenc::RopeSpec::full(16, 1e4), layout, {6, 6, 6, 6});
    check_close(text, rotated(posenc::RopeSpec::full(16, 1e4), MultiAxisLayout::single(8), {6}));
}

TEST_CASE("[Tencent apply_rotary_pos_emb_xdrope] repeated sections: runs over the pairs, pairs read one axis")
{
    const MultiAxisLayout layout = MultiAxisLayout::xd_sections({2, 2, 2, 2}, 8);
    CHECK(layout.pair_axes() == std::vector<int> {0, 0, 1, 1, 2, 2, 3, 3});
    CHECK(!layout.splits_pairs());
    CHECK(layout.partner_axes() == layout.pair_axes());
    check_close(rotated(posenc::RopeSpec::full(16, 1e4), layout, {10, 3, 5, 1}),
                {0.025361370902186463781, 0.6274517369907764792, 0.94673950548290760785, 0.2251943206637291492,
                 -0.16857555566121431852, 0.51179554842799579066, 0.74949962508336457917, -1.0001185354102803074,
                 -0.72842762225629646269, -0.11204605190392680362, -0.099671002593430129149, 0.27255736633010220427,
                 0.86765908168676067464, -0.74200088720249318538, 0.50074974987502083958, 0.37468375348925378106});
}

TEST_CASE(
    "[HF ernie4_5_vl_moe rotary] [3, 3, 2]: pairs 0-5 alternate height/width, 6-7 temporal; interleaved, plain table")
{
    const MultiAxisLayout layout = MultiAxisLayout::height_width_alternating({3, 3, 2}, 8);
    CHECK(layout.pair_axes() == std::vector<int> {1, 2, 1, 2, 1, 2, 0, 0});
    CHECK(layout.num_axes() == 3);
    check_close(rotated(posenc::RopeSpec(16, 16, 5e5, posenc::Pairing::interleaved), layout, {7, 2, 4}),
                {0.4122558280608726645, 0.60107830790159462765, 0.44964281308033480462, 0.79116770702879619992,
                 -0.16221719889645824437, 0.48919380656564623574, 0.77884744697928384075, -0.97769967491753399196,
                 0.62464394708247772469, 0.12676726459627804091, -0.37527402248450853085, 0.24958847739488412856,
                 0.87527914989373439119, -0.74967420241148864246, 0.49997292606042583989, 0.37503609587155201726});
}

TEST_CASE("[layout refusals] section counts, sums and ERNIE's equal height/width sections")
{
    CHECK(message_of([] {
              return MultiAxisLayout::coordinate_sections({2, 2, 2, 2, 0}, 8);
          }) == "mrope_section [2, 2, 2, 2, 0] must have 1 to 4 entries (one per position axis), counted in pairs");
    CHECK(
        message_of([] {
            return MultiAxisLayout::xd_sections({16, 16, 16, 15}, 64);
        }) ==
        "xdrope_section sum 63 must equal num_pairs 64 (xdrope_section [16, 16, 16, 15] counts pairs: rotary_dim / 2)");
    CHECK(message_of([] {
              return MultiAxisLayout::height_width_alternating({22, 20, 22}, 64);
          }) == "mrope_section[1] 20 must equal mrope_section[0] 22 (ERNIE-4.5-VL interleaves height and width pairs "
                "one for one)");
    CHECK(message_of([] {
              return MultiAxisLayout::coordinate_sections({-1, 9}, 8);
          }) == "mrope_section[0] -1 must be >= 0 (pairs of that axis)");
}

TEST_CASE("[HF ernie4_5_vl_moe get_rope_index] text, an image and a video (spatial merge 2, temporal merge 2)")
{
    const posenc::AxisPositionIds ids = posenc::ernie_4_5_vl_position_ids(
        {PromptSegment::text(3), PromptSegment::image(1, 4, 6), PromptSegment::text(2), PromptSegment::video(4, 4, 4),
         PromptSegment::text(1)},
        2, 2);
    const std::vector<std::vector<std::int64_t>> want {{0, 1, 2, 3, 3, 3, 3, 3, 3, 6, 7, 8, 8, 8, 8, 9, 9, 9, 9, 10},
                                                       {0, 1, 2, 3, 3, 3, 4, 4, 4, 6, 7, 8, 8, 9, 9, 8, 8, 9, 9, 10},
                                                       {0, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7, 8, 9, 8, 9, 8, 9, 8, 9, 10}};
    REQUIRE(ids.num_axes == 3);
    REQUIRE(ids.tokens == 20);
    for (int a = 0; a < 3; ++a)
        for (std::int64_t t = 0; t < 20; ++t)
            CHECK(ids(a, t) == want[static_cast<std::size_t>(a)][static_cast<std::size_t>(t)]);
    CHECK(ids.rope_delta == 11 - 20);
}

TEST_CASE("[HF hunyuan_vl get_rope_index] a delimited image and a bare one, on 4 and on 3 axes")
{
    const std::vector<PromptSegment> prompt {PromptSegment::text(2), PromptSegment::image(1, 4, 2, true),
                                             PromptSegment::text(1), PromptSegment::image(1, 2, 2),
                                             PromptSegment::text(1)};
    const std::vector<std::vector<std::int64_t>> four {{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11},
                                                       {0, 1, 2, 0, 1, 0, 1, 7, 8, 0, 1, 11},
                                                       {0, 1, 2, 0, 0, 1, 1, 7, 8, 0, 0, 11},
                                                       {0, 1, 2, 0, 0, 0, 0, 7, 8, 1, 1, 11}};
    const std::vector<std::vector<std::int64_t>> three {{0, 1, 2, 0, 1, 0, 1, 7, 8, 0, 1, 11},
                                                        {0, 1, 2, 0, 0, 1, 1, 7, 8, 0, 0, 11},
                                                        {0, 1, 2, 0, 0, 0, 0, 7, 8, 1, 1, 11}};
    for (int n : {4, 3}) {
        const posenc::AxisPositionIds ids = posenc::hunyuan_vl_position_ids(prompt, n, 2);
        const auto& want = n == 4 ? four : three;
        REQUIRE(ids.tokens == 12);
        for (int a = 0; a < n; ++a)
            for (std::int64_t t = 0; t < 12; ++t)
                CHECK(ids(a, t) == want[static_cast<std::size_t>(a)][static_cast<std::size_t>(t)]);
        CHECK(ids.rope_delta == 0);
    }
    // Hugging Face counts images over the whole batch: a later sequence starts at its index.
    CHECK(posenc::hunyuan_vl_position_ids({PromptSegment::image(1, 2, 2)}, 3, 2, 5)(2, 0) == 5);
}

TEST_CASE("[position-id refusals] name the segment, the value and the rule")
{
    CHECK(message_of([] {
              return posenc::ernie_4_5_vl_position_ids({PromptSegment::image(1, 4, 4), PromptSegment::image(1, 4, 4)},
                                                       2, 2);
          }).find("segments[1].kind \"image\" must not follow another segment of the same kind") == 0);
    CHECK(message_of([] { return posenc::ernie_4_5_vl_position_ids({PromptSegment::image(1, 1, 4)}, 2, 2); }) ==
          "segments[0].h 1 must be >= spatial_merge_size 2");
    CHECK(message_of([] { return posenc::ernie_4_5_vl_position_ids({PromptSegment::video(1, 4, 4)}, 2, 2); }) ==
          "segments[0].t 1 must be >= the temporal merge size 2");
    CHECK(message_of([] { return posenc::hunyuan_vl_position_ids({PromptSegment::video(2, 4, 4)}, 4, 2); }) ==
          "segments[0].kind \"video\" is not a HunYuan-VL input (its get_rope_index reads images only)");
    CHECK(message_of([] { return posenc::hunyuan_vl_position_ids({PromptSegment::text(1)}, 5, 2); }) ==
          "num_axes 5 must be 3 (width, height, image index) or 4 (position, width, height, image index)");
    CHECK(message_of([] { return posenc::ernie_4_5_vl_position_ids({PromptSegment::text(-1)}, 2, 2); }) ==
          "segments[0].length -1 must be >= 0");
}

}  // namespace multi_axis_multimodal_layouts_tests
