/*
 * libcbor 0.8, CBOR, Tree: cbor_load (the "high level decoding" into a
 * reference-counted cbor_item_t tree), a walk, cbor_decref.
 *
 * Integers: cbor_get_int gives the magnitude of any width; a negative
 * integer's value is -1 - n. n >= 2^63 (below INT64_MIN) cannot be hashed
 * as an int64 and is rejected (the benchmark's data never has one).
 * Floats: cbor_float_get_float widens half/single/double to double.
 * cbor_load also rejects text strings that are not valid UTF-8 (it counts
 * their code points).
 */
#include <cbor.h>

#include "adapter.h"

static int walk(const cbor_item_t *it, sbh *h) {
    switch (cbor_typeof(it)) {
    case CBOR_TYPE_UINT: sbh_uint(h, cbor_get_int(it)); return 0;
    case CBOR_TYPE_NEGINT: {
        uint64_t n = cbor_get_int(it);
        if (n > (uint64_t)INT64_MAX) return bench_error("a negative integer below INT64_MIN"), -1;
        sbh_int(h, -1 - (int64_t)n);
        return 0;
    }
    case CBOR_TYPE_STRING:
        if (!cbor_string_is_definite(it)) /* chunked: not in the data */
            return bench_error("an indefinite-length text string"), -1;
        sbh_str(h, (const char *)cbor_string_handle(it), cbor_string_length(it));
        return 0;
    case CBOR_TYPE_BYTESTRING:
        if (!cbor_bytestring_is_definite(it)) return bench_error("an indefinite-length byte string"), -1;
        sbh_bin(h, cbor_bytestring_handle(it), cbor_bytestring_length(it));
        return 0;
    case CBOR_TYPE_ARRAY: {
        cbor_item_t **items = cbor_array_handle(it);
        size_t n = cbor_array_size(it);
        sbh_array(h);
        for (size_t i = 0; i < n; i++)
            if (walk(items[i], h)) return -1;
        sbh_end(h);
        return 0;
    }
    case CBOR_TYPE_MAP: {
        struct cbor_pair *pairs = cbor_map_handle(it);
        size_t n = cbor_map_size(it);
        sbh_map(h);
        for (size_t i = 0; i < n; i++) {
            const cbor_item_t *k = pairs[i].key;
            if (!cbor_isa_string(k) || !cbor_string_is_definite(k))
                return bench_error("a map key that is not a definite text string"), -1;
            sbh_key(h, (const char *)cbor_string_handle(k), cbor_string_length(k));
            if (walk(pairs[i].value, h)) return -1;
        }
        sbh_end(h);
        return 0;
    }
    case CBOR_TYPE_FLOAT_CTRL:
        if (cbor_float_get_width(it) != CBOR_FLOAT_0) {
            sbh_double(h, cbor_float_get_float(it));
            return 0;
        }
        if (cbor_is_null(it)) {
            sbh_null(h);
            return 0;
        }
        if (cbor_is_bool(it)) {
            sbh_bool(h, cbor_get_bool(it));
            return 0;
        }
        return bench_error("undefined or another simple value"), -1;
    default: return bench_error("a tag"), -1; /* not in the benchmark's data */
    }
}

/* cbor_load's error: its code (cbor/data.h) and position. */
static void cbor_load_error(const struct cbor_load_result *res) {
    static const char *const names[] = {"CBOR_ERR_NONE", "CBOR_ERR_NOTENOUGHDATA", "CBOR_ERR_NODATA",
                                        "CBOR_ERR_MALFORMATED", "CBOR_ERR_MEMERROR", "CBOR_ERR_SYNTAXERROR"};
    unsigned c = (unsigned)res->error.code;
    bench_error("cbor_load: %s at byte %zu", c < sizeof names / sizeof *names ? names[c] : "unknown error",
                res->error.position);
}

static int cb_parse(const char *data, size_t len, sbh *h) {
    struct cbor_load_result res;
    cbor_item_t *item = cbor_load((cbor_data)data, len, &res);
    if (!item) {
        cbor_load_error(&res);
        return 1;
    }
    int r = 1;
    if (res.error.code != CBOR_ERR_NONE) cbor_load_error(&res);
    else if (res.read != len) bench_error("%zu bytes after the item", len - res.read);
    else r = walk(item, h) != 0;
    cbor_decref(&item);
    return r;
}

const bench_adapter bench_adapter_def = {"libcbor", "C", "cbor", "tree", NULL, cb_parse};
