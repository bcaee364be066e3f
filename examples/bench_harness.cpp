// SPDX-License-Identifier: MIT
// posenc-bench-harness: the installed harness (posenc/bench/harness.hpp) on two kernels, as a
// kernel engineer runs it on his own: posenc's kernel called as an engine calls it, and a
// deliberately naive float32 kernel (angle = float(position) * float(theta_i), cosf, sinf).
// The shape: one prefill chunk of a Llama-style attention, 64 tokens x 32 heads x 128, float32.
// docs/benchmarks.md ("Benchmarking your own kernel") shows this program and its output.
#include <posenc/bench/harness.hpp>
#include <posenc/kernels.hpp>

#include <cmath>
#include <cstdio>

namespace {

/// The naive kernel: every angle in float. Half-split pairs (i, i + 64), in place.
void naive_rope(float* data, const std::int64_t* positions, int tokens, int heads)
{
    for (int t = 0; t < tokens; ++t)
        for (int h = 0; h < heads; ++h) {
            float* x = data + (static_cast<std::ptrdiff_t>(t) * heads + h) * 128;
            for (int i = 0; i < 64; ++i) {
                const float theta = std::pow(500000.0f, -static_cast<float>(i) / 64.0f);
                const float angle = static_cast<float>(positions[t]) * theta;
                const float c = std::cos(angle), s = std::sin(angle);
                const float a = x[i], b = x[i + 64];
                x[i] = a * c - b * s;
                x[i + 64] = b * c + a * s;
            }
        }
}

}  // namespace

int main()
{
    namespace b = posenc::bench;
    namespace k = posenc::kernels;
    const posenc::RopeSpec spec(128, 128, 500000.0, posenc::Pairing::half_split);
    const b::RopeProblem problem {spec, posenc::FrequencyTable::from_spec(spec), 64, 32};

    // posenc's kernel as an engine calls it: apply_rope on a [tokens, heads, head_dim] view.
    const k::OnTheFlyAngles angles(problem.table);
    const auto posenc_rope = [&](float* data, const std::int64_t* positions) {
        const k::HeadsView<float> q(data, static_cast<std::ptrdiff_t>(problem.elements()), k::HeadsShape {64, 32, 128});
        k::apply_rope(spec, angles, k::PositionIds(positions, 64), k::QKViews<float>::in_place(q));
    };
    const auto naive = [&](float* data, const std::int64_t* positions) { naive_rope(data, positions, 64, 32); };

    b::HarnessOptions options;
    options.name = "posenc apply_rope (engine call)";
    const b::HarnessReport mine = b::run_harness<float>(problem, posenc_rope, options);
    std::fputs(mine.table().c_str(), stdout);
    options.name = "naive float32";
    const b::HarnessReport theirs = b::run_harness<float>(problem, naive, options);
    std::fputs(("\n" + theirs.table()).c_str(), stdout);
    // The program checks the verdicts it prints: posenc's kernel accurate, the naive one not.
    return mine.accurate() && !theirs.accurate() ? 0 : 1;
}
