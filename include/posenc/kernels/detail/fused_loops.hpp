// SPDX-License-Identifier: MIT
// posenc/kernels/detail/fused_loops.hpp: the loops of the fused engine steps (qk_norm_rope.hpp,
// kv_cache_write.hpp hold the formulas, bounds and entry points).
//
// Per token: the angle row once, then each tensor's heads (Q, K; V copied or converted):
//   - the norm's 1 / rms: per tile of norm_tile heads in a pass of its own (tile_inv_rms), or,
//     for several tokens when each half of a head is one register group (rms_per_head), from the
//     registers the rotation loads;
//   - the rotation: rotation_skeleton.hpp's rotate_row with the Normed epilogue (weights folded into cos
//     and sin, one multiply by 1 / rms per register) or Plain; the other coordinates scaled or
//     copied (norm_pass_through);
//   - the destination: an output view, or a cache slot (float / 16-bit from registers; 8-bit
//     through a float buffer and quantize.hpp's converters; streamed rows through a staging
//     buffer and non-temporal stores).
#pragma once

#ifndef POSENC_KERNELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/kernels/detail/fused_loops.hpp is internal to the kernels: include <posenc/kernels/qk_norm_rope.hpp or posenc/kernels/kv_cache_write.hpp> (or <posenc/kernels.hpp>) instead"
#endif

#include <xsimd/xsimd.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "posenc/config.hpp"
#include "posenc/detail/pair_rotation.hpp"
#include "posenc/kernels/angle_source.hpp"
#include "posenc/kernels/detail/rope_loops.hpp"
#include "posenc/kernels/detail/rotation_skeleton.hpp"
#include "posenc/kernels/detail/prefetch.hpp"
#include "posenc/kernels/detail/simd_ops.hpp"
#include "posenc/kernels/dtypes.hpp"
#include "posenc/kernels/kv_cache_view.hpp"
#include "posenc/kernels/quantize.hpp"
#include "posenc/kernels/views.hpp"
#include "posenc/spec.hpp"

namespace posenc::kernels {

/// The largest head_dim the fused steps take: 512 (one angle row of max_pairs_per_row pairs).
inline constexpr int max_fused_head_dim = 2 * max_pairs_per_row;

namespace detail {

/// Everything one fused call reads and writes. q_in absent: no Q. k_out present: K goes to a
/// view; key_cache present: K goes to the cache at the slots (and V, if v_in is present, to
/// value_cache). rotary_dim 0: no rotation (the norm alone).
template <class T>
struct FusedArgs {
    int head_dim = 0;
    int rotary_dim = 0;
    int rotary_offset = 0;  ///< the rotated slice of a head: [rotary_offset, rotary_offset + rotary_dim)
    int v_head_dim = 0;  ///< V's heads and value_cache's rows (an MLA cache's c_kv: 512 beside k_pe's 64)
    bool norm = false;
    float eps = 0.0f;
    float weight_offset = 0.0f;  ///< 0: x * inv_rms * w;  1: x * inv_rms * (1 + w)
    FloatSpan q_weight;  ///< head_dim weights of Q (checked: size >= head_dim)
    FloatSpan k_weight;
    FloatSpan q_multipliers;  ///< with the norm: Q of token t scaled by q_multipliers.data[t]; absent: none
    HeadsView<const T> q_in;
    HeadsView<T> q_out;
    KvCacheView q_rows;  ///< present: Q of token t to row t of this view (its storage, its scale) instead of q_out
    HeadsView<const T> k_in;
    HeadsView<T> k_out;
    HeadsView<const T> v_in;
    KvCacheView key_cache;
    KvCacheView value_cache;
    SlotMapping slots;
    CacheStores stores = CacheStores::cached;
};

/// Whether a call with these arguments writes its cache rows with non-temporal stores
/// (CacheStores): always, never, or (automatic) from streaming_stores_from bytes of rows.
template <class T>
bool streams_cache(const FusedArgs<T>& f, TokenRange range) noexcept
{
    if (!f.key_cache.present() || f.stores == CacheStores::cached) return false;
    if (f.stores == CacheStores::streaming) return true;
    std::size_t row =
        static_cast<std::size_t>(f.key_cache.heads * f.key_cache.head_dim) * element_bytes(f.key_cache.storage);
    if (f.v_in.present())
        row += static_cast<std::size_t>(f.value_cache.heads * f.value_cache.head_dim) *
               element_bytes(f.value_cache.storage);
    const std::size_t tokens = static_cast<std::size_t>(range.end - range.begin);
    return row > 0 && tokens >= (streaming_stores_from + row - 1) / row;  // tokens * row >= threshold, without overflow
}

/// Sum of x^2 over one head in float (fma) in four independent chains, returned per lane
/// (tile_inv_rms adds the lanes of several heads at once).
template <class A, class T>
POSENC_ALWAYS_INLINE simd::floats<A> head_sum_squares(const T* x, int head_dim) noexcept
{
    using vec = simd::floats<A>;
    constexpr int lanes = simd::float_lanes<A>;
    vec acc0(0.0f), acc1(0.0f), acc2(0.0f), acc3(0.0f);
    auto add = [x](vec& acc, int j) {
        const vec a = simd::load_as_floats<A>(x + j);
        acc = simd::mul_add<A>(a, a, acc);
    };
    int j = 0;
    for (; j + 4 * lanes <= head_dim; j += 4 * lanes) {
        add(acc0, j);
        add(acc1, j + lanes);
        add(acc2, j + 2 * lanes);
        add(acc3, j + 3 * lanes);
    }
    // at most three whole registers and a partial one remain
    if (j + lanes <= head_dim) add(acc0, j), j += lanes;
    if (j + lanes <= head_dim) add(acc1, j), j += lanes;
    if (j + lanes <= head_dim) add(acc2, j), j += lanes;
    if (j < head_dim) {
        const vec a = simd::load_first<A>(x + j, head_dim - j);
        acc3 = simd::mul_add<A>(a, a, acc3);
    }
    return (acc0 + acc1) + (acc2 + acc3);
}

/// Heads per tile: their sums of squares and 1 / sqrt(sum / n + eps) are independent chains the
/// CPU overlaps.
inline constexpr int norm_tile = 16;

/// r[i] = 1 / sqrt(sum_i / n + eps) for heads [h0, h0 + count) of token t (count <= norm_tile),
/// each step one float rounding, float_lanes<A> heads per instruction (IEEE division and square
/// root are correctly rounded in every lane, as the scalar float formula).
template <class A, class T>
POSENC_ALWAYS_INLINE void tile_inv_rms(const HeadsView<const T>& in, std::ptrdiff_t t, std::ptrdiff_t h0, int count,
                                       int head_dim, float eps, float* r, bool prefetch) noexcept
{
    using vec = simd::floats<A>;
    constexpr int lanes = simd::float_lanes<A>;
    static_assert(norm_tile % lanes == 0, "a tile of heads is whole registers");
    vec sums[norm_tile];  // per head, the sum of squares still spread over the lanes
    if (prefetch) {  // the heads prefetch_heads_ahead heads on (apply's distance): this pass meets memory first
        const std::ptrdiff_t ahead = simd::prefetch_heads_ahead * in.head_stride;
        for (int i = 0; i < count; ++i) {
            const T* x = in.head(t, h0 + i);
            for (std::ptrdiff_t e = 0; e < head_dim; e += 64 / static_cast<std::ptrdiff_t>(sizeof(T)))
                simd::prefetch(x, ahead + e);
        }
    }
    for (int i = 0; i < count; ++i) sums[i] = head_sum_squares<A>(in.head(t, h0 + i), head_dim);
    const int whole = (count + lanes - 1) / lanes * lanes;
    for (int i = count; i < whole; ++i) sums[i] = vec(1.0f);  // heads past the tile: any finite value
    const vec n(static_cast<float>(head_dim)), e(eps), one(1.0f);
    // lane k of lane_sums: the sum of the lanes of sums[i + k] (one transposing add tree over
    // `lanes` heads instead of one horizontal add per head)
    for (int i = 0; i < whole; i += lanes)
        simd::divide<A>(one, simd::sqrt<A>(simd::divide<A>(simd::lane_sums<A>(sums + i), n) + e)).store_aligned(r + i);
}

/// The coordinates of a head that a fused step writes: [0, head_dim), of which
/// [offset, offset + rotary_dim) rotate (rotary_dim 0: none).
struct HeadSlice {
    int head_dim;
    int rotary_dim;
    int offset;
};

/// Registers of pairs per group in norm_rope_heads: the group's cos, sin and weights (4 registers
/// per register of pairs) stay loaded while every head of the tile passes through (see
/// rope_loops.hpp's rotate_heads). 4 on AVX-512 (32 registers), 2 otherwise.
template <class A>
inline constexpr int norm_chunks = simd::float_lanes<A> >= 16 ? 4 : 2;

/// Coordinates [begin, end) of the run's heads, not rotated: y = x * (inv_rms[h] * (w + offset))
/// with the norm, a copy (rounded to Out) without.
template <class A, bool Norm, class T, class Out>
void norm_pass_through(HeadRun<T, Out> run, int begin, int end, const Normed& norm) noexcept
{
    using vec = simd::floats<A>;
    constexpr int lanes = simd::float_lanes<A>;
    for (std::ptrdiff_t h = 0; h < run.heads && begin < end; ++h, run.next()) {
        const vec r(Norm ? norm.inv_rms[h] : 1.0f);
        auto step = [&](int j, auto width) {
            vec v = load_lanes<A>(run.in + j, width);
            if constexpr (Norm) v = v * (r * norm.weights.template load<A>(j, width));
            store_lanes<A>(run.out + j, v, width);
        };
        int j = begin;
        for (; j + lanes <= end; j += lanes) step(j, FullWidth {});
        if (j < end) step(j, PartialWidth {end - j});
    }
}

/// `pairs` pairs of the run's heads (run: at the slice) through rotate_row with epilogue e
/// (Normed or Plain): half_split pairs in GroupedStores or PairStores order, interleaved in
/// GroupedStores. Called directly, not through a generic lambda: GCC compiled such a lambda out
/// of line in the larger per-ISA units (a call per tensor and token; docs/benchmarks.md).
template <class A, Pairing P, class T, class Out, class Epilogue>
POSENC_ALWAYS_INLINE void rotate_slice_pairs(const HeadRun<T, Out>& run, const Epilogue& e, const AngleRow& row,
                                             int pairs, bool grouped_stores) noexcept
{
    if constexpr (P == Pairing::half_split) {
        if (grouped_stores) rotate_row<A, norm_chunks<A>, GroupedStores>(run, HalfSplitPairs<A> {pairs}, e, row, pairs);
        else rotate_row<A, norm_chunks<A>, PairStores>(run, HalfSplitPairs<A> {pairs}, e, row, pairs);
    } else {
        rotate_row<A, norm_chunks<A>, GroupedStores>(run, InterleavedPairs<A> {}, e, row, pairs);
    }
}

/// The rotated slice of the run's heads through rotate_row in groups of norm_chunks registers:
/// Normed or Plain; GroupedStores for several tokens, else PairStores. Prefetch hints only for
/// half_split heads whose 1 / rms is not formed in a pass of its own (tile_inv_rms prefetches then).
template <class A, Pairing P, bool Norm, class T, class Out>
POSENC_ALWAYS_INLINE void norm_rotate_slice(HeadRun<T, Out> run, HeadSlice slice, const AngleRow& row, Normed norm,
                                            bool grouped_stores) noexcept
{
    run = run.from(slice.offset);
    norm.weights = norm.weights.from(slice.offset);
    run.prefetch = run.prefetch && P == Pairing::half_split && (!Norm || norm.inv_rms == nullptr);
    if constexpr (Norm) rotate_slice_pairs<A, P>(run, norm, row, slice.rotary_dim / 2, grouped_stores);
    else rotate_slice_pairs<A, P>(run, Plain {}, row, slice.rotary_dim / 2, grouped_stores);
}

/// The run's heads: y = RoPE(x * s) over the slice [offset, offset + rotary_dim) and x * s over
/// the other coordinates, with s = inv_rms[h] * (w + offset) when Norm, s = 1 otherwise. row:
/// cos/sin as stored (half_split) or duplicated and sign-folded (interleaved). Out: float,
/// bfloat16 or float16. `copy_rest`: store the coordinates outside the slice (false only without
/// the norm, in place). Not forced inline: one compiled copy per type combination serves every
/// caller (half the per-ISA units' compile time).
template <class A, Pairing P, bool Norm, class T, class Out>
void norm_rope_heads(const HeadRun<T, Out>& run, HeadSlice slice, const AngleRow& row, const Normed& norm,
                     bool copy_rest, bool grouped_stores) noexcept
{
    norm_rotate_slice<A, P, Norm>(run, slice, row, norm, grouped_stores);
    if (!copy_rest || slice.rotary_dim == slice.head_dim) return;
    norm_pass_through<A, Norm>(run, 0, slice.offset, norm);
    norm_pass_through<A, Norm>(run, slice.offset + slice.rotary_dim, slice.head_dim, norm);
}

/// Stores n floats as the codes of an 8-bit cache: convert(fl(v / scale)) (quantize.hpp).
template <class A>
void store_quantized(const float* v, std::byte* dst, int n, CacheStorage storage, float scale) noexcept
{
    if (storage == CacheStorage::float8_e4m3) {
        for (int i = 0; i < n; ++i) dst[i] = static_cast<std::byte>(to_float8_e4m3_on<A>(v[i] / scale).bits);
    } else if (storage == CacheStorage::float8_e5m2) {
        for (int i = 0; i < n; ++i) dst[i] = static_cast<std::byte>(to_float8_e5m2_on<A>(v[i] / scale).bits);
    } else {
        for (int i = 0; i < n; ++i)
            dst[i] = static_cast<std::byte>(static_cast<std::uint8_t>(quantize_int8_on<A>(v[i] / scale)));
    }
}

/// Whether a normalising call forms each head's 1 / rms from the registers norm_rope_heads
/// rotates (inv_rms null, HalfSplitPairs::inv_rms_of) rather than in tiles first (tile_inv_rms):
/// half_split, every dim rotated, each half one group of norm_chunks registers (head_dim 128 on
/// AVX-512, 32 on AVX2), and several tokens (row fused_f32/norm_rope; one token is faster in
/// tiles: row decode_step_f32/qwen3_8b; docs/benchmarks.md).
template <class A, Pairing P>
bool rms_per_head(int head_dim, int rotary_dim, bool several_tokens) noexcept
{
    constexpr int group = norm_chunks<A> * simd::float_lanes<A>;
    return several_tokens && P == Pairing::half_split && rotary_dim == head_dim && head_dim == 2 * group;
}

/// What every tensor of one token shares in a fused call.
struct TokenStep {
    AngleRow row;  ///< cos/sin (expanded for interleaved pairs)
    bool prefetch;  ///< hint heads ahead
    bool several_tokens;  ///< the store order and rms_per_head
    bool stream;  ///< cache rows streamed (streams_cache)
};

/// The heads of one tensor at token t in tiles: all of them when each head forms its own 1 / rms
/// (rms_per_head), else norm_tile at a time with the tile's 1 / rms first (tile_inv_rms). Calls
/// body(h0, count, norm) with norm.inv_rms the tile's values (null: per head).
template <class A, Pairing P, bool Norm, class T, class Body>
POSENC_ALWAYS_INLINE void for_each_tile(const HeadsView<const T>& in, std::ptrdiff_t t, HeadSlice slice, Normed norm,
                                        const TokenStep& step, Body&& body) noexcept
{
    const bool per_head = Norm && rms_per_head<A, P>(slice.head_dim, slice.rotary_dim, step.several_tokens);
    const std::ptrdiff_t tile = per_head ? in.heads : norm_tile;
    alignas(64) float inv_rms[norm_tile + 16];
    norm.inv_rms = per_head ? nullptr : inv_rms;
    for (std::ptrdiff_t h0 = 0; h0 < in.heads; h0 += tile) {
        const int count = static_cast<int>(std::min<std::ptrdiff_t>(tile, in.heads - h0));
        if constexpr (Norm)
            if (!per_head) tile_inv_rms<A>(in, t, h0, count, slice.head_dim, norm.eps, inv_rms, step.prefetch);
        body(h0, count, norm);
    }
}

/// Every head of one tensor of token t into an output view, a tile at a time (for_each_tile).
template <class A, Pairing P, bool Norm, class T>
POSENC_ALWAYS_INLINE void heads_to_view(const HeadsView<const T>& in, const HeadsView<T>& out, std::ptrdiff_t t,
                                        HeadSlice slice, const Normed& norm, const TokenStep& step) noexcept
{
    const bool copy_rest = Norm || static_cast<const void*>(out.data) != static_cast<const void*>(in.data);
    for_each_tile<A, P, Norm>(in, t, slice, norm, step, [&](std::ptrdiff_t h0, int count, const Normed& tile) {
        const HeadRun<T> run {in.head(t, h0), out.head(t, h0), in.head_stride, out.head_stride, count, step.prefetch};
        norm_rope_heads<A, P, Norm>(run, slice, step.row, tile, copy_rest, step.several_tokens);
    });
}

/// `bytes` bytes from src to dst, bit for bit, in register-sized moves, four registers in flight
/// (the last partial register through memcpy; rather than one memcpy call: row
/// decode_step_f32/qwen3_8b of docs/benchmarks.md). Inline: a one-head V (MLA's c_kv) is copied in
/// the token loop without a call (row mla_decode_bf16/mla_cache).
template <class A>
POSENC_ALWAYS_INLINE void copy_bytes(void* dst, const void* src, std::size_t bytes) noexcept
{
    using batch = xsimd::batch<std::uint8_t, A>;
    auto* d = static_cast<std::uint8_t*>(dst);
    const auto* s = static_cast<const std::uint8_t*>(src);
    std::size_t i = 0;
    for (; i + 4 * batch::size <= bytes; i += 4 * batch::size) {
        const batch b0 = batch::load_unaligned(s + i), b1 = batch::load_unaligned(s + i + batch::size);
        const batch b2 = batch::load_unaligned(s + i + 2 * batch::size),
                    b3 = batch::load_unaligned(s + i + 3 * batch::size);
        b0.store_unaligned(d + i), b1.store_unaligned(d + i + batch::size);
        b2.store_unaligned(d + i + 2 * batch::size), b3.store_unaligned(d + i + 3 * batch::size);
    }
    for (; i + batch::size <= bytes; i += batch::size) batch::load_unaligned(s + i).store_unaligned(d + i);
    if (i < bytes) std::memcpy(d + i, s + i, bytes - i);  // (a call, where nothing is left)
}

/// `heads` rows of n elements from x (rows x_stride apart) to y (y_stride apart), bit for bit
/// (copy_bytes): one run when both sides are contiguous (a slot of a token-major or paged cache,
/// V inside packed QKV), a run per row otherwise.
template <class A, class T>
void copy_heads(const T* x, std::ptrdiff_t x_stride, T* y, std::ptrdiff_t y_stride, std::ptrdiff_t heads,
                int n) noexcept
{
    const std::size_t row = static_cast<std::size_t>(n) * sizeof(T);
    if (heads == 1 || (x_stride == n && y_stride == n)) {
        copy_bytes<A>(y, x, row * static_cast<std::size_t>(heads));
        return;
    }
    for (std::ptrdiff_t h = 0; h < heads; ++h) copy_bytes<A>(y + h * y_stride, x + h * x_stride, row);
}

/// Elements from one head of slot s to the next: head_dim (token_major) or block_size * head_dim
/// (heads_major); 0 for one head (the stride is then never applied).
inline std::ptrdiff_t slot_head_step(const KvCacheView& cache, std::ptrdiff_t s, std::ptrdiff_t heads) noexcept
{
    return heads > 1 ? cache.offset(s, 1) - cache.offset(s, 0) : 0;
}

/// `rows` rows of `row_bytes` from src (rows src_step bytes apart) to dst (dst_step bytes apart)
/// with non-temporal stores (simd::stream_copy), in one run when both sides are contiguous; a run
/// whose address or length stream_copy cannot take is copied with ordinary stores.
template <class A>
void stream_rows(std::byte* dst, std::ptrdiff_t dst_step, const std::byte* src, std::ptrdiff_t src_step,
                 std::ptrdiff_t rows, std::size_t row_bytes) noexcept
{
    const auto row = static_cast<std::ptrdiff_t>(row_bytes);
    const bool one_run = rows == 1 || (dst_step == row && src_step == row);
    const std::size_t bytes = one_run ? row_bytes * static_cast<std::size_t>(rows) : row_bytes;
    for (std::ptrdiff_t r = 0; r < (one_run ? 1 : rows); ++r) {
        std::byte* const to = dst + r * dst_step;
        const std::byte* const from = src + r * src_step;
        if (simd::stream_copy_possible<A>(to, bytes)) simd::stream_copy<A>(to, from, bytes);
        else std::memcpy(to, from, bytes);
    }
}

/// V of token t into its cache row at `slot` when the cache holds V's own element type: a copy
/// (copy_heads), or streamed straight from V (stream_rows, no staging buffer: row
/// cache_f32/rope_cache of docs/benchmarks.md). False, copying nothing, for another element type.
template <class A, class T>
POSENC_ALWAYS_INLINE bool copy_values_to_slot(const HeadsView<const T>& v, const KvCacheView& cache, std::ptrdiff_t t,
                                              std::int64_t slot, int head_dim, bool stream) noexcept
{
    if (cache.storage != cache_storage_of<T>) return false;
    const std::ptrdiff_t s = static_cast<std::ptrdiff_t>(slot);
    const T* x = v.head(t, 0);
    T* y = reinterpret_cast<T*>(cache.head(s, 0));
    const std::ptrdiff_t step = slot_head_step(cache, s, v.heads);
    if (!stream) {
        if (v.heads == 1) copy_bytes<A>(y, x, static_cast<std::size_t>(head_dim) * sizeof(T));  // inline
        else copy_heads<A>(x, v.head_stride, y, step, v.heads, head_dim);
        return true;
    }
    const auto size = static_cast<std::ptrdiff_t>(sizeof(T));
    stream_rows<A>(reinterpret_cast<std::byte*>(y), step * size, reinterpret_cast<const std::byte*>(x),
                   v.head_stride * size, v.heads, static_cast<std::size_t>(head_dim) * sizeof(T));
    return true;
}

/// Bytes of rows a streamed cache write forms before writing them with non-temporal stores: a
/// token's K of 8 heads of 128 floats (row cache_f32/rope_cache of docs/benchmarks.md).
inline constexpr std::size_t cache_stage_bytes = 16384;

/// The run's heads into rows of the cache's element type (float32, bfloat16 or float16). False,
/// writing nothing, for an 8-bit cache.
template <class A, Pairing P, bool Norm, class T>
bool heads_to_rows(const HeadRun<T, std::byte>& run, CacheStorage storage, HeadSlice slice, const Normed& norm,
                   const TokenStep& step) noexcept
{
    auto to = [&](auto* rows) {
        using Out = std::remove_pointer_t<decltype(rows)>;
        const HeadRun<T, Out> typed {run.in, rows, run.in_stride, run.out_stride, run.heads, run.prefetch};
        norm_rope_heads<A, P, Norm>(typed, slice, step.row, norm, true, step.several_tokens);
        return true;
    };
    switch (storage) {
    case CacheStorage::float32: return to(reinterpret_cast<float*>(run.out));
    case CacheStorage::bfloat16: return to(reinterpret_cast<bfloat16*>(run.out));
    case CacheStorage::float16: return to(reinterpret_cast<float16*>(run.out));
    default: return false;
    }
}

/// The run's heads (h0, h0 + 1, ... of a token) into an 8-bit cache at slot s, head by head
/// through a float buffer and quantize.hpp's converters; streamed rows through a staging buffer.
template <class A, Pairing P, bool Norm, class T>
void heads_to_quantized(const HeadRun<T, std::byte>& run, const KvCacheView& cache, std::ptrdiff_t s, std::ptrdiff_t h0,
                        HeadSlice slice, const Normed& norm, const TokenStep& step) noexcept
{
    alignas(64) float buffer[max_fused_head_dim];
    alignas(64) std::byte staging[max_fused_head_dim];
    const std::size_t row_bytes = static_cast<std::size_t>(slice.head_dim);  // one byte per element
    for (std::ptrdiff_t i = 0; i < run.heads; ++i) {
        const std::ptrdiff_t h = h0 + i;
        std::byte* const row = cache.head(s, h);
        const bool staged = step.stream && simd::stream_copy_possible<A>(row, row_bytes);
        norm_rope_heads<A, P, Norm>(HeadRun<T, float> {run.in + i * run.in_stride, buffer, 0, 0, 1}, slice, step.row,
                                    norm.from_head(i), true, step.several_tokens);
        // the scale read here, not through CacheScale::of_head: a non-template function compiled in
        // a per-ISA unit would be one symbol shared with the default-flag code (check-isa-symbols.sh)
        const float scale =
            cache.scale.kind == CacheScale::Kind::per_head ? cache.scale.per_head.data[h] : cache.scale.value;
        store_quantized<A>(buffer, staged ? staging : row, slice.head_dim, cache.storage, scale);
        if (staged) simd::stream_copy<A>(row, staging, row_bytes);
    }
}

/// `run`'s heads (h0, h0 + 1, ... of slot s) into a float / 16-bit cache with non-temporal stores:
/// cache_stage_bytes of rows formed at a time in a staging buffer, then stream_rows. Out of line:
/// the buffer is on this function's stack only, not on every cached write's.
template <class A, Pairing P, bool Norm, class T>
POSENC_NOINLINE void heads_to_cache_streamed(const HeadRun<T, std::byte>& run, const KvCacheView& cache,
                                             std::ptrdiff_t s, std::ptrdiff_t h0, HeadSlice slice, const Normed& norm,
                                             const TokenStep& step) noexcept
{
    alignas(64) std::byte staging[cache_stage_bytes];
    static_assert(cache_stage_bytes >= max_fused_head_dim * sizeof(float), "the staging buffer holds a head");
    const auto element = static_cast<std::ptrdiff_t>(element_bytes(cache.storage));
    const std::size_t row_bytes = static_cast<std::size_t>(slice.head_dim) * element_bytes(cache.storage);
    const int stage_heads = static_cast<int>(cache_stage_bytes / row_bytes);
    const auto count = static_cast<int>(run.heads);
    for (int i0 = 0; i0 < count; i0 += stage_heads) {
        const int n = std::min(stage_heads, count - i0);
        heads_to_rows<A, P, Norm, T>(
            {run.in + i0 * run.in_stride, staging, run.in_stride, slice.head_dim, n, run.prefetch}, cache.storage,
            slice, norm.from_head(i0), step);
        stream_rows<A>(cache.head(s, h0 + i0), run.out_stride * element, staging,
                       static_cast<std::ptrdiff_t>(row_bytes), n, row_bytes);
    }
}

/// Every head of one tensor of token t into its cache row at `slot`, a tile at a time: from
/// registers, or streamed (heads_to_cache_streamed); 8-bit caches through heads_to_quantized.
template <class A, Pairing P, bool Norm, class T>
void heads_to_cache(const HeadsView<const T>& in, const KvCacheView& cache, std::ptrdiff_t t, std::int64_t slot,
                    HeadSlice slice, const Normed& norm, const TokenStep& step) noexcept
{
    const auto s = static_cast<std::ptrdiff_t>(slot);
    const std::ptrdiff_t head_step = slot_head_step(cache, s, in.heads);
    for_each_tile<A, P, Norm>(in, t, slice, norm, step, [&](std::ptrdiff_t h0, int count, const Normed& tile) {
        const HeadRun<T, std::byte> run {in.head(t, h0), cache.head(s, h0), in.head_stride, head_step,
                                         count,          step.prefetch};
        if (is_quantized(cache.storage)) heads_to_quantized<A, P, Norm>(run, cache, s, h0, slice, tile, step);
        else if (!step.stream) heads_to_rows<A, P, Norm>(run, cache.storage, slice, tile, step);
        else heads_to_cache_streamed<A, P, Norm>(run, cache, s, h0, slice, tile, step);
    });
}

/// Whether K goes to its cache rows through head_to_row: one head, no norm, a cache of K's own
/// element type, ordinary stores (an MLA cache's k_pe beside c_kv).
template <bool Norm, class T>
bool one_head_to_row(const FusedArgs<T>& f, bool stream) noexcept
{
    return !Norm && f.k_in.present() && f.k_in.heads == 1 && f.key_cache.storage == cache_storage_of<T> && !stream;
}

/// Whether interleaved pairs take the row as the angle source gives it (InterleavedPairsFromRow)
/// rather than expanded: only K's one head rotates (one_head_to_row) and the row is whole registers.
template <class A, Pairing P, bool Norm, class T>
bool row_as_given(const FusedArgs<T>& f, bool stream) noexcept
{
    return P == Pairing::interleaved && one_head_to_row<Norm>(f, stream) && !f.q_in.present() && !f.k_out.present() &&
           (f.rotary_dim / 2) % simd::float_lanes<A> == 0;
}

/// The coordinates of one head outside its rotary slice, copied (head_to_row).
template <class A, class T>
POSENC_ALWAYS_INLINE void head_pass_through(const HeadRun<T, T>& run, HeadSlice slice) noexcept
{
    if (slice.rotary_dim == slice.head_dim) return;
    norm_pass_through<A, false>(run, 0, slice.offset, Normed {});
    norm_pass_through<A, false>(run, slice.offset + slice.rotary_dim, slice.head_dim, Normed {});
}

/// One head (x) into one cache row of its own type (y), from registers, inline in the token loop
/// (no tiles, no staging buffer, no call: the per-token work of a one-head K, row
/// mla_decode_bf16/mla_cache of docs/benchmarks.md). row: as given (as_given, interleaved: in
/// registers through InterleavedPairsFromRow, whole registers of pairs) or as the token loop
/// prepared it (expanded for interleaved pairs). The same values as heads_to_rows.
template <class A, Pairing P, class T>
POSENC_ALWAYS_INLINE void head_to_row(const T* x, T* y, HeadSlice slice, const AngleRow& row, bool as_given,
                                      bool grouped_stores) noexcept
{
    const HeadRun<T, T> run {x, y, 0, 0, 1, false};
    if constexpr (P == Pairing::interleaved && rotates_row_as_stored<A, T>) {
        // apply's pairs for T (bfloat16 on AVX-512 BF16: even/odd), the row as stored; two chunks a
        // group, so that MLA's 32-pair k_pe is one group (row mla_decode_bf16/mla_cache)
        if (as_given) {
            const int pairs = slice.rotary_dim / 2;
            rotate_row<A, 2, GroupedStores>(run.from(slice.offset), apply_pairs<A, P, T>(pairs), Plain {}, row, pairs);
            head_pass_through<A>(run, slice);
            return;
        }
    }
    if (P == Pairing::interleaved && as_given) {
        const InterleavedPairsFromRow<A> pairs {{}, slice.rotary_dim / 2};
        const HeadRun<T, T> rotated = run.from(slice.offset);
        constexpr int lanes = simd::float_lanes<A>, group = norm_chunks<A> * lanes;
        int j = 0;
        for (; j + group <= slice.rotary_dim; j += group)
            rotate_group<A, GroupedStores>(rotated, pairs, Plain {}, row, j, FullWidth {},
                                           std::make_index_sequence<norm_chunks<A>>());
        for (; j < slice.rotary_dim; j += lanes)  // rotary_dim: a multiple of 2 lanes
            rotate_group<A, GroupedStores>(rotated, pairs, Plain {}, row, j, FullWidth {}, std::index_sequence<0> {});
    } else {
        norm_rotate_slice<A, P, false>(run, slice, row, Normed {}, grouped_stores);
    }
    head_pass_through<A>(run, slice);
}

/// The fused loop over tokens [range.begin, range.end): per token, the angle row once (expanded
/// for interleaved pairs), then Q and K to their views, K (and V) to the cache slot.
template <class A, Pairing P, bool Norm, class T, class Angles>
void fused_tokens(const FusedArgs<T>& f, const Angles& angles, const PositionIds& positions, TokenRange range) noexcept
{
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, bfloat16> || std::is_same_v<T, float16>,
                  "The fused SIMD steps read float, bfloat16 or float16; double takes the reference path.");
    alignas(64) float scratch_cos[max_pairs_per_row];
    alignas(64) float scratch_sin[max_pairs_per_row];
    alignas(64) float cos_dup[P == Pairing::interleaved ? 2 * max_pairs_per_row : 1];
    alignas(64) float sin_folded[P == Pairing::interleaved ? 2 * max_pairs_per_row : 1];
    const int num_pairs = f.rotary_dim / 2;
    const bool k_to_view = f.k_in.present() && f.k_out.present();
    const bool several_tokens = range.end - range.begin > 1;
    TokenStep step {{scratch_cos, scratch_sin},
                    several_tokens && simd::software_prefetch_pays<A>(),
                    several_tokens,
                    streams_cache(f, range)};
    const Normed k_norm {{f.k_weight.data, f.weight_offset}, nullptr, f.eps, f.head_dim};
    Normed q_norm {{f.q_weight.data, f.weight_offset}, nullptr, f.eps, f.head_dim};
    const HeadSlice slice {f.head_dim, f.rotary_dim, f.rotary_offset};
    const bool k_to_row = one_head_to_row<Norm>(f, step.stream), as_given = row_as_given<A, P, Norm>(f, step.stream);
    for (std::ptrdiff_t t = range.begin; t < range.end; ++t) {
        const std::int64_t slot = f.key_cache.present() ? f.slots[t] : -1;
        if (!f.q_in.present() && !k_to_view && slot < 0) continue;
        // the token's row in registers, step.row set member by member: a copy of the pair by one
        // 16-byte load of two 8-byte stores would wait for every earlier store, the previous
        // tokens' cache rows included (row mla_decode_bf16/mla_cache)
        AngleRow row {};
        if (num_pairs > 0) {
            row = angles.row(A {}, positions[t], 0, num_pairs, scratch_cos, scratch_sin);
            if (P == Pairing::interleaved && !as_given) {
                expand_interleaved_row<A>(row, num_pairs, cos_dup, sin_folded);
                row = AngleRow {cos_dup, sin_folded};
            }
        }
        step.row.cos = row.cos;
        step.row.sin = row.sin;
        if (f.q_multipliers.data != nullptr)
            q_norm.weights.scale = f.q_multipliers.data[t];  // with the norm only (the checks)
        if (f.q_rows.present()) heads_to_cache<A, P, Norm>(f.q_in, f.q_rows, t, t, slice, q_norm, step);
        else if (f.q_in.present()) heads_to_view<A, P, Norm>(f.q_in, f.q_out, t, slice, q_norm, step);
        if (k_to_view) heads_to_view<A, P, Norm>(f.k_in, f.k_out, t, slice, k_norm, step);
        if (slot < 0) continue;
        if (k_to_row)
            head_to_row<A, P>(f.k_in.head(t, 0),
                              reinterpret_cast<T*>(f.key_cache.head(static_cast<std::ptrdiff_t>(slot), 0)), slice, row,
                              as_given, several_tokens);
        else heads_to_cache<A, P, Norm>(f.k_in, f.key_cache, t, slot, slice, k_norm, step);
        // V: copied, or converted to the cache's type (no norm, no rotation)
        if (f.v_in.present() && !copy_values_to_slot<A>(f.v_in, f.value_cache, t, slot, f.v_head_dim, step.stream))
            heads_to_cache<A, P, false>(f.v_in, f.value_cache, t, slot, HeadSlice {f.v_head_dim, 0, 0}, Normed {},
                                        step);
    }
    if (step.stream) simd::store_fence<A>();
}

/// Picks the pairing and the norm (template parameters) of a fused call for arch A.
template <class A, class T, class Angles>
void fused_run(Pairing pairing, const FusedArgs<T>& f, const Angles& angles, const PositionIds& positions,
               TokenRange range) noexcept
{
    const bool half = pairing == Pairing::half_split;
    if (half && f.norm) fused_tokens<A, Pairing::half_split, true>(f, angles, positions, range);
    else if (half) fused_tokens<A, Pairing::half_split, false>(f, angles, positions, range);
    else if (f.norm) fused_tokens<A, Pairing::interleaved, true>(f, angles, positions, range);
    else fused_tokens<A, Pairing::interleaved, false>(f, angles, positions, range);
}

/// Whether an angle source maps (its position, pair) to the position that pair rotates by: the
/// gathering source of a multi-axis call (multi_axis_rows.hpp; its "position" is the token).
template <class Angles, class = void>
inline constexpr bool has_pair_positions = false;
template <class Angles>
inline constexpr bool
    has_pair_positions<Angles, std::void_t<decltype(std::declval<const Angles&>().position_of_pair(0, 0))>> = true;

/// The position pair `pair` of token t rotates by: positions[t], or the pair's axis's position.
template <class Angles>
std::int64_t reference_position(const Angles& angles, const PositionIds& positions, std::ptrdiff_t t, int pair) noexcept
{
    if constexpr (has_pair_positions<Angles>) return angles.position_of_pair(positions[t], pair);
    else return positions[t];
}

/// The reference path for double storage (qk_norm_rope only): per head, the norm in double,
/// then the rotation with cos/sin in double from the exactly reduced angle (each pair at its
/// position: reference_position).
template <class Angles>
void fused_tokens_double(const RopeSpec& spec, const FusedArgs<double>& f, const Angles& angles,
                         const PositionIds& positions, TokenRange range) noexcept
{
    const FrequencyTable& table = angles.frequencies();
    double buffer[max_fused_head_dim];
    auto one_tensor = [&](const HeadsView<const double>& in, const HeadsView<double>& out, const float* w,
                          std::ptrdiff_t t, double scale) {
        for (std::ptrdiff_t h = 0; h < in.heads; ++h) {
            const double* x = in.head(t, h);
            double sum = 0.0;
            for (int d = 0; d < f.head_dim; ++d) sum += x[d] * x[d];
            const double inv_rms = f.norm ? 1.0 / std::sqrt(sum / f.head_dim + static_cast<double>(f.eps)) : 1.0;
            for (int d = 0; d < f.head_dim; ++d)
                buffer[d] = f.norm ? x[d] * inv_rms * (static_cast<double>(w[d]) + f.weight_offset) : x[d];
            for (int i = 0; i < f.rotary_dim / 2; ++i) {
                const CosSin cs = posenc::cos_sin(table, reference_position(angles, positions, t, i), i);
                const PairCoordinates p = spec.pair_coordinates(i);
                const auto rotated = posenc::detail::rotate_pair(buffer[p.first], buffer[p.second], cs.cos, cs.sin);
                buffer[p.first] = rotated.first;
                buffer[p.second] = rotated.second;
            }
            double* y = out.head(t, h);
            for (int d = 0; d < f.head_dim; ++d) y[d] = scale * buffer[d];
        }
    };
    for (std::ptrdiff_t t = range.begin; t < range.end; ++t) {
        const double q_scale = f.q_multipliers.data != nullptr ? static_cast<double>(f.q_multipliers.data[t]) : 1.0;
        if (f.q_in.present()) one_tensor(f.q_in, f.q_out, f.q_weight.data, t, q_scale);
        if (f.k_in.present() && f.k_out.present()) one_tensor(f.k_in, f.k_out, f.k_weight.data, t, 1.0);
    }
}

}  // namespace detail
}  // namespace posenc::kernels
