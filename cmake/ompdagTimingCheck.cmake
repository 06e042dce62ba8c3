# ompdagTimingCheck.cmake — timing checks of OpenMP task code in a user's build.
#
#   ompdag_add_timing_check(TARGET tgt [THREADS M] [WCET FILE] [DEADLINE SPEC...]
#                           [RECURSION_BOUND N] [LOOP_BOUND N] [ASSUME NAME=VALUE...]
#                           [OUT DIR] [WERROR] [TEST_NAME name])
#
# Adds the ompdag clang plugin to tgt's C compile: every parallel region's
# con-DAG is written to OUT (default ${CMAKE_CURRENT_BINARY_DIR}/condag/tgt) as
# <object path>.condag.json (a refused unit writes <object path>.refused.json;
# `ompdag collect OUT` gathers them), and constructs the model cannot represent
# are reported as warnings (errors with WERROR).  RECURSION_BOUND, LOOP_BOUND
# and ASSUME are the plugin's -fplugin-arg-ompdag-recursion-bound=,
# loop-bound= and assume= (the input the bound is for: docs/plugin.md).
#
# With WCET FILE (con-DAGs annotated by `ompdag annotate`), the plugin also
# checks at compile time every region that has a `#pragma ompdag deadline`
# against the bound on THREADS threads, and a CTest test (TEST_NAME, default
# ompdag_timing_<tgt>) runs `ompdag check FILE [--threads M] [--deadline SPEC]...`:
# it fails when some region's exact bound exceeds its deadline.
#
# The target must be compiled by the clang the plugin was built for
# (OMPDAG_CLANG_VERSION, major version): configure with CC=clang-<that>.
# Without the plugin (ompdag built without clang's C++ headers), no compile
# flags are added and a message says so; the CTest check is still added.
include_guard(GLOBAL)

function(ompdag_add_timing_check)
  cmake_parse_arguments(PARSE_ARGV 0 A "WERROR"
                        "TARGET;THREADS;WCET;OUT;TEST_NAME;RECURSION_BOUND;LOOP_BOUND"
                        "DEADLINE;ASSUME")
  if(A_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "ompdag_add_timing_check: unknown arguments: ${A_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT A_TARGET)
    message(FATAL_ERROR "ompdag_add_timing_check: TARGET is required")
  endif()
  if(NOT TARGET ${A_TARGET})
    message(FATAL_ERROR "ompdag_add_timing_check: '${A_TARGET}' is not a target")
  endif()
  if(DEFINED A_THREADS AND NOT A_THREADS MATCHES "^[1-9][0-9]*$")
    message(FATAL_ERROR "ompdag_add_timing_check: THREADS wants a positive integer, got '${A_THREADS}'")
  endif()
  foreach(_bound RECURSION_BOUND LOOP_BOUND)
    if(DEFINED A_${_bound} AND NOT A_${_bound} MATCHES "^[0-9]+$")
      message(FATAL_ERROR "ompdag_add_timing_check: ${_bound} wants an integer >= 0, "
                          "got '${A_${_bound}}'")
    endif()
  endforeach()
  foreach(_a IN LISTS A_ASSUME)
    if(NOT _a MATCHES "^[A-Za-z_][A-Za-z0-9_]*=-?[0-9]+$")
      message(FATAL_ERROR "ompdag_add_timing_check: ASSUME wants NAME=INTEGER, got '${_a}'")
    endif()
  endforeach()
  if(A_WCET)
    get_filename_component(A_WCET "${A_WCET}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(NOT EXISTS "${A_WCET}")
      message(FATAL_ERROR "ompdag_add_timing_check: WCET file '${A_WCET}' does not exist "
                          "(make it with `ompdag annotate`)")
    endif()
  endif()
  if(A_DEADLINE AND NOT A_WCET)
    message(FATAL_ERROR "ompdag_add_timing_check: DEADLINE needs WCET (the annotated con-DAGs)")
  endif()
  if(NOT A_OUT)
    set(A_OUT "${CMAKE_CURRENT_BINARY_DIR}/condag/${A_TARGET}")
  endif()
  if(NOT A_TEST_NAME)
    set(A_TEST_NAME "ompdag_timing_${A_TARGET}")
  endif()

  if(OMPDAG_PLUGIN)
    if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
      message(FATAL_ERROR "ompdag_add_timing_check(${A_TARGET}): the plugin loads into clang "
              "${OMPDAG_CLANG_VERSION} only, but the C compiler is ${CMAKE_C_COMPILER_ID} "
              "${CMAKE_C_COMPILER_VERSION} (configure with CC=clang)")
    endif()
    string(REGEX MATCH "^[0-9]+" _want "${OMPDAG_CLANG_VERSION}")
    string(REGEX MATCH "^[0-9]+" _have "${CMAKE_C_COMPILER_VERSION}")
    if(_want AND NOT _want STREQUAL _have)
      message(FATAL_ERROR "ompdag_add_timing_check(${A_TARGET}): the plugin was built for clang "
              "${OMPDAG_CLANG_VERSION}, the C compiler is clang ${CMAKE_C_COMPILER_VERSION}")
    endif()
    file(MAKE_DIRECTORY "${A_OUT}")
    set(_flags "-fplugin=${OMPDAG_PLUGIN}" "-fplugin-arg-ompdag-out=${A_OUT}")
    if(A_WERROR)
      list(APPEND _flags "-fplugin-arg-ompdag-werror")
    endif()
    if(DEFINED A_RECURSION_BOUND)
      list(APPEND _flags "-fplugin-arg-ompdag-recursion-bound=${A_RECURSION_BOUND}")
    endif()
    if(DEFINED A_LOOP_BOUND)
      list(APPEND _flags "-fplugin-arg-ompdag-loop-bound=${A_LOOP_BOUND}")
    endif()
    foreach(_a IN LISTS A_ASSUME)
      list(APPEND _flags "-fplugin-arg-ompdag-assume=${_a}")
    endforeach()
    if(A_WCET)
      list(APPEND _flags "-fplugin-arg-ompdag-wcet=${A_WCET}")
      if(A_THREADS)
        list(APPEND _flags "-fplugin-arg-ompdag-threads=${A_THREADS}")
      endif()
    endif()
    target_compile_options(${A_TARGET} PRIVATE $<$<COMPILE_LANGUAGE:C>:${_flags}>)
    # Recompile when the plugin or the WCETs change.
    get_target_property(_sources ${A_TARGET} SOURCES)
    set(_deps "${OMPDAG_PLUGIN}")
    if(A_WCET)
      list(APPEND _deps "${A_WCET}")
    endif()
    foreach(src IN LISTS _sources)
      if(src MATCHES "\\.c$")
        set_property(SOURCE "${src}" TARGET_DIRECTORY ${A_TARGET} APPEND PROPERTY OBJECT_DEPENDS
          ${_deps})
      endif()
    endforeach()
  else()
    message(STATUS "ompdag_add_timing_check(${A_TARGET}): this ompdag has no clang plugin; "
                   "no con-DAGs are extracted at compile time")
  endif()

  if(A_WCET)
    if(TARGET ompdag::cli)
      set(_cmd ompdag::cli)
    elseif(OMPDAG_EXECUTABLE)
      set(_cmd "${OMPDAG_EXECUTABLE}")
    else()
      message(FATAL_ERROR "ompdag_add_timing_check: the ompdag command was not found")
    endif()
    set(_args check "${A_WCET}")
    if(A_THREADS)
      list(APPEND _args --threads ${A_THREADS})
    endif()
    foreach(d IN LISTS A_DEADLINE)
      list(APPEND _args --deadline "${d}")
    endforeach()
    add_test(NAME ${A_TEST_NAME} COMMAND ${_cmd} ${_args})
  endif()
endfunction()
