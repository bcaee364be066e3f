# SPDX-License-Identifier: MIT
# `cmake --install <build> --component cli` into a fresh prefix installs bin/posenc-inspect, and
# the installed program answers --help (the option reference of docs/cli.md) and --version.
# Run by ctest as `cmake -P` with -DBUILD_DIR=<posenc's build tree> -DWORK_DIR=<scratch>.
foreach(var BUILD_DIR WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "${CMAKE_SCRIPT_MODE_FILE} needs -D${var}=...")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --component cli --prefix "${prefix}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install --component cli failed (${rc}):\n${out}")
endif()
set(program "${prefix}/bin/posenc-inspect")
if(NOT EXISTS "${program}")
  message(FATAL_ERROR "cmake --install --component cli installed no ${program}:\n${out}")
endif()
execute_process(COMMAND "${program}" --help RESULT_VARIABLE rc OUTPUT_VARIABLE help ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT help MATCHES "usage: posenc-inspect" OR NOT help MATCHES "--list-presets")
  message(FATAL_ERROR "installed posenc-inspect --help: status ${rc}, output:\n${help}${err}")
endif()
execute_process(COMMAND "${program}" --version RESULT_VARIABLE rc OUTPUT_VARIABLE version)
if(NOT rc EQUAL 0 OR NOT version MATCHES "[0-9]+\\.[0-9]+\\.[0-9]+")
  message(FATAL_ERROR "installed posenc-inspect --version: status ${rc}, output: ${version}")
endif()
message(STATUS "installed ${program}: --help and --version run")
