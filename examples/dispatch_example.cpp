// SPDX-License-Identifier: MIT
// posenc-dispatch-example: one binary, the best RoPE kernel for the CPU it runs on.
//
// CMake (examples/CMakeLists.txt):
//     add_executable(posenc-dispatch-example dispatch_example.cpp)
//     target_link_libraries(posenc-dispatch-example PRIVATE posenc::posenc)
//     posenc_add_dispatch(posenc-dispatch-example)   # + SSE4.2 / AVX2 / AVX-512 (/ +BF16) kernel units
//
// It rotates Q and K of a packed QKV buffer of Qwen3-8B's geometry (32 query heads, 8 KV heads,
// head_dim 128, base 1e6) in place at positions 1,000,000.., with angles computed on the fly,
// through dispatch::apply_rope, then checks every value against the scalar reference. Exit 0
// when all agree (within 4 ulp per pair, apply.hpp), 1 otherwise; ctest runs it.
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

    const d::CpuFeatures& cpu = d::cpu_features();
    std::printf("cpu: sse4.2 %d  avx2 %d  fma %d  f16c %d  avx512f/bw %d/%d  avx512_bf16 %d\n", cpu.sse4_2, cpu.avx2,
                cpu.fma, cpu.f16c, cpu.avx512f, cpu.avx512bw, cpu.avx512_bf16);
    std::printf("  %-8s (%s): always there\n", d::to_string(d::Isa::baseline), d::arch_name(d::Isa::baseline));
    for (d::Isa isa : d::dispatch_isas)
        std::printf("  %-8s (%s): compiled %d, supported %d\n", d::to_string(isa), d::arch_name(isa),
                    d::isa_compiled(isa), d::isa_supported_by_cpu(isa));
    std::printf("dispatch uses: %s\n", d::to_string(d::best_isa()));

    const posenc::RopeSpec spec(128, 128, 1e6, posenc::Pairing::half_split);
    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
    const k::OnTheFlyAngles angles(table);  // any position up to 2^31 - 1, 4.5 MiB of tables

    const std::ptrdiff_t tokens = 16, q_heads = 32, kv_heads = 8, head_dim = 128;
    std::vector<float> qkv(static_cast<std::size_t>(tokens * (q_heads + 2 * kv_heads) * head_dim));
    for (std::size_t i = 0; i < qkv.size(); ++i) qkv[i] = std::sin(0.001f * static_cast<float>(i));
    const std::vector<float> original = qkv;

    const k::PackedQkv<float> packed = k::slice_packed_qkv(qkv, {tokens, q_heads, kv_heads, head_dim});
    d::apply_rope(spec, angles, k::PositionIds::contiguous(1000000), k::QKViews<float>::in_place(packed.q, packed.k));

    // check against the scalar reference (double, exact angles), head by head
    const k::PackedQkv<const float> before = k::slice_packed_qkv(original, {tokens, q_heads, kv_heads, head_dim});
    double worst_ulps = 0;
    for (std::ptrdiff_t t = 0; t < tokens; ++t)
        for (int tensor = 0; tensor < 2; ++tensor) {
            const k::HeadsView<const float> in = tensor == 0 ? before.q : before.k;
            const k::HeadsView<float> out = tensor == 0 ? packed.q : packed.k;
            for (std::ptrdiff_t h = 0; h < in.heads; ++h) {
                std::vector<double> ref(in.head(t, h), in.head(t, h) + head_dim);
                posenc::apply_rope_reference(spec, table, ref.data(), 1000000 + t);
                for (int i = 0; i < spec.num_pairs(); ++i) {
                    const posenc::PairCoordinates p = spec.pair_coordinates(i);
                    const double norm = std::hypot(in.head(t, h)[p.first], in.head(t, h)[p.second]);
                    const double ulp = std::ldexp(1.0, std::ilogb(norm) - 23);
                    for (int c : {p.first, p.second})
                        worst_ulps =
                            std::max(worst_ulps, std::fabs(out.head(t, h)[c] - ref[static_cast<std::size_t>(c)]) / ulp);
                }
            }
        }
    bool v_untouched = true;
    for (std::ptrdiff_t t = 0; t < tokens; ++t)
        for (std::ptrdiff_t h = 0; h < kv_heads; ++h)
            for (std::ptrdiff_t e = 0; e < head_dim; ++e)
                v_untouched = v_untouched && packed.v.head(t, h)[e] == before.v.head(t, h)[e];
    std::printf("largest error against the reference: %.2f ulp of |x| per pair (bound 4); V untouched: %s\n",
                worst_ulps, v_untouched ? "yes" : "no");
    return worst_ulps <= 4.0 && v_untouched ? 0 : 1;
}
