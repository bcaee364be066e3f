// SPDX-License-Identifier: MIT
// posenc/kernels/partition.hpp: splitting a call's tokens across a caller's threads.
//
// The kernels keep no state and every token is independent, so any split of [0, tokens) into
// ranges may run concurrently, each range through apply_rope(..., range) on its own thread
// (the angle source and the views are shared read-only; the ranges write disjoint rows).
// Tokens are the right unit: cos/sin are fetched once per token and reused for all its heads.
// Decode-sized calls are better left on one thread:
// suggested_parts() says how many parts are worth a thread hand-off.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/kernels/views.hpp"

namespace posenc::kernels {

/// Part `part` of `parts` balanced contiguous ranges of [0, tokens): the first tokens % parts
/// parts get one token more. Parts with nothing to do are empty ranges.
/// Preconditions: tokens >= 0, parts >= 1, 0 <= part < parts.
constexpr TokenRange token_range_of_part(std::ptrdiff_t tokens, int part, int parts) noexcept
{
    const std::ptrdiff_t base = tokens / parts;
    const std::ptrdiff_t extra = tokens % parts;
    const std::ptrdiff_t begin = part * base + std::min<std::ptrdiff_t>(part, extra);
    return {begin, begin + base + (part < extra ? 1 : 0)};
}

/// All `parts` ranges of token_range_of_part, in order; they cover [0, tokens) exactly once.
/// Throws posenc::error if tokens < 0 or parts < 1.
inline std::vector<TokenRange> split_tokens(std::ptrdiff_t tokens, int parts)
{
    posenc::detail::require(tokens >= 0, "tokens", tokens, "must be >= 0");
    posenc::detail::require(parts >= 1, "parts", parts, "must be >= 1");
    std::vector<TokenRange> ranges(static_cast<std::size_t>(parts));
    for (int p = 0; p < parts; ++p) ranges[static_cast<std::size_t>(p)] = token_range_of_part(tokens, p, parts);
    return ranges;
}

/// How many parts (threads) a call is worth: at most max_threads, at most one per token, and
/// each part at least min_elements_per_part elements (default 32,768: 128 KiB of float, about
/// the work that pays for waking a thread). Always >= 1.
/// elements_per_token = (q heads + k heads) * head_dim. Any arguments are valid (no overflow:
/// a product beyond ptrdiff_t counts as large enough for every thread).
constexpr int suggested_parts(std::ptrdiff_t tokens, std::ptrdiff_t elements_per_token, int max_threads,
                              std::ptrdiff_t min_elements_per_part = 32768) noexcept
{
    if (tokens <= 0 || elements_per_token <= 0 || max_threads <= 1 || min_elements_per_part <= 0) return 1;
    // tokens * elements_per_token may exceed ptrdiff_t: then the size allows every part anyway
    const std::ptrdiff_t by_size =
        tokens > PTRDIFF_MAX / elements_per_token ? PTRDIFF_MAX : tokens * elements_per_token / min_elements_per_part;
    const std::ptrdiff_t parts = std::min<std::ptrdiff_t>({by_size, tokens, max_threads});
    return parts < 1 ? 1 : static_cast<int>(parts);
}

}  // namespace posenc::kernels
