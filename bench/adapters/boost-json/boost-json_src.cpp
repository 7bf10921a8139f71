/*
 * Boost.JSON, header-only: the library's sources, compiled once into
 * bench_boost_json for every boost-json program (Boost.JSON's documented
 * way to use it without linking libboost_json: include <boost/json/src.hpp>
 * in exactly one source file).
 */
#include <boost/json/src.hpp>
