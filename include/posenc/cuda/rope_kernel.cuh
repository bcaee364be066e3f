// SPDX-License-Identifier: MIT
// posenc/cuda/rope_kernel.cuh: the body of every CUDA kernel of posenc (apply, QK-norm + RoPE,
// RoPE into a paged KV cache, multi-axis RoPE) as host-device code.
//
// Grid. One block per (token, group of heads_per_block heads), blocks = tokens x head_groups,
// heads_per_block x 32 threads. The heads of a token are numbered Q first, then K, then V
// (V only when writing a cache): [q_0 .. q_{Hq-1} | k_0 .. k_{Hk-1} | v_0 .. v_{Hv-1}]; block
// (t, g) takes heads g * heads_per_block + w for its 32-thread groups w ("head lanes"; nothing
// here is a warp-level primitive, so nothing depends on the hardware's warp size).
//
// Phases, separated by a block barrier (__syncthreads on the device; the CPU emulation runs
// every thread of a block through phase p before any thread starts phase p + 1):
//   0  angles: thread j fills shared cos/sin of pairs j, j + threads, ... at the token's
//      position (multi-axis: at the position of the pair's axis); inverse negates sin.
//   1  norm sums (QK-norm only): lane l of head w sums x_d^2 for d = l, l + 32, ... < head_dim
//      into shared partial[w][l].
//   2  rotate and store: lane l of head w reads its head's 32 partial sums in order (sum,
//      r = 1 / sqrt(sum / n + eps)), then writes pass-through dims d = l, l + 32, ... and rotated
//      pairs i = l, l + 32, ... (apply.hpp's formula; qk_norm_rope.hpp's reassociated one with
//      the norm), to the output view, or to the cache row of the token's slot.
// No thread reads in a phase what another thread writes in that phase, so the result does not
// depend on the order of threads (tests/cuda run the emulation in both orders and compare bits).
//
// What cannot be checked before the launch without reading device memory is checked here, per
// token, and reported in *status (a device word the caller owns, bits of KernelStatus, OR-ed
// atomically): a position the angle source does not serve (the token is left untouched), a slot
// outside the cache, a per-head cache scale not finite and > 0 (that row is not written).
// Nothing is read or written out of bounds either way.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "posenc/cuda/angles.cuh"
#include "posenc/detail/host_device.hpp"
#include "posenc/detail/pair_rotation.hpp"
#include "posenc/kernels/dtypes.hpp"
#include "posenc/kernels/kv_cache_view.hpp"
#include "posenc/kernels/multi_axis_positions.hpp"
#include "posenc/kernels/quantize.hpp"
#include "posenc/kernels/views.hpp"

namespace posenc::cuda {

using kernels::CacheLayout;
using kernels::CacheStorage;
using kernels::HeadsView;
using kernels::KvCacheView;
using kernels::MultiAxisPositions;
using kernels::PositionIds;
using kernels::SlotMapping;

inline constexpr int head_lanes = 32;  ///< threads per head
inline constexpr int max_heads_per_block = 8;  ///< up to 256 threads per block
inline constexpr int max_device_pairs = 256;  ///< rotary_dim <= 512

/// Bits of the status word; see the file comment.
enum KernelStatus : unsigned {
    status_ok = 0,
    status_position_outside_angles = 1,  ///< some token's position is outside the angle source
    status_slot_outside_cache = 2,  ///< some token's slot is neither -1 nor in [0, slots)
    status_invalid_cache_scale = 4,  ///< some per-head cache scale is not finite and > 0
};

/// ORs `bit` into *status (atomically on the device).
POSENC_HD inline void report(unsigned* status, unsigned bit) noexcept
{
#if defined(__CUDA_ARCH__)
    atomicOr(status, bit);
#else
    *status |= bit;
#endif
}

/// What one block shares between its phases.
struct BlockShared {
    float cos[max_device_pairs];
    float sin[max_device_pairs];
    float partial[max_heads_per_block][head_lanes];
};

/// Where a thread is: block, thread within it, threads per block.
struct ThreadIndex {
    std::int64_t block;
    int thread;
    int threads;
};

enum class KernelMode { rope, norm_rope, multi_axis };

/// Everything one launch reads; built on the host by launch.cuh's plans (which check it).
template <class T, class Angles>
struct RopeArgs {
    Angles angles {};
    int head_dim = 0, rotary_dim = 0, rotary_offset = 0;
    bool interleaved = false;
    bool inverse = false;
    PositionIds positions = PositionIds::contiguous(0);
    MultiAxisPositions axis_positions =
        MultiAxisPositions::strided(static_cast<const std::int32_t*>(nullptr), 0, 0, 1, 0, 0);
    unsigned char axis_of_pair[max_device_pairs] = {};
    HeadsView<const T> q_in, k_in, v_in;
    HeadsView<T> q_out, k_out;
    bool norm = false;
    float eps = 0.0f, weight_offset = 0.0f;
    const float* q_weight = nullptr;
    const float* k_weight = nullptr;
    bool to_cache = false;
    KvCacheView key_cache, value_cache;
    SlotMapping slots;
    int q_heads = 0, k_heads = 0, v_heads = 0;
    int heads_per_block = 1;
    std::int64_t head_groups = 1;
    unsigned* status = nullptr;
};

/// One output row: a head of a view, or a head of a cache slot with its storage and scale.
template <class T>
struct OutRow {
    T* view = nullptr;
    unsigned char* cache = nullptr;
    CacheStorage storage = CacheStorage::float32;
    float scale = 1.0f;

    /// Stores x at coordinate d: storage rounding (dtypes.hpp), or the cache's code (quantize.hpp).
    POSENC_HD void put(int d, float x) const noexcept
    {
        if (view != nullptr) {
            view[d] = store_from_float<T>(x);
            return;
        }
        switch (storage) {
        case CacheStorage::float32: reinterpret_cast<float*>(cache)[d] = x; break;
        case CacheStorage::bfloat16: reinterpret_cast<bfloat16*>(cache)[d] = to_bfloat16(x); break;
        case CacheStorage::float16: reinterpret_cast<float16*>(cache)[d] = to_float16(x); break;
        case CacheStorage::float8_e4m3: reinterpret_cast<float8_e4m3*>(cache)[d] = to_float8_e4m3(x / scale); break;
        default: reinterpret_cast<std::int8_t*>(cache)[d] = quantize_int8(x / scale); break;
        }
    }
};

/// Head h of `slot` in `cache` as an output row (scale of that head). Precondition: slot and h valid.
template <class T>
POSENC_HD OutRow<T> cache_row(const KvCacheView& cache, std::int64_t slot, std::ptrdiff_t h) noexcept
{
    OutRow<T> row;
    row.cache = static_cast<unsigned char*>(cache.data) +
                cache.offset(slot, h) * static_cast<std::ptrdiff_t>(kernels::element_bytes(cache.storage));
    row.storage = cache.storage;
    row.scale = cache.scale.kind == kernels::CacheScale::Kind::none ? 1.0f : cache.scale.of_head(h);
    return row;
}

/// Whether a per-head scale (or the per-tensor one, checked on the host) can divide.
POSENC_HD inline bool usable_scale(float s) noexcept { return s > 0.0f && s < 3.4028235e38f; }

}  // namespace posenc::cuda

#include "posenc/cuda/detail/rope_kernel_body.cuh"
