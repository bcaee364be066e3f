// SPDX-License-Identifier: MIT
// posenc/kernels/dispatch_target.hpp: the body of one per-ISA translation unit of runtime
// dispatch. Include it only from a file compiled with that ISA's flags, as posenc_add_dispatch
// (cmake/posencDispatch.cmake) generates:
//
//     #include <posenc/kernels/dispatch_target.hpp>
//     POSENC_DISPATCH_DEFINE_TARGET(avx2, xsimd::fma3<xsimd::avx2>)
//
// which defines posenc::kernels::detail::dispatch::run_avx2 and run_fused_avx2, the type-erased
// entries that dispatch.hpp calls (they recover the element type and angle source and run the
// generic kernels instantiated for that arch), and decode_steps_avx2, the table of that arch's
// decode-step kernels (one token, Q alone in place) that the checked entry jumps to. By hand, in
// another build system: compile one such file per ISA with the flags of its entry in the ISA
// list (dispatch_isas.hpp) and define POSENC_DISPATCH_ISA_<isa>=1 for the code that calls dispatch::.
#pragma once

// Marks this translation unit as a per-ISA unit (apply.hpp keeps its debug assertions to what
// is instantiated per arch). Must precede every posenc include of the unit.
#ifndef POSENC_DETAIL_DISPATCH_UNIT
#define POSENC_DETAIL_DISPATCH_UNIT 1
#endif
#include "posenc/kernels/dispatch.hpp"
#include "posenc/kernels/fused_dispatch.hpp"

namespace posenc::kernels::detail::dispatch {

/// visit(T {}) for the element type of a call: float, bfloat16 or float16 (double never reaches
/// a per-ISA unit: dispatch.hpp runs it in the calling unit).
template <class Visit>
void visit_storage(StorageType storage, const Visit& visit) noexcept
{
    switch (storage) {
    case StorageType::float32: visit(float {}); break;
    case StorageType::bfloat16: visit(bfloat16 {}); break;
    case StorageType::float16: visit(float16 {}); break;
    case StorageType::float64: break;
    }
}

/// Recovers the element type and angle source of a call and runs the kernel for Arch.
template <class Arch>
void run_kernel_call(const KernelCall& call) noexcept
{
    visit_storage(call.storage, [&](auto element) {
        const auto& views = *static_cast<const QKViews<decltype(element)>*>(call.tensors);
        auto run = [&](const auto* angles) {
            kernels::apply_rope_unchecked_on(Arch {}, *call.spec, *angles, *call.positions, views, call.direction,
                                             call.range);
        };
        switch (call.angle_kind) {
        case AngleSourceKind::cache: run(static_cast<const CosSinCache*>(call.angles)); break;
        case AngleSourceKind::on_the_fly: run(static_cast<const OnTheFlyAngles*>(call.angles)); break;
        case AngleSourceKind::multi_axis_cache: run(static_cast<const MultiAxisRows<CosSinCache>*>(call.angles)); break;
        case AngleSourceKind::multi_axis_on_the_fly:
            run(static_cast<const MultiAxisRows<OnTheFlyAngles>*>(call.angles));
            break;
        }
    });
}

/// Recovers the element type and angle source of a fused call (fused_dispatch.hpp; the
/// multi-axis steps carry the gathering source around either) and runs it for Arch.
template <class Arch>
void run_fused_call(const KernelCall& call) noexcept
{
    visit_storage(call.storage, [&](auto element) {
        const auto& args = *static_cast<const FusedArgs<decltype(element)>*>(call.tensors);
        auto run = [&](const auto* angles) {
            fused_run<Arch>(call.spec->pairing(), args, *angles, *call.positions, call.range);
        };
        switch (call.angle_kind) {
        case AngleSourceKind::cache: run(static_cast<const CosSinCache*>(call.angles)); break;
        case AngleSourceKind::on_the_fly: run(static_cast<const OnTheFlyAngles*>(call.angles)); break;
        case AngleSourceKind::multi_axis_cache: run(static_cast<const MultiAxisRows<CosSinCache>*>(call.angles)); break;
        case AngleSourceKind::multi_axis_on_the_fly:
            run(static_cast<const MultiAxisRows<OnTheFlyAngles>*>(call.angles));
            break;
        }
    });
}

/// The decode step of one (arch, pairing, storage, angle source): rope_token_in_place with its
/// arguments' types restored.
template <class Arch, Pairing P, class T, class Angles>
void decode_step(const void* angles, std::int64_t position, void* x, std::ptrdiff_t heads, std::ptrdiff_t head_stride,
                 int num_pairs) noexcept
{
    kernels::detail::rope_token_in_place<Arch, P>(*static_cast<const Angles*>(angles), position, static_cast<T*>(x),
                                                  heads, head_stride, num_pairs);
}

/// The table of an arch's decode steps (dispatch.hpp's DecodeSteps order), a constant.
template <class Arch>
constexpr DecodeSteps decode_steps_of() noexcept
{
    constexpr Pairing h = Pairing::half_split, i = Pairing::interleaved;
    using C = CosSinCache;
    using O = OnTheFlyAngles;
    return {{{{&decode_step<Arch, h, float, C>, &decode_step<Arch, h, float, O>},
              {&decode_step<Arch, h, bfloat16, C>, &decode_step<Arch, h, bfloat16, O>},
              {&decode_step<Arch, h, float16, C>, &decode_step<Arch, h, float16, O>}},
             {{&decode_step<Arch, i, float, C>, &decode_step<Arch, i, float, O>},
              {&decode_step<Arch, i, bfloat16, C>, &decode_step<Arch, i, bfloat16, O>},
              {&decode_step<Arch, i, float16, C>, &decode_step<Arch, i, float16, O>}}}};
}

}  // namespace posenc::kernels::detail::dispatch

/// Defines detail::dispatch::run_<isa>, run_fused_<isa> and decode_steps_<isa> for `arch`; the
/// unit's flags must enable that arch.
#define POSENC_DISPATCH_DEFINE_TARGET(isa, arch)                                                                       \
    static_assert(arch::supported(), "posenc: this dispatch unit must be compiled with the flags of " #isa             \
                                     " (see posenc/kernels/dispatch.hpp).");                                           \
    void posenc::kernels::detail::dispatch::run_##isa(const KernelCall& call) noexcept                                 \
    {                                                                                                                  \
        run_kernel_call<arch>(call);                                                                                   \
    }                                                                                                                  \
    void posenc::kernels::detail::dispatch::run_fused_##isa(const KernelCall& call) noexcept                           \
    {                                                                                                                  \
        run_fused_call<arch>(call);                                                                                    \
    }                                                                                                                  \
    const posenc::kernels::detail::dispatch::DecodeSteps posenc::kernels::detail::dispatch::decode_steps_##isa =       \
        decode_steps_of<arch>(); /* a constant expression: initialised before any code runs */
