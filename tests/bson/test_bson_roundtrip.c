/* BSON round trips with the other formats, for what both can hold.
 *
 * Corpus documents (twitter.json, citm_catalog.json, canada.json; the
 * directory SDX_CORPUS_DIR, or the environment variable SDX_CORPUS):
 *   - JSON -> BSON -> JSON gives back the JSON writer's own output of the
 *     document, through the pull reader (memory and stream) and the tree
 *     parser (BSON's int64 tag is left out by the plain JSON writer);
 *   - BSON -> document -> BSON gives the same bytes;
 *   - BSON -> MessagePack -> BSON and BSON -> CBOR -> BSON give the same
 *     bytes, and BSON -> MessagePack the same bytes as JSON -> MessagePack.
 * Random documents of every type JSON, MessagePack and CBOR hold as well
 * (double, string with NUL bytes, document, array, boolean, null, int32,
 * int64, binary of subtype 0 except through JSON), written with the BSON
 * writer: BSON -> X -> BSON byte for byte for X = JSON, MessagePack, CBOR
 * and the document. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bson_test.h"
#include "pump.h"
#include "sdx/sdx.h"
#include "test.h"

/* The other formats, each as a writer into a buffer and a reader over one. */
enum { FMT_JSON, FMT_MSGPACK, FMT_CBOR, FMT_COUNT };
static const char *const fmt_names[FMT_COUNT] = {"json", "msgpack", "cbor"};

typedef union any_writer {
    sdx_json_writer json;
    sdx_msgpack_writer msgpack;
    sdx_cbor_writer cbor;
    sdx_bson_writer bson;
} any_writer;

static sdx_sink writer_for(int fmt, any_writer *w, sdx_buf *out) {
    switch (fmt) {
    case FMT_JSON: sdx_json_writer_init(&w->json, out, NULL); return sdx_json_writer_sink(&w->json);
    case FMT_MSGPACK: sdx_msgpack_writer_init(&w->msgpack, out, NULL); return sdx_msgpack_writer_sink(&w->msgpack);
    default: sdx_cbor_writer_init(&w->cbor, out, NULL); return sdx_cbor_writer_sink(&w->cbor);
    }
}

/* Read `len` bytes of fmt and write them as BSON into out. */
static sdx_err to_bson(int fmt, const char *p, size_t len, sdx_buf *out) {
    sdx_bson_writer w;
    sdx_bson_writer_init(&w, out, NULL);
    sdx_sink sink = sdx_bson_writer_sink(&w);
    sdx_err e;
    if (fmt == FMT_JSON) {
        sdx_json_reader *r = sdx_json_reader_new(p, len, NULL);
        e = test_pump(sdx_json_reader_source(r), sink);
        sdx_json_reader_free(r);
    } else if (fmt == FMT_MSGPACK) {
        sdx_msgpack_reader *r = sdx_msgpack_reader_new(p, len, NULL);
        e = test_pump(sdx_msgpack_reader_source(r), sink);
        sdx_msgpack_reader_free(r);
    } else {
        sdx_cbor_reader *r = sdx_cbor_reader_new(p, len, NULL);
        e = test_pump(sdx_cbor_reader_source(r), sink);
        sdx_cbor_reader_free(r);
    }
    return e;
}

/* BSON -> fmt (pull reader) -> BSON, and the same from the parsed
 * document; both must give back `in`. Returns 1 when they do. */
static int through(int fmt, const sdx_buf *in) {
    int ok = 1;
    for (int tree = 0; tree < 2; tree++) {
        sdx_buf mid, back;
        sdx_buf_init(&mid, NULL);
        sdx_buf_init(&back, NULL);
        any_writer w;
        sdx_sink sink = writer_for(fmt, &w, &mid);
        sdx_err e;
        if (tree) {
            sdx_doc *doc = sdx_bson_parse(sdx_buf_data(in), sdx_buf_len(in), NULL, NULL);
            e = doc ? sdx_node_emit(sdx_doc_root(doc), sink) : SDX_ERR_SYNTAX;
            sdx_err f = sdx_sink_finish(sink);
            if (!e) e = f;
            sdx_doc_free(doc);
        } else {
            sdx_bson_reader *r = sdx_bson_reader_new(sdx_buf_data(in), sdx_buf_len(in), NULL);
            e = test_pump(sdx_bson_reader_source(r), sink);
            sdx_bson_reader_free(r);
        }
        ok &= CHECK_EQ_INT(e, SDX_OK);
        sdx_err b = to_bson(fmt, sdx_buf_data(&mid), sdx_buf_len(&mid), &back);
        ok &= CHECK_EQ_INT(b, SDX_OK);
        ok &= CHECK_MEM(sdx_buf_data(&back), sdx_buf_len(&back), sdx_buf_data(in), sdx_buf_len(in));
        if (!ok) fprintf(stderr, "  through %s (%s)\n", fmt_names[fmt], tree ? "document" : "reader");
        sdx_buf_destroy(&mid);
        sdx_buf_destroy(&back);
    }
    return ok;
}

#define SAME(a, b) CHECK_MEM(sdx_buf_data(a), sdx_buf_len(a), sdx_buf_data(b), sdx_buf_len(b))

static sdx_err bson_to_json(sdx_source src, sdx_buf *out) {
    sdx_json_writer w;
    sdx_json_writer_init(&w, out, NULL);
    return test_pump(src, sdx_json_writer_sink(&w));
}

static void corpus_one(const char *dir, const char *name) {
    size_t n;
    char *j = test_read_in(dir, name, &n);
    if (!CHECK(j != NULL)) return;
    sdx_buf json0, bson, json1, mp, mp_direct;
    sdx_buf_init(&json0, NULL);
    sdx_buf_init(&bson, NULL);
    sdx_buf_init(&json1, NULL);
    sdx_buf_init(&mp, NULL);
    sdx_buf_init(&mp_direct, NULL);
    sdx_json_reader *jr = sdx_json_reader_new(j, n, NULL);
    CHECK_EQ_INT(bson_to_json(sdx_json_reader_source(jr), &json0), SDX_OK);
    sdx_json_reader_free(jr);
    CHECK_EQ_INT(to_bson(FMT_JSON, j, n, &bson), SDX_OK);
    /* pull reader, memory and stream (one byte per read) */
    sdx_bson_reader *r = sdx_bson_reader_new(sdx_buf_data(&bson), sdx_buf_len(&bson), NULL);
    CHECK_EQ_INT(bson_to_json(sdx_bson_reader_source(r), &json1), SDX_OK);
    sdx_bson_reader_free(r);
    SAME(&json1, &json0);
    sdx_buf_clear(&json1);
    trickle t = {(const unsigned char *)sdx_buf_data(&bson), sdx_buf_len(&bson), 1};
    r = sdx_bson_reader_new_stream(trickle_read, &t, NULL);
    CHECK_EQ_INT(bson_to_json(sdx_bson_reader_source(r), &json1), SDX_OK);
    sdx_bson_reader_free(r);
    SAME(&json1, &json0);
    /* the tree parser */
    sdx_doc *doc = sdx_bson_parse(sdx_buf_data(&bson), sdx_buf_len(&bson), NULL, NULL);
    if (CHECK(doc != NULL)) {
        sdx_json_writer jw;
        sdx_buf_clear(&json1);
        sdx_json_writer_init(&jw, &json1, NULL);
        CHECK_EQ_INT(sdx_node_emit(sdx_doc_root(doc), sdx_json_writer_sink(&jw)), SDX_OK);
        CHECK_EQ_INT(sdx_json_writer_finish(&jw), SDX_OK);
        SAME(&json1, &json0);
    }
    sdx_doc_free(doc);
    /* back to the same BSON through the document and every other format */
    for (int f = 0; f < FMT_COUNT; f++) through(f, &bson);
    /* BSON -> MessagePack = JSON -> MessagePack */
    r = sdx_bson_reader_new(sdx_buf_data(&bson), sdx_buf_len(&bson), NULL);
    sdx_msgpack_writer mw;
    sdx_msgpack_writer_init(&mw, &mp, NULL);
    CHECK_EQ_INT(test_pump(sdx_bson_reader_source(r), sdx_msgpack_writer_sink(&mw)), SDX_OK);
    sdx_bson_reader_free(r);
    jr = sdx_json_reader_new(j, n, NULL);
    sdx_msgpack_writer_init(&mw, &mp_direct, NULL);
    CHECK_EQ_INT(test_pump(sdx_json_reader_source(jr), sdx_msgpack_writer_sink(&mw)), SDX_OK);
    sdx_json_reader_free(jr);
    SAME(&mp, &mp_direct);
    sdx_buf_destroy(&json0);
    sdx_buf_destroy(&bson);
    sdx_buf_destroy(&json1);
    sdx_buf_destroy(&mp);
    sdx_buf_destroy(&mp_direct);
    free(j);
}

TEST(corpus) {
    static const char *const names[] = {"twitter.json", "citm_catalog.json", "canada.json"};
    const char *dir = getenv("SDX_CORPUS");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        corpus_one(dir && *dir ? dir : SDX_CORPUS_DIR, names[i]);
}

/* A random value of the shared types (binary only when `bin`). */
static void gen_value(sdx_bson_writer *w, uint64_t *st, int depth, int bin) {
    uint64_t r = test_rand(st);
    switch ((r >> 8) % (depth > 4 ? 8 : 10)) {
    case 0: sdx_bson_writer_int(w, (int64_t)test_rand(st) >> (r % 64)); break; /* int32 or int64 */
    case 1: {
        uint64_t b = test_rand(st);
        double d;
        memcpy(&d, &b, 8);
        if (d != d || d - d != 0) d = -0.0; /* JSON has no NaN or infinity */
        sdx_bson_writer_double(w, r & 1 ? d : (double)(int)(b % 2000) / 16);
        break;
    }
    case 2: { /* cut only between characters */
        static const size_t cut[] = {0, 1, 2, 5, 7, 8};
        sdx_bson_writer_string(w, "a\0caf\xc3\xa9\x7f", cut[r % 6]);
        break;
    }
    case 3: sdx_bson_writer_bool(w, r & 1); break;
    case 4: sdx_bson_writer_null(w); break;
    case 5:
        if (bin) sdx_bson_writer_binary(w, 0, "\0\1\2\3", (size_t)(r % 5));
        else sdx_bson_writer_int(w, INT64_MIN + (int64_t)(r % 3));
        break;
    case 6: sdx_bson_writer_int(w, (int32_t)r); break;
    case 7: sdx_bson_writer_string(w, "", 0); break;
    default: {
        int map = (r >> 20) & 1;
        uint64_t n = test_rand(st) % 5;
        if (map) sdx_bson_writer_begin_map(w, SDX_COUNT_UNKNOWN);
        else sdx_bson_writer_begin_array(w, SDX_COUNT_UNKNOWN);
        for (uint64_t i = 0; i < n; i++) {
            static const size_t cut[] = {0, 1, 3, 4};
            if (map) sdx_bson_writer_key(w, "k\xc3\xa9y", cut[test_rand(st) % 4]);
            gen_value(w, st, depth + 1, bin);
        }
        sdx_bson_writer_end(w);
        break;
    }
    }
}

TEST(generated) {
    uint64_t st = 1414;
    long rounds = (long)(1500 * test_scale());
    int ok = 1;
    for (long i = 0; i < rounds && ok; i++) {
        int bin = (int)(i & 1); /* JSON has no binary */
        sdx_buf in;
        sdx_buf_init(&in, NULL);
        sdx_bson_writer w;
        sdx_bson_writer_init(&w, &in, NULL);
        sdx_bson_writer_begin_map(&w, SDX_COUNT_UNKNOWN);
        uint64_t n = test_rand(&st) % 6;
        for (uint64_t k = 0; k < n; k++) {
            sdx_bson_writer_key(&w, "abc", (size_t)(k % 4));
            gen_value(&w, &st, 1, bin);
        }
        sdx_bson_writer_end(&w);
        ok &= CHECK_EQ_INT(sdx_bson_writer_finish(&w), SDX_OK);
        for (int f = bin ? FMT_MSGPACK : FMT_JSON; f < FMT_COUNT && ok; f++) ok &= through(f, &in);
        sdx_buf_destroy(&in);
    }
}

int main(int argc, char **argv) {
    return test_run(argc, argv, (test_case[]){{"corpus", corpus}, {"generated", generated}, {0, 0}});
}
