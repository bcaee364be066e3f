// SPDX-License-Identifier: MIT
// A torch C++ extension over posenc's CUDA kernels, built on the GPU machine by
// benchmarks/cuda/torch_check.py (torch.utils.cpp_extension.load) against that machine's torch:
//   apply_rope_(q, k, positions, status, base, rotary_dim, interleaved)
// rotates q [tokens, q_heads, head_dim] and k [tokens, k_heads, head_dim] (CUDA, contiguous,
// float32 / bfloat16 / float16) in place by the int64 or int32 positions (CUDA), with cos/sin
// from OnTheFlyAngles's digit tables (exact to float rounding up to 2^31 - 1), on torch's
// current stream. `status` (one int32 on the device, zeroed by the caller) receives the kernel's
// report (0 = every position served). The digit tables of each (base, rotary_dim) are built once and kept on the device.
#include <posenc/cuda/launch.cuh>

#include <ATen/cuda/CUDAContext.h>
#include <torch/extension.h>

#include <map>
#include <memory>
#include <utility>

namespace {

struct DeviceTables {
    std::unique_ptr<posenc::kernels::OnTheFlyAngles> host;
    torch::Tensor values;  // the digit tables, float64, on the device
};

const DeviceTables& tables(double base, int rotary_dim, const torch::Device& device)
{
    static std::map<std::pair<double, int>, DeviceTables> cache;
    auto found = cache.find({base, rotary_dim});
    if (found != cache.end()) return found->second;
    DeviceTables t;
    const posenc::RopeSpec spec(rotary_dim, rotary_dim, base);
    t.host = std::make_unique<posenc::kernels::OnTheFlyAngles>(posenc::FrequencyTable::from_spec(spec));
    const auto count = static_cast<std::int64_t>(posenc::cuda::digit_bytes(*t.host) / sizeof(double));
    t.values =
        torch::from_blob(const_cast<double*>(posenc::cuda::digit_values(*t.host)), {count}, torch::kFloat64).to(device);
    return cache.emplace(std::make_pair(base, rotary_dim), std::move(t)).first->second;
}

template <class T>
posenc::kernels::HeadsView<T> view_of(const torch::Tensor& x)
{
    return {reinterpret_cast<T*>(x.data_ptr()), x.numel(), {x.size(0), x.size(1), x.size(2)}};
}

template <class T>
void run(const torch::Tensor& q, const torch::Tensor& k, const posenc::kernels::PositionIds& positions,
         const posenc::RopeSpec& spec, const posenc::cuda::DigitAngles& angles, unsigned* status)
{
    const auto views = posenc::kernels::QKViews<T>::in_place(view_of<T>(q), view_of<T>(k));
    const cudaError_t e = posenc::cuda::apply_rope(spec, angles, positions, views, posenc::kernels::Direction::forward,
                                                   status, at::cuda::getCurrentCUDAStream());
    TORCH_CHECK(e == cudaSuccess, "posenc apply_rope launch: ", cudaGetErrorString(e));
}

void apply_rope_(torch::Tensor q, torch::Tensor k, torch::Tensor positions, torch::Tensor status, double base,
                 int64_t rotary_dim, bool interleaved)
{
    TORCH_CHECK(q.is_cuda() && k.is_cuda() && positions.is_cuda(), "q, k and positions must be CUDA tensors");
    TORCH_CHECK(q.is_contiguous() && k.is_contiguous() && positions.is_contiguous(), "contiguous tensors only");
    TORCH_CHECK(q.dim() == 3 && k.dim() == 3 && q.scalar_type() == k.scalar_type(),
                "q, k: [tokens, heads, head_dim], one dtype");
    const posenc::RopeSpec spec(static_cast<int>(q.size(2)), static_cast<int>(rotary_dim), base,
                                interleaved ? posenc::Pairing::interleaved : posenc::Pairing::half_split);
    const DeviceTables& t = tables(base, static_cast<int>(rotary_dim), q.device());
    const posenc::cuda::DigitAngles angles = posenc::cuda::digit_angles(*t.host, t.values.data_ptr<double>());
    const posenc::kernels::PositionIds ids =
        positions.scalar_type() == torch::kInt32
            ? posenc::kernels::PositionIds(positions.data_ptr<std::int32_t>(), positions.numel())
            : posenc::kernels::PositionIds(positions.data_ptr<std::int64_t>(), positions.numel());
    TORCH_CHECK(status.is_cuda() && status.scalar_type() == torch::kInt32 && status.numel() >= 1,
                "status: one int32 on the device");
    auto* word = reinterpret_cast<unsigned*>(status.data_ptr<std::int32_t>());
    if (q.scalar_type() == torch::kFloat32) run<float>(q, k, ids, spec, angles, word);
    else if (q.scalar_type() == torch::kBFloat16) run<posenc::bfloat16>(q, k, ids, spec, angles, word);
    else if (q.scalar_type() == torch::kFloat16) run<posenc::float16>(q, k, ids, spec, angles, word);
    else TORCH_CHECK(false, "q: float32, bfloat16 or float16");
}

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.def("apply_rope_", &apply_rope_, "posenc CUDA RoPE in place (digit tables, exact to 2^31 - 1)");
}
