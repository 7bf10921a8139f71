/*
 * yyjson (the yyjson-sys crate's C source), JSON, Tree: yyjson_read_opts
 * (immutable document, default flags: standard JSON, full-precision doubles;
 * yyjson_read with the error report) and a walk of the document.
 * YYJSON_READ_INSITU would be faster but modifies the input, which the
 * harness hands out read-only (it is parsed again on the next call).
 */
#include "adapter.h"
#include "yyjson.h"

static void walk(yyjson_val *v, sbh *h) {
    switch (yyjson_get_type(v)) {
    case YYJSON_TYPE_NULL: sbh_null(h); break;
    case YYJSON_TYPE_BOOL: sbh_bool(h, yyjson_get_bool(v)); break;
    case YYJSON_TYPE_NUM:
        switch (yyjson_get_subtype(v)) {
        case YYJSON_SUBTYPE_UINT: sbh_uint(h, yyjson_get_uint(v)); break;
        case YYJSON_SUBTYPE_SINT: sbh_int(h, yyjson_get_sint(v)); break;
        default: sbh_double(h, yyjson_get_real(v)); break;
        }
        break;
    case YYJSON_TYPE_STR: sbh_str(h, yyjson_get_str(v), yyjson_get_len(v)); break;
    case YYJSON_TYPE_ARR: {
        size_t idx, max;
        yyjson_val *item;
        sbh_array(h);
        yyjson_arr_foreach(v, idx, max, item) walk(item, h);
        sbh_end(h);
        break;
    }
    case YYJSON_TYPE_OBJ: {
        size_t idx, max;
        yyjson_val *key, *val;
        sbh_map(h);
        yyjson_obj_foreach(v, idx, max, key, val) {
            sbh_key(h, yyjson_get_str(key), yyjson_get_len(key));
            walk(val, h);
        }
        sbh_end(h);
        break;
    }
    default: break; /* YYJSON_TYPE_RAW needs a read flag that is not set */
    }
}

static int adapter_parse(const char *data, size_t len, sbh *h) {
    yyjson_read_err err;
    /* without YYJSON_READ_INSITU the input is not written to */
    yyjson_doc *doc = yyjson_read_opts((char *)data, len, YYJSON_READ_NOFLAG, NULL, &err);
    if (!doc) {
        bench_error("%s at byte %zu", err.msg, err.pos);
        return 1;
    }
    walk(yyjson_doc_get_root(doc), h);
    yyjson_doc_free(doc);
    return 0;
}

const bench_adapter bench_adapter_def = {"yyjson", "C", "json", "tree", NULL, adapter_parse};
