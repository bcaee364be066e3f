# SPDX-License-Identifier: MIT
# CMake toolchain file: cross-compile posenc for AArch64 Linux on a Debian x86-64 host with
# Debian's g++-aarch64-linux-gnu (libraries and C/C++ headers in /usr/aarch64-linux-gnu) and run
# the results with qemu-user (scripts/test-aarch64.sh):
#
#   cmake -S . -B build/aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
#
# posenc's dependencies are header-only (Eigen, xsimd, doctest) and their headers are the same
# for every architecture, so the host's installed copies and CMake package files serve. Debian's
# cross compiler searches the host's /usr/include after the target's own folders, so only what
# those lack, the header-only libraries, is taken from it (and /usr/include being one of its
# implicit folders, CMake never passes it with -isystem, ahead of the target's C library).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /usr/aarch64-linux-gnu)
# Debian's libxsimd-dev puts its (architecture-independent) package file in the host's
# multiarch folder, which a cross build does not search.
if(NOT DEFINED xsimd_DIR AND EXISTS /usr/lib/x86_64-linux-gnu/cmake/xsimd)
  set(xsimd_DIR /usr/lib/x86_64-linux-gnu/cmake/xsimd CACHE PATH "xsimd's CMake package folder (header-only: the host's)")
endif()
