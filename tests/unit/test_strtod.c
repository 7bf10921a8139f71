/*
 * Tests for src/num/strtod.c: sdx_json_number (grammar, integer
 * classification, doubles) and sdx_parse_double; and for the inline fast
 * path of src/num/json_number.h, which must agree with sdx_json_number
 * wherever it answers.
 *
 * The reference for doubles is the C library's strtod, which glibc rounds
 * correctly (to nearest, ties to even); every comparison is bit for bit.
 * Exact midpoints between adjacent doubles come from long double arithmetic
 * (exact: a midpoint needs 54 bits) printed with printf("%.800Le"), which
 * glibc prints exactly; their expected rounding (ties to even) is also
 * checked without the C library's strtod.
 *
 * Every input is placed so that it ends where readable memory ends (before a
 * PROT_NONE page where mmap is available, else at the end of an exact-size
 * heap block, which AddressSanitizer guards), so a read at or past `end`
 * faults or is reported.
 *
 * Size: 1,000,000 random decimal strings by default (a tenth under the
 * sanitizers), scaled by SDX_TEST_SCALE; the counts are printed.
 */
#include "guard_pages.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>

#include "num/json_number.h"
#include "num/num.h"
#include "num/pow10_table.h"
#include "test.h"

#if defined(__SANITIZE_ADDRESS__)
#define TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define TEST_SANITIZED 1
#endif
#endif

/* Exact midpoints need a long double with at least 54 bits and the exponent
 * range of 2^-1075 (x87 extended, binary128). */
#if LDBL_MANT_DIG >= 54 && LDBL_MIN_EXP < -1075
#define TEST_MIDPOINTS 1
#endif

/* ------------------------------------------------------------------------ */
/* Placing inputs where readable memory ends                                 */

#define GUARD_MAX 8192 /* longest input placed before the guard page */

static char *guard_area; /* GUARD_MAX readable bytes, then an inaccessible page */

static void guard_init(void) {
    if (guard_area) return;
#ifdef TEST_PAGES
    static guard_pages g; /* kept until the process ends */
    if (guard_pages_map(&g, 1, GUARD_MAX)) {
        guard_area = guard_region(&g, 0) + g.size - GUARD_MAX;
        return;
    }
#endif
    guard_area = NULL;
}

/* A copy of s[0..n) that ends where readable memory ends; release with
 * placed_free(). */
static char *place(const char *s, size_t n) {
    guard_init();
    if (guard_area && n <= GUARD_MAX) {
        char *p = guard_area + GUARD_MAX - n;
        memcpy(p, s, n);
        return p;
    }
    char *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    memcpy(p, s, n);
    return n ? p : p + 1; /* an empty input: p == end, nothing readable */
}

static void placed_free(char *p, size_t n) {
    if (guard_area && n <= GUARD_MAX) return;
    free(n ? p : p - 1);
}

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */

static uint64_t bits_of(double d) {
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

static double from_bits(uint64_t b) {
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

/* The C library's reading of s (NUL-terminated). */
static double ref_strtod(const char *s) { return strtod(s, NULL); }

/* sdx_parse_double on s; *used gets the number of bytes consumed (or -1). */
static double sdx_parse(const char *s, size_t n, long *used) {
    char *p = place(s, n);
    double d = 0;
    const char *e = sdx_parse_double(p, p + n, &d);
    *used = e ? (long)(e - p) : -1;
    placed_free(p, n);
    return d;
}

/* sdx_json_number on s[0..n); returns bytes consumed, or -1 with *err the
 * error offset. */
static long json_scan(const char *s, size_t n, unsigned flags, sdx_num *out, long *err) {
    char *p = place(s, n);
    const char *at = NULL;
    memset(out, 0xA5, sizeof *out);
    const char *e = sdx_json_number(p, p + n, flags, out, &at);
    long r = e ? (long)(e - p) : -1;
    *err = e ? -2 : at ? (long)(at - p) : -3;
    placed_free(p, n);
    return r;
}

/* ------------------------------------------------------------------------ */
/* The inline fast path                                                      */

static long fast_checked, fast_taken;

/* Texts that follow a number in check_fast: delimiters and bytes that could
 * be mistaken for more of it, each long enough for the fast path to run. */
static const char *const fast_tails[] = {
    ",1234567890123456789012345678901234567890123456789012345678901234]",
    "]}                                                                ",
    "e+5.5.5e-5E5e1234567890123456789012345678901234567890123456789012",
    "\x80\xff\x01\x2f\x3a\x2e\x45\x65\x2b\x2d\x30\x39\x20\x0a\x09\x0d"
    "\x80\xff\x01\x2f\x3a\x2e\x45\x65\x2b\x2d\x30\x39\x20\x0a\x09\x0d"
    "\x80\xff\x01\x2f\x3a\x2e\x45\x65\x2b\x2d\x30\x39\x20\x0a\x09\x0d",
    "x",
};

/* sdx_json_number_fast on s[0, n) followed by each tail (the last one too
 * short for the fast path to run): where it answers, it must agree with
 * sdx_json_number with and without SDX_NUM_BIG_RAW on the end, the kind
 * and the value's bits. Every input ends where readable memory ends. */
static int check_fast(const char *s, size_t n, int line) {
    char buf[1400];
    if (n + 80 > sizeof buf) return 1;
    for (size_t t = 0; t < sizeof fast_tails / sizeof fast_tails[0]; t++) {
        size_t tl = strlen(fast_tails[t]);
        memcpy(buf, s, n);
        memcpy(buf + n, fast_tails[t], tl);
        char *p = place(buf, n + tl);
        const char *lim = p + n + tl;
        unsigned kind = 99;
        uint64_t bits = 0;
        const char *fe = n + tl > 0 && (p[0] == '-' || (p[0] >= '0' && p[0] <= '9'))
                             ? sdx_json_number_fast(p, lim, &kind, &bits)
                             : NULL;
        fast_checked++;
        test_checks_run++;
        if (fe) {
            fast_taken++;
            for (unsigned flags = 0; flags <= SDX_NUM_BIG_RAW; flags += SDX_NUM_BIG_RAW) {
                sdx_num v;
                const char *se = sdx_json_number(p, lim, flags, &v, NULL);
                if (se != fe || (unsigned)v.kind != kind || v.v.u != bits) {
                    fprintf(stderr,
                            "  input \"%.*s\" + tail %zu (flags %u): fast %ld kind %u bits %016llx, "
                            "sdx_json_number %ld kind %d bits %016llx\n",
                            (int)n, s, t, flags, (long)(fe - p), kind, (unsigned long long)bits,
                            se ? (long)(se - p) : -1L, (int)v.kind, (unsigned long long)v.v.u);
                    placed_free(p, n + tl);
                    return test_fail_at(__FILE__, line, "the fast path agrees with sdx_json_number");
                }
            }
        }
        placed_free(p, n + tl);
    }
    return 1;
}

#define CHECK_FAST(s) check_fast((s), strlen(s), __LINE__)

static long checked_strings;
static char *tailed; /* check_string's copy with a tail */
static size_t tailed_cap;

/* One decimal string: sdx_parse_double must consume it all and agree with
 * strtod; if it is also a JSON number with a fraction or exponent,
 * sdx_json_number must agree too. Returns 0 after reporting a mismatch. */
static int check_string(const char *s, int line) {
    size_t n = strlen(s);
    double want = ref_strtod(s);
    long used;
    double got = sdx_parse(s, n, &used);
    checked_strings++;
    test_checks_run++;
    if (used != (long)n || bits_of(got) != bits_of(want)) {
        fprintf(stderr, "  input \"%.200s%s\" (%zu bytes): consumed %ld, got %a (%016llx), want %a (%016llx)\n", s,
                n > 200 ? "..." : "", n, used, got, (unsigned long long)bits_of(got), want,
                (unsigned long long)bits_of(want));
        return test_fail_at(__FILE__, line, "sdx_parse_double matches strtod");
    }
    /* Followed by a delimiter and more text, as in a document (the
     * eight-byte loads then see bytes after the number). */
    static const char tail[] = ",1234567890]";
    if (tailed_cap < n + sizeof tail) {
        free(tailed);
        tailed_cap = 2 * (n + sizeof tail);
        tailed = malloc(tailed_cap);
        if (!tailed) exit(2);
    }
    memcpy(tailed, s, n);
    memcpy(tailed + n, tail, sizeof tail - 1);
    got = sdx_parse(tailed, n + sizeof tail - 1, &used);
    if (used != (long)n || bits_of(got) != bits_of(want)) {
        fprintf(stderr, "  input \"%.200s\" + tail: consumed %ld, got %a, want %a\n", s, used, got, want);
        return test_fail_at(__FILE__, line, "sdx_parse_double with a tail matches strtod");
    }
    bool json = n > 0 && s[0] != '+' && s[0] != '.' && strpbrk(s, ".eE") != NULL;
    const char *digits = s[0] == '-' ? s + 1 : s;
    if (digits[0] == '0' && digits[1] >= '0' && digits[1] <= '9') json = false;
    if (json) {
        sdx_num v;
        long err;
        long r = json_scan(s, n, 0, &v, &err);
        if (r != (long)n || v.kind != SDX_NUM_DOUBLE || bits_of(v.v.d) != bits_of(want)) {
            fprintf(stderr, "  input \"%.200s\": json consumed %ld, kind %d, got %a, want %a\n", s, r,
                    (int)v.kind, v.v.d, want);
            return test_fail_at(__FILE__, line, "sdx_json_number matches strtod");
        }
        r = json_scan(tailed, n + sizeof tail - 1, 0, &v, &err);
        if (r != (long)n || v.kind != SDX_NUM_DOUBLE || bits_of(v.v.d) != bits_of(want)) {
            fprintf(stderr, "  input \"%.200s\" + tail: json consumed %ld, kind %d, got %a, want %a\n",
                    s, r, (int)v.kind, v.v.d, want);
            return test_fail_at(__FILE__, line, "sdx_json_number with a tail matches strtod");
        }
    }
    return n > 0 && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9')) ? check_fast(s, n, line) : 1;
}

#define CHECK_STRING(s) check_string((s), __LINE__)

/* Check that s reads as the double with the given bits (and as strtod). */
static int check_bits(const char *s, uint64_t want, int line) {
    long used;
    double got = sdx_parse(s, strlen(s), &used);
    test_checks_run++;
    if (bits_of(got) != want) {
        fprintf(stderr, "  input \"%.120s\": got %016llx, want %016llx\n", s,
                (unsigned long long)bits_of(got), (unsigned long long)want);
        return test_fail_at(__FILE__, line, "expected bits");
    }
    return check_string(s, line);
}

#define CHECK_BITS(s, b) check_bits((s), (b), __LINE__)

/* ------------------------------------------------------------------------ */
/* Known hard cases                                                          */

TEST(boundary_values) {
    CHECK_BITS("2.2250738585072011e-308", 0x000FFFFFFFFFFFFFu); /* largest subnormal */
    CHECK_BITS("2.2250738585072012e-308", 0x0010000000000000u); /* DBL_MIN */
    CHECK_BITS("2.2250738585072014e-308", 0x0010000000000000u);
    CHECK_STRING("2.2250738585072004e-308");
    CHECK_BITS("4.9406564584124654e-324", 0x0000000000000001u);
    CHECK_BITS("2.4703282292062327e-324", 0x0000000000000000u);
    CHECK_BITS("2.4703282292062328e-324", 0x0000000000000001u);
    CHECK_BITS("7.4109846876186982e-324", 0x0000000000000002u);
    CHECK_BITS("1e-324", 0);
    CHECK_BITS("3e-324", 1);
    CHECK_BITS("1.7976931348623157e308", 0x7FEFFFFFFFFFFFFFu);
    CHECK_BITS("1.7976931348623158e308", 0x7FEFFFFFFFFFFFFFu);
    CHECK_BITS("1.7976931348623159e308", 0x7FF0000000000000u);
    CHECK_BITS("1e308", bits_of(1e308));
    CHECK_BITS("1e309", 0x7FF0000000000000u);
    CHECK_BITS("9007199254740993.0", 0x4340000000000000u); /* 2^53 + 1: tie, to even */
    CHECK_BITS("9007199254740995.0", 0x4340000000000002u); /* tie, to even (up) */
    CHECK_BITS("9007199254740993.0000000000000000001", 0x4340000000000001u);
    CHECK_BITS("4503599627370496.5", 0x4330000000000000u); /* ties with q < 0 */
    CHECK_BITS("4503599627370497.5", 0x4330000000000002u);
    CHECK_BITS("1.00000000000000011102230246251565404236316680908203125", 0x3FF0000000000000u);
    CHECK_BITS("1.00000000000000011102230246251565404236316680908203124", 0x3FF0000000000000u);
    CHECK_BITS("1.00000000000000011102230246251565404236316680908203126", 0x3FF0000000000001u);
    CHECK_BITS("1.00000000000000033306690738754696212708950042724609375", 0x3FF0000000000002u);
    CHECK_BITS("-0.0", 0x8000000000000000u);
    CHECK_BITS("-0", 0x8000000000000000u);
    CHECK_BITS("0e999999999", 0);
    CHECK_BITS("-0e-999999999", 0x8000000000000000u);
    CHECK_BITS("0.000000000000000000000000000000000000000000e99999999999999999999", 0);
    CHECK_BITS("1e999999999999999999", 0x7FF0000000000000u);
    CHECK_BITS("-1e999999999999999999999999999999", 0xFFF0000000000000u);
    CHECK_BITS("1e-999999999999999999", 0);
    CHECK_BITS("123456789e-99999999999999999999999", 0);
    /* Exponents of one to nine digits (seven fit one load), signs, zeros. */
    CHECK_BITS("1e0000308", bits_of(1e308));
    CHECK_BITS("1e00000308", bits_of(1e308));
    CHECK_BITS("1e+000000308", bits_of(1e308));
    CHECK_BITS("25e-0000325", 0x0000000000000001u);
    CHECK_BITS("1e-9999999", 0);
    CHECK_BITS("1e-99999999", 0);
    CHECK_BITS("1e9999999", 0x7FF0000000000000u);
    CHECK_BITS("1e99999999", 0x7FF0000000000000u);
    CHECK_BITS("0.000000000000000000000000000000001e9999999", 0x7FF0000000000000u);
    CHECK_BITS("10000000000000000000000000000000000000e-9999999", 0);
    CHECK_BITS("0.1", bits_of(0.1));
    CHECK_BITS("1", 0x3FF0000000000000u);
    CHECK_BITS("5e-324", 1);
    CHECK_BITS("1e23", bits_of(1e23));
    CHECK_BITS("8.98846567431158e307", bits_of(8.98846567431158e307));
    CHECK_BITS("18446744073709551615", bits_of(18446744073709551615.0));
    CHECK_BITS("18446744073709551616", 0x43F0000000000000u);
}

TEST(difficult_decimals) {
    /* V. Paxson, "A Program for Testing IEEE Decimal-Binary Conversion"
     * (1991): inputs closest to a midpoint for their digit counts; W. Kahan's
     * and others' classic cases; the examples of the Eisel-Lemire papers. */
    static const char *const cases[] = {
        "5e+125", "69e+267", "999e-026", "7861e-034", "75569e-254", "928609e-261",
        "9210917e+080", "84863171e+114", "653777767e+273", "5232604057e-298",
        "27235667517e-109", "653532977297e-123", "3142213164987e-294", "46202199371337e-072",
        "231010996856685e-073", "9324754620109615e+212", "78459735791271921e+049",
        "272104041512242479e+200", "6802601037806061975e+198", "20505426358836677347e-221",
        "836168422905420598437e-234", "4891559871276714924261e+222", "9e-265", "85e-037",
        "623e+100", "3571e+263", "81661e+153", "920657e-023", "4603493e-112", "87575437e-309",
        "245540327e+122", "6138508396e+109", "83356057653e+193", "619534293513e+124",
        "2335141086879e+218", "36167929443327e-159", "609610927149051e-255",
        "3743626360493413e-165", "94080055902682397e-242", "899810892172646163e+283",
        "7120190517612959703e+120", "25188282901709339043e-252", "308984926168550152811e-052",
        "6372891218502368041059e+064", "8.5e-37", "1.448997445238699", "7.3177701707893310e+15",
        "1.797693134862315708145274237317043567980e+308", "3.4028234664e38",
        "7.038531e-26", "7.0385307e-26", "9.5e-324", "2.2250738585072011360574097967091319759348e-308",
        "0.500000000000000166533453693773481063544750213623046875",
        "3.518437208883201171875e13", "62.5364939768271845828", "8.10109172351e-10",
        "1.50000000000000011102230246251565404236316680908203125",
        "9007199254740993.0000000000000000000000000000001", "2.4703282292062327e-324",
        "2.4703282292062328e-324", "4.9406564584124654e-324", "1.8e308", "1e-400",
        "0.000000000000000000000000000000000000000000001e-300",
        "1000000000000000000000000000000000000000e-40", "123456789012345678901234567890e-20",
        "0.1e-309", "4.9e-324", "2.5e-324", "2.4e-324", "4.4501477170144022721148195934182639518696390927032912960468522194496444440421538910330590478162701758282983178260792422137401728773891892910553144148156412434867599762821265346585071045737627442980259622449029037796981144446145705102663115100318287949527959668236039986479250965780342141637013812613333119898765515451440315261253813266652951306000184917766328660755595837392240989947807556594098101021612198814605258742579179000071675999344145086087205681577915435923018910334964869420614052182892431445797605163650903606514140377217442262561590244668525767372446430075513332450079650686719491377688478005309963967709758965844137894433796621993967316936280457084866613206797017728916080020698679408551343728867675409720757232455434770912461317493580281734466552734375e-308",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) CHECK_STRING(cases[i]);
    /* Signs, exponent letters and forms. */
    CHECK_STRING("-5e+125");
    CHECK_STRING("5E125");
    CHECK_STRING("0.00000000000000000000000000000000000000000000000000000000000000000000012345");
    CHECK_STRING("123456789012345678901234567890123456789012345678901234567890");
    CHECK_STRING("00000000000000000000000000000000000000001.5");
    CHECK_STRING("+2.5");
}

/* 0.1 followed by 800 random digits, and the like at other magnitudes. */
TEST(long_noise) {
    uint64_t seed = 11;
    char buf[1200];
    for (int r = 0; r < 2000; r++) {
        int len = 0;
        const char *lead = (r % 4 == 0) ? "0.1" : (r % 4 == 1) ? "1." : (r % 4 == 2) ? "9.99999999999999" : "4.94065645841246544e-324";
        len = snprintf(buf, sizeof buf, "%s", lead);
        char *e = strchr(buf, 'e');
        char tail[8] = "";
        if (e) {
            strcpy(tail, e);
            len = (int)(e - buf);
        }
        int noise = 780 + (int)(test_rand(&seed) % 60);
        for (int i = 0; i < noise; i++) {
            uint64_t x = test_rand(&seed);
            /* mostly zeros or nines, sometimes anything: near midpoints */
            buf[len++] = (char)('0' + (r & 8 ? (x % 10) : (r & 16 ? 9 : 0) ^ (x % 97 == 0)));
        }
        strcpy(buf + len, tail);
        if (!CHECK_STRING(buf)) return;
    }
}

/* A million digits: linear time, no allocation, the last digit decides. */
TEST(million_digits) {
    const size_t big = 1000000;
    char *s = malloc(big + 100);
    if (!CHECK(s)) return;
    long used;
    double d;
    /* 1 followed by a million zeros, as a fraction and with an exponent. */
    size_t n = 0;
    s[n++] = '1';
    s[n++] = '.';
    memset(s + n, '0', big);
    n += big;
    d = sdx_parse(s, n, &used);
    CHECK(used == (long)n && d == 1.0);
    s[n] = '1';
    d = sdx_parse(s, n + 1, &used);
    CHECK(used == (long)n + 1 && d == 1.0);
    /* 1 and a million zeros as an integer: 1e1000000 */
    memmove(s + 1, s + 2, big);
    n = 1 + big;
    d = sdx_parse(s, n, &used);
    CHECK(used == (long)n && d == HUGE_VAL);
    memcpy(s + n, "e-1000000", 9);
    d = sdx_parse(s, n + 9, &used);
    CHECK(used == (long)n + 9 && d == 1.0);
    memcpy(s + n, "e-1000001", 9);
    d = sdx_parse(s, n + 9, &used);
    CHECK(used == (long)n + 9 && d == 0.1);
    /* 0.000...0001e1000000 = 1 */
    n = 0;
    s[n++] = '0';
    s[n++] = '.';
    memset(s + n, '0', big - 1);
    n += big - 1;
    s[n++] = '1';
    memcpy(s + n, "e1000000", 8);
    d = sdx_parse(s, n + 8, &used);
    CHECK(used == (long)n + 8 && d == 1.0);
    sdx_num v;
    long err;
    CHECK(json_scan(s, n + 8, 0, &v, &err) == (long)n + 8 && v.kind == SDX_NUM_DOUBLE &&
          v.v.d == 1.0);
    /* The midpoint of 1 and its successor, then a million zeros: a tie (to
     * 1); with a final 1 after them, above the midpoint. */
    const char *midpoint = "1.00000000000000011102230246251565404236316680908203125";
    n = strlen(midpoint);
    memcpy(s, midpoint, n);
    memset(s + n, '0', big);
    n += big;
    d = sdx_parse(s, n, &used);
    CHECK(used == (long)n && bits_of(d) == 0x3FF0000000000000u);
    s[n] = '1';
    d = sdx_parse(s, n + 1, &used);
    CHECK(used == (long)n + 1 && bits_of(d) == 0x3FF0000000000001u);
    /* A million random digits. */
    uint64_t seed = 5;
    s[0] = '0';
    s[1] = '.';
    for (size_t i = 2; i < big; i++) s[i] = (char)('0' + test_rand(&seed) % 10);
    s[big] = 0;
    CHECK_STRING(s);
    /* A million-digit integer part with BIG_RAW, and as a JSON double. */
    for (size_t i = 0; i < big; i++) s[i] = (char)('1' + i % 9);
    CHECK(json_scan(s, big, SDX_NUM_BIG_RAW, &v, &err) == (long)big && v.kind == SDX_NUM_BIG);
    CHECK(json_scan(s, big, 0, &v, &err) == (long)big && v.kind == SDX_NUM_DOUBLE &&
          v.v.d == HUGE_VAL);
    free(s);
}

/* ------------------------------------------------------------------------ */
/* Exact midpoints                                                           */

#ifdef TEST_MIDPOINTS
/* The exact decimal of the midpoint between the positive double at `b` and
 * the next one up (infinity's "midpoint" is 2^1024 - 2^970): d.ddd...e[+-]x,
 * trailing zeros of the significand removed. */
static void midpoint_text(uint64_t b, char *out, size_t cap) {
    long double lo = (long double)from_bits(b);
    long double mid;
    if (b == 0x7FEFFFFFFFFFFFFFu) mid = lo + ldexpl(1.0L, 970);
    else mid = (lo + (long double)from_bits(b + 1)) / 2;
    snprintf(out, cap, "%.800Le", mid);
    char *e = strchr(out, 'e');
    char *z = e;
    while (z[-1] == '0') z--;
    if (z[-1] == '.') z--;
    memmove(z, e, strlen(e) + 1);
}

/* The text of a midpoint moved slightly down (last nonzero digit decreased,
 * then nines appended) or up (a 1 appended). */
static void nudge(const char *mid, char *out, int up) {
    const char *e = strchr(mid, 'e');
    size_t m = (size_t)(e - mid);
    memcpy(out, mid, m);
    if (!memchr(out, '.', m)) out[m++] = '.';
    if (up) {
        out[m++] = '0';
        out[m++] = '1';
    } else {
        size_t i = m;
        while (out[i - 1] == '0' || out[i - 1] == '.') i--;
        out[i - 1]--; /* the last nonzero digit */
        memcpy(out + m, "9999", 4);
        m += 4;
    }
    strcpy(out + m, e);
}

static int check_midpoint(uint64_t b, int line) {
    char mid[1000], near[2000];
    midpoint_text(b, mid, sizeof mid);
    uint64_t even = (b & 1) ? b + 1 : b;
    if (!check_bits(mid, even, line)) return 0;
    nudge(mid, near, 0);
    if (!check_bits(near, b, line)) return 0;
    nudge(mid, near, 1);
    if (!check_bits(near, b + 1, line)) return 0;
    /* Zeros to just before, at and just after the 800th significant digit,
     * then a 1: always above the midpoint. */
    const char *e = strchr(mid, 'e');
    size_t m = (size_t)(e - mid), sig = m - (strchr(mid, '.') ? 1 : 0);
    memcpy(near, mid, m);
    if (!strchr(mid, '.')) near[m++] = '.';
    for (size_t last = 795; last <= 805; last += 5) {
        size_t k = m;
        for (size_t s = sig; s + 1 < last; s++) near[k++] = '0';
        near[k++] = '1';
        strcpy(near + k, e);
        if (!check_bits(near, b + 1, line)) return 0;
    }
    return 1;
}

TEST(midpoints) {
    /* Below the smallest subnormal, the largest subnormal, DBL_MIN, 1, the
     * largest double (whose upper midpoint rounds to infinity), 2^53. */
    static const uint64_t fixed[] = {0, 1, 2, 3, 0x000FFFFFFFFFFFFEu, 0x000FFFFFFFFFFFFFu,
                                     0x0010000000000000u, 0x3FF0000000000000u,
                                     0x3FEFFFFFFFFFFFFFu, 0x433FFFFFFFFFFFFFu,
                                     0x4340000000000000u, 0x7FEFFFFFFFFFFFFEu,
                                     0x7FEFFFFFFFFFFFFFu};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) check_midpoint(fixed[i], __LINE__);
    /* Every power of two. */
    for (uint64_t e = 1; e < 2047; e++) {
        if (!check_midpoint(e << 52, __LINE__)) return;
        if (!check_midpoint((e << 52) - 1, __LINE__)) return;
    }
}
#endif

/* ------------------------------------------------------------------------ */
/* Random decimal strings                                                    */

/* Random significant digits (1 to 25) placed anywhere around the decimal
 * point with a random exponent; valid JSON (no leading zeros). */
static void gen_random_digits(uint64_t *seed, char *out) {
    int nd = 1 + (int)(test_rand(seed) % 25);
    char dig[32];
    for (int i = 0; i < nd; i++) dig[i] = (char)('0' + test_rand(seed) % 10);
    dig[0] = (char)('1' + test_rand(seed) % 9);
    uint64_t x = test_rand(seed);
    int point = (int)(x % (uint64_t)(nd + 1)); /* digits before the point */
    int lead0 = point == 0 ? (int)((x >> 8) % 6) : 0; /* zeros after "0." */
    /* exponent so that the value spans 1e-345 .. 1e315 */
    int mag = -345 + (int)((x >> 16) % 661);
    int exp10 = mag - (point - lead0);
    char *p = out;
    if (x >> 40 & 1) *p++ = '-';
    if (point == 0) {
        *p++ = '0';
        *p++ = '.';
        for (int i = 0; i < lead0; i++) *p++ = '0';
        memcpy(p, dig, (size_t)nd);
        p += nd;
    } else {
        memcpy(p, dig, (size_t)point);
        p += point;
        if (point < nd) {
            *p++ = '.';
            memcpy(p, dig + point, (size_t)(nd - point));
            p += nd - point;
        }
    }
    /* Sometimes the exponent is omitted when small, or has a sign. */
    if (exp10 == 0 && (x >> 41 & 1)) {
        *p = 0;
        if (!strpbrk(out, ".")) sprintf(p, ".0");
        return;
    }
    sprintf(p, "%s%s%d", (x >> 42 & 1) ? "e" : "E", (exp10 >= 0 && (x >> 43 & 1)) ? "+" : "",
            exp10);
}

/* A random finite double from a random bit pattern. */
static double random_double(uint64_t *seed) {
    for (;;) {
        uint64_t b = test_rand(seed);
        if (test_rand(seed) % 8 == 0) b &= 0x800FFFFFFFFFFFFFu; /* subnormals */
        double d = from_bits(b);
        if (isfinite(d)) return d;
    }
}

/* Change the last significand digit of s by +-1 (not past 0 or 9). */
static void perturb_last_digit(char *s, int up) {
    char *e = strpbrk(s, "eE");
    char *d = e ? e - 1 : s + strlen(s) - 1;
    while (d > s && (*d < '0' || *d > '9')) d--;
    if (*d < '0' || *d > '9') return;
    if (up) *d = *d == '9' ? '8' : (char)(*d + 1);
    else *d = *d == '0' ? '1' : (char)(*d - 1);
    if (d == s || (d == s + 1 && s[0] == '-')) { /* keep a leading digit nonzero */
        if (*d == '0') *d = '1';
    }
}

/* n scaled by SDX_TEST_SCALE, and by a tenth under the sanitizers. */
static long scaled(long n) {
    long r = (long)((double)n * test_scale());
#ifdef TEST_SANITIZED
    r /= 10;
#endif
    return r;
}

TEST(random_strings) {
    long scale_n = scaled(1000000);
    uint64_t seed = 2024;
    char buf[1100];
    long counts[5] = {0};
    long before = checked_strings;
    for (long r = 0; r < scale_n; r++) {
        int kind = (int)(r % 10);
        if (kind < 4) { /* random significant digits */
            gen_random_digits(&seed, buf);
            counts[0]++;
        } else if (kind < 6) { /* %.17g of random bit patterns */
            snprintf(buf, sizeof buf, "%.17g", random_double(&seed));
            counts[1]++;
        } else if (kind < 8) { /* %.{1..17}g */
            int prec = 1 + (int)(test_rand(&seed) % 17);
            snprintf(buf, sizeof buf, "%.*g", prec, random_double(&seed));
            counts[2]++;
        } else if (kind < 9) { /* perturbed at the last digit */
            int prec = 15 + (int)(test_rand(&seed) % 3);
            snprintf(buf, sizeof buf, "%.*e", prec, random_double(&seed));
            perturb_last_digit(buf, (int)(test_rand(&seed) & 1));
            counts[3]++;
        } else { /* an exact midpoint, or one nudged down or up */
#ifdef TEST_MIDPOINTS
            uint64_t b = bits_of(fabs(random_double(&seed)));
            char mid[1000];
            midpoint_text(b, mid, sizeof mid);
            int how = (int)(test_rand(&seed) % 3);
            if (how == 0) strcpy(buf, mid);
            else nudge(mid, buf, how == 2);
            uint64_t want = how == 1 ? b : how == 2 ? b + 1 : (b & 1) ? b + 1 : b;
            if (!check_bits(buf, want, __LINE__)) return;
            counts[4]++;
            continue;
#else
            snprintf(buf, sizeof buf, "%.17e", random_double(&seed));
            counts[4]++;
#endif
        }
        if (!CHECK_STRING(buf)) return;
    }
    printf("  random strings: %ld (digits %ld, %%.17g %ld, %%.Ng %ld, perturbed %ld, midpoints %ld)\n",
           checked_strings - before, counts[0], counts[1], counts[2], counts[3], counts[4]);
}

/* 20 to 900 significant digits: the truncated path and the exact decision. */
TEST(random_long_strings) {
    long rounds = scaled(20000);
    uint64_t seed = 77;
    char buf[1100];
    for (long r = 0; r < rounds; r++) {
        int nd = 20 + (int)(test_rand(&seed) % 880);
        int style = (int)(test_rand(&seed) % 3);
        char *p = buf;
        /* style 0: random digits; 1: a %.17e prefix then zeros; 2: then nines */
        if (style == 0) {
            *p++ = (char)('1' + test_rand(&seed) % 9);
            *p++ = '.';
            for (int i = 1; i < nd; i++) *p++ = (char)('0' + test_rand(&seed) % 10);
        } else {
            char head[40];
            snprintf(head, sizeof head, "%.16e", fabs(random_double(&seed)));
            char *e = strchr(head, 'e');
            memcpy(p, head, (size_t)(e - head));
            p += e - head;
            for (int i = 17; i < nd; i++) *p++ = style == 1 ? '0' : '9';
            if (test_rand(&seed) & 1) *p++ = '1';
        }
        int exp10 = -330 + (int)(test_rand(&seed) % 640);
        sprintf(p, "e%d", exp10);
        if (!CHECK_STRING(buf)) return;
    }
    printf("  long strings: %ld\n", rounds);
}

/* ------------------------------------------------------------------------ */
/* Integers                                                                  */

static void check_int(const char *s, unsigned flags, sdx_num_kind kind, int64_t i, uint64_t u,
                      int line) {
    sdx_num v;
    long err;
    long r = json_scan(s, strlen(s), flags, &v, &err);
    int ok = r == (long)strlen(s) && v.kind == kind;
    if (ok && kind == SDX_NUM_INT) ok = v.v.i == i;
    if (ok && kind == SDX_NUM_UINT) ok = v.v.u == u;
    if (ok && kind == SDX_NUM_DOUBLE) ok = bits_of(v.v.d) == bits_of(ref_strtod(s));
    test_checks_run++;
    if (!ok) {
        fprintf(stderr, "  input \"%s\": consumed %ld, kind %d (want %d)\n", s, r, (int)v.kind,
                (int)kind);
        test_fail_at(__FILE__, line, "integer classification");
    }
    check_fast(s, strlen(s), line);
}

#define INT_IS(s, f, k, i, u) check_int((s), (f), (k), (i), (u), __LINE__)

TEST(integers) {
    const unsigned R = SDX_NUM_BIG_RAW;
    INT_IS("0", 0, SDX_NUM_INT, 0, 0);
    INT_IS("7", 0, SDX_NUM_INT, 7, 0);
    INT_IS("-7", 0, SDX_NUM_INT, -7, 0);
    INT_IS("-0", 0, SDX_NUM_DOUBLE, 0, 0);
    INT_IS("-0", R, SDX_NUM_DOUBLE, 0, 0);
    INT_IS("9223372036854775807", 0, SDX_NUM_INT, INT64_MAX, 0);
    INT_IS("9223372036854775808", 0, SDX_NUM_UINT, 0, 9223372036854775808u);
    INT_IS("-9223372036854775808", 0, SDX_NUM_INT, INT64_MIN, 0);
    INT_IS("-9223372036854775807", 0, SDX_NUM_INT, -INT64_MAX, 0);
    INT_IS("-9223372036854775809", 0, SDX_NUM_DOUBLE, 0, 0);
    INT_IS("-9223372036854775809", R, SDX_NUM_BIG, 0, 0);
    INT_IS("-18446744073709551615", 0, SDX_NUM_DOUBLE, 0, 0);
    INT_IS("-18446744073709551615", R, SDX_NUM_BIG, 0, 0);
    INT_IS("18446744073709551615", 0, SDX_NUM_UINT, 0, UINT64_MAX);
    INT_IS("18446744073709551615", R, SDX_NUM_UINT, 0, UINT64_MAX);
    INT_IS("18446744073709551616", 0, SDX_NUM_DOUBLE, 0, 0);
    INT_IS("18446744073709551616", R, SDX_NUM_BIG, 0, 0);
    INT_IS("10000000000000000000", 0, SDX_NUM_UINT, 0, 10000000000000000000u);
    INT_IS("99999999999999999999", 0, SDX_NUM_DOUBLE, 0, 0);
    INT_IS("99999999999999999999", R, SDX_NUM_BIG, 0, 0);
    INT_IS("1000000000000000000000", 0, SDX_NUM_DOUBLE, 0, 0);
    INT_IS("123456789012345678901234567890", 0, SDX_NUM_DOUBLE, 0, 0);
    INT_IS("123456789012345678901234567890", R, SDX_NUM_BIG, 0, 0);
    INT_IS("-123456789012345678901234567890", R, SDX_NUM_BIG, 0, 0);
    INT_IS("9007199254740993", 0, SDX_NUM_INT, 9007199254740993, 0);
    INT_IS("1e2", R, SDX_NUM_DOUBLE, 0, 0);
    INT_IS("1.0", R, SDX_NUM_DOUBLE, 0, 0);
    INT_IS("1e400", 0, SDX_NUM_DOUBLE, 0, 0);
    INT_IS("1e400", R, SDX_NUM_BIG, 0, 0);
    INT_IS("-1e400", R, SDX_NUM_BIG, 0, 0);
    INT_IS("1.7976931348623158e308", R, SDX_NUM_DOUBLE, 0, 0);
    INT_IS("1.7976931348623159e308", R, SDX_NUM_BIG, 0, 0);
    INT_IS("1e-400", R, SDX_NUM_DOUBLE, 0, 0);
    /* 310 digits: beyond the double range as an integer */
    char buf[400];
    buf[0] = '9';
    memset(buf + 1, '9', 309);
    buf[310] = 0;
    INT_IS(buf, 0, SDX_NUM_DOUBLE, 0, 0);
    INT_IS(buf, R, SDX_NUM_BIG, 0, 0);
    /* Every length from 1 to 25 digits, each sign, both flags. */
    uint64_t seed = 3;
    for (int r = 0; r < 20000; r++) {
        int nd = 1 + r % 25;
        int neg = (r / 25) & 1;
        char *p = buf;
        if (neg) *p++ = '-';
        for (int i = 0; i < nd; i++) p[i] = (char)('0' + test_rand(&seed) % 10);
        if (nd > 1 && p[0] == '0') p[0] = '1';
        if (r % 7 == 0) memset(p, '9', (size_t)nd);
        p[nd] = 0;
        /* expected kind by exact arithmetic on the digits */
        bool fits = true;
        uint64_t v = 0;
        for (int i = 0; i < nd; i++) {
            unsigned d = (unsigned)(p[i] - '0');
            if (v > (UINT64_MAX - d) / 10) fits = false;
            v = v * 10 + d;
        }
        unsigned flags = (r / 50) & 1 ? R : 0;
        if (fits && !neg && v <= (uint64_t)INT64_MAX) INT_IS(buf, flags, SDX_NUM_INT, (int64_t)v, 0);
        else if (fits && !neg) INT_IS(buf, flags, SDX_NUM_UINT, 0, v);
        else if (fits && neg && v == 0) INT_IS(buf, flags, SDX_NUM_DOUBLE, 0, 0);
        else if (fits && neg && v <= (uint64_t)INT64_MAX + 1)
            INT_IS(buf, flags, SDX_NUM_INT, v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v, 0);
        else INT_IS(buf, flags, flags ? SDX_NUM_BIG : SDX_NUM_DOUBLE, 0, 0);
    }
}

/* ------------------------------------------------------------------------ */
/* Grammar                                                                   */

typedef struct grammar_case {
    const char *in;
    long used; /* bytes consumed, or -1 for an error */
    long err;  /* with an error: the offset of *err_at */
} grammar_case;

TEST(json_grammar) {
    static const grammar_case cases[] = {
        {"", -1, 0},       {"-", -1, 1},       {"+1", -1, 0},      {".5", -1, 0},
        {"01", -1, 1},     {"-01", -1, 2},     {"00", -1, 1},      {"1.", -1, 2},
        {"1.x", -1, 2},    {"1.e5", -1, 2},    {"1e", -1, 2},      {"1e+", -1, 3},
        {"1e-", -1, 3},    {"1ex", -1, 2},     {"1e+x", -1, 3},    {"1.5e", -1, 4},
        {"1.5E-", -1, 5},  {"-x", -1, 1},      {"--1", -1, 1},     {"x", -1, 0},
        {"-.5", -1, 1},    {"1.5x", 3, 0},     {"0x10", 1, 0},     {"1.5e3x", 5, 0},
        {"0.0.1", 3, 0},   {"1e5.5", 3, 0},    {"1E+2", 4, 0},     {"2e-0", 4, 0},
        {"-0", 2, 0},      {"0", 1, 0},        {"123 ", 3, 0},     {"123,", 3, 0},
        {"1e1e1", 3, 0},   {"9.", -1, 2},      {"-1.0e+00005]", 11, 0}, {"0e", -1, 2},
        {"0.5-", 3, 0},    {"12345678901234567890123.5e", -1, 26},
        {"123456789.123456789e", -1, 20},      {"1234567890123456789x", 19, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const grammar_case *c = &cases[i];
        sdx_num v;
        long err;
        long r = json_scan(c->in, strlen(c->in), 0, &v, &err);
        test_checks_run++;
        if (r != c->used || (r < 0 && err != c->err)) {
            fprintf(stderr, "  input \"%s\": consumed %ld err_at %ld, want %ld / %ld\n", c->in, r,
                    err, c->used, c->err);
            test_fail_at(__FILE__, __LINE__, "json grammar");
        }
        check_fast(c->in, strlen(c->in), __LINE__);
        /* err_at may be NULL */
        char *p = place(c->in, strlen(c->in));
        const char *e = sdx_json_number(p, p + strlen(c->in), 0, &v, NULL);
        CHECK((e ? (long)(e - p) : -1) == c->used);
        placed_free(p, strlen(c->in));
    }
    /* Values of accepted forms. */
    sdx_num v;
    long err;
    CHECK(json_scan("1.5x", 4, 0, &v, &err) == 3 && v.kind == SDX_NUM_DOUBLE && v.v.d == 1.5);
    CHECK(json_scan("0x10", 4, 0, &v, &err) == 1 && v.kind == SDX_NUM_INT && v.v.i == 0);
    CHECK(json_scan("1E+2", 4, 0, &v, &err) == 4 && v.kind == SDX_NUM_DOUBLE && v.v.d == 100.0);
    CHECK(json_scan("-0.0", 4, 0, &v, &err) == 4 && v.kind == SDX_NUM_DOUBLE &&
          bits_of(v.v.d) == 0x8000000000000000u);
    CHECK(json_scan("-0e5", 4, 0, &v, &err) == 4 && v.kind == SDX_NUM_DOUBLE &&
          bits_of(v.v.d) == 0x8000000000000000u);
}

TEST(parse_double_grammar) {
    static const grammar_case cases[] = {
        {"", -1, 0},      {"+", -1, 0},      {"-", -1, 0},    {".5", -1, 0},   {"+.5", -1, 0},
        {"x", -1, 0},     {"+1", 2, 0},      {"-1", 2, 0},    {"007.5", 5, 0}, {"1.", 1, 0},
        {"1.x", 1, 0},    {"1e", 1, 0},      {"1e+", 1, 0},   {"1e-x", 1, 0},  {"1.5e-x", 3, 0},
        {"1.5e-3x", 6, 0}, {"00", 2, 0},     {"0x10", 1, 0},  {"1.e5", 1, 0},  {"12.5E+1", 7, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        long used;
        sdx_parse(cases[i].in, strlen(cases[i].in), &used);
        if (!CHECK_EQ_INT(used, cases[i].used)) fprintf(stderr, "  input \"%s\"\n", cases[i].in);
    }
    long used;
    CHECK(sdx_parse("007.5", 5, &used) == 7.5);
    CHECK(sdx_parse("+2.5e1", 6, &used) == 25.0);
    CHECK(sdx_parse("1e400", 5, &used) == HUGE_VAL);
    CHECK(sdx_parse("-1e400", 6, &used) == -HUGE_VAL);
    CHECK(sdx_parse("00000000000000000000000000001", 29, &used) == 1.0 && used == 29);
}

/* Every prefix of a set of numbers, placed at the end of readable memory:
 * no read past `end`, and the same result as a copy of the prefix with a
 * terminator read by the reference grammar (sdx_parse_double == strtod). */
TEST(prefixes_end_at_memory_end) {
    static const char *const nums[] = {
        "-12345678901234567890.12345678901234567890e-12345",
        "0.000000000000000000000000000000012345678901234567e+10",
        "123456789012345678",
        "-9223372036854775808",
        "1.7976931348623157e308",
        "2.4703282292062327208828439643411068618252990130716238221279284125033775363510437593264991818081799618989828234772285886546332835517796989819938739800539093906315035659515570226392290858392449105184435931802849936536152500319370457678249219365623669863658480757001585769269903706311928279558551332927834338409351978015531246597263579574622766465272827220056374006485499977096599470454020828166226237857393450736339007967761930577506740176324673600968951340535537458516661134223766678604162159680461914467291840300530057530849048765391711386591646239524912623653881879636239373280423891018672348497668235089863388587925628302755995657524455507255189313690836254779186948667994968324049705821028513185451396213837722826145437693412532098591327667236328125e-324",
    };
    char buf[1000];
    for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) {
        size_t len = strlen(nums[k]);
        for (size_t n = 0; n <= len; n++) {
            memcpy(buf, nums[k], n);
            buf[n] = 0;
            sdx_num v;
            long err;
            long r = json_scan(buf, n, 0, &v, &err);
            long r2 = json_scan(buf, n, SDX_NUM_BIG_RAW, &v, &err);
            CHECK(r == r2);
            if (r > 0 && v.kind == SDX_NUM_DOUBLE) {
                char tmp[1000];
                memcpy(tmp, buf, (size_t)r);
                tmp[r] = 0;
                if (!CHECK(bits_of(v.v.d) == bits_of(ref_strtod(tmp)))) return;
            }
            long used;
            double d = sdx_parse(buf, n, &used);
            if (used > 0) {
                char tmp[1000];
                memcpy(tmp, buf, (size_t)used);
                tmp[used] = 0;
                if (!CHECK(bits_of(d) == bits_of(ref_strtod(tmp)))) return;
            }
        }
    }
}

/* Numbers of every shape around the fast path's limits - digit counts of
 * the integer part, fraction and exponent from none to beyond what it
 * takes, signs, leading zeros, cut forms - must agree with sdx_json_number
 * wherever the fast path answers, and it must answer the common forms. */
TEST(fast_path_shapes) {
    uint64_t seed = 99;
    long rounds = scaled(300000);
    long before_checked = fast_checked, before_taken = fast_taken;
    char buf[128];
    for (long r = 0; r < rounds; r++) {
        uint64_t x = test_rand(&seed);
        char *p = buf;
        if (x & 1) *p++ = '-';
        int in = (int)((x >> 1) % 24); /* 0 (invalid) to 23 digits */
        for (int i = 0; i < in; i++) *p++ = (char)('0' + test_rand(&seed) % 10);
        if (in > 1 && (x >> 6) % 8 != 0 && p[-in] == '0') p[-in] = '1'; /* mostly no leading zero */
        if ((x >> 9) % 16 == 0) memset(p - in, '9', (size_t)in);
        if ((x >> 13) & 1) {
            *p++ = '.';
            int fn = (int)((x >> 14) % 23);
            for (int i = 0; i < fn; i++) *p++ = (char)('0' + test_rand(&seed) % 10);
        }
        if ((x >> 19) % 3 == 0) {
            *p++ = (x >> 21) & 1 ? 'e' : 'E';
            int sign = (int)((x >> 22) % 3);
            if (sign) *p++ = sign == 1 ? '+' : '-';
            int en = (int)((x >> 24) % 6);
            for (int i = 0; i < en; i++) *p++ = (char)('0' + test_rand(&seed) % 10);
        }
        *p = 0;
        if (!check_fast(buf, (size_t)(p - buf), __LINE__)) return;
    }
    /* the common forms, which the fast path must take */
    static const char *const common[] = {
        "0",  "-0", "7", "-65.613616999999977", "43.420273000000009", "342342342",
        "1234567890123456789", "-9223372036854775808", "9999999999999999999", "0.5e-3",
        "1E+2", "1.5e308", "1.2345678901234567e-300", "-0.0", "123456789.0123456789",
        "18446744073709551615", "18400000000000000000", "10000000000000000000",
        "-0.0007129935290235372", "0.00091671075860409962", "0.0", "0.0e5",
    };
    for (size_t i = 0; i < sizeof common / sizeof common[0]; i++) {
        long taken = fast_taken;
        CHECK_FAST(common[i]);
        if (!CHECK(fast_taken > taken)) fprintf(stderr, "  not taken: \"%s\"\n", common[i]);
    }
    /* "0." and runs of zeros before up to 22 digits; 20-digit integers
     * around 2^64 */
    for (int zeros = 0; zeros <= 10; zeros++) {
        for (int nd = 0; nd <= 22; nd++) {
            char *q = buf;
            if (nd & 1) *q++ = '-';
            *q++ = '0';
            *q++ = '.';
            for (int i = 0; i < zeros; i++) *q++ = '0';
            for (int i = 0; i < nd; i++) *q++ = (char)('0' + test_rand(&seed) % 10);
            if (nd % 3 == 0) q += sprintf(q, "e-%d", nd * 7);
            *q = 0;
            if (!check_fast(buf, (size_t)(q - buf), __LINE__)) return;
        }
    }
    static const char *const twenties[] = {
        "18446744073709551615", "18446744073709551616", "18446744073709551699",
        "18446744073709551614", "18399999999999999999", "18500000000000000000",
        "99999999999999999999", "10000000000000000000", "-10000000000000000000",
        "18446744073709551615.0", "18446744073709551615e0", "184467440737095516150",
    };
    for (size_t i = 0; i < sizeof twenties / sizeof twenties[0]; i++) CHECK_FAST(twenties[i]);
    printf("  fast path: %ld inputs, taken by it %ld\n", fast_checked - before_checked,
           fast_taken - before_taken);
}

/* The fast path's copy of the exponent formula and its table are those of
 * pow10_table.h. */
TEST(fast_path_tables) {
    for (int q = SDX_POW10_MIN; q <= 308; q++) {
        if (!CHECK_EQ_INT(sdx_num_floor_log2_pow10(q), sdx_floor_log2_pow10(q))) return;
        if (!CHECK(sdx_num_pow10_128[q - SDX_NUM_POW10_MIN][0] == sdx_pow10_128[q - SDX_POW10_MIN][0]))
            return;
    }
}

int main(int argc, char **argv) {
    int rc = test_run(argc, argv,
                      (test_case[]){{"boundary_values", boundary_values},
                                    {"difficult_decimals", difficult_decimals},
                                    {"long_noise", long_noise},
                                    {"million_digits", million_digits},
#ifdef TEST_MIDPOINTS
                                    {"midpoints", midpoints},
#endif
                                    {"random_strings", random_strings},
                                    {"random_long_strings", random_long_strings},
                                    {"integers", integers},
                                    {"json_grammar", json_grammar},
                                    {"parse_double_grammar", parse_double_grammar},
                                    {"prefixes_end_at_memory_end", prefixes_end_at_memory_end},
                                    {"fast_path_shapes", fast_path_shapes},
                                    {"fast_path_tables", fast_path_tables},
                                    {0}});
    free(tailed);
    return rc;
}
