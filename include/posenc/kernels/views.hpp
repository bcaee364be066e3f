// SPDX-License-Identifier: MIT
// posenc/kernels/views.hpp: non-owning views of the tensors RoPE rotates, the position ids that
// say where each token sits, and token ranges.
//
// A HeadsView is a [tokens, heads, head_dim] tensor whose innermost dimension is contiguous and
// whose two outer dimensions have strides (in elements), inside a buffer of `size` elements
// that starts at `data`:
//
//     element (t, h, d) is at  data[t * token_stride + h * head_stride + d],   0 <= that index < size
//
//   contiguous [T, H, D]           token_stride = H * D,            head_stride = D
//   Q of a packed QKV [T, (Hq + 2 Hk) * D]   data = qkv,            token_stride = (Hq + 2 Hk) D, head_stride = D
//   K of the same buffer           data = qkv + Hq * D,             same strides
//   heads-major [H, T, D]          token_stride = D,                head_stride = T * D
//   padded rows                    token_stride > H * D (gaps are never touched)
//
//   one token of packed QKV, Hq = 4, Hk = 2 (q = rotated, k = rotated, v = untouched):
//   | q0 | q1 | q2 | q3 | k0 | k1 | v0 | v1 |
//    ^data(Q)            ^data(K)
//
// Every view is built from its pointer AND the number of elements it may address from there
// (the rest of the caller's allocation): the checked entry points (apply.hpp, detail/checks.hpp)
// prove, in overflow-free integer arithmetic, that the first element (index 0) and the last
// one ((tokens - 1) token_stride + (heads - 1) head_stride + head_dim - 1) lie inside
// [0, size), and name the view and the element when they do not. The stride of an axis of
// extent 1 is never used (any value is accepted, and the kernels never multiply by it).
// Strides of longer axes must be >= head_dim (so they are positive: a view walks its buffer
// forwards, and its first element is data[0]).
//
// Within a head, the spec's rotated slice (rotary_dim coordinates from rotary_offset, paired by
// its Pairing: spec.hpp) rotates; the other coordinates pass through (untouched in place, copied
// out of place).
//
// Alignment: data must be aligned for its element type (alignof: float 4, double 8, bfloat16
// and float16 2 bytes); the checked entries refuse a misaligned pointer. No wider alignment is
// needed (the SIMD kernels load unaligned).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <type_traits>
#include <vector>

#include "posenc/config.hpp"
#include "posenc/error.hpp"

namespace posenc::kernels {

namespace detail {
/// a * b with two's-complement wrap-around instead of signed-overflow UB: views are
/// plain data built before validation, so absurd extents must reach check_view (which rejects
/// them) rather than trip undefined behaviour in a constructor.
constexpr std::ptrdiff_t wrapping_product(std::ptrdiff_t a, std::ptrdiff_t b) noexcept
{
    return static_cast<std::ptrdiff_t>(static_cast<std::size_t>(a) * static_cast<std::size_t>(b));
}
}  // namespace detail

/// Extents of a HeadsView.
struct HeadsShape {
    std::ptrdiff_t tokens;
    std::ptrdiff_t heads;
    std::ptrdiff_t head_dim;
};

/// Strides of a HeadsView's two outer dimensions, in elements.
struct HeadsStrides {
    std::ptrdiff_t token;  ///< from token t to token t + 1, same head
    std::ptrdiff_t head;  ///< from head h to head h + 1, same token
};

/// Non-owning strided view of a [tokens, heads, head_dim] tensor inside a buffer of `size`
/// elements from `data`; see the file comment. A default-constructed view is "absent"
/// (data == nullptr, size 0), e.g. no K.
template <class T>
struct HeadsView {
    T* data = nullptr;
    std::ptrdiff_t size = 0;  ///< elements addressable from data: data[0] .. data[size - 1]
    std::ptrdiff_t tokens = 0;
    std::ptrdiff_t heads = 0;
    std::ptrdiff_t head_dim = 0;
    std::ptrdiff_t token_stride = 0;
    std::ptrdiff_t head_stride = 0;

    constexpr HeadsView() noexcept = default;

    /// Strided: element (t, h, d) at data_[t * strides.token + h * strides.head + d], inside data_[0 .. size_).
    constexpr HeadsView(T* data_, std::ptrdiff_t size_, HeadsShape shape, HeadsStrides strides) noexcept
        : data(data_), size(size_), tokens(shape.tokens), heads(shape.heads), head_dim(shape.head_dim),
          token_stride(strides.token), head_stride(strides.head)
    {}

    /// Contiguous [tokens, heads, head_dim] in data[0 .. size).
    constexpr HeadsView(T* data_, std::ptrdiff_t size_, HeadsShape shape) noexcept
        : HeadsView(data_, size_, shape, {detail::wrapping_product(shape.heads, shape.head_dim), shape.head_dim})
    {}

    /// A whole container (std::vector, std::array, ...): data() and size() give the buffer.
    template <class C, std::enable_if_t<std::is_convertible_v<decltype(std::declval<C&>().data()), T*>, int> = 0>
    constexpr HeadsView(C& buffer, HeadsShape shape) noexcept
        : HeadsView(buffer.data(), static_cast<std::ptrdiff_t>(buffer.size()), shape)
    {}
    template <class C, std::enable_if_t<std::is_convertible_v<decltype(std::declval<C&>().data()), T*>, int> = 0>
    constexpr HeadsView(C& buffer, HeadsShape shape, HeadsStrides strides) noexcept
        : HeadsView(buffer.data(), static_cast<std::ptrdiff_t>(buffer.size()), shape, strides)
    {}

    /// A view of T converts to a view of const T.
    template <class U, std::enable_if_t<std::is_same_v<const U, T> && !std::is_same_v<U, T>, int> = 0>
    constexpr HeadsView(const HeadsView<U>& other) noexcept
        : HeadsView(other.data, other.size, other.shape(), other.strides())
    {}

    /// First element of head h of token t. Precondition: 0 <= t < tokens, 0 <= h < heads, and
    /// the view is valid (detail/checks.hpp).
    constexpr T* head(std::ptrdiff_t t, std::ptrdiff_t h) const noexcept
    {
        return data + t * token_stride + h * head_stride;
    }

    constexpr bool present() const noexcept { return data != nullptr; }
    constexpr HeadsShape shape() const noexcept { return {tokens, heads, head_dim}; }
    constexpr HeadsStrides strides() const noexcept { return {token_stride, head_stride}; }
};

/// Q, K and V views of one packed buffer laid out per token as [q heads | k heads | v heads],
/// each head head_dim elements (the usual fused QKV projection output).
template <class T>
struct PackedQkv {
    HeadsView<T> q;
    HeadsView<T> k;
    HeadsView<T> v;
};

/// The extents of a packed QKV buffer: [tokens, (q_heads + 2 kv_heads) * head_dim].
struct PackedQkvShape {
    std::ptrdiff_t tokens;
    std::ptrdiff_t q_heads;
    std::ptrdiff_t kv_heads;
    std::ptrdiff_t head_dim;
};

/// Slices a packed [tokens, (q_heads + 2 kv_heads) * head_dim] buffer of `size` elements into
/// Q, K and V views that share its memory (token_stride = (q_heads + 2 kv_heads) * head_dim,
/// head_stride = head_dim); each view's size is what remains of the buffer from its first
/// element. Throws posenc::error unless tokens >= 0, q_heads >= 1, kv_heads >= 1,
/// head_dim >= 1, size >= 0 and tokens * (q_heads + 2 kv_heads) * head_dim <= size (computed
/// without overflow): "qkv.size 1000 must be >= tokens * (q_heads + 2 kv_heads) * head_dim = 1536".
template <class T>
PackedQkv<T> slice_packed_qkv(T* qkv, std::ptrdiff_t size, PackedQkvShape shape)
{
    const auto [tokens, q_heads, kv_heads, head_dim] = shape;
    if (qkv == nullptr) throw posenc::error("qkv.data", "null", "must point to the packed buffer");
    posenc::detail::require(size >= 0, "qkv.size", size, "must be >= 0");
    posenc::detail::require(tokens >= 0, "qkv.tokens", tokens, "must be >= 0");
    posenc::detail::require(q_heads >= 1, "qkv.q_heads", q_heads, "must be >= 1");
    posenc::detail::require(kv_heads >= 1, "qkv.kv_heads", kv_heads, "must be >= 1");
    posenc::detail::require(head_dim >= 1, "qkv.head_dim", head_dim, "must be >= 1");
    // row = (q_heads + 2 kv_heads) * head_dim and tokens * row, each refused before it could overflow
    const std::ptrdiff_t limit = PTRDIFF_MAX / static_cast<std::ptrdiff_t>(sizeof(T));
    const bool heads_fit = kv_heads <= (limit - q_heads) / 2;
    const std::ptrdiff_t heads = heads_fit ? q_heads + 2 * kv_heads : 0;
    const bool row_fits = heads_fit && heads <= limit / head_dim;
    const std::ptrdiff_t row = row_fits ? heads * head_dim : 0;
    const bool fits = row_fits && (tokens == 0 || row <= limit / tokens);
    if (!fits || tokens * row > size) {
        const double needed = static_cast<double>(tokens) *
                              (static_cast<double>(q_heads) + 2.0 * static_cast<double>(kv_heads)) *
                              static_cast<double>(head_dim);
        posenc::detail::raise("qkv.size", size,
                              posenc::detail::cat({"must be >= tokens * (q_heads + 2 kv_heads) * head_dim = ",
                                                   posenc::detail::format_value(needed), " (", tokens, " x (", q_heads,
                                                   " + 2 x ", kv_heads, ") x ", head_dim, ")"}));
    }
    const HeadsStrides strides {row, head_dim};
    // with no tokens the buffer may be shorter than one row: keep the slices' pointers inside it
    const std::ptrdiff_t k_offset = std::min(q_heads * head_dim, size);
    const std::ptrdiff_t v_offset = std::min((q_heads + kv_heads) * head_dim, size);
    return {HeadsView<T>(qkv, size, {tokens, q_heads, head_dim}, strides),
            HeadsView<T>(qkv + k_offset, size - k_offset, {tokens, kv_heads, head_dim}, strides),
            HeadsView<T>(qkv + v_offset, size - v_offset, {tokens, kv_heads, head_dim}, strides)};
}

/// slice_packed_qkv of a whole container (data() and size()).
template <class C>
auto slice_packed_qkv(C& buffer, PackedQkvShape shape)
    -> PackedQkv<std::remove_pointer_t<decltype(std::declval<C&>().data())>>
{
    return slice_packed_qkv(buffer.data(), static_cast<std::ptrdiff_t>(buffer.size()), shape);
}

/// What one call rotates: Q (required) and K (optional, any head count: grouped-query
/// attention), each from an input view into an output view. In place: out is the same view as in.
template <class T>
struct QKViews {
    HeadsView<const T> q_in;
    HeadsView<T> q_out;
    HeadsView<const T> k_in;  ///< absent (default) when there is no K
    HeadsView<T> k_out;

    /// Rotate q (and k) in place.
    static constexpr QKViews in_place(HeadsView<T> q, HeadsView<T> k = {}) noexcept { return {q, q, k, k}; }

    /// Read q_in (k_in), write q_out (k_out); pass-through dims are copied.
    static constexpr QKViews out_of_place(HeadsView<const T> q_in, HeadsView<T> q_out, HeadsView<const T> k_in = {},
                                          HeadsView<T> k_out = {}) noexcept
    {
        return {q_in, q_out, k_in, k_out};
    }

    constexpr bool has_k() const noexcept { return k_in.present(); }
    constexpr std::ptrdiff_t tokens() const noexcept { return q_in.tokens; }
};

/// The position of every token: either ids (int32 or int64, one per token, any order, repeats
/// allowed) or the contiguous shortcut start + t.
class PositionIds
{
public:
    enum class Kind { contiguous, int32_ids, int64_ids };

    /// Token t has position start + t (a prompt chunk, or one decode step with start = its position).
    static constexpr PositionIds contiguous(std::int64_t start) noexcept { return PositionIds(start); }

    /// ids[t] for t in [0, count). The array must outlive the call.
    constexpr PositionIds(const std::int32_t* ids, std::ptrdiff_t count) noexcept
        : kind_(Kind::int32_ids), ids32_(ids), count_(count)
    {}
    constexpr PositionIds(const std::int64_t* ids, std::ptrdiff_t count) noexcept
        : kind_(Kind::int64_ids), ids64_(ids), count_(count)
    {}
    explicit PositionIds(const std::vector<std::int32_t>& ids) noexcept
        : PositionIds(ids.data(), static_cast<std::ptrdiff_t>(ids.size()))
    {}
    explicit PositionIds(const std::vector<std::int64_t>& ids) noexcept
        : PositionIds(ids.data(), static_cast<std::ptrdiff_t>(ids.size()))
    {}

    /// Position of token t. Precondition: for ids, 0 <= t < count().
    constexpr std::int64_t operator[](std::ptrdiff_t t) const noexcept
    {
        switch (kind_) {
        case Kind::int32_ids: return ids32_[t];
        case Kind::int64_ids: return ids64_[t];
        default: return start_ + static_cast<std::int64_t>(t);
        }
    }

    constexpr Kind kind() const noexcept { return kind_; }
    constexpr bool is_contiguous() const noexcept { return kind_ == Kind::contiguous; }
    /// The first position of the contiguous shortcut (0 for ids).
    constexpr std::int64_t start() const noexcept { return start_; }
    /// The ids array (nullptr for the contiguous shortcut).
    constexpr const void* ids_data() const noexcept
    {
        return kind_ == Kind::int32_ids ? static_cast<const void*>(ids32_) : static_cast<const void*>(ids64_);
    }
    /// Number of ids (-1 for the contiguous shortcut, which has no length of its own).
    constexpr std::ptrdiff_t count() const noexcept { return count_; }

private:
    explicit constexpr PositionIds(std::int64_t start) noexcept : kind_(Kind::contiguous), start_(start) {}

    Kind kind_;
    std::int64_t start_ = 0;
    const std::int32_t* ids32_ = nullptr;
    const std::int64_t* ids64_ = nullptr;
    std::ptrdiff_t count_ = -1;
};

/// A non-owning, read-only run of `size` floats from `data` (for example one multiplier per
/// token); the checked entry points prove every read inside [data, data + size). Absent
/// (default): data null and size 0.
struct FloatSpan {
    const float* data = nullptr;
    std::ptrdiff_t size = 0;

    constexpr FloatSpan() noexcept = default;
    constexpr FloatSpan(const float* data_, std::ptrdiff_t size_) noexcept : data(data_), size(size_) {}
    /// Absent.
    constexpr FloatSpan(std::nullptr_t) noexcept {}
    /// A whole container of floats (std::vector, std::array, ...).
    template <class C,
              std::enable_if_t<std::is_convertible_v<decltype(std::declval<const C&>().data()), const float*>, int> = 0>
    constexpr FloatSpan(const C& buffer) noexcept
        : data(buffer.data()), size(static_cast<std::ptrdiff_t>(buffer.size()))
    {}
    constexpr bool present() const noexcept { return data != nullptr || size != 0; }
};

/// Tokens [begin, end) of a call; see partition.hpp for splitting a call across threads.
/// `whole`: every token of the call's views, whatever begin and end say (all_tokens); an
/// explicit {begin, end} leaves it false, so no range a caller writes can mean "all".
struct TokenRange {
    std::ptrdiff_t begin = 0;
    std::ptrdiff_t end = 0;
    bool whole = false;
    constexpr std::ptrdiff_t size() const noexcept { return end - begin; }
};

/// Every token of the call's views, [0, tokens): the entry points' default range.
inline constexpr TokenRange all_tokens {0, 0, true};

namespace detail {
/// `range`, with all_tokens read as [0, tokens).
POSENC_ALWAYS_INLINE constexpr TokenRange within(TokenRange range, std::ptrdiff_t tokens) noexcept
{
    return range.whole ? TokenRange {0, tokens} : range;
}
}  // namespace detail

/// Forward rotates to the position (RoPE); inverse rotates back (undoes it: R(-m theta)).
enum class Direction { forward, inverse };

}  // namespace posenc::kernels
