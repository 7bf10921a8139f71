/*
 * msgpuck, MessagePack, Incremental: msgpuck's pull decoding, mp_typeof
 * then the matching mp_decode_*, straight over the input (nothing built).
 *
 * The mp_decode_* functions do no bounds checking: msgpuck's README and
 * header pair them with mp_check(), which validates one whole value first.
 * A program reading a document it did not write does that, so the call is
 * part of the test (a second full pass over the input: on twitter about a
 * third of this test's time, hashing included).
 */
#include <msgpuck.h>

#include "adapter.h"

static int walk(const char **p, sbh *h) {
    uint32_t n;
    const char *s;
    switch (mp_typeof(**p)) {
    case MP_NIL: mp_decode_nil(p); sbh_null(h); return 0;
    case MP_BOOL: sbh_bool(h, mp_decode_bool(p)); return 0;
    case MP_UINT: sbh_uint(h, mp_decode_uint(p)); return 0;
    case MP_INT: sbh_int(h, mp_decode_int(p)); return 0;
    case MP_FLOAT: sbh_double(h, (double)mp_decode_float(p)); return 0;
    case MP_DOUBLE: sbh_double(h, mp_decode_double(p)); return 0;
    case MP_STR:
        s = mp_decode_str(p, &n);
        sbh_str(h, s, n);
        return 0;
    case MP_BIN:
        s = mp_decode_bin(p, &n);
        sbh_bin(h, s, n);
        return 0;
    case MP_ARRAY:
        n = mp_decode_array(p);
        sbh_array(h);
        for (uint32_t i = 0; i < n; i++)
            if (walk(p, h)) return -1;
        sbh_end(h);
        return 0;
    case MP_MAP:
        n = mp_decode_map(p);
        sbh_map(h);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t kl;
            if (mp_typeof(**p) != MP_STR) {
                bench_error("a map key that is not a string");
                return -1;
            }
            s = mp_decode_str(p, &kl);
            sbh_key(h, s, kl);
            if (walk(p, h)) return -1;
        }
        sbh_end(h);
        return 0;
    default: /* ext: not in the benchmark's data */
        bench_error("an ext value");
        return -1;
    }
}

static int mp_parse(const char *data, size_t len, sbh *h) {
    const char *end = data + len, *c = data;
    if (len == 0 || mp_check(&c, end) != 0) { /* mp_check says only that it failed */
        bench_error("mp_check: invalid MessagePack at byte %td", c - data);
        return 1;
    }
    if (c != end) {
        bench_error("%td bytes after the value", end - c);
        return 1;
    }
    const char *p = data;
    return walk(&p, h) != 0 || p != end;
}

const bench_adapter bench_adapter_def = {"msgpuck", "C", "msgpack", "incremental", NULL, mp_parse};
