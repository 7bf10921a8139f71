/*
 * The BSON writer: each element type's bytes (bsonspec.org 1.1 grammar),
 * the event mapping of include/sdx/bson.h, root rules, integer widths,
 * cstring and UTF-8 checks, checks of composite values given as bytes,
 * back-patching into every kind of buffer, allocation failures.
 */
#include <stdio.h>
#include <string.h>

#include "alloc_test.h"
#include "core/endian.h"
#include "msgpack_util.h"
#include "patch_check.h"
#include "sdx/sdx.h"
#include "test.h"

/* The writer's output so far compared with hex text. */
#define CHECK_OUT(buf, hex)                                                  \
    do {                                                                     \
        unsigned char want_[1024];                                           \
        size_t wn_ = mp_unhex(hex, want_, sizeof want_);                     \
        CHECK_MEM(sdx_buf_data(buf), sdx_buf_len(buf), want_, wn_);          \
    } while (0)

static sdx_event ev_tagged(sdx_kind kind, uint64_t tag) {
    sdx_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = (uint8_t)kind;
    ev.tag_kind = tag ? SDX_TAG_BSON : SDX_TAG_NONE;
    ev.tag = tag;
    return ev;
}

static sdx_event ev_bin(uint64_t tag, const void *p, size_t n) {
    sdx_event ev = ev_tagged(SDX_BIN, tag);
    ev.v.str.ptr = (const char *)p;
    ev.v.str.len = n;
    return ev;
}

/* {"a": <one value written by put>} and the expected hex of the whole
 * document. */
static sdx_err one(const sdx_event *ev, sdx_buf *b) {
    sdx_bson_writer w;
    sdx_buf_init(b, NULL);
    sdx_bson_writer_init(&w, b, NULL);
    sdx_bson_writer_begin_map(&w, 1);
    sdx_bson_writer_key(&w, "a", 1);
    sdx_bson_writer_put(&w, ev);
    sdx_bson_writer_end(&w);
    return sdx_bson_writer_finish(&w);
}

#define EXPECT_ONE(ev, hex)                                                  \
    do {                                                                     \
        sdx_buf b_;                                                          \
        sdx_event e_ = (ev);                                                 \
        CHECK_EQ_INT(one(&e_, &b_), SDX_OK);                                 \
        CHECK_OUT(&b_, hex);                                                 \
        sdx_buf_destroy(&b_);                                                \
    } while (0)

#define EXPECT_ONE_ERR(ev, code)                                             \
    do {                                                                     \
        sdx_buf b_;                                                          \
        sdx_event e_ = (ev);                                                 \
        CHECK_EQ_INT(one(&e_, &b_), code);                                   \
        sdx_buf_destroy(&b_);                                                \
    } while (0)

TEST(empty_and_scalars) {
    sdx_buf b;
    sdx_bson_writer w;
    sdx_buf_init(&b, NULL);
    sdx_bson_writer_init(&w, &b, NULL);
    sdx_bson_writer_begin_map(&w, 0);
    sdx_bson_writer_end(&w);
    CHECK_EQ_INT(sdx_bson_writer_finish(&w), SDX_OK);
    CHECK_OUT(&b, "05000000 00");
    sdx_buf_destroy(&b);

    sdx_event ev = ev_tagged(SDX_NULL, 0);
    EXPECT_ONE(ev, "08000000 0a 6100 00");
    ev = ev_tagged(SDX_BOOL, 0);
    ev.v.b = true;
    EXPECT_ONE(ev, "09000000 08 6100 01 00");
    ev = ev_tagged(SDX_DOUBLE, 0);
    ev.v.d = 1.0;
    EXPECT_ONE(ev, "10000000 01 6100 000000000000f03f 00");
    ev = ev_tagged(SDX_STR, 0);
    ev.v.str.ptr = "b\0c";
    ev.v.str.len = 3; /* strings may hold NUL */
    EXPECT_ONE(ev, "10000000 02 6100 04000000 62006300 00");
    ev.tag_kind = SDX_TAG_BSON;
    ev.tag = SDX_BSON_CODE;
    EXPECT_ONE(ev, "10000000 0d 6100 04000000 62006300 00");
    ev.tag = SDX_BSON_SYMBOL;
    EXPECT_ONE(ev, "10000000 0e 6100 04000000 62006300 00");
}

TEST(integers) {
    sdx_event ev = ev_tagged(SDX_INT, 0);
    ev.v.i = 1;
    EXPECT_ONE(ev, "0c000000 10 6100 01000000 00");
    ev.v.i = INT32_MIN;
    EXPECT_ONE(ev, "0c000000 10 6100 00000080 00");
    ev.v.i = (int64_t)INT32_MAX + 1;
    EXPECT_ONE(ev, "10000000 12 6100 0000008000000000 00");
    ev.v.i = (int64_t)INT32_MIN - 1;
    EXPECT_ONE(ev, "10000000 12 6100 ffffff7fffffffff 00");
    /* tag 0x12 keeps a small int64 an int64 */
    ev = ev_tagged(SDX_INT, SDX_BSON_INT64);
    ev.v.i = 1;
    EXPECT_ONE(ev, "10000000 12 6100 0100000000000000 00");
    ev = ev_tagged(SDX_INT, SDX_BSON_INT32);
    ev.v.i = (int64_t)INT32_MAX + 1;
    EXPECT_ONE_ERR(ev, SDX_ERR_RANGE);
    ev = ev_tagged(SDX_INT, SDX_BSON_DATETIME);
    ev.v.i = -1;
    EXPECT_ONE(ev, "10000000 09 6100 ffffffffffffffff 00");
    ev = ev_tagged(SDX_INT, SDX_BSON_TIMESTAMP);
    ev.v.i = (int64_t)123 << 32 | 42;
    EXPECT_ONE(ev, "10000000 11 6100 2a0000007b000000 00");
    ev.v.i = -1;
    EXPECT_ONE_ERR(ev, SDX_ERR_RANGE);
    ev = ev_tagged(SDX_UINT, SDX_BSON_TIMESTAMP);
    ev.v.u = UINT64_MAX;
    EXPECT_ONE(ev, "10000000 11 6100 ffffffffffffffff 00");
    /* above INT64_MAX: an error, or a double when asked for */
    ev = ev_tagged(SDX_UINT, 0);
    ev.v.u = (uint64_t)INT64_MAX + 1;
    EXPECT_ONE_ERR(ev, SDX_ERR_RANGE);
    ev.v.u = INT64_MAX;
    EXPECT_ONE(ev, "10000000 12 6100 ffffffffffffff7f 00");
    ev = ev_tagged(SDX_NINT, 0);
    ev.v.u = 0;
    EXPECT_ONE_ERR(ev, SDX_ERR_RANGE);

    sdx_buf b;
    sdx_bson_writer w;
    sdx_bson_write_opts o = {SDX_BSON_WRITE_BIG_DOUBLE, NULL};
    sdx_buf_init(&b, NULL);
    sdx_bson_writer_init(&w, &b, &o);
    sdx_bson_writer_begin_map(&w, 2);
    sdx_bson_writer_key(&w, "a", 1);
    sdx_bson_writer_uint(&w, UINT64_C(1) << 63);
    sdx_bson_writer_key(&w, "b", 1);
    sdx_event n = ev_tagged(SDX_NINT, 0);
    n.v.u = UINT64_C(1) << 63; /* -1 - 2^63, rounds to -2^63 */
    sdx_bson_writer_put(&w, &n);
    sdx_bson_writer_end(&w);
    CHECK_EQ_INT(sdx_bson_writer_finish(&w), SDX_OK);
    CHECK_OUT(&b, "1b000000 01 6100 000000000000e043 01 6200 000000000000e0c3 00");
    sdx_buf_destroy(&b);
}

TEST(tagged_types) {
    static const unsigned char oid[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    static const unsigned char dec[16] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0x30};
    EXPECT_ONE(ev_bin(SDX_BSON_OBJECTID, oid, 12), "14000000 07 6100 0102030405060708090a0b0c 00");
    EXPECT_ONE_ERR(ev_bin(SDX_BSON_OBJECTID, oid, 11), SDX_ERR_INVALID_ARG);
    EXPECT_ONE(ev_bin(SDX_BSON_DECIMAL128, dec, 16),
               "18000000 13 6100 01000000000000000000000000004030 00");
    EXPECT_ONE_ERR(ev_bin(SDX_BSON_DECIMAL128, dec, 12), SDX_ERR_INVALID_ARG);
    EXPECT_ONE(ev_tagged(SDX_NULL, SDX_BSON_UNDEFINED), "08000000 06 6100 00");
    EXPECT_ONE(ev_tagged(SDX_NULL, SDX_BSON_MINKEY), "08000000 ff 6100 00");
    EXPECT_ONE(ev_tagged(SDX_NULL, SDX_BSON_MAXKEY), "08000000 7f 6100 00");
    /* a tag that does not fit the kind, or no BSON type */
    EXPECT_ONE_ERR(ev_tagged(SDX_NULL, SDX_BSON_OBJECTID), SDX_ERR_UNSUPPORTED);
    EXPECT_ONE_ERR(ev_bin(0x14, oid, 12), SDX_ERR_UNSUPPORTED);
    EXPECT_ONE_ERR(ev_bin(SDX_BSON_STRING, oid, 12), SDX_ERR_UNSUPPORTED);
    /* another format's tag is ignored */
    sdx_event ev = ev_tagged(SDX_INT, 0);
    ev.tag_kind = SDX_TAG_CBOR;
    ev.tag = 1;
    ev.v.i = 2;
    EXPECT_ONE(ev, "0c000000 10 6100 02000000 00");
    ev = ev_tagged(SDX_RAW, 0);
    ev.v.str.ptr = "1e400";
    ev.v.str.len = 5;
    EXPECT_ONE_ERR(ev, SDX_ERR_UNSUPPORTED);
}

TEST(binary_subtypes) {
    static const unsigned char d[2] = {0xff, 0xff};
    EXPECT_ONE(ev_bin(0, d, 2), "0f000000 05 6100 02000000 00 ffff 00");
    EXPECT_ONE(ev_bin(SDX_BSON_BINARY, d, 2), "0f000000 05 6100 02000000 00 ffff 00");
    /* subtype 0x02 carries the data's length again */
    EXPECT_ONE(ev_bin(SDX_BSON_BINARY_TAG(2), d, 2), "13000000 05 6100 06000000 02 02000000 ffff 00");
    static const unsigned subs[] = {1, 3, 4, 5, 6, 7, 8, 9, 0x80, 0xff};
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++) {
        sdx_buf b;
        sdx_event ev = ev_bin(SDX_BSON_BINARY_TAG(subs[i]), d, 2);
        CHECK_EQ_INT(one(&ev, &b), SDX_OK);
        CHECK(sdx_buf_len(&b) == 15 && (unsigned char)sdx_buf_data(&b)[11] == subs[i]);
        sdx_buf_destroy(&b);
    }
    EXPECT_ONE(ev_bin(0, NULL, 0), "0d000000 05 6100 00000000 00 00");
}

TEST(composites) {
    /* regex: pattern NUL options NUL */
    EXPECT_ONE(ev_bin(SDX_BSON_REGEX, "ab\0i", 5), "0d000000 0b 6100 61620069 00 00");
    EXPECT_ONE(ev_bin(SDX_BSON_REGEX, "\0", 2), "0a000000 0b 6100 0000 00");
    EXPECT_ONE_ERR(ev_bin(SDX_BSON_REGEX, "a\0b\0c", 6), SDX_ERR_INVALID_ARG); /* NUL in options */
    EXPECT_ONE_ERR(ev_bin(SDX_BSON_REGEX, "ab\0i", 4), SDX_ERR_INVALID_ARG);   /* no last NUL */
    EXPECT_ONE_ERR(ev_bin(SDX_BSON_REGEX, "ab", 3), SDX_ERR_INVALID_ARG);      /* one cstring */
    EXPECT_ONE_ERR(ev_bin(SDX_BSON_REGEX, "\xff\0", 3), SDX_ERR_INVALID_ARG);
    /* DBPointer: string, 12-byte id */
    unsigned char dbp[4 + 2 + 12];
    mp_unhex("02000000 6200 0102030405060708090a0b0c", dbp, sizeof dbp);
    EXPECT_ONE(ev_bin(SDX_BSON_DBPOINTER, dbp, sizeof dbp),
               "1a000000 0c 6100 02000000 6200 0102030405060708090a0b0c 00");
    EXPECT_ONE_ERR(ev_bin(SDX_BSON_DBPOINTER, dbp, sizeof dbp - 1), SDX_ERR_INVALID_ARG);
    dbp[0] = 3; /* a length that lies */
    EXPECT_ONE_ERR(ev_bin(SDX_BSON_DBPOINTER, dbp, sizeof dbp), SDX_ERR_INVALID_ARG);
    dbp[0] = 0;
    EXPECT_ONE_ERR(ev_bin(SDX_BSON_DBPOINTER, dbp, sizeof dbp), SDX_ERR_INVALID_ARG);
    /* code with scope: total, string, document */
    unsigned char cws[32];
    size_t n = mp_unhex("0f000000 02000000 6200 05000000 00", cws, sizeof cws);
    EXPECT_ONE(ev_bin(SDX_BSON_CODE_W_SCOPE, cws, n), "17000000 0f 6100 0f000000 02000000 6200 05000000 00 00");
    cws[0] = 0x10;
    EXPECT_ONE_ERR(ev_bin(SDX_BSON_CODE_W_SCOPE, cws, n), SDX_ERR_INVALID_ARG);
    cws[0] = 0x0f;
    cws[10] = 6; /* the scope's length beyond the value */
    EXPECT_ONE_ERR(ev_bin(SDX_BSON_CODE_W_SCOPE, cws, n), SDX_ERR_INVALID_ARG);
    cws[10] = 5;
    cws[4] = 0xff; /* the string's length beyond the value */
    EXPECT_ONE_ERR(ev_bin(SDX_BSON_CODE_W_SCOPE, cws, n), SDX_ERR_INVALID_ARG);
    /* a scope whose content is malformed: {x: bool 5}, then a bad key */
    n = mp_unhex("13000000 02000000 6600 09000000 08 7800 05 00", cws, sizeof cws);
    EXPECT_ONE_ERR(ev_bin(SDX_BSON_CODE_W_SCOPE, cws, n), SDX_ERR_INVALID_ARG);
    cws[17] = 1;
    EXPECT_ONE(ev_bin(SDX_BSON_CODE_W_SCOPE, cws, n),
               "1b000000 0f 6100 13000000 02000000 6600 09000000 08 7800 01 00 00");
    n = mp_unhex("12000000 02000000 6600 08000000 0a ff00 00", cws, sizeof cws); /* a key not UTF-8 */
    EXPECT_ONE_ERR(ev_bin(SDX_BSON_CODE_W_SCOPE, cws, n), SDX_ERR_INVALID_ARG);
}

TEST(documents_and_arrays) {
    sdx_buf b;
    sdx_bson_writer w;
    sdx_buf_init(&b, NULL);
    sdx_bson_writer_init(&w, &b, NULL);
    sdx_bson_writer_begin_map(&w, SDX_COUNT_UNKNOWN);
    sdx_bson_writer_key(&w, "d", 1);
    sdx_bson_writer_begin_map(&w, 1);
    sdx_bson_writer_key(&w, "x", 1);
    sdx_bson_writer_null(&w);
    sdx_bson_writer_end(&w);
    sdx_bson_writer_key(&w, "l", 1);
    sdx_bson_writer_begin_array(&w, SDX_COUNT_UNKNOWN);
    for (int i = 0; i < 11; i++) sdx_bson_writer_bool(&w, i & 1);
    sdx_bson_writer_end(&w);
    sdx_bson_writer_end(&w);
    CHECK_EQ_INT(sdx_bson_writer_finish(&w), SDX_OK);
    CHECK_OUT(&b, "45000000"
                  "03 6400 08000000 0a 7800 00"
                  "04 6c00 32000000 0830 0000 0831 0001 0832 0000 0833 0001 0834 0000 0835 0001"
                  " 0836 0000 0837 0001 0838 0000 0839 0001 083130 0000 00"
                  "00");
    sdx_buf_destroy(&b);

    /* a map tagged 0x04: an array with keys of its own */
    sdx_buf_init(&b, NULL);
    sdx_bson_writer_init(&w, &b, NULL);
    sdx_bson_writer_begin_map(&w, 1);
    sdx_bson_writer_key(&w, "a", 1);
    sdx_event m = ev_tagged(SDX_MAP, SDX_BSON_ARRAY);
    sdx_bson_writer_put(&w, &m);
    sdx_bson_writer_key(&w, "1", 1);
    sdx_bson_writer_null(&w);
    sdx_bson_writer_end(&w);
    sdx_bson_writer_end(&w);
    CHECK_EQ_INT(sdx_bson_writer_finish(&w), SDX_OK);
    CHECK_OUT(&b, "10000000 04 6100 08000000 0a 3100 00 00");
    sdx_buf_destroy(&b);
}

/* Write through a sink from a list of events; returns finish's error. */
static sdx_err write_events(const sdx_event *evs, size_t n, uint32_t flags, sdx_buf *b) {
    sdx_bson_writer w;
    sdx_bson_write_opts o = {flags, NULL};
    sdx_buf_init(b, NULL);
    sdx_bson_writer_init(&w, b, &o);
    sdx_sink s = sdx_bson_writer_sink(&w);
    for (size_t i = 0; i < n; i++) sdx_sink_put(s, &evs[i]);
    return sdx_sink_finish(s);
}

TEST(root_rules) {
    sdx_buf b;
    sdx_event arr[3] = {ev_tagged(SDX_ARRAY, 0), ev_tagged(SDX_NULL, 0), ev_tagged(SDX_END, 0)};
    CHECK_EQ_INT(write_events(arr, 3, 0, &b), SDX_ERR_UNSUPPORTED);
    sdx_buf_destroy(&b);
    CHECK_EQ_INT(write_events(arr, 3, SDX_BSON_WRITE_WRAP_ROOT, &b), SDX_OK);
    CHECK_OUT(&b, "08000000 0a 3000 00");
    sdx_buf_destroy(&b);
    sdx_event sc = ev_tagged(SDX_INT, 0);
    sc.v.i = 7;
    CHECK_EQ_INT(write_events(&sc, 1, 0, &b), SDX_ERR_UNSUPPORTED);
    sdx_buf_destroy(&b);
    CHECK_EQ_INT(write_events(&sc, 1, SDX_BSON_WRITE_WRAP_ROOT, &b), SDX_OK);
    CHECK_OUT(&b, "0c000000 10 3000 07000000 00");
    sdx_buf_destroy(&b);
    /* two roots: only as a sequence */
    sdx_event two[4] = {ev_tagged(SDX_MAP, 0), ev_tagged(SDX_END, 0), ev_tagged(SDX_MAP, 0),
                        ev_tagged(SDX_END, 0)};
    CHECK_EQ_INT(write_events(two, 4, 0, &b), SDX_ERR_USAGE);
    sdx_buf_destroy(&b);
    CHECK_EQ_INT(write_events(two, 4, SDX_BSON_WRITE_SEQUENCE, &b), SDX_OK);
    CHECK_OUT(&b, "05000000 00 05000000 00");
    sdx_buf_destroy(&b);
    /* nothing, or a document left open */
    CHECK_EQ_INT(write_events(two, 0, 0, &b), SDX_ERR_USAGE);
    sdx_buf_destroy(&b);
    CHECK_EQ_INT(write_events(two, 1, 0, &b), SDX_ERR_USAGE);
    sdx_buf_destroy(&b);
    /* an integer key from another format, an end after a key */
    sdx_event ik[3] = {ev_tagged(SDX_MAP, 0), ev_tagged(SDX_INT, 0), ev_tagged(SDX_NULL, 0)};
    CHECK_EQ_INT(write_events(ik, 3, 0, &b), SDX_ERR_KEY);
    sdx_buf_destroy(&b);
    sdx_event ke[3] = {ev_tagged(SDX_MAP, 0), ev_tagged(SDX_KEY, 0), ev_tagged(SDX_END, 0)};
    ke[1].v.str.ptr = "k";
    ke[1].v.str.len = 1;
    CHECK_EQ_INT(write_events(ke, 3, 0, &b), SDX_ERR_USAGE);
    sdx_buf_destroy(&b);
    /* unknown flags */
    sdx_bson_writer w;
    sdx_bson_write_opts o = {1u << 20, NULL};
    sdx_buf_init(&b, NULL);
    CHECK_EQ_INT(sdx_bson_writer_init(&w, &b, &o), SDX_ERR_INVALID_ARG);
    CHECK_EQ_INT(sdx_bson_writer_finish(&w), SDX_ERR_INVALID_ARG);
    sdx_buf_destroy(&b);
}

TEST(cstrings_and_utf8) {
    sdx_buf b;
    sdx_bson_writer w;
    sdx_buf_init(&b, NULL);
    sdx_bson_writer_init(&w, &b, NULL);
    sdx_bson_writer_begin_map(&w, 1);
    CHECK_EQ_INT(sdx_bson_writer_key(&w, "a\0b", 3), SDX_ERR_KEY);
    sdx_bson_writer_finish(&w);
    sdx_buf_destroy(&b);

    sdx_buf_init(&b, NULL);
    sdx_bson_writer_init(&w, &b, NULL);
    sdx_bson_writer_begin_map(&w, 1);
    CHECK_EQ_INT(sdx_bson_writer_key(&w, "\xc3", 1), SDX_ERR_UTF8);
    sdx_bson_writer_finish(&w);
    sdx_buf_destroy(&b);

    sdx_buf_init(&b, NULL);
    sdx_bson_writer_init(&w, &b, NULL);
    sdx_bson_writer_begin_map(&w, 1);
    sdx_bson_writer_key(&w, "a", 1);
    CHECK_EQ_INT(sdx_bson_writer_string(&w, "\xed\xa0\x80", 3), SDX_ERR_UTF8);
    sdx_bson_writer_finish(&w);
    sdx_buf_destroy(&b);

    sdx_bson_write_opts o = {SDX_BSON_WRITE_NO_UTF8_CHECK, NULL};
    sdx_buf_init(&b, NULL);
    sdx_bson_writer_init(&w, &b, &o);
    sdx_bson_writer_begin_map(&w, 1);
    sdx_bson_writer_key(&w, "\xc3", 1);
    sdx_bson_writer_string(&w, "\xff", 1);
    sdx_bson_writer_end(&w);
    CHECK_EQ_INT(sdx_bson_writer_finish(&w), SDX_OK);
    CHECK_OUT(&b, "0e000000 02 c300 02000000 ff00 00");
    sdx_buf_destroy(&b);
}

/* The same document into a stream whose chunk is smaller than the
 * document (the pin keeps it patchable) and into fixed buffers of every
 * size below and at its length. */
typedef struct collect {
    unsigned char data[4096];
    size_t n;
} collect;

static size_t collect_write(void *ctx, const void *p, size_t n) {
    collect *c = ctx;
    if (c->n + n > sizeof c->data) return 0;
    memcpy(c->data + c->n, p, n);
    c->n += n;
    return n;
}

static void big_doc(sdx_bson_writer *w) {
    sdx_bson_writer_begin_map(w, SDX_COUNT_UNKNOWN);
    for (int i = 0; i < 20; i++) {
        char k[8];
        int kn = snprintf(k, sizeof k, "k%d", i);
        sdx_bson_writer_key(w, k, (size_t)kn);
        sdx_bson_writer_begin_array(w, SDX_COUNT_UNKNOWN);
        sdx_bson_writer_string(w, "0123456789abcdef", 16);
        sdx_bson_writer_int(w, i * 100000000LL);
        sdx_bson_writer_end(w);
    }
    sdx_bson_writer_end(w);
}

/* Into a stream that may patch what it flushed (sdx_buf_set_patch): a
 * root document of 3,000 subdocuments and arrays comes out as into memory,
 * its lengths and type bytes patched in place, and the buffer stays
 * within two chunks; a sequence of such documents too. */
static void many_docs(sdx_bson_writer *w, int n) {
    sdx_bson_writer_begin_map(w, SDX_COUNT_UNKNOWN);
    for (int i = 0; i < n; i++) {
        char key[16];
        int kn = snprintf(key, sizeof key, "k%d", i);
        sdx_bson_writer_key(w, key, (size_t)kn);
        sdx_bson_writer_begin_map(w, SDX_COUNT_UNKNOWN);
        sdx_bson_writer_key(w, "s", 1);
        sdx_bson_writer_string(w, "text of some length, and then some", (size_t)(i % 34));
        sdx_bson_writer_key(w, "a", 1);
        sdx_bson_writer_begin_array(w, SDX_COUNT_UNKNOWN);
        for (int j = 0; j < i % 30; j++) sdx_bson_writer_int(w, (int64_t)j << (i % 40));
        sdx_bson_writer_end(w);
        sdx_bson_writer_key(w, "d", 1);
        sdx_bson_writer_double(w, i / 3.0);
        sdx_bson_writer_end(w);
    }
    sdx_bson_writer_end(w);
}

static sdx_err write_docs(sdx_buf *b, void *ctx) {
    sdx_bson_write_opts o = {SDX_BSON_WRITE_SEQUENCE, NULL};
    sdx_bson_writer w;
    sdx_bson_writer_init(&w, b, &o);
    for (int d = 0; d < *(const int *)ctx; d++) many_docs(&w, 3000);
    return sdx_bson_writer_finish(&w);
}

TEST(patchable_stream) {
    for (int docs = 1; docs <= 2; docs++) {
        sdx_buf mem;
        sdx_buf_init(&mem, NULL);
        CHECK_EQ_INT(write_docs(&mem, &docs), SDX_OK);
        for (size_t chunk = 64; chunk <= 4096; chunk *= 8) {
            long patches;
            size_t peak = patch_stream_check(write_docs, &docs, chunk, sdx_buf_data(&mem), sdx_buf_len(&mem),
                                             &patches);
            CHECK(patches > 0);
            if (!CHECK(peak <= 2 * chunk)) fprintf(stderr, "  chunk %zu: peak %zu\n", chunk, peak);
        }
        sdx_buf_destroy(&mem);
    }
}

TEST(buffers) {
    sdx_buf mem;
    sdx_bson_writer w;
    sdx_buf_init(&mem, NULL);
    sdx_bson_writer_init(&w, &mem, NULL);
    big_doc(&w);
    CHECK_EQ_INT(sdx_bson_writer_finish(&w), SDX_OK);
    size_t len = sdx_buf_len(&mem);
    CHECK(len > 64 && len < 2048);
    CHECK_EQ_U64(sdx_load_le32(sdx_buf_data(&mem)), len);

    static collect c;
    c.n = 0;
    sdx_buf s;
    sdx_buf_init_stream(&s, collect_write, &c, 16, NULL);
    sdx_bson_write_opts o = {SDX_BSON_WRITE_SEQUENCE, NULL};
    sdx_bson_writer_init(&w, &s, &o);
    big_doc(&w);
    big_doc(&w);
    CHECK_EQ_INT(sdx_bson_writer_finish(&w), SDX_OK);
    sdx_buf_destroy(&s);
    CHECK(c.n == 2 * len && !memcmp(c.data, sdx_buf_data(&mem), len) &&
          !memcmp(c.data + len, sdx_buf_data(&mem), len));

    for (size_t cap = 0; cap <= len; cap++) {
        unsigned char fixed[2048];
        sdx_buf f;
        sdx_buf_init_fixed(&f, fixed, cap);
        sdx_bson_writer_init(&w, &f, NULL);
        big_doc(&w);
        sdx_err rc = sdx_bson_writer_finish(&w);
        if (cap < len) {
            CHECK_EQ_INT(rc, SDX_ERR_OVERFLOW);
        } else {
            CHECK_EQ_INT(rc, SDX_OK);
            CHECK_MEM(fixed, sdx_buf_len(&f), sdx_buf_data(&mem), len);
        }
    }
    sdx_buf_destroy(&mem);
}

/* Deep nesting beyond the inline frames, with an allocator that fails at
 * every call in turn: an error, never a crash, and nothing leaked. */
TEST(deep_and_alloc_failures) {
    for (long fail_at = 1;; fail_at++) {
        counting_alloc a;
        counting_alloc_init(&a, fail_at);
        sdx_buf b;
        sdx_bson_writer w;
        sdx_bson_write_opts o = {0, &a.iface};
        sdx_buf_init(&b, &a.iface);
        sdx_bson_writer_init(&w, &b, &o);
        sdx_bson_writer_begin_map(&w, 1);
        for (int i = 0; i < 200; i++) {
            sdx_bson_writer_key(&w, "a", 1);
            sdx_bson_writer_begin_map(&w, 1);
        }
        for (int i = 0; i < 201; i++) sdx_bson_writer_end(&w);
        sdx_err rc = sdx_bson_writer_finish(&w);
        size_t len = sdx_buf_len(&b);
        sdx_buf_destroy(&b);
        CHECK(a.live == 0);
        if (rc == SDX_OK) {
            CHECK(a.calls >= 2); /* frames, buffer */
            CHECK_EQ_U64(len, 5 + 200 * 8);
            break;
        }
        CHECK_EQ_INT(rc, SDX_ERR_NOMEM);
        if (fail_at > 100) {
            CHECK(0);
            break;
        }
    }
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){{"empty_and_scalars", empty_and_scalars},
                                  {"integers", integers},
                                  {"tagged_types", tagged_types},
                                  {"binary_subtypes", binary_subtypes},
                                  {"composites", composites},
                                  {"documents_and_arrays", documents_and_arrays},
                                  {"root_rules", root_rules},
                                  {"cstrings_and_utf8", cstrings_and_utf8},
                                  {"buffers", buffers},
                                  {"patchable_stream", patchable_stream},
                                  {"deep_and_alloc_failures", deep_and_alloc_failures},
                                  {0}});
}
