/*
 * Helpers shared by the tests of the benchmark harness's reference codecs:
 * small trees built by hand, decoding from an exact-size heap copy (so that
 * AddressSanitizer sees any read past the end), hashes of trees.
 */
#ifndef SDX_BENCH_TEST_H
#define SDX_BENCH_TEST_H

#include <stdarg.h>

#include "hash.h"
#include "ref.h"
#include "test.h"
#include "tree.h"

/* ---- trees by hand (freed with bt_free on the root; every node below is
 * copied into its parent's items) ---- */

static inline bt_node *tb_new(uint8_t type) {
    bt_node *n = calloc(1, sizeof *n);
    if (!n) abort();
    n->type = type;
    return n;
}
static inline bt_node *tb_null(void) { return tb_new(BT_NULL); }
static inline bt_node *tb_bool(int b) {
    bt_node *n = tb_new(BT_BOOL);
    n->v.b = b != 0;
    return n;
}
static inline bt_node *tb_int(int64_t i) {
    bt_node *n = tb_new(BT_INT);
    n->v.i = i;
    return n;
}
static inline bt_node *tb_uint(uint64_t u) {
    bt_node *n = tb_new(BT_UINT);
    n->v.u = u;
    return n;
}
static inline bt_node *tb_double(double d) {
    bt_node *n = tb_new(BT_DOUBLE);
    n->v.d = d;
    return n;
}
static inline bt_node *tb_strn(const char *s, size_t len) {
    bt_node *n = tb_new(BT_STR);
    char *p = malloc(len + 1);
    if (!p) abort();
    memcpy(p, s, len);
    p[len] = 0;
    n->v.str.ptr = p;
    n->v.str.len = len;
    return n;
}
static inline bt_node *tb_str(const char *s) { return tb_strn(s, strlen(s)); }

/* Move *child into items[i] and free the child's own box. */
static inline void tb_take(bt_node *items, size_t i, bt_node *child) {
    items[i] = *child;
    free(child);
}

/* tb_array(n, a, b, ...): an array of n nodes. */
static inline bt_node *tb_array(size_t n, ...) {
    bt_node *a = tb_new(BT_ARRAY);
    a->v.c.count = n;
    a->v.c.items = calloc(n ? n : 1, sizeof(bt_node));
    va_list ap;
    va_start(ap, n);
    for (size_t i = 0; i < n; i++) tb_take(a->v.c.items, i, va_arg(ap, bt_node *));
    va_end(ap);
    return a;
}

/* tb_map(n, "key", value, "key", value, ...): a map of n entries. */
static inline bt_node *tb_map(size_t n, ...) {
    bt_node *m = tb_new(BT_MAP);
    m->v.c.count = n;
    m->v.c.items = calloc(n ? 2 * n : 1, sizeof(bt_node));
    va_list ap;
    va_start(ap, n);
    for (size_t i = 0; i < n; i++) {
        const char *k = va_arg(ap, const char *);
        tb_take(m->v.c.items, 2 * i, tb_str(k));
        tb_take(m->v.c.items, 2 * i + 1, va_arg(ap, bt_node *));
    }
    va_end(ap);
    return m;
}

static inline uint64_t tree_hash(const bt_node *t) {
    sbh h;
    sbh_init(&h);
    bt_hash(t, &h);
    return sbh_final(&h);
}

/* Decode data[0, len) from an exact-size heap copy; 0 and the hash, or
 * non-zero and the message in err. */
static inline int decode_exact(const char *format, const void *data, size_t len, uint64_t *hash, char *err,
                               size_t errlen) {
    char *copy = malloc(len ? len : 1);
    if (!copy) abort();
    if (len) memcpy(copy, data, len);
    sbh h;
    sbh_init(&h);
    int rc = ref_decode(format, len ? copy : copy + 1, len, &h, err, errlen);
    free(copy);
    *hash = sbh_final(&h);
    return rc;
}

#endif /* SDX_BENCH_TEST_H */
