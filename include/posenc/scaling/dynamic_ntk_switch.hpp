// SPDX-License-Identifier: MIT
// posenc/scaling/dynamic_ntk_switch.hpp: which dynamic NTK table a forward pass uses, as
// Hugging Face transformers switches them.
//
// dynamic_ntk.hpp gives the table as a pure function of the sequence length. A runtime keeps one
// table and a cached length c, and before each forward pass of n = max(position_ids) + 1 tokens
// updates them (transformers, modeling_rope_utils.py, dynamic_rope_update's
// dynamic_frequency_update; L = the original length, max_position_embeddings):
//
//     growth:  n > c             the table is rebuilt at n and c = n
//     reset:   n < L and c > L   the init table is restored and c = L
//     else:                      the table and c stay
//
// with c = L at first. The table in effect after an update is the one built at c when c > L, the
// init table (dynamic_ntk_inv_freq without a length) otherwise. Consequences: a length past L
// keeps the largest table seen so far until a pass shorter than L resets it (a pass of exactly L
// tokens does not reset); the table never depends on the order of lengths below L.
#pragma once

#include <cstdint>
#include <optional>

#include "posenc/scaling/common.hpp"

namespace posenc {

/// The cached length of transformers' dynamic NTK update and the table it implies (file comment).
/// Invariant: original_length() > 0 and cached_length() >= original_length().
class DynamicNtkSwitch
{
public:
    /// c = L at first. Throws posenc::error unless original_length > 0
    /// ("dynamic.original_length 0 must be > 0").
    explicit DynamicNtkSwitch(std::int64_t original_length)
        : original_length_(original_length), cached_length_(original_length)
    {
        detail::require_positive_length("dynamic.original_length", original_length);
    }

    std::int64_t original_length() const noexcept { return original_length_; }
    std::int64_t cached_length() const noexcept { return cached_length_; }

    /// The sequence length the table in effect was built at: c when c > L, nothing (the init table)
    /// otherwise. The argument of dynamic_ntk_inv_freq / frequency_table for that table.
    std::optional<std::int64_t> table_length() const noexcept
    {
        if (cached_length_ > original_length_) return cached_length_;
        return std::nullopt;
    }

    /// One forward pass of `sequence_length` tokens (max(position_ids) + 1): growth, reset or
    /// neither, then table_length(). Throws posenc::error unless sequence_length > 0 (the state is
    /// left as it was).
    std::optional<std::int64_t> update(std::int64_t sequence_length)
    {
        detail::require_sequence_length(sequence_length);
        if (sequence_length > cached_length_) cached_length_ = sequence_length;
        else if (sequence_length < original_length_ && cached_length_ > original_length_)
            cached_length_ = original_length_;
        return table_length();
    }

private:
    std::int64_t original_length_;
    std::int64_t cached_length_;
};

}  // namespace posenc
