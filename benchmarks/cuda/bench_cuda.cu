// SPDX-License-Identifier: MIT
// The CUDA kernels on a real GPU (scripts/cuda-device-check.sh builds and runs this):
//   1. agreement: apply (float / bfloat16, both pairings, both angle sources, positions up to
//      2^31 - 1), QK-norm + RoPE into an fp8 paged cache and multi-axis RoPE on the device,
//      against the CPU kernels on the same inputs (the bounds of tests/cuda), and cos/sin
//      against mpmath's values at positions up to 2^31 - 1;
//   2. bandwidth: prefill RoPE (Qwen3-8B shapes: 32 Q + 8 K heads of 128, bfloat16, in place)
//      at 4k to 32k tokens as a fraction of this device's measured copy bandwidth
//      (cudaMemcpyAsync device to device), and the fused QK-norm + RoPE + cache write against a
//      copy of the same bytes;
//   3. decode: one token, per-call time (back-to-back launches on one stream, and each launch
//      synchronised).
// Ratios and medians of repeated runs, measured in this process. Prints one line per result
// and writes them as JSON to argv[1] when given. Exit status 1 when any agreement check fails.
#include <posenc/cuda/launch.cuh>
#include <posenc/kernels.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace posenc;
using namespace posenc::kernels;

#define CHECK_CUDA(x)                                                                                                  \
    do {                                                                                                               \
        const cudaError_t e_ = (x);                                                                                    \
        if (e_ != cudaSuccess) {                                                                                       \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));                   \
            std::exit(2);                                                                                              \
        }                                                                                                              \
    } while (0)

std::string json = "{";
bool all_agree = true;

void record(const std::string& name, double value, const char* unit)
{
    std::printf("%-58s %14.6g %s\n", name.c_str(), value, unit);
    json += (json.size() > 1 ? ",\n \"" : "\n \"") + name + "\": " + std::to_string(value);
}

/// A device copy of a host vector (freed by the caller through cudaFree(ptr)).
template <class T>
T* to_device(const std::vector<T>& v)
{
    T* d = nullptr;
    CHECK_CUDA(cudaMalloc(&d, std::max<std::size_t>(1, v.size() * sizeof(T))));
    CHECK_CUDA(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

template <class T>
void to_host(std::vector<T>& v, const T* d)
{
    CHECK_CUDA(cudaMemcpy(v.data(), d, v.size() * sizeof(T), cudaMemcpyDeviceToHost));
}

template <class T>
std::vector<T> random_values(std::size_t n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<T> v(n);
    for (T& x : v) x = store_from_float<T>(dist(rng));
    return v;
}

template <class T>
double value(T x)
{
    if constexpr (std::is_same_v<T, float>) return x;
    else return to_float(x);
}

/// Largest |gpu - cpu| / (head's largest |cpu| value) minus one storage step; <= bound passes.
template <class T>
double worst_relative(const std::vector<T>& gpu, const std::vector<T>& cpu, int d)
{
    const double step = std::is_same_v<T, float> ? 0.0 : std::is_same_v<T, bfloat16> ? 0x1p-7 : 0x1p-10;
    double worst = 0.0;
    for (std::size_t row = 0; row < cpu.size() / d; ++row) {
        double largest = 1e-30;
        for (int i = 0; i < d; ++i) largest = std::max(largest, std::fabs(value(cpu[row * d + i])));
        for (int i = 0; i < d; ++i) {
            const double diff = std::fabs(value(gpu[row * d + i]) - value(cpu[row * d + i]));
            worst = std::max(worst, std::max(0.0, diff - step * std::fabs(value(cpu[row * d + i]))) / largest);
        }
    }
    return worst;
}

/// Digit tables of `angles` on the device.
cuda::DigitAngles device_digits(const OnTheFlyAngles& angles)
{
    double* d = nullptr;
    CHECK_CUDA(cudaMalloc(&d, cuda::digit_bytes(angles)));
    CHECK_CUDA(cudaMemcpy(d, cuda::digit_values(angles), cuda::digit_bytes(angles), cudaMemcpyHostToDevice));
    return cuda::digit_angles(angles, d);
}

cuda::TableAngles device_table(const CosSinCache& cache)
{
    float* d = nullptr;
    CHECK_CUDA(cudaMalloc(&d, cuda::table_bytes(cache)));
    CHECK_CUDA(cudaMemcpy(d, cuda::table_values(cache), cuda::table_bytes(cache), cudaMemcpyHostToDevice));
    return cuda::table_angles(cache, d);
}

unsigned* status_word()
{
    unsigned* s = nullptr;
    CHECK_CUDA(cudaMalloc(&s, sizeof(unsigned)));
    CHECK_CUDA(cudaMemset(s, 0, sizeof(unsigned)));
    return s;
}

unsigned read_status(unsigned* s)
{
    unsigned v = 0;
    CHECK_CUDA(cudaMemcpy(&v, s, sizeof v, cudaMemcpyDeviceToHost));
    return v;
}

void verdict(const std::string& name, double worst, double bound, unsigned status)
{
    record(name + " worst/bound", worst / bound, status == 0 && worst <= bound ? "PASS" : "FAIL");
    if (!(status == 0 && worst <= bound)) all_agree = false;
}

}  // namespace

#include "bench_cuda_checks.cuh"

int main(int argc, char** argv)
{
    cudaDeviceProp prop {};
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    std::printf("device: %s (sm_%d%d), %d SMs\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
    agreement_checks();
    bandwidth_benchmarks();
    decode_benchmarks();
    json += "\n}\n";
    if (argc > 1) {
        if (FILE* f = std::fopen(argv[1], "w")) {
            std::fputs(json.c_str(), f);
            std::fclose(f);
        }
    }
    std::printf("agreement: %s\n", all_agree ? "PASS" : "FAIL");
    return all_agree ? 0 : 1;
}
