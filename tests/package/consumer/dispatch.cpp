// SPDX-License-Identifier: MIT
// Consumer of an installed posenc using runtime dispatch (posenc_add_dispatch): the kernel the
// CPU supports best rotates one head, which must match the scalar reference in double to float
// precision. Also checks that the per-ISA units were really compiled in on
// x86-64 (the dispatch helper came from the installed package, not from a source tree).
#include <posenc/kernels.hpp>
#include <posenc/kernels/dispatch.hpp>
#include <posenc/rotation.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main()
{
    namespace k = posenc::kernels;
    namespace d = posenc::kernels::dispatch;
#if defined(__x86_64__)
    if (!d::isa_compiled(d::Isa::avx2)) {
        std::printf("posenc_add_dispatch added no AVX2 unit\n");
        return 1;
    }
#endif
    const posenc::RopeSpec spec(64, 64, 10000.0, posenc::Pairing::half_split);
    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
    const k::OnTheFlyAngles angles(table);
    std::vector<float> q(64);
    for (int i = 0; i < 64; ++i) q[static_cast<std::size_t>(i)] = 0.25f + 0.01f * static_cast<float>(i);
    std::vector<double> reference(q.begin(), q.end());

    const k::HeadsView<float> view(q.data(), static_cast<std::ptrdiff_t>(q.size()), k::HeadsShape {1, 1, 64});
    d::apply_rope(spec, angles, k::PositionIds::contiguous(12345), k::QKViews<float>::in_place(view));
    posenc::apply_rope_reference(spec, table, reference.data(), 12345);
    double worst = 0;
    for (int i = 0; i < 64; ++i)
        worst = std::fmax(worst, std::fabs(q[static_cast<std::size_t>(i)] - reference[static_cast<std::size_t>(i)]));
    std::printf("dispatch %s: largest difference to the reference %.3g\n", d::to_string(d::best_isa()), worst);
    return worst <= 1e-6 ? 0 : 1;  // |x| < 1: a few float ulp (apply.hpp's bound is 4 ulp per pair)
}
