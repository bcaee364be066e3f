#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole test suite. Installs what is missing, then:
#   1. g++      : configure, build every target (tests, examples, benchmarks, header hygiene
#                 checks) with -Wall -Wextra -Wpedantic -Werror, run ctest;
#   2. clang++  : the same;
#   3. clang++ with AddressSanitizer + UndefinedBehaviorSanitizer (-fno-sanitize-recover=all):
#                 the test suite again;
#   4. clang++ with ThreadSanitizer: the threading tests (test cases named "*thread*");
#   5. the libFuzzer targets of tests/fuzz, each for POSENC_FUZZ_SECONDS (default 60) seconds.
# Set POSENC_TEST_QUICK=1 to run only the first configuration.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs="$(nproc)"

run_suite() {
  local name="$1"; shift
  local dir="build/test-${name}"
  echo
  echo "=== posenc test suite: ${name} ==="
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
  cmake --build "$dir" -j "$jobs"
  ctest --test-dir "$dir" --output-on-failure -j "$jobs"
}

run_suite gcc -DCMAKE_CXX_COMPILER=g++
[ "${POSENC_TEST_QUICK:-0}" = 1 ] && exit 0
run_suite clang -DCMAKE_CXX_COMPILER=clang++

sanitize="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  run_suite clang-asan-ubsan -DCMAKE_CXX_COMPILER=clang++ \
    -DPOSENC_HYGIENE_CHECKS=OFF -DPOSENC_BUILD_BENCHMARKS=OFF \
    "-DPOSENC_EXTRA_FLAGS=${sanitize// /;}" "-DCMAKE_EXE_LINKER_FLAGS=${sanitize}"

echo
echo "=== posenc threading tests: clang-tsan ==="
tsan="-fsanitize=thread -fno-omit-frame-pointer"
cmake -S . -B build/test-clang-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DPOSENC_HYGIENE_CHECKS=OFF -DPOSENC_BUILD_BENCHMARKS=OFF -DPOSENC_BUILD_EXAMPLES=OFF \
  "-DPOSENC_EXTRA_FLAGS=${tsan// /;}" "-DCMAKE_EXE_LINKER_FLAGS=${tsan}" >/dev/null
cmake --build build/test-clang-tsan -j "$jobs" --target posenc_tests
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
  build/test-clang-tsan/tests/posenc_tests --test-case="*thread*" --no-intro=true

echo
echo "=== posenc fuzzing ==="
scripts/fuzz.sh "${POSENC_FUZZ_SECONDS:-60}"
