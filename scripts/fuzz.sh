#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the libFuzzer targets (clang, ASan + UBSan) and runs each for SECONDS (default 10)
# on a scratch copy of its committed seed corpus. Exit status non-zero on any finding.
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"; shift || true
scripts/install-deps.sh
dir=build/fuzz
generator=(-G Ninja)
if [ -f "$dir/CMakeCache.txt" ]; then
  grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$dir/CMakeCache.txt" && generator=() || rm -rf "$dir"
fi
cmake -S . -B "$dir" "${generator[@]}" -DPOSENC_WERROR=ON -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O0 -DNDEBUG" -DCMAKE_CXX_COMPILER=clang++ -DPOSENC_BUILD_FUZZERS=ON \
  -DPOSENC_BUILD_BENCHMARKS=OFF -DPOSENC_BUILD_EXAMPLES=OFF -DPOSENC_HYGIENE_CHECKS=OFF >/dev/null
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for c in tests/fuzz/corpus/*/; do targets+=("$(basename "$c")"); done
fi
cmake --build "$dir" -j "$(nproc)" --target $(printf 'fuzz_%s ' "${targets[@]}")
for t in "${targets[@]}"; do
  work="$dir/corpus-$t"
  rm -rf "$work" && mkdir -p "$work" && cp tests/fuzz/corpus/"$t"/* "$work"/
  echo "=== fuzz_$t for ${seconds}s ==="
  rc=0
  "$dir/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$dir/crash-$t-" \
    "$work" >"$dir/fuzz-$t.log" 2>&1 || rc=$?
  grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==ERROR|SUMMARY|Done)" "$dir/fuzz-$t.log" || true
  if [ "$rc" -ne 0 ]; then
    tail -40 "$dir/fuzz-$t.log"
    echo "fuzz_$t found a problem (exit $rc): see $dir/crash-$t-*"
    exit 1
  fi
done
