// SPDX-License-Identifier: MIT
// posenc-inspect: what RoPE does to each frequency pair of a model, and what a context
// extension changes, as a text table, one JSON object, CSV or SVG charts (docs/cli.md).
//
//   posenc-inspect --preset qwen3-8b --scaling yarn --factor 4 --svg plots
//   posenc-inspect --config path/to/config.json --json
//
// Everything is computed and rendered before anything is written, so a failure leaves no partial
// output: the SVG files are written under temporary names in the target folder, stdout is written
// and flushed, and only then are the files renamed into place. Exit status: 0 success; 2 usage
// errors, unreadable files and rejected configs; 3 output that cannot be written (stdout, the
// --svg folder); 1 anything unexpected. Every failure prints one line on stderr.
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <unistd.h>

#include <posenc/config.hpp>
#include <posenc/models/presets.hpp>

#include "inspect/options.hpp"
#include "inspect/preset_list.hpp"
#include "inspect/prompt.hpp"
#include "inspect/render_json.hpp"
#include "inspect/render_svg.hpp"
#include "inspect/render_text.hpp"
#include "inspect/report.hpp"
#include "inspect/tower.hpp"

namespace {

/// Output that could not be written (exit status 3).
class OutputError : public std::runtime_error
{
public:
    explicit OutputError(const std::string& message) : std::runtime_error(message) {}
};

int fail(int status, const std::string& message)
{
    const std::string line = "posenc-inspect: " + inspect::detail::printable(message) + "\n";
    std::fwrite(line.data(), 1, line.size(), stderr);
    return status;
}

/// Writes `text` to stdout and flushes it. Throws OutputError when any byte cannot be written.
void write_stdout(const std::string& text)
{
    errno = 0;
    const std::size_t n = std::fwrite(text.data(), 1, text.size(), stdout);
    if (n != text.size() || std::fflush(stdout) != 0 || std::ferror(stdout))
        throw OutputError(std::string("stdout: cannot be written (") + (errno ? std::strerror(errno) : "write error") +
                          ")");
}

/// The SVG set staged under temporary names in its folder; commit() renames them into place,
/// the destructor removes whatever was not committed: the temporary files and every folder of
/// the --svg path this run created (a constructor that fails cleans up the same way).
class StagedFiles
{
public:
    StagedFiles(const std::string& dir, const std::vector<inspect::SvgFile>& files)
    {
        try {
            stage(dir, files);
        } catch (...) {
            clean_up();
            throw;
        }
    }

    StagedFiles(const StagedFiles&) = delete;
    StagedFiles& operator=(const StagedFiles&) = delete;

    void commit(const std::string& dir)
    {
        for (std::size_t i = 0; i < staged_.size(); ++i) {
            std::error_code ec;
            std::filesystem::rename(staged_[i].first, staged_[i].second, ec);
            if (ec)
                throw OutputError("--svg " + inspect::detail::in_quotes(dir) + ": " +
                                  staged_[i].second.filename().string() + " cannot be written (" + ec.message() +
                                  "); " + std::to_string(i) + " of " + std::to_string(staged_.size()) +
                                  " files were replaced");
            staged_[i].first.clear();
        }
        created_.clear();
    }

    ~StagedFiles() { clean_up(); }

private:
    void stage(const std::string& dir, const std::vector<inspect::SvgFile>& files)
    {
        namespace fs = std::filesystem;
        const std::string shown = "--svg " + inspect::detail::in_quotes(dir);
        std::error_code ec;
        // The folders create_directories is about to make, deepest first (a/b/c: a/b/c, a/b, a).
        for (fs::path p = dir; !p.empty() && !fs::exists(fs::symlink_status(p, ec)); p = p.parent_path()) {
            created_.push_back(p);
            if (p == p.parent_path()) break;
        }
        fs::create_directories(dir, ec);
        if (ec || !fs::is_directory(dir, ec))
            throw OutputError(shown + ": cannot create the folder (" +
                              (ec ? ec.message() : std::string("a file of that name exists")) + "); nothing written");
        for (const inspect::SvgFile& f : files) {
            const fs::path target = fs::path(dir) / f.name;
            const fs::file_status st = fs::symlink_status(target, ec);
            if (fs::exists(st) && !fs::is_regular_file(st))
                throw OutputError(shown + ": " + f.name + " exists and is not a regular file; nothing written");
        }
        for (const inspect::SvgFile& f : files) {
            const fs::path target = fs::path(dir) / f.name;
            const fs::path temporary = fs::path(dir) / ("." + f.name + ".tmp-" + std::to_string(::getpid()));
            staged_.push_back({temporary, target});
            errno = 0;
            std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
            out << f.content;
            out.close();
            if (!out)
                throw OutputError(shown + ": " + f.name + " cannot be written (" +
                                  (errno ? std::strerror(errno) : "write error") + "); nothing written");
        }
    }

    void clean_up() noexcept
    {
        for (const auto& [temporary, target] : staged_) {
            std::error_code ec;
            if (!temporary.empty()) std::filesystem::remove(temporary, ec);
        }
        for (const std::filesystem::path& folder : created_) {
            std::error_code ec;
            std::filesystem::remove(folder, ec);  // only if still empty
        }
        staged_.clear();
        created_.clear();
    }

    std::vector<std::pair<std::filesystem::path, std::filesystem::path>> staged_;
    std::vector<std::filesystem::path> created_;  ///< folders this run created, deepest first (removed on failure)
};

int run(int argc, char** argv)
{
    const inspect::Options options = inspect::parse_options(std::vector<std::string>(argv + 1, argv + argc));
    if (options.mode == inspect::Options::Mode::help) {
        write_stdout(inspect::usage_text());
        return 0;
    }
    if (options.mode == inspect::Options::Mode::version) {
        write_stdout(std::string("posenc-inspect ") + posenc::version_string + "\n");
        return 0;
    }
    if (options.mode == inspect::Options::Mode::list_presets) {
        write_stdout(inspect::preset_list());
        return 0;
    }
    inspect::check_tower_options(options);
    if (options.tower == "audio") {
        const posenc::hf::HfAudioTower tower = posenc::hf::read_audio_tower(options.config_path);
        for (const posenc::hf::ConfigWarning& w : tower.warnings) fail(0, "warning: " + w.key + ": " + w.message);
        write_stdout(options.json ? inspect::render_audio_tower_json(tower) : inspect::render_audio_tower_text(tower));
        return 0;
    }
    if (!options.tower.empty()) {
        const inspect::TowerReport tower = inspect::build_tower_report(options);
        for (const posenc::hf::ConfigWarning& w : tower.read.warnings) fail(0, "warning: " + w.key + ": " + w.message);
        write_stdout(options.json ? inspect::render_tower_json(tower) : inspect::render_tower_text(tower));
        return 0;
    }
    inspect::Report report = inspect::build_report(options);
    inspect::add_prompt_angles(report, options);  // --prompt SEGMENTS --angles
    std::string out = options.json  ? inspect::render_json(report)
                      : options.csv ? inspect::render_csv(report)
                                    : inspect::render_text(report);
    std::vector<inspect::SvgFile> files;
    if (options.svg_dir) {
        files = inspect::render_svgs(report, options.title.value_or(""));
        if (!options.json && !options.csv) {
            std::vector<std::string> words {"plots", "written", "to",
                                            inspect::detail::printable(*options.svg_dir) + ":"};
            for (std::size_t i = 0; i < files.size(); ++i)
                words.push_back(files[i].name + (i + 1 < files.size() ? "," : ""));
            out += "\n" + inspect::detail::wrap("", "  ", words);
        }
    }
    for (const posenc::hf::ConfigWarning& w : report.warnings) fail(0, "warning: " + w.key + ": " + w.message);
    if (!options.svg_dir) {
        write_stdout(out);
        return 0;
    }
    StagedFiles staged(*options.svg_dir, files);
    write_stdout(out);
    staged.commit(*options.svg_dir);
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    try {
        return run(argc, argv);
    } catch (const inspect::UsageError& e) {
        return fail(2, e.what());
    } catch (const posenc::error& e) {
        return fail(2, e.what());
    } catch (const OutputError& e) {
        return fail(3, e.what());
    } catch (const std::exception& e) {
        return fail(1, std::string("internal error: ") + e.what());
    }
}
