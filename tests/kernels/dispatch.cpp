// SPDX-License-Identifier: MIT
// Runtime dispatch.
//   CPU features: cross-checked against the kernel's own report in /proc/cpuinfo (Linux), an
//   independent source of the same cpuid bits (when the file exists): its "flags" line on x86,
//   its "Features" line on AArch64. Under qemu-user (scripts/test-aarch64.sh) /proc/cpuinfo is
//   the host's; the emulated CPU model's features, as the script knows them from the model's
//   definition, come in POSENC_TEST_CPU_FEATURES instead, and the ISA dispatch must pick on that
//   model in POSENC_TEST_EXPECT_BEST_ISA (lowered to POSENC_DISPATCH_MAX_ISA when a cap is set).
//   best_isa(): the highest ISA that is compiled in and that the CPU supports.
//   dispatch::apply_rope == apply_rope_on(best_isa()) bit for bit.
// (Threading is in threads.cpp, which needs no per-ISA units, so the ThreadSanitizer stage of
// scripts/test.sh builds it alone.)
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "kernel_test_support.hpp"

namespace kernels_dispatch_tests {  // per-file namespace: a folder builds as one unit (CMAKE_UNITY_BUILD)

namespace {

using namespace posenc::kernels;
namespace pd = posenc::kernels::dispatch;

#if defined(__aarch64__)
constexpr const char* cpuinfo_key = "Features";
#else
constexpr const char* cpuinfo_key = "flags";
#endif

/// The CPU's feature names, space-separated and padded: /proc/cpuinfo's line for this
/// architecture, else POSENC_TEST_CPU_FEATURES; empty when neither exists.
std::string cpuinfo_flags()
{
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(cpuinfo_key, 0) == 0) return " " + line.substr(line.find(':') + 1) + " ";
    if (const char* emulated = std::getenv("POSENC_TEST_CPU_FEATURES")) return " " + std::string(emulated) + " ";
    return {};
}

/// POSENC_TEST_EXPECT_BEST_ISA, lowered to the POSENC_DISPATCH_MAX_ISA cap; empty when unset.
std::string expected_best_isa()
{
    const char* want = std::getenv("POSENC_TEST_EXPECT_BEST_ISA");
    if (want == nullptr) return {};
    const pd::Isa cap = pd::max_isa_from_environment();
    for (pd::Isa isa : pd::dispatch_isas)
        if (std::string(want) == pd::to_string(isa))
            return pd::to_string(static_cast<int>(isa) > static_cast<int>(cap) ? cap : isa);
    return want;
}

}  // namespace

TEST_CASE("[dispatch] CPU features agree with /proc/cpuinfo and best_isa is the highest available path")
{
    const pd::CpuFeatures& f = pd::cpu_features();
    const std::string flags = cpuinfo_flags();
    MESSAGE("CPU: sse4_2 " << f.sse4_2 << ", avx2 " << f.avx2 << ", fma " << f.fma << ", f16c " << f.f16c
                           << ", avx512 f/cd/dq/bw " << f.avx512f << f.avx512cd << f.avx512dq << f.avx512bw
                           << ", avx512_bf16 " << f.avx512_bf16 << ", asimd " << f.asimd << ", fphp " << f.fphp
                           << ", asimdhp " << f.asimdhp << ", bf16 " << f.bf16 << "; best_isa "
                           << std::string(pd::to_string(pd::best_isa())) << " ("
                           << std::string(pd::arch_name(pd::best_isa())) << ")");
    for (const kernel_test::ArchPath& path : kernel_test::arch_paths()) MESSAGE("arch path tested: " << path.name);
    for (const std::string& skipped : kernel_test::skipped_paths()) MESSAGE("arch path skipped: " << skipped);
    if (!flags.empty()) {
        auto has = [&](const char* name) { return flags.find(std::string(" ") + name + " ") != std::string::npos; };
#if defined(__aarch64__)
        CHECK(f.asimd == has("asimd"));
        CHECK(f.fphp == has("fphp"));
        CHECK(f.asimdhp == has("asimdhp"));
        CHECK(f.bf16 == has("bf16"));
#else
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
#endif
    } else {
        MESSAGE("no /proc/cpuinfo: feature cross-check skipped");
    }
    pd::Isa expected = pd::Isa::baseline;
    for (pd::Isa isa : pd::dispatch_isas)
        if (pd::isa_compiled(isa) && pd::isa_supported_by_cpu(isa)) expected = isa;
    CHECK(pd::best_isa() == expected);
    CHECK(pd::isa_available(pd::Isa::baseline));
    const std::string expected_name = expected_best_isa();
    if (!expected_name.empty()) CHECK(std::string(pd::to_string(pd::best_isa())) == expected_name);
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
        pd::apply_rope_on(pd::best_isa(), spec, angles, PositionIds::contiguous(123456),
                          QKViews<T>::in_place(HeadsView<T>(b, shape)));
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

}  // namespace kernels_dispatch_tests

namespace kernels_dispatch_tests {

TEST_CASE(
    "[dispatch] compiled_isas, best_cpu_isa and the missed-ISA diagnostic say what runs and what the CPU could run")
{
    // Independent source for what the CPU runs: /proc/cpuinfo's flags (x86-64; the OS-enabled set).
    const std::vector<pd::Isa> compiled = pd::compiled_isas();
    REQUIRE(!compiled.empty());
    CHECK(compiled.front() == pd::Isa::baseline);
    std::size_t next = 1;
    for (pd::Isa isa : pd::dispatch_isas)
        if (pd::isa_compiled(isa)) {
            REQUIRE(next < compiled.size());
            CHECK(compiled[next++] == isa);  // in the list's order
        }
    CHECK(next == compiled.size());

    const pd::Isa cpu = pd::best_cpu_isa();
    CHECK(pd::isa_supported_by_cpu(cpu));
    for (pd::Isa isa : pd::dispatch_isas)
        if (static_cast<int>(isa) > static_cast<int>(cpu)) CHECK_FALSE(pd::isa_supported_by_cpu(isa));
    CHECK(static_cast<int>(pd::best_isa()) <= static_cast<int>(cpu));
#if defined(__x86_64__)
    const std::string flags = cpuinfo_flags();
    if (!flags.empty() && pd::max_isa_from_environment() == pd::last_isa) {
        auto has = [&](const char* name) { return flags.find(std::string(" ") + name + " ") != std::string::npos; };
        // the ISA list's CPU tests (docs/kernels.md, "Runtime dispatch"), read from the flags
        const bool avx512 =
            has("avx512f") && has("avx512cd") && has("avx512dq") && has("avx512bw") && has("fma") && has("f16c");
        const char* want = avx512 && has("avx512_bf16")               ? "avx512_bf16"
                           : avx512                                   ? "avx512"
                           : has("avx2") && has("fma") && has("f16c") ? "avx2"
                           : has("sse4_2")                            ? "sse4_2"
                                                                      : "baseline";
        CHECK(std::string(pd::to_string(cpu)) == want);
    }
#endif

    // The diagnostic: only when dispatch is left on the baseline while the CPU runs more.
    const std::string line = pd::missed_isa_diagnostic();
    const std::string baseline_arch = pd::arch_name(pd::Isa::baseline);  // "sse2" unless -march says more
    const bool baseline_is_sse2 = baseline_arch == "sse2";
    const bool on_baseline_below_cpu = pd::best_isa() == pd::Isa::baseline && cpu != pd::Isa::baseline &&
                                       (baseline_is_sse2 || std::string(pd::arch_name(cpu)) != baseline_arch);
    CHECK(line.empty() == !on_baseline_below_cpu);
    if (!line.empty()) {
        MESSAGE(line);
        CHECK(line.find(std::string("runs ") + pd::to_string(cpu) + " (") != std::string::npos);
        CHECK(line.find(std::string("baseline kernel (") + pd::arch_name(pd::Isa::baseline) + ")") !=
              std::string::npos);
        CHECK(line.find("posenc_add_dispatch") != std::string::npos);
    }
    const std::string summary = pd::dispatch_summary();
    MESSAGE(summary);
    CHECK(summary.find(std::string("dispatch runs ") + pd::to_string(pd::best_isa()) + " (" +
                       pd::arch_name(pd::best_isa()) + ")") == 0);
    CHECK(summary.find(std::string("this CPU runs up to ") + pd::to_string(cpu)) != std::string::npos);
}

}  // namespace kernels_dispatch_tests
