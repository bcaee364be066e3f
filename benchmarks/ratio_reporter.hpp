// SPDX-License-Identifier: MIT
// benchmarks/ratio_reporter.hpp: report every benchmark as a ratio to a baseline measured in the
// same process, so that the numbers survive a noisy machine.
//
// Naming rule: a benchmark "GROUP/VARIANT/ARGS..." is compared with "GROUP/stream/ARGS..."
// (the streaming loop over the same bytes), or "GROUP/copy_kv/ARGS..." where a group has no
// stream (the cache groups, whose floor is the plain copy). Each runs --benchmark_repetitions times (default 7
// here) and the ratio is of the medians. After the usual console output a table is printed:
//
//   benchmark                          median        ratio to stream
//
// Use: `int main(int argc, char** argv) { return posenc_bench::run_with_ratios(argc, argv); }`
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>  // isatty: colour only on a terminal

namespace posenc_bench {

/// The baseline name of a benchmark: its second path component replaced by "stream".
inline std::string baseline_name(const std::string& name, const char* baseline = "stream")
{
    const auto first = name.find('/');
    if (first == std::string::npos) return {};
    const auto second = name.find('/', first + 1);
    return name.substr(0, first) + "/" + baseline + (second == std::string::npos ? "" : name.substr(second));
}

class RatioReporter : public benchmark::ConsoleReporter
{
public:
    /// colour: ANSI colour codes in the console table (run_with_ratios: only on a terminal, and
    /// never with --benchmark_color=false).
    explicit RatioReporter(bool colour = false) : benchmark::ConsoleReporter(colour ? OO_Defaults : OO_Tabular) {}

    void ReportRuns(const std::vector<Run>& runs) override
    {
        benchmark::ConsoleReporter::ReportRuns(runs);
        for (const Run& run : runs) {
            if (run.error_occurred) continue;
            const bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
            const bool single = run.run_type == Run::RT_Iteration && run.repetitions <= 1;
            if (!median && !single) continue;
            const std::string name = run.run_name.str();
            if (medians_.count(name) == 0) order_.push_back(name);
            medians_[name] = run.GetAdjustedRealTime();
            units_[name] = benchmark::GetTimeUnitString(run.time_unit);
        }
    }

    void Finalize() override
    {
        benchmark::ConsoleReporter::Finalize();
        std::printf("\n%-48s %14s %18s\n", "benchmark (median of repetitions)", "median", "ratio to stream");
        for (const std::string& name : order_) {
            auto b = medians_.find(baseline_name(name));
            if (b == medians_.end()) b = medians_.find(baseline_name(name, "copy_kv"));  // cache groups: the plain copy
            char ratio[32] = "-";
            if (b != medians_.end() && b->second > 0)
                std::snprintf(ratio, sizeof ratio, "%.3f", medians_[name] / b->second);
            std::printf("%-48s %11.1f %-2s %18s\n", name.c_str(), medians_[name], units_[name].c_str(), ratio);
        }
    }

private:
    std::vector<std::string> order_;
    std::map<std::string, double> medians_;
    std::map<std::string, std::string> units_;
};

/// benchmark::Initialize + RunSpecifiedBenchmarks with the RatioReporter; adds
/// --benchmark_repetitions=7 unless the command line sets the repetitions itself.
inline int run_with_ratios(int argc, char** argv)
{
    std::vector<char*> args(argv, argv + argc);
    bool has_repetitions = false, colour = isatty(STDOUT_FILENO) != 0;
    for (int i = 1; i < argc; ++i) {
        has_repetitions |= std::strncmp(argv[i], "--benchmark_repetitions", 23) == 0;
        colour &= std::strcmp(argv[i], "--benchmark_color=false") != 0;
    }
    static char repetitions[] = "--benchmark_repetitions=7";
    static char aggregates[] = "--benchmark_report_aggregates_only=true";
    if (!has_repetitions) {
        args.push_back(repetitions);
        args.push_back(aggregates);
    }
    int n = static_cast<int>(args.size());
    args.push_back(nullptr);
    benchmark::Initialize(&n, args.data());
    if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
    RatioReporter reporter(colour);
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();
    return 0;
}

}  // namespace posenc_bench
