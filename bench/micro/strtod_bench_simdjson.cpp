// simdjson's number parser for bench/micro/strtod_bench.c (the simdjson
// the benchmark suite fetches: bench/fetch-peer.py simdjson unpacks
// simdjson.h and simdjson.cpp into build/deps/simdjson-*; link
// simdjson.cpp's object too): the header-inline numberparsing::parse_double
// of the implementation the header builds in, which is the scalar number
// code every simdjson implementation shares (what ondemand's get_double()
// runs). It needs the bytes after the number readable (simdjson pads its
// input); the benchmark's text is NUL-terminated and numbers are followed
// by a delimiter.
//
//   S=$(python3 bench/fetch-peer.py simdjson | head -1)
//   c++ -O3 -std=c++17 -I "$S" -c bench/micro/strtod_bench_simdjson.cpp -o /tmp/simdjson_num.o
#include <simdjson.h>

extern "C" const char *simdjson_number(const char *p, double *out) {
    auto r = simdjson::builtin::numberparsing::parse_double(reinterpret_cast<const uint8_t *>(p));
    if (r.error()) return nullptr;
    *out = r.value_unsafe();
    return p + 1;
}
