// SPDX-License-Identifier: MIT
// The CUDA apply and multi-axis kernels (posenc/cuda), run through the CPU emulation of their
// whole grid, against the CPU kernels (posenc/kernels) on the same angle sources, and their
// cos/sin against mpmath at positions up to 2^31 - 1.
//
// Bounds (apply.hpp): each float result is within 3.41 u A |x| of the exact rotation, so the
// two kernels agree within 2 x 3.41 u A |x| per rotated coordinate (plus one step of a 16-bit
// format); pass-through coordinates and untouched heads (V) agree bit for bit.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "cuda_test_support.hpp"

namespace cuda_apply_tests {  // per-file namespace: a folder builds as one unit

namespace {

using namespace posenc;
using namespace posenc::kernels;
using cuda_test::agree;
using cuda_test::value_of;

/// One apply case: a packed QKV buffer [tokens][(Hq + 2 Hk) D] (Q and K rotated, V untouched).
struct ApplyCase {
    RopeSpec spec;
    int q_heads;
    int k_heads;  // 0: Q only
    std::vector<std::int64_t> positions;
    bool int32_ids;
    Direction direction;
};

template <class T, class Host, class Device>
void check_apply(const ApplyCase& c, const Host& host_angles, const Device& device_angles, cuda::ThreadOrder order)
{
    const int d = c.spec.head_dim(), heads = c.q_heads + 2 * std::max(c.k_heads, 1);
    const auto tokens = static_cast<std::ptrdiff_t>(c.positions.size());
    const std::vector<T> input = cuda_test::random_values<T>(static_cast<std::size_t>(tokens * heads * d), 7u);
    std::vector<T> cpu = input, gpu = input;
    std::vector<std::int32_t> ids32(c.positions.begin(), c.positions.end());
    const PositionIds positions = c.int32_ids ? PositionIds(ids32) : PositionIds(c.positions);
    auto views = [&](std::vector<T>& buffer) {
        const PackedQkv<T> qkv = slice_packed_qkv(buffer, {tokens, c.q_heads, std::max(c.k_heads, 1), d});
        return c.k_heads > 0 ? QKViews<T>::in_place(qkv.q, qkv.k) : QKViews<T>::in_place(qkv.q);
    };
    apply_rope(c.spec, host_angles, positions, views(cpu), c.direction);
    cuda_test::Status status;
    cuda::emulate(cuda::plan_apply_rope(c.spec, device_angles, positions, views(gpu), c.direction, status.get()),
                  order);
    CHECK(status.word == 0u);
    const int lo = c.spec.rotary_offset(), hi = lo + c.spec.rotary_dim(), rotated_heads = c.q_heads + c.k_heads;
    int bad = 0;
    for (std::ptrdiff_t t = 0; t < tokens; ++t)
        for (int h = 0; h < heads; ++h)
            for (int i = 0; i < d; ++i) {
                const std::size_t at = static_cast<std::size_t>((t * heads + h) * d + i);
                if (h >= rotated_heads || i < lo || i >= hi) {
                    bad += cuda_test::bits_of(gpu[at]) != cuda_test::bits_of(cpu[at]);
                    continue;
                }
                const int k = i - lo, pair = c.spec.pairing() == Pairing::half_split ? k % c.spec.num_pairs() : k / 2;
                const PairCoordinates p = c.spec.pair_coordinates(pair);
                const std::size_t row = at - static_cast<std::size_t>(i);
                const double norm = std::hypot(value_of(input[row + p.first]), value_of(input[row + p.second]));
                bad +=
                    !agree(gpu[at], cpu[at], 3.42 * cuda_test::u * host_angles.frequencies().attention_factor() * norm);
            }
    CHECK_MESSAGE(bad == 0, bad, " coordinates differ (", to_string(storage_type_of<T>), ", ",
                  to_string(c.spec.pairing()), ")");
}

const std::int64_t top = max_kernel_position;  // 2^31 - 1

std::vector<ApplyCase> cases()
{
    return {
        {RopeSpec(128, 128, 1e6), 4, 2, {0, 1, 4095, 1000000, 16777216, top - 1, top}, false, Direction::forward},
        {RopeSpec(128, 128, 1e6, Pairing::interleaved), 4, 2, {top, 3, 131072, 7}, true, Direction::forward},
        {RopeSpec(80, 32, 1e4, Pairing::half_split, 40), 3, 1, {5, top, 1 << 20}, true, Direction::inverse},
        {RopeSpec(64, 48, 1e4, Pairing::interleaved, 8), 2, 0, {top, 0, 99}, false, Direction::forward},
        {RopeSpec(64, 64, 1e4), 12, 2, {0, 17, 3, 300, 2, 17}, true, Direction::forward},
        {RopeSpec(96, 64, 5e5, Pairing::interleaved, 32), 1, 1, {1000, 1001}, false, Direction::inverse},
    };
}

template <class T>
void check_sources(const ApplyCase& c)
{
    const FrequencyTable table = FrequencyTable(FrequencyTable::from_spec(c.spec).inv_freq(), 1.25);
    const OnTheFlyAngles digits(table);
    check_apply<T>(c, digits, cuda::digit_angles(digits), cuda::ThreadOrder::forward);
    check_apply<T>(c, digits, cuda::digit_angles(digits), cuda::ThreadOrder::reverse);
    // the table case where the positions span less than 2^21: a table over [min, max] of them
    std::int64_t first = c.positions.front(), last = first;
    for (std::int64_t p : c.positions) first = std::min(first, p), last = std::max(last, p);
    if (last - first < 1 << 21) {
        const CosSinCache cache(table, last - first + 1, first);
        check_apply<T>(c, cache, cuda::table_angles(cache), cuda::ThreadOrder::forward);
    }
}

}  // namespace

TEST_CASE("cuda apply (emulated) agrees with the CPU kernel: storages, pairings, offsets, GQA, Q-only, ids, inverse")
{
    for (const ApplyCase& c : cases()) {
        CAPTURE(c.spec.head_dim());
        CAPTURE(c.spec.rotary_dim());
        check_sources<float>(c);
        check_sources<bfloat16>(c);
        check_sources<float16>(c);
    }
}

TEST_CASE("cuda apply (emulated) gathers a device table at the top positions, up to 2^31 - 1")
{
    const RopeSpec spec(128, 128, 1e6);
    const FrequencyTable table = FrequencyTable::from_spec(spec);
    const CosSinCache cache(table, 64, top - 63);
    const ApplyCase c {spec, 4, 2, {top, top - 63, top - 1, top - 32}, true, Direction::forward};
    check_apply<float>(c, cache, cuda::table_angles(cache), cuda::ThreadOrder::forward);
    check_apply<bfloat16>(c, cache, cuda::table_angles(cache), cuda::ThreadOrder::reverse);
}

namespace {

/// mpmath at 400 bits (the values tests/kernels/angle_accuracy.cpp derives):
///     theta = the double below;  x = mpf(m) * mpf(theta);  print(cos(x), sin(x))
struct ExactAngle {
    std::int64_t position;
    double theta;
    long double cos, sin;
};

const ExactAngle exact_angles[] = {
    {1, 0x1.0000000000000p+0, 0.540302305868139717401L, 0.841470984807896506653L},
    {1000000, 0x1.0000000000000p+0, 0.936752127533144786939L, -0.349993502171292952118L},
    {16777216, 0x1.0000000000000p+0, 0.626322983291532917494L, -0.779563673217777752205L},
    {2147483647, 0x1.0000000000000p+0, -0.68883669187794383468L, -0.724916555144556390548L},
    {4095, 0x1.4d1c97f4e952fp-20, 0.999987088494577763657L, 0.00508161825971810064832L},
    {1000000, 0x1.4d1c97f4e952fp-20, 0.32390922264233945233L, 0.946088164753811604862L},
    {16777216, 0x1.4d1c97f4e952fp-20, -0.388615587864816097645L, 0.921399980935795005395L},
    {2147483647, 0x1.4d1c97f4e952fp-20, 0.680040895434037130898L, 0.73317418158120719308L},
};

/// cos/sin of pairs 0 and P - 1 read through the emulated kernel: every pair (1, 0) rotates to
/// (c, s) exactly in float. Returns the largest error against mpmath.
template <class Device>
double largest_angle_error(const RopeSpec& spec, const Device& angles, std::int64_t position)
{
    const int p = spec.num_pairs();
    std::vector<float> head(static_cast<std::size_t>(spec.head_dim()), 0.0f);
    for (int i = 0; i < p; ++i) head[static_cast<std::size_t>(i)] = 1.0f;
    const HeadsView<float> q(head, {1, 1, spec.head_dim()});
    cuda_test::Status status;
    cuda::emulate(cuda::plan_apply_rope(spec, angles, PositionIds::contiguous(position), QKViews<float>::in_place(q),
                                        Direction::forward, status.get()));
    REQUIRE(status.word == 0u);
    double worst = 0.0;
    for (const ExactAngle& e : exact_angles) {
        if (e.position != position) continue;
        const int i = e.theta == 1.0 ? 0 : p - 1;
        worst = std::max(worst, static_cast<double>(std::fabs(head[static_cast<std::size_t>(i)] - e.cos)));
        worst = std::max(worst, static_cast<double>(std::fabs(head[static_cast<std::size_t>(p + i)] - e.sin)));
    }
    return worst;
}

std::string message_of(const std::function<void()>& f)
{
    try {
        f();
    } catch (const posenc::error& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("cuda angles (emulated) are float roundings of mpmath's cos/sin at positions up to 2^31 - 1")
{
    const RopeSpec spec(128, 128, 1e6);
    std::vector<double> theta = FrequencyTable::from_spec(spec).inv_freq();
    theta.front() = 1.0;
    theta.back() = 0x1.4d1c97f4e952fp-20;
    const FrequencyTable table(theta);
    const OnTheFlyAngles digits(table);
    double worst = 0.0;
    for (std::int64_t m :
         {std::int64_t {1}, std::int64_t {4095}, std::int64_t {1000000}, std::int64_t {16777216}, top}) {
        CAPTURE(m);
        const CosSinCache cache(table, 1, m);
        worst = std::max(worst, largest_angle_error(spec, cuda::digit_angles(digits), m));
        worst = std::max(worst, largest_angle_error(spec, cuda::table_angles(cache), m));
    }
    MESSAGE("largest cos/sin error against mpmath: " << worst);
    CHECK(worst <= 3.0e-8);  // half an ulp of a value below 1 (2^-25 = 2.98e-8) plus < 2e-14
}

TEST_CASE("cuda multi-axis RoPE (emulated) agrees with the CPU kernel: M-RoPE sections and 2-D axial")
{
    const RopeSpec spec(128, 128, 1e6);
    const OnTheFlyAngles digits(FrequencyTable::from_spec(spec));
    const std::int64_t tokens = 5;
    const std::vector<std::int32_t> mrope = {7, 7, 7, 8, 20, 31, 8, 21, 31, 9, 9, 9, static_cast<std::int32_t>(top),
                                             4, 5};
    const std::vector<std::int64_t> axial = {0, 1, 2, 3, top, 3, 2, 1, 0, top};  // axes-major [2][5]
    const MultiAxisLayout sections = MultiAxisLayout::sections({16, 24, 24}, 64);
    const MultiAxisLayout axial_2d = MultiAxisLayout::axial_2d(64);
    const MultiAxisPositions p3(mrope, 3);
    const MultiAxisPositions p2 = MultiAxisPositions::axes_major(axial.data(), 10, tokens, 2);
    for (const auto& [layout, positions] : {std::pair {&sections, p3}, std::pair {&axial_2d, p2}}) {
        const std::vector<float> input =
            cuda_test::random_values<float>(static_cast<std::size_t>(tokens * 6 * 128), 3u);
        std::vector<float> cpu = input, gpu = input;
        auto views = [&](std::vector<float>& b) {
            const PackedQkv<float> qkv = slice_packed_qkv(b, {tokens, 4, 1, 128});
            return QKViews<float>::in_place(qkv.q, qkv.k);
        };
        apply_multi_axis_rope(spec, *layout, digits, positions, views(cpu));
        cuda_test::Status status;
        cuda::emulate(cuda::plan_multi_axis_rope(spec, *layout, cuda::digit_angles(digits), positions, views(gpu),
                                                 Direction::forward, status.get()),
                      cuda::ThreadOrder::reverse);
        CHECK(status.word == 0u);
        int bad = 0;
        for (std::size_t i = 0; i < input.size(); ++i) bad += !agree(gpu[i], cpu[i], 3.42 * cuda_test::u * 1.5);
        CHECK_MESSAGE(bad == 0, bad, " coordinates differ");
    }
}

TEST_CASE("cuda kernels report positions outside the angle source in the status word and leave those tokens")
{
    const RopeSpec spec(64, 64, 1e4);
    const CosSinCache cache(FrequencyTable::from_spec(spec), 100);
    const std::vector<std::int64_t> ids = {5, 100, 7};  // 100: not in [0, 99]
    const std::vector<float> input = cuda_test::random_values<float>(3 * 2 * 64, 5u);
    std::vector<float> gpu = input;
    const HeadsView<float> q(gpu, {3, 2, 64});
    cuda_test::Status status;
    cuda::emulate(cuda::plan_apply_rope(spec, cuda::table_angles(cache), PositionIds(ids), QKViews<float>::in_place(q),
                                        Direction::forward, status.get()));
    CHECK(status.word == static_cast<unsigned>(cuda::status_position_outside_angles));
    for (std::size_t i = 0; i < input.size(); ++i) {
        const bool untouched = gpu[i] == input[i];
        CHECK(untouched == (i / 128 == 1));  // token 1 untouched, tokens 0 and 2 rotated (no pair stays put)
    }
}

TEST_CASE("cuda plans refuse what the device cannot do, naming the field")
{
    const RopeSpec spec(64, 64, 1e4);
    const CosSinCache cache(FrequencyTable::from_spec(spec), 100);
    std::vector<float> buffer(64);
    const HeadsView<float> q(buffer, {1, 1, 64});
    cuda_test::Status status;
    const auto angles = cuda::table_angles(cache);
    const auto views = QKViews<float>::in_place(q);
    CHECK(message_of([&] {
              cuda::plan_apply_rope(spec, angles, PositionIds::contiguous(0), views, Direction::forward, nullptr);
          }).find("status") == 0);
    CHECK(message_of([&] {
              cuda::plan_apply_rope(spec, angles, PositionIds::contiguous(100), views, Direction::forward,
                                    status.get());
          }).find("positions[0]") == 0);
    const RopeSpec wide(640, 640, 1e4);
    const OnTheFlyAngles wide_angles(FrequencyTable::from_spec(wide), 1000);
    std::vector<float> wide_buffer(640);
    const HeadsView<float> wq(wide_buffer, {1, 1, 640});
    CHECK(message_of([&] {
              cuda::plan_apply_rope(wide, cuda::digit_angles(wide_angles), PositionIds::contiguous(0),
                                    QKViews<float>::in_place(wq), Direction::forward, status.get());
          }).find("spec.rotary_dim") == 0);
    const MultiAxisLayout split = MultiAxisLayout::coordinate_sections({8, 8, 8, 8}, 32);
    const std::vector<std::int32_t> p(4, 0);
    CHECK(message_of([&] {
              cuda::plan_multi_axis_rope(spec, split, angles, MultiAxisPositions(p, 4), views, Direction::forward,
                                         status.get());
          }).find("layout") == 0);
}

}  // namespace cuda_apply_tests
