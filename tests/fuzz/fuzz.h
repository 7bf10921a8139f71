/*
 * Shared pieces of the fuzz targets in tests/fuzz (each target includes
 * this header once; everything is static).
 *
 *   fz_chunks      a stream source (sdx_read_fn) over bytes in memory that
 *                  hands out 1 to 7 bytes per read, the sizes drawn from a
 *                  seed the target takes from its input
 *   fz_reader      any format's pull reader, over memory or fz_chunks, seen
 *                  as an sdx_source (fz_open / fz_close)
 *   fz_parse       any format's tree parser
 *   fz_writer      any format's writer as an sdx_sink
 *   fz_ev_same     strict event equality (kind, tag, flags, depth, value)
 *   fz_check_reader  the checks every per-format target runs (below)
 *   fz_fail        print what disagreed, then abort() (libFuzzer keeps the
 *                  input; the smoke programs die with the message)
 *
 * Formats: FZ_JSON .. FZ_BINN, with BJData as a format of its own (the
 * UBJSON reader and writer with their BJDATA flags).
 */
#ifndef SDX_FUZZ_H
#define SDX_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdx/sdx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { FZ_JSON, FZ_MSGPACK, FZ_CBOR, FZ_BSON, FZ_UBJSON, FZ_BJDATA, FZ_BINN, FZ_NFORMATS };

static const char *const fz_names[FZ_NFORMATS] = {"json",   "msgpack", "cbor", "bson",
                                                  "ubjson", "bjdata",  "binn"};

/* ------------------------------------------------------------------------ */
/* Failure                                                                   */
/* ------------------------------------------------------------------------ */

/* The smoke programs' current input, printed by fz_fail (libFuzzer keeps
 * its own crash file). */
static const uint8_t *fz_cur;
static size_t fz_cur_n;

/* What the smoke runs checked (printed at their end): documents compared
 * after a write and read back, and writes refused cleanly. */
static unsigned long fz_compared, fz_refused;

/* Print the reason (and in a smoke program the input, in hex) and abort:
 * a fuzz finding. */
static inline void fz_fail(const char *what, const char *fmt_name) {
    fprintf(stderr, "fuzz: %s: %s\n", fmt_name, what);
    if (fz_cur) {
        fprintf(stderr, "  input (%zu bytes):", fz_cur_n);
        for (size_t i = 0; i < fz_cur_n; i++) fprintf(stderr, "%s%02x", i % 32 ? " " : "\n  ", fz_cur[i]);
        fprintf(stderr, "\n");
    }
    abort();
}

/* Run the target on a copy of one input in a heap block of its exact size
 * (as libFuzzer passes it, so that AddressSanitizer finds a read past its
 * end), remembered for fz_fail. */
static inline void fz_run(const uint8_t *p, size_t n) {
    uint8_t *c = malloc(n ? n : 1);
    if (!c) abort();
    if (n) memcpy(c, p, n);
    fz_cur = c;
    fz_cur_n = n;
    LLVMFuzzerTestOneInput(c, n);
    fz_cur = NULL;
    free(c);
}

/* ------------------------------------------------------------------------ */
/* A stream of 1 to 7 bytes per read                                         */
/* ------------------------------------------------------------------------ */

typedef struct fz_chunks {
    const uint8_t *p;
    size_t n;
    uint64_t seed; /* xorshift state: each read's size is 1 + seed % 7 */
} fz_chunks;

static inline size_t fz_chunks_read(void *ctx, void *buf, size_t cap) {
    fz_chunks *c = ctx;
    c->seed ^= c->seed << 13;
    c->seed ^= c->seed >> 7;
    c->seed ^= c->seed << 17;
    size_t k = 1 + (size_t)(c->seed % 7);
    if (k > c->n) k = c->n;
    if (k > cap) k = cap;
    memcpy(buf, c->p, k);
    c->p += k;
    c->n -= k;
    return k;
}

/* A stream over n bytes at p whose read sizes follow `seed` (any value). */
static inline fz_chunks fz_chunks_make(const uint8_t *p, size_t n, uint64_t seed) {
    fz_chunks c = {p, n, seed * 0x9e3779b97f4a7c15ull | 1};
    return c;
}

/* ------------------------------------------------------------------------ */
/* Readers and parsers of every format                                       */
/* ------------------------------------------------------------------------ */

/* A seed for the stream's read sizes: FNV-1a of the whole input. */
static inline uint64_t fz_seed(const uint8_t *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* Read options of every format in one place. `flags` are the format's own
 * read flags (for FZ_BJDATA the UBJSON ones; BJDATA is added). */
typedef struct fz_ropts {
    int fmt;
    uint32_t flags;
    sdx_json_read_opts json;
    sdx_msgpack_read_opts msgpack;
    sdx_cbor_read_opts cbor;
    sdx_bson_read_opts bson;
    sdx_ubjson_read_opts ubjson;
    sdx_binn_read_opts binn;
} fz_ropts;

/* Options for format `fmt` with `flags`; small limits so that hostile
 * nesting and UBJSON's empty typed containers stay cheap. */
static inline fz_ropts fz_ropts_make(int fmt, uint32_t flags) {
    fz_ropts o;
    memset(&o, 0, sizeof o);
    o.fmt = fmt;
    o.flags = flags;
    o.json.flags = flags;
    o.json.max_depth = 64;
    o.msgpack.flags = flags;
    o.msgpack.max_depth = 64;
    o.cbor.flags = flags;
    o.cbor.max_depth = 64;
    o.cbor.max_string = (size_t)1 << 20;
    o.bson.flags = flags;
    o.bson.max_depth = 64;
    o.bson.max_document = (size_t)1 << 20;
    o.ubjson.flags = flags | (fmt == FZ_BJDATA ? SDX_UBJSON_READ_BJDATA : 0);
    o.ubjson.max_depth = 64;
    o.ubjson.max_empty = 1000;
    o.binn.flags = flags;
    o.binn.max_depth = 64;
    return o;
}

/* Does the format read a sequence of values with these flags? */
static inline int fz_sequence(const fz_ropts *o) {
    switch (o->fmt) {
    case FZ_JSON: return (o->flags & SDX_JSON_READ_STOP_AFTER_VALUE) != 0;
    case FZ_MSGPACK: return (o->flags & SDX_MSGPACK_READ_STOP_AFTER_VALUE) != 0;
    case FZ_CBOR: return (o->flags & SDX_CBOR_READ_STOP_AFTER_VALUE) != 0;
    case FZ_BSON: return (o->flags & SDX_BSON_READ_SEQUENCE) != 0;
    case FZ_UBJSON:
    case FZ_BJDATA: return (o->flags & SDX_UBJSON_READ_STOP_AFTER_VALUE) != 0;
    default: return (o->flags & SDX_BINN_READ_STOP_AFTER_VALUE) != 0;
    }
}

/* A pull reader of any format. */
typedef struct fz_reader {
    int fmt;
    void *r;
    sdx_source src;
} fz_reader;

/* Open a reader over memory (c NULL) or over the stream c. Aborts when the
 * reader cannot be created (only an allocation failure may do that). */
static inline fz_reader fz_open(const fz_ropts *o, const uint8_t *p, size_t n, fz_chunks *c) {
    fz_reader r = {o->fmt, NULL, {NULL, NULL}};
    const char *s = (const char *)p;
    switch (o->fmt) {
    case FZ_JSON: {
        sdx_json_reader *x = c ? sdx_json_reader_new_stream(fz_chunks_read, c, 16, &o->json)
                               : sdx_json_reader_new(s, n, &o->json);
        if (x) r.src = sdx_json_reader_source(x);
        r.r = x;
        break;
    }
    case FZ_MSGPACK: {
        sdx_msgpack_reader *x = c ? sdx_msgpack_reader_new_stream(fz_chunks_read, c, 16, &o->msgpack)
                                  : sdx_msgpack_reader_new(s, n, &o->msgpack);
        if (x) r.src = sdx_msgpack_reader_source(x);
        r.r = x;
        break;
    }
    case FZ_CBOR: {
        sdx_cbor_reader *x = c ? sdx_cbor_reader_new_stream(fz_chunks_read, c, 16, &o->cbor)
                               : sdx_cbor_reader_new(s, n, &o->cbor);
        if (x) r.src = sdx_cbor_reader_source(x);
        r.r = x;
        break;
    }
    case FZ_BSON: {
        sdx_bson_reader *x = c ? sdx_bson_reader_new_stream(fz_chunks_read, c, &o->bson)
                               : sdx_bson_reader_new(s, n, &o->bson);
        if (x) r.src = sdx_bson_reader_source(x);
        r.r = x;
        break;
    }
    case FZ_UBJSON:
    case FZ_BJDATA: {
        sdx_ubjson_reader *x = c ? sdx_ubjson_reader_new_stream(fz_chunks_read, c, 16, &o->ubjson)
                                 : sdx_ubjson_reader_new(s, n, &o->ubjson);
        if (x) r.src = sdx_ubjson_reader_source(x);
        r.r = x;
        break;
    }
    default: {
        sdx_binn_reader *x = c ? sdx_binn_reader_new_stream(fz_chunks_read, c, 16, &o->binn)
                               : sdx_binn_reader_new(s, n, &o->binn);
        if (x) r.src = sdx_binn_reader_source(x);
        r.r = x;
        break;
    }
    }
    if (!r.r) fz_fail("a reader could not be created", fz_names[o->fmt]);
    return r;
}

static inline void fz_close(fz_reader *r) {
    switch (r->fmt) {
    case FZ_JSON: sdx_json_reader_free(r->r); break;
    case FZ_MSGPACK: sdx_msgpack_reader_free(r->r); break;
    case FZ_CBOR: sdx_cbor_reader_free(r->r); break;
    case FZ_BSON: sdx_bson_reader_free(r->r); break;
    case FZ_UBJSON:
    case FZ_BJDATA: sdx_ubjson_reader_free(r->r); break;
    default: sdx_binn_reader_free(r->r); break;
    }
    r->r = NULL;
}

/* The tree parser of o->fmt over n bytes at p; NULL with *err on failure. */
static inline sdx_doc *fz_parse(const fz_ropts *o, const uint8_t *p, size_t n, sdx_error *err) {
    const char *s = (const char *)p;
    switch (o->fmt) {
    case FZ_JSON: return sdx_json_parse(s, n, &o->json, err);
    case FZ_MSGPACK: return sdx_msgpack_parse(s, n, &o->msgpack, err);
    case FZ_CBOR: return sdx_cbor_parse(s, n, &o->cbor, err);
    case FZ_BSON: return sdx_bson_parse(s, n, &o->bson, err);
    case FZ_UBJSON:
    case FZ_BJDATA: return sdx_ubjson_parse(s, n, &o->ubjson, err);
    default: return sdx_binn_parse(s, n, &o->binn, err);
    }
}

/* ------------------------------------------------------------------------ */
/* Writers of every format                                                   */
/* ------------------------------------------------------------------------ */

typedef struct fz_writer {
    int fmt;
    union {
        sdx_json_writer json;
        sdx_msgpack_writer msgpack;
        sdx_cbor_writer cbor;
        sdx_bson_writer bson;
        sdx_ubjson_writer ubjson;
        sdx_binn_writer binn;
    } u;
    sdx_sink sink;
} fz_writer;

/* Start a writer of `fmt` with its own write flags into out (which the
 * caller initialized). Returns the init's error (SDX_OK normally). */
static inline sdx_err fz_writer_init(fz_writer *w, int fmt, uint32_t flags, sdx_buf *out) {
    sdx_err e;
    w->fmt = fmt;
    switch (fmt) {
    case FZ_JSON: {
        sdx_json_write_opts wo = {flags, 0, NULL};
        e = sdx_json_writer_init(&w->u.json, out, &wo);
        w->sink = sdx_json_writer_sink(&w->u.json);
        break;
    }
    case FZ_MSGPACK: {
        sdx_msgpack_write_opts wo = {flags, NULL};
        e = sdx_msgpack_writer_init(&w->u.msgpack, out, &wo);
        w->sink = sdx_msgpack_writer_sink(&w->u.msgpack);
        break;
    }
    case FZ_CBOR: {
        sdx_cbor_write_opts wo = {flags, NULL};
        e = sdx_cbor_writer_init(&w->u.cbor, out, &wo);
        w->sink = sdx_cbor_writer_sink(&w->u.cbor);
        break;
    }
    case FZ_BSON: {
        sdx_bson_write_opts wo = {flags, NULL};
        e = sdx_bson_writer_init(&w->u.bson, out, &wo);
        w->sink = sdx_bson_writer_sink(&w->u.bson);
        break;
    }
    case FZ_UBJSON:
    case FZ_BJDATA: {
        sdx_ubjson_write_opts wo = {flags | (fmt == FZ_BJDATA ? SDX_UBJSON_WRITE_BJDATA : 0), NULL};
        e = sdx_ubjson_writer_init(&w->u.ubjson, out, &wo);
        w->sink = sdx_ubjson_writer_sink(&w->u.ubjson);
        break;
    }
    default: {
        sdx_binn_write_opts wo = {flags, NULL};
        e = sdx_binn_writer_init(&w->u.binn, out, &wo);
        w->sink = sdx_binn_writer_sink(&w->u.binn);
        break;
    }
    }
    return e;
}

/* Write node n with the writer's own document walk
 * (sdx_<fmt>_writer_node). */
static inline sdx_err fz_writer_node(fz_writer *w, sdx_node n) {
    switch (w->fmt) {
    case FZ_JSON: return sdx_json_writer_node(&w->u.json, n);
    case FZ_MSGPACK: return sdx_msgpack_writer_node(&w->u.msgpack, n);
    case FZ_CBOR: return sdx_cbor_writer_node(&w->u.cbor, n);
    case FZ_BSON: return sdx_bson_writer_node(&w->u.bson, n);
    case FZ_UBJSON:
    case FZ_BJDATA: return sdx_ubjson_writer_node(&w->u.ubjson, n);
    default: return sdx_binn_writer_node(&w->u.binn, n);
    }
}

/* The write flags that go with read flags: no UTF-8 check when the reader
 * did not check. */
static inline uint32_t fz_write_flags_for(const fz_ropts *o) {
    switch (o->fmt) {
    case FZ_MSGPACK:
        return o->flags & SDX_MSGPACK_READ_NO_UTF8_CHECK ? SDX_MSGPACK_WRITE_NO_UTF8_CHECK : 0;
    case FZ_CBOR: return o->flags & SDX_CBOR_READ_NO_UTF8_CHECK ? SDX_CBOR_WRITE_NO_UTF8_CHECK : 0;
    case FZ_BSON: return o->flags & SDX_BSON_READ_NO_UTF8_CHECK ? SDX_BSON_WRITE_NO_UTF8_CHECK : 0;
    case FZ_UBJSON:
    case FZ_BJDATA:
        return o->flags & SDX_UBJSON_READ_NO_UTF8_CHECK ? SDX_UBJSON_WRITE_NO_UTF8_CHECK : 0;
    case FZ_BINN: return o->flags & SDX_BINN_READ_NO_UTF8_CHECK ? SDX_BINN_WRITE_NO_UTF8_CHECK : 0;
    default: return 0;
    }
}

/* ------------------------------------------------------------------------ */
/* Events                                                                    */
/* ------------------------------------------------------------------------ */

static inline uint64_t fz_dbits(double d) {
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

/* Strict equality of two events: every field a reader sets. */
static inline int fz_ev_same(const sdx_event *a, const sdx_event *b) {
    if (a->kind != b->kind || a->tag_kind != b->tag_kind || a->tag != b->tag ||
        a->flags != b->flags || a->depth != b->depth)
        return 0;
    switch (a->kind) {
    case SDX_BOOL: return a->v.b == b->v.b;
    case SDX_INT: return a->v.i == b->v.i;
    case SDX_UINT:
    case SDX_NINT: return a->v.u == b->v.u;
    case SDX_DOUBLE: return fz_dbits(a->v.d) == fz_dbits(b->v.d);
    case SDX_STR:
    case SDX_BIN:
    case SDX_KEY:
    case SDX_RAW:
        return a->v.str.len == b->v.str.len &&
               (a->v.str.len == 0 || memcmp(a->v.str.ptr, b->v.str.ptr, a->v.str.len) == 0);
    case SDX_ARRAY:
    case SDX_MAP: return a->v.count == b->v.count;
    default: return 1;
    }
}

/* Print one event on stderr (for a failure's message). */
static inline void fz_ev_print(const char *label, const sdx_event *e) {
    fprintf(stderr, "  %s: kind %u tag %u/%llu flags %u depth %u value %llx len %zu\n", label,
            e->kind, e->tag_kind, (unsigned long long)e->tag, e->flags, e->depth,
            (unsigned long long)e->v.u,
            (e->kind == SDX_STR || e->kind == SDX_BIN || e->kind == SDX_KEY || e->kind == SDX_RAW)
                ? e->v.str.len
                : 0);
}

/* Tracks where the first top-level value of an event stream ends. */
typedef struct fz_level {
    long open;   /* containers open */
    int done;    /* the first value is complete */
    uint64_t at; /* the source's offset after its last event */
} fz_level;

static inline void fz_level_step(fz_level *l, const sdx_event *e, sdx_source src) {
    if (l->done) return;
    if (e->kind == SDX_ARRAY || e->kind == SDX_MAP) l->open++;
    else if (e->kind == SDX_END) l->open--;
    else if (e->kind == SDX_TAG) return;
    if (l->open == 0) {
        l->done = 1;
        l->at = sdx_source_offset(src);
    }
}

/* ------------------------------------------------------------------------ */
/* An event recorder with normalization                                      */
/* ------------------------------------------------------------------------ */

/* What a recorder forgets, so that two event streams compare equal when
 * they differ only in what a format cannot carry (each use says which). */
enum {
    FZ_N_FLAGS = 1u << 0, /* event flags (float widths, indefinite strings);
                             every NaN becomes one NaN */
    FZ_N_TAGS = 1u << 1,  /* tags on events, and SDX_TAG events */
    FZ_N_INT = 1u << 2,   /* INT >= 0 and UINT with the same value are one */
    FZ_N_COUNT = 1u << 3, /* container counts (known or not) */
    FZ_N_BIN = 1u << 4    /* SDX_BIN is SDX_STR (formats whose strings are
                             bytes hold binary data as strings) */
};

/* A sink that appends each event, normalized, to a byte string. */
typedef struct fz_rec {
    uint8_t *p;
    size_t n, cap;
    uint32_t norm;
    int oom;
} fz_rec;

static inline void fz_rec_add(fz_rec *r, const void *p, size_t n) {
    if (r->oom) return;
    if (r->cap - r->n < n) {
        size_t cap = r->cap ? r->cap : 256;
        while (cap - r->n < n) cap *= 2;
        uint8_t *np = realloc(r->p, cap);
        if (!np) {
            r->oom = 1;
            return;
        }
        r->p = np;
        r->cap = cap;
    }
    memcpy(r->p + r->n, p, n);
    r->n += n;
}

static inline sdx_err fz_rec_put(void *ctx, const sdx_event *ev) {
    fz_rec *r = ctx;
    sdx_event e = *ev;
    if (r->norm & FZ_N_TAGS) {
        if (e.kind == SDX_TAG) return SDX_OK;
        e.tag_kind = SDX_TAG_NONE;
        e.tag = 0;
    }
    if (r->norm & FZ_N_FLAGS) {
        e.flags = 0;
        if (e.kind == SDX_DOUBLE && e.v.d != e.v.d) {
            uint64_t nan = 0x7ff8000000000000ull;
            memcpy(&e.v.d, &nan, 8);
        }
    }
    if ((r->norm & FZ_N_INT) && e.kind == SDX_INT && e.v.i >= 0) e.kind = SDX_UINT;
    if ((r->norm & FZ_N_COUNT) && (e.kind == SDX_ARRAY || e.kind == SDX_MAP))
        e.v.count = SDX_COUNT_UNKNOWN;
    if ((r->norm & FZ_N_BIN) && e.kind == SDX_BIN) e.kind = SDX_STR;
    uint8_t head[4] = {e.kind, e.tag_kind, e.flags, 0};
    fz_rec_add(r, head, 4);
    fz_rec_add(r, &e.depth, sizeof e.depth);
    fz_rec_add(r, &e.tag, sizeof e.tag);
    switch (e.kind) {
    case SDX_STR:
    case SDX_BIN:
    case SDX_KEY:
    case SDX_RAW:
        fz_rec_add(r, &e.v.str.len, sizeof e.v.str.len);
        if (e.v.str.len) fz_rec_add(r, e.v.str.ptr, e.v.str.len);
        break;
    case SDX_BOOL: {
        uint8_t b = e.v.b;
        fz_rec_add(r, &b, 1);
        break;
    }
    case SDX_NULL:
    case SDX_END:
    case SDX_TAG: break;
    default: fz_rec_add(r, &e.v.u, 8); break;
    }
    return SDX_OK;
}

static inline sdx_err fz_rec_finish(void *ctx) {
    (void)ctx;
    return SDX_OK;
}

static const sdx_sink_vt fz_rec_vt = {fz_rec_put, fz_rec_finish};

static inline sdx_sink fz_rec_sink(fz_rec *r) {
    sdx_sink s = {&fz_rec_vt, r};
    return s;
}

/* The events of a document's root, normalized by `norm`, into r (which
 * the caller frees: free(r->p)). */
static inline void fz_rec_doc(fz_rec *r, sdx_doc *d, uint32_t norm) {
    memset(r, 0, sizeof *r);
    r->norm = norm;
    if (sdx_node_emit(sdx_doc_root(d), fz_rec_sink(r)) != SDX_OK || r->oom)
        fz_fail("a document cannot be walked", "recorder");
}

static inline sdx_err fz_nonfinite_put(void *ctx, const sdx_event *ev) {
    if (ev->kind == SDX_DOUBLE && !(ev->v.d - ev->v.d == 0)) *(int *)ctx = 1;
    return SDX_OK;
}

/* Does the document hold a NaN or an infinity? */
static inline int fz_has_nonfinite(sdx_doc *d) {
    static const sdx_sink_vt vt = {fz_nonfinite_put, fz_rec_finish};
    int found = 0;
    sdx_sink s = {&vt, &found};
    sdx_node_emit(sdx_doc_root(d), s);
    return found;
}

/* Do two recordings hold the same events? */
static inline int fz_rec_same(const fz_rec *a, const fz_rec *b) {
    return a->n == b->n && (a->n == 0 || memcmp(a->p, b->p, a->n) == 0);
}

/* ------------------------------------------------------------------------ */
/* The per-format checks                                                     */
/* ------------------------------------------------------------------------ */

/* What a format's target tolerates (each documented where it is set). */
typedef struct fz_rules {
    /* The memory reader may reject a declared length or count against the
     * input left, at the header (SDX_ERR_TRUNCATED), where a stream reader
     * cannot know the input's end yet: then the stream reader must give the
     * same events as far as the memory reader went, and fail (any error, at
     * or after that offset). */
    int early_truncation;
    /* Either reader may stop before the other (withhold the events that
     * the other gives before failing) when both end with the same error
     * code and offset: a reader that checks ahead before delivering an
     * event (each use says where). */
    int withhold;
    /* The stream reader may fail with SDX_ERR_LIMIT where the memory reader
     * goes on: a limit that only streams have (BSON's max_document). */
    int stream_limit;
    /* What the round trip through the format's own writer may lose (FZ_N_
     * bits): the documents' events are compared after this normalization. */
    uint32_t roundtrip_norm;
} fz_rules;

/* The inline path of a format's pull reader (the sdx_<fmt>_reader_next
 * macro, compiled into the caller) against the exported function, both over
 * the n bytes at p in memory: the same events with the same offset after
 * each, then the same error and offset. libFuzzer's input ends where its
 * heap block ends, so a read past the input is AddressSanitizer's to find
 * (the inline paths read whole words ahead). T is the reader's type, which
 * names its functions. */
#define FZ_INLINE_PATHS(T, opts)                                                                  \
    do {                                                                                          \
        T *x = T##_new((const char *)p, n, (opts)), *y = T##_new((const char *)p, n, (opts));     \
        if (!x || !y) fz_fail("a reader could not be created", name);                             \
        sdx_event e1, e2;                                                                         \
        for (;;) {                                                                                \
            bool m1 = T##_next(x, &e1), m2 = (T##_next)(y, &e2);                                  \
            if (m1 != m2 || (m1 && (!fz_ev_same(&e1, &e2) || T##_offset(x) != T##_offset(y)))) { \
                if (m1) fz_ev_print("inline", &e1);                                               \
                if (m2) fz_ev_print("exported", &e2);                                             \
                fz_fail("the inline path and the exported function give different events", name); \
            }                                                                                     \
            if (!m1) break;                                                                       \
        }                                                                                         \
        sdx_error x1, x2;                                                                         \
        memset(&x1, 0, sizeof x1);                                                                \
        memset(&x2, 0, sizeof x2);                                                                \
        if (T##_error(x, &x1) != T##_error(y, &x2) || x1.offset != x2.offset) {                   \
            fprintf(stderr, "  inline %s at %zu, exported %s at %zu\n", sdx_strerror(x1.code),    \
                    x1.offset, sdx_strerror(x2.code), x2.offset);                                 \
            fz_fail("the inline path and the exported function end differently", name);           \
        }                                                                                         \
        T##_free(x);                                                                              \
        T##_free(y);                                                                              \
    } while (0)

static inline void fz_check_inline(const fz_ropts *o, const uint8_t *p, size_t n) {
    const char *name = fz_names[o->fmt];
    switch (o->fmt) {
    case FZ_JSON: FZ_INLINE_PATHS(sdx_json_reader, &o->json); break;
    case FZ_MSGPACK: FZ_INLINE_PATHS(sdx_msgpack_reader, &o->msgpack); break;
    case FZ_CBOR: FZ_INLINE_PATHS(sdx_cbor_reader, &o->cbor); break;
    case FZ_BSON: FZ_INLINE_PATHS(sdx_bson_reader, &o->bson); break;
    case FZ_UBJSON:
    case FZ_BJDATA: FZ_INLINE_PATHS(sdx_ubjson_reader, &o->ubjson); break;
    default: break; /* Binn's reader has no inline path */
    }
}

/* Run every check of a per-format target on n bytes at p with read
 * options o; `seed` picks the stream's read sizes. Aborts on a
 * disagreement:
 *   0. the inline path and the exported function (fz_check_inline);
 *   1. the memory reader and the stream reader (1..7 bytes per read) give
 *      the same events, then the same error code and offset (or the
 *      early_truncation difference above);
 *   2. the tree parser accepts exactly when the memory reader does, with
 *      the same error code and offset; with a sequence flag the parser
 *      reads the first value only: when it succeeds the reader read that
 *      value whole and ended it where the parser did; when it fails the
 *      reader failed with the same code and offset;
 *   3. an accepted document written with the format's own writer parses
 *      again to a document with the same events (after
 *      rules->roundtrip_norm). A writer error
 *      is a failure, except SDX_ERR_RANGE for NaN and the infinities in
 *      JSON (NaN/Infinity with SDX_JSON_READ_NAN_INF, and numbers beyond
 *      the double range; the JSON writer can only write them as null).
 * Returns the parsed document (the caller frees it) or NULL. */
static inline sdx_doc *fz_check_reader(const fz_ropts *o, const uint8_t *p, size_t n, uint64_t seed,
                                const fz_rules *rules) {
    const char *name = fz_names[o->fmt];
    fz_check_inline(o, p, n);
    fz_chunks ch = fz_chunks_make(p, n, seed);
    fz_reader a = fz_open(o, p, n, NULL);
    fz_reader b = fz_open(o, p, n, &ch);
    sdx_event ea, eb;
    fz_level lv = {0, 0, 0};
    int more_a, more_b;
    for (;;) {
        more_a = sdx_source_next(a.src, &ea);
        if (more_a) fz_level_step(&lv, &ea, a.src);
        more_b = sdx_source_next(b.src, &eb);
        if (!more_a || !more_b) break;
        if (!fz_ev_same(&ea, &eb)) {
            fz_ev_print("memory", &ea);
            fz_ev_print("stream", &eb);
            fz_fail("memory and stream readers give different events", name);
        }
    }
    sdx_error xa, xb;
    memset(&xa, 0, sizeof xa);
    memset(&xb, 0, sizeof xb);
    sdx_err ca = more_a ? SDX_OK : sdx_source_error(a.src, &xa);
    sdx_err cb = more_b ? SDX_OK : sdx_source_error(b.src, &xb);
    if (more_a) {
        /* the stream stopped first: only at a stream-only limit, or
         * withholding events before the memory reader's error */
        while (sdx_source_next(a.src, &ea)) fz_level_step(&lv, &ea, a.src);
        ca = sdx_source_error(a.src, &xa);
        if (!(rules->stream_limit && cb == SDX_ERR_LIMIT) &&
            !(rules->withhold && cb != SDX_OK && cb == ca && xa.offset == xb.offset)) {
            fz_ev_print("memory", &ea);
            fprintf(stderr, "  stream: %s at %zu\n", sdx_strerror(cb), xb.offset);
            fz_fail("the stream reader stopped before the memory reader", name);
        }
    } else if (more_b) {
        /* the memory reader stopped first: only at its early truncation,
         * or withholding events before the stream's error */
        sdx_event first = eb;
        while (sdx_source_next(b.src, &eb)) {
        }
        cb = sdx_source_error(b.src, &xb);
        if (!(rules->early_truncation && ca == SDX_ERR_TRUNCATED) &&
            !(rules->withhold && ca != SDX_OK && cb == ca && xa.offset == xb.offset) &&
            !(rules->stream_limit && ca == SDX_ERR_TRUNCATED && cb == SDX_ERR_LIMIT &&
              xb.offset >= xa.offset)) {
            fz_ev_print("stream", &first);
            fprintf(stderr, "  memory: %s at %zu, stream: %s at %zu\n", sdx_strerror(ca),
                    xa.offset, sdx_strerror(cb), xb.offset);
            fz_fail("the memory reader stopped before the stream reader", name);
        }
        if (cb == SDX_OK || xb.offset < xa.offset)
            fz_fail("the stream accepted what memory rejected early", name);
    } else if (ca != cb || xa.offset != xb.offset || xa.line != xb.line || xa.column != xb.column) {
        if (!(rules->early_truncation && ca == SDX_ERR_TRUNCATED && cb != SDX_OK &&
              xb.offset >= xa.offset) &&
            !(rules->stream_limit && cb == SDX_ERR_LIMIT)) {
            fprintf(stderr, "  memory %s at %zu, stream %s at %zu\n", sdx_strerror(ca), xa.offset,
                    sdx_strerror(cb), xb.offset);
            fz_fail("memory and stream readers end differently", name);
        }
    }
    fz_close(&a);
    fz_close(&b);

    /* 2. the tree parser */
    sdx_error xp;
    memset(&xp, 0, sizeof xp);
    sdx_doc *d = fz_parse(o, p, n, &xp);
    if (!fz_sequence(o)) {
        if ((d == NULL) != (ca != SDX_OK) ||
            (d == NULL && (xp.code != ca || xp.offset != xa.offset))) {
            fprintf(stderr, "  reader %s at %zu, parser %s at %zu\n", sdx_strerror(ca), xa.offset,
                    d ? "ok" : sdx_strerror(xp.code), d ? (size_t)0 : xp.offset);
            fz_fail("the parser and the reader disagree", name);
        }
    } else if (d) {
        /* the parser read the first value: the reader must have read it
         * whole, ending where the parser ended */
        if (!lv.done || sdx_doc_consumed(d) != lv.at) {
            fprintf(stderr, "  first value %s at %llu, parser consumed %zu\n",
                    lv.done ? "ends" : "not complete", (unsigned long long)lv.at,
                    sdx_doc_consumed(d));
            fz_fail("the parser and the reader disagree on the first value", name);
        }
    } else if (!lv.done && ca == SDX_OK) {
        /* an empty sequence: the parser has no value to read */
        if (xp.code != SDX_ERR_TRUNCATED) {
            fprintf(stderr, "  parser %s at %zu\n", sdx_strerror(xp.code), xp.offset);
            fz_fail("the parser fails an empty sequence with other than truncation", name);
        }
    } else if (ca == SDX_OK || ((ca != xp.code || xa.offset != xp.offset) &&
                                ca != SDX_ERR_UTF8 && xp.code != SDX_ERR_UTF8)) {
        /* the parser failed on the first value: so did the reader (which
         * may have delivered the value's event before finding, as the
         * parser did, that the byte after it cannot follow it), with the
         * same error, except that the reader of a sequence checks UTF-8
         * ahead of the syntax (the JSON reader reports invalid UTF-8
         * wherever it is first) while the parser looks at the first value
         * only */
        fprintf(stderr, "  reader %s at %zu, parser %s at %zu\n", sdx_strerror(ca), xa.offset,
                sdx_strerror(xp.code), xp.offset);
        fz_fail("the parser and the reader disagree on a failing first value", name);
    }
    if (!d) return NULL;

    /* 3. the round trip through the own writer */
    sdx_buf out;
    sdx_buf_init(&out, NULL);
    fz_writer w;
    if (fz_writer_init(&w, o->fmt, fz_write_flags_for(o), &out) != SDX_OK)
        fz_fail("writer init failed", name);
    sdx_err we = sdx_node_emit(sdx_doc_root(d), w.sink);
    sdx_err wf = sdx_sink_finish(w.sink);
    if (we != SDX_OK || wf != SDX_OK) {
        if (!(o->fmt == FZ_JSON && we == SDX_ERR_RANGE && fz_has_nonfinite(d))) {
            fprintf(stderr, "  emit %s, finish %s\n", sdx_strerror(we), sdx_strerror(wf));
            fz_fail("a parsed document cannot be written back", name);
        }
    } else {
        fz_ropts o2 = *o;
        sdx_error x2;
        sdx_doc *d2 = fz_parse(&o2, (const uint8_t *)sdx_buf_data(&out), sdx_buf_len(&out), &x2);
        if (!d2) {
            fprintf(stderr, "  %s at %zu\n", sdx_strerror(x2.code), x2.offset);
            fz_fail("what the writer wrote does not parse", name);
        }
        fz_rec r1, r2;
        fz_rec_doc(&r1, d, rules->roundtrip_norm);
        fz_rec_doc(&r2, d2, rules->roundtrip_norm);
        if (!fz_rec_same(&r1, &r2))
            fz_fail("the round trip through the writer changed the document", name);
        fz_compared++;
        free(r1.p);
        free(r2.p);
        sdx_doc_free(d2);
    }
    sdx_buf_destroy(&out);
    return d;
}

/* ------------------------------------------------------------------------ */
/* Smoke runs                                                                */
/* ------------------------------------------------------------------------ */

static uint64_t fz_rng_state = 0x9e3779b97f4a7c15ull;
static inline uint64_t fz_rand(void) {
    fz_rng_state ^= fz_rng_state << 13;
    fz_rng_state ^= fz_rng_state >> 7;
    fz_rng_state ^= fz_rng_state << 17;
    return fz_rng_state;
}

/* Fill buf[0..n) with bytes of which two in three come from `alphabet`
 * (a format's markers and heads), the rest random; buf[0] (the flags
 * byte) is random. */
static inline void fz_gen(uint8_t *buf, size_t n, const uint8_t *alphabet, size_t alen) {
    for (size_t k = 0; k < n; k++) {
        uint64_t x = fz_rand();
        buf[k] = (k && x % 3 && alen) ? alphabet[(x >> 8) % alen] : (uint8_t)(x >> 16);
    }
}

/* Mutate a copy of a seed: up to 4 random byte flips, insertions or
 * deletions. Returns the new length (at most cap). */
static inline size_t fz_mutate(uint8_t *buf, size_t n, size_t cap) {
    int k = 1 + (int)(fz_rand() % 4);
    while (k--) {
        uint64_t x = fz_rand();
        size_t at = n ? (size_t)(x >> 8) % n : 0;
        switch (x % 3) {
        case 0:
            if (n) buf[at] = (uint8_t)(x >> 32);
            break;
        case 1:
            if (n < cap) {
                memmove(buf + at + 1, buf + at, n - at);
                buf[at] = (uint8_t)(x >> 40);
                n++;
            }
            break;
        default:
            if (n > 1) {
                memmove(buf + at, buf + at + 1, n - at - 1);
                n--;
            }
            break;
        }
    }
    return n;
}

/* Read a whole file into a malloc'ed buffer (NULL if it cannot). */
static inline uint8_t *fz_slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, len = 0;
    uint8_t *b = malloc(cap);
    size_t k;
    while (b && (k = fread(b + len, 1, cap - len, f)) > 0) {
        len += k;
        if (len == cap) {
            uint8_t *nb = realloc(b, cap * 2);
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap *= 2;
        }
    }
    fclose(f);
    *n = len;
    return b;
}

/* The smoke program's main: each built-in seed, each file named on the
 * command line (a seed corpus's files), then `count` generated inputs:
 * mutated seeds and fresh inputs from the alphabet. */
typedef struct fz_seedlit {
    const char *p;
    size_t n;
} fz_seedlit;
#define FZ_SEED(lit) {lit, sizeof(lit) - 1}

static inline int fz_smoke_main(const char *name, int argc, char **argv, const fz_seedlit *seeds,
                         size_t nseeds, const uint8_t *alphabet, size_t alen, long count) {
    static uint8_t buf[1024];
    size_t files = 0;
    for (size_t i = 0; i < nseeds; i++) fz_run((const uint8_t *)seeds[i].p, seeds[i].n);
    for (int i = 1; i < argc; i++) {
        size_t n;
        uint8_t *b = fz_slurp(argv[i], &n);
        if (!b) {
            fprintf(stderr, "%s: cannot read %s\n", name, argv[i]);
            return 1;
        }
        fz_run(b, n);
        free(b);
        files++;
    }
    for (long i = 0; i < count; i++) {
        size_t n;
        if (nseeds && i % 2) {
            size_t s = (size_t)(fz_rand() % nseeds);
            n = seeds[s].n < sizeof buf ? seeds[s].n : sizeof buf;
            memcpy(buf, seeds[s].p, n);
            n = fz_mutate(buf, n, sizeof buf);
        } else {
            n = 1 + (size_t)(fz_rand() % 96);
            fz_gen(buf, n, alphabet, alen);
        }
        fz_run(buf, n);
    }
    printf("%s: %zu seeds, %zu files and %ld generated inputs, no disagreement "
           "(%lu documents compared after a write, %lu writes refused cleanly)\n",
           name, nseeds, files, count, fz_compared, fz_refused);
    return 0;
}

#endif /* SDX_FUZZ_H */
