# SPDX-License-Identifier: MIT
# Installs posenc into a temporary prefix as a fresh machine with only Eigen and xsimd would:
# the configure hides doctest, Google Benchmark and nlohmann_json (CMAKE_DISABLE_FIND_PACKAGE_*)
# and keeps the default options, so tests, examples and benchmarks must skip themselves. Then,
# against the installed tree:
#  1. tests/package/consumer with find_package(posenc CONFIG REQUIRED), including a program
#     that uses runtime dispatch through posenc_add_dispatch() from the installed package;
#  2. a plain compiler call with the flags of `pkg-config --cflags posenc`.
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
foreach(f include/posenc/posenc.hpp share/cmake/posenc/posencConfig.cmake share/cmake/posenc/posencConfigVersion.cmake
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
