# SPDX-License-Identifier: MIT
# The per-ISA kernel units of runtime dispatch inside posenc's own build: one OBJECT library per
# entry of the ISA list (include/posenc/kernels/dispatch_isas.hpp) for the processor being built
# for, posenc_kernels_<isa>, compiled once per build folder and linked by every target of this
# project that uses dispatch (the test folders, the dispatch example, the Python module):
#
#     posenc_link_kernel_objects(<target>)
#
# links the objects and defines POSENC_DISPATCH_ISA_<isa>=1 for <target>, as posenc_add_dispatch
# does for a user's target (cmake/posencDispatch.cmake, installed and unchanged; this file is
# neither installed nor used by find_package). Each unit holds only
# POSENC_DISPATCH_DEFINE_TARGET(isa, arch) (posenc/kernels/dispatch_target.hpp).
#
# One flag set for all the consumers of a build folder (they all share its compiler, build type,
# POSENC_EXTRA_FLAGS and POSENC_WERROR):
#  - the ISA's flags from the list, the build type's flags and posenc_project_target's warnings,
#    -Werror and POSENC_EXTRA_FLAGS (with sanitizers the objects are instrumented like the rest);
#  - the optimisation: POSENC_OPTIMIZED_TEST_FLAGS when the suite has optimised folders (the
#    suite presets: the level the kernel tests check the kernels at, -O2); else -O2 in a Release
#    (-O3) build of the Python module with POSENC_PYTHON_TRIM_OPTIMIZATION (docs/python.md, "Build
#    time"); else the build type's own (Debug's -O0 in the `isa` stage, whose symbol check needs
#    code that is not inlined);
#  - position-independent with hidden visibility, for the Python module (a shared library that
#    exports only its init function); executables lose nothing: g++ and clang++ build PIE by
#    default on Debian, and the objects' code is the same (docs/architecture.md, build map);
#  - every POSENC_DISPATCH_ISA_<isa>=1 of the list on every unit, as on the consumers:
#    dispatch.hpp's inline functions read them, and their one definition must hold in all units;
#  - never merged into a unity build unit (their flags are their own).
# Kept out, each with a flag set of its own and posenc_add_dispatch: bench_kernels (-O3
# -march=native, the build its dispatch rows measure) and fuzz_kernels (libFuzzer's
# instrumentation, which cannot link into the test executables).

set(POSENC_KERNEL_OBJECT_LIBRARIES "")
posenc_dispatch_processor(_posenc_object_processor)
posenc_dispatch_isas("${_posenc_object_processor}" _posenc_object_isas)
if(NOT _posenc_object_isas OR NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  message(STATUS "posenc: no per-ISA kernel objects for ${CMAKE_SYSTEM_PROCESSOR} / ${CMAKE_CXX_COMPILER_ID}; "
                 "dispatch uses the baseline kernel")
  set(_posenc_object_isas "")
endif()

set(_posenc_kernel_optimization "")
if(POSENC_BUILD_TESTS AND POSENC_OPTIMIZED_TEST_FOLDERS)
  set(_posenc_kernel_optimization ${POSENC_OPTIMIZED_TEST_FLAGS})
elseif(POSENC_BUILD_PYTHON AND POSENC_PYTHON_TRIM_OPTIMIZATION AND CMAKE_CXX_FLAGS_RELEASE MATCHES "-O3"
       AND CMAKE_BUILD_TYPE STREQUAL "Release")
  set(_posenc_kernel_optimization -O2)
endif()

set(_posenc_isa_defines "")
foreach(_isa IN LISTS _posenc_object_isas)
  list(APPEND _posenc_isa_defines POSENC_DISPATCH_ISA_${_isa}=1)
endforeach()

foreach(_isa IN LISTS _posenc_object_isas)
  set(_source "${PROJECT_BINARY_DIR}/posenc_kernel_objects/posenc_kernels_${_isa}.cpp")
  file(CONFIGURE OUTPUT "${_source}" CONTENT
"// Generated for posenc_kernels_${_isa} (cmake/posencKernelObjects.cmake) from the ISA list
#include <posenc/kernels/dispatch_target.hpp>
POSENC_DISPATCH_DEFINE_TARGET(${_isa}, ${POSENC_ISA_ARCH_${_isa}})
" @ONLY)
  set_source_files_properties("${_source}" PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
  # EXCLUDE_FROM_ALL: compiled only when a consumer that links them is built
  add_library(posenc_kernels_${_isa} OBJECT EXCLUDE_FROM_ALL "${_source}")
  posenc_project_target(posenc_kernels_${_isa})
  target_compile_options(posenc_kernels_${_isa} PRIVATE ${_posenc_kernel_optimization} ${POSENC_ISA_FLAGS_${_isa}})
  target_compile_definitions(posenc_kernels_${_isa}
    PRIVATE ${_posenc_isa_defines}
    INTERFACE POSENC_DISPATCH_ISA_${_isa}=1)
  set_target_properties(posenc_kernels_${_isa} PROPERTIES
    POSITION_INDEPENDENT_CODE ON
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  list(APPEND POSENC_KERNEL_OBJECT_LIBRARIES posenc_kernels_${_isa})
endforeach()

# posenc_link_kernel_objects(<target>): the per-ISA objects and their defines for <target>
# (nothing where the processor or compiler has none: dispatch then runs the baseline kernel).
function(posenc_link_kernel_objects target)
  target_link_libraries(${target} PRIVATE ${POSENC_KERNEL_OBJECT_LIBRARIES})
endfunction()
