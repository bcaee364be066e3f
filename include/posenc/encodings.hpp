// SPDX-License-Identifier: MIT
// posenc/encodings.hpp: every classic positional encoding the lessons walk through; includes only.
// Timeline of lessons C2-2 / C2-5 (docs/lessons.md), generation by generation:
#pragma once

#include "posenc/encodings/attention.hpp"  // the tiny single-head attention they are shown on
#include "posenc/encodings/nope.hpp"  // 0: no position; permutation equivariance
#include "posenc/encodings/additive_index.hpp"  // naive 1: x = e + p*1
#include "posenc/encodings/normalized_index.hpp"  // naive 2: t / (T - 1)
#include "posenc/encodings/learned_table.hpp"  // 1: learned absolute table (GPT-2)
#include "posenc/encodings/sinusoidal.hpp"  // 1': sinusoidal (Vaswani 2017)
#include "posenc/encodings/shaw_relative.hpp"  // 2: clipped relative positions (Shaw 2018)
#include "posenc/encodings/t5_buckets.hpp"  // 2: T5 relative buckets (Raffel 2020)
#include "posenc/encodings/alibi.hpp"  // ALiBi linear biases (Press 2021)
