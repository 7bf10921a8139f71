/*
 * libbson 1.23, BSON, Write: a bson_t on the stack (bson_init: inline
 * storage, then a growing heap buffer) filled with bson_append_*; nested
 * documents and arrays with bson_append_{document,array}_begin/_end, which
 * write into the parent's buffer. Array keys "0", "1", ... come from
 * bson_uint32_to_string, libbson's helper for exactly this.
 *
 * Integers are written as int32 where they fit, else int64 (what libbson's
 * users and most BSON encoders do). BSON has no uint64: the harness adapts
 * the tree so that none above INT64_MAX remain.
 */
#include <bson/bson.h>

#include "adapter.h"

static bool append_node(bson_t *b, const char *key, int key_len, const bt_node *n);

static bool append_children(bson_t *b, const bt_node *n) {
    if (n->type == BT_ARRAY) {
        char buf[16];
        for (size_t i = 0; i < n->v.c.count; i++) {
            const char *key;
            size_t kl = bson_uint32_to_string((uint32_t)i, &key, buf, sizeof buf);
            if (!append_node(b, key, (int)kl, &n->v.c.items[i])) return false;
        }
    } else {
        for (size_t i = 0; i < n->v.c.count; i++) {
            const bt_node *k = &n->v.c.items[2 * i];
            if (!append_node(b, k->v.str.ptr, (int)k->v.str.len, &n->v.c.items[2 * i + 1])) return false;
        }
    }
    return true;
}

static bool append_int(bson_t *b, const char *key, int kl, int64_t v) {
    if (v >= INT32_MIN && v <= INT32_MAX) return bson_append_int32(b, key, kl, (int32_t)v);
    return bson_append_int64(b, key, kl, v);
}

static bool append_node(bson_t *b, const char *key, int kl, const bt_node *n) {
    switch (n->type) {
    case BT_NULL: return bson_append_null(b, key, kl);
    case BT_BOOL: return bson_append_bool(b, key, kl, n->v.b);
    case BT_INT: return append_int(b, key, kl, n->v.i);
    case BT_UINT:
        if (n->v.u > (uint64_t)INT64_MAX) return false; /* BSON has no uint64 */
        return append_int(b, key, kl, (int64_t)n->v.u);
    case BT_DOUBLE: return bson_append_double(b, key, kl, n->v.d);
    case BT_STR: return bson_append_utf8(b, key, kl, n->v.str.ptr, (int)n->v.str.len);
    case BT_ARRAY: {
        bson_t child;
        return bson_append_array_begin(b, key, kl, &child) && append_children(&child, n) &&
               bson_append_array_end(b, &child);
    }
    case BT_MAP: {
        bson_t child;
        return bson_append_document_begin(b, key, kl, &child) && append_children(&child, n) &&
               bson_append_document_end(b, &child);
    }
    }
    return false;
}

static int bs_write(const bt_node *root, bench_emit_fn emit, void *ctx) {
    if (root->type != BT_MAP) { /* a BSON document is a map */
        bench_error("the root is not a map");
        return 1;
    }
    bson_t doc;
    bson_init(&doc);
    bool ok = append_children(&doc, root);
    if (ok) emit(ctx, bson_get_data(&doc), doc.len);
    else bench_error("a bson_append_* call failed (document over BSON's size limit, or a key with a NUL)");
    bson_destroy(&doc);
    return !ok;
}

const bench_adapter bench_adapter_def = {"libbson", "C", "bson", "write", bs_write, NULL};
