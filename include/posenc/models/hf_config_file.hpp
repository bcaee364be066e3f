// SPDX-License-Identifier: MIT
// posenc/models/hf_config_file.hpp: the text of a config.json file, read without blocking or
// reading past what a config can be. One implementation for the library's readers
// (hf::read_model), posenc-inspect and the Python module.
//
//   read_config_file(path)           the file's bytes, or posenc::error (field "path", value the
//   read_config_file(path, shown)    path in quotes) whose message starts with `shown` (default: the
//                                    path) and says which rule the file breaks:
//     a NUL byte in the path         the OS would open the path cut there: another file
//     cannot be opened / read        the system's reason (ENOENT, EACCES, ...)
//     a directory, FIFO, character   opened with O_NONBLOCK and checked with fstat before any read: a
//     device, socket, other          FIFO without a writer or a terminal would block, /dev/zero never
//                                    ends; the check is on the open file, so the path cannot change
//                                    between check and read
//     more than 16 MiB               a config is kilobytes (max_config_file_bytes)
//     a NUL byte in the text         JSON text cannot hold one (field "path", rule "holds a NUL byte at
//                                    offset N")
//
// POSIX (Linux and other Unix systems): open(2), fstat(2), read(2).
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <string>
#include <system_error>

#include "posenc/error.hpp"

namespace posenc::hf {

/// Largest config file read (real ones are kilobytes).
inline constexpr std::size_t max_config_file_bytes = std::size_t {16} << 20;

namespace detail {

/// The errors of one read: each names the path as quoted, and its message starts with `shown`.
struct Refusal {
    std::string quoted;  ///< the path in double quotes (the error's value)
    std::string shown;  ///< what messages start with

    posenc::error operator()(const std::string& rule, const std::string& message) const
    {
        return posenc::error("path", quoted, rule, shown + ": " + message);
    }
    static std::string reason(int e) { return std::generic_category().message(e); }
    /// What the file is when it is not a regular one (a directory, a FIFO, ...).
    posenc::error kind(const struct stat& st) const
    {
        if (S_ISDIR(st.st_mode)) return (*this)("is a directory", "is a directory, not a config file");
        const char* what = S_ISFIFO(st.st_mode)   ? "a FIFO (pipe), which could block"
                           : S_ISCHR(st.st_mode)  ? "a character device, which could block or never end"
                           : S_ISBLK(st.st_mode)  ? "a block device"
                           : S_ISSOCK(st.st_mode) ? "a socket"
                                                  : "not a regular file";
        return (*this)("is not a regular file", std::string("is ") + what + "; expected a regular config.json file");
    }
    posenc::error too_large() const
    {
        return (*this)("is larger than 16 MiB", "is larger than 16 MiB, not a config file");
    }
};

/// A path holding a NUL byte names no file: refused, the byte shown as \x00.
inline void refuse_nul_in_path(const std::string& path, const std::string& shown)
{
    if (path.find('\0') == std::string::npos) return;
    std::string cut;
    for (char c : path) cut += c == '\0' ? std::string("\\x00") : std::string(1, c);
    const std::string where = shown == path ? cut : shown;
    throw posenc::error("path", '"' + cut + '"', "must not contain a NUL byte",
                        where + ": must not contain a NUL byte (a path cannot hold one)");
}

/// Opens `path` for reading without blocking (a FIFO or a device is refused, never waited on).
inline int open_regular_file(const std::string& path, const Refusal& refuse)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        const int e = errno;
        struct stat st {};
        if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) throw refuse.kind(st);  // a socket: ENXIO
        throw refuse("cannot be opened (" + Refusal::reason(e) + ")", "cannot be opened (" + Refusal::reason(e) + ")");
    }
    return fd;
}

/// The whole content of the open regular file `fd`, at most max_config_file_bytes.
inline std::string read_all(int fd, const Refusal& refuse)
{
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int e = errno;
        throw refuse("cannot be read (" + Refusal::reason(e) + ")", "cannot be read (" + Refusal::reason(e) + ")");
    }
    if (!S_ISREG(st.st_mode)) throw refuse.kind(st);
    if (static_cast<unsigned long long>(st.st_size) > max_config_file_bytes) throw refuse.too_large();
    std::string text;
    char buffer[65536];
    while (true) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0) {
            if (errno == EINTR) continue;
            const int e = errno;
            throw refuse("cannot be read (" + Refusal::reason(e) + ")", "cannot be read (" + Refusal::reason(e) + ")");
        }
        if (n == 0) break;
        text.append(buffer, static_cast<std::size_t>(n));
        if (text.size() > max_config_file_bytes) throw refuse.too_large();  // grew while being read
    }
    return text;
}

}  // namespace detail

/// The bytes of the config file at `path`; see the file comment for what is refused. Messages
/// start with `shown` ("" : the path itself; posenc-inspect passes `--config "PATH"`).
inline std::string read_config_file(const std::string& path, std::string shown = "")
{
    if (shown.empty()) shown = path;
    detail::refuse_nul_in_path(path, shown);
    const detail::Refusal refuse {'"' + path + '"', shown};
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer {detail::open_regular_file(path, refuse)};
    std::string text = detail::read_all(closer.fd, refuse);
    const std::size_t nul = text.find('\0');
    if (nul != std::string::npos)
        throw posenc::error("path", refuse.quoted, "holds a NUL byte at offset " + std::to_string(nul),
                            shown + ": holds a NUL byte at offset " + std::to_string(nul) +
                                "; a JSON config is text without NUL bytes");
    return text;
}

}  // namespace posenc::hf
