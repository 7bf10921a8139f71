/* The UBJSON / BJData writer: exact bytes of every type in both dialects,
 * the smallest integer types, counted, plain and typed containers, binary
 * data, the event interface, usage errors and allocation failures. */
#include "guard_pages.h" /* first: it sets feature macros */

#include "ubjson_test.h"
#include "short_strings.h"

/* Write with a callback filled in by the test, into a fresh memory buffer,
 * and finish; returns the finish error. */
typedef void (*write_fn)(sdx_ubjson_writer *w);

static sdx_err write_with(sdx_buf *b, uint32_t flags, write_fn fn) {
    sdx_buf_init(b, NULL);
    sdx_ubjson_writer w;
    sdx_ubjson_write_opts o = {flags, NULL};
    sdx_ubjson_writer_init(&w, b, &o);
    fn(&w);
    return sdx_ubjson_writer_finish(&w);
}

/* One scalar written alone gives exactly `lit`. */
#define SCALAR(flags, call, lit)                                   \
    do {                                                           \
        sdx_buf b_;                                                \
        sdx_buf_init(&b_, NULL);                                   \
        sdx_ubjson_writer w_;                                      \
        sdx_ubjson_write_opts o_ = {flags, NULL};                  \
        sdx_ubjson_writer_init(&w_, &b_, &o_);                     \
        sdx_ubjson_writer *w = &w_;                                \
        call;                                                      \
        CHECK_EQ_INT(sdx_ubjson_writer_finish(&w_), SDX_OK);       \
        CHECK_BYTES(&b_, lit);                                     \
        sdx_buf_destroy(&b_);                                      \
    } while (0)

#define BJ SDX_UBJSON_WRITE_BJDATA

TEST(scalars) {
    SCALAR(0, sdx_ubjson_writer_null(w), "Z");
    SCALAR(0, sdx_ubjson_writer_bool(w, true), "T");
    SCALAR(0, sdx_ubjson_writer_bool(w, false), "F");
    SCALAR(0, sdx_ubjson_writer_char(w, 'a'), "Ca");
    SCALAR(0, sdx_ubjson_writer_string(w, "ham", 3), "SU\x03ham");
    SCALAR(0, sdx_ubjson_writer_string(w, NULL, 0), "SU\x00");
    SCALAR(0, sdx_ubjson_writer_string(w, "a", 1), "Ca"); /* one ASCII byte: a char */
    SCALAR(0, sdx_ubjson_writer_string(w, "\xc3\xa9", 2), "SU\x02\xc3\xa9");
    SCALAR(0, sdx_ubjson_writer_high_precision(w, "3.14159265358979323846", 22),
           "HU\x16" "3.14159265358979323846");
    SCALAR(0, sdx_ubjson_writer_double(w, 1.5), "D\x3f\xf8\x00\x00\x00\x00\x00\x00");
    SCALAR(BJ, sdx_ubjson_writer_double(w, 1.5), "D\x00\x00\x00\x00\x00\x00\xf8\x3f");
    SCALAR(SDX_UBJSON_WRITE_FLOAT32_EXACT, sdx_ubjson_writer_double(w, 1.5), "d\x3f\xc0\x00\x00");
    SCALAR(SDX_UBJSON_WRITE_FLOAT32_EXACT, sdx_ubjson_writer_double(w, 0.1),
           "D\x3f\xb9\x99\x99\x99\x99\x99\x9a");
    SCALAR(0, sdx_ubjson_writer_float(w, -2.0f), "d\xc0\x00\x00\x00");
    SCALAR(BJ, sdx_ubjson_writer_float(w, -2.0f), "d\x00\x00\x00\xc0");
    /* a long string: the length in I */
    char s300[300];
    memset(s300, 'x', sizeof s300);
    sdx_buf b;
    sdx_buf_init(&b, NULL);
    sdx_ubjson_writer w;
    sdx_ubjson_writer_init(&w, &b, NULL);
    sdx_ubjson_writer_string(&w, s300, 300);
    CHECK_EQ_INT(sdx_ubjson_writer_finish(&w), SDX_OK);
    CHECK_EQ_U64(sdx_buf_len(&b), 304);
    CHECK_MEM(sdx_buf_data(&b), 4, "SI\x01\x2c", 4);
    sdx_buf_destroy(&b);
}

TEST(smallest_integers) {
    SCALAR(0, sdx_ubjson_writer_int(w, 0), "U\x00");
    SCALAR(0, sdx_ubjson_writer_int(w, 255), "U\xff");
    SCALAR(0, sdx_ubjson_writer_int(w, 256), "I\x01\x00");
    SCALAR(0, sdx_ubjson_writer_int(w, -1), "i\xff");
    SCALAR(0, sdx_ubjson_writer_int(w, -128), "i\x80");
    SCALAR(0, sdx_ubjson_writer_int(w, -129), "I\xff\x7f");
    SCALAR(0, sdx_ubjson_writer_int(w, 32767), "I\x7f\xff");
    SCALAR(0, sdx_ubjson_writer_int(w, 32768), "l\x00\x00\x80\x00");
    SCALAR(0, sdx_ubjson_writer_int(w, -32769), "l\xff\xff\x7f\xff");
    SCALAR(0, sdx_ubjson_writer_int(w, 2147483647), "l\x7f\xff\xff\xff");
    SCALAR(0, sdx_ubjson_writer_int(w, 2147483648), "L\x00\x00\x00\x00\x80\x00\x00\x00");
    SCALAR(0, sdx_ubjson_writer_int(w, INT64_MIN), "L\x80\x00\x00\x00\x00\x00\x00\x00");
    SCALAR(0, sdx_ubjson_writer_uint(w, 7), "U\x07");
    /* above INT64_MAX: H with the decimal text in UBJSON, M in BJData */
    SCALAR(0, sdx_ubjson_writer_uint(w, UINT64_MAX), "HU\x14" "18446744073709551615");
    SCALAR(BJ, sdx_ubjson_writer_uint(w, UINT64_MAX), "M\xff\xff\xff\xff\xff\xff\xff\xff");
    /* BJData: unsigned types for nonnegative values, little-endian */
    SCALAR(BJ, sdx_ubjson_writer_int(w, 256), "u\x00\x01");
    SCALAR(BJ, sdx_ubjson_writer_int(w, 65535), "u\xff\xff");
    SCALAR(BJ, sdx_ubjson_writer_int(w, 65536), "m\x00\x00\x01\x00");
    SCALAR(BJ, sdx_ubjson_writer_int(w, 4294967296), "M\x00\x00\x00\x00\x01\x00\x00\x00");
    SCALAR(BJ, sdx_ubjson_writer_int(w, -129), "I\x7f\xff");
    SCALAR(BJ, sdx_ubjson_writer_int(w, -40000), "l\xc0\x63\xff\xff");
}

/* The UBJSON bytes of v by the type ranges of Draft 12 (uint8 0..255
 * first, then int8, int16, int32, int64), one byte at a time: the oracle
 * for sdx_ubj_w_int, which picks the type by compares, not branches. */
static size_t ubj_int_oracle(unsigned char *out, int64_t v) {
    int n;
    if (v >= 0 && v <= 255) out[0] = 'U', n = 1;
    else if (v >= INT8_MIN && v <= INT8_MAX) out[0] = 'i', n = 1;
    else if (v >= INT16_MIN && v <= INT16_MAX) out[0] = 'I', n = 2;
    else if (v >= INT32_MIN && v <= INT32_MAX) out[0] = 'l', n = 4;
    else out[0] = 'L', n = 8;
    for (int i = 0; i < n; i++) out[1 + i] = (unsigned char)((uint64_t)v >> (8 * (n - 1 - i)));
    return (size_t)n + 1;
}

/* Every integer within 3 of a type's edge, and a million others of every
 * magnitude and sign, through the inline path and the exported function
 * (whose buffer is full to the last byte for some, so that the exported
 * function's own copy is used), against the oracle. */
TEST(integers_against_type_ranges) {
    static const int64_t edges[] = {0, 127, 128, 255, 256, 32767, 32768, -128, -129,
                                    -32768, -32769, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN};
    int64_t vals[1024];
    size_t nv = 0;
    for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++)
        for (int d = -3; d <= 3; d++) vals[nv++] = (int64_t)((uint64_t)edges[e] + (uint64_t)(int64_t)d);
    uint64_t st = 42;
    int bad = 0;
    for (long round = 0; round < 1000000 && !bad; round++) {
        int64_t v;
        if (round < (long)nv) v = vals[round];
        else {
            uint64_t r = test_rand(&st);
            v = (int64_t)(r >> ((r & 63) | 1)); /* every magnitude below 2^63 */
            if (r & 64) v = -v - 1;
        }
        unsigned char want[9];
        size_t wn = ubj_int_oracle(want, v);
        for (int direct = 0; direct < 2; direct++) {
            char mem[16];
            sdx_buf b;
            /* a fixed buffer of exactly the bytes needed: the inline path
             * (which needs 9) gives way to the exported function */
            sdx_buf_init_fixed(&b, mem, round & 1 ? wn : sizeof mem);
            sdx_ubjson_writer w;
            sdx_ubjson_writer_init(&w, &b, NULL);
            sdx_err e = direct ? (sdx_ubjson_writer_int)(&w, v) : sdx_ubjson_writer_int(&w, v);
            if (!e) e = sdx_ubjson_writer_finish(&w);
            if (e || sdx_buf_len(&b) != wn || memcmp(sdx_buf_data(&b), want, wn) != 0) {
                fprintf(stderr, "  %lld (direct %d): err %d, %zu bytes\n", (long long)v, direct, (int)e,
                        sdx_buf_len(&b));
                bad = 1;
            }
            sdx_buf_destroy(&b);
        }
    }
    CHECK(!bad);
}

static void w_counted(sdx_ubjson_writer *w) {
    sdx_ubjson_writer_begin_map(w, 2);
    sdx_ubjson_writer_key(w, "a", 1);
    sdx_ubjson_writer_begin_array(w, 2);
    sdx_ubjson_writer_int(w, 1);
    sdx_ubjson_writer_null(w);
    sdx_ubjson_writer_end(w);
    sdx_ubjson_writer_key(w, "b", 1);
    sdx_ubjson_writer_begin_array(w, 0);
    sdx_ubjson_writer_end(w);
    sdx_ubjson_writer_end(w);
}

static void w_plain(sdx_ubjson_writer *w) {
    sdx_ubjson_writer_begin_map(w, SDX_COUNT_UNKNOWN);
    sdx_ubjson_writer_key(w, "a", 1);
    sdx_ubjson_writer_begin_array(w, SDX_COUNT_UNKNOWN);
    sdx_ubjson_writer_int(w, 1);
    sdx_ubjson_writer_null(w);
    sdx_ubjson_writer_end(w);
    sdx_ubjson_writer_key(w, "b", 1);
    sdx_ubjson_writer_begin_map(w, SDX_COUNT_UNKNOWN);
    sdx_ubjson_writer_end(w);
    sdx_ubjson_writer_end(w);
}

TEST(containers) {
    sdx_buf b;
    CHECK_EQ_INT(write_with(&b, 0, w_counted), SDX_OK);
    CHECK_BYTES(&b, "{#U\x02U\x01" "a[#U\x02U\x01ZU\x01" "b[#U\x00");
    sdx_buf_destroy(&b);
    CHECK_EQ_INT(write_with(&b, 0, w_plain), SDX_OK);
    CHECK_BYTES(&b, "{U\x01" "a[U\x01Z]U\x01" "b{}}");
    sdx_buf_destroy(&b);
}

static void w_typed(sdx_ubjson_writer *w) {
    sdx_ubjson_writer_begin_array(w, 5);
    sdx_ubjson_writer_begin_typed_array(w, 'i', 3);
    sdx_ubjson_writer_int(w, -1);
    sdx_ubjson_writer_int(w, 0);
    sdx_ubjson_writer_int(w, 127);
    sdx_ubjson_writer_end(w);
    sdx_ubjson_writer_begin_typed_map(w, 'D', 1);
    sdx_ubjson_writer_key(w, "x", 1);
    sdx_ubjson_writer_double(w, 1.5);
    sdx_ubjson_writer_end(w);
    sdx_ubjson_writer_begin_typed_array(w, 'T', 2);
    sdx_ubjson_writer_bool(w, true);
    sdx_ubjson_writer_bool(w, true);
    sdx_ubjson_writer_end(w);
    sdx_ubjson_writer_begin_typed_array(w, '[', 2); /* arrays without their '[' */
    sdx_ubjson_writer_begin_array(w, SDX_COUNT_UNKNOWN);
    sdx_ubjson_writer_end(w);
    sdx_ubjson_writer_begin_array(w, 1);
    sdx_ubjson_writer_char(w, 'z');
    sdx_ubjson_writer_end(w);
    sdx_ubjson_writer_end(w);
    sdx_ubjson_writer_begin_typed_array(w, 'S', 2);
    sdx_ubjson_writer_string(w, "ab", 2);
    sdx_ubjson_writer_char(w, 'c');
    sdx_ubjson_writer_end(w);
    sdx_ubjson_writer_end(w);
}

static void w_typed_bj(sdx_ubjson_writer *w) {
    sdx_ubjson_writer_begin_typed_array(w, 'u', 2);
    sdx_ubjson_writer_int(w, 1);
    sdx_ubjson_writer_uint(w, 65535);
    sdx_ubjson_writer_end(w);
}

TEST(typed_containers) {
    sdx_buf b;
    CHECK_EQ_INT(write_with(&b, 0, w_typed), SDX_OK);
    CHECK_BYTES(&b, "[#U\x05"
                    "[$i#U\x03\xff\x00\x7f"
                    "{$D#U\x01U\x01x\x3f\xf8\x00\x00\x00\x00\x00\x00"
                    "[$T#U\x02"
                    "[$[#U\x02]#U\x01" "Cz"
                    "[$S#U\x02U\x02" "abU\x01" "c");
    sdx_buf_destroy(&b);
    CHECK_EQ_INT(write_with(&b, BJ, w_typed_bj), SDX_OK);
    CHECK_BYTES(&b, "[$u#U\x02\x01\x00\xff\xff");
    sdx_buf_destroy(&b);
}

static void w_nd(sdx_ubjson_writer *w) {
    static const uint64_t dims[] = {2, 300};
    sdx_ubjson_writer_begin_array(w, 2);
    sdx_ubjson_writer_begin_nd_array(w, 'i', dims, 2);
    for (int i = 0; i < 600; i++) sdx_ubjson_writer_int(w, i % 2 ? -1 : 1);
    sdx_ubjson_writer_end(w);
    sdx_ubjson_writer_begin_nd_array(w, 'd', dims, 1);
    sdx_ubjson_writer_double(w, 0.5);
    sdx_ubjson_writer_float(w, 1.0f);
    sdx_ubjson_writer_end(w);
    sdx_ubjson_writer_end(w);
}

static void u_nd_short(sdx_ubjson_writer *w) {
    static const uint64_t dims[] = {2, 2};
    sdx_ubjson_writer_begin_nd_array(w, 'U', dims, 2);
    sdx_ubjson_writer_int(w, 1);
    sdx_ubjson_writer_end(w);
}

static void u_nd_ubjson(sdx_ubjson_writer *w) {
    static const uint64_t dims[] = {2};
    sdx_ubjson_writer_begin_nd_array(w, 'U', dims, 1);
}

static void u_nd_type(sdx_ubjson_writer *w) {
    static const uint64_t dims[] = {2};
    sdx_ubjson_writer_begin_nd_array(w, 'S', dims, 1);
}

TEST(nd_arrays) {
    sdx_buf b;
    CHECK_EQ_INT(write_with(&b, BJ, w_nd), SDX_OK);
    CHECK_EQ_U64(sdx_buf_len(&b), 4 + 11 + 600 + 8 + 8);
    CHECK_MEM(sdx_buf_data(&b), 16, "[#U\x02[$i#[U\x02u\x2c\x01]\x01\xff", 16);
    CHECK_MEM(sdx_buf_data(&b) + 615, 16, "[$d#[U\x02]\x00\x00\x00\x3f\x00\x00\x80\x3f", 16);
    /* read back: nested arrays */
    sdx_ubjson_read_opts o = {SDX_UBJSON_READ_BJDATA, 0, 0, NULL};
    sdx_ubjson_reader *r = sdx_ubjson_reader_new(sdx_buf_data(&b), sdx_buf_len(&b), &o);
    sdx_event ev;
    size_t ints = 0, arrays = 0;
    while (sdx_ubjson_reader_next(r, &ev)) {
        ints += ev.kind == SDX_INT;
        arrays += ev.kind == SDX_ARRAY;
    }
    CHECK_EQ_INT(sdx_ubjson_reader_error(r, NULL), SDX_OK);
    CHECK_EQ_U64(ints, 600);
    CHECK_EQ_U64(arrays, 1 + 1 + 2 + 1);
    sdx_ubjson_reader_free(r);
    sdx_buf_destroy(&b);
    CHECK_EQ_INT(write_with(&b, BJ, u_nd_short), SDX_ERR_USAGE);
    sdx_buf_destroy(&b);
    CHECK_EQ_INT(write_with(&b, 0, u_nd_ubjson), SDX_ERR_UNSUPPORTED);
    sdx_buf_destroy(&b);
    CHECK_EQ_INT(write_with(&b, BJ, u_nd_type), SDX_ERR_INVALID_ARG);
    sdx_buf_destroy(&b);
}

static void w_bin(sdx_ubjson_writer *w) {
    sdx_ubjson_writer_begin_array(w, 2);
    sdx_ubjson_writer_bin(w, "\x00\xff\x10", 3);
    sdx_ubjson_writer_bin(w, NULL, 0);
    sdx_ubjson_writer_end(w);
}

TEST(binary) {
    sdx_buf b;
    CHECK_EQ_INT(write_with(&b, 0, w_bin), SDX_OK);
    CHECK_BYTES(&b, "[#U\x02[$U#U\x03\x00\xff\x10[$U#U\x00");
    sdx_buf_destroy(&b);
    CHECK_EQ_INT(write_with(&b, BJ, w_bin), SDX_OK);
    CHECK_BYTES(&b, "[#U\x02[$B#U\x03\x00\xff\x10[$B#U\x00");
    sdx_buf_destroy(&b);
}

/* Each writes something wrong; the expected error is in `want`. */
static void u_value_as_key(sdx_ubjson_writer *w) {
    sdx_ubjson_writer_begin_map(w, 1);
    sdx_ubjson_writer_int(w, 1);
}
static void u_count_short(sdx_ubjson_writer *w) {
    sdx_ubjson_writer_begin_array(w, 2);
    sdx_ubjson_writer_int(w, 1);
    sdx_ubjson_writer_end(w);
}
static void u_count_over(sdx_ubjson_writer *w) {
    sdx_ubjson_writer_begin_array(w, 1);
    sdx_ubjson_writer_int(w, 1);
    sdx_ubjson_writer_int(w, 2);
}
static void u_key_without_value(sdx_ubjson_writer *w) {
    sdx_ubjson_writer_begin_map(w, SDX_COUNT_UNKNOWN);
    sdx_ubjson_writer_key(w, "k", 1);
    sdx_ubjson_writer_end(w);
}
static void u_end_at_root(sdx_ubjson_writer *w) { sdx_ubjson_writer_end(w); }
static void u_two_roots(sdx_ubjson_writer *w) {
    sdx_ubjson_writer_null(w);
    sdx_ubjson_writer_null(w);
}
static void u_nothing(sdx_ubjson_writer *w) { (void)w; }
static void u_open(sdx_ubjson_writer *w) { sdx_ubjson_writer_begin_array(w, SDX_COUNT_UNKNOWN); }
static void u_typed_range(sdx_ubjson_writer *w) {
    sdx_ubjson_writer_begin_typed_array(w, 'i', 1);
    sdx_ubjson_writer_int(w, 128);
}
static void u_typed_kind(sdx_ubjson_writer *w) {
    sdx_ubjson_writer_begin_typed_array(w, 'U', 1);
    sdx_ubjson_writer_string(w, "x", 1);
}
static void u_typed_unknown(sdx_ubjson_writer *w) {
    sdx_ubjson_writer_begin_typed_array(w, 'U', SDX_COUNT_UNKNOWN);
}
static void u_typed_noop(sdx_ubjson_writer *w) { sdx_ubjson_writer_begin_typed_array(w, 'N', 1); }
static void u_typed_bj_zero(sdx_ubjson_writer *w) { sdx_ubjson_writer_begin_typed_array(w, 'Z', 1); }
static void u_typed_float(sdx_ubjson_writer *w) {
    sdx_ubjson_writer_begin_typed_array(w, 'd', 1);
    sdx_ubjson_writer_double(w, 0.1);
}
static void u_utf8(sdx_ubjson_writer *w) { sdx_ubjson_writer_string(w, "\xc3", 1); }
static void u_key_utf8(sdx_ubjson_writer *w) {
    sdx_ubjson_writer_begin_map(w, 1);
    sdx_ubjson_writer_key(w, "\xff", 1);
}
static void u_hp(sdx_ubjson_writer *w) { sdx_ubjson_writer_high_precision(w, "1.", 2); }
static void ubj_uchar(sdx_ubjson_writer *w) { sdx_ubjson_writer_char(w, (char)0xe9); }
static void u_after_error(sdx_ubjson_writer *w) {
    sdx_ubjson_writer_end(w);
    sdx_ubjson_writer_null(w); /* ignored: the first error stays */
}

TEST(usage_errors) {
    static const struct {
        write_fn fn;
        uint32_t flags;
        sdx_err want;
    } cases[] = {
        {u_value_as_key, 0, SDX_ERR_USAGE},     {u_count_short, 0, SDX_ERR_USAGE},
        {u_count_over, 0, SDX_ERR_USAGE},       {u_key_without_value, 0, SDX_ERR_USAGE},
        {u_end_at_root, 0, SDX_ERR_USAGE},      {u_two_roots, 0, SDX_ERR_USAGE},
        {u_nothing, 0, SDX_ERR_USAGE},          {u_open, 0, SDX_ERR_USAGE},
        {u_typed_range, 0, SDX_ERR_TYPE},       {u_typed_kind, 0, SDX_ERR_TYPE},
        {u_typed_unknown, 0, SDX_ERR_INVALID_ARG}, {u_typed_noop, 0, SDX_ERR_INVALID_ARG},
        {u_typed_bj_zero, BJ, SDX_ERR_INVALID_ARG}, {u_typed_float, 0, SDX_ERR_RANGE},
        {u_utf8, 0, SDX_ERR_UTF8},              {u_key_utf8, 0, SDX_ERR_UTF8},
        {u_hp, 0, SDX_ERR_INVALID_ARG},         {ubj_uchar, 0, SDX_ERR_INVALID_ARG},
        {u_after_error, 0, SDX_ERR_USAGE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sdx_buf b;
        if (!CHECK_EQ_INT(write_with(&b, cases[i].flags, cases[i].fn), cases[i].want))
            fprintf(stderr, "  case %zu\n", i);
        sdx_buf_destroy(&b);
    }
    /* unknown flags */
    sdx_buf ub;
    sdx_buf_init(&ub, NULL);
    sdx_ubjson_writer uw;
    sdx_ubjson_write_opts o = {1u << 20, NULL};
    CHECK_EQ_INT(sdx_ubjson_writer_init(&uw, &ub, &o), SDX_ERR_INVALID_ARG);
    CHECK_EQ_INT(sdx_ubjson_writer_finish(&uw), SDX_ERR_INVALID_ARG);
    sdx_buf_destroy(&ub);
    /* no UTF-8 check when asked */
    SCALAR(SDX_UBJSON_WRITE_NO_UTF8_CHECK, sdx_ubjson_writer_string(w, "\xc3", 1), "SU\x01\xc3");
}

/* Events: tags and flags that say how to write a value again. */
TEST(events) {
    sdx_buf b;
    sdx_buf_init(&b, NULL);
    sdx_ubjson_writer w;
    sdx_ubjson_writer_init(&w, &b, NULL);
    sdx_sink s = sdx_ubjson_writer_sink(&w);
    sdx_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = SDX_ARRAY;
    ev.v.count = 6;
    sdx_sink_put(s, &ev);
    memset(&ev, 0, sizeof ev);
    ev.kind = SDX_STR;
    ev.v.str.ptr = "q";
    ev.v.str.len = 1;
    sdx_sink_put(s, &ev); /* one ASCII byte: a char */
    ev.v.str.ptr = "qq";
    ev.v.str.len = 2;
    sdx_sink_put(s, &ev); /* two bytes: a string */
    memset(&ev, 0, sizeof ev);
    ev.kind = SDX_DOUBLE;
    ev.v.d = 0.5;
    ev.flags = SDX_EVENT_FLOAT32;
    sdx_sink_put(s, &ev);
    ev.flags = SDX_EVENT_FLOAT16; /* not followed: D */
    sdx_sink_put(s, &ev);
    memset(&ev, 0, sizeof ev);
    ev.kind = SDX_RAW;
    ev.v.str.ptr = "-1e999";
    ev.v.str.len = 6;
    sdx_sink_put(s, &ev);
    memset(&ev, 0, sizeof ev);
    ev.kind = SDX_ARRAY;
    ev.tag_kind = SDX_TAG_UBJSON;
    ev.tag = 'Z';
    ev.v.count = 2;
    sdx_sink_put(s, &ev);
    memset(&ev, 0, sizeof ev);
    sdx_sink_put(s, &ev);
    sdx_sink_put(s, &ev);
    ev.kind = SDX_END;
    sdx_sink_put(s, &ev);
    sdx_sink_put(s, &ev);
    CHECK_EQ_INT(sdx_sink_finish(s), SDX_OK);
    CHECK_BYTES(&b, "[#U\x06" "CqSU\x02qqd\x3f\x00\x00\x00" "D\x3f\xe0\x00\x00\x00\x00\x00\x00"
                    "HU\x06-1e999[$Z#U\x02");
    sdx_buf_destroy(&b);
    /* BJData: h only in typed h containers */
    sdx_buf_init(&b, NULL);
    sdx_ubjson_write_opts o = {BJ, NULL};
    sdx_ubjson_writer_init(&w, &b, &o);
    memset(&ev, 0, sizeof ev);
    sdx_ubjson_writer_begin_typed_array(&w, 'h', 2);
    ev.kind = SDX_DOUBLE;
    ev.v.d = -2.0;
    ev.flags = SDX_EVENT_FLOAT16;
    CHECK_EQ_INT(sdx_ubjson_writer_put(&w, &ev), SDX_OK);
    ev.flags = 0;
    CHECK_EQ_INT(sdx_ubjson_writer_put(&w, &ev), SDX_OK);
    sdx_ubjson_writer_end(&w);
    CHECK_EQ_INT(sdx_ubjson_writer_finish(&w), SDX_OK);
    CHECK_BYTES(&b, "[$h#U\x02\x00\xc0\x00\xc0");
    sdx_buf_destroy(&b);
    /* an integer below INT64_MIN cannot be written */
    sdx_buf_init(&b, NULL);
    sdx_ubjson_writer_init(&w, &b, NULL);
    ev.kind = SDX_NINT;
    ev.flags = 0;
    ev.v.u = 5;
    CHECK_EQ_INT(sdx_ubjson_writer_put(&w, &ev), SDX_ERR_RANGE);
    CHECK_EQ_INT(sdx_ubjson_writer_finish(&w), SDX_ERR_RANGE);
    sdx_buf_destroy(&b);
}

static void w_deep(sdx_ubjson_writer *w) {
    for (int i = 0; i < 200; i++) sdx_ubjson_writer_begin_array(w, SDX_COUNT_UNKNOWN);
    for (int i = 0; i < 200; i++) sdx_ubjson_writer_end(w);
}

TEST(sequence_and_depth) {
    sdx_buf b;
    CHECK_EQ_INT(write_with(&b, 0, w_deep), SDX_OK);
    CHECK_EQ_U64(sdx_buf_len(&b), 400);
    CHECK(sdx_buf_data(&b)[199] == '[' && sdx_buf_data(&b)[200] == ']');
    sdx_buf_destroy(&b);
    SCALAR(SDX_UBJSON_WRITE_SEQUENCE, (sdx_ubjson_writer_int(w, 1), sdx_ubjson_writer_null(w)),
           "U\x01Z");
    SCALAR(SDX_UBJSON_WRITE_SEQUENCE, (void)w, "");
}

/* An allocator that fails after a given number of allocations. */
static long alloc_budget;
static void *f_malloc(void *ctx, size_t n) {
    (void)ctx;
    if (alloc_budget-- <= 0) return NULL;
    return malloc(n);
}
static void *f_realloc(void *ctx, void *p, size_t old, size_t n) {
    (void)ctx;
    (void)old;
    if (alloc_budget-- <= 0) return NULL;
    return realloc(p, n);
}
static void f_free(void *ctx, void *p) {
    (void)ctx;
    free(p);
}

TEST(allocation_failures) {
    sdx_alloc a = {f_malloc, f_realloc, f_free, NULL};
    bool succeeded = false;
    for (long budget = 0; budget < 40 && !succeeded; budget++) {
        alloc_budget = budget;
        sdx_buf b;
        sdx_buf_init(&b, &a);
        sdx_ubjson_writer w;
        sdx_ubjson_write_opts o = {0, &a};
        sdx_ubjson_writer_init(&w, &b, &o);
        w_deep(&w);
        char big[5000];
        memset(big, 'y', sizeof big);
        sdx_ubjson_writer_string(&w, big, sizeof big); /* a second root: USAGE unless NOMEM came first */
        sdx_err e = sdx_ubjson_writer_finish(&w);
        CHECK(e == SDX_ERR_NOMEM || e == SDX_ERR_USAGE);
        if (e == SDX_ERR_USAGE) {
            succeeded = true;
            CHECK(sdx_buf_len(&b) >= 400);
        }
        sdx_buf_destroy(&b);
    }
    CHECK(succeeded);
}

/* A fixed buffer too small: SDX_ERR_OVERFLOW, nothing past its end. */
TEST(fixed_buffer) {
    char mem[8];
    memset(mem, 0x55, sizeof mem);
    sdx_buf b;
    sdx_buf_init_fixed(&b, mem, 6);
    sdx_ubjson_writer w;
    sdx_ubjson_writer_init(&w, &b, NULL);
    sdx_ubjson_writer_string(&w, "hello", 5);
    CHECK_EQ_INT(sdx_ubjson_writer_finish(&w), SDX_ERR_OVERFLOW);
    CHECK(mem[6] == 0x55 && mem[7] == 0x55);
}

/* The inline fast paths (ubjson.h's macros) against the exported functions
 * they stand for: the same calls through both give the same bytes and the
 * same error, in both dialects and with every flag that changes what the
 * fast paths do, at the edges of what they take (string lengths around 1,
 * 8, 16 and SDX_UBJ_W_TEXT_MAX, non-ASCII bytes at the start, middle and
 * end, integers at each type's edge, counts around 255 and INT32_MAX). */
#define FAST_CALL(direct, name, ...) \
    ((direct) ? (name)(__VA_ARGS__) : name(__VA_ARGS__))

static void fast_mix(sdx_ubjson_writer *w, int d, int bad) {
    static const int64_t ints[] = {0,     1,      127,    128,    255,       256,       32767,
                                   32768, 65535,  65536,  -1,     -128,      -129,      -32768,
                                   -32769, INT32_MAX, (int64_t)INT32_MAX + 1, INT32_MIN,
                                   (int64_t)INT32_MIN - 1, INT64_MAX, INT64_MIN};
    static const size_t lens[] = {0, 1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 31, 33, 64,
                                  65, 127, 128, 129, 130, 255, 256, 300};
    char text[300], key[300];
    for (size_t i = 0; i < sizeof text; i++) text[i] = (char)('a' + i % 26);
    FAST_CALL(d, sdx_ubjson_writer_begin_array, w, SDX_COUNT_UNKNOWN);
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        FAST_CALL(d, sdx_ubjson_writer_int, w, ints[i]);
        FAST_CALL(d, sdx_ubjson_writer_uint, w, (uint64_t)ints[i]);
    }
    FAST_CALL(d, sdx_ubjson_writer_uint, w, UINT64_MAX);
    FAST_CALL(d, sdx_ubjson_writer_double, w, 0.5);
    FAST_CALL(d, sdx_ubjson_writer_double, w, 0.1);
    FAST_CALL(d, sdx_ubjson_writer_null, w);
    FAST_CALL(d, sdx_ubjson_writer_bool, w, true);
    FAST_CALL(d, sdx_ubjson_writer_bool, w, false);
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        size_t n = lens[i];
        FAST_CALL(d, sdx_ubjson_writer_string, w, text, n);
        if (n == 0) continue;
        /* valid two-byte UTF-8 (c3 a9) at the start, middle and end */
        size_t at[3] = {0, n / 2 < n - 1 ? n / 2 : 0, n >= 2 ? n - 2 : 0};
        for (int k = 0; k < 3 && n >= 2; k++) {
            memcpy(key, text, n);
            key[at[k]] = (char)0xc3;
            key[at[k] + 1] = (char)0xa9;
            FAST_CALL(d, sdx_ubjson_writer_string, w, key, n);
        }
    }
    /* maps: keys of every length, counted and plain */
    FAST_CALL(d, sdx_ubjson_writer_begin_map, w, sizeof lens / sizeof lens[0]);
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        memcpy(key, text, lens[i]);
        if (lens[i] > 2) key[lens[i] - 2] = (char)0xc3, key[lens[i] - 1] = (char)0xa9;
        FAST_CALL(d, sdx_ubjson_writer_key, w, key, lens[i]);
        FAST_CALL(d, sdx_ubjson_writer_int, w, (int64_t)i);
    }
    FAST_CALL(d, sdx_ubjson_writer_end, w);
    FAST_CALL(d, sdx_ubjson_writer_begin_map, w, SDX_COUNT_UNKNOWN);
    FAST_CALL(d, sdx_ubjson_writer_key, w, "k", 1);
    FAST_CALL(d, sdx_ubjson_writer_string, w, "v", 1);
    FAST_CALL(d, sdx_ubjson_writer_end, w);
    /* counts at the edges of U and of what the fast path takes */
    static const uint64_t counts[] = {0, 1, 255, 256, 32767, 32768};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        FAST_CALL(d, sdx_ubjson_writer_begin_array, w, counts[i]);
        for (uint64_t j = 0; j < counts[i]; j++) FAST_CALL(d, sdx_ubjson_writer_null, w);
        FAST_CALL(d, sdx_ubjson_writer_end, w);
    }
    /* a typed container: its values take the exported functions */
    sdx_ubjson_writer_begin_typed_array(w, 'I', 2);
    FAST_CALL(d, sdx_ubjson_writer_int, w, 5);
    FAST_CALL(d, sdx_ubjson_writer_int, w, -300);
    FAST_CALL(d, sdx_ubjson_writer_end, w);
    /* a typed map: its keys may take the fast path, its values may not */
    sdx_ubjson_writer_begin_typed_map(w, 'U', 2);
    FAST_CALL(d, sdx_ubjson_writer_key, w, "a", 1);
    FAST_CALL(d, sdx_ubjson_writer_int, w, 7);
    FAST_CALL(d, sdx_ubjson_writer_key, w, "bc", 2);
    FAST_CALL(d, sdx_ubjson_writer_uint, w, 200);
    FAST_CALL(d, sdx_ubjson_writer_end, w);
    if (bad == 1) FAST_CALL(d, sdx_ubjson_writer_string, w, "abc\xff" "defghij", 11);
    if (bad == 2) { /* a value where a key is due, then calls that must do nothing */
        FAST_CALL(d, sdx_ubjson_writer_begin_map, w, 2);
        FAST_CALL(d, sdx_ubjson_writer_int, w, 1);
    }
    if (bad == 3) { /* an end before the count is met */
        FAST_CALL(d, sdx_ubjson_writer_begin_array, w, 2);
        FAST_CALL(d, sdx_ubjson_writer_null, w);
        FAST_CALL(d, sdx_ubjson_writer_end, w);
    }
    if (bad == 4) { /* a key in an array */
        FAST_CALL(d, sdx_ubjson_writer_key, w, "k", 1);
    }
    if (bad == 5) { /* more values than the count; its end must not close
                       the container, nor the next ends theirs */
        FAST_CALL(d, sdx_ubjson_writer_begin_array, w, 1);
        FAST_CALL(d, sdx_ubjson_writer_null, w);
        FAST_CALL(d, sdx_ubjson_writer_null, w);
        FAST_CALL(d, sdx_ubjson_writer_end, w);
        FAST_CALL(d, sdx_ubjson_writer_end, w);
    }
    FAST_CALL(d, sdx_ubjson_writer_null, w);
    FAST_CALL(d, sdx_ubjson_writer_string, w, "after", 5);
    FAST_CALL(d, sdx_ubjson_writer_begin_array, w, 0);
    FAST_CALL(d, sdx_ubjson_writer_end, w);
    FAST_CALL(d, sdx_ubjson_writer_end, w);
}

TEST(fast_paths) {
    static const uint32_t flags[] = {0, BJ, SDX_UBJSON_WRITE_NO_UTF8_CHECK,
                                     SDX_UBJSON_WRITE_FLOAT32_EXACT,
                                     BJ | SDX_UBJSON_WRITE_NO_UTF8_CHECK};
    for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++) {
        for (int bad = 0; bad <= 5; bad++) {
            sdx_buf b[2];
            sdx_err e[2];
            for (int d = 0; d < 2; d++) {
                sdx_buf_init(&b[d], NULL);
                sdx_ubjson_writer w;
                sdx_ubjson_write_opts o = {flags[f], NULL};
                sdx_ubjson_writer_init(&w, &b[d], &o);
                fast_mix(&w, d, bad);
                e[d] = sdx_ubjson_writer_finish(&w);
            }
            sdx_err want = bad == 0 ? SDX_OK
                           : bad == 1 ? ((flags[f] & SDX_UBJSON_WRITE_NO_UTF8_CHECK) ? SDX_OK
                                                                                      : SDX_ERR_UTF8)
                                      : SDX_ERR_USAGE;
            if (!CHECK_EQ_INT(e[0], want) || !CHECK_EQ_INT(e[1], want) ||
                !CHECK_MEM(sdx_buf_data(&b[0]), sdx_buf_len(&b[0]), sdx_buf_data(&b[1]),
                           sdx_buf_len(&b[1])))
                fprintf(stderr, "  flags %#x, bad %d\n", (unsigned)flags[f], bad);
            sdx_buf_destroy(&b[0]);
            sdx_buf_destroy(&b[1]);
        }
    }
    /* a fixed buffer too small for the fast paths' worst case: every value
     * that fits is still written, by the exported functions */
    char mem[40];
    sdx_buf fb;
    sdx_buf_init_fixed(&fb, mem, sizeof mem);
    sdx_ubjson_writer w;
    sdx_ubjson_writer_init(&w, &fb, NULL);
    sdx_ubjson_writer_begin_map(&w, 2);
    sdx_ubjson_writer_key(&w, "ab", 2);
    sdx_ubjson_writer_string(&w, "hello", 5);
    sdx_ubjson_writer_key(&w, "n", 1);
    sdx_ubjson_writer_double(&w, 1.0);
    sdx_ubjson_writer_end(&w);
    CHECK_EQ_INT(sdx_ubjson_writer_finish(&w), SDX_OK);
    CHECK_BYTES(&fb, "{#U\x02U\x02" "abSU\x05helloU\x01nD\x3f\xf0\x00\x00\x00\x00\x00\x00");
}

/* Another format's non-string map key, as an event: SDX_ERR_KEY (the
 * data's limit, as the JSON, BSON and Binn writers say), not USAGE; the
 * same value where a key is due through the API call stays a usage error
 * (u_value_as_key). */
TEST(event_key_refused) {
    static const sdx_kind kinds[] = {SDX_INT, SDX_NULL, SDX_STR, SDX_ARRAY, SDX_MAP, SDX_DOUBLE};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        sdx_buf b;
        sdx_buf_init(&b, NULL);
        sdx_ubjson_writer w;
        sdx_ubjson_writer_init(&w, &b, NULL);
        sdx_event ev;
        memset(&ev, 0, sizeof ev);
        ev.kind = SDX_MAP;
        ev.v.count = i % 2 ? SDX_COUNT_UNKNOWN : 1;
        CHECK_EQ_INT(sdx_ubjson_writer_put(&w, &ev), SDX_OK);
        memset(&ev, 0, sizeof ev);
        ev.kind = (uint8_t)kinds[i];
        ev.depth = 1;
        CHECK_EQ_INT(sdx_ubjson_writer_put(&w, &ev), SDX_ERR_KEY);
        CHECK_EQ_INT(sdx_ubjson_writer_finish(&w), SDX_ERR_KEY);
        sdx_buf_destroy(&b);
    }
}

/* Short strings and keys at every SIMD level (short_strings.h): S U n and
 * the bytes (C and the byte for one ASCII byte), a key as U n and the
 * bytes in a map of count 1. */
static sdx_err ubj_short_write(const char *s, size_t n, int as_key, int check, unsigned char *out,
                               size_t cap, size_t *len) {
    sdx_buf b;
    sdx_buf_init_fixed(&b, out, cap);
    sdx_ubjson_writer w;
    sdx_ubjson_write_opts o = {0};
    o.flags = check ? 0 : SDX_UBJSON_WRITE_NO_UTF8_CHECK;
    sdx_err e = sdx_ubjson_writer_init(&w, &b, &o);
    if (as_key) {
        sdx_ubjson_writer_begin_map(&w, 1);
        sdx_ubjson_writer_key(&w, s, n);
        sdx_ubjson_writer_null(&w);
        sdx_ubjson_writer_end(&w);
    } else {
        sdx_ubjson_writer_string(&w, s, n);
    }
    if (!e) e = sdx_ubjson_writer_finish(&w);
    *len = sdx_buf_len(&b);
    return e;
}

static size_t ubj_short_expect(const char *s, size_t n, int as_key, unsigned char *out) {
    size_t k = 0;
    if (as_key) {
        memcpy(out, "{#U\x01", 4);
        k = 4;
    } else if (n == 1 && (unsigned char)s[0] <= 127) {
        out[0] = 'C';
        out[1] = (unsigned char)s[0];
        return 2;
    } else {
        out[k++] = 'S';
    }
    out[k++] = 'U';
    out[k++] = (unsigned char)n;
    memcpy(out + k, s, n);
    k += n;
    if (as_key) out[k++] = 'Z';
    return k;
}

static void short_text_every_simd_level(void) {
    short_strings_every_level(ubj_short_write, ubj_short_expect);
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){{"scalars", scalars},
                                  {"short_text_every_simd_level", short_text_every_simd_level},
                                  {"smallest_integers", smallest_integers},
                                  {"integers_against_type_ranges", integers_against_type_ranges},
                                  {"containers", containers},
                                  {"typed_containers", typed_containers},
                                  {"binary", binary},
                                  {"nd_arrays", nd_arrays},
                                  {"usage_errors", usage_errors},
                                  {"events", events},
                                  {"sequence_and_depth", sequence_and_depth},
                                  {"allocation_failures", allocation_failures},
                                  {"fixed_buffer", fixed_buffer},
                                  {"fast_paths", fast_paths},
                                  {"event_key_refused", event_key_refused},
                                  {0, 0}});
}
