# src/profkit_pc.cmake — run by `cmake --install` (src/CMakeLists.txt): makes
# profkit.pc for the prefix being installed to. Relative install directories
# become ${prefix}/DIR in the file, so a relocated tree still resolves.
set(PK_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
foreach(d LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${PK_PC_${d}_RAW}")
    set(PK_PC_${d} "${PK_PC_${d}_RAW}")
  else()
    set(PK_PC_${d} "\${prefix}/${PK_PC_${d}_RAW}")
  endif()
endforeach()
configure_file("${PK_PC_IN}" "${PK_PC_OUT}" @ONLY)
