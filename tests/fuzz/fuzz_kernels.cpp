// SPDX-License-Identifier: MIT
// libFuzzer target: the apply kernels on arbitrary shapes, strides, positions, pairings, storage
// types, angle sources and directions, on every ISA this binary and CPU run, against the scalar
// reference (apply_rope_reference, rotation.hpp).
// Contract under test: the checked entry point either refuses with posenc::error, or rotates
// exactly the viewed rotary slices (each pair within the stated bound of the reference, pass-
// through dims bit-identical) and touches no element outside the views (guards around and
// between the rows keep their bits).
#include <posenc/kernels.hpp>
#include <posenc/kernels/dispatch.hpp>
#include <posenc/posenc.hpp>

#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <tuple>
#include <type_traits>
#include <vector>

namespace {

namespace k = posenc::kernels;

template <class T>
T store(float x)
{
    return posenc::store_from_float<T>(x);
}
template <class T>
float load(T x)
{
    if constexpr (std::is_same_v<T, float>) return x;
    else return posenc::to_float(x);
}
template <class T>
bool same_bits(T a, T b)
{
    using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint16_t>;
    Bits x, y;  // fixed-size copies compile to moves (a memcmp call would go through ASan's interceptor)
    std::memcpy(&x, &a, sizeof x);
    std::memcpy(&y, &b, sizeof y);
    return x == y;
}

// Unit roundoff of the storage type: 2^-24 float, 2^-9 bfloat16, 2^-11 float16.
template <class T>
double unit_roundoff()
{
    if constexpr (std::is_same_v<T, float>) return 0x1p-24;
    else if constexpr (std::is_same_v<T, posenc::bfloat16>) return 0x1p-9;
    else return 0x1p-11;
}

// The reference result of one input: every viewed element in double after the exact rotation.
struct Expected {
    std::vector<double> value;  // indexed like the buffers; meaningful where viewed
    std::vector<double> norm;  // |(a0, a1)| of the pair an element belongs to
    std::vector<char> viewed;
};

// The harness's own checking loops are not coverage-instrumented: their branches say nothing
// about the library, and tracing their comparisons took most of the time per input.
#define POSENC_FUZZ_NOT_COVERED __attribute__((no_sanitize("coverage")))

// After an accepted call: rotated dims within the bound of the reference, pass-through dims
// bit-identical, every element outside the views (guards) unchanged in both buffers, and the
// source of an out-of-place call unchanged.
template <class T>
POSENC_FUZZ_NOT_COVERED void verify(const posenc::RopeSpec& spec, const Expected& expected,
                                    const std::vector<T>& original, const std::vector<T>& dst, const std::vector<T>& a,
                                    const std::vector<T>& b, bool in_place, std::ptrdiff_t lead,
                                    std::ptrdiff_t token_stride, std::ptrdiff_t head_stride)
{
    const std::vector<T>& out = in_place ? a : b;
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (!expected.viewed[i]) {
            if (!same_bits(a[i], original[i]) || !same_bits(b[i], dst[i])) std::abort();
            continue;
        }
        const std::ptrdiff_t offset = static_cast<std::ptrdiff_t>(i) - lead;
        if (offset % token_stride % head_stride >= spec.rotary_dim()) {  // a pass-through dim
            if (!same_bits(out[i], original[i])) std::abort();
            continue;
        }
        // float cos/sin (1.5e-7 each) and float math, then one rounding into T.
        const double bound = (8e-7 + 2 * unit_roundoff<T>()) * expected.norm[i] + 1e-7;
        if (!(std::abs(load(out[i]) - expected.value[i]) <= bound)) std::abort();
    }
    if (!in_place)
        for (std::size_t i = 0; i < a.size(); ++i)
            if (!same_bits(a[i], original[i])) std::abort();
}

template <class T>
POSENC_FUZZ_NOT_COVERED Expected reference(const posenc::RopeSpec& spec, const posenc::FrequencyTable& frequencies,
                                           const std::vector<T>& src, const std::vector<std::int64_t>& ids,
                                           k::Direction direction, std::ptrdiff_t lead, std::ptrdiff_t heads,
                                           std::ptrdiff_t token_stride, std::ptrdiff_t head_stride)
{
    Expected e {std::vector<double>(src.size()), std::vector<double>(src.size()), std::vector<char>(src.size(), 0)};
    std::vector<double> x(static_cast<std::size_t>(spec.head_dim()));
    for (std::size_t t = 0; t < ids.size(); ++t)
        for (std::ptrdiff_t h = 0; h < heads; ++h) {
            const std::size_t base =
                static_cast<std::size_t>(lead + static_cast<std::ptrdiff_t>(t) * token_stride + h * head_stride);
            for (std::size_t d = 0; d < x.size(); ++d) {
                x[d] = load(src[base + d]);
                e.viewed[base + d] = 1;
            }
            posenc::apply_rope_reference(spec, frequencies, x.data(),
                                         direction == k::Direction::forward ? ids[t] : -ids[t]);
            for (std::size_t d = 0; d < x.size(); ++d) e.value[base + d] = x[d];
            for (int i = 0; i < spec.num_pairs(); ++i) {
                const posenc::PairCoordinates c = spec.pair_coordinates(i);
                const double norm =
                    std::hypot(x[static_cast<std::size_t>(c.first)], x[static_cast<std::size_t>(c.second)]);
                e.norm[base + static_cast<std::size_t>(c.first)] = norm;
                e.norm[base + static_cast<std::size_t>(c.second)] = norm;
            }
        }
    return e;
}

template <class T, class Angles>
void run(FuzzedDataProvider& in, const posenc::RopeSpec& spec, const Angles& angles, std::int64_t max_position)
{
    const std::ptrdiff_t head_dim = spec.head_dim();
    const std::ptrdiff_t tokens = in.ConsumeIntegralInRange<std::ptrdiff_t>(0, 6);
    const std::ptrdiff_t heads = in.ConsumeIntegralInRange<std::ptrdiff_t>(1, 5);
    const std::ptrdiff_t head_gap = in.ConsumeIntegralInRange<std::ptrdiff_t>(0, 5);
    const std::ptrdiff_t token_gap = in.ConsumeIntegralInRange<std::ptrdiff_t>(0, 7);
    const std::ptrdiff_t head_stride = head_dim + head_gap;
    const std::ptrdiff_t token_stride = heads * head_stride + token_gap;
    const std::ptrdiff_t lead = 8, size = lead + tokens * token_stride + 8;
    // The buffer the views are told about: usually all that follows `lead`, sometimes cut
    // anywhere from 0 to that. A view whose last element ((tokens - 1) token_stride + (heads - 1)
    // head_stride + head_dim - 1) lies past it must be refused.
    const std::ptrdiff_t needed = tokens == 0 ? 0 : (tokens - 1) * token_stride + (heads - 1) * head_stride + head_dim;
    const std::ptrdiff_t room =
        in.ConsumeBool() ? size - lead : in.ConsumeIntegralInRange<std::ptrdiff_t>(0, size - lead);
    const bool fits = room >= needed;
    const bool in_place = in.ConsumeBool();
    const k::Direction direction = in.ConsumeBool() ? k::Direction::forward : k::Direction::inverse;

    std::vector<T> src(static_cast<std::size_t>(size)), dst(static_cast<std::size_t>(size));
    for (auto& v : src) v = store<T>(in.ConsumeFloatingPointInRange<float>(-4.0f, 4.0f));
    for (auto& v : dst) v = store<T>(-7.0f);  // guard value
    std::vector<std::int64_t> ids(static_cast<std::size_t>(tokens));
    for (auto& p : ids) p = in.ConsumeIntegralInRange<std::int64_t>(-2, max_position + 2);
    const std::vector<T>& original = src;

    // The reference does not depend on the ISA: computed once, checked against every path. A
    // position outside the source's range must make the call a refusal.
    bool in_range = true;
    for (const std::int64_t p : ids) in_range = in_range && angles.position_range().contains(p);
    const Expected expected =
        in_range ? reference(spec, angles.frequencies(), src, ids, direction, lead, heads, token_stride, head_stride)
                 : Expected {};

    for (const k::dispatch::Isa isa : k::dispatch::dispatch_isas) {
        if (!k::dispatch::isa_available(isa)) continue;
        std::vector<T> a = original, b = dst;
        const k::HeadsView<T> a_view(a.data() + lead, room, {tokens, heads, head_dim}, {token_stride, head_stride});
        const k::HeadsView<T> b_view(b.data() + lead, room, {tokens, heads, head_dim}, {token_stride, head_stride});
        const auto views = in_place ? k::QKViews<T>::in_place(a_view) : k::QKViews<T>::out_of_place(a_view, b_view);
        try {
            k::dispatch::apply_rope_on(isa, spec, angles, k::PositionIds(ids), views, direction);
        } catch (const posenc::error&) {
            // Refused: then nothing may have been written.
            for (std::size_t i = 0; i < a.size(); ++i)
                if (!same_bits(a[i], original[i]) || !same_bits(b[i], dst[i])) std::abort();
            continue;
        }
        if (!in_range || !fits) std::abort();  // a position outside the source, or a view past its buffer, was accepted
        verify(spec, expected, original, dst, a, b, in_place, lead, token_stride, head_stride);
    }
}

// Angle sources are costly to build (exact reduction of every entry), so the shapes the fuzzer
// picks are memoised, up to 256 MiB of tables; the oldest go first when that is exceeded.
template <class Source, class... Extra>
const Source& memoised(int rotary_dim, double base, double attention, std::int64_t n, Extra... extra)
{
    using Key = std::tuple<int, double, double, std::int64_t, Extra...>;
    static std::map<Key, std::unique_ptr<Source>> sources;
    static std::deque<Key> order;
    static std::size_t bytes = 0;
    const Key key(rotary_dim, base, attention, n, extra...);
    auto it = sources.find(key);
    if (it == sources.end()) {
        const posenc::RopeSpec spec(rotary_dim, rotary_dim, base);
        const posenc::FrequencyTable table(posenc::FrequencyTable::from_spec(spec).inv_freq(), attention);
        auto source = std::make_unique<Source>(table, n, extra...);
        bytes += source->memory_bytes();
        while (bytes > (std::size_t {256} << 20) && !order.empty()) {
            const auto oldest = sources.find(order.front());
            bytes -= oldest->second->memory_bytes();
            sources.erase(oldest);
            order.pop_front();
        }
        order.push_back(key);
        it = sources.emplace(key, std::move(source)).first;
    }
    return *it->second;
}

template <class T>
void run_with_angles(FuzzedDataProvider& in, const posenc::RopeSpec& spec, double attention)
{
    if (in.ConsumeBool()) {
        const std::int64_t n = in.ConsumeBool() ? 64 : 1000;
        run<T>(in, spec, memoised<k::CosSinCache>(spec.rotary_dim(), spec.base(), attention, n), n - 1);
    } else {
        // Up to 5,000 (automatic levels: two) or up to 2^31 - 1 in four digit tables (896 rows), one
        // time in eight in three (the automatic choice, 4,608 rows: five times the cost to build).
        const bool large = in.ConsumeBool();
        const std::int64_t max = large ? std::int64_t {2147483647} : 5000;
        const int levels = large ? 4 - static_cast<int>(in.ConsumeBool() && in.ConsumeBool() && in.ConsumeBool()) : 0;
        run<T>(in, spec, memoised<k::OnTheFlyAngles>(spec.rotary_dim(), spec.base(), attention, max, levels), max);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    FuzzedDataProvider in(data, size);
    try {
        const int head_dim = in.ConsumeIntegralInRange<int>(2, 160);
        const int rotary_dim = 2 * in.ConsumeIntegralInRange<int>(1, head_dim / 2);
        const double bases[] = {1e4, 5e5, 1e6, 1e7, 1.5};
        const double base = bases[in.ConsumeIntegralInRange<int>(0, 4)];
        const posenc::Pairing pairing = in.ConsumeBool() ? posenc::Pairing::half_split : posenc::Pairing::interleaved;
        const posenc::RopeSpec spec(head_dim, rotary_dim, base, pairing);
        const double attention = in.ConsumeBool() ? 1.0 : 1.1386294361119891;  // 1, YaRN x4's mscale
        switch (in.ConsumeIntegralInRange<int>(0, 2)) {
        case 0: run_with_angles<float>(in, spec, attention); break;
        case 1: run_with_angles<posenc::bfloat16>(in, spec, attention); break;
        default: run_with_angles<posenc::float16>(in, spec, attention); break;
        }
    } catch (const posenc::error&) {}
    return 0;
}
