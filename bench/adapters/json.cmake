# C and C++ JSON peers (included by bench/CMakeLists.txt): one program per
# library and test; a test the library has no API for, and every test of a
# library that is not installed or could not be fetched, is recorded with
# bench_missing instead. programs.tsv has each library's version and origin.
#
# Where they come from, and linkage — static where there is a static archive
# or the source (ADAPTERS.md):
#   yyjson      static   yyjson.c of the yyjson-sys crate (crates.io),
#                        compiled here: the newest yyjson our registries have
#   simdjson    static   simdjson.cpp (5.x, amalgamated) from the PyPI sdist
#                        fastsimdjson (bench/fetch-peer.py), compiled here
#   rapidjson   header-only (Debian)
#   yajl        static   libyajl_s.a (Debian)
#   jansson     static   libjansson.a (Debian)
#   cjson       SHARED   libcjson.so (Debian ships no static archive)
#   json-c      static   libjson-c.a (Debian)
#   nlohmann    header-only (Debian)
#   boost-json  static   header-only Boost.JSON (<boost/json/src.hpp>) of the
#                        Boost headers in the PyPI wheel cmeel-boost
#                        (bench/fetch-peer.py), compiled here once
# bench_json_find prefers lib<name>.a and falls back to the shared
# library; the configure log prints the linkage of each library found.

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

# bench_header_version(VAR FILE MACRO): the string or number MACRO is
# #defined to in FILE ("" if it is not there).
function(bench_header_version var file macro)
  set(value "")
  if(EXISTS "${file}")
    file(STRINGS "${file}" lines REGEX "#[ \t]*define[ \t]+${macro}[ \t]")
    foreach(line ${lines})
      if(line MATCHES "define[ \t]+${macro}[ \t]+\"?([^\" \t]+)\"?")
        set(value "${CMAKE_MATCH_1}")
        break()
      endif()
    endforeach()
  endif()
  set(${var} "${value}" PARENT_SCOPE)
endfunction()

# --- yyjson (C), from the yyjson-sys crate ----------------------------------
# YYJSON_SOURCE_DIR: the crate's directory (what `bench/crate-source.sh
# yyjson-sys` prints; bench/run.py passes it) or a directory holding
# yyjson.c. Empty: ask crate-source.sh here. yyjson-sys 0.1.0 ships yyjson
# 0.10.0; no newer yyjson is on crates.io or PyPI unmodified (the PyPI
# packages yyjson 4.0.6 and vtx-yyjson 4.4.0 vendor 0.10.0 too, orjson a
# patched copy; npm has no yyjson package).
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
  bench_header_version(_yyjson_version "${_yyjson_src}/yyjson.h" YYJSON_VERSION_STRING)
  # the crate's own name and version, from its Cargo.toml
  set(_yyjson_origin "${_yyjson_src}")
  if(EXISTS "${_yyjson_dir}/Cargo.toml")
    file(STRINGS "${_yyjson_dir}/Cargo.toml" _yyjson_toml REGEX "^(name|version) *= *\"")
    set(_crate_name "")
    set(_crate_version "")
    foreach(line ${_yyjson_toml})
      if(line MATCHES "^name *= *\"([^\"]+)\"" AND NOT _crate_name)
        set(_crate_name "${CMAKE_MATCH_1}")
      elseif(line MATCHES "^version *= *\"([^\"]+)\"" AND NOT _crate_version)
        set(_crate_version "${CMAKE_MATCH_1}")
      endif()
    endforeach()
    if(_crate_name AND _crate_version)
      set(_yyjson_origin "crates.io ${_crate_name} ${_crate_version}")
    endif()
  endif()
  bench_library(yyjson "${_yyjson_version}" "${_yyjson_origin}")
  message(STATUS "bench json: yyjson ${_yyjson_version} static (${_yyjson_src}/yyjson.c)")
  add_library(bench_yyjson STATIC "${_yyjson_src}/yyjson.c")
  target_include_directories(bench_yyjson PUBLIC "${_yyjson_src}")
  foreach(test write tree serialize)
    bench_program(yyjson json ${test} C SOURCES ${BENCH_JSON_DIR}/yyjson/yyjson_${test}.c LIBS bench_yyjson)
  endforeach()
else()
  bench_library(yyjson "" "crates.io yyjson-sys")
  bench_json_missing_all(yyjson C "yyjson-sys crate not fetched" write tree serialize)
endif()
bench_missing(yyjson json incremental C "no incremental API")

# --- simdjson 5 (C++), from the PyPI sdist fastsimdjson ---------------------
# fetch-peer.py unpacks the amalgamated simdjson.h and simdjson.cpp;
# simdjson.cpp is compiled once into a static library (default options:
# run-time CPU dispatch, exceptions available but unused by the adapters).
bench_fetch_peer(simdjson)
if(simdjson_FETCH_DIR AND EXISTS "${simdjson_FETCH_DIR}/simdjson.cpp")
  bench_header_version(_simdjson_version "${simdjson_FETCH_DIR}/simdjson.h" SIMDJSON_VERSION)
  bench_library(simdjson "${_simdjson_version}" "${simdjson_FETCH_ORIGIN}")
  message(STATUS "bench json: simdjson ${_simdjson_version} static (${simdjson_FETCH_DIR}/simdjson.cpp)")
  add_library(bench_simdjson STATIC "${simdjson_FETCH_DIR}/simdjson.cpp")
  target_include_directories(bench_simdjson PUBLIC "${simdjson_FETCH_DIR}")
  foreach(test write tree incremental serialize)
    bench_program(simdjson json ${test} C++ SOURCES ${BENCH_JSON_DIR}/simdjson/simdjson_${test}.cpp
                  LIBS bench_simdjson)
  endforeach()
else()
  bench_library(simdjson "" "${simdjson_FETCH_ORIGIN}")
  bench_json_missing_all(simdjson C++ "${simdjson_FETCH_ERROR}" write tree incremental serialize)
endif()

# --- RapidJSON (C++, header-only) -----------------------------------------------
bench_json_find(BENCH_RAPIDJSON rapidjson/document.h)
bench_debian_library(rapidjson rapidjson-dev)
if(BENCH_RAPIDJSON_FOUND)
  # RapidJSON's documented SIMD switch; SSE2 is part of baseline x86-64.
  set(_rapidjson_defs "")
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
    set(_rapidjson_defs RAPIDJSON_SSE2)
  endif()
  foreach(test write tree incremental serialize)
    bench_program(rapidjson json ${test} C++ SOURCES ${BENCH_JSON_DIR}/rapidjson/rapidjson_${test}.cpp
                  INCLUDES ${BENCH_RAPIDJSON_INCLUDE_DIR} DEFINES ${_rapidjson_defs})
  endforeach()
else()
  bench_json_missing_all(rapidjson C++ "rapidjson-dev not installed" write tree incremental serialize)
endif()

# --- YAJL 2 (C) ---------------------------------------------------------------
bench_json_find(BENCH_YAJL yajl/yajl_parse.h libyajl_s.a yajl)
bench_debian_library(yajl libyajl-dev)
if(BENCH_YAJL_FOUND)
  foreach(test write tree incremental)
    bench_program(yajl json ${test} C SOURCES ${BENCH_JSON_DIR}/yajl/yajl_${test}.c
                  INCLUDES ${BENCH_YAJL_INCLUDE_DIR} LIBS ${BENCH_YAJL_LIBRARY})
  endforeach()
else()
  bench_json_missing_all(yajl C "libyajl-dev not installed" write tree incremental)
endif()
# yajl_tree is a read-only tree: YAJL's generator (yajl_gen) takes events,
# and nothing in YAJL writes a yajl_val back out.
bench_missing(yajl json serialize C "no serializer for its tree (yajl_tree has no generator)")

# --- Jansson (C) ---------------------------------------------------------------
bench_json_find(BENCH_JANSSON jansson.h libjansson.a jansson)
bench_debian_library(jansson libjansson-dev)
if(BENCH_JANSSON_FOUND)
  foreach(test write tree serialize)
    bench_program(jansson json ${test} C SOURCES ${BENCH_JSON_DIR}/jansson/jansson_${test}.c
                  INCLUDES ${BENCH_JANSSON_INCLUDE_DIR} LIBS ${BENCH_JANSSON_LIBRARY})
  endforeach()
else()
  bench_json_missing_all(jansson C "libjansson-dev not installed" write tree serialize)
endif()
bench_missing(jansson json incremental C "no incremental API")

# --- cJSON (C) ---------------------------------------------------------------
bench_json_find(BENCH_CJSON cjson/cJSON.h libcjson.a cjson)
bench_debian_library(cjson libcjson-dev)
if(BENCH_CJSON_FOUND)
  foreach(test write tree serialize)
    bench_program(cjson json ${test} C SOURCES ${BENCH_JSON_DIR}/cjson/cjson_${test}.c
                  INCLUDES ${BENCH_CJSON_INCLUDE_DIR} LIBS ${BENCH_CJSON_LIBRARY})
  endforeach()
else()
  bench_json_missing_all(cjson C "libcjson-dev not installed" write tree serialize)
endif()
bench_missing(cjson json incremental C "no incremental API")

# --- json-c (C) ----------------------------------------------------------------
bench_json_find(BENCH_JSONC json-c/json.h libjson-c.a json-c)
bench_debian_library(json-c libjson-c-dev)
if(BENCH_JSONC_FOUND)
  foreach(test write tree serialize)
    bench_program(json-c json ${test} C SOURCES ${BENCH_JSON_DIR}/json-c/json-c_${test}.c
                  INCLUDES ${BENCH_JSONC_INCLUDE_DIR} LIBS ${BENCH_JSONC_LIBRARY})
  endforeach()
else()
  bench_json_missing_all(json-c C "libjson-c-dev not installed" write tree serialize)
endif()
# json_tokener is incremental in the sense of accepting the text in pieces,
# but it always builds a json_object tree: there are no events to consume.
bench_missing(json-c json incremental C "no incremental API")

# --- nlohmann/json (C++, header-only) ------------------------------------------
bench_json_find(BENCH_NLOHMANN nlohmann/json.hpp)
bench_debian_library(nlohmann nlohmann-json3-dev)
if(BENCH_NLOHMANN_FOUND)
  foreach(test write tree incremental)
    bench_program(nlohmann json ${test} C++ SOURCES ${BENCH_JSON_DIR}/nlohmann/nlohmann_${test}.cpp
                  INCLUDES ${BENCH_NLOHMANN_INCLUDE_DIR})
  endforeach()
  # one Serialize source for every format (binary.cmake)
  bench_program(nlohmann json serialize C++ SOURCES ${BENCH_JSON_DIR}/nlohmann/nlohmann_serialize.cpp
                INCLUDES ${BENCH_NLOHMANN_INCLUDE_DIR} DEFINES NL_FMT=json NL_JSON)
else()
  bench_json_missing_all(nlohmann C++ "nlohmann-json3-dev not installed" write tree incremental serialize)
endif()

# --- Boost.JSON (C++), Boost headers from the PyPI wheel cmeel-boost -----------
# Header-only: <boost/json/src.hpp> is compiled once into bench_boost_json
# (Boost.JSON's documented alternative to linking libboost_json). The
# fetched headers come before any system Boost (-I precedes /usr/include).
bench_fetch_peer(boost)
if(boost_FETCH_DIR AND EXISTS "${boost_FETCH_DIR}/boost/json/src.hpp")
  bench_header_version(_boost_version "${boost_FETCH_DIR}/boost/version.hpp" BOOST_LIB_VERSION)
  string(REPLACE "_" "." _boost_version "${_boost_version}")
  bench_library(boost-json "${_boost_version}" "${boost_FETCH_ORIGIN}")
  message(STATUS "bench json: Boost.JSON ${_boost_version} header-only, static (${boost_FETCH_DIR})")
  add_library(bench_boost_json STATIC ${BENCH_JSON_DIR}/boost-json/boost-json_src.cpp)
  target_include_directories(bench_boost_json BEFORE PUBLIC "${boost_FETCH_DIR}")
  target_compile_definitions(bench_boost_json PUBLIC BOOST_JSON_NO_LIB BOOST_CONTAINER_NO_LIB)
  foreach(test write tree incremental serialize)
    bench_program(boost-json json ${test} C++ SOURCES ${BENCH_JSON_DIR}/boost-json/boost-json_${test}.cpp
                  LIBS bench_boost_json)
  endforeach()
else()
  bench_library(boost-json "" "${boost_FETCH_ORIGIN}")
  bench_json_missing_all(boost-json C++ "${boost_FETCH_ERROR}" write tree incremental serialize)
endif()
