// SPDX-License-Identifier: MIT
// posenc/kernels/dispatch_isas.hpp: the ISA list, the one place that names the instruction sets
// runtime dispatch builds kernels for (dispatch.hpp). Everything per ISA is generated from it:
// the dispatch::Isa enumerators, one IsaEntry per ISA (name, arch, CPU test, entry points) and
// the one switch over them (dispatch.hpp), and the per-ISA translation units with their
// compiler flags (posenc_add_dispatch, cmake/posencDispatch.cmake, which reads the POSENC_ISA
// lines of this file: keep one entry per line, in this form).
//
//   POSENC_ISA(name, processor, arch, "flags", cpu_test)
//     name       the Isa enumerator; the suffix of the unit's entry points (run_<name>, ...)
//     processor  x86 or arm64: posenc_add_dispatch builds the entry only on that processor family
//     arch       the xsimd arch type the unit's kernels are instantiated for
//     flags      the unit's compiler flags (GCC and Clang), separated by spaces
//     cpu_test   an expression of `const CpuFeatures& f`: whether this CPU and OS run the unit
//
// Entries of one processor come in increasing order (best_isa() takes the last one available).
// arm64 entries: neon has the target's own flags (Advanced SIMD is part of every AArch64 CPU; it
// is the baseline's code in a unit of its own); neon_bf16 needs FP16 and BF16 (BFCVTN stores
// bfloat16), which every CPU with BF16 so far also has.
// Adding an ISA: one entry here, the CpuFeatures fields its test reads (dispatch.hpp) and, where
// xsimd lacks an operation, the arch's overloads in detail/simd_ops.hpp.
#pragma once

// clang-format off
#define POSENC_DISPATCH_ISA_LIST(POSENC_ISA)                                                                         \
    POSENC_ISA(sse4_2, x86, xsimd::sse4_2, "-msse4.2", f.sse4_2)                                                    \
    POSENC_ISA(avx2, x86, xsimd::fma3<xsimd::avx2>, "-mavx2 -mfma -mf16c", f.avx2 && f.fma && f.f16c)             \
    POSENC_ISA(avx512, x86, xsimd::avx512bw, "-mavx512f -mavx512cd -mavx512dq -mavx512bw -mfma -mf16c", f.avx512f && f.avx512cd && f.avx512dq && f.avx512bw && f.fma && f.f16c) \
    POSENC_ISA(avx512_bf16, x86, posenc::kernels::detail::simd::avx512_bf16, "-mavx512f -mavx512cd -mavx512dq -mavx512bw -mfma -mf16c -mavx512bf16", f.avx512f && f.avx512cd && f.avx512dq && f.avx512bw && f.avx512_bf16 && f.fma && f.f16c) \
    POSENC_ISA(neon, arm64, xsimd::neon64, "", f.asimd)                                                                 \
    POSENC_ISA(neon_bf16, arm64, posenc::kernels::detail::simd::neon64_bf16, "-march=armv8.2-a+fp16+bf16", f.asimd && f.fphp && f.asimdhp && f.bf16)
// clang-format on

/// 1 when posenc_add_dispatch built the unit of ISA `name` into this target
/// (POSENC_DISPATCH_ISA_<name> defined as 1), 0 otherwise; usable in #if and in expressions.
#define POSENC_DISPATCH_ISA_COMPILED(name) POSENC_DETAIL_IS_ONE(POSENC_DISPATCH_ISA_##name)
#define POSENC_DETAIL_IS_ONE(value) POSENC_DETAIL_IS_ONE_EXPANDED(value)
#define POSENC_DETAIL_IS_ONE_EXPANDED(value) POSENC_DETAIL_IS_ONE_PASTED(POSENC_DETAIL_ONE_IS_##value)
#define POSENC_DETAIL_IS_ONE_PASTED(marker_or_other) POSENC_DETAIL_SECOND_OF(marker_or_other 1, 0, ~)
#define POSENC_DETAIL_ONE_IS_1 ~,
#define POSENC_DETAIL_SECOND_OF(first, second, ...) second
