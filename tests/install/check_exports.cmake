# Checks the global symbols an archive or shared object of ompdag defines.
#   cmake -DNM=nm -DLIB=path [-DMODE=installed|module|dynamic]
#         [-DPREFIXES=a,b,...] -P check_exports.cmake
# LIB may list several files separated by '|'.
#   installed (default): libompdag.a, the installed library: only ompdag_*
#       stays global (internal names are made local by objcopy), and the
#       public entry points are there.
#   module: an internal archive (not installed): every global starts with
#       ompdag_ or one of the module prefixes in PREFIXES (rta_, fe_, ...),
#       so no unprefixed name (grow_array, graph_alloc) can clash.
#   dynamic: a shared object (probe, front end, plugin): its dynamic symbol
#       table exports only ompdag_*, the OMPT entry point ompt_start_tool, and
#       C++ names (the plugin's instantiations of Clang's inline API).
# Names the toolchains emit (C++ mangled _Z*, DW.ref.*, nvtx* from CUDA's
# headers, .gomp_critical_user_*) are not ours and are accepted in archives.
if(NOT NM OR NOT LIB)
  message(FATAL_ERROR "check_exports: NM and LIB are required")
endif()
if(NOT MODE)
  set(MODE installed)
endif()
string(REPLACE "|" ";" libs "${LIB}")
string(REPLACE "," ";" prefixes "${PREFIXES}")
set(allowed "^ompdag_")
if(MODE STREQUAL "module")
  foreach(p IN LISTS prefixes)
    if(NOT p STREQUAL "") # not if(p): the offload module's prefix is "off"
      string(APPEND allowed "|^${p}_")
    endif()
  endforeach()
  string(APPEND allowed "|^_Z|^DW\\.ref\\.|^nvtx|^InitializeInjectionNvtx|^\\.gomp_critical_user_")
elseif(MODE STREQUAL "dynamic")
  string(APPEND allowed "|^ompt_start_tool$|^_Z")
elseif(NOT MODE STREQUAL "installed")
  message(FATAL_ERROR "check_exports: unknown MODE ${MODE}")
endif()

set(failures)
foreach(lib IN LISTS libs)
  if(NOT EXISTS "${lib}")
    message(FATAL_ERROR "check_exports: ${lib} missing (build it first)")
  endif()
  if(MODE STREQUAL "dynamic")
    set(nm_args -D --defined-only -P)
  else()
    set(nm_args -g --defined-only -P)
  endif()
  execute_process(COMMAND ${NM} ${nm_args} ${lib} OUTPUT_VARIABLE out RESULT_VARIABLE rc
                  ERROR_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "nm failed on ${lib}")
  endif()
  string(REPLACE "\n" ";" lines "${out}")
  set(bad)
  set(count 0)
  foreach(line IN LISTS lines)
    # nm -P: "NAME TYPE VALUE SIZE"; archive member headers end with ':' or '[...]:'
    if(line STREQUAL "" OR line MATCHES ":$" OR line MATCHES "\\]:$")
      continue()
    endif()
    string(REGEX MATCH "^[^ ]+" sym "${line}")
    # AddressSanitizer adds an ODR indicator `__odr_asan.NAME` per global
    # variable: judged by the NAME it stands for.
    string(REGEX REPLACE "^__odr_asan\\." "" sym "${sym}")
    math(EXPR count "${count} + 1")
    if(NOT sym MATCHES "${allowed}")
      list(APPEND bad ${sym})
    endif()
  endforeach()
  if(bad)
    list(REMOVE_DUPLICATES bad)
    list(LENGTH bad n)
    list(JOIN bad " " shown)
    list(APPEND failures "${lib} exports ${n} symbol(s) outside ${allowed}: ${shown}")
    continue()
  endif()
  if(MODE STREQUAL "installed")
    foreach(want ompdag_condag_create ompdag_rta_run ompdag_report_create ompdag_version)
      if(NOT out MATCHES "(^|\n)${want} ")
        list(APPEND failures "${lib} does not export ${want}")
      endif()
    endforeach()
  endif()
  message(STATUS "${lib}: ${count} global symbols, all allowed (${MODE})")
endforeach()
if(failures)
  # Each failure is printed as one unwrapped line (message(FATAL_ERROR) wraps
  # long text at word boundaries, so how a line broke depended on how long
  # the build path was; the *_detects_leaks tests match these lines).
  foreach(failure IN LISTS failures)
    message(NOTICE "${failure}")
  endforeach()
  list(LENGTH failures n_failures)
  message(FATAL_ERROR "exports check: ${n_failures} librar(y/ies) failed")
endif()
