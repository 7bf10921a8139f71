// simdjson's number parser for bench/micro/strtod_bench.c (simdjson 3.0.1,
// Debian's libsimdjson-dev): the header-inline numberparsing::parse_double
// of the implementation the header builds in, which is the scalar number
// code every simdjson implementation shares (what ondemand's get_double()
// runs). It needs the bytes after the number readable (simdjson pads its
// input); the benchmark's text is NUL-terminated and numbers are followed
// by a delimiter.
//
//   c++ -O3 -std=c++17 -c bench/micro/strtod_bench_simdjson.cpp -o /tmp/simdjson_num.o
#include <simdjson.h>

extern "C" const char *simdjson_number(const char *p, double *out) {
    auto r = simdjson::builtin::numberparsing::parse_double(reinterpret_cast<const uint8_t *>(p));
    if (r.error()) return nullptr;
    *out = r.value_unsafe();
    return p + 1;
}
