// SPDX-License-Identifier: MIT
// The doctest runner, compiled once and linked into every test executable (one per folder of
// tests/, see tests/CMakeLists.txt). Test files are grouped by source of truth:
//   lessons/     numbers printed in the lesson pages (docs/lessons.md)
//   reference/   Hugging Face and paper test vectors, provenance in each file
//   identities/  exact mathematical identities (rotation group, composition, inverse)
//   kernels/     fast paths against the scalar reference
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
