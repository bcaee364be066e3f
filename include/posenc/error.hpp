// SPDX-License-Identifier: MIT
// posenc/error.hpp: the library's one error type and how it is raised.
//
// Every invalid input that reaches a public, checked entry point throws
// posenc::error. Its message always has the same three parts:
//
//     <field> <value> <rule>          e.g.  "rotary_dim 127 must be even"
//
// field()  names the offending parameter (a dotted path where nested),
// value()  is the value as the caller gave it (doubles in shortest round-trip form),
// rule()   states the requirement that was violated.
#pragma once

#include "posenc/config.hpp"  // first: it refuses compilers below C++17 with a clear message

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace posenc {

/// The one exception type posenc throws for invalid input.
class error : public std::invalid_argument
{
public:
    error(std::string field, std::string value, std::string rule)
        : std::invalid_argument(field + " " + value + " " + rule), field_(std::move(field)), value_(std::move(value)),
          rule_(std::move(rule))
    {}

    /// The same three parts with a message laid out by the caller (the config reader writes
    /// "rope_scaling.factor: expected a number >= 1, got \"four\"").
    error(std::string field, std::string value, std::string rule, const std::string& message)
        : std::invalid_argument(message), field_(std::move(field)), value_(std::move(value)), rule_(std::move(rule))
    {}

    const std::string& field() const noexcept { return field_; }
    const std::string& value() const noexcept { return value_; }
    const std::string& rule() const noexcept { return rule_; }

private:
    std::string field_;
    std::string value_;
    std::string rule_;
};

namespace detail {

/// Shortest decimal text that reads back as exactly `x`: integers below 1e15 in full
/// ("-10000"), others in %g form ("0.5", "1e+20"), and "nan", "inf", "-inf".
inline std::string format_value(double x)
{
    if (std::isnan(x)) return "nan";
    if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
    char buffer[32];
    if (x == std::trunc(x) && std::abs(x) < 1e15) {
        std::snprintf(buffer, sizeof buffer, "%.0f", x);
        return buffer;
    }
    for (int precision = 1; precision <= 17; ++precision) {
        std::snprintf(buffer, sizeof buffer, "%.*g", precision, x);
        if (std::strtod(buffer, nullptr) == x) break;
    }
    return buffer;
}

inline std::string format_value(const std::string& s) { return '"' + s + '"'; }
inline std::string format_value(const char* s) { return format_value(std::string(s)); }

template <class Integer, std::enable_if_t<std::is_integral_v<Integer>, int> = 0>
std::string format_value(Integer i)
{
    return std::to_string(i);
}

/// One piece of a message for cat(): text as it is, or an integer in decimal.
struct TextPiece {
    std::string_view text;
    long long number = 0;
    bool is_number = false;

    TextPiece(const char* s) : text(s) {}
    TextPiece(const std::string& s) : text(s) {}
    template <class Integer, std::enable_if_t<std::is_integral_v<Integer> && !std::is_same_v<Integer, bool> &&
                                                  !std::is_same_v<Integer, char>,
                                              int> = 0>
    TextPiece(Integer i) : number(static_cast<long long>(i)), is_number(true)
    {}
};

/// The pieces one after the other: cat({"must equal tokens ", tokens}). One compiled copy serves
/// every message, so a check's failure path costs its caller one call rather than a chain of
/// inlined string concatenations (what a header-only user compiles in every translation unit).
inline std::string cat(std::initializer_list<TextPiece> pieces)
{
    std::string out;
    for (const TextPiece& p : pieces) {
        if (p.is_number) out += std::to_string(p.number);
        else out.append(p.text.data(), p.text.size());
    }
    return out;
}

/// Throws posenc::error("<field> <value> <rule>").
template <class Value>
[[noreturn]] void raise(std::string field, const Value& value, std::string rule)
{
    throw error(std::move(field), format_value(value), std::move(rule));
}

/// Throws unless `condition` holds; the message is built only on failure.
template <class Value>
void require(bool condition, const char* field, const Value& value, const char* rule)
{
    if (!condition) raise(field, value, rule);
}

}  // namespace detail
}  // namespace posenc
