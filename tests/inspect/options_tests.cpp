// SPDX-License-Identifier: MIT
// posenc-inspect's command line (examples/inspect/options.hpp): the forms docs/cli.md
// names, and a one-line UsageError for every mistake.
#include "inspect/options.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

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

}  // namespace

TEST_CASE("[cli] the README's command: --preset qwen3-8b --scaling yarn --factor 4 --svg DIR")
{
    const auto o = inspect::parse_options({"--preset", "qwen3-8b", "--scaling", "yarn", "--factor", "4", "--svg", "plots"});
    CHECK(o.mode == inspect::Options::Mode::inspect);
    CHECK(o.preset == "qwen3-8b");
    CHECK(o.config_path.empty());
    CHECK(o.scaling == "yarn");
    CHECK(o.factor == 4.0);
    CHECK(o.svg_dir == "plots");
    CHECK_FALSE(o.json);
    CHECK_FALSE(o.length.has_value());
}

TEST_CASE("[cli] every option, in --name value and --name=value forms")
{
    const auto yarn = inspect::parse_options({"--config=c.json", "--scaling=yarn", "--factor=32", "--beta-fast", "32",
                                              "--beta-slow=1", "--mscale", "1", "--mscale-all-dim", "1", "--truncate",
                                              "false", "--attention-factor", "1.5", "--original-length", "4096",
                                              "--length=131072", "--json"});
    CHECK(yarn.config_path == "c.json");
    CHECK(yarn.beta_fast == 32.0);
    CHECK(yarn.beta_slow == 1.0);
    CHECK(yarn.mscale == 1.0);
    CHECK(yarn.mscale_all_dim == 1.0);
    CHECK(yarn.truncate == false);
    CHECK(yarn.attention_factor == 1.5);
    CHECK(yarn.original_length == 4096);
    CHECK(yarn.length == 131072);
    CHECK(yarn.json);

    const auto llama = inspect::parse_options(
        {"--preset", "llama-2-7b", "--scaling", "llama3", "--factor", "8", "--low-freq-factor", "1", "--high-freq-factor", "4"});
    CHECK(llama.low_freq_factor == 1.0);
    CHECK(llama.high_freq_factor == 4.0);

    const auto longrope = inspect::parse_options(
        {"--preset", "course-small", "--scaling", "longrope", "--short-factor", "1,1.5,2", "--long-factor=2,3,4e0"});
    CHECK(longrope.short_factor == std::vector<double>{1.0, 1.5, 2.0});
    CHECK(longrope.long_factor == std::vector<double>{2.0, 3.0, 4.0});
    CHECK_FALSE(longrope.factor.has_value());  // longrope may take its factor from the lengths

    CHECK(inspect::parse_options({"--preset", "qwen3-8b", "--scaling", "none", "--factor", "4"}).factor == 4.0);
    CHECK(inspect::parse_options({"--list-presets"}).mode == inspect::Options::Mode::list_presets);
    CHECK(inspect::parse_options({"--preset", "x", "--help"}).mode == inspect::Options::Mode::help);
    CHECK(inspect::parse_options({"--bogus", "-h"}).mode == inspect::Options::Mode::help);
}

TEST_CASE("[cli] usage errors are one line naming the option")
{
    CHECK(usage_error({}) == "give --preset NAME or --config PATH (see --help)");
    CHECK(usage_error({"--preset", "a", "--config", "b"}) == "give --preset or --config, not both");
    CHECK(usage_error({"--preset"}) == "--preset: missing value");
    CHECK(usage_error({"--preset", "a", "--preset", "b"}) == "--preset given twice");
    CHECK(usage_error({"--preset", "a", "--frobnicate"}) == "unknown option --frobnicate (see --help)");
    CHECK(usage_error({"qwen3-8b"}) == "unexpected argument \"qwen3-8b\" (see --help)");
    CHECK(usage_error({"--preset", "a", "--json=yes"}) == "--json takes no value");
    CHECK(usage_error({"--preset", "a", "--factor", "4"}) == "--factor needs --scaling TYPE");
    CHECK(usage_error({"--preset", "a", "--scaling", "yarn"}) == "--scaling yarn needs --factor S");
    CHECK(usage_error({"--preset", "a", "--scaling", "YaRN", "--factor", "4"}) ==
          "--scaling: expected none, linear, ntk_aware, dynamic, yarn, llama3 or longrope, got \"YaRN\"");
    CHECK(usage_error({"--preset", "a", "--scaling", "linear", "--factor", "4", "--beta-fast", "32"}) ==
          "--beta-fast does not apply to --scaling linear");
    CHECK(usage_error({"--preset", "a", "--scaling", "yarn", "--factor", "four"}) ==
          "--factor: expected a finite number, got \"four\"");
    CHECK(usage_error({"--preset", "a", "--scaling", "yarn", "--factor", "1e999"}) ==
          "--factor: expected a finite number, got \"1e999\"");
    CHECK(usage_error({"--preset", "a", "--scaling", "yarn", "--factor", "nan"}) ==
          "--factor: expected a finite number, got \"nan\"");
    CHECK(usage_error({"--preset", "a", "--scaling", "yarn", "--factor", "4", "--truncate", "no"}) ==
          "--truncate: expected true or false, got \"no\"");
    CHECK(usage_error({"--preset", "a", "--length", "12k"}) == "--length: expected a whole number of tokens, got \"12k\"");
    CHECK(usage_error({"--preset", "a", "--length", "-5"}) == "--length: expected a whole number of tokens, got \"-5\"");
    CHECK(usage_error({"--preset", "a", "--length", "0"}) == "--length: expected a length between 1 and 2^50, got 0");
    CHECK(usage_error({"--preset", "a", "--original-length", "1125899906842625"}) ==
          "--original-length: expected a length between 1 and 2^50, got 1125899906842625");
    CHECK(usage_error({"--preset", "a", "--length", "99999999999999999999"}) ==
          "--length: expected a whole number of tokens, got \"99999999999999999999\"");
    CHECK(usage_error({"--preset", "a", "--scaling", "longrope", "--short-factor", "1,,2"}) ==
          "--short-factor: expected a number, got \"\"");
    CHECK(usage_error({"--preset", "a", "--svg="}) == "--svg: expected a directory, got \"\"");
}
