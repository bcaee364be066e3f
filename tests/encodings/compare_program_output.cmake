# SPDX-License-Identifier: MIT
# Runs PROGRAM and compares its standard output, byte for byte, with the file EXPECTED after
# removing EXPECTED's lines that start with '#' (provenance comments). Used by the ctest
# example_ten_degrees (tests/CMakeLists.txt).
#   cmake -DPROGRAM=<executable> -DEXPECTED=<file> -P compare_program_output.cmake
execute_process(COMMAND "${PROGRAM}" OUTPUT_VARIABLE _actual RESULT_VARIABLE _status)
if(NOT _status EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} exited with ${_status}")
endif()
file(READ "${EXPECTED}" _expected)
string(PREPEND _expected "\n")
string(REGEX REPLACE "\n#[^\n]*" "" _expected "${_expected}")
string(SUBSTRING "${_expected}" 1 -1 _expected)
if(NOT _actual STREQUAL _expected)
  message(FATAL_ERROR "output of ${PROGRAM} differs from ${EXPECTED}\n--- expected\n${_expected}--- actual\n${_actual}")
endif()
message(STATUS "output of ${PROGRAM} matches ${EXPECTED}")
