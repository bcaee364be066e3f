#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# posenc's test tiers. Each build is a preset of CMakePresets.json (the one place that says how
# each configuration is built); this script chains them, installs what is missing first
# (scripts/install-deps.sh) and prints each stage's wall time at the end.
#
#   scripts/test.sh                  the quick tier (the README's test command): the
#                                    layout check (.clang-format), the function-size check,
#                                    then the `quick` preset: every test folder once with
#                                    g++ -Werror (the SIMD folders at -O2, the rest at -O0,
#                                    one unity unit per folder), the examples, the transformers
#                                    sweep's data, the docs' C++ blocks. No hygiene
#                                    checks, benchmarks, per-ISA units, package consumers,
#                                    sanitizers, Python, qemu or fuzzing: those are the full tier.
#   scripts/test.sh --full           the full matrix (.ci/run runs it after the quick tier):
#     1. `werror`: every target with g++ in the quick tier's build folder (build/test-gcc: what
#        the quick tier compiled is reused), plus the hygiene checks, the benchmarks (compiled,
#        not run), the package consumers, and each runtime-dispatch test once per ISA cap;
#     2. `asan`: clang++ with AddressSanitizer + UndefinedBehaviorSanitizer, -Werror, without
#        the per-ISA units (stage 1 runs those paths);
#     3. `tsan`: clang++ with ThreadSanitizer on the test files holding "*thread*" test cases;
#     4. scripts/check-isa-symbols.sh (`isa`, Debug), scripts/test-python.sh (`python`),
#        scripts/test-aarch64.sh (`aarch64`, qemu), scripts/check-cuda.sh (nvcc, where present);
#     5. scripts/fuzz.sh (`fuzz`): each libFuzzer target for POSENC_FUZZ_SECONDS (default 10).
#   scripts/test.sh --folder FOLDER...   the contributor loop (also spelled --quick FOLDER...):
#                                    g++ -Werror, build and run only tests/FOLDER/ in
#                                    build/quick; CXX=clang++ for clang (in build/quick-clang++).
# Builds use Ninja and ccache (scripts/install-deps.sh installs both). The optimised folders get
# one ctest entry per test file, <folder>:<file>, so ctest -j runs their slow files side by
# side. The AArch64 stage compiles tests/kernels as two units (POSENC_TEST_UNITY_SPLIT_FUSED)
# so that its one long unit does not leave a core idle; CONTRIBUTING.md and docs/benchmarks.md
# ("Test tiers") say where each stage's time goes.
set -euo pipefail
cd "$(dirname "$0")/.."

folders=()
tier=quick
case "${1:-}" in
  --quick|--folder)
    shift
    [ $# -gt 0 ] || { echo "usage: scripts/test.sh --folder FOLDER... (a folder of tests/, e.g. scaling)" >&2; exit 2; }
    for folder in "$@"; do
      folder="${folder#tests/}"; folder="${folder%/}"
      [ -d "tests/$folder" ] || { echo "scripts/test.sh: tests/$folder is not a folder" >&2; exit 2; }
      folders+=("$folder")
    done
    tier=folder ;;
  --full) shift; tier=full ;;
  "") ;;
  *) echo "usage: scripts/test.sh [--full | --folder FOLDER...]" >&2; exit 2 ;;
esac
[ $# -eq 0 ] || [ "$tier" = folder ] || { echo "usage: scripts/test.sh [--full | --folder FOLDER...]" >&2; exit 2; }

scripts/install-deps.sh
jobs="$(nproc)"
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
print_stage_times() {
  echo
  echo "=== posenc: $1 ==="
  for i in "${!stage_names[@]}"; do
    printf '  %-32s %4d s\n' "${stage_names[$i]}" "${stage_seconds[$i]}"
  done
  printf '  %-32s %4d s\n' "total" "$SECONDS"
}

if [ "$tier" = folder ]; then
  filter="$(printf '%s/|' "${folders[@]}")"; filter="${filter%|}"
  # One folder per compiler: switching CXX in one folder would make CMake drop its cache
  # (and with it the filter) and configure everything.
  cxx="${CXX:-g++}"
  dir=build/quick
  [ "$(basename "$cxx")" = g++ ] || dir="build/quick-$(basename "$cxx")"
  fresh_if_not_ninja "$dir"
  cmake --preset quick -B "$dir" -DCMAKE_CXX_COMPILER="$cxx" -DPOSENC_BUILD_EXAMPLES=OFF \
    -DPOSENC_TEST_DISPATCH=ON "-DPOSENC_TEST_FILTER=$filter" >/dev/null
  cmake --build "$dir" -j "$jobs"
  ctest --test-dir "$dir" --output-on-failure -j "$jobs"
  exit 0
fi

run_preset() {  # stage name, preset, then extra cmake arguments
  local name="$1" preset="$2"; shift 2
  begin_stage "$name"
  fresh_if_not_ninja "$(preset_dir "$preset")"
  cmake --preset "$preset" "$@" >/dev/null
  cmake --build --preset "$preset" -j "$jobs"
  ctest --preset "$preset" -j "$jobs"
  end_stage
}
preset_dir() {  # the binaryDir of a configure preset in CMakePresets.json
  python3 -c 'import json, sys
for p in json.load(open("CMakePresets.json"))["configurePresets"]:
    if p["name"] == sys.argv[1]: print(p["binaryDir"].replace("${sourceDir}/", ""))' "$1"
}

begin_stage "layout and function sizes"
scripts/check-format.sh                  # every C++ / CUDA file as .clang-format lays it out
python3 scripts/check-function-sizes.py  # no function of include/ over 60 lines or 8 parameters
end_stage

if [ "$tier" = quick ]; then
  run_preset "quick tier (g++)" quick
  print_stage_times "quick tier passed (the full matrix: scripts/test.sh --full)"
  exit 0
fi

run_preset "g++ (werror)" werror
run_preset "clang++ ASan + UBSan" asan

begin_stage "clang-tsan (threading tests)"
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
  dir="$(preset_dir tsan)"
  fresh_if_not_ninja "$dir"
  cmake --preset tsan "-DPOSENC_TEST_FILTER=$filter" >/dev/null
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

if [ -f scripts/check-cuda.sh ]; then
  begin_stage "check-cuda.sh"
  bash scripts/check-cuda.sh
  end_stage
fi

begin_stage "fuzzing"
scripts/fuzz.sh "${POSENC_FUZZ_SECONDS:-10}"
end_stage

print_stage_times "all stages passed"
