/*
 * sdx_<fmt>_writer_node, every format: the direct document walk writes
 * exactly the bytes, and returns exactly the error, that sdx_node_emit into
 * the same writer's sink gives — on random documents with tags of every
 * kind (valid and invalid for each format), float32/float16 doubles,
 * integers below INT64_MIN, raw numbers, binary data, keys that are not
 * strings and containers of every size, for the root and for nodes inside
 * it, with each writer's option flags.
 */
#include <stdio.h>

#include "doc_test.h"

/* One way of writing a node: the event path or the direct walk. */
enum { VIA_EMIT, VIA_NODE };

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
            if (!CHECK_EQ_U64(ea, eb) || !CHECK_MEM(sdx_buf_data(&b), sdx_buf_len(&b), sdx_buf_data(&a),
                                                     sdx_buf_len(&a)))
                fprintf(stderr, "  %s, flags %#x, %s\n", targets[t].name, (unsigned)flags, what);
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
    printf("%ld comparisons of %ld documents, %ld refused by the writer\n", compared, built, failed_writes);
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

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){{"random_documents", random_documents}, {"nil_node", nil_node}, {0}});
}
