/*
 * sdx, any format, Tree: the format's tree parser (sdx_<fmt>_parse, default
 * options: strict, input not copied) into the immutable document, then a walk
 * of the document with the public node API (sdx_iter). Compiled once per
 * format with -DSDX_FMT=<name>; a format is added to SDX_BENCH_READ_FORMATS
 * in CMakeLists.txt when its reader lands.
 */
#include "adapter.h"
#include "sdx/sdx.h"

#define SDX_CAT3_(a, b, c) a##b##c
#define SDX_CAT3(a, b, c) SDX_CAT3_(a, b, c)
#define F(suffix) SDX_CAT3(sdx_, SDX_FMT, suffix)
#define SDX_STR_(x) #x
#define SDX_STR(x) SDX_STR_(x)

static void walk(sdx_node n, sbh *h);

static void walk_key(sdx_node k, sbh *h) {
    if (sdx_node_type(k) == SDX_TYPE_STR) {
        size_t len;
        const char *s = sdx_node_str(k, &len);
        sbh_key(h, s, len);
    } else {
        walk(k, h);
    }
}

static void walk(sdx_node n, sbh *h) {
    switch (sdx_node_type(n)) {
    case SDX_TYPE_NULL: sbh_null(h); break;
    case SDX_TYPE_BOOL: sbh_bool(h, sdx_node_bool(n)); break;
    case SDX_TYPE_INT: sbh_int(h, sdx_node_int(n)); break;
    case SDX_TYPE_UINT: sbh_uint(h, sdx_node_uint(n)); break;
    case SDX_TYPE_DOUBLE: sbh_double(h, sdx_node_double(n)); break;
    case SDX_TYPE_STR: {
        size_t len;
        const char *s = sdx_node_str(n, &len);
        sbh_str(h, s, len);
        break;
    }
    case SDX_TYPE_BIN: {
        size_t len;
        const void *p = sdx_node_bin(n, &len);
        sbh_bin(h, p, len);
        break;
    }
    case SDX_TYPE_ARRAY: {
        sdx_iter it = sdx_iter_init(n);
        sdx_node v;
        sbh_array(h);
        while (sdx_iter_next(&it, NULL, &v)) walk(v, h);
        sbh_end(h);
        break;
    }
    case SDX_TYPE_MAP: {
        sdx_iter it = sdx_iter_init(n);
        sdx_node k, v;
        sbh_map(h);
        while (sdx_iter_next(&it, &k, &v)) {
            walk_key(k, h);
            walk(v, h);
        }
        sbh_end(h);
        break;
    }
    default: break; /* RAW needs an option that is not set */
    }
}

static int sdx_tree(const char *data, size_t len, sbh *h) {
    sdx_error err;
    sdx_doc *doc = F(_parse)(data, len, NULL, &err);
    if (!doc) {
        bench_error("%s at byte %zu", err.msg ? err.msg : sdx_strerror(err.code), err.offset);
        return 1;
    }
    walk(sdx_doc_root(doc), h);
    sdx_doc_free(doc);
    return 0;
}

const bench_adapter bench_adapter_def = {"sdx", "C", SDX_STR(SDX_FMT), "tree", NULL, sdx_tree};
