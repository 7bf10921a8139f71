/*
 * Jansson 2.14 (Debian), JSON, Tree: json_loadb and a walk of the json_t
 * tree (objects iterate in insertion order). JSON_DECODE_ANY and
 * JSON_ALLOW_NUL make Jansson accept every valid JSON text (any root value,
 * "\u0000" in strings).
 *
 * Jansson's integers are json_int_t (long long): it rejects an integer
 * above INT64_MAX ("too big integer"), which shows as a failed parse.
 */
#include "jansson_common.h"

static void walk(const json_t *v, sbh *h) {
    switch (json_typeof(v)) {
    case JSON_NULL: sbh_null(h); break;
    case JSON_TRUE: sbh_bool(h, 1); break;
    case JSON_FALSE: sbh_bool(h, 0); break;
    case JSON_INTEGER: sbh_int(h, (int64_t)json_integer_value(v)); break;
    case JSON_REAL: sbh_double(h, json_real_value(v)); break;
    case JSON_STRING: sbh_str(h, json_string_value(v), json_string_length(v)); break;
    case JSON_ARRAY: {
        size_t n = json_array_size(v);
        sbh_array(h);
        for (size_t i = 0; i < n; i++) walk(json_array_get(v, i), h);
        sbh_end(h);
        break;
    }
    case JSON_OBJECT: {
        const char *key;
        size_t key_len;
        json_t *val;
        sbh_map(h);
        json_object_keylen_foreach((json_t *)v, key, key_len, val) {
            sbh_key(h, key, key_len);
            walk(val, h);
        }
        sbh_end(h);
        break;
    }
    }
}

static int adapter_parse(const char *data, size_t len, sbh *h) {
    json_t *doc = jansson_load(data, len);
    if (!doc) return 1;
    walk(doc, h);
    json_decref(doc);
    return 0;
}

const bench_adapter bench_adapter_def = {"jansson", "C", "json", "tree", NULL, adapter_parse};
