/*
 * The Binn reader and parser: every type and both widths of the size and
 * count parameters; malformed input with its error and offset (lying sizes
 * and counts, texts without their NUL, unknown containers); truncation at
 * every byte; byte flips, where the memory reader, a stream reader and the
 * parser must agree; deep nesting without recursion; allocation failure at
 * every point; sequences and skip; corpus round trips through JSON.
 */
#include "alloc_test.h"
#include "binn/binn_internal.h"
#include "binn_test.h"
#include "paths_test.h"
#include "test.h"

#define LIT(s) s, sizeof(s) - 1

/* Read bytes, expect text (or, when `code` is not SDX_OK, that error at
 * `offset`); memory and stream readers (chunk 1 and 5) alike. */
static void expect(const char *data, size_t len, uint32_t flags, const char *text, sdx_err code,
                   size_t offset) {
    static const size_t chunks[] = {0, 1, 5};
    for (size_t i = 0; i < 3; i++) {
        sbuf s = {0};
        size_t off = 0;
        sdx_err rc = dump_binn(data, len, flags, chunks[i], &s, &off);
        int ok = CHECK_EQ_INT(rc, code);
        if (code) ok &= CHECK_EQ_U64(off, offset);
        else ok &= CHECK(s.p && strcmp(s.p, text) == 0);
        if (!ok) fprintf(stderr, "  chunk %zu, text %s, want %s\n", chunks[i], s.p ? s.p : "", text ? text : "");
        free(s.p);
    }
}

TEST(every_type) {
    expect(LIT("\x20\xff"), 0, "255", 0, 0);
    expect(LIT("\x21\xff"), 0, "-1", 0, 0);
    expect(LIT("\x40\xff\xfe"), 0, "65534", 0, 0);
    expect(LIT("\x41\xff\xfe"), 0, "-2", 0, 0);
    expect(LIT("\x60\xff\xff\xff\xfe"), 0, "4294967294", 0, 0);
    expect(LIT("\x61\xff\xff\xff\xfe"), 0, "-2", 0, 0);
    expect(LIT("\x80\x7f\xff\xff\xff\xff\xff\xff\xff"), 0, "9223372036854775807", 0, 0);
    expect(LIT("\x81\x80\x00\x00\x00\x00\x00\x00\x00"), 0, "-9223372036854775808", 0, 0);
    expect(LIT("\x62\x3f\xc0\x00\x00"), 0, "1.5f", 0, 0);
    expect(LIT("\x82\xbf\xf8\x00\x00\x00\x00\x00\x00"), 0, "-1.5", 0, 0);
    expect("\xa0\x03h\xc3\xa9", 6, 0, "\"h\\xc3\\xa9\"", 0, 0);
    expect(LIT("\xc0\x00"), 0, "b''", 0, 0);
    /* Four-byte sizes and counts of small values are accepted. */
    expect("\xa0\x80\x00\x00\x02hi", 8, 0, "\"hi\"", 0, 0);
    expect(LIT("\xc0\x80\x00\x00\x01\x07"), 0, "b'07'", 0, 0);
    expect(LIT("\xe0\x80\x00\x00\x0b\x80\x00\x00\x01\x20\x05"), 0, "[5]", 0, 0);
    expect(LIT("\xe2\x80\x00\x00\x09\x01\x01k\x01"), 0, "{\"k\":true}", 0, 0);
    expect(LIT("\xe1\x08\x01\xff\xff\xff\xff\x00"), 0, "{-1:null}", 0, 0);
    /* Other types: tagged. A two-byte type keeps its two bytes, even for a
     * sub-type that fits one. */
    expect(LIT("\xa1\x01x\x00"), 0, "ta1(\"x\")", 0, 0);
    expect(LIT("\xa4\x04" "1.25\x00"), 0, "ta4(\"1.25\")", 0, 0);
    expect(LIT("\x83\x00\x00\x00\x00\x00\x00\x27\x10"), 0, "t83(b'0000000000002710')", 0, 0);
    expect(LIT("\x10\x05"), 0, "t1005(null)", 0, 0);
    expect(LIT("\xb0\x00\x01y\x00"), 0, "tb000(\"y\")", 0, 0);
    expect(LIT("\x30\x01\x09"), 0, "t3001(b'09')", 0, 0);
    expect(LIT("\xd0\x20\x01\x09"), 0, "td020(b'09')", 0, 0);
}

TEST(malformed) {
    static const struct {
        const char *data;
        size_t len;
        sdx_err code;
        size_t offset;
    } cases[] = {
        {"", 0, SDX_ERR_TRUNCATED, 0},                                 /* empty */
        {LIT("\x20"), SDX_ERR_TRUNCATED, 0},                           /* uint8 without data */
        {LIT("\x00\x00"), SDX_ERR_SYNTAX, 1},                          /* bytes after the value */
        {LIT("\xa0\x01x"), SDX_ERR_TRUNCATED, 0},                      /* text without NUL: cut */
        {LIT("\xa0\x01xy"), SDX_ERR_SYNTAX, 0},                        /* a byte other than NUL */
        {LIT("\xa0\x01\xff\x00"), SDX_ERR_UTF8, 0},
        {LIT("\xe2\x06\x01\x01\xff\x00"), SDX_ERR_UTF8, 3},            /* bad key */
        {LIT("\xe3\x03\x00"), SDX_ERR_SYNTAX, 0},                      /* unknown container */
        {LIT("\xf0\x01\x04\x00"), SDX_ERR_SYNTAX, 0},                  /* two-byte container type */
        {LIT("\xe0\x02\x00"), SDX_ERR_SYNTAX, 0},                      /* size below its header */
        {LIT("\xe0\x04\x02\x00"), SDX_ERR_SYNTAX, 0},                  /* count beyond the size */
        {LIT("\xe1\x07\x01\x00\x00\x00\x01"), SDX_ERR_SYNTAX, 0},      /* map pair needs 5 */
        {LIT("\xe0\x05\x01\x00\x00"), SDX_ERR_SYNTAX, 4},              /* items end early */
        {LIT("\xe0\x04\x01\x20\x05"), SDX_ERR_SYNTAX, 3},              /* item overruns */
        {LIT("\xe0\x06\x01\xe0\x04\x00\x00"), SDX_ERR_SYNTAX, 3},      /* inner size too big */
        {LIT("\xe0\x07\x01\xa0\x05x\x00"), SDX_ERR_SYNTAX, 3},         /* text size too big */
        {LIT("\xe2\x05\x01\x05\x00"), SDX_ERR_SYNTAX, 3},              /* key overruns */
        {LIT("\xe1\x06\x01\x00\x00\x00"), SDX_ERR_SYNTAX, 0},          /* map key cut by size */
        {LIT("\xe0\xff\xff\xff\xff\x01\x00"), SDX_ERR_TRUNCATED, 7},   /* 2 GB claimed */
        {LIT("\xe0\xff\xff\xff\xff\x01\x00\x00"), SDX_ERR_SYNTAX, 7},
        {LIT("\xe0\x7f\xff\xff\xff\xff"), SDX_ERR_SYNTAX, 0},        /* 2^31 items in 127 bytes */
        {LIT("\xc0\xff\xff\xff\xff"), SDX_ERR_TRUNCATED, 0},           /* 2 GB blob */
        {LIT("\xe0\x0c\x80\x00\x00\x01\x00\x00\x00\x00\x00\x00"), SDX_ERR_SYNTAX, 7},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t before = (size_t)test_checks_failed;
        expect(cases[i].data, cases[i].len, 0, NULL, cases[i].code, cases[i].offset);
        if ((size_t)test_checks_failed != before) fprintf(stderr, "  case %zu\n", i);
        sdx_error e;
        sdx_doc *doc = sdx_binn_parse(cases[i].data, cases[i].len, NULL, &e);
        CHECK(doc == NULL);
        CHECK_EQ_INT(e.code, cases[i].code);
        CHECK_EQ_U64(e.offset, cases[i].offset);
        CHECK(e.msg != NULL);
        sdx_doc_free(doc);
    }
}

/* A document of every kind, with containers of both header widths. */
static void rich(sdx_buf *out) {
    sdx_binn_writer w;
    sdx_buf_init(out, NULL);
    sdx_binn_writer_init(&w, out, NULL);
    sdx_binn_writer_begin_map(&w, SDX_COUNT_UNKNOWN);
    sdx_binn_writer_key(&w, "ints", 4);
    sdx_binn_writer_begin_array(&w, SDX_COUNT_UNKNOWN);
    int64_t ints[] = {0, -1, 200, -200, 70000, -70000, 5000000000, -5000000000, INT64_MIN};
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++) sdx_binn_writer_int(&w, ints[i]);
    sdx_binn_writer_uint(&w, UINT64_MAX);
    sdx_binn_writer_end(&w);
    sdx_binn_writer_key(&w, "byid", 4);
    sdx_binn_writer_begin_map(&w, 3);
    sdx_binn_writer_int(&w, 1);
    sdx_binn_writer_double(&w, 0.25);
    sdx_binn_writer_int(&w, -7);
    sdx_binn_writer_float(&w, 2.5f);
    sdx_binn_writer_int(&w, 100000);
    sdx_binn_writer_begin_array(&w, 0);
    sdx_binn_writer_end(&w);
    sdx_binn_writer_end(&w);
    sdx_binn_writer_key(&w, "texts", 5);
    sdx_binn_writer_begin_array(&w, 140);
    for (int i = 0; i < 140; i++) sdx_binn_writer_string(&w, "h\xc3\xa9", (size_t[]){0, 1, 3}[i % 3]);
    sdx_binn_writer_end(&w);
    sdx_binn_writer_key(&w, "", 0);
    sdx_binn_writer_begin_array(&w, 6);
    sdx_binn_writer_null(&w);
    sdx_binn_writer_bool(&w, true);
    sdx_binn_writer_bool(&w, false);
    sdx_binn_writer_blob(&w, "\0\1\2", 3);
    sdx_binn_writer_typed(&w, SDX_BINN_DATETIME, "2026-11-24T07:30:00Z", 20);
    sdx_binn_writer_typed(&w, 0xB015, "<p>", 3);
    sdx_binn_writer_end(&w);
    sdx_binn_writer_end(&w);
    if (sdx_binn_writer_finish(&w)) abort();
}

TEST(truncation_every_byte) {
    sdx_buf out;
    rich(&out);
    const char *d = sdx_buf_data(&out);
    size_t n = sdx_buf_len(&out);
    CHECK(n > 300);
    sbuf full = {0};
    CHECK_EQ_INT(dump_binn(d, n, 0, 0, &full, NULL), SDX_OK);
    for (size_t cut = 0; cut < n; cut++) {
        for (size_t chunk = 0; chunk <= 3; chunk += 3) {
            sbuf s = {0};
            sdx_err rc = dump_binn(d, cut, 0, chunk, &s, NULL);
            if (!CHECK_EQ_INT(rc, SDX_ERR_TRUNCATED)) fprintf(stderr, "  cut %zu chunk %zu\n", cut, chunk);
            free(s.p);
        }
        sdx_error e;
        sdx_doc *doc = sdx_binn_parse(d, cut, NULL, &e);
        CHECK(doc == NULL && e.code == SDX_ERR_TRUNCATED);
    }
    free(full.p);
    sdx_buf_destroy(&out);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void) {
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33);
}

/* Mutants of the rich document (1 to 3 bytes changed): the memory reader,
 * a stream reader and the parser agree (same events, same error and
 * offset; the parser fails exactly when the reader does). */
TEST(byte_flips) {
    sdx_buf out;
    rich(&out);
    size_t n = sdx_buf_len(&out);
    char *m = malloc(n);
    long mutants = (long)(3000 * test_scale()), failures = 0;
    for (long k = 0; k < mutants; k++) {
        memcpy(m, sdx_buf_data(&out), n);
        int flips = 1 + (int)(rnd() % 3);
        for (int f = 0; f < flips; f++) {
            size_t at = rnd() % n;
            m[at] = (char)(rnd() % 2 ? (m[at] ^ (1 << (rnd() % 8))) : (char)rnd());
        }
        sbuf a = {0}, b = {0};
        size_t oa = 0, ob = 0;
        sdx_err ra = dump_binn(m, n, 0, 0, &a, &oa);
        sdx_err rb = dump_binn(m, n, 0, 7, &b, &ob);
        int ok = CHECK_EQ_INT(ra, rb) && CHECK_EQ_U64(oa, ob) &&
                 CHECK((!a.p && !b.p) || (a.p && b.p && strcmp(a.p, b.p) == 0));
        sdx_error e;
        sdx_doc *doc = sdx_binn_parse(m, n, NULL, &e);
        ok &= CHECK((doc != NULL) == (ra == SDX_OK));
        if (!doc) ok &= CHECK_EQ_INT(e.code, ra) && CHECK_EQ_U64(e.offset, oa);
        if (!ok) fprintf(stderr, "  mutant %ld\n", k);
        failures += ra != SDX_OK;
        sdx_doc_free(doc);
        free(a.p);
        free(b.p);
    }
    CHECK(failures > mutants / 4); /* the mutations did reach the checks */
    free(m);
    sdx_buf_destroy(&out);
}

/* n nested lists, every size and count in four bytes (built by hand: the
 * writer's moves make a deep document quadratic to write). */
static char *deep(size_t n, size_t *len) {
    char *p = malloc(9 * n);
    for (size_t i = 0; i < n; i++) {
        char *q = p + 9 * i;
        q[0] = (char)0xe0;
        uint32_t size = (uint32_t)(9 * (n - i)), count = i + 1 < n;
        for (int b = 0; b < 4; b++) {
            q[1 + b] = (char)((size | 0x80000000u) >> (24 - 8 * b));
            q[5 + b] = (char)((count | 0x80000000u) >> (24 - 8 * b));
        }
    }
    *len = 9 * n;
    return p;
}

TEST(deep_nesting) {
    size_t len, n = 100000;
    char *p = deep(n, &len);
    sdx_error e;
    CHECK(sdx_binn_parse(p, len, NULL, &e) == NULL);
    CHECK_EQ_INT(e.code, SDX_ERR_DEPTH);
    CHECK_EQ_U64(e.offset, 9 * SDX_BINN_DEFAULT_MAX_DEPTH);
    sdx_binn_read_opts o = {0, (uint32_t)n, NULL};
    sdx_doc *doc = sdx_binn_parse(p, len, &o, &e);
    CHECK(doc != NULL);
    sdx_doc_free(doc);
    sdx_binn_reader *r = sdx_binn_reader_new(p, len, &o);
    sdx_event ev;
    size_t events = 0;
    while (sdx_binn_reader_next(r, &ev)) events++;
    CHECK_EQ_INT(sdx_binn_reader_error(r, NULL), SDX_OK);
    CHECK_EQ_U64(events, 2 * n);
    sdx_binn_reader_free(r);
    /* Lying sizes all the way down: each level claims more than its parent
     * holds; the first inner level fails. */
    for (size_t i = 1; i < n; i++) p[9 * i + 4] = (char)0xff;
    doc = sdx_binn_parse(p, len, &o, &e);
    CHECK(doc == NULL && e.code == SDX_ERR_SYNTAX && e.offset == 9);
    free(p);
}

/* The parser (copying and not) and a stream reader with an allocator that
 * fails at every call in turn: SDX_ERR_NOMEM, nothing leaked. */
TEST(allocation_failure) {
    sdx_buf out;
    rich(&out);
    for (int copy = 0; copy < 2; copy++) {
        int done = 0;
        for (long k = 1; k < 1000 && !done; k++) {
            counting_alloc a;
            counting_alloc_init(&a, k);
            sdx_binn_read_opts o = {copy ? SDX_BINN_READ_COPY_INPUT : 0, 0, &a.iface};
            sdx_error e;
            sdx_doc *doc = sdx_binn_parse(sdx_buf_data(&out), sdx_buf_len(&out), &o, &e);
            if (doc) {
                done = 1;
                CHECK_EQ_U64(sdx_doc_consumed(doc), sdx_buf_len(&out));
                sdx_doc_free(doc);
            } else {
                CHECK_EQ_INT(e.code, SDX_ERR_NOMEM);
            }
            CHECK_EQ_INT(a.live, 0);
        }
        CHECK(done);
    }
    int done = 0;
    for (long k = 1; k < 1000 && !done; k++) {
        counting_alloc a;
        counting_alloc_init(&a, k);
        sdx_binn_read_opts o = {0, 0, &a.iface};
        mem_in m = {sdx_buf_data(&out), sdx_buf_len(&out)};
        sdx_binn_reader *r = sdx_binn_reader_new_stream(mem_read, &m, 16, &o);
        if (r) {
            sbuf s = {0};
            sdx_err rc = dump_source(sdx_binn_reader_source(r), &s);
            if (rc == SDX_OK) done = 1;
            else CHECK_EQ_INT(rc, SDX_ERR_NOMEM);
            sdx_binn_reader_free(r);
            free(s.p);
        }
        CHECK_EQ_INT(a.live, 0);
    }
    CHECK(done);
    /* A stream that claims a 2 GB text and ends: the buffer grows only by
     * what arrived. */
    counting_alloc a;
    counting_alloc_init(&a, 0);
    sdx_binn_read_opts o = {0, 0, &a.iface};
    char big[1000] = "\xa0\xff\xff\xff\xff";
    mem_in m = {big, sizeof big};
    sdx_binn_reader *r = sdx_binn_reader_new_stream(mem_read, &m, 64, &o);
    sdx_event ev;
    CHECK(!sdx_binn_reader_next(r, &ev));
    CHECK_EQ_INT(sdx_binn_reader_error(r, NULL), SDX_ERR_TRUNCATED);
    CHECK(a.live_bytes < 4096 + sizeof big * 2);
    sdx_binn_reader_free(r);
    sdx_buf_destroy(&out);
}

TEST(sequence_and_skip) {
    static const char seq[] = "\x20\x01\xe0\x05\x02\x00\x01\xa0\x00";
    expect(seq, sizeof seq, SDX_BINN_READ_STOP_AFTER_VALUE, "1 [null,true] \"\"", 0, 0);
    expect(seq, sizeof seq, 0, NULL, SDX_ERR_SYNTAX, 2);
    sdx_binn_read_opts o = {SDX_BINN_READ_STOP_AFTER_VALUE, 0, NULL};
    sdx_error e;
    sdx_doc *doc = sdx_binn_parse(seq, sizeof seq, &o, &e);
    CHECK(doc && sdx_doc_consumed(doc) == 2 && sdx_node_int(sdx_doc_root(doc)) == 1);
    sdx_doc_free(doc);
    sdx_binn_reader *r = sdx_binn_reader_new(seq, sizeof seq, &o);
    sdx_event ev;
    CHECK(sdx_binn_reader_next(r, &ev) && ev.kind == SDX_INT);
    CHECK(sdx_binn_reader_skip(r)); /* after a scalar: nothing */
    CHECK(sdx_binn_reader_next(r, &ev) && ev.kind == SDX_ARRAY && ev.v.count == 2);
    CHECK(sdx_binn_reader_skip(r));
    CHECK_EQ_U64(sdx_binn_reader_offset(r), 7);
    CHECK(sdx_binn_reader_next(r, &ev) && ev.kind == SDX_STR && ev.depth == 0);
    CHECK(!sdx_binn_reader_next(r, &ev));
    CHECK_EQ_INT(sdx_binn_reader_error(r, NULL), SDX_OK);
    sdx_binn_reader_free(r);
}

static sdx_err emit_json(sdx_node n, sdx_buf *out) {
    sdx_json_writer w;
    sdx_buf_init(out, NULL);
    sdx_json_writer_init(&w, out, NULL);
    sdx_err rc = sdx_node_emit(n, sdx_json_writer_sink(&w));
    sdx_err fc = sdx_json_writer_finish(&w);
    return rc ? rc : fc;
}

/* Corpus JSON -> Binn -> JSON gives the minified JSON back, by the parser
 * and by a FILE* reader; the Binn document written again gives the same
 * bytes. */
TEST(corpus_roundtrip) {
    static const char *names[] = {"twitter.json", "citm_catalog.json", "canada.json"};
    const char *dir = getenv("SDX_CORPUS") ? getenv("SDX_CORPUS") : SDX_CORPUS_DIR;
    for (size_t i = 0; i < 3; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        size_t len;
        char *json = test_read_file(path, &len);
        if (!CHECK(json != NULL)) {
            fprintf(stderr, "  no corpus file %s\n", path);
            continue;
        }
        sdx_error e;
        sdx_doc *jd = sdx_json_parse(json, len, NULL, &e);
        sdx_buf want, bin, back, again;
        CHECK_EQ_INT(emit_json(sdx_doc_root(jd), &want), SDX_OK);
        sdx_buf_init(&bin, NULL);
        sdx_binn_writer w;
        sdx_binn_writer_init(&w, &bin, NULL);
        CHECK_EQ_INT(sdx_node_emit(sdx_doc_root(jd), sdx_binn_writer_sink(&w)), SDX_OK);
        CHECK_EQ_INT(sdx_binn_writer_finish(&w), SDX_OK);
        sdx_doc *bd = sdx_binn_parse(sdx_buf_data(&bin), sdx_buf_len(&bin), NULL, &e);
        if (CHECK(bd != NULL)) {
            CHECK_EQ_INT(emit_json(sdx_doc_root(bd), &back), SDX_OK);
            CHECK_MEM(sdx_buf_data(&back), sdx_buf_len(&back), sdx_buf_data(&want), sdx_buf_len(&want));
            sdx_buf_destroy(&back);
            sdx_buf_init(&again, NULL);
            sdx_binn_writer_init(&w, &again, NULL);
            CHECK_EQ_INT(sdx_node_emit(sdx_doc_root(bd), sdx_binn_writer_sink(&w)), SDX_OK);
            CHECK_EQ_INT(sdx_binn_writer_finish(&w), SDX_OK);
            CHECK_MEM(sdx_buf_data(&again), sdx_buf_len(&again), sdx_buf_data(&bin), sdx_buf_len(&bin));
            sdx_buf_destroy(&again);
        }
        sdx_doc_free(bd);
        /* The FILE* reader straight into the JSON writer. */
        FILE *f = tmpfile();
        if (CHECK(f != NULL)) {
            fwrite(sdx_buf_data(&bin), 1, sdx_buf_len(&bin), f);
            rewind(f);
            sdx_binn_reader *r = sdx_binn_reader_new_file(f, NULL);
            sdx_json_writer jw;
            sdx_buf_init(&back, NULL);
            sdx_json_writer_init(&jw, &back, NULL);
            CHECK_EQ_INT(sdx_transcode(sdx_binn_reader_source(r), sdx_json_writer_sink(&jw), NULL), SDX_OK);
            CHECK_EQ_INT(sdx_json_writer_finish(&jw), SDX_OK);
            CHECK_MEM(sdx_buf_data(&back), sdx_buf_len(&back), sdx_buf_data(&want), sdx_buf_len(&want));
            sdx_buf_destroy(&back);
            sdx_binn_reader_free(r);
            fclose(f);
        }
        sdx_doc_free(jd);
        sdx_buf_destroy(&want);
        sdx_buf_destroy(&bin);
        free(json);
    }
}

/* A random value of the common types (what sdx_binn_parse reads directly):
 * no typed strings or user types. */
static void gen_common(sdx_binn_writer *w, int depth) {
    static const char text[] = "plain ascii text, \xc3\xa9t\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac";
    static const unsigned cuts[] = {0, 1, 5, 18, 21, 24, 27, 30};
    uint32_t r = rnd();
    switch (r % (depth < 5 ? 14 : 10)) {
    case 0: sdx_binn_writer_int(w, (int64_t)(r >> 9) % ((r >> 8) & 1 ? 600 : 140000) - ((r >> 8) & 1 ? 300 : 70000)); break;
    case 1: sdx_binn_writer_int(w, (int64_t)((uint64_t)rnd() << 32 | rnd()) >> (r >> 8) % 60); break;
    case 2: sdx_binn_writer_uint(w, UINT64_MAX - (r >> 8)); break;
    case 3: sdx_binn_writer_double(w, (double)(int32_t)rnd() / 7.0); break;
    case 4: sdx_binn_writer_float(w, (float)(int32_t)rnd() / 3.0f); break;
    case 5: sdx_binn_writer_string(w, text, cuts[(r >> 8) % 8]); break;
    case 6: sdx_binn_writer_blob(w, text, (r >> 8) % 20); break;
    case 7: sdx_binn_writer_bool(w, (r >> 8) & 1); break;
    case 8: sdx_binn_writer_null(w); break;
    case 9: sdx_binn_writer_string(w, text, (r >> 8) % 19); break;
    default: {
        /* a list, a map (int keys) or an object; now and then large
         * enough for four-byte sizes and counts */
        int kind = (int)(r % 3);
        uint32_t n = (r >> 8) % 6;
        if (depth == 2 && (r >> 16) % 3 == 0) n = 100 + (r >> 20) % 100;
        if (kind == 0) sdx_binn_writer_begin_array(w, SDX_COUNT_UNKNOWN);
        else sdx_binn_writer_begin_map(w, SDX_COUNT_UNKNOWN);
        for (uint32_t i = 0; i < n; i++) {
            if (kind == 1) sdx_binn_writer_int(w, (int64_t)i * 7919 - 1000);
            else if (kind == 2) sdx_binn_writer_key(w, text + i % 7, rnd() % 12);
            gen_common(w, depth + 1);
        }
        sdx_binn_writer_end(w);
        break;
    }
    }
}

/* sdx_binn_parse's paths for paths_check (tests/unit/paths_test.h). */
static int binn_direct(const char *d, size_t n, const void *o, sdx_doc **out) {
    return sdx_binn_parse_direct_(d, n, o, out);
}
static sdx_doc *binn_events(const char *d, size_t n, const void *o, sdx_error *e) {
    return sdx_binn_parse_events_(d, n, o, e);
}
static sdx_doc *binn_parse(const char *d, size_t n, const void *o, sdx_error *e) {
    return sdx_binn_parse(d, n, o, e);
}
static const paths_fmt binn_paths = {binn_direct, binn_events, binn_parse};

/* One to three bytes with a bit flipped or set to any value (as byte_flips). */
static void binn_mutate(char *x, size_t n, void *ctx) {
    (void)ctx;
    for (unsigned k = 0, nk = 1 + rnd() % 3; k < nk; k++) {
        size_t at = rnd() % n;
        x[at] = (char)(rnd() % 2 ? (x[at] ^ (1 << (rnd() % 8))) : (char)rnd());
    }
}

/* sdx_binn_parse reads a value of the common types directly and leaves
 * the rest to the reader's events into the builder: on random documents
 * the direct parse takes them with the builder's slots; on 3000 mutated
 * copies of each it either gives the builder's slots or declines, never
 * accepting what the reader refuses, and sdx_binn_parse returns the
 * reader's error and offset; typed values, COPY_INPUT and bytes after the
 * value are declined (the last taken with STOP_AFTER_VALUE). */
TEST(parse_paths_agree) {
    paths_tally t = {0, 0, 0};
    for (unsigned seed = 1; seed <= 6; seed++) {
        /* the documents do not depend on what ran before (SDX_TEST_SCALE) */
        rng_state = 0x9e3779b97f4a7c15ull + seed;
        uint32_t flags = seed & 2 ? SDX_BINN_READ_NO_UTF8_CHECK : 0;
        sdx_binn_read_opts o = {flags, 0, NULL};
        sdx_buf out;
        sdx_buf_init(&out, NULL);
        sdx_binn_writer w;
        sdx_binn_writer_init(&w, &out, NULL);
        sdx_binn_writer_begin_map(&w, SDX_COUNT_UNKNOWN);
        for (int i = 0; i < 30; i++) {
            char key[8];
            sdx_binn_writer_key(&w, key, (size_t)snprintf(key, sizeof key, "k%d", i));
            gen_common(&w, 1);
        }
        sdx_binn_writer_end(&w);
        if (!CHECK_EQ_INT(sdx_binn_writer_finish(&w), SDX_OK)) break;
        size_t n = sdx_buf_len(&out);
        char *in = malloc(n);
        memcpy(in, sdx_buf_data(&out), n);
        sdx_buf_destroy(&out);
        paths_check(&binn_paths, &o, in, n, 3000, binn_mutate, NULL, &t);
        free(in);
    }
    CHECK(t.direct > 1000);
    CHECK(t.declined > 1000);
    CHECK(t.refused > 1000);
    /* the rich document has a datetime and a user type: declined, and
     * parsed by the general path */
    sdx_buf out;
    rich(&out);
    sdx_doc *d = NULL;
    CHECK_EQ_INT(sdx_binn_parse_direct_(sdx_buf_data(&out), sdx_buf_len(&out), NULL, &d), 0);
    sdx_error e;
    d = sdx_binn_parse(sdx_buf_data(&out), sdx_buf_len(&out), NULL, &e);
    CHECK(d != NULL);
    sdx_doc_free(d);
    sdx_buf_destroy(&out);
    /* a value with a byte after it: declined; with STOP_AFTER_VALUE taken,
     * and consumed up to the value's end; with COPY_INPUT declined */
    sdx_binn_read_opts stop = {SDX_BINN_READ_STOP_AFTER_VALUE, 0, NULL};
    sdx_binn_read_opts copy = {SDX_BINN_READ_COPY_INPUT, 0, NULL};
    CHECK_EQ_INT(sdx_binn_parse_direct_("\x01\x00", 2, NULL, &d), 0);
    CHECK_EQ_INT(sdx_binn_parse_direct_("\x01\x00", 2, &stop, &d), 1);
    if (CHECK(d != NULL)) CHECK_EQ_U64(sdx_doc_consumed(d), 1);
    sdx_doc_free(d);
    CHECK_EQ_INT(sdx_binn_parse_direct_("\x01", 1, &copy, &d), 0);
    /* the depth limit: two lists in one another, with a limit of 1 */
    sdx_binn_read_opts lim = {0, 1, NULL};
    CHECK_EQ_INT(sdx_binn_parse_direct_("\xe0\x06\x01\xe0\x03\x00", 6, &lim, &d), 0);
    CHECK_EQ_INT(sdx_binn_parse_direct_("\xe0\x06\x01\xe0\x03\x00", 6, NULL, &d), 1);
    sdx_doc_free(d);
}

int main(int argc, char **argv) {
    return test_run(argc, argv, (test_case[]){
        {"every_type", every_type},
        {"malformed", malformed},
        {"truncation_every_byte", truncation_every_byte},
        {"byte_flips", byte_flips},
        {"deep_nesting", deep_nesting},
        {"allocation_failure", allocation_failure},
        {"sequence_and_skip", sequence_and_skip},
        {"corpus_roundtrip", corpus_roundtrip},
        {"parse_paths_agree", parse_paths_agree},
        {0}});
}
