/*
 * The MessagePack tree parser: one pass over the input filling the
 * document's value array directly (doc.h describes the layout), with an
 * explicit stack of open containers (no recursion).
 *
 * Every value takes at least one byte of input, so the slots a document
 * needs are bounded by the input length; a declared count is checked
 * against the bytes left before anything is done with it, and a declared
 * length before it is used.
 */
#include <string.h>

#include "core/doc_internal.h"
#include "core/error.h"
#include "core/platform.h"
#include "core/utf8.h"
#include "msgpack/msgpack_internal.h"
#include "sdx/msgpack.h"
#include "simd/simd.h"

/* An open container: its slot, and the items (a map's keys and values)
 * still to come. */
typedef struct frame {
    size_t slot;
    uint64_t left;
} frame;

#define INLINE_FRAMES 64

typedef struct parser {
    const uint8_t *start;
    sdx_doc *doc;
    frame *frames;
    uint32_t cap;
    sdx_alloc alloc;
    sdx_err code;
    const char *msg;
    size_t offset;
} parser;

static SDX_NOINLINE int fail(parser *ps, sdx_err code, const char *msg, const uint8_t *at) {
    ps->code = code;
    ps->msg = msg;
    ps->offset = (size_t)(at - ps->start);
    return 0;
}

static SDX_NOINLINE int grow_frames(parser *ps, frame *inline_frames, uint32_t limit) {
    uint32_t cap = ps->cap > UINT32_MAX / 2 ? UINT32_MAX : ps->cap * 2;
    if (cap > limit) cap = limit;
    frame *f;
    if (ps->frames == inline_frames) {
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

/* The document type of a scalar event kind: one more, from NULL to DOUBLE. */
_Static_assert(SDX_TYPE_NULL == SDX_NULL + 1 && SDX_TYPE_BOOL == SDX_BOOL + 1 &&
                   SDX_TYPE_INT == SDX_INT + 1 && SDX_TYPE_UINT == SDX_UINT + 1 &&
                   SDX_TYPE_DOUBLE == SDX_DOUBLE + 1,
               "scalar kinds and types in step");

/* One fixed-size scalar (SDX_MP_FIXED_SCALARS) into the slot. */
#define VAL_SCALAR(K, FL, BITS, SIZE)                                     \
    {                                                                     \
        v->v.u = (BITS);                                                  \
        v->tag = ((uint64_t)(K) + 1) | ((FL) ? SDX_VAL_FLOAT32 : 0);       \
        p += (SIZE);                                                      \
        break;                                                            \
    }

/* The parse loop. Returns 1 with the document filled, or 0 with ps->code
 * set.
 *
 * frames[0] stands for the input itself, a container of one value: the
 * loop ends when it is used up, so a value that ends carries no test of
 * its own for being the root. The open containers are frames[1..top]; the
 * depth is computed where a container opens. The slot array, the next
 * free slot and the array's end are kept in locals (a store into a slot
 * could alias the document's fields, which the compiler would then load
 * again for every value) and set again when the array grows. */
static int parse_values(parser *ps, const uint8_t *p, const uint8_t *end, uint32_t flags,
                        uint32_t max_depth, frame *inline_frames) {
    sdx_doc *doc = ps->doc;
    size_t (*utf8_valid)(const char *, size_t) = sdx_simd_active()->utf8_valid_prefix;
    const int check_utf8 = !(flags & SDX_MSGPACK_READ_NO_UTF8_CHECK);
    /* the most slots the input can need */
    const size_t bound = (size_t)(end - p) + 2;
    sdx_val *vals = doc->vals;
    sdx_val *v = vals; /* the next free slot */
    sdx_val *v_end = vals + doc->vals_cap;
    frame *base = ps->frames;
    frame *top = base;
    top->slot = 0;
    top->left = 1;

    if (p == end) return fail(ps, SDX_ERR_TRUNCATED, "empty input", p);
    for (;;) {
        if (top->left == 0) { /* close the container, or end at the root */
            if (top == base) break;
            vals[top->slot].v.u = (uint64_t)(v - vals) - top->slot;
            top--;
            continue;
        }
        top->left--;
        if (SDX_UNLIKELY(v_end - v < 2)) {
            const size_t used = (size_t)(v - vals);
            if (!sdx_doc_grow_vals(doc, used, 2, (size_t)(p - ps->start), (size_t)(end - p), bound))
                return fail(ps, SDX_ERR_NOMEM, "out of memory", p);
            vals = doc->vals;
            v = vals + used;
            v_end = vals + doc->vals_cap;
        }
        size_t avail = (size_t)(end - p);
        if (SDX_UNLIKELY(avail == 0)) return fail(ps, SDX_ERR_TRUNCATED, "input ends inside a value", p);
        uint8_t c = *p;
        size_t len, h;
        uint64_t type;
        if (c < 0x80) {
            v->tag = SDX_TYPE_INT;
            v->v.i = c;
            p++;
            v++;
            continue;
        }
        if (c >= 0xa0 && c < 0xc0) {
            len = c & 0x1f;
            h = 1;
            goto str;
        }
        if (c >= 0xe0) {
            v->tag = SDX_TYPE_INT;
            v->v.i = (int8_t)c;
            p++;
            v++;
            continue;
        }
        if (c < 0x90) {
            len = c & 0x0f;
            h = 1;
            type = SDX_TYPE_MAP;
            goto container;
        }
        if (c < 0xa0) {
            len = c & 0x0f;
            h = 1;
            type = SDX_TYPE_ARRAY;
            goto container;
        }
        {
            static const uint8_t header_len[32] = {
                1, 1, 1, 1, 2, 3, 5, 3, 4, 6, 5, 9, 2, 3, 5, 9,
                2, 3, 5, 9, 2, 2, 2, 2, 2, 2, 3, 5, 3, 5, 3, 5,
            };
            if (SDX_UNLIKELY(avail < header_len[c - 0xc0]))
                return fail(ps, SDX_ERR_TRUNCATED, "input ends inside a value", p);
        }
        switch (c) {
        SDX_MP_FIXED_SCALARS(p, VAL_SCALAR)
        SDX_MP_SIZED_ITEMS(p, len, h, str, bin, ext, array, map)
        default:
            return fail(ps, SDX_ERR_SYNTAX, "reserved type byte 0xc1", p);
        }
        v++;
        continue;

    str:
        if (SDX_UNLIKELY(len > avail - h)) return fail(ps, SDX_ERR_TRUNCATED, "str longer than the input", p);
        if (check_utf8 && SDX_UNLIKELY(!sdx_utf8_ok_in(utf8_valid, (const char *)p + h, len, avail - h)))
            return fail(ps, SDX_ERR_UTF8, "str is not valid UTF-8", p);
        v->tag = SDX_VAL_TAG_LEN(SDX_TYPE_STR, len);
        v->v.s = (const char *)p + h;
        p += h + len;
        v++;
        continue;

    bin:
        if (SDX_UNLIKELY(len > avail - h)) return fail(ps, SDX_ERR_TRUNCATED, "bin longer than the input", p);
        v->tag = SDX_VAL_TAG_LEN(SDX_TYPE_BIN, len);
        v->v.s = (const char *)p + h;
        p += h + len;
        v++;
        continue;

    ext:
        if (SDX_UNLIKELY(len > avail - h)) return fail(ps, SDX_ERR_TRUNCATED, "ext longer than the input", p);
        {
            int8_t t = (int8_t)p[h - 1];
            int64_t sec;
            uint32_t nsec;
            if (t == SDX_MSGPACK_EXT_TIMESTAMP && !sdx_msgpack_ts_decode(p + h, len, &sec, &nsec))
                return fail(ps, SDX_ERR_SYNTAX, "invalid timestamp", p);
            v[0].tag = (uint64_t)SDX_TYPE__TAG | (uint64_t)SDX_TAG_MSGPACK_EXT << 8;
            v[0].v.i = t;
            v[1].tag = SDX_VAL_TAG_LEN(SDX_TYPE_BIN, len);
            v[1].v.s = (const char *)p + h;
            p += h + len;
            v += 2;
            continue;
        }

    array:
        type = SDX_TYPE_ARRAY;
        goto container;
    map:
        type = SDX_TYPE_MAP;
    container:
        /* Every element takes at least a byte. */
        if (SDX_UNLIKELY(len > (avail - h) >> (type == SDX_TYPE_MAP)))
            return fail(ps, SDX_ERR_TRUNCATED,
                        type == SDX_TYPE_MAP ? "map count exceeds the input" : "array count exceeds the input",
                        p);
        {
            uint32_t depth = (uint32_t)(top - base); /* open containers */
            if (SDX_UNLIKELY(depth >= max_depth))
                return fail(ps, SDX_ERR_DEPTH, "nesting deeper than the limit", p);
            if (SDX_UNLIKELY(depth + 1 >= ps->cap)) {
                /* frames[0] is the root's: depth + 1 frames in use */
                if (!grow_frames(ps, inline_frames, max_depth < UINT32_MAX ? max_depth + 1 : UINT32_MAX) ||
                    depth + 1 >= ps->cap)
                    return fail(ps, SDX_ERR_NOMEM, "out of memory", p);
                base = ps->frames;
                top = base + depth;
            }
        }
        v->tag = SDX_VAL_TAG_LEN(type, len);
        ++top;
        top->slot = (size_t)(v - vals);
        top->left = type == SDX_TYPE_MAP ? 2 * (uint64_t)len : len;
        p += h;
        v++;
    }
    doc->nvals = (size_t)(v - vals);
    doc->consumed = (size_t)(p - ps->start);
    if (p != end && !(flags & SDX_MSGPACK_READ_STOP_AFTER_VALUE))
        return fail(ps, SDX_ERR_SYNTAX, "bytes after the value", p);
    return 1;
}

sdx_doc *sdx_msgpack_parse(const char *data, size_t len, const sdx_msgpack_read_opts *opts,
                           sdx_error *err) {
    static const sdx_msgpack_read_opts defaults = {0, 0, NULL};
    if (!opts) opts = &defaults;
    parser ps;
    frame inline_frames[INLINE_FRAMES];
    ps.alloc = *(opts->alloc ? opts->alloc : sdx_alloc_default());
    ps.frames = inline_frames;
    ps.cap = INLINE_FRAMES;
    ps.code = SDX_OK;
    ps.msg = NULL;
    ps.offset = 0;
    uint32_t max_depth = opts->max_depth ? opts->max_depth : SDX_MSGPACK_DEFAULT_MAX_DEPTH;
    if (!data) len = 0;
    static const uint8_t empty[1] = {0};
    const uint8_t *in = data ? (const uint8_t *)data : empty;
    ps.start = in;
    ps.doc = sdx_doc_alloc(&ps.alloc);
    int ok = ps.doc != NULL;
    if (!ok) fail(&ps, SDX_ERR_NOMEM, "out of memory", in);
    if (ok && (opts->flags & SDX_MSGPACK_READ_COPY_INPUT) && len) {
        uint8_t *copy = sdx_doc_block_alloc(ps.doc, len);
        if (copy) {
            memcpy(copy, in, len);
            in = ps.start = copy;
        } else {
            ok = fail(&ps, SDX_ERR_NOMEM, "out of memory", in);
        }
    }
    if (ok) {
        if (!sdx_doc_direct_reserve(ps.doc, SDX_DOC_RATE_MSGPACK, len))
            ok = fail(&ps, SDX_ERR_NOMEM, "out of memory", in);
    }
    if (ok) ok = parse_values(&ps, in, in + len, opts->flags, max_depth, inline_frames);
    if (ps.frames != inline_frames) ps.alloc.free(ps.alloc.ctx, ps.frames);
    sdx_error_fill(err, ps.code, ps.offset, ps.msg);
    if (!ok) {
        sdx_doc_free(ps.doc);
        return NULL;
    }
    sdx_doc_note_rate(ps.doc, SDX_DOC_RATE_MSGPACK, len);
    return ps.doc;
}
