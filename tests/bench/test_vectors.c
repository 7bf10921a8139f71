/*
 * Hand-made byte vectors for every reference codec: the exact bytes the
 * encoders write (canonical forms), other valid encodings the decoders must
 * accept (and hash like the canonical one), and invalid input they must
 * reject. Binn has no independent implementation to test against, so its
 * vectors include the examples of the Binn specification.
 */
#include <math.h>

#include "bench_test.h"

/* "e2 11 01" -> bytes; returns the length. */
static size_t unhex(const char *hex, unsigned char *out, size_t cap) {
    size_t n = 0;
    int half = -1;
    for (const char *p = hex; *p; p++) {
        int v;
        if (*p >= '0' && *p <= '9') v = *p - '0';
        else if (*p >= 'a' && *p <= 'f') v = *p - 'a' + 10;
        else if (*p >= 'A' && *p <= 'F') v = *p - 'A' + 10;
        else continue;
        if (half < 0) {
            half = v;
        } else {
            if (n < cap) out[n] = (unsigned char)(half << 4 | v);
            n++;
            half = -1;
        }
    }
    if (half >= 0 || n > cap) abort(); /* a broken vector in this file */
    return n;
}

static void show(const char *format, const unsigned char *p, size_t n) {
    fprintf(stderr, "  %s input (%zu bytes):", format, n);
    for (size_t i = 0; i < n && i < 64; i++) fprintf(stderr, " %02x", p[i]);
    fprintf(stderr, "%s\n", n > 64 ? " ..." : "");
}

/* Decoding p[0, n) gives the hash `want`. */
static void expect_hash(const char *format, const void *p, size_t n, uint64_t want) {
    uint64_t got = 0;
    char err[256] = "";
    int rc = decode_exact(format, p, n, &got, err, sizeof err);
    if (!CHECK(rc == 0)) {
        fprintf(stderr, "  error: %s\n", err);
        show(format, p, n);
    } else if (!CHECK_EQ_U64(got, want)) {
        show(format, p, n);
    }
}

/* Decoding p[0, n) gives the tree's hash (the tree is freed). */
static void expect_tree(const char *format, const void *p, size_t n, bt_node *tree) {
    expect_hash(format, p, n, tree_hash(tree));
    bt_free(tree);
}

static void expect_tree_hex(const char *format, const char *hex, bt_node *tree) {
    unsigned char buf[1024];
    size_t n = unhex(hex, buf, sizeof buf);
    expect_tree(format, buf, n, tree);
}

static void expect_json(const char *text, bt_node *tree) { expect_tree("json", text, strlen(text), tree); }

/* Decoding p[0, n) fails with a message. */
static void expect_error(const char *format, const void *p, size_t n) {
    uint64_t got;
    char err[256] = "";
    int rc = decode_exact(format, p, n, &got, err, sizeof err);
    if (!CHECK(rc != 0)) show(format, p, n);
    else CHECK(strncmp(err, "byte ", 5) == 0); /* the message names the offset */
    if (getenv("SDX_TEST_VERBOSE")) fprintf(stderr, "  %s: %s\n", format, err);
}

static void expect_error_hex(const char *format, const char *hex) {
    unsigned char buf[1024];
    size_t n = unhex(hex, buf, sizeof buf);
    expect_error(format, buf, n);
}

static void expect_json_error(const char *text) { expect_error("json", text, strlen(text)); }

/* Encoding the tree gives exactly these bytes, which decode back to the
 * tree's hash (the tree is freed). */
static void expect_encoding(const char *format, bt_node *tree, const void *want, size_t want_len) {
    size_t len = 0;
    char *got = ref_encode(format, tree, &len);
    if (CHECK(got != NULL)) {
        CHECK_MEM(got, len, want, want_len);
        free(got);
    }
    expect_tree(format, want, want_len, tree);
}

static void expect_encoding_hex(const char *format, bt_node *tree, const char *hex) {
    unsigned char buf[1024];
    size_t n = unhex(hex, buf, sizeof buf);
    expect_encoding(format, tree, buf, n);
}

/* Encoding fails: the format cannot represent the tree (freed). */
static void expect_no_encoding(const char *format, bt_node *tree) {
    size_t len = 1;
    char *got = ref_encode(format, tree, &len);
    CHECK(got == NULL);
    free(got);
    bt_free(tree);
}

static uint64_t be32(const unsigned char *p) { return (uint64_t)p[0] << 24 | (uint64_t)p[1] << 16 | p[2] << 8 | p[3]; }

static double bits(uint64_t b) {
    double d;
    memcpy(&d, &b, 8);
    return d;
}

/* ---- JSON ------------------------------------------------------------------ */

TEST(json_encoder) {
    const char *want = "{\"a\":[1,-2,18446744073709551615,-9223372036854775808,5.0,-0.0,0.10000000000000001,"
                       "1.0000000000000001e+300,10000000000000000.0,4.9406564584124654e-324],"
                       "\"s\":\"q\\\"b\\\\n\\nt\\tc\\u0001\\u001f\\b\\f\\r/\xC3\xA9\x7F\",\"e\":{},\"l\":[],"
                       "\"n\":null,\"t\":true,\"f\":false}";
    bt_node *t = tb_map(
        7, "a",
        tb_array(10, tb_int(1), tb_int(-2), tb_uint(UINT64_MAX), tb_int(INT64_MIN), tb_double(5.0), tb_double(-0.0),
                 tb_double(0.1), tb_double(1e300), tb_double(1e16), tb_double(bits(1))),
        "s", tb_str("q\"b\\n\nt\tc\x01\x1f\b\f\r/\xC3\xA9\x7F"), "e", tb_map(0), "l", tb_array(0), "n", tb_null(),
        "t", tb_bool(1), "f", tb_bool(0));
    expect_encoding("json", t, want, strlen(want));
    /* a string with a 0x00 byte (jansson loads those) */
    expect_encoding("json", tb_strn("a\0b", 3), "\"a\\u0000b\"", 10);
    expect_no_encoding("json", tb_array(1, tb_double(INFINITY)));
    expect_no_encoding("json", tb_double(NAN));
}

TEST(json_numbers) {
    expect_json("0", tb_int(0));
    expect_json("-0", tb_int(0)); /* the integer 0: integers have no -0 */
    expect_json("-0.0", tb_double(-0.0));
    expect_json("5", tb_uint(5));
    expect_json("5.0", tb_double(5.0));
    expect_json("1E2", tb_double(100.0));
    expect_json("1e+2", tb_double(100.0));
    expect_json("25e-1", tb_double(2.5));
    expect_json("18446744073709551615", tb_uint(UINT64_MAX));
    expect_json("18446744073709551616", tb_double(18446744073709551616.0)); /* beyond uint64: a double */
    expect_json("-9223372036854775808", tb_int(INT64_MIN));
    expect_json("-9223372036854775809", tb_double(-9223372036854775808.0));
    expect_json("99999999999999999999999", tb_double(1e23));
    expect_json("0.1", tb_double(0.1));
    expect_json("2.2250738585072011e-308", tb_double(bits(0x000FFFFFFFFFFFFFull)));
    expect_json("4.9e-324", tb_double(bits(1)));
    expect_json("1e-400", tb_double(0.0)); /* underflow rounds to 0 */
    expect_json("1.7976931348623157e308", tb_double(bits(0x7FEFFFFFFFFFFFFFull)));
    expect_json(" \t\r\n[ 1 , 2 ]\n ", tb_array(2, tb_int(1), tb_int(2)));
    expect_json_error("1e400"); /* too large for a double */
    expect_json_error("01");
    expect_json_error("-");
    expect_json_error("1.");
    expect_json_error(".5");
    expect_json_error("1e");
    expect_json_error("1e+");
    expect_json_error("+1");
    expect_json_error("0x10");
    expect_json_error("NaN");
    expect_json_error("Infinity");
    expect_json_error("-Infinity");
    expect_json_error("1-2");
}

TEST(json_strings) {
    expect_json("\"\\u00e9\\u4E2D\\ud83d\\ude00\"", tb_str("\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80"));
    expect_json("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", tb_str("\"\\/\b\f\n\r\t"));
    expect_json("\"a\\u0000b\"", tb_strn("a\0b", 3));
    expect_json("\"\xF0\x9F\x9A\x80 \xC3\xBC\"", tb_str("\xF0\x9F\x9A\x80 \xC3\xBC"));
    expect_json("{\"k\\u0041\":1,\"k\":2,\"k\":3}", tb_map(3, "kA", tb_int(1), "k", tb_int(2), "k", tb_int(3)));
    expect_json_error("\"abc");
    expect_json_error("\"\x01\"");
    expect_json_error("\"\t\"");
    expect_json_error("\"\\x\"");
    expect_json_error("\"\\u12\"");
    expect_json_error("\"\\u12G4\"");
    expect_json_error("\"\\ud800\"");
    expect_json_error("\"\\udc00\"");
    expect_json_error("\"\\ud800\\u0041\"");
    expect_json_error("\"\\ud800\\ud800\"");
    expect_json_error("\"\xC0\xAF\"");         /* overlong */
    expect_json_error("\"\xE0\x80\xAF\"");     /* overlong */
    expect_json_error("\"\xED\xA0\x80\"");     /* surrogate */
    expect_json_error("\"\xF4\x90\x80\x80\""); /* above U+10FFFF */
    expect_json_error("\"\xF8\x88\x80\x80\x80\"");
    expect_json_error("\"\xC3\"");
    expect_json_error("\"\x80\"");
    expect_json_error("\"\xC3\xA9\\n\xFF\""); /* bad byte after an escape */
}

TEST(json_structure) {
    expect_json("[]", tb_array(0));
    expect_json("{}", tb_map(0));
    expect_json("\"x\"", tb_str("x"));
    expect_json("null", tb_null());
    expect_json("[true,false,null,{\"a\":[{}]}]",
                tb_array(4, tb_bool(1), tb_bool(0), tb_null(), tb_map(1, "a", tb_array(1, tb_map(0)))));
    const char *bad[] = {"", " ", "[", "]", "[1,]", "[,1]", "[1 2]", "{\"a\" 1}", "{\"a\":}", "{\"a\":1,}",
                         "{a:1}", "{1:1}", "{\"a\":1 \"b\":2}", "nul", "tru", "falsey", "[1]x", "[1][2]",
                         "\xEF\xBB\xBF[]", "[1]\x00", "/*c*/[]", "['a']", "[\"a\"]]", "{\"a\":1}}", "\x0c[]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) expect_error("json", bad[i], strlen(bad[i]) + (i == 19));
}

TEST(json_depth) {
    char buf[2 * 600 + 1];
    for (int depth = 511; depth <= 513; depth++) {
        for (int i = 0; i < depth; i++) buf[i] = '[', buf[depth + i] = ']';
        uint64_t h;
        char err[256];
        int rc = decode_exact("json", buf, 2 * (size_t)depth, &h, err, sizeof err);
        CHECK_EQ_INT(rc != 0, depth > 512);
    }
}

/* ---- MessagePack --------------------------------------------------------- */

TEST(msgpack_encoder) {
    expect_encoding_hex("msgpack",
                        tb_array(19, tb_int(0), tb_int(127), tb_int(128), tb_int(255), tb_int(256), tb_int(65535),
                                 tb_int(65536), tb_uint(4294967295u), tb_uint(4294967296u), tb_int(-1), tb_int(-32),
                                 tb_int(-33), tb_int(-128), tb_int(-129), tb_int(-32768), tb_int(-32769),
                                 tb_int(INT32_MIN), tb_int((int64_t)INT32_MIN - 1), tb_uint(UINT64_MAX)),
                        "dc 0013 00 7f cc80 ccff cd0100 cdffff ce00010000 ceffffffff cf0000000100000000"
                        "ff e0 d0df d080 d1ff7f d18000 d2ffff7fff d280000000 d3ffffffff7fffffff"
                        "cfffffffffffffffff");
    expect_encoding_hex("msgpack", tb_map(3, "n", tb_null(), "t", tb_bool(1), "d", tb_double(1.5)),
                        "83 a16e c0 a174 c3 a164 cb3ff8000000000000");
    char s32[300];
    memset(s32, 'x', sizeof s32);
    /* fixstr up to 31 bytes, then str 8, then str 16 */
    bt_node *t = tb_array(3, tb_strn(s32, 31), tb_strn(s32, 32), tb_strn(s32, 256));
    size_t len;
    char *out = ref_encode("msgpack", t, &len);
    if (CHECK(out != NULL) && CHECK_EQ_U64(len, 1 + 32 + 34 + 259)) {
        CHECK_EQ_INT((unsigned char)out[1], 0xbf);
        CHECK_EQ_INT((unsigned char)out[33], 0xd9);
        CHECK_EQ_INT((unsigned char)out[34], 32);
        CHECK_EQ_INT((unsigned char)out[67], 0xda);
    }
    free(out);
    bt_free(t);
    /* 16 elements: array 16; 16 entries: map 16 */
    bt_node *a = tb_array(16, tb_null(), tb_null(), tb_null(), tb_null(), tb_null(), tb_null(), tb_null(), tb_null(),
                          tb_null(), tb_null(), tb_null(), tb_null(), tb_null(), tb_null(), tb_null(), tb_null());
    out = ref_encode("msgpack", a, &len);
    if (CHECK(out != NULL)) CHECK_MEM(out, 3, "\xdc\x00\x10", 3);
    free(out);
    bt_free(a);
}

TEST(msgpack_decoder) {
    /* other encodings of the same values */
    expect_tree_hex("msgpack", "ca3fc00000", tb_double(1.5));
    expect_tree_hex("msgpack", "ca7f800000", tb_double(INFINITY));
    expect_tree_hex("msgpack", "ca00000001", tb_double(bits(0x36A0000000000000ull))); /* 2^-149 */
    expect_tree_hex("msgpack", "cf0000000000000005", tb_int(5));
    expect_tree_hex("msgpack", "d005", tb_int(5));
    expect_tree_hex("msgpack", "d3ffffffffffffffff", tb_int(-1));
    expect_tree_hex("msgpack", "d1fc18", tb_int(-1000));
    expect_tree_hex("msgpack", "d90161", tb_str("a"));
    expect_tree_hex("msgpack", "da000161", tb_str("a"));
    expect_tree_hex("msgpack", "dc0001 de0001 a16b c0", tb_array(1, tb_map(1, "k", tb_null())));
    expect_tree_hex("msgpack", "dd00000000", tb_array(0));
    expect_tree_hex("msgpack", "df00000000", tb_map(0));
    sbh h;
    sbh_init(&h);
    sbh_bin(&h, "abc", 3);
    expect_hash("msgpack", "\xc4\x03" "abc", 5, sbh_final(&h));
    sbh_init(&h); /* a map with an integer key: the key is absorbed as that value */
    sbh_map(&h);
    sbh_uint(&h, 1);
    sbh_uint(&h, 2);
    sbh_end(&h);
    expect_hash("msgpack", "\x81\x01\x02", 3, sbh_final(&h));
    /* errors */
    const char *bad[] = {"c1", "d4 01 00", "c7 00 01", "d8 01 00000000 00000000 00000000 00000000", "cb 00",
                         "dd ffffffff", "db ffffffff 61", "c4 05 01", "a2 c3 28", "c0 c0", "92 01", "81 a161",
                         "ed a0 80", "a3 ed a0 80", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) expect_error_hex("msgpack", bad[i]);
}

/* ---- CBOR ------------------------------------------------------------------ */

TEST(cbor_encoder) {
    expect_encoding_hex("cbor",
                        tb_array(16, tb_int(0), tb_int(23), tb_int(24), tb_int(255), tb_int(256), tb_int(65535),
                                 tb_int(65536), tb_uint(4294967296u), tb_uint(UINT64_MAX), tb_int(-1), tb_int(-24),
                                 tb_int(-25), tb_int(-256), tb_int(-257), tb_int(INT64_MIN), tb_int(INT64_MAX)),
                        "90 00 17 1818 18ff 190100 19ffff 1a00010000 1b0000000100000000 1bffffffffffffffff"
                        "20 37 3818 38ff 390100 3b7fffffffffffffff 1b7fffffffffffffff");
    expect_encoding_hex("cbor", tb_map(4, "n", tb_null(), "t", tb_bool(1), "f", tb_bool(0), "d", tb_double(1.5)),
                        "a4 616e f6 6174 f5 6166 f4 6164 fb3ff8000000000000");
    /* doubles stay float64 even when a shorter float would be exact */
    expect_encoding_hex("cbor", tb_array(2, tb_double(0.0), tb_double(-0.0)),
                        "82 fb0000000000000000 fb8000000000000000");
    char s[300];
    memset(s, 'y', sizeof s);
    bt_node *t = tb_array(3, tb_strn(s, 23), tb_strn(s, 24), tb_strn(s, 256));
    size_t len;
    char *out = ref_encode("cbor", t, &len);
    if (CHECK(out != NULL) && CHECK_EQ_U64(len, 1 + 24 + 26 + 259)) {
        CHECK_EQ_INT((unsigned char)out[1], 0x77);
        CHECK_EQ_INT((unsigned char)out[25], 0x78);
        CHECK_EQ_INT((unsigned char)out[51], 0x79);
    }
    free(out);
    bt_free(t);
}

TEST(cbor_decoder) {
    /* floats of every width, widened exactly */
    expect_tree_hex("cbor", "f93e00", tb_double(1.5));
    expect_tree_hex("cbor", "f93c00", tb_double(1.0));
    expect_tree_hex("cbor", "f97bff", tb_double(65504.0));
    expect_tree_hex("cbor", "f90001", tb_double(bits(0x3E70000000000000ull))); /* 2^-24 */
    expect_tree_hex("cbor", "f903ff", tb_double(bits(0x3F0FF80000000000ull))); /* largest subnormal */
    expect_tree_hex("cbor", "f98000", tb_double(-0.0));
    expect_tree_hex("cbor", "f97c00", tb_double(INFINITY));
    expect_tree_hex("cbor", "f9fc00", tb_double(-INFINITY));
    expect_tree_hex("cbor", "f97e00", tb_double(bits(0x7FF8000000000000ull)));
    expect_tree_hex("cbor", "fa3fc00000", tb_double(1.5));
    expect_tree_hex("cbor", "fa47c35000", tb_double(100000.0));
    expect_tree_hex("cbor", "fa00000001", tb_double(bits(0x36A0000000000000ull)));
    expect_tree_hex("cbor", "fa7f800000", tb_double(INFINITY));
    expect_tree_hex("cbor", "fb3ff8000000000000", tb_double(1.5));
    /* non-preferred argument widths */
    expect_tree_hex("cbor", "1805", tb_int(5));
    expect_tree_hex("cbor", "1b0000000000000005", tb_int(5));
    expect_tree_hex("cbor", "3800", tb_int(-1));
    expect_tree_hex("cbor", "780161", tb_str("a"));
    expect_tree_hex("cbor", "9900020102", tb_array(2, tb_int(1), tb_int(2)));
    /* indefinite lengths */
    expect_tree_hex("cbor", "9f0102ff", tb_array(2, tb_int(1), tb_int(2)));
    expect_tree_hex("cbor", "9fff", tb_array(0));
    expect_tree_hex("cbor", "bf616101ff", tb_map(1, "a", tb_int(1)));
    expect_tree_hex("cbor", "7f626162616360ff", tb_str("abc"));
    expect_tree_hex("cbor", "7fff", tb_str(""));
    expect_tree_hex("cbor", "bf7f6161ff9f9fffffff", tb_map(1, "a", tb_array(1, tb_array(0))));
    sbh h;
    sbh_init(&h);
    sbh_bin(&h, "\x01\x02", 2);
    expect_hash("cbor", "\x5f\x41\x01\x41\x02\xff", 6, sbh_final(&h));
    /* tags: 55799 skipped, bignums that fit are integers */
    expect_tree_hex("cbor", "d9d9f7 83 010203", tb_array(3, tb_int(1), tb_int(2), tb_int(3)));
    expect_tree_hex("cbor", "d9d9f7 d9d9f7 f6", tb_null());
    expect_tree_hex("cbor", "c2 42 0100", tb_int(256));
    expect_tree_hex("cbor", "c2 49 00ffffffffffffffff", tb_uint(UINT64_MAX));
    expect_tree_hex("cbor", "c2 40", tb_int(0));
    expect_tree_hex("cbor", "c3 41 00", tb_int(-1));
    expect_tree_hex("cbor", "c3 48 7fffffffffffffff", tb_int(INT64_MIN));
    expect_tree_hex("cbor", "c2 5f 4101 4100 ff", tb_int(256));
    /* a map with a non-string key: absorbed as that value */
    sbh_init(&h);
    sbh_map(&h);
    sbh_int(&h, -1);
    sbh_str(&h, "x", 1);
    sbh_end(&h);
    expect_hash("cbor", "\xa1\x20\x61x", 4, sbh_final(&h));
    /* errors */
    const char *bad[] = {"f7", "f0", "f810", "f8ff", "ff", "1c", "1d", "1e", "3f", "df", "5f 6161 ff", "7f 7f ff ff",
                         "5f 01 ff", "c1 00", "c0 6161", "d820 6161", "3bffffffffffffffff", "c2 49 010000000000000000",
                         "c3 48 8000000000000000", "c2 01", "9bffffffffffffffff", "7bffffffffffffffff 61",
                         "62 c328", "7f 61 c3 61 a9 ff", "9f 01", "bf 6161 ff", "a1 01", "82 01", "18", "f9 00",
                         "fb 00 00", "00 00", "", "7f 62 61"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) expect_error_hex("cbor", bad[i]);
}

/* ---- BSON ------------------------------------------------------------------ */

TEST(bson_encoder) {
    expect_encoding_hex("bson",
                        tb_map(6, "a", tb_int(1), "b", tb_array(2, tb_bool(1), tb_null()), "c", tb_str("x"), "d",
                               tb_double(1.5), "e", tb_int((int64_t)1 << 40), "f", tb_int(-2147483648LL)),
                        "41000000"
                        "10 6100 01000000"
                        "04 6200 0c000000 08 3000 01 0a 3100 00"
                        "02 6300 02000000 7800"
                        "01 6400 000000000000f83f"
                        "12 6500 0000000000010000"
                        "10 6600 00000080"
                        "00");
    expect_encoding_hex("bson", tb_map(0), "0500000000");
    /* a root array becomes a map after bt_adapt, not before */
    expect_no_encoding("bson", tb_array(1, tb_int(1)));
    expect_no_encoding("bson", tb_map(1, "a", tb_uint((uint64_t)INT64_MAX + 1)));
    bt_node *k = tb_map(1, "ab", tb_null());
    ((char *)k->v.c.items[0].v.str.ptr)[1] = 0; /* a key with a 0x00 byte */
    expect_no_encoding("bson", k);
    /* bt_adapt: root array -> map "0", "1"; big uint -> double */
    bt_node *a = tb_array(2, tb_uint(UINT64_MAX), tb_str("s"));
    bt_adapt("bson", a);
    size_t len;
    char *out = ref_encode("bson", a, &len);
    bt_free(a);
    if (CHECK(out != NULL)) {
        const char *want = "\x19\x00\x00\x00\x01"
                           "0\x00\x00\x00\x00\x00\x00\x00\xf0\x43\x02"
                           "1\x00\x02\x00\x00\x00s\x00\x00";
        CHECK_MEM(out, len, want, 25);
    }
    free(out);
}

TEST(bson_decoder) {
    expect_tree_hex("bson", "10000000 12 6100 0100000000000000 00", tb_map(1, "a", tb_int(1)));
    expect_tree_hex("bson", "0d000000 08 6100 00 08 6200 01 00", tb_map(2, "a", tb_bool(0), "b", tb_bool(1)));
    expect_tree_hex("bson", "0d000000 04 6100 05000000 00 00", tb_map(1, "a", tb_array(0)));
    expect_tree_hex("bson", "0d000000 03 6100 05000000 00 00", tb_map(1, "a", tb_map(0)));
    expect_tree_hex("bson", "12000000 02 6100 06000000 c3a9 e4b8ad 00 00", tb_map(1, "a", tb_str("\xC3\xA9\xE4\xB8\xAD")));
    expect_tree_hex("bson", "10000000 02 6100 04000000 610062 00 00", tb_map(1, "a", tb_strn("a\0b", 3)));
    sbh h;
    sbh_init(&h);
    sbh_map(&h);
    sbh_key(&h, "a", 1);
    sbh_bin(&h, "\x01\x02", 2);
    sbh_end(&h);
    expect_hash("bson", "\x0f\x00\x00\x00\x05" "a\x00\x02\x00\x00\x00\x00\x01\x02\x00", 15, sbh_final(&h));
    const char *bad[] = {
        "",
        "04000000",
        "05000000",                                  /* no terminator */
        "06000000 00 00",                            /* ends before its length */
        "05000000 01",                               /* terminator not 0x00 */
        "0c000000 07 6100 000000000000",             /* ObjectId: not supported */
        "09000000 0a 6100 00 00",                    /* length larger than the document ... */
        "08000000 0a 6100",                          /* ... or no terminator */
        "09000000 08 6100 02 00",                    /* boolean 2 */
        "0d000000 02 6100 00000000 00 00",           /* string length 0 */
        "0d000000 02 6100 01000000 61 00",           /* string not ending in 0x00 */
        "0d000000 02 6100 ffffff7f 00 00",           /* string length beyond the document */
        "13000000 04 6100 0b000000 0a 3100 0a 3000 00 00", /* array keys out of order */
        "10000000 04 6100 08000000 0a 7800 00 00",   /* array key not an index */
        "11000000 04 6100 09000000 0a 303000 00 00", /* array key "00" */
        "0a000000 0a 6100 00 00 00",                 /* data after the document's terminator */
        "05000000 00 00",                            /* data after the root */
        "ffffff7f 00",                               /* declared length beyond the input */
        "feffffff 00",                               /* negative length */
        "07000000 0a 6162",                          /* unterminated name */
        "08000000 0a c300 00",                      /* name not UTF-8 */
        "0e000000 05 6100 01000000 04 00 00",        /* binary subtype 4 */
        "0e000000 05 6100 ffffffff 00 00 00",        /* negative binary length */
        "0a000000 10 6100 0000 00",                  /* truncated int32 */
        "0c000000 13 6100 00000000 00",              /* decimal128: not supported */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) expect_error_hex("bson", bad[i]);
}

/* ---- UBJSON ---------------------------------------------------------------- */

TEST(ubjson_encoder) {
    expect_encoding_hex("ubjson",
                        tb_array(14, tb_int(0), tb_int(127), tb_int(128), tb_int(255), tb_int(256), tb_int(-128),
                                 tb_int(-129), tb_int(32767), tb_int(32768), tb_int(-32769), tb_int(2147483647),
                                 tb_int(2147483648LL), tb_int(INT64_MIN), tb_uint(INT64_MAX)),
                        "5b 6900 697f 5580 55ff 490100 6980 49ff7f 497fff 6c00008000 6cffff7fff 6c7fffffff"
                        "4c0000000080000000 4c8000000000000000 4c7fffffffffffffff 5d");
    expect_encoding_hex("ubjson", tb_map(4, "n", tb_null(), "t", tb_bool(1), "f", tb_bool(0), "d", tb_double(1.5)),
                        "7b 69016e 5a 690174 54 690166 46 690164 443ff8000000000000 7d");
    expect_encoding_hex("ubjson", tb_array(2, tb_str("ab"), tb_map(0)), "5b 53 6902 6162 7b7d 5d");
    expect_no_encoding("ubjson", tb_uint(UINT64_MAX));
    char s[300];
    memset(s, 'z', sizeof s);
    bt_node *t = tb_strn(s, 200);
    size_t len;
    char *out = ref_encode("ubjson", t, &len);
    if (CHECK(out != NULL)) CHECK_MEM(out, 3, "S\x55\xc8", 3); /* length 200 as uint8 */
    free(out);
    bt_free(t);
}

TEST(ubjson_decoder) {
    expect_tree_hex("ubjson", "5b 23 69 03 6901 6902 6903", tb_array(3, tb_int(1), tb_int(2), tb_int(3)));
    expect_tree_hex("ubjson", "5b 24 69 23 69 03 01 02 03", tb_array(3, tb_int(1), tb_int(2), tb_int(3)));
    expect_tree_hex("ubjson", "5b 24 54 23 69 02", tb_array(2, tb_bool(1), tb_bool(1)));
    expect_tree_hex("ubjson", "5b 24 5a 23 55 00", tb_array(0));
    expect_tree_hex("ubjson", "5b 23 69 00", tb_array(0));
    expect_tree_hex("ubjson", "7b 24 5a 23 69 02 690161 690162", tb_map(2, "a", tb_null(), "b", tb_null()));
    expect_tree_hex("ubjson", "7b 23 69 01 690161 5a", tb_map(1, "a", tb_null()));
    expect_tree_hex("ubjson", "7b 24 53 23 69 01 690161 6901 78", tb_map(1, "a", tb_str("x")));
    expect_tree_hex("ubjson", "5b 24 64 23 69 02 3fc00000 7f800000", tb_array(2, tb_double(1.5), tb_double(INFINITY)));
    /* nested typed containers: each element is a container body */
    expect_tree_hex("ubjson", "5b 24 5b 23 69 02 23 69 01 69 05 5d",
                    tb_array(2, tb_array(1, tb_int(5)), tb_array(0)));
    /* no-ops inside containers are skipped, also not counted by # */
    expect_tree_hex("ubjson", "5b 4e 6901 4e 4e 5d", tb_array(1, tb_int(1)));
    expect_tree_hex("ubjson", "5b 23 69 01 4e 6901", tb_array(1, tb_int(1)));
    expect_tree_hex("ubjson", "7b 4e 690161 4e 5a 4e 7d", tb_map(1, "a", tb_null()));
    /* values */
    expect_tree_hex("ubjson", "643fc00000", tb_double(1.5));
    expect_tree_hex("ubjson", "4c0000000000000005", tb_int(5));
    expect_tree_hex("ubjson", "55ff", tb_int(255));
    expect_tree_hex("ubjson", "69ff", tb_int(-1));
    expect_tree_hex("ubjson", "49ff00", tb_int(-256));
    expect_tree_hex("ubjson", "6cffffffff", tb_int(-1));
    expect_tree_hex("ubjson", "4361", tb_str("a"));
    expect_tree_hex("ubjson", "53 4c0000000000000001 61", tb_str("a"));
    expect_tree_hex("ubjson", "48 6903 313233", tb_int(123));
    expect_tree_hex("ubjson", "48 6904 312e3530", tb_double(1.5));
    expect_tree_hex("ubjson", "48 6903 316533", tb_double(1000.0));
    expect_tree_hex("ubjson", "48 6914 3138343436373434303733373039353531363136", tb_double(18446744073709551616.0));
    expect_tree_hex("ubjson", "48 6914 3138343436373434303733373039353531363135", tb_uint(UINT64_MAX));
    const char *bad[] = {"", "4e", "4e 5a", "5a 5a", "78", "5b", "5b 6901", "5b 24 69 5d", "5b 24 4e 23 69 01",
                         "5b 24 24 23 69 01", "5b 23 69 ff", "5b 23 64 00000000", "5b 23 69 02 6901",
                         "5b 24 5a 23 4c 7fffffffffffffff", "7b 24 5a 23 6c 7fffffff 690161",
                         "5b 23 4c 7fffffffffffffff 5a", "53 4c 7fffffffffffffff 61", "53 69 ff", "53 5a",
                         "53 6902 c328", "4380", "44 00", "7b 690161 7d", "7b 5a 5a 7d", "7b 690161 5a",
                         "48 6902 3031", "48 6901 2d", "48 6905 3165343030", "5d", "7d"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) expect_error_hex("ubjson", bad[i]);
}

/* ---- Binn ------------------------------------------------------------------ */

/* The spec's "list of objects" example. */
static bt_node *list_of_objects(void) {
    return tb_array(2, tb_map(2, "id", tb_int(1), "name", tb_str("John")),
                    tb_map(2, "id", tb_int(2), "name", tb_str("Eric")));
}

TEST(binn_spec_examples) {
    /* {"hello":"world"}: 17 bytes */
    expect_encoding_hex("binn", tb_map(1, "hello", tb_str("world")), "e2 11 01 0568656c6c6f a0 05 776f726c6400");
    /* [123, -456, 789]: 11 bytes */
    expect_encoding_hex("binn", tb_array(3, tb_int(123), tb_int(-456), tb_int(789)), "e0 0b 03 20 7b 41 fe38 40 0315");
    /* {1: "add", 2: [-12345, 6789]}: a map with integer keys, 26 bytes */
    sbh h;
    sbh_init(&h);
    sbh_map(&h);
    sbh_int(&h, 1);
    sbh_str(&h, "add", 3);
    sbh_int(&h, 2);
    sbh_array(&h);
    sbh_int(&h, -12345);
    sbh_int(&h, 6789);
    sbh_end(&h);
    sbh_end(&h);
    unsigned char buf[64];
    size_t n = unhex("e1 1a 02 00000001 a0 03 61646400 00000002 e0 09 02 41 cfc7 40 1a85", buf, sizeof buf);
    CHECK_EQ_U64(n, 26);
    expect_hash("binn", buf, n, sbh_final(&h));
    /* a list of objects: 43 bytes */
    n = unhex("e0 2b 02"
              "e2 14 02 026964 20 01 046e616d65 a0 04 4a6f686e00"
              "e2 14 02 026964 20 02 046e616d65 a0 04 4572696300",
              buf, sizeof buf);
    CHECK_EQ_U64(n, 43);
    expect_encoding("binn", list_of_objects(), buf, n);
}

TEST(binn_encoder) {
    expect_encoding_hex("binn",
                        tb_array(16, tb_int(0), tb_int(255), tb_int(256), tb_int(65535), tb_int(65536),
                                 tb_uint(4294967296u), tb_int(-1), tb_int(-128), tb_int(-129), tb_int(-32769),
                                 tb_int(INT64_MIN), tb_null(), tb_bool(1), tb_bool(0), tb_double(1.5), tb_str("")),
                        "e0 3f 10 2000 20ff 400100 40ffff 6000010000 800000000100000000 21ff 2180 41ff7f"
                        "61ffff7fff 818000000000000000 00 01 02 823ff8000000000000 a00000");
    /* keys up to 255 bytes */
    char key[257];
    memset(key, 'k', sizeof key);
    key[255] = 0;
    bt_node *k = tb_map(1, key, tb_null());
    size_t klen;
    char *kout = ref_encode("binn", k, &klen);
    if (CHECK(kout != NULL)) CHECK_EQ_U64(klen, 1 + 4 + 1 + 1 + 255 + 1);
    free(kout);
    bt_free(k);
    key[255] = 'k';
    key[256] = 0;
    expect_no_encoding("binn", tb_map(1, key, tb_null()));
    /* size boundary: a total of 127 bytes keeps the 1-byte size, 128 takes 4 */
    char s[200];
    memset(s, 'w', sizeof s);
    for (size_t len = 120; len <= 124; len++) {
        bt_node *t = tb_array(1, tb_strn(s, len));
        size_t total = len + 6 <= 127 ? len + 6 : len + 9, got_len;
        char *out = ref_encode("binn", t, &got_len);
        if (CHECK(out != NULL) && CHECK_EQ_U64(got_len, total)) {
            if (total <= 127) {
                CHECK_EQ_INT((unsigned char)out[1], total);
            } else {
                CHECK_EQ_INT((unsigned char)out[1], 0x80);
                CHECK_EQ_U64(be32((unsigned char *)out + 1), 0x80000000u | total);
            }
            uint64_t h;
            char err[256];
            CHECK(decode_exact("binn", out, got_len, &h, err, sizeof err) == 0);
            CHECK_EQ_U64(h, tree_hash(t));
        }
        free(out);
        bt_free(t);
    }
    /* a string of 128 bytes: 4-byte size */
    bt_node *t = tb_strn(s, 128);
    size_t len;
    char *out = ref_encode("binn", t, &len);
    if (CHECK(out != NULL) && CHECK_EQ_U64(len, 1 + 4 + 128 + 1)) CHECK_MEM(out, 5, "\xa0\x80\x00\x00\x80", 5);
    free(out);
    bt_free(t);
}

TEST(binn_decoder) {
    /* 4-byte size and count parameters for small values */
    expect_tree_hex("binn", "e0 80000008 01 2005", tb_array(1, tb_int(5)));
    expect_tree_hex("binn", "e0 08 80000001 2005", tb_array(1, tb_int(5)));
    expect_tree_hex("binn", "a0 80000001 6100", tb_str("a"));
    /* other integer widths and floats */
    expect_tree_hex("binn", "800000000000000005", tb_int(5));
    expect_tree_hex("binn", "21ff", tb_int(-1));
    expect_tree_hex("binn", "41ffff", tb_int(-1));
    expect_tree_hex("binn", "61ffffffff", tb_int(-1));
    expect_tree_hex("binn", "81ffffffffffffffff", tb_int(-1));
    expect_tree_hex("binn", "2105", tb_int(5));
    expect_tree_hex("binn", "80ffffffffffffffff", tb_uint(UINT64_MAX));
    expect_tree_hex("binn", "623fc00000", tb_double(1.5));
    expect_tree_hex("binn", "e2 03 00", tb_map(0));
    expect_tree_hex("binn", "e0 03 00", tb_array(0));
    expect_tree_hex("binn", "a0 03 610062 00", tb_strn("a\0b", 3));
    sbh h;
    sbh_init(&h);
    sbh_bin(&h, "\x01\x02", 2);
    expect_hash("binn", "\xc0\x02\x01\x02", 4, sbh_final(&h));
    sbh_init(&h);
    sbh_map(&h);
    sbh_int(&h, -1);
    sbh_null(&h);
    sbh_end(&h);
    expect_hash("binn", "\xe1\x08\x01\xff\xff\xff\xff\x00", 8, sbh_final(&h));
    const char *bad[] = {
        "",
        "03",                           /* unknown type */
        "a1 01 6100",                   /* DateTime: not supported */
        "b0 01 01 6100",                /* a two-byte type */
        "20",                           /* truncated */
        "a0 01 61",                     /* no terminator */
        "a0 01 6161",                   /* terminator not 0x00 */
        "a0 02 c328 00",                /* not UTF-8 */
        "a0 ffffffff 00",               /* size beyond the input */
        "c0 05 01",                     /* blob size beyond the input */
        "e0 02 00",                     /* size smaller than the header */
        "e0 05 01 2005 00",             /* size larger than the items (and a byte left over) */
        "e0 06 01 2005 00",             /* size 6 but 5 bytes of items, the sixth not an item */
        "e0 05 02 2005",                /* count larger than the items */
        "e0 07 01 2005 00 00",          /* declared size leaves an extra byte in the container */
        "e0 04 01 20",                  /* the item crosses the container's end */
        "e0 ffffffff ffffffff",         /* huge size and count */
        "e0 0a ffffffff 00 00 00 00",   /* huge count */
        "e2 06 01 05 6162 00",          /* key crosses the end */
        "e2 05 01 01 c3",               /* key not UTF-8 (and no value) */
        "e1 06 01 000000",              /* truncated map key */
        "e0 03 00 00",                  /* data after the root */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) expect_error_hex("binn", bad[i]);
}

/* ---- every format ---------------------------------------------------------- */

TEST(dispatch) {
    int n = 0;
    for (int i = 0; ref_formats[i]; i++) n++;
    CHECK_EQ_INT(n, 6);
    CHECK(strcmp(ref_formats[0], "json") == 0 && strcmp(ref_formats[5], "binn") == 0);
    CHECK(ref_known_format("cbor"));
    CHECK(!ref_known_format("xml"));
    CHECK(!ref_known_format(NULL));
    size_t len = 7;
    bt_node *t = tb_null();
    CHECK(ref_encode("xml", t, &len) == NULL);
    bt_free(t);
    sbh h;
    sbh_init(&h);
    char err[64];
    CHECK(ref_decode("xml", "null", 4, &h, err, sizeof err) != 0);
    CHECK(strstr(err, "xml") != NULL);
    CHECK(ref_decode("json", "nul", 3, &h, NULL, 0) != 0); /* no message buffer */
    char tiny[8];
    CHECK(ref_decode("json", "nul", 3, &h, tiny, sizeof tiny) != 0); /* message cut short, terminated */
    CHECK(strlen(tiny) < sizeof tiny);
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){{"json_encoder", json_encoder},
                                  {"json_numbers", json_numbers},
                                  {"json_strings", json_strings},
                                  {"json_structure", json_structure},
                                  {"json_depth", json_depth},
                                  {"msgpack_encoder", msgpack_encoder},
                                  {"msgpack_decoder", msgpack_decoder},
                                  {"cbor_encoder", cbor_encoder},
                                  {"cbor_decoder", cbor_decoder},
                                  {"bson_encoder", bson_encoder},
                                  {"bson_decoder", bson_decoder},
                                  {"ubjson_encoder", ubjson_encoder},
                                  {"ubjson_decoder", ubjson_decoder},
                                  {"binn_spec_examples", binn_spec_examples},
                                  {"binn_encoder", binn_encoder},
                                  {"binn_decoder", binn_decoder},
                                  {"dispatch", dispatch},
                                  {0}});
}
