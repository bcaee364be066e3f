// SPDX-License-Identifier: MIT
// posenc/bench/timing.hpp: time callables in one process, alternating, as medians with their
// spread, and the streaming pass that is every RoPE kernel's floor.
//
// A RoPE kernel reads and writes each element once and does a few multiply-adds per pair, so on a
// CPU its time is bound by memory traffic: the honest unit is the time of a pass that reads and
// writes the same bytes and computes nothing (stream_pass). A kernel's ratio to that pass, both
// measured here in the same process, survives a different machine or a noisy one far better than
// its time in microseconds does.
//
// time_alternating(callables, options): every callable is called `warmup` times, then calibrated
// (calls per repetition doubled until one repetition lasts min_repetition_seconds, at most
// max_calls_per_repetition), then timed for `repetitions` rounds, the callables taking turns
// within each round (A B C A B C ...), so that a load that comes and goes hits all of them alike.
// Each repetition gives seconds per call; a Timing holds their median and quartiles.
//
// Judging a run (TimingVerdict): a run is "too short" when fewer than 5 repetitions were taken,
// when min_repetition_seconds is below 1 ms (a scheduler tick and the clock's granularity are then
// a visible part of a repetition), or when a repetition stayed below half of it even at
// max_calls_per_repetition; "loaded" when some callable's interquartile spread (q3 - q1) / median exceeds
// loaded_spread (10 %): on a quiet machine the streaming pass repeats within a few percent, so a
// wider spread means other work shared the cores or the memory bus. Neither verdict changes the
// numbers; both say how far to trust them.
//
// Clock: std::chrono::steady_clock. No dependency beyond the standard library.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "posenc/error.hpp"

namespace posenc::bench {

/// How time_alternating measures; see the file comment.
struct TimingOptions {
    int warmup = 2;  ///< untimed calls per callable first (tables built, pages touched)
    int repetitions = 15;  ///< timed rounds, >= 1 (>= 5 to judge a run)
    double min_repetition_seconds = 5e-3;  ///< a repetition calls the callable until it lasts this long
    std::int64_t max_calls_per_repetition = std::int64_t(1) << 20;
    double loaded_spread = 0.10;  ///< (q3 - q1) / median above this: the machine was loaded
};

/// Seconds per call of one callable over the repetitions.
struct Timing {
    double median = 0, q1 = 0, q3 = 0, min = 0, max = 0;
    std::int64_t calls_per_repetition = 0;
    int repetitions = 0;
    double repetition_seconds = 0;  ///< the median repetition's length (calls_per_repetition calls)

    /// (q3 - q1) / median: the relative interquartile spread of the repetitions.
    double spread() const noexcept { return median > 0 ? (q3 - q1) / median : 0; }
};

/// What a set of timings can be trusted for; see the file comment.
struct TimingVerdict {
    bool loaded = false;  ///< some callable's spread exceeded TimingOptions::loaded_spread
    bool too_short = false;  ///< repetitions shorter than asked, or fewer than 5 repetitions
    double worst_spread = 0;
    std::string explanation;  ///< one line per finding, empty when the run can be judged
};

namespace detail {

/// Keeps the compiler from deleting work on memory it cannot see used.
inline void clobber_memory(const void* p) noexcept
{
#if defined(__GNUC__) || defined(__clang__)
    asm volatile("" : : "r"(p) : "memory");
#else
    static const void* volatile sink;
    sink = p;
    std::atomic_signal_fence(std::memory_order_seq_cst);
#endif
}

/// The value at fraction f (0..1) of sorted values, linearly interpolated.
inline double quantile(const std::vector<double>& sorted, double f) noexcept
{
    if (sorted.empty()) return 0;
    const double at = f * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<std::size_t>(at);
    const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (at - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

/// x with `digits` digits after the point.
inline std::string fixed(double x, int digits)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", digits, x);
    return text;
}

inline double seconds_of(const std::function<void()>& f, std::int64_t calls)
{
    const auto start = std::chrono::steady_clock::now();
    for (std::int64_t i = 0; i < calls; ++i) f();
    const std::chrono::duration<double> d = std::chrono::steady_clock::now() - start;
    return d.count();
}

inline std::int64_t calibrate(const std::function<void()>& f, const TimingOptions& o)
{
    std::int64_t calls = 1;
    while (calls < o.max_calls_per_repetition && seconds_of(f, calls) < o.min_repetition_seconds) calls *= 2;
    return std::min(calls, o.max_calls_per_repetition);
}

inline Timing summarise(std::vector<double> per_call, std::int64_t calls)
{
    std::sort(per_call.begin(), per_call.end());
    Timing t;
    t.median = quantile(per_call, 0.5);
    t.q1 = quantile(per_call, 0.25);
    t.q3 = quantile(per_call, 0.75);
    t.min = per_call.front();
    t.max = per_call.back();
    t.calls_per_repetition = calls;
    t.repetitions = static_cast<int>(per_call.size());
    t.repetition_seconds = t.median * static_cast<double>(calls);
    return t;
}

}  // namespace detail

/// Reads and writes every byte of [data, data + bytes) once (each byte XOR a zero the compiler
/// cannot see), computing nothing: the memory traffic of an in-place kernel over the same bytes.
/// The bytes keep their values.
inline void stream_pass(void* data, std::size_t bytes) noexcept
{
    static volatile unsigned char zero = 0;
    const unsigned char mask = zero;
    auto* p = static_cast<unsigned char*>(data);
    for (std::size_t i = 0; i < bytes; ++i) p[i] = static_cast<unsigned char>(p[i] ^ mask);
    detail::clobber_memory(p);
}

/// Times the callables alternating within each repetition; result i belongs to callables[i].
/// Throws posenc::error for repetitions < 1, warmup < 0, min_repetition_seconds not finite or
/// negative, or max_calls_per_repetition < 1.
inline std::vector<Timing> time_alternating(const std::vector<std::function<void()>>& callables,
                                            const TimingOptions& options = {})
{
    posenc::detail::require(options.repetitions >= 1, "repetitions", options.repetitions, "must be >= 1");
    posenc::detail::require(options.warmup >= 0, "warmup", options.warmup, "must be >= 0");
    posenc::detail::require(options.min_repetition_seconds >= 0 && options.min_repetition_seconds < 1e6,
                            "min_repetition_seconds", options.min_repetition_seconds, "must be in [0, 1e6)");
    posenc::detail::require(options.max_calls_per_repetition >= 1, "max_calls_per_repetition",
                            options.max_calls_per_repetition, "must be >= 1");
    std::vector<std::int64_t> calls;
    for (const auto& f : callables) {
        for (int i = 0; i < options.warmup; ++i) f();
        calls.push_back(detail::calibrate(f, options));
    }
    std::vector<std::vector<double>> per_call(callables.size());
    for (int r = 0; r < options.repetitions; ++r)
        for (std::size_t i = 0; i < callables.size(); ++i)
            per_call[i].push_back(detail::seconds_of(callables[i], calls[i]) / static_cast<double>(calls[i]));
    std::vector<Timing> out;
    for (std::size_t i = 0; i < callables.size(); ++i) out.push_back(detail::summarise(per_call[i], calls[i]));
    return out;
}

/// Whether timings taken with `options` can be judged; see the file comment.
inline TimingVerdict judge(const std::vector<Timing>& timings, const TimingOptions& options = {})
{
    TimingVerdict v;
    for (const Timing& t : timings) {
        v.worst_spread = std::max(v.worst_spread, t.spread());
        v.too_short |= t.repetitions < 5 || (t.calls_per_repetition >= options.max_calls_per_repetition &&
                                             t.repetition_seconds < 0.5 * options.min_repetition_seconds);
    }
    v.too_short |= options.min_repetition_seconds < 1e-3;
    v.loaded = v.worst_spread > options.loaded_spread;
    if (v.loaded)
        v.explanation += "machine loaded or noisy: repetitions spread by " + detail::fixed(v.worst_spread * 100, 1) +
                         " % (interquartile / median, above " + detail::fixed(options.loaded_spread * 100, 1) +
                         " %): the ratios are not to be trusted; rerun on a quiet machine\n";
    if (v.too_short)
        v.explanation += "run too short to judge: fewer than 5 repetitions, or repetitions under 1 ms; "
                         "raise repetitions, min_repetition_seconds or max_calls_per_repetition\n";
    return v;
}

}  // namespace posenc::bench
