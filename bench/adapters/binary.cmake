# C and C++ peers for the binary formats: MessagePack, CBOR, BSON, UBJSON.
# Included by bench/CMakeLists.txt. Every program the suite expects is
# declared here, built (bench_program) or listed as missing (bench_missing).
#
# Every peer here comes from Debian 12 (programs.tsv has each package and
# version). Linkage: a library is linked statically where its Debian package
# ships a static archive (msgpack-c: libmsgpackc.a, msgpuck: libmsgpuck.a,
# libbson: libbson-static-1.0.a); libcbor-dev ships only libcbor.so, so the
# libcbor programs link it shared. msgpack-c++ and nlohmann are header-only.
#
# Libraries are looked up in the default places and in CMAKE_PREFIX_PATH
# (so headers unpacked from a .deb into a private prefix are found too).
# libmsgpack-dev and libmsgpack-cxx-dev are unpacked, not installed
# (scripts/lib.sh, extract_debian_packages, into build/deps): installing
# them pulls in libboost-dev (Boost 1.74), which nothing here uses —
# msgpack-c++ is built with MSGPACK_NO_BOOST — and which conflicts with
# any other Boost development package on the machine. By hand:
#   apt-get download libmsgpack-dev libmsgpack-cxx-dev
#   for d in libmsgpack*.deb; do dpkg-deb -x "$d" /opt/msgpack-deb; done
#   export CMAKE_PREFIX_PATH=/opt/msgpack-deb/usr

# --- MessagePack ------------------------------------------------------------

# msgpack-c (libmsgpack-dev): the C API, static libmsgpackc.a.
find_path(BENCH_MSGPACK_C_INCLUDE msgpack.h)
find_library(BENCH_MSGPACK_C_LIB NAMES libmsgpackc.a msgpackc)
bench_debian_library(msgpack-c libmsgpack-dev "${BENCH_MSGPACK_C_INCLUDE}")
if(BENCH_MSGPACK_C_INCLUDE AND BENCH_MSGPACK_C_LIB)
  foreach(test write tree serialize)
    bench_program(msgpack-c msgpack ${test} C SOURCES adapters/msgpack-c/msgpack_c_${test}.c
                  LIBS ${BENCH_MSGPACK_C_LIB} INCLUDES ${BENCH_MSGPACK_C_INCLUDE})
  endforeach()
else()
  foreach(test write tree serialize)
    bench_missing(msgpack-c msgpack ${test} C "libmsgpack-dev not installed")
  endforeach()
endif()
# The C API has no event/visitor API: msgpack_unpacker is a streaming
# *buffer* (feed bytes, get whole msgpack_object trees out of a zone).
bench_missing(msgpack-c msgpack incremental C "no incremental API (msgpack_unpacker yields whole object trees)")

# msgpack-c++ (libmsgpack-cxx-dev): header-only, always built with its
# documented MSGPACK_NO_BOOST (standalone: no Boost headers). Its Boost
# support is for Boost types (optional, variant, ...) that the benchmark
# does not use; without the option it would take whatever Boost the machine
# happens to have.
find_path(BENCH_MSGPACK_CXX_INCLUDE msgpack.hpp)
bench_debian_library(msgpack-cxx libmsgpack-cxx-dev "${BENCH_MSGPACK_CXX_INCLUDE}")
if(BENCH_MSGPACK_CXX_INCLUDE)
  foreach(test write tree incremental serialize)
    bench_program(msgpack-cxx msgpack ${test} C++ SOURCES adapters/msgpack-cxx/msgpack_cxx_${test}.cpp
                  INCLUDES ${BENCH_MSGPACK_CXX_INCLUDE} DEFINES MSGPACK_NO_BOOST)
  endforeach()
else()
  foreach(test write tree incremental serialize)
    bench_missing(msgpack-cxx msgpack ${test} C++ "libmsgpack-cxx-dev not installed")
  endforeach()
endif()

# msgpuck (libmsgpuck-dev): one header plus libmsgpuck.a (its lookup tables).
find_path(BENCH_MSGPUCK_INCLUDE msgpuck.h)
find_library(BENCH_MSGPUCK_LIB NAMES libmsgpuck.a msgpuck)
bench_debian_library(msgpuck libmsgpuck-dev)
if(BENCH_MSGPUCK_INCLUDE AND BENCH_MSGPUCK_LIB)
  bench_program(msgpuck msgpack write C SOURCES adapters/msgpuck/msgpuck_write.c
                LIBS ${BENCH_MSGPUCK_LIB} INCLUDES ${BENCH_MSGPUCK_INCLUDE})
  bench_program(msgpuck msgpack incremental C SOURCES adapters/msgpuck/msgpuck_incremental.c
                LIBS ${BENCH_MSGPUCK_LIB} INCLUDES ${BENCH_MSGPUCK_INCLUDE})
else()
  bench_missing(msgpuck msgpack write C "libmsgpuck-dev not installed")
  bench_missing(msgpuck msgpack incremental C "libmsgpuck-dev not installed")
endif()
bench_missing(msgpuck msgpack tree C "no tree API (msgpuck only encodes and pull-decodes)")
bench_missing(msgpuck msgpack serialize C "no document to serialize (msgpuck only encodes and pull-decodes)")

# --- CBOR -------------------------------------------------------------------

# libcbor (libcbor-dev): no static archive in the package -> shared.
pkg_check_modules(BENCH_LIBCBOR IMPORTED_TARGET libcbor)
bench_debian_library(libcbor libcbor-dev)
if(BENCH_LIBCBOR_FOUND)
  foreach(test write tree incremental serialize)
    bench_program(libcbor cbor ${test} C SOURCES adapters/libcbor/libcbor_${test}.c LIBS PkgConfig::BENCH_LIBCBOR)
  endforeach()
else()
  foreach(test write tree incremental serialize)
    bench_missing(libcbor cbor ${test} C "libcbor-dev not installed")
  endforeach()
endif()

# --- BSON -------------------------------------------------------------------

# libbson (libbson-dev): static libbson-static-1.0.a (with -DBSON_STATIC).
find_path(BENCH_LIBBSON_INCLUDE bson/bson.h PATH_SUFFIXES libbson-1.0)
find_library(BENCH_LIBBSON_LIB NAMES libbson-static-1.0.a)
bench_debian_library(libbson libbson-dev)
if(BENCH_LIBBSON_INCLUDE AND BENCH_LIBBSON_LIB)
  foreach(test write incremental)
    bench_program(libbson bson ${test} C SOURCES adapters/libbson/libbson_${test}.c
                  LIBS ${BENCH_LIBBSON_LIB} INCLUDES ${BENCH_LIBBSON_INCLUDE} DEFINES BSON_STATIC)
  endforeach()
else()
  foreach(test write incremental)
    bench_missing(libbson bson ${test} C "libbson-dev not installed")
  endforeach()
endif()
# A bson_t is the encoded buffer itself; reading is bson_iter over it (the
# incremental test). bson_visit_all is a visitor over the same iterator.
bench_missing(libbson bson tree C "no tree API (bson_t is the encoded buffer, read with bson_iter)")
bench_missing(libbson bson serialize C "no document to serialize (a bson_t is the encoded bytes themselves)")

# --- nlohmann::json: MessagePack, CBOR, BSON, UBJSON ------------------------

# Header-only (nlohmann-json3-dev). One source per test, compiled per format.
find_path(BENCH_NLOHMANN_INCLUDE nlohmann/json.hpp)
bench_debian_library(nlohmann nlohmann-json3-dev)
foreach(fmt msgpack cbor bson ubjson)
  foreach(test write tree incremental serialize)
    if(BENCH_NLOHMANN_INCLUDE)
      set(src adapters/nlohmann/nlohmann_binary_${test}.cpp)
      if(test STREQUAL "serialize")
        set(src adapters/nlohmann/nlohmann_serialize.cpp)
      endif()
      bench_program(nlohmann ${fmt} ${test} C++ SOURCES ${src} INCLUDES ${BENCH_NLOHMANN_INCLUDE} DEFINES NL_FMT=${fmt})
    else()
      bench_missing(nlohmann ${fmt} ${test} C++ "nlohmann-json3-dev not installed")
    endif()
  endforeach()
endforeach()
