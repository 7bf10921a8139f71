/*
 * Internal: the layout of sdx_doc, shared by the builder (src/core/doc_builder.c) and
 * the format parsers that fill documents directly (src/json/parse.c, ...).
 */
#ifndef SDX_DOC_INTERNAL_H
#define SDX_DOC_INTERNAL_H

#include <stdbool.h>
#include <string.h>

#include "core/platform.h"
#include "sdx/doc.h"

/* An allocation the document owns besides its value array (string storage,
 * a copy of the input, ...). The data follows the header, aligned for any
 * type. */
typedef struct sdx_doc_block {
    struct sdx_doc_block *next;
    size_t size; /* of the whole allocation, header included */
} sdx_doc_block;

#define SDX_DOC_BLOCK_HEADER \
    ((sizeof(sdx_doc_block) + _Alignof(max_align_t) - 1) & ~(_Alignof(max_align_t) - 1))
#define SDX_DOC_BLOCK_DATA(b) ((char *)(b) + SDX_DOC_BLOCK_HEADER)

struct sdx_doc {
    sdx_val *vals;         /* the value array; vals[0] is the root (or its tag) */
    size_t nvals;          /* slots in use */
    size_t vals_cap;       /* slots allocated (vals is one allocation of
                              vals_cap * sizeof(sdx_val) bytes, or NULL) */
    sdx_doc_block *blocks; /* other allocations owned, freed with the doc */
    size_t consumed;       /* bytes of input parsed */
    sdx_err err;           /* sticky lookup error */
    bool rate_taken;       /* the value array was first sized by the last
                              document's rate (sdx_doc_first_slots) */
    sdx_alloc alloc;
    /* The builder's string storage (src/core/doc_builder.c): the free space
     * left in its current string chunk, and the size of the next chunk.
     * Zero (unused) in documents filled by a parser. */
    char *str_cur;
    size_t str_left;
    size_t str_next;
};

/* Allocate an empty document (no values) with `alloc` (NULL = default);
 * NULL on failure. */
sdx_doc *sdx_doc_alloc(const sdx_alloc *alloc);

/* Allocate a block of `size` data bytes owned by doc; returns its data or
 * NULL (size checked for overflow). */
void *sdx_doc_block_alloc(sdx_doc *doc, size_t size);

/* The end of a parse through the builder (a format's reader feeding it):
 * finishes the builder and returns the document, with its `consumed` set,
 * or NULL. `e` holds the parse's error so far: when set, the document is
 * dropped; when not, and the builder has no complete root, its error is
 * taken with the offset `consumed`. *err (if not NULL) gets the outcome. */
sdx_doc *sdx_doc_builder_finish_parse(sdx_doc_builder *b, sdx_error *e, size_t consumed, sdx_error *err);

/* A parse through the builder that ran out of memory before reading:
 * releases the builder and reports SDX_ERR_NOMEM in *err (if not NULL).
 * Returns NULL. */
sdx_doc *sdx_doc_builder_parse_nomem(sdx_doc_builder *b, sdx_error *err);

/* Parsers that fill the value array directly: room for at least `need`
 * more slots after `used`, when `read` bytes of the input have given those
 * slots and `left` bytes are still to come. The array grows to the slots
 * so far plus, for what is left, the rate so far with a quarter more (at
 * least an eighth more than it has), but not beyond `bound` (what the
 * input can need at most), with the document's allocator. The first call
 * (used 0) allocates `need` slots and 64 more. Returns 0 when the
 * allocation fails (the array is kept). */
int sdx_doc_grow_vals(sdx_doc *doc, size_t used, size_t need, size_t read, size_t left,
                      size_t bound);

/* The first value array of a direct parser, and what a finished parse
 * leaves for the next one (src/core/doc.c, "The rate of the last
 * document"). One rate per parser: */
enum {
    SDX_DOC_RATE_JSON,
    SDX_DOC_RATE_MSGPACK,
    SDX_DOC_RATE_CBOR,
    SDX_DOC_RATE_BSON,
    SDX_DOC_RATE_UBJSON,
    SDX_DOC_RATE_BINN,
    SDX_DOC_RATES
};

/* Inputs below this size neither take nor leave a rate. */
#define SDX_DOC_RATE_MIN_LEN ((size_t)64 << 10)

/* The slots to allocate first for `len` bytes of input: the parser's own
 * `guess`, or more when the last document this parser made from an input
 * of about the same size (half to twice `len`, at least 64 KiB) needed
 * more slots per byte: then that rate and 1/64 more, at most four times
 * `guess`; never beyond `bound`. Marks the document when it took the
 * rate, so that sdx_doc_note_rate gives back what the rate overestimated. */
size_t sdx_doc_first_slots_rated(sdx_doc *doc, unsigned rate, size_t guess, size_t len, size_t bound);
static inline size_t sdx_doc_first_slots(sdx_doc *doc, unsigned rate, size_t guess, size_t len,
                                         size_t bound) {
    if (len < SDX_DOC_RATE_MIN_LEN) return guess < bound ? guess : bound;
    return sdx_doc_first_slots_rated(doc, rate, guess, len, bound);
}

/* A parse of `len` bytes that made doc->nvals slots: records its rate for
 * the next parse (inputs of at least 64 KiB), and, when the first array
 * came from the last rate and holds a quarter more slots than the document
 * has, shrinks it to the document (a failed shrink keeps it). */
void sdx_doc_note_rate_rated(sdx_doc *doc, unsigned rate, size_t len);
static inline void sdx_doc_note_rate(sdx_doc *doc, unsigned rate, size_t len) {
    if (len >= SDX_DOC_RATE_MIN_LEN) sdx_doc_note_rate_rated(doc, rate, len);
}

/* A slot's tag word: its type and its length (doc.h's SDX_VAL_TYPE and
 * SDX_VAL_LEN read them back). */
#define SDX_VAL_TAG_LEN(t, n) ((uint64_t)(t) | (uint64_t)(n) << 16)

/* A binary format's parser that fills the value array directly: the first
 * reservation for `len` bytes of input, a sixteenth as many slots (an
 * item takes a few bytes), which grows by the rate so far when short
 * (sdx_doc_grow_vals, bounded by the len + 2 slots an input of one byte
 * per slot can need). Returns 0 when the allocation fails. */
static inline int sdx_doc_direct_reserve(sdx_doc *doc, unsigned rate, size_t len) {
    return sdx_doc_grow_vals(doc, 0, sdx_doc_first_slots(doc, rate, len / 16 + 16, len, len + 2), 0, len,
                             len + 2);
}

/* The outcome of a parser's direct path that did not decline (rc 1: the
 * document, rc -1: out of memory), in the parser's result and *err (if
 * not NULL). The formats whose readers are fed to the builder when the
 * direct path declines (UBJSON, BSON, Binn) end with it. */
static inline sdx_doc *sdx_doc_direct_result(int rc, sdx_doc *doc, sdx_error *err) {
    if (err) {
        err->line = err->column = 0;
        err->code = rc > 0 ? SDX_OK : SDX_ERR_NOMEM;
        err->offset = rc > 0 ? doc->consumed : 0;
        err->msg = rc > 0 ? sdx_strerror(SDX_OK) : "out of memory";
    }
    return rc > 0 ? doc : NULL;
}

/* Copy `len` (> 0) bytes into the document's string storage: chunks that
 * grow geometrically (a large string gets a block of its own). Returns the
 * copy, or NULL when an allocation fails. */
const char *sdx_doc_store_bytes_slow(sdx_doc *doc, const char *s, size_t len);
static inline const char *sdx_doc_store_bytes(sdx_doc *doc, const char *s, size_t len) {
    if (len <= doc->str_left) {
        char *dst = doc->str_cur;
        memcpy(dst, s, len);
        doc->str_cur = dst + len;
        doc->str_left -= len;
        return dst;
    }
    return sdx_doc_store_bytes_slow(doc, s, len);
}

/* The slot of a scalar event (NULL, BOOL, INT, UINT, DOUBLE) at v, as the
 * builder makes it: an UINT up to INT64_MAX is an INT, a double read from
 * a float32 or float16 says so. */
static SDX_ALWAYS_INLINE void sdx_doc_scalar_slot(sdx_val *v, const sdx_event *ev) {
    switch ((sdx_kind)ev->kind) {
    case SDX_BOOL:
        v->tag = SDX_TYPE_BOOL;
        v->v.u = ev->v.b ? 1 : 0;
        break;
    case SDX_INT:
        v->tag = SDX_TYPE_INT;
        v->v.i = ev->v.i;
        break;
    case SDX_UINT:
        v->tag = ev->v.u <= INT64_MAX ? SDX_TYPE_INT : SDX_TYPE_UINT;
        v->v.u = ev->v.u;
        break;
    case SDX_DOUBLE:
        v->tag = SDX_TYPE_DOUBLE;
        if (SDX_UNLIKELY(ev->flags & (SDX_EVENT_FLOAT32 | SDX_EVENT_FLOAT16)))
            v->tag |= ev->flags & SDX_EVENT_FLOAT16 ? SDX_VAL_FLOAT16 : SDX_VAL_FLOAT32;
        v->v.d = ev->v.d;
        break;
    default: /* SDX_NULL */
        v->tag = SDX_TYPE_NULL;
        v->v.u = 0;
        break;
    }
}

/* The children a builder's frame allows for a declared count: a map's keys
 * and values both count; unknown is UINT64_MAX, and a count that can never
 * be met stays a limit below it, so that its END fails. */
static inline uint64_t sdx_doc_frame_limit(bool map, uint64_t count) {
    if (count == SDX_COUNT_UNKNOWN) return UINT64_MAX;
    if (!map) return count;
    return count > (UINT64_MAX - 1) / 2 ? UINT64_MAX - 1 : 2 * count;
}

/* sdx_doc_builder_put(b, ev) for the parsers that feed the builder from a
 * pull reader (UBJSON, BSON, Binn): the commonest events inside a
 * container — untagged scalars, strings, keys, binaries, containers while
 * the frames and the depth limit allow, and the end of a container that is
 * not the root — are built here, inline in the parse loop, so that the
 * reader's event need not go through memory and a call; anything else
 * (errors included) goes to the exported function, before anything is
 * changed. Same slots, same errors. */
static SDX_ALWAYS_INLINE sdx_err sdx_doc_builder_put_inline(sdx_doc_builder *b,
                                                           const sdx_event *ev) {
    sdx_doc_build_frame *f = b->top;
    const unsigned kind = ev->kind;
    sdx_doc *doc = b->doc;
    /* (a complete root leaves no frame open: done implies !f) */
    if (b->err || !f || ev->tag_kind != SDX_TAG_NONE) goto slow;
    if (kind == SDX_END) {
        if (b->tag_due || (f->map && (f->items & 1)) ||
            (f->limit != UINT64_MAX && f->items != f->limit) || b->depth < 2)
            goto slow;
        const uint64_t len = f->map ? f->items / 2 : f->items;
        if (len > SDX_VAL_LEN_MAX) goto slow;
        sdx_val *c = doc->vals + f->slot;
        c->tag = SDX_VAL_TAG_LEN(f->map ? SDX_TYPE_MAP : SDX_TYPE_ARRAY, len);
        c->v.u = (uint64_t)(doc->nvals - f->slot);
        b->depth--;
        b->top = f - 1;
        return SDX_OK;
    }
    if (f->items >= f->limit || doc->vals_cap - doc->nvals < 2) goto slow;
    sdx_val *v = doc->vals + doc->nvals;
    switch (kind) {
    case SDX_NULL:
    case SDX_BOOL:
    case SDX_INT:
    case SDX_UINT:
    case SDX_DOUBLE:
        sdx_doc_scalar_slot(v, ev);
        break;
    case SDX_KEY:
        if (!f->map || (f->items & 1)) goto slow;
        /* fall through */
    case SDX_STR:
    case SDX_BIN: {
        const size_t len = ev->v.str.len;
        const char *s = ev->v.str.ptr;
        if (len > SDX_VAL_LEN_MAX || (len && !s)) goto slow;
        if (!len) {
            s = NULL;
        } else if (!b->borrow) {
            /* only where the current chunk has room: no allocation here */
            if (len > doc->str_left) goto slow;
            s = sdx_doc_store_bytes(doc, s, len);
        }
        v->tag = SDX_VAL_TAG_LEN(kind == SDX_BIN ? SDX_TYPE_BIN : SDX_TYPE_STR, len);
        v->v.s = s;
        break;
    }
    case SDX_ARRAY:
    case SDX_MAP: {
        const uint32_t d = b->depth;
        if (d >= b->max_depth || d == b->cap) goto slow;
        const bool map = kind == SDX_MAP;
        const uint64_t count = ev->v.count;
        sdx_doc_build_frame *g = &b->frames[d];
        g->slot = doc->nvals;
        g->items = 0;
        g->map = map;
        g->limit = sdx_doc_frame_limit(map, count);
        b->depth = d + 1;
        b->top = g;
        v->tag = map ? SDX_TYPE_MAP : SDX_TYPE_ARRAY;
        v->v.u = 1;
        break;
    }
    default:
        goto slow;
    }
    f->items++;
    b->tag_due = false;
    doc->nvals++;
    return SDX_OK;
slow:
    return sdx_doc_builder_put(b, ev);
}

/* The slot of the value a slot stands for: past a chain of tag slots to
 * the tagged value, else the slot itself. */
static inline const sdx_val *sdx_val_untag(const sdx_val *v) {
    while (SDX_VAL_TYPE(v) == SDX_TYPE__TAG) v++;
    return v;
}

/* The tag slot just before a value of `doc` (its innermost tag), or NULL
 * when it is untagged. */
static inline const sdx_val *sdx_val_tag_slot(const sdx_doc *doc, const sdx_val *v) {
    return doc && v > doc->vals && SDX_VAL_TYPE(v - 1) == SDX_TYPE__TAG ? v - 1 : NULL;
}

/* The first slot of a value of `doc` with its tags: the outermost tag slot
 * of its chain, or the value itself when it is untagged. (A tag slot is
 * always followed by a tag slot or the value it tags, and a container's
 * last descendant is never a tag slot, so the run of tag slots before a
 * value belongs to it.) */
static inline const sdx_val *sdx_val_tags_start(const sdx_doc *doc, const sdx_val *v) {
    if (!doc) return v;
    while (v > doc->vals && SDX_VAL_TYPE(v - 1) == SDX_TYPE__TAG) v--;
    return v;
}

/* Set the kind and value of *ev for the scalar slot v (NULL to RAW): a STR
 * in key position (`key`) is an SDX_KEY. */
static inline void sdx_val_scalar_event(sdx_event *ev, const sdx_val *v, bool key) {
    ev->flags = 0;
    switch (SDX_VAL_TYPE(v)) {
    case SDX_TYPE_NULL: ev->kind = SDX_NULL; ev->v.u = 0; break;
    case SDX_TYPE_BOOL: ev->kind = SDX_BOOL; ev->v.b = v->v.u != 0; break;
    case SDX_TYPE_INT: ev->kind = SDX_INT; ev->v.i = v->v.i; break;
    case SDX_TYPE_UINT: ev->kind = SDX_UINT; ev->v.u = v->v.u; break;
    case SDX_TYPE_NINT: ev->kind = SDX_NINT; ev->v.u = v->v.u; break;
    case SDX_TYPE_DOUBLE:
        ev->kind = SDX_DOUBLE;
        ev->v.d = v->v.d;
        if (v->tag & SDX_VAL_FLOAT32) ev->flags = SDX_EVENT_FLOAT32;
        if (v->tag & SDX_VAL_FLOAT16) ev->flags = SDX_EVENT_FLOAT16;
        break;
    default: /* STR, BIN, RAW */
        ev->kind = SDX_VAL_TYPE(v) == SDX_TYPE_STR ? (key ? SDX_KEY : SDX_STR)
                   : SDX_VAL_TYPE(v) == SDX_TYPE_BIN ? SDX_BIN : SDX_RAW;
        ev->v.str.ptr = v->v.s;
        ev->v.str.len = (size_t)SDX_VAL_LEN(v);
        break;
    }
}

/* An explicit stack for the walks that must not recurse: it starts in the
 * caller's inline array and grows geometrically through `alloc`.
 * sdx_stack_grow doubles the capacity (items are kept); returns false (the
 * stack unchanged) when the allocation fails or would overflow.
 * sdx_stack_free releases what sdx_stack_grow allocated. */
typedef struct sdx_stack {
    void *items;        /* `cap` items of `elem` bytes */
    size_t cap;
    size_t elem;
    void *inline_items; /* the caller's initial array */
    const sdx_alloc *alloc;
} sdx_stack;

static inline void sdx_stack_init(sdx_stack *s, void *inline_items, size_t cap, size_t elem,
                                  const sdx_alloc *alloc) {
    s->items = s->inline_items = inline_items;
    s->cap = cap;
    s->elem = elem;
    s->alloc = alloc;
}
bool sdx_stack_grow(sdx_stack *s);
static inline void sdx_stack_free(sdx_stack *s) {
    if (s->items != s->inline_items) s->alloc->free(s->alloc->ctx, s->items);
    s->items = s->inline_items;
}

#endif /* SDX_DOC_INTERNAL_H */
