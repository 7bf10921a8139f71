/*
 * Malformed MessagePack: every answer is a clean error with its offset,
 * never a crash, a hang or an allocation driven by a declared length (the
 * sanitizer build runs this too).
 *
 *   - truncation at every byte of large documents (the corpus documents
 *     converted to MessagePack when the JSON reader is built, and generated
 *     documents): the pull reader through its clone hook at every byte in
 *     linear time, fresh memory and stream readers and the tree parser on
 *     the first and last cuts and a random sample;
 *   - random byte flips: reader, stream reader and parser agree on the
 *     error code, and every view points inside the input;
 *   - 10-byte messages declaring 2^32 - 1 bytes or elements (str 32,
 *     bin 32, ext 32, array 32, map 32);
 *   - 10^6-deep nesting: SDX_ERR_DEPTH by default, fine with the limit
 *     raised;
 *   - the reserved byte 0xc1 and invalid UTF-8 in str at every position of
 *     a document.
 *
 * Sizes: SDX_MP_CUT_HEAD / SDX_MP_CUT_TAIL / SDX_MP_CUT_RANDOM fresh cuts
 * per document, SDX_MP_MUTANTS flipped copies (smaller in the sanitizer
 * build).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_test.h"
#include "msgpack/reader_internal.h"
#include "msgpack_util.h"
#include "sdx/sdx.h"

#ifndef SDX_MP_CUT_HEAD
#define SDX_MP_CUT_HEAD 4096
#endif
#ifndef SDX_MP_CUT_TAIL
#define SDX_MP_CUT_TAIL 1024
#endif
#ifndef SDX_MP_CUT_RANDOM
#define SDX_MP_CUT_RANDOM 1000
#endif
#ifndef SDX_MP_MUTANTS
#define SDX_MP_MUTANTS 2000
#endif

static long passed, failed;

static void result(int ok, const char *what, const char *name, size_t at) {
    if (ok) {
        passed++;
    } else {
        failed++;
        if (failed < 30) fprintf(stderr, "FAIL %s: %s at %zu\n", what, name, at);
    }
}

/* ---- the inputs ------------------------------------------------------------- */

typedef struct input {
    char name[64];
    char *data;
    size_t len;
} input;

static input inputs[16];
static int ninputs;

static void add_input(const char *name, const char *data, size_t len) {
    input *in = &inputs[ninputs++];
    snprintf(in->name, sizeof in->name, "%s", name);
    in->data = malloc(len ? len : 1);
    memcpy(in->data, data, len);
    in->len = len;
}

/* A corpus document converted with the JSON reader into the writer. */
static void add_corpus(const char *dir, const char *file) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        result(0, "corpus", file, 0);
        return;
    }
    sdx_json_reader *r = sdx_json_reader_new_file(f, NULL);
    sdx_buf b;
    sdx_buf_init(&b, NULL);
    sdx_msgpack_writer w;
    sdx_msgpack_writer_init(&w, &b, NULL);
    sdx_event ev;
    while (sdx_json_reader_next(r, &ev)) sdx_msgpack_writer_put(&w, &ev);
    int ok = sdx_json_reader_error(r, NULL) == SDX_OK && sdx_msgpack_writer_finish(&w) == SDX_OK;
    result(ok, "corpus conversion", file, 0);
    if (ok) add_input(file, sdx_buf_data(&b), sdx_buf_len(&b));
    sdx_buf_destroy(&b);
    sdx_json_reader_free(r);
    fclose(f);
}

static void add_generated(uint64_t seed, int big) {
    mp_gen g = {seed, 7, big, 1, 0, 3000};
    evlist l = {0};
    /* a root array of many documents: a few hundred KiB */
    sdx_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = SDX_ARRAY;
    ev.v.count = big ? 10 : 60;
    evlist_push(&l, &ev);
    for (uint64_t i = 0; i < ev.v.count; i++) {
        size_t start = l.n;
        mp_gen_doc(&g, &l);
        for (size_t k = start; k < l.n; k++) l.ev[k].depth++;
    }
    memset(&ev, 0, sizeof ev);
    ev.kind = SDX_END;
    evlist_push(&l, &ev);
    sdx_buf b;
    sdx_buf_init(&b, NULL);
    if (mp_write_events(&l, &b) != SDX_OK) abort();
    char name[64];
    snprintf(name, sizeof name, "generated-%llu%s", (unsigned long long)seed, big ? "-big" : "");
    add_input(name, sdx_buf_data(&b), sdx_buf_len(&b));
    sdx_buf_destroy(&b);
    evlist_free(&l);
}

/* ---- decoding with every decoder --------------------------------------------- */

/* The reader over memory (chunk 0) or a stream; every view must point into
 * the input. Returns the error code and offset. */
static sdx_err read_all(const char *data, size_t len, size_t chunk, const sdx_msgpack_read_opts *o,
                        size_t *offset) {
    mp_mem_stream st = {data, len, chunk, -1};
    sdx_msgpack_reader *r = chunk ? sdx_msgpack_reader_new_stream(mp_mem_read, &st, chunk, o)
                                  : sdx_msgpack_reader_new(data, len, o);
    sdx_event ev;
    int views_ok = 1;
    while (sdx_msgpack_reader_next(r, &ev)) {
        if (!chunk && (ev.kind == SDX_STR || ev.kind == SDX_KEY || ev.kind == SDX_BIN) &&
            (ev.v.str.ptr < data || ev.v.str.ptr + ev.v.str.len > data + len))
            views_ok = 0;
    }
    sdx_error e;
    sdx_err code = sdx_msgpack_reader_error(r, &e);
    *offset = e.offset;
    if (code && !e.msg) views_ok = 0;
    sdx_msgpack_reader_free(r);
    return views_ok ? code : SDX_ERR__COUNT;
}

static sdx_err parse_all(const char *data, size_t len, const sdx_msgpack_read_opts *o, size_t *offset) {
    sdx_error e;
    sdx_doc *doc = sdx_msgpack_parse(data, len, o, &e);
    *offset = e.offset;
    if (doc) {
        sdx_doc_free(doc);
        return SDX_OK;
    }
    return e.msg ? e.code : SDX_ERR__COUNT;
}

/* ---- truncation --------------------------------------------------------------- */

static void truncations(const input *in) {
    /* every byte, through the clone hook */
    sdx_msgpack_reader *r = sdx_msgpack_reader_new(in->data, in->len, NULL);
    sdx_event ev;
    long cuts = 0, bad = 0;
    for (;;) {
        uint64_t o = sdx_msgpack_reader_offset(r);
        sdx_msgpack_reader *probe = sdx_msgpack_reader_clone_cut(r, in->len);
        int more = sdx_msgpack_reader_next(probe, &ev);
        uint64_t e = sdx_msgpack_reader_offset(probe);
        sdx_msgpack_reader_free(probe);
        if (!more) break;
        for (uint64_t k = o; k < e; k++) {
            sdx_msgpack_reader *c = sdx_msgpack_reader_clone_cut(r, (size_t)k);
            sdx_event ev2;
            sdx_error err;
            int ok = !sdx_msgpack_reader_next(c, &ev2) &&
                     sdx_msgpack_reader_error(c, &err) == SDX_ERR_TRUNCATED && err.offset == o;
            bad += !ok;
            cuts++;
            sdx_msgpack_reader_free(c);
        }
        sdx_msgpack_reader_next(r, &ev);
    }
    int clean = sdx_msgpack_reader_error(r, NULL) == SDX_OK;
    sdx_msgpack_reader_free(r);
    result(clean && bad == 0 && cuts == (long)in->len, "reader cut at every byte (clone hook)", in->name, (size_t)bad);
    /* fresh decoders on the first, the last and random cuts */
    uint64_t rng = in->len;
    size_t n = SDX_MP_CUT_HEAD + SDX_MP_CUT_TAIL + SDX_MP_CUT_RANDOM;
    for (size_t i = 0; i < n; i++) {
        size_t k;
        if (i < SDX_MP_CUT_HEAD) k = i;
        else if (i < SDX_MP_CUT_HEAD + SDX_MP_CUT_TAIL) k = in->len - 1 - (i - SDX_MP_CUT_HEAD);
        else k = (size_t)(test_rand(&rng) % in->len);
        if (k >= in->len) continue;
        size_t om, os;
        sdx_err m = read_all(in->data, k, 0, NULL, &om);
        sdx_err s = read_all(in->data, k, 1 + k % 13, NULL, &os);
        int ok = m == SDX_ERR_TRUNCATED && s == SDX_ERR_TRUNCATED && om <= k && os <= k;
        size_t op;
        sdx_err p = parse_all(in->data, k, NULL, &op);
        ok = ok && p == SDX_ERR_TRUNCATED && op == om;
        result(ok, "fresh decoders on a cut", in->name, k);
    }
}

/* ---- byte flips --------------------------------------------------------------- */

static void flips(const input *in, int count) {
    uint64_t rng = in->len * 31 + 7;
    char *m = malloc(in->len);
    for (int t = 0; t < count; t++) {
        memcpy(m, in->data, in->len);
        int nflips = 1 + (int)(test_rand(&rng) % 8);
        size_t first = in->len;
        for (int f = 0; f < nflips; f++) {
            size_t at = (size_t)(test_rand(&rng) % in->len);
            m[at] ^= (char)(1 + test_rand(&rng) % 255);
            if (at < first) first = at;
        }
        size_t om, os;
        sdx_err a = read_all(m, in->len, 0, NULL, &om);
        sdx_err b = read_all(m, in->len, 1 + (size_t)t % 17, NULL, &os);
        /* Where the memory reader refuses a declared count up front
         * (TRUNCATED), the stream reader goes on and fails later, maybe
         * with another error; otherwise both fail alike, or neither. */
        int ok = a != SDX_ERR__COUNT && b != SDX_ERR__COUNT && (a == SDX_OK) == (b == SDX_OK) &&
                 (a == SDX_ERR_TRUNCATED || (a == b && om == os)) && om <= in->len && os <= in->len;
        size_t op;
        sdx_err p = parse_all(m, in->len, NULL, &op);
        ok = ok && p == a && (a == SDX_OK || op == om);
        if (a == SDX_ERR_NOMEM) ok = 0;
        result(ok, "byte flips", in->name, first);
    }
    free(m);
}

/* ---- hostile lengths, depth, 0xc1, UTF-8 ------------------------------------------ */

static void expect_error(const char *what, const char *data, size_t len, const sdx_msgpack_read_opts *o,
                         sdx_err want, size_t want_offset, int stream_may_differ) {
    size_t om, os;
    counting_alloc a;
    counting_alloc_init(&a, 0);
    sdx_msgpack_read_opts oa = o ? *o : (sdx_msgpack_read_opts){0, 0, NULL};
    oa.alloc = &a.iface;
    sdx_err m = read_all(data, len, 0, &oa, &om);
    int ok = m == want && om == want_offset;
    sdx_err s = read_all(data, len, 4096, &oa, &os);
    ok = ok && (stream_may_differ ? s != SDX_OK : s == want && os == want_offset);
    size_t op;
    sdx_err p = parse_all(data, len, &oa, &op);
    ok = ok && p == want && op == want_offset;
    ok = ok && a.live == 0;
    result(ok, what, "", want_offset);
}

static void hostile(void) {
    static const struct {
        const char *name;
        const char *bytes;
        int stream_differs;
    } ten[] = {
        {"str 32 of 2^32-1 bytes", "\xdb\xff\xff\xff\xff\x61\x61\x61\x61\x61", 0},
        {"bin 32 of 2^32-1 bytes", "\xc6\xff\xff\xff\xff\x61\x61\x61\x61\x61", 0},
        {"ext 32 of 2^32-1 bytes", "\xc9\xff\xff\xff\xff\x05\x61\x61\x61\x61", 0},
        {"array 32 of 2^32-1 elements", "\xdd\xff\xff\xff\xff\xc0\xc0\xc0\xc0\xc0", 1},
        {"map 32 of 2^32-1 entries", "\xdf\xff\xff\xff\xff\xc0\xc0\xc0\xc0\xc0", 1},
    };
    for (int i = 0; i < 5; i++)
        expect_error(ten[i].name, ten[i].bytes, 10, NULL, SDX_ERR_TRUNCATED, 0, ten[i].stream_differs);

    /* 10^6-deep nesting, arrays and maps */
    size_t deep = 1000000;
    char *d = malloc(2 * deep + 1);
    for (int map = 0; map < 2; map++) {
        size_t len = 0;
        for (size_t i = 0; i < deep; i++) {
            if (map) {
                d[len++] = (char)0x81;
                d[len++] = (char)0xa0;
            } else {
                d[len++] = (char)0x91;
            }
        }
        d[len++] = (char)0xc0;
        expect_error(map ? "10^6-deep maps" : "10^6-deep arrays", d, len, NULL, SDX_ERR_DEPTH,
                     (size_t)SDX_MSGPACK_DEFAULT_MAX_DEPTH * (map ? 2 : 1), 0);
        sdx_msgpack_read_opts raised = {0, 2000000, NULL};
        size_t o;
        int ok = read_all(d, len, 0, &raised, &o) == SDX_OK && read_all(d, len, 65536, &raised, &o) == SDX_OK;
        ok = ok && parse_all(d, len, &raised, &o) == SDX_OK;
        result(ok, "10^6-deep nesting with the limit raised", map ? "maps" : "arrays", 0);
    }
    free(d);

    /* 0xc1 and invalid UTF-8 at every item position of a document */
    const input *in = &inputs[0];
    sdx_msgpack_reader *r = sdx_msgpack_reader_new(in->data, in->len, NULL);
    sdx_event ev;
    char *m = malloc(in->len);
    long tried = 0;
    for (int i = 0; i < 400; i++) {
        uint64_t o = sdx_msgpack_reader_offset(r);
        if (!sdx_msgpack_reader_next(r, &ev)) break;
        if (ev.kind == SDX_END) continue;
        memcpy(m, in->data, in->len);
        m[o] = (char)0xc1;
        expect_error("0xc1", m, in->len, NULL, SDX_ERR_SYNTAX, (size_t)o, 0);
        if ((ev.kind == SDX_STR || ev.kind == SDX_KEY) && ev.v.str.len) {
            memcpy(m, in->data, in->len);
            size_t at = (size_t)(ev.v.str.ptr - in->data) + ev.v.str.len / 2;
            m[at] = (char)0xff;
            expect_error("invalid UTF-8 in str", m, in->len, NULL, SDX_ERR_UTF8, (size_t)o, 0);
            sdx_msgpack_read_opts nocheck = {SDX_MSGPACK_READ_NO_UTF8_CHECK, 0, NULL};
            size_t off;
            result(read_all(m, in->len, 0, &nocheck, &off) == SDX_OK, "UTF-8 check off", in->name, at);
        }
        tried++;
    }
    result(tried > 100, "positions tried", in->name, (size_t)tried);
    free(m);
    sdx_msgpack_reader_free(r);
}

int main(int argc, char **argv) {
    const char *corpus = getenv("SDX_CORPUS");
    if (!corpus) corpus = argc > 1 ? argv[1] : SDX_CORPUS_DIR;
    add_corpus(corpus, "twitter.json");
    add_corpus(corpus, "citm_catalog.json");
    add_corpus(corpus, "canada.json");
    add_generated(1, 0);
    add_generated(2, 1);
    for (int i = 0; i < ninputs; i++) {
        printf("malformed: %s, %zu bytes\n", inputs[i].name, inputs[i].len);
        fflush(stdout);
        truncations(&inputs[i]);
        flips(&inputs[i], SDX_MP_MUTANTS);
    }
    hostile();
    for (int i = 0; i < ninputs; i++) free(inputs[i].data);
    printf("%ld passed, %ld failed\n", passed, failed);
    return failed || !passed ? 1 : 0;
}
