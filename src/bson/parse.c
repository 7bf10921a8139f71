/*
 * The BSON tree parser. A single document of the common types (double,
 * string, embedded document, array — with SDX_BSON_READ_KEEP_ARRAY_KEYS
 * only one with the keys "0", "1", ... in order —, ObjectId, boolean, UTC
 * datetime, null, int32, int64) is parsed straight into the document's
 * value array, with every check of the reader (the lengths, terminators,
 * UTF-8, booleans, depth). Anything else — another type, an array with
 * other keys when they are kept, a sequence, bytes after the document,
 * nesting beyond the direct parser's frames, and every error — is left to
 * the general path, which parses the input again from the start: the pull
 * reader (which does every length, type, terminator, UTF-8 and depth
 * check) feeding the document builder. That path owns every error message
 * and offset; both give the same document (tests/bson/test_bson_parse.c,
 * parse_paths_agree).
 *
 * The reader's strings, keys and binaries are views into the input, so
 * both paths reference them instead of copying (or, with
 * SDX_BSON_READ_COPY_INPUT, reference one copy of the input the document
 * owns). Every event stands for at least one byte of input (a type byte,
 * a key, a length), so the document grows only with input actually read;
 * the builder's tag slots keep the BSON types other formats lack (the
 * table at the top of include/sdx/bson.h), so the document writes back to
 * the same bytes.
 */
#include <stdint.h>
#include <string.h>

#include "bson/bson_internal.h"
#include "core/doc_internal.h"
#include "core/endian.h"
#include "core/error.h"
#include "core/platform.h"
#include "core/utf8.h"
#include "sdx/bson.h"
#include "sdx/doc.h"
#include "simd/simd.h"

/* ------------------------------------------------------------------------ */
/* The direct parser of the common types                                     */
/* ------------------------------------------------------------------------ */

/* Open documents the direct parser holds; deeper input takes the general
 * path. */
#define DIRECT_DEPTH 64

typedef struct direct_frame {
    size_t end;     /* the offset of the document's terminator */
    size_t slot;    /* its slot */
    uint64_t items; /* elements so far */
    int array;
} direct_frame;

/* A tag slot of SDX_TAG_BSON (its number, the element type, in v.u). */
#define BSON_TAG_SLOT ((uint64_t)SDX_TYPE__TAG | (uint64_t)SDX_TAG_BSON << 8)

/* Whether the k bytes at s are the decimal text of i, as an array's keys
 * are (no sign, no leading zero; no array reaches 10^19 elements). */
static SDX_ALWAYS_INLINE int index_key(const uint8_t *s, size_t k, uint64_t i) {
    if (k == 0 || k > 19 || (s[0] == '0' && k > 1)) return 0;
    uint64_t v = 0;
    for (size_t j = 0; j < k; j++) {
        const unsigned c = (unsigned)s[j] - '0';
        if (c > 9) return 0;
        v = v * 10 + c;
    }
    return v == i;
}

/* Returns 1 with the document filled, 0 when the input is not one document
 * of the common types or not valid (the general path decides), -1 when an
 * allocation failed. `d` is the input (or the document's copy of it). */
static int parse_direct(sdx_doc *doc, const uint8_t *d, size_t len, uint32_t flags,
                        uint32_t max_depth) {
    size_t (*utf8_valid)(const char *, size_t) = sdx_simd_active()->utf8_valid_prefix;
    const int check_utf8 = !(flags & SDX_BSON_READ_NO_UTF8_CHECK);
    const int keep_keys = (flags & SDX_BSON_READ_KEEP_ARRAY_KEYS) != 0;
    if (len < 5 || (int32_t)sdx_load_le32(d) != (int64_t)len || max_depth == 0) return 0;
    const size_t bound = len + 2; /* every slot takes at least a byte */
    if (!sdx_doc_direct_reserve(doc, SDX_DOC_RATE_BSON, len)) return -1;
    sdx_val *vals = doc->vals;
    sdx_val *v = vals;
    sdx_val *v_end = vals + doc->vals_cap;
    direct_frame frames[DIRECT_DEPTH];
    direct_frame *top = frames;
    top->end = len - 1;
    top->slot = 0;
    top->items = 0;
    top->array = 0;
    v->tag = SDX_TYPE_MAP;
    v->v.u = 1;
    v++;
    size_t pos = 4;
    for (;;) {
        if (pos == top->end) {
            if (d[pos] != 0) return 0;
            pos++;
            if (top->items > SDX_VAL_LEN_MAX) return 0;
            vals[top->slot].tag = SDX_VAL_TAG_LEN(top->array ? SDX_TYPE_ARRAY : SDX_TYPE_MAP, top->items);
            vals[top->slot].v.u = (uint64_t)(v - vals) - top->slot;
            if (top == frames) break;
            top--;
            continue;
        }
        if (SDX_UNLIKELY(v_end - v < 3)) { /* a key, a tag, a value */
            const size_t used = (size_t)(v - vals);
            if (!sdx_doc_grow_vals(doc, used, 3, pos, len - pos, bound)) return -1;
            vals = doc->vals;
            v = vals + used;
            v_end = vals + doc->vals_cap;
        }
        const uint8_t t = d[pos];
        /* the key: a cstring before the document's terminator */
        const uint8_t *key = d + pos + 1;
        const uint8_t *nul = memchr(key, 0, top->end - pos - 1);
        if (!nul) return 0;
        const size_t klen = (size_t)(nul - key);
        if (top->array) {
            /* with SDX_BSON_READ_KEEP_ARRAY_KEYS keys other than "0", "1", ...
             * make the array a tagged map (the general path); by default an
             * array's keys are only checked as cstrings, as the reader does
             * (the UTF-8 check repeats the map's below: one branch shared by
             * both with a test for the slot inside measured 1-3 % slower on
             * gen4 and citm_catalog Tree) */
            if (keep_keys ? !index_key(key, klen, top->items)
                          : check_utf8 &&
                                !sdx_utf8_ok_in(utf8_valid, (const char *)key, klen, len - (pos + 1)))
                return 0;
        } else {
            if (check_utf8 && !sdx_utf8_ok_in(utf8_valid, (const char *)key, klen, len - (pos + 1)))
                return 0;
            v->tag = SDX_VAL_TAG_LEN(SDX_TYPE_STR, klen);
            v->v.s = klen ? (const char *)key : NULL;
            v++;
        }
        top->items++;
        const size_t at = pos + 1 + klen + 1;
        const size_t avail = top->end - at; /* value bytes before the terminator */
        const uint8_t *p = d + at;
        switch (t) {
        case SDX_BSON_DOUBLE: {
            if (avail < 8) return 0;
            const uint64_t bits = sdx_load_le64(p);
            v->tag = SDX_TYPE_DOUBLE;
            memcpy(&v->v.d, &bits, 8);
            pos = at + 8;
            break;
        }
        case SDX_BSON_STRING: {
            if (avail < 4) return 0;
            const int32_t l = (int32_t)sdx_load_le32(p);
            if (l < 1 || (size_t)l > avail - 4 || p[4 + (size_t)l - 1] != 0) return 0;
            const size_t n = (size_t)l - 1;
            if (check_utf8 && !sdx_utf8_ok_in(utf8_valid, (const char *)p + 4, n, len - (at + 4)))
                return 0;
            v->tag = SDX_VAL_TAG_LEN(SDX_TYPE_STR, n);
            v->v.s = n ? (const char *)p + 4 : NULL;
            pos = at + 4 + (size_t)l;
            break;
        }
        case SDX_BSON_DOCUMENT:
        case SDX_BSON_ARRAY: {
            if (avail < 4) return 0;
            const int32_t l = (int32_t)sdx_load_le32(p);
            const uint32_t depth = (uint32_t)(top - frames) + 1; /* open documents */
            if (l < 5 || (size_t)l > avail || depth >= max_depth || depth >= DIRECT_DEPTH) return 0;
            v->tag = t == SDX_BSON_ARRAY ? SDX_TYPE_ARRAY : SDX_TYPE_MAP;
            v->v.u = 1;
            ++top;
            top->end = at + (size_t)l - 1;
            top->slot = (size_t)(v - vals);
            top->items = 0;
            top->array = t == SDX_BSON_ARRAY;
            v++;
            pos = at + 4;
            continue;
        }
        case SDX_BSON_OBJECTID: /* 12 bytes, tagged */
            if (avail < 12) return 0;
            v[0].tag = BSON_TAG_SLOT;
            v[0].v.u = t;
            v[1].tag = SDX_VAL_TAG_LEN(SDX_TYPE_BIN, 12);
            v[1].v.s = (const char *)p;
            v++;
            pos = at + 12;
            break;
        case SDX_BSON_BOOL:
            if (avail < 1 || p[0] > 1) return 0;
            v->tag = SDX_TYPE_BOOL;
            v->v.u = p[0];
            pos = at + 1;
            break;
        case SDX_BSON_NULL:
            v->tag = SDX_TYPE_NULL;
            v->v.u = 0;
            pos = at;
            break;
        case SDX_BSON_INT32:
            if (avail < 4) return 0;
            v->tag = SDX_TYPE_INT;
            v->v.i = (int32_t)sdx_load_le32(p);
            pos = at + 4;
            break;
        case SDX_BSON_DATETIME:
        case SDX_BSON_INT64: /* tagged, so that it stays int64 */
            if (avail < 8) return 0;
            v[0].tag = BSON_TAG_SLOT;
            v[0].v.u = t;
            v[1].tag = SDX_TYPE_INT;
            v[1].v.i = (int64_t)sdx_load_le64(p);
            v++;
            pos = at + 8;
            break;
        default:
            return 0; /* the other types, and errors */
        }
        v++;
    }
    doc->nvals = (size_t)(v - vals);
    doc->consumed = len;
    return 1;
}

/* The general path: the pull reader into the builder. */
sdx_doc *sdx_bson_parse_events_(const char *data, size_t len, const sdx_bson_read_opts *opts,
                                sdx_error *err) {
    static const sdx_bson_read_opts defaults = {0, 0, 0, NULL};
    if (!opts) opts = &defaults;
    sdx_error e = {SDX_OK, 0, 0, 0, NULL};
    const sdx_alloc *alloc = opts->alloc ? opts->alloc : sdx_alloc_default();
    if (!data) len = 0;
    /* The reader limits the depth; the builder needs no limit of its own. */
    sdx_doc_build_opts bo = {alloc, UINT32_MAX};
    sdx_doc_builder b;
    sdx_bson_reader *r = NULL;
    const char *in = data;
    if (sdx_doc_builder_init(&b, &bo)) goto nomem;
    if ((opts->flags & SDX_BSON_READ_COPY_INPUT) && len) {
        char *copy = sdx_doc_block_alloc(b.doc, len);
        if (!copy) goto nomem;
        memcpy(copy, data, len);
        in = copy;
    }
    sdx_bson_read_opts ro = *opts;
    ro.alloc = alloc;
    r = sdx_bson_reader_new(in, len, &ro);
    if (!r) goto nomem;
    /* Every string, key and binary the memory reader hands out lies in
     * the input (or its copy), which outlives the document. */
    b.borrow = true;
    sdx_event ev;
    while (sdx_bson_reader_next(r, &ev)) {
        if (sdx_doc_builder_put_inline(&b, &ev)) {
            e.code = b.err;
            e.msg = sdx_strerror(b.err);
            e.offset = (size_t)sdx_bson_reader_offset(r);
            break;
        }
        /* one document, even when the reader would go on to the next */
        if (b.done) break;
    }
    if (!e.code) sdx_bson_reader_error(r, &e);
    size_t consumed = (size_t)sdx_bson_reader_offset(r);
    /* Without SDX_BSON_READ_SEQUENCE, bytes after the document are an
     * error: ask the reader for the end of the input. */
    if (!e.code && b.done && !(opts->flags & SDX_BSON_READ_SEQUENCE)) {
        (void)sdx_bson_reader_next(r, &ev); /* fails on any byte left */
        sdx_bson_reader_error(r, &e);
    }
    sdx_bson_reader_free(r);
    return sdx_doc_builder_finish_parse(&b, &e, consumed, err);

nomem:
    sdx_bson_reader_free(r);
    return sdx_doc_builder_parse_nomem(&b, err);
}

/* ------------------------------------------------------------------------ */
/* Both paths                                                                */
/* ------------------------------------------------------------------------ */

int sdx_bson_parse_direct_(const char *data, size_t len, const sdx_bson_read_opts *opts,
                           sdx_doc **out) {
    static const sdx_bson_read_opts defaults = {0, 0, 0, NULL};
    if (!opts) opts = &defaults;
    *out = NULL;
    if (!data || (opts->flags & ~(uint32_t)(SDX_BSON_READ_NO_UTF8_CHECK | SDX_BSON_READ_COPY_INPUT |
                                            SDX_BSON_READ_KEEP_ARRAY_KEYS)))
        return 0;
    sdx_doc *doc = sdx_doc_alloc(opts->alloc);
    if (!doc) return -1;
    const uint8_t *in = (const uint8_t *)data;
    if ((opts->flags & SDX_BSON_READ_COPY_INPUT) && len >= 5 &&
        (int32_t)sdx_load_le32(in) == (int64_t)len) {
        uint8_t *copy = sdx_doc_block_alloc(doc, len);
        if (!copy) {
            sdx_doc_free(doc);
            return -1;
        }
        memcpy(copy, data, len);
        in = copy;
    }
    int rc = parse_direct(doc, in, len, opts->flags,
                          opts->max_depth ? opts->max_depth : SDX_BSON_DEFAULT_MAX_DEPTH);
    if (rc > 0) *out = doc;
    else sdx_doc_free(doc);
    return rc;
}

sdx_doc *sdx_bson_parse(const char *data, size_t len, const sdx_bson_read_opts *opts,
                        sdx_error *err) {
    sdx_doc *doc;
    const int rc = sdx_bson_parse_direct_(data, len, opts, &doc);
    if (rc > 0) sdx_doc_note_rate(doc, SDX_DOC_RATE_BSON, len);
    if (rc) return sdx_doc_direct_result(rc, doc, err);
    return sdx_bson_parse_events_(data, len, opts, err);
}

