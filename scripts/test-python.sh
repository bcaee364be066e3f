#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Python package's tests (docs/python.md):
#   1. configure and build the module (Ninja, ccache when present) with POSENC_BUILD_PYTHON=ON;
#   2. run pytest on python/tests with that module (in the background, beside steps 3 and 4's
#      first install; checked before the pip route); exit status 5 ("no tests collected") fails;
#   3. the checked-in type stubs equal a fresh generation from that module
#      (scripts/generate-stubs.py --check); the Python code blocks of README.md and docs/*.md run
#      with that module (scripts/check-doc-examples.py --lang python);
#   4. the install routes, from a clone of this checkout's committed state in a temporary
#      directory: `cmake --install --component python` into a temporary prefix, imported from
#      outside any source tree; then `pip install --no-build-isolation` of the clone into a fresh
#      venv (--system-site-packages: Debian's numpy and pytest), where the README's acceptance line
#      must print 24 and the pytest suite runs against the installed package; then
#      `python3 -m build --no-isolation --wheel` of the clone. Every build passes the same CMake
#      arguments, so ccache turns the later builds into cache hits and links.
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
# The `python` preset (CMakePresets.json) with this interpreter; extra arguments on top.
configure_args=(--preset python "-DPython3_EXECUTABLE=${python}" "${launcher[@]}" "$@")

# Paths below the source root are hashed relative to it, so the clone's build below reuses
# this build's cache entries.
build_module() {
  local source="$1" build="$2"; shift 2
  CCACHE_BASEDIR="$source" cmake -S "$source" -B "$build" "${configure_args[@]}" "$@" >/dev/null
  CCACHE_BASEDIR="$source" cmake --build "$build" -j "$jobs" --target posenc_python
}

echo "=== posenc Python module: build ==="
build_module "$root" "$root/$build_dir"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# pytest on the built module runs on one core, beside the docs' blocks and the clone's build
# (mostly ccache hits); its output is printed, and its status checked, before the pip route.
PYTHONPATH="$root/$build_dir/python" "$python" -m pytest -q -p no:cacheprovider python/tests >"$tmp/pytest.log" 2>&1 &
pytest_pid=$!

echo "=== posenc Python module: the type stubs against a fresh generation ==="
"$python" scripts/generate-stubs.py --check --python-path "$root/$build_dir/python"

echo "=== posenc Python module: the docs' Python blocks ==="
"$python" scripts/check-doc-examples.py --lang python --python-path "$root/$build_dir/python"

echo "=== posenc Python module: install from a fresh clone ==="
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

echo "=== posenc Python module: pytest (the module built in $build_dir) ==="
status=0
wait "$pytest_pid" || status=$?
cat "$tmp/pytest.log"
if [ "$status" -eq 5 ]; then
  echo "test-python.sh: pytest collected no tests" >&2
  exit 1
elif [ "$status" -ne 0 ]; then
  exit "$status"
fi

echo "=== posenc Python module: pip install --no-build-isolation into a fresh venv ==="
"$python" -m venv --system-site-packages "$tmp/venv"
cmake_args="$(printf '%q ' "${configure_args[@]}")"
POSENC_CMAKE_ARGS="$cmake_args" POSENC_BUILD_JOBS="$jobs" \
  "$tmp/venv/bin/python" -m pip install -q --no-index --no-build-isolation "$tmp/src"
venv_site="$("$tmp/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
cd "$tmp"
result="$("$tmp/venv/bin/python" -c "import posenc; print(posenc.frequency_table(posenc.presets.qwen3_8b()).count_without_full_turn(32768))")"
where="$("$tmp/venv/bin/python" -c "import posenc; print(posenc.__file__)")"
case "$where" in
  "$venv_site"/*) ;;
  *) echo "test-python.sh: the venv imported posenc from $where, not from its site-packages $venv_site" >&2; exit 1 ;;
esac
[ "$result" = 24 ] || { echo "test-python.sh: after pip install the acceptance line printed '$result', expected 24" >&2; exit 1; }
status=0
POSENC_EXPECT_INSTALLED="$venv_site" "$tmp/venv/bin/python" -m pytest -q -p no:cacheprovider "$root/python/tests" || status=$?
[ "$status" -eq 0 ] || { echo "test-python.sh: pytest against the pip-installed package failed ($status)" >&2; exit 1; }
echo "pip-installed package at $venv_site imports; acceptance line prints $result; pytest passes against it"

echo "=== posenc Python module: python3 -m build --no-isolation --wheel ==="
(cd "$tmp/src" && POSENC_CMAKE_ARGS="$cmake_args" POSENC_BUILD_JOBS="$jobs" \
  "$python" -m build --no-isolation --wheel --outdir "$tmp/dist" . >/dev/null)
wheel="$(ls "$tmp"/dist/posenc-*.whl)"
"$python" -m zipfile -l "$wheel" | grep 'posenc/_posenc.*\.so' >/dev/null || { echo "test-python.sh: $wheel holds no native module" >&2; exit 1; }
echo "wheel $(basename "$wheel") holds the native module"
