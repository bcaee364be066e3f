# SPDX-License-Identifier: MIT
# posenc needs C++17. A C++14 compile of a posenc header must stop with posenc's own message
# (include/posenc/config.hpp) rather than a cascade of unrelated syntax errors; checked for the
# umbrella header and for the smallest public headers, which reach config.hpp through error.hpp.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")

if(NOT EIGEN_INCLUDE_DIR)
  message(FATAL_ERROR "${CMAKE_SCRIPT_MODE_FILE} needs -DEIGEN_INCLUDE_DIR=...")
endif()
file(MAKE_DIRECTORY "${WORK_DIR}")
foreach(header posenc/posenc.hpp posenc/spec.hpp posenc/frequencies.hpp)
  string(MAKE_C_IDENTIFIER "${header}" id)
  file(WRITE "${WORK_DIR}/${id}.cpp" "#include <${header}>\nint main() { return 0; }\n")
  execute_process(COMMAND "${CXX_COMPILER}" -std=c++14 -fsyntax-only "-I${POSENC_SOURCE_DIR}/include" "-I${EIGEN_INCLUDE_DIR}"
                          "${WORK_DIR}/${id}.cpp"
                  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
  if(rc EQUAL 0)
    message(FATAL_ERROR "${header} compiled as C++14; posenc must refuse it")
  endif()
  if(NOT err MATCHES "posenc needs C\\+\\+17 or later")
    message(FATAL_ERROR "${header} as C++14 failed without posenc's message:\n${err}")
  endif()
  message(STATUS "${header} as C++14: refused with posenc's message")
endforeach()
