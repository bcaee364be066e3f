# SPDX-License-Identifier: MIT
# Finds xsimd 8.1 for posenc and its consumers.
#
# Debian 12's libxsimd-dev was configured with xtl support: its exported target links a target
# called `xtl` but its config never looks for it, so linking `xsimd` asks the linker for -lxtl.
# posenc uses no xtl type. When xtl is neither a target nor findable, the link is dropped.
find_package(xsimd 8.1 REQUIRED)
if(TARGET xsimd AND NOT TARGET xtl)
  find_package(xtl QUIET)
  if(NOT TARGET xtl)
    get_target_property(_posenc_xsimd_links xsimd INTERFACE_LINK_LIBRARIES)
    if(_posenc_xsimd_links)
      list(REMOVE_ITEM _posenc_xsimd_links xtl)
      set_property(TARGET xsimd PROPERTY INTERFACE_LINK_LIBRARIES "${_posenc_xsimd_links}")
    endif()
  endif()
endif()
