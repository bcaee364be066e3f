// SPDX-License-Identifier: MIT
// format.hpp: small text helpers shared by posenc-inspect's renderers and messages (numbers,
// index ranges, terminal-safe text, display width, cutting with an ellipsis, word wrapping at
// 80 columns).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <posenc/error.hpp>

namespace inspect {

/// Widest line the text renderer writes.
inline constexpr std::size_t text_width = 80;

/// Longest value a message quotes as written; longer ones are cut with "...".
inline constexpr std::size_t quoted_width = 40;

namespace detail {

/// Shortest decimal text that reads back as `x` (integers below 1e15 in full, "inf", "nan"):
/// the same form posenc's error messages use.
inline std::string number_text(double x) { return posenc::detail::format_value(x); }

/// x at 6 significant digits (%.6g): a summary value, e.g. 3.049999999999997 as 3.05.
inline std::string summary_number(double x)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.6g", x);
    return buffer;
}

/// x in %.4e, or %.3e where a three-digit exponent would make it wider than 10 characters.
inline std::string scientific(double x)
{
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "%.4e", x);
    if (std::string(buffer).size() > 10) std::snprintf(buffer, sizeof buffer, "%.3e", x);
    return buffer;
}

/// "40-63", "3, 5-7", "none".
inline std::string index_ranges(const std::vector<int>& indices)
{
    if (indices.empty()) return "none";
    std::string out;
    for (std::size_t i = 0; i < indices.size();) {
        std::size_t j = i;
        while (j + 1 < indices.size() && indices[j + 1] == indices[j] + 1) ++j;
        if (!out.empty()) out += ", ";
        out += std::to_string(indices[i]);
        if (j > i) out += "-" + std::to_string(indices[j]);
        i = j + 1;
    }
    return out;
}

/// The code point of the valid UTF-8 sequence at s[i] and its length, or length 0 if none
/// starts there (a stray continuation byte, a truncated or overlong sequence, a surrogate).
struct CodePoint {
    std::uint32_t value;
    std::size_t length;
};

inline CodePoint decode_utf8(const std::string& s, std::size_t i)
{
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char b = byte(i);
    const std::size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return {0, 0};
    std::uint32_t cp = n == 1 ? b : n == 2 ? (b & 0x1Fu) : n == 3 ? (b & 0x0Fu) : (b & 0x07u);
    for (std::size_t k = 1; k < n; ++k) {
        if ((byte(i + k) & 0xC0) != 0x80) return {0, 0};
        cp = (cp << 6) | (byte(i + k) & 0x3Fu);
    }
    static const std::uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < smallest[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {0, 0};
    return {cp, n};
}

/// Columns a code point takes on a terminal: 2 for the East Asian wide and fullwidth ranges
/// (CJK, Hangul, fullwidth forms, most emoji), 0 for combining marks, else 1.
inline std::size_t columns_of(std::uint32_t cp)
{
    if ((cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x200B && cp <= 0x200F) || cp == 0xFE0F) return 0;
    const bool wide =
        (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0x303E) || (cp >= 0x3041 && cp <= 0x33FF) ||
        (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xA000 && cp <= 0xA4CF) ||
        (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFE30 && cp <= 0xFE4F) ||
        (cp >= 0xFF00 && cp <= 0xFF60) || (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) ||
        (cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x20000 && cp <= 0x3FFFD);
    return wide ? 2 : 1;
}

/// `text` made safe for a terminal: control characters (C0, DEL and the C1 range U+0080-U+009F)
/// and bytes that are not valid UTF-8 are written as \xNN (C1 as \u0080..\u009f), and a
/// backslash as \\, so that what reaches the terminal is always the bytes shown.
inline std::string printable(const std::string& text)
{
    std::string out;
    char buffer[8];
    for (std::size_t i = 0; i < text.size();) {
        const CodePoint c = decode_utf8(text, i);
        if (c.length == 0 || c.value < 0x20 || c.value == 0x7F) {
            std::snprintf(buffer, sizeof buffer, "\\x%02x", static_cast<unsigned char>(text[i]));
            out += buffer;
            ++i;
        } else if (c.value >= 0x80 && c.value <= 0x9F) {
            std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(c.value));
            out += buffer;
            i += c.length;
        } else {
            if (c.value == '\\') out += '\\';
            out.append(text, i, c.length);
            i += c.length;
        }
    }
    return out;
}

/// Terminal columns of valid UTF-8 text (invalid bytes count 1 each).
inline std::size_t display_width(const std::string& text)
{
    std::size_t width = 0;
    for (std::size_t i = 0; i < text.size();) {
        const CodePoint c = decode_utf8(text, i);
        width += c.length == 0 ? 1 : columns_of(c.value);
        i += c.length == 0 ? 1 : c.length;
    }
    return width;
}

/// `text` cut to at most `width` columns, "..." marking the cut (never inside a UTF-8 sequence).
inline std::string cut(const std::string& text, std::size_t width)
{
    if (display_width(text) <= width) return text;
    const std::size_t keep = width > 3 ? width - 3 : 0;
    std::string out;
    std::size_t used = 0;
    for (std::size_t i = 0; i < text.size();) {
        const CodePoint c = decode_utf8(text, i);
        const std::size_t n = c.length == 0 ? 1 : c.length;
        const std::size_t w = c.length == 0 ? 1 : columns_of(c.value);
        if (used + w > keep) break;
        out.append(text, i, n);
        used += w;
        i += n;
    }
    return out + "...";
}

/// A value as the user wrote it, for a message: terminal-safe, in double quotes, cut to
/// quoted_width columns with "...".
inline std::string in_quotes(const std::string& text) { return "\"" + cut(printable(text), quoted_width) + "\""; }

/// Words laid out in lines of at most text_width columns; the first line starts with `first`,
/// the others with `indent` (both counted in the width).
inline std::string wrap(const std::string& first, const std::string& indent, const std::vector<std::string>& words)
{
    std::string out, line = first;
    std::size_t width = display_width(first);
    bool fresh = true;
    for (const std::string& w : words) {
        const std::size_t ww = display_width(w);
        if (!fresh && width + 1 + ww > text_width) {
            out += line + "\n";
            line = indent;
            width = display_width(indent);
            fresh = true;
        }
        line += (fresh ? "" : " ") + w;
        width += (fresh ? 0 : 1) + ww;
        fresh = false;
    }
    return out + line + "\n";
}

inline std::vector<std::string> split_words(const std::string& text)
{
    std::vector<std::string> words;
    std::string word;
    for (char c : text) {
        if (c == ' ') {
            if (!word.empty()) words.push_back(word);
            word.clear();
        } else {
            word += c;
        }
    }
    if (!word.empty()) words.push_back(word);
    return words;
}

}  // namespace detail
}  // namespace inspect
