/*
 * harden_depth: 10^6 levels of nesting in every format (issue 16: "Deep
 * nesting (10^6 levels) in every format: a clean SDX_ERR_DEPTH, no
 * recursion"; the class of stack exhaustion by nesting, e.g. nlohmann's
 * and many parsers' recursive descent).
 *
 * For JSON, MessagePack, CBOR (definite and indefinite), BSON, UBJSON,
 * BJData and Binn, an input of 10^6 nested arrays and one of 10^6 nested
 * maps (single key "a") is built in memory. Then:
 *  - default options: the memory reader, the stream reader and the tree
 *    parser each fail with SDX_ERR_DEPTH at the offset of the first opener
 *    beyond the limit, quickly (no work proportional to the depth);
 *  - max_depth raised to 2 * 10^6 (the option is a uint32_t; there is no
 *    lower hard cap): the readers and the parser accept it, and the
 *    readers skip it in one call after its first event; the document
 *    is copied and compared, made a mutable document and back, written to
 *    every format, read back, freed; the reader's events are transcoded
 *    into every writer and mapped to JSON (sdx_map_to_json), and JSON's
 *    through sdx_map_from_json into CBOR.
 * Everything after the input is built runs on a thread whose stack is
 * 256 KiB, so any recursion proportional to the depth crashes the test.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "harden.h"
#include "test.h"

#define LEVELS 1000000u /* the depth of the inputs; see levels */
#define DEFAULT_LIMIT 1024u
#define RAISED_LIMIT (2 * LEVELS + 16)
#define SMALL_STACK ((size_t)256 * 1024)

/* LEVELS, times test_scale() when that is below 1 (the sanitizer and
 * emulated builds), but never below 10^5: even that is
 * far more than any recursion proportional to the depth survives on
 * SMALL_STACK. */
static uint32_t levels = LEVELS;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------------------------ */
/* Building the inputs                                                       */
/* ------------------------------------------------------------------------ */

typedef struct input {
    unsigned char *p;
    size_t n;
    size_t hdr; /* bytes of one level's opener: opener k is at k * hdr */
} input;

static void put_le32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++, v >>= 8) p[i] = (unsigned char)v;
}
static void put_be32(unsigned char *p, uint32_t v) {
    for (int i = 3; i >= 0; i--, v >>= 8) p[i] = (unsigned char)v;
}

/* Repeat `open` n times, then `mid`, then `close` n times. */
static input repeat(const char *open, size_t no, const char *mid, size_t nm, const char *close,
                    size_t nc, size_t n) {
    input in;
    in.n = n * (no + nc) + nm;
    in.p = malloc(in.n);
    in.hdr = no;
    unsigned char *q = in.p;
    for (size_t i = 0; i < n; i++, q += no) memcpy(q, open, no);
    memcpy(q, mid, nm);
    q += nm;
    for (size_t i = 0; i < n; i++, q += nc) memcpy(q, close, nc);
    return in;
}

/* BSON: a root document holding `n` levels of documents (maps) or arrays,
 * each the only element (key "a", or "0" in an array), the innermost
 * empty. Level i (root 0) starts at 7 * i: length, type, key, NUL. */
static input bson_nested(size_t n, bool arrays) {
    input in;
    in.n = 7 * n + 5 + n;
    in.p = malloc(in.n);
    in.hdr = 7;
    for (size_t i = 0; i < n; i++) {
        unsigned char *q = in.p + 7 * i;
        put_le32(q, (uint32_t)(8 * (n - i) + 5));
        q[4] = (arrays && i > 0) ? 0x04 : 0x03;
        q[5] = (arrays && i > 0) ? '0' : 'a';
        q[6] = 0;
    }
    /* the root's element is a document (a BSON root cannot be an array)
     * and its children arrays, when `arrays` */
    unsigned char *q = in.p + 7 * n;
    put_le32(q, 5);
    q[4] = 0;
    memset(q + 5, 0, n);
    return in;
}

/* Binn: lists (or objects with key "a") of one item each, every size in
 * the 4-byte form (top bit set), the innermost empty. */
static input binn_nested(size_t n, bool maps) {
    const size_t h = maps ? 8 : 6;
    input in;
    in.n = h * n + 3;
    in.p = malloc(in.n);
    in.hdr = h;
    for (size_t i = 0; i < n; i++) {
        unsigned char *q = in.p + h * i;
        q[0] = maps ? 0xe2 : 0xe0;
        put_be32(q + 1, 0x80000000u | (uint32_t)(h * (n - i) + 3));
        q[5] = 1;
        if (maps) q[6] = 1, q[7] = 'a';
    }
    unsigned char *q = in.p + h * n;
    q[0] = maps ? 0xe2 : 0xe0, q[1] = 3, q[2] = 0;
    return in;
}

typedef struct shape {
    int fi;
    const char *name;
    input (*build)(size_t n);
} shape;

static input json_arrays(size_t n) { return repeat("[", 1, "0", 1, "]", 1, n); }
static input json_maps(size_t n) { return repeat("{\"a\":", 5, "0", 1, "}", 1, n); }
static input mp_arrays(size_t n) { return repeat("\x91", 1, "\xc0", 1, "", 0, n); }
static input mp_maps(size_t n) { return repeat("\x81\xa1" "a", 3, "\xc0", 1, "", 0, n); }
static input cbor_arrays(size_t n) { return repeat("\x81", 1, "\xf6", 1, "", 0, n); }
static input cbor_maps(size_t n) { return repeat("\xa1\x61" "a", 3, "\xf6", 1, "", 0, n); }
static input cbor_indef(size_t n) { return repeat("\x9f", 1, "\xf6", 1, "\xff", 1, n); }
static input cbor_indef_maps(size_t n) { return repeat("\xbf\x61" "a", 3, "\xf6", 1, "\xff", 1, n); }
static input bson_docs(size_t n) { return bson_nested(n, false); }
static input bson_arrays(size_t n) { return bson_nested(n, true); }
static input ub_arrays(size_t n) { return repeat("[", 1, "Z", 1, "]", 1, n); }
static input ub_maps(size_t n) { return repeat("{i\x01" "a", 4, "Z", 1, "}", 1, n); }
static input ub_counted(size_t n) { return repeat("[#i\x01", 4, "Z", 1, "", 0, n); }
static input binn_lists(size_t n) { return binn_nested(n, false); }
static input binn_objects(size_t n) { return binn_nested(n, true); }

static const shape shapes[] = {
    {F_JSON, "json arrays", json_arrays},
    {F_JSON, "json maps", json_maps},
    {F_MSGPACK, "msgpack arrays", mp_arrays},
    {F_MSGPACK, "msgpack maps", mp_maps},
    {F_CBOR, "cbor arrays", cbor_arrays},
    {F_CBOR, "cbor maps", cbor_maps},
    {F_CBOR, "cbor indefinite arrays", cbor_indef},
    {F_CBOR, "cbor indefinite maps", cbor_indef_maps},
    {F_BSON, "bson documents", bson_docs},
    {F_BSON, "bson arrays", bson_arrays},
    {F_UBJSON, "ubjson arrays", ub_arrays},
    {F_UBJSON, "ubjson maps", ub_maps},
    {F_UBJSON, "ubjson counted arrays", ub_counted},
    {F_BJDATA, "bjdata arrays", ub_arrays},
    {F_BJDATA, "bjdata maps", ub_maps},
    {F_BJDATA, "bjdata counted arrays", ub_counted},
    {F_BINN, "binn lists", binn_lists},
    {F_BINN, "binn objects", binn_objects},
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

/* ------------------------------------------------------------------------ */
/* Writers of every format behind one interface                              */
/* ------------------------------------------------------------------------ */

typedef union anyw {
    sdx_json_writer j;
    sdx_msgpack_writer m;
    sdx_cbor_writer c;
    sdx_bson_writer b;
    sdx_ubjson_writer u;
    sdx_binn_writer n;
} anyw;

static sdx_sink writer_open(int fi, anyw *w, sdx_buf *b) {
    switch (fi) {
    case F_JSON: sdx_json_writer_init(&w->j, b, NULL); return sdx_json_writer_sink(&w->j);
    case F_MSGPACK: sdx_msgpack_writer_init(&w->m, b, NULL); return sdx_msgpack_writer_sink(&w->m);
    case F_CBOR: sdx_cbor_writer_init(&w->c, b, NULL); return sdx_cbor_writer_sink(&w->c);
    case F_BSON: sdx_bson_writer_init(&w->b, b, NULL); return sdx_bson_writer_sink(&w->b);
    case F_UBJSON: sdx_ubjson_writer_init(&w->u, b, NULL); return sdx_ubjson_writer_sink(&w->u);
    case F_BJDATA: {
        sdx_ubjson_write_opts o;
        memset(&o, 0, sizeof o);
        o.flags = SDX_UBJSON_WRITE_BJDATA;
        sdx_ubjson_writer_init(&w->u, b, &o);
        return sdx_ubjson_writer_sink(&w->u);
    }
    default: sdx_binn_writer_init(&w->n, b, NULL); return sdx_binn_writer_sink(&w->n);
    }
}

static sdx_err writer_finish(int fi, anyw *w) {
    switch (fi) {
    case F_JSON: return sdx_json_writer_finish(&w->j);
    case F_MSGPACK: return sdx_msgpack_writer_finish(&w->m);
    case F_CBOR: return sdx_cbor_writer_finish(&w->c);
    case F_BSON: return sdx_bson_writer_finish(&w->b);
    case F_UBJSON:
    case F_BJDATA: return sdx_ubjson_writer_finish(&w->u);
    default: return sdx_binn_writer_finish(&w->n);
    }
}

/* Whether format `to` can hold a document of shape s: everything holds
 * nested arrays and single-key maps, except a BSON root, which must be a
 * document (a map). */
static bool holds(int to, const shape *s) {
    if (to != F_BSON) return true;
    return strstr(s->name, "maps") || strstr(s->name, "objects") || s->fi == F_BSON;
}

/* Read `out` back with format `to`'s reader (raised limit) to its end:
 * the written document must read, with as many events as the original
 * (a map's key is one event in every format). */
static void read_back(int to, const sdx_buf *out, uint64_t events, const char *what) {
    hopts o = {RAISED_LIMIT, 0, 0, NULL};
    void *r = formats[to].mem_new(sdx_buf_data(out), sdx_buf_len(out), &o);
    sdx_error e;
    uint64_t n = 0;
    sdx_err rc = drain_reader(&formats[to], r, &e, UINT64_MAX, &n);
    if (!CHECK(rc == SDX_OK) || !CHECK_EQ_U64(n, events))
        fprintf(stderr, "  %s read back as %s: %s at %zu\n", what, formats[to].name,
                sdx_strerror(rc), e.offset);
    formats[to].free(r);
}

/* ------------------------------------------------------------------------ */
/* The cases                                                                 */
/* ------------------------------------------------------------------------ */

/* The offset at which the default limit stops a shape: the opener of
 * level DEFAULT_LIMIT (0-based), the first one past the limit (for BSON,
 * whose root counts as level 1, the length field of that document). */
static size_t depth_offset(const input *in) { return in->hdr * DEFAULT_LIMIT; }

static void check_default(const shape *s, const input *in) {
    const format *f = &formats[s->fi];
    const size_t want = depth_offset(in);
    hopts o = {0, 0, 0, NULL};
    for (int path = 0; path < 3; path++) {
        const double t0 = now();
        sdx_error e;
        memset(&e, 0, sizeof e);
        if (path == 2) {
            sdx_doc *d = f->parse((const char *)in->p, in->n, &o, &e);
            CHECK(d == NULL);
            sdx_doc_free(d);
        } else {
            trickle ms = {in->p, in->n, SIZE_MAX};
            void *r = path == 0 ? f->mem_new((const char *)in->p, in->n, &o)
                                : f->stream_new(trickle_read, &ms, 4096, &o);
            drain_reader(f, r, &e, UINT64_MAX, NULL);
            f->free(r);
        }
        const double dt = now() - t0;
        static const char *const pn[] = {"reader", "stream reader", "parser"};
        if (!CHECK(e.code == SDX_ERR_DEPTH) || !CHECK_EQ_U64(e.offset, want))
            fprintf(stderr, "  %s, %s, default limit: %s at %zu (want SDX_ERR_DEPTH at %zu)\n",
                    s->name, pn[path], sdx_strerror(e.code), e.offset, want);
        /* quickly: the work is that of the first 1024 levels (the JSON
         * parser may scan the input once); generous for sanitizers */
        if (!CHECK(dt < 2.0) || getenv("SDX_HARDEN_TIMES"))
            fprintf(stderr, "  %s, %s, default limit: %.4f s\n", s->name, pn[path], dt);
    }
}

static void check_raised(const shape *s, const input *in) {
    const format *f = &formats[s->fi];
    hopts o = {RAISED_LIMIT, 0, 0, NULL};
    /* memory and stream readers: every event, no error; count them */
    uint64_t events = 0;
    for (int path = 0; path < 2; path++) {
        sdx_error e;
        trickle ms = {in->p, in->n, SIZE_MAX};
        void *r = path == 0 ? f->mem_new((const char *)in->p, in->n, &o)
                            : f->stream_new(trickle_read, &ms, 4096, &o);
        uint64_t n = 0;
        sdx_err rc = drain_reader(f, r, &e, UINT64_MAX, &n);
        if (!CHECK(rc == SDX_OK))
            fprintf(stderr, "  %s raised, path %d: %s at %zu: %s\n", s->name, path,
                    sdx_strerror(rc), e.offset, e.msg ? e.msg : "");
        CHECK(n > 2 * (uint64_t)levels);
        if (path == 0) events = n;
        else CHECK_EQ_U64(n, events);
        f->free(r);
    }
    /* skip: the root's first event, then the rest of it in one call
     * (memory and stream), then the clean end */
    for (int path = 0; path < 2; path++) {
        sdx_error e;
        trickle ms = {in->p, in->n, SIZE_MAX};
        void *r = path == 0 ? f->mem_new((const char *)in->p, in->n, &o)
                            : f->stream_new(trickle_read, &ms, 4096, &o);
        sdx_event ev;
        CHECK(f->next(r, &ev) && (ev.kind == SDX_ARRAY || ev.kind == SDX_MAP));
        if (!CHECK(f->skip(r))) {
            f->error(r, &e);
            fprintf(stderr, "  %s skip, path %d: %s at %zu\n", s->name, path, sdx_strerror(e.code), e.offset);
        }
        CHECK(!f->next(r, &ev));
        CHECK(f->error(r, &e) == SDX_OK);
        f->free(r);
    }
    /* the parser, and what a document does: compare, copy, emit, free */
    sdx_error e;
    sdx_doc *d = f->parse((const char *)in->p, in->n, &o, &e);
    if (!CHECK(d != NULL)) {
        fprintf(stderr, "  %s raised, parser: %s at %zu: %s\n", s->name, sdx_strerror(e.code),
                e.offset, e.msg ? e.msg : "");
        return;
    }
    sdx_doc *copy = sdx_node_copy(sdx_doc_root(d), NULL);
    CHECK(copy != NULL);
    if (copy) CHECK(sdx_node_equal(sdx_doc_root(d), sdx_doc_root(copy)));
    sdx_doc_free(copy);
    /* the mutable document: from the node, emitted, back to a document */
    sdx_mdoc *md = sdx_mdoc_from_node(sdx_doc_root(d), NULL);
    if (CHECK(md != NULL)) {
        sdx_doc_builder bld;
        sdx_doc_build_opts bo = {NULL, RAISED_LIMIT};
        sdx_doc_builder_init(&bld, &bo);
        CHECK(sdx_mval_emit(sdx_mdoc_root(md), sdx_doc_builder_sink(&bld)) == SDX_OK);
        sdx_err be;
        sdx_doc *d2 = sdx_doc_builder_finish(&bld, &be);
        if (CHECK(d2 != NULL)) CHECK(sdx_node_equal(sdx_doc_root(d), sdx_doc_root(d2)));
        sdx_doc_free(d2);
        sdx_err me;
        sdx_doc *d3 = sdx_mdoc_to_doc(md, &me);
        if (CHECK(d3 != NULL)) CHECK(sdx_node_equal(sdx_doc_root(d), sdx_doc_root(d3)));
        sdx_doc_free(d3);
        sdx_mdoc_free(md);
    }
    for (int to = 0; to < F_COUNT; to++) {
        sdx_buf out;
        sdx_buf_init(&out, NULL);
        anyw w;
        sdx_sink sink = writer_open(to, &w, &out);
        sdx_err rc = sdx_node_emit(sdx_doc_root(d), sink);
        if (rc == SDX_OK) rc = writer_finish(to, &w);
        else (void)writer_finish(to, &w);
        if (holds(to, s)) {
            if (!CHECK(rc == SDX_OK))
                fprintf(stderr, "  %s written as %s: %s\n", s->name, formats[to].name, sdx_strerror(rc));
            else read_back(to, &out, events, s->name);
        } else {
            CHECK(rc != SDX_OK); /* a clean refusal, e.g. a BSON root array */
        }
        sdx_buf_destroy(&out);
    }
    sdx_doc_free(d);
    /* transcoding, the event path: reader -> every writer, and reader ->
     * sdx_map_to_json -> the JSON writer */
    for (int to = 0; to <= F_COUNT; to++) {
        void *r = f->mem_new((const char *)in->p, in->n, &o);
        sdx_buf out;
        sdx_buf_init(&out, NULL);
        anyw w;
        sdx_map_to_json m;
        sdx_sink sink;
        const int wf = to == F_COUNT ? F_JSON : to;
        sink = writer_open(wf, &w, &out);
        if (to == F_COUNT) {
            sdx_map_to_json_init(&m, sink, NULL);
            sink = sdx_map_to_json_sink(&m);
        }
        sdx_err rc = sdx_transcode(f->source(r), sink, &e);
        if (to == F_COUNT) {
            sdx_err r2 = sdx_map_to_json_finish(&m);
            if (rc == SDX_OK) rc = r2;
        }
        sdx_err r3 = writer_finish(wf, &w);
        if (rc == SDX_OK) rc = r3;
        if (holds(wf, s)) {
            if (!CHECK(rc == SDX_OK))
                fprintf(stderr, "  %s transcoded to %s%s: %s at %zu\n", s->name, formats[wf].name,
                        to == F_COUNT ? " (mapped)" : "", sdx_strerror(rc), e.offset);
            else read_back(wf, &out, events, s->name);
        } else {
            CHECK(rc != SDX_OK);
        }
        sdx_buf_destroy(&out);
        f->free(r);
    }
    /* JSON: the reverse layer (sdx_map_from_json) into the CBOR writer
     * (bignums, tags), and with Extended JSON into the BSON writer (maps) */
    for (int target = 0; target < 2 && s->fi == F_JSON; target++) {
        const int to = target ? F_BSON : F_CBOR;
        void *r = f->mem_new((const char *)in->p, in->n, &o);
        sdx_buf out;
        sdx_buf_init(&out, NULL);
        anyw w;
        sdx_sink sink = writer_open(to, &w, &out);
        sdx_map_from_json m;
        sdx_map_opts mo;
        memset(&mo, 0, sizeof mo);
        mo.target = target ? SDX_MAP_TARGET_BSON : SDX_MAP_TARGET_CBOR;
        CHECK(sdx_map_from_json_init(&m, sink, &mo) == SDX_OK);
        sdx_err rc = sdx_transcode(f->source(r), sdx_map_from_json_sink(&m), &e);
        sdx_err r2 = sdx_map_from_json_finish(&m); /* finishes the writer */
        if (rc == SDX_OK) rc = r2;
        if (holds(to, s)) {
            if (!CHECK(rc == SDX_OK))
                fprintf(stderr, "  %s from JSON to %s: %s\n", s->name, formats[to].name, sdx_strerror(rc));
            else read_back(to, &out, events, s->name);
        } else {
            CHECK(rc != SDX_OK);
        }
        sdx_buf_destroy(&out);
        f->free(r);
    }
}

static void run_shapes(void) {
    for (size_t i = 0; i < NSHAPES; i++) {
        const shape *s = &shapes[i];
        input in = s->build(levels);
        const double t0 = now();
        check_default(s, &in);
        check_raised(s, &in);
        fprintf(stderr, "  %-24s %9zu bytes, %.2f s\n", s->name, in.n, now() - t0);
        free(in.p);
    }
}

/* Run fn on a thread with a small stack: recursion proportional to the
 * depth overflows it (a crash, so the test fails). */
typedef struct job {
    void (*fn)(void);
} job;

static void *thread_main(void *arg) {
    ((job *)arg)->fn();
    return NULL;
}

static void on_small_stack(void (*fn)(void)) {
    pthread_attr_t attr;
    pthread_t t;
    job j = {fn};
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, SMALL_STACK);
    if (CHECK(pthread_create(&t, &attr, thread_main, &j) == 0)) pthread_join(t, NULL);
    pthread_attr_destroy(&attr);
}

TEST(deep_nesting) {
    const double scale = test_scale();
    if (scale < 1) levels = scale > 0.1 ? (uint32_t)(LEVELS * scale) : LEVELS / 10;
    fprintf(stderr, "  %u levels\n", levels);
    on_small_stack(run_shapes);
}

int main(int argc, char **argv) {
    return test_run(argc, argv, (test_case[]){{"deep_nesting", deep_nesting}, {0}});
}
