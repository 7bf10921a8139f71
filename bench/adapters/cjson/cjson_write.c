/*
 * cJSON 1.7.15 (Debian), JSON, Write: cJSON prints its own tree, so the
 * call builds a cJSON tree from the plain tree and prints it with
 * cJSON_PrintUnformatted (minified, into a buffer it allocates).
 *
 * cJSON's only number type is double (valueint is a saturated int copy):
 * every integer goes through cJSON_CreateNumber((double)...). cJSON then
 * prints a number whose double equals its int copy as an integer, else with
 * "%1.15g", or "%1.17g" when 15 digits do not round-trip. So integers beyond
 * 2^53 lose digits and integral doubles come out as integers: that is what
 * cJSON writes, and it fails verification.
 *
 * Strings and keys are passed by reference (cJSON_CreateStringReference,
 * cJSON_AddItemToObjectCS), which cJSON documents for strings that outlive
 * the cJSON tree — the plain tree's do; both need NUL-terminated text, which
 * the harness's strings are (cJSON has no calls that take a length).
 */
#include "cjson_common.h"

static cJSON *build(const bt_node *n) {
    switch (n->type) {
    case BT_NULL: return cJSON_CreateNull();
    case BT_BOOL: return cJSON_CreateBool(n->v.b);
    case BT_INT: return cJSON_CreateNumber((double)n->v.i);
    case BT_UINT: return cJSON_CreateNumber((double)n->v.u);
    case BT_DOUBLE: return cJSON_CreateNumber(n->v.d);
    case BT_STR: return cJSON_CreateStringReference(n->v.str.ptr);
    case BT_ARRAY: {
        cJSON *arr = cJSON_CreateArray();
        if (!arr) return NULL;
        for (size_t i = 0; i < n->v.c.count; i++) {
            cJSON *item = build(&n->v.c.items[i]);
            if (!item || !cJSON_AddItemToArray(arr, item)) {
                cJSON_Delete(item);
                cJSON_Delete(arr);
                return NULL;
            }
        }
        return arr;
    }
    case BT_MAP: {
        cJSON *obj = cJSON_CreateObject();
        if (!obj) return NULL;
        for (size_t i = 0; i < n->v.c.count; i++) {
            const bt_node *k = &n->v.c.items[2 * i];
            cJSON *val = build(&n->v.c.items[2 * i + 1]);
            if (!val || !cJSON_AddItemToObjectCS(obj, k->v.str.ptr, val)) {
                cJSON_Delete(val);
                cJSON_Delete(obj);
                return NULL;
            }
        }
        return obj;
    }
    }
    return NULL;
}

static int adapter_write(const bt_node *root, bench_emit_fn emit, void *ctx) {
    cJSON *doc = build(root);
    if (!doc) {
        bench_error("cannot build the cJSON tree (out of memory)");
        return 1;
    }
    int bad = cjson_print(doc, emit, ctx);
    cJSON_Delete(doc);
    return bad;
}

const bench_adapter bench_adapter_def = {"cjson", "C", "json", "write", adapter_write, NULL};
