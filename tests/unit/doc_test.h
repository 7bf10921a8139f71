/*
 * Test helpers for the document tests (test_doc.c, test_mdoc.c): a sink that
 * records events (copying their strings), event constructors, comparison of
 * event sequences, a generator of random valid event streams, and output of
 * a node as JSON text.
 */
#ifndef SDX_DOC_TEST_H
#define SDX_DOC_TEST_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_test.h"
#include "sdx/sdx.h"
#include "test.h"

/* ------------------------------------------------------------------------ */
/* Event constructors                                                        */
/* ------------------------------------------------------------------------ */

static inline sdx_event ev_kind(sdx_kind k) {
    sdx_event e;
    memset(&e, 0, sizeof e);
    e.kind = (uint8_t)k;
    return e;
}
static inline sdx_event ev_null(void) { return ev_kind(SDX_NULL); }
static inline sdx_event ev_bool(bool b) {
    sdx_event e = ev_kind(SDX_BOOL);
    e.v.b = b;
    return e;
}
static inline sdx_event ev_int(int64_t i) {
    sdx_event e = ev_kind(SDX_INT);
    e.v.i = i;
    return e;
}
static inline sdx_event ev_uint(uint64_t u) {
    sdx_event e = ev_kind(SDX_UINT);
    e.v.u = u;
    return e;
}
static inline sdx_event ev_double(double d) {
    sdx_event e = ev_kind(SDX_DOUBLE);
    e.v.d = d;
    return e;
}
static inline sdx_event ev_bytes(sdx_kind k, const char *s, size_t len) {
    sdx_event e = ev_kind(k);
    e.v.str.ptr = s;
    e.v.str.len = len;
    return e;
}
static inline sdx_event ev_str(const char *s) { return ev_bytes(SDX_STR, s, strlen(s)); }
static inline sdx_event ev_key(const char *s) { return ev_bytes(SDX_KEY, s, strlen(s)); }
static inline sdx_event ev_bin(const char *s, size_t len) { return ev_bytes(SDX_BIN, s, len); }
static inline sdx_event ev_raw(const char *s) { return ev_bytes(SDX_RAW, s, strlen(s)); }
static inline sdx_event ev_array(uint64_t n) {
    sdx_event e = ev_kind(SDX_ARRAY);
    e.v.count = n;
    return e;
}
static inline sdx_event ev_map(uint64_t n) {
    sdx_event e = ev_kind(SDX_MAP);
    e.v.count = n;
    return e;
}
static inline sdx_event ev_end(void) { return ev_kind(SDX_END); }
static inline sdx_event ev_tagged(sdx_event e, sdx_tag_kind kind, uint64_t tag) {
    e.tag_kind = (uint8_t)kind;
    e.tag = tag;
    return e;
}

/* Set the depth of each event of a sequence as a reader would. */
static inline void ev_set_depths(sdx_event *evs, size_t n) {
    uint32_t depth = 0;
    for (size_t i = 0; i < n; i++) {
        if (evs[i].kind == SDX_END) depth--;
        evs[i].depth = depth;
        if (evs[i].kind == SDX_ARRAY || evs[i].kind == SDX_MAP) depth++;
    }
}

static inline bool ev_has_bytes(const sdx_event *e) {
    return e->kind == SDX_STR || e->kind == SDX_KEY || e->kind == SDX_BIN || e->kind == SDX_RAW;
}

/* Two events are the same: kind, tag, depth and value (doubles by bits). */
static inline bool ev_same(const sdx_event *a, const sdx_event *b) {
    if (a->kind != b->kind || a->tag_kind != b->tag_kind || a->tag != b->tag || a->depth != b->depth)
        return false;
    switch (a->kind) {
    case SDX_NULL:
    case SDX_END: return true;
    case SDX_BOOL: return a->v.b == b->v.b;
    case SDX_ARRAY:
    case SDX_MAP: return a->v.count == b->v.count;
    default:
        if (ev_has_bytes(a))
            return a->v.str.len == b->v.str.len &&
                   (a->v.str.len == 0 || memcmp(a->v.str.ptr, b->v.str.ptr, a->v.str.len) == 0);
        return a->v.u == b->v.u; /* INT, UINT, DOUBLE */
    }
}

/* ------------------------------------------------------------------------ */
/* A recording sink                                                          */
/* ------------------------------------------------------------------------ */

typedef struct rec {
    sdx_event *evs;
    size_t n, cap;
    long fail_at;  /* the put (1-based) that fails with fail_err; 0 = never */
    sdx_err fail_err;
    long puts;
    int finished;
} rec;

static inline void rec_init(rec *r) { memset(r, 0, sizeof *r); }

static inline void rec_clear(rec *r) {
    for (size_t i = 0; i < r->n; i++)
        if (ev_has_bytes(&r->evs[i])) free((void *)r->evs[i].v.str.ptr);
    r->n = 0;
    r->puts = 0;
    r->finished = 0;
}

static inline void rec_free(rec *r) {
    rec_clear(r);
    free(r->evs);
    r->evs = NULL;
    r->cap = 0;
}

/* Record a copy of *ev (its bytes copied). */
static inline void rec_add(rec *r, const sdx_event *ev) {
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 64;
        r->evs = realloc(r->evs, r->cap * sizeof *r->evs);
        if (!r->evs) abort();
    }
    sdx_event e = *ev;
    if (ev_has_bytes(ev)) {
        char *p = malloc(ev->v.str.len + 1);
        if (!p) abort();
        if (ev->v.str.len) memcpy(p, ev->v.str.ptr, ev->v.str.len);
        e.v.str.ptr = p;
    }
    r->evs[r->n++] = e;
}

static inline sdx_err rec_put(void *ctx, const sdx_event *ev) {
    rec *r = ctx;
    if (++r->puts == r->fail_at) return r->fail_err;
    rec_add(r, ev);
    return SDX_OK;
}

static inline sdx_err rec_finish(void *ctx) {
    ((rec *)ctx)->finished++;
    return SDX_OK;
}

static const sdx_sink_vt rec_vt = {rec_put, rec_finish};

static inline sdx_sink rec_sink(rec *r) {
    sdx_sink s = {&rec_vt, r};
    return s;
}

/* The recorded events equal evs[0..n); on a difference print where. */
static inline bool rec_equals(const rec *r, const sdx_event *evs, size_t n) {
    size_t m = r->n < n ? r->n : n;
    for (size_t i = 0; i < m; i++) {
        if (!ev_same(&r->evs[i], &evs[i])) {
            fprintf(stderr, "  event %zu differs: kind %d/%d depth %u/%u tag %d:%llu/%d:%llu\n", i,
                    r->evs[i].kind, evs[i].kind, r->evs[i].depth, evs[i].depth,
                    r->evs[i].tag_kind, (unsigned long long)r->evs[i].tag, evs[i].tag_kind,
                    (unsigned long long)evs[i].tag);
            return false;
        }
    }
    if (r->n != n) {
        fprintf(stderr, "  %zu events recorded, %zu expected\n", r->n, n);
        return false;
    }
    return true;
}

/* Send evs[0..n) to a sink; returns the first error. */
static inline sdx_err ev_send(sdx_sink sink, const sdx_event *evs, size_t n) {
    for (size_t i = 0; i < n; i++) {
        sdx_err rc = sdx_sink_put(sink, &evs[i]);
        if (rc) return rc;
    }
    return SDX_OK;
}

/* Build a document from evs[0..n) with opts; NULL and *err on failure. */
static inline sdx_doc *build_events(const sdx_event *evs, size_t n, const sdx_doc_build_opts *opts,
                                    sdx_err *err) {
    sdx_doc_builder b;
    sdx_doc_builder_init(&b, opts);
    for (size_t i = 0; i < n; i++) sdx_doc_builder_put(&b, &evs[i]);
    return sdx_doc_builder_finish(&b, err);
}

/* Every allocation failure of a walk: emit(value, sink) with `ca` (the
 * allocator of the value's document) failing at each of the allocations a
 * successful run makes returns SDX_ERR_NOMEM and leaks nothing. Returns the
 * number of allocations of a successful run. */
static inline long check_emit_failures(counting_alloc *ca, sdx_err (*emit)(const void *v, sdx_sink sink),
                                       const void *v) {
    rec r;
    rec_init(&r);
    long live = ca->live;
    ca->calls = 0;
    ca->fail_at = 0;
    CHECK_EQ_INT(emit(v, rec_sink(&r)), SDX_OK);
    long allocs = ca->calls;
    for (long at = 1; at <= allocs; at++) {
        rec_clear(&r);
        ca->calls = 0;
        ca->fail_at = at;
        CHECK_EQ_INT(emit(v, rec_sink(&r)), SDX_ERR_NOMEM);
        CHECK_EQ_INT(ca->live, live);
    }
    ca->fail_at = 0;
    rec_free(&r);
    return allocs;
}

/* ------------------------------------------------------------------------ */
/* JSON text of a node                                                       */
/* ------------------------------------------------------------------------ */

/* The minified JSON of n (malloc'd, NUL-terminated, *len its length), or
 * NULL with *rc the error. */
static inline char *node_json(sdx_node n, uint32_t flags, size_t *len, sdx_err *rc) {
    sdx_buf buf;
    sdx_buf_init(&buf, NULL);
    sdx_json_writer w;
    sdx_json_write_opts o = {flags, 0, NULL};
    sdx_json_writer_init(&w, &buf, &o);
    sdx_err e = sdx_node_emit(n, sdx_json_writer_sink(&w));
    sdx_err f = sdx_json_writer_finish(&w);
    *rc = e ? e : f;
    *len = 0;
    char *out = NULL;
    if (!*rc) {
        *len = sdx_buf_len(&buf);
        out = malloc(*len + 1);
        if (!out) abort();
        memcpy(out, sdx_buf_data(&buf), *len);
        out[*len] = 0;
    }
    sdx_buf_destroy(&buf);
    return out;
}

/* ------------------------------------------------------------------------ */
/* Random event streams                                                      */
/* ------------------------------------------------------------------------ */

/* The generator's state. */
typedef struct gen {
    uint64_t state;
    int max_depth;
    long budget; /* values left to generate */
    rec out;     /* the generated events (depths set, counts declared) */
} gen;

static inline double gen_double(uint64_t *st) {
    static const uint64_t special[] = {
        0x0000000000000000ull, 0x8000000000000000ull, 0x7ff0000000000000ull,
        0xfff0000000000000ull, 0x7ff8000000000000ull, 0x7ff8000000000001ull,
        0xfff0000000000123ull, 0x0000000000000001ull, 0x3ff0000000000000ull};
    uint64_t r = test_rand(st), bits;
    if (r % 4 == 0) bits = special[(r >> 8) % (sizeof special / sizeof special[0])];
    else bits = test_rand(st);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static inline void gen_bytes(gen *g, sdx_kind kind, int depth) {
    char buf[40];
    uint64_t r = test_rand(&g->state);
    size_t len = (size_t)(r % 5 == 0 ? 0 : r % 37);
    for (size_t i = 0; i < len; i++) buf[i] = (char)(kind == SDX_BIN ? test_rand(&g->state) : 'a' + test_rand(&g->state) % 6);
    sdx_event e = ev_bytes(kind, buf, len);
    e.depth = (uint32_t)depth;
    rec_add(&g->out, &e);
}

/* One random value at `depth` (key: in key position of a map). */
static inline void gen_value(gen *g, int depth, bool key) {
    uint64_t r = test_rand(&g->state);
    sdx_event e = ev_null();
    int kind = (int)(r % 12);
    if (g->budget-- <= 0 || depth >= g->max_depth) kind = (int)(r % 8);
    if (key && (kind == 5 || (kind < 8 && (r >> 8) % 3))) kind = 99; /* mostly string keys */
    uint8_t tk = 0;
    uint64_t tag = 0;
    if ((r >> 16) % 6 == 0) {
        tk = (uint8_t)(1 + (r >> 20) % 3);
        tag = test_rand(&g->state) >> ((r >> 24) % 64);
    }
    switch (kind) {
    case 0: break;
    case 1: e = ev_bool((r >> 32) & 1); break;
    case 2: e = ev_int((int64_t)test_rand(&g->state) >> ((r >> 32) % 64)); break;
    case 3: e = ev_uint((test_rand(&g->state) >> 1) | 0x8000000000000000ull); break;
    case 4: e = ev_double(gen_double(&g->state)); break;
    case 5:
    case 6:
    case 7:
        gen_bytes(g, kind == 5 ? SDX_STR : kind == 6 ? SDX_BIN : SDX_RAW, depth);
        g->out.evs[g->out.n - 1].tag_kind = tk;
        g->out.evs[g->out.n - 1].tag = tag;
        return;
    case 99:
        gen_bytes(g, SDX_KEY, depth);
        g->out.evs[g->out.n - 1].tag_kind = tk;
        g->out.evs[g->out.n - 1].tag = tag;
        return;
    default: { /* containers */
        bool map = kind >= 10;
        uint64_t n = test_rand(&g->state) % (r % 7 == 0 ? 40 : 5);
        e = map ? ev_map(n) : ev_array(n);
        e.depth = (uint32_t)depth;
        e.tag_kind = tk;
        e.tag = tag;
        rec_add(&g->out, &e);
        for (uint64_t i = 0; i < n; i++) {
            if (map) gen_value(g, depth + 1, true);
            gen_value(g, depth + 1, false);
        }
        e = ev_end();
        e.depth = (uint32_t)depth;
        rec_add(&g->out, &e);
        return;
    }
    }
    e.depth = (uint32_t)depth;
    e.tag_kind = tk;
    e.tag = tag;
    rec_add(&g->out, &e);
}

/* A random document's events in g->out (depth bounded, so the generator's
 * recursion is bounded too). */
static inline void gen_doc(gen *g, uint64_t seed, int max_depth, long budget) {
    rec_clear(&g->out);
    g->state = seed;
    g->max_depth = max_depth;
    g->budget = budget;
    gen_value(g, 0, false);
}

/* A copy of the events with each container's count replaced by
 * SDX_COUNT_UNKNOWN at random (malloc'd; the strings are shared). */
static inline sdx_event *gen_unknown_counts(const rec *r, uint64_t seed) {
    sdx_event *evs = malloc((r->n ? r->n : 1) * sizeof *evs);
    if (!evs) abort();
    for (size_t i = 0; i < r->n; i++) {
        evs[i] = r->evs[i];
        if ((evs[i].kind == SDX_ARRAY || evs[i].kind == SDX_MAP) && test_rand(&seed) % 2)
            evs[i].v.count = SDX_COUNT_UNKNOWN;
    }
    return evs;
}

#endif /* SDX_DOC_TEST_H */
