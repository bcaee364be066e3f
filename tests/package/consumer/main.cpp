// SPDX-License-Identifier: MIT
// Consumer of an installed posenc: the umbrella header, one spec, one table, one rotation.
#include <posenc/posenc.hpp>

#include <cmath>
#include <cstdio>

int main()
{
    const posenc::RopeSpec spec = posenc::models::qwen3_8b.rope_spec();
    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
    const int never = table.count_without_full_turn(32768);
    std::printf("posenc %s: Qwen3-8B has %d of %d pairs without a full turn in 32768\n", posenc::version_string, never,
                table.num_pairs());
    return never == 24 ? 0 : 1;  // lesson C2-2: 24 of 64 pairs
}
