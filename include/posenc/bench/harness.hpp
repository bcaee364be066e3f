// SPDX-License-Identifier: MIT
// posenc/bench/harness.hpp: benchmark and check any RoPE kernel against posenc's, in one call.
//
//     posenc::bench::RopeProblem problem {spec, table, tokens, heads};
//     auto report = posenc::bench::run_harness<float>(problem, my_kernel);
//     std::fputs(report.table().c_str(), stdout);
//
// The kernel under test is a callable kernel(T* data, const std::int64_t* positions) that rotates
// the contiguous [tokens, heads, head_dim] tensor in place, token t to positions[t], as the
// problem's spec and table say (accuracy.hpp). run_harness
//   1. times three callables over the same bytes, alternating (timing.hpp): the streaming pass
//      (stream_pass: read and write every byte once, the memory floor), posenc's kernel
//      (kernels::apply_rope with OnTheFlyAngles, compiled for the including translation unit's
//      architecture flags: build with -march=native to compare against posenc's best), and the
//      kernel under test; positions 0 .. tokens - 1. It reports each median and the ratios
//      kernel / stream and kernel / posenc;
//   2. checks the kernel and posenc's against the exact reference at the rows of
//      HarnessOptions::positions (default 0, 2^20, 2^24, 2^31 - 1), each row's largest error
//      against the tolerance (default: posenc's own bound for T);
//   3. judges the timing (loaded machine, run too short) and gives the verdict table.
// Speed has no pass / fail: a ratio is a measurement; accuracy has. Timing never asserts.
//
// T: float, posenc::bfloat16, posenc::float16 (posenc's SIMD kernel) or double (posenc's
// scalar double path). Throws posenc::error for what check_accuracy, time_alternating or
// OnTheFlyAngles refuse (tokens or heads < 1, a position beyond 2^31 - 1, ...).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "posenc/bench/accuracy.hpp"
#include "posenc/bench/timing.hpp"
#include "posenc/kernels/apply.hpp"
#include "posenc/kernels/on_the_fly_angles.hpp"
#include "posenc/kernels/views.hpp"

namespace posenc::bench {

/// What run_harness measures; see the file comment.
struct HarnessOptions {
    std::string name = "kernel under test";
    TimingOptions timing;
    std::vector<std::int64_t> positions = long_positions();
    double tolerance = -1;  ///< < 0: default_tolerance<T>()
    bool time = true;  ///< false: accuracy only
};

/// Everything run_harness found; table() prints it.
struct HarnessReport {
    std::string name;
    std::string problem;  ///< one line: the shape, dtype and rotation
    std::size_t bytes = 0;
    bool timed = false;
    Timing stream, posenc, kernel;  ///< seconds per call (valid when timed)
    TimingVerdict timing_verdict;
    std::vector<AccuracyRow> kernel_accuracy, posenc_accuracy;

    double ratio_to_stream() const noexcept { return stream.median > 0 ? kernel.median / stream.median : 0; }
    double ratio_to_posenc() const noexcept { return posenc.median > 0 ? kernel.median / posenc.median : 0; }
    /// Every row of the kernel under test within the tolerance.
    bool accurate() const noexcept
    {
        for (const AccuracyRow& r : kernel_accuracy)
            if (!r.pass()) return false;
        return !kernel_accuracy.empty();
    }
    std::string table() const;
};

namespace detail {

inline std::string position_name(std::int64_t p)
{
    if (p == max_int32_position) return "2^31 - 1";
    for (int k = 10; k < 63; ++k)
        if (p == (std::int64_t(1) << k)) return "2^" + std::to_string(k);
    return std::to_string(p);
}

inline std::string scientific(double x)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.2e", x);
    return text;
}

inline std::string time_text(double seconds)
{
    char text[32];
    if (seconds >= 1e-3) std::snprintf(text, sizeof text, "%.3f ms", seconds * 1e3);
    else std::snprintf(text, sizeof text, "%.2f us", seconds * 1e6);
    return text;
}

inline std::string padded(std::string s, std::size_t width)
{
    if (s.size() < width) s.append(width - s.size(), ' ');
    return s;
}

template <class T>
const char* dtype_name() noexcept
{
    if constexpr (std::is_same_v<T, double>) return "float64";
    else if constexpr (std::is_same_v<T, posenc::bfloat16>) return "bfloat16";
    else if constexpr (std::is_same_v<T, posenc::float16>) return "float16";
    else return "float32";
}

/// posenc's kernel as a harness kernel: apply_rope in place with on-the-fly angles.
template <class T>
std::function<void(T*, const std::int64_t*)> posenc_kernel(const RopeProblem& p,
                                                           std::shared_ptr<const kernels::OnTheFlyAngles> angles)
{
    return [&p, angles](T* data, const std::int64_t* positions) {
        const kernels::HeadsView<T> view(data, static_cast<std::ptrdiff_t>(p.elements()),
                                         kernels::HeadsShape {p.tokens, p.heads, p.spec.head_dim()});
        kernels::apply_rope(p.spec, *angles, kernels::PositionIds(positions, p.tokens),
                            kernels::QKViews<T>::in_place(view));
    };
}

}  // namespace detail

/// Times and checks `kernel` on `problem`; see the file comment.
template <class T, class Kernel>
HarnessReport run_harness(const RopeProblem& problem, Kernel&& kernel, const HarnessOptions& options = {})
{
    HarnessReport report;
    report.name = options.name;
    report.bytes = problem.elements() * sizeof(T);
    report.problem = std::to_string(problem.tokens) + " tokens x " + std::to_string(problem.heads) + " heads x " +
                     std::to_string(problem.spec.head_dim()) + " (rotary_dim " +
                     std::to_string(problem.spec.rotary_dim()) + ", " + to_string(problem.spec.pairing()) + "), " +
                     detail::dtype_name<T>() + ", " + std::to_string(report.bytes / 1024) + " KiB";
    const double tolerance = options.tolerance >= 0 ? options.tolerance : default_tolerance<T>();
    const auto angles = std::make_shared<const kernels::OnTheFlyAngles>(problem.table);
    const auto posenc = detail::posenc_kernel<T>(problem, angles);
    report.kernel_accuracy = check_accuracy<T>(problem, kernel, options.positions, tolerance);
    report.posenc_accuracy = check_accuracy<T>(problem, posenc, options.positions, tolerance);
    if (!options.time) return report;

    std::vector<T> a = detail::sample_input<T>(problem.elements()), b = a, c = a;
    std::vector<std::int64_t> positions = detail::row_positions(problem.tokens - 1, problem.tokens);
    // In place and repeated: the data keep rotating by the same angles, a rotation keeps |x|.
    const std::vector<std::function<void()>> callables {
        [&] { stream_pass(a.data(), report.bytes); },
        [&] {
            posenc(b.data(), positions.data());
            detail::clobber_memory(b.data());
        },
        [&] {
            kernel(c.data(), positions.data());
            detail::clobber_memory(c.data());
        },
    };
    const std::vector<Timing> t = time_alternating(callables, options.timing);
    report.stream = t[0];
    report.posenc = t[1];
    report.kernel = t[2];
    report.timed = true;
    report.timing_verdict = judge(t, options.timing);
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__OPTIMIZE__)
    report.timing_verdict.explanation += "compiled without optimisation (-O0): every kernel here runs far below its "
                                         "speed; build the harness with -O2 (CMake: Release)\n";
#endif
    return report;
}

inline std::string HarnessReport::table() const
{
    std::string s = "RoPE kernel harness: " + problem + "\n";
    const std::size_t width = std::max<std::size_t>(24, name.size() + 2);
    if (timed) {
        s += "\nspeed (median of " + std::to_string(kernel.repetitions) + " alternating repetitions)\n";
        s += "  " + detail::padded("", width) + detail::padded("median", 14) + detail::padded("spread", 9) +
             detail::padded("/ stream", 10) + "/ posenc\n";
        const auto line = [&](const std::string& who, const Timing& t) {
            s += "  " + detail::padded(who, width) + detail::padded(detail::time_text(t.median), 14) +
                 detail::padded(detail::fixed(t.spread() * 100, 1) + " %", 9) +
                 detail::padded(detail::fixed(t.median / stream.median, 2), 10) +
                 detail::fixed(t.median / posenc.median, 2) + "\n";
        };
        line("stream (read + write)", stream);
        line("posenc apply_rope", posenc);
        line(name, kernel);
        for (std::size_t at = 0, end; (end = timing_verdict.explanation.find('\n', at)) != std::string::npos;
             at = end + 1)
            s += "  WARNING: " + timing_verdict.explanation.substr(at, end + 1 - at);
    }
    s += "\naccuracy (largest |error| / (A |pair|) against the exact reference; tolerance " +
         detail::scientific(kernel_accuracy.empty() ? 0 : kernel_accuracy[0].tolerance) + ")\n";
    s += "  " + detail::padded("last position", 16) + detail::padded(name, width) + detail::padded("posenc", 12) +
         "verdict\n";
    for (std::size_t i = 0; i < kernel_accuracy.size(); ++i) {
        const AccuracyRow& k = kernel_accuracy[i];
        const AccuracyRow& p = posenc_accuracy[i];
        s += "  " + detail::padded(detail::position_name(k.last_position), 16) +
             detail::padded(detail::scientific(k.max_error), width) +
             detail::padded(detail::scientific(p.max_error), 12) + (k.pass() ? "pass" : "FAIL") + "\n";
    }
    s += "\nverdict: " + name + ": accuracy " + (accurate() ? "PASS" : "FAIL");
    if (timed)
        s += ", " + detail::fixed(ratio_to_stream(), 2) + " x the streaming pass, " +
             detail::fixed(ratio_to_posenc(), 2) + " x posenc's kernel" +
             (timing_verdict.explanation.empty() ? "" : " (timing not to be trusted: see WARNING)");
    return s + "\n";
}

}  // namespace posenc::bench
