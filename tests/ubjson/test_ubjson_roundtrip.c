/*
 * UBJSON and BJData round trips of the JSON corpus (twitter.json,
 * citm_catalog.json, canada.json; SDX_CORPUS_DIR, or the environment
 * variable SDX_CORPUS):
 *   JSON -> UBJSON (the JSON pull reader into the writer: plain
 *   containers) -> JSON by every path — the memory reader, a stream reader
 *   fed 4093 bytes at a time, the tree parser — gives back the minified
 *   document the JSON writer makes of it;
 *   the JSON tree parser's document (which knows counts) into the writer
 *   gives counted containers, which read back to the same JSON;
 *   the UBJSON document written again gives those bytes again.
 * In both dialects.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pump.h"
#include "sdx/sdx.h"
#include "test.h"

#ifndef SDX_CORPUS_DIR
#define SDX_CORPUS_DIR "."
#endif

typedef struct chunks {
    const char *p;
    size_t n;
} chunks;

static size_t chunk_read(void *ctx, void *buf, size_t cap) {
    chunks *c = ctx;
    size_t k = c->n < 4093 ? c->n : 4093;
    if (k > cap) k = cap;
    memcpy(buf, c->p, k);
    c->p += k;
    c->n -= k;
    return k;
}

/* UBJSON in `u` as minified JSON into `out` by the reader `r` (freed). */
static sdx_err to_json(sdx_ubjson_reader *r, sdx_buf *out) {
    sdx_json_writer jw;
    sdx_buf_init(out, NULL);
    sdx_json_writer_init(&jw, out, NULL);
    sdx_err e = test_pump(sdx_ubjson_reader_source(r), sdx_json_writer_sink(&jw));
    sdx_ubjson_reader_free(r);
    return e;
}

static void corpus_file(const char *dir, const char *file, int bj) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    size_t len = 0;
    char *json = test_read_file(path, &len);
    if (!CHECK(json != NULL)) {
        fprintf(stderr, "  cannot read %s\n", path);
        return;
    }
    sdx_ubjson_read_opts ro = {bj ? SDX_UBJSON_READ_BJDATA : 0, 0, 0, NULL};
    sdx_ubjson_write_opts wo = {bj ? SDX_UBJSON_WRITE_BJDATA : 0, NULL};
    sdx_buf min, u, back;
    sdx_json_writer jw;
    sdx_ubjson_writer uw;
    /* the minified JSON */
    sdx_buf_init(&min, NULL);
    sdx_json_writer_init(&jw, &min, NULL);
    sdx_json_reader *jr = sdx_json_reader_new(json, len, NULL);
    CHECK_EQ_INT(test_pump(sdx_json_reader_source(jr), sdx_json_writer_sink(&jw)), SDX_OK);
    sdx_json_reader_free(jr);
    /* JSON -> UBJSON through events */
    sdx_buf_init(&u, NULL);
    sdx_ubjson_writer_init(&uw, &u, &wo);
    jr = sdx_json_reader_new(json, len, NULL);
    CHECK_EQ_INT(test_pump(sdx_json_reader_source(jr), sdx_ubjson_writer_sink(&uw)), SDX_OK);
    sdx_json_reader_free(jr);
    CHECK(sdx_buf_len(&u) < len);
    /* back by the memory reader, a stream reader, the parser */
    CHECK_EQ_INT(to_json(sdx_ubjson_reader_new(sdx_buf_data(&u), sdx_buf_len(&u), &ro), &back), SDX_OK);
    if (!CHECK(test_same_buf(&back, &min))) fprintf(stderr, "  %s: memory reader\n", file);
    sdx_buf_destroy(&back);
    chunks c = {sdx_buf_data(&u), sdx_buf_len(&u)};
    CHECK_EQ_INT(to_json(sdx_ubjson_reader_new_stream(chunk_read, &c, 4096, &ro), &back), SDX_OK);
    if (!CHECK(test_same_buf(&back, &min))) fprintf(stderr, "  %s: stream reader\n", file);
    sdx_buf_destroy(&back);
    sdx_error e;
    sdx_doc *doc = sdx_ubjson_parse(sdx_buf_data(&u), sdx_buf_len(&u), &ro, &e);
    if (CHECK(doc != NULL)) {
        sdx_buf_init(&back, NULL);
        sdx_json_writer_init(&jw, &back, NULL);
        CHECK_EQ_INT(sdx_node_emit(sdx_doc_root(doc), sdx_json_writer_sink(&jw)), SDX_OK);
        CHECK_EQ_INT(sdx_json_writer_finish(&jw), SDX_OK);
        if (!CHECK(test_same_buf(&back, &min))) fprintf(stderr, "  %s: parser\n", file);
        sdx_buf_destroy(&back);
        /* the UBJSON document written again: counted containers now */
        sdx_buf counted, again;
        sdx_buf_init(&counted, NULL);
        sdx_ubjson_writer_init(&uw, &counted, &wo);
        CHECK_EQ_INT(sdx_node_emit(sdx_doc_root(doc), sdx_ubjson_writer_sink(&uw)), SDX_OK);
        CHECK_EQ_INT(sdx_ubjson_writer_finish(&uw), SDX_OK);
        CHECK_EQ_INT(to_json(sdx_ubjson_reader_new(sdx_buf_data(&counted), sdx_buf_len(&counted), &ro), &back),
                     SDX_OK);
        if (!CHECK(test_same_buf(&back, &min))) fprintf(stderr, "  %s: counted containers\n", file);
        sdx_buf_destroy(&back);
        /* the JSON parser's document gives the same counted bytes */
        sdx_doc *jdoc = sdx_json_parse(json, len, NULL, NULL);
        if (CHECK(jdoc != NULL)) {
            sdx_buf_init(&again, NULL);
            sdx_ubjson_writer_init(&uw, &again, &wo);
            CHECK_EQ_INT(sdx_node_emit(sdx_doc_root(jdoc), sdx_ubjson_writer_sink(&uw)), SDX_OK);
            CHECK_EQ_INT(sdx_ubjson_writer_finish(&uw), SDX_OK);
            if (!CHECK(test_same_buf(&again, &counted))) fprintf(stderr, "  %s: JSON document\n", file);
            sdx_buf_destroy(&again);
            sdx_doc_free(jdoc);
        }
        sdx_buf_destroy(&counted);
        sdx_doc_free(doc);
    }
    sdx_buf_destroy(&min);
    sdx_buf_destroy(&u);
    free(json);
}

static const char *corpus_dir(void) {
    const char *dir = getenv("SDX_CORPUS");
    return dir ? dir : SDX_CORPUS_DIR;
}

TEST(corpus_ubjson) {
    corpus_file(corpus_dir(), "twitter.json", 0);
    corpus_file(corpus_dir(), "citm_catalog.json", 0);
    corpus_file(corpus_dir(), "canada.json", 0);
}

TEST(corpus_bjdata) {
    corpus_file(corpus_dir(), "twitter.json", 1);
    corpus_file(corpus_dir(), "citm_catalog.json", 1);
    corpus_file(corpus_dir(), "canada.json", 1);
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){{"corpus_ubjson", corpus_ubjson}, {"corpus_bjdata", corpus_bjdata}, {0, 0}});
}
