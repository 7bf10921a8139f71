/*
 * sdx_<format>_reader_reset: one reader, reset onto input after input, reads
 * every input exactly as a new reader does (the same events, the same end,
 * the same error with its offset, line, column and message), whatever the
 * inputs before it did (errors, deep nesting that grew the stack, long or
 * escaped strings that grew scratch space); it allocates nothing for an
 * input that needs nothing beyond the reader, and gives back what an input
 * made it grow; it keeps the options the reader was made with (a depth
 * limit below the deepest input; JSON's raw numbers, NaN and comments).
 * Six formats, through their sources.
 */
#include <string.h>

#include "alloc_test.h"
#include "sdx/sdx.h"
#include "test.h"

/* One format's reader, behind void pointers. */
typedef struct fmt_ops {
    const char *name;
    void *(*make)(const char *data, size_t len, const sdx_alloc *a);
    void *(*make_stream)(sdx_read_fn read, void *ctx, const sdx_alloc *a);
    sdx_err (*reset)(void *r, const char *data, size_t len);
    sdx_source (*source)(void *r);
    void (*drop)(void *r);
    sdx_err (*encode)(const char *json, size_t n, sdx_buf *out); /* from JSON text */
} fmt_ops;

static size_t no_read(void *ctx, void *buf, size_t cap) {
    (void)ctx, (void)buf, (void)cap;
    return 0;
}

/* The JSON text's events into a writer's sink. */
static sdx_err transcode_json(const char *json, size_t n, sdx_sink sink) {
    sdx_json_read_opts o = {.flags = SDX_JSON_READ_BIGNUM_RAW};
    sdx_json_reader *r = sdx_json_reader_new(json, n, &o);
    if (!r) return SDX_ERR_NOMEM;
    sdx_err e = sdx_transcode(sdx_json_reader_source(r), sink, NULL);
    sdx_json_reader_free(r);
    return e;
}

#define FORMAT_OPS(F, OPTS_T, STREAM_MAKE)                                                                  \
    static void *F##_make(const char *data, size_t len, const sdx_alloc *a) {                                \
        OPTS_T o = {.max_depth = 200, .alloc = a};                                                            \
        return sdx_##F##_reader_new(data, len, &o);                                                          \
    }                                                                                                         \
    static void *F##_make_stream(sdx_read_fn read, void *ctx, const sdx_alloc *a) {                          \
        OPTS_T o = {.alloc = a};                                                                              \
        return STREAM_MAKE;                                                                                   \
    }                                                                                                         \
    static sdx_err F##_reset(void *r, const char *data, size_t len) {                                        \
        return sdx_##F##_reader_reset(r, data, len);                                                         \
    }                                                                                                         \
    static sdx_source F##_source(void *r) { return sdx_##F##_reader_source(r); }                             \
    static void F##_drop(void *r) { sdx_##F##_reader_free(r); }                                              \
    static sdx_err F##_encode(const char *json, size_t n, sdx_buf *out) {                                    \
        sdx_##F##_writer w;                                                                                   \
        sdx_err e = sdx_##F##_writer_init(&w, out, NULL);                                                     \
        if (!e) e = transcode_json(json, n, sdx_##F##_writer_sink(&w));                                       \
        sdx_err f = sdx_##F##_writer_finish(&w);                                                              \
        return e ? e : f;                                                                                     \
    }

FORMAT_OPS(msgpack, sdx_msgpack_read_opts, sdx_msgpack_reader_new_stream(read, ctx, 0, &o))
FORMAT_OPS(cbor, sdx_cbor_read_opts, sdx_cbor_reader_new_stream(read, ctx, 0, &o))
FORMAT_OPS(ubjson, sdx_ubjson_read_opts, sdx_ubjson_reader_new_stream(read, ctx, 0, &o))
FORMAT_OPS(bson, sdx_bson_read_opts, sdx_bson_reader_new_stream(read, ctx, &o))
FORMAT_OPS(binn, sdx_binn_read_opts, sdx_binn_reader_new_stream(read, ctx, 0, &o))

/* JSON: read with options, so that the reset must keep them (raw big
 * numbers, NaN, comments); its "encoding" is the text itself. */
static void *json_make(const char *data, size_t len, const sdx_alloc *a) {
    sdx_json_read_opts o = {.flags = SDX_JSON_READ_BIGNUM_RAW | SDX_JSON_READ_NAN_INF | SDX_JSON_READ_COMMENTS,
                            .max_depth = 200,
                            .alloc = a};
    return sdx_json_reader_new(data, len, &o);
}
static void *json_make_stream(sdx_read_fn read, void *ctx, const sdx_alloc *a) {
    sdx_json_read_opts o = {.alloc = a};
    return sdx_json_reader_new_stream(read, ctx, 0, &o);
}
static sdx_err json_reset(void *r, const char *data, size_t len) { return sdx_json_reader_reset(r, data, len); }
static sdx_source json_source(void *r) { return sdx_json_reader_source(r); }
static void json_drop(void *r) { sdx_json_reader_free(r); }
static sdx_err json_encode(const char *json, size_t n, sdx_buf *out) {
    return sdx_buf_write(out, json, n);
}

#define OPS(F) {#F, F##_make, F##_make_stream, F##_reset, F##_source, F##_drop, F##_encode}
static const fmt_ops formats[] = {OPS(json), OPS(msgpack), OPS(cbor), OPS(ubjson), OPS(bson), OPS(binn)};

/* Maps at the top (BSON's documents), and what grows a reader: deep
 * nesting, long strings, escapes (JSON's scratch space), numbers beyond 64
 * bits (JSON raw), non-ASCII text. */
static char *deep_text(int levels, size_t *n) {
    char *t = malloc((size_t)levels * 2 + 16);
    size_t k = 0;
    k += (size_t)sprintf(t, "{\"d\":");
    for (int i = 0; i < levels; i++) t[k++] = '[';
    t[k++] = '1';
    for (int i = 0; i < levels; i++) t[k++] = ']';
    t[k++] = '}';
    t[k] = 0;
    *n = k;
    return t;
}

static char *long_string_text(size_t chars, size_t *n) {
    char *t = malloc(chars * 2 + 32);
    size_t k = (size_t)sprintf(t, "{\"s\":\"");
    for (size_t i = 0; i < chars; i++) {
        if (i % 97 == 0) {
            t[k++] = '\\';
            t[k++] = 'n';
        } else {
            t[k++] = (char)('a' + i % 26);
        }
    }
    k += (size_t)sprintf(t + k, "\",\"t\":1}");
    *n = k;
    return t;
}

static const char *const texts[] = {
    "{}",
    "{\"a\":1,\"b\":[true,false,null],\"c\":\"x\"}",
    "{\"id\":138586341,\"name\":\"30th Anniversary Tour\",\"topicIds\":[324846099,107888604],\"logo\":null}",
    "{\"n\":-9223372036854775808,\"u\":9223372036854775807,\"d\":0.1,\"e\":-1.5e300,\"z\":-0.0}",
    "{\"t\":\"\\u00e9t\\u00e9 \\u3042 \\ud83d\\ude00\",\"k\\\"q\":{\"x\":[[],{},[{}]]}}",
    "{\"m\":{\"a\":{\"b\":{\"c\":{\"d\":[1,2,3,{\"e\":\"f\"}]}}}},\"list\":[1,\"two\",3.5,[4]]}",
};

/* JSON only: what only the kept reader's options (raw big numbers, NaN,
 * comments) make valid. */
static const char json_options_text[] = "{\"a\":NaN,/* c */\"b\":-Infinity,\"big\":123456789012345678901234567890}";

/* Whether two events are the same. */
static int same_event(const sdx_event *a, const sdx_event *b) {
    if (a->kind != b->kind || a->tag_kind != b->tag_kind || a->flags != b->flags || a->depth != b->depth ||
        a->tag != b->tag)
        return 0;
    switch (a->kind) {
    case SDX_BOOL: return a->v.b == b->v.b;
    case SDX_INT:
    case SDX_UINT:
    case SDX_NINT:
    case SDX_DOUBLE: return a->v.u == b->v.u;
    case SDX_STR:
    case SDX_BIN:
    case SDX_KEY:
    case SDX_RAW:
        return a->v.str.len == b->v.str.len && (!a->v.str.len || !memcmp(a->v.str.ptr, b->v.str.ptr, a->v.str.len));
    case SDX_ARRAY:
    case SDX_MAP: return a->v.count == b->v.count;
    default: return 1;
    }
}

/* Read the input with the new reader `fresh` and the reset reader `kept`
 * side by side; every event, the end and the error must agree. */
static void agree(const fmt_ops *f, void *fresh, void *kept, const char *what, size_t at) {
    sdx_source a = f->source(fresh), b = f->source(kept);
    long events = 0;
    for (;;) {
        sdx_event ea, eb;
        bool ga = sdx_source_next(a, &ea), gb = sdx_source_next(b, &eb);
        if (!CHECK(ga == gb)) break;
        if (!ga) break;
        if (!CHECK(same_event(&ea, &eb))) break;
        if (!CHECK(sdx_source_offset(a) == sdx_source_offset(b))) break;
        events++;
    }
    sdx_error xa, xb;
    memset(&xa, 0, sizeof xa);
    memset(&xb, 0, sizeof xb);
    sdx_err ca = sdx_source_error(a, &xa), cb = sdx_source_error(b, &xb);
    if (!CHECK(ca == cb && xa.code == xb.code && xa.offset == xb.offset && xa.line == xb.line &&
               xa.column == xb.column && ((!xa.msg && !xb.msg) || (xa.msg && xb.msg && !strcmp(xa.msg, xb.msg)))))
        fprintf(stderr, "  %s %s (%zu): %d@%zu vs %d@%zu after %ld events\n", f->name, what, at, (int)xa.code,
                xa.offset, (int)xb.code, xb.offset, events);
}

/* Every input of a format: the encodings, their truncations and byte flips. */
TEST(reset_reads_like_new) {
    uint64_t seed = 19;
    for (size_t fi = 0; fi < sizeof formats / sizeof *formats; fi++) {
        const fmt_ops *f = &formats[fi];
        test_current = f->name;
        counting_alloc ca;
        counting_alloc_init(&ca, 0);
        void *kept = NULL;
        size_t ntexts = sizeof texts / sizeof *texts;
        const size_t extra = f->encode == json_encode ? 4 : 3;
        for (size_t ti = 0; ti < ntexts + extra; ti++) {
            size_t tn;
            char *owned = NULL;
            const char *text;
            if (ti < ntexts) text = texts[ti], tn = strlen(text);
            else if (ti == ntexts) text = owned = deep_text(300, &tn);
            else if (ti == ntexts + 1) text = owned = long_string_text(5000, &tn);
            else if (ti == ntexts + 2) text = owned = deep_text(30, &tn);
            else text = json_options_text, tn = strlen(text);
            sdx_buf enc;
            sdx_buf_init(&enc, NULL);
            CHECK_EQ_INT(f->encode(text, tn, &enc), SDX_OK);
            const char *in = sdx_buf_data(&enc);
            const size_t n = sdx_buf_len(&enc);
            char *mut = malloc(n ? n : 1);
            /* the whole input, every prefix, and flips of single bytes */
            for (size_t cut = 0; cut <= n + 8; cut++) {
                size_t len = cut <= n ? cut : n;
                memcpy(mut, in, n);
                const char *what = cut < n ? "prefix" : cut == n ? "whole" : "flip";
                if (cut > n && n) {
                    size_t pos = (size_t)(test_rand(&seed) % n);
                    mut[pos] = (char)(mut[pos] ^ (char)(1u << (test_rand(&seed) % 8)));
                }
                if (!kept) {
                    kept = f->make(mut, len, &ca.iface);
                    if (!CHECK(kept != NULL)) break;
                } else {
                    CHECK_EQ_INT(f->reset(kept, mut, len), SDX_OK);
                }
                void *fresh = f->make(mut, len, NULL);
                agree(f, fresh, kept, what, cut);
                f->drop(fresh);
            }
            free(mut);
            sdx_buf_destroy(&enc);
            free(owned);
        }
        /* nothing for an input that needs nothing beyond the reader, and
         * what a deep or long input grew is given back */
        long calls = ca.calls;
        size_t live = ca.live_bytes;
        const char *small = texts[1];
        sdx_buf enc;
        sdx_buf_init(&enc, NULL);
        f->encode(small, strlen(small), &enc);
        for (int i = 0; i < 3; i++) {
            CHECK_EQ_INT(f->reset(kept, sdx_buf_data(&enc), sdx_buf_len(&enc)), SDX_OK);
            sdx_event ev;
            sdx_source s = f->source(kept);
            while (sdx_source_next(s, &ev)) {
            }
            CHECK_EQ_INT(sdx_source_error(s, NULL), SDX_OK);
        }
        CHECK_EQ_U64(ca.calls, calls);
        CHECK(ca.live_bytes <= live);
        sdx_buf_destroy(&enc);
        f->drop(kept);
        CHECK_EQ_U64(ca.live, 0);
    }
}

/* JSON keeps its space for unescaped strings over a reset up to 8 KiB: one
 * allocation for a run of messages with escapes, none after it; beyond
 * 8 KiB the space is given back. */
TEST(json_reset_keeps_small_scratch) {
    counting_alloc ca;
    counting_alloc_init(&ca, 0);
    sdx_json_read_opts o = {.alloc = &ca.iface};
    static const char msg[] = "{\"text\":\"line\\none \\u00e9\\ud83d\\ude00 \\\"q\\\"\",\"k\\/\":[\"a\\tb\"]}";
    sdx_json_reader *r = sdx_json_reader_new("1", 1, &o);
    if (!CHECK(r != NULL)) return;
    long calls = -1;
    for (int i = 0; i < 5; i++) {
        CHECK_EQ_INT(sdx_json_reader_reset(r, msg, sizeof msg - 1), SDX_OK);
        sdx_event ev;
        int strings = 0;
        while (sdx_json_reader_next(r, &ev)) strings += ev.kind == SDX_STR || ev.kind == SDX_KEY;
        CHECK_EQ_INT(sdx_json_reader_error(r, NULL), SDX_OK);
        CHECK_EQ_INT(strings, 4);
        if (i == 0) calls = ca.calls; /* the reader and its scratch */
    }
    CHECK_EQ_U64(ca.calls, calls);
    /* a string that grows the space beyond 8 KiB: given back at the reset */
    size_t n = 20000;
    char *big = malloc(n + 8);
    big[0] = '"';
    for (size_t i = 1; i < n; i += 2) big[i] = '\\', big[i + 1] = 'n';
    big[n + 1] = '"';
    CHECK_EQ_INT(sdx_json_reader_reset(r, big, n + 2), SDX_OK);
    sdx_event ev;
    CHECK(sdx_json_reader_next(r, &ev));
    size_t grown = ca.live_bytes;
    CHECK_EQ_INT(sdx_json_reader_reset(r, msg, sizeof msg - 1), SDX_OK);
    CHECK(ca.live_bytes + 8192 < grown);
    free(big);
    sdx_json_reader_free(r);
    CHECK_EQ_U64(ca.live, 0);
}

/* A reader of a stream is not reset (and still reads its stream), NULL is an
 * invalid argument. */
TEST(reset_refuses_streams_and_null) {
    for (size_t fi = 0; fi < sizeof formats / sizeof *formats; fi++) {
        const fmt_ops *f = &formats[fi];
        test_current = f->name;
        void *r = f->make_stream(no_read, NULL, NULL);
        if (!CHECK(r != NULL)) continue;
        CHECK_EQ_INT(f->reset(r, "{}", 2), SDX_ERR_USAGE);
        sdx_event ev;
        CHECK(!sdx_source_next(f->source(r), &ev));
        f->drop(r);
        CHECK_EQ_INT(f->reset(NULL, "{}", 2), SDX_ERR_INVALID_ARG);
        /* NULL input with length 0 is an empty input, as for new */
        void *m = f->make("", 0, NULL);
        void *fresh = f->make(NULL, 0, NULL);
        CHECK_EQ_INT(f->reset(m, NULL, 0), SDX_OK);
        agree(f, fresh, m, "null", 0);
        f->drop(fresh);
        f->drop(m);
    }
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){{"reset_reads_like_new", reset_reads_like_new},
                                  {"json_reset_keeps_small_scratch", json_reset_keeps_small_scratch},
                                  {"reset_refuses_streams_and_null", reset_refuses_streams_and_null},
                                  {0, 0}});
}
