# SPDX-License-Identifier: MIT
# Configures, builds and runs tests/package/subdirectory_consumer, which add_subdirectory()s posenc.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")

run("${CMAKE_COMMAND}" -S "${POSENC_SOURCE_DIR}/tests/package/subdirectory_consumer" -B "${WORK_DIR}" ${GENERATOR_ARGS}
    "-DPOSENC_SOURCE_DIR=${POSENC_SOURCE_DIR}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
run("${CMAKE_COMMAND}" --build "${WORK_DIR}")
run("${WORK_DIR}/posenc_consumer")
run("${WORK_DIR}/posenc_hf_config_consumer")
