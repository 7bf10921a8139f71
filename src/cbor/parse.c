/*
 * The CBOR tree parser, in two parts:
 *
 * - A direct parser for the common input: one pass over the input filling
 *   the document's value array (doc.h describes the layout), with an
 *   explicit stack of open containers, for items without tags, without
 *   indefinite lengths and without simple values other than false, true
 *   and null, and without the optional key checks. It gives up (returns
 *   FALLBACK, having kept nothing) at the first thing it does not handle,
 *   errors included, so that every error is reported by the second part,
 *   the same for every input.
 * - The general parser: the pull reader (which does every well-formedness,
 *   limit and key check) feeding the document builder, with definite-length
 *   strings referenced in the input instead of copied; strings joined from
 *   indefinite-length chunks live in the reader's scratch buffer and are
 *   copied into the document.
 *
 * Both build the same document for the same input. Every slot stands for
 * at least one byte of input (a head, a tag or a break), so the document
 * grows only with input actually read; declared counts and lengths are
 * checked against the bytes left before anything is done with them.
 */
#include <stdint.h>
#include <string.h>

#include "cbor/cbor_internal.h"
#include "core/doc_internal.h"
#include "core/platform.h"
#include "core/utf8.h"
#include "sdx/cbor.h"
#include "simd/simd.h"

/* ------------------------------------------------------------------------ */
/* The direct parser                                                         */
/* ------------------------------------------------------------------------ */

enum { DIRECT_OK, DIRECT_NOMEM, DIRECT_FALLBACK };

/* An open container: its slot, and the items (a map's keys and values)
 * still to come. */
typedef struct frame {
    size_t slot;
    uint64_t left;
} frame;

#define INLINE_FRAMES 64

typedef struct direct {
    sdx_doc *doc;
    sdx_alloc alloc;
    frame *frames;
    uint32_t cap;
    frame inline_frames[INLINE_FRAMES];
} direct;

static SDX_NOINLINE int grow_frames(direct *ps) {
    uint32_t cap = ps->cap > UINT32_MAX / 2 ? UINT32_MAX : ps->cap * 2;
    frame *f;
    if (ps->frames == ps->inline_frames) {
        f = ps->alloc.malloc(ps->alloc.ctx, (size_t)cap * sizeof(frame));
        if (f) memcpy(f, ps->frames, (size_t)ps->cap * sizeof(frame));
    } else {
        f = ps->alloc.realloc(ps->alloc.ctx, ps->frames, (size_t)ps->cap * sizeof(frame),
                              (size_t)cap * sizeof(frame));
    }
    if (!f) return 0;
    ps->frames = f;
    ps->cap = cap;
    return 1;
}

/* The parse loop over [p, end): DIRECT_OK with the document filled and its
 * `consumed` set, DIRECT_NOMEM, or DIRECT_FALLBACK for anything else. */
static int direct_values(direct *ps, const uint8_t *start, const uint8_t *end, uint32_t flags,
                         uint32_t max_depth) {
    sdx_doc *doc = ps->doc;
    size_t (*utf8_valid)(const char *, size_t) = sdx_simd_active()->utf8_valid_prefix;
    const int check_utf8 = !(flags & SDX_CBOR_READ_NO_UTF8_CHECK);
    const uint8_t *p = start;
    const size_t bound = (size_t)(end - p) + 1;
    size_t n = 0; /* slots filled */
    uint32_t depth = 0;
    frame *top = NULL;

    if (p == end) return DIRECT_FALLBACK;
    for (;;) {
        if (depth) {
            if (top->left == 0) { /* close the container */
                sdx_val *c = &doc->vals[top->slot];
                c->v.u = (uint64_t)(n - top->slot);
                depth--;
                top--;
                if (depth == 0) break;
                continue;
            }
            top->left--;
        }
        if (SDX_UNLIKELY(doc->vals_cap == n) && !sdx_doc_grow_vals(doc, n, 1, (size_t)(p - start),
                                                               (size_t)(end - p), bound))
            return DIRECT_NOMEM;
        sdx_val *v = &doc->vals[n];
        size_t avail = (size_t)(end - p);
        if (SDX_UNLIKELY(avail == 0)) return DIRECT_FALLBACK;
        uint8_t ib = *p;
        unsigned ai = ib & 31u;
        if (ai >= 28) return DIRECT_FALLBACK; /* reserved, indefinite, break */
        size_t hs = sdx_cb_head_size(ib);
        if (SDX_UNLIKELY(avail < hs)) return DIRECT_FALLBACK;
        uint64_t arg = sdx_cb_arg(p);
        switch (ib >> 5) {
        case 0: /* unsigned */
            v->tag = arg > INT64_MAX ? SDX_TYPE_UINT : SDX_TYPE_INT;
            v->v.u = arg;
            break;
        case 1: /* negative: -1 - arg */
            if (arg > INT64_MAX) {
                v->tag = SDX_TYPE_NINT;
                v->v.u = arg;
            } else {
                v->tag = SDX_TYPE_INT;
                v->v.i = -1 - (int64_t)arg;
            }
            break;
        case 2: /* bytes */
        case 3: /* text */
            if (SDX_UNLIKELY(arg > avail - hs)) return DIRECT_FALLBACK;
            if ((ib >> 5) == 3 && check_utf8 &&
                SDX_UNLIKELY(!sdx_utf8_ok_in(utf8_valid, (const char *)p + hs, (size_t)arg, avail - hs)))
                return DIRECT_FALLBACK;
            v->tag = (uint64_t)((ib >> 5) == 3 ? SDX_TYPE_STR : SDX_TYPE_BIN) | arg << 16;
            v->v.s = arg ? (const char *)p + hs : NULL;
            p += arg;
            break;
        case 4: /* array */
        case 5: { /* map */
            const int map = (ib >> 5) == 5;
            /* every item takes at least a byte */
            if (SDX_UNLIKELY(arg > (uint64_t)(avail - hs) >> map) || depth >= max_depth)
                return DIRECT_FALLBACK;
            if (SDX_UNLIKELY(depth >= ps->cap) && !grow_frames(ps)) return DIRECT_NOMEM;
            v->tag = (uint64_t)(map ? SDX_TYPE_MAP : SDX_TYPE_ARRAY) | arg << 16;
            v->v.u = 1;
            top = &ps->frames[depth++];
            top->slot = n;
            top->left = map ? 2 * arg : arg;
            p += hs;
            n++;
            continue;
        }
        case 6: return DIRECT_FALLBACK; /* tags */
        default: /* major type 7 */
            switch (ai) {
            case 20:
            case 21:
                v->tag = SDX_TYPE_BOOL;
                v->v.u = ai == 21;
                break;
            case 22:
                v->tag = SDX_TYPE_NULL;
                v->v.u = 0;
                break;
            case 25:
                v->tag = SDX_TYPE_DOUBLE | SDX_VAL_FLOAT16;
                v->v.d = sdx_half_bits_to_double((uint16_t)arg);
                break;
            case 26:
                v->tag = SDX_TYPE_DOUBLE | SDX_VAL_FLOAT32;
                v->v.d = sdx_float_bits_to_double((uint32_t)arg);
                break;
            case 27:
                v->tag = SDX_TYPE_DOUBLE;
                v->v.u = arg;
                break;
            default: return DIRECT_FALLBACK; /* other simple values */
            }
            break;
        }
        p += hs;
        n++;
        if (SDX_UNLIKELY(depth == 0)) break;
    }
    doc->nvals = n;
    doc->consumed = (size_t)(p - start);
    if (p != end && !(flags & SDX_CBOR_READ_STOP_AFTER_VALUE)) return DIRECT_FALLBACK;
    return DIRECT_OK;
}

/* The direct parser: the document, or NULL with *status DIRECT_NOMEM or
 * DIRECT_FALLBACK (nothing kept). */
static sdx_doc *direct_parse(const char *data, size_t len, const sdx_cbor_read_opts *opts,
                             const sdx_alloc *alloc, int *status) {
    direct ps;
    ps.alloc = *alloc;
    ps.frames = ps.inline_frames;
    ps.cap = INLINE_FRAMES;
    uint32_t max_depth = opts->max_depth ? opts->max_depth : SDX_CBOR_DEFAULT_MAX_DEPTH;
    const uint8_t *in = (const uint8_t *)data;
    int st = DIRECT_NOMEM;
    ps.doc = sdx_doc_alloc(&ps.alloc);
    if (!ps.doc) goto out;
    if (opts->flags & SDX_CBOR_READ_COPY_INPUT) {
        uint8_t *copy = sdx_doc_block_alloc(ps.doc, len);
        if (!copy) goto out;
        memcpy(copy, in, len);
        in = copy;
    }
    /* A first guess at the slots; when it is short, the array grows by an
     * estimate from the rate so far. */
    const size_t first = sdx_doc_first_slots(ps.doc, SDX_DOC_RATE_CBOR, len / 8 + 16, len, len + 1);
    if (!sdx_doc_grow_vals(ps.doc, 0, first, 0, len, len + 1)) goto out;
    st = direct_values(&ps, in, in + len, opts->flags, max_depth);
out:
    if (ps.frames != ps.inline_frames) ps.alloc.free(ps.alloc.ctx, ps.frames);
    *status = st;
    if (st != DIRECT_OK) {
        sdx_doc_free(ps.doc);
        return NULL;
    }
    sdx_doc_note_rate(ps.doc, SDX_DOC_RATE_CBOR, len);
    return ps.doc;
}

/* ------------------------------------------------------------------------ */
/* The general parser                                                        */
/* ------------------------------------------------------------------------ */

sdx_doc *sdx_cbor_parse(const char *data, size_t len, const sdx_cbor_read_opts *opts,
                        sdx_error *err) {
    static const sdx_cbor_read_opts defaults = {0, 0, 0, 0, NULL};
    if (!opts) opts = &defaults;
    sdx_error e = {SDX_OK, 0, 0, 0, NULL};
    const sdx_alloc *alloc = opts->alloc ? opts->alloc : sdx_alloc_default();
    /* The direct parser first, unless the key checks are asked for (only
     * the reader does them) or the input is empty (an error). */
    if (data && len &&
        !(opts->flags & (SDX_CBOR_READ_REJECT_DUPLICATE_KEYS | SDX_CBOR_READ_DETERMINISTIC))) {
        int status;
        sdx_doc *doc = direct_parse(data, len, opts, alloc, &status);
        if (doc || status == DIRECT_NOMEM) {
            if (!doc) {
                e.code = SDX_ERR_NOMEM;
                e.msg = "out of memory";
            }
            if (err) *err = e;
            return doc;
        }
    }
    sdx_doc_build_opts bo = {alloc, UINT32_MAX}; /* the reader limits the depth */
    sdx_doc_builder b;
    sdx_cbor_reader *r = NULL;
    if (!data) len = 0;
    const char *in = data;
    if (sdx_doc_builder_init(&b, &bo)) goto nomem;
    if ((opts->flags & SDX_CBOR_READ_COPY_INPUT) && len) {
        char *copy = sdx_doc_block_alloc(b.doc, len);
        if (!copy) goto nomem;
        memcpy(copy, data, len);
        in = copy;
    }
    sdx_cbor_read_opts ro = *opts;
    ro.alloc = alloc;
    r = sdx_cbor_reader_new(in, len, &ro);
    if (!r) goto nomem;
    const bool stop = (opts->flags & SDX_CBOR_READ_STOP_AFTER_VALUE) != 0;
    const uintptr_t in_start = (uintptr_t)in, in_end = in_start + len;
    sdx_event ev;
    while (sdx_cbor_reader_next(r, &ev)) {
        /* a view into the input, not the reader's scratch buffer */
        b.borrow = (ev.kind == SDX_STR || ev.kind == SDX_KEY || ev.kind == SDX_BIN) &&
                   ev.v.str.len && (uintptr_t)ev.v.str.ptr >= in_start &&
                   (uintptr_t)ev.v.str.ptr < in_end;
        if (sdx_doc_builder_put(&b, &ev)) {
            e.code = b.err;
            e.msg = sdx_strerror(b.err);
            e.offset = (size_t)sdx_cbor_reader_offset(r);
            break;
        }
        if (stop && b.done) break;
    }
    if (!e.code) sdx_cbor_reader_error(r, &e);
    if (!e.code && !b.done) { /* a sequence reader that found no item */
        e.code = SDX_ERR_TRUNCATED;
        e.msg = "empty input";
        e.offset = 0;
    }
    size_t consumed = (size_t)sdx_cbor_reader_offset(r);
    sdx_cbor_reader_free(r);
    return sdx_doc_builder_finish_parse(&b, &e, consumed, err);

nomem:
    sdx_cbor_reader_free(r);
    return sdx_doc_builder_parse_nomem(&b, err);
}
