/*
 * yyjson (the yyjson-sys crate's C source), JSON, Write: yyjson's writer serializes its mutable
 * document, so the call builds a yyjson_mut_doc from the plain tree and
 * writes it with yyjson_mut_write_opts (minified, into a buffer it
 * allocates; yyjson_mut_write without the error report).
 *
 * Strings and keys are added with yyjson_mut_strn, which references the
 * caller's bytes instead of copying them (documented: the bytes must outlive
 * the document — the plain tree does).
 */
#include <stdlib.h>

#include "adapter.h"
#include "yyjson.h"

static yyjson_mut_val *build(yyjson_mut_doc *doc, const bt_node *n) {
    switch (n->type) {
    case BT_NULL: return yyjson_mut_null(doc);
    case BT_BOOL: return yyjson_mut_bool(doc, n->v.b);
    case BT_INT: return yyjson_mut_sint(doc, n->v.i);
    case BT_UINT: return yyjson_mut_uint(doc, n->v.u);
    case BT_DOUBLE: return yyjson_mut_real(doc, n->v.d);
    case BT_STR: return yyjson_mut_strn(doc, n->v.str.ptr, n->v.str.len);
    case BT_ARRAY: {
        yyjson_mut_val *arr = yyjson_mut_arr(doc);
        if (!arr) return NULL;
        for (size_t i = 0; i < n->v.c.count; i++) {
            yyjson_mut_val *item = build(doc, &n->v.c.items[i]);
            if (!item || !yyjson_mut_arr_append(arr, item)) return NULL;
        }
        return arr;
    }
    case BT_MAP: {
        yyjson_mut_val *obj = yyjson_mut_obj(doc);
        if (!obj) return NULL;
        for (size_t i = 0; i < n->v.c.count; i++) {
            const bt_node *k = &n->v.c.items[2 * i];
            yyjson_mut_val *key = yyjson_mut_strn(doc, k->v.str.ptr, k->v.str.len);
            yyjson_mut_val *val = build(doc, &n->v.c.items[2 * i + 1]);
            /* yyjson_mut_obj_add appends without looking for the key */
            if (!key || !val || !yyjson_mut_obj_add(obj, key, val)) return NULL;
        }
        return obj;
    }
    }
    return NULL;
}

static int adapter_write(const bt_node *root, bench_emit_fn emit, void *ctx) {
    yyjson_mut_doc *doc = yyjson_mut_doc_new(NULL);
    if (!doc) {
        bench_error("yyjson_mut_doc_new: out of memory");
        return 1;
    }
    yyjson_mut_val *r = build(doc, root);
    int bad = 1;
    if (!r) {
        bench_error("building the document: out of memory");
    } else {
        yyjson_mut_doc_set_root(doc, r);
        size_t len;
        yyjson_write_err err;
        char *out = yyjson_mut_write_opts(doc, YYJSON_WRITE_NOFLAG, NULL, &len, &err);
        if (out) {
            emit(ctx, out, len);
            free(out); /* allocated with the default allocator (malloc) */
            bad = 0;
        } else {
            bench_error("%s (code %u)", err.msg, (unsigned)err.code);
        }
    }
    yyjson_mut_doc_free(doc);
    return bad;
}

const bench_adapter bench_adapter_def = {"yyjson", "C", "json", "write", adapter_write, NULL};
