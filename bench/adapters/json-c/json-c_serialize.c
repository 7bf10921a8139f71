/*
 * json-c 0.16 (Debian), JSON, Serialize: the json_object tree that
 * json_tokener_parse_ex made (in load, untimed; as in the Tree test) written
 * back with json_object_to_json_string_length(JSON_C_TO_STRING_PLAIN) —
 * json_object_to_json_string_ext that also returns the length — minified.
 * json-c prints into the root object's own print buffer, which it resets
 * and reuses on every call; doubles are printed with "%.17g" (exact, not
 * shortest) and "/" as "\/", as in the Write test.
 */
#include <json-c/json.h>
#include <stdlib.h>

#include "adapter.h"

/* json-c's null is the NULL object: the document is a box around the root. */
typedef struct document {
    json_object *root;
} document;

static void *adapter_load(const char *data, size_t len) {
    if (len > (size_t)INT32_MAX) {
        bench_error("input longer than json-c's int length");
        return NULL;
    }
    json_tokener *tok = json_tokener_new();
    if (!tok) {
        bench_error("json_tokener_new: out of memory");
        return NULL;
    }
    json_object *root = json_tokener_parse_ex(tok, data, (int)len);
    enum json_tokener_error e = json_tokener_get_error(tok);
    if (e != json_tokener_success)
        bench_error("%s at byte %zu", json_tokener_error_desc(e), json_tokener_get_parse_end(tok));
    json_tokener_free(tok);
    document *d = e == json_tokener_success ? malloc(sizeof *d) : NULL;
    if (!d) {
        json_object_put(root);
        return NULL;
    }
    d->root = root;
    return d;
}

static int adapter_serialize(void *doc, bench_emit_fn emit, void *ctx) {
    size_t len;
    const char *out = json_object_to_json_string_length(((document *)doc)->root, JSON_C_TO_STRING_PLAIN, &len);
    if (!out) {
        bench_error("json_object_to_json_string_length failed (out of memory)");
        return 1;
    }
    emit(ctx, out, len);
    return 0;
}

static void adapter_unload(void *doc) {
    json_object_put(((document *)doc)->root);
    free(doc);
}

BENCH_SERIALIZE_ADAPTER("json-c", "C", "json", adapter_load, adapter_serialize, adapter_unload);
