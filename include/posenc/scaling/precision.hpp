// SPDX-License-Identifier: MIT
// posenc/scaling/precision.hpp: the two precisions a scaled table and its angles come in.
//
//   Precision::exact       every inv_freq in double from the real-number formula; angles reduced
//                          exactly (angles.hpp). The default.
//   Precision::hf_float32  Hugging Face's float32 pipeline, one rounding per tensor operation in
//                          its operation order (float32_emulation.hpp; each method's header says
//                          which order), for bit-compatibility checks.
//
// The enum and the angle-level functions that take it (rotation_angle, the cos_sin overload with
// a Precision) live in the angles layer, posenc/angle_precision.hpp, included here.
#pragma once

#include "posenc/angle_precision.hpp"
