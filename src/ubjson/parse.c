/*
 * sdx_ubjson_parse. The common form of UBJSON (Draft 12, not BJData) is
 * parsed straight into the document's value array: Z T F i U I l L d D S C,
 * plain containers and containers with a count ('#'), keys and strings
 * copied into the document (so the input may go as soon as the parser
 * returns). Anything else — a no-op N, H, a typed container ('$'),
 * bytes after the value, nesting deeper than the direct parser's frames,
 * and every error — is left to the general path: the pull reader's events
 * into the document builder, which parses the whole input again from the
 * start. That path owns every error message and offset, and both give the
 * same document (tests/ubjson/test_ubjson_reader.c, parse_paths_agree).
 */
#include <string.h>

#include "core/doc_internal.h"
#include "core/endian.h"
#include "core/error.h"
#include "core/floatbits.h"
#include "core/platform.h"
#include "core/utf8.h"
#include "sdx/ubjson.h"
#include "simd/simd.h"
#include "ubjson/ubjson_internal.h"

/* ------------------------------------------------------------------------ */
/* The direct parser of the common form                                      */
/* ------------------------------------------------------------------------ */

/* Open containers the direct parser holds; deeper input takes the general
 * path. */
#define DIRECT_DEPTH 64

typedef struct direct_frame {
    size_t slot;    /* the container's slot */
    uint64_t left;  /* elements (entries) still to come when counted */
    uint64_t items; /* elements (entries) so far */
    uint8_t map;
    uint8_t counted;
} direct_frame;

/* A length or count at p: an integer marker (i U I l L) and its value,
 * not negative; NULL when it is anything else or the input ends. */
static SDX_ALWAYS_INLINE const uint8_t *direct_length(const uint8_t *p, const uint8_t *end,
                                                      uint64_t *n) {
    if (p == end) return NULL;
    const size_t avail = (size_t)(end - p) - 1;
    switch (*p) {
    case 'U':
        if (avail < 1) return NULL;
        *n = p[1];
        return p + 2;
    case 'i':
        if (avail < 1 || p[1] > 127) return NULL;
        *n = p[1];
        return p + 2;
    case 'I': {
        if (avail < 2) return NULL;
        const int16_t v = (int16_t)sdx_load_be16(p + 1);
        if (v < 0) return NULL;
        *n = (uint64_t)v;
        return p + 3;
    }
    case 'l': {
        if (avail < 4) return NULL;
        const int32_t v = (int32_t)sdx_load_be32(p + 1);
        if (v < 0) return NULL;
        *n = (uint64_t)v;
        return p + 5;
    }
    case 'L': {
        if (avail < 8) return NULL;
        const int64_t v = (int64_t)sdx_load_be64(p + 1);
        if (v < 0) return NULL;
        *n = (uint64_t)v;
        return p + 9;
    }
    default:
        return NULL;
    }
}

/* A string's length and bytes at *pp into the slot v, copied into the
 * document, UTF-8 checked unless utf8_valid is NULL; *pp moves past them.
 * Returns 1, 0 when they are not valid (the general path's), -1 when out
 * of memory. */
static SDX_ALWAYS_INLINE int direct_text(sdx_doc *doc, sdx_val *v, const uint8_t **pp,
                                         const uint8_t *end,
                                         size_t (*utf8_valid)(const char *, size_t)) {
    uint64_t n;
    const uint8_t *q = direct_length(*pp, end, &n);
    if (!q || n > (uint64_t)(end - q)) return 0;
    if (utf8_valid && !sdx_utf8_ok(utf8_valid, (const char *)q, (size_t)n)) return 0;
    const char *s = NULL;
    if (n && !(s = sdx_doc_store_bytes(doc, (const char *)q, (size_t)n))) return -1;
    v->tag = SDX_VAL_TAG_LEN(SDX_TYPE_STR, n);
    v->v.s = s;
    *pp = q + n;
    return 1;
}

/* Returns 1 with the document filled (every slot, doc->nvals and
 * doc->consumed), 0 when the input is not of the common form or not valid
 * (the general path decides), -1 when an allocation failed. The slots are
 * those the builder makes from the reader's events. */
static int parse_direct(sdx_doc *doc, const uint8_t *start, const uint8_t *end, uint32_t flags,
                        uint32_t max_depth) {
    size_t (*utf8_valid)(const char *, size_t) =
        flags & SDX_UBJSON_READ_NO_UTF8_CHECK ? NULL : sdx_simd_active()->utf8_valid_prefix;
    const size_t len = (size_t)(end - start);
    const size_t bound = len + 2; /* every slot takes at least a byte */
    if (!sdx_doc_direct_reserve(doc, SDX_DOC_RATE_UBJSON, len)) return -1;
    sdx_val *vals = doc->vals;
    sdx_val *v = vals;
    sdx_val *v_end = vals + doc->vals_cap;
    direct_frame frames[DIRECT_DEPTH];
    /* frames[0] stands for the input: a counted container of one value */
    direct_frame *top = frames;
    top->slot = 0;
    top->left = 1;
    top->items = 0;
    top->map = 0;
    top->counted = 1;
    const uint8_t *p = start;
    for (;;) {
        if (top->counted) {
            if (top->left == 0) goto close;
            top->left--;
        } else {
            if (p == end) return 0;
            if (*p == (top->map ? '}' : ']')) {
                p++;
                goto close;
            }
        }
        top->items++;
        if (SDX_UNLIKELY(v_end - v < 2)) {
            const size_t used = (size_t)(v - vals);
            if (!sdx_doc_grow_vals(doc, used, 2, (size_t)(p - start), (size_t)(end - p), bound))
                return -1;
            vals = doc->vals;
            v = vals + used;
            v_end = vals + doc->vals_cap;
        }
        if (top->map) { /* the key: a length and its bytes, no marker */
            const int rc = direct_text(doc, v, &p, end, utf8_valid);
            if (rc <= 0) return rc;
            v++;
        }
        if (p == end) return 0;
        const size_t avail = (size_t)(end - p) - 1;
        switch (*p) {
        case 'Z':
            v->tag = SDX_TYPE_NULL;
            v->v.u = 0;
            p++;
            break;
        case 'T':
        case 'F':
            v->tag = SDX_TYPE_BOOL;
            v->v.u = *p == 'T';
            p++;
            break;
        case 'i':
            if (avail < 1) return 0;
            v->tag = SDX_TYPE_INT;
            v->v.i = (int8_t)p[1];
            p += 2;
            break;
        case 'U':
            if (avail < 1) return 0;
            v->tag = SDX_TYPE_INT;
            v->v.i = p[1];
            p += 2;
            break;
        case 'I':
            if (avail < 2) return 0;
            v->tag = SDX_TYPE_INT;
            v->v.i = (int16_t)sdx_load_be16(p + 1);
            p += 3;
            break;
        case 'l':
            if (avail < 4) return 0;
            v->tag = SDX_TYPE_INT;
            v->v.i = (int32_t)sdx_load_be32(p + 1);
            p += 5;
            break;
        case 'L':
            if (avail < 8) return 0;
            v->tag = SDX_TYPE_INT;
            v->v.i = (int64_t)sdx_load_be64(p + 1);
            p += 9;
            break;
        case 'd':
            if (avail < 4) return 0;
            v->tag = SDX_TYPE_DOUBLE | SDX_VAL_FLOAT32;
            v->v.d = sdx_float_bits_to_double(sdx_load_be32(p + 1));
            p += 5;
            break;
        case 'D': {
            if (avail < 8) return 0;
            const uint64_t bits = sdx_load_be64(p + 1);
            v->tag = SDX_TYPE_DOUBLE;
            memcpy(&v->v.d, &bits, 8);
            p += 9;
            break;
        }
        case 'S': {
            p++;
            const int rc = direct_text(doc, v, &p, end, utf8_valid);
            if (rc <= 0) return rc;
            break;
        }
        case 'C': { /* a char: an ASCII string of one byte */
            if (avail < 1 || p[1] > 127) return 0;
            const char *s = sdx_doc_store_bytes(doc, (const char *)p + 1, 1);
            if (!s) return -1;
            v->tag = SDX_VAL_TAG_LEN(SDX_TYPE_STR, 1);
            v->v.s = s;
            p += 2;
            break;
        }
        case '[':
        case '{': {
            const uint8_t map = *p == '{';
            const uint32_t depth = (uint32_t)(top - frames); /* open containers */
            if (depth >= max_depth || depth + 1 >= DIRECT_DEPTH) return 0;
            p++;
            uint64_t count = 0;
            uint8_t counted = 0;
            if (p != end && *p == '#') {
                const uint8_t *q = direct_length(p + 1, end, &count);
                /* each element takes a marker, each entry also a key of
                 * two bytes at least (the reader's count check) */
                if (!q || count > (uint64_t)(end - q) / (map ? 3 : 1)) return 0;
                p = q;
                counted = 1;
            } else if (p != end && *p == '$') {
                return 0; /* typed: the general path's */
            }
            v->tag = map ? SDX_TYPE_MAP : SDX_TYPE_ARRAY;
            v->v.u = 1;
            ++top;
            top->slot = (size_t)(v - vals);
            top->left = count;
            top->items = 0;
            top->map = map;
            top->counted = counted;
            v++;
            continue;
        }
        default:
            return 0; /* N H, BJData's markers, errors */
        }
        v++;
        continue;

    close:
        if (top == frames) break;
        if (top->items > SDX_VAL_LEN_MAX) return 0;
        vals[top->slot].tag = SDX_VAL_TAG_LEN(top->map ? SDX_TYPE_MAP : SDX_TYPE_ARRAY, top->items);
        vals[top->slot].v.u = (uint64_t)(v - vals) - top->slot;
        top--;
    }
    /* anything after the value (no-ops included) is the general path's */
    if (p != end) return 0;
    doc->nvals = (size_t)(v - vals);
    doc->consumed = len;
    return 1;
}

/* ------------------------------------------------------------------------ */
/* The general path                                                          */
/* ------------------------------------------------------------------------ */

/* The pull reader's events into the builder, which copies strings into the
 * document. Nesting, counts and limits are the reader's; the builder is
 * given the same depth limit. */
static sdx_doc *parse_events(const char *data, size_t len, const sdx_ubjson_read_opts *o,
                             sdx_error *err) {
    sdx_ubjson_reader *r = sdx_ubjson_reader_new(data, len, o);
    if (!r) {
        sdx_error_fill(err, SDX_ERR_NOMEM, 0, "out of memory");
        return NULL;
    }
    sdx_doc_build_opts bo = {o->alloc, o->max_depth ? o->max_depth : SDX_UBJSON_DEFAULT_MAX_DEPTH};
    sdx_doc_builder b;
    sdx_err e = sdx_doc_builder_init(&b, &bo);
    sdx_event ev;
    while (!e && sdx_ubjson_reader_next(r, &ev)) {
        e = sdx_doc_builder_put_inline(&b, &ev);
        /* STOP_AFTER_VALUE: the first complete value is the document */
        if (!e && ev.depth == 0 && ev.kind != SDX_ARRAY && ev.kind != SDX_MAP &&
            (o->flags & SDX_UBJSON_READ_STOP_AFTER_VALUE))
            break;
    }
    uint64_t consumed = sdx_ubjson_reader_offset(r);
    sdx_error rerr;
    sdx_err re = sdx_ubjson_reader_error(r, &rerr);
    sdx_ubjson_reader_free(r);
    if (re) {
        sdx_doc_free(sdx_doc_builder_finish(&b, NULL));
        if (err) *err = rerr;
        return NULL;
    }
    sdx_err be = SDX_OK;
    sdx_doc *doc = sdx_doc_builder_finish(&b, &be);
    if (!doc) {
        sdx_error_fill(err, be ? be : (e ? e : SDX_ERR_NOMEM), (size_t)consumed,
                       sdx_strerror(be ? be : e));
        return NULL;
    }
    doc->consumed = (size_t)consumed;
    return doc;
}

sdx_doc *sdx_ubjson_parse_events_(const char *data, size_t len, const sdx_ubjson_read_opts *opts,
                                  sdx_error *err) {
    sdx_ubjson_read_opts o = {0, 0, 0, NULL};
    if (opts) o = *opts;
    return parse_events(data, len, &o, err);
}

int sdx_ubjson_parse_direct_(const char *data, size_t len, const sdx_ubjson_read_opts *opts,
                             sdx_doc **out) {
    sdx_ubjson_read_opts o = {0, 0, 0, NULL};
    if (opts) o = *opts;
    const uint32_t direct_flags = SDX_UBJSON_READ_NO_UTF8_CHECK | SDX_UBJSON_READ_STOP_AFTER_VALUE |
                                  SDX_UBJSON_READ_BYTE_ARRAYS;
    *out = NULL;
    if (!data || !len || (o.flags & ~direct_flags)) return 0;
    sdx_doc *doc = sdx_doc_alloc(o.alloc);
    if (!doc) return -1;
    int rc = parse_direct(doc, (const uint8_t *)data, (const uint8_t *)data + len, o.flags,
                          o.max_depth ? o.max_depth : SDX_UBJSON_DEFAULT_MAX_DEPTH);
    /* the string chunk left over is the document's own now */
    doc->str_cur = NULL;
    doc->str_left = 0;
    if (rc > 0) *out = doc;
    else sdx_doc_free(doc);
    return rc;
}

sdx_doc *sdx_ubjson_parse(const char *data, size_t len, const sdx_ubjson_read_opts *opts,
                          sdx_error *err) {
    sdx_doc *doc;
    const int rc = sdx_ubjson_parse_direct_(data, len, opts, &doc);
    if (rc > 0) sdx_doc_note_rate(doc, SDX_DOC_RATE_UBJSON, len);
    if (rc) return sdx_doc_direct_result(rc, doc, err);
    return sdx_ubjson_parse_events_(data, len, opts, err);
}
