#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Debian 12 packages posenc's build, tests and tools need, when any is missing.
# Must run as root (or with sudo available). Idempotent: does nothing when all are present.
set -euo pipefail

# build: cmake, Ninja, ccache, g++, clang (+ its sanitizer and libFuzzer runtimes), clang-format
# (the layout check, scripts/check-format.sh), pkg-config
# (the installed-package test); library: Eigen, xsimd; tests, benchmarks, posenc-inspect:
# doctest, Google Benchmark, nlohmann_json, xmllint; the Python module and the reference
# scripts: Python headers, pybind11, numpy, pytest, mpmath; the pip route: venv, build,
# setuptools; the charts' PNG check: librsvg2-bin; posenc.torch's tests (gradcheck, the drop-in)
# and the long-context example's chart: PyTorch and matplotlib (those tests skip cleanly where the
# two are absent, so a consumer's machine may go without them); the AArch64 stage
# (scripts/test-aarch64.sh): the cross compiler, qemu's user-mode emulator, and `file`. The
# aarch64 stage's build check of the Python module needs Debian's arm64 Python headers
# (libpython3.11-dev:arm64): the script enables the arm64 architecture in dpkg (multiarch:
# `dpkg --add-architecture arm64`, then arm64 package lists from the same mirror) and installs
# them with the rest.
packages=(cmake ninja-build ccache make g++ clang libclang-rt-dev clang-format pkg-config
          g++-aarch64-linux-gnu qemu-user file
          libeigen3-dev libxsimd-dev
          doctest-dev libbenchmark-dev nlohmann-json3-dev libxml2-utils
          python3-dev pybind11-dev python3-numpy python3-pytest python3-mpmath
          python3-venv python3-build python3-setuptools librsvg2-bin
          python3-torch python3-matplotlib)

packages+=(libpython3.11-dev:arm64)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "posenc: installing missing Debian packages: ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $sudo dpkg --add-architecture arm64
fi
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
