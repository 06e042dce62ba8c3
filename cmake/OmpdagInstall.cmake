# cmake/OmpdagInstall.cmake — what `cmake --install` puts under the prefix, the
# package config (find_package(ompdag CONFIG) -> ompdag::ompdag), ompdag.pc,
# and the Debian package (`cpack -G DEB`).  Included last by the top level, so
# every module's targets exist.
#
# Layout (PREFIX/...):
#   bin/ompdag                                   the command
#   LIBDIR/ompdag/libompdag_probe.so             OMPT probe (`ompdag run`)
#   LIBDIR/ompdag/libompdag_frontend.so          libclang front end (`ompdag extract`)
#   LIBDIR/ompdag/libompdag_plugin.so            clang -fplugin shim
#   LIBDIR/libompdag.a                           con-DAG model, bounds, reports, traces
#   INCLUDEDIR/ompdag/*.h                        their public headers
#   LIBDIR/cmake/ompdag/                         package config + ompdag_add_timing_check()
#   LIBDIR/pkgconfig/ompdag.pc
#   DOCDIR/ (share/doc/ompdag)                   README, docs/, examples/
include_guard(GLOBAL)
include(CMakePackageConfigHelpers)

# ---- libompdag.a --------------------------------------------------------------
# The installed library is one relocatable object made of the model, bound,
# report and trace libraries (ld -r), in which every global definition that
# does not start with ompdag_ is made local (objcopy): internal names such as
# grow_array or rta_* cannot clash with a user's symbols, and none is renamed.
# tests/install checks the exports with nm.
# (The report library uses the granularity advisor, so it comes along.)
set(OMPDAG_LIB_PARTS ompdag_error ompdag_analysis ompdag_report)
foreach(part ompdag_advise ompdag_trace)
  if(TARGET ${part})
    list(APPEND OMPDAG_LIB_PARTS ${part})
  endif()
endforeach()
set(_ompdag_archives)
foreach(part ${OMPDAG_LIB_PARTS})
  list(APPEND _ompdag_archives $<TARGET_FILE:${part}>)
endforeach()
set(_ompdag_libdir ${PROJECT_BINARY_DIR}/libompdag)
set(OMPDAG_COMBINED_LIB ${_ompdag_libdir}/libompdag.a)
add_custom_command(OUTPUT ${OMPDAG_COMBINED_LIB}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${_ompdag_libdir}
  COMMAND ${CMAKE_COMMAND} -E rm -f ${_ompdag_libdir}/ompdag.o ${OMPDAG_COMBINED_LIB}
  COMMAND ${CMAKE_LINKER} -r -o ${_ompdag_libdir}/ompdag.o --whole-archive ${_ompdag_archives}
          --no-whole-archive
  COMMAND ${CMAKE_OBJCOPY} --wildcard --keep-global-symbol=ompdag_* ${_ompdag_libdir}/ompdag.o
  COMMAND ${CMAKE_AR} rcs ${OMPDAG_COMBINED_LIB} ${_ompdag_libdir}/ompdag.o
  DEPENDS ${OMPDAG_LIB_PARTS}
  COMMENT "libompdag.a: ld -r + objcopy (only ompdag_* stays global)"
  VERBATIM)
add_custom_target(ompdag_combined_lib ALL DEPENDS ${OMPDAG_COMBINED_LIB})

# What a program linking libompdag.a also needs (pkg-config module names, and
# plain libraries).
set(OMPDAG_PC_REQUIRES jansson)
if(TARGET ompdag_trace AND LIBDW_FOUND)
  list(APPEND OMPDAG_PC_REQUIRES libdw)
endif()
set(OMPDAG_PC_LIBS -lm)

# Public headers: the API of libompdag.a (and the trace format).  Headers of
# libraries that are not installed (bfs, graph, offload, condag_gpu, frontend)
# stay in the source tree.
# overhead.h (dispatch delays), sim_tied.h (the tied-task simulator, in the
# report library) and advise.h (the advisor, which report.h's options name)
# declare what libompdag.a defines of theirs; test exports_declared checks
# that every exported name is declared in an installed header.
set(OMPDAG_PUBLIC_HEADERS version.h error.h condag.h compact.h rta.h dot.h gen.h fileio.h report.h
  locks.h
  exact_kernel.h probe.h overhead.h sim_tied.h)
if(TARGET ompdag_advise)
  list(APPEND OMPDAG_PUBLIC_HEADERS advise.h)
endif()
if(TARGET ompdag_trace)
  list(APPEND OMPDAG_PUBLIC_HEADERS trace.h)
endif()
list(TRANSFORM OMPDAG_PUBLIC_HEADERS PREPEND ${PROJECT_SOURCE_DIR}/include/ompdag/
  OUTPUT_VARIABLE _ompdag_header_paths)

install(FILES ${OMPDAG_COMBINED_LIB} DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(FILES ${_ompdag_header_paths} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ompdag
  COMPONENT dev)
if(TARGET ompdag)
  install(TARGETS ompdag RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
endif()
if(TARGET ompdag_probe)
  install(TARGETS ompdag_probe LIBRARY DESTINATION ${OMPDAG_INSTALL_PKGLIBDIR} COMPONENT runtime)
endif()

# ---- package config -----------------------------------------------------------
set(OMPDAG_CONFIG_HAVE_PLUGIN OFF)
if(TARGET ompdag_plugin)
  set(OMPDAG_CONFIG_HAVE_PLUGIN ON)
endif()
set(OMPDAG_CONFIG_CLANG_VERSION "")
if(OMPDAG_CLANG)
  execute_process(COMMAND ${OMPDAG_CLANG} -dumpversion OUTPUT_VARIABLE OMPDAG_CONFIG_CLANG_VERSION
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ompdagConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/ompdagConfig.cmake
  INSTALL_DESTINATION ${OMPDAG_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR
            OMPDAG_INSTALL_PKGLIBDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/ompdagConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/ompdagConfig.cmake
  ${PROJECT_BINARY_DIR}/cmake/ompdagConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/ompdagTimingCheck.cmake
  DESTINATION ${OMPDAG_INSTALL_CMAKEDIR} COMPONENT dev)

# ---- pkg-config -----------------------------------------------------------------
list(JOIN OMPDAG_PC_REQUIRES " " OMPDAG_PC_REQUIRES_STR)
list(JOIN OMPDAG_PC_LIBS " " OMPDAG_PC_LIBS_STR)
file(RELATIVE_PATH OMPDAG_PC_PREFIX_FROM_PCDIR /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${PROJECT_SOURCE_DIR}/cmake/ompdag.pc.in ${PROJECT_BINARY_DIR}/ompdag.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/ompdag.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
  COMPONENT dev)

# ---- data, docs and examples -------------------------------------------------------
if(EXISTS ${PROJECT_SOURCE_DIR}/advisor/advisor-model.json)
  install(FILES ${PROJECT_SOURCE_DIR}/advisor/advisor-model.json
    DESTINATION ${CMAKE_INSTALL_DATADIR}/ompdag COMPONENT runtime)
endif()
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT doc)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs
  COMPONENT doc)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples
  COMPONENT doc)

# ---- Debian package (cpack -G DEB) --------------------------------------------------
# Depends are the Debian packages that own the shared libraries found at
# configure time (dpkg-query -S), so nothing names a version here.  libclang
# is only Recommended: without it every command but `extract` works.
function(_ompdag_deb_owner out)
  set(owners)
  find_program(_ompdag_dpkg_query dpkg-query)
  foreach(lib ${ARGN})
    if(NOT lib OR NOT EXISTS "${lib}" OR NOT _ompdag_dpkg_query)
      continue()
    endif()
    # The path as found first (/usr/bin/dot belongs to graphviz), else the
    # file it resolves to (libjansson.so.4.14.0 belongs to libjansson4).
    execute_process(COMMAND ${_ompdag_dpkg_query} -S "${lib}" OUTPUT_VARIABLE o
      RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(NOT rc EQUAL 0 OR o MATCHES "-dev[:,]")
      get_filename_component(real "${lib}" REALPATH)
      execute_process(COMMAND ${_ompdag_dpkg_query} -S "${real}" OUTPUT_VARIABLE o
        RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    endif()
    if(rc EQUAL 0)
      string(REGEX REPLACE "^([^:,]+).*" "\\1" pkg "${o}")
      list(APPEND owners ${pkg})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES owners)
  list(JOIN owners ", " joined)
  set(${out} "${joined}" PARENT_SCOPE)
endfunction()

function(_ompdag_pc_lib out module)
  # The shared object behind a pkg-config module (its first -l in -L dirs).
  set(${out} "" PARENT_SCOPE)
  if(NOT ${module}_FOUND)
    return()
  endif()
  foreach(l ${${module}_LINK_LIBRARIES})
    if(l MATCHES "\\.so")
      set(${out} ${l} PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()

_ompdag_pc_lib(_jansson_so JANSSON)
_ompdag_pc_lib(_libdw_so LIBDW)
_ompdag_pc_lib(_hwloc_so HWLOC)
_ompdag_deb_owner(_ompdag_deb_depends ${_jansson_so} ${_libdw_so} ${_hwloc_so})
set(_ompdag_recommends_libs)
if(TARGET ompdag_frontend_module)
  list(APPEND _ompdag_recommends_libs ${OMPDAG_LIBCLANG})
endif()
if(TARGET ompdag_plugin OR TARGET ompdag_probe)
  list(APPEND _ompdag_recommends_libs ${OMPDAG_CLANG} ${OMPDAG_LIBOMP})
endif()
_ompdag_deb_owner(_ompdag_deb_recommends ${_ompdag_recommends_libs})
_ompdag_deb_owner(_ompdag_deb_suggests ${OMPDAG_DOT})

# At cpack time, when the binaries exist, dpkg-shlibdeps turns what `ompdag`
# and the probe link into Depends (with versions), and what the front end and
# plugin modules add into Recommends (cmake/OmpdagCPackDeb.cmake).
set(_ompdag_deb_core $<TARGET_FILE:ompdag>)
if(TARGET ompdag_probe)
  list(APPEND _ompdag_deb_core $<TARGET_FILE:ompdag_probe>)
endif()
set(_ompdag_deb_modules)
foreach(t ompdag_frontend_module ompdag_plugin)
  if(TARGET ${t})
    list(APPEND _ompdag_deb_modules $<TARGET_FILE:${t}>)
  endif()
endforeach()
file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/cmake/OmpdagCPackProject.cmake CONTENT
"cmake_policy(SET CMP0011 NEW)
set(OMPDAG_DEB_CORE \"${_ompdag_deb_core}\")
set(OMPDAG_DEB_MODULES \"${_ompdag_deb_modules}\")
include(\"${PROJECT_SOURCE_DIR}/cmake/OmpdagCPackDeb.cmake\")
")
set(CPACK_PROJECT_CONFIG_FILE ${PROJECT_BINARY_DIR}/cmake/OmpdagCPackProject.cmake)

set(CPACK_PACKAGE_NAME ompdag)
set(CPACK_PACKAGE_VENDOR "ompdag developers")
set(CPACK_PACKAGE_CONTACT "ompdag developers <ompdag@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6, ${_ompdag_deb_depends}")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "${_ompdag_deb_recommends}")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "${_ompdag_deb_suggests}")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
  "Extracts the task graph (con-DAG) of OpenMP C programs, measures task\n\
segments with an OMPT probe, and computes exact response-time bounds.\n\
Includes the ompdag command, the probe and clang plugin, the static library\n\
with its headers, a CMake package (find_package(ompdag)) and ompdag.pc.")
set(CPACK_GENERATOR DEB)
set(CPACK_SOURCE_GENERATOR TGZ)
set(CPACK_SOURCE_IGNORE_FILES "/build[^/]*/" "/\\\\.git/")
include(CPack)
