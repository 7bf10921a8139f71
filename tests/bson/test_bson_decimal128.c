/*
 * Decimal128 text (sdx_bson_decimal128_to_string / _from_string):
 *
 *   corpus   every decimal128 case of the MongoDB BSON corpus
 *            (corpus_decimal128.txt, made by extract_corpus.py): the value
 *            of canonical_bson, read with the BSON reader, gives the
 *            canonical_extjson $numberDecimal text; that text gives back
 *            the same 16 bytes (except the "lossy" cases: NaN signs and
 *            payloads, non-canonical coefficients, whose text reads back
 *            as the canonical text); a degenerate_extjson text gives the
 *            same bytes (lossy: the same canonical text); every parseErrors
 *            string is rejected and leaves the output untouched
 *   edges    hand-checked values: the notation boundaries, the extremes,
 *            the longest texts, clamping, exact and inexact rounding,
 *            saturated exponents, error codes, arguments
 *   random   random canonical encodings read back bit for bit through
 *            their text; random 16 bytes of any form give a text of at
 *            most SDX_BSON_DECIMAL128_STRING_MAX characters that reads
 *            back to the same text
 *
 * Every text is handed over in an allocation of exactly its length (no
 * NUL) and every output buffer is allocated at its documented size, so a
 * sanitizer build sees any access past either. The data directory is
 * SDX_BSON_DATA_DIR (CMakeLists.txt); the environment variable
 * SDX_BSON_DATA overrides it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msgpack_util.h"
#include "sdx/sdx.h"
#include "test.h"

#ifndef SDX_BSON_DATA_DIR
#define SDX_BSON_DATA_DIR "tests/bson"
#endif

/* from_string over a copy of the n bytes at s in an allocation of exactly
 * n bytes (at least 1). */
static sdx_err parse_exact(const char *s, size_t n, uint8_t out[16]) {
    char *copy = malloc(n ? n : 1);
    if (!copy) abort();
    if (n) memcpy(copy, s, n);
    sdx_err rc = sdx_bson_decimal128_from_string(copy, n, out);
    free(copy);
    return rc;
}

/* to_string into a buffer of exactly SDX_BSON_DECIMAL128_STRING_MAX + 1
 * bytes; the text (NUL-terminated) into text, its length returned. Checks
 * that the length agrees with the NUL and the maximum. */
static size_t format_exact(const uint8_t bytes[16], char text[SDX_BSON_DECIMAL128_STRING_MAX + 1]) {
    char *buf = malloc(SDX_BSON_DECIMAL128_STRING_MAX + 1);
    if (!buf) abort();
    size_t n = sdx_bson_decimal128_to_string(bytes, buf);
    CHECK(n <= SDX_BSON_DECIMAL128_STRING_MAX);
    if (n > SDX_BSON_DECIMAL128_STRING_MAX) n = SDX_BSON_DECIMAL128_STRING_MAX;
    CHECK(buf[n] == '\0' && strlen(buf) == n);
    memcpy(text, buf, n + 1);
    free(buf);
    return n;
}

/* The 16 bytes as they are stored, from the hex of the high limb then the
 * low one (the order IEEE 754 writes them in). */
static void from_limbs(uint64_t hi, uint64_t lo, uint8_t out[16]) {
    for (int i = 0; i < 8; i++) {
        out[i] = (uint8_t)(lo >> (8 * i));
        out[8 + i] = (uint8_t)(hi >> (8 * i));
    }
}

/* ------------------------------------------------------------------------ */
/* The corpus                                                                */
/* ------------------------------------------------------------------------ */

/* Parse the quoted string at *p (see extract_corpus.py: \\, \" and \xNN)
 * into out (its length in *n); *p moves past the closing quote. Returns
 * false on a malformed field. */
static bool unquote(char **p, char *out, size_t cap, size_t *n) {
    char *s = *p;
    *n = 0;
    if (*s++ != '"') return false;
    while (*s && *s != '"') {
        char c = *s++;
        if (c == '\\') {
            if (*s == '\\' || *s == '"') {
                c = *s++;
            } else if (*s == 'x' && s[1] && s[2]) {
                unsigned char b;
                char hex[3] = {s[1], s[2], 0};
                if (mp_unhex(hex, &b, 1) != 1) return false;
                c = (char)b;
                s += 3;
            } else {
                return false;
            }
        }
        if (*n == cap) return false;
        out[(*n)++] = c;
    }
    if (*s != '"') return false;
    *p = s + 1;
    return true;
}

/* The decimal128 value of a one-element canonical_bson document, read with
 * the BSON reader (it must be a binary of 16 bytes tagged 0x13). */
static bool read_value(const unsigned char *doc, size_t n, uint8_t out[16]) {
    sdx_bson_reader *r = sdx_bson_reader_new((const char *)doc, n, NULL);
    sdx_event ev;
    bool found = false;
    while (sdx_bson_reader_next(r, &ev)) {
        if (ev.kind == SDX_BIN && ev.tag_kind == SDX_TAG_BSON && ev.tag == SDX_BSON_DECIMAL128 &&
            ev.v.str.len == 16 && !found) {
            memcpy(out, ev.v.str.ptr, 16);
            found = true;
        }
    }
    found = found && sdx_bson_reader_error(r, NULL) == SDX_OK;
    sdx_bson_reader_free(r);
    return found;
}

static long n_valid, n_lossy, n_degenerate, n_parse_errors;

/* One valid or lossy case: the fields after the kind. */
static void valid_case(char *fields, bool lossy, const char *line) {
    char *tab = strchr(fields, '\t');
    if (!CHECK(tab != NULL)) return;
    *tab = 0;
    unsigned char doc[64];
    size_t dn = mp_unhex(fields, doc, sizeof doc);
    uint8_t value[16];
    if (!CHECK(read_value(doc, dn, value))) {
        fprintf(stderr, "  %s\n", line);
        return;
    }
    char *p = tab + 1, canon[256], degen[2048];
    size_t cn, gn = 0;
    if (!CHECK(unquote(&p, canon, sizeof canon - 1, &cn))) return;
    canon[cn] = 0;
    bool has_degen = *p == '\t';
    if (has_degen) {
        p++;
        if (!CHECK(unquote(&p, degen, sizeof degen - 1, &gn))) return;
        degen[gn] = 0;
    }
    if (!CHECK(*p == 0)) return;

    /* canonical_bson -> canonical text */
    char text[SDX_BSON_DECIMAL128_STRING_MAX + 1];
    size_t tn = format_exact(value, text);
    if (!CHECK_MEM(text, tn, canon, cn)) fprintf(stderr, "  %s\n", line);

    /* canonical text -> canonical_bson (lossy: -> the same text) */
    uint8_t back[16];
    if (!CHECK(parse_exact(canon, cn, back) == SDX_OK)) {
        fprintf(stderr, "  %s\n", line);
    } else if (lossy) {
        tn = format_exact(back, text);
        if (!CHECK_MEM(text, tn, canon, cn)) fprintf(stderr, "  %s\n", line);
    } else if (!CHECK_MEM(back, 16, value, 16)) {
        fprintf(stderr, "  %s\n", line);
    }

    /* degenerate text -> canonical_bson (lossy: -> the canonical text) */
    if (has_degen) {
        n_degenerate++;
        if (!CHECK(parse_exact(degen, gn, back) == SDX_OK)) {
            fprintf(stderr, "  %s\n", line);
            return;
        }
        tn = format_exact(back, text);
        if (!CHECK_MEM(text, tn, canon, cn)) fprintf(stderr, "  %s\n", line);
        if (!lossy && !CHECK_MEM(back, 16, value, 16)) fprintf(stderr, "  %s\n", line);
    }
}

static void parse_error_case(char *fields, const char *line) {
    char *p = fields, s[256];
    size_t n;
    if (!CHECK(unquote(&p, s, sizeof s, &n) && *p == 0)) return;
    uint8_t out[16];
    memset(out, 0xA5, sizeof out);
    sdx_err rc = parse_exact(s, n, out);
    if (!CHECK(rc == SDX_ERR_SYNTAX || rc == SDX_ERR_RANGE)) fprintf(stderr, "  rc %d: %s\n", rc, line);
    int untouched = 1;
    for (int i = 0; i < 16; i++) untouched &= out[i] == 0xA5;
    CHECK(untouched);
}

TEST(corpus) {
    char path[4096];
    const char *dir = getenv("SDX_BSON_DATA");
    snprintf(path, sizeof path, "%s/corpus_decimal128.txt", dir && *dir ? dir : SDX_BSON_DATA_DIR);
    FILE *f = fopen(path, "r");
    if (!CHECK(f != NULL)) {
        fprintf(stderr, "  cannot open %s (set SDX_BSON_DATA)\n", path);
        return;
    }
    static char line[4096], copy[4096];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        line[strcspn(line, "\r\n")] = 0;
        memcpy(copy, line, sizeof copy);
        char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        char *t3 = t2 ? strchr(t2 + 1, '\t') : NULL;
        if (!CHECK(t3 != NULL)) continue;
        *t3 = 0;
        const char *kind = t2 + 1;
        if (strcmp(kind, "valid") == 0) {
            n_valid++;
            valid_case(t3 + 1, false, copy);
        } else if (strcmp(kind, "lossy") == 0) {
            n_lossy++;
            valid_case(t3 + 1, true, copy);
        } else if (CHECK(strcmp(kind, "parseError") == 0)) {
            n_parse_errors++;
            parse_error_case(t3 + 1, copy);
        }
    }
    fclose(f);
    printf("  corpus: %ld valid, %ld lossy, %ld with a degenerate text, %ld parseErrors\n", n_valid,
           n_lossy, n_degenerate, n_parse_errors);
    CHECK(n_valid == 597);
    CHECK(n_lossy == 8);
    CHECK(n_degenerate == 319);
    CHECK(n_parse_errors == 131);
}

/* ------------------------------------------------------------------------ */
/* Hand-checked edges                                                        */
/* ------------------------------------------------------------------------ */

/* bytes (given as limbs) -> text, and text -> the same bytes */
static void both_ways(uint64_t hi, uint64_t lo, const char *text) {
    uint8_t b[16], back[16];
    char got[SDX_BSON_DECIMAL128_STRING_MAX + 1];
    from_limbs(hi, lo, b);
    size_t n = format_exact(b, got);
    CHECK_STR(got, n, text);
    if (CHECK(parse_exact(text, strlen(text), back) == SDX_OK)) CHECK_MEM(back, 16, b, 16);
}

/* text -> text (through the bytes) */
static void reads_as(const char *in, const char *text) {
    uint8_t b[16];
    char got[SDX_BSON_DECIMAL128_STRING_MAX + 1];
    sdx_err rc = parse_exact(in, strlen(in), b);
    if (!CHECK(rc == SDX_OK)) {
        fprintf(stderr, "  \"%.80s\": error %d\n", in, rc);
        return;
    }
    size_t n = format_exact(b, got);
    if (!CHECK_STR(got, n, text)) fprintf(stderr, "  from \"%.80s\"\n", in);
}

/* text -> the error code, output untouched */
static void fails(const char *in, size_t n, sdx_err want) {
    uint8_t b[16];
    memset(b, 0x5A, sizeof b);
    sdx_err rc = parse_exact(in, n, b);
    if (!CHECK_EQ_INT(rc, want)) fprintf(stderr, "  \"%.80s\"\n", in);
    int untouched = 1;
    for (int i = 0; i < 16; i++) untouched &= b[i] == 0x5A;
    CHECK(untouched);
}

/* A text of `head`, `count` copies of `c`, then `tail` (free it). */
static char *repeat(const char *head, char c, size_t count, const char *tail) {
    size_t h = strlen(head), t = strlen(tail);
    char *s = malloc(h + count + t + 1);
    if (!s) abort();
    memcpy(s, head, h);
    memset(s + h, c, count);
    memcpy(s + h + count, tail, t + 1);
    return s;
}

#define EXP(e) ((uint64_t)((e) + 6176) << 49)

TEST(edges) {
    /* the notation boundaries: plain while exponent <= 0 and adjusted
     * exponent >= -6 */
    both_ways(EXP(0), 0, "0");
    both_ways(EXP(0) | 1ull << 63, 0, "-0");
    both_ways(EXP(-6), 1, "0.000001");
    both_ways(EXP(-7), 1, "1E-7");
    both_ways(EXP(-7), 10, "0.0000010");
    both_ways(EXP(1), 1, "1E+1");
    both_ways(EXP(2), 0, "0E+2");
    both_ways(EXP(-1), 0, "0.0");
    both_ways(EXP(-7), 0, "0E-7");
    both_ways(EXP(-3), 123456, "123.456");
    both_ways(EXP(-6), 123456, "0.123456");
    both_ways(EXP(-7), 123456, "0.0123456");
    both_ways(EXP(3), 123456, "1.23456E+8");
    /* the extremes: 10^34 - 1 at both ends of the exponent, the smallest
     * value, the largest exponents of zero */
    both_ways(EXP(6111) | 0x0001ED09BEAD87C0ull, 0x378D8E63FFFFFFFFull,
              "9.999999999999999999999999999999999E+6144");
    both_ways(EXP(-6176) | 1ull << 63 | 0x0001ED09BEAD87C0ull, 0x378D8E63FFFFFFFFull,
              "-9.999999999999999999999999999999999E-6143");
    both_ways(EXP(-6176), 1, "1E-6176");
    both_ways(EXP(6111), 0, "0E+6111");
    both_ways(EXP(-6176) | 1ull << 63, 0, "-0E-6176");
    /* the longest texts (42 characters) */
    both_ways(EXP(-39) | 1ull << 63 | 0x0001ED09BEAD87C0ull, 0x378D8E63FFFFFFFFull,
              "-0.000009999999999999999999999999999999999");
    both_ways(EXP(-6176) | 1ull << 63 | 0x0000314DC6448D93ull, 0x38C15B0A00000000ull,
              "-1.000000000000000000000000000000000E-6143");
    /* non-canonical: a coefficient of 10^34 reads as zero, so does the
     * long-exponent form (its coefficient is at least 2^113) */
    uint8_t b[16];
    char got[SDX_BSON_DECIMAL128_STRING_MAX + 1];
    from_limbs(EXP(-2) | 0x0001ED09BEAD87C0ull, 0x378D8E6400000000ull, b);
    CHECK_STR(got, format_exact(b, got), "0.00");
    from_limbs(0x6000000000000000ull | (uint64_t)(6176 + 5) << 47, 0, b);
    CHECK_STR(got, format_exact(b, got), "0E+5");
    from_limbs(0xE000000000000000ull | (uint64_t)(6176 - 8) << 47 | 0x7FFFFFFFFFFFull, ~0ull, b);
    CHECK_STR(got, format_exact(b, got), "-0E-8");
    /* specials: any payload and sign of a NaN is "NaN" */
    both_ways(0x7800000000000000ull, 0, "Infinity");
    both_ways(0xF800000000000000ull, 0, "-Infinity");
    both_ways(0x7C00000000000000ull, 0, "NaN");
    from_limbs(0xFE00000000001234ull, 99, b);
    CHECK_STR(got, format_exact(b, got), "NaN");
    from_limbs(0x7A00000000000000ull, 5, b); /* infinity, bits below ignored */
    CHECK_STR(got, format_exact(b, got), "Infinity");
    reads_as("iNfInItY", "Infinity");
    reads_as("+inf", "Infinity");
    reads_as("-INF", "-Infinity");
    reads_as("nan", "NaN");
    uint8_t neg_nan[16];
    if (CHECK(parse_exact("-NaN", 4, neg_nan) == SDX_OK)) CHECK(neg_nan[15] == 0xFC);

    /* the preferred exponent is kept; clamping appends zeros */
    reads_as("1.50", "1.50");
    reads_as("+00012.3400e-2", "0.123400");
    reads_as("1E+6144", "1.000000000000000000000000000000000E+6144");
    reads_as("0.0000000000000000000000000000000001E+6145", "1E+6111");
    reads_as("0.001E+6147", "1.000000000000000000000000000000000E+6144");
    reads_as("12E+6143", "1.200000000000000000000000000000000E+6144");
    fails("1E+6145", 7, SDX_ERR_RANGE);
    fails("10000000000000000000000000000000000E+6111", 41, SDX_ERR_RANGE);
    /* digits beyond 34, or below the smallest exponent: only zeros may go */
    reads_as("1234567890123456789012345678901234000", "1.234567890123456789012345678901234E+36");
    reads_as("100E-6178", "1E-6176");
    fails("1234567890123456789012345678901234500", 37, SDX_ERR_RANGE);
    fails("12345678901234567890123456789012345", 35, SDX_ERR_RANGE);
    fails("15E-6177", 8, SDX_ERR_RANGE);
    fails("1E-6177", 7, SDX_ERR_RANGE);
    /* zero takes any exponent, clamped */
    reads_as("0E+99999999999999999999999999999", "0E+6111");
    reads_as("-0.000E-99999999999999999999999999999", "-0E-6176");
    reads_as("0e6112", "0E+6111");
    reads_as("-000.000", "-0.000");
    /* saturated exponents stay saturated */
    fails("1E+99999999999999999999999999999", 32, SDX_ERR_RANGE);
    fails("1E-99999999999999999999999999999", 32, SDX_ERR_RANGE);

    /* long texts: leading zeros, zeros after the point that an exponent
     * takes back, trailing zeros dropped exactly */
    char *s = repeat("-", '0', 100000, "42.5");
    reads_as(s, "-42.5");
    free(s);
    s = repeat("0.", '0', 100000, "1E+100001");
    reads_as(s, "1");
    free(s);
    s = repeat("7.", '0', 100000, "");
    reads_as(s, "7.000000000000000000000000000000000");
    free(s);
    s = repeat("7.", '0', 100000, "1");
    fails(s, strlen(s), SDX_ERR_RANGE);
    free(s);

    /* syntax */
    fails("", 0, SDX_ERR_SYNTAX);
    fails("1", 0, SDX_ERR_SYNTAX);
    fails("+", 1, SDX_ERR_SYNTAX);
    fails("1.5\0", 4, SDX_ERR_SYNTAX); /* a NUL inside the length counts */
    fails("NaN1", 4, SDX_ERR_SYNTAX);
    fails("sNaN", 4, SDX_ERR_SYNTAX);
    fails("Infinityy", 9, SDX_ERR_SYNTAX);
    fails("1e+", 3, SDX_ERR_SYNTAX);
    fails("0x10", 4, SDX_ERR_SYNTAX);
    /* the length is honoured: the text stops before what follows */
    uint8_t v[16];
    if (CHECK(sdx_bson_decimal128_from_string("12.5junk", 4, v) == SDX_OK))
        CHECK_STR(got, format_exact(v, got), "12.5");
    /* arguments */
    CHECK(sdx_bson_decimal128_from_string(NULL, 0, v) == SDX_ERR_SYNTAX);
    CHECK(sdx_bson_decimal128_from_string(NULL, 3, v) == SDX_ERR_INVALID_ARG);
    CHECK(sdx_bson_decimal128_from_string("1", 1, NULL) == SDX_ERR_INVALID_ARG);
}

/* ------------------------------------------------------------------------ */
/* Random values                                                             */
/* ------------------------------------------------------------------------ */

TEST(randomized) {
    uint64_t seed = 0xDEC128;
    long rounds = (long)(200000 * test_scale());
    uint8_t b[16], back[16];
    char text[SDX_BSON_DECIMAL128_STRING_MAX + 1], again[SDX_BSON_DECIMAL128_STRING_MAX + 1];
    long canonical = 0;
    for (long i = 0; i < rounds; i++) {
        uint64_t hi = test_rand(&seed), lo = test_rand(&seed);
        if (i % 2 == 0) {
            /* a canonical finite value: bits 126..125 not 11 (so a biased
             * exponent below 12288), a coefficient of 0 to 113 bits, kept
             * when at most 10^34 - 1 */
            unsigned bits = (unsigned)(test_rand(&seed) % 114);
            uint64_t chi = hi & 0x1FFFFFFFFFFFFull, clo = lo;
            if (bits >= 64) {
                chi &= (1ull << (bits - 64)) - 1;
            } else {
                chi = 0;
                clo = bits ? clo >> (64 - bits) : 0;
            }
            if (chi > 0x0001ED09BEAD87C0ull ||
                (chi == 0x0001ED09BEAD87C0ull && clo > 0x378D8E63FFFFFFFFull))
                continue;
            uint64_t exp = (hi >> 49 & 0x3FFF) % 12288;
            hi = (hi & 1ull << 63) | exp << 49 | chi;
            lo = clo;
            from_limbs(hi, lo, b);
            size_t n = format_exact(b, text);
            sdx_err rc = parse_exact(text, n, back);
            if (!CHECK(rc == SDX_OK && memcmp(back, b, 16) == 0)) {
                fprintf(stderr, "  %016llx%016llx -> %s\n", (unsigned long long)hi,
                        (unsigned long long)lo, text);
                return;
            }
            canonical++;
        } else {
            /* any 16 bytes: a text that reads back to the same text */
            from_limbs(hi, lo, b);
            size_t n = format_exact(b, text);
            if (!CHECK(parse_exact(text, n, back) == SDX_OK)) {
                fprintf(stderr, "  %s\n", text);
                return;
            }
            size_t m = format_exact(back, again);
            if (!CHECK_MEM(again, m, text, n)) return;
        }
    }
    printf("  %ld canonical values read back bit for bit\n", canonical);
    CHECK(canonical > rounds / 4);
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){{"corpus", corpus}, {"edges", edges}, {"random", randomized}, {0}});
}
