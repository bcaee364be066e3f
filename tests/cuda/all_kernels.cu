// SPDX-License-Identifier: MIT
// Every CUDA kernel of posenc/cuda, instantiated once (storage float / bfloat16 / float16 x
// angle source table / digits x apply, QK-norm, multi-axis), for scripts/check-cuda.sh: nvcc
// compiles this unit for each target with warnings as errors and ptxas's register report.
// Launching the kernel of a plan instantiates it; nothing here runs.
#include <posenc/cuda/launch.cuh>

namespace {

template <class T, class Angles>
void instantiate(cudaStream_t stream)
{
    using namespace posenc::cuda;
    using Rope = RopeKernel<T, Angles, KernelMode::rope>;
    using Norm = RopeKernel<T, Angles, KernelMode::norm_rope>;
    using Axes = RopeKernel<T, Angles, KernelMode::multi_axis>;
    (void)launch(Launch<Rope> {}, stream);
    (void)launch(Launch<Norm> {}, stream);
    (void)launch(Launch<Axes> {}, stream);
}

}  // namespace

void posenc_instantiate_cuda_kernels(cudaStream_t stream)
{
    using namespace posenc;
    instantiate<float, cuda::TableAngles>(stream);
    instantiate<float, cuda::DigitAngles>(stream);
    instantiate<bfloat16, cuda::TableAngles>(stream);
    instantiate<bfloat16, cuda::DigitAngles>(stream);
    instantiate<float16, cuda::TableAngles>(stream);
    instantiate<float16, cuda::DigitAngles>(stream);
}
