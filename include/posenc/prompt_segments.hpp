// SPDX-License-Identifier: MIT
// posenc/prompt_segments.hpp: a multimodal prompt written as text, "text:3;image:1x28x28;text:2",
// read into PromptSegments (multimodal_positions.hpp). posenc-inspect's --prompt and the Python
// module read the same grammar.
//
//   SEGMENTS = SEGMENT { ";" SEGMENT }
//   SEGMENT  = "text:" N              N text tokens, N >= 1
//            | "image:" T "x" H "x" W an image of vision grid (T, H, W) before merging
//            | "video:" T "x" H "x" W [ "@" S ]
//                                     a video; S: seconds per temporal grid step (Qwen2.5-VL's
//                                     second_per_grid_ts), a decimal >= 0
// N, T, H, W are whole decimal numbers >= 1 and <= 2^31 - 1 (digits only); S is digits with at
// most one ".". No spaces. Each segment is one run of tokens, in prompt order.
//
// A malformed segment is refused with posenc::error naming the segment as written, its index and
// the rule ("segment 2 \"imge:1x4x4\" must be text:N, image:TxHxW, video:TxHxW or video:TxHxW@S").
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/multimodal_positions.hpp"

namespace posenc {

namespace detail {

inline const char* segment_grammar() noexcept
{
    return "text:N, image:TxHxW, video:TxHxW or video:TxHxW@S (N, T, H, W whole numbers in [1, 2^31 - 1], S seconds "
           ">= 0)";
}

[[noreturn]] inline void bad_segment(std::size_t index, const std::string& written, const std::string& why)
{
    throw error("segment " + std::to_string(index), format_value(written), why,
                "segment " + std::to_string(index) + " " + format_value(written) + ": " + why);
}

/// A whole number in [1, 2^31 - 1] written in digits only, else -1.
inline std::int64_t segment_count(const std::string& t)
{
    if (t.empty() || t.size() > 10) return -1;
    for (char ch : t)
        if (ch < '0' || ch > '9') return -1;
    const std::int64_t v = std::strtoll(t.c_str(), nullptr, 10);
    return v >= 1 && v <= 2147483647 ? v : -1;
}

/// Seconds written as digits with at most one '.', else -1.
inline double segment_seconds(const std::string& t)
{
    int dots = 0, digits = 0;
    for (char ch : t) {
        if (ch == '.') ++dots;
        else if (ch >= '0' && ch <= '9') ++digits;
        else return -1;
    }
    if (digits == 0 || dots > 1 || t.size() > 32) return -1;
    return std::strtod(t.c_str(), nullptr);
}

inline PromptSegment parse_segment(std::size_t index, const std::string& written)
{
    const std::size_t colon = written.find(':');
    const std::string kind = colon == std::string::npos ? written : written.substr(0, colon);
    const std::string rest = colon == std::string::npos ? std::string() : written.substr(colon + 1);
    if (colon == std::string::npos || (kind != "text" && kind != "image" && kind != "video"))
        bad_segment(index, written, std::string("must be ") + segment_grammar());
    if (kind == "text") {
        const std::int64_t n = segment_count(rest);
        if (n < 0)
            bad_segment(index, written,
                        std::string("text:N needs N, the token count, a whole number in [1, 2^31 - 1]"));
        return PromptSegment::text(n);
    }
    std::string grid = rest, seconds;
    const std::size_t at = rest.find('@');
    if (at != std::string::npos) {
        if (kind != "video") bad_segment(index, written, "only a video takes @S (seconds per temporal grid step)");
        grid = rest.substr(0, at);
        seconds = rest.substr(at + 1);
    }
    std::vector<std::int64_t> thw;
    std::size_t start = 0;
    for (;;) {
        const std::size_t x = grid.find('x', start);
        thw.push_back(segment_count(grid.substr(start, x == std::string::npos ? std::string::npos : x - start)));
        if (x == std::string::npos) break;
        start = x + 1;
    }
    if (thw.size() != 3 || thw[0] < 0 || thw[1] < 0 || thw[2] < 0)
        bad_segment(index, written,
                    kind +
                        ":TxHxW needs the vision grid (T, H, W) before merging, three whole numbers in [1, 2^31 - 1]");
    if (kind == "image") return PromptSegment::image(thw[0], thw[1], thw[2]);
    if (at == std::string::npos) return PromptSegment::video(thw[0], thw[1], thw[2]);
    const double s = segment_seconds(seconds);
    if (s < 0)
        bad_segment(index, written,
                    "@S needs S, the seconds per temporal grid step, a decimal >= 0 (digits and one '.')");
    return PromptSegment::video(thw[0], thw[1], thw[2], s);
}

}  // namespace detail

/// An upper bound on the tokens of `segments` under any rule: a text run's length, a vision run's
/// unmerged grid t h w times 2 (merging only shrinks it; HunYuan-VL's newline column at most
/// doubles a row). In double, so that it cannot overflow; a caller checks it before building ids
/// or angles for a prompt too large to hold.
inline double prompt_tokens_upper_bound(const std::vector<PromptSegment>& segments) noexcept
{
    double total = 0;
    for (const PromptSegment& s : segments)
        total += s.kind == PromptSegment::Kind::text
                     ? static_cast<double>(s.length)
                     : 2.0 * static_cast<double>(s.t) * static_cast<double>(s.h) * static_cast<double>(s.w);
    return total;
}

/// The segments of `text` (see the file comment). Throws posenc::error for an empty prompt, an
/// empty segment (";;", a trailing ';') or a malformed one, naming it as written.
inline std::vector<PromptSegment> parse_prompt_segments(const std::string& text)
{
    if (text.empty())
        throw error("prompt", "\"\"", "must hold at least one segment",
                    std::string("prompt \"\": expected ") + detail::segment_grammar() + ", separated by ';'");
    std::vector<PromptSegment> out;
    std::size_t start = 0;
    for (std::size_t index = 0;; ++index) {
        const std::size_t semi = text.find(';', start);
        const std::string written = text.substr(start, semi == std::string::npos ? std::string::npos : semi - start);
        out.push_back(detail::parse_segment(index, written));
        if (semi == std::string::npos) break;
        start = semi + 1;
    }
    return out;
}

}  // namespace posenc
