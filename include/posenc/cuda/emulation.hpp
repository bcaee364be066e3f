// SPDX-License-Identifier: MIT
// posenc/cuda/emulation.hpp: runs a planned CUDA launch on the CPU, every block and thread of
// the grid, through the same kernel body the device runs (rope_kernel.cuh).
//
// Per block: a fresh BlockShared filled with 0xFF bytes (NaN floats, so a read of a value no
// phase wrote shows up), then for each phase every thread of the block in turn (forward or
// reverse order): the CPU form of "phase, __syncthreads(), next phase". The kernels use no
// warp-level primitives, so a block's threads are all the emulation has to model; running the
// threads in both orders shows that no phase reads what another thread writes in it.
// For tests (tests/cuda) and for reading the kernels: one thread at a time, not fast.
#pragma once

#include <cstdint>
#include <cstring>

#include "posenc/cuda/launch.cuh"

namespace posenc::cuda {

/// Order in which the emulation runs a block's threads within a phase.
enum class ThreadOrder { forward, reverse };

/// Runs `plan` (one of launch.cuh's plans) on the CPU; see the file comment.
template <class Kernel>
void emulate(const Launch<Kernel>& plan, ThreadOrder order = ThreadOrder::forward)
{
    BlockShared shared;
    for (std::int64_t b = 0; b < plan.blocks; ++b) {
        std::memset(static_cast<void*>(&shared), 0xFF, sizeof shared);
        for (int phase = 0; phase < Kernel::phases; ++phase)
            for (int j = 0; j < plan.threads; ++j) {
                const int thread = order == ThreadOrder::forward ? j : plan.threads - 1 - j;
                plan.kernel(phase, ThreadIndex {b, thread, plan.threads}, shared);
            }
    }
}

}  // namespace posenc::cuda
