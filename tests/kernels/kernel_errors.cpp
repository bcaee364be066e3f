// SPDX-License-Identifier: MIT
// Invalid kernel inputs: each throws posenc::error naming the field, the value and the rule
// (checked once, at the public entry point; a position beyond a cache's size is an error, never a
// read past the table). The expected strings are the rules of checks.hpp, angle_cache.hpp and
// on_the_fly_angles.hpp as documented there.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kernel_test_support.hpp"
#include "support/error_messages.hpp"

namespace kernels_kernel_errors_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using namespace posenc::kernels;

using test_support::message_of;

const posenc::RopeSpec spec(64, 32, 1e4);
const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);

}  // namespace

TEST_CASE("[errors] angle sources reject ranges they cannot serve exactly")
{
    CHECK(message_of([] { CosSinCache(table, 0); }) == "num_positions 0 must be >= 1");
    CHECK(message_of([] { CosSinCache(table, 10, -1); }) == "first_position -1 must be >= 0");
    CHECK(message_of([] { CosSinCache(table, 2, max_kernel_position); }) ==
          "num_positions 2 must be <= 1 so that the last position stays <= 2^31 - 1");
    CHECK(message_of([] { OnTheFlyAngles(table, 0); }) == "max_position 0 must be in [1, 2147483647]");
    CHECK(message_of([] { OnTheFlyAngles(table, std::int64_t {1} << 31); }) ==
          "max_position 2147483648 must be in [1, 2147483647]");
    CHECK(message_of([] { OnTheFlyAngles(table, 1000, 5); }) == "levels 5 must be in [0, 4] (0 = automatic)");
    CHECK(message_of([] { OnTheFlyAngles(table, max_kernel_position, 1); }) ==
          "levels 1 must leave at most 2^24 rows per level; max_position needs 31 bits");
    const posenc::FrequencyTable fast({1.0, 1e6});  // 1e6 rad per token: 2^31 * 1e6 > 2^50
    CHECK(message_of([&] { OnTheFlyAngles angles(fast); }) ==
          "inv_freq[1] 1000000 must be <= 2^50 / 2147483647 so that position * inv_freq stays in the exact reduction's "
          "range");
    CHECK(message_of([&] { OnTheFlyAngles(fast, 1000); }) == "(no error)");
}

TEST_CASE("[errors] a position outside the angle source is an error, never a read past the table")
{
    const CosSinCache cache(table, 100);
    std::vector<float> x(3 * 2 * 64, 1.0f);
    const auto q = QKViews<float>::in_place(HeadsView<float>(x, {3, 2, 64}));
    const std::vector<std::int32_t> ids {5, 100, 7};
    CHECK(message_of([&] { apply_rope(spec, cache, PositionIds(ids), q); }) ==
          "positions[1] 100 must be in [0, 99], the positions the CosSinCache serves");
    CHECK(message_of([&] { apply_rope(spec, cache, PositionIds::contiguous(98), q); }) ==
          "positions[2] 100 must be in [0, 99], the positions the CosSinCache serves");
    const std::vector<std::int64_t> negative {0, -1, 2};
    CHECK(message_of([&] { apply_rope(spec, cache, PositionIds(negative), q); }) ==
          "positions[1] -1 must be in [0, 99], the positions the CosSinCache serves");
    const CosSinCache window(table, 10, 1000);  // positions 1000..1009
    CHECK(message_of([&] { apply_rope(spec, window, PositionIds::contiguous(999), q); }) ==
          "positions[0] 999 must be in [1000, 1009], the positions the CosSinCache serves");
    const OnTheFlyAngles angles(table, 5000);
    const std::vector<std::int64_t> far {1, 2, 5001};
    CHECK(message_of([&] { apply_rope(spec, angles, PositionIds(far), q); }) ==
          "positions[2] 5001 must be in [-5000, 5000], the positions the OnTheFlyAngles serves");
    CHECK(message_of([&] { apply_rope(spec, cache, PositionIds(ids.data(), 2), q); }) ==
          "positions.count 2 must equal tokens 3");
    CHECK(message_of([&] { apply_rope(spec, cache, PositionIds(static_cast<const std::int32_t*>(nullptr), 3), q); }) ==
          "positions.ids null must point to one id per token");
    // the same checks in front of runtime dispatch
    CHECK(message_of([&] { dispatch::apply_rope(spec, cache, PositionIds(ids), q); }) ==
          "positions[1] 100 must be in [0, 99], the positions the CosSinCache serves");
    // only the tokens of the range are checked and rotated
    CHECK(message_of([&] {
              apply_rope(spec, cache, PositionIds(ids), q, Direction::forward, TokenRange {2, 3});
          }) == "(no error)");
    CHECK(message_of([&] {
              apply_rope(spec, cache, PositionIds(ids), q, Direction::forward, TokenRange {2, 4});
          }) == "range [2, 4) must satisfy 0 <= begin <= end <= tokens 3");
    // the default range (all_tokens) is a flag, not a value: no explicit range means "every token"
    const std::ptrdiff_t huge = std::numeric_limits<std::ptrdiff_t>::max();
    CHECK(message_of([&] {
              apply_rope(spec, cache, PositionIds(ids), q, Direction::forward, TokenRange {0, huge});
          }) == "range [0, " + std::to_string(huge) + ") must satisfy 0 <= begin <= end <= tokens 3");
    CHECK(message_of([&] {
              dispatch::apply_rope(spec, cache, PositionIds(ids), q, Direction::forward, TokenRange {0, huge});
          }) == "range [0, " + std::to_string(huge) + ") must satisfy 0 <= begin <= end <= tokens 3");
}

TEST_CASE("[errors] shapes, strides and overlaps of the views")
{
    const CosSinCache cache(table, 100);
    std::vector<float> x(4 * 3 * 64 + 500, 1.0f), y(x.size(), 0.0f);
    const PositionIds at(PositionIds::contiguous(0));
    auto run = [&](const QKViews<float>& v) { return message_of([&] { apply_rope(spec, cache, at, v); }); };
    using V = HeadsView<float>;
    const auto n = static_cast<std::ptrdiff_t>(x.size());

    CHECK(
        message_of([&] {
            apply_rope(posenc::RopeSpec(64, 64, 1e4), cache, at, QKViews<float>::in_place(V(x.data(), n, {1, 1, 64})));
        }) == "angles.num_pairs 16 must equal spec.num_pairs 32 (rotary_dim / 2): the angle source was built for "
              "another rotary_dim");
    CHECK(run(QKViews<float>::in_place(V(nullptr, 0, {1, 1, 64}))) == "q_in.data null must point to the tensor");
    CHECK(run(QKViews<float>::in_place(V(x.data(), n, {1, 1, 60}))) ==
          "q_in.head_dim 60 must equal spec.head_dim 64 (the buffer's heads are that long)");
    CHECK(run(QKViews<float>::in_place(V(x.data(), n, {-1, 1, 64}))) == "q_in.tokens -1 must be >= 0");
    CHECK(run(QKViews<float>::in_place(V(x.data(), n, {2, 0, 64}))) == "q_in.heads 0 must be >= 1");
    CHECK(run(QKViews<float>::in_place(V(x.data(), n, {2, 3, 64}, {192, 32}))) ==
          "q_in.head_stride 32 must be >= head_dim 64 when heads > 1 (rows would overlap)");
    CHECK(run(QKViews<float>::in_place(V(x.data(), n, {2, 3, 64}, {100, 64}))) ==
          "q_in.token_stride 100 must be >= head_stride * (heads - 1) + head_dim = 192 (rows would overlap)");
    CHECK(run(QKViews<float>::in_place(V(x.data(), n, {3, 2, 64}, {64, 100}))) ==
          "q_in.head_stride 100 must be >= token_stride * (tokens - 1) + head_dim = 192 (rows would overlap)");
    CHECK(run(QKViews<float>::in_place(V(x.data(), n, {2, 1, 64}, {-64, 64}))) ==
          "q_in.token_stride -64 must be >= head_dim 64 when tokens > 1 (element 1 of that axis would lie before "
          "q_in.data)");
    CHECK(run(QKViews<float>::out_of_place(V(x.data(), n, {2, 3, 64}), V(y, {2, 2, 64}))) ==
          "q_out 2x2x64 must have the shape of q_in 2x3x64");
    CHECK(run(QKViews<float>::out_of_place(V(x.data(), n, {2, 3, 64}), V(y, {2, 3, 64}),
                                           V(x.data() + 384, n - 384, {2, 1, 64}), V {})) ==
          "k_out absent must be given together with k_in");
    CHECK(run(QKViews<float>::in_place(V(x.data(), n, {2, 3, 64}), V(y, {3, 1, 64}))) ==
          "k_in.tokens 3 must equal q_in.tokens 2");
    // a stride whose last element lies past the buffer (x holds 1268 elements): 2 * huge + 63
    const std::ptrdiff_t huge = PTRDIFF_MAX / 8;
    CHECK(run(QKViews<float>::in_place(V(x.data(), n, {3, 1, 64}, {huge, 64}))) ==
          "q_in.size 1268 must be > 2305843009213694013, the index of q_in's last element (token 2, head 0, dim 63): "
          "the view would address memory past its buffer");
    // overlaps: out of place into a shifted copy of the input, Q and K on the same rows
    CHECK(run(QKViews<float>::out_of_place(V(x.data(), n, {2, 3, 64}), V(x.data() + 32, n - 32, {2, 3, 64}))) ==
          "q_out 2x3x64 must not overlap q_in (views sharing memory need equal strides and disjoint rows)");
    CHECK(
        run(QKViews<float>::in_place(V(x.data(), n, {2, 3, 64}), V(x.data() + 128, n - 128, {2, 1, 64}, {192, 64}))) ==
        "q_out 2x3x64 must not overlap k_out (views sharing memory need equal strides and disjoint rows)");
    CHECK(run(QKViews<float>::in_place(V(x.data(), n, {2, 2, 64}, {192, 64}),
                                       V(x.data() + 100, n - 100, {2, 1, 64}, {300, 64}))) ==
          "q_out 2x2x64 must not overlap k_out (views sharing memory need equal strides and disjoint rows)");
    // valid sharing: packed QKV slices, and K rows interleaved between Q rows with equal strides
    const PackedQkv<float> packed = slice_packed_qkv(x, {4, 2, 1, 64});
    CHECK(run(QKViews<float>::in_place(packed.q, packed.k)) == "(no error)");
    const PackedQkv<float> one_each = slice_packed_qkv(x, {4, 1, 1, 64});  // Q rotated into the V slot
    CHECK(run(QKViews<float>::out_of_place(one_each.q, one_each.v, one_each.k, V(y, {4, 1, 64}))) == "(no error)");
}

TEST_CASE("[errors] runtime dispatch names an ISA this binary or CPU cannot run")
{
    const CosSinCache cache(table, 10);
    std::vector<float> x(64, 1.0f);
    const auto q = QKViews<float>::in_place(HeadsView<float>(x, {1, 1, 64}));
    for (dispatch::Isa isa : dispatch::dispatch_isas) {
        const std::string message =
            message_of([&] { dispatch::apply_rope_on(isa, spec, cache, PositionIds::contiguous(0), q); });
        if (dispatch::isa_available(isa)) CHECK(message == "(no error)");
        else if (dispatch::isa_compiled(isa))
            CHECK(message == std::string("isa ") + dispatch::to_string(isa) + " is not supported by this CPU");
        else
            CHECK(message == std::string("isa ") + dispatch::to_string(isa) +
                                 " was not compiled into this binary (posenc_add_dispatch)");
    }
}

TEST_CASE("[errors] split_tokens rejects negative token counts and zero parts")
{
    CHECK(message_of([] { split_tokens(-1, 2); }) == "tokens -1 must be >= 0");
    CHECK(message_of([] { split_tokens(10, 0); }) == "parts 0 must be >= 1");
}

}  // namespace kernels_kernel_errors_tests

namespace kernels_kernel_errors_tests {

TEST_CASE(
    "[errors] a direction that is neither forward nor inverse is refused by every checked entry, one token or several")
{
    // Direction is an enum class; a value cast from another integer names no direction (the
    // float loops would read it as forward and the double path as inverse): refused by name.
    const CosSinCache cache(table, 16);
    const Direction bad = static_cast<Direction>(7);
    const std::string rule = "direction 7 must be forward (0) or inverse (1)";
    for (std::ptrdiff_t tokens : {1, 3}) {
        std::vector<float> q(static_cast<std::size_t>(tokens * 2 * 64), 0.5f);
        const std::vector<float> untouched = q;
        const auto views = QKViews<float>::in_place(HeadsView<float>(q, {tokens, 2, 64}));
        const PositionIds at = PositionIds::contiguous(3);
        CAPTURE(tokens);
        CHECK(message_of([&] { apply_rope(spec, cache, at, views, bad); }) == rule);
        CHECK(message_of([&] { apply_rope(spec, cache, at, views, bad, TokenRange {0, tokens}); }) == rule);
        CHECK(message_of([&] { dispatch::apply_rope(spec, cache, at, views, bad); }) == rule);
        CHECK(message_of([&] { dispatch::apply_rope(spec, cache, at, views, bad, TokenRange {0, tokens}); }) == rule);
        CHECK(message_of([&] { dispatch::apply_rope_on(dispatch::Isa::baseline, spec, cache, at, views, bad); }) ==
              rule);
        std::vector<std::int32_t> ids(static_cast<std::size_t>(tokens * 3), 2);
        const MultiAxisPositions axes(ids.data(), static_cast<std::ptrdiff_t>(ids.size()), tokens, 3);
        const posenc::MultiAxisLayout layout = posenc::MultiAxisLayout::sections({4, 6, 6}, 16);
        CHECK(message_of([&] { apply_multi_axis_rope(spec, layout, cache, axes, views, bad); }) == rule);
        CHECK(message_of([&] { dispatch::apply_multi_axis_rope(spec, layout, cache, axes, views, bad); }) == rule);
        CHECK(q == untouched);
        std::vector<double> qd(static_cast<std::size_t>(tokens * 2 * 64), 0.5);
        const auto double_views = QKViews<double>::in_place(HeadsView<double>(qd, {tokens, 2, 64}));
        CHECK(message_of([&] { apply_rope(spec, cache, at, double_views, bad); }) == rule);
        // the two directions themselves pass
        CHECK(message_of([&] { apply_rope(spec, cache, at, views, Direction::inverse); }) == "(no error)");
        CHECK(message_of([&] { dispatch::apply_rope(spec, cache, at, views, Direction::forward); }) == "(no error)");
    }
}

}  // namespace kernels_kernel_errors_tests
