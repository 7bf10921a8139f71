/*
 * The pull JSON reader (src/json/reader.c): events and depths, options,
 * strings, numbers, exact errors, streams in every chunk size against the
 * reader over memory, memory bounds, allocation failures, deep nesting,
 * sequences, skipping, the source interface and the truncation hook.
 *
 * Most checks compare a compact dump of what a reader produced, one token
 * per event ("<depth><kind><value>") and then the outcome ("." for a clean
 * end, "!CODE@offset:line:column" for an error), with an expectation
 * written by hand.
 */
#include <math.h>
#include <stdarg.h>

#include "alloc_test.h"
#include "json/reader_internal.h"
#include "sdx/json.h"
#include "simd/simd.h"
#include "sbuf.h"
#include "test.h"
#include "utf8_ref.h"

#ifndef SDX_CORPUS_DIR
#define SDX_CORPUS_DIR "../shared/corpus"
#endif

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

/* Bytes of a string in a dump: printable ASCII as is, others as \xHH. */
static void sb_bytes(sbuf *b, const char *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c > ' ' && c < 0x7f && c != '\\') sb_put(b, &c, 1);
        else sb_printf(b, "\\x%02x", c);
    }
}

static const char *code_name(sdx_err e) {
    switch (e) {
    case SDX_OK: return "OK";
    case SDX_ERR_NOMEM: return "NOMEM";
    case SDX_ERR_IO: return "IO";
    case SDX_ERR_SYNTAX: return "SYNTAX";
    case SDX_ERR_TRUNCATED: return "TRUNC";
    case SDX_ERR_DEPTH: return "DEPTH";
    case SDX_ERR_UTF8: return "UTF8";
    case SDX_ERR_INVALID_ARG: return "INVAL";
    default: return "OTHER";
    }
}

/* One event in a dump. */
static void dump_event(sbuf *b, const sdx_event *ev) {
    sb_printf(b, "%u", (unsigned)ev->depth);
    switch ((sdx_kind)ev->kind) {
    case SDX_NULL: sb_put(b, "n", 1); break;
    case SDX_BOOL: sb_put(b, ev->v.b ? "t" : "f", 1); break;
    case SDX_INT: sb_printf(b, "i%lld", (long long)ev->v.i); break;
    case SDX_UINT: sb_printf(b, "u%llu", (unsigned long long)ev->v.u); break;
    case SDX_DOUBLE: sb_printf(b, "d%.17g", ev->v.d); break;
    case SDX_STR: sb_put(b, "s", 1); sb_bytes(b, ev->v.str.ptr, ev->v.str.len); break;
    case SDX_KEY: sb_put(b, "k", 1); sb_bytes(b, ev->v.str.ptr, ev->v.str.len); break;
    case SDX_RAW: sb_put(b, "r", 1); sb_bytes(b, ev->v.str.ptr, ev->v.str.len); break;
    case SDX_ARRAY: sb_put(b, "[", 1); break;
    case SDX_MAP: sb_put(b, "{", 1); break;
    case SDX_END: sb_put(b, "]", 1); break;
    default: sb_put(b, "?", 1); break;
    }
    sb_put(b, " ", 1);
}

/* The outcome at the end of a dump; also checks that an error report is
 * complete and that the event is untouched past the end. */
static void dump_outcome(sbuf *b, sdx_json_reader *r) {
    sdx_error e;
    sdx_err code = sdx_json_reader_error(r, &e);
    CHECK_EQ_INT(e.code, code);
    if (code == SDX_OK) {
        sb_put(b, ".", 1);
        return;
    }
    CHECK(e.msg != NULL && e.msg[0] != 0);
    sb_printf(b, "!%s@%zu:%zu:%zu", code_name(code), e.offset, e.line, e.column);
}

/* Drain a reader into a dump (and free it). Also checks that every event
 * is untagged and that the reader stays ended. */
static void drain(sbuf *b, sdx_json_reader *r) {
    sdx_event ev;
    memset(&ev, 0xA5, sizeof ev);
    while (sdx_json_reader_next(r, &ev)) {
        CHECK(ev.tag_kind == SDX_TAG_NONE && ev.tag == 0);
        dump_event(b, &ev);
        memset(&ev, 0xA5, sizeof ev);
    }
    CHECK(!sdx_json_reader_next(r, &ev)); /* sticky */
    dump_outcome(b, r);
    sdx_json_reader_free(r);
}

static void read_mem(sbuf *b, const char *t, size_t len, const sdx_json_read_opts *o) {
    sdx_json_reader *r = sdx_json_reader_new(t, len, o);
    if (!CHECK(r != NULL)) return;
    drain(b, r);
}

/* A stream over memory that hands out at most `max` bytes per call (or a
 * pseudo-random count up to what was asked when `max` is 0). */
typedef struct mem_stream {
    const char *p;
    size_t len, pos, max;
    uint64_t rng;
    size_t calls;
} mem_stream;

static size_t mem_stream_read(void *ctx, void *buf, size_t cap) {
    mem_stream *s = ctx;
    s->calls++;
    size_t n = s->len - s->pos;
    if (n > cap) n = cap;
    if (s->max && n > s->max) n = s->max;
    if (!s->max && n > 1) n = 1 + (size_t)(test_rand(&s->rng) % n);
    memcpy(buf, s->p + s->pos, n);
    s->pos += n;
    return n;
}

static void read_stream(sbuf *b, const char *t, size_t len, const sdx_json_read_opts *o,
                        size_t chunk, size_t max) {
    mem_stream s = {t, len, 0, max, 12345 + len, 0};
    sdx_json_reader *r = sdx_json_reader_new_stream(mem_stream_read, &s, chunk, o);
    if (!CHECK(r != NULL)) return;
    drain(b, r);
}

static const size_t chunk_sizes[] = {1, 2, 3, 7, 64, 4096};
#define NCHUNKS (sizeof chunk_sizes / sizeof *chunk_sizes)

/* Check `t` against the expected dump over memory, and over a stream in
 * every chunk size (and with short reads): all must give exactly `want`. */
static int expect_full(const char *t, size_t len, uint32_t flags, uint32_t max_depth,
                       const char *want, int line) {
    sdx_json_read_opts o = {flags, max_depth, NULL};
    sbuf b = {0};
    read_mem(&b, t, len, &o);
    int ok = 1;
    if (strcmp(b.p, want) != 0) {
        fprintf(stderr, "line %d: memory reader\n  got  %s\n  want %s\n", line, b.p, want);
        ok = 0;
    }
    for (size_t c = 0; c <= NCHUNKS; c++) {
        sbuf s = {0};
        if (c < NCHUNKS) read_stream(&s, t, len, &o, chunk_sizes[c], chunk_sizes[c]);
        else read_stream(&s, t, len, &o, 16, 0); /* short reads */
        if (strcmp(s.p, want) != 0) {
            fprintf(stderr, "line %d: stream reader, chunk %zu\n  got  %s\n  want %s\n", line,
                    c < NCHUNKS ? chunk_sizes[c] : (size_t)0, s.p, want);
            ok = 0;
        }
        sb_free(&s);
    }
    sb_free(&b);
    test_checks_run++;
    if (!ok) test_fail_at(__FILE__, line, "reader dump");
    return ok;
}

#define EXPECT(t, flags, want) expect_full((t), sizeof(t) - 1, (flags), 0, (want), __LINE__)
#define EXPECT_DEPTH(t, depth, want) expect_full((t), sizeof(t) - 1, 0, (depth), (want), __LINE__)

/* Whole files. */
static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    sbuf b = {0};
    char tmp[65536];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) sb_put(&b, tmp, n);
    fclose(f);
    if (!b.p) sb_put(&b, "", 0);
    *len = b.len;
    return b.p;
}

static const char *const corpus_names[] = {"twitter.json", "citm_catalog.json", "canada.json"};
#define NCORPUS (sizeof corpus_names / sizeof *corpus_names)

static char *read_corpus(const char *name, size_t *len) {
    const char *dir = getenv("SDX_CORPUS");
    if (!dir || !*dir) dir = SDX_CORPUS_DIR;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *p = read_file(path, len);
    if (!p) fprintf(stderr, "cannot read %s (set SDX_CORPUS to the corpus directory)\n", path);
    return p;
}

/* ------------------------------------------------------------------------ */
/* Events and depths                                                         */
/* ------------------------------------------------------------------------ */

TEST(events) {
    EXPECT("null", 0, "0n .");
    EXPECT("true", 0, "0t .");
    EXPECT("false", 0, "0f .");
    EXPECT("0", 0, "0i0 .");
    EXPECT("\"\"", 0, "0s .");
    EXPECT("\"abc\"", 0, "0sabc .");
    EXPECT("[]", 0, "0[ 0] .");
    EXPECT("{}", 0, "0{ 0] .");
    EXPECT(" \t\r\n[ ] \n", 0, "0[ 0] .");
    EXPECT("[1,2,3]", 0, "0[ 1i1 1i2 1i3 0] .");
    EXPECT("[[]]", 0, "0[ 1[ 1] 0] .");
    EXPECT("[[],{}]", 0, "0[ 1[ 1] 1{ 1] 0] .");
    EXPECT("{\"a\":1}", 0, "0{ 1ka 1i1 0] .");
    EXPECT("{\"a\":{\"b\":[true,false,null]},\"c\":\"d\"}", 0,
           "0{ 1ka 1{ 2kb 2[ 3t 3f 3n 2] 1] 1kc 1sd 0] .");
    EXPECT("[{\"\":[]},[[\"x\"]]]", 0, "0[ 1{ 2k 2[ 2] 1] 1[ 2[ 3sx 2] 1] 0] .");
    EXPECT(" { \"k\" : [ 1 , -2 , 3.5 ] , \"z\" : { } } ", 0,
           "0{ 1kk 1[ 2i1 2i-2 2d3.5 1] 1kz 1{ 1] 0] .");
    EXPECT("{\n  \"a\": [\n    1,\n    2\n  ]\n}\n", 0, "0{ 1ka 1[ 2i1 2i2 1] 0] .");
    /* every event fills kind and depth and is untagged (drain checks it) */
    EXPECT("[\"a\",{\"b\":null}]", 0, "0[ 1sa 1{ 2kb 2n 1] 0] .");
}

/* ------------------------------------------------------------------------ */
/* Numbers                                                                   */
/* ------------------------------------------------------------------------ */

TEST(numbers) {
    EXPECT("[0,1,-1,42,-42,123456789012345678,-123456789012345678]", 0,
           "0[ 1i0 1i1 1i-1 1i42 1i-42 1i123456789012345678 1i-123456789012345678 0] .");
    EXPECT("[9223372036854775807,-9223372036854775808]", 0,
           "0[ 1i9223372036854775807 1i-9223372036854775808 0] .");
    EXPECT("[9223372036854775808,18446744073709551615]", 0,
           "0[ 1u9223372036854775808 1u18446744073709551615 0] .");
    /* beyond 64 bits: the nearest double, or the text with BIGNUM_RAW */
    EXPECT("[18446744073709551616,-9223372036854775809,1e400,-1e400]", 0,
           "0[ 1d1.8446744073709552e+19 1d-9.2233720368547758e+18 1dinf 1d-inf 0] .");
    EXPECT("[18446744073709551616,-9223372036854775809,1e400,-1e400,1.5,7]",
           SDX_JSON_READ_BIGNUM_RAW,
           "0[ 1r18446744073709551616 1r-9223372036854775809 1r1e400 1r-1e400 1d1.5 1i7 0] .");
    EXPECT("123456789012345678901234567890", SDX_JSON_READ_BIGNUM_RAW,
           "0r123456789012345678901234567890 .");
    EXPECT("[0.5,-3.25,1e2,1E-2,2.5e+3,0.0,1e0,100000000000000000000]", 0,
           "0[ 1d0.5 1d-3.25 1d100 1d0.01 1d2500 1d0 1d1 1d1e+20 0] .");
    EXPECT("[5e-324,1.7976931348623157e308,2.2250738585072014e-308]", 0,
           "0[ 1d4.9406564584124654e-324 1d1.7976931348623157e+308 1d2.2250738585072014e-308 0] .");
    /* numbers at the end of the input, and before every delimiter */
    EXPECT("12", 0, "0i12 .");
    EXPECT("-1.5e3", 0, "0d-1500 .");
    EXPECT("[1]", 0, "0[ 1i1 0] .");
    EXPECT("{\"a\":1}", 0, "0{ 1ka 1i1 0] .");
    EXPECT("[1 ,2\n,3\t]", 0, "0[ 1i1 1i2 1i3 0] .");
    /* exact values */
    const char *t = "[0.1,-0.0,3.141592653589793,1e-7]";
    sdx_json_reader *r = sdx_json_reader_new(t, strlen(t), NULL);
    sdx_event ev;
    static const double want[] = {0.1, -0.0, 3.141592653589793, 1e-7};
    CHECK(sdx_json_reader_next(r, &ev));
    for (int i = 0; i < 4; i++) {
        CHECK(sdx_json_reader_next(r, &ev));
        CHECK_EQ_INT(ev.kind, SDX_DOUBLE);
        CHECK(memcmp(&ev.v.d, &want[i], sizeof(double)) == 0);
    }
    sdx_json_reader_free(r);
}

/* ------------------------------------------------------------------------ */
/* Strings                                                                   */
/* ------------------------------------------------------------------------ */

/* The single string of `t` (memory and every chunk size) equals `want`. */
static void check_string(const char *t, const char *want, size_t want_len) {
    for (size_t c = 0; c <= NCHUNKS; c++) {
        mem_stream s = {t, strlen(t), 0, c < NCHUNKS ? chunk_sizes[c] : 0, 7, 0};
        sdx_json_reader *r = c == NCHUNKS ? sdx_json_reader_new(t, strlen(t), NULL)
                                          : sdx_json_reader_new_stream(mem_stream_read, &s,
                                                                       chunk_sizes[c], NULL);
        sdx_event ev;
        if (CHECK(sdx_json_reader_next(r, &ev)) && CHECK_EQ_INT(ev.kind, SDX_STR))
            CHECK_MEM(ev.v.str.ptr, ev.v.str.len, want, want_len);
        CHECK(!sdx_json_reader_next(r, &ev));
        CHECK_EQ_INT(sdx_json_reader_error(r, NULL), SDX_OK);
        sdx_json_reader_free(r);
    }
}

TEST(strings) {
    static const char all[] = "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0000\\u001f\\u0041"
                              "\\u00e9\\u00E9\\u20ac"
                              "\\ud83d\\ude00\\uD834\\uDD1E\\uffff\"";
    static const char all_want[] = "\"\\/\b\f\n\r\t\0\x1f" "A\xc3\xa9\xc3\xa9\xe2\x82\xac"
                                   "\xf0\x9f\x98\x80\xf0\x9d\x84\x9e\xef\xbf\xbf";
    check_string(all, all_want, sizeof all_want - 1);
    check_string("\"plain text without escapes, long enough for the kernel scan\"",
                 "plain text without escapes, long enough for the kernel scan", 59);
    check_string("\"a\\nb\"", "a\nb", 3);
    check_string("\"\\u00e9t\\u00e9 \xc3\xa9t\xc3\xa9\"",
                 "\xc3\xa9t\xc3\xa9 \xc3\xa9t\xc3\xa9", 11);
    check_string("\"\xe6\x97\xa5\xe6\x9c\xac\xf0\x9f\x98\x80\"",
                 "\xe6\x97\xa5\xe6\x9c\xac\xf0\x9f\x98\x80", 10);
    check_string("\"\x7f\"", "\x7f", 1);
    /* a long string with escapes spread over it: through the scratch area
     * (memory) and in place (stream), across chunks */
    sbuf t = {0}, want = {0};
    sb_put(&t, "\"", 1);
    for (int i = 0; i < 3000; i++) {
        sb_printf(&t, "%d\\t\\u00e9\\ud83d\\ude00-", i);
        sb_printf(&want, "%d\t\xc3\xa9\xf0\x9f\x98\x80-", i);
    }
    sb_put(&t, "\"", 1);
    check_string(t.p, want.p, want.len);
    sb_free(&t);
    sb_free(&want);
    /* keys take the same path */
    EXPECT("{\"a\\tb\":\"\\u0041\"}", 0, "0{ 1ka\\x09b 1sA 0] .");
    /* zero-copy: a string without escapes points into the input */
    const char *z = "[\"abc\",\"a\\nb\"]";
    sdx_json_reader *r = sdx_json_reader_new(z, strlen(z), NULL);
    sdx_event ev;
    CHECK(sdx_json_reader_next(r, &ev));
    CHECK(sdx_json_reader_next(r, &ev));
    CHECK(ev.v.str.ptr == z + 2);
    CHECK(sdx_json_reader_next(r, &ev));
    CHECK(ev.v.str.ptr < z || ev.v.str.ptr >= z + strlen(z));
    sdx_json_reader_free(r);
}

TEST(string_errors) {
    EXPECT("\"abc", 0, "!TRUNC@4:1:5");
    EXPECT("\"a\\", 0, "!TRUNC@3:1:4");
    EXPECT("\"\\x\"", 0, "!SYNTAX@2:1:3");
    EXPECT("\"\\'\"", 0, "!SYNTAX@2:1:3");
    EXPECT("\"\\U0041\"", 0, "!SYNTAX@2:1:3");
    EXPECT("\"\\u12\"", 0, "!SYNTAX@5:1:6");
    EXPECT("\"\\u12G4\"", 0, "!SYNTAX@5:1:6");
    EXPECT("\"\\u12", 0, "!TRUNC@5:1:6");
    EXPECT("\"\\u", 0, "!TRUNC@3:1:4");
    EXPECT("\"a\tb\"", 0, "!SYNTAX@2:1:3");
    EXPECT("\"a\nb\"", 0, "!SYNTAX@2:1:3");
    EXPECT("\"a\x01\"", 0, "!SYNTAX@2:1:3");
    EXPECT("\"\\n\x1f\"", 0, "!SYNTAX@3:1:4");
    EXPECT("[\"a\x00\"]", 0, "0[ !SYNTAX@3:1:4");
    /* lone surrogates: SDX_ERR_UTF8 at the backslash of the first escape */
    EXPECT("\"\\ud800\"", 0, "!UTF8@1:1:2");
    EXPECT("\"\\udc00\"", 0, "!UTF8@1:1:2");
    EXPECT("\"\\udfff\"", 0, "!UTF8@1:1:2");
    EXPECT("\"ab\\ud800\\u0041\"", 0, "!UTF8@3:1:4");
    EXPECT("\"\\ud800\\\"\"", 0, "!UTF8@1:1:2");
    EXPECT("\"\\ud800\\n\"", 0, "!UTF8@1:1:2");
    EXPECT("\"\\ud800x\"", 0, "!UTF8@1:1:2");
    EXPECT("\"\\ud800\\udbff\"", 0, "!UTF8@1:1:2");
    EXPECT("\"\\ud800\\ue000\"", 0, "!UTF8@1:1:2");
    EXPECT("\"\\ud800\"", 0, "!UTF8@1:1:2");
    EXPECT("\"\\ud800", 0, "!TRUNC@7:1:8");
    EXPECT("\"\\ud800\\", 0, "!TRUNC@8:1:9");
    EXPECT("\"\\ud800\\u", 0, "!TRUNC@9:1:10");
    EXPECT("\"\\ud800\\udc", 0, "!TRUNC@11:1:12");
    EXPECT("\"\\ud800\\udcx0\"", 0, "!SYNTAX@11:1:12");
    EXPECT("[\"\\ud83d\\ude00\",\"\\ude00\"]", 0, "0[ 1s\\xf0\\x9f\\x98\\x80 !UTF8@17:1:18");
    /* invalid UTF-8, raw: at the first byte of the ill-formed sequence */
    EXPECT("[\"\xff\"]", 0, "0[ !UTF8@2:1:3");
    EXPECT("[\"a\xc3\"]", 0, "0[ !UTF8@3:1:4");
    EXPECT("[\"a\xe0\x80\x80\"]", 0, "0[ !UTF8@3:1:4");
    EXPECT("\"\xed\xa0\x80\"", 0, "!UTF8@1:1:2");
    EXPECT("\"\xf4\x90\x80\x80\"", 0, "!UTF8@1:1:2");
    EXPECT("\"\xc0\xaf\"", 0, "!UTF8@1:1:2");
    EXPECT("\"\xf8\x88\x80\x80\x80\"", 0, "!UTF8@1:1:2");
    EXPECT("\"ok\" \xff", 0, "0sok !UTF8@5:1:6");
    /* before the string ends, invalid UTF-8 wins over a later control byte,
     * and a control byte before it wins over it */
    EXPECT("\"\xff\x01\"", 0, "!UTF8@1:1:2");
    EXPECT("\"\x01\xff\"", 0, "!SYNTAX@1:1:2");
    EXPECT("\"\\q\xff\"", 0, "!SYNTAX@2:1:3");
    /* an escape that runs into an invalid byte: the byte */
    EXPECT("\"\\u12\xff\"", 0, "!UTF8@5:1:6");
    EXPECT("\"\\\xff\"", 0, "!UTF8@2:1:3");
    EXPECT("\"\\ud800\xff\"", 0, "!UTF8@7:1:8");
    EXPECT("\"\\ud800\\\xff\"", 0, "!UTF8@8:1:9");
    /* the input ends inside a character of a string: the end of input */
    EXPECT("[\"a\xc3", 0, "0[ !TRUNC@4:1:5");
    EXPECT("[\"a\xe2\x82", 0, "0[ !TRUNC@5:1:6");
    EXPECT("[\"a\xf0\x9f\x98", 0, "0[ !TRUNC@6:1:7");
    EXPECT("[\"a\xe0\x80", 0, "0[ !UTF8@3:1:4"); /* not the start of any character */
    EXPECT("[\"a\xc3" "a", 0, "0[ !UTF8@3:1:4");
    /* outside strings, non-ASCII is an error: SYNTAX for a character,
     * UTF8 for an ill-formed sequence, even at the end */
    EXPECT("[\xc3\xa9]", 0, "0[ !SYNTAX@1:1:2");
    EXPECT("[\xff]", 0, "0[ !UTF8@1:1:2");
    EXPECT("[1,\xe2", 0, "0[ 1i1 !UTF8@3:1:4");
    EXPECT("[1] \xff", 0, "0[ 1i1 0] !UTF8@4:1:5");
    EXPECT("\xe9", 0, "!UTF8@0:1:1");
    EXPECT("[a\xe5]", 0, "0[ !SYNTAX@1:1:2");
    EXPECT("[1\xe5]", 0, "0[ 1i1 !UTF8@2:1:3");
    EXPECT("[1e1\xe5]", 0, "0[ 1d10 !UTF8@4:1:5");
    EXPECT("[1e\xe5]", 0, "0[ !UTF8@3:1:4");
    EXPECT("[tr\xe5]", 0, "0[ !UTF8@3:1:4");
}

TEST(utf8_every_position) {
    /* a body of characters of every length, each byte replaced in turn by
     * bytes around every boundary of table 3-7 */
    static const unsigned char body[] = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80z"
                                        "\xed\x9f\xbf\xf4\x8f\xbf\xbf";
    const size_t n = sizeof body - 1;
    static const unsigned char repl[] = {0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f,
                                         0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0,
                                         0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff};
    size_t cases = 0;
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < sizeof repl; k++) {
            unsigned char b[64];
            b[0] = '[', b[1] = '"';
            memcpy(b + 2, body, n);
            b[2 + i] = repl[k];
            b[2 + n] = '"', b[3 + n] = ']';
            const size_t len = n + 4;
            char want[256];
            size_t bad = ref_valid_prefix(b + 2, n);
            if (repl[k] < 0x20) snprintf(want, sizeof want, "0[ !SYNTAX@%zu:1:%zu", 2 + i, 3 + i);
            if (repl[k] < 0x20 && bad > i) {
                /* the control byte comes first */
            } else if (bad == n) {
                sbuf w = {0};
                sb_put(&w, "0[ 1s", 5);
                sb_bytes(&w, (const char *)b + 2, n);
                sb_put(&w, " 0] .", 5);
                snprintf(want, sizeof want, "%s", w.p);
                sb_free(&w);
            } else {
                snprintf(want, sizeof want, "0[ !UTF8@%zu:1:%zu", 2 + bad, 3 + bad);
            }
            expect_full((const char *)b, len, 0, 0, want, __LINE__);
            cases++;
        }
    }
    CHECK(cases == n * sizeof repl);
}

/* ------------------------------------------------------------------------ */
/* Errors: code, offset, line and column                                     */
/* ------------------------------------------------------------------------ */

TEST(errors) {
    /* the end of input inside a value */
    EXPECT("", 0, "!TRUNC@0:1:1");
    EXPECT("   ", 0, "!TRUNC@3:1:4");
    EXPECT("\n\n", 0, "!TRUNC@2:3:1");
    EXPECT("[", 0, "0[ !TRUNC@1:1:2");
    EXPECT("[1", 0, "0[ 1i1 !TRUNC@2:1:3");
    EXPECT("[1,", 0, "0[ 1i1 !TRUNC@3:1:4");
    EXPECT("[1, ", 0, "0[ 1i1 !TRUNC@4:1:5");
    EXPECT("{", 0, "0{ !TRUNC@1:1:2");
    EXPECT("{\"a\"", 0, "0{ 1ka !TRUNC@4:1:5");
    EXPECT("{\"a\":", 0, "0{ 1ka !TRUNC@5:1:6");
    EXPECT("{\"a\":1", 0, "0{ 1ka 1i1 !TRUNC@6:1:7");
    EXPECT("{\"a\":1,", 0, "0{ 1ka 1i1 !TRUNC@7:1:8");
    EXPECT("{\"a", 0, "0{ !TRUNC@3:1:4");
    EXPECT("[[[]]", 0, "0[ 1[ 2[ 2] 1] !TRUNC@5:1:6");
    EXPECT("nul", 0, "!TRUNC@3:1:4");
    EXPECT("t", 0, "!TRUNC@1:1:2");
    EXPECT("fals", 0, "!TRUNC@4:1:5");
    EXPECT("[tr", 0, "0[ !TRUNC@3:1:4");
    EXPECT("-", 0, "!TRUNC@1:1:2");
    EXPECT("1.", 0, "!TRUNC@2:1:3");
    EXPECT("1e", 0, "!TRUNC@2:1:3");
    EXPECT("1e+", 0, "!TRUNC@3:1:4");
    EXPECT("[-", 0, "0[ !TRUNC@2:1:3");
    EXPECT("[1.5e-", 0, "0[ !TRUNC@6:1:7");
    /* an unexpected byte */
    EXPECT("[1,]", 0, "0[ 1i1 !SYNTAX@3:1:4");
    EXPECT("[,1]", 0, "0[ !SYNTAX@1:1:2");
    EXPECT("[,]", 0, "0[ !SYNTAX@1:1:2");
    EXPECT("[1,,]", 0, "0[ 1i1 !SYNTAX@3:1:4");
    EXPECT("[1 2]", 0, "0[ 1i1 !SYNTAX@3:1:4");
    EXPECT("[1:2]", 0, "0[ 1i1 !SYNTAX@2:1:3");
    EXPECT("{\"a\" 1}", 0, "0{ 1ka !SYNTAX@5:1:6");
    EXPECT("{\"a\",1}", 0, "0{ 1ka !SYNTAX@4:1:5");
    EXPECT("{1:2}", 0, "0{ !SYNTAX@1:1:2");
    EXPECT("{'a':2}", 0, "0{ !SYNTAX@1:1:2");
    EXPECT("{a:2}", 0, "0{ !SYNTAX@1:1:2");
    EXPECT("{\"a\":1,}", 0, "0{ 1ka 1i1 !SYNTAX@7:1:8");
    EXPECT("{\"a\":1,,}", 0, "0{ 1ka 1i1 !SYNTAX@7:1:8");
    EXPECT("{\"a\":1 \"b\":2}", 0, "0{ 1ka 1i1 !SYNTAX@7:1:8");
    EXPECT("{\"a\":}", 0, "0{ 1ka !SYNTAX@5:1:6");
    EXPECT("{,}", 0, "0{ !SYNTAX@1:1:2");
    EXPECT("[}", 0, "0[ !SYNTAX@1:1:2");
    EXPECT("{]", 0, "0{ !SYNTAX@1:1:2");
    EXPECT("[1}", 0, "0[ 1i1 !SYNTAX@2:1:3");
    EXPECT("{\"a\":1]", 0, "0{ 1ka 1i1 !SYNTAX@6:1:7");
    EXPECT("]", 0, "!SYNTAX@0:1:1");
    EXPECT("}", 0, "!SYNTAX@0:1:1");
    EXPECT(":", 0, "!SYNTAX@0:1:1");
    EXPECT("'a'", 0, "!SYNTAX@0:1:1");
    EXPECT("nan", 0, "!SYNTAX@1:1:2");
    EXPECT("NaN", 0, "!SYNTAX@0:1:1");
    EXPECT("Infinity", 0, "!SYNTAX@0:1:1");
    EXPECT("-Infinity", 0, "!SYNTAX@1:1:2");
    EXPECT("/**/1", 0, "!SYNTAX@0:1:1");
    EXPECT("[1]//", 0, "0[ 1i1 0] !SYNTAX@3:1:4");
    EXPECT("\xef\xbb\xbf[]", 0, "!SYNTAX@0:1:1"); /* a BOM without the option */
    /* literals */
    EXPECT("nulx", 0, "!SYNTAX@3:1:4");
    EXPECT("[tru]", 0, "0[ !SYNTAX@4:1:5");
    EXPECT("falsy", 0, "!SYNTAX@4:1:5");
    EXPECT("True", 0, "!SYNTAX@0:1:1");
    EXPECT("nULL", 0, "!SYNTAX@1:1:2");
    /* numbers */
    EXPECT("[-]", 0, "0[ !SYNTAX@2:1:3");
    EXPECT("[-a]", 0, "0[ !SYNTAX@2:1:3");
    EXPECT("[1.e5]", 0, "0[ !SYNTAX@3:1:4");
    EXPECT("[1.]", 0, "0[ !SYNTAX@3:1:4");
    EXPECT("[1e]", 0, "0[ !SYNTAX@3:1:4");
    EXPECT("[1e+]", 0, "0[ !SYNTAX@4:1:5");
    EXPECT("[.5]", 0, "0[ !SYNTAX@1:1:2");
    EXPECT("[+1]", 0, "0[ !SYNTAX@1:1:2");
    EXPECT("[1.5.3]", 0, "0[ 1d1.5 !SYNTAX@4:1:5");
    EXPECT("[0x1]", 0, "0[ 1i0 !SYNTAX@2:1:3");
    EXPECT("[1-2]", 0, "0[ 1i1 !SYNTAX@2:1:3");
    EXPECT("[2e3e4]", 0, "0[ 1d2000 !SYNTAX@4:1:5");
    EXPECT("[- 1]", 0, "0[ !SYNTAX@2:1:3");
    EXPECT("[1,-]", 0, "0[ 1i1 !SYNTAX@4:1:5");
    /* content after the value */
    EXPECT("1 2", 0, "0i1 !SYNTAX@2:1:3");
    EXPECT("123abc", 0, "0i123 !SYNTAX@3:1:4");
    EXPECT("truefalse", 0, "0t !SYNTAX@4:1:5");
    EXPECT("[] []", 0, "0[ 0] !SYNTAX@3:1:4");
    EXPECT("[1]x", 0, "0[ 1i1 0] !SYNTAX@3:1:4");
    EXPECT("{}}", 0, "0{ 0] !SYNTAX@2:1:3");
    EXPECT("\"a\"\"b\"", 0, "0sa !SYNTAX@3:1:4");
    EXPECT("1 \n \n ,", 0, "0i1 !SYNTAX@6:3:2");
    /* lines and columns: lines end at line feeds, columns count bytes */
    EXPECT("\n\n  x", 0, "!SYNTAX@4:3:3");
    EXPECT("[\n1,\n2\n,]", 0, "0[ 1i1 1i2 !SYNTAX@8:4:2");
    EXPECT("\r\n[\r\n x]", 0, "0[ !SYNTAX@6:3:2");
    EXPECT("[\"\xc3\xa9\xc3\xa9\", x]", 0, "0[ 1s\\xc3\\xa9\\xc3\\xa9 !SYNTAX@9:1:10");
    EXPECT("{\n\t\"a\": [\n\t\t1,\n\t\ttrue,\n\t\tnul\n\t]\n}", 0,
           "0{ 1ka 1[ 2i1 2t !SYNTAX@28:5:6");
    EXPECT("[\"a\\nb\",\n\"c\nd\"]", 0, "0[ 1sa\\x0ab !SYNTAX@11:2:3");
    /* depth: at the bracket that opens the level too deep */
    EXPECT_DEPTH("[[[]]]", 2, "0[ 1[ !DEPTH@2:1:3");
    EXPECT_DEPTH("[[]]", 2, "0[ 1[ 1] 0] .");
    EXPECT_DEPTH("{\"a\":{\"b\":[1]}}", 2, "0{ 1ka 1{ 2kb !DEPTH@10:1:11");
    EXPECT_DEPTH("[1,[2,[3]]]", 1, "0[ 1i1 !DEPTH@3:1:4");
    EXPECT_DEPTH("{}", 1, "0{ 0] .");
    /* the first error in document order wins */
    EXPECT_DEPTH("[[x", 1, "0[ !DEPTH@1:1:2");
    EXPECT_DEPTH("[x[", 1, "0[ !SYNTAX@1:1:2");
}

/* ------------------------------------------------------------------------ */
/* Options                                                                   */
/* ------------------------------------------------------------------------ */

TEST(options) {
    const uint32_t C = SDX_JSON_READ_COMMENTS, T = SDX_JSON_READ_TRAILING_COMMAS,
                   N = SDX_JSON_READ_NAN_INF, B = SDX_JSON_READ_BOM,
                   S = SDX_JSON_READ_STOP_AFTER_VALUE;
    /* comments wherever whitespace may be */
    EXPECT("/**/1", C, "0i1 .");
    EXPECT("//x\n1//y", C, "0i1 .");
    EXPECT("/* a */ [ /* b */ 1 /* c */ , // d\n 2 /**/ ] /* e */", C, "0[ 1i1 1i2 0] .");
    EXPECT("{/*a*/\"k\"/*b*/:/*c*/1/*d*/,/*e*/\"l\"//f\n://g\n2/*h*/}", C,
           "0{ 1kk 1i1 1kl 1i2 0] .");
    EXPECT("[/**//**/]", C, "0[ 0] .");
    EXPECT("[1/***/]", C, "0[ 1i1 0] .");
    EXPECT("[1/* ** * / */]", C, "0[ 1i1 0] .");
    EXPECT("1/*\n\xc3\xa9\n*/", C, "0i1 .");
    EXPECT("1//\xc3\xa9", C, "0i1 .");
    EXPECT("/*", C, "!TRUNC@2:1:3");
    EXPECT("/* *", C, "!TRUNC@4:1:5");
    EXPECT("/", C, "!TRUNC@1:1:2");
    EXPECT("[1,/", C, "0[ 1i1 !TRUNC@4:1:5");
    EXPECT("/x", C, "!SYNTAX@0:1:1");
    EXPECT("[1 /x]", C, "0[ 1i1 !SYNTAX@3:1:4");
    EXPECT("//c\n", C, "!TRUNC@4:2:1");
    EXPECT("[1,/*c*/]", C, "0[ 1i1 !SYNTAX@8:1:9");
    EXPECT("1 /*\xe2", C, "0i1 !TRUNC@5:1:6");
    EXPECT("1 //\xe2\x82", C, "0i1 !TRUNC@6:1:7");
    EXPECT("1 //\xff\n", C, "0i1 !UTF8@4:1:5");
    EXPECT("1 /*\xff*/", C, "0i1 !UTF8@4:1:5");
    EXPECT("/\xff", C, "!UTF8@1:1:2");
    EXPECT("[1//\n,2]", C, "0[ 1i1 1i2 0] .");
    /* trailing commas */
    EXPECT("[1,]", T, "0[ 1i1 0] .");
    EXPECT("[[],]", T, "0[ 1[ 1] 0] .");
    EXPECT("{\"a\":1,}", T, "0{ 1ka 1i1 0] .");
    EXPECT("[,]", T, "0[ !SYNTAX@1:1:2");
    EXPECT("{,}", T, "0{ !SYNTAX@1:1:2");
    EXPECT("[1,,]", T, "0[ 1i1 !SYNTAX@3:1:4");
    EXPECT("{\"a\":1,,}", T, "0{ 1ka 1i1 !SYNTAX@7:1:8");
    EXPECT("[1,/**/]", T | C, "0[ 1i1 0] .");
    EXPECT("[1,", T, "0[ 1i1 !TRUNC@3:1:4");
    /* NaN and the infinities */
    EXPECT("[NaN,Infinity,-Infinity]", N, "0[ 1dnan 1dinf 1d-inf 0] .");
    EXPECT("{\"a\":NaN}", N, "0{ 1ka 1dnan 0] .");
    EXPECT("-Infinity", N, "0d-inf .");
    EXPECT("-NaN", N, "!SYNTAX@1:1:2");
    EXPECT("Inf", N, "!TRUNC@3:1:4");
    EXPECT("Infinit", N, "!TRUNC@7:1:8");
    EXPECT("-Inf", N, "!TRUNC@4:1:5");
    EXPECT("-Infinityx", N, "0d-inf !SYNTAX@9:1:10");
    EXPECT("NaNa", N, "0dnan !SYNTAX@3:1:4");
    EXPECT("Nab", N, "!SYNTAX@2:1:3");
    EXPECT("[-I]", N, "0[ !SYNTAX@3:1:4");
    EXPECT("nan", N, "!SYNTAX@1:1:2");
    /* the byte-order mark */
    EXPECT("\xef\xbb\xbf[1]", B, "0[ 1i1 0] .");
    EXPECT("[1]", B, "0[ 1i1 0] .");
    EXPECT("\xef\xbb\xbf", B, "!TRUNC@3:1:4");
    EXPECT("\xef\xbb\xbf[x", B, "0[ !SYNTAX@4:1:5");
    EXPECT("\xef\xbb\xbf\xef\xbb\xbf[]", B, "!SYNTAX@3:1:4");
    EXPECT("\xef\xbb", B, "!UTF8@0:1:1");
    EXPECT("\xef\xbb{}", B, "!UTF8@0:1:1");
    EXPECT(" \xef\xbb\xbf[]", B, "!SYNTAX@1:1:2");
    EXPECT("\xef\xbb\xbf", S | B, ".");
    /* copying the input is the parser's: ignored */
    EXPECT("[\"a\"]", SDX_JSON_READ_COPY_INPUT, "0[ 1sa 0] .");
    /* all at once */
    EXPECT("\xef\xbb\xbf/*c*/[NaN,1,]//x", C | T | N | B, "0[ 1dnan 1i1 0] .");
}

TEST(sequences) {
    const uint32_t S = SDX_JSON_READ_STOP_AFTER_VALUE, C = SDX_JSON_READ_COMMENTS;
    EXPECT("1 2 3", S, "0i1 0i2 0i3 .");
    EXPECT("", S, ".");
    EXPECT(" \n ", S, ".");
    EXPECT("[1][2]", S, "0[ 1i1 0] 0[ 1i2 0] .");
    EXPECT("{}\n{\"a\":1}\n", S, "0{ 0] 0{ 1ka 1i1 0] .");
    EXPECT("{\"a\":[1,{\"b\":null}]}\n{\"a\":[]}\r\n\"s\"\ntrue\n-1.5\n", S,
           "0{ 1ka 1[ 2i1 2{ 3kb 3n 2] 1] 0] 0{ 1ka 1[ 1] 0] 0ss 0t 0d-1.5 .");
    EXPECT("\"a\"\"b\"", S, "0sa 0sb .");
    EXPECT("\"a\"1[]{}", S, "0sa 0i1 !SYNTAX@4:1:5");
    EXPECT("[]1", S, "0[ 0] 0i1 .");
    EXPECT("1\"a\"", S, "0i1 !SYNTAX@1:1:2");
    EXPECT("true[1]", S, "0t !SYNTAX@4:1:5");
    EXPECT("null{}", S, "0n !SYNTAX@4:1:5");
    EXPECT("1,2", S, "0i1 !SYNTAX@1:1:2");
    EXPECT("1 ,2", S, "0i1 !SYNTAX@2:1:3");
    EXPECT("1]", S, "0i1 !SYNTAX@1:1:2");
    EXPECT("1 [1,] 3", S, "0i1 0[ 1i1 !SYNTAX@5:1:6");
    EXPECT("{\"a\":1}\n{\"a\":}\n{\"a\":3}\n", S, "0{ 1ka 1i1 0] 0{ 1ka !SYNTAX@13:2:6");
    EXPECT("[1] x", S, "0[ 1i1 0] !SYNTAX@4:1:5");
    EXPECT("1 \xff", S, "0i1 !UTF8@2:1:3");
    EXPECT("1 [", S, "0i1 0[ !TRUNC@3:1:4");
    EXPECT("1 \"ab", S, "0i1 !TRUNC@5:1:6");
    EXPECT("12", S, "0i12 .");
    EXPECT("1/*c*/2//d\n3", S | C, "0i1 0i2 0i3 .");
    EXPECT("1/", S | C, "0i1 !TRUNC@2:1:3");
}

/* ------------------------------------------------------------------------ */
/* Streams over the corpus                                                   */
/* ------------------------------------------------------------------------ */

TEST(stream_corpus) {
    for (size_t d = 0; d < NCORPUS; d++) {
        size_t len;
        char *t = read_corpus(corpus_names[d], &len);
        if (!CHECK(t != NULL)) continue;
        sbuf mem = {0};
        read_mem(&mem, t, len, NULL);
        CHECK(mem.len > 2 && mem.p[mem.len - 1] == '.');
        for (size_t c = 0; c <= NCHUNKS; c++) {
            sbuf s = {0};
            if (c < NCHUNKS) read_stream(&s, t, len, NULL, chunk_sizes[c], chunk_sizes[c]);
            else read_stream(&s, t, len, NULL, 1000, 0); /* short reads */
            if (!CHECK_EQ_U64(s.len, mem.len) || !CHECK(memcmp(s.p, mem.p, mem.len) == 0))
                fprintf(stderr, "  %s, chunk %zu: the stream's events differ\n", corpus_names[d],
                        c < NCHUNKS ? chunk_sizes[c] : (size_t)0);
            sb_free(&s);
        }
        /* the same as a sequence of one value, with every option on */
        sbuf seq = {0}, all = {0};
        sdx_json_read_opts o = {SDX_JSON_READ_STOP_AFTER_VALUE, 0, NULL};
        read_mem(&seq, t, len, &o);
        CHECK(seq.len == mem.len && memcmp(seq.p, mem.p, mem.len) == 0);
        o.flags = SDX_JSON_READ_COMMENTS | SDX_JSON_READ_TRAILING_COMMAS | SDX_JSON_READ_NAN_INF |
                  SDX_JSON_READ_BOM;
        read_stream(&all, t, len, &o, 3, 3);
        CHECK(all.len == mem.len && memcmp(all.p, mem.p, mem.len) == 0);
        sb_free(&seq);
        sb_free(&all);
        /* an error near the end: its line and column after a whole
         * document of line feeds counted across chunks */
        size_t at = len - 1;
        while (at > 0 && t[at] != ',') at--;
        t[at] = '#';
        size_t line = 1, line_start = 0;
        for (size_t i = 0; i < at; i++)
            if (t[i] == '\n') line++, line_start = i + 1;
        char want[96];
        snprintf(want, sizeof want, "!SYNTAX@%zu:%zu:%zu", at, line, at - line_start + 1);
        for (size_t c = 0; c <= NCHUNKS; c++) {
            sbuf e = {0};
            if (c < NCHUNKS) read_stream(&e, t, len, NULL, chunk_sizes[c], chunk_sizes[c]);
            else read_mem(&e, t, len, NULL);
            const char *bang = strrchr(e.p, '!');
            if (!CHECK(bang && strcmp(bang, want) == 0))
                fprintf(stderr, "  %s: %s, want %s\n", corpus_names[d], bang ? bang : e.p, want);
            sb_free(&e);
        }
        sb_free(&mem);
        free(t);
    }
}

/* The events of the corpus with every SIMD kernel this CPU runs are the
 * scalar kernel's. */
TEST(simd_levels) {
    const sdx_simd_level was = sdx_simd_active()->level;
    for (size_t d = 0; d < NCORPUS; d++) {
        size_t len;
        char *t = read_corpus(corpus_names[d], &len);
        if (!CHECK(t != NULL)) continue;
        sdx_simd_select(SDX_SIMD_SCALAR);
        sbuf ref = {0};
        read_mem(&ref, t, len, NULL);
        for (int l = 1; l < SDX_SIMD__COUNT; l++) {
            if (!sdx_simd_kernels_for((sdx_simd_level)l)) continue;
            if (sdx_simd_select((sdx_simd_level)l) != (sdx_simd_level)l) continue;
            sbuf m = {0}, s = {0};
            read_mem(&m, t, len, NULL);
            read_stream(&s, t, len, NULL, 7, 7);
            CHECK(m.len == ref.len && memcmp(m.p, ref.p, m.len) == 0);
            CHECK(s.len == ref.len && memcmp(s.p, ref.p, s.len) == 0);
            sb_free(&m);
            sb_free(&s);
        }
        sb_free(&ref);
        free(t);
    }
    sdx_simd_select(was);
}

/* ------------------------------------------------------------------------ */
/* Memory bound of a stream                                                  */
/* ------------------------------------------------------------------------ */

/* A counting allocator that also keeps the peak of live bytes. */
typedef struct peak_alloc {
    counting_alloc c;
    size_t peak;
    sdx_alloc iface;
} peak_alloc;

static void peak_note(peak_alloc *a) {
    if (a->c.live_bytes > a->peak) a->peak = a->c.live_bytes;
}
static void *pa_malloc(void *ctx, size_t n) {
    peak_alloc *a = ctx;
    void *p = a->c.iface.malloc(&a->c, n);
    peak_note(a);
    return p;
}
static void *pa_realloc(void *ctx, void *p, size_t o, size_t n) {
    peak_alloc *a = ctx;
    void *q = a->c.iface.realloc(&a->c, p, o, n);
    peak_note(a);
    return q;
}
static void pa_free(void *ctx, void *p) {
    peak_alloc *a = ctx;
    a->c.iface.free(&a->c, p);
}
static void peak_alloc_init(peak_alloc *a) {
    counting_alloc_init(&a->c, 0);
    a->peak = 0;
    a->iface = (sdx_alloc){pa_malloc, pa_realloc, pa_free, a};
}

/* A generated document of about `size` bytes, made on the fly: an array of
 * records with numbers, literals, strings with escapes and non-ASCII text,
 * and (if `big`) one string of `big` bytes in the middle, with an escape
 * every 64 bytes. */
typedef struct gen_stream {
    uint64_t size, made;
    size_t big, big_left;
    int phase; /* 0 records, 1 the long string, 2 done */
    char rec[512];
    size_t rec_len, rec_pos;
    uint64_t n;
} gen_stream;

static void gen_record(gen_stream *g) {
    char *p = g->rec;
    *p++ = g->n++ ? ',' : '[';
    p += sprintf(p,
                 "{\"id\":%llu,\"name\":\"item \\\"%llu\\\" caf\xc3\xa9 \\u00e9\\ud83d\\ude00\","
                 "\n  \"vals\":[%llu.%03u,-%llue-3,true,false,null,\"\"],\"neg\":-%llu}",
                 (unsigned long long)(g->n * 2654435761u), (unsigned long long)g->n,
                 (unsigned long long)(g->n % 100000), (unsigned)(g->n % 1000),
                 (unsigned long long)(g->n % 977), (unsigned long long)g->n);
    g->rec_len = (size_t)(p - g->rec);
    g->rec_pos = 0;
}

/* The longest token of a record (the name string), with room. */
#define GEN_RECORD_TOKEN 64

static size_t gen_read(void *ctx, void *buf, size_t cap) {
    gen_stream *g = ctx;
    char *out = buf;
    size_t n = 0;
    while (n < cap) {
        if (g->rec_pos < g->rec_len) {
            size_t k = g->rec_len - g->rec_pos;
            if (k > cap - n) k = cap - n;
            memcpy(out + n, g->rec + g->rec_pos, k);
            g->rec_pos += k;
            n += k;
            continue;
        }
        if (g->phase == 1) { /* the long string's body, 64 bytes at a time */
            if (!g->big_left) {
                memcpy(g->rec, "\"", 1);
                g->rec_len = 1;
                g->rec_pos = 0;
                g->phase = 0;
                continue;
            }
            size_t k = g->big_left < 64 ? g->big_left : 64;
            memset(g->rec, 'a' + (int)(g->big_left % 26), k);
            if (k >= 2) memcpy(g->rec + k - 2, "\\t", 2);
            g->big_left -= k;
            g->rec_len = k;
            g->rec_pos = 0;
            continue;
        }
        if (g->phase == 2) break;
        if (g->made + n >= g->size) {
            memcpy(g->rec, "]\n", 2);
            g->rec_len = 2;
            g->rec_pos = 0;
            g->phase = 2;
        } else if (g->big && g->made + n >= g->size / 2) {
            memcpy(g->rec, ",\"", 2);
            g->rec_len = 2;
            g->rec_pos = 0;
            g->big_left = g->big;
            g->big = 0;
            g->phase = 1;
        } else {
            gen_record(g);
        }
    }
    g->made += n;
    return n;
}

/* Read a generated document of `size` bytes through a stream of `chunk`
 * bytes: every event arrives, and the reader's memory stays within chunk +
 * 1.5 x the longest token + the reader itself. */
static void check_stream_memory(uint64_t size, size_t big, size_t chunk) {
    peak_alloc a;
    peak_alloc_init(&a);
    gen_stream g;
    memset(&g, 0, sizeof g);
    g.size = size;
    g.big = big;
    sdx_json_read_opts o = {0, 0, &a.iface};
    sdx_json_reader *r = sdx_json_reader_new_stream(gen_read, &g, chunk, &o);
    if (!CHECK(r != NULL)) return;
    const size_t base = a.c.live_bytes; /* the reader and its first chunk */
    sdx_event ev;
    uint64_t events = 0, strings = 0, big_seen = 0;
    while (sdx_json_reader_next(r, &ev)) {
        events++;
        if (ev.kind == SDX_STR) {
            strings++;
            if (ev.v.str.len > 1000) big_seen = ev.v.str.len;
        }
    }
    CHECK_EQ_INT(sdx_json_reader_error(r, NULL), SDX_OK);
    CHECK(events > size / 100);
    const size_t longest = big ? big + 2 : GEN_RECORD_TOKEN;
    if (big) CHECK_EQ_U64(big_seen, big - (big + 63) / 64); /* one \t per 64 bytes */
    CHECK(base >= chunk && base - chunk < 1024);
    const size_t bound = chunk + longest + longest / 2 + (base - chunk);
    if (!CHECK(a.peak <= bound))
        fprintf(stderr, "  peak %zu bytes, bound %zu (chunk %zu, longest token %zu)\n", a.peak,
                bound, chunk, longest);
    if (!big) CHECK(a.peak <= chunk + longest + 1024); /* chunk + token + a small constant */
    printf("  %llu MB through %zu-byte chunks%s: %llu events, peak %zu bytes\n",
           (unsigned long long)(size >> 20), chunk, big ? " with a long string" : "",
           (unsigned long long)events, a.peak);
    sdx_json_reader_free(r);
    CHECK_EQ_U64(a.c.live, 0);
    (void)strings;
}

TEST(stream_memory) {
    check_stream_memory(50u << 20, 0, 64 * 1024);
    check_stream_memory(50u << 20, 0, 4096);
    check_stream_memory(8u << 20, 5u << 20, 64 * 1024);
    check_stream_memory(4u << 20, 300000, 1000);
}

/* ------------------------------------------------------------------------ */
/* Allocation failures                                                       */
/* ------------------------------------------------------------------------ */

/* Read `t` with an allocator that fails at call 1, 2, ... until a run
 * succeeds: every failing run ends in a clean SDX_ERR_NOMEM (or no reader
 * at all) after a prefix of the good run's events, and frees everything. */
static void check_alloc_failures(const char *t, size_t len, uint32_t max_depth, size_t chunk) {
    sbuf good = {0};
    sdx_json_read_opts o = {0, max_depth, NULL};
    if (chunk) read_stream(&good, t, len, &o, chunk, chunk);
    else read_mem(&good, t, len, &o);
    CHECK(good.len && good.p[good.len - 1] == '.');
    long fail_at;
    for (fail_at = 1; fail_at < 10000; fail_at++) {
        counting_alloc a;
        counting_alloc_init(&a, fail_at);
        o.alloc = &a.iface;
        mem_stream s = {t, len, 0, chunk, 1, 0};
        sdx_json_reader *r = chunk ? sdx_json_reader_new_stream(mem_stream_read, &s, chunk, &o)
                                   : sdx_json_reader_new(t, len, &o);
        if (!r) {
            CHECK_EQ_U64(a.live, 0);
            continue;
        }
        sbuf got = {0};
        drain(&got, r);
        CHECK_EQ_U64(a.live, 0);
        if (got.p[got.len - 1] == '.') {
            CHECK(got.len == good.len && memcmp(got.p, good.p, good.len) == 0);
            sb_free(&got);
            break;
        }
        const char *bang = strrchr(got.p, '!');
        size_t prefix = (size_t)(bang - got.p);
        CHECK(strncmp(bang, "!NOMEM@", 7) == 0);
        CHECK(prefix <= good.len && memcmp(got.p, good.p, prefix) == 0);
        sb_free(&got);
    }
    CHECK(fail_at > 1 && fail_at < 10000);
    sb_free(&good);
}

TEST(alloc_failures) {
    /* the scratch area grows for longer and longer escaped strings */
    sbuf t = {0};
    sb_put(&t, "[", 1);
    for (int i = 1; i < 12; i++) {
        sb_put(&t, i > 1 ? ",\"" : "\"", i > 1 ? 2 : 1);
        for (int k = 0; k < (1 << i); k++) sb_put(&t, k % 7 ? "x" : "\\n", k % 7 ? 1 : 2);
        sb_put(&t, "\"", 1);
    }
    sb_put(&t, "]", 1);
    check_alloc_failures(t.p, t.len, 0, 0);
    check_alloc_failures(t.p, t.len, 0, 16); /* the stream buffer grows */
    sb_free(&t);
    /* the nesting stack grows beyond the inline levels */
    sbuf deep = {0};
    for (int i = 0; i < 5000; i++) sb_put(&deep, i % 2 ? "{\"k\":" : "[", i % 2 ? 5 : 1);
    sb_put(&deep, "0", 1);
    for (int i = 4999; i >= 0; i--) sb_put(&deep, i % 2 ? "}" : "]", 1);
    check_alloc_failures(deep.p, deep.len, 6000, 0);
    check_alloc_failures(deep.p, deep.len, 6000, 4096);
    sb_free(&deep);
    /* the clone hook: the copy, or its scratch area, cannot be allocated */
    const char *c = "[\"a\\n\",[[1]]]";
    int no_clone = 0, nomem = 0, done = 0;
    for (long fail_at = 1; fail_at < 20; fail_at++) {
        counting_alloc a;
        counting_alloc_init(&a, 0);
        sdx_json_read_opts o = {0, 0, &a.iface};
        sdx_json_reader *r = sdx_json_reader_new(c, strlen(c), &o);
        a.fail_at = a.calls + fail_at;
        sdx_json_reader *k = sdx_json_reader_clone_truncated(r, 5);
        sbuf got = {0};
        if (k) drain(&got, k);
        sdx_json_reader_free(r);
        CHECK_EQ_U64(a.live, 0);
        if (!k) {
            no_clone++;
        } else if (strcmp(got.p, "0[ !NOMEM@1:1:2") == 0) {
            nomem++;
        } else {
            CHECK_STR(got.p, got.len, "0[ !TRUNC@5:1:6"); /* the prefix ["a\n */
            done++;
        }
        sb_free(&got);
    }
    CHECK(no_clone == 1 && nomem == 1 && done == 17);
}

/* ------------------------------------------------------------------------ */
/* Deep nesting                                                              */
/* ------------------------------------------------------------------------ */

/* `levels` nested arrays, or maps {"a":{"a":...0...}}. */
static char *deep_text(size_t levels, bool map, size_t *len) {
    size_t open = map ? 5 : 1, n = levels * (open + 1) + 1;
    char *t = malloc(n + 1);
    if (!t) abort();
    char *p = t;
    for (size_t i = 0; i < levels; i++) {
        if (map) memcpy(p, "{\"a\":", 5);
        else *p = '[';
        p += open;
    }
    if (map) *p++ = '0';
    memset(p, map ? '}' : ']', levels);
    p += levels;
    *len = (size_t)(p - t);
    return t;
}

/* Read a deep text: its events' depths, and the outcome. */
static void check_deep(size_t levels, bool map, uint32_t max_depth, bool stream) {
    size_t len;
    char *t = deep_text(levels, map, &len);
    sdx_json_read_opts o = {0, max_depth, NULL};
    mem_stream s = {t, len, 0, 0, 3, 0};
    sdx_json_reader *r = stream ? sdx_json_reader_new_stream(mem_stream_read, &s, 4096, &o)
                                : sdx_json_reader_new(t, len, &o);
    const uint32_t limit = max_depth ? max_depth : SDX_JSON_DEFAULT_MAX_DEPTH;
    sdx_event ev;
    size_t opened = 0, closed = 0, bad = 0;
    while (sdx_json_reader_next(r, &ev)) {
        if (ev.kind == (map ? SDX_MAP : SDX_ARRAY)) bad += ev.depth != opened++;
        else if (ev.kind == SDX_END) bad += ev.depth != levels - ++closed;
        else if (ev.kind == SDX_KEY) bad += ev.depth != opened;
        else bad += ev.kind != SDX_INT || ev.depth != levels;
    }
    CHECK_EQ_U64(bad, 0);
    sdx_error e;
    if (levels <= limit) {
        CHECK_EQ_INT(sdx_json_reader_error(r, &e), SDX_OK);
        CHECK_EQ_U64(opened, levels);
        CHECK_EQ_U64(closed, levels);
    } else {
        CHECK_EQ_INT(sdx_json_reader_error(r, &e), SDX_ERR_DEPTH);
        CHECK_EQ_U64(e.offset, (size_t)limit * (map ? 5 : 1));
        CHECK_EQ_U64(opened, limit);
        CHECK_EQ_U64(e.line, 1);
        CHECK_EQ_U64(e.column, e.offset + 1);
    }
    sdx_json_reader_free(r);
    free(t);
}

TEST(deep_nesting) {
    for (int map = 0; map <= 1; map++) {
        check_deep(1000000, map, 0, false);              /* the default limit */
        check_deep(1000000, map, 1000000, false);        /* raised: all of it */
        check_deep(1000000, map, 1000000, true);
        check_deep(1000000, map, 999999, false);
        check_deep(1024, map, 0, false);                 /* the default's boundary */
        check_deep(1025, map, 0, false);
        check_deep(1024, map, 0, true);
        check_deep(1025, map, 0, true);
        for (uint32_t lim = 1; lim <= 130; lim += 1) {   /* around word boundaries */
            check_deep(lim, map, lim, false);
            check_deep(lim + 1, map, lim, false);
        }
        check_deep(5000, map, 5000, false);
        check_deep(5001, map, 5000, true);
    }
    /* a limit of UINT32_MAX grows the stack only as deep as the input goes */
    counting_alloc a;
    counting_alloc_init(&a, 0);
    sdx_json_read_opts o = {0, UINT32_MAX, &a.iface};
    size_t len;
    char *t = deep_text(3000, false, &len);
    sdx_json_reader *r = sdx_json_reader_new(t, len, &o);
    sdx_event ev;
    while (sdx_json_reader_next(r, &ev)) {
    }
    CHECK_EQ_INT(sdx_json_reader_error(r, NULL), SDX_OK);
    CHECK(a.live_bytes < 8192);
    sdx_json_reader_free(r);
    free(t);
}

/* ------------------------------------------------------------------------ */
/* Skipping, offsets, the source interface                                   */
/* ------------------------------------------------------------------------ */

/* Read `t`, skipping after the events whose index is in `at` (a bit set);
 * the dump of what was read. */
static sbuf read_skipping(const char *t, uint64_t at, uint32_t flags) {
    sdx_json_read_opts o = {flags, 0, NULL};
    sdx_json_reader *r = sdx_json_reader_new(t, strlen(t), &o);
    sbuf b = {0};
    sdx_event ev;
    for (int i = 0; sdx_json_reader_next(r, &ev); i++) {
        dump_event(&b, &ev);
        if (i < 64 && (at >> i & 1)) {
            bool ok = sdx_json_reader_skip(r);
            sb_put(&b, ok ? "~ " : "x ", 2);
        }
    }
    dump_outcome(&b, r);
    sdx_json_reader_free(r);
    return b;
}

#define CHECK_SKIP(t, at, flags, want)                   \
    do {                                                 \
        sbuf b_ = read_skipping((t), (at), (flags));     \
        CHECK_STR(b_.p, b_.len, (want));                 \
        sb_free(&b_);                                    \
    } while (0)

TEST(skip) {
    const char *t = "{\"a\":[1,[2,{\"x\":3}],4],\"b\":{\"c\":null},\"d\":5,\"e\":[]}";
    /* after a begin: the rest of the container */
    CHECK_SKIP(t, 1u << 0, 0, "0{ ~ .");
    CHECK_SKIP(t, 1u << 2, 0, "0{ 1ka 1[ ~ 1kb 1{ 2kc 2n 1] 1kd 1i5 1ke 1[ 1] 0] .");
    CHECK_SKIP(t, 1u << 4, 0, "0{ 1ka 1[ 2i1 2[ ~ 2i4 1] 1kb 1{ 2kc 2n 1] 1kd 1i5 1ke 1[ 1] 0] .");
    /* after a key: the member's value, container or scalar */
    CHECK_SKIP(t, 1u << 1, 0, "0{ 1ka ~ 1kb 1{ 2kc 2n 1] 1kd 1i5 1ke 1[ 1] 0] .");
    CHECK_SKIP(t, 1u << 1 | 1u << 2, 0, "0{ 1ka ~ 1kb ~ 1kd 1i5 1ke 1[ 1] 0] .");
    CHECK_SKIP(t, 1u << 1 | 1u << 2 | 1u << 3, 0, "0{ 1ka ~ 1kb ~ 1kd ~ 1ke 1[ 1] 0] .");
    CHECK_SKIP(t, 1u << 1 | 1u << 2 | 1u << 3 | 1u << 4, 0, "0{ 1ka ~ 1kb ~ 1kd ~ 1ke ~ 0] .");
    /* after a scalar or an end: nothing */
    CHECK_SKIP("[1,2]", 1u << 1, 0, "0[ 1i1 ~ 1i2 0] .");
    CHECK_SKIP("[[],2]", 1u << 2, 0, "0[ 1[ 1] ~ 1i2 0] .");
    CHECK_SKIP("[[],2]", 1u << 1, 0, "0[ 1[ ~ 1i2 0] .");
    CHECK_SKIP("[]", 1u << 0, 0, "0[ ~ .");
    /* the skipped part is checked */
    CHECK_SKIP("[[1,2 3],4]", 1u << 1, 0, "0[ 1[ x !SYNTAX@6:1:7");
    CHECK_SKIP("{\"a\":[\"\\ud800\"]}", 1u << 1, 0, "0{ 1ka x !UTF8@7:1:8");
    CHECK_SKIP("[[1,", 1u << 0, 0, "0[ x !TRUNC@4:1:5");
    CHECK_SKIP("[1,x]", 1u << 1, 0, "0[ 1i1 ~ !SYNTAX@3:1:4");
    /* in a sequence */
    CHECK_SKIP("[1,[2]] {\"a\":1} 3", 1u << 0 | 1u << 2, SDX_JSON_READ_STOP_AFTER_VALUE,
               "0[ ~ 0{ 1ka ~ 0] 0i3 .");
    /* after the end or an error */
    sdx_json_reader *r = sdx_json_reader_new("1", 1, NULL);
    sdx_event ev;
    CHECK(sdx_json_reader_next(r, &ev));
    CHECK(!sdx_json_reader_next(r, &ev));
    CHECK(sdx_json_reader_skip(r));
    sdx_json_reader_free(r);
    r = sdx_json_reader_new("x", 1, NULL);
    CHECK(!sdx_json_reader_next(r, &ev));
    CHECK(!sdx_json_reader_skip(r));
    sdx_json_reader_free(r);
}

TEST(offsets) {
    const char *t = " {\"a\" : [1, \"s\\n\"] ,\"b\":true } \n";
    static const uint64_t want[] = {2, 5, 9, 10, 17, 18, 23, 28, 30};
    for (int stream = 0; stream <= 1; stream++) {
        mem_stream s = {t, strlen(t), 0, 2, 0, 0};
        sdx_json_reader *r = stream ? sdx_json_reader_new_stream(mem_stream_read, &s, 2, NULL)
                                    : sdx_json_reader_new(t, strlen(t), NULL);
        CHECK_EQ_U64(sdx_json_reader_offset(r), 0);
        sdx_event ev;
        size_t i = 0;
        while (sdx_json_reader_next(r, &ev)) {
            if (i < sizeof want / sizeof *want) CHECK_EQ_U64(sdx_json_reader_offset(r), want[i]);
            i++;
        }
        CHECK_EQ_U64(i, sizeof want / sizeof *want);
        CHECK_EQ_U64(sdx_json_reader_offset(r), 30); /* not the trailing whitespace */
        sdx_json_reader_free(r);
    }
    /* a sequence: where each value ends; after an error, the last event */
    const char *q = "[1]\n\"x\" 22\n[3,";
    sdx_json_read_opts o = {SDX_JSON_READ_STOP_AFTER_VALUE, 0, NULL};
    sdx_json_reader *r = sdx_json_reader_new(q, strlen(q), &o);
    sdx_event ev;
    static const uint64_t seq[] = {1, 2, 3, 7, 10, 12, 13};
    for (size_t i = 0; i < 7; i++) {
        CHECK(sdx_json_reader_next(r, &ev));
        CHECK_EQ_U64(sdx_json_reader_offset(r), seq[i]);
    }
    CHECK(!sdx_json_reader_next(r, &ev));
    CHECK_EQ_U64(sdx_json_reader_offset(r), 13);
    CHECK_EQ_INT(sdx_json_reader_error(r, NULL), SDX_ERR_TRUNCATED);
    sdx_json_reader_free(r);
}

TEST(source) {
    const char *t = "{\"a\":[1,\"x\"]} x";
    sdx_json_reader *r = sdx_json_reader_new(t, strlen(t), NULL);
    sdx_source src = sdx_json_reader_source(r);
    sbuf b = {0};
    sdx_event ev;
    while (sdx_source_next(src, &ev)) {
        dump_event(&b, &ev);
        CHECK_EQ_U64(sdx_source_offset(src), sdx_json_reader_offset(r));
    }
    CHECK_STR(b.p, b.len, "0{ 1ka 1[ 2i1 2sx 1] 0] ");
    sdx_error e;
    CHECK_EQ_INT(sdx_source_error(src, &e), SDX_ERR_SYNTAX);
    CHECK_EQ_U64(e.offset, 14);
    CHECK_EQ_U64(e.line, 1);
    CHECK_EQ_U64(e.column, 15);
    CHECK_EQ_U64(sdx_source_offset(src), 13);
    sb_free(&b);
    sdx_json_reader_free(r);
    /* a clean end reports SDX_OK with a message */
    r = sdx_json_reader_new("[]", 2, NULL);
    src = sdx_json_reader_source(r);
    while (sdx_source_next(src, &ev)) {
    }
    CHECK_EQ_INT(sdx_source_error(src, &e), SDX_OK);
    CHECK(e.code == SDX_OK && e.msg != NULL);
    sdx_json_reader_free(r);
}

/* ------------------------------------------------------------------------ */
/* Streams: I/O errors, FILE*, bad arguments                                 */
/* ------------------------------------------------------------------------ */

typedef struct failing_stream {
    const char *p;
    size_t len, pos, fail_after;
    bool too_many;
} failing_stream;

static size_t failing_read(void *ctx, void *buf, size_t cap) {
    failing_stream *s = ctx;
    if (s->pos >= s->fail_after) return s->too_many ? cap + 1 : (size_t)-1;
    size_t n = s->len - s->pos;
    if (n > cap) n = cap;
    if (n > s->fail_after - s->pos) n = s->fail_after - s->pos;
    memcpy(buf, s->p + s->pos, n);
    s->pos += n;
    return n;
}

TEST(stream_errors) {
    const char *t = "[1,\n22,333,\"abc\"]";
    for (int too_many = 0; too_many <= 1; too_many++) {
        for (size_t after = 0; after < strlen(t); after++) {
            failing_stream s = {t, strlen(t), 0, after, too_many != 0};
            sdx_json_reader *r = sdx_json_reader_new_stream(failing_read, &s, 4, NULL);
            sdx_event ev;
            while (sdx_json_reader_next(r, &ev)) CHECK(sdx_json_reader_offset(r) <= after);
            sdx_error e;
            CHECK_EQ_INT(sdx_json_reader_error(r, &e), SDX_ERR_IO);
            CHECK_EQ_U64(e.offset, after);
            CHECK(e.line == (after > 3 ? 2u : 1u));
            CHECK(e.msg != NULL);
            CHECK(!sdx_json_reader_next(r, &ev));
            sdx_json_reader_free(r);
        }
    }
    /* no input, no read function */
    sdx_json_reader *r = sdx_json_reader_new(NULL, 3, NULL);
    sdx_event ev;
    CHECK(!sdx_json_reader_next(r, &ev));
    CHECK_EQ_INT(sdx_json_reader_error(r, NULL), SDX_ERR_INVALID_ARG);
    sdx_json_reader_free(r);
    r = sdx_json_reader_new(NULL, 0, NULL);
    CHECK(!sdx_json_reader_next(r, &ev));
    CHECK_EQ_INT(sdx_json_reader_error(r, NULL), SDX_ERR_TRUNCATED);
    sdx_json_reader_free(r);
    r = sdx_json_reader_new_stream(NULL, NULL, 0, NULL);
    CHECK(!sdx_json_reader_next(r, &ev));
    CHECK_EQ_INT(sdx_json_reader_error(r, NULL), SDX_ERR_INVALID_ARG);
    sdx_json_reader_free(r);
    r = sdx_json_reader_new_file(NULL, NULL);
    CHECK(!sdx_json_reader_next(r, &ev));
    CHECK_EQ_INT(sdx_json_reader_error(r, NULL), SDX_ERR_INVALID_ARG);
    sdx_json_reader_free(r);
    sdx_json_reader_free(NULL);
    /* the first buffer cannot be allocated */
    counting_alloc a;
    counting_alloc_init(&a, 2);
    sdx_json_read_opts o = {0, 0, &a.iface};
    CHECK(sdx_json_reader_new_stream(failing_read, NULL, 100, &o) == NULL);
    CHECK_EQ_U64(a.live, 0);
}

TEST(file) {
    size_t len;
    char *t = read_corpus("citm_catalog.json", &len);
    if (!CHECK(t != NULL)) return;
    FILE *f = tmpfile();
    if (!CHECK(f != NULL)) {
        free(t);
        return;
    }
    CHECK(fwrite(t, 1, len, f) == len);
    rewind(f);
    sbuf mem = {0}, file = {0};
    read_mem(&mem, t, len, NULL);
    sdx_json_reader *r = sdx_json_reader_new_file(f, NULL);
    if (CHECK(r != NULL)) drain(&file, r);
    CHECK(mem.len == file.len && memcmp(mem.p, file.p, mem.len) == 0);
    fclose(f);
    sb_free(&mem);
    sb_free(&file);
    free(t);
}

/* ------------------------------------------------------------------------ */
/* Truncation                                                                */
/* ------------------------------------------------------------------------ */

/* Valid documents whose every prefix is checked. */
static const char *const truncation_docs[] = {
    "{\"a\":[1,-2.5e+3,true,false,null,\"x\\ny\\u00e9\\ud83d\\ude00\"],\"b\":{\"c\":{}},\"d\":[]}",
    " [ \"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\" , 12345678901234567890 , 0 ] \n",
    "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"",
    "[-0.000123,7,1e5]",
    "[[[[[\"deep\"]]]]]",
    "{\"\xe6\x97\xa5\xe6\x9c\xac\":\"\xe8\xaa\x9e\"}",
};

/* Every cut of each document: SDX_ERR_TRUNCATED at the cut (or success
 * once the root value is complete), over memory and a stream. */
TEST(truncation) {
    size_t cuts = 0;
    for (size_t d = 0; d < sizeof truncation_docs / sizeof *truncation_docs; d++) {
        const char *t = truncation_docs[d];
        size_t len = strlen(t), end = len;
        while (end && (t[end - 1] == ' ' || t[end - 1] == '\n')) end--;
        sbuf full = {0};
        read_mem(&full, t, len, NULL);
        CHECK(full.p[full.len - 1] == '.');
        for (size_t cut = 0; cut <= len; cut++, cuts++) {
            char want[64];
            if (cut >= end) snprintf(want, sizeof want, ".");
            else snprintf(want, sizeof want, "!TRUNC@%zu:1:%zu", cut, cut + 1);
            for (int stream = 0; stream <= 1; stream++) {
                sbuf b = {0};
                if (stream) read_stream(&b, t, cut, NULL, 3, 3);
                else read_mem(&b, t, cut, NULL);
                const char *outcome = strrchr(b.p, ' ');
                outcome = outcome ? outcome + 1 : b.p;
                if (!CHECK(strcmp(outcome, want) == 0))
                    fprintf(stderr, "  doc %zu cut %zu: %s, want %s\n", d, cut, b.p, want);
                /* the events before it are a prefix of the full document's,
                 * but for the last one, a number that may be cut */
                size_t before = (size_t)(outcome - b.p);
                while (before > 0 && b.p[before - 1] == ' ') before--;
                while (before > 0 && b.p[before - 1] != ' ') before--;
                CHECK(memcmp(b.p, full.p, before) == 0);
                sb_free(&b);
            }
        }
        sb_free(&full);
    }
    printf("  %zu cuts, each over memory and a stream\n", cuts);
}

/* The clone hook: after each event of a document, a clone truncated at
 * every later cut gives exactly the rest of what a fresh reader over that
 * prefix gives. */
static void check_clones(const char *t, size_t len, uint32_t flags, size_t max_cuts) {
    sdx_json_read_opts o = {flags, 0, NULL};
    sdx_json_reader *r = sdx_json_reader_new(t, len, &o);
    sdx_event ev;
    size_t events = 0;
    for (;;) {
        const size_t from = (size_t)sdx_json_reader_offset(r);
        size_t checked = 0;
        for (size_t cut = from; cut <= len && checked < max_cuts; cut++, checked++) {
            sdx_json_reader *c = sdx_json_reader_clone_truncated(r, cut);
            if (!CHECK(c != NULL)) break;
            sbuf got = {0}, fresh = {0};
            drain(&got, c);
            /* a fresh reader over the prefix, less its first `events` events */
            sdx_json_reader *f = sdx_json_reader_new(t, cut, &o);
            for (size_t i = 0; i < events; i++) CHECK(sdx_json_reader_next(f, &ev));
            drain(&fresh, f);
            if (!CHECK(got.len == fresh.len && memcmp(got.p, fresh.p, got.len) == 0))
                fprintf(stderr, "  cut %zu after %zu events: %s, fresh %s\n", cut, events, got.p,
                        fresh.p);
            sb_free(&got);
            sb_free(&fresh);
        }
        if (!sdx_json_reader_next(r, &ev)) break;
        events++;
    }
    CHECK(sdx_json_reader_clone_truncated(r, len + 1) == NULL);
    sdx_json_reader_free(r);
}

TEST(clone_truncated) {
    for (size_t d = 0; d < sizeof truncation_docs / sizeof *truncation_docs; d++)
        check_clones(truncation_docs[d], strlen(truncation_docs[d]), 0, SIZE_MAX);
    check_clones("1 [2] \"x\" {}", 12, SDX_JSON_READ_STOP_AFTER_VALUE, SIZE_MAX);
    check_clones("[1,\xff]", 6, 0, SIZE_MAX);
    check_clones("/* c */ [1, // d\n 2]", 20, SDX_JSON_READ_COMMENTS, SIZE_MAX);
    sbuf deep = {0};
    for (int i = 0; i < 1100; i++) sb_put(&deep, "[", 1);
    for (int i = 0; i < 1100; i++) sb_put(&deep, "]", 1);
    sdx_json_read_opts o = {0, 2000, NULL};
    sdx_json_reader *r = sdx_json_reader_new(deep.p, deep.len, &o);
    sdx_event ev;
    for (int i = 0; i < 1050; i++) sdx_json_reader_next(r, &ev);
    sdx_json_reader *c = sdx_json_reader_clone_truncated(r, deep.len); /* a heap stack */
    size_t n = 0;
    while (sdx_json_reader_next(c, &ev)) n++;
    CHECK_EQ_U64(n, 2200 - 1050);
    CHECK_EQ_INT(sdx_json_reader_error(c, NULL), SDX_OK);
    sdx_json_reader_free(c);
    sdx_json_reader_free(r);
    sb_free(&deep);
    /* not for streams */
    mem_stream s = {"[]", 2, 0, 1, 0, 0};
    r = sdx_json_reader_new_stream(mem_stream_read, &s, 1, NULL);
    CHECK(sdx_json_reader_clone_truncated(r, 0) == NULL);
    sdx_json_reader_free(r);
    /* the first corpus document: the first cuts after every event */
    size_t len;
    char *t = read_corpus("twitter.json", &len);
    if (CHECK(t != NULL)) check_clones(t, len > 20000 ? 20000 : len, 0, 40);
    free(t);
}

/* ------------------------------------------------------------------------ */
/* The inline path (json.h)                                                  */
/* ------------------------------------------------------------------------ */

/* A random token for the inline path's cases and their neighbours:
 * integers of 1 to 20 digits (leading zeros, -0, fractions, exponents),
 * strings of 0 to 40 bytes (escapes, UTF-8, control bytes), literals and
 * their misspellings, whitespace and comments around separators. */
static void gen_scalar(sbuf *b, uint64_t *rng) {
    static const char *const lits[] = {"true", "false", "null", "tru", "nul", "falsy", "NaN",
                                       "-Infinity", "1.5", "2e3", "-0", "0", "01", "-", "-x"};
    static const char *const frags[] = {"a", "Z", " ", "\\n", "\\u00e9", "\xc3\xa9", "\"", "\x01",
                                        "\\", "\xf0\x9f\x98\x80", "7", "\\\""};
    const unsigned k = (unsigned)(test_rand(rng) % 10);
    if (k < 4) {
        const unsigned n = 1 + (unsigned)(test_rand(rng) % 20);
        if (test_rand(rng) % 3 == 0) sb_put(b, "-", 1);
        for (unsigned i = 0; i < n; i++) {
            char c = (char)('0' + test_rand(rng) % 10);
            if (i == 0 && n > 1 && test_rand(rng) % 8) c = (char)('1' + test_rand(rng) % 9);
            sb_put(b, &c, 1);
        }
        if (test_rand(rng) % 10 == 0) {
            const char *f = test_rand(rng) % 2 ? ".25" : "e2";
            sb_put(b, f, strlen(f));
        }
    } else if (k < 8) {
        const unsigned n = (unsigned)(test_rand(rng) % 41);
        const int plain = test_rand(rng) % 4 != 0;
        sb_put(b, "\"", 1);
        for (unsigned i = 0; i < n; i++) {
            if (plain) {
                char c = (char)('a' + test_rand(rng) % 26);
                sb_put(b, &c, 1);
            } else {
                const char *f = frags[test_rand(rng) % (sizeof frags / sizeof *frags)];
                if ((f[0] == '"' || f[0] == '\x01' || (f[0] == '\\' && !f[1])) && test_rand(rng) % 8)
                    f = "q";
                sb_put(b, f, strlen(f));
            }
        }
        sb_put(b, "\"", 1);
    } else {
        const char *l = lits[test_rand(rng) % (sizeof lits / sizeof *lits)];
        if (test_rand(rng) % 4) l = lits[test_rand(rng) % 3];
        sb_put(b, l, strlen(l));
    }
}

/* A separator, sometimes with whitespace (runs of 1 to 40 bytes, around
 * the inline path's limit of 31) or a comment around it. */
static void gen_ws(sbuf *b, uint64_t *rng) {
    const unsigned r = (unsigned)(test_rand(rng) % 16);
    if (r < 3) {
        const unsigned n = 1 + (unsigned)(test_rand(rng) % 40);
        for (unsigned i = 0; i < n; i++) sb_put(b, &" \n\t\r    "[test_rand(rng) % 8], 1);
    } else if (r == 3 && test_rand(rng) % 8 == 0) {
        const char *c = test_rand(rng) % 2 ? "/* c */" : "//x\n";
        sb_put(b, c, strlen(c));
    }
}

static void gen_sep(sbuf *b, uint64_t *rng, const char *sep) {
    gen_ws(b, rng);
    sb_put(b, sep, strlen(sep));
    gen_ws(b, rng);
}

static void gen_value(sbuf *b, uint64_t *rng, unsigned depth) {
    const unsigned k = (unsigned)(test_rand(rng) % 8);
    if (depth >= 9 || k >= 3) {
        gen_scalar(b, rng);
        return;
    }
    const int map = k == 0;
    const unsigned n = (unsigned)(test_rand(rng) % (test_rand(rng) % 4 ? 5 : 20));
    sb_put(b, map ? "{" : "[", 1);
    for (unsigned i = 0; i < n; i++) {
        if (i) gen_sep(b, rng, ",");
        if (map) {
            sbuf key = {0};
            gen_scalar(&key, rng);
            if (key.p[0] != '"' && test_rand(rng) % 16) sb_put(b, "\"k\"", 3);
            else sb_put(b, key.p, key.len);
            sb_free(&key);
            gen_sep(b, rng, ":");
        }
        gen_value(b, rng, depth + 1);
    }
    if (n && test_rand(rng) % 32 == 0) sb_put(b, ",", 1); /* trailing comma */
    sb_put(b, map ? "}" : "]", 1);
}

/* A dump with the offset after every event, through the inline path or
 * the exported function alone. */
static void dump_path(sbuf *b, const char *t, size_t len, const sdx_json_read_opts *o,
                      int use_inline, size_t chunk) {
    mem_stream m = {t, len, 0, chunk, 99, 0};
    sdx_json_reader *r = chunk ? sdx_json_reader_new_stream(mem_stream_read, &m, chunk, o)
                               : sdx_json_reader_new(t, len, o);
    if (!CHECK(r != NULL)) return;
    sdx_event ev;
    while (use_inline ? sdx_json_reader_next(r, &ev) : (sdx_json_reader_next)(r, &ev)) {
        CHECK(ev.tag_kind == SDX_TAG_NONE && ev.tag == 0 && ev.flags == 0);
        dump_event(b, &ev);
        sb_printf(b, "@%llu ", (unsigned long long)sdx_json_reader_offset(r));
    }
    dump_outcome(b, r);
    sdx_json_reader_free(r);
}

/* Random documents, whole, cut short and with a byte changed, under
 * several options and depth limits, over memory and (depth limit 3) over a
 * stream read 200 bytes at a time: the inline path gives every event,
 * offset and error the exported function gives over memory. */
TEST(inline_path) {
    static const uint32_t flags[] = {0, SDX_JSON_READ_TRAILING_COMMAS | SDX_JSON_READ_COMMENTS |
                                            SDX_JSON_READ_NAN_INF | SDX_JSON_READ_BIGNUM_RAW};
    static const uint32_t depths[] = {0, 3, 6};
    uint64_t rng = 0x5eed1234;
    size_t docs = 0, events = 0;
    for (int i = 0; i < 400; i++) {
        sbuf doc = {0};
        sb_put(&doc, "[", 1);
        for (int j = 0; j < 12; j++) {
            if (j) sb_put(&doc, ",", 1);
            gen_value(&doc, &rng, 1);
        }
        sb_put(&doc, "]", 1);
        for (int v = 0; v < 3; v++) {
            size_t len = doc.len;
            char *t = malloc(len ? len : 1);
            if (!CHECK(t != NULL)) break;
            memcpy(t, doc.p, len);
            if (v == 1) len = (size_t)(test_rand(&rng) % (len + 1));
            if (v == 2) t[test_rand(&rng) % len] = "\"[]{},:0-9 \\e.tnx\x80"[test_rand(&rng) % 19];
            for (size_t f = 0; f < 2; f++) {
                for (size_t d = 0; d < 3; d++) {
                    sdx_json_read_opts o = {flags[f], depths[d], NULL};
                    sbuf a = {0}, e = {0};
                    dump_path(&a, t, len, &o, 1, d == 1 ? 200 : 0);
                    dump_path(&e, t, len, &o, 0, 0);
                    if (!CHECK(strcmp(a.p, e.p) == 0))
                        fprintf(stderr, "inline:   %s\nexported: %s\n", a.p, e.p);
                    for (size_t k = 0; k < a.len; k++) events += a.p[k] == '@';
                    sb_free(&a);
                    sb_free(&e);
                }
            }
            docs++;
            free(t);
        }
        sb_free(&doc);
    }
    CHECK(docs == 1200 && events > 100000);
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){{"events", events},
                                  {"inline_path", inline_path},
                                  {"numbers", numbers},
                                  {"strings", strings},
                                  {"string_errors", string_errors},
                                  {"utf8_every_position", utf8_every_position},
                                  {"errors", errors},
                                  {"options", options},
                                  {"sequences", sequences},
                                  {"stream_corpus", stream_corpus},
                                  {"simd_levels", simd_levels},
                                  {"stream_memory", stream_memory},
                                  {"alloc_failures", alloc_failures},
                                  {"deep_nesting", deep_nesting},
                                  {"skip", skip},
                                  {"offsets", offsets},
                                  {"source", source},
                                  {"stream_errors", stream_errors},
                                  {"file", file},
                                  {"truncation", truncation},
                                  {"clone_truncated", clone_truncated},
                                  {0}});
}
