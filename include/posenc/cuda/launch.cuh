// SPDX-License-Identifier: MIT
// posenc/cuda/launch.cuh: the CUDA entry points. Each call is planned on the host (checked,
// then turned into one kernel's arguments and its grid) and launched on the caller's stream.
//
//   apply_rope               RoPE of Q (and K) in place or out of place, forward or inverse
//   qk_norm_rope             per-head RMSNorm of Q and K, then RoPE (qk_norm_rope.hpp's formula)
//   rope_into_cache          K rotated into a paged key cache, V copied to the value cache, Q rotated
//   qk_norm_rope_into_cache  the same after the QK-norm: one engine step, QKV to the cache
//   apply_multi_axis_rope    M-RoPE / 2-D vision RoPE: pair i at the position of its axis
//
// The views, specs, position ids, caches and slot mappings are the CPU kernels' types
// (posenc/kernels/*.hpp) holding DEVICE pointers; an angle source is TableAngles or DigitAngles
// (angles.cuh) over device copies. Every call: checks what the host can check without reading
// device memory (shapes, strides, overlaps of views, cache geometry and storage, norm
// parameters, contiguous positions) and throws posenc::error naming the field; enqueues one
// kernel on `stream`; returns cudaGetLastError(). No allocation, no host synchronisation: the
// per-token rules that need device data (position ids inside the angle source, slots inside the
// cache, per-head scales) are checked by the kernel and reported in *status (KernelStatus bits;
// the caller zeroes the word and reads it when it synchronises anyway).
//
// Not on the device (refused by name): per-token query multipliers, rotary_dim above 512, a
// multi-axis layout that splits pairs (coordinate_sections whose sections do not line up).
// CacheWrite::stores is ignored (the device has no separate streaming store path here).
#pragma once

#define POSENC_KERNELS_DETAIL_ALLOWED 1  // this public header may include posenc/kernels/detail/*.hpp

#include <algorithm>
#include <cstdint>

#include "posenc/cuda/detail/plan_checks.hpp"
#include "posenc/cuda/rope_kernel.cuh"
#include "posenc/multi_axis.hpp"

namespace posenc::cuda {

/// A planned launch: the kernel's arguments and its grid (blocks of `threads` threads).
template <class Kernel>
struct Launch {
    Kernel kernel;
    std::int64_t blocks = 0;
    int threads = 0;
};

namespace detail {

/// The spec's part of the arguments, and the grid for `tokens` tokens of args' heads.
template <class T, class Angles, KernelMode Mode>
Launch<RopeKernel<T, Angles, Mode>> finish_plan(const RopeSpec& spec, RopeArgs<T, Angles> args, std::int64_t tokens)
{
    args.head_dim = spec.head_dim();
    args.rotary_dim = spec.rotary_dim();
    args.rotary_offset = spec.rotary_offset();
    args.interleaved = spec.pairing() == Pairing::interleaved;
    const int heads = args.q_heads + args.k_heads + args.v_heads;
    args.heads_per_block = std::max(1, std::min(max_heads_per_block, heads));
    args.head_groups = (heads + args.heads_per_block - 1) / args.heads_per_block;
    require_grid(tokens, args.head_groups);
    Launch<RopeKernel<T, Angles, Mode>> plan;
    plan.kernel.args = args;
    plan.blocks = heads == 0 ? 0 : tokens * args.head_groups;
    plan.threads = args.heads_per_block * head_lanes;
    return plan;
}

/// The views of an apply call into args (Q and K heads).
template <class T, class Angles>
void set_views(RopeArgs<T, Angles>& args, const kernels::QKViews<T>& views)
{
    args.q_in = views.q_in;
    args.q_out = views.q_out;
    args.k_in = views.k_in;
    args.k_out = views.k_out;
    args.q_heads = static_cast<int>(views.q_in.heads);
    args.k_heads = views.has_k() ? static_cast<int>(views.k_in.heads) : 0;
}

/// The norm of a QK-norm call into args.
template <class T, class Angles>
void set_norm(RopeArgs<T, Angles>& args, const kernels::QkNorm& norm)
{
    args.norm = true;
    args.eps = norm.eps;
    args.weight_offset = norm.weighting == kernels::NormWeighting::one_plus_weight ? 1.0f : 0.0f;
    args.q_weight = norm.q_weight.data;
    args.k_weight = norm.k_weight.data;
}

/// The views, caches and slots of a cache call into args.
template <class T, class Angles>
void set_cache(RopeArgs<T, Angles>& args, const kernels::CacheWrite<T>& w)
{
    args.q_in = w.q_in;
    args.q_out = w.q_out;
    args.k_in = w.k;
    args.v_in = w.v;
    args.q_heads = w.q_in.present() ? static_cast<int>(w.q_in.heads) : 0;
    args.k_heads = static_cast<int>(w.k.heads);
    args.v_heads = w.v.present() ? static_cast<int>(w.v.heads) : 0;
    args.to_cache = true;
    args.key_cache = w.key_cache;
    args.value_cache = w.value_cache;
    args.slots = w.slot_mapping;
}

}  // namespace detail

/// Plans apply_rope: every token of `views`, rotated by `positions` (forward or inverse).
template <class T, class Angles>
Launch<RopeKernel<T, Angles, KernelMode::rope>>
plan_apply_rope(const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                const kernels::QKViews<T>& views, kernels::Direction direction, unsigned* status)
{
    detail::check_common(spec, angles, positions, views.tokens(), status);
    detail::check_apply_views(spec, views);
    kernels::detail::check_direction(direction);
    RopeArgs<T, Angles> args;
    args.angles = angles;
    args.positions = positions;
    args.inverse = direction == kernels::Direction::inverse;
    args.status = status;
    detail::set_views(args, views);
    return detail::finish_plan<T, Angles, KernelMode::rope>(spec, args, views.tokens());
}

/// Plans qk_norm_rope: RMSNorm of every Q and K head (norm's weights: device pointers), then RoPE.
template <class T, class Angles>
Launch<RopeKernel<T, Angles, KernelMode::norm_rope>>
plan_qk_norm_rope(const RopeSpec& spec, const kernels::QkNorm& norm, const Angles& angles, const PositionIds& positions,
                  const kernels::QKViews<T>& views, unsigned* status)
{
    detail::check_common(spec, angles, positions, views.tokens(), status);
    detail::check_apply_views(spec, views);
    detail::check_norm(spec, norm, true, views.has_k());
    RopeArgs<T, Angles> args;
    args.angles = angles;
    args.positions = positions;
    args.status = status;
    detail::set_views(args, views);
    detail::set_norm(args, norm);
    return detail::finish_plan<T, Angles, KernelMode::norm_rope>(spec, args, views.tokens());
}

/// Plans rope_into_cache: K rotated into write.key_cache at each token's slot, V copied, Q rotated.
template <class T, class Angles>
Launch<RopeKernel<T, Angles, KernelMode::rope>>
plan_rope_into_cache(const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                     const kernels::CacheWrite<T>& write, unsigned* status)
{
    detail::check_common(spec, angles, positions, write.k.tokens, status);
    detail::check_cache_write(spec, write);
    RopeArgs<T, Angles> args;
    args.angles = angles;
    args.positions = positions;
    args.status = status;
    detail::set_cache(args, write);
    return detail::finish_plan<T, Angles, KernelMode::rope>(spec, args, write.k.tokens);
}

/// Plans qk_norm_rope_into_cache: the QK-norm, then rope_into_cache's writes (V not normalised).
template <class T, class Angles>
Launch<RopeKernel<T, Angles, KernelMode::norm_rope>>
plan_qk_norm_rope_into_cache(const RopeSpec& spec, const kernels::QkNorm& norm, const Angles& angles,
                             const PositionIds& positions, const kernels::CacheWrite<T>& write, unsigned* status)
{
    detail::check_common(spec, angles, positions, write.k.tokens, status);
    detail::check_cache_write(spec, write);
    detail::check_norm(spec, norm, write.q_in.present(), true);
    RopeArgs<T, Angles> args;
    args.angles = angles;
    args.positions = positions;
    args.status = status;
    detail::set_cache(args, write);
    detail::set_norm(args, norm);
    return detail::finish_plan<T, Angles, KernelMode::norm_rope>(spec, args, write.k.tokens);
}

/// Plans apply_multi_axis_rope: pair i of token t at positions(t, layout.axis_of_pair(i)).
template <class T, class Angles>
Launch<RopeKernel<T, Angles, KernelMode::multi_axis>>
plan_multi_axis_rope(const RopeSpec& spec, const MultiAxisLayout& layout, const Angles& angles,
                     const kernels::MultiAxisPositions& positions, const kernels::QKViews<T>& views,
                     kernels::Direction direction, unsigned* status)
{
    detail::check_common(spec, angles, PositionIds::contiguous(0), 0, status);
    detail::check_apply_views(spec, views);
    kernels::detail::check_direction(direction);
    detail::check_multi_axis(spec, layout, positions, views.tokens());
    RopeArgs<T, Angles> args;
    args.angles = angles;
    args.axis_positions = positions;
    for (int i = 0; i < layout.num_pairs(); ++i)
        args.axis_of_pair[i] = static_cast<unsigned char>(layout.axis_of_pair(i));
    args.inverse = direction == kernels::Direction::inverse;
    args.status = status;
    detail::set_views(args, views);
    return detail::finish_plan<T, Angles, KernelMode::multi_axis>(spec, args, views.tokens());
}

#if defined(__CUDACC__)

/// The kernel of every plan: phases separated by block barriers (rope_kernel.cuh).
template <class Kernel>
__global__ void __launch_bounds__(max_heads_per_block* head_lanes) run_rope_kernel(Kernel kernel)
{
    __shared__ BlockShared shared;
#pragma unroll
    for (int phase = 0; phase < Kernel::phases; ++phase) {
        kernel(phase,
               ThreadIndex {static_cast<std::int64_t>(blockIdx.x), static_cast<int>(threadIdx.x),
                            static_cast<int>(blockDim.x)},
               shared);
        if (phase + 1 < Kernel::phases) __syncthreads();
    }
}

/// Enqueues a planned launch on `stream`; cudaSuccess for an empty grid (nothing to do).
template <class Kernel>
cudaError_t launch(const Launch<Kernel>& plan, cudaStream_t stream)
{
    if (plan.blocks == 0) return cudaSuccess;
    run_rope_kernel<Kernel>
        <<<static_cast<unsigned>(plan.blocks), static_cast<unsigned>(plan.threads), 0, stream>>>(plan.kernel);
    return cudaGetLastError();
}

/// Checked apply on the device: plan_apply_rope, then launch on `stream`.
template <class T, class Angles>
cudaError_t apply_rope(const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                       const kernels::QKViews<T>& views, kernels::Direction direction, unsigned* status,
                       cudaStream_t stream)
{
    return launch(plan_apply_rope(spec, angles, positions, views, direction, status), stream);
}

/// Checked QK-norm + RoPE on the device.
template <class T, class Angles>
cudaError_t qk_norm_rope(const RopeSpec& spec, const kernels::QkNorm& norm, const Angles& angles,
                         const PositionIds& positions, const kernels::QKViews<T>& views, unsigned* status,
                         cudaStream_t stream)
{
    return launch(plan_qk_norm_rope(spec, norm, angles, positions, views, status), stream);
}

/// Checked RoPE into a paged KV cache on the device.
template <class T, class Angles>
cudaError_t rope_into_cache(const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                            const kernels::CacheWrite<T>& write, unsigned* status, cudaStream_t stream)
{
    return launch(plan_rope_into_cache(spec, angles, positions, write, status), stream);
}

/// Checked QK-norm + RoPE into a paged KV cache on the device.
template <class T, class Angles>
cudaError_t qk_norm_rope_into_cache(const RopeSpec& spec, const kernels::QkNorm& norm, const Angles& angles,
                                    const PositionIds& positions, const kernels::CacheWrite<T>& write, unsigned* status,
                                    cudaStream_t stream)
{
    return launch(plan_qk_norm_rope_into_cache(spec, norm, angles, positions, write, status), stream);
}

/// Checked multi-axis RoPE on the device.
template <class T, class Angles>
cudaError_t apply_multi_axis_rope(const RopeSpec& spec, const MultiAxisLayout& layout, const Angles& angles,
                                  const kernels::MultiAxisPositions& positions, const kernels::QKViews<T>& views,
                                  kernels::Direction direction, unsigned* status, cudaStream_t stream)
{
    return launch(plan_multi_axis_rope(spec, layout, angles, positions, views, direction, status), stream);
}

#endif  // __CUDACC__

}  // namespace posenc::cuda
