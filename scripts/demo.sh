#!/usr/bin/env bash
# The main job: build posenc-demo and print the Qwen3-8B frequency table and turn counts.
# Extra arguments go to the demo (e.g. `scripts/demo.sh course-small 128`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build/demo -DCMAKE_BUILD_TYPE=Release -DPOSENC_BUILD_TESTS=OFF -DPOSENC_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build/demo --target posenc-demo -j "$(nproc)"
build/demo/examples/posenc-demo "$@"
