// SPDX-License-Identifier: MIT
// posenc/detail/pair_rotation.hpp: rotate_pair, the one scalar rotation of a pair (a, b) that
// every scalar path of posenc calls: apply_rope_reference (rotation.hpp), the multi-axis
// reference (multi_axis.hpp), rerotation (rerotation.hpp), the kernels' double-storage reference
// paths (kernels/detail/rope_loops.hpp, fused_loops.hpp) and the CUDA kernel's pair loop
// and its norm-weighted form (cuda/detail/rope_kernel_body.cuh, also compiled on the host by
// cuda/emulation.hpp).
//
// RoFormer (Su et al. 2021, arXiv 2104.09864) eq. 34, with (c, s) = (cos, sin) of the pair's
// angle (times the attention factor where the caller applies one):
//
//     a' = a c - b s,   b' = b c + a s
//
// evaluated in R (float or double) exactly as written: two products and one sum per
// coordinate, the products rounded as the compiler's contraction rules allow (the same for
// every caller, since the expression is the same). The SIMD kernels evaluate the same formula
// in registers (kernels/detail/rotation_skeleton.hpp); docs/formulas.md, "Kernels", bounds the
// error of both.
#pragma once

#include "posenc/detail/host_device.hpp"

namespace posenc::detail {

/// The two coordinates of a rotated pair.
template <class R>
struct RotatedPair {
    R first;  ///< a c - b s
    R second;  ///< b c + a s
};

/// The pair (a, b) with its own coefficients for each coordinate:
/// (a first_cos - b first_sin, b second_cos + a second_sin). The two pairs of coefficients
/// differ where a multi-axis layout gives a pair's coordinates to two axes (multi_axis.hpp,
/// partner_axis_of_pair) and where norm weights are folded into them (the CUDA kernel's
/// qk_norm_rope: c w_a, s w_b, c w_b, s w_a); neither map is a rotation. Every other caller
/// passes one angle (the overload below).
template <class R>
POSENC_HD constexpr RotatedPair<R> rotate_pair(R a, R b, R first_cos, R first_sin, R second_cos, R second_sin) noexcept
{
    return {a * first_cos - b * first_sin, b * second_cos + a * second_sin};
}

/// The pair (a, b) rotated by the angle of cosine c and sine s: (a c - b s, b c + a s).
template <class R>
POSENC_HD constexpr RotatedPair<R> rotate_pair(R a, R b, R c, R s) noexcept
{
    return rotate_pair(a, b, c, s, c, s);
}

}  // namespace posenc::detail
