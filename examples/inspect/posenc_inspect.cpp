// SPDX-License-Identifier: MIT
// posenc-inspect: what RoPE does to each frequency pair of a model, and what a context
// extension changes, as a text table, one JSON object or SVG charts (docs/cli.md).
//
//   posenc-inspect --preset qwen3-8b --scaling yarn --factor 4 --svg plots
//   posenc-inspect --config path/to/config.json --json
//
// Everything is computed and rendered before anything is written, so a failure leaves no partial
// output. Exit status: 0 success; 2 usage errors, unreadable files, rejected configs and unwritable
// plot folders, with one line on stderr; 1 for anything unexpected (also one line).
#include <cstddef>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include <posenc/models/presets.hpp>

#include "inspect/options.hpp"
#include "inspect/render_json.hpp"
#include "inspect/render_svg.hpp"
#include "inspect/render_text.hpp"
#include "inspect/report.hpp"

namespace {

/// `text` on one line: control characters (newlines included) become spaces.
std::string one_line(std::string text)
{
    for (char& c : text)
        if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    return text;
}

int fail(int status, const std::string& message)
{
    std::fprintf(stderr, "posenc-inspect: %s\n", one_line(message).c_str());
    return status;
}

std::string preset_list()
{
    std::string out;
    for (const posenc::ModelPreset& p : posenc::models::all_presets) {
        char line[160];
        const std::string what = p.kind == posenc::PositionEncodingKind::rope
                                     ? std::string("RoPE, ") + posenc::scaling_type_name(p.scaling())
                                     : std::string("learned position table");
        std::snprintf(line, sizeof line, "%-22s %-26s %s\n", std::string(p.name).c_str(),
                      std::string(p.display_name).c_str(), what.c_str());
        out += line;
    }
    return out;
}

/// Writes the files into `dir` (created if missing). Throws inspect::UsageError naming the path.
void write_files(const std::string& dir, const std::vector<inspect::SvgFile>& files)
{
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw inspect::UsageError("--svg " + dir + ": cannot create the directory (" + ec.message() + ")");
    for (const inspect::SvgFile& f : files) {
        const std::string path = (std::filesystem::path(dir) / f.name).string();
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out << f.content;
        out.close();
        if (!out) throw inspect::UsageError(path + ": cannot be written");
    }
}

}  // namespace

int main(int argc, char** argv)
{
    try {
        const inspect::Options options = inspect::parse_options(std::vector<std::string>(argv + 1, argv + argc));
        if (options.mode == inspect::Options::Mode::help) {
            std::fputs(inspect::usage_text().c_str(), stdout);
            return 0;
        }
        if (options.mode == inspect::Options::Mode::list_presets) {
            std::fputs(preset_list().c_str(), stdout);
            return 0;
        }
        const inspect::Report report = inspect::build_report(options);
        std::string out = options.json ? inspect::render_json(report) : inspect::render_text(report);
        if (options.svg_dir) {
            const std::vector<inspect::SvgFile> files = inspect::render_svgs(report);
            write_files(*options.svg_dir, files);
            if (!options.json) {
                std::vector<std::string> words{"plots", "written", "to", *options.svg_dir + ":"};
                for (std::size_t i = 0; i < files.size(); ++i)
                    words.push_back(files[i].name + (i + 1 < files.size() ? "," : ""));
                out += "\n" + inspect::detail::wrap("", "  ", words);
            }
        }
        for (const posenc::hf::ConfigWarning& w : report.warnings)
            std::fprintf(stderr, "posenc-inspect: warning: %s\n", one_line(w.key + ": " + w.message).c_str());
        std::fwrite(out.data(), 1, out.size(), stdout);
        return 0;
    } catch (const inspect::UsageError& e) {
        return fail(2, e.what());
    } catch (const posenc::error& e) {
        return fail(2, e.what());
    } catch (const std::exception& e) {
        return fail(1, std::string("internal error: ") + e.what());
    }
}
