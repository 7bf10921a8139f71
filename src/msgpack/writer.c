/*
 * The streaming MessagePack writer.
 *
 * Every value has a fast path: the innermost container still allows a
 * value (one test, which also fails once an error is set: the writer then
 * points at a frame that allows nothing), the buffer has room for the
 * largest encoding of the value, and the value is written without further
 * checks. Everything else takes a checked slow path that reserves exactly
 * what it writes, so a fixed buffer overflows only when the output really
 * does not fit.
 */
#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/backpatch.h"
#include "core/wcount.h"
#include "core/error.h"
#include "core/platform.h"
#include "core/utf8.h"
#include "msgpack/msgpack_internal.h"
#include "sdx/msgpack.h"
#include "simd/inline.h"
#include "simd/short_copy.h"
#include "simd/simd.h"


/* Strings up to this length take the inline fast path. */
#define SMALL_STRING 4096

/* Strings from 16 bytes up to this length are copied and tested for ASCII
 * in one pass. */
#define FUSED_STRING 256

/* The frame the writer points at after an error or finish: it allows no
 * value and no end, so every fast path falls through to a slow path, which
 * returns the sticky error. Never written. */
static sdx_msgpack_frame dead_frame = {0, 0, SDX_MP_FRAME_DEAD, 0};

static SDX_NOINLINE sdx_err fail(sdx_msgpack_writer *w, sdx_err err) {
    if (!w->err) w->err = err;
    /* nothing more is written: containers still open release a stream's
     * pin (which a back-patched count holds) */
    if (w->top != &dead_frame)
        for (const sdx_msgpack_frame *f = w->frames + 1; f <= w->top; f++)
            if (f->pinned) sdx_buf_unpin(w->out);
    w->top = &dead_frame;
    w->left = 0;
    return w->err;
}

static sdx_err fail_buf(sdx_msgpack_writer *w) {
    return fail(w, w->out->err ? w->out->err : SDX_ERR_NOMEM);
}

sdx_err sdx_msgpack_writer_init(sdx_msgpack_writer *w, sdx_buf *out,
                                const sdx_msgpack_write_opts *opts) {
    static const sdx_msgpack_write_opts defaults = {0, NULL};
    if (!opts) opts = &defaults;
    const uint32_t known = SDX_MSGPACK_WRITE_FLOAT32 | SDX_MSGPACK_WRITE_FLOAT32_EXACT |
                           SDX_MSGPACK_WRITE_NO_UTF8_CHECK | SDX_MSGPACK_WRITE_SEQUENCE;
    w->out = out;
    w->err = SDX_OK;
    w->flags = opts->flags;
    w->alloc = *(opts->alloc ? opts->alloc : sdx_alloc_default());
    w->frames = w->inline_frames;
    w->cap = SDX_MSGPACK_WRITER_INLINE_DEPTH;
    w->last = w->frames + w->cap - 1;
    w->top = w->frames;
    w->left = w->flags & SDX_MSGPACK_WRITE_SEQUENCE ? SDX_WCOUNT_UNKNOWN_ARRAY : 1;
    w->top->left = 0; /* kept in w->left while the root is innermost */
    w->top->header = 0;
    w->top->kind = SDX_MP_FRAME_ROOT;
    w->top->pinned = 0;
    w->utf8_valid = sdx_simd_active()->utf8_valid_prefix;
    w->short_avx512 = sdx_simd_active()->level == SDX_SIMD_AVX512;
    w->ascii_mask = w->flags & SDX_MSGPACK_WRITE_NO_UTF8_CHECK ? 0 : 0x8080808080808080ull;
    if (opts->flags & ~known) return fail(w, SDX_ERR_INVALID_ARG);
    return SDX_OK;
}

/* ------------------------------------------------------------------------ */
/* Encodings                                                                 */
/* ------------------------------------------------------------------------ */

typedef unsigned char u8;

static SDX_ALWAYS_INLINE u8 *enc_f32_bits(u8 *p, uint32_t bits) {
    p[0] = 0xca;
    sdx_store_be32(p + 1, bits);
    return p + 5;
}

/* The headers of msgpack.h (sdx_mp_w_sized_head, sdx_mp_w_str_head) on
 * this file's byte pointers. */
static SDX_ALWAYS_INLINE u8 *enc_sized_header(u8 *p, size_t n, u8 type8) {
    return (u8 *)sdx_mp_w_sized_head((char *)p, n, type8);
}

static SDX_ALWAYS_INLINE u8 *enc_str_header(u8 *p, size_t n) {
    return (u8 *)sdx_mp_w_str_head((char *)p, n);
}

/* fixext 1/2/4/8/16 or ext 8/16/32, with the type; n < 2^32. */
static u8 *enc_ext_header(u8 *p, int8_t type, size_t n) {
    switch (n) {
    case 1: p[0] = 0xd4; break;
    case 2: p[0] = 0xd5; break;
    case 4: p[0] = 0xd6; break;
    case 8: p[0] = 0xd7; break;
    case 16: p[0] = 0xd8; break;
    default:
        p = enc_sized_header(p, n, 0xc7);
        *p = (u8)type;
        return p + 1;
    }
    p[1] = (u8)type;
    return p + 2;
}

/* ------------------------------------------------------------------------ */
/* Bookkeeping shared by every value                                        */
/* ------------------------------------------------------------------------ */

/* Fast path: whether a value of at most `need` bytes may be written now
 * without further checks; if so, counts it and gives the buffer and the
 * write position (the caller stores the bytes, then sets b->cur). Nothing
 * changes otherwise, and the checked path must handle the value. */
static SDX_ALWAYS_INLINE bool value_fast(sdx_msgpack_writer *w, size_t need, sdx_buf **bp,
                                         u8 **pp) {
    sdx_buf *b = w->out;
    char *p = b->cur;
    if (SDX_UNLIKELY(w->left == 0 || (size_t)(b->end - p) < need)) return false;
    w->left--;
    *bp = b;
    *pp = (u8 *)p;
    return true;
}

/* Checked path: may a value come now? Counts it; 0 with the sticky error
 * set otherwise. */
static int value_begin(sdx_msgpack_writer *w) {
    if (w->err) return 0;
    if (w->left == 0) {
        fail(w, SDX_ERR_USAGE);
        return 0;
    }
    w->left--;
    return 1;
}

static int put_bytes(sdx_msgpack_writer *w, const void *s, size_t n) {
    if (sdx_buf_write(w->out, s, n)) {
        fail_buf(w);
        return 0;
    }
    return 1;
}

/* Checked path for a value already encoded in bytes[0, n). */
static SDX_NOINLINE sdx_err value_slow(sdx_msgpack_writer *w, const void *bytes, size_t n) {
    if (value_begin(w)) put_bytes(w, bytes, n);
    return w->err;
}

/* ------------------------------------------------------------------------ */
/* Scalars                                                                   */
/* ------------------------------------------------------------------------ */

static SDX_ALWAYS_INLINE sdx_err one_byte(sdx_msgpack_writer *w, u8 byte) {
    sdx_buf *b;
    u8 *p;
    if (SDX_UNLIKELY(!value_fast(w, 1, &b, &p))) return value_slow(w, &byte, 1);
    *p = byte;
    b->cur = (char *)p + 1;
    return SDX_OK;
}

sdx_err (sdx_msgpack_writer_null)(sdx_msgpack_writer *w) { return one_byte(w, 0xc0); }

sdx_err (sdx_msgpack_writer_bool)(sdx_msgpack_writer *w, bool v) {
    return one_byte(w, v ? 0xc3 : 0xc2);
}

static SDX_NOINLINE sdx_err int_slow(sdx_msgpack_writer *w, int64_t v) {
    u8 tmp[9];
    return value_slow(w, tmp, (size_t)(sdx_mp_w_int((char *)tmp, v) - (char *)tmp));
}

sdx_err (sdx_msgpack_writer_int)(sdx_msgpack_writer *w, int64_t v) {
    sdx_buf *b;
    u8 *p;
    if (SDX_UNLIKELY(!value_fast(w, 9, &b, &p))) return int_slow(w, v);
    b->cur = sdx_mp_w_int((char *)p, v);
    return SDX_OK;
}

static SDX_NOINLINE sdx_err uint_slow(sdx_msgpack_writer *w, uint64_t v) {
    u8 tmp[9];
    return value_slow(w, tmp, (size_t)(sdx_mp_w_uint((char *)tmp, v) - (char *)tmp));
}

sdx_err (sdx_msgpack_writer_uint)(sdx_msgpack_writer *w, uint64_t v) {
    sdx_buf *b;
    u8 *p;
    if (SDX_UNLIKELY(!value_fast(w, 9, &b, &p))) return uint_slow(w, v);
    b->cur = sdx_mp_w_uint((char *)p, v);
    return SDX_OK;
}

static sdx_err f32_bits(sdx_msgpack_writer *w, uint32_t bits) {
    u8 tmp[5];
    sdx_buf *b;
    u8 *p;
    if (SDX_UNLIKELY(!value_fast(w, 5, &b, &p)))
        return value_slow(w, tmp, (size_t)(enc_f32_bits(tmp, bits) - tmp));
    b->cur = (char *)enc_f32_bits(p, bits);
    return SDX_OK;
}

/* Round a double to the nearest float (ties to even), without the undefined
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

static SDX_NOINLINE sdx_err double_as_float(sdx_msgpack_writer *w, double v) {
    uint32_t bits;
    if (w->flags & SDX_MSGPACK_WRITE_FLOAT32) return f32_bits(w, double_to_float_rounded(v));
    if (sdx_double_to_float_exact(v, &bits)) return f32_bits(w, bits);
    u8 tmp[9];
    sdx_buf *b;
    u8 *p;
    if (!value_fast(w, 9, &b, &p)) return value_slow(w, tmp, (size_t)(sdx_mp_w_f64((char *)tmp, v) - (char *)tmp));
    b->cur = sdx_mp_w_f64((char *)p, v);
    return SDX_OK;
}

sdx_err (sdx_msgpack_writer_double)(sdx_msgpack_writer *w, double v) {
    if (SDX_UNLIKELY(w->flags & (SDX_MSGPACK_WRITE_FLOAT32 | SDX_MSGPACK_WRITE_FLOAT32_EXACT)))
        return double_as_float(w, v);
    sdx_buf *b;
    u8 *p;
    if (SDX_UNLIKELY(!value_fast(w, 9, &b, &p))) {
        u8 tmp[9];
        return value_slow(w, tmp, (size_t)(sdx_mp_w_f64((char *)tmp, v) - (char *)tmp));
    }
    b->cur = sdx_mp_w_f64((char *)p, v);
    return SDX_OK;
}

sdx_err sdx_msgpack_writer_float(sdx_msgpack_writer *w, float v) {
    uint32_t bits;
    memcpy(&bits, &v, 4);
    return f32_bits(w, bits);
}

/* ------------------------------------------------------------------------ */
/* Strings, binaries, extensions                                            */
/* ------------------------------------------------------------------------ */

static SDX_ALWAYS_INLINE int utf8_ok(const sdx_msgpack_writer *w, const char *s, size_t n) {
    return (w->flags & SDX_MSGPACK_WRITE_NO_UTF8_CHECK) || sdx_utf8_ok(w->utf8_valid, s, n);
}

/* Header, then the bytes, for anything that does not take a fast path. */
static SDX_NOINLINE sdx_err bytes_slow(sdx_msgpack_writer *w, const u8 *head, size_t hn,
                                       const void *s, size_t n) {
    if (value_begin(w) && put_bytes(w, head, hn)) put_bytes(w, s, n);
    return w->err;
}

static SDX_NOINLINE sdx_err string_slow(sdx_msgpack_writer *w, const char *s, size_t n) {
    if (w->err) return w->err;
    if (n > 0xffffffffu) return fail(w, SDX_ERR_UNSUPPORTED);
    if (!utf8_ok(w, s, n)) return fail(w, SDX_ERR_UTF8);
    u8 head[5];
    return bytes_slow(w, head, (size_t)(enc_str_header(head, n) - head), s, n);
}

/* A fixstr of n <= 31 bytes, with 40 bytes of room at p: the header and the
 * bytes are stored with two overlapping loads and stores of 4, 8 or 16
 * bytes (never reading outside s[0, n)). Returns the end, and in *high the
 * bits of `mask` (the writer's ascii_mask) set in any byte: nonzero when the
 * string is not plain ASCII and must be validated. */
static SDX_ALWAYS_INLINE char *short_str(char *p, const char *s, size_t n, uint64_t mask,
                                         uint64_t *high) {
    p[0] = (char)(0xa0 | n);
    if (n > 16) {
        uint64_t a, b, c, d;
        memcpy(&a, s, 8);
        memcpy(&b, s + 8, 8);
        memcpy(&c, s + n - 16, 8);
        memcpy(&d, s + n - 8, 8);
        memcpy(p + 1, &a, 8);
        memcpy(p + 9, &b, 8);
        memcpy(p + 1 + n - 16, &c, 8);
        memcpy(p + 1 + n - 8, &d, 8);
        *high = (a | b | c | d) & mask;
    } else if (n >= 8) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(p + 1, &a, 8);
        memcpy(p + 1 + n - 8, &b, 8);
        *high = (a | b) & mask;
    } else if (n >= 4) {
        uint32_t x, y;
        memcpy(&x, s, 4);
        memcpy(&y, s + n - 4, 4);
        memcpy(p + 1, &x, 4);
        memcpy(p + 1 + n - 4, &y, 4);
        *high = (x | y) & mask;
    } else {
        unsigned char x = 0, y = 0, z = 0;
        if (n) {
            x = (unsigned char)s[0];
            y = (unsigned char)s[n / 2];
            z = (unsigned char)s[n - 1];
            p[1] = (char)x;
            p[1 + n / 2] = (char)y;
            p[n] = (char)z;
        }
        *high = (uint64_t)(x | y | z) & mask;
    }
    return p + 1 + n;
}

/* Longer strings, or short ones that are not plain ASCII. Up to
 * FUSED_STRING bytes the copy and the ASCII test are one pass, and only a
 * string with a byte above 0x7f goes to the UTF-8 kernel; longer ones are
 * copied with memcpy and validated by the kernel. Either way the kernel
 * reads the copy just written (in the cache) rather than the source. */
static SDX_NOINLINE sdx_err string_medium(sdx_msgpack_writer *w, const char *s, size_t n) {
    sdx_buf *b;
    u8 *p;
    if (SDX_LIKELY(n <= SMALL_STRING) && value_fast(w, n + 3, &b, &p)) {
        u8 *body = enc_str_header(p, n);
        int ok;
        if (n >= 16 && n <= FUSED_STRING) {
            ok = !sdx_inline_copy_high((char *)body, s, n) || !w->ascii_mask ||
                 sdx_utf8_non_ascii_ok(w->utf8_valid, (const char *)body, n);
        } else {
            if (n) memcpy(body, s, n); /* s may be NULL when n is 0 (doc.h) */
            ok = utf8_ok(w, (const char *)body, n);
        }
        if (SDX_LIKELY(ok)) {
            b->cur = (char *)body + n;
            return SDX_OK;
        }
        w->left++; /* not written after all: string_slow counts it */
    }
    return string_slow(w, s, n);
}

/* A short str or key that short_str has stored up to `e` but found not to
 * be plain ASCII: validated, then counted and published (a tail call, so
 * that the fast paths need no stack frame). */
static SDX_NOINLINE sdx_err short_non_ascii(sdx_msgpack_writer *w, const char *s, size_t n,
                                            char *e) {
    if (SDX_UNLIKELY(!sdx_utf8_valid_dfa(s, n))) return string_slow(w, s, n);
    w->left--;
    w->out->cur = e;
    return SDX_OK;
}

/* Whether a fixstr of n bytes goes at p inline: short_str's room and an
 * item left; with `key`, also a key due, in a map whose `left` is even (the
 * dead frame is no map). */
static SDX_ALWAYS_INLINE int fixstr_fits(const sdx_msgpack_writer *w, const sdx_buf *b,
                                         const char *p, size_t n, uint64_t left, int key) {
    if (key)
        return w->top->kind == SDX_MP_FRAME_MAP && !(left & 1) && left != 0 && n <= 31 &&
               (size_t)(b->end - p) >= 40;
    return n <= 31 && left != 0 && (size_t)(b->end - p) >= 40;
}

/* A fixstr stored up to e: validated when `high` (not plain ASCII, and
 * UTF-8 is checked), then counted and published. */
static SDX_ALWAYS_INLINE sdx_err fixstr_done(sdx_msgpack_writer *w, sdx_buf *b, const char *s,
                                             size_t n, char *e, uint64_t left, uint64_t high) {
    if (SDX_UNLIKELY(high)) return short_non_ascii(w, s, n, e);
    w->left = left - 1;
    b->cur = e;
    return SDX_OK;
}

static SDX_NOINLINE sdx_err key_slow(sdx_msgpack_writer *w, const char *s, size_t n) {
    if (w->err) return w->err;
    if (w->top->kind != SDX_MP_FRAME_MAP || (w->left & 1) || w->left == 0) return fail(w, SDX_ERR_USAGE);
    return string_medium(w, s, n);
}

#ifdef SDX_SHORT_COPY_AVX512
/* sdx_msgpack_writer_string and _key when the writer's init chose AVX-512
 * (short_avx512): the same tests, the fixstr's bytes stored without
 * branches on the length (src/simd/short_copy.h). Tail-called; a function
 * compiled for AVX-512 where a kernel of the SIMD table would be called
 * through its pointer, because that call made the fast path 8-15 % slower
 * (bench/README.md, "MessagePack short strings by one masked load"). */
SDX_TARGET_AVX512 static SDX_ALWAYS_INLINE sdx_err text_avx512(sdx_msgpack_writer *w,
                                                              const char *s, size_t n, int key) {
    sdx_buf *b = w->out;
    char *p = b->cur;
    uint64_t left = w->left;
    if (SDX_LIKELY(fixstr_fits(w, b, p, n, left, key))) {
        p[0] = (char)(0xa0 | n);
        if (SDX_UNLIKELY(sdx_copy32_avx512(p + 1, s, n) != 0 && w->ascii_mask != 0))
            return short_non_ascii(w, s, n, p + 1 + n);
        return fixstr_done(w, b, s, n, p + 1 + n, left, 0);
    }
    return key ? key_slow(w, s, n) : string_medium(w, s, n);
}

SDX_TARGET_AVX512 static SDX_NOINLINE sdx_err string_avx512(sdx_msgpack_writer *w, const char *s,
                                                           size_t n) {
    return text_avx512(w, s, n, 0);
}

SDX_TARGET_AVX512 static SDX_NOINLINE sdx_err key_avx512(sdx_msgpack_writer *w, const char *s,
                                                        size_t n) {
    return text_avx512(w, s, n, 1);
}
#endif

sdx_err sdx_msgpack_writer_string(sdx_msgpack_writer *w, const char *s, size_t n) {
#ifdef SDX_SHORT_COPY_AVX512
    if (w->short_avx512) return string_avx512(w, s, n);
#endif
    sdx_buf *b = w->out;
    char *p = b->cur;
    uint64_t left = w->left;
    if (SDX_LIKELY(fixstr_fits(w, b, p, n, left, 0))) {
        uint64_t high;
        char *e = short_str(p, s, n, w->ascii_mask, &high);
        return fixstr_done(w, b, s, n, e, left, high);
    }
    return string_medium(w, s, n);
}

sdx_err sdx_msgpack_writer_key(sdx_msgpack_writer *w, const char *s, size_t n) {
#ifdef SDX_SHORT_COPY_AVX512
    if (w->short_avx512) return key_avx512(w, s, n);
#endif
    sdx_buf *b = w->out;
    char *p = b->cur;
    uint64_t left = w->left;
    if (SDX_LIKELY(fixstr_fits(w, b, p, n, left, 1))) {
        uint64_t high;
        char *e = short_str(p, s, n, w->ascii_mask, &high);
        return fixstr_done(w, b, s, n, e, left, high);
    }
    return key_slow(w, s, n);
}

sdx_err sdx_msgpack_writer_bin(sdx_msgpack_writer *w, const void *data, size_t n) {
    if (w->err) return w->err;
    if (n > 0xffffffffu) return fail(w, SDX_ERR_UNSUPPORTED);
    u8 head[5];
    return bytes_slow(w, head, (size_t)(enc_sized_header(head, n, 0xc4) - head), data, n);
}

static sdx_err ext(sdx_msgpack_writer *w, int8_t type, const void *data, size_t n) {
    if (w->err) return w->err;
    if (n > 0xffffffffu) return fail(w, SDX_ERR_UNSUPPORTED);
    int64_t s;
    uint32_t ns;
    if (type == SDX_MSGPACK_EXT_TIMESTAMP && (!data || !sdx_msgpack_ts_decode(data, n, &s, &ns)))
        return fail(w, SDX_ERR_INVALID_ARG);
    u8 head[6];
    return bytes_slow(w, head, (size_t)(enc_ext_header(head, type, n) - head), data, n);
}

sdx_err sdx_msgpack_writer_ext(sdx_msgpack_writer *w, int8_t type, const void *data, size_t n) {
    return ext(w, type, data, n);
}

sdx_err sdx_msgpack_writer_timestamp(sdx_msgpack_writer *w, int64_t sec, uint32_t nsec) {
    if (w->err) return w->err;
    if (nsec >= 1000000000u) return fail(w, SDX_ERR_INVALID_ARG);
    u8 tmp[15], *p = tmp;
    if (((uint64_t)sec >> 34) == 0) {
        if (nsec == 0 && ((uint64_t)sec >> 32) == 0) {
            p[0] = 0xd6;
            p[1] = 0xff;
            sdx_store_be32(p + 2, (uint32_t)sec);
            p += 6;
        } else {
            p[0] = 0xd7;
            p[1] = 0xff;
            sdx_store_be64(p + 2, (uint64_t)nsec << 34 | (uint64_t)sec);
            p += 10;
        }
    } else {
        p[0] = 0xc7;
        p[1] = 12;
        p[2] = 0xff;
        sdx_store_be32(p + 3, nsec);
        sdx_store_be64(p + 7, (uint64_t)sec);
        p += 15;
    }
    return value_slow(w, tmp, (size_t)(p - tmp));
}

/* ------------------------------------------------------------------------ */
/* Containers                                                                */
/* ------------------------------------------------------------------------ */

static SDX_NOINLINE int grow_frames(sdx_msgpack_writer *w) {
    sdx_err e = SDX_OK;
    const size_t depth = (size_t)(w->top - w->frames);
    sdx_msgpack_frame *f = sdx_grow_frames(&w->alloc, w->frames, w->inline_frames, &w->cap, sizeof *f, &e);
    if (!f) {
        fail(w, e);
        return 0;
    }
    w->frames = f;
    w->last = f + w->cap - 1;
    w->top = f + depth;
    return 1;
}

static SDX_NOINLINE sdx_err begin_slow(sdx_msgpack_writer *w, uint64_t count, uint8_t kind) {
    if (w->err) return w->err;
    if (count > 0xffffffffu && count != SDX_COUNT_UNKNOWN) return fail(w, SDX_ERR_UNSUPPORTED);
    if (w->top >= w->last && !grow_frames(w)) return w->err;
    if (!value_begin(w)) return w->err;
    sdx_buf *b = w->out;
    uint64_t header = sdx_buf_total(b);
    u8 head[5];
    size_t hn = (size_t)(sdx_mp_w_container((char *)head, count == SDX_COUNT_UNKNOWN ? 0 : count,
                                            kind == SDX_MP_FRAME_MAP) - (char *)head);
    /* A header to patch is pinned before it is written: unpinned, a write
     * of the chunk's size or more into a full stream buffer goes straight
     * to the stream, and the end would patch bytes the buffer no longer
     * holds. */
    const uint8_t pinned = count == SDX_COUNT_UNKNOWN && b->mode == SDX_BUF_STREAM && b->pin == UINT64_MAX;
    if (pinned) b->pin = header;
    if (!put_bytes(w, head, hn)) {
        if (pinned) sdx_buf_unpin(b);
        return w->err;
    }
    w->top->left = w->left; /* the enclosing container's, kept while this one is open */
    sdx_msgpack_frame *f = ++w->top;
    f->kind = kind;
    f->pinned = pinned;
    if (count == SDX_COUNT_UNKNOWN) {
        w->left = kind == SDX_MP_FRAME_MAP ? SDX_WCOUNT_UNKNOWN_MAP : SDX_WCOUNT_UNKNOWN_ARRAY;
        f->header = header;
    } else {
        w->left = kind == SDX_MP_FRAME_MAP ? 2 * count : count;
    }
    return SDX_OK;
}

/* Fast path for a known count (the header's, shared with the inline
 * functions); everything unusual is begin_slow's. */
static SDX_ALWAYS_INLINE sdx_err begin(sdx_msgpack_writer *w, uint64_t count, uint8_t kind) {
    if (SDX_LIKELY(sdx_mp_w_begin(w, count, kind == SDX_MP_FRAME_MAP))) return SDX_OK;
    return begin_slow(w, count, kind);
}

sdx_err (sdx_msgpack_writer_begin_array)(sdx_msgpack_writer *w, uint64_t count) {
    return begin(w, count, SDX_MP_FRAME_ARRAY);
}

sdx_err (sdx_msgpack_writer_begin_map)(sdx_msgpack_writer *w, uint64_t count) {
    return begin(w, count, SDX_MP_FRAME_MAP);
}

/* Close a container of unknown count: the one-byte header written at begin
 * becomes the smallest header for the count, the content moving up when
 * that header is longer. */
static sdx_err end_unknown(sdx_msgpack_writer *w, sdx_msgpack_frame *f) {
    int map = f->kind == SDX_MP_FRAME_MAP;
    uint64_t items = (map ? SDX_WCOUNT_UNKNOWN_MAP : SDX_WCOUNT_UNKNOWN_ARRAY) - w->left;
    if (map && (items & 1)) return fail(w, SDX_ERR_USAGE); /* a key without its value */
    uint64_t count = map ? items / 2 : items;
    if (count > 0xffffffffu) return fail(w, SDX_ERR_UNSUPPORTED);
    sdx_buf *b = w->out;
    u8 head[5];
    size_t hn = (size_t)(sdx_mp_w_container((char *)head, count, map) - (char *)head);
    if (!sdx_buf_replace_head(b, f->header, 1, head, hn)) return fail_buf(w);
    if (f->pinned) sdx_buf_unpin(b);
    return SDX_OK;
}

static SDX_NOINLINE sdx_err end_slow(sdx_msgpack_writer *w) {
    if (w->err) return w->err;
    sdx_msgpack_frame *f = w->top;
    /* only a container closes: not the root, nor the dead frame after finish */
    if (f->kind != SDX_MP_FRAME_ARRAY && f->kind != SDX_MP_FRAME_MAP) return fail(w, SDX_ERR_USAGE);
    if (w->left >= SDX_WCOUNT_UNKNOWN_MIN) {
        if (end_unknown(w, f)) return w->err;
    } else if (w->left != 0) {
        return fail(w, SDX_ERR_USAGE);
    }
    w->top--;
    w->left = w->top->left;
    return SDX_OK;
}

sdx_err (sdx_msgpack_writer_end)(sdx_msgpack_writer *w) {
    if (SDX_LIKELY(sdx_mp_w_end(w))) return SDX_OK;
    return end_slow(w);
}

/* ------------------------------------------------------------------------ */
/* Events, sink, finish                                                      */
/* ------------------------------------------------------------------------ */

static SDX_NOINLINE sdx_err put_ext_event(sdx_msgpack_writer *w, const sdx_event *ev) {
    int64_t type = (int64_t)ev->tag;
    if (type < INT8_MIN || type > INT8_MAX) {
        if (w->err) return w->err;
        return fail(w, SDX_ERR_INVALID_ARG);
    }
    return ext(w, (int8_t)type, ev->v.str.ptr, ev->v.str.len);
}

static SDX_NOINLINE sdx_err put_float32_event(sdx_msgpack_writer *w, double d) {
    uint32_t bits;
    if (!(w->flags & SDX_MSGPACK_WRITE_FLOAT32) && sdx_double_to_float_exact(d, &bits))
        return f32_bits(w, bits);
    return sdx_msgpack_writer_double(w, d);
}

sdx_err sdx_msgpack_writer_put(sdx_msgpack_writer *w, const sdx_event *ev) {
    switch ((sdx_kind)ev->kind) {
    case SDX_NULL: return sdx_msgpack_writer_null(w);
    case SDX_BOOL: return sdx_msgpack_writer_bool(w, ev->v.b);
    case SDX_INT: return sdx_msgpack_writer_int(w, ev->v.i);
    case SDX_UINT: return sdx_msgpack_writer_uint(w, ev->v.u);
    case SDX_DOUBLE:
        if (SDX_UNLIKELY(ev->flags & SDX_EVENT_FLOAT32)) return put_float32_event(w, ev->v.d);
        return sdx_msgpack_writer_double(w, ev->v.d);
    case SDX_STR: return sdx_msgpack_writer_string(w, ev->v.str.ptr, ev->v.str.len);
    case SDX_BIN:
        if (SDX_UNLIKELY(ev->tag_kind == SDX_TAG_MSGPACK_EXT)) return put_ext_event(w, ev);
        return sdx_msgpack_writer_bin(w, ev->v.str.ptr, ev->v.str.len);
    case SDX_ARRAY: return sdx_msgpack_writer_begin_array(w, ev->v.count);
    case SDX_MAP: return sdx_msgpack_writer_begin_map(w, ev->v.count);
    case SDX_KEY: return sdx_msgpack_writer_key(w, ev->v.str.ptr, ev->v.str.len);
    case SDX_END: return sdx_msgpack_writer_end(w);
    case SDX_RAW:  /* no such numbers in MessagePack */
    case SDX_NINT: /* below INT64_MIN: MessagePack's integers stop there */
        break;
    case SDX_TAG: return w->err; /* MessagePack has no such tags (common.h) */
    }
    if (w->err) return w->err;
    return fail(w, sdx_put_refusal(ev->kind));
}

/* sdx_msgpack_writer_node: the document walk of core/node_walk.h with this
 * writer's calls (the same calls sdx_msgpack_writer_put makes for each kind). */
#define NODE_WALK_WRITER sdx_msgpack_writer
#define NODE_WALK_OWN
#define NODE_WALK_BIN(w, s, n) sdx_msgpack_writer_bin(w, s, n)
#include "core/node_walk.h"

/* The document's own walk for the common case: a memory buffer, float64
 * doubles (no SDX_MSGPACK_WRITE_FLOAT32 or _FLOAT32_EXACT), and a value made
 * only of untagged null, bool, int, uint, double not read from a float32 or
 * float16, str, bin, array and map (of fewer than 2^32 elements or bytes).
 * MessagePack's containers carry their counts and need no end, so every
 * value slot, in order, gives its own bytes: one pass over the value array
 * with no stack, no per-value call and no writer state until the end.
 * Anything else (a tag, raw number text, an integer below INT64_MIN, a
 * string that is not UTF-8) rewinds the buffer to where the value began,
 * leaves the writer as it was and returns 0: walk_node then writes the
 * value with the writer's calls, with exactly their output and errors.
 * Strings are copied and checked as sdx_msgpack_writer_string does; one
 * the JSON parser marked SDX_VAL_NOESC is valid UTF-8 already. Returns 1
 * when written, -1 with the writer's error when the buffer cannot grow. */
#define NODE_FAST_ROOM 40 /* a header and up to 31 bytes (short_str's room) */

static int node_fast(sdx_msgpack_writer *w, sdx_node n) {
    sdx_buf *b = w->out;
    if (w->err || w->left == 0 || b->mode != SDX_BUF_MEMORY ||
        (w->flags & (SDX_MSGPACK_WRITE_FLOAT32 | SDX_MSGPACK_WRITE_FLOAT32_EXACT)) ||
        sdx_val_tags_start(n.doc, n.val) != n.val)
        return 0;
    const size_t start = (size_t)(b->cur - b->start);
    int rc = 0;
    const uint64_t mask = w->ascii_mask;
    const sdx_val *v = n.val, *end = sdx_val_next(n.val);
    char *p = b->cur;
    for (; v < end; v++) {
        NODE_WALK_NEED(b, p, NODE_FAST_ROOM, back);
        /* tests, not a switch (NODE_WALK_BIT, core/node_walk.h) */
        const unsigned t = SDX_VAL_TYPE(v);
        const uint32_t bit = NODE_WALK_BIT(t);
        if (t == SDX_TYPE_STR) {
            size_t sn = (size_t)SDX_VAL_LEN(v);
            const char *s = v->v.s;
            uint64_t m = v->tag & SDX_VAL_NOESC ? 0 : mask;
            if (sn <= 31) {
                uint64_t high;
                p = short_str(p, s, sn, m, &high);
                if (SDX_UNLIKELY(high) && !sdx_utf8_valid_dfa(s, sn)) goto back;
                continue;
            }
            if (sn > 0xffffffffu) goto back;
            NODE_WALK_NEED(b, p, sn + 5, back);
            char *body = sdx_mp_w_str_head(p, sn);
            int ok;
            if (sn <= FUSED_STRING)
                ok = !sdx_inline_copy_high(body, s, sn) || !m ||
                     sdx_utf8_non_ascii_ok(w->utf8_valid, body, sn);
            else {
                memcpy(body, s, sn);
                ok = !m || sdx_utf8_ok(w->utf8_valid, body, sn);
            }
            if (!ok) goto back;
            p = body + sn;
        } else if (bit & NODE_WALK_BIT(SDX_TYPE_INT)) {
            p = sdx_mp_w_int(p, v->v.i);
        } else if (bit & NODE_WALK_BIT(SDX_TYPE_DOUBLE)) {
            if (v->tag & (SDX_VAL_FLOAT32 | SDX_VAL_FLOAT16)) goto back;
            p = sdx_mp_w_f64(p, v->v.d);
        } else if (bit & (NODE_WALK_BIT(SDX_TYPE_ARRAY) | NODE_WALK_BIT(SDX_TYPE_MAP))) {
            if (SDX_VAL_LEN(v) > 0xffffffffu) goto back;
            p = sdx_mp_w_container(p, SDX_VAL_LEN(v), t == SDX_TYPE_MAP);
        } else if (bit & NODE_WALK_BIT(SDX_TYPE_BOOL)) {
            *p++ = (char)(v->v.u ? 0xc3 : 0xc2);
        } else if (bit & NODE_WALK_BIT(SDX_TYPE_NULL)) {
            *p++ = (char)0xc0;
        } else if (bit & NODE_WALK_BIT(SDX_TYPE_UINT)) {
            p = sdx_mp_w_uint(p, v->v.u);
        } else if (bit & NODE_WALK_BIT(SDX_TYPE_BIN)) {
            size_t bn = (size_t)SDX_VAL_LEN(v);
            if (bn > 0xffffffffu) goto back;
            NODE_WALK_NEED(b, p, bn + 5, back);
            char *body = sdx_mp_w_sized_head(p, bn, 0xc4);
            if (bn) memcpy(body, v->v.s, bn);
            p = body + bn;
        } else {
            goto back; /* a tag, RAW, NINT (or a corrupted slot) */
        }
    }
    rc = 1;
back:
    rc = node_walk_end(b, rc, p, start);
    if (rc > 0) w->left--;
    if (rc < 0) fail_buf(w); /* the buffer could not grow: the writer's error */
    return rc;
}

sdx_err sdx_msgpack_writer_node(sdx_msgpack_writer *w, sdx_node n) { return walk_node_fast(w, n, node_fast); }

sdx_err sdx_msgpack_writer_finish(sdx_msgpack_writer *w) {
    if (!w->err) {
        int sequence = (w->flags & SDX_MSGPACK_WRITE_SEQUENCE) != 0;
        if (w->top != w->frames || (!sequence && w->left != 0))
            fail(w, SDX_ERR_USAGE);
        else if (sdx_buf_flush(w->out))
            fail_buf(w);
    }
    if (w->frames != w->inline_frames) w->alloc.free(w->alloc.ctx, w->frames);
    w->frames = w->inline_frames;
    w->cap = SDX_MSGPACK_WRITER_INLINE_DEPTH;
    w->last = w->frames; /* nothing opens inline */
    w->top = &dead_frame; /* nothing more is accepted */
    w->left = 0;
    return w->err;
}

static sdx_err sink_put(void *ctx, const sdx_event *ev) {
    return sdx_msgpack_writer_put((sdx_msgpack_writer *)ctx, ev);
}

static sdx_err sink_finish(void *ctx) {
    return sdx_msgpack_writer_finish((sdx_msgpack_writer *)ctx);
}

static const sdx_sink_vt msgpack_sink_vt = {sink_put, sink_finish};

sdx_sink sdx_msgpack_writer_sink(sdx_msgpack_writer *w) {
    sdx_sink s = {&msgpack_sink_vt, w};
    return s;
}
