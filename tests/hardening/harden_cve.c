/*
 * harden_cve: one named case per bug class that the readers' issues name
 * (issue 16, "Every CVE class named in the readers' issues has its
 * regression test"), each over every format and every reader path (memory
 * reader, stream reader in chunks of 1 to 7 bytes, tree parser):
 *
 *  nesting_exhaustion  stack exhaustion by nesting (the class of
 *                      nlohmann/json's and most recursive parsers'
 *                      crashes; issues 4, 5, 13-15): 10^5 levels of every
 *                      opener at the default limit, SDX_ERR_DEPTH; the
 *                      10^6-level version with the limit raised is
 *                      harden_depth.
 *  length_overflow     declared lengths and counts at 2^8-1 .. 2^64-1,
 *                      2^63, SIZE_MAX, INT32_MAX, negative, in every width
 *                      of every format, after a valid prefix so that
 *                      offset + length overflows (libbson CVE-2018-16790;
 *                      binn issue #8; issue 5's "2^32-1 in a 10-byte
 *                      message", issue 13's "2^64-1 items"): a clean error
 *                      at the header, no read past the input.
 *  empty_elements      typed UBJSON containers of Z/T/F/N with huge counts,
 *                      BJData ND dimensions whose product overflows
 *                      (nlohmann/json #2793, jsoncons #228: 10 bytes asking
 *                      for billions of elements): SDX_ERR_LIMIT, no
 *                      allocation.
 *  truncation          every valid document (every type of every format)
 *                      cut at every byte, in a buffer of exactly that
 *                      size (so ASan sees any read past it): an error with
 *                      an offset within the input (CVE-2018-16790).
 *  early_validation    an error after a valid prefix must not be lost on a
 *                      fast path (libbson CVE-2026-6231, validation that
 *                      returns early with success): invalid UTF-8 as the
 *                      last byte of strings of every length up to 200, a
 *                      bad byte after 64 valid ones (past every SIMD
 *                      width), in values and keys; a BSON document whose
 *                      last element is bad; a CBOR duplicate key at the
 *                      end of a map in deterministic and duplicate-key
 *                      modes.
 *  digit_limits        the mapping layer's digit limit (the class of
 *                      CVE-2020-10735, quadratic int-to-text of huge
 *                      numbers): a CBOR bignum of 64 KiB and an
 *                      exponent of 2^63 to JSON fail with SDX_ERR_LIMIT.
 *  byte_flips          1 to 3 random byte changes of every document above
 *                      (2000 each; SDX_HARDEN_FLIPS sets the count), in
 *                      exact-size buffers: every path agrees, any error.
 */
#include <stdio.h>

#include "harden.h"
#include "test.h"

static bool verbose;

/* ------------------------------------------------------------------------ */
/* Running one input through every path                                      */
/* ------------------------------------------------------------------------ */

typedef struct outcome {
    sdx_err code;
    size_t offset;
    const char *msg;
    size_t peak;
} outcome;

enum { P_MEM, P_STREAM, P_PARSE, P_COUNT };
static const char *const pnames[P_COUNT] = {"reader", "stream", "parser"};

/* Run `len` bytes (copied into a buffer of exactly that size) through
 * path `path` of format fi with options o (alloc is replaced by a
 * counting one). */
static outcome run_path(int fi, int path, const void *data, size_t len, hopts o, size_t step) {
    const format *f = &formats[fi];
    outcome r = {SDX_OK, 0, NULL, 0};
    char *buf = malloc(len ? len : 1);
    if (len) memcpy(buf, data, len);
    counting_alloc c;
    counting_alloc_init(&c, 0);
    sdx_alloc a = c.iface;
    o.alloc = &a;
    sdx_error e;
    memset(&e, 0, sizeof e);
    if (path == P_PARSE) {
        sdx_doc *d = f->parse(buf, len, &o, &e);
        if (d) e.code = SDX_OK;
        sdx_doc_free(d);
    } else {
        trickle ms = {(const unsigned char *)buf, len, step ? step : SIZE_MAX};
        void *rd = path == P_MEM ? f->mem_new(buf, len, &o)
                                 : f->stream_new(trickle_read, &ms, 64, &o);
        drain_reader(f, rd, &e, UINT64_MAX, NULL);
        f->free(rd);
    }
    free(buf);
    r.code = e.code;
    r.offset = e.offset;
    r.msg = e.msg;
    r.peak = c.peak_bytes;
    CHECK(c.live == 0 && c.live_bytes == 0);
    return r;
}

static void print_outcomes(const char *what, int fi, const void *data, size_t len, const outcome *o) {
    fprintf(stderr, "  %s %s (%zu bytes:", what, formats[fi].name, len);
    for (size_t i = 0; i < len && i < 24; i++) fprintf(stderr, " %02x", ((const unsigned char *)data)[i]);
    fprintf(stderr, "%s)\n", len > 24 ? " ..." : "");
    for (int p = 0; p < P_COUNT; p++)
        fprintf(stderr, "    %-6s %s at %zu (%s), peak %zu\n", pnames[p], sdx_strerror(o[p].code),
                o[p].offset, o[p].msg ? o[p].msg : "", o[p].peak);
}

/* Every path must give one of the codes in `codes` (-1-terminated), the
 * same code and offset on every path, an offset within the input (or,
 * when want_off is not SIZE_MAX, exactly want_off), and peak memory
 * within `peak` (0 = unchecked). Returns whether all held. */
static bool expect(const char *what, int fi, const void *data, size_t len, hopts o,
                   const int *codes, size_t want_off, size_t peak) {
    outcome out[P_COUNT];
    bool ok = true;
    for (int p = 0; p < P_COUNT; p++) {
        out[p] = run_path(fi, p, data, len, o, 1 + (len + (size_t)p) % 7);
        bool in_set = p == P_STREAM && out[0].code == SDX_ERR_TRUNCATED;
        for (const int *c = codes; *c >= 0; c++) in_set |= (int)out[p].code == *c;
        ok &= CHECK(in_set);
        ok &= CHECK(out[p].offset <= len);
        if (want_off != SIZE_MAX && !(p == P_STREAM && out[0].code == SDX_ERR_TRUNCATED))
            ok &= CHECK_EQ_U64(out[p].offset, want_off);
        /* every path gives the same error at the same offset, except that
         * a stream reader cannot check a declared length or count against
         * the input left (it has not arrived): where a memory reader says
         * SDX_ERR_TRUNCATED at a header, a stream reader reports the first
         * error it meets (the input's end, or a bad item before it: the
         * headers document this), never one before that header */
        const bool count_checked = p == P_STREAM && out[0].code == SDX_ERR_TRUNCATED;
        if (p > 0 && !count_checked) ok &= CHECK(out[p].code == out[0].code);
        if (p > 0 && out[0].code != SDX_OK) {
            /* (a BSON stream refuses a root above max_document at its
             * length, before reading it: SDX_ERR_LIMIT at the header) */
            if (count_checked)
                ok &= CHECK(out[p].code != SDX_OK) &&
                      CHECK(out[p].offset >= out[0].offset || out[p].code == SDX_ERR_LIMIT);
            else ok &= CHECK_EQ_U64(out[p].offset, out[0].offset);
        }
        /* readers: within `peak`; parsers: `peak` plus what the document
         * of the input may take, 16 bytes a value, at most 4 values an
         * input byte */
        if (peak && p == P_MEM) ok &= CHECK(out[p].peak <= peak);
        if (peak && p == P_PARSE) ok &= CHECK(out[p].peak <= peak + 64 * len);
    }
    /* JSON: the in-situ parser (which writes into its buffer) gives the
     * parser's outcome, inside a buffer of exactly the input's size */
    if (fi == F_JSON) {
        char *buf = malloc(len ? len : 1);
        if (len) memcpy(buf, data, len);
        sdx_error e;
        memset(&e, 0, sizeof e);
        sdx_json_read_opts jo = json_opts(&o);
        jo.alloc = NULL;
        sdx_doc *d = sdx_json_parse_insitu(buf, len, &jo, &e);
        if (d) e.code = SDX_OK;
        sdx_doc_free(d);
        free(buf);
        ok &= CHECK(e.code == out[P_PARSE].code);
        if (e.code != SDX_OK) ok &= CHECK_EQ_U64(e.offset, out[P_PARSE].offset);
    }
    if (!ok || verbose) print_outcomes(what, fi, data, len, out);
    return ok;
}

static const hopts defaults = {0, 0, 0, NULL};

/* v in n bytes, little- or big-endian */
static void put(unsigned char *p, uint64_t v, int n, bool little) {
    for (int i = 0; i < n; i++) p[little ? i : n - 1 - i] = (unsigned char)(v >> (8 * i));
}


/* ------------------------------------------------------------------------ */
/* nesting_exhaustion                                                        */
/* ------------------------------------------------------------------------ */

TEST(nesting_exhaustion) {
    static const struct { int fi; const char *open; size_t n; } op[] = {
        {F_JSON, "[", 1}, {F_JSON, "{\"\":", 4}, {F_MSGPACK, "\x91", 1}, {F_MSGPACK, "\x81\xc0", 2},
        {F_MSGPACK, "\xdd\x00\x00\x00\x01", 5}, {F_CBOR, "\x81", 1}, {F_CBOR, "\x9f", 1},
        {F_CBOR, "\xa1\xf6", 2}, {F_CBOR, "\xbf\xf6", 2},
        {F_UBJSON, "[", 1}, {F_UBJSON, "{i\x01" "a", 4}, {F_UBJSON, "[#U\x01", 4},
        {F_BJDATA, "[", 1}, {F_BJDATA, "{U\x01" "a", 4},
    };
    const size_t levels = 100000;
    static const int depth[] = {SDX_ERR_DEPTH, -1};
    for (size_t i = 0; i < sizeof op / sizeof op[0]; i++) {
        size_t len = levels * op[i].n;
        unsigned char *b = malloc(len);
        for (size_t k = 0; k < levels; k++) memcpy(b + k * op[i].n, op[i].open, op[i].n);
        /* the first opener past the default limit of 1024 */
        expect("nesting", op[i].fi, b, len, defaults, depth, 1024 * op[i].n, 64 * 1024);
        free(b);
    }
    /* CBOR: a tag on every array: the error at the array (after its tag) */
    {
        unsigned char *b = malloc(2 * levels);
        for (size_t k = 0; k < levels; k++) b[2 * k] = 0xc1, b[2 * k + 1] = 0x81;
        expect("nesting", F_CBOR, b, 2 * levels, defaults, depth, 2 * 1024 + 1, 64 * 1024);
        free(b);
    }
    /* Binn: lists of one item, each size the rest of the input */
    {
        unsigned char *b = malloc(6 * levels + 3);
        for (size_t k = 0; k < levels; k++) {
            b[6 * k] = 0xe0;
            put(b + 6 * k + 1, 0x80000000u | (uint32_t)(6 * (levels - k) + 3), 4, false);
            b[6 * k + 5] = 1;
        }
        b[6 * levels] = 0xe0, b[6 * levels + 1] = 3, b[6 * levels + 2] = 0;
        expect("nesting", F_BINN, b, 6 * levels + 3, defaults, depth, 6 * 1024, 64 * 1024);
        free(b);
    }
    /* BSON: nested documents, each claiming the rest of the input */
    const size_t n = 10000;
    unsigned char *b = calloc(7 * n + 5 + n, 1);
    for (size_t k = 0; k < n; k++) {
        uint32_t l = (uint32_t)(8 * (n - k) + 5);
        unsigned char *q = b + 7 * k;
        q[0] = (unsigned char)l, q[1] = (unsigned char)(l >> 8), q[2] = (unsigned char)(l >> 16), q[3] = 0;
        q[4] = 3, q[5] = 'a', q[6] = 0;
    }
    b[7 * n] = 5;
    expect("nesting", F_BSON, b, 7 * n + 5 + n, defaults, depth, 7 * 1024, 64 * 1024);
    free(b);
}

/* ------------------------------------------------------------------------ */
/* length_overflow                                                           */
/* ------------------------------------------------------------------------ */

static const uint64_t huge[] = {
    0xff,       0xffff,     0x7fffffffu, 0x80000000u, 0xffffffffu, UINT64_C(1) << 32,
    INT64_MAX,  UINT64_C(1) << 63, UINT64_MAX, UINT64_MAX - 1, UINT64_MAX - 7, (uint64_t)SIZE_MAX,
    (uint64_t)SIZE_MAX - 3,
};
#define NHUGE (sizeof huge / sizeof huge[0])


/* A header: `pre` (the valid prefix and the type byte), then v in n bytes,
 * then 8 bytes of filler. The error must be at the header (offset `at`),
 * with no more memory than a small bound. */
static void overflow_case(int fi, const char *pre, size_t np, size_t at, uint64_t v, int n,
                          bool little, const int *codes, bool exact) {
    unsigned char b[64];
    memcpy(b, pre, np);
    put(b + np, v, n, little);
    memset(b + np + (size_t)n, 'x', 8);
    size_t len = np + (size_t)n + 8;
    /* the value fits in the width: a smaller one is not a huge length */
    if (n < 8 && v >> (8 * n)) return;
    expect("length", fi, b, len, defaults, codes, exact ? at : SIZE_MAX, 8192);
}

TEST(length_overflow) {
    static const int trunc[] = {SDX_ERR_TRUNCATED, -1};
    static const int trunc_or_limit[] = {SDX_ERR_TRUNCATED, SDX_ERR_LIMIT, SDX_ERR_SYNTAX, -1};
    for (size_t k = 0; k < NHUGE; k++) {
        const uint64_t v = huge[k];
        /* MessagePack: [1, <header>]: str, bin, ext, array, map at every width */
        static const struct { const char *t; size_t n; int w; } mp[] = {
            {"\x92\x01\xd9", 3, 1}, {"\x92\x01\xda", 3, 2}, {"\x92\x01\xdb", 3, 4},
            {"\x92\x01\xc4", 3, 1}, {"\x92\x01\xc5", 3, 2}, {"\x92\x01\xc6", 3, 4},
            {"\x92\x01\xc7", 3, 1}, {"\x92\x01\xc8", 3, 2}, {"\x92\x01\xc9", 3, 4},
            {"\x92\x01\xdc", 3, 2}, {"\x92\x01\xdd", 3, 4}, {"\x92\x01\xde", 3, 2},
            {"\x92\x01\xdf", 3, 4}};
        for (size_t i = 0; i < sizeof mp / sizeof mp[0]; i++)
            overflow_case(F_MSGPACK, mp[i].t, mp[i].n, 2, v, mp[i].w, false, trunc, true);
        /* CBOR: [1, <header>], majors 2 3 4 5 at widths 1 2 4 8, and a
         * chunk of an indefinite string */
        for (unsigned major = 2; major <= 5; major++)
            for (int wi = 0; wi < 4; wi++) {
                char t[4] = {(char)0x82, 0x01, (char)(major << 5 | (24 + (unsigned)wi))};
                /* strings: at the header; arrays and maps: the error a
                 * reading in order meets first (RFC 8949 Appendix F), the
                 * filler's items being read until one does not fit */
                overflow_case(F_CBOR, t, 3, 2, v, 1 << wi, false, trunc, major <= 3);
                char ti[5] = {(char)0x82, 0x01, (char)(major << 5 | 31), (char)(major << 5 | (24 + (unsigned)wi))};
                /* a chunk too long: the error is at the indefinite string */
                if (major <= 3) overflow_case(F_CBOR, ti, 4, 2, v, 1 << wi, false, trunc, true);
            }
        /* UBJSON / BJData: [ i 1, <S or H or [# or {#> <length marker> ... */
        static const struct { char m; int w; } ub[] = {{'i', 1}, {'U', 1}, {'I', 2}, {'l', 4}, {'L', 8}};
        static const struct { char m; int w; } bj[] = {{'u', 2}, {'m', 4}, {'M', 8}};
        static const char *const heads[] = {"S", "H", "[#", "{#", "[$i#", "{$i#"};
        for (int bjd = 0; bjd < 2; bjd++)
            for (size_t h = 0; h < sizeof heads / sizeof heads[0]; h++)
                for (size_t m = 0; m < 5 + (bjd ? 3u : 0u); m++) {
                    char t[16] = "[i\x01";
                    size_t np = 3 + strlen(heads[h]);
                    memcpy(t + 3, heads[h], strlen(heads[h]));
                    t[np] = m < 5 ? ub[m].m : bj[m - 5].m;
                    int w = m < 5 ? ub[m].w : bj[m - 5].w;
                    uint64_t vv = v;
                    /* signed widths: the huge values as they come (negative
                     * ones are an error too) */
                    /* at the header, or (a negative length) at its
                     * length's marker */
                    overflow_case(bjd ? F_BJDATA : F_UBJSON, t, np + 1, 3, vv, w, bjd != 0,
                                  trunc_or_limit, false);
                }
        /* BSON: the root's length, and a string / binary / code / document
         * length inside a 32-byte document */
        if (v <= 0xffffffffu) {
            static const unsigned char types[] = {0x02, 0x05, 0x0d, 0x0e, 0x0f, 0x03, 0x04};
            for (size_t t = 0; t < sizeof types; t++) {
                unsigned char d[32];
                memset(d, 'x', sizeof d);
                put(d, 32, 4, true);
                d[4] = 0x10, d[5] = 'a', d[6] = 0, put(d + 7, 1, 4, true); /* "a": 1 */
                d[11] = types[t], d[12] = 'b', d[13] = 0;
                put(d + 14, v, 4, true);
                d[31] = 0;
                /* the lying length is at 14 (its element begins at 11) */
                expect("length", F_BSON, d, 32, defaults, trunc_or_limit, SIZE_MAX, 8192);
                unsigned char r[8];
                put(r, v, 4, true);
                memset(r + 4, 0, 4);
                /* the root's length beyond the input: TRUNCATED where the
                 * input ends (or SYNTAX for a negative or short length) */
                expect("length", F_BSON, r, 8, defaults, trunc_or_limit, SIZE_MAX, 8192);
            }
        }
        /* Binn: [ list of 2: 1, <text/blob/list with a 4-byte size> ] */
        if (v <= 0xffffffffu) {
            static const unsigned char types[] = {0xa0, 0xc0, 0xe0, 0xe1, 0xe2};
            for (size_t t = 0; t < sizeof types; t++) {
                unsigned char d[24];
                memset(d, 'x', sizeof d);
                d[0] = 0xe0, d[1] = 24, d[2] = 2, d[3] = 0x20, d[4] = 1, d[5] = types[t];
                put(d + 6, v | 0x80000000u, 4, false);
                expect("length", F_BINN, d, 24, defaults, trunc_or_limit, SIZE_MAX, 8192);
                put(d + 1, v | 0x80000000u, 4, false); /* the root's own size */
                d[5] = 2;
                expect("length", F_BINN, d, 24, defaults, trunc_or_limit, SIZE_MAX, 8192);
            }
        }
    }
}

/* ------------------------------------------------------------------------ */
/* empty_elements                                                            */
/* ------------------------------------------------------------------------ */

TEST(empty_elements) {
    static const int limit[] = {SDX_ERR_LIMIT, -1};
    static const int rejected[] = {SDX_ERR_LIMIT, SDX_ERR_SYNTAX, -1};
    static const char types[] = {'Z', 'T', 'F', 'N'};
    static const int limit_or_cut[] = {SDX_ERR_LIMIT, SDX_ERR_TRUNCATED, -1};
    for (size_t t = 0; t < sizeof types; t++)
        for (int m = 0; m < 2; m++) {
            /* [$Z#L 2^63-1 ...: UBJSON SDX_ERR_LIMIT at the header; {$Z#L:
             * a map's keys need a byte each, so the count is checked
             * against the input left first (SDX_ERR_TRUNCATED, or LIMIT);
             * the no-op N is not a type at all (SDX_ERR_SYNTAX) */
            unsigned char b[16] = {m ? '{' : '[', '$', (unsigned char)types[t], '#', 'L'};
            const int *want = types[t] == 'N' ? rejected : m ? limit_or_cut : limit;
            const size_t at = types[t] == 'N' ? SIZE_MAX : 0;
            put(b + 5, INT64_MAX, 8, false);
            expect("empty", F_UBJSON, b, 13, defaults, want, at, 8192);
            put(b + 5, SDX_UBJSON_DEFAULT_MAX_EMPTY + 1, 8, false);
            expect("empty", F_UBJSON, b, 13, defaults, want, at, 8192);
            /* exactly max_empty: accepted by the readers (no memory), and
             * by the parser within the limit's bound */
            if (!m && types[t] != 'N') {
                static const int ok[] = {SDX_OK, -1};
                put(b + 5, SDX_UBJSON_DEFAULT_MAX_EMPTY, 8, false);
                /* the parser's document: max_empty values of 16 bytes
                 * (the limit's bound, tests/fuzz/README.md) */
                expect("empty at limit", F_UBJSON, b, 13, defaults, ok, SIZE_MAX,
                       (size_t)SDX_UBJSON_DEFAULT_MAX_EMPTY * 16 * 2 + 8192);
            }
            /* BJData: no typed containers of types without payload */
            put(b + 5, INT64_MAX, 8, true);
            expect("empty", F_BJDATA, b, 13, defaults, rejected, SIZE_MAX, 8192);
        }
    /* max_empty is a budget for one top-level value, not for each
     * container: [[$Z#l<n>][$Z#l<n>]...] of k containers is refused once
     * their elements together pass it (before, 452 bytes of 50 such
     * containers made the parser build a 780 MB document) */
    for (uint32_t k = 1; k <= 50; k += 7) {
            for (int over = 0; over < 2; over++) {
            size_t n = 2 + 9 * (size_t)k;
            unsigned char *b = malloc(n);
            b[0] = '[', b[n - 1] = ']';
            uint64_t each = SDX_UBJSON_DEFAULT_MAX_EMPTY / k + (over ? 1 : 0);
            for (uint32_t i = 0; i < k; i++) {
                memcpy(b + 1 + 9 * i, "[$Z#l", 5);
                put(b + 1 + 9 * i + 5, each, 4, false);
            }
            /* within the budget: accepted; one element more in each: the
             * limit at the container that passes it */
            const bool fits = each * k <= SDX_UBJSON_DEFAULT_MAX_EMPTY;
            static const int ok[] = {SDX_OK, -1};
            expect("empty budget", F_UBJSON, b, n, defaults, fits ? ok : limit,
                   fits ? SIZE_MAX : 1 + 9 * (size_t)(SDX_UBJSON_DEFAULT_MAX_EMPTY / each),
                   (size_t)SDX_UBJSON_DEFAULT_MAX_EMPTY * 16 * 2 + 8192);
            free(b);
        }
    }
    /* BJData ND arrays: dimensions whose product overflows 64 bits, or
     * exceeds the input, or (with a zero dimension) asks for many empty
     * arrays */
    static const uint64_t dims[][3] = {
        {UINT64_C(1) << 32, UINT64_C(1) << 32, 2}, {INT64_MAX, 2, 1}, {0xffffffffu, 0xffffffffu, 0xffffffffu},
        {0, INT64_MAX, INT64_MAX}, {INT64_MAX, INT64_MAX, 0}, {1, 1, INT64_MAX}};
    static const int bad[] = {SDX_ERR_LIMIT, SDX_ERR_TRUNCATED, SDX_ERR_SYNTAX, SDX_ERR_RANGE, -1};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        unsigned char b[48] = {'[', '$', 'i', '#', '[', 'L'};
        size_t n = 5;
        for (int k = 0; k < 3; k++) {
            b[n++] = 'L';
            put(b + n, dims[i][k], 8, true);
            n += 8;
        }
        b[n++] = ']';
        b[n++] = 1;
        memmove(b + 5, b + 6, n - 6); /* drop the extra 'L' after '[' */
        n--;
        expect("nd", F_BJDATA, b, n, defaults, bad, SIZE_MAX, 8192);
    }
}

/* ------------------------------------------------------------------------ */
/* truncation: valid documents of every type, cut at every byte              */
/* ------------------------------------------------------------------------ */

/* A JSON text with every JSON type, integers at every width boundary,
 * strings of one- to four-byte UTF-8, escapes, nested containers. */
static const char rich_json[] =
    "{\"null\":null,\"t\":true,\"f\":false,\"ints\":[0,1,-1,23,24,-24,-25,127,128,-128,-129,255,256,"
    "32767,32768,-32768,-32769,65535,65536,2147483647,2147483648,-2147483648,-2147483649,"
    "4294967295,4294967296,9223372036854775807,-9223372036854775808,18446744073709551615],"
    "\"dbl\":[0.5,-1.25,1e300,-2.5e-310,3.141592653589793,65504.0,1.5e-7],"
    "\"str\":[\"\",\"a\",\"h\\u00e9llo\",\"\\u20ac\\ud83d\\ude00\",\"tab\\t\\\"q\\\"\\\\\","
    "\"0123456789012345678901234567890123456789012345678901234567890123456789\"],"
    "\"nested\":{\"a\":[[],{},[{\"b\":[1,[2,[3]]]}]],\"\\u00fc\":{\"x\":\"y\"}},\"last\":[1,2,3]}";

typedef struct doc_bytes {
    unsigned char *p;
    size_t n;
} doc_bytes;

/* rich_json written in format `to` through its writer */
static doc_bytes from_json(int to) {
    /* BSON has no uint64: its document leaves out 18446744073709551615 */
    char text[sizeof rich_json];
    memcpy(text, rich_json, sizeof rich_json);
    if (to == F_BSON) {
        char *u = strstr(text, ",18446744073709551615");
        memmove(u, u + 21, strlen(u + 21) + 1);
    }
    sdx_json_reader *r = sdx_json_reader_new(text, strlen(text), NULL);
    sdx_buf out;
    sdx_buf_init(&out, NULL);
    sdx_sink sink;
    sdx_json_writer jw;
    sdx_msgpack_writer mw;
    sdx_cbor_writer cw;
    sdx_bson_writer bw;
    sdx_ubjson_writer uw;
    sdx_binn_writer nw;
    sdx_ubjson_write_opts bjo;
    memset(&bjo, 0, sizeof bjo);
    bjo.flags = SDX_UBJSON_WRITE_BJDATA;
    switch (to) {
    case F_JSON: sdx_json_writer_init(&jw, &out, NULL); sink = sdx_json_writer_sink(&jw); break;
    case F_MSGPACK: sdx_msgpack_writer_init(&mw, &out, NULL); sink = sdx_msgpack_writer_sink(&mw); break;
    case F_CBOR: sdx_cbor_writer_init(&cw, &out, NULL); sink = sdx_cbor_writer_sink(&cw); break;
    case F_BSON: sdx_bson_writer_init(&bw, &out, NULL); sink = sdx_bson_writer_sink(&bw); break;
    case F_UBJSON: sdx_ubjson_writer_init(&uw, &out, NULL); sink = sdx_ubjson_writer_sink(&uw); break;
    case F_BJDATA: sdx_ubjson_writer_init(&uw, &out, &bjo); sink = sdx_ubjson_writer_sink(&uw); break;
    default: sdx_binn_writer_init(&nw, &out, NULL); sink = sdx_binn_writer_sink(&nw); break;
    }
    sdx_error e;
    sdx_err rc = sdx_transcode(sdx_json_reader_source(r), sink, &e);
    sdx_err rf;
    switch (to) {
    case F_JSON: rf = sdx_json_writer_finish(&jw); break;
    case F_MSGPACK: rf = sdx_msgpack_writer_finish(&mw); break;
    case F_CBOR: rf = sdx_cbor_writer_finish(&cw); break;
    case F_BSON: rf = sdx_bson_writer_finish(&bw); break;
    case F_UBJSON:
    case F_BJDATA: rf = sdx_ubjson_writer_finish(&uw); break;
    default: rf = sdx_binn_writer_finish(&nw); break;
    }
    if (!CHECK(rc == SDX_OK && rf == SDX_OK))
        fprintf(stderr, "  rich document as %s: %s / %s at %zu\n", formats[to].name, sdx_strerror(rc),
                sdx_strerror(rf), e.offset);
    sdx_json_reader_free(r);
    doc_bytes d;
    d.p = (unsigned char *)sdx_buf_detach(&out, &d.n);
    sdx_buf_destroy(&out);
    return d;
}

/* Hand-made documents with each format's own types. */
#define B(s) {(const unsigned char *)(s), sizeof(s) - 1}
typedef struct raw {
    int fi;
    const unsigned char *p;
    size_t n;
} raw;

static const struct { int fi; struct { const unsigned char *p; size_t n; } b; } extras[] = {
    /* MessagePack: [bin8, ext, fixext4, timestamp 32/64/96, float32, str8, map with array key] */
    {F_MSGPACK, B("\x99\xc4\x03\x01\x02\x03\xc7\x02\x05\xaa\xbb\xd6\x05\x01\x02\x03\x04"
                  "\xd6\xff\x00\x00\x00\x01\xd7\xff\x00\x00\x00\x04\x00\x00\x00\x01"
                  "\xc7\x0c\xff\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01"
                  "\xca\x3f\xc0\x00\x00\xd9\x03\xc3\xa9\x41\x81\x91\x01\xc0")},
    /* CBOR: [tag 1 int, bignum tag 2, tag 3, decimal fraction, half float,
     * simple 16, undefined, indefinite bytes, indefinite text, indefinite
     * map, float32, float64, tag 55799, byte string] */
    {F_CBOR, B("\x8e\xc1\x1a\x5a\x4b\x3c\x2d\xc2\x49\x01\x00\x00\x00\x00\x00\x00\x00\x00"
               "\xc3\x49\x01\x00\x00\x00\x00\x00\x00\x00\x00\xc4\x82\x21\x19\x6a\xb3"
               "\xf9\x3c\x00\xf0\xf7\x5f\x42\x01\x02\x41\x03\xff\x7f\x62\x68\x69\x61\x21\xff"
               "\xbf\x61\x61\x01\xff\xfa\x3f\xc0\x00\x00\xfb\x40\x09\x21\xfb\x54\x44\x2d\x18"
               "\xd9\xd9\xf7\x01\x43\x01\x02\x03")},
    /* UBJSON: [typed int8 array, counted map, H, C, int16, int32, int64,
     * float32, float64, no-op, T/F/Z, byte array [$U#] */
    {F_UBJSON, B("[[$i#i\x03\x01\x02\x03{#i\x01i\x01" "ai\x05" "Hi\x14" "12345678901234567890"
                 "Cx" "I\x01\x02" "l\x01\x02\x03\x04" "L\x01\x02\x03\x04\x05\x06\x07\x08"
                 "d\x3f\xc0\x00\x00" "D\x40\x09\x21\xfb\x54\x44\x2d\x18" "NTFZ" "[$U#i\x02\xff\xfe" "]")},
    /* BJData: [ND array 2x2 of uint8, u m M, typed map, B byte array] */
    {F_BJDATA, B("[[$U#[$i#i\x02\x02\x02\x01\x02\x03\x04" "u\x01\x02" "m\x01\x02\x03\x04"
                 "M\x01\x02\x03\x04\x05\x06\x07\x08" "{$i#i\x01i\x01" "a\x05" "[$B#i\x02\x01\x02" "]")},
    /* Binn: list [blob, datetime text, map {1: uint16}, object {"a": int64},
     * float32, float64, uint32, int8] */
    {F_BINN, B("\xe0\x3b\x08\xc0\x02\x01\x02\xa1\x04" "2026\x00"
               "\xe1\x0a\x01\x00\x00\x00\x01\x40\x01\x02"
               "\xe2\x0e\x01\x01" "a\x81\x00\x00\x00\x00\x00\x00\x00\x05"
               "\x62\x3f\xc0\x00\x00\x82\x40\x09\x21\xfb\x54\x44\x2d\x18\x60\x01\x02\x03\x04\x21\xff")},
    /* BSON: {double, string, doc, array, binary 0, old binary 2, objectid,
     * bool, datetime, null, regex, code, symbol, code with scope, int32,
     * timestamp, int64, decimal128, minkey, maxkey} */
    {F_BSON, B("\xf5\x00\x00\x00"
               "\x01" "d\x00" "\x00\x00\x00\x00\x00\x00\xf8\x3f"
               "\x02" "s\x00" "\x03\x00\x00\x00" "hi\x00"
               "\x03" "o\x00" "\x0c\x00\x00\x00" "\x10" "x\x00" "\x01\x00\x00\x00" "\x00"
               "\x04" "a\x00" "\x0c\x00\x00\x00" "\x08" "0\x00" "\x01" "\x0a" "1\x00" "\x00"
               "\x05" "b\x00" "\x02\x00\x00\x00" "\x00" "\x01\x02"
               "\x05" "c\x00" "\x06\x00\x00\x00" "\x02" "\x02\x00\x00\x00" "\x01\x02"
               "\x07" "i\x00" "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c"
               "\x08" "t\x00" "\x01"
               "\x09" "D\x00" "\x00\x00\x00\x00\x00\x00\x00\x00"
               "\x0a" "n\x00"
               "\x0b" "r\x00" "a.b\x00" "i\x00"
               "\x0d" "j\x00" "\x02\x00\x00\x00" "x\x00"
               "\x0e" "y\x00" "\x02\x00\x00\x00" "y\x00"
               "\x0f" "w\x00" "\x16\x00\x00\x00" "\x02\x00\x00\x00" "x\x00"
               "\x0c\x00\x00\x00" "\x10" "v\x00" "\x01\x00\x00\x00" "\x00"
               "\x10" "I\x00" "\x05\x00\x00\x00"
               "\x11" "T\x00" "\x01\x00\x00\x00\x02\x00\x00\x00"
               "\x12" "L\x00" "\x01\x00\x00\x00\x00\x00\x00\x00"
               "\x13" "M\x00" "\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x40\x30"
               "\xff" "m\x00"
               "\x7f" "X\x00"
               "\x00")},
};

/* The document must read without error, and each strict prefix must fail
 * with an offset within the prefix, with the same code and offset on every
 * path. */
static void truncate_all(int fi, const unsigned char *p, size_t n, const char *what) {
    static const int ok[] = {SDX_OK, -1};
    static const int cut[] = {SDX_ERR_TRUNCATED, -1};
    /* JSON: a cut inside a \u escape or a literal may be reported as what
     * it is not yet; the end of the input is the first offending place,
     * the text being a prefix of a valid one */
    static const int cut_json[] = {SDX_ERR_TRUNCATED, -1};
    if (!expect(what, fi, p, n, defaults, ok, SIZE_MAX, 0)) return;
    for (size_t k = 0; k < n; k++)
        if (!expect(what, fi, p, k, defaults, fi == F_JSON ? cut_json : cut, SIZE_MAX, 0)) break;
}

TEST(truncation) {
    for (int fi = 0; fi < F_COUNT; fi++) {
        doc_bytes d = from_json(fi);
        if (d.p) truncate_all(fi, d.p, d.n, "truncated rich");
        free(d.p);
    }
    for (size_t i = 0; i < sizeof extras / sizeof extras[0]; i++) {
        unsigned char *p = malloc(extras[i].b.n);
        memcpy(p, extras[i].b.p, extras[i].b.n);
        if (extras[i].fi == F_BSON) put(p, extras[i].b.n, 4, true); /* the root's length */
        truncate_all(extras[i].fi, p, extras[i].b.n, "truncated extra");
        free(p);
    }
}

/* ------------------------------------------------------------------------ */
/* early_validation                                                          */
/* ------------------------------------------------------------------------ */

/* A string value (or key, when as_key) of `len` bytes in format fi whose
 * bytes are s, inside a container after a valid element. Returns the
 * encoding's length, and the offset of the string's first byte (its
 * header) in *at. */
static size_t wrap_string(int fi, bool as_key, const unsigned char *s, size_t len, unsigned char *out,
                          size_t *at) {
    size_t n = 0;
    switch (fi) {
    case F_JSON:
        n = (size_t)sprintf((char *)out, as_key ? "{\"k\":1," : "[1,");
        *at = n;
        out[n++] = '"';
        memcpy(out + n, s, len), n += len;
        out[n++] = '"';
        n += (size_t)sprintf((char *)out + n, as_key ? ":2}" : "]");
        return n;
    case F_MSGPACK:
        out[n++] = as_key ? 0x82 : 0x92;
        if (as_key) out[n++] = 0xa1, out[n++] = 'k';
        out[n++] = 1;
        *at = n;
        out[n++] = 0xda, put(out + n, len, 2, false), n += 2;
        memcpy(out + n, s, len), n += len;
        if (as_key) out[n++] = 2;
        return n;
    case F_CBOR:
        out[n++] = as_key ? 0xa2 : 0x82;
        if (as_key) out[n++] = 0x61, out[n++] = 'k';
        out[n++] = 1;
        *at = n;
        out[n++] = 0x79, put(out + n, len, 2, false), n += 2;
        memcpy(out + n, s, len), n += len;
        if (as_key) out[n++] = 2;
        return n;
    case F_BSON: {
        /* {"k": 1, <string>} or {"k": 1, <key>: 2} */
        n = 4;
        out[n++] = 0x10, out[n++] = 'k', out[n++] = 0, put(out + n, 1, 4, true), n += 4;
        if (as_key) {
            *at = n;
            out[n++] = 0x10;
            memcpy(out + n, s, len), n += len;
            out[n++] = 0, put(out + n, 2, 4, true), n += 4;
        } else {
            *at = n;
            out[n++] = 0x02, out[n++] = 's', out[n++] = 0;
            put(out + n, len + 1, 4, true), n += 4;
            memcpy(out + n, s, len), n += len;
            out[n++] = 0;
        }
        out[n++] = 0;
        put(out, n, 4, true);
        return n;
    }
    case F_UBJSON:
    case F_BJDATA: {
        const bool bj = fi == F_BJDATA;
        out[n++] = as_key ? '{' : '[';
        if (as_key) out[n++] = 'i', out[n++] = 1, out[n++] = 'k';
        out[n++] = 'i', out[n++] = 1;
        *at = n;
        if (!as_key) out[n++] = 'S';
        out[n++] = 'I', put(out + n, len, 2, bj), n += 2;
        memcpy(out + n, s, len), n += len;
        if (as_key) out[n++] = 'i', out[n++] = 2;
        out[n++] = as_key ? '}' : ']';
        return n;
    }
    default: { /* Binn: a list [1, text] or an object {"k": 1, key: 2} */
        out[n++] = as_key ? 0xe2 : 0xe0;
        size_t size_at = n;
        n += 4;
        out[n++] = 2;
        if (as_key) out[n++] = 1, out[n++] = 'k';
        out[n++] = 0x20, out[n++] = 1;
        *at = n;
        if (as_key) {
            if (len > 255) return 0;
            out[n++] = (unsigned char)len;
            memcpy(out + n, s, len), n += len;
            out[n++] = 0x20, out[n++] = 2;
        } else {
            out[n++] = 0xa0;
            put(out + n, 0x80000000u | len, 4, false), n += 4;
            memcpy(out + n, s, len), n += len;
            out[n++] = 0;
        }
        put(out + size_at, 0x80000000u | n, 4, false);
        return n;
    }
    }
}

TEST(early_validation) {
    static const int utf8[] = {SDX_ERR_UTF8, -1};
    static const int ok[] = {SDX_OK, -1};
    /* bad endings: a lone continuation byte, 0xff, a cut 3-byte sequence,
     * an overlong encoding, a surrogate, a code point above U+10FFFF */
    static const struct { const char *b; size_t n; } bad[] = {
        {"\x80", 1}, {"\xff", 1}, {"\xe2\x82", 2}, {"\xc0\xaf", 2}, {"\xed\xa0\x80", 3}, {"\xf4\x90\x80\x80", 4}};
    unsigned char s[300], out[400];
    for (int fi = 0; fi < F_COUNT; fi++)
        for (int as_key = 0; as_key < 2; as_key++)
            for (size_t len = 4; len <= 200; len++)
                for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
                    /* valid text (ASCII and two-byte é), then the bad bytes
                     * at the very end */
                    size_t fill = len - bad[b].n;
                    for (size_t i = 0; i < fill; i++) s[i] = 'a' + (unsigned char)(i % 26);
                    for (size_t i = 0; i + 1 < fill && i < 8; i += 4) s[i] = 0xc3, s[i + 1] = 0xa9;
                    memcpy(s + fill, bad[b].b, bad[b].n);
                    size_t at;
                    size_t n = wrap_string(fi, as_key, s, len, out, &at);
                    if (!n) continue;
                    if (fi == F_BSON && memchr(s, 0, len)) continue;
                    if (!expect("utf8 at end", fi, out, n, defaults, utf8, SIZE_MAX, 0)) goto next_format;
                    /* and the same string made valid reads fine (so the
                     * error above is the bad byte's) */
                    memset(s + fill, 'z', bad[b].n);
                    n = wrap_string(fi, as_key, s, len, out, &at);
                    if (!expect("utf8 valid", fi, out, n, defaults, ok, SIZE_MAX, 0)) goto next_format;
                    (void)at;
                }
    next_format:;
    /* JSON: strings with an escape first take the unescaping path; the bad
     * byte at the end must be found there too (keys and values) */
    for (int as_key = 0; as_key < 2; as_key++)
        for (size_t len = 6; len <= 200; len++)
            for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
                size_t fill = len - bad[b].n;
                for (size_t i = 0; i < fill; i++) s[i] = 'a' + (unsigned char)(i % 26);
                s[0] = '\\', s[1] = 'n';
                memcpy(s + fill, bad[b].b, bad[b].n);
                size_t at;
                size_t n = wrap_string(F_JSON, as_key, s, len, out, &at);
                if (!expect("utf8 after escape", F_JSON, out, n, defaults, utf8, SIZE_MAX, 0)) goto done_escapes;
            }
done_escapes:
    /* a bad byte after 64 valid ones, then more valid text */
    for (int fi = 0; fi < F_COUNT; fi++)
        for (size_t pos = 60; pos <= 70; pos++) {
            for (size_t i = 0; i < 150; i++) s[i] = 'a' + (unsigned char)(i % 26);
            s[pos] = 0xff;
            size_t at;
            size_t n = wrap_string(fi, false, s, 150, out, &at);
            expect("utf8 after 64", fi, out, n, defaults, utf8, SIZE_MAX, 0);
        }
}

/* CBOR indefinite-length text: each chunk must be valid UTF-8 on its own
 * (RFC 8949 section 3.2.3), so a character split across two chunks is an
 * error even though the joined string is valid; and a bad last byte in
 * the last chunk (checked per chunk, not only on the joined string). The
 * error is at the offending chunk's head. */
TEST(cbor_chunk_utf8) {
    static const int utf8[] = {SDX_ERR_UTF8, -1};
    static const int ok[] = {SDX_OK, -1};
    expect("cbor chunks", F_CBOR, "\x7f\x61\xc3\x61\xa9\xff", 6, defaults, utf8, 1, 0);
    expect("cbor chunks", F_CBOR, "\x7f\x62\xc3\xa9\x61\x61\xff", 7, defaults, ok, SIZE_MAX, 0);
    expect("cbor chunks", F_CBOR, "\x7f\x61\x61\x61\xff\xff", 6, defaults, utf8, 3, 0);
    expect("cbor chunks", F_CBOR, "\xa1\x7f\x61\xc3\x61\xa9\xff\x01", 8, defaults, utf8, 2, 0);
}

/* BSON: an error in the last element of the last nested document (the
 * class of CVE-2026-6231: validation that stops early and says success). */
TEST(bson_last_element) {
    static const int bad[] = {SDX_ERR_SYNTAX, SDX_ERR_UTF8, SDX_ERR_TRUNCATED, -1};
    /* {"a": {"b": {"c": true(2)}}}: a boolean byte of 2 as the very last value */
    static const unsigned char d1[] = {25, 0, 0, 0, 3, 'a', 0, 17, 0, 0, 0, 3, 'b', 0,
                                       9, 0, 0, 0, 8, 'c', 0, 2, 0, 0, 0};
    expect("bson last", F_BSON, d1, sizeof d1, defaults, bad, SIZE_MAX, 0);
    /* the last element's type unknown (0x20) */
    static const unsigned char d2[] = {15, 0, 0, 0, 0x10, 'a', 0, 1, 0, 0, 0, 0x20, 'b', 0, 0};
    expect("bson last", F_BSON, d2, sizeof d2, defaults, bad, SIZE_MAX, 0);
    /* the inner document's terminator missing: its last byte not 0 */
    static const unsigned char d3[] = {0x14, 0, 0, 0, 3, 'a', 0, 0x0c, 0, 0, 0, 0x10, 'b', 0,
                                       1, 0, 0, 0, 1, 0};
    expect("bson last", F_BSON, d3, sizeof d3, defaults, bad, SIZE_MAX, 0);
    /* code with scope whose scope's last (only) key is bad UTF-8 */
    static const unsigned char d4[] = {30, 0, 0, 0, 0x0f, 'w', 0, 22, 0, 0, 0, 2, 0, 0, 0, 'x', 0,
                                       12, 0, 0, 0, 0x10, 0xff, 0, 1, 0, 0, 0, 0, 0};
    expect("bson last", F_BSON, d4, sizeof d4, defaults, bad, SIZE_MAX, 0);
    /* and the same four made valid read fine */
    static const int ok[] = {SDX_OK, -1};
    unsigned char v[32];
    memcpy(v, d1, sizeof d1), v[21] = 1;
    expect("bson last valid", F_BSON, v, sizeof d1, defaults, ok, SIZE_MAX, 0);
    memcpy(v, d2, sizeof d2), v[11] = 0x0a;
    expect("bson last valid", F_BSON, v, sizeof d2, defaults, ok, SIZE_MAX, 0);
    memcpy(v, d3, sizeof d3), v[18] = 0;
    expect("bson last valid", F_BSON, v, sizeof d3, defaults, ok, SIZE_MAX, 0);
    memcpy(v, d4, sizeof d4), v[22] = 'k';
    expect("bson last valid", F_BSON, v, sizeof d4, defaults, ok, SIZE_MAX, 0);
}

/* CBOR: a duplicate key as the very last entry of a large map, in
 * duplicate-key and deterministic modes (a check that stops after the
 * first entries would accept it). */
/* A CBOR head of major type `major` and argument v in its shortest form. */
static size_t cbor_head(unsigned char *p, unsigned major, uint64_t v) {
    const unsigned char m = (unsigned char)(major << 5);
    if (v < 24) return p[0] = (unsigned char)(m | v), 1;
    if (v <= 0xff) return p[0] = m | 24, p[1] = (unsigned char)v, 2;
    if (v <= 0xffff) return p[0] = m | 25, put(p + 1, v, 2, false), 3;
    return p[0] = m | 26, put(p + 1, v, 4, false), 5;
}

TEST(cbor_duplicate_at_end) {
    static const int key[] = {SDX_ERR_KEY, -1};
    static const int syntax[] = {SDX_ERR_SYNTAX, -1};
    static const int ok[] = {SDX_OK, -1};
    unsigned char b[2000];
    for (size_t entries = 2; entries <= 300; entries += 17)
        for (int dup = 0; dup < 2; dup++) {
            /* keys 0 .. entries-2 in increasing order (shortest heads, so
             * the map is deterministic up to its last key), then the
             * previous key again (or, dup == 0, the next one) */
            size_t n = cbor_head(b, 5, entries);
            for (size_t i = 0; i + 1 < entries; i++) {
                n += cbor_head(b + n, 0, i);
                b[n++] = 0xf6;
            }
            size_t last = n;
            n += cbor_head(b + n, 0, dup ? entries - 2 : entries - 1);
            b[n++] = 0xf6;
            hopts o = defaults;
            o.flags = SDX_CBOR_READ_REJECT_DUPLICATE_KEYS;
            expect("cbor dup", F_CBOR, b, n, o, dup ? key : ok, dup ? last : SIZE_MAX, 0);
            /* deterministic: keys not strictly increasing, at the last key */
            o.flags = SDX_CBOR_READ_DETERMINISTIC;
            expect("cbor dup deterministic", F_CBOR, b, n, o, dup ? syntax : ok, dup ? last : SIZE_MAX, 0);
        }
}

/* ------------------------------------------------------------------------ */
/* digit_limits                                                              */
/* ------------------------------------------------------------------------ */

static sdx_err cbor_to_json(const unsigned char *p, size_t n, size_t *out_len) {
    sdx_cbor_reader *r = sdx_cbor_reader_new((const char *)p, n, NULL);
    sdx_buf out;
    sdx_buf_init(&out, NULL);
    sdx_json_writer w;
    sdx_json_writer_init(&w, &out, NULL);
    sdx_map_to_json m;
    sdx_map_to_json_init(&m, sdx_json_writer_sink(&w), NULL);
    sdx_error e;
    sdx_err rc = sdx_transcode(sdx_cbor_reader_source(r), sdx_map_to_json_sink(&m), &e);
    if (rc == SDX_OK) rc = sdx_map_to_json_finish(&m);
    if (rc == SDX_OK) rc = sdx_json_writer_finish(&w);
    if (out_len) *out_len = sdx_buf_len(&out);
    sdx_buf_destroy(&out);
    sdx_cbor_reader_free(r);
    return rc;
}

TEST(digit_limits) {
    /* tag 2 on 64 KiB of 0xff: about 158000 digits, above the default
     * 4300 (SDX_MAP_DEFAULT_MAX_DIGITS, Python's limit after CVE-2020-10735) */
    const size_t nb = 65536;
    unsigned char *b = malloc(nb + 8);
    b[0] = 0xc2, b[1] = 0x5a, put(b + 2, nb, 4, false);
    memset(b + 6, 0xff, nb);
    CHECK(cbor_to_json(b, nb + 6, NULL) == SDX_ERR_LIMIT);
    /* 1780 bytes of 0xff: 4287 digits, within the limit */
    b[0] = 0xc2, b[1] = 0x59, put(b + 2, 1780, 2, false), b[4] = b[5] = 0xff;
    size_t len = 0;
    CHECK(cbor_to_json(b, 1780 + 4, &len) == SDX_OK);
    CHECK_EQ_U64(len, 4287);
    free(b);
    /* decimal fraction 1 * 10^(2^63-1): exact in exponent form, a short
     * text; bigfloat 1 * 2^(-2^63) has about 6.4 * 10^18 digits: refused
     * before any work (no exponent-sized text or loop) */
    static const unsigned char df[] = {0xc4, 0x82, 0x1b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    static const unsigned char bf[] = {0xc5, 0x82, 0x3b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    CHECK(cbor_to_json(df, sizeof df, &len) == SDX_OK);
    CHECK_EQ_U64(len, strlen("1e9223372036854775807"));
    CHECK(cbor_to_json(bf, sizeof bf, NULL) == SDX_ERR_LIMIT);
    /* bigfloat 1 * 2^(2^63 - 1) as well */
    static const unsigned char bf2[] = {0xc5, 0x82, 0x1b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    CHECK(cbor_to_json(bf2, sizeof bf2, NULL) == SDX_ERR_LIMIT);
}

/* Byte flips of every document above (SDX_HARDEN_FLIPS = count per
 * document, default 2000): every path must agree as in expect(). */
static uint64_t flip_state = 0x243f6a8885a308d3ULL;
static uint64_t flip_rnd(void) {
    uint64_t z = (flip_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void flip_all(int fi, const unsigned char *p, size_t n, long count) {
    static const int any[] = {SDX_OK, SDX_ERR_SYNTAX, SDX_ERR_TRUNCATED, SDX_ERR_UTF8, SDX_ERR_DEPTH,
                              SDX_ERR_LIMIT, SDX_ERR_RANGE, SDX_ERR_KEY, SDX_ERR_UNSUPPORTED, -1};
    unsigned char *b = malloc(n);
    for (long i = 0; i < count; i++) {
        memcpy(b, p, n);
        int flips = 1 + (int)(flip_rnd() % 3);
        for (int k = 0; k < flips; k++) {
            uint64_t r = flip_rnd();
            b[r % n] = (r >> 32) & 1 ? (unsigned char)(r >> 40) : (unsigned char)(b[r % n] ^ (1u << ((r >> 40) & 7)));
        }
        if (!expect("flipped", fi, b, n, defaults, any, SIZE_MAX, 0)) break;
    }
    free(b);
}

TEST(byte_flips) {
    const char *env = getenv("SDX_HARDEN_FLIPS");
    const long count = env ? atol(env) : 2000;
    for (int fi = 0; fi < F_COUNT; fi++) {
        doc_bytes d = from_json(fi);
        if (d.p) flip_all(fi, d.p, d.n, count);
        free(d.p);
    }
    for (size_t i = 0; i < sizeof extras / sizeof extras[0]; i++) {
        unsigned char *p = malloc(extras[i].b.n);
        memcpy(p, extras[i].b.p, extras[i].b.n);
        if (extras[i].fi == F_BSON) put(p, extras[i].b.n, 4, true);
        flip_all(extras[i].fi, p, extras[i].b.n, count);
        free(p);
    }
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "-v") == 0) {
        verbose = true;
        argc--, argv++;
    }
    return test_run(argc, argv,
                    (test_case[]){{"nesting_exhaustion", nesting_exhaustion},
                                  {"length_overflow", length_overflow},
                                  {"empty_elements", empty_elements},
                                  {"truncation", truncation},
                                  {"early_validation", early_validation},
                                  {"cbor_chunk_utf8", cbor_chunk_utf8},
                                  {"bson_last_element", bson_last_element},
                                  {"cbor_duplicate_at_end", cbor_duplicate_at_end},
                                  {"digit_limits", digit_limits},
                                  {"byte_flips", byte_flips},
                                  {0}});
}
