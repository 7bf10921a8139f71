/*
 * Jansson 2.14 (Debian), JSON, Serialize: the json_t tree that json_loadb
 * made (in load, untimed; the flags of the Tree test) written back with
 * json_dumps(JSON_COMPACT) — Jansson's call for the text of a tree, as in
 * the Write test (objects in insertion order; doubles with "%.17g").
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "adapter.h"

static void *adapter_load(const char *data, size_t len) {
    json_error_t err;
    json_t *doc = json_loadb(data, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
    if (!doc) bench_error("%s (line %d, column %d, byte %d)", err.text, err.line, err.column, err.position);
    return doc;
}

static int adapter_serialize(void *doc, bench_emit_fn emit, void *ctx) {
    char *out = json_dumps(doc, JSON_COMPACT | JSON_ENCODE_ANY);
    if (!out) {
        bench_error("json_dumps failed");
        return 1;
    }
    emit(ctx, out, strlen(out));
    free(out); /* json_dumps allocates with Jansson's allocator: malloc by default */
    return 0;
}

static void adapter_unload(void *doc) { json_decref(doc); }

BENCH_SERIALIZE_ADAPTER("jansson", "C", "json", adapter_load, adapter_serialize, adapter_unload);
