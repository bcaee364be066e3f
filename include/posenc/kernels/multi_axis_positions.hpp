// SPDX-License-Identifier: MIT
// posenc/kernels/multi_axis_positions.hpp: MultiAxisPositions, the positions of a multi-axis
// RoPE call (kernels/multi_axis.hpp): one position per token and axis, int32 or int64.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace posenc::kernels {

/// Positions of several axes for every token, int32 or int64, inside a buffer of `size`
/// elements from `data`: position (t, a) is
///     data[t * token_stride + a * axis_stride],   0 <= that index < size
///   token-major [tokens][axes]   (the constructors)    token_stride = axes, axis_stride = 1
///   axes-major  [axes][tokens]   (axes_major)          token_stride = 1,    axis_stride = tokens
///   anything else                (strided)
/// Like the tensor views, it is built from its pointer AND the number of elements it may
/// address; the checked entry points prove that every position they read lies inside (strides
/// of axes longer than 1 must be >= 1) and name the field otherwise. Non-owning: the array
/// must outlive the call.
class MultiAxisPositions
{
public:
    enum class Kind { int32_ids, int64_ids };

    /// Token-major [tokens][axes] in data[0 .. size).
    constexpr MultiAxisPositions(const std::int32_t* data, std::ptrdiff_t size, std::ptrdiff_t tokens,
                                 int axes) noexcept
        : MultiAxisPositions(data, nullptr, size, tokens, axes, axes, 1)
    {}
    constexpr MultiAxisPositions(const std::int64_t* data, std::ptrdiff_t size, std::ptrdiff_t tokens,
                                 int axes) noexcept
        : MultiAxisPositions(nullptr, data, size, tokens, axes, axes, 1)
    {}

    /// Token-major [tokens][axes] filling a whole container of int32_t or int64_t (std::vector,
    /// std::array, ...): tokens = size() / axes.
    template <class C, class E = std::remove_cv_t<std::remove_pointer_t<decltype(std::declval<const C&>().data())>>,
              std::enable_if_t<std::is_same_v<E, std::int32_t> || std::is_same_v<E, std::int64_t>, int> = 0>
    constexpr MultiAxisPositions(const C& ids, int axes) noexcept
        : MultiAxisPositions(ids.data(), static_cast<std::ptrdiff_t>(ids.size()),
                             axes > 0 ? static_cast<std::ptrdiff_t>(ids.size()) / axes : 0, axes)
    {}

    /// Axes-major [axes][tokens] in data[0 .. size) (Hugging Face's position_ids[axis][token]
    /// of one sequence, vLLM's M-RoPE positions).
    static constexpr MultiAxisPositions axes_major(const std::int32_t* data, std::ptrdiff_t size, std::ptrdiff_t tokens,
                                                   int axes) noexcept
    {
        return MultiAxisPositions(data, nullptr, size, tokens, axes, 1, tokens);
    }
    static constexpr MultiAxisPositions axes_major(const std::int64_t* data, std::ptrdiff_t size, std::ptrdiff_t tokens,
                                                   int axes) noexcept
    {
        return MultiAxisPositions(nullptr, data, size, tokens, axes, 1, tokens);
    }

    /// Any strides, in elements.
    static constexpr MultiAxisPositions strided(const std::int32_t* data, std::ptrdiff_t size, std::ptrdiff_t tokens,
                                                int axes, std::ptrdiff_t token_stride,
                                                std::ptrdiff_t axis_stride) noexcept
    {
        return MultiAxisPositions(data, nullptr, size, tokens, axes, token_stride, axis_stride);
    }
    static constexpr MultiAxisPositions strided(const std::int64_t* data, std::ptrdiff_t size, std::ptrdiff_t tokens,
                                                int axes, std::ptrdiff_t token_stride,
                                                std::ptrdiff_t axis_stride) noexcept
    {
        return MultiAxisPositions(nullptr, data, size, tokens, axes, token_stride, axis_stride);
    }

    /// Position of token t on axis a. Precondition: 0 <= t < tokens(), 0 <= a < axes(), and
    /// the positions are valid (what the checked entry points verify).
    constexpr std::int64_t operator()(std::ptrdiff_t t, int a) const noexcept
    {
        const std::ptrdiff_t i = (tokens_ > 1 ? t * token_stride_ : 0) + (axes_ > 1 ? a * axis_stride_ : 0);
        return ids32_ != nullptr ? static_cast<std::int64_t>(ids32_[i]) : ids64_[i];
    }

    constexpr Kind kind() const noexcept { return ids32_ != nullptr ? Kind::int32_ids : Kind::int64_ids; }
    /// Elements addressable from data(): data[0] .. data[size - 1].
    constexpr std::ptrdiff_t size() const noexcept { return size_; }
    constexpr std::ptrdiff_t tokens() const noexcept { return tokens_; }
    constexpr int axes() const noexcept { return axes_; }
    constexpr std::ptrdiff_t token_stride() const noexcept { return token_stride_; }
    constexpr std::ptrdiff_t axis_stride() const noexcept { return axis_stride_; }
    /// The array (nullptr if none was given).
    constexpr const void* data() const noexcept
    {
        return ids32_ != nullptr ? static_cast<const void*>(ids32_) : static_cast<const void*>(ids64_);
    }

private:
    constexpr MultiAxisPositions(const std::int32_t* ids32, const std::int64_t* ids64, std::ptrdiff_t size,
                                 std::ptrdiff_t tokens, int axes, std::ptrdiff_t token_stride,
                                 std::ptrdiff_t axis_stride) noexcept
        : ids32_(ids32), ids64_(ids64), size_(size), tokens_(tokens), axes_(axes), token_stride_(token_stride),
          axis_stride_(axis_stride)
    {}

    const std::int32_t* ids32_;
    const std::int64_t* ids64_;
    std::ptrdiff_t size_;
    std::ptrdiff_t tokens_;
    int axes_;
    std::ptrdiff_t token_stride_;
    std::ptrdiff_t axis_stride_;
};

}  // namespace posenc::kernels
