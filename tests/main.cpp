// SPDX-License-Identifier: MIT
// The doctest runner for the whole suite. Test files are grouped by source of truth:
//   lessons/     numbers printed in the lesson pages (shared/seeds)
//   reference/   Hugging Face and paper test vectors, provenance in each file
//   identities/  exact mathematical identities (rotation group, composition, inverse)
//   kernels/     fast paths against the scalar reference
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
