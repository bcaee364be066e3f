# SPDX-License-Identifier: MIT
# posenc_project_target(<target>): the flags every target of this project (not its consumers) gets:
# -Wall -Wextra -Wpedantic, as errors when POSENC_WERROR is ON (scripts/test.sh and CI turn it
# on; it is off by default so that a newer compiler's new warning cannot break a user's build).
function(posenc_project_target target)
  target_link_libraries(${target} PRIVATE posenc::posenc)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  if(POSENC_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  if(POSENC_EXTRA_FLAGS)
    target_compile_options(${target} PRIVATE ${POSENC_EXTRA_FLAGS})
  endif()
endfunction()
