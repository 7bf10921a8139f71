/*
 * libcbor 0.8, CBOR, Incremental: cbor_stream_decode, libcbor's streaming
 * (callback) decoder. Each call decodes one item head and invokes one
 * callback; it keeps no nesting state, so the caller tracks the open
 * arrays and maps (items left in each) to know where containers end and
 * which strings are map keys (up to MAX_DEPTH levels, deeper is rejected).
 * Unlike cbor_load, the streaming decoder does not validate UTF-8.
 *
 * Negative integers arrive as n with value -1 - n; n >= 2^63 is rejected
 * (not representable as int64; never in the benchmark's data). Half and
 * single floats arrive as float and are widened to double.
 */
#include <cbor.h>

#include "adapter.h"

#define MAX_DEPTH 1024

typedef struct frame {
    size_t left; /* items still to come (a map counts keys and values) */
    int map;
} frame;

typedef struct state {
    sbh *h;
    int depth, err, done;
    frame stack[MAX_DEPTH];
} state;

/* Is the next item a map key? */
static inline int at_key(const state *s) {
    if (s->depth == 0) return 0;
    const frame *f = &s->stack[s->depth - 1];
    return f->map && (f->left & 1) == 0;
}

/* One item (scalar or whole container) is complete. */
static inline void item_done(state *s) {
    while (s->depth > 0) {
        frame *f = &s->stack[s->depth - 1];
        if (--f->left) return;
        sbh_end(s->h);
        s->depth--;
    }
    s->done = 1;
}

/* The adapter's own checks of the event stream. */
static void fail(state *s, const char *why) {
    if (!s->err) bench_error("%s", why);
    s->err = 1;
}

/* A value that may not be a map key. */
static inline int value_ok(state *s) {
    if (s->done || at_key(s)) {
        fail(s, s->done ? "a second value after the root" : "a map key that is not a text string");
        return 0;
    }
    return 1;
}

static void on_uint8(void *c, uint8_t v) {
    state *s = c;
    if (value_ok(s)) sbh_uint(s->h, v), item_done(s);
}
static void on_uint16(void *c, uint16_t v) {
    state *s = c;
    if (value_ok(s)) sbh_uint(s->h, v), item_done(s);
}
static void on_uint32(void *c, uint32_t v) {
    state *s = c;
    if (value_ok(s)) sbh_uint(s->h, v), item_done(s);
}
static void on_uint64(void *c, uint64_t v) {
    state *s = c;
    if (value_ok(s)) sbh_uint(s->h, v), item_done(s);
}
static void negint(state *s, uint64_t n) {
    if (!value_ok(s)) return;
    if (n > (uint64_t)INT64_MAX) {
        fail(s, "a negative integer below INT64_MIN");
        return;
    }
    sbh_int(s->h, -1 - (int64_t)n);
    item_done(s);
}
static void on_negint8(void *c, uint8_t v) { negint(c, v); }
static void on_negint16(void *c, uint16_t v) { negint(c, v); }
static void on_negint32(void *c, uint32_t v) { negint(c, v); }
static void on_negint64(void *c, uint64_t v) { negint(c, v); }

static void on_string(void *c, cbor_data p, size_t n) {
    state *s = c;
    if (s->done) {
        fail(s, "a second value after the root");
        return;
    }
    if (at_key(s)) sbh_key(s->h, (const char *)p, n);
    else sbh_str(s->h, (const char *)p, n);
    item_done(s);
}
static void on_bytes(void *c, cbor_data p, size_t n) {
    state *s = c;
    if (value_ok(s)) sbh_bin(s->h, p, n), item_done(s);
}

static void open_container(state *s, size_t items, int map) {
    if (!value_ok(s)) return;
    if (map) sbh_map(s->h);
    else sbh_array(s->h);
    if (items == 0) {
        sbh_end(s->h);
        item_done(s);
        return;
    }
    if (s->depth == MAX_DEPTH) {
        fail(s, "nested deeper than the adapter's stack");
        return;
    }
    s->stack[s->depth].left = items;
    s->stack[s->depth].map = map;
    s->depth++;
}
static void on_array(void *c, size_t n) { open_container(c, n, 0); }
static void on_map(void *c, size_t n) {
    if (n > SIZE_MAX / 2) {
        fail(c, "a map with more entries than size_t holds twice");
        return;
    }
    open_container(c, 2 * n, 1);
}

static void on_float(void *c, float v) {
    state *s = c;
    if (value_ok(s)) sbh_double(s->h, (double)v), item_done(s);
}
static void on_double(void *c, double v) {
    state *s = c;
    if (value_ok(s)) sbh_double(s->h, v), item_done(s);
}
static void on_null(void *c) {
    state *s = c;
    if (value_ok(s)) sbh_null(s->h), item_done(s);
}
static void on_bool(void *c, bool v) {
    state *s = c;
    if (value_ok(s)) sbh_bool(s->h, v), item_done(s);
}

/* Indefinite-length items, tags, undefined: not in the benchmark's data. */
static void on_unsupported(void *c) { fail(c, "an indefinite-length item or undefined"); }
static void on_tag(void *c, uint64_t v) {
    (void)v;
    fail(c, "a tag");
}

static const struct cbor_callbacks callbacks = {
    .uint8 = on_uint8,
    .uint16 = on_uint16,
    .uint32 = on_uint32,
    .uint64 = on_uint64,
    .negint64 = on_negint64,
    .negint32 = on_negint32,
    .negint16 = on_negint16,
    .negint8 = on_negint8,
    .byte_string_start = on_unsupported,
    .byte_string = on_bytes,
    .string = on_string,
    .string_start = on_unsupported,
    .indef_array_start = on_unsupported,
    .array_start = on_array,
    .indef_map_start = on_unsupported,
    .map_start = on_map,
    .tag = on_tag,
    .float2 = on_float,
    .float4 = on_float,
    .float8 = on_double,
    .undefined = on_unsupported,
    .null = on_null,
    .boolean = on_bool,
    .indef_break = on_unsupported,
};

static int cb_parse(const char *data, size_t len, sbh *h) {
    state s;
    s.h = h;
    s.depth = s.err = s.done = 0;
    size_t off = 0;
    while (off < len) {
        struct cbor_decoder_result r =
            cbor_stream_decode((cbor_data)data + off, len - off, &callbacks, &s);
        if (s.err) return 1;
        if (r.status != CBOR_DECODER_FINISHED) {
            bench_error("cbor_stream_decode: %s at byte %zu",
                        r.status == CBOR_DECODER_NEDATA ? "CBOR_DECODER_NEDATA (the input ends inside an item)"
                                                        : "CBOR_DECODER_ERROR (malformed)",
                        off);
            return 1;
        }
        off += r.read;
    }
    if (!s.done) bench_error("the input ends inside a container");
    return !s.done;
}

const bench_adapter bench_adapter_def = {"libcbor", "C", "cbor", "incremental", NULL, cb_parse};
