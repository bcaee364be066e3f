// SPDX-License-Identifier: MIT
// posenc/cuda/detail/plan_checks.hpp: what the CUDA entry points check on the host before a
// launch, reusing the CPU kernels' rules wherever they need no read of device memory.
// Included by launch.cuh only.
#pragma once

#define POSENC_KERNELS_DETAIL_ALLOWED 1  // may include posenc/kernels/detail/*.hpp (as launch.cuh, its includer, may)

#include <cstdint>
#include <string>

#include "posenc/cuda/angles.cuh"
#include "posenc/error.hpp"
#include "posenc/kernels/detail/checks.hpp"
#include "posenc/kernels/detail/fused_checks.hpp"
#include "posenc/kernels/kv_cache_write.hpp"
#include "posenc/kernels/multi_axis_positions.hpp"
#include "posenc/kernels/qk_norm_rope.hpp"
#include "posenc/multi_axis.hpp"
#include "posenc/spec.hpp"

namespace posenc::cuda {

inline constexpr int max_device_rotary_dim = 512;  ///< two rows of shared cos/sin of 256 pairs

namespace detail {

using posenc::detail::cat;
using posenc::detail::raise;

/// The angle source's pairs, the status word, and contiguous positions (both ends) on the host.
template <class Angles>
void check_common(const RopeSpec& spec, const Angles& angles, const kernels::PositionIds& positions,
                  std::int64_t tokens, const unsigned* status)
{
    if (spec.rotary_dim() > max_device_rotary_dim)
        raise("spec.rotary_dim", spec.rotary_dim(), "must be <= 512 for the CUDA kernels");
    if (angles.num_pairs != spec.num_pairs())
        raise("angles.num_pairs", angles.num_pairs, cat({"must equal spec.num_pairs ", spec.num_pairs()}));
    if (status == nullptr)
        throw posenc::error("status", "null", "must point to a device word for the kernel's reports");
    if (positions.is_contiguous()) {
        if (tokens == 0) return;
        for (std::int64_t t : {std::int64_t {0}, tokens - 1})
            if (positions.start() > kernels::max_kernel_position || !angles.serves(positions[t]))
                raise(cat({"positions[", t, "]"}), positions.start() + t, "must be a position the angle source serves");
        return;
    }
    if (positions.count() != tokens) raise("positions.count", positions.count(), cat({"must equal tokens ", tokens}));
    if (tokens > 0 && positions.ids_data() == nullptr)
        throw posenc::error("positions.ids", "null", "must point to one id per token");
}

/// apply_rope's view rules (checks.hpp), element type erased; head counts that fit an int.
template <class T>
void check_apply_views(const RopeSpec& spec, const kernels::QKViews<T>& views)
{
    using kernels::detail::geometry;
    kernels::detail::check_rope_views(geometry(views.q_in), geometry(views.q_out), geometry(views.k_in),
                                      geometry(views.k_out), spec.head_dim());
}

/// The QK-norm's parameters (fused_checks.hpp's rules).
inline void check_norm(const RopeSpec& spec, const kernels::QkNorm& norm, bool has_q, bool has_k)
{
    kernels::detail::check_fused_head_dim(spec);
    kernels::detail::check_norm_parameters(norm.eps, static_cast<int>(norm.weighting), has_q, norm.q_weight, has_k,
                                           norm.k_weight, spec.head_dim());
}

/// check_cache's rules for a cache in device memory: a per-head scale's values are on the device
/// (the kernel checks them), so only its pointer and count are checked here.
inline void check_device_cache(const kernels::KvCacheView& cache, const char* name, std::ptrdiff_t heads,
                               const RopeSpec& spec)
{
    kernels::KvCacheView shape = cache;
    if (cache.scale.kind == kernels::CacheScale::Kind::per_head) {
        if (cache.scale.per_head.data == nullptr)
            throw posenc::error(cat({name, ".scale.per_head"}), "null", "must point to one scale per head");
        if (cache.scale.per_head.size < cache.heads)
            raise(cat({name, ".scale.per_head.size"}), cache.scale.per_head.size,
                  cat({"must be >= heads ", cache.heads, " (one scale per head)"}));
        shape.scale = kernels::CacheScale::tensor(1.0f);
    }
    kernels::detail::check_cache(shape, name, heads, spec.head_dim(), "spec.head_dim");
    if (cache.storage == kernels::CacheStorage::float8_e5m2)
        throw posenc::error(cat({name, ".storage"}), "float8_e5m2",
                            "is not written by the CUDA kernels (float32, bfloat16, float16, float8_e4m3 or int8)");
}

/// A cache call: K required, Q and V optional, each a valid view of K's tokens; caches valid
/// for K's (V's) heads; slots present, one per token; no query multipliers.
template <class T>
void check_cache_write(const RopeSpec& spec, const kernels::CacheWrite<T>& w)
{
    using kernels::detail::geometry;
    if (!w.k.present()) throw posenc::error("k.data", "null", "must point to the keys to rotate into the cache");
    kernels::detail::check_view(geometry(w.k), "k", spec.head_dim());
    if (w.q_in.present()) {
        kernels::detail::check_rope_views(geometry(w.q_in), geometry(w.q_out), {}, {}, spec.head_dim());
        if (w.q_in.tokens != w.k.tokens) raise("q_in.tokens", w.q_in.tokens, cat({"must equal k.tokens ", w.k.tokens}));
        kernels::detail::require_disjoint(w.q_out, "q_out", w.k, "k");
    }
    check_device_cache(w.key_cache, "key_cache", w.k.heads, spec);
    if (w.v.present()) {
        kernels::detail::check_view(geometry(w.v), "v", spec.head_dim());
        if (w.v.tokens != w.k.tokens) raise("v.tokens", w.v.tokens, cat({"must equal k.tokens ", w.k.tokens}));
        check_device_cache(w.value_cache, "value_cache", w.v.heads, spec);
    }
    if (!w.slot_mapping.present() && w.k.tokens > 0)
        throw posenc::error("slot_mapping", "null", "must point to one slot per token");
    if (w.slot_mapping.count() != w.k.tokens)
        raise("slot_mapping.count", w.slot_mapping.count(), cat({"must equal tokens ", w.k.tokens}));
    if (w.q_multipliers.present())
        throw posenc::error("q_multipliers", "present", "are not supported by the CUDA kernels (leave them absent)");
    if (w.q_rows.present())
        throw posenc::error("q_rows", "present",
                            "are not written by the CUDA kernels (quantised Q is a CPU step; leave q_rows absent)");
}

/// A multi-axis call: the layout's pairs, no split pairs, positions of its axes for every token
/// whose every index lies inside the positions' buffer.
inline void check_multi_axis(const RopeSpec& spec, const MultiAxisLayout& layout,
                             const kernels::MultiAxisPositions& positions, std::int64_t tokens)
{
    if (layout.num_pairs() != spec.num_pairs())
        raise("layout.num_pairs", layout.num_pairs(), cat({"must equal spec.num_pairs ", spec.num_pairs()}));
    if (layout.splits_pairs())
        throw posenc::error("layout", "coordinate_sections",
                            "must keep both coordinates of a pair on one axis for the CUDA kernels");
    if (positions.axes() != layout.num_axes())
        raise("positions.axes", positions.axes(), cat({"must equal layout.num_axes ", layout.num_axes()}));
    if (positions.tokens() != tokens)
        raise("positions.tokens", positions.tokens(), cat({"must equal tokens ", tokens}));
    if (tokens == 0) return;
    if (positions.data() == nullptr) throw posenc::error("positions.data", "null", "must point to the positions");
    const std::int64_t ts = tokens > 1 ? positions.token_stride() : 0,
                       as = positions.axes() > 1 ? positions.axis_stride() : 0;
    if (ts < 0 || as < 0 || ts > (INT64_MAX / 4) / tokens || as > (INT64_MAX / 4) / positions.axes())
        raise("positions.token_stride", positions.token_stride(),
              "and axis_stride must be >= 0 and keep indices in range");
    const std::int64_t last = (tokens - 1) * ts + (positions.axes() - 1) * as;
    if (last >= positions.size())
        raise("positions.size", positions.size(), cat({"must be > the last index read, ", last}));
}

/// blocks = tokens x head_groups within CUDA's grid limit (2^31 - 1 blocks in x).
inline void require_grid(std::int64_t tokens, std::int64_t head_groups)
{
    if (tokens < 0 || (tokens > 0 && head_groups > 2147483647 / tokens))
        raise("tokens", tokens, cat({"times ", head_groups, " head groups must be <= 2^31 - 1 blocks"}));
}

}  // namespace detail
}  // namespace posenc::cuda
