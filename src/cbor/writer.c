/*
 * The streaming CBOR writer (RFC 8949).
 *
 * Every item has a fast path: the innermost container still allows an item
 * and needs no bookkeeping (one test of `left` and one of `slow`, the
 * innermost container's, which the writer keeps in its own fields; `left`
 * is 0 once an error is set, and the writer then points at a frame that
 * allows nothing), the buffer has room for the largest encoding of the
 * item, and the item is written without further checks. Everything else
 * takes a checked path that reserves exactly what it writes, so a fixed
 * buffer overflows only when the output really does not fit.
 *
 * Deterministic maps (RFC 8949 section 4.2.1): each entry's key, value and
 * end offsets go on a list shared by all open maps (no allocation per
 * entry: the list grows geometrically and is reused); at the map's end its
 * entries are sorted by their keys' bytes, checked for duplicates, and the
 * content rewritten in that order through one scratch copy.
 */
#include <string.h>

#include "cbor/cbor_internal.h"
#include "core/alloc.h"
#include "core/backpatch.h"
#include "core/wcount.h"
#include "core/platform.h"
#include "core/utf8.h"
#include "core/utf8_copy.h"
#include "sdx/cbor.h"
#include "simd/simd.h"


/* Frame kinds, modes and slow bits. */
/* (the kinds and the definite mode are cbor.h's, which its inline paths
 * test) */
enum {
    FRAME_ROOT = SDX_CB_W_ROOT,
    FRAME_ARRAY = SDX_CB_W_ARRAY,
    FRAME_MAP = SDX_CB_W_MAP,
    FRAME_DEAD = SDX_CB_W_DEAD
};
enum { MODE_DEFINITE = SDX_CB_W_DEFINITE, MODE_INDEFINITE, MODE_PATCH };
/* Or'ed into the mode of a container opened inside a frame with slow bits
 * (a sorted map): its end takes end_slow, which restores the writer's copy
 * of the parent's bits (the inline end restores only the count). */
enum { MODE_SLOW_PARENT = 0x80 };
enum { SLOW_SORTED = 1, SLOW_TAGGED = 2 };

typedef uint8_t u8;

/* The frame the writer points at after an error or finish: it allows no
 * item and no end, so every fast path falls through to a checked path,
 * which returns the sticky error. Never written. */
static sdx_cbor_frame dead_frame = {0, 0, 0, FRAME_DEAD, 0, 0, 0};

static SDX_NOINLINE sdx_err fail(sdx_cbor_writer *w, sdx_err err) {
    if (!w->err) w->err = err;
    /* nothing more is written: containers still open release a stream's
     * pin (which a back-patched count holds) */
    if (w->top != &dead_frame)
        for (const sdx_cbor_frame *f = w->frames + 1; f <= w->top; f++)
            if (f->pinned) sdx_buf_unpin(w->out);
    w->top = &dead_frame;
    w->left = 0;
    w->slow = 0;
    return w->err;
}

static sdx_err fail_buf(sdx_cbor_writer *w) {
    return fail(w, w->out->err ? w->out->err : SDX_ERR_NOMEM);
}

sdx_err sdx_cbor_writer_init(sdx_cbor_writer *w, sdx_buf *out, const sdx_cbor_write_opts *opts) {
    static const sdx_cbor_write_opts defaults = {0, NULL};
    if (!opts) opts = &defaults;
    const uint32_t known = SDX_CBOR_WRITE_FLOAT64 | SDX_CBOR_WRITE_NO_UTF8_CHECK |
                           SDX_CBOR_WRITE_SEQUENCE | SDX_CBOR_WRITE_DEFINITE |
                           SDX_CBOR_WRITE_DETERMINISTIC | SDX_CBOR_WRITE_SELF_DESCRIBE;
    w->out = out;
    w->err = SDX_OK;
    w->flags = opts->flags;
    if (w->flags & SDX_CBOR_WRITE_DETERMINISTIC) w->flags |= SDX_CBOR_WRITE_DEFINITE;
    w->alloc = *(opts->alloc ? opts->alloc : sdx_alloc_default());
    w->frames = w->inline_frames;
    w->cap = SDX_CBOR_WRITER_INLINE_DEPTH;
    w->last = w->frames + w->cap - 1;
    w->entries = NULL;
    w->nentries = w->entries_cap = 0;
    w->scratch = NULL;
    w->scratch_cap = 0;
    w->big_end = UINT64_MAX;
    w->big_tag = 0;
    w->top = w->frames;
    w->left = w->flags & SDX_CBOR_WRITE_SEQUENCE ? SDX_WCOUNT_UNKNOWN_ARRAY : 1;
    w->slow = 0;
    w->top->left = 0; /* kept in w->left while the root is innermost */
    w->top->header = 0;
    w->top->first_entry = 0;
    w->top->kind = FRAME_ROOT;
    w->top->mode = MODE_DEFINITE;
    w->top->slow = 0;
    w->top->pinned = 0;
    w->utf8_valid = sdx_simd_active()->utf8_valid_prefix;
    if ((opts->flags & ~known) ||
        ((opts->flags & SDX_CBOR_WRITE_FLOAT64) && (opts->flags & SDX_CBOR_WRITE_DETERMINISTIC)))
        return fail(w, SDX_ERR_INVALID_ARG);
    if (w->flags & SDX_CBOR_WRITE_SELF_DESCRIBE) return sdx_cbor_writer_tag(w, 55799);
    return SDX_OK;
}

/* ------------------------------------------------------------------------ */
/* Bookkeeping shared by every item                                          */
/* ------------------------------------------------------------------------ */

/* Fast path: whether an item of at most `need` bytes may be written now
 * without further checks; if so, counts it and gives the write position
 * (the caller stores the bytes, then sets w->out->cur). Nothing changes
 * otherwise, and the checked path must handle the item. */
static SDX_ALWAYS_INLINE u8 *item_fast(sdx_cbor_writer *w, size_t need) {
    sdx_buf *b = w->out;
    char *p = b->cur;
    if (SDX_UNLIKELY(w->left == 0 || w->slow || (size_t)(b->end - p) < need)) return NULL;
    w->left--;
    return (u8 *)p;
}

/* The innermost frame's slow bits changed: the writer's copy follows. */
static SDX_ALWAYS_INLINE void set_slow(sdx_cbor_writer *w, u8 slow) {
    w->top->slow = slow;
    w->slow = slow;
}

/* An entry of the innermost map (sorted) starts or its value does: note
 * the offset. The first tag of an item stands for the item. */
static int note_entry(sdx_cbor_writer *w) {
    uint64_t at = sdx_buf_total(w->out);
    if (w->left & 1) { /* a value is due: the last entry's key is complete */
        w->entries[w->nentries - 1].value = at;
        return 1;
    }
    if (w->nentries == w->entries_cap) {
        size_t cap = w->entries_cap ? w->entries_cap * 2 : 16;
        if (cap > SIZE_MAX / sizeof(sdx_cbor_entry)) {
            fail(w, SDX_ERR_NOMEM);
            return 0;
        }
        sdx_cbor_entry *e =
            w->entries ? w->alloc.realloc(w->alloc.ctx, w->entries,
                                          w->entries_cap * sizeof(sdx_cbor_entry),
                                          cap * sizeof(sdx_cbor_entry))
                       : w->alloc.malloc(w->alloc.ctx, cap * sizeof(sdx_cbor_entry));
        if (!e) {
            fail(w, SDX_ERR_NOMEM);
            return 0;
        }
        w->entries = e;
        w->entries_cap = cap;
    }
    sdx_cbor_entry *e = &w->entries[w->nentries++];
    e->key = e->value = e->end = at;
    return 1;
}

/* Checked path: may an item come now? Counts it (and notes a sorted map's
 * entry); 0 with the sticky error set otherwise. */
static int item_begin(sdx_cbor_writer *w) {
    if (w->err) return 0;
    if (w->left == 0) {
        fail(w, SDX_ERR_USAGE);
        return 0;
    }
    const u8 slow = w->slow;
    if (slow) {
        if ((slow & SLOW_SORTED) && !(slow & SLOW_TAGGED) && !note_entry(w)) return 0;
        set_slow(w, slow & (u8)~SLOW_TAGGED);
    }
    w->left--;
    return 1;
}

static int put_bytes(sdx_cbor_writer *w, const void *s, size_t n) {
    if (n && sdx_buf_write(w->out, s, n)) {
        fail_buf(w);
        return 0;
    }
    return 1;
}

/* Checked path for an item already encoded in bytes[0, n). */
static SDX_NOINLINE sdx_err item_slow(sdx_cbor_writer *w, const void *bytes, size_t n) {
    if (item_begin(w)) put_bytes(w, bytes, n);
    return w->err;
}

/* An item of at most 9 bytes, encoded by `enc` into a local array on the
 * checked path. */
#define SMALL_ITEM(w, need, ENC)                             \
    do {                                                     \
        u8 *p_ = item_fast(w, need);                         \
        if (SDX_LIKELY(p_ != NULL)) {                        \
            u8 *p = p_;                                      \
            (w)->out->cur = (char *)(ENC);                   \
            return SDX_OK;                                   \
        }                                                    \
        u8 tmp_[SDX_CB_HEAD_MAX], *p = tmp_;                 \
        u8 *e_ = (ENC);                                      \
        return item_slow(w, tmp_, (size_t)(e_ - tmp_));      \
    } while (0)

/* ------------------------------------------------------------------------ */
/* Scalars                                                                   */
/* ------------------------------------------------------------------------ */

static u8 *one(u8 *p, u8 b) {
    *p = b;
    return p + 1;
}

sdx_err (sdx_cbor_writer_null)(sdx_cbor_writer *w) { SMALL_ITEM(w, 1, one(p, SDX_CB_NULL)); }

sdx_err sdx_cbor_writer_undefined(sdx_cbor_writer *w) {
    SMALL_ITEM(w, 1, one(p, SDX_CB_UNDEFINED));
}

sdx_err (sdx_cbor_writer_bool)(sdx_cbor_writer *w, bool v) {
    SMALL_ITEM(w, 1, one(p, v ? SDX_CB_TRUE : SDX_CB_FALSE));
}

sdx_err (sdx_cbor_writer_int)(sdx_cbor_writer *w, int64_t v) {
    /* -1 - v for a negative v is ~v in two's complement (section 3.1) */
    uint64_t u = (uint64_t)v, sign = (uint64_t)(v >> 63);
    SMALL_ITEM(w, 9, sdx_cb_head(p, (unsigned)(sign & SDX_CB_NINT), u ^ sign));
}

sdx_err (sdx_cbor_writer_uint)(sdx_cbor_writer *w, uint64_t v) {
    SMALL_ITEM(w, 9, sdx_cb_head(p, SDX_CB_UINT, v));
}

sdx_err sdx_cbor_writer_nint(sdx_cbor_writer *w, uint64_t n) {
    SMALL_ITEM(w, 9, sdx_cb_head(p, SDX_CB_NINT, n));
}

static u8 *f64(u8 *p, double v) {
    uint64_t bits;
    memcpy(&bits, &v, 8);
    p[0] = SDX_CB_F64;
    sdx_store_be64(p + 1, bits);
    return p + 9;
}

/* sdx_cb_double's rare case (cbor_internal.h). */
u8 *sdx_cb_double_narrow(u8 *p, double d) {
    uint64_t bits;
    uint32_t f;
    uint16_t h;
    memcpy(&bits, &d, 8);
    if ((bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (bits & 0xfffffffffffffull)) {
        p[0] = SDX_CB_F16;
        p[1] = 0x7e;
        p[2] = 0x00;
        return p + 3;
    }
    if (sdx_double_to_half_exact(d, &h)) {
        p[0] = SDX_CB_F16;
        sdx_store_be16(p + 1, h);
        return p + 3;
    }
    if (sdx_double_to_float_exact(d, &f)) {
        p[0] = SDX_CB_F32;
        sdx_store_be32(p + 1, f);
        return p + 5;
    }
    return f64(p, d);
}

sdx_err (sdx_cbor_writer_double)(sdx_cbor_writer *w, double v) {
    if (SDX_UNLIKELY(w->flags & SDX_CBOR_WRITE_FLOAT64)) SMALL_ITEM(w, 9, f64(p, v));
    SMALL_ITEM(w, 9, sdx_cb_double(p, v));
}

sdx_err sdx_cbor_writer_float(sdx_cbor_writer *w, float v) {
    return sdx_cbor_writer_double(w, (double)v);
}

static u8 *f16(u8 *p, uint16_t bits) {
    p[0] = SDX_CB_F16;
    sdx_store_be16(p + 1, bits);
    return p + 3;
}

sdx_err sdx_cbor_writer_half(sdx_cbor_writer *w, uint16_t bits) {
    SMALL_ITEM(w, 3, f16(p, bits));
}

sdx_err sdx_cbor_writer_simple(sdx_cbor_writer *w, uint8_t v) {
    if (v >= 24 && v < 32) {
        if (w->err) return w->err;
        return fail(w, SDX_ERR_INVALID_ARG);
    }
    /* 0-23 in the initial byte, 32-255 after f8 (section 3.3) */
    SMALL_ITEM(w, 2, sdx_cb_head(p, SDX_CB_SIMPLE, v));
}

sdx_err sdx_cbor_writer_tag(sdx_cbor_writer *w, uint64_t tag) {
    if (w->err) return w->err;
    if (w->left == 0) return fail(w, SDX_ERR_USAGE);
    /* The first tag of a sorted map's entry starts the entry (or its
     * value): its bytes belong to the key (or value) that follows. */
    if ((w->slow & (SLOW_SORTED | SLOW_TAGGED)) == SLOW_SORTED && !note_entry(w)) return w->err;
    set_slow(w, w->slow | SLOW_TAGGED);
    if ((w->flags & SDX_CBOR_WRITE_DETERMINISTIC) && (tag == 2 || tag == 3)) {
        /* A bignum's head goes in one reservation, so that it is still in
         * the buffer when its byte string comes (bignum_det may take it
         * back). */
        char *p = sdx_buf_reserve(w->out, 2);
        if (!p) return fail_buf(w);
        w->out->cur = (char *)sdx_cb_head((u8 *)p, SDX_CB_TAG, tag);
        w->big_end = sdx_buf_total(w->out);
        w->big_tag = tag;
        return SDX_OK;
    }
    u8 head[SDX_CB_HEAD_MAX];
    put_bytes(w, head, (size_t)(sdx_cb_head(head, SDX_CB_TAG, tag) - head));
    return w->err;
}

/* A byte or text string: head, then the bytes. */
static SDX_NOINLINE sdx_err string_slow(sdx_cbor_writer *w, unsigned major, const void *s,
                                        size_t n) {
    if (w->err) return w->err;
    if (n && !s) return fail(w, SDX_ERR_INVALID_ARG);
    if (major == SDX_CB_TEXT && !(w->flags & SDX_CBOR_WRITE_NO_UTF8_CHECK) &&
        !sdx_utf8_ok(w->utf8_valid, (const char *)s, n))
        return fail(w, SDX_ERR_UTF8);
    if (!item_begin(w)) return w->err;
    u8 head[SDX_CB_HEAD_MAX];
    if (put_bytes(w, head, (size_t)(sdx_cb_head(head, major, n) - head))) put_bytes(w, s, n);
    return w->err;
}

/* Strings up to this length take the fast path. */
#define SMALL_STRING 4096

static SDX_ALWAYS_INLINE sdx_err string(sdx_cbor_writer *w, unsigned major, const void *s,
                                        size_t n) {
    if (SDX_LIKELY(n <= SMALL_STRING) && (s || !n)) {
        u8 *p = item_fast(w, n + 3);
        if (SDX_LIKELY(p != NULL)) {
            if (major == SDX_CB_TEXT && !(w->flags & SDX_CBOR_WRITE_NO_UTF8_CHECK) &&
                SDX_UNLIKELY(!sdx_utf8_ok(w->utf8_valid, (const char *)s, n))) {
                w->left++; /* not written after all */
                return string_slow(w, major, s, n);
            }
            u8 *body = sdx_cb_head(p, major, n);
            sdx_cb_w_copy((char *)body, (const char *)s, n);
            w->out->cur = (char *)body + n;
            return SDX_OK;
        }
    }
    return string_slow(w, major, s, n);
}

sdx_err (sdx_cbor_writer_string)(sdx_cbor_writer *w, const char *s, size_t n) {
    return string(w, SDX_CB_TEXT, s, n);
}

/* Deterministic mode: a byte string right after a bignum tag's head (RFC
 * 8949 section 3.4.3) in its preferred serialization: without leading zero
 * bytes, and as a plain integer of major type 0 (tag 2, value n) or 1 (tag
 * 3, value -1 - n) when n fits 64 bits; the tag's head (one byte, c2 or
 * c3) is then taken back out of the buffer. */
static SDX_NOINLINE sdx_err bignum_det(sdx_cbor_writer *w, const void *data, size_t n) {
    const u8 *s = data;
    while (n && *s == 0) s++, n--;
    if (n > 8 || sdx_buf_len(w->out) < 1 || w->err) return string_slow(w, SDX_CB_BYTES, s, n);
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) v = v << 8 | s[i];
    w->out->cur -= 1;
    w->big_end = UINT64_MAX;
    return w->big_tag == 2 ? (sdx_cbor_writer_uint)(w, v) : sdx_cbor_writer_nint(w, v);
}

sdx_err sdx_cbor_writer_bytes(sdx_cbor_writer *w, const void *data, size_t n) {
    if (SDX_UNLIKELY(w->big_end != UINT64_MAX) && w->big_end == sdx_buf_total(w->out) &&
        (data || !n))
        return bignum_det(w, data, n);
    return string(w, SDX_CB_BYTES, data, n);
}

sdx_err (sdx_cbor_writer_key)(sdx_cbor_writer *w, const char *s, size_t n) {
    if (w->err) return w->err;
    if (w->top->kind != FRAME_MAP || (w->left & 1) || w->left == 0) return fail(w, SDX_ERR_USAGE);
    return string(w, SDX_CB_TEXT, s, n);
}

/* ------------------------------------------------------------------------ */
/* Containers                                                                */
/* ------------------------------------------------------------------------ */

static SDX_NOINLINE int grow_frames(sdx_cbor_writer *w) {
    sdx_err e = SDX_OK;
    const size_t depth = (size_t)(w->top - w->frames);
    sdx_cbor_frame *f = sdx_grow_frames(&w->alloc, w->frames, w->inline_frames, &w->cap, sizeof *f, &e);
    if (!f) {
        fail(w, e);
        return 0;
    }
    w->frames = f;
    w->last = f + w->cap - 1;
    w->top = f + depth;
    return 1;
}

static sdx_err begin(sdx_cbor_writer *w, uint64_t count, uint8_t kind) {
    const unsigned major = kind == FRAME_MAP ? SDX_CB_MAP : SDX_CB_ARRAY;
    sdx_cbor_frame *f = w->top;
    sdx_buf *b = w->out;
    /* Fast path: a known count, no bookkeeping, room for the head. */
    if (SDX_LIKELY(count != SDX_COUNT_UNKNOWN && w->left != 0 && !w->slow && f < w->last &&
                   !(kind == FRAME_MAP && (w->flags & SDX_CBOR_WRITE_DETERMINISTIC)) &&
                   (size_t)(b->end - b->cur) >= SDX_CB_HEAD_MAX &&
                   (kind != FRAME_MAP || count < SDX_WCOUNT_UNKNOWN_MIN / 2))) {
        f->left = w->left - 1; /* this container's, kept while the new one is open */
        w->left = kind == FRAME_MAP ? 2 * count : count;
        f[1].kind = kind;
        f[1].mode = MODE_DEFINITE;
        f[1].slow = 0;
        f[1].pinned = 0;
        w->top = f + 1;
        b->cur = (char *)sdx_cb_head((u8 *)b->cur, major, count);
        return SDX_OK;
    }
    if (w->err) return w->err;
    /* A known count the frame cannot count (a map of 2^62 entries or more):
     * no input could ever complete it. */
    if (count != SDX_COUNT_UNKNOWN &&
        count >= (kind == FRAME_MAP ? SDX_WCOUNT_UNKNOWN_MIN / 2 : SDX_WCOUNT_UNKNOWN_MIN))
        return fail(w, SDX_ERR_LIMIT);
    if (w->top >= w->last && !grow_frames(w)) return w->err;
    if (!item_begin(w)) return w->err;
    uint64_t header = sdx_buf_total(b);
    uint8_t mode = count != SDX_COUNT_UNKNOWN                 ? MODE_DEFINITE
                   : (w->flags & SDX_CBOR_WRITE_DEFINITE) ? MODE_PATCH
                                                              : MODE_INDEFINITE;
    u8 head[SDX_CB_HEAD_MAX], *e;
    if (mode == MODE_DEFINITE) e = sdx_cb_head(head, major, count);
    else if (mode == MODE_PATCH) e = sdx_cb_head(head, major, 0); /* placeholder */
    else e = one(head, (u8)(major | 31));
    /* A head to patch or a map to sort: keep its bytes in a stream buffer,
     * pinned before the head is written (unpinned, a write of the chunk's
     * size or more into a full stream buffer goes straight to the
     * stream). */
    const u8 slow = kind == FRAME_MAP && (w->flags & SDX_CBOR_WRITE_DETERMINISTIC) ? SLOW_SORTED : 0;
    const u8 pinned = (mode == MODE_PATCH || slow) && b->mode == SDX_BUF_STREAM && b->pin == UINT64_MAX;
    if (pinned) b->pin = header;
    if (!put_bytes(w, head, (size_t)(e - head))) {
        if (pinned) sdx_buf_unpin(b);
        return w->err;
    }
    w->top->left = w->left; /* the enclosing container's, kept while this one is open */
    const u8 parent_slow = w->slow;
    f = ++w->top;
    f->kind = kind;
    f->mode = (u8)(mode | (parent_slow ? MODE_SLOW_PARENT : 0));
    f->header = header;
    f->pinned = pinned;
    f->first_entry = w->nentries;
    if (count == SDX_COUNT_UNKNOWN)
        w->left = kind == FRAME_MAP ? SDX_WCOUNT_UNKNOWN_MAP : SDX_WCOUNT_UNKNOWN_ARRAY;
    else w->left = kind == FRAME_MAP ? 2 * count : count;
    set_slow(w, slow);
    return SDX_OK;
}

sdx_err (sdx_cbor_writer_begin_array)(sdx_cbor_writer *w, uint64_t count) {
    return begin(w, count, FRAME_ARRAY);
}

sdx_err (sdx_cbor_writer_begin_map)(sdx_cbor_writer *w, uint64_t count) {
    return begin(w, count, FRAME_MAP);
}

/* Sift-down of a heap of entries ordered by their keys' bytes. */
static int key_cmp(const sdx_cbor_writer *w, const sdx_cbor_entry *a, const sdx_cbor_entry *b) {
    sdx_buf *out = w->out;
    size_t an = (size_t)(a->value - a->key), bn = (size_t)(b->value - b->key);
    int c = memcmp(sdx_buf_at(out, a->key), sdx_buf_at(out, b->key), an < bn ? an : bn);
    if (c) return c;
    return an < bn ? -1 : an > bn;
}

static void sift(const sdx_cbor_writer *w, sdx_cbor_entry *e, size_t i, size_t n) {
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) return;
        if (c + 1 < n && key_cmp(w, &e[c], &e[c + 1]) < 0) c++;
        if (key_cmp(w, &e[i], &e[c]) >= 0) return;
        sdx_cbor_entry t = e[i];
        e[i] = e[c];
        e[c] = t;
        i = c;
    }
}

/* Sort the entries of a deterministic map (RFC 8949 section 4.2.1: keys in
 * the bytewise lexicographic order of their deterministic encodings) and
 * rewrite its content in that order; two equal keys are SDX_ERR_KEY. The
 * entries are heap-sorted in place (no allocation), then copied in order
 * into the scratch space and back. */
static sdx_err sort_map(sdx_cbor_writer *w, sdx_cbor_frame *f) {
    size_t n = w->nentries - f->first_entry;
    uint64_t end = sdx_buf_total(w->out);
    w->nentries = f->first_entry;
    if (n < 2) return SDX_OK;
    /* only now: the list may not exist yet (NULL + 0 is undefined) */
    sdx_cbor_entry *e = w->entries + f->first_entry;
    for (size_t i = 0; i < n; i++) e[i].end = i + 1 < n ? e[i + 1].key : end;
    int sorted = 1;
    for (size_t i = 1; i < n && sorted; i++) sorted = key_cmp(w, &e[i - 1], &e[i]) < 0;
    if (!sorted) {
        for (size_t i = n / 2; i-- > 0;) sift(w, e, i, n);
        for (size_t i = n - 1; i > 0; i--) {
            sdx_cbor_entry t = e[0];
            e[0] = e[i];
            e[i] = t;
            sift(w, e, 0, i);
        }
    }
    for (size_t i = 1; i < n; i++)
        if (key_cmp(w, &e[i - 1], &e[i]) == 0) return fail(w, SDX_ERR_KEY);
    if (sorted) return SDX_OK;
    uint64_t start = e[0].key; /* the first entry written: the lowest offset */
    for (size_t i = 1; i < n; i++)
        if (e[i].key < start) start = e[i].key;
    size_t size = (size_t)(end - start);
    if (size > w->scratch_cap) {
        char *s = w->scratch ? w->alloc.realloc(w->alloc.ctx, w->scratch, w->scratch_cap, size)
                             : w->alloc.malloc(w->alloc.ctx, size);
        if (!s) return fail(w, SDX_ERR_NOMEM);
        w->scratch = s;
        w->scratch_cap = size;
    }
    char *q = w->scratch;
    for (size_t i = 0; i < n; i++) {
        size_t len = (size_t)(e[i].end - e[i].key);
        memcpy(q, sdx_buf_at(w->out, e[i].key), len);
        q += len;
    }
    memcpy(sdx_buf_at(w->out, start), w->scratch, size);
    return SDX_OK;
}

static sdx_err end_slow(sdx_cbor_writer *w) {
    if (w->err) return w->err;
    sdx_cbor_frame *f = w->top;
    /* only a container closes: not the root, nor the dead frame after finish
     * (closing that stepped the writer below its frames) */
    if ((f->kind != FRAME_ARRAY && f->kind != FRAME_MAP) || (w->slow & SLOW_TAGGED))
        return fail(w, SDX_ERR_USAGE);
    int map = f->kind == FRAME_MAP;
    uint64_t count;
    if (w->left >= SDX_WCOUNT_UNKNOWN_MIN) {
        uint64_t items = (map ? SDX_WCOUNT_UNKNOWN_MAP : SDX_WCOUNT_UNKNOWN_ARRAY) - w->left;
        if (map && (items & 1)) return fail(w, SDX_ERR_USAGE); /* a key without its value */
        count = map ? items / 2 : items;
    } else if (w->left != 0) {
        return fail(w, SDX_ERR_USAGE);
    } else {
        count = 0; /* not needed */
    }
    if ((w->slow & SLOW_SORTED) && sort_map(w, f)) return w->err;
    const unsigned mode = f->mode & (unsigned)~MODE_SLOW_PARENT;
    if (mode == MODE_INDEFINITE) {
        u8 brk = SDX_CB_BREAK;
        if (!put_bytes(w, &brk, 1)) return w->err;
    } else if (mode == MODE_PATCH) {
        u8 head[SDX_CB_HEAD_MAX];
        size_t hn = (size_t)(sdx_cb_head(head, map ? SDX_CB_MAP : SDX_CB_ARRAY, count) - head);
        if (!sdx_buf_replace_head(w->out, f->header, 1, head, hn)) return fail_buf(w);
    }
    if (f->pinned) sdx_buf_unpin(w->out);
    w->top = --f;
    w->left = f->left;
    w->slow = f->slow;
    return SDX_OK;
}

sdx_err (sdx_cbor_writer_end)(sdx_cbor_writer *w) {
    if (sdx_cb_w_end(w)) return SDX_OK;
    return end_slow(w);
}

/* ------------------------------------------------------------------------ */
/* Events, sink, finish                                                      */
/* ------------------------------------------------------------------------ */

static SDX_NOINLINE sdx_err put_simple(sdx_cbor_writer *w, uint64_t v) {
    if (v > 255) {
        if (w->err) return w->err;
        return fail(w, SDX_ERR_INVALID_ARG);
    }
    return sdx_cbor_writer_simple(w, (uint8_t)v);
}

sdx_err sdx_cbor_writer_put(sdx_cbor_writer *w, const sdx_event *ev) {
    if (SDX_UNLIKELY(ev->tag_kind == SDX_TAG_CBOR) && ev->kind != SDX_END) {
        sdx_err rc = sdx_cbor_writer_tag(w, ev->tag);
        if (rc || ev->kind == SDX_TAG) return rc;
    }
    switch ((sdx_kind)ev->kind) {
    case SDX_NULL:
        if (SDX_UNLIKELY(ev->tag_kind == SDX_TAG_CBOR_SIMPLE)) return put_simple(w, ev->tag);
        return sdx_cbor_writer_null(w);
    case SDX_BOOL: return sdx_cbor_writer_bool(w, ev->v.b);
    case SDX_INT: return sdx_cbor_writer_int(w, ev->v.i);
    case SDX_UINT: return sdx_cbor_writer_uint(w, ev->v.u);
    case SDX_NINT: return sdx_cbor_writer_nint(w, ev->v.u);
    case SDX_DOUBLE: return sdx_cbor_writer_double(w, ev->v.d);
    /* strings: the exported functions, whose own fast path checks UTF-8
     * once (the inline one's ASCII test would come first for nothing
     * on non-ASCII text) */
    case SDX_STR: return (sdx_cbor_writer_string)(w, ev->v.str.ptr, ev->v.str.len);
    case SDX_BIN: return sdx_cbor_writer_bytes(w, ev->v.str.ptr, ev->v.str.len);
    case SDX_ARRAY: return sdx_cbor_writer_begin_array(w, ev->v.count);
    case SDX_MAP: return sdx_cbor_writer_begin_map(w, ev->v.count);
    case SDX_KEY: return (sdx_cbor_writer_key)(w, ev->v.str.ptr, ev->v.str.len);
    case SDX_END: return sdx_cbor_writer_end(w);
    case SDX_TAG: return w->err; /* a tag of another kind: ignored */
    case SDX_RAW:
        if (w->err) return w->err;
        return fail(w, SDX_ERR_UNSUPPORTED);
    }
    if (w->err) return w->err;
    return fail(w, SDX_ERR_INVALID_ARG);
}

/* sdx_cbor_writer_node: the document walk of core/node_walk.h with this
 * writer's calls (the same calls sdx_cbor_writer_put makes for each kind). */
#define NODE_WALK_WRITER sdx_cbor_writer
#define NODE_WALK_OWN
#define NODE_WALK_BIN(w, s, n) sdx_cbor_writer_bytes(w, s, n)
#include "core/node_walk.h"

/* The document's own walk for the common case, as MessagePack's (its
 * writer.c): a memory buffer, no DETERMINISTIC (sorted maps), an item where
 * one may come without bookkeeping (no tag or sorted map pending), and a
 * value made only of null, bool, int, uint, nint, double, text and byte
 * strings, arrays and maps (every key a value like any other) and CBOR
 * tags: the writer's bytes (the shortest head for every integer, length
 * and count, each double in the shortest width that holds it exactly or
 * float64 with SDX_CBOR_WRITE_FLOAT64, NaN as f97e00) from one pass over
 * the value array: CBOR's definite lengths carry their counts and need no
 * end, so each slot, in order, gives its own bytes, with no stack and no
 * per-value call. Anything else (a tag of another kind or a simple value,
 * raw number text, text that is not UTF-8) rewinds the buffer to where the
 * value began, leaves the writer as it was and returns 0: walk_node then
 * writes the value with the writer's calls, with exactly their output and
 * errors. Text is copied, then checked as the writer checks it (a string
 * the JSON parser marked SDX_VAL_NOESC is valid UTF-8 already). Returns 1
 * when written, -1 with the writer's error when the buffer cannot grow. */
#define NODE_FAST_ROOM 16 /* a head, or a double */

static int node_fast(sdx_cbor_writer *w, sdx_node n) {
    sdx_buf *b = w->out;
    if (w->err || w->left == 0 || w->slow || b->mode != SDX_BUF_MEMORY ||
        (w->flags & SDX_CBOR_WRITE_DETERMINISTIC) || sdx_val_tags_start(n.doc, n.val) != n.val)
        return 0;
    const size_t start = (size_t)(b->cur - b->start);
    int rc = 0;
    const int check = !(w->flags & SDX_CBOR_WRITE_NO_UTF8_CHECK);
    const int float64 = (w->flags & SDX_CBOR_WRITE_FLOAT64) != 0;
    const sdx_val *v = n.val, *end = sdx_val_next(n.val);
    u8 *p = (u8 *)b->cur;
    for (; v < end; v++) {
        NODE_WALK_NEED(b, p, NODE_FAST_ROOM, back);
        /* tests, not a switch (NODE_WALK_BIT, core/node_walk.h) */
        const unsigned t = SDX_VAL_TYPE(v);
        const uint32_t bit = NODE_WALK_BIT(t);
        if (bit & (NODE_WALK_BIT(SDX_TYPE_STR) | NODE_WALK_BIT(SDX_TYPE_BIN))) {
            const int text = t == SDX_TYPE_STR;
            size_t sn = (size_t)SDX_VAL_LEN(v);
            NODE_WALK_NEED(b, p, sn + SDX_CB_HEAD_MAX, back);
            p = sdx_cb_head(p, text ? SDX_CB_TEXT : SDX_CB_BYTES, sn);
            if (!text) {
                if (sn) memcpy(p, v->v.s, sn);
            } else if (!sdx_utf8_copy_ok(w->utf8_valid, (char *)p, v->v.s, sn,
                                         check && !(v->tag & SDX_VAL_NOESC))) {
                goto back;
            }
            p += sn;
        } else if (bit & NODE_WALK_BIT(SDX_TYPE_DOUBLE)) {
            p = float64 ? f64(p, v->v.d) : sdx_cb_double(p, v->v.d);
        } else if (bit & NODE_WALK_BIT(SDX_TYPE_INT)) {
            uint64_t sign = (uint64_t)(v->v.i >> 63);
            p = sdx_cb_head(p, (unsigned)(sign & SDX_CB_NINT), (uint64_t)v->v.i ^ sign);
        } else if (bit & (NODE_WALK_BIT(SDX_TYPE_ARRAY) | NODE_WALK_BIT(SDX_TYPE_MAP))) {
            p = sdx_cb_head(p, t == SDX_TYPE_MAP ? SDX_CB_MAP : SDX_CB_ARRAY, SDX_VAL_LEN(v));
        } else if (bit & NODE_WALK_BIT(SDX_TYPE_BOOL)) {
            *p++ = v->v.u ? SDX_CB_TRUE : SDX_CB_FALSE;
        } else if (bit & NODE_WALK_BIT(SDX_TYPE_NULL)) {
            *p++ = SDX_CB_NULL;
        } else if (bit & NODE_WALK_BIT(SDX_TYPE_UINT)) {
            p = sdx_cb_head(p, SDX_CB_UINT, v->v.u);
        } else if (bit & NODE_WALK_BIT(SDX_TYPE_NINT)) {
            p = sdx_cb_head(p, SDX_CB_NINT, v->v.u);
        } else if (bit & NODE_WALK_BIT(SDX_TYPE__TAG)) {
            /* a CBOR tag's head; the tagged value follows */
            if ((v->tag >> 8 & 0xff) != SDX_TAG_CBOR) goto back;
            p = sdx_cb_head(p, SDX_CB_TAG, v->v.u);
        } else {
            goto back; /* RAW (or a corrupted slot) */
        }
    }
    rc = 1;
back:
    rc = node_walk_end(b, rc, (char *)p, start);
    if (rc > 0) w->left--;
    if (rc < 0) fail_buf(w); /* the buffer could not grow: the writer's error */
    return rc;
}

sdx_err sdx_cbor_writer_node(sdx_cbor_writer *w, sdx_node n) { return walk_node_fast(w, n, node_fast); }

sdx_err sdx_cbor_writer_finish(sdx_cbor_writer *w) {
    if (!w->err) {
        int sequence = (w->flags & SDX_CBOR_WRITE_SEQUENCE) != 0;
        if (w->top != w->frames || (!sequence && w->left != 0) || (w->slow & SLOW_TAGGED))
            fail(w, SDX_ERR_USAGE);
        else if (sdx_buf_flush(w->out))
            fail_buf(w);
    }
    if (w->frames != w->inline_frames) w->alloc.free(w->alloc.ctx, w->frames);
    w->alloc.free(w->alloc.ctx, w->entries);
    w->alloc.free(w->alloc.ctx, w->scratch);
    w->entries = NULL;
    w->scratch = NULL;
    w->nentries = w->entries_cap = w->scratch_cap = 0;
    w->frames = w->inline_frames;
    w->cap = SDX_CBOR_WRITER_INLINE_DEPTH;
    w->last = w->frames; /* nothing opens inline */
    w->top = &dead_frame; /* nothing more is accepted */
    w->left = 0;
    w->slow = 0;
    return w->err;
}

static sdx_err sink_put(void *ctx, const sdx_event *ev) {
    return sdx_cbor_writer_put((sdx_cbor_writer *)ctx, ev);
}

static sdx_err sink_finish(void *ctx) { return sdx_cbor_writer_finish((sdx_cbor_writer *)ctx); }

static const sdx_sink_vt cbor_sink_vt = {sink_put, sink_finish};

sdx_sink sdx_cbor_writer_sink(sdx_cbor_writer *w) {
    sdx_sink s = {&cbor_sink_vt, w};
    return s;
}
