#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The AArch64 stage of scripts/test.sh: posenc cross-compiled with Debian's g++-aarch64-linux-gnu
# and run under qemu-user (both installed by scripts/install-deps.sh; Debian 12: g++ 12, qemu 7.2).
#   1. build tests/kernels and tests/multi_axis (the SIMD kernels, the multi-axis kernels and
#      runtime dispatch) for aarch64 with cmake/toolchains/aarch64-linux-gnu.cmake, at -O2 as
#      scripts/test.sh builds them (tests/kernels as two units, its fused-kernel files and the
#      rest, POSENC_TEST_UNITY_SPLIT_FUSED; tests/multi_axis as one), with the per-ISA units neon
#      and neon_bf16 (the build's shared objects, cmake/posencKernelObjects.cmake);
#   2. ctest under qemu-aarch64 on two CPU models:
#        max         every feature qemu implements, FP16 and BF16 among them -> dispatch picks
#                    neon_bf16; every arch path runs here: the header-only default (neon64), the
#                    neon unit and the neon_bf16 unit;
#        cortex-a72  Armv8.0-A: Advanced SIMD, no FP16 arithmetic, no BF16 -> neon; the arch paths
#                    it can run (default, neon) are the same machine code as on max, so it runs the
#                    files that decide and compare paths: dispatch (with the caps), the random
#                    shapes against the scalar reference (1-D and multi-axis) and the 16-bit
#                    rounding of every bit pattern.
#      Each arch path against the scalar reference on random shapes with guard elements, and the
#      dispatch test cases once more per cap (POSENC_DISPATCH_MAX_ISA=neon, baseline). qemu-user
#      shows the host's /proc/cpuinfo, so the model's features (from its definition) and the ISA
#      dispatch must pick reach the dispatch test in POSENC_TEST_CPU_FEATURES and
#      POSENC_TEST_EXPECT_BEST_ISA.
#      Emulation runs the kernels 10-30x slower than the host (and long double, binary128 on
#      AArch64, in software): POSENC_TEST_RANDOM_DIVISOR=4 runs a quarter of the random cases
#      of the random-shape tests (kernel_test_support.hpp's random_cases says which; the tests
#      print it); fixed cases run in full, except three files left to the x86 stages, which take
#      minutes under qemu and test index and scale handling shared by every arch rather than
#      per-arch code: rotary_offset (the rotated slice's offset), query_multipliers and
#      zero_frequencies (their loops are the ones the other files run on every path), and
#      threads (std::thread splits of one call, an arch-independent identity; minutes under
#      qemu-user);
#   3. scripts/check-vector-code.sh: the decode step's machine code, disassembled and counted;
#   4. with POSENC_AARCH64_PYTHON=1 only: the Python module compiled for aarch64 (a build check: it
#      cannot be imported here), when Debian's arm64 Python headers are installed
#      (libpython3.11-dev:arm64, which needs `dpkg --add-architecture arm64`), else skipped,
#      saying so. Off by default: it costs about 150 s of CPU (75 s on two cores), which the
#      whole test command's 12-minute budget cannot take; its arch-specific code (the kernels and
#      the neon units) is what steps 1-3 build and run.
# Build folder: build/test-aarch64 (Ninja, ccache). Prints its wall time at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
jobs="$(nproc)"
for tool in aarch64-linux-gnu-g++ qemu-aarch64; do
  command -v "$tool" >/dev/null || { echo "test-aarch64.sh: $tool not found (scripts/install-deps.sh installs it)" >&2; exit 1; }
done
dir=build/test-aarch64  # the `aarch64` preset's folder (CMakePresets.json)
if [ -f "$dir/CMakeCache.txt" ] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$dir/CMakeCache.txt"; then rm -rf "$dir"; fi
echo "=== posenc aarch64: build (kernels, multi_axis) ==="
cmake --preset aarch64 >/dev/null
cmake --build "$dir" -j "$jobs"

run_on() {  # qemu CPU model, its features (the /proc/cpuinfo names dispatch reads), expected best ISA, ctest args
  echo "=== posenc aarch64: ctest under qemu-aarch64 -cpu $1 ==="
  local cpu="$1" features="$2" best="$3"; shift 3
  QEMU_CPU="$cpu" POSENC_TEST_CPU_FEATURES="$features" POSENC_TEST_EXPECT_BEST_ISA="$best" POSENC_TEST_RANDOM_DIVISOR=4 \
    ctest --test-dir "$dir" --output-on-failure -j "$jobs" "$@"
}
# qemu's max: Armv8.x with every extension qemu 7.2 implements, FP16 (fphp, asimdhp) and BF16
# (bf16) among them; Cortex-A72 (Arm's TRM: Armv8.0-A with the Cryptographic Extension).
run_on max "fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm jscvt fcma lrcpc dcpop sha3 sm3 sm4 asimddp sha512 sve asimdfhm dit uscat ilrcpc flagm ssbs sb paca pacg dcpodp sve2 sveaes svepmull svebitperm svesha3 svesm4 flagm2 frint svei8mm svebf16 i8mm bf16 dgh rng bti mte" \
  neon_bf16 -E '^kernels:(rotary_offset|query_multipliers|zero_frequencies|threads)$'
run_on cortex-a72 "fp asimd evtstrm aes pmull sha1 sha2 crc32 cpuid" neon \
  -R '^(kernels:(dispatch|apply_vs_reference|multi_axis_kernels|dtypes_rounding)|kernels_max_isa_.*|multi_axis:.*)$' 

echo "=== posenc aarch64: vector code of the decode step ==="
scripts/check-vector-code.sh

echo "=== posenc aarch64: Python module (build only) ==="
if [ "${POSENC_AARCH64_PYTHON:-0}" != 1 ]; then
  echo "skipped: set POSENC_AARCH64_PYTHON=1 to cross-build the Python module (about 150 s of CPU)"
elif [ -f /usr/include/aarch64-linux-gnu/python3.11/pyconfig.h ]; then
  cmake --preset python -B build/python-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
    "-DCMAKE_CXX_FLAGS_RELEASE=-O0 -DNDEBUG" -DPOSENC_WERROR=ON -DPOSENC_PYTHON_UNITY_BUILD=OFF \
    -DPython3_EXECUTABLE=/usr/bin/python3 -DPython3_INCLUDE_DIR=/usr/include/python3.11 >/dev/null
  cmake --build build/python-aarch64 -j "$jobs" --target posenc_python
  # (the file keeps the host interpreter's suffix, which the cross build cannot ask an arm64
  # Python for; the object itself must be aarch64)
  module="$(ls build/python-aarch64/python/posenc/_posenc*.so)"
  file "$module" | grep -q "ARM aarch64" || { echo "test-aarch64.sh: $module is not an aarch64 object" >&2; exit 1; }
  echo "built: $module (an aarch64 shared object)"
else
  echo "skipped: no arm64 Python headers (libpython3.11-dev:arm64, after dpkg --add-architecture arm64)"
fi
echo "=== posenc aarch64: $((SECONDS - start)) s ==="
