// SPDX-License-Identifier: MIT
// posenc/scaling/precision.hpp: the two precisions a scaled table and its angles come in.
//
//   Precision::exact       inv_freq in double from the real-number formula; the angle of
//                          (position, pair) is the exact product position * inv_freq reduced
//                          modulo 2pi (angles.hpp), cos/sin rounded once. Error < 5e-15.
//   Precision::hf_float32  Hugging Face's float32 pipeline, for bit-compatibility checks:
//                          inv_freq rounded to float32 in Hugging Face's operation order (each
//                          method's header says which), angle = fl(inv_freq (x) fl(position)),
//                          cos/sin = fl(cos angle) (x) fl(attention_factor)
//                          (LlamaRotaryEmbedding.forward, H9 (docs/formulas.md)).
//
// The enum and the angle-level functions that take it (rotation_angle, the cos_sin overload with
// a Precision) live in the angles layer, posenc/angle_precision.hpp, included here.
#pragma once

#include "posenc/angle_precision.hpp"
