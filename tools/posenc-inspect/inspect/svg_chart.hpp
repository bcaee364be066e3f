// SPDX-License-Identifier: MIT
// svg_chart.hpp: standalone SVG bar and line charts for posenc-inspect (no fonts, no scripts).
//
// Deliberately small: a fixed 720 x 420 canvas, a plot area with axes, ticks, labels, a title,
// an optional subtitle and a legend. Bars carry a CSS class (e.g. "bar out-of-range") so tests
// can count them. Non-finite values are skipped (bars drawn empty, line points left out).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace inspect {

/// One bar per value; `classes[i]` names bar i's kind and `colors[i]` its fill.
struct BarChart {
    std::string title, subtitle, x_label, y_label;
    bool log_y = false;
    std::vector<double> values;
    std::vector<std::string> classes;
    std::vector<std::string> colors;
    double reference_line = std::nan("");  ///< horizontal line (e.g. "1 turn"), NaN for none
    std::string reference_label;
    std::vector<std::pair<std::string, std::string>> legend;  ///< (color, label)
};

struct Series {
    std::string label;
    std::string color;
    std::vector<double> x, y;
    std::string dash;  ///< SVG stroke-dasharray ("" = solid)
    std::vector<double> marks_x;  ///< points marked with a circle on the line (x values)
    std::string mark_color;  ///< fill of the marks
    std::string mark_class = "mark";
};

struct LineChart {
    std::string title, subtitle, x_label, y_label;
    bool log_x = false;  ///< log10 x axis (points with x <= 0 are left out)
    bool log_y = false;  ///< log10 y axis (points with y <= 0 are left out)
    bool integer_x = false;  ///< x ticks at whole numbers (pair indices)
    std::vector<Series> series;
    double reference_line = std::nan("");  ///< horizontal line, NaN for none
    std::string reference_label;
    std::vector<std::pair<std::string, std::string>> extra_legend;  ///< (color, label) after the series'
};

namespace detail {

/// Length of the UTF-8 sequence starting at s[i] when it encodes a character XML 1.0 allows
/// (a valid, shortest-form sequence of a code point in U+0000-U+D7FF, U+E000-U+FFFD or
/// U+10000-U+10FFFF), or 0 otherwise: a stray continuation byte, a truncated or overlong
/// sequence, a surrogate, a value past U+10FFFF, or the noncharacters U+FFFE and U+FFFF (which
/// a config's "\uFFFE" can carry, and which make a document ill-formed).
inline std::size_t utf8_sequence(const std::string& s, std::size_t i)
{
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char b = byte(i);
    std::size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return 0;
    unsigned long cp = n == 1 ? b : n == 2 ? (b & 0x1Fu) : n == 3 ? (b & 0x0Fu) : (b & 0x07u);
    for (std::size_t k = 1; k < n; ++k) {
        if ((byte(i + k) & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (byte(i + k) & 0x3Fu);
    }
    static const unsigned long smallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < smallest[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0xFFFE || cp == 0xFFFF) return 0;
    return n;
}

/// Text as XML character data: markup characters escaped; control characters XML 1.0 forbids
/// and bytes that are not valid UTF-8 or encode a character XML forbids (U+FFFE, U+FFFF) become
/// '?', so any input yields a well-formed document.
inline std::string escape(const std::string& s)
{
    std::string out;
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t n = utf8_sequence(s, i);
        const char c = s[i];
        if (n == 0 || (n == 1 && static_cast<unsigned char>(c) < 0x20)) {
            out += '?';
            ++i;
            continue;
        }
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        default: out.append(s, i, n);
        }
        i += n;
    }
    return out;
}

inline std::string num(double v)
{
    char b[32];
    std::snprintf(b, sizeof b, "%.2f", v);
    return b;
}

/// A value in a bar's tooltip: shortest exact text.
inline std::string value_label(double v)
{
    char b[32];
    std::snprintf(b, sizeof b, "%.6g", v);
    return b;
}

/// 10^k with k in Unicode superscript digits ("10⁴", "10⁻³", "10⁰").
inline std::string power_of_ten(int k)
{
    static const char* const digits[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
    std::string out = k < 0 ? "⁻" : "";
    const std::string magnitude = std::to_string(k < 0 ? -static_cast<long>(k) : static_cast<long>(k));
    for (char c : magnitude) out += digits[c - '0'];
    return "10" + out;
}

/// The labels of one axis's ticks, all in one number format. A log axis (ticks at powers of
/// ten) reads 10⁻³ ... 10⁴. A linear axis: plain decimals with as many fraction digits as the
/// finest tick needs, or, when a tick is below 0.001 or at least 1e6, every tick as d.de<k>.
inline std::vector<std::string> tick_labels(const std::vector<double>& ticks, bool log)
{
    std::vector<std::string> out;
    if (log) {
        for (double v : ticks) out.push_back(power_of_ten(static_cast<int>(std::lround(std::log10(v)))));
        return out;
    }
    bool scientific = false;
    int decimals = 0;
    for (double v : ticks) {
        const double a = std::abs(v);
        if (a != 0 && (a < 1e-3 || a >= 1e6)) scientific = true;
    }
    if (!scientific) {
        for (double v : ticks) {
            int d = 0;
            while (d < 3 && std::abs(v * std::pow(10.0, d) - std::round(v * std::pow(10.0, d))) >
                                1e-9 * std::max(1.0, std::abs(v) * std::pow(10.0, d)))
                ++d;
            decimals = std::max(decimals, d);
        }
    }
    char b[32];
    for (double v : ticks) {
        if (scientific) std::snprintf(b, sizeof b, "%.1e", v);
        else std::snprintf(b, sizeof b, "%.*f", decimals, v);
        out.push_back(b);
    }
    return out;
}

// Canvas layout.
constexpr double width = 720, height = 432, left = 80, right = 24, top = 84, bottom = 64;
constexpr double plot_w = width - left - right, plot_h = height - top - bottom;

inline std::string header(const std::string& title, const std::string& subtitle)
{
    std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    num(width) + "\" height=\"" + num(height) + "\" viewBox=\"0 0 " + num(width) + " " + num(height) +
                    "\" font-family=\"sans-serif\" font-size=\"12\">\n";
    s += "<rect x=\"0\" y=\"0\" width=\"" + num(width) + "\" height=\"" + num(height) + "\" fill=\"white\"/>\n";
    s += "<text x=\"" + num(width / 2) + "\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">" + escape(title) +
         "</text>\n";
    if (!subtitle.empty())
        s += "<text x=\"" + num(width / 2) + "\" y=\"38\" text-anchor=\"middle\" font-size=\"11\" fill=\"#444444\">" +
             escape(subtitle) + "</text>\n";
    return s;
}

inline std::string axes(const std::string& x_label, const std::string& y_label)
{
    std::string s = "<line x1=\"" + num(left) + "\" y1=\"" + num(top + plot_h) + "\" x2=\"" + num(left + plot_w) +
                    "\" y2=\"" + num(top + plot_h) + "\" stroke=\"black\"/>\n";
    s += "<line x1=\"" + num(left) + "\" y1=\"" + num(top) + "\" x2=\"" + num(left) + "\" y2=\"" + num(top + plot_h) +
         "\" stroke=\"black\"/>\n";
    s += "<text x=\"" + num(left + plot_w / 2) + "\" y=\"" + num(height - 16) + "\" text-anchor=\"middle\">" +
         escape(x_label) + "</text>\n";
    s += "<text transform=\"translate(18," + num(top + plot_h / 2) + ") rotate(-90)\" text-anchor=\"middle\">" +
         escape(y_label) + "</text>\n";
    return s;
}

/// One legend entry: a filled square (bars, marks) or a line drawn as its series is, with the
/// same colour and dash pattern (line charts), so that curves of one colour stay apart.
struct LegendEntry {
    std::string color, label;
    bool line = false;
    std::string dash;  ///< the series' stroke-dasharray ("" = solid)
};

/// Display width of a label in characters (UTF-8 continuation bytes do not count).
inline double label_chars(const std::string& label)
{
    double n = 0;
    for (char c : label) n += (static_cast<unsigned char>(c) & 0xC0) == 0x80 ? 0 : 1;
    return n;
}

/// Legend entries between the subtitle and the plot area, left to right, in one row or, when
/// they do not fit the canvas width, two.
inline std::string legend(const std::vector<LegendEntry>& entries)
{
    const auto entry_width = [](const LegendEntry& e) {
        return (e.line ? 28 : 16) + 7.0 * label_chars(e.label) + 18;  // about 7 px per character at 12 px
    };
    double total = 0;
    for (const auto& e : entries) total += entry_width(e);
    const bool two_rows = left + total > width - right;
    std::string s;
    double x = left;
    double y = two_rows ? top - 26 : top - 12;
    for (const LegendEntry& e : entries) {
        if (two_rows && x > left && x + entry_width(e) > width - right && y < top - 12) {
            x = left;
            y = top - 12;
        }
        if (e.line)
            s += "<line class=\"swatch\" x1=\"" + num(x) + "\" y1=\"" + num(y - 4) + "\" x2=\"" + num(x + 24) +
                 "\" y2=\"" + num(y - 4) + "\" stroke=\"" + e.color + "\" stroke-width=\"2\"" +
                 (e.dash.empty() ? std::string() : " stroke-dasharray=\"" + e.dash + "\"") + "/>\n";
        else
            s += "<rect x=\"" + num(x) + "\" y=\"" + num(y - 10) + "\" width=\"12\" height=\"12\" fill=\"" + e.color +
                 "\"/>\n";
        s += "<text x=\"" + num(x + (e.line ? 28 : 16)) + "\" y=\"" + num(y) + "\">" + escape(e.label) + "</text>\n";
        x += entry_width(e);
    }
    return s;
}

/// Maps a data range onto [0, plot extent], linear or log10.
struct Scale {
    double lo, hi;
    bool log;
    double operator()(double v, double extent) const
    {
        const double a = log ? std::log10(lo) : lo, b = log ? std::log10(hi) : hi;
        const double t = ((log ? std::log10(v) : v) - a) / (b - a);
        return std::clamp(t, 0.0, 1.0) * extent;
    }
};

inline std::vector<double> ticks(const Scale& s)
{
    std::vector<double> out;
    if (s.log) {
        for (double e = std::floor(std::log10(s.lo)); e <= std::ceil(std::log10(s.hi)); e += 1.0) {
            const double v = std::pow(10.0, e);
            if (v >= s.lo * 0.999 && v <= s.hi * 1.001) out.push_back(v);
        }
        return out;
    }
    const double span = s.hi - s.lo;
    const double raw = span / 5.0;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    const double step = raw / mag < 2 ? 2 * mag : raw / mag < 5 ? 5 * mag : 10 * mag;
    for (double v = std::ceil(s.lo / step) * step; v <= s.hi + 1e-9 * span && out.size() < 50; v += step)
        out.push_back(v);
    return out;
}

inline bool plottable(double v, bool log) { return std::isfinite(v) && (!log || v > 0); }

inline std::string y_ticks(const Scale& s)
{
    std::string out;
    const std::vector<double> values = ticks(s);
    const std::vector<std::string> labels = tick_labels(values, s.log);
    for (std::size_t k = 0; k < values.size(); ++k) {
        const double v = values[k];
        const double y = top + plot_h - s(v, plot_h);
        out += "<line x1=\"" + num(left - 4) + "\" y1=\"" + num(y) + "\" x2=\"" + num(left) + "\" y2=\"" + num(y) +
               "\" stroke=\"black\"/>\n";
        out +=
            "<text x=\"" + num(left - 6) + "\" y=\"" + num(y + 4) + "\" text-anchor=\"end\">" + labels[k] + "</text>\n";
    }
    return out;
}

}  // namespace detail

/// Renders a bar chart. Values <= 0 on a log axis are drawn as empty bars at the axis floor.
inline std::string render(const BarChart& c)
{
    using namespace detail;
    double lo = c.log_y ? 1e300 : 0.0, hi = 0.0;
    for (double v : c.values) {
        if (!plottable(v, c.log_y)) continue;
        if (c.log_y) lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    if (!std::isnan(c.reference_line)) {
        hi = std::max(hi, c.reference_line);
        if (c.log_y) lo = std::min(lo, c.reference_line);
    }
    if (c.log_y) {
        if (!(lo < 1e300)) lo = 1e-3;
        if (!(hi > 0)) hi = 1.0;
        lo = std::pow(10.0, std::floor(std::log10(lo)));
        hi = std::pow(10.0, std::ceil(std::log10(hi)));
    } else {
        hi = hi > 0 ? hi * 1.05 : 1.0;
    }
    if (hi <= lo) hi = lo * 10.0 + 1.0;
    const Scale ys {lo, hi, c.log_y};

    std::string s = header(c.title, c.subtitle) + axes(c.x_label, c.y_label) + y_ticks(ys);
    const double n = static_cast<double>(c.values.size());
    const double slot = n > 0 ? plot_w / n : plot_w;
    for (std::size_t i = 0; i < c.values.size(); ++i) {
        const double v = c.values[i];
        const double h = plottable(v, c.log_y) ? ys(v, plot_h) : 0.0;
        const double x = left + slot * static_cast<double>(i) + slot * 0.1;
        s += "<rect class=\"" + escape(i < c.classes.size() ? c.classes[i] : "bar") + "\" x=\"" + num(x) + "\" y=\"" +
             num(top + plot_h - h) + "\" width=\"" + num(slot * 0.8) + "\" height=\"" + num(h) + "\" fill=\"" +
             (i < c.colors.size() ? c.colors[i] : "steelblue") + "\"><title>" + std::to_string(i) + ": " +
             value_label(v) + "</title></rect>\n";
    }
    // x ticks: every 8th index (and the last).
    for (std::size_t i = 0; i < c.values.size(); ++i) {
        if (i % 8 != 0 && i + 1 != c.values.size()) continue;
        const double x = left + slot * (static_cast<double>(i) + 0.5);
        s += "<text x=\"" + num(x) + "\" y=\"" + num(top + plot_h + 16) + "\" text-anchor=\"middle\">" +
             std::to_string(i) + "</text>\n";
    }
    if (!std::isnan(c.reference_line)) {
        const double y = top + plot_h - ys(c.reference_line, plot_h);
        s += "<line x1=\"" + num(left) + "\" y1=\"" + num(y) + "\" x2=\"" + num(left + plot_w) + "\" y2=\"" + num(y) +
             "\" stroke=\"black\" stroke-dasharray=\"6 4\"/>\n";
        s += "<text x=\"" + num(left + plot_w - 4) + "\" y=\"" + num(y - 4) +
             "\" text-anchor=\"end\" stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\">" +
             escape(c.reference_label) + "</text>\n";
    }
    // The legend names only the colours some bar has.
    std::vector<LegendEntry> entries;
    for (const auto& [color, label] : c.legend)
        if (std::find(c.colors.begin(), c.colors.end(), color) != c.colors.end())
            entries.push_back({color, label, false, ""});
    return s + legend(entries) + "</svg>\n";
}

/// Renders a line chart (linear or log10 axes).
inline std::string render(const LineChart& c)
{
    using namespace detail;
    double x_lo = 1e300, x_hi = -1e300, y_lo = c.log_y ? 1e300 : 0.0, y_hi = -1e300;
    for (const Series& s : c.series)
        for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
            if (!plottable(s.x[i], c.log_x) || !plottable(s.y[i], c.log_y)) continue;
            x_lo = std::min(x_lo, s.x[i]);
            x_hi = std::max(x_hi, s.x[i]);
            y_lo = std::min(y_lo, s.y[i]);
            y_hi = std::max(y_hi, s.y[i]);
        }
    if (!(x_hi > x_lo)) x_lo = c.log_x ? 1 : 0, x_hi = c.log_x ? 10 : 1;
    if (c.log_y) {
        if (!(y_lo < 1e300) || !(y_hi > 0)) y_lo = 0.1, y_hi = 1.0;
        y_lo = std::pow(10.0, std::floor(std::log10(y_lo)));
        y_hi = std::pow(10.0, std::ceil(std::log10(y_hi)));
        if (!(y_hi > y_lo)) y_hi = y_lo * 10.0;
    } else {
        if (!(y_hi > y_lo)) y_hi = y_lo + 1;
        y_hi *= 1.05;
    }
    const Scale xs {x_lo, x_hi, c.log_x}, ys {y_lo, y_hi, c.log_y};

    std::string out = header(c.title, c.subtitle) + axes(c.x_label, c.y_label) + y_ticks(ys);
    std::vector<double> x_ticks = ticks(xs);
    if (c.integer_x) {
        x_ticks.clear();
        const double step = std::max(1.0, std::ceil((x_hi - x_lo) / 8.0 / 8.0) * 8.0);
        for (double v = x_lo; v <= x_hi; v += step) x_ticks.push_back(v);
    }
    const std::vector<std::string> x_labels = tick_labels(x_ticks, c.log_x);
    for (std::size_t k = 0; k < x_ticks.size(); ++k) {
        const double x = left + xs(x_ticks[k], plot_w);
        out += "<text x=\"" + num(x) + "\" y=\"" + num(top + plot_h + 16) + "\" text-anchor=\"middle\">" + x_labels[k] +
               "</text>\n";
    }
    std::vector<LegendEntry> entries;
    for (const Series& s : c.series) {
        std::string points;
        for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
            if (plottable(s.x[i], c.log_x) && plottable(s.y[i], c.log_y))
                points += num(left + xs(s.x[i], plot_w)) + "," + num(top + plot_h - ys(s.y[i], plot_h)) + " ";
        out += "<polyline class=\"series\" fill=\"none\" stroke=\"" + s.color + "\" stroke-width=\"1.5\"" +
               (s.dash.empty() ? std::string() : " stroke-dasharray=\"" + s.dash + "\"") + " points=\"" + points +
               "\"/>\n";
        entries.push_back({s.color, s.label, true, s.dash});
    }
    // The marks after every curve and the reference line, ringed in white, so that no line is
    // drawn over one.
    std::string marks;
    for (const Series& s : c.series)
        for (double mx : s.marks_x)
            for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
                if (s.x[i] == mx && plottable(s.x[i], c.log_x) && plottable(s.y[i], c.log_y))
                    marks += "<circle class=\"" + escape(s.mark_class) + "\" cx=\"" + num(left + xs(s.x[i], plot_w)) +
                             "\" cy=\"" + num(top + plot_h - ys(s.y[i], plot_h)) + "\" r=\"4\" fill=\"" + s.mark_color +
                             "\" stroke=\"white\" stroke-width=\"1\"/>\n";
    if (!std::isnan(c.reference_line)) {
        const double y = top + plot_h - ys(c.reference_line, plot_h);
        out += "<line class=\"reference\" x1=\"" + num(left) + "\" y1=\"" + num(y) + "\" x2=\"" + num(left + plot_w) +
               "\" y2=\"" + num(y) + "\" stroke=\"black\" stroke-dasharray=\"6 4\"/>\n";
        out += "<text x=\"" + num(left + plot_w - 4) + "\" y=\"" + num(y - 4) +
               "\" text-anchor=\"end\" stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\">" +
               escape(c.reference_label) + "</text>\n";
    }
    out += marks;
    for (const auto& [color, label] : c.extra_legend) entries.push_back({color, label, false, ""});
    return out + legend(entries) + "</svg>\n";
}

}  // namespace inspect
