/*
 * Tree files (SPEC.md, "Tree files"): "SBT1", then the root node in
 * pre-order. A node is a type byte (the bt_type values) followed by:
 *   BOOL: 1 byte; INT, UINT, DOUBLE: 8 bytes little-endian (DOUBLE: the
 *   IEEE 754 bits); STR: u32 length + bytes; ARRAY: u32 count + nodes;
 *   MAP: u32 count + (u32 key length + key bytes + node) per entry.
 */
#include "treefile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pages.h"

typedef struct out {
    FILE *f;
    int bad;
} out;

static void put_bytes(out *o, const void *p, size_t n) {
    if (n && fwrite(p, 1, n, o->f) != n) o->bad = 1;
}

static void put_le(out *o, uint64_t v, int n) {
    unsigned char b[8];
    for (int i = 0; i < n; i++) b[i] = (unsigned char)(v >> (8 * i));
    put_bytes(o, b, (size_t)n);
}

static void put_str(out *o, const char *p, size_t n) {
    if (n > UINT32_MAX) o->bad = 1;
    put_le(o, n, 4);
    put_bytes(o, p, n);
}

static void put_node(out *o, const bt_node *n) {
    unsigned char t = n->type;
    put_bytes(o, &t, 1);
    switch (n->type) {
    case BT_NULL: break;
    case BT_BOOL: put_le(o, n->v.b, 1); break;
    case BT_INT: put_le(o, (uint64_t)n->v.i, 8); break;
    case BT_UINT: put_le(o, n->v.u, 8); break;
    case BT_DOUBLE: {
        uint64_t bits;
        memcpy(&bits, &n->v.d, 8);
        put_le(o, bits, 8);
        break;
    }
    case BT_STR: put_str(o, n->v.str.ptr, n->v.str.len); break;
    case BT_ARRAY:
    case BT_MAP:
        put_le(o, n->v.c.count, 4);
        for (size_t i = 0; i < n->v.c.count; i++) {
            if (n->type == BT_MAP) {
                const bt_node *k = &n->v.c.items[2 * i];
                put_str(o, k->v.str.ptr, k->v.str.len);
                put_node(o, &n->v.c.items[2 * i + 1]);
            } else {
                put_node(o, &n->v.c.items[i]);
            }
        }
        break;
    }
}

int bt_write_file(const char *path, const bt_node *root) {
    out o = {fopen(path, "wb"), 0};
    if (!o.f) return -1;
    put_bytes(&o, "SBT1", 4);
    put_node(&o, root);
    if (fclose(o.f) != 0) o.bad = 1;
    return o.bad ? -1 : 0;
}

typedef struct in {
    const unsigned char *p, *end;
    int bad;
} in;

static uint64_t get_le(in *r, int n) {
    if (r->end - r->p < n) {
        r->bad = 1;
        return 0;
    }
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = v << 8 | r->p[i];
    r->p += n;
    return v;
}

static int get_str(in *r, bt_node *n) {
    uint64_t len = get_le(r, 4);
    if (r->bad || (uint64_t)(r->end - r->p) < len) return r->bad = 1, 0;
    n->type = BT_STR;
    n->v.str.ptr = bt_dup((const char *)r->p, len);
    r->p += len;
    n->v.str.len = len;
    return 1;
}

static int get_node(in *r, bt_node *n, int depth) {
    memset(n, 0, sizeof *n);
    if (depth > 10000 || r->p >= r->end) return r->bad = 1, 0;
    n->type = *r->p++;
    switch (n->type) {
    case BT_NULL: return 1;
    case BT_BOOL: n->v.b = get_le(r, 1) != 0; return !r->bad;
    case BT_INT: n->v.i = (int64_t)get_le(r, 8); return !r->bad;
    case BT_UINT: n->v.u = get_le(r, 8); return !r->bad;
    case BT_DOUBLE: {
        uint64_t bits = get_le(r, 8);
        memcpy(&n->v.d, &bits, 8);
        return !r->bad;
    }
    case BT_STR: return get_str(r, n);
    case BT_ARRAY:
    case BT_MAP: {
        uint64_t count = get_le(r, 4);
        size_t per = n->type == BT_MAP ? 2 : 1;
        /* every node takes at least one byte: a count beyond the bytes left is malformed */
        if (r->bad || count > (uint64_t)(r->end - r->p)) return r->bad = 1, 0;
        n->v.c.count = count;
        n->v.c.items = calloc(count ? count * per : 1, sizeof(bt_node));
        if (!n->v.c.items) abort();
        for (size_t i = 0; i < count; i++) {
            if (per == 2 && !get_str(r, &n->v.c.items[2 * i])) return 0;
            if (!get_node(r, &n->v.c.items[per * i + per - 1], depth + 1)) return 0;
        }
        return 1;
    }
    default: return r->bad = 1, 0;
    }
}

bt_node *bt_read_file(const char *path) {
    /* read into pages of its own, not the heap (pages.c says why) */
    size_t n;
    unsigned char *buf = (unsigned char *)bench_pages_file(path, &n, 0);
    if (!buf) {
        fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
        return NULL;
    }
    in r = {buf, buf + n, 0};
    bt_node *root = calloc(1, sizeof *root);
    if (!root) abort();
    int ok = n >= 4 && memcmp(buf, "SBT1", 4) == 0 && (r.p += 4, get_node(&r, root, 0)) && r.p == r.end;
    bench_pages_free(buf, n);
    if (!ok) {
        fprintf(stderr, "%s: not a valid tree file\n", path);
        bt_free(root);
        return NULL;
    }
    return root;
}
