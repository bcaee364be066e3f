#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CUDA kernels on a machine with an NVIDIA GPU, in one run of under 8 minutes (16 cores):
#   1. scripts/check-cuda.sh: nvcc builds every kernel for every target, warnings as errors
#      (the ptxas table of docs/kernels.md);                                       ~1 min
#   2. the CUDA tests under the CPU emulation (tests/cuda, g++, doctest), when doctest is found;
#   3. benchmarks/cuda/bench_cuda.cu built for this GPU (nvcc -O3) and run: agreement with the
#      CPU kernels and mpmath on the device, copy-bandwidth fractions at 4k-32k tokens, decode
#      per-call time;                                                               ~2 min
#   4. benchmarks/cuda/torch_check.py, when torch with CUDA imports: a torch extension over the
#      kernels built against this torch, against transformers' formula and FlashInfer. ~3 min
# Writes every step's output under $OUT (default build/cuda-device-check) and a summary,
# summary.txt. Each step has a time limit; a step that fails or times out is reported and the
# others still run. Exit status 1 if any step failed.
#   scripts/cuda-device-check.sh
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${OUT:-$root/build/cuda-device-check}"
mkdir -p "$out"
build="$root/build/cuda-device-check-build"
mkdir -p "$build"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
summary="$out/summary.txt"
: > "$summary"
failed=0
note() { echo "$*" | tee -a "$summary"; }
step() {  # step NAME LIMIT_S COMMAND...: runs with a time limit, logs to $out/NAME.txt
  local name="$1" limit="$2"; shift 2
  local start=$SECONDS
  timeout "$limit" "$@" > "$out/$name.txt" 2>&1
  local rc=$?
  note "$name: rc $rc in $((SECONDS - start)) s$([ $rc -eq 124 ] && echo ' (time limit)')"
  [ $rc -eq 0 ] || failed=1
  return $rc
}

[ -x "$nvcc" ] || { note "nvcc not found: nothing to check"; exit 1; }
# the CUDA headers include the CPU kernels' (xsimd, a Debian package: scripts/install-deps.sh)
echo '#include <xsimd/xsimd.hpp>' | "${CXX:-g++}" -std=c++17 -fsyntax-only -x c++ - > /dev/null 2>&1 \
  || { note "xsimd headers not found (libxsimd-dev; scripts/install-deps.sh): the kernels cannot build"; exit 1; }
nvidia-smi > "$out/nvidia-smi.txt" 2>&1 || note "nvidia-smi failed"
cap="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '. ')"
[ -n "$cap" ] || cap=90
note "device: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1) (sm_$cap); nvcc: $("$nvcc" --version | tail -1)"

step check-cuda 150 env NVCC="$nvcc" "$root/scripts/check-cuda.sh"

if [ -f /usr/include/doctest/doctest.h ]; then
  step cuda-tests-emulated 120 bash -c "g++ -std=c++17 -O1 -I'$root/include' -I'$root/tests/cuda' \
      '$root/tests/main.cpp' '$root/tests/cuda/apply.cpp' '$root/tests/cuda/fused.cpp' -o '$build/cuda_tests' && '$build/cuda_tests'"
else
  note "cuda-tests-emulated: skipped (doctest not installed here; the test command runs them)"
fi

step bench-build 150 "$nvcc" -std=c++17 --expt-relaxed-constexpr -O3 -arch="sm_$cap" -I"$root/include" \
    "$root/benchmarks/cuda/bench_cuda.cu" -o "$build/bench_cuda" \
  && step bench 150 "$build/bench_cuda" "$out/bench.json"

if python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" > /dev/null 2>&1; then
  TORCH_EXTENSIONS_DIR="$build/torch-extensions" MAX_JOBS=16 \
    step torch-check 240 python3 "$root/benchmarks/cuda/torch_check.py" --out "$out/torch.json"
else
  note "torch-check: skipped (torch with CUDA does not import here)"
fi

grep -h "PASS\|FAIL\|ratio\|GB/s\| us$" "$out"/bench.txt "$out"/torch-check.txt 2>/dev/null >> "$summary"
note "cuda-device-check: $([ $failed -eq 0 ] && echo PASS || echo FAIL)"
exit $failed
