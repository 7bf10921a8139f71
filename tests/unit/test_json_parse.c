/*
 * The JSON tree parser (sdx_json_parse, sdx_json_parse_insitu): values and
 * their types, every read option, errors with code, offset, line and
 * column, the depth limit, where strings live, and allocation failures.
 * The conformance suites (tests/conformance) add JSONTestSuite, the corpus,
 * differential tests against Python and malformed input at scale.
 * The `two_stage_*` tests compare the two-stage parse (structural indexing,
 * src/json/parse.c) with the one-pass parser on every input they make.
 */
#include <math.h>

#include "alloc_test.h"
#include "sbuf.h"
#include "core/doc_internal.h"
#include "json/parse_internal.h"
#include "sdx/sdx.h"
#include "test.h"

#ifndef SDX_CORPUS_DIR
#define SDX_CORPUS_DIR "../shared/corpus"
#endif

/* Parse `text` (strlen) with `flags`, write the document back as minified
 * JSON (NaN and infinities as null) and compare with `want`. */
static int parses_to(const char *text, uint32_t flags, const char *want) {
    sdx_json_read_opts o = {flags, 0, NULL};
    sdx_error e;
    sdx_doc *d = sdx_json_parse(text, strlen(text), &o, &e);
    if (!d) {
        fprintf(stderr, "  %s: error %d at %zu: %s\n", text, (int)e.code, e.offset, e.msg);
        return test_fail_at(__FILE__, __LINE__, "parse failed");
    }
    sdx_buf b;
    sdx_buf_init(&b, NULL);
    sdx_json_writer w;
    sdx_json_write_opts wo = {SDX_JSON_WRITE_NAN_AS_NULL, 0, NULL};
    sdx_json_writer_init(&w, &b, &wo);
    sdx_node_emit(sdx_doc_root(d), sdx_json_writer_sink(&w));
    int ok = CHECK(sdx_json_writer_finish(&w) == SDX_OK) &&
             CHECK_MEM(sdx_buf_data(&b), sdx_buf_len(&b), want, strlen(want));
    sdx_buf_destroy(&b);
    sdx_doc_free(d);
    return ok;
}

/* Parse `n` bytes with `flags` and expect an error with this code, offset,
 * line and column. */
static int fails_opts(const char *text, size_t n, const sdx_json_read_opts *o, sdx_err code,
                      size_t off, size_t line, size_t col) {
    sdx_error e;
    memset(&e, 0, sizeof e);
    sdx_doc *d = sdx_json_parse(text, n, o, &e);
    if (d) {
        sdx_doc_free(d);
        fprintf(stderr, "  input: %.*s\n", (int)n, text);
        return test_fail_at(__FILE__, __LINE__, "parsed, expected an error");
    }
    int ok = CHECK_EQ_INT(e.code, code) && CHECK_EQ_U64(e.offset, off) && CHECK_EQ_U64(e.line, line) &&
             CHECK_EQ_U64(e.column, col) && CHECK(e.msg != NULL && e.msg[0] != '\0');
    if (!ok) fprintf(stderr, "  input: %.*s (message: %s)\n", (int)n, text, e.msg ? e.msg : "-");
    return ok;
}

static int fails_n(const char *text, size_t n, uint32_t flags, sdx_err code, size_t off, size_t line,
                   size_t col) {
    sdx_json_read_opts o = {flags, 0, NULL};
    return fails_opts(text, n, &o, code, off, line, col);
}

static int fails(const char *text, uint32_t flags, sdx_err code, size_t off, size_t line,
                 size_t col) {
    return fails_n(text, strlen(text), flags, code, off, line, col);
}

TEST(scalars_and_containers) {
    parses_to("null", 0, "null");
    parses_to(" true ", 0, "true");
    parses_to("\tfalse\n", 0, "false");
    parses_to("0", 0, "0");
    parses_to("-12", 0, "-12");
    parses_to("\"\"", 0, "\"\"");
    parses_to("[]", 0, "[]");
    parses_to("{}", 0, "{}");
    parses_to("[[],{},[[]],{\"a\":{}}]", 0, "[[],{},[[]],{\"a\":{}}]");
    parses_to(" { \"a\" : [ 1 , 2.5 , \"x\" , null , true , false ] , \"b\" : { } } ", 0,
              "{\"a\":[1,2.5,\"x\",null,true,false],\"b\":{}}");
    parses_to("{\"a\":1,\"a\":2}", 0, "{\"a\":1,\"a\":2}"); /* duplicates kept, in order */
    parses_to("[1e2,1E+2,1e-2,-0.0,0.5]", 0, "[100.0,100.0,0.01,-0.0,0.5]");
}

TEST(number_types) {
    static const char text[] =
        "[0,-1,9223372036854775807,-9223372036854775808,9223372036854775808,"
        "18446744073709551615,18446744073709551616,-9223372036854775809,1.0,-0]";
    sdx_doc *d = sdx_json_parse(text, sizeof text - 1, NULL, NULL);
    if (!CHECK(d != NULL)) return;
    sdx_node r = sdx_doc_root(d);
    CHECK_EQ_U64(sdx_node_len(r), 10);
    static const sdx_type want[] = {SDX_TYPE_INT,    SDX_TYPE_INT,    SDX_TYPE_INT,
                                    SDX_TYPE_INT,    SDX_TYPE_UINT,   SDX_TYPE_UINT,
                                    SDX_TYPE_DOUBLE, SDX_TYPE_DOUBLE, SDX_TYPE_DOUBLE,
                                    SDX_TYPE_DOUBLE};
    for (unsigned i = 0; i < 10; i++) CHECK_EQ_INT(sdx_node_type(sdx_node_index(r, i)), want[i]);
    CHECK(sdx_node_int(sdx_node_index(r, 2)) == INT64_MAX);
    CHECK(sdx_node_int(sdx_node_index(r, 3)) == INT64_MIN);
    CHECK(sdx_node_uint(sdx_node_index(r, 4)) == (uint64_t)INT64_MAX + 1);
    CHECK(sdx_node_uint(sdx_node_index(r, 5)) == UINT64_MAX);
    CHECK(sdx_node_double(sdx_node_index(r, 6)) == 18446744073709551616.0);
    CHECK(sdx_node_double(sdx_node_index(r, 7)) == -9223372036854775809.0);
    double z = sdx_node_double(sdx_node_index(r, 9));
    CHECK(z == 0.0 && signbit(z));
    CHECK(sdx_doc_error(d) == SDX_OK);
    sdx_doc_free(d);
}

TEST(big_numbers_raw) {
    static const char text[] = "[123456789012345678901234567890,-18446744073709551616,1e400,-1e400,"
                               "1.5,18446744073709551615]";
    sdx_json_read_opts o = {SDX_JSON_READ_BIGNUM_RAW, 0, NULL};
    sdx_doc *d = sdx_json_parse(text, sizeof text - 1, &o, NULL);
    if (!CHECK(d != NULL)) return;
    sdx_node r = sdx_doc_root(d);
    static const char *raw[] = {"123456789012345678901234567890", "-18446744073709551616", "1e400",
                                "-1e400"};
    for (unsigned i = 0; i < 4; i++) {
        sdx_node n = sdx_node_index(r, i);
        size_t len;
        const char *s = sdx_node_str(n, &len);
        CHECK_EQ_INT(sdx_node_type(n), SDX_TYPE_RAW);
        CHECK_MEM(s, len, raw[i], strlen(raw[i]));
    }
    CHECK_EQ_INT(sdx_node_type(sdx_node_index(r, 4)), SDX_TYPE_DOUBLE);
    CHECK_EQ_INT(sdx_node_type(sdx_node_index(r, 5)), SDX_TYPE_UINT);
    sdx_doc_free(d);
    /* written back as they were */
    parses_to(text, SDX_JSON_READ_BIGNUM_RAW, text);
    /* without the option: the nearest doubles, infinity for 1e400 */
    sdx_doc *d2 = sdx_json_parse(text, sizeof text - 1, NULL, NULL);
    if (!CHECK(d2 != NULL)) return;
    CHECK(isinf(sdx_node_double(sdx_node_index(sdx_doc_root(d2), 2))));
    sdx_doc_free(d2);
}

TEST(strings) {
    parses_to("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"", 0, "\"a\\\"b\\\\c/d\\b\\f\\n\\r\\t\"");
    parses_to("\"\\u0041\\u00e9\\u20AC\\ud83d\\ude00\"", 0, "\"A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\"");
    parses_to("\"\\u0000\"", 0, "\"\\u0000\"");
    parses_to("\"\xF0\x9F\x98\x80 \xE2\x82\xAC\"", 0, "\"\xF0\x9F\x98\x80 \xE2\x82\xAC\"");
    /* Strings without escapes point into the input; with escapes they do not
     * (sdx_json_parse) or do, unescaped in place (sdx_json_parse_insitu). */
    char text[] = "[\"plain string longer than sixteen bytes\",\"esc\\naped\"]";
    const size_t n = sizeof text - 1;
    sdx_doc *d = sdx_json_parse(text, n, NULL, NULL);
    if (!CHECK(d != NULL)) return;
    size_t len;
    const char *s0 = sdx_node_str(sdx_node_index(sdx_doc_root(d), 0), &len);
    CHECK(s0 == text + 2);
    CHECK_EQ_U64(len, 38);
    const char *s1 = sdx_node_str(sdx_node_index(sdx_doc_root(d), 1), &len);
    CHECK(s1 < text || s1 >= text + n);
    CHECK_MEM(s1, len, "esc\naped", 8);
    sdx_doc_free(d);
    d = sdx_json_parse_insitu(text, n, NULL, NULL);
    if (!CHECK(d != NULL)) return;
    s1 = sdx_node_str(sdx_node_index(sdx_doc_root(d), 1), &len);
    CHECK(s1 >= text && s1 < text + n);
    CHECK_MEM(s1, len, "esc\naped", 8);
    sdx_doc_free(d);
}

TEST(copy_input) {
    static const char src[] = "{\"key\":\"value\",\"e\":\"\\t\"}";
    char *text = malloc(sizeof src);
    if (!CHECK(text != NULL)) return;
    memcpy(text, src, sizeof src);
    sdx_json_read_opts o = {SDX_JSON_READ_COPY_INPUT, 0, NULL};
    sdx_doc *d = sdx_json_parse(text, sizeof src - 1, &o, NULL);
    memset(text, 'x', sizeof src);
    free(text); /* the document no longer needs it */
    if (!CHECK(d != NULL)) return;
    size_t len;
    const char *v = sdx_node_str(sdx_node_getz(sdx_doc_root(d), "key"), &len);
    CHECK_MEM(v, len, "value", 5);
    v = sdx_node_str(sdx_node_getz(sdx_doc_root(d), "e"), &len);
    CHECK_MEM(v, len, "\t", 1);
    CHECK(sdx_doc_error(d) == SDX_OK);
    sdx_doc_free(d);
}

TEST(option_comments) {
    const uint32_t C = SDX_JSON_READ_COMMENTS;
    parses_to("// lead\n[1, /* in */ 2 // tail\n, 3] /* end */", C, "[1,2,3]");
    parses_to("/**/{/*a*/\"k\"/*b*/:/*c*/1/*d*/}/**/", C, "{\"k\":1}");
    parses_to("1// no newline at the end", C, "1");
    parses_to("[/* \xE2\x82\xAC */]", C, "[]");
    fails("[1, /* x */ 2]", 0, SDX_ERR_SYNTAX, 4, 1, 5);
    fails("[1 /* never closed ]", C, SDX_ERR_TRUNCATED, 20, 1, 21);
    fails("[1 / 2]", C, SDX_ERR_SYNTAX, 3, 1, 4);
    fails("[1 /", C, SDX_ERR_TRUNCATED, 4, 1, 5);
}

TEST(option_trailing_commas) {
    const uint32_t T = SDX_JSON_READ_TRAILING_COMMAS;
    parses_to("[1,2,]", T, "[1,2]");
    parses_to("{\"a\":1,}", T, "{\"a\":1}");
    parses_to("[[],{},]", T, "[[],{}]");
    fails("[1,2,]", 0, SDX_ERR_SYNTAX, 5, 1, 6);
    fails("{\"a\":1,}", 0, SDX_ERR_SYNTAX, 7, 1, 8);
    fails("[,]", T, SDX_ERR_SYNTAX, 1, 1, 2);
    fails("[1,,]", T, SDX_ERR_SYNTAX, 3, 1, 4);
    fails("{,}", T, SDX_ERR_SYNTAX, 1, 1, 2);
}

TEST(option_nan_infinity) {
    const uint32_t N = SDX_JSON_READ_NAN_INF;
    sdx_json_read_opts o = {N, 0, NULL};
    static const char text[] = "[NaN,Infinity,-Infinity,{\"k\":NaN}]";
    sdx_doc *d = sdx_json_parse(text, sizeof text - 1, &o, NULL);
    if (!CHECK(d != NULL)) return;
    sdx_node r = sdx_doc_root(d);
    CHECK(isnan(sdx_node_double(sdx_node_index(r, 0))));
    CHECK(sdx_node_double(sdx_node_index(r, 1)) == INFINITY);
    CHECK(sdx_node_double(sdx_node_index(r, 2)) == -INFINITY);
    CHECK(isnan(sdx_node_double(sdx_node_getz(sdx_node_index(r, 3), "k"))));
    sdx_doc_free(d);
    parses_to("Infinity", N, "null");
    fails("[NaN]", 0, SDX_ERR_SYNTAX, 1, 1, 2);
    fails("[-Infinity]", 0, SDX_ERR_SYNTAX, 2, 1, 3);
    fails("[Nan]", N, SDX_ERR_SYNTAX, 3, 1, 4);
    fails("[-Inf", N, SDX_ERR_TRUNCATED, 5, 1, 6);
}

TEST(option_bom) {
    parses_to("\xEF\xBB\xBF[1]", SDX_JSON_READ_BOM, "[1]");
    parses_to("[1]", SDX_JSON_READ_BOM, "[1]");
    fails("\xEF\xBB\xBF[1]", 0, SDX_ERR_SYNTAX, 0, 1, 1);
    fails("\xEF\xBB\xBF", SDX_JSON_READ_BOM, SDX_ERR_TRUNCATED, 3, 1, 4);
}

/* Stop after the first value: each value of a sequence in turn. */
TEST(option_stop_after_value) {
    const uint32_t S = SDX_JSON_READ_STOP_AFTER_VALUE;
    static const char text[] = "{\"a\":1}\n[2] 3\n\"four\"\ttrue null\n";
    sdx_json_read_opts o = {S, 0, NULL};
    static const char *want[] = {"{\"a\":1}", "[2]", "3", "\"four\"", "true", "null"};
    size_t pos = 0, k = 0;
    for (;;) {
        while (pos < sizeof text - 1 && strchr(" \t\n", text[pos])) pos++;
        if (pos == sizeof text - 1) break;
        sdx_error e;
        sdx_doc *d = sdx_json_parse(text + pos, sizeof text - 1 - pos, &o, &e);
        if (!CHECK(d != NULL) || !CHECK(k < 6)) return;
        sdx_buf b;
        sdx_buf_init(&b, NULL);
        sdx_json_writer w;
        sdx_json_writer_init(&w, &b, NULL);
        sdx_node_emit(sdx_doc_root(d), sdx_json_writer_sink(&w));
        CHECK(sdx_json_writer_finish(&w) == SDX_OK);
        CHECK_MEM(sdx_buf_data(&b), sdx_buf_len(&b), want[k], strlen(want[k]));
        CHECK_EQ_U64(sdx_doc_consumed(d), strlen(want[k]));
        sdx_buf_destroy(&b);
        pos += sdx_doc_consumed(d);
        sdx_doc_free(d);
        k++;
    }
    CHECK_EQ_U64(k, 6);
    /* a scalar at the top level must end at a delimiter */
    fails("12x", S, SDX_ERR_SYNTAX, 2, 1, 3);
    fails("truex", S, SDX_ERR_SYNTAX, 4, 1, 5);
    parses_to("[1]x", S, "[1]");
    fails("12,", S, SDX_ERR_SYNTAX, 2, 1, 3);
    parses_to("12 ,", S, "12");
    parses_to("\"a\"\"b\"", S, "\"a\"");
    /* what follows the first value is not looked at, invalid UTF-8 included */
    parses_to("[1] \xFF\xFF", S, "[1]");
    fails("[\"\xFF\"] [1]", S, SDX_ERR_UTF8, 2, 1, 3);
    /* strings are validated one by one, and still in document order */
    fails("[\"\xFF\x01\"]", S, SDX_ERR_UTF8, 2, 1, 3);
    fails("[\"ab\xFF", S, SDX_ERR_UTF8, 4, 1, 5);
    fails("[\"a\\n\xFF\\x\"]", S, SDX_ERR_UTF8, 5, 1, 6);
    fails("[\"a\\n\xC3", S, SDX_ERR_TRUNCATED, 6, 1, 7);
}

TEST(syntax_errors) {
    fails("", 0, SDX_ERR_TRUNCATED, 0, 1, 1);
    fails("   ", 0, SDX_ERR_TRUNCATED, 3, 1, 4);
    fails("[1,2", 0, SDX_ERR_TRUNCATED, 4, 1, 5);
    fails("{\"a\"", 0, SDX_ERR_TRUNCATED, 4, 1, 5);
    fails("\"abc", 0, SDX_ERR_TRUNCATED, 4, 1, 5);
    fails("tru", 0, SDX_ERR_TRUNCATED, 3, 1, 4);
    fails("[1 2]", 0, SDX_ERR_SYNTAX, 3, 1, 4);
    fails("{\"a\" 1}", 0, SDX_ERR_SYNTAX, 5, 1, 6);
    fails("{1:2}", 0, SDX_ERR_SYNTAX, 1, 1, 2);
    fails("[1]]", 0, SDX_ERR_SYNTAX, 3, 1, 4);
    fails("[1}", 0, SDX_ERR_SYNTAX, 2, 1, 3);
    fails("1 2", 0, SDX_ERR_SYNTAX, 2, 1, 3);
    fails("[01]", 0, SDX_ERR_SYNTAX, 2, 1, 3);
    fails("[1.]", 0, SDX_ERR_SYNTAX, 3, 1, 4);
    fails("[.5]", 0, SDX_ERR_SYNTAX, 1, 1, 2);
    fails("[+1]", 0, SDX_ERR_SYNTAX, 1, 1, 2);
    fails("[truth]", 0, SDX_ERR_SYNTAX, 4, 1, 5);
    fails("[nul]", 0, SDX_ERR_SYNTAX, 4, 1, 5);
    fails("[\"a\\x\"]", 0, SDX_ERR_SYNTAX, 4, 1, 5);
    fails("[\"a\\u12G4\"]", 0, SDX_ERR_SYNTAX, 7, 1, 8);
    fails("[\"tab\there\"]", 0, SDX_ERR_SYNTAX, 5, 1, 6);
    fails("[\"nl\nhere\"]", 0, SDX_ERR_SYNTAX, 4, 1, 5);
    fails_n("[\"nul\0\"]", 8, 0, SDX_ERR_SYNTAX, 5, 1, 6);
    /* lone surrogates: at the backslash of the escape */
    fails("[\"x\\ud800\"]", 0, SDX_ERR_UTF8, 3, 1, 4);
    fails("[\"\\udc00\"]", 0, SDX_ERR_UTF8, 2, 1, 3);
    fails("[\"\\ud800\\u0041\"]", 0, SDX_ERR_UTF8, 2, 1, 3);
    fails("[\"\\ud800\\ud800\"]", 0, SDX_ERR_UTF8, 2, 1, 3);
    /* the low surrogate's bounds (DC00-DFFF): E000 and DBFF are not one */
    fails("[\"\\ud800\\ue000\"]", 0, SDX_ERR_UTF8, 2, 1, 3);
    fails("[\"\\udbff\\ue000\"]", 0, SDX_ERR_UTF8, 2, 1, 3);
    fails("[\"\\ud800\\udbff\"]", 0, SDX_ERR_UTF8, 2, 1, 3);
    fails("[\"\\ud800\\udcx0\"]", 0, SDX_ERR_SYNTAX, 12, 1, 13);
    fails("[\"\\ud800", 0, SDX_ERR_TRUNCATED, 8, 1, 9);
    /* invalid UTF-8, in and out of strings */
    fails("[\"ok\xC3\x28\"]", 0, SDX_ERR_UTF8, 4, 1, 5);
    fails("[\"\xED\xA0\x80\"]", 0, SDX_ERR_UTF8, 2, 1, 3);
    fails("[1,\xFF]", 0, SDX_ERR_UTF8, 3, 1, 4);
    /* input that ends inside a character of a string or comment has been
     * cut (truncated); elsewhere such a byte is invalid */
    fails("[\"ab\xE2\x82", 0, SDX_ERR_TRUNCATED, 6, 1, 7);
    fails("[\"ab\\n\xF0\x9F", 0, SDX_ERR_TRUNCATED, 8, 1, 9);
    fails("[1 /* \xE2", SDX_JSON_READ_COMMENTS, SDX_ERR_TRUNCATED, 7, 1, 8);
    fails("[1, \xE2", 0, SDX_ERR_UTF8, 4, 1, 5);
    fails("[\"ab\xE2\x28\"]", 0, SDX_ERR_UTF8, 4, 1, 5);
    /* a syntax error before invalid UTF-8 wins: document order */
    fails("[1 2, \"\xFF\"]", 0, SDX_ERR_SYNTAX, 3, 1, 4);
    /* line and column count bytes after the last line feed */
    fails("[\n  1,\n  x]", 0, SDX_ERR_SYNTAX, 9, 3, 3);
    fails("{\n\"a\":\n\n\"\xC3\xA9\" 1}", 0, SDX_ERR_SYNTAX, 13, 4, 6);
    /* the input is `len` bytes, not NUL-terminated: nothing after it counts */
    sdx_doc *d = sdx_json_parse("[1]]]]", 3, NULL, NULL);
    CHECK(d != NULL);
    sdx_doc_free(d);
    fails_n("[1,2]", 4, 0, SDX_ERR_TRUNCATED, 4, 1, 5);
    fails_n("\"ab\"", 3, 0, SDX_ERR_TRUNCATED, 3, 1, 4);
    fails_n("123", 0, 0, SDX_ERR_TRUNCATED, 0, 1, 1);
}

TEST(depth_limit) {
    size_t n = 2000;
    char *t = malloc(2 * n);
    if (!CHECK(t != NULL)) return;
    for (size_t levels = 1023; levels <= 1026; levels++) {
        for (size_t i = 0; i < levels; i++) t[i] = '[', t[levels + i] = ']';
        sdx_error e;
        sdx_doc *d = sdx_json_parse(t, 2 * levels, NULL, &e);
        if (levels <= 1024) {
            CHECK(d != NULL);
        } else {
            CHECK(d == NULL);
            CHECK_EQ_INT(e.code, SDX_ERR_DEPTH);
            CHECK_EQ_U64(e.offset, 1024);
        }
        sdx_doc_free(d);
    }
    /* a raised limit, and a lowered one on maps */
    for (size_t i = 0; i < n; i++) t[i] = '[', t[n + i] = ']';
    sdx_json_read_opts o = {0, 5000, NULL};
    sdx_doc *d = sdx_json_parse(t, 2 * n, &o, NULL);
    CHECK(d != NULL);
    CHECK_EQ_U64(sdx_doc_size(d), n);
    sdx_doc_free(d);
    o.max_depth = 2;
    static const char maps[] = "{\"a\":{\"b\":{}}}";
    fails_opts(maps, sizeof maps - 1, &o, SDX_ERR_DEPTH, 10, 1, 11);
    o.max_depth = 3;
    d = sdx_json_parse(maps, sizeof maps - 1, &o, NULL);
    CHECK(d != NULL);
    sdx_doc_free(d);
    free(t);
}

/* Every allocation the parser makes can fail: a clean SDX_ERR_NOMEM with no
 * leak, in every mode. */
/* A growing byte string for the test below. */
typedef struct bytes {
    char *p;
    size_t len, cap;
} bytes;

static void put(bytes *b, const char *s, size_t n) {
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2;
        b->p = realloc(b->p, b->cap);
        if (!b->p) abort();
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

/* Escaped strings unescaped into blocks (64 KiB and more, a new one when a
 * string does not fit in what is left): thousands of short ones filling
 * several blocks, strings of every size around a block's, and strings of
 * hundreds of KiB with plain runs longer than a block between escapes —
 * each compared with its text, parsed from memory, with per-string UTF-8
 * checks (STOP_AFTER_VALUE) and with allocations failing one by one. */
TEST(escaped_strings_in_blocks) {
    bytes text = {0}, want = {0};
    size_t count = 0, *ends = NULL, cap = 0;
    uint64_t seed = 7;
    put(&text, "[", 1);
    for (int i = 0; i < 5044; i++) {
        size_t target = i < 5000 ? 1 + (size_t)(i % 97) : i < 5040 ? 65536 - 20 + (size_t)(i - 5000)
                                                                    : 150000 + (size_t)(i - 5040) * 37000;
        if (count) put(&text, ",", 1);
        put(&text, "\"", 1);
        size_t got = 0;
        while (got < target) {
            seed = seed * 6364136223846793005u + 1442695040888963407u;
            unsigned r = (unsigned)(seed >> 33);
            switch (r % 8) {
            case 0: put(&text, "\\n", 2), put(&want, "\n", 1), got += 1; break;
            case 1: put(&text, "\\\"", 2), put(&want, "\"", 1), got += 1; break;
            case 2: put(&text, "\\u00e9", 6), put(&want, "\xC3\xA9", 2), got += 2; break;
            case 3: put(&text, "\\ud83d\\ude00", 12), put(&want, "\xF0\x9F\x98\x80", 4), got += 4; break;
            case 4: put(&text, "\xC3\xA9", 2), put(&want, "\xC3\xA9", 2), got += 2; break;
            default: { /* a plain run: now and then longer than a block */
                size_t n = r % 64 == 5 && i >= 5040 ? 70000 + r % 1000 : 1 + r % 40;
                for (size_t k = 0; k < n; k++) {
                    char c = (char)('a' + (k + r) % 26);
                    put(&text, &c, 1), put(&want, &c, 1);
                }
                got += n;
            }
            }
        }
        put(&text, "\"", 1);
        if (count == cap) {
            cap = cap ? 2 * cap : 1024;
            ends = realloc(ends, cap * sizeof *ends);
            if (!ends) abort();
        }
        ends[count++] = want.len;
    }
    put(&text, "]", 1);
    for (int mode = 0; mode < 2; mode++) {
        sdx_json_read_opts o = {mode ? SDX_JSON_READ_STOP_AFTER_VALUE : 0u, 0, NULL};
        sdx_error e;
        sdx_doc *d = sdx_json_parse(text.p, text.len, &o, &e);
        if (!CHECK(d != NULL)) {
            fprintf(stderr, "  error %d at %zu: %s\n", (int)e.code, e.offset, e.msg);
            break;
        }
        int bad = 0;
        for (size_t i = 0; i < count && !bad; i++) {
            size_t len, from = i ? ends[i - 1] : 0;
            const char *str = sdx_node_str(sdx_node_index(sdx_doc_root(d), i), &len);
            bad = !CHECK_MEM(str, len, want.p + from, ends[i] - from);
        }
        sdx_doc_free(d);
    }
    for (long fail_at = 1;; fail_at++) {
        counting_alloc ca;
        counting_alloc_init(&ca, fail_at);
        sdx_json_read_opts o = {0, 0, &ca.iface};
        sdx_error e;
        sdx_doc *d = sdx_json_parse(text.p, text.len, &o, &e);
        if (d) {
            /* the blocks grow geometrically: a few allocations, and not
             * much more than the unescaped bytes (besides the value array) */
            size_t array = (size_t)(text.len / 5 + 64) * sizeof(sdx_val);
            if (!CHECK(ca.calls <= 16 && ca.peak_bytes <= array + 2 * want.len + 2 * 65536))
                fprintf(stderr, "  %ld allocations, peak %zu bytes\n", ca.calls, ca.peak_bytes);
            sdx_doc_free(d);
            CHECK_EQ_INT(ca.live, 0);
            break;
        }
        CHECK_EQ_INT(e.code, SDX_ERR_NOMEM);
        CHECK_EQ_INT(ca.live, 0);
        if (!CHECK(fail_at < 200)) break;
    }
    free(text.p);
    free(want.p);
    free(ends);
}

/* ------------------------------------------------------------------------ */
/* The two-stage parse against the one-pass parser                          */
/* ------------------------------------------------------------------------ */

/* Parse `n` bytes at `text` with `flags` once by each path and require the
 * same outcome: the same slots (strings compared by their bytes, as the
 * unescaped ones live in different blocks) and bytes consumed, or the same
 * error code, offset, line, column and message. `valid` (1: the text is
 * known valid, 0: unknown) also requires that the two-stage path did not
 * decline it. Returns 1 when both parsed. */
static int paths_agree(const char *text, size_t n, uint32_t flags, int valid) {
    sdx_json_read_opts o = {flags, 0, NULL};
    sdx_error e1, e2;
    memset(&e1, 0, sizeof e1);
    memset(&e2, 0, sizeof e2);
    sdx__json_parse_force_path(SDX_JSON_PATH_ONE_PASS);
    sdx_doc *d1 = sdx_json_parse(text, n, &o, &e1);
    sdx__json_parse_force_path(SDX_JSON_PATH_TWO_STAGE);
    const unsigned long declined = sdx__json_parse_declines();
    sdx_doc *d2 = sdx_json_parse(text, n, &o, &e2);
    const int did_decline = sdx__json_parse_declines() != declined;
    sdx__json_parse_force_path(SDX_JSON_PATH_AUTO);
    int ok = 1;
    if ((d1 == NULL) != (d2 == NULL)) {
        ok = test_fail_at(__FILE__, __LINE__, "one path parsed, the other did not");
    } else if (!d1) {
        ok = CHECK_EQ_INT(e2.code, e1.code) && CHECK_EQ_U64(e2.offset, e1.offset) &&
             CHECK_EQ_U64(e2.line, e1.line) && CHECK_EQ_U64(e2.column, e1.column) &&
             CHECK(e1.msg && e2.msg && strcmp(e1.msg, e2.msg) == 0);
    } else {
        ok = CHECK_EQ_U64(d2->nvals, d1->nvals) && CHECK_EQ_U64(d2->consumed, d1->consumed);
        for (size_t i = 0; ok && i < d1->nvals; i++) {
            const sdx_val *a = &d1->vals[i], *b = &d2->vals[i];
            ok = CHECK_EQ_U64(b->tag, a->tag);
            if (ok && (SDX_VAL_TYPE(a) == SDX_TYPE_STR || SDX_VAL_TYPE(a) == SDX_TYPE_RAW))
                ok = CHECK_MEM(b->v.s, SDX_VAL_LEN(b), a->v.s, SDX_VAL_LEN(a));
            else if (ok)
                ok = CHECK_EQ_U64(b->v.u, a->v.u);
        }
        if (valid && sdx__json_parse_two_stage_available() && !CHECK(!did_decline)) ok = 0;
    }
    if (valid && !CHECK(d1 != NULL)) ok = 0;
    if (!ok) {
        fprintf(stderr, "  flags %u, %zu bytes: ", (unsigned)flags, n);
        for (size_t i = 0; i < n && i < 300; i++) {
            const unsigned char c = (unsigned char)text[i];
            fprintf(stderr, c >= 0x20 && c < 0x7f ? "%c" : "\\x%02x", c);
        }
        fprintf(stderr, "%s\n", n > 300 ? "..." : "");
    }
    sdx_doc_free(d1);
    sdx_doc_free(d2);
    return d1 != NULL && ok;
}

static uint64_t two_stage_rng = 0x2545F4914F6CDD1Dull;

static unsigned rnd(unsigned n) {
    two_stage_rng ^= two_stage_rng << 13;
    two_stage_rng ^= two_stage_rng >> 7;
    two_stage_rng ^= two_stage_rng << 17;
    return (unsigned)(two_stage_rng >> 32) % n;
}

static void put_str(bytes *b, const char *s) { put(b, s, strlen(s)); }

/* Whitespace: mostly none, some short runs, now and then a run longer
 * than a stage-1 chunk (4 KiB). */
static void gen_ws(bytes *b) {
    static const char ws[] = " \t\n\r";
    const unsigned r = rnd(100);
    size_t n = r < 60 ? 0 : r < 97 ? 1 + rnd(4) : r < 99 ? 60 + rnd(80) : 4000 + rnd(300);
    for (size_t i = 0; i < n; i++) put(b, &ws[rnd(4)], 1);
}

/* A string's body: plain text, escapes of every kind, runs of backslashes,
 * UTF-8; now and then longer than a chunk. */
static void gen_string(bytes *b) {
    static const char *const pieces[] = {
        "a", "bc", "hello", " ", "0123456789", "\\n", "\\\"", "\\\\", "\\/", "\\u00e9",
        "\\ud83d\\ude00", "\\\\\\\\", "\\\\\\\"", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
        "\\t\\r\\b\\f", "{}[]:,", "true", "-1.5e3"};
    put(b, "\"", 1);
    const unsigned r = rnd(100);
    size_t parts = r < 30 ? rnd(3) : r < 97 ? rnd(24) : r < 99 ? 100 + rnd(200) : 1000 + rnd(800);
    for (size_t i = 0; i < parts; i++) put_str(b, pieces[rnd(sizeof pieces / sizeof *pieces)]);
    put(b, "\"", 1);
}

static void gen_number(bytes *b) {
    static const char *const nums[] = {
        "0", "-0", "7", "-12", "123456789", "9223372036854775807", "-9223372036854775808",
        "18446744073709551615", "18446744073709551616", "123456789012345678901234567890",
        "0.5", "-65.613616999999977", "1e10", "2.5E-3", "1.7976931348623157e308", "5e-324",
        "1e400", "-0.0", "3.14159", "43.420273000000009"};
    put_str(b, nums[rnd(sizeof nums / sizeof *nums)]);
}

static void gen_value(bytes *b, int depth) {
    const unsigned r = rnd(depth > 6 ? 10 : 14);
    if (r < 3) {
        gen_string(b);
    } else if (r < 6) {
        gen_number(b);
    } else if (r < 7) {
        put_str(b, "true");
    } else if (r < 8) {
        put_str(b, "false");
    } else if (r < 10) {
        put_str(b, "null");
    } else if (r < 12) {
        put(b, "[", 1);
        const unsigned n = rnd(7);
        for (unsigned i = 0; i < n; i++) {
            if (i) put(b, ",", 1);
            gen_ws(b);
            gen_value(b, depth + 1);
            gen_ws(b);
        }
        gen_ws(b);
        put(b, "]", 1);
    } else {
        put(b, "{", 1);
        const unsigned n = rnd(7);
        for (unsigned i = 0; i < n; i++) {
            if (i) put(b, ",", 1);
            gen_ws(b);
            gen_string(b);
            gen_ws(b);
            put(b, ":", 1);
            gen_ws(b);
            gen_value(b, depth + 1);
            gen_ws(b);
        }
        gen_ws(b);
        put(b, "}", 1);
    }
}

/* Texts made to put every kind of token at every offset of a 64-byte
 * block and across a 4 KiB chunk's end, and mistakes of every kind. */
TEST(two_stage_edges) {
    if (!sdx__json_parse_two_stage_available())
        fprintf(stderr, "  (the two-stage parse does not run here: one path compared with itself)\n");
    static const char *const texts[] = {
        "", " ", "\"abc", "\"abc\"", "[1,2", "{\"a\"", "{\"a\":", "tru", "nul", "fals", "-", "1.",
        "01", "1x", "[1 2]", "{\"a\" 1}", "\"\\u\"", "\"\\x\"", "\"a\x01\"", "\"\\\\\"", "\"\\\"",
        "[\"\\\\\\\"\"]", "[]]", "{}}", "[,]", "[1,]", "{,}", "{\"a\":1,}", "\xEF\xBB\xBF[]", "123",
        " 123 ", "123 456", "\"a\"\"b\"", "[\"a\"x]", "nulll", "[truefalse]", "[true false]", "1e5x",
        "[1]x", "{\"a\":1}{", "[\"a\":1]", "{\"a\",1}", "{1:2}", "[-]", "[1.e5]", "[.5]", "[+1]",
        "[\"\\ud800\"]", "[\"\xc3\"]", "[\"\xff\"]", "\xff", "[\xc3\xa9]", "[\t\n\r ]", "[\x0b]",
        "[\"a\tb\"]", "[\"a\nb\"]", "/*c*/[]", "[1,//\n2]", "[NaN]", "[Infinity]", "\"x\"   ",
        "{\"\":\"\"}", "[[[[[]]]]]", "[{}, [], {\"a\": [{}]}]", "\\", "[\\]", "[1\\]", "\"\\\\\\\\\"",
        "[truex]", "[nullx]", "[\"\"\"]", "{\"a\"\"b\":1}", "[1,\"a\\u00\"]", "123abc", "-0", "[0]"};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        paths_agree(texts[i], strlen(texts[i]), 0, 0);
        paths_agree(texts[i], strlen(texts[i]), SDX_JSON_READ_BOM | SDX_JSON_READ_BIGNUM_RAW, 0);
    }
    /* tokens sliding over block boundaries and a chunk's end */
    static const char *const bodies[] = {
        "[\"ab\\\"c\\\\\", \"x\\\\\\\"y\", 12, true, null, -1.5e3, \"\xc3\xa9\"]",
        "{\"k\\\\\":\"\\\\\",\"q\":\"\\\"\\\"\\\"\",\"e\":\"\"}",
        "[\"\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\"]",
        "[123456789012345678901234567890, 1.5, false]", "\"just a string with \\n an escape\""};
    bytes t = {0};
    for (size_t bi = 0; bi < sizeof bodies / sizeof *bodies; bi++) {
        for (size_t pad = 0; pad < 4200; pad += pad < 140 ? 1 : pad < 3960 ? 97 : 1) {
            t.len = 0;
            for (size_t k = 0; k < pad; k++) put(&t, pad % 3 ? " " : "\n", 1);
            put_str(&t, bodies[bi]);
            paths_agree(t.p, t.len, 0, 1);
            /* the same cut short, and with a stray byte at the end */
            paths_agree(t.p, t.len - 1, 0, 0);
            put(&t, "x", 1);
            paths_agree(t.p, t.len, 0, 0);
        }
    }
    /* a string with escapes across several chunks, its escapes at every
     * offset around a chunk's end */
    for (size_t at = 4080; at < 4110; at++) {
        t.len = 0;
        put_str(&t, "[\"");
        while (t.len < at) put(&t, "a", 1);
        put_str(&t, "\\\\\\\"\\n\\u00e9");
        while (t.len < 9000) put(&t, t.len % 100 ? "b" : "\\\"", t.len % 100 ? 1 : 2);
        put_str(&t, "\", 1]");
        paths_agree(t.p, t.len, 0, 1);
    }
    /* nesting at and beyond the depth limit */
    for (int depth = 1020; depth <= 1030; depth += 5) {
        t.len = 0;
        for (int k = 0; k < depth; k++) put(&t, "[", 1);
        put(&t, "\"s\"", 3);
        for (int k = 0; k < depth; k++) put(&t, "]", 1);
        paths_agree(t.p, t.len, 0, 0);
    }
    free(t.p);
}

/* Random documents (every kind of value, whitespace, escapes, long strings
 * and runs), each valid as made, then cut short, with a byte changed, one
 * inserted and one removed. */
TEST(two_stage_random) {
    static const char stray[] = "\"\\ ,:[]{}x1\x01\xff-e.0tn\n";
    const int docs = (int)(1500 * test_scale());
    bytes t = {0}, m = {0};
    for (int i = 0; i < docs; i++) {
        t.len = 0;
        if (rnd(20) == 0) put(&t, "\xEF\xBB\xBF", 3);
        const int bom = t.len != 0;
        gen_ws(&t);
        gen_value(&t, 0);
        gen_ws(&t);
        const uint32_t flags = (bom ? SDX_JSON_READ_BOM : 0u) | (rnd(4) == 0 ? SDX_JSON_READ_BIGNUM_RAW : 0u);
        if (!paths_agree(t.p, t.len, flags, 1)) break;
        for (int k = 0; k < 6 && t.len; k++) {
            m.len = 0;
            const size_t at = rnd((unsigned)t.len);
            switch (k % 4) {
            case 0: put(&m, t.p, at); break; /* cut */
            case 1:
                put(&m, t.p, t.len);
                m.p[at] = stray[rnd(sizeof stray - 1)];
                break;
            case 2:
                put(&m, t.p, at);
                put(&m, &stray[rnd(sizeof stray - 1)], 1);
                put(&m, t.p + at, t.len - at);
                break;
            default:
                put(&m, t.p, at);
                put(&m, t.p + at + 1, t.len - at - 1);
            }
            paths_agree(m.p ? m.p : "", m.len, flags, 0);
        }
    }
    free(t.p);
    free(m.p);
}

/* The corpus documents (SDX_CORPUS or the build's corpus directory), and
 * each cut at a few hundred places. */
TEST(two_stage_corpus) {
    static const char *const names[] = {"twitter.json", "citm_catalog.json", "canada.json"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *dir = getenv("SDX_CORPUS");
        if (!dir || !*dir) dir = SDX_CORPUS_DIR;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        FILE *f = fopen(path, "rb");
        if (!CHECK(f != NULL)) {
            fprintf(stderr, "  cannot read %s (set SDX_CORPUS to the corpus directory)\n", path);
            continue;
        }
        bytes t = {0};
        char buf[65536];
        size_t got;
        while ((got = fread(buf, 1, sizeof buf, f)) > 0) put(&t, buf, got);
        fclose(f);
        paths_agree(t.p, t.len, 0, 1);
        for (size_t k = 1; k < 200; k++) paths_agree(t.p, t.len * k / 200 + k % 7, 0, 0);
        free(t.p);
    }
}

TEST(allocation_failures) {
    static const char text[] = "{\"a\":[1,2,\"x\\ny\",{\"b\":[[],{}]}],\"c\":\"\\u00e9\"}";
    for (int mode = 0; mode < 3; mode++) {
        for (long fail_at = 1;; fail_at++) {
            counting_alloc ca;
            counting_alloc_init(&ca, fail_at);
            sdx_json_read_opts o = {mode == 1 ? SDX_JSON_READ_COPY_INPUT : 0u, 0, &ca.iface};
            char copy[sizeof text];
            memcpy(copy, text, sizeof text);
            sdx_error e;
            sdx_doc *d = mode == 2 ? sdx_json_parse_insitu(copy, sizeof text - 1, &o, &e)
                                   : sdx_json_parse(copy, sizeof text - 1, &o, &e);
            if (d) {
                sdx_doc_free(d);
                CHECK_EQ_INT(ca.live, 0);
                break;
            }
            CHECK_EQ_INT(e.code, SDX_ERR_NOMEM);
            CHECK_EQ_INT(ca.live, 0);
            if (!CHECK(fail_at < 100)) break;
        }
    }
}

/* A parse with a counting allocator: the document (or NULL), and in *ca
 * its allocations. */
static sdx_doc *parse_counted(const char *text, size_t len, counting_alloc *ca) {
    counting_alloc_init(ca, 0);
    sdx_json_read_opts o = {0, 0, &ca->iface};
    sdx_error e;
    sdx_doc *d = sdx_json_parse(text, len, &o, &e);
    if (!CHECK(d != NULL)) fprintf(stderr, "  error %d at %zu: %s\n", (int)e.code, e.offset, e.msg);
    return d;
}

/* sdx_doc_first_slots / sdx_doc_note_rate (src/core/doc.c): a document
 * whose first 4 KiB promise fewer values (short strings) than its rest
 * holds (small numbers and empty arrays) grows its value array in its
 * first parse; parsed again, it gets the array in one allocation of about
 * its size. A sparse document of about the same size parsed next starts
 * from the dense one's rate, and its array is shrunk to what it holds.
 * Neither changes the values. */
TEST(rate_of_last_document) {
    sbuf dense = {0}, sparse = {0};
    sb_put(&dense, "[0", 2);
    while (dense.len < 6000) sb_put(&dense, ",\"xxxxx\"", 8);
    for (int i = 0; dense.len < 200000; i++) sb_put(&dense, i & 1 ? ",1" : ",[]", i & 1 ? 2 : 3);
    sb_put(&dense, "]", 1);
    sb_put(&sparse, "[\"", 2);
    while (sparse.len < 190000) sb_put(&sparse, "yyyyyyyyyyyyyyyy", 16);
    sb_put(&sparse, "\",1,2,3]", 8);

    counting_alloc a, b, c;
    sdx_doc *da = parse_counted(dense.p, dense.len, &a);
    sdx_doc *db = parse_counted(dense.p, dense.len, &b);
    if (da && db) {
        CHECK(sdx_node_equal(sdx_doc_root(da), sdx_doc_root(db)));
        /* the first parse may start from a rate another test left, so it
         * is not checked; the second has the first's */
        CHECK_EQ_INT(b.grows, 0);
        if (!CHECK(db->vals_cap >= db->nvals && db->vals_cap <= db->nvals + db->nvals / 32 + 64))
            fprintf(stderr, "  %zu slots for %zu values\n", db->vals_cap, db->nvals);
        CHECK(b.calls < a.calls || a.grows == 0);
    }
    sdx_doc *dc = parse_counted(sparse.p, sparse.len, &c);
    if (dc) {
        CHECK_EQ_U64(sdx_doc_size(dc), 5);
        CHECK_EQ_U64(dc->vals_cap, dc->nvals); /* shrunk */
        /* never more than four times its own guess while parsing */
        CHECK(c.peak_bytes <= sparse.len + 4 * (4096 + 64) * sizeof(sdx_val) + 65536);
        size_t n;
        sdx_node_str(sdx_node_index(sdx_doc_root(dc), 0), &n);
        CHECK_EQ_U64(n, sparse.len - 10);
    }
    sdx_doc_free(da);
    sdx_doc_free(db);
    sdx_doc_free(dc);
    CHECK_EQ_INT(a.live + b.live + c.live, 0);
    free(dense.p);
    free(sparse.p);
}

/* The first guess of the value array counts, on a CPU that runs the
 * two-stage parse, the commas, colons and opening brackets of the first
 * 4 KiB outside strings only: records whose strings are full of them
 * (here 5 slots and 29 such bytes each) get an array of about the slots
 * they need, not five times as many. 20 KB: below what the rate of the
 * last document applies to (32 KiB and more), so the guess is the
 * parse's own. */
TEST(first_guess_outside_strings) {
    static const char rec[] = "{\"k\":\"a,b:c,d:e,f:g,h:i,j:k,l:m,n:o,p:q,r:s,t:u,v:w,x:y,z:0,1:2\",\"n\":1}";
    sbuf t = {0};
    sb_put(&t, "[", 1);
    for (int i = 0; t.len < 20000; i++) {
        if (i) sb_put(&t, ",", 1);
        sb_put(&t, rec, strlen(rec));
    }
    sb_put(&t, "]", 1);
    counting_alloc ca;
    sdx_doc *d = parse_counted(t.p, t.len, &ca);
    if (d) {
        const size_t need = d->nvals * sizeof(sdx_val);
        if (sdx__json_parse_two_stage_available() && !CHECK(ca.peak_bytes <= need + need / 2 + 4096))
            fprintf(stderr, "  peak %zu bytes for %zu bytes of slots\n", ca.peak_bytes, need);
        CHECK_EQ_INT(ca.grows, 0);
    }
    sdx_doc_free(d);
    CHECK_EQ_INT(ca.live, 0);
    free(t.p);
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){{"scalars_and_containers", scalars_and_containers},
                                  {"number_types", number_types},
                                  {"big_numbers_raw", big_numbers_raw},
                                  {"strings", strings},
                                  {"copy_input", copy_input},
                                  {"option_comments", option_comments},
                                  {"option_trailing_commas", option_trailing_commas},
                                  {"option_nan_infinity", option_nan_infinity},
                                  {"option_bom", option_bom},
                                  {"option_stop_after_value", option_stop_after_value},
                                  {"syntax_errors", syntax_errors},
                                  {"depth_limit", depth_limit},
                                  {"escaped_strings_in_blocks", escaped_strings_in_blocks},
                                  {"allocation_failures", allocation_failures},
                                  {"two_stage_edges", two_stage_edges},
                                  {"two_stage_random", two_stage_random},
                                  {"two_stage_corpus", two_stage_corpus},
                                  {"rate_of_last_document", rate_of_last_document},
                                  {"first_guess_outside_strings", first_guess_outside_strings},
                                  {0}});
}
