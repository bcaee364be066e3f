# SPDX-License-Identifier: MIT
# Installs posenc into a temporary prefix, then configures, builds and runs tests/package/consumer
# against it with find_package(posenc CONFIG REQUIRED). Run by ctest as `cmake -P`.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")

set(prefix "${WORK_DIR}/prefix")

run("${CMAKE_COMMAND}" -S "${POSENC_SOURCE_DIR}" -B "${WORK_DIR}/posenc-build"
    -DPOSENC_BUILD_TESTS=OFF -DPOSENC_BUILD_BENCHMARKS=OFF -DPOSENC_BUILD_EXAMPLES=OFF
    "-DCMAKE_INSTALL_PREFIX=${prefix}")
run("${CMAKE_COMMAND}" --install "${WORK_DIR}/posenc-build")
foreach(f include/posenc/posenc.hpp share/cmake/posenc/posencConfig.cmake share/cmake/posenc/posencConfigVersion.cmake)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "install is missing ${f}")
  endif()
endforeach()

run("${CMAKE_COMMAND}" -S "${POSENC_SOURCE_DIR}/tests/package/consumer" -B "${WORK_DIR}/consumer-build"
    "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
run("${CMAKE_COMMAND}" --build "${WORK_DIR}/consumer-build")
run("${WORK_DIR}/consumer-build/posenc_consumer")
