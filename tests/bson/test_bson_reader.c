/*
 * The BSON pull reader: every element type read and written back byte for
 * byte (memory, a stream fed one byte at a time, FILE*), arrays with odd
 * keys, sequences, and malformed input: truncation at every byte, byte
 * flips, lengths that lie (negative, short, beyond the document, beyond the
 * input), early terminators, deep nesting, allocation failure at every
 * point. Regression tests name the bug classes of libbson CVE-2018-16790
 * (a length read past the buffer) and CVE-2026-6231 (validation that
 * returns early with success).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_test.h"
#include "bson_test.h"
#include "core/endian.h"
#include "msgpack_util.h"
#include "sdx/sdx.h"
#include "test.h"

static sdx_err read_mem(const void *p, size_t n, uint32_t flags, sdx_error *e) {
    sdx_bson_read_opts o = {flags, 0, 0, NULL};
    sdx_bson_reader *r = sdx_bson_reader_new(p, n, &o);
    sdx_event ev;
    while (sdx_bson_reader_next(r, &ev)) {
    }
    sdx_err rc = sdx_bson_reader_error(r, e);
    sdx_bson_reader_free(r);
    return rc;
}

static const sdx_bson_read_opts keep_keys = {SDX_BSON_READ_KEEP_ARRAY_KEYS, 0, 0, NULL};

/* With SDX_BSON_READ_KEEP_ARRAY_KEYS every type, an array with odd keys
 * included, writes back to the same bytes, from memory, a stream and a
 * FILE*. */
TEST(round_trip_every_type) {
    unsigned char in[1024];
    size_t n = all_types(in, sizeof in);
    sdx_buf b;
    sdx_bson_reader *r = sdx_bson_reader_new((const char *)in, n, &keep_keys);
    CHECK_EQ_INT(reread(r, &b, 0), SDX_OK);
    CHECK_MEM(sdx_buf_data(&b), sdx_buf_len(&b), in, n);
    sdx_bson_reader_free(r);
    sdx_buf_destroy(&b);

    trickle t = {in, n, 1};
    r = sdx_bson_reader_new_stream(trickle_read, &t, &keep_keys);
    CHECK_EQ_INT(reread(r, &b, 0), SDX_OK);
    CHECK_MEM(sdx_buf_data(&b), sdx_buf_len(&b), in, n);
    sdx_bson_reader_free(r);
    sdx_buf_destroy(&b);

    FILE *f = tmpfile();
    if (!CHECK(f != NULL)) return;
    fwrite(in, 1, n, f);
    fwrite(in, 1, n, f);
    rewind(f);
    sdx_bson_read_opts o = {SDX_BSON_READ_SEQUENCE | SDX_BSON_READ_KEEP_ARRAY_KEYS, 0, 0, NULL};
    r = sdx_bson_reader_new_file(f, &o);
    CHECK_EQ_INT(reread(r, &b, SDX_BSON_WRITE_SEQUENCE), SDX_OK);
    CHECK(sdx_buf_len(&b) == 2 * n && !memcmp(sdx_buf_data(&b), in, n) &&
          !memcmp(sdx_buf_data(&b) + n, in, n));
    sdx_bson_reader_free(r);
    sdx_buf_destroy(&b);
    fclose(f);
}

/* By default the array with odd keys (all_types' "b": {"5": ...} as an
 * array) is read as an array and written back with the key "0": the
 * same bytes but that one, and the output reads back to itself. */
TEST(round_trip_canonical_arrays) {
    unsigned char in[1024];
    size_t n = all_types(in, sizeof in);
    sdx_buf b, c;
    sdx_bson_reader *r = sdx_bson_reader_new((const char *)in, n, NULL);
    CHECK_EQ_INT(reread(r, &b, 0), SDX_OK);
    sdx_bson_reader_free(r);
    size_t differ = 0, at = 0;
    if (CHECK_EQ_U64(sdx_buf_len(&b), n)) {
        for (size_t i = 0; i < n; i++)
            if (((const unsigned char *)sdx_buf_data(&b))[i] != in[i]) differ++, at = i;
        CHECK(differ == 1 && in[at] == '5' && ((const unsigned char *)sdx_buf_data(&b))[at] == '0');
    }
    r = sdx_bson_reader_new(sdx_buf_data(&b), sdx_buf_len(&b), &keep_keys);
    CHECK_EQ_INT(reread(r, &c, 0), SDX_OK);
    CHECK_MEM(sdx_buf_data(&c), sdx_buf_len(&c), sdx_buf_data(&b), sdx_buf_len(&b));
    sdx_bson_reader_free(r);
    sdx_buf_destroy(&c);
    sdx_buf_destroy(&b);
}

/* The events of every type; the array with odd keys is a map tagged 0x04
 * with SDX_BSON_READ_KEEP_ARRAY_KEYS, an array by default. */
static void events_of_every_type(const sdx_bson_read_opts *o, int odd_arrays, int arrays) {
    unsigned char in[1024];
    size_t n = all_types(in, sizeof in);
    sdx_bson_reader *r = sdx_bson_reader_new((const char *)in, n, o);
    sdx_event ev;
    int seen_odd_array = 0, seen_array = 0, seen_int64 = 0, seen_oid = 0, seen_old = 0;
    while (sdx_bson_reader_next(r, &ev)) {
        if (ev.kind == SDX_MAP && ev.tag_kind == SDX_TAG_BSON && ev.tag == SDX_BSON_ARRAY) seen_odd_array++;
        if (ev.kind == SDX_ARRAY && ev.tag_kind == SDX_TAG_NONE && ev.depth == 1) seen_array++;
        if (ev.kind == SDX_INT && ev.tag == SDX_BSON_INT64 && ev.v.i == 1) seen_int64++;
        if (ev.kind == SDX_BIN && ev.tag == SDX_BSON_OBJECTID && ev.v.str.len == 12) seen_oid++;
        if (ev.kind == SDX_BIN && ev.tag == SDX_BSON_BINARY_TAG(2) && ev.v.str.len == 2) seen_old++;
    }
    sdx_error e;
    if (!CHECK_EQ_INT(sdx_bson_reader_error(r, &e), SDX_OK)) fprintf(stderr, "  at %zu: %s\n", e.offset, e.msg);
    CHECK(seen_odd_array == odd_arrays && seen_array == arrays && seen_int64 == 1 && seen_oid == 1 &&
          seen_old == 1);
    sdx_bson_reader_free(r);
}

TEST(events) {
    events_of_every_type(&keep_keys, 1, 1);
    events_of_every_type(NULL, 0, 2);
}

/* Every proper prefix is an error (never success, never a read past it:
 * the prefix is copied into an allocation of exactly its size, so ASan
 * sees any overread); so is every prefix given to the stream reader. */
TEST(truncation_at_every_byte) {
    unsigned char in[1024];
    size_t n = all_types(in, sizeof in);
    for (size_t k = 0; k < n; k++) {
        unsigned char *p = malloc(k ? k : 1);
        memcpy(p, in, k);
        sdx_error e;
        sdx_err rc = read_mem(p, k, 0, &e);
        CHECK(rc == SDX_ERR_TRUNCATED);
        trickle t = {p, k, 1};
        sdx_bson_reader *r = sdx_bson_reader_new_stream(trickle_read, &t, NULL);
        sdx_event ev;
        while (sdx_bson_reader_next(r, &ev)) {
        }
        CHECK(sdx_bson_reader_error(r, NULL) == SDX_ERR_TRUNCATED);
        sdx_bson_reader_free(r);
        free(p);
    }
}

/* Random byte flips: an error or a document that writes back to the same
 * bytes (a flip may give another valid document) — never a crash; with
 * SDX_BSON_READ_KEEP_ARRAY_KEYS exactly the same bytes, by default the
 * same bytes as the output gives when it is read again (a flip in an
 * array's key gives that array canonical keys). */
TEST(byte_flips) {
    unsigned char in[1024];
    size_t n = all_types(in, sizeof in);
    uint64_t seed = 0x9e3779b97f4a7c15u;
    long rounds = (long)(20000 * test_scale());
    for (long i = 0; i < rounds; i++) {
        unsigned char *p = malloc(n);
        memcpy(p, in, n);
        flip_bits(p, n, 1 + (int)(i % 3), &seed);
        const int keep = i & 1;
        sdx_bson_reader *r = sdx_bson_reader_new((const char *)p, n, keep ? &keep_keys : NULL);
        sdx_buf b;
        sdx_err rc = reread(r, &b, 0);
        if (rc == SDX_OK && keep) {
            CHECK_MEM(sdx_buf_data(&b), sdx_buf_len(&b), p, n);
        } else if (rc == SDX_OK) {
            sdx_buf c;
            sdx_bson_reader *again = sdx_bson_reader_new(sdx_buf_data(&b), sdx_buf_len(&b), &keep_keys);
            CHECK_EQ_INT(reread(again, &c, 0), SDX_OK);
            CHECK_MEM(sdx_buf_data(&c), sdx_buf_len(&c), sdx_buf_data(&b), sdx_buf_len(&b));
            CHECK_EQ_U64(sdx_buf_len(&b), n); /* array keys keep their lengths here */
            sdx_bson_reader_free(again);
            sdx_buf_destroy(&c);
        }
        sdx_bson_reader_free(r);
        sdx_buf_destroy(&b);
        free(p);
    }
}

/* One malformed document given as hex: its error and offset. */
#define EXPECT_BAD(hex, code, off)                                                     \
    do {                                                                               \
        unsigned char in_[256];                                                        \
        size_t n_ = mp_unhex(hex, in_, sizeof in_);                                    \
        unsigned char *p_ = malloc(n_);                                                \
        memcpy(p_, in_, n_);                                                           \
        sdx_error e_;                                                                  \
        CHECK_EQ_INT(read_mem(p_, n_, 0, &e_), code);                                  \
        CHECK_EQ_U64(e_.offset, off);                                                  \
        free(p_);                                                                      \
    } while (0)

TEST(lying_lengths) {
    /* CVE-2018-16790 class: a length that reaches past the buffer */
    EXPECT_BAD("ff000000 0a 6100 00", SDX_ERR_TRUNCATED, 8);
    EXPECT_BAD("0f000000 03 6100 ff000000 00 00 00 00", SDX_ERR_SYNTAX, 7);  /* beyond enclosing */
    EXPECT_BAD("0f000000 02 6100 ffffff7f 6100 00 00", SDX_ERR_SYNTAX, 7);   /* string beyond */
    EXPECT_BAD("0e000000 05 6100 ff000000 00 01 00", SDX_ERR_SYNTAX, 7);     /* binary beyond */
    /* negative and short lengths */
    EXPECT_BAD("ffffffff 00", SDX_ERR_SYNTAX, 0);
    EXPECT_BAD("04000000 00", SDX_ERR_SYNTAX, 0);
    EXPECT_BAD("0d000000 02 6100 ffffffff 00 00", SDX_ERR_SYNTAX, 7);
    EXPECT_BAD("0d000000 02 6100 00000000 00 00", SDX_ERR_SYNTAX, 7);
    EXPECT_BAD("0e000000 05 6100 ffffffff 00 01 00", SDX_ERR_SYNTAX, 7);
    EXPECT_BAD("0e000000 03 6100 04000000 00 00 00", SDX_ERR_SYNTAX, 7);
    EXPECT_BAD("13000000 05 6100 06000000 02 03000000 ffff 00", SDX_ERR_SYNTAX, 12); /* old binary */
    /* a string whose last byte is not NUL */
    EXPECT_BAD("0e000000 02 6100 02000000 6161 00", SDX_ERR_SYNTAX, 12);
    /* the document length shorter than its elements */
    EXPECT_BAD("0b000000 10 6100 01000000 00", SDX_ERR_SYNTAX, 7);
}

TEST(terminators_and_types) {
    /* CVE-2026-6231 class: a check that stops early and says yes. A 0x00
     * type byte before the document's end is not its end. */
    EXPECT_BAD("0c000000 00 0a 6100 000000 00", SDX_ERR_SYNTAX, 4);
    EXPECT_BAD("14000000 03 6100 06000000 00 ff 0a 6200 000000 00", SDX_ERR_SYNTAX, 11);
    /* a last byte that is not the terminator */
    EXPECT_BAD("08000000 0a 6100 01", SDX_ERR_SYNTAX, 7);
    EXPECT_BAD("05000000 01", SDX_ERR_SYNTAX, 4);
    /* a key without NUL inside its document */
    EXPECT_BAD("08000000 0a 616100", SDX_ERR_SYNTAX, 5);
    /* unknown types, booleans other than 0 or 1, unterminated regex */
    EXPECT_BAD("08000000 14 6100 00", SDX_ERR_SYNTAX, 4);
    EXPECT_BAD("09000000 08 6100 02 00", SDX_ERR_SYNTAX, 7);
    EXPECT_BAD("0b000000 0b 6100 6100 62 00", SDX_ERR_SYNTAX, 9);
    /* invalid UTF-8 in a key and a string */
    EXPECT_BAD("08000000 0a ff00 00", SDX_ERR_UTF8, 5);
    EXPECT_BAD("0e000000 02 6100 02000000 ff00 00", SDX_ERR_UTF8, 11);
    CHECK_EQ_INT(read_mem("\x0e\0\0\0\x02\x61\0\x02\0\0\0\xff\0\0", 14, SDX_BSON_READ_NO_UTF8_CHECK, NULL),
                 SDX_OK);
    /* a bad scope inside code with scope */
    EXPECT_BAD("1b000000 0f 6100 13000000 02000000 6600 09000000 08 7800 05 00 00", SDX_ERR_SYNTAX, 24);
    /* bytes after the document, and the same as a sequence */
    EXPECT_BAD("05000000 00 05", SDX_ERR_SYNTAX, 5);
    CHECK_EQ_INT(read_mem("\x05\0\0\0\0\x05\0\0\0\0", 10, SDX_BSON_READ_SEQUENCE, NULL), SDX_OK);
    CHECK_EQ_INT(read_mem("\x05\0\0\0\0\x05\0\0\0", 9, SDX_BSON_READ_SEQUENCE, NULL), SDX_ERR_TRUNCATED);
    CHECK_EQ_INT(read_mem("", 0, 0, NULL), SDX_ERR_TRUNCATED);
}

TEST(deep_nesting) {
    size_t n;
    unsigned char *p = nested(5000, &n);
    sdx_error e;
    CHECK_EQ_INT(read_mem(p, n, 0, &e), SDX_ERR_DEPTH);
    CHECK_EQ_U64(e.offset, 1024 * 7);
    sdx_bson_read_opts o = {0, 6000, 0, NULL};
    sdx_bson_reader *r = sdx_bson_reader_new((const char *)p, n, &o);
    sdx_buf b;
    CHECK_EQ_INT(reread(r, &b, 0), SDX_OK);
    CHECK_MEM(sdx_buf_data(&b), sdx_buf_len(&b), p, n);
    sdx_buf_destroy(&b);
    sdx_bson_reader_free(r);
    free(p);
}

TEST(alloc_failures) {
    size_t n;
    unsigned char *p = nested(100, &n);
    for (int stream = 0; stream < 2; stream++) {
        for (long fail_at = 1;; fail_at++) {
            counting_alloc a;
            counting_alloc_init(&a, fail_at);
            sdx_bson_read_opts o = {0, 0, 0, &a.iface};
            trickle t = {p, n, 1};
            sdx_bson_reader *r = stream ? sdx_bson_reader_new_stream(trickle_read, &t, &o)
                                        : sdx_bson_reader_new((const char *)p, n, &o);
            sdx_err rc = SDX_ERR_NOMEM;
            size_t events = 0;
            if (r) {
                sdx_event ev;
                while (sdx_bson_reader_next(r, &ev)) events++;
                rc = sdx_bson_reader_error(r, NULL);
                sdx_bson_reader_free(r);
            }
            CHECK(a.live == 0);
            if (rc == SDX_OK) {
                CHECK_EQ_U64(events, 1 + 100 * 2 + 101);
                break;
            }
            CHECK_EQ_INT(rc, SDX_ERR_NOMEM);
            if (fail_at > 50) {
                CHECK(0);
                break;
            }
        }
    }
    free(p);
}

/* The root {"s": code with scope} with k code with scope values nested in
 * each other's scopes, the innermost scope being the n bytes at `inner`
 * (a document); each level puts 17 bytes before its scope document, so
 * the i-th scope (from 1) starts at 17 * i. A new allocation of *len
 * bytes. */
static unsigned char *nested_scopes(int k, const unsigned char *inner, size_t n, size_t *len) {
    unsigned char *cur = malloc(n);
    memcpy(cur, inner, n);
    for (int i = 0; i < k; i++) {
        size_t m = 17 + n + 1;
        unsigned char *p = malloc(m);
        sdx_store_le32(p, (uint32_t)m);
        memcpy(p + 4, "\x0fs", 3);
        sdx_store_le32(p + 7, (uint32_t)(4 + 6 + n));
        sdx_store_le32(p + 11, 2);
        memcpy(p + 15, "c", 2);
        memcpy(p + 17, cur, n);
        p[m - 1] = 0;
        free(cur);
        cur = p;
        n = m;
    }
    *len = n;
    return cur;
}

/* Scopes in scopes are checked by a walk on the reader's stack, without
 * recursion: up to SDX_BSON_MAX_SCOPE_NESTING of them, documents inside
 * them up to max_depth, every rule applied at every level, allocation
 * failure of the stack at every point. */
TEST(scopes_in_scopes) {
    static const unsigned char empty[] = {5, 0, 0, 0, 0};
    size_t n;
    sdx_error e;
    for (int k = 1; k <= SDX_BSON_MAX_SCOPE_NESTING + 1; k++) {
        unsigned char *p = nested_scopes(k, empty, sizeof empty, &n);
        sdx_err rc = read_mem(p, n, 0, &e);
        if (k <= SDX_BSON_MAX_SCOPE_NESTING) {
            CHECK_EQ_INT(rc, SDX_OK);
            sdx_bson_reader *r = sdx_bson_reader_new((const char *)p, n, NULL);
            sdx_buf b;
            CHECK_EQ_INT(reread(r, &b, 0), SDX_OK); /* the writer checks the scope the same way */
            CHECK_MEM(sdx_buf_data(&b), sdx_buf_len(&b), p, n);
            sdx_buf_destroy(&b);
            sdx_bson_reader_free(r);
        } else {
            CHECK_EQ_INT(rc, SDX_ERR_DEPTH);
            CHECK_EQ_U64(e.offset, 17 * (uint64_t)k);
        }
        free(p);
    }
    /* a bad value deep inside: found, at its offset in the input */
    static const unsigned char bad[] = {9, 0, 0, 0, 8, 'x', 0, 2, 0};
    unsigned char *p = nested_scopes(6, bad, sizeof bad, &n);
    CHECK_EQ_INT(read_mem(p, n, 0, &e), SDX_ERR_SYNTAX);
    CHECK_EQ_U64(e.offset, 17 * 6 + 7);
    free(p);
    /* documents nested in a scope count towards max_depth */
    size_t dn;
    unsigned char *deep = nested(3000, &dn);
    p = nested_scopes(2, deep, dn, &n);
    CHECK_EQ_INT(read_mem(p, n, 0, &e), SDX_ERR_DEPTH);
    sdx_bson_read_opts o = {0, 4000, 0, NULL};
    sdx_bson_reader *r = sdx_bson_reader_new((const char *)p, n, &o);
    sdx_event ev;
    while (sdx_bson_reader_next(r, &ev)) {
    }
    CHECK_EQ_INT(sdx_bson_reader_error(r, NULL), SDX_OK);
    sdx_bson_reader_free(r);
    free(p);
    free(deep);
    /* allocation failure while the scope's levels grow */
    deep = nested(100, &dn);
    p = nested_scopes(3, deep, dn, &n);
    for (long fail_at = 1;; fail_at++) {
        counting_alloc a;
        counting_alloc_init(&a, fail_at);
        sdx_bson_read_opts ao = {0, 0, 0, &a.iface};
        sdx_err rc = SDX_ERR_NOMEM;
        r = sdx_bson_reader_new((const char *)p, n, &ao);
        if (r) {
            while (sdx_bson_reader_next(r, &ev)) {
            }
            rc = sdx_bson_reader_error(r, NULL);
            sdx_bson_reader_free(r);
        }
        CHECK(a.live == 0);
        if (rc == SDX_OK) break;
        CHECK_EQ_INT(rc, SDX_ERR_NOMEM);
        if (!CHECK(fail_at < 50)) break;
    }
    free(p);
    free(deep);
}

/* The inline path (the sdx_bson_reader_next macro) and the exported
 * function give the same events (pointers too), offsets and errors, also
 * mixed with skip; returns 1 when they do. `flags` are read flags. */
static int same_paths(const unsigned char *p, size_t n, uint32_t flags) {
    sdx_bson_read_opts o = {flags, 0, 0, NULL};
    sdx_bson_reader *a = sdx_bson_reader_new((const char *)p, n, &o);
    sdx_bson_reader *b = sdx_bson_reader_new((const char *)p, n, &o);
    int ok = 1;
    for (long i = 0; ok; i++) {
        sdx_event ea, eb;
        bool ga = sdx_bson_reader_next(a, &ea);
        bool gb = (sdx_bson_reader_next)(b, &eb);
        ok &= CHECK(ga == gb);
        if (!ga || !gb) break;
        ok &= CHECK(event_equal(&ea, &eb) && (ea.kind < SDX_STR || ea.kind > SDX_KEY || ea.v.str.ptr == eb.v.str.ptr));
        ok &= CHECK_EQ_U64(sdx_bson_reader_offset(a), sdx_bson_reader_offset(b));
        if (i % 7 == 3) ok &= CHECK(sdx_bson_reader_skip(a) == sdx_bson_reader_skip(b));
    }
    sdx_error xa, xb;
    ok &= CHECK(sdx_bson_reader_error(a, &xa) == sdx_bson_reader_error(b, &xb) && xa.offset == xb.offset);
    sdx_bson_reader_free(a);
    sdx_bson_reader_free(b);
    return ok;
}

TEST(inline_path) {
    unsigned char in[1024], p[1024];
    size_t n = all_types(in, sizeof in);
    CHECK(same_paths(in, n, 0));
    CHECK(same_paths(in, n, SDX_BSON_READ_KEEP_ARRAY_KEYS));
    uint64_t seed = 77;
    long rounds = (long)(20000 * test_scale());
    for (long i = 0; i < rounds; i++) {
        memcpy(p, in, n);
        flip_bits(p, n, 1 + (int)(i % 3), &seed);
        if (!same_paths(p, n, (i & 1 ? SDX_BSON_READ_NO_UTF8_CHECK : 0) |
                                  (i & 2 ? SDX_BSON_READ_KEEP_ARRAY_KEYS : 0)))
            break;
    }
    size_t dn;
    unsigned char *deep = nested(3000, &dn); /* beyond the stack's inline room and max_depth */
    CHECK(same_paths(deep, dn, 0));
    free(deep);
    /* short arrays, which the inline path opens itself: every scalar
     * type, empty, nested, 10 and 11 elements (the inline limit and one
     * past it), strings, documents and arrays as elements, a binary
     * element (not inline) — and bit flips in all of them (keys out of
     * order, lengths that lie) */
    sdx_buf b;
    sdx_buf_init(&b, NULL);
    sdx_bson_writer w;
    sdx_bson_writer_init(&w, &b, NULL);
    sdx_bson_writer_begin_map(&w, SDX_COUNT_UNKNOWN);
    sdx_bson_writer_key(&w, "a", 1);
    sdx_bson_writer_begin_array(&w, 5);
    sdx_bson_writer_int(&w, 7);
    sdx_bson_writer_double(&w, 2.5);
    sdx_bson_writer_bool(&w, true);
    sdx_bson_writer_null(&w);
    sdx_bson_writer_int(&w, INT64_C(1) << 40);
    sdx_bson_writer_end(&w);
    sdx_bson_writer_key(&w, "b", 1);
    sdx_bson_writer_begin_array(&w, 0);
    sdx_bson_writer_end(&w);
    sdx_bson_writer_key(&w, "c", 1);
    sdx_bson_writer_begin_array(&w, 2);
    for (int k = 0; k < 2; k++) {
        sdx_bson_writer_begin_array(&w, 2);
        sdx_bson_writer_double(&w, k + 0.5);
        sdx_bson_writer_double(&w, k - 0.5);
        sdx_bson_writer_end(&w);
    }
    sdx_bson_writer_end(&w);
    for (int len = 10; len <= 11; len++) {
        sdx_bson_writer_key(&w, len == 10 ? "d" : "e", 1);
        sdx_bson_writer_begin_array(&w, (uint64_t)len);
        for (int k = 0; k < len; k++) sdx_bson_writer_int(&w, k);
        sdx_bson_writer_end(&w);
    }
    sdx_bson_writer_key(&w, "f", 1);
    sdx_bson_writer_begin_array(&w, 2);
    sdx_bson_writer_int(&w, 1);
    sdx_bson_writer_string(&w, "x", 1);
    sdx_bson_writer_end(&w);
    sdx_bson_writer_key(&w, "g", 1);
    sdx_bson_writer_begin_array(&w, 5);
    sdx_bson_writer_string(&w, "", 0);
    sdx_bson_writer_begin_map(&w, 1);
    sdx_bson_writer_key(&w, "k", 1);
    sdx_bson_writer_int(&w, 2);
    sdx_bson_writer_end(&w);
    sdx_bson_writer_begin_array(&w, 1);
    sdx_bson_writer_string(&w, "yz", 2);
    sdx_bson_writer_end(&w);
    sdx_bson_writer_begin_array(&w, 0);
    sdx_bson_writer_end(&w);
    sdx_bson_writer_string(&w, "\xC3\xA9", 2);
    sdx_bson_writer_end(&w);
    sdx_bson_writer_key(&w, "h", 1);
    sdx_bson_writer_begin_array(&w, 2);
    sdx_bson_writer_string(&w, "x", 1);
    sdx_bson_writer_binary(&w, 0, "\1\2", 2);
    sdx_bson_writer_end(&w);
    sdx_bson_writer_end(&w);
    if (CHECK_EQ_INT(sdx_bson_writer_finish(&w), SDX_OK) && CHECK(sdx_buf_len(&b) <= sizeof p)) {
        n = sdx_buf_len(&b);
        memcpy(in, sdx_buf_data(&b), n);
        CHECK(same_paths(in, n, 0));
        CHECK(same_paths(in, n, SDX_BSON_READ_KEEP_ARRAY_KEYS));
        for (long i = 0; i < rounds; i++) {
            memcpy(p, in, n);
            flip_bits(p, n, 1 + (int)(i % 3), &seed);
            if (!same_paths(p, n, i & 1 ? SDX_BSON_READ_KEEP_ARRAY_KEYS : 0)) break;
        }
    }
    sdx_buf_destroy(&b);
}

/* {"a": an array document of n elements}, with the key of element `bad`
 * (none when bad is n or more) replaced by `badkey`; the elements cycle
 * through values of every size class. Returns the size (o has room). */
static size_t array_doc(unsigned char *o, size_t n, size_t bad, const char *badkey) {
    size_t at = 4;
    o[at++] = 0x04;
    o[at++] = 'a';
    o[at++] = 0;
    const size_t arr = at;
    at += 4;
    for (size_t i = 0; i < n; i++) {
        static const unsigned char types[] = {0x10, 0x01, 0x08, 0x0a, 0x02, 0x12, 0x03, 0x07, 0x04};
        const unsigned char t = types[i % sizeof types];
        char key[24];
        if (i == bad) snprintf(key, sizeof key, "%s", badkey);
        else snprintf(key, sizeof key, "%zu", i);
        o[at++] = t;
        memcpy(o + at, key, strlen(key) + 1);
        at += strlen(key) + 1;
        switch (t) {
        case 0x10: memset(o + at, 1, 4); at += 4; break;
        case 0x01: case 0x12: memset(o + at, 2, 8); at += 8; break;
        case 0x08: o[at++] = 1; break;
        case 0x0a: break;
        case 0x02: sdx_store_le32(o + at, 2); memcpy(o + at + 4, "x", 2); at += 6; break;
        case 0x03: case 0x04: sdx_store_le32(o + at, 5); o[at + 4] = 0; at += 5; break;
        case 0x07: memset(o + at, 3, 12); at += 12; break;
        }
    }
    o[at++] = 0;
    sdx_store_le32(o + arr, (uint32_t)(at - arr));
    o[at++] = 0;
    sdx_store_le32(o, (uint32_t)at);
    return at;
}

/* Whether {"a": [...]} reads without error with the array as SDX_ARRAY
 * (1) or as an SDX_MAP tagged SDX_BSON_ARRAY (0); -1 otherwise. */
static int array_reads_as(const unsigned char *in, size_t len, const sdx_bson_read_opts *o) {
    sdx_bson_reader *r = sdx_bson_reader_new((const char *)in, len, o);
    sdx_event ev;
    int as = -1, events = 0;
    while (sdx_bson_reader_next(r, &ev)) {
        if (++events != 3) continue;
        if (ev.kind == SDX_ARRAY && ev.tag_kind == SDX_TAG_NONE) as = 1;
        else if (ev.kind == SDX_MAP && ev.tag_kind == SDX_TAG_BSON && ev.tag == SDX_BSON_ARRAY) as = 0;
    }
    if (sdx_bson_reader_error(r, NULL) != SDX_OK) as = -1;
    sdx_bson_reader_free(r);
    return as;
}

/* A string element of every length up to 140, ASCII, with a two-byte
 * sequence at its start, middle or end, or with an invalid byte, last in
 * its document or followed by more elements, in a buffer of exactly the
 * input's size (under AddressSanitizer a read past it fails): both paths
 * agree. The inline check reads 16 bytes from a short string, which it
 * may only where they are inside the root document. */
TEST(strings_at_the_end) {
    unsigned char full[256];
    for (size_t len = 0; len <= 140; len++) {
        for (int variant = 0; variant < 5; variant++) {
            for (int tail = 0; tail < 3; tail++) {
                size_t n = 4;
                full[n++] = 0x02; /* "s": the string */
                full[n++] = 's';
                full[n++] = 0;
                uint32_t l = (uint32_t)len + 1;
                for (int i = 0; i < 4; i++) full[n++] = (unsigned char)(l >> (8 * i));
                for (size_t i = 0; i < len; i++) full[n + i] = (unsigned char)('a' + i % 26);
                if (len >= 2 && variant == 1) memcpy(full + n, "\xc3\xa9", 2);
                if (len >= 2 && variant == 2) memcpy(full + n + len / 2 - 1, "\xc3\xa9", 2);
                if (len >= 2 && variant == 3) memcpy(full + n + len - 2, "\xc3\xa9", 2);
                if (len >= 1 && variant == 4) full[n + len / 3] = 0xff;
                n += len;
                full[n++] = 0;
                for (int t = 0; t < tail * 4; t++) { /* "t": null elements */
                    full[n++] = 0x0a;
                    full[n++] = 't';
                    full[n++] = 0;
                }
                full[n++] = 0;
                for (int i = 0; i < 4; i++) full[i] = (unsigned char)(n >> (8 * i));
                unsigned char *in = malloc(n);
                if (!CHECK(in != NULL)) return;
                memcpy(in, full, n);
                int ok = same_paths(in, n, 0) && same_paths(in, n, SDX_BSON_READ_NO_UTF8_CHECK);
                free(in);
                if (!ok) return;
            }
        }
    }
}

/* Arrays whose keys are "0", "1", ... in order read as SDX_ARRAY; with
 * SDX_BSON_READ_KEEP_ARRAY_KEYS one key changed (another index, a leading
 * zero, a digit more or less, empty) makes the array a map with its keys,
 * at every index of arrays across the lengths where the keys gain a digit;
 * by default such an array is still SDX_ARRAY. */
TEST(array_keys) {
    static const size_t lengths[] = {0, 1, 2, 9, 10, 11, 12, 99, 100, 101, 1000, 1001};
    unsigned char *buf = malloc(1001 * 40);
    for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
        const size_t n = lengths[li];
        if (!CHECK_EQ_INT(array_reads_as(buf, array_doc(buf, n, SIZE_MAX, ""), &keep_keys), 1) ||
            !CHECK_EQ_INT(array_reads_as(buf, array_doc(buf, n, SIZE_MAX, ""), NULL), 1))
            break;
        for (size_t bad = 0; bad < n; bad++) {
            if (n > 12 && bad % 7 != 0 && bad + 2 < n && bad != 9 && bad != 10 && bad != 99 && bad != 100)
                continue;
            char good[24], v[5][24];
            snprintf(good, sizeof good, "%zu", bad);
            snprintf(v[0], sizeof v[0], "%zu", bad + 1);
            snprintf(v[1], sizeof v[1], "0%zu", bad);
            snprintf(v[2], sizeof v[2], "%zu0", bad);
            snprintf(v[3], sizeof v[3], "%.*s", (int)strlen(good) - 1, good);
            snprintf(v[4], sizeof v[4], "%zux", bad);
            for (int k = 0; k < 5; k++) {
                const size_t len = array_doc(buf, n, bad, v[k]);
                if (!CHECK_EQ_INT(array_reads_as(buf, len, &keep_keys), 0) ||
                    !CHECK_EQ_INT(array_reads_as(buf, len, NULL), 1)) {
                    fprintf(stderr, "  %zu elements, key %zu as \"%s\"\n", n, bad, v[k]);
                    free(buf);
                    return;
                }
            }
        }
    }
    free(buf);
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){{"round_trip_every_type", round_trip_every_type},
                                  {"events", events},
                                  {"truncation_at_every_byte", truncation_at_every_byte},
                                  {"byte_flips", byte_flips},
                                  {"lying_lengths", lying_lengths},
                                  {"terminators_and_types", terminators_and_types},
                                  {"deep_nesting", deep_nesting},
                                  {"alloc_failures", alloc_failures},
                                  {"scopes_in_scopes", scopes_in_scopes},
                                  {"inline_path", inline_path},
                                  {"strings_at_the_end", strings_at_the_end},
                                  {"array_keys", array_keys},
                                  {"round_trip_canonical_arrays", round_trip_canonical_arrays},
                                  {0}});
}
