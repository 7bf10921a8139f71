/*
 * The MessagePack pull reader: one event per call, strings and binaries as
 * views into the input.
 *
 * The input is a window [p, end) of bytes: the whole input for a memory
 * reader, the reader's own buffer for a stream. An item (a value's header
 * and, for str, bin and ext, its payload) whose bytes are all in the window
 * is decoded in place; when the window ends inside an item, a memory reader
 * reports SDX_ERR_TRUNCATED at the item's first byte, and a stream reader
 * moves the partial item to the front of its buffer and reads more chunks
 * after it, growing the buffer only by what actually arrives.
 *
 * Three layers: the inline fast path in msgpack.h (what a call of
 * sdx_msgpack_reader_next compiles to) takes the commonest items in the
 * caller's own code; the exported function below takes those and a few
 * more kinds without a stack frame; next_full takes everything, streams
 * and errors included. Each hands over to the next whenever an item is not
 * among its kinds or not wholly in the window, so they give the same
 * events and errors (test_msgpack_reader checks the first two against
 * each other).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/platform.h"
#include "core/stream.h"
#include "core/utf8.h"
#include "msgpack/msgpack_internal.h"
#include "msgpack/reader_internal.h"
#include "sdx/msgpack.h"
#include "simd/simd.h"

/* A stack entry: the items (a map's keys and values) still to come in an
 * open container, with MAP_BIT set for a map. In a map a key is due when
 * the items left are even. Entry 0 stands for the top level: 1 while the
 * root value is due, 0 after it; the container at depth d is entry d. The
 * entry of the innermost level (depth) lives in the reader's `left`, where
 * the fast paths read and count it without indexing the stack; the stack
 * holds it only while next_full runs. A container may open on the fast
 * paths at depths below depth_limit = min(max_depth, cap - 1). */
#define MAP_BIT (UINT64_C(1) << 63)
#define INLINE_STACK 32

/* Where the reader is: reading, or done (cleanly or not). Once done, the
 * input window is empty or the top level has nothing left, so the fast
 * paths always hand over to next_full, which returns false. */
enum { STATE_VALUE, STATE_END, STATE_ERROR };

struct sdx_msgpack_reader {
    sdx_msgpack_reader_hot hot; /* first, for the inline fast path
                                   (msgpack.h): the window [p, end), the
                                   innermost entry `left` and the stack
                                   of the levels outside it (see above),
                                   the depth, depth_limit, ascii_mask, and
                                   where the last begin event left off */
    const uint8_t *base; /* offset 0 of the window: input offset base_offset */
    uint64_t base_offset;
    uint32_t cap;
    uint32_t max_depth;
    uint32_t flags;
    uint8_t state;
    size_t (*utf8_valid)(const char *s, size_t n);
    sdx_err err;
    const char *msg;
    uint64_t err_offset;
    /* streams */
    sdx_read_fn read;  /* NULL for memory */
    void *ctx;
    uint8_t *store;    /* the buffer (allocated) */
    size_t store_cap;
    size_t chunk;
    bool eof;
    sdx_alloc alloc;
    uint64_t inline_stack[INLINE_STACK];
};

static const uint8_t empty_input[1] = {0};

static uint64_t offset_of(const sdx_msgpack_reader *r, const uint8_t *at) {
    return r->base_offset + (uint64_t)(at - r->base);
}

static SDX_NOINLINE bool fail_at(sdx_msgpack_reader *r, sdx_err code, const char *msg,
                                 const uint8_t *at) {
    if (r->state != STATE_ERROR) {
        r->err = code;
        r->msg = msg;
        r->err_offset = offset_of(r, at);
        r->state = STATE_ERROR;
        r->hot.end = r->hot.p; /* nothing more for the fast paths */
    }
    return false;
}

/* ------------------------------------------------------------------------ */
/* Creating                                                                  */
/* ------------------------------------------------------------------------ */

/* The reader at r zeroed (its inline stack is left as it is), with the
 * options applied and no input yet. */
static void reader_init(sdx_msgpack_reader *r, const sdx_msgpack_read_opts *opts, const sdx_alloc *a) {
    /* the stack's entries are written before they are read (a reset
     * reader's hold the last input's levels; a new one's are zeroed) */
    sdx_zero_small(r, offsetof(sdx_msgpack_reader, inline_stack));
    r->alloc = *a;
    r->flags = opts ? opts->flags : 0;
    r->max_depth = opts && opts->max_depth ? opts->max_depth : SDX_MSGPACK_DEFAULT_MAX_DEPTH;
    r->hot.stack = r->inline_stack;
    r->cap = INLINE_STACK;
    r->hot.depth_limit = r->max_depth < r->cap - 1 ? r->max_depth : r->cap - 1;
    r->hot.left = 1; /* the root value is due */
    r->hot.ascii_mask = r->flags & SDX_MSGPACK_READ_NO_UTF8_CHECK ? 0 : 0x8080808080808080ull;
    r->state = STATE_VALUE;
    r->utf8_valid = sdx_simd_active()->utf8_valid_prefix;
    r->hot.utf8_valid = r->utf8_valid;
}

static sdx_msgpack_reader *reader_alloc(const sdx_msgpack_read_opts *opts) {
    const sdx_alloc *a;
    sdx_msgpack_reader *r = sdx_reader_malloc(opts ? opts->alloc : NULL, sizeof *r, &a);
    if (!r) return NULL;
    memset(r->inline_stack, 0, sizeof r->inline_stack);
    reader_init(r, opts, a);
    return r;
}

/* The input of a reader over memory. */
static void memory_input(sdx_msgpack_reader *r, const char *data, size_t len) {
    if (!data) len = 0;
    r->base = r->hot.p = data ? (const uint8_t *)data : empty_input;
    r->hot.end = r->hot.p + len;
    r->eof = true;
}

sdx_msgpack_reader *sdx_msgpack_reader_new(const char *data, size_t len,
                                           const sdx_msgpack_read_opts *opts) {
    sdx_msgpack_reader *r = reader_alloc(opts);
    if (!r) return NULL;
    memory_input(r, data, len);
    return r;
}

/* Everything r allocated but r itself (no call for what it did not
 * allocate: a reset reader over short messages usually has nothing). */
static void free_parts(sdx_msgpack_reader *r) {
    sdx_alloc a = r->alloc;
    if (r->hot.stack != r->inline_stack) a.free(a.ctx, r->hot.stack);
    if (r->store) a.free(a.ctx, r->store);
}

sdx_err sdx_msgpack_reader_reset(sdx_msgpack_reader *r, const char *data, size_t len) {
    if (!r) return SDX_ERR_INVALID_ARG;
    if (r->store) return SDX_ERR_USAGE; /* a stream's reader */
    const sdx_msgpack_read_opts o = {.flags = r->flags, .max_depth = r->max_depth};
    const sdx_alloc a = r->alloc;
    free_parts(r);
    reader_init(r, &o, &a);
    memory_input(r, data, len);
    return SDX_OK;
}

sdx_msgpack_reader *sdx_msgpack_reader_new_stream(sdx_read_fn read, void *ctx, size_t chunk,
                                                  const sdx_msgpack_read_opts *opts) {
    sdx_msgpack_reader *r = reader_alloc(opts);
    if (!r) return NULL;
    void *store = sdx_stream_store(&r->alloc, r, &chunk);
    if (!store) return NULL; /* r is freed */
    r->store = store;
    r->store_cap = r->chunk = chunk;
    r->read = read;
    r->ctx = ctx;
    r->base = r->hot.p = r->hot.end = r->store;
    return r;
}

#ifndef SDX_NO_STDIO
sdx_msgpack_reader *sdx_msgpack_reader_new_file(FILE *f, const sdx_msgpack_read_opts *opts) {
    return sdx_msgpack_reader_new_stream(sdx_file_read, f, 0, opts);
}
#endif

void sdx_msgpack_reader_free(sdx_msgpack_reader *r) {
    if (!r) return;
    sdx_alloc a = r->alloc;
    free_parts(r);
    a.free(a.ctx, r);
}

sdx_msgpack_reader *sdx_msgpack_reader_clone_cut(const sdx_msgpack_reader *r, size_t len) {
    if (r->read || len < (size_t)(r->hot.p - r->base) || len > (size_t)(r->hot.end - r->base)) return NULL;
    sdx_msgpack_reader *c = r->alloc.malloc(r->alloc.ctx, sizeof *c);
    if (!c) return NULL;
    memcpy(c, r, sizeof *c);
    c->hot.end = c->base + len;
    c->hot.stack = c->inline_stack;
    if (r->hot.stack != r->inline_stack) {
        c->hot.stack = r->alloc.malloc(r->alloc.ctx, (size_t)r->cap * sizeof(uint64_t));
        if (!c->hot.stack) {
            r->alloc.free(r->alloc.ctx, c);
            return NULL;
        }
        memcpy(c->hot.stack, r->hot.stack, ((size_t)r->hot.depth + 1) * sizeof(uint64_t));
    }
    return c;
}

/* ------------------------------------------------------------------------ */
/* Input                                                                     */
/* ------------------------------------------------------------------------ */

/* Make n bytes available from p on. Memory readers (and streams at their
 * end) fail with SDX_ERR_TRUNCATED at p, the first byte of the item that
 * does not fit: `msg` says what was cut. A stream moves [p, end) to the
 * front of its buffer and reads up to a chunk after it; the buffer doubles
 * only when it is full of bytes that have arrived, so it never exceeds
 * twice what arrived (or the first chunk), and never grows to n itself up
 * front (a declared length cannot size it). */
static SDX_NOINLINE bool need(sdx_msgpack_reader *r, size_t n, const char *msg) {
    while ((size_t)(r->hot.end - r->hot.p) < n) {
        if (r->eof || !r->read) return fail_at(r, SDX_ERR_TRUNCATED, msg, r->hot.p);
        size_t have = (size_t)(r->hot.end - r->hot.p);
        r->hot.begin_p = NULL; /* the bytes move: the last event is no begin */
        if (r->hot.p != r->store) {
            r->base_offset = offset_of(r, r->hot.p);
            memmove(r->store, r->hot.p, have);
            r->base = r->hot.p = r->store;
            r->hot.end = r->store + have;
        }
        const char *why;
        size_t room = sdx_stream_room(&r->alloc, &r->store, &r->store_cap, have, r->chunk, &why);
        if (!room) return fail_at(r, SDX_ERR_NOMEM, why, r->hot.p);
        r->base = r->hot.p = r->store;
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
static bool more_input(sdx_msgpack_reader *r) {
    if (r->hot.p != r->hot.end) return true;
    if (!r->read || r->eof) return false;
    if (!need(r, 1, "")) {
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
/* Events                                                                    */
/* ------------------------------------------------------------------------ */

static SDX_NOINLINE bool grow_stack(sdx_msgpack_reader *r) {
    uint32_t cap = r->cap > UINT32_MAX / 2 ? UINT32_MAX : r->cap * 2;
    if ((uint64_t)cap > (uint64_t)r->max_depth + 1) cap = r->max_depth + 1;
    uint64_t *s;
    if (r->hot.stack == r->inline_stack) {
        s = r->alloc.malloc(r->alloc.ctx, (size_t)cap * sizeof(uint64_t));
        if (s) memcpy(s, r->hot.stack, ((size_t)r->hot.depth + 1) * sizeof(uint64_t));
    } else {
        s = r->alloc.realloc(r->alloc.ctx, r->hot.stack, (size_t)r->cap * sizeof(uint64_t),
                             (size_t)cap * sizeof(uint64_t));
    }
    if (!s) return fail_at(r, SDX_ERR_NOMEM, "out of memory", r->hot.p);
    r->hot.stack = s;
    r->cap = cap;
    r->hot.depth_limit = r->max_depth < cap - 1 ? r->max_depth : cap - 1;
    return true;
}

/* Before the first value (the input is empty so far): read on, or end a
 * sequence cleanly, or fail for an empty input. */
static SDX_NOINLINE bool before_root(sdx_msgpack_reader *r) {
    if (more_input(r)) return true;
    if (r->state == STATE_ERROR) return false;
    if (r->flags & SDX_MSGPACK_READ_STOP_AFTER_VALUE) {
        r->state = STATE_END;
        return false;
    }
    return fail_at(r, SDX_ERR_TRUNCATED, "empty input", r->hot.p);
}

/* After the root value: the end of the input, the next value of a
 * sequence, or an error for bytes that follow. */
static SDX_NOINLINE bool after_root(sdx_msgpack_reader *r) {
    if (more_input(r)) {
        if (r->flags & SDX_MSGPACK_READ_STOP_AFTER_VALUE) {
            r->hot.stack[0] = 1;
            return true;
        }
        return fail_at(r, SDX_ERR_SYNTAX, "bytes after the value", r->hot.p);
    }
    if (r->state == STATE_ERROR) return false;
    r->state = STATE_END;
    return false;
}

#define SET_EV(k) \
    do {           \
        ev->kind = (k); \
        ev->flags = 0;  \
        ev->tag_kind = SDX_TAG_NONE; \
        ev->tag = 0;    \
        ev->depth = d;  \
    } while (0)

/* The header bytes an item needs, from its first byte (1 to 9; ext 8/16/32
 * include the type byte). */
static const uint8_t header_len[32] = {
    /* c0 */ 1, 1, 1, 1, 2, 3, 5, 3, 4, 6, 5, 9, 2, 3, 5, 9,
    /* d0 */ 2, 3, 5, 9, 2, 2, 2, 2, 2, 2, 3, 5, 3, 5, 3, 5,
};

/* One fixed-size scalar (SDX_MP_FIXED_SCALARS) into the event. */
#define FULL_SCALAR(K, FL, BITS, SIZE)        \
    {                                         \
        uint64_t bits_ = (BITS);              \
        SET_EV(K);                            \
        ev->flags = (FL);                     \
        ev->v.u = bits_;                      \
        if ((K) == SDX_BOOL) ev->v.b = bits_; \
        r->hot.p = p + (SIZE);                    \
        goto scalar;                          \
    }

/* Every item, and everything around items: END events, the state after the
 * root, streams, errors. Works on the stack alone (next_full below puts the
 * innermost entry there and takes it back). */
static bool next_full_stack(sdx_msgpack_reader *r, sdx_event *ev) {
    uint32_t d = r->hot.depth;
    if (SDX_UNLIKELY(r->state != STATE_VALUE)) return false;
    uint64_t *f = &r->hot.stack[d];
    uint64_t left = *f & ~MAP_BIT;
    if (left == 0) {
        if (d) {
            d--;
            SET_EV(SDX_END);
            r->hot.depth = d;
            return true;
        }
        if (!after_root(r)) return false;
        left = 1;
    } else if (d == 0 && r->hot.p == r->hot.end && !before_root(r)) {
        return false;
    }
    int key = (*f >> 63) & !(left & 1);
    (*f)--;

    const uint8_t *p = r->hot.p;
    size_t avail = (size_t)(r->hot.end - p);
    if (SDX_UNLIKELY(avail < 9)) {
        if (!need(r, 1, "input ends inside a value")) goto undo;
        p = r->hot.p;
        uint8_t c0 = *p;
        size_t h = c0 >= 0xc0 && c0 < 0xe0 ? header_len[c0 - 0xc0] : 1;
        if (!need(r, h, "input ends inside a value")) goto undo;
        p = r->hot.p;
        avail = (size_t)(r->hot.end - p);
    }
    uint8_t c = *p;
    size_t n, h;
    if (c < 0x80) {
        SET_EV(SDX_INT);
        ev->v.i = c;
        r->hot.p = p + 1;
        goto scalar;
    }
    if (c >= 0xa0 && c < 0xc0) {
        n = c & 0x1f;
        h = 1;
        goto str;
    }
    if (c >= 0xe0) {
        SET_EV(SDX_INT);
        ev->v.i = (int8_t)c;
        r->hot.p = p + 1;
        goto scalar;
    }
    if (c < 0x90) {
        n = c & 0x0f;
        h = 1;
        goto map;
    }
    if (c < 0xa0) {
        n = c & 0x0f;
        h = 1;
        goto array;
    }
    switch (c) {
    SDX_MP_FIXED_SCALARS(p, FULL_SCALAR)
    SDX_MP_SIZED_ITEMS(p, n, h, str, bin, ext, array, map)
    default: /* 0xc1 */
        fail_at(r, SDX_ERR_SYNTAX, "reserved type byte 0xc1", p);
        goto undo;
    }

str:
    if (SDX_UNLIKELY(n > avail - h)) {
        if (!need(r, h + n, "str longer than the input")) goto undo;
        p = r->hot.p;
    }
    if (SDX_UNLIKELY(!(r->flags & SDX_MSGPACK_READ_NO_UTF8_CHECK)) &&
        SDX_UNLIKELY(!sdx_utf8_ok(r->utf8_valid, (const char *)p + h, n))) {
        fail_at(r, SDX_ERR_UTF8, "str is not valid UTF-8", p);
        goto undo;
    }
    SET_EV(key ? SDX_KEY : SDX_STR);
    ev->v.str.ptr = (const char *)p + h;
    ev->v.str.len = n;
    r->hot.p = p + h + n;
    goto scalar;

bin:
    if (SDX_UNLIKELY(n > avail - h)) {
        if (!need(r, h + n, "bin longer than the input")) goto undo;
        p = r->hot.p;
    }
    SET_EV(SDX_BIN);
    ev->v.str.ptr = (const char *)p + h;
    ev->v.str.len = n;
    r->hot.p = p + h + n;
    goto scalar;

ext:
    if (SDX_UNLIKELY(n > avail - h)) {
        if (!need(r, h + n, "ext longer than the input")) goto undo;
        p = r->hot.p;
    }
    {
        int8_t type = (int8_t)p[h - 1];
        int64_t sec;
        uint32_t nsec;
        if (type == SDX_MSGPACK_EXT_TIMESTAMP && !sdx_msgpack_ts_decode(p + h, n, &sec, &nsec)) {
            fail_at(r, SDX_ERR_SYNTAX, "invalid timestamp", p);
            goto undo;
        }
        SET_EV(SDX_BIN);
        ev->tag_kind = SDX_TAG_MSGPACK_EXT;
        ev->tag = (uint64_t)(int64_t)type;
        ev->v.str.ptr = (const char *)p + h;
        ev->v.str.len = n;
        r->hot.p = p + h + n;
        goto scalar;
    }

array:
    if (SDX_UNLIKELY(!r->read && n > avail - h)) {
        fail_at(r, SDX_ERR_TRUNCATED, "array count exceeds the input", p);
        goto undo;
    }
    SET_EV(SDX_ARRAY);
    ev->v.count = n;
    goto container;

map:
    if (SDX_UNLIKELY(!r->read && n > (avail - h) / 2)) {
        fail_at(r, SDX_ERR_TRUNCATED, "map count exceeds the input", p);
        goto undo;
    }
    SET_EV(SDX_MAP);
    ev->v.count = n;
    n = 2 * n | MAP_BIT;

container:
    if (SDX_UNLIKELY(d >= r->max_depth)) {
        fail_at(r, SDX_ERR_DEPTH, "nesting deeper than the limit", p);
        goto undo;
    }
    if (SDX_UNLIKELY(d + 1 >= r->cap) && !grow_stack(r)) goto undo;
    r->hot.stack[d + 1] = n;
    r->hot.depth = d + 1;
    r->hot.p = p + h;
    r->hot.begin_p = r->hot.p;
    r->hot.begin_depth = d + 1;
    return true;

scalar:
    return true;

undo:
    /* An error: the item was not consumed. Keep the count as it was, so
     * that the state stays consistent. */
    r->hot.stack[d]++;
    return false;
}

static SDX_NOINLINE bool next_full(sdx_msgpack_reader *r, sdx_event *ev) {
    r->hot.stack[r->hot.depth] = r->hot.left;
    bool ok = next_full_stack(r, ev);
    r->hot.left = r->hot.stack[r->hot.depth];
    return ok;
}

/* The event's kind, depth and no flags or tag, in one 8-byte store where
 * the layout allows (kind at byte 0, tag_kind, flags, padding, depth at
 * bytes 4-7 on a little-endian machine), then the tag. */
static SDX_ALWAYS_INLINE void set_head(sdx_event *ev, uint8_t kind, uint32_t d) {
#if !defined(SDX_BIG_ENDIAN)
    _Static_assert(offsetof(sdx_event, depth) == 4 && offsetof(sdx_event, tag) == 8, "event layout");
    uint64_t head = (uint64_t)kind | (uint64_t)d << 32;
    memcpy(ev, &head, 8);
#else
    ev->kind = kind;
    ev->tag_kind = SDX_TAG_NONE;
    ev->flags = 0;
    ev->depth = d;
#endif
    ev->tag = 0;
}

/* The fast path's str when it is longer than 16 bytes or not plain ASCII:
 * a call of its own, so that the fast path stays without a stack frame
 * (this is a tail call). Invalid UTF-8 goes back to next_full, which
 * reports it. */
static SDX_NOINLINE bool checked_str(sdx_msgpack_reader *r, sdx_event *ev, const uint8_t *p,
                                     size_t h, size_t n) {
    if (r->hot.ascii_mask && !sdx_utf8_ok(r->utf8_valid, (const char *)p + h, n))
        return next_full(r, ev);
    uint64_t left = r->hot.left;
    set_head(ev, (left >> 63) && !(left & 1) ? SDX_KEY : SDX_STR, r->hot.depth);
    ev->v.str.ptr = (const char *)p + h;
    ev->v.str.len = n;
    r->hot.left = left - 1;
    r->hot.p = p + h + n;
    return true;
}

/* One fixed-size scalar (SDX_MP_FIXED_SCALARS) into the event. */
#define FAST_SCALAR(K, FL, BITS, SIZE)        \
    {                                         \
        uint64_t bits_ = (BITS);              \
        set_head(ev, (K), d);                 \
        if (FL) ev->flags = (FL);             \
        ev->v.u = bits_;                      \
        if ((K) == SDX_BOOL) ev->v.b = bits_; \
        p += (SIZE);                          \
        break;                                \
    }

#define CASE4(x) case (x): case (x) + 1: case (x) + 2: case (x) + 3
#define CASE16(x) CASE4(x): CASE4((x) + 4): CASE4((x) + 8): CASE4((x) + 12)

/* The exported function's fast path: an item in a container or at the
 * root, with 18 bytes of input at hand, of the fixed-size scalars (float
 * 32 too), arrays and maps within the stack, str (checked_str for
 * those longer than 16 bytes or not plain ASCII) and bin, dispatched on
 * the type byte in one jump. It makes no calls other than tail calls (to
 * checked_str, and to next_full for everything else), and counts items in
 * r->hot.left without indexing the stack. */
bool (sdx_msgpack_reader_next)(sdx_msgpack_reader *r, sdx_event *ev) {
    uint64_t left = r->hot.left;
    uint32_t d = r->hot.depth;
    const uint8_t *p = r->hot.p;
    if ((left & ~MAP_BIT) == 0) {
        if (SDX_UNLIKELY(d == 0)) return next_full(r, ev); /* after the root */
        set_head(ev, SDX_END, d - 1);
        r->hot.left = r->hot.stack[d - 1];
        r->hot.depth = d - 1;
        return true;
    }
    if (SDX_UNLIKELY((size_t)(r->hot.end - p) < 18)) return next_full(r, ev);
    uint8_t c = *p;
    size_t n, h;
    switch (c) {
    CASE16(0x00): CASE16(0x10): CASE16(0x20): CASE16(0x30):
    CASE16(0x40): CASE16(0x50): CASE16(0x60): CASE16(0x70):
        set_head(ev, SDX_INT, d);
        ev->v.i = c;
        p++;
        break;
    CASE16(0xe0): CASE16(0xf0):
        set_head(ev, SDX_INT, d);
        ev->v.i = (int8_t)c;
        p++;
        break;
    CASE16(0xa0): CASE16(0xb0):
        n = c & 0x1f;
        h = 1;
        goto str;
    CASE16(0x80):
        n = c & 0x0f;
        h = 1;
        goto map;
    CASE16(0x90):
        n = c & 0x0f;
        h = 1;
        goto array;
    SDX_MP_SIZED_ITEMS(p, n, h, str, bin, ext, array, map)
    SDX_MP_FIXED_SCALARS(p, FAST_SCALAR)
    default: return next_full(r, ev);
    }
    /* a scalar */
    r->hot.left = left - 1;
    r->hot.p = p;
    return true;

str:
    if (SDX_UNLIKELY(n > (size_t)(r->hot.end - p) - h)) return next_full(r, ev);
    {
        /* up to 16 bytes of ASCII decided here; the rest by checked_str */
        uint64_t a = 0, b = 0;
        if (SDX_UNLIKELY(n > 16)) return checked_str(r, ev, p, h, n);
        if (n >= 8) {
            memcpy(&a, p + h, 8);
            memcpy(&b, p + h + n - 8, 8);
        } else if (n) {
            memcpy(&a, p + h, 8); /* within the 18 bytes at hand */
#ifdef SDX_BIG_ENDIAN
            a &= ~(uint64_t)0 << (64 - 8 * n);
#else
            a &= ~(uint64_t)0 >> (64 - 8 * n);
#endif
        }
        if (SDX_UNLIKELY((a | b) & r->hot.ascii_mask)) return checked_str(r, ev, p, h, n);
    }
    set_head(ev, (left >> 63) && !(left & 1) ? SDX_KEY : SDX_STR, d);
    ev->v.str.ptr = (const char *)p + h;
    ev->v.str.len = n;
    r->hot.left = left - 1;
    r->hot.p = p + h + n;
    return true;

bin:
    if (SDX_UNLIKELY(n > (size_t)(r->hot.end - p) - h)) return next_full(r, ev);
    set_head(ev, SDX_BIN, d);
    ev->v.str.ptr = (const char *)p + h;
    ev->v.str.len = n;
    r->hot.left = left - 1;
    r->hot.p = p + h + n;
    return true;

ext:
    return next_full(r, ev);

/* Nesting at the stack's end or the limit, or a count the input cannot
 * hold (next_full fails for memory and reads on for a stream), is
 * next_full's. */
map:
    if (SDX_UNLIKELY(d >= r->hot.depth_limit || n > ((size_t)(r->hot.end - p) - h) / 2))
        return next_full(r, ev);
    set_head(ev, SDX_MAP, d);
    ev->v.count = n;
    n = 2 * (uint64_t)n | MAP_BIT;
    goto begin;

array:
    if (SDX_UNLIKELY(d >= r->hot.depth_limit || n > (size_t)(r->hot.end - p) - h)) return next_full(r, ev);
    set_head(ev, SDX_ARRAY, d);
    ev->v.count = n;

begin:
    r->hot.stack[d] = left - 1;
    r->hot.left = n;
    r->hot.depth = d + 1;
    r->hot.p = r->hot.begin_p = p + h;
    r->hot.begin_depth = d + 1;
    return true;
}

sdx_err sdx_msgpack_reader_error(const sdx_msgpack_reader *r, sdx_error *err) {
    if (r->state != STATE_ERROR) {
        sdx_error_fill(err, SDX_OK, 0, NULL);
        return SDX_OK;
    }
    sdx_error_fill(err, r->err, r->err_offset, r->msg);
    return r->err;
}

uint64_t sdx_msgpack_reader_offset(const sdx_msgpack_reader *r) { return offset_of(r, r->hot.p); }

bool sdx_msgpack_reader_skip(sdx_msgpack_reader *r) {
    if (r->state == STATE_ERROR) return false;
    /* Was the last event a begin? Then the input has not moved since and
     * the depth is the one it opened (any later event moves the input or
     * closes that container). */
    if (!r->hot.begin_p || r->hot.p != r->hot.begin_p || r->hot.depth != r->hot.begin_depth) return true;
    uint32_t target = r->hot.depth - 1;
    sdx_event ev;
    while (sdx_msgpack_reader_next(r, &ev))
        if (ev.kind == SDX_END && ev.depth == target) return true;
    return false;
}

static bool source_next(void *ctx, sdx_event *ev) {
    return sdx_msgpack_reader_next((sdx_msgpack_reader *)ctx, ev);
}

static sdx_err source_error(const void *ctx, sdx_error *err) {
    return sdx_msgpack_reader_error((const sdx_msgpack_reader *)ctx, err);
}

static uint64_t source_offset(const void *ctx) {
    return sdx_msgpack_reader_offset((const sdx_msgpack_reader *)ctx);
}

static const sdx_source_vt msgpack_source_vt = {source_next, source_error, source_offset};

sdx_source sdx_msgpack_reader_source(sdx_msgpack_reader *r) {
    sdx_source s = {&msgpack_source_vt, r};
    return s;
}
