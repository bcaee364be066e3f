// SPDX-License-Identifier: MIT
// bench_reference: the scalar reference apply (rotation.hpp) and the frequency table, against
// the streaming loop over the same bytes. The reference is written to be obviously correct, not
// fast; this benchmark records how far from memory speed it is, so the SIMD kernels have a
// yardstick. Input: [tokens, heads, head_dim] float, positions 0..tokens-1, Qwen3-8B spec.
#include <posenc/posenc.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "ratio_reporter.hpp"

namespace {

constexpr int kHeads = 8;

std::vector<float> make_data(std::size_t n)
{
    std::vector<float> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<float>((i * 2654435761u) % 1000) * 1e-3f - 0.5f;
    return x;
}

// Baseline: read and write every element once, in place (x = x * c + 0 keeps the compiler honest).
void apply_stream(benchmark::State& state)
{
    const posenc::RopeSpec spec = posenc::models::qwen3_8b.rope_spec();
    const auto tokens = static_cast<std::size_t>(state.range(0));
    std::vector<float> x = make_data(tokens * kHeads * static_cast<std::size_t>(spec.head_dim()));
    float c = 1.0f;
    for (auto _ : state) {
        for (float& v : x) v = v * c;
        benchmark::DoNotOptimize(x.data());
        benchmark::ClobberMemory();
        benchmark::DoNotOptimize(c);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * x.size() * sizeof(float) * 2));
}

void apply_reference(benchmark::State& state)
{
    const posenc::RopeSpec spec = posenc::models::qwen3_8b.rope_spec();
    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
    const auto tokens = static_cast<std::size_t>(state.range(0));
    const auto head_dim = static_cast<std::size_t>(spec.head_dim());
    std::vector<float> x = make_data(tokens * kHeads * head_dim);
    for (auto _ : state) {
        for (std::size_t t = 0; t < tokens; ++t)
            for (std::size_t h = 0; h < kHeads; ++h)
                posenc::apply_rope_reference(spec, table, x.data() + (t * kHeads + h) * head_dim,
                                             static_cast<std::int64_t>(t));
        benchmark::DoNotOptimize(x.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * x.size() * sizeof(float) * 2));
}

void table_stream(benchmark::State& state)
{
    std::vector<double> f(static_cast<std::size_t>(state.range(0)), 1.0);
    double c = 1.0;
    for (auto _ : state) {
        for (double& v : f) v = v * c;
        benchmark::DoNotOptimize(f.data());
        benchmark::ClobberMemory();
        benchmark::DoNotOptimize(c);
    }
}

void table_from_spec(benchmark::State& state)
{
    const posenc::RopeSpec spec = posenc::RopeSpec::full(static_cast<int>(2 * state.range(0)), 1e6);
    for (auto _ : state) benchmark::DoNotOptimize(posenc::FrequencyTable::from_spec(spec));
}

}  // namespace

BENCHMARK(apply_stream)->Name("apply/stream")->Arg(64)->Arg(1024);
BENCHMARK(apply_reference)->Name("apply/reference")->Arg(64)->Arg(1024);
BENCHMARK(table_stream)->Name("table/stream")->Arg(64);
BENCHMARK(table_from_spec)->Name("table/from_spec")->Arg(64);

int main(int argc, char** argv) { return posenc_bench::run_with_ratios(argc, argv); }
