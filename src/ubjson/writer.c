/*
 * The streaming UBJSON / BJData writer.
 *
 * Every value is encoded into a small local array (marker and payload, or
 * a string's header) and appended to the buffer; a string's bytes follow
 * with one more append. Counts are written up front when known, and a
 * container of unknown count is a plain one closed by its end marker, so
 * nothing is ever back-patched. Inside a strongly typed container ('$')
 * values are written without their marker, after a check that they fit
 * the container's type.
 */
#include <string.h>

#include "core/alloc.h"
#include "core/floatbits.h"
#include "core/platform.h"
#include "core/utf8.h"
#include "core/utf8_copy.h"
#include "sdx/ubjson.h"
#include "core/wcount.h"
#include "simd/simd.h"
#include "ubjson/ubjson_internal.h"

typedef unsigned char u8;

enum { FRAME_ROOT = SDX_UBJ_W_ROOT, FRAME_ARRAY = SDX_UBJ_W_ARRAY, FRAME_MAP = SDX_UBJ_W_MAP };

/* Set the sticky error (the first one stays) and close the innermost frame
 * to every item and to its end (a root frame never ends inline), so that
 * the inline fast paths (ubjson.h) hand each later call to the exported
 * functions, which return the error. */
static SDX_NOINLINE sdx_err fail(sdx_ubjson_writer *w, sdx_err err) {
    if (!w->err) w->err = err;
    w->top->left = 0;
    w->top->vmask = 0;
    w->top->kmask = 0;
    w->top->kind = FRAME_ROOT;
    return w->err;
}

/* Open frame f as a container of `kind` and element type `type` (0:
 * untyped) of `count` items (SDX_COUNT_UNKNOWN: a plain container). */
static void frame_open(sdx_ubjson_frame *f, u8 kind, u8 type, uint64_t count) {
    bool map = kind == FRAME_MAP;
    f->kind = kind;
    f->type = type;
    f->left = count == SDX_COUNT_UNKNOWN ? (map ? SDX_WCOUNT_UNKNOWN_MAP : SDX_WCOUNT_UNKNOWN_ARRAY)
              : map                      ? 2 * count
                                         : count;
    f->vmask = type ? 0 : map ? 1 : UINT64_MAX;
    f->kmask = (u8)map;
}

static bool is_bjdata(const sdx_ubjson_writer *w) {
    return (w->flags & SDX_UBJSON_WRITE_BJDATA) != 0;
}

sdx_err sdx_ubjson_writer_init(sdx_ubjson_writer *w, sdx_buf *out,
                               const sdx_ubjson_write_opts *opts) {
    static const sdx_ubjson_write_opts defaults = {0, NULL};
    if (!opts) opts = &defaults;
    const uint32_t known = SDX_UBJSON_WRITE_BJDATA | SDX_UBJSON_WRITE_FLOAT32_EXACT |
                           SDX_UBJSON_WRITE_NO_UTF8_CHECK | SDX_UBJSON_WRITE_SEQUENCE;
    w->out = out;
    w->err = SDX_OK;
    w->flags = opts->flags;
    w->alloc = *(opts->alloc ? opts->alloc : sdx_alloc_default());
    w->frames = w->inline_frames;
    w->cap = SDX_UBJSON_WRITER_INLINE_DEPTH;
    w->last = w->frames + w->cap - 1;
    w->top = w->frames;
    frame_open(w->top, FRAME_ROOT, 0, w->flags & SDX_UBJSON_WRITE_SEQUENCE ? SDX_COUNT_UNKNOWN : 1);
    w->utf8_valid = sdx_simd_active()->utf8_valid_prefix;
    if (opts->flags & ~known) return fail(w, SDX_ERR_INVALID_ARG);
    return SDX_OK;
}

/* ------------------------------------------------------------------------ */
/* Encodings                                                                 */
/* ------------------------------------------------------------------------ */

/* A marker and an n-byte payload v at p; returns the end. */
static u8 *enc_fixed(u8 *p, u8 marker, uint64_t v, int n, bool le) {
    p[0] = marker;
    sdx_ubj_store(p + 1, v, n, le);
    return p + 1 + n;
}

/* A nonnegative integer in its smallest type: U, then I l L (UBJSON, whose
 * only unsigned type is U) or u m M (BJData). Also used for lengths and
 * counts. */
static u8 *enc_uint(u8 *p, uint64_t v, bool bj) {
    /* UBJSON: the inline paths' encoding (ubjson.h); v <= INT64_MAX, as
     * callers see to it */
    if (!bj) return (u8 *)sdx_ubj_w_uint((char *)p, v);
    if (v <= 0xff) return enc_fixed(p, 'U', v, 1, true);
    if (v <= 0xffff) return enc_fixed(p, 'u', v, 2, true);
    if (v <= 0xffffffffu) return enc_fixed(p, 'm', v, 4, true);
    return enc_fixed(p, 'M', v, 8, true);
}

/* Any int64 in its smallest type: negative values in i I l L. */
static u8 *enc_int(u8 *p, int64_t v, bool bj) {
    if (!bj) return (u8 *)sdx_ubj_w_int((char *)p, v);
    if (v >= 0) return enc_uint(p, (uint64_t)v, true);
    if (v >= INT8_MIN) return enc_fixed(p, 'i', (uint64_t)v, 1, true);
    if (v >= INT16_MIN) return enc_fixed(p, 'I', (uint64_t)v, 2, true);
    if (v >= INT32_MIN) return enc_fixed(p, 'l', (uint64_t)v, 4, true);
    return enc_fixed(p, 'L', (uint64_t)v, 8, true);
}

/* ------------------------------------------------------------------------ */
/* Bookkeeping                                                               */
/* ------------------------------------------------------------------------ */

/* The buffer's failure as the sticky error. */
static sdx_err fail_buf(sdx_ubjson_writer *w) {
    return fail(w, w->out->err ? w->out->err : SDX_ERR_NOMEM);
}

/* Append s[0, n): short runs (headers, scalars) into a reservation,
 * longer ones (string bytes) through sdx_buf_write. */
static bool put_bytes(sdx_ubjson_writer *w, const void *s, size_t n) {
    if (n <= 16) {
        char *p = sdx_buf_reserve(w->out, n);
        if (SDX_LIKELY(p != NULL)) {
            for (size_t i = 0; i < n; i++) p[i] = ((const char *)s)[i];
            w->out->cur = p + n;
            return true;
        }
    } else if (!sdx_buf_write(w->out, s, n)) {
        return true;
    }
    fail_buf(w);
    return false;
}

/* May a value come now? Counts it and stores the enclosing container's
 * element type (0 when it is not typed); false with the sticky error set
 * otherwise. */
static bool value_slot(sdx_ubjson_writer *w, u8 *type) {
    if (w->err) return false;
    sdx_ubjson_frame *f = w->top;
    if (f->left == 0 || (f->kind == FRAME_MAP && !(f->left & 1))) {
        fail(w, SDX_ERR_USAGE);
        return false;
    }
    f->left--;
    *type = f->type;
    return true;
}

/* A value encoded in bytes[0, n) with its marker first: the whole of it
 * untyped, the payload only inside a typed container (whose type the
 * caller has checked against the marker). */
static sdx_err emit(sdx_ubjson_writer *w, u8 type, const u8 *bytes, size_t n) {
    if (type) put_bytes(w, bytes + 1, n - 1);
    else put_bytes(w, bytes, n);
    return w->err;
}

/* ------------------------------------------------------------------------ */
/* Scalars                                                                   */
/* ------------------------------------------------------------------------ */

sdx_err (sdx_ubjson_writer_null)(sdx_ubjson_writer *w) {
    u8 t, z = 'Z';
    if (!value_slot(w, &t)) return w->err;
    if (t && t != 'Z') return fail(w, SDX_ERR_TYPE);
    return emit(w, t, &z, 1);
}

sdx_err (sdx_ubjson_writer_bool)(sdx_ubjson_writer *w, bool v) {
    u8 t, m = v ? 'T' : 'F';
    if (!value_slot(w, &t)) return w->err;
    if (t && t != m) return fail(w, SDX_ERR_TYPE);
    return emit(w, t, &m, 1);
}

/* An integer's payload in a typed container of integer type t, when the
 * value is within t's range (else SDX_ERR_TYPE, as for a container of
 * another type). `neg`: the value is negative and `v` holds its int64 bits;
 * else `v` is the value. */
static sdx_err typed_int(sdx_ubjson_writer *w, u8 t, bool neg, uint64_t v) {
    int64_t lo;
    uint64_t hi;
    int n;
    switch (t) {
    case 'i': lo = INT8_MIN, hi = INT8_MAX, n = 1; break;
    case 'U': case 'B': lo = 0, hi = 0xff, n = 1; break;
    case 'I': lo = INT16_MIN, hi = INT16_MAX, n = 2; break;
    case 'u': lo = 0, hi = 0xffff, n = 2; break;
    case 'l': lo = INT32_MIN, hi = INT32_MAX, n = 4; break;
    case 'm': lo = 0, hi = 0xffffffffu, n = 4; break;
    case 'L': lo = INT64_MIN, hi = INT64_MAX, n = 8; break;
    case 'M': lo = 0, hi = UINT64_MAX, n = 8; break;
    default: return fail(w, SDX_ERR_TYPE);
    }
    if (neg ? (int64_t)v < lo : v > hi) return fail(w, SDX_ERR_TYPE);
    u8 tmp[8];
    sdx_ubj_store(tmp, v, n, is_bjdata(w));
    put_bytes(w, tmp, (size_t)n);
    return w->err;
}

sdx_err (sdx_ubjson_writer_int)(sdx_ubjson_writer *w, int64_t v) {
    u8 t, tmp[9];
    if (!value_slot(w, &t)) return w->err;
    if (t) return typed_int(w, t, v < 0, (uint64_t)v);
    return emit(w, 0, tmp, (size_t)(enc_int(tmp, v, is_bjdata(w)) - tmp));
}

/* The decimal digits of v (at most 20) at p; returns the count. */
static size_t dec_digits(char *p, uint64_t v) {
    char tmp[20];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++) p[i] = tmp[n - 1 - i];
    return n;
}

sdx_err (sdx_ubjson_writer_uint)(sdx_ubjson_writer *w, uint64_t v) {
    if (v <= INT64_MAX) return sdx_ubjson_writer_int(w, (int64_t)v);
    u8 t, tmp[23];
    if (!value_slot(w, &t)) return w->err;
    if (t && t != 'H') return typed_int(w, t, false, v);
    if (is_bjdata(w) && !t) return emit(w, 0, tmp, (size_t)(enc_fixed(tmp, 'M', v, 8, true) - tmp));
    /* UBJSON has no integer type above INT64_MAX: Draft 12 writes such a
     * number as H, its decimal text. */
    tmp[0] = 'H';
    tmp[1] = 'U';
    tmp[2] = (u8)dec_digits((char *)tmp + 3, v);
    return emit(w, t, tmp, 3u + tmp[2]);
}

static sdx_err f32_bits(sdx_ubjson_writer *w, u8 t, uint32_t bits) {
    u8 tmp[5];
    return emit(w, t, tmp, (size_t)(enc_fixed(tmp, 'd', bits, 4, is_bjdata(w)) - tmp));
}

static sdx_err f64(sdx_ubjson_writer *w, u8 t, double v) {
    uint64_t bits;
    u8 tmp[9];
    memcpy(&bits, &v, 8);
    return emit(w, t, tmp, (size_t)(enc_fixed(tmp, 'D', bits, 8, is_bjdata(w)) - tmp));
}

/* A double in the typed container of type t, or untyped (t 0) as D, or as
 * d (`prefer` 'd', or SDX_UBJSON_WRITE_FLOAT32_EXACT) when exact. */
static sdx_err put_double(sdx_ubjson_writer *w, double v, u8 prefer) {
    u8 t;
    uint32_t fbits;
    uint16_t hbits;
    if (!value_slot(w, &t)) return w->err;
    switch (t) {
    case 0: break;
    case 'D': return f64(w, t, v);
    case 'd':
        if (!sdx_double_to_float_exact(v, &fbits)) return fail(w, SDX_ERR_RANGE);
        return f32_bits(w, t, fbits);
    case 'h':
        if (!sdx_double_to_half_exact(v, &hbits)) return fail(w, SDX_ERR_RANGE);
        break;
    default: return fail(w, SDX_ERR_TYPE);
    }
    if (t == 'h') {
        u8 tmp[3];
        return emit(w, t, tmp, (size_t)(enc_fixed(tmp, 'h', hbits, 2, true) - tmp));
    }
    if ((prefer == 'd' || (w->flags & SDX_UBJSON_WRITE_FLOAT32_EXACT)) &&
        sdx_double_to_float_exact(v, &fbits))
        return f32_bits(w, 0, fbits);
    return f64(w, 0, v);
}

sdx_err (sdx_ubjson_writer_double)(sdx_ubjson_writer *w, double v) { return put_double(w, v, 0); }

sdx_err sdx_ubjson_writer_float(sdx_ubjson_writer *w, float v) {
    u8 t;
    uint32_t bits;
    if (!value_slot(w, &t)) return w->err;
    if (t == 'D') return f64(w, t, (double)v);
    if (t && t != 'd') return fail(w, SDX_ERR_TYPE);
    memcpy(&bits, &v, 4);
    return f32_bits(w, t, bits);
}

/* A length-prefixed byte string (S, H or a key's text) after `marker` (0
 * for none): the marker, the length in its smallest integer type, the
 * bytes. */
static sdx_err sized(sdx_ubjson_writer *w, u8 marker, const char *s, size_t n) {
    u8 head[10], *p = head;
    if (marker) *p++ = marker;
    p = enc_uint(p, n, is_bjdata(w));
    size_t h = (size_t)(p - head);
    if (n <= 4096) { /* head and bytes in one reservation */
        char *q = sdx_buf_reserve(w->out, h + n);
        if (!q) return fail_buf(w);
        memcpy(q, head, h);
        if (n) memcpy(q + h, s, n);
        w->out->cur = q + h + n;
        return w->err;
    }
    if (put_bytes(w, head, h)) put_bytes(w, s, n);
    return w->err;
}

/* Short strings are tested for ASCII inline, longer ones by the SIMD
 * kernel (core/utf8.h). */
static bool utf8_ok(const sdx_ubjson_writer *w, const char *s, size_t n) {
    return (w->flags & SDX_UBJSON_WRITE_NO_UTF8_CHECK) || sdx_utf8_ok(w->utf8_valid, s, n);
}

sdx_err (sdx_ubjson_writer_string)(sdx_ubjson_writer *w, const char *s, size_t n) {
    u8 t;
    if (!value_slot(w, &t)) return w->err;
    if (!utf8_ok(w, s, n)) return fail(w, SDX_ERR_UTF8);
    if (t == 'C') {
        if (n != 1 || (u8)s[0] > 127) return fail(w, SDX_ERR_TYPE);
        return put_bytes(w, s, 1), w->err;
    }
    if (t && t != 'S') return fail(w, SDX_ERR_TYPE);
    if (!t && n == 1 && (u8)s[0] <= 127) { /* a char is the smallest encoding */
        u8 tmp[2] = {'C', (u8)s[0]};
        return emit(w, 0, tmp, 2);
    }
    return sized(w, t ? 0 : 'S', s, n);
}

sdx_err sdx_ubjson_writer_char(sdx_ubjson_writer *w, char c) {
    u8 t, tmp[2] = {'C', (u8)c};
    if (w->err) return w->err;
    if ((u8)c > 127) return fail(w, SDX_ERR_INVALID_ARG);
    if (w->top->type == 'S') return sdx_ubjson_writer_string(w, &c, 1);
    if (!value_slot(w, &t)) return w->err;
    if (t && t != 'C') return fail(w, SDX_ERR_TYPE);
    return emit(w, t, tmp, 2);
}

sdx_err sdx_ubjson_writer_high_precision(sdx_ubjson_writer *w, const char *s, size_t n) {
    u8 t;
    if (w->err) return w->err;
    if (!s || !sdx_ubj_number_ok(s, n)) return fail(w, SDX_ERR_INVALID_ARG);
    if (!value_slot(w, &t)) return w->err;
    if (t && t != 'H') return fail(w, SDX_ERR_TYPE);
    return sized(w, t ? 0 : 'H', s, n);
}

sdx_err sdx_ubjson_writer_bin(sdx_ubjson_writer *w, const void *data, size_t n) {
    u8 t, head[14], *p = head;
    if (!value_slot(w, &t)) return w->err;
    if (t && t != '[') return fail(w, SDX_ERR_TYPE);
    if (!t) *p++ = '[';
    *p++ = '$';
    *p++ = is_bjdata(w) ? 'B' : 'U';
    *p++ = '#';
    p = enc_uint(p, n, is_bjdata(w));
    if (put_bytes(w, head, (size_t)(p - head))) put_bytes(w, data, n);
    return w->err;
}

/* ------------------------------------------------------------------------ */
/* Containers                                                                */
/* ------------------------------------------------------------------------ */

/* Double the stack of open containers (when it is full); false with the
 * error set when it cannot grow. */
static SDX_NOINLINE bool grow_frames(sdx_ubjson_writer *w) {
    sdx_err e = SDX_OK;
    const size_t depth = (size_t)(w->top - w->frames);
    sdx_ubjson_frame *f =
        sdx_grow_frames(&w->alloc, w->frames, w->inline_frames, &w->cap, sizeof *f, &e);
    if (!f) {
        fail(w, e);
        return false;
    }
    w->frames = f;
    w->last = f + w->cap - 1;
    w->top = f + depth;
    return true;
}

static sdx_err begin(sdx_ubjson_writer *w, uint8_t kind, u8 type, uint64_t count) {
    u8 t, head[13], *p = head;
    u8 marker = kind == FRAME_MAP ? '{' : '[';
    if (w->err) return w->err;
    if (type && (!sdx_ubj_type_ok(type, is_bjdata(w)) || count == SDX_COUNT_UNKNOWN))
        return fail(w, SDX_ERR_INVALID_ARG);
    if (kind == FRAME_MAP && count != SDX_COUNT_UNKNOWN && count > INT64_MAX / 2)
        return fail(w, SDX_ERR_UNSUPPORTED);
    if (kind == FRAME_ARRAY && count != SDX_COUNT_UNKNOWN && count > INT64_MAX)
        return fail(w, SDX_ERR_UNSUPPORTED);
    if (w->top >= w->last && !grow_frames(w)) return w->err;
    if (!value_slot(w, &t)) return w->err;
    if (t && t != marker) return fail(w, SDX_ERR_TYPE);
    if (!t) *p++ = marker;
    if (type) {
        *p++ = '$';
        *p++ = type;
    }
    if (count != SDX_COUNT_UNKNOWN) {
        *p++ = '#';
        p = enc_uint(p, count, is_bjdata(w));
    }
    if (!put_bytes(w, head, (size_t)(p - head))) return w->err;
    frame_open(++w->top, kind, type, count);
    return SDX_OK;
}

sdx_err (sdx_ubjson_writer_begin_array)(sdx_ubjson_writer *w, uint64_t count) {
    return begin(w, FRAME_ARRAY, 0, count);
}

sdx_err (sdx_ubjson_writer_begin_map)(sdx_ubjson_writer *w, uint64_t count) {
    return begin(w, FRAME_MAP, 0, count);
}

sdx_err sdx_ubjson_writer_begin_typed_array(sdx_ubjson_writer *w, char type, uint64_t count) {
    if (!type && !w->err) return fail(w, SDX_ERR_INVALID_ARG);
    return begin(w, FRAME_ARRAY, (u8)type, count);
}

sdx_err sdx_ubjson_writer_begin_typed_map(sdx_ubjson_writer *w, char type, uint64_t count) {
    if (!type && !w->err) return fail(w, SDX_ERR_INVALID_ARG);
    return begin(w, FRAME_MAP, (u8)type, count);
}

sdx_err sdx_ubjson_writer_begin_nd_array(sdx_ubjson_writer *w, char type, const uint64_t *dims,
                                         uint32_t ndim) {
    u8 t, head[12], *p = head;
    if (w->err) return w->err;
    if (!is_bjdata(w)) return fail(w, SDX_ERR_UNSUPPORTED);
    if (!sdx_ubj_type_ok((u8)type, true) || !dims || ndim == 0 || ndim > 32)
        return fail(w, SDX_ERR_INVALID_ARG);
    uint64_t elements = 1;
    for (uint32_t i = 0; i < ndim; i++) {
        if (dims[i] > INT64_MAX || (dims[i] && elements > INT64_MAX / dims[i]))
            return fail(w, SDX_ERR_INVALID_ARG);
        elements *= dims[i];
    }
    if (w->top >= w->last && !grow_frames(w)) return w->err;
    if (!value_slot(w, &t)) return w->err;
    if (t && t != '[') return fail(w, SDX_ERR_TYPE);
    /* [$t#[d0 d1 ...]: the dimension vector as a plain array of integers,
     * each in its smallest type */
    if (!t) *p++ = '[';
    *p++ = '$';
    *p++ = (u8)type;
    *p++ = '#';
    *p++ = '[';
    if (!put_bytes(w, head, (size_t)(p - head))) return w->err;
    for (uint32_t i = 0; i < ndim; i++) {
        p = enc_uint(head, dims[i], true);
        if (!put_bytes(w, head, (size_t)(p - head))) return w->err;
    }
    head[0] = ']';
    if (!put_bytes(w, head, 1)) return w->err;
    frame_open(++w->top, FRAME_ARRAY, (u8)type, elements);
    return SDX_OK;
}

sdx_err (sdx_ubjson_writer_key)(sdx_ubjson_writer *w, const char *s, size_t n) {
    if (w->err) return w->err;
    sdx_ubjson_frame *f = w->top;
    if (f->kind != FRAME_MAP || (f->left & 1) || f->left == 0) return fail(w, SDX_ERR_USAGE);
    if (!utf8_ok(w, s, n)) return fail(w, SDX_ERR_UTF8);
    f->left--;
    return sized(w, 0, s, n);
}

sdx_err (sdx_ubjson_writer_end)(sdx_ubjson_writer *w) {
    if (w->err) return w->err;
    sdx_ubjson_frame *f = w->top;
    if (f->kind == FRAME_ROOT) return fail(w, SDX_ERR_USAGE);
    if (f->left < SDX_WCOUNT_UNKNOWN_MIN) {
        if (f->left != 0) return fail(w, SDX_ERR_USAGE);
    } else {
        u8 m = f->kind == FRAME_MAP ? '}' : ']';
        if (f->left & 1 && f->kind == FRAME_MAP) return fail(w, SDX_ERR_USAGE);
        if (!put_bytes(w, &m, 1)) return w->err;
    }
    w->top--;
    return SDX_OK;
}

/* ------------------------------------------------------------------------ */
/* Events, sink, finish                                                      */
/* ------------------------------------------------------------------------ */

sdx_err sdx_ubjson_writer_put(sdx_ubjson_writer *w, const sdx_event *ev) {
    bool ubj_tag = ev->tag_kind == SDX_TAG_UBJSON;
    /* a value in key position (a MessagePack or CBOR map's non-string
     * key): UBJSON keys are strings, so this is the data's limit, not a
     * call out of order */
    if (SDX_UNLIKELY(w->top->kind == FRAME_MAP && !(w->top->left & 1) && !w->err &&
                     w->top->left != 0 && ev->kind != SDX_KEY && ev->kind != SDX_END &&
                     ev->kind != SDX_TAG))
        return fail(w, SDX_ERR_KEY);
    switch ((sdx_kind)ev->kind) {
    case SDX_NULL: return sdx_ubjson_writer_null(w);
    case SDX_BOOL: return sdx_ubjson_writer_bool(w, ev->v.b);
    case SDX_INT: return sdx_ubjson_writer_int(w, ev->v.i);
    case SDX_UINT: return sdx_ubjson_writer_uint(w, ev->v.u);
    case SDX_DOUBLE:
        /* float32 again for SDX_EVENT_FLOAT32; SDX_EVENT_FLOAT16 is not
         * followed (see ubjson.h) */
        return put_double(w, ev->v.d, ev->flags & SDX_EVENT_FLOAT32 ? 'd' : 0);
    case SDX_STR: return sdx_ubjson_writer_string(w, ev->v.str.ptr, ev->v.str.len);
    case SDX_BIN: return sdx_ubjson_writer_bin(w, ev->v.str.ptr, ev->v.str.len);
    case SDX_ARRAY:
    case SDX_MAP: {
        uint8_t kind = ev->kind == SDX_MAP ? FRAME_MAP : FRAME_ARRAY;
        u8 type = 0;
        if (ubj_tag && ev->v.count != SDX_COUNT_UNKNOWN && ev->tag < 128 &&
            sdx_ubj_type_ok((u8)ev->tag, is_bjdata(w)))
            type = (u8)ev->tag;
        return begin(w, kind, type, ev->v.count);
    }
    case SDX_KEY: return sdx_ubjson_writer_key(w, ev->v.str.ptr, ev->v.str.len);
    case SDX_END: return sdx_ubjson_writer_end(w);
    case SDX_RAW: return sdx_ubjson_writer_high_precision(w, ev->v.str.ptr, ev->v.str.len);
    case SDX_NINT: /* below INT64_MIN: neither dialect has such integers */
        if (w->err) return w->err;
        return fail(w, SDX_ERR_RANGE);
    case SDX_TAG: return w->err;
    }
    if (w->err) return w->err;
    return fail(w, SDX_ERR_INVALID_ARG);
}

/* sdx_ubjson_writer_node: the document walk of core/node_walk.h with this
 * writer's calls (the same calls sdx_ubjson_writer_put makes for each kind). */
#define NODE_WALK_WRITER sdx_ubjson_writer
#define NODE_WALK_OWN
#define NODE_WALK_BIN(w, s, n) sdx_ubjson_writer_bin(w, s, n)
#include "core/node_walk.h"

/* The document's own walk for the common case, as MessagePack's and BSON's
 * (their writer.c): a memory buffer, UBJSON without
 * SDX_UBJSON_WRITE_FLOAT32_EXACT (not BJData), a value where one may come
 * without bookkeeping, and a value made only of untagged null, bool, int,
 * uint up to INT64_MAX, double not read from a float32 or float16, str,
 * bin, and arrays and maps (with str keys) of at most INT32_MAX elements:
 * the bytes the writer's calls give (sdx_ubj_w_int, D and the bits, C for
 * a one-byte ASCII string, S and the length, counted containers and so
 * nothing at their end, bin as [$U#), from one pass over the value array
 * with a stack of the open containers and no per-value call. Anything else
 * (a tag, raw number text, a uint above INT64_MAX, an integer below
 * INT64_MIN, a key that is not a str, text that is not UTF-8) rewinds the
 * buffer to where the value began, leaves the writer as it was and
 * returns 0: walk_node then writes the value with the writer's calls, with
 * exactly their output and errors. Text is copied, then checked as the
 * writer checks it (a string the JSON parser marked SDX_VAL_NOESC is valid
 * UTF-8 already). Returns 1 when written, -1 with the writer's error when
 * the buffer cannot grow. */
#define NODE_FAST_DEPTH 32
#define NODE_FAST_ROOM 24 /* a scalar, a container's head, S and a length */

struct node_fast_frame {
    const sdx_val *end; /* the slot after the container's last descendant */
    uint8_t map;
};

static int node_fast(sdx_ubjson_writer *w, sdx_node n) {
    sdx_buf *b = w->out;
    if (w->err || !sdx_ubj_w_slot(w->top, 0) || b->mode != SDX_BUF_MEMORY ||
        (w->flags & (SDX_UBJSON_WRITE_BJDATA | SDX_UBJSON_WRITE_FLOAT32_EXACT)) ||
        sdx_val_tags_start(n.doc, n.val) != n.val)
        return 0;
    const size_t start = (size_t)(b->cur - b->start);
    const int check = !(w->flags & SDX_UBJSON_WRITE_NO_UTF8_CHECK);
    struct node_fast_frame inline_frames[NODE_FAST_DEPTH], *frames = inline_frames;
    sdx_stack st;
    sdx_stack_init(&st, inline_frames, NODE_FAST_DEPTH, sizeof *frames,
                   n.doc ? &n.doc->alloc : sdx_alloc_default());
    int rc = 0;
    const sdx_val *v = n.val;
    char *p = b->cur;
    /* The innermost open container, in registers: where it ends and
     * whether it is a map; the value itself is the one element of an
     * outermost one that is not a map. frames[0, depth) keep the
     * containers around it. */
    const sdx_val *end = sdx_val_next(n.val);
    int in_map = 0;
    size_t depth = 0;
    for (;;) {
        while (v == end) {
            if (depth == 0) goto done;
            depth--;
            end = frames[depth].end;
            in_map = frames[depth].map;
        }
        NODE_WALK_NEED(b, p, NODE_FAST_ROOM, out);
        if (in_map) {
            /* the key: a str's length and bytes, no marker */
            if (SDX_VAL_TYPE(v) != SDX_TYPE_STR) goto out;
            size_t kn = (size_t)SDX_VAL_LEN(v);
            if (kn > INT64_MAX - NODE_FAST_ROOM) goto out;
            NODE_WALK_NEED(b, p, kn + 2 * NODE_FAST_ROOM, out);
            p = sdx_ubj_w_uint(p, kn);
            if (!sdx_utf8_copy_ok(w->utf8_valid, p, v->v.s, kn, check && !(v->tag & SDX_VAL_NOESC))) goto out;
            p += kn;
            v++;
        }
        /* tests, not a switch (NODE_WALK_BIT, core/node_walk.h) */
        const unsigned t = SDX_VAL_TYPE(v);
        const uint32_t bit = NODE_WALK_BIT(t);
        if (t == SDX_TYPE_STR) {
            size_t sn = (size_t)SDX_VAL_LEN(v);
            const char *s = v->v.s;
            if (sn == 1 && (unsigned char)s[0] <= 127) { /* a char: the smallest encoding */
                p[0] = 'C';
                p[1] = s[0];
                p += 2;
            } else {
                if (sn > INT64_MAX - NODE_FAST_ROOM) goto out;
                NODE_WALK_NEED(b, p, sn + NODE_FAST_ROOM, out);
                *p++ = 'S';
                p = sdx_ubj_w_uint(p, sn);
                if (!sdx_utf8_copy_ok(w->utf8_valid, p, s, sn, check && !(v->tag & SDX_VAL_NOESC))) goto out;
                p += sn;
            }
        } else if (bit & NODE_WALK_BIT(SDX_TYPE_DOUBLE)) {
            if (v->tag & (SDX_VAL_FLOAT32 | SDX_VAL_FLOAT16)) goto out;
            p[0] = 'D';
            sdx_hot_store_be(p + 1, v->v.u, 8);
            p += 9;
        } else if (bit & NODE_WALK_BIT(SDX_TYPE_INT)) {
            p = sdx_ubj_w_int(p, v->v.i);
        } else if (bit & (NODE_WALK_BIT(SDX_TYPE_ARRAY) | NODE_WALK_BIT(SDX_TYPE_MAP))) {
            const int map = t == SDX_TYPE_MAP;
            const uint64_t count = SDX_VAL_LEN(v);
            if (count > 0x7fffffff) goto out;
            if (depth == st.cap) {
                if (!sdx_stack_grow(&st)) goto out;
                frames = st.items;
            }
            frames[depth].end = end;
            frames[depth].map = (uint8_t)in_map;
            depth++;
            end = sdx_val_next(v);
            in_map = map;
            p[0] = map ? '{' : '[';
            p[1] = '#';
            p = sdx_ubj_w_uint(p + 2, count);
        } else if (bit & NODE_WALK_BIT(SDX_TYPE_BOOL)) {
            *p++ = v->v.u ? 'T' : 'F';
        } else if (bit & NODE_WALK_BIT(SDX_TYPE_NULL)) {
            *p++ = 'Z';
        } else if (bit & NODE_WALK_BIT(SDX_TYPE_UINT)) {
            if (v->v.u > INT64_MAX) goto out; /* H, the writer's */
            p = sdx_ubj_w_uint(p, v->v.u);
        } else if (bit & NODE_WALK_BIT(SDX_TYPE_BIN)) { /* an array of uint8, as sdx_ubjson_writer_bin writes it */
            size_t bn = (size_t)SDX_VAL_LEN(v);
            if (bn > INT64_MAX - NODE_FAST_ROOM) goto out;
            NODE_WALK_NEED(b, p, bn + NODE_FAST_ROOM, out);
            memcpy(p, "[$U#", 4);
            p = sdx_ubj_w_uint(p + 4, bn);
            if (bn) memcpy(p, v->v.s, bn);
            p += bn;
        } else {
            goto out; /* a tag, RAW, NINT (or a corrupted slot) */
        }
        v++;
    }
done:
    rc = 1;
out:
    sdx_stack_free(&st);
    rc = node_walk_end(b, rc, p, start);
    if (rc > 0) w->top->left--;
    if (rc < 0) fail_buf(w); /* the buffer could not grow: the writer's error */
    return rc;
}

sdx_err sdx_ubjson_writer_node(sdx_ubjson_writer *w, sdx_node n) { return walk_node_fast(w, n, node_fast); }

sdx_err sdx_ubjson_writer_finish(sdx_ubjson_writer *w) {
    if (!w->err) {
        bool sequence = (w->flags & SDX_UBJSON_WRITE_SEQUENCE) != 0;
        if (w->top != w->frames || (!sequence && w->frames[0].left != 0))
            fail(w, SDX_ERR_USAGE);
        else if (sdx_buf_flush(w->out))
            fail(w, w->out->err ? w->out->err : SDX_ERR_IO);
    }
    if (w->frames != w->inline_frames) w->alloc.free(w->alloc.ctx, w->frames);
    w->frames = w->inline_frames;
    w->cap = SDX_UBJSON_WRITER_INLINE_DEPTH;
    w->last = w->frames + w->cap - 1;
    w->top = w->frames;
    frame_open(w->top, FRAME_ROOT, 0, 0); /* left 0: nothing more is accepted */
    return w->err;
}

static sdx_err sink_put(void *ctx, const sdx_event *ev) {
    return sdx_ubjson_writer_put((sdx_ubjson_writer *)ctx, ev);
}

static sdx_err sink_finish(void *ctx) { return sdx_ubjson_writer_finish((sdx_ubjson_writer *)ctx); }

static const sdx_sink_vt ubjson_sink_vt = {sink_put, sink_finish};

sdx_sink sdx_ubjson_writer_sink(sdx_ubjson_writer *w) {
    sdx_sink s = {&ubjson_sink_vt, w};
    return s;
}
