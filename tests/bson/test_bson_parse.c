/*
 * The BSON tree parser (sdx_bson_parse) and the reader's skip: every element
 * type parsed into a document whose values and tags say what the table in
 * include/sdx/bson.h says, and whose emit into the BSON writer gives back
 * the input's bytes (with and without SDX_BSON_READ_COPY_INPUT); the whole
 * MongoDB corpus (every valid case back to its bytes, every decodeErrors
 * case rejected); sequences; malformed input: truncation at every byte,
 * byte flips, lengths that lie, deep nesting, allocation failure at every
 * point (no leak either way).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_test.h"
#include "bson/bson_internal.h"
#include "bson_test.h"
#include "paths_test.h"
#include "sdx/sdx.h"
#include "test.h"

/* Write the root of `doc` back as BSON into *b (destroy it); returns the
 * writer's error. */
static sdx_err emit_bson(sdx_doc *doc, sdx_buf *b, uint32_t wflags) {
    sdx_bson_writer w;
    sdx_bson_write_opts o = {wflags, NULL};
    sdx_buf_init(b, NULL);
    sdx_bson_writer_init(&w, b, &o);
    sdx_err e = sdx_node_emit(sdx_doc_root(doc), sdx_bson_writer_sink(&w));
    sdx_err f = sdx_bson_writer_finish(&w);
    return e ? e : f;
}

/* Check that doc writes back to the n bytes at `in`; frees doc. */
static void emits_back(sdx_doc *doc, const void *in, size_t n) {
    sdx_buf b;
    sdx_err wc = emit_bson(doc, &b, 0);
    CHECK_EQ_INT(wc, SDX_OK);
    CHECK_MEM(sdx_buf_data(&b), sdx_buf_len(&b), in, n);
    sdx_buf_destroy(&b);
    sdx_doc_free(doc);
}

/* Parse n bytes (copied into an allocation of exactly n bytes, so ASan
 * sees a read past them) and check that the document writes back to them.
 * Returns the parse error. */
static sdx_err parse_back(const unsigned char *in, size_t n, uint32_t flags, sdx_error *err) {
    unsigned char *p = malloc(n ? n : 1);
    memcpy(p, in, n);
    sdx_bson_read_opts o = {flags, 0, 0, NULL};
    sdx_error e;
    sdx_doc *doc = sdx_bson_parse((const char *)p, n, &o, &e);
    if (flags & SDX_BSON_READ_COPY_INPUT) { /* the document must not need p */
        memset(p, 0xee, n);
        free(p);
        p = NULL;
    }
    if (err) *err = e;
    if (doc) {
        CHECK_EQ_INT(e.code, SDX_OK);
        CHECK_EQ_U64(sdx_doc_consumed(doc), n);
        emits_back(doc, in, n);
    } else {
        CHECK(e.code != SDX_OK);
    }
    free(p);
    return e.code;
}

/* The tag of a node as (kind, number). */
static uint64_t bson_tag(sdx_node n) {
    uint64_t t = 0;
    return sdx_node_tag(n, &t) == SDX_TAG_BSON ? t : (uint64_t)-1;
}

#define KEEP SDX_BSON_READ_KEEP_ARRAY_KEYS

/* Every type back to its bytes (with KEEP, as all_types has an array with
 * odd keys), and the values and tags of the document. */
TEST(every_type) {
    unsigned char in[1024];
    size_t n = all_types(in, sizeof in);
    CHECK_EQ_INT(parse_back(in, n, KEEP, NULL), SDX_OK);
    CHECK_EQ_INT(parse_back(in, n, KEEP | SDX_BSON_READ_COPY_INPUT, NULL), SDX_OK);
    CHECK_EQ_INT(parse_back(in, n, KEEP | SDX_BSON_READ_NO_UTF8_CHECK, NULL), SDX_OK);

    /* by default the array with odd keys is an array */
    sdx_doc *doc = sdx_bson_parse((const char *)in, n, NULL, NULL);
    if (!CHECK(doc != NULL)) return;
    sdx_node odd0 = sdx_node_getz(sdx_doc_root(doc), "b");
    CHECK(sdx_node_type(odd0) == SDX_TYPE_ARRAY && sdx_node_len(odd0) == 1 && bson_tag(odd0) == (uint64_t)-1);
    sdx_doc_free(doc);

    const sdx_bson_read_opts keep = {KEEP, 0, 0, NULL};
    doc = sdx_bson_parse((const char *)in, n, &keep, NULL);
    if (!CHECK(doc != NULL)) return;
    sdx_node root = sdx_doc_root(doc);
    CHECK(sdx_node_type(root) == SDX_TYPE_MAP);
    size_t len;
    CHECK(sdx_node_double(sdx_node_getz(root, "d")) == 1.0);
    const char *s = sdx_node_str(sdx_node_getz(root, "s"), &len);
    CHECK_MEM(s, len, "a\0b", 3);
    CHECK_EQ_INT(sdx_node_int(sdx_node_get(sdx_node_getz(root, "o"), "x", 1)), -1);
    sdx_node arr = sdx_node_getz(root, "a");
    CHECK(sdx_node_type(arr) == SDX_TYPE_ARRAY && sdx_node_len(arr) == 3);
    CHECK(sdx_node_bool(sdx_node_index(arr, 0)));
    CHECK_EQ_U64(bson_tag(sdx_node_index(arr, 2)), SDX_BSON_MINKEY);
    sdx_node odd = sdx_node_getz(root, "b"); /* the first "b": keys "5" */
    CHECK(sdx_node_type(odd) == SDX_TYPE_MAP && bson_tag(odd) == SDX_BSON_ARRAY);
    CHECK(sdx_node_exists(sdx_node_getz(odd, "5")));
    sdx_node oid = sdx_node_getz(root, "i");
    CHECK(sdx_node_type(oid) == SDX_TYPE_BIN && sdx_node_len(oid) == 12 &&
          bson_tag(oid) == SDX_BSON_OBJECTID);
    sdx_node old = sdx_node_getz(root, "c2");
    const void *bin = sdx_node_bin(old, &len);
    CHECK_MEM(bin, len, "\x01\x02", 2);
    CHECK_EQ_U64(bson_tag(old), SDX_BSON_BINARY_TAG(2));
    CHECK_EQ_U64(bson_tag(sdx_node_getz(root, "u")), SDX_BSON_UNDEFINED);
    CHECK_EQ_U64(bson_tag(sdx_node_getz(root, "M")), SDX_BSON_MAXKEY);
    CHECK_EQ_U64(bson_tag(sdx_node_getz(root, "y")), SDX_BSON_SYMBOL);
    CHECK_EQ_U64(bson_tag(sdx_node_getz(root, "w")), SDX_BSON_CODE_W_SCOPE);
    sdx_node l = sdx_node_getz(root, "l");
    CHECK(sdx_node_int(l) == 1 && bson_tag(l) == SDX_BSON_INT64);
    CHECK_EQ_U64(bson_tag(sdx_node_getz(root, "d")), (uint64_t)-1); /* double: untagged */
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_OK);
    sdx_doc_free(doc);
}

/* One corpus case parsed, borrowing and copying: a valid one writes back
 * to its bytes (parse_back checks), an invalid one fails. */
static void parse_case(const unsigned char *in, size_t n, const char *line, void *ctx) {
    const int valid = *(const int *)ctx;
    for (int copy = 0; copy < 2; copy++) {
        sdx_err rc = parse_back(in, n, copy ? SDX_BSON_READ_COPY_INPUT : 0, NULL);
        if (!CHECK(valid ? rc == SDX_OK : rc != SDX_OK)) fprintf(stderr, "  error %d: %.200s\n", rc, line);
    }
}

/* Every valid case of the MongoDB corpus back to its bytes, every
 * decodeErrors case rejected. */
TEST(corpus) {
    int valid = 1;
    CHECK_EQ_INT(corpus_each("corpus_valid.txt", parse_case, &valid), 731);
    valid = 0;
    CHECK_EQ_INT(corpus_each("corpus_decode_errors.txt", parse_case, &valid), 75);
}

TEST(sequence_and_trailing_bytes) {
    const char two[] = "\x0c\0\0\0\x10\x61\0\x01\0\0\0\0\x05\0\0\0\0";
    sdx_error e;
    /* one document: the second is bytes after it */
    CHECK(sdx_bson_parse(two, 17, NULL, &e) == NULL);
    CHECK_EQ_INT(e.code, SDX_ERR_SYNTAX);
    CHECK_EQ_U64(e.offset, 12);
    /* a sequence: the first document, consumed tells where the next starts */
    sdx_bson_read_opts o = {SDX_BSON_READ_SEQUENCE, 0, 0, NULL};
    sdx_doc *doc = sdx_bson_parse(two, 17, &o, &e);
    if (CHECK(doc != NULL)) {
        CHECK_EQ_U64(sdx_doc_consumed(doc), 12);
        CHECK_EQ_INT(sdx_node_int(sdx_node_getz(sdx_doc_root(doc), "a")), 1);
        sdx_doc_free(doc);
    }
    doc = sdx_bson_parse(two + 12, 5, &o, &e);
    if (CHECK(doc != NULL)) {
        CHECK_EQ_U64(sdx_doc_consumed(doc), 5);
        CHECK_EQ_U64(sdx_node_len(sdx_doc_root(doc)), 0);
        sdx_doc_free(doc);
    }
    /* empty input, NULL input, unknown flags */
    CHECK(sdx_bson_parse("", 0, NULL, &e) == NULL && e.code == SDX_ERR_TRUNCATED);
    CHECK(sdx_bson_parse(NULL, 5, NULL, &e) == NULL && e.code == SDX_ERR_TRUNCATED);
    sdx_bson_read_opts bad = {1u << 30, 0, 0, NULL};
    CHECK(sdx_bson_parse(two, 12, &bad, &e) == NULL && e.code == SDX_ERR_INVALID_ARG);
    /* no error pointer */
    CHECK(sdx_bson_parse(two, 17, NULL, NULL) == NULL);
}

/* Every proper prefix fails with SDX_ERR_TRUNCATED (never success, never a
 * read past it). */
TEST(truncation_at_every_byte) {
    unsigned char in[1024];
    size_t n = all_types(in, sizeof in);
    for (size_t k = 0; k < n; k++) CHECK_EQ_INT(parse_back(in, k, 0, NULL), SDX_ERR_TRUNCATED);
}

/* Byte flips: an error, or (with KEEP) a document that writes back to the
 * flipped bytes (parse_back checks that); the parser and the reader agree,
 * with KEEP and without. */
TEST(byte_flips) {
    unsigned char in[1024], p[1024];
    size_t n = all_types(in, sizeof in);
    uint64_t seed = 0x2545f4914f6cdd1du;
    long rounds = (long)(20000 * test_scale());
    for (long i = 0; i < rounds; i++) {
        memcpy(p, in, n);
        flip_bits(p, n, 1 + (int)(i % 3), &seed);
        sdx_error pe, re;
        const sdx_bson_read_opts o = {i & 1 ? KEEP : 0, 0, 0, NULL};
        sdx_err rc;
        if (i & 1) {
            rc = parse_back(p, n, KEEP, &pe);
        } else {
            sdx_doc *d = sdx_bson_parse((const char *)p, n, NULL, &pe);
            rc = pe.code;
            CHECK((d != NULL) == (rc == SDX_OK));
            sdx_doc_free(d);
        }
        sdx_bson_reader *r = sdx_bson_reader_new((const char *)p, n, &o);
        sdx_event ev;
        while (sdx_bson_reader_next(r, &ev)) {
        }
        sdx_bson_reader_error(r, &re);
        sdx_bson_reader_free(r);
        if (!CHECK(rc == re.code && (rc == SDX_OK || pe.offset == re.offset))) break;
    }
}

/* Lengths that lie: the parser reports the reader's error and offset. */
TEST(lying_lengths) {
    static const struct {
        const char *hex;
        sdx_err code;
        size_t off;
    } cases[] = {
        {"ff000000 0a 6100 00", SDX_ERR_TRUNCATED, 8},                  /* beyond the input */
        {"0f000000 03 6100 ff000000 00 00 00 00", SDX_ERR_SYNTAX, 7},   /* beyond enclosing */
        {"0f000000 02 6100 ffffff7f 6100 00 00", SDX_ERR_SYNTAX, 7},    /* string beyond */
        {"0e000000 05 6100 ff000000 00 01 00", SDX_ERR_SYNTAX, 7},      /* binary beyond */
        {"ffffffff 00", SDX_ERR_SYNTAX, 0},                              /* negative */
        {"0e000000 05 6100 ffffffff 00 01 00", SDX_ERR_SYNTAX, 7},
        {"0d000000 02 6100 00000000 00 00", SDX_ERR_SYNTAX, 7},          /* short */
        {"0b000000 10 6100 01000000 00", SDX_ERR_SYNTAX, 7},             /* doc too short */
        {"0c000000 00 0a 6100 000000 00", SDX_ERR_SYNTAX, 4},            /* early terminator */
        {"1b000000 0f 6100 13000000 02000000 6600 09000000 08 7800 05 00 00", SDX_ERR_SYNTAX, 24},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned char in[256];
        size_t n = mp_unhex(cases[i].hex, in, sizeof in);
        sdx_error e;
        CHECK_EQ_INT(parse_back(in, n, 0, &e), cases[i].code);
        CHECK_EQ_U64(e.offset, cases[i].off);
    }
}

TEST(deep_nesting) {
    size_t n;
    unsigned char *p = nested(5000, &n);
    sdx_error e;
    CHECK_EQ_INT(parse_back(p, n, 0, &e), SDX_ERR_DEPTH);
    CHECK_EQ_U64(e.offset, 1024 * 7);
    CHECK_EQ_INT(parse_back(p, n, SDX_BSON_READ_COPY_INPUT, &e), SDX_ERR_DEPTH);
    sdx_bson_read_opts o = {0, 6000, 0, NULL};
    sdx_doc *doc = sdx_bson_parse((const char *)p, n, &o, &e);
    if (CHECK(doc != NULL)) emits_back(doc, p, n);
    free(p);
}

/* Allocation failure at every point: SDX_ERR_NOMEM and nothing left
 * allocated, until the parse succeeds. */
TEST(alloc_failures) {
    unsigned char in[1024];
    size_t n = all_types(in, sizeof in);
    size_t dn;
    unsigned char *deep = nested(100, &dn);
    for (int which = 0; which < 4; which++) {
        const unsigned char *p = which & 1 ? deep : in;
        size_t len = which & 1 ? dn : n;
        uint32_t flags = (which & 2 ? SDX_BSON_READ_COPY_INPUT : 0) | KEEP; /* back to the same bytes */
        for (long fail_at = 1;; fail_at++) {
            counting_alloc a;
            counting_alloc_init(&a, fail_at);
            sdx_bson_read_opts o = {flags, 0, 0, &a.iface};
            sdx_error e;
            sdx_doc *doc = sdx_bson_parse((const char *)p, len, &o, &e);
            if (doc) {
                CHECK_EQ_INT(e.code, SDX_OK);
                a.fail_at = 0; /* emit walks deep documents with the doc's allocator */
                emits_back(doc, p, len);
                CHECK(a.live == 0);
                break;
            }
            CHECK(a.live == 0);
            CHECK_EQ_INT(e.code, SDX_ERR_NOMEM);
            if (!CHECK(fail_at < 200)) break;
        }
    }
    free(deep);
}

/* skip after a begin event: the rest of that document, checked in full;
 * after other events nothing. */
TEST(reader_skip) {
    unsigned char in[1024];
    size_t n = all_types(in, sizeof in);
    sdx_bson_reader *r = sdx_bson_reader_new((const char *)in, n, NULL);
    sdx_event ev;
    CHECK(sdx_bson_reader_next(r, &ev) && ev.kind == SDX_MAP);
    CHECK(sdx_bson_reader_next(r, &ev) && ev.kind == SDX_KEY);
    CHECK(sdx_bson_reader_skip(r)); /* after a key: nothing */
    CHECK(sdx_bson_reader_next(r, &ev) && ev.kind == SDX_DOUBLE);
    CHECK(sdx_bson_reader_skip(r)); /* after a scalar: nothing */
    CHECK(sdx_bson_reader_next(r, &ev) && ev.kind == SDX_KEY); /* "s" */
    CHECK(sdx_bson_reader_next(r, &ev) && ev.kind == SDX_STR);
    CHECK(sdx_bson_reader_next(r, &ev) && ev.kind == SDX_KEY); /* "o" */
    CHECK(sdx_bson_reader_next(r, &ev) && ev.kind == SDX_MAP && ev.depth == 1);
    CHECK(sdx_bson_reader_skip(r));
    CHECK(sdx_bson_reader_next(r, &ev) && ev.kind == SDX_KEY && ev.v.str.len == 1 &&
          ev.v.str.ptr[0] == 'a');
    CHECK(sdx_bson_reader_next(r, &ev) && ev.kind == SDX_ARRAY);
    CHECK(sdx_bson_reader_skip(r));
    CHECK(sdx_bson_reader_next(r, &ev) && ev.kind == SDX_KEY && ev.v.str.ptr[0] == 'b');
    sdx_bson_reader_free(r);

    /* skipping the root reads to its end; a second skip does nothing */
    r = sdx_bson_reader_new((const char *)in, n, NULL);
    CHECK(sdx_bson_reader_next(r, &ev) && sdx_bson_reader_skip(r));
    CHECK(sdx_bson_reader_skip(r));
    CHECK_EQ_U64(sdx_bson_reader_offset(r), n);
    CHECK(!sdx_bson_reader_next(r, &ev) && sdx_bson_reader_error(r, NULL) == SDX_OK);
    sdx_bson_reader_free(r);

    /* a skipped document is still checked: a boolean 2 inside */
    unsigned char bad[64];
    size_t bn = mp_unhex("11000000 03 6100 09000000 08 7800 02 00 00", bad, sizeof bad);
    r = sdx_bson_reader_new((const char *)bad, bn, NULL);
    CHECK(sdx_bson_reader_next(r, &ev) && sdx_bson_reader_next(r, &ev));
    CHECK(sdx_bson_reader_next(r, &ev) && ev.kind == SDX_MAP);
    CHECK(!sdx_bson_reader_skip(r));
    CHECK_EQ_INT(sdx_bson_reader_error(r, NULL), SDX_ERR_SYNTAX);
    CHECK(!sdx_bson_reader_skip(r));
    sdx_bson_reader_free(r);
}

static uint64_t paths_rand(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* An event tagged SDX_TAG_BSON with the element type t. */
static sdx_err put_tagged(sdx_bson_writer *w, sdx_event e, unsigned t) {
    e.tag_kind = SDX_TAG_BSON;
    e.tag = t;
    return sdx_bson_writer_put(w, &e);
}

/* A random value of the types sdx_bson_parse reads directly. */
static void gen_common(sdx_bson_writer *w, uint64_t *rng, int depth) {
    static const char text[] = "plain ascii text, \xc3\xa9t\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac\0nul";
    static const unsigned cuts[] = {0, 1, 5, 18, 21, 24, 31, 35};
    uint64_t r = paths_rand(rng);
    sdx_event e;
    memset(&e, 0, sizeof e);
    switch (r % (depth < 5 ? 14 : 10)) {
    case 0: sdx_bson_writer_int(w, (int64_t)(r >> 8) % 70000 - 35000); break;
    case 1: sdx_bson_writer_int(w, (int64_t)(paths_rand(rng) | 1) >> (r >> 8) % 30); break;
    case 2: e.kind = SDX_INT; e.v.i = (int64_t)(r >> 40) - 5000; put_tagged(w, e, SDX_BSON_INT64); break;
    case 3: e.kind = SDX_INT; e.v.i = (int64_t)(r >> 20); put_tagged(w, e, SDX_BSON_DATETIME); break;
    case 4: e.kind = SDX_BIN; e.v.str.ptr = text; e.v.str.len = 12; put_tagged(w, e, SDX_BSON_OBJECTID); break;
    case 5: sdx_bson_writer_double(w, (double)(int64_t)paths_rand(rng) / 7.0); break;
    case 6: sdx_bson_writer_string(w, text, cuts[(r >> 8) % 8]); break; /* whole characters */
    case 7: sdx_bson_writer_bool(w, (r >> 8) & 1); break;
    case 8: sdx_bson_writer_null(w); break;
    case 9: sdx_bson_writer_string(w, "", 0); break;
    default: {
        int map = r % 2;
        uint64_t n = (r >> 8) % 6;
        if (depth == 2 && (r >> 16) % 3 == 0) n = 10 + (r >> 20) % 120;
        if (map) sdx_bson_writer_begin_map(w, SDX_COUNT_UNKNOWN);
        else sdx_bson_writer_begin_array(w, SDX_COUNT_UNKNOWN);
        for (uint64_t i = 0; i < n; i++) {
            if (map) sdx_bson_writer_key(w, text + i % 7, (size_t)(paths_rand(rng) % 12));
            gen_common(w, rng, depth + 1);
        }
        sdx_bson_writer_end(w);
        break;
    }
    }
}

/* sdx_bson_parse's paths for paths_check (tests/unit/paths_test.h). */
static int bson_direct(const char *d, size_t n, const void *o, sdx_doc **out) {
    return sdx_bson_parse_direct_(d, n, o, out);
}
static sdx_doc *bson_events(const char *d, size_t n, const void *o, sdx_error *e) {
    return sdx_bson_parse_events_(d, n, o, e);
}
static sdx_doc *bson_parse(const char *d, size_t n, const void *o, sdx_error *e) {
    return sdx_bson_parse(d, n, o, e);
}
static const paths_fmt bson_paths = {bson_direct, bson_events, bson_parse};

/* One to three bytes set to a type byte, a digit or any value. */
static void bson_mutate(char *x, size_t n, void *ctx) {
    static const unsigned char interesting[] = {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x07, 0x08, 0x09,
                                                0x0a, 0x10, 0x12, 0x13, '0', '1', 0x7f, 0x80, 0xff};
    uint64_t *rng = ctx;
    for (unsigned k = 0, nk = 1 + paths_rand(rng) % 3; k < nk; k++) {
        size_t at = paths_rand(rng) % n;
        x[at] = (char)(paths_rand(rng) & 1 ? interesting[paths_rand(rng) % sizeof interesting]
                                           : (unsigned char)paths_rand(rng));
    }
}

/* sdx_bson_parse reads one document of the common types directly and
 * leaves the rest to the reader's events into the builder: on random
 * documents the direct parse takes them and gives the builder's slots; on
 * 3000 mutated copies of each it either gives the builder's slots or
 * declines, never accepting what the reader refuses, and sdx_bson_parse
 * returns the reader's error and offset; other types, arrays with other
 * keys, sequences and trailing bytes are declined. */
TEST(parse_paths_agree) {
    paths_tally t = {0, 0, 0};
    for (unsigned seed = 1; seed <= 6; seed++) {
        uint32_t flags = (seed & 1 ? KEEP : 0) | (seed & 2 ? SDX_BSON_READ_NO_UTF8_CHECK : 0) |
                         (seed & 4 ? SDX_BSON_READ_COPY_INPUT : 0);
        sdx_bson_read_opts o = {flags, 0, 0, NULL};
        uint64_t rng = 0x9e3779b97f4a7c15ull * seed;
        sdx_buf out;
        sdx_buf_init(&out, NULL);
        sdx_bson_writer w;
        sdx_bson_writer_init(&w, &out, NULL);
        sdx_bson_writer_begin_map(&w, SDX_COUNT_UNKNOWN);
        for (int i = 0; i < 30; i++) {
            char key[8];
            sdx_bson_writer_key(&w, key, (size_t)snprintf(key, sizeof key, "k%d", i));
            gen_common(&w, &rng, 1);
        }
        sdx_bson_writer_end(&w);
        if (!CHECK_EQ_INT(sdx_bson_writer_finish(&w), SDX_OK)) break;
        size_t n = sdx_buf_len(&out);
        unsigned char *in = malloc(n);
        memcpy(in, sdx_buf_data(&out), n);
        sdx_buf_destroy(&out);
        paths_check(&bson_paths, &o, (const char *)in, n, 3000, bson_mutate, &rng, &t);
        free(in);
    }
    CHECK(t.direct > 1000);
    CHECK(t.declined > 1000);
    CHECK(t.refused > 1000);
    /* declined: the general path's forms (a binary, a regex, with KEEP an
     * array with the keys "1" or "00", a sequence of two, a byte after) */
    static const struct { const char *s; size_t n; } other[] = {
#define E(lit) {lit, sizeof lit - 1}
        E("\x0e\0\0\0\x05" "b\0\x01\0\0\0\0x\0"), E("\x0b\0\0\0\x0b" "r\0a\0\0\0"),
        E("\x10\0\0\0\x04" "a\0\x08\0\0\0\x0a" "1\0\0\0"),
        E("\x11\0\0\0\x04" "a\0\x09\0\0\0\x0a" "00\0\0\0"),
        E("\x05\0\0\0\0\x05\0\0\0\0"), E("\x05\0\0\0\0\0"),
#undef E
    };
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        sdx_bson_read_opts so = {SDX_BSON_READ_SEQUENCE * (i == 4) | KEEP * (i == 2 || i == 3), 0, 0, NULL};
        sdx_doc *dd = NULL;
        CHECK_EQ_INT(sdx_bson_parse_direct_(other[i].s, other[i].n, &so, &dd), 0);
        CHECK(dd == NULL);
        sdx_error pe;
        sdx_doc *p = sdx_bson_parse(other[i].s, other[i].n, &so, &pe);
        CHECK((p != NULL) == (i != 5)); /* all are BSON but the byte after */
        sdx_doc_free(p);
    }
    /* without KEEP the arrays with the keys "1" and "00" are taken
     * directly, as arrays of one null */
    for (size_t i = 2; i <= 3; i++) {
        sdx_doc *dd = NULL;
        CHECK_EQ_INT(sdx_bson_parse_direct_(other[i].s, other[i].n, NULL, &dd), 1);
        sdx_node a = sdx_node_getz(sdx_doc_root(dd), "a");
        CHECK(sdx_node_type(a) == SDX_TYPE_ARRAY && sdx_node_len(a) == 1 &&
              sdx_node_is_null(sdx_node_index(a, 0)));
        sdx_doc_free(dd);
    }
    /* the depth limit: 11 documents in one another are taken with a limit
     * of 11, declined (and refused by the reader) with 10 */
    size_t dn;
    unsigned char *deep = nested(10, &dn);
    for (uint32_t limit = 10; limit <= 11; limit++) {
        sdx_bson_read_opts lo = {0, limit, 0, NULL};
        sdx_doc *dd = NULL;
        CHECK_EQ_INT(sdx_bson_parse_direct_((const char *)deep, dn, &lo, &dd), limit == 11);
        sdx_doc_free(dd);
        sdx_error pe;
        sdx_doc *p = sdx_bson_parse((const char *)deep, dn, &lo, &pe);
        CHECK_EQ_INT(pe.code, limit == 11 ? SDX_OK : SDX_ERR_DEPTH);
        sdx_doc_free(p);
    }
    free(deep);
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){{"every_type", every_type},
                                  {"corpus", corpus},
                                  {"sequence_and_trailing_bytes", sequence_and_trailing_bytes},
                                  {"truncation_at_every_byte", truncation_at_every_byte},
                                  {"byte_flips", byte_flips},
                                  {"lying_lengths", lying_lengths},
                                  {"deep_nesting", deep_nesting},
                                  {"alloc_failures", alloc_failures},
                                  {"reader_skip", reader_skip},
                                  {"parse_paths_agree", parse_paths_agree},
                                  {0}});
}
