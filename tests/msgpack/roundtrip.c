/*
 * MessagePack round trips.
 *
 * Corpus documents (twitter.json, citm_catalog.json, canada.json):
 *   JSON -> MessagePack -> JSON gives back the same minified document, by
 *   every path: the JSON pull reader into the MessagePack writer, then the
 *   MessagePack pull reader (memory and a stream) or the tree parser into
 *   the JSON writer; the JSON tree parser's document into the MessagePack
 *   writer gives the same bytes as the pull reader's events; and the
 *   MessagePack document written back as MessagePack gives those bytes
 *   again.
 * Generated documents (every type, ext values, float 32, keys of every
 *   type): MessagePack -> document -> MessagePack byte for byte, and JSON
 *   written from them through the mapping layer (SDX_MAP_TAGS_WRAP: ext
 *   values as timestamps or {"$ext":...}) with SDX_JSON_WRITE_STRINGIFY_KEYS
 *   | SDX_JSON_WRITE_BIN_BASE64 parses back as JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msgpack_util.h"
#include "pump.h"
#include "sdx/sdx.h"

static long passed, failed;

static void result(int ok, const char *what, const char *name) {
    if (ok) {
        passed++;
    } else {
        failed++;
        fprintf(stderr, "FAIL %s: %s\n", what, name);
    }
}

static void corpus(const char *dir, const char *file) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    size_t len;
    char *json = test_read_file(path, &len);
    if (!json) {
        fprintf(stderr, "cannot read %s\n", path);
        result(0, "read", file);
        return;
    }
    sdx_buf min, mp, back, tmp;
    sdx_buf_init(&min, NULL);
    sdx_buf_init(&mp, NULL);
    sdx_buf_init(&back, NULL);
    sdx_buf_init(&tmp, NULL);
    sdx_json_writer jw;
    sdx_msgpack_writer mw;

    /* the reference: JSON minified by the JSON reader and writer */
    sdx_json_reader *jr = sdx_json_reader_new(json, len, NULL);
    sdx_json_writer_init(&jw, &min, NULL);
    result(test_pump(sdx_json_reader_source(jr), sdx_json_writer_sink(&jw)) == SDX_OK, "minify", file);
    sdx_json_reader_free(jr);

    /* JSON -> MessagePack */
    jr = sdx_json_reader_new(json, len, NULL);
    sdx_msgpack_writer_init(&mw, &mp, NULL);
    result(test_pump(sdx_json_reader_source(jr), sdx_msgpack_writer_sink(&mw)) == SDX_OK, "to MessagePack", file);
    sdx_json_reader_free(jr);
    printf("roundtrip: %s: %zu bytes of JSON, %zu minified, %zu of MessagePack\n", file, len, sdx_buf_len(&min),
           sdx_buf_len(&mp));

    /* MessagePack -> JSON: reader over memory, reader over a stream */
    for (size_t chunk = 0; chunk <= 4096; chunk = chunk ? chunk * 64 : 1) {
        mp_mem_stream st = {sdx_buf_data(&mp), sdx_buf_len(&mp), chunk, -1};
        sdx_msgpack_reader *r = chunk ? sdx_msgpack_reader_new_stream(mp_mem_read, &st, chunk, NULL)
                                      : sdx_msgpack_reader_new(sdx_buf_data(&mp), sdx_buf_len(&mp), NULL);
        sdx_buf_clear(&back);
        sdx_json_writer_init(&jw, &back, NULL);
        sdx_err e = test_pump(sdx_msgpack_reader_source(r), sdx_json_writer_sink(&jw));
        sdx_msgpack_reader_free(r);
        result(e == SDX_OK && test_same_buf(&back, &min), chunk ? "back to JSON (stream reader)" : "back to JSON (reader)", file);
    }

    /* MessagePack -> document -> JSON, and -> MessagePack byte for byte */
    sdx_error err;
    sdx_doc *doc = sdx_msgpack_parse(sdx_buf_data(&mp), sdx_buf_len(&mp), NULL, &err);
    result(doc != NULL, "MessagePack tree parser", file);
    if (doc) {
        sdx_buf_clear(&back);
        sdx_json_writer_init(&jw, &back, NULL);
        sdx_err e = sdx_node_emit(sdx_doc_root(doc), sdx_json_writer_sink(&jw));
        e = e ? e : sdx_json_writer_finish(&jw);
        result(e == SDX_OK && test_same_buf(&back, &min), "back to JSON (tree parser)", file);
        sdx_buf_clear(&tmp);
        sdx_msgpack_writer_init(&mw, &tmp, NULL);
        e = sdx_node_emit(sdx_doc_root(doc), sdx_msgpack_writer_sink(&mw));
        e = e ? e : sdx_msgpack_writer_finish(&mw);
        result(e == SDX_OK && test_same_buf(&tmp, &mp), "MessagePack -> document -> MessagePack", file);
        sdx_doc_free(doc);
    }

    /* the JSON tree parser's document -> the same MessagePack */
    sdx_doc *jdoc = sdx_json_parse(json, len, NULL, &err);
    result(jdoc != NULL, "JSON tree parser", file);
    if (jdoc) {
        sdx_buf_clear(&tmp);
        sdx_msgpack_writer_init(&mw, &tmp, NULL);
        sdx_err e = sdx_node_emit(sdx_doc_root(jdoc), sdx_msgpack_writer_sink(&mw));
        e = e ? e : sdx_msgpack_writer_finish(&mw);
        result(e == SDX_OK && test_same_buf(&tmp, &mp), "JSON document -> MessagePack", file);
        sdx_doc_free(jdoc);
    }
    sdx_buf_destroy(&min);
    sdx_buf_destroy(&mp);
    sdx_buf_destroy(&back);
    sdx_buf_destroy(&tmp);
    free(json);
}

static void generated(int count) {
    mp_gen g = {77, 6, 0, 1, 0, 2000};
    int exact = 0, json_ok = 0;
    for (int d = 0; d < count; d++) {
        evlist l = {0};
        g.big = d % 100 == 99;
        mp_gen_doc(&g, &l);
        sdx_buf b, out;
        sdx_buf_init(&b, NULL);
        sdx_buf_init(&out, NULL);
        mp_write_events(&l, &b);
        sdx_doc *doc = sdx_msgpack_parse(sdx_buf_data(&b), sdx_buf_len(&b), NULL, NULL);
        if (doc) {
            sdx_msgpack_writer w;
            sdx_msgpack_writer_init(&w, &out, NULL);
            sdx_node_emit(sdx_doc_root(doc), sdx_msgpack_writer_sink(&w));
            exact += sdx_msgpack_writer_finish(&w) == SDX_OK && test_same_buf(&out, &b);
            /* JSON with every MessagePack-only value given a JSON form;
             * keys that are containers, bins or ext values stay errors */
            sdx_buf_clear(&out);
            sdx_json_writer jw;
            sdx_json_write_opts o = {SDX_JSON_WRITE_STRINGIFY_KEYS | SDX_JSON_WRITE_BIN_BASE64 |
                                         SDX_JSON_WRITE_NAN_AS_NULL | SDX_JSON_WRITE_REPLACE_INVALID_UTF8,
                                     0, NULL};
            sdx_json_writer_init(&jw, &out, &o);
            sdx_map_to_json map;
            sdx_map_opts mo = {SDX_MAP_TAGS_WRAP, 0, 0, NULL};
            sdx_map_to_json_init(&map, sdx_json_writer_sink(&jw), &mo);
            sdx_err e = sdx_node_emit(sdx_doc_root(doc), sdx_map_to_json_sink(&map));
            sdx_err f = sdx_map_to_json_finish(&map); /* finishes jw too */
            e = e ? e : f;
            if (e == SDX_OK) {
                sdx_doc *j = sdx_json_parse(sdx_buf_data(&out), sdx_buf_len(&out), NULL, NULL);
                json_ok += j != NULL;
                if (!j) result(0, "JSON form parses back", "generated");
                sdx_doc_free(j);
            } else {
                json_ok += e == SDX_ERR_KEY; /* a key JSON cannot have */
                if (e != SDX_ERR_KEY) result(0, "JSON form", "generated");
            }
            sdx_doc_free(doc);
        }
        sdx_buf_destroy(&b);
        sdx_buf_destroy(&out);
        evlist_free(&l);
    }
    printf("roundtrip: %d generated documents, %d byte-exact through the document, %d JSON forms\n", count, exact,
           json_ok);
    result(exact == count, "generated MessagePack -> document -> MessagePack", "generated");
    result(json_ok == count, "generated JSON forms", "generated");
}

int main(int argc, char **argv) {
    const char *dir = getenv("SDX_CORPUS");
    if (!dir) dir = argc > 1 ? argv[1] : SDX_CORPUS_DIR;
    corpus(dir, "twitter.json");
    corpus(dir, "citm_catalog.json");
    corpus(dir, "canada.json");
    generated(2000);
    printf("%ld passed, %ld failed\n", passed, failed);
    return failed || !passed ? 1 : 0;
}
