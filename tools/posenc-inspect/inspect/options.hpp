// SPDX-License-Identifier: MIT
// options.hpp: posenc-inspect's command line, parsed into an Options value (no I/O here).
//
//   posenc-inspect (--preset NAME | --config PATH [--assume-half-split]) [--layer N]
//                  [--scaling TYPE | --compare TYPE,TYPE[,...]] [--factor S] [scaling parameters]
//                  [--original-length N] [--length N] [--bound-pairs P] [--title TEXT]
//                  [--json | --csv] [--svg DIR] [--prompt SEGMENTS --angles]
//   posenc-inspect --config PATH --tower vision --grid T,H,W [--angles] [--json]
//   posenc-inspect --config PATH --tower audio [--json]
//   posenc-inspect --list-presets | --version | --help
//
// Options take their value as the next argument or after '=' (--factor=4). A value given as the
// next argument may not start with "--" (write --config=--odd-name for such a value). Every
// mistake is a UsageError with a one-line message naming the option and quoting the value as
// written; the program turns it into exit status 2. The number grammar is docs/cli.md's:
//   decimal  = ["-"] digits ["." [digits]] [("e" | "E") ["+" | "-"] digits]  |  ["-"] "." digits ...
// no hex, no inf or nan, no surrounding whitespace; a whole number may use an exponent when the
// value is exact (1e6, 1.31072e5).
#pragma once

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "inspect/format.hpp"
#include "posenc/detail/did_you_mean.hpp"

namespace inspect {

/// A command-line mistake; what() is one line, without the program name.
class UsageError : public std::runtime_error
{
public:
    explicit UsageError(const std::string& message) : std::runtime_error(message) {}
};

/// Largest length the tool accepts, 2^50 (posenc's exact angle reduction and the RoFormer
/// bound are specified up to there).
inline constexpr std::int64_t max_length = std::int64_t {1} << 50;

/// Most scalings --compare takes (one colour each in the combined chart).
inline constexpr std::size_t max_compared = 6;

/// Largest --bound-pairs.
inline constexpr int max_bound_pairs = 32768;

/// The scaling type names (posenc::scaling_type_name and the JSON report use the same).
inline const std::vector<std::string>& scaling_type_names()
{
    static const std::vector<std::string> names {"none", "linear", "ntk_aware", "dynamic",
                                                 "yarn", "llama3", "longrope"};
    return names;
}

/// What the user asked for.
struct Options {
    enum class Mode { inspect, help, version, list_presets };
    Mode mode = Mode::inspect;

    std::string preset;  ///< --preset NAME ("" when --config is used)
    std::string config_path;  ///< --config PATH ("" when --preset is used)
    /// --assume-half-split: read a config whose model_type posenc does not know as half_split
    /// with generic defaults (posenc::hf::ReadOptions::assume_half_split) instead of refusing it
    bool assume_half_split = false;
    std::optional<int> layer;  ///< --layer N: the layer whose group is shown in full

    std::optional<std::string> scaling;  ///< --scaling TYPE: replaces the group's own scaling
    std::optional<std::vector<std::string>> compare;  ///< --compare TYPE,TYPE,...
    std::optional<double> factor;
    std::optional<double> beta_fast, beta_slow, mscale, mscale_all_dim;  // yarn
    std::optional<bool> truncate;  // yarn
    std::optional<double> attention_factor;  // yarn, longrope
    std::optional<double> low_freq_factor, high_freq_factor;  // llama3
    std::optional<std::vector<double>> short_factor, long_factor;  // longrope

    std::optional<std::int64_t> original_length;  ///< --original-length N
    std::optional<std::int64_t> length;  ///< --length N (the target length)
    std::optional<int> bound_pairs;  ///< --bound-pairs P: pair count of the RoFormer chart
    std::optional<std::int64_t> grid_side;  ///< --grid-side N: M-RoPE height / width reach (inspect/axis_reach.hpp)
    bool json = false;
    bool csv = false;
    std::optional<std::string> svg_dir;
    std::optional<std::string> title;  ///< --title TEXT: the model's name in the charts' titles
    std::string
        tower;  ///< --tower NAME: "vision" or "audio" reads the config's tower (inspect/tower.hpp, audio_tower.hpp)
    std::optional<std::array<std::int64_t, 3>> grid;  ///< --grid T,H,W: a tower's patch grid (grid_thw)
    std::optional<std::string> prompt;  ///< --prompt SEGMENTS: a multimodal prompt (inspect/prompt.hpp)
    bool angles = false;  ///< --angles: each token's angle per pair (a tower's grid or a prompt)

    /// Each option given, with its value as written ("" for a flag).
    std::map<std::string, std::string> written;

    /// The value of `option` as written, or "" when it was not given.
    std::string as_written(const std::string& option) const
    {
        const auto it = written.find(option);
        return it == written.end() ? std::string() : it->second;
    }
    bool given(const std::string& option) const { return written.count(option) != 0; }
};

/// The --help text (fits 80 columns).
inline std::string usage_text()
{
    return R"(usage: posenc-inspect (--preset NAME | --config PATH) [options]
       posenc-inspect --list-presets | --version | --help

What RoPE does to each frequency pair of a model, and what a context extension
changes: a text table (default), JSON (--json), CSV (--csv), SVG charts (--svg).

Model:
  --preset NAME            a built-in model (see --list-presets)
  --config PATH            a Hugging Face config.json
  --assume-half-split      with --config: read a model_type posenc does not know
                           as half_split pairing with generic defaults (default:
                           refused, since its code decides the pairing)
  --layer N                show the RoPE group of layer N in full (default: the
                           full_attention group, or the only group)

Scaling (replaces the group's own; without --scaling the model's is used):
  --scaling TYPE           none, linear, ntk_aware, dynamic, yarn, llama3 or
                           longrope (any letter case)
  --compare TYPE,TYPE,...  2 to 6 scalings side by side (needs --factor)
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
                           original_max_position_embeddings, else (own linear)
                           max_position_embeddings / factor, else the model's
                           original length, else max_position_embeddings
  --length N               the target length L'; default: the config's
                           max_position_embeddings for LongRoPE and the model's
                           own llama3 or linear scaling, else L x factor, no
                           scaling: L

Output:
  --json                   print one JSON object instead of the table
  --csv                    print the pair table as CSV instead
  --svg DIR                also write the charts into DIR (created if missing)
  --title TEXT             the model's name in the charts' titles (default: the
                           config's _name_or_path, else its file name without
                           .json, or the preset's name)
  --bound-pairs P          pair count of the RoFormer chart (default: the
                           model's; 32 draws the lesson's own curve)
  --grid-side N            M-RoPE: the patch rows / columns (merged patches)
                           the height and width pairs' turns are counted over
                           (default 35, assumed: a square image at Qwen2-VL's
                           default max_pixels)

Towers (with --config):
  --tower vision           the config's vision tower (vision_config) instead of
                           the language model
  --tower audio            the config's audio tower (audio_config, lasr_ctc's
                           encoder_config, or a tower's own config)
  --grid T,H,W             the patch grid (the processor's grid_thw, patches
                           before the spatial merge)
Multimodal prompts (M-RoPE models, with --config):
  --prompt SEGMENTS        the prompt's token runs in order, ';'-separated:
                           text:N, image:TxHxW, video:TxHxW, video:TxHxW@S
                           (grids before merging; S seconds per temporal grid
                           step, Qwen2.5-VL); needs --angles and --json
  --angles                 with --tower or --prompt: add "angles", each token's
                           coordinates and angle per rotated pair (radians)

Numbers are decimal (4, 0.25, 1e6); lengths are whole numbers (131072,
1.31072e5).
Exit status: 0 success; 2 usage errors, unreadable files, rejected configs;
3 output that cannot be written; 1 anything unexpected. Details: docs/cli.md.
)";
}

namespace detail {

using posenc::detail::did_you_mean;  // the suggestion rule shared with the Python module

/// Every option name the tool knows.
inline const std::vector<std::string>& option_names()
{
    static const std::vector<std::string> names {"--help",
                                                 "--version",
                                                 "--list-presets",
                                                 "--preset",
                                                 "--config",
                                                 "--assume-half-split",
                                                 "--layer",
                                                 "--scaling",
                                                 "--compare",
                                                 "--factor",
                                                 "--beta-fast",
                                                 "--beta-slow",
                                                 "--mscale",
                                                 "--mscale-all-dim",
                                                 "--truncate",
                                                 "--attention-factor",
                                                 "--low-freq-factor",
                                                 "--high-freq-factor",
                                                 "--short-factor",
                                                 "--long-factor",
                                                 "--original-length",
                                                 "--length",
                                                 "--bound-pairs",
                                                 "--json",
                                                 "--csv",
                                                 "--svg",
                                                 "--title",
                                                 "--tower",
                                                 "--grid",
                                                 "--prompt",
                                                 "--angles",
                                                 "--grid-side"};
    return names;
}

/// Checks the decimal grammar (file comment); returns false for anything else.
inline bool is_decimal(const std::string& t)
{
    std::size_t i = 0;
    const auto digits = [&] {
        const std::size_t start = i;
        while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
        return i - start;
    };
    if (i < t.size() && t[i] == '-') ++i;
    std::size_t mantissa = digits();
    if (i < t.size() && t[i] == '.') {
        ++i;
        mantissa += digits();
    }
    if (mantissa == 0) return false;
    if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
        ++i;
        if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
        if (digits() == 0) return false;
    }
    return i == t.size();
}

/// A decimal number (file comment), finite and not subnormal. Throws UsageError naming `option`.
inline double parse_decimal(const std::string& option, const std::string& text)
{
    if (!is_decimal(text))
        throw UsageError(option +
                         ": expected a decimal number such as 4, 0.25 or 1e6 (no hex, no spaces, no inf or nan), got " +
                         in_quotes(text));
    errno = 0;
    const double x = std::strtod(text.c_str(), nullptr);
    if (std::isinf(x))
        throw UsageError(option + ": out of range: beyond the largest double 1.7976931348623157e308, got " +
                         in_quotes(text));
    const std::size_t e = text.find_first_of("eE");
    const bool nonzero_digit = text.substr(0, e).find_first_of("123456789") != std::string::npos;
    if ((x == 0.0 && nonzero_digit) || (x != 0.0 && std::abs(x) < DBL_MIN))
        throw UsageError(option + ": too small: below the smallest normal double 2.2250738585072014e-308 (" +
                         (x == 0.0 ? "it would round to 0" : "a subnormal") + "), got " + in_quotes(text));
    return x;
}

/// A whole number in [lo, hi] written in the decimal grammar, exact (1e6 and 1.31072e5 are
/// whole, 1.5 is not). Throws UsageError naming `option` and `what` ("a length", ...).
inline std::int64_t parse_whole(const std::string& option, const std::string& text, std::int64_t lo, std::int64_t hi,
                                const std::string& what)
{
    const std::string range =
        what + " from " + std::to_string(lo) + " to " + (hi == max_length ? std::string("2^50") : std::to_string(hi));
    if (!is_decimal(text))
        throw UsageError(option + ": expected " + range + " as a decimal whole number such as 131072 or 1e6, got " +
                         in_quotes(text));
    // Exactness on the text itself: digits past the decimal point (after the exponent moves it)
    // must all be 0.
    const bool negative = text[0] == '-';
    const std::size_t e = text.find_first_of("eE");
    const std::string mantissa =
        text.substr(negative ? 1 : 0, e == std::string::npos ? std::string::npos : e - (negative ? 1 : 0));
    std::string digits;
    long long point = 0;
    bool seen_point = false;
    for (char c : mantissa) {
        if (c == '.') seen_point = true;
        else {
            digits += c;
            if (!seen_point) ++point;
        }
    }
    long long exponent = 0;
    if (e != std::string::npos) {
        // The exponent's sign and digits, without leading zeros (1e+0000005 is 1e5).
        std::string ex = text.substr(e + 1);
        const bool minus = !ex.empty() && ex[0] == '-';
        if (!ex.empty() && (ex[0] == '+' || ex[0] == '-')) ex.erase(0, 1);
        ex.erase(0, std::min(ex.find_first_not_of('0'), ex.size()));
        if (ex.size() > 6) exponent = minus ? -1000000 : 1000000;  // far outside any range
        else exponent = ex.empty() ? 0 : (minus ? -std::stoll(ex) : std::stoll(ex));
    }
    const std::size_t first = digits.find_first_not_of('0');
    if (first == std::string::npos) {  // zero
        if (0 < lo) throw UsageError(option + ": expected " + range + ", got " + in_quotes(text));
        return 0;
    }
    const long long whole_digits = point + exponent;  // digits before the point after shifting
    for (std::size_t k = static_cast<std::size_t>(std::max(0LL, whole_digits)); k < digits.size(); ++k)
        if (digits[k] != '0')
            throw UsageError(option + ": expected " + range + ", got " + in_quotes(text) + ", not a whole number");
    if (whole_digits - static_cast<long long>(first) > 16)
        throw UsageError(option + ": expected " + range + ", got " + in_quotes(text));
    std::string integer =
        digits.substr(first, static_cast<std::size_t>(std::max(0LL, whole_digits - static_cast<long long>(first))));
    if (static_cast<long long>(digits.size()) < whole_digits)
        integer.append(static_cast<std::size_t>(whole_digits) - digits.size(), '0');
    const std::int64_t magnitude = integer.empty() ? 0 : std::stoll(integer);
    const std::int64_t n = negative ? -magnitude : magnitude;
    if (n < lo || n > hi) throw UsageError(option + ": expected " + range + ", got " + in_quotes(text));
    return n;
}

inline bool parse_bool(const std::string& option, const std::string& text)
{
    if (text == "true") return true;
    if (text == "false") return false;
    throw UsageError(option + ": expected true or false, got " + in_quotes(text));
}

inline std::vector<std::string> split_commas(const std::string& text)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = text.find(',', start);
        out.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

inline std::vector<double> parse_list(const std::string& option, const std::string& text)
{
    std::vector<double> out;
    const std::vector<std::string> items = split_commas(text);
    for (std::size_t i = 0; i < items.size(); ++i)
        out.push_back(parse_decimal(option + " (item " + std::to_string(i) + ")", items[i]));
    return out;
}

/// --grid T,H,W: three whole numbers from 1 to 2^24 - 1 (frames, rows, columns in patches).
inline std::array<std::int64_t, 3> parse_grid(const std::string& option, const std::string& text)
{
    const std::vector<std::string> items = split_commas(text);
    if (items.size() != 3)
        throw UsageError(option + ": expected T,H,W (frames, rows, columns in patches, e.g. 1,32,48), got " +
                         in_quotes(text));
    std::array<std::int64_t, 3> g {};
    const char* what[3] = {"a frame count", "a row count", "a column count"};
    for (std::size_t k = 0; k < 3; ++k) g[k] = parse_whole(option, items[k], 1, (std::int64_t {1} << 24) - 1, what[k]);
    return g;
}

/// The canonical scaling name for `text` (any letter case), or a UsageError with a suggestion.
inline std::string parse_scaling(const std::string& option, const std::string& text)
{
    std::string lower = text;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const std::string& t : scaling_type_names())
        if (t == lower) return t;
    throw UsageError(option + ": expected none, linear, ntk_aware, dynamic, yarn, llama3 or longrope, got " +
                     in_quotes(text) + did_you_mean(text, scaling_type_names()));
}

/// Which scaling types an option applies to.
struct ScalingOption {
    const char* name;
    std::vector<std::string> types;
};

inline const std::vector<ScalingOption>& scaling_options()
{
    static const std::vector<ScalingOption> table {
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

/// --prompt and --angles: a prompt's angles go into the JSON, for a config's own RoPE.
inline void check_prompt_options(const Options& o)
{
    if (o.prompt && !o.angles) throw UsageError("--prompt needs --angles (the prompt's angles are what it adds)");
    if (o.prompt && !o.tower.empty()) throw UsageError("give --prompt or --tower, not both");
    if (o.angles && !o.prompt && o.tower.empty())
        throw UsageError("--angles needs --prompt SEGMENTS or --tower vision");
    if (!o.prompt) return;
    if (o.config_path.empty())
        throw UsageError("--prompt needs --config (get_rope_index reads the config's vision_config)");
    if (!o.json) throw UsageError("--angles needs --json (the angles are written as JSON)");
    for (const char* option : {"--scaling", "--compare", "--layer"})
        if (o.given(option))
            throw UsageError(
                std::string("--prompt describes the model's own RoPE of its full-attention layers; drop ") + option);
}

/// Parses the arguments after the program name.
///
/// Syntax errors are reported first, whatever else is on the line: an unknown option, a
/// repeated option, a missing value (also when the next argument is an option: `--config
/// --help`), a malformed value. Then --help, --version and --list-presets win over the rest.
/// Then: a missing or double model choice, --scaling with --compare, --json with --csv, scaling
/// parameters without --scaling/--compare or for types they do not apply to, a factor-based
/// --scaling (or any --compare) without --factor.
inline Options parse_options(const std::vector<std::string>& args)
{
    Options o;
    bool help = false, version = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string name = args[i];
        std::optional<std::string> inline_value;
        if (name == "-h") name = "--help";
        if (name.rfind("--", 0) != 0)
            throw UsageError("unexpected argument " + detail::in_quotes(name) + " (options start with --; see --help)");
        const std::size_t eq = name.find('=');
        if (eq != std::string::npos) {
            inline_value = name.substr(eq + 1);
            name = name.substr(0, eq);
        }
        const std::vector<std::string>& known = detail::option_names();
        if (std::find(known.begin(), known.end(), name) == known.end())
            throw UsageError("unknown option " + detail::cut(detail::printable(name), quoted_width) +
                             detail::did_you_mean(name, known) + " (see --help)");
        if (o.given(name)) throw UsageError(name + " given twice");

        const auto flag = [&] {
            if (inline_value) throw UsageError(name + " takes no value, got " + detail::in_quotes(*inline_value));
            o.written[name] = "";
        };
        const auto value = [&]() -> std::string {
            std::string v;
            if (inline_value) {
                v = *inline_value;
            } else {
                if (i + 1 >= args.size()) throw UsageError(name + ": missing value");
                if (args[i + 1].rfind("--", 0) == 0)
                    throw UsageError(name + ": missing value before " +
                                     detail::cut(detail::printable(args[i + 1]), quoted_width) + " (write " + name +
                                     "=VALUE for a value that starts with --)");
                v = args[++i];
            }
            o.written[name] = v;
            return v;
        };
        const auto nonempty = [&](const std::string& what) {
            const std::string v = value();
            if (v.empty()) throw UsageError(name + ": expected " + what + ", got \"\"");
            return v;
        };

        if (name == "--help") flag(), help = true;
        else if (name == "--version") flag(), version = true;
        else if (name == "--list-presets") flag(), o.mode = Options::Mode::list_presets;
        else if (name == "--json") flag(), o.json = true;
        else if (name == "--csv") flag(), o.csv = true;
        else if (name == "--angles") flag(), o.angles = true;
        else if (name == "--prompt") o.prompt = nonempty("prompt segments (text:N;image:TxHxW;video:TxHxW[@S])");
        else if (name == "--assume-half-split") flag(), o.assume_half_split = true;
        else if (name == "--tower") o.tower = nonempty("a tower name (vision or audio)");
        else if (name == "--grid") o.grid = detail::parse_grid(name, value());
        else if (name == "--preset") o.preset = nonempty("a preset name (see --list-presets)");
        else if (name == "--config") o.config_path = nonempty("the path of a config.json");
        else if (name == "--svg") o.svg_dir = nonempty("a directory");
        else if (name == "--title") o.title = nonempty("a title");
        else if (name == "--layer")
            // A negative index is refused where the model is known, with the model's own range
            // ("the model has 34 layers (0 to 33)"), as one past the last layer is.
            o.layer = static_cast<int>(detail::parse_whole(name, value(), -1000000, 1000000, "a layer index"));
        else if (name == "--scaling") o.scaling = detail::parse_scaling(name, value());
        else if (name == "--compare") {
            std::vector<std::string> types;
            for (const std::string& t : detail::split_commas(value())) {
                const std::string type = detail::parse_scaling(name, t);
                if (std::find(types.begin(), types.end(), type) != types.end())
                    throw UsageError("--compare: " + type + " listed twice");
                types.push_back(type);
            }
            if (types.size() < 2 || types.size() > max_compared)
                throw UsageError("--compare: expected 2 to 6 comma-separated scaling types, got " +
                                 detail::in_quotes(o.written[name]));
            o.compare = types;
        } else if (name == "--factor") o.factor = detail::parse_decimal(name, value());
        else if (name == "--beta-fast") o.beta_fast = detail::parse_decimal(name, value());
        else if (name == "--beta-slow") o.beta_slow = detail::parse_decimal(name, value());
        else if (name == "--mscale") o.mscale = detail::parse_decimal(name, value());
        else if (name == "--mscale-all-dim") o.mscale_all_dim = detail::parse_decimal(name, value());
        else if (name == "--attention-factor") o.attention_factor = detail::parse_decimal(name, value());
        else if (name == "--low-freq-factor") o.low_freq_factor = detail::parse_decimal(name, value());
        else if (name == "--high-freq-factor") o.high_freq_factor = detail::parse_decimal(name, value());
        else if (name == "--truncate") o.truncate = detail::parse_bool(name, value());
        else if (name == "--short-factor") o.short_factor = detail::parse_list(name, value());
        else if (name == "--long-factor") o.long_factor = detail::parse_list(name, value());
        else if (name == "--original-length")
            o.original_length = detail::parse_whole(name, value(), 1, max_length, "a length");
        else if (name == "--length") o.length = detail::parse_whole(name, value(), 1, max_length, "a length");
        else if (name == "--bound-pairs")
            o.bound_pairs = static_cast<int>(detail::parse_whole(name, value(), 1, max_bound_pairs, "a pair count"));
        else if (name == "--grid-side")
            o.grid_side = detail::parse_whole(name, value(), 1, (std::int64_t {1} << 24) - 1, "a grid side");
    }
    if (help) {
        o.mode = Options::Mode::help;
        return o;
    }
    if (version) {
        o.mode = Options::Mode::version;
        return o;
    }
    if (o.mode == Options::Mode::list_presets) return o;

    if (o.preset.empty() == o.config_path.empty()) {
        const bool both = !o.preset.empty();
        throw UsageError(both ? "give --preset or --config, not both"
                              : "give --preset NAME or --config PATH (see --help)");
    }
    if (o.assume_half_split && o.config_path.empty())
        throw UsageError("--assume-half-split applies to --config only (presets name their pairing)");
    if (o.json && o.csv) throw UsageError("give --json or --csv, not both");
    if (o.scaling && o.compare) throw UsageError("give --scaling or --compare, not both");
    check_prompt_options(o);

    std::vector<std::string> types;
    if (o.scaling) types = {*o.scaling};
    if (o.compare) types = *o.compare;
    for (const detail::ScalingOption& option : detail::scaling_options()) {
        if (!o.given(option.name)) continue;
        if (types.empty()) throw UsageError(std::string(option.name) + " needs --scaling TYPE");
        bool applies = false;
        for (const std::string& t : option.types) applies |= std::find(types.begin(), types.end(), t) != types.end();
        if (!applies)
            throw UsageError(std::string(option.name) + " does not apply to " +
                             (o.compare ? "--compare " : "--scaling ") +
                             (o.compare ? o.as_written("--compare") : *o.scaling));
    }
    if (o.scaling && !o.factor && *o.scaling != "none" && *o.scaling != "longrope")
        throw UsageError("--scaling " + *o.scaling + " needs --factor S");
    if (o.compare && !o.factor) throw UsageError("--compare needs --factor S (every scaling is compared at L x S)");
    return o;
}

}  // namespace inspect
