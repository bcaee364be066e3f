// SPDX-License-Identifier: MIT
// posenc/kernels/multi_axis_positions.hpp: MultiAxisPositions, the positions of a multi-axis
// RoPE call (kernels/multi_axis.hpp): one position per token and axis, int32 or int64.
#pragma once

#include <cstddef>
#include <cstdint>

namespace posenc::kernels {

/// Positions of several axes for every token, int32 or int64: position (t, a) is
///     data[t * token_stride + a * axis_stride]
///   token-major [tokens][axes]   (the constructors)       token_stride = axes, axis_stride = 1
///   axes-major  [axes][tokens]   (axes_major)             token_stride = 1,    axis_stride = tokens
/// Non-owning: the array must outlive the call.
class MultiAxisPositions
{
public:
    enum class Kind { int32_ids, int64_ids };

    /// Token-major [tokens][axes].
    constexpr MultiAxisPositions(const std::int32_t* data, std::ptrdiff_t tokens, int axes) noexcept
        : MultiAxisPositions(data, nullptr, tokens, axes, axes, 1)
    {
    }
    constexpr MultiAxisPositions(const std::int64_t* data, std::ptrdiff_t tokens, int axes) noexcept
        : MultiAxisPositions(nullptr, data, tokens, axes, axes, 1)
    {
    }

    /// Axes-major [axes][tokens] (Hugging Face's position_ids[axis][token] for one sequence).
    static constexpr MultiAxisPositions axes_major(const std::int32_t* data, std::ptrdiff_t tokens, int axes) noexcept
    {
        return MultiAxisPositions(data, nullptr, tokens, axes, 1, tokens);
    }
    static constexpr MultiAxisPositions axes_major(const std::int64_t* data, std::ptrdiff_t tokens, int axes) noexcept
    {
        return MultiAxisPositions(nullptr, data, tokens, axes, 1, tokens);
    }

    /// Any strides, in elements.
    static constexpr MultiAxisPositions strided(const std::int32_t* data, std::ptrdiff_t tokens, int axes,
                                                std::ptrdiff_t token_stride, std::ptrdiff_t axis_stride) noexcept
    {
        return MultiAxisPositions(data, nullptr, tokens, axes, token_stride, axis_stride);
    }
    static constexpr MultiAxisPositions strided(const std::int64_t* data, std::ptrdiff_t tokens, int axes,
                                                std::ptrdiff_t token_stride, std::ptrdiff_t axis_stride) noexcept
    {
        return MultiAxisPositions(nullptr, data, tokens, axes, token_stride, axis_stride);
    }

    /// Position of token t on axis a. Precondition: 0 <= t < tokens(), 0 <= a < axes().
    constexpr std::int64_t operator()(std::ptrdiff_t t, int a) const noexcept
    {
        const std::ptrdiff_t i = t * token_stride_ + a * axis_stride_;
        return ids32_ != nullptr ? static_cast<std::int64_t>(ids32_[i]) : ids64_[i];
    }

    constexpr Kind kind() const noexcept { return ids32_ != nullptr ? Kind::int32_ids : Kind::int64_ids; }
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
    constexpr MultiAxisPositions(const std::int32_t* ids32, const std::int64_t* ids64, std::ptrdiff_t tokens, int axes,
                                 std::ptrdiff_t token_stride, std::ptrdiff_t axis_stride) noexcept
        : ids32_(ids32), ids64_(ids64), tokens_(tokens), axes_(axes), token_stride_(token_stride), axis_stride_(axis_stride)
    {
    }

    const std::int32_t* ids32_;
    const std::int64_t* ids64_;
    std::ptrdiff_t tokens_;
    int axes_;
    std::ptrdiff_t token_stride_;
    std::ptrdiff_t axis_stride_;
};

}  // namespace posenc::kernels
