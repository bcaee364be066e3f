// SPDX-License-Identifier: MIT
// posenc/kernels/detail/fused_checks.hpp: what the checked fused entry points verify
// (qk_norm_rope.hpp and kv_cache_write.hpp list the rules): a cache call meets
// cache_call_is_usual (inline, no message), then, if refused, check_cache_call_rules (the first
// broken rule named), both built from checks.hpp's named rules and the predicates below.
#pragma once

#ifndef POSENC_KERNELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/kernels/detail/fused_checks.hpp is internal to the kernels: include <posenc/kernels/qk_norm_rope.hpp or posenc/kernels/kv_cache_write.hpp> (or <posenc/kernels.hpp>) instead"
#endif

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "posenc/error.hpp"
#include "posenc/kernels/angle_source.hpp"
#include "posenc/kernels/detail/checks.hpp"
#include "posenc/kernels/detail/fused_loops.hpp"
#include "posenc/kernels/kv_cache_view.hpp"
#include "posenc/kernels/views.hpp"
#include "posenc/spec.hpp"

namespace posenc::kernels::detail {

/// Stands in for an angle source where a call rotates nothing (the norm alone): every position.
struct NoAngles {
    int pairs;
    int num_pairs() const noexcept { return pairs; }
    PositionRange position_range() const noexcept { return {-(std::int64_t {1} << 62), std::int64_t {1} << 62}; }
    const char* name() const noexcept { return "norm-only call"; }
    template <class Arch>
    AngleRow row(Arch, std::int64_t, int, int, float*, float*) const noexcept
    {
        return {nullptr, nullptr};
    }
};

inline void check_fused_head_dim(const RopeSpec& spec)
{
    if (spec.head_dim() > max_fused_head_dim)
        posenc::detail::raise("spec.head_dim", spec.head_dim(),
                              posenc::detail::cat({"must be <= ", max_fused_head_dim, " for the fused steps"}));
}

/// eps finite and >= 0; offset 0 or 1 (the weighting); weights present, of at least head_dim
/// floats, where a tensor is normalised.
inline void check_norm_parameters(float eps, int weighting, bool has_q, const FloatSpan& q_weight, bool has_k,
                                  const FloatSpan& k_weight, int head_dim)
{
    using posenc::detail::cat;
    if (!eps_is_valid(eps)) posenc::detail::raise("norm.eps", eps, "must be finite and >= 0");
    if (!weighting_is_known(weighting))
        posenc::detail::raise("norm.weighting", weighting,
                              "must be NormWeighting::weight or NormWeighting::one_plus_weight");
    if (has_q && q_weight.data == nullptr)
        throw posenc::error("norm.q_weight", "null", "must point to head_dim weights of Q");
    if (has_k && k_weight.data == nullptr)
        throw posenc::error("norm.k_weight", "null", "must point to head_dim weights of K");
    const std::string rule = cat({"must be >= head_dim ", head_dim, " (one weight per coordinate)"});
    if (has_q && q_weight.size < head_dim) posenc::detail::raise("norm.q_weight.size", q_weight.size, rule);
    if (has_k && k_weight.size < head_dim) posenc::detail::raise("norm.k_weight.size", k_weight.size, rule);
}

inline ByteRange bytes_of(const KvCacheView& c) noexcept
{
    const auto b = reinterpret_cast<std::uintptr_t>(c.data);
    return {b, b + static_cast<std::uintptr_t>(c.elements()) * element_bytes(c.storage)};
}

/// The bytes of the first n floats of a span (what a call reads of it).
inline ByteRange bytes_of(const FloatSpan& w, std::ptrdiff_t n) noexcept
{
    const auto b = reinterpret_cast<std::uintptr_t>(w.data);
    return {b, w.data == nullptr ? b : b + static_cast<std::uintptr_t>(n) * sizeof(float)};
}

/// The bytes of an argument and its name in messages.
struct NamedBytes {
    ByteRange bytes;
    const char* name;
};

[[noreturn]] inline void raise_overlap(const char* written_name, const char* other_name)
{
    throw posenc::error(written_name, "overlapping", std::string("must not share memory with ") + other_name);
}

/// `written` shares no byte with any of `others`, in order. The test inline, the message out of
/// line (a cache call makes about fifteen of these tests).
inline void require_apart(const NamedBytes& written, std::initializer_list<NamedBytes> others)
{
    for (const NamedBytes& other : others)
        if (written.bytes.intersects(other.bytes)) raise_overlap(written.name, other.name);
}

/// blocks x block_size x heads x row_elements below 2^60 elements (blocks, block_size >= 1;
/// heads, head_dim and the row width below 2^31: cache_columns_fit).
inline bool cache_elements_fit(const KvCacheView& c) noexcept
{
    const std::ptrdiff_t limit = PTRDIFF_MAX / 8;
    return product_within(c.blocks, c.block_size, limit) &&
           product_within(c.blocks * c.block_size, c.heads * c.row_elements(), limit);
}
/// The view's columns inside its rows: row_width 0 (packed) or >= 1, 0 <= column, column +
/// head_dim <= the row's elements, each below 2^31.
inline bool cache_columns_fit(const KvCacheView& c) noexcept
{
    const std::ptrdiff_t big = std::ptrdiff_t {1} << 31;
    return c.row_width >= 0 && c.row_width < big && c.column >= 0 && c.column < big && c.head_dim < big &&
           c.column + c.head_dim <= c.row_elements();
}
/// Two caches written by one call share no element: their byte spans are apart, or they are
/// views of the same rows (data, storage, layout, blocks, block_size, heads, row width) whose
/// columns do not meet (an MLA cache's k_pe and c_kv).
inline bool caches_apart(const KvCacheView& a, const KvCacheView& b) noexcept
{
    if (!bytes_of(a).intersects(bytes_of(b))) return true;
    const bool same_rows = a.data == b.data && a.storage == b.storage && a.layout == b.layout && a.blocks == b.blocks &&
                           a.block_size == b.block_size && a.heads == b.heads && a.row_elements() == b.row_elements();
    return same_rows && (a.column + a.head_dim <= b.column || b.column + b.head_dim <= a.column);
}
/// data aligned to its element size (a power of two: 4, 2 or 1 bytes).
inline bool is_aligned(const KvCacheView& c) noexcept
{
    return (reinterpret_cast<std::uintptr_t>(c.data) & (element_bytes(c.storage) - 1)) == 0;
}
/// The first head whose per-head scale is not valid (scale_is_valid); heads if none.
inline std::ptrdiff_t first_invalid_scale(const KvCacheView& c) noexcept
{
    std::ptrdiff_t h = 0;
    while (h < c.heads && scale_is_valid(c.scale.per_head.data[h])) ++h;
    return h;
}

/// Per-token query multipliers (optional): data present, size >= tokens (one per token), and the
/// multiplier of every token of the range finite.
inline void check_query_multipliers(const FloatSpan& m, std::ptrdiff_t tokens, TokenRange range)
{
    using posenc::detail::cat;
    if (!m.present()) return;
    if (m.data == nullptr) throw posenc::error("q_multipliers.data", "null", "must point to one multiplier per token");
    if (m.size < tokens)
        posenc::detail::raise("q_multipliers.size", m.size,
                              cat({"must be >= tokens ", tokens, " (one multiplier per token)"}));
    for (std::ptrdiff_t t = range.begin; t < range.end; ++t)
        if (!std::isfinite(m.data[t]))
            posenc::detail::raise(cat({"q_multipliers[", t, "]"}), m.data[t], "must be finite");
}

/// One cache: geometry, storage and scale; `heads` and `head_dim` the K (V) head count and width
/// (`source` names the width: "spec.head_dim", "v.head_dim"). Field names are built only on
/// failure (this runs on every checked call).
inline void check_cache(const KvCacheView& c, const char* name, std::ptrdiff_t heads, std::ptrdiff_t head_dim,
                        const char* source)
{
    using posenc::detail::cat;
    using posenc::detail::raise;
    auto field = [name](const char* member) { return cat({name, ".", member}); };
    if (c.data == nullptr) throw posenc::error(field("data"), "null", "must point to the cache");
    if (!is_enumerator(c.storage, CacheStorage::float8_e5m2))
        raise(field("storage"), static_cast<int>(c.storage),
              "must be one of float32, bfloat16, float16, float8_e4m3, int8, float8_e5m2");
    if (!is_enumerator(c.layout, CacheLayout::heads_major))
        raise(field("layout"), static_cast<int>(c.layout), "must be token_major or heads_major");
    if (!is_aligned(c))
        raise(field("data"), static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(c.data)),
              cat({"must be a multiple of ", element_bytes(c.storage), " (the alignment of a ", to_string(c.storage),
                   " element)"}));
    if (c.blocks < 1) raise(field("blocks"), c.blocks, "must be >= 1");
    if (c.block_size < 1) raise(field("block_size"), c.block_size, "must be >= 1");
    if (c.heads != heads) raise(field("heads"), c.heads, cat({"must equal the source's heads ", heads}));
    if (c.head_dim != head_dim) raise(field("head_dim"), c.head_dim, cat({"must equal ", source, " ", head_dim}));
    if (c.row_width < 0 || c.row_width >= (std::ptrdiff_t {1} << 31))
        raise(field("row_width"), c.row_width, "must be 0 (rows of head_dim) or in [1, 2^31)");
    if (!cache_columns_fit(c))
        raise(field("column"), c.column,
              cat({"must be in [0, row_width - head_dim] = [0, ", c.row_elements() - c.head_dim, "] (row_width ",
                   c.row_elements(), ", head_dim ", c.head_dim, ")"}));
    if (!cache_elements_fit(c))
        raise(field("blocks"), c.blocks, "times block_size, heads and head_dim must stay below 2^60 elements");
    if (c.size < c.elements())
        raise(field("size"), c.size,
              cat({c.row_width == 0 ? "must be >= blocks x block_size x heads x head_dim = "
                                    : "must be >= blocks x block_size x heads x row_width = ",
                   c.elements(), " (the elements the buffer holds)"}));
    const bool quantized = is_quantized(c.storage);
    using Kind = CacheScale::Kind;
    if (quantized && c.scale.kind == Kind::none)
        throw posenc::error(field("scale"), "none",
                            cat({"must be given (per tensor or per head) for a ", to_string(c.storage), " cache"}));
    if (!is_enumerator(c.scale.kind, CacheScale::Kind::per_head))
        raise(field("scale.kind"), static_cast<int>(c.scale.kind), "must be none, per_tensor or per_head");
    if (!quantized && c.scale.kind != Kind::none)
        throw posenc::error(field("scale"), c.scale.kind == Kind::per_tensor ? "per_tensor" : "per_head",
                            cat({"must be none for a ", to_string(c.storage), " cache (scales are for fp8 and int8)"}));
    if (c.scale.kind == Kind::per_tensor && !scale_is_valid(c.scale.value))
        raise(field("scale"), c.scale.value, "must be finite and > 0");
    if (c.scale.kind != Kind::per_head) return;
    if (c.scale.per_head.data == nullptr)
        throw posenc::error(field("scale.per_head"), "null", "must point to one scale per head");
    if (c.scale.per_head.size < c.heads)
        raise(field("scale.per_head.size"), c.scale.per_head.size,
              cat({"must be >= heads ", c.heads, " (one scale per head)"}));
    const std::ptrdiff_t h = first_invalid_scale(c);
    if (h < c.heads) raise(cat({name, ".scale[", h, "]"}), c.scale.per_head.data[h], "must be finite and > 0");
}

/// Whether every slot of tokens [range.begin, range.end) is -1 or in [0, cache_slots)
/// (slot_in_range), in one pass without a branch per slot (all_within).
inline bool slots_within(const SlotMapping& slots, TokenRange range, std::ptrdiff_t cache_slots) noexcept
{
    if (slots.data32() != nullptr) return all_within(slots.data32(), range, -1, cache_slots - 1);
    return all_within(slots.data64(), range, -1, cache_slots - 1);
}

/// Every slot of tokens [range.begin, range.end): -1 or in [0, slots).
inline void check_slots(const SlotMapping& slots, std::ptrdiff_t tokens, TokenRange range, std::ptrdiff_t cache_slots,
                        const char* cache_name)
{
    using posenc::detail::cat;
    if (!slots.present()) throw posenc::error("slot_mapping", "null", "must point to one slot per token");
    if (slots.count() != tokens)
        posenc::detail::raise("slot_mapping.count", slots.count(), cat({"must equal tokens ", tokens}));
    if (slots_within(slots, range, cache_slots)) return;
    for (std::ptrdiff_t t = range.begin; t < range.end; ++t) {  // the first slot outside, named
        const std::int64_t s = slots[t];
        if (!slot_in_range(s, cache_slots))
            posenc::detail::raise(cat({"slot_mapping[", t, "]"}), s,
                                  cat({"must be -1 (skip) or in [0, ", cache_slots, "), the slots of ", cache_name}));
    }
}

/// check_cache's rules as a predicate, without building a field name (cache_call_is_usual).
inline bool cache_is_valid(const KvCacheView& c, std::ptrdiff_t heads, std::ptrdiff_t head_dim) noexcept
{
    if (c.data == nullptr || !is_enumerator(c.storage, CacheStorage::float8_e5m2) ||
        !is_enumerator(c.layout, CacheLayout::heads_major) || !is_aligned(c) || c.blocks < 1 || c.block_size < 1 ||
        c.heads != heads || c.head_dim != head_dim || !cache_columns_fit(c) || !cache_elements_fit(c) ||
        c.size < c.elements())
        return false;
    using Kind = CacheScale::Kind;
    if (!is_quantized(c.storage)) return c.scale.kind == Kind::none;
    if (c.scale.kind == Kind::per_tensor) return scale_is_valid(c.scale.value);
    return c.scale.kind == Kind::per_head && c.scale.per_head.data != nullptr && c.scale.per_head.size >= c.heads &&
           first_invalid_scale(c) == c.heads;
}

/// Whether a cache call's K or V is given: a view with extents but no data counts (the rules
/// then refuse it).
template <class T>
bool is_given(const HeadsView<const T>& v) noexcept
{
    return v.present() || v.tokens != 0 || v.heads != 0;
}

/// The usual cache call (Q, if any, in place; every view usual), decided without building a
/// message: check_cache_call_rules specialised (tests/kernels/cache_call_checks.cpp draws mutated
/// calls and compares). It runs on every checked call: row decode_step_f32/qwen3_8b of
/// docs/benchmarks.md.
template <class T, class Angles>
bool cache_call_is_usual(const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                         const FusedArgs<T>& f, int weighting, TokenRange range) noexcept
{
    const int d = spec.head_dim();
    const std::ptrdiff_t tokens = f.k_in.tokens;
    if (f.q_multipliers.present() || f.q_rows.present()) return false;  // (rare: the rules check them)
    if (d > max_fused_head_dim || !usual_view_is_valid(f.k_in, d)) return false;
    if (f.norm && (!eps_is_valid(f.eps) || !weighting_is_known(weighting) ||
                   (f.q_in.present() && !weights_are_valid(f.q_weight, d)) || !weights_are_valid(f.k_weight, d)))
        return false;
    const bool has_q = f.q_in.present() || f.q_out.present();
    if (has_q && (!identical_views(f.q_in, f.q_out) || !usual_view_is_valid(f.q_in, d) || f.q_in.tokens != tokens))
        return false;
    if (!pairs_and_positions_are_usual(spec, angles, positions, range, tokens)) return false;
    if (!cache_is_valid(f.key_cache, f.k_in.heads, d)) return false;
    std::ptrdiff_t slots = f.key_cache.slots();
    const ByteRange k = bytes_of(f.k_in), q = bytes_of(f.q_in), key = bytes_of(f.key_cache);
    ByteRange v {0, 0}, value {0, 0};
    if (is_given(f.v_in)) {
        const std::ptrdiff_t vd = f.v_in.head_dim;
        if (vd < 1 || vd > max_fused_head_dim || !usual_view_is_valid(f.v_in, vd) || f.v_in.tokens != tokens ||
            !cache_is_valid(f.value_cache, f.v_in.heads, vd) || !caches_apart(f.key_cache, f.value_cache))
            return false;
        slots = std::min(slots, f.value_cache.slots());
        v = bytes_of(f.v_in);
        value = bytes_of(f.value_cache);
    } else if (f.value_cache.present()) {
        return false;
    }
    // Q's rows against K's and V's: where the byte ranges meet (several tokens of packed QKV), the
    // exact row test of the rules
    if ((q.intersects(k) && views_overlap(geometry(f.q_out), geometry(f.k_in))) ||
        (q.intersects(v) && views_overlap(geometry(f.q_out), geometry(f.v_in))))
        return false;
    // the written ranges (Q in place, the two caches) against everything else, bitwise: one test
    // of all of them, without a branch per pair
    const ByteRange qw = f.norm ? bytes_of(f.q_weight, d) : ByteRange {0, 0};
    const ByteRange kw = f.norm ? bytes_of(f.k_weight, d) : ByteRange {0, 0};
    auto meets = [](const ByteRange& written, const auto&... others) {
        return (static_cast<int>(written.intersects(others)) | ...);
    };
    // (the two caches against each other: caches_apart above)
    const int overlap = meets(q, key, value, qw, kw) | meets(key, k, v, qw, kw) | meets(value, k, v, qw, kw);
    return overlap == 0 && f.slots.present() && f.slots.count() == tokens && slots_within(f.slots, range, slots);
}

/// The written ranges apart from the rest: the value cache from every view and the key cache
/// (and Q's rows from V's), the key cache from every view, both caches and Q's output from the
/// norm's weights (without V, V's and the value cache's ranges are empty); then the query
/// multipliers: only with the norm and a Q, valid, apart from every written range.
template <class T>
void check_cache_call_memory(const FusedArgs<T>& f, TokenRange range, int head_dim)
{
    const NamedBytes q_in {bytes_of(f.q_in), "q_in"}, q_out {bytes_of(f.q_out), "q_out"}, k {bytes_of(f.k_in), "k"};
    const NamedBytes v {bytes_of(f.v_in), "v"}, key {bytes_of(f.key_cache), "key_cache"};
    const NamedBytes value {is_given(f.v_in) ? bytes_of(f.value_cache) : ByteRange {0, 0}, "value_cache"};
    if (is_given(f.v_in)) {
        if (!caches_apart(f.key_cache, f.value_cache)) raise_overlap("value_cache", "key_cache");
        require_apart(value, {k, v, q_in, q_out});
        if (f.q_out.present()) require_disjoint(f.q_out, "q_out", f.v_in, "v");
    }
    require_apart(key, {k, v, q_in, q_out});
    if (f.norm) {
        const NamedBytes q_weight {bytes_of(f.q_weight, head_dim), "norm.q_weight"};
        const NamedBytes k_weight {bytes_of(f.k_weight, head_dim), "norm.k_weight"};
        require_apart({key.bytes, "the cache"}, {q_weight, k_weight});
        require_apart({value.bytes, "the cache"}, {q_weight, k_weight});
        require_apart(q_out, {q_weight, k_weight});
    }
    if (!f.q_multipliers.present()) return;
    if (!f.norm)
        throw posenc::error(
            "q_multipliers", "given",
            "must be absent without the QK-norm (they scale Q in qk_norm_rope and qk_norm_rope_into_cache)");
    if (!f.q_out.present() && !f.q_rows.present())
        throw posenc::error("q_multipliers", "given", "must be absent when the call has no Q");
    check_query_multipliers(f.q_multipliers, f.k_in.tokens, range);
    const NamedBytes m {bytes_of(f.q_multipliers, f.k_in.tokens), "q_multipliers"};
    for (const NamedBytes& written : {q_out, key, value}) require_apart(written, {m});
}

/// Q written as rows of a cache view (CacheWrite::q_rows): q_in valid with K's tokens and apply's
/// rules, q_out absent, the rows a valid cache of Q's heads and head_dim with a row per token,
/// apart from every other argument.
template <class T, class Angles>
void check_q_rows(const RopeSpec& spec, const Angles& angles, const PositionIds& positions, const FusedArgs<T>& f,
                  TokenRange range)
{
    using posenc::detail::cat;
    if (f.q_out.present()) throw posenc::error("q_out", "given", "must be absent when Q goes to q_rows");
    if (!f.q_in.present()) throw posenc::error("q_in.data", "null", "must point to the Q that q_rows receives");
    const HeadsView<T> q_as_out(
        const_cast<T*>(f.q_in.data), f.q_in.size, {f.q_in.tokens, f.q_in.heads, f.q_in.head_dim},
        {f.q_in.token_stride, f.q_in.head_stride});  // apply's rules of Q in place (nothing written)
    check_rope_call(spec, angles, positions, QKViews<T>::in_place(q_as_out), range);
    const std::ptrdiff_t tokens = f.k_in.tokens;
    if (f.q_in.tokens != tokens)
        posenc::detail::raise("q_in.tokens", f.q_in.tokens, cat({"must equal k.tokens ", tokens}));
    check_cache(f.q_rows, "q_rows", f.q_in.heads, spec.head_dim(), "spec.head_dim");
    if (f.q_rows.slots() < tokens)
        posenc::detail::raise("q_rows.slots", f.q_rows.slots(),
                              cat({"must be >= tokens ", tokens, " (a row per token)"}));
    const int d = spec.head_dim();
    const ByteRange value = is_given(f.v_in) ? bytes_of(f.value_cache) : ByteRange {0, 0};
    require_apart({bytes_of(f.q_rows), "q_rows"},
                  {{bytes_of(f.q_in), "q_in"},
                   {bytes_of(f.k_in), "k"},
                   {bytes_of(f.v_in), "v"},
                   {bytes_of(f.key_cache), "key_cache"},
                   {value, "value_cache"},
                   {f.norm ? bytes_of(f.q_weight, d) : ByteRange {0, 0}, "norm.q_weight"},
                   {f.norm ? bytes_of(f.k_weight, d) : ByteRange {0, 0}, "norm.k_weight"},
                   {bytes_of(f.q_multipliers, f.q_multipliers.present() ? tokens : 0), "q_multipliers"}});
}

/// All of a cache call's rules (kv_cache_write.hpp), in order, each failure named.
template <class T, class Angles>
void check_cache_call_rules(const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                            const FusedArgs<T>& f, int weighting, TokenRange range)
{
    using posenc::detail::cat;
    check_fused_head_dim(spec);
    if (f.norm)
        check_norm_parameters(f.eps, weighting, f.q_in.present(), f.q_weight, true, f.k_weight, spec.head_dim());
    if (is_given(f.k_in)) check_view(f.k_in, "k", spec);
    else throw posenc::error("k.data", "null", "must point to the K to rotate into the cache");
    const std::ptrdiff_t tokens = f.k_in.tokens;
    if (f.q_rows.present()) {
        check_q_rows(spec, angles, positions, f, range);
    } else if (f.q_in.present() || f.q_out.present()) {
        // Q with K's positions, through apply's own rules.
        check_rope_call(spec, angles, positions, QKViews<T> {f.q_in, f.q_out, {}, {}}, range);
        if (f.q_in.tokens != tokens)
            posenc::detail::raise("q_in.tokens", f.q_in.tokens, cat({"must equal k.tokens ", tokens}));
        require_disjoint(f.q_out, "q_out", f.k_in, "k");
    } else {
        check_pairs_and_positions(spec, angles, positions, range, tokens);
    }
    check_cache(f.key_cache, "key_cache", f.k_in.heads, spec.head_dim(), "spec.head_dim");
    std::ptrdiff_t slots = f.key_cache.slots();
    const char* smallest = "key_cache";
    if (is_given(f.v_in)) {
        // V and its cache rows may be of another width than K's (an MLA cache's c_kv)
        if (f.v_in.head_dim < 1 || f.v_in.head_dim > max_fused_head_dim)
            posenc::detail::raise("v.head_dim", f.v_in.head_dim,
                                  cat({"must be in [1, ", max_fused_head_dim, "] for the fused steps"}));
        check_view(geometry(f.v_in), "v", static_cast<int>(f.v_in.head_dim));
        if (f.v_in.tokens != tokens)
            posenc::detail::raise("v.tokens", f.v_in.tokens, cat({"must equal k.tokens ", tokens}));
        check_cache(f.value_cache, "value_cache", f.v_in.heads, f.v_in.head_dim, "v.head_dim");
        if (f.value_cache.slots() < slots) {
            slots = f.value_cache.slots();
            smallest = "value_cache";
        }
    } else if (f.value_cache.present()) {
        throw posenc::error("v.data", "null",
                            "must point to the V to copy into value_cache (or leave value_cache empty)");
    }
    check_cache_call_memory(f, range, spec.head_dim());
    check_slots(f.slots, tokens, range, slots, smallest);
}

/// A cache call's rules: the usual case inline (cache_call_is_usual), the rest by the rules.
template <class T, class Angles>
void check_cache_call(const RopeSpec& spec, const Angles& angles, const PositionIds& positions, const FusedArgs<T>& f,
                      int weighting, TokenRange range)
{
    if (!cache_call_is_usual(spec, angles, positions, f, weighting, range))
        check_cache_call_rules(spec, angles, positions, f, weighting, range);
}

/// A qk_norm_rope call's rules (qk_norm_rope.hpp): apply's, then the norm's.
template <class T, class Angles>
void check_norm_call(const RopeSpec& spec, const Angles& angles, const PositionIds& positions, const QKViews<T>& views,
                     const FusedArgs<T>& f, int weighting, TokenRange range)
{
    const int d = spec.head_dim();
    check_fused_head_dim(spec);
    check_rope_call(spec, angles, positions, views, range);
    check_norm_parameters(f.eps, weighting, true, f.q_weight, views.has_k(), f.k_weight, d);
    const NamedBytes q_out {bytes_of(views.q_out), "q_out"}, k_out {bytes_of(views.k_out), "k_out"};
    const FloatSpan weights[] = {f.q_weight, f.k_weight};
    for (const FloatSpan& w : weights) {  // (a named array: nvcc 13's front end misreads the braced list here)
        const NamedBytes weight {bytes_of(w, d), "a norm weight"};
        require_apart(q_out, {weight});
        require_apart(k_out, {weight});
    }
    check_query_multipliers(f.q_multipliers, views.tokens(), range);
    const NamedBytes m {bytes_of(f.q_multipliers, views.tokens()), "q_multipliers"};
    require_apart(q_out, {m});
    require_apart(k_out, {m});
}

/// A qk_norm_rope call with Q to rows (qk_norm_rope.hpp, the q_rows form): q_out absent, q_in
/// present; then qk_norm_rope's rules with Q read in place (so q_in, like q_out there, apart from
/// K's output and the weights); the rows a valid cache view of Q's heads and head_dim with a row
/// per token, apart from every other argument.
template <class T, class Angles>
void check_norm_rows_call(const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                          const QKViews<T>& views, const FusedArgs<T>& f, int weighting, TokenRange range)
{
    using posenc::detail::cat;
    if (!f.q_rows.present()) throw posenc::error("q_rows.data", "null", "must point to the rows that receive Q");
    if (views.q_out.present()) throw posenc::error("q_out", "given", "must be absent when Q goes to q_rows");
    if (!views.q_in.present()) throw posenc::error("q_in.data", "null", "must point to the Q that q_rows receives");
    const HeadsView<const T>& q = views.q_in;
    const HeadsView<T> q_as_out(const_cast<T*>(q.data), q.size, {q.tokens, q.heads, q.head_dim},
                                {q.token_stride, q.head_stride});
    check_norm_call(spec, angles, positions, QKViews<T> {q, q_as_out, views.k_in, views.k_out}, f, weighting, range);
    check_cache(f.q_rows, "q_rows", q.heads, spec.head_dim(), "spec.head_dim");
    if (f.q_rows.slots() < q.tokens)
        posenc::detail::raise("q_rows.slots", f.q_rows.slots(),
                              cat({"must be >= q_in.tokens ", q.tokens, " (a row per token)"}));
    const int d = spec.head_dim();
    require_apart({bytes_of(f.q_rows), "q_rows"},
                  {{bytes_of(q), "q_in"},
                   {bytes_of(views.k_in), "k_in"},
                   {bytes_of(views.k_out), "k_out"},
                   {bytes_of(f.q_weight, d), "norm.q_weight"},
                   {bytes_of(f.k_weight, d), "norm.k_weight"},
                   {bytes_of(f.q_multipliers, f.q_multipliers.present() ? q.tokens : 0), "q_multipliers"}});
}

}  // namespace posenc::kernels::detail
