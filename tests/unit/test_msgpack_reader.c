/* The MessagePack pull reader: every type and size class, depths, keys of
 * any type, streams at many chunk sizes giving the same events as memory,
 * truncation at every byte, the errors with exact codes and offsets,
 * options, skip, allocation and I/O failures, and the inline fast path
 * (the sdx_msgpack_reader_next macro) against the exported function. */
#include <inttypes.h>
#include <stdarg.h>

#include "alloc_test.h"
#include "msgpack/reader_internal.h"
#include "msgpack_util.h"
#include "sdx/msgpack.h"
#include "test.h"

/* ------------------------------------------------------------------------ */
/* Events as text                                                            */
/* ------------------------------------------------------------------------ */

typedef struct text {
    char p[4096];
    size_t len;
} text;

static void tput(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tput(text *t, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->p + t->len, sizeof t->p - t->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof t->p - t->len) abort();
    t->len += (size_t)n;
}

/* One event: N T F i<n> u<n> d<g> f<g> (float 32) s"..." k"..." b<hex>
 * x<type>:<hex> [<count> {<count> ], each followed by a space. */
static void describe_event(text *t, const sdx_event *ev) {
    switch ((sdx_kind)ev->kind) {
    case SDX_NULL: tput(t, "N "); return;
    case SDX_BOOL: tput(t, ev->v.b ? "T " : "F "); return;
    case SDX_INT: tput(t, "i%" PRId64 " ", ev->v.i); return;
    case SDX_UINT: tput(t, "u%" PRIu64 " ", ev->v.u); return;
    case SDX_DOUBLE: tput(t, "%c%.17g ", ev->flags & SDX_EVENT_FLOAT32 ? 'f' : 'd', ev->v.d); return;
    case SDX_STR:
    case SDX_KEY: tput(t, "%c\"%.*s\" ", ev->kind == SDX_KEY ? 'k' : 's', (int)ev->v.str.len, ev->v.str.ptr); return;
    case SDX_BIN:
        if (ev->tag_kind == SDX_TAG_MSGPACK_EXT) tput(t, "x%" PRId64 ":", (int64_t)ev->tag);
        else tput(t, "b");
        for (size_t i = 0; i < ev->v.str.len; i++) tput(t, "%02x", (unsigned char)ev->v.str.ptr[i]);
        tput(t, " ");
        return;
    case SDX_ARRAY: tput(t, "[%" PRIu64 " ", ev->v.count); return;
    case SDX_MAP: tput(t, "{%" PRIu64 " ", ev->v.count); return;
    case SDX_END: tput(t, "] "); return;
    case SDX_RAW: tput(t, "RAW "); return;
    case SDX_NINT: tput(t, "NINT "); return; /* never read from MessagePack */
    case SDX_TAG: tput(t, "TAG "); return;
    }
}

/* Read hex input with a memory reader (chunk 0) or a stream; every event
 * described, then "!<code>@<offset>" on an error. */
static void describe(text *t, const char *hex, const sdx_msgpack_read_opts *o, size_t chunk) {
    static unsigned char in[8192];
    size_t n = mp_unhex(hex, in, sizeof in);
    mp_mem_stream st = {(const char *)in, n, chunk, -1};
    sdx_msgpack_reader *r = chunk ? sdx_msgpack_reader_new_stream(mp_mem_read, &st, chunk, o)
                                  : sdx_msgpack_reader_new((const char *)in, n, o);
    t->len = 0;
    t->p[0] = 0;
    sdx_event ev;
    while (sdx_msgpack_reader_next(r, &ev)) describe_event(t, &ev);
    sdx_error e;
    if (sdx_msgpack_reader_error(r, &e)) {
        tput(t, "!%d@%zu", (int)e.code, e.offset);
        CHECK(e.msg != NULL && e.line == 0 && e.column == 0);
    }
    sdx_msgpack_reader_free(r);
}

static int expect_events(const char *hex, const char *want, const sdx_msgpack_read_opts *o, int line) {
    text t;
    int ok = 1;
    static const size_t chunks[] = {0, 1, 2, 3, 7, 64, 4096};
    for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++) {
        describe(&t, hex, o, chunks[c]);
        if (!test_mem_eq(__FILE__, line, t.p, t.len, want, strlen(want), hex)) {
            fprintf(stderr, "  chunk %zu\n", chunks[c]);
            ok = 0;
        }
    }
    return ok;
}

#define EXPECT(hex, want) expect_events((hex), (want), NULL, __LINE__)
#define EXPECT_OPTS(hex, want, o) expect_events((hex), (want), (o), __LINE__)

/* Memory and stream differ only where a memory reader checks a declared
 * count against the bytes left. */
static void expect_memory(const char *hex, const char *want, int line) {
    text t;
    describe(&t, hex, NULL, 0);
    test_mem_eq(__FILE__, line, t.p, t.len, want, strlen(want), hex);
}
#define EXPECT_MEMORY(hex, want) expect_memory((hex), (want), __LINE__)
static void expect_stream(const char *hex, const char *want, int line) {
    text t;
    for (size_t chunk = 1; chunk < 12; chunk++) {
        describe(&t, hex, NULL, chunk);
        test_mem_eq(__FILE__, line, t.p, t.len, want, strlen(want), hex);
    }
}
#define EXPECT_STREAM(hex, want) expect_stream((hex), (want), __LINE__)

/* ------------------------------------------------------------------------ */
/* Every type                                                                */
/* ------------------------------------------------------------------------ */

TEST(scalars) {
    EXPECT("c0", "N ");
    EXPECT("c2", "F ");
    EXPECT("c3", "T ");
    EXPECT("00", "i0 ");
    EXPECT("7f", "i127 ");
    EXPECT("cc 80", "i128 ");
    EXPECT("cc ff", "i255 ");
    EXPECT("cd 01 00", "i256 ");
    EXPECT("cd ff ff", "i65535 ");
    EXPECT("ce 00 01 00 00", "i65536 ");
    EXPECT("ce ff ff ff ff", "i4294967295 ");
    EXPECT("cf 00 00 00 01 00 00 00 00", "i4294967296 ");
    EXPECT("cf 7f ff ff ff ff ff ff ff", "i9223372036854775807 ");
    EXPECT("cf 80 00 00 00 00 00 00 00", "u9223372036854775808 ");
    EXPECT("cf ff ff ff ff ff ff ff ff", "u18446744073709551615 ");
    EXPECT("ff", "i-1 ");
    EXPECT("e0", "i-32 ");
    EXPECT("d0 df", "i-33 ");
    EXPECT("d0 80", "i-128 ");
    EXPECT("d1 ff 7f", "i-129 ");
    EXPECT("d1 80 00", "i-32768 ");
    EXPECT("d2 ff ff 7f ff", "i-32769 ");
    EXPECT("d2 80 00 00 00", "i-2147483648 ");
    EXPECT("d3 ff ff ff ff 7f ff ff ff", "i-2147483649 ");
    EXPECT("d3 80 00 00 00 00 00 00 00", "i-9223372036854775808 ");
    /* longer encodings than needed are fine */
    EXPECT("d0 01", "i1 ");
    EXPECT("cd 00 05", "i5 ");
    EXPECT("d3 00 00 00 00 00 00 00 07", "i7 ");
    EXPECT("ca 3f 00 00 00", "f0.5 ");
    EXPECT("ca 3d cc cc cd", "f0.10000000149011612 ");
    EXPECT("cb 3f b9 99 99 99 99 99 9a", "d0.10000000000000001 ");
    EXPECT("cb 80 00 00 00 00 00 00 00", "d-0 ");
    EXPECT("ca ff 80 00 00", "f-inf ");
    /* float 32 NaN payloads carried over exactly */
    unsigned char in[5];
    mp_unhex("ca ff a0 00 01", in, 5);
    sdx_msgpack_reader *r = sdx_msgpack_reader_new((const char *)in, 5, NULL);
    sdx_event ev;
    CHECK(sdx_msgpack_reader_next(r, &ev));
    uint64_t bits;
    memcpy(&bits, &ev.v.d, 8);
    CHECK_EQ_U64(bits, 0xfff4000020000000ull);
    CHECK_EQ_INT(ev.flags, SDX_EVENT_FLOAT32);
    sdx_msgpack_reader_free(r);
}

/* hex of a header and n bytes of 'a' (0x61) or 0x00. */
static char *long_hex(const char *head, size_t n, const char *byte) {
    size_t hl = strlen(head), bl = strlen(byte);
    char *s = malloc(hl + n * bl + 1);
    memcpy(s, head, hl);
    for (size_t i = 0; i < n; i++) memcpy(s + hl + i * bl, byte, bl);
    s[hl + n * bl] = 0;
    return s;
}

TEST(strings_binaries_ext) {
    EXPECT("a0", "s\"\" ");
    EXPECT("a1 61", "s\"a\" ");
    EXPECT("d9 01 61", "s\"a\" ");
    EXPECT("da 00 01 61", "s\"a\" ");
    EXPECT("db 00 00 00 01 61", "s\"a\" ");
    EXPECT("a3 e2 82 ac", "s\"\xe2\x82\xac\" ");
    EXPECT("c4 00", "b ");
    EXPECT("c4 01 ff", "bff ");
    EXPECT("c5 00 01 ff", "bff ");
    EXPECT("c6 00 00 00 01 ff", "bff ");
    EXPECT("d4 01 10", "x1:10 ");
    EXPECT("d5 02 20 21", "x2:2021 ");
    EXPECT("d6 03 30 31 32 33", "x3:30313233 ");
    EXPECT("d7 04 40 41 42 43 44 45 46 47", "x4:4041424344454647 ");
    EXPECT("d8 05 50 51 52 53 54 55 56 57 58 59 5a 5b 5c 5d 5e 5f", "x5:505152535455565758595a5b5c5d5e5f ");
    EXPECT("c7 00 06", "x6: ");
    EXPECT("c8 00 00 06", "x6: ");
    EXPECT("c9 00 00 00 00 06", "x6: ");
    EXPECT("c7 03 80 70 71 72", "x-128:707172 ");
    EXPECT("d6 ff 5a 4a f6 a5", "x-1:5a4af6a5 ");
    EXPECT("d7 ff a1 dc d7 c8 5a 4a f6 a5", "x-1:a1dcd7c85a4af6a5 ");
    EXPECT("c7 0c ff 3b 9a c9 ff ff ff ff ff ff ff ff ff", "x-1:3b9ac9ffffffffffffffffff ");
    /* every length class boundary of str and bin */
    static const struct {
        size_t n;
        const char *str, *bin;
    } sizes[] = {{31, "bf", "c4 1f"},           {32, "d9 20", "c4 20"},
                 {255, "d9 ff", "c4 ff"},         {256, "da 01 00", "c5 01 00"},
                 {65535, "da ff ff", "c5 ff ff"}, {65536, "db 00 01 00 00", "c6 00 01 00 00"}};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        for (int bin = 0; bin < 2; bin++) {
            size_t n = sizes[i].n;
            char *hex = long_hex(bin ? sizes[i].bin : sizes[i].str, n, "61");
            static unsigned char in[70000];
            size_t len = mp_unhex(hex, in, sizeof in);
            for (size_t chunk = 0; chunk < 5000; chunk = chunk ? chunk * 7 : 1) {
                mp_mem_stream st = {(const char *)in, len, chunk, -1};
                sdx_msgpack_reader *r = chunk ? sdx_msgpack_reader_new_stream(mp_mem_read, &st, chunk, NULL)
                                              : sdx_msgpack_reader_new((const char *)in, len, NULL);
                sdx_event ev;
                CHECK(sdx_msgpack_reader_next(r, &ev));
                CHECK_EQ_INT(ev.kind, bin ? SDX_BIN : SDX_STR);
                CHECK_EQ_U64(ev.v.str.len, n);
                CHECK(ev.v.str.len == n && ev.v.str.ptr[0] == 'a' && ev.v.str.ptr[n - 1] == 'a');
                CHECK(!sdx_msgpack_reader_next(r, &ev));
                CHECK_EQ_INT(sdx_msgpack_reader_error(r, NULL), SDX_OK);
                CHECK_EQ_U64(sdx_msgpack_reader_offset(r), len);
                sdx_msgpack_reader_free(r);
            }
            free(hex);
        }
    }
}

TEST(containers_and_depths) {
    EXPECT("90", "[0 ] ");
    EXPECT("91 c0", "[1 N ] ");
    EXPECT("dc 00 01 c0", "[1 N ] ");
    EXPECT("dd 00 00 00 01 c0", "[1 N ] ");
    EXPECT("80", "{0 ] ");
    EXPECT("81 a1 61 01", "{1 k\"a\" i1 ] ");
    EXPECT("de 00 01 a1 61 01", "{1 k\"a\" i1 ] ");
    EXPECT("df 00 00 00 01 a1 61 01", "{1 k\"a\" i1 ] ");
    /* keys of every type; str values stay str */
    EXPECT("86 01 a1 61 c0 c3 91 00 c2 a1 62 ca 3f 00 00 00 c4 01 ff 80 d4 01 10 a0",
           "{6 i1 s\"a\" N T [1 i0 ] F k\"b\" f0.5 bff {0 ] x1:10 s\"\" ] ");
    EXPECT("92 91 91 90 81 a0 90", "[2 [1 [1 [0 ] ] ] {1 k\"\" [0 ] ] ] ");
    /* depths */
    unsigned char in[32];
    size_t n = mp_unhex("92 81 a1 6b 91 05 06", in, sizeof in);
    static const uint32_t depths[] = {0, 1, 2, 2, 3, 2, 1, 1, 0};
    static const uint8_t kinds[] = {SDX_ARRAY, SDX_MAP, SDX_KEY, SDX_ARRAY, SDX_INT,
                                    SDX_END,   SDX_END, SDX_INT, SDX_END};
    for (size_t chunk = 0; chunk < 4; chunk++) {
        mp_mem_stream st = {(const char *)in, n, chunk, -1};
        sdx_msgpack_reader *r = chunk ? sdx_msgpack_reader_new_stream(mp_mem_read, &st, chunk, NULL)
                                      : sdx_msgpack_reader_new((const char *)in, n, NULL);
        sdx_event ev;
        for (size_t i = 0; i < 9; i++) {
            if (!CHECK(sdx_msgpack_reader_next(r, &ev))) break;
            CHECK_EQ_INT(ev.kind, kinds[i]);
            CHECK_EQ_INT(ev.depth, depths[i]);
        }
        CHECK(!sdx_msgpack_reader_next(r, &ev));
        CHECK(!sdx_msgpack_reader_next(r, &ev)); /* the end stays the end */
        CHECK_EQ_INT(sdx_msgpack_reader_error(r, NULL), SDX_OK);
        sdx_msgpack_reader_free(r);
    }
    /* counts at the header boundaries */
    static const struct {
        uint32_t n;
        const char *arr, *map;
    } sizes[] = {{15, "9f", "8f"}, {16, "dc 00 10", "de 00 10"}, {65535, "dc ff ff", "de ff ff"},
                 {65536, "dd 00 01 00 00", "df 00 01 00 00"}};
    for (size_t i = 0; i < 4; i++) {
        for (int map = 0; map < 2; map++) {
            uint32_t c = sizes[i].n;
            char *hex = long_hex(map ? sizes[i].map : sizes[i].arr, c * (map ? 2u : 1u), "c0");
            static unsigned char buf[140000];
            size_t len = mp_unhex(hex, buf, sizeof buf);
            sdx_msgpack_reader *r = sdx_msgpack_reader_new((const char *)buf, len, NULL);
            sdx_event ev;
            CHECK(sdx_msgpack_reader_next(r, &ev) && ev.kind == (map ? SDX_MAP : SDX_ARRAY) && ev.v.count == c);
            size_t nulls = 0;
            while (sdx_msgpack_reader_next(r, &ev) && ev.kind == SDX_NULL) nulls++;
            CHECK_EQ_U64(nulls, c * (map ? 2u : 1u));
            CHECK(ev.kind == SDX_END && ev.depth == 0);
            CHECK(!sdx_msgpack_reader_next(r, &ev) && sdx_msgpack_reader_error(r, NULL) == SDX_OK);
            sdx_msgpack_reader_free(r);
            free(hex);
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

_Static_assert(SDX_ERR_SYNTAX == 5 && SDX_ERR_TRUNCATED == 6 && SDX_ERR_DEPTH == 7 && SDX_ERR_UTF8 == 8,
               "the codes spelled out below");
#define TRUNC "!6@"
#define SYNTAX "!5@"
#define UTF8 "!8@"

TEST(error_codes_and_offsets) {
    EXPECT("", TRUNC "0");
    EXPECT("c1", SYNTAX "0");
    EXPECT("91 c1", "[1 " SYNTAX "1");
    EXPECT("81 c1 00", "{1 " SYNTAX "1");
    EXPECT("c0 c0", "N " SYNTAX "1");
    EXPECT("91 00 00", "[1 i0 ] " SYNTAX "2");
    EXPECT("cd 00", TRUNC "0");
    EXPECT("cf 00 00 00 00 00 00 00", TRUNC "0");
    EXPECT("91 cb 00", "[1 " TRUNC "1");
    EXPECT("a3 61 62", TRUNC "0");
    EXPECT("92 01 d9", "[2 i1 " TRUNC "2");
    EXPECT("92 01 d9 05 61", "[2 i1 " TRUNC "2");
    EXPECT("c4 02 00", TRUNC "0");
    EXPECT("d8 05 00", TRUNC "0");
    EXPECT("c9 00 00 00 02 05 00", TRUNC "0");
    /* the 10-byte messages declaring 2^32 - 1 bytes or elements */
    EXPECT("db ff ff ff ff 61 61 61 61 61", TRUNC "0");
    EXPECT("c6 ff ff ff ff 61 61 61 61 61", TRUNC "0");
    EXPECT("c9 ff ff ff ff 05 61 61 61 61", TRUNC "0");
    EXPECT_MEMORY("dd ff ff ff ff c0 c0 c0 c0 c0", TRUNC "0");
    EXPECT_MEMORY("df ff ff ff ff c0 c0 c0 c0 c0", TRUNC "0");
    EXPECT_STREAM("dd ff ff ff ff c0 c0 c0 c0 c0", "[4294967295 N N N N N " TRUNC "10");
    EXPECT_STREAM("df ff ff ff ff c0 c0 c0 c0 c0", "{4294967295 N N N N N " TRUNC "10");
    EXPECT_MEMORY("92 01", TRUNC "0");
    EXPECT_STREAM("92 01", "[2 i1 " TRUNC "2");
    EXPECT("82 a1 61 01 a1 62", "{2 k\"a\" i1 k\"b\" " TRUNC "6");
    EXPECT_MEMORY("83 a1 61 01 a1 62", TRUNC "0");
    /* invalid UTF-8, at its item's first byte */
    EXPECT("a2 c3 28", UTF8 "0");
    EXPECT("92 01 a1 ff", "[2 i1 " UTF8 "2");
    EXPECT("81 a3 ed a0 80 01", "{1 " UTF8 "1");
    EXPECT("d9 04 f4 90 80 80", UTF8 "0");
    sdx_msgpack_read_opts o = {SDX_MSGPACK_READ_NO_UTF8_CHECK, 0, NULL};
    EXPECT_OPTS("a2 c3 28", "s\"\xc3\x28\" ", &o);
    /* invalid timestamps: wrong size, nanoseconds of 10^9 or more */
    EXPECT("d4 ff 00", SYNTAX "0");
    EXPECT("c7 05 ff 00 00 00 00 00", SYNTAX "0");
    EXPECT("91 d7 ff ee 6b 28 00 00 00 00 00", "[1 " SYNTAX "1");
    EXPECT("c7 0c ff 3b 9a ca 00 00 00 00 00 00 00 00 00", SYNTAX "0");
    EXPECT("d7 ff ee 6b 27 fc 00 00 00 00", "x-1:ee6b27fc00000000 ");
    /* sticky */
    unsigned char in[4];
    mp_unhex("92 c1 00", in, 3);
    sdx_msgpack_reader *r = sdx_msgpack_reader_new((const char *)in, 3, NULL);
    sdx_event ev;
    CHECK(sdx_msgpack_reader_next(r, &ev));
    CHECK(!sdx_msgpack_reader_next(r, &ev));
    CHECK(!sdx_msgpack_reader_next(r, &ev));
    CHECK(!sdx_msgpack_reader_skip(r));
    sdx_error e;
    CHECK_EQ_INT(sdx_msgpack_reader_error(r, &e), SDX_ERR_SYNTAX);
    CHECK_EQ_U64(e.offset, 1);
    CHECK(strstr(e.msg, "0xc1") != NULL);
    sdx_msgpack_reader_free(r);
}

TEST(depth_limit) {
    /* 10^6-deep nesting: SDX_ERR_DEPTH at the limit; fine when raised. */
    size_t deep = 1000000;
    char *in = malloc(deep + 1);
    memset(in, 0x91, deep);
    in[deep] = (char)0xc0;
    sdx_msgpack_reader *r = sdx_msgpack_reader_new(in, deep + 1, NULL);
    sdx_event ev;
    size_t events = 0;
    while (sdx_msgpack_reader_next(r, &ev)) events++;
    sdx_error e;
    CHECK_EQ_INT(sdx_msgpack_reader_error(r, &e), SDX_ERR_DEPTH);
    CHECK_EQ_U64(e.offset, SDX_MSGPACK_DEFAULT_MAX_DEPTH);
    CHECK_EQ_U64(events, SDX_MSGPACK_DEFAULT_MAX_DEPTH);
    sdx_msgpack_reader_free(r);
    sdx_msgpack_read_opts o = {0, 2000000, NULL};
    for (int stream = 0; stream < 2; stream++) {
        mp_mem_stream st = {in, deep + 1, 4096, -1};
        r = stream ? sdx_msgpack_reader_new_stream(mp_mem_read, &st, 4096, &o)
                   : sdx_msgpack_reader_new(in, deep + 1, &o);
        events = 0;
        uint32_t maxd = 0;
        while (sdx_msgpack_reader_next(r, &ev)) {
            events++;
            if (ev.depth > maxd) maxd = ev.depth;
        }
        CHECK_EQ_INT(sdx_msgpack_reader_error(r, NULL), SDX_OK);
        CHECK_EQ_U64(events, 2 * deep + 1);
        CHECK_EQ_U64(maxd, deep);
        sdx_msgpack_reader_free(r);
    }
    /* exactly at the limit */
    o.max_depth = 3;
    EXPECT_OPTS("91 91 91 c0", "[1 [1 [1 N ] ] ] ", &o);
    EXPECT_OPTS("91 91 91 91 c0", "[1 [1 [1 !7@3", &o);
    free(in);
}

/* ------------------------------------------------------------------------ */
/* Random documents: memory, streams, truncation                            */
/* ------------------------------------------------------------------------ */

static void read_stream(const char *data, size_t len, size_t chunk, evlist *l, sdx_error *e) {
    mp_mem_stream st = {data, len, chunk, -1};
    sdx_msgpack_reader *r = sdx_msgpack_reader_new_stream(mp_mem_read, &st, chunk, NULL);
    sdx_event ev;
    while (sdx_msgpack_reader_next(r, &ev)) evlist_push(l, &ev);
    sdx_msgpack_reader_error(r, e);
    sdx_msgpack_reader_free(r);
}

TEST(streams_match_memory) {
    int docs = (int)(200 * test_scale());
    mp_gen g = {777, 6, 0, 1, 0, 0};
    static const size_t chunks[] = {1, 2, 3, 7, 64, 4096};
    for (int d = 0; d < docs; d++) {
        evlist l = {0};
        g.big = d % 40 == 0;
        mp_gen_doc(&g, &l);
        sdx_buf b;
        sdx_buf_init(&b, NULL);
        CHECK_EQ_INT(mp_write_events(&l, &b), SDX_OK);
        evlist mem = {0};
        sdx_msgpack_reader *r = sdx_msgpack_reader_new(sdx_buf_data(&b), sdx_buf_len(&b), NULL);
        CHECK_EQ_INT(mp_read_events(r, &mem), SDX_OK);
        CHECK_EQ_U64(sdx_msgpack_reader_offset(r), sdx_buf_len(&b));
        sdx_msgpack_reader_free(r);
        CHECK(evlist_diff(&l, &mem) == (size_t)-1);
        for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++) {
            if (g.big && chunks[c] < 7) continue;
            evlist st = {0};
            sdx_error e;
            read_stream(sdx_buf_data(&b), sdx_buf_len(&b), chunks[c], &st, &e);
            CHECK_EQ_INT(e.code, SDX_OK);
            size_t at = evlist_diff(&mem, &st);
            if (!CHECK(at == (size_t)-1)) fprintf(stderr, "  doc %d chunk %zu: event %zu\n", d, chunks[c], at);
            evlist_free(&st);
        }
        evlist_free(&mem);
        evlist_free(&l);
        sdx_buf_destroy(&b);
    }
}

/* Every cut of a document is SDX_ERR_TRUNCATED. The reader is cloned before
 * each event with the input cut anywhere inside that event's bytes
 * (linear time): the error is at the event's first byte. Fresh readers
 * (memory and stream) on cuts check the clone hook's claim. */
TEST(truncation_every_byte) {
    int docs = (int)(100 * test_scale());
    mp_gen g = {4242, 5, 0, 1, 0, 0};
    long cuts = 0;
    for (int d = 0; d < docs; d++) {
        evlist l = {0};
        mp_gen_doc(&g, &l);
        sdx_buf b;
        sdx_buf_init(&b, NULL);
        CHECK_EQ_INT(mp_write_events(&l, &b), SDX_OK);
        const char *data = sdx_buf_data(&b);
        size_t len = sdx_buf_len(&b);
        sdx_msgpack_reader *r = sdx_msgpack_reader_new(data, len, NULL);
        sdx_event ev;
        for (;;) {
            uint64_t o = sdx_msgpack_reader_offset(r);
            /* the end of the item that starts at o: read it on a clone */
            sdx_msgpack_reader *probe = sdx_msgpack_reader_clone_cut(r, len);
            if (!CHECK(probe != NULL)) break;
            int more = sdx_msgpack_reader_next(probe, &ev);
            uint64_t e = sdx_msgpack_reader_offset(probe);
            sdx_msgpack_reader_free(probe);
            if (!more) break;
            for (uint64_t k = o; k < e; k++) {
                sdx_msgpack_reader *c = sdx_msgpack_reader_clone_cut(r, (size_t)k);
                sdx_event ev2;
                CHECK(!sdx_msgpack_reader_next(c, &ev2));
                sdx_error err;
                CHECK_EQ_INT(sdx_msgpack_reader_error(c, &err), SDX_ERR_TRUNCATED);
                CHECK_EQ_U64(err.offset, o);
                sdx_msgpack_reader_free(c);
                cuts++;
            }
            CHECK(sdx_msgpack_reader_next(r, &ev));
        }
        CHECK_EQ_INT(sdx_msgpack_reader_error(r, NULL), SDX_OK);
        sdx_msgpack_reader_free(r);
        /* fresh readers on a sample of cuts */
        for (size_t k = 0; k < len; k += 1 + len / 50) {
            evlist m = {0}, s = {0};
            sdx_msgpack_reader *fr = sdx_msgpack_reader_new(data, k, NULL);
            CHECK_EQ_INT(mp_read_events(fr, &m), SDX_ERR_TRUNCATED);
            sdx_msgpack_reader_free(fr);
            sdx_error e;
            read_stream(data, k, 1 + k % 9, &s, &e);
            CHECK_EQ_INT(e.code, SDX_ERR_TRUNCATED);
            CHECK(e.offset <= k);
            /* the stream reader's events are a prefix of the whole document's */
            for (size_t i = 0; i < s.n && i < l.n; i++)
                if (!CHECK(event_equal(&s.ev[i], &l.ev[i]))) break;
            CHECK(s.n < l.n);
            evlist_free(&m);
            evlist_free(&s);
        }
        evlist_free(&l);
        sdx_buf_destroy(&b);
    }
    CHECK(cuts > 1000);
}

/* Random byte flips: any result, but a clean one (the sanitizers watch). */
TEST(byte_flips) {
    int docs = (int)(300 * test_scale());
    mp_gen g = {99, 5, 0, 1, 0, 0};
    uint64_t rng = 5;
    for (int d = 0; d < docs; d++) {
        evlist l = {0};
        mp_gen_doc(&g, &l);
        sdx_buf b;
        sdx_buf_init(&b, NULL);
        mp_write_events(&l, &b);
        size_t len = sdx_buf_len(&b);
        char *m = malloc(len);
        for (int t = 0; t < 20; t++) {
            memcpy(m, sdx_buf_data(&b), len);
            int flips = 1 + (int)(test_rand(&rng) % 4);
            for (int f = 0; f < flips; f++) {
                size_t at = (size_t)(test_rand(&rng) % len);
                m[at] ^= (char)(1 + test_rand(&rng) % 255);
            }
            sdx_msgpack_reader *r = sdx_msgpack_reader_new(m, len, NULL);
            sdx_event ev;
            uint32_t depth = 0;
            while (sdx_msgpack_reader_next(r, &ev)) {
                if (ev.kind == SDX_STR || ev.kind == SDX_BIN || ev.kind == SDX_KEY)
                    CHECK(ev.v.str.ptr >= m && ev.v.str.ptr + ev.v.str.len <= m + len);
                depth = ev.depth;
            }
            (void)depth;
            sdx_error e;
            if (sdx_msgpack_reader_error(r, &e)) CHECK(e.offset <= len && e.msg);
            sdx_msgpack_reader_free(r);
            evlist s = {0};
            read_stream(m, len, 3, &s, &e);
            evlist_free(&s);
        }
        free(m);
        evlist_free(&l);
        sdx_buf_destroy(&b);
    }
}

/* ------------------------------------------------------------------------ */
/* The inline fast path and the exported function                           */
/* ------------------------------------------------------------------------ */

/* Read everything with the inline path (the macro) or with the exported
 * function; the events, the error (code, message, offset) and the final
 * offset into *l, *e, *end. */
static void read_with(const char *data, size_t len, const sdx_msgpack_read_opts *o, size_t chunk,
                      int exported, evlist *l, sdx_error *e, uint64_t *end) {
    mp_mem_stream st = {data, len, chunk, -1};
    sdx_msgpack_reader *r = chunk ? sdx_msgpack_reader_new_stream(mp_mem_read, &st, chunk, o)
                                  : sdx_msgpack_reader_new(data, len, o);
    sdx_event ev;
    if (exported) {
        while ((sdx_msgpack_reader_next)(r, &ev)) evlist_push(l, &ev);
    } else {
        while (sdx_msgpack_reader_next(r, &ev)) evlist_push(l, &ev);
    }
    sdx_msgpack_reader_error(r, e);
    *end = sdx_msgpack_reader_offset(r);
    sdx_msgpack_reader_free(r);
}

/* Both ways give the same; returns whether they did. */
static int paths_agree(const char *data, size_t len, const sdx_msgpack_read_opts *o, size_t chunk) {
    evlist a = {0}, b = {0};
    sdx_error ea, eb;
    uint64_t enda, endb;
    read_with(data, len, o, chunk, 0, &a, &ea, &enda);
    read_with(data, len, o, chunk, 1, &b, &eb, &endb);
    int ok = CHECK(evlist_diff(&a, &b) == (size_t)-1) && CHECK_EQ_INT(ea.code, eb.code) &&
             CHECK(ea.msg == eb.msg) && CHECK_EQ_U64(ea.offset, eb.offset) && CHECK_EQ_U64(enda, endb);
    evlist_free(&a);
    evlist_free(&b);
    return ok;
}

/* Strings of every length up to 140 as fixstr and str 8, and some as str
 * 16, plain ASCII and with a byte above 0x7f (valid or not) at the start,
 * the middle or the end, as keys and values; containers nested beyond the
 * reader's inline stack. */
static size_t edge_document(unsigned char *out, size_t cap) {
    size_t n = 0;
    out[n++] = 0xdc; /* array 16 of the entries below */
    size_t count_at = n;
    n += 2;
    unsigned count = 0;
    for (size_t len = 0; len <= 140; len++) {
        for (int variant = 0; variant < 5; variant++) {
            if (n + len + 8 > cap) abort();
            out[n++] = 0x81; /* {string: string} */
            for (int twice = 0; twice < 2; twice++) {
                if (len < 32 && variant != 4) {
                    out[n++] = (unsigned char)(0xa0 | len);
                } else {
                    out[n++] = 0xd9;
                    out[n++] = (unsigned char)len;
                }
                for (size_t i = 0; i < len; i++) out[n + i] = (unsigned char)('a' + i % 26);
                if (len && variant == 1) out[n] = 0xff;                    /* invalid */
                if (len && variant == 2) out[n + len - 1] = 0xc3;          /* cut sequence */
                if (len >= 2 && variant == 3) memcpy(out + n + len / 2 - 1, "\xc3\xa9", 2);
                n += len;
            }
            count++;
        }
    }
    /* str 16, long and short, with the same variants */
    static const size_t long_lens[] = {0, 5, 200, 256, 1000};
    for (size_t li = 0; li < sizeof long_lens / sizeof long_lens[0]; li++) {
        const size_t len = long_lens[li];
        for (int variant = 0; variant < 4; variant++) {
            if (n + 2 * len + 8 > cap) abort();
            out[n++] = 0x81;
            for (int twice = 0; twice < 2; twice++) {
                out[n++] = 0xda;
                out[n++] = (unsigned char)(len >> 8);
                out[n++] = (unsigned char)len;
                for (size_t i = 0; i < len; i++) out[n + i] = (unsigned char)('a' + i % 26);
                if (len && variant == 1) out[n + len / 3] = 0xff;
                if (len && variant == 2) out[n + len - 1] = 0xc3;
                if (len >= 2 && variant == 3) memcpy(out + n + len / 2 - 1, "\xc3\xa9", 2);
                n += len;
            }
            count++;
        }
    }
    /* the nest: 40 levels of [ and {key: ...} alternating, then a scalar */
    for (int depth = 0; depth < 40; depth++) {
        if (depth % 2) {
            out[n++] = 0x91;
        } else {
            out[n++] = 0x81;
            out[n++] = 0xa1;
            out[n++] = 'k';
        }
    }
    out[n++] = 0xcb;
    memcpy(out + n, "\x40\x09\x21\xfb\x54\x44\x2d\x18", 8);
    n += 8;
    count++;
    out[count_at] = (unsigned char)(count >> 8);
    out[count_at + 1] = (unsigned char)count;
    return n;
}

TEST(inline_and_exported_agree) {
    static const size_t chunks[] = {0, 1, 5, 64};
    sdx_msgpack_read_opts opts[] = {{0, 0, NULL},
                                    {SDX_MSGPACK_READ_NO_UTF8_CHECK, 0, NULL},
                                    {0, 3, NULL},
                                    {0, 33, NULL},
                                    {SDX_MSGPACK_READ_STOP_AFTER_VALUE, 0, NULL}};
    size_t nopts = sizeof opts / sizeof *opts;
    /* the edge document, whole and cut, and with bytes changed */
    static unsigned char doc[1 << 17];
    size_t len = edge_document(doc, sizeof doc);
    for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++)
        for (size_t i = 0; i < nopts; i++) paths_agree((const char *)doc, len, &opts[i], chunks[c]);
    for (size_t k = 0; k < len; k += 1 + k / 64) {
        if (!paths_agree((const char *)doc, k, &opts[k % nopts], 0)) break;
        if (!paths_agree((const char *)doc, k, &opts[k % nopts], 1 + k % 7)) break;
    }
    /* every type byte in an array, its payload bytes all 0x00 or 0x01 */
    for (unsigned byte = 0; byte < 256; byte++) {
        unsigned char one[24];
        for (int fill = 0; fill < 2; fill++) {
            one[0] = 0x91;
            one[1] = (unsigned char)byte;
            memset(one + 2, fill, sizeof one - 2);
            for (size_t c = 0; c < 3; c++)
                for (size_t i = 0; i < nopts; i++) paths_agree((const char *)one, sizeof one, &opts[i], chunks[c]);
        }
    }
    uint64_t rng = 11;
    for (int t = 0; t < (int)(200 * test_scale()); t++) {
        size_t at = (size_t)(test_rand(&rng) % len);
        unsigned char keep = doc[at];
        doc[at] = (unsigned char)test_rand(&rng);
        if (!paths_agree((const char *)doc, len, &opts[t % nopts], t % 2 ? 0 : 3)) break;
        doc[at] = keep;
    }
    /* random documents, whole, cut, and with a byte changed */
    mp_gen g = {31337, 6, 0, 1, 0, 0};
    for (int d = 0; d < (int)(100 * test_scale()); d++) {
        evlist l = {0};
        g.big = d % 25 == 0;
        mp_gen_doc(&g, &l);
        sdx_buf b;
        sdx_buf_init(&b, NULL);
        CHECK_EQ_INT(mp_write_events(&l, &b), SDX_OK);
        char *m = malloc(sdx_buf_len(&b) + 1);
        size_t n = sdx_buf_len(&b);
        memcpy(m, sdx_buf_data(&b), n);
        int ok = paths_agree(m, n, &opts[d % nopts], chunks[d % 4]);
        for (size_t k = 0; ok && k < n; k += 1 + n / 40) ok = paths_agree(m, k, &opts[k % nopts], 0);
        for (int t = 0; ok && t < 10; t++) {
            m[test_rand(&rng) % n] ^= (char)(1 + test_rand(&rng) % 255);
            ok = paths_agree(m, n, &opts[t % nopts], t % 2 ? 0 : 7);
        }
        free(m);
        evlist_free(&l);
        sdx_buf_destroy(&b);
        if (!ok) break;
    }
}

/* A string at the end of the input, declared in every head width, 0 to
 * 40 bytes long, ASCII or not, cut at every byte, in a buffer of exactly
 * the input's size (under AddressSanitizer a read past it fails): both
 * paths agree. A 16-byte str 16 with 15 bytes left was once read past the
 * input and delivered whole by the inline path. */
TEST(strings_at_the_end) {
    static const sdx_msgpack_read_opts o = {0, 0, NULL};
    unsigned char full[64];
    for (int width = 0; width < 4; width++) {
        for (size_t len = 0; len <= 40; len++) {
            if (width == 0 && len > 31) break;
            for (int ascii = 0; ascii < 2; ascii++) {
                size_t n = 0;
                full[n++] = 0x91; /* [string] */
                if (width == 0) {
                    full[n++] = (unsigned char)(0xa0 | len);
                } else {
                    size_t bytes = (size_t)1 << (width - 1);
                    full[n++] = (unsigned char)(0xd8 + width);
                    for (size_t i = 0; i < bytes; i++)
                        full[n++] = (unsigned char)(len >> (8 * (bytes - 1 - i)));
                }
                for (size_t i = 0; i < len; i++) full[n++] = (unsigned char)('a' + i % 26);
                if (!ascii && len >= 2) memcpy(full + n - 2, "\xc3\xa9", 2);
                for (size_t cut = 1; cut <= n; cut++) {
                    char *in = malloc(cut);
                    if (!CHECK(in != NULL)) return;
                    memcpy(in, full, cut);
                    int ok = paths_agree(in, cut, &o, 0);
                    free(in);
                    if (!ok) return;
                }
            }
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Options, skip, source, failures                                           */
/* ------------------------------------------------------------------------ */

TEST(sequences) {
    sdx_msgpack_read_opts o = {SDX_MSGPACK_READ_STOP_AFTER_VALUE, 0, NULL};
    EXPECT_OPTS("", "", &o);
    EXPECT_OPTS("01 02 91 03", "i1 i2 [1 i3 ] ", &o);
    EXPECT_OPTS("01 cd 00", "i1 " TRUNC "1", &o);
    EXPECT_OPTS("01 c1", "i1 " SYNTAX "1", &o);
}

TEST(skip_and_source) {
    unsigned char in[32];
    size_t n = mp_unhex("93 92 81 a1 61 91 01 02 a1 62 03", in, sizeof in);
    sdx_msgpack_reader *r = sdx_msgpack_reader_new((const char *)in, n, NULL);
    sdx_source src = sdx_msgpack_reader_source(r);
    sdx_event ev;
    CHECK(sdx_source_next(src, &ev) && ev.kind == SDX_ARRAY);
    CHECK(sdx_source_next(src, &ev) && ev.kind == SDX_ARRAY && ev.depth == 1);
    CHECK(sdx_msgpack_reader_skip(r));
    CHECK_EQ_U64(sdx_source_offset(src), 8);
    CHECK(sdx_source_next(src, &ev) && ev.kind == SDX_STR && ev.depth == 1);
    CHECK(sdx_msgpack_reader_skip(r)); /* after a scalar: nothing */
    CHECK(sdx_source_next(src, &ev) && ev.kind == SDX_INT && ev.v.i == 3);
    CHECK(sdx_source_next(src, &ev) && ev.kind == SDX_END && ev.depth == 0);
    CHECK(!sdx_source_next(src, &ev));
    CHECK_EQ_INT(sdx_source_error(src, NULL), SDX_OK);
    sdx_msgpack_reader_free(r);
    sdx_msgpack_reader_free(NULL);
    /* a NULL input is an empty one */
    r = sdx_msgpack_reader_new(NULL, 5, NULL);
    CHECK(!sdx_msgpack_reader_next(r, &ev));
    CHECK_EQ_INT(sdx_msgpack_reader_error(r, NULL), SDX_ERR_TRUNCATED);
    sdx_msgpack_reader_free(r);
    /* a FILE* */
    FILE *f = tmpfile();
    if (f) {
        fwrite(in, 1, n, f);
        rewind(f);
        r = sdx_msgpack_reader_new_file(f, NULL);
        evlist l = {0};
        CHECK_EQ_INT(mp_read_events(r, &l), SDX_OK);
        CHECK_EQ_U64(l.n, 13);
        evlist_free(&l);
        sdx_msgpack_reader_free(r);
        fclose(f);
    }
}

TEST(io_and_alloc_failures) {
    /* an I/O error at every read */
    unsigned char in[64];
    size_t n = mp_unhex("92 81 a1 61 91 01 d9 20 6161616161616161616161616161616161616161616161616161616161616161",
                        in, sizeof in);
    for (int k = 0; k < 40; k++) {
        mp_mem_stream st = {(const char *)in, n, 2, k};
        sdx_msgpack_reader *r = sdx_msgpack_reader_new_stream(mp_mem_read, &st, 2, NULL);
        evlist l = {0};
        sdx_err e = mp_read_events(r, &l);
        /* 20 reads of 2 bytes, then the one that finds the end */
        CHECK_EQ_INT(e, k <= 20 ? SDX_ERR_IO : SDX_OK);
        evlist_free(&l);
        sdx_msgpack_reader_free(r);
    }
    /* every allocation failing in turn: creation, stack growth, stream
     * buffer growth for a string longer than the chunk */
    size_t deep = 100;
    char *doc = malloc(deep + 300);
    memset(doc, 0x91, deep);
    doc[deep] = (char)0xd9;
    doc[deep + 1] = (char)200;
    memset(doc + deep + 2, 'z', 200);
    size_t len = deep + 202;
    for (int stream = 0; stream < 2; stream++) {
        for (long fail_at = 1;; fail_at++) {
            counting_alloc a;
            counting_alloc_init(&a, fail_at);
            sdx_msgpack_read_opts o = {0, 0, &a.iface};
            mp_mem_stream st = {doc, len, 16, -1};
            sdx_msgpack_reader *r = stream ? sdx_msgpack_reader_new_stream(mp_mem_read, &st, 16, &o)
                                           : sdx_msgpack_reader_new(doc, len, &o);
            if (!r) {
                CHECK_EQ_INT(a.live, 0);
                continue;
            }
            evlist l = {0};
            sdx_err e = mp_read_events(r, &l);
            sdx_msgpack_reader_free(r);
            evlist_free(&l);
            CHECK_EQ_INT(a.live, 0);
            if (fail_at > a.calls) {
                CHECK_EQ_INT(e, SDX_OK);
                break;
            }
            CHECK_EQ_INT(e, SDX_ERR_NOMEM);
        }
    }
    free(doc);
}

TEST(stream_memory_bounded) {
    /* A str declaring 2^32 - 1 bytes in a stream that ends after 10 KiB: the
     * buffer grows with what arrives, not to the declared length. */
    size_t len = 10 * 1024;
    char *doc = calloc(1, len);
    memcpy(doc, "\xdb\xff\xff\xff\xff", 5);
    memset(doc + 5, 'a', len - 5);
    counting_alloc a;
    counting_alloc_init(&a, 0);
    sdx_msgpack_read_opts o = {0, 0, &a.iface};
    mp_mem_stream st = {doc, len, 256, -1};
    sdx_msgpack_reader *r = sdx_msgpack_reader_new_stream(mp_mem_read, &st, 256, &o);
    sdx_event ev;
    CHECK(!sdx_msgpack_reader_next(r, &ev));
    sdx_error e;
    CHECK_EQ_INT(sdx_msgpack_reader_error(r, &e), SDX_ERR_TRUNCATED);
    CHECK_EQ_U64(e.offset, 0);
    CHECK(a.live_bytes < 4 * len);
    sdx_msgpack_reader_free(r);
    free(doc);
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){{"scalars", scalars},
                                  {"strings_binaries_ext", strings_binaries_ext},
                                  {"containers_and_depths", containers_and_depths},
                                  {"error_codes_and_offsets", error_codes_and_offsets},
                                  {"depth_limit", depth_limit},
                                  {"streams_match_memory", streams_match_memory},
                                  {"truncation_every_byte", truncation_every_byte},
                                  {"byte_flips", byte_flips},
                                  {"inline_and_exported_agree", inline_and_exported_agree},
                                  {"strings_at_the_end", strings_at_the_end},
                                  {"sequences", sequences},
                                  {"skip_and_source", skip_and_source},
                                  {"io_and_alloc_failures", io_and_alloc_failures},
                                  {"stream_memory_bounded", stream_memory_bounded},
                                  {0, 0}});
}
