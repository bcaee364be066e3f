// SPDX-License-Identifier: MIT
// The decode step that scripts/check-vector-code.sh disassembles and counts: one token of 32
// heads x 128 dims rotated in place from a cached cos/sin table, through the decode-step table
// that a per-ISA dispatch unit exports (dispatch_target.hpp's decode_steps_of), for float32
// half-split, float32 interleaved, bfloat16 and float16 (half-split). Compiled once per arch
// (POSENC_PROBE_ARCH) with that arch's flags. Run with no argument it performs each step once
// between the markers probe_begin / probe_end (qemu's execution trace counts what runs between
// them), then a plain streaming loop over the float32 step's bytes for comparison.
#include <posenc/kernels/dispatch_target.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>
#if defined(__aarch64__)
#include <arm_neon.h>
#endif

#ifndef POSENC_PROBE_ARCH
#define POSENC_PROBE_ARCH posenc::kernels::default_arch
#endif

namespace pk = posenc::kernels;
namespace pdd = posenc::kernels::detail::dispatch;
using Arch = POSENC_PROBE_ARCH;

constexpr std::ptrdiff_t heads = 32;
constexpr int head_dim = 128;

// Markers around each measured call (never inlined, so each is one address in the trace).
extern "C" POSENC_NOINLINE void probe_begin(const char* name) { __asm__ volatile("" ::"r"(name) : "memory"); }
extern "C" POSENC_NOINLINE void probe_end() { __asm__ volatile("" ::: "memory"); }

// The reference: a streaming loop that reads and writes every byte of the float32 step once,
// sixteen floats (four registers) at a time, with one multiply per register so that the
// compiler keeps the loads and stores: what a memory-bound kernel cannot beat.
extern "C" POSENC_NOINLINE void stream_floats(float* x, std::ptrdiff_t n)
{
#if defined(__aarch64__)
    const float32x4_t k = vdupq_n_f32(1.0001f);
    for (std::ptrdiff_t i = 0; i + 16 <= n; i += 16) {
        const float32x4x4_t v = vld1q_f32_x4(x + i);
        vst1q_f32_x4(x + i, float32x4x4_t {{vmulq_f32(v.val[0], k), vmulq_f32(v.val[1], k), vmulq_f32(v.val[2], k),
                                            vmulq_f32(v.val[3], k)}});
    }
#else
    for (std::ptrdiff_t i = 0; i < n; ++i) x[i] = x[i] * 1.0001f;
#endif
}

template <class T>
POSENC_NOINLINE void run_step(const char* name, posenc::Pairing pairing, const pk::CosSinCache& cache,
                              std::vector<T>& x)
{
    constexpr pdd::DecodeSteps steps = pdd::decode_steps_of<Arch>();
    const pdd::DecodeStep step = steps.of<T, pk::CosSinCache>(pairing);
    probe_begin(name);
    step(&cache, 4097, x.data(), heads, head_dim, head_dim / 2);
    probe_end();
}

int main()
{
    const posenc::RopeSpec half(head_dim, head_dim, 1e4, posenc::Pairing::half_split);
    const posenc::RopeSpec inter(head_dim, head_dim, 1e4, posenc::Pairing::interleaved);
    const pk::CosSinCache half_cache(posenc::FrequencyTable::from_spec(half), 1, 4097);
    const pk::CosSinCache inter_cache(posenc::FrequencyTable::from_spec(inter), 1, 4097);
    std::vector<float> f(heads * head_dim, 0.5f);
    std::vector<posenc::bfloat16> b(f.size(), posenc::to_bfloat16(0.5f));
    std::vector<posenc::float16> h(f.size(), posenc::to_float16(0.5f));
    run_step("float32_half_split", posenc::Pairing::half_split, half_cache, f);
    run_step("float32_interleaved", posenc::Pairing::interleaved, inter_cache, f);
    run_step("bfloat16_half_split", posenc::Pairing::half_split, half_cache, b);
    run_step("float16_half_split", posenc::Pairing::half_split, half_cache, h);
    probe_begin("stream_float32");
    stream_floats(f.data(), static_cast<std::ptrdiff_t>(f.size()));
    probe_end();
    std::printf("%s %g %g %g\n", Arch::name(), static_cast<double>(f[5]), static_cast<double>(posenc::to_float(b[5])),
                static_cast<double>(posenc::to_float(h[5])));
    return 0;
}
