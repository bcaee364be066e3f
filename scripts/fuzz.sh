#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the libFuzzer targets (clang, ASan + UBSan) and runs each for SECONDS (default 10)
# on a scratch copy of its committed seed corpus, up to one target per core at a time. Exit
# status non-zero on any finding.
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"; shift || true
scripts/install-deps.sh
dir=build/fuzz  # the `fuzz` preset's folder (CMakePresets.json)
if [ -f "$dir/CMakeCache.txt" ] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$dir/CMakeCache.txt"; then rm -rf "$dir"; fi
cmake --preset fuzz >/dev/null
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for c in tests/fuzz/corpus/*/; do targets+=("$(basename "$c")"); done
fi
cmake --build "$dir" -j "$(nproc)" --target $(printf 'fuzz_%s ' "${targets[@]}")
# The targets run side by side (one per core at most), each for SECONDS; results in target order.
jobs="$(nproc)"
run_target() {
  local t="$1" work="$dir/corpus-$1"
  rm -rf "$work" && mkdir -p "$work" && cp tests/fuzz/corpus/"$t"/* "$work"/
  "$dir/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$dir/crash-$t-" \
    "$work" >"$dir/fuzz-$t.log" 2>&1
}
declare -A pid_of=()
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  echo "=== fuzz_$t for ${seconds}s ==="
  run_target "$t" &
  pid_of[$t]=$!
done
failed=0
for t in "${targets[@]}"; do
  rc=0
  wait "${pid_of[$t]}" || rc=$?
  echo "--- fuzz_$t ---"
  grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==ERROR|SUMMARY|Done)" "$dir/fuzz-$t.log" || true
  if [ "$rc" -ne 0 ]; then
    tail -40 "$dir/fuzz-$t.log"
    echo "fuzz_$t found a problem (exit $rc): see $dir/crash-$t-*"
    failed=1
  fi
done
exit "$failed"
