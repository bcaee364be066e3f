// SPDX-License-Identifier: MIT
// posenc/kernels/detail/fused_loops.hpp: the loops of the fused engine steps (qk_norm_rope.hpp,
// kv_cache_write.hpp hold the formulas, bounds and entry points).
//
// Per token: the angle row once (as apply does), then the heads of Q, K (and V) in tiles of
// norm_tile heads. Per tile, with the norm: one pass summing x^2 of each head in float
// registers (four partial sums per head; the heads are then in L1), the tile's 1 / rms in a few
// vector instructions (lane_sums, sqrt, divide); then one pass that rotates and stores each head
// (several tokens with a head whose halves are one register group each, rms_per_head: no
// first pass, each head's 1 / rms formed from the registers the rotation loads, head_inv_rms,
// with the prefetch hints of apply's loops where they pay),
// rotary dims rotated, the rest scaled or copied, into its destination: the output view, or the
// cache slot (float / bfloat16 / float16 stored directly from registers; fp8 and int8 through a
// float buffer of one head and the scalar converters of quantize.hpp; streamed rows through a
// staging buffer). The rotation pass holds a group of registers while every head of the tile
// goes through them, as apply's loops do: cos and sin, or with the norm the products of cos and
// sin with the weights (w + offset), so that a head costs the rotation and one multiply by its
// 1 / rms per register (qk_norm_rope.hpp states the arithmetic and its bound). V (copied, not
// rotated) into a cache of its own element type is a plain copy of its rows. Generic over the
// angle source (angle_source.hpp): only row() is used.
#pragma once

#ifndef POSENC_KERNELS_DETAIL_ALLOWED
#error "posenc/kernels/detail/fused_loops.hpp is internal to the kernels: include <posenc/kernels/qk_norm_rope.hpp or posenc/kernels/kv_cache_write.hpp> (or <posenc/kernels.hpp>) instead"
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
#include "posenc/kernels/angle_source.hpp"
#include "posenc/kernels/detail/rope_loops.hpp"
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
    bool norm = false;
    float eps = 0.0f;
    float weight_offset = 0.0f;  ///< 0: x * inv_rms * w;  1: x * inv_rms * (1 + w)
    FloatSpan q_weight;  ///< head_dim weights of Q (checked: size >= head_dim)
    FloatSpan k_weight;
    FloatSpan q_multipliers;  ///< with the norm: Q of token t scaled by q_multipliers.data[t]; absent: none
    HeadsView<const T> q_in;
    HeadsView<T> q_out;
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
    std::size_t row = static_cast<std::size_t>(f.key_cache.heads * f.key_cache.head_dim) * element_bytes(f.key_cache.storage);
    if (f.v_in.present()) row += static_cast<std::size_t>(f.value_cache.heads * f.value_cache.head_dim) * element_bytes(f.value_cache.storage);
    const std::size_t tokens = static_cast<std::size_t>(range.end - range.begin);
    return row > 0 && tokens >= (streaming_stores_from + row - 1) / row;  // tokens * row >= threshold, without overflow
}

/// Sum of x^2 over one head, accumulated in float (fma) in four registers (four independent
/// chains, so the adds of one head overlap) and returned per lane: the lanes are added across
/// heads at once by tile_inv_rms.
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

/// Heads handled per tile: their sums of squares, then their 1 / sqrt(sum / n + eps), are
/// independent of each other (the CPU overlaps them), instead of one divide-sqrt-divide chain in
/// front of every head's rotation.
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
            for (std::ptrdiff_t e = 0; e < head_dim; e += 64 / static_cast<std::ptrdiff_t>(sizeof(T))) simd::prefetch(x, ahead + e);
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

/// A tensor's norm weights as the formula scales by them: w[j] + offset (offset 0: x / rms * w;
/// 1: x / rms * (1 + w)), each formed in one float rounding where a register of weights is
/// loaded (once per group of pairs and tile of heads, never once per head), so no per-call copy
/// of the weights exists.
/// `scale` multiplies every weight (a per-token query multiplier, qk_norm_rope.hpp; 1 otherwise,
/// which changes no bit): (w[j] + offset) * scale, one more rounding.
struct NormWeights {
    const float* w = nullptr;
    float offset = 0.0f;
    float scale = 1.0f;
    template <class A>
    POSENC_ALWAYS_INLINE simd::floats<A> load(int j) const noexcept
    {
        return (simd::floats<A>::load_unaligned(w + j) + simd::floats<A>(offset)) * simd::floats<A>(scale);
    }
    template <class A>
    POSENC_ALWAYS_INLINE simd::floats<A> load_first(int j, int n) const noexcept
    {
        return (simd::load_first<A>(w + j, n) + simd::floats<A>(offset)) * simd::floats<A>(scale);
    }
    /// The weights from coordinate j on (null stays null: a call without the norm has none). A
    /// template on the arch only to keep per-ISA units' copies apart (dispatch.hpp).
    template <class A>
    NormWeights from(int j) const noexcept { return {w == nullptr ? nullptr : w + j, offset, scale}; }
};

/// The coordinates of a head that a fused step writes: [0, head_dim), of which
/// [offset, offset + rotary_dim) rotate (rotary_dim 0: none).
struct HeadSlice {
    int head_dim;
    int rotary_dim;
    int offset;
};

/// Registers of pairs per group in norm_rope_heads: the group's cos, sin and weights stay in
/// registers (4 per register of pairs) while every head of the tile passes through, so no load
/// of them can wait on a store to a head (store-to-load "4K aliasing" between a table row and a
/// head at the same page offset, as in rope_loops.hpp). 4 on AVX-512 (32 registers), 2 otherwise.
template <class A>
inline constexpr int norm_chunks = simd::float_lanes<A> >= 16 ? 4 : 2;

/// 1 / sqrt(sum / n + eps) of a head held whole in registers (a: its first half, b: its second):
/// the squares summed in four partial sums (chunk k with chunk k + N, the order of
/// head_sum_squares), then across lanes; each step one float rounding, as tile_inv_rms.
template <class A, std::size_t N>
POSENC_ALWAYS_INLINE simd::floats<A> head_inv_rms(const simd::floats<A> (&a)[N], const simd::floats<A> (&b)[N],
                                                  float eps, int n) noexcept
{
    using vec = simd::floats<A>;
    vec acc[N];
    for (std::size_t k = 0; k < N; ++k) acc[k] = simd::mul_add<A>(b[k], b[k], a[k] * a[k]);
    for (std::size_t width = N; width > 1; width /= 2)  // N is 1, 2 or 4: (acc0 + acc1) + (acc2 + acc3)
        for (std::size_t k = 0; k < width / 2; ++k) acc[k] = acc[2 * k] + acc[2 * k + 1];
    // the square root of a register (std::sqrt(float) is an inline function a per-ISA unit must
    // not emit: scripts/check-isa-symbols.sh); every lane holds the same correctly rounded value
    return simd::divide<A>(vec(1.0f), simd::sqrt<A>(vec(simd::horizontal_sum<A>(acc[0]) / static_cast<float>(n) + eps)));
}

/// One register of half_split pairs with the norm: (a, b) -> r (a cw_a - b sw_b, b cw_b + a sw_a),
/// where cw_a = c w_a, sw_b = s w_b, cw_b = c w_b, sw_a = s w_a were formed once per group and
/// token (norm_half_split_group), stored at once.
template <class A, class Out>
POSENC_ALWAYS_INLINE void norm_rotate_and_store(const simd::floats<A>& a, const simd::floats<A>& b,
                                                const simd::floats<A>& r, const simd::floats<A>& cw_a,
                                                const simd::floats<A>& sw_b, const simd::floats<A>& cw_b,
                                                const simd::floats<A>& sw_a, Out* out_a, Out* out_b) noexcept
{
    simd::store_rounded<A>(out_a, r * simd::mul_sub<A>(a, cw_a, b * sw_b));
    simd::store_rounded<A>(out_b, r * simd::mul_add<A>(b, cw_b, a * sw_a));
}

/// One group of half_split pairs (chunk k at k * lanes of each half) for `count` heads at
/// constant strides, rotated and stored. Norm: the weights are folded into cos and sin once for
/// the group (4 registers a chunk: c w_a, s w_b, c w_b, s w_a), so a head costs one multiply by
/// its inv_rms per output register on top of the rotation: inv_rms[h] RoPE(x w) = RoPE(x r w).
template <class A, bool Norm, class T, class Out, std::size_t... K>
POSENC_ALWAYS_INLINE void norm_half_split_group(const T* xa, const T* xb, std::ptrdiff_t x_stride, Out* ya, Out* yb,
                                                std::ptrdiff_t y_stride, int count, const float* cos, const float* sin,
                                                NormWeights w, int ja, int jb, const float* inv_rms, float eps, int n,
                                                bool grouped_stores, bool prefetch, std::index_sequence<K...>) noexcept
{
    using vec = simd::floats<A>;
    constexpr std::ptrdiff_t lanes = simd::float_lanes<A>;
    const vec c[] = {vec::load_unaligned(cos + K * lanes)...};
    const vec s[] = {vec::load_unaligned(sin + K * lanes)...};
    if constexpr (Norm) {
        const vec w_a[] = {w.load<A>(ja + static_cast<int>(K * lanes))...};
        const vec w_b[] = {w.load<A>(jb + static_cast<int>(K * lanes))...};
        const vec cw_a[] = {c[K] * w_a[K]...};
        const vec sw_b[] = {s[K] * w_b[K]...};
        const vec cw_b[] = {c[K] * w_b[K]...};
        const vec sw_a[] = {s[K] * w_a[K]...};
        for (int h = 0; h < count; ++h, xa += x_stride, xb += x_stride, ya += y_stride, yb += y_stride) {
            if (prefetch) simd::prefetch_halves_ahead<lanes>(xa, xb, x_stride, std::index_sequence<K...> {});
            const vec a[] = {simd::load_as_floats<A>(xa + K * lanes)...};
            const vec b[] = {simd::load_as_floats<A>(xb + K * lanes)...};
            const vec r = inv_rms != nullptr ? vec(inv_rms[h]) : head_inv_rms<A>(a, b, eps, n);
            if (grouped_stores) {  // the two store orders: rope_loops.hpp's half_split_group
                const vec a_out[] = {r * simd::mul_sub<A>(a[K], cw_a[K], b[K] * sw_b[K])...};
                const vec b_out[] = {r * simd::mul_add<A>(b[K], cw_b[K], a[K] * sw_a[K])...};
                simd::store_rounded_group<A>(ya, a_out);
                simd::store_rounded_group<A>(yb, b_out);
            } else {
                (norm_rotate_and_store<A>(a[K], b[K], r, cw_a[K], sw_b[K], cw_b[K], sw_a[K], ya + K * lanes, yb + K * lanes),
                 ...);
            }
        }
    } else {
        for (int h = 0; h < count; ++h, xa += x_stride, xb += x_stride, ya += y_stride, yb += y_stride) {
            if (prefetch) simd::prefetch_halves_ahead<lanes>(xa, xb, x_stride, std::index_sequence<K...> {});
            const vec a[] = {simd::load_as_floats<A>(xa + K * lanes)...};
            const vec b[] = {simd::load_as_floats<A>(xb + K * lanes)...};
            if (grouped_stores) {
                vec a_out[sizeof...(K)], b_out[sizeof...(K)];
                (rotate_pair_registers<A>(a[K], b[K], c[K], s[K], a_out[K], b_out[K]), ...);
                simd::store_rounded_group<A>(ya, a_out);
                simd::store_rounded_group<A>(yb, b_out);
            } else {
                (rotate_and_store_pair<A>(a[K], b[K], c[K], s[K], ya + K * lanes, yb + K * lanes), ...);
            }
        }
    }
}

/// One group of interleaved elements (chunk k at k * lanes) for `count` heads, with the
/// duplicated cos and sign-folded sin of rope_loops.hpp.
template <class A, bool Norm, class T, class Out, std::size_t... K>
POSENC_ALWAYS_INLINE void norm_interleaved_group(const T* x, std::ptrdiff_t x_stride, Out* y, std::ptrdiff_t y_stride,
                                                 int count, const float* cos_dup, const float* sin_folded, NormWeights w,
                                                 int j, const float* inv_rms, std::index_sequence<K...>) noexcept
{
    using vec = simd::floats<A>;
    constexpr std::ptrdiff_t lanes = simd::float_lanes<A>;
    const vec c[] = {vec::load_unaligned(cos_dup + K * lanes)...};
    const vec s[] = {vec::load_unaligned(sin_folded + K * lanes)...};
    if constexpr (Norm) {
        // weights folded in once for the group: swap(x w) = swap(x) swap(w)
        const vec wv[] = {w.load<A>(j + static_cast<int>(K * lanes))...};
        const vec cw[] = {c[K] * wv[K]...};
        const vec sw[] = {s[K] * simd::swap_pairs<A>(wv[K])...};
        for (int h = 0; h < count; ++h, x += x_stride, y += y_stride) {
            const vec v[] = {simd::load_as_floats<A>(x + K * lanes)...};
            const vec r(inv_rms[h]);
            const vec out[] = {r * simd::mul_add<A>(simd::swap_pairs<A>(v[K]), sw[K], v[K] * cw[K])...};
            simd::store_rounded_group<A>(y, out);
        }
    } else {
        for (int h = 0; h < count; ++h, x += x_stride, y += y_stride) {
            const vec v[] = {simd::load_as_floats<A>(x + K * lanes)...};
            const vec out[] = {simd::mul_add<A>(simd::swap_pairs<A>(v[K]), s[K], v[K] * c[K])...};
            simd::store_rounded_group<A>(y, out);
        }
    }
}

/// Coordinates [begin, end) of `count` heads (x + h * x_stride -> y + h * y_stride), not rotated:
/// y = x * (inv_rms[h] * (w + offset)) with the norm, a copy (rounded to Out) without.
template <class A, bool Norm, class T, class Out>
void norm_pass_through(const T* x0, std::ptrdiff_t x_stride, Out* y0, std::ptrdiff_t y_stride, int count, int begin, int end,
                       NormWeights w, const float* inv_rms) noexcept
{
    using vec = simd::floats<A>;
    constexpr int lanes = simd::float_lanes<A>;
    for (int h = 0; h < count && begin < end; ++h) {
        const T* x = x0 + h * x_stride;
        Out* y = y0 + h * y_stride;
        const vec r(Norm ? inv_rms[h] : 1.0f);
        int j = begin;
        for (; j + lanes <= end; j += lanes) {
            vec v = simd::load_as_floats<A>(x + j);
            if constexpr (Norm) v = v * (r * w.load<A>(j));
            simd::store_rounded<A>(y + j, v);
        }
        if (j < end) {
            const int n = end - j;
            vec v = simd::load_first<A>(x + j, n);
            if constexpr (Norm) v = v * (r * w.load_first<A>(j, n));
            simd::store_first<A>(y + j, v, n);
        }
    }
}

/// `count` heads at constant strides (x + h * x_stride -> y + h * y_stride): y = RoPE(x * s)
/// over the slice [offset, offset + rotary_dim) and x * s over the other coordinates, with s = inv_rms[h] * (w + offset)
/// when Norm, s = 1 otherwise; the rotated dims are computed as inv_rms[h] RoPE(x (w + offset)),
/// the weights folded into cos and sin (norm_half_split_group). cos/sin: the row as stored
/// (half_split) or duplicated and sign-folded (interleaved, rope_loops.hpp). Out: float,
/// bfloat16 or float16 (rounded to nearest even). `copy_rest`: store the dims past rotary_dim
/// (false only without the norm, in place). `grouped_stores`: the store order of rope_loops.hpp's
/// half_split_group (true when the call has several tokens). Whole registers of pairs go through
/// the groups above; the last partial register and the pass-through dims head by head. Not forced inline:
/// its callers (a tile of heads, or one head into a staging buffer) share one compiled copy
/// per type combination, which halves the per-ISA units' compile time; a call per tile of up
/// to norm_tile heads costs nothing measurable.
template <class A, Pairing P, bool Norm, class T, class Out>
void norm_rope_heads(const T* x_head, std::ptrdiff_t x_stride, Out* y_head, std::ptrdiff_t y_stride, int count, HeadSlice slice,
                     const float* cos, const float* sin, NormWeights w_head, const float* inv_rms,
                     float eps, bool copy_rest, bool grouped_stores, bool prefetch) noexcept
{
    using vec = simd::floats<A>;
    constexpr int lanes = simd::float_lanes<A>;
    constexpr int group = norm_chunks<A> * lanes;
    const int head_dim = slice.head_dim, rotary_dim = slice.rotary_dim;
    // the rotated slice: heads and weights from its first coordinate on
    const T* const x0 = x_head + slice.offset;
    Out* const y0 = y_head + slice.offset;
    const NormWeights w = w_head.template from<A>(slice.offset);
    if constexpr (P == Pairing::half_split) {
        const int half = rotary_dim / 2;
        int j = 0;
        for (; j + group <= half; j += group)
            norm_half_split_group<A, Norm>(x0 + j, x0 + half + j, x_stride, y0 + j, y0 + half + j, y_stride, count, cos + j,
                                           sin + j, w, j, half + j, inv_rms, eps, head_dim, grouped_stores,
                                           prefetch && (!Norm || inv_rms == nullptr), std::make_index_sequence<norm_chunks<A>>());
        for (; j + lanes <= half; j += lanes)
            norm_half_split_group<A, Norm>(x0 + j, x0 + half + j, x_stride, y0 + j, y0 + half + j, y_stride, count, cos + j,
                                           sin + j, w, j, half + j, inv_rms, eps, head_dim, grouped_stores,
                                           prefetch && (!Norm || inv_rms == nullptr), std::make_index_sequence<1>());
        if (j < half) {  // the last n < lanes pairs, through register-sized buffers, as the groups compute them
            const int n = half - j;
            const vec c = simd::load_first<A>(cos + j, n), s = simd::load_first<A>(sin + j, n);
            vec cw_a = c, sw_b = s, cw_b = c, sw_a = s;
            if constexpr (Norm) {
                const vec w_a = w.load_first<A>(j, n), w_b = w.load_first<A>(half + j, n);
                cw_a = c * w_a, sw_b = s * w_b, cw_b = c * w_b, sw_a = s * w_a;
            }
            for (int h = 0; h < count; ++h) {
                const T* x = x0 + h * x_stride;
                Out* y = y0 + h * y_stride;
                const vec a = simd::load_first<A>(x + j, n), b = simd::load_first<A>(x + half + j, n);
                vec a_out = simd::mul_sub<A>(a, cw_a, b * sw_b), b_out = simd::mul_add<A>(b, cw_b, a * sw_a);
                if constexpr (Norm) {
                    const vec r(inv_rms[h]);
                    a_out = r * a_out;
                    b_out = r * b_out;
                }
                simd::store_first<A>(y + j, a_out, n);
                simd::store_first<A>(y + half + j, b_out, n);
            }
        }
    } else {
        int j = 0;
        for (; j + group <= rotary_dim; j += group)
            norm_interleaved_group<A, Norm>(x0 + j, x_stride, y0 + j, y_stride, count, cos + j, sin + j, w, j, inv_rms,
                                            std::make_index_sequence<norm_chunks<A>>());
        for (; j + lanes <= rotary_dim; j += lanes)
            norm_interleaved_group<A, Norm>(x0 + j, x_stride, y0 + j, y_stride, count, cos + j, sin + j, w, j, inv_rms,
                                            std::make_index_sequence<1>());
        if (j < rotary_dim) {
            const int n = rotary_dim - j;
            vec c = simd::load_first<A>(cos + j, n), s = simd::load_first<A>(sin + j, n);
            if constexpr (Norm) {
                const vec wv = w.load_first<A>(j, n);
                c = c * wv;
                s = s * simd::swap_pairs<A>(wv);
            }
            for (int h = 0; h < count; ++h) {
                const vec v = simd::load_first<A>(x0 + h * x_stride + j, n);
                vec out = simd::mul_add<A>(simd::swap_pairs<A>(v), s, v * c);
                if constexpr (Norm) out = vec(inv_rms[h]) * out;
                simd::store_first<A>(y0 + h * y_stride + j, out, n);
            }
        }
    }
    if (!copy_rest || rotary_dim == head_dim) return;
    norm_pass_through<A, Norm>(x_head, x_stride, y_head, y_stride, count, 0, slice.offset, w_head, inv_rms);
    norm_pass_through<A, Norm>(x_head, x_stride, y_head, y_stride, count, slice.offset + rotary_dim, head_dim, w_head, inv_rms);
}

/// Stores n floats as the codes of an 8-bit cache: convert(fl(v / scale)) (quantize.hpp).
template <class A>
void store_quantized(const float* v, std::byte* dst, int n, CacheStorage storage, float scale) noexcept
{
    if (storage == CacheStorage::float8_e4m3) {
        for (int i = 0; i < n; ++i) dst[i] = static_cast<std::byte>(to_float8_e4m3_on<A>(v[i] / scale).bits);
    } else {
        for (int i = 0; i < n; ++i) dst[i] = static_cast<std::byte>(static_cast<std::uint8_t>(quantize_int8_on<A>(v[i] / scale)));
    }
}

/// Whether a normalising call forms each head's 1 / rms from the registers norm_rope_heads
/// rotates (inv_rms null, head_inv_rms) rather than in tiles first (tile_inv_rms). Possible
/// when half_split, every dim rotated and each half exactly one group of norm_chunks registers
/// (head_dim 128 on AVX-512, 32 on AVX2); then a tile is the whole tensor: no pass over the
/// heads before the rotation, so the loads from memory of one head overlap the arithmetic of the
/// previous ones. Chosen for several tokens (row fused_f32/norm_rope against fused_f32/stream);
/// a one-token call is faster in tiles of 16 (16 independent sums, then one vector sqrt: row
/// decode_step_f32/qwen3_8b; docs/benchmarks.md, "Measurements behind the kernels' choices").
template <class A, Pairing P>
bool rms_per_head(int head_dim, int rotary_dim, bool several_tokens) noexcept
{
    constexpr int group = norm_chunks<A> * simd::float_lanes<A>;
    return several_tokens && P == Pairing::half_split && rotary_dim == head_dim && head_dim == 2 * group;
}

/// Every head of one tensor of token t to its destination: an output view (out != null) or the
/// cache at `slot`. `rotary_dim` 0 skips the rotation.
template <class A, Pairing P, bool Norm, class T>
POSENC_ALWAYS_INLINE void heads_to_view(const HeadsView<const T>& in, const HeadsView<T>& out, std::ptrdiff_t t,
                                        HeadSlice slice, const float* cos, const float* sin,
                                        NormWeights w, float eps, bool prefetch, bool several_tokens) noexcept
{
    const int head_dim = slice.head_dim;
    const bool copy_rest = Norm || static_cast<const void*>(out.data) != static_cast<const void*>(in.data);
    const bool per_head = Norm && rms_per_head<A, P>(head_dim, slice.rotary_dim, several_tokens);
    const std::ptrdiff_t tile = per_head ? in.heads : norm_tile;
    alignas(64) float inv_rms[norm_tile + 16];
    for (std::ptrdiff_t h0 = 0; h0 < in.heads; h0 += tile) {
        const int count = static_cast<int>(std::min<std::ptrdiff_t>(tile, in.heads - h0));
        if constexpr (Norm)
            if (!per_head) tile_inv_rms<A>(in, t, h0, count, head_dim, eps, inv_rms, prefetch);
        norm_rope_heads<A, P, Norm>(in.head(t, h0), in.head_stride, out.head(t, h0), out.head_stride, count, slice, cos,
                                    sin, w, per_head ? nullptr : inv_rms, eps, copy_rest, several_tokens, prefetch);
    }
}

/// The cache storage that holds elements of type T unchanged (float, bfloat16, float16).
template <class T>
inline constexpr CacheStorage storage_of = std::is_same_v<T, float>      ? CacheStorage::float32
                                           : std::is_same_v<T, bfloat16> ? CacheStorage::bfloat16
                                                                         : CacheStorage::float16;

/// `heads` rows of n elements from x (rows x_stride apart) to y (y_stride apart), bit for bit, in
/// register-sized byte moves (the last partial register through memcpy): one run when both
/// sides are contiguous (a slot of a token-major or paged cache, V inside packed QKV), a run per
/// row otherwise. Register moves rather than one memcpy call: faster for a decode step's few KiB
/// of V (row decode_step_f32/qwen3_8b; docs/benchmarks.md, "Measurements behind the kernels' choices").
template <class A, class T>
void copy_heads(const T* x, std::ptrdiff_t x_stride, T* y, std::ptrdiff_t y_stride, std::ptrdiff_t heads, int n) noexcept
{
    const std::size_t row = static_cast<std::size_t>(n) * sizeof(T);
    auto copy = [](void* dst, const void* src, std::size_t bytes) {
        using batch = xsimd::batch<std::uint8_t, A>;
        auto* d = static_cast<std::uint8_t*>(dst);
        const auto* s = static_cast<const std::uint8_t*>(src);
        std::size_t i = 0;
        for (; i + batch::size <= bytes; i += batch::size) batch::load_unaligned(s + i).store_unaligned(d + i);
        std::memcpy(d + i, s + i, bytes - i);
    };
    if (heads == 1 || (x_stride == n && y_stride == n)) {
        copy(y, x, row * static_cast<std::size_t>(heads));
        return;
    }
    for (std::ptrdiff_t h = 0; h < heads; ++h) copy(y + h * y_stride, x + h * x_stride, row);
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
void stream_rows(std::byte* dst, std::ptrdiff_t dst_step, const std::byte* src, std::ptrdiff_t src_step, std::ptrdiff_t rows,
                 std::size_t row_bytes) noexcept
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
/// (copy_heads), made here in the token loop rather than through heads_to_cache's frame (row
/// decode_step_f32/qwen3_8b); streamed rows straight from V with non-temporal stores
/// (simd::stream_copy), without a staging buffer (row cache_f32/rope_cache; docs/benchmarks.md, "Measurements behind the kernels' choices"),
/// each row that stream_copy cannot write by a plain copy. Returns false, copying
/// nothing, for a cache of another element type.
template <class A, class T>
POSENC_ALWAYS_INLINE bool copy_values_to_slot(const HeadsView<const T>& v, const KvCacheView& cache, std::ptrdiff_t t,
                                              std::int64_t slot, int head_dim, bool stream) noexcept
{
    if (cache.storage != storage_of<T>) return false;
    const std::ptrdiff_t s = static_cast<std::ptrdiff_t>(slot);
    const T* x = v.head(t, 0);
    T* y = reinterpret_cast<T*>(cache.head(s, 0));
    const std::ptrdiff_t step = slot_head_step(cache, s, v.heads);
    if (!stream) {
        copy_heads<A>(x, v.head_stride, y, step, v.heads, head_dim);
        return true;
    }
    const auto size = static_cast<std::ptrdiff_t>(sizeof(T));
    stream_rows<A>(reinterpret_cast<std::byte*>(y), step * size, reinterpret_cast<const std::byte*>(x), v.head_stride * size,
                   v.heads, static_cast<std::size_t>(head_dim) * sizeof(T));
    return true;
}

/// Bytes of rows a streamed cache write forms before writing them with non-temporal stores:
/// a whole token's K of 8 heads of 128 floats, or more heads of fewer bytes. One stage of heads
/// rather than one head at a time (row cache_f32/rope_cache against cache_f32/copy_kv;
/// docs/benchmarks.md, "Measurements behind the kernels' choices").
inline constexpr std::size_t cache_stage_bytes = 16384;

/// Every head of one tensor of token t into its cache row at `slot`. Float and 16-bit caches are
/// written straight from registers, a tile of heads at a time; `stream`: up to
/// cache_stage_bytes of rows are formed in a staging buffer, then written with non-temporal
/// stores (simd::stream_copy) where their address and length allow (in one run when the slot's
/// heads are contiguous). 8-bit caches go head by head through a float buffer and the converters.
template <class A, Pairing P, bool Norm, class T>
void heads_to_cache(const HeadsView<const T>& in, const KvCacheView& cache, std::ptrdiff_t t, std::int64_t slot,
                    HeadSlice slice, const float* cos, const float* sin, NormWeights w, float eps,
                    bool prefetch, bool several_tokens, bool stream) noexcept
{
    const int head_dim = slice.head_dim;
    alignas(64) float buffer[max_fused_head_dim];
    alignas(64) std::byte staging[cache_stage_bytes];
    static_assert(cache_stage_bytes >= max_fused_head_dim * sizeof(float), "the staging buffer holds a head");
    const std::size_t row_bytes = static_cast<std::size_t>(head_dim) * element_bytes(cache.storage);
    const std::ptrdiff_t s = static_cast<std::ptrdiff_t>(slot);
    const std::ptrdiff_t head_step = slot_head_step(cache, s, in.heads);
    const bool per_head = Norm && rms_per_head<A, P>(head_dim, slice.rotary_dim, several_tokens);
    const std::ptrdiff_t tile = per_head ? in.heads : norm_tile;
    alignas(64) float inv_rms_tile[norm_tile + 16];
    const float* const inv_rms = per_head ? nullptr : inv_rms_tile;
    // `count` heads from x to rows `step` elements apart at dst, in the cache's element type;
    // false for an 8-bit cache
    auto to_rows = [&](const T* x, std::byte* dst, std::ptrdiff_t step, int count, const float* r) {
        switch (cache.storage) {
        case CacheStorage::float32:
            norm_rope_heads<A, P, Norm>(x, in.head_stride, reinterpret_cast<float*>(dst), step, count, slice, cos, sin, w,
                                        r, eps, true, several_tokens, prefetch);
            return true;
        case CacheStorage::bfloat16:
            norm_rope_heads<A, P, Norm>(x, in.head_stride, reinterpret_cast<bfloat16*>(dst), step, count, slice, cos, sin, w,
                                        r, eps, true, several_tokens, prefetch);
            return true;
        case CacheStorage::float16:
            norm_rope_heads<A, P, Norm>(x, in.head_stride, reinterpret_cast<float16*>(dst), step, count, slice, cos, sin, w,
                                        r, eps, true, several_tokens, prefetch);
            return true;
        default:
            return false;
        }
    };
    const int stage_heads = static_cast<int>(cache_stage_bytes / row_bytes);
    for (std::ptrdiff_t h0 = 0; h0 < in.heads; h0 += tile) {
        const int count = static_cast<int>(std::min<std::ptrdiff_t>(tile, in.heads - h0));
        if constexpr (Norm)
            if (!per_head) tile_inv_rms<A>(in, t, h0, count, head_dim, eps, inv_rms_tile, prefetch);
        const T* x0 = in.head(t, h0);
        if (!stream) {
            if (to_rows(x0, cache.head(s, h0), head_step, count, inv_rms)) continue;
        } else if (cache.storage != CacheStorage::float8_e4m3 && cache.storage != CacheStorage::int8) {
            for (int i0 = 0; i0 < count; i0 += stage_heads) {
                const int n = std::min(stage_heads, count - i0);
                to_rows(x0 + i0 * in.head_stride, staging, head_dim, n, inv_rms == nullptr ? nullptr : inv_rms + i0);
                const auto element = static_cast<std::ptrdiff_t>(element_bytes(cache.storage));
                stream_rows<A>(cache.head(s, h0 + i0), head_step * element, staging, static_cast<std::ptrdiff_t>(row_bytes), n,
                               row_bytes);
            }
            continue;
        }
        // 8-bit caches: head by head through the float buffer, and the staging buffer when streamed
        for (int i = 0; i < count; ++i) {
            const std::ptrdiff_t h = h0 + i;
            std::byte* const row = cache.head(s, h);
            const bool staged = stream && simd::stream_copy_possible<A>(row, row_bytes);
            norm_rope_heads<A, P, Norm>(in.head(t, h), 0, buffer, 0, 1, slice, cos, sin, w,
                                        inv_rms == nullptr ? nullptr : inv_rms + i, eps, true, several_tokens, false);
            store_quantized<A>(buffer, staged ? staging : row, head_dim, cache.storage,
                               cache.scale.kind == CacheScale::Kind::per_head ? cache.scale.per_head.data[h] : cache.scale.value);
            if (staged) simd::stream_copy<A>(row, staging, row_bytes);
        }
    }
}

/// The fused loop over tokens [range.begin, range.end).
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
    const bool has_q = f.q_in.present();
    const bool k_to_view = f.k_in.present() && f.k_out.present();
    const bool to_cache = f.key_cache.present();
    const float* cos = scratch_cos;
    const float* sin = scratch_sin;
    const bool several_tokens = range.end - range.begin > 1;
    const bool prefetch = several_tokens && simd::software_prefetch_pays<A>();  // as apply
    const bool stream = streams_cache(f, range);
    const NormWeights k_weight {f.k_weight.data, f.weight_offset};
    NormWeights q_weight {f.q_weight.data, f.weight_offset};
    const HeadSlice slice {f.head_dim, f.rotary_dim, f.rotary_offset};
    for (std::ptrdiff_t t = range.begin; t < range.end; ++t) {
        const std::int64_t slot = to_cache ? f.slots[t] : -1;
        if (!has_q && !k_to_view && slot < 0) continue;
        if (num_pairs > 0) {
            const AngleRow row = angles.row(A {}, positions[t], 0, num_pairs, scratch_cos, scratch_sin);
            cos = row.cos;
            sin = row.sin;
            if constexpr (P == Pairing::interleaved) {
                expand_interleaved_row<A>(row, num_pairs, cos_dup, sin_folded);
                cos = cos_dup;
                sin = sin_folded;
            }
        }
        if (f.q_multipliers.data != nullptr) q_weight.scale = f.q_multipliers.data[t];  // with the norm only (the checks)
        if (has_q) heads_to_view<A, P, Norm>(f.q_in, f.q_out, t, slice, cos, sin, q_weight, f.eps, prefetch, several_tokens);
        if (k_to_view) heads_to_view<A, P, Norm>(f.k_in, f.k_out, t, slice, cos, sin, k_weight, f.eps, prefetch, several_tokens);
        if (slot >= 0) {
            heads_to_cache<A, P, Norm>(f.k_in, f.key_cache, t, slot, slice, cos, sin, k_weight, f.eps, prefetch,
                                       several_tokens, stream);
            // V: copied, or converted to the cache's type (no norm, no rotation)
            if (f.v_in.present() && !copy_values_to_slot<A>(f.v_in, f.value_cache, t, slot, f.head_dim, stream))
                heads_to_cache<A, P, false>(f.v_in, f.value_cache, t, slot, HeadSlice {f.head_dim, 0, 0}, cos, sin,
                                            NormWeights {}, 0.0f, prefetch, several_tokens, stream);
        }
    }
    if (stream) simd::store_fence<A>();
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

/// The reference path for double storage (qk_norm_rope only): per head, the norm in double,
/// then the rotation with cos/sin in double from the exactly reduced angle.
template <class Angles>
void fused_tokens_double(const RopeSpec& spec, const FusedArgs<double>& f, const Angles& angles,
                         const PositionIds& positions, TokenRange range) noexcept
{
    const FrequencyTable& table = angles.frequencies();
    double buffer[max_fused_head_dim];
    auto one_tensor = [&](const HeadsView<const double>& in, const HeadsView<double>& out, const float* w,
                          std::ptrdiff_t t, std::int64_t position, double scale) {
        for (std::ptrdiff_t h = 0; h < in.heads; ++h) {
            const double* x = in.head(t, h);
            double sum = 0.0;
            for (int d = 0; d < f.head_dim; ++d) sum += x[d] * x[d];
            const double inv_rms = f.norm ? 1.0 / std::sqrt(sum / f.head_dim + static_cast<double>(f.eps)) : 1.0;
            for (int d = 0; d < f.head_dim; ++d)
                buffer[d] = f.norm ? x[d] * inv_rms * (static_cast<double>(w[d]) + f.weight_offset) : x[d];
            for (int i = 0; i < f.rotary_dim / 2; ++i) {
                const CosSin cs = posenc::cos_sin(table, position, i);
                const PairCoordinates p = spec.pair_coordinates(i);
                const double a = buffer[p.first], b = buffer[p.second];
                buffer[p.first] = a * cs.cos - b * cs.sin;
                buffer[p.second] = b * cs.cos + a * cs.sin;
            }
            double* y = out.head(t, h);
            for (int d = 0; d < f.head_dim; ++d) y[d] = scale * buffer[d];
        }
    };
    for (std::ptrdiff_t t = range.begin; t < range.end; ++t) {
        const double q_scale = f.q_multipliers.data != nullptr ? static_cast<double>(f.q_multipliers.data[t]) : 1.0;
        if (f.q_in.present()) one_tensor(f.q_in, f.q_out, f.q_weight.data, t, positions[t], q_scale);
        if (f.k_in.present() && f.k_out.present()) one_tensor(f.k_in, f.k_out, f.k_weight.data, t, positions[t], 1.0);
    }
}

}  // namespace detail
}  // namespace posenc::kernels
