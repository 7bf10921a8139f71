/*
 * JSON documents into the plain tree, through jansson (Debian's
 * libjansson-dev): an independent parser, used by bench_tool and the tests
 * only. Benchmark programs read tree files instead (treefile.h), so that
 * none of them carries a JSON parser of its own.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tree.h"

static void from_jansson(bt_node *out, json_t *j) {
    memset(out, 0, sizeof *out);
    switch (json_typeof(j)) {
    case JSON_NULL: out->type = BT_NULL; break;
    case JSON_TRUE: out->type = BT_BOOL, out->v.b = true; break;
    case JSON_FALSE: out->type = BT_BOOL, out->v.b = false; break;
    case JSON_INTEGER: out->type = BT_INT, out->v.i = (int64_t)json_integer_value(j); break;
    case JSON_REAL: out->type = BT_DOUBLE, out->v.d = json_real_value(j); break;
    case JSON_STRING:
        out->type = BT_STR;
        out->v.str.len = json_string_length(j);
        out->v.str.ptr = bt_dup(json_string_value(j), out->v.str.len);
        break;
    case JSON_ARRAY: {
        size_t n = json_array_size(j);
        out->type = BT_ARRAY;
        out->v.c.count = n;
        out->v.c.items = calloc(n ? n : 1, sizeof(bt_node));
        for (size_t i = 0; i < n; i++) from_jansson(&out->v.c.items[i], json_array_get(j, i));
        break;
    }
    case JSON_OBJECT: {
        size_t n = json_object_size(j), i = 0;
        out->type = BT_MAP;
        out->v.c.count = n;
        out->v.c.items = calloc(n ? 2 * n : 1, sizeof(bt_node));
        const char *key;
        size_t key_len;
        json_t *val;
        /* jansson keeps insertion order */
        json_object_keylen_foreach(j, key, key_len, val) {
            bt_node *k = &out->v.c.items[2 * i];
            k->type = BT_STR;
            k->v.str.ptr = bt_dup(key, key_len);
            k->v.str.len = key_len;
            from_jansson(&out->v.c.items[2 * i + 1], val);
            i++;
        }
        break;
    }
    }
}

bt_node *bt_load_json_file(const char *path) {
    json_error_t err;
    json_t *j = json_load_file(path, JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
    if (!j) {
        fprintf(stderr, "%s:%d:%d: %s\n", path, err.line, err.column, err.text);
        return NULL;
    }
    bt_node *root = malloc(sizeof *root);
    from_jansson(root, j);
    json_decref(j);
    return root;
}

bt_node *bt_load_spec(const char *spec) {
    if (strncmp(spec, "json:", 5) == 0) return bt_load_json_file(spec + 5);
    return bt_from_spec(spec);
}
