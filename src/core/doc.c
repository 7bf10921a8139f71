/*
 * The immutable document: allocation, lookups, iteration, and the walks over
 * a value's slots (emit, equality, copy).
 *
 * Every walk is linear over the slots in document order: a value and its
 * descendants are the contiguous range [v, sdx_val_next(v)), so equality and
 * copying need no stack at all, and emitting keeps an explicit stack of the
 * open containers' ends (never recursion: documents may nest 10^6 deep).
 */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "core/alloc.h"
#include "core/doc_internal.h"
#include "core/platform.h"

/* The value of every nil node. */
static const sdx_val nil_val = {0, {0}};

static sdx_node nil_of(sdx_doc *doc) {
    sdx_node n = {doc, &nil_val};
    return n;
}

/* ------------------------------------------------------------------------ */
/* Allocation                                                                */
/* ------------------------------------------------------------------------ */

sdx_doc *sdx_doc_alloc(const sdx_alloc *alloc) {
    if (!alloc) alloc = sdx_alloc_default();
    sdx_doc *doc = alloc->malloc(alloc->ctx, sizeof *doc);
    if (!doc) return NULL;
    memset(doc, 0, sizeof *doc);
    doc->alloc = *alloc;
    return doc;
}

/* The rate of the last document.
 *
 * A parser sizes its first value array by a guess from the input (JSON:
 * the marks in its first 4 KiB; the binary formats: a slot per 16 bytes)
 * and grows it by the rate so far when the guess was short. Growing copies
 * the array (or the allocator does), and with glibc's malloc it also
 * costs a program that parses such a document again and again far more
 * than the copy: the old and the new array together leave more free
 * memory at the top of the heap than its trim threshold (twice the
 * largest block it has mapped and freed), so each free returns the
 * memory to the system and each parse faults it in anew. The suite's
 * citm_catalog.json, parsed and freed in a loop with the default malloc,
 * took 1.5 to 2.4 ms a parse (444 page faults each) where the parse alone
 * takes 0.35 ms (bench/micro/parse_loop.c).
 *
 * So each parser keeps the slots per byte (in 1/65536) and the size in KiB
 * of the last input of at least 64 KiB it parsed, in one relaxed atomic
 * word for all threads (a rate another thread left only sizes an
 * allocation, bounded as every guess is), and the next parse of an input
 * of about that size starts from that rate when it is above the parser's
 * own guess. Documents of one kind parsed in turn then get their array in
 * one allocation of the size they need. */
static _Atomic uint64_t last_rates[SDX_DOC_RATES];

/* Inputs up to 4 TiB: their size in KiB fits 32 bits, and len * per
 * (at most 2 slots a byte, 2^17) stays below 2^59. */
#define RATE_MAX_LEN (UINT64_C(1) << 42)

size_t sdx_doc_first_slots_rated(sdx_doc *doc, unsigned rate, size_t guess, size_t len, size_t bound) {
    if (guess > bound) guess = bound;
    if (len < SDX_DOC_RATE_MIN_LEN || (uint64_t)len > RATE_MAX_LEN) return guess;
    const uint64_t last = atomic_load_explicit(&last_rates[rate], memory_order_relaxed);
    const uint64_t kib = last >> 32, per = last & 0xffffffffu;
    if (!last || (uint64_t)(len >> 10) > 2 * kib || (uint64_t)(len >> 10) < kib / 2) return guess;
    uint64_t want = ((uint64_t)len * per) >> 16;
    want += want / 64 + 64;
    if (want <= guess) return guess;
    if (want > 4 * (uint64_t)guess) want = 4 * (uint64_t)guess;
    if (want > bound) want = bound;
    doc->rate_taken = true;
    return (size_t)want;
}

void sdx_doc_note_rate_rated(sdx_doc *doc, unsigned rate, size_t len) {
    const size_t n = doc->nvals;
    if (len >= SDX_DOC_RATE_MIN_LEN && (uint64_t)len <= RATE_MAX_LEN && n <= 2 * len) {
        const uint64_t per = ((uint64_t)n << 16) / len, kib = (uint64_t)len >> 10;
        atomic_store_explicit(&last_rates[rate], kib << 32 | per, memory_order_relaxed);
    }
    if (doc->rate_taken && doc->vals && n && doc->vals_cap - n > n / 4 + 64) {
        sdx_val *v = doc->alloc.realloc(doc->alloc.ctx, doc->vals, doc->vals_cap * sizeof(sdx_val),
                                        n * sizeof(sdx_val));
        if (v) {
            doc->vals = v;
            doc->vals_cap = n;
        }
    }
}

int sdx_doc_grow_vals(sdx_doc *doc, size_t used, size_t need, size_t read, size_t left,
                      size_t bound) {
    const size_t cap = doc->vals_cap;
    /* the slots so far and, for the rest of the input, the slots per byte
     * so far with a quarter more, but at least an eighth more than now:
     * an estimate rather than doubling, so that the array ends up about
     * the size the document needs (its peak is what a parse costs in
     * memory), and still grows geometrically */
    const double est = (double)(used + need) +
                       1.25 * (double)used * ((double)left / ((double)read + 1)) + 64;
    size_t want = cap + cap / 8 + 64;
    if (est >= (double)bound) want = bound;
    else if ((size_t)est > want) want = (size_t)est;
    if (want > bound) want = bound;
    if (want < used + need) want = used + need;
    if (want > SIZE_MAX / sizeof(sdx_val)) return 0;
    sdx_val *v;
    if (doc->vals)
        v = doc->alloc.realloc(doc->alloc.ctx, doc->vals, cap * sizeof(sdx_val),
                               want * sizeof(sdx_val));
    else
        v = doc->alloc.malloc(doc->alloc.ctx, want * sizeof(sdx_val));
    if (!v) return 0;
    doc->vals = v;
    doc->vals_cap = want;
    return 1;
}

void *sdx_doc_block_alloc(sdx_doc *doc, size_t size) {
    if (size > SIZE_MAX - SDX_DOC_BLOCK_HEADER) return NULL;
    size_t total = SDX_DOC_BLOCK_HEADER + size;
    sdx_doc_block *b = doc->alloc.malloc(doc->alloc.ctx, total);
    if (!b) return NULL;
    b->size = total;
    b->next = doc->blocks;
    doc->blocks = b;
    return SDX_DOC_BLOCK_DATA(b);
}

void sdx_doc_free(sdx_doc *doc) {
    if (!doc) return;
    const sdx_alloc a = doc->alloc;
    for (sdx_doc_block *b = doc->blocks, *next; b; b = next) {
        next = b->next;
        a.free(a.ctx, b);
    }
    a.free(a.ctx, doc->vals);
    a.free(a.ctx, doc);
}

bool sdx_stack_grow(sdx_stack *s) {
    const sdx_alloc *a = s->alloc;
    if (s->cap > SIZE_MAX / 2 / s->elem) return false;
    size_t old = s->cap * s->elem, size = old * 2;
    void *p = sdx_grow_inline(a, s->items, s->inline_items, old, old, size);
    if (!p) return false;
    s->items = p;
    s->cap *= 2;
    return true;
}

/* ------------------------------------------------------------------------ */
/* The document                                                              */
/* ------------------------------------------------------------------------ */

sdx_node sdx_doc_root(sdx_doc *doc) {
    if (!doc || doc->nvals == 0) return nil_of(doc);
    sdx_node n = {doc, sdx_val_untag(doc->vals)};
    return n;
}

sdx_err sdx_doc_error(const sdx_doc *doc) { return doc ? doc->err : SDX_ERR_INVALID_ARG; }

void sdx_doc_clear_error(sdx_doc *doc) {
    if (doc) doc->err = SDX_OK;
}

size_t sdx_doc_consumed(const sdx_doc *doc) { return doc ? doc->consumed : 0; }

size_t sdx_doc_size(const sdx_doc *doc) { return doc ? doc->nvals : 0; }

/* ------------------------------------------------------------------------ */
/* Reading                                                                   */
/* ------------------------------------------------------------------------ */

sdx_node sdx_node_nil(void) { return nil_of(NULL); }

void sdx_node_flag(sdx_node n) {
    if (n.doc && n.doc->err == SDX_OK)
        n.doc->err = SDX_VAL_TYPE(n.val) == SDX_TYPE_NONE ? SDX_ERR_NOT_FOUND : SDX_ERR_TYPE;
}

/* Flag the error of a getter or lookup on the wrong type; returns nil. */
static SDX_NOINLINE sdx_node wrong_type(sdx_node n) {
    sdx_node_flag(n);
    return nil_of(n.doc);
}

/* Flag SDX_ERR_NOT_FOUND; returns nil. */
static SDX_NOINLINE sdx_node not_found(sdx_doc *doc) {
    if (doc && doc->err == SDX_OK) doc->err = SDX_ERR_NOT_FOUND;
    return nil_of(doc);
}

/* The external definitions of the inline accessors (see doc.h). */
extern inline bool sdx_node_bool(sdx_node n);
extern inline int64_t sdx_node_int(sdx_node n);
extern inline uint64_t sdx_node_uint(sdx_node n);
extern inline double sdx_node_double(sdx_node n);
extern inline const char *sdx_node_str(sdx_node n, size_t *len);
extern inline const void *sdx_node_bin(sdx_node n, size_t *len);
extern inline const sdx_val *sdx_val_next(const sdx_val *v);
extern inline sdx_iter sdx_iter_init(sdx_node n);
extern inline bool sdx_iter_next(sdx_iter *it, sdx_node *key, sdx_node *val);

sdx_tag_kind sdx_node_tag(sdx_node n, uint64_t *tag) {
    const sdx_val *t = sdx_val_tag_slot(n.doc, n.val);
    if (tag) *tag = t ? t->v.u : 0;
    return t ? (sdx_tag_kind)((t->tag >> 8) & 0xff) : SDX_TAG_NONE;
}

size_t sdx_node_tags(sdx_node n, sdx_tag_kind *kinds, uint64_t *tags, size_t cap) {
    if (SDX_VAL_TYPE(n.val) == SDX_TYPE_NONE) return 0;
    const sdx_val *p = sdx_val_tags_start(n.doc, n.val);
    size_t count = (size_t)(n.val - p);
    for (size_t i = 0; i < count && i < cap; i++, p++) {
        kinds[i] = (sdx_tag_kind)((p->tag >> 8) & 0xff);
        tags[i] = p->v.u;
    }
    return count;
}

/* The slot of the i-th child of container c (a tag slot or a value slot):
 * each skip is O(1). i must be < the number of child slots. */
static const sdx_val *nth_child(const sdx_val *c, uint64_t i) {
    const sdx_val *p = c + 1;
    while (i--) p = sdx_val_next(sdx_val_untag(p));
    return p;
}

sdx_node sdx_node_index(sdx_node n, uint64_t i) {
    if (SDX_UNLIKELY(SDX_VAL_TYPE(n.val) != SDX_TYPE_ARRAY)) return wrong_type(n);
    if (SDX_UNLIKELY(i >= SDX_VAL_LEN(n.val))) return not_found(n.doc);
    sdx_node r = {n.doc, sdx_val_untag(nth_child(n.val, i))};
    return r;
}

sdx_node sdx_node_key_at(sdx_node n, uint64_t i) {
    if (SDX_UNLIKELY(SDX_VAL_TYPE(n.val) != SDX_TYPE_MAP)) return wrong_type(n);
    if (SDX_UNLIKELY(i >= SDX_VAL_LEN(n.val))) return not_found(n.doc);
    sdx_node r = {n.doc, sdx_val_untag(nth_child(n.val, 2 * i))};
    return r;
}

sdx_node sdx_node_value_at(sdx_node n, uint64_t i) {
    if (SDX_UNLIKELY(SDX_VAL_TYPE(n.val) != SDX_TYPE_MAP)) return wrong_type(n);
    if (SDX_UNLIKELY(i >= SDX_VAL_LEN(n.val))) return not_found(n.doc);
    sdx_node r = {n.doc, sdx_val_untag(nth_child(n.val, 2 * i + 1))};
    return r;
}

sdx_node sdx_node_get(sdx_node n, const char *key, size_t len) {
    if (SDX_UNLIKELY(SDX_VAL_TYPE(n.val) != SDX_TYPE_MAP)) return wrong_type(n);
    const uint64_t want = (uint64_t)SDX_TYPE_STR | ((uint64_t)len << 16);
    const sdx_val *p = n.val + 1;
    if (len > SDX_VAL_LEN_MAX || (!key && len)) return not_found(n.doc);
    for (uint64_t left = SDX_VAL_LEN(n.val); left; left--) {
        const sdx_val *k = sdx_val_untag(p);
        const sdx_val *v = sdx_val_untag(sdx_val_next(k));
        if ((k->tag & ~SDX_VAL_NOESC) == want && (len == 0 || memcmp(k->v.s, key, len) == 0)) {
            sdx_node r = {n.doc, v};
            return r;
        }
        p = sdx_val_next(v);
    }
    return not_found(n.doc);
}

sdx_node sdx_node_getz(sdx_node n, const char *key) {
    if (!key) {
        if (SDX_VAL_TYPE(n.val) != SDX_TYPE_MAP) return wrong_type(n);
        return not_found(n.doc);
    }
    return sdx_node_get(n, key, strlen(key));
}

/* ------------------------------------------------------------------------ */
/* Equality and copy: linear over the slots                                  */
/* ------------------------------------------------------------------------ */

static bool bytes_equal(const sdx_val *a, const sdx_val *b) {
    size_t n = (size_t)SDX_VAL_LEN(a);
    return n == 0 || a->v.s == b->v.s || memcmp(a->v.s, b->v.s, n) == 0;
}

/* Two equal values have the same slots: the same tag words (type, tag kind,
 * length) and payloads, except that strings compare by content and a
 * null's payload means nothing. So equality is one pass over both ranges. */
bool sdx_node_equal(sdx_node a, sdx_node b) {
    const sdx_val *ta = sdx_val_tags_start(a.doc, a.val), *tb = sdx_val_tags_start(b.doc, b.val);
    if (a.val - ta != b.val - tb) return false;
    for (; ta < a.val; ta++, tb++)
        if (ta->tag != tb->tag || ta->v.u != tb->v.u) return false;
    if (a.val == b.val) return true;
    const sdx_val *p = a.val, *q = b.val, *end = sdx_val_next(a.val);
    if (sdx_val_next(b.val) - q != end - p) return false;
    for (; p < end; p++, q++) {
        if ((p->tag ^ q->tag) & ~SDX_VAL_NOESC) return false;
        switch (SDX_VAL_TYPE(p)) {
        case SDX_TYPE_NONE:
        case SDX_TYPE_NULL: break;
        case SDX_TYPE_STR:
        case SDX_TYPE_BIN:
        case SDX_TYPE_RAW:
            if (!bytes_equal(p, q)) return false;
            break;
        case SDX_TYPE_BOOL:
            if ((p->v.u != 0) != (q->v.u != 0)) return false;
            break;
        default: /* INT, UINT, DOUBLE (by bit pattern), spans, tag numbers */
            if (p->v.u != q->v.u) return false;
            break;
        }
    }
    return true;
}

sdx_doc *sdx_node_copy(sdx_node n, const sdx_alloc *alloc) {
    if (SDX_VAL_TYPE(n.val) == SDX_TYPE_NONE) return NULL;
    const sdx_val *start = sdx_val_tags_start(n.doc, n.val), *end = sdx_val_next(n.val);
    size_t count = (size_t)(end - start), bytes = 0;
    for (const sdx_val *p = start; p < end; p++) {
        sdx_type t = SDX_VAL_TYPE(p);
        if (t == SDX_TYPE_STR || t == SDX_TYPE_BIN || t == SDX_TYPE_RAW) {
            size_t len = (size_t)SDX_VAL_LEN(p);
            if (len > SIZE_MAX - bytes) return NULL;
            bytes += len;
        }
    }
    sdx_doc *doc = sdx_doc_alloc(alloc);
    if (!doc) return NULL;
    if (count > SIZE_MAX / sizeof(sdx_val)) goto fail;
    doc->vals = doc->alloc.malloc(doc->alloc.ctx, count * sizeof(sdx_val));
    if (!doc->vals) goto fail;
    doc->vals_cap = doc->nvals = count;
    char *store = NULL;
    /* 16 bytes more, readable after the last string: SDX_VAL_NOESC's
     * promise (doc.h) holds for the copies too */
    if (bytes && !(store = sdx_doc_block_alloc(doc, bytes + 16))) goto fail;
    memcpy(doc->vals, start, count * sizeof(sdx_val));
    for (sdx_val *p = doc->vals, *e = doc->vals + count; p < e; p++) {
        sdx_type t = SDX_VAL_TYPE(p);
        if (t == SDX_TYPE_STR || t == SDX_TYPE_BIN || t == SDX_TYPE_RAW) {
            size_t len = (size_t)SDX_VAL_LEN(p);
            if (len) {
                memcpy(store, p->v.s, len);
                p->v.s = store;
                store += len;
            } else {
                p->v.s = NULL;
            }
        }
    }
    return doc;
fail:
    sdx_doc_free(doc);
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Emit                                                                      */
/* ------------------------------------------------------------------------ */

/* sdx_node_emit: the document walk of core/node_walk.h, every value an
 * event into the sink. */
#define NODE_WALK_FN emit_walk
#define NODE_WALK_W sdx_sink
#define NODE_WALK_EVENTS_ONLY
#define NODE_WALK_PUT(s, ev) sdx_sink_put(*(s), ev)
#include "core/node_walk.h"

sdx_err sdx_node_emit(sdx_node n, sdx_sink sink) { return emit_walk(&sink, n); }
