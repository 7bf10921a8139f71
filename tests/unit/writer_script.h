/* Scripts of writer calls for the tests that compare a writer's inline
 * fast paths (the macros of its header) with its exported functions:
 * random documents with calls out of place, run both ways into memory,
 * fixed buffers of every size and streams, which must give the same
 * results, errors and bytes (test_msgpack_writer.c, test_json_writer.c).
 * The writer's own part is a script_run_fn. */
#ifndef SDX_TEST_WRITER_SCRIPT_H
#define SDX_TEST_WRITER_SCRIPT_H

#include <string.h>

#include "sdx/buf.h"
#include "test.h"

/* One call of a script: which function, and its arguments. */
enum { OP_NULL, OP_BOOL, OP_INT, OP_UINT, OP_DOUBLE, OP_STR, OP_KEY, OP_ARRAY, OP_MAP, OP_END };

typedef struct op {
    int kind;
    uint64_t v;    /* the integer, the double's bits, the count */
    const char *s; /* strings and keys */
    size_t n;
} op;

/* Text for strings: plain ASCII, valid two-byte sequences (cut when a
 * length ends inside one), a byte that is never valid, and ASCII with
 * what JSON escapes ('"', '\\', '/', control characters) here and there. */
static char script_ascii[320], script_utf8[320], script_bad[320], script_esc[320];

static void script_texts_init(void) {
    static const char esc[] = "\"\\/\n\x01\x1f";
    for (size_t i = 0; i < sizeof script_ascii; i++) {
        script_ascii[i] = (char)('a' + i % 26);
        script_utf8[i] = (char)(i % 2 ? 0xa9 : 0xc3);
        script_bad[i] = (char)('a' + i % 26);
        script_esc[i] = i % 11 == 7 ? esc[i % (sizeof esc - 1)] : (char)('a' + i % 26);
    }
    script_utf8[0] = 'x';
    script_bad[9] = (char)0xff;
}

/* A random string: every length up to 40 (both sides of the inline limit
 * of 16) and a few long ones, ASCII mostly. */
static void script_text(uint64_t *rng, op *o) {
    uint64_t r = test_rand(rng);
    o->n = r % 8 == 0 ? 100 + (size_t)(r >> 8) % 200 : (size_t)(r >> 8) % 41;
    switch ((r >> 20) % 7) {
    case 0: o->s = script_utf8 + (r >> 24) % 2; break;
    case 1: o->s = script_bad + (r >> 24) % 10; break;
    case 2: o->s = script_esc + (r >> 24) % 11; break;
    default: o->s = script_ascii + (r >> 24) % 8;
    }
}

/* The integers, doubles and counts of every size class. */
static uint64_t script_number(uint64_t *rng) {
    uint64_t r = test_rand(rng);
    switch (r % 5) {
    case 0: return r >> 59;                           /* 0 to 31 */
    case 1: return (uint64_t)-(int64_t)(r >> 58);     /* -63 to 0 */
    case 2: return r >> (8 + (r >> 3) % 56);          /* any magnitude */
    case 3: return (uint64_t) - (int64_t)(r >> (8 + (r >> 3) % 56));
    default: return test_rand(rng);
    }
}

/* A random op of any kind (a key or an end anywhere). */
static void script_op(uint64_t *rng, op *o) {
    memset(o, 0, sizeof *o);
    o->kind = (int)(test_rand(rng) % 10);
    o->v = o->kind >= OP_ARRAY && o->kind <= OP_MAP ? test_rand(rng) % 20 : script_number(rng);
    script_text(rng, o);
}

/* A random value appended to ops[*n] (room for `cap`); the root is always
 * a container, and containers nest beyond the writer's inline frames. */
static void script_value(uint64_t *rng, op *ops, size_t *n, size_t cap, int depth) {
    if (*n + 2 >= cap) return;
    op *o = &ops[(*n)++];
    memset(o, 0, sizeof *o);
    uint64_t r = test_rand(rng);
    int container = depth == 0 ||
                    (depth < 40 && (r >> 8) % 8 < (depth < 3 ? 4u : depth > 33 ? 5u : 1u));
    if (!container) {
        o->kind = (int)((r >> 16) % 6);
        o->v = o->kind == OP_BOOL ? r >> 63 : script_number(rng);
        if (o->kind == OP_STR) script_text(rng, o);
        return;
    }
    int map = (r >> 24) & 1;
    uint64_t count = (r >> 32) % 5 == 0 ? 16 + (r >> 40) % 8 : (r >> 40) % 6;
    o->kind = map ? OP_MAP : OP_ARRAY;
    o->v = (r >> 48) % 8 == 0 ? SDX_COUNT_UNKNOWN : count;
    for (uint64_t i = 0; i < count && count < 100; i++) {
        if (map && *n + 2 < cap) {
            op *k = &ops[(*n)++];
            memset(k, 0, sizeof *k);
            k->kind = OP_KEY;
            script_text(rng, k);
        }
        script_value(rng, ops, n, cap, depth + 1);
    }
    if (*n < cap) {
        ops[*n].kind = OP_END;
        ops[(*n)++].n = 0;
    }
}

/* Start a writer with `flags` on b, run the script through the macros
 * (the inline paths) or, with `exported`, the exported functions, each
 * call's result into res[]; finish's returned. */
typedef sdx_err (*script_run_fn)(sdx_buf *b, uint32_t flags, const op *ops, size_t n, int exported,
                                 sdx_err *res);

static size_t script_sink(void *ctx, const void *data, size_t len) {
    sdx_buf *b = ctx;
    return sdx_buf_write(b, data, len) == SDX_OK ? len : 0;
}

/* The script both ways into a buffer of `kind` (0 memory, 1 fixed of `cap`
 * bytes, 2 stream of chunk `cap`): the same results, errors and bytes, and
 * nothing written past a fixed buffer. */
static int same_both_ways(script_run_fn run, const op *ops, size_t n, uint32_t flags, int kind, size_t cap) {
    static sdx_err res[2][4096];
    static char mem[2][8192 + 64];
    sdx_buf out[2], b[2];
    sdx_err fin[2];
    for (int way = 0; way < 2; way++) {
        memset(mem[way], 0x5a, sizeof mem[way]);
        sdx_buf_init(&out[way], NULL);
        if (kind == 0) sdx_buf_init(&b[way], NULL);
        else if (kind == 1) sdx_buf_init_fixed(&b[way], mem[way], cap);
        else sdx_buf_init_stream(&b[way], script_sink, &out[way], cap, NULL);
        fin[way] = run(&b[way], flags, ops, n, way, res[way]);
        if (kind != 2) sdx_buf_write(&out[way], sdx_buf_data(&b[way]), sdx_buf_len(&b[way]));
    }
    int ok = CHECK_EQ_INT(fin[0], fin[1]) &&
             CHECK(memcmp(res[0], res[1], n * sizeof res[0][0]) == 0) &&
             CHECK_MEM(sdx_buf_data(&out[0]), sdx_buf_len(&out[0]), sdx_buf_data(&out[1]),
                       sdx_buf_len(&out[1]));
    if (kind == 1)
        for (int way = 0; way < 2; way++)
            for (size_t k = cap; k < sizeof mem[way]; k++)
                if (mem[way][k] != 0x5a) {
                    ok = CHECK(!"written past the end");
                    break;
                }
    for (int way = 0; way < 2; way++) {
        sdx_buf_destroy(&b[way]);
        sdx_buf_destroy(&out[way]);
    }
    return ok;
}

/* Random scripts (with `flags[t % nflags]`), each with calls out of place
 * and then into fixed buffers of every size up to its output and streams. */
static void scripts_agree(script_run_fn run, const uint32_t *flag_sets, int nflags) {
    static op ops[4096];
    script_texts_init();
    uint64_t rng = 2026;
    int scripts = (int)(100 * test_scale());
    for (int t = 0; t < scripts; t++) {
        size_t cap = t % 4 == 0 ? 40 : 400 + (size_t)(test_rand(&rng) % 3000);
        size_t n = 0;
        /* now and then the value inside 40 levels of one-element arrays and
         * maps, beyond the writer's inline frames */
        int deep = t % 7 == 3 ? 40 : 0;
        for (int k = 0; k < deep; k++) {
            ops[n++] = (op){k % 2 ? OP_MAP : OP_ARRAY, 1, NULL, 0};
            if (k % 2) ops[n++] = (op){OP_KEY, 0, script_ascii, (size_t)k % 20};
        }
        script_value(&rng, ops, &n, cap, 0);
        for (int k = 0; k < deep; k++) ops[n++] = (op){OP_END, 0, NULL, 0};
        if (t % 5 == 4) script_value(&rng, ops, &n, cap, 0); /* a second root */
        uint32_t flags = flag_sets[t % nflags];
        /* one call out of place, a dozen times over (into memory and a
         * stream), then (odd t) once more for the buffers below */
        for (int m = 0; m < 12; m++) {
            size_t at = (size_t)(test_rand(&rng) % n);
            op keep = ops[at];
            script_op(&rng, &ops[at]);
            if (!same_both_ways(run, ops, n, flags, 0, 0) || !same_both_ways(run, ops, n, flags, 2, 5)) return;
            if (m < 11 || t % 2 == 0) ops[at] = keep;
        }
        if (!same_both_ways(run, ops, n, flags, 0, 0)) break;
        /* the whole output's size, then fixed buffers of every size up to
         * it (every 7th for large outputs) and streams */
        sdx_buf ref;
        sdx_buf_init(&ref, NULL);
        static sdx_err res[4096];
        run(&ref, flags, ops, n, 1, res);
        size_t len = sdx_buf_len(&ref);
        sdx_buf_destroy(&ref);
        if (len > 8192) len = 8192;
        size_t step = len > 600 ? 7 : 1;
        for (size_t c = 0; c <= len + 1; c += step)
            if (!same_both_ways(run, ops, n, flags, 1, c)) return;
        static const size_t chunks[] = {1, 3, 16, 100};
        for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++)
            if (!same_both_ways(run, ops, n, flags, 2, chunks[c])) return;
    }
}

#endif /* SDX_TEST_WRITER_SCRIPT_H */
