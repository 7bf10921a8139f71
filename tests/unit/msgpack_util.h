/*
 * Helpers for the MessagePack tests: event lists (a document as the events
 * that make it up, strings owned), a random document generator that uses
 * every MessagePack type and size class, and hex.
 */
#ifndef SDX_MSGPACK_UTIL_H
#define SDX_MSGPACK_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdx/sdx.h"
#include "test.h"

/* ---- hex ---------------------------------------------------------------- */

/* Bytes from hex text ("c4 00", "c400" and "c4-00" all work); returns the
 * count. Aborts on bad input (a bug in the test). */
static inline size_t mp_unhex(const char *hex, unsigned char *out, size_t cap) {
    size_t n = 0;
    int hi = -1;
    for (const char *s = hex; *s; s++) {
        int v;
        if (*s >= '0' && *s <= '9') v = *s - '0';
        else if (*s >= 'a' && *s <= 'f') v = *s - 'a' + 10;
        else if (*s >= 'A' && *s <= 'F') v = *s - 'A' + 10;
        else if (*s == ' ' || *s == '-') continue;
        else abort();
        if (hi < 0) {
            hi = v;
        } else {
            if (n == cap) abort();
            out[n++] = (unsigned char)(hi << 4 | v);
            hi = -1;
        }
    }
    if (hi >= 0) abort();
    return n;
}

/* ---- event lists -------------------------------------------------------- */

typedef struct evlist {
    sdx_event *ev;
    size_t n, cap;
} evlist;

static inline void evlist_free(evlist *l) {
    for (size_t i = 0; i < l->n; i++) {
        uint8_t k = l->ev[i].kind;
        if (k == SDX_STR || k == SDX_BIN || k == SDX_KEY || k == SDX_RAW) free((void *)l->ev[i].v.str.ptr);
    }
    free(l->ev);
    l->ev = NULL;
    l->n = l->cap = 0;
}

/* Append a copy of ev (its bytes copied). */
static inline void evlist_push(evlist *l, const sdx_event *ev) {
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->ev = realloc(l->ev, l->cap * sizeof *l->ev);
        if (!l->ev) abort();
    }
    sdx_event e = *ev;
    if (e.kind == SDX_STR || e.kind == SDX_BIN || e.kind == SDX_KEY || e.kind == SDX_RAW) {
        char *p = malloc(e.v.str.len ? e.v.str.len : 1);
        if (!p) abort();
        if (e.v.str.len) memcpy(p, e.v.str.ptr, e.v.str.len);
        e.v.str.ptr = p;
    }
    l->ev[l->n++] = e;
}

static inline int event_equal(const sdx_event *a, const sdx_event *b) {
    if (a->kind != b->kind || a->flags != b->flags || a->tag_kind != b->tag_kind || a->tag != b->tag ||
        a->depth != b->depth)
        return 0;
    switch ((sdx_kind)a->kind) {
    case SDX_NULL:
    case SDX_END: return 1;
    case SDX_BOOL: return a->v.b == b->v.b;
    case SDX_INT: return a->v.i == b->v.i;
    case SDX_UINT: return a->v.u == b->v.u;
    case SDX_DOUBLE: return memcmp(&a->v.d, &b->v.d, 8) == 0;
    case SDX_ARRAY:
    case SDX_MAP: return a->v.count == b->v.count;
    default:
        return a->v.str.len == b->v.str.len &&
               (a->v.str.len == 0 || memcmp(a->v.str.ptr, b->v.str.ptr, a->v.str.len) == 0);
    }
}

/* Index of the first difference, or (size_t)-1 when equal. */
static inline size_t evlist_diff(const evlist *a, const evlist *b) {
    size_t n = a->n < b->n ? a->n : b->n;
    for (size_t i = 0; i < n; i++)
        if (!event_equal(&a->ev[i], &b->ev[i])) return i;
    return a->n == b->n ? (size_t)-1 : n;
}

/* Send every event to a sink; returns the first error. */
static inline sdx_err evlist_emit(const evlist *l, sdx_sink sink) {
    for (size_t i = 0; i < l->n; i++) {
        sdx_err e = sdx_sink_put(sink, &l->ev[i]);
        if (e) return e;
    }
    return SDX_OK;
}

/* ---- random documents --------------------------------------------------- */

typedef struct mp_gen {
    uint64_t rng;
    int max_depth;   /* deepest container level */
    int big;         /* also lengths and counts beyond 65535 (rarely) */
    int any_keys;    /* keys of every type, not only str */
    int py;          /* what Python's msgpack can hold: keys are str or int,
                        distinct within a map; ext types 0 to 127 and the
                        timestamp */
    size_t limit;    /* no new containers once the list has this many
                        events (0: 5000) */
} mp_gen;

static inline uint64_t mp_rand(mp_gen *g, uint64_t n) { return n ? test_rand(&g->rng) % n : 0; }

/* A length from every size class: tiny, fix limit, 8-, 16-, 32-bit. */
static inline size_t mp_gen_len(mp_gen *g, size_t fix_max) {
    static const size_t edges[] = {0, 1, 15, 16, 31, 32, 255, 256, 65535, 65536};
    switch (mp_rand(g, 8)) {
    case 0: return edges[mp_rand(g, g->big ? 10 : 8)];
    case 1: return fix_max + mp_rand(g, 3) - 1;
    case 2: return 32 + mp_rand(g, 300);
    default: return mp_rand(g, fix_max + 1);
    }
}

static inline void mp_gen_bytes(mp_gen *g, char *p, size_t n, int utf8) {
    static const char *const pieces[] = {"a", "Z", " ", "\"", "\\", "\x7f", "\xc3\xa9", "\xe2\x82\xac",
                                         "\xf0\x9f\x98\x80", "\xed\x9f\xbf", "\xef\xbf\xbd"};
    size_t i = 0;
    while (i < n) {
        if (!utf8) {
            p[i++] = (char)mp_rand(g, 256);
            continue;
        }
        const char *s = pieces[mp_rand(g, sizeof pieces / sizeof *pieces)];
        size_t k = strlen(s);
        if (k > n - i) s = "x", k = 1;
        memcpy(p + i, s, k);
        i += k;
    }
}

static inline void mp_gen_value(mp_gen *g, evlist *l, uint32_t depth, int key);

static inline void mp_gen_scalar(mp_gen *g, evlist *l, uint32_t depth, int key, int kind_pick) {
    sdx_event ev;
    memset(&ev, 0, sizeof ev);
    ev.depth = depth;
    static char buf[70000];
    static const int64_t ints[] = {0, 1, 127, 128, 255, 256, 65535, 65536, 4294967295ll, 4294967296ll,
                                   INT64_MAX, -1, -32, -33, -128, -129, -32768, -32769,
                                   -2147483648ll, -2147483649ll, INT64_MIN};
    switch (kind_pick) {
    case 0: ev.kind = SDX_NULL; break;
    case 1: ev.kind = SDX_BOOL; ev.v.b = mp_rand(g, 2); break;
    case 2:
        ev.kind = SDX_INT;
        if (mp_rand(g, 2)) {
            ev.v.i = ints[mp_rand(g, sizeof ints / sizeof *ints)];
        } else {
            uint64_t r = test_rand(&g->rng);
            ev.v.i = (int64_t)(r >> mp_rand(g, 64));
        }
        if (mp_rand(g, 2) && ev.v.i != INT64_MIN) ev.v.i = -ev.v.i;
        break;
    case 3:
        ev.kind = SDX_UINT;
        ev.v.u = (uint64_t)INT64_MAX + 1 + (test_rand(&g->rng) >> 1);
        break;
    case 4: {
        ev.kind = SDX_DOUBLE;
        uint64_t bits = test_rand(&g->rng);
        if (mp_rand(g, 4) == 0) {
            static const double ds[] = {0.0, -0.0, 1.5, 0.1, 1e300, -2.5e-310};
            memcpy(&bits, &ds[mp_rand(g, 6)], 8);
        }
        memcpy(&ev.v.d, &bits, 8);
        break;
    }
    case 5: { /* float 32 */
        ev.kind = SDX_DOUBLE;
        ev.flags = SDX_EVENT_FLOAT32;
        uint32_t fb = (uint32_t)test_rand(&g->rng);
        float f;
        memcpy(&f, &fb, 4);
        if (f != f) f = 1.25f; /* NaN payloads go through the writer's own tests */
        ev.v.d = (double)f;
        break;
    }
    case 6:
    case 7: {
        size_t n = mp_gen_len(g, 31);
        mp_gen_bytes(g, buf, n, 1);
        ev.kind = key ? SDX_KEY : SDX_STR;
        ev.v.str.ptr = buf;
        ev.v.str.len = n;
        break;
    }
    case 8: {
        size_t n = mp_gen_len(g, 31);
        mp_gen_bytes(g, buf, n, 0);
        ev.kind = SDX_BIN;
        ev.v.str.ptr = buf;
        ev.v.str.len = n;
        break;
    }
    case 9: { /* ext, the timestamp included */
        static const size_t sizes[] = {1, 2, 4, 8, 16, 0, 3, 17};
        size_t n = mp_rand(g, 2) ? sizes[mp_rand(g, 8)] : mp_gen_len(g, 20);
        int8_t type = (int8_t)(mp_rand(g, 256) - 128);
        if (g->py) type = mp_rand(g, 3) ? (int8_t)mp_rand(g, 128) : -1;
        if (type == -1) { /* a valid timestamp */
            static const size_t ts[] = {4, 8, 12};
            n = ts[mp_rand(g, 3)];
            mp_gen_bytes(g, buf, n, 0);
            if (n == 8) buf[0] = (char)(buf[0] & 0x37); /* nanoseconds < 10^9 */
            if (n == 12) buf[0] = (char)(buf[0] & 0x37);
        } else {
            mp_gen_bytes(g, buf, n, 0);
        }
        ev.kind = SDX_BIN;
        ev.tag_kind = SDX_TAG_MSGPACK_EXT;
        ev.tag = (uint64_t)(int64_t)type;
        ev.v.str.ptr = buf;
        ev.v.str.len = n;
        break;
    }
    }
    evlist_push(l, &ev);
}

static inline void mp_gen_value(mp_gen *g, evlist *l, uint32_t depth, int key) {
    int pick = (int)mp_rand(g, 14);
    if (key && !g->any_keys) pick = 6;
    if (((int)depth >= g->max_depth || l->n >= (g->limit ? g->limit : 5000)) && pick >= 10)
        pick = (int)mp_rand(g, 10);
    if (key && pick >= 10 && mp_rand(g, 4)) pick = (int)mp_rand(g, 10);
    if (pick < 10) {
        mp_gen_scalar(g, l, depth, key, pick);
        return;
    }
    sdx_event ev;
    memset(&ev, 0, sizeof ev);
    ev.depth = depth;
    ev.kind = pick < 12 ? SDX_ARRAY : SDX_MAP;
    size_t n = mp_rand(g, 3) ? mp_rand(g, 6) : mp_gen_len(g, 15);
    if (n > 300 && !(g->big && depth == 0)) n = 300;
    ev.v.count = n;
    evlist_push(l, &ev);
    int64_t base = (int64_t)mp_rand(g, 1000000) - 500000;
    for (size_t i = 0; i < n; i++) {
        if (ev.kind == SDX_MAP && g->py) { /* distinct str or int keys */
            sdx_event k;
            memset(&k, 0, sizeof k);
            k.depth = depth + 1;
            char name[48];
            if (mp_rand(g, 2)) {
                k.kind = SDX_INT;
                k.v.i = base + (int64_t)i;
            } else {
                size_t pre = mp_rand(g, 20);
                mp_gen_bytes(g, name, pre, 1);
                k.kind = SDX_KEY;
                k.v.str.ptr = name;
                k.v.str.len = pre + (size_t)snprintf(name + pre, sizeof name - pre, "#%zu", i);
            }
            evlist_push(l, &k);
        } else if (ev.kind == SDX_MAP) {
            mp_gen_value(g, l, depth + 1, 1);
        }
        mp_gen_value(g, l, depth + 1, 0);
    }
    memset(&ev, 0, sizeof ev);
    ev.kind = SDX_END;
    ev.depth = depth;
    evlist_push(l, &ev);
}

/* A random document into *l (appended). */
static inline void mp_gen_doc(mp_gen *g, evlist *l) { mp_gen_value(g, l, 0, 0); }

/* Encode an event list with the writer (default options) into *out (a
 * memory buffer the caller initialized). */
static inline sdx_err mp_write_events(const evlist *l, sdx_buf *out) {
    sdx_msgpack_writer w;
    sdx_msgpack_writer_init(&w, out, NULL);
    evlist_emit(l, sdx_msgpack_writer_sink(&w));
    return sdx_msgpack_writer_finish(&w);
}

/* Read every event; returns the reader's error. */
static inline sdx_err mp_read_events(sdx_msgpack_reader *r, evlist *l) {
    sdx_event ev;
    while (sdx_msgpack_reader_next(r, &ev)) evlist_push(l, &ev);
    return sdx_msgpack_reader_error(r, NULL);
}

/* A stream over memory, handing out `chunk` bytes per read. */
typedef struct mp_mem_stream {
    const char *p;
    size_t left, chunk;
    int fail_after; /* reads before an I/O error; -1 = never */
} mp_mem_stream;

static inline size_t mp_mem_read(void *ctx, void *buf, size_t cap) {
    mp_mem_stream *s = ctx;
    if (s->fail_after == 0) return (size_t)-1;
    if (s->fail_after > 0) s->fail_after--;
    size_t n = s->left < s->chunk ? s->left : s->chunk;
    if (n > cap) n = cap;
    memcpy(buf, s->p, n);
    s->p += n;
    s->left -= n;
    return n;
}

#endif /* SDX_MSGPACK_UTIL_H */
