// SPDX-License-Identifier: MIT
// The checks and timings of bench_cuda.cu (included there, after its helpers).
#pragma once

#include <chrono>

namespace {

const std::int64_t top = max_kernel_position;  // 2^31 - 1
constexpr double u = 0x1p-24;

/// apply on the device against apply_rope on the CPU: packed QKV, 8 Q + 2 K heads of 128.
template <class T, class Host>
void check_apply(const char* name, const RopeSpec& spec, const Host& host, const PositionIds& cpu_positions,
                 const PositionIds& gpu_positions, std::int64_t tokens, const cuda::DigitAngles* digits,
                 const cuda::TableAngles* table)
{
    const int d = spec.head_dim();
    std::vector<T> cpu = random_values<T>(static_cast<std::size_t>(tokens * 12 * d), 1u), gpu = cpu;
    apply_rope(
        spec, host, cpu_positions,
        QKViews<T>::in_place(slice_packed_qkv(cpu, {tokens, 8, 2, d}).q, slice_packed_qkv(cpu, {tokens, 8, 2, d}).k));
    T* dev = to_device(gpu);
    const PackedQkv<T> v = slice_packed_qkv(dev, static_cast<std::ptrdiff_t>(gpu.size()), {tokens, 8, 2, d});
    unsigned* status = status_word();
    const auto views = QKViews<T>::in_place(v.q, v.k);
    if (digits != nullptr)
        CHECK_CUDA(cuda::apply_rope(spec, *digits, gpu_positions, views, Direction::forward, status, nullptr));
    else CHECK_CUDA(cuda::apply_rope(spec, *table, gpu_positions, views, Direction::forward, status, nullptr));
    to_host(gpu, dev);
    verdict(name, worst_relative(gpu, cpu, d), 2 * 3.42 * u * 1.5, read_status(status));
    CHECK_CUDA(cudaFree(dev));
    CHECK_CUDA(cudaFree(status));
}

/// cos/sin of pair 0 (theta = 1) through the device kernel, against mpmath at 400 bits.
void check_angles(const cuda::DigitAngles& digits, const RopeSpec& spec)
{
    struct Exact {
        std::int64_t m;
        double c, s;
    };
    const Exact exact[] = {{1000000, 0.936752127533144786939, -0.349993502171292952118},
                           {16777216, 0.626322983291532917494, -0.779563673217777752205},
                           {2147483647, -0.68883669187794383468, -0.724916555144556390548}};
    double worst = 0.0;
    for (const Exact& e : exact) {
        std::vector<float> head(static_cast<std::size_t>(spec.head_dim()), 0.0f);
        for (int i = 0; i < spec.num_pairs(); ++i) head[i] = 1.0f;  // (1, 0) rotates to (c, s) exactly
        float* dev = to_device(head);
        unsigned* status = status_word();
        const HeadsView<float> q(dev, spec.head_dim(), {1, 1, spec.head_dim()});
        CHECK_CUDA(cuda::apply_rope(spec, digits, PositionIds::contiguous(e.m), QKViews<float>::in_place(q),
                                    Direction::forward, status, nullptr));
        to_host(head, dev);
        worst = std::max({worst, std::fabs(head[0] - e.c), std::fabs(head[spec.num_pairs()] - e.s)});
        CHECK_CUDA(cudaFree(dev));
        CHECK_CUDA(cudaFree(status));
    }
    verdict("angles: cos/sin vs mpmath to 2^31-1 (bound 1.5e-7)", worst, 1.5e-7, 0);
}

/// QK-norm + RoPE into a bfloat16 and an fp8 paged cache, on the device and on the CPU.
void check_fused_cache(const RopeSpec& spec, const OnTheFlyAngles& host, const cuda::DigitAngles& digits)
{
    const std::int64_t tokens = 48;
    const int d = spec.head_dim();
    std::vector<std::int64_t> ids(tokens);
    std::vector<std::int32_t> slots(tokens);
    for (std::int64_t t = 0; t < tokens; ++t) ids[t] = t * 44739242, slots[t] = static_cast<std::int32_t>((t * 7) % 64);
    slots[5] = -1;
    const std::vector<float> qw = random_values<float>(d, 2u), kw = random_values<float>(d, 3u);
    std::vector<bfloat16> qkv = random_values<bfloat16>(static_cast<std::size_t>(tokens * 12 * d), 4u), qkv_gpu = qkv;
    std::vector<float8_e4m3> kc(static_cast<std::size_t>(64 * 2 * d)), vc = kc, kc_gpu = kc, vc_gpu = kc;
    bfloat16* dq = to_device(qkv_gpu);
    float8_e4m3 *dk = to_device(kc_gpu), *dv = to_device(vc_gpu);
    float *dqw = to_device(qw), *dkw = to_device(kw);
    std::int64_t* dids = to_device(ids);
    std::int32_t* dslots = to_device(slots);
    auto write_of = [&](bfloat16* b, float8_e4m3* k, float8_e4m3* v) {
        const PackedQkv<bfloat16> p = slice_packed_qkv(b, static_cast<std::ptrdiff_t>(qkv.size()), {tokens, 8, 2, d});
        CacheWrite<bfloat16> w;
        w.q_in = p.q, w.q_out = p.q, w.k = p.k, w.v = p.v;
        w.key_cache = KvCacheView::paged(k, static_cast<std::ptrdiff_t>(kc.size()), 4, 16, 2, d,
                                         CacheLayout::token_major, CacheScale::tensor(0.02f));
        w.value_cache = KvCacheView::paged(v, static_cast<std::ptrdiff_t>(kc.size()), 4, 16, 2, d,
                                           CacheLayout::token_major, CacheScale::tensor(0.02f));
        return w;
    };
    CacheWrite<bfloat16> wc = write_of(qkv.data(), kc.data(), vc.data()), wg = write_of(dq, dk, dv);
    wc.slot_mapping = SlotMapping(slots);
    wg.slot_mapping = SlotMapping(dslots, tokens);
    qk_norm_rope_into_cache(spec, QkNorm {NormWeighting::weight, 1e-6f, qw, kw}, host, PositionIds(ids), wc);
    unsigned* status = status_word();
    CHECK_CUDA(cuda::qk_norm_rope_into_cache(spec, QkNorm {NormWeighting::weight, 1e-6f, {dqw, d}, {dkw, d}}, digits,
                                             PositionIds(dids, tokens), wg, status, nullptr));
    to_host(qkv_gpu, dq), to_host(kc_gpu, dk), to_host(vc_gpu, dv);
    const unsigned s = read_status(status);
    verdict("qk_norm_rope_into_cache: Q bfloat16", worst_relative(qkv_gpu, qkv, d), 2 * (d / 2 + 9) * u * 1.5, s);
    int codes_apart = 0;  // fp8 codes of the same float formula: equal or neighbours
    for (std::size_t i = 0; i < kc.size(); ++i)
        codes_apart += std::abs(int(kc[i].bits) - int(kc_gpu[i].bits)) > 1 || vc[i].bits != vc_gpu[i].bits;
    verdict("qk_norm_rope_into_cache: fp8 codes more than one apart", codes_apart, 0.5, s);
    for (void* p : {(void*)dq, (void*)dk, (void*)dv, (void*)dqw, (void*)dkw, (void*)dids, (void*)dslots, (void*)status})
        CHECK_CUDA(cudaFree(p));
}

/// M-RoPE sections (16, 24, 24) on the device against the CPU kernel.
void check_multi_axis(const RopeSpec& spec, const OnTheFlyAngles& host, const cuda::DigitAngles& digits)
{
    const std::int64_t tokens = 32;
    std::vector<std::int32_t> pos(static_cast<std::size_t>(tokens * 3));
    for (std::size_t i = 0; i < pos.size(); ++i) pos[i] = static_cast<std::int32_t>((i * 2654435761u) % 2147483647u);
    const MultiAxisLayout layout = MultiAxisLayout::sections({16, 24, 24}, spec.num_pairs());
    std::vector<float> cpu = random_values<float>(static_cast<std::size_t>(tokens * 12 * spec.head_dim()), 5u),
                       gpu = cpu;
    const PackedQkv<float> c = slice_packed_qkv(cpu, {tokens, 8, 2, spec.head_dim()});
    apply_multi_axis_rope(spec, layout, host, MultiAxisPositions(pos, 3), QKViews<float>::in_place(c.q, c.k));
    float* dev = to_device(gpu);
    std::int32_t* dpos = to_device(pos);
    const PackedQkv<float> g =
        slice_packed_qkv(dev, static_cast<std::ptrdiff_t>(gpu.size()), {tokens, 8, 2, spec.head_dim()});
    unsigned* status = status_word();
    CHECK_CUDA(cuda::apply_multi_axis_rope(spec, layout, digits, MultiAxisPositions(dpos, tokens * 3, tokens, 3),
                                           QKViews<float>::in_place(g.q, g.k), Direction::forward, status, nullptr));
    to_host(gpu, dev);
    verdict("multi_axis float (M-RoPE 16/24/24, to 2^31-1)", worst_relative(gpu, cpu, spec.head_dim()),
            2 * 3.42 * u * 1.5, read_status(status));
    for (void* p : {(void*)dev, (void*)dpos, (void*)status}) CHECK_CUDA(cudaFree(p));
}

void agreement_checks()
{
    const RopeSpec spec(128, 128, 1e6), inter(128, 128, 1e6, Pairing::interleaved),
        partial(128, 64, 1e4, Pairing::half_split, 64);
    const OnTheFlyAngles host(FrequencyTable::from_spec(spec));
    const OnTheFlyAngles host_partial(FrequencyTable::from_spec(partial));
    const cuda::DigitAngles digits = device_digits(host), digits_partial = device_digits(host_partial);
    const CosSinCache cache(FrequencyTable::from_spec(spec), 4096);
    const cuda::TableAngles table = device_table(cache);
    std::vector<std::int64_t> ids(64);
    for (std::size_t t = 0; t < ids.size(); ++t)
        ids[t] = t % 2 == 0 ? top - static_cast<std::int64_t>(t) : static_cast<std::int64_t>(t) * 33554431;
    std::int64_t* dids = to_device(ids);
    const PositionIds cpu_ids(ids), gpu_ids(dids, 64);
    check_apply<float>("apply float half_split digits", spec, host, cpu_ids, gpu_ids, 64, &digits, nullptr);
    check_apply<bfloat16>("apply bfloat16 half_split digits", spec, host, cpu_ids, gpu_ids, 64, &digits, nullptr);
    check_apply<float16>("apply float16 interleaved digits", inter, host, cpu_ids, gpu_ids, 64, &digits, nullptr);
    check_apply<bfloat16>("apply bfloat16 partial suffix digits", partial, host_partial, cpu_ids, gpu_ids, 64,
                          &digits_partial, nullptr);
    check_apply<bfloat16>("apply bfloat16 half_split table", spec, cache, PositionIds::contiguous(4000),
                          PositionIds::contiguous(4000), 64, nullptr, &table);
    check_angles(digits, spec);
    check_fused_cache(spec, host, digits);
    check_multi_axis(spec, host, digits);
    CHECK_CUDA(cudaFree(dids));
}

/// Median over 7 trials of the time of one call, in seconds (`reps` calls per trial).
template <class F>
double median_seconds(F&& call, int reps)
{
    cudaEvent_t a, b;
    CHECK_CUDA(cudaEventCreate(&a));
    CHECK_CUDA(cudaEventCreate(&b));
    call();  // warm-up
    std::vector<double> t;
    for (int trial = 0; trial < 7; ++trial) {
        CHECK_CUDA(cudaEventRecord(a));
        for (int r = 0; r < reps; ++r) call();
        CHECK_CUDA(cudaEventRecord(b));
        CHECK_CUDA(cudaEventSynchronize(b));
        float ms = 0;
        CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms * 1e-3 / reps);
    }
    std::sort(t.begin(), t.end());
    return t[3];
}

void bandwidth_benchmarks()
{
    const RopeSpec spec(128, 128, 1e6);
    const OnTheFlyAngles host(FrequencyTable::from_spec(spec));
    const cuda::DigitAngles digits = device_digits(host);
    const CosSinCache cache(FrequencyTable::from_spec(spec), 32768);
    const cuda::TableAngles table = device_table(cache);
    const std::size_t max_bytes = std::size_t {32768} * 48 * 128 * 2;
    char *src = nullptr, *dst = nullptr;
    CHECK_CUDA(cudaMalloc(&src, max_bytes));
    CHECK_CUDA(cudaMalloc(&dst, max_bytes));
    CHECK_CUDA(cudaMemset(src, 0x3c, max_bytes));
    bfloat16* kcache = nullptr;
    CHECK_CUDA(cudaMalloc(&kcache, max_bytes));
    std::int32_t* slots = nullptr;
    std::vector<std::int32_t> identity(32768);
    for (int i = 0; i < 32768; ++i) identity[i] = i;
    slots = to_device(identity);
    float* weights = to_device(std::vector<float>(128, 1.0f));
    unsigned* status = status_word();
    for (std::int64_t tokens : {4096, 8192, 16384, 32768}) {
        const std::string at = std::to_string(tokens / 1024) + "k";
        const std::size_t rope_bytes =
            static_cast<std::size_t>(tokens) * 40 * 128 * 2;  // Q and K, read once and written once
        const double copy =
            median_seconds([&] { CHECK_CUDA(cudaMemcpyAsync(dst, src, rope_bytes, cudaMemcpyDeviceToDevice)); }, 20);
        record("copy bandwidth " + at + " (GB/s, read + write)", 2.0 * rope_bytes / copy / 1e9, "GB/s");
        bfloat16* q = reinterpret_cast<bfloat16*>(src);
        const HeadsView<bfloat16> qv(q, tokens * 32 * 128, {tokens, 32, 128}),
            kv(q + tokens * 32 * 128, tokens * 8 * 128, {tokens, 8, 128});
        const auto views = QKViews<bfloat16>::in_place(qv, kv);
        const double rope_digits = median_seconds(
            [&] {
                CHECK_CUDA(cuda::apply_rope(spec, digits, PositionIds::contiguous(0), views, Direction::forward, status,
                                            nullptr));
            },
            20);
        const double rope_table = median_seconds(
            [&] {
                CHECK_CUDA(cuda::apply_rope(spec, table, PositionIds::contiguous(0), views, Direction::forward, status,
                                            nullptr));
            },
            20);
        record("prefill rope digits " + at + " / copy bandwidth (goal >= 0.9)", copy / rope_digits, "ratio");
        record("prefill rope table " + at + " / copy bandwidth (goal >= 0.9)", copy / rope_table, "ratio");
        // fused: packed QKV (48 heads) read, Q (32) written in place, K and V (16) into a bfloat16 cache
        const std::size_t fused_bytes = static_cast<std::size_t>(tokens) * 128 * 2 * (48 + 48);
        const PackedQkv<bfloat16> p = slice_packed_qkv(q, tokens * 48 * 128, {tokens, 32, 8, 128});
        CacheWrite<bfloat16> w;
        w.q_in = p.q, w.q_out = p.q, w.k = p.k, w.v = p.v;
        w.key_cache = KvCacheView::paged(kcache, tokens * 8 * 128, tokens / 16, 16, 8, 128);
        w.value_cache = KvCacheView::paged(kcache + tokens * 8 * 128, tokens * 8 * 128, tokens / 16, 16, 8, 128);
        w.slot_mapping = SlotMapping(slots, tokens);
        const QkNorm norm {NormWeighting::weight, 1e-6f, {weights, 128}, {weights, 128}};
        const double fused = median_seconds(
            [&] {
                CHECK_CUDA(
                    cuda::qk_norm_rope_into_cache(spec, norm, digits, PositionIds::contiguous(0), w, status, nullptr));
            },
            20);
        const double copy_same = median_seconds(
            [&] { CHECK_CUDA(cudaMemcpyAsync(dst, src, fused_bytes / 2, cudaMemcpyDeviceToDevice)); }, 20);
        record("fused qk-norm+rope+cache " + at + " time / copy of same bytes (goal <= 1.1)", fused / copy_same,
               "ratio");
    }
    for (void* ptr : {(void*)src, (void*)dst, (void*)kcache, (void*)slots, (void*)weights, (void*)status})
        CHECK_CUDA(cudaFree(ptr));
}

void decode_benchmarks()
{
    const RopeSpec spec(128, 128, 1e6);
    const OnTheFlyAngles host(FrequencyTable::from_spec(spec));
    const cuda::DigitAngles digits = device_digits(host);
    bfloat16* q = to_device(random_values<bfloat16>(48 * 128, 9u));
    unsigned* status = status_word();
    const HeadsView<bfloat16> qv(q, 32 * 128, {1, 32, 128}), kv(q + 32 * 128, 8 * 128, {1, 8, 128});
    const auto views = QKViews<bfloat16>::in_place(qv, kv);
    auto call = [&] {
        CHECK_CUDA(cuda::apply_rope(spec, digits, PositionIds::contiguous(1234567), views, Direction::forward, status,
                                    nullptr));
    };
    record("decode 1 token 32+8 heads, back-to-back per call (goal < 5 us)", median_seconds(call, 1000) * 1e6, "us");
    std::vector<double> t;
    for (int i = 0; i < 201; ++i) {
        const auto a = std::chrono::steady_clock::now();
        call();
        CHECK_CUDA(cudaStreamSynchronize(nullptr));
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
    }
    std::sort(t.begin(), t.end());
    record("decode 1 token, launch + synchronise (host clock, median)", t[100] * 1e6, "us");
    CHECK_CUDA(cudaFree(q));
    CHECK_CUDA(cudaFree(status));
}

}  // namespace
