// SPDX-License-Identifier: MIT
// bench_kernels: posenc's SIMD apply kernels and fused engine steps against the streaming limit
// and the usual ways of writing RoPE, on the same bytes in the same process.
//
// Names are GROUP/VARIANT/SHAPE; ratio_reporter.hpp divides each median by GROUP/stream/SHAPE.
//   groups    prefill_{f32,bf16,f16}   4096 tokens x 32 heads x 128 dims, Qwen3-8B (base 1e6)
//             partial_f32              the same, rotary_dim 64 of 128 (pass-through in place)
//             prefill_f32_2t           the float prefill split over 2 threads (partition.hpp)
//             decode_f32               1 token x 32 heads x 128
//             decode_gqa_f32           1 token, 32 query + 8 key heads in one call
//             decode_pair_f32          decode_f32's plain loop and posenc's three entry points
//                                      timed in alternating blocks of 64 calls (bench_decode_paired):
//                                      the counters *_vs_plain are medians of per-round ratios
//             fused_f32                4096 tokens, 32 Q + 8 K heads of 128: QK-norm + RoPE
//             cache_f32                4096 tokens, 8 K + 8 V heads of 128 into a paged cache
//                                      (blocks of 16 slots, blocks in shuffled order)
//             decode_step_f32          one token of Qwen3-8B: 32 Q + 8 K + 8 V heads, packed
//             mrope_f32                the float prefill shape with Qwen2-VL M-RoPE (sections
//                                      [16, 24, 24]): 1d_* is apply_rope on positions 0..4095,
//                                      mrope_image_* apply_multi_axis_rope on a prompt of 64 text
//                                      tokens, a 64 x 62 image grid (temporal 64, height 64 + row,
//                                      width 64 + column, as Qwen2-VL's get_rope_index assigns) and
//                                      text after it; mrope_text_* the same call with every axis
//                                      equal (a text-only prompt)
//             mrope_fused_f32          fused_f32's shape with Qwen3-VL's QK-norm + interleaved M-RoPE
//                                      (sections [24, 20, 20]) on mrope_f32's image prompt:
//                                      norm_mrope  qk_norm_rope with MultiAxisIds (one pass);
//                                      norm_then_mrope  qk_rms_norm then apply_multi_axis_rope (two
//                                      passes, the path without the fused multi-axis step);
//                                      norm_rope_1d  the 1-D fused step on positions 0..4095
//             mrope_cache_f32          the same Q and K, and V (8 heads), one prefill step into a
//                                      paged cache (cache_f32's slots): norm_mrope_cache
//                                      qk_norm_rope_into_cache with MultiAxisIds; norm_then_mrope_then_copy
//                                      qk_rms_norm, apply_multi_axis_rope, then the copy of K and V
//                                      into their slots; stream over Q, K and V
//             mla_decode_bf16          a DeepSeek-V3 MLA decode batch: 256 tokens (one per sequence)
//                                      of [c_kv 512 | k_pe 64] bfloat16 rows into a paged cache of
//                                      4,096 such rows (blocks of 16 in shuffled order): mla_cache
//                                      rope_into_cache with k_pe rotated into columns [512, 576)
//                                      and c_kv copied into [0, 512) (KvCacheView::in_rows);
//                                      copy_then_rope  memcpy of the rows, then apply_rope on each
//                                      token's k_pe in the cache (one call per token); copy_kv the
//                                      copy of the same rows alone in registers (inline, four
//                                      registers of the xsimd arch in flight: the baseline);
//                                      memcpy_kv the same copy by one memcpy per row
//   variants  stream      x[i] *= c in place over the group's bytes, vectorised with the same
//                         xsimd arch as posenc: the read-modify-write bandwidth limit. For
//                         16-bit groups it streams float over the same number of bytes.
//             memcpy      copy of the same bytes into another buffer (read + write)
//             scalar_*    a plain loop over tokens, heads and pairs with a precomputed cos/sin
//                         table (the layout of CosSinCache), compiled with the same flags
//             hf_*        the Hugging Face formulation: q*cos + rotate_half(q)*sin with each
//                         intermediate (q*cos, rotate_half(q), its product with sin, the sum)
//                         materialised as a full tensor, cos/sin given per token at full width
//             cache_*     posenc apply_rope with a CosSinCache (float rows)
//             otf_*       posenc apply_rope with OnTheFlyAngles (no O(N) table)
//             *_half / *_inter    pairing; *_pos0 positions 0..4095, *_pos1M 1,000,000..1,004,095
//             *_unchecked apply_rope_unchecked; dispatch_* the runtime-dispatched entry point
//             *_misaligned16 the tensor starts 16 bytes past a cache line (malloc's alignment)
//             plain_table_loop  decode: for each head, for i < 64: a = x[i]; b = x[i + 64];
//                         x[i] = a c_i - b s_i; x[i + 64] = b c_i + a s_i over a float cos/sin
//                         row (restrict pointers, vectorised by the compiler)
//             norm_rope   qk_norm_rope in place (one pass);  norm_then_rope  qk_rms_norm then
//                         apply_rope (two passes, the unfused engine)
//             copy_kv     memcpy of every token's K and V into its cache slot (no rotation);
//             rope_cache  rope_into_cache (K rotated into the cache, V copied, one pass; the
//                         default CacheStores::automatic, which streams these 32 MiB of rows);
//             rope_cache_cached  the same with CacheStores::cached (ordinary stores);
//             rope_then_copy  apply_rope on K in place, then copy_kv
//             qwen3_8b    qk_norm_rope_into_cache: norm + RoPE of Q in place, K normalised, rotated
//                         and V copied into a paged cache of 4,096 slots
//             hand_avx512_floor  the same step hand-written in AVX-512 intrinsics for exactly this
//                         shape (head_dim 128, half_split, one token, weights w), no checks, no
//                         dispatch: per head 8 loads, the sum of squares, one horizontal add,
//                         1 / sqrt, and the rotation with the weights folded into cos and sin.
//                         A floor for the step on this machine, not a general kernel (registered
//                         only when compiled for AVX-512; its output is compared with posenc's
//                         before timing)
// Every variant reports bytes/s of (read + written) tensor bytes. Tensors are 64-byte aligned
// (CacheLineAllocator) unless a name says otherwise. Positions as stated; inputs
// uniform in [-1, 1); all in place except memcpy and hf_*. Compiled with -march=native so that
// posenc's default arch (xsimd::default_arch) is the build machine's best.
#include <posenc/kernels.hpp>
#include <posenc/kernels/dispatch.hpp>
#include <posenc/kernels/fused_dispatch.hpp>
#include <posenc/kernels/multi_axis.hpp>
#include <posenc/multi_axis.hpp>

#include <benchmark/benchmark.h>
#include <xsimd/xsimd.hpp>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench_tensors.hpp"
#include "ratio_reporter.hpp"

namespace {

namespace k = posenc::kernels;
using Arch = xsimd::default_arch;

constexpr std::ptrdiff_t prefill_tokens = 4096;
constexpr std::ptrdiff_t heads = 32;
constexpr std::ptrdiff_t kv_heads = 8;
constexpr std::ptrdiff_t head_dim = 128;
constexpr std::int64_t long_start = 1000000;

struct Model {
    posenc::RopeSpec spec;
    posenc::FrequencyTable table;
    explicit Model(int rotary_dim, posenc::Pairing pairing)
        : spec(head_dim, rotary_dim, 1e6, pairing), table(posenc::FrequencyTable::from_spec(spec))
    {}
};

/// Angle sources, built once per (rotary_dim, pairing): caches for [0, 4096) and [1e6, 1e6 + 4096).
struct Angles {
    k::CosSinCache short_cache;
    k::CosSinCache long_cache;
    k::OnTheFlyAngles on_the_fly;
    explicit Angles(const posenc::FrequencyTable& table)
        : short_cache(table, prefill_tokens), long_cache(table, prefill_tokens, long_start), on_the_fly(table)
    {}
};

const Angles& angles_for(const posenc::FrequencyTable& table)
{
    static std::vector<std::pair<std::vector<double>, std::unique_ptr<Angles>>> memo;
    for (auto& entry : memo)
        if (entry.first == table.inv_freq()) return *entry.second;
    memo.emplace_back(table.inv_freq(), std::make_unique<Angles>(table));
    return *memo.back().second;
}

using posenc_bench::random_tensor;
using posenc_bench::set_bytes;
using posenc_bench::Tensor;

/// Runs f(range) over [0, tokens) on `threads` threads (the caller's thread takes the first part).
template <class F>
void on_threads(std::ptrdiff_t tokens, int threads, F&& f)
{
    if (threads <= 1) {
        f(k::TokenRange {0, tokens});
        return;
    }
    std::vector<std::thread> pool;
    for (int p = 1; p < threads; ++p) pool.emplace_back([&, p] { f(k::token_range_of_part(tokens, p, threads)); });
    f(k::token_range_of_part(tokens, 0, threads));
    for (std::thread& t : pool) t.join();
}

// ---- baselines -------------------------------------------------------------------------------

void stream_floats(float* x, std::size_t n, float c)
{
    using vec = xsimd::batch<float, Arch>;
    constexpr std::size_t lanes = vec::size;
    const vec factor(c);
    std::size_t i = 0;
    for (; i + lanes <= n; i += lanes) (vec::load_unaligned(x + i) * factor).store_unaligned(x + i);
    for (; i < n; ++i) x[i] *= c;
}

void bench_stream(benchmark::State& state, std::size_t bytes, int threads)
{
    Tensor<float> x = random_tensor<float>(bytes / sizeof(float));
    float c = 1.0f;
    benchmark::DoNotOptimize(c);
    const std::ptrdiff_t rows = static_cast<std::ptrdiff_t>(x.size() / 128);
    for (auto _ : state) {
        on_threads(rows, threads, [&](k::TokenRange r) {
            stream_floats(x.data() + r.begin * 128, static_cast<std::size_t>(r.size()) * 128, c);
        });
        benchmark::ClobberMemory();
    }
    set_bytes(state, 2 * bytes);
}

void bench_memcpy(benchmark::State& state, std::size_t bytes)
{
    Tensor<char> a(bytes, 1), b(bytes, 0);
    for (auto _ : state) {
        std::memcpy(b.data(), a.data(), bytes);
        benchmark::DoNotOptimize(b.data());
        benchmark::ClobberMemory();
    }
    set_bytes(state, 2 * bytes);
}

/// The plain loop: per token, per head, per pair, table row in CosSinCache's layout.
template <class T>
void scalar_rope(T* x, std::ptrdiff_t tokens, std::ptrdiff_t n_heads, const posenc::RopeSpec& spec,
                 const k::CosSinCache& cache, std::int64_t start)
{
    const int pairs = spec.num_pairs();
    for (std::ptrdiff_t t = 0; t < tokens; ++t) {
        const float* c = cache.cos_row(start + t);
        const float* s = cache.sin_row(start + t);
        for (std::ptrdiff_t h = 0; h < n_heads; ++h) {
            T* head = x + (t * n_heads + h) * head_dim;
            for (int i = 0; i < pairs; ++i) {
                const posenc::PairCoordinates p = spec.pair_coordinates(i);
                const float a = posenc::load_as_float(head[p.first]);
                const float b = posenc::load_as_float(head[p.second]);
                head[p.first] = posenc::store_from_float<T>(a * c[i] - b * s[i]);
                head[p.second] = posenc::store_from_float<T>(b * c[i] + a * s[i]);
            }
        }
    }
}

/// The Hugging Face formulation with materialised temporaries (out of place, like torch):
///   cos/sin [tokens, rotary] at full width (cat(freqs, freqs) or pairwise repeat), then
///   t1 = q * cos; r = rotate_half(q); t2 = r * sin; out = t1 + t2; pass-through copied.
/// Each step is one pass over a full tensor in the storage type, as torch ops are.
template <class T>
struct HfBuffers {
    Tensor<T> cos, sin, t1, r, t2, out;
};

template <class T>
void hf_rope(const T* q, std::ptrdiff_t tokens, std::ptrdiff_t n_heads, const posenc::RopeSpec& spec,
             const k::CosSinCache& cache, std::int64_t start, HfBuffers<T>& b)
{
    const int rot = spec.rotary_dim(), half = rot / 2;
    const bool half_split = spec.pairing() == posenc::Pairing::half_split;
    for (std::ptrdiff_t t = 0; t < tokens; ++t) {  // position_embeddings: (cos, sin) of shape [tokens, rot]
        const float* c = cache.cos_row(start + t);
        const float* s = cache.sin_row(start + t);
        for (int j = 0; j < rot; ++j) {
            const int i = half_split ? j % half : j / 2;
            b.cos[static_cast<std::size_t>(t * rot + j)] = posenc::store_from_float<T>(c[i]);
            b.sin[static_cast<std::size_t>(t * rot + j)] = posenc::store_from_float<T>(s[i]);
        }
    }
    auto f = [](T v) { return posenc::load_as_float(v); };
    auto row = [&](std::ptrdiff_t t, std::ptrdiff_t h) {
        return static_cast<std::size_t>((t * n_heads + h) * head_dim);
    };
    for (std::ptrdiff_t t = 0; t < tokens; ++t)  // t1 = q[..., :rot] * cos
        for (std::ptrdiff_t h = 0; h < n_heads; ++h)
            for (int j = 0; j < rot; ++j)
                b.t1[row(t, h) + j] =
                    posenc::store_from_float<T>(f(q[row(t, h) + j]) * f(b.cos[static_cast<std::size_t>(t * rot + j)]));
    for (std::ptrdiff_t t = 0; t < tokens; ++t)  // r = rotate_half(q) (or rotate_every_two)
        for (std::ptrdiff_t h = 0; h < n_heads; ++h)
            for (int j = 0; j < rot; ++j) {
                const float v = half_split ? (j < half ? -f(q[row(t, h) + j + half]) : f(q[row(t, h) + j - half]))
                                           : (j % 2 == 0 ? -f(q[row(t, h) + j + 1]) : f(q[row(t, h) + j - 1]));
                b.r[row(t, h) + j] = posenc::store_from_float<T>(v);
            }
    for (std::ptrdiff_t t = 0; t < tokens; ++t)  // t2 = r * sin
        for (std::ptrdiff_t h = 0; h < n_heads; ++h)
            for (int j = 0; j < rot; ++j)
                b.t2[row(t, h) + j] = posenc::store_from_float<T>(f(b.r[row(t, h) + j]) *
                                                                  f(b.sin[static_cast<std::size_t>(t * rot + j)]));
    for (std::ptrdiff_t t = 0; t < tokens; ++t)  // out = cat(t1 + t2, q[..., rot:])
        for (std::ptrdiff_t h = 0; h < n_heads; ++h) {
            for (int j = 0; j < rot; ++j)
                b.out[row(t, h) + j] = posenc::store_from_float<T>(f(b.t1[row(t, h) + j]) + f(b.t2[row(t, h) + j]));
            for (int j = rot; j < head_dim; ++j) b.out[row(t, h) + j] = q[row(t, h) + j];
        }
}

// ---- benchmark bodies --------------------------------------------------------------------------

enum class Source { cache, on_the_fly };

template <class T>
void bench_posenc(benchmark::State& state, const Model& model, Source source, std::int64_t start, std::ptrdiff_t tokens,
                  int threads)
{
    const Angles& angles = angles_for(model.table);
    Tensor<T> x = random_tensor<T>(static_cast<std::size_t>(tokens * heads * head_dim));
    const auto views = k::QKViews<T>::in_place(k::HeadsView<T>(x, {tokens, heads, head_dim}));
    const k::PositionIds positions = k::PositionIds::contiguous(start);
    const k::CosSinCache& cache = start == 0 ? angles.short_cache : angles.long_cache;
    for (auto _ : state) {
        on_threads(tokens, threads, [&](k::TokenRange r) {
            if (source == Source::cache) k::apply_rope(model.spec, cache, positions, views, k::Direction::forward, r);
            else k::apply_rope(model.spec, angles.on_the_fly, positions, views, k::Direction::forward, r);
        });
        benchmark::ClobberMemory();
    }
    set_bytes(state, 2 * x.size() * sizeof(T));
}

template <class T>
void bench_scalar(benchmark::State& state, const Model& model, std::ptrdiff_t tokens, std::ptrdiff_t n_heads)
{
    const Angles& angles = angles_for(model.table);
    Tensor<T> x = random_tensor<T>(static_cast<std::size_t>(tokens * n_heads * head_dim));
    for (auto _ : state) {
        scalar_rope(x.data(), tokens, n_heads, model.spec, angles.short_cache, 0);
        benchmark::ClobberMemory();
    }
    set_bytes(state, 2 * x.size() * sizeof(T));
}

template <class T>
void bench_hf(benchmark::State& state, const Model& model, std::ptrdiff_t tokens, std::ptrdiff_t n_heads)
{
    const Angles& angles = angles_for(model.table);
    const Tensor<T> q = random_tensor<T>(static_cast<std::size_t>(tokens * n_heads * head_dim));
    HfBuffers<T> b;
    const std::size_t rot_elems = static_cast<std::size_t>(tokens * model.spec.rotary_dim());
    b.cos.resize(rot_elems);
    b.sin.resize(rot_elems);
    for (auto* v : {&b.t1, &b.r, &b.t2, &b.out}) v->resize(q.size());
    for (auto _ : state) {
        hf_rope(q.data(), tokens, n_heads, model.spec, angles.short_cache, 0, b);
        benchmark::DoNotOptimize(b.out.data());
        benchmark::ClobberMemory();
    }
    set_bytes(state, 2 * q.size() * sizeof(T));
}

/// M-RoPE positions [tokens][3] of a Qwen2-VL prompt: `text` tokens, a rows x cols image grid
/// (temporal = first image position, height and width offset by it, as get_rope_index does),
/// then text continuing from the largest position + 1. With image = false every token is text.
std::vector<std::int32_t> mrope_positions(std::ptrdiff_t tokens, bool image)
{
    const std::ptrdiff_t text = 64, rows = 64, cols = 62;
    std::vector<std::int32_t> p(static_cast<std::size_t>(tokens * 3));
    std::int32_t next = 0;
    for (std::ptrdiff_t t = 0; t < tokens; ++t) {
        std::int32_t* row = p.data() + t * 3;
        const std::ptrdiff_t v = t - text;
        if (image && v >= 0 && v < rows * cols) {
            const std::int32_t start = static_cast<std::int32_t>(text);
            row[0] = start;
            row[1] = start + static_cast<std::int32_t>(v / cols);
            row[2] = start + static_cast<std::int32_t>(v % cols);
            next = start + static_cast<std::int32_t>(std::max(rows, cols));
        } else {
            row[0] = row[1] = row[2] = next++;
        }
    }
    return p;
}

template <class T>
void bench_mrope(benchmark::State& state, const Model& model, Source source, bool image)
{
    const Angles& angles = angles_for(model.table);
    static const posenc::MultiAxisLayout layout = posenc::MultiAxisLayout::sections({16, 24, 24}, head_dim / 2);
    Tensor<T> x = random_tensor<T>(static_cast<std::size_t>(prefill_tokens * heads * head_dim));
    const auto views = k::QKViews<T>::in_place(k::HeadsView<T>(x, {prefill_tokens, heads, head_dim}));
    const std::vector<std::int32_t> ids = mrope_positions(prefill_tokens, image);
    const k::MultiAxisPositions positions(ids, 3);
    for (auto _ : state) {
        if (source == Source::cache) k::apply_multi_axis_rope(model.spec, layout, angles.short_cache, positions, views);
        else k::apply_multi_axis_rope(model.spec, layout, angles.on_the_fly, positions, views);
        benchmark::ClobberMemory();
    }
    set_bytes(state, 2 * x.size() * sizeof(T));
}

/// Decode: one token, Q (32 heads) and optionally K (8 heads) in one call, in place.
enum class DecodeEntry { checked, unchecked, dispatched };

void bench_decode(benchmark::State& state, const Model& model, Source source, bool with_k, DecodeEntry entry,
                  std::ptrdiff_t misalign = 0)
{
    const Angles& angles = angles_for(model.table);
    Tensor<float> q = random_tensor<float>(heads * head_dim + 16), kk = random_tensor<float>(kv_heads * head_dim);
    const auto views = k::QKViews<float>::in_place(
        k::HeadsView<float>(q.data() + misalign, static_cast<std::ptrdiff_t>(q.size()) - misalign,
                            {1, heads, head_dim}),
        with_k ? k::HeadsView<float>(kk, {1, kv_heads, head_dim}) : k::HeadsView<float> {});
    const std::int64_t position = source == Source::cache ? prefill_tokens - 1 : long_start;
    const k::PositionIds positions = k::PositionIds::contiguous(position);
    const k::TokenRange all {0, 1};
    for (auto _ : state) {
        if (source == Source::cache) {
            if (entry == DecodeEntry::checked) k::apply_rope(model.spec, angles.short_cache, positions, views);
            else if (entry == DecodeEntry::unchecked)
                k::apply_rope_unchecked(model.spec, angles.short_cache, positions, views, k::Direction::forward, all);
            else k::dispatch::apply_rope(model.spec, angles.short_cache, positions, views);
        } else {
            if (entry == DecodeEntry::checked) k::apply_rope(model.spec, angles.on_the_fly, positions, views);
            else if (entry == DecodeEntry::unchecked)
                k::apply_rope_unchecked(model.spec, angles.on_the_fly, positions, views, k::Direction::forward, all);
            else k::dispatch::apply_rope(model.spec, angles.on_the_fly, positions, views);
        }
        benchmark::ClobberMemory();
    }
    set_bytes(state, 2 * (heads * head_dim + (with_k ? kk.size() : 0)) * sizeof(float));
}

void bench_decode_scalar(benchmark::State& state, const Model& model, bool with_k, bool hf)
{
    const Angles& angles = angles_for(model.table);
    Tensor<float> q = random_tensor<float>(heads * head_dim), kk = random_tensor<float>(kv_heads * head_dim);
    HfBuffers<float> bq, bk;
    for (HfBuffers<float>* b : {&bq, &bk}) {
        b->cos.resize(head_dim);
        b->sin.resize(head_dim);
        for (auto* v : {&b->t1, &b->r, &b->t2, &b->out}) v->resize(heads * head_dim);
    }
    for (auto _ : state) {
        if (hf) {
            hf_rope(q.data(), 1, heads, model.spec, angles.short_cache, prefill_tokens - 1, bq);
            if (with_k) hf_rope(kk.data(), 1, kv_heads, model.spec, angles.short_cache, prefill_tokens - 1, bk);
        } else {
            scalar_rope(q.data(), 1, heads, model.spec, angles.short_cache, prefill_tokens - 1);
            if (with_k) scalar_rope(kk.data(), 1, kv_heads, model.spec, angles.short_cache, prefill_tokens - 1);
        }
        benchmark::DoNotOptimize(bq.out.data());
        benchmark::ClobberMemory();
    }
    set_bytes(state, 2 * (q.size() + (with_k ? kk.size() : 0)) * sizeof(float));
}

/// The 10-line loop an engine would write for one decode token: 32 heads of 128, half_split,
/// a float cos/sin row (CosSinCache's layout).
void plain_table_loop(float* __restrict x, const float* __restrict c, const float* __restrict s)
{
    for (int h = 0; h < 32; ++h, x += 128)
        for (int i = 0; i < 64; ++i) {
            const float a = x[i], b = x[i + 64];
            x[i] = a * c[i] - b * s[i];
            x[i + 64] = b * c[i] + a * s[i];
        }
}

void bench_plain_table_loop(benchmark::State& state, const Model& model)
{
    const Angles& angles = angles_for(model.table);
    Tensor<float> q = random_tensor<float>(heads * head_dim);
    const std::int64_t position = prefill_tokens - 1;
    for (auto _ : state) {
        plain_table_loop(q.data(), angles.short_cache.cos_row(position), angles.short_cache.sin_row(position));
        benchmark::ClobberMemory();
    }
    set_bytes(state, 2 * q.size() * sizeof(float));
}

/// Decode, paired with the plain loop: each round times a block of calls of the plain loop and of
/// each posenc entry point (checked, unchecked, dispatched) back to back, in an order that
/// rotates from round to round, on the same tensor; the counters are the medians over the rounds
/// of each entry's block time divided by the plain loop's block time of the same round. Blocks
/// a few microseconds apart see the same machine state (clock, other tenants), so these ratios
/// do not move with the slow phases of a shared machine the way a ratio of two separately
/// measured medians does.
void bench_decode_paired(benchmark::State& state, const Model& model)
{
    const Angles& angles = angles_for(model.table);
    Tensor<float> q = random_tensor<float>(heads * head_dim);
    const auto views = k::QKViews<float>::in_place(k::HeadsView<float>(q, {1, heads, head_dim}));
    const std::int64_t position = prefill_tokens - 1;
    const k::PositionIds positions = k::PositionIds::contiguous(position);
    const k::TokenRange all {0, 1};
    const float* cos = angles.short_cache.cos_row(position);
    const float* sin = angles.short_cache.sin_row(position);
    constexpr int block = 64;
    auto time_block = [&](int variant) {
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < block; ++i) {
            switch (variant) {
            case 0: plain_table_loop(q.data(), cos, sin); break;
            case 1: k::apply_rope(model.spec, angles.short_cache, positions, views); break;
            case 2:
                k::apply_rope_unchecked(model.spec, angles.short_cache, positions, views, k::Direction::forward, all);
                break;
            default: k::dispatch::apply_rope(model.spec, angles.short_cache, positions, views); break;
            }
            benchmark::ClobberMemory();
        }
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    std::vector<double> ratios[3];
    int round = 0;
    for (auto _ : state) {
        double seconds[4];
        for (int i = 0; i < 4; ++i) {
            const int variant = (i + round) % 4;
            seconds[variant] = time_block(variant);
        }
        for (int v = 0; v < 3; ++v) ratios[v].push_back(seconds[v + 1] / seconds[0]);
        ++round;
    }
    auto median = [](std::vector<double>& x) {
        if (x.empty()) return 0.0;
        std::nth_element(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(x.size() / 2), x.end());
        return x[x.size() / 2];
    };
    state.counters["checked_vs_plain"] = median(ratios[0]);
    state.counters["unchecked_vs_plain"] = median(ratios[1]);
    state.counters["dispatch_vs_plain"] = median(ratios[2]);
    set_bytes(state, 4 * block * 2 * q.size() * sizeof(float));
}

/// QK-norm + RoPE over 4096 tokens, 32 Q + 8 K heads, in place; weights 1 (so repeated runs stay
/// normalised) and eps 1e-6.
void bench_fused(benchmark::State& state, const Model& model, bool fused)
{
    const Angles& angles = angles_for(model.table);
    Tensor<float> q = random_tensor<float>(prefill_tokens * heads * head_dim);
    Tensor<float> kk = random_tensor<float>(prefill_tokens * kv_heads * head_dim);
    const std::vector<float> weight(head_dim, 1.0f);
    const k::QkNorm norm {k::NormWeighting::weight, 1e-6f, weight, weight};
    const auto views = k::QKViews<float>::in_place(k::HeadsView<float>(q, {prefill_tokens, heads, head_dim}),
                                                   k::HeadsView<float>(kk, {prefill_tokens, kv_heads, head_dim}));
    const k::PositionIds positions = k::PositionIds::contiguous(0);
    for (auto _ : state) {
        if (fused) {
            k::qk_norm_rope(model.spec, norm, angles.short_cache, positions, views);
        } else {
            k::qk_rms_norm(model.spec, norm, views);
            k::apply_rope(model.spec, angles.short_cache, positions, views);
        }
        benchmark::ClobberMemory();
    }
    set_bytes(state, 2 * (q.size() + kk.size()) * sizeof(float));
}

/// K and V of 4096 tokens (8 heads of 128 each) and a paged float cache of 256 blocks of 16 slots;
/// token t goes to slot block_order[t / 16] * 16 + t % 16 (blocks in shuffled order).
struct CacheBench {
    Tensor<float> k = random_tensor<float>(prefill_tokens * kv_heads * head_dim);
    Tensor<float> v = random_tensor<float>(prefill_tokens * kv_heads * head_dim);
    Tensor<float> key_cache = Tensor<float>(prefill_tokens * kv_heads * head_dim);
    Tensor<float> value_cache = Tensor<float>(prefill_tokens * kv_heads * head_dim);
    std::vector<std::int32_t> slots;
    CacheBench()
    {
        std::vector<std::int32_t> order(prefill_tokens / 16);
        for (std::size_t b = 0; b < order.size(); ++b) order[b] = static_cast<std::int32_t>(b);
        std::shuffle(order.begin(), order.end(), std::mt19937(3));
        for (std::int32_t t = 0; t < prefill_tokens; ++t)
            slots.push_back(order[static_cast<std::size_t>(t / 16)] * 16 + t % 16);
    }
    void copy_kv()
    {
        constexpr std::size_t row = kv_heads * head_dim;
        for (std::size_t t = 0; t < slots.size(); ++t) {
            const std::int32_t s = slots[t];
            if (s < 0) continue;
            std::memcpy(key_cache.data() + static_cast<std::size_t>(s) * row, k.data() + t * row, row * sizeof(float));
            std::memcpy(value_cache.data() + static_cast<std::size_t>(s) * row, v.data() + t * row,
                        row * sizeof(float));
        }
    }
};

enum class CacheVariant { copy_kv, rope_cache, rope_cache_cached, rope_then_copy };

void bench_cache(benchmark::State& state, const Model& model, CacheVariant variant)
{
    const Angles& angles = angles_for(model.table);
    CacheBench b;
    k::CacheWrite<float> write;
    write.k = k::HeadsView<float>(b.k, {prefill_tokens, kv_heads, head_dim});
    write.v = k::HeadsView<float>(b.v, {prefill_tokens, kv_heads, head_dim});
    write.key_cache = k::KvCacheView::paged(b.key_cache.data(), static_cast<std::ptrdiff_t>(b.key_cache.size()),
                                            prefill_tokens / 16, 16, kv_heads, head_dim);
    write.value_cache = k::KvCacheView::paged(b.value_cache.data(), static_cast<std::ptrdiff_t>(b.value_cache.size()),
                                              prefill_tokens / 16, 16, kv_heads, head_dim);
    write.slot_mapping = k::SlotMapping(b.slots);
    if (variant == CacheVariant::rope_cache_cached) write.stores = k::CacheStores::cached;
    const auto k_views = k::QKViews<float>::in_place(k::HeadsView<float>(b.k, {prefill_tokens, kv_heads, head_dim}));
    const k::PositionIds positions = k::PositionIds::contiguous(0);
    for (auto _ : state) {
        if (variant == CacheVariant::copy_kv) {
            b.copy_kv();
        } else if (variant == CacheVariant::rope_cache || variant == CacheVariant::rope_cache_cached) {
            k::rope_into_cache(model.spec, angles.short_cache, positions, write);  // automatic: streams 32 MiB
        } else {
            k::apply_rope(model.spec, angles.short_cache, positions, k_views);
            b.copy_kv();
        }
        benchmark::ClobberMemory();
    }
    set_bytes(state, 2 * (b.k.size() + b.v.size()) * sizeof(float));
}

/// One decode step of a Qwen3-8B layer: packed QKV of one token (32 + 8 + 8 heads of 128),
/// qk_norm_rope_into_cache into a paged float cache (256 blocks of 16 slots), position 4095.
void bench_decode_step(benchmark::State& state, const Model& model)
{
    const Angles& angles = angles_for(model.table);
    Tensor<float> qkv = random_tensor<float>((heads + 2 * kv_heads) * head_dim);
    Tensor<float> key_cache(prefill_tokens * kv_heads * head_dim), value_cache(prefill_tokens * kv_heads * head_dim);
    const std::vector<float> weight(head_dim, 1.0f);
    const k::QkNorm norm {k::NormWeighting::weight, 1e-6f, weight, weight};
    const k::PackedQkv<float> p = k::slice_packed_qkv(qkv.data(), static_cast<std::ptrdiff_t>(qkv.size()),
                                                      k::PackedQkvShape {1, heads, kv_heads, head_dim});
    const std::int64_t slot = prefill_tokens - 1;
    k::CacheWrite<float> write;
    write.q_in = p.q;
    write.q_out = p.q;
    write.k = p.k;
    write.v = p.v;
    write.key_cache = k::KvCacheView::paged(key_cache.data(), static_cast<std::ptrdiff_t>(key_cache.size()),
                                            prefill_tokens / 16, 16, kv_heads, head_dim);
    write.value_cache = k::KvCacheView::paged(value_cache.data(), static_cast<std::ptrdiff_t>(value_cache.size()),
                                              prefill_tokens / 16, 16, kv_heads, head_dim);
    write.slot_mapping = k::SlotMapping(&slot, 1);
    const k::PositionIds positions = k::PositionIds::contiguous(prefill_tokens - 1);
    for (auto _ : state) {
        k::qk_norm_rope_into_cache(model.spec, norm, angles.short_cache, positions, write);
        benchmark::ClobberMemory();
    }
    set_bytes(state, (2 * heads + 4 * kv_heads) * head_dim * sizeof(float));
}

#if defined(__AVX512F__)
namespace hand_avx512 {

/// One decode step of the bench_decode_step shape, written out for AVX-512: Q (32 heads) normalised
/// and rotated in place, K (8 heads) normalised and rotated into its cache slot, V copied.
__attribute__((noinline)) void decode_step(float* qkv, float* key_slot, float* value_slot, const float* cos,
                                           const float* sin, const float* q_weight, const float* k_weight, float eps)
{
    auto tensor = [&](const float* x, float* y, int n_heads, const float* w) {
        __m512 cw_a[4], sw_b[4], cw_b[4], sw_a[4];
        for (int k = 0; k < 4; ++k) {
            const __m512 c = _mm512_loadu_ps(cos + 16 * k), s = _mm512_loadu_ps(sin + 16 * k);
            const __m512 w_a = _mm512_loadu_ps(w + 16 * k), w_b = _mm512_loadu_ps(w + 64 + 16 * k);
            cw_a[k] = _mm512_mul_ps(c, w_a);
            sw_b[k] = _mm512_mul_ps(s, w_b);
            cw_b[k] = _mm512_mul_ps(c, w_b);
            sw_a[k] = _mm512_mul_ps(s, w_a);
        }
        for (int h = 0; h < n_heads; ++h, x += head_dim, y += head_dim) {
            __m512 v[8];
            for (int k = 0; k < 8; ++k) v[k] = _mm512_load_ps(x + 16 * k);
            __m512 acc[4];
            for (int k = 0; k < 4; ++k) acc[k] = _mm512_fmadd_ps(v[k + 4], v[k + 4], _mm512_mul_ps(v[k], v[k]));
            const __m512 t = _mm512_add_ps(_mm512_add_ps(acc[0], acc[1]), _mm512_add_ps(acc[2], acc[3]));
            // 16 lanes to one: halves added (zero-masking extracts: GCC 12 warns on the plain ones and the cast, bug 105593)
            const __m256 t8 =
                _mm256_add_ps(_mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xFF, _mm512_castps_pd(t), 0)),
                              _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xFF, _mm512_castps_pd(t), 1)));
            const __m128 t4 = _mm_add_ps(_mm256_castps256_ps128(t8), _mm256_extractf128_ps(t8, 1));
            const __m128 t2 = _mm_add_ps(t4, _mm_movehl_ps(t4, t4));
            const float sum = _mm_cvtss_f32(_mm_add_ss(t2, _mm_shuffle_ps(t2, t2, 1)));
            const __m512 r = _mm512_set1_ps(1.0f / std::sqrt(sum / static_cast<float>(head_dim) + eps));
            for (int k = 0; k < 4; ++k) {
                const __m512 a = v[k], b = v[k + 4];
                _mm512_store_ps(y + 16 * k, _mm512_mul_ps(r, _mm512_fmsub_ps(a, cw_a[k], _mm512_mul_ps(b, sw_b[k]))));
                _mm512_store_ps(y + 64 + 16 * k,
                                _mm512_mul_ps(r, _mm512_fmadd_ps(b, cw_b[k], _mm512_mul_ps(a, sw_a[k]))));
            }
        }
    };
    tensor(qkv, qkv, heads, q_weight);
    tensor(qkv + heads * head_dim, key_slot, kv_heads, k_weight);
    const float* v = qkv + (heads + kv_heads) * head_dim;
    for (int i = 0; i < kv_heads * head_dim; i += 16) _mm512_store_ps(value_slot + i, _mm512_load_ps(v + i));
}

}  // namespace hand_avx512

/// The hand-written step on the buffers of bench_decode_step; checked once against posenc's
/// result (relative 1e-5 of each head's norm) before timing.
void bench_decode_step_floor(benchmark::State& state, const Model& model)
{
    const Angles& angles = angles_for(model.table);
    const std::size_t qkv_size = (heads + 2 * kv_heads) * head_dim, cache_size = prefill_tokens * kv_heads * head_dim;
    const Tensor<float> qkv0 = random_tensor<float>(qkv_size);
    Tensor<float> qkv = qkv0, key_cache(cache_size), value_cache(cache_size);
    const std::vector<float> weight(head_dim, 1.0f);
    const std::int64_t position = prefill_tokens - 1, slot = position;  // slot 4095: the last of block 255
    const std::size_t slot_offset = static_cast<std::size_t>(slot) * kv_heads * head_dim;
    const float* cos = angles.short_cache.cos_row(position);
    const float* sin = angles.short_cache.sin_row(position);
    {  // the floor must compute the step: compare one call with posenc's
        Tensor<float> ref = qkv0, ref_keys(cache_size), ref_values(cache_size);
        const k::QkNorm norm {k::NormWeighting::weight, 1e-6f, weight, weight};
        const k::PackedQkv<float> p = k::slice_packed_qkv(ref.data(), static_cast<std::ptrdiff_t>(ref.size()),
                                                          k::PackedQkvShape {1, heads, kv_heads, head_dim});
        k::CacheWrite<float> write;
        write.q_in = p.q;
        write.q_out = p.q;
        write.k = p.k;
        write.v = p.v;
        write.key_cache = k::KvCacheView::paged(ref_keys.data(), static_cast<std::ptrdiff_t>(cache_size),
                                                prefill_tokens / 16, 16, kv_heads, head_dim);
        write.value_cache = k::KvCacheView::paged(ref_values.data(), static_cast<std::ptrdiff_t>(cache_size),
                                                  prefill_tokens / 16, 16, kv_heads, head_dim);
        write.slot_mapping = k::SlotMapping(&slot, 1);
        k::qk_norm_rope_into_cache(model.spec, norm, angles.short_cache, k::PositionIds::contiguous(position), write);
        Tensor<float> got = qkv0;
        hand_avx512::decode_step(got.data(), key_cache.data() + slot_offset, value_cache.data() + slot_offset, cos, sin,
                                 weight.data(), weight.data(), 1e-6f);
        double worst = 0.0;
        for (std::size_t i = 0; i < heads * head_dim; ++i) worst = std::max(worst, std::fabs(double(got[i]) - ref[i]));
        for (std::size_t i = 0; i < kv_heads * head_dim; ++i) {
            worst = std::max(worst, std::fabs(double(key_cache[slot_offset + i]) - ref_keys[slot_offset + i]));
            worst = std::max(worst, std::fabs(double(value_cache[slot_offset + i]) - ref_values[slot_offset + i]));
        }
        if (worst > 1e-5 * std::sqrt(double(head_dim))) {  // normalised heads: |y| = sqrt(head_dim)
            state.SkipWithError("hand_avx512_floor differs from qk_norm_rope_into_cache");
            return;
        }
    }
    for (auto _ : state) {
        hand_avx512::decode_step(qkv.data(), key_cache.data() + slot_offset, value_cache.data() + slot_offset, cos, sin,
                                 weight.data(), weight.data(), 1e-6f);
        benchmark::ClobberMemory();
    }
    set_bytes(state, (2 * heads + 4 * kv_heads) * head_dim * sizeof(float));
}
#endif

void add(const std::string& name, std::function<void(benchmark::State&)> body);

// ---- multi-axis fused steps, MLA cache rows -------------------------------------------------

/// Qwen3-VL's M-RoPE layout for head_dim 128 (sections [24, 20, 20], interleaved).
const posenc::MultiAxisLayout& qwen3_vl_layout()
{
    static const posenc::MultiAxisLayout layout = posenc::MultiAxisLayout::interleaved({24, 20, 20}, head_dim / 2);
    return layout;
}

enum class MropeVariant { fused, two_pass, one_d };

/// QK-norm + M-RoPE over 4096 tokens of mrope_f32's image prompt, 32 Q + 8 K heads in place.
void bench_fused_mrope(benchmark::State& state, const Model& model, MropeVariant variant)
{
    const Angles& angles = angles_for(model.table);
    Tensor<float> q = random_tensor<float>(prefill_tokens * heads * head_dim);
    Tensor<float> kk = random_tensor<float>(prefill_tokens * kv_heads * head_dim);
    const std::vector<float> weight(head_dim, 1.0f);
    const k::QkNorm norm {k::NormWeighting::weight, 1e-6f, weight, weight};
    const auto views = k::QKViews<float>::in_place(k::HeadsView<float>(q, {prefill_tokens, heads, head_dim}),
                                                   k::HeadsView<float>(kk, {prefill_tokens, kv_heads, head_dim}));
    const std::vector<std::int32_t> ids = mrope_positions(prefill_tokens, true);
    const k::MultiAxisPositions positions(ids, 3);
    const k::MultiAxisIds axis_ids(qwen3_vl_layout(), positions);
    for (auto _ : state) {
        if (variant == MropeVariant::fused) {
            k::qk_norm_rope(model.spec, norm, angles.short_cache, axis_ids, views);
        } else if (variant == MropeVariant::two_pass) {
            k::qk_rms_norm(model.spec, norm, views);
            k::apply_multi_axis_rope(model.spec, qwen3_vl_layout(), angles.short_cache, positions, views);
        } else {
            k::qk_norm_rope(model.spec, norm, angles.short_cache, k::PositionIds::contiguous(0), views);
        }
        benchmark::ClobberMemory();
    }
    set_bytes(state, 2 * (q.size() + kk.size()) * sizeof(float));
}

/// One prefill step of a Qwen3-VL layer: Q (32 heads) normalised and rotated in place, K (8)
/// normalised and rotated into a paged cache, V (8) copied (cache_f32's cache and slots).
void bench_mrope_cache(benchmark::State& state, const Model& model, bool fused)
{
    const Angles& angles = angles_for(model.table);
    CacheBench b;
    Tensor<float> q = random_tensor<float>(prefill_tokens * heads * head_dim);
    const std::vector<float> weight(head_dim, 1.0f);
    const k::QkNorm norm {k::NormWeighting::weight, 1e-6f, weight, weight};
    k::CacheWrite<float> write;
    write.q_in = k::HeadsView<float>(q, {prefill_tokens, heads, head_dim});
    write.q_out = k::HeadsView<float>(q, {prefill_tokens, heads, head_dim});
    write.k = k::HeadsView<float>(b.k, {prefill_tokens, kv_heads, head_dim});
    write.v = k::HeadsView<float>(b.v, {prefill_tokens, kv_heads, head_dim});
    write.key_cache = k::KvCacheView::paged(b.key_cache.data(), static_cast<std::ptrdiff_t>(b.key_cache.size()),
                                            prefill_tokens / 16, 16, kv_heads, head_dim);
    write.value_cache = k::KvCacheView::paged(b.value_cache.data(), static_cast<std::ptrdiff_t>(b.value_cache.size()),
                                              prefill_tokens / 16, 16, kv_heads, head_dim);
    write.slot_mapping = k::SlotMapping(b.slots);
    const auto views = k::QKViews<float>::in_place(k::HeadsView<float>(q, {prefill_tokens, heads, head_dim}),
                                                   k::HeadsView<float>(b.k, {prefill_tokens, kv_heads, head_dim}));
    const std::vector<std::int32_t> ids = mrope_positions(prefill_tokens, true);
    const k::MultiAxisPositions positions(ids, 3);
    const k::MultiAxisIds axis_ids(qwen3_vl_layout(), positions);
    for (auto _ : state) {
        if (fused) {
            k::qk_norm_rope_into_cache(model.spec, norm, angles.short_cache, axis_ids, write);
        } else {
            k::qk_rms_norm(model.spec, norm, views);
            k::apply_multi_axis_rope(model.spec, qwen3_vl_layout(), angles.short_cache, positions, views);
            b.copy_kv();
        }
        benchmark::ClobberMemory();
    }
    set_bytes(state, 2 * (q.size() + b.k.size() + b.v.size()) * sizeof(float));
}

/// A DeepSeek-V3 MLA decode batch: 256 tokens of [c_kv 512 | k_pe 64] bfloat16 (the latent
/// projection's output, c_kv normalised) into a paged cache of 4,096 rows of 576; token t to a
/// slot of block order[t] (shuffled), positions 1000 + 13 t; k_pe rotated (64 dims, interleaved
/// pairs, base 10000).
struct MlaBench {
    static constexpr std::ptrdiff_t tokens = 256, row = 576, slots_total = 4096;
    posenc::RopeSpec spec {64, 64, 10000.0, posenc::Pairing::interleaved};
    posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
    k::CosSinCache angles {table, 8192};
    Tensor<posenc::bfloat16> kv_a = random_tensor<posenc::bfloat16>(tokens * row);
    Tensor<posenc::bfloat16> cache = Tensor<posenc::bfloat16>(slots_total * row);
    std::vector<std::int64_t> slots, positions;
    MlaBench()
    {
        std::vector<std::int64_t> order(slots_total / 16);
        for (std::size_t b = 0; b < order.size(); ++b) order[b] = static_cast<std::int64_t>(b);
        std::shuffle(order.begin(), order.end(), std::mt19937(5));
        for (std::ptrdiff_t t = 0; t < tokens; ++t) {
            slots.push_back(order[static_cast<std::size_t>(t)] * 16 + t % 16);
            positions.push_back(1000 + 13 * t);
        }
    }
    void memcpy_rows()
    {
        for (std::ptrdiff_t t = 0; t < tokens; ++t)
            std::memcpy(cache.data() + slots[static_cast<std::size_t>(t)] * row, kv_a.data() + t * row,
                        row * sizeof(posenc::bfloat16));
    }
    /// The same copy in registers of posenc's xsimd arch, four in flight, inline (no call per row:
    /// faster than memcpy for rows of 1,152 bytes), the rest of a row through memcpy.
    void copy_rows()
    {
        using batch = xsimd::batch<std::uint8_t, k::default_arch>;
        constexpr std::size_t bytes = row * sizeof(posenc::bfloat16), n = batch::size;
        for (std::ptrdiff_t t = 0; t < tokens; ++t) {
            auto* d = reinterpret_cast<std::uint8_t*>(cache.data() + slots[static_cast<std::size_t>(t)] * row);
            const auto* s = reinterpret_cast<const std::uint8_t*>(kv_a.data() + t * row);
            std::size_t i = 0;
            for (; i + 4 * n <= bytes; i += 4 * n) {
                const batch b0 = batch::load_unaligned(s + i), b1 = batch::load_unaligned(s + i + n);
                const batch b2 = batch::load_unaligned(s + i + 2 * n), b3 = batch::load_unaligned(s + i + 3 * n);
                b0.store_unaligned(d + i), b1.store_unaligned(d + i + n), b2.store_unaligned(d + i + 2 * n),
                    b3.store_unaligned(d + i + 3 * n);
            }
            for (; i + n <= bytes; i += n) batch::load_unaligned(s + i).store_unaligned(d + i);
            if (i < bytes) std::memcpy(d + i, s + i, bytes - i);
        }
    }
};

enum class MlaVariant { copy_kv, memcpy_kv, mla_cache, copy_then_rope };

void bench_mla_decode(benchmark::State& state, MlaVariant variant)
{
    MlaBench b;
    using bf16 = posenc::bfloat16;
    const auto cache_size = static_cast<std::ptrdiff_t>(b.cache.size());
    k::CacheWrite<bf16> write;
    write.k = k::HeadsView<const bf16>(b.kv_a.data() + 512, static_cast<std::ptrdiff_t>(b.kv_a.size()) - 512,
                                       {b.tokens, 1, 64}, {b.row, 64});
    write.v = k::HeadsView<const bf16>(b.kv_a.data(), static_cast<std::ptrdiff_t>(b.kv_a.size()), {b.tokens, 1, 512},
                                       {b.row, 512});
    write.key_cache =
        k::KvCacheView::paged(b.cache.data(), cache_size, b.slots_total / 16, 16, 1, 64).in_rows(b.row, 512);
    write.value_cache =
        k::KvCacheView::paged(b.cache.data(), cache_size, b.slots_total / 16, 16, 1, 512).in_rows(b.row, 0);
    write.slot_mapping = k::SlotMapping(b.slots.data(), b.tokens);
    const k::PositionIds positions(b.positions);
    for (auto _ : state) {
        if (variant == MlaVariant::copy_kv) {
            b.copy_rows();
        } else if (variant == MlaVariant::memcpy_kv) {
            b.memcpy_rows();
        } else if (variant == MlaVariant::mla_cache) {
            k::rope_into_cache(b.spec, b.angles, positions, write);
        } else {
            b.copy_rows();
            for (std::ptrdiff_t t = 0; t < b.tokens; ++t) {
                bf16* k_pe = b.cache.data() + b.slots[static_cast<std::size_t>(t)] * b.row + 512;
                const auto views = k::QKViews<bf16>::in_place(k::HeadsView<bf16>(k_pe, 64, {1, 1, 64}));
                k::apply_rope(b.spec, b.angles, k::PositionIds::contiguous(b.positions[static_cast<std::size_t>(t)]),
                              views);
            }
        }
        benchmark::ClobberMemory();
    }
    set_bytes(state, 2 * static_cast<std::size_t>(b.tokens * b.row) * sizeof(bf16));
}

void register_engine_steps()
{
    static const Model half(head_dim, posenc::Pairing::half_split);
    constexpr std::size_t fused_bytes =
        static_cast<std::size_t>(prefill_tokens * (heads + kv_heads) * head_dim) * sizeof(float);
    const std::string f = "mrope_fused_f32", fs = "/4096x(32+8)x128";
    add(f + "/stream" + fs, [](benchmark::State& s) { bench_stream(s, fused_bytes, 1); });
    add(f + "/norm_mrope" + fs, [](benchmark::State& s) { bench_fused_mrope(s, half, MropeVariant::fused); });
    add(f + "/norm_then_mrope" + fs, [](benchmark::State& s) { bench_fused_mrope(s, half, MropeVariant::two_pass); });
    add(f + "/norm_rope_1d" + fs, [](benchmark::State& s) { bench_fused_mrope(s, half, MropeVariant::one_d); });

    constexpr std::size_t step_bytes =
        static_cast<std::size_t>(prefill_tokens * (heads + 2 * kv_heads) * head_dim) * sizeof(float);
    const std::string c = "mrope_cache_f32", cs = "/4096x(32+8+8)x128";
    add(c + "/stream" + cs, [](benchmark::State& s) { bench_stream(s, step_bytes, 1); });
    add(c + "/norm_mrope_cache" + cs, [](benchmark::State& s) { bench_mrope_cache(s, half, true); });
    add(c + "/norm_then_mrope_then_copy" + cs, [](benchmark::State& s) { bench_mrope_cache(s, half, false); });

    const std::string m = "mla_decode_bf16", ms = "/256x(512+64)";
    add(m + "/copy_kv" + ms, [](benchmark::State& s) { bench_mla_decode(s, MlaVariant::copy_kv); });
    add(m + "/memcpy_kv" + ms, [](benchmark::State& s) { bench_mla_decode(s, MlaVariant::memcpy_kv); });
    add(m + "/mla_cache" + ms, [](benchmark::State& s) { bench_mla_decode(s, MlaVariant::mla_cache); });
    add(m + "/copy_then_rope" + ms, [](benchmark::State& s) { bench_mla_decode(s, MlaVariant::copy_then_rope); });
}

void add(const std::string& name, std::function<void(benchmark::State&)> body)
{
    benchmark::RegisterBenchmark(name.c_str(), [body](benchmark::State& state) { body(state); })->UseRealTime();
}

template <class T>
void register_prefill(const std::string& group)
{
    static const Model half(head_dim, posenc::Pairing::half_split);
    static const Model inter(head_dim, posenc::Pairing::interleaved);
    const std::string shape = "/4096x32x128";
    constexpr std::size_t bytes = static_cast<std::size_t>(prefill_tokens * heads * head_dim) * sizeof(T);
    add(group + "/stream" + shape, [](benchmark::State& s) { bench_stream(s, bytes, 1); });
    add(group + "/memcpy" + shape, [](benchmark::State& s) { bench_memcpy(s, bytes); });
    add(group + "/scalar_half" + shape, [](benchmark::State& s) { bench_scalar<T>(s, half, prefill_tokens, heads); });
    add(group + "/hf_half" + shape, [](benchmark::State& s) { bench_hf<T>(s, half, prefill_tokens, heads); });
    add(group + "/cache_half_pos0" + shape,
        [](benchmark::State& s) { bench_posenc<T>(s, half, Source::cache, 0, prefill_tokens, 1); });
    add(group + "/otf_half_pos0" + shape,
        [](benchmark::State& s) { bench_posenc<T>(s, half, Source::on_the_fly, 0, prefill_tokens, 1); });
    add(group + "/otf_half_pos1M" + shape,
        [](benchmark::State& s) { bench_posenc<T>(s, half, Source::on_the_fly, long_start, prefill_tokens, 1); });
    add(group + "/scalar_inter" + shape, [](benchmark::State& s) { bench_scalar<T>(s, inter, prefill_tokens, heads); });
    add(group + "/hf_inter" + shape, [](benchmark::State& s) { bench_hf<T>(s, inter, prefill_tokens, heads); });
    add(group + "/cache_inter_pos0" + shape,
        [](benchmark::State& s) { bench_posenc<T>(s, inter, Source::cache, 0, prefill_tokens, 1); });
    add(group + "/otf_inter_pos0" + shape,
        [](benchmark::State& s) { bench_posenc<T>(s, inter, Source::on_the_fly, 0, prefill_tokens, 1); });
    add(group + "/otf_inter_pos1M" + shape,
        [](benchmark::State& s) { bench_posenc<T>(s, inter, Source::on_the_fly, long_start, prefill_tokens, 1); });
    if constexpr (std::is_same_v<T, float>) {
        add(group + "/cache_half_pos1M" + shape,
            [](benchmark::State& s) { bench_posenc<T>(s, half, Source::cache, long_start, prefill_tokens, 1); });
        add(group + "/cache_inter_pos1M" + shape,
            [](benchmark::State& s) { bench_posenc<T>(s, inter, Source::cache, long_start, prefill_tokens, 1); });
    }
}

void register_all()
{
    register_prefill<float>("prefill_f32");
    register_prefill<posenc::bfloat16>("prefill_bf16");
    register_prefill<posenc::float16>("prefill_f16");

    static const Model half(head_dim, posenc::Pairing::half_split);
    static const Model inter(head_dim, posenc::Pairing::interleaved);
    static const Model partial(64, posenc::Pairing::half_split);
    constexpr std::size_t prefill_bytes = static_cast<std::size_t>(prefill_tokens * heads * head_dim) * sizeof(float);

    const std::string p = "partial_f32", ps = "/4096x32x128_r64";
    add(p + "/stream" + ps, [](benchmark::State& s) { bench_stream(s, prefill_bytes, 1); });
    add(p + "/scalar_half" + ps, [](benchmark::State& s) { bench_scalar<float>(s, partial, prefill_tokens, heads); });
    add(p + "/hf_half" + ps, [](benchmark::State& s) { bench_hf<float>(s, partial, prefill_tokens, heads); });
    add(p + "/cache_half_pos0" + ps,
        [](benchmark::State& s) { bench_posenc<float>(s, partial, Source::cache, 0, prefill_tokens, 1); });
    add(p + "/otf_half_pos0" + ps,
        [](benchmark::State& s) { bench_posenc<float>(s, partial, Source::on_the_fly, 0, prefill_tokens, 1); });

    const std::string t = "prefill_f32_2t", ts = "/4096x32x128";
    add(t + "/stream" + ts, [](benchmark::State& s) { bench_stream(s, prefill_bytes, 2); });
    add(t + "/cache_half_pos0" + ts,
        [](benchmark::State& s) { bench_posenc<float>(s, half, Source::cache, 0, prefill_tokens, 2); });
    add(t + "/otf_half_pos1M" + ts,
        [](benchmark::State& s) { bench_posenc<float>(s, half, Source::on_the_fly, long_start, prefill_tokens, 2); });
    add(t + "/cache_inter_pos0" + ts,
        [](benchmark::State& s) { bench_posenc<float>(s, inter, Source::cache, 0, prefill_tokens, 2); });
    add(t + "/otf_inter_pos1M" + ts,
        [](benchmark::State& s) { bench_posenc<float>(s, inter, Source::on_the_fly, long_start, prefill_tokens, 2); });

    const std::string d = "decode_f32", ds = "/1x32x128";
    constexpr std::size_t decode_bytes = heads * head_dim * sizeof(float);
    add(d + "/stream" + ds, [](benchmark::State& s) { bench_stream(s, decode_bytes, 1); });
    add(d + "/memcpy" + ds, [](benchmark::State& s) { bench_memcpy(s, decode_bytes); });
    add(d + "/scalar_half" + ds, [](benchmark::State& s) { bench_decode_scalar(s, half, false, false); });
    add(d + "/hf_half" + ds, [](benchmark::State& s) { bench_decode_scalar(s, half, false, true); });
    add(d + "/plain_table_loop" + ds, [](benchmark::State& s) { bench_plain_table_loop(s, half); });
    add(d + "/cache_half" + ds,
        [](benchmark::State& s) { bench_decode(s, half, Source::cache, false, DecodeEntry::checked); });
    add(d + "/cache_half_misaligned16" + ds,
        [](benchmark::State& s) { bench_decode(s, half, Source::cache, false, DecodeEntry::checked, 4); });
    add(d + "/cache_half_unchecked" + ds,
        [](benchmark::State& s) { bench_decode(s, half, Source::cache, false, DecodeEntry::unchecked); });
    add(d + "/dispatch_cache_half" + ds,
        [](benchmark::State& s) { bench_decode(s, half, Source::cache, false, DecodeEntry::dispatched); });
    add(d + "/otf_half_pos1M" + ds,
        [](benchmark::State& s) { bench_decode(s, half, Source::on_the_fly, false, DecodeEntry::checked); });
    add(d + "/cache_inter" + ds,
        [](benchmark::State& s) { bench_decode(s, inter, Source::cache, false, DecodeEntry::checked); });
    add(d + "/otf_inter_pos1M" + ds,
        [](benchmark::State& s) { bench_decode(s, inter, Source::on_the_fly, false, DecodeEntry::checked); });

    add("decode_pair_f32/plain_and_posenc/1x32x128", [](benchmark::State& s) { bench_decode_paired(s, half); });

    const std::string m = "mrope_f32", ms = "/4096x32x128";
    add(m + "/stream" + ms, [](benchmark::State& s) { bench_stream(s, prefill_bytes, 1); });
    add(m + "/1d_cache_half" + ms,
        [](benchmark::State& s) { bench_posenc<float>(s, half, Source::cache, 0, prefill_tokens, 1); });
    add(m + "/mrope_image_cache_half" + ms,
        [](benchmark::State& s) { bench_mrope<float>(s, half, Source::cache, true); });
    add(m + "/mrope_text_cache_half" + ms,
        [](benchmark::State& s) { bench_mrope<float>(s, half, Source::cache, false); });
    add(m + "/1d_otf_half" + ms,
        [](benchmark::State& s) { bench_posenc<float>(s, half, Source::on_the_fly, 0, prefill_tokens, 1); });
    add(m + "/mrope_image_otf_half" + ms,
        [](benchmark::State& s) { bench_mrope<float>(s, half, Source::on_the_fly, true); });

    const std::string g = "decode_gqa_f32", gs = "/1x(32+8)x128";
    constexpr std::size_t gqa_bytes = (heads + kv_heads) * head_dim * sizeof(float);
    add(g + "/stream" + gs, [](benchmark::State& s) { bench_stream(s, gqa_bytes, 1); });
    add(g + "/scalar_half" + gs, [](benchmark::State& s) { bench_decode_scalar(s, half, true, false); });
    add(g + "/hf_half" + gs, [](benchmark::State& s) { bench_decode_scalar(s, half, true, true); });
    add(g + "/cache_half" + gs,
        [](benchmark::State& s) { bench_decode(s, half, Source::cache, true, DecodeEntry::checked); });
    add(g + "/otf_half_pos1M" + gs,
        [](benchmark::State& s) { bench_decode(s, half, Source::on_the_fly, true, DecodeEntry::checked); });

    const std::string f = "fused_f32", fs = "/4096x(32+8)x128";
    constexpr std::size_t fused_bytes =
        static_cast<std::size_t>(prefill_tokens * (heads + kv_heads) * head_dim) * sizeof(float);
    add(f + "/stream" + fs, [](benchmark::State& s) { bench_stream(s, fused_bytes, 1); });
    add(f + "/norm_rope" + fs, [](benchmark::State& s) { bench_fused(s, half, true); });
    add(f + "/norm_then_rope" + fs, [](benchmark::State& s) { bench_fused(s, half, false); });

    const std::string c = "cache_f32", cs = "/4096x(8+8)x128";
    add(c + "/copy_kv" + cs, [](benchmark::State& s) { bench_cache(s, half, CacheVariant::copy_kv); });
    add(c + "/rope_cache" + cs, [](benchmark::State& s) { bench_cache(s, half, CacheVariant::rope_cache); });
    add(c + "/rope_cache_cached" + cs,
        [](benchmark::State& s) { bench_cache(s, half, CacheVariant::rope_cache_cached); });
    add(c + "/rope_then_copy" + cs, [](benchmark::State& s) { bench_cache(s, half, CacheVariant::rope_then_copy); });

    add("decode_step_f32/qwen3_8b/1x(32+8+8)x128", [](benchmark::State& s) { bench_decode_step(s, half); });
    register_engine_steps();
#if defined(__AVX512F__)
    add("decode_step_f32/hand_avx512_floor/1x(32+8+8)x128",
        [](benchmark::State& s) { bench_decode_step_floor(s, half); });
#endif
}

}  // namespace

int main(int argc, char** argv)
{
    std::printf("posenc kernels: xsimd arch %s (%d floats per register); dispatch best ISA %s\n", Arch::name(),
                static_cast<int>(xsimd::batch<float, Arch>::size), k::dispatch::to_string(k::dispatch::best_isa()));
    register_all();
    return posenc_bench::run_with_ratios(argc, argv);
}
