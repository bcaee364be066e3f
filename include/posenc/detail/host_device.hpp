// SPDX-License-Identifier: MIT
// posenc/detail/host_device.hpp: POSENC_HD, the mark of a scalar function that CUDA device code
// may call too (the exact angle reduction, the digit products, the storage conversions).
//
// Under nvcc (__CUDACC__) POSENC_HD is `__host__ __device__`; under any other compiler it is
// empty, so the CPU build sees exactly the functions it always saw. A POSENC_HD function calls
// only other POSENC_HD functions, the C math functions (fma, nearbyint, cos, sin, sqrt, which
// CUDA provides on the device) and memcpy.
#pragma once

#if defined(__CUDACC__)
#define POSENC_HD __host__ __device__
#else
#define POSENC_HD
#endif
