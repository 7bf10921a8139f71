/*
 * Short strings and keys through a binary writer at every SIMD level: the
 * writers' short-string paths, which take one masked AVX-512 load and store
 * where the CPU has it (src/simd/short_copy.h) and branches on the length
 * elsewhere. Lengths 0 to 40, each string ending just before and starting
 * just after an inaccessible page (a read one byte too far faults), plain
 * ASCII, valid UTF-8 and arbitrary bytes, as a value and as a key, with
 * and without the UTF-8 check: the output must be the expected bytes, or
 * SDX_ERR_UTF8 exactly when the reference validator rejects the bytes.
 *
 * Include guard_pages.h first (before any system header), then this.
 */
#ifndef SDX_TEST_SHORT_STRINGS_H
#define SDX_TEST_SHORT_STRINGS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "simd/simd.h"
#include "test.h"
#include "utf8_ref.h"

/* Writes s[0, n) as a string (or, with as_key, as the key of a map of one
 * entry whose value is null) into out (cap bytes) and finishes; returns the
 * first error, and the output's length in *len. */
typedef sdx_err (*short_write_fn)(const char *s, size_t n, int as_key, int check,
                                  unsigned char *out, size_t cap, size_t *len);
/* The bytes the writer must give for valid text; returns their count. */
typedef size_t (*short_expect_fn)(const char *s, size_t n, int as_key, unsigned char *out);

static void short_strings_one_level(short_write_fn write, short_expect_fn expect) {
#ifdef TEST_PAGES
    guard_pages g = {0};
    if (!CHECK(guard_pages_map(&g, 1, 4096))) return;
    char *lo = guard_region(&g, 0), *hi = lo + g.size;
    uint64_t rng = 0x5eed5eedu;
    for (int round = 0; round < 400; round++) {
        for (size_t n = 0; n <= 40; n++) {
            char src[48];
            for (size_t i = 0; i < n; i++) {
                rng = rng * 6364136223846793005ull + 1442695040888963407ull;
                unsigned r = (unsigned)(rng >> 33);
                /* any byte, ASCII, or ASCII with the two bytes of U+00E9
                 * (which also make broken sequences) */
                src[i] = (char)(round % 4 == 0   ? r & 0xff
                                : round % 4 == 1 ? 0x20 + r % 95
                                : r % 16 == 0    ? 0xc3
                                : r % 16 == 1    ? 0xa9
                                                 : 0x21 + r % 90);
            }
            const bool valid = ref_valid_prefix((const uint8_t *)src, n) == n;
            for (int place = 0; place < 2; place++) {
                char *s = place ? lo : hi - n; /* after a page, or before one */
                if (n) memcpy(s, src, n);
                for (int as_key = 0; as_key < 2; as_key++) {
                    for (int check = 0; check < 2; check++) {
                        unsigned char out[256], want[256]; /* room for the inline paths */
                        size_t len = 0;
                        sdx_err e = write(s, n, as_key, check, out, sizeof out, &len);
                        if (check && !valid) {
                            CHECK_EQ_INT(e, SDX_ERR_UTF8);
                            continue;
                        }
                        CHECK_EQ_INT(e, SDX_OK);
                        size_t wn = expect(src, n, as_key, want);
                        CHECK_MEM(out, len, want, wn);
                    }
                }
            }
        }
    }
    guard_pages_unmap(&g);
#else
    (void)write;
    (void)expect;
#endif
}

/* fn at every SIMD level this build has and this CPU runs (writers take
 * their kernels and paths at init), naming the level of any failure. */
static void test_every_simd_level(void (*fn)(void)) {
    for (int level = 0; level < SDX_SIMD__COUNT; level++) {
        if (!sdx_simd_kernels_for((sdx_simd_level)level)) continue;
        sdx_simd_select((sdx_simd_level)level);
        long failed = test_checks_failed;
        fn();
        if (test_checks_failed != failed)
            fprintf(stderr, "  (with SIMD level %s)\n", sdx_simd_level_name((sdx_simd_level)level));
    }
    sdx_simd_select(SDX_SIMD__COUNT);
}

static short_write_fn short_strings_write;
static short_expect_fn short_strings_expect;

static void short_strings_level(void) {
    short_strings_one_level(short_strings_write, short_strings_expect);
}

static void short_strings_every_level(short_write_fn write, short_expect_fn expect) {
    short_strings_write = write;
    short_strings_expect = expect;
    test_every_simd_level(short_strings_level);
}

#endif
