#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The decode step's machine code, shown and checked (docs/kernels.md, "Vector code").
# scripts/aarch64/decode_probe.cpp instantiates the one-token rotation of 32 heads x 128 dims
# from a cached table, through a dispatch unit's decode-step table, for float32 half-split and
# interleaved, bfloat16 and float16. This script compiles it once per ISA:
#   neon, neon_bf16   aarch64-linux-gnu-g++ (the dispatch units' flags), then
#     1. disassembles it (aarch64-linux-gnu-objdump -d) and counts, from each decode step through
#        every function it calls or jumps to, the instructions and the call sites
#        (scripts/aarch64/count_static.py): fails on a call to anything but posenc's own kernel
#        functions and the memcpy of a partial register at the end of a row;
#     2. runs it under qemu-aarch64 -cpu max, one instruction per translation block, with
#        qemu's execution log, and counts what one decode step executes
#        (scripts/aarch64/count_trace.py): fails on a call executed out of line beyond the
#        kernel's own per-token calls, on any scalar element operation (a per-element loop),
#        or above 4 instructions per element; a NEON streaming loop over the float32 step's
#        bytes is counted beside them;
#   avx512, avx512_bf16   with --compare-x86, the host's g++ (x86-64 only): step 1 only, for the
#     comparison in docs/kernels.md (qemu-user does not emulate AVX-512).
# Performance on ARM cannot be timed here (qemu's timings say nothing about a CPU): instructions
# per element against the streaming loop are the measure. Output in build/vector-code. The two
# probes of each pair (neon and neon_bf16; avx512 and avx512_bf16) compile and run side by side.
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/vector-code
mkdir -p "$out"
flags=(-std=c++17 -O2 -DNDEBUG -Iinclude -isystem /usr/include/eigen3 -Wall -Wextra -Wpedantic -Werror)
regions=(float32_half_split float32_interleaved bfloat16_half_split float16_half_split stream_float32)
status=0

probe_arm() {  # isa, arch, flags...: returns 1 when a check fails
  local isa="$1" arch="$2" ok=0; shift 2
  aarch64-linux-gnu-g++ "${flags[@]}" "$@" "-DPOSENC_PROBE_ARCH=$arch" scripts/aarch64/decode_probe.cpp -o "$out/probe_$isa"
  echo "--- $isa ($arch): static, from objdump"
  aarch64-linux-gnu-objdump -d -C --no-show-raw-insn "$out/probe_$isa" > "$out/probe_$isa.s"
  python3 scripts/aarch64/count_static.py < "$out/probe_$isa.s" || ok=1
  echo "--- $isa ($arch): executed once under qemu-aarch64 -cpu max"
  rm -f "$out/trace_$isa.log"
  qemu-aarch64 -L /usr/aarch64-linux-gnu -cpu max -singlestep -d in_asm,exec,nochain -D "$out/trace_$isa.log" "$out/probe_$isa" >/dev/null
  python3 scripts/aarch64/count_trace.py "$out/trace_$isa.log" --elements 4096 --max-calls 4 --max-per-element 4 \
    "${regions[@]}" || ok=1
  rm -f "$out/trace_$isa.log"  # tens of megabytes
  return "$ok"
}

probe_x86() {  # isa, arch, flags...: returns 1 when a check fails
  local isa="$1" arch="$2" ok=0; shift 2
  g++ "${flags[@]}" "$@" "-DPOSENC_PROBE_ARCH=$arch" scripts/aarch64/decode_probe.cpp -o "$out/probe_$isa"
  echo "--- $isa ($arch): static, from objdump"
  objdump -d -C --no-show-raw-insn "$out/probe_$isa" > "$out/probe_$isa.s"
  python3 scripts/aarch64/count_static.py < "$out/probe_$isa.s" || ok=1
  return "$ok"
}

# The probes of a pair are independent (each a compile, then its checks): they run side by side,
# each into its own report, printed in order once both are done (two cores: half the wall time).
run_pair() {  # probe function, then two argument lists separated by --
  local fn="$1"; shift
  local first=() second=()
  while [ "$1" != -- ]; do first+=("$1"); shift; done; shift
  second=("$@")
  "$fn" "${first[@]}" > "$out/report_${first[0]}.txt" 2>&1 & local pid_first=$!
  "$fn" "${second[@]}" > "$out/report_${second[0]}.txt" 2>&1 & local pid_second=$!
  wait "$pid_first" || status=1
  cat "$out/report_${first[0]}.txt"
  wait "$pid_second" || status=1
  cat "$out/report_${second[0]}.txt"
}

run_pair probe_arm neon xsimd::neon64 -- neon_bf16 posenc::kernels::detail::simd::neon64_bf16 -march=armv8.2-a+fp16+bf16
if [ "${1:-}" = --compare-x86 ] && [ "$(uname -m)" = x86_64 ]; then
  avx512=(-mavx512f -mavx512cd -mavx512dq -mavx512bw -mfma -mf16c)
  run_pair probe_x86 avx512 xsimd::avx512bw "${avx512[@]}" -- avx512_bf16 posenc::kernels::detail::simd::avx512_bf16 "${avx512[@]}" -mavx512bf16
fi
[ "$status" -eq 0 ] && echo "check-vector-code.sh: every decode step is vector code, with no call out of line" \
  || echo "check-vector-code.sh: FAILED (above)" >&2
exit "$status"
