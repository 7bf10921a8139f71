/*
 * Helpers of the Extended JSON tests (test_bson_ejson.c, ejson_tool.c):
 * BSON -> Extended JSON and back through the mapping layer (map.h), each
 * input copied into an allocation of exactly its size so that a sanitizer
 * build sees any read past it.
 */
#ifndef SDX_EJSON_TEST_H
#define SDX_EJSON_TEST_H

#include <stdlib.h>
#include <string.h>

#include "sdx/sdx.h"

/* BSON bytes -> Extended JSON text in *out (initialized here; destroy it):
 * BSON reader -> sdx_map_to_json with `flags` -> JSON writer. `alloc` NULL
 * is the default allocator. Returns the first error. */
static inline sdx_err ejson_from_bson(const unsigned char *in, size_t n, uint32_t flags, const sdx_alloc *alloc,
                                      sdx_buf *out) {
    sdx_buf_init(out, alloc);
    unsigned char *copy = malloc(n ? n : 1);
    if (!copy) return SDX_ERR_NOMEM;
    if (n) memcpy(copy, in, n);
    sdx_bson_read_opts ro = {0, 0, 0, alloc};
    sdx_bson_reader *r = sdx_bson_reader_new((const char *)copy, n, &ro);
    if (!r) {
        free(copy);
        return SDX_ERR_NOMEM;
    }
    sdx_json_writer w;
    sdx_json_writer_init(&w, out, NULL);
    sdx_map_to_json m;
    sdx_map_opts mo = {flags, 0, 0, alloc};
    sdx_map_to_json_init(&m, sdx_json_writer_sink(&w), &mo);
    sdx_err rc = sdx_transcode(sdx_bson_reader_source(r), sdx_map_to_json_sink(&m), NULL);
    sdx_err fin = sdx_map_to_json_finish(&m); /* finishes the writer too */
    if (!rc) rc = fin;
    sdx_bson_reader_free(r);
    free(copy);
    return rc;
}

/* n bytes of Extended JSON -> BSON bytes in *out (initialized here;
 * destroy it): JSON reader -> sdx_map_from_json (SDX_MAP_TARGET_BSON) ->
 * BSON writer. Returns the first error. */
static inline sdx_err ejson_to_bson(const char *text, size_t n, const sdx_alloc *alloc, sdx_buf *out) {
    sdx_buf_init(out, alloc);
    char *copy = malloc(n ? n : 1);
    if (!copy) return SDX_ERR_NOMEM;
    if (n) memcpy(copy, text, n);
    sdx_json_read_opts jo = {0, 0, alloc};
    sdx_json_reader *r = sdx_json_reader_new(copy, n, &jo);
    if (!r) {
        free(copy);
        return SDX_ERR_NOMEM;
    }
    sdx_bson_writer w;
    sdx_bson_write_opts wo = {0, alloc};
    sdx_bson_writer_init(&w, out, &wo);
    sdx_map_from_json m;
    sdx_map_opts mo = {0, SDX_MAP_TARGET_BSON, 0, alloc};
    sdx_map_from_json_init(&m, sdx_bson_writer_sink(&w), &mo);
    sdx_err rc = sdx_transcode(sdx_json_reader_source(r), sdx_map_from_json_sink(&m), NULL);
    sdx_err fin = sdx_map_from_json_finish(&m); /* finishes the writer too */
    if (!rc) rc = fin;
    sdx_json_reader_free(r);
    free(copy);
    return rc;
}

#endif /* SDX_EJSON_TEST_H */
