/*
 * The JSON tree parser (sdx_json_parse, sdx_json_parse_insitu): values and
 * their types, every read option, errors with code, offset, line and
 * column, the depth limit, where strings live, and allocation failures.
 * The conformance suites (tests/conformance) add JSONTestSuite, the corpus,
 * differential tests against Python and malformed input at scale.
 */
#include <math.h>

#include "alloc_test.h"
#include "sdx/sdx.h"
#include "test.h"

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
                                  {0}});
}
