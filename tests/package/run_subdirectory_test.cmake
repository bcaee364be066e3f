# Configures, builds and runs tests/package/subdirectory_consumer, which add_subdirectory()s posenc.
foreach(var POSENC_SOURCE_DIR WORK_DIR CXX_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_subdirectory_test.cmake needs -D${var}=...")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")

function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGV}")
  endif()
endfunction()

run("${CMAKE_COMMAND}" -S "${POSENC_SOURCE_DIR}/tests/package/subdirectory_consumer" -B "${WORK_DIR}"
    "-DPOSENC_SOURCE_DIR=${POSENC_SOURCE_DIR}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
run("${CMAKE_COMMAND}" --build "${WORK_DIR}")
run("${WORK_DIR}/posenc_consumer")
