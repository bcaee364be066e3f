// SPDX-License-Identifier: MIT
// posenc/kernels/detail/checks.hpp: what the checked entry points verify before entering a kernel.
//
// check_rope_call throws posenc::error ("<field> <value> <rule>") for the first broken rule, in
// this order: each view (q_in, q_out, then K: present or absent together; data, alignment, size,
// extents, head_dim == spec.head_dim, strides, bounds: what views.hpp calls a valid view), the
// shapes and token counts shared between views, the overlaps (no written view meets another
// view, except an output that is exactly its input), the angle source's pairs, the token range
// (0 <= begin <= end <= tokens) and the positions of the range (inside angles.position_range()).
// docs/errors.md lists every message. Cost: O(tokens in range) for the position scan, O(1)
// otherwise. Each rule is stated once, as a named predicate ("The rules" below).
#pragma once

#ifndef POSENC_KERNELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/kernels/detail/checks.hpp is internal to the kernels: include <posenc/kernels/apply.hpp> (or <posenc/kernels.hpp>) instead"
#endif

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "posenc/config.hpp"
#include "posenc/error.hpp"
#include "posenc/kernels/angle_source.hpp"
#include "posenc/kernels/views.hpp"
#include "posenc/spec.hpp"

namespace posenc::kernels::detail {

/// The largest buffer a view may describe, in elements: PTRDIFF_MAX / sizeof(U) / 16. No
/// machine has that much memory; the margin keeps every offset the kernels form (a prefetch
/// 8 heads ahead included) inside ptrdiff_t.
constexpr std::ptrdiff_t max_view_size(std::ptrdiff_t element_size) noexcept { return PTRDIFF_MAX / element_size / 16; }

/// What the checks read of a HeadsView, without its element type: one compiled copy of each
/// check below serves every storage type and const-ness.
struct ViewGeometry {
    std::uintptr_t address;  ///< data as an integer
    std::ptrdiff_t size, tokens, heads, head_dim, token_stride, head_stride;
    std::ptrdiff_t element_size;  ///< sizeof of the element type
    std::ptrdiff_t element_align;  ///< alignof of the element type (a power of two)
    std::ptrdiff_t max_size;  ///< max_view_size(element_size), folded at compile time
};

template <class U>
ViewGeometry geometry(const HeadsView<U>& v) noexcept
{
    return {reinterpret_cast<std::uintptr_t>(v.data),
            v.size,
            v.tokens,
            v.heads,
            v.head_dim,
            v.token_stride,
            v.head_stride,
            static_cast<std::ptrdiff_t>(sizeof(U)),
            static_cast<std::ptrdiff_t>(alignof(U)),
            max_view_size(static_cast<std::ptrdiff_t>(sizeof(U)))};
}

inline std::string member(const char* view, const char* name) { return std::string(view) + "." + name; }

inline std::string shape_text(std::ptrdiff_t tokens, std::ptrdiff_t heads, std::ptrdiff_t head_dim)
{
    return posenc::detail::cat({tokens, "x", heads, "x", head_dim});
}

/// Whether count * stride <= room, for count >= 1, stride >= 0, room >= 0, without overflow: a
/// multiplication when both factors are below 2^31 (the product fits in 62 bits; a 64-bit
/// division costs tens of cycles), a division otherwise.
inline bool product_within(std::ptrdiff_t count, std::ptrdiff_t stride, std::ptrdiff_t room) noexcept
{
    constexpr std::ptrdiff_t small = std::ptrdiff_t {1} << 31;
    if (count < small && stride < small) return count * stride <= room;
    return stride <= room / count;
}

// ---------------------------------------------------------------------------------------------
// The rules, each stated once as a named predicate. The full checks below (which name the first
// broken rule) and the inline fast-accept tests (rope_call_is_usual, decode_call_is_usual,
// cache_call_is_usual, the Python module's batched arrays) are compositions of these.

/// Rule "data": non-null and aligned for its element type (`align` a power of two).
POSENC_ALWAYS_INLINE constexpr bool data_is_aligned(std::uintptr_t address, std::uintptr_t align) noexcept
{
    return address != 0 && (address & (align - 1)) == 0;
}

/// Rule "size": 0 <= size <= max_size (max_view_size of the element type).
POSENC_ALWAYS_INLINE constexpr bool size_is_addressable(std::ptrdiff_t size, std::ptrdiff_t max_size) noexcept
{
    return 0 <= size && size <= max_size;
}

/// Rule "rows": the [tokens, heads] grid of head_dim-long rows does not overlap itself. Sorting
/// the two axes by stride: small stride >= head_dim, large stride >= small stride * (small count
/// - 1) + head_dim; an axis of extent 1 has no stride. Without overflow for any extents.
POSENC_ALWAYS_INLINE bool grid_rows_apart(std::ptrdiff_t tokens, std::ptrdiff_t token_stride, std::ptrdiff_t heads,
                                          std::ptrdiff_t head_stride, std::ptrdiff_t head_dim) noexcept
{
    const bool many_tokens = tokens > 1, many_heads = heads > 1;
    if ((many_tokens && token_stride < head_dim) || (many_heads && head_stride < head_dim)) return false;
    if (!many_tokens || !many_heads) return true;
    const bool token_small = token_stride <= head_stride;
    const std::ptrdiff_t small = token_small ? token_stride : head_stride;
    const std::ptrdiff_t small_count = token_small ? tokens : heads;
    const std::ptrdiff_t large = token_small ? head_stride : token_stride;
    // large >= small >= head_dim >= 1: the small axis's rows must end within one large stride
    return large != small && product_within(small_count - 1, small, large - head_dim);
}

/// Rule "angles": the angle source serves the spec's pairs (rotary_dim / 2).
POSENC_ALWAYS_INLINE constexpr bool pairs_match(int angle_pairs, int spec_pairs) noexcept
{
    return angle_pairs == spec_pairs;
}

/// Rule "range": 0 <= begin <= end <= tokens.
POSENC_ALWAYS_INLINE constexpr bool range_within(TokenRange range, std::ptrdiff_t tokens) noexcept
{
    return 0 <= range.begin && range.begin <= range.end && range.end <= tokens;
}

/// Rule "positions.start": a contiguous run starts within |start| <= 2^62 (so that start + t
/// cannot overflow); each position then lies in the source's PositionRange (contains).
POSENC_ALWAYS_INLINE constexpr bool position_start_in_reach(std::int64_t start) noexcept
{
    constexpr std::int64_t reach = std::int64_t {1} << 62;
    return -reach <= start && start <= reach;
}

/// Rule "slot": a KV-cache slot is -1 (skip the token) or in [0, slots).
POSENC_ALWAYS_INLINE constexpr bool slot_in_range(std::int64_t slot, std::ptrdiff_t slots) noexcept
{
    return -1 <= slot && slot < slots;
}

/// Whether every value of ids[range.begin, range.end) lies in [first, last]: the largest offset
/// from first (unsigned: an id below first wraps to a huge offset) against the span, over two
/// independent running maxima and with no branch per id, so that checking a batch's positions or
/// slots costs about a cycle per token (row mla_decode_bf16/mla_cache of docs/benchmarks.md). An
/// empty interval (first > last) holds no id.
template <class I>
bool all_within(const I* ids, TokenRange range, std::int64_t first, std::int64_t last) noexcept
{
    if (first > last) return range.begin >= range.end;
    const auto low = static_cast<std::uint64_t>(first);
    auto offset = [&](std::ptrdiff_t t) { return static_cast<std::uint64_t>(static_cast<std::int64_t>(ids[t])) - low; };
    std::uint64_t farthest_even = 0, farthest_odd = 0;
    std::ptrdiff_t t = range.begin;
    for (; t + 1 < range.end; t += 2) {
        farthest_even = std::max(farthest_even, offset(t));
        farthest_odd = std::max(farthest_odd, offset(t + 1));
    }
    if (t < range.end) farthest_even = std::max(farthest_even, offset(t));
    return std::max(farthest_even, farthest_odd) <= static_cast<std::uint64_t>(last) - low;
}

/// Rule "scale": a quantised cache's scale is finite and > 0.
inline bool scale_is_valid(float s) noexcept { return std::isfinite(s) && s > 0.0f; }

/// Rule "norm.eps": finite and >= 0.
inline bool eps_is_valid(float eps) noexcept { return std::isfinite(eps) && eps >= 0.0f; }

/// Rule "enumerator": a value of an enumeration is one of its enumerators first..last (0, 1,
/// ...), not another integer cast to the enumeration.
template <class E>
POSENC_ALWAYS_INLINE constexpr bool is_enumerator(E value, E last) noexcept
{
    return static_cast<unsigned>(value) <= static_cast<unsigned>(last);
}

/// Rule "norm.weighting": 0 (weight) or 1 (one_plus_weight).
POSENC_ALWAYS_INLINE constexpr bool weighting_is_known(int weighting) noexcept
{
    return weighting == 0 || weighting == 1;
}

/// Rule "weights": a weight span present, of at least head_dim floats (one per coordinate).
inline bool weights_are_valid(const FloatSpan& w, int head_dim) noexcept
{
    return w.data != nullptr && w.size >= head_dim;
}

/// Rule "extent": elements from a view's first element to one past its last (tokens >= 1),
/// kept from overflowing by the caller (last_index_within, or usual_view_is_valid's extents).
POSENC_ALWAYS_INLINE constexpr std::ptrdiff_t extent_of(std::ptrdiff_t tokens, std::ptrdiff_t token_stride,
                                                        std::ptrdiff_t heads, std::ptrdiff_t head_stride,
                                                        std::ptrdiff_t head_dim) noexcept
{
    return (tokens > 1 ? (tokens - 1) * token_stride : 0) + (heads > 1 ? (heads - 1) * head_stride : 0) + head_dim;
}

// ---------------------------------------------------------------------------------------------

/// Index of the last element a valid view addresses (extent_of - 1) if it is < size; -1
/// otherwise. Without overflow: every partial sum is compared with what remains of the buffer
/// before it is formed. Requires tokens, heads, head_dim >= 1 and grid_rows_apart.
inline std::ptrdiff_t last_index_within(const ViewGeometry& v) noexcept
{
    std::ptrdiff_t room = v.size - v.head_dim;  // room left for the outer offsets
    if (room < 0) return -1;
    if (v.tokens > 1) {
        if (!product_within(v.tokens - 1, v.token_stride, room)) return -1;
        room -= (v.tokens - 1) * v.token_stride;
    }
    if (v.heads > 1) {
        if (!product_within(v.heads - 1, v.head_stride, room)) return -1;
        room -= (v.heads - 1) * v.head_stride;
    }
    return v.size - 1 - room;
}

/// The index of a view's last element as text, exact whenever it fits in 64 unsigned bits
/// (counts and strides are non-negative here), else in floating point.
inline std::string last_index_text(const ViewGeometry& v)
{
    using u64 = unsigned long long;
    const u64 max = ~u64 {0};
    const u64 t = static_cast<u64>(v.tokens - 1), ts = static_cast<u64>(v.tokens > 1 ? v.token_stride : 0);
    const u64 h = static_cast<u64>(v.heads - 1), hs = static_cast<u64>(v.heads > 1 ? v.head_stride : 0);
    const u64 d = static_cast<u64>(v.head_dim - 1);
    const bool exact =
        (ts == 0 || t <= max / ts) && (hs == 0 || h <= max / hs) && t * ts <= max - d && h * hs <= max - d - t * ts;
    if (exact) return std::to_string(t * ts + h * hs + d);
    return posenc::detail::format_value(static_cast<double>(t) * static_cast<double>(ts) +
                                        static_cast<double>(h) * static_cast<double>(hs) + static_cast<double>(d));
}

/// One view on its own: presence, alignment, extents, strides, bounds; builds the message. Called
/// only once view_is_valid has failed.
[[noreturn]] inline void raise_view_error(const ViewGeometry& v, const char* name, int spec_head_dim)
{
    using posenc::detail::cat;
    using posenc::detail::raise;
    if (v.address == 0) throw posenc::error(member(name, "data"), "null", "must point to the tensor");
    if (!data_is_aligned(v.address, static_cast<std::uintptr_t>(v.element_align)))
        raise(member(name, "data"), static_cast<unsigned long long>(v.address),
              cat({"must be a multiple of ", v.element_align, " (the alignment of its ", v.element_size,
                   "-byte element type)"}));
    const std::ptrdiff_t max_size = v.max_size;
    if (!size_is_addressable(v.size, max_size))
        raise(member(name, "size"), v.size, cat({"must be in [0, ", max_size, "] (elements the view may address)"}));
    if (v.tokens < 0) raise(member(name, "tokens"), v.tokens, "must be >= 0");
    if (v.heads < 1) raise(member(name, "heads"), v.heads, "must be >= 1");
    if (v.head_dim != spec_head_dim)
        raise(member(name, "head_dim"), v.head_dim,
              cat({"must equal spec.head_dim ", spec_head_dim, " (the buffer's heads are that long)"}));

    struct Axis {
        const char* stride_name;
        const char* count_name;
        std::ptrdiff_t count;
        std::ptrdiff_t stride;
    };
    const Axis token {"token_stride", "tokens", v.tokens, v.token_stride};
    const Axis head {"head_stride", "heads", v.heads, v.head_stride};
    const std::ptrdiff_t d = v.head_dim;
    for (const Axis* a : {&token, &head}) {
        if (a->count > 1 && a->stride < 0)
            raise(member(name, a->stride_name), a->stride,
                  cat({"must be >= head_dim ", d, " when ", a->count_name,
                       " > 1 (element 1 of that axis would lie before ", name, ".data)"}));
        if (a->count > 1 && a->stride < d)
            raise(member(name, a->stride_name), a->stride,
                  cat({"must be >= head_dim ", d, " when ", a->count_name, " > 1 (rows would overlap)"}));
    }
    if (token.count > 1 && head.count > 1) {
        const Axis& small = token.stride <= head.stride ? token : head;
        const Axis& large = token.stride <= head.stride ? head : token;
        if (large.stride == small.stride || (large.stride - d) / small.stride < small.count - 1) {
            const double needed =
                static_cast<double>(small.stride) * static_cast<double>(small.count - 1) + static_cast<double>(d);
            raise(member(name, large.stride_name), large.stride,
                  cat({"must be >= ", small.stride_name, " * (", small.count_name,
                       " - 1) + head_dim = ", posenc::detail::format_value(needed), " (rows would overlap)"}));
        }
    }
    // the bound: the last element must lie inside [0, size) (the first is data[0])
    raise(member(name, "size"), v.size,
          cat({"must be > ", last_index_text(v), ", the index of ", name, "'s last element (token ", v.tokens - 1,
               ", head ", v.heads - 1, ", dim ", d - 1, "): the view would address memory past its buffer"}));
}

/// The rules of raise_view_error as a predicate, in integer arithmetic without overflow:
/// data_is_aligned, size_is_addressable, the extents, grid_rows_apart, last_index_within.
inline bool view_is_valid(const ViewGeometry& v, int spec_head_dim) noexcept
{
    if (!data_is_aligned(v.address, static_cast<std::uintptr_t>(v.element_align))) return false;
    if (!size_is_addressable(v.size, v.max_size) || v.tokens < 0 || v.heads < 1 || v.head_dim != spec_head_dim)
        return false;
    if (v.tokens == 0) return true;
    // grid_rows_apart first: last_index_within requires its strides
    return grid_rows_apart(v.tokens, v.token_stride, v.heads, v.head_stride, v.head_dim) && last_index_within(v) >= 0;
}

/// One view on its own (see view_is_valid); throws posenc::error naming the first broken rule.
inline void check_view(const ViewGeometry& v, const char* name, int spec_head_dim)
{
    if (!view_is_valid(v, spec_head_dim)) raise_view_error(v, name, spec_head_dim);
}
template <class U>
void check_view(const HeadsView<U>& v, const char* name, const RopeSpec& spec)
{
    check_view(geometry(v), name, spec.head_dim());
}

/// Elements from a view's first element to one past its last (a valid view with tokens >= 1).
inline std::ptrdiff_t extent_of(const ViewGeometry& v) noexcept
{
    return extent_of(v.tokens, v.token_stride, v.heads, v.head_stride, v.head_dim);
}

/// round(x / y) for y > 0, in double (the caller checks neighbours, so it need not be exact).
inline std::ptrdiff_t nearest_multiple(double x, double y) noexcept
{
    return static_cast<std::ptrdiff_t>(std::floor(x / y + 0.5));
}

/// [begin, end) bytes of a memory range, for disjointness tests.
struct ByteRange {
    std::uintptr_t begin;
    std::uintptr_t end;
    bool intersects(const ByteRange& o) const noexcept { return begin < o.end && o.begin < end; }
};

/// The bytes from a view's first element to one past its last; empty ({data, data}) for an
/// absent view or one without tokens.
template <class U>
ByteRange bytes_of(const HeadsView<U>& v) noexcept
{
    const auto b = reinterpret_cast<std::uintptr_t>(v.data);
    if (!v.present() || v.tokens == 0) return {b, b};
    return {b, b + static_cast<std::uintptr_t>(extent_of(geometry(v))) * sizeof(U)};
}

/// True if some row of `a` shares an element with some row of `b` (both valid per check_view,
/// same element size and head_dim). Exact when the strides that matter are equal; otherwise
/// true as soon as the address ranges intersect.
inline bool views_overlap(const ViewGeometry& a, const ViewGeometry& b) noexcept
{
    if (a.tokens == 0 || b.tokens == 0) return false;
    const std::uintptr_t a_begin = a.address, b_begin = b.address;
    const std::uintptr_t a_end = a_begin + static_cast<std::uintptr_t>(extent_of(a) * a.element_size);
    const std::uintptr_t b_end = b_begin + static_cast<std::uintptr_t>(extent_of(b) * b.element_size);
    if (a_end <= b_begin || b_end <= a_begin) return false;

    // Offset differences between a row of b and a row of a:  d + dt * token_stride + dh * head_stride,
    // dt in [-(a.tokens - 1), b.tokens - 1], dh in [-(a.heads - 1), b.heads - 1]. Rows overlap iff
    // one difference is within (-head_dim, head_dim).
    struct Axis {
        std::ptrdiff_t stride, lowest, highest;
    };
    Axis axes[2];
    int n = 0;
    // An axis of extent 1 in one view only ever takes offset 0 there, so its stride may be read
    // as the other view's: the test stays exact (one K head inside packed QKV, any head_stride).
    // Without a common stride, add_axis says no, and the views count as overlapping.
    auto add_axis = [&](std::ptrdiff_t count_a, std::ptrdiff_t stride_a, std::ptrdiff_t count_b,
                        std::ptrdiff_t stride_b) {
        if (count_a <= 1 && count_b <= 1) return true;
        if (count_a > 1 && count_b > 1 && stride_a != stride_b) return false;
        axes[n++] = {count_a > 1 ? stride_a : stride_b, -(count_a - 1), count_b - 1};
        return true;
    };
    if (!add_axis(a.tokens, a.token_stride, b.tokens, b.token_stride) ||
        !add_axis(a.heads, a.head_stride, b.heads, b.head_stride))
        return true;
    const std::ptrdiff_t byte_distance = static_cast<std::ptrdiff_t>(b_begin - a_begin);
    if (byte_distance % a.element_size != 0) return true;
    const std::ptrdiff_t d = byte_distance / a.element_size;
    const std::ptrdiff_t h = a.head_dim;
    if (n == 2 && axes[0].stride < axes[1].stride) std::swap(axes[0], axes[1]);  // large stride first
    auto clamp = [](std::ptrdiff_t x, const Axis& ax) {
        return x < ax.lowest ? ax.lowest : (x > ax.highest ? ax.highest : x);
    };
    // Candidates along the small-stride axis for a residual r: the multiple nearest to -r and its neighbours.
    auto small_axis_hits = [&](std::ptrdiff_t r, const Axis& ax) {
        const std::ptrdiff_t j0 = clamp(nearest_multiple(-static_cast<double>(r), static_cast<double>(ax.stride)), ax);
        for (std::ptrdiff_t j = j0 - 1; j <= j0 + 1; ++j)
            if (j >= ax.lowest && j <= ax.highest && std::llabs(r + j * ax.stride) < h) return true;
        return false;
    };
    if (n == 0) return std::llabs(d) < h;
    if (n == 1) return small_axis_hits(d, axes[0]);
    // Within a valid view the small axis spans less than one large stride, so only the large-axis
    // multiples within two of the nearest can bring the residual under the small axis's reach.
    const std::ptrdiff_t k0 = nearest_multiple(-static_cast<double>(d), static_cast<double>(axes[0].stride));
    for (std::ptrdiff_t k = k0 - 2; k <= k0 + 2; ++k) {
        if (k < axes[0].lowest || k > axes[0].highest) continue;
        if (small_axis_hits(d + k * axes[0].stride, axes[1])) return true;
    }
    // The nearest in-range large multiples (when k0 +- 2 fell outside the range).
    for (std::ptrdiff_t k : {axes[0].lowest, axes[0].highest})
        if (small_axis_hits(d + k * axes[0].stride, axes[1])) return true;
    return false;
}

inline bool same_view(const ViewGeometry& a, const ViewGeometry& b) noexcept
{
    // strides of axes of extent 1 are never used: they need not agree
    return a.address == b.address && a.tokens == b.tokens && a.heads == b.heads && a.head_dim == b.head_dim &&
           (a.tokens <= 1 || a.token_stride == b.token_stride) && (a.heads <= 1 || a.head_stride == b.head_stride);
}

inline void require_disjoint(const ViewGeometry& written, const char* written_name, const ViewGeometry& other,
                             const char* other_name)
{
    if (views_overlap(written, other))
        throw posenc::error(written_name, shape_text(written.tokens, written.heads, written.head_dim),
                            posenc::detail::cat({"must not overlap ", other_name,
                                                 " (views sharing memory need equal strides and disjoint rows)"}));
}

template <class UA, class UB>
void require_disjoint(const HeadsView<UA>& written, const char* written_name, const HeadsView<UB>& other,
                      const char* other_name)
{
    static_assert(sizeof(UA) == sizeof(UB), "views_overlap compares views of one element type.");
    // disjoint address ranges (the common case: Q, K and V slices of one token, separate tensors)
    // are decided here, without building the views' geometry in memory
    if (written.tokens == 0 || other.tokens == 0 || !bytes_of(written).intersects(bytes_of(other))) return;
    require_disjoint(geometry(written), written_name, geometry(other), other_name);
}

/// Whether the ids of tokens [range.begin, range.end) lie in `allowed` (positions given as ids).
inline bool ids_within(const PositionIds& positions, TokenRange range, PositionRange allowed) noexcept
{
    if (positions.kind() == PositionIds::Kind::int32_ids)
        return all_within(static_cast<const std::int32_t*>(positions.ids_data()), range, allowed.first, allowed.last);
    return all_within(static_cast<const std::int64_t*>(positions.ids_data()), range, allowed.first, allowed.last);
}

/// Positions of tokens [range.begin, range.end) against the angle source's range.
inline void check_positions(const PositionIds& positions, std::ptrdiff_t tokens, TokenRange range,
                            PositionRange allowed, const char* source_name)
{
    // the message is built only on failure
    auto fail = [&](std::string field, std::int64_t value) {
        posenc::detail::raise(std::move(field), value,
                              posenc::detail::cat({"must be in [", allowed.first, ", ", allowed.last,
                                                   "], the positions the ", source_name, " serves"}));
    };
    if (positions.is_contiguous()) {
        if (range.size() == 0) return;
        const std::int64_t start = positions.start();
        if (!position_start_in_reach(start)) fail("positions.start", start);
        for (std::ptrdiff_t t : {range.begin, range.end - 1})
            if (!allowed.contains(positions[t])) fail(posenc::detail::cat({"positions[", t, "]"}), positions[t]);
        return;
    }
    if (positions.count() != tokens)
        posenc::detail::raise("positions.count", positions.count(),
                              posenc::detail::cat({"must equal tokens ", tokens}));
    if (tokens > 0 && positions.ids_data() == nullptr)
        throw posenc::error("positions.ids", "null", "must point to one id per token");
    if (ids_within(positions, range, allowed)) return;
    for (std::ptrdiff_t t = range.begin; t < range.end; ++t)  // the first id outside, named
        if (!allowed.contains(positions[t])) fail(posenc::detail::cat({"positions[", t, "]"}), positions[t]);
}

/// The output view `out` of input `in`: check_view (in place too: the caller's size of the
/// output must cover what is written through it, whatever the input's says); then, unless it is
/// the same view (in place), the input's tokens and heads. Returns whether it is in place.
inline bool check_output_view(const ViewGeometry& out, const char* out_name, const ViewGeometry& in,
                              const char* in_name, int spec_head_dim)
{
    check_view(out, out_name, spec_head_dim);
    if (same_view(out, in)) return true;
    if (out.tokens != in.tokens || out.heads != in.heads)
        throw posenc::error(out_name, shape_text(out.tokens, out.heads, out.head_dim),
                            posenc::detail::cat({"must have the shape of ", in_name, " ",
                                                 shape_text(in.tokens, in.heads, in.head_dim)}));
    return false;
}

/// "No K" is an empty view; a null pointer with extents is a mistake, not an absent K.
inline void check_absent_means_empty(const ViewGeometry& k, const char* name)
{
    if (k.address == 0 && (k.tokens != 0 || k.heads != 0 || k.head_dim != 0))
        throw posenc::error(
            member(name, "data"), "null",
            posenc::detail::cat({"must point to the elements of ", shape_text(k.tokens, k.heads, k.head_dim),
                                 " (leave the whole view empty for no K)"}));
}

/// check_rope_call's rules for the views (element type erased): see the file comment.
inline void check_rope_views(const ViewGeometry& q_in, const ViewGeometry& q_out, const ViewGeometry& k_in,
                             const ViewGeometry& k_out, int spec_head_dim)
{
    check_view(q_in, "q_in", spec_head_dim);
    const bool q_in_place = check_output_view(q_out, "q_out", q_in, "q_in", spec_head_dim);
    check_absent_means_empty(k_in, "k_in");
    check_absent_means_empty(k_out, "k_out");
    const bool k_in_present = k_in.address != 0, k_out_present = k_out.address != 0;
    if (k_in_present != k_out_present)
        throw posenc::error(k_in_present ? "k_out" : "k_in", "absent",
                            std::string("must be given together with ") + (k_in_present ? "k_in" : "k_out"));
    const bool has_k = k_in_present;
    if (has_k) {
        check_view(k_in, "k_in", spec_head_dim);
        check_output_view(k_out, "k_out", k_in, "k_in", spec_head_dim);
        if (k_in.tokens != q_in.tokens)
            posenc::detail::raise("k_in.tokens", k_in.tokens,
                                  posenc::detail::cat({"must equal q_in.tokens ", q_in.tokens}));
    }
    if (!q_in_place) require_disjoint(q_out, "q_out", q_in, "q_in");
    if (has_k) {
        if (!same_view(k_out, k_in)) require_disjoint(k_out, "k_out", k_in, "k_in");
        require_disjoint(q_out, "q_out", k_out, "k_out");
        require_disjoint(q_out, "q_out", k_in, "k_in");
        require_disjoint(k_out, "k_out", q_in, "q_in");
    }
}

/// The direction as one of its two enumerators. A value cast from another integer is refused:
/// the float loops would take it as forward and the double path as inverse.
inline void check_direction(Direction direction)
{
    if (!is_enumerator(direction, Direction::inverse))
        posenc::detail::raise("direction", static_cast<int>(direction), "must be forward (0) or inverse (1)");
}

/// check_rope_call's rules past the views: the angle source's pairs and the token range.
inline void check_pairs_and_range(int angle_pairs, int spec_pairs, TokenRange range, std::ptrdiff_t tokens)
{
    if (!pairs_match(angle_pairs, spec_pairs))
        posenc::detail::raise(
            "angles.num_pairs", angle_pairs,
            posenc::detail::cat({"must equal spec.num_pairs ", spec_pairs,
                                 " (rotary_dim / 2): the angle source was built for another rotary_dim"}));
    if (!range_within(range, tokens))
        throw posenc::error("range", posenc::detail::cat({"[", range.begin, ", ", range.end, ")"}),
                            posenc::detail::cat({"must satisfy 0 <= begin <= end <= tokens ", tokens}));
}

/// The usual case of check_pairs_and_positions, decided without a message: the pairs agree, the
/// range lies in the tokens, contiguous positions whose first and last the source serves.
template <class Angles>
POSENC_ALWAYS_INLINE bool pairs_and_positions_are_usual(const RopeSpec& spec, const Angles& angles,
                                                        const PositionIds& positions, TokenRange range,
                                                        std::ptrdiff_t tokens) noexcept
{
    const PositionRange allowed = angles.position_range();
    if (!pairs_match(angles.num_pairs(), spec.num_pairs()) || !range_within(range, tokens) || range.begin >= range.end)
        return false;
    if (!positions.is_contiguous())
        return positions.count() == tokens && positions.ids_data() != nullptr && ids_within(positions, range, allowed);
    return position_start_in_reach(positions.start()) && allowed.contains(positions[range.begin]) &&
           allowed.contains(positions[range.end - 1]);
}

template <class Angles>
void check_pairs_and_positions(const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                               TokenRange range, std::ptrdiff_t tokens)
{
    if (pairs_and_positions_are_usual(spec, angles, positions, range, tokens)) return;
    check_pairs_and_range(angles.num_pairs(), spec.num_pairs(), range, tokens);
    check_positions(positions, tokens, range, angles.position_range(), angles.name());
}

/// A view that is wholly empty: no data, no extents (an absent K).
template <class U>
POSENC_ALWAYS_INLINE bool is_absent(const HeadsView<U>& v) noexcept
{
    return (reinterpret_cast<std::uintptr_t>(v.data) | static_cast<std::uintptr_t>(v.tokens | v.heads | v.head_dim)) ==
           0;
}

/// Whether an output view is field for field its input view (in place), as one comparison of
/// their bytes (a HeadsView is a pointer and six ptrdiff_t, without padding).
template <class U>
POSENC_ALWAYS_INLINE bool identical_views(const HeadsView<const U>& in, const HeadsView<U>& out) noexcept
{
    static_assert(sizeof(HeadsView<U>) == sizeof(U*) + 6 * sizeof(std::ptrdiff_t) &&
                      sizeof(HeadsView<const U>) == sizeof(HeadsView<U>),
                  "HeadsView must hold its seven fields without padding.");
    return std::memcmp(&in, &out, sizeof(HeadsView<U>)) == 0;
}

/// view_is_valid for the usual view, whose tokens, heads and strides all lie in [0, 2^31) (one
/// test of their bitwise or): no product can overflow, and the bound is one sum. Any other view
/// gets false here, and the general rules decide it.
template <class U>
POSENC_ALWAYS_INLINE bool usual_view_is_valid(const HeadsView<U>& v, std::ptrdiff_t head_dim) noexcept
{
    const auto address = reinterpret_cast<std::uintptr_t>(v.data);
    const std::ptrdiff_t extents = v.tokens | v.heads | v.token_stride | v.head_stride;  // >= 2^31 or < 0: not usual
    if (!data_is_aligned(address, alignof(U)) || (extents >> 31) != 0 || v.heads == 0 || v.head_dim != head_dim)
        return false;
    constexpr std::ptrdiff_t max_size = max_view_size(static_cast<std::ptrdiff_t>(sizeof(U)));
    if (!size_is_addressable(v.size, max_size)) return false;
    if (v.tokens == 0) return true;
    // extents below 2^31: the extent is < 2^63 (last_index_within's overflow guard is not needed)
    return grid_rows_apart(v.tokens, v.token_stride, v.heads, v.head_stride, head_dim) &&
           extent_of(v.tokens, v.token_stride, v.heads, v.head_stride, head_dim) <= v.size;
}

/// views_overlap(a, b) || views_overlap(b, a), as the rules test a pair of written views. Out of
/// line: only views whose byte ranges meet (several tokens of packed QKV) get here.
template <class U>
POSENC_NOINLINE bool rows_overlap_either_way(const HeadsView<U>& a, const HeadsView<U>& b) noexcept
{
    const ViewGeometry ga = geometry(a), gb = geometry(b);
    return views_overlap(ga, gb) || views_overlap(gb, ga);
}

/// The common case of check_rope_views, decided without building its arguments in memory: Q in
/// place and valid, K absent, or in place, valid, with Q's token count and no row shared with Q,
/// all usual views (usual_view_is_valid).
template <class T>
POSENC_ALWAYS_INLINE bool in_place_views_are_valid(const QKViews<T>& v, int spec_head_dim) noexcept
{
    if (!identical_views(v.q_in, v.q_out) || !usual_view_is_valid(v.q_in, spec_head_dim)) return false;
    if (is_absent(v.k_in) && is_absent(v.k_out)) return true;
    if (!identical_views(v.k_in, v.k_out) || !usual_view_is_valid(v.k_in, spec_head_dim) ||
        v.k_in.tokens != v.q_in.tokens)
        return false;
    if (v.q_in.tokens == 0 || !bytes_of(v.q_in).intersects(bytes_of(v.k_in))) return true;
    // the byte ranges meet (several tokens of packed QKV): the rules' exact row test
    return !rows_overlap_either_way(v.q_in, v.k_in);
}

/// Every rule above, in order, naming the first one broken (see the file comment). Out of line,
/// off the usual call's path (rope_call_is_usual).
template <class T, class Angles>
POSENC_NOINLINE void check_rope_call_rules(const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                                           const QKViews<T>& views, TokenRange range)
{
    check_rope_views(geometry(views.q_in), geometry(views.q_out), geometry(views.k_in), geometry(views.k_out),
                     spec.head_dim());
    // after the views, so that a spec whose head_dim disagrees with the buffer is named as such
    check_pairs_and_range(angles.num_pairs(), spec.num_pairs(), range, views.q_in.tokens);
    check_positions(positions, views.q_in.tokens, range, angles.position_range(), angles.name());
}

/// The usual call, decided inline without a message: in_place_views_are_valid and
/// pairs_and_positions_are_usual (tests/kernels/rope_call_checks.cpp checks on mutated calls that
/// it accepts nothing check_rope_call_rules refuses).
template <class T, class Angles>
POSENC_ALWAYS_INLINE bool rope_call_is_usual(const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                                             const QKViews<T>& views, TokenRange range) noexcept
{
    return in_place_views_are_valid(views, spec.head_dim()) &&
           pairs_and_positions_are_usual(spec, angles, positions, range, views.q_in.tokens);
}

/// A decode step's call, decided without a call frame: one token (range {0, 1}), Q in place, K
/// absent, the pairs agree, a contiguous position inside the angle source, and Q's one-token
/// view valid: heads in [1, 2^31 - 1), head_stride in [0, 2^31 - 1) and >= head_dim when heads
/// > 1, the last element (heads - 1) * head_stride + head_dim - 1 inside size <= max_view_size.
/// Every call it accepts passes check_rope_call_rules (tests/kernels/rope_call_checks.cpp). The
/// general test, with its call frame, would cost a decode step measurably: rows
/// decode_f32/cache_half and decode_pair_f32 of docs/benchmarks.md.
template <class T, class Angles>
POSENC_ALWAYS_INLINE bool decode_call_is_usual(const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                                               const QKViews<T>& views, TokenRange range) noexcept
{
    using u64 = std::uint64_t;
    const HeadsView<const T>& q = views.q_in;
    const std::ptrdiff_t d = spec.head_dim();
    if ((range.begin | (range.end ^ 1) | (q.tokens ^ 1) | (q.head_dim ^ d)) != 0 || !identical_views(q, views.q_out) ||
        !is_absent(views.k_in) || !is_absent(views.k_out))
        return false;
    constexpr u64 usual = u64 {1} << 31;
    constexpr u64 max_size = static_cast<u64>(max_view_size(static_cast<std::ptrdiff_t>(sizeof(T))));
    const auto address = reinterpret_cast<std::uintptr_t>(q.data);
    const u64 more_heads = static_cast<u64>(q.heads) - 1;  // < 2^31 - 1 for heads in [1, 2^31)
    const u64 stride = static_cast<u64>(q.head_stride);
    const u64 size = static_cast<u64>(q.size);  // a negative size is past max_size here
    // one token: grid_rows_apart is head_stride >= head_dim when heads > 1, and the extent
    // (heads - 1) * head_stride + head_dim (both below 2^62 here)
    if (!data_is_aligned(address, alignof(T)) || (more_heads | stride) >= usual - 1 ||
        !grid_rows_apart(1, 0, q.heads, q.head_stride, d) || more_heads * stride + static_cast<u64>(d) > size ||
        !size_is_addressable(q.size, static_cast<std::ptrdiff_t>(max_size)))
        return false;
    const std::int64_t start = positions.start();
    return positions.is_contiguous() && position_start_in_reach(start) && angles.position_range().contains(start) &&
           pairs_match(angles.num_pairs(), spec.num_pairs());
}

/// Everything above: the usual call accepted inline, any other decided by the rules, which throw
/// posenc::error naming the first broken one.
template <class T, class Angles>
void check_rope_call(const RopeSpec& spec, const Angles& angles, const PositionIds& positions, const QKViews<T>& views,
                     TokenRange range)
{
    if (!rope_call_is_usual(spec, angles, positions, views, range))
        check_rope_call_rules(spec, angles, positions, views, range);
}

/// Whether `check` returns without throwing: a check as a predicate.
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

/// check_rope_call as a predicate, for the debug assertions of the unchecked entry points.
template <class T, class Angles>
bool rope_call_is_valid(const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                        const QKViews<T>& views, TokenRange range) noexcept
{
    return passes([&] { check_rope_call(spec, angles, positions, views, range); });
}

}  // namespace posenc::kernels::detail
