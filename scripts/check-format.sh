#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks that every C++ and CUDA file git tracks is laid out as .clang-format says (clang-format
# 14, Debian 12's). `scripts/check-format.sh --fix` rewrites the files in place instead.
set -euo pipefail
cd "$(dirname "$0")/.."
format="$(command -v clang-format-14 || command -v clang-format || true)"
[ -n "$format" ] || { echo "scripts/check-format.sh: clang-format not found (Debian: apt-get install clang-format)" >&2; exit 2; }
mapfile -t files < <(git ls-files '*.hpp' '*.cpp' '*.h' '*.cuh' '*.cu')
[ ${#files[@]} -gt 0 ] || { echo "scripts/check-format.sh: no C++ files found (not a git checkout?)" >&2; exit 2; }
if [ "${1:-}" = --fix ]; then
  "$format" -i "${files[@]}"
  exit 0
fi
if ! "$format" --dry-run --Werror "${files[@]}" 2>/tmp/posenc-format.$$; then
  grep -E '^[^ ]+:[0-9]+:[0-9]+: (error|warning)' /tmp/posenc-format.$$ | cut -d: -f1 | sort | uniq -c \
    | awk '{ printf "  %s (%d lines)\n", $2, $1 }' >&2
  rm -f /tmp/posenc-format.$$
  echo "scripts/check-format.sh: the files above differ from .clang-format; scripts/check-format.sh --fix rewrites them" >&2
  exit 1
fi
rm -f /tmp/posenc-format.$$
echo "scripts/check-format.sh: ${#files[@]} files match .clang-format"
