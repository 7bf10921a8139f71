/* The MessagePack writer: every type and every size boundary of every
 * encoding against the specification's byte layouts, float 32 options,
 * UTF-8 checks, unknown counts at every header boundary into memory, fixed
 * and stream buffers, events, errors and allocation failure, and the inline
 * fast paths (the macros in msgpack.h) against the exported functions. */
#include "guard_pages.h" /* first: it sets feature macros */
#include <math.h>

#include "alloc_test.h"
#include "msgpack_util.h"
#include "sdx/msgpack.h"
#include "test.h"
#include "short_strings.h"
#include "writer_script.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

/* One writer into a memory buffer. */
typedef struct fixture {
    sdx_buf b;
    sdx_msgpack_writer w;
} fixture;

static void fx_init(fixture *f, uint32_t flags) {
    sdx_msgpack_write_opts o = {flags, NULL};
    sdx_buf_init(&f->b, NULL);
    sdx_msgpack_writer_init(&f->w, &f->b, &o);
}

/* Finish and compare with the expected hex. */
static int fx_check(fixture *f, const char *hex, int line) {
    unsigned char want[256];
    size_t n = mp_unhex(hex, want, sizeof want);
    sdx_err e = sdx_msgpack_writer_finish(&f->w);
    int ok = CHECK_EQ_INT(e, SDX_OK);
    if (ok && !test_mem_eq(__FILE__, line, sdx_buf_data(&f->b), sdx_buf_len(&f->b), want, n, hex))
        ok = 0;
    sdx_buf_destroy(&f->b);
    return ok;
}

#define EXPECT(f, hex) fx_check((f), (hex), __LINE__)

/* The header bytes of the output (after finish), for long values. */
static void fx_check_prefix(fixture *f, const char *hex, size_t total, int line) {
    unsigned char want[16];
    size_t n = mp_unhex(hex, want, sizeof want);
    CHECK_EQ_INT(sdx_msgpack_writer_finish(&f->w), SDX_OK);
    CHECK_EQ_U64(sdx_buf_len(&f->b), total);
    size_t have = sdx_buf_len(&f->b) < n ? sdx_buf_len(&f->b) : n;
    test_mem_eq(__FILE__, line, sdx_buf_data(&f->b), have, want, n, hex);
    sdx_buf_destroy(&f->b);
}

#define EXPECT_PREFIX(f, hex, total) fx_check_prefix((f), (hex), (total), __LINE__)

/* ------------------------------------------------------------------------ */
/* Scalars                                                                   */
/* ------------------------------------------------------------------------ */

TEST(nil_bool) {
    fixture f;
    fx_init(&f, 0);
    sdx_msgpack_writer_null(&f.w);
    EXPECT(&f, "c0");
    fx_init(&f, 0);
    sdx_msgpack_writer_bool(&f.w, true);
    EXPECT(&f, "c3");
    fx_init(&f, 0);
    sdx_msgpack_writer_bool(&f.w, false);
    EXPECT(&f, "c2");
}

TEST(integer_boundaries) {
    static const struct {
        int64_t v;
        const char *hex;
    } ints[] = {
        {0, "00"},
        {1, "01"},
        {127, "7f"},
        {128, "cc 80"},
        {255, "cc ff"},
        {256, "cd 01 00"},
        {65535, "cd ff ff"},
        {65536, "ce 00 01 00 00"},
        {4294967295ll, "ce ff ff ff ff"},
        {4294967296ll, "cf 00 00 00 01 00 00 00 00"},
        {INT64_MAX, "cf 7f ff ff ff ff ff ff ff"},
        {-1, "ff"},
        {-32, "e0"},
        {-33, "d0 df"},
        {-128, "d0 80"},
        {-129, "d1 ff 7f"},
        {-32768, "d1 80 00"},
        {-32769, "d2 ff ff 7f ff"},
        {-2147483648ll, "d2 80 00 00 00"},
        {-2147483649ll, "d3 ff ff ff ff 7f ff ff ff"},
        {INT64_MIN, "d3 80 00 00 00 00 00 00 00"},
    };
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++) {
        fixture f;
        fx_init(&f, 0);
        sdx_msgpack_writer_int(&f.w, ints[i].v);
        if (!EXPECT(&f, ints[i].hex)) fprintf(stderr, "  int %lld\n", (long long)ints[i].v);
        if (ints[i].v >= 0) { /* the same through uint */
            fx_init(&f, 0);
            sdx_msgpack_writer_uint(&f.w, (uint64_t)ints[i].v);
            EXPECT(&f, ints[i].hex);
        }
    }
    fixture f;
    fx_init(&f, 0);
    sdx_msgpack_writer_uint(&f.w, (uint64_t)INT64_MAX + 1);
    EXPECT(&f, "cf 80 00 00 00 00 00 00 00");
    fx_init(&f, 0);
    sdx_msgpack_writer_uint(&f.w, UINT64_MAX);
    EXPECT(&f, "cf ff ff ff ff ff ff ff ff");
}

TEST(doubles_and_floats) {
    fixture f;
    fx_init(&f, 0);
    sdx_msgpack_writer_double(&f.w, 1.0);
    EXPECT(&f, "cb 3f f0 00 00 00 00 00 00");
    fx_init(&f, 0);
    sdx_msgpack_writer_double(&f.w, -0.0);
    EXPECT(&f, "cb 80 00 00 00 00 00 00 00");
    fx_init(&f, 0);
    sdx_msgpack_writer_double(&f.w, 0.1);
    EXPECT(&f, "cb 3f b9 99 99 99 99 99 9a");
    fx_init(&f, 0);
    sdx_msgpack_writer_float(&f.w, 0.5f);
    EXPECT(&f, "ca 3f 00 00 00");
    fx_init(&f, 0);
    sdx_msgpack_writer_float(&f.w, -INFINITY);
    EXPECT(&f, "ca ff 80 00 00");
    /* FLOAT32: every double rounded. */
    fx_init(&f, SDX_MSGPACK_WRITE_FLOAT32);
    sdx_msgpack_writer_double(&f.w, 0.1);
    EXPECT(&f, "ca 3d cc cc cd");
    fx_init(&f, SDX_MSGPACK_WRITE_FLOAT32);
    sdx_msgpack_writer_double(&f.w, 1e300);
    EXPECT(&f, "ca 7f 80 00 00");
    fx_init(&f, SDX_MSGPACK_WRITE_FLOAT32);
    sdx_msgpack_writer_double(&f.w, -3.4028235e38); /* just above FLT_MAX: rounds down */
    EXPECT(&f, "ca ff 7f ff ff");
    fx_init(&f, SDX_MSGPACK_WRITE_FLOAT32);
    sdx_msgpack_writer_double(&f.w, 0x1.ffffffp127); /* halfway to 2^128: ties to infinity */
    EXPECT(&f, "ca 7f 80 00 00");
    fx_init(&f, SDX_MSGPACK_WRITE_FLOAT32);
    sdx_msgpack_writer_double(&f.w, 1e-50);
    EXPECT(&f, "ca 00 00 00 00");
    /* FLOAT32_EXACT: only lossless ones. */
    fx_init(&f, SDX_MSGPACK_WRITE_FLOAT32_EXACT);
    sdx_msgpack_writer_begin_array(&f.w, 6);
    sdx_msgpack_writer_double(&f.w, 0.5);
    sdx_msgpack_writer_double(&f.w, 0.1);
    sdx_msgpack_writer_double(&f.w, 0x1p-149); /* smallest float subnormal */
    sdx_msgpack_writer_double(&f.w, 0x1p-150);
    sdx_msgpack_writer_double(&f.w, INFINITY);
    sdx_msgpack_writer_double(&f.w, -0.0);
    sdx_msgpack_writer_end(&f.w);
    EXPECT(&f, "96 ca 3f 00 00 00 cb 3f b9 99 99 99 99 99 9a ca 00 00 00 01 cb 36 90 00 00 00 00 00 00"
               " ca 7f 80 00 00 ca 80 00 00 00");
    /* NaN payloads: kept when they fit, else float 64. */
    uint64_t nan_bits[] = {0x7ff8000000000000ull, 0xfff4000020000000ull, 0x7ff0000000000001ull};
    double nans[3];
    for (int i = 0; i < 3; i++) memcpy(&nans[i], &nan_bits[i], 8);
    fx_init(&f, SDX_MSGPACK_WRITE_FLOAT32_EXACT);
    sdx_msgpack_writer_begin_array(&f.w, 3);
    for (int i = 0; i < 3; i++) sdx_msgpack_writer_double(&f.w, nans[i]);
    sdx_msgpack_writer_end(&f.w);
    EXPECT(&f, "93 ca 7f c0 00 00 ca ff a0 00 01 cb 7f f0 00 00 00 00 00 01");
}

/* Header of a str / bin / ext of n bytes. */
static void check_bytes_kind(int kind, size_t n, const char *hex) {
    char *data = malloc(n ? n : 1);
    if (!data) abort();
    memset(data, 'x', n);
    fixture f;
    fx_init(&f, 0);
    size_t head;
    if (kind == 0) {
        sdx_msgpack_writer_string(&f.w, data, n);
    } else if (kind == 1) {
        sdx_msgpack_writer_bin(&f.w, data, n);
    } else {
        sdx_msgpack_writer_ext(&f.w, 5, data, n);
    }
    unsigned char h[8];
    head = mp_unhex(hex, h, sizeof h);
    EXPECT_PREFIX(&f, hex, head + n);
    free(data);
}

TEST(str_bin_ext_sizes) {
    check_bytes_kind(0, 0, "a0");
    check_bytes_kind(0, 1, "a1");
    check_bytes_kind(0, 31, "bf");
    check_bytes_kind(0, 32, "d9 20");
    check_bytes_kind(0, 255, "d9 ff");
    check_bytes_kind(0, 256, "da 01 00");
    check_bytes_kind(0, 4096, "da 10 00");
    check_bytes_kind(0, 4097, "da 10 01");
    check_bytes_kind(0, 65535, "da ff ff");
    check_bytes_kind(0, 65536, "db 00 01 00 00");
    check_bytes_kind(1, 0, "c4 00");
    check_bytes_kind(1, 1, "c4 01");
    check_bytes_kind(1, 255, "c4 ff");
    check_bytes_kind(1, 256, "c5 01 00");
    check_bytes_kind(1, 65535, "c5 ff ff");
    check_bytes_kind(1, 65536, "c6 00 01 00 00");
    check_bytes_kind(2, 0, "c7 00 05");
    check_bytes_kind(2, 1, "d4 05");
    check_bytes_kind(2, 2, "d5 05");
    check_bytes_kind(2, 3, "c7 03 05");
    check_bytes_kind(2, 4, "d6 05");
    check_bytes_kind(2, 5, "c7 05 05");
    check_bytes_kind(2, 8, "d7 05");
    check_bytes_kind(2, 9, "c7 09 05");
    check_bytes_kind(2, 16, "d8 05");
    check_bytes_kind(2, 17, "c7 11 05");
    check_bytes_kind(2, 255, "c7 ff 05");
    check_bytes_kind(2, 256, "c8 01 00 05");
    check_bytes_kind(2, 65535, "c8 ff ff 05");
    check_bytes_kind(2, 65536, "c9 00 01 00 00 05");
    /* negative ext types */
    fixture f;
    fx_init(&f, 0);
    sdx_msgpack_writer_ext(&f.w, -128, "ab", 2);
    EXPECT(&f, "d5 80 61 62");
}

TEST(timestamps) {
    static const struct {
        int64_t s;
        uint32_t ns;
        const char *hex;
    } ts[] = {
        {0, 0, "d6 ff 00 00 00 00"},
        {1514862245, 0, "d6 ff 5a 4a f6 a5"},
        {4294967295ll, 0, "d6 ff ff ff ff ff"},
        {4294967296ll, 0, "d7 ff 00 00 00 01 00 00 00 00"},
        {0, 1, "d7 ff 00 00 00 04 00 00 00 00"},
        {1514862245, 678901234, "d7 ff a1 dc d7 c8 5a 4a f6 a5"},
        {17179869183ll, 999999999, "d7 ff ee 6b 27 ff ff ff ff ff"},
        {17179869184ll, 0, "c7 0c ff 00 00 00 00 00 00 00 04 00 00 00 00"},
        {-1, 0, "c7 0c ff 00 00 00 00 ff ff ff ff ff ff ff ff"},
        {-1, 999999999, "c7 0c ff 3b 9a c9 ff ff ff ff ff ff ff ff ff"},
        {INT64_MIN, 0, "c7 0c ff 00 00 00 00 80 00 00 00 00 00 00 00"},
    };
    for (size_t i = 0; i < sizeof ts / sizeof *ts; i++) {
        fixture f;
        fx_init(&f, 0);
        sdx_msgpack_writer_timestamp(&f.w, ts[i].s, ts[i].ns);
        EXPECT(&f, ts[i].hex);
    }
    fixture f;
    fx_init(&f, 0);
    CHECK_EQ_INT(sdx_msgpack_writer_timestamp(&f.w, 0, 1000000000u), SDX_ERR_INVALID_ARG);
    CHECK_EQ_INT(sdx_msgpack_writer_finish(&f.w), SDX_ERR_INVALID_ARG);
    sdx_buf_destroy(&f.b);
    /* ext -1 must carry a valid timestamp */
    fx_init(&f, 0);
    CHECK_EQ_INT(sdx_msgpack_writer_ext(&f.w, -1, "abc", 3), SDX_ERR_INVALID_ARG);
    sdx_msgpack_writer_finish(&f.w);
    sdx_buf_destroy(&f.b);
    fx_init(&f, 0);
    CHECK_EQ_INT(sdx_msgpack_writer_ext(&f.w, -1, "\xff\xff\xff\xff\0\0\0\0", 8), SDX_ERR_INVALID_ARG);
    sdx_msgpack_writer_finish(&f.w);
    sdx_buf_destroy(&f.b);
    fx_init(&f, 0);
    CHECK_EQ_INT(sdx_msgpack_writer_ext(&f.w, -1, "\0\0\0\1", 4), SDX_OK);
    EXPECT(&f, "d6 ff 00 00 00 01");
    /* decoding */
    int64_t s;
    uint32_t ns;
    unsigned char p[12];
    mp_unhex("a1 dc d7 c8 5a 4a f6 a5", p, 12);
    CHECK(sdx_msgpack_timestamp_decode(p, 8, &s, &ns) && s == 1514862245 && ns == 678901234);
    mp_unhex("3b 9a ca 00 00 00 00 00 00 00 00 00", p, 12);
    CHECK(!sdx_msgpack_timestamp_decode(p, 12, &s, &ns));
    CHECK(!sdx_msgpack_timestamp_decode(p, 5, &s, &ns));
    CHECK(!sdx_msgpack_timestamp_decode(NULL, 4, &s, &ns));
}

TEST(utf8_check) {
    fixture f;
    fx_init(&f, 0);
    CHECK_EQ_INT(sdx_msgpack_writer_string(&f.w, "\xc3\x28", 2), SDX_ERR_UTF8);
    CHECK_EQ_INT(sdx_msgpack_writer_finish(&f.w), SDX_ERR_UTF8);
    sdx_buf_destroy(&f.b);
    fx_init(&f, SDX_MSGPACK_WRITE_NO_UTF8_CHECK);
    sdx_msgpack_writer_string(&f.w, "\xc3\x28", 2);
    EXPECT(&f, "a2 c3 28");
    /* keys are checked too, at every length class */
    static const size_t lens[] = {1, 3, 7, 8, 15, 16, 17, 40, 5000};
    for (size_t i = 0; i < sizeof lens / sizeof *lens; i++) {
        size_t n = lens[i];
        for (size_t bad = 0; bad < n; bad += n > 20 ? n / 7 + 1 : 1) {
            char *s = malloc(n);
            memset(s, 'k', n);
            s[bad] = (char)0xff;
            fx_init(&f, 0);
            sdx_msgpack_writer_begin_map(&f.w, 1);
            CHECK_EQ_INT(sdx_msgpack_writer_key(&f.w, s, n), SDX_ERR_UTF8);
            sdx_msgpack_writer_finish(&f.w);
            sdx_buf_destroy(&f.b);
            fx_init(&f, 0);
            CHECK_EQ_INT(sdx_msgpack_writer_string(&f.w, s, n), SDX_ERR_UTF8);
            sdx_msgpack_writer_finish(&f.w);
            sdx_buf_destroy(&f.b);
            free(s);
        }
    }
    /* valid non-ASCII; bin never checked */
    fx_init(&f, 0);
    sdx_msgpack_writer_begin_array(&f.w, 2);
    sdx_msgpack_writer_string(&f.w, "\xe2\x82\xac", 3);
    sdx_msgpack_writer_bin(&f.w, "\xff", 1);
    sdx_msgpack_writer_end(&f.w);
    EXPECT(&f, "92 a3 e2 82 ac c4 01 ff");
}

/* ------------------------------------------------------------------------ */
/* Containers                                                                */
/* ------------------------------------------------------------------------ */

TEST(known_counts) {
    fixture f;
    fx_init(&f, 0);
    sdx_msgpack_writer_begin_map(&f.w, 2);
    sdx_msgpack_writer_key(&f.w, "a", 1);
    sdx_msgpack_writer_begin_array(&f.w, 0);
    sdx_msgpack_writer_end(&f.w);
    sdx_msgpack_writer_int(&f.w, 7); /* an int key */
    sdx_msgpack_writer_begin_map(&f.w, 0);
    sdx_msgpack_writer_end(&f.w);
    sdx_msgpack_writer_end(&f.w);
    EXPECT(&f, "82 a1 61 90 07 80");
    static const struct {
        uint32_t n;
        const char *arr, *map;
    } sizes[] = {
        {15, "9f", "8f"},
        {16, "dc 00 10", "de 00 10"},
        {65535, "dc ff ff", "de ff ff"},
        {65536, "dd 00 01 00 00", "df 00 01 00 00"},
    };
    for (size_t i = 0; i < 4; i++) {
        for (int map = 0; map < 2; map++) {
            uint32_t n = sizes[i].n;
            fx_init(&f, 0);
            if (map) sdx_msgpack_writer_begin_map(&f.w, n);
            else sdx_msgpack_writer_begin_array(&f.w, n);
            for (uint32_t k = 0; k < n * (map ? 2u : 1u); k++) sdx_msgpack_writer_null(&f.w);
            sdx_msgpack_writer_end(&f.w);
            const char *h = map ? sizes[i].map : sizes[i].arr;
            unsigned char tmp[8];
            EXPECT_PREFIX(&f, h, mp_unhex(h, tmp, 8) + n * (map ? 2u : 1u));
        }
    }
}

/* Write a container of n nulls (maps: n null-null entries), inside an outer
 * unknown-count array with a marker before and after, with `count` given or
 * unknown; returns the bytes. */
static void write_nested(sdx_msgpack_writer *w, uint32_t n, int map, int known) {
    sdx_msgpack_writer_begin_array(w, SDX_COUNT_UNKNOWN);
    sdx_msgpack_writer_int(w, 1);
    if (map) sdx_msgpack_writer_begin_map(w, known ? n : SDX_COUNT_UNKNOWN);
    else sdx_msgpack_writer_begin_array(w, known ? n : SDX_COUNT_UNKNOWN);
    for (uint32_t k = 0; k < n * (map ? 2u : 1u); k++) sdx_msgpack_writer_int(w, (int64_t)(k & 0x7f));
    sdx_msgpack_writer_end(w);
    sdx_msgpack_writer_int(w, 2);
    sdx_msgpack_writer_end(w);
}

static size_t stream_sink(void *ctx, const void *data, size_t len) {
    sdx_buf *b = ctx;
    return sdx_buf_write(b, data, len) == SDX_OK ? len : 0;
}

/* A container of unknown count that begins when a stream buffer of 1 to
 * 5 bytes is exactly full, after every number of items before it: its
 * header must stay in the buffer (pinned before it is written; a write of
 * the chunk's size into a full buffer went straight to the stream, and the
 * end moved bytes the buffer no longer held: a heap overflow the fuzz
 * target of the writers found). */
static void prefix_then_unknown(sdx_msgpack_writer *w, int k) {
    sdx_msgpack_writer_begin_array(w, 2);
    sdx_msgpack_writer_begin_array(w, (uint64_t)k);
    for (int i = 0; i < k; i++) sdx_msgpack_writer_int(w, i % 100);
    sdx_msgpack_writer_end(w);
    sdx_msgpack_writer_begin_array(w, SDX_COUNT_UNKNOWN);
    for (int j = 0; j < 20; j++) sdx_msgpack_writer_string(w, "value", 5);
    sdx_msgpack_writer_end(w);
    sdx_msgpack_writer_end(w);
}

TEST(unknown_count_at_every_fill) {
    for (int k = 0; k < 140; k++) {
        sdx_buf ref;
        sdx_buf_init(&ref, NULL);
        sdx_msgpack_writer w;
        sdx_msgpack_writer_init(&w, &ref, NULL);
        prefix_then_unknown(&w, k);
        CHECK_EQ_INT(sdx_msgpack_writer_finish(&w), SDX_OK);
        for (size_t chunk = 1; chunk <= 5; chunk++) {
            sdx_buf out, s;
            sdx_buf_init(&out, NULL);
            sdx_buf_init_stream(&s, stream_sink, &out, chunk, NULL);
            sdx_msgpack_writer_init(&w, &s, NULL);
            prefix_then_unknown(&w, k);
            CHECK_EQ_INT(sdx_msgpack_writer_finish(&w), SDX_OK);
            if (!CHECK_MEM(sdx_buf_data(&out), sdx_buf_len(&out), sdx_buf_data(&ref), sdx_buf_len(&ref)))
                fprintf(stderr, "  %d items before, chunk %zu\n", k, chunk);
            CHECK(s.pin == UINT64_MAX);
            sdx_buf_destroy(&s);
            sdx_buf_destroy(&out);
        }
        sdx_buf_destroy(&ref);
    }
}

TEST(unknown_counts_every_boundary) {
    static const uint32_t ns[] = {0, 1, 15, 16, 17, 65535, 65536};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
        for (int map = 0; map < 2; map++) {
            /* Reference: the known-count output. */
            sdx_buf ref;
            sdx_buf_init(&ref, NULL);
            sdx_msgpack_writer w;
            sdx_msgpack_writer_init(&w, &ref, NULL);
            write_nested(&w, ns[i], map, 1);
            CHECK_EQ_INT(sdx_msgpack_writer_finish(&w), SDX_OK);
            /* memory */
            sdx_buf b;
            sdx_buf_init(&b, NULL);
            sdx_msgpack_writer_init(&w, &b, NULL);
            write_nested(&w, ns[i], map, 0);
            CHECK_EQ_INT(sdx_msgpack_writer_finish(&w), SDX_OK);
            CHECK_MEM(sdx_buf_data(&b), sdx_buf_len(&b), sdx_buf_data(&ref), sdx_buf_len(&ref));
            sdx_buf_destroy(&b);
            /* fixed: exactly the size works, one byte less overflows */
            size_t len = sdx_buf_len(&ref);
            char *mem = malloc(len + 1);
            for (int less = 0; less < 2; less++) {
                sdx_buf_init_fixed(&b, mem, len - (size_t)less);
                sdx_msgpack_writer_init(&w, &b, NULL);
                write_nested(&w, ns[i], map, 0);
                sdx_err e = sdx_msgpack_writer_finish(&w);
                if (less) {
                    CHECK_EQ_INT(e, SDX_ERR_OVERFLOW);
                } else if (CHECK_EQ_INT(e, SDX_OK)) {
                    CHECK_MEM(mem, sdx_buf_len(&b), sdx_buf_data(&ref), len);
                }
            }
            free(mem);
            /* streams at several chunk sizes */
            static const size_t chunks[] = {1, 2, 3, 7, 64, 4096};
            for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++) {
                if (ns[i] >= 65535 && chunks[c] < 64) continue; /* slow and adds nothing */
                sdx_buf out, s;
                sdx_buf_init(&out, NULL);
                sdx_buf_init_stream(&s, stream_sink, &out, chunks[c], NULL);
                sdx_msgpack_writer_init(&w, &s, NULL);
                write_nested(&w, ns[i], map, 0);
                CHECK_EQ_INT(sdx_msgpack_writer_finish(&w), SDX_OK);
                CHECK(s.pin == UINT64_MAX);
                CHECK_MEM(sdx_buf_data(&out), sdx_buf_len(&out), sdx_buf_data(&ref), len);
                sdx_buf_destroy(&s);
                sdx_buf_destroy(&out);
            }
            sdx_buf_destroy(&ref);
        }
    }
}

/* A random tree of containers, some with unknown counts, written both ways
 * and compared (nested unknown counts, moves inside moves). */
static void write_random_tree(sdx_msgpack_writer *w, uint64_t *rng, int depth, int unknown_mask) {
    uint32_t n = (uint32_t)(test_rand(rng) % (depth > 2 ? 4 : 40));
    int map = test_rand(rng) & 1;
    int unknown = unknown_mask && (test_rand(rng) & 1);
    if (map) sdx_msgpack_writer_begin_map(w, unknown ? SDX_COUNT_UNKNOWN : n);
    else sdx_msgpack_writer_begin_array(w, unknown ? SDX_COUNT_UNKNOWN : n);
    for (uint32_t i = 0; i < n; i++) {
        if (map) sdx_msgpack_writer_key(w, "key", 3);
        if (depth < 4 && test_rand(rng) % 3 == 0) write_random_tree(w, rng, depth + 1, unknown_mask);
        else sdx_msgpack_writer_string(w, "value value value value value value", test_rand(rng) % 36);
    }
    sdx_msgpack_writer_end(w);
}

TEST(unknown_counts_nested_random) {
    int docs = (int)(200 * test_scale());
    for (int d = 0; d < docs; d++) {
        uint64_t rng = (uint64_t)d;
        sdx_buf ref, b, out, s;
        sdx_buf_init(&ref, NULL);
        sdx_buf_init(&b, NULL);
        sdx_msgpack_writer w;
        sdx_msgpack_writer_init(&w, &ref, NULL);
        write_random_tree(&w, &rng, 0, 1);
        CHECK_EQ_INT(sdx_msgpack_writer_finish(&w), SDX_OK);
        /* the same through a stream of a chunk size of its own: same bytes */
        sdx_buf_init(&out, NULL);
        sdx_buf_init_stream(&s, stream_sink, &out, 1 + (size_t)(d % 50), NULL);
        rng = (uint64_t)d;
        sdx_msgpack_writer_init(&w, &s, NULL);
        write_random_tree(&w, &rng, 0, 1);
        CHECK_EQ_INT(sdx_msgpack_writer_finish(&w), SDX_OK);
        CHECK_MEM(sdx_buf_data(&out), sdx_buf_len(&out), sdx_buf_data(&ref), sdx_buf_len(&ref));
        /* read back and written with the counts read: the same bytes */
        sdx_msgpack_reader *r = sdx_msgpack_reader_new(sdx_buf_data(&ref), sdx_buf_len(&ref), NULL);
        evlist got = {0};
        CHECK_EQ_INT(mp_read_events(r, &got), SDX_OK);
        sdx_msgpack_reader_free(r);
        sdx_buf_clear(&b);
        sdx_msgpack_writer_init(&w, &b, NULL);
        evlist_emit(&got, sdx_msgpack_writer_sink(&w));
        CHECK_EQ_INT(sdx_msgpack_writer_finish(&w), SDX_OK);
        CHECK_MEM(sdx_buf_data(&b), sdx_buf_len(&b), sdx_buf_data(&ref), sdx_buf_len(&ref));
        evlist_free(&got);
        sdx_buf_destroy(&s);
        sdx_buf_destroy(&out);
        sdx_buf_destroy(&ref);
        sdx_buf_destroy(&b);
    }
}

TEST(error_inside_unknown_counts_releases_the_pin) {
    /* An error while unknown-count containers are open (some nested beyond
     * the writer's inline frames): finish still releases the stream's pin,
     * whichever container took it, and reports the error. */
    static const int depths[] = {1, 3, SDX_MSGPACK_WRITER_INLINE_DEPTH + 5};
    for (size_t d = 0; d < sizeof depths / sizeof *depths; d++) {
        for (int known_first = 0; known_first < 2; known_first++) {
            sdx_buf out, s;
            sdx_buf_init(&out, NULL);
            sdx_buf_init_stream(&s, stream_sink, &out, 16, NULL);
            sdx_msgpack_writer w;
            sdx_msgpack_writer_init(&w, &s, NULL);
            if (known_first) sdx_msgpack_writer_begin_array(&w, 1);
            for (int i = 0; i < depths[d]; i++) sdx_msgpack_writer_begin_array(&w, SDX_COUNT_UNKNOWN);
            sdx_msgpack_writer_int(&w, 7);
            CHECK(s.pin != UINT64_MAX);
            CHECK_EQ_INT(sdx_msgpack_writer_string(&w, "\xff", 1), SDX_ERR_UTF8);
            CHECK_EQ_INT(sdx_msgpack_writer_begin_map(&w, 2), SDX_ERR_UTF8); /* sticky */
            CHECK_EQ_INT(sdx_msgpack_writer_finish(&w), SDX_ERR_UTF8);
            CHECK(s.pin == UINT64_MAX);
            sdx_buf_destroy(&s);
            sdx_buf_destroy(&out);
        }
    }
}

TEST(stream_pin_bounds_flushing) {
    /* Before and after an unknown-count container, a stream flushes chunk by
     * chunk; while it is open, its bytes stay buffered. */
    sdx_buf out, s;
    sdx_buf_init(&out, NULL);
    sdx_buf_init_stream(&s, stream_sink, &out, 16, NULL);
    sdx_msgpack_writer w;
    sdx_msgpack_write_opts o = {SDX_MSGPACK_WRITE_SEQUENCE, NULL};
    sdx_msgpack_writer_init(&w, &s, &o);
    for (int i = 0; i < 100; i++) sdx_msgpack_writer_int(&w, 1000);
    CHECK(sdx_buf_len(&s) <= SDX_BUF_INLINE + 3); /* flushed as it goes */
    uint64_t header = sdx_buf_total(&s);
    sdx_msgpack_writer_begin_array(&w, SDX_COUNT_UNKNOWN);
    for (int i = 0; i < 100; i++) sdx_msgpack_writer_int(&w, 1000);
    CHECK(sdx_buf_len(&out) <= header); /* nothing from the header on went out */
    CHECK(sdx_buf_len(&s) >= 301);
    sdx_msgpack_writer_end(&w);
    for (int i = 0; i < 200; i++) sdx_msgpack_writer_int(&w, 1000);
    CHECK(sdx_buf_len(&out) > header + 300); /* flushing again */
    CHECK_EQ_INT(sdx_msgpack_writer_finish(&w), SDX_OK);
    CHECK_EQ_U64(sdx_buf_len(&out), 400 * 3 + 3);
    sdx_buf_destroy(&s);
    sdx_buf_destroy(&out);
    /* a big string through a stream: passed straight through when unpinned */
    char *big = malloc(100000);
    memset(big, 'a', 100000);
    sdx_buf_init(&out, NULL);
    sdx_buf_init_stream(&s, stream_sink, &out, 64, NULL);
    sdx_msgpack_writer_init(&w, &s, NULL);
    sdx_msgpack_writer_begin_array(&w, SDX_COUNT_UNKNOWN);
    sdx_msgpack_writer_string(&w, big, 100000);
    sdx_msgpack_writer_bin(&w, big, 100000);
    sdx_msgpack_writer_end(&w);
    CHECK_EQ_INT(sdx_msgpack_writer_finish(&w), SDX_OK);
    CHECK_EQ_U64(sdx_buf_len(&out), 1 + 200010);
    if (sdx_buf_len(&out) == 200011)
        CHECK_MEM(sdx_buf_data(&out), 6, "\x92\xdb\x00\x01\x86\xa0", 6);
    sdx_buf_destroy(&s);
    sdx_buf_destroy(&out);
    free(big);
}

/* ------------------------------------------------------------------------ */
/* Events                                                                    */
/* ------------------------------------------------------------------------ */

TEST(put_events) {
    fixture f;
    fx_init(&f, 0);
    sdx_event ev[16];
    memset(ev, 0, sizeof ev);
    ev[0].kind = SDX_MAP;
    ev[0].v.count = 6;
    ev[1].kind = SDX_KEY;
    ev[1].v.str.ptr = "k";
    ev[1].v.str.len = 1;
    ev[2].kind = SDX_DOUBLE;
    ev[2].flags = SDX_EVENT_FLOAT32;
    ev[2].v.d = 0.5;
    ev[3].kind = SDX_UINT; /* key */
    ev[3].v.u = 300;
    ev[4].kind = SDX_DOUBLE;
    ev[4].flags = SDX_EVENT_FLOAT32;
    ev[4].v.d = 0.1; /* does not fit: float 64 */
    ev[5].kind = SDX_BOOL;
    ev[5].v.b = true;
    ev[6].kind = SDX_BIN;
    ev[6].tag_kind = SDX_TAG_MSGPACK_EXT;
    ev[6].tag = (uint64_t)-1;
    ev[6].v.str.ptr = "\0\0\0\1";
    ev[6].v.str.len = 4;
    ev[7].kind = SDX_NULL;
    ev[8].kind = SDX_BIN;
    ev[8].tag_kind = SDX_TAG_CBOR; /* other tags: ignored */
    ev[8].tag = 2;
    ev[8].v.str.ptr = "x";
    ev[8].v.str.len = 1;
    ev[9].kind = SDX_STR;
    ev[9].tag_kind = SDX_TAG_MSGPACK_EXT; /* ext tag on a str: ignored */
    ev[9].tag = 3;
    ev[9].v.str.ptr = "y";
    ev[9].v.str.len = 1;
    ev[10].kind = SDX_INT;
    ev[10].v.i = -5;
    ev[11].kind = SDX_ARRAY;
    ev[11].v.count = SDX_COUNT_UNKNOWN;
    ev[12].kind = SDX_END;
    ev[13].kind = SDX_NULL;
    ev[14].kind = SDX_END;
    for (int i = 0; i < 15; i++) CHECK_EQ_INT(sdx_msgpack_writer_put(&f.w, &ev[i]), SDX_OK);
    EXPECT(&f, "86 a1 6b ca 3f 00 00 00 cd 01 2c cb 3f b9 99 99 99 99 99 9a c3 d6 ff 00 00 00 01"
               " c0 c4 01 78 a1 79 fb 90 c0");
    /* an ext tag that is not an int8 */
    fx_init(&f, 0);
    ev[6].tag = 128;
    CHECK_EQ_INT(sdx_msgpack_writer_put(&f.w, &ev[6]), SDX_ERR_INVALID_ARG);
    sdx_msgpack_writer_finish(&f.w);
    sdx_buf_destroy(&f.b);
    /* raw numbers and unknown kinds */
    fx_init(&f, 0);
    sdx_event raw;
    memset(&raw, 0, sizeof raw);
    raw.kind = SDX_RAW;
    raw.v.str.ptr = "1";
    raw.v.str.len = 1;
    CHECK_EQ_INT(sdx_msgpack_writer_put(&f.w, &raw), SDX_ERR_UNSUPPORTED);
    sdx_msgpack_writer_finish(&f.w);
    sdx_buf_destroy(&f.b);
    fx_init(&f, 0);
    raw.kind = 99;
    CHECK_EQ_INT(sdx_msgpack_writer_put(&f.w, &raw), SDX_ERR_INVALID_ARG);
    sdx_msgpack_writer_finish(&f.w);
    sdx_buf_destroy(&f.b);
    /* through the sink */
    fx_init(&f, 0);
    sdx_sink sink = sdx_msgpack_writer_sink(&f.w);
    sdx_sink_put(sink, &ev[10]);
    CHECK_EQ_INT(sdx_sink_finish(sink), SDX_OK);
    CHECK_MEM(sdx_buf_data(&f.b), sdx_buf_len(&f.b), "\xfb", 1);
    sdx_buf_destroy(&f.b);
}

TEST(sequence) {
    fixture f;
    fx_init(&f, SDX_MSGPACK_WRITE_SEQUENCE);
    CHECK_EQ_INT(sdx_msgpack_writer_finish(&f.w), SDX_OK); /* zero values */
    sdx_buf_destroy(&f.b);
    fx_init(&f, SDX_MSGPACK_WRITE_SEQUENCE);
    sdx_msgpack_writer_int(&f.w, 1);
    sdx_msgpack_writer_begin_array(&f.w, SDX_COUNT_UNKNOWN);
    sdx_msgpack_writer_end(&f.w);
    sdx_msgpack_writer_null(&f.w);
    EXPECT(&f, "01 90 c0");
}

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

typedef void (*misuse_fn)(sdx_msgpack_writer *w);

static void m_two_roots(sdx_msgpack_writer *w) {
    sdx_msgpack_writer_null(w);
    sdx_msgpack_writer_null(w);
}
static void m_no_value(sdx_msgpack_writer *w) { (void)w; }
static void m_too_many(sdx_msgpack_writer *w) {
    sdx_msgpack_writer_begin_array(w, 1);
    sdx_msgpack_writer_int(w, 1);
    sdx_msgpack_writer_int(w, 2);
}
static void m_too_few(sdx_msgpack_writer *w) {
    sdx_msgpack_writer_begin_map(w, 2);
    sdx_msgpack_writer_key(w, "a", 1);
    sdx_msgpack_writer_int(w, 1);
    sdx_msgpack_writer_end(w);
}
static void m_key_in_array(sdx_msgpack_writer *w) {
    sdx_msgpack_writer_begin_array(w, 1);
    sdx_msgpack_writer_key(w, "a", 1);
}
static void m_key_for_value(sdx_msgpack_writer *w) {
    sdx_msgpack_writer_begin_map(w, 1);
    sdx_msgpack_writer_key(w, "a", 1);
    sdx_msgpack_writer_key(w, "b", 1);
}
static void m_key_without_value(sdx_msgpack_writer *w) {
    sdx_msgpack_writer_begin_map(w, SDX_COUNT_UNKNOWN);
    sdx_msgpack_writer_key(w, "a", 1);
    sdx_msgpack_writer_end(w);
}
static void m_end_at_root(sdx_msgpack_writer *w) { sdx_msgpack_writer_end(w); }
static void m_open(sdx_msgpack_writer *w) { sdx_msgpack_writer_begin_array(w, SDX_COUNT_UNKNOWN); }
static void m_key_at_root(sdx_msgpack_writer *w) { sdx_msgpack_writer_key(w, "a", 1); }

TEST(usage_errors) {
    static const misuse_fn fns[] = {m_two_roots,        m_no_value,    m_too_many,
                                    m_too_few,          m_key_in_array, m_key_for_value,
                                    m_key_without_value, m_end_at_root, m_open,
                                    m_key_at_root};
    for (size_t i = 0; i < sizeof fns / sizeof *fns; i++) {
        fixture f;
        fx_init(&f, 0);
        fns[i](&f.w);
        if (!CHECK_EQ_INT(sdx_msgpack_writer_finish(&f.w), SDX_ERR_USAGE)) fprintf(stderr, "  case %zu\n", i);
        sdx_buf_destroy(&f.b);
    }
    /* sticky: the first error stays, later calls do nothing */
    fixture f;
    fx_init(&f, 0);
    sdx_msgpack_writer_null(&f.w);
    CHECK_EQ_INT(sdx_msgpack_writer_int(&f.w, 5), SDX_ERR_USAGE);
    CHECK_EQ_INT(sdx_msgpack_writer_string(&f.w, "\xff", 1), SDX_ERR_USAGE);
    CHECK_EQ_INT(sdx_msgpack_writer_begin_map(&f.w, 1), SDX_ERR_USAGE);
    CHECK_EQ_INT(sdx_msgpack_writer_key(&f.w, "a", 1), SDX_ERR_USAGE);
    CHECK_EQ_INT(sdx_msgpack_writer_end(&f.w), SDX_ERR_USAGE);
    CHECK_EQ_INT(sdx_msgpack_writer_timestamp(&f.w, 0, 0), SDX_ERR_USAGE);
    CHECK_EQ_INT(sdx_msgpack_writer_error(&f.w), SDX_ERR_USAGE);
    CHECK_EQ_U64(sdx_buf_len(&f.b), 1);
    sdx_msgpack_writer_finish(&f.w);
    sdx_buf_destroy(&f.b);
    /* nothing after finish */
    fx_init(&f, 0);
    sdx_msgpack_writer_null(&f.w);
    CHECK_EQ_INT(sdx_msgpack_writer_finish(&f.w), SDX_OK);
    CHECK_EQ_INT(sdx_msgpack_writer_null(&f.w), SDX_ERR_USAGE);
    sdx_buf_destroy(&f.b);
    /* an end after finish (there is nothing to close; before, it stepped
     * the writer below its frames) */
    fx_init(&f, 0);
    sdx_msgpack_writer_null(&f.w);
    CHECK_EQ_INT(sdx_msgpack_writer_finish(&f.w), SDX_OK);
    CHECK_EQ_INT(sdx_msgpack_writer_end(&f.w), SDX_ERR_USAGE);
    CHECK_EQ_INT((sdx_msgpack_writer_end)(&f.w), SDX_ERR_USAGE);
    CHECK_EQ_INT(sdx_msgpack_writer_begin_array(&f.w, 1), SDX_ERR_USAGE);
    sdx_buf_destroy(&f.b);
    /* counts MessagePack cannot hold, unknown flags */
    fx_init(&f, 0);
    CHECK_EQ_INT(sdx_msgpack_writer_begin_array(&f.w, UINT64_C(1) << 32), SDX_ERR_UNSUPPORTED);
    sdx_msgpack_writer_finish(&f.w);
    sdx_buf_destroy(&f.b);
    fx_init(&f, 1u << 20);
    CHECK_EQ_INT(sdx_msgpack_writer_error(&f.w), SDX_ERR_INVALID_ARG);
    sdx_msgpack_writer_finish(&f.w);
    sdx_buf_destroy(&f.b);
}

/* A document exercising every path, written into a fixed buffer of every
 * size: only sizes from the output length up succeed, nothing is written
 * past the end. */
static void write_everything(sdx_msgpack_writer *w) {
    static char big[300];
    memset(big, 'q', sizeof big);
    sdx_msgpack_writer_begin_map(w, SDX_COUNT_UNKNOWN);
    sdx_msgpack_writer_key(w, "ints", 4);
    sdx_msgpack_writer_begin_array(w, 6);
    sdx_msgpack_writer_int(w, -40000);
    sdx_msgpack_writer_uint(w, UINT64_MAX);
    sdx_msgpack_writer_int(w, 5);
    sdx_msgpack_writer_double(w, 2.5);
    sdx_msgpack_writer_float(w, 2.5f);
    sdx_msgpack_writer_timestamp(w, -5, 7);
    sdx_msgpack_writer_end(w);
    sdx_msgpack_writer_bool(w, true);
    sdx_msgpack_writer_begin_array(w, SDX_COUNT_UNKNOWN);
    for (int i = 0; i < 20; i++) sdx_msgpack_writer_string(w, big, (size_t)i * 15);
    sdx_msgpack_writer_bin(w, big, 300);
    sdx_msgpack_writer_ext(w, 9, big, 16);
    sdx_msgpack_writer_end(w);
    sdx_msgpack_writer_end(w);
}

TEST(fixed_buffer_every_size) {
    sdx_buf ref;
    sdx_buf_init(&ref, NULL);
    sdx_msgpack_writer w;
    sdx_msgpack_writer_init(&w, &ref, NULL);
    write_everything(&w);
    if (!CHECK_EQ_INT(sdx_msgpack_writer_finish(&w), SDX_OK)) return;
    size_t len = sdx_buf_len(&ref);
    char *mem = malloc(len + 64);
    for (size_t cap = 0; cap <= len + 2; cap++) {
        memset(mem, 0x5a, len + 64);
        sdx_buf b;
        sdx_buf_init_fixed(&b, mem, cap);
        sdx_msgpack_writer_init(&w, &b, NULL);
        write_everything(&w);
        sdx_err e = sdx_msgpack_writer_finish(&w);
        if (cap < len) {
            CHECK_EQ_INT(e, SDX_ERR_OVERFLOW);
        } else if (CHECK_EQ_INT(e, SDX_OK)) {
            CHECK_MEM(mem, sdx_buf_len(&b), sdx_buf_data(&ref), len);
        }
        for (size_t k = cap; k < len + 64; k++)
            if (mem[k] != 0x5a) {
                CHECK(!"written past the end");
                break;
            }
    }
    free(mem);
    sdx_buf_destroy(&ref);
}

/* Streams that fail, and allocations that fail at every call. */
static size_t failing_sink(void *ctx, const void *data, size_t len) {
    int *left = ctx;
    (void)data;
    if (*left <= 0) return 0;
    (*left)--;
    return len;
}

TEST(io_and_alloc_failures) {
    for (int ok_writes = 0; ok_writes < 20; ok_writes++) {
        int left = ok_writes;
        sdx_buf s;
        sdx_buf_init_stream(&s, failing_sink, &left, 8, NULL);
        sdx_msgpack_writer w;
        sdx_msgpack_writer_init(&w, &s, NULL);
        write_everything(&w);
        sdx_err e = sdx_msgpack_writer_finish(&w);
        CHECK(e == SDX_ERR_IO || (e == SDX_OK && left >= 0));
        sdx_buf_destroy(&s);
    }
    /* deep nesting needs the frame stack to grow; memory and stream buffers
     * allocate: every allocation fails once in turn */
    for (long fail_at = 1;; fail_at++) {
        counting_alloc a;
        counting_alloc_init(&a, fail_at);
        sdx_buf b;
        sdx_buf_init(&b, &a.iface);
        sdx_msgpack_write_opts o = {0, &a.iface};
        sdx_msgpack_writer w;
        sdx_msgpack_writer_init(&w, &b, &o);
        for (int i = 0; i < 100; i++) sdx_msgpack_writer_begin_array(&w, i % 2 ? 1 : SDX_COUNT_UNKNOWN);
        write_everything(&w);
        for (int i = 0; i < 100; i++) sdx_msgpack_writer_end(&w);
        sdx_err e = sdx_msgpack_writer_finish(&w);
        sdx_buf_destroy(&b);
        CHECK_EQ_INT(a.live, 0);
        if (fail_at > a.calls) {
            CHECK_EQ_INT(e, SDX_OK);
            break;
        }
        CHECK_EQ_INT(e, SDX_ERR_NOMEM);
    }
}

/* Random documents through put: the output decodes (reader) to the same
 * events, at every chunk size of a stream the same bytes. */
TEST(random_documents) {
    int docs = (int)(300 * test_scale());
    mp_gen g = {12345, 5, 0, 1, 0, 0};
    for (int d = 0; d < docs; d++) {
        evlist l = {0}, got = {0};
        g.big = d % 50 == 0;
        mp_gen_doc(&g, &l);
        sdx_buf b;
        sdx_buf_init(&b, NULL);
        CHECK_EQ_INT(mp_write_events(&l, &b), SDX_OK);
        sdx_msgpack_reader *r = sdx_msgpack_reader_new(sdx_buf_data(&b), sdx_buf_len(&b), NULL);
        CHECK_EQ_INT(mp_read_events(r, &got), SDX_OK);
        sdx_msgpack_reader_free(r);
        size_t at = evlist_diff(&l, &got);
        if (!CHECK(at == (size_t)-1)) fprintf(stderr, "  doc %d: event %zu differs\n", d, at);
        sdx_buf out, s;
        sdx_buf_init(&out, NULL);
        sdx_buf_init_stream(&s, stream_sink, &out, 1 + (size_t)d % 100, NULL);
        sdx_msgpack_writer w;
        sdx_msgpack_writer_init(&w, &s, NULL);
        evlist_emit(&l, sdx_msgpack_writer_sink(&w));
        CHECK_EQ_INT(sdx_msgpack_writer_finish(&w), SDX_OK);
        CHECK_MEM(sdx_buf_data(&out), sdx_buf_len(&out), sdx_buf_data(&b), sdx_buf_len(&b));
        sdx_buf_destroy(&s);
        sdx_buf_destroy(&out);
        sdx_buf_destroy(&b);
        evlist_free(&l);
        evlist_free(&got);
    }
}

/* ------------------------------------------------------------------------ */
/* The inline fast paths and the exported functions                         */
/* ------------------------------------------------------------------------ */

/* The script through a MessagePack writer (writer_script.h). */
static sdx_err run_ops(sdx_buf *b, uint32_t flags, const op *ops, size_t n, int exported, sdx_err *res) {
    sdx_msgpack_writer wr, *w = &wr;
    sdx_msgpack_write_opts wo = {flags, NULL};
    sdx_msgpack_writer_init(w, b, &wo);
    for (size_t i = 0; i < n; i++) {
        const op *o = &ops[i];
        double d;
        memcpy(&d, &o->v, 8);
        sdx_err e = SDX_OK;
        if (exported) {
            switch (o->kind) {
            case OP_NULL: e = (sdx_msgpack_writer_null)(w); break;
            case OP_BOOL: e = (sdx_msgpack_writer_bool)(w, o->v != 0); break;
            case OP_INT: e = (sdx_msgpack_writer_int)(w, (int64_t)o->v); break;
            case OP_UINT: e = (sdx_msgpack_writer_uint)(w, o->v); break;
            case OP_DOUBLE: e = (sdx_msgpack_writer_double)(w, d); break;
            case OP_STR: e = (sdx_msgpack_writer_string)(w, o->s, o->n); break;
            case OP_KEY: e = (sdx_msgpack_writer_key)(w, o->s, o->n); break;
            case OP_ARRAY: e = (sdx_msgpack_writer_begin_array)(w, o->v); break;
            case OP_MAP: e = (sdx_msgpack_writer_begin_map)(w, o->v); break;
            default: e = (sdx_msgpack_writer_end)(w);
            }
        } else {
            switch (o->kind) {
            case OP_NULL: e = sdx_msgpack_writer_null(w); break;
            case OP_BOOL: e = sdx_msgpack_writer_bool(w, o->v != 0); break;
            case OP_INT: e = sdx_msgpack_writer_int(w, (int64_t)o->v); break;
            case OP_UINT: e = sdx_msgpack_writer_uint(w, o->v); break;
            case OP_DOUBLE: e = sdx_msgpack_writer_double(w, d); break;
            case OP_STR: e = sdx_msgpack_writer_string(w, o->s, o->n); break;
            case OP_KEY: e = sdx_msgpack_writer_key(w, o->s, o->n); break;
            case OP_ARRAY: e = sdx_msgpack_writer_begin_array(w, o->v); break;
            case OP_MAP: e = sdx_msgpack_writer_begin_map(w, o->v); break;
            default: e = sdx_msgpack_writer_end(w);
            }
        }
        res[i] = e;
    }
    return sdx_msgpack_writer_finish(w);
}

TEST(inline_and_exported_agree) {
    static const uint32_t flag_sets[] = {0, SDX_MSGPACK_WRITE_NO_UTF8_CHECK, SDX_MSGPACK_WRITE_SEQUENCE,
                                         SDX_MSGPACK_WRITE_FLOAT32_EXACT, SDX_MSGPACK_WRITE_FLOAT32};
    scripts_agree(run_ops, flag_sets, 5);
}

/* Short strings and keys at every SIMD level (short_strings.h): a fixstr up
 * to 31 bytes, str8 above. */
static sdx_err mp_short_write(const char *s, size_t n, int as_key, int check, unsigned char *out,
                              size_t cap, size_t *len) {
    sdx_buf b;
    sdx_buf_init_fixed(&b, out, cap);
    sdx_msgpack_writer w;
    sdx_msgpack_write_opts o = {0};
    o.flags = check ? 0 : SDX_MSGPACK_WRITE_NO_UTF8_CHECK;
    sdx_err e = sdx_msgpack_writer_init(&w, &b, &o);
    if (as_key) {
        sdx_msgpack_writer_begin_map(&w, 1);
        sdx_msgpack_writer_key(&w, s, n);
        sdx_msgpack_writer_null(&w);
        sdx_msgpack_writer_end(&w);
    } else {
        sdx_msgpack_writer_string(&w, s, n);
    }
    if (!e) e = sdx_msgpack_writer_finish(&w);
    *len = sdx_buf_len(&b);
    return e;
}

static size_t mp_short_expect(const char *s, size_t n, int as_key, unsigned char *out) {
    size_t k = 0;
    if (as_key) out[k++] = 0x81;
    if (n <= 31) {
        out[k++] = (unsigned char)(0xa0 | n);
    } else {
        out[k++] = 0xd9;
        out[k++] = (unsigned char)n;
    }
    memcpy(out + k, s, n);
    k += n;
    if (as_key) out[k++] = 0xc0;
    return k;
}

static void short_strings_every_simd_level(void) {
    short_strings_every_level(mp_short_write, mp_short_expect);
}

/* A key where the entry's value is due, or in an array, is refused at the
 * key itself, on the short-string fast path (a growable buffer with room)
 * of every SIMD level, AVX-512's included. */
static void keys_out_of_place_one_level(void) {
    fixture f;
    fx_init(&f, 0);
    CHECK_EQ_INT(sdx_msgpack_writer_begin_map(&f.w, 1), SDX_OK);
    CHECK_EQ_INT(sdx_msgpack_writer_key(&f.w, "a", 1), SDX_OK);
    CHECK_EQ_INT(sdx_msgpack_writer_key(&f.w, "b", 1), SDX_ERR_USAGE);
    sdx_buf_destroy(&f.b);
    fx_init(&f, 0);
    CHECK_EQ_INT(sdx_msgpack_writer_begin_array(&f.w, 2), SDX_OK);
    CHECK_EQ_INT(sdx_msgpack_writer_key(&f.w, "a", 1), SDX_ERR_USAGE);
    sdx_buf_destroy(&f.b);
}

static void keys_out_of_place_every_simd_level(void) {
    test_every_simd_level(keys_out_of_place_one_level);
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){{"nil_bool", nil_bool},
                                  {"integer_boundaries", integer_boundaries},
                                  {"doubles_and_floats", doubles_and_floats},
                                  {"str_bin_ext_sizes", str_bin_ext_sizes},
                                  {"timestamps", timestamps},
                                  {"utf8_check", utf8_check},
                                  {"known_counts", known_counts},
                                  {"unknown_count_at_every_fill", unknown_count_at_every_fill},
        {"unknown_counts_every_boundary", unknown_counts_every_boundary},
                                  {"unknown_counts_nested_random", unknown_counts_nested_random},
                                  {"stream_pin_bounds_flushing", stream_pin_bounds_flushing},
                                  {"error_inside_unknown_counts_releases_the_pin",
                                   error_inside_unknown_counts_releases_the_pin},
                                  {"put_events", put_events},
                                  {"sequence", sequence},
                                  {"usage_errors", usage_errors},
                                  {"fixed_buffer_every_size", fixed_buffer_every_size},
                                  {"io_and_alloc_failures", io_and_alloc_failures},
                                  {"random_documents", random_documents},
                                  {"inline_and_exported_agree", inline_and_exported_agree},
                                  {"short_strings_every_simd_level", short_strings_every_simd_level},
                                  {"keys_out_of_place_every_simd_level", keys_out_of_place_every_simd_level},
                                  {0, 0}});
}
