// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_indexer_values.hpp: what the config says of a sparse-attention indexer's
// RoPE before the model's table is built (read by hf_indexer_json.hpp, kept in HfModelConfig).
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/hf_indexer_values.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <string>

#include "posenc/models/hf_indexer_rope.hpp"
#include "posenc/spec.hpp"

namespace posenc::hf::detail {

/// What the config says of the indexer, before the table is known.
struct IndexerConfig {
    int head_dim = 0;
    IndexerKeys keys = IndexerKeys::per_token;
    int compress_ratio = 1;
    bool suffix = false;  ///< the LAST rotary_dim coordinates rotate (HY-V4), else the first
    Pairing pairing = Pairing::half_split;
    std::string key;  ///< the head width's key, with the config's prefix
    std::string source;
};

}  // namespace posenc::hf::detail
