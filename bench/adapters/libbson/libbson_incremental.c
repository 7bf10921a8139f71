/*
 * libbson 1.23, BSON, Incremental: libbson reads BSON in place. A bson_t
 * over the input (bson_init_static: checks the length header) and a
 * bson_iter_t pulling one element at a time, bson_iter_recurse into
 * sub-documents and arrays. No tree is built: this is libbson's pull API.
 * (bson_visit_all is a callback visitor over the same iterator; the plain
 * iterator is the more common and cheaper way.)
 *
 * Validation: what bson_iter_next does (every length, type byte, key and
 * string terminator in bounds; it stops and sets err_off on corruption),
 * the checks libbson makes when a program simply reads a document. We do
 * not add bson_validate() (UTF-8, key rules): none of the other binary
 * peers validate UTF-8 either.
 *
 * Array elements are hashed as array items (their keys "0", "1", ... are
 * not values). Integers: int32 and int64 by value.
 */
#include <bson/bson.h>

#include "adapter.h"

static int walk(bson_iter_t *it, sbh *h, bool is_array) {
    while (bson_iter_next(it)) {
        if (!is_array) sbh_key(h, bson_iter_key(it), bson_iter_key_len(it));
        switch (bson_iter_type(it)) {
        case BSON_TYPE_DOUBLE: sbh_double(h, bson_iter_double(it)); break;
        case BSON_TYPE_UTF8: {
            uint32_t n;
            const char *s = bson_iter_utf8(it, &n);
            sbh_str(h, s, n);
            break;
        }
        case BSON_TYPE_DOCUMENT:
        case BSON_TYPE_ARRAY: {
            bool arr = bson_iter_type(it) == BSON_TYPE_ARRAY;
            bson_iter_t child;
            if (!bson_iter_recurse(it, &child)) {
                bench_error("bson_iter_recurse failed (corrupt nested document)");
                return -1;
            }
            if (arr) sbh_array(h);
            else sbh_map(h);
            if (walk(&child, h, arr)) return -1;
            sbh_end(h);
            break;
        }
        case BSON_TYPE_BINARY: {
            bson_subtype_t st;
            uint32_t n;
            const uint8_t *p;
            bson_iter_binary(it, &st, &n, &p);
            sbh_bin(h, p, n);
            break;
        }
        case BSON_TYPE_BOOL: sbh_bool(h, bson_iter_bool(it)); break;
        case BSON_TYPE_NULL: sbh_null(h); break;
        case BSON_TYPE_INT32: sbh_int(h, bson_iter_int32(it)); break;
        case BSON_TYPE_INT64: sbh_int(h, bson_iter_int64(it)); break;
        default: /* other BSON types: not in the benchmark's data */
            bench_error("BSON type 0x%02x", (unsigned)bson_iter_type(it));
            return -1;
        }
    }
    if (it->err_off != 0) { /* bson_iter_next stopped on corruption */
        bench_error("corrupt BSON at byte %u", (unsigned)it->err_off);
        return -1;
    }
    return 0;
}

static int bs_parse(const char *data, size_t len, sbh *h) {
    bson_t b;
    bson_iter_t it;
    if (!bson_init_static(&b, (const uint8_t *)data, len) || !bson_iter_init(&it, &b)) {
        bench_error("bson_init_static/bson_iter_init rejected the document (bad length or terminator)");
        return 1;
    }
    sbh_map(h);
    if (walk(&it, h, false)) return 1;
    sbh_end(h);
    return 0;
}

const bench_adapter bench_adapter_def = {"libbson", "C", "bson", "incremental", NULL, bs_parse};
