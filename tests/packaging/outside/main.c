/*
 * A program outside the sdx tree, built against an installed sdx three ways
 * (tests/packaging/check.sh): CMake's find_package, pkg-config, and the
 * two-file amalgamation (compiled with -DUSE_AMALGAMATION). It converts a
 * JSON document to MessagePack and back through the document and prints
 * the result and the library's version.
 */
#ifdef USE_AMALGAMATION
#include "sdx.h"
#else
#include <sdx/sdx.h>
#endif

#include <stdio.h>
#include <string.h>

int main(void) {
    const char *text = "{\"name\":\"sdx\",\"n\":[1,-2,3.5,18446744073709551615],\"ok\":true}";
    sdx_error err;
    sdx_doc *doc = sdx_json_parse(text, strlen(text), NULL, &err);
    if (!doc) {
        fprintf(stderr, "parse: %s\n", err.msg);
        return 1;
    }
    sdx_buf mp;
    sdx_buf_init(&mp, NULL);
    sdx_msgpack_writer w;
    sdx_msgpack_writer_init(&w, &mp, NULL);
    sdx_msgpack_writer_node(&w, sdx_doc_root(doc));
    if (sdx_msgpack_writer_finish(&w) != SDX_OK) return 1;
    sdx_doc_free(doc);

    sdx_doc *back = sdx_msgpack_parse(sdx_buf_data(&mp), sdx_buf_len(&mp), NULL, &err);
    if (!back) {
        fprintf(stderr, "msgpack: %s\n", err.msg);
        return 1;
    }
    sdx_buf js;
    sdx_buf_init(&js, NULL);
    sdx_json_writer jw;
    sdx_json_writer_init(&jw, &js, NULL);
    sdx_json_writer_node(&jw, sdx_doc_root(back));
    if (sdx_json_writer_finish(&jw) != SDX_OK) return 1;
    printf("%s %zu %.*s\n", SDX_VERSION_STRING, sdx_buf_len(&mp), (int)sdx_buf_len(&js),
           (const char *)sdx_buf_data(&js));
    int same = sdx_buf_len(&js) == strlen(text) && memcmp(sdx_buf_data(&js), text, strlen(text)) == 0;
    sdx_doc_free(back);
    sdx_buf_destroy(&mp);
    sdx_buf_destroy(&js);
    return same ? 0 : 1;
}
