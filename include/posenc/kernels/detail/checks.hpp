// SPDX-License-Identifier: MIT
// posenc/kernels/detail/checks.hpp: what the checked entry points verify before entering a kernel.
//
// check_rope_call throws posenc::error ("<field> <value> <rule>") for the first violation of:
//   views    q_in and q_out present; k_in and k_out both present or both absent;
//            data != null and aligned for the element type (alignof); 0 <= size <=
//            max_view_size; tokens >= 0 and equal across all views; heads >= 1, equal between
//            a tensor's in and out views; head_dim == spec.head_dim;
//            strides: the [tokens, heads] grid of head_dim-long rows must not overlap itself
//            (sorting the two axes by stride: small stride >= head_dim, large stride >=
//            small stride * (small count - 1) + head_dim; an axis of extent 1 has no stride);
//            bounds: the first element (data[0]) and the last one ((tokens - 1) token_stride +
//            (heads - 1) head_stride + head_dim - 1) lie inside [0, size), proved in integer
//            arithmetic that cannot overflow;
//            no written view overlaps another view, except an output that is exactly its own
//            input (in place). Views that share memory must have equal strides (then the overlap
//            test is exact: packed QKV slices pass); otherwise their address ranges must be disjoint.
//   angles   angles.num_pairs == spec.num_pairs
//   range    0 <= begin <= end <= tokens
//   positions  ids: count == tokens, pointer != null; every position of a token in the range
//            lies in angles.position_range() (a position beyond a cache is an error, never a
//            read past its end).
// Cost: O(tokens in range) for the position scan, O(1) otherwise.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

#include "posenc/error.hpp"
#include "posenc/kernels/angle_source.hpp"
#include "posenc/kernels/views.hpp"
#include "posenc/spec.hpp"

namespace posenc::kernels::detail {

inline std::string member(const char* view, const char* name) { return std::string(view) + "." + name; }

inline std::string shape_text(std::ptrdiff_t tokens, std::ptrdiff_t heads, std::ptrdiff_t head_dim)
{
    return std::to_string(tokens) + "x" + std::to_string(heads) + "x" + std::to_string(head_dim);
}

/// The largest buffer a view may describe, in elements: PTRDIFF_MAX / sizeof(U) / 16. No
/// machine has that much memory; the margin keeps every offset the kernels form (a prefetch
/// 8 heads ahead included) inside ptrdiff_t.
template <class U>
constexpr std::ptrdiff_t max_view_size = PTRDIFF_MAX / static_cast<std::ptrdiff_t>(sizeof(U)) / 16;

/// Index of the last element a valid view addresses, (tokens - 1) token_stride + (heads - 1)
/// head_stride + head_dim - 1, if it is < size; -1 otherwise. Computed without overflow: every
/// partial sum is compared with what remains of the buffer before it is formed. Requires
/// tokens >= 1, heads >= 1, head_dim >= 1 and the strides of axes longer than 1 >= head_dim.
template <class U>
std::ptrdiff_t last_index_within(const HeadsView<U>& v) noexcept
{
    std::ptrdiff_t room = v.size - v.head_dim;  // room left for the outer offsets
    if (room < 0) return -1;
    if (v.tokens > 1) {
        if (v.token_stride > room / (v.tokens - 1)) return -1;
        room -= (v.tokens - 1) * v.token_stride;
    }
    if (v.heads > 1) {
        if (v.head_stride > room / (v.heads - 1)) return -1;
        room -= (v.heads - 1) * v.head_stride;
    }
    return v.size - 1 - room;
}

/// The index of a view's last element as text, exact whenever it fits in 64 unsigned bits
/// (counts and strides are non-negative here), else in floating point.
template <class U>
std::string last_index_text(const HeadsView<U>& v)
{
    using u64 = unsigned long long;
    const u64 max = ~u64 {0};
    const u64 t = static_cast<u64>(v.tokens - 1), ts = static_cast<u64>(v.tokens > 1 ? v.token_stride : 0);
    const u64 h = static_cast<u64>(v.heads - 1), hs = static_cast<u64>(v.heads > 1 ? v.head_stride : 0);
    const u64 d = static_cast<u64>(v.head_dim - 1);
    const bool exact = (ts == 0 || t <= max / ts) && (hs == 0 || h <= max / hs) && t * ts <= max - d &&
                       h * hs <= max - d - t * ts;
    if (exact) return std::to_string(t * ts + h * hs + d);
    return posenc::detail::format_value(static_cast<double>(t) * static_cast<double>(ts) +
                                        static_cast<double>(h) * static_cast<double>(hs) + static_cast<double>(d));
}

/// One view on its own: presence, alignment, extents, strides, bounds; builds the message. Out
/// of line and only called once view_is_valid has failed (this runs on every checked call).
template <class U>
[[noreturn]] void raise_view_error(const HeadsView<U>& v, const char* name, const RopeSpec& spec)
{
    if (v.data == nullptr) throw posenc::error(member(name, "data"), "null", "must point to the tensor");
    if (reinterpret_cast<std::uintptr_t>(v.data) % alignof(U) != 0)
        posenc::detail::raise(member(name, "data"), static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(v.data)),
                              "must be a multiple of " + std::to_string(alignof(U)) + " (the alignment of its " +
                                  std::to_string(sizeof(U)) + "-byte element type)");
    if (v.size < 0 || v.size > max_view_size<U>)
        posenc::detail::raise(member(name, "size"), v.size,
                              "must be in [0, " + std::to_string(max_view_size<U>) + "] (elements the view may address)");
    if (v.tokens < 0) posenc::detail::raise(member(name, "tokens"), v.tokens, "must be >= 0");
    if (v.heads < 1) posenc::detail::raise(member(name, "heads"), v.heads, "must be >= 1");
    if (v.head_dim != spec.head_dim())
        posenc::detail::raise(member(name, "head_dim"), v.head_dim,
                              "must equal spec.head_dim " + std::to_string(spec.head_dim()) +
                                  " (the buffer's heads are that long)");

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
            posenc::detail::raise(member(name, a->stride_name), a->stride,
                                  std::string("must be >= head_dim ") + std::to_string(d) + " when " + a->count_name +
                                      " > 1 (element 1 of that axis would lie before " + name + ".data)");
        if (a->count > 1 && a->stride < d)
            posenc::detail::raise(member(name, a->stride_name), a->stride,
                                  std::string("must be >= head_dim ") + std::to_string(d) + " when " + a->count_name +
                                      " > 1 (rows would overlap)");
    }
    if (token.count > 1 && head.count > 1) {
        const Axis& small = token.stride <= head.stride ? token : head;
        const Axis& large = token.stride <= head.stride ? head : token;
        if (large.stride == small.stride || (large.stride - d) / small.stride < small.count - 1) {
            const double needed =
                static_cast<double>(small.stride) * static_cast<double>(small.count - 1) + static_cast<double>(d);
            posenc::detail::raise(member(name, large.stride_name), large.stride,
                                  "must be >= " + std::string(small.stride_name) + " * (" + small.count_name +
                                      " - 1) + head_dim = " + posenc::detail::format_value(needed) + " (rows would overlap)");
        }
    }
    // the bound: the last element must lie inside [0, size) (the first is data[0])
    posenc::detail::raise(member(name, "size"), v.size,
                          "must be > " + last_index_text(v) + ", the index of " + name +
                              "'s last element (token " + std::to_string(v.tokens - 1) + ", head " +
                              std::to_string(v.heads - 1) + ", dim " + std::to_string(d - 1) +
                              "): the view would address memory past its buffer");
}

/// The rules of raise_view_error in integer arithmetic, without overflow: data non-null and
/// aligned for U; 0 <= size <= max_view_size; tokens >= 0, heads >= 1, head_dim = spec's; rows
/// of head_dim elements on the [tokens, heads] grid must not overlap (sorting the two axes by
/// stride: small stride >= head_dim, large stride >= small stride * (small count - 1) +
/// head_dim; the stride of an axis of extent 1 is ignored); and the last element
/// (last_index_within) lies inside the buffer.
template <class U>
bool view_is_valid(const HeadsView<U>& v, const RopeSpec& spec) noexcept
{
    const std::ptrdiff_t d = v.head_dim;
    if (v.data == nullptr || reinterpret_cast<std::uintptr_t>(v.data) % alignof(U) != 0) return false;
    if (v.size < 0 || v.size > max_view_size<U> || v.tokens < 0 || v.heads < 1 || d != spec.head_dim()) return false;
    if (v.tokens == 0) return true;
    const bool many_tokens = v.tokens > 1, many_heads = v.heads > 1;
    if ((many_tokens && v.token_stride < d) || (many_heads && v.head_stride < d)) return false;
    if (last_index_within(v) < 0) return false;
    if (many_tokens && many_heads) {
        const bool token_small = v.token_stride <= v.head_stride;
        const std::ptrdiff_t small = token_small ? v.token_stride : v.head_stride;
        const std::ptrdiff_t small_count = token_small ? v.tokens : v.heads;
        const std::ptrdiff_t large = token_small ? v.head_stride : v.token_stride;
        if (large == small || (large - d) / small < small_count - 1) return false;  // large >= small >= d >= 1
    }
    return true;
}

/// One view on its own (see view_is_valid); throws posenc::error naming the first broken rule.
template <class U>
void check_view(const HeadsView<U>& v, const char* name, const RopeSpec& spec)
{
    if (!view_is_valid(v, spec)) raise_view_error(v, name, spec);
}

/// Elements from a view's first element to one past its last (a valid view with tokens >= 1).
template <class U>
std::ptrdiff_t extent_of(const HeadsView<U>& v) noexcept
{
    const HeadsView<U> n = v.normalized();
    return (n.tokens - 1) * n.token_stride + (n.heads - 1) * n.head_stride + n.head_dim;
}

/// round(x / y) for y > 0, in double (the caller checks neighbours, so it need not be exact).
inline std::ptrdiff_t nearest_multiple(double x, double y) noexcept
{
    return static_cast<std::ptrdiff_t>(std::floor(x / y + 0.5));
}

/// True if some row of `a` shares an element with some row of `b` (both valid per check_view,
/// same element type and head_dim). Exact when the strides that matter are equal; otherwise
/// true as soon as the address ranges intersect.
template <class UA, class UB>
bool views_overlap(const HeadsView<UA>& a, const HeadsView<UB>& b) noexcept
{
    static_assert(sizeof(UA) == sizeof(UB), "views_overlap compares views of one element type.");
    if (a.tokens == 0 || b.tokens == 0) return false;
    const auto a_begin = reinterpret_cast<std::uintptr_t>(a.data);
    const auto b_begin = reinterpret_cast<std::uintptr_t>(b.data);
    const std::uintptr_t a_end = a_begin + static_cast<std::uintptr_t>(extent_of(a)) * sizeof(UA);
    const std::uintptr_t b_end = b_begin + static_cast<std::uintptr_t>(extent_of(b)) * sizeof(UB);
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
    auto common_stride = [](std::ptrdiff_t count_a, std::ptrdiff_t stride_a, std::ptrdiff_t count_b,
                            std::ptrdiff_t stride_b, std::ptrdiff_t& out) {
        out = count_a > 1 ? stride_a : stride_b;
        return count_a <= 1 || count_b <= 1 || stride_a == stride_b;
    };
    const bool token_axis = a.tokens > 1 || b.tokens > 1;
    const bool head_axis = a.heads > 1 || b.heads > 1;
    if (token_axis) {
        std::ptrdiff_t stride = 0;
        if (!common_stride(a.tokens, a.token_stride, b.tokens, b.token_stride, stride)) return true;
        axes[n++] = {stride, -(a.tokens - 1), b.tokens - 1};
    }
    if (head_axis) {
        std::ptrdiff_t stride = 0;
        if (!common_stride(a.heads, a.head_stride, b.heads, b.head_stride, stride)) return true;
        axes[n++] = {stride, -(a.heads - 1), b.heads - 1};
    }
    const std::ptrdiff_t byte_distance = static_cast<std::ptrdiff_t>(b_begin - a_begin);
    if (byte_distance % static_cast<std::ptrdiff_t>(sizeof(UA)) != 0) return true;
    const std::ptrdiff_t d = byte_distance / static_cast<std::ptrdiff_t>(sizeof(UA));
    const std::ptrdiff_t h = a.head_dim;
    if (n == 2 && axes[0].stride < axes[1].stride) std::swap(axes[0], axes[1]);  // large stride first
    auto clamp = [](std::ptrdiff_t x, const Axis& ax) { return x < ax.lowest ? ax.lowest : (x > ax.highest ? ax.highest : x); };
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

template <class UA, class UB>
bool same_view(const HeadsView<UA>& a, const HeadsView<UB>& b) noexcept
{
    // strides of axes of extent 1 are never used: they need not agree
    return static_cast<const void*>(a.data) == static_cast<const void*>(b.data) && a.tokens == b.tokens &&
           a.heads == b.heads && a.head_dim == b.head_dim && (a.tokens <= 1 || a.token_stride == b.token_stride) &&
           (a.heads <= 1 || a.head_stride == b.head_stride);
}

template <class UA, class UB>
void require_disjoint(const HeadsView<UA>& written, const char* written_name, const HeadsView<UB>& other,
                      const char* other_name)
{
    if (views_overlap(written, other))
        throw posenc::error(written_name, shape_text(written.tokens, written.heads, written.head_dim),
                            std::string("must not overlap ") + other_name +
                                " (views sharing memory need equal strides and disjoint rows)");
}

/// Positions of tokens [range.begin, range.end) against the angle source's range.
inline void check_positions(const PositionIds& positions, std::ptrdiff_t tokens, TokenRange range,
                            PositionRange allowed, const char* source_name)
{
    // the message is built only on failure: this runs on every checked call
    auto fail = [&](const std::string& field, std::int64_t value) {
        posenc::detail::raise(field, value,
                              "must be in [" + std::to_string(allowed.first) + ", " + std::to_string(allowed.last) +
                                  "], the positions the " + source_name + " serves");
    };
    if (positions.is_contiguous()) {
        if (range.size() == 0) return;
        const std::int64_t start = positions.start();
        const std::int64_t reach = std::int64_t {1} << 62;
        if (start < -reach || start > reach) fail("positions.start", start);
        for (std::ptrdiff_t t : {range.begin, range.end - 1})
            if (!allowed.contains(positions[t])) fail("positions[" + std::to_string(t) + "]", positions[t]);
        return;
    }
    if (positions.count() != tokens)
        posenc::detail::raise("positions.count", positions.count(), "must equal tokens " + std::to_string(tokens));
    if (tokens > 0 && positions.ids_data() == nullptr)
        throw posenc::error("positions.ids", "null", "must point to one id per token");
    for (std::ptrdiff_t t = range.begin; t < range.end; ++t)
        if (!allowed.contains(positions[t])) fail("positions[" + std::to_string(t) + "]", positions[t]);
}

/// The output view `out` of input `in`: in place (the same view) it needs no checks of its own;
/// otherwise check_view, and the input's tokens and heads. Returns whether it is in place.
template <class T>
bool check_output_view(const HeadsView<T>& out, const char* out_name, const HeadsView<const T>& in, const char* in_name,
                       const RopeSpec& spec)
{
    if (same_view(out, in)) return true;
    check_view(out, out_name, spec);
    if (out.tokens != in.tokens || out.heads != in.heads)
        throw posenc::error(out_name, shape_text(out.tokens, out.heads, out.head_dim),
                            std::string("must have the shape of ") + in_name + " " + shape_text(in.tokens, in.heads, in.head_dim));
    return false;
}

/// "No K" is an empty view; a null pointer with extents is a mistake, not an absent K.
template <class U>
void check_absent_means_empty(const HeadsView<U>& k, const char* name)
{
    if (!k.present() && (k.tokens != 0 || k.heads != 0 || k.head_dim != 0))
        throw posenc::error(std::string(name) + ".data", "null",
                            "must point to the elements of " + shape_text(k.tokens, k.heads, k.head_dim) +
                                " (leave the whole view empty for no K)");
}

/// Everything above, in order; see the file comment.
template <class T, class Angles>
void check_rope_call(const RopeSpec& spec, const Angles& angles, const PositionIds& positions, const QKViews<T>& views,
                     TokenRange range)
{
    check_view(views.q_in, "q_in", spec);
    const bool q_in_place = check_output_view(views.q_out, "q_out", views.q_in, "q_in", spec);
    check_absent_means_empty(views.k_in, "k_in");
    check_absent_means_empty(views.k_out, "k_out");
    if (views.k_in.present() != views.k_out.present())
        throw posenc::error(views.k_in.present() ? "k_out" : "k_in", "absent",
                            std::string("must be given together with ") + (views.k_in.present() ? "k_in" : "k_out"));
    if (views.has_k()) {
        check_view(views.k_in, "k_in", spec);
        check_output_view(views.k_out, "k_out", views.k_in, "k_in", spec);
        if (views.k_in.tokens != views.q_in.tokens)
            posenc::detail::raise("k_in.tokens", views.k_in.tokens, "must equal q_in.tokens " + std::to_string(views.q_in.tokens));
    }
    if (!q_in_place) require_disjoint(views.q_out, "q_out", views.q_in, "q_in");
    if (views.has_k()) {
        if (!same_view(views.k_out, views.k_in)) require_disjoint(views.k_out, "k_out", views.k_in, "k_in");
        require_disjoint(views.q_out, "q_out", views.k_out, "k_out");
        require_disjoint(views.q_out, "q_out", views.k_in, "k_in");
        require_disjoint(views.k_out, "k_out", views.q_in, "q_in");
    }
    // after the views, so that a spec whose head_dim disagrees with the buffer is named as such
    if (angles.num_pairs() != spec.num_pairs())
        posenc::detail::raise("angles.num_pairs", angles.num_pairs(),
                              "must equal spec.num_pairs " + std::to_string(spec.num_pairs()) +
                                  " (rotary_dim / 2): the angle source was built for another rotary_dim");
    const std::ptrdiff_t tokens = views.q_in.tokens;
    if (!(0 <= range.begin && range.begin <= range.end && range.end <= tokens))
        throw posenc::error("range", "[" + std::to_string(range.begin) + ", " + std::to_string(range.end) + ")",
                            "must satisfy 0 <= begin <= end <= tokens " + std::to_string(tokens));
    check_positions(positions, tokens, range, angles.position_range(), angles.name());
}

/// check_rope_call as a predicate, for the debug assertions of the unchecked entry points.
template <class T, class Angles>
bool rope_call_is_valid(const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                        const QKViews<T>& views, TokenRange range) noexcept
{
    try {
        check_rope_call(spec, angles, positions, views, range);
        return true;
    } catch (...) {
        return false;
    }
}

}  // namespace posenc::kernels::detail
