// SPDX-License-Identifier: MIT
// posenc/kernels/dispatch.hpp: runtime dispatch of the kernels to the best instruction set the
// CPU runs (the ISA list of dispatch_isas.hpp), for engines that ship one binary.
//
// Build: posenc_add_dispatch(my_target) (cmake/posencDispatch.cmake) adds one translation unit
// per ISA of the list, compiled with its flags (dispatch_target.hpp), and defines
// POSENC_DISPATCH_ISA_<isa>=1; the rest of the program keeps the default flags, so the binary
// runs on any x86-64 (or AArch64) CPU. Call: dispatch::apply_rope(...) takes kernels::apply_rope's
// arguments (every operation has the forms of docs/kernels.md, "Entry-point names"). The first
// call reads the CPU's features once (cpu_features.hpp); every call then jumps to the best compiled ISA the CPU
// supports, or to the baseline: the header-only kernel at the calling unit's
// kernels::default_arch. double storage always takes the reference path in the calling unit.
//
// Rule for the per-ISA units: they instantiate only templates parameterised on their own arch,
// so no function compiled with AVX flags is shared (one-definition rule) with code that must
// run without AVX.
#pragma once

#define POSENC_KERNELS_DETAIL_ALLOWED 1  // this public header may include posenc/kernels/detail/*.hpp

#include <xsimd/xsimd.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/kernels/angle_cache.hpp"
#include "posenc/kernels/on_the_fly_angles.hpp"
#include "posenc/kernels/apply.hpp"
#include "posenc/kernels/cpu_features.hpp"
#include "posenc/kernels/detail/checks.hpp"
#include "posenc/kernels/dispatch_isas.hpp"
#include "posenc/kernels/dtypes.hpp"
#include "posenc/kernels/multi_axis.hpp"
#include "posenc/kernels/views.hpp"
#include "posenc/multi_axis.hpp"
#include "posenc/spec.hpp"

namespace posenc::kernels::dispatch {

#define POSENC_DETAIL_ISA_ENUMERATOR(entry, ...) entry,
/// The kernel builds runtime dispatch chooses between: the baseline, the header-only kernel at
/// the calling unit's kernels::default_arch (always there), then the entries of the ISA list
/// (dispatch_isas.hpp) in its order: increasing within a processor family.
enum class Isa { baseline, POSENC_DISPATCH_ISA_LIST(POSENC_DETAIL_ISA_ENUMERATOR) };
#undef POSENC_DETAIL_ISA_ENUMERATOR

#define POSENC_DETAIL_ISA_VALUE(entry, ...) Isa::entry,
/// Every per-ISA build, in increasing order (the baseline is always there and is not listed).
inline constexpr Isa dispatch_isas[] = {POSENC_DISPATCH_ISA_LIST(POSENC_DETAIL_ISA_VALUE)};
#undef POSENC_DETAIL_ISA_VALUE

/// The highest enumerator of the list.
inline constexpr Isa last_isa = dispatch_isas[sizeof(dispatch_isas) / sizeof(dispatch_isas[0]) - 1];

}  // namespace posenc::kernels::dispatch

// The dispatch plumbing (type-erased calls, the per-ISA entry points run_<isa>, run_fused_<isa>,
// decode_steps_<isa>) lives in kernels::detail::dispatch, with the kernels' other internals.
namespace posenc::kernels::detail::dispatch {

using kernels::dispatch::CpuFeatures;
using kernels::dispatch::Isa;

/// Which angle source a type-erased call carries (multi-axis calls carry the gathering
/// source of kernels/multi_axis.hpp around one of the two).
enum class AngleSourceKind { cache, on_the_fly, multi_axis_cache, multi_axis_on_the_fly };

template <class Angles>
inline constexpr bool is_dispatchable_angle_source =
    std::is_same_v<Angles, CosSinCache> || std::is_same_v<Angles, OnTheFlyAngles>;

template <class Angles>
inline constexpr AngleSourceKind angle_kind_of =
    std::is_same_v<Angles, CosSinCache>                                   ? AngleSourceKind::cache
    : std::is_same_v<Angles, OnTheFlyAngles>                              ? AngleSourceKind::on_the_fly
    : std::is_same_v<Angles, kernels::detail::MultiAxisRows<CosSinCache>> ? AngleSourceKind::multi_axis_cache
                                                                          : AngleSourceKind::multi_axis_on_the_fly;

/// One kernel call with its element type and angle source erased, so that one non-template
/// function per ISA can serve every combination: run_<isa> (apply) and run_fused_<isa> (the
/// fused steps of fused_dispatch.hpp).
struct KernelCall {
    const RopeSpec* spec;
    const void* angles;  ///< CosSinCache, OnTheFlyAngles or their MultiAxisRows, by angle_kind
    AngleSourceKind angle_kind;
    const PositionIds* positions;
    const void* tensors;  ///< QKViews<T> (run) or kernels::detail::FusedArgs<T> (run_fused), by storage
    StorageType storage;
    Direction direction;  ///< (the fused steps rotate forward)
    TokenRange range;
};

/// A decode step's kernel on one ISA: kernels::detail::rope_token_in_place with the angle source
/// and the element type erased. Six arguments in registers: the checked entry reaches it by one
/// indirect jump.
using DecodeStep = void (*)(const void* angles, std::int64_t position, void* x, std::ptrdiff_t heads,
                            std::ptrdiff_t head_stride, int num_pairs) noexcept;

/// One ISA's decode steps, indexed by Pairing (half_split, interleaved), StorageType (float32,
/// bfloat16, float16) and AngleSourceKind (cache, on_the_fly), in their enumerators' order.
struct DecodeSteps {
    DecodeStep step[2][3][2];

    template <class T, class Angles>
    DecodeStep of(Pairing pairing) const noexcept
    {
        return step[static_cast<int>(pairing)][static_cast<int>(storage_type_of<T>)]
                   [static_cast<int>(angle_kind_of<Angles>)];
    }
};
static_assert(static_cast<int>(Pairing::interleaved) == 1 && static_cast<int>(StorageType::float16) == 2 &&
                  static_cast<int>(AngleSourceKind::on_the_fly) == 1,
              "DecodeSteps is indexed by these enumerators' values");

/// The entry points of one ISA's build: run_<isa>, run_fused_<isa>, decode_steps_<isa> (all
/// null where this binary lacks that build).
struct EntryPoints {
    using Run = void (*)(const KernelCall& call) noexcept;
    Run run = nullptr;
    Run run_fused = nullptr;
    const DecodeSteps* decode_steps = nullptr;
};

/// An entry of the ISA list as a type: its name, xsimd arch and CPU test, whether this binary
/// holds its build, and that build's entry points. They are defined in the per-ISA translation
/// units that posenc_add_dispatch generates (POSENC_DISPATCH_DEFINE_TARGET, dispatch_target.hpp);
/// those of an ISA not compiled in are named only in a discarded `if constexpr` branch.
template <Isa isa>
struct IsaEntry;

#define POSENC_DETAIL_ISA_ENTRY(entry, processor, entry_arch, flags, cpu_test)                                         \
    void run_##entry(const KernelCall& call) noexcept;                                                                 \
    void run_fused_##entry(const KernelCall& call) noexcept;                                                           \
    extern const DecodeSteps decode_steps_##entry;                                                                     \
    template <>                                                                                                        \
    struct IsaEntry<Isa::entry> {                                                                                      \
        using arch = entry_arch;                                                                                       \
        static constexpr const char* name = #entry;                                                                    \
        static constexpr bool compiled = POSENC_DISPATCH_ISA_COMPILED(entry) != 0;                                     \
        static bool cpu_runs(const CpuFeatures& f) noexcept { return cpu_test; }                                       \
        static EntryPoints entry_points() noexcept                                                                     \
        {                                                                                                              \
            if constexpr (compiled) return {&run_##entry, &run_fused_##entry, &decode_steps_##entry};                  \
            else return {};                                                                                            \
        }                                                                                                              \
    };
POSENC_DISPATCH_ISA_LIST(POSENC_DETAIL_ISA_ENTRY)
#undef POSENC_DETAIL_ISA_ENTRY

/// visit(IsaEntry<isa> {}) for an entry of the ISA list; `otherwise` for the baseline (and for a
/// value outside the enumeration). The one switch over the list.
template <class Visit, class R>
constexpr R visit_isa(Isa isa, Visit visit, R otherwise) noexcept
{
#define POSENC_DETAIL_ISA_CASE(entry, ...)                                                                             \
    case Isa::entry: return visit(IsaEntry<Isa::entry> {});
    switch (isa) {
        POSENC_DISPATCH_ISA_LIST(POSENC_DETAIL_ISA_CASE)
    default: return otherwise;
    }
#undef POSENC_DETAIL_ISA_CASE
}

}  // namespace posenc::kernels::detail::dispatch

namespace posenc::kernels::dispatch {

/// "baseline" or the name of an entry of the ISA list ("avx2", "neon", ...).
inline const char* to_string(Isa isa) noexcept
{
    const char* unknown = isa == Isa::baseline ? "baseline" : "unknown";
    return detail::dispatch::visit_isa(
        isa, [](auto entry) { return decltype(entry)::name; }, unknown);
}

/// Whether this binary contains the per-ISA build (posenc_add_dispatch on the calling target).
inline constexpr bool isa_compiled(Isa isa) noexcept
{
    return detail::dispatch::visit_isa(
        isa, [](auto entry) { return decltype(entry)::compiled; }, isa == Isa::baseline);
}

/// The highest ISA dispatch may use, from the environment variable POSENC_DISPATCH_MAX_ISA
/// ("baseline" or a name of the ISA list, e.g. "avx2", "neon"), read once; no cap when unset or
/// unrecognised (so that one machine runs the suite as one without AVX-512 would).
inline Isa max_isa_from_environment() noexcept
{
    static const Isa cap = [] {
        const char* value = std::getenv("POSENC_DISPATCH_MAX_ISA");
        if (value == nullptr) return last_isa;
        const std::string v(value);
        if (v == to_string(Isa::baseline)) return Isa::baseline;
        for (Isa isa : dispatch_isas)
            if (v == to_string(isa)) return isa;
        return last_isa;
    }();
    return cap;
}

/// Whether the CPU (and OS) can run that ISA's build (the CPU test of its entry in the ISA
/// list), within POSENC_DISPATCH_MAX_ISA.
inline bool isa_supported_by_cpu(Isa isa) noexcept
{
    if (static_cast<int>(isa) > static_cast<int>(max_isa_from_environment())) return false;
    const CpuFeatures& f = cpu_features();
    return detail::dispatch::visit_isa(
        isa, [&](auto entry) { return decltype(entry)::cpu_runs(f); }, isa == Isa::baseline);
}

/// Compiled in and supported: apply_rope_on(isa, ...) may use it.
inline bool isa_available(Isa isa) noexcept { return isa_compiled(isa) && isa_supported_by_cpu(isa); }

/// The name of the arch behind an ISA (e.g. "sse4.2", "fma3+avx2", "avx512bw", "avx512bw+bf16",
/// "arm64+neon", "arm64+neon+fp16+bf16", or the baseline's: kernels::default_arch, "sse2" on
/// x86-64 without -march).
inline const char* arch_name(Isa isa) noexcept
{
    const char* baseline = kernels::default_arch::name();
    return detail::dispatch::visit_isa(
        isa, [](auto entry) { return decltype(entry)::arch::name(); }, baseline);
}

/// The ISAs this binary holds: the baseline first, then every entry of the ISA list whose
/// per-ISA unit is compiled in (posenc_add_dispatch, or posenc.pc's units and defines), in the
/// list's order. Only the baseline when no unit is compiled in.
inline std::vector<Isa> compiled_isas()
{
    std::vector<Isa> out {Isa::baseline};
    for (Isa isa : dispatch_isas)
        if (isa_compiled(isa)) out.push_back(isa);
    return out;
}

/// The best entry of the ISA list this CPU runs (within POSENC_DISPATCH_MAX_ISA), compiled in
/// or not; the baseline when it runs none.
inline Isa best_cpu_isa() noexcept
{
    Isa found = Isa::baseline;
    for (Isa isa : dispatch_isas)
        if (isa_supported_by_cpu(isa)) found = isa;  // the list is in increasing order
    return found;
}

/// Empty, unless dispatch runs the baseline although the CPU runs an entry of the ISA list whose
/// unit this binary lacks (the build compiled no per-ISA unit) and that is above the baseline's
/// own arch (a -march build's baseline may run it already): then one line naming the
/// baseline's arch, the CPU's best ISA and how to compile it in. best_isa() writes it to stderr
/// once, on its first call, unless the environment sets POSENC_DISPATCH_QUIET.
inline std::string missed_isa_diagnostic()
{
    Isa best = Isa::baseline;
    for (Isa isa : dispatch_isas)
        if (isa_available(isa)) best = isa;
    const Isa cpu = best_cpu_isa();
    if (best != Isa::baseline || cpu == Isa::baseline) return {};
    // a baseline compiled for that ISA or better (-march) already runs it: xsimd's arch versions
    const unsigned cpu_version = detail::dispatch::visit_isa(
        cpu, [](auto entry) { return decltype(entry)::arch::version(); }, 0u);
    if (cpu_version <= kernels::default_arch::version()) return {};
    return std::string("posenc: runtime dispatch runs the baseline kernel (") + arch_name(Isa::baseline) +
           ") although this CPU runs " + to_string(cpu) + " (" + arch_name(cpu) +
           "): no per-ISA unit is compiled into this binary; add posenc_add_dispatch(<target>) "
           "(docs/kernels.md, \"Runtime dispatch\") or compile with -march; POSENC_DISPATCH_QUIET=1 "
           "silences this line";
}

/// The ISA dispatch::apply_rope uses: the best available one (baseline if none). Its first call
/// writes missed_isa_diagnostic() to stderr when that is not empty (once per process).
inline Isa best_isa() noexcept
{
    static const Isa best = [] {  // found once: a decode call is too short to search on every call
        Isa found = Isa::baseline;
        for (Isa isa : dispatch_isas)
            if (isa_available(isa)) found = isa;  // the list is in increasing order
        if (found == Isa::baseline && std::getenv("POSENC_DISPATCH_QUIET") == nullptr) {
            try {
                const std::string line = missed_isa_diagnostic();
                if (!line.empty()) std::fprintf(stderr, "%s\n", line.c_str());
            } catch (...) {  // no diagnostic without memory; dispatch goes on
            }
        }
        return found;
    }();
    return best;
}

/// One line for a log: the ISA dispatch runs and its arch, the ISAs compiled in, the CPU's best,
/// e.g. "dispatch runs avx512_bf16 (avx512bw+bf16); compiled: baseline (sse2), sse4_2, avx2,
/// avx512, avx512_bf16; this CPU runs up to avx512_bf16".
inline std::string dispatch_summary()
{
    std::string out =
        std::string("dispatch runs ") + to_string(best_isa()) + " (" + arch_name(best_isa()) + "); compiled: ";
    const std::vector<Isa> compiled = compiled_isas();
    for (std::size_t i = 0; i < compiled.size(); ++i) {
        out += (i ? ", " : "") + std::string(to_string(compiled[i]));
        if (compiled[i] == Isa::baseline) out += std::string(" (") + arch_name(Isa::baseline) + ")";
    }
    return out + "; this CPU runs up to " + to_string(best_cpu_isa());
}

}  // namespace posenc::kernels::dispatch

namespace posenc::kernels::detail::dispatch {

using kernels::dispatch::best_isa;
using kernels::dispatch::isa_available;
using kernels::dispatch::isa_compiled;
using kernels::dispatch::to_string;

/// A call with its tensors (QKViews<T> or kernels::detail::FusedArgs<T>) and angle source erased.
template <template <class> class Tensors, class T, class Angles>
KernelCall make_call(const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                     const Tensors<T>& tensors, Direction direction, TokenRange range) noexcept
{
    return {&spec, &angles, angle_kind_of<Angles>, &positions, &tensors, storage_type_of<T>, direction, range};
}

/// The entry points of an ISA compiled into this binary; all null for the baseline and for an
/// ISA not compiled in.
inline EntryPoints compiled_entry_points(Isa isa) noexcept
{
    return visit_isa(
        isa, [](auto entry) { return decltype(entry)::entry_points(); }, EntryPoints {});
}

/// Runs a call on a per-ISA build's entry `run` (&EntryPoints::run or ::run_fused); false if
/// that build is not compiled in (the caller then runs the baseline).
inline bool run_compiled(Isa isa, const KernelCall& call,
                         EntryPoints::Run EntryPoints::*run = &EntryPoints::run) noexcept
{
    const EntryPoints::Run entry = compiled_entry_points(isa).*run;
    if (entry != nullptr) entry(call);
    return entry != nullptr;
}

/// The one refusal (at compile time) of an angle source that runtime dispatch cannot carry.
template <class Angles>
constexpr void require_dispatchable_angle_source() noexcept
{
    static_assert(is_dispatchable_angle_source<Angles>,
                  "Runtime dispatch carries CosSinCache or OnTheFlyAngles; call the kernels:: entry point of the same "
                  "name for other angle sources.");
}

/// The one refusal of an ISA: throws posenc::error unless `isa` is compiled into this binary and
/// supported by this CPU. Every checked kernels::dispatch:: entry point on a chosen ISA calls it.
inline void require_isa(Isa isa)
{
    if (!isa_available(isa))
        throw posenc::error("isa", to_string(isa),
                            isa_compiled(isa) ? "is not supported by this CPU"
                                              : "was not compiled into this binary (posenc_add_dispatch)");
}

/// The decode steps of best_isa(), found once (a guarded constant, inline in the caller); null
/// for the baseline (the calling unit's own kernel then runs).
POSENC_ALWAYS_INLINE const DecodeSteps* best_decode_steps() noexcept
{
    static const DecodeSteps* const steps = compiled_entry_points(best_isa()).decode_steps;
    return steps;
}

/// A decode step (kernels::detail::is_decode_step) on best_isa(): one indirect jump to that
/// ISA's decode step, or the calling unit's own kernel for the baseline.
template <class T, class Angles>
POSENC_ALWAYS_INLINE void dispatch_decode_step(const RopeSpec& spec, const Angles& angles, std::int64_t position,
                                               const HeadsView<T>& q) noexcept
{
    if (const DecodeSteps* steps = best_decode_steps())
        steps->of<T, Angles>(spec.pairing())(&angles, position, q.data + spec.rotary_offset(), q.heads, q.head_stride,
                                             spec.num_pairs());
    else kernels::detail::run_decode_step<kernels::default_arch>(spec, angles, position, q);
}

}  // namespace posenc::kernels::detail::dispatch

namespace posenc::kernels::dispatch {

/// Unchecked apply on a chosen ISA (same preconditions as kernels::apply_rope_unchecked, plus
/// isa_available(isa)). T = double always runs the reference path.
template <class T, class Angles>
void apply_rope_unchecked_on(Isa isa, const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                             const QKViews<T>& views, Direction direction = Direction::forward,
                             TokenRange range = all_tokens) noexcept
{
    detail::dispatch::require_dispatchable_angle_source<Angles>();
    range = kernels::detail::within(range, views.tokens());
    POSENC_ASSERT(isa_available(isa));
    POSENC_ASSERT(kernels::detail::rope_call_is_valid(spec, angles, positions, views, range));
    if constexpr (!std::is_same_v<T, double>) {
        if (detail::dispatch::run_compiled(
                isa, detail::dispatch::make_call(spec, angles, positions, views, direction, range)))
            return;
    }
    kernels::apply_rope_unchecked(spec, angles, positions, views, direction, range);
}

/// Checked apply (kernels::apply_rope's checks) on a chosen ISA; throws posenc::error if that
/// ISA is not available in this binary on this CPU. For tests and benchmarks of one path.
template <class T, class Angles>
void apply_rope_on(Isa isa, const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                   const QKViews<T>& views, Direction direction = Direction::forward, TokenRange range = all_tokens)
{
    detail::dispatch::require_isa(isa);
    range = kernels::detail::within(range, views.tokens());
    kernels::detail::check_rope_call(spec, angles, positions, views, range);
    kernels::detail::check_direction(direction);
    dispatch::apply_rope_unchecked_on(isa, spec, angles, positions, views, direction, range);
}

}  // namespace posenc::kernels::dispatch

namespace posenc::kernels::detail::dispatch {

/// kernels::dispatch::apply_rope's path for every call but the usual decode step: all the checks,
/// then best_isa()'s kernel. Out of line, off the decode step's path (as kernels::apply_rope's).
template <class T, class Angles>
POSENC_NOINLINE void check_and_dispatch_rope(const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                                             const QKViews<T>& views, Direction direction, TokenRange range)
{
    kernels::detail::check_rope_call(spec, angles, positions, views, range);
    kernels::detail::check_direction(direction);
    kernels::dispatch::apply_rope_unchecked_on(best_isa(), spec, angles, positions, views, direction, range);
}

}  // namespace posenc::kernels::detail::dispatch

namespace posenc::kernels::dispatch {

/// Checked apply on best_isa(): the entry point for a one-binary engine. Same arguments,
/// checks and results (to within each ISA's rounding, see apply.hpp) as kernels::apply_rope,
/// whose inline test sends a decode step to best_isa()'s decode step.
template <class T, class Angles>
void apply_rope(const RopeSpec& spec, const Angles& angles, const PositionIds& positions, const QKViews<T>& views,
                Direction direction = Direction::forward, TokenRange range = all_tokens)
{
    detail::dispatch::require_dispatchable_angle_source<Angles>();
    range = kernels::detail::within(range, views.tokens());
    if constexpr (!std::is_same_v<T, double>) {
        if (kernels::detail::is_decode_step(spec, angles, positions, views, direction, range)) {
            detail::dispatch::dispatch_decode_step(spec, angles, positions.start(), views.q_out);
            return;
        }
    }
    detail::dispatch::check_and_dispatch_rope(spec, angles, positions, views, direction, range);
}

/// Unchecked apply on best_isa().
template <class T, class Angles>
void apply_rope_unchecked(const RopeSpec& spec, const Angles& angles, const PositionIds& positions,
                          const QKViews<T>& views, Direction direction = Direction::forward,
                          TokenRange range = all_tokens) noexcept
{
    dispatch::apply_rope_unchecked_on(best_isa(), spec, angles, positions, views, direction, range);
}

// ---- multi-axis RoPE (kernels/multi_axis.hpp) ------------------------------------------------

/// Unchecked multi-axis apply on a chosen ISA (kernels::apply_multi_axis_rope_unchecked's
/// preconditions, plus isa_available(isa)). T = double always runs the reference path.
template <class T, class Angles>
void apply_multi_axis_rope_unchecked_on(Isa isa, const RopeSpec& spec, const MultiAxisLayout& layout,
                                        const Angles& angles, const MultiAxisPositions& positions,
                                        const QKViews<T>& views, Direction direction = Direction::forward,
                                        TokenRange range = all_tokens) noexcept
{
    detail::dispatch::require_dispatchable_angle_source<Angles>();
    range = kernels::detail::within(range, views.tokens());
    POSENC_ASSERT(isa_available(isa));
    POSENC_ASSERT(kernels::detail::passes(
        [&] { kernels::detail::check_multi_axis_call(spec, layout, angles, positions, views, range); }));
    if constexpr (!std::is_same_v<T, double>) {
        const auto rows = kernels::detail::make_multi_axis_rows(layout, angles, positions, views.tokens());
        const PositionIds token_index = PositionIds::contiguous(0);
        if (detail::dispatch::run_compiled(
                isa, detail::dispatch::make_call(spec, rows, token_index, views, direction, range)))
            return;
    }
    kernels::apply_multi_axis_rope_unchecked(spec, layout, angles, positions, views, direction, range);
}

/// Checked multi-axis apply (kernels::apply_multi_axis_rope's checks) on a chosen ISA; throws
/// posenc::error if that ISA is not available in this binary on this CPU.
template <class T, class Angles>
void apply_multi_axis_rope_on(Isa isa, const RopeSpec& spec, const MultiAxisLayout& layout, const Angles& angles,
                              const MultiAxisPositions& positions, const QKViews<T>& views,
                              Direction direction = Direction::forward, TokenRange range = all_tokens)
{
    detail::dispatch::require_isa(isa);
    range = kernels::detail::within(range, views.tokens());
    kernels::detail::check_multi_axis_call(spec, layout, angles, positions, views, range);
    kernels::detail::check_direction(direction);
    dispatch::apply_multi_axis_rope_unchecked_on(isa, spec, layout, angles, positions, views, direction, range);
}

/// Checked multi-axis apply on best_isa(): same arguments, checks and results as
/// kernels::apply_multi_axis_rope (to within each ISA's rounding).
template <class T, class Angles>
void apply_multi_axis_rope(const RopeSpec& spec, const MultiAxisLayout& layout, const Angles& angles,
                           const MultiAxisPositions& positions, const QKViews<T>& views,
                           Direction direction = Direction::forward, TokenRange range = all_tokens)
{
    dispatch::apply_multi_axis_rope_on(best_isa(), spec, layout, angles, positions, views, direction, range);
}

/// Unchecked multi-axis apply on best_isa().
template <class T, class Angles>
void apply_multi_axis_rope_unchecked(const RopeSpec& spec, const MultiAxisLayout& layout, const Angles& angles,
                                     const MultiAxisPositions& positions, const QKViews<T>& views,
                                     Direction direction = Direction::forward, TokenRange range = all_tokens) noexcept
{
    dispatch::apply_multi_axis_rope_unchecked_on(best_isa(), spec, layout, angles, positions, views, direction, range);
}

}  // namespace posenc::kernels::dispatch
