/*
 * harden_alloc: no 16-byte input can make a reader allocate more than a
 * fixed amount (issue 16, "Hardening that fuzzing cannot prove": no
 * allocation sized by an untrusted length or count).
 *
 * Every reader of every format (memory reader, stream reader, tree parser,
 * and the memory reader through the mapping layer into a writer)
 * runs over a counting allocator (tests/unit/alloc_test.h) on:
 *  - an adversarial set per format: every string/binary/container header
 *    with the largest length or count each width allows (2^8-1 .. 2^64-1,
 *    2^63, 2^31, negative where the width is signed), indefinite lengths,
 *    typed UBJSON containers of Z/T/F with huge counts, BJData
 *    N-dimensional arrays whose dimensions' product overflows, Binn sizes
 *    with the top bit set, BSON lengths near INT32_MAX, nested openers;
 *    each padded to 16 bytes with several fillers, and every prefix of it;
 *  - 10^5 deterministic random 16-byte inputs per format (SDX_TEST_SCALE
 *    multiplies), half uniform, half built from the format's markers.
 * The peak of live bytes must stay under the bound of the reader (see
 * BOUND_* below and tests/fuzz/README.md ("Memory bounds"), where they are explained).
 * `harden_alloc --report` prints the largest peak met per reader and the
 * input that reached it.
 */
#include <stdio.h>

#include "harden.h"
#include "test.h"

/* ------------------------------------------------------------------------ */
/* The bounds (bytes of live memory at the peak), per reader                 */
/* ------------------------------------------------------------------------ */

/* Memory readers: the reader object (its inline stack of 32 levels
 * included) and, for JSON, a scratch area for unescaped strings no larger
 * than the input; nothing is sized by the input's declared lengths. */
#define BOUND_MEM ((size_t)4096)
/* Stream readers: the same plus the stream buffer, one default chunk
 * (SDX_STREAM_DEFAULT_CHUNK, 64 KiB): 16 bytes never make it grow. */
#define BOUND_STREAM ((size_t)(64 * 1024 + 4096))
/* Tree parsers: the document (header, values of 16 bytes each, at most
 * one per input byte here) and the parser's frames. */
#define BOUND_PARSE ((size_t)8192)
/* UBJSON and BJData parsers with max_empty = 16 (typed containers of Z,
 * T, F may hold that many values, stored in the document): the parser's
 * bound plus 16 values of 16 bytes per opener. With the default
 * max_empty (10^6) the document of [$Z#l<10^6> is 16 MB: the limit, not
 * the input, bounds it (measured and reported below, tests/fuzz/README.md). */
#define UB_SMALL_EMPTY 16

/* The mapping layer on the event path: the memory reader's events through
 * sdx_map_to_json into the JSON writer (for JSON input: the JSON reader
 * through sdx_map_from_json into the CBOR writer, and with Extended JSON
 * into the BSON writer), output into a growable buffer, all through the counting
 * allocator: the reader, the layer's scratch (digits, base64, held
 * events) and the output of 16 bytes of input. */
#define BOUND_MAP ((size_t)16384)

/* The memory reader and then the parser with every optional flag that
 * may allocate (CBOR's duplicate-key check and chunk list, JSON's
 * extensions and raw bignums, sequences, copies of the input): the larger
 * of the two peaks, within the parser's bound. */
static const uint32_t all_flags[] = {
    SDX_JSON_READ_COMMENTS | SDX_JSON_READ_TRAILING_COMMAS | SDX_JSON_READ_NAN_INF |
        SDX_JSON_READ_BOM | SDX_JSON_READ_STOP_AFTER_VALUE | SDX_JSON_READ_BIGNUM_RAW |
        SDX_JSON_READ_COPY_INPUT,
    SDX_MSGPACK_READ_STOP_AFTER_VALUE | SDX_MSGPACK_READ_COPY_INPUT,
    SDX_CBOR_READ_STOP_AFTER_VALUE | SDX_CBOR_READ_COPY_INPUT |
        SDX_CBOR_READ_REJECT_DUPLICATE_KEYS | SDX_CBOR_READ_CHUNKS,
    SDX_BSON_READ_SEQUENCE | SDX_BSON_READ_COPY_INPUT,
    SDX_UBJSON_READ_STOP_AFTER_VALUE | SDX_UBJSON_READ_BYTE_ARRAYS,
    SDX_UBJSON_READ_STOP_AFTER_VALUE | SDX_UBJSON_READ_BYTE_ARRAYS,
    SDX_BINN_READ_STOP_AFTER_VALUE | SDX_BINN_READ_COPY_INPUT,
};

enum { P_MEM, P_STREAM, P_PARSE, P_MAP, P_FLAGS, P_COUNT };
static const char *const path_names[P_COUNT] = {"reader", "stream", "parser", "mapped", "flags"};

static size_t bound_of(int path) {
    return path == P_MEM      ? BOUND_MEM
           : path == P_STREAM ? BOUND_STREAM
           : path == P_PARSE  ? BOUND_PARSE
           : path == P_MAP    ? BOUND_MAP
                              : BOUND_PARSE;
}

typedef struct worst {
    size_t peak;
    unsigned char in[16];
    size_t len;
} worst;

static worst worsts[F_COUNT][P_COUNT];
static unsigned long runs;
static bool report;
static int failures_printed;

static void hexdump(FILE *f, const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++) fprintf(f, "%02x", p[i]);
}

/* Run one input through one reader path and check its peak. */
static void run_one(int fi, int path, const unsigned char *in, size_t len) {
    const format *f = &formats[fi];
    counting_alloc c;
    counting_alloc_init(&c, 0);
    sdx_alloc a = c.iface;
    hopts o = {0, 0, 0, &a};
    if (fi == F_UBJSON || fi == F_BJDATA) o.max_empty = UB_SMALL_EMPTY;
    sdx_error e;
    memset(&e, 0, sizeof e);
    if (path == P_PARSE) {
        sdx_doc *d = f->parse((const char *)in, len, &o, &e);
        sdx_doc_free(d);
    } else if (path == P_FLAGS) {
        o.flags = all_flags[fi];
        void *r = f->mem_new((const char *)in, len, &o);
        if (!CHECK(r != NULL)) return;
        drain_reader(f, r, &e, 1u << 20, NULL);
        f->free(r);
        /* the deterministic check instead of the duplicate-key one */
        if (fi == F_CBOR) {
            o.flags = SDX_CBOR_READ_DETERMINISTIC | SDX_CBOR_READ_STOP_AFTER_VALUE;
            r = f->mem_new((const char *)in, len, &o);
            if (!CHECK(r != NULL)) return;
            drain_reader(f, r, &e, 1u << 20, NULL);
            f->free(r);
            o.flags = all_flags[fi];
        }
        sdx_doc *d = f->parse((const char *)in, len, &o, &e);
        sdx_doc_free(d);
    } else if (path == P_MAP) {
        void *r = f->mem_new((const char *)in, len, &o);
        if (!CHECK(r != NULL)) return;
        sdx_buf out;
        sdx_buf_init(&out, &a);
        sdx_map_opts mo;
        memset(&mo, 0, sizeof mo);
        mo.alloc = &a;
        if (fi == F_JSON) {
            /* CBOR target (bignums, tags) into the CBOR writer */
            sdx_cbor_write_opts wo;
            memset(&wo, 0, sizeof wo);
            wo.alloc = &a;
            sdx_cbor_writer w;
            sdx_cbor_writer_init(&w, &out, &wo);
            sdx_map_from_json m;
            mo.target = SDX_MAP_TARGET_CBOR;
            CHECK(sdx_map_from_json_init(&m, sdx_cbor_writer_sink(&w), &mo) == SDX_OK);
            /* finish: exactly once, also after an error; it finishes the
             * writer and frees the layer's memory */
            (void)sdx_transcode(f->source(r), sdx_map_from_json_sink(&m), &e);
            (void)sdx_map_from_json_finish(&m);
            /* BSON target (Extended JSON, held maps) into the BSON writer */
            f->free(r);
            r = f->mem_new((const char *)in, len, &o);
            sdx_buf_clear(&out);
            sdx_bson_write_opts bo;
            memset(&bo, 0, sizeof bo);
            bo.alloc = &a;
            sdx_bson_writer bw;
            sdx_bson_writer_init(&bw, &out, &bo);
            mo.target = SDX_MAP_TARGET_BSON;
            CHECK(sdx_map_from_json_init(&m, sdx_bson_writer_sink(&bw), &mo) == SDX_OK);
            (void)sdx_transcode(f->source(r), sdx_map_from_json_sink(&m), &e);
            (void)sdx_map_from_json_finish(&m);
        } else {
            sdx_json_write_opts wo;
            memset(&wo, 0, sizeof wo);
            wo.alloc = &a;
            wo.flags = SDX_JSON_WRITE_BIN_BASE64;
            sdx_json_writer w;
            sdx_json_writer_init(&w, &out, &wo);
            sdx_map_to_json m;
            mo.flags = SDX_MAP_TAGS_WRAP;
            CHECK(sdx_map_to_json_init(&m, sdx_json_writer_sink(&w), &mo) == SDX_OK);
            (void)sdx_transcode(f->source(r), sdx_map_to_json_sink(&m), &e);
            (void)sdx_map_to_json_finish(&m);
        }
        sdx_buf_destroy(&out);
        f->free(r);
    } else {
        void *r;
        trickle ms = {in, len, 3};
        if (path == P_MEM) r = f->mem_new((const char *)in, len, &o);
        else r = f->stream_new(trickle_read, &ms, 0, &o);
        if (!CHECK(r != NULL)) return;
        /* every event: a 16-byte input cannot hold more than a few dozen,
         * but typed Z containers produce up to max_empty */
        drain_reader(f, r, &e, 1u << 20, NULL);
        f->free(r);
    }
    runs++;
    CHECK(c.live == 0 && c.live_bytes == 0); /* everything freed */
    worst *w = &worsts[fi][path];
    if (c.peak_bytes > w->peak) {
        w->peak = c.peak_bytes;
        memcpy(w->in, in, len);
        w->len = len;
    }
    if (c.peak_bytes > bound_of(path)) {
        test_fail_at(__FILE__, __LINE__, "peak above the reader's bound");
        if (failures_printed++ < 20) {
            fprintf(stderr, "  %s %s: peak %zu > %zu (largest block %zu) on ", f->name,
                    path_names[path], c.peak_bytes, bound_of(path), c.largest);
            hexdump(stderr, in, len);
            fputc('\n', stderr);
        }
    }
}

static void run_all_paths(int fi, const unsigned char *in, size_t len) {
    for (int p = 0; p < P_COUNT; p++) run_one(fi, p, in, len);
}

/* ------------------------------------------------------------------------ */
/* The adversarial headers                                                   */
/* ------------------------------------------------------------------------ */

typedef struct hdr {
    unsigned char b[16];
    size_t n;
} hdr;

typedef struct hdrs {
    hdr h[4096];
    size_t n;
} hdrs;

static void add(hdrs *s, const unsigned char *b, size_t n) {
    if (s->n >= sizeof s->h / sizeof s->h[0] || n > 16) return;
    memcpy(s->h[s->n].b, b, n);
    s->h[s->n].n = n;
    s->n++;
}

/* Big-endian / little-endian n-byte stores. */
static void be(unsigned char *p, uint64_t v, int n) {
    for (int i = n - 1; i >= 0; i--, v >>= 8) p[i] = (unsigned char)v;
}
static void le(unsigned char *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++, v >>= 8) p[i] = (unsigned char)v;
}

/* The lengths every width is tried with (truncated to the width). */
static const uint64_t big_values[] = {
    0xff,        0x7f,        0x80,        0xffff,      0x7fff,      0x8000,
    0xffffffffu, 0x7fffffffu, 0x80000000u, 0x7ffffff0u, UINT64_MAX,  INT64_MAX,
    UINT64_C(1) << 63,        UINT64_MAX - 15,          (uint64_t)SIZE_MAX,
    UINT64_C(0x100000000),    17,          16,
};
#define NBIG (sizeof big_values / sizeof big_values[0])

/* A header: prefix bytes, then v in n bytes (big- or little-endian). */
static void add_len(hdrs *s, const unsigned char *pre, size_t np, uint64_t v, int n, bool little) {
    unsigned char b[16];
    memcpy(b, pre, np);
    if (little) le(b + np, v, n);
    else be(b + np, v, n);
    add(s, b, np + (size_t)n);
}

static void msgpack_headers(hdrs *s) {
    static const struct { unsigned char t; int n; } w[] = {
        {0xd9, 1}, {0xda, 2}, {0xdb, 4},  /* str 8/16/32 */
        {0xc4, 1}, {0xc5, 2}, {0xc6, 4},  /* bin 8/16/32 */
        {0xc7, 1}, {0xc8, 2}, {0xc9, 4},  /* ext 8/16/32 (type byte follows) */
        {0xdc, 2}, {0xdd, 4}, {0xde, 2}, {0xdf, 4}, /* array/map 16/32 */
    };
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        for (size_t k = 0; k < NBIG; k++) add_len(s, &w[i].t, 1, big_values[k], w[i].n, false);
    static const unsigned char one[] = {0x9f, 0x8f, 0xbf, 0xaf, 0xd4, 0xd8, 0xc1, 0xc7, 0x91, 0x81};
    for (size_t i = 0; i < sizeof one; i++) add(s, &one[i], 1);
    /* nested openers */
    unsigned char nest[16];
    memset(nest, 0x91, 16);
    add(s, nest, 16);
    memset(nest, 0x81, 16);
    add(s, nest, 16);
    for (int i = 0; i < 3; i++) be(nest + 5 * i, 0xddffffffffULL, 5); /* dd ff ff ff ff x3 */
    add(s, nest, 15);
}

static void cbor_headers(hdrs *s) {
    for (unsigned major = 0; major < 8; major++) {
        static const int widths[] = {1, 2, 4, 8};
        for (int wi = 0; wi < 4; wi++) {
            unsigned char t = (unsigned char)(major << 5 | (24 + wi));
            for (size_t k = 0; k < NBIG; k++) add_len(s, &t, 1, big_values[k], widths[wi], false);
        }
        unsigned char ind = (unsigned char)(major << 5 | 31);
        add(s, &ind, 1);
    }
    /* indefinite strings of chunks, nested indefinite containers, tags */
    static const unsigned char seq[][16] = {
        {0x5f, 0x41, 'a', 0x41, 'a', 0x41, 'a', 0x41, 'a', 0x41, 'a', 0x41, 'a', 0x41, 'a', 0x40},
        {0x7f, 0x61, 'a', 0x61, 'a', 0x61, 'a', 0x61, 'a', 0x61, 'a', 0x61, 'a', 0x61, 'a', 0x60},
        {0x5f, 0x5a, 0xff, 0xff, 0xff, 0xff, 0x5b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0},
        {0x7f, 0x7b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7a, 0xff, 0xff, 0xff, 0xff, 0},
        {0x9f, 0x9f, 0x9f, 0x9f, 0xbf, 0xbf, 0xbf, 0xbf, 0x9f, 0x9f, 0x9f, 0x9f, 0xbf, 0xbf, 0xbf, 0xbf},
        {0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6},
        {0xdb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xc2, 0x5b, 0xff, 0xff, 0xff, 0xff, 0xff},
        {0xc4, 0x82, 0x3b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xc2, 0x45, 1, 2, 3},
        {0xc5, 0x82, 0x3b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xc2, 0x45, 1, 2, 3},
        {0xc5, 0x82, 0x1b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0, 0, 0, 0},
        {0xa1, 0xa1, 0xa1, 0xa1, 0xa1, 0xa1, 0xa1, 0xa1, 0xa1, 0xa1, 0xa1, 0xa1, 0xa1, 0xa1, 0xa1, 0xa1},
    };
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) add(s, seq[i], 16);
}

static void bson_headers(hdrs *s) {
    static const uint32_t doclens[] = {16, 0x7fffffffu, 0x7ffffff0u, 0x80000000u, 0xffffffffu, 5, 4};
    static const unsigned char types[] = {0x02, 0x0d, 0x0e, 0x05, 0x03, 0x04, 0x0f, 0x0c, 0x13};
    for (size_t d = 0; d < sizeof doclens / sizeof doclens[0]; d++) {
        unsigned char b[16];
        le(b, doclens[d], 4);
        add(s, b, 4);
        for (size_t t = 0; t < sizeof types; t++)
            for (size_t k = 0; k < NBIG; k++) {
                b[4] = types[t];
                b[5] = 0; /* empty key */
                add_len(s, b, 6, big_values[k], 4, true);
            }
        /* nested documents: 16-byte docs opening docs */
        memset(b, 0, 16);
        le(b, doclens[d], 4);
        b[4] = 3, b[5] = 'a', b[6] = 0;
        le(b + 7, 0x7fffffffu, 4);
        b[11] = 3, b[12] = 0;
        le(b + 13, 0x7fffff, 3);
        add(s, b, 16);
    }
}

static void ubjson_headers(hdrs *s, bool bj) {
    /* UBJSON lengths are big-endian; BJData's little-endian and typed as
     * i U I l L (and BJData's u m M) */
    static const struct { char t; int n; } w[] = {
        {'i', 1}, {'U', 1}, {'I', 2}, {'l', 4}, {'L', 8}, {'u', 2}, {'m', 4}, {'M', 8}};
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        for (size_t k = 0; k < NBIG; k++) {
            static const char *const pres[] = {"S", "H", "[#", "{#", "[$Z#", "[$T#", "[$F#",
                                                "{$Z#", "{$N#", "[$i#", "[$S#", "[$[#", "{$T#",
                                                "[[[$Z#", "[$B#", "[$U#"};
            for (size_t p = 0; p < sizeof pres / sizeof pres[0]; p++) {
                unsigned char pre[8];
                size_t np = strlen(pres[p]);
                memcpy(pre, pres[p], np);
                pre[np] = (unsigned char)w[i].t;
                add_len(s, pre, np + 1, big_values[k], w[i].n, bj);
            }
        }
    /* N-dimensional arrays (BJData): [$<type>#[<dims>] with dimensions whose
     * product overflows, and the 1-byte-count forms */
    static const char *const nd[] = {"[$Z#[$L#i\x02", "[$i#[$L#i\x02", "[$T#[L", "[$Z#[$M#i\x02",
                                      "[$Z#[$m#i\x04", "[$Z#[$U#i\x0e", "[$Z#[U"};
    for (size_t i = 0; i < sizeof nd / sizeof nd[0]; i++) {
        unsigned char b[16];
        size_t np = strlen(nd[i]);
        memcpy(b, nd[i], np);
        memset(b + np, 0xff, 16 - np);
        add(s, b, 16);
        memset(b + np, 0x7f, 16 - np);
        add(s, b, 16);
        memset(b + np, 0x00, 16 - np);
        add(s, b, 16);
    }
    static const char *const misc[] = {"[[[[[[[[[[[[[[[[", "{U\x01" "a{U\x01" "a{U\x01" "a{U\x01",
                                        "NNNNNNNNNNNNNNNN", "[$Z#U\xff[$Z#U\xff[$Z#", "CCCC",
                                        "{$Z#L\x7f\xff\xff\xff\xff\xff\xff\xff"};
    for (size_t i = 0; i < sizeof misc / sizeof misc[0]; i++)
        add(s, (const unsigned char *)misc[i], strlen(misc[i]) > 16 ? 16 : strlen(misc[i]));
}

static void binn_headers(hdrs *s) {
    /* [type][size: 1 byte < 128, else 4 bytes with the top bit][count ...] */
    static const unsigned char types[] = {0xa0, 0xc0, 0xe0, 0xe1, 0xe2, 0xa1, 0xa2, 0xc1, 0x20,
                                          0x80, 0xb0, 0xf0};
    static const uint32_t sizes[] = {0x80000000u, 0xffffffffu, 0x8000000fu, 0xfffffff0u,
                                     0x80000010u, 0x7fffffffu};
    for (size_t t = 0; t < sizeof types; t++) {
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            add_len(s, &types[t], 1, sizes[k], 4, false);
            for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; c++) {
                unsigned char b[16];
                b[0] = types[t];
                be(b + 1, sizes[k], 4);
                add_len(s, b, 5, sizes[c], 4, false);
                be(b + 1, 16, 1);
                add_len(s, b, 2, sizes[c], 4, false);
            }
        }
        unsigned char b[3] = {types[t], 0x7f, 0x7f};
        add(s, b, 3);
    }
    /* extended (two-byte) types, nested lists */
    static const unsigned char seq[][16] = {
        {0xe0, 16, 1, 0xe0, 13, 1, 0xe0, 10, 1, 0xe0, 7, 1, 0xe0, 4, 1, 0},
        {0xe0, 0x80, 0, 0, 16, 0x80, 0, 0, 1, 0xe0, 0x80, 0, 0, 7, 0x80, 0},
        {0xf0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0},
        {0xb0, 0x01, 0x8f, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {0xe2, 16, 1, 0xff, 'a', 'b', 'c', 0, 0, 0, 0, 0, 0, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) add(s, seq[i], 16);
}

static void json_headers(hdrs *s) {
    static const char *const t[] = {
        "[[[[[[[[[[[[[[[[", "{\"\":{\"\":{\"\":{\"\":", "\"\\u0000\\u0000\\u00", "\"\\ud800\\udc00\\ud8",
        "1e99999999999999", "-000000000000000", "184467440737095516", "0.00000000000001e",
        "[1,[2,[3,[4,[5,[6", "\"aaaaaaaaaaaaaa\"", "{\"a\":1,\"a\":2,\"a", "[\"\\\\\\\\\\\\\\\\\\\\",
        "/*/*/*/*/*/*/*/*", "\xef\xbb\xbf[[[[[[[[[[[[[", "NaN Infinity -In", "[1e-999999999999"};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        size_t n = strlen(t[i]);
        add(s, (const unsigned char *)t[i], n > 16 ? 16 : n);
    }
}

static void headers_of(int fi, hdrs *s) {
    s->n = 0;
    switch (fi) {
    case F_JSON: json_headers(s); break;
    case F_MSGPACK: msgpack_headers(s); break;
    case F_CBOR: cbor_headers(s); break;
    case F_BSON: bson_headers(s); break;
    case F_UBJSON: ubjson_headers(s, false); break;
    case F_BJDATA: ubjson_headers(s, true); break;
    default: binn_headers(s); break;
    }
}

/* Pad a header to 16 bytes with `fill` (or with itself repeated when fill
 * is -1), and run it and every prefix of it through every path. */
static void run_header(int fi, const hdr *h, int fill) {
    unsigned char b[16];
    memcpy(b, h->b, h->n);
    for (size_t i = h->n; i < 16; i++)
        b[i] = fill < 0 ? h->b[(i - h->n) % h->n] : (unsigned char)fill;
    run_all_paths(fi, b, 16);
}

static hdrs the_headers;

TEST(adversarial) {
    static const int fills[] = {0x00, 0xff, 0x7f, 0x80, 0xc0, 0x5b, 0x9f, 0xe0, 'a', -1};
    for (int fi = 0; fi < F_COUNT; fi++) {
        hdrs *s = &the_headers;
        headers_of(fi, s);
        CHECK(s->n > 0);
        for (size_t i = 0; i < s->n; i++) {
            for (size_t f = 0; f < sizeof fills / sizeof fills[0]; f++) run_header(fi, &s->h[i], fills[f]);
            for (size_t n = 0; n <= s->h[i].n; n++) run_all_paths(fi, s->h[i].b, n); /* prefixes */
        }
    }
}

/* splitmix64: a deterministic generator for the random inputs. */
static uint64_t rng_state = 0x5d16a11cULL;
static uint64_t rnd(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

TEST(random_inputs) {
    const long n = (long)(100000 * test_scale());
    for (int fi = 0; fi < F_COUNT; fi++) {
        hdrs *s = &the_headers;
        headers_of(fi, s);
        for (long i = 0; i < n; i++) {
            unsigned char b[16];
            uint64_t x = rnd(), y = rnd();
            if (i & 1) { /* uniform */
                memcpy(b, &x, 8);
                memcpy(b + 8, &y, 8);
            } else { /* marker-biased: pieces of headers, bytes 00 ff and random */
                size_t k = 0;
                while (k < 16) {
                    uint64_t r = rnd();
                    if (r % 3 == 0) {
                        const hdr *h = &s->h[(r >> 8) % s->n];
                        size_t take = 1 + (size_t)((r >> 32) % h->n);
                        if (take > 16 - k) take = 16 - k;
                        memcpy(b + k, h->b, take);
                        k += take;
                    } else {
                        b[k++] = r % 3 == 1 ? (unsigned char)(r >> 16) : (r & 8 ? 0xff : 0x00);
                    }
                }
            }
            run_all_paths(fi, b, 16);
        }
    }
}

/* The UBJSON and BJData parsers with the default max_empty: a 7-byte
 * typed Z container is as large a document as max_empty allows (16 bytes
 * a value). That is the limit's bound, stated in tests/fuzz/README.md; this test
 * pins it: at most max_empty values' worth, whatever the declared count. */
TEST(ubjson_default_max_empty) {
    static const uint32_t counts[] = {0x7fffffffu, SDX_UBJSON_DEFAULT_MAX_EMPTY,
                                      SDX_UBJSON_DEFAULT_MAX_EMPTY + 1};
    for (int bj = 0; bj < 2; bj++)
        for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
            counting_alloc c;
            counting_alloc_init(&c, 0);
            sdx_alloc a = c.iface;
            hopts o = {0, 0, 0, &a};
            sdx_error e;
            unsigned char b[9] = {'[', '$', 'Z', '#', 'l'};
            if (bj) le(b + 5, counts[i], 4); /* BJData: little-endian */
            else be(b + 5, counts[i], 4);
            sdx_doc *d = (bj ? bjdata_parse : ubjson_parse)((const char *)b, 9, &o, &e);
            /* UBJSON: accepted up to the limit, SDX_ERR_LIMIT above it;
             * BJData has no typed containers of Z (its $ type must be a
             * type with a payload) */
            if (bj) CHECK(d == NULL);
            else CHECK((d != NULL) == (counts[i] <= SDX_UBJSON_DEFAULT_MAX_EMPTY));
            if (!d && !(bj == 0 && counts[i] <= SDX_UBJSON_DEFAULT_MAX_EMPTY))
                CHECK(e.code == (bj ? SDX_ERR_SYNTAX : SDX_ERR_LIMIT) || e.code == SDX_ERR_LIMIT);
            sdx_doc_free(d);
            if (report)
                printf("%s parse, default max_empty, [$Z#l %u: peak %zu bytes\n",
                       bj ? "bjdata" : "ubjson", (unsigned)counts[i], c.peak_bytes);
            /* 16 bytes a value, the document's growth at most doubling */
            CHECK(c.peak_bytes <= (size_t)SDX_UBJSON_DEFAULT_MAX_EMPTY * 16 * 2 + BOUND_PARSE);
            CHECK(c.live == 0 && c.live_bytes == 0);
        }
}

TEST(print_report) {
    if (!report) return;
    printf("%lu runs\n%-8s %-7s %10s %10s  input reaching the peak\n", runs, "format", "path", "peak",
           "bound");
    for (int fi = 0; fi < F_COUNT; fi++)
        for (int p = 0; p < P_COUNT; p++) {
            worst *w = &worsts[fi][p];
            printf("%-8s %-7s %10zu %10zu  ", formats[fi].name, path_names[p], w->peak, bound_of(p));
            hexdump(stdout, w->in, w->len);
            putchar('\n');
        }
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--report") == 0) {
        report = true;
        argc--, argv++;
    }
    return test_run(argc, argv,
                    (test_case[]){{"adversarial", adversarial},
                                  {"random_inputs", random_inputs},
                                  {"ubjson_default_max_empty", ubjson_default_max_empty},
                                  {"print_report", print_report},
                                  {0}});
}
