#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The main job: build posenc-inspect and show what YaRN x4 does to each of Qwen3-8B's 64 RoPE
# frequency pairs (lesson C2-5): the table on the terminal, three SVG charts into build/demo/plots.
#   scripts/demo.sh                      posenc-inspect --preset qwen3-8b --scaling yarn --factor 4 --svg build/demo/plots
#   scripts/demo.sh ARGS...              posenc-inspect ARGS...   (e.g. --preset llama-3.1-8b --json)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# The `demo` preset (CMakePresets.json); a build/demo left by an older, non-Ninja configure starts over.
if [ -f build/demo/CMakeCache.txt ] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' build/demo/CMakeCache.txt; then rm -rf build/demo; fi
cmake --preset demo >/dev/null
cmake --build --preset demo -j "$(nproc)"
if [ $# -eq 0 ]; then
  set -- --preset qwen3-8b --scaling yarn --factor 4 --svg build/demo/plots
fi
build/demo/tools/posenc-inspect/posenc-inspect "$@"
