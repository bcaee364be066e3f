#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole test suite (what CI runs, through .ci/run). Installs what is missing, then:
#   1. g++, every target (tests, examples, benchmarks compiled but not run, header hygiene
#      checks) with -Wall -Wextra -Wpedantic -Werror; ctest;
#   2. clang++ with AddressSanitizer + UndefinedBehaviorSanitizer (-fno-sanitize-recover=all) and
#      -Werror, so clang's warnings are covered too: tests and examples; ctest (the consumer
#      projects of tests/package ran in stage 1 and are not repeated);
#   3. clang++ with ThreadSanitizer: the test cases named "*thread*", in the folders that have any;
#   4. scripts/check-isa-symbols.sh and scripts/test-python.sh, each when present;
#   5. each libFuzzer target of tests/fuzz for POSENC_FUZZ_SECONDS (default 20) seconds.
# Builds use Ninja and ccache (both installed by scripts/install-deps.sh) in build/test-*.
#
#   scripts/test.sh                     the whole suite
#   scripts/test.sh --quick FOLDER...   the contributor loop: g++ (-Werror), build and run only
#                                       tests/FOLDER/ (e.g. scaling, kernels, lessons) in
#                                       build/quick; CXX=clang++ for clang. Seconds after a
#                                       one-header change (CONTRIBUTING.md).
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
common=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPOSENC_WERROR=ON)
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

run_suite gcc -- -DCMAKE_CXX_COMPILER=g++ -DPOSENC_BUILD_BENCHMARKS=ON -DPOSENC_HYGIENE_CHECKS=ON

sanitize="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  run_suite clang-asan-ubsan -E '^(package_consumer|subdirectory_consumer|cxx14_refused)$' -- \
    -DCMAKE_CXX_COMPILER=clang++ -DPOSENC_HYGIENE_CHECKS=OFF -DPOSENC_BUILD_BENCHMARKS=OFF \
    "-DPOSENC_EXTRA_FLAGS=${sanitize// /;}" "-DCMAKE_EXE_LINKER_FLAGS=${sanitize}"

begin_stage "clang-tsan (threading tests)"
tsan="-fsanitize=thread -fno-omit-frame-pointer"
thread_folders=()
for folder in tests/*/; do
  folder="$(basename "$folder")"
  case "$folder" in package|fuzz|support|data) continue ;; esac
  grep -lqE 'TEST_CASE\("[^"]*thread' "tests/$folder"/*.cpp 2>/dev/null && thread_folders+=("$folder")
done
if [ ${#thread_folders[@]} -gt 0 ]; then
  filter="$(printf '%s/|' "${thread_folders[@]}")"; filter="${filter%|}"
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

for script in check-isa-symbols.sh test-python.sh; do
  if [ -f "scripts/$script" ]; then
    begin_stage "$script"
    bash "scripts/$script"
    end_stage
  fi
done

begin_stage "fuzzing"
scripts/fuzz.sh "${POSENC_FUZZ_SECONDS:-20}"
end_stage

echo
echo "=== posenc: all stages passed ==="
for i in "${!stage_names[@]}"; do
  printf '  %-32s %4d s\n' "${stage_names[$i]}" "${stage_seconds[$i]}"
done
printf '  %-32s %4d s\n' "total" "$SECONDS"
