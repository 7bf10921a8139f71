/* The mutable document: creation, inspection, every edit and its misuse
 * errors, conversions to and from the immutable document, emit, deep
 * nesting, allocation failures, randomized round trips. */
#include "doc_test.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static sdx_doc *build(const sdx_event *evs, size_t n) {
    sdx_err err = SDX_OK;
    sdx_doc *doc = build_events(evs, n, NULL, &err);
    if (!doc) fprintf(stderr, "  build failed: %s\n", sdx_strerror(err));
    return doc;
}

/* The mdoc's error, cleared. */
static sdx_err take_err(sdx_mdoc *md) {
    sdx_err e = sdx_mdoc_error(md);
    sdx_mdoc_clear_error(md);
    return e;
}

/* The mdoc's root as a document, compared with the events' document. */
static bool mdoc_is(const sdx_mdoc *md, const sdx_event *evs, size_t n) {
    sdx_err err;
    sdx_doc *got = sdx_mdoc_to_doc(md, &err), *want = build(evs, n);
    bool eq = got && want && sdx_node_equal(sdx_doc_root(got), sdx_doc_root(want));
    if (!eq) {
        size_t len;
        sdx_err rc;
        char *g = got ? node_json(sdx_doc_root(got), SDX_JSON_WRITE_BIN_BASE64, &len, &rc) : NULL;
        char *w = want ? node_json(sdx_doc_root(want), SDX_JSON_WRITE_BIN_BASE64, &len, &rc) : NULL;
        fprintf(stderr, "  mdoc: %s\n  want: %s\n", g ? g : "(none)", w ? w : "(none)");
        free(g);
        free(w);
    }
    sdx_doc_free(got);
    sdx_doc_free(want);
    return eq;
}

/* ------------------------------------------------------------------------ */
/* Creation and inspection                                                   */
/* ------------------------------------------------------------------------ */

TEST(create_and_inspect) {
    sdx_mdoc *md = sdx_mdoc_new(NULL);
    if (!CHECK(md != NULL)) return;
    CHECK_EQ_INT(sdx_mdoc_error(md), SDX_OK);
    CHECK(sdx_mdoc_root(md) == NULL);
    sdx_mval *v[10];
    v[0] = sdx_mdoc_null(md);
    v[1] = sdx_mdoc_bool(md, true);
    v[2] = sdx_mdoc_int(md, -7);
    v[3] = sdx_mdoc_uint(md, UINT64_MAX);
    v[4] = sdx_mdoc_double(md, 2.5);
    v[5] = sdx_mdoc_str(md, "hey", 3);
    v[6] = sdx_mdoc_bin(md, "\0\1", 2);
    v[7] = sdx_mdoc_raw(md, "1e999", 5);
    v[8] = sdx_mdoc_array(md);
    v[9] = sdx_mdoc_map(md);
    static const sdx_type types[] = {SDX_TYPE_NULL, SDX_TYPE_BOOL,  SDX_TYPE_INT, SDX_TYPE_UINT,
                                     SDX_TYPE_DOUBLE, SDX_TYPE_STR, SDX_TYPE_BIN, SDX_TYPE_RAW,
                                     SDX_TYPE_ARRAY, SDX_TYPE_MAP};
    /* Which getters accept each: bool int uint double str bin. */
    static const bool ok[10][6] = {
        {0, 0, 0, 0, 0, 0}, {1, 0, 0, 0, 0, 0}, {0, 1, 0, 1, 0, 0}, {0, 0, 1, 1, 0, 0},
        {0, 0, 0, 1, 0, 0}, {0, 0, 0, 0, 1, 1}, {0, 0, 0, 0, 0, 1}, {0, 0, 0, 0, 1, 0},
        {0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0}};
    static const size_t lens[] = {0, 0, 0, 0, 0, 3, 2, 5, 0, 0};
    for (int i = 0; i < 10; i++) {
        if (!CHECK(v[i] != NULL)) return;
        CHECK_EQ_INT(sdx_mval_type(v[i]), types[i]);
        CHECK_EQ_U64(sdx_mval_len(v[i]), lens[i]);
        CHECK(sdx_mval_tag(v[i], NULL) == SDX_TAG_NONE);
        for (int g = 0; g < 6; g++) {
            size_t len = 9;
            bool zero = false;
            switch (g) {
            case 0: zero = !sdx_mval_bool(v[i]); break;
            case 1: zero = sdx_mval_int(v[i]) == 0; break;
            case 2: zero = sdx_mval_uint(v[i]) == 0; break;
            case 3: zero = sdx_mval_double(v[i]) == 0.0; break;
            case 4: zero = sdx_mval_str(v[i], &len) == NULL && len == 0; break;
            case 5: zero = sdx_mval_bin(v[i], &len) == NULL && len == 0; break;
            }
            sdx_err e = take_err(md);
            if (!CHECK_EQ_INT(e, ok[i][g] ? SDX_OK : SDX_ERR_TYPE)) fprintf(stderr, "  value %d getter %d\n", i, g);
            if (e) CHECK(zero);
        }
    }
    CHECK(sdx_mval_bool(v[1]));
    CHECK_EQ_INT(sdx_mval_int(v[2]), -7);
    CHECK(sdx_mval_double(v[2]) == -7.0);
    CHECK_EQ_U64(sdx_mval_uint(v[3]), UINT64_MAX);
    CHECK(sdx_mval_double(v[4]) == 2.5);
    size_t len;
    const char *s = sdx_mval_str(v[5], &len);
    CHECK_STR(s, len, "hey");
    const void *p = sdx_mval_bin(v[6], &len);
    CHECK_MEM(p, len, "\0\1", 2);
    s = sdx_mval_str(v[7], &len);
    CHECK_STR(s, len, "1e999");
    /* uint up to INT64_MAX is an INT; int accepts it, uint a nonnegative INT. */
    sdx_mval *u = sdx_mdoc_uint(md, 5);
    CHECK_EQ_INT(sdx_mval_type(u), SDX_TYPE_INT);
    CHECK_EQ_U64(sdx_mval_uint(u), 5);
    CHECK_EQ_U64(sdx_mval_uint(v[2]), 0);
    CHECK_EQ_INT(take_err(md), SDX_ERR_TYPE);
    /* Strings are copied; empty ones are never NULL. */
    char buf[4] = "abc";
    sdx_mval *c = sdx_mdoc_strz(md, buf);
    buf[0] = 'X';
    s = sdx_mval_str(c, &len);
    CHECK_STR(s, len, "abc");
    sdx_mval *e = sdx_mdoc_str(md, NULL, 0);
    s = sdx_mval_str(e, &len);
    CHECK(s != NULL && len == 0);
    CHECK(sdx_mval_bin(sdx_mdoc_bin(md, NULL, 0), &len) != NULL && len == 0);
    CHECK_EQ_INT(take_err(md), SDX_OK);
    /* Bad arguments. */
    CHECK(sdx_mdoc_str(md, NULL, 2) == NULL);
    CHECK_EQ_INT(take_err(md), SDX_ERR_INVALID_ARG);
    CHECK(sdx_mdoc_strz(md, NULL) == NULL);
    CHECK_EQ_INT(take_err(md), SDX_ERR_INVALID_ARG);
    CHECK(sdx_mdoc_bin(md, "x", (size_t)SDX_VAL_LEN_MAX + 1) == NULL);
    CHECK_EQ_INT(take_err(md), SDX_ERR_LIMIT);
    /* Tags. */
    CHECK(sdx_mval_set_tag(v[2], SDX_TAG_CBOR, 42) == v[2]);
    uint64_t tag;
    CHECK(sdx_mval_tag(v[2], &tag) == SDX_TAG_CBOR && tag == 42);
    sdx_mval_set_tag(v[2], SDX_TAG_NONE, 42);
    CHECK(sdx_mval_tag(v[2], &tag) == SDX_TAG_NONE && tag == 0);
    CHECK(sdx_mval_set_tag(v[2], (sdx_tag_kind)300, 1) == v[2]);
    CHECK_EQ_INT(take_err(md), SDX_ERR_INVALID_ARG);
    CHECK(sdx_mval_tag(v[2], NULL) == SDX_TAG_NONE);
    sdx_mdoc_free(md);
}

/* Every function with NULL: no crash, NULL / 0 / an error. */
TEST(null_arguments) {
    CHECK(sdx_mdoc_null(NULL) == NULL);
    CHECK(sdx_mdoc_bool(NULL, true) == NULL);
    CHECK(sdx_mdoc_int(NULL, 1) == NULL);
    CHECK(sdx_mdoc_uint(NULL, 1) == NULL);
    CHECK(sdx_mdoc_double(NULL, 1) == NULL);
    CHECK(sdx_mdoc_str(NULL, "a", 1) == NULL);
    CHECK(sdx_mdoc_strz(NULL, "a") == NULL);
    CHECK(sdx_mdoc_bin(NULL, "a", 1) == NULL);
    CHECK(sdx_mdoc_raw(NULL, "1", 1) == NULL);
    CHECK(sdx_mdoc_array(NULL) == NULL);
    CHECK(sdx_mdoc_map(NULL) == NULL);
    CHECK(sdx_mval_set_tag(NULL, SDX_TAG_CBOR, 1) == NULL);
    CHECK(sdx_mdoc_root(NULL) == NULL);
    CHECK_EQ_INT(sdx_mdoc_error(NULL), SDX_ERR_INVALID_ARG);
    sdx_mdoc_clear_error(NULL);
    CHECK_EQ_INT(sdx_mdoc_set_root(NULL, NULL), SDX_ERR_INVALID_ARG);
    CHECK_EQ_INT(sdx_mval_type(NULL), SDX_TYPE_NONE);
    uint64_t tag = 3;
    CHECK(sdx_mval_tag(NULL, &tag) == SDX_TAG_NONE && tag == 0);
    CHECK(!sdx_mval_bool(NULL));
    CHECK_EQ_INT(sdx_mval_int(NULL), 0);
    CHECK_EQ_U64(sdx_mval_uint(NULL), 0);
    CHECK(sdx_mval_double(NULL) == 0.0);
    size_t len = 5;
    CHECK(sdx_mval_str(NULL, &len) == NULL && len == 0);
    CHECK(sdx_mval_bin(NULL, NULL) == NULL);
    CHECK_EQ_U64(sdx_mval_len(NULL), 0);
    CHECK(sdx_mval_index(NULL, 0) == NULL);
    CHECK(sdx_mval_get(NULL, "a", 1) == NULL);
    CHECK(sdx_mval_key_at(NULL, 0) == NULL);
    CHECK(sdx_mval_value_at(NULL, 0) == NULL);
    CHECK_EQ_INT(sdx_mval_append(NULL, NULL), SDX_ERR_INVALID_ARG);
    CHECK_EQ_INT(sdx_mval_insert(NULL, 0, NULL), SDX_ERR_INVALID_ARG);
    CHECK_EQ_INT(sdx_mval_remove_at(NULL, 0), SDX_ERR_INVALID_ARG);
    CHECK_EQ_INT(sdx_mval_set(NULL, "a", 1, NULL), SDX_ERR_INVALID_ARG);
    CHECK_EQ_INT(sdx_mval_put(NULL, NULL, NULL), SDX_ERR_INVALID_ARG);
    CHECK_EQ_INT(sdx_mval_remove(NULL, "a", 1), SDX_ERR_INVALID_ARG);
    CHECK(sdx_mdoc_import(NULL, sdx_node_nil()) == NULL);
    CHECK(sdx_mdoc_from_node(sdx_node_nil(), NULL) == NULL);
    sdx_err err = SDX_OK;
    CHECK(sdx_mdoc_to_doc(NULL, &err) == NULL);
    CHECK_EQ_INT(err, SDX_ERR_INVALID_ARG);
    rec r;
    rec_init(&r);
    CHECK_EQ_INT(sdx_mval_emit(NULL, rec_sink(&r)), SDX_ERR_INVALID_ARG);
    sdx_mdoc_free(NULL);
    /* A chain with a NULL in it: nothing added, the error flagged. */
    sdx_mdoc *md = sdx_mdoc_new(NULL);
    sdx_mval *arr = sdx_mdoc_array(md);
    CHECK_EQ_INT(sdx_mval_append(arr, sdx_mdoc_strz(md, NULL)), SDX_ERR_INVALID_ARG);
    CHECK_EQ_U64(sdx_mval_len(arr), 0);
    CHECK_EQ_INT(sdx_mdoc_error(md), SDX_ERR_INVALID_ARG);
    sdx_mdoc_clear_error(md);
    CHECK_EQ_INT(sdx_mval_set(sdx_mdoc_map(md), NULL, 2, sdx_mdoc_null(md)), SDX_ERR_INVALID_ARG);
    CHECK_EQ_INT(sdx_mval_remove(sdx_mdoc_map(md), NULL, 2), SDX_ERR_NOT_FOUND);
    CHECK(sdx_mval_get(sdx_mdoc_map(md), NULL, 2) == NULL);
    CHECK(sdx_mdoc_import(md, sdx_node_nil()) == NULL);
    CHECK_EQ_INT(take_err(md), SDX_ERR_INVALID_ARG);
    CHECK(sdx_mdoc_import(md, sdx_node_nil()) == NULL);
    CHECK_EQ_INT(take_err(md), SDX_ERR_NOT_FOUND);
    CHECK_EQ_INT(sdx_mdoc_set_root(md, NULL), SDX_ERR_INVALID_ARG);
    sdx_mdoc_free(md);
}

/* ------------------------------------------------------------------------ */
/* Arrays and maps                                                           */
/* ------------------------------------------------------------------------ */

TEST(array_edits) {
    sdx_mdoc *md = sdx_mdoc_new(NULL);
    sdx_mval *arr = sdx_mdoc_array(md);
    CHECK_EQ_INT(sdx_mdoc_set_root(md, arr), SDX_OK);
    CHECK(sdx_mdoc_root(md) == arr);
    for (int i = 0; i < 100; i++) CHECK_EQ_INT(sdx_mval_append(arr, sdx_mdoc_int(md, i)), SDX_OK);
    CHECK_EQ_U64(sdx_mval_len(arr), 100);
    CHECK_EQ_INT(sdx_mval_insert(arr, 0, sdx_mdoc_int(md, -1)), SDX_OK);
    CHECK_EQ_INT(sdx_mval_insert(arr, 50, sdx_mdoc_strz(md, "mid")), SDX_OK);
    CHECK_EQ_INT(sdx_mval_insert(arr, 102, sdx_mdoc_int(md, 100)), SDX_OK); /* at the end */
    CHECK_EQ_U64(sdx_mval_len(arr), 103);
    CHECK_EQ_INT(sdx_mval_int(sdx_mval_index(arr, 0)), -1);
    CHECK_EQ_INT(sdx_mval_int(sdx_mval_index(arr, 1)), 0);
    CHECK_EQ_INT(sdx_mval_int(sdx_mval_index(arr, 49)), 48);
    CHECK_EQ_INT(sdx_mval_type(sdx_mval_index(arr, 50)), SDX_TYPE_STR);
    CHECK_EQ_INT(sdx_mval_int(sdx_mval_index(arr, 51)), 49);
    CHECK_EQ_INT(sdx_mval_int(sdx_mval_index(arr, 102)), 100);
    CHECK_EQ_INT(take_err(md), SDX_OK);
    /* Out of range. */
    CHECK(sdx_mval_index(arr, 103) == NULL);
    CHECK_EQ_INT(take_err(md), SDX_ERR_NOT_FOUND);
    sdx_mval *x = sdx_mdoc_int(md, 7);
    CHECK_EQ_INT(sdx_mval_insert(arr, 104, x), SDX_ERR_NOT_FOUND);
    CHECK_EQ_INT(take_err(md), SDX_ERR_NOT_FOUND);
    CHECK_EQ_INT(sdx_mval_remove_at(arr, 103), SDX_ERR_NOT_FOUND);
    CHECK_EQ_INT(take_err(md), SDX_ERR_NOT_FOUND);
    CHECK_EQ_U64(sdx_mval_len(arr), 103);
    /* Remove: first, middle, last; the removed value stays valid. */
    sdx_mval *mid = sdx_mval_index(arr, 50);
    CHECK_EQ_INT(sdx_mval_remove_at(arr, 50), SDX_OK);
    CHECK_EQ_INT(sdx_mval_remove_at(arr, 0), SDX_OK);
    CHECK_EQ_INT(sdx_mval_remove_at(arr, 100), SDX_OK);
    CHECK_EQ_U64(sdx_mval_len(arr), 100);
    int good = 0;
    for (int i = 0; i < 100; i++) good += sdx_mval_int(sdx_mval_index(arr, (size_t)i)) == i;
    CHECK_EQ_INT(good, 100);
    size_t len;
    const char *s = sdx_mval_str(mid, &len);
    CHECK_STR(s, len, "mid");
    CHECK_EQ_INT(sdx_mval_append(arr, mid), SDX_OK); /* detached: may be added again */
    CHECK(sdx_mval_index(arr, 100) == mid);
    /* Wrong container type. */
    sdx_mval *map = sdx_mdoc_map(md);
    CHECK_EQ_INT(sdx_mval_append(map, x), SDX_ERR_TYPE);
    CHECK_EQ_INT(sdx_mval_insert(map, 0, x), SDX_ERR_TYPE);
    CHECK(sdx_mval_index(map, 0) == NULL);
    CHECK_EQ_INT(sdx_mval_remove_at(x, 0), SDX_ERR_TYPE);
    CHECK_EQ_INT(take_err(md), SDX_ERR_TYPE);
    /* Emptied and refilled. */
    while (sdx_mval_len(arr)) sdx_mval_remove_at(arr, sdx_mval_len(arr) - 1);
    CHECK(mdoc_is(md, (sdx_event[]){ev_array(0), ev_end()}, 2));
    CHECK_EQ_INT(sdx_mval_insert(arr, 0, x), SDX_OK);
    CHECK(mdoc_is(md, (sdx_event[]){ev_array(1), ev_int(7), ev_end()}, 3));
    sdx_mdoc_free(md);
}

TEST(map_edits) {
    sdx_mdoc *md = sdx_mdoc_new(NULL);
    sdx_mval *map = sdx_mdoc_map(md);
    sdx_mdoc_set_root(md, map);
    CHECK_EQ_INT(sdx_mval_set(map, "a", 1, sdx_mdoc_int(md, 1)), SDX_OK);
    CHECK_EQ_INT(sdx_mval_set(map, "b", 1, sdx_mdoc_int(md, 2)), SDX_OK);
    CHECK_EQ_INT(sdx_mval_set(map, "", 0, sdx_mdoc_int(md, 3)), SDX_OK);
    CHECK_EQ_U64(sdx_mval_len(map), 3);
    /* Replace: the old value becomes detached. */
    sdx_mval *old = sdx_mval_get(map, "a", 1);
    CHECK_EQ_INT(sdx_mval_set(map, "a", 1, sdx_mdoc_strz(md, "A")), SDX_OK);
    CHECK_EQ_U64(sdx_mval_len(map), 3);
    CHECK_EQ_INT(sdx_mval_int(old), 1);
    CHECK_EQ_INT(sdx_mval_set(map, "old", 3, old), SDX_OK);
    /* Non-string keys and duplicates with put. */
    sdx_mval *k = sdx_mdoc_array(md);
    sdx_mval_append(k, sdx_mdoc_int(md, 0));
    CHECK_EQ_INT(sdx_mval_put(map, sdx_mdoc_int(md, 10), sdx_mdoc_null(md)), SDX_OK);
    CHECK_EQ_INT(sdx_mval_put(map, k, sdx_mdoc_bool(md, true)), SDX_OK);
    CHECK_EQ_INT(sdx_mval_put(map, sdx_mval_set_tag(sdx_mdoc_strz(md, "b"), SDX_TAG_CBOR, 1),
                              sdx_mdoc_int(md, 99)),
                 SDX_OK);
    CHECK_EQ_INT(sdx_mval_int(sdx_mval_get(map, "b", 1)), 2); /* the first "b" */
    CHECK_EQ_INT(sdx_mval_int(sdx_mval_get(map, "", 0)), 3);
    CHECK_EQ_INT(sdx_mval_int(sdx_mval_get(map, NULL, 0)), 3);
    CHECK_EQ_INT(sdx_mval_int(sdx_mval_key_at(map, 4)), 10);
    CHECK(sdx_mval_key_at(map, 5) == k);
    CHECK(sdx_mval_bool(sdx_mval_value_at(map, 5)));
    CHECK_EQ_INT(take_err(md), SDX_OK);
    sdx_event want[] = {ev_map(7), ev_key("a"), ev_str("A"), ev_key("b"), ev_int(2), ev_key(""),
                        ev_int(3), ev_key("old"), ev_int(1), ev_int(10), ev_null(), ev_array(1),
                        ev_int(0), ev_end(), ev_bool(true), ev_tagged(ev_key("b"), SDX_TAG_CBOR, 1),
                        ev_int(99), ev_end()};
    CHECK(mdoc_is(md, want, COUNT(want)));
    /* Remove by key: the first match; then the tagged duplicate is found. */
    CHECK_EQ_INT(sdx_mval_remove(map, "b", 1), SDX_OK);
    CHECK_EQ_INT(sdx_mval_int(sdx_mval_get(map, "b", 1)), 99);
    CHECK_EQ_INT(sdx_mval_remove(map, "zz", 2), SDX_ERR_NOT_FOUND);
    CHECK_EQ_INT(take_err(md), SDX_ERR_NOT_FOUND);
    CHECK(sdx_mval_get(map, "zz", 2) == NULL);
    CHECK_EQ_INT(take_err(md), SDX_ERR_NOT_FOUND);
    /* Remove by position (maps too). */
    CHECK_EQ_INT(sdx_mval_remove_at(map, 4), SDX_OK); /* [0]: true */
    CHECK_EQ_INT(sdx_mval_remove_at(map, 6), SDX_ERR_NOT_FOUND);
    CHECK(sdx_mval_key_at(map, 5) == NULL);
    CHECK(sdx_mval_value_at(map, 5) == NULL);
    CHECK_EQ_INT(take_err(md), SDX_ERR_NOT_FOUND);
    sdx_event want2[] = {ev_map(5), ev_key("a"), ev_str("A"), ev_key(""), ev_int(3), ev_key("old"),
                         ev_int(1), ev_int(10), ev_null(), ev_tagged(ev_key("b"), SDX_TAG_CBOR, 1),
                         ev_int(99), ev_end()};
    CHECK(mdoc_is(md, want2, COUNT(want2)));
    /* The removed key is detached and reusable. */
    CHECK_EQ_INT(sdx_mval_put(map, k, sdx_mdoc_null(md)), SDX_OK);
    /* Wrong types. */
    sdx_mval *arr = sdx_mdoc_array(md);
    CHECK_EQ_INT(sdx_mval_set(arr, "a", 1, sdx_mdoc_null(md)), SDX_ERR_TYPE);
    CHECK_EQ_INT(sdx_mval_put(arr, sdx_mdoc_null(md), sdx_mdoc_null(md)), SDX_ERR_TYPE);
    CHECK_EQ_INT(sdx_mval_remove(arr, "a", 1), SDX_ERR_TYPE);
    CHECK(sdx_mval_get(arr, "a", 1) == NULL);
    CHECK(sdx_mval_key_at(arr, 0) == NULL);
    CHECK(sdx_mval_value_at(arr, 0) == NULL);
    CHECK_EQ_INT(take_err(md), SDX_ERR_TYPE);
    sdx_mdoc_free(md);
}

/* A large map: set, get, replace, remove and put against a simple model,
 * through the hash index and its rebuilds. */
TEST(large_map) {
    enum { N = 3000 };
    sdx_mdoc *md = sdx_mdoc_new(NULL);
    sdx_mval *map = sdx_mdoc_map(md);
    sdx_mdoc_set_root(md, map);
    static int64_t model[N]; /* value of key i, or -1 when absent */
    char key[32];
    uint64_t st = 1;
    for (int i = 0; i < N; i++) model[i] = -1;
    long bad = 0;
    for (int round = 0; round < 4; round++) {
        for (int n = 0; n < N; n++) {
            int i = (int)(test_rand(&st) % N);
            int len = snprintf(key, sizeof key, "key-%d", i);
            uint64_t op = test_rand(&st) % 8;
            if (op < 5) {
                bad += sdx_mval_set(map, key, (size_t)len, sdx_mdoc_int(md, n)) != SDX_OK;
                model[i] = n;
            } else if (op < 6) {
                /* Removes the first entry; duplicates put below too. */
                sdx_err rc = sdx_mval_remove(map, key, (size_t)len);
                bad += rc != (model[i] >= 0 ? SDX_OK : SDX_ERR_NOT_FOUND);
                while (sdx_mval_remove(map, key, (size_t)len) == SDX_OK) continue;
                model[i] = -1;
            } else if (op < 7) {
                /* A duplicate appended with put is shadowed by the first. */
                if (model[i] >= 0)
                    bad += sdx_mval_put(map, sdx_mdoc_str(md, key, (size_t)len), sdx_mdoc_int(md, -5)) != SDX_OK;
            } else {
                sdx_mval *v = sdx_mval_get(map, key, (size_t)len);
                bad += model[i] >= 0 ? sdx_mval_int(v) != model[i] : v != NULL;
            }
        }
        /* Every key checked. */
        for (int i = 0; i < N; i++) {
            int len = snprintf(key, sizeof key, "key-%d", i);
            sdx_mval *v = sdx_mval_get(map, key, (size_t)len);
            bad += model[i] >= 0 ? sdx_mval_int(v) != model[i] : v != NULL;
        }
        sdx_mdoc_clear_error(md);
    }
    CHECK_EQ_INT(bad, 0);
    /* The document agrees: the first entry of each key has the model's value. */
    sdx_err err;
    sdx_doc *doc = sdx_mdoc_to_doc(md, &err);
    if (CHECK(doc != NULL)) {
        sdx_node root = sdx_doc_root(doc);
        long wrong = 0;
        for (int i = 0; i < N; i++) {
            snprintf(key, sizeof key, "key-%d", i);
            sdx_node v = sdx_node_getz(root, key);
            wrong += model[i] >= 0 ? sdx_node_int(v) != model[i] : sdx_node_exists(v);
        }
        CHECK_EQ_INT(wrong, 0);
    }
    /* A map shrunk below the index threshold keeps a current index. */
    sdx_mval *small = sdx_mdoc_map(md);
    for (int i = 0; i < 20; i++) {
        int len = snprintf(key, sizeof key, "s%d", i);
        sdx_mval_set(small, key, (size_t)len, sdx_mdoc_int(md, i));
    }
    while (sdx_mval_len(small) > 5) sdx_mval_remove_at(small, 0);
    CHECK_EQ_INT(sdx_mval_set(small, "new", 3, sdx_mdoc_int(md, 100)), SDX_OK);
    CHECK_EQ_INT(sdx_mval_int(sdx_mval_get(small, "new", 3)), 100);
    CHECK_EQ_INT(sdx_mval_int(sdx_mval_get(small, "s19", 3)), 19);
    CHECK(sdx_mval_get(small, "s14", 3) == NULL);
    CHECK_EQ_INT(take_err(md), SDX_ERR_NOT_FOUND);
    for (int i = 0; i < 40; i++) {
        int len = snprintf(key, sizeof key, "t%d", i);
        sdx_mval_put(small, sdx_mdoc_str(md, key, (size_t)len), sdx_mdoc_int(md, i));
    }
    CHECK_EQ_INT(sdx_mval_int(sdx_mval_get(small, "t39", 3)), 39);
    CHECK_EQ_INT(sdx_mval_int(sdx_mval_get(small, "new", 3)), 100);
    CHECK_EQ_INT(take_err(md), SDX_OK);
    /* Imported: the index is built for the imported maps too, with the
     * first of duplicate keys and non-string keys left out of it. */
    sdx_mdoc *md2 = sdx_mdoc_new(NULL);
    sdx_mval *imp = doc ? sdx_mdoc_import(md2, sdx_doc_root(doc)) : NULL;
    if (CHECK(imp != NULL)) {
        CHECK_EQ_INT(sdx_mval_put(imp, sdx_mdoc_int(md2, 5), sdx_mdoc_null(md2)), SDX_OK);
        long wrong = 0;
        for (int i = 0; i < N; i += 2) {
            int len = snprintf(key, sizeof key, "key-%d", i);
            if (model[i] >= 0) wrong += sdx_mval_remove(imp, key, (size_t)len) != SDX_OK;
            while (sdx_mval_remove(imp, key, (size_t)len) == SDX_OK) continue; /* duplicates */
            model[i] = -1;
        }
        for (int i = 0; i < N; i++) {
            int len = snprintf(key, sizeof key, "key-%d", i);
            sdx_mval *v = sdx_mval_get(imp, key, (size_t)len);
            wrong += model[i] >= 0 ? sdx_mval_int(v) != model[i] : v != NULL;
        }
        CHECK_EQ_INT(wrong, 0);
        CHECK_EQ_INT(sdx_mval_int(sdx_mval_key_at(imp, sdx_mval_len(imp) - 1)), 5);
    }
    sdx_mdoc_free(md2);
    sdx_doc_free(doc);
    sdx_mdoc_free(md);
}

/* Maps against a reference: a list of (key, value) entries searched
 * linearly, under random put (duplicates), set, remove_at, remove and get
 * with few distinct keys, so that the index sees many duplicates,
 * removals in every position and growth. */
TEST(map_against_model) {
    enum { KEYS = 60, MAXN = 400 };
    sdx_mdoc *md = sdx_mdoc_new(NULL);
    sdx_mval *map = sdx_mdoc_map(md);
    int mkey[MAXN], mval[MAXN];
    size_t n = 0;
    uint64_t st = 12345;
    long steps = (long)(200000 * test_scale()), bad = 0;
    char key[16];
    for (long step = 0; step < steps; step++) {
        uint64_t r = test_rand(&st);
        int k = (int)(r % KEYS), op = (int)((r >> 8) % 10);
        int len = snprintf(key, sizeof key, "key%d", k);
        size_t first = n;
        for (size_t e = 0; e < n; e++)
            if (mkey[e] == k) {
                first = e;
                break;
            }
        bool grow = n < MAXN && (n < 20 || (r >> 16) % 3 != 0); /* size wanders 0..MAXN */
        if (op < 3 && grow) {
            bad += sdx_mval_put(map, sdx_mdoc_str(md, key, (size_t)len), sdx_mdoc_int(md, step)) != SDX_OK;
            mkey[n] = k;
            mval[n++] = (int)step;
        } else if (op < 6 && (first < n || grow)) {
            bad += sdx_mval_set(map, key, (size_t)len, sdx_mdoc_int(md, step)) != SDX_OK;
            if (first < n) {
                mval[first] = (int)step;
            } else {
                mkey[n] = k;
                mval[n++] = (int)step;
            }
        } else if (op < 8 && n) {
            size_t i = (size_t)((r >> 24) % n);
            bad += sdx_mval_remove_at(map, i) != SDX_OK;
            memmove(mkey + i, mkey + i + 1, (n - i - 1) * sizeof *mkey);
            memmove(mval + i, mval + i + 1, (n - i - 1) * sizeof *mval);
            n--;
        } else if (op < 9) {
            sdx_err rc = sdx_mval_remove(map, key, (size_t)len);
            bad += rc != (first < n ? SDX_OK : SDX_ERR_NOT_FOUND);
            if (first < n) {
                memmove(mkey + first, mkey + first + 1, (n - first - 1) * sizeof *mkey);
                memmove(mval + first, mval + first + 1, (n - first - 1) * sizeof *mval);
                n--;
            }
        } else {
            sdx_mval *v = sdx_mval_get(map, key, (size_t)len);
            bad += first < n ? sdx_mval_int(v) != mval[first] : v != NULL;
        }
        if (step % 97 == 0) { /* everything, now and then */
            bad += sdx_mval_len(map) != n;
            for (int q = 0; q < KEYS; q++) {
                len = snprintf(key, sizeof key, "key%d", q);
                size_t f = n;
                for (size_t e = 0; e < n && f == n; e++)
                    if (mkey[e] == q) f = e;
                sdx_mval *v = sdx_mval_get(map, key, (size_t)len);
                bad += f < n ? sdx_mval_int(v) != mval[f] : v != NULL;
            }
        }
    }
    CHECK_EQ_INT(bad, 0);
    sdx_mdoc_free(md);
}

/* ------------------------------------------------------------------------ */
/* Misuse                                                                    */
/* ------------------------------------------------------------------------ */

TEST(usage_rules) {
    sdx_mdoc *md = sdx_mdoc_new(NULL), *other = sdx_mdoc_new(NULL);
    sdx_mval *root = sdx_mdoc_array(md), *a = sdx_mdoc_array(md), *b = sdx_mdoc_array(md);
    sdx_mval *m = sdx_mdoc_map(md), *x = sdx_mdoc_int(md, 1);
    sdx_mdoc_set_root(md, root);
    CHECK_EQ_INT(sdx_mval_append(root, a), SDX_OK);
    CHECK_EQ_INT(sdx_mval_append(a, b), SDX_OK);
    CHECK_EQ_INT(sdx_mval_append(b, x), SDX_OK);
    /* In a container already. */
    CHECK_EQ_INT(sdx_mval_append(root, x), SDX_ERR_USAGE);
    CHECK_EQ_INT(sdx_mval_insert(root, 0, b), SDX_ERR_USAGE);
    CHECK_EQ_INT(sdx_mval_set(m, "k", 1, x), SDX_ERR_USAGE);
    CHECK_EQ_INT(sdx_mval_put(m, x, sdx_mdoc_null(md)), SDX_ERR_USAGE);
    CHECK_EQ_INT(sdx_mval_put(m, sdx_mdoc_null(md), x), SDX_ERR_USAGE);
    CHECK_EQ_INT(sdx_mdoc_set_root(md, x), SDX_ERR_USAGE);
    /* The root. */
    CHECK_EQ_INT(sdx_mval_append(b, root), SDX_ERR_USAGE);
    CHECK_EQ_INT(sdx_mval_set(m, "r", 1, root), SDX_ERR_USAGE);
    /* Itself and its ancestors (cycles). */
    CHECK_EQ_INT(sdx_mval_append(m, m), SDX_ERR_TYPE); /* m is a map */
    sdx_mval *c = sdx_mdoc_array(md), *d = sdx_mdoc_array(md), *e = sdx_mdoc_map(md);
    CHECK_EQ_INT(sdx_mval_append(c, c), SDX_ERR_USAGE);
    CHECK_EQ_INT(sdx_mval_append(c, d), SDX_OK);
    CHECK_EQ_INT(sdx_mval_set(e, "c", 1, c), SDX_OK);
    sdx_mval *top = sdx_mdoc_array(md);
    CHECK_EQ_INT(sdx_mval_append(top, e), SDX_OK);
    CHECK_EQ_INT(sdx_mval_append(d, top), SDX_ERR_USAGE); /* top -> e -> c -> d */
    CHECK_EQ_INT(sdx_mval_set(e, "self", 4, e), SDX_ERR_USAGE);
    CHECK_EQ_INT(sdx_mval_put(e, e, sdx_mdoc_null(md)), SDX_ERR_USAGE);
    sdx_mval *k2 = sdx_mdoc_array(md);
    sdx_mval_append(k2, sdx_mdoc_int(md, 1));
    CHECK_EQ_INT(sdx_mval_put(e, k2, k2), SDX_ERR_USAGE); /* key and value the same */
    /* A key of a map is inside it. */
    sdx_mval *key = sdx_mdoc_strz(md, "key");
    CHECK_EQ_INT(sdx_mval_put(e, key, sdx_mdoc_null(md)), SDX_OK);
    CHECK_EQ_INT(sdx_mval_append(d, key), SDX_ERR_USAGE);
    /* Another mdoc's values. */
    sdx_mval *foreign = sdx_mdoc_int(other, 5);
    CHECK_EQ_INT(sdx_mval_append(root, foreign), SDX_ERR_USAGE);
    CHECK_EQ_INT(sdx_mdoc_set_root(md, foreign), SDX_ERR_USAGE);
    CHECK_EQ_INT(sdx_mdoc_error(other), SDX_OK);
    /* The first error is kept; operations go on working after it. */
    CHECK_EQ_INT(sdx_mdoc_error(md), SDX_ERR_USAGE);
    CHECK_EQ_INT(sdx_mval_append(root, sdx_mdoc_int(md, 2)), SDX_OK);
    sdx_mval_index(root, 99);
    CHECK_EQ_INT(take_err(md), SDX_ERR_USAGE);
    CHECK_EQ_INT(sdx_mdoc_error(md), SDX_OK);
    /* Nothing changed by the refused edits. */
    sdx_event want[] = {ev_array(2), ev_array(1), ev_array(1), ev_int(1), ev_end(), ev_end(), ev_int(2), ev_end()};
    CHECK(mdoc_is(md, want, COUNT(want)));
    /* A new root: the old one becomes detached and may be added. */
    CHECK_EQ_INT(sdx_mdoc_set_root(md, top), SDX_OK);
    CHECK_EQ_INT(sdx_mval_append(top, root), SDX_OK);
    CHECK_EQ_INT(sdx_mdoc_set_root(md, top), SDX_OK); /* again: fine */
    CHECK_EQ_INT(sdx_mdoc_error(md), SDX_OK);
    sdx_mdoc_free(md);
    sdx_mdoc_free(other);
}

/* ------------------------------------------------------------------------ */
/* Conversions and emit                                                      */
/* ------------------------------------------------------------------------ */

static const sdx_event sample[] = {
    {SDX_MAP, 0, 0, 0, 0, {.count = 5}},
    {SDX_KEY, 0, 0, 1, 0, {.str = {"name", 4}}},
    {SDX_STR, 0, 0, 1, 0, {.str = {"sdx", 3}}},
    {SDX_KEY, SDX_TAG_CBOR, 0, 1, 7, {.str = {"list", 4}}},
    {SDX_ARRAY, SDX_TAG_BSON, 0, 1, 4, {.count = 4}},
    {SDX_INT, 0, 0, 2, 0, {.i = -3}},
    {SDX_DOUBLE, 0, 0, 2, 0, {.d = -0.0}},
    {SDX_RAW, 0, 0, 2, 0, {.str = {"1e400", 5}}},
    {SDX_MAP, 0, 0, 2, 0, {.count = 0}},
    {SDX_END, 0, 0, 2, 0, {.count = 0}},
    {SDX_END, 0, 0, 1, 0, {.count = 0}},
    {SDX_INT, 0, 0, 1, 0, {.i = 42}},
    {SDX_BIN, SDX_TAG_MSGPACK_EXT, 0, 1, 1, {.str = {"\xff\x00", 2}}},
    {SDX_ARRAY, 0, 0, 1, 0, {.count = 2}},
    {SDX_BOOL, 0, 0, 2, 0, {.b = true}},
    {SDX_NULL, 0, 0, 2, 0, {.u = 0}},
    {SDX_END, 0, 0, 1, 0, {.count = 0}},
    {SDX_UINT, 0, 0, 1, 0, {.u = UINT64_MAX}},
    {SDX_KEY, 0, 0, 1, 0, {.str = {"", 0}}},
    {SDX_STR, 0, 0, 1, 0, {.str = {"", 0}}},
    {SDX_END, 0, 0, 0, 0, {.count = 0}},
};

TEST(conversions) {
    sdx_doc *doc = build(sample, COUNT(sample));
    if (!CHECK(doc != NULL)) return;
    sdx_node root = sdx_doc_root(doc);
    sdx_mdoc *md = sdx_mdoc_from_node(root, NULL);
    if (!CHECK(md != NULL)) return;
    sdx_mval *mr = sdx_mdoc_root(md);
    CHECK_EQ_INT(sdx_mval_type(mr), SDX_TYPE_MAP);
    CHECK_EQ_U64(sdx_mval_len(mr), 5);
    uint64_t tag;
    CHECK(sdx_mval_tag(sdx_mval_key_at(mr, 1), &tag) == SDX_TAG_CBOR && tag == 7);
    CHECK(sdx_mval_tag(sdx_mval_get(mr, "list", 4), &tag) == SDX_TAG_BSON && tag == 4);
    CHECK_EQ_INT(sdx_mval_type(sdx_mval_index(sdx_mval_get(mr, "list", 4), 2)), SDX_TYPE_RAW);
    CHECK_EQ_INT(sdx_mval_int(sdx_mval_key_at(mr, 2)), 42);
    CHECK_EQ_INT(sdx_mdoc_error(md), SDX_OK);
    /* Back to a document: equal. */
    sdx_err err = SDX_ERR_IO;
    sdx_doc *back = sdx_mdoc_to_doc(md, &err);
    CHECK_EQ_INT(err, SDX_OK);
    if (CHECK(back != NULL)) CHECK(sdx_node_equal(root, sdx_doc_root(back)));
    sdx_doc_free(back);
    /* Emit: the same events as the document's. */
    rec r;
    rec_init(&r);
    CHECK_EQ_INT(sdx_mval_emit(mr, rec_sink(&r)), SDX_OK);
    CHECK(rec_equals(&r, sample, COUNT(sample)));
    CHECK_EQ_INT(r.finished, 0);
    /* A subtree: depth from 0, its tag included; a scalar. */
    rec_clear(&r);
    CHECK_EQ_INT(sdx_mval_emit(sdx_mval_get(mr, "list", 4), rec_sink(&r)), SDX_OK);
    sdx_event sub[7];
    memcpy(sub, sample + 4, sizeof sub);
    ev_set_depths(sub, COUNT(sub));
    CHECK(rec_equals(&r, sub, COUNT(sub)));
    rec_clear(&r);
    CHECK_EQ_INT(sdx_mval_emit(sdx_mval_key_at(mr, 1), rec_sink(&r)), SDX_OK);
    sdx_event keyv = ev_tagged(ev_str("list"), SDX_TAG_CBOR, 7); /* a value on its own */
    CHECK(rec_equals(&r, &keyv, 1));
    /* The sink's error stops the walk. */
    for (long k = 1; k <= (long)COUNT(sample); k++) {
        rec_clear(&r);
        r.fail_at = k;
        r.fail_err = SDX_ERR_UNSUPPORTED;
        CHECK_EQ_INT(sdx_mval_emit(mr, rec_sink(&r)), SDX_ERR_UNSUPPORTED);
        CHECK_EQ_U64(r.n, (size_t)k - 1);
    }
    rec_free(&r);
    /* Into the JSON writer: a non-string key is refused. */
    sdx_buf out;
    sdx_buf_init(&out, NULL);
    sdx_json_writer w;
    sdx_json_writer_init(&w, &out, NULL);
    CHECK_EQ_INT(sdx_mval_emit(mr, sdx_json_writer_sink(&w)), SDX_ERR_KEY);
    sdx_json_writer_finish(&w);
    sdx_buf_destroy(&out);
    /* Import a subtree into another mdoc and edit it there. */
    sdx_mdoc *md2 = sdx_mdoc_new(NULL);
    sdx_mval *list = sdx_mdoc_import(md2, sdx_node_getz(root, "list"));
    if (CHECK(list != NULL)) {
        CHECK_EQ_INT(sdx_mval_append(list, sdx_mdoc_strz(md2, "more")), SDX_OK);
        sdx_mval *top = sdx_mdoc_map(md2);
        CHECK_EQ_INT(sdx_mval_set(top, "l", 1, list), SDX_OK);
        CHECK_EQ_INT(sdx_mdoc_set_root(md2, top), SDX_OK);
        sdx_event want[] = {ev_map(1), ev_key("l"), ev_tagged(ev_array(5), SDX_TAG_BSON, 4), ev_int(-3),
                            ev_double(-0.0), ev_raw("1e400"), ev_map(0), ev_end(), ev_str("more"),
                            ev_end(), ev_end()};
        CHECK(mdoc_is(md2, want, COUNT(want)));
    }
    /* Scalars import too. */
    sdx_mval *i = sdx_mdoc_import(md2, sdx_node_value_at(root, 2));
    CHECK_EQ_INT(sdx_mval_type(i), SDX_TYPE_BIN);
    CHECK(sdx_mval_tag(i, &tag) == SDX_TAG_MSGPACK_EXT && tag == 1);
    sdx_mdoc_free(md2);
    /* No root: nothing to convert. */
    sdx_mdoc *empty = sdx_mdoc_new(NULL);
    CHECK(sdx_mdoc_to_doc(empty, &err) == NULL);
    CHECK_EQ_INT(err, SDX_ERR_USAGE);
    CHECK(sdx_mdoc_to_doc(empty, NULL) == NULL);
    sdx_mdoc_free(empty);
    sdx_mdoc_free(md);
    sdx_doc_free(doc);
}

/* ------------------------------------------------------------------------ */
/* Deep nesting                                                              */
/* ------------------------------------------------------------------------ */

#define DEEP 1000000

TEST(deep_nesting) {
    /* Built by hand, bottom up (each wrap is O(1)) and top down (appending
     * an empty container is O(1)). */
    for (int way = 0; way < 2; way++) {
        sdx_mdoc *md = sdx_mdoc_new(NULL);
        sdx_mval *inner = sdx_mdoc_int(md, 0), *outer = NULL;
        if (way == 0) {
            for (int i = 0; i < DEEP; i++) {
                outer = sdx_mdoc_array(md);
                sdx_mval_append(outer, inner);
                inner = outer;
            }
        } else {
            outer = sdx_mdoc_array(md);
            sdx_mval *cur = outer;
            for (int i = 1; i < DEEP; i++) {
                sdx_mval *next = sdx_mdoc_array(md);
                sdx_mval_append(cur, next);
                cur = next;
            }
            sdx_mval_append(cur, inner);
        }
        sdx_mdoc_set_root(md, outer);
        CHECK_EQ_INT(sdx_mdoc_error(md), SDX_OK);
        sdx_err err;
        sdx_doc *doc = sdx_mdoc_to_doc(md, &err);
        if (CHECK(doc != NULL)) {
            CHECK_EQ_U64(sdx_doc_size(doc), (size_t)DEEP + 1);
            size_t len;
            sdx_err rc;
            char *json = node_json(sdx_doc_root(doc), 0, &len, &rc);
            if (CHECK(json != NULL)) {
                CHECK_EQ_U64(len, 2 * (size_t)DEEP + 1);
                CHECK(json[0] == '[' && json[DEEP - 1] == '[' && json[DEEP] == '0' && json[len - 1] == ']');
            }
            free(json);
            /* Back to an mdoc, and its emit into the JSON writer. */
            sdx_mdoc *md2 = sdx_mdoc_from_node(sdx_doc_root(doc), NULL);
            if (CHECK(md2 != NULL)) {
                sdx_buf out;
                sdx_buf_init(&out, NULL);
                sdx_json_writer w;
                sdx_json_writer_init(&w, &out, NULL);
                CHECK_EQ_INT(sdx_mval_emit(sdx_mdoc_root(md2), sdx_json_writer_sink(&w)), SDX_OK);
                CHECK_EQ_INT(sdx_json_writer_finish(&w), SDX_OK);
                CHECK_EQ_U64(sdx_buf_len(&out), 2 * (size_t)DEEP + 1);
                sdx_buf_destroy(&out);
                /* The cycle check walks up: a detached non-empty container
                 * added at the bottom of a deep tree. */
                sdx_mval *x = sdx_mdoc_root(md2);
                for (int i = 0; i < DEEP - 1; i++) x = sdx_mval_index(x, 0);
                sdx_mval *extra = sdx_mdoc_array(md2);
                sdx_mval_append(extra, sdx_mdoc_null(md2));
                CHECK_EQ_INT(sdx_mval_append(x, extra), SDX_OK);
                CHECK_EQ_INT(sdx_mval_append(extra, sdx_mdoc_root(md2)), SDX_ERR_USAGE);
            }
            sdx_mdoc_free(md2);
        }
        sdx_doc_free(doc);
        sdx_mdoc_free(md);
    }
}

/* ------------------------------------------------------------------------ */
/* Allocation failures                                                       */
/* ------------------------------------------------------------------------ */

/* A sequence of edits that allocates in every way: values in several
 * chunks, strings in chunks and a block of their own, child arrays growing,
 * a map index built and rebuilt. Returns whether everything succeeded. */
static bool edit_sequence(sdx_mdoc *md) {
    static char big[70000];
    memset(big, 'b', sizeof big);
    sdx_mval *root = sdx_mdoc_map(md);
    bool ok = sdx_mdoc_set_root(md, root) == SDX_OK;
    char key[16];
    for (int i = 0; i < 40; i++) {
        int len = snprintf(key, sizeof key, "k%d", i);
        sdx_mval *arr = sdx_mdoc_array(md);
        for (int j = 0; j < i % 7; j++) ok &= sdx_mval_append(arr, sdx_mdoc_str(md, "element string", 14)) == SDX_OK;
        ok &= sdx_mval_insert(arr, 0, sdx_mdoc_double(md, i)) == SDX_OK;
        ok &= sdx_mval_set(root, key, (size_t)len, arr) == SDX_OK;
        ok &= sdx_mval_get(root, key, (size_t)len) == arr;
    }
    ok &= sdx_mval_put(root, sdx_mdoc_int(md, 1), sdx_mdoc_bin(md, big, sizeof big)) == SDX_OK;
    ok &= sdx_mval_remove(root, "k3", 2) == SDX_OK;
    ok &= sdx_mval_set(root, "k5", 2, sdx_mval_set_tag(sdx_mdoc_raw(md, "1", 1), SDX_TAG_CBOR, 2)) == SDX_OK;
    return ok && sdx_mdoc_error(md) == SDX_OK;
}

static sdx_err emit_mval(const void *v, sdx_sink sink) { return sdx_mval_emit(v, sink); }

TEST(alloc_failures) {
    /* The reference result. */
    sdx_mdoc *ref = sdx_mdoc_new(NULL);
    CHECK(edit_sequence(ref));
    sdx_err err;
    sdx_doc *want = sdx_mdoc_to_doc(ref, &err);
    if (!CHECK(want != NULL)) return;
    /* Edits: every failure is a clean SDX_ERR_NOMEM, nothing leaks. */
    long failures = 0;
    for (long at = 1;; at++) {
        counting_alloc ca;
        counting_alloc_init(&ca, at);
        sdx_mdoc *md = sdx_mdoc_new(&ca.iface);
        if (md) {
            bool ok = edit_sequence(md);
            if (ca.calls >= at) { /* an allocation failed */
                if (ok) {
                    /* only a map index, which falls back to a linear search */
                    sdx_doc *got = sdx_mdoc_to_doc(md, &err);
                    CHECK(got && sdx_node_equal(sdx_doc_root(got), sdx_doc_root(want)));
                    sdx_doc_free(got);
                } else {
                    CHECK_EQ_INT(sdx_mdoc_error(md), SDX_ERR_NOMEM);
                    failures++;
                }
            }
            sdx_mdoc_free(md);
        }
        CHECK_EQ_INT(ca.live, 0);
        if (ca.calls < at) break;
    }
    CHECK(failures > 10);
    /* to_doc, from_node, import and emit. */
    counting_alloc ca;
    counting_alloc_init(&ca, 0);
    sdx_mdoc *md = sdx_mdoc_new(&ca.iface);
    CHECK(edit_sequence(md));
    /* deeper than the walks' inline stacks */
    sdx_mval *deep = sdx_mdoc_array(md);
    sdx_mval_set(sdx_mdoc_root(md), "deep", 4, deep);
    for (int i = 0; i < 100; i++) {
        sdx_mval *next = sdx_mdoc_array(md);
        sdx_mval_append(deep, next);
        deep = next;
    }
    sdx_doc *full = sdx_mdoc_to_doc(md, &err);
    if (!CHECK(full != NULL)) return;
    long live = ca.live;
    failures = 0;
    for (long at = 1;; at++) {
        ca.calls = 0;
        ca.fail_at = at;
        sdx_doc *d = sdx_mdoc_to_doc(md, &err);
        long calls = ca.calls;
        ca.fail_at = 0;
        if (d) {
            CHECK(sdx_node_equal(sdx_doc_root(d), sdx_doc_root(full)));
            sdx_doc_free(d);
        } else {
            CHECK_EQ_INT(err, SDX_ERR_NOMEM);
            failures++;
        }
        CHECK_EQ_INT(ca.live, live);
        if (calls < at) break;
    }
    CHECK(failures > 5);
    failures = 0;
    for (long at = 1;; at++) {
        counting_alloc cb;
        counting_alloc_init(&cb, at);
        sdx_mdoc *copy = sdx_mdoc_from_node(sdx_doc_root(full), &cb.iface);
        long calls = cb.calls;
        cb.fail_at = 0;
        if (copy) {
            sdx_doc *d = sdx_mdoc_to_doc(copy, &err);
            CHECK(d && sdx_node_equal(sdx_doc_root(d), sdx_doc_root(full)));
            sdx_doc_free(d);
            sdx_mdoc_free(copy);
        } else {
            failures++;
        }
        CHECK_EQ_INT(cb.live, 0);
        if (calls < at) break;
    }
    CHECK(failures > 5);
    /* import into an existing mdoc: NULL and SDX_ERR_NOMEM; the mdoc stays
     * usable and frees everything. */
    for (long at = 1;; at++) {
        ca.calls = 0;
        ca.fail_at = at;
        sdx_mval *v = sdx_mdoc_import(md, sdx_doc_root(full));
        long calls = ca.calls;
        ca.fail_at = 0;
        if (!v) CHECK_EQ_INT(take_err(md), SDX_ERR_NOMEM);
        if (calls < at) break;
    }
    /* emit: its stack grows through the mdoc's allocator. */
    CHECK(check_emit_failures(&ca, emit_mval, sdx_mdoc_root(md)) >= 1);
    sdx_doc_free(full);
    sdx_mdoc_free(md);
    CHECK_EQ_INT(ca.live, 0);
    sdx_mdoc_free(ref);
    sdx_doc_free(want);
}

/* ------------------------------------------------------------------------ */
/* Randomized                                                                */
/* ------------------------------------------------------------------------ */

/* Random documents through events: doc -> mdoc -> doc equal, the mdoc's
 * events the generated ones; then random edits on the mdoc mirrored on a
 * second mdoc built from the edited one's events. */
TEST(random_round_trips) {
    gen g;
    memset(&g, 0, sizeof g);
    long docs = (long)(1000 * test_scale());
    rec r;
    rec_init(&r);
    long bad = 0;
    for (long d = 0; d < docs; d++) {
        uint64_t seed = (uint64_t)d * 0x2545f4914f6cdd1dull + 99;
        gen_doc(&g, seed, 1 + d % 8, 10 + d % 200);
        sdx_event *unk = gen_unknown_counts(&g.out, seed);
        sdx_doc *doc = build(unk, g.out.n);
        free(unk);
        if (!doc) {
            bad++;
            continue;
        }
        sdx_mdoc *md = sdx_mdoc_from_node(sdx_doc_root(doc), NULL);
        sdx_err err;
        sdx_doc *back = md ? sdx_mdoc_to_doc(md, &err) : NULL;
        const char *stage = "doc -> mdoc -> doc";
        bool ok = back && sdx_node_equal(sdx_doc_root(doc), sdx_doc_root(back));
        rec_clear(&r);
        if (ok) stage = "emit";
        ok = ok && sdx_mval_emit(sdx_mdoc_root(md), rec_sink(&r)) == SDX_OK &&
             rec_equals(&r, g.out.evs, g.out.n);
        if (ok) stage = "edit";
        /* Random edits on containers found by walking down at random. */
        for (int e = 0; ok && e < 40; e++) {
            sdx_mval *c = sdx_mdoc_root(md);
            while (sdx_mval_len(c) && test_rand(&seed) % 3) {
                sdx_type t = sdx_mval_type(c);
                if (t != SDX_TYPE_ARRAY && t != SDX_TYPE_MAP) break;
                size_t i = (size_t)(test_rand(&seed) % sdx_mval_len(c));
                sdx_mval *next = t == SDX_TYPE_ARRAY ? sdx_mval_index(c, i) : sdx_mval_value_at(c, i);
                sdx_type nt = sdx_mval_type(next);
                if (nt != SDX_TYPE_ARRAY && nt != SDX_TYPE_MAP) break;
                c = next;
            }
            sdx_type t = sdx_mval_type(c);
            uint64_t op = test_rand(&seed) % 4;
            size_t len = sdx_mval_len(c);
            if (t == SDX_TYPE_ARRAY) {
                if (op == 0 && len) ok = sdx_mval_remove_at(c, (size_t)(test_rand(&seed) % len)) == SDX_OK;
                else if (op == 1) ok = sdx_mval_insert(c, (size_t)(test_rand(&seed) % (len + 1)), sdx_mdoc_int(md, e)) == SDX_OK;
                else ok = sdx_mval_append(c, sdx_mdoc_strz(md, "new")) == SDX_OK;
                ok = ok && sdx_mval_len(c) == len + (op == 0 && len ? (size_t)-1 : 1);
            } else if (t == SDX_TYPE_MAP) {
                char key[8] = {'k', (char)('a' + test_rand(&seed) % 8), 0};
                if (op == 0 && len) ok = sdx_mval_remove_at(c, (size_t)(test_rand(&seed) % len)) == SDX_OK;
                else if (op == 1) ok = sdx_mval_put(c, sdx_mdoc_int(md, e), sdx_mdoc_null(md)) == SDX_OK;
                else {
                    ok = sdx_mval_set(c, key, 2, sdx_mdoc_int(md, e)) == SDX_OK;
                    ok = ok && sdx_mval_int(sdx_mval_get(c, key, 2)) == e;
                }
            }
        }
        /* The edited mdoc converts, and its events rebuild the same tree. */
        if (ok) stage = "edited";
        sdx_doc *edited = ok ? sdx_mdoc_to_doc(md, &err) : NULL;
        ok = ok && edited;
        rec_clear(&r);
        ok = ok && sdx_mval_emit(sdx_mdoc_root(md), rec_sink(&r)) == SDX_OK;
        sdx_doc *rebuilt = ok ? build(r.evs, r.n) : NULL;
        ok = ok && rebuilt && sdx_node_equal(sdx_doc_root(edited), sdx_doc_root(rebuilt));
        ok = ok && sdx_mdoc_error(md) == SDX_OK;
        if (!ok) {
            fprintf(stderr, "  random document %ld failed: %s\n", d, stage);
            bad++;
        }
        sdx_doc_free(rebuilt);
        sdx_doc_free(edited);
        sdx_doc_free(back);
        sdx_mdoc_free(md);
        sdx_doc_free(doc);
    }
    CHECK_EQ_INT(bad, 0);
    rec_free(&r);
    rec_free(&g.out);
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){
                        {"create_and_inspect", create_and_inspect},
                        {"null_arguments", null_arguments},
                        {"array_edits", array_edits},
                        {"map_edits", map_edits},
                        {"large_map", large_map},
                        {"map_against_model", map_against_model},
                        {"usage_rules", usage_rules},
                        {"conversions", conversions},
                        {"deep_nesting", deep_nesting},
                        {"alloc_failures", alloc_failures},
                        {"random_round_trips", random_round_trips},
                        {0, 0},
                    });
}
