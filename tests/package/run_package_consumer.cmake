# SPDX-License-Identifier: MIT
# Installs posenc into a temporary prefix as a fresh machine with only Eigen and xsimd would:
# the configure hides doctest, Google Benchmark and nlohmann_json (CMAKE_DISABLE_FIND_PACKAGE_*)
# and keeps the default options, so tests, examples and benchmarks must skip themselves. Then,
# against the installed tree:
#  1. tests/package/consumer with find_package(posenc CONFIG REQUIRED), including a program
#     that uses runtime dispatch through posenc_add_dispatch() from the installed package and
#     one that runs the installed benchmark harness (posenc/bench/harness.hpp) on its own kernel;
#  2. a plain compiler call with the flags of `pkg-config --cflags posenc`;
#  3. runtime dispatch without CMake (x86-64): the installed per-ISA units compiled with the flags
#     posenc.pc names (dispatch_unitdir, dispatch_flags_<isa>), here the sse4_2 and avx2 units
#     with their two defines (the recipe takes all four; two keep the test short), linked with
#     tests/package/consumer/dispatch.cpp, which fails unless the AVX2 unit is compiled in;
#  4. the header-only library installed again (--component Unspecified, nothing built) where
#     nlohmann_json is found, and the consumer with posenc::hf_config (the config reader's
#     target, which brings nlohmann_json); step 1 checked that the first install defines none.
# Run by ctest as `cmake -P`.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")

set(prefix "${WORK_DIR}/prefix")

run("${CMAKE_COMMAND}" -S "${POSENC_SOURCE_DIR}" -B "${WORK_DIR}/posenc-build" ${GENERATOR_ARGS}
    -DCMAKE_DISABLE_FIND_PACKAGE_doctest=ON
    -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON
    -DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON
    -DPOSENC_BUILD_BENCHMARKS=ON
    "-DCMAKE_INSTALL_PREFIX=${prefix}")
run("${CMAKE_COMMAND}" --install "${WORK_DIR}/posenc-build")
foreach(f include/posenc/posenc.hpp include/posenc/bench/harness.hpp share/cmake/posenc/posencConfig.cmake share/cmake/posenc/posencConfigVersion.cmake
          share/cmake/posenc/posencDispatch.cmake share/pkgconfig/posenc.pc)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "install is missing ${f}")
  endif()
endforeach()

# 1. CMake consumer (find_package, posenc_add_dispatch)
run("${CMAKE_COMMAND}" -S "${POSENC_SOURCE_DIR}/tests/package/consumer" -B "${WORK_DIR}/consumer-build" ${GENERATOR_ARGS}
    "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
run("${CMAKE_COMMAND}" --build "${WORK_DIR}/consumer-build")
run("${WORK_DIR}/consumer-build/posenc_consumer")
run("${WORK_DIR}/consumer-build/posenc_dispatch_consumer")
run("${WORK_DIR}/consumer-build/posenc_bench_consumer")

# 2. pkg-config consumer: g++ $(pkg-config --cflags posenc) main.cpp
find_program(PKG_CONFIG pkg-config REQUIRED)
set(ENV{PKG_CONFIG_PATH} "${prefix}/share/pkgconfig")
execute_process(COMMAND "${PKG_CONFIG}" --cflags posenc OUTPUT_VARIABLE cflags RESULT_VARIABLE rc
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config --cflags posenc failed (${rc})")
endif()
execute_process(COMMAND "${PKG_CONFIG}" --variable=includedir posenc OUTPUT_VARIABLE includedir
                OUTPUT_STRIP_TRAILING_WHITESPACE)
file(REAL_PATH "${includedir}" includedir)
file(REAL_PATH "${prefix}/include" expected)
if(NOT includedir STREQUAL expected)
  message(FATAL_ERROR "posenc.pc's includedir is '${includedir}', not the installed ${expected}")
endif()
separate_arguments(cflags UNIX_COMMAND "${cflags}")
run("${CXX_COMPILER}" ${cflags} "${POSENC_SOURCE_DIR}/tests/package/consumer/main.cpp" -o "${WORK_DIR}/pkg_config_consumer")
run("${WORK_DIR}/pkg_config_consumer")

# 3. runtime dispatch without CMake: pkg-config's per-ISA units and flags
if(CMAKE_HOST_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  execute_process(COMMAND "${PKG_CONFIG}" --variable=dispatch_unitdir posenc OUTPUT_VARIABLE unitdir
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(objects)
  set(defines)
  foreach(isa sse4_2 avx2)
    execute_process(COMMAND "${PKG_CONFIG}" --variable=dispatch_flags_${isa} posenc OUTPUT_VARIABLE isa_flags
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    separate_arguments(isa_flags UNIX_COMMAND "${isa_flags}")
    if(NOT isa_flags OR NOT EXISTS "${unitdir}/posenc_kernels_${isa}.cpp")
      message(FATAL_ERROR "posenc.pc names no ${isa} flags or no installed unit in '${unitdir}'")
    endif()
    run("${CXX_COMPILER}" -std=c++17 -O1 ${cflags} ${isa_flags} -c "${unitdir}/posenc_kernels_${isa}.cpp"
        -o "${WORK_DIR}/posenc_kernels_${isa}.o")
    list(APPEND objects "${WORK_DIR}/posenc_kernels_${isa}.o")
    list(APPEND defines "-DPOSENC_DISPATCH_ISA_${isa}=1")
  endforeach()
  execute_process(COMMAND "${PKG_CONFIG}" --variable=dispatch_defines posenc OUTPUT_VARIABLE all_defines
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  foreach(define IN LISTS defines)
    string(FIND "${all_defines}" "${define}" at)
    if(at LESS 0)
      message(FATAL_ERROR "posenc.pc's dispatch_defines '${all_defines}' lacks ${define}")
    endif()
  endforeach()
  run("${CXX_COMPILER}" -std=c++17 -O1 ${cflags} ${defines} "${POSENC_SOURCE_DIR}/tests/package/consumer/dispatch.cpp"
      ${objects} -o "${WORK_DIR}/pkg_config_dispatch_consumer")
  run("${WORK_DIR}/pkg_config_dispatch_consumer")
endif()

# 4. posenc::hf_config from a posenc installed where nlohmann_json was found
set(prefix_hf "${WORK_DIR}/prefix-hf-config")
run("${CMAKE_COMMAND}" -S "${POSENC_SOURCE_DIR}" -B "${WORK_DIR}/posenc-build-hf-config" ${GENERATOR_ARGS}
    -DPOSENC_BUILD_TESTS=OFF -DPOSENC_BUILD_EXAMPLES=OFF "-DCMAKE_INSTALL_PREFIX=${prefix_hf}")
run("${CMAKE_COMMAND}" --install "${WORK_DIR}/posenc-build-hf-config" --component Unspecified)
run("${CMAKE_COMMAND}" -S "${POSENC_SOURCE_DIR}/tests/package/consumer" -B "${WORK_DIR}/consumer-build-hf-config" ${GENERATOR_ARGS}
    "-DCMAKE_PREFIX_PATH=${prefix_hf}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" -DPOSENC_CONSUMER_HF_CONFIG=ON)
run("${CMAKE_COMMAND}" --build "${WORK_DIR}/consumer-build-hf-config" --target posenc_hf_config_consumer)
run("${WORK_DIR}/consumer-build-hf-config/posenc_hf_config_consumer")
