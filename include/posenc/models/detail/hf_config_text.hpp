// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_config_text.hpp: the config reader's text checks before any parsing: no
// NUL byte in the text (JSON text cannot hold one, and nlohmann's iterator parser would stop there
// and accept whatever follows); a file's bytes come from hf::read_config_file (hf_config_file.hpp).
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/hf_config_text.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <cstddef>
#include <string>
#include <string_view>

#include "posenc/error.hpp"
#include "posenc/models/detail/hf_json_values.hpp"

namespace posenc::hf {

namespace detail {

/// Throws posenc::error naming `where` (the path, or "config" for text) if the text holds a NUL
/// byte: JSON text cannot, and nlohmann's iterator parser would stop there and accept whatever
/// follows ("{...}\0garbage").
inline void require_no_nul(std::string_view text, const std::string& where, const std::string& field = "config",
                           const std::string& value = "text")
{
    const std::size_t nul = text.find('\0');
    if (nul != std::string_view::npos)
        throw posenc::error(field, value, "holds a NUL byte at offset " + std::to_string(nul),
                            where + ": holds a NUL byte at offset " + std::to_string(nul) +
                                "; a JSON config is text without NUL bytes");
}

}  // namespace detail

}  // namespace posenc::hf
