// SPDX-License-Identifier: MIT
// Accuracy of the kernels' cos/sin and applied outputs at large positions, on every arch path,
// both pairings, both angle sources, against exact values computed independently with mpmath
// at 400 bits:
//
//     from mpmath import mp, mpf, cos, sin;  mp.prec = 400
//     theta = float(mpf(base) ** (mpf(-2 * i) / R))       # the double theta_i, written below in hex
//     x = mpf(m) * mpf(theta);  print(cos(x), sin(x))      # 21 significant digits
//
// for Qwen3-8B (base 1e6, R = 128: first pair theta_0 = 1, last pair theta_63) and base 1e4,
// R = 64 (last pair theta_31), at positions 0, 1, 4095, 2^17, 1,000,000, 2^24 and 2^31 - 1.
// The kernels' documented bounds (docs/kernels.md): cos/sin within 1.5e-7 absolute; applied float outputs within 4 ulp of
// |x| per pair; bfloat16 / float16 within one rounding (half an ulp of the format) of that.
// Reading cos/sin through the kernel: the pair (1, 0) rotates to (c, s) exactly in float
// (1*c - 0*s = c and 0*c + 1*s = s), for either pairing.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "kernel_test_support.hpp"

namespace kernels_angle_accuracy_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using namespace posenc::kernels;
using kernel_test::ArchPath;

struct ExactAngle {
    std::int64_t position;
    double theta;
    long double cos, sin;  // mpmath, 21 digits
};

const ExactAngle exact_angles[] = {
    // Qwen3-8B pair 0 (theta = 1)
    {0, 0x1.0000000000000p+0, 1.0L, 0.0L},
    {1, 0x1.0000000000000p+0, 0.540302305868139717401L, 0.841470984807896506653L},
    {4095, 0x1.0000000000000p+0, -0.0659759965580648962894L, -0.997821210376974402466L},
    {131072, 0x1.0000000000000p+0, 0.0420908152502962321015L, -0.999113788950770827132L},
    {1000000, 0x1.0000000000000p+0, 0.936752127533144786939L, -0.349993502171292952118L},
    {16777216, 0x1.0000000000000p+0, 0.626322983291532917494L, -0.779563673217777752205L},
    {2147483647, 0x1.0000000000000p+0, -0.68883669187794383468L, -0.724916555144556390548L},
    // Qwen3-8B pair 63 (theta = 1e6^(-126/128))
    {0, 0x1.4d1c97f4e952fp-20, 1.0L, 0.0L},
    {1, 0x1.4d1c97f4e952fp-20, 0.999999999999230036737L, 1.24093776075140103435e-6L},
    {4095, 0x1.4d1c97f4e952fp-20, 0.999987088494577763657L, 0.00508161825971810064832L},
    {131072, 0x1.4d1c97f4e952fp-20, 0.986801268908643344796L, 0.161935961664762301082L},
    {1000000, 0x1.4d1c97f4e952fp-20, 0.32390922264233945233L, 0.946088164753811604862L},
    {16777216, 0x1.4d1c97f4e952fp-20, -0.388615587864816097645L, 0.921399980935795005395L},
    {2147483647, 0x1.4d1c97f4e952fp-20, 0.680040895434037130898L, 0.73317418158120719308L},
    // base 1e4, R = 64, pair 31 (theta = 1e4^(-62/64))
    {0, 0x1.17a8e301c4436p-13, 1.0L, 0.0L},
    {1, 0x1.17a8e301c4436p-13, 0.999999991108602962982L, 0.000133352142821103444788L},
    {4095, 0x1.17a8e301c4436p-13, 0.854568444914217176043L, 0.519338784375764260083L},
    {131072, 0x1.17a8e301c4436p-13, 0.198642399379670048838L, -0.980072036724182667973L},
    {1000000, 0x1.17a8e301c4436p-13, 0.164789471806316991068L, 0.986328763639079450686L},
    {16777216, 0x1.17a8e301c4436p-13, 0.894385221249359571666L, 0.44729752515605776344L},
    {2147483647, 0x1.17a8e301c4436p-13, -0.945558957032070698577L, 0.325450854625429856782L},
};

/// A spec and frequency table whose pairs 0 and P-1 are the tested thetas (the middle pairs are
/// the spec's own; they are exercised but not checked here).
struct Model {
    const char* name;
    posenc::RopeSpec spec;
    posenc::FrequencyTable table;
};

std::vector<Model> models(posenc::Pairing pairing, double attention_factor)
{
    std::vector<Model> out;
    for (auto [name, base, rotary, last_theta] :
         {std::tuple<const char*, double, int, double> {"qwen3-8b", 1e6, 128, 0x1.4d1c97f4e952fp-20},
          std::tuple<const char*, double, int, double> {"base1e4-r64", 1e4, 64, 0x1.17a8e301c4436p-13}}) {
        const posenc::RopeSpec spec(rotary, rotary, base, pairing);
        std::vector<double> theta = posenc::FrequencyTable::from_spec(spec).inv_freq();
        theta.front() = 1.0;
        theta.back() = last_theta;
        out.push_back({name, spec, posenc::FrequencyTable(theta, attention_factor)});
    }
    return out;
}

/// Pair i's two coordinates in a head.
std::pair<int, int> coords(const posenc::RopeSpec& spec, int i)
{
    const posenc::PairCoordinates p = spec.pair_coordinates(i);
    return {p.first, p.second};
}

template <class T, class Angles>
std::vector<T> rotate_one_head(const ArchPath& path, const posenc::RopeSpec& spec, const Angles& angles,
                               std::int64_t position, const std::vector<T>& head)
{
    std::vector<T> out(head.size());
    kernel_test::apply_on(path, spec, angles, PositionIds::contiguous(position),
                          QKViews<T>::out_of_place(HeadsView<const T>(head, {1, 1, spec.head_dim()}),
                                                   HeadsView<T>(out, {1, 1, spec.head_dim()})));
    return out;
}

}  // namespace

TEST_CASE(
    "[mpmath] kernel cos/sin are within 1.5e-7 of exact at positions 0 .. 2^31-1, every path, pairing and angle source")
{
    double worst = 0;
    for (const ArchPath& path : kernel_test::arch_paths())
        for (posenc::Pairing pairing : {posenc::Pairing::half_split, posenc::Pairing::interleaved})
            for (double factor : {1.0, 1.1386294361119891}) {  // 1 and YaRN's 0.1 ln(4) + 1
                for (const Model& model : models(pairing, factor)) {
                    const OnTheFlyAngles on_the_fly(model.table);
                    const int last = model.spec.num_pairs() - 1;
                    for (const ExactAngle& e : exact_angles) {
                        const int pair = e.theta == 1.0 ? 0 : last;
                        if (model.table.inv_freq(pair) != e.theta) continue;
                        CAPTURE(path.name);
                        CAPTURE(model.name);
                        const std::string pairing_name = posenc::to_string(pairing);
                        CAPTURE(pairing_name);
                        CAPTURE(factor);
                        CAPTURE(e.position);
                        CAPTURE(pair);
                        const CosSinCache cache(model.table, 1, e.position);  // one row at that position
                        std::vector<float> unit(static_cast<std::size_t>(model.spec.head_dim()), 0.0f);
                        const int a = coords(model.spec, pair).first;
                        const int b = coords(model.spec, pair).second;
                        unit[static_cast<std::size_t>(a)] = 1.0f;
                        for (int source = 0; source < 2; ++source) {
                            const std::string source_name = source == 0 ? "CosSinCache" : "OnTheFlyAngles";
                            CAPTURE(source_name);
                            const std::vector<float> out =
                                source == 0 ? rotate_one_head(path, model.spec, cache, e.position, unit)
                                            : rotate_one_head(path, model.spec, on_the_fly, e.position, unit);
                            const long double exact_cos = factor * e.cos, exact_sin = factor * e.sin;
                            const double cos_error =
                                static_cast<double>(std::fabs(out[static_cast<std::size_t>(a)] - exact_cos));
                            const double sin_error =
                                static_cast<double>(std::fabs(out[static_cast<std::size_t>(b)] - exact_sin));
                            CHECK(cos_error <= 1.5e-7 * factor);
                            CHECK(sin_error <= 1.5e-7 * factor);
                            // what the construction promises: one float rounding of a value accurate to ~1e-14
                            const double cos_half_ulp = 0.5 * kernel_test::float_ulp(static_cast<double>(exact_cos));
                            const double sin_half_ulp = 0.5 * kernel_test::float_ulp(static_cast<double>(exact_sin));
                            CHECK(cos_error <= cos_half_ulp + 1e-14);
                            CHECK(sin_error <= sin_half_ulp + 1e-14);
                            worst = std::max({worst, cos_error / factor, sin_error / factor});
                        }
                    }
                }
            }
    MESSAGE("largest cos/sin error / attention factor over all paths: "
            << worst << " (bound 1.5e-7; each value is within half an ulp of float)");
}

TEST_CASE(
    "[mpmath] applied outputs at large positions: float within 4 ulp of |x|, bfloat16/float16 within one rounding more")
{
    std::mt19937 rng(4);
    std::uniform_real_distribution<float> u(-2.0f, 2.0f);
    double worst_float_ulps = 0;
    for (const ArchPath& path : kernel_test::arch_paths())
        for (posenc::Pairing pairing : {posenc::Pairing::half_split, posenc::Pairing::interleaved})
            for (const Model& model : models(pairing, 1.0)) {
                const OnTheFlyAngles on_the_fly(model.table);
                const int last = model.spec.num_pairs() - 1;
                for (const ExactAngle& e : exact_angles) {
                    const int pair = e.theta == 1.0 ? 0 : last;
                    if (model.table.inv_freq(pair) != e.theta) continue;
                    const CosSinCache cache(model.table, 1, e.position);
                    const int ia = coords(model.spec, pair).first;
                    const int ib = coords(model.spec, pair).second;
                    std::vector<float> x(static_cast<std::size_t>(model.spec.head_dim()));
                    for (float& v : x) v = u(rng);
                    CAPTURE(path.name);
                    CAPTURE(model.name);
                    const std::string pairing_name = posenc::to_string(pairing);
                    CAPTURE(pairing_name);
                    CAPTURE(e.position);
                    CAPTURE(pair);
                    // float
                    for (int source = 0; source < 2; ++source) {
                        const std::vector<float> y = source == 0
                                                         ? rotate_one_head(path, model.spec, cache, e.position, x)
                                                         : rotate_one_head(path, model.spec, on_the_fly, e.position, x);
                        const long double a = x[static_cast<std::size_t>(ia)], b = x[static_cast<std::size_t>(ib)];
                        const long double ea = a * e.cos - b * e.sin, eb = b * e.cos + a * e.sin;
                        const double ulp = kernel_test::float_ulp(static_cast<double>(std::sqrt(a * a + b * b)));
                        const double err =
                            static_cast<double>(std::max(std::fabs(y[static_cast<std::size_t>(ia)] - ea),
                                                         std::fabs(y[static_cast<std::size_t>(ib)] - eb)));
                        CHECK(err <= 4 * ulp);
                        worst_float_ulps = std::max(worst_float_ulps, err / ulp);
                    }
                    // bfloat16 and float16: inputs are the 16-bit values of x; bound = 4 ulp (float) + half an ulp of the format
                    auto check_16 = [&](auto tag) {
                        using T = decltype(tag);
                        std::vector<T> h(x.size());
                        for (std::size_t i = 0; i < x.size(); ++i) h[i] = posenc::store_from_float<T>(x[i]);
                        for (int source = 0; source < 2; ++source) {
                            const std::vector<T> y = source == 0
                                                         ? rotate_one_head(path, model.spec, cache, e.position, h)
                                                         : rotate_one_head(path, model.spec, on_the_fly, e.position, h);
                            const long double a = posenc::load_as_float(h[static_cast<std::size_t>(ia)]);
                            const long double b = posenc::load_as_float(h[static_cast<std::size_t>(ib)]);
                            const long double ea = a * e.cos - b * e.sin, eb = b * e.cos + a * e.sin;
                            const double f_ulp = kernel_test::float_ulp(static_cast<double>(std::sqrt(a * a + b * b)));
                            const double ya = posenc::load_as_float(y[static_cast<std::size_t>(ia)]);
                            const double yb = posenc::load_as_float(y[static_cast<std::size_t>(ib)]);
                            const std::string type = kernel_test::type_name<T>();
                            CAPTURE(type);
                            CHECK(std::fabs(ya - static_cast<double>(ea)) <=
                                  4 * f_ulp + kernel_test::half_ulp<T>(std::fabs(ya)));
                            CHECK(std::fabs(yb - static_cast<double>(eb)) <=
                                  4 * f_ulp + kernel_test::half_ulp<T>(std::fabs(yb)));
                        }
                    };
                    check_16(posenc::bfloat16 {});
                    check_16(posenc::float16 {});
                }
            }
    MESSAGE("largest float error at the tested positions: " << worst_float_ulps << " ulp of |x| (bound 4)");
}

}  // namespace kernels_angle_accuracy_tests
