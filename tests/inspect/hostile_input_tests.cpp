// SPDX-License-Identifier: MIT
// posenc-inspect under hostile input (tools/posenc-inspect/inspect/*.hpp): the refusals docs/cli.md and
// docs/errors.md ("posenc-inspect") promise, one line naming the option and the value as written,
// and SVG output that stays well-formed XML 1.0 whatever a config's name holds. The exit codes and
// the files left behind by failed writes are run_inspect_cli.cmake's (they need the program).
#include "inspect/options.hpp"
#include "inspect/render_svg.hpp"
#include "inspect/report.hpp"
#include "inspect/svg_chart.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace inspect_hostile_input_tests_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

std::string usage_error(const std::vector<std::string>& args)
{
    try {
        inspect::build_report(inspect::parse_options(args));
    } catch (const inspect::UsageError& e) {
        return e.what();
    }
    return "(accepted)";
}

std::int64_t length_of(const std::string& text)
{
    return *inspect::parse_options({"--preset", "a", "--length", text}).length;
}

}  // namespace

TEST_CASE(
    "[cli compare] a factor below 1 is refused under --factor, as with --scaling none (docs/cli.md: L' = L x factor)")
{
    // 1e-300 once made L x factor round to 0 and surfaced as "the model's sequence_length" under
    // the model's own scaling type.
    CHECK(usage_error({"--preset", "qwen3-8b", "--compare", "none,linear", "--factor", "1e-300"}) ==
          "--factor: must be >= 1, got \"1e-300\"");
    CHECK(usage_error({"--preset", "phi-3-mini-128k", "--compare", "none,longrope", "--factor", "0.25"}) ==
          "--factor: must be >= 1, got \"0.25\"");
    CHECK(usage_error({"--preset", "qwen3-8b", "--compare", "linear,none", "--factor", "0.5"}) ==
          "--factor: must be >= 1, got \"0.5\"");
    CHECK(usage_error({"--preset", "qwen3-8b", "--compare", "none,linear", "--factor", "1"}) == "(accepted)");
}

TEST_CASE("[cli grammar] an exponent's leading zeros change nothing: 1e+0000005 is 1e5 (docs/cli.md, Numbers)")
{
    CHECK(length_of("1e+0000005") == 100000);
    CHECK(length_of("1e0000006") == 1000000);
    CHECK(length_of("100e-0000002") == 1);
    CHECK(length_of("5e-0") == 5);
    CHECK(length_of("1.125899906842624e+000000000000000000015") == 1125899906842624);
    CHECK(usage_error({"--preset", "a", "--length", "1e+00000000000000000000051"}) ==
          "--length: expected a length from 1 to 2^50, got \"1e+00000000000000000000051\"");
    CHECK(usage_error({"--preset", "a", "--length", "1e-0000001"}) ==
          "--length: expected a length from 1 to 2^50, got \"1e-0000001\", not a whole number");
}

TEST_CASE("[cli svg] characters XML 1.0 forbids never reach a chart: U+FFFE, U+FFFF, surrogates, overlong forms")
{
    // The JSON reader turns "\uFFFE" in _name_or_path into EF BF BE; xmllint refuses such a file.
    CHECK(inspect::detail::escape("a\xef\xbf\xbe"
                                  "b") == "a???b");  // U+FFFE
    CHECK(inspect::detail::escape("a\xef\xbf\xbf"
                                  "b") == "a???b");  // U+FFFF
    CHECK(inspect::detail::escape("\xed\xa0\x80") == "???");  // a surrogate (U+D800)
    CHECK(inspect::detail::escape("\xc0\x80") == "??");  // overlong NUL
    CHECK(inspect::detail::escape("\xf4\x90\x80\x80") == "????");  // past U+10FFFF
    CHECK(inspect::detail::escape("\xef\xbf\xbd \xf0\x9f\x98\x80 \xc3\xa9") ==
          "\xef\xbf\xbd \xf0\x9f\x98\x80 \xc3\xa9");
    CHECK(inspect::detail::escape("<&>\"") == "&lt;&amp;&gt;&quot;");

    inspect::Report report = inspect::build_report(inspect::parse_options({"--preset", "course-small"}));
    report.name = "x\xef\xbf\xbey\xef\xbf\xbf";
    for (const inspect::SvgFile& f : inspect::render_svgs(report)) {
        CAPTURE(f.name);
        CHECK(f.content.find("\xef\xbf\xbe") == std::string::npos);
        CHECK(f.content.find("\xef\xbf\xbf") == std::string::npos);
    }
}

}  // namespace inspect_hostile_input_tests_tests
