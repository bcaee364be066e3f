// SPDX-License-Identifier: MIT
// posenc/kernels/detail/fused_checks.hpp: what the checked fused entry points verify
// (qk_norm_rope.hpp and rope_cache.hpp list the rules) before entering a kernel.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
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

/// eps finite and >= 0; offset 0 or 1 (the weighting); weights present where a tensor is normalised.
inline void check_norm_parameters(float eps, int weighting, bool has_q, const float* q_weight, bool has_k,
                                  const float* k_weight)
{
    if (!std::isfinite(eps) || eps < 0.0f) posenc::detail::raise("norm.eps", eps, "must be finite and >= 0");
    if (weighting != 0 && weighting != 1)
        posenc::detail::raise("norm.weighting", weighting, "must be NormWeighting::weight or NormWeighting::one_plus_weight");
    if (has_q && q_weight == nullptr) throw posenc::error("norm.q_weight", "null", "must point to head_dim weights of Q");
    if (has_k && k_weight == nullptr) throw posenc::error("norm.k_weight", "null", "must point to head_dim weights of K");
}

inline ByteRange bytes_of(const KvCacheView& c) noexcept
{
    const auto b = reinterpret_cast<std::uintptr_t>(c.data);
    return {b, b + static_cast<std::uintptr_t>(c.elements()) * element_bytes(c.storage)};
}

inline ByteRange bytes_of(const float* w, int n) noexcept
{
    const auto b = reinterpret_cast<std::uintptr_t>(w);
    return {b, w == nullptr ? b : b + static_cast<std::uintptr_t>(n) * sizeof(float)};
}

[[noreturn]] inline void raise_overlap(const char* written_name, const char* other_name)
{
    throw posenc::error(written_name, "overlapping", std::string("must not share memory with ") + other_name);
}

/// The test inline, the message out of line (a cache call makes about fifteen of these tests).
inline void require_apart(ByteRange written, const char* written_name, ByteRange other, const char* other_name)
{
    if (written.intersects(other)) raise_overlap(written_name, other_name);
}

/// One cache: geometry, storage and scale; `heads` the K (V) head count. Field names are built
/// only on failure (this runs on every checked call).
inline void check_cache(const KvCacheView& c, const char* name, std::ptrdiff_t heads, const RopeSpec& spec)
{
    using posenc::detail::cat;
    using posenc::detail::raise;
    auto field = [name](const char* member) { return cat({name, ".", member}); };
    if (c.data == nullptr) throw posenc::error(field("data"), "null", "must point to the cache");
    if (c.blocks < 1) raise(field("blocks"), c.blocks, "must be >= 1");
    if (c.block_size < 1) raise(field("block_size"), c.block_size, "must be >= 1");
    if (c.heads != heads) raise(field("heads"), c.heads, cat({"must equal the source's heads ", heads}));
    if (c.head_dim != spec.head_dim()) raise(field("head_dim"), c.head_dim, cat({"must equal spec.head_dim ", spec.head_dim()}));
    const std::ptrdiff_t limit = PTRDIFF_MAX / 8;
    if (!product_within(c.blocks, c.block_size, limit) || !product_within(c.blocks * c.block_size, c.heads * c.head_dim, limit))
        raise(field("blocks"), c.blocks, "times block_size, heads and head_dim must stay below 2^60 elements");
    if (c.size < c.elements())
        raise(field("size"), c.size,
              cat({"must be >= blocks x block_size x heads x head_dim = ", c.elements(), " (the elements the buffer holds)"}));
    const bool quantized = is_quantized(c.storage);
    using Kind = CacheScale::Kind;
    if (quantized && c.scale.kind == Kind::none)
        throw posenc::error(field("scale"), "none", cat({"must be given (per tensor or per head) for a ", to_string(c.storage), " cache"}));
    if (!quantized && c.scale.kind != Kind::none)
        throw posenc::error(field("scale"), c.scale.kind == Kind::per_tensor ? "per_tensor" : "per_head",
                            cat({"must be none for a ", to_string(c.storage), " cache (scales are for fp8 and int8)"}));
    auto scale_is_valid = [](float s) { return std::isfinite(s) && s > 0.0f; };
    if (c.scale.kind == Kind::per_tensor && !scale_is_valid(c.scale.value)) raise(field("scale"), c.scale.value, "must be finite and > 0");
    if (c.scale.kind == Kind::per_head) {
        if (c.scale.per_head == nullptr) throw posenc::error(field("scale.per_head"), "null", "must point to one scale per head");
        for (std::ptrdiff_t h = 0; h < c.heads; ++h)
            if (!scale_is_valid(c.scale.per_head[h]))
                raise(cat({name, ".scale[", h, "]"}), c.scale.per_head[h], "must be finite and > 0");
    }
}

/// Every slot of tokens [range.begin, range.end): -1 or in [0, slots).
inline void check_slots(const SlotMapping& slots, std::ptrdiff_t tokens, TokenRange range, std::ptrdiff_t cache_slots,
                        const char* cache_name)
{
    using posenc::detail::cat;
    if (!slots.present()) throw posenc::error("slot_mapping", "null", "must point to one slot per token");
    if (slots.count() != tokens) posenc::detail::raise("slot_mapping.count", slots.count(), cat({"must equal tokens ", tokens}));
    for (std::ptrdiff_t t = range.begin; t < range.end; ++t) {
        const std::int64_t s = slots[t];
        if (s < -1 || s >= cache_slots)
            posenc::detail::raise(cat({"slot_mapping[", t, "]"}), s,
                                  cat({"must be -1 (skip) or in [0, ", cache_slots, "), the slots of ", cache_name}));
    }
}

/// All of a cache call's rules (rope_cache.hpp), in order.
template <class T, class Angles>
void check_cache_call(const RopeSpec& spec, const Angles& angles, const PositionIds& positions, const FusedArgs<T>& f,
                      int weighting, TokenRange range)
{
    check_fused_head_dim(spec);
    if (f.norm) check_norm_parameters(f.eps, weighting, f.q_in.present(), f.q_weight, true, f.k_weight);
    if (f.k_in.present() || f.k_in.tokens != 0 || f.k_in.heads != 0) check_view(f.k_in, "k", spec);
    else throw posenc::error("k.data", "null", "must point to the K to rotate into the cache");
    const std::ptrdiff_t tokens = f.k_in.tokens;
    if (f.q_in.present() || f.q_out.present()) {
        // Q with K's positions, through apply's own rules.
        check_rope_call(spec, angles, positions, QKViews<T> {f.q_in, f.q_out, {}, {}}, range);
        if (f.q_in.tokens != tokens) posenc::detail::raise("q_in.tokens", f.q_in.tokens, posenc::detail::cat({"must equal k.tokens ", tokens}));
        require_disjoint(f.q_out, "q_out", f.k_in, "k");
    } else {
        check_pairs_and_positions(spec, angles, positions, range, tokens);
    }
    check_cache(f.key_cache, "key_cache", f.k_in.heads, spec);
    // the memory of every view, once (each is valid here; V's after its check below)
    const ByteRange k_bytes = bytes_of(f.k_in), q_in_bytes = bytes_of(f.q_in), q_out_bytes = bytes_of(f.q_out);
    const ByteRange key = bytes_of(f.key_cache);
    ByteRange v_bytes {0, 0}, value {0, 0};  // no V: empty ranges, apart from everything
    std::ptrdiff_t slots = f.key_cache.slots();
    const char* smallest = "key_cache";
    if (f.v_in.present() || f.v_in.tokens != 0 || f.v_in.heads != 0) {
        check_view(f.v_in, "v", spec);
        if (f.v_in.tokens != tokens) posenc::detail::raise("v.tokens", f.v_in.tokens, posenc::detail::cat({"must equal k.tokens ", tokens}));
        check_cache(f.value_cache, "value_cache", f.v_in.heads, spec);
        if (f.value_cache.slots() < slots) {
            slots = f.value_cache.slots();
            smallest = "value_cache";
        }
        v_bytes = bytes_of(f.v_in);
        value = bytes_of(f.value_cache);
        require_apart(value, "value_cache", key, "key_cache");
        require_apart(value, "value_cache", k_bytes, "k");
        require_apart(value, "value_cache", v_bytes, "v");
        require_apart(value, "value_cache", q_in_bytes, "q_in");
        require_apart(value, "value_cache", q_out_bytes, "q_out");
        if (f.q_out.present()) require_disjoint(f.q_out, "q_out", f.v_in, "v");
    } else if (f.value_cache.present()) {
        throw posenc::error("v.data", "null", "must point to the V to copy into value_cache (or leave value_cache empty)");
    }
    require_apart(key, "key_cache", k_bytes, "k");
    require_apart(key, "key_cache", v_bytes, "v");
    require_apart(key, "key_cache", q_in_bytes, "q_in");
    require_apart(key, "key_cache", q_out_bytes, "q_out");
    if (f.norm) {
        const ByteRange q_weight = bytes_of(f.q_weight, spec.head_dim()), k_weight = bytes_of(f.k_weight, spec.head_dim());
        for (const ByteRange& cache : {key, value}) {
            require_apart(cache, "the cache", q_weight, "norm.q_weight");
            require_apart(cache, "the cache", k_weight, "norm.k_weight");
        }
        require_apart(q_out_bytes, "q_out", q_weight, "norm.q_weight");
        require_apart(q_out_bytes, "q_out", k_weight, "norm.k_weight");
    }
    check_slots(f.slots, tokens, range, slots, smallest);
}

/// A qk_norm_rope call's rules (qk_norm_rope.hpp): apply's, then the norm's.
template <class T, class Angles>
void check_norm_call(const RopeSpec& spec, const Angles& angles, const PositionIds& positions, const QKViews<T>& views,
                     const FusedArgs<T>& f, int weighting, TokenRange range)
{
    check_fused_head_dim(spec);
    check_rope_call(spec, angles, positions, views, range);
    check_norm_parameters(f.eps, weighting, true, f.q_weight, views.has_k(), f.k_weight);
    for (const float* w : {f.q_weight, f.k_weight}) {
        require_apart(bytes_of(views.q_out), "q_out", bytes_of(w, spec.head_dim()), "a norm weight");
        require_apart(bytes_of(views.k_out), "k_out", bytes_of(w, spec.head_dim()), "a norm weight");
    }
}

template <class F>
bool passes(F&& check) noexcept
{
    try {
        check();
        return true;
    } catch (...) {
        return false;
    }
}

}  // namespace posenc::kernels::detail
