/* Malformed CBOR: every answer is a clean error with its offset, never a
 * crash, a hang or an allocation driven by a declared length (the
 * sanitizer build runs this too).
 *
 *   - truncation at every byte of valid documents (written by the writer
 *     from generated events): the memory reader, the stream reader and
 *     the parser all fail, with SDX_ERR_TRUNCATED at an offset within the
 *     input;
 *   - random byte flips: the memory reader, the stream reader and the
 *     parser agree on the error code and offset (the stream reader may
 *     hit a joined string's limit where the others see a truncation);
 *     every string view points inside the input or is a joined string no
 *     longer than it;
 *   - short inputs declaring 2^64 - 1 or 2^32 bytes, elements or entries,
 *     also inside indefinite strings: refused with no allocation (a
 *     counting allocator sees no block beyond the reader's own), as
 *     truncated or, where a break stands in the definite array, as the
 *     syntax error that reading order meets first;
 *   - nesting 200000 deep: SDX_ERR_DEPTH by default, fine with the limit
 *     raised, for arrays, maps, tags (SDX_ERR_LIMIT) and indefinite
 *     containers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_test.h"
#include "cbor_test.h"

#ifndef SDX_CBOR_MUTANTS
#define SDX_CBOR_MUTANTS 3000
#endif

/* A valid document using every kind of item, written by the writer. */
static size_t make_doc(sdx_buf *out, uint64_t seed, uint32_t flags) {
    sdx_cbor_writer w;
    sdx_cbor_write_opts o = {flags, NULL};
    sdx_cbor_writer_init(&w, out, &o);
    uint64_t st = seed;
    sdx_cbor_writer_begin_map(&w, SDX_COUNT_UNKNOWN);
    for (int i = 0; i < 12; i++) {
        char key[16];
        int kn = snprintf(key, sizeof key, "k%d", i);
        sdx_cbor_writer_key(&w, key, (size_t)kn);
        uint64_t r = test_rand(&st);
        switch (i % 12) {
        case 0: sdx_cbor_writer_int(&w, (int64_t)r); break;
        case 1: sdx_cbor_writer_nint(&w, r); break;
        case 2: sdx_cbor_writer_double(&w, (double)(r % 1000) / 8); break;
        case 3: sdx_cbor_writer_double(&w, (double)r * 1e-3); break;
        case 4: sdx_cbor_writer_string(&w, "h\xc3\xa9llo w\xc3\xb6rld", 14); break;
        case 5: sdx_cbor_writer_bytes(&w, key, (size_t)kn); break;
        case 6:
            sdx_cbor_writer_tag(&w, 61);
            sdx_cbor_writer_tag(&w, r % 70000);
            sdx_cbor_writer_begin_array(&w, 3);
            sdx_cbor_writer_undefined(&w);
            sdx_cbor_writer_simple(&w, 200);
            sdx_cbor_writer_bool(&w, true);
            sdx_cbor_writer_end(&w);
            break;
        case 7:
            sdx_cbor_writer_begin_array(&w, SDX_COUNT_UNKNOWN);
            for (int k = 0; k < 30; k++) sdx_cbor_writer_int(&w, k * 1000 - 5000);
            sdx_cbor_writer_end(&w);
            break;
        case 8:
            sdx_cbor_writer_begin_map(&w, 2);
            sdx_cbor_writer_int(&w, 1);
            sdx_cbor_writer_null(&w);
            sdx_cbor_writer_begin_array(&w, 0);
            sdx_cbor_writer_end(&w);
            sdx_cbor_writer_half(&w, 0x7bff);
            sdx_cbor_writer_end(&w);
            break;
        default: sdx_cbor_writer_uint(&w, r >> (i * 5)); break;
        }
    }
    sdx_cbor_writer_end(&w);
    sdx_cbor_writer_finish(&w);
    return sdx_buf_len(out);
}

typedef struct outcome {
    sdx_err code;
    size_t offset;
    size_t events;
} outcome;

typedef struct mem_in {
    const unsigned char *p;
    size_t len, pos;
} mem_in;

static size_t mem_read(void *ctx, void *buf, size_t cap) {
    mem_in *m = ctx;
    size_t n = m->len - m->pos;
    if (n > cap) n = cap;
    if (n > 7) n = 7;
    memcpy(buf, m->p + m->pos, n);
    m->pos += n;
    return n;
}

/* Read all events with the memory reader (checking every view), the
 * stream reader and the parser; 0 when they disagree. */
static int read_three(const unsigned char *in, size_t n, const sdx_cbor_read_opts *o, outcome *out) {
    outcome a = {0, 0, 0}, b = {0, 0, 0};
    sdx_cbor_reader *r = sdx_cbor_reader_new((const char *)in, n, o);
    sdx_event ev;
    int views_ok = 1;
    while (sdx_cbor_reader_next(r, &ev)) {
        a.events++;
        if ((ev.kind == SDX_STR || ev.kind == SDX_KEY || ev.kind == SDX_BIN) && ev.v.str.len) {
            const unsigned char *s = (const unsigned char *)ev.v.str.ptr;
            int inside = s >= in && s + ev.v.str.len <= in + n;
            views_ok &= inside || ev.v.str.len <= n; /* joined: no longer than the input */
        }
    }
    sdx_error e;
    a.code = sdx_cbor_reader_error(r, &e);
    a.offset = e.offset;
    sdx_cbor_reader_free(r);
    mem_in m = {in, n, 0};
    r = sdx_cbor_reader_new_stream(mem_read, &m, 5, o);
    while (sdx_cbor_reader_next(r, &ev)) b.events++;
    b.code = sdx_cbor_reader_error(r, &e);
    b.offset = e.offset;
    sdx_cbor_reader_free(r);
    sdx_doc *doc = sdx_cbor_parse((const char *)in, n, o, &e);
    sdx_err pc = doc ? SDX_OK : e.code;
    size_t poff = doc ? 0 : e.offset;
    sdx_doc_free(doc);
    *out = a;
    /* The stream reader finds the same error at the same offset: it cannot
     * check a declared count or length against the input left, but reads
     * on to where the input ends, which is reported at the innermost item
     * it ends inside, as the memory reader does. Only a joined string's
     * limit may come first (SDX_ERR_LIMIT, a chunk longer than max_string
     * that the memory reader finds truncated). A memory reader that sees
     * a count the input cannot meet reads on to the error without
     * delivering events, so the stream may give more. */
    int stream_ok = a.code == SDX_OK
                        ? b.code == SDX_OK && b.events == a.events
                        : ((b.code == a.code && b.offset == a.offset) ||
                           (a.code == SDX_ERR_TRUNCATED && b.code == SDX_ERR_LIMIT)) &&
                              b.events >= a.events;
    int ok = views_ok && stream_ok && pc == a.code && poff == a.offset &&
             (a.code == SDX_OK || a.offset <= n);
    if (!ok)
        fprintf(stderr, "  disagree: mem %d@%zu/%zu stream %d@%zu/%zu parse %d@%zu views %d\n", a.code,
                a.offset, a.events, b.code, b.offset, b.events, pc, poff, views_ok);
    return ok;
}

TEST(truncation) {
    for (uint32_t flags = 0; flags <= SDX_CBOR_WRITE_DEFINITE; flags += SDX_CBOR_WRITE_DEFINITE) {
        sdx_buf out;
        sdx_buf_init(&out, NULL);
        size_t n = make_doc(&out, 42 + flags, flags);
        const unsigned char *in = (const unsigned char *)sdx_buf_data(&out);
        outcome full;
        CHECK(read_three(in, n, NULL, &full));
        CHECK_EQ_INT(full.code, SDX_OK);
        int ok = 1;
        for (size_t cut = 0; cut < n && ok; cut++) {
            outcome o;
            ok &= read_three(in, cut, NULL, &o);
            ok &= o.code == SDX_ERR_TRUNCATED && o.offset <= cut;
            if (!ok) fprintf(stderr, "  cut at %zu of %zu: %d at %zu\n", cut, n, o.code, o.offset);
        }
        CHECK(ok);
        sdx_buf_destroy(&out);
    }
}

TEST(byte_flips) {
    sdx_buf out;
    sdx_buf_init(&out, NULL);
    size_t n = make_doc(&out, 7, 0);
    unsigned char *copy = malloc(n);
    uint64_t st = 1234;
    long errors = 0;
    int ok = 1;
    sdx_cbor_read_opts checks = {SDX_CBOR_READ_REJECT_DUPLICATE_KEYS, 0, 0, 0, NULL};
    for (long i = 0; i < SDX_CBOR_MUTANTS && ok; i++) {
        memcpy(copy, sdx_buf_data(&out), n);
        int flips = 1 + (int)(test_rand(&st) % 3);
        for (int k = 0; k < flips; k++) copy[test_rand(&st) % n] = (unsigned char)test_rand(&st);
        outcome o;
        ok &= read_three(copy, n, i & 1 ? &checks : NULL, &o);
        if (o.code) errors++;
    }
    CHECK(ok);
    CHECK(errors > 0);
    free(copy);
    sdx_buf_destroy(&out);
}

TEST(huge_declared) {
    static const char *inputs[] = {
        "9bffffffffffffffff00", "bbffffffffffffffff0000", "5bffffffffffffffff00",
        "7bffffffffffffffff00", "9affffffff00",           "baffffffff0000",
        "5affffffff00",         "5f5bffffffffffffffff00ff", "7f7affffffff00ff",
        "9f9bffffffffffffffff0000", "c09bffffffffffffffff",
        /* the break is a syntax error in the definite array (Appendix F.1) */
        "9f9bffffffffffffffff00ff",
    };
    for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
        unsigned char in[64];
        size_t n = unhex(inputs[i], in);
        counting_alloc ca;
        counting_alloc_init(&ca, 0);
        sdx_cbor_read_opts o = {0, 0, 0, 0, &ca.iface};
        sdx_cbor_reader *r = sdx_cbor_reader_new((const char *)in, n, &o);
        long base = ca.calls;
        sdx_event ev;
        while (sdx_cbor_reader_next(r, &ev)) {
        }
        sdx_err want = i == sizeof inputs / sizeof *inputs - 1 ? SDX_ERR_SYNTAX : SDX_ERR_TRUNCATED;
        CHECK_EQ_INT(sdx_cbor_reader_error(r, NULL), want);
        CHECK_EQ_INT(ca.calls - base, 0);
        CHECK(ca.live_bytes < 4096);
        sdx_cbor_reader_free(r);
        outcome out;
        CHECK(read_three(in, n, NULL, &out));
        CHECK_EQ_INT(out.code, want);
    }
}

static void deep(unsigned char fill, unsigned char leaf, size_t n, sdx_err want_default) {
    unsigned char *in = malloc(n + 1);
    memset(in, fill, n);
    in[n] = leaf;
    outcome o;
    CHECK(read_three(in, n + 1, NULL, &o));
    CHECK_EQ_INT(o.code, want_default);
    sdx_cbor_read_opts big = {0, (uint32_t)n + 1, (uint32_t)n + 1, 0, NULL};
    sdx_cbor_reader *r = sdx_cbor_reader_new((const char *)in, n + 1, &big);
    sdx_event ev;
    size_t events = 0;
    while (sdx_cbor_reader_next(r, &ev)) events++;
    sdx_err rc = sdx_cbor_reader_error(r, NULL);
    if (!CHECK(rc == SDX_OK || (fill == 0x9f && rc == SDX_ERR_TRUNCATED)))
        fprintf(stderr, "  fill %02x: %s after %zu events\n", fill, sdx_strerror(rc), events);
    sdx_cbor_reader_free(r);
    free(in);
}

TEST(deep_nesting) {
    deep(0x81, 0x00, 200000, SDX_ERR_DEPTH);
    /* maps: {1: {1: ... 0}} */
    size_t n = 200000;
    unsigned char *in = malloc(2 * n + 1);
    for (size_t i = 0; i < n; i++) {
        in[2 * i] = 0xa1;
        in[2 * i + 1] = 0x01;
    }
    in[2 * n] = 0;
    outcome o;
    CHECK(read_three(in, 2 * n + 1, NULL, &o));
    CHECK_EQ_INT(o.code, SDX_ERR_DEPTH);
    sdx_cbor_read_opts big = {0, (uint32_t)n, 0, 0, NULL};
    sdx_doc *doc = sdx_cbor_parse((const char *)in, 2 * n + 1, &big, NULL);
    CHECK(doc != NULL);
    sdx_doc_free(doc);
    free(in);
    deep(0xc1, 0x00, 200000, SDX_ERR_LIMIT);
    deep(0x9f, 0x00, 200000, SDX_ERR_DEPTH);
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){
                        {"truncation", truncation},
                        {"byte_flips", byte_flips},
                        {"huge_declared", huge_declared},
                        {"deep_nesting", deep_nesting},
                        {0, 0},
                    });
}
