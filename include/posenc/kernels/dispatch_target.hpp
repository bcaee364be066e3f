// SPDX-License-Identifier: MIT
// posenc/kernels/dispatch_target.hpp: the body of one per-ISA translation unit of runtime
// dispatch. Include it only from a file compiled with that ISA's flags, as posenc_add_dispatch
// (cmake/posencDispatch.cmake) generates:
//
//     #include <posenc/kernels/dispatch_target.hpp>
//     POSENC_DISPATCH_DEFINE_TARGET(avx2, xsimd::fma3<xsimd::avx2>)
//
// which defines posenc::kernels::dispatch::detail::run_avx2, the type-erased entry that
// dispatch.hpp calls: it recovers the element type and angle source and runs the generic
// kernel (apply.hpp) instantiated for that arch. Doing the same by hand in your own build
// system works too: compile one such file per ISA with the flags listed in dispatch.hpp and
// define POSENC_DISPATCH_<ISA>=1 for the code that calls dispatch::apply_rope.
#pragma once

// Marks this translation unit as a per-ISA unit (apply.hpp keeps its debug assertions to what
// is instantiated per arch). Must precede every posenc include of the unit.
#ifndef POSENC_DETAIL_DISPATCH_UNIT
#define POSENC_DETAIL_DISPATCH_UNIT 1
#endif
#include "posenc/kernels/dispatch.hpp"

namespace posenc::kernels::dispatch::detail {

template <class Arch, class T>
void run_typed(const KernelCall& call) noexcept
{
    const auto& views = *static_cast<const QKViews<T>*>(call.views);
    if (call.angle_kind == AngleSourceKind::cache)
        kernels::apply_rope_unchecked_on(Arch {}, *call.spec, *static_cast<const CosSinCache*>(call.angles),
                                         *call.positions, views, call.direction, call.range);
    else
        kernels::apply_rope_unchecked_on(Arch {}, *call.spec, *static_cast<const OnTheFlyAngles*>(call.angles),
                                         *call.positions, views, call.direction, call.range);
}

/// Recovers the storage type of a call and runs the kernel for Arch.
template <class Arch>
void run_kernel_call(const KernelCall& call) noexcept
{
    switch (call.storage) {
    case StorageType::float32: run_typed<Arch, float>(call); break;
    case StorageType::bfloat16: run_typed<Arch, bfloat16>(call); break;
    case StorageType::float16: run_typed<Arch, float16>(call); break;
    case StorageType::float64: break;  // double never reaches a per-ISA unit (dispatch.hpp)
    }
}

}  // namespace posenc::kernels::dispatch::detail

/// Defines dispatch::detail::run_<isa> for `arch`; the unit's flags must enable that arch.
#define POSENC_DISPATCH_DEFINE_TARGET(isa, arch)                                                              \
    static_assert(arch::supported(), "posenc: this dispatch unit must be compiled with the flags of " #isa \
                                     " (see posenc/kernels/dispatch.hpp).");                                \
    void posenc::kernels::dispatch::detail::run_##isa(const KernelCall& call) noexcept                       \
    {                                                                                                         \
        run_kernel_call<arch>(call);                                                                          \
    }
