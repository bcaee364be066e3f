// SPDX-License-Identifier: MIT
// Consumer of an installed posenc's benchmark and accuracy harness (posenc/bench/harness.hpp),
// built without posenc's benchmarks or Google Benchmark: a kernel engineer's own kernel (here a
// float32 one that forms the angle in float) checked at long positions, and timed against the
// streaming pass and posenc's kernel. At 2^24 the float angle of pair 0 is off by up to 1 rad, so
// the harness must report that row failed, and posenc's own rows passed.
#include <posenc/bench/harness.hpp>

#include <cmath>
#include <cstdio>

int main()
{
    namespace b = posenc::bench;
    const posenc::RopeSpec spec(64, 64, 10000.0, posenc::Pairing::interleaved);
    const b::RopeProblem problem {spec, posenc::FrequencyTable::from_spec(spec), 8, 4};
    const auto float_angles = [&](float* x, const std::int64_t* positions) {
        for (int t = 0; t < problem.tokens; ++t)
            for (int h = 0; h < problem.heads; ++h)
                for (int i = 0; i < 32; ++i) {
                    float* pair = x + ((t * problem.heads + h) * 64 + 2 * i);
                    const float angle =
                        static_cast<float>(positions[t]) * std::pow(10000.0f, -static_cast<float>(i) / 32.0f);
                    const float c = std::cos(angle), s = std::sin(angle), a = pair[0], bb = pair[1];
                    pair[0] = a * c - bb * s;
                    pair[1] = bb * c + a * s;
                }
    };
    b::HarnessOptions options;
    options.name = "float angles";
    options.timing.repetitions = 5;
    const b::HarnessReport report = b::run_harness<float>(problem, float_angles, options);
    std::fputs(report.table().c_str(), stdout);
    bool posenc_passes = true;
    for (const b::AccuracyRow& row : report.posenc_accuracy) posenc_passes = posenc_passes && row.pass();
    const bool fails_at_2_24 =
        !report.kernel_accuracy[2].pass() && report.kernel_accuracy[2].last_position == (1 << 24);
    return report.timed && posenc_passes && fails_at_2_24 ? 0 : 1;
}
