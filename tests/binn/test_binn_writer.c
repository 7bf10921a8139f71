/*
 * The Binn writer: the specification's four examples byte for byte (and
 * read back), the smallest type of every integer, sizes and counts in one
 * and four bytes, containers whose size crosses 127 after their children
 * are written, stream and fixed buffers, maps versus objects, typed values,
 * usage errors and allocation failure.
 */
#include "alloc_test.h"
#include "binn_test.h"
#include "patch_check.h"
#include "test.h"

#define LIT(s) s, sizeof(s) - 1

static const char ex_hello[] = "\xE2\x11\x01\x05hello\xA0\x05world";              /* + NUL */
static const char ex_list[] = "\xE0\x0B\x03\x20\x7B\x41\xFE\x38\x40\x03\x15";
static const char ex_map[] = "\xE1\x1A\x02\x00\x00\x00\x01\xA0\x03" "add\0"
                             "\x00\x00\x00\x02\xE0\x09\x02\x41\xCF\xC7\x40\x1A\x85";
static const char ex_objs[] = "\xE0\x2B\x02"
                              "\xE2\x14\x02\x02id\x20\x01\x04name\xA0\x04John\0"
                              "\xE2\x14\x02\x02id\x20\x02\x04name\xA0\x04" "Eric";  /* + NUL */

static void expect_bytes(sdx_buf *out, const char *want, size_t n) {
    CHECK_MEM(sdx_buf_data(out), sdx_buf_len(out), want, n);
}

TEST(spec_examples_written) {
    sdx_buf out;
    sdx_binn_writer w;
    /* 1. {"hello":"world"}, 17 bytes (the literal's own NUL ends the text). */
    json_to_binn("{\"hello\":\"world\"}", &out);
    expect_bytes(&out, ex_hello, sizeof ex_hello);
    sdx_buf_destroy(&out);
    /* 2. [123, -456, 789], 11 bytes. */
    json_to_binn("[123,-456,789]", &out);
    expect_bytes(&out, LIT(ex_list));
    sdx_buf_destroy(&out);
    /* 3. {1: "add", 2: [-12345, 6789]}, 26 bytes: integer keys. */
    sdx_buf_init(&out, NULL);
    sdx_binn_writer_init(&w, &out, NULL);
    sdx_binn_writer_begin_map(&w, 2);
    sdx_binn_writer_int(&w, 1); /* an integer where a key is due is a key */
    sdx_binn_writer_string(&w, "add", 3);
    sdx_binn_writer_map_key(&w, 2);
    sdx_binn_writer_begin_array(&w, SDX_COUNT_UNKNOWN);
    sdx_binn_writer_int(&w, -12345);
    sdx_binn_writer_uint(&w, 6789);
    sdx_binn_writer_end(&w);
    sdx_binn_writer_end(&w);
    CHECK_EQ_INT(sdx_binn_writer_finish(&w), SDX_OK);
    expect_bytes(&out, LIT(ex_map));
    sdx_buf_destroy(&out);
    /* 4. A list of two objects, 43 bytes. */
    json_to_binn("[{\"id\":1,\"name\":\"John\"},{\"id\":2,\"name\":\"Eric\"}]", &out);
    expect_bytes(&out, ex_objs, sizeof ex_objs);
    sdx_buf_destroy(&out);
}

TEST(spec_examples_read) {
    sbuf s = {0};
    CHECK_EQ_INT(dump_binn(ex_hello, sizeof ex_hello, 0, 0, &s, NULL), SDX_OK);
    CHECK(strcmp(s.p, "{\"hello\":\"world\"}") == 0);
    s.len = 0;
    CHECK_EQ_INT(dump_binn(LIT(ex_list), 0, 0, &s, NULL), SDX_OK);
    CHECK(strcmp(s.p, "[123,-456,789]") == 0);
    s.len = 0;
    CHECK_EQ_INT(dump_binn(LIT(ex_map), 0, 0, &s, NULL), SDX_OK);
    CHECK(strcmp(s.p, "{1:\"add\",2:[-12345,6789]}") == 0);
    s.len = 0;
    CHECK_EQ_INT(dump_binn(ex_objs, sizeof ex_objs, 0, 0, &s, NULL), SDX_OK);
    CHECK(strcmp(s.p, "[{\"id\":1,\"name\":\"John\"},{\"id\":2,\"name\":\"Eric\"}]") == 0);
    free(s.p);
}

/* One value written alone, compared with the expected bytes. */
static void one(sdx_err (*fn)(sdx_binn_writer *, int64_t), int64_t v, const char *want, size_t n) {
    sdx_buf out;
    sdx_binn_writer w;
    sdx_buf_init(&out, NULL);
    sdx_binn_writer_init(&w, &out, NULL);
    fn(&w, v);
    CHECK_EQ_INT(sdx_binn_writer_finish(&w), SDX_OK);
    expect_bytes(&out, want, n);
    sdx_buf_destroy(&out);
}

TEST(smallest_integers) {
    one(sdx_binn_writer_int, 0, LIT("\x20\x00"));
    one(sdx_binn_writer_int, 255, LIT("\x20\xff"));
    one(sdx_binn_writer_int, 256, LIT("\x40\x01\x00"));
    one(sdx_binn_writer_int, 65535, LIT("\x40\xff\xff"));
    one(sdx_binn_writer_int, 65536, LIT("\x60\x00\x01\x00\x00"));
    one(sdx_binn_writer_int, 4294967295, LIT("\x60\xff\xff\xff\xff"));
    one(sdx_binn_writer_int, 4294967296, LIT("\x80\x00\x00\x00\x01\x00\x00\x00\x00"));
    one(sdx_binn_writer_int, -1, LIT("\x21\xff"));
    one(sdx_binn_writer_int, -128, LIT("\x21\x80"));
    one(sdx_binn_writer_int, -129, LIT("\x41\xff\x7f"));
    one(sdx_binn_writer_int, INT16_MIN, LIT("\x41\x80\x00"));
    one(sdx_binn_writer_int, INT16_MIN - 1, LIT("\x61\xff\xff\x7f\xff"));
    one(sdx_binn_writer_int, INT32_MIN, LIT("\x61\x80\x00\x00\x00"));
    one(sdx_binn_writer_int, (int64_t)INT32_MIN - 1, LIT("\x81\xff\xff\xff\xff\x7f\xff\xff\xff"));
    one(sdx_binn_writer_int, INT64_MIN, LIT("\x81\x80\x00\x00\x00\x00\x00\x00\x00"));
    sdx_buf out;
    sdx_binn_writer w;
    sdx_buf_init(&out, NULL);
    sdx_binn_writer_init(&w, &out, NULL);
    sdx_binn_writer_uint(&w, UINT64_MAX);
    CHECK_EQ_INT(sdx_binn_writer_finish(&w), SDX_OK);
    expect_bytes(&out, LIT("\x80\xff\xff\xff\xff\xff\xff\xff\xff"));
    sbuf s = {0};
    CHECK_EQ_INT(dump_binn(sdx_buf_data(&out), sdx_buf_len(&out), 0, 0, &s, NULL), SDX_OK);
    CHECK(strcmp(s.p, "18446744073709551615") == 0);
    free(s.p);
    sdx_buf_destroy(&out);
}

TEST(scalars) {
    sdx_buf out;
    sdx_binn_writer w;
    sdx_buf_init(&out, NULL);
    sdx_binn_write_opts o = {SDX_BINN_WRITE_SEQUENCE, NULL};
    sdx_binn_writer_init(&w, &out, &o);
    sdx_binn_writer_null(&w);
    sdx_binn_writer_bool(&w, true);
    sdx_binn_writer_bool(&w, false);
    sdx_binn_writer_double(&w, 1.5);
    sdx_binn_writer_float(&w, 1.5f);
    sdx_binn_writer_string(&w, "", 0);
    sdx_binn_writer_blob(&w, "\x01\x02", 2);
    CHECK_EQ_INT(sdx_binn_writer_finish(&w), SDX_OK);
    expect_bytes(&out, LIT("\x00\x01\x02\x82\x3f\xf8\x00\x00\x00\x00\x00\x00"
                           "\x62\x3f\xc0\x00\x00\xa0\x00\x00\xc0\x02\x01\x02"));
    sbuf s = {0};
    CHECK_EQ_INT(dump_binn(sdx_buf_data(&out), sdx_buf_len(&out), SDX_BINN_READ_STOP_AFTER_VALUE, 0, &s, NULL), SDX_OK);
    CHECK(strcmp(s.p, "null true false 1.5 1.5f \"\" b'0102'") == 0);
    free(s.p);
    /* Float flags: exact when lossless, always when asked. */
    sdx_buf_clear(&out);
    o.flags = SDX_BINN_WRITE_SEQUENCE | SDX_BINN_WRITE_FLOAT32_EXACT;
    sdx_binn_writer_init(&w, &out, &o);
    sdx_binn_writer_double(&w, 0.5);
    sdx_binn_writer_double(&w, 0.1);
    CHECK_EQ_INT(sdx_binn_writer_finish(&w), SDX_OK);
    CHECK_EQ_U64(sdx_buf_len(&out), 5 + 9);
    sdx_buf_clear(&out);
    o.flags = SDX_BINN_WRITE_FLOAT32;
    sdx_binn_writer_init(&w, &out, &o);
    sdx_binn_writer_double(&w, 0.1);
    CHECK_EQ_INT(sdx_binn_writer_finish(&w), SDX_OK);
    expect_bytes(&out, LIT("\x62\x3d\xcc\xcc\xcd"));
    sdx_buf_destroy(&out);
}

/* A list of n texts of `len` bytes each, with unknown or known count. */
static void text_list(sdx_buf *out, sdx_binn_writer *w, size_t n, size_t len, bool known) {
    static const char x[200] = {0};
    char text[200];
    memset(text, 'x', sizeof text);
    (void)x;
    sdx_binn_writer_begin_array(w, known ? n : SDX_COUNT_UNKNOWN);
    for (size_t i = 0; i < n; i++) sdx_binn_writer_string(w, text, len);
    sdx_binn_writer_end(w);
    (void)out;
}

TEST(sizes_cross_127) {
    for (int known = 0; known < 2; known++) {
        /* Content of exactly 124 bytes: size 127 fits one byte. 31 texts
         * of 1 byte take 4 bytes each. */
        sdx_buf out;
        sdx_binn_writer w;
        sdx_buf_init(&out, NULL);
        sdx_binn_writer_init(&w, &out, NULL);
        text_list(&out, &w, 31, 1, known);
        CHECK_EQ_INT(sdx_binn_writer_finish(&w), SDX_OK);
        CHECK_EQ_U64(sdx_buf_len(&out), 127);
        CHECK_MEM(sdx_buf_data(&out), 3, "\xE0\x7F\x1F", 3);
        /* 128 bytes with a one-byte size: the size moves to four bytes. */
        sdx_buf_clear(&out);
        sdx_binn_writer_init(&w, &out, NULL);
        sdx_binn_writer_begin_array(&w, known ? 32 : SDX_COUNT_UNKNOWN);
        for (int i = 0; i < 31; i++) sdx_binn_writer_string(&w, "x", 1);
        sdx_binn_writer_null(&w);
        sdx_binn_writer_end(&w);
        CHECK_EQ_INT(sdx_binn_writer_finish(&w), SDX_OK);
        CHECK_EQ_U64(sdx_buf_len(&out), 3 + 3 + 125);
        CHECK_MEM(sdx_buf_data(&out), 6, "\xE0\x80\x00\x00\x83\x20", 6);
        sdx_buf_clear(&out);
        /* 128 items: the count takes four bytes too. */
        sdx_binn_writer_init(&w, &out, NULL);
        sdx_binn_writer_begin_array(&w, known ? 128 : SDX_COUNT_UNKNOWN);
        for (int i = 0; i < 128; i++) sdx_binn_writer_null(&w);
        sdx_binn_writer_end(&w);
        CHECK_EQ_INT(sdx_binn_writer_finish(&w), SDX_OK);
        CHECK_EQ_U64(sdx_buf_len(&out), 9 + 128);
        CHECK_MEM(sdx_buf_data(&out), 9, "\xE0\x80\x00\x00\x89\x80\x00\x00\x80", 9);
        sdx_buf_destroy(&out);
    }
    /* Nested: every level crosses 127 after its children; read back. */
    sdx_buf out;
    sdx_binn_writer w;
    sdx_buf_init(&out, NULL);
    sdx_binn_writer_init(&w, &out, NULL);
    sdx_binn_writer_begin_map(&w, SDX_COUNT_UNKNOWN);
    sdx_binn_writer_key(&w, "a", 1);
    sdx_binn_writer_begin_array(&w, 2);
    text_list(&out, &w, 40, 3, false);
    text_list(&out, &w, 2, 150, true);
    sdx_binn_writer_end(&w);
    sdx_binn_writer_key(&w, "b", 1);
    sdx_binn_writer_int(&w, 7);
    sdx_binn_writer_end(&w);
    CHECK_EQ_INT(sdx_binn_writer_finish(&w), SDX_OK);
    sbuf s = {0}, want = {0};
    CHECK_EQ_INT(dump_binn(sdx_buf_data(&out), sdx_buf_len(&out), 0, 0, &s, NULL), SDX_OK);
    sb_puts(&want, "{\"a\":[[");
    for (int i = 0; i < 40; i++) sb_puts(&want, i ? ",\"xxx\"" : "\"xxx\"");
    sb_puts(&want, "],[");
    for (int i = 0; i < 2; i++) {
        if (i) sb_puts(&want, ",");
        sb_puts(&want, "\"");
        for (int j = 0; j < 150; j++) sb_puts(&want, "x");
        sb_puts(&want, "\"");
    }
    sb_puts(&want, "]],\"b\":7}");
    CHECK(s.p && strcmp(s.p, want.p) == 0);
    /* The same into a stream buffer of small chunks, and into a fixed
     * buffer of exactly the size (one byte less overflows). */
    for (size_t chunk = 1; chunk <= 64; chunk *= 4) {
        sbuf got = {0};
        sdx_buf sb;
        sdx_buf_init_stream(&sb, sbuf_write, &got, chunk, NULL);
        sdx_binn_writer_init(&w, &sb, NULL);
        sdx_binn_writer_begin_map(&w, SDX_COUNT_UNKNOWN);
        sdx_binn_writer_key(&w, "a", 1);
        sdx_binn_writer_begin_array(&w, 2);
        text_list(&sb, &w, 40, 3, false);
        text_list(&sb, &w, 2, 150, true);
        sdx_binn_writer_end(&w);
        sdx_binn_writer_key(&w, "b", 1);
        sdx_binn_writer_int(&w, 7);
        sdx_binn_writer_end(&w);
        CHECK_EQ_INT(sdx_binn_writer_finish(&w), SDX_OK);
        CHECK_MEM(got.p, got.len, sdx_buf_data(&out), sdx_buf_len(&out));
        sdx_buf_destroy(&sb);
        free(got.p);
    }
    for (size_t extra = 0; extra < 2; extra++) {
        size_t cap = sdx_buf_len(&out) - 1 + extra;
        char *mem = malloc(cap);
        sdx_buf fb;
        sdx_buf_init_fixed(&fb, mem, cap);
        sdx_binn_writer_init(&w, &fb, NULL);
        sdx_binn_writer_begin_map(&w, SDX_COUNT_UNKNOWN);
        sdx_binn_writer_key(&w, "a", 1);
        sdx_binn_writer_begin_array(&w, 2);
        text_list(&fb, &w, 40, 3, false);
        text_list(&fb, &w, 2, 150, true);
        sdx_binn_writer_end(&w);
        sdx_binn_writer_key(&w, "b", 1);
        sdx_binn_writer_int(&w, 7);
        sdx_binn_writer_end(&w);
        sdx_err rc = sdx_binn_writer_finish(&w);
        if (extra) {
            CHECK_EQ_INT(rc, SDX_OK);
            CHECK_MEM(sdx_buf_data(&fb), sdx_buf_len(&fb), sdx_buf_data(&out), sdx_buf_len(&out));
        } else {
            CHECK_EQ_INT(rc, SDX_ERR_OVERFLOW);
        }
        free(mem);
    }
    free(s.p);
    free(want.p);
    sdx_buf_destroy(&out);
}

TEST(maps_and_objects) {
    sdx_buf out;
    sdx_binn_writer w;
    sdx_buf_init(&out, NULL);
    /* Empty map: an object. */
    sdx_binn_writer_init(&w, &out, NULL);
    sdx_binn_writer_begin_map(&w, 0);
    sdx_binn_writer_end(&w);
    CHECK_EQ_INT(sdx_binn_writer_finish(&w), SDX_OK);
    expect_bytes(&out, LIT("\xE2\x03\x00"));
    /* Key limits: 255 bytes allowed, 256 not; int keys in int32. */
    char key[256];
    memset(key, 'k', sizeof key);
    sdx_buf_clear(&out);
    sdx_binn_writer_init(&w, &out, NULL);
    sdx_binn_writer_begin_map(&w, 1);
    sdx_binn_writer_key(&w, key, 255);
    sdx_binn_writer_null(&w);
    sdx_binn_writer_end(&w);
    CHECK_EQ_INT(sdx_binn_writer_finish(&w), SDX_OK);
    CHECK_EQ_U64(sdx_buf_len(&out), 6 + 1 + 255 + 1); /* size in 4 bytes, count in 1 */
    struct {
        int what;
        sdx_err want;
    } cases[] = {{0, SDX_ERR_KEY}, {1, SDX_ERR_KEY}, {2, SDX_ERR_KEY}, {3, SDX_ERR_KEY},
                 {4, SDX_ERR_KEY}, {5, SDX_ERR_KEY}, {6, SDX_ERR_USAGE}, {7, SDX_OK}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        sdx_buf_clear(&out);
        sdx_binn_writer_init(&w, &out, NULL);
        sdx_binn_writer_begin_map(&w, SDX_COUNT_UNKNOWN);
        switch (cases[i].what) {
        case 0: sdx_binn_writer_key(&w, key, 256); break;            /* too long */
        case 1: sdx_binn_writer_int(&w, (int64_t)INT32_MAX + 1); break;
        case 2: sdx_binn_writer_int(&w, (int64_t)INT32_MIN - 1); break;
        case 3: /* mixed: string then int */
            sdx_binn_writer_key(&w, "a", 1);
            sdx_binn_writer_null(&w);
            sdx_binn_writer_int(&w, 1);
            break;
        case 4: /* mixed: int then string */
            sdx_binn_writer_int(&w, 1);
            sdx_binn_writer_null(&w);
            sdx_binn_writer_key(&w, "a", 1);
            break;
        case 5: sdx_binn_writer_string(&w, "a", 1); break; /* a text where a key is due */
        case 6: /* a key without its value */
            sdx_binn_writer_key(&w, "a", 1);
            sdx_binn_writer_end(&w);
            break;
        case 7: /* INT32_MIN and INT32_MAX keys */
            sdx_binn_writer_int(&w, INT32_MIN);
            sdx_binn_writer_null(&w);
            sdx_binn_writer_uint(&w, INT32_MAX);
            sdx_binn_writer_null(&w);
            break;
        }
        if (cases[i].want == SDX_OK) sdx_binn_writer_end(&w);
        if (!CHECK_EQ_INT(sdx_binn_writer_error(&w), cases[i].want)) fprintf(stderr, "  case %zu\n", i);
        sdx_binn_writer_finish(&w);
    }
    sbuf s = {0};
    CHECK_EQ_INT(dump_binn(sdx_buf_data(&out), sdx_buf_len(&out), 0, 0, &s, NULL), SDX_OK);
    CHECK(strcmp(s.p, "{-2147483648:null,2147483647:null}") == 0);
    free(s.p);
    sdx_buf_destroy(&out);
}

TEST(typed_values) {
    sdx_buf out;
    sdx_binn_writer w;
    sdx_buf_init(&out, NULL);
    sdx_binn_write_opts o = {SDX_BINN_WRITE_SEQUENCE, NULL};
    sdx_binn_writer_init(&w, &out, &o);
    sdx_binn_writer_typed(&w, SDX_BINN_DATE, "2026-11-24", 10);
    sdx_binn_writer_typed(&w, 0xB015, "<b>", 3);          /* spec: a user HTML type */
    sdx_binn_writer_typed(&w, 0x85, "\0\0\0\0\0\0\0\x01", 8); /* spec: a user QWORD type */
    sdx_binn_writer_typed(&w, 0x03, NULL, 0);
    sdx_binn_writer_typed(&w, 0xC1, "\xff", 1);
    CHECK_EQ_INT(sdx_binn_writer_finish(&w), SDX_OK);
    static const char want[] = "\xA2\x0A" "2026-11-24\0" "\xB0\x15\x03<b>\0"
                               "\x85\0\0\0\0\0\0\0\x01" "\x03" "\xC1\x01\xff";
    expect_bytes(&out, want, sizeof want - 1);
    sbuf s = {0};
    CHECK_EQ_INT(dump_binn(sdx_buf_data(&out), sdx_buf_len(&out), SDX_BINN_READ_STOP_AFTER_VALUE, 0, &s, NULL), SDX_OK);
    CHECK(strcmp(s.p, "ta2(\"2026-11-24\") tb015(\"<b>\") t85(b'0000000000000001') t3(null) tc1(b'ff')") == 0);
    free(s.p);
    /* Events tagged SDX_TAG_BINN give the same bytes back (a reader's
     * events into the writer). */
    sdx_buf again;
    sdx_buf_init(&again, NULL);
    sdx_binn_writer_init(&w, &again, &o);
    sdx_binn_read_opts ro = {SDX_BINN_READ_STOP_AFTER_VALUE, 0, NULL};
    sdx_binn_reader *r = sdx_binn_reader_new(sdx_buf_data(&out), sdx_buf_len(&out), &ro);
    CHECK_EQ_INT(sdx_transcode(sdx_binn_reader_source(r), sdx_binn_writer_sink(&w), NULL), SDX_OK);
    CHECK_EQ_INT(sdx_binn_writer_finish(&w), SDX_OK);
    CHECK_MEM(sdx_buf_data(&again), sdx_buf_len(&again), want, sizeof want - 1);
    sdx_binn_reader_free(r);
    sdx_buf_destroy(&again);
    /* Types and data that do not fit. */
    struct {
        uint32_t type;
        const char *data;
        size_t len;
    } bad[] = {{0x10, NULL, 0},      {0x1000 - 1, NULL, 0}, {0x0f00, NULL, 0}, {0x10000, NULL, 0},
               {0x85, "\1", 1},      {0x20, "\1\2", 2},     {0x03, "\1", 1},   {0xE5, NULL, 0},
               {0xF001, NULL, 0},    {0xA1, "\xff", 1}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        sdx_buf_clear(&out);
        sdx_binn_writer_init(&w, &out, NULL);
        sdx_err rc = sdx_binn_writer_typed(&w, bad[i].type, bad[i].data, bad[i].len);
        if (!CHECK(rc == (i == 9 ? SDX_ERR_UTF8 : SDX_ERR_INVALID_ARG))) fprintf(stderr, "  case %zu\n", i);
        sdx_binn_writer_finish(&w);
    }
    /* A tagged event whose kind does not fit its type's storage. */
    sdx_event ev = {0};
    ev.kind = SDX_STR;
    ev.tag_kind = SDX_TAG_BINN;
    ev.tag = 0xC1;
    ev.v.str.ptr = "a";
    ev.v.str.len = 1;
    sdx_buf_clear(&out);
    sdx_binn_writer_init(&w, &out, NULL);
    CHECK_EQ_INT(sdx_binn_writer_put(&w, &ev), SDX_ERR_INVALID_ARG);
    sdx_binn_writer_finish(&w);
    sdx_buf_destroy(&out);
}

TEST(usage_errors) {
    sdx_buf out;
    sdx_binn_writer w;
    sdx_buf_init(&out, NULL);
    for (int c = 0; c < 9; c++) {
        sdx_buf_clear(&out);
        sdx_binn_writer_init(&w, &out, NULL);
        sdx_err want = SDX_ERR_USAGE;
        sdx_event ev = {0};
        switch (c) {
        case 0: break; /* nothing written */
        case 1: sdx_binn_writer_null(&w); sdx_binn_writer_null(&w); break;
        case 2: sdx_binn_writer_begin_array(&w, 2); sdx_binn_writer_null(&w); sdx_binn_writer_end(&w); break;
        case 3: sdx_binn_writer_begin_array(&w, 1); sdx_binn_writer_null(&w); sdx_binn_writer_null(&w); break;
        case 4: sdx_binn_writer_begin_array(&w, SDX_COUNT_UNKNOWN); break; /* open at finish */
        case 5: sdx_binn_writer_end(&w); break;
        case 6: sdx_binn_writer_begin_array(&w, (uint64_t)SDX_BINN_SIZE_MAX + 1); want = SDX_ERR_UNSUPPORTED; break;
        case 7: ev.kind = SDX_RAW; sdx_binn_writer_put(&w, &ev); want = SDX_ERR_UNSUPPORTED; break;
        case 8: ev.kind = SDX_NINT; sdx_binn_writer_put(&w, &ev); want = SDX_ERR_RANGE; break;
        }
        if (!CHECK_EQ_INT(sdx_binn_writer_finish(&w), want)) fprintf(stderr, "  case %d\n", c);
    }
    sdx_buf_clear(&out);
    sdx_binn_writer_init(&w, &out, NULL);
    CHECK_EQ_INT(sdx_binn_writer_string(&w, "\xc3", 1), SDX_ERR_UTF8);
    sdx_binn_writer_finish(&w);
    sdx_binn_write_opts o = {1u << 20, NULL};
    CHECK_EQ_INT(sdx_binn_writer_init(&w, &out, &o), SDX_ERR_INVALID_ARG);
    sdx_binn_writer_finish(&w);
    sdx_buf_destroy(&out);
}

/* Deep nesting (beyond the inline frames) with an allocator that fails at
 * every call in turn: SDX_ERR_NOMEM and nothing leaked, or the document. */
TEST(allocation_failure) {
    int done = 0;
    for (long k = 1; k < 100 && !done; k++) {
        counting_alloc a;
        counting_alloc_init(&a, k);
        sdx_buf out;
        sdx_buf_init(&out, &a.iface);
        sdx_binn_writer w;
        sdx_binn_write_opts o = {0, &a.iface};
        sdx_binn_writer_init(&w, &out, &o);
        for (int i = 0; i < 200; i++) sdx_binn_writer_begin_array(&w, 1);
        sdx_binn_writer_string(&w, "deep", 4);
        for (int i = 0; i < 200; i++) sdx_binn_writer_end(&w);
        sdx_err rc = sdx_binn_writer_finish(&w);
        if (rc == SDX_OK) {
            done = 1;
            sbuf s = {0};
            sdx_binn_read_opts ro = {0, 300, NULL};
            sdx_binn_reader *r = sdx_binn_reader_new(sdx_buf_data(&out), sdx_buf_len(&out), &ro);
            CHECK_EQ_INT(dump_source(sdx_binn_reader_source(r), &s), SDX_OK);
            CHECK_EQ_U64(s.len, 200 * 2 + 6);
            sdx_binn_reader_free(r);
            free(s.p);
        } else {
            CHECK_EQ_INT(rc, SDX_ERR_NOMEM);
        }
        sdx_buf_destroy(&out);
        CHECK_EQ_INT(a.live, 0);
    }
    CHECK(done);
}

/* A stream whose writes fail after `budget` bytes. */
typedef struct failing_stream {
    sbuf got;
    size_t budget;
} failing_stream;

static size_t failing_write(void *ctx, const void *data, size_t len) {
    failing_stream *f = ctx;
    if (len > f->budget) return 0;
    f->budget -= len;
    sb_put(&f->got, data, len);
    return len;
}

/* A sequence of top-level containers into a stream of small chunks: each
 * pins the buffer while open and releases it at its end; the bytes equal
 * the memory writer's. A stream that fails at every point in turn gives
 * SDX_ERR_IO, nothing leaked. */
TEST(stream_sequence_and_io_errors) {
    sdx_binn_write_opts o = {SDX_BINN_WRITE_SEQUENCE, NULL};
    sdx_buf mem;
    sdx_buf_init(&mem, NULL);
    sdx_binn_writer w;
    sdx_binn_writer_init(&w, &mem, &o);
    for (int v = 0; v < 3; v++) {
        sdx_binn_writer_begin_array(&w, SDX_COUNT_UNKNOWN);
        for (int i = 0; i < 60; i++) sdx_binn_writer_string(&w, "abc", 3);
        sdx_binn_writer_end(&w);
        sdx_binn_writer_int(&w, v);
    }
    CHECK_EQ_INT(sdx_binn_writer_finish(&w), SDX_OK);
    size_t total = sdx_buf_len(&mem);
    int whole = 0;
    for (size_t k = 0; k <= total / 7 + 1; k++) {
        size_t budget = k * 7 < total ? k * 7 : total; /* the last: exactly enough */
        whole += budget == total;
        counting_alloc a;
        counting_alloc_init(&a, 0);
        failing_stream f = {{0}, budget};
        sdx_buf sb;
        sdx_buf_init_stream(&sb, failing_write, &f, 16, &a.iface);
        sdx_binn_write_opts so = {SDX_BINN_WRITE_SEQUENCE, &a.iface};
        sdx_binn_writer_init(&w, &sb, &so);
        for (int v = 0; v < 3; v++) {
            sdx_binn_writer_begin_array(&w, SDX_COUNT_UNKNOWN);
            for (int i = 0; i < 60; i++) sdx_binn_writer_string(&w, "abc", 3);
            sdx_binn_writer_end(&w);
            sdx_binn_writer_int(&w, v);
        }
        sdx_err rc = sdx_binn_writer_finish(&w);
        if (budget >= sdx_buf_len(&mem)) {
            CHECK_EQ_INT(rc, SDX_OK);
            CHECK_MEM(f.got.p, f.got.len, sdx_buf_data(&mem), sdx_buf_len(&mem));
        } else {
            CHECK_EQ_INT(rc, SDX_ERR_IO);
            /* What did go out is a prefix of the right bytes. */
            CHECK(f.got.len <= budget && (f.got.len == 0 || memcmp(f.got.p, sdx_buf_data(&mem), f.got.len) == 0));
        }
        CHECK_EQ_U64(sb.pin, UINT64_MAX);
        sdx_buf_destroy(&sb);
        CHECK_EQ_INT(a.live, 0);
        free(f.got.p);
    }
    CHECK(whole > 0);
    sdx_buf_destroy(&mem);
}

/* A large value: a list of `n` objects, each with a string, an integer
 * list, a nested object and a small list, every container's count given
 * when `known` (else SDX_COUNT_UNKNOWN for the objects and the inner
 * lists; the outer list's count is known when `known_root`). */
static void big_value(sdx_binn_writer *w, int n, int known, int known_root) {
    static const char text[] = "a string of text that is long enough to matter, 64 bytes or so..";
    sdx_binn_writer_begin_array(w, known_root ? (uint64_t)n : SDX_COUNT_UNKNOWN);
    for (int i = 0; i < n; i++) {
        sdx_binn_writer_begin_map(w, known ? 4 : SDX_COUNT_UNKNOWN);
        sdx_binn_writer_key(w, "text", 4);
        sdx_binn_writer_string(w, text, (size_t)(i % 64));
        sdx_binn_writer_key(w, "ints", 4);
        sdx_binn_writer_begin_array(w, known ? (uint64_t)(i % 40) : SDX_COUNT_UNKNOWN);
        for (int j = 0; j < i % 40; j++) sdx_binn_writer_int(w, (int64_t)j * 1000 * (i % 7));
        sdx_binn_writer_end(w);
        sdx_binn_writer_key(w, "obj", 3);
        sdx_binn_writer_begin_map(w, known ? 2 : SDX_COUNT_UNKNOWN);
        sdx_binn_writer_key(w, "x", 1);
        sdx_binn_writer_double(w, i * 0.5);
        sdx_binn_writer_key(w, "y", 1);
        sdx_binn_writer_bool(w, i & 1);
        sdx_binn_writer_end(w);
        sdx_binn_writer_key(w, "list", 4);
        sdx_binn_writer_begin_array(w, known ? 2 : SDX_COUNT_UNKNOWN);
        sdx_binn_writer_null(w);
        sdx_binn_writer_uint(w, (uint64_t)i);
        sdx_binn_writer_end(w);
        sdx_binn_writer_end(w);
    }
    sdx_binn_writer_end(w);
}

/* Into a stream that may patch what it flushed (sdx_buf_set_patch): the
 * same bytes as into memory, for every mix of known and unknown counts and
 * chunk sizes; with the counts known the buffer stays within two chunks
 * (or 1 KiB, for the smallest: it may hold open containers of up to 130
 * bytes and a value) whatever the value's size (the containers leave it
 * once their headers' widths are final, and their ends patch the headers
 * in place), while a
 * list of unknown count is held to its end, as without patching. Also a
 * flat list of 100,000 integers. */
static sdx_err write_big(sdx_buf *b, void *ctx) {
    const int mode = *(const int *)ctx;
    sdx_binn_writer w;
    sdx_binn_writer_init(&w, b, NULL);
    if (mode < 4) {
        big_value(&w, 3000, mode & 1, (mode >> 1) & 1);
    } else { /* a flat list */
        sdx_binn_writer_begin_array(&w, 100000);
        for (int i = 0; i < 100000; i++) sdx_binn_writer_int(&w, i);
        sdx_binn_writer_end(&w);
    }
    return sdx_binn_writer_finish(&w);
}

TEST(patchable_stream) {
    for (int mode = 0; mode < 5; mode++) {
        int known = mode & 1, known_root = (mode >> 1) & 1, flat = mode == 4;
        sdx_buf mem;
        sdx_buf_init(&mem, NULL);
        CHECK_EQ_INT(write_big(&mem, &mode), SDX_OK);
        for (size_t chunk = 64; chunk <= 4096; chunk *= 8) {
            long patches;
            size_t peak = patch_stream_check(write_big, &mode, chunk, sdx_buf_data(&mem), sdx_buf_len(&mem),
                                             &patches);
            if (flat || (known && known_root)) {
                if (!CHECK(peak <= (chunk < 512 ? 1024 : 2 * chunk)))
                    fprintf(stderr, "  chunk %zu: %zu bytes at the peak\n", chunk, peak);
                if (flat) CHECK_EQ_INT(patches, 1); /* the list's header, released while its items came */
                else CHECK(patches > 0);
            } else if (!known_root) {
                CHECK(peak >= sdx_buf_len(&mem)); /* held whole */
            }
        }
        sdx_buf_destroy(&mem);
    }
}

int main(int argc, char **argv) {
    return test_run(argc, argv, (test_case[]){
        {"spec_examples_written", spec_examples_written},
        {"spec_examples_read", spec_examples_read},
        {"smallest_integers", smallest_integers},
        {"scalars", scalars},
        {"sizes_cross_127", sizes_cross_127},
        {"maps_and_objects", maps_and_objects},
        {"typed_values", typed_values},
        {"usage_errors", usage_errors},
        {"allocation_failure", allocation_failure},
        {"stream_sequence_and_io_errors", stream_sequence_and_io_errors},
        {"patchable_stream", patchable_stream},
        {0}});
}
