# C and C++ JSON peers (included by bench/CMakeLists.txt): one program per
# library and test; a test the library has no API for, and every test of a
# library that is not installed, is recorded with bench_missing instead.
#
# Linkage — static where Debian ships a static archive (ADAPTERS.md):
#   yyjson      static   yyjson.c of the yyjson-sys crate, compiled here
#   simdjson    SHARED   libsimdjson.so (Debian ships no static archive)
#   rapidjson   header-only
#   yajl        static   libyajl_s.a
#   jansson     static   libjansson.a
#   cjson       SHARED   libcjson.so (Debian ships no static archive)
#   json-c      static   libjson-c.a
#   nlohmann    header-only
#   boost-json  static   libboost_json.a (the compiled library, not the
#                        header-only <boost/json/src.hpp>)
# bench_json_find prefers lib<name>.a and falls back to the shared
# library, so the table above is what Debian 12 gives; the configure log
# prints the linkage of each library found.

# bench_json_find(PREFIX HEADER [LIBNAMES...]): PREFIX_INCLUDE_DIR (where
# HEADER is), PREFIX_LIBRARY (the first of LIBNAMES found, in order: list the
# static archive first) and PREFIX_FOUND.
function(bench_json_find prefix header)
  find_path(${prefix}_INCLUDE_DIR ${header})
  set(found FALSE)
  if(${prefix}_INCLUDE_DIR)
    set(found TRUE)
  endif()
  if(ARGN)
    find_library(${prefix}_LIBRARY NAMES ${ARGN})
    if(NOT ${prefix}_LIBRARY)
      set(found FALSE)
    endif()
  endif()
  set(${prefix}_FOUND ${found} PARENT_SCOPE)
  if(found AND ARGN)
    if(${prefix}_LIBRARY MATCHES "\\.a$")
      message(STATUS "bench json: ${header}: static (${${prefix}_LIBRARY})")
    else()
      message(STATUS "bench json: ${header}: SHARED (${${prefix}_LIBRARY})")
    endif()
  endif()
endfunction()

# bench_json_missing_all(LIBRARY LANGUAGE REASON TESTS...)
function(bench_json_missing_all library language reason)
  foreach(test ${ARGN})
    bench_missing(${library} json ${test} ${language} "${reason}")
  endforeach()
endfunction()

set(BENCH_JSON_DIR "${CMAKE_CURRENT_SOURCE_DIR}/adapters")

# --- yyjson 0.10.0 (C), from the yyjson-sys crate -------------------------
# YYJSON_SOURCE_DIR: the crate's directory (what `bench/crate-source.sh
# yyjson-sys` prints; bench/run.py passes it) or a directory holding
# yyjson.c. Empty: ask crate-source.sh here.
set(YYJSON_SOURCE_DIR "" CACHE PATH "yyjson-sys crate directory (bench/crate-source.sh yyjson-sys) or a directory with yyjson.c")
set(_yyjson_dir "${YYJSON_SOURCE_DIR}")
if(NOT _yyjson_dir)
  execute_process(
    COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/crate-source.sh" yyjson-sys
    OUTPUT_VARIABLE _yyjson_dir
    RESULT_VARIABLE _yyjson_rc
    ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _yyjson_rc EQUAL 0)
    set(_yyjson_dir "")
  endif()
endif()
set(_yyjson_src "")
if(_yyjson_dir)
  foreach(sub yyjson/src src .)
    if(EXISTS "${_yyjson_dir}/${sub}/yyjson.c" AND EXISTS "${_yyjson_dir}/${sub}/yyjson.h")
      get_filename_component(_yyjson_src "${_yyjson_dir}/${sub}" ABSOLUTE)
      break()
    endif()
  endforeach()
endif()
if(_yyjson_src)
  message(STATUS "bench json: yyjson static (${_yyjson_src}/yyjson.c)")
  add_library(bench_yyjson STATIC "${_yyjson_src}/yyjson.c")
  target_include_directories(bench_yyjson PUBLIC "${_yyjson_src}")
  bench_program(yyjson json write C SOURCES ${BENCH_JSON_DIR}/yyjson/yyjson_write.c LIBS bench_yyjson)
  bench_program(yyjson json tree C SOURCES ${BENCH_JSON_DIR}/yyjson/yyjson_tree.c LIBS bench_yyjson)
else()
  bench_json_missing_all(yyjson C "yyjson-sys crate not fetched" write tree)
endif()
bench_missing(yyjson json incremental C "no incremental API")

# --- simdjson 3.0.1 (C++, Debian) -------------------------------------------
# pkg-config gives -DSIMDJSON_THREADS_ENABLED=1, which must match how
# Debian built libsimdjson (it changes the parser's layout).
pkg_check_modules(SIMDJSON IMPORTED_TARGET simdjson)
if(SIMDJSON_FOUND)
  message(STATUS "bench json: simdjson SHARED (libsimdjson.so, no static archive in Debian)")
  bench_program(simdjson json tree C++ SOURCES ${BENCH_JSON_DIR}/simdjson/simdjson_tree.cpp LIBS PkgConfig::SIMDJSON)
  bench_program(simdjson json incremental C++ SOURCES ${BENCH_JSON_DIR}/simdjson/simdjson_incremental.cpp
                LIBS PkgConfig::SIMDJSON)
else()
  bench_json_missing_all(simdjson C++ "libsimdjson-dev not installed" tree incremental)
endif()
# 3.0.1 can minify or re-serialize its own parsed DOM, but has no writer
# for data from elsewhere (the string builder came in 4.0).
bench_missing(simdjson json write C++ "no writer API")

# --- RapidJSON 1.1.0 (C++, header-only) ---------------------------------------
bench_json_find(BENCH_RAPIDJSON rapidjson/document.h)
if(BENCH_RAPIDJSON_FOUND)
  # RapidJSON's documented SIMD switch; SSE2 is part of baseline x86-64.
  set(_rapidjson_defs "")
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
    set(_rapidjson_defs RAPIDJSON_SSE2)
  endif()
  foreach(test write tree incremental)
    bench_program(rapidjson json ${test} C++ SOURCES ${BENCH_JSON_DIR}/rapidjson/rapidjson_${test}.cpp
                  INCLUDES ${BENCH_RAPIDJSON_INCLUDE_DIR} DEFINES ${_rapidjson_defs})
  endforeach()
else()
  bench_json_missing_all(rapidjson C++ "rapidjson-dev not installed" write tree incremental)
endif()

# --- YAJL 2 (C) ---------------------------------------------------------------
bench_json_find(BENCH_YAJL yajl/yajl_parse.h libyajl_s.a yajl)
if(BENCH_YAJL_FOUND)
  foreach(test write tree incremental)
    bench_program(yajl json ${test} C SOURCES ${BENCH_JSON_DIR}/yajl/yajl_${test}.c
                  INCLUDES ${BENCH_YAJL_INCLUDE_DIR} LIBS ${BENCH_YAJL_LIBRARY})
  endforeach()
else()
  bench_json_missing_all(yajl C "libyajl-dev not installed" write tree incremental)
endif()

# --- Jansson (C) ---------------------------------------------------------------
bench_json_find(BENCH_JANSSON jansson.h libjansson.a jansson)
if(BENCH_JANSSON_FOUND)
  foreach(test write tree)
    bench_program(jansson json ${test} C SOURCES ${BENCH_JSON_DIR}/jansson/jansson_${test}.c
                  INCLUDES ${BENCH_JANSSON_INCLUDE_DIR} LIBS ${BENCH_JANSSON_LIBRARY})
  endforeach()
else()
  bench_json_missing_all(jansson C "libjansson-dev not installed" write tree)
endif()
bench_missing(jansson json incremental C "no incremental API")

# --- cJSON (C) ---------------------------------------------------------------
bench_json_find(BENCH_CJSON cjson/cJSON.h libcjson.a cjson)
if(BENCH_CJSON_FOUND)
  foreach(test write tree)
    bench_program(cjson json ${test} C SOURCES ${BENCH_JSON_DIR}/cjson/cjson_${test}.c
                  INCLUDES ${BENCH_CJSON_INCLUDE_DIR} LIBS ${BENCH_CJSON_LIBRARY})
  endforeach()
else()
  bench_json_missing_all(cjson C "libcjson-dev not installed" write tree)
endif()
bench_missing(cjson json incremental C "no incremental API")

# --- json-c 0.16 (C) ---------------------------------------------------------
bench_json_find(BENCH_JSONC json-c/json.h libjson-c.a json-c)
if(BENCH_JSONC_FOUND)
  foreach(test write tree)
    bench_program(json-c json ${test} C SOURCES ${BENCH_JSON_DIR}/json-c/json-c_${test}.c
                  INCLUDES ${BENCH_JSONC_INCLUDE_DIR} LIBS ${BENCH_JSONC_LIBRARY})
  endforeach()
else()
  bench_json_missing_all(json-c C "libjson-c-dev not installed" write tree)
endif()
# json_tokener is incremental in the sense of accepting the text in pieces,
# but it always builds a json_object tree: there are no events to consume.
bench_missing(json-c json incremental C "no incremental API")

# --- nlohmann/json 3.11.2 (C++, header-only) -----------------------------------
bench_json_find(BENCH_NLOHMANN nlohmann/json.hpp)
if(BENCH_NLOHMANN_FOUND)
  foreach(test write tree incremental)
    bench_program(nlohmann json ${test} C++ SOURCES ${BENCH_JSON_DIR}/nlohmann/nlohmann_${test}.cpp
                  INCLUDES ${BENCH_NLOHMANN_INCLUDE_DIR})
  endforeach()
else()
  bench_json_missing_all(nlohmann C++ "nlohmann-json3-dev not installed" write tree incremental)
endif()

# --- Boost.JSON 1.81 (C++) -----------------------------------------------------
bench_json_find(BENCH_BOOST_JSON boost/json.hpp libboost_json.a boost_json)
if(BENCH_BOOST_JSON_FOUND)
  foreach(test write tree incremental)
    bench_program(boost-json json ${test} C++ SOURCES ${BENCH_JSON_DIR}/boost-json/boost-json_${test}.cpp
                  INCLUDES ${BENCH_BOOST_JSON_INCLUDE_DIR} LIBS ${BENCH_BOOST_JSON_LIBRARY})
  endforeach()
else()
  bench_json_missing_all(boost-json C++ "libboost-json-dev not installed" write tree incremental)
endif()
