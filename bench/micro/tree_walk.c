/*
 * The Write test's walk alone: a harness adapter (adapter.h) that visits
 * the harness's tree with the recursion every C Write adapter uses (one
 * call per node, a switch on its type), reads every value and every
 * string's bytes, and emits an 8-byte sum instead of an encoding. No
 * writer can visit the tree for less in this harness; what a writer adds
 * to this is its stores and checks (bench/README.md, "Update, 2026-12-06,
 * seventh"). Not a suite program: its output is not an encoding, so
 * run.py could not verify it; time it beside the Write programs with
 * their serve mode. Build after `make bench` (the format only names the
 * tree's adaptation: BSON and UBJSON adapt the generated data):
 *
 *   cc -O3 -DNDEBUG -DWALK_FMT='"cbor"' -Ibench/harness -Iinclude \
 *      bench/harness/main.c bench/micro/tree_walk.c \
 *      build/bench/bench/libbench_harness.a -ldl -o /tmp/walk-cbor-write
 */
#include <string.h>

#include "adapter.h"

#ifndef WALK_FMT
#define WALK_FMT "cbor"
#endif

static uint64_t walk(const bt_node *n) {
    switch (n->type) {
    case BT_NULL: return 1;
    case BT_BOOL: return n->v.b;
    case BT_INT:
    case BT_UINT:
    case BT_DOUBLE: return n->v.u; /* the union's 8 bytes */
    case BT_STR: {
        /* whole words (a loop the compiler vectorizes), then the tail */
        const char *p = n->v.str.ptr;
        size_t len = n->v.str.len, i = 0;
        uint64_t s = len, x;
        for (; i + 8 <= len; i += 8) {
            memcpy(&x, p + i, 8);
            s += x;
        }
        for (; i < len; i++) s += (unsigned char)p[i];
        return s;
    }
    case BT_ARRAY:
    case BT_MAP: {
        const size_t items = n->type == BT_MAP ? 2 * n->v.c.count : n->v.c.count;
        uint64_t s = items;
        for (size_t i = 0; i < items; i++) s += walk(&n->v.c.items[i]);
        return s;
    }
    }
    return 0;
}

static int walk_write(const bt_node *root, bench_emit_fn emit, void *ctx) {
    uint64_t s = walk(root);
    emit(ctx, &s, sizeof s);
    return 0;
}

const bench_adapter bench_adapter_def = {
    .library = "walk", .language = "C", .format = WALK_FMT, .test = "write", .write = walk_write};
