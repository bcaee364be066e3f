// SPDX-License-Identifier: MIT
// Helpers shared by tests/kernels/*.cpp: the architecture paths a test runs on, storage
// conversions for expected values, and ulp arithmetic. Nothing here computes an expected value.
#pragma once

#include <posenc/kernels.hpp>
#include <posenc/kernels/dispatch.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace kernel_test {

using posenc::bfloat16;
using posenc::float16;
using posenc::kernels::dispatch::Isa;

/// One way of running the kernel: the header-only default arch of this test binary, or one
/// per-ISA build of runtime dispatch (only those this CPU runs; the others are reported skipped).
struct ArchPath {
    std::string name;
    bool dispatched;
    Isa isa;
};

inline std::vector<ArchPath> arch_paths()
{
    std::vector<ArchPath> paths {
        {std::string("default:") + posenc::kernels::default_arch::name(), false, Isa::baseline}};
    for (Isa isa : posenc::kernels::dispatch::dispatch_isas)
        if (posenc::kernels::dispatch::isa_available(isa))
            paths.push_back({std::string("dispatch:") + posenc::kernels::dispatch::to_string(isa), true, isa});
    return paths;
}

/// Paths of arch_paths() that this machine cannot run (not compiled in, or CPU lacks the ISA).
inline std::vector<std::string> skipped_paths()
{
    std::vector<std::string> skipped;
    for (Isa isa : posenc::kernels::dispatch::dispatch_isas)
        if (!posenc::kernels::dispatch::isa_available(isa))
            skipped.push_back(
                std::string(posenc::kernels::dispatch::to_string(isa)) +
                (!posenc::kernels::dispatch::isa_compiled(isa) ? " (not compiled in)"
                 : static_cast<int>(isa) > static_cast<int>(posenc::kernels::dispatch::max_isa_from_environment())
                     ? " (above POSENC_DISPATCH_MAX_ISA)"
                     : " (CPU lacks it)"));
    return skipped;
}

/// How many of a random-shape test's `n` cases run: all of them, or n / POSENC_TEST_RANDOM_DIVISOR
/// (at least 1) when the environment sets that divisor. scripts/test-aarch64.sh sets 4 under
/// qemu-user, whose emulated CPU runs the kernels 10-30x slower than the host; the test says so
/// in its output. Fixed cases (boundaries, positions up to 2^31 - 1) never take this.
inline int random_cases(int n)
{
    const char* value = std::getenv("POSENC_TEST_RANDOM_DIVISOR");
    const int divisor = value != nullptr ? std::atoi(value) : 1;
    if (divisor <= 1) return n;
    MESSAGE("POSENC_TEST_RANDOM_DIVISOR=" << divisor << ": " << (n / divisor > 0 ? n / divisor : 1) << " of " << n
                                          << " random cases");
    return n / divisor > 0 ? n / divisor : 1;
}

/// The checked apply on one path, of tokens [range.begin, range.end).
template <class T, class Angles>
void apply_on(const ArchPath& path, const posenc::RopeSpec& spec, const Angles& angles,
              const posenc::kernels::PositionIds& positions, const posenc::kernels::QKViews<T>& views,
              posenc::kernels::Direction direction, posenc::kernels::TokenRange range)
{
    if (path.dispatched)
        posenc::kernels::dispatch::apply_rope_on(path.isa, spec, angles, positions, views, direction, range);
    else posenc::kernels::apply_rope(spec, angles, positions, views, direction, range);
}

/// The checked apply on one path, of every token.
template <class T, class Angles>
void apply_on(const ArchPath& path, const posenc::RopeSpec& spec, const Angles& angles,
              const posenc::kernels::PositionIds& positions, const posenc::kernels::QKViews<T>& views,
              posenc::kernels::Direction direction = posenc::kernels::Direction::forward)
{
    apply_on(path, spec, angles, positions, views, direction, posenc::kernels::TokenRange {0, views.tokens()});
}

template <class T>
T from_double(double x)
{
    if constexpr (std::is_same_v<T, double>) return x;
    else if constexpr (std::is_same_v<T, float>) return static_cast<float>(x);
    else return posenc::store_from_float<T>(static_cast<float>(x));
}

template <class T>
double to_double(T x)
{
    if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) return static_cast<double>(x);
    else return static_cast<double>(posenc::to_float(x));
}

template <class T>
std::uint64_t bits_of(T x)
{
    std::uint64_t b = 0;
    std::memcpy(&b, &x, sizeof x);
    return b;
}

/// The spacing of binary32 at |v|: 2^(floor(log2 |v|) - 23), and 2^-149 below the normal range.
inline double float_ulp(double v)
{
    v = std::fabs(v);
    if (v < 1.1754943508222875e-38) return std::ldexp(1.0, -149);
    return std::ldexp(1.0, std::ilogb(v) - 23);
}

/// Half the spacing of the storage format at |v| (0 for double): one rounding into it.
template <class T>
double half_ulp(double v)
{
    v = std::fabs(v);
    if constexpr (std::is_same_v<T, double>) return 0.0;
    else if constexpr (std::is_same_v<T, float>) return 0.5 * float_ulp(v);
    else if constexpr (std::is_same_v<T, bfloat16>)
        return 0.5 * (v < 1.1754943508222875e-38 ? std::ldexp(1.0, -133) : std::ldexp(1.0, std::ilogb(v) - 7));
    else return 0.5 * (v < 6.103515625e-05 ? std::ldexp(1.0, -24) : std::ldexp(1.0, std::ilogb(v) - 10));
}

template <class T>
std::string type_name()
{
    return posenc::to_string(posenc::storage_type_of<T>);
}

/// The value of fp8 e4m3 code `code` (OCP E4M3: bias 7, no infinities; 0x7F / 0xFF are NaN and
/// not used here), from the format's definition.
inline double e4m3_value(int code)
{
    const int e = (code >> 3) & 15, m = code & 7;
    const double magnitude = e == 0 ? std::ldexp(m, -9) : std::ldexp(8 + m, e - 10);
    return (code & 0x80) ? -magnitude : magnitude;
}

/// Nearest e4m3 code of x, ties to the even code, saturating at 448: the format's definition by
/// search over every finite code, independent of quantize.hpp (no NaN inputs).
inline std::uint8_t e4m3_definition(float x)
{
    const int sign = std::signbit(x) ? 0x80 : 0;
    const double a = std::fabs(static_cast<double>(x));
    if (a >= 448.0) return static_cast<std::uint8_t>(sign | 0x7E);
    int best = 0;
    for (int c = 1; c <= 0x7E; ++c) {
        const double d = std::fabs(e4m3_value(c) - a), db = std::fabs(e4m3_value(best) - a);
        if (d < db || (d == db && (c & 1) == 0)) best = c;
    }
    return static_cast<std::uint8_t>(sign | best);
}

}  // namespace kernel_test
