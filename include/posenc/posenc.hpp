// SPDX-License-Identifier: MIT
// posenc/posenc.hpp: umbrella header of the RoPE mathematics; includes only.
//
// Spec, frequency tables, exact angles, rotation matrices and the scalar reference apply,
// context-extension scalings, the per-pair diagnostics and paper bounds, model presets.
// Three parts have their own umbrella, so that a translation unit pays only for what it uses
// (compile times: docs/benchmarks.md):
//   <posenc/kernels.hpp>             the SIMD apply kernels (xsimd)
//   <posenc/encodings.hpp>           the classic encodings (sinusoidal, ALiBi, T5, ...)
//   <posenc/models/hf_config.hpp>    the Hugging Face config.json reader (nlohmann_json)
#pragma once

#include "posenc/config.hpp"
#include "posenc/error.hpp"
#include "posenc/spec.hpp"
#include "posenc/frequencies.hpp"
#include "posenc/angles.hpp"
#include "posenc/angle_precision.hpp"
#include "posenc/rotation.hpp"
#include "posenc/multi_axis.hpp"
#include "posenc/multimodal_positions.hpp"
#include "posenc/query_scale.hpp"
#include "posenc/rerotation.hpp"
#include "posenc/scaling/scaling.hpp"
#include "posenc/analysis/diagnostics.hpp"
#include "posenc/analysis/roformer_bound.hpp"
#include "posenc/analysis/pi_bound.hpp"
#include "posenc/analysis/base_bound.hpp"
#include "posenc/model_rope.hpp"
#include "posenc/context_lengths.hpp"
#include "posenc/models/presets.hpp"
