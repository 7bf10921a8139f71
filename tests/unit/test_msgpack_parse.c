/* The MessagePack tree parser: the document it builds (types, tags, keys of
 * any type, float 32), the same events as the pull reader, byte-exact
 * round trips through the writer, errors with the reader's codes and
 * offsets, options, and allocation failure. */
#include "alloc_test.h"
#include "msgpack_util.h"
#include "sdx/msgpack.h"
#include "test.h"

/* The document's events (sdx_node_emit) into a list. */
static sdx_err list_put(void *ctx, const sdx_event *ev) {
    evlist_push((evlist *)ctx, ev);
    return SDX_OK;
}
static sdx_err list_finish(void *ctx) {
    (void)ctx;
    return SDX_OK;
}
static void doc_events(sdx_doc *doc, evlist *l) {
    static const sdx_sink_vt vt = {list_put, list_finish};
    sdx_sink sink = {&vt, l};
    CHECK_EQ_INT(sdx_node_emit(sdx_doc_root(doc), sink), SDX_OK);
}

static sdx_doc *parse_hex(const char *hex, unsigned char *buf, size_t cap, size_t *len) {
    *len = mp_unhex(hex, buf, cap);
    sdx_error e;
    sdx_doc *doc = sdx_msgpack_parse((const char *)buf, *len, NULL, &e);
    if (!doc) fprintf(stderr, "  parse error %d at %zu: %s\n", (int)e.code, e.offset, e.msg);
    return doc;
}

TEST(document_values) {
    unsigned char buf[256];
    size_t len;
    sdx_doc *doc = parse_hex("8a a1 61 c0 a1 62 c3 01 cf ff ff ff ff ff ff ff ff"
                             " c2 d3 80 00 00 00 00 00 00 00"
                             " a1 66 ca 3f 00 00 00 a1 64 cb 3f b9 99 99 99 99 99 9a"
                             " c4 01 ff d6 ff 00 00 00 01 92 01 02 c4 02 00 01 d4 05 ee"
                             " a1 73 a1 73 a3 e2 82 ac",
                             buf, sizeof buf, &len);
    if (!CHECK(doc != NULL)) return;
    sdx_node root = sdx_doc_root(doc);
    CHECK_EQ_INT(sdx_node_type(root), SDX_TYPE_MAP);
    CHECK_EQ_U64(sdx_node_len(root), 10);
    CHECK_EQ_U64(sdx_doc_consumed(doc), len);
    sdx_iter it = sdx_iter_init(root);
    sdx_node k, v;
    /* "a": nil */
    CHECK(sdx_iter_next(&it, &k, &v) && sdx_node_type(k) == SDX_TYPE_STR && sdx_node_is_null(v));
    /* "b": true */
    CHECK(sdx_iter_next(&it, &k, &v) && sdx_node_bool(v));
    /* 1: UINT64_MAX (an int key) */
    CHECK(sdx_iter_next(&it, &k, &v) && sdx_node_type(k) == SDX_TYPE_INT && sdx_node_int(k) == 1);
    CHECK(sdx_node_type(v) == SDX_TYPE_UINT && sdx_node_uint(v) == UINT64_MAX);
    /* false: INT64_MIN */
    CHECK(sdx_iter_next(&it, &k, &v) && sdx_node_type(k) == SDX_TYPE_BOOL);
    CHECK(sdx_node_type(v) == SDX_TYPE_INT && sdx_node_int(v) == INT64_MIN);
    /* "f": float 32 0.5 */
    CHECK(sdx_iter_next(&it, &k, &v) && sdx_node_type(v) == SDX_TYPE_DOUBLE && sdx_node_double(v) == 0.5);
    CHECK((v.val->tag & SDX_VAL_FLOAT32) != 0);
    CHECK_EQ_U64(sdx_node_len(v), 0);
    /* "d": 0.1 (float 64) */
    CHECK(sdx_iter_next(&it, &k, &v) && sdx_node_double(v) == 0.1 && !(v.val->tag & SDX_VAL_FLOAT32));
    /* bin ff: timestamp 1 */
    CHECK(sdx_iter_next(&it, &k, &v) && sdx_node_type(k) == SDX_TYPE_BIN);
    uint64_t tag;
    CHECK(sdx_node_type(v) == SDX_TYPE_BIN && sdx_node_tag(v, &tag) == SDX_TAG_MSGPACK_EXT && tag == UINT64_MAX);
    size_t n;
    const char *p = sdx_node_bin(v, &n);
    CHECK(n == 4 && p == (const char *)buf + 50); /* points into the input */
    /* [1, 2]: bin 00 01 (an array key) */
    CHECK(sdx_iter_next(&it, &k, &v) && sdx_node_type(k) == SDX_TYPE_ARRAY && sdx_node_len(k) == 2);
    CHECK(sdx_node_int(sdx_node_index(k, 1)) == 2);
    CHECK(sdx_node_type(v) == SDX_TYPE_BIN && sdx_node_tag(v, NULL) == SDX_TAG_NONE);
    /* ext 5 key: "s" */
    CHECK(sdx_iter_next(&it, &k, &v) && sdx_node_tag(k, &tag) == SDX_TAG_MSGPACK_EXT && tag == 5);
    CHECK(sdx_node_type(v) == SDX_TYPE_STR);
    /* "s": "€" */
    CHECK(sdx_iter_next(&it, &k, &v));
    p = sdx_node_str(v, &n);
    CHECK(n == 3 && memcmp(p, "\xe2\x82\xac", 3) == 0);
    CHECK(!sdx_iter_next(&it, &k, &v));
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_OK);
    /* lookups */
    CHECK(sdx_node_bool(sdx_node_getz(root, "b")));
    sdx_doc_free(doc);

    /* the size classes of containers and strings */
    static const char *const cases[] = {"90", "9f000102030405060708090a0b0c0d0e", "dc 00 00", "dd 00 00 00 01 c0",
                                        "80", "de 00 01 a0 c0", "df 00 00 00 01 c0 c0", "a0", "d9 01 61",
                                        "da 00 01 61", "db 00 00 00 01 61", "c5 00 01 61", "c6 00 00 00 01 61",
                                        "c7 00 01", "c8 00 01 01 61", "c9 00 00 00 01 02 61", "d8 7f 00112233445566778899aabbccddeeff"};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        doc = parse_hex(cases[i], buf, sizeof buf, &len);
        if (!CHECK(doc != NULL)) continue;
        /* same events as the reader */
        evlist a = {0}, b = {0};
        doc_events(doc, &a);
        sdx_msgpack_reader *r = sdx_msgpack_reader_new((const char *)buf, len, NULL);
        mp_read_events(r, &b);
        sdx_msgpack_reader_free(r);
        CHECK(evlist_diff(&a, &b) == (size_t)-1);
        evlist_free(&a);
        evlist_free(&b);
        sdx_doc_free(doc);
    }
}

/* Random documents: the parser's document emits the reader's events, and
 * written back gives the same bytes. */
TEST(random_documents_round_trip) {
    int docs = (int)(500 * test_scale());
    mp_gen g = {2024, 6, 0, 1, 0, 0};
    for (int d = 0; d < docs; d++) {
        evlist l = {0}, got = {0};
        g.big = d % 50 == 0;
        mp_gen_doc(&g, &l);
        sdx_buf b;
        sdx_buf_init(&b, NULL);
        CHECK_EQ_INT(mp_write_events(&l, &b), SDX_OK);
        sdx_error e;
        sdx_doc *doc = sdx_msgpack_parse(sdx_buf_data(&b), sdx_buf_len(&b), NULL, &e);
        if (!CHECK(doc != NULL)) {
            fprintf(stderr, "  doc %d: error %d at %zu\n", d, (int)e.code, e.offset);
            evlist_free(&l);
            sdx_buf_destroy(&b);
            continue;
        }
        CHECK_EQ_INT(e.code, SDX_OK);
        doc_events(doc, &got);
        size_t at = evlist_diff(&l, &got);
        if (!CHECK(at == (size_t)-1)) fprintf(stderr, "  doc %d: event %zu differs\n", d, at);
        /* MessagePack -> document -> MessagePack, byte for byte */
        sdx_buf out;
        sdx_buf_init(&out, NULL);
        sdx_msgpack_writer w;
        sdx_msgpack_writer_init(&w, &out, NULL);
        CHECK_EQ_INT(sdx_node_emit(sdx_doc_root(doc), sdx_msgpack_writer_sink(&w)), SDX_OK);
        CHECK_EQ_INT(sdx_msgpack_writer_finish(&w), SDX_OK);
        CHECK_MEM(sdx_buf_data(&out), sdx_buf_len(&out), sdx_buf_data(&b), sdx_buf_len(&b));
        /* the same through the builder (events of the reader) */
        sdx_doc_builder bld;
        sdx_doc_builder_init(&bld, NULL);
        sdx_msgpack_reader *r = sdx_msgpack_reader_new(sdx_buf_data(&b), sdx_buf_len(&b), NULL);
        sdx_event ev;
        while (sdx_msgpack_reader_next(r, &ev)) sdx_doc_builder_put(&bld, &ev);
        sdx_msgpack_reader_free(r);
        sdx_doc *built = sdx_doc_builder_finish(&bld, NULL);
        if (CHECK(built != NULL)) {
            CHECK(sdx_node_equal(sdx_doc_root(built), sdx_doc_root(doc)));
            sdx_buf_clear(&out);
            sdx_msgpack_writer_init(&w, &out, NULL);
            sdx_node_emit(sdx_doc_root(built), sdx_msgpack_writer_sink(&w));
            CHECK_EQ_INT(sdx_msgpack_writer_finish(&w), SDX_OK);
            CHECK_MEM(sdx_buf_data(&out), sdx_buf_len(&out), sdx_buf_data(&b), sdx_buf_len(&b));
            sdx_doc_free(built);
        }
        sdx_buf_destroy(&out);
        sdx_doc_free(doc);
        evlist_free(&l);
        evlist_free(&got);
        sdx_buf_destroy(&b);
    }
}

/* Errors: the memory reader's code and offset, for every cut of small
 * documents, the listed malformed inputs and random flips. */
static void same_error_as_reader(const char *data, size_t len, const sdx_msgpack_read_opts *o) {
    sdx_msgpack_reader *r = sdx_msgpack_reader_new(data, len, o);
    sdx_event ev;
    while (sdx_msgpack_reader_next(r, &ev)) {
    }
    sdx_error re, pe;
    sdx_err rc = sdx_msgpack_reader_error(r, &re);
    sdx_msgpack_reader_free(r);
    sdx_doc *doc = sdx_msgpack_parse(data, len, o, &pe);
    CHECK_EQ_INT(pe.code, rc);
    CHECK((doc != NULL) == (rc == SDX_OK));
    if (rc) {
        CHECK_EQ_U64(pe.offset, re.offset);
        CHECK(pe.msg != NULL && pe.line == 0 && pe.column == 0);
    }
    sdx_doc_free(doc);
}

TEST(errors_like_the_reader) {
    static const char *const bad[] = {
        "", "c1", "91 c1", "c0 c0", "cd 00", "a3 61 62", "92 01", "82 a1 61 01 a1 62", "83 a1 61 01 a1 62",
        "db ff ff ff ff 61 61 61 61 61", "c6 ff ff ff ff 61 61 61 61 61", "c9 ff ff ff ff 05 61 61 61 61",
        "dd ff ff ff ff c0 c0 c0 c0 c0", "df ff ff ff ff c0 c0 c0 c0 c0", "a2 c3 28", "92 01 a1 ff",
        "d4 ff 00", "c7 0c ff 3b 9a ca 00 00 00 00 00 00 00 00 00", "91 d9", "c7", "c8 00", "d8 01",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        unsigned char in[64];
        size_t n = mp_unhex(bad[i], in, sizeof in);
        sdx_error e;
        CHECK(sdx_msgpack_parse((const char *)in, n, NULL, &e) == NULL);
        CHECK(e.code != SDX_OK);
        same_error_as_reader((const char *)in, n, NULL);
    }
    /* every cut of generated documents, and flips */
    mp_gen g = {8, 5, 0, 1, 0, 600};
    uint64_t rng = 3;
    int docs = (int)(60 * test_scale());
    for (int d = 0; d < docs; d++) {
        evlist l = {0};
        mp_gen_doc(&g, &l);
        sdx_buf b;
        sdx_buf_init(&b, NULL);
        mp_write_events(&l, &b);
        const char *data = sdx_buf_data(&b);
        size_t len = sdx_buf_len(&b);
        for (size_t k = 0; k < len; k += 1 + (len > 3000 ? len / 3000 : 0)) same_error_as_reader(data, k, NULL);
        char *m = malloc(len);
        for (int t = 0; t < 30; t++) {
            memcpy(m, data, len);
            size_t at = (size_t)(test_rand(&rng) % len);
            m[at] ^= (char)(1 + test_rand(&rng) % 255);
            same_error_as_reader(m, len, NULL);
        }
        free(m);
        evlist_free(&l);
        sdx_buf_destroy(&b);
    }
    /* no UTF-8 check */
    sdx_msgpack_read_opts o = {SDX_MSGPACK_READ_NO_UTF8_CHECK, 0, NULL};
    sdx_doc *doc = sdx_msgpack_parse("\xa2\xc3\x28", 3, &o, NULL);
    CHECK(doc != NULL);
    sdx_doc_free(doc);
}

TEST(depth) {
    size_t deep = 1000000;
    char *in = malloc(deep + 1);
    memset(in, 0x91, deep);
    in[deep] = (char)0xc0;
    sdx_error e;
    CHECK(sdx_msgpack_parse(in, deep + 1, NULL, &e) == NULL);
    CHECK_EQ_INT(e.code, SDX_ERR_DEPTH);
    CHECK_EQ_U64(e.offset, SDX_MSGPACK_DEFAULT_MAX_DEPTH);
    sdx_msgpack_read_opts o = {0, 2000000, NULL};
    sdx_doc *doc = sdx_msgpack_parse(in, deep + 1, &o, &e);
    if (CHECK(doc != NULL)) {
        CHECK_EQ_U64(sdx_doc_size(doc), deep + 1);
        CHECK_EQ_U64(sdx_doc_root(doc).val->v.u, deep + 1); /* the root's span */
        /* written back without recursion */
        sdx_buf b;
        sdx_buf_init(&b, NULL);
        sdx_msgpack_writer w;
        sdx_msgpack_writer_init(&w, &b, NULL);
        CHECK_EQ_INT(sdx_node_emit(sdx_doc_root(doc), sdx_msgpack_writer_sink(&w)), SDX_OK);
        CHECK_EQ_INT(sdx_msgpack_writer_finish(&w), SDX_OK);
        CHECK_MEM(sdx_buf_data(&b), sdx_buf_len(&b), in, deep + 1);
        sdx_buf_destroy(&b);
        sdx_doc_free(doc);
    }
    o.max_depth = 3;
    doc = sdx_msgpack_parse("\x91\x91\x91\xc0", 4, &o, &e);
    CHECK(doc != NULL);
    sdx_doc_free(doc);
    CHECK(sdx_msgpack_parse("\x91\x91\x91\x91\xc0", 5, &o, &e) == NULL && e.code == SDX_ERR_DEPTH && e.offset == 3);
    free(in);
}

TEST(options) {
    /* STOP_AFTER_VALUE: the rest is not looked at */
    sdx_msgpack_read_opts o = {SDX_MSGPACK_READ_STOP_AFTER_VALUE, 0, NULL};
    sdx_error e;
    sdx_doc *doc = sdx_msgpack_parse("\x92\x01\x02\xc1\xc1", 5, &o, &e);
    if (CHECK(doc != NULL)) {
        CHECK_EQ_U64(sdx_doc_consumed(doc), 3);
        sdx_doc_free(doc);
    }
    CHECK(sdx_msgpack_parse("\x92\x01\x02\xc1\xc1", 5, NULL, &e) == NULL && e.code == SDX_ERR_SYNTAX && e.offset == 3);
    /* COPY_INPUT: the document outlives the input */
    char *in = malloc(16);
    memcpy(in, "\x92\xa3" "abc\xc4\x02xy", 9);
    o.flags = SDX_MSGPACK_READ_COPY_INPUT;
    doc = sdx_msgpack_parse(in, 9, &o, &e);
    memset(in, 0, 16);
    free(in);
    if (CHECK(doc != NULL)) {
        size_t n;
        const char *s = sdx_node_str(sdx_node_index(sdx_doc_root(doc), 0), &n);
        CHECK_STR(s, n, "abc");
        s = sdx_node_bin(sdx_node_index(sdx_doc_root(doc), 1), &n);
        CHECK_STR(s, n, "xy");
        sdx_doc_free(doc);
    }
    /* NULL input, NULL err */
    CHECK(sdx_msgpack_parse(NULL, 10, NULL, NULL) == NULL);
    CHECK(sdx_msgpack_parse(NULL, 0, NULL, &e) == NULL && e.code == SDX_ERR_TRUNCATED && e.offset == 0);
}

TEST(alloc_failures) {
    /* a document that needs the value array and the frame stack to grow,
     * with and without a copy of the input */
    sdx_buf b;
    sdx_buf_init(&b, NULL);
    sdx_msgpack_writer w;
    sdx_msgpack_writer_init(&w, &b, NULL);
    for (int i = 0; i < 100; i++) sdx_msgpack_writer_begin_array(&w, 1);
    sdx_msgpack_writer_begin_array(&w, 2000);
    for (int k = 0; k < 2000; k++) sdx_msgpack_writer_int(&w, k);
    for (int i = 0; i < 101; i++) sdx_msgpack_writer_end(&w);
    CHECK_EQ_INT(sdx_msgpack_writer_finish(&w), SDX_OK);
    for (int copy = 0; copy < 2; copy++) {
        for (long fail_at = 1;; fail_at++) {
            counting_alloc a;
            counting_alloc_init(&a, fail_at);
            sdx_msgpack_read_opts o = {copy ? SDX_MSGPACK_READ_COPY_INPUT : 0, 0, &a.iface};
            sdx_error e;
            sdx_doc *doc = sdx_msgpack_parse(sdx_buf_data(&b), sdx_buf_len(&b), &o, &e);
            sdx_doc_free(doc);
            CHECK_EQ_INT(a.live, 0);
            if (fail_at > a.calls) {
                CHECK(doc != NULL);
                break;
            }
            CHECK(doc == NULL && e.code == SDX_ERR_NOMEM);
        }
    }
    sdx_buf_destroy(&b);
}

/* The rate of the last document (src/core/doc.c): 12,000 short strings
 * need twice the slots of the parser's first guess (one per 16 bytes), so
 * the first parse grows its value array; the second starts from the
 * first's rate and allocates it once, at about the size it needs. */
TEST(rate_of_last_document) {
    sdx_buf b;
    sdx_buf_init(&b, NULL);
    sdx_msgpack_writer w;
    sdx_msgpack_writer_init(&w, &b, NULL);
    sdx_msgpack_writer_begin_array(&w, 12000);
    for (int k = 0; k < 12000; k++) sdx_msgpack_writer_string(&w, "abcdefg", 7);
    sdx_msgpack_writer_end(&w);
    CHECK_EQ_INT(sdx_msgpack_writer_finish(&w), SDX_OK);
    long grows[2], calls[2];
    sdx_doc *docs[2];
    for (int i = 0; i < 2; i++) {
        counting_alloc a;
        counting_alloc_init(&a, 0);
        sdx_msgpack_read_opts o = {0, 0, &a.iface};
        sdx_error e;
        docs[i] = sdx_msgpack_parse(sdx_buf_data(&b), sdx_buf_len(&b), &o, &e);
        grows[i] = a.grows;
        calls[i] = a.calls;
        CHECK(docs[i] != NULL);
        if (docs[i]) {
            CHECK_EQ_U64(sdx_doc_size(docs[i]), 12001);
            sdx_doc_free(docs[i]);
            docs[i] = NULL;
        }
        CHECK_EQ_INT(a.live, 0);
    }
    CHECK_EQ_INT(grows[1], 0);
    CHECK(calls[1] < calls[0] || grows[0] == 0);
    sdx_buf_destroy(&b);
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){{"document_values", document_values},
                                  {"random_documents_round_trip", random_documents_round_trip},
                                  {"errors_like_the_reader", errors_like_the_reader},
                                  {"depth", depth},
                                  {"options", options},
                                  {"alloc_failures", alloc_failures},
                                  {"rate_of_last_document", rate_of_last_document},
                                  {0, 0}});
}
