// SPDX-License-Identifier: MIT
// format.hpp: small text helpers shared by posenc-inspect's renderers (numbers, index
// ranges, word wrapping at 80 columns).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <posenc/error.hpp>

namespace inspect {

/// Widest line the text renderer writes.
inline constexpr std::size_t text_width = 80;

namespace detail {

/// Shortest decimal text that reads back as `x` (integers below 1e15 in full, "inf", "nan"):
/// the same form posenc's error messages use.
inline std::string number_text(double x) { return posenc::detail::format_value(x); }

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

/// Words laid out in lines of at most text_width columns; the first line starts with `first`,
/// the others with `indent` (both counted in the width).
inline std::string wrap(const std::string& first, const std::string& indent, const std::vector<std::string>& words)
{
    std::string out, line = first;
    bool fresh = true;
    for (const std::string& w : words) {
        if (!fresh && line.size() + 1 + w.size() > text_width) {
            out += line + "\n";
            line = indent;
            fresh = true;
        }
        line += (fresh ? "" : " ") + w;
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
