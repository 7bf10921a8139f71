/* The immutable document: layout, lookups, sticky errors, iteration,
 * equality, the builder, emit, copy, deep nesting, allocation failures and
 * sdx_transcode. */
#include <math.h>

#include "core/doc_internal.h"
#include "doc_slots.h"
#include "doc_test.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static sdx_doc *build(const sdx_event *evs, size_t n) {
    sdx_err err = SDX_OK;
    sdx_doc *doc = build_events(evs, n, NULL, &err);
    if (!doc) fprintf(stderr, "  build failed: %s\n", sdx_strerror(err));
    return doc;
}

static sdx_err build_err(const sdx_event *evs, size_t n, const sdx_doc_build_opts *opts) {
    sdx_err err = SDX_OK;
    sdx_doc *doc = build_events(evs, n, opts, &err);
    sdx_doc_free(doc);
    return doc ? SDX_OK : err;
}

static double double_of(uint64_t u) {
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* ------------------------------------------------------------------------ */
/* Nil, getters, sticky errors                                               */
/* ------------------------------------------------------------------------ */

TEST(nil_node) {
    sdx_node nil = sdx_node_nil();
    CHECK(nil.doc == NULL);
    CHECK(nil.val != NULL);
    CHECK(sdx_node_type(nil) == SDX_TYPE_NONE);
    CHECK(!sdx_node_exists(nil));
    CHECK(!sdx_node_is_null(nil));
    CHECK(!sdx_node_is_container(nil));
    CHECK(sdx_node_bool(nil) == false);
    CHECK_EQ_INT(sdx_node_int(nil), 0);
    CHECK_EQ_U64(sdx_node_uint(nil), 0);
    CHECK(sdx_node_double(nil) == 0.0);
    size_t len = 99;
    CHECK(sdx_node_str(nil, &len) == NULL);
    CHECK_EQ_U64(len, 0);
    len = 99;
    CHECK(sdx_node_bin(nil, &len) == NULL);
    CHECK_EQ_U64(len, 0);
    CHECK_EQ_U64(sdx_node_len(nil), 0);
    uint64_t tag = 5;
    CHECK(sdx_node_tag(nil, &tag) == SDX_TAG_NONE);
    CHECK_EQ_U64(tag, 0);
    CHECK(!sdx_node_exists(sdx_node_index(nil, 0)));
    CHECK(!sdx_node_exists(sdx_node_get(nil, "a", 1)));
    CHECK(!sdx_node_exists(sdx_node_getz(nil, "a")));
    CHECK(!sdx_node_exists(sdx_node_key_at(nil, 0)));
    CHECK(!sdx_node_exists(sdx_node_value_at(nil, 0)));
    sdx_iter it = sdx_iter_init(nil);
    sdx_node k, v;
    CHECK(!sdx_iter_next(&it, &k, &v));
    CHECK(!sdx_node_exists(k) && !sdx_node_exists(v));
    CHECK(sdx_node_equal(nil, sdx_node_nil()));
    rec r;
    rec_init(&r);
    CHECK_EQ_INT(sdx_node_emit(nil, rec_sink(&r)), SDX_ERR_NOT_FOUND);
    CHECK_EQ_U64(r.n, 0);
    CHECK(sdx_node_copy(nil, NULL) == NULL);
    sdx_node_flag(nil); /* no document: nothing to flag, no crash */
    /* A NULL document. */
    CHECK(!sdx_node_exists(sdx_doc_root(NULL)));
    CHECK_EQ_INT(sdx_doc_error(NULL), SDX_ERR_INVALID_ARG);
    sdx_doc_clear_error(NULL);
    CHECK_EQ_U64(sdx_doc_size(NULL), 0);
    CHECK_EQ_U64(sdx_doc_consumed(NULL), 0);
    sdx_doc_free(NULL);
}

/* One value of each type, built from events: an array of null, true, -5,
 * 2^63 + 1, 1.5, "hi", binary 00 01 02, a raw number, [] and {}. */
static const sdx_event *every_type_events(size_t *n) {
    static sdx_event evs[16];
    size_t i = 0;
    evs[i++] = ev_array(10);
    evs[i++] = ev_null();
    evs[i++] = ev_bool(true);
    evs[i++] = ev_int(-5);
    evs[i++] = ev_uint(UINT64_C(0x8000000000000001));
    evs[i++] = ev_double(1.5);
    evs[i++] = ev_str("hi");
    evs[i++] = ev_bin("\0\1\2", 3);
    evs[i++] = ev_raw("123456789012345678901234567890");
    evs[i++] = ev_array(0);
    evs[i++] = ev_end();
    evs[i++] = ev_map(0);
    evs[i++] = ev_end();
    evs[i++] = ev_end();
    *n = i;
    return evs;
}

enum { G_BOOL, G_INT, G_UINT, G_DOUBLE, G_STR, G_BIN, G_COUNT };

/* Call getter g on e; returns whether the document's error stayed SDX_OK
 * (and clears it), checking that a failing getter returns zero and flags
 * SDX_ERR_TYPE. */
static bool getter_ok(sdx_node e, int g) {
    sdx_doc_clear_error(e.doc);
    size_t len = 77;
    bool zero = false;
    switch (g) {
    case G_BOOL: zero = !sdx_node_bool(e); break;
    case G_INT: zero = sdx_node_int(e) == 0; break;
    case G_UINT: zero = sdx_node_uint(e) == 0; break;
    case G_DOUBLE: zero = sdx_node_double(e) == 0.0; break;
    case G_STR: zero = sdx_node_str(e, &len) == NULL && len == 0; break;
    case G_BIN: zero = sdx_node_bin(e, &len) == NULL && len == 0; break;
    }
    sdx_err err = sdx_doc_error(e.doc);
    sdx_doc_clear_error(e.doc);
    if (err != SDX_OK) {
        CHECK_EQ_INT(err, SDX_ERR_TYPE);
        CHECK(zero);
    }
    return err == SDX_OK;
}

TEST(getters_on_every_type) {
    size_t n;
    const sdx_event *evs = every_type_events(&n);
    sdx_doc *doc = build(evs, n);
    if (!CHECK(doc != NULL)) return;
    sdx_node root = sdx_doc_root(doc);
    CHECK(sdx_node_type(root) == SDX_TYPE_ARRAY);
    CHECK_EQ_U64(sdx_node_len(root), 10);
    /* Which getters accept each element: bool int uint double str bin. */
    static const struct {
        sdx_type type;
        bool ok[G_COUNT];
        uint64_t len;
    } want[] = {
        {SDX_TYPE_NULL, {0, 0, 0, 0, 0, 0}, 0},   {SDX_TYPE_BOOL, {1, 0, 0, 0, 0, 0}, 0},
        {SDX_TYPE_INT, {0, 1, 0, 1, 0, 0}, 0},    {SDX_TYPE_UINT, {0, 0, 1, 1, 0, 0}, 0},
        {SDX_TYPE_DOUBLE, {0, 0, 0, 1, 0, 0}, 0}, {SDX_TYPE_STR, {0, 0, 0, 0, 1, 1}, 2},
        {SDX_TYPE_BIN, {0, 0, 0, 0, 0, 1}, 3},    {SDX_TYPE_RAW, {0, 0, 0, 0, 1, 0}, 30},
        {SDX_TYPE_ARRAY, {0, 0, 0, 0, 0, 0}, 0},  {SDX_TYPE_MAP, {0, 0, 0, 0, 0, 0}, 0},
    };
    for (size_t i = 0; i < COUNT(want); i++) {
        sdx_node e = sdx_node_index(root, i);
        CHECK_EQ_INT(sdx_node_type(e), want[i].type);
        CHECK(sdx_node_exists(e));
        CHECK(sdx_node_is_null(e) == (want[i].type == SDX_TYPE_NULL));
        CHECK(sdx_node_is_container(e) ==
              (want[i].type == SDX_TYPE_ARRAY || want[i].type == SDX_TYPE_MAP));
        CHECK_EQ_U64(sdx_node_len(e), want[i].len);
        CHECK(sdx_node_tag(e, NULL) == SDX_TAG_NONE);
        for (int g = 0; g < G_COUNT; g++)
            if (!CHECK(getter_ok(e, g) == want[i].ok[g])) fprintf(stderr, "  element %zu getter %d\n", i, g);
    }
    /* The values. */
    CHECK(sdx_node_bool(sdx_node_index(root, 1)) == true);
    CHECK_EQ_INT(sdx_node_int(sdx_node_index(root, 2)), -5);
    CHECK(sdx_node_double(sdx_node_index(root, 2)) == -5.0);
    CHECK_EQ_U64(sdx_node_uint(sdx_node_index(root, 3)), UINT64_C(0x8000000000000001));
    CHECK(sdx_node_double(sdx_node_index(root, 3)) == 9223372036854775808.0);
    CHECK(sdx_node_double(sdx_node_index(root, 4)) == 1.5);
    size_t len;
    const char *s = sdx_node_str(sdx_node_index(root, 5), &len);
    CHECK_STR(s, len, "hi");
    s = sdx_node_str(sdx_node_index(root, 5), NULL); /* len may be NULL */
    CHECK(s != NULL && memcmp(s, "hi", 2) == 0);
    const void *b = sdx_node_bin(sdx_node_index(root, 5), &len);
    CHECK_MEM(b, len, "hi", 2);
    b = sdx_node_bin(sdx_node_index(root, 6), &len);
    CHECK_MEM(b, len, "\0\1\2", 3);
    s = sdx_node_str(sdx_node_index(root, 7), &len);
    CHECK_STR(s, len, "123456789012345678901234567890");
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_OK);
    /* Integer conversions at their limits. */
    sdx_event more[] = {ev_array(4), ev_int(INT64_MIN), ev_int(0), ev_uint(UINT64_MAX),
                        ev_int(INT64_MAX), ev_end()};
    sdx_doc *d2 = build(more, COUNT(more));
    if (CHECK(d2 != NULL)) {
        sdx_node r2 = sdx_doc_root(d2);
        CHECK_EQ_INT(sdx_node_int(sdx_node_index(r2, 0)), INT64_MIN);
        CHECK_EQ_U64(sdx_node_uint(sdx_node_index(r2, 0)), 0);
        CHECK_EQ_INT(sdx_doc_error(d2), SDX_ERR_TYPE);
        sdx_doc_clear_error(d2);
        CHECK_EQ_U64(sdx_node_uint(sdx_node_index(r2, 1)), 0);
        CHECK_EQ_U64(sdx_node_uint(sdx_node_index(r2, 3)), INT64_MAX);
        CHECK_EQ_U64(sdx_node_uint(sdx_node_index(r2, 2)), UINT64_MAX);
        CHECK_EQ_INT(sdx_doc_error(d2), SDX_OK);
        CHECK_EQ_INT(sdx_node_int(sdx_node_index(r2, 2)), 0);
        CHECK_EQ_INT(sdx_doc_error(d2), SDX_ERR_TYPE);
        CHECK(sdx_node_double(sdx_node_index(r2, 2)) == 18446744073709551615.0);
    }
    sdx_doc_free(d2);
    sdx_doc_free(doc);
}

/* A document filled directly, as a parser does: a tagged root, a UINT that
 * fits int64 (readers never store one, getters still accept it), empty
 * strings with NULL pointers, strings pointing into the caller's input. */
TEST(hand_filled_document) {
    static const char input[] = "keyvalue";
    sdx_doc *doc = sdx_doc_alloc(NULL);
    if (!CHECK(doc != NULL)) return;
    CHECK(sdx_doc_block_alloc(doc, SIZE_MAX) == NULL); /* overflow checked */
    CHECK(sdx_doc_block_alloc(doc, SIZE_MAX - SDX_DOC_BLOCK_HEADER + 1) == NULL);
    char *blk = sdx_doc_block_alloc(doc, 3);
    if (!CHECK(blk != NULL)) return;
    memcpy(blk, "xyz", 3);
    CHECK(((uintptr_t)blk % _Alignof(max_align_t)) == 0);
    doc->vals = malloc(10 * sizeof(sdx_val));
    if (!CHECK(doc->vals != NULL)) return;
    doc->vals_cap = 10;
    sdx_val *v = doc->vals;
    v[0].tag = SDX_TYPE__TAG | ((uint64_t)SDX_TAG_CBOR << 8);
    v[0].v.u = 55799;
    v[1].tag = SDX_TYPE_MAP | (3ull << 16);
    v[1].v.u = 7;
    v[2].tag = SDX_TYPE_STR | (3ull << 16);
    v[2].v.s = input;
    v[3].tag = SDX_TYPE_STR | (5ull << 16);
    v[3].v.s = input + 3;
    v[4].tag = SDX_TYPE_STR;
    v[4].v.s = NULL;
    v[5].tag = SDX_TYPE_UINT;
    v[5].v.u = 7;
    v[6].tag = SDX_TYPE_STR | (3ull << 16);
    v[6].v.s = blk;
    v[7].tag = SDX_TYPE_BIN;
    v[7].v.s = NULL;
    doc->nvals = 8;
    doc->consumed = 42;
    CHECK_EQ_U64(sdx_doc_size(doc), 8);
    CHECK_EQ_U64(sdx_doc_consumed(doc), 42);
    sdx_node root = sdx_doc_root(doc);
    CHECK(root.val == &v[1]);
    uint64_t tag = 0;
    CHECK(sdx_node_tag(root, &tag) == SDX_TAG_CBOR);
    CHECK_EQ_U64(tag, 55799);
    size_t len = 9;
    const char *s = sdx_node_str(sdx_node_getz(root, "key"), &len);
    CHECK_STR(s, len, "value");
    s = sdx_node_str(sdx_node_key_at(root, 1), &len);
    CHECK(s != NULL && len == 0); /* empty, never NULL */
    CHECK_EQ_INT(sdx_node_int(sdx_node_get(root, "", 0)), 7);
    CHECK_EQ_INT(sdx_node_int(sdx_node_get(root, NULL, 0)), 7);
    CHECK_EQ_U64(sdx_node_uint(sdx_node_get(root, "", 0)), 7);
    const void *b = sdx_node_bin(sdx_node_get(root, "xyz", 3), &len);
    CHECK(b != NULL && len == 0);
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_OK);
    sdx_node key0 = sdx_node_key_at(root, 0);
    CHECK(sdx_node_tag(key0, NULL) == SDX_TAG_NONE);
    /* The copy owns its bytes and keeps the root's tag. */
    sdx_doc *copy = sdx_node_copy(root, NULL);
    if (CHECK(copy != NULL)) {
        CHECK_EQ_U64(sdx_doc_size(copy), 8);
        CHECK_EQ_U64(sdx_doc_consumed(copy), 0);
        sdx_node cr = sdx_doc_root(copy);
        CHECK(sdx_node_equal(root, cr));
        CHECK(sdx_node_str(sdx_node_getz(cr, "key"), NULL) != input + 3);
        CHECK(sdx_node_tag(cr, &tag) == SDX_TAG_CBOR && tag == 55799);
    }
    sdx_doc_free(copy);
    sdx_doc_free(doc);
}

TEST(sticky_errors) {
    size_t n;
    const sdx_event *evs = every_type_events(&n);
    sdx_doc *doc = build(evs, n);
    if (!CHECK(doc != NULL)) return;
    sdx_node root = sdx_doc_root(doc);
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_OK);
    sdx_node_int(sdx_node_index(root, 5)); /* a string: TYPE */
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_ERR_TYPE);
    sdx_node_index(root, 99); /* NOT_FOUND, but the first error stays */
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_ERR_TYPE);
    sdx_doc_clear_error(doc);
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_OK);
    sdx_node_index(root, 99);
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_ERR_NOT_FOUND);
    sdx_node_get(root, "a", 1); /* not a map: TYPE, not kept */
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_ERR_NOT_FOUND);
    sdx_doc_clear_error(doc);
    /* Successful calls do not clear. */
    sdx_node_bool(root);
    CHECK_EQ_INT(sdx_node_int(sdx_node_index(root, 2)), -5);
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_ERR_TYPE);
    sdx_doc_clear_error(doc);
    /* Every getter and lookup on the nil node of a document returns zero or
     * nil and flags NOT_FOUND. */
    sdx_node missing = sdx_node_index(root, 10);
    CHECK(missing.doc == doc);
    size_t len = 3;
    for (int g = 0; g < 12; g++) {
        sdx_doc_clear_error(doc);
        bool zero = false;
        switch (g) {
        case 0: zero = !sdx_node_bool(missing); break;
        case 1: zero = sdx_node_int(missing) == 0; break;
        case 2: zero = sdx_node_uint(missing) == 0; break;
        case 3: zero = sdx_node_double(missing) == 0.0; break;
        case 4: zero = sdx_node_str(missing, &len) == NULL && len == 0; break;
        case 5: zero = sdx_node_bin(missing, &len) == NULL && len == 0; break;
        case 6: zero = !sdx_node_exists(sdx_node_index(missing, 0)); break;
        case 7: zero = !sdx_node_exists(sdx_node_getz(missing, "a")); break;
        case 8: zero = !sdx_node_exists(sdx_node_key_at(missing, 0)); break;
        case 9: zero = !sdx_node_exists(sdx_node_value_at(missing, 0)); break;
        case 10: {
            sdx_iter it = sdx_iter_init(missing);
            zero = !sdx_iter_next(&it, NULL, NULL);
            break;
        }
        case 11: zero = sdx_node_index(missing, 0).doc == doc; break;
        }
        CHECK(zero);
        if (!CHECK_EQ_INT(sdx_doc_error(doc), SDX_ERR_NOT_FOUND)) fprintf(stderr, "  case %d\n", g);
    }
    sdx_doc_clear_error(doc);
    CHECK(sdx_node_tag(missing, NULL) == SDX_TAG_NONE);
    CHECK_EQ_U64(sdx_node_len(missing), 0);
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_OK); /* no error for these two */
    sdx_node_flag(sdx_node_index(root, 0));
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_ERR_TYPE);
    sdx_doc_free(doc);
}

TEST(lookup_chains) {
    /* {"a": {"b": [10, 20, {"c": "deep"}]}, "n": 1} */
    sdx_event evs[] = {ev_map(2),  ev_key("a"), ev_map(1), ev_key("b"), ev_array(3), ev_int(10),
                       ev_int(20), ev_map(1),   ev_key("c"), ev_str("deep"), ev_end(), ev_end(),
                       ev_end(),   ev_key("n"), ev_int(1), ev_end()};
    sdx_doc *doc = build(evs, COUNT(evs));
    if (!CHECK(doc != NULL)) return;
    sdx_node root = sdx_doc_root(doc);
    size_t len;
    const char *s = sdx_node_str(
        sdx_node_getz(sdx_node_index(sdx_node_getz(sdx_node_getz(root, "a"), "b"), 2), "c"), &len);
    CHECK_STR(s, len, "deep");
    CHECK_EQ_INT(sdx_node_int(sdx_node_index(sdx_node_getz(sdx_node_getz(root, "a"), "b"), 1)), 20);
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_OK);
    /* A missing key early in a chain: nil all the way, one error. */
    sdx_node x = sdx_node_getz(sdx_node_index(sdx_node_getz(sdx_node_getz(root, "zz"), "b"), 2), "c");
    CHECK(!sdx_node_exists(x));
    CHECK(x.doc == doc);
    CHECK_EQ_INT(sdx_node_int(x), 0);
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_ERR_NOT_FOUND);
    sdx_doc_clear_error(doc);
    /* A type error first (index into a map), then missing: TYPE kept. */
    x = sdx_node_getz(sdx_node_index(sdx_node_getz(root, "a"), 0), "q");
    CHECK(!sdx_node_exists(x));
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_ERR_TYPE);
    sdx_doc_clear_error(doc);
    /* A lookup on a scalar: TYPE. */
    CHECK(!sdx_node_exists(sdx_node_getz(sdx_node_getz(root, "n"), "x")));
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_ERR_TYPE);
    sdx_doc_clear_error(doc);
    /* Keys are compared by length and bytes. */
    CHECK(!sdx_node_exists(sdx_node_get(root, "ab", 2)));
    CHECK(!sdx_node_exists(sdx_node_get(root, "", 0)));
    CHECK(!sdx_node_exists(sdx_node_get(root, NULL, 1)));
    CHECK(!sdx_node_exists(sdx_node_getz(root, NULL)));
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_ERR_NOT_FOUND);
    sdx_doc_clear_error(doc);
    CHECK(!sdx_node_exists(sdx_node_getz(sdx_node_getz(root, "n"), NULL)));
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_ERR_TYPE);
    sdx_doc_free(doc);
}

TEST(index_and_entries) {
    /* [tagged 1, [2, [3]], {"k": 4}, 5] and {1: "one", "two": 2, [0]: tagged "z"} */
    sdx_event arr[] = {ev_array(SDX_COUNT_UNKNOWN), ev_tagged(ev_int(1), SDX_TAG_CBOR, 1),
                       ev_array(2), ev_int(2), ev_array(1), ev_int(3), ev_end(), ev_end(),
                       ev_map(1), ev_key("k"), ev_int(4), ev_end(), ev_int(5), ev_end()};
    sdx_doc *doc = build(arr, COUNT(arr));
    if (!CHECK(doc != NULL)) return;
    sdx_node root = sdx_doc_root(doc);
    CHECK_EQ_U64(sdx_node_len(root), 4);
    CHECK_EQ_INT(sdx_node_int(sdx_node_index(root, 0)), 1);
    CHECK_EQ_INT(sdx_node_int(sdx_node_index(sdx_node_index(sdx_node_index(root, 1), 1), 0)), 3);
    CHECK_EQ_INT(sdx_node_int(sdx_node_getz(sdx_node_index(root, 2), "k")), 4);
    CHECK_EQ_INT(sdx_node_int(sdx_node_index(root, 3)), 5);
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_OK);
    CHECK(!sdx_node_exists(sdx_node_index(root, 4)));
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_ERR_NOT_FOUND);
    sdx_doc_clear_error(doc);
    CHECK(!sdx_node_exists(sdx_node_index(root, UINT64_MAX)));
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_ERR_NOT_FOUND);
    sdx_doc_clear_error(doc);
    CHECK(!sdx_node_exists(sdx_node_key_at(root, 0))); /* not a map */
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_ERR_TYPE);
    sdx_doc_clear_error(doc);
    CHECK(!sdx_node_exists(sdx_node_value_at(root, 0)));
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_ERR_TYPE);
    sdx_doc_free(doc);

    sdx_event map[] = {ev_map(3),   ev_int(1),   ev_str("one"), ev_key("two"), ev_int(2),
                       ev_array(1), ev_int(0),   ev_end(),      ev_tagged(ev_str("z"), SDX_TAG_MSGPACK_EXT, 3),
                       ev_end()};
    doc = build(map, COUNT(map));
    if (!CHECK(doc != NULL)) return;
    root = sdx_doc_root(doc);
    CHECK_EQ_U64(sdx_node_len(root), 3);
    CHECK_EQ_INT(sdx_node_int(sdx_node_key_at(root, 0)), 1);
    size_t len;
    const char *s = sdx_node_str(sdx_node_value_at(root, 0), &len);
    CHECK_STR(s, len, "one");
    s = sdx_node_str(sdx_node_key_at(root, 1), &len);
    CHECK_STR(s, len, "two");
    CHECK_EQ_INT(sdx_node_int(sdx_node_value_at(root, 1)), 2);
    CHECK_EQ_INT(sdx_node_int(sdx_node_index(sdx_node_key_at(root, 2), 0)), 0);
    uint64_t tag;
    CHECK(sdx_node_tag(sdx_node_value_at(root, 2), &tag) == SDX_TAG_MSGPACK_EXT && tag == 3);
    CHECK_EQ_INT(sdx_node_int(sdx_node_getz(root, "two")), 2);
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_OK);
    CHECK(!sdx_node_exists(sdx_node_getz(root, "one"))); /* a value, not a key */
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_ERR_NOT_FOUND);
    sdx_doc_clear_error(doc);
    CHECK(!sdx_node_exists(sdx_node_key_at(root, 3)));
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_ERR_NOT_FOUND);
    sdx_doc_clear_error(doc);
    CHECK(!sdx_node_exists(sdx_node_value_at(root, 3)));
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_ERR_NOT_FOUND);
    sdx_doc_clear_error(doc);
    CHECK(!sdx_node_exists(sdx_node_index(root, 0))); /* not an array */
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_ERR_TYPE);
    sdx_doc_free(doc);

    /* Duplicate keys: the first wins; a tagged STR key matches. */
    sdx_event dup[] = {ev_map(3), ev_tagged(ev_key("a"), SDX_TAG_CBOR, 9), ev_int(1), ev_key("a"),
                       ev_int(2), ev_key("b"), ev_int(3), ev_end()};
    doc = build(dup, COUNT(dup));
    if (!CHECK(doc != NULL)) return;
    root = sdx_doc_root(doc);
    CHECK_EQ_INT(sdx_node_int(sdx_node_getz(root, "a")), 1);
    CHECK(sdx_node_tag(sdx_node_key_at(root, 0), &tag) == SDX_TAG_CBOR && tag == 9);
    CHECK_EQ_INT(sdx_node_int(sdx_node_getz(root, "b")), 3);
    sdx_doc_free(doc);
}

TEST(iteration) {
    /* [[], {}, tagged [1, tagged 2], {"a": {"b": []}, 7: tagged null}, "s"] */
    sdx_event evs[] = {ev_array(5),
                       ev_array(0), ev_end(),
                       ev_map(SDX_COUNT_UNKNOWN), ev_end(),
                       ev_tagged(ev_array(2), SDX_TAG_BSON, 4), ev_int(1), ev_tagged(ev_int(2), SDX_TAG_CBOR, 2), ev_end(),
                       ev_map(2), ev_key("a"), ev_map(1), ev_key("b"), ev_array(0), ev_end(), ev_end(),
                       ev_int(7), ev_tagged(ev_null(), SDX_TAG_CBOR, 22), ev_end(),
                       ev_str("s"),
                       ev_end()};
    sdx_doc *doc = build(evs, COUNT(evs));
    if (!CHECK(doc != NULL)) return;
    sdx_node root = sdx_doc_root(doc), k, v;
    sdx_iter it = sdx_iter_init(root);
    int count = 0;
    sdx_type types[5];
    while (sdx_iter_next(&it, &k, &v)) {
        CHECK(!sdx_node_exists(k)); /* arrays: no key */
        if (count < 5) types[count] = sdx_node_type(v);
        count++;
    }
    CHECK_EQ_INT(count, 5);
    CHECK(types[0] == SDX_TYPE_ARRAY && types[1] == SDX_TYPE_MAP && types[2] == SDX_TYPE_ARRAY &&
          types[3] == SDX_TYPE_MAP && types[4] == SDX_TYPE_STR);
    CHECK(!sdx_iter_next(&it, &k, &v)); /* stays at the end */
    CHECK(!sdx_node_exists(v));
    /* Empty containers. */
    for (uint64_t i = 0; i < 2; i++) {
        it = sdx_iter_init(sdx_node_index(root, i));
        CHECK(!sdx_iter_next(&it, &k, &v));
        CHECK(!sdx_node_exists(k) && !sdx_node_exists(v));
    }
    /* Tagged elements come out as the values, tags readable. */
    sdx_node tagged = sdx_node_index(root, 2);
    uint64_t tag;
    CHECK(sdx_node_tag(tagged, &tag) == SDX_TAG_BSON && tag == 4);
    it = sdx_iter_init(tagged);
    CHECK(sdx_iter_next(&it, NULL, &v) && sdx_node_int(v) == 1 && sdx_node_tag(v, NULL) == SDX_TAG_NONE);
    CHECK(sdx_iter_next(&it, NULL, NULL)); /* both outputs optional */
    CHECK(!sdx_iter_next(&it, NULL, &v));
    it = sdx_iter_init(tagged);
    sdx_iter_next(&it, NULL, NULL);
    CHECK(sdx_iter_next(&it, &k, &v) && sdx_node_int(v) == 2);
    CHECK(sdx_node_tag(v, &tag) == SDX_TAG_CBOR && tag == 2);
    /* A map: nested values skipped in O(1), a non-string key, a tagged value. */
    it = sdx_iter_init(sdx_node_index(root, 3));
    size_t len;
    CHECK(sdx_iter_next(&it, &k, &v));
    const char *s = sdx_node_str(k, &len);
    CHECK_STR(s, len, "a");
    CHECK(sdx_node_type(v) == SDX_TYPE_MAP && sdx_node_len(v) == 1);
    CHECK(sdx_iter_next(&it, &k, &v));
    CHECK_EQ_INT(sdx_node_int(k), 7);
    CHECK(sdx_node_is_null(v));
    CHECK(sdx_node_tag(v, &tag) == SDX_TAG_CBOR && tag == 22);
    CHECK(!sdx_iter_next(&it, &k, &v));
    CHECK(!sdx_node_exists(k) && !sdx_node_exists(v));
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_OK);
    /* Iterating a scalar: empty, SDX_ERR_TYPE. */
    it = sdx_iter_init(sdx_node_index(root, 4));
    CHECK(!sdx_iter_next(&it, &k, &v));
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_ERR_TYPE);
    sdx_doc_clear_error(doc);
    it = sdx_iter_init(sdx_node_index(root, 9));
    CHECK(!sdx_iter_next(&it, &k, &v));
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_ERR_NOT_FOUND);
    sdx_doc_free(doc);
}

/* Walking the value array directly with sdx_val_next. */
TEST(val_next_skips_subtrees) {
    /* [tagged [1, [2, 3]], {"k": [4]}, 5, tagged 6] */
    sdx_event evs[] = {ev_array(4),
                       ev_tagged(ev_array(2), SDX_TAG_CBOR, 1), ev_int(1), ev_array(2), ev_int(2), ev_int(3), ev_end(), ev_end(),
                       ev_map(1), ev_key("k"), ev_array(1), ev_int(4), ev_end(), ev_end(),
                       ev_int(5),
                       ev_tagged(ev_int(6), SDX_TAG_CBOR, 2),
                       ev_end()};
    sdx_doc *doc = build(evs, COUNT(evs));
    if (!CHECK(doc != NULL)) return;
    sdx_node root = sdx_doc_root(doc);
    /* slots: [ T [ 1 [ 2 3 { k [ 4 5 T 6 = 14 */
    CHECK_EQ_U64(sdx_doc_size(doc), 14);
    CHECK_EQ_U64(root.val->v.u, 14);
    const sdx_val *p = root.val + 1, *end = sdx_val_next(root.val);
    sdx_type seen[8];
    int n = 0;
    while (p < end) {
        if (SDX_VAL_TYPE(p) == SDX_TYPE__TAG) p++;
        if (n < 8) seen[n] = SDX_VAL_TYPE(p);
        n++;
        p = sdx_val_next(p);
    }
    CHECK(p == end);
    CHECK_EQ_INT(n, 4);
    CHECK(seen[0] == SDX_TYPE_ARRAY && seen[1] == SDX_TYPE_MAP && seen[2] == SDX_TYPE_INT &&
          seen[3] == SDX_TYPE_INT);
    /* The tagged array's span excludes its own tag slot. */
    sdx_node a = sdx_node_index(root, 0);
    CHECK(a.val == root.val + 2);
    CHECK_EQ_U64(a.val->v.u, 5);
    CHECK(SDX_VAL_TYPE(a.val - 1) == SDX_TYPE__TAG);
    CHECK_EQ_U64(sdx_node_index(root, 1).val->v.u, 4);
    sdx_doc_free(doc);
}

/* ------------------------------------------------------------------------ */
/* Equality                                                                  */
/* ------------------------------------------------------------------------ */

/* Build a one-value document from events and compare with another. */
static bool equal_events(const sdx_event *a, size_t an, const sdx_event *b, size_t bn) {
    sdx_doc *da = build(a, an), *db = build(b, bn);
    bool eq = false;
    if (CHECK(da && db)) {
        eq = sdx_node_equal(sdx_doc_root(da), sdx_doc_root(db));
        CHECK(eq == sdx_node_equal(sdx_doc_root(db), sdx_doc_root(da)));
        CHECK(sdx_node_equal(sdx_doc_root(da), sdx_doc_root(da)));
    }
    sdx_doc_free(da);
    sdx_doc_free(db);
    return eq;
}

#define EQ1(x, y) equal_events((sdx_event[]){x}, 1, (sdx_event[]){y}, 1)

TEST(equality) {
    /* Doubles by bit pattern. */
    CHECK(EQ1(ev_double(0.0), ev_double(0.0)));
    CHECK(!EQ1(ev_double(0.0), ev_double(-0.0)));
    CHECK(EQ1(ev_double(NAN), ev_double(NAN)));
    CHECK(!EQ1(ev_double(double_of(0x7ff8000000000000ull)), ev_double(double_of(0x7ff8000000000001ull))));
    CHECK(EQ1(ev_double(double_of(0x7ff8000000000001ull)), ev_double(double_of(0x7ff8000000000001ull))));
    CHECK(!EQ1(ev_double(1.0), ev_int(1)));
    /* Integers: types differ when the values cannot share one. */
    CHECK(EQ1(ev_int(5), ev_uint(5))); /* both stored as INT */
    CHECK(!EQ1(ev_int(-1), ev_uint(UINT64_MAX)));
    CHECK(EQ1(ev_uint(UINT64_MAX), ev_uint(UINT64_MAX)));
    CHECK(!EQ1(ev_int(1), ev_int(2)));
    CHECK(EQ1(ev_bool(true), ev_bool(true)));
    CHECK(!EQ1(ev_bool(true), ev_bool(false)));
    CHECK(EQ1(ev_null(), ev_null()));
    CHECK(!EQ1(ev_null(), ev_bool(false)));
    /* Bytes. */
    CHECK(EQ1(ev_str("abc"), ev_str("abc")));
    CHECK(!EQ1(ev_str("abc"), ev_str("abd")));
    CHECK(!EQ1(ev_str("abc"), ev_str("ab")));
    CHECK(!EQ1(ev_str("abc"), ev_bin("abc", 3)));
    CHECK(!EQ1(ev_str("123"), ev_raw("123")));
    CHECK(EQ1(ev_str(""), ev_str("")));
    CHECK(EQ1(ev_bin("", 0), ev_bin("", 0)));
    /* Tags: kind and number. */
    CHECK(EQ1(ev_tagged(ev_int(1), SDX_TAG_CBOR, 2), ev_tagged(ev_int(1), SDX_TAG_CBOR, 2)));
    CHECK(!EQ1(ev_tagged(ev_int(1), SDX_TAG_CBOR, 2), ev_int(1)));
    CHECK(!EQ1(ev_tagged(ev_int(1), SDX_TAG_CBOR, 2), ev_tagged(ev_int(1), SDX_TAG_CBOR, 3)));
    CHECK(!EQ1(ev_tagged(ev_int(1), SDX_TAG_CBOR, 2), ev_tagged(ev_int(1), SDX_TAG_BSON, 2)));
    /* Containers. */
    sdx_event a1[] = {ev_array(2), ev_int(1), ev_array(1), ev_str("x"), ev_end(), ev_end()};
    sdx_event a2[] = {ev_array(SDX_COUNT_UNKNOWN), ev_int(1), ev_array(SDX_COUNT_UNKNOWN), ev_str("x"), ev_end(), ev_end()};
    sdx_event a3[] = {ev_array(2), ev_int(1), ev_array(1), ev_str("y"), ev_end(), ev_end()};
    sdx_event a4[] = {ev_array(3), ev_int(1), ev_array(1), ev_str("x"), ev_end(), ev_null(), ev_end()};
    sdx_event a5[] = {ev_array(2), ev_int(1), ev_array(1), ev_tagged(ev_str("x"), SDX_TAG_CBOR, 0), ev_end(), ev_end()};
    sdx_event a6[] = {ev_array(2), ev_array(1), ev_int(1), ev_end(), ev_str("x"), ev_end()};
    CHECK(equal_events(a1, COUNT(a1), a2, COUNT(a2)));
    CHECK(!equal_events(a1, COUNT(a1), a3, COUNT(a3)));
    CHECK(!equal_events(a1, COUNT(a1), a4, COUNT(a4)));
    CHECK(!equal_events(a1, COUNT(a1), a5, COUNT(a5)));
    CHECK(!equal_events(a1, COUNT(a1), a6, COUNT(a6)));
    sdx_event m1[] = {ev_map(2), ev_key("a"), ev_int(1), ev_key("b"), ev_int(2), ev_end()};
    sdx_event m2[] = {ev_map(2), ev_key("b"), ev_int(2), ev_key("a"), ev_int(1), ev_end()};
    sdx_event m3[] = {ev_array(4), ev_str("a"), ev_int(1), ev_str("b"), ev_int(2), ev_end()};
    CHECK(!equal_events(m1, COUNT(m1), m2, COUNT(m2))); /* maps in order */
    CHECK(!equal_events(m1, COUNT(m1), m3, COUNT(m3)));
    CHECK(equal_events(m1, COUNT(m1), m1, COUNT(m1)));
    /* Nil against values; subtrees of different documents. */
    sdx_doc *d = build(m1, COUNT(m1));
    if (CHECK(d != NULL)) {
        sdx_node r = sdx_doc_root(d);
        CHECK(!sdx_node_equal(r, sdx_node_nil()));
        CHECK(!sdx_node_equal(sdx_node_nil(), r));
        CHECK(sdx_node_equal(sdx_node_getz(r, "zz"), sdx_node_nil()));
        sdx_doc *e = build((sdx_event[]){ev_int(2)}, 1);
        if (CHECK(e != NULL)) {
            CHECK(sdx_node_equal(sdx_node_getz(r, "b"), sdx_doc_root(e)));
            CHECK(!sdx_node_equal(sdx_node_getz(r, "a"), sdx_doc_root(e)));
        }
        sdx_doc_free(e);
        sdx_doc_clear_error(d);
        sdx_node_equal(r, r);
        CHECK_EQ_INT(sdx_doc_error(d), SDX_OK); /* equality flags nothing */
    }
    sdx_doc_free(d);
}

/* ------------------------------------------------------------------------ */
/* The builder                                                               */
/* ------------------------------------------------------------------------ */

/* The exact slots of a small document. */
TEST(builder_layout) {
    sdx_event evs[] = {ev_map(2), ev_key("ab"), ev_tagged(ev_array(SDX_COUNT_UNKNOWN), SDX_TAG_CBOR, 7),
                       ev_bool(true), ev_null(), ev_end(), ev_int(-1), ev_uint(UINT64_MAX), ev_end()};
    sdx_doc *doc = build(evs, COUNT(evs));
    if (!CHECK(doc != NULL)) return;
    const sdx_val *v = doc->vals;
    CHECK_EQ_U64(doc->nvals, 8);
    CHECK_EQ_U64(v[0].tag, SDX_TYPE_MAP | (2ull << 16));
    CHECK_EQ_U64(v[0].v.u, 8);
    CHECK_EQ_U64(v[1].tag, SDX_TYPE_STR | (2ull << 16));
    CHECK(memcmp(v[1].v.s, "ab", 2) == 0);
    CHECK_EQ_U64(v[2].tag, SDX_TYPE__TAG | ((uint64_t)SDX_TAG_CBOR << 8));
    CHECK_EQ_U64(v[2].v.u, 7);
    CHECK_EQ_U64(v[3].tag, SDX_TYPE_ARRAY | (2ull << 16));
    CHECK_EQ_U64(v[3].v.u, 3);
    CHECK_EQ_U64(v[4].tag, SDX_TYPE_BOOL);
    CHECK_EQ_U64(v[4].v.u, 1);
    CHECK_EQ_U64(v[5].tag, SDX_TYPE_NULL);
    CHECK_EQ_U64(v[6].tag, SDX_TYPE_INT);
    CHECK_EQ_INT(v[6].v.i, -1);
    CHECK_EQ_U64(v[7].tag, SDX_TYPE_UINT);
    CHECK_EQ_U64(v[7].v.u, UINT64_MAX);
    CHECK(SDX_VAL_TYPE(&v[3]) == SDX_TYPE_ARRAY);
    CHECK_EQ_U64(SDX_VAL_LEN(&v[3]), 2);
    sdx_doc_free(doc);
    /* A tagged root: the tag slot comes first. */
    sdx_event t[] = {ev_tagged(ev_str("x"), SDX_TAG_MSGPACK_EXT, UINT64_C(0xffffffffffffff80))};
    doc = build(t, 1);
    if (!CHECK(doc != NULL)) return;
    CHECK_EQ_U64(doc->nvals, 2);
    CHECK(sdx_doc_root(doc).val == doc->vals + 1);
    uint64_t tag;
    CHECK(sdx_node_tag(sdx_doc_root(doc), &tag) == SDX_TAG_MSGPACK_EXT);
    CHECK_EQ_INT((int64_t)tag, -128);
    sdx_doc_free(doc);
}

TEST(builder_every_kind_and_tag) {
    size_t n;
    const sdx_event *base = every_type_events(&n);
    /* Every value tagged, with each tag kind. */
    sdx_event evs[16];
    for (size_t i = 0; i < n; i++) {
        evs[i] = base[i];
        if (base[i].kind != SDX_END)
            evs[i] = ev_tagged(base[i], (sdx_tag_kind)(1 + i % 3), i * 1000 + 1);
    }
    sdx_doc *doc = build(evs, n);
    if (!CHECK(doc != NULL)) return;
    CHECK_EQ_U64(sdx_doc_size(doc), 2 * 11); /* 11 values, each with a tag slot */
    sdx_node root = sdx_doc_root(doc);
    uint64_t tag;
    CHECK(sdx_node_tag(root, &tag) == SDX_TAG_MSGPACK_EXT && tag == 1);
    sdx_iter it = sdx_iter_init(root);
    sdx_node v;
    size_t i = 1;
    while (sdx_iter_next(&it, NULL, &v)) {
        CHECK(sdx_node_tag(v, &tag) == (sdx_tag_kind)(1 + i % 3));
        CHECK_EQ_U64(tag, i * 1000 + 1);
        i += sdx_node_is_container(v) ? 2 : 1;
    }
    rec r;
    rec_init(&r);
    CHECK_EQ_INT(sdx_node_emit(root, rec_sink(&r)), SDX_OK);
    ev_set_depths(evs, n);
    CHECK(rec_equals(&r, evs, n));
    rec_free(&r);
    sdx_doc_free(doc);
}

TEST(builder_counts) {
    /* Declared and unknown counts met. */
    sdx_event ok1[] = {ev_array(2), ev_int(1), ev_map(1), ev_key("a"), ev_null(), ev_end(), ev_end()};
    CHECK_EQ_INT(build_err(ok1, COUNT(ok1), NULL), SDX_OK);
    sdx_event ok2[] = {ev_map(SDX_COUNT_UNKNOWN), ev_key("a"), ev_array(SDX_COUNT_UNKNOWN), ev_end(), ev_end()};
    CHECK_EQ_INT(build_err(ok2, COUNT(ok2), NULL), SDX_OK);
    /* Exceeded: SDX_ERR_USAGE at the extra child. */
    sdx_event ex1[] = {ev_array(1), ev_int(1), ev_int(2), ev_end()};
    CHECK_EQ_INT(build_err(ex1, COUNT(ex1), NULL), SDX_ERR_USAGE);
    sdx_event ex2[] = {ev_map(1), ev_key("a"), ev_int(1), ev_key("b"), ev_int(2), ev_end()};
    CHECK_EQ_INT(build_err(ex2, COUNT(ex2), NULL), SDX_ERR_USAGE);
    sdx_event ex3[] = {ev_array(0), ev_array(0), ev_end(), ev_end()};
    CHECK_EQ_INT(build_err(ex3, COUNT(ex3), NULL), SDX_ERR_USAGE);
    /* Not met: SDX_ERR_USAGE at the END. */
    sdx_event nm1[] = {ev_array(3), ev_int(1), ev_int(2), ev_end()};
    CHECK_EQ_INT(build_err(nm1, COUNT(nm1), NULL), SDX_ERR_USAGE);
    sdx_event nm2[] = {ev_map(2), ev_key("a"), ev_int(1), ev_end()};
    CHECK_EQ_INT(build_err(nm2, COUNT(nm2), NULL), SDX_ERR_USAGE);
    sdx_event nm3[] = {ev_map(UINT64_C(1) << 63), ev_key("a"), ev_int(1), ev_end()};
    CHECK_EQ_INT(build_err(nm3, COUNT(nm3), NULL), SDX_ERR_USAGE);
    sdx_event nm4[] = {ev_array(SDX_COUNT_UNKNOWN - 1), ev_end()};
    CHECK_EQ_INT(build_err(nm4, COUNT(nm4), NULL), SDX_ERR_USAGE);
    /* The error is reported by put at the offending event, and sticks. */
    sdx_doc_builder b;
    CHECK_EQ_INT(sdx_doc_builder_init(&b, NULL), SDX_OK);
    CHECK_EQ_INT(sdx_doc_builder_put(&b, &ex1[0]), SDX_OK);
    CHECK_EQ_INT(sdx_doc_builder_put(&b, &ex1[1]), SDX_OK);
    CHECK_EQ_INT(sdx_doc_builder_put(&b, &ex1[2]), SDX_ERR_USAGE);
    sdx_event end = ev_end();
    CHECK_EQ_INT(sdx_doc_builder_put(&b, &end), SDX_ERR_USAGE);
    sdx_err err = SDX_OK;
    CHECK(sdx_doc_builder_finish(&b, &err) == NULL);
    CHECK_EQ_INT(err, SDX_ERR_USAGE);
}

static sdx_event *nested_events(size_t levels, bool map, size_t *n) {
    sdx_event *evs = malloc((3 * levels + 1) * sizeof *evs);
    if (!evs) abort();
    size_t k = 0;
    for (size_t i = 0; i < levels; i++) {
        evs[k++] = map ? ev_map(SDX_COUNT_UNKNOWN) : ev_array(SDX_COUNT_UNKNOWN);
        if (map) evs[k++] = ev_key("a");
    }
    evs[k++] = ev_int(0);
    for (size_t i = 0; i < levels; i++) evs[k++] = ev_end();
    *n = k;
    return evs;
}

TEST(builder_depth_limit) {
    static const uint32_t limits[] = {1, 2, 16, 17, 100, 0};
    for (size_t i = 0; i < COUNT(limits); i++) {
        uint32_t eff = limits[i] ? limits[i] : 1024;
        sdx_doc_build_opts o = {NULL, limits[i]};
        for (int map = 0; map < 2; map++) {
            size_t n;
            sdx_event *evs = nested_events(eff, map, &n);
            CHECK_EQ_INT(build_err(evs, n, &o), SDX_OK);
            free(evs);
            evs = nested_events(eff + 1, map, &n);
            CHECK_EQ_INT(build_err(evs, n, &o), SDX_ERR_DEPTH);
            free(evs);
        }
    }
    /* A scalar root needs no depth at all. */
    sdx_doc_build_opts o1 = {NULL, 1};
    CHECK_EQ_INT(build_err((sdx_event[]){ev_int(1)}, 1, &o1), SDX_OK);
}

TEST(builder_misuse) {
    /* Events after the root value. */
    CHECK_EQ_INT(build_err((sdx_event[]){ev_int(1), ev_int(2)}, 2, NULL), SDX_ERR_USAGE);
    CHECK_EQ_INT(build_err((sdx_event[]){ev_array(0), ev_end(), ev_end()}, 3, NULL), SDX_ERR_USAGE);
    CHECK_EQ_INT(build_err((sdx_event[]){ev_array(0), ev_end(), ev_null()}, 3, NULL), SDX_ERR_USAGE);
    /* END without a container; a key at the top or in an array; an END
     * after a key; nothing at all; unfinished containers. */
    CHECK_EQ_INT(build_err((sdx_event[]){ev_end()}, 1, NULL), SDX_ERR_USAGE);
    CHECK_EQ_INT(build_err((sdx_event[]){ev_key("a")}, 1, NULL), SDX_ERR_USAGE);
    CHECK_EQ_INT(build_err((sdx_event[]){ev_array(1), ev_key("a"), ev_end()}, 3, NULL), SDX_ERR_USAGE);
    CHECK_EQ_INT(build_err((sdx_event[]){ev_map(1), ev_key("a"), ev_key("b"), ev_end()}, 4, NULL),
                 SDX_ERR_USAGE);
    CHECK_EQ_INT(build_err((sdx_event[]){ev_map(SDX_COUNT_UNKNOWN), ev_key("a"), ev_end()}, 3, NULL),
                 SDX_ERR_USAGE);
    CHECK_EQ_INT(build_err(NULL, 0, NULL), SDX_ERR_USAGE);
    CHECK_EQ_INT(build_err((sdx_event[]){ev_array(1), ev_int(1)}, 2, NULL), SDX_ERR_USAGE);
    /* An unknown kind; bytes without a pointer. */
    sdx_event bad = ev_null();
    bad.kind = 200;
    CHECK_EQ_INT(build_err(&bad, 1, NULL), SDX_ERR_USAGE);
    CHECK_EQ_INT(build_err((sdx_event[]){ev_bytes(SDX_STR, NULL, 3)}, 1, NULL), SDX_ERR_INVALID_ARG);
    CHECK_EQ_INT(build_err((sdx_event[]){ev_bytes(SDX_STR, NULL, 0)}, 1, NULL), SDX_OK);
    CHECK_EQ_INT(build_err((sdx_event[]){ev_bytes(SDX_BIN, "x", (size_t)SDX_VAL_LEN_MAX + 1)}, 1, NULL),
                 SDX_ERR_LIMIT);
    /* A tag on an END is ignored. */
    CHECK_EQ_INT(build_err((sdx_event[]){ev_array(0), ev_tagged(ev_end(), SDX_TAG_CBOR, 1)}, 2, NULL), SDX_OK);
    /* The sink's finish checks for a complete root; finish reports it. */
    sdx_doc_builder b;
    sdx_doc_builder_init(&b, NULL);
    sdx_sink s = sdx_doc_builder_sink(&b);
    sdx_event a = ev_array(SDX_COUNT_UNKNOWN);
    CHECK_EQ_INT(sdx_sink_put(s, &a), SDX_OK);
    CHECK_EQ_INT(sdx_sink_finish(s), SDX_ERR_USAGE);
    sdx_err err = SDX_OK;
    CHECK(sdx_doc_builder_finish(&b, &err) == NULL);
    CHECK_EQ_INT(err, SDX_ERR_USAGE);
    sdx_doc_builder_init(&b, NULL);
    s = sdx_doc_builder_sink(&b);
    sdx_event i = ev_int(3);
    CHECK_EQ_INT(sdx_sink_put(s, &i), SDX_OK);
    CHECK_EQ_INT(sdx_sink_finish(s), SDX_OK);
    sdx_doc *doc = sdx_doc_builder_finish(&b, NULL); /* err may be NULL */
    if (CHECK(doc != NULL)) CHECK_EQ_INT(sdx_node_int(sdx_doc_root(doc)), 3);
    sdx_doc_free(doc);
}

/* Keys of every type, tagged keys, container keys. */
TEST(builder_keys_of_every_type) {
    sdx_event evs[] = {ev_map(SDX_COUNT_UNKNOWN),
                       ev_null(), ev_int(0),
                       ev_bool(false), ev_int(1),
                       ev_int(-2), ev_int(2),
                       ev_uint(UINT64_MAX), ev_int(3),
                       ev_double(0.5), ev_int(4),
                       ev_str("s"), ev_int(5), /* a STR event in key position: a STR key */
                       ev_bin("b", 1), ev_int(6),
                       ev_raw("1e999"), ev_int(7),
                       ev_array(1), ev_int(8), ev_end(), ev_int(8),
                       ev_map(1), ev_key("k"), ev_null(), ev_end(), ev_int(9),
                       ev_tagged(ev_key("t"), SDX_TAG_CBOR, 10), ev_int(10),
                       ev_tagged(ev_int(11), SDX_TAG_MSGPACK_EXT, 11), ev_int(11),
                       ev_end()};
    sdx_doc *doc = build(evs, COUNT(evs));
    if (!CHECK(doc != NULL)) return;
    sdx_node root = sdx_doc_root(doc);
    CHECK_EQ_U64(sdx_node_len(root), 12);
    static const sdx_type kt[] = {SDX_TYPE_NULL, SDX_TYPE_BOOL, SDX_TYPE_INT, SDX_TYPE_UINT,
                                  SDX_TYPE_DOUBLE, SDX_TYPE_STR, SDX_TYPE_BIN, SDX_TYPE_RAW,
                                  SDX_TYPE_ARRAY, SDX_TYPE_MAP, SDX_TYPE_STR, SDX_TYPE_INT};
    for (size_t i = 0; i < COUNT(kt); i++) {
        CHECK_EQ_INT(sdx_node_type(sdx_node_key_at(root, i)), kt[i]);
        CHECK_EQ_INT(sdx_node_int(sdx_node_value_at(root, i)), (int64_t)i);
    }
    uint64_t tag;
    CHECK(sdx_node_tag(sdx_node_key_at(root, 10), &tag) == SDX_TAG_CBOR && tag == 10);
    CHECK(sdx_node_tag(sdx_node_key_at(root, 11), &tag) == SDX_TAG_MSGPACK_EXT && tag == 11);
    CHECK_EQ_INT(sdx_node_int(sdx_node_getz(root, "s")), 5);
    CHECK_EQ_INT(sdx_node_int(sdx_node_getz(root, "t")), 10);
    CHECK_EQ_INT(sdx_doc_error(doc), SDX_OK);
    /* Emitted: STR keys as SDX_KEY, the rest as their own kinds. */
    rec r;
    rec_init(&r);
    CHECK_EQ_INT(sdx_node_emit(root, rec_sink(&r)), SDX_OK);
    sdx_event want[COUNT(evs)];
    memcpy(want, evs, sizeof want);
    want[11] = ev_key("s");
    want[0].v.count = 12;
    want[17].v.count = 1;
    want[21].v.count = 1;
    ev_set_depths(want, COUNT(want));
    CHECK(rec_equals(&r, want, COUNT(want)));
    rec_free(&r);
    /* The JSON writer refuses a non-string key. */
    size_t len;
    sdx_err rc;
    char *json = node_json(root, 0, &len, &rc);
    CHECK(json == NULL);
    CHECK_EQ_INT(rc, SDX_ERR_KEY);
    sdx_doc_free(doc);
}

/* Many strings across chunks, empty strings, large ones with blocks of their
 * own: every byte intact. */
TEST(builder_string_storage) {
    size_t count = 3000, big = 200000;
    char *bigs = malloc(big);
    if (!CHECK(bigs != NULL)) return;
    for (size_t i = 0; i < big; i++) bigs[i] = (char)(i * 7);
    sdx_doc_builder b;
    sdx_doc_builder_init(&b, NULL);
    sdx_event a = ev_array(count + 2), e;
    sdx_doc_builder_put(&b, &a);
    char buf[600];
    for (size_t i = 0; i < count; i++) {
        size_t len = (i * 37) % 600;
        memset(buf, 'a' + (int)(i % 26), len);
        e = ev_bytes(i % 2 ? SDX_BIN : SDX_STR, buf, len);
        sdx_doc_builder_put(&b, &e);
    }
    e = ev_bin(bigs, big);
    sdx_doc_builder_put(&b, &e);
    e = ev_str("tail");
    sdx_doc_builder_put(&b, &e);
    e = ev_end();
    sdx_doc_builder_put(&b, &e);
    sdx_err err;
    sdx_doc *doc = sdx_doc_builder_finish(&b, &err);
    if (CHECK(doc != NULL)) {
        sdx_node root = sdx_doc_root(doc);
        bool ok = true;
        for (size_t i = 0; i < count && ok; i++) {
            size_t len, want = (i * 37) % 600;
            const char *s = sdx_node_bin(sdx_node_index(root, i), &len);
            ok = s && len == want;
            for (size_t k = 0; k < len && ok; k++) ok = s[k] == 'a' + (int)(i % 26);
        }
        CHECK(ok);
        size_t len;
        const void *p = sdx_node_bin(sdx_node_index(root, count), &len);
        CHECK_MEM(p, len, bigs, big);
        const char *s = sdx_node_str(sdx_node_index(root, count + 1), &len);
        CHECK_STR(s, len, "tail");
        CHECK_EQ_INT(sdx_doc_error(doc), SDX_OK);
    }
    sdx_doc_free(doc);
    free(bigs);
}

/* ------------------------------------------------------------------------ */
/* Emit                                                                      */
/* ------------------------------------------------------------------------ */

TEST(emit_events) {
    /* A document's events come back as they went in (counts declared). */
    sdx_event evs[] = {ev_map(4), ev_key("a"), ev_array(3), ev_int(1), ev_double(-0.0), ev_str(""),
                       ev_end(), ev_key(""), ev_map(0), ev_end(), ev_tagged(ev_key("t"), SDX_TAG_CBOR, 1),
                       ev_tagged(ev_map(1), SDX_TAG_BSON, 3), ev_key("x"), ev_raw("1e400"), ev_end(),
                       ev_key("z"), ev_bin("\0", 1), ev_end()};
    ev_set_depths(evs, COUNT(evs));
    sdx_doc *doc = build(evs, COUNT(evs));
    if (!CHECK(doc != NULL)) return;
    rec r;
    rec_init(&r);
    CHECK_EQ_INT(sdx_node_emit(sdx_doc_root(doc), rec_sink(&r)), SDX_OK);
    CHECK(rec_equals(&r, evs, COUNT(evs)));
    CHECK_EQ_INT(r.finished, 0); /* emit does not finish the sink */
    /* A subtree: depth from 0, its own tag included. */
    rec_clear(&r);
    sdx_node sub = sdx_node_getz(sdx_doc_root(doc), "t");
    CHECK_EQ_INT(sdx_node_emit(sub, rec_sink(&r)), SDX_OK);
    sdx_event want[] = {ev_tagged(ev_map(1), SDX_TAG_BSON, 3), ev_key("x"), ev_raw("1e400"), ev_end()};
    ev_set_depths(want, COUNT(want));
    CHECK(rec_equals(&r, want, COUNT(want)));
    /* A scalar. */
    rec_clear(&r);
    CHECK_EQ_INT(sdx_node_emit(sdx_node_getz(sdx_doc_root(doc), "z"), rec_sink(&r)), SDX_OK);
    sdx_event z = ev_bin("\0", 1);
    CHECK(rec_equals(&r, &z, 1));
    /* The sink's first error stops the walk and is returned. */
    for (long k = 1; k <= (long)COUNT(evs); k++) {
        rec_clear(&r);
        r.fail_at = k;
        r.fail_err = SDX_ERR_IO;
        CHECK_EQ_INT(sdx_node_emit(sdx_doc_root(doc), rec_sink(&r)), SDX_ERR_IO);
        CHECK_EQ_U64(r.n, (size_t)k - 1);
        CHECK_EQ_INT(r.puts, k);
    }
    rec_free(&r);
    sdx_doc_free(doc);
}

TEST(emit_json) {
    sdx_event evs[] = {ev_map(3), ev_key("a"), ev_array(SDX_COUNT_UNKNOWN), ev_int(1), ev_int(-2),
                       ev_uint(UINT64_MAX), ev_double(1.5), ev_str("x\n\"y"), ev_bool(true),
                       ev_bool(false), ev_null(), ev_raw("123456789012345678901234567890"),
                       ev_tagged(ev_int(7), SDX_TAG_CBOR, 1), ev_end(), ev_key("b"), ev_map(0),
                       ev_end(), ev_key("c"), ev_array(0), ev_end(), ev_end()};
    sdx_doc *doc = build(evs, COUNT(evs));
    if (!CHECK(doc != NULL)) return;
    size_t len;
    sdx_err rc;
    char *json = node_json(sdx_doc_root(doc), 0, &len, &rc);
    CHECK_EQ_INT(rc, SDX_OK);
    if (json)
        CHECK_STR(json, len,
                  "{\"a\":[1,-2,18446744073709551615,1.5,\"x\\n\\\"y\",true,false,null,"
                  "123456789012345678901234567890,7],\"b\":{},\"c\":[]}");
    free(json);
    json = node_json(sdx_node_getz(sdx_doc_root(doc), "a"), 0, &len, &rc);
    if (CHECK(json != NULL)) CHECK_STR(json, len, "[1,-2,18446744073709551615,1.5,\"x\\n\\\"y\",true,false,null,123456789012345678901234567890,7]");
    free(json);
    /* Binary: refused by default, base64 on request; the writer's error
     * comes back from emit. */
    sdx_doc *bin = build((sdx_event[]){ev_bin("hello", 5)}, 1);
    if (CHECK(bin != NULL)) {
        json = node_json(sdx_doc_root(bin), 0, &len, &rc);
        CHECK(json == NULL);
        CHECK_EQ_INT(rc, SDX_ERR_UNSUPPORTED);
        json = node_json(sdx_doc_root(bin), SDX_JSON_WRITE_BIN_BASE64, &len, &rc);
        if (CHECK(json != NULL)) CHECK_STR(json, len, "\"aGVsbG8=\"");
        free(json);
    }
    sdx_doc_free(bin);
    sdx_doc_free(doc);
}

/* ------------------------------------------------------------------------ */
/* Copy                                                                      */
/* ------------------------------------------------------------------------ */

TEST(copy) {
    sdx_event evs[] = {ev_array(3), ev_str("keep"), ev_tagged(ev_map(1), SDX_TAG_CBOR, 5), ev_key("k"),
                       ev_bin("\1\2", 2), ev_end(), ev_str(""), ev_end()};
    sdx_doc *doc = build(evs, COUNT(evs));
    if (!CHECK(doc != NULL)) return;
    sdx_doc *whole = sdx_node_copy(sdx_doc_root(doc), NULL);
    sdx_node sub = sdx_node_index(sdx_doc_root(doc), 1);
    counting_alloc ca;
    counting_alloc_init(&ca, 0);
    sdx_doc *part = sdx_node_copy(sub, &ca.iface);
    sdx_doc *scalar = sdx_node_copy(sdx_node_index(sdx_doc_root(doc), 0), NULL);
    if (CHECK(whole && part && scalar)) {
        CHECK(sdx_node_equal(sdx_doc_root(whole), sdx_doc_root(doc)));
        CHECK(sdx_node_equal(sdx_doc_root(part), sub));
        CHECK_EQ_U64(sdx_doc_size(part), 4); /* tag, map, key, value */
        CHECK_EQ_U64(sdx_doc_size(whole), sdx_doc_size(doc));
        CHECK_EQ_U64(sdx_doc_size(scalar), 1);
        sdx_doc_free(doc); /* the copies own their bytes */
        doc = NULL;
        size_t len;
        const void *p = sdx_node_bin(sdx_node_getz(sdx_doc_root(part), "k"), &len);
        CHECK_MEM(p, len, "\1\2", 2);
        const char *s = sdx_node_str(sdx_doc_root(scalar), &len);
        CHECK_STR(s, len, "keep");
        s = sdx_node_str(sdx_node_index(sdx_doc_root(whole), 2), &len);
        CHECK(s != NULL && len == 0);
        uint64_t tag;
        CHECK(sdx_node_tag(sdx_doc_root(part), &tag) == SDX_TAG_CBOR && tag == 5);
    }
    sdx_doc_free(doc);
    sdx_doc_free(whole);
    sdx_doc_free(part);
    sdx_doc_free(scalar);
    CHECK_EQ_INT(ca.live, 0);
}

/* ------------------------------------------------------------------------ */
/* Deep nesting: 10^6 levels, no recursion                                   */
/* ------------------------------------------------------------------------ */

#define DEEP 1000000

TEST(deep_nesting) {
    for (int map = 0; map < 2; map++) {
        size_t n;
        sdx_event *evs = nested_events(DEEP, map, &n);
        sdx_doc_build_opts o = {NULL, DEEP};
        sdx_err err;
        sdx_doc *doc = build_events(evs, n, &o, &err);
        free(evs);
        if (!CHECK(doc != NULL)) continue;
        CHECK_EQ_U64(sdx_doc_size(doc), map ? 2 * (size_t)DEEP + 1 : (size_t)DEEP + 1);
        sdx_node root = sdx_doc_root(doc);
        /* Emitted into the JSON writer: the text of 10^6 levels. */
        size_t len;
        sdx_err rc;
        char *json = node_json(root, 0, &len, &rc);
        CHECK_EQ_INT(rc, SDX_OK);
        size_t open = map ? 5 : 1;
        if (CHECK(json != NULL) && CHECK_EQ_U64(len, (size_t)DEEP * (open + 1) + 1)) {
            bool ok = true;
            for (size_t i = 0; i < DEEP && ok; i++)
                ok = memcmp(json + i * open, map ? "{\"a\":" : "[", open) == 0 &&
                     json[len - 1 - i] == (map ? '}' : ']');
            CHECK(ok);
            CHECK(json[(size_t)DEEP * open] == '0');
        }
        free(json);
        /* Copied, compared, and a difference at the bottom found. */
        sdx_doc *copy = sdx_node_copy(root, NULL);
        if (CHECK(copy != NULL)) {
            CHECK(sdx_node_equal(root, sdx_doc_root(copy)));
            copy->vals[copy->nvals - 1].v.i = 1;
            CHECK(!sdx_node_equal(root, sdx_doc_root(copy)));
        }
        sdx_doc_free(copy);
        /* Emitted back into a builder. */
        sdx_doc_builder b;
        sdx_doc_builder_init(&b, &o);
        CHECK_EQ_INT(sdx_node_emit(root, sdx_doc_builder_sink(&b)), SDX_OK);
        sdx_doc *again = sdx_doc_builder_finish(&b, &err);
        if (CHECK(again != NULL)) CHECK(sdx_node_equal(root, sdx_doc_root(again)));
        sdx_doc_free(again);
        /* Walking down with lookups. */
        sdx_node x = root;
        for (size_t i = 0; i < DEEP; i++) x = map ? sdx_node_getz(x, "a") : sdx_node_index(x, 0);
        CHECK_EQ_INT(sdx_node_int(x), 0);
        CHECK_EQ_INT(sdx_doc_error(doc), SDX_OK);
        sdx_doc_free(doc);
    }
}

/* ------------------------------------------------------------------------ */
/* Allocation failures                                                       */
/* ------------------------------------------------------------------------ */

/* Events that make the builder allocate everything it can: the document,
 * the value array several times, string chunks and a block of its own,
 * frames beyond the inline ones. */
static sdx_event *alloc_events(size_t *n, char **big) {
    size_t levels = 40, strs = 300, bigsize = 100000;
    sdx_event *evs = malloc((2 * levels + strs + 4) * sizeof *evs);
    *big = malloc(bigsize);
    if (!evs || !*big) abort();
    memset(*big, 'q', bigsize);
    size_t k = 0;
    for (size_t i = 0; i < levels; i++) evs[k++] = ev_array(SDX_COUNT_UNKNOWN);
    for (size_t i = 0; i < strs; i++) evs[k++] = ev_tagged(ev_str("some string of forty bytes, or so......"), SDX_TAG_CBOR, i);
    evs[k++] = ev_bin(*big, bigsize);
    for (size_t i = 0; i < levels; i++) evs[k++] = ev_end();
    *n = k;
    return evs;
}

TEST(alloc_failures_builder) {
    size_t n;
    char *big;
    sdx_event *evs = alloc_events(&n, &big);
    sdx_doc *ref = build(evs, n);
    long failures = 0;
    for (long at = 1;; at++) {
        counting_alloc ca;
        counting_alloc_init(&ca, at);
        sdx_doc_build_opts o = {&ca.iface, 0};
        sdx_doc_builder b;
        sdx_err irc = sdx_doc_builder_init(&b, &o);
        sdx_err last = irc;
        for (size_t i = 0; i < n; i++) last = sdx_doc_builder_put(&b, &evs[i]);
        sdx_err err = SDX_OK;
        sdx_doc *doc = sdx_doc_builder_finish(&b, &err);
        bool failed = ca.calls >= at && !doc;
        if (doc) {
            /* The allocation that failed, if any, was the final shrink. */
            CHECK(ref && sdx_node_equal(sdx_doc_root(doc), sdx_doc_root(ref)));
            sdx_doc_free(doc);
        } else {
            CHECK(failed);
            CHECK_EQ_INT(err, SDX_ERR_NOMEM);
            CHECK_EQ_INT(last, SDX_ERR_NOMEM);
            failures++;
        }
        CHECK_EQ_INT(ca.live, 0);
        if (ca.calls < at) break; /* no allocation failed: all points covered */
    }
    CHECK(failures > 10);
    sdx_doc_free(ref);
    free(evs);
    free(big);
}

static sdx_err emit_node(const void *n, sdx_sink sink) { return sdx_node_emit(*(const sdx_node *)n, sink); }

TEST(alloc_failures_copy_and_emit) {
    size_t n;
    char *big;
    sdx_event *evs = alloc_events(&n, &big);
    counting_alloc ca;
    counting_alloc_init(&ca, 0);
    sdx_doc_build_opts o = {&ca.iface, 0};
    sdx_err err;
    sdx_doc *doc = build_events(evs, n, &o, &err);
    if (!CHECK(doc != NULL)) return;
    sdx_node root = sdx_doc_root(doc);
    /* Copy. */
    long failures = 0;
    for (long at = 1;; at++) {
        counting_alloc cc;
        counting_alloc_init(&cc, at);
        sdx_doc *copy = sdx_node_copy(root, &cc.iface);
        if (copy) {
            CHECK(sdx_node_equal(root, sdx_doc_root(copy)));
            sdx_doc_free(copy);
        } else {
            failures++;
        }
        CHECK_EQ_INT(cc.live, 0);
        if (cc.calls < at) break;
    }
    CHECK_EQ_INT(failures, 3); /* the document, its values, its bytes */
    /* Emit: its stack grows through the document's allocator beyond 32
     * levels (40 here). */
    CHECK(check_emit_failures(&ca, emit_node, &root) >= 1);
    sdx_doc_free(doc);
    CHECK_EQ_INT(ca.live, 0);
    free(evs);
    free(big);
}

/* ------------------------------------------------------------------------ */
/* Random documents                                                          */
/* ------------------------------------------------------------------------ */

TEST(random_documents) {
    gen g;
    memset(&g, 0, sizeof g);
    long docs = (long)(400 * test_scale());
    rec r;
    rec_init(&r);
    long bad = 0;
    for (long d = 0; d < docs; d++) {
        uint64_t seed = (uint64_t)d * 0x9e3779b97f4a7c15ull + 7;
        gen_doc(&g, seed, 1 + d % 9, 20 + d % 300);
        sdx_doc *doc = build(g.out.evs, g.out.n);
        if (!doc) {
            bad++;
            continue;
        }
        /* Emit gives the events back. */
        rec_clear(&r);
        bool ok = sdx_node_emit(sdx_doc_root(doc), rec_sink(&r)) == SDX_OK && rec_equals(&r, g.out.evs, g.out.n);
        /* Unknown counts build the same document. */
        sdx_event *unk = gen_unknown_counts(&g.out, seed);
        sdx_doc *doc2 = build(unk, g.out.n);
        free(unk);
        ok = ok && doc2 && sdx_node_equal(sdx_doc_root(doc), sdx_doc_root(doc2));
        /* A copy is equal; changing one slot's payload makes it differ
         * (except where the payload means nothing: a null). */
        sdx_doc *copy = sdx_node_copy(sdx_doc_root(doc), NULL);
        ok = ok && copy && sdx_node_equal(sdx_doc_root(doc), sdx_doc_root(copy));
        if (ok && copy->nvals) {
            size_t at = (size_t)(test_rand(&seed) % copy->nvals);
            sdx_val *v = &copy->vals[at];
            sdx_type t = SDX_VAL_TYPE(v);
            if (t == SDX_TYPE_STR || t == SDX_TYPE_BIN || t == SDX_TYPE_RAW) {
                if (SDX_VAL_LEN(v)) ((char *)v->v.s)[0] ^= 1;
                else v->tag += 1 << 16, v->v.s = "x";
            } else if (t == SDX_TYPE_BOOL) {
                v->v.u = !v->v.u;
            } else if (t == SDX_TYPE__TAG) {
                v->v.u ^= 1; /* another tag number */
            } else if (t != SDX_TYPE_NULL) {
                v->v.u ^= 1; /* another number or span */
                if (t == SDX_TYPE_ARRAY || t == SDX_TYPE_MAP) v->tag += 1 << 16;
            } else {
                v->tag = SDX_TYPE_BOOL;
                v->v.u = 0;
            }
            ok = !sdx_node_equal(sdx_doc_root(doc), sdx_doc_root(copy));
        }
        if (!ok) {
            fprintf(stderr, "  random document %ld (seed %llu) failed\n", d, (unsigned long long)seed);
            bad++;
        }
        sdx_doc_free(copy);
        sdx_doc_free(doc2);
        sdx_doc_free(doc);
    }
    CHECK_EQ_INT(bad, 0);
    rec_free(&r);
    rec_free(&g.out);
}

/* ------------------------------------------------------------------------ */
/* sdx_transcode                                                             */
/* ------------------------------------------------------------------------ */

/* A source over an array of events; each event "takes" 10 bytes of input.
 * It fails with fail_err after fail_after events (when fail_err is set). */
typedef struct array_source {
    const sdx_event *evs;
    size_t n, i;
    size_t fail_after;
    sdx_err fail_err;
    bool failed;
} array_source;

static bool as_next(void *ctx, sdx_event *ev) {
    array_source *s = ctx;
    if (s->failed) return false;
    if (s->fail_err && s->i == s->fail_after) {
        s->failed = true;
        return false;
    }
    if (s->i == s->n) return false;
    *ev = s->evs[s->i++];
    return true;
}

static sdx_err as_error(const void *ctx, sdx_error *err) {
    const array_source *s = ctx;
    sdx_err rc = s->failed ? s->fail_err : SDX_OK;
    if (err && rc) {
        err->code = rc;
        err->offset = s->i * 10 + 3;
        err->line = 1;
        err->column = s->i * 10 + 4;
        err->msg = "array source failed";
    }
    return rc;
}

static uint64_t as_offset(const void *ctx) { return ((const array_source *)ctx)->i * 10; }

static const sdx_source_vt array_source_vt = {as_next, as_error, as_offset};

static sdx_source array_source_init(array_source *s, const sdx_event *evs, size_t n) {
    memset(s, 0, sizeof *s);
    s->evs = evs;
    s->n = n;
    sdx_source src = {&array_source_vt, s};
    return src;
}

TEST(transcode) {
    sdx_event evs[] = {ev_map(2), ev_key("a"), ev_array(SDX_COUNT_UNKNOWN), ev_int(1), ev_str("x"),
                       ev_end(), ev_key("b"), ev_tagged(ev_bin("hi", 2), SDX_TAG_CBOR, 4), ev_end()};
    ev_set_depths(evs, COUNT(evs));
    /* Into the JSON writer (binary as base64). */
    array_source s;
    sdx_buf out;
    sdx_buf_init(&out, NULL);
    sdx_json_writer w;
    sdx_json_write_opts wo = {SDX_JSON_WRITE_BIN_BASE64, 0, NULL};
    sdx_json_writer_init(&w, &out, &wo);
    sdx_error err;
    memset(&err, 0xff, sizeof err);
    CHECK_EQ_INT(sdx_transcode(array_source_init(&s, evs, COUNT(evs)), sdx_json_writer_sink(&w), &err), SDX_OK);
    CHECK_EQ_INT(err.code, SDX_OK);
    CHECK_EQ_U64(err.offset, COUNT(evs) * 10);
    CHECK(err.msg != NULL);
    CHECK_EQ_INT(sdx_json_writer_finish(&w), SDX_OK); /* transcode did not finish it */
    CHECK_STR(sdx_buf_data(&out), sdx_buf_len(&out), "{\"a\":[1,\"x\"],\"b\":\"aGk=\"}");
    sdx_buf_destroy(&out);
    /* Into the builder; then emitted back: the same events. */
    sdx_doc_builder b;
    sdx_doc_builder_init(&b, NULL);
    CHECK_EQ_INT(sdx_transcode(array_source_init(&s, evs, COUNT(evs)), sdx_doc_builder_sink(&b), NULL), SDX_OK);
    sdx_err berr;
    sdx_doc *doc = sdx_doc_builder_finish(&b, &berr);
    if (CHECK(doc != NULL)) {
        rec r;
        rec_init(&r);
        sdx_node_emit(sdx_doc_root(doc), rec_sink(&r));
        evs[2].v.count = 2; /* the builder knows the count now */
        CHECK(rec_equals(&r, evs, COUNT(evs)));
        evs[2].v.count = SDX_COUNT_UNKNOWN;
        rec_free(&r);
    }
    sdx_doc_free(doc);
    /* A sink error mid-stream: binary refused by the strict writer, reported
     * with the source's offset just after the event refused. */
    sdx_buf_init(&out, NULL);
    sdx_json_writer_init(&w, &out, NULL);
    sdx_source src = array_source_init(&s, evs, COUNT(evs));
    CHECK_EQ_INT(sdx_transcode(src, sdx_json_writer_sink(&w), &err), SDX_ERR_UNSUPPORTED);
    CHECK_EQ_INT(err.code, SDX_ERR_UNSUPPORTED);
    CHECK_EQ_U64(err.offset, 80);
    CHECK(err.msg != NULL && strlen(err.msg) > 0);
    CHECK_EQ_U64(s.i, 8); /* no event read after the failure */
    sdx_json_writer_finish(&w);
    sdx_buf_destroy(&out);
    /* A recording sink failing at its k-th event. */
    for (long k = 1; k <= (long)COUNT(evs); k++) {
        rec r;
        rec_init(&r);
        r.fail_at = k;
        r.fail_err = SDX_ERR_KEY;
        CHECK_EQ_INT(sdx_transcode(array_source_init(&s, evs, COUNT(evs)), rec_sink(&r), &err), SDX_ERR_KEY);
        CHECK_EQ_U64(err.offset, (uint64_t)k * 10);
        CHECK_EQ_U64(r.n, (size_t)k - 1);
        rec_free(&r);
    }
    /* A source error: reported as the source reports it; the events before
     * it reached the sink. */
    rec r;
    rec_init(&r);
    src = array_source_init(&s, evs, COUNT(evs));
    s.fail_after = 4;
    s.fail_err = SDX_ERR_SYNTAX;
    CHECK_EQ_INT(sdx_transcode(src, rec_sink(&r), &err), SDX_ERR_SYNTAX);
    CHECK_EQ_INT(err.code, SDX_ERR_SYNTAX);
    CHECK_EQ_U64(err.offset, 43);
    CHECK_EQ_U64(err.line, 1);
    CHECK_EQ_U64(err.column, 44);
    CHECK(strcmp(err.msg, "array source failed") == 0);
    CHECK(rec_equals(&r, evs, 4));
    CHECK_EQ_INT(r.finished, 0);
    rec_free(&r);
    /* An empty source: nothing sent, SDX_OK. */
    rec_init(&r);
    CHECK_EQ_INT(sdx_transcode(array_source_init(&s, evs, 0), rec_sink(&r), NULL), SDX_OK);
    CHECK_EQ_U64(r.n, 0);
    rec_free(&r);
}

/* ------------------------------------------------------------------------ */
/* The CBOR extension of the event model: SDX_NINT, SDX_TAG chains, flags    */
/* ------------------------------------------------------------------------ */

static sdx_event ev_tag(uint64_t tag) {
    return ev_tagged(ev_kind(SDX_TAG), SDX_TAG_CBOR, tag);
}

TEST(tag_chains_and_nint) {
    /* [61(18([-18446744073709551616, 1.5 (half)])), {55799(1(2)): 3}] */
    sdx_event nint = ev_kind(SDX_NINT);
    nint.v.u = UINT64_MAX;
    sdx_event half = ev_double(1.5);
    half.flags = SDX_EVENT_FLOAT16;
    sdx_event evs[] = {
        ev_array(2),
        ev_tag(61), ev_tagged(ev_array(2), SDX_TAG_CBOR, 18), nint, half, ev_end(),
        ev_map(1), ev_tag(55799), ev_tagged(ev_int(2), SDX_TAG_CBOR, 1), ev_int(3), ev_end(),
        ev_end(),
    };
    ev_set_depths(evs, COUNT(evs));
    sdx_doc *doc = build(evs, COUNT(evs));
    if (!CHECK(doc != NULL)) return;
    sdx_node root = sdx_doc_root(doc);
    sdx_node cwt = sdx_node_index(root, 0);
    uint64_t tag = 0;
    CHECK(sdx_node_type(cwt) == SDX_TYPE_ARRAY);
    CHECK(sdx_node_tag(cwt, &tag) == SDX_TAG_CBOR);
    CHECK_EQ_U64(tag, 18);
    sdx_tag_kind kinds[4];
    uint64_t tags[4];
    CHECK_EQ_U64(sdx_node_tags(cwt, kinds, tags, 4), 2);
    CHECK_EQ_U64(tags[0], 61);
    CHECK_EQ_U64(tags[1], 18);
    CHECK(kinds[0] == SDX_TAG_CBOR && kinds[1] == SDX_TAG_CBOR);
    CHECK_EQ_U64(sdx_node_tags(cwt, kinds, tags, 1), 2); /* count beyond cap */
    CHECK_EQ_U64(sdx_node_tags(root, NULL, NULL, 0), 0);
    sdx_node n = sdx_node_index(cwt, 0);
    CHECK(sdx_node_type(n) == SDX_TYPE_NINT);
    CHECK_EQ_U64(n.val->v.u, UINT64_MAX);
    CHECK(sdx_node_double(n) == -18446744073709551616.0);
    sdx_node h = sdx_node_index(cwt, 1);
    CHECK(sdx_node_double(h) == 1.5);
    CHECK((h.val->tag & SDX_VAL_FLOAT16) != 0);
    CHECK((h.val->tag & SDX_VAL_FLOAT32) == 0);
    sdx_node m = sdx_node_index(root, 1);
    sdx_node k = sdx_node_key_at(m, 0);
    CHECK_EQ_INT(sdx_node_int(k), 2);
    CHECK_EQ_U64(sdx_node_tags(k, kinds, tags, 4), 2);
    CHECK_EQ_U64(tags[0], 55799);
    CHECK_EQ_U64(tags[1], 1);
    CHECK_EQ_INT(sdx_node_int(sdx_node_value_at(m, 0)), 3);
    /* iteration skips whole chains */
    sdx_iter it = sdx_iter_init(m);
    sdx_node ik, iv;
    CHECK(sdx_iter_next(&it, &ik, &iv));
    CHECK(ik.val == k.val);
    CHECK_EQ_INT(sdx_node_int(iv), 3);
    CHECK(sdx_doc_error(doc) == SDX_OK);
    /* emit gives back the same events, the outer tags as SDX_TAG */
    rec r;
    rec_init(&r);
    CHECK_EQ_INT(sdx_node_emit(root, rec_sink(&r)), SDX_OK);
    CHECK(rec_equals(&r, evs, COUNT(evs)));
    if (r.n == COUNT(evs)) CHECK(r.evs[4].flags == SDX_EVENT_FLOAT16);
    rec_free(&r);
    /* emit of a node with a chain starts with its outer tags */
    rec_init(&r);
    CHECK_EQ_INT(sdx_node_emit(cwt, rec_sink(&r)), SDX_OK);
    sdx_event sub[] = {ev_tag(61), ev_tagged(ev_array(2), SDX_TAG_CBOR, 18), nint, half, ev_end()};
    ev_set_depths(sub, COUNT(sub));
    CHECK(rec_equals(&r, sub, COUNT(sub)));
    rec_free(&r);
    /* copy keeps the chain; equality compares whole chains */
    sdx_doc *c = sdx_node_copy(cwt, NULL);
    if (CHECK(c != NULL)) {
        CHECK(sdx_node_equal(sdx_doc_root(c), cwt));
        CHECK_EQ_U64(sdx_doc_size(c), 5);
    }
    sdx_doc_free(c);
    sdx_event one_tag[] = {ev_tagged(ev_array(2), SDX_TAG_CBOR, 18), nint, half, ev_end()};
    ev_set_depths(one_tag, COUNT(one_tag));
    sdx_doc *d2 = build(one_tag, COUNT(one_tag));
    if (CHECK(d2 != NULL)) CHECK(!sdx_node_equal(sdx_doc_root(d2), cwt));
    sdx_doc_free(d2);
    sdx_doc_free(doc);
}

TEST(tag_event_misuse) {
    sdx_event dangling_end[] = {ev_array(SDX_COUNT_UNKNOWN), ev_tag(1), ev_end()};
    CHECK_EQ_INT(build_err(dangling_end, COUNT(dangling_end), NULL), SDX_ERR_USAGE);
    sdx_event dangling_root[] = {ev_tag(1)};
    CHECK_EQ_INT(build_err(dangling_root, COUNT(dangling_root), NULL), SDX_ERR_USAGE);
    sdx_event after_root[] = {ev_int(1), ev_tag(1)};
    CHECK_EQ_INT(build_err(after_root, COUNT(after_root), NULL), SDX_ERR_USAGE);
    sdx_event no_kind[] = {ev_kind(SDX_TAG), ev_int(1)};
    CHECK_EQ_INT(build_err(no_kind, COUNT(no_kind), NULL), SDX_ERR_USAGE);
    /* a tag does not count towards a container's count */
    sdx_event counted[] = {ev_array(1), ev_tag(1), ev_tag(2), ev_int(1), ev_end()};
    CHECK_EQ_INT(build_err(counted, COUNT(counted), NULL), SDX_OK);
}

TEST(new_kinds_in_other_writers) {
    sdx_event nint = ev_kind(SDX_NINT);
    nint.v.u = 5;
    /* MessagePack: SDX_NINT cannot be held, SDX_TAG is ignored */
    sdx_buf out;
    sdx_buf_init(&out, NULL);
    sdx_msgpack_writer mw;
    sdx_msgpack_writer_init(&mw, &out, NULL);
    sdx_event a[] = {ev_array(2), ev_tag(7), ev_int(1), nint, ev_end()};
    CHECK_EQ_INT(sdx_msgpack_writer_put(&mw, &a[0]), SDX_OK);
    CHECK_EQ_INT(sdx_msgpack_writer_put(&mw, &a[1]), SDX_OK);
    CHECK_EQ_INT(sdx_msgpack_writer_put(&mw, &a[2]), SDX_OK);
    CHECK_EQ_INT(sdx_msgpack_writer_put(&mw, &a[3]), SDX_ERR_RANGE);
    CHECK_EQ_INT(sdx_msgpack_writer_finish(&mw), SDX_ERR_RANGE);
    sdx_buf_clear(&out);
    sdx_msgpack_writer_init(&mw, &out, NULL);
    sdx_event b[] = {ev_array(1), ev_tag(7), ev_tagged(ev_int(1), SDX_TAG_CBOR, 8), ev_end()};
    CHECK_EQ_INT(ev_send(sdx_msgpack_writer_sink(&mw), b, COUNT(b)), SDX_OK);
    CHECK_EQ_INT(sdx_msgpack_writer_finish(&mw), SDX_OK);
    CHECK_MEM(sdx_buf_data(&out), sdx_buf_len(&out), "\x91\x01", 2);
    /* JSON: SDX_NINT as its exact decimal text, SDX_TAG writes nothing */
    sdx_buf_clear(&out);
    sdx_json_writer jw;
    sdx_json_writer_init(&jw, &out, NULL);
    sdx_event c[] = {ev_array(1), ev_tag(7), nint, ev_end()};
    CHECK_EQ_INT(ev_send(sdx_json_writer_sink(&jw), c, COUNT(c)), SDX_OK);
    CHECK_EQ_INT(sdx_json_writer_finish(&jw), SDX_OK);
    CHECK_MEM(sdx_buf_data(&out), sdx_buf_len(&out), "[-6]", 4);
    sdx_buf_destroy(&out);
}

/* The inline path of the builder (sdx_doc_builder_put_inline, used by the
 * UBJSON, BSON and Binn parsers) against the exported function, event by
 * event: the same return for every event and the same slots, on random
 * documents and on streams broken at random (an event dropped, repeated or
 * replaced, a float32 flag, a tag, an unknown or short count), with and
 * without borrowed strings, with depth limits below and above the
 * builder's inline frames. */
TEST(builder_inline_path) {
    gen g;
    memset(&g, 0, sizeof g);
    long docs = (long)(600 * test_scale());
    long inline_ok = 0, errors = 0;
    for (long d = 0; d < docs; d++) {
        uint64_t seed = (uint64_t)d * 0x9e3779b97f4a7c15ull + 11;
        gen_doc(&g, seed, 1 + (int)(d % 24), 20 + d % 400);
        size_t n = g.out.n;
        sdx_event *evs = malloc((n + 1) * sizeof *evs);
        if (!evs) abort();
        memcpy(evs, g.out.evs, n * sizeof *evs);
        uint64_t r = test_rand(&seed);
        if (d % 3 && n > 1) { /* break the stream */
            size_t at = (size_t)(test_rand(&seed) % n);
            switch (r % 7) {
            case 0: memmove(evs + at, evs + at + 1, (n - at - 1) * sizeof *evs); n--; break;
            case 1: memmove(evs + at + 1, evs + at, (n - at) * sizeof *evs); n++; break;
            case 2: evs[at] = ev_end(); break;
            case 3: evs[at] = ev_key("k"); break;
            case 4: if (evs[at].kind == SDX_DOUBLE) evs[at].flags = SDX_EVENT_FLOAT32;
                    else evs[at] = ev_tagged(ev_null(), SDX_TAG_CBOR, 7);
                    break;
            case 5: if (evs[at].kind == SDX_ARRAY || evs[at].kind == SDX_MAP)
                        evs[at].v.count = evs[at].v.count ? evs[at].v.count - 1 : SDX_COUNT_UNKNOWN;
                    else { evs[at].kind = SDX_STR; evs[at].v.str.ptr = NULL; evs[at].v.str.len = 3; }
                    break;
            default: { sdx_event t = ev_kind(SDX_TAG); t.tag_kind = SDX_TAG_CBOR; t.tag = 2; evs[at] = t; break; }
            }
        }
        for (int borrow = 0; borrow < 2; borrow++) {
            sdx_doc_build_opts o = {NULL, (uint32_t)(d % 5 == 0 ? 3 + d % 30 : 0)};
            sdx_doc_builder a, b;
            CHECK_EQ_INT(sdx_doc_builder_init(&a, &o), SDX_OK);
            CHECK_EQ_INT(sdx_doc_builder_init(&b, &o), SDX_OK);
            a.borrow = b.borrow = borrow != 0;
            for (size_t i = 0; i < n; i++) {
                sdx_err ea = sdx_doc_builder_put(&a, &evs[i]);
                sdx_err eb = sdx_doc_builder_put_inline(&b, &evs[i]);
                CHECK_EQ_INT(eb, ea);
                if (ea) break;
            }
            sdx_err fa, fb;
            sdx_doc *da = sdx_doc_builder_finish(&a, &fa), *db = sdx_doc_builder_finish(&b, &fb);
            CHECK_EQ_INT(fb, fa);
            CHECK((da == NULL) == (db == NULL));
            if (da && db) {
                inline_ok++;
                CHECK(doc_same_slots(da, db));
                /* borrowed: the event's own bytes; else copies */
                for (size_t i = 0; i < da->nvals; i++) {
                    unsigned t = SDX_VAL_TYPE(&da->vals[i]);
                    if ((t == SDX_TYPE_STR || t == SDX_TYPE_BIN || t == SDX_TYPE_RAW) &&
                        SDX_VAL_LEN(&da->vals[i]))
                        CHECK((db->vals[i].v.s == da->vals[i].v.s) == (borrow != 0));
                }
            } else {
                errors++;
            }
            sdx_doc_free(da);
            sdx_doc_free(db);
        }
        free(evs);
    }
    rec_free(&g.out);
    /* both outcomes were exercised */
    CHECK(inline_ok > docs / 2);
    CHECK(errors > docs / 10);
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){
                        {"nil_node", nil_node},
                        {"getters_on_every_type", getters_on_every_type},
                        {"hand_filled_document", hand_filled_document},
                        {"sticky_errors", sticky_errors},
                        {"lookup_chains", lookup_chains},
                        {"index_and_entries", index_and_entries},
                        {"iteration", iteration},
                        {"val_next_skips_subtrees", val_next_skips_subtrees},
                        {"equality", equality},
                        {"builder_layout", builder_layout},
                        {"builder_every_kind_and_tag", builder_every_kind_and_tag},
                        {"builder_counts", builder_counts},
                        {"builder_depth_limit", builder_depth_limit},
                        {"builder_misuse", builder_misuse},
                        {"builder_keys_of_every_type", builder_keys_of_every_type},
                        {"builder_string_storage", builder_string_storage},
                        {"builder_inline_path", builder_inline_path},
                        {"emit_events", emit_events},
                        {"emit_json", emit_json},
                        {"copy", copy},
                        {"deep_nesting", deep_nesting},
                        {"alloc_failures_builder", alloc_failures_builder},
                        {"alloc_failures_copy_and_emit", alloc_failures_copy_and_emit},
                        {"random_documents", random_documents},
                        {"transcode", transcode},
                        {"tag_chains_and_nint", tag_chains_and_nint},
                        {"tag_event_misuse", tag_event_misuse},
                        {"new_kinds_in_other_writers", new_kinds_in_other_writers},
                        {0, 0},
                    });
}
