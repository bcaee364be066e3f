// SPDX-License-Identifier: MIT
// options.hpp: posenc-inspect's command line, parsed into an Options value (no I/O here).
//
//   posenc-inspect (--preset NAME | --config PATH)
//                  [--scaling TYPE [--factor S] [scaling parameters...]]
//                  [--original-length N] [--length N] [--json] [--svg DIR]
//   posenc-inspect --list-presets
//   posenc-inspect --help
//
// Options take their value as the next argument or after '=' (--factor=4). Every mistake is a
// UsageError with a one-line message; the program turns it into exit status 2.
#pragma once

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace inspect {

/// A command-line mistake; what() is one line, without the program name.
class UsageError : public std::runtime_error
{
public:
    explicit UsageError(const std::string& message) : std::runtime_error(message) {}
};

/// Largest length the tool accepts, 2^50 (posenc's exact angle reduction and the RoFormer
/// bound are specified up to there).
inline constexpr std::int64_t max_length = std::int64_t{1} << 50;

/// The scaling type names (posenc::scaling_type_name and the JSON report use the same).
inline const std::vector<std::string>& scaling_type_names()
{
    static const std::vector<std::string> names{"none", "linear", "ntk_aware", "dynamic", "yarn", "llama3", "longrope"};
    return names;
}

/// What the user asked for.
struct Options {
    enum class Mode { inspect, help, list_presets };
    Mode mode = Mode::inspect;

    std::string preset;       ///< --preset NAME ("" when --config is used)
    std::string config_path;  ///< --config PATH ("" when --preset is used)

    std::optional<std::string> scaling;  ///< --scaling TYPE: replaces the model's own scaling
    std::optional<double> factor;
    std::optional<double> beta_fast, beta_slow, mscale, mscale_all_dim;  // yarn
    std::optional<bool> truncate;                                        // yarn
    std::optional<double> attention_factor;                              // yarn, longrope
    std::optional<double> low_freq_factor, high_freq_factor;             // llama3
    std::optional<std::vector<double>> short_factor, long_factor;        // longrope

    std::optional<std::int64_t> original_length;  ///< --original-length N
    std::optional<std::int64_t> length;           ///< --length N (the target length)
    bool json = false;
    std::optional<std::string> svg_dir;
};

/// The --help text (fits 80 columns).
inline std::string usage_text()
{
    return R"(usage: posenc-inspect (--preset NAME | --config PATH) [options]
       posenc-inspect --list-presets
       posenc-inspect --help

What RoPE does to each frequency pair of a model, and what a context extension
changes: a text table (default), one JSON object (--json), SVG charts (--svg).

Model:
  --preset NAME            a built-in model (see --list-presets)
  --config PATH            a Hugging Face config.json

Scaling (replaces the model's own; without --scaling the model's is used):
  --scaling TYPE           none, linear, ntk_aware, dynamic, yarn, llama3 or
                           longrope
  --factor S               the extension factor (with none: only sets the
                           target, direct extrapolation to S times L)
  --beta-fast B            yarn: turns that keep a pair (default 32)
  --beta-slow B            yarn: turns that interpolate a pair (default 1)
  --mscale M               yarn: DeepSeek's mscale (default unset)
  --mscale-all-dim M       yarn: DeepSeek's mscale_all_dim (default unset)
  --truncate true|false    yarn: round the correction range (default true)
  --attention-factor A     yarn, longrope: the cos/sin multiplier, verbatim
  --low-freq-factor F      llama3 (default 1)
  --high-freq-factor F     llama3 (default 4)
  --short-factor LIST      longrope: comma-separated per-pair factors
  --long-factor LIST       longrope: comma-separated per-pair factors

Lengths:
  --original-length N      the training length L (and the scaling's original
                           length); default: the scaling's
                           original_max_position_embeddings, else the model's
                           original length, else max_position_embeddings
  --length N               the target length L'; default: L x factor, LongRoPE:
                           max_position_embeddings, no scaling: L

Output:
  --json                   print one JSON object instead of the table
  --svg DIR                also write turns.svg, compression.svg and
                           roformer_bound.svg into DIR (created if missing)

Exit status: 0 on success, 2 for usage errors, unreadable files and rejected
configs (one line on stderr).
)";
}

namespace detail {

inline double parse_number(const std::string& option, const std::string& text)
{
    if (text.empty()) throw UsageError(option + ": expected a number, got \"\"");
    errno = 0;
    char* end = nullptr;
    const double x = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(x))
        throw UsageError(option + ": expected a finite number, got \"" + text + "\"");
    return x;
}

inline std::int64_t parse_length(const std::string& option, const std::string& text)
{
    const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || text.size() > 16)
        throw UsageError(option + ": expected a whole number of tokens, got \"" + text + "\"");
    const std::int64_t n = std::strtoll(text.c_str(), nullptr, 10);
    if (n <= 0 || n > max_length)
        throw UsageError(option + ": expected a length between 1 and 2^50, got " + text);
    return n;
}

inline bool parse_bool(const std::string& option, const std::string& text)
{
    if (text == "true") return true;
    if (text == "false") return false;
    throw UsageError(option + ": expected true or false, got \"" + text + "\"");
}

inline std::vector<double> parse_list(const std::string& option, const std::string& text)
{
    std::vector<double> out;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = text.find(',', start);
        const std::size_t count = comma == std::string::npos ? std::string::npos : comma - start;
        out.push_back(parse_number(option, text.substr(start, count)));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

/// Which scaling types an option applies to ("" = every type).
struct ScalingOption {
    const char* name;
    std::vector<std::string> types;
};

inline const std::vector<ScalingOption>& scaling_options()
{
    static const std::vector<ScalingOption> table{
        {"--factor", {"none", "linear", "ntk_aware", "dynamic", "yarn", "llama3", "longrope"}},
        {"--beta-fast", {"yarn"}},
        {"--beta-slow", {"yarn"}},
        {"--mscale", {"yarn"}},
        {"--mscale-all-dim", {"yarn"}},
        {"--truncate", {"yarn"}},
        {"--attention-factor", {"yarn", "longrope"}},
        {"--low-freq-factor", {"llama3"}},
        {"--high-freq-factor", {"llama3"}},
        {"--short-factor", {"longrope"}},
        {"--long-factor", {"longrope"}},
    };
    return table;
}

}  // namespace detail

/// Parses the arguments after the program name. --help and --list-presets win over everything
/// else. Throws UsageError for unknown or repeated options, missing or malformed values, a
/// missing or double model choice, scaling parameters without --scaling or for a type they do
/// not apply to, and a factor-based --scaling without --factor.
inline Options parse_options(const std::vector<std::string>& args)
{
    Options o;
    std::vector<std::string> seen;
    for (const std::string& a : args) {
        if (a == "--help" || a == "-h") {
            o.mode = Options::Mode::help;
            return o;
        }
    }
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string name = args[i];
        std::optional<std::string> inline_value;
        if (name.rfind("--", 0) == 0) {
            const std::size_t eq = name.find('=');
            if (eq != std::string::npos) {
                inline_value = name.substr(eq + 1);
                name = name.substr(0, eq);
            }
        } else {
            throw UsageError("unexpected argument \"" + name + "\" (see --help)");
        }
        for (const std::string& s : seen)
            if (s == name) throw UsageError(name + " given twice");
        seen.push_back(name);

        const auto flag = [&] {
            if (inline_value) throw UsageError(name + " takes no value");
        };
        const auto value = [&]() -> std::string {
            if (inline_value) return *inline_value;
            if (i + 1 >= args.size()) throw UsageError(name + ": missing value");
            return args[++i];
        };

        if (name == "--list-presets") flag(), o.mode = Options::Mode::list_presets;
        else if (name == "--json") flag(), o.json = true;
        else if (name == "--preset") o.preset = value();
        else if (name == "--config") o.config_path = value();
        else if (name == "--svg") o.svg_dir = value();
        else if (name == "--scaling") o.scaling = value();
        else if (name == "--factor") o.factor = detail::parse_number(name, value());
        else if (name == "--beta-fast") o.beta_fast = detail::parse_number(name, value());
        else if (name == "--beta-slow") o.beta_slow = detail::parse_number(name, value());
        else if (name == "--mscale") o.mscale = detail::parse_number(name, value());
        else if (name == "--mscale-all-dim") o.mscale_all_dim = detail::parse_number(name, value());
        else if (name == "--attention-factor") o.attention_factor = detail::parse_number(name, value());
        else if (name == "--low-freq-factor") o.low_freq_factor = detail::parse_number(name, value());
        else if (name == "--high-freq-factor") o.high_freq_factor = detail::parse_number(name, value());
        else if (name == "--truncate") o.truncate = detail::parse_bool(name, value());
        else if (name == "--short-factor") o.short_factor = detail::parse_list(name, value());
        else if (name == "--long-factor") o.long_factor = detail::parse_list(name, value());
        else if (name == "--original-length") o.original_length = detail::parse_length(name, value());
        else if (name == "--length") o.length = detail::parse_length(name, value());
        else throw UsageError("unknown option " + name + " (see --help)");
    }
    if (o.mode == Options::Mode::list_presets) return o;

    if (o.preset.empty() == o.config_path.empty()) {
        const bool both = !o.preset.empty();
        throw UsageError(both ? "give --preset or --config, not both"
                              : "give --preset NAME or --config PATH (see --help)");
    }
    if (o.svg_dir && o.svg_dir->empty()) throw UsageError("--svg: expected a directory, got \"\"");

    if (o.scaling) {
        bool known = false;
        for (const std::string& t : scaling_type_names()) known |= t == *o.scaling;
        if (!known)
            throw UsageError("--scaling: expected none, linear, ntk_aware, dynamic, yarn, llama3 or longrope, got \"" +
                             *o.scaling + "\"");
    }
    for (const detail::ScalingOption& option : detail::scaling_options()) {
        bool given = false;
        for (const std::string& s : seen) given |= s == option.name;
        if (!given) continue;
        if (!o.scaling) throw UsageError(std::string(option.name) + " needs --scaling TYPE");
        bool applies = false;
        for (const std::string& t : option.types) applies |= t == *o.scaling;
        if (!applies) throw UsageError(std::string(option.name) + " does not apply to --scaling " + *o.scaling);
    }
    if (o.scaling && !o.factor && *o.scaling != "none" && *o.scaling != "longrope")
        throw UsageError("--scaling " + *o.scaling + " needs --factor S");
    return o;
}

}  // namespace inspect
