// SPDX-License-Identifier: MIT
// posenc/models/detail/hf_json_values.hpp: the config reader's JSON plumbing, shared by the
// one-group resolver (hf_group_json.hpp) and the whole-model reader (hf_model_reader.hpp): the
// reader's limits (file size, nesting, head width), a scan of the raw text for number literals
// that overflow or underflow a double (so that messages show them as written), errors naming
// the key path and the value as written, typed access to members (finite numbers, integers,
// positive ints, number lists), and the keys each rope type accepts.
#pragma once

#ifndef POSENC_MODELS_DETAIL_ALLOWED
#error                                                                                                                 \
    "posenc/models/detail/hf_json_values.hpp is internal to the config reader: include <posenc/models/hf_config.hpp> (or <posenc/models/hf_config_json.hpp>) instead"
#endif

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "posenc/error.hpp"

namespace posenc::hf {

namespace detail {

using json = nlohmann::json;

/// Deeper nesting than this is refused before parsing (real configs nest 3 levels).
inline constexpr int max_nesting_depth = 64;

/// Widest head the reader accepts. Published models stay at or below 512; the limit keeps a
/// hostile config from asking for a table of a billion pairs (8 GB) downstream.
inline constexpr int max_head_dim = 65536;

/// `s` cut to at most `max_chars` characters, the cut marked with "...".
inline std::string ellipsized(std::string s, std::size_t max_chars = 60)
{
    if (s.size() > max_chars) s = s.substr(0, max_chars - 3) + "...";
    return s;
}

/// Number literals whose text says more than the parsed double does (1e-400 parses as 0):
/// the value's address in the parsed document -> the literal as written. Filled by
/// parse_model for the document being resolved on this thread; empty otherwise.
inline std::map<const json*, std::string>& raw_literals()
{
    thread_local std::map<const json*, std::string> literals;
    return literals;
}

/// A value as the config wrote it (at most 60 characters).
inline std::string shown(const json& v)
{
    const auto& raw = raw_literals();
    const auto it = raw.find(&v);
    if (it != raw.end()) return ellipsized(it->second);
    return ellipsized(v.dump());
}

[[noreturn]] inline void fail(const std::string& path, const std::string& rule, const std::string& got)
{
    throw posenc::error(path, got, rule, path + ": " + rule + ", got " + got);
}

[[noreturn]] inline void fail_json(const std::string& path, const std::string& rule, const json& got)
{
    fail(path, rule, shown(got));
}

/// One number literal of the text whose double is not what it says: its path ("a.b[2]"), its JSON
/// pointer ("/a/b/2") and its text.
struct LossyLiteral {
    std::string path, pointer, text;
};

/// The one pass of scan_text: where in the document each token sits (the key path for messages,
/// the JSON pointer for raw_literals), one member function per kind of token.
class TextScan
{
public:
    explicit TextScan(std::string_view text) : text(text) {}

    std::vector<LossyLiteral> run()
    {
        while (i < text.size()) {
            const char c = text[i];
            if (c == '"') on_string();
            else if (c == '{' || c == '[') on_open(c);
            else if (c == '}' || c == ']') on_close();
            else if (c == ',') on_comma();
            else if (c == '-' || (c >= '0' && c <= '9')) on_number();
            else ++i;
        }
        return lossy;
    }

private:
    struct Level {
        bool object;
        std::string path, pointer;
        std::string key_path, key_pointer;  // objects: the current member
        long index = -1;  // arrays: the current element
    };
    std::string_view text;
    std::size_t i = 0;
    std::vector<Level> stack;
    std::vector<LossyLiteral> lossy;
    bool expecting_key = false;

    void value_path(std::string& path, std::string& pointer) const
    {
        if (stack.empty()) return void(path = "config"), void(pointer = "");
        const Level& top = stack.back();
        if (top.object) path = top.key_path, pointer = top.key_pointer;
        else {
            path = top.path + "[" + std::to_string(top.index) + "]";
            pointer = top.pointer + "/" + std::to_string(top.index);
        }
    }

    /// A string: when it is an object's key, the current member's path and pointer.
    void on_string()
    {
        const std::size_t start = i++;
        while (i < text.size() && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
        ++i;
        const std::string_view literal = text.substr(start, std::min(i, text.size()) - start);
        if (!expecting_key || stack.empty() || !stack.back().object) return;
        std::string key;
        try {
            key = json::parse(literal.begin(), literal.end()).get<std::string>();
        } catch (const json::exception&) {
            key = std::string(literal);  // the parser reports it
        }
        Level& top = stack.back();
        top.key_path = top.path.empty() ? key : top.path + "." + key;
        std::string escaped;
        for (char k : key) escaped += k == '~' ? std::string("~0") : k == '/' ? std::string("~1") : std::string(1, k);
        top.key_pointer = top.pointer + "/" + escaped;
        expecting_key = false;
    }

    void on_open(char c)
    {
        if (stack.size() >= static_cast<std::size_t>(max_nesting_depth))
            fail("config", "expected JSON nested at most " + std::to_string(max_nesting_depth) + " levels deep",
                 "deeper nesting");
        Level level {c == '{', "", "", "", "", -1};
        if (!stack.empty()) value_path(level.path, level.pointer);
        stack.push_back(level);
        if (c == '{') expecting_key = true;
        else stack.back().index = 0;
        ++i;
    }

    void on_close()
    {
        if (!stack.empty()) stack.pop_back();
        expecting_key = false;
        ++i;
    }

    void on_comma()
    {
        if (!stack.empty()) {
            if (stack.back().object) expecting_key = true;
            else ++stack.back().index;
        }
        ++i;
    }

    /// A number literal: refused beyond double's range; kept as written when it underflows or is -0.
    void on_number()
    {
        const std::size_t start = i;
        while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '-' ||
                                   text[i] == '+' || text[i] == '.' || text[i] == 'e' || text[i] == 'E'))
            ++i;
        const std::string literal(text.substr(start, i - start));
        const bool is_integer = literal.find_first_of(".eE") == std::string::npos;
        bool nonzero = false;
        for (char d : literal.substr(0, literal.find_first_of("eE"))) nonzero = nonzero || (d >= '1' && d <= '9');
        std::string path, pointer;
        value_path(path, pointer);
        if (is_integer && literal.size() <= 20 && !(literal[0] == '-' && !nonzero))
            return;  // int64 / uint64, or a double the parser checks
        const double x = std::strtod(literal.c_str(), nullptr);
        if (std::isinf(x)) fail(path, "expected a number within double's range", ellipsized(literal));
        if (nonzero && (x == 0.0 || std::fpclassify(x) == FP_SUBNORMAL)) lossy.push_back({path, pointer, literal});
        // A negative zero parses as 0 (an integer "-0" loses its sign): keep it as written for messages.
        if (!nonzero && literal[0] == '-') lossy.push_back({path, pointer, literal});
    }
};

/// Scans the text once before it reaches the parser: refuses nesting deeper than
/// max_nesting_depth and number literals beyond double's range (named by their key path, the
/// value cut with an ellipsis), and returns the literals that underflow (a non-zero literal that
/// parses as 0 or as a subnormal), so that messages can show them as written.
inline std::vector<LossyLiteral> scan_text(std::string_view text) { return TextScan(text).run(); }

/// Refuses text nested deeper than max_nesting_depth (outside strings) before it reaches the parser.
inline void check_nesting(std::string_view text) { (void)scan_text(text); }

/// A JSON object's member, or nullptr when absent or null (Python's "attribute or None").
inline const json* member(const json& object, const char* key)
{
    const auto it = object.find(key);
    if (it == object.end() || it->is_null()) return nullptr;
    return &*it;
}

/// Whether a number literal is a zero as written ("-0", "-0.0e5"): no digit 1-9 before the exponent.
inline bool is_zero_literal(const std::string& literal)
{
    for (char d : literal.substr(0, literal.find_first_of("eE")))
        if (d >= '1' && d <= '9') return false;
    return true;
}

inline double number(const json& v, const std::string& path, const char* rule = "expected a finite number")
{
    if (!v.is_number()) fail_json(path, rule, v);
    const double x = v.get<double>();
    if (!std::isfinite(x)) fail_json(path, rule, v);
    if (raw_literals().count(&v) != 0 && !is_zero_literal(raw_literals().at(&v)))
        fail_json(path,
                  std::string(rule) + " within double's range (the literal underflows to " +
                      (x == 0.0 ? "0" : "a subnormal") + ")",
                  v);
    return x;
}

inline std::int64_t integer(const json& v, const std::string& path, const char* rule)
{
    if (v.is_number_integer()) {
        if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
            fail_json(path, rule, v);
        return v.get<std::int64_t>();
    }
    if (v.is_number_float()) {
        const double x = v.get<double>();
        if (std::isfinite(x) && x == std::floor(x) && std::abs(x) < 9.0e15) return static_cast<std::int64_t>(x);
    }
    fail_json(path, rule, v);
}

inline int positive_int(const json& v, const std::string& path)
{
    const std::int64_t i = integer(v, path, "expected a positive integer");
    if (i <= 0 || i > std::numeric_limits<int>::max()) fail_json(path, "expected a positive integer", v);
    return static_cast<int>(i);
}

inline std::vector<double> number_list(const json& v, const std::string& path)
{
    if (!v.is_array()) fail_json(path, "expected a list of numbers", v);
    std::vector<double> out;
    out.reserve(v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
        out.push_back(number(v[i], path + "[" + std::to_string(i) + "]", "expected a finite number > 0"));
    for (std::size_t i = 0; i < out.size(); ++i)
        if (!(out[i] > 0)) fail_json(path + "[" + std::to_string(i) + "]", "expected a finite number > 0", v[i]);
    return out;
}

/// Keys each rope type accepts (modeling_rope_utils.py validation, with v5's additions).
inline std::set<std::string> known_scaling_keys(const std::string& type)
{
    // mrope_section / mrope_interleaved (M-RoPE) and alpha (HunYuan) are read by the model-level
    // reader (hf_model.hpp), which refuses them where the model's code would not use them as read.
    std::set<std::string> keys {"rope_type",        "type", "rope_theta", "partial_rotary_factor", "mrope_section",
                                "mrope_interleaved"};
    if (type == "dynamic") keys.insert("alpha");
    auto add = [&](std::initializer_list<const char*> more) {
        for (const char* k : more) keys.insert(k);
    };
    if (type == "linear" || type == "proportional") add({"factor"});
    if (type == "dynamic") add({"factor", "original_max_position_embeddings"});
    if (type == "yarn")
        add({"factor", "attention_factor", "beta_fast", "beta_slow", "original_max_position_embeddings", "mscale",
             "mscale_all_dim", "truncate"});
    if (type == "longrope")
        add({"short_factor", "long_factor", "attention_factor", "factor", "original_max_position_embeddings"});
    if (type == "llama3") add({"factor", "original_max_position_embeddings", "low_freq_factor", "high_freq_factor"});
    return keys;
}

}  // namespace detail

}  // namespace posenc::hf
