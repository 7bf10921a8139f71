/*
 * The second bound beside the Write tables of the binary formats a writer
 * has to choose an encoding for (MessagePack, CBOR, UBJSON): the harness's
 * tree written straight into the format's bytes by a writer that checks
 * nothing. One test per value for room in its buffer (doubling with
 * realloc, as the libraries' growable buffers do), then the bytes; no
 * count, nesting, key or UTF-8 checks, no error path, no state but the
 * buffer. It walks the same tree with the same recursion as every C
 * writer's adapter and makes the encoding choices sdx makes with its
 * default options (RFC 8949 section 4.1 preferred serialization for CBOR,
 * float64 for MessagePack, counted containers for UBJSON), so its output
 * verifies like a writer's.
 *
 * Its time − hash is the floor of a writer over this harness: walking the
 * tree and storing the bytes. A writer that validates what it is given
 * (counts, nesting, UTF-8) can come close to it, not below it; a peer
 * that checks nothing is this program in another language.
 * Compiled once per format with -DBOUND_FMT=<name>.
 */
#include <stdlib.h>
#include <string.h>

#include "adapter.h"

#define BOUND_STR_(x) #x
#define BOUND_STR(x) BOUND_STR_(x)

/* The format as a constant (CMake defines BOUND_FMT_<name>), so that the
 * compiler keeps only its branches. */
enum { FMT_MSGPACK, FMT_CBOR, FMT_UBJSON };
#if defined(BOUND_FMT_msgpack)
#define FMT FMT_MSGPACK
#elif defined(BOUND_FMT_cbor)
#define FMT FMT_CBOR
#elif defined(BOUND_FMT_ubjson)
#define FMT FMT_UBJSON
#else
#error "BOUND_FMT_msgpack, BOUND_FMT_cbor or BOUND_FMT_ubjson"
#endif

typedef struct out {
    unsigned char *p, *end, *base;
    int failed;
} out;

/* Room for `need` more bytes; on failure the output is cut short and the
 * program reports it (the one error this bound has). */
static int room(out *o, size_t need) {
    if ((size_t)(o->end - o->p) >= need) return 1;
    size_t len = (size_t)(o->p - o->base), cap = (size_t)(o->end - o->base);
    cap = cap * 2 > len + need ? cap * 2 : len + need + 4096;
    unsigned char *b = realloc(o->base, cap);
    if (!b) {
        o->failed = 1;
        return 0;
    }
    o->base = b;
    o->p = b + len;
    o->end = b + cap;
    return 1;
}

static unsigned char *be(unsigned char *p, uint64_t v, int n) {
    for (int i = n - 1; i >= 0; i--) {
        p[i] = (unsigned char)v;
        v >>= 8;
    }
    return p + n;
}

/* MessagePack (the specification's formats): the smallest integer,
 * float 64, str/array/map in their smallest header. */
static unsigned char *mp_uint(unsigned char *p, uint64_t v) {
    if (v < 0x80) {
        *p = (unsigned char)v;
        return p + 1;
    }
    if (v <= 0xff) *p = 0xcc;
    else if (v <= 0xffff) *p = 0xcd;
    else if (v <= 0xffffffffu) *p = 0xce;
    else *p = 0xcf;
    return be(p + 1, v, v <= 0xff ? 1 : v <= 0xffff ? 2 : v <= 0xffffffffu ? 4 : 8);
}

static unsigned char *mp_int(unsigned char *p, int64_t v) {
    if (v >= 0) return mp_uint(p, (uint64_t)v);
    if (v >= -32) {
        *p = (unsigned char)v;
        return p + 1;
    }
    int n = v >= INT8_MIN ? 1 : v >= INT16_MIN ? 2 : v >= INT32_MIN ? 4 : 8;
    *p = n == 1 ? 0xd0 : n == 2 ? 0xd1 : n == 4 ? 0xd2 : 0xd3;
    return be(p + 1, (uint64_t)v, n);
}

static unsigned char *mp_head(unsigned char *p, uint64_t n, unsigned fix, unsigned fixmax,
                              unsigned c8, unsigned c16) {
    if (n < fixmax) {
        *p = (unsigned char)(fix | n);
        return p + 1;
    }
    if (c8 && n <= 0xff) {
        p[0] = (unsigned char)c8;
        p[1] = (unsigned char)n;
        return p + 2;
    }
    if (n <= 0xffff) {
        *p = (unsigned char)c16;
        return be(p + 1, n, 2);
    }
    *p = (unsigned char)(c16 + 1);
    return be(p + 1, n, 4);
}

/* CBOR (RFC 8949): heads in their shortest form (section 4.1), a double
 * as the shortest of float16, float32 and float64 that holds it exactly
 * (the bound's data has no NaN). */
static unsigned char *cb_head(unsigned char *p, unsigned major, uint64_t a) {
    if (a < 24) {
        *p = (unsigned char)(major | a);
        return p + 1;
    }
    int n = a <= 0xff ? 1 : a <= 0xffff ? 2 : a <= 0xffffffffu ? 4 : 8;
    *p = (unsigned char)(major | (n == 1 ? 24 : n == 2 ? 25 : n == 4 ? 26 : 27));
    return be(p + 1, a, n);
}

/* float16 bits of a float that a float16 holds exactly, else -1. */
static int f16_of(float f) {
    uint32_t b;
    memcpy(&b, &f, 4);
    uint32_t sign = (b >> 16) & 0x8000, exp = (b >> 23) & 0xff, man = b & 0x7fffff;
    if (exp == 0 && man == 0) return (int)sign;
    if (exp == 0xff) return man ? -1 : (int)(sign | 0x7c00);
    int e = (int)exp - 127;
    if (e > 15 || e < -24) return -1;
    if (e >= -14) return (man & 0x1fff) ? -1 : (int)(sign | (uint32_t)(e + 15) << 10 | man >> 13);
    /* subnormal half: value = m * 2^-24 with m < 1024 */
    uint32_t full = man | 0x800000;
    int shift = -e - 1; /* 14 .. 23: bits dropped below 2^-24, plus 13 */
    if (full & ((UINT32_C(1) << shift) - 1)) return -1;
    return (int)(sign | full >> shift);
}

static unsigned char *cb_double(unsigned char *p, double d) {
    uint64_t bits;
    memcpy(&bits, &d, 8);
    float f = (float)d;
    /* any of the low 29 significand bits set: more than a float32 holds */
    if ((bits & 0x1fffffff) == 0 && (double)f == d) {
        int h = f16_of(f);
        if (h >= 0) {
            *p = 0xf9;
            return be(p + 1, (uint64_t)h, 2);
        }
        uint32_t b;
        memcpy(&b, &f, 4);
        *p = 0xfa;
        return be(p + 1, b, 4);
    }
    *p = 0xfb;
    return be(p + 1, bits, 8);
}

/* UBJSON (Draft 12): the smallest integer type, D for doubles, counted
 * containers, strings as S and a length (C for one ASCII byte), keys
 * without their S. */
static unsigned char *ub_int(unsigned char *p, int64_t v) {
    if (v >= 0 && v <= 0xff) {
        p[0] = 'U';
        p[1] = (unsigned char)v;
        return p + 2;
    }
    if (v >= INT8_MIN && v < 0) {
        p[0] = 'i';
        p[1] = (unsigned char)v;
        return p + 2;
    }
    int n = v >= INT16_MIN && v <= INT16_MAX ? 2 : v >= INT32_MIN && v <= INT32_MAX ? 4 : 8;
    *p = n == 2 ? 'I' : n == 4 ? 'l' : 'L';
    return be(p + 1, (uint64_t)v, n);
}

static unsigned char *text(unsigned char *p, const char *s, size_t n, int key) {
    if (FMT == FMT_MSGPACK) p = mp_head(p, n, 0xa0, 32, 0xd9, 0xda);
    else if (FMT == FMT_CBOR) p = cb_head(p, 0x60, n);
    else if (!key && n == 1 && (unsigned char)s[0] < 0x80) { /* C: a one-byte ASCII string */
        p[0] = 'C';
        p[1] = (unsigned char)s[0];
        return p + 2;
    } else {
        if (!key) *p++ = 'S';
        p = ub_int(p, (int64_t)n);
    }
    memcpy(p, s, n);
    return p + n;
}

static void put(out *o, const bt_node *n) {
    if (!room(o, 16 + (n->type == BT_STR ? n->v.str.len : 0))) return;
    unsigned char *p = o->p;
    switch (n->type) {
    case BT_NULL: *p++ = FMT == FMT_MSGPACK ? 0xc0 : FMT == FMT_CBOR ? 0xf6 : 'Z'; break;
    case BT_BOOL:
        *p++ = FMT == FMT_MSGPACK ? (n->v.b ? 0xc3 : 0xc2)
               : FMT == FMT_CBOR  ? (n->v.b ? 0xf5 : 0xf4)
                                  : (n->v.b ? 'T' : 'F');
        break;
    case BT_INT:
        if (FMT == FMT_MSGPACK) p = mp_int(p, n->v.i);
        else if (FMT == FMT_CBOR)
            p = n->v.i < 0 ? cb_head(p, 0x20, ~(uint64_t)n->v.i) : cb_head(p, 0, (uint64_t)n->v.i);
        else p = ub_int(p, n->v.i);
        break;
    case BT_UINT:
        if (FMT == FMT_MSGPACK) p = mp_uint(p, n->v.u);
        else if (FMT == FMT_CBOR) p = cb_head(p, 0, n->v.u);
        else if (n->v.u <= INT64_MAX) p = ub_int(p, (int64_t)n->v.u);
        else { /* high-precision number: the decimal digits */
            char d[24];
            int k = 0;
            for (uint64_t u = n->v.u; u; u /= 10) d[k++] = (char)('0' + u % 10);
            *p++ = 'H';
            p = ub_int(p, k);
            while (k) *p++ = (unsigned char)d[--k];
        }
        break;
    case BT_DOUBLE:
        if (FMT == FMT_CBOR) p = cb_double(p, n->v.d);
        else {
            uint64_t b;
            memcpy(&b, &n->v.d, 8);
            *p = FMT == FMT_MSGPACK ? 0xcb : 'D';
            p = be(p + 1, b, 8);
        }
        break;
    case BT_STR: p = text(p, n->v.str.ptr, n->v.str.len, 0); break;
    case BT_ARRAY:
    case BT_MAP: {
        int map = n->type == BT_MAP;
        size_t count = n->v.c.count;
        if (FMT == FMT_MSGPACK) p = mp_head(p, count, map ? 0x80 : 0x90, 16, 0, map ? 0xde : 0xdc);
        else if (FMT == FMT_CBOR) p = cb_head(p, map ? 0xa0 : 0x80, count);
        else {
            p[0] = map ? '{' : '[';
            p[1] = '#';
            p = ub_int(p + 2, (int64_t)count);
        }
        o->p = p;
        for (size_t i = 0; i < count; i++) {
            if (map) {
                const bt_node *k = &n->v.c.items[2 * i];
                if (!room(o, 16 + k->v.str.len)) return;
                o->p = text(o->p, k->v.str.ptr, k->v.str.len, 1);
                put(o, &n->v.c.items[2 * i + 1]);
            } else {
                put(o, &n->v.c.items[i]);
            }
        }
        return;
    }
    }
    o->p = p;
}

static int write_unchecked(const bt_node *root, bench_emit_fn emit, void *ctx) {
    out o = {NULL, NULL, NULL, 0};
    put(&o, root);
    if (!o.failed) emit(ctx, o.base, (size_t)(o.p - o.base));
    else bench_error("out of memory");
    free(o.base);
    return o.failed;
}

const bench_adapter bench_adapter_def = {"unchecked", "C", BOUND_STR(BOUND_FMT), "write", write_unchecked,
                                         NULL};
