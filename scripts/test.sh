#!/usr/bin/env bash
# The whole test suite: installs what is missing, then for g++ and clang++ configures, builds
# every target (library tests, examples, benchmarks) with warnings as errors and runs ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs="$(nproc)"

for compiler in g++ clang++; do
  dir="build/test-${compiler}"
  echo "=== posenc tests with ${compiler} ==="
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$compiler"
  cmake --build "$dir" -j "$jobs"
  ctest --test-dir "$dir" --output-on-failure -j "$jobs"
done
