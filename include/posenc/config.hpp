// SPDX-License-Identifier: MIT
// posenc/config.hpp: version and settings.
//
// Settings (define before including any posenc header):
//   POSENC_ASSERT(cond)   internal-invariant and unchecked-entry-point check.
//                         Default: assert(cond) from <cassert>, so it compiles out
//                         under NDEBUG. Define it yourself to route it elsewhere.
//
// User errors (bad specs, bad shapes) never go through POSENC_ASSERT: they
// throw posenc::error (see error.hpp), in every build mode.
#pragma once

// posenc needs C++17 (inline variables, if constexpr, std::optional, hexadecimal float literals).
// Below it, stop here with one clear message instead of a cascade of unrelated syntax errors.
// MSVC reports 199711L in __cplusplus unless /Zc:__cplusplus is given; _MSVC_LANG is exact.
#if defined(_MSVC_LANG) && !defined(__clang__)
#if _MSVC_LANG < 201703L
#error "posenc needs C++17 or later: compile with /std:c++17 (or link the CMake target posenc::posenc)"
#endif
#elif __cplusplus < 201703L
#error "posenc needs C++17 or later: compile with -std=c++17 (or link the CMake target posenc::posenc)"
#endif

#define POSENC_VERSION_MAJOR 0
#define POSENC_VERSION_MINOR 1
#define POSENC_VERSION_PATCH 0

/// major * 10000 + minor * 100 + patch
#define POSENC_VERSION (POSENC_VERSION_MAJOR * 10000 + POSENC_VERSION_MINOR * 100 + POSENC_VERSION_PATCH)

#ifndef POSENC_ASSERT
#include <cassert>
#define POSENC_ASSERT(cond) assert(cond)
#endif

/// Forces inlining of small helpers on hot paths (the kernels' per-register and per-head code, the
/// checked entry points' inline test of the usual call): a call per head or per check costs as
/// much as the work itself at decode sizes.
#if defined(__GNUC__) || defined(__clang__)
#define POSENC_ALWAYS_INLINE inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define POSENC_ALWAYS_INLINE __forceinline
#else
#define POSENC_ALWAYS_INLINE inline
#endif

/// Keeps a cold path (an error's message building) out of its callers, so that their usual path
/// carries no stack frame for it.
#if defined(__GNUC__) || defined(__clang__)
#define POSENC_NOINLINE __attribute__((noinline))
#elif defined(_MSC_VER)
#define POSENC_NOINLINE __declspec(noinline)
#else
#define POSENC_NOINLINE
#endif

#define POSENC_DETAIL_STR_(x) #x
#define POSENC_DETAIL_STR(x) POSENC_DETAIL_STR_(x)

namespace posenc {

/// The library version as "major.minor.patch", built from the macros above.
inline constexpr const char* version_string = POSENC_DETAIL_STR(POSENC_VERSION_MAJOR) "." POSENC_DETAIL_STR(
    POSENC_VERSION_MINOR) "." POSENC_DETAIL_STR(POSENC_VERSION_PATCH);

}  // namespace posenc
