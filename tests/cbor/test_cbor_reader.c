/* The CBOR pull reader and tree parser: every major type, heads of every
 * size, floats of every width decoded exactly, indefinite containers and
 * strings, tags and chains of tags, simple values, keys of any type, the
 * limits (depth, tags, joined strings), duplicate keys and deterministic
 * validation, sequences, skip, streams of every chunk size, and allocation
 * failure at every point. */
#include <math.h>

#include "alloc_test.h"
#include "cbor_test.h"
#include "core/doc_internal.h"

/* read hex, expect the event text and a clean end */
#define READS(hex, want)                                                \
    do {                                                                \
        evtext t_;                                                      \
        CHECK_EQ_INT(read_text(hex, NULL, &t_, NULL), SDX_OK);         \
        CHECK_STR(t_.s, t_.n, want);                                    \
    } while (0)

/* read hex, expect the error code at the offset */
#define FAILS(hex, opts, code, at)                                      \
    do {                                                                \
        evtext t_;                                                      \
        size_t off_ = 0;                                                \
        CHECK_EQ_INT(read_text(hex, opts, &t_, &off_), code);          \
        CHECK_EQ_U64(off_, at);                                         \
    } while (0)

TEST(integers) {
    READS("00", "0");
    READS("17", "23");
    READS("1818", "24");
    READS("1903e8", "1000");
    READS("1a000f4240", "1000000");
    READS("1b000000e8d4a51000", "1000000000000");
    READS("1b7fffffffffffffff", "9223372036854775807");
    READS("1b8000000000000000", "9223372036854775808u");
    READS("1bffffffffffffffff", "18446744073709551615u");
    READS("20", "-1");
    READS("3863", "-100");
    READS("3903e7", "-1000");
    READS("3b7fffffffffffffff", "-9223372036854775808");
    READS("3b8000000000000000", "-1-9223372036854775808");
    READS("3bffffffffffffffff", "-1-18446744073709551615");
    /* non-preferred heads are well-formed */
    READS("1800", "0");
    READS("1b0000000000000001", "1");
}

TEST(floats) {
    READS("f90000", "0_1");
    READS("f98000", "-0_1");
    READS("f93c00", "1_1");
    READS("fb3ff199999999999a", "1.1000000000000001");
    READS("f93e00", "1.5_1");
    READS("f97bff", "65504_1");
    READS("fa47c35000", "100000_2");
    READS("fa7f7fffff", "3.4028234663852886e+38_2");
    READS("fb7e37e43c8800759c", "1.0000000000000001e+300");
    READS("f90001", "5.9604644775390625e-08_1");
    READS("f90400", "6.103515625e-05_1");
    READS("f9c400", "-4_1");
    READS("f97c00", "inf_1");
    READS("f9fc00", "-inf_1");
    READS("fa7f800000", "inf_2");
    /* NaNs keep their payload bits */
    static const unsigned char nan16[] = {0xf9, 0x7e, 0x01};
    sdx_cbor_reader *r = sdx_cbor_reader_new((const char *)nan16, 3, NULL);
    sdx_event ev;
    CHECK(sdx_cbor_reader_next(r, &ev));
    uint64_t bits;
    memcpy(&bits, &ev.v.d, 8);
    CHECK_EQ_U64(bits, 0x7ff8040000000000ull);
    sdx_cbor_reader_free(r);
    /* every half decodes exactly and encodes back to itself */
    int ok = 1;
    for (uint32_t h = 0; h < 0x10000; h++) {
        unsigned char in[3] = {0xf9, (unsigned char)(h >> 8), (unsigned char)h};
        r = sdx_cbor_reader_new((const char *)in, 3, NULL);
        ok &= sdx_cbor_reader_next(r, &ev) && ev.kind == SDX_DOUBLE;
        sdx_cbor_reader_free(r);
        /* the value itself, computed independently from the definition */
        unsigned e = h >> 10 & 31, m = h & 1023;
        double want = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, (int)e - 25);
        if (h & 0x8000) want = -want;
        if (e == 31 && m) ok &= isnan(ev.v.d);
        else ok &= ev.v.d == want && (signbit(ev.v.d) != 0) == ((h & 0x8000) != 0);
        sdx_buf out;
        sdx_buf_init(&out, NULL);
        sdx_cbor_writer w;
        sdx_cbor_writer_init(&w, &out, NULL);
        sdx_cbor_writer_double(&w, ev.v.d);
        sdx_cbor_writer_finish(&w);
        if (!(e == 31 && m)) ok &= sdx_buf_len(&out) == 3 && memcmp(sdx_buf_data(&out), in, 3) == 0;
        sdx_buf_destroy(&out);
        if (!ok) {
            fprintf(stderr, "  half %04x\n", h);
            break;
        }
    }
    CHECK(ok);
}

TEST(strings_and_containers) {
    READS("40", "h\"\"");
    READS("4401020304", "h\"\\x01\\x02\\x03\\x04\"");
    READS("60", "\"\"");
    READS("6449455446", "\"IETF\"");
    READS("62225c", "\"\"\\\"");
    READS("80", "[0 }");
    READS("8301820203820405", "[3 1 [2 2 3 } [2 4 5 } }");
    READS("a0", "{0 }");
    READS("a201020304", "{2 1 2 3 4 }");
    READS("a26161016162820203", "{2 k\"a\" 1 k\"b\" [2 2 3 } }");
    READS("826161a161626163", "[2 \"a\" {1 k\"b\" \"c\" } }");
    /* indefinite */
    READS("5f42010243030405ff", "h\"\\x01\\x02\\x03\\x04\\x05\"");
    READS("7f657374726561646d696e67ff", "\"streaming\"");
    READS("5fff", "h\"\"");
    READS("7f6060ff", "\"\"");
    READS("9fff", "[_ }");
    READS("9f018202039f0405ffff", "[_ 1 [2 2 3 } [_ 4 5 } }");
    READS("83018202039f0405ff", "[3 1 [2 2 3 } [_ 4 5 } }");
    READS("bf61610161629f0203ffff", "{_ k\"a\" 1 k\"b\" [_ 2 3 } }");
    READS("bf6346756ef563416d7421ff", "{_ k\"Fun\" true k\"Amt\" -2 }");
    READS("bf7f6161ff01ff", "{_ k\"a\" 1 }"); /* an indefinite text key */
    /* keys of any type */
    READS("a2f5f60102", "{2 true null 1 2 }");
    READS("a1820102a0", "{1 [2 1 2 } {0 } }");
}

TEST(tags_and_simple) {
    READS("c074323031332d30332d32315432303a30343a30305a", "0:\"2013-03-21T20:04:00Z\"");
    READS("c11a514b67b0", "1:1363896240");
    READS("c249010000000000000000", "2:h\"\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\"");
    READS("d82076687474703a2f2f7777772e6578616d706c652e636f6d", "32:\"http://www.example.com\"");
    READS("d83dd280", "61:18:[0 }");
    READS("d9d9f7d83dd28101", "55799:61:18:[1 1 }");
    READS("dbffffffffffffffff00", "18446744073709551615:0");
    READS("a1c1616101", "{1 1:k\"a\" 1 }");
    READS("f4", "false");
    READS("f0", "simple(16)");
    READS("f7", "simple(23)");
    READS("f820", "simple(32)");
    READS("f8ff", "simple(255)");
    READS("c1f7", "1:simple(23)"); /* a tag on a simple value is an event of its own */
    READS("c1f6", "1:null");
    READS("84f4f5f6f7", "[4 false true null simple(23) }");
}

TEST(not_well_formed) {
    /* RFC 8949 Appendix F classes, each with the offset of the bad item */
    FAILS("1c", NULL, SDX_ERR_SYNTAX, 0);        /* reserved additional information */
    FAILS("811d", NULL, SDX_ERR_SYNTAX, 1);
    FAILS("fe", NULL, SDX_ERR_SYNTAX, 0);
    FAILS("1f", NULL, SDX_ERR_SYNTAX, 0);        /* indefinite on major 0 */
    FAILS("3f", NULL, SDX_ERR_SYNTAX, 0);
    FAILS("df", NULL, SDX_ERR_SYNTAX, 0);
    FAILS("ff", NULL, SDX_ERR_SYNTAX, 0);        /* break outside */
    FAILS("81ff", NULL, SDX_ERR_SYNTAX, 1);
    FAILS("8200ff", NULL, SDX_ERR_SYNTAX, 2);
    FAILS("bf00ff", NULL, SDX_ERR_SYNTAX, 2);    /* break where a value is due */
    FAILS("9fc0ff", NULL, SDX_ERR_SYNTAX, 2);    /* break after a tag */
    FAILS("f800", NULL, SDX_ERR_SYNTAX, 0);      /* two-byte simple below 32 */
    FAILS("f81f", NULL, SDX_ERR_SYNTAX, 0);
    FAILS("5f00ff", NULL, SDX_ERR_SYNTAX, 1);    /* chunk of another type */
    FAILS("5f21ff", NULL, SDX_ERR_SYNTAX, 1);
    FAILS("5f6100ff", NULL, SDX_ERR_SYNTAX, 1);
    FAILS("5f80ff", NULL, SDX_ERR_SYNTAX, 1);
    FAILS("5fc000ff", NULL, SDX_ERR_SYNTAX, 1);
    FAILS("7f4100ff", NULL, SDX_ERR_SYNTAX, 1);
    FAILS("5f5f4100ffff", NULL, SDX_ERR_SYNTAX, 1); /* nested indefinite chunk */
    FAILS("7f7f6100ffff", NULL, SDX_ERR_SYNTAX, 1);
    FAILS("5f41", NULL, SDX_ERR_TRUNCATED, 0);
    FAILS("5f", NULL, SDX_ERR_TRUNCATED, 0);
    /* the input ends inside the unclosed container: reported at its first
     * byte, as for a definite count the input cannot meet (Appendix F) */
    FAILS("9f", NULL, SDX_ERR_TRUNCATED, 0);
    FAILS("9f0102", NULL, SDX_ERR_TRUNCATED, 0);
    FAILS("bf0102", NULL, SDX_ERR_TRUNCATED, 0);
    FAILS("9f0181", NULL, SDX_ERR_TRUNCATED, 2);
    FAILS("18", NULL, SDX_ERR_TRUNCATED, 0);
    FAILS("1b000000000000", NULL, SDX_ERR_TRUNCATED, 0);
    FAILS("62", NULL, SDX_ERR_TRUNCATED, 0);
    FAILS("6261", NULL, SDX_ERR_TRUNCATED, 0);
    FAILS("c0", NULL, SDX_ERR_TRUNCATED, 0);     /* at the tag missing its content */
    FAILS("81c0c1", NULL, SDX_ERR_TRUNCATED, 2); /* the innermost tag */
    /* a count beyond the input, but a syntax error comes first in reading
     * order (Appendix F.1: a break in a definite-length map) */
    FAILS("a1ff", NULL, SDX_ERR_SYNTAX, 1);
    FAILS("a20000ff", NULL, SDX_ERR_SYNTAX, 3);
    FAILS("829bffffffffffffffff1cff", NULL, SDX_ERR_SYNTAX, 10);
    FAILS("", NULL, SDX_ERR_TRUNCATED, 0);
    FAILS("0000", NULL, SDX_ERR_SYNTAX, 1);      /* bytes after the item */
    FAILS("62c328", NULL, SDX_ERR_UTF8, 0);
    FAILS("7f61c3ff", NULL, SDX_ERR_UTF8, 1);   /* each chunk valid on its own */
    FAILS("7f61c361a9ff", NULL, SDX_ERR_UTF8, 1);
    /* huge declared counts and lengths fail at once */
    FAILS("9bffffffffffffffff", NULL, SDX_ERR_TRUNCATED, 0);
    FAILS("bbffffffffffffffff00", NULL, SDX_ERR_TRUNCATED, 0);
    FAILS("5bffffffffffffffff00", NULL, SDX_ERR_TRUNCATED, 0);
    FAILS("7bffffffffffffffff00", NULL, SDX_ERR_TRUNCATED, 0);
    FAILS("5f5bffffffffffffffff00ff", NULL, SDX_ERR_TRUNCATED, 0);
    FAILS("8201", NULL, SDX_ERR_TRUNCATED, 0);
}

TEST(limits) {
    sdx_cbor_read_opts o = {0, 3, 2, 4, NULL};
    FAILS("81818180", &o, SDX_ERR_DEPTH, 3);
    evtext t;
    CHECK_EQ_INT(read_text("818180", &o, &t, NULL), SDX_OK);
    FAILS("c1c2c300", &o, SDX_ERR_LIMIT, 2);
    CHECK_EQ_INT(read_text("c1c200", &o, &t, NULL), SDX_OK);
    FAILS("5f4301020342040506ff", &o, SDX_ERR_LIMIT, 0);
    CHECK_EQ_INT(read_text("5f420102420304ff", &o, &t, NULL), SDX_OK);
    CHECK_STR(t.s, t.n, "h\"\\x01\\x02\\x03\\x04\"");
    /* the default depth, without recursion */
    static unsigned char deep[200000];
    memset(deep, 0x81, sizeof deep);
    deep[sizeof deep - 1] = 0;
    sdx_cbor_reader *r = sdx_cbor_reader_new((const char *)deep, sizeof deep, NULL);
    sdx_event ev;
    while (sdx_cbor_reader_next(r, &ev)) {
    }
    sdx_error e;
    CHECK_EQ_INT(sdx_cbor_reader_error(r, &e), SDX_ERR_DEPTH);
    CHECK_EQ_U64(e.offset, SDX_CBOR_DEFAULT_MAX_DEPTH);
    sdx_cbor_reader_free(r);
    sdx_cbor_read_opts big = {0, 300000, 0, 0, NULL};
    sdx_doc *doc = sdx_cbor_parse((const char *)deep, sizeof deep, &big, &e);
    CHECK(doc != NULL);
    sdx_doc_free(doc);
}

TEST(key_checks) {
    sdx_cbor_read_opts dup = {SDX_CBOR_READ_REJECT_DUPLICATE_KEYS, 0, 0, 0, NULL};
    sdx_cbor_read_opts det = {SDX_CBOR_READ_DETERMINISTIC, 0, 0, 0, NULL};
    evtext t;
    CHECK_EQ_INT(read_text("a2616101616202", &dup, &t, NULL), SDX_OK);
    FAILS("a3616101616202616103", &dup, SDX_ERR_KEY, 7);
    FAILS("a201021801 03", &dup, SDX_ERR_KEY, 3);     /* 1 and 18 01 are the same key */
    FAILS("a2c10102c10103", &dup, SDX_ERR_KEY, 4);    /* tags are part of the key */
    CHECK_EQ_INT(read_text("a2c1010201 03", &dup, &t, NULL), SDX_OK);
    FAILS("a28101028101 03", &dup, SDX_ERR_KEY, 4);   /* container keys */
    FAILS("bf7f6161ff01616102ff", &dup, SDX_ERR_KEY, 6); /* joined and plain "a" */
    CHECK_EQ_INT(read_text("a2a1010201a1010302", &dup, &t, NULL), SDX_OK);
    /* an indefinite-length container key equals its definite-length equal */
    FAILS("a29f01ff008101 00", &dup, SDX_ERR_KEY, 5);
    FAILS("a2bf0102ff00a10102 00", &dup, SDX_ERR_KEY, 6);
    FAILS("a2 9f9f01ffff00 818101 00", &dup, SDX_ERR_KEY, 7);
    CHECK_EQ_INT(read_text("a29f01ff0082010200", &dup, &t, NULL), SDX_OK);
    CHECK_EQ_INT(read_text("a29f01ff008100 00", &dup, &t, NULL), SDX_OK);
    /* duplicates inside a map that is a key, and in nested values */
    FAILS("a1a20102010304", &dup, SDX_ERR_KEY, 4);
    FAILS("a101a2010201 03", &dup, SDX_ERR_KEY, 5);
    /* deterministic */
    CHECK_EQ_INT(read_text("a80a011864022003617a0462616105811864068120 07f408", &det, &t, NULL), SDX_OK);
    FAILS("a2616201616102", &det, SDX_ERR_SYNTAX, 4);  /* out of order */
    FAILS("a2616101616102", &det, SDX_ERR_SYNTAX, 4);  /* duplicate */
    FAILS("1800", &det, SDX_ERR_SYNTAX, 0);            /* head not shortest */
    FAILS("8119000a", &det, SDX_ERR_SYNTAX, 1);
    FAILS("5f40ff", &det, SDX_ERR_SYNTAX, 0);          /* indefinite */
    FAILS("9fff", &det, SDX_ERR_SYNTAX, 0);
    FAILS("fa3fc00000", &det, SDX_ERR_SYNTAX, 0);      /* 1.5 fits a half */
    FAILS("fb3ff8000000000000", &det, SDX_ERR_SYNTAX, 0);
    FAILS("fb4059000000000000", &det, SDX_ERR_SYNTAX, 0); /* 100.0 fits a half */
    CHECK_EQ_INT(read_text("fa47c35000", &det, &t, NULL), SDX_OK);
    CHECK_EQ_INT(read_text("f97e00", &det, &t, NULL), SDX_OK);
    CHECK_EQ_INT(read_text("fb3ff199999999999a", &det, &t, NULL), SDX_OK);
    /* bignums in preferred serialization only (section 3.4.3) */
    CHECK_EQ_INT(read_text("c249010000000000000000", &det, &t, NULL), SDX_OK);
    CHECK_EQ_INT(read_text("c349010000000000000000", &det, &t, NULL), SDX_OK);
    FAILS("c24100", &det, SDX_ERR_SYNTAX, 0);          /* fits a plain integer */
    FAILS("c240", &det, SDX_ERR_SYNTAX, 0);
    FAILS("82 00 c348ffffffffffffffff", &det, SDX_ERR_SYNTAX, 2);
    FAILS("c24a00010000000000000000", &det, SDX_ERR_SYNTAX, 0); /* leading zero */
    FAILS("d9d9f7c24100", &det, SDX_ERR_SYNTAX, 3);    /* at its own tag */
    CHECK_EQ_INT(read_text("c24100", NULL, &t, NULL), SDX_OK);
}

typedef struct mem_in {
    const unsigned char *p;
    size_t len, pos, step;
} mem_in;

static size_t mem_read(void *ctx, void *buf, size_t cap) {
    mem_in *m = ctx;
    size_t n = m->len - m->pos;
    if (n > cap) n = cap;
    if (n > m->step) n = m->step;
    memcpy(buf, m->p + m->pos, n);
    m->pos += n;
    return n;
}

/* The same events and errors from a stream of any chunk size as from
 * memory. */
static void stream_matches(const char *hex, uint32_t flags) {
    static unsigned char in[4096];
    size_t n = unhex(hex, in);
    sdx_cbor_read_opts o = {flags, 0, 0, 0, NULL};
    evtext want, got;
    size_t woff = 0;
    sdx_err wrc = read_text(hex, &o, &want, &woff);
    for (size_t step = 1; step <= n + 1; step++) {
        for (size_t chunk = 1; chunk <= 8; chunk *= 2) {
            mem_in m = {in, n, 0, step};
            sdx_cbor_reader *r = sdx_cbor_reader_new_stream(mem_read, &m, chunk, &o);
            got.n = 0;
            got.s[0] = 0;
            sdx_event ev;
            while (sdx_cbor_reader_next(r, &ev)) evtext_event(&got, &ev);
            if (got.n && got.s[got.n - 1] == ' ') got.s[--got.n] = 0;
            sdx_error e;
            sdx_err rc = sdx_cbor_reader_error(r, &e);
            sdx_cbor_reader_free(r);
            if (!CHECK_EQ_INT(rc, wrc) || !CHECK_STR(got.s, got.n, want.s) ||
                (rc && !CHECK_EQ_U64(e.offset, woff))) {
                fprintf(stderr, "  %s step %zu chunk %zu\n", hex, step, chunk);
                return;
            }
        }
    }
}

TEST(streams) {
    stream_matches("8301820203820405", 0);
    stream_matches("bf61610161629f0203ffff", 0);
    stream_matches("7f657374726561646d696e67ff", 0);
    stream_matches("5f42010243030405ff", 0);
    stream_matches("d9d9f7d83dd28101", 0);
    stream_matches("a3616101616202616103", SDX_CBOR_READ_REJECT_DUPLICATE_KEYS);
    stream_matches("5f4201", 0);
    stream_matches("7f61c3ff", 0);
    stream_matches("01020304", SDX_CBOR_READ_STOP_AFTER_VALUE);
    stream_matches("0102ff", SDX_CBOR_READ_STOP_AFTER_VALUE);
}

TEST(sequences_and_skip) {
    sdx_cbor_read_opts seq = {SDX_CBOR_READ_STOP_AFTER_VALUE, 0, 0, 0, NULL};
    evtext t;
    CHECK_EQ_INT(read_text("01 8102 c161 61", &seq, &t, NULL), SDX_OK);
    CHECK_STR(t.s, t.n, "1 [1 2 } 1:\"a\"");
    CHECK_EQ_INT(read_text("", &seq, &t, NULL), SDX_OK);
    /* skip: a container, a tagged item, a scalar */
    unsigned char in[64];
    size_t n = unhex("84 8201820203 d83dd2 9f01ff 05 06", in);
    sdx_cbor_reader *r = sdx_cbor_reader_new((const char *)in, n, NULL);
    sdx_event ev;
    CHECK(sdx_cbor_reader_next(r, &ev) && ev.kind == SDX_ARRAY);
    CHECK(sdx_cbor_reader_next(r, &ev) && ev.kind == SDX_ARRAY);
    CHECK(sdx_cbor_reader_skip(r));
    CHECK(sdx_cbor_reader_next(r, &ev) && ev.kind == SDX_TAG && ev.tag == 61);
    CHECK(sdx_cbor_reader_skip(r));
    CHECK(sdx_cbor_reader_next(r, &ev) && ev.kind == SDX_INT && ev.v.i == 5);
    CHECK(sdx_cbor_reader_skip(r));
    CHECK(sdx_cbor_reader_next(r, &ev) && ev.kind == SDX_INT && ev.v.i == 6);
    CHECK(sdx_cbor_reader_next(r, &ev) && ev.kind == SDX_END && ev.depth == 0);
    CHECK(!sdx_cbor_reader_next(r, &ev));
    CHECK_EQ_INT(sdx_cbor_reader_error(r, NULL), SDX_OK);
    CHECK_EQ_U64(sdx_cbor_reader_offset(r), n);
    sdx_cbor_reader_free(r);
}

TEST(parser) {
    unsigned char in[256];
    size_t n = unhex("a4 6161 d83dd2 820102 3bffffffffffffffff f97e00 7f616261 63ff f9 3e00"
                     " c1f7 5f4101 4102ff",
                     in);
    sdx_error e;
    sdx_doc *doc = sdx_cbor_parse((const char *)in, n, NULL, &e);
    if (!CHECK(doc != NULL)) return;
    sdx_node m = sdx_doc_root(doc);
    CHECK_EQ_U64(sdx_node_len(m), 4);
    sdx_node a = sdx_node_get(m, "a", 1);
    sdx_tag_kind kinds[2];
    uint64_t tags[2];
    CHECK_EQ_U64(sdx_node_tags(a, kinds, tags, 2), 2);
    CHECK_EQ_U64(tags[0], 61);
    CHECK_EQ_U64(tags[1], 18);
    CHECK(sdx_node_type(sdx_node_key_at(m, 1)) == SDX_TYPE_NINT);
    CHECK(isnan(sdx_node_double(sdx_node_value_at(m, 1))));
    size_t len;
    const char *s = sdx_node_str(sdx_node_key_at(m, 2), &len);
    CHECK_STR(s, len, "bc");
    CHECK(s < (const char *)in || s >= (const char *)in + n); /* copied */
    CHECK((sdx_node_value_at(m, 2).val->tag & SDX_VAL_FLOAT16) != 0);
    sdx_node u = sdx_node_key_at(m, 3);
    uint64_t tag;
    CHECK(sdx_node_tag(u, &tag) == SDX_TAG_CBOR_SIMPLE && tag == 23);
    CHECK_EQ_U64(sdx_node_tags(u, kinds, tags, 2), 2);
    CHECK(kinds[0] == SDX_TAG_CBOR && tags[0] == 1);
    const void *b = sdx_node_bin(sdx_node_value_at(m, 3), &len);
    CHECK_MEM(b, len, "\x01\x02", 2);
    const char *key = sdx_node_str(sdx_node_key_at(m, 0), &len);
    CHECK(key == (const char *)in + 2); /* a view into the input */
    CHECK_EQ_U64(sdx_doc_consumed(doc), n);
    /* emit into the writer gives the same bytes where they are preferred */
    sdx_buf out;
    sdx_buf_init(&out, NULL);
    sdx_cbor_writer w;
    sdx_cbor_writer_init(&w, &out, NULL);
    CHECK_EQ_INT(sdx_node_emit(m, sdx_cbor_writer_sink(&w)), SDX_OK);
    CHECK_EQ_INT(sdx_cbor_writer_finish(&w), SDX_OK);
    CHECK_HEX(&out, "a4 6161 d83dd2 820102 3bffffffffffffffff f97e00 626263 f93e00 c1f7 420102");
    sdx_buf_destroy(&out);
    sdx_doc_free(doc);
    /* errors and options */
    CHECK(sdx_cbor_parse((const char *)in, n - 1, NULL, &e) == NULL);
    CHECK_EQ_INT(e.code, SDX_ERR_TRUNCATED);
    CHECK(sdx_cbor_parse("\x01\x02", 2, NULL, &e) == NULL);
    CHECK_EQ_INT(e.code, SDX_ERR_SYNTAX);
    CHECK_EQ_U64(e.offset, 1);
    sdx_cbor_read_opts stop = {SDX_CBOR_READ_STOP_AFTER_VALUE | SDX_CBOR_READ_COPY_INPUT, 0, 0, 0, NULL};
    char buf[8] = {0x62, 0x61, 0x62, 0x01};
    doc = sdx_cbor_parse(buf, 4, &stop, &e);
    if (CHECK(doc != NULL)) {
        CHECK_EQ_U64(sdx_doc_consumed(doc), 3);
        memset(buf, 0, sizeof buf);
        s = sdx_node_str(sdx_doc_root(doc), &len);
        CHECK_STR(s, len, "ab");
    }
    sdx_doc_free(doc);
    CHECK(sdx_cbor_parse(NULL, 0, NULL, &e) == NULL);
    CHECK_EQ_INT(e.code, SDX_ERR_TRUNCATED);
}

/* SDX_CBOR_READ_CHUNKS: indefinite-length strings flagged, with their
 * chunks' lengths; definite ones and other readers untouched. */
static void check_chunks(const char *hex, uint32_t flags, size_t max_string, uint8_t kind,
                         const size_t *want, size_t nwant, int want_flag) {
    unsigned char in[64];
    size_t n = unhex(hex, in);
    for (int stream = 0; stream < 2; stream++) {
        sdx_cbor_read_opts o = {flags, 0, 0, max_string, NULL};
        mem_in m = {in, n, 0, 1};
        sdx_cbor_reader *r = stream ? sdx_cbor_reader_new_stream(mem_read, &m, 1, &o)
                                    : sdx_cbor_reader_new((const char *)in, n, &o);
        if (!CHECK(r != NULL)) return;
        sdx_event ev;
        size_t nc = 99;
        CHECK(sdx_cbor_reader_chunks(r, &nc) == NULL && nc == 0); /* before any event */
        if (CHECK(sdx_cbor_reader_next(r, &ev))) {
            CHECK_EQ_INT(ev.kind, kind);
            CHECK_EQ_INT(ev.flags, want_flag ? SDX_EVENT_INDEFINITE : 0);
            const size_t *lens = sdx_cbor_reader_chunks(r, &nc);
            if (CHECK_EQ_U64(nc, nwant))
                for (size_t i = 0; i < nc; i++) CHECK_EQ_U64(lens[i], want[i]);
        }
        CHECK(!sdx_cbor_reader_next(r, &ev));
        CHECK_EQ_INT(sdx_cbor_reader_error(r, NULL), SDX_OK);
        CHECK(sdx_cbor_reader_chunks(r, &nc) == NULL && nc == 0); /* after the end */
        sdx_cbor_reader_free(r);
    }
}

TEST(chunks) {
    const uint32_t C = SDX_CBOR_READ_CHUNKS;
    const size_t two[] = {2, 3}, three[] = {5, 0, 4}, one[] = {0};
    check_chunks("5f42010243030405ff", C, 0, SDX_BIN, two, 2, 1);
    check_chunks("7f65737472656160646d696e67ff", C, 0, SDX_STR, three, 3, 1);
    check_chunks("5fff", C, 0, SDX_BIN, NULL, 0, 1);
    check_chunks("7f60ff", C, 0, SDX_STR, one, 1, 1);
    check_chunks("4401020304", C, 0, SDX_BIN, NULL, 0, 0);             /* definite */
    check_chunks("5f42010243030405ff", 0, 0, SDX_BIN, NULL, 0, 0);     /* not asked */
    /* Each chunk's entry counts towards max_string with the flag. */
    check_chunks("7f606060ff", C, 3 * sizeof(size_t), SDX_STR, (const size_t[]){0, 0, 0}, 3, 1);
    FAILS("7f606060ff", (&(sdx_cbor_read_opts){C, 0, 0, 3 * sizeof(size_t) - 1, NULL}), SDX_ERR_LIMIT, 0);
    FAILS("7f626162ff", (&(sdx_cbor_read_opts){C, 0, 0, sizeof(size_t) + 1, NULL}), SDX_ERR_LIMIT, 0);
    check_chunks("7f626162ff", C, sizeof(size_t) + 2, SDX_STR, (const size_t[]){2}, 1, 1);
    /* In a map key, and the next event clears it. */
    unsigned char in[16];
    size_t n = unhex("a17f61616162ff01", in);
    sdx_cbor_read_opts o = {C, 0, 0, 0, NULL};
    sdx_cbor_reader *r = sdx_cbor_reader_new((const char *)in, n, &o);
    sdx_event ev;
    size_t nc;
    CHECK(sdx_cbor_reader_next(r, &ev) && ev.kind == SDX_MAP);
    CHECK(sdx_cbor_reader_next(r, &ev) && ev.kind == SDX_KEY && ev.flags == SDX_EVENT_INDEFINITE);
    CHECK(sdx_cbor_reader_chunks(r, &nc) != NULL && nc == 2);
    CHECK(sdx_cbor_reader_next(r, &ev) && ev.kind == SDX_INT);
    CHECK(sdx_cbor_reader_chunks(r, &nc) == NULL && nc == 0);
    sdx_cbor_reader_free(r);
}

TEST(alloc_failures) {
    unsigned char in[4096];
    size_t n = unhex("9f a3 6161 5f41014102ff 6162 c1c2 8181818181818181818181818181818181818181"
                     "8181818181818181818181818181818181818181818181818181818181818181 00 6163 7f616161626163ff"
                     " ff",
                     in);
    for (int mode = 0; mode < 2; mode++) {
        long fail;
        for (fail = 1; fail < 1000; fail++) {
            counting_alloc ca;
            counting_alloc_init(&ca, fail);
            /* the stream reader also keeps the chunks (a list to grow) */
            uint32_t flags = SDX_CBOR_READ_REJECT_DUPLICATE_KEYS | (mode ? SDX_CBOR_READ_CHUNKS : 0);
            sdx_cbor_read_opts o = {flags, 100, 0, 0, &ca.iface};
            sdx_err rc;
            if (mode == 0) {
                sdx_error e;
                sdx_doc *doc = sdx_cbor_parse((const char *)in, n, &o, &e);
                rc = doc ? SDX_OK : e.code;
                sdx_doc_free(doc);
            } else {
                mem_in m = {in, n, 0, 3};
                sdx_cbor_reader *r = sdx_cbor_reader_new_stream(mem_read, &m, 4, &o);
                if (!r) {
                    rc = SDX_ERR_NOMEM;
                } else {
                    sdx_event ev;
                    while (sdx_cbor_reader_next(r, &ev)) {
                    }
                    rc = sdx_cbor_reader_error(r, NULL);
                    sdx_cbor_reader_free(r);
                }
            }
            CHECK_EQ_INT(ca.live, 0);
            if (rc == SDX_OK) break;
            if (!CHECK_EQ_INT(rc, SDX_ERR_NOMEM)) break;
        }
        CHECK(fail > 2 && fail < 1000);
    }
}

/* A document with every item the inline paths of cbor.h take and many they
 * hand on: integers of every head size and sign, ASCII and non-ASCII text
 * of every length class, keys, floats of every width, tags, bytes, simple
 * values, definite containers of small and large counts, indefinite ones,
 * nesting; `rng` a seed. Unique keys (n0, n1, ...). */
static void gen_item(sdx_cbor_writer *w, unsigned *rng, int depth, unsigned *keyno) {
    const char *text = evtext_sample_ascii(), *utf8 = evtext_sample_utf8();
    unsigned c = evtext_rand(rng) % (depth < 4 ? 22 : 16);
    int64_t big = (int64_t)((uint64_t)evtext_rand(rng) << 40 | evtext_rand(rng));
    switch (c) {
    case 0: sdx_cbor_writer_int(w, (int64_t)(evtext_rand(rng) % 48) - 24); break;
    case 1: sdx_cbor_writer_int(w, (int64_t)(evtext_rand(rng) % 70000)); break;
    case 2: sdx_cbor_writer_int(w, -(int64_t)(evtext_rand(rng) % 70000)); break;
    case 3: sdx_cbor_writer_int(w, evtext_rand(rng) & 1 ? big : -big); break;
    case 4: sdx_cbor_writer_uint(w, UINT64_MAX - evtext_rand(rng)); break;
    case 5: sdx_cbor_writer_nint(w, UINT64_MAX - evtext_rand(rng)); break;
    case 6: sdx_cbor_writer_double(w, (double)big / 7.0); break;
    case 7: sdx_cbor_writer_double(w, 0.5 * (evtext_rand(rng) % 9)); break; /* float16 */
    case 8: sdx_cbor_writer_double(w, (double)(float)((double)big / 3.0)); break;
    case 9: sdx_cbor_writer_string(w, text, evtext_rand(rng) % 300); break;
    case 10: sdx_cbor_writer_string(w, text, evtext_rand(rng) % 20); break;
    case 11: {
        static const size_t cut[] = {0, 2, 4, 7, 16, 20, 29};
        sdx_cbor_writer_string(w, utf8, cut[evtext_rand(rng) % 7]);
        break;
    }
    case 12: sdx_cbor_writer_bool(w, evtext_rand(rng) & 1); break;
    case 13: sdx_cbor_writer_null(w); break;
    case 14:
        if (evtext_rand(rng) & 1) sdx_cbor_writer_simple(w, 99);
        else sdx_cbor_writer_bytes(w, text, evtext_rand(rng) % 40);
        break;
    case 15:
        sdx_cbor_writer_tag(w, evtext_rand(rng) % 3000);
        gen_item(w, rng, depth + 1, keyno);
        break;
    default: {
        int map = c >= 19;
        uint64_t n = evtext_rand(rng) % 8 == 0 ? 20 + evtext_rand(rng) % 20 : evtext_rand(rng) % 6;
        uint64_t declared = c == 18 || c == 21 ? SDX_COUNT_UNKNOWN : n;
        if (map) sdx_cbor_writer_begin_map(w, declared);
        else sdx_cbor_writer_begin_array(w, declared);
        for (uint64_t i = 0; i < n; i++) {
            if (map) {
                char key[16];
                int kn = snprintf(key, sizeof key, "n%u", (*keyno)++);
                sdx_cbor_writer_key(w, key, (size_t)kn);
            }
            gen_item(w, rng, depth + 1, keyno);
        }
        sdx_cbor_writer_end(w);
        break;
    }
    }
}

/* A document's value array (doc.h describes the layout). */
static const sdx_val *test_doc_vals(const sdx_doc *d, size_t *n) {
    *n = d->nvals;
    return d->vals;
}

/* One event through the inline path (sdx_cbor_reader_next) or the
 * exported function: use_inline 1 or 0, or 2 for either at random, so
 * that the two hand the reader's state to each other at every kind of
 * item (the inline path keeps the innermost count where the exported
 * function does not look). */
static bool next_by(sdx_cbor_reader *r, sdx_event *ev, int use_inline, unsigned *rng) {
    if (use_inline == 2) use_inline = evtext_rand(rng) >> 4 & 1;
    return use_inline ? sdx_cbor_reader_next(r, ev) : (sdx_cbor_reader_next)(r, ev);
}

/* Read the input to its end (skipping the item of the event numbered
 * skip_at), with the inline path, only the exported function or either
 * (next_by); events and offsets into ev/off (room for max). */
static size_t read_all(const unsigned char *in, size_t n, int use_inline, size_t skip_at,
                       size_t chunk, sdx_event *ev, uint64_t *off, size_t max, sdx_err *rc) {
    sdx_cbor_reader *r;
    mem_in m = {in, n, 0, chunk};
    if (chunk) r = sdx_cbor_reader_new_stream(mem_read, &m, chunk, NULL);
    else r = sdx_cbor_reader_new((const char *)in, n, NULL);
    size_t k = 0;
    unsigned rng = (unsigned)(n + skip_at + chunk);
    while (k < max && next_by(r, &ev[k], use_inline, &rng)) {
        off[k] = sdx_cbor_reader_offset(r);
        if (k++ == skip_at) {
            if (!sdx_cbor_reader_skip(r)) break;
            off[k - 1] = sdx_cbor_reader_offset(r);
        }
    }
    *rc = sdx_cbor_reader_error(r, NULL);
    sdx_cbor_reader_free(r);
    return k;
}

TEST(inline_path) {
    enum { MAX = 50000 };
    static sdx_event a[MAX], b[MAX];
    static uint64_t ao[MAX], bo[MAX];
    for (unsigned seed = 1; seed <= 12; seed++) {
        sdx_buf out;
        sdx_buf_init(&out, NULL);
        sdx_cbor_writer w;
        sdx_cbor_writer_init(&w, &out, NULL);
        unsigned rng = seed, keyno = 0;
        sdx_cbor_writer_begin_array(&w, 200);
        for (int i = 0; i < 200; i++) gen_item(&w, &rng, 1, &keyno);
        sdx_cbor_writer_end(&w);
        if (!CHECK_EQ_INT(sdx_cbor_writer_finish(&w), SDX_OK)) break;
        const unsigned char *in = (const unsigned char *)sdx_buf_data(&out);
        size_t n = sdx_buf_len(&out);
        sdx_err ra, rb;
        /* every event the same, with the same offset after it */
        size_t na = read_all(in, n, 1, SIZE_MAX, 0, a, ao, MAX, &ra);
        size_t nb = read_all(in, n, 0, SIZE_MAX, 0, b, bo, MAX, &rb);
        CHECK(na > 300 && na < MAX);
        CHECK_EQ_INT(ra, SDX_OK);
        CHECK_EQ_INT(rb, SDX_OK);
        if (!CHECK_EQ_U64(na, nb)) break;
        size_t bad = 0;
        for (size_t i = 0; i < na; i++) bad += !evtext_same_event(&a[i], &b[i]) || ao[i] != bo[i];
        CHECK_EQ_U64(bad, 0);
        /* the two taking turns at random */
        size_t nm = read_all(in, n, 2, SIZE_MAX, 0, a, ao, MAX, &ra);
        CHECK_EQ_INT(ra, SDX_OK);
        bad = nm != nb;
        for (size_t i = 0; i < nm && !bad; i++) bad += !evtext_same_event(&a[i], &b[i]) || ao[i] != bo[i];
        CHECK_EQ_U64(bad, 0);
        /* skip after every event: the same events and offsets after it */
        for (size_t at = 0; at < na && at < 600; at++) {
            size_t ka = read_all(in, n, 1 + at % 2, at, 0, a, ao, MAX, &ra);
            size_t kb = read_all(in, n, 0, at, 0, b, bo, MAX, &rb);
            bad = ka != kb || ra != rb;
            for (size_t i = 0; i < ka && !bad; i++)
                bad += !evtext_same_event(&a[i], &b[i]) || ao[i] != bo[i];
            if (!CHECK_EQ_U64(bad, 0)) break;
        }
        /* streams: the window moves under the inline path */
        nb = read_all(in, n, 0, SIZE_MAX, 0, b, bo, MAX, &rb);
        size_t chunks[] = {1, 7, 20, 64};
        for (size_t c = 0; c < 4; c++) {
            size_t ka = read_all(in, n, 1, SIZE_MAX, chunks[c], a, ao, MAX, &ra);
            CHECK_EQ_INT(ra, SDX_OK);
            bad = ka != nb;
            for (size_t i = 0; i < ka && !bad; i++)
                bad += a[i].kind != b[i].kind || a[i].depth != b[i].depth || ao[i] != bo[i];
            CHECK_EQ_U64(bad, 0);
        }
        /* bytes flipped (invalid UTF-8 in strings of every length, lengths
         * that lie, other types): the same events, offsets and error */
        unsigned char *flip = malloc(n);
        unsigned frng = seed * 7919u;
        for (int round = 0; round < 200 && flip; round++) {
            memcpy(flip, in, n);
            for (int k = 0; k < 1 + round % 3; k++)
                flip[evtext_rand(&frng) % n] ^= (unsigned char)(1u << evtext_rand(&frng) % 8);
            size_t ka = read_all(flip, n, 1 + round % 2, SIZE_MAX, 0, a, ao, MAX, &ra);
            size_t kb = read_all(flip, n, 0, SIZE_MAX, 0, b, bo, MAX, &rb);
            bad = ka != kb || ra != rb;
            for (size_t i = 0; i < ka && !bad; i++)
                bad += !evtext_same_event(&a[i], &b[i]) || ao[i] != bo[i];
            if (!CHECK_EQ_U64(bad, 0)) break;
        }
        free(flip);
        /* the direct parser builds the document the general one does (the
         * key checks take the general one); strings point at the same
         * input bytes */
        sdx_cbor_read_opts general = {SDX_CBOR_READ_REJECT_DUPLICATE_KEYS, 0, 0, 0, NULL};
        sdx_doc *d1 = sdx_cbor_parse((const char *)in, n, NULL, NULL);
        sdx_doc *d2 = sdx_cbor_parse((const char *)in, n, &general, NULL);
        if (CHECK(d1 && d2)) {
            size_t n1, n2;
            const sdx_val *v1 = test_doc_vals(d1, &n1), *v2 = test_doc_vals(d2, &n2);
            bad = n1 != n2 || sdx_doc_consumed(d1) != sdx_doc_consumed(d2);
            for (size_t i = 0; i < n1 && !bad; i++)
                bad += v1[i].tag != v2[i].tag || v1[i].v.u != v2[i].v.u;
            CHECK_EQ_U64(bad, 0);
        }
        sdx_doc_free(d1);
        sdx_doc_free(d2);
        sdx_buf_destroy(&out);
    }
}

/* A text string at the end of the input, declared in every head width,
 * 0 to 40 bytes long, ASCII or not, cut at every byte, in a buffer of
 * exactly the input's size (under AddressSanitizer a read past it fails):
 * the inline path gives the exported function's events, offsets and
 * error. A 16-byte string declared in a 3-byte head with 15 bytes left
 * was once read past the input and delivered whole. */
TEST(strings_at_the_end) {
    enum { MAX = 8 };
    sdx_event a[MAX], b[MAX];
    uint64_t ao[MAX], bo[MAX];
    unsigned char full[64];
    size_t bad = 0;
    for (int width = 0; width < 4; width++) {
        for (size_t len = 0; len <= 40; len++) {
            if (width == 0 && len > 23) break;
            for (int ascii = 0; ascii < 2; ascii++) {
                size_t n = 0;
                full[n++] = 0x81; /* [string] */
                if (width == 0) {
                    full[n++] = (unsigned char)(0x60 | len);
                } else {
                    size_t bytes = (size_t)1 << (width - 1);
                    full[n++] = (unsigned char)(0x77 + width);
                    for (size_t i = 0; i < bytes; i++)
                        full[n++] = (unsigned char)(len >> (8 * (bytes - 1 - i)));
                }
                for (size_t i = 0; i < len; i++) full[n++] = (unsigned char)('a' + i % 26);
                if (!ascii && len >= 2) memcpy(full + n - 2, "\xc3\xa9", 2);
                for (size_t cut = 1; cut <= n; cut++) {
                    unsigned char *in = malloc(cut);
                    if (!CHECK(in != NULL)) return;
                    memcpy(in, full, cut);
                    sdx_err ra, rb;
                    size_t ka = read_all(in, cut, 1, SIZE_MAX, 0, a, ao, MAX, &ra);
                    size_t kb = read_all(in, cut, 0, SIZE_MAX, 0, b, bo, MAX, &rb);
                    int same = ka == kb && ra == rb && (cut == n) == (ra == SDX_OK);
                    for (size_t i = 0; i < ka && same; i++)
                        same = evtext_same_event(&a[i], &b[i]) && ao[i] == bo[i];
                    bad += !same;
                    free(in);
                }
            }
        }
    }
    CHECK_EQ_U64(bad, 0);
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){
                        {"integers", integers},
                        {"floats", floats},
                        {"strings_and_containers", strings_and_containers},
                        {"tags_and_simple", tags_and_simple},
                        {"not_well_formed", not_well_formed},
                        {"limits", limits},
                        {"key_checks", key_checks},
                        {"streams", streams},
                        {"sequences_and_skip", sequences_and_skip},
                        {"parser", parser},
                        {"chunks", chunks},
                        {"alloc_failures", alloc_failures},
                        {"inline_path", inline_path},
                        {"strings_at_the_end", strings_at_the_end},
                        {0, 0},
                    });
}
