/* The CBOR writer: every head size boundary, preferred floats, NaN,
 * indefinite and back-patched containers, deterministic order and
 * duplicates, sequences, tags, simple values, events, misuse, fixed and
 * stream buffers, allocation failure at every point. Expected bytes are
 * RFC 8949 Appendix A where it has the value. */
#include "guard_pages.h" /* first: it sets feature macros */

#include <math.h>

#include "alloc_test.h"
#include "cbor_test.h"
#include "short_strings.h"

typedef struct wfix {
    sdx_buf out;
    sdx_cbor_writer w;
} wfix;

static sdx_cbor_writer *wopen(wfix *f, uint32_t flags) {
    sdx_cbor_write_opts o = {flags, NULL};
    sdx_buf_init(&f->out, NULL);
    sdx_cbor_writer_init(&f->w, &f->out, &o);
    return &f->w;
}

/* finish, compare with the hex, free */
#define WDONE(f, hex)                                            \
    do {                                                         \
        CHECK_EQ_INT(sdx_cbor_writer_finish(&(f)->w), SDX_OK);   \
        CHECK_HEX(&(f)->out, hex);                               \
        sdx_buf_destroy(&(f)->out);                              \
    } while (0)

#define ONE_UINT(v, hex)                                 \
    do {                                                 \
        wfix f_;                                         \
        sdx_cbor_writer_uint(wopen(&f_, 0), v);          \
        WDONE(&f_, hex);                                 \
    } while (0)
#define ONE_INT(v, hex)                                  \
    do {                                                 \
        wfix f_;                                         \
        sdx_cbor_writer_int(wopen(&f_, 0), v);           \
        WDONE(&f_, hex);                                 \
    } while (0)
#define ONE_DOUBLE(v, hex)                               \
    do {                                                 \
        wfix f_;                                         \
        sdx_cbor_writer_double(wopen(&f_, 0), v);        \
        WDONE(&f_, hex);                                 \
    } while (0)

TEST(integer_heads) {
    ONE_UINT(0, "00");
    ONE_UINT(23, "17");
    ONE_UINT(24, "1818");
    ONE_UINT(255, "18ff");
    ONE_UINT(256, "190100");
    ONE_UINT(65535, "19ffff");
    ONE_UINT(65536, "1a00010000");
    ONE_UINT(4294967295u, "1affffffff");
    ONE_UINT(4294967296u, "1b0000000100000000");
    ONE_UINT(UINT64_MAX, "1bffffffffffffffff");
    ONE_INT(1000000, "1a000f4240");
    ONE_INT(-1, "20");
    ONE_INT(-24, "37");
    ONE_INT(-25, "3818");
    ONE_INT(-256, "38ff");
    ONE_INT(-257, "390100");
    ONE_INT(-65537, "3a00010000");
    ONE_INT(-4294967297LL, "3b0000000100000000");
    ONE_INT(INT64_MIN, "3b7fffffffffffffff");
    ONE_INT(INT64_MAX, "1b7fffffffffffffff");
    wfix f;
    sdx_cbor_writer_nint(wopen(&f, 0), UINT64_MAX); /* -18446744073709551616 */
    WDONE(&f, "3bffffffffffffffff");
    sdx_cbor_writer_nint(wopen(&f, 0), 9); /* -10 */
    WDONE(&f, "29");
}

TEST(floats_preferred) {
    ONE_DOUBLE(0.0, "f90000");
    ONE_DOUBLE(-0.0, "f98000");
    ONE_DOUBLE(1.0, "f93c00");
    ONE_DOUBLE(1.1, "fb3ff199999999999a");
    ONE_DOUBLE(1.5, "f93e00");
    ONE_DOUBLE(65504.0, "f97bff");
    ONE_DOUBLE(100000.0, "fa47c35000");
    ONE_DOUBLE(3.4028234663852886e+38, "fa7f7fffff");
    ONE_DOUBLE(1.0e+300, "fb7e37e43c8800759c");
    ONE_DOUBLE(5.960464477539063e-8, "f90001");
    ONE_DOUBLE(0.00006103515625, "f90400");
    ONE_DOUBLE(-4.0, "f9c400");
    ONE_DOUBLE(-4.1, "fbc010666666666666");
    ONE_DOUBLE(INFINITY, "f97c00");
    ONE_DOUBLE(-INFINITY, "f9fc00");
    ONE_DOUBLE(NAN, "f97e00");
    ONE_DOUBLE(-NAN, "f97e00");
    /* boundaries: below the smallest subnormal half, between halves */
    ONE_DOUBLE(2.9802322387695312e-8, "fa33000000"); /* 2^-25: a float */
    ONE_DOUBLE(65520.0, "fa477ff000");                /* above the half range */
    ONE_DOUBLE(1.0 + 1.0 / 1024, "f93c01");
    ONE_DOUBLE(1.0 + 1.0 / 2048, "fa3f801000");
    ONE_DOUBLE(1.52587890625e-05, "f90100"); /* 2^-16: a subnormal half */
    /* always float64 */
    wfix f;
    sdx_cbor_writer_double(wopen(&f, SDX_CBOR_WRITE_FLOAT64), 1.5);
    WDONE(&f, "fb3ff8000000000000");
    sdx_cbor_writer_float(wopen(&f, 0), 100000.0f);
    WDONE(&f, "fa47c35000");
    sdx_cbor_writer_half(wopen(&f, 0), 0x7c00);
    WDONE(&f, "f97c00");
}

TEST(strings_and_bytes) {
    wfix f;
    sdx_cbor_writer_string(wopen(&f, 0), "", 0);
    WDONE(&f, "60");
    sdx_cbor_writer_string(wopen(&f, 0), "IETF", 4);
    WDONE(&f, "6449455446");
    sdx_cbor_writer_string(wopen(&f, 0), "\xc3\xbc", 2);
    WDONE(&f, "62c3bc");
    sdx_cbor_writer_string(wopen(&f, 0), "\xe6\xb0\xb4", 3);
    WDONE(&f, "63e6b0b4");
    sdx_cbor_writer_bytes(wopen(&f, 0), "\x01\x02\x03\x04", 4);
    WDONE(&f, "4401020304");
    sdx_cbor_writer_bytes(wopen(&f, 0), NULL, 0);
    WDONE(&f, "40");
    /* length heads at their boundaries */
    static char big[70000];
    memset(big, 'a', sizeof big);
    size_t lens[] = {23, 24, 255, 256, 65535, 65536};
    const char *heads[] = {"77", "7818", "78ff", "790100", "79ffff", "7a00010000"};
    for (size_t i = 0; i < 6; i++) {
        sdx_cbor_writer_string(wopen(&f, 0), big, lens[i]);
        CHECK_EQ_INT(sdx_cbor_writer_finish(&f.w), SDX_OK);
        unsigned char h[8];
        size_t hn = unhex(heads[i], h);
        CHECK_EQ_U64(sdx_buf_len(&f.out), hn + lens[i]);
        CHECK_MEM(sdx_buf_data(&f.out), hn, h, hn);
        sdx_buf_destroy(&f.out);
    }
    /* invalid UTF-8 */
    sdx_cbor_writer_string(wopen(&f, 0), "\xff", 1);
    CHECK_EQ_INT(sdx_cbor_writer_finish(&f.w), SDX_ERR_UTF8);
    sdx_buf_destroy(&f.out);
    sdx_cbor_writer_string(wopen(&f, SDX_CBOR_WRITE_NO_UTF8_CHECK), "\xff", 1);
    WDONE(&f, "61ff");
}

TEST(containers) {
    wfix f;
    sdx_cbor_writer *w = wopen(&f, 0);
    sdx_cbor_writer_begin_array(w, 3);
    sdx_cbor_writer_int(w, 1);
    sdx_cbor_writer_begin_array(w, 2);
    sdx_cbor_writer_int(w, 2);
    sdx_cbor_writer_int(w, 3);
    sdx_cbor_writer_end(w);
    sdx_cbor_writer_begin_array(w, 2);
    sdx_cbor_writer_int(w, 4);
    sdx_cbor_writer_int(w, 5);
    sdx_cbor_writer_end(w);
    sdx_cbor_writer_end(w);
    WDONE(&f, "8301820203820405");
    w = wopen(&f, 0);
    sdx_cbor_writer_begin_array(w, 25);
    for (int i = 1; i <= 25; i++) sdx_cbor_writer_int(w, i);
    sdx_cbor_writer_end(w);
    WDONE(&f, "98190102030405060708090a0b0c0d0e0f101112131415161718181819");
    w = wopen(&f, 0);
    sdx_cbor_writer_begin_map(w, 2);
    sdx_cbor_writer_int(w, 1);
    sdx_cbor_writer_int(w, 2);
    sdx_cbor_writer_int(w, 3);
    sdx_cbor_writer_int(w, 4);
    sdx_cbor_writer_end(w);
    WDONE(&f, "a201020304");
    /* indefinite (default for unknown counts) */
    w = wopen(&f, 0);
    sdx_cbor_writer_begin_map(w, SDX_COUNT_UNKNOWN);
    sdx_cbor_writer_key(w, "a", 1);
    sdx_cbor_writer_int(w, 1);
    sdx_cbor_writer_key(w, "b", 1);
    sdx_cbor_writer_begin_array(w, SDX_COUNT_UNKNOWN);
    sdx_cbor_writer_int(w, 2);
    sdx_cbor_writer_int(w, 3);
    sdx_cbor_writer_end(w);
    sdx_cbor_writer_end(w);
    WDONE(&f, "bf61610161629f0203ffff");
    /* back-patched: 1-byte heads, and every longer head */
    uint64_t counts[] = {0, 23, 24, 255, 256, 65536};
    const char *heads[] = {"80", "97", "9818", "98ff", "990100", "9a00010000"};
    for (size_t i = 0; i < 6; i++) {
        w = wopen(&f, SDX_CBOR_WRITE_DEFINITE);
        sdx_cbor_writer_begin_array(w, SDX_COUNT_UNKNOWN);
        for (uint64_t k = 0; k < counts[i]; k++) sdx_cbor_writer_int(w, 7);
        sdx_cbor_writer_end(w);
        CHECK_EQ_INT(sdx_cbor_writer_finish(w), SDX_OK);
        unsigned char h[8];
        size_t hn = unhex(heads[i], h);
        CHECK_EQ_U64(sdx_buf_len(&f.out), hn + counts[i]);
        CHECK_MEM(sdx_buf_data(&f.out), hn, h, hn);
        int all7 = 1;
        for (size_t k = hn; k < sdx_buf_len(&f.out); k++) all7 &= sdx_buf_data(&f.out)[k] == 7;
        CHECK(all7);
        sdx_buf_destroy(&f.out);
    }
    w = wopen(&f, SDX_CBOR_WRITE_DEFINITE);
    sdx_cbor_writer_begin_map(w, SDX_COUNT_UNKNOWN);
    sdx_cbor_writer_key(w, "a", 1);
    sdx_cbor_writer_begin_array(w, SDX_COUNT_UNKNOWN);
    sdx_cbor_writer_end(w);
    sdx_cbor_writer_end(w);
    WDONE(&f, "a1616180");
}

TEST(tags_simple_undefined) {
    wfix f;
    sdx_cbor_writer *w = wopen(&f, 0);
    sdx_cbor_writer_tag(w, 0);
    sdx_cbor_writer_string(w, "2013-03-21T20:04:00Z", 20);
    WDONE(&f, "c074323031332d30332d32315432303a30343a30305a");
    w = wopen(&f, 0);
    sdx_cbor_writer_tag(w, 1);
    sdx_cbor_writer_double(w, 1363896240.5);
    WDONE(&f, "c1fb41d452d9ec200000");
    w = wopen(&f, 0);
    sdx_cbor_writer_tag(w, 61);
    sdx_cbor_writer_tag(w, 18);
    sdx_cbor_writer_begin_array(w, 0);
    sdx_cbor_writer_end(w);
    WDONE(&f, "d83dd280");
    w = wopen(&f, 0);
    sdx_cbor_writer_tag(w, 32);
    sdx_cbor_writer_string(w, "http://www.example.com", 22);
    WDONE(&f, "d82076687474703a2f2f7777772e6578616d706c652e636f6d");
    w = wopen(&f, 0);
    sdx_cbor_writer_tag(w, UINT64_MAX);
    sdx_cbor_writer_null(w);
    WDONE(&f, "dbfffffffffffffffff6");
    /* a tag on a map key and on a map */
    w = wopen(&f, 0);
    sdx_cbor_writer_tag(w, 5);
    sdx_cbor_writer_begin_map(w, 1);
    sdx_cbor_writer_tag(w, 6);
    sdx_cbor_writer_key(w, "k", 1);
    sdx_cbor_writer_undefined(w);
    sdx_cbor_writer_end(w);
    WDONE(&f, "c5a1c6616bf7");
    sdx_cbor_writer_simple(wopen(&f, 0), 16);
    WDONE(&f, "f0");
    sdx_cbor_writer_simple(wopen(&f, 0), 255);
    WDONE(&f, "f8ff");
    sdx_cbor_writer_simple(wopen(&f, 0), 32);
    WDONE(&f, "f820");
    sdx_cbor_writer_simple(wopen(&f, 0), 24);
    CHECK_EQ_INT(sdx_cbor_writer_finish(&f.w), SDX_ERR_INVALID_ARG);
    sdx_buf_destroy(&f.out);
    w = wopen(&f, 0);
    sdx_cbor_writer_begin_array(w, 4);
    sdx_cbor_writer_bool(w, false);
    sdx_cbor_writer_bool(w, true);
    sdx_cbor_writer_null(w);
    sdx_cbor_writer_undefined(w);
    sdx_cbor_writer_end(w);
    WDONE(&f, "84f4f5f6f7");
    /* self-described */
    w = wopen(&f, SDX_CBOR_WRITE_SELF_DESCRIBE);
    sdx_cbor_writer_int(w, 1);
    WDONE(&f, "d9d9f701");
}

TEST(deterministic) {
    wfix f;
    /* RFC 8949 section 4.2.1's example order: 10, 100, -1, "z", "aa",
     * [100], [-1], false */
    sdx_cbor_writer *w = wopen(&f, SDX_CBOR_WRITE_DETERMINISTIC);
    sdx_cbor_writer_begin_map(w, SDX_COUNT_UNKNOWN);
    sdx_cbor_writer_bool(w, false);
    sdx_cbor_writer_int(w, 8);
    sdx_cbor_writer_begin_array(w, 1);
    sdx_cbor_writer_int(w, -1);
    sdx_cbor_writer_end(w);
    sdx_cbor_writer_int(w, 7);
    sdx_cbor_writer_begin_array(w, 1);
    sdx_cbor_writer_int(w, 100);
    sdx_cbor_writer_end(w);
    sdx_cbor_writer_int(w, 6);
    sdx_cbor_writer_key(w, "aa", 2);
    sdx_cbor_writer_int(w, 5);
    sdx_cbor_writer_key(w, "z", 1);
    sdx_cbor_writer_int(w, 4);
    sdx_cbor_writer_int(w, -1);
    sdx_cbor_writer_int(w, 3);
    sdx_cbor_writer_int(w, 100);
    sdx_cbor_writer_begin_map(w, 2); /* nested, sorted too */
    sdx_cbor_writer_key(w, "b", 1);
    sdx_cbor_writer_int(w, 1);
    sdx_cbor_writer_key(w, "a", 1);
    sdx_cbor_writer_tag(w, 1);
    sdx_cbor_writer_int(w, 2);
    sdx_cbor_writer_end(w);
    sdx_cbor_writer_int(w, 10);
    sdx_cbor_writer_int(w, 1);
    sdx_cbor_writer_end(w);
    WDONE(&f, "a8 0a01 1864a2616 1c102616201 2003 617a04 62616105 81186406 812007 f408");
    /* duplicate keys */
    w = wopen(&f, SDX_CBOR_WRITE_DETERMINISTIC);
    sdx_cbor_writer_begin_map(w, 3);
    sdx_cbor_writer_key(w, "a", 1);
    sdx_cbor_writer_int(w, 1);
    sdx_cbor_writer_key(w, "b", 1);
    sdx_cbor_writer_int(w, 1);
    sdx_cbor_writer_key(w, "a", 1);
    sdx_cbor_writer_int(w, 2);
    CHECK_EQ_INT(sdx_cbor_writer_end(w), SDX_ERR_KEY);
    CHECK_EQ_INT(sdx_cbor_writer_finish(w), SDX_ERR_KEY);
    sdx_buf_destroy(&f.out);
    /* a tagged key sorts by its tag's bytes */
    w = wopen(&f, SDX_CBOR_WRITE_DETERMINISTIC);
    sdx_cbor_writer_begin_map(w, 2);
    sdx_cbor_writer_tag(w, 1);
    sdx_cbor_writer_int(w, 0);
    sdx_cbor_writer_null(w);
    sdx_cbor_writer_int(w, 0);
    sdx_cbor_writer_null(w);
    sdx_cbor_writer_end(w);
    WDONE(&f, "a200f6c100f6");
    /* bignums in preferred serialization (RFC 8949 section 3.4.3): leading
     * zeros dropped, a value that fits 64 bits as a plain integer */
    w = wopen(&f, SDX_CBOR_WRITE_DETERMINISTIC);
    sdx_cbor_writer_begin_array(w, 7);
    sdx_cbor_writer_tag(w, 2);
    sdx_cbor_writer_bytes(w, "\0\0\1", 3);              /* 1 */
    sdx_cbor_writer_tag(w, 3);
    sdx_cbor_writer_bytes(w, "\1\0", 2);                 /* -1 - 256 */
    sdx_cbor_writer_tag(w, 2);
    sdx_cbor_writer_bytes(w, NULL, 0);                    /* 0 */
    sdx_cbor_writer_tag(w, 2);
    sdx_cbor_writer_bytes(w, "\0\1\0\0\0\0\0\0\0\0", 10); /* 2^64 */
    sdx_cbor_writer_tag(w, 3);
    sdx_cbor_writer_bytes(w, "\xff\xff\xff\xff\xff\xff\xff\xff", 8); /* -2^64 */
    sdx_cbor_writer_tag(w, 2);
    sdx_cbor_writer_int(w, 5);                            /* not a bignum: kept */
    sdx_event ev = {0};
    ev.kind = SDX_BIN;
    ev.tag_kind = SDX_TAG_CBOR;
    ev.tag = 2;
    ev.v.str.ptr = "\0\x07";
    ev.v.str.len = 2;
    sdx_cbor_writer_put(w, &ev);                          /* the event path */
    sdx_cbor_writer_end(w);
    WDONE(&f, "87 01 390100 00 c249010000000000000000 3bffffffffffffffff c205 07");
    /* ... and a bignum key sorts as the integer it is written as */
    w = wopen(&f, SDX_CBOR_WRITE_DETERMINISTIC);
    sdx_cbor_writer_begin_map(w, 2);
    sdx_cbor_writer_tag(w, 2);
    sdx_cbor_writer_bytes(w, "\0\5", 2);
    sdx_cbor_writer_int(w, 1);
    sdx_cbor_writer_int(w, 3);
    sdx_cbor_writer_int(w, 2);
    sdx_cbor_writer_end(w);
    WDONE(&f, "a2 0302 0501");
    /* float64 with deterministic is refused */
    sdx_cbor_write_opts o = {SDX_CBOR_WRITE_DETERMINISTIC | SDX_CBOR_WRITE_FLOAT64, NULL};
    sdx_buf_init(&f.out, NULL);
    CHECK_EQ_INT(sdx_cbor_writer_init(&f.w, &f.out, &o), SDX_ERR_INVALID_ARG);
    sdx_cbor_writer_finish(&f.w);
    sdx_buf_destroy(&f.out);
    /* many entries in reverse order, in a stream buffer of small chunks */
    w = wopen(&f, SDX_CBOR_WRITE_DETERMINISTIC);
    sdx_cbor_writer_begin_map(w, 1000);
    for (int i = 999; i >= 0; i--) {
        sdx_cbor_writer_int(w, i);
        sdx_cbor_writer_int(w, -i);
    }
    sdx_cbor_writer_end(w);
    CHECK_EQ_INT(sdx_cbor_writer_finish(w), SDX_OK);
    sdx_doc *doc = sdx_cbor_parse(sdx_buf_data(&f.out), sdx_buf_len(&f.out), NULL, NULL);
    if (CHECK(doc != NULL)) {
        sdx_node m = sdx_doc_root(doc);
        CHECK_EQ_U64(sdx_node_len(m), 1000);
        /* bytewise order: 0..23, 24..255, 256..999 ascending */
        int ok = 1;
        for (uint64_t i = 0; i < 1000; i++)
            ok &= sdx_node_int(sdx_node_key_at(m, i)) == (int64_t)i &&
                  sdx_node_int(sdx_node_value_at(m, i)) == -(int64_t)i;
        CHECK(ok);
    }
    sdx_doc_free(doc);
    sdx_cbor_read_opts ro = {SDX_CBOR_READ_DETERMINISTIC, 0, 0, 0, NULL};
    doc = sdx_cbor_parse(sdx_buf_data(&f.out), sdx_buf_len(&f.out), &ro, NULL);
    CHECK(doc != NULL);
    sdx_doc_free(doc);
    sdx_buf_destroy(&f.out);
}

static size_t collect(void *ctx, const void *data, size_t len) {
    sdx_buf *b = ctx;
    return sdx_buf_write(b, data, len) ? 0 : len;
}

TEST(stream_buffers) {
    /* back-patched and sorted containers in a stream of 16-byte chunks give
     * the same bytes as in memory */
    for (int det = 0; det < 2; det++) {
        uint32_t flags = det ? SDX_CBOR_WRITE_DETERMINISTIC : SDX_CBOR_WRITE_DEFINITE;
        sdx_buf mem, sink, st;
        sdx_buf_init(&mem, NULL);
        sdx_buf_init(&sink, NULL);
        sdx_buf_init_stream(&st, collect, &sink, 16, NULL);
        for (int k = 0; k < 2; k++) {
            sdx_cbor_writer w;
            sdx_cbor_write_opts o = {flags, NULL};
            sdx_cbor_writer_init(&w, k ? &st : &mem, &o);
            sdx_cbor_writer_begin_array(&w, SDX_COUNT_UNKNOWN);
            for (int i = 0; i < 30; i++) {
                sdx_cbor_writer_begin_map(&w, SDX_COUNT_UNKNOWN);
                for (int j = 30; j > 0; j--) {
                    sdx_cbor_writer_int(&w, j * 1000);
                    sdx_cbor_writer_string(&w, "value", 5);
                }
                sdx_cbor_writer_end(&w);
            }
            sdx_cbor_writer_end(&w);
            CHECK_EQ_INT(sdx_cbor_writer_finish(&w), SDX_OK);
        }
        CHECK_MEM(sdx_buf_data(&sink), sdx_buf_len(&sink), sdx_buf_data(&mem), sdx_buf_len(&mem));
        CHECK_EQ_U64(sdx_buf_len(&mem) > 30 * 30 * 8, 1);
        sdx_buf_destroy(&st);
        sdx_buf_destroy(&sink);
        sdx_buf_destroy(&mem);
    }
    /* a fixed buffer of exactly the size, and one byte less */
    char fixed[16];
    sdx_buf b;
    sdx_buf_init_fixed(&b, fixed, 5);
    sdx_cbor_writer w;
    sdx_cbor_writer_init(&w, &b, NULL);
    sdx_cbor_writer_begin_array(&w, 2);
    sdx_cbor_writer_int(&w, 1000); /* 19 03e8 */
    sdx_cbor_writer_int(&w, 1);
    sdx_cbor_writer_end(&w);
    CHECK_EQ_INT(sdx_cbor_writer_finish(&w), SDX_OK);
    CHECK_HEX(&b, "82 1903e8 01");
    sdx_buf_init_fixed(&b, fixed, 4);
    sdx_cbor_writer_init(&w, &b, NULL);
    sdx_cbor_writer_begin_array(&w, 2);
    sdx_cbor_writer_int(&w, 1000);
    sdx_cbor_writer_int(&w, 1);
    CHECK_EQ_INT(sdx_cbor_writer_end(&w), SDX_ERR_OVERFLOW);
    CHECK_EQ_INT(sdx_cbor_writer_finish(&w), SDX_ERR_OVERFLOW);
}

/* A back-patched or sorted container that begins when a stream buffer of
 * 1 to 5 bytes is exactly full, after every number of items before it:
 * its head must stay in the buffer (pinned before it is written; a write
 * of the chunk's size into a full buffer went straight to the stream, and
 * the end patched bytes the buffer no longer held). The fuzz target of the
 * writers found it. */
static void prefix_then_patched(sdx_cbor_writer *w, int k) {
    sdx_cbor_writer_begin_array(w, 2);
    sdx_cbor_writer_begin_array(w, (uint64_t)k);
    for (int i = 0; i < k; i++) sdx_cbor_writer_int(w, i % 20);
    sdx_cbor_writer_end(w);
    sdx_cbor_writer_begin_map(w, SDX_COUNT_UNKNOWN);
    for (int j = 30; j > 0; j--) {
        sdx_cbor_writer_int(w, j * 7);
        sdx_cbor_writer_string(w, "value", 5);
    }
    sdx_cbor_writer_end(w);
    sdx_cbor_writer_end(w);
}

TEST(patched_head_at_every_fill) {
    for (int det = 0; det < 2; det++) {
        sdx_cbor_write_opts o = {det ? SDX_CBOR_WRITE_DETERMINISTIC : SDX_CBOR_WRITE_DEFINITE, NULL};
        for (int k = 0; k < 140; k++) {
            sdx_buf mem;
            sdx_buf_init(&mem, NULL);
            sdx_cbor_writer w;
            sdx_cbor_writer_init(&w, &mem, &o);
            prefix_then_patched(&w, k);
            CHECK_EQ_INT(sdx_cbor_writer_finish(&w), SDX_OK);
            for (size_t chunk = 1; chunk <= 5; chunk++) {
                sdx_buf sink, st;
                sdx_buf_init(&sink, NULL);
                sdx_buf_init_stream(&st, collect, &sink, chunk, NULL);
                sdx_cbor_writer_init(&w, &st, &o);
                prefix_then_patched(&w, k);
                CHECK_EQ_INT(sdx_cbor_writer_finish(&w), SDX_OK);
                if (!CHECK_MEM(sdx_buf_data(&sink), sdx_buf_len(&sink), sdx_buf_data(&mem), sdx_buf_len(&mem)))
                    fprintf(stderr, "  %s, %d items before, chunk %zu\n", det ? "sorted" : "patched", k, chunk);
                CHECK(st.pin == UINT64_MAX);
                sdx_buf_destroy(&st);
                sdx_buf_destroy(&sink);
            }
            sdx_buf_destroy(&mem);
        }
    }
}

TEST(error_inside_patched_containers_releases_the_pin) {
    /* An error while back-patched containers are open (some nested beyond
     * the writer's inline frames): finish still releases the stream's pin,
     * whichever container took it, and reports the error. */
    static const int depths[] = {1, 3, SDX_CBOR_WRITER_INLINE_DEPTH + 5};
    for (size_t d = 0; d < sizeof depths / sizeof *depths; d++) {
        for (int known_first = 0; known_first < 2; known_first++) {
            sdx_buf sink, st;
            sdx_buf_init(&sink, NULL);
            sdx_buf_init_stream(&st, collect, &sink, 16, NULL);
            sdx_cbor_writer w;
            sdx_cbor_write_opts o = {SDX_CBOR_WRITE_DEFINITE, NULL};
            sdx_cbor_writer_init(&w, &st, &o);
            if (known_first) sdx_cbor_writer_begin_array(&w, 1);
            for (int i = 0; i < depths[d]; i++) sdx_cbor_writer_begin_array(&w, SDX_COUNT_UNKNOWN);
            sdx_cbor_writer_int(&w, 7);
            CHECK(st.pin != UINT64_MAX);
            CHECK_EQ_INT(sdx_cbor_writer_string(&w, "\xff", 1), SDX_ERR_UTF8);
            CHECK_EQ_INT(sdx_cbor_writer_begin_map(&w, 2), SDX_ERR_UTF8); /* sticky */
            CHECK_EQ_INT(sdx_cbor_writer_finish(&w), SDX_ERR_UTF8);
            CHECK(st.pin == UINT64_MAX);
            sdx_buf_destroy(&st);
            sdx_buf_destroy(&sink);
        }
    }
}

TEST(sequences_and_misuse) {
    wfix f;
    sdx_cbor_writer *w = wopen(&f, SDX_CBOR_WRITE_SEQUENCE);
    sdx_cbor_writer_int(w, 1);
    sdx_cbor_writer_begin_array(w, 0);
    sdx_cbor_writer_end(w);
    sdx_cbor_writer_string(w, "a", 1);
    WDONE(&f, "018061 61");
    w = wopen(&f, SDX_CBOR_WRITE_SEQUENCE);
    WDONE(&f, ""); /* an empty sequence */
    /* two items without SEQUENCE */
    w = wopen(&f, 0);
    sdx_cbor_writer_int(w, 1);
    CHECK_EQ_INT(sdx_cbor_writer_int(w, 2), SDX_ERR_USAGE);
    sdx_cbor_writer_finish(w);
    sdx_buf_destroy(&f.out);
    /* nothing written */
    w = wopen(&f, 0);
    CHECK_EQ_INT(sdx_cbor_writer_finish(w), SDX_ERR_USAGE);
    sdx_buf_destroy(&f.out);
    /* a tag without its item: at the end of a container and at finish */
    w = wopen(&f, 0);
    sdx_cbor_writer_begin_array(w, SDX_COUNT_UNKNOWN);
    sdx_cbor_writer_tag(w, 1);
    CHECK_EQ_INT(sdx_cbor_writer_end(w), SDX_ERR_USAGE);
    sdx_cbor_writer_finish(w);
    sdx_buf_destroy(&f.out);
    w = wopen(&f, SDX_CBOR_WRITE_SEQUENCE);
    sdx_cbor_writer_tag(w, 1);
    CHECK_EQ_INT(sdx_cbor_writer_finish(w), SDX_ERR_USAGE);
    sdx_buf_destroy(&f.out);
    /* counts not met, exceeded, a key without its value */
    w = wopen(&f, 0);
    sdx_cbor_writer_begin_array(w, 2);
    sdx_cbor_writer_int(w, 1);
    CHECK_EQ_INT(sdx_cbor_writer_end(w), SDX_ERR_USAGE);
    sdx_cbor_writer_finish(w);
    sdx_buf_destroy(&f.out);
    w = wopen(&f, 0);
    sdx_cbor_writer_begin_map(w, SDX_COUNT_UNKNOWN);
    sdx_cbor_writer_key(w, "a", 1);
    CHECK_EQ_INT(sdx_cbor_writer_end(w), SDX_ERR_USAGE);
    sdx_cbor_writer_finish(w);
    sdx_buf_destroy(&f.out);
    w = wopen(&f, 0);
    sdx_cbor_writer_begin_array(w, 1);
    CHECK_EQ_INT(sdx_cbor_writer_key(w, "a", 1), SDX_ERR_USAGE);
    sdx_cbor_writer_finish(w);
    sdx_buf_destroy(&f.out);
    /* an end after finish: nothing to close (before, it stepped the
     * writer below its frames, and a second end read outside them) */
    w = wopen(&f, 0);
    sdx_cbor_writer_null(w);
    CHECK_EQ_INT(sdx_cbor_writer_finish(w), SDX_OK);
    CHECK_EQ_INT(sdx_cbor_writer_end(w), SDX_ERR_USAGE);
    CHECK_EQ_INT(sdx_cbor_writer_end(w), SDX_ERR_USAGE);
    CHECK_EQ_INT(sdx_cbor_writer_null(w), SDX_ERR_USAGE);
    sdx_buf_destroy(&f.out);
    /* unknown flags */
    sdx_cbor_write_opts o = {1u << 20, NULL};
    sdx_buf_init(&f.out, NULL);
    CHECK_EQ_INT(sdx_cbor_writer_init(&f.w, &f.out, &o), SDX_ERR_INVALID_ARG);
    sdx_cbor_writer_finish(&f.w);
    sdx_buf_destroy(&f.out);
}

TEST(events) {
    wfix f;
    sdx_cbor_writer *w = wopen(&f, 0);
    sdx_sink s = sdx_cbor_writer_sink(w);
    sdx_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = SDX_ARRAY;
    ev.v.count = 6;
    sdx_sink_put(s, &ev);
    memset(&ev, 0, sizeof ev);
    ev.kind = SDX_TAG;
    ev.tag_kind = SDX_TAG_CBOR;
    ev.tag = 61;
    sdx_sink_put(s, &ev);
    ev.kind = SDX_INT; /* 61(18(1)) */
    ev.tag = 18;
    ev.v.i = 1;
    sdx_sink_put(s, &ev);
    memset(&ev, 0, sizeof ev);
    ev.kind = SDX_NINT;
    ev.v.u = 100;
    sdx_sink_put(s, &ev);
    memset(&ev, 0, sizeof ev);
    ev.kind = SDX_NULL;
    ev.tag_kind = SDX_TAG_CBOR_SIMPLE;
    ev.tag = 23;
    sdx_sink_put(s, &ev);
    ev.tag = 99;
    sdx_sink_put(s, &ev);
    memset(&ev, 0, sizeof ev);
    ev.kind = SDX_BIN; /* an ext tag is not CBOR's: ignored */
    ev.tag_kind = SDX_TAG_MSGPACK_EXT;
    ev.tag = 5;
    ev.v.str.ptr = "x";
    ev.v.str.len = 1;
    sdx_sink_put(s, &ev);
    memset(&ev, 0, sizeof ev);
    ev.kind = SDX_TAG; /* an SDX_TAG of another kind: ignored */
    ev.tag_kind = SDX_TAG_BSON;
    sdx_sink_put(s, &ev);
    ev.kind = SDX_DOUBLE;
    ev.tag_kind = 0;
    ev.flags = SDX_EVENT_FLOAT32;
    ev.v.d = 0.5;
    sdx_sink_put(s, &ev);
    memset(&ev, 0, sizeof ev);
    ev.kind = SDX_END;
    sdx_sink_put(s, &ev);
    CHECK_EQ_INT(sdx_sink_finish(s), SDX_OK);
    CHECK_HEX(&f.out, "86 d83dd201 3864 f7 f863 4178 f93800");
    sdx_buf_destroy(&f.out);
    /* SDX_RAW and a simple value beyond 255 */
    w = wopen(&f, 0);
    memset(&ev, 0, sizeof ev);
    ev.kind = SDX_RAW;
    ev.v.str.ptr = "1";
    ev.v.str.len = 1;
    CHECK_EQ_INT(sdx_cbor_writer_put(w, &ev), SDX_ERR_UNSUPPORTED);
    sdx_cbor_writer_finish(w);
    sdx_buf_destroy(&f.out);
    w = wopen(&f, 0);
    memset(&ev, 0, sizeof ev);
    ev.tag_kind = SDX_TAG_CBOR_SIMPLE;
    ev.tag = 256;
    CHECK_EQ_INT(sdx_cbor_writer_put(w, &ev), SDX_ERR_INVALID_ARG);
    sdx_cbor_writer_finish(w);
    sdx_buf_destroy(&f.out);
}

/* Writes a document that takes every allocating path: deep nesting beyond
 * the inline frames, back-patched and sorted maps, big output. */
static sdx_err write_all(sdx_cbor_writer *w) {
    sdx_cbor_writer_begin_array(w, SDX_COUNT_UNKNOWN);
    for (int i = 0; i < 40; i++) sdx_cbor_writer_begin_array(w, SDX_COUNT_UNKNOWN);
    for (int i = 0; i < 40; i++) sdx_cbor_writer_end(w);
    sdx_cbor_writer_begin_map(w, SDX_COUNT_UNKNOWN);
    for (int i = 40; i > 0; i--) {
        sdx_cbor_writer_int(w, i);
        sdx_cbor_writer_string(w, "0123456789abcdef0123456789", 26);
    }
    sdx_cbor_writer_end(w);
    sdx_cbor_writer_end(w);
    return sdx_cbor_writer_finish(w);
}

TEST(alloc_failures) {
    for (int det = 0; det < 2; det++) {
        long calls = 0;
        for (long fail = 1;; fail++) {
            counting_alloc ca;
            counting_alloc_init(&ca, fail);
            sdx_buf out;
            sdx_buf_init(&out, &ca.iface);
            sdx_cbor_writer w;
            sdx_cbor_write_opts o = {det ? SDX_CBOR_WRITE_DETERMINISTIC : 0, &ca.iface};
            sdx_cbor_writer_init(&w, &out, &o);
            sdx_err rc = write_all(&w);
            sdx_buf_destroy(&out);
            CHECK_EQ_INT(ca.live, 0);
            if (rc == SDX_OK) {
                calls = ca.calls;
                break;
            }
            if (!CHECK(rc == SDX_ERR_NOMEM)) break;
            if (fail > 1000) break;
        }
        CHECK(calls >= 2); /* at least the frames and the buffer */
    }
}

/* The same items through the inline paths of cbor.h (the macros) and
 * through the exported functions, into a growable and into a fixed buffer
 * of every size up to the output's (the inline paths must hand on exactly
 * where the room ends): the same bytes and the same errors. */
static uint64_t wr_rand(uint64_t *s) {
    *s = *s * 6364136223846793005u + 1442695040888963407u;
    return *s >> 11 ^ *s << 29;
}

static void wr_items(sdx_cbor_writer *w, int use_inline, uint64_t seed) {
    static const double special[] = {0.0, -0.0, 1.0, 1.5, 65504.0, 100000.0, 1e300, 5.960464477539063e-8,
                                     3.4028234663852886e38, 1.1, 0.1, 4.9406564584124654e-324};
    uint64_t rs = seed;
    int depth = 0;
    if (use_inline) sdx_cbor_writer_begin_array(w, SDX_COUNT_UNKNOWN);
    else (sdx_cbor_writer_begin_array)(w, SDX_COUNT_UNKNOWN);
    for (int i = 0; i < 400; i++) {
        uint64_t r = wr_rand(&rs);
        uint64_t big = wr_rand(&rs) >> (r >> 58);
        double d;
        switch (r % 12) {
        case 0:
            if (use_inline) sdx_cbor_writer_int(w, (int64_t)big * (r & 64 ? -1 : 1));
            else (sdx_cbor_writer_int)(w, (int64_t)big * (r & 64 ? -1 : 1));
            break;
        case 1:
            if (use_inline) sdx_cbor_writer_uint(w, big);
            else (sdx_cbor_writer_uint)(w, big);
            break;
        case 2:
        case 3:
            if (r & 256) {
                uint64_t bits = wr_rand(&rs);
                if (r & 512) bits &= ~(uint64_t)0x1fffffff; /* float32 may hold it */
                if (r & 1024) bits |= UINT64_C(0x7ff0000000000000); /* inf or NaN */
                memcpy(&d, &bits, 8);
            } else {
                d = special[(r >> 12) % 12] * (r & 2048 ? -1 : 1);
            }
            if (use_inline) sdx_cbor_writer_double(w, d);
            else (sdx_cbor_writer_double)(w, d);
            break;
        case 4:
            if (use_inline) sdx_cbor_writer_bool(w, r & 16);
            else (sdx_cbor_writer_bool)(w, r & 16);
            break;
        case 5:
            if (use_inline) sdx_cbor_writer_null(w);
            else (sdx_cbor_writer_null)(w);
            break;
        case 6:
        case 7: {
            uint64_t n = (r >> 20) % 30;
            int map = (r & 32) != 0;
            if (map) {
                if (use_inline) sdx_cbor_writer_begin_map(w, n);
                else (sdx_cbor_writer_begin_map)(w, n);
                for (uint64_t k = 0; k < n; k++) {
                    char key[8];
                    int kn = snprintf(key, sizeof key, "k%u", (unsigned)k);
                    if (use_inline) sdx_cbor_writer_key(w, key, (size_t)kn);
                    else (sdx_cbor_writer_key)(w, key, (size_t)kn);
                    if (use_inline) sdx_cbor_writer_int(w, (int64_t)k * 1000);
                    else (sdx_cbor_writer_int)(w, (int64_t)k * 1000);
                }
            } else {
                if (use_inline) sdx_cbor_writer_begin_array(w, n);
                else (sdx_cbor_writer_begin_array)(w, n);
                for (uint64_t k = 0; k < n; k++) {
                    if (use_inline) sdx_cbor_writer_uint(w, k << (k % 60));
                    else (sdx_cbor_writer_uint)(w, k << (k % 60));
                }
            }
            if (use_inline) sdx_cbor_writer_end(w);
            else (sdx_cbor_writer_end)(w);
            break;
        }
        case 8: /* nesting deeper than the writer's inline frames */
            if (depth < 40) {
                if (use_inline) sdx_cbor_writer_begin_array(w, SDX_COUNT_UNKNOWN);
                else (sdx_cbor_writer_begin_array)(w, SDX_COUNT_UNKNOWN);
                depth++;
            } else {
                if (use_inline) sdx_cbor_writer_string(w, "x", 1);
                else (sdx_cbor_writer_string)(w, "x", 1);
            }
            break;
        case 9:
            while (depth > 0) {
                if (use_inline) sdx_cbor_writer_end(w);
                else (sdx_cbor_writer_end)(w);
                depth--;
            }
            break;
        case 10:
            sdx_cbor_writer_tag(w, r >> 50);
            if (use_inline) sdx_cbor_writer_int(w, -5);
            else (sdx_cbor_writer_int)(w, -5);
            break;
        default: { /* text: ASCII and not, short and long, empty */
            static const char text[] = "hello, w\xc3\xb6rld: ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnopqrstuvwxyz "
                                       "0123456789 ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnopqrstuvwxyz";
            static const size_t cut[] = {0, 1, 2, 3, 4, 5, 7, 8, 10, 11, 16, 23, 24, 63, 64, 65, 100};
            const char *t = r & 128 ? text + 11 : text; /* the first without the o umlaut */
            size_t n = cut[(r >> 8) % 17]; /* never inside the o umlaut */
            if (use_inline) sdx_cbor_writer_string(w, t, n);
            else (sdx_cbor_writer_string)(w, t, n);
            break;
        }
        }
        if (depth && (r & 3) == 0) { /* close an open array now and then */
            if (use_inline) sdx_cbor_writer_end(w);
            else (sdx_cbor_writer_end)(w);
            depth--;
        }
    }
    while (depth-- > 0) {
        if (use_inline) sdx_cbor_writer_end(w);
        else (sdx_cbor_writer_end)(w);
    }
    if (use_inline) sdx_cbor_writer_end(w);
    else (sdx_cbor_writer_end)(w);
}

TEST(inline_paths) {
    /* invalid UTF-8 of every short length, anywhere in the string, through
     * the inline string and key: SDX_ERR_UTF8, and nothing written */
    int bad = 0;
    for (size_t n = 1; n <= 70; n++) {
        for (size_t pos = 0; pos < n; pos += n > 8 ? n / 4 : 1) {
            char t[70];
            memset(t, 'a', sizeof t);
            t[pos] = (char)0xff;
            for (int key = 0; key < 2; key++) {
                char mem[256]; /* room: the inline paths run */
                wfix f;
                sdx_buf_init_fixed(&f.out, mem, sizeof mem);
                sdx_cbor_writer *w = &f.w;
                sdx_cbor_writer_init(w, &f.out, NULL);
                sdx_err e;
                if (key) {
                    sdx_cbor_writer_begin_map(w, 1);
                    e = sdx_cbor_writer_key(w, t, n);
                } else {
                    sdx_cbor_writer_begin_array(w, 1);
                    e = sdx_cbor_writer_string(w, t, n);
                }
                bad += e != SDX_ERR_UTF8 || sdx_buf_len(&f.out) != 1;
                sdx_cbor_writer_finish(w);
                sdx_buf_destroy(&f.out);
            }
        }
    }
    CHECK_EQ_INT(bad, 0);
    static const uint32_t flags[] = {0, SDX_CBOR_WRITE_FLOAT64, SDX_CBOR_WRITE_DEFINITE,
                                     SDX_CBOR_WRITE_DETERMINISTIC};
    static char mem_a[65536], mem_b[65536];
    for (uint64_t seed = 1; seed <= 6; seed++) {
        for (size_t fl = 0; fl < 4; fl++) {
            sdx_cbor_write_opts o = {flags[fl], NULL};
            sdx_buf a, b;
            sdx_cbor_writer wa, wb;
            sdx_buf_init(&a, NULL);
            sdx_buf_init(&b, NULL);
            sdx_cbor_writer_init(&wa, &a, &o);
            sdx_cbor_writer_init(&wb, &b, &o);
            wr_items(&wa, 1, seed);
            wr_items(&wb, 0, seed);
            sdx_err ea = sdx_cbor_writer_finish(&wa), eb = sdx_cbor_writer_finish(&wb);
            CHECK_EQ_INT(ea, eb);
            /* deterministic: the generated keys repeat only in separate maps */
            CHECK_EQ_INT(ea, SDX_OK);
            CHECK(sdx_buf_len(&a) > 1000);
            CHECK_MEM(sdx_buf_data(&a), sdx_buf_len(&a), sdx_buf_data(&b), sdx_buf_len(&b));
            size_t total = sdx_buf_len(&a);
            sdx_buf_destroy(&a);
            sdx_buf_destroy(&b);
            if (fl != 0 || total > sizeof mem_a) continue;
            /* fixed buffers that end everywhere */
            bad = 0;
            for (size_t cap = 0; cap <= total; cap += 1 + cap / 64) {
                sdx_buf_init_fixed(&a, mem_a, cap);
                sdx_buf_init_fixed(&b, mem_b, cap);
                sdx_cbor_writer_init(&wa, &a, &o);
                sdx_cbor_writer_init(&wb, &b, &o);
                wr_items(&wa, 1, seed);
                wr_items(&wb, 0, seed);
                ea = sdx_cbor_writer_finish(&wa);
                eb = sdx_cbor_writer_finish(&wb);
                bad += ea != eb || sdx_buf_len(&a) != sdx_buf_len(&b) ||
                       memcmp(mem_a, mem_b, sdx_buf_len(&a)) != 0 ||
                       (cap < total && ea != SDX_ERR_OVERFLOW);
                sdx_buf_destroy(&a);
                sdx_buf_destroy(&b);
            }
            CHECK_EQ_INT(bad, 0);
        }
    }
}

/* Short text at every SIMD level (short_strings.h): one head byte below
 * 24 bytes, 0x78 and the length from 24. */
static sdx_err cb_short_write(const char *s, size_t n, int as_key, int check, unsigned char *out,
                              size_t cap, size_t *len) {
    sdx_buf b;
    sdx_buf_init_fixed(&b, out, cap);
    sdx_cbor_writer w;
    sdx_cbor_write_opts o = {0};
    o.flags = check ? 0 : SDX_CBOR_WRITE_NO_UTF8_CHECK;
    sdx_err e = sdx_cbor_writer_init(&w, &b, &o);
    if (as_key) {
        sdx_cbor_writer_begin_map(&w, 1);
        sdx_cbor_writer_key(&w, s, n);
        sdx_cbor_writer_null(&w);
        sdx_cbor_writer_end(&w);
    } else {
        sdx_cbor_writer_string(&w, s, n);
    }
    if (!e) e = sdx_cbor_writer_finish(&w);
    *len = sdx_buf_len(&b);
    return e;
}

static size_t cb_short_expect(const char *s, size_t n, int as_key, unsigned char *out) {
    size_t k = 0;
    if (as_key) out[k++] = 0xa1;
    if (n < 24) {
        out[k++] = (unsigned char)(0x60 | n);
    } else {
        out[k++] = 0x78;
        out[k++] = (unsigned char)n;
    }
    memcpy(out + k, s, n);
    k += n;
    if (as_key) out[k++] = 0xf6;
    return k;
}

static void short_text_every_simd_level(void) {
    short_strings_every_level(cb_short_write, cb_short_expect);
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){
                        {"short_text_every_simd_level", short_text_every_simd_level},
                        {"integer_heads", integer_heads},
                        {"floats_preferred", floats_preferred},
                        {"strings_and_bytes", strings_and_bytes},
                        {"containers", containers},
                        {"tags_simple_undefined", tags_simple_undefined},
                        {"deterministic", deterministic},
                        {"stream_buffers", stream_buffers},
                        {"patched_head_at_every_fill", patched_head_at_every_fill},
        {"error_inside_patched_containers_releases_the_pin",
                         error_inside_patched_containers_releases_the_pin},
                        {"sequences_and_misuse", sequences_and_misuse},
                        {"events", events},
                        {"alloc_failures", alloc_failures},
                        {"inline_paths", inline_paths},
                        {0, 0},
                    });
}
