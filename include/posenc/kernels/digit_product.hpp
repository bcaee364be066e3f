// SPDX-License-Identifier: MIT
// posenc/kernels/digit_product.hpp: the scalar step of OnTheFlyAngles (on_the_fly_angles.hpp),
// shared with the CUDA kernels (posenc/cuda/angles.cuh).
//
// With |m| = d_0 + d_1 2^b + ... + d_{L-1} 2^{(L-1)b} and level k's table row of digit d_k
// holding C_k = a_k cos(d_k 2^{kb} theta_i) at [i] and S_k = a_k sin(...) at [sin_offset + i]
// (a_0 the attention factor, a_k = 1 above), angle addition gives
//
//     a cos(|m| theta_i) + j a sin(|m| theta_i) = prod_k (C_k + j S_k),
//
// evaluated in double, level 0 first, one complex product per further level. Error: the table
// entries' (< 5e-15 a each) plus < 3 * 2^-53 relative per product; < L * 6e-15 a in all.
#pragma once

#include <cstddef>

#include "posenc/angles.hpp"
#include "posenc/detail/host_device.hpp"

namespace posenc::kernels::detail {

/// prod_k (rows[k][j] + i rows[k][sin_offset + j]) for k in [0, levels), in double; see the file
/// comment. Templated on a tag only so that each per-ISA translation unit (dispatch.hpp) gets a
/// copy of its own. Preconditions: 1 <= levels <= 4; each rows[k] addresses a full table row.
template <class Tag>
POSENC_HD inline CosSin digit_product(const double* const* rows, int levels, std::ptrdiff_t sin_offset,
                                      std::ptrdiff_t j) noexcept
{
    double c = rows[0][j];
    double s = rows[0][sin_offset + j];
    for (int k = 1; k < 4; ++k) {  // a constant trip count: unrolled, rows[k] stays in registers on the device
        if (k >= levels) break;
        const double ck = rows[k][j];
        const double sk = rows[k][sin_offset + j];
        const double next_c = c * ck - s * sk;
        s = s * ck + c * sk;
        c = next_c;
    }
    return {c, s};
}

}  // namespace posenc::kernels::detail
