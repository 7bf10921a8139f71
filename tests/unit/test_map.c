/* The mapping layer (map.h): every convention to JSON with exact text, the
 * reverse direction with exact events, bignums at their boundaries, the
 * digit limit, the tags policy, errors, allocation failure, and round
 * trips through both directions. */
#define _POSIX_C_SOURCE 200809L /* gmtime_r */
#include <math.h>
#include <time.h>

#include "alloc_test.h"
#include "sdx/json.h"
#include "sdx/map.h"
#include "test.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

static sdx_event ev(sdx_kind kind) {
    sdx_event e;
    memset(&e, 0, sizeof e);
    e.kind = (uint8_t)kind;
    return e;
}
static sdx_event ev_int(int64_t v) {
    sdx_event e = ev(SDX_INT);
    e.v.i = v;
    return e;
}
static sdx_event ev_u(sdx_kind kind, uint64_t v) {
    sdx_event e = ev(kind);
    e.v.u = v;
    return e;
}
static sdx_event ev_dbl(double d) {
    sdx_event e = ev(SDX_DOUBLE);
    e.v.d = d;
    return e;
}
static sdx_event ev_s(sdx_kind kind, const char *s, size_t n) {
    sdx_event e = ev(kind);
    e.v.str.ptr = s;
    e.v.str.len = n;
    return e;
}
static sdx_event ev_count(sdx_kind kind, uint64_t n) {
    sdx_event e = ev(kind);
    e.v.count = n;
    return e;
}
static sdx_event tagged(sdx_event e, sdx_tag_kind kind, uint64_t tag) {
    e.tag_kind = (uint8_t)kind;
    e.tag = tag;
    return e;
}
static sdx_event cbor(sdx_event e, uint64_t tag) { return tagged(e, SDX_TAG_CBOR, tag); }
static sdx_event tag_ev(uint64_t tag) { return cbor(ev(SDX_TAG), tag); }
static sdx_event simple(uint64_t n) { return tagged(ev(SDX_NULL), SDX_TAG_CBOR_SIMPLE, n); }
static sdx_event ext(int8_t type, const char *p, size_t n) {
    return tagged(ev_s(SDX_BIN, p, n), SDX_TAG_MSGPACK_EXT, (uint64_t)(int64_t)type);
}

/* Events through the layer (map flags, digit limit) into the JSON writer
 * (writer flags); the error and, when it is SDX_OK, the text. */
static char out_text[8192];
static size_t out_len;

static sdx_err to_json_ex(const sdx_event *evs, size_t n, uint32_t mflags, uint32_t max_digits, uint32_t jflags,
                          const sdx_alloc *alloc) {
    sdx_buf b;
    sdx_buf_init(&b, NULL);
    sdx_json_writer w;
    sdx_json_write_opts jo = {jflags, 0, NULL};
    sdx_json_writer_init(&w, &b, &jo);
    sdx_map_to_json m;
    sdx_map_opts mo = {mflags, 0, max_digits, alloc};
    sdx_map_to_json_init(&m, sdx_json_writer_sink(&w), &mo);
    for (size_t i = 0; i < n; i++) sdx_map_to_json_put(&m, &evs[i]);
    sdx_err e = sdx_map_to_json_finish(&m);
    out_len = sdx_buf_len(&b) < sizeof out_text ? sdx_buf_len(&b) : 0;
    memcpy(out_text, sdx_buf_data(&b), out_len);
    sdx_buf_destroy(&b);
    return e;
}

static sdx_err to_json(const sdx_event *evs, size_t n, uint32_t mflags) {
    return to_json_ex(evs, n, mflags, 0, SDX_JSON_WRITE_BIN_BASE64, NULL);
}

#define EXPECT_JSON(evs, flags, want)                                                          \
    do {                                                                                       \
        sdx_event list_[] = evs;                                                               \
        if (CHECK_EQ_INT(to_json(list_, sizeof list_ / sizeof list_[0], (flags)), SDX_OK))     \
            CHECK_STR(out_text, out_len, want);                                                \
    } while (0)
#define EXPECT_ERR(evs, flags, err)                                                            \
    do {                                                                                       \
        sdx_event list_[] = evs;                                                               \
        CHECK_EQ_INT(to_json(list_, sizeof list_ / sizeof list_[0], (flags)), (err));          \
    } while (0)
#define L(...) {__VA_ARGS__}

/* ------------------------------------------------------------------------ */
/* MessagePack ext                                                           */
/* ------------------------------------------------------------------------ */

static void check_ext(sdx_event e, uint32_t flags, sdx_err want_err, const char *want) {
    CHECK_EQ_INT(to_json(&e, 1, flags), want_err);
    if (want_err == SDX_OK && want) CHECK_STR(out_text, out_len, want);
}

/* The forms the JSON writer's old ext flag wrote, byte for byte, now with
 * SDX_MAP_TAGS_WRAP; timestamps in years 0000-9999 without any flag. */
TEST(msgpack_ext) {
    const uint32_t X = SDX_MAP_TAGS_WRAP;
    sdx_event plain = ext(5, "fo", 2);
    check_ext(plain, 0, SDX_ERR_UNSUPPORTED, NULL);
    check_ext(plain, X, SDX_OK, "{\"$ext\":5,\"$data\":\"Zm8=\"}");
    check_ext(plain, SDX_MAP_TAGS_DROP, SDX_OK, "\"Zm8=\""); /* the payload, as the writer writes binaries */
    CHECK_EQ_INT(to_json_ex(&plain, 1, SDX_MAP_TAGS_DROP, 0, 0, NULL), SDX_ERR_UNSUPPORTED);
    check_ext(ext(-128, "", 0), X, SDX_OK, "{\"$ext\":-128,\"$data\":\"\"}");
    /* timestamps: 32, 64 and 96 bits, fraction digits as needed */
    check_ext(ext(-1, "\x5a\x4a\xf6\xa5", 4), 0, SDX_OK, "\"2018-01-02T03:04:05Z\"");
    check_ext(ext(-1, "\xa1\xdc\xd7\xc8\x5a\x4a\xf6\xa5", 8), X, SDX_OK, "\"2018-01-02T03:04:05.678901234Z\"");
    check_ext(ext(-1, "\x00\x00\x00\x00", 4), 0, SDX_OK, "\"1970-01-01T00:00:00Z\"");
    check_ext(ext(-1, "\x77\x35\x94\x00\x00\x00\x00\x00", 8), 0, SDX_OK, "\"1970-01-01T00:00:00.5Z\"");
    check_ext(ext(-1, "\x3b\x9a\xc9\xff\xff\xff\xff\xff\xff\xff\xff\xff", 12), 0, SDX_OK,
              "\"1969-12-31T23:59:59.999999999Z\"");
    check_ext(ext(-1, "\0\0\0\0\xff\xff\xff\xff\x7c\x55\x81\x80", 12), 0, SDX_OK, "\"1900-01-01T00:00:00Z\"");
    check_ext(ext(-1, "\0\0\0\0\xff\xff\xff\xf1\x86\x8b\x84\x00", 12), 0, SDX_OK, "\"0000-01-01T00:00:00Z\"");
    /* outside years 0000-9999: the tags policy */
    check_ext(ext(-1, "\0\0\0\0\xff\xff\xff\xf1\x86\x8b\x83\xff", 12), 0, SDX_ERR_UNSUPPORTED, NULL);
    check_ext(ext(-1, "\0\0\0\0\xff\xff\xff\xf1\x86\x8b\x83\xff", 12), X, SDX_OK,
              "{\"$ext\":-1,\"$data\":\"AAAAAP////GGi4P/\"}");
    check_ext(ext(-1, "\0\0\0\0\x00\x00\x00\x3a\xff\xf4\x41\x7f", 12), 0, SDX_OK, "\"9999-12-31T23:59:59Z\"");
    check_ext(ext(-1, "\0\0\0\0\x00\x00\x00\x3a\xff\xf4\x41\x80", 12), X, SDX_OK,
              "{\"$ext\":-1,\"$data\":\"AAAAAAAAADr/9EGA\"}");
    check_ext(ext(-1, "\x38\xbb\x0c\x00", 4), 0, SDX_OK, "\"2000-02-29T00:00:00Z\"");
    /* a payload that is no timestamp: the generic form */
    check_ext(ext(-1, "abc", 3), X, SDX_OK, "{\"$ext\":-1,\"$data\":\"YWJj\"}");
    /* inside containers, and never as a key */
    EXPECT_JSON(L(ev_count(SDX_ARRAY, 2), ext(5, "fo", 2), ext(5, "fo", 2), ev(SDX_END)), X,
                "[{\"$ext\":5,\"$data\":\"Zm8=\"},{\"$ext\":5,\"$data\":\"Zm8=\"}]");
    EXPECT_ERR(L(ev_count(SDX_MAP, 1), ext(5, "fo", 2), ev_int(1), ev(SDX_END)), X, SDX_ERR_KEY);
    EXPECT_ERR(L(ev_count(SDX_MAP, 1), ext(-1, "\x5a\x4a\xf6\xa5", 4), ev_int(1), ev(SDX_END)), 0, SDX_ERR_KEY);
}

/* Timestamps as RFC 3339 against the C library's gmtime_r, at random
 * seconds over years 0000-9999 and random nanoseconds. */
TEST(msgpack_timestamps_vs_gmtime) {
    uint64_t rng = 31;
    int n = (int)(20000 * test_scale());
    for (int i = 0; i < n; i++) {
        int64_t lo = -62167219200ll, hi = 253402300799ll;
        int64_t sec = lo + (int64_t)(test_rand(&rng) % (uint64_t)(hi - lo + 1));
        uint32_t nsec = (uint32_t)(test_rand(&rng) % 1000000000u);
        if (i % 3 == 0) nsec = 0;
        if (i % 5 == 0) nsec -= nsec % 1000000;
        char payload[12];
        for (int k = 0; k < 4; k++) payload[k] = (char)(nsec >> (24 - 8 * k));
        for (int k = 0; k < 8; k++) payload[4 + k] = (char)((uint64_t)sec >> (56 - 8 * k));
        time_t t = (time_t)sec;
        struct tm tm;
        if (!gmtime_r(&t, &tm)) continue;
        char want[64];
        int len = snprintf(want, sizeof want, "\"%04d-%02d-%02dT%02d:%02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1,
                           tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
        if (nsec) {
            unsigned digits = 9, v = (unsigned)nsec;
            while (v % 10 == 0) {
                v /= 10;
                digits--;
            }
            len += snprintf(want + len, sizeof want - (size_t)len, ".%0*u", (int)digits, v);
        }
        snprintf(want + len, sizeof want - (size_t)len, "Z\"");
        check_ext(ext(-1, payload, 12), 0, SDX_OK, want);
    }
}

/* ------------------------------------------------------------------------ */
/* CBOR numbers                                                              */
/* ------------------------------------------------------------------------ */

#define BIG(tag, lit) cbor(ev_s(SDX_BIN, lit, sizeof lit - 1), tag)
#define P_2_64 "\x01\0\0\0\0\0\0\0\0"
#define P_10_40 "\x1d\x63\x29\xf1\xc3\x5c\xa4\xbf\xab\xb9\xf5\x61\x00\x00\x00\x00\x00"
#define P_10_40_MINUS_1 "\x1d\x63\x29\xf1\xc3\x5c\xa4\xbf\xab\xb9\xf5\x60\xff\xff\xff\xff\xff"

TEST(bignums) {
    EXPECT_JSON(L(BIG(2, "")), 0, "0");
    EXPECT_JSON(L(BIG(3, "")), 0, "-1");
    EXPECT_JSON(L(BIG(2, "\0\0\x01")), 0, "1");
    EXPECT_JSON(L(BIG(3, "\0\0\0")), 0, "-1");
    EXPECT_JSON(L(BIG(2, "\xff\xff\xff\xff\xff\xff\xff\xff")), 0, "18446744073709551615");
    EXPECT_JSON(L(BIG(2, P_2_64)), 0, "18446744073709551616");
    EXPECT_JSON(L(BIG(2, "\0\0" P_2_64)), 0, "18446744073709551616");
    EXPECT_JSON(L(BIG(3, "\xff\xff\xff\xff\xff\xff\xff\xff")), 0, "-18446744073709551616");
    EXPECT_JSON(L(BIG(3, P_2_64)), 0, "-18446744073709551617");
    EXPECT_JSON(L(BIG(2, P_10_40)), 0, "10000000000000000000000000000000000000000");
    EXPECT_JSON(L(BIG(3, P_10_40_MINUS_1)), 0, "-10000000000000000000000000000000000000000");
    /* SDX_NINT: the writer's exact text */
    EXPECT_JSON(L(ev_u(SDX_NINT, UINT64_MAX)), 0, "-18446744073709551616");
    EXPECT_JSON(L(ev_u(SDX_NINT, (uint64_t)INT64_MAX + 1)), 0, "-9223372036854775809");
    /* in containers, and as map keys only where the writer takes numbers */
    EXPECT_JSON(L(ev_count(SDX_ARRAY, 2), BIG(2, P_2_64), ev_int(1), ev(SDX_END)), 0, "[18446744073709551616,1]");
    EXPECT_ERR(L(ev_count(SDX_MAP, 1), BIG(2, P_2_64), ev_int(1), ev(SDX_END)), 0, SDX_ERR_KEY);
    /* a bignum on something else than a byte string */
    EXPECT_ERR(L(cbor(ev_s(SDX_STR, "1", 1), 2)), 0, SDX_ERR_UNSUPPORTED);
    EXPECT_JSON(L(cbor(ev_s(SDX_STR, "1", 1), 2)), SDX_MAP_TAGS_WRAP, "{\"$tag\":2,\"$value\":\"1\"}");
}

TEST(digit_limit) {
    sdx_event e = BIG(2, P_10_40_MINUS_1);
    CHECK_EQ_INT(to_json_ex(&e, 1, 0, 40, 0, NULL), SDX_OK); /* 40 digits */
    e = BIG(2, P_10_40);
    CHECK_EQ_INT(to_json_ex(&e, 1, 0, 40, 0, NULL), SDX_ERR_LIMIT); /* 41 */
    CHECK_EQ_INT(to_json_ex(&e, 1, 0, 41, 0, NULL), SDX_OK);
    /* the default, 4300 digits: 1785 bytes of ff have 4299, 1786 have 4302 */
    static char ff[4000];
    memset(ff, 0xff, sizeof ff);
    e = cbor(ev_s(SDX_BIN, ff, 1785), 2);
    CHECK_EQ_INT(to_json(&e, 1, 0), SDX_OK);
    CHECK_EQ_U64(out_len, 4299);
    e.v.str.len = 1786;
    CHECK_EQ_INT(to_json(&e, 1, 0), SDX_ERR_LIMIT);
    e.v.str.len = sizeof ff;
    CHECK_EQ_INT(to_json(&e, 1, 0), SDX_ERR_LIMIT);
    /* the highest limit there is, and one above it */
    CHECK_EQ_INT(to_json_ex(&e, 1, 0, SDX_MAP_MAX_DIGITS_CAP, 0, NULL), SDX_OK);
    CHECK_EQ_INT(to_json_ex(&e, 1, 0, SDX_MAP_MAX_DIGITS_CAP + 1, 0, NULL), SDX_ERR_INVALID_ARG);
}

#define FRAC(tag, e, m) cbor(ev_count(SDX_ARRAY, 2), tag), e, m, ev(SDX_END)

TEST(decimal_fractions) {
    EXPECT_JSON(L(FRAC(4, ev_int(-2), ev_int(27315))), 0, "273.15");
    EXPECT_JSON(L(FRAC(4, ev_int(-2), ev_int(-27315))), 0, "-273.15");
    EXPECT_JSON(L(FRAC(4, ev_int(2), ev_int(15))), 0, "1500");
    EXPECT_JSON(L(FRAC(4, ev_int(0), ev_int(5))), 0, "5");
    EXPECT_JSON(L(FRAC(4, ev_int(-4), ev_int(15))), 0, "0.0015");
    EXPECT_JSON(L(FRAC(4, ev_int(-1), ev_int(-5))), 0, "-0.5");
    EXPECT_JSON(L(FRAC(4, ev_int(-2), ev_int(150))), 0, "1.50");
    EXPECT_JSON(L(FRAC(4, ev_int(6), ev_int(15))), 0, "15000000");
    EXPECT_JSON(L(FRAC(4, ev_int(7), ev_int(15))), 0, "15e7");
    EXPECT_JSON(L(FRAC(4, ev_int(-8), ev_int(15))), 0, "0.00000015");
    EXPECT_JSON(L(FRAC(4, ev_int(-9), ev_int(15))), 0, "15e-9");
    EXPECT_JSON(L(FRAC(4, ev_int(-30), ev_int(15))), 0, "15e-30");
    EXPECT_JSON(L(FRAC(4, ev_int(3), ev_int(0))), 0, "0");
    EXPECT_JSON(L(FRAC(4, ev_int(INT64_MIN), ev_int(1))), 0, "1e-9223372036854775808");
    EXPECT_JSON(L(FRAC(4, ev_u(SDX_UINT, UINT64_MAX), ev_int(1))), 0, "1e18446744073709551615");
    EXPECT_JSON(L(FRAC(4, ev_u(SDX_NINT, UINT64_MAX), ev_int(1))), 0, "1e-18446744073709551616");
    EXPECT_JSON(L(FRAC(4, ev_int(-2), ev_u(SDX_NINT, UINT64_MAX))), 0, "-184467440737095516.16");
    EXPECT_JSON(L(FRAC(4, ev_int(-2), BIG(2, P_2_64))), 0, "184467440737095516.16");
    EXPECT_JSON(L(FRAC(4, ev_int(-2), BIG(3, P_2_64))), 0, "-184467440737095516.17");
    /* RFC 8949 Appendix A has none; §3.4.4's example: 4([-2, 27315]) = 273.15 (above).
     * Unknown count, and nested in an array */
    EXPECT_JSON(L(ev_count(SDX_ARRAY, 1), cbor(ev_count(SDX_ARRAY, SDX_COUNT_UNKNOWN), 4), ev_int(1), ev_int(1),
                  ev(SDX_END), ev(SDX_END)),
                0, "[10]");
    /* content of another shape: the tags policy, the array replayed */
    EXPECT_ERR(L(cbor(ev_count(SDX_ARRAY, 3), 4), ev_int(1), ev_int(2), ev_int(3), ev(SDX_END)), 0,
               SDX_ERR_UNSUPPORTED);
    EXPECT_JSON(L(cbor(ev_count(SDX_ARRAY, 3), 4), ev_int(1), ev_int(2), ev_int(3), ev(SDX_END)),
                SDX_MAP_TAGS_WRAP, "{\"$tag\":4,\"$value\":[1,2,3]}");
    EXPECT_ERR(L(cbor(ev_count(SDX_ARRAY, SDX_COUNT_UNKNOWN), 4), ev_int(1), BIG(2, "\x01"), ev_int(3), ev(SDX_END)),
               0, SDX_ERR_UNSUPPORTED);
    EXPECT_JSON(L(cbor(ev_count(SDX_ARRAY, SDX_COUNT_UNKNOWN), 4), ev_int(1), BIG(2, "\x01"), ev_int(3), ev(SDX_END)),
                SDX_MAP_TAGS_DROP, "[1,1,3]");
    EXPECT_JSON(L(cbor(ev_count(SDX_ARRAY, SDX_COUNT_UNKNOWN), 4), ev_s(SDX_STR, "a", 1), ev(SDX_END)),
                SDX_MAP_TAGS_WRAP, "{\"$tag\":4,\"$value\":[\"a\"]}");
    EXPECT_JSON(L(cbor(ev_count(SDX_ARRAY, SDX_COUNT_UNKNOWN), 4), ev_int(1), ev(SDX_END)), SDX_MAP_TAGS_WRAP,
                "{\"$tag\":4,\"$value\":[1]}");
    EXPECT_JSON(L(cbor(ev_count(SDX_ARRAY, 2), 4), ev_int(1), ev_count(SDX_ARRAY, 0), ev(SDX_END), ev(SDX_END)),
                SDX_MAP_TAGS_DROP, "[1,[]]");
    /* an exponent as a bignum is not allowed (§3.4.4) */
    EXPECT_ERR(L(FRAC(4, BIG(2, "\x01"), ev_int(1))), 0, SDX_ERR_UNSUPPORTED);
    /* the limit counts the mantissa's digits */
    sdx_event l[] = {FRAC(4, ev_int(-1), BIG(2, P_10_40))};
    CHECK_EQ_INT(to_json_ex(l, 4, 0, 40, 0, NULL), SDX_ERR_LIMIT);
    /* the input ends inside one */
    EXPECT_ERR(L(cbor(ev_count(SDX_ARRAY, 2), 4), ev_int(1)), 0, SDX_ERR_USAGE);
}

TEST(bigfloats) {
    EXPECT_JSON(L(FRAC(5, ev_int(-1), ev_int(3))), 0, "1.5"); /* RFC 8949 §3.4.4's example */
    EXPECT_JSON(L(FRAC(5, ev_int(1), ev_int(3))), 0, "6");
    EXPECT_JSON(L(FRAC(5, ev_int(-2), ev_int(-1))), 0, "-0.25");
    EXPECT_JSON(L(FRAC(5, ev_int(-1), ev_int(4))), 0, "2");
    EXPECT_JSON(L(FRAC(5, ev_int(-3), ev_int(1))), 0, "0.125");
    EXPECT_JSON(L(FRAC(5, ev_int(64), ev_int(1))), 0, "18446744073709551616");
    EXPECT_JSON(L(FRAC(5, ev_int(0), ev_int(0))), 0, "0");
    EXPECT_JSON(L(FRAC(5, ev_int(-1), BIG(3, P_2_64))), 0, "-9223372036854775808.5");
    /* 2^-1074, the smallest subnormal double, exactly: 1076 characters */
    sdx_event l[] = {FRAC(5, ev_int(-1074), ev_int(1))};
    if (CHECK_EQ_INT(to_json(l, 4, 0), SDX_OK)) {
        CHECK_EQ_U64(out_len, 1076);
        CHECK(memcmp(out_text, "0.0000000000", 12) == 0);
        CHECK(memcmp(out_text + 1076 - 12, "533447265625", 12) == 0);
    }
    EXPECT_ERR(L(FRAC(5, ev_int(100000), ev_int(1))), 0, SDX_ERR_LIMIT);
    EXPECT_ERR(L(FRAC(5, ev_int(-100000), ev_int(1))), 0, SDX_ERR_LIMIT);
    EXPECT_ERR(L(FRAC(5, ev_u(SDX_NINT, UINT64_MAX), ev_int(1))), 0, SDX_ERR_LIMIT);
    EXPECT_ERR(L(FRAC(5, ev_int(INT64_MAX), ev_int(1))), 0, SDX_ERR_LIMIT);
    /* 2^14000 has 4215 digits (within 4300), 2^14300 has 4305 */
    EXPECT_JSON(L(FRAC(5, ev_int(3), ev_int(1))), 0, "8");
    sdx_event ok[] = {FRAC(5, ev_int(14000), ev_int(1))};
    CHECK_EQ_INT(to_json(ok, 4, 0), SDX_OK);
    CHECK_EQ_U64(out_len, 4215);
    sdx_event over[] = {FRAC(5, ev_int(14300), ev_int(1))};
    CHECK_EQ_INT(to_json(over, 4, 0), SDX_ERR_LIMIT);
}

/* ------------------------------------------------------------------------ */
/* Dates, byte strings, 55799                                                */
/* ------------------------------------------------------------------------ */

TEST(dates) {
    /* RFC 8949 Appendix A: 0("2013-03-21T20:04:00Z"), 1(1363896240), 1(1363896240.5) */
    EXPECT_JSON(L(cbor(ev_s(SDX_STR, "2013-03-21T20:04:00Z", 20), 0)), 0, "\"2013-03-21T20:04:00Z\"");
    EXPECT_JSON(L(cbor(ev_int(1363896240), 1)), 0, "\"2013-03-21T20:04:00Z\"");
    EXPECT_JSON(L(cbor(ev_dbl(1363896240.5), 1)), 0, "\"2013-03-21T20:04:00.5Z\"");
    EXPECT_JSON(L(cbor(ev_dbl(1363896240.0), 1)), 0, "\"2013-03-21T20:04:00Z\"");
    EXPECT_JSON(L(cbor(ev_dbl(1.1), 1)), 0, "\"1970-01-01T00:00:01.1Z\"");
    EXPECT_JSON(L(cbor(ev_dbl(-1.5), 1)), 0, "\"1969-12-31T23:59:58.5Z\"");
    EXPECT_JSON(L(cbor(ev_dbl(1e-9), 1)), 0, "\"1970-01-01T00:00:00.000000001Z\"");
    EXPECT_JSON(L(cbor(ev_u(SDX_UINT, 253402300799), 1)), 0, "\"9999-12-31T23:59:59Z\"");
    EXPECT_JSON(L(cbor(ev_int(-62167219200), 1)), 0, "\"0000-01-01T00:00:00Z\"");
    /* no RFC 3339 text: the tags policy */
    EXPECT_ERR(L(cbor(ev_int(253402300800), 1)), 0, SDX_ERR_UNSUPPORTED);
    EXPECT_ERR(L(cbor(ev_int(-62167219201), 1)), 0, SDX_ERR_UNSUPPORTED);
    EXPECT_ERR(L(cbor(ev_dbl(1e-10), 1)), 0, SDX_ERR_UNSUPPORTED);
    EXPECT_ERR(L(cbor(ev_dbl(NAN), 1)), 0, SDX_ERR_UNSUPPORTED);
    EXPECT_ERR(L(cbor(ev_u(SDX_UINT, UINT64_MAX), 1)), 0, SDX_ERR_UNSUPPORTED);
    EXPECT_ERR(L(cbor(ev_u(SDX_NINT, 5), 1)), 0, SDX_ERR_UNSUPPORTED);
    EXPECT_JSON(L(cbor(ev_int(253402300800), 1)), SDX_MAP_TAGS_DROP, "253402300800");
    EXPECT_JSON(L(cbor(ev_s(SDX_STR, "x", 1), 1)), SDX_MAP_TAGS_WRAP, "{\"$tag\":1,\"$value\":\"x\"}");
    EXPECT_ERR(L(cbor(ev_int(0), 0)), 0, SDX_ERR_UNSUPPORTED);
}

TEST(byte_strings) {
    /* 24: embedded CBOR stays a byte string (the writer's binary option) */
    EXPECT_JSON(L(cbor(ev_s(SDX_BIN, "\x64\x49\x45\x54\x46", 5), 24)), 0, "\"ZElFVEY=\"");
    sdx_event e = cbor(ev_s(SDX_BIN, "\x01", 1), 24);
    CHECK_EQ_INT(to_json_ex(&e, 1, 0, 0, 0, NULL), SDX_ERR_UNSUPPORTED);
    /* 21-23: expected conversions, as RFC 8949 §6.1 writes them */
    EXPECT_JSON(L(cbor(ev_s(SDX_BIN, "\xfb\xff", 2), 21)), 0, "\"-_8\"");
    EXPECT_JSON(L(cbor(ev_s(SDX_BIN, "\xfb\xff", 2), 22)), 0, "\"+/8=\"");
    EXPECT_JSON(L(cbor(ev_s(SDX_BIN, "\xfb\xff\x00", 3), 23)), 0, "\"fbff00\"");
    EXPECT_JSON(L(cbor(ev_s(SDX_BIN, "", 0), 21)), 0, "\"\"");
    CHECK_EQ_INT(to_json_ex(&e, 1, 0, 0, 0, NULL), SDX_ERR_UNSUPPORTED);
    e = cbor(ev_s(SDX_BIN, "\x01\x02\x03\x04", 4), 21);
    CHECK_EQ_INT(to_json_ex(&e, 1, 0, 0, 0, NULL), SDX_OK); /* no binary option needed */
    CHECK_STR(out_text, out_len, "\"AQIDBA\"");
    EXPECT_ERR(L(cbor(ev_int(1), 21)), 0, SDX_ERR_UNSUPPORTED);
}

TEST(self_describe) {
    EXPECT_JSON(L(tag_ev(55799), ev_int(1)), 0, "1");
    EXPECT_JSON(L(cbor(ev_int(1), 55799)), 0, "1");
    EXPECT_JSON(L(tag_ev(55799), BIG(2, P_2_64)), 0, "18446744073709551616");
    EXPECT_JSON(L(tag_ev(2), cbor(ev_s(SDX_BIN, "\x01", 1), 55799)), 0, "1");
    EXPECT_JSON(L(tag_ev(55799), cbor(ev_count(SDX_ARRAY, 1), 55799), ev_int(1), ev(SDX_END)), 0, "[1]");
}

/* ------------------------------------------------------------------------ */
/* The tags policy, simple values, other tag kinds                          */
/* ------------------------------------------------------------------------ */

TEST(unknown_tags) {
    EXPECT_ERR(L(cbor(ev_int(1), 99)), 0, SDX_ERR_UNSUPPORTED);
    EXPECT_JSON(L(cbor(ev_int(1), 99)), SDX_MAP_TAGS_DROP, "1");
    EXPECT_JSON(L(cbor(ev_int(1), 99)), SDX_MAP_TAGS_WRAP, "{\"$tag\":99,\"$value\":1}");
    EXPECT_JSON(L(cbor(ev_int(1), UINT64_MAX)), SDX_MAP_TAGS_WRAP, "{\"$tag\":18446744073709551615,\"$value\":1}");
    /* CWT 61(18([...])): outer tags first */
    EXPECT_JSON(L(tag_ev(61), cbor(ev_count(SDX_ARRAY, 1), 18), ev_int(1), ev(SDX_END)), SDX_MAP_TAGS_WRAP,
                "{\"$tag\":61,\"$value\":{\"$tag\":18,\"$value\":[1]}}");
    EXPECT_JSON(L(tag_ev(61), cbor(ev_count(SDX_ARRAY, 1), 18), ev_int(1), ev(SDX_END)), SDX_MAP_TAGS_DROP, "[1]");
    /* a tag with a meaning outside the innermost one has none */
    EXPECT_ERR(L(tag_ev(1), BIG(2, "\x05")), 0, SDX_ERR_UNSUPPORTED);
    EXPECT_JSON(L(tag_ev(1), BIG(2, "\x05")), SDX_MAP_TAGS_WRAP, "{\"$tag\":1,\"$value\":5}");
    /* wrappers close after their item, whatever its depth */
    EXPECT_JSON(L(ev_count(SDX_ARRAY, 3), cbor(ev_int(1), 99), cbor(ev_count(SDX_MAP, 1), 98), ev_s(SDX_KEY, "k", 1),
                  cbor(ev_count(SDX_ARRAY, 0), 97), ev(SDX_END), ev(SDX_END), ev_int(2), ev(SDX_END)),
                SDX_MAP_TAGS_WRAP,
                "[{\"$tag\":99,\"$value\":1},{\"$tag\":98,\"$value\":{\"k\":{\"$tag\":97,\"$value\":[]}}},2]");
    /* a tag on a key cannot be wrapped */
    EXPECT_ERR(L(ev_count(SDX_MAP, 1), tag_ev(99), ev_s(SDX_KEY, "k", 1), ev_int(1), ev(SDX_END)), SDX_MAP_TAGS_WRAP,
               SDX_ERR_KEY);
    EXPECT_JSON(L(ev_count(SDX_MAP, 1), tag_ev(99), ev_s(SDX_KEY, "k", 1), ev_int(1), ev(SDX_END)), SDX_MAP_TAGS_DROP,
                "{\"k\":1}");
    /* a tag on nothing */
    EXPECT_ERR(L(ev_count(SDX_ARRAY, SDX_COUNT_UNKNOWN), tag_ev(99), ev(SDX_END)), SDX_MAP_TAGS_DROP, SDX_ERR_USAGE);
    EXPECT_ERR(L(tag_ev(99)), SDX_MAP_TAGS_DROP, SDX_ERR_USAGE);
    /* at most SDX_MAP_MAX_TAGS held for one item */
    sdx_event many[SDX_MAP_MAX_TAGS + 2];
    for (int i = 0; i < SDX_MAP_MAX_TAGS + 1; i++) many[i] = tag_ev(100);
    many[SDX_MAP_MAX_TAGS + 1] = ev_int(1);
    CHECK_EQ_INT(to_json(many + 1, SDX_MAP_MAX_TAGS + 1, SDX_MAP_TAGS_DROP), SDX_OK);
    CHECK_EQ_INT(to_json(many, SDX_MAP_MAX_TAGS + 2, SDX_MAP_TAGS_DROP), SDX_ERR_LIMIT);
    /* BSON: Extended JSON by default; with SDX_MAP_EJSON_OFF the policy */
    EXPECT_JSON(L(tagged(ev_int(1), SDX_TAG_BSON, 9)), 0, "{\"$date\":\"1970-01-01T00:00:00.001Z\"}");
    EXPECT_ERR(L(tagged(ev_int(1), SDX_TAG_BSON, 9)), SDX_MAP_EJSON_OFF, SDX_ERR_UNSUPPORTED);
    EXPECT_JSON(L(tagged(ev_int(1), SDX_TAG_BSON, 9)), SDX_MAP_EJSON_OFF | SDX_MAP_TAGS_DROP, "1");
    /* a BSON tag on a value of another kind: the policy */
    EXPECT_ERR(L(tagged(ev_s(SDX_STR, "x", 1), SDX_TAG_BSON, 7)), 0, SDX_ERR_UNSUPPORTED);
}

TEST(simple_values) {
    EXPECT_ERR(L(simple(23)), 0, SDX_ERR_UNSUPPORTED);
    EXPECT_JSON(L(simple(23)), SDX_MAP_UNDEFINED_NULL, "null");
    EXPECT_JSON(L(simple(23)), SDX_MAP_TAGS_DROP, "null");
    EXPECT_JSON(L(simple(23)), SDX_MAP_TAGS_WRAP, "{\"$simple\":23}");
    EXPECT_JSON(L(simple(23)), SDX_MAP_TAGS_WRAP | SDX_MAP_UNDEFINED_NULL, "null");
    EXPECT_ERR(L(simple(16)), SDX_MAP_UNDEFINED_NULL, SDX_ERR_UNSUPPORTED);
    EXPECT_JSON(L(simple(16)), SDX_MAP_TAGS_DROP, "null");
    EXPECT_JSON(L(ev_count(SDX_ARRAY, 2), simple(255), simple(0), ev(SDX_END)), SDX_MAP_TAGS_WRAP,
                "[{\"$simple\":255},{\"$simple\":0}]");
    EXPECT_JSON(L(tag_ev(5), simple(16)), SDX_MAP_TAGS_WRAP, "{\"$tag\":5,\"$value\":{\"$simple\":16}}");
    /* plain null, false, true are no simple values here */
    EXPECT_JSON(L(ev(SDX_NULL)), 0, "null");
}

TEST(options) {
    sdx_map_to_json m;
    sdx_json_writer w;
    sdx_buf b;
    sdx_buf_init(&b, NULL);
    sdx_map_opts bad[] = {{SDX_MAP_TAGS_DROP | SDX_MAP_TAGS_WRAP, 0, 0, NULL},
                          {1u << 6, 0, 0, NULL},
                          {0, SDX_MAP_TARGET_CBOR, 0, NULL},
                          {0, 0, SDX_MAP_MAX_DIGITS_CAP + 1, NULL},
                          {SDX_MAP_EJSON_RELAXED | SDX_MAP_EJSON_CANONICAL, 0, 0, NULL},
                          {SDX_MAP_EJSON_OFF | SDX_MAP_EJSON_RELAXED, 0, 0, NULL}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sdx_json_writer_init(&w, &b, NULL);
        CHECK_EQ_INT(sdx_map_to_json_init(&m, sdx_json_writer_sink(&w), &bad[i]), SDX_ERR_INVALID_ARG);
        sdx_event one = ev_int(1);
        CHECK_EQ_INT(sdx_map_to_json_put(&m, &one), SDX_ERR_INVALID_ARG);
        CHECK_EQ_INT(sdx_map_to_json_finish(&m), SDX_ERR_INVALID_ARG);
    }
    sdx_map_from_json r;
    bad[2].target = 1u << 5;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sdx_json_writer_init(&w, &b, NULL);
        CHECK_EQ_INT(sdx_map_from_json_init(&r, sdx_json_writer_sink(&w), &bad[i]), SDX_ERR_INVALID_ARG);
        CHECK_EQ_INT(sdx_map_from_json_finish(&r), SDX_ERR_INVALID_ARG);
    }
    /* the writer's error comes back through the layer */
    sdx_json_writer_init(&w, &b, NULL);
    sdx_map_to_json_init(&m, sdx_json_writer_sink(&w), NULL);
    sdx_event bin = ev_s(SDX_BIN, "a", 1);
    CHECK_EQ_INT(sdx_map_to_json_put(&m, &bin), SDX_ERR_UNSUPPORTED);
    CHECK_EQ_INT(sdx_map_to_json_finish(&m), SDX_ERR_UNSUPPORTED);
    sdx_buf_destroy(&b);
}

/* Every allocation failure: SDX_ERR_NOMEM (or success once none fails),
 * nothing leaked. */
TEST(allocation_failure) {
    static char big[600];
    memset(big, 0xab, sizeof big);
    sdx_event evs[] = {ev_count(SDX_ARRAY, SDX_COUNT_UNKNOWN),
                       tag_ev(61),
                       tag_ev(62),
                       cbor(ev_count(SDX_ARRAY, 1), 18),
                       cbor(ev_s(SDX_BIN, big, sizeof big), 2),
                       ev(SDX_END),
                       ext(7, big, sizeof big),
                       FRAC(5, ev_int(-300), cbor(ev_s(SDX_BIN, big, 100), 3)),
                       cbor(ev_s(SDX_BIN, big, sizeof big), 23),
                       ev(SDX_END)};
    size_t n = sizeof evs / sizeof evs[0];
    int succeeded = 0;
    for (long fail_at = 1; fail_at < 100 && !succeeded; fail_at++) {
        counting_alloc a;
        counting_alloc_init(&a, fail_at);
        sdx_err e = to_json_ex(evs, n, SDX_MAP_TAGS_WRAP, 0, 0, &a.iface);
        CHECK(e == SDX_OK || e == SDX_ERR_NOMEM);
        CHECK_EQ_INT(a.live, 0);
        succeeded = e == SDX_OK;
    }
    CHECK(succeeded);
}

/* ------------------------------------------------------------------------ */
/* From JSON                                                                 */
/* ------------------------------------------------------------------------ */

/* A sink that records events as text lines: "kind tag_kind:tag value". */
typedef struct recorder {
    char text[16384];
    size_t len;
    int finished;
} recorder;

static sdx_err rec_put(void *ctx, const sdx_event *e) {
    recorder *r = ctx;
    char line[1400];
    int n = snprintf(line, sizeof line, "%d", e->kind);
    if (e->tag_kind) n += snprintf(line + n, sizeof line - (size_t)n, " t%d:%llu", e->tag_kind, (unsigned long long)e->tag);
    switch ((sdx_kind)e->kind) {
    case SDX_INT: n += snprintf(line + n, sizeof line - (size_t)n, " %lld", (long long)e->v.i); break;
    case SDX_UINT:
    case SDX_NINT: n += snprintf(line + n, sizeof line - (size_t)n, " %llu", (unsigned long long)e->v.u); break;
    case SDX_ARRAY:
    case SDX_MAP: n += snprintf(line + n, sizeof line - (size_t)n, " #%llu", (unsigned long long)e->v.count); break;
    case SDX_STR:
    case SDX_KEY:
    case SDX_RAW: n += snprintf(line + n, sizeof line - (size_t)n, " %.*s", (int)e->v.str.len, e->v.str.ptr); break;
    case SDX_BIN:
        n += snprintf(line + n, sizeof line - (size_t)n, " ");
        for (size_t i = 0; i < e->v.str.len && n < 1300; i++)
            n += snprintf(line + n, sizeof line - (size_t)n, "%02x", (unsigned char)e->v.str.ptr[i]);
        break;
    default: break;
    }
    n += snprintf(line + n, sizeof line - (size_t)n, ";");
    if (r->len + (size_t)n < sizeof r->text) {
        memcpy(r->text + r->len, line, (size_t)n);
        r->len += (size_t)n;
    }
    return SDX_OK;
}
static sdx_err rec_finish(void *ctx) {
    ((recorder *)ctx)->finished++;
    return SDX_OK;
}
static const sdx_sink_vt rec_vt = {rec_put, rec_finish};
static recorder rec;

/* JSON text through the JSON reader (numbers beyond 64 bits as text) and
 * the reverse layer into the recorder. */
static sdx_err from_json_ex(const char *json, uint32_t flags, uint32_t target, uint32_t max_digits,
                            const sdx_alloc *alloc) {
    memset(&rec, 0, sizeof rec);
    sdx_json_read_opts ro = {SDX_JSON_READ_BIGNUM_RAW, 0, NULL};
    sdx_json_reader *r = sdx_json_reader_new(json, strlen(json), &ro);
    sdx_map_from_json m;
    sdx_map_opts mo = {flags, target, max_digits, alloc};
    sdx_sink s = {&rec_vt, &rec};
    sdx_map_from_json_init(&m, s, &mo);
    sdx_event e;
    while (sdx_json_reader_next(r, &e)) sdx_map_from_json_put(&m, &e);
    CHECK_EQ_INT(sdx_json_reader_error(r, NULL), SDX_OK);
    sdx_json_reader_free(r);
    sdx_err err = sdx_map_from_json_finish(&m);
    CHECK_EQ_INT(rec.finished, 1);
    return err;
}
static sdx_err from_json(const char *json, uint32_t flags, uint32_t target) {
    return from_json_ex(json, flags, target, 0, NULL);
}

#define CBOR_T SDX_MAP_TARGET_CBOR
#define EXT_T SDX_MAP_TARGET_MSGPACK_EXT
#define EXPECT_EVENTS(json, flags, target, want)                                               \
    do {                                                                                       \
        if (CHECK_EQ_INT(from_json(json, flags, target), SDX_OK)) CHECK_STR(rec.text, rec.len, want); \
    } while (0)

TEST(from_json_numbers) {
    /* kinds: 2 INT 3 UINT 6 BIN 7 ARRAY 10 END 11 RAW 12 NINT 13 TAG */
    EXPECT_EVENTS("18446744073709551615", 0, CBOR_T, "3 18446744073709551615;");
    EXPECT_EVENTS("18446744073709551616", 0, CBOR_T, "6 t2:2 010000000000000000;");
    EXPECT_EVENTS("-9223372036854775808", 0, CBOR_T, "2 -9223372036854775808;");
    EXPECT_EVENTS("-9223372036854775809", 0, CBOR_T, "12 9223372036854775808;");
    EXPECT_EVENTS("-18446744073709551616", 0, CBOR_T, "12 18446744073709551615;");
    EXPECT_EVENTS("-18446744073709551617", 0, CBOR_T, "6 t2:3 010000000000000000;");
    EXPECT_EVENTS("10000000000000000000000000000000000000000", 0, CBOR_T, "6 t2:2 1d6329f1c35ca4bfabb9f5610000000000;");
    EXPECT_EVENTS("-10000000000000000000000000000000000000000", 0, CBOR_T,
                  "6 t2:3 1d6329f1c35ca4bfabb9f560ffffffffff;");
    /* numbers whose double would be infinite: decimal fractions */
    EXPECT_EVENTS("1e400", 0, CBOR_T, "7 t2:4 #2;2 400;2 1;10;");
    EXPECT_EVENTS("-1.50E+400", 0, CBOR_T, "7 t2:4 #2;2 398;2 -150;10;");
    EXPECT_EVENTS("[0.0000001e320]", 0, CBOR_T, "7 #18446744073709551615;7 t2:4 #2;2 313;2 1;10;10;");
    EXPECT_EVENTS("[1e308,-0]", 0, CBOR_T, "7 #18446744073709551615;4;4;10;"); /* doubles stay */
    EXPECT_EVENTS("123456789012345678901234567890.5e300", 0, CBOR_T,
                  "7 t2:4 #2;2 299;6 t2:2 0f951a9fa3a286c94f0e766c39;10;");
    CHECK_EQ_INT(from_json("1e99999999999999999999", 0, CBOR_T), SDX_ERR_RANGE);
    CHECK_EQ_INT(from_json("1e9223372036854775808", 0, CBOR_T), SDX_ERR_RANGE);
    /* targets without these types get the text, as before */
    EXPECT_EVENTS("18446744073709551616", 0, EXT_T, "11 18446744073709551616;");
    EXPECT_EVENTS("[1e400,1]", 0, 0, "7 #18446744073709551615;11 1e400;2 1;10;");
    /* the digit limit */
    CHECK_EQ_INT(from_json_ex("10000000000000000000000000000000000000000", 0, CBOR_T, 40, NULL), SDX_ERR_LIMIT);
    CHECK_EQ_INT(from_json_ex("9999999999999999999999999999999999999999", 0, CBOR_T, 40, NULL), SDX_OK);
    static char huge[4400];
    memset(huge, '9', 4301);
    huge[4301] = 0;
    CHECK_EQ_INT(from_json(huge, 0, CBOR_T), SDX_ERR_LIMIT);
    huge[4300] = 0;
    CHECK_EQ_INT(from_json(huge, 0, CBOR_T), SDX_OK);
}

TEST(from_json_wrapped) {
    const uint32_t W = SDX_MAP_TAGS_WRAP, T = CBOR_T | EXT_T;
    EXPECT_EVENTS("{\"$tag\":99,\"$value\":[1]}", W, T, "7 t2:99 #18446744073709551615;2 1;10;");
    EXPECT_EVENTS("[{\"$tag\":1,\"$value\":{\"$tag\":2,\"$value\":5}},7]", W, T,
                  "7 #18446744073709551615;13 t2:1;2 t2:2 5;2 7;10;");
    EXPECT_EVENTS("{\"$tag\":18446744073709551615,\"$value\":null}", W, T, "0 t2:18446744073709551615;");
    EXPECT_EVENTS("{\"$tag\":2,\"$value\":18446744073709551616}", W, T, "13 t2:2;6 t2:2 010000000000000000;");
    EXPECT_EVENTS("{\"$simple\":23}", W, T, "0 t4:23;");
    EXPECT_EVENTS("{\"$ext\":-2,\"$data\":\"AQI=\"}", W, T, "6 t1:18446744073709551614 0102;");
    EXPECT_EVENTS("{\"$ext\":5,\"$data\":\"\"}", W, EXT_T, "6 t1:5 ;");
    /* maps that are not the forms pass unchanged */
    EXPECT_EVENTS("{\"$ext\":-2,\"$data\":\"AQI\"}", W, T, "8 #18446744073709551615;9 $ext;2 -2;9 $data;5 AQI;10;");
    EXPECT_EVENTS("{\"$ext\":-2,\"$data\":\"AQI=\",\"x\":1}", W, T,
                  "8 #18446744073709551615;9 $ext;2 -2;9 $data;5 AQI=;9 x;2 1;10;");
    EXPECT_EVENTS("{\"$ext\":300,\"$data\":\"\"}", W, T, "8 #18446744073709551615;9 $ext;2 300;9 $data;5 ;10;");
    EXPECT_EVENTS("{\"$tag\":-1,\"$value\":1}", W, T, "8 #18446744073709551615;9 $tag;2 -1;9 $value;2 1;10;");
    EXPECT_EVENTS("{\"$simple\":24}", W, T, "8 #18446744073709551615;9 $simple;2 24;10;");
    EXPECT_EVENTS("{\"$tag\":{\"$tag\":1,\"$value\":2}}", W, T, "8 #18446744073709551615;9 $tag;2 t2:1 2;10;");
    EXPECT_EVENTS("{\"a\":1}", W, T, "8 #18446744073709551615;9 a;2 1;10;");
    EXPECT_EVENTS("{}", W, T, "8 #18446744073709551615;10;");
    /* only with the flag, and only for a target that has the type */
    EXPECT_EVENTS("{\"$simple\":23}", 0, T, "8 #18446744073709551615;9 $simple;2 23;10;");
    EXPECT_EVENTS("{\"$simple\":23}", W, EXT_T, "8 #18446744073709551615;9 $simple;2 23;10;");
    EXPECT_EVENTS("{\"$ext\":1,\"$data\":\"\"}", W, CBOR_T, "8 #18446744073709551615;9 $ext;2 1;9 $data;5 ;10;");
    /* a {"$tag"} map that goes on after its value */
    CHECK_EQ_INT(from_json("{\"$tag\":1,\"$value\":5,\"x\":1}", W, T), SDX_ERR_SYNTAX);
    /* the input ends inside a held map: its events are sent on */
    memset(&rec, 0, sizeof rec);
    sdx_map_from_json m;
    sdx_map_opts mo = {W, T, 0, NULL};
    sdx_sink s = {&rec_vt, &rec};
    sdx_map_from_json_init(&m, s, &mo);
    sdx_event evs[] = {ev_count(SDX_MAP, 1), ev_s(SDX_KEY, "$simple", 7)};
    sdx_map_from_json_put(&m, &evs[0]);
    sdx_map_from_json_put(&m, &evs[1]);
    CHECK_EQ_INT(sdx_map_from_json_finish(&m), SDX_OK);
    CHECK_STR(rec.text, rec.len, "8 #1;9 $simple;");
}

/* Events -> JSON (wrapped) -> events: the tagged values come back. */
TEST(round_trips) {
    static char big[300];
    uint64_t rng = 5;
    for (int i = 0; i < 400; i++) {
        size_t n = (size_t)(test_rand(&rng) % sizeof big);
        for (size_t k = 0; k < n; k++) big[k] = (char)test_rand(&rng);
        size_t lead = i % 3 == 0 ? (size_t)(test_rand(&rng) % 4) : 0;
        for (size_t k = 0; k < lead && k < n; k++) big[k] = 0;
        int neg = i % 2;
        sdx_event e = cbor(ev_s(SDX_BIN, big, n), neg ? 3 : 2);
        if (!CHECK_EQ_INT(to_json(&e, 1, 0), SDX_OK)) return;
        char json[1000];
        memcpy(json, out_text, out_len);
        json[out_len] = 0;
        if (!CHECK_EQ_INT(from_json(json, 0, CBOR_T), SDX_OK)) return;
        /* the magnitude without leading zeros, or the 64-bit integer */
        size_t z = 0;
        while (z < n && big[z] == 0) z++;
        char want[1400];
        int w;
        if (n - z > 8) {
            w = snprintf(want, sizeof want, "6 t2:%d ", neg ? 3 : 2);
            for (size_t k = z; k < n; k++) w += snprintf(want + w, sizeof want - (size_t)w, "%02x", (unsigned char)big[k]);
            w += snprintf(want + w, sizeof want - (size_t)w, ";");
        } else {
            uint64_t v = 0;
            for (size_t k = z; k < n; k++) v = v << 8 | (unsigned char)big[k];
            if (!neg) w = snprintf(want, sizeof want, v > INT64_MAX ? "3 %llu;" : "2 %llu;", (unsigned long long)v);
            else if (v < (uint64_t)INT64_MAX + 1) w = snprintf(want, sizeof want, "2 -%llu;", (unsigned long long)v + 1);
            else w = snprintf(want, sizeof want, "12 %llu;", (unsigned long long)v);
        }
        if (!CHECK_STR(rec.text, rec.len, want)) return;
    }
    /* tags, ext values and simple values through the wrapped forms */
    sdx_event evs[] = {ev_count(SDX_ARRAY, 5),
                       cbor(ev_int(1), 99),
                       tag_ev(61),
                       cbor(ev_count(SDX_ARRAY, 1), 18),
                       simple(23),
                       ev(SDX_END),
                       ext(-2, "\x01\x02", 2),
                       ext(-1, "abc", 3),
                       BIG(2, P_10_40),
                       ev(SDX_END)};
    if (!CHECK_EQ_INT(to_json(evs, sizeof evs / sizeof evs[0], SDX_MAP_TAGS_WRAP), SDX_OK)) return;
    char json[1000];
    memcpy(json, out_text, out_len);
    json[out_len] = 0;
    EXPECT_EVENTS(json, SDX_MAP_TAGS_WRAP, CBOR_T | EXT_T,
                  "7 #18446744073709551615;2 t2:99 1;13 t2:61;7 t2:18 #18446744073709551615;0 t4:23;10;"
                  "6 t1:18446744073709551614 0102;6 t1:18446744073709551615 616263;"
                  "6 t2:2 1d6329f1c35ca4bfabb9f5610000000000;10;");
}

TEST(from_json_allocation_failure) {
    const char *json = "[{\"$tag\":1,\"$value\":{\"$tag\":2,\"$value\":100000000000000000000000000000000000}},"
                       "{\"$ext\":1,\"$data\":\"AQIDBA==\"},-1.5e400,{\"x\":1}]";
    int succeeded = 0;
    for (long fail_at = 1; fail_at < 100 && !succeeded; fail_at++) {
        counting_alloc a;
        counting_alloc_init(&a, fail_at);
        sdx_err e = from_json_ex(json, SDX_MAP_TAGS_WRAP, CBOR_T | EXT_T, 0, &a.iface);
        CHECK(e == SDX_OK || e == SDX_ERR_NOMEM);
        CHECK_EQ_INT(a.live, 0);
        succeeded = e == SDX_OK;
    }
    CHECK(succeeded);
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){{"msgpack_ext", msgpack_ext},
                                  {"msgpack_timestamps_vs_gmtime", msgpack_timestamps_vs_gmtime},
                                  {"bignums", bignums},
                                  {"digit_limit", digit_limit},
                                  {"decimal_fractions", decimal_fractions},
                                  {"bigfloats", bigfloats},
                                  {"dates", dates},
                                  {"byte_strings", byte_strings},
                                  {"self_describe", self_describe},
                                  {"unknown_tags", unknown_tags},
                                  {"simple_values", simple_values},
                                  {"options", options},
                                  {"allocation_failure", allocation_failure},
                                  {"from_json_numbers", from_json_numbers},
                                  {"from_json_wrapped", from_json_wrapped},
                                  {"round_trips", round_trips},
                                  {"from_json_allocation_failure", from_json_allocation_failure},
                                  {0, 0}});
}
