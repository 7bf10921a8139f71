/*
 * Jansson: the load and the dump the Tree, Write and Serialize adapters
 * share, so that every test reads and writes with the same flags.
 *
 * jansson_load: json_loadb with JSON_DECODE_ANY | JSON_ALLOW_NUL (any root
 * value, "\u0000" in strings: every valid JSON text); on failure the
 * json_error_t text and position go to bench_error.
 * jansson_dump: json_dumps(JSON_COMPACT | JSON_ENCODE_ANY) — Jansson's call
 * for "give me the text" (it collects the output in a growable buffer and
 * returns a malloc'd copy) — handed to emit.
 */
#ifndef BENCH_JANSSON_COMMON_H
#define BENCH_JANSSON_COMMON_H

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "adapter.h"

static json_t *jansson_load(const char *data, size_t len) {
    json_error_t err;
    json_t *doc = json_loadb(data, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
    if (!doc) bench_error("%s (line %d, column %d, byte %d)", err.text, err.line, err.column, err.position);
    return doc;
}

static int jansson_dump(const json_t *doc, bench_emit_fn emit, void *ctx) {
    char *out = json_dumps(doc, JSON_COMPACT | JSON_ENCODE_ANY);
    if (!out) {
        bench_error("json_dumps failed");
        return 1;
    }
    emit(ctx, out, strlen(out));
    free(out); /* json_dumps allocates with Jansson's allocator: malloc by default */
    return 0;
}

#endif
