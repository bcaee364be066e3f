// SPDX-License-Identifier: MIT
// posenc-demo: the frequency table and turn counts of a model preset (default: Qwen3-8B).
//
//   posenc-demo [PRESET [LENGTH]]     e.g.  posenc-demo course-small 128
//
// For each pair i: theta_i = base^(-2i/R), its period 2pi/theta_i in tokens, and how many full
// turns it makes within LENGTH tokens (default: the preset's native length). Then the count of
// pairs that never complete a turn (lesson C2-2: 24 of 64 for Qwen3-8B within 32,768).
#include <posenc/posenc.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

int main(int argc, char** argv)
{
    try {
        const posenc::ModelPreset& preset = posenc::models::find_preset(argc > 1 ? argv[1] : "qwen3-8b");
        const posenc::RopeSpec spec = preset.rope_spec();
        const double length = argc > 2 ? std::strtod(argv[2], nullptr) : static_cast<double>(preset.native_length);
        const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);

        std::printf("%s: head_dim %d, rotary_dim %d, base %g, pairing %s, length %.0f\n\n",
                    std::string(preset.display_name).c_str(), spec.head_dim(), spec.rotary_dim(), spec.base(),
                    posenc::to_string(spec.pairing()), length);
        std::printf("%5s  %14s  %16s  %14s  %s\n", "pair", "inv_freq", "period (tokens)", "turns", "full turn");
        for (int i = 0; i < table.num_pairs(); ++i) {
            std::printf("%5d  %14.8g  %16.6f  %14.6f  %s\n", i, table.inv_freq(i), table.period(i),
                        table.turns(i, length), table.completes_turn(i, length) ? "yes" : "no");
        }
        const auto never = table.pairs_without_full_turn(length);
        std::printf("\n%d of %d pairs never complete a turn within %.0f tokens", static_cast<int>(never.size()),
                    table.num_pairs(), length);
        if (!never.empty()) std::printf(" (pairs %d..%d)", never.front(), never.back());
        std::printf(".\nFastest pair: %.2f turns.\n", table.turns(0, length));
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "posenc-demo: %s\n", e.what());
        return 2;
    }
}
