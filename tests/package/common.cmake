# SPDX-License-Identifier: MIT
# Shared by the consumer-test scripts (cmake -P): the required -D variables, the generator to
# use (GENERATOR_ARGS, from -DGENERATOR=...) and a `run` that stops the script when a command fails.
foreach(var POSENC_SOURCE_DIR WORK_DIR CXX_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "${CMAKE_SCRIPT_MODE_FILE} needs -D${var}=...")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
set(GENERATOR_ARGS)
if(GENERATOR)
  set(GENERATOR_ARGS -G "${GENERATOR}")
endif()

function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGV}")
  endif()
endfunction()
