// SPDX-License-Identifier: MIT
// posenc/kernels/views.hpp: non-owning views of the tensors RoPE rotates, the position ids that
// say where each token sits, and token ranges.
//
// A HeadsView is a [tokens, heads, head_dim] tensor whose innermost dimension is contiguous and
// whose two outer dimensions have arbitrary strides (in elements):
//
//     element (t, h, d) is at  data[t * token_stride + h * head_stride + d]
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
// Within a head, the first rotary_dim elements rotate (pairs placed by the spec's Pairing), the
// remaining head_dim - rotary_dim pass through (untouched in place, copied out of place):
//
//   half_split   [ x0 .. x_{R/2-1} | x_{R/2} .. x_{R-1} | pass-through ]   pair i = (i, i + R/2)
//   interleaved  [ x0 x1 | x2 x3 | ... | x_{R-2} x_{R-1} | pass-through ]  pair i = (2i, 2i + 1)
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace posenc::kernels {

namespace detail {
/// a * b and a + b with two's-complement wrap-around instead of signed-overflow UB: views are
/// plain data built before validation, so absurd extents must reach check_view (which rejects
/// them) rather than trip undefined behaviour in a constructor.
constexpr std::ptrdiff_t wrapping_product(std::ptrdiff_t a, std::ptrdiff_t b) noexcept
{
    return static_cast<std::ptrdiff_t>(static_cast<std::size_t>(a) * static_cast<std::size_t>(b));
}
constexpr std::ptrdiff_t wrapping_sum(std::ptrdiff_t a, std::ptrdiff_t b) noexcept
{
    return static_cast<std::ptrdiff_t>(static_cast<std::size_t>(a) + static_cast<std::size_t>(b));
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
    std::ptrdiff_t head;   ///< from head h to head h + 1, same token
};

/// Non-owning strided view of a [tokens, heads, head_dim] tensor; see the file comment.
/// A default-constructed view is "absent" (data == nullptr), e.g. no K.
template <class T>
struct HeadsView {
    T* data = nullptr;
    std::ptrdiff_t tokens = 0;
    std::ptrdiff_t heads = 0;
    std::ptrdiff_t head_dim = 0;
    std::ptrdiff_t token_stride = 0;
    std::ptrdiff_t head_stride = 0;

    constexpr HeadsView() noexcept = default;

    /// Contiguous [tokens, heads, head_dim].
    constexpr HeadsView(T* data_, HeadsShape shape) noexcept
        : data(data_)
        , tokens(shape.tokens)
        , heads(shape.heads)
        , head_dim(shape.head_dim)
        , token_stride(detail::wrapping_product(shape.heads, shape.head_dim))
        , head_stride(shape.head_dim)
    {
    }

    /// Strided: element (t, h, d) at data_[t * strides.token + h * strides.head + d].
    constexpr HeadsView(T* data_, HeadsShape shape, HeadsStrides strides) noexcept
        : data(data_)
        , tokens(shape.tokens)
        , heads(shape.heads)
        , head_dim(shape.head_dim)
        , token_stride(strides.token)
        , head_stride(strides.head)
    {
    }

    /// A view of T converts to a view of const T.
    template <class U, std::enable_if_t<std::is_same_v<const U, T> && !std::is_same_v<U, T>, int> = 0>
    constexpr HeadsView(const HeadsView<U>& other) noexcept
        : data(other.data)
        , tokens(other.tokens)
        , heads(other.heads)
        , head_dim(other.head_dim)
        , token_stride(other.token_stride)
        , head_stride(other.head_stride)
    {
    }

    /// First element of head h of token t. Precondition: 0 <= t < tokens, 0 <= h < heads.
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

/// Slices a packed [tokens, (q_heads + 2 kv_heads) * head_dim] buffer into Q, K and V views
/// that share its memory (token_stride = (q_heads + 2 kv_heads) * head_dim, head_stride = head_dim).
template <class T>
constexpr PackedQkv<T> slice_packed_qkv(T* qkv, std::ptrdiff_t tokens, std::ptrdiff_t q_heads, std::ptrdiff_t kv_heads,
                                        std::ptrdiff_t head_dim) noexcept
{
    using detail::wrapping_product;
    using detail::wrapping_sum;
    const std::ptrdiff_t heads = wrapping_sum(q_heads, wrapping_product(2, kv_heads));
    const HeadsStrides strides {wrapping_product(heads, head_dim), head_dim};
    return {HeadsView<T>(qkv, {tokens, q_heads, head_dim}, strides),
            HeadsView<T>(qkv + wrapping_product(q_heads, head_dim), {tokens, kv_heads, head_dim}, strides),
            HeadsView<T>(qkv + wrapping_product(wrapping_sum(q_heads, kv_heads), head_dim), {tokens, kv_heads, head_dim}, strides)};
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
    {
    }
    constexpr PositionIds(const std::int64_t* ids, std::ptrdiff_t count) noexcept
        : kind_(Kind::int64_ids), ids64_(ids), count_(count)
    {
    }
    explicit PositionIds(const std::vector<std::int32_t>& ids) noexcept
        : PositionIds(ids.data(), static_cast<std::ptrdiff_t>(ids.size()))
    {
    }
    explicit PositionIds(const std::vector<std::int64_t>& ids) noexcept
        : PositionIds(ids.data(), static_cast<std::ptrdiff_t>(ids.size()))
    {
    }

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

/// Tokens [begin, end) of a call; see partition.hpp for splitting a call across threads.
struct TokenRange {
    std::ptrdiff_t begin = 0;
    std::ptrdiff_t end = 0;
    constexpr std::ptrdiff_t size() const noexcept { return end - begin; }
};

/// Forward rotates to the position (RoPE); inverse rotates back (undoes it: R(-m theta)).
enum class Direction { forward, inverse };

}  // namespace posenc::kernels
