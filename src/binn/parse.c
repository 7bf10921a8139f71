/*
 * The Binn tree parser. A value of the common types (null, true, false,
 * the integers, float32, float64, text, blob, list, map and object) is
 * parsed straight into the document's value array, with every size,
 * count, terminator, UTF-8 and depth check of the reader, strings and
 * blobs borrowed from the input. Anything else — a typed string or user
 * type, SDX_BINN_READ_COPY_INPUT, bytes after the value, nesting beyond
 * the direct parser's frames, and every error — is left to the general
 * path, which parses the input again from the start: the pull reader's
 * events into the document builder (the reader checks every size and
 * count before anything is reserved and keeps its container stack on the
 * heap; strings and blobs are borrowed from the input unless
 * SDX_BINN_READ_COPY_INPUT asks the builder to copy them). That path owns
 * every error message and offset; both give the same document
 * (tests/binn/test_binn_reader.c, parse_paths_agree).
 */
#include <string.h>

#include "binn/binn_internal.h"
#include "core/doc_internal.h"
#include "core/error.h"
#include "core/floatbits.h"
#include "core/platform.h"
#include "core/utf8.h"
#include "simd/simd.h"

/* ------------------------------------------------------------------------ */
/* The direct parser of the common types                                     */
/* ------------------------------------------------------------------------ */

/* Open containers the direct parser holds; deeper input takes the general
 * path. */
#define DIRECT_DEPTH 64

typedef struct direct_frame {
    size_t end;    /* the offset just after the container */
    size_t slot;   /* its slot */
    uint64_t left; /* items still due (a map's or object's keys and values) */
    uint32_t count;
    uint8_t kind; /* the container's type byte: list, map or object */
} direct_frame;

/* A size or count parameter at q, with `avail` bytes readable from q: one
 * byte below 0x80, else four (big-endian, the top bit cleared). Returns
 * its width, 0 when the bytes are not there. */
static SDX_ALWAYS_INLINE size_t direct_param(const uint8_t *q, size_t avail, uint32_t *v) {
    if (avail < 1) return 0;
    if (!(q[0] & 0x80)) {
        *v = q[0];
        return 1;
    }
    if (avail < 4) return 0;
    *v = sdx_load_be32(q) & SDX_BINN_SIZE_MAX;
    return 4;
}

/* Returns 1 with the document filled, 0 when the input is not a value of
 * the common types or not valid (the general path decides), -1 when an
 * allocation failed. Strings and blobs are borrowed from the input. */
static int parse_direct(sdx_doc *doc, const uint8_t *d, size_t len, uint32_t flags,
                        uint32_t max_depth) {
    size_t (*utf8_valid)(const char *, size_t) =
        flags & SDX_BINN_READ_NO_UTF8_CHECK ? NULL : sdx_simd_active()->utf8_valid_prefix;
    const size_t bound = len + 2; /* every slot takes at least a byte */
    if (!sdx_doc_direct_reserve(doc, SDX_DOC_RATE_BINN, len)) return -1;
    sdx_val *vals = doc->vals;
    sdx_val *v = vals;
    sdx_val *v_end = vals + doc->vals_cap;
    direct_frame frames[DIRECT_DEPTH];
    /* frames[0] stands for the input: a list of one value */
    direct_frame *top = frames;
    top->end = len;
    top->left = 1;
    top->kind = SDX_BINN_LIST;
    size_t pos = 0;
    for (;;) {
        if (top->left == 0) {
            if (top == frames) break;
            if (pos != top->end) return 0; /* its items end before its size */
            vals[top->slot].tag =
                SDX_VAL_TAG_LEN(top->kind == SDX_BINN_LIST ? SDX_TYPE_ARRAY : SDX_TYPE_MAP, top->count);
            vals[top->slot].v.u = (uint64_t)(v - vals) - top->slot;
            top--;
            continue;
        }
        if (SDX_UNLIKELY(v_end - v < 2)) {
            const size_t used = (size_t)(v - vals);
            if (!sdx_doc_grow_vals(doc, used, 2, pos, len - pos, bound)) return -1;
            vals = doc->vals;
            v = vals + used;
            v_end = vals + doc->vals_cap;
        }
        const size_t room = top->end - pos; /* bytes left in the container */
        const uint8_t *p = d + pos;
        if (top->kind != SDX_BINN_LIST && !(top->left & 1)) { /* a key */
            top->left--;
            if (top->kind == SDX_BINN_MAP) {
                if (room < 4) return 0;
                v->tag = SDX_TYPE_INT;
                v->v.i = (int32_t)sdx_load_be32(p);
                pos += 4;
            } else {
                if (room < 1 || (size_t)p[0] + 1 > room) return 0;
                const size_t n = p[0];
                if (utf8_valid && n && !sdx_utf8_ok_in(utf8_valid, (const char *)p + 1, n, len - pos - 1))
                    return 0;
                v->tag = SDX_VAL_TAG_LEN(SDX_TYPE_STR, n);
                v->v.s = n ? (const char *)p + 1 : NULL;
                pos += 1 + n;
            }
            v++;
            continue;
        }
        top->left--;
        if (room < 1) return 0;
        const unsigned t = p[0];
        size_t n = 0; /* bytes of the value after its type */
        switch (t) {
        case SDX_BINN_NULL:
            v->tag = SDX_TYPE_NULL;
            v->v.u = 0;
            break;
        case SDX_BINN_TRUE:
        case SDX_BINN_FALSE:
            v->tag = SDX_TYPE_BOOL;
            v->v.u = t == SDX_BINN_TRUE;
            break;
        case SDX_BINN_UINT8:
        case SDX_BINN_INT8:
            if (room < 2) return 0;
            v->tag = SDX_TYPE_INT;
            v->v.i = t == SDX_BINN_UINT8 ? (int64_t)p[1] : (int64_t)(int8_t)p[1];
            n = 1;
            break;
        case SDX_BINN_UINT16:
        case SDX_BINN_INT16: {
            if (room < 3) return 0;
            const uint16_t x = sdx_load_be16(p + 1);
            v->tag = SDX_TYPE_INT;
            v->v.i = t == SDX_BINN_UINT16 ? (int64_t)x : (int64_t)(int16_t)x;
            n = 2;
            break;
        }
        case SDX_BINN_UINT32:
        case SDX_BINN_INT32: {
            if (room < 5) return 0;
            const uint32_t x = sdx_load_be32(p + 1);
            v->tag = SDX_TYPE_INT;
            v->v.i = t == SDX_BINN_UINT32 ? (int64_t)x : (int64_t)(int32_t)x;
            n = 4;
            break;
        }
        case SDX_BINN_FLOAT32:
            if (room < 5) return 0;
            v->tag = SDX_TYPE_DOUBLE | SDX_VAL_FLOAT32;
            v->v.d = sdx_float_bits_to_double(sdx_load_be32(p + 1));
            n = 4;
            break;
        case SDX_BINN_UINT64:
        case SDX_BINN_INT64: {
            if (room < 9) return 0;
            const uint64_t x = sdx_load_be64(p + 1);
            v->tag = t == SDX_BINN_UINT64 && x > INT64_MAX ? SDX_TYPE_UINT : SDX_TYPE_INT;
            v->v.u = x;
            n = 8;
            break;
        }
        case SDX_BINN_FLOAT64: {
            if (room < 9) return 0;
            const uint64_t bits = sdx_load_be64(p + 1);
            v->tag = SDX_TYPE_DOUBLE;
            memcpy(&v->v.d, &bits, 8);
            n = 8;
            break;
        }
        case SDX_BINN_TEXT:
        case SDX_BINN_BLOB: {
            uint32_t sz;
            const size_t w = direct_param(p + 1, room - 1, &sz);
            const int text = t == SDX_BINN_TEXT;
            if (!w || (uint64_t)sz + text > room - 1 - w) return 0;
            const uint8_t *q = p + 1 + w;
            const size_t readable = len - (size_t)(q - d); /* to the input's end */
            if (text && (q[sz] != 0 ||
                         (utf8_valid && sz && !sdx_utf8_ok_in(utf8_valid, (const char *)q, sz, readable))))
                return 0;
            v->tag = SDX_VAL_TAG_LEN(text ? SDX_TYPE_STR : SDX_TYPE_BIN, sz);
            v->v.s = sz ? (const char *)q : NULL;
            n = w + sz + (size_t)text;
            break;
        }
        case SDX_BINN_LIST:
        case SDX_BINN_MAP:
        case SDX_BINN_OBJECT: {
            uint32_t size, count;
            const size_t sw = direct_param(p + 1, room - 1, &size);
            const size_t cw = sw ? direct_param(p + 1 + sw, room - 1 - sw, &count) : 0;
            const size_t h = 1 + sw + cw;
            const uint32_t depth = (uint32_t)(top - frames); /* open containers */
            const uint64_t min_item = t == SDX_BINN_LIST ? 1 : t == SDX_BINN_MAP ? 5 : 2;
            if (!cw || size < h || size > room || (uint64_t)count * min_item > size - h ||
                depth >= max_depth || depth + 1 >= DIRECT_DEPTH)
                return 0;
            v->tag = t == SDX_BINN_LIST ? SDX_TYPE_ARRAY : SDX_TYPE_MAP;
            v->v.u = 1;
            ++top;
            top->end = pos + size;
            top->slot = (size_t)(v - vals);
            top->count = count;
            top->left = t == SDX_BINN_LIST ? count : 2 * (uint64_t)count;
            top->kind = (uint8_t)t;
            v++;
            pos += h;
            continue;
        }
        default:
            return 0; /* tagged and two-byte types, user types, errors */
        }
        v++;
        pos += 1 + n;
    }
    /* after the value: the end, or (STOP_AFTER_VALUE) whatever follows */
    if (pos != len && !(flags & SDX_BINN_READ_STOP_AFTER_VALUE)) return 0;
    doc->nvals = (size_t)(v - vals);
    doc->consumed = pos;
    return 1;
}

/* The general path: the pull reader into the builder. */
sdx_doc *sdx_binn_parse_events_(const char *data, size_t len, const sdx_binn_read_opts *opts,
                                sdx_error *err) {
    sdx_binn_read_opts o = {0, 0, NULL};
    if (opts) o = *opts;
    bool stop = (o.flags & SDX_BINN_READ_STOP_AFTER_VALUE) != 0;
    o.flags &= ~(uint32_t)SDX_BINN_READ_STOP_AFTER_VALUE; /* the reader's sequence flag */
    sdx_binn_reader *r = sdx_binn_reader_new(data, len, &o);
    if (!r) {
        sdx_error_fill(err, SDX_ERR_NOMEM, 0, "out of memory");
        return NULL;
    }
    if (stop) sdx_binn_reader_one_value(r);
    sdx_doc_builder b;
    sdx_doc_build_opts bo;
    memset(&bo, 0, sizeof bo);
    bo.alloc = o.alloc;
    bo.max_depth = o.max_depth ? o.max_depth : SDX_BINN_DEFAULT_MAX_DEPTH;
    sdx_err rc = sdx_doc_builder_init(&b, &bo);
    b.borrow = !(o.flags & SDX_BINN_READ_COPY_INPUT);
    if (!rc) rc = sdx_binn_reader_build_(r, &b);
    if (rc) {
        /* The builder refused: out of memory (or a limit of its own). */
        sdx_error_fill(err, rc, sdx_binn_reader_offset(r), sdx_strerror(rc));
    } else {
        rc = sdx_binn_reader_error(r, err);
    }
    uint64_t consumed = sdx_binn_reader_offset(r);
    sdx_binn_reader_free(r);
    sdx_err brc;
    sdx_doc *doc = sdx_doc_builder_finish(&b, &brc);
    if (rc) {
        sdx_doc_free(doc);
        return NULL;
    }
    if (!doc) {
        sdx_error_fill(err, brc, consumed, sdx_strerror(brc));
        return NULL;
    }
    doc->consumed = (size_t)consumed;
    return doc;
}

/* ------------------------------------------------------------------------ */
/* Both paths                                                                */
/* ------------------------------------------------------------------------ */

int sdx_binn_parse_direct_(const char *data, size_t len, const sdx_binn_read_opts *opts,
                           sdx_doc **out) {
    static const sdx_binn_read_opts defaults = {0, 0, NULL};
    if (!opts) opts = &defaults;
    *out = NULL;
    if (!data || !len ||
        (opts->flags & ~(uint32_t)(SDX_BINN_READ_NO_UTF8_CHECK | SDX_BINN_READ_STOP_AFTER_VALUE)))
        return 0;
    sdx_doc *doc = sdx_doc_alloc(opts->alloc);
    if (!doc) return -1;
    int rc = parse_direct(doc, (const uint8_t *)data, len, opts->flags,
                          opts->max_depth ? opts->max_depth : SDX_BINN_DEFAULT_MAX_DEPTH);
    if (rc > 0) *out = doc;
    else sdx_doc_free(doc);
    return rc;
}

sdx_doc *sdx_binn_parse(const char *data, size_t len, const sdx_binn_read_opts *opts,
                        sdx_error *err) {
    sdx_doc *doc;
    const int rc = sdx_binn_parse_direct_(data, len, opts, &doc);
    if (rc > 0) sdx_doc_note_rate(doc, SDX_DOC_RATE_BINN, len);
    if (rc) return sdx_doc_direct_result(rc, doc, err);
    return sdx_binn_parse_events_(data, len, opts, err);
}
