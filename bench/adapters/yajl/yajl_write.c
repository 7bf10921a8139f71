/*
 * YAJL 2.1.0 (Debian), JSON, Write: the yajl_gen generator (minified, its
 * default), driven directly from the plain tree; its growable output buffer
 * is read with yajl_gen_get_buf.
 *
 * yajl_gen_integer takes a long long; an unsigned integer above INT64_MAX
 * goes through yajl_gen_number, YAJL's call for numbers given as text.
 * Doubles are printed by yajl_gen_double with "%.20g" (exact, not shortest).
 */
#include <inttypes.h>
#include <stdio.h>
#include <yajl/yajl_gen.h>

#include "adapter.h"

static yajl_gen_status gen_node(yajl_gen g, const bt_node *n) {
    yajl_gen_status st;
    switch (n->type) {
    case BT_NULL: return yajl_gen_null(g);
    case BT_BOOL: return yajl_gen_bool(g, n->v.b);
    case BT_INT: return yajl_gen_integer(g, (long long)n->v.i);
    case BT_UINT:
        if (n->v.u <= (uint64_t)INT64_MAX) return yajl_gen_integer(g, (long long)n->v.u);
        else {
            char num[24];
            int len = snprintf(num, sizeof num, "%" PRIu64, n->v.u);
            return yajl_gen_number(g, num, (size_t)len);
        }
    case BT_DOUBLE: return yajl_gen_double(g, n->v.d);
    case BT_STR: return yajl_gen_string(g, (const unsigned char *)n->v.str.ptr, n->v.str.len);
    case BT_ARRAY:
        if ((st = yajl_gen_array_open(g)) != yajl_gen_status_ok) return st;
        for (size_t i = 0; i < n->v.c.count; i++)
            if ((st = gen_node(g, &n->v.c.items[i])) != yajl_gen_status_ok) return st;
        return yajl_gen_array_close(g);
    case BT_MAP:
        if ((st = yajl_gen_map_open(g)) != yajl_gen_status_ok) return st;
        for (size_t i = 0; i < n->v.c.count; i++) {
            const bt_node *k = &n->v.c.items[2 * i];
            if ((st = yajl_gen_string(g, (const unsigned char *)k->v.str.ptr, k->v.str.len)) != yajl_gen_status_ok)
                return st;
            if ((st = gen_node(g, &n->v.c.items[2 * i + 1])) != yajl_gen_status_ok) return st;
        }
        return yajl_gen_map_close(g);
    }
    return yajl_gen_invalid_string;
}

static int adapter_write(const bt_node *root, bench_emit_fn emit, void *ctx) {
    yajl_gen g = yajl_gen_alloc(NULL);
    if (!g) {
        bench_error("yajl_gen_alloc: out of memory");
        return 1;
    }
    yajl_gen_status st = gen_node(g, root);
    if (st == yajl_gen_status_ok) {
        const unsigned char *buf;
        size_t len;
        st = yajl_gen_get_buf(g, &buf, &len);
        if (st == yajl_gen_status_ok) emit(ctx, buf, len);
    }
    int bad = st != yajl_gen_status_ok;
    if (bad) bench_error("yajl_gen_status %d", (int)st); /* yajl_gen.h: the status enum, no message text */
    yajl_gen_free(g);
    return bad;
}

const bench_adapter bench_adapter_def = {"yajl", "C", "json", "write", adapter_write, NULL};
