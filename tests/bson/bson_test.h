/*
 * Helpers of the BSON tests: streams of one byte per read (trickle.h, step 1),
 * reading a whole input with a reader while writing its events back, a
 * document with every element type, deeply nested documents, bit flips,
 * the cases of the corpus data files.
 */
#ifndef SDX_BSON_TEST_H
#define SDX_BSON_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/endian.h"
#include "msgpack_util.h"
#include "sdx/sdx.h"
#include "trickle.h" /* the streams here give one byte per read: step 1 */

/* Read everything with r and write the events back with a writer of
 * flags `wflags`; returns the read error, else the writer's (SDX_OK when
 * both are clean), and leaves the output in *b (destroy it). */
static inline sdx_err reread(sdx_bson_reader *r, sdx_buf *b, uint32_t wflags) {
    sdx_bson_writer w;
    sdx_bson_write_opts o = {wflags, NULL};
    sdx_buf_init(b, NULL);
    sdx_bson_writer_init(&w, b, &o);
    sdx_event ev;
    while (sdx_bson_reader_next(r, &ev))
        if (sdx_bson_writer_put(&w, &ev)) break;
    sdx_err rc = sdx_bson_reader_error(r, NULL);
    sdx_err wc = sdx_bson_writer_finish(&w);
    return rc ? rc : wc;
}

/* A document with every element type and every binary subtype, written
 * with the writer from events (bsonspec.org 1.1). */
static inline size_t all_types(unsigned char *out, size_t cap) {
    static const char *hex =
        "01 6400 000000000000f03f"                       /* double 1.0 */
        "02 7300 04000000 610062 00"                     /* string "a\0b" */
        "03 6f00 0c000000 10 7800 ffffffff 00"           /* {x: -1} */
        "04 6100 0f000000 08 3000 01 0a 3100 ff 3200 00" /* [true, null, minkey] */
        "04 6200 08000000 0a 3500 00"                    /* array with key "5" */
        "05 6200 02000000 00 0102"                       /* binary 0 */
        "05 633100 02000000 01 0102"                       /* function */
        "05 633200 06000000 02 02000000 0102"              /* old binary */
        "05 633300 10000000 03 00112233445566778899aabbccddeeff"
        "05 633400 10000000 04 00112233445566778899aabbccddeeff"
        "05 633500 10000000 05 00112233445566778899aabbccddeeff"
        "05 633600 01000000 06 00"
        "05 633700 01000000 07 00"
        "05 633800 01000000 08 00"
        "05 633900 03000000 09 100000"
        "05 633a00 00000000 80"
        "06 7500"                                        /* undefined */
        "07 6900 0102030405060708090a0b0c"               /* ObjectId */
        "08 7400 00"                                     /* false */
        "09 7400 0100000000000080"                       /* datetime */
        "0a 6e00"                                        /* null */
        "0b 7200 615e00 696d00"                          /* regex /a^/im */
        "0c 7000 02000000 6200 0102030405060708090a0b0c" /* DBPointer */
        "0d 6300 02000000 6600"                          /* code */
        "0e 7900 02000000 7300"                          /* symbol */
        "0f 7700 18000000 02000000 6600 0e000000 0d 7800 02000000 6700 00" /* code w/ scope */
        "10 6900 2a000000"                               /* int32 */
        "11 7400 0100000002000000"                       /* timestamp */
        "12 6c00 0100000000000000"                       /* int64 1 */
        "13 6400 01000000000000000000000000004030"       /* decimal128 */
        "ff 6d00"                                        /* min key */
        "7f 4d00";                                       /* max key */
    unsigned char body[1024];
    size_t n = mp_unhex(hex, body, sizeof body);
    if (n + 5 > cap) abort();
    sdx_store_le32(out, (uint32_t)(n + 5));
    memcpy(out + 4, body, n);
    out[n + 4] = 0;
    return n + 5;
}

/* n nested documents {"a": {"a": ...}} */
static inline unsigned char *nested(size_t levels, size_t *len) {
    size_t n = 5 + levels * 8;
    unsigned char *p = malloc(n);
    for (size_t i = 0; i <= levels; i++) {
        size_t inner = n - i * 8; /* bytes of the document at depth i */
        sdx_store_le32(p + i * 7, (uint32_t)inner);
        if (i < levels) {
            p[i * 7 + 4] = 0x03;
            p[i * 7 + 5] = 'a';
            p[i * 7 + 6] = 0;
        }
        p[n - 1 - i] = 0;
    }
    *len = n;
    return p;
}

/* Flip `count` random bits of p[0, n) (n > 0), from the LCG state *seed. */
static inline void flip_bits(unsigned char *p, size_t n, int count, uint64_t *seed) {
    for (int f = 0; f < count; f++) {
        *seed = *seed * 6364136223846793005u + 1442695040888963407u;
        p[(*seed >> 33) % n] ^= (unsigned char)(1u << ((*seed >> 20) % 8));
    }
}

/* The directory of the corpus data files (tests/bson): the environment
 * variable SDX_BSON_DATA, else SDX_BSON_DATA_DIR as compiled in. */
#ifndef SDX_BSON_DATA_DIR
#define SDX_BSON_DATA_DIR "tests/bson"
#endif

/* Call fn(bytes, n, line, ctx) for every case of a corpus data file
 * (corpus_valid.txt, corpus_decode_errors.txt: "file<TAB>description<TAB>
 * hex" per line); the bytes are in an allocation of exactly n bytes, so a
 * sanitizer sees any read past them. Returns the number of cases, -1 when
 * the file cannot be opened or a line is malformed. */
static inline long corpus_each(const char *name, void (*fn)(const unsigned char *, size_t, const char *, void *),
                               void *ctx) {
    char path[4096];
    const char *dir = getenv("SDX_BSON_DATA");
    snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : SDX_BSON_DATA_DIR, name);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "  cannot open %s (set SDX_BSON_DATA)\n", path);
        return -1;
    }
    static char line[1 << 16];
    static unsigned char bytes[1 << 15];
    long cases = 0;
    while (cases >= 0 && fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        char *tab = strchr(line, '\t');
        char *hex = tab ? strchr(tab + 1, '\t') : NULL;
        if (!hex) {
            cases = -1;
            break;
        }
        hex[strcspn(hex, "\r\n")] = 0;
        size_t n = mp_unhex(hex + 1, bytes, sizeof bytes);
        unsigned char *in = malloc(n ? n : 1);
        if (!in) abort();
        memcpy(in, bytes, n);
        fn(in, n, line, ctx);
        free(in);
        cases++;
    }
    fclose(f);
    return cases;
}

#endif /* SDX_BSON_TEST_H */
