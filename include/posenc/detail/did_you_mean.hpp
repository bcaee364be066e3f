// SPDX-License-Identifier: MIT
// posenc/detail/did_you_mean.hpp: the "(did you mean X?)" suggestion that posenc-inspect and the
// Python module append when a name (an option, a preset, a scaling type, an enumerator) is
// unknown. Not part of the library's API.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <string>
#include <vector>

namespace posenc::detail {

/// Levenshtein distance of a and b after lower-casing and reading '-' as '_' (so letter case and
/// '_' / '-' differences cost nothing).
inline std::size_t edit_distance(const std::string& a, const std::string& b)
{
    const auto norm = [](std::string s) {
        for (char& c : s) c = c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return s;
    };
    const std::string x = norm(a), y = norm(b);
    std::vector<std::size_t> row(y.size() + 1);
    for (std::size_t j = 0; j <= y.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= x.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= y.size(); ++j) {
            const std::size_t up = row[j];
            const std::size_t substitution = diagonal + (x[i - 1] == y[j - 1] ? std::size_t {0} : std::size_t {1});
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitution});
            diagonal = up;
        }
    }
    return row[y.size()];
}

/// " (did you mean X?)" for the nearest candidate within max(1, size / 5) edits, else "" (also ""
/// for a word over 64 characters, which no suggestion would help).
inline std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates)
{
    if (word.size() > 64) return "";
    std::string best;
    std::size_t best_distance = std::max<std::size_t>(1, word.size() / 5) + 1;
    for (const std::string& candidate : candidates) {
        const std::size_t d = edit_distance(word, candidate);
        if (d < best_distance) best = candidate, best_distance = d;
    }
    return best.empty() ? "" : " (did you mean " + best + "?)";
}

}  // namespace posenc::detail
