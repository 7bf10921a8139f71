/*
 * What the hardening tests share (tests/hardening, issue 16 "Hardening
 * that fuzzing cannot prove"): one table entry per format, so that every
 * test runs the same way over JSON, MessagePack, CBOR, BSON, UBJSON,
 * BJData and Binn, each through its memory reader, its stream reader and
 * its tree parser.
 */
#ifndef SDX_HARDEN_H
#define SDX_HARDEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_test.h" /* counting_alloc: live bytes, their peak, the largest block */
#include "sdx/sdx.h"
#include "trickle.h"     /* trickle: memory as a stream, `step` bytes a read */

/* ------------------------------------------------------------------------ */
/* One entry per format                                                      */
/* ------------------------------------------------------------------------ */

/* Options every format shares: 0 means the format's default. */
typedef struct hopts {
    uint32_t max_depth;
    uint32_t flags;      /* the format's own read flags */
    uint64_t max_empty;  /* UBJSON/BJData only */
    const sdx_alloc *alloc;
} hopts;

typedef struct format {
    const char *name;
    void *(*mem_new)(const char *data, size_t len, const hopts *o);
    void *(*stream_new)(sdx_read_fn fn, void *ctx, size_t chunk, const hopts *o);
    bool (*next)(void *r, sdx_event *ev);
    sdx_err (*error)(const void *r, sdx_error *err);
    void (*free)(void *r);
    sdx_source (*source)(void *r);
    bool (*skip)(void *r);
    sdx_doc *(*parse)(const char *data, size_t len, const hopts *o, sdx_error *err);
} format;

#define HFMT_OPTS(fmt, extra)                                                    \
    static sdx_##fmt##_read_opts fmt##_opts(const hopts *o) {                   \
        sdx_##fmt##_read_opts x;                                                \
        memset(&x, 0, sizeof x);                                                \
        x.flags = o->flags;                                                     \
        x.max_depth = o->max_depth;                                             \
        x.alloc = o->alloc;                                                     \
        extra;                                                                  \
        return x;                                                               \
    }

/* name_mem and name_parse: the format fmt's memory reader and parser
 * with `flags` added to the options' (bjdata: ubjson with its flag). */
#define HFMT_NEW(name, fmt, flag_or)                                             \
    static void *name##_mem(const char *d, size_t n, const hopts *o) {          \
        sdx_##fmt##_read_opts x = fmt##_opts(o);                                \
        x.flags |= (flag_or);                                                   \
        return sdx_##fmt##_reader_new(d, n, &x);                                \
    }                                                                           \
    static sdx_doc *name##_parse(const char *d, size_t n, const hopts *o, sdx_error *e) { \
        sdx_##fmt##_read_opts x = fmt##_opts(o);                                \
        x.flags |= (flag_or);                                                   \
        return sdx_##fmt##_parse(d, n, &x, e);                                  \
    }

/* name_stream: the format's stream reader, likewise. */
#define HFMT_STREAM(name, fmt, flag_or)                                          \
    static void *name##_stream(sdx_read_fn fn, void *ctx, size_t chunk, const hopts *o) { \
        sdx_##fmt##_read_opts x = fmt##_opts(o);                                \
        x.flags |= (flag_or);                                                   \
        return sdx_##fmt##_reader_new_stream(fn, ctx, chunk, &x);               \
    }

/* The reader's calls, the same for every dialect of a format. */
#define HFMT_CALLS(fmt)                                                          \
    static bool fmt##_next(void *r, sdx_event *ev) {                            \
        return sdx_##fmt##_reader_next(r, ev);                                  \
    }                                                                           \
    static sdx_err fmt##_error(const void *r, sdx_error *e) {                   \
        return sdx_##fmt##_reader_error(r, e);                                  \
    }                                                                           \
    static void fmt##_free(void *r) { sdx_##fmt##_reader_free(r); }             \
    static sdx_source fmt##_source(void *r) { return sdx_##fmt##_reader_source(r); } \
    static bool fmt##_skip(void *r) { return sdx_##fmt##_reader_skip(r); }

HFMT_OPTS(json, (void)0)
HFMT_OPTS(msgpack, (void)0)
HFMT_OPTS(cbor, (void)0)
HFMT_OPTS(bson, (void)0)
HFMT_OPTS(ubjson, x.max_empty = o->max_empty)
HFMT_OPTS(binn, (void)0)
HFMT_NEW(json, json, 0)
HFMT_NEW(msgpack, msgpack, 0)
HFMT_NEW(cbor, cbor, 0)
HFMT_NEW(bson, bson, 0)
HFMT_NEW(ubjson, ubjson, 0)
HFMT_NEW(bjdata, ubjson, SDX_UBJSON_READ_BJDATA)
HFMT_NEW(binn, binn, 0)
HFMT_STREAM(json, json, 0)
HFMT_STREAM(msgpack, msgpack, 0)
HFMT_STREAM(cbor, cbor, 0)
HFMT_STREAM(ubjson, ubjson, 0)
HFMT_STREAM(bjdata, ubjson, SDX_UBJSON_READ_BJDATA)
HFMT_STREAM(binn, binn, 0)
HFMT_CALLS(json)
HFMT_CALLS(msgpack)
HFMT_CALLS(cbor)
HFMT_CALLS(bson)
HFMT_CALLS(ubjson)
HFMT_CALLS(binn)

/* BSON's stream reader takes no chunk size (it reads one root document at
 * a time, growing its buffer with what arrives up to max_document). */
static void *bson_stream(sdx_read_fn fn, void *ctx, size_t chunk, const hopts *o) {
    (void)chunk;
    sdx_bson_read_opts x = bson_opts(o);
    return sdx_bson_reader_new_stream(fn, ctx, &x);
}

enum { F_JSON, F_MSGPACK, F_CBOR, F_BSON, F_UBJSON, F_BJDATA, F_BINN, F_COUNT };

static const format formats[F_COUNT] = {
    {"json", json_mem, json_stream, json_next, json_error, json_free, json_source, json_skip,
     json_parse},
    {"msgpack", msgpack_mem, msgpack_stream, msgpack_next, msgpack_error, msgpack_free,
     msgpack_source, msgpack_skip, msgpack_parse},
    {"cbor", cbor_mem, cbor_stream, cbor_next, cbor_error, cbor_free, cbor_source, cbor_skip,
     cbor_parse},
    {"bson", bson_mem, bson_stream, bson_next, bson_error, bson_free, bson_source, bson_skip,
     bson_parse},
    {"ubjson", ubjson_mem, ubjson_stream, ubjson_next, ubjson_error, ubjson_free, ubjson_source,
     ubjson_skip, ubjson_parse},
    {"bjdata", bjdata_mem, bjdata_stream, ubjson_next, ubjson_error, ubjson_free, ubjson_source,
     ubjson_skip, bjdata_parse},
    {"binn", binn_mem, binn_stream, binn_next, binn_error, binn_free, binn_source, binn_skip,
     binn_parse},
};

/* Read every event of a reader; returns its final error code (SDX_OK at a
 * clean end) and fills *e. Stops after `cap` events (a guard against a
 * reader that never ends: reported as SDX_ERR_LIMIT from here). */
static inline sdx_err drain_reader(const format *f, void *r, sdx_error *e, uint64_t cap,
                                   uint64_t *events) {
    sdx_event ev;
    uint64_t n = 0;
    while (f->next(r, &ev)) {
        if (++n > cap) {
            if (events) *events = n;
            if (e) e->code = SDX_ERR_LIMIT;
            return SDX_ERR_LIMIT;
        }
    }
    if (events) *events = n;
    return f->error(r, e);
}

#endif
