// SPDX-License-Identifier: MIT
// bench_towers: vision towers' RoPE on the SIMD kernels (posenc/kernels/tower_rope.hpp) against
// the streaming limit over the same bytes, in the same process.
//
// Names are GROUP/VARIANT/SHAPE; ratio_reporter.hpp divides each median by GROUP/stream/SHAPE.
//   groups    tower_f32, tower_bf16   one image of 64 x 64 patches: Q and K of 16 heads of 64
//                                     dims each (a ViT's attention), in place
//   variants  stream            x[i] *= c in place over the group's bytes, vectorised with the
//                               same xsimd arch as posenc (float over the same bytes for bf16)
//             axial_2d          the Qwen2-VL rule (rows_columns_shared): axial 2-D RoPE, half_split
//                               pairs, (row, column), one multi-axis pass
//             x_before_y        Muse Glimmer (columns_rows_offset_shared): (column + 1, row + 1)
//             interleaved_cls   Llama 4 (columns_rows_interleaved_cls): interleaved pairs over
//                               (column + 1, row + 1), a CLS token last (4097 tokens)
//             chunked           Gemma 4 (columns_rows_chunked): two passes over the head's halves
//             bands_partial     MiniMax-M3-VL (frames_rows_columns_partial): three bands of 10
//                               pairs over dims [0, 60), dims [60, 64) unrotated
//             alternating       Kimi K2.5 (columns_rows_alternating): the axis alternating pair by pair
//             window_interleaved  SAM 3's windowed layers: interleaved pairs, coordinates mod 16
//             real_interleaved  SAM 3's global layers: real coordinates (s column, s row), s = 1/4
//                               (CoordinateAngles rows)
//             real_centres      DINOv3 (rows_columns_centres): 2 pi x patch centres, 1 CLS and 4
//                               register tokens first (4101 tokens; CoordinateAngles rows)
// Every tower plan (TowerRope: positions and CosSinCache, or CoordinateAngles) is built once,
// outside the timed loop, as an engine builds it once per image and applies it in every layer.
// Compiled with -march=native. Numbers go to docs/benchmarks.md.
#include <posenc/kernels/tower_rope.hpp>
#include <posenc/vision_tower.hpp>

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "bench_tensors.hpp"
#include "ratio_reporter.hpp"

namespace {

namespace k = posenc::kernels;
using Arch = xsimd::default_arch;
using Rule = posenc::VisionTowerRule;

constexpr std::int64_t side = 64;
constexpr std::ptrdiff_t tower_heads = 16;
constexpr int tower_head_dim = 64;

using posenc_bench::random_tensor;
using posenc_bench::set_bytes;
using posenc_bench::Tensor;

void bench_stream(benchmark::State& state, std::size_t bytes)
{
    using vec = xsimd::batch<float, Arch>;
    Tensor<float> x = random_tensor<float>(bytes / sizeof(float));
    float c = 1.0f;
    benchmark::DoNotOptimize(c);
    for (auto _ : state) {
        const vec factor(c);
        std::size_t i = 0;
        for (; i + vec::size <= x.size(); i += vec::size)
            (vec::load_aligned(x.data() + i) * factor).store_aligned(x.data() + i);
        for (; i < x.size(); ++i) x[i] *= c;
        benchmark::ClobberMemory();
    }
    set_bytes(state, 2 * bytes);
}

posenc::VisionTower tower_of(Rule rule)
{
    posenc::VisionTower t;
    t.rule = rule;
    t.head_dim = tower_head_dim;
    t.theta = rule == Rule::columns_rows_chunked || rule == Rule::rows_columns_centres ? 100.0 : 10000.0;
    if (rule == Rule::columns_rows_interleaved_cls) t.max_side = side;
    if (rule == Rule::rows_columns_centres) t.prefix_tokens = 5;
    return t;
}

/// window > 0: SAM 3's windowed layers; scale != 1: its global layers.
template <class T>
void bench_tower(benchmark::State& state, posenc::VisionTower tower, int window = 0, double scale = 1.0)
{
    tower.window = window;
    tower.scale = scale;
    const k::TowerRope plan(tower, {1, side, side});
    const std::ptrdiff_t n = plan.tokens();
    Tensor<T> q = random_tensor<T>(static_cast<std::size_t>(n * tower_heads * tower_head_dim));
    Tensor<T> kk = random_tensor<T>(q.size());
    const auto views = k::QKViews<T>::in_place(k::HeadsView<T>(q, {n, tower_heads, tower_head_dim}),
                                               k::HeadsView<T>(kk, {n, tower_heads, tower_head_dim}));
    for (auto _ : state) {
        k::apply_tower_rope(plan, views);
        benchmark::ClobberMemory();
    }
    set_bytes(state, 2 * 2 * q.size() * sizeof(T));
}

template <class T>
void register_group(const std::string& group)
{
    const std::string shape = "/4096x(16+16)x64";
    const std::size_t bytes = 2 * static_cast<std::size_t>(side * side * tower_heads * tower_head_dim) * sizeof(T);
    const auto add = [&](const std::string& variant, auto f) {
        benchmark::RegisterBenchmark((group + "/" + variant + shape).c_str(), f);
    };
    add("stream", [bytes](benchmark::State& s) { bench_stream(s, bytes); });
    add("axial_2d", [](benchmark::State& s) { bench_tower<T>(s, tower_of(Rule::rows_columns_shared)); });
    add("x_before_y", [](benchmark::State& s) { bench_tower<T>(s, tower_of(Rule::columns_rows_offset_shared)); });
    add("interleaved_cls",
        [](benchmark::State& s) { bench_tower<T>(s, tower_of(Rule::columns_rows_interleaved_cls)); });
    add("chunked", [](benchmark::State& s) { bench_tower<T>(s, tower_of(Rule::columns_rows_chunked)); });
    add("bands_partial", [](benchmark::State& s) { bench_tower<T>(s, tower_of(Rule::frames_rows_columns_partial)); });
    add("alternating", [](benchmark::State& s) { bench_tower<T>(s, tower_of(Rule::columns_rows_alternating)); });
    add("window_interleaved",
        [](benchmark::State& s) { bench_tower<T>(s, tower_of(Rule::columns_rows_interleaved_scaled), 16); });
    add("real_interleaved",
        [](benchmark::State& s) { bench_tower<T>(s, tower_of(Rule::columns_rows_interleaved_scaled), 0, 0.25); });
    add("real_centres", [](benchmark::State& s) { bench_tower<T>(s, tower_of(Rule::rows_columns_centres)); });
}

}  // namespace

int main(int argc, char** argv)
{
    std::printf("posenc towers: xsimd arch %s (%d floats per register)\n", Arch::name(),
                static_cast<int>(xsimd::batch<float, Arch>::size));
    register_group<float>("tower_f32");
    register_group<posenc::bfloat16>("tower_bf16");
    return posenc_bench::run_with_ratios(argc, argv);
}
