/*
 * libcbor 0.8, CBOR, Write: the streaming encoders (cbor_encode_uint,
 * cbor_encode_map_start, cbor_encode_string_start + the bytes, ...) into a
 * growable buffer.
 *
 * libcbor's other way to write is to build a cbor_item_t tree (one
 * allocation per item) and serialize it (cbor_serialize_alloc). Its
 * documentation offers encoding.h as the low-level API "to encode CBOR
 * objects on the fly", from logical values instead of cbor_item_t, the
 * client keeping the structure right: the natural fit for writing out an
 * existing in-memory structure, and without the per-item allocations.
 * Each encoder returns 0 when the buffer is too small; the buffer is grown
 * before each call (every head fits in 9 bytes) so that never happens.
 */
#include <cbor.h>
#include <stdlib.h>
#include <string.h>

#include "adapter.h"

typedef struct obuf {
    unsigned char *base;
    size_t len, cap;
} obuf;

static int grow(obuf *b, size_t n) {
    size_t ncap = b->cap ? 2 * b->cap : 4096;
    while (ncap - b->len < n) ncap *= 2;
    unsigned char *p = realloc(b->base, ncap);
    if (!p) return -1;
    b->base = p;
    b->cap = ncap;
    return 0;
}

static inline int reserve(obuf *b, size_t n) { return b->cap - b->len >= n ? 0 : grow(b, n); }

/* Append what an encoder call wrote (0 means it did not fit: an error). */
#define PUT(b, call)                                        \
    do {                                                    \
        if (reserve(b, 9)) return -1;                       \
        size_t put_n_ = (call);                             \
        if (!put_n_) return -1;                             \
        (b)->len += put_n_;                                 \
    } while (0)
#define AT(b) ((b)->base + (b)->len), ((b)->cap - (b)->len)

static int put_string(obuf *b, const char *p, size_t n) {
    PUT(b, cbor_encode_string_start(n, AT(b)));
    if (reserve(b, n)) return -1;
    if (n) memcpy(b->base + b->len, p, n);
    b->len += n;
    return 0;
}

static int encode_node(obuf *b, const bt_node *n) {
    switch (n->type) {
    case BT_NULL: PUT(b, cbor_encode_null(AT(b))); return 0;
    case BT_BOOL: PUT(b, cbor_encode_bool(n->v.b, AT(b))); return 0;
    case BT_INT:
        if (n->v.i >= 0) PUT(b, cbor_encode_uint((uint64_t)n->v.i, AT(b)));
        else PUT(b, cbor_encode_negint((uint64_t)(-1 - n->v.i), AT(b))); /* -1 - n */
        return 0;
    case BT_UINT: PUT(b, cbor_encode_uint(n->v.u, AT(b))); return 0;
    case BT_DOUBLE: PUT(b, cbor_encode_double(n->v.d, AT(b))); return 0;
    case BT_STR: return put_string(b, n->v.str.ptr, n->v.str.len);
    case BT_ARRAY:
        PUT(b, cbor_encode_array_start(n->v.c.count, AT(b)));
        for (size_t i = 0; i < n->v.c.count; i++)
            if (encode_node(b, &n->v.c.items[i])) return -1;
        return 0;
    case BT_MAP:
        PUT(b, cbor_encode_map_start(n->v.c.count, AT(b)));
        for (size_t i = 0; i < n->v.c.count; i++) {
            const bt_node *k = &n->v.c.items[2 * i];
            if (put_string(b, k->v.str.ptr, k->v.str.len)) return -1;
            if (encode_node(b, &n->v.c.items[2 * i + 1])) return -1;
        }
        return 0;
    }
    return -1;
}

static int cb_write(const bt_node *root, bench_emit_fn emit, void *ctx) {
    obuf b = {NULL, 0, 0};
    int r = encode_node(&b, root);
    if (!r) emit(ctx, b.base, b.len);
    else bench_error("an encoder failed (out of memory)");
    free(b.base);
    return r != 0;
}

const bench_adapter bench_adapter_def = {"libcbor", "C", "cbor", "write", cb_write, NULL};
