/*
 * sdx_<fmt>_writer_node, every format: the direct document walk writes
 * exactly the bytes, and returns exactly the error, that sdx_node_emit into
 * the same writer's sink gives — on random documents with tags of every
 * kind (valid and invalid for each format), float32/float16 doubles,
 * integers below INT64_MIN, raw numbers, binary data, keys that are not
 * strings and containers of every size, for the root and for nodes inside
 * it, with each writer's option flags. After a JSON error only the bytes
 * before the refused value are compared (see same_bytes).
 */
#include <stdio.h>

#include "doc_test.h"
#include "patch_stream.h"

/* One way of writing a node: the event path or the direct walk. */
enum { VIA_EMIT, VIA_NODE };

/* Bytes and patches that went through patchable streams (the counts of
 * compared outputs; the patches, where a writer patched flushed bytes). */
static long patched_outputs, patch_calls;

#define WRITE_WITH(fmt)                                                                     \
    static sdx_err write_##fmt(sdx_node n, uint32_t flags, int via, sdx_buf *b) {           \
        sdx_##fmt##_write_opts o;                                                           \
        memset(&o, 0, sizeof o);                                                            \
        o.flags = flags;                                                                    \
        sdx_##fmt##_writer w;                                                               \
        sdx_err e = sdx_##fmt##_writer_init(&w, b, &o);                                     \
        if (!e) e = via == VIA_EMIT ? sdx_node_emit(n, sdx_##fmt##_writer_sink(&w))         \
                                    : sdx_##fmt##_writer_node(&w, n);                       \
        sdx_err f = sdx_##fmt##_writer_finish(&w);                                          \
        return e ? e : f;                                                                   \
    }
WRITE_WITH(json)
WRITE_WITH(msgpack)
WRITE_WITH(cbor)
WRITE_WITH(bson)
WRITE_WITH(ubjson)
WRITE_WITH(binn)

typedef struct target {
    const char *name;
    sdx_err (*write)(sdx_node, uint32_t, int, sdx_buf *);
    uint32_t flags[4]; /* option sets tried (0 first; unused ones 0) */
} target;

static const target targets[] = {
    {"json", write_json, {0, SDX_JSON_WRITE_BIN_BASE64 | SDX_JSON_WRITE_NAN_AS_NULL,
                          SDX_JSON_WRITE_ESCAPE_UNICODE | SDX_JSON_WRITE_STRINGIFY_KEYS, 0}},
    {"msgpack", write_msgpack, {0, SDX_MSGPACK_WRITE_FLOAT32_EXACT, SDX_MSGPACK_WRITE_FLOAT32, 0}},
    {"cbor", write_cbor, {0, SDX_CBOR_WRITE_DETERMINISTIC, SDX_CBOR_WRITE_FLOAT64 | SDX_CBOR_WRITE_DEFINITE,
                          SDX_CBOR_WRITE_SELF_DESCRIBE}},
    {"bson", write_bson, {0, SDX_BSON_WRITE_WRAP_ROOT | SDX_BSON_WRITE_BIG_DOUBLE, 0, 0}},
    {"ubjson", write_ubjson, {0, SDX_UBJSON_WRITE_BJDATA, SDX_UBJSON_WRITE_FLOAT32_EXACT, 0}},
    {"binn", write_binn, {0, SDX_BINN_WRITE_FLOAT32_EXACT, SDX_BINN_WRITE_FLOAT32, 0}},
};

/* Both ways must agree on the error and the bytes (written up to the
 * error, too: both make the same calls in the same order). */
static long compared, failed_writes;

/* The direct walk's output b against the event path's a: the same bytes,
 * also after an error, except for JSON (`json`): after an error there one
 * is a prefix of the other. The JSON writer's own walk, handing a refused
 * string back to the writer's calls, has grown the buffer by then, so the
 * refused value's first bytes (its comma, the part of a long string before
 * a piece that needed room) may have been kept in one buffer and not in
 * the other; the bytes before it are the same (json.h says so). */
static int same_bytes(const sdx_buf *b, const sdx_buf *a, sdx_err err, int json) {
    size_t bn = sdx_buf_len(b), an = sdx_buf_len(a);
    if (err && json) {
        size_t m = bn < an ? bn : an;
        return CHECK_MEM(sdx_buf_data(b), m, sdx_buf_data(a), m);
    }
    return CHECK_MEM(sdx_buf_data(b), bn, sdx_buf_data(a), an);
}

static void same_output(sdx_node n, const char *what) {
    for (size_t t = 0; t < sizeof targets / sizeof *targets; t++) {
        for (int k = 0; k < 4; k++) {
            uint32_t flags = targets[t].flags[k];
            if (k && !flags) continue;
            sdx_buf a, b;
            sdx_buf_init(&a, NULL);
            sdx_buf_init(&b, NULL);
            sdx_err ea = targets[t].write(n, flags, VIA_EMIT, &a);
            sdx_err eb = targets[t].write(n, flags, VIA_NODE, &b);
            if (!CHECK_EQ_U64(ea, eb) || !same_bytes(&b, &a, ea, targets[t].write == write_json))
                fprintf(stderr, "  %s, flags %#x, %s\n", targets[t].name, (unsigned)flags, what);
            /* The events into a stream that may patch what it flushed
             * (sdx_buf_set_patch), in small chunks: BSON and Binn then
             * patch their sizes in place instead of holding the value;
             * the same bytes and error. */
            for (size_t chunk = 1; chunk <= 64; chunk *= 8) {
                patch_file f = {0};
                sdx_buf s;
                patch_file_buf(&s, &f, chunk, NULL);
                sdx_err es = targets[t].write(n, flags, VIA_EMIT, &s);
                if (!CHECK_EQ_U64(es, ea) || (!es && !CHECK_MEM(f.p, f.len, sdx_buf_data(&a), sdx_buf_len(&a))))
                    fprintf(stderr, "  %s, flags %#x, %s, patchable stream of %zu\n", targets[t].name,
                            (unsigned)flags, what, chunk);
                patched_outputs++;
                patch_calls += f.patches;
                sdx_buf_destroy(&s);
                free(f.p);
            }
            compared++;
            if (ea) failed_writes++;
            sdx_buf_destroy(&a);
            sdx_buf_destroy(&b);
        }
    }
}

/* Give the generated events the tags and flags the generator leaves out:
 * each format's own tags with values that are valid for it (BSON element
 * types and binary subtypes, UBJSON typed-container markers, Binn types,
 * CBOR simple values and tags) as well as ones that are not, float32 and
 * float16 doubles, and integers below INT64_MIN. */
static void season(rec *r, uint64_t seed) {
    static const uint64_t bson_tags[] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09,
                                         0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12,
                                         0x13, 0x7f, 0xff, 0x0405, 0x8005, 0x0205, 0x99};
    static const uint64_t ubj_tags[] = {'i', 'U', 'I', 'l', 'L', 'd', 'D', 'C', 'S', 'Z', 'T', 'F', 'H', 'B', 'u', '[', '{', 'x'};
    for (size_t i = 0; i < r->n; i++) {
        sdx_event *e = &r->evs[i];
        uint64_t x = test_rand(&seed);
        if (e->kind == SDX_END) continue;
        if (e->kind == SDX_DOUBLE && x % 5 == 0) e->flags = x & 32 ? SDX_EVENT_FLOAT16 : SDX_EVENT_FLOAT32;
        if (e->kind == SDX_UINT && x % 7 == 0) e->kind = SDX_NINT;
        switch ((x >> 8) % 16) {
        case 0: e->tag_kind = SDX_TAG_BSON; e->tag = bson_tags[(x >> 16) % (sizeof bson_tags / 8)]; break;
        case 1: e->tag_kind = SDX_TAG_UBJSON; e->tag = ubj_tags[(x >> 16) % (sizeof ubj_tags / 8)]; break;
        case 2: e->tag_kind = SDX_TAG_BINN; e->tag = (x >> 16) % 3 ? 0x80 + (x >> 20) % 0x80 : 0x1000 + (x >> 20) % 0x100; break;
        case 3: e->tag_kind = SDX_TAG_CBOR_SIMPLE; e->tag = (x >> 16) % 256; break;
        case 4: e->tag_kind = SDX_TAG_CBOR; e->tag = (x >> 16) % 60; break;
        case 5: e->tag_kind = SDX_TAG_MSGPACK_EXT; e->tag = (x >> 16) % 256; break;
        default: break; /* the generator's own (or no) tag */
        }
    }
}

/* Build a document from events; NULL when the builder refuses them. */
static sdx_doc *build(const rec *r) {
    sdx_doc_builder b;
    if (sdx_doc_builder_init(&b, NULL)) return NULL;
    for (size_t i = 0; i < r->n; i++)
        if (sdx_doc_builder_put(&b, &r->evs[i])) break;
    sdx_err e;
    return sdx_doc_builder_finish(&b, &e);
}

TEST(random_documents) {
    long docs = (long)(400 * test_scale());
    gen g;
    memset(&g, 0, sizeof g);
    long built = 0;
    for (long i = 0; i < docs; i++) {
        gen_doc(&g, 0x5eed0000u + (uint64_t)i, 1 + (int)(i % 6), 20 + i % 200);
        if (i % 2) season(&g.out, (uint64_t)i * 7919u);
        sdx_doc *d = build(&g.out);
        if (!d) continue;
        built++;
        char what[64];
        snprintf(what, sizeof what, "document %ld, root", i);
        same_output(sdx_doc_root(d), what);
        /* every direct child of the root, and its key */
        sdx_iter it = sdx_iter_init(sdx_doc_root(d));
        sdx_node k, v;
        int j = 0;
        while (sdx_iter_next(&it, &k, &v) && j < 6) {
            snprintf(what, sizeof what, "document %ld, child %d", i, j++);
            same_output(v, what);
            if (sdx_node_exists(k)) same_output(k, what);
        }
        sdx_doc_free(d);
    }
    rec_free(&g.out);
    CHECK(built > docs / 2);
    /* both outcomes were seen: written and refused */
    CHECK(failed_writes > 0);
    CHECK(failed_writes < compared);
    /* the patchable streams did patch flushed bytes (BSON's lengths and
     * type bytes, Binn's headers) */
    CHECK(patch_calls > 0);
    printf("%ld comparisons of %ld documents, %ld refused by the writer; %ld outputs into patchable "
           "streams, %ld patches of flushed bytes\n",
           compared, built, failed_writes, patched_outputs, patch_calls);
}

TEST(nil_node) {
    sdx_node nil = sdx_node_nil();
    for (size_t t = 0; t < sizeof targets / sizeof *targets; t++) {
        sdx_buf a;
        sdx_buf_init(&a, NULL);
        /* the direct walk reports the nil node as sdx_node_emit does (the
         * writer's finish then has nothing written, which each format
         * reports as it does for an empty output) */
        sdx_err e = targets[t].write(nil, 0, VIA_NODE, &a);
        sdx_err f = targets[t].write(nil, 0, VIA_EMIT, &a);
        CHECK_EQ_U64(e, SDX_ERR_NOT_FOUND);
        CHECK_EQ_U64(f, SDX_ERR_NOT_FOUND);
        sdx_buf_destroy(&a);
    }
}

/* The JSON writer's own walk of a document (minified, into a memory
 * buffer) against the writer's calls (and every other format's walk, with
 * same_output, on the same strings), on what that walk must hand back to
 * them or get exactly right: strings of every length around its inline
 * limit and the kernels' piece size with a byte needing attention (an
 * escape, '/', non-ASCII, invalid UTF-8) at the start, middle or end, as
 * values and as keys; non-finite doubles; deep nesting; empty containers;
 * and a node written as the root, as an array's later element, after a
 * key, and twice in a sequence, with every string and number option. */
static void json_walk_case(sdx_node n, const char *what) {
    static const uint32_t flag_sets[] = {0, SDX_JSON_WRITE_ESCAPE_SLASH, SDX_JSON_WRITE_ESCAPE_UNICODE,
                                         SDX_JSON_WRITE_REPLACE_INVALID_UTF8, SDX_JSON_WRITE_NAN_AS_NULL,
                                         SDX_JSON_WRITE_SEQUENCE};
    for (size_t f = 0; f < sizeof flag_sets / sizeof *flag_sets; f++) {
        for (int ctx = 0; ctx < 4; ctx++) {
            sdx_buf out[2];
            sdx_err err[2];
            for (int via = 0; via < 2; via++) {
                sdx_buf_init(&out[via], NULL);
                sdx_json_write_opts o;
                memset(&o, 0, sizeof o);
                o.flags = flag_sets[f] | (ctx == 3 ? SDX_JSON_WRITE_SEQUENCE : 0);
                sdx_json_writer w;
                sdx_json_writer_init(&w, &out[via], &o);
                if (ctx == 1) {
                    sdx_json_writer_begin_array(&w, 3);
                    sdx_json_writer_int(&w, 1);
                } else if (ctx == 2) {
                    sdx_json_writer_begin_map(&w, 1);
                    sdx_json_writer_key(&w, "k", 1);
                }
                for (int rep = 0; rep < (ctx == 1 || ctx == 3 ? 2 : 1); rep++)
                    via == VIA_EMIT ? sdx_node_emit(n, sdx_json_writer_sink(&w)) : sdx_json_writer_node(&w, n);
                if (ctx == 1 || ctx == 2) sdx_json_writer_end(&w);
                err[via] = sdx_json_writer_finish(&w);
            }
            if (!CHECK_EQ_U64(err[VIA_NODE], err[VIA_EMIT]) ||
                !same_bytes(&out[VIA_NODE], &out[VIA_EMIT], err[VIA_EMIT], 1))
                fprintf(stderr, "  json, flags %#x, context %d, %s\n", (unsigned)flag_sets[f], ctx, what);
            compared++;
            sdx_buf_destroy(&out[0]);
            sdx_buf_destroy(&out[1]);
        }
    }
}

/* A document from an mdoc (which keeps strings as given, valid or not). */
static sdx_doc *mdoc_doc(sdx_mdoc *md) {
    sdx_err e;
    sdx_doc *d = sdx_mdoc_to_doc(md, &e);
    sdx_mdoc_free(md);
    CHECK(d != NULL);
    return d;
}

TEST(json_walk) {
    static const char *const specials[] = {"\"", "\\", "/", "\x01", "\x1f", "\x7f", "\xc3\xa9",
                                           "\xf0\x9f\x98\x80", "\xff", "\xc3"};
    static const size_t lengths[] = {0, 1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 40, 4095, 4096, 4097, 9000};
    char *text = malloc(9100);
    CHECK(text != NULL);
    if (!text) return;
    for (size_t li = 0; li < sizeof lengths / sizeof *lengths; li++) {
        size_t len = lengths[li];
        for (size_t si = 0; si <= sizeof specials / sizeof *specials; si++) {
            for (int at = 0; at < 3; at++) {
                memset(text, 'a', len);
                size_t n = len;
                if (si < sizeof specials / sizeof *specials) {
                    size_t sl = strlen(specials[si]);
                    if (len < sl) continue;
                    size_t i = at == 0 ? 0 : at == 1 ? (len - sl) / 2 : len - sl;
                    memcpy(text + i, specials[si], sl);
                } else if (at) {
                    continue;
                }
                /* ["x", s, {s: s}] and s alone */
                sdx_mdoc *md = sdx_mdoc_new(NULL);
                sdx_mval *arr = sdx_mdoc_array(md), *map = sdx_mdoc_map(md);
                sdx_mval_append(arr, sdx_mdoc_strz(md, "x"));
                sdx_mval_append(arr, sdx_mdoc_str(md, text, n));
                sdx_mval_put(map, sdx_mdoc_str(md, text, n), sdx_mdoc_str(md, text, n));
                sdx_mval_append(arr, map);
                sdx_mdoc_set_root(md, arr);
                sdx_doc *d = mdoc_doc(md);
                char what[96];
                snprintf(what, sizeof what, "string of %zu bytes, special %zu at %d", len, si, at);
                if (d) {
                    json_walk_case(sdx_doc_root(d), what);
                    json_walk_case(sdx_node_index(sdx_doc_root(d), 1), what);
                    same_output(sdx_doc_root(d), what); /* every format's walk */
                    sdx_doc_free(d);
                }
                /* {"k": [s]} and {s: 1}: root maps (BSON's walk takes only
                 * those), with s as a value and as a key */
                for (int as_key = 0; as_key < 2; as_key++) {
                    md = sdx_mdoc_new(NULL);
                    map = sdx_mdoc_map(md);
                    arr = sdx_mdoc_array(md);
                    sdx_mval_append(arr, sdx_mdoc_str(md, text, n));
                    if (as_key) sdx_mval_put(map, sdx_mdoc_str(md, text, n), sdx_mdoc_int(md, 1));
                    else sdx_mval_set(map, "k", 1, arr);
                    sdx_mdoc_set_root(md, map);
                    d = mdoc_doc(md);
                    if (d) {
                        same_output(sdx_doc_root(d), what);
                        sdx_doc_free(d);
                    }
                }
            }
        }
    }
    free(text);

    /* strings the JSON parser marks SDX_VAL_NOESC (read without an escape),
     * copied as they are unless '/' or non-ASCII text is to be escaped,
     * beside ones it does not mark; short and long, as values and keys */
    {
        char json[12000];
        size_t k = 0;
        k += (size_t)snprintf(json + k, sizeof json - k, "{\"a/b\":\"x/y\",\"\u00e9\":\"caf\u00e9\","
                                                         "\"k\\n\":[\"\xc3\xa9t\xc3\xa9\",\"tab\\t\",\"\",\"");
        for (int i = 0; i < 9000; i++) json[k++] = (char)(i % 100 == 99 ? '/' : 'a' + i % 26);
        k += (size_t)snprintf(json + k, sizeof json - k, "\",\"\xe2\x82\xac%s\"]}", "0123456789abcdef/");
        sdx_error perr;
        sdx_doc *pd = sdx_json_parse(json, k, NULL, &perr);
        CHECK(pd != NULL);
        if (pd) {
            sdx_node r = sdx_doc_root(pd);
            CHECK((sdx_node_key_at(r, 0).val->tag & SDX_VAL_NOESC) != 0);
            CHECK((sdx_node_key_at(r, 2).val->tag & SDX_VAL_NOESC) == 0);
            json_walk_case(r, "parsed JSON");
            same_output(r, "parsed JSON");
            /* the flag is not part of a string's value */
            sdx_mdoc *m = sdx_mdoc_from_node(r, NULL);
            sdx_err me;
            sdx_doc *md2 = m ? sdx_mdoc_to_doc(m, &me) : NULL;
            sdx_mdoc_free(m);
            CHECK(md2 != NULL);
            if (md2) {
                CHECK(sdx_node_equal(r, sdx_doc_root(md2)));
                CHECK(sdx_node_exists(sdx_node_getz(sdx_doc_root(md2), "a/b")));
                sdx_doc_free(md2);
            }
            CHECK(sdx_node_exists(sdx_node_getz(r, "a/b")));
            sdx_doc_free(pd);
        }
    }

    /* numbers, empty containers and nesting deeper than the walk's inline stack */
    static const double doubles[] = {0.0, -0.0, 0.1, -1.5e300, 5e-324, 1e21, 123456789.125};
    sdx_mdoc *md = sdx_mdoc_new(NULL);
    sdx_mval *root = sdx_mdoc_map(md), *nums = sdx_mdoc_array(md);
    for (size_t i = 0; i < sizeof doubles / sizeof *doubles; i++) sdx_mval_append(nums, sdx_mdoc_double(md, doubles[i]));
    sdx_mval_append(nums, sdx_mdoc_int(md, INT64_MIN));
    sdx_mval_append(nums, sdx_mdoc_int(md, 0));
    sdx_mval_append(nums, sdx_mdoc_int(md, -1));
    sdx_mval_append(nums, sdx_mdoc_int(md, INT32_MAX));
    sdx_mval_append(nums, sdx_mdoc_int(md, (int64_t)INT32_MAX + 1));
    sdx_mval_append(nums, sdx_mdoc_bin(md, "\0\1", 2));
    /* BSON's int64 (as its parser tags every one), datetime, and tags the
     * walks hand back to the writer's calls */
    sdx_mval_append(nums, sdx_mval_set_tag(sdx_mdoc_int(md, 5), SDX_TAG_BSON, SDX_BSON_INT64));
    sdx_mval_append(nums, sdx_mval_set_tag(sdx_mdoc_int(md, -7), SDX_TAG_BSON, SDX_BSON_DATETIME));
    sdx_mval_append(nums, sdx_mval_set_tag(sdx_mdoc_int(md, 9), SDX_TAG_BSON, SDX_BSON_INT32));
    sdx_mval_set(root, "ts", 2, sdx_mval_set_tag(sdx_mdoc_int(md, 3), SDX_TAG_BSON, SDX_BSON_DATETIME));
    sdx_mval_append(nums, sdx_mdoc_uint(md, UINT64_MAX));
    sdx_mval_append(nums, sdx_mdoc_bool(md, true));
    sdx_mval_append(nums, sdx_mdoc_bool(md, false));
    sdx_mval_append(nums, sdx_mdoc_null(md));
    sdx_mval_set(root, "nums", 4, nums);
    sdx_mval_set(root, "empty array", 11, sdx_mdoc_array(md));
    sdx_mval_set(root, "empty map", 9, sdx_mdoc_map(md));
    sdx_mval *inner = sdx_mdoc_strz(md, "deep");
    for (int i = 0; i < 100; i++) {
        sdx_mval *c = i % 2 ? sdx_mdoc_array(md) : sdx_mdoc_map(md);
        if (i % 2) sdx_mval_append(c, inner);
        else sdx_mval_set(c, "d", 1, inner);
        if (i % 3 == 0 && i % 2) sdx_mval_append(c, sdx_mdoc_array(md));
        inner = c;
    }
    sdx_mval_set(root, "nested", 6, inner);
    sdx_mdoc_set_root(md, root);
    sdx_doc *d = mdoc_doc(md);
    if (d) {
        json_walk_case(sdx_doc_root(d), "numbers and nesting");
        same_output(sdx_doc_root(d), "numbers and nesting");
        sdx_doc_free(d);
    }
    /* BSON's tagged int64 and datetime in a small root map */
    md = sdx_mdoc_new(NULL);
    root = sdx_mdoc_map(md);
    sdx_mval_set(root, "i", 1, sdx_mval_set_tag(sdx_mdoc_int(md, 5), SDX_TAG_BSON, SDX_BSON_INT64));
    sdx_mval_set(root, "t", 1, sdx_mval_set_tag(sdx_mdoc_int(md, 3), SDX_TAG_BSON, SDX_BSON_DATETIME));
    sdx_mdoc_set_root(md, root);
    d = mdoc_doc(md);
    if (d) {
        same_output(sdx_doc_root(d), "BSON int64 and datetime");
        sdx_doc_free(d);
    }
    /* non-finite doubles: refused, or null with SDX_JSON_WRITE_NAN_AS_NULL */
    static const double nonfinite[] = {1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0};
    for (size_t i = 0; i < 3; i++) {
        md = sdx_mdoc_new(NULL);
        sdx_mval *a = sdx_mdoc_array(md);
        sdx_mval_append(a, sdx_mdoc_int(md, 1));
        sdx_mval_append(a, sdx_mdoc_double(md, nonfinite[i]));
        sdx_mdoc_set_root(md, a);
        d = mdoc_doc(md);
        if (d) {
            json_walk_case(sdx_doc_root(d), "non-finite double");
            sdx_doc_free(d);
        }
    }
}

/* Keys of every kind and container sizes around the formats' header
 * widths, for every format's walk: maps with int32 keys (a Binn map),
 * with keys beyond int32 and with keys of two kinds (refused by Binn),
 * object keys of 255 and 256 bytes, strings and containers whose Binn
 * size crosses 127 bytes (the header that shrinks, the content that
 * moves) nested in others, and counts of 127, 128, 255 and 256. */
TEST(keyed_walks) {
    static const int64_t int_keys[] = {0, 1, -1, 127, 128, INT32_MAX, INT32_MIN, 65536};
    char text[300];
    memset(text, 'k', sizeof text);
    for (int variant = 0; variant < 4; variant++) {
        sdx_mdoc *md = sdx_mdoc_new(NULL);
        sdx_mval *root = sdx_mdoc_array(md), *ints = sdx_mdoc_map(md);
        for (size_t i = 0; i < sizeof int_keys / sizeof *int_keys; i++) {
            sdx_mval *inner = sdx_mdoc_map(md);
            sdx_mval_put(inner, sdx_mdoc_int(md, int_keys[i]), sdx_mdoc_str(md, text, i * 20));
            sdx_mval_put(ints, sdx_mdoc_int(md, int_keys[i]), i % 2 ? inner : sdx_mdoc_int(md, (int64_t)i));
        }
        if (variant == 1) sdx_mval_put(ints, sdx_mdoc_int(md, (int64_t)INT32_MAX + 1), sdx_mdoc_null(md));
        if (variant == 2) sdx_mval_put(ints, sdx_mdoc_str(md, "s", 1), sdx_mdoc_null(md));
        if (variant == 3) sdx_mval_put(ints, sdx_mdoc_uint(md, UINT64_MAX), sdx_mdoc_null(md));
        sdx_mval_append(root, ints);
        /* a map whose first key is a string and a later one an int */
        sdx_mval *mixed = sdx_mdoc_map(md);
        sdx_mval_set(mixed, "a", 1, sdx_mdoc_int(md, 1));
        if (variant == 2) sdx_mval_put(mixed, sdx_mdoc_int(md, 2), sdx_mdoc_int(md, 2));
        sdx_mval_append(root, mixed);
        sdx_mdoc_set_root(md, root);
        sdx_doc *d = mdoc_doc(md);
        if (d) {
            char what[64];
            snprintf(what, sizeof what, "int keys, variant %d", variant);
            same_output(sdx_doc_root(d), what);
            same_output(sdx_node_index(sdx_doc_root(d), 0), what);
            sdx_doc_free(d);
        }
    }
    /* object keys of 254 to 257 bytes */
    for (size_t kn = 254; kn <= 257; kn++) {
        sdx_mdoc *md = sdx_mdoc_new(NULL);
        sdx_mval *root = sdx_mdoc_map(md);
        sdx_mval_set(root, "x", 1, sdx_mdoc_int(md, 1));
        sdx_mval_put(root, sdx_mdoc_str(md, text, kn), sdx_mdoc_array(md));
        sdx_mdoc_set_root(md, root);
        sdx_doc *d = mdoc_doc(md);
        if (d) {
            same_output(sdx_doc_root(d), "long object key");
            sdx_doc_free(d);
        }
    }
    /* containers of 100 to 160 bytes of content, two deep, and counts
     * around one-byte limits */
    for (size_t size = 100; size <= 160; size++) {
        sdx_mdoc *md = sdx_mdoc_new(NULL);
        sdx_mval *outer = sdx_mdoc_map(md), *list = sdx_mdoc_array(md), *obj = sdx_mdoc_map(md);
        sdx_mval_append(list, sdx_mdoc_str(md, text, size));
        sdx_mval_append(list, sdx_mdoc_int(md, (int64_t)size));
        sdx_mval_set(obj, "s", 1, sdx_mdoc_str(md, text, size - 90));
        sdx_mval_append(list, obj);
        sdx_mval_set(outer, "list", 4, list);
        sdx_mval_set(outer, "tail", 4, sdx_mdoc_str(md, text, size % 7));
        sdx_mdoc_set_root(md, outer);
        sdx_doc *d = mdoc_doc(md);
        if (d) {
            same_output(sdx_doc_root(d), "container sizes around 127 bytes");
            sdx_doc_free(d);
        }
    }
    static const size_t counts[] = {127, 128, 255, 256};
    for (size_t c = 0; c < 4; c++) {
        sdx_mdoc *md = sdx_mdoc_new(NULL);
        sdx_mval *list = sdx_mdoc_array(md), *map = sdx_mdoc_map(md);
        for (size_t i = 0; i < counts[c]; i++) {
            sdx_mval_append(list, sdx_mdoc_int(md, (int64_t)i));
            char k[16];
            int kl = snprintf(k, sizeof k, "%zu", i);
            sdx_mval_set(map, k, (size_t)kl, sdx_mdoc_bool(md, i % 2));
        }
        sdx_mval_append(list, map);
        sdx_mdoc_set_root(md, list);
        sdx_doc *d = mdoc_doc(md);
        if (d) {
            same_output(sdx_doc_root(d), "counts around one-byte limits");
            sdx_doc_free(d);
        }
    }
}

/* Parsed JSON strings at the very end of their input, in a heap block of
 * exactly the input's size: the JSON walk copies a string the parser marked
 * SDX_VAL_NOESC with one 16-byte move, which the mark allows only where 16
 * bytes can be read (AddressSanitizer's finding otherwise). The same for a
 * copy of the document's values (sdx_node_copy, whose strings are packed
 * back to back). The output must be the input, minified as it already is. */
TEST(strings_at_the_end) {
    for (size_t len = 0; len <= 40; len++) {
        for (int shape = 0; shape < 4; shape++) {
            char text[128];
            int tl;
            char s[48];
            memset(s, 'k', len);
            s[len] = 0;
            if (len) s[len - 1] = (char)('a' + (int)(len % 26));
            switch (shape) {
            case 0: tl = snprintf(text, sizeof text, "[\"%s\"]", s); break;
            case 1: tl = snprintf(text, sizeof text, "{\"%s\":1}", s); break;
            case 2: tl = snprintf(text, sizeof text, "{\"a\":\"%s\"}", s); break;
            default: tl = snprintf(text, sizeof text, "\"%s\"", s); break;
            }
            char *in = malloc((size_t)tl);
            CHECK(in != NULL);
            if (!in) return;
            memcpy(in, text, (size_t)tl);
            sdx_error err;
            sdx_doc *d = sdx_json_parse(in, (size_t)tl, NULL, &err);
            CHECK(d != NULL);
            if (d) {
                for (int copy = 0; copy < 2; copy++) {
                    sdx_doc *c = copy ? sdx_node_copy(sdx_doc_root(d), NULL) : NULL;
                    if (copy && !c) {
                        CHECK(c != NULL);
                        continue;
                    }
                    sdx_node root = sdx_doc_root(copy ? c : d);
                    sdx_buf b;
                    sdx_buf_init(&b, NULL);
                    CHECK_EQ_INT(write_json(root, 0, VIA_NODE, &b), SDX_OK);
                    CHECK(sdx_buf_len(&b) == (size_t)tl && memcmp(sdx_buf_data(&b), text, (size_t)tl) == 0);
                    sdx_buf_destroy(&b);
                    sdx_doc_free(c);
                }
                sdx_doc_free(d);
            }
            free(in);
        }
    }
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){{"random_documents", random_documents},
                                  {"nil_node", nil_node},
                                  {"json_walk", json_walk},
                                  {"keyed_walks", keyed_walks},
                                  {"strings_at_the_end", strings_at_the_end},
                                  {0}});
}
