/*
 * The document builder: a sink that turns any event stream into an immutable
 * document (see include/sdx/doc.h for the rules it enforces).
 *
 * Slots are appended to the value array in event order, which is document
 * order; a container's slot gets its length and span when its SDX_END
 * arrives. The array grows geometrically. Strings are copied into chunks
 * owned by the document (blocks, see doc_internal.h) that also grow
 * geometrically, so that a document of n strings takes O(log n) chunk
 * allocations; a large string gets a block of its own.
 */
#include <string.h>

#include "core/doc_internal.h"
#include "core/platform.h"

#define DEFAULT_MAX_DEPTH 1024
#define FIRST_VALS 64                /* slots of the first value array */
#define FIRST_CHUNK 512              /* bytes of the first string chunk */
#define MAX_CHUNK ((size_t)1 << 20)  /* chunks grow up to this size */
#define OWN_BLOCK ((size_t)64 << 10) /* strings this long get a block of their own */

static sdx_err fail(sdx_doc_builder *b, sdx_err err) {
    if (!b->err) b->err = err;
    return b->err;
}

sdx_err sdx_doc_builder_init(sdx_doc_builder *b, const sdx_doc_build_opts *opts) {
    b->alloc = *(opts && opts->alloc ? opts->alloc : sdx_alloc_default());
    b->max_depth = opts && opts->max_depth ? opts->max_depth : DEFAULT_MAX_DEPTH;
    b->frames = b->inline_frames;
    b->cap = SDX_DOC_BUILDER_INLINE_DEPTH;
    b->depth = 0;
    b->top = NULL;
    b->done = false;
    b->tag_due = false;
    b->borrow = false;
    b->err = SDX_OK;
    b->doc = sdx_doc_alloc(&b->alloc);
    if (!b->doc) return fail(b, SDX_ERR_NOMEM);
    return SDX_OK;
}

/* Make room for at least two more slots (a tag slot and a value). */
static SDX_NOINLINE bool grow_vals(sdx_doc *doc) {
    size_t old = doc->vals_cap, cap = old ? old * 2 : FIRST_VALS;
    if (cap > SIZE_MAX / sizeof(sdx_val)) return false;
    sdx_val *p = doc->vals
                     ? doc->alloc.realloc(doc->alloc.ctx, doc->vals, old * sizeof(sdx_val),
                                          cap * sizeof(sdx_val))
                     : doc->alloc.malloc(doc->alloc.ctx, cap * sizeof(sdx_val));
    if (!p) return false;
    doc->vals = p;
    doc->vals_cap = cap;
    return true;
}

const char *sdx_doc_store_bytes_slow(sdx_doc *doc, const char *s, size_t len) {
    char *dst;
    if (len >= OWN_BLOCK) {
        dst = sdx_doc_block_alloc(doc, len);
        if (!dst) return NULL;
    } else {
        if (!doc->str_next) doc->str_next = FIRST_CHUNK;
        size_t size = doc->str_next > len ? doc->str_next : len;
        dst = sdx_doc_block_alloc(doc, size);
        if (!dst) return NULL;
        doc->str_cur = dst + len;
        doc->str_left = size - len;
        if (doc->str_next < MAX_CHUNK) doc->str_next *= 2;
    }
    memcpy(dst, s, len);
    return dst;
}

static SDX_NOINLINE sdx_err push_frame(sdx_doc_builder *b, bool map, uint64_t count) {
    if (b->depth >= b->max_depth) return fail(b, SDX_ERR_DEPTH);
    if (b->depth == b->cap) {
        if (b->cap > UINT32_MAX / 2) return fail(b, SDX_ERR_NOMEM);
        sdx_stack st;
        sdx_stack_init(&st, b->inline_frames, SDX_DOC_BUILDER_INLINE_DEPTH,
                       sizeof(sdx_doc_build_frame), &b->alloc);
        st.items = b->frames;
        st.cap = b->cap;
        if (!sdx_stack_grow(&st)) return fail(b, SDX_ERR_NOMEM);
        b->frames = st.items;
        b->cap = (uint32_t)st.cap;
    }
    sdx_doc_build_frame *f = &b->frames[b->depth++];
    f->slot = b->doc->nvals;
    f->items = 0;
    f->map = map;
    f->limit = sdx_doc_frame_limit(map, count);
    b->top = f;
    return SDX_OK;
}

static sdx_err end_container(sdx_doc_builder *b) {
    sdx_doc_build_frame *f = b->top;
    if (!f || b->tag_due) return fail(b, SDX_ERR_USAGE);
    if (f->map && (f->items & 1)) return fail(b, SDX_ERR_USAGE); /* a key without value */
    if (f->limit != UINT64_MAX && f->items != f->limit) return fail(b, SDX_ERR_USAGE);
    uint64_t len = f->map ? f->items / 2 : f->items;
    if (len > SDX_VAL_LEN_MAX) return fail(b, SDX_ERR_LIMIT);
    sdx_doc *doc = b->doc;
    sdx_val *c = doc->vals + f->slot;
    c->tag = SDX_VAL_TAG_LEN(f->map ? SDX_TYPE_MAP : SDX_TYPE_ARRAY, len);
    c->v.u = (uint64_t)(doc->nvals - f->slot);
    if (--b->depth) {
        b->top = f - 1;
    } else {
        b->top = NULL;
        b->done = true;
    }
    return SDX_OK;
}

/* An outer tag of the next item: a tag slot of its own, before the item's
 * slots (doc.h: a chain of tag slots, outermost first). */
static SDX_NOINLINE sdx_err put_tag(sdx_doc_builder *b, const sdx_event *ev) {
    if (ev->tag_kind == SDX_TAG_NONE) return fail(b, SDX_ERR_USAGE);
    sdx_doc *doc = b->doc;
    if (doc->vals_cap - doc->nvals < 2 && !grow_vals(doc)) return fail(b, SDX_ERR_NOMEM);
    sdx_val *v = doc->vals + doc->nvals++;
    v->tag = (uint64_t)SDX_TYPE__TAG | ((uint64_t)ev->tag_kind << 8);
    v->v.u = ev->tag;
    b->tag_due = true;
    return SDX_OK;
}

sdx_err sdx_doc_builder_put(sdx_doc_builder *b, const sdx_event *ev) {
    if (SDX_UNLIKELY(b->err)) return b->err;
    if (SDX_UNLIKELY(b->done)) return fail(b, SDX_ERR_USAGE);
    const unsigned kind = ev->kind;
    if (kind == SDX_END) return end_container(b);
    sdx_doc_build_frame *f = b->top;
    if (SDX_UNLIKELY(kind == SDX_TAG)) return put_tag(b, ev);
    b->tag_due = false;
    if (f) {
        if (kind == SDX_KEY && !(f->map && !(f->items & 1))) return fail(b, SDX_ERR_USAGE);
        if (SDX_UNLIKELY(f->items >= f->limit)) return fail(b, SDX_ERR_USAGE);
        f->items++;
    } else if (kind == SDX_KEY) {
        return fail(b, SDX_ERR_USAGE);
    }
    sdx_doc *doc = b->doc;
    if (SDX_UNLIKELY(doc->vals_cap - doc->nvals < 2) && !grow_vals(doc))
        return fail(b, SDX_ERR_NOMEM);
    sdx_val *v = doc->vals + doc->nvals;
    if (ev->tag_kind != SDX_TAG_NONE) {
        v->tag = (uint64_t)SDX_TYPE__TAG | ((uint64_t)ev->tag_kind << 8);
        v->v.u = ev->tag;
        v++;
        doc->nvals++;
    }
    switch (kind) {
    case SDX_NULL:
    case SDX_BOOL:
    case SDX_INT:
    case SDX_UINT:
    case SDX_DOUBLE:
        sdx_doc_scalar_slot(v, ev);
        break;
    case SDX_NINT:
        v->tag = SDX_TYPE_NINT;
        v->v.u = ev->v.u;
        break;
    case SDX_STR:
    case SDX_KEY:
    case SDX_BIN:
    case SDX_RAW: {
        size_t len = ev->v.str.len;
        if (len > SDX_VAL_LEN_MAX) return fail(b, SDX_ERR_LIMIT);
        const char *s = NULL;
        if (len) {
            if (!ev->v.str.ptr) return fail(b, SDX_ERR_INVALID_ARG);
            if (b->borrow) s = ev->v.str.ptr;
            else if (!(s = sdx_doc_store_bytes(doc, ev->v.str.ptr, len))) return fail(b, SDX_ERR_NOMEM);
        }
        sdx_type t = kind == SDX_BIN ? SDX_TYPE_BIN : kind == SDX_RAW ? SDX_TYPE_RAW : SDX_TYPE_STR;
        v->tag = SDX_VAL_TAG_LEN(t, len);
        v->v.s = s;
        break;
    }
    case SDX_ARRAY:
    case SDX_MAP: {
        sdx_err rc = push_frame(b, kind == SDX_MAP, ev->v.count);
        if (rc) return rc;
        v->tag = kind == SDX_MAP ? SDX_TYPE_MAP : SDX_TYPE_ARRAY;
        v->v.u = 1;
        doc->nvals++;
        return SDX_OK;
    }
    default:
        return fail(b, SDX_ERR_USAGE);
    }
    doc->nvals++;
    if (!f) b->done = true;
    return SDX_OK;
}

static sdx_err builder_sink_put(void *ctx, const sdx_event *ev) {
    return sdx_doc_builder_put((sdx_doc_builder *)ctx, ev);
}

static sdx_err builder_sink_finish(void *ctx) {
    sdx_doc_builder *b = ctx;
    if (!b->err && (!b->done || b->tag_due)) b->err = SDX_ERR_USAGE;
    return b->err;
}

static const sdx_sink_vt builder_sink_vt = {builder_sink_put, builder_sink_finish};

sdx_sink sdx_doc_builder_sink(sdx_doc_builder *b) {
    sdx_sink s = {&builder_sink_vt, b};
    return s;
}

sdx_doc *sdx_doc_builder_finish(sdx_doc_builder *b, sdx_err *err) {
    sdx_err rc = b->err ? b->err : b->done && !b->tag_due ? SDX_OK : SDX_ERR_USAGE;
    if (b->frames != b->inline_frames) b->alloc.free(b->alloc.ctx, b->frames);
    b->frames = b->inline_frames;
    b->cap = SDX_DOC_BUILDER_INLINE_DEPTH;
    b->depth = 0;
    b->top = NULL;
    sdx_doc *doc = b->doc;
    b->doc = NULL;
    b->err = rc ? rc : SDX_ERR_USAGE; /* nothing more is accepted */
    if (err) *err = rc;
    if (rc) {
        sdx_doc_free(doc);
        return NULL;
    }
    /* Give back a value array more than a quarter empty (a failure to
     * shrink is harmless). */
    if (doc->vals_cap - doc->nvals > doc->vals_cap / 4) {
        sdx_val *p = doc->alloc.realloc(doc->alloc.ctx, doc->vals,
                                        doc->vals_cap * sizeof(sdx_val),
                                        doc->nvals * sizeof(sdx_val));
        if (p) {
            doc->vals = p;
            doc->vals_cap = doc->nvals;
        }
    }
    doc->str_cur = NULL;
    doc->str_left = 0;
    return doc;
}

sdx_doc *sdx_doc_builder_finish_parse(sdx_doc_builder *b, sdx_error *e, size_t consumed, sdx_error *err) {
    sdx_err built;
    sdx_doc *doc = sdx_doc_builder_finish(b, &built);
    if (e->code) {
        sdx_doc_free(doc);
        doc = NULL;
    } else if (!doc) {
        e->code = built;
        e->msg = sdx_strerror(built);
        e->offset = consumed;
    } else {
        doc->consumed = consumed;
    }
    if (err) *err = *e;
    return doc;
}

sdx_doc *sdx_doc_builder_parse_nomem(sdx_doc_builder *b, sdx_error *err) {
    sdx_doc_builder_finish(b, NULL);
    if (err) {
        sdx_error e = {SDX_ERR_NOMEM, 0, 0, 0, "out of memory"};
        *err = e;
    }
    return NULL;
}
