#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Debian 12 packages posenc's build, tests and tools need, when any is missing.
# Must run as root (or with sudo available). Idempotent: does nothing when all are present.
set -euo pipefail

packages=(cmake make g++ clang libclang-rt-dev libeigen3-dev libxsimd-dev doctest-dev libbenchmark-dev nlohmann-json3-dev
          libxml2-utils)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "posenc: installing missing Debian packages: ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
