# SPDX-License-Identifier: MIT
# The README's install on a tree that was configured but never built: `cmake --install` must stop
# before it copies anything (the prefix is not even created), name the program that is not built
# (posenc-inspect) and the command that builds it; `--component Unspecified` then installs the
# header-only library alone. Configured with the examples (posenc-inspect needs nlohmann_json,
# which ctest registers this test only with) and without the tests, so the configure is short.
# Run by ctest as `cmake -P`.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")

set(build "${WORK_DIR}/posenc-build")
set(prefix "${WORK_DIR}/prefix")
run("${CMAKE_COMMAND}" -S "${POSENC_SOURCE_DIR}" -B "${build}" ${GENERATOR_ARGS}
    -DPOSENC_BUILD_TESTS=OFF -DPOSENC_BUILD_EXAMPLES=ON "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${build}" --prefix "${prefix}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0)
  message(FATAL_ERROR "cmake --install of an unbuilt tree succeeded:\n${out}")
endif()
if(EXISTS "${prefix}")
  file(GLOB_RECURSE copied RELATIVE "${prefix}" "${prefix}/*")
  list(LENGTH copied n)
  message(FATAL_ERROR "cmake --install of an unbuilt tree failed after copying ${n} files into ${prefix}:\n${out}")
endif()
string(REGEX REPLACE "[ \t\r\n]+" " " flat "${out}")  # CMake wraps the message's lines
foreach(expected "posenc-inspect (component cli)" "cmake --build ${build}" "--component Unspecified")
  string(FIND "${flat}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "cmake --install of an unbuilt tree: the message does not say '${expected}':\n${out}")
  endif()
endforeach()
run("${CMAKE_COMMAND}" --install "${build}" --prefix "${prefix}" --component Unspecified)
foreach(f include/posenc/posenc.hpp share/cmake/posenc/posencConfig.cmake share/pkgconfig/posenc.pc)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "cmake --install --component Unspecified is missing ${f}")
  endif()
endforeach()
if(EXISTS "${prefix}/bin")
  message(FATAL_ERROR "cmake --install --component Unspecified installed programs (${prefix}/bin)")
endif()
message(STATUS "unbuilt tree: cmake --install refused before copying; --component Unspecified installed the library")
