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
#include <map>
#include <memory>
#include <tuple>
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
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Unit roundoff of the storage type: 2^-24 float, 2^-9 bfloat16, 2^-11 float16.
template <class T>
double unit_roundoff()
{
    if constexpr (std::is_same_v<T, float>) return 0x1p-24;
    else if constexpr (std::is_same_v<T, posenc::bfloat16>) return 0x1p-9;
    else return 0x1p-11;
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
    const bool in_place = in.ConsumeBool();
    const k::Direction direction = in.ConsumeBool() ? k::Direction::forward : k::Direction::inverse;

    std::vector<T> src(static_cast<std::size_t>(size)), dst(static_cast<std::size_t>(size));
    for (auto& v : src) v = store<T>(in.ConsumeFloatingPointInRange<float>(-4.0f, 4.0f));
    for (auto& v : dst) v = store<T>(-7.0f);  // guard value
    std::vector<std::int64_t> ids(static_cast<std::size_t>(tokens));
    for (auto& p : ids) p = in.ConsumeIntegralInRange<std::int64_t>(-2, max_position + 2);

    const k::HeadsView<T> src_view(src.data() + lead, {tokens, heads, head_dim}, {token_stride, head_stride});
    const k::HeadsView<T> dst_view(dst.data() + lead, {tokens, heads, head_dim}, {token_stride, head_stride});
    const std::vector<T> original = src;

    for (const k::dispatch::Isa isa : k::dispatch::dispatch_isas) {
        if (!k::dispatch::isa_available(isa)) continue;
        std::vector<T> a = original, b = dst;
        const k::HeadsView<T> a_view(a.data() + lead, {tokens, heads, head_dim}, {token_stride, head_stride});
        const k::HeadsView<T> b_view(b.data() + lead, {tokens, heads, head_dim}, {token_stride, head_stride});
        const auto views = in_place ? k::QKViews<T>::in_place(a_view) : k::QKViews<T>::out_of_place(a_view, b_view);
        try {
            k::dispatch::apply_rope_with(isa, spec, angles, k::PositionIds(ids), views, direction);
        } catch (const posenc::error&) {
            // Refused: then nothing may have been written.
            for (std::size_t i = 0; i < a.size(); ++i)
                if (!same_bits(a[i], original[i]) || !same_bits(b[i], dst[i])) std::abort();
            continue;
        }
        const std::vector<T>& out = in_place ? a : b;
        std::vector<bool> viewed(static_cast<std::size_t>(size), false);
        for (std::ptrdiff_t t = 0; t < tokens; ++t)
            for (std::ptrdiff_t h = 0; h < heads; ++h) {
                const std::ptrdiff_t base = lead + t * token_stride + h * head_stride;
                std::vector<double> x(static_cast<std::size_t>(head_dim));
                for (std::ptrdiff_t d = 0; d < head_dim; ++d) {
                    x[static_cast<std::size_t>(d)] = load(original[static_cast<std::size_t>(base + d)]);
                    viewed[static_cast<std::size_t>(base + d)] = true;
                }
                const std::int64_t p = ids[static_cast<std::size_t>(t)];
                posenc::apply_rope_reference(spec, angles.frequencies(), x.data(),
                                             direction == k::Direction::forward ? p : -p);
                for (int i = 0; i < spec.num_pairs(); ++i) {
                    const posenc::PairCoordinates c = spec.pair_coordinates(i);
                    const double a0 = x[static_cast<std::size_t>(c.first)], a1 = x[static_cast<std::size_t>(c.second)];
                    const double norm = std::hypot(a0, a1);
                    // float cos/sin (1.5e-7 each) and float math, then one rounding into T.
                    const double bound = (8e-7 + 2 * unit_roundoff<T>()) * norm + 1e-7;
                    const double o0 = load(out[static_cast<std::size_t>(base + c.first)]);
                    const double o1 = load(out[static_cast<std::size_t>(base + c.second)]);
                    if (!(std::abs(o0 - a0) <= bound && std::abs(o1 - a1) <= bound)) std::abort();
                }
                for (std::ptrdiff_t d = spec.rotary_dim(); d < head_dim; ++d)
                    if (!same_bits(out[static_cast<std::size_t>(base + d)], original[static_cast<std::size_t>(base + d)]))
                        std::abort();
            }
        // Guards: every element outside the views keeps its bits, in both buffers.
        for (std::size_t i = 0; i < viewed.size(); ++i) {
            if (viewed[i]) continue;
            if (!same_bits(a[i], original[i]) || !same_bits(b[i], dst[i])) std::abort();
        }
        if (!in_place)  // the source of an out-of-place call is read only
            for (std::size_t i = 0; i < a.size(); ++i)
                if (!same_bits(a[i], original[i])) std::abort();
    }
}

// Angle sources are costly to build (exact reduction of every entry), so the few shapes the
// fuzzer picks are memoised; the set is cleared when it grows past 32 entries.
template <class Source>
const Source& memoised(int rotary_dim, double base, double attention, std::int64_t n)
{
    static std::map<std::tuple<int, double, double, std::int64_t>, std::unique_ptr<Source>> sources;
    const auto key = std::make_tuple(rotary_dim, base, attention, n);
    auto it = sources.find(key);
    if (it == sources.end()) {
        if (sources.size() >= 32) sources.clear();
        const posenc::RopeSpec spec(rotary_dim, rotary_dim, base);
        const posenc::FrequencyTable table(posenc::FrequencyTable::from_spec(spec).inv_freq(), attention);
        it = sources.emplace(key, std::make_unique<Source>(table, n)).first;
    }
    return *it->second;
}

template <class T>
void run_with_angles(FuzzedDataProvider& in, const posenc::RopeSpec& spec, double attention)
{
    if (in.ConsumeBool()) {
        const std::int64_t n = in.ConsumeBool() ? 64 : 5000;
        run<T>(in, spec, memoised<k::CosSinCache>(spec.rotary_dim(), spec.base(), attention, n), n - 1);
    } else {
        const std::int64_t max = in.ConsumeBool() ? 5000 : std::int64_t {2147483647};
        run<T>(in, spec, memoised<k::OnTheFlyAngles>(spec.rotary_dim(), spec.base(), attention, max), max);
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
    } catch (const posenc::error&) {
    }
    return 0;
}
