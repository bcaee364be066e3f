// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_config_text.hpp: the config reader's text and file checks, before any
// parsing: no NUL byte in the text (JSON text cannot hold one, and nlohmann's iterator parser
// would stop there and accept whatever follows), no NUL byte in a path (the OS would open the
// path cut there: another file), a regular file (checked before opening: a FIFO without a
// writer would block std::ifstream forever, /dev/zero never ends), at most 16 MiB.
#pragma once

#include <cerrno>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <ios>
#include <string>
#include <string_view>
#include <system_error>

#include "posenc/error.hpp"
#include "posenc/models/detail/hf_json_values.hpp"

namespace posenc::hf {

namespace detail_json {

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

/// The text of a config file (at most max_config_bytes); posenc::error naming the path otherwise.
/// Refused before anything is opened: a path with a NUL byte (the OS would open the path cut
/// there, another file) and anything that is not a regular file after following symbolic links
/// (a FIFO without a writer would block std::ifstream forever, a character device such as
/// /dev/zero never ends, a socket cannot be read). Refused after reading: more than 16 MiB, and
/// text with a NUL byte (require_no_nul).
inline std::string read_config_text(const std::string& path)
{
    namespace fs = std::filesystem;
    const std::string quoted = '"' + path + '"';
    if (path.find('\0') != std::string::npos) {
        std::string shown;
        for (char c : path) shown += c == '\0' ? std::string("\\x00") : std::string(1, c);
        throw posenc::error("path", '"' + shown + '"', "must not contain a NUL byte",
                            shown + ": must not contain a NUL byte (a path cannot hold one)");
    }
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (ec || !fs::exists(status)) {
        // The system's reason (ENOENT, EACCES on a directory of the path, ENAMETOOLONG, ...).
        const std::string reason = ec ? ec.message() : std::generic_category().message(ENOENT);
        throw posenc::error("path", quoted, "cannot be opened (" + reason + ")",
                            path + ": cannot be opened (" + reason + ")");
    }
    if (fs::is_directory(status))
        throw posenc::error("path", quoted, "is a directory", path + ": is a directory, not a config file");
    if (!fs::is_regular_file(status)) {
        const char* kind = fs::is_fifo(status)             ? "a FIFO (pipe), which could block"
                           : fs::is_character_file(status) ? "a character device, which could block or never end"
                           : fs::is_block_file(status)     ? "a block device"
                           : fs::is_socket(status)         ? "a socket"
                                                           : "not a regular file";
        throw posenc::error("path", quoted, "is not a regular file",
                            path + ": is " + kind + "; expected a regular config.json file");
    }
    errno = 0;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        const std::string reason = errno != 0 ? std::generic_category().message(errno) : std::string("not readable");
        throw posenc::error("path", quoted, "cannot be opened (" + reason + ")", path + ": cannot be opened (" + reason + ")");
    }
    // Read at most max_config_bytes + 1: a config is kilobytes.
    std::string text(max_config_bytes + 1, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_config_bytes)
        throw posenc::error("path", quoted, "is larger than 16 MiB", path + ": is larger than 16 MiB, not a config file");
    require_no_nul(text, path, "path", quoted);
    return text;
}

}  // namespace detail_json

}  // namespace posenc::hf
