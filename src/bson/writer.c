/*
 * The streaming BSON writer (bsonspec.org 1.1).
 *
 * A document starts with its int32 length, which is known only at its end:
 * the writer puts four placeholder bytes there and back-patches them when
 * the document closes. The buffer is pinned (sdx_buf_pin) from the root
 * document's first byte to its last, so that a stream buffer keeps every
 * byte that may still be patched; a stream that can patch what it flushed
 * (sdx_buf_set_patch) is not pinned, and the lengths and type bytes that
 * left the buffer are patched through it.
 *
 * An element starts with its type byte, then its key, but a map's key
 * arrives before its value: the key is written at once behind a
 * placeholder type byte, whose position the frame keeps, and the value
 * sets it. Array elements get their keys "0", "1", ... with their value.
 *
 * Every piece goes into room reserved with sdx_buf_reserve (inline while
 * the buffer has it); strings and keys are checked for UTF-8 with the
 * inline ASCII test and the SIMD table's kernel.
 */
#include <string.h>

#include "bson/bson_internal.h"
#include "core/backpatch.h"
#include "core/endian.h"
#include "core/utf8.h"
#include "num/itoa.h"
#include "sdx/bson.h"
#include "simd/simd.h"

typedef uint8_t u8;

static sdx_err fail(sdx_bson_writer *w, sdx_err err) {
    if (!w->err) w->err = err;
    return w->err;
}

sdx_err sdx_bson_writer_init(sdx_bson_writer *w, sdx_buf *out, const sdx_bson_write_opts *opts) {
    static const sdx_bson_write_opts defaults = {0, NULL};
    if (!opts) opts = &defaults;
    const uint32_t known = SDX_BSON_WRITE_NO_UTF8_CHECK | SDX_BSON_WRITE_WRAP_ROOT |
                           SDX_BSON_WRITE_BIG_DOUBLE | SDX_BSON_WRITE_SEQUENCE;
    w->out = out;
    w->err = SDX_OK;
    w->flags = opts->flags;
    w->alloc = *(opts->alloc ? opts->alloc : sdx_alloc_default());
    w->frames = w->inline_frames;
    w->depth = 0;
    w->cap = SDX_BSON_WRITER_INLINE_DEPTH;
    w->roots = 0;
    w->wrapped = 0;
    w->utf8_valid = sdx_simd_active()->utf8_valid_prefix;
    if (opts->flags & ~known) return fail(w, SDX_ERR_INVALID_ARG);
    return SDX_OK;
}

/* ------------------------------------------------------------------------ */
/* Bookkeeping                                                               */
/* ------------------------------------------------------------------------ */

static int utf8_ok(const sdx_bson_writer *w, const char *s, size_t n) {
    return (w->flags & SDX_BSON_WRITE_NO_UTF8_CHECK) || sdx_utf8_ok(w->utf8_valid, s, n);
}

/* Room for n bytes at the buffer's position, or NULL with the sticky
 * error set. */
static char *reserve(sdx_bson_writer *w, size_t n) {
    char *p = sdx_buf_reserve(w->out, n);
    if (!p) fail(w, w->out->err ? w->out->err : SDX_ERR_NOMEM);
    return p;
}

/* Rewrite n bytes written earlier at total offset `at` (a length or a
 * type byte) that the buffer no longer holds: only a stream that may patch
 * what it flushed (sdx_buf_set_patch) lets them go before they are final.
 * 0 with the sticky error set when that fails. The callers rewrite bytes
 * still held in place themselves. */
static SDX_NOINLINE int rewrite_flushed(sdx_bson_writer *w, uint64_t at, const void *data, size_t n) {
    if (sdx_buf_patch(w->out, at, data, n)) {
        fail(w, w->out->err);
        return 0;
    }
    return 1;
}

/* The same for one byte, taken by value (its address is taken here, not
 * in the caller's hot path). */
static SDX_NOINLINE int rewrite_flushed_byte(sdx_bson_writer *w, uint64_t at, u8 c) {
    return rewrite_flushed(w, at, &c, 1);
}

/* Append bytes; 0 with the sticky error set when the buffer fails. */
static int put_bytes(sdx_bson_writer *w, const void *s, size_t n) {
    if (!n) return 1;
    char *p = reserve(w, n);
    if (!p) return 0;
    memcpy(p, s, n);
    w->out->cur = p + n;
    return 1;
}

/* Whether another root document may start. */
static int root_allowed(sdx_bson_writer *w) {
    if (w->roots && !(w->flags & SDX_BSON_WRITE_SEQUENCE)) {
        fail(w, SDX_ERR_USAGE);
        return 0;
    }
    return 1;
}

/* Push a frame and write the placeholder length of a document. At the
 * root, pin the buffer so that the whole document stays patchable, unless
 * the buffer can patch bytes it has flushed. */
static int open_doc(sdx_bson_writer *w, int array) {
    if (w->depth == w->cap) {
        size_t cap = w->cap * 2;
        if (cap > SIZE_MAX / sizeof(sdx_bson_frame)) {
            fail(w, SDX_ERR_NOMEM);
            return 0;
        }
        sdx_bson_frame *f =
            w->frames == w->inline_frames
                ? w->alloc.malloc(w->alloc.ctx, cap * sizeof *f)
                : w->alloc.realloc(w->alloc.ctx, w->frames, w->cap * sizeof *f, cap * sizeof *f);
        if (!f) {
            fail(w, SDX_ERR_NOMEM);
            return 0;
        }
        if (w->frames == w->inline_frames) memcpy(f, w->inline_frames, sizeof w->inline_frames);
        w->frames = f;
        w->cap = cap;
    }
    if (w->depth == 0 && !sdx_buf_patchable(w->out)) sdx_buf_pin(w->out);
    sdx_bson_frame *f = &w->frames[w->depth++];
    f->start = sdx_buf_total(w->out);
    f->index = 0;
    f->type_at = 0;
    f->array = (u8)array;
    f->key_due = 1;
    static const u8 zero[4] = {0, 0, 0, 0};
    return put_bytes(w, zero, 4);
}

/* Start an element of type `type` where a value may come: in an array its
 * type byte and generated key; in a map the type byte placed before the
 * key already written. A root scalar is wrapped as {"0": value} when asked
 * for (SDX_ERR_UNSUPPORTED otherwise). */
static int value_begin(sdx_bson_writer *w, u8 type) {
    if (w->err) return 0;
    if (w->depth == 0) {
        if (!(w->flags & SDX_BSON_WRITE_WRAP_ROOT)) {
            fail(w, SDX_ERR_UNSUPPORTED);
            return 0;
        }
        if (!root_allowed(w) || !open_doc(w, 1)) return 0;
        w->wrapped = 1;
    }
    sdx_bson_frame *f = &w->frames[w->depth - 1];
    if (f->array) {
        /* the type byte, the index in decimal, NUL: exactly that much
         * reserved, as a fixed buffer may have no more */
        uint64_t i = f->index++;
        size_t nd = 1;
        for (uint64_t t = i; t >= 10; t /= 10) nd++;
        char *p = reserve(w, nd + 2);
        if (!p) return 0;
        p[0] = (char)type;
        for (size_t k = nd; k; k--, i /= 10) p[k] = (char)('0' + i % 10);
        p[1 + nd] = 0;
        w->out->cur = p + nd + 2;
        return 1;
    }
    if (f->key_due) {
        fail(w, SDX_ERR_USAGE);
        return 0;
    }
    sdx_buf *b = w->out;
    if (SDX_LIKELY(f->type_at >= b->flushed)) *sdx_buf_at(b, f->type_at) = (char)type;
    else if (!rewrite_flushed_byte(w, f->type_at, type)) return 0;
    f->key_due = 1;
    return 1;
}

/* Close the innermost document: terminator, then its length. */
static sdx_err close_doc(sdx_bson_writer *w) {
    sdx_bson_frame *f = &w->frames[w->depth - 1];
    static const u8 nul = 0;
    if (!put_bytes(w, &nul, 1)) return w->err;
    uint64_t len = sdx_buf_total(w->out) - f->start;
    if (len > SDX_BSON_MAX_SIZE) return fail(w, SDX_ERR_LIMIT);
    sdx_buf *b = w->out;
    if (SDX_LIKELY(f->start >= b->flushed)) {
        sdx_store_le32(sdx_buf_at(b, f->start), (uint32_t)len);
    } else {
        u8 le[4];
        sdx_store_le32(le, (uint32_t)len);
        if (!rewrite_flushed(w, f->start, le, 4)) return w->err;
    }
    if (--w->depth == 0) {
        sdx_buf_unpin(w->out);
        w->roots++;
    }
    return SDX_OK;
}

/* After a scalar: a wrapped root scalar's document closes. */
static sdx_err value_done(sdx_bson_writer *w) {
    if (w->err) return w->err;
    if (w->wrapped && w->depth == 1) {
        w->wrapped = 0;
        return close_doc(w);
    }
    return SDX_OK;
}

/* One element whose value is the n bytes at v (n may be 0). */
static sdx_err element(sdx_bson_writer *w, u8 type, const void *v, size_t n) {
    if (value_begin(w, type)) put_bytes(w, v, n);
    return value_done(w);
}

/* ------------------------------------------------------------------------ */
/* Values                                                                    */
/* ------------------------------------------------------------------------ */

sdx_err sdx_bson_writer_null(sdx_bson_writer *w) { return element(w, SDX_BSON_NULL, NULL, 0); }

sdx_err sdx_bson_writer_bool(sdx_bson_writer *w, bool v) {
    u8 b = v ? 1 : 0;
    return element(w, SDX_BSON_BOOL, &b, 1);
}

static sdx_err int32_el(sdx_bson_writer *w, int64_t v) {
    u8 b[4];
    sdx_store_le32(b, (uint32_t)(int32_t)v);
    return element(w, SDX_BSON_INT32, b, 4);
}

/* An 8-byte little-endian value of type `type` (int64, datetime,
 * timestamp). */
static sdx_err u64_el(sdx_bson_writer *w, u8 type, uint64_t v) {
    u8 b[8];
    sdx_store_le64(b, v);
    return element(w, type, b, 8);
}

sdx_err sdx_bson_writer_int(sdx_bson_writer *w, int64_t v) {
    if (v >= INT32_MIN && v <= INT32_MAX) return int32_el(w, v);
    return u64_el(w, SDX_BSON_INT64, (uint64_t)v);
}

sdx_err sdx_bson_writer_double(sdx_bson_writer *w, double v) {
    uint64_t bits;
    memcpy(&bits, &v, 8);
    return u64_el(w, SDX_BSON_DOUBLE, bits);
}

sdx_err sdx_bson_writer_uint(sdx_bson_writer *w, uint64_t v) {
    if (v <= INT64_MAX) return sdx_bson_writer_int(w, (int64_t)v);
    if (w->flags & SDX_BSON_WRITE_BIG_DOUBLE) return sdx_bson_writer_double(w, (double)v);
    if (w->err) return w->err;
    return fail(w, SDX_ERR_RANGE);
}

/* A string-valued element (string, code, symbol): int32 length counting
 * the NUL, the bytes, NUL. */
static sdx_err string_el(sdx_bson_writer *w, u8 type, const char *s, size_t len) {
    if (w->err) return w->err;
    if (len >= SDX_BSON_MAX_SIZE) return fail(w, SDX_ERR_LIMIT);
    if (!utf8_ok(w, s, len)) return fail(w, SDX_ERR_UTF8);
    if (value_begin(w, type)) {
        /* length, bytes and NUL in one reservation */
        char *p = reserve(w, len + 5);
        if (!p) return w->err;
        sdx_store_le32(p, (uint32_t)len + 1);
        if (len) memcpy(p + 4, s, len);
        p[4 + len] = 0;
        w->out->cur = p + len + 5;
    }
    return value_done(w);
}

sdx_err sdx_bson_writer_string(sdx_bson_writer *w, const char *s, size_t len) {
    return string_el(w, SDX_BSON_STRING, s, len);
}

sdx_err sdx_bson_writer_binary(sdx_bson_writer *w, uint8_t subtype, const void *data, size_t len) {
    if (w->err) return w->err;
    /* subtype 0x02 (old binary) repeats the data's length inside */
    size_t inner = subtype == 0x02 ? 4 : 0;
    if (len > SDX_BSON_MAX_SIZE - 16) return fail(w, SDX_ERR_LIMIT);
    u8 head[9];
    sdx_store_le32(head, (uint32_t)(len + inner));
    head[4] = subtype;
    if (inner) sdx_store_le32(head + 5, (uint32_t)len);
    if (value_begin(w, SDX_BSON_BINARY) && put_bytes(w, head, 5 + inner)) put_bytes(w, data, len);
    return value_done(w);
}

/* ------------------------------------------------------------------------ */
/* Composite values given as their BSON bytes                                */
/* ------------------------------------------------------------------------ */

/* A regular expression's value: pattern NUL options NUL, nothing else. */
static int regex_ok(const sdx_bson_writer *w, const u8 *p, size_t n) {
    if (n < 2 || p[n - 1] != 0) return 0;
    const u8 *nul = memchr(p, 0, n);
    size_t i = (size_t)(nul - p);
    if (i == n - 1 || memchr(p + i + 1, 0, n - 1 - (i + 1))) return 0;
    return utf8_ok(w, (const char *)p, i) && utf8_ok(w, (const char *)p + i + 1, n - 2 - i);
}

/* A string value at p: int32 length L >= 1 counting the NUL, L bytes the
 * last of which is NUL, within n bytes; stores L. */
static int string_value_ok(const sdx_bson_writer *w, const u8 *p, size_t n, size_t *len) {
    if (n < 5) return 0;
    uint32_t l = sdx_load_le32(p);
    if (l < 1 || l > n - 4 || p[4 + l - 1] != 0) return 0;
    *len = l;
    return utf8_ok(w, (const char *)p + 4, l - 1);
}

/* A DBPointer's value: a string, then a 12-byte ObjectId. */
static int dbpointer_ok(const sdx_bson_writer *w, const u8 *p, size_t n) {
    size_t l;
    return string_value_ok(w, p, n, &l) && 4 + l + 12 == n;
}

/* A code with scope's value: int32 total length (= n), a string, a
 * document filling the rest, which must be a well-formed document (checked
 * with the reader's rules). SDX_OK, SDX_ERR_INVALID_ARG or SDX_ERR_NOMEM. */
static sdx_err code_w_scope_check(sdx_bson_writer *w, const u8 *p, size_t n) {
    size_t l;
    if (n < 4 + 5 + 5 || sdx_load_le32(p) != n || !string_value_ok(w, p + 4, n - 4, &l))
        return SDX_ERR_INVALID_ARG;
    size_t doc = 4 + 4 + l;
    if (n - doc < 5) return SDX_ERR_INVALID_ARG;
    sdx_err err;
    if (sdx_bson_valid_document(p + doc, n - doc, (w->flags & SDX_BSON_WRITE_NO_UTF8_CHECK) != 0,
                                SDX_BSON_DEFAULT_MAX_DEPTH, &w->alloc, &err))
        return SDX_OK;
    return err == SDX_ERR_NOMEM ? SDX_ERR_NOMEM : SDX_ERR_INVALID_ARG;
}

/* ------------------------------------------------------------------------ */
/* Documents                                                                 */
/* ------------------------------------------------------------------------ */

/* Open a document written as element type `type` (0x03 or 0x04) whose keys
 * are generated ("0", "1", ...) when `array`. At the root: a map, or an
 * array when wrapping is asked for. */
static sdx_err begin_doc(sdx_bson_writer *w, u8 type, int array) {
    if (w->err) return w->err;
    if (w->depth == 0) {
        if (array && !(w->flags & SDX_BSON_WRITE_WRAP_ROOT)) return fail(w, SDX_ERR_UNSUPPORTED);
        if (root_allowed(w)) open_doc(w, array);
        return w->err;
    }
    if (value_begin(w, type)) open_doc(w, array);
    return w->err;
}

sdx_err sdx_bson_writer_begin_map(sdx_bson_writer *w, uint64_t count) {
    (void)count;
    return begin_doc(w, SDX_BSON_DOCUMENT, 0);
}

sdx_err sdx_bson_writer_begin_array(sdx_bson_writer *w, uint64_t count) {
    (void)count;
    return begin_doc(w, SDX_BSON_ARRAY, 1);
}

/* What key_scan finds in a key: a NUL byte (which a BSON key, a C
 * string, cannot hold), a byte above 0x7f (the key needs the UTF-8
 * check). */
enum { KEY_NUL = 1, KEY_HIGH = 2 };

/* One pass over a key, eight bytes at a time (a word has a zero byte iff
 * (x - 0x01..01) & ~x & 0x80..80 is non-zero: the classic bit trick, see
 * "Bit Twiddling Hacks", "Determine if a word has a zero byte"), the last
 * word overlapping the one before it. */
static int key_scan(const char *s, size_t n) {
    const uint64_t ones = UINT64_C(0x0101010101010101), highs = UINT64_C(0x8080808080808080);
    uint64_t zero = 0, high = 0, x;
    if (n >= 8) {
        for (size_t i = 0; i + 8 < n; i += 8) {
            memcpy(&x, s + i, 8);
            zero |= (x - ones) & ~x & highs;
            high |= x;
        }
        memcpy(&x, s + n - 8, 8);
        zero |= (x - ones) & ~x & highs;
        high |= x;
    } else {
        for (size_t i = 0; i < n; i++) {
            x = (unsigned char)s[i];
            zero |= x == 0;
            high |= x;
        }
    }
    return (zero ? KEY_NUL : 0) | (high & highs ? KEY_HIGH : 0);
}

sdx_err sdx_bson_writer_key(sdx_bson_writer *w, const char *s, size_t len) {
    if (w->err) return w->err;
    if (w->depth == 0) return fail(w, SDX_ERR_USAGE);
    sdx_bson_frame *f = &w->frames[w->depth - 1];
    if (f->array || !f->key_due) return fail(w, SDX_ERR_USAGE);
    if (len >= SDX_BSON_MAX_SIZE) return fail(w, SDX_ERR_LIMIT);
    /* the placeholder type byte (the value sets it), the key, NUL: copied
     * first, then checked, in one reservation */
    char *p = reserve(w, len + 2);
    if (!p) return w->err;
    p[0] = 0;
    if (len) memcpy(p + 1, s, len);
    p[len + 1] = 0;
    int k = key_scan(s, len);
    if (k & KEY_NUL) return fail(w, SDX_ERR_KEY);
    if ((k & KEY_HIGH) && !utf8_ok(w, s, len)) return fail(w, SDX_ERR_UTF8);
    f->type_at = sdx_buf_total(w->out);
    f->key_due = 0;
    w->out->cur = p + len + 2;
    return SDX_OK;
}

sdx_err sdx_bson_writer_end(sdx_bson_writer *w) {
    if (w->err) return w->err;
    if (w->depth == 0 || w->wrapped) return fail(w, SDX_ERR_USAGE);
    sdx_bson_frame *f = &w->frames[w->depth - 1];
    if (!f->array && !f->key_due) return fail(w, SDX_ERR_USAGE);
    return close_doc(w);
}

/* ------------------------------------------------------------------------ */
/* Events                                                                    */
/* ------------------------------------------------------------------------ */

/* The BSON tag of an event, or -1 when it has none (untagged or another
 * format's tag). */
static int64_t bson_tag(const sdx_event *ev) {
    if (ev->tag_kind != SDX_TAG_BSON) return -1;
    return ev->tag > 0xffff ? 0x10000 : (int64_t)ev->tag;
}

static sdx_err unsupported(sdx_bson_writer *w) {
    if (w->err) return w->err;
    return fail(w, SDX_ERR_UNSUPPORTED);
}

static sdx_err invalid(sdx_bson_writer *w) {
    if (w->err) return w->err;
    return fail(w, SDX_ERR_INVALID_ARG);
}

static sdx_err put_int(sdx_bson_writer *w, int64_t tag, int64_t v) {
    switch (tag) {
    case -1: return sdx_bson_writer_int(w, v);
    case SDX_BSON_INT32:
        if (v < INT32_MIN || v > INT32_MAX) return w->err ? w->err : fail(w, SDX_ERR_RANGE);
        return int32_el(w, v);
    case SDX_BSON_INT64: return u64_el(w, SDX_BSON_INT64, (uint64_t)v);
    case SDX_BSON_DATETIME: return u64_el(w, SDX_BSON_DATETIME, (uint64_t)v);
    case SDX_BSON_TIMESTAMP:
        if (v < 0) return w->err ? w->err : fail(w, SDX_ERR_RANGE);
        return u64_el(w, SDX_BSON_TIMESTAMP, (uint64_t)v);
    default: return unsupported(w);
    }
}

static sdx_err put_bin(sdx_bson_writer *w, int64_t tag, const u8 *p, size_t n) {
    if (tag == -1) return sdx_bson_writer_binary(w, 0, p, n);
    if ((tag & 0xff) == SDX_BSON_BINARY && tag <= 0xffff)
        return sdx_bson_writer_binary(w, (uint8_t)(tag >> 8), p, n);
    switch (tag) {
    case SDX_BSON_OBJECTID:
        if (n != 12) return invalid(w);
        return element(w, SDX_BSON_OBJECTID, p, n);
    case SDX_BSON_DECIMAL128:
        if (n != 16) return invalid(w);
        return element(w, SDX_BSON_DECIMAL128, p, n);
    case SDX_BSON_REGEX:
        if (!regex_ok(w, p, n)) return invalid(w);
        return element(w, SDX_BSON_REGEX, p, n);
    case SDX_BSON_DBPOINTER:
        if (!dbpointer_ok(w, p, n)) return invalid(w);
        return element(w, SDX_BSON_DBPOINTER, p, n);
    case SDX_BSON_CODE_W_SCOPE: {
        if (n > SDX_BSON_MAX_SIZE) return invalid(w);
        sdx_err e = code_w_scope_check(w, p, n);
        if (e) return fail(w, e);
        return element(w, SDX_BSON_CODE_W_SCOPE, p, n);
    }
    default: return unsupported(w);
    }
}

sdx_err sdx_bson_writer_put(sdx_bson_writer *w, const sdx_event *ev) {
    if (w->err) return w->err;
    /* a value in key position (a MessagePack or CBOR map's non-string
     * key): BSON keys are strings */
    if (w->depth && !w->frames[w->depth - 1].array && w->frames[w->depth - 1].key_due &&
        ev->kind != SDX_KEY && ev->kind != SDX_END && ev->kind != SDX_TAG)
        return fail(w, SDX_ERR_KEY);
    int64_t tag = bson_tag(ev);
    switch ((sdx_kind)ev->kind) {
    case SDX_NULL:
        switch (tag) {
        case -1:
        case SDX_BSON_NULL: return sdx_bson_writer_null(w);
        case SDX_BSON_UNDEFINED:
        case SDX_BSON_MINKEY:
        case SDX_BSON_MAXKEY: return element(w, (u8)tag, NULL, 0);
        default: return unsupported(w);
        }
    case SDX_BOOL:
        if (tag != -1 && tag != SDX_BSON_BOOL) return unsupported(w);
        return sdx_bson_writer_bool(w, ev->v.b);
    case SDX_INT: return put_int(w, tag, ev->v.i);
    case SDX_UINT:
        if (ev->v.u <= INT64_MAX) return put_int(w, tag, (int64_t)ev->v.u);
        if (tag == SDX_BSON_TIMESTAMP) return u64_el(w, SDX_BSON_TIMESTAMP, ev->v.u);
        if (tag == -1) return sdx_bson_writer_uint(w, ev->v.u);
        return w->err ? w->err : fail(w, SDX_ERR_RANGE);
    case SDX_NINT:
        if (tag == -1 && (w->flags & SDX_BSON_WRITE_BIG_DOUBLE))
            return sdx_bson_writer_double(w, -1.0 - (double)ev->v.u);
        return fail(w, SDX_ERR_RANGE);
    case SDX_DOUBLE:
        if (tag != -1 && tag != SDX_BSON_DOUBLE) return unsupported(w);
        return sdx_bson_writer_double(w, ev->v.d);
    case SDX_STR:
        switch (tag) {
        case -1:
        case SDX_BSON_STRING:
        case SDX_BSON_CODE:
        case SDX_BSON_SYMBOL:
            return string_el(w, tag == -1 ? SDX_BSON_STRING : (u8)tag, ev->v.str.ptr, ev->v.str.len);
        default: return unsupported(w);
        }
    case SDX_BIN: return put_bin(w, tag, (const u8 *)ev->v.str.ptr, ev->v.str.len);
    case SDX_ARRAY:
        if (tag != -1 && tag != SDX_BSON_ARRAY) return unsupported(w);
        return begin_doc(w, SDX_BSON_ARRAY, 1);
    case SDX_MAP:
        /* a map tagged 0x04 is an array with keys of its own */
        if (tag != -1 && tag != SDX_BSON_DOCUMENT && tag != SDX_BSON_ARRAY) return unsupported(w);
        return begin_doc(w, tag == SDX_BSON_ARRAY ? SDX_BSON_ARRAY : SDX_BSON_DOCUMENT, 0);
    case SDX_KEY: return sdx_bson_writer_key(w, ev->v.str.ptr, ev->v.str.len);
    case SDX_END: return sdx_bson_writer_end(w);
    case SDX_TAG: return SDX_OK;
    case SDX_RAW: return unsupported(w);
    }
    return invalid(w);
}

/* sdx_bson_writer_node: the document walk of core/node_walk.h with this
 * writer's calls (the same calls sdx_bson_writer_put makes for each kind). */
#define NODE_WALK_WRITER sdx_bson_writer
#define NODE_WALK_OWN
#define NODE_WALK_BIN(w, s, n) sdx_bson_writer_binary(w, 0, s, n)
#include "core/node_walk.h"

/* The document's own walk for the common case: a root document (a map,
 * where a root may start) into a memory buffer, made only of untagged
 * null, bool, int, double, string, binary, array and map with string keys,
 * uint above INT64_MAX with SDX_BSON_WRITE_BIG_DOUBLE (as a double), and
 * int64s and datetimes (an INT with that BSON tag). Elements are written
 * straight into the buffer: the type byte (filled in once the value is
 * seen), the key or the array index, the value; a document's length is
 * patched in at its end. No per-value call and no writer state until the
 * end. Anything else (another tag, raw number text, an integer outside
 * int64, a key with a NUL, text that is not UTF-8, a size over BSON's
 * limit) rewinds the buffer to where the document began and returns 0:
 * walk_node then writes it with the writer's calls, with exactly their
 * output and errors. Returns 1 when written, -1 with the writer's error
 * when the buffer cannot grow. */
#define NODE_FAST_DEPTH 32
#define NODE_FAST_ROOM 48 /* a type byte, an index key, a scalar, a NUL */

struct node_fast_frame {
    const sdx_val *end; /* the slot after the document's last descendant */
    size_t start;       /* its length's offset in the buffer */
    uint64_t index;     /* an array's next index */
    uint8_t array;
};

/* Whether s[0, n) may be written as BSON text: valid UTF-8 unless the
 * writer does not check it or the JSON parser found it so (NOESC). */
static SDX_ALWAYS_INLINE int node_fast_text_ok(const sdx_bson_writer *w, const sdx_val *v) {
    return (v->tag & SDX_VAL_NOESC) || utf8_ok(w, v->v.s, (size_t)SDX_VAL_LEN(v));
}

static int node_fast(sdx_bson_writer *w, sdx_node n) {
    sdx_buf *b = w->out;
    if (w->err || w->depth != 0 || (w->roots && !(w->flags & SDX_BSON_WRITE_SEQUENCE)) ||
        b->mode != SDX_BUF_MEMORY || SDX_VAL_TYPE(n.val) != SDX_TYPE_MAP ||
        sdx_val_tags_start(n.doc, n.val) != n.val)
        return 0;
    const size_t start = (size_t)(b->cur - b->start);
    const int big_double = (w->flags & SDX_BSON_WRITE_BIG_DOUBLE) != 0;
    struct node_fast_frame inline_frames[NODE_FAST_DEPTH], *frames = inline_frames;
    sdx_stack st;
    sdx_stack_init(&st, inline_frames, NODE_FAST_DEPTH, sizeof *frames,
                   n.doc ? &n.doc->alloc : sdx_alloc_default());
    int rc = 0;
    const sdx_val *v = n.val + 1, *end = sdx_val_next(n.val);
    char *p = b->cur;
    NODE_WALK_NEED(b, p, NODE_FAST_ROOM, out);
    frames[0].end = end;
    frames[0].start = start;
    frames[0].array = 0;
    size_t depth = 1;
    p += 4; /* the root's length, patched at its end */
    for (;;) {
        while (v == frames[depth - 1].end) {
            /* the terminator, then the length */
            NODE_WALK_NEED(b, p, NODE_FAST_ROOM, out);
            *p++ = 0;
            struct node_fast_frame *f = &frames[--depth];
            size_t len = (size_t)(p - b->start) - f->start;
            if (len > SDX_BSON_MAX_SIZE) goto out;
            sdx_store_le32(b->start + f->start, (uint32_t)len);
            if (depth == 0) goto done;
        }
        NODE_WALK_NEED(b, p, NODE_FAST_ROOM, out);
        struct node_fast_frame *f = &frames[depth - 1];
        char *type_at = p++;
        if (f->array) {
            p = sdx_u64_to_dec(p, f->index++);
            *p++ = 0;
        } else {
            /* the key: a string without NUL, then its value (no tag between) */
            if (SDX_VAL_TYPE(v) != SDX_TYPE_STR) goto out;
            size_t kn = (size_t)SDX_VAL_LEN(v);
            if (kn >= SDX_BSON_MAX_SIZE) goto out;
            if ((size_t)(b->end - p) < kn + NODE_FAST_ROOM) {
                size_t at = (size_t)(type_at - b->start);
                if (!(p = sdx_buf_room_slow(b, p, kn + NODE_FAST_ROOM))) goto out;
                type_at = b->start + at;
            }
            int k = key_scan(v->v.s, kn);
            if ((k & KEY_NUL) || ((k & KEY_HIGH) && !node_fast_text_ok(w, v))) goto out;
            if (kn) memcpy(p, v->v.s, kn);
            p[kn] = 0;
            p += kn + 1;
            v++;
        }
        /* tests, not a switch (NODE_WALK_BIT, core/node_walk.h) */
        const unsigned t = SDX_VAL_TYPE(v);
        const uint32_t bit = NODE_WALK_BIT(t);
        if (t == SDX_TYPE_STR || t == SDX_TYPE_BIN) {
            int str = t == SDX_TYPE_STR;
            size_t sn = (size_t)SDX_VAL_LEN(v);
            if (sn > SDX_BSON_MAX_SIZE - 16 || (str && !node_fast_text_ok(w, v))) goto out;
            if ((size_t)(b->end - p) < sn + 6) {
                size_t at = (size_t)(type_at - b->start);
                if (!(p = sdx_buf_room_slow(b, p, sn + 6))) goto out;
                type_at = b->start + at;
            }
            *type_at = str ? SDX_BSON_STRING : SDX_BSON_BINARY;
            sdx_store_le32(p, (uint32_t)sn + (uint32_t)str); /* a string's counts its NUL */
            p += 4;
            if (!str) *p++ = 0; /* binary subtype 0, generic */
            if (sn) memcpy(p, v->v.s, sn);
            p += sn;
            if (str) *p++ = 0;
        } else if (bit & NODE_WALK_BIT(SDX_TYPE_DOUBLE)) {
            *type_at = SDX_BSON_DOUBLE;
            sdx_store_le64(p, v->v.u);
            p += 8;
        } else if (bit & NODE_WALK_BIT(SDX_TYPE_INT)) {
            if (v->v.i >= INT32_MIN && v->v.i <= INT32_MAX) {
                *type_at = SDX_BSON_INT32;
                sdx_store_le32(p, (uint32_t)(int32_t)v->v.i);
                p += 4;
            } else {
                *type_at = SDX_BSON_INT64;
                sdx_store_le64(p, (uint64_t)v->v.i);
                p += 8;
            }
        } else if (bit & (NODE_WALK_BIT(SDX_TYPE_ARRAY) | NODE_WALK_BIT(SDX_TYPE_MAP))) {
            int array = t == SDX_TYPE_ARRAY;
            *type_at = array ? SDX_BSON_ARRAY : SDX_BSON_DOCUMENT;
            if (depth == st.cap) {
                if (!sdx_stack_grow(&st)) goto out;
                frames = st.items;
            }
            struct node_fast_frame *g = &frames[depth++];
            g->end = v + v->v.u;
            g->start = (size_t)(p - b->start);
            g->index = 0;
            g->array = (uint8_t)array;
            p += 4; /* its length, patched at its end */
        } else if (bit & NODE_WALK_BIT(SDX_TYPE_BOOL)) {
            *type_at = SDX_BSON_BOOL;
            *p++ = (char)(v->v.u != 0);
        } else if (bit & NODE_WALK_BIT(SDX_TYPE_NULL)) {
            *type_at = SDX_BSON_NULL;
        } else if (bit & NODE_WALK_BIT(SDX_TYPE__TAG)) {
            /* an int64 or a UTC datetime (BSON's parser tags each int64 so
             * that it stays one): one BSON tag on an INT, 8 bytes */
            if ((v->tag >> 8 & 0xff) != SDX_TAG_BSON || SDX_VAL_TYPE(v + 1) != SDX_TYPE_INT ||
                (v->v.u != SDX_BSON_INT64 && v->v.u != SDX_BSON_DATETIME))
                goto out;
            *type_at = (char)v->v.u;
            v++;
            sdx_store_le64(p, (uint64_t)v->v.i);
            p += 8;
        } else if (bit & NODE_WALK_BIT(SDX_TYPE_UINT)) {
            /* above INT64_MAX: SDX_ERR_RANGE without the option */
            if (!big_double || v->v.u <= INT64_MAX) goto out;
            *type_at = SDX_BSON_DOUBLE;
            {
                double d = (double)v->v.u;
                uint64_t bits;
                memcpy(&bits, &d, 8);
                sdx_store_le64(p, bits);
            }
            p += 8;
        } else {
            goto out; /* another tag, RAW, NINT (or a corrupted slot) */
        }
        v++;
    }
done:
    rc = 1;
out:
    sdx_stack_free(&st);
    rc = node_walk_end(b, rc, p, start);
    if (rc > 0) w->roots++;
    if (rc < 0) fail(w, b->err); /* the buffer could not grow: its error */
    return rc;
}

sdx_err sdx_bson_writer_node(sdx_bson_writer *w, sdx_node n) { return walk_node_fast(w, n, node_fast); }

static sdx_err sink_put(void *ctx, const sdx_event *ev) {
    return sdx_bson_writer_put((sdx_bson_writer *)ctx, ev);
}

static sdx_err sink_finish(void *ctx) { return sdx_bson_writer_finish((sdx_bson_writer *)ctx); }

static const sdx_sink_vt bson_sink_vt = {sink_put, sink_finish};

sdx_sink sdx_bson_writer_sink(sdx_bson_writer *w) {
    sdx_sink s = {&bson_sink_vt, w};
    return s;
}

sdx_err sdx_bson_writer_finish(sdx_bson_writer *w) {
    if (!w->err) {
        if (w->depth || !w->roots) fail(w, SDX_ERR_USAGE);
        else if (sdx_buf_flush(w->out)) fail(w, w->out->err);
    }
    if (w->depth) sdx_buf_unpin(w->out);
    if (w->frames != w->inline_frames) w->alloc.free(w->alloc.ctx, w->frames);
    w->frames = w->inline_frames;
    w->depth = 0;
    w->cap = SDX_BSON_WRITER_INLINE_DEPTH;
    return w->err;
}
