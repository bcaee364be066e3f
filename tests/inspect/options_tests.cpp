// SPDX-License-Identifier: MIT
// posenc-inspect's command line (tools/posenc-inspect/inspect/options.hpp): the forms docs/cli.md documents,
// its number grammar, and a one-line UsageError naming a real option and quoting the value as
// written for every mistake.
#include "inspect/options.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace inspect_options_tests_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

std::string usage_error(const std::vector<std::string>& args)
{
    try {
        inspect::parse_options(args);
    } catch (const inspect::UsageError& e) {
        return e.what();
    }
    return "(accepted)";
}

double factor_of(const std::string& text)
{
    return *inspect::parse_options({"--preset", "a", "--scaling", "linear", "--factor", text}).factor;
}

std::int64_t length_of(const std::string& text)
{
    return *inspect::parse_options({"--preset", "a", "--length", text}).length;
}

const std::string decimal_rule = "expected a decimal number such as 4, 0.25 or 1e6 (no hex, no spaces, no inf or nan)";

}  // namespace

TEST_CASE("[cli] the demo's command: --preset qwen3-8b --scaling yarn --factor 4 --svg DIR")
{
    const auto o =
        inspect::parse_options({"--preset", "qwen3-8b", "--scaling", "yarn", "--factor", "4", "--svg", "plots"});
    CHECK(o.mode == inspect::Options::Mode::inspect);
    CHECK(o.preset == "qwen3-8b");
    CHECK(o.config_path.empty());
    CHECK(o.scaling == "yarn");
    CHECK(o.factor == 4.0);
    CHECK(o.svg_dir == "plots");
    CHECK_FALSE(o.json);
    CHECK_FALSE(o.length.has_value());
    CHECK(o.as_written("--factor") == "4");
}

TEST_CASE("[cli] every option, in --name value and --name=value forms")
{
    const auto yarn = inspect::parse_options({"--config=c.json",
                                              "--scaling=yarn",
                                              "--factor=32",
                                              "--beta-fast",
                                              "32",
                                              "--beta-slow=1",
                                              "--mscale",
                                              "1",
                                              "--mscale-all-dim",
                                              "1",
                                              "--truncate",
                                              "false",
                                              "--attention-factor",
                                              "1.5",
                                              "--original-length",
                                              "4096",
                                              "--length=131072",
                                              "--json",
                                              "--layer",
                                              "5",
                                              "--bound-pairs=32",
                                              "--assume-half-split"});
    CHECK(yarn.config_path == "c.json");
    CHECK(yarn.assume_half_split);
    CHECK(yarn.beta_fast == 32.0);
    CHECK(yarn.beta_slow == 1.0);
    CHECK(yarn.mscale == 1.0);
    CHECK(yarn.mscale_all_dim == 1.0);
    CHECK(yarn.truncate == false);
    CHECK(yarn.attention_factor == 1.5);
    CHECK(yarn.original_length == 4096);
    CHECK(yarn.length == 131072);
    CHECK(yarn.json);
    CHECK(yarn.layer == 5);
    CHECK(yarn.bound_pairs == 32);

    const auto llama = inspect::parse_options({"--preset", "llama-2-7b", "--scaling", "llama3", "--factor", "8",
                                               "--low-freq-factor", "1", "--high-freq-factor", "4"});
    CHECK(llama.low_freq_factor == 1.0);
    CHECK(llama.high_freq_factor == 4.0);

    const auto longrope = inspect::parse_options(
        {"--preset", "course-small", "--scaling", "longrope", "--short-factor", "1,1.5,2", "--long-factor=2,3,4e0"});
    CHECK(longrope.short_factor == std::vector<double> {1.0, 1.5, 2.0});
    CHECK(longrope.long_factor == std::vector<double> {2.0, 3.0, 4.0});
    CHECK_FALSE(longrope.factor.has_value());  // longrope may take its factor from the lengths

    const auto compare =
        inspect::parse_options({"--preset", "a", "--compare", "none,Linear,YARN", "--factor", "4", "--csv"});
    CHECK(compare.compare == std::vector<std::string> {"none", "linear", "yarn"});
    CHECK(compare.csv);

    CHECK(inspect::parse_options({"--preset", "qwen3-8b", "--scaling", "none", "--factor", "4"}).factor == 4.0);
    CHECK(inspect::parse_options({"--list-presets"}).mode == inspect::Options::Mode::list_presets);
    CHECK(inspect::parse_options({"--preset", "x", "--help"}).mode == inspect::Options::Mode::help);
    CHECK(inspect::parse_options({"-h"}).mode == inspect::Options::Mode::help);
    CHECK(inspect::parse_options({"--version"}).mode == inspect::Options::Mode::version);
    // --help skips the checks of what the options mean, not of how they are written.
    CHECK(inspect::parse_options({"--factor", "4", "--help"}).mode == inspect::Options::Mode::help);
}

TEST_CASE("[cli] scaling names in any letter case; presets, options and scaling names suggested")
{
    CHECK(inspect::parse_options({"--preset", "a", "--scaling", "YaRN", "--factor", "4"}).scaling == "yarn");
    CHECK(inspect::parse_options({"--preset", "a", "--scaling", "NTK_AWARE", "--factor", "4"}).scaling == "ntk_aware");
    CHECK(usage_error({"--preset", "a", "--scaling", "ntk-aware", "--factor", "4"}) ==
          "--scaling: expected none, linear, ntk_aware, dynamic, yarn, llama3 or longrope, got \"ntk-aware\" (did you "
          "mean ntk_aware?)");
    CHECK(usage_error({"--preset", "a", "--scaling", "lama3", "--factor", "4"}) ==
          "--scaling: expected none, linear, ntk_aware, dynamic, yarn, llama3 or longrope, got \"lama3\" (did you mean "
          "llama3?)");
    CHECK(usage_error({"--preset", "a", "--scalling", "yarn"}) ==
          "unknown option --scalling (did you mean --scaling?) (see --help)");
    CHECK(usage_error({"--preset", "a", "--frobnicate"}) == "unknown option --frobnicate (see --help)");
    CHECK(usage_error({"--bogus", "-h"}) == "unknown option --bogus (see --help)");
    CHECK(usage_error({"--preset", "a", "--compare", "yarn,yarn", "--factor", "4"}) == "--compare: yarn listed twice");
    CHECK(usage_error({"--preset", "a", "--compare", "yarn", "--factor", "4"}) ==
          "--compare: expected 2 to 6 comma-separated scaling types, got \"yarn\"");
}

TEST_CASE("[cli, docs/cli.md] --help and docs/cli.md (the reference) name every option the parser knows")
{
    const std::string help = inspect::usage_text();
    std::ifstream file(std::string(POSENC_TEST_DATA_DIR) + "/../../docs/cli.md");
    REQUIRE(file.good());
    const std::string reference((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    for (const std::string& option : inspect::detail::option_names()) {
        CAPTURE(option);
        CHECK(help.find(option) != std::string::npos);
        CHECK(reference.find("`" + option) != std::string::npos);  // its row in the option table
    }
}

TEST_CASE("[cli] usage errors are one line naming the option")
{
    CHECK(usage_error({}) == "give --preset NAME or --config PATH (see --help)");
    CHECK(usage_error({"--preset", "a", "--config", "b"}) == "give --preset or --config, not both");
    CHECK(usage_error({"--preset"}) == "--preset: missing value");
    CHECK(usage_error({"--preset="}) == "--preset: expected a preset name (see --list-presets), got \"\"");
    CHECK(usage_error({"--config="}) == "--config: expected the path of a config.json, got \"\"");
    CHECK(usage_error({"--config", "--help"}) ==
          "--config: missing value before --help (write --config=VALUE for a value that starts with --)");
    CHECK(usage_error({"--preset", "a", "--preset", "b"}) == "--preset given twice");
    CHECK(usage_error({"qwen3-8b"}) == "unexpected argument \"qwen3-8b\" (options start with --; see --help)");
    CHECK(usage_error({"--preset", "a", "--json=yes"}) == "--json takes no value, got \"yes\"");
    CHECK(usage_error({"--preset", "a", "--assume-half-split"}) ==
          "--assume-half-split applies to --config only (presets name their pairing)");
    CHECK(usage_error({"--preset", "a", "--json", "--csv"}) == "give --json or --csv, not both");
    CHECK(usage_error({"--preset", "a", "--scaling", "yarn", "--compare", "none,yarn", "--factor", "4"}) ==
          "give --scaling or --compare, not both");
    CHECK(usage_error({"--preset", "a", "--factor", "4"}) == "--factor needs --scaling TYPE");
    CHECK(usage_error({"--preset", "a", "--scaling", "yarn"}) == "--scaling yarn needs --factor S");
    CHECK(usage_error({"--preset", "a", "--compare", "none,yarn"}) ==
          "--compare needs --factor S (every scaling is compared at L x S)");
    CHECK(usage_error({"--preset", "a", "--scaling", "linear", "--factor", "4", "--beta-fast", "32"}) ==
          "--beta-fast does not apply to --scaling linear");
    CHECK(usage_error({"--preset", "a", "--compare", "none,linear", "--factor", "4", "--beta-fast", "32"}) ==
          "--beta-fast does not apply to --compare none,linear");
    CHECK(usage_error({"--preset", "a", "--scaling", "yarn", "--factor", "4", "--truncate", "no"}) ==
          "--truncate: expected true or false, got \"no\"");
    CHECK(usage_error({"--preset", "a", "--svg="}) == "--svg: expected a directory, got \"\"");
    CHECK(usage_error({"--preset", "a", "--bound-pairs", "0"}) ==
          "--bound-pairs: expected a pair count from 1 to 32768, got \"0\"");
}

TEST_CASE("[cli grammar] numbers are decimal: no hex, no inf or nan, no surrounding whitespace, one message per kind")
{
    CHECK(factor_of("4") == 4.0);
    CHECK(factor_of("4.0") == 4.0);
    CHECK(factor_of("4.") == 4.0);
    CHECK(factor_of(".5e1") == 5.0);
    CHECK(factor_of("4e0") == 4.0);
    CHECK(factor_of("0.4E+1") == 4.0);
    for (const std::string bad :
         {"0x4", "0x1p2", " 4", "\t4", "4 ", "+4", "four", "inf", "nan", "1e", "e5", ".", "-", "4,0", "1_000", "４"}) {
        CAPTURE(bad);
        CHECK(usage_error({"--preset", "a", "--scaling", "yarn", "--factor", bad}) ==
              "--factor: " + decimal_rule + ", got " + inspect::detail::in_quotes(bad));
    }
    CHECK(usage_error({"--preset", "a", "--scaling", "yarn", "--factor", "\x1b[31m"}) ==
          "--factor: " + decimal_rule + ", got \"\\x1b[31m\"");
    CHECK(usage_error({"--preset", "a", "--scaling", "yarn", "--factor", "1e999"}) ==
          "--factor: out of range: beyond the largest double 1.7976931348623157e308, got \"1e999\"");
    CHECK(
        usage_error({"--preset", "a", "--scaling", "yarn", "--factor", "1e-320"}) ==
        "--factor: too small: below the smallest normal double 2.2250738585072014e-308 (a subnormal), got \"1e-320\"");
    CHECK(usage_error({"--preset", "a", "--scaling", "yarn", "--factor", "1e-400"}) ==
          "--factor: too small: below the smallest normal double 2.2250738585072014e-308 (it would round to 0), got "
          "\"1e-400\"");
    CHECK(factor_of("0e5") == 0.0);  // an exact zero is written as zero (the library then refuses it)
    // A long value is cut with an ellipsis: the message stays one short line.
    const std::string digits(5000, '7');
    CHECK(usage_error({"--preset", "a", "--scaling", "yarn", "--factor", digits + "x"}) ==
          "--factor: " + decimal_rule + ", got \"" + std::string(37, '7') + "...\"");
    CHECK(usage_error({"--preset", "a", "--scaling", "longrope", "--short-factor", "1,,2"}) ==
          "--short-factor (item 1): " + decimal_rule + ", got \"\"");
}

TEST_CASE("[cli grammar] lengths are whole numbers, exponents allowed when exact")
{
    CHECK(length_of("131072") == 131072);
    CHECK(length_of("1e6") == 1000000);
    CHECK(length_of("1.31072e5") == 131072);
    CHECK(length_of("1E6") == 1000000);
    CHECK(length_of("0131072") == 131072);
    CHECK(length_of("1125899906842624") == 1125899906842624);  // 2^50
    CHECK(length_of("1.125899906842624e15") == 1125899906842624);
    CHECK(usage_error({"--preset", "a", "--length", "1.5"}) ==
          "--length: expected a length from 1 to 2^50, got \"1.5\", not a whole number");
    CHECK(usage_error({"--preset", "a", "--length", "1.0000000000000000001e6"}) ==
          "--length: expected a length from 1 to 2^50, got \"1.0000000000000000001e6\", not a whole number");
    CHECK(usage_error({"--preset", "a", "--length", "12k"}) ==
          "--length: expected a length from 1 to 2^50 as a decimal whole number such as 131072 or 1e6, got \"12k\"");
    CHECK(usage_error({"--preset", "a", "--length", "0x10"}) ==
          "--length: expected a length from 1 to 2^50 as a decimal whole number such as 131072 or 1e6, got \"0x10\"");
    CHECK(usage_error({"--preset", "a", "--length", "-5"}) == "--length: expected a length from 1 to 2^50, got \"-5\"");
    CHECK(usage_error({"--preset", "a", "--length", "0"}) == "--length: expected a length from 1 to 2^50, got \"0\"");
    CHECK(usage_error({"--preset", "a", "--original-length", "1125899906842625"}) ==
          "--original-length: expected a length from 1 to 2^50, got \"1125899906842625\"");
    CHECK(usage_error({"--preset", "a", "--length", "99999999999999999999"}) ==
          "--length: expected a length from 1 to 2^50, got \"99999999999999999999\"");
    CHECK(usage_error({"--preset", "a", "--length", "1e999999999"}) ==
          "--length: expected a length from 1 to 2^50, got \"1e999999999\"");
    CHECK(usage_error({"--preset", "a", "--length", "1e-3"}) ==
          "--length: expected a length from 1 to 2^50, got \"1e-3\", not a whole number");
}

}  // namespace inspect_options_tests_tests
