/*
 * The plain tree: freeing, counting, hashing, format adaptation, specs.
 */
#include "tree.h"

#include "gen.h"
#include "hash.h"
#include "treefile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *bt_dup(const char *s, size_t n) {
    char *p = malloc(n + 1);
    if (!p) abort();
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

static void free_node(bt_node *n) {
    if (n->type == BT_STR) free((void *)n->v.str.ptr);
    if (n->type == BT_ARRAY || n->type == BT_MAP) {
        size_t k = n->type == BT_MAP ? 2 * n->v.c.count : n->v.c.count;
        for (size_t i = 0; i < k; i++) free_node(&n->v.c.items[i]);
        free(n->v.c.items);
    }
}

void bt_free(bt_node *root) {
    if (!root) return;
    free_node(root);
    free(root);
}

size_t bt_count(const bt_node *n) {
    size_t total = 1;
    if (n->type == BT_ARRAY || n->type == BT_MAP) {
        size_t k = n->type == BT_MAP ? 2 * n->v.c.count : n->v.c.count;
        for (size_t i = 0; i < k; i++) total += bt_count(&n->v.c.items[i]);
    }
    return total;
}

void bt_hash(const bt_node *n, sbh *h) {
    switch (n->type) {
    case BT_NULL: sbh_null(h); break;
    case BT_BOOL: sbh_bool(h, n->v.b); break;
    case BT_INT: sbh_int(h, n->v.i); break;
    case BT_UINT: sbh_uint(h, n->v.u); break;
    case BT_DOUBLE: sbh_double(h, n->v.d); break;
    case BT_STR: sbh_str(h, n->v.str.ptr, n->v.str.len); break;
    case BT_ARRAY:
        sbh_array(h);
        for (size_t i = 0; i < n->v.c.count; i++) bt_hash(&n->v.c.items[i], h);
        sbh_end(h);
        break;
    case BT_MAP:
        sbh_map(h);
        for (size_t i = 0; i < n->v.c.count; i++) {
            const bt_node *k = &n->v.c.items[2 * i];
            sbh_key(h, k->v.str.ptr, k->v.str.len);
            bt_hash(&n->v.c.items[2 * i + 1], h);
        }
        sbh_end(h);
        break;
    }
}

void bt_hash_unordered(const bt_node *n, sbh *h) {
    switch (n->type) {
    case BT_ARRAY:
        sbh_array(h);
        for (size_t i = 0; i < n->v.c.count; i++) bt_hash_unordered(&n->v.c.items[i], h);
        sbh_end(h);
        break;
    case BT_MAP: {
        uint64_t sum = 0;
        for (size_t i = 0; i < n->v.c.count; i++) {
            const bt_node *k = &n->v.c.items[2 * i];
            sbh e;
            sbh_init(&e);
            sbh_key(&e, k->v.str.ptr, k->v.str.len);
            bt_hash_unordered(&n->v.c.items[2 * i + 1], &e);
            sum += sbh_final(&e);
        }
        sbh_unordered_map(h, sum, n->v.c.count);
        break;
    }
    default: bt_hash(n, h); break;
    }
}

static void adapt_big_uints(bt_node *n) {
    if (n->type == BT_UINT && n->v.u > (uint64_t)INT64_MAX) {
        n->type = BT_DOUBLE;
        n->v.d = (double)n->v.u;
    }
    if (n->type == BT_ARRAY || n->type == BT_MAP) {
        size_t k = n->type == BT_MAP ? 2 * n->v.c.count : n->v.c.count;
        for (size_t i = 0; i < k; i++) adapt_big_uints(&n->v.c.items[i]);
    }
}

void bt_adapt(const char *format, bt_node *root) {
    int bson = strcmp(format, "bson") == 0;
    if (bson || strcmp(format, "ubjson") == 0) adapt_big_uints(root);
    if (bson && root->type == BT_ARRAY) {
        size_t n = root->v.c.count;
        bt_node *items = calloc(n ? 2 * n : 1, sizeof(bt_node));
        if (!items) abort();
        for (size_t i = 0; i < n; i++) {
            char key[24];
            int len = snprintf(key, sizeof key, "%zu", i);
            items[2 * i].type = BT_STR;
            items[2 * i].v.str.ptr = bt_dup(key, (size_t)len);
            items[2 * i].v.str.len = (size_t)len;
            items[2 * i + 1] = root->v.c.items[i];
        }
        free(root->v.c.items);
        root->type = BT_MAP;
        root->v.c.items = items;
    }
}

bt_node *bt_from_spec(const char *spec) {
    if (strncmp(spec, "tree:", 5) == 0) return bt_read_file(spec + 5);
    if (strncmp(spec, "gen:", 4) == 0) {
        char *end;
        long size = strtol(spec + 4, &end, 10);
        unsigned long long seed = GEN_DEFAULT_SEED;
        gen_variant variant = GEN_STANDARD;
        int ok = *end == 0;
        if (*end == ':') {
            char *digits = end + 1;
            seed = strtoull(digits, &end, 10);
            /* a seed must have digits: "gen:2:" and "gen:2::extended" are bad */
            ok = end != digits && (*end == 0 || strcmp(end, ":extended") == 0);
            if (ok && *end) variant = GEN_EXTENDED;
        }
        if (ok && size >= GEN_MIN_SIZE && size <= GEN_MAX_SIZE) return gen_tree((int)size, seed, variant);
    }
    fprintf(stderr, "bad tree spec '%s' (want gen:SIZE[:SEED[:extended]] or tree:PATH)\n", spec);
    return NULL;
}
