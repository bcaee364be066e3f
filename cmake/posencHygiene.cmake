# SPDX-License-Identifier: MIT
# Build-time hygiene checks of the headers (the compile is the test; a failure fails the build):
#  - self-containment: every public header compiles on its own, included twice (guards);
#  - C++20: the three umbrella headers (posenc.hpp, kernels.hpp, encodings.hpp), hence every
#    header they include, compile as C++20;
#  - -march variants: the same compile for x86-64 (SSE2 only), x86-64-v3 and native.
# Off with -DPOSENC_HYGIENE_CHECKS=OFF (the sanitizer builds of scripts/test.sh skip them).
# Headers that need an optional dependency (nlohmann_json) are checked only when it is found.
find_package(nlohmann_json 3 QUIET)

file(GLOB_RECURSE _posenc_headers RELATIVE "${PROJECT_SOURCE_DIR}/include" CONFIGURE_DEPENDS
  "${PROJECT_SOURCE_DIR}/include/posenc/*.hpp")
# kernels/detail/*.hpp stop with #error unless a public kernels header includes them (they are
# compiled here through those headers, each of which is checked alone). models/detail/*.hpp (and
# models/detail/families/), the config reader's internal steps, stop the same way
# (POSENC_MODELS_DETAIL_ALLOWED) and are compiled through the public reader headers that include
# them.
list(FILTER _posenc_headers EXCLUDE REGEX "^posenc/(kernels|models)/detail/")
set(_sources)
foreach(_header IN LISTS _posenc_headers)
  string(MAKE_C_IDENTIFIER "${_header}" _id)
  set(_tu "${CMAKE_CURRENT_BINARY_DIR}/header_check/${_id}.cpp")
  set(_content "// generated: ${_header} must compile on its own\n#include <${_header}>\n#include <${_header}>\n")
  if(EXISTS "${_tu}")
    file(READ "${_tu}" _old)
  endif()
  if(NOT _old STREQUAL _content)
    file(WRITE "${_tu}" "${_content}")
  endif()
  list(APPEND _sources "${_tu}")
endforeach()

add_library(posenc_header_check OBJECT ${_sources})
posenc_project_target(posenc_header_check)
if(TARGET nlohmann_json::nlohmann_json)
  target_link_libraries(posenc_header_check PRIVATE nlohmann_json::nlohmann_json)
endif()

set(_umbrella_tu "${CMAKE_CURRENT_BINARY_DIR}/header_check/umbrella.cpp")
file(WRITE "${_umbrella_tu}.in" "#include <posenc/posenc.hpp>\n#include <posenc/kernels.hpp>\n#include <posenc/encodings.hpp>\nint posenc_umbrella_anchor() { return POSENC_VERSION; }\n")
configure_file("${_umbrella_tu}.in" "${_umbrella_tu}" COPYONLY)

add_library(posenc_cxx20_check OBJECT "${_umbrella_tu}")
posenc_project_target(posenc_cxx20_check)
set_target_properties(posenc_cxx20_check PROPERTIES CXX_STANDARD 20 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF)

foreach(_march x86-64 x86-64-v3 native)
  string(MAKE_C_IDENTIFIER "${_march}" _id)
  add_library(posenc_march_check_${_id} OBJECT "${_umbrella_tu}")
  posenc_project_target(posenc_march_check_${_id})
  target_compile_options(posenc_march_check_${_id} PRIVATE "-march=${_march}")
endforeach()
