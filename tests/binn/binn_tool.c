/*
 * sdx's side of the Binn differential test (tests/binn/differential.py),
 * the counterpart of tests/binn/rust (binn-ir):
 *
 *   binn_tool gen N SEED   N random documents written by sdx's writer
 *   binn_tool recode       each document read by sdx and written again
 *                          (odd ones through the reader and transcode,
 *                          even ones through the parser and the document)
 *   binn_tool dump         each document as canonical text, one a line
 *
 * Framing and the canonical text are those of tests/binn/rust/src/main.rs:
 * a 4-byte little-endian length and the bytes (0xffffffff: no document);
 * N T F, decimal integers, f<bits> d<bits>, s<hex>, b<hex>, t<type>:<hex>,
 * [list], {m key:value,...}, {o hexkey:value,...}, {} for an empty map.
 * The generator writes map keys sorted and unique, as binn-ir keeps them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/floatbits.h"
#include "sbuf.h"
#include "sdx/sdx.h"

#define NONE 0xffffffffu

static char *read_all(size_t *len) {
    size_t cap = 1 << 16, n = 0;
    char *p = malloc(cap);
    size_t got;
    while ((got = fread(p + n, 1, cap - n, stdin)) > 0) {
        n += got;
        if (n == cap) p = realloc(p, cap *= 2);
    }
    *len = n;
    return p;
}

static void put_frame(const void *d, size_t n, int none) {
    uint32_t len = none ? NONE : (uint32_t)n;
    unsigned char h[4] = {(unsigned char)len, (unsigned char)(len >> 8), (unsigned char)(len >> 16),
                          (unsigned char)(len >> 24)};
    fwrite(h, 1, 4, stdout);
    if (!none) fwrite(d, 1, n, stdout);
}

/* Calls fn for every frame of stdin (data NULL for "no document"). */
static void each_frame(void (*fn)(const char *d, size_t n, long i)) {
    size_t len;
    char *all = read_all(&len);
    size_t at = 0;
    long i = 0;
    while (len - at >= 4) {
        const unsigned char *h = (const unsigned char *)all + at;
        uint32_t n = (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 | (uint32_t)h[3] << 24;
        at += 4;
        if (n == NONE) {
            fn(NULL, 0, i++);
            continue;
        }
        if (n > len - at) break;
        fn(all + at, n, i++);
        at += n;
    }
    free(all);
}

/* ------------------------------------------------------------------------ */

static void hex(sbuf *s, const char *p, size_t n) {
    for (size_t i = 0; i < n; i++) sb_printf(s, "%02x", (unsigned char)p[i]);
}

static void dump_one(const char *d, size_t n, long i) {
    (void)i;
    sbuf s = {0};
    sb_puts(&s, "");
    int ok = 0;
    if (d) {
        sdx_binn_reader *r = sdx_binn_reader_new(d, n, NULL);
        sdx_event ev;
        /* Per depth: items so far, and whether the container is a map. */
        uint64_t items[1100];
        unsigned char map[1100];
        uint32_t depth = 0;
        items[0] = 0;
        map[0] = 0;
        while (sdx_binn_reader_next(r, &ev)) {
            if (ev.kind == SDX_END) {
                sb_puts(&s, map[depth] ? "}" : "]");
                depth--;
                continue;
            }
            bool key = map[depth] && !(items[depth] & 1);
            if (key) sb_puts(&s, items[depth] ? "," : ev.kind == SDX_KEY ? "o " : "m ");
            else if (!map[depth] && items[depth]) sb_puts(&s, ",");
            items[depth]++;
            uint32_t bits;
            uint64_t dbits;
            switch (ev.kind) {
            case SDX_NULL: sb_puts(&s, "N"); break;
            case SDX_BOOL: sb_puts(&s, ev.v.b ? "T" : "F"); break;
            case SDX_INT: sb_printf(&s, "%" PRId64, ev.v.i); break;
            case SDX_UINT: sb_printf(&s, "%" PRIu64, ev.v.u); break;
            case SDX_DOUBLE:
                if ((ev.flags & SDX_EVENT_FLOAT32) && sdx_double_to_float_exact(ev.v.d, &bits)) {
                    sb_printf(&s, "f%08" PRIx32, bits);
                } else {
                    memcpy(&dbits, &ev.v.d, 8);
                    sb_printf(&s, "d%016" PRIx64, dbits);
                }
                break;
            case SDX_STR:
            case SDX_BIN:
                if (ev.tag_kind == SDX_TAG_BINN) sb_printf(&s, "t%" PRIx64 ":", ev.tag);
                else sb_puts(&s, ev.kind == SDX_STR ? "s" : "b");
                hex(&s, ev.v.str.ptr, ev.v.str.len);
                break;
            case SDX_KEY: hex(&s, ev.v.str.ptr, ev.v.str.len); break;
            case SDX_ARRAY:
            case SDX_MAP:
                sb_puts(&s, ev.kind == SDX_MAP ? "{" : "[");
                depth++;
                items[depth] = 0;
                map[depth] = ev.kind == SDX_MAP;
                break;
            default: sb_printf(&s, "?%d", ev.kind); break;
            }
            if (key) sb_puts(&s, ":");
        }
        ok = sdx_binn_reader_error(r, NULL) == SDX_OK;
        sdx_binn_reader_free(r);
    }
    printf("%s\n", ok ? s.p : "ERROR");
    free(s.p);
}

static void recode_one(const char *d, size_t n, long i) {
    if (!d) {
        put_frame(NULL, 0, 1);
        return;
    }
    sdx_buf out;
    sdx_buf_init(&out, NULL);
    sdx_binn_writer w;
    sdx_binn_writer_init(&w, &out, NULL);
    sdx_err rc;
    if (i & 1) {
        sdx_binn_reader *r = sdx_binn_reader_new(d, n, NULL);
        rc = sdx_transcode(sdx_binn_reader_source(r), sdx_binn_writer_sink(&w), NULL);
        sdx_binn_reader_free(r);
    } else {
        sdx_doc *doc = sdx_binn_parse(d, n, NULL, NULL);
        rc = doc ? sdx_node_emit(sdx_doc_root(doc), sdx_binn_writer_sink(&w)) : SDX_ERR_SYNTAX;
        sdx_doc_free(doc);
    }
    sdx_err fc = sdx_binn_writer_finish(&w);
    put_frame(sdx_buf_data(&out), sdx_buf_len(&out), rc || fc);
    sdx_buf_destroy(&out);
}

/* ------------------------------------------------------------------------ */
/* The generator                                                             */
/* ------------------------------------------------------------------------ */

static uint64_t rng;
static uint64_t next(void) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return rng >> 11;
}
static uint64_t below(uint64_t n) { return next() % n; }

/* Random UTF-8 text of up to `max` bytes into buf; returns its length. */
static size_t text(char *buf, size_t max) {
    static const char *pool[] = {"a", "z", "0", " ", "\"", "\\", "\x7f", "\xc3\xa9", "\xe2\x82\xac",
                                 "\xf0\x9d\x84\x9e", "\x01"};
    static const size_t lens[] = {0, 1, 5, 40, 130, 300};
    size_t want = lens[below(6)], n = 0;
    for (size_t i = 0; i < want; i++) {
        const char *c = pool[below(11)];
        size_t l = strlen(c);
        if (n + l > max) break;
        memcpy(buf + n, c, l);
        n += l;
    }
    return n;
}

typedef struct skey {
    char s[256];
    size_t n;
    int32_t i;
} skey;

static int cmp_str(const void *a, const void *b) {
    const skey *x = a, *y = b;
    int c = memcmp(x->s, y->s, x->n < y->n ? x->n : y->n);
    return c ? c : (x->n > y->n) - (x->n < y->n);
}
static int cmp_int(const void *a, const void *b) {
    const skey *x = a, *y = b;
    return (x->i > y->i) - (x->i < y->i);
}

static void value(sdx_binn_writer *w, int depth) {
    char buf[400];
    uint64_t x = next();
    switch (below(depth >= 4 ? 12 : 16)) {
    case 0: sdx_binn_writer_null(w); break;
    case 1: sdx_binn_writer_bool(w, true); break;
    case 2: sdx_binn_writer_bool(w, false); break;
    case 3: sdx_binn_writer_int(w, (int64_t)(x << 11 ^ next()) >> below(64)); break;
    case 4: sdx_binn_writer_uint(w, below(3) ? x >> below(53) : UINT64_MAX - below(3)); break;
    case 5: {
        float f;
        uint32_t b = (uint32_t)x;
        memcpy(&f, &b, 4);
        sdx_binn_writer_float(w, f);
        break;
    }
    case 6: {
        double d;
        uint64_t b = x << 11 ^ next();
        memcpy(&d, &b, 8);
        sdx_binn_writer_double(w, d);
        break;
    }
    case 7: sdx_binn_writer_string(w, buf, text(buf, sizeof buf)); break;
    case 8: {
        size_t n = below(200);
        for (size_t i = 0; i < n; i++) buf[i] = (char)next();
        sdx_binn_writer_blob(w, buf, n);
        break;
    }
    case 9: sdx_binn_writer_typed(w, SDX_BINN_DATE, "2026-11-24", 10); break;
    case 10: sdx_binn_writer_typed(w, SDX_BINN_DATETIME, buf, text(buf, sizeof buf)); break;
    case 11:
        if (below(2)) sdx_binn_writer_typed(w, SDX_BINN_TIME, "07:30:00", 8);
        else sdx_binn_writer_typed(w, SDX_BINN_DECIMAL, "-12.5e3", 7);
        break;
    case 12:
    case 13: {
        /* 150 elements (a count and size above 127) only at the top, to
         * keep documents small. */
        const uint64_t counts[] = {0, 3, depth == 0 ? 150 : 5};
        uint64_t n = counts[below(3)];
        sdx_binn_writer_begin_array(w, below(2) ? n : SDX_COUNT_UNKNOWN);
        for (uint64_t i = 0; i < n; i++) value(w, depth + 1);
        sdx_binn_writer_end(w);
        break;
    }
    default: {
        int ints = below(2) == 0;
        skey *keys = malloc(10 * sizeof *keys);
        size_t n = below(10), u = 0;
        for (size_t i = 0; i < n; i++) {
            keys[i].i = (int32_t)(uint32_t)next();
            /* At most 127 bytes: binn-ir reads longer keys' lengths as
             * size parameters (rust/src/main.rs). Keys of 128 to 255 bytes
             * are tested against the specification in test_binn_writer. */
            keys[i].n = text(keys[i].s, 127);
        }
        qsort(keys, n, sizeof *keys, ints ? cmp_int : cmp_str);
        for (size_t i = 0; i < n; i++)
            if (!u || (ints ? cmp_int : cmp_str)(&keys[u - 1], &keys[i])) keys[u++] = keys[i];
        sdx_binn_writer_begin_map(w, u);
        for (size_t i = 0; i < u; i++) {
            if (ints) sdx_binn_writer_map_key(w, keys[i].i);
            else sdx_binn_writer_key(w, keys[i].s, keys[i].n);
            value(w, depth + 1);
        }
        sdx_binn_writer_end(w);
        free(keys);
        break;
    }
    }
}

int main(int argc, char **argv) {
    if (argc >= 4 && strcmp(argv[1], "gen") == 0) {
        long n = atol(argv[2]);
        rng = strtoull(argv[3], NULL, 10) ^ 0x5851f42d4c957f2dull;
        for (long i = 0; i < n; i++) {
            sdx_buf out;
            sdx_buf_init(&out, NULL);
            sdx_binn_writer w;
            sdx_binn_writer_init(&w, &out, NULL);
            value(&w, 0);
            sdx_err rc = sdx_binn_writer_finish(&w);
            if (rc) {
                fprintf(stderr, "binn_tool gen: %s\n", sdx_strerror(rc));
                return 1;
            }
            put_frame(sdx_buf_data(&out), sdx_buf_len(&out), 0);
            sdx_buf_destroy(&out);
        }
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "recode") == 0) {
        each_frame(recode_one);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "dump") == 0) {
        each_frame(dump_one);
        return 0;
    }
    fprintf(stderr, "usage: binn_tool gen N SEED | recode | dump\n");
    return 2;
}
