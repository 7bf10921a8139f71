/*
 * The random document generator; see conf_gen.h.
 */
#include "conf_gen.h"

#include <string.h>

void conf_gen_init(conf_gen *g, uint64_t seed) {
    memset(g, 0, sizeof *g);
    g->rng = seed;
}

/* splitmix64 (S. Vigna, "An experimental exploration of Marsaglia's xorshift
 * generators, scrambled", 2016). */
uint64_t conf_gen_rand(conf_gen *g) {
    uint64_t z = (g->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A random number below n (n > 0). */
static uint64_t below(conf_gen *g, uint64_t n) { return conf_gen_rand(g) % n; }

/* ---- numbers ---- */

static const int64_t int_edges[] = {
    0, 1, -1, 9, 10, -10, 99, 100, -100, 127, 128, -128, 255, 256, 32767, -32768, 65535, 65536,
    INT32_MAX, INT32_MIN, (int64_t)UINT32_MAX, (int64_t)UINT32_MAX + 1,
    (INT64_C(1) << 53) - 1, INT64_C(1) << 53, (INT64_C(1) << 53) + 1, -(INT64_C(1) << 53),
    -(INT64_C(1) << 53) - 1, INT64_MAX, INT64_MAX - 1, INT64_MIN, INT64_MIN + 1,
    INT64_C(999999999999999999), INT64_C(1000000000000000000), -INT64_C(1000000000000000000),
    INT64_C(9223372036854775800), INT64_C(4294967297), INT64_C(1152921504606846976)};

static const uint64_t uint_edges[] = {
    (uint64_t)INT64_MAX + 1, (uint64_t)INT64_MAX + 2, UINT64_MAX, UINT64_MAX - 1,
    UINT64_C(10000000000000000000), UINT64_C(9999999999999999999), UINT64_C(10000000000000000001),
    UINT64_C(18446744073709551610), UINT64_C(12345678901234567890), UINT64_C(0x8000000000000001)};

static const double double_edges[] = {
    0.0, -0.0, 1.0, -1.0, 0.1, 0.5, 0.2, 0.3, 0.30000000000000004, 1.5, 2.0, 10.0, 100.0,
    123.456, -123.456, 1e15, 1e16, 1e17, 1e20, 1e21, 1e22, 1e23, 1e-5, 1e-6, 1e-7,
    123456789012345680000.0, 9007199254740992.0, 9007199254740994.0, 9007199254740991.0,
    9223372036854775808.0, 18446744073709551616.0, -9223372036854775808.0,
    0x1p-1074, -0x1p-1074, 0x0.fffffffffffffp-1022, 0x1p-1022, 0x1.fffffffffffffp+1023,
    -0x1.fffffffffffffp+1023, 1e308, 1e-308, 2.2250738585072014e-308, 4.9406564584124654e-324,
    1.7976931348623157e308, 5e-324, 3.141592653589793, 2.718281828459045, 1.0 / 3.0,
    0x1.0000000000001p0, 0x1.fffffffffffffp0, 4503599627370496.5, 0.000001, 0.0000001};

static int64_t gen_int(conf_gen *g) {
    if (below(g, 4) == 0) return int_edges[below(g, sizeof int_edges / sizeof *int_edges)];
    if (below(g, 5) == 0) { /* a power of ten, or one off it */
        int64_t p = 1;
        for (uint64_t k = below(g, 19); k > 0; k--) p *= 10;
        p += (int64_t)below(g, 3) - 1;
        return below(g, 2) ? -p : p;
    }
    uint64_t m = conf_gen_rand(g) >> below(g, 64); /* every magnitude equally */
    m >>= 1;                                      /* <= INT64_MAX */
    return below(g, 2) ? -(int64_t)m : (int64_t)m;
}

static uint64_t gen_uint(conf_gen *g) {
    if (below(g, 3) == 0) return uint_edges[below(g, sizeof uint_edges / sizeof *uint_edges)];
    return conf_gen_rand(g) | UINT64_C(1) << 63;
}

static double bits_to_double(uint64_t bits) {
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static double gen_double(conf_gen *g) {
    switch (below(g, 6)) {
    case 0: return double_edges[below(g, sizeof double_edges / sizeof *double_edges)];
    case 1: { /* a short decimal: what most real data holds */
        double v = (double)((int64_t)below(g, 2000001) - 1000000);
        for (uint64_t k = below(g, 10); k > 0; k--) v /= 10;
        return v;
    }
    case 2: /* integral, up to 2^62 */
        return (double)(int64_t)(conf_gen_rand(g) >> (2 + below(g, 62))) * (below(g, 2) ? -1 : 1);
    case 3: { /* random mantissa, exponent near 1 (both notations' borders) */
        uint64_t bits = conf_gen_rand(g) & 0x800fffffffffffffull;
        bits |= (uint64_t)(1023 - 80 + below(g, 160)) << 52;
        return bits_to_double(bits);
    }
    default: /* any finite bit pattern, subnormals included */
        for (;;) {
            uint64_t bits = conf_gen_rand(g);
            if (((bits >> 52) & 0x7ff) != 0x7ff) return bits_to_double(bits);
        }
    }
}

/* ---- strings ---- */

static const uint32_t cp_edges[] = {0x7F,   0x80,   0xA0,    0xFF,    0x7FF,    0x800,   0xFFF,
                                    0x1000, 0xD7FF, 0xE000,  0xFEFF,  0xFFFD,   0xFFFE,  0xFFFF,
                                    0x2028, 0x2029, 0x10000, 0x1D11E, 0x1F600,  0xFFFFF, 0x100000,
                                    0x10FFFD, 0x10FFFF};

static size_t put_utf8(char *o, uint32_t cp) {
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | cp >> 6), o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | cp >> 12), o[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | cp >> 18), o[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    o[2] = (char)(0x80 | (cp >> 6 & 0x3F)), o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

static uint32_t gen_code_point(conf_gen *g) {
    uint64_t r = below(g, 100);
    if (r < 60) return (uint32_t)(0x20 + below(g, 0x5F)); /* printable ASCII */
    if (r < 72) {                                          /* needs an escape, or might */
        static const char special[] = "\"\\/\b\f\n\r\t";
        uint64_t k = below(g, 3);
        if (k == 0) return (uint32_t)below(g, 0x20); /* any control character, NUL too */
        return (unsigned char)special[below(g, sizeof special - 1)];
    }
    if (r < 82) return (uint32_t)(0x80 + below(g, 0x800 - 0x80));
    if (r < 92) {
        uint32_t cp;
        do cp = (uint32_t)(0x800 + below(g, 0x10000 - 0x800));
        while (cp >= 0xD800 && cp <= 0xDFFF);
        return cp;
    }
    if (r < 97) return (uint32_t)(0x10000 + below(g, 0x110000 - 0x10000));
    return cp_edges[below(g, sizeof cp_edges / sizeof *cp_edges)];
}

/* Fill g->str with a random string of up to `max_cps` code points; returns
 * its length in bytes. */
static size_t gen_string(conf_gen *g, uint64_t max_cps) {
    uint64_t r = below(g, 100), n;
    if (r < 10) n = 0;
    else if (r < 60) n = 1 + below(g, 8);
    else if (r < 95) n = 9 + below(g, 32);
    else n = 41 + below(g, 160);
    if (n > max_cps) n = max_cps;
    size_t len = 0;
    for (uint64_t i = 0; i < n; i++) len += put_utf8(g->str + len, gen_code_point(g));
    return len;
}

/* ---- documents ---- */

typedef struct emit {
    conf_gen *g;
    sdx_sink sink;
    sdx_err err;
} emit;

static void put(emit *e, sdx_event *ev, uint32_t depth) {
    ev->depth = depth;
    if (e->err == SDX_OK) e->err = sdx_sink_put(e->sink, ev);
}

static void gen_scalar(emit *e, uint32_t depth) {
    conf_gen *g = e->g;
    sdx_event ev;
    memset(&ev, 0, sizeof ev);
    switch (below(g, 16)) {
    case 0: ev.kind = SDX_NULL; break;
    case 1: ev.kind = SDX_BOOL, ev.v.b = below(g, 2); break;
    case 2: case 3: case 4: ev.kind = SDX_INT, ev.v.i = gen_int(g); break;
    case 5: ev.kind = SDX_UINT, ev.v.u = gen_uint(g); break;
    case 6: case 7: case 8: case 9: ev.kind = SDX_DOUBLE, ev.v.d = gen_double(g); break;
    default:
        ev.kind = SDX_STR;
        ev.v.str.len = gen_string(g, 200);
        ev.v.str.ptr = g->str;
        break;
    }
    put(e, &ev, depth);
}

static void gen_key(emit *e, uint32_t depth) {
    conf_gen *g = e->g;
    sdx_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = SDX_KEY;
    if (below(g, 4) == 0) { /* a small pool, so that keys repeat */
        g->str[0] = (char)('a' + below(g, 3));
        ev.v.str.len = below(g, 2);
    } else {
        ev.v.str.len = gen_string(g, 24);
    }
    ev.v.str.ptr = g->str;
    put(e, &ev, depth);
}

static void gen_value(emit *e, uint32_t depth);

/* A container of random size; elements are generated while the budget lasts
 * (a declared count is then the real one). */
static void gen_container(emit *e, uint32_t depth, bool map) {
    conf_gen *g = e->g;
    uint64_t r = below(g, 100), n;
    if (r < 15) n = 0;
    else if (r < 75) n = 1 + below(g, 4);
    else n = 5 + below(g, 8);
    if (n > (uint64_t)(g->budget > 0 ? g->budget : 0)) n = (uint64_t)(g->budget > 0 ? g->budget : 0);
    g->budget -= (int)n;
    sdx_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = map ? SDX_MAP : SDX_ARRAY;
    ev.v.count = below(g, 2) ? n : SDX_COUNT_UNKNOWN;
    put(e, &ev, depth);
    for (uint64_t i = 0; i < n; i++) {
        if (map) gen_key(e, depth + 1);
        gen_value(e, depth + 1);
    }
    memset(&ev, 0, sizeof ev);
    ev.kind = SDX_END;
    put(e, &ev, depth);
}

static void gen_value(emit *e, uint32_t depth) {
    conf_gen *g = e->g;
    /* Containers get rarer with depth; none beyond 40 levels. */
    uint64_t container_pct = depth == 0 ? 80 : depth >= 40 ? 0 : 40 - depth;
    if (g->budget > 0 && below(g, 100) < container_pct) gen_container(e, depth, below(g, 2));
    else gen_scalar(e, depth);
}

/* A chain of `levels` single-element containers around a small document. */
static void gen_chain(emit *e, uint32_t depth, uint32_t levels) {
    if (levels == 0) {
        gen_value(e, depth);
        return;
    }
    conf_gen *g = e->g;
    bool map = below(g, 2);
    sdx_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = map ? SDX_MAP : SDX_ARRAY;
    ev.v.count = below(g, 2) ? 1 : SDX_COUNT_UNKNOWN;
    put(e, &ev, depth);
    if (map) gen_key(e, depth + 1);
    gen_chain(e, depth + 1, levels - 1);
    memset(&ev, 0, sizeof ev);
    ev.kind = SDX_END;
    put(e, &ev, depth);
}

sdx_err conf_gen_doc(conf_gen *g, sdx_sink sink) {
    emit e = {g, sink, SDX_OK};
    g->budget = 1 + (int)below(g, 60);
    if (below(g, 64) == 0) gen_chain(&e, 0, 33 + (uint32_t)below(g, 168));
    else gen_value(&e, 0);
    return e.err;
}

/* ---- the tee sink ---- */

static sdx_err tee_put(void *ctx, const sdx_event *ev) {
    tee_sink *t = ctx;
    sdx_err first = SDX_OK;
    for (int i = 0; i < t->n; i++) {
        sdx_err rc = sdx_sink_put(t->to[i], ev);
        if (first == SDX_OK) first = rc;
    }
    return first;
}

static sdx_err tee_finish(void *ctx) {
    tee_sink *t = ctx;
    sdx_err first = SDX_OK;
    for (int i = 0; i < t->n; i++) {
        sdx_err rc = sdx_sink_finish(t->to[i]);
        if (first == SDX_OK) first = rc;
    }
    return first;
}

static const sdx_sink_vt tee_vt = {tee_put, tee_finish};

sdx_sink tee_sink_sink(tee_sink *t) {
    sdx_sink s = {&tee_vt, t};
    return s;
}
