/*
 * The CBOR pull reader (RFC 8949): one event per call, definite-length
 * strings as views into the input.
 *
 * The input is a window [p, end) of bytes: the whole input for a memory
 * reader, the reader's own buffer for a stream. An item whose head and
 * payload are all in the window is decoded in place; when the window ends
 * inside an item, a memory reader reports SDX_ERR_TRUNCATED at the item's
 * first byte, and a stream reader moves the partial item to the front of
 * its buffer and reads more chunks after it, growing the buffer only by
 * what actually arrives.
 *
 * Well-formedness is checked as RFC 8949 section 5.1 and Appendix F
 * describe it, with no recursion: a stack of open arrays and maps (each
 * with the items still due, or counting down for an indefinite length), a
 * run of tags on the next item, and indefinite-length strings joined chunk
 * by chunk into the scratch buffer.
 *
 * The error reported is the first one a reading in order meets, with the
 * offset of the offending item: for a truncation, the innermost item the
 * input ends inside (a container missing items or its break, a tag missing
 * its content, a string, a head). Memory and stream readers agree: a count
 * that a memory reader knows the input cannot meet makes it read on to
 * that error without delivering events, rather than fail at the count
 * before a syntax error that comes earlier in the input.
 *
 * Duplicate keys and deterministic order (both optional) are checked on
 * each key's preferred encoding, rebuilt from its events into a key buffer:
 * that is the same for every encoding of the same key, and for a
 * deterministically encoded input it is the key's own bytes.
 */
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "cbor/cbor_internal.h"
#include "core/error.h"
#include "core/platform.h"
#include "core/stream.h"
#include "core/utf8.h"
#include "sdx/cbor.h"
#include "simd/simd.h"

/* An open level (sdx_cbor_level in cbor.h): the root (level 0) or a
 * container. `left` counts the items still due (a map's keys and values
 * both), or for an indefinite-length container counts down from INDEF
 * (even, so that in every map a key is due exactly when `left` is even). */
#define INDEF (UINT64_C(1) << 62)
#define INLINE_STACK 32

typedef sdx_cbor_level level; /* cbor.h: the inline path opens levels too */

/* A map key's preferred encoding in the key buffer, and where it was. */
typedef struct key_ref {
    size_t off, len;
    uint64_t at;
} key_ref;

enum { STATE_VALUE, STATE_END, STATE_ERROR };

struct sdx_cbor_reader {
    /* The window (p, end, base, base_offset), the levels 0 .. depth (stack)
     * and what the inline path of cbor.h needs: first, where it looks. */
    sdx_cbor_reader_hot hot;
    uint32_t cap;
    uint32_t max_depth;
    uint32_t max_tags;
    uint32_t tags_run;   /* tags read so far on the next item */
    uint32_t flags;
    size_t max_string;
    uint8_t state;
    bool draining;       /* reading on, events dropped, to an error known to come */
    uint8_t last_kind;   /* the last event, for skip */
    uint8_t last_flags;  /* ... and its flags, for sdx_cbor_reader_chunks */
    uint32_t last_depth;
    size_t (*utf8_valid)(const char *s, size_t n);
    sdx_err err;
    const char *msg;
    uint64_t err_offset;
    /* indefinite-length strings */
    char *scratch;
    size_t scratch_cap;
    /* ... and their chunks' lengths (SDX_CBOR_READ_CHUNKS) */
    size_t *chunks;
    size_t nchunks, chunks_cap;
    /* key checks (REJECT_DUPLICATE_KEYS, DETERMINISTIC) */
    bool check_keys;
    uint32_t captures;   /* keys being captured (nested keys included) */
    char *keybuf;
    size_t keybuf_len, keybuf_cap;
    key_ref *keys;
    size_t nkeys, keys_cap;
    /* streams */
    sdx_read_fn read;    /* NULL for memory */
    void *ctx;
    uint8_t *store;
    size_t store_cap;
    size_t chunk;
    bool eof;
    sdx_alloc alloc;
    level inline_stack[INLINE_STACK];
};

static const uint8_t empty_input[1] = {0};

static void hot_update(sdx_cbor_reader *r);

static uint64_t offset_of(const sdx_cbor_reader *r, const uint8_t *at) {
    return r->hot.base_offset + (uint64_t)(at - r->hot.base);
}

static SDX_NOINLINE bool fail_off(sdx_cbor_reader *r, sdx_err code, const char *msg,
                                  uint64_t off) {
    if (r->state != STATE_ERROR) {
        r->err = code;
        r->msg = msg;
        r->err_offset = off;
        r->state = STATE_ERROR;
    }
    return false;
}

static bool fail_at(sdx_cbor_reader *r, sdx_err code, const char *msg, const uint8_t *at) {
    return fail_off(r, code, msg, offset_of(r, at));
}

/* ------------------------------------------------------------------------ */
/* Creating                                                                  */
/* ------------------------------------------------------------------------ */

/* The reader at r zeroed (its inline stack is left as it is), with the
 * options applied and no input yet. */
static void reader_init(sdx_cbor_reader *r, const sdx_cbor_read_opts *opts, const sdx_alloc *a) {
    /* the stack's entries are written before they are read (a reset
     * reader's hold the last input's levels; a new one's are zeroed) */
    sdx_zero_small(r, offsetof(sdx_cbor_reader, inline_stack));
    r->alloc = *a;
    r->flags = opts ? opts->flags : 0;
    r->max_depth = opts && opts->max_depth ? opts->max_depth : SDX_CBOR_DEFAULT_MAX_DEPTH;
    r->max_tags = opts && opts->max_tags ? opts->max_tags : SDX_CBOR_DEFAULT_MAX_TAGS;
    r->max_string = opts && opts->max_string ? opts->max_string : SDX_CBOR_DEFAULT_MAX_STRING;
    r->hot.stack = r->inline_stack;
    r->cap = INLINE_STACK;
    r->hot.stack[0] = (level){.kind = SDX_CB_LEVEL_ROOT, .left = 1}; /* the root item is due */
    r->state = STATE_VALUE;
    r->last_kind = SDX_NULL;
    r->check_keys =
        (r->flags & (SDX_CBOR_READ_REJECT_DUPLICATE_KEYS | SDX_CBOR_READ_DETERMINISTIC)) != 0;
    r->utf8_valid = sdx_simd_active()->utf8_valid_prefix;
    r->hot.ascii_mask = r->flags & SDX_CBOR_READ_NO_UTF8_CHECK ? 0 : UINT64_C(0x8080808080808080);
    r->hot.utf8_valid = r->utf8_valid;
    hot_update(r);
}

static sdx_cbor_reader *reader_alloc(const sdx_cbor_read_opts *opts) {
    const sdx_alloc *a;
    sdx_cbor_reader *r = sdx_reader_malloc(opts ? opts->alloc : NULL, sizeof *r, &a);
    if (!r) return NULL;
    memset(r->inline_stack, 0, sizeof r->inline_stack);
    reader_init(r, opts, a);
    return r;
}

/* The input of a reader over memory. */
static void memory_input(sdx_cbor_reader *r, const char *data, size_t len) {
    if (!data) len = 0;
    r->hot.base = r->hot.p = data ? (const uint8_t *)data : empty_input;
    r->hot.end = r->hot.p + len;
    r->eof = true;
}

sdx_cbor_reader *sdx_cbor_reader_new(const char *data, size_t len,
                                     const sdx_cbor_read_opts *opts) {
    sdx_cbor_reader *r = reader_alloc(opts);
    if (!r) return NULL;
    memory_input(r, data, len);
    return r;
}

/* Everything r allocated but r itself (no call for what it did not
 * allocate: a reset reader over short messages usually has nothing). */
static void free_parts(sdx_cbor_reader *r) {
    sdx_alloc a = r->alloc;
    if (r->hot.stack != r->inline_stack) a.free(a.ctx, r->hot.stack);
    if (r->store) a.free(a.ctx, r->store);
    if (r->scratch) a.free(a.ctx, r->scratch);
    if (r->chunks) a.free(a.ctx, r->chunks);
    if (r->keybuf) a.free(a.ctx, r->keybuf);
    if (r->keys) a.free(a.ctx, r->keys);
}

sdx_err sdx_cbor_reader_reset(sdx_cbor_reader *r, const char *data, size_t len) {
    if (!r) return SDX_ERR_INVALID_ARG;
    if (r->store) return SDX_ERR_USAGE; /* a stream's reader */
    const sdx_cbor_read_opts o = {.flags = r->flags, .max_depth = r->max_depth, .max_tags = r->max_tags,
                                  .max_string = r->max_string};
    const sdx_alloc a = r->alloc;
    free_parts(r);
    reader_init(r, &o, &a);
    memory_input(r, data, len);
    return SDX_OK;
}

sdx_cbor_reader *sdx_cbor_reader_new_stream(sdx_read_fn read, void *ctx, size_t chunk,
                                            const sdx_cbor_read_opts *opts) {
    sdx_cbor_reader *r = reader_alloc(opts);
    if (!r) return NULL;
    void *store = sdx_stream_store(&r->alloc, r, &chunk);
    if (!store) return NULL; /* r is freed */
    r->store = store;
    r->store_cap = r->chunk = chunk;
    r->read = read;
    r->ctx = ctx;
    r->hot.base = r->hot.p = r->hot.end = r->store;
    return r;
}

#ifndef SDX_NO_STDIO
sdx_cbor_reader *sdx_cbor_reader_new_file(FILE *f, const sdx_cbor_read_opts *opts) {
    return sdx_cbor_reader_new_stream(sdx_file_read, f, 0, opts);
}
#endif

void sdx_cbor_reader_free(sdx_cbor_reader *r) {
    if (!r) return;
    sdx_alloc a = r->alloc;
    free_parts(r);
    a.free(a.ctx, r);
}

/* ------------------------------------------------------------------------ */
/* Input                                                                     */
/* ------------------------------------------------------------------------ */

/* Make n bytes available from r->hot.p on. Memory readers (and streams at their
 * end) fail with SDX_ERR_TRUNCATED at `item`, the first byte of the item
 * that does not fit: `msg` says what was cut. A stream moves [p, end) to
 * the front of its buffer and reads up to a chunk after it; the buffer
 * doubles only when it is full of bytes that have arrived, so it never
 * exceeds twice what arrived (or the first chunk), and never grows to n
 * itself up front (a declared length cannot size it). `item`
 * is given as an offset, since the window may move. */
static SDX_NOINLINE bool need(sdx_cbor_reader *r, size_t n, uint64_t item, const char *msg) {
    while ((size_t)(r->hot.end - r->hot.p) < n) {
        if (r->eof || !r->read) return fail_off(r, SDX_ERR_TRUNCATED, msg, item);
        size_t have = (size_t)(r->hot.end - r->hot.p);
        /* the window moves: positions the inline path noted mean nothing */
        r->hot.begin_p = r->hot.last_p = NULL;
        if (r->hot.p != r->store) {
            r->hot.base_offset = offset_of(r, r->hot.p);
            memmove(r->store, r->hot.p, have);
            r->hot.base = r->hot.p = r->store;
            r->hot.end = r->store + have;
        }
        const char *why;
        size_t room = sdx_stream_room(&r->alloc, &r->store, &r->store_cap, have, r->chunk, &why);
        if (!room) return fail_off(r, SDX_ERR_NOMEM, why, item);
        r->hot.base = r->hot.p = r->store;
        r->hot.end = r->store + have;
        size_t got = r->read(r->ctx, (uint8_t *)r->hot.end, room);
        if (got == (size_t)-1 || got > room)
            return fail_at(r, SDX_ERR_IO, "reading the input failed", r->hot.end);
        if (got == 0) r->eof = true;
        r->hot.end += got;
    }
    return true;
}

/* Whether any byte follows p (reading a stream if needed). */
static bool more_input(sdx_cbor_reader *r) {
    if (r->hot.p != r->hot.end) return true;
    if (!r->read || r->eof) return false;
    if (!need(r, 1, 0, "")) {
        if (r->err == SDX_ERR_TRUNCATED) { /* just the end: not an error here */
            r->state = STATE_VALUE;
            r->err = SDX_OK;
            r->msg = NULL;
        }
        return false;
    }
    return true;
}

/* ------------------------------------------------------------------------ */
/* Key checks                                                                */
/* ------------------------------------------------------------------------ */

/* An array of `*cap` items of `elem` bytes with room for `need_cap`: the
 * array itself, or a larger one (doubling), or NULL when the allocation
 * fails (the old array is then kept). */
static void *grow_array(sdx_cbor_reader *r, void *items, size_t *cap, size_t need_cap,
                        size_t elem) {
    if (need_cap <= *cap && items) return items;
    size_t c = *cap ? *cap : 64;
    while (c < need_cap) {
        if (c > SIZE_MAX / 2 / elem) return NULL;
        c *= 2;
    }
    void *p = items ? r->alloc.realloc(r->alloc.ctx, items, *cap * elem, c * elem)
                    : r->alloc.malloc(r->alloc.ctx, c * elem);
    if (p) *cap = c;
    return p;
}

static bool key_bytes(sdx_cbor_reader *r, const void *s, size_t n) {
    char *buf = n > SIZE_MAX - r->keybuf_len
                    ? NULL
                    : grow_array(r, r->keybuf, &r->keybuf_cap, r->keybuf_len + n, 1);
    if (!buf) return fail_at(r, SDX_ERR_NOMEM, "out of memory", r->hot.p);
    r->keybuf = buf;
    if (n) memcpy(r->keybuf + r->keybuf_len, s, n);
    r->keybuf_len += n;
    return true;
}

/* Append the preferred encoding of an event to the key buffer (while a
 * key is being captured). In deterministic mode (where every container is
 * definite) that is the key's encoding, whose order is checked. Otherwise
 * keys are only compared for equality, and equal data items must give
 * equal bytes whatever their lengths' encodings: every container then gets
 * an indefinite head and a break, so that [_ 1] and [1] are the same key
 * (strings arrive joined, numbers in preferred form, already). */
static bool key_event(sdx_cbor_reader *r, const sdx_event *ev, bool indef_end) {
    uint8_t tmp[2 * SDX_CB_HEAD_MAX], *q = tmp;
    const bool as_indef = !(r->flags & SDX_CBOR_READ_DETERMINISTIC);
    if (ev->tag_kind == SDX_TAG_CBOR && ev->kind != SDX_END) q = sdx_cb_head(q, SDX_CB_TAG, ev->tag);
    switch ((sdx_kind)ev->kind) {
    case SDX_TAG: break;
    case SDX_NULL:
        if (ev->tag_kind == SDX_TAG_CBOR_SIMPLE) q = sdx_cb_head(q, SDX_CB_SIMPLE, ev->tag);
        else *q++ = SDX_CB_NULL;
        break;
    case SDX_BOOL: *q++ = ev->v.b ? SDX_CB_TRUE : SDX_CB_FALSE; break;
    case SDX_INT:
        q = ev->v.i < 0 ? sdx_cb_head(q, SDX_CB_NINT, ~(uint64_t)ev->v.i)
                        : sdx_cb_head(q, SDX_CB_UINT, (uint64_t)ev->v.i);
        break;
    case SDX_UINT: q = sdx_cb_head(q, SDX_CB_UINT, ev->v.u); break;
    case SDX_NINT: q = sdx_cb_head(q, SDX_CB_NINT, ev->v.u); break;
    case SDX_DOUBLE: q = sdx_cb_double(q, ev->v.d); break;
    case SDX_STR:
    case SDX_KEY:
    case SDX_BIN:
        q = sdx_cb_head(q, ev->kind == SDX_BIN ? SDX_CB_BYTES : SDX_CB_TEXT, ev->v.str.len);
        return key_bytes(r, tmp, (size_t)(q - tmp)) && key_bytes(r, ev->v.str.ptr, ev->v.str.len);
    case SDX_ARRAY:
    case SDX_MAP: {
        unsigned major = ev->kind == SDX_MAP ? SDX_CB_MAP : SDX_CB_ARRAY;
        if (ev->v.count == SDX_COUNT_UNKNOWN || as_indef) *q++ = (uint8_t)(major | 31);
        else q = sdx_cb_head(q, major, ev->v.count);
        break;
    }
    case SDX_END:
        if (indef_end || as_indef) *q++ = SDX_CB_BREAK;
        break;
    default: break;
    }
    return key_bytes(r, tmp, (size_t)(q - tmp));
}

static int key_cmp(const sdx_cbor_reader *r, const key_ref *a, const key_ref *b) {
    size_t n = a->len < b->len ? a->len : b->len;
    int c = n ? memcmp(r->keybuf + a->off, r->keybuf + b->off, n) : 0;
    if (c) return c;
    return a->len < b->len ? -1 : a->len > b->len;
}

/* A key item just started at level L (a map, key due) at offset `at`. */
static void key_start(sdx_cbor_reader *r, level *L, uint64_t at) {
    L->capturing = 1;
    L->key_start = r->keybuf_len;
    L->key_at = at;
    r->captures++;
}

/* The key captured at level L is complete: list it; in deterministic mode
 * it must follow the map's previous key in bytewise order (RFC 8949
 * section 4.2.1). */
static bool key_done(sdx_cbor_reader *r, level *L) {
    L->capturing = 0;
    r->captures--;
    key_ref *keys = grow_array(r, r->keys, &r->keys_cap, r->nkeys + 1, sizeof(key_ref));
    if (!keys) return fail_at(r, SDX_ERR_NOMEM, "out of memory", r->hot.p);
    r->keys = keys;
    key_ref *k = &r->keys[r->nkeys++];
    k->off = L->key_start;
    k->len = r->keybuf_len - L->key_start;
    k->at = L->key_at;
    if ((r->flags & SDX_CBOR_READ_DETERMINISTIC) && r->nkeys - 1 > L->keys &&
        key_cmp(r, k - 1, k) >= 0)
        return fail_off(r, SDX_ERR_SYNTAX,
                        key_cmp(r, k - 1, k) == 0 ? "duplicate map key"
                                                  : "map keys not in deterministic order",
                        k->at);
    return true;
}

static void sift(const sdx_cbor_reader *r, key_ref *e, size_t i, size_t n) {
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) return;
        if (c + 1 < n && key_cmp(r, &e[c], &e[c + 1]) < 0) c++;
        if (key_cmp(r, &e[i], &e[c]) >= 0) return;
        key_ref t = e[i];
        e[i] = e[c];
        e[c] = t;
        i = c;
    }
}

/* A checked map ends: two equal keys are SDX_ERR_KEY at the later one (a
 * heap sort of the map's keys in place, then neighbours compared). Then
 * its keys are dropped, and their bytes too unless an outer key is still
 * being captured (which holds them). */
static bool keys_end(sdx_cbor_reader *r, level *L) {
    size_t n = r->nkeys - L->keys;
    /* no pointer arithmetic on the list before it exists (NULL + 0 is
     * undefined behaviour in C) */
    key_ref *e = n ? r->keys + L->keys : NULL;
    bool ok = true;
    if (n > 1 && (r->flags & SDX_CBOR_READ_REJECT_DUPLICATE_KEYS)) {
        for (size_t i = n / 2; i-- > 0;) sift(r, e, i, n);
        for (size_t i = n - 1; i > 0; i--) {
            key_ref t = e[0];
            e[0] = e[i];
            e[i] = t;
            sift(r, e, 0, i);
        }
        for (size_t i = 1; i < n && ok; i++)
            if (key_cmp(r, &e[i - 1], &e[i]) == 0)
                ok = fail_off(r, SDX_ERR_KEY, "duplicate map key",
                              e[i - 1].at > e[i].at ? e[i - 1].at : e[i].at);
    }
    if (n && r->captures == 0) {
        size_t low = e[0].off;
        for (size_t i = 1; i < n; i++)
            if (e[i].off < low) low = e[i].off;
        r->keybuf_len = low;
    }
    r->nkeys = L->keys;
    return ok;
}

/* After an event: feed the captures, and close the key it completes. */
static bool keys_after(sdx_cbor_reader *r, const sdx_event *ev, bool indef_end) {
    if (r->captures && !key_event(r, ev, indef_end)) return false;
    if (ev->kind == SDX_TAG || ev->kind == SDX_ARRAY || ev->kind == SDX_MAP) return true;
    /* a scalar at depth d, or the END of a container begun at depth d,
     * completes an item of level d */
    level *L = &r->hot.stack[ev->depth];
    if (L->capturing) return key_done(r, L);
    return true;
}

/* ------------------------------------------------------------------------ */
/* Events                                                                    */
/* ------------------------------------------------------------------------ */

static SDX_NOINLINE bool grow_stack(sdx_cbor_reader *r, const uint8_t *at) {
    uint32_t cap = r->cap > UINT32_MAX / 2 ? UINT32_MAX : r->cap * 2;
    if ((uint64_t)cap > (uint64_t)r->max_depth + 1) cap = r->max_depth + 1;
    level *s;
    if (r->hot.stack == r->inline_stack) {
        s = r->alloc.malloc(r->alloc.ctx, (size_t)cap * sizeof(level));
        if (s) memcpy(s, r->hot.stack, ((size_t)r->hot.depth + 1) * sizeof(level));
    } else {
        s = r->alloc.realloc(r->alloc.ctx, r->hot.stack, (size_t)r->cap * sizeof(level),
                             (size_t)cap * sizeof(level));
    }
    if (!s) return fail_at(r, SDX_ERR_NOMEM, "out of memory", at);
    r->hot.stack = s;
    r->cap = cap;
    return true;
}

static void set_ev(sdx_event *ev, sdx_kind kind, uint32_t d) { sdx_hot_head(ev, (uint8_t)kind, d); }

/* Close the innermost container with an END event. */
static bool end_event(sdx_cbor_reader *r, sdx_event *ev, bool indef) {
    level *L = &r->hot.stack[r->hot.depth];
    r->hot.depth--;
    set_ev(ev, SDX_END, r->hot.depth);
    if (r->check_keys) {
        if (L->kind == SDX_CB_LEVEL_MAP && !keys_end(r, L)) return false;
        if (!keys_after(r, ev, indef)) return false;
    }
    return true;
}

/* Join the chunks of an indefinite-length string (RFC 8949 section 3.2.3)
 * whose head 5f or 7f is at r->hot.p into the scratch buffer: each chunk must
 * be a definite-length string of the same major type (each text chunk
 * valid UTF-8 on its own), up to the break. Consumes the whole item. */
static bool join_chunks(sdx_cbor_reader *r, unsigned major, uint64_t item, size_t *len) {
    size_t total = 0;
    /* With SDX_CBOR_READ_CHUNKS every chunk's entry in the list of
     * lengths counts towards max_string too, so that the limit bounds all
     * the memory the string takes (empty chunks included). */
    const size_t per_chunk = (r->flags & SDX_CBOR_READ_CHUNKS) ? sizeof(size_t) : 0;
    size_t limit = r->max_string;
    r->nchunks = 0;
    r->hot.p++;
    for (;;) {
        if (!need(r, 1, item, "input ends inside an indefinite-length string")) return false;
        uint8_t c = *r->hot.p;
        if (c == SDX_CB_BREAK) {
            r->hot.p++;
            break;
        }
        unsigned ai = c & 31u;
        if ((c & 0xe0u) != major)
            return fail_at(r, SDX_ERR_SYNTAX,
                           "chunk of an indefinite-length string of another type", r->hot.p);
        if (ai == 31)
            return fail_at(r, SDX_ERR_SYNTAX, "indefinite-length chunk in an indefinite-length string",
                           r->hot.p);
        if (ai >= 28) return fail_at(r, SDX_ERR_SYNTAX, "reserved additional information", r->hot.p);
        size_t hs = sdx_cb_head_size(c);
        if (!need(r, hs, item, "input ends inside an indefinite-length string")) return false;
        uint64_t n = sdx_cb_arg(r->hot.p);
        if (!r->read && n > (uint64_t)(r->hot.end - r->hot.p) - hs)
            return fail_off(r, SDX_ERR_TRUNCATED, "string chunk longer than the input", item);
        if (per_chunk > limit - total || n > limit - total - per_chunk)
            return fail_off(r, SDX_ERR_LIMIT, "indefinite-length string longer than the limit", item);
        if (per_chunk) {
            size_t *cl = grow_array(r, r->chunks, &r->chunks_cap, r->nchunks + 1, sizeof *cl);
            if (!cl) return fail_off(r, SDX_ERR_NOMEM, "out of memory", item);
            r->chunks = cl;
            r->chunks[r->nchunks++] = (size_t)n;
            limit -= per_chunk;
        }
        if (!need(r, hs + (size_t)n, item, "string chunk longer than the input")) return false;
        const uint8_t *s = r->hot.p + hs;
        if (major == SDX_CB_TEXT && !(r->flags & SDX_CBOR_READ_NO_UTF8_CHECK) &&
            !sdx_utf8_ok(r->utf8_valid, (const char *)s, (size_t)n))
            return fail_at(r, SDX_ERR_UTF8, "text string chunk is not valid UTF-8", r->hot.p);
        if (n) {
            char *sc = grow_array(r, r->scratch, &r->scratch_cap, total + (size_t)n, 1);
            if (!sc) return fail_off(r, SDX_ERR_NOMEM, "out of memory", item);
            r->scratch = sc;
            memcpy(r->scratch + total, s, (size_t)n);
            total += (size_t)n;
        }
        r->hot.p = s + n; /* the chunk is copied: a stream may drop its bytes */
    }
    *len = total;
    return true;
}

/* A stream's definite-length string longer than memory can hold (its
 * length beyond SIZE_MAX; the head, hs bytes, is at r->hot.p): read on without
 * keeping the bytes, to tell an input that ends inside the string
 * (SDX_ERR_TRUNCATED at the string, as a memory reader says at once) from
 * one that really holds that many bytes (SDX_ERR_LIMIT). Needs no memory:
 * each chunk is read into the same place. */
static SDX_NOINLINE bool unholdable_string(sdx_cbor_reader *r, uint64_t len, size_t hs,
                                           uint64_t item) {
    uint64_t have = (uint64_t)(r->hot.end - r->hot.p) - hs; /* the string's bytes read so far */
    for (;;) {
        if (have >= len)
            return fail_off(r, SDX_ERR_LIMIT, "string too long to hold in memory", item);
        if (r->eof) return fail_off(r, SDX_ERR_TRUNCATED, "string longer than the input", item);
        r->hot.base_offset = offset_of(r, r->hot.end);
        r->hot.begin_p = r->hot.last_p = NULL; /* the window moves */
        r->hot.base = r->hot.p = r->hot.end = r->store;
        size_t got = r->read(r->ctx, r->store, r->chunk);
        if (got == (size_t)-1 || got > r->chunk)
            return fail_at(r, SDX_ERR_IO, "reading the input failed", r->hot.end);
        if (got == 0) r->eof = true;
        r->hot.p = r->hot.end = r->store + got;
        have = got > UINT64_MAX - have ? UINT64_MAX : have + got;
    }
}

/* Before the first item (the input is empty so far): read on, or end a
 * sequence cleanly, or fail for an empty input. */
static bool before_root(sdx_cbor_reader *r) {
    if (more_input(r)) return true;
    if (r->state == STATE_ERROR) return false;
    if (r->flags & SDX_CBOR_READ_STOP_AFTER_VALUE) {
        r->state = STATE_END;
        return false;
    }
    return fail_at(r, SDX_ERR_TRUNCATED, "empty input", r->hot.p);
}

/* After the root item: the end of the input, the next item of a sequence,
 * or an error for bytes that follow. */
static bool after_root(sdx_cbor_reader *r) {
    if (more_input(r)) {
        if (r->flags & SDX_CBOR_READ_STOP_AFTER_VALUE) {
            r->hot.stack[0].left = 1;
            return true;
        }
        return fail_at(r, SDX_ERR_SYNTAX, "bytes after the item", r->hot.p);
    }
    if (r->state == STATE_ERROR) return false;
    r->state = STATE_END;
    return false;
}

/* Deterministic encoding: a float must not fit a shorter width exactly
 * (preferred serialization, RFC 8949 section 4.1). */
static bool float_shortest(double d, unsigned width) {
    uint16_t h;
    uint32_t f;
    if (sdx_double_to_half_exact(d, &h)) return width == 2;
    if (sdx_double_to_float_exact(d, &f)) return width == 4;
    return true;
}

/* What is missing when the input ends inside the open container L. */
static const char *ends_inside(const level *L) {
    if (L->kind == SDX_CB_LEVEL_MAP)
        return L->indef ? "input ends before the break of an indefinite-length map"
                        : "input ends before a map has all its entries";
    return L->indef ? "input ends before the break of an indefinite-length array"
                    : "input ends before an array has all its items";
}

static bool next_event(sdx_cbor_reader *r, sdx_event *ev) {
    if (r->state != STATE_VALUE) return false;
    uint32_t d = r->hot.depth;
    level *L = &r->hot.stack[d];
    if (L->left == 0) {
        if (d && L->capped)
            return fail_off(r, SDX_ERR_LIMIT, "count beyond what the reader can count", L->start);
        if (d) return end_event(r, ev, false);
        if (!after_root(r)) return false;
    } else if (d == 0 && r->tags_run == 0 && r->hot.p == r->hot.end && !before_root(r)) {
        return false;
    }
    const bool strict = (r->flags & SDX_CBOR_READ_DETERMINISTIC) != 0;
    bool tagged = false; /* the item's own (innermost) tag was read */
    uint64_t tag = 0, tag_at = 0;
    uint64_t item;
    bool drain = false; /* a doomed container: read on to the error */
again:
    item = offset_of(r, r->hot.p);
    /* Where the input ends before an item of a container, the container is
     * the innermost item it ends inside: the error is reported at its first
     * byte (as for a definite count that exceeds the input), so that memory
     * and stream readers agree. */
    if (r->hot.p == r->hot.end &&
        !need(r, 1, d ? L->start : item, d ? ends_inside(L) : "input ends before an item"))
        return false;
    const uint8_t *p = r->hot.p;
    uint8_t ib = *p;
    unsigned major = ib & 0xe0u, ai = ib & 31u;
    if (ib == SDX_CB_BREAK) {
        if (r->tags_run) return fail_at(r, SDX_ERR_SYNTAX, "break after a tag", p);
        if (!L->indef)
            return fail_at(r, SDX_ERR_SYNTAX,
                           d == 0                        ? "break outside an indefinite-length item"
                           : L->kind == SDX_CB_LEVEL_MAP ? "break in a definite-length map"
                                                         : "break in a definite-length array",
                           p);
        if (L->kind == SDX_CB_LEVEL_MAP && (L->left & 1))
            return fail_at(r, SDX_ERR_SYNTAX, "break where a map value is due", p);
        r->hot.p = p + 1;
        return end_event(r, ev, true);
    }
    if (ai >= 28 && ai <= 30) return fail_at(r, SDX_ERR_SYNTAX, "reserved additional information", p);
    if (ai == 31) {
        if (major == SDX_CB_UINT || major == SDX_CB_NINT || major == SDX_CB_TAG ||
            major == SDX_CB_SIMPLE)
            return fail_at(r, SDX_ERR_SYNTAX, "indefinite length on a type that has none", p);
        if (strict) return fail_at(r, SDX_ERR_SYNTAX, "indefinite length in deterministic encoding", p);
    }
    size_t hs = sdx_cb_head_size(ib);
    if (!need(r, hs, item, "input ends inside a head")) return false;
    p = r->hot.p;
    uint64_t arg = ai < 28 ? sdx_cb_arg(p) : 0;
    if (strict && ai < 28 && major != SDX_CB_SIMPLE && !sdx_cb_head_shortest(ai, arg))
        return fail_at(r, SDX_ERR_SYNTAX, "head not in its shortest form", p);

    /* A key item starts with its first tag or, untagged, with itself. */
    bool key = L->kind == SDX_CB_LEVEL_MAP && !(L->left & 1);
    if (r->check_keys && key && r->tags_run == 0) key_start(r, L, item);

    if (major == SDX_CB_TAG) {
        if (r->tags_run >= r->max_tags)
            return fail_at(r, SDX_ERR_LIMIT, "more tags on one item than the limit", p);
        r->tags_run++;
        r->hot.p = p + hs;
        /* the tag is the innermost item the input ends inside */
        if (!need(r, 1, item, "input ends after a tag, before its content")) return false;
        uint8_t nb = *r->hot.p;
        unsigned nmajor = nb & 0xe0u, nai = nb & 31u;
        if (nmajor == SDX_CB_TAG ||
            (nmajor == SDX_CB_SIMPLE && (nai < 20 || nai == 23 || nai == 24))) {
            /* An outer tag of a chain, or a tag on a simple value (whose
             * event's tag is the simple value): an event of its own. */
            set_ev(ev, SDX_TAG, d);
            ev->tag_kind = SDX_TAG_CBOR;
            ev->tag = arg;
            return !r->check_keys || keys_after(r, ev, false);
        }
        tagged = true;
        tag = arg;
        tag_at = item;
        goto again;
    }
    r->tags_run = 0;
    L->left--;
    switch (major) {
    case SDX_CB_UINT:
        set_ev(ev, arg > INT64_MAX ? SDX_UINT : SDX_INT, d);
        ev->v.u = arg;
        r->hot.p = p + hs;
        break;
    case SDX_CB_NINT:
        /* -1 - arg (section 3.1): int64 down to INT64_MIN, SDX_NINT below */
        set_ev(ev, arg > INT64_MAX ? SDX_NINT : SDX_INT, d);
        if (arg > INT64_MAX) ev->v.u = arg;
        else ev->v.i = -1 - (int64_t)arg;
        r->hot.p = p + hs;
        break;
    case SDX_CB_BYTES:
    case SDX_CB_TEXT: {
        sdx_kind kind = major == SDX_CB_BYTES ? SDX_BIN : key ? SDX_KEY : SDX_STR;
        const char *s;
        size_t n = 0;
        bool indef = false;
        if (ai == 31) {
            if (!join_chunks(r, major, item, &n)) return false;
            s = r->scratch;
            indef = (r->flags & SDX_CBOR_READ_CHUNKS) != 0;
        } else {
            if (!r->read && arg > (uint64_t)(r->hot.end - p) - hs)
                return fail_at(r, SDX_ERR_TRUNCATED, "string longer than the input", p);
            if (arg > SIZE_MAX - hs) return unholdable_string(r, arg, hs, item);
            if (!need(r, hs + (size_t)arg, item, "string longer than the input")) return false;
            p = r->hot.p;
            s = (const char *)p + hs;
            n = (size_t)arg;
            if (major == SDX_CB_TEXT && !(r->flags & SDX_CBOR_READ_NO_UTF8_CHECK) &&
                !sdx_utf8_ok(r->utf8_valid, s, n))
                return fail_at(r, SDX_ERR_UTF8, "text string is not valid UTF-8", p);
            r->hot.p = p + hs + n;
        }
        set_ev(ev, kind, d);
        ev->v.str.ptr = s ? s : "";
        ev->v.str.len = n;
        if (indef) ev->flags = SDX_EVENT_INDEFINITE;
        break;
    }
    case SDX_CB_ARRAY:
    case SDX_CB_MAP: {
        bool map = major == SDX_CB_MAP;
        /* Every item takes at least a byte: a memory reader knows at once
         * that a count beyond the bytes left cannot be met (doomed). It
         * does not fail right there, since the RFC's reading may meet
         * another error first (a break in it, as in a1 ff, is a syntax
         * error, RFC 8949 Appendix F.1): it reads on to the first error a
         * reading item by item meets (drain, below), counting down at most
         * the bytes left plus one items, so without allocating anything
         * for the count and without delivering an event. */
        uint64_t room = (uint64_t)(r->hot.end - p) - hs;
        bool doomed = ai != 31 && !r->read && arg > room >> map;
        /* A stream's count of 2^62 items or more (which no input can
         * meet in practice): read on as for any count, counting down
         * part of it, so that the error a reading item by item meets is
         * the one reported, as a memory reader does; the part counted
         * down to 0 would be SDX_ERR_LIMIT. */
        bool capped = ai != 31 && !doomed && arg >= (map ? INDEF / 2 : INDEF);
        if (d >= r->max_depth) return fail_at(r, SDX_ERR_DEPTH, "nesting deeper than the limit", p);
        if (d + 1 >= r->cap && !grow_stack(r, p)) return false;
        level *c = &r->hot.stack[d + 1];
        c->kind = map ? SDX_CB_LEVEL_MAP : SDX_CB_LEVEL_ARRAY;
        c->indef = ai == 31;
        c->start = item;
        c->capped = capped;
        if (doomed) /* more than the bytes left; a map's even (a key due when even) */
            c->left = map ? (room + 2) & ~(uint64_t)1 : room + 1;
        else if (capped)
            c->left = INDEF - 2;
        else
            c->left = ai == 31 ? INDEF : map ? 2 * arg : arg;
        c->capturing = 0;
        c->keys = r->nkeys;
        r->hot.depth = d + 1;
        r->hot.p = p + hs;
        set_ev(ev, map ? SDX_MAP : SDX_ARRAY, d);
        ev->v.count = ai == 31 ? SDX_COUNT_UNKNOWN : arg;
        drain = doomed && !r->draining;
        break;
    }
    default: /* major type 7: simple values and floats (section 3.3) */
        set_ev(ev, SDX_NULL, d);
        switch (ai) {
        case 20:
        case 21:
            ev->kind = SDX_BOOL;
            ev->v.b = ai == 21;
            break;
        case 22: break;
        case 24:
            if (arg < 32)
                return fail_at(r, SDX_ERR_SYNTAX, "two-byte simple value below 32", p);
            ev->tag_kind = SDX_TAG_CBOR_SIMPLE;
            ev->tag = arg;
            break;
        case 25:
            ev->kind = SDX_DOUBLE;
            ev->flags = SDX_EVENT_FLOAT16;
            ev->v.d = sdx_half_bits_to_double((uint16_t)arg);
            break;
        case 26:
            ev->kind = SDX_DOUBLE;
            ev->flags = SDX_EVENT_FLOAT32;
            ev->v.d = sdx_float_bits_to_double((uint32_t)arg);
            break;
        case 27:
            ev->kind = SDX_DOUBLE;
            memcpy(&ev->v.d, &arg, 8);
            break;
        default: /* 0-19 and 23 (undefined) */
            ev->tag_kind = SDX_TAG_CBOR_SIMPLE;
            ev->tag = ai;
            break;
        }
        if (strict && ai >= 25 && ai <= 27 && !float_shortest(ev->v.d, 1u << (ai - 24)))
            return fail_at(r, SDX_ERR_SYNTAX, "float not in its shortest form", p);
        r->hot.p = p + hs;
        break;
    }
    if (tagged) {
        ev->tag_kind = SDX_TAG_CBOR;
        ev->tag = tag;
        /* a bignum in preferred serialization (section 3.4.3): no leading
         * zero byte, and a value that major type 0 or 1 cannot hold */
        if (strict && (tag == 2 || tag == 3) && ev->kind == SDX_BIN &&
            (ev->v.str.len <= 8 || ev->v.str.ptr[0] == 0))
            return fail_off(r, SDX_ERR_SYNTAX,
                            ev->v.str.len <= 8 ? "bignum that fits a plain integer"
                                               : "bignum with a leading zero byte",
                            tag_at);
    }
    if (r->check_keys && !keys_after(r, ev, false)) return false;
    if (drain) {
        /* The container cannot be complete: read on, dropping events (one
         * loop; doomed containers met inside just count down), to the first
         * error, which is certain to come (its count of items is more
         * than the bytes left). */
        uint64_t start = r->hot.stack[r->hot.depth].start;
        sdx_event dropped;
        r->draining = true;
        while (next_event(r, &dropped)) {
        }
        r->draining = false;
        if (r->state != STATE_ERROR) /* not reached: the count cannot be met */
            return fail_off(r, SDX_ERR_TRUNCATED,
                            ev->kind == SDX_MAP ? "map count exceeds the input"
                                                : "array count exceeds the input",
                            start);
        return false;
    }
    return true;
}

/* Whether the inline path of cbor.h may run from here on, and at which
 * depths: only for a reader reading on (no error, not at the end), without
 * key checks (it does not feed them) and with no tag read for the next
 * item; at depths where a container may open (below max_depth, and with a
 * level free in the stack). */
static void hot_update(sdx_cbor_reader *r) {
    uint32_t limit = r->cap - 1 < r->max_depth ? r->cap - 1 : r->max_depth;
    r->hot.depth_limit =
        r->state == STATE_VALUE && !r->check_keys && r->tags_run == 0 ? limit : 0;
    r->hot.left = sdx_cb_hot_left(&r->hot.stack[r->hot.depth]);
}

bool (sdx_cbor_reader_next)(sdx_cbor_reader *r, sdx_event *ev) {
    /* the inline path counts the innermost level in r->hot.left */
    r->hot.stack[r->hot.depth].left = r->hot.left & ~SDX_CB_HOT_MAP;
    bool ok = next_event(r, ev);
    if (ok) {
        r->last_kind = ev->kind;
        r->last_flags = ev->flags;
        r->last_depth = ev->depth;
    }
    r->hot.last_p = r->hot.p;
    hot_update(r);
    return ok;
}

sdx_err sdx_cbor_reader_error(const sdx_cbor_reader *r, sdx_error *err) {
    if (r->state != STATE_ERROR) {
        sdx_error_fill(err, SDX_OK, 0, NULL);
        return SDX_OK;
    }
    sdx_error_fill(err, r->err, r->err_offset, r->msg);
    return r->err;
}

uint64_t sdx_cbor_reader_offset(const sdx_cbor_reader *r) { return offset_of(r, r->hot.p); }

const size_t *sdx_cbor_reader_chunks(const sdx_cbor_reader *r, size_t *n) {
    /* the last event is the exported function's (not the inline path's)
     * when the window is where that function left it */
    bool chunked = r->state == STATE_VALUE && (r->flags & SDX_CBOR_READ_CHUNKS) &&
                   r->hot.p == r->hot.last_p && (r->last_flags & SDX_EVENT_INDEFINITE);
    *n = chunked ? r->nchunks : 0;
    return chunked ? r->chunks : NULL;
}

bool sdx_cbor_reader_skip(sdx_cbor_reader *r) {
    if (r->state == STATE_ERROR) return false;
    sdx_event ev;
    uint8_t kind = r->last_kind;
    uint32_t depth = r->last_depth;
    /* The last event: the exported function's when the window is where
     * that function left it (the inline path moves it on, or clears
     * last_p at an END); else the inline path's, a begin when the window
     * and depth are where its last begin left them, a scalar or an END
     * otherwise. */
    if (r->hot.p != r->hot.last_p) {
        bool begun = r->hot.p == r->hot.begin_p && r->hot.depth == r->hot.begin_depth;
        kind = begun ? SDX_ARRAY : SDX_NULL;
        depth = r->hot.depth - 1;
    }
    while (kind == SDX_TAG) { /* the tagged item follows */
        if (!sdx_cbor_reader_next(r, &ev)) return r->state != STATE_ERROR;
        kind = ev.kind;
        depth = ev.depth;
    }
    if (kind != SDX_ARRAY && kind != SDX_MAP) return true;
    while (sdx_cbor_reader_next(r, &ev))
        if (ev.kind == SDX_END && ev.depth == depth) return true;
    return false;
}

static bool source_next(void *ctx, sdx_event *ev) {
    return sdx_cbor_reader_next((sdx_cbor_reader *)ctx, ev);
}

static sdx_err source_error(const void *ctx, sdx_error *err) {
    return sdx_cbor_reader_error((const sdx_cbor_reader *)ctx, err);
}

static uint64_t source_offset(const void *ctx) {
    return sdx_cbor_reader_offset((const sdx_cbor_reader *)ctx);
}

static const sdx_source_vt cbor_source_vt = {source_next, source_error, source_offset};

sdx_source sdx_cbor_reader_source(sdx_cbor_reader *r) {
    sdx_source s = {&cbor_source_vt, r};
    return s;
}
