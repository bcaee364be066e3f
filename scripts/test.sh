#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole test suite (what CI runs, through .ci/run). Installs what is missing, then:
#   0. scripts/check-kernel-functions.py (no kernel function over 60 lines or 8 parameters);
#   1. g++ with -Wall -Wextra -Wpedantic -Werror: every target (tests, examples, benchmarks
#      compiled but not run, header hygiene checks); ctest, which runs the folders that use
#      runtime dispatch once per ISA cap (every per-ISA kernel path);
#   2. clang++ with AddressSanitizer + UndefinedBehaviorSanitizer (-fno-sanitize-recover=all) and
#      -Werror, so clang's warnings are covered too: tests and examples without the per-ISA
#      units (POSENC_TEST_DISPATCH=OFF; stage 1 runs those paths); ctest (the consumer projects
#      of tests/package ran in stage 1 and are not repeated);
#   3. clang++ with ThreadSanitizer: the test files that hold test cases named "*thread*";
#   4. scripts/check-isa-symbols.sh (a Debug build: POSENC_ASSERT active, per-ISA objects
#      checked), scripts/test-python.sh (the Python module and its pytest suite) and
#      scripts/test-aarch64.sh (the kernel tests cross-compiled for AArch64 and run under qemu on
#      a base NEON CPU and on one with FP16 and BF16; the decode step's vector code checked; the
#      Python module cross-built), when present;
#   5. each libFuzzer target of tests/fuzz for POSENC_FUZZ_SECONDS (default 10) seconds.
# Builds use Ninja and ccache (both installed by scripts/install-deps.sh) in build/test-*. To fit
# CI's time on two cores, the suite compiles at -O0 without debug information, except the
# SIMD-heavy folders (kernels/, multi_axis/; POSENC_OPTIMIZED_TEST_FOLDERS) at -O2 with g++ and
# -O1 with clang++ (g++ -O1 does not inline xsimd's operations: those tests run 10-20x slower);
# the Python module and the fuzzers at -O0. Each stage's wall time is printed at the end.
# Also for time, every build here compiles each test folder as one unit (POSENC_TEST_UNITY_BUILD,
# a CMake unity build): the kernel templates, Eigen and doctest that a folder's files share are
# then compiled once per folder, not once per file (about 40% less compile CPU than one object
# per file). Each test file keeps its helpers in a namespace of its own, so files cannot clash.
# The optimised folders are configured first (their units start first) and get one ctest entry
# per test file, <folder>:<file>, so ctest -j runs their slow files side by side. The AArch64
# stage, whose build is the two optimised folders and two per-ISA units alone, compiles
# tests/kernels as two units (POSENC_TEST_UNITY_SPLIT_FUSED: the files that include a
# fused-kernel header, 7 of 21, and the rest, about equal halves) so that its one long unit does
# not leave a core idle. Stages 1 and 2 and --quick keep one unit: there the other units (the
# four x86 per-ISA units among them) keep the second core busy for as long, and the split only
# adds compile CPU (clang ASan + UBSan: 52 + 42 s against 84 s for the one unit; --quick kernels
# from a cold cache built in 74 s with one unit, 79 s with two).
#
#   scripts/test.sh                     the whole suite
#   scripts/test.sh --quick FOLDER...   the contributor loop: g++ (-Werror), build and run only
#                                       tests/FOLDER/ (e.g. scaling, kernels, lessons) in
#                                       build/quick, one unit per folder as above; CXX=clang++
#                                       for clang. Seconds for a scalar folder after a one-header
#                                       change, a minute or more for kernels (CONTRIBUTING.md).
set -euo pipefail
cd "$(dirname "$0")/.."

quick=()
if [ "${1:-}" = "--quick" ]; then
  shift
  [ $# -gt 0 ] || { echo "usage: scripts/test.sh --quick FOLDER... (a folder of tests/, e.g. scaling)" >&2; exit 2; }
  for folder in "$@"; do
    folder="${folder#tests/}"; folder="${folder%/}"
    [ -d "tests/$folder" ] || { echo "scripts/test.sh: tests/$folder is not a folder" >&2; exit 2; }
    quick+=("$folder")
  done
elif [ $# -gt 0 ]; then
  echo "usage: scripts/test.sh [--quick FOLDER...]" >&2; exit 2
fi

scripts/install-deps.sh
jobs="$(nproc)"
common=(-G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O0 -DNDEBUG" -DPOSENC_WERROR=ON -DPOSENC_TEST_UNITY_BUILD=ON
        "-DPOSENC_OPTIMIZED_TEST_FOLDERS=kernels;multi_axis" -DPOSENC_OPTIMIZED_TEST_FLAGS=-O2)
# A build folder left by an older run with another generator cannot switch to Ninja: start it over.
fresh_if_not_ninja() {
  if [ -f "$1/CMakeCache.txt" ] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$1/CMakeCache.txt"; then
    rm -rf "$1"
  fi
}
declare -a stage_names=() stage_seconds=()
stage_start=0
begin_stage() { echo; echo "=== posenc: $1 ==="; stage_names+=("$1"); stage_start=$SECONDS; }
end_stage() { stage_seconds+=($((SECONDS - stage_start))); }

if [ ${#quick[@]} -gt 0 ]; then
  filter="$(printf '%s/|' "${quick[@]}")"; filter="${filter%|}"
  dir=build/quick
  fresh_if_not_ninja "$dir"
  cmake -S . -B "$dir" "${common[@]}" -DCMAKE_CXX_COMPILER="${CXX:-g++}" -DPOSENC_HYGIENE_CHECKS=OFF \
    -DPOSENC_BUILD_EXAMPLES=OFF -DPOSENC_BUILD_BENCHMARKS=OFF "-DPOSENC_TEST_FILTER=$filter" >/dev/null
  cmake --build "$dir" -j "$jobs"
  ctest --test-dir "$dir" --output-on-failure -j "$jobs"
  exit 0
fi

run_suite() {  # name, ctest arguments (until --), cmake arguments
  local name="$1"; shift
  local ctest_args=()
  while [ "$1" != "--" ]; do ctest_args+=("$1"); shift; done; shift
  local dir="build/test-${name}"
  begin_stage "$name"
  fresh_if_not_ninja "$dir"
  cmake -S . -B "$dir" "${common[@]}" "$@" >/dev/null
  cmake --build "$dir" -j "$jobs"
  ctest --test-dir "$dir" --output-on-failure -j "$jobs" "${ctest_args[@]}"
  end_stage
}

begin_stage "kernel function sizes"
python3 scripts/check-kernel-functions.py  # no kernel function over 60 lines or 8 parameters
end_stage

# The benchmarks are compiled (not run) to keep them building; their per-ISA units are the tests'
# own kernels compiled once more, so they are left out here (POSENC_BENCH_DISPATCH=OFF).
run_suite gcc -- -DCMAKE_CXX_COMPILER=g++ -DPOSENC_BUILD_BENCHMARKS=ON -DPOSENC_BENCH_DISPATCH=OFF -DPOSENC_HYGIENE_CHECKS=ON

sanitize="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  run_suite clang-asan-ubsan -E '^(package_consumer|subdirectory_consumer|unbuilt_install|cxx14_refused|docs_examples|header_conversions)$' -- \
    -DCMAKE_CXX_COMPILER=clang++ -DPOSENC_HYGIENE_CHECKS=OFF -DPOSENC_BUILD_BENCHMARKS=OFF -DPOSENC_TEST_DISPATCH=OFF -DPOSENC_OPTIMIZED_TEST_FLAGS=-O1 \
    "-DPOSENC_EXTRA_FLAGS=${sanitize// /;}" "-DCMAKE_EXE_LINKER_FLAGS=${sanitize}"

begin_stage "clang-tsan (threading tests)"
tsan="-fsanitize=thread -fno-omit-frame-pointer"
thread_files=()
for file in tests/*/*.cpp; do
  case "$file" in tests/package/*|tests/fuzz/*|tests/support/*|tests/data/*) continue ;; esac
  grep -qE 'TEST_CASE\("[^"]*thread' "$file" && thread_files+=("${file#tests/}")
done
if [ ${#thread_files[@]} -gt 0 ]; then
  filter="$(printf '%s|' "${thread_files[@]}")"; filter="${filter%|}"; filter="${filter//./\\.}"
  thread_folders=()
  for file in "${thread_files[@]}"; do thread_folders+=("${file%%/*}"); done
  mapfile -t thread_folders < <(printf '%s\n' "${thread_folders[@]}" | sort -u)
  dir=build/test-clang-tsan
  fresh_if_not_ninja "$dir"
  cmake -S . -B "$dir" "${common[@]}" -DCMAKE_CXX_COMPILER=clang++ -DPOSENC_HYGIENE_CHECKS=OFF \
    -DPOSENC_BUILD_BENCHMARKS=OFF -DPOSENC_BUILD_EXAMPLES=OFF "-DPOSENC_TEST_FILTER=$filter" \
    "-DPOSENC_EXTRA_FLAGS=${tsan// /;}" "-DCMAKE_EXE_LINKER_FLAGS=${tsan}" >/dev/null
  cmake --build "$dir" -j "$jobs" --target $(printf 'posenc_tests_%s ' "${thread_folders[@]}")
  for folder in "${thread_folders[@]}"; do
    log="$dir/tsan-$folder.log"
    TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
      "$dir/tests/posenc_tests_$folder" --test-case="*thread*" --no-intro=true 2>&1 | tee "$log"
    if grep -qE 'test cases: +0 \|' "$log"; then
      echo "scripts/test.sh: tests/$folder ran no threading test case under TSan" >&2; exit 1
    fi
  done
fi
end_stage

if [ -f scripts/check-isa-symbols.sh ]; then
  begin_stage "check-isa-symbols.sh"
  bash scripts/check-isa-symbols.sh
  end_stage
fi
if [ -f scripts/test-python.sh ]; then
  begin_stage "test-python.sh"
  bash scripts/test-python.sh -DPOSENC_WERROR=ON "-DCMAKE_CXX_FLAGS_RELEASE=-O0 -DNDEBUG"
  end_stage
fi

if [ -f scripts/test-aarch64.sh ]; then
  begin_stage "test-aarch64.sh"
  bash scripts/test-aarch64.sh
  end_stage
fi

begin_stage "fuzzing"
scripts/fuzz.sh "${POSENC_FUZZ_SECONDS:-10}"
end_stage

echo
echo "=== posenc: all stages passed ==="
for i in "${!stage_names[@]}"; do
  printf '  %-32s %4d s\n' "${stage_names[$i]}" "${stage_seconds[$i]}"
done
printf '  %-32s %4d s\n' "total" "$SECONDS"
