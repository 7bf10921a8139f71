/*
 * The streaming Binn writer.
 *
 * Every container begins with its total size (spec.md, "[Size]": the size
 * includes the container's own header), which is known only at its end.
 * So a container is written with a placeholder header; its end encodes the
 * real header — one byte each for a size and a count up to 127, four bytes
 * otherwise — and puts it in place, moving the content by the difference.
 * The placeholder has a 4-byte size: a container that ends up larger than
 * 127 bytes then stays where it is, and only small ones move (a few bytes
 * down). Moving the large ones up instead would move every byte once per
 * enclosing large container. A fixed buffer gets the 3-byte smallest
 * header (binn.h: a fixed buffer of the final size suffices). The buffer
 * keeps the bytes from the outermost open container on (sdx_buf_pin for a
 * stream); a stream that can patch what it flushed (sdx_buf_set_patch)
 * only those of the containers whose header may still change its width
 * (release_held).
 *
 * A map event becomes a Binn map (int32 keys) or an object (string keys)
 * as its first key decides; the placeholder's type byte is rewritten at
 * the end along with the rest of the header.
 */
#include <math.h>
#include <string.h>

#include "binn/binn_internal.h"
#include "core/alloc.h"
#include "core/backpatch.h"
#include "core/error.h"
#include "core/floatbits.h"
#include "core/platform.h"
#include "core/utf8.h"
#include "core/utf8_copy.h"
#include "simd/simd.h"

/* Frame kinds (sdx_binn_frame.kind). MAP_ANY is a map whose first key has
 * not come yet. */
enum { FRAME_ROOT, FRAME_LIST, FRAME_MAP_ANY, FRAME_MAP_INT, FRAME_OBJECT };

/* Strings up to this length are written with one buffer reservation. */
#define SMALL_STRING 4096


typedef unsigned char u8;

static SDX_NOINLINE sdx_err fail(sdx_binn_writer *w, sdx_err err) {
    if (!w->err) w->err = err;
    return w->err;
}

static sdx_err fail_buf(sdx_binn_writer *w) {
    return fail(w, w->out->err ? w->out->err : SDX_ERR_NOMEM);
}

sdx_err sdx_binn_writer_init(sdx_binn_writer *w, sdx_buf *out, const sdx_binn_write_opts *opts) {
    static const sdx_binn_write_opts defaults = {0, NULL};
    if (!opts) opts = &defaults;
    const uint32_t known = SDX_BINN_WRITE_FLOAT32 | SDX_BINN_WRITE_FLOAT32_EXACT |
                           SDX_BINN_WRITE_NO_UTF8_CHECK | SDX_BINN_WRITE_SEQUENCE;
    w->out = out;
    w->err = SDX_OK;
    w->flags = opts->flags;
    w->alloc = *(opts->alloc ? opts->alloc : sdx_alloc_default());
    w->frames = w->inline_frames;
    w->cap = SDX_BINN_WRITER_INLINE_DEPTH;
    w->depth = 0;
    w->frames[0].items = 0;
    w->frames[0].limit = w->flags & SDX_BINN_WRITE_SEQUENCE ? UINT64_MAX : 1;
    w->frames[0].header = 0;
    w->frames[0].kind = FRAME_ROOT;
    w->frames[0].pinned = 0;
    w->frames[0].released = 0;
    w->held = 0;
    w->utf8_valid = sdx_simd_active()->utf8_valid_prefix;
    if (opts->flags & ~known) return fail(w, SDX_ERR_INVALID_ARG);
    return SDX_OK;
}

static bool is_map(const sdx_binn_frame *f) {
    return f->kind == FRAME_MAP_ANY || f->kind == FRAME_MAP_INT || f->kind == FRAME_OBJECT;
}

/* May a value (not a key) come now? Counts it; 0 with the sticky error set
 * otherwise: SDX_ERR_USAGE beyond the count, SDX_ERR_KEY where a map key
 * is due (a Binn key is an int32 or a short string, never another value). */
static SDX_ALWAYS_INLINE int value_begin(sdx_binn_writer *w) {
    if (w->err) return 0;
    sdx_binn_frame *f = &w->frames[w->depth];
    if (f->items >= f->limit) return fail(w, SDX_ERR_USAGE), 0;
    if (is_map(f) && !(f->items & 1)) return fail(w, SDX_ERR_KEY), 0;
    f->items++;
    return 1;
}

/* May a key come now (`string`: an object key, else an int32 key)? Counts
 * it and fixes the map's kind by its first key. */
static int key_begin(sdx_binn_writer *w, bool string) {
    if (w->err) return 0;
    sdx_binn_frame *f = &w->frames[w->depth];
    if (!is_map(f) || (f->items & 1) || f->items >= f->limit) return fail(w, SDX_ERR_USAGE), 0;
    if (f->kind == (string ? FRAME_MAP_INT : FRAME_OBJECT)) return fail(w, SDX_ERR_KEY), 0;
    f->kind = string ? FRAME_OBJECT : FRAME_MAP_INT;
    f->items++;
    return 1;
}

/* A patchable stream (sdx_buf_set_patch): let go of the held containers,
 * from the outermost one in, whose header has its final width: a known
 * count (the count's width is then fixed from the start) and a size that
 * needs 4 bytes for good. That is a content above 124 bytes with a 1-byte
 * count, above 121 with a 4-byte one (container_head): with the
 * placeholder (6 or 9 bytes) counted, a size so far above 130 in both
 * cases. The content so far counts the placeholders of the open
 * containers inside, each of which may still shrink by 3 bytes (6 to 3,
 * or 9 to 6: a 4-byte count stays), so each adds 3 to the bound. The pin
 * moves to the first container still held. */
static SDX_NOINLINE void release_held(sdx_binn_writer *w) {
    sdx_buf *b = w->out;
    const uint64_t total = sdx_buf_total(b);
    uint32_t i = w->held;
    while (i <= w->depth) {
        sdx_binn_frame *f = &w->frames[i];
        if (f->limit == UINT64_MAX || total - f->header <= 130 + 3 * (uint64_t)(w->depth - i)) break;
        f->released = 1;
        i++;
    }
    if (i > w->depth) {
        w->held = 0;
        sdx_buf_unpin(b);
    } else {
        w->held = i;
        b->pin = w->frames[i].header; /* later than the pin it replaces */
    }
}

/* Room for n bytes at the buffer's position (sdx_buf_reserve), or NULL.
 * When the buffer must flush or grow, held containers that can go are
 * let go first, so that a long run of values needs no more memory. */
static SDX_NOINLINE char *reserve_slow(sdx_binn_writer *w, size_t n) {
    if (w->held) release_held(w);
    return sdx_buf_reserve_slow(w->out, n);
}

static SDX_ALWAYS_INLINE char *reserve(sdx_binn_writer *w, size_t n) {
    sdx_buf *b = w->out;
    if (SDX_LIKELY((size_t)(b->end - b->cur) >= n)) return b->cur;
    return reserve_slow(w, n);
}

static int put_bytes(sdx_binn_writer *w, const void *s, size_t n) {
    if (w->held) release_held(w);
    if (n && sdx_buf_write(w->out, s, n)) return fail_buf(w), 0;
    return 1;
}

/* Append n bytes through the buffer's inline reservation (no call while
 * the buffer has room). */
static SDX_ALWAYS_INLINE int put_small(sdx_binn_writer *w, const void *s, size_t n) {
    char *p = reserve(w, n);
    if (SDX_UNLIKELY(!p)) return fail_buf(w), 0;
    memcpy(p, s, n);
    w->out->cur = p + n;
    return 1;
}

static SDX_ALWAYS_INLINE sdx_err value_bytes(sdx_binn_writer *w, const u8 *bytes, size_t n) {
    if (SDX_LIKELY(value_begin(w))) put_small(w, bytes, n);
    return w->err;
}

/* Is a key due in the innermost container? (Integers there are keys.) */
static bool key_due(const sdx_binn_writer *w) {
    const sdx_binn_frame *f = &w->frames[w->depth];
    return is_map(f) && !(f->items & 1);
}

/* ------------------------------------------------------------------------ */
/* Scalars                                                                   */
/* ------------------------------------------------------------------------ */

sdx_err sdx_binn_writer_null(sdx_binn_writer *w) {
    u8 b = SDX_BINN_NULL;
    return value_bytes(w, &b, 1);
}

sdx_err sdx_binn_writer_bool(sdx_binn_writer *w, bool v) {
    u8 b = v ? SDX_BINN_TRUE : SDX_BINN_FALSE;
    return value_bytes(w, &b, 1);
}

sdx_err sdx_binn_writer_map_key(sdx_binn_writer *w, int32_t key) {
    if (!key_begin(w, false)) return w->err;
    u8 tmp[4];
    sdx_store_be32(tmp, (uint32_t)key);
    put_small(w, tmp, 4);
    return w->err;
}

/* Nonnegative values: the smallest unsigned type. */
static size_t enc_uint(u8 *p, uint64_t v) {
    if (v <= 0xff) {
        p[0] = SDX_BINN_UINT8;
        p[1] = (u8)v;
        return 2;
    }
    if (v <= 0xffff) {
        p[0] = SDX_BINN_UINT16;
        sdx_store_be16(p + 1, (uint16_t)v);
        return 3;
    }
    if (v <= 0xffffffffu) {
        p[0] = SDX_BINN_UINT32;
        sdx_store_be32(p + 1, (uint32_t)v);
        return 5;
    }
    p[0] = SDX_BINN_UINT64;
    sdx_store_be64(p + 1, v);
    return 9;
}

/* Negative values: the smallest signed type. */
static size_t enc_int(u8 *p, int64_t v) {
    if (v >= 0) return enc_uint(p, (uint64_t)v);
    if (v >= INT8_MIN) {
        p[0] = SDX_BINN_INT8;
        p[1] = (u8)v;
        return 2;
    }
    if (v >= INT16_MIN) {
        p[0] = SDX_BINN_INT16;
        sdx_store_be16(p + 1, (uint16_t)v);
        return 3;
    }
    if (v >= INT32_MIN) {
        p[0] = SDX_BINN_INT32;
        sdx_store_be32(p + 1, (uint32_t)v);
        return 5;
    }
    p[0] = SDX_BINN_INT64;
    sdx_store_be64(p + 1, (uint64_t)v);
    return 9;
}

sdx_err sdx_binn_writer_int(sdx_binn_writer *w, int64_t v) {
    if (w->err) return w->err;
    if (key_due(w)) {
        if (v < INT32_MIN || v > INT32_MAX) return fail(w, SDX_ERR_KEY);
        return sdx_binn_writer_map_key(w, (int32_t)v);
    }
    u8 tmp[9];
    return value_bytes(w, tmp, enc_int(tmp, v));
}

sdx_err sdx_binn_writer_uint(sdx_binn_writer *w, uint64_t v) {
    if (w->err) return w->err;
    if (key_due(w)) {
        if (v > INT32_MAX) return fail(w, SDX_ERR_KEY);
        return sdx_binn_writer_map_key(w, (int32_t)v);
    }
    u8 tmp[9];
    return value_bytes(w, tmp, enc_uint(tmp, v));
}

static sdx_err float_bits(sdx_binn_writer *w, uint32_t bits) {
    u8 tmp[5];
    tmp[0] = SDX_BINN_FLOAT32;
    sdx_store_be32(tmp + 1, bits);
    return value_bytes(w, tmp, 5);
}

static sdx_err double_bits(sdx_binn_writer *w, double v) {
    u8 tmp[9];
    uint64_t bits;
    memcpy(&bits, &v, 8);
    tmp[0] = SDX_BINN_FLOAT64;
    sdx_store_be64(tmp + 1, bits);
    return value_bytes(w, tmp, 9);
}

/* Round a double to the nearest float (ties to even) without the undefined
 * behaviour of converting a finite value beyond the float range. */
static uint32_t double_to_float_rounded(double d) {
    uint32_t bits;
    if (sdx_double_to_float_exact(d, &bits)) return bits;
    float x;
    if (d != d) {
        x = (float)d;
    } else if (d >= 0x1.ffffffp127 || d <= -0x1.ffffffp127) {
        x = d > 0 ? INFINITY : -INFINITY;
    } else if (d > 0x1.fffffep127 || d < -0x1.fffffep127) {
        x = d > 0 ? 0x1.fffffep127f : -0x1.fffffep127f;
    } else {
        x = (float)d;
    }
    memcpy(&bits, &x, 4);
    return bits;
}

sdx_err sdx_binn_writer_double(sdx_binn_writer *w, double v) {
    uint32_t bits;
    if (w->flags & SDX_BINN_WRITE_FLOAT32) return float_bits(w, double_to_float_rounded(v));
    if ((w->flags & SDX_BINN_WRITE_FLOAT32_EXACT) && sdx_double_to_float_exact(v, &bits))
        return float_bits(w, bits);
    return double_bits(w, v);
}

sdx_err sdx_binn_writer_float(sdx_binn_writer *w, float v) {
    uint32_t bits;
    memcpy(&bits, &v, 4);
    return float_bits(w, bits);
}

/* ------------------------------------------------------------------------ */
/* Strings, blobs, typed values                                             */
/* ------------------------------------------------------------------------ */

static bool utf8_ok(const sdx_binn_writer *w, const char *s, size_t n) {
    return (w->flags & SDX_BINN_WRITE_NO_UTF8_CHECK) || n == 0 || sdx_utf8_ok(w->utf8_valid, s, n);
}

/* The type parameter at p (one or two bytes); returns its length. */
static size_t enc_type(u8 *p, uint32_t type) {
    if (type <= 0xff) {
        p[0] = (u8)type;
        return 1;
    }
    sdx_store_be16(p, (uint16_t)type);
    return 2;
}

/* A value of the string or blob storage: type, size, bytes, and for a
 * string the NUL the size leaves out. */
static sdx_err sized(sdx_binn_writer *w, uint32_t type, const void *data, size_t n, bool nul) {
    if (w->err) return w->err;
    if (n > SDX_BINN_SIZE_MAX) return fail(w, SDX_ERR_UNSUPPORTED);
    if (n && !data) return fail(w, SDX_ERR_INVALID_ARG);
    if (nul && !utf8_ok(w, data, n)) return fail(w, SDX_ERR_UTF8);
    if (!value_begin(w)) return w->err;
    u8 head[6];
    size_t h = enc_type(head, type);
    h = (size_t)(sdx_binn_put_size(head + h, (uint32_t)n) - head);
    if (n <= SMALL_STRING) {
        /* One reservation for the header, the bytes and the NUL. */
        char *p = reserve(w, h + n + 1);
        if (!p) return fail_buf(w);
        memcpy(p, head, h);
        if (n) memcpy(p + h, data, n);
        p[h + n] = 0;
        w->out->cur = p + h + n + (nul ? 1 : 0);
        return SDX_OK;
    }
    if (put_bytes(w, head, h) && put_bytes(w, data, n) && nul) put_bytes(w, "", 1);
    return w->err;
}

sdx_err sdx_binn_writer_string(sdx_binn_writer *w, const char *s, size_t len) {
    return sized(w, SDX_BINN_TEXT, s, len, true);
}

sdx_err sdx_binn_writer_blob(sdx_binn_writer *w, const void *data, size_t len) {
    return sized(w, SDX_BINN_BLOB, data, len, false);
}

sdx_err sdx_binn_writer_typed(sdx_binn_writer *w, uint32_t type, const void *data, size_t len) {
    if (w->err) return w->err;
    if (!sdx_binn_type_valid(type)) return fail(w, SDX_ERR_INVALID_ARG);
    unsigned storage = sdx_binn_storage(type);
    switch (storage) {
    case SDX_BINN_ST_STRING: return sized(w, type, data, len, true);
    case SDX_BINN_ST_BLOB: return sized(w, type, data, len, false);
    case SDX_BINN_ST_CONTAINER: return fail(w, SDX_ERR_INVALID_ARG);
    default: break;
    }
    /* No bytes, or exactly the storage's 1, 2, 4 or 8. */
    if (len != sdx_binn_fixed_size(storage) || (len && !data)) return fail(w, SDX_ERR_INVALID_ARG);
    u8 tmp[10];
    size_t h = enc_type(tmp, type);
    if (len) memcpy(tmp + h, data, len);
    return value_bytes(w, tmp, h + len);
}

sdx_err sdx_binn_writer_key(sdx_binn_writer *w, const char *s, size_t len) {
    if (w->err) return w->err;
    if (len > 255) return fail(w, SDX_ERR_KEY);
    if (len && !s) return fail(w, SDX_ERR_INVALID_ARG);
    if (!utf8_ok(w, s, len)) return fail(w, SDX_ERR_UTF8);
    if (!key_begin(w, true)) return w->err;
    char *p = reserve(w, 1 + len);
    if (!p) return fail_buf(w);
    p[0] = (char)(u8)len;
    if (len) memcpy(p + 1, s, len);
    w->out->cur = p + 1 + len;
    return SDX_OK;
}

/* ------------------------------------------------------------------------ */
/* Containers                                                                */
/* ------------------------------------------------------------------------ */

static sdx_err begin(sdx_binn_writer *w, uint64_t count, uint8_t kind) {
    if (w->err) return w->err;
    if (count > SDX_BINN_SIZE_MAX && count != SDX_COUNT_UNKNOWN) return fail(w, SDX_ERR_UNSUPPORTED);
    if (w->depth + 1 >= w->cap) {
        sdx_err e = SDX_OK;
        sdx_binn_frame *f =
            sdx_grow_frames(&w->alloc, w->frames, w->inline_frames, &w->cap, sizeof *f, &e);
        if (!f) return fail(w, e);
        w->frames = f;
    }
    if (!value_begin(w)) return w->err;
    sdx_buf *b = w->out;
    uint64_t header = sdx_buf_total(b);
    uint8_t pinned = 0;
    if (sdx_buf_patchable(b)) {
        /* the new container is held, with those around it still held */
        if (w->held) release_held(w);
        if (!w->held) {
            sdx_buf_pin(b);
            w->held = w->depth + 1;
        }
    } else if (b->mode == SDX_BUF_STREAM && b->pin == UINT64_MAX) {
        sdx_buf_pin(b);
        pinned = 1;
    }
    sdx_binn_frame *f = &w->frames[++w->depth];
    f->items = 0;
    f->limit = count == SDX_COUNT_UNKNOWN ? UINT64_MAX : kind == FRAME_LIST ? count : 2 * count;
    f->header = header;
    f->kind = kind;
    f->pinned = pinned;
    f->released = 0;
    /* type, size, count: zeros (the end writes the real ones) */
    static const u8 zeros[9] = {0};
    size_t len = 3;
    if (b->mode != SDX_BUF_FIXED) len = count != SDX_COUNT_UNKNOWN && count > 127 ? 9 : 6;
    f->head_len = (uint8_t)len;
    put_small(w, zeros, len);
    return w->err;
}

sdx_err sdx_binn_writer_begin_array(sdx_binn_writer *w, uint64_t count) {
    return begin(w, count, FRAME_LIST);
}

sdx_err sdx_binn_writer_begin_map(sdx_binn_writer *w, uint64_t count) {
    return begin(w, count, FRAME_MAP_ANY);
}

/* The header of a container of `kind` (a list, an int map, else an
 * object) with `count` (<= SDX_BINN_SIZE_MAX) items in `content` bytes, at
 * head (9 bytes): its type, its size, which counts the header too and so
 * depends on its own width, and its count. Returns the header's length,
 * or 0 when the size is beyond SDX_BINN_SIZE_MAX. */
static size_t container_head(u8 *head, uint8_t kind, uint64_t content, uint64_t count) {
    uint64_t size = content + 1 + sdx_binn_size_len(count) + 1;
    if (size > 127) size += 3;
    if (size > SDX_BINN_SIZE_MAX) return 0;
    u8 *p = head;
    *p++ = kind == FRAME_LIST ? SDX_BINN_LIST : kind == FRAME_MAP_INT ? SDX_BINN_MAP : SDX_BINN_OBJECT;
    p = sdx_binn_put_size(p, (uint32_t)size);
    p = sdx_binn_put_size(p, (uint32_t)count);
    return (size_t)(p - head);
}

sdx_err sdx_binn_writer_end(sdx_binn_writer *w) {
    if (w->err) return w->err;
    sdx_binn_frame *f = &w->frames[w->depth];
    if (f->kind == FRAME_ROOT) return fail(w, SDX_ERR_USAGE);
    bool map = f->kind != FRAME_LIST;
    if ((f->limit != UINT64_MAX && f->items != f->limit) || (map && (f->items & 1)))
        return fail(w, SDX_ERR_USAGE);
    uint64_t count = map ? f->items / 2 : f->items;
    sdx_buf *b = w->out;
    u8 head[9];
    size_t len = count > SDX_BINN_SIZE_MAX ? 0
                 : container_head(head, f->kind, sdx_buf_total(b) - f->header - f->head_len, count);
    if (!len) return fail(w, SDX_ERR_UNSUPPORTED);
    if (f->released) {
        /* the header's width is final (release_held): patched in place,
         * wherever its bytes are now */
        if (len != f->head_len) return fail(w, SDX_ERR_USAGE); /* not reached */
        if (sdx_buf_patch(b, f->header, head, len)) return fail_buf(w);
    } else if (len >= f->head_len) {
        if (!sdx_buf_replace_head(b, f->header, f->head_len, head, len)) return fail_buf(w);
    } else {
        /* Shorter than the placeholder: the content moves down. */
        char *h = sdx_buf_at(b, f->header);
        memmove(h + len, h + f->head_len, (size_t)(b->cur - (h + f->head_len)));
        b->cur -= f->head_len - len;
        memcpy(h, head, len);
    }
    if (f->pinned) sdx_buf_unpin(b);
    if (w->held == w->depth) { /* the outermost held container */
        w->held = 0;
        sdx_buf_unpin(b);
    }
    w->depth--;
    if (w->held) release_held(w); /* the containers around it grew */
    return SDX_OK;
}

/* ------------------------------------------------------------------------ */
/* Events, sink, finish                                                      */
/* ------------------------------------------------------------------------ */

/* An event tagged SDX_TAG_BINN: its type, when the kind fits the storage. */
static sdx_err put_typed(sdx_binn_writer *w, const sdx_event *ev) {
    if (w->err) return w->err;
    if (ev->tag > 0xffff || !sdx_binn_type_valid((uint32_t)ev->tag)) return fail(w, SDX_ERR_INVALID_ARG);
    uint32_t type = (uint32_t)ev->tag;
    unsigned st = sdx_binn_storage(type);
    bool fits = ev->kind == SDX_NULL   ? st == SDX_BINN_ST_NOBYTES
                : ev->kind == SDX_STR ? st == SDX_BINN_ST_STRING
                                      : st != SDX_BINN_ST_NOBYTES && st != SDX_BINN_ST_STRING &&
                                            st != SDX_BINN_ST_CONTAINER;
    if (!fits) return fail(w, SDX_ERR_INVALID_ARG);
    if (ev->kind == SDX_NULL) return sdx_binn_writer_typed(w, type, NULL, 0);
    return sdx_binn_writer_typed(w, type, ev->v.str.ptr, ev->v.str.len);
}

sdx_err sdx_binn_writer_put(sdx_binn_writer *w, const sdx_event *ev) {
    if (ev->tag_kind == SDX_TAG_BINN &&
        (ev->kind == SDX_NULL || ev->kind == SDX_STR || ev->kind == SDX_BIN))
        return put_typed(w, ev);
    switch ((sdx_kind)ev->kind) {
    case SDX_NULL: return sdx_binn_writer_null(w);
    case SDX_BOOL: return sdx_binn_writer_bool(w, ev->v.b);
    case SDX_INT: return sdx_binn_writer_int(w, ev->v.i);
    case SDX_UINT: return sdx_binn_writer_uint(w, ev->v.u);
    case SDX_DOUBLE: {
        uint32_t bits;
        if ((ev->flags & SDX_EVENT_FLOAT32) && !w->err &&
            sdx_double_to_float_exact(ev->v.d, &bits))
            return float_bits(w, bits);
        return sdx_binn_writer_double(w, ev->v.d);
    }
    case SDX_STR: return sdx_binn_writer_string(w, ev->v.str.ptr, ev->v.str.len);
    case SDX_BIN: return sdx_binn_writer_blob(w, ev->v.str.ptr, ev->v.str.len);
    case SDX_ARRAY: return sdx_binn_writer_begin_array(w, ev->v.count);
    case SDX_MAP: return sdx_binn_writer_begin_map(w, ev->v.count);
    case SDX_KEY: return sdx_binn_writer_key(w, ev->v.str.ptr, ev->v.str.len);
    case SDX_END: return sdx_binn_writer_end(w);
    case SDX_RAW:  /* no such numbers in Binn */
    case SDX_NINT: /* below INT64_MIN: Binn's integers stop there */
        break;
    case SDX_TAG: return w->err; /* Binn has no such tags (common.h) */
    }
    if (w->err) return w->err;
    return fail(w, sdx_put_refusal(ev->kind));
}

/* sdx_binn_writer_node: the document walk of core/node_walk.h with this
 * writer's calls (the same calls sdx_binn_writer_put makes for each kind). */
#define NODE_WALK_WRITER sdx_binn_writer
#define NODE_WALK_OWN
#define NODE_WALK_BIN(w, s, n) sdx_binn_writer_blob(w, s, n)
#include "core/node_walk.h"

/* The document's own walk for the common case, as BSON's (its writer.c): a
 * memory buffer, doubles as float64 (no FLOAT32 or FLOAT32_EXACT option), a
 * value where one may come, and a value made only of untagged null, bool,
 * int, uint, double not read from a float32, text, binary data, lists,
 * and maps whose keys are all strings of at most 255 bytes (an object) or
 * all integers within int32 (a map): the writer's bytes from one pass over
 * the value array with a stack of the open containers, each written with
 * the writer's placeholder header (a 4-byte size) and given its real
 * header at its end, the content moving down for a container of 127 bytes
 * or less, exactly as the writer's end does. Anything else (a tag, raw
 * number text, an integer below INT64_MIN, a float32, keys of mixed or
 * other kinds, text that is not UTF-8) rewinds the buffer to where the
 * value began and returns 0: walk_node then writes the value with the
 * writer's calls, with exactly their output and errors. Returns 1 when
 * written, -1 with the writer's error when the buffer cannot grow. */
#define NODE_FAST_DEPTH 32
#define NODE_FAST_ROOM 16 /* a scalar, or a placeholder header */

struct node_fast_frame {
    const sdx_val *end; /* the slot after the container's last descendant */
    size_t start;       /* its header's offset in the buffer */
    uint64_t count;
    uint8_t kind;       /* FRAME_LIST, _MAP_ANY, _MAP_INT, _OBJECT */
    uint8_t head_len;
};

static int node_fast(sdx_binn_writer *w, sdx_node n) {
    sdx_buf *b = w->out;
    const sdx_binn_frame *top = &w->frames[w->depth];
    if (w->err || top->items >= top->limit || (is_map(top) && !(top->items & 1)) ||
        b->mode != SDX_BUF_MEMORY ||
        (w->flags & (SDX_BINN_WRITE_FLOAT32 | SDX_BINN_WRITE_FLOAT32_EXACT)) ||
        sdx_val_tags_start(n.doc, n.val) != n.val)
        return 0;
    const size_t start = (size_t)(b->cur - b->start);
    const int check = !(w->flags & SDX_BINN_WRITE_NO_UTF8_CHECK);
    struct node_fast_frame inline_frames[NODE_FAST_DEPTH], *frames = inline_frames;
    sdx_stack st;
    sdx_stack_init(&st, inline_frames, NODE_FAST_DEPTH, sizeof *frames,
                   n.doc ? &n.doc->alloc : sdx_alloc_default());
    int rc = 0;
    const sdx_val *v = n.val;
    u8 *p = (u8 *)b->cur;
    /* the value itself as the one element of a frame that has no header */
    frames[0].end = sdx_val_next(n.val);
    frames[0].kind = FRAME_LIST;
    size_t depth = 1;
    for (;;) {
        while (v == frames[depth - 1].end) {
            if (--depth == 0) goto done;
            /* the real header, as sdx_binn_writer_end writes it */
            struct node_fast_frame *f = &frames[depth];
            u8 *h = (u8 *)b->start + f->start, head[9];
            size_t len = container_head(head, f->kind, (uint64_t)(p - h) - f->head_len, f->count);
            if (!len) goto out;
            if (len < f->head_len) { /* the content moves down */
                memmove(h + len, h + f->head_len, (size_t)(p - (h + f->head_len)));
                p -= f->head_len - len;
            }
            memcpy(h, head, len);
        }
        NODE_WALK_NEED(b, p, NODE_FAST_ROOM, out);
        struct node_fast_frame *f = &frames[depth - 1];
        if (f->kind != FRAME_LIST) {
            /* the key: a string of an object, an int32 of a map; the first
             * key decides which the container is */
            if (SDX_VAL_TYPE(v) == SDX_TYPE_STR && f->kind != FRAME_MAP_INT) {
                size_t kn = (size_t)SDX_VAL_LEN(v);
                if (kn > 255) goto out;
                NODE_WALK_NEED(b, p, kn + 1 + NODE_FAST_ROOM, out);
                *p = (u8)kn;
                if (!sdx_utf8_copy_ok(w->utf8_valid, (char *)p + 1, v->v.s, kn,
                                      check && !(v->tag & SDX_VAL_NOESC)))
                    goto out;
                p += 1 + kn;
                f->kind = FRAME_OBJECT;
            } else if ((SDX_VAL_TYPE(v) == SDX_TYPE_INT && v->v.i >= INT32_MIN && v->v.i <= INT32_MAX) &&
                       f->kind != FRAME_OBJECT) {
                sdx_store_be32(p, (uint32_t)(int32_t)v->v.i);
                p += 4;
                f->kind = FRAME_MAP_INT;
            } else {
                goto out;
            }
            v++;
            NODE_WALK_NEED(b, p, NODE_FAST_ROOM, out);
        }
        switch (SDX_VAL_TYPE(v)) {
        case SDX_TYPE_NULL: *p++ = SDX_BINN_NULL; break;
        case SDX_TYPE_BOOL: *p++ = v->v.u ? SDX_BINN_TRUE : SDX_BINN_FALSE; break;
        case SDX_TYPE_INT: p += enc_int(p, v->v.i); break;
        case SDX_TYPE_UINT: p += enc_uint(p, v->v.u); break;
        case SDX_TYPE_DOUBLE:
            if (v->tag & SDX_VAL_FLOAT32) goto out; /* float32 when exact: the writer's */
            *p = SDX_BINN_FLOAT64;
            sdx_store_be64(p + 1, v->v.u);
            p += 9;
            break;
        case SDX_TYPE_STR:
        case SDX_TYPE_BIN: {
            const int text = SDX_VAL_TYPE(v) == SDX_TYPE_STR;
            size_t sn = (size_t)SDX_VAL_LEN(v);
            if (sn > SDX_BINN_SIZE_MAX) goto out;
            NODE_WALK_NEED(b, p, sn + NODE_FAST_ROOM, out);
            *p = text ? SDX_BINN_TEXT : SDX_BINN_BLOB;
            p = sdx_binn_put_size(p + 1, (uint32_t)sn);
            if (!text) {
                if (sn) memcpy(p, v->v.s, sn);
            } else if (!sdx_utf8_copy_ok(w->utf8_valid, (char *)p, v->v.s, sn,
                                         check && !(v->tag & SDX_VAL_NOESC))) {
                goto out;
            }
            p += sn;
            if (text) *p++ = 0;
            break;
        }
        case SDX_TYPE_ARRAY:
        case SDX_TYPE_MAP: {
            const uint64_t count = SDX_VAL_LEN(v);
            if (count > SDX_BINN_SIZE_MAX) goto out;
            if (depth == st.cap) {
                if (!sdx_stack_grow(&st)) goto out;
                frames = st.items;
            }
            struct node_fast_frame *g = &frames[depth++];
            g->end = sdx_val_next(v);
            g->start = (size_t)((char *)p - b->start);
            g->count = count;
            g->kind = SDX_VAL_TYPE(v) == SDX_TYPE_ARRAY ? FRAME_LIST : FRAME_MAP_ANY;
            g->head_len = (uint8_t)(1 + 4 + sdx_binn_size_len(count));
            memset(p, 0, g->head_len); /* the placeholder */
            p += g->head_len;
            break;
        }
        default: goto out; /* a tag, RAW, NINT (or a corrupted slot) */
        }
        v++;
    }
done:
    rc = 1;
out:
    sdx_stack_free(&st);
    rc = node_walk_end(b, rc, (char *)p, start);
    if (rc > 0) w->frames[w->depth].items++;
    if (rc < 0) fail_buf(w); /* the buffer could not grow: the writer's error */
    return rc;
}

sdx_err sdx_binn_writer_node(sdx_binn_writer *w, sdx_node n) { return walk_node_fast(w, n, node_fast); }

sdx_err sdx_binn_writer_finish(sdx_binn_writer *w) {
    if (!w->err) {
        bool sequence = (w->flags & SDX_BINN_WRITE_SEQUENCE) != 0;
        if (w->depth != 0 || (!sequence && w->frames[0].items == 0))
            fail(w, SDX_ERR_USAGE);
        else if (sdx_buf_flush(w->out))
            fail_buf(w);
    }
    /* Open containers after an error: release the pin one of them holds. */
    for (uint32_t i = 1; i <= w->depth; i++)
        if (w->frames[i].pinned) sdx_buf_unpin(w->out);
    if (w->held) sdx_buf_unpin(w->out);
    w->held = 0;
    if (w->frames != w->inline_frames) w->alloc.free(w->alloc.ctx, w->frames);
    w->frames = w->inline_frames;
    w->cap = SDX_BINN_WRITER_INLINE_DEPTH;
    w->depth = 0;
    w->frames[0].items = 0;
    w->frames[0].limit = 0; /* nothing more is accepted */
    w->frames[0].kind = FRAME_ROOT;
    return w->err;
}

static sdx_err sink_put(void *ctx, const sdx_event *ev) {
    return sdx_binn_writer_put((sdx_binn_writer *)ctx, ev);
}

static sdx_err sink_finish(void *ctx) { return sdx_binn_writer_finish((sdx_binn_writer *)ctx); }

static const sdx_sink_vt binn_sink_vt = {sink_put, sink_finish};

sdx_sink sdx_binn_writer_sink(sdx_binn_writer *w) {
    sdx_sink s = {&binn_sink_vt, w};
    return s;
}
