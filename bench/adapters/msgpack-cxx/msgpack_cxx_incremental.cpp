/*
 * msgpack-c++ 4.x, MessagePack, Incremental: msgpack::parse with a visitor
 * (the library's SAX-like API, "v2 visitor"): every value arrives as a
 * visit_* / start_* / end_* call, nothing is built. Strings point into the
 * input. A map key is told apart by start_map_key / end_map_key.
 */
#include <msgpack.hpp>

#include <stddef.h>
#include <stdint.h>
#include <string.h>
extern "C" { /* hash.h declares sbh_bytes without C linkage of its own */
#include "hash.h"
}
#include "adapter.h"

namespace {

struct hash_visitor : msgpack::null_visitor {
    sbh *h;
    bool in_key = false;

    explicit hash_visitor(sbh *hh) : h(hh) {}

    bool value() const { return !in_key; } /* keys must be strings */
    bool visit_nil() { sbh_null(h); return value(); }
    bool visit_boolean(bool v) { sbh_bool(h, v); return value(); }
    bool visit_positive_integer(uint64_t v) { sbh_uint(h, v); return value(); }
    bool visit_negative_integer(int64_t v) { sbh_int(h, v); return value(); }
    bool visit_float32(float v) { sbh_double(h, (double)v); return value(); }
    bool visit_float64(double v) { sbh_double(h, v); return value(); }
    bool visit_str(const char *p, uint32_t n) {
        if (in_key) sbh_key(h, p, n);
        else sbh_str(h, p, n);
        return true;
    }
    bool visit_bin(const char *p, uint32_t n) { sbh_bin(h, p, n); return value(); }
    bool visit_ext(const char *, uint32_t) { /* not in the benchmark's data */
        bench_error("an ext value");
        return false;
    }
    bool start_array(uint32_t) { sbh_array(h); return value(); }
    bool end_array() { sbh_end(h); return true; }
    bool start_map(uint32_t) { sbh_map(h); return value(); }
    bool start_map_key() { in_key = true; return true; }
    bool end_map_key() { in_key = false; return true; }
    bool end_map() { sbh_end(h); return true; }
    void parse_error(size_t parsed, size_t error) {
        bench_error("parse error at byte %zu (parsed up to byte %zu)", error, parsed);
    }
    void insufficient_bytes(size_t parsed, size_t error) {
        bench_error("the input ends inside a value (byte %zu; parsed up to byte %zu)", error, parsed);
    }
};

} // namespace

static int mp_parse(const char *data, size_t len, sbh *h) {
    try {
        hash_visitor v(h);
        std::size_t off = 0;
        bool ok = msgpack::parse(data, len, off, v);
        if (ok && off != len) bench_error("%zu bytes after the value", len - off);
        return ok && off == len ? 0 : 1;
    } catch (const std::exception &e) {
        bench_error("%s", e.what());
        return 1;
    }
}

extern "C" const bench_adapter bench_adapter_def = {"msgpack-cxx", "C++", "msgpack", "incremental", NULL, mp_parse};
