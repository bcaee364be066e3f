# SPDX-License-Identifier: MIT
# posenc_project_target(<target>): the flags every target of this project (not its consumers) gets.
# Warnings are errors with g++ and clang++.
function(posenc_project_target target)
  target_link_libraries(${target} PRIVATE posenc::posenc)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Werror)
  if(POSENC_EXTRA_FLAGS)
    target_compile_options(${target} PRIVATE ${POSENC_EXTRA_FLAGS})
  endif()
endfunction()
