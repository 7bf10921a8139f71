/* The UBJSON / BJData reader and parser on bad input: every truncation of
 * valid documents, random byte flips (memory reader, stream reader and
 * parser must agree), lying counts and lengths on streams (no allocation
 * beyond what arrives), deep nesting without recursion, and allocation
 * failure at every point. Run under ASan+UBSan by the sanitizer build. */
#include "ubjson_test.h"

#ifndef SDX_UBJSON_MUTANTS
#define SDX_UBJSON_MUTANTS 3000
#endif

/* ---- a counting allocator that can fail ---- */
static long budget = -1;   /* allocations left before failing; -1: never fail */
static size_t live, peak;  /* bytes allocated now and at most */

typedef struct { size_t size; size_t pad; } hdr;

static void *c_malloc(void *ctx, size_t n) {
    (void)ctx;
    if (budget == 0) return NULL;
    if (budget > 0) budget--;
    hdr *h = malloc(sizeof(hdr) + n);
    if (!h) return NULL;
    h->size = n;
    live += n;
    if (live > peak) peak = live;
    return h + 1;
}
static void c_free(void *ctx, void *p) {
    (void)ctx;
    if (!p) return;
    hdr *h = (hdr *)p - 1;
    live -= h->size;
    free(h);
}
static void *c_realloc(void *ctx, void *p, size_t old, size_t n) {
    (void)old;
    void *q = c_malloc(ctx, n);
    if (!q) return NULL;
    if (p) {
        hdr *h = (hdr *)p - 1;
        memcpy(q, p, h->size < n ? h->size : n);
        c_free(ctx, p);
    }
    return q;
}
static const sdx_alloc counting = {c_malloc, c_realloc, c_free, NULL};

/* ---- streams (trickle.h) ---- */

/* The event text and error of a reader (memory when step is 0, else a
 * stream giving `step` bytes per read into chunks of 16). */
static sdx_err run(const void *in, size_t n, size_t step, uint32_t flags, evtext *t, size_t *off) {
    sdx_ubjson_read_opts o = {flags, 0, 0, &counting};
    trickle tr = {in, n, step};
    sdx_ubjson_reader *r = step ? sdx_ubjson_reader_new_stream(trickle_read, &tr, 16, &o)
                                : sdx_ubjson_reader_new(in, n, &o);
    evtext_clear(t);
    *off = 0;
    if (!r) return SDX_ERR_NOMEM;
    return read_events(r, t, off);
}

/* A stream reader agrees with a memory reader over the same bytes: the
 * same events and error, except where the memory reader rejected a count
 * or length at its header because the input left is too short (which a
 * stream cannot know up front): then the stream reads on from the same
 * events and fails later. */
static int agree(sdx_err e1, size_t off1, const evtext *a, sdx_err e2, size_t off2,
                 const evtext *s, int line) {
    if (e1 == e2 && off1 == off2 && a->n == s->n && memcmp(a->s, s->s, a->n) == 0) return 1;
    if (e1 == SDX_ERR_TRUNCATED && e2 != SDX_OK && s->n >= a->n && memcmp(a->s, s->s, a->n) == 0 &&
        off2 >= off1)
        return 1;
    fprintf(stderr, "  memory: %d@%zu %.*s\n  stream: %d@%zu %.*s\n", (int)e1, off1, (int)a->n,
            a->s, (int)e2, off2, (int)s->n, s->s);
    return test_fail_at(__FILE__, line, "stream and memory readers disagree");
}

/* Valid documents: a mixed UBJSON one from the writer, and hand-made
 * typed, ND and no-op ones. */
static size_t sample(sdx_buf *b, uint32_t wflags) {
    sdx_buf_init(b, NULL);
    sdx_ubjson_writer w;
    sdx_ubjson_write_opts o = {wflags, NULL};
    sdx_ubjson_writer_init(&w, b, &o);
    sdx_ubjson_writer_begin_map(&w, SDX_COUNT_UNKNOWN);
    sdx_ubjson_writer_key(&w, "a", 1);
    sdx_ubjson_writer_begin_array(&w, 6);
    sdx_ubjson_writer_int(&w, -70000);
    sdx_ubjson_writer_uint(&w, UINT64_MAX);
    sdx_ubjson_writer_double(&w, 3.25);
    sdx_ubjson_writer_string(&w, "h\xc3\xa9llo", 6);
    sdx_ubjson_writer_char(&w, 'q');
    sdx_ubjson_writer_bin(&w, "\x01\x02\x03", 3);
    sdx_ubjson_writer_end(&w);
    sdx_ubjson_writer_key(&w, "bb", 2);
    sdx_ubjson_writer_begin_typed_map(&w, 'I', 2);
    sdx_ubjson_writer_key(&w, "x", 1);
    sdx_ubjson_writer_int(&w, 1);
    sdx_ubjson_writer_key(&w, "y", 1);
    sdx_ubjson_writer_int(&w, -2);
    sdx_ubjson_writer_end(&w);
    sdx_ubjson_writer_key(&w, "c", 1);
    sdx_ubjson_writer_begin_array(&w, SDX_COUNT_UNKNOWN);
    sdx_ubjson_writer_high_precision(&w, "-1.5e300", 8);
    /* typed T in UBJSON (no bytes per element); BJData allows only
     * fixed-size types there */
    bool bj = (wflags & SDX_UBJSON_WRITE_BJDATA) != 0;
    sdx_ubjson_writer_begin_typed_array(&w, bj ? 'u' : 'T', 3);
    for (int i = 0; i < 3; i++) bj ? sdx_ubjson_writer_int(&w, 1000) : sdx_ubjson_writer_bool(&w, true);
    sdx_ubjson_writer_end(&w);
    sdx_ubjson_writer_null(&w);
    sdx_ubjson_writer_end(&w);
    sdx_ubjson_writer_end(&w);
    CHECK_EQ_INT(sdx_ubjson_writer_finish(&w), SDX_OK);
    return sdx_buf_len(b);
}

#define SAMPLE(lit, flags) {lit, sizeof(lit) - 1, flags}
static const struct {
    const char *bytes;
    size_t n;
    uint32_t flags;
} extra[] = {
    SAMPLE("[$U#[$U#U\x02\x02\x03\x01\x02\x03\x04\x05\x06", SDX_UBJSON_READ_BJDATA),
    SAMPLE("[$h#[U\x02U\x01]\x00\x3c\x00\xc0", SDX_UBJSON_READ_BJDATA),
    SAMPLE("[N{NU\x01kN[$[#U\x01#U\x01SU\x01zN}N]", 0),
    SAMPLE("{$S#U\x01U\x01kU\x02hi", 0),
};

TEST(truncation_at_every_byte) {
    static evtext a, s;
    for (int k = 0; k < 6; k++) {
        sdx_buf b;
        const unsigned char *in;
        size_t n;
        uint32_t flags = 0;
        if (k < 2) {
            n = sample(&b, k ? SDX_UBJSON_WRITE_BJDATA : 0);
            in = (const unsigned char *)sdx_buf_data(&b);
            flags = k ? SDX_UBJSON_READ_BJDATA : 0;
        } else {
            in = (const unsigned char *)extra[k - 2].bytes;
            n = extra[k - 2].n;
            flags = extra[k - 2].flags;
        }
        size_t off1 = 0, off2 = 0;
        CHECK_EQ_INT(run(in, n, 0, flags, &a, &off1), SDX_OK);
        for (size_t cut = 0; cut < n; cut++) {
            sdx_err e1 = run(in, cut, 0, flags, &a, &off1);
            sdx_err e2 = run(in, cut, 1, flags, &s, &off2);
            if (!CHECK_EQ_INT(e1, SDX_ERR_TRUNCATED)) fprintf(stderr, "  sample %d cut %zu\n", k, cut);
            test_checks_run++;
            agree(e1, off1, &a, e2, off2, &s, __LINE__);
            CHECK_EQ_INT(e2, SDX_ERR_TRUNCATED);
            CHECK(off1 <= cut);
            sdx_ubjson_read_opts o = {flags, 0, 0, NULL};
            sdx_error pe;
            CHECK(sdx_ubjson_parse((const char *)in, cut, &o, &pe) == NULL);
            CHECK_EQ_INT(pe.code, e1);
            CHECK_EQ_U64(pe.offset, off1);
        }
        if (k < 2) sdx_buf_destroy(&b);
    }
    CHECK_EQ_U64(live, 0);
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

TEST(byte_flips) {
    static evtext a, s;
    static const unsigned char interesting[] = {'[', ']', '{', '}', '$', '#', 'Z', 'N', 'T', 'i',
                                                'U', 'I', 'l', 'L', 'S', 'H', 'C', 'M', 'u',
                                                'h', 0x00, 0x7f, 0x80, 0xff};
    long mutants = (long)(SDX_UBJSON_MUTANTS * test_scale());
    long errors = 0;
    for (int k = 0; k < 2; k++) {
        sdx_buf b;
        size_t n = sample(&b, k ? SDX_UBJSON_WRITE_BJDATA : 0);
        uint32_t flags = k ? SDX_UBJSON_READ_BJDATA : 0;
        unsigned char *m = malloc(n);
        for (long i = 0; i < mutants; i++) {
            memcpy(m, sdx_buf_data(&b), n);
            int flips = 1 + (int)(next_rand() % 3);
            for (int f = 0; f < flips; f++) {
                size_t at = (size_t)(next_rand() % n);
                m[at] = next_rand() & 1 ? interesting[next_rand() % sizeof interesting]
                                        : (unsigned char)next_rand();
            }
            size_t off1 = 0, off2 = 0;
            sdx_err e1 = run(m, n, 0, flags, &a, &off1);
            sdx_err e2 = run(m, n, 1 + (size_t)(next_rand() % 9), flags, &s, &off2);
            test_checks_run++;
            agree(e1, off1, &a, e2, off2, &s, __LINE__);
            CHECK(off1 <= n);
            if (e1) errors++;
            sdx_ubjson_read_opts o = {flags, 0, 0, NULL};
            sdx_error pe;
            sdx_doc *d = sdx_ubjson_parse((const char *)m, n, &o, &pe);
            CHECK((d == NULL) == (e1 != SDX_OK));
            if (d) sdx_doc_free(d);
            else CHECK_EQ_INT(pe.code, e1);
        }
        free(m);
        sdx_buf_destroy(&b);
    }
    CHECK(errors > 0); /* the mutations did reach the error paths */
    CHECK_EQ_U64(live, 0);
}

/* Declared sizes far beyond a short stream: the reader fails at the end of
 * the input, holding no more memory than the bytes that came. */
TEST(lying_sizes_on_streams) {
    static const struct {
        const char *in;
        size_t n;
        sdx_err want;
    } cases[] = {
        {"SL\x00\x00\x00\x10\x00\x00\x00\x00xyz", 13, SDX_ERR_TRUNCATED},
        {"[#L\x7f\xff\xff\xff\xff\xff\xff\xffZZ", 13, SDX_ERR_TRUNCATED},
        {"[$U#L\x00\x00\x00\x10\x00\x00\x00\x00\x01\x02", 15, SDX_ERR_TRUNCATED},
        {"[$Z#L\x7f\xff\xff\xff\xff\xff\xff\xff", 13, SDX_ERR_LIMIT},
        {"{$F#l\x7f\xff\xff\xffU\x01" "a", 12, SDX_ERR_TRUNCATED},
        {"HL\x00\x00\x00\x10\x00\x00\x00\x00" "1", 11, SDX_ERR_TRUNCATED},
    };
    static evtext t;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (size_t step = 0; step < 3; step++) {
            size_t off;
            peak = 0;
            if (!CHECK_EQ_INT(run(cases[i].in, cases[i].n, step, 0, &t, &off), cases[i].want))
                fprintf(stderr, "  case %zu step %zu\n", i, step);
            CHECK(peak < 4096);
        }
    }
    /* a 10-byte input asking for 2^63 - 1 nulls, on a stream */
    CHECK_EQ_U64(live, 0);
}

TEST(deep_nesting) {
    size_t n = 200000;
    char *in = malloc(2 * n);
    memset(in, '[', n);
    memset(in + n, ']', n);
    static evtext t;
    size_t off;
    CHECK_EQ_INT(run(in, 2 * n, 0, 0, &t, &off), SDX_ERR_DEPTH);
    CHECK_EQ_U64(off, SDX_UBJSON_DEFAULT_MAX_DEPTH);
    /* a limit high enough: read to the end, without recursion */
    sdx_ubjson_read_opts o = {0, (uint32_t)n, 0, NULL};
    sdx_ubjson_reader *r = sdx_ubjson_reader_new(in, 2 * n, &o);
    sdx_event ev;
    size_t events = 0;
    while (sdx_ubjson_reader_next(r, &ev)) events++;
    CHECK_EQ_INT(sdx_ubjson_reader_error(r, NULL), SDX_OK);
    CHECK_EQ_U64(events, 2 * n);
    sdx_ubjson_reader_free(r);
    sdx_error e;
    sdx_doc *d = sdx_ubjson_parse(in, 2 * n, &o, &e);
    CHECK(d != NULL);
    sdx_doc_free(d);
    free(in);
}

/* Every allocation of a stream reader (the reader, its buffer, growing for
 * a long string, the stack beyond 32 levels) and of the parser failing in
 * turn: SDX_ERR_NOMEM or NULL, never a crash or a leak. */
TEST(allocation_failure_at_every_point) {
    sdx_buf b;
    sdx_buf_init(&b, NULL);
    sdx_ubjson_writer w;
    sdx_ubjson_writer_init(&w, &b, NULL);
    char big[300];
    memset(big, 'z', sizeof big);
    for (int i = 0; i < 40; i++) sdx_ubjson_writer_begin_array(&w, SDX_COUNT_UNKNOWN);
    sdx_ubjson_writer_string(&w, big, sizeof big);
    for (int i = 0; i < 40; i++) sdx_ubjson_writer_end(&w);
    CHECK_EQ_INT(sdx_ubjson_writer_finish(&w), SDX_OK);
    static evtext t;
    bool reader_ok = false, parse_ok = false;
    for (long k = 0; k < 200 && !(reader_ok && parse_ok); k++) {
        size_t off;
        budget = k;
        sdx_err e = run(sdx_buf_data(&b), sdx_buf_len(&b), 7, 0, &t, &off);
        CHECK(e == SDX_OK || e == SDX_ERR_NOMEM);
        if (e == SDX_OK) reader_ok = true;
        budget = k;
        sdx_ubjson_read_opts o = {0, 0, 0, &counting};
        sdx_error pe;
        sdx_doc *d = sdx_ubjson_parse(sdx_buf_data(&b), sdx_buf_len(&b), &o, &pe);
        if (d) {
            parse_ok = true;
            sdx_doc_free(d);
        } else {
            CHECK_EQ_INT(pe.code, SDX_ERR_NOMEM);
        }
        budget = -1;
        CHECK_EQ_U64(live, 0);
    }
    CHECK(reader_ok);
    CHECK(parse_ok);
    sdx_buf_destroy(&b);
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){{"truncation_at_every_byte", truncation_at_every_byte},
                                  {"byte_flips", byte_flips},
                                  {"lying_sizes_on_streams", lying_sizes_on_streams},
                                  {"deep_nesting", deep_nesting},
                                  {"allocation_failure_at_every_point", allocation_failure_at_every_point},
                                  {0, 0}});
}
