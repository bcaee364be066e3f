// SPDX-License-Identifier: MIT
// posenc/posenc.hpp: umbrella header; includes only.
#pragma once

#include "posenc/config.hpp"
#include "posenc/error.hpp"
#include "posenc/spec.hpp"
#include "posenc/frequencies.hpp"
#include "posenc/angles.hpp"
#include "posenc/rotation.hpp"
#include "posenc/scaling/scaling.hpp"
#include "posenc/analysis/diagnostics.hpp"
#include "posenc/analysis/roformer_bound.hpp"
#include "posenc/analysis/pi_bound.hpp"
#include "posenc/analysis/base_bound.hpp"
#include "posenc/models/presets.hpp"
#include "posenc/encodings.hpp"
#include "posenc/kernels.hpp"
