// SPDX-License-Identifier: MIT
// The config reader against text and files that are not a config: a NUL byte in the text (which
// JSON text cannot hold, and at which nlohmann's iterator parser would stop, accepting what
// follows), a NUL byte in the path (the OS would open the path cut there: another file), and
// paths that are not regular files (a FIFO without a writer would block std::ifstream forever, a
// character device never ends, a socket cannot be read). Each is refused, naming the path or the
// offset, before anything is parsed. The expected strings are the rules of docs/errors.md
// ("Config reader"); the rules themselves come from RFC 8259 section 2 (JSON text is a sequence of
// Unicode characters, NUL allowed only escaped inside strings) and POSIX (open(2) of a FIFO with
// no writer blocks; a path is a NUL-terminated string).
#include <posenc/models/hf_config.hpp>
#include <posenc/models/hf_config_json.hpp>

#include <doctest/doctest.h>

#include "support/error_messages.hpp"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

namespace models_hf_config_hostile_files_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using test_support::message_of;

const std::string valid = R"({"model_type": "llama", "head_dim": 64, "rope_theta": 10000.0})";

/// A fresh folder of its own under the temporary directory, removed again at the end.
struct TempFolder {
    std::filesystem::path path;
    TempFolder()
        : path(std::filesystem::temp_directory_path() /
               ("posenc-hostile-files-" + std::to_string(static_cast<long long>(::getpid()))))
    {
        std::filesystem::remove_all(path);
        std::filesystem::create_directories(path);
    }
    ~TempFolder()
    {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    std::string file(const std::string& name, const std::string& contents) const
    {
        const std::string p = (path / name).string();
        std::ofstream(p, std::ios::binary) << contents;
        return p;
    }
};

}  // namespace

TEST_CASE("[RFC 8259 section 2] config text with a NUL byte is refused at its offset, not cut there")
{
    const std::string text = valid + std::string("\0{garbage", 9);
    const std::string expected = "config: holds a NUL byte at offset " + std::to_string(valid.size()) +
                                 "; a JSON config is text without NUL bytes";
    CHECK(message_of([&] { posenc::hf::single_group(posenc::hf::parse_model(text)); }) == expected);
    CHECK(message_of([&] { posenc::hf::detail::primary_values(posenc::hf::detail::parse_model_values(text)); }) ==
          expected);
    CHECK(message_of([&] { posenc::hf::detail::parse_model_values(text); }) == expected);
    CHECK(message_of([&] { posenc::hf::parse_model(text); }) == expected);
    try {
        posenc::hf::detail::primary_values(posenc::hf::detail::parse_model_values(text));
    } catch (const posenc::error& e) {
        CHECK(e.field() == "config");
        CHECK(e.rule() == "holds a NUL byte at offset " + std::to_string(valid.size()));
    }
    // a NUL byte first, and the same text without it is accepted
    CHECK(message_of([&] {
              posenc::hf::detail::primary_values(posenc::hf::detail::parse_model_values(std::string("\0", 1) + valid));
          }) == "config: holds a NUL byte at offset 0; a JSON config is text without NUL bytes");
    CHECK(message_of([&] { posenc::hf::single_group(posenc::hf::parse_model(valid)); }) == "(no error)");
}

TEST_CASE("[RFC 8259 section 2] a config file with a NUL byte is refused, naming the path and the offset")
{
    const TempFolder folder;
    const std::string path = folder.file("nul.json", valid + std::string("\0 garbage", 9));
    CHECK(message_of([&] { posenc::hf::detail::primary_values(posenc::hf::detail::read_model_values(path)); }) ==
          path + ": holds a NUL byte at offset " + std::to_string(valid.size()) +
              "; a JSON config is text without NUL bytes");
    CHECK(message_of([&] { posenc::hf::single_group(posenc::hf::read_model(path)); }) ==
          path + ": holds a NUL byte at offset " + std::to_string(valid.size()) +
              "; a JSON config is text without NUL bytes");
}

TEST_CASE("[POSIX open(2)] a path with a NUL byte is refused, not read as the path cut there")
{
    const TempFolder folder;
    const std::string good = folder.file("config.json", valid);
    CHECK(message_of([&] { posenc::hf::detail::primary_values(posenc::hf::detail::read_model_values(good)); }) ==
          "(no error)");
    const std::string cut = good + std::string("\0.bak", 5);
    CHECK(message_of([&] { posenc::hf::detail::primary_values(posenc::hf::detail::read_model_values(cut)); }) ==
          good + "\\x00.bak: must not contain a NUL byte (a path cannot hold one)");
    CHECK(message_of([&] { posenc::hf::read_model(cut); }) ==
          good + "\\x00.bak: must not contain a NUL byte (a path cannot hold one)");
    try {
        posenc::hf::single_group(posenc::hf::read_model(cut));
        FAIL("no error");
    } catch (const posenc::error& e) {
        CHECK(e.field() == "path");
        CHECK(e.rule() == "must not contain a NUL byte");
    }
}

TEST_CASE("[POSIX mkfifo(3), open(2), fstat(2)] a FIFO without a writer, a socket, a device and a directory are "
          "refused before reading")
{
    const TempFolder folder;
    // A FIFO nobody writes to: a blocking open(2) would wait forever; opened with O_NONBLOCK, fstat says what it is.
    const std::string fifo = (folder.path / "fifo.json").string();
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK(message_of([&] { posenc::hf::detail::primary_values(posenc::hf::detail::read_model_values(fifo)); }) ==
          fifo + ": is a FIFO (pipe), which could block; expected a regular config.json file");
    CHECK(message_of([&] { posenc::hf::read_model(fifo); }) ==
          fifo + ": is a FIFO (pipe), which could block; expected a regular config.json file");
    // A symbolic link to it is followed, and refused the same way.
    const std::string link = (folder.path / "link.json").string();
    std::filesystem::create_symlink(fifo, link);
    CHECK(message_of([&] { posenc::hf::detail::primary_values(posenc::hf::detail::read_model_values(link)); }) ==
          link + ": is a FIFO (pipe), which could block; expected a regular config.json file");

    // A Unix domain socket bound to a path.
    const std::string socket_path = (folder.path / "s.json").string();
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    REQUIRE(fd >= 0);
    sockaddr_un address {};
    address.sun_family = AF_UNIX;
    REQUIRE(socket_path.size() < sizeof address.sun_path);
    std::memcpy(address.sun_path, socket_path.c_str(), socket_path.size() + 1);
    REQUIRE(::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0);
    CHECK(message_of([&] { posenc::hf::detail::primary_values(posenc::hf::detail::read_model_values(socket_path)); }) ==
          socket_path + ": is a socket; expected a regular config.json file");
    ::close(fd);

    if (std::filesystem::exists("/dev/null"))
        CHECK(message_of(
                  [] { posenc::hf::detail::primary_values(posenc::hf::detail::read_model_values("/dev/null")); }) ==
              "/dev/null: is a character device, which could block or never end; expected a regular config.json file");
    const std::string dir = folder.path.string();
    CHECK(message_of([&] { posenc::hf::detail::primary_values(posenc::hf::detail::read_model_values(dir)); }) ==
          dir + ": is a directory, not a config file");
    CHECK(message_of([&] {
              posenc::hf::detail::primary_values(posenc::hf::detail::read_model_values(dir + "/missing.json"));
          }) == dir + "/missing.json: cannot be opened (No such file or directory)");
    try {
        posenc::hf::detail::primary_values(posenc::hf::detail::read_model_values(fifo));
    } catch (const posenc::error& e) {
        CHECK(e.field() == "path");
        CHECK(e.value() == '"' + fifo + '"');
        CHECK(e.rule() == "is not a regular file");
    }
}

TEST_CASE("[errors] a regular file over 16 MiB is refused after reading at most 16 MiB + 1 bytes")
{
    const TempFolder folder;
    const std::string big = folder.file("big.json", "");
    std::filesystem::resize_file(big, (std::uintmax_t {16} << 20) + 1);  // sparse: no disk used
    CHECK(message_of([&] { posenc::hf::detail::primary_values(posenc::hf::detail::read_model_values(big)); }) ==
          big + ": is larger than 16 MiB, not a config file");
}

}  // namespace models_hf_config_hostile_files_tests
