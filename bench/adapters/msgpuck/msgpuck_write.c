/*
 * msgpuck, MessagePack, Write: the mp_encode_* functions. msgpuck writes
 * into memory the caller provides and never checks its size (README); a
 * growable buffer is therefore sized before each call with the matching
 * mp_sizeof_* and doubled when it would overflow.
 */
#include <msgpuck.h>
#include <stdlib.h>

#include "adapter.h"

typedef struct obuf {
    char *base, *w, *end;
} obuf;

/* Room for n more bytes at b->w. */
static int reserve_slow(obuf *b, size_t n) {
    size_t used = (size_t)(b->w - b->base), cap = (size_t)(b->end - b->base);
    size_t ncap = cap ? 2 * cap : 4096;
    while (ncap - used < n) ncap *= 2;
    char *p = realloc(b->base, ncap);
    if (!p) return -1;
    b->base = p;
    b->w = p + used;
    b->end = p + ncap;
    return 0;
}

static inline int reserve(obuf *b, size_t n) {
    return (size_t)(b->end - b->w) >= n ? 0 : reserve_slow(b, n);
}

static int encode_node(obuf *b, const bt_node *n) {
    switch (n->type) {
    case BT_NULL:
        if (reserve(b, mp_sizeof_nil())) return -1;
        b->w = mp_encode_nil(b->w);
        return 0;
    case BT_BOOL:
        if (reserve(b, mp_sizeof_bool(n->v.b))) return -1;
        b->w = mp_encode_bool(b->w, n->v.b);
        return 0;
    case BT_INT:
        /* mp_encode_int is for negative numbers only (its precondition) */
        if (n->v.i >= 0) {
            if (reserve(b, mp_sizeof_uint((uint64_t)n->v.i))) return -1;
            b->w = mp_encode_uint(b->w, (uint64_t)n->v.i);
        } else {
            if (reserve(b, mp_sizeof_int(n->v.i))) return -1;
            b->w = mp_encode_int(b->w, n->v.i);
        }
        return 0;
    case BT_UINT:
        if (reserve(b, mp_sizeof_uint(n->v.u))) return -1;
        b->w = mp_encode_uint(b->w, n->v.u);
        return 0;
    case BT_DOUBLE:
        if (reserve(b, mp_sizeof_double(n->v.d))) return -1;
        b->w = mp_encode_double(b->w, n->v.d);
        return 0;
    case BT_STR:
        if (reserve(b, mp_sizeof_str((uint32_t)n->v.str.len))) return -1;
        b->w = mp_encode_str(b->w, n->v.str.ptr, (uint32_t)n->v.str.len);
        return 0;
    case BT_ARRAY:
        if (reserve(b, mp_sizeof_array((uint32_t)n->v.c.count))) return -1;
        b->w = mp_encode_array(b->w, (uint32_t)n->v.c.count);
        for (size_t i = 0; i < n->v.c.count; i++)
            if (encode_node(b, &n->v.c.items[i])) return -1;
        return 0;
    case BT_MAP:
        if (reserve(b, mp_sizeof_map((uint32_t)n->v.c.count))) return -1;
        b->w = mp_encode_map(b->w, (uint32_t)n->v.c.count);
        for (size_t i = 0; i < n->v.c.count; i++) {
            const bt_node *k = &n->v.c.items[2 * i];
            if (reserve(b, mp_sizeof_str((uint32_t)k->v.str.len))) return -1;
            b->w = mp_encode_str(b->w, k->v.str.ptr, (uint32_t)k->v.str.len);
            if (encode_node(b, &n->v.c.items[2 * i + 1])) return -1;
        }
        return 0;
    }
    return -1;
}

static int mp_write(const bt_node *root, bench_emit_fn emit, void *ctx) {
    obuf b = {NULL, NULL, NULL};
    int r = encode_node(&b, root);
    if (!r) emit(ctx, b.base, (size_t)(b.w - b.base));
    else bench_error("out of memory");
    free(b.base);
    return r != 0;
}

const bench_adapter bench_adapter_def = {"msgpuck", "C", "msgpack", "write", mp_write, NULL};
