// SPDX-License-Identifier: MIT
// Runtime dispatch and threading.
//   CPU features: cross-checked against the kernel's own report in /proc/cpuinfo (Linux), an
//   independent source of the same cpuid bits (when the file exists).
//   best_isa(): the highest ISA that is compiled in and that the CPU supports.
//   dispatch::apply_rope == apply_rope_with(best_isa()) bit for bit.
//   Threads: any split of the tokens (partition.hpp), run concurrently on std::threads sharing
//   one const angle source, gives the same bits as one call.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "kernel_test_support.hpp"

namespace {

using namespace posenc::kernels;
namespace pd = posenc::kernels::dispatch;

std::string cpuinfo_flags()
{
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("flags", 0) == 0) return " " + line.substr(line.find(':') + 1) + " ";
    return {};
}

}  // namespace

TEST_CASE("[dispatch] CPU features agree with /proc/cpuinfo and best_isa is the highest available path")
{
    const pd::CpuFeatures& f = pd::cpu_features();
    const std::string flags = cpuinfo_flags();
    MESSAGE("CPU: sse4_2 " << f.sse4_2 << ", avx2 " << f.avx2 << ", fma " << f.fma << ", f16c " << f.f16c << ", avx512 f/cd/dq/bw "
                           << f.avx512f << f.avx512cd << f.avx512dq << f.avx512bw << ", avx512_bf16 " << f.avx512_bf16 << "; best_isa "
                           << std::string(pd::to_string(pd::best_isa())) << " (" << std::string(pd::arch_name(pd::best_isa())) << ")");
    for (const kernel_test::ArchPath& path : kernel_test::arch_paths()) MESSAGE("arch path tested: " << path.name);
    for (const std::string& skipped : kernel_test::skipped_paths()) MESSAGE("arch path skipped: " << skipped);
    if (!flags.empty()) {
        auto has = [&](const char* name) { return flags.find(std::string(" ") + name + " ") != std::string::npos; };
        // the kernel also requires OS support (xgetbv); /proc/cpuinfo hides flags the OS does not enable
        CHECK(f.sse4_2 == has("sse4_2"));
        CHECK(f.avx2 == has("avx2"));
        CHECK(f.fma == has("fma"));
        CHECK(f.f16c == has("f16c"));
        CHECK(f.avx512f == has("avx512f"));
        CHECK(f.avx512bw == has("avx512bw"));
        CHECK(f.avx512dq == has("avx512dq"));
        CHECK(f.avx512cd == has("avx512cd"));
        CHECK(f.avx512_bf16 == has("avx512_bf16"));
    } else {
        MESSAGE("no /proc/cpuinfo: feature cross-check skipped");
    }
    pd::Isa expected = pd::Isa::baseline;
    for (pd::Isa isa : pd::dispatch_isas)
        if (pd::isa_compiled(isa) && pd::isa_supported_by_cpu(isa)) expected = isa;
    CHECK(pd::best_isa() == expected);
    CHECK(pd::isa_available(pd::Isa::baseline));
}

TEST_CASE("[dispatch] dispatch::apply_rope runs the best ISA's kernel, bit for bit, for every storage type")
{
    const posenc::RopeSpec spec(128, 128, 1e6, posenc::Pairing::interleaved);
    const OnTheFlyAngles angles(posenc::FrequencyTable::from_spec(spec));
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-1, 1);
    auto check_type = [&](auto tag) {
        using T = decltype(tag);
        std::vector<T> x(3 * 4 * 128);
        for (T& v : x) v = kernel_test::from_double<T>(u(rng));
        std::vector<T> a = x, b = x;
        const HeadsShape shape {3, 4, 128};
        pd::apply_rope(spec, angles, PositionIds::contiguous(123456), QKViews<T>::in_place(HeadsView<T>(a, shape)));
        pd::apply_rope_with(pd::best_isa(), spec, angles, PositionIds::contiguous(123456), QKViews<T>::in_place(HeadsView<T>(b, shape)));
        const std::string type = kernel_test::type_name<T>();
        CAPTURE(type);
        CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
        CHECK(std::memcmp(a.data(), x.data(), a.size() * sizeof(T)) != 0);
    };
    check_type(0.0f);
    check_type(posenc::bfloat16 {});
    check_type(posenc::float16 {});
    check_type(0.0);
}

TEST_CASE("[partition] token ranges cover every token once, balanced, and suggested_parts keeps decode on one thread")
{
    for (std::ptrdiff_t tokens : {0, 1, 2, 7, 4096, 4097})
        for (int parts : {1, 2, 3, 8}) {
            const std::vector<TokenRange> ranges = split_tokens(tokens, parts);
            std::ptrdiff_t next = 0, smallest = tokens, largest = 0;
            for (const TokenRange& r : ranges) {
                CHECK(r.begin == next);
                next = r.end;
                smallest = std::min(smallest, r.size());
                largest = std::max(largest, r.size());
            }
            CHECK(next == tokens);
            CHECK(largest - smallest <= 1);
        }
    CHECK(suggested_parts(1, 40 * 128, 2) == 1);        // decode: 5,120 elements, below 32,768 per part
    CHECK(suggested_parts(4096, 32 * 128, 2) == 2);     // prefill
    CHECK(suggested_parts(4096, 32 * 128, 1) == 1);
    CHECK(suggested_parts(3, 1 << 20, 8) == 3);         // never more parts than tokens
}

TEST_CASE("[partition] threads on split token ranges, sharing one const angle source, equal one call bit for bit")
{
    const posenc::RopeSpec spec(128, 64, 1e4, posenc::Pairing::half_split);
    const posenc::FrequencyTable table = posenc::FrequencyTable::from_spec(spec);
    const CosSinCache cache(table, 1000);
    const OnTheFlyAngles angles(table);
    const std::ptrdiff_t tokens = 301;
    std::mt19937 rng(9);
    std::uniform_real_distribution<float> u(-1, 1);
    std::vector<float> q0(static_cast<std::size_t>(tokens * 8 * 128)), k0(static_cast<std::size_t>(tokens * 2 * 128));
    for (float& v : q0) v = u(rng);
    for (float& v : k0) v = u(rng);
    std::vector<std::int32_t> ids(static_cast<std::size_t>(tokens));
    for (std::int32_t& p : ids) p = static_cast<std::int32_t>(rng() % 1000);
    for (int source = 0; source < 2; ++source) {
        std::vector<float> q1 = q0, k1 = k0, q2 = q0, k2 = k0;
        auto views = [&](std::vector<float>& q, std::vector<float>& k) {
            return QKViews<float>::in_place(HeadsView<float>(q, {tokens, 8, 128}), HeadsView<float>(k, {tokens, 2, 128}));
        };
        auto run = [&](const QKViews<float>& v, TokenRange r) {
            if (source == 0) apply_rope(spec, cache, PositionIds(ids), v, Direction::forward, r);
            else apply_rope(spec, angles, PositionIds(ids), v, Direction::forward, r);
        };
        run(views(q1, k1), TokenRange {0, tokens});
        const QKViews<float> shared = views(q2, k2);
        std::vector<std::thread> threads;
        for (const TokenRange& r : split_tokens(tokens, 3)) threads.emplace_back([&, r] { run(shared, r); });
        for (std::thread& t : threads) t.join();
        CAPTURE(source);
        CHECK(q1 == q2);
        CHECK(k1 == k2);
    }
}
