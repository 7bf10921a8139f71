/* CBOR round trips.
 *
 * Corpus documents (twitter.json, citm_catalog.json, canada.json; the
 * directory SDX_CORPUS_DIR, or the environment variable SDX_CORPUS):
 *   - JSON -> CBOR -> JSON gives back the JSON writer's own output of the
 *     document, through the pull reader (memory and stream) and the tree
 *     parser;
 *   - CBOR -> document -> CBOR gives the same bytes;
 *   - CBOR -> MessagePack -> CBOR gives the same bytes as JSON -> CBOR
 *     with definite lengths (what MessagePack can hold: everything here);
 *   - with SDX_CBOR_WRITE_DETERMINISTIC the output validates as
 *     deterministic, and sorting again changes nothing.
 * Generated documents with what only CBOR holds (tag chains, simple
 * values, undefined, NINT, float16, non-string keys, indefinite lengths):
 *   CBOR -> document -> CBOR byte for byte. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cbor_test.h"
#include "pump.h"

static sdx_err json_to_cbor(const char *j, size_t n, sdx_buf *out, uint32_t flags) {
    sdx_json_reader *r = sdx_json_reader_new(j, n, NULL);
    sdx_cbor_writer w;
    sdx_cbor_write_opts o = {flags, NULL};
    sdx_cbor_writer_init(&w, out, &o);
    sdx_err e = test_pump(sdx_json_reader_source(r), sdx_cbor_writer_sink(&w));
    sdx_json_reader_free(r);
    return e;
}

static sdx_err cbor_to_json(sdx_source src, sdx_buf *out) {
    sdx_json_writer w;
    sdx_json_writer_init(&w, out, NULL);
    return test_pump(src, sdx_json_writer_sink(&w));
}

typedef struct mem_in {
    const char *p;
    size_t len, pos;
} mem_in;

static size_t mem_read(void *ctx, void *buf, size_t cap) {
    mem_in *m = ctx;
    size_t n = m->len - m->pos;
    if (n > cap) n = cap;
    memcpy(buf, m->p + m->pos, n);
    m->pos += n;
    return n;
}

#define SAME(a, b) CHECK_MEM(sdx_buf_data(a), sdx_buf_len(a), sdx_buf_data(b), sdx_buf_len(b))

static void corpus_one(const char *dir, const char *name) {
    size_t n;
    char *j = test_read_in(dir, name, &n);
    if (!CHECK(j != NULL)) return;
    sdx_buf json0, cbor, json1, back, defn, mp, mpback;
    sdx_buf_init(&json0, NULL);
    sdx_buf_init(&cbor, NULL);
    sdx_buf_init(&json1, NULL);
    sdx_buf_init(&back, NULL);
    sdx_buf_init(&defn, NULL);
    sdx_buf_init(&mp, NULL);
    sdx_buf_init(&mpback, NULL);
    sdx_json_reader *jr = sdx_json_reader_new(j, n, NULL);
    CHECK_EQ_INT(cbor_to_json(sdx_json_reader_source(jr), &json0), SDX_OK);
    sdx_json_reader_free(jr);
    CHECK_EQ_INT(json_to_cbor(j, n, &cbor, 0), SDX_OK);
    /* pull reader, memory */
    sdx_cbor_reader *r = sdx_cbor_reader_new(sdx_buf_data(&cbor), sdx_buf_len(&cbor), NULL);
    CHECK_EQ_INT(cbor_to_json(sdx_cbor_reader_source(r), &json1), SDX_OK);
    sdx_cbor_reader_free(r);
    SAME(&json1, &json0);
    /* pull reader, stream */
    sdx_buf_clear(&json1);
    mem_in m = {sdx_buf_data(&cbor), sdx_buf_len(&cbor), 0};
    r = sdx_cbor_reader_new_stream(mem_read, &m, 1000, NULL);
    CHECK_EQ_INT(cbor_to_json(sdx_cbor_reader_source(r), &json1), SDX_OK);
    sdx_cbor_reader_free(r);
    SAME(&json1, &json0);
    /* the tree parser, and back to CBOR */
    sdx_error e;
    sdx_doc *doc = sdx_cbor_parse(sdx_buf_data(&cbor), sdx_buf_len(&cbor), NULL, &e);
    if (CHECK(doc != NULL)) {
        sdx_json_writer jw;
        sdx_buf_clear(&json1);
        sdx_json_writer_init(&jw, &json1, NULL);
        CHECK_EQ_INT(sdx_node_emit(sdx_doc_root(doc), sdx_json_writer_sink(&jw)), SDX_OK);
        CHECK_EQ_INT(sdx_json_writer_finish(&jw), SDX_OK);
        SAME(&json1, &json0);
        /* the document has the counts: definite heads */
        sdx_cbor_writer w;
        sdx_cbor_writer_init(&w, &back, NULL);
        CHECK_EQ_INT(sdx_node_emit(sdx_doc_root(doc), sdx_cbor_writer_sink(&w)), SDX_OK);
        CHECK_EQ_INT(sdx_cbor_writer_finish(&w), SDX_OK);
        CHECK_EQ_INT(json_to_cbor(j, n, &defn, SDX_CBOR_WRITE_DEFINITE), SDX_OK);
        SAME(&back, &defn);
    }
    sdx_doc_free(doc);
    /* through MessagePack */
    r = sdx_cbor_reader_new(sdx_buf_data(&cbor), sdx_buf_len(&cbor), NULL);
    sdx_msgpack_writer mw;
    sdx_msgpack_writer_init(&mw, &mp, NULL);
    CHECK_EQ_INT(test_pump(sdx_cbor_reader_source(r), sdx_msgpack_writer_sink(&mw)), SDX_OK);
    sdx_cbor_reader_free(r);
    sdx_msgpack_reader *mr = sdx_msgpack_reader_new(sdx_buf_data(&mp), sdx_buf_len(&mp), NULL);
    sdx_cbor_writer w;
    sdx_cbor_writer_init(&w, &mpback, NULL);
    CHECK_EQ_INT(test_pump(sdx_msgpack_reader_source(mr), sdx_cbor_writer_sink(&w)), SDX_OK);
    sdx_msgpack_reader_free(mr);
    SAME(&mpback, &defn);
    /* deterministic */
    sdx_buf det, det2;
    sdx_buf_init(&det, NULL);
    sdx_buf_init(&det2, NULL);
    CHECK_EQ_INT(json_to_cbor(j, n, &det, SDX_CBOR_WRITE_DETERMINISTIC), SDX_OK);
    CHECK_EQ_U64(sdx_buf_len(&det), sdx_buf_len(&defn));
    sdx_cbor_read_opts ro = {SDX_CBOR_READ_DETERMINISTIC, 0, 0, 0, NULL};
    r = sdx_cbor_reader_new(sdx_buf_data(&det), sdx_buf_len(&det), &ro);
    sdx_cbor_write_opts wo = {SDX_CBOR_WRITE_DETERMINISTIC, NULL};
    sdx_cbor_writer_init(&w, &det2, &wo);
    CHECK_EQ_INT(test_pump(sdx_cbor_reader_source(r), sdx_cbor_writer_sink(&w)), SDX_OK);
    sdx_cbor_reader_free(r);
    SAME(&det2, &det);
    sdx_buf_destroy(&det);
    sdx_buf_destroy(&det2);
    sdx_buf_destroy(&json0);
    sdx_buf_destroy(&cbor);
    sdx_buf_destroy(&json1);
    sdx_buf_destroy(&back);
    sdx_buf_destroy(&defn);
    sdx_buf_destroy(&mp);
    sdx_buf_destroy(&mpback);
    free(j);
}

static const char *corpus_dir;

TEST(corpus) {
    corpus_one(corpus_dir, "twitter.json");
    corpus_one(corpus_dir, "citm_catalog.json");
    corpus_one(corpus_dir, "canada.json");
}

/* Random documents of what only CBOR holds, written by the writer. */
static void gen_item(sdx_cbor_writer *w, uint64_t *st, int depth) {
    uint64_t r = test_rand(st);
    if (r % 7 == 0) sdx_cbor_writer_tag(w, test_rand(st) % 100000);
    switch ((r >> 8) % (depth > 4 ? 11 : 14)) {
    case 0: sdx_cbor_writer_int(w, (int64_t)test_rand(st) >> (r % 64)); break;
    case 1: sdx_cbor_writer_nint(w, test_rand(st)); break;
    case 2: sdx_cbor_writer_uint(w, test_rand(st)); break;
    case 3: {
        uint64_t b = test_rand(st);
        double d;
        memcpy(&d, &b, 8);
        if (d != d) d = 0.25;
        sdx_cbor_writer_double(w, r & 1 ? d : (double)(int)(b % 2000) / 16);
        break;
    }
    case 4: sdx_cbor_writer_string(w, "caf\xc3\xa9", 5); break;
    case 5: sdx_cbor_writer_bytes(w, "\0\1\2", (size_t)(r % 4)); break;
    case 6: sdx_cbor_writer_simple(w, (uint8_t)(r % 20)); break;
    case 7: sdx_cbor_writer_simple(w, (uint8_t)(32 + r % 200)); break;
    case 8: sdx_cbor_writer_undefined(w); break;
    case 9: sdx_cbor_writer_null(w); break;
    case 10: sdx_cbor_writer_bool(w, r & 1); break;
    case 11:
    case 12:
        sdx_cbor_writer_begin_map(w, 0);
        sdx_cbor_writer_end(w);
        break;
    default: {
        int map = (r >> 20) & 1;
        uint64_t n = test_rand(st) % 5;
        int indef = (r >> 21) & 1;
        if (map) sdx_cbor_writer_begin_map(w, indef ? SDX_COUNT_UNKNOWN : n);
        else sdx_cbor_writer_begin_array(w, indef ? SDX_COUNT_UNKNOWN : n);
        for (uint64_t i = 0; i < (map ? 2 * n : n); i++) gen_item(w, st, depth + 1);
        sdx_cbor_writer_end(w);
        break;
    }
    }
}

TEST(generated) {
    uint64_t st = 99;
    int ok = 1;
    for (int i = 0; i < 2000 && ok; i++) {
        sdx_buf a, b;
        sdx_buf_init(&a, NULL);
        sdx_buf_init(&b, NULL);
        sdx_cbor_writer w;
        sdx_cbor_writer_init(&w, &a, NULL);
        gen_item(&w, &st, 0);
        ok &= CHECK_EQ_INT(sdx_cbor_writer_finish(&w), SDX_OK);
        sdx_error e;
        sdx_doc *doc = sdx_cbor_parse(sdx_buf_data(&a), sdx_buf_len(&a), NULL, &e);
        ok &= CHECK(doc != NULL);
        if (doc) {
            sdx_cbor_writer_init(&w, &b, NULL);
            ok &= CHECK_EQ_INT(sdx_node_emit(sdx_doc_root(doc), sdx_cbor_writer_sink(&w)), SDX_OK);
            ok &= CHECK_EQ_INT(sdx_cbor_writer_finish(&w), SDX_OK);
            /* indefinite lengths become definite in a document: compare
             * through a second round, and events through the reader */
            sdx_doc *doc2 = sdx_cbor_parse(sdx_buf_data(&b), sdx_buf_len(&b), NULL, &e);
            ok &= CHECK(doc2 && sdx_node_equal(sdx_doc_root(doc), sdx_doc_root(doc2)));
            sdx_doc_free(doc2);
            evtext ta, tb;
            ta.n = tb.n = 0;
            sdx_cbor_reader *ra = sdx_cbor_reader_new(sdx_buf_data(&a), sdx_buf_len(&a), NULL);
            sdx_cbor_reader *rb = sdx_cbor_reader_new(sdx_buf_data(&b), sdx_buf_len(&b), NULL);
            sdx_event ev;
            while (sdx_cbor_reader_next(ra, &ev)) {
                if ((ev.kind == SDX_ARRAY || ev.kind == SDX_MAP)) ev.v.count = 0;
                evtext_event(&ta, &ev);
            }
            while (sdx_cbor_reader_next(rb, &ev)) {
                if ((ev.kind == SDX_ARRAY || ev.kind == SDX_MAP)) ev.v.count = 0;
                evtext_event(&tb, &ev);
            }
            ok &= CHECK_MEM(ta.s, ta.n, tb.s, tb.n);
            sdx_cbor_reader_free(ra);
            sdx_cbor_reader_free(rb);
        }
        sdx_doc_free(doc);
        sdx_buf_destroy(&a);
        sdx_buf_destroy(&b);
    }
}

int main(int argc, char **argv) {
    corpus_dir = getenv("SDX_CORPUS");
    if (!corpus_dir) corpus_dir = SDX_CORPUS_DIR;
    return test_run(argc, argv,
                    (test_case[]){
                        {"corpus", corpus},
                        {"generated", generated},
                        {0, 0},
                    });
}
