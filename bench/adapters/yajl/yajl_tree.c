/*
 * YAJL 2.1.0 (Debian), JSON, Tree: yajl_tree_parse and a walk of the tree.
 *
 * yajl_tree_parse takes a NUL-terminated string (no length): the harness
 * puts zero bytes after the data. The tree keeps each number as text plus
 * a long long (if strtoll-style parsing fits, YAJL_IS_INTEGER) and a double
 * (strtod, YAJL_IS_DOUBLE): an integer is hashed as YAJL's integer, anything
 * else as its double. So an unsigned integer above INT64_MAX comes out as a
 * double — YAJL's tree has no uint64, and this adapter does not re-parse the
 * text (YAJL_GET_NUMBER) to make up for it. Strings and keys are
 * NUL-terminated C strings without a length (strlen).
 */
#include <string.h>
#include <yajl/yajl_tree.h>

#include "adapter.h"

static int walk(yajl_val v, sbh *h) {
    switch (v->type) {
    case yajl_t_null: sbh_null(h); return 0;
    case yajl_t_true: sbh_bool(h, 1); return 0;
    case yajl_t_false: sbh_bool(h, 0); return 0;
    case yajl_t_number:
        if (YAJL_IS_INTEGER(v)) sbh_int(h, YAJL_GET_INTEGER(v));
        else if (YAJL_IS_DOUBLE(v)) sbh_double(h, YAJL_GET_DOUBLE(v));
        else return bench_error("a number that is neither YAJL_IS_INTEGER nor YAJL_IS_DOUBLE"), 1;
        return 0;
    case yajl_t_string: sbh_str(h, v->u.string, strlen(v->u.string)); return 0;
    case yajl_t_array:
        sbh_array(h);
        for (size_t i = 0; i < v->u.array.len; i++)
            if (walk(v->u.array.values[i], h)) return 1;
        sbh_end(h);
        return 0;
    case yajl_t_object:
        sbh_map(h);
        for (size_t i = 0; i < v->u.object.len; i++) {
            const char *k = v->u.object.keys[i];
            sbh_key(h, k, strlen(k));
            if (walk(v->u.object.values[i], h)) return 1;
        }
        sbh_end(h);
        return 0;
    default: return bench_error("yajl_val of unknown type %d", (int)v->type), 1;
    }
}

static int adapter_parse(const char *data, size_t len, sbh *h) {
    (void)len; /* data[len] == 0: see above */
    char err[256];
    err[0] = 0;
    yajl_val root = yajl_tree_parse(data, err, sizeof err);
    if (!root) {
        bench_error("%s", err[0] ? err : "yajl_tree_parse failed");
        return 1;
    }
    int bad = walk(root, h);
    yajl_tree_free(root);
    return bad;
}

const bench_adapter bench_adapter_def = {"yajl", "C", "json", "tree", NULL, adapter_parse};
