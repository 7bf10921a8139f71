/*
 * Jansson 2.14 (Debian), JSON, Write: Jansson serializes its own json_t
 * tree, so the call builds one from the plain tree and dumps it with
 * json_dumps(JSON_COMPACT) (jansson_common.h).
 *
 * Strings and keys are created with the *_nocheck variants, which Jansson
 * documents for text already known to be valid UTF-8 (the plain tree's is);
 * the checking variants would validate every string again. Doubles are
 * printed with "%.17g" (Jansson's default precision: exact, not shortest).
 *
 * Jansson's integers are json_int_t (long long): an unsigned integer above
 * INT64_MAX has no representation, and the call reports an error instead of
 * writing a wrong number.
 */
#include "jansson_common.h"

static json_t *build(const bt_node *n) {
    switch (n->type) {
    case BT_NULL: return json_null();
    case BT_BOOL: return json_boolean(n->v.b);
    case BT_INT: return json_integer((json_int_t)n->v.i);
    case BT_UINT: return n->v.u <= (uint64_t)INT64_MAX ? json_integer((json_int_t)n->v.u) : NULL;
    case BT_DOUBLE: return json_real(n->v.d);
    case BT_STR: return json_stringn_nocheck(n->v.str.ptr, n->v.str.len);
    case BT_ARRAY: {
        json_t *arr = json_array();
        if (!arr) return NULL;
        for (size_t i = 0; i < n->v.c.count; i++) {
            json_t *item = build(&n->v.c.items[i]);
            if (!item || json_array_append_new(arr, item) != 0) {
                json_decref(arr);
                return NULL;
            }
        }
        return arr;
    }
    case BT_MAP: {
        json_t *obj = json_object();
        if (!obj) return NULL;
        for (size_t i = 0; i < n->v.c.count; i++) {
            const bt_node *k = &n->v.c.items[2 * i];
            json_t *val = build(&n->v.c.items[2 * i + 1]);
            if (!val || json_object_setn_new_nocheck(obj, k->v.str.ptr, k->v.str.len, val) != 0) {
                json_decref(obj);
                return NULL;
            }
        }
        return obj;
    }
    }
    return NULL;
}

static int adapter_write(const bt_node *root, bench_emit_fn emit, void *ctx) {
    json_t *doc = build(root);
    if (!doc) {
        bench_error("cannot build the json_t tree (out of memory, or an integer above INT64_MAX)");
        return 1;
    }
    int bad = jansson_dump(doc, emit, ctx);
    json_decref(doc);
    return bad;
}

const bench_adapter bench_adapter_def = {"jansson", "C", "json", "write", adapter_write, NULL};
