/*
 * json-c 0.16 (Debian), JSON, Write: json-c serializes its own json_object
 * tree, so the call builds one from the plain tree and prints it with
 * json_object_to_json_string_length(JSON_C_TO_STRING_PLAIN) — the _ext call
 * that also returns the length — minified; the text lives in the root
 * object's print buffer until json_object_put.
 * json-c has int64 and uint64 integers (0.14+). Doubles are printed with
 * "%.17g" (exact, not shortest); "/" is escaped as "\/" (json-c's default).
 *
 * Map entries are added with json_object_object_add_ex and the two flags
 * json-c documents for speed: JSON_C_OBJECT_ADD_KEY_IS_NEW (no duplicate
 * check; the keys of a plain-tree map are distinct) and
 * JSON_C_OBJECT_ADD_CONSTANT_KEY (the key is not copied; allowed for any
 * NUL-terminated key that outlives the object — the plain tree's keys are
 * NUL-terminated and do).
 */
#include <json-c/json.h>
#include <string.h>

#include "adapter.h"

static int build(const bt_node *n, json_object **out) {
    switch (n->type) {
    case BT_NULL: *out = NULL; return 0; /* json-c's null is the NULL object */
    case BT_BOOL: *out = json_object_new_boolean(n->v.b); break;
    case BT_INT: *out = json_object_new_int64(n->v.i); break;
    case BT_UINT: *out = json_object_new_uint64(n->v.u); break;
    case BT_DOUBLE: *out = json_object_new_double(n->v.d); break;
    case BT_STR: *out = json_object_new_string_len(n->v.str.ptr, (int)n->v.str.len); break;
    case BT_ARRAY: {
        json_object *arr = json_object_new_array_ext(n->v.c.count ? (int)n->v.c.count : 1);
        if (!arr) return 1;
        for (size_t i = 0; i < n->v.c.count; i++) {
            json_object *item;
            if (build(&n->v.c.items[i], &item) || json_object_array_add(arr, item) != 0) {
                json_object_put(arr);
                return 1;
            }
        }
        *out = arr;
        return 0;
    }
    case BT_MAP: {
        json_object *obj = json_object_new_object();
        if (!obj) return 1;
        for (size_t i = 0; i < n->v.c.count; i++) {
            const bt_node *k = &n->v.c.items[2 * i];
            json_object *val;
            if (build(&n->v.c.items[2 * i + 1], &val) ||
                json_object_object_add_ex(obj, k->v.str.ptr, val,
                                          JSON_C_OBJECT_ADD_KEY_IS_NEW | JSON_C_OBJECT_ADD_CONSTANT_KEY) != 0) {
                json_object_put(obj);
                return 1;
            }
        }
        *out = obj;
        return 0;
    }
    default: return 1;
    }
    return *out == NULL;
}

static int adapter_write(const bt_node *root, bench_emit_fn emit, void *ctx) {
    json_object *doc;
    if (build(root, &doc)) {
        bench_error("cannot build the json_object tree (out of memory)");
        return 1;
    }
    size_t len;
    const char *out = json_object_to_json_string_length(doc, JSON_C_TO_STRING_PLAIN, &len);
    if (out) emit(ctx, out, len);
    else bench_error("json_object_to_json_string_length failed (out of memory)");
    json_object_put(doc);
    return out == NULL;
}

const bench_adapter bench_adapter_def = {"json-c", "C", "json", "write", adapter_write, NULL};
