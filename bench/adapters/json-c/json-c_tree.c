/*
 * json-c 0.16 (Debian), JSON, Tree: json_tokener_parse_ex (a fresh tokener
 * per call, default depth and flags) and a walk of the json_object tree.
 * Objects iterate in insertion order.
 *
 * json-c has int64 and uint64 integers (0.14+) but no public call that says
 * which one an integer is: a negative integer is read with
 * json_object_get_int64, any other with json_object_get_uint64 (exact for
 * both kinds when the value is >= 0). Keys are NUL-terminated without a
 * length (strlen); strings have json_object_get_string_len.
 */
#include <json-c/json.h>
#include <string.h>

#include "adapter.h"

static void walk(json_object *v, sbh *h) {
    switch (json_object_get_type(v)) {
    case json_type_null: sbh_null(h); break;
    case json_type_boolean: sbh_bool(h, json_object_get_boolean(v)); break;
    case json_type_double: sbh_double(h, json_object_get_double(v)); break;
    case json_type_int: {
        int64_t i = json_object_get_int64(v);
        if (i < 0) sbh_int(h, i);
        else sbh_uint(h, json_object_get_uint64(v));
        break;
    }
    case json_type_string: sbh_str(h, json_object_get_string(v), (size_t)json_object_get_string_len(v)); break;
    case json_type_array: {
        size_t n = json_object_array_length(v);
        sbh_array(h);
        for (size_t i = 0; i < n; i++) walk(json_object_array_get_idx(v, i), h);
        sbh_end(h);
        break;
    }
    case json_type_object: {
        sbh_map(h);
        json_object_object_foreach(v, key, val) {
            sbh_key(h, key, strlen(key));
            walk(val, h);
        }
        sbh_end(h);
        break;
    }
    }
}

static int adapter_parse(const char *data, size_t len, sbh *h) {
    if (len > (size_t)INT32_MAX) {
        bench_error("input longer than json-c's int length");
        return 1;
    }
    json_tokener *tok = json_tokener_new();
    if (!tok) {
        bench_error("json_tokener_new: out of memory");
        return 1;
    }
    json_object *doc = json_tokener_parse_ex(tok, data, (int)len);
    enum json_tokener_error e = json_tokener_get_error(tok);
    if (e != json_tokener_success)
        bench_error("%s at byte %zu", json_tokener_error_desc(e), json_tokener_get_parse_end(tok));
    json_tokener_free(tok);
    if (e == json_tokener_success) walk(doc, h);
    json_object_put(doc);
    return e != json_tokener_success;
}

const bench_adapter bench_adapter_def = {"json-c", "C", "json", "tree", NULL, adapter_parse};
