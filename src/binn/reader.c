/*
 * The Binn pull reader: one event per call, texts and blobs as views into
 * the input.
 *
 * The input is a window [p, end) of bytes: the whole input for a memory
 * reader, the reader's own buffer for a stream. need() makes sure an item's
 * bytes are all in the window: a memory reader has them or not, a stream
 * reader moves the partial item to the front of its buffer and reads more
 * chunks after it, growing the buffer only by what actually arrives.
 *
 * Every open container is a stack entry with its end (input offset, from
 * its size parameter) and the items (a map's keys and values) still due.
 * Before anything of an item is read its extent is checked against the
 * end of the innermost container, so a lying size or count is an error at
 * the item that overruns, never a read beyond the container or the input
 * (the class of binn issue #8). A container whose items end before its
 * size says is an error as well. The stack grows on the heap up to
 * max_depth; nothing recurses.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "binn/binn_internal.h"
#include "core/alloc.h"
#include "core/doc_internal.h"
#include "core/error.h"
#include "core/floatbits.h"
#include "core/platform.h"
#include "core/stream.h"
#include "core/utf8.h"
#include "simd/simd.h"

#define INLINE_STACK 32

enum { KIND_LIST, KIND_MAP, KIND_OBJECT };
enum { STATE_READING, STATE_DONE, STATE_ERROR };

typedef struct frame {
    uint64_t end;  /* input offset just after the container */
    uint64_t left; /* items still due (a map's keys and values) */
    uint8_t kind;
} frame;

struct sdx_binn_reader {
    const uint8_t *win; /* the window's first byte: input offset `base` */
    const uint8_t *p;   /* next byte */
    const uint8_t *end; /* end of the window */
    uint64_t base;
    sdx_read_fn read;   /* NULL for memory */
    void *read_ctx;
    size_t chunk;
    uint8_t *buf; /* stream buffer (buf_cap bytes) */
    size_t buf_cap;
    bool eof;
    frame *stack; /* stack[d] is the container at depth d + 1 */
    uint32_t depth;
    uint32_t cap;
    uint32_t max_depth;
    uint32_t flags;
    bool one_value;  /* the parser: stop after the first value */
    bool last_begin; /* the last event began a container */
    uint8_t state;
    uint64_t values; /* top-level values begun */
    size_t (*utf8_valid)(const char *s, size_t n);
    sdx_alloc alloc;
    sdx_err err;
    uint64_t err_offset;
    const char *err_msg;
    frame inline_stack[INLINE_STACK];
};

static uint64_t pos(const sdx_binn_reader *r) { return r->base + (uint64_t)(r->p - r->win); }

static bool fail(sdx_binn_reader *r, sdx_err code, uint64_t offset, const char *msg) {
    if (r->state != STATE_ERROR) {
        r->state = STATE_ERROR;
        r->err = code;
        r->err_offset = offset;
        r->err_msg = msg;
    }
    return false;
}

/* The reader at r zeroed (its inline stack is left as it is), with the
 * options applied and no input yet. */
static void reader_init(sdx_binn_reader *r, const sdx_binn_read_opts *opts, const sdx_alloc *a) {
    /* the stack's entries are written before they are read (a reset
     * reader's hold the last input's levels; a new one's are zeroed) */
    sdx_zero_small(r, offsetof(sdx_binn_reader, inline_stack));
    r->alloc = *a;
    r->flags = opts ? opts->flags : 0;
    r->max_depth = opts && opts->max_depth ? opts->max_depth : SDX_BINN_DEFAULT_MAX_DEPTH;
    r->stack = r->inline_stack;
    r->cap = INLINE_STACK;
    r->utf8_valid = sdx_simd_active()->utf8_valid_prefix;
    r->state = STATE_READING;
}

static sdx_binn_reader *reader_alloc(const sdx_binn_read_opts *opts) {
    const sdx_alloc *a;
    sdx_binn_reader *r = sdx_reader_malloc(opts ? opts->alloc : NULL, sizeof *r, &a);
    if (!r) return NULL;
    memset(r->inline_stack, 0, sizeof r->inline_stack);
    reader_init(r, opts, a);
    return r;
}

/* The input of a reader over memory. */
static void memory_input(sdx_binn_reader *r, const char *data, size_t len) {
    r->win = r->p = (const uint8_t *)data;
    r->end = r->p + (data ? len : 0);
}

sdx_binn_reader *sdx_binn_reader_new(const char *data, size_t len,
                                     const sdx_binn_read_opts *opts) {
    sdx_binn_reader *r = reader_alloc(opts);
    if (!r) return NULL;
    memory_input(r, data, len);
    return r;
}

/* Everything r allocated but r itself (no call for what it did not
 * allocate: a reset reader over short messages usually has nothing). */
static void free_parts(sdx_binn_reader *r) {
    if (r->stack != r->inline_stack) r->alloc.free(r->alloc.ctx, r->stack);
    if (r->buf) r->alloc.free(r->alloc.ctx, r->buf);
}

sdx_err sdx_binn_reader_reset(sdx_binn_reader *r, const char *data, size_t len) {
    if (!r) return SDX_ERR_INVALID_ARG;
    if (r->read) return SDX_ERR_USAGE; /* a stream's reader */
    const sdx_binn_read_opts o = {.flags = r->flags, .max_depth = r->max_depth};
    const sdx_alloc a = r->alloc;
    free_parts(r);
    reader_init(r, &o, &a);
    memory_input(r, data, len);
    return SDX_OK;
}

sdx_binn_reader *sdx_binn_reader_new_stream(sdx_read_fn read, void *ctx, size_t chunk,
                                            const sdx_binn_read_opts *opts) {
    sdx_binn_reader *r = reader_alloc(opts);
    if (!r) return NULL;
    r->read = read;
    r->read_ctx = ctx;
    r->chunk = chunk ? chunk : SDX_STREAM_DEFAULT_CHUNK;
    static const uint8_t empty[1];
    r->win = r->p = r->end = empty; /* an empty window until the first read */
    return r;
}

#ifndef SDX_NO_STDIO
sdx_binn_reader *sdx_binn_reader_new_file(FILE *f, const sdx_binn_read_opts *opts) {
    return sdx_binn_reader_new_stream(sdx_file_read, f, 0, opts);
}
#endif

void sdx_binn_reader_free(sdx_binn_reader *r) {
    if (!r) return;
    free_parts(r);
    r->alloc.free(r->alloc.ctx, r);
}

void sdx_binn_reader_one_value(sdx_binn_reader *r) { r->one_value = true; }

/* Make the n bytes from p available in the window. False when the input
 * ends first, or on a read or allocation error (then the error is set). */
static bool need(sdx_binn_reader *r, size_t n) {
    if ((size_t)(r->end - r->p) >= n) return true;
    if (!r->read) return false;
    while ((size_t)(r->end - r->p) < n) {
        if (r->eof) return false;
        size_t used = (size_t)(r->end - r->p);
        r->base += (uint64_t)(r->p - r->win);
        if (r->buf) {
            if (r->p != r->buf && used) memmove(r->buf, r->p, used);
            r->win = r->p = r->buf;
            r->end = r->buf + used;
        }
        /* the first buffer, or a doubled one when full of bytes that
         * arrived: never what a size parameter claims */
        const char *why;
        size_t room = sdx_stream_room(&r->alloc, &r->buf, &r->buf_cap, used, r->chunk, &why);
        if (!room) return fail(r, SDX_ERR_NOMEM, pos(r), why);
        r->win = r->p = r->buf;
        r->end = r->buf + used;
        size_t got = r->read(r->read_ctx, r->buf + used, room);
        if (got == (size_t)-1 || got > room) return fail(r, SDX_ERR_IO, pos(r), "read error");
        if (got == 0) {
            r->eof = true;
            return false;
        }
        r->end += got;
    }
    return true;
}

/* The item at offset `at` needs `n` bytes and its container has `room`:
 * true when they are all in the window; else the error (`over` when the
 * container is too small, SDX_ERR_TRUNCATED when the input ends). */
static SDX_NOINLINE bool item_bytes_slow(sdx_binn_reader *r, uint64_t at, uint64_t room, uint64_t n,
                                         sdx_err over, const char *over_msg) {
    if (n > room) return fail(r, over, at, over_msg);
    if (n > SIZE_MAX || !need(r, (size_t)n)) {
        if (r->state == STATE_ERROR) return false;
        return fail(r, SDX_ERR_TRUNCATED, at, "the input ends inside a value");
    }
    return true;
}

/* The common case inline: the bytes are in the container and the window. */
static SDX_ALWAYS_INLINE bool item_bytes(sdx_binn_reader *r, uint64_t at, uint64_t room, uint64_t n,
                                         sdx_err over, const char *over_msg) {
    if (SDX_LIKELY(n <= room && n <= (uint64_t)(r->end - r->p))) return true;
    return item_bytes_slow(r, at, room, n, over, over_msg);
}

static SDX_ALWAYS_INLINE bool utf8_ok(const sdx_binn_reader *r, const uint8_t *s, size_t n) {
    return (r->flags & SDX_BINN_READ_NO_UTF8_CHECK) || n == 0 ||
           sdx_utf8_ok(r->utf8_valid, (const char *)s, n);
}

static void head(sdx_event *ev, uint8_t kind, uint32_t depth) {
    memset(ev, 0, sizeof *ev);
    ev->kind = kind;
    ev->depth = depth;
}

/* The size or count parameter at q (its 1 or 4 bytes in the window): its
 * value, and its width in *w. */
static uint32_t size_param(const uint8_t *q, size_t *w) {
    if (q[0] & 0x80) {
        *w = 4;
        return sdx_load_be32(q) & SDX_BINN_SIZE_MAX;
    }
    *w = 1;
    return q[0];
}

/* One value at the current position, its container ending `room` bytes on
 * (`root`: none; bytes missing there are truncation). */
static SDX_ALWAYS_INLINE bool read_value(sdx_binn_reader *r, sdx_event *ev, uint64_t room, bool root) {
    const uint64_t at = pos(r);
    const sdx_err over = root ? SDX_ERR_TRUNCATED : SDX_ERR_SYNTAX;
    const char *over_msg = root ? "the input ends inside a value" : "a value overruns its container";
    const uint32_t d = r->depth;
    if (!item_bytes(r, at, room, 1, over, over_msg)) return false;
    unsigned b0 = r->p[0];
    size_t tlen = 1;
    uint32_t type = b0;
    if (b0 & SDX_BINN_TYPE_WIDE) {
        if (!item_bytes(r, at, room, 2, over, over_msg)) return false;
        tlen = 2;
        type = b0 << 8 | r->p[1];
    }
    unsigned storage = b0 & 0xe0;
    bool tagged = tlen == 2;
    switch (storage) {
    case SDX_BINN_ST_NOBYTES:
        if (!tagged && type <= SDX_BINN_FALSE) {
            head(ev, type == SDX_BINN_NULL ? SDX_NULL : SDX_BOOL, d);
            ev->v.b = type == SDX_BINN_TRUE;
        } else {
            head(ev, SDX_NULL, d);
            ev->tag_kind = SDX_TAG_BINN;
            ev->tag = type;
        }
        r->p += tlen;
        return true;
    case SDX_BINN_ST_BYTE:
    case SDX_BINN_ST_WORD:
    case SDX_BINN_ST_DWORD:
    case SDX_BINN_ST_QWORD: {
        size_t n = sdx_binn_fixed_size(storage);
        if (!item_bytes(r, at, room, tlen + n, over, over_msg)) return false;
        const uint8_t *q = r->p + tlen;
        r->p += tlen + n;
        switch (tagged ? 0x100 : type) {
        case SDX_BINN_UINT8: head(ev, SDX_INT, d); ev->v.i = q[0]; return true;
        case SDX_BINN_INT8: head(ev, SDX_INT, d); ev->v.i = (int8_t)q[0]; return true;
        case SDX_BINN_UINT16: head(ev, SDX_INT, d); ev->v.i = sdx_load_be16(q); return true;
        case SDX_BINN_INT16: head(ev, SDX_INT, d); ev->v.i = (int16_t)sdx_load_be16(q); return true;
        case SDX_BINN_UINT32: head(ev, SDX_INT, d); ev->v.i = sdx_load_be32(q); return true;
        case SDX_BINN_INT32: head(ev, SDX_INT, d); ev->v.i = (int32_t)sdx_load_be32(q); return true;
        case SDX_BINN_UINT64:
            head(ev, sdx_load_be64(q) > INT64_MAX ? SDX_UINT : SDX_INT, d);
            ev->v.u = sdx_load_be64(q);
            return true;
        case SDX_BINN_INT64: head(ev, SDX_INT, d); ev->v.u = sdx_load_be64(q); return true;
        case SDX_BINN_FLOAT32:
            head(ev, SDX_DOUBLE, d);
            ev->flags = SDX_EVENT_FLOAT32;
            ev->v.d = sdx_float_bits_to_double(sdx_load_be32(q));
            return true;
        case SDX_BINN_FLOAT64: {
            uint64_t bits = sdx_load_be64(q);
            head(ev, SDX_DOUBLE, d);
            memcpy(&ev->v.d, &bits, 8);
            return true;
        }
        default: /* a user type: its data bytes as they are */
            head(ev, SDX_BIN, d);
            ev->tag_kind = SDX_TAG_BINN;
            ev->tag = type;
            ev->v.str.ptr = (const char *)q;
            ev->v.str.len = n;
            return true;
        }
    }
    case SDX_BINN_ST_STRING:
    case SDX_BINN_ST_BLOB: {
        bool text = storage == SDX_BINN_ST_STRING;
        size_t sw;
        if (!item_bytes(r, at, room, tlen + 1, over, over_msg)) return false;
        if ((r->p[tlen] & 0x80) && !item_bytes(r, at, room, tlen + 4, over, over_msg)) return false;
        uint32_t n = size_param(r->p + tlen, &sw);
        uint64_t total = tlen + sw + (uint64_t)n + (text ? 1 : 0);
        if (!item_bytes(r, at, room, total, over,
                        root ? over_msg : "a size larger than its container"))
            return false;
        const uint8_t *q = r->p + tlen + sw;
        if (text && q[n] != 0) return fail(r, SDX_ERR_SYNTAX, at, "a string without its NUL terminator");
        if (text && !utf8_ok(r, q, n)) return fail(r, SDX_ERR_UTF8, at, "invalid UTF-8 in a string");
        head(ev, text ? SDX_STR : SDX_BIN, d);
        if (type != (text ? SDX_BINN_TEXT : SDX_BINN_BLOB) || tagged) {
            ev->tag_kind = SDX_TAG_BINN;
            ev->tag = type;
        }
        ev->v.str.ptr = (const char *)q;
        ev->v.str.len = n;
        r->p += total;
        return true;
    }
    default: break; /* containers */
    }
    if (tagged || type > SDX_BINN_OBJECT)
        return fail(r, SDX_ERR_SYNTAX, at, "an unknown container type");
    /* [type][size][count]: the widths come from the first byte of each. */
    size_t sw, cw;
    if (!item_bytes(r, at, room, 2, over, over_msg)) return false;
    sw = r->p[1] & 0x80 ? 4 : 1;
    if (!item_bytes(r, at, room, 1 + sw + 1, over, over_msg)) return false;
    cw = r->p[1 + sw] & 0x80 ? 4 : 1;
    if (!item_bytes(r, at, room, 1 + sw + cw, over, over_msg)) return false;
    uint32_t size = size_param(r->p + 1, &sw);
    uint32_t count = size_param(r->p + 1 + sw, &cw);
    size_t h = 1 + sw + cw;
    if (size < h) return fail(r, SDX_ERR_SYNTAX, at, "a container size smaller than its header");
    if (size > room) return fail(r, over, at, root ? over_msg : "a container larger than its container");
    uint8_t kind = type == SDX_BINN_LIST ? KIND_LIST : type == SDX_BINN_MAP ? KIND_MAP : KIND_OBJECT;
    /* Each item takes at least a byte (a list's value), 5 (a map's key
     * and value) or 2 (an object's key length and value). */
    uint64_t min_item = kind == KIND_LIST ? 1 : kind == KIND_MAP ? 5 : 2;
    if ((uint64_t)count * min_item > size - h)
        return fail(r, SDX_ERR_SYNTAX, at, "a count larger than its container can hold");
    if (d >= r->max_depth) return fail(r, SDX_ERR_DEPTH, at, "nesting deeper than the limit");
    if (d >= r->cap) {
        sdx_err e = SDX_OK;
        frame *s = sdx_grow_frames(&r->alloc, r->stack, r->inline_stack, &r->cap, sizeof *s, &e);
        if (!s) return fail(r, e, at, e == SDX_ERR_NOMEM ? "out of memory" : "nesting too deep");
        r->stack = s;
    }
    frame *f = &r->stack[d];
    f->end = at + size;
    f->left = kind == KIND_LIST ? count : 2 * (uint64_t)count;
    f->kind = kind;
    r->depth = d + 1;
    r->p += h;
    head(ev, kind == KIND_LIST ? SDX_ARRAY : SDX_MAP, d);
    ev->v.count = count;
    r->last_begin = true;
    return true;
}

/* A map's int32 key or an object's string key. */
static SDX_ALWAYS_INLINE bool read_key(sdx_binn_reader *r, sdx_event *ev, frame *f) {
    const uint64_t at = pos(r), room = f->end - at;
    if (f->kind == KIND_MAP) {
        if (!item_bytes(r, at, room, 4, SDX_ERR_SYNTAX, "a map key overruns its container"))
            return false;
        head(ev, SDX_INT, r->depth);
        ev->v.i = (int32_t)sdx_load_be32(r->p);
        r->p += 4;
        return true;
    }
    if (!item_bytes(r, at, room, 1, SDX_ERR_SYNTAX, "an object key overruns its container"))
        return false;
    size_t n = r->p[0];
    if (!item_bytes(r, at, room, 1 + n, SDX_ERR_SYNTAX, "an object key overruns its container"))
        return false;
    if (!utf8_ok(r, r->p + 1, n)) return fail(r, SDX_ERR_UTF8, at, "invalid UTF-8 in a key");
    head(ev, SDX_KEY, r->depth);
    ev->v.str.ptr = (const char *)r->p + 1;
    ev->v.str.len = n;
    r->p += 1 + n;
    return true;
}

static SDX_ALWAYS_INLINE bool reader_next(sdx_binn_reader *r, sdx_event *ev) {
    if (r->state != STATE_READING) return false;
    r->last_begin = false;
    if (r->depth > 0) {
        frame *f = &r->stack[r->depth - 1];
        if (f->left == 0) {
            if (pos(r) != f->end) {
                /* Its size claims more bytes: missing ones are truncation
                 * (checked a byte ahead, so that memory and streams agree),
                 * present ones a size that lies. */
                if (!need(r, 1)) {
                    if (r->state == STATE_ERROR) return false;
                    return fail(r, SDX_ERR_TRUNCATED, pos(r), "the input ends inside a container");
                }
                return fail(r, SDX_ERR_SYNTAX, pos(r), "a container's items end before its size");
            }
            r->depth--;
            head(ev, SDX_END, r->depth);
            return true;
        }
        f->left--;
        if (f->kind != KIND_LIST && (f->left & 1)) return read_key(r, ev, f);
        return read_value(r, ev, f->end - pos(r), false);
    }
    /* The top level: after a value, the end (or the next one of a
     * sequence). */
    bool more = need(r, 1);
    if (r->state != STATE_READING) return false;
    if (r->values > 0) {
        if (r->one_value || !more) {
            r->state = STATE_DONE;
            return false;
        }
        if (!(r->flags & SDX_BINN_READ_STOP_AFTER_VALUE))
            return fail(r, SDX_ERR_SYNTAX, pos(r), "bytes after the value");
    } else if (!more) {
        return fail(r, SDX_ERR_TRUNCATED, pos(r), "empty input");
    }
    r->values++;
    /* No room limit at the top level, for memory as for streams: a size
     * beyond the input is found where the input ends, at the same item
     * for both. */
    return read_value(r, ev, UINT64_MAX, true);
}

bool sdx_binn_reader_next(sdx_binn_reader *r, sdx_event *ev) { return reader_next(r, ev); }

/* The tree parser's loop (binn_internal.h): the reader inline, so that its
 * event need not go through memory. */
sdx_err sdx_binn_reader_build_(sdx_binn_reader *r, sdx_doc_builder *b) {
    sdx_err rc = SDX_OK;
    sdx_event ev;
    while (!rc && reader_next(r, &ev)) rc = sdx_doc_builder_put_inline(b, &ev);
    return rc;
}

sdx_err sdx_binn_reader_error(const sdx_binn_reader *r, sdx_error *err) {
    if (r->state != STATE_ERROR) {
        sdx_error_fill(err, SDX_OK, pos(r), NULL);
        return SDX_OK;
    }
    sdx_error_fill(err, r->err, r->err_offset, r->err_msg);
    return r->err;
}

uint64_t sdx_binn_reader_offset(const sdx_binn_reader *r) { return pos(r); }

bool sdx_binn_reader_skip(sdx_binn_reader *r) {
    if (r->state == STATE_ERROR) return false;
    if (!r->last_begin) return true;
    uint32_t target = r->depth - 1;
    sdx_event ev;
    while (sdx_binn_reader_next(r, &ev))
        if (ev.kind == SDX_END && ev.depth == target) return true;
    if (r->state != STATE_ERROR) fail(r, SDX_ERR_TRUNCATED, pos(r), "the input ends inside a value");
    return false;
}

static bool src_next(void *ctx, sdx_event *ev) { return sdx_binn_reader_next(ctx, ev); }
static sdx_err src_error(const void *ctx, sdx_error *err) { return sdx_binn_reader_error(ctx, err); }
static uint64_t src_offset(const void *ctx) { return sdx_binn_reader_offset(ctx); }

static const sdx_source_vt binn_source_vt = {src_next, src_error, src_offset};

sdx_source sdx_binn_reader_source(sdx_binn_reader *r) {
    sdx_source s = {&binn_source_vt, r};
    return s;
}
