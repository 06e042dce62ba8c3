# cmake/OmpdagLLVM.cmake — finds ONE LLVM installation and everything ompdag
# takes from it, so libclang, the clang that loads the plugin, omp-tools.h and
# libomp always come from the same version (the plugin ABI is tied to it).
#
# No version is written here: the root is OMPDAG_LLVM_ROOT when given, else
# `llvm-config --prefix`, else the newest /usr/lib/llvm-* (natural sort) that
# has clang-c/Index.h, else /usr.  Sets (cache):
#   OMPDAG_LLVM_ROOT          the root used
#   OMPDAG_LIBCLANG_INCLUDE   directory holding clang-c/Index.h
#   OMPDAG_LIBCLANG           libclang shared library
#   OMPDAG_CLANG              the clang driver of that root
#   OMPDAG_OMP_TOOLS_H        omp-tools.h (OMPT) shipped with that clang
#   OMPDAG_LIBOMP             LLVM's libomp
# Any of them may be NOTFOUND; each module says what it drops.
include_guard(GLOBAL)

set(OMPDAG_LLVM_ROOT "" CACHE PATH "LLVM installation to use (found when empty)")

function(_ompdag_llvm_candidates out)
  set(candidates)
  find_program(OMPDAG_LLVM_CONFIG NAMES llvm-config DOC "llvm-config of the LLVM to use")
  if(OMPDAG_LLVM_CONFIG)
    execute_process(COMMAND ${OMPDAG_LLVM_CONFIG} --prefix OUTPUT_VARIABLE prefix
      RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(rc EQUAL 0 AND prefix)
      list(APPEND candidates ${prefix})
    endif()
  endif()
  file(GLOB globbed LIST_DIRECTORIES true /usr/lib/llvm-* /usr/local/opt/llvm* /opt/llvm*)
  list(SORT globbed COMPARE NATURAL ORDER DESCENDING)
  list(APPEND candidates ${globbed} /usr/local /usr)
  set(${out} ${candidates} PARENT_SCOPE)
endfunction()

if(NOT OMPDAG_LLVM_ROOT)
  _ompdag_llvm_candidates(_ompdag_llvm_roots)
  foreach(root ${_ompdag_llvm_roots})
    if(EXISTS ${root}/include/clang-c/Index.h)
      set(OMPDAG_LLVM_ROOT ${root} CACHE PATH "LLVM installation to use (found when empty)" FORCE)
      break()
    endif()
  endforeach()
endif()

set(_ompdag_llvm_hints)
if(OMPDAG_LLVM_ROOT)
  set(_ompdag_llvm_hints ${OMPDAG_LLVM_ROOT})
  message(STATUS "LLVM: ${OMPDAG_LLVM_ROOT}")
else()
  message(STATUS "LLVM: no installation with clang-c/Index.h found")
endif()

find_path(OMPDAG_LIBCLANG_INCLUDE clang-c/Index.h HINTS ${_ompdag_llvm_hints} PATH_SUFFIXES include)
find_library(OMPDAG_LIBCLANG NAMES clang libclang HINTS ${_ompdag_llvm_hints} PATH_SUFFIXES lib
  NO_DEFAULT_PATH)
find_library(OMPDAG_LIBCLANG NAMES clang libclang)
find_program(OMPDAG_CLANG NAMES clang HINTS ${_ompdag_llvm_hints} PATH_SUFFIXES bin NO_DEFAULT_PATH)
find_program(OMPDAG_CLANG NAMES clang)

# omp-tools.h lives with clang's builtin headers (lib/clang/VERSION/include).
set(_ompdag_omp_tools_dirs)
if(OMPDAG_LLVM_ROOT)
  file(GLOB _ompdag_omp_tools_dirs LIST_DIRECTORIES true ${OMPDAG_LLVM_ROOT}/lib/clang/*/include)
  list(SORT _ompdag_omp_tools_dirs COMPARE NATURAL ORDER DESCENDING)
  list(APPEND _ompdag_omp_tools_dirs ${OMPDAG_LLVM_ROOT}/include)
endif()
find_file(OMPDAG_OMP_TOOLS_H omp-tools.h PATHS ${_ompdag_omp_tools_dirs} /usr/include
  NO_DEFAULT_PATH)
find_library(OMPDAG_LIBOMP NAMES omp HINTS ${_ompdag_llvm_hints} PATH_SUFFIXES lib NO_DEFAULT_PATH)
find_library(OMPDAG_LIBOMP NAMES omp)
