// SPDX-License-Identifier: MIT
// posenc/kernels/kv_cache_write.hpp: RoPE straight into a KV cache, optionally after the QK-norm.
//
// For every token t of the range whose slot s = slot_mapping[t] is not -1:
//
//     key_cache[s][h]   = store( RoPE_m(k[t][h]) )                    every K head h
//     value_cache[s][h] = store( v[t][h] )                            every V head h (if V is given)
//
// with m = positions[t], RoPE as apply.hpp computes it (forward, the spec's pairing, dims past
// rotary_dim copied), and store() the cache's element type (kv_cache_view.hpp): float, or
// rounded to nearest even bfloat16 / float16, or quantised fp8 e4m3 / int8 with the cache's scale
// (quantize.hpp: convert(fl(x / scale)), saturating). Q, if given, is rotated in the same pass
// (q_in -> q_out, in place or not) for every token, skipped or not. K itself is not written back:
// the cache is where attention reads it. Slots are written, never read; tokens with the same slot
// leave the last one's values. `stores` picks ordinary or non-temporal stores for the cache rows
// (CacheStores, kv_cache_view.hpp; by default non-temporal from 4 MiB written): the same values.
//
// qk_norm_rope_into_cache first normalises Q and K heads as qk_norm_rope.hpp does (V is never
// normalised): one engine step, from the QKV projection's output to the cache, in one pass.
//
// V and its cache may be of another width than K (v.head_dim 1 to 512), and the key and value
// caches may be column slices of the same wider rows (KvCacheView::in_rows: an MLA cache's
// [c_kv 512 | k_pe 64], k_pe rotated and c_kv copied in the same pass). Q may go, instead of to
// q_out, to rows of a cache view (CacheWrite::q_rows: row t for token t, in that view's storage
// and scale: fp8 e4m3 / e5m2 or int8 Q for the attention kernel). Multi-axis positions:
// fused_multi_axis.hpp.
//
// Error: the stored value before the final rounding or quantisation is apply's (3.41 u A |x| per
// pair coordinate, float) or qk_norm_rope's ((n/2 + 9) u A |y|); V is copied exactly. Then one
// rounding into the cache type: half an ulp of bfloat16 / float16, or the fp8 / int8 code
// convert(fl(x / scale)) of exactly the float value a float cache would hold.
//
// Checked entry points throw posenc::error naming the first broken rule: K absent or invalid
// (apply's view rules, for Q and V too, with K's token count); a cache absent, of an unknown
// storage, layout or scale kind, misaligned, not of its source's heads and head_dim, larger than
// its buffer, or with a scale its storage does not take (fp8 / int8 need one, finite and > 0);
// any overlap of a written buffer with another; a slot of a token in the range outside [-1,
// slots) of both caches (named with the token); positions outside the angle source; the norm's
// rules when normalising (docs/errors.md lists every message). Unchecked: debug assertions.
#pragma once

#define POSENC_KERNELS_DETAIL_ALLOWED 1  // this public header may include posenc/kernels/detail/*.hpp

#include <type_traits>

#include "posenc/config.hpp"
#include "posenc/kernels/angle_source.hpp"
#include "posenc/kernels/detail/fused_checks.hpp"
#include "posenc/kernels/detail/fused_loops.hpp"
#include "posenc/kernels/detail/simd_ops.hpp"
#include "posenc/kernels/dtypes.hpp"
#include "posenc/kernels/kv_cache_view.hpp"
#include "posenc/kernels/qk_norm_rope.hpp"
#include "posenc/kernels/views.hpp"
#include "posenc/spec.hpp"

namespace posenc::kernels {

/// What one cache call reads and writes; see the file comment.
template <class T>
struct CacheWrite {
    HeadsView<const T> q_in;  ///< absent (default): no Q
    HeadsView<T> q_out;  ///< q_in's output (the same view for in place)
    /// Q's output as rows of a cache view instead of q_out (q_out then absent): Q of token t goes
    /// to row t, [tokens][heads][head_dim] in KvCacheView::contiguous(data, size, tokens, heads,
    /// head_dim, token_major, scale), stored as that view's storage: fp8 e4m3 / e5m2 or int8 with
    /// its scale per tensor or per head (the attention kernel's quantised Q), or float / bfloat16 /
    /// float16. Absent (the default): Q to q_out.
    KvCacheView q_rows;
    HeadsView<const T> k;  ///< required: rotated into key_cache
    HeadsView<const T> v;  ///< absent: no V
    KvCacheView key_cache;
    KvCacheView value_cache;  ///< required with V
    SlotMapping slot_mapping;  ///< one slot per token, -1 = skip
    CacheStores stores = CacheStores::automatic;  ///< ordinary or non-temporal stores (kv_cache_view.hpp)
    FloatSpan
        q_multipliers;  ///< qk_norm_rope_into_cache only: Q of token t scaled by q_multipliers.data[t]; absent: none
};

namespace detail {

template <class T>
FusedArgs<T> cache_args(const RopeSpec& spec, const CacheWrite<T>& w) noexcept
{
    static_assert(is_storage_type<T> && !std::is_same_v<T, double>,
                  "The cache steps read float, bfloat16 or float16 tensors.");
    FusedArgs<T> f;
    f.head_dim = spec.head_dim();
    f.rotary_dim = spec.rotary_dim();
    f.rotary_offset = spec.rotary_offset();
    f.q_in = w.q_in;
    f.q_out = w.q_out;
    f.q_rows = w.q_rows;
    f.k_in = w.k;
    f.v_in = w.v;
    f.v_head_dim = static_cast<int>(w.v.head_dim);  // (checked: 1 to max_fused_head_dim)
    f.key_cache = w.key_cache;
    f.value_cache = w.value_cache;
    f.slots = w.slot_mapping;
    f.stores = w.stores;
    f.q_multipliers = w.q_multipliers;
    return f;
}

template <class T>
FusedArgs<T> cache_args(const RopeSpec& spec, const QkNorm& norm, const CacheWrite<T>& w) noexcept
{
    return with_norm(cache_args(spec, w), norm);
}

}  // namespace detail

/// Unchecked RoPE into the cache on an explicit arch. Preconditions: what rope_into_cache checks.
template <class Arch, class T, class Angles>
void rope_into_cache_unchecked_on(Arch, const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                                  const CacheWrite<T>& write, TokenRange range = all_tokens) noexcept
{
    range = detail::within(range, write.k.tokens);
    const detail::FusedArgs<T> f = detail::cache_args(spec, write);
#if !POSENC_DETAIL_DISPATCH_UNIT
    POSENC_ASSERT(detail::passes([&] { detail::check_cache_call(spec, angles, positions, f, 0, range); }));
#endif
    detail::fused_run<Arch>(spec.pairing(), f, angles, positions, range);
}

template <class T, class Angles>
void rope_into_cache_unchecked(const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                               const CacheWrite<T>& write, TokenRange range = all_tokens) noexcept
{
    rope_into_cache_unchecked_on(kernels::default_arch {}, spec, angles, positions, write, range);
}

/// Checked RoPE of K into the cache (and V copied, Q rotated) for tokens `range` (default
/// all_tokens).
template <class T, class Angles>
void rope_into_cache(const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                     const CacheWrite<T>& write, TokenRange range = all_tokens)
{
    range = detail::within(range, write.k.tokens);
    const detail::FusedArgs<T> f = detail::cache_args(spec, write);
    detail::check_cache_call(spec, angles, positions, f, 0, range);
    detail::fused_run<kernels::default_arch>(spec.pairing(), f, angles, positions, range);
}

/// Unchecked QK-norm + RoPE into the cache on an explicit arch.
template <class Arch, class T, class Angles>
void qk_norm_rope_into_cache_unchecked_on(Arch, const RopeSpec& spec, const QkNorm& norm, const Angles& angles,
                                          const PositionIds& positions, const CacheWrite<T>& write,
                                          TokenRange range = all_tokens) noexcept
{
    range = detail::within(range, write.k.tokens);
    const detail::FusedArgs<T> f = detail::cache_args(spec, norm, write);
#if !POSENC_DETAIL_DISPATCH_UNIT
    POSENC_ASSERT(detail::passes(
        [&] { detail::check_cache_call(spec, angles, positions, f, static_cast<int>(norm.weighting), range); }));
#endif
    detail::fused_run<Arch>(spec.pairing(), f, angles, positions, range);
}

template <class T, class Angles>
void qk_norm_rope_into_cache_unchecked(const RopeSpec& spec, const QkNorm& norm, const Angles& angles,
                                       const PositionIds& positions, const CacheWrite<T>& write,
                                       TokenRange range = all_tokens) noexcept
{
    qk_norm_rope_into_cache_unchecked_on(kernels::default_arch {}, spec, norm, angles, positions, write, range);
}

/// Checked QK-norm + RoPE of Q (in q_out) and K (into the cache), V copied: one engine step.
template <class T, class Angles>
void qk_norm_rope_into_cache(const RopeSpec& spec, const QkNorm& norm, const Angles& angles,
                             const PositionIds& positions, const CacheWrite<T>& write, TokenRange range = all_tokens)
{
    range = detail::within(range, write.k.tokens);
    const detail::FusedArgs<T> f = detail::cache_args(spec, norm, write);
    detail::check_cache_call(spec, angles, positions, f, static_cast<int>(norm.weighting), range);
    detail::fused_run<kernels::default_arch>(spec.pairing(), f, angles, positions, range);
}

}  // namespace posenc::kernels
