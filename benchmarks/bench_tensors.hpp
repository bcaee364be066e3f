// SPDX-License-Identifier: MIT
// benchmarks/bench_tensors.hpp: the benchmarks' tensors: 64-byte aligned storage filled with the
// same pseudo-random values in every run, and the bytes a benchmark reports per iteration.
#pragma once

#include <posenc/kernels/dtypes.hpp>

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <random>
#include <vector>

namespace posenc_bench {

/// Allocator of 64-byte aligned storage: tensors start on a cache line, as inference engines
/// allocate them (PyTorch's CPU allocator aligns to 64 bytes). malloc's 16-byte alignment would
/// make every 512-bit access of every variant, baselines included, straddle two cache lines.
template <class T>
struct CacheLineAllocator {
    using value_type = T;
    CacheLineAllocator() = default;
    template <class U>
    CacheLineAllocator(const CacheLineAllocator<U>&) noexcept
    {}
    T* allocate(std::size_t n) { return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t {64})); }
    void deallocate(T* p, std::size_t) noexcept { ::operator delete (p, std::align_val_t {64}); }
    template <class U>
    bool operator==(const CacheLineAllocator<U>&) const noexcept
    {
        return true;
    }
    template <class U>
    bool operator!=(const CacheLineAllocator<U>&) const noexcept
    {
        return false;
    }
};

/// A benchmark tensor: 64-byte aligned.
template <class T>
using Tensor = std::vector<T, CacheLineAllocator<T>>;

/// n values uniform in [-1, 1], the same in every run (seed 42), stored as T.
template <class T>
Tensor<T> random_tensor(std::size_t n)
{
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    Tensor<T> v(n);
    for (T& x : v) x = posenc::store_from_float<T>(u(rng));
    return v;
}

/// Reports bytes_per_iteration bytes moved by every iteration of `state`.
inline void set_bytes(benchmark::State& state, std::size_t bytes_per_iteration)
{
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                            static_cast<std::int64_t>(bytes_per_iteration));
}

}  // namespace posenc_bench
