// SPDX-License-Identifier: MIT
// posenc/kernels.hpp: the SIMD apply kernels; includes only.
//
// Runtime dispatch (one binary, SSE4.2 / AVX2 / AVX-512 chosen at run time) is
// posenc/kernels/dispatch.hpp, included separately because it needs the per-ISA translation
// units that the CMake helper posenc_add_dispatch() adds to a target (docs/kernels.md).
#pragma once

#include "posenc/kernels/dtypes.hpp"
#include "posenc/kernels/views.hpp"
#include "posenc/kernels/angle_source.hpp"
#include "posenc/kernels/angle_cache.hpp"
#include "posenc/kernels/on_the_fly_angles.hpp"
#include "posenc/kernels/apply.hpp"
#include "posenc/kernels/multi_axis_positions.hpp"
#include "posenc/kernels/multi_axis.hpp"
#include "posenc/kernels/partition.hpp"
#include "posenc/kernels/quantize.hpp"
#include "posenc/kernels/kv_cache_view.hpp"
#include "posenc/kernels/qk_norm_rope.hpp"
#include "posenc/kernels/kv_cache_write.hpp"
#include "posenc/kernels/fused_multi_axis.hpp"
