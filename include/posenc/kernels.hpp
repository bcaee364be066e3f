// SPDX-License-Identifier: MIT
// posenc/kernels.hpp: the SIMD apply kernels; includes only.
//
// Runtime dispatch (one binary, SSE4.2 / AVX2 / AVX-512 chosen at run time) is
// posenc/kernels/dispatch.hpp, included separately because it needs the per-ISA translation
// units that the CMake helper posenc_add_dispatch() adds to a target (docs/kernels.md).
#pragma once

#include "posenc/kernels/dtypes.hpp"
#include "posenc/kernels/views.hpp"
#include "posenc/kernels/angle_row.hpp"
#include "posenc/kernels/angle_cache.hpp"
#include "posenc/kernels/angle_source.hpp"
#include "posenc/kernels/simd_ops.hpp"
#include "posenc/kernels/checks.hpp"
#include "posenc/kernels/apply.hpp"
#include "posenc/kernels/partition.hpp"
