#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Python package's tests (docs/python.md):
#   1. configure and build the module (Ninja, ccache when present) with POSENC_BUILD_PYTHON=ON;
#   2. run pytest on python/tests with that module; exit status 5 ("no tests collected") fails;
#   3. the install route: clone this checkout's committed state into a temporary directory, build
#      and `cmake --install` it into a temporary prefix, then import posenc from outside any source
#      tree with the README's PYTHONPATH line and check the README's acceptance line prints 24.
# The interpreter is $POSENC_PYTHON, default /usr/bin/python3 (Debian's, with numpy and pytest;
# torch tests skip with their reason when torch is absent). Extra arguments go to both configures
# (e.g. -DCMAKE_CXX_COMPILER=clang++, with POSENC_PYTHON_BUILD_DIR=build/python-tests-clang).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
python="${POSENC_PYTHON:-/usr/bin/python3}"
jobs="$(nproc)"
build_dir="${POSENC_PYTHON_BUILD_DIR:-build/python-tests}"  # e.g. build/python-tests-clang with -DCMAKE_CXX_COMPILER=clang++

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
configure_args=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DPOSENC_BUILD_PYTHON=ON -DPOSENC_BUILD_TESTS=OFF
  -DPOSENC_BUILD_EXAMPLES=OFF -DPOSENC_BUILD_BENCHMARKS=OFF -DPOSENC_HYGIENE_CHECKS=OFF
  "-DPython3_EXECUTABLE=${python}" "${launcher[@]}" "$@")

# Paths below the source root are hashed relative to it, so the clone's build below reuses
# this build's cache entries.
build_module() {
  local source="$1" build="$2"; shift 2
  CCACHE_BASEDIR="$source" cmake -S "$source" -B "$build" "${configure_args[@]}" "$@" >/dev/null
  CCACHE_BASEDIR="$source" cmake --build "$build" -j "$jobs" --target posenc_python
}

echo "=== posenc Python module: build ==="
build_module "$root" "$root/$build_dir"

echo "=== posenc Python module: pytest ==="
status=0
PYTHONPATH="$root/$build_dir/python" "$python" -m pytest -q -p no:cacheprovider python/tests || status=$?
if [ "$status" -eq 5 ]; then
  echo "test-python.sh: pytest collected no tests" >&2
  exit 1
elif [ "$status" -ne 0 ]; then
  exit "$status"
fi

echo "=== posenc Python module: install from a fresh clone ==="
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
git clone -q "$root" "$tmp/src"
build_module "$tmp/src" "$tmp/src/$build_dir" -DCMAKE_INSTALL_PREFIX="$tmp/prefix"
cmake --install "$tmp/src/$build_dir" --component python >/dev/null
site="$tmp/prefix/$("$python" -c 'import sys; print("lib/python%d.%d/site-packages" % sys.version_info[:2])')"
cd "$tmp"
result="$(PYTHONPATH="$site" "$python" -c "import posenc; print(posenc.frequency_table(posenc.presets.qwen3_8b()).count_without_full_turn(32768))")"
where="$(PYTHONPATH="$site" "$python" -c "import posenc; print(posenc.__file__)")"
case "$where" in
  "$site"/*) ;;
  *) echo "test-python.sh: imported posenc from $where, not from the install prefix" >&2; exit 1 ;;
esac
if [ "$result" != 24 ]; then
  echo "test-python.sh: the acceptance line printed '$result', expected 24" >&2
  exit 1
fi
echo "installed package at $site imports; acceptance line prints $result"
