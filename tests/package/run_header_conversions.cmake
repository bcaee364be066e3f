# SPDX-License-Identifier: MIT
# clang's -Wconversion -Wsign-conversion on posenc's installed headers, included as a build without
# CMake includes them: `cmake --install` of this build into a temporary prefix, then the flags of
# `pkg-config --cflags posenc`, where posenc's include directory is a plain -I (so its warnings
# are shown; Eigen's and xsimd's directories are passed as -isystem, their warnings being theirs).
# What is compiled: every C++ block of README.md and docs/*.md and a block that includes every
# public header, together as one unit (each block in a namespace of its own; one unit per block
# when they clash) (scripts/check-doc-examples.py --conversions). Headers listed in
# tests/package/conversion_pending.txt are reported as pending instead of failing.
# Run by ctest as `cmake -P` with -DPOSENC_SOURCE_DIR, -DBUILD_DIR, -DWORK_DIR, -DPYTHON, -DCLANGXX.
foreach(var POSENC_SOURCE_DIR BUILD_DIR WORK_DIR PYTHON CLANGXX)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "${CMAKE_SCRIPT_MODE_FILE} needs -D${var}=...")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}" --component Unspecified
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install ${BUILD_DIR} failed (${rc})")
endif()
find_program(PKG_CONFIG pkg-config REQUIRED)
set(ENV{PKG_CONFIG_PATH} "${prefix}/share/pkgconfig")
execute_process(COMMAND "${PKG_CONFIG}" --cflags posenc OUTPUT_VARIABLE cflags RESULT_VARIABLE rc
                OUTPUT_STRIP_TRAILING_WHITESPACE)
execute_process(COMMAND "${PKG_CONFIG}" --variable=includedir posenc OUTPUT_VARIABLE includedir
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0 OR NOT EXISTS "${includedir}/posenc/posenc.hpp")
  message(FATAL_ERROR "pkg-config --cflags posenc failed (${rc}) or names no installed posenc: '${includedir}'")
endif()
file(REAL_PATH "${includedir}" includedir)
separate_arguments(cflags UNIX_COMMAND "${cflags}")
set(other_dirs)
foreach(flag IN LISTS cflags)
  if(flag MATCHES "^-I(.+)$")
    file(REAL_PATH "${CMAKE_MATCH_1}" dir)
    if(NOT dir STREQUAL includedir)
      list(APPEND other_dirs -I "${dir}")
    endif()
  endif()
endforeach()
execute_process(COMMAND "${PYTHON}" "${POSENC_SOURCE_DIR}/scripts/check-doc-examples.py" --lang cpp --cxx "${CLANGXX}"
                  --conversions "${includedir}" --pending "${POSENC_SOURCE_DIR}/tests/package/conversion_pending.txt"
                  ${other_dirs}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "clang -Wconversion -Wsign-conversion: warnings in posenc's installed headers (above)")
endif()
