/*
 * Deterministic schemaless data: see gen.h and SPEC.md. Every random draw
 * happens in the order SPEC.md gives, so the Rust port produces the same
 * tree; only integer arithmetic is used (doubles are built from bits).
 */
#include "gen.h"

#include <stdlib.h>
#include <string.h>

typedef struct rng {
    uint64_t s;
} rng;

/* splitmix64 */
static uint64_t next(rng *r) {
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t below(rng *r, uint64_t n) { return next(r) % n; }

static const uint64_t target_values[GEN_MAX_SIZE] = {30, 300, 3000, 30000, 300000};

uint64_t gen_target_values(int size) {
    return size >= GEN_MIN_SIZE && size <= GEN_MAX_SIZE ? target_values[size - 1] : 0;
}

static const char key_chars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
static const char text_chars[] = "abcdefghijklmnopqrstuvwxyz0123456789 ,.-_:!?";
static const char escape_chars[] = "\"\\\n\t\x01/";
/* U+00E9 U+00F1 U+00FC U+00DF U+4E2D U+6587 U+65E5 U+672C U+1F600 U+1F680 */
static const char *const non_ascii[] = {"\xC3\xA9",     "\xC3\xB1",     "\xC3\xBC",         "\xC3\x9F",
                                        "\xE4\xB8\xAD", "\xE6\x96\x87", "\xE6\x97\xA5",     "\xE6\x9C\xAC",
                                        "\xF0\x9F\x98\x80", "\xF0\x9F\x9A\x80"};

typedef struct text {
    char *p;
    size_t len, cap;
} text;

static void text_put(text *t, const char *s, size_t n) {
    if (t->len + n + 1 > t->cap) {
        t->cap = (t->len + n + 1) * 2;
        t->p = realloc(t->p, t->cap);
        if (!t->p) abort();
    }
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = 0;
}

static void set_str(bt_node *n, text *t) {
    n->type = BT_STR;
    n->v.str.ptr = t->p ? t->p : calloc(1, 1);
    n->v.str.len = t->len;
}

static void gen_string(rng *r, bt_node *out) {
    uint64_t k = below(r, 100);
    uint64_t len = k < 70 ? 1 + below(r, 16) : k < 95 ? 16 + below(r, 100) : 100 + below(r, 900);
    uint64_t mode = below(r, 100);
    int escapes = mode < 5, wide = mode >= 85;
    text t = {0};
    for (uint64_t i = 0; i < len; i++) {
        if (escapes && below(r, 10) == 0) {
            text_put(&t, &escape_chars[below(r, 6)], 1);
        } else if (wide && below(r, 4) == 0) {
            const char *c = non_ascii[below(r, 10)];
            text_put(&t, c, strlen(c));
        } else {
            text_put(&t, &text_chars[below(r, sizeof text_chars - 1)], 1);
        }
    }
    set_str(out, &t);
}

/* Keys already used in the map being built: an open-addressing set of the
 * key strings (whose storage never moves). */
typedef struct keyset {
    struct {
        const char *p;
        size_t n;
    } *slot;
    size_t cap, used;
} keyset;

static uint64_t key_hash(const char *p, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
    return h;
}

/* Add p[0, n); 0 if it was there already. */
static int keyset_add(keyset *s, const char *p, size_t n) {
    if (2 * (s->used + 1) > s->cap) {
        keyset bigger = {0};
        bigger.cap = s->cap ? s->cap * 2 : 16;
        bigger.slot = calloc(bigger.cap, sizeof *bigger.slot);
        if (!bigger.slot) abort();
        for (size_t i = 0; i < s->cap; i++)
            if (s->slot[i].p) keyset_add(&bigger, s->slot[i].p, s->slot[i].n);
        free(s->slot);
        *s = bigger;
    }
    size_t i = key_hash(p, n) & (s->cap - 1);
    for (; s->slot[i].p; i = (i + 1) & (s->cap - 1))
        if (s->slot[i].n == n && memcmp(s->slot[i].p, p, n) == 0) return 0;
    s->slot[i].p = p;
    s->slot[i].n = n;
    s->used++;
    return 1;
}

/* A key not yet in the map: draw until one is new. */
static void gen_key(rng *r, bt_node *out, keyset *used) {
    for (;;) {
        uint64_t len = 2 + below(r, 9);
        text t = {0};
        for (uint64_t i = 0; i < len; i++) text_put(&t, &key_chars[below(r, 36)], 1);
        if (keyset_add(used, t.p, t.len)) {
            set_str(out, &t);
            return;
        }
        free(t.p);
    }
}

/* Growable list of a container's items. */
typedef struct items {
    bt_node *p;
    size_t len, cap;
} items;

static bt_node *items_add(items *it) {
    if (it->len == it->cap) {
        it->cap = it->cap ? it->cap * 2 : 8;
        it->p = realloc(it->p, it->cap * sizeof(bt_node));
        if (!it->p) abort();
    }
    bt_node *n = &it->p[it->len++];
    memset(n, 0, sizeof *n);
    return n;
}

/* The state of one tree's generation. */
typedef struct gen {
    rng r;
    uint64_t values; /* values generated so far (SPEC.md's `values`) */
    gen_variant variant;
} gen;

static void gen_value(gen *g, bt_node *out, uint64_t depth);

/* One map entry or array element of a container being built. */
static void gen_item(gen *g, items *it, int is_map, keyset *keys, uint64_t depth) {
    if (is_map) gen_key(&g->r, items_add(it), keys);
    bt_node *v = items_add(it);
    gen_value(g, v, depth);
}

static void finish_container(bt_node *out, items *it, int is_map) {
    out->type = is_map ? BT_MAP : BT_ARRAY;
    out->v.c.items = it->p ? it->p : calloc(1, sizeof(bt_node));
    out->v.c.count = is_map ? it->len / 2 : it->len;
}

/* The extended data's extreme values, e - 4 for e = below(12) from 4 to 11
 * (SPEC.md), as a type and the 8 bytes of v.u, v.i or v.d. */
static const struct {
    uint8_t type;
    uint64_t bits;
} extremes[8] = {
    {BT_UINT, 0xFFFFFFFFFFFFFFFFull},   /* UINT64_MAX */
    {BT_INT, 0x8000000000000000ull},    /* INT64_MIN */
    {BT_INT, 0x7FFFFFFFFFFFFFFFull},    /* INT64_MAX */
    {BT_DOUBLE, 0x8000000000000000ull}, /* -0.0 */
    {BT_DOUBLE, 0x0000000000000001ull}, /* the smallest subnormal */
    {BT_DOUBLE, 0x000FFFFFFFFFFFFFull}, /* the largest subnormal */
    {BT_DOUBLE, 0x0010000000000000ull}, /* the smallest normal */
    {BT_DOUBLE, 0x7FEFFFFFFFFFFFFFull}, /* DBL_MAX */
};

/* The 35 <= s < 38 branch, the only one where the variants differ: a
 * non-negative int64 in the standard data; in the extended data an integer
 * above INT64_MAX or an extreme value. */
static void gen_variant_branch(gen *g, bt_node *out) {
    rng *r = &g->r;
    if (g->variant == GEN_STANDARD) {
        out->type = BT_INT;
        out->v.i = (int64_t)(next(r) >> 1);
        return;
    }
    uint64_t e = below(r, 12);
    if (e < 4) {
        out->type = BT_UINT;
        out->v.u = next(r) | 0x8000000000000000ull;
    } else {
        out->type = extremes[e - 4].type;
        memcpy(&out->v, &extremes[e - 4].bits, 8);
    }
}

static void gen_value(gen *g, bt_node *out, uint64_t depth) {
    rng *r = &g->r;
    g->values++;
    if (below(r, 100) < 24 / depth) {
        int is_map = below(r, 2) == 0;
        uint64_t n = below(r, 4) == 0 ? below(r, 30) : below(r, 8);
        items it = {0};
        keyset keys = {0};
        for (uint64_t i = 0; i < n; i++) gen_item(g, &it, is_map, &keys, depth + 1);
        free(keys.slot);
        finish_container(out, &it, is_map);
        return;
    }
    uint64_t s = below(r, 100);
    if (s < 30) {
        out->type = BT_INT;
        out->v.i = (int64_t)below(r, 2000) - 200;
    } else if (s < 35) {
        out->type = BT_INT;
        out->v.i = (int64_t)next(r);
    } else if (s < 38) {
        gen_variant_branch(g, out);
    } else if (s < 50) {
        uint64_t sign = below(r, 2);
        uint64_t exponent = 1023 + below(r, 81) - 40;
        uint64_t mantissa = next(r) & 0xFFFFFFFFFFFFFull;
        uint64_t bits = sign << 63 | exponent << 52 | mantissa;
        out->type = BT_DOUBLE;
        memcpy(&out->v.d, &bits, 8);
    } else if (s < 58) {
        out->type = BT_BOOL;
        out->v.b = below(r, 2) == 1;
    } else if (s < 62) {
        out->type = BT_NULL;
    } else {
        gen_string(r, out);
    }
}

bt_node *gen_tree(int size, uint64_t seed, gen_variant variant) {
    uint64_t target = gen_target_values(size);
    if (!target) return NULL;
    gen g = {{seed + (uint64_t)size * 0x632BE59BD9B4E019ull}, 0, variant};
    int is_map = below(&g.r, 2) == 0;
    items it = {0};
    keyset keys = {0};
    while (g.values < target) gen_item(&g, &it, is_map, &keys, 1);
    free(keys.slot);
    bt_node *root = calloc(1, sizeof *root);
    finish_container(root, &it, is_map);
    return root;
}
