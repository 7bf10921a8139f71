/*
 * The UBJSON / BJData pull reader: one event per call, strings and byte
 * arrays as views into the input window.
 *
 * The input is a window [p, end): the whole input for a memory reader, the
 * reader's own buffer for a stream. need(n) makes n bytes available at p:
 * a memory reader has them or not (then the input is truncated), a stream
 * reader moves what is left of the window to the front of its buffer and
 * reads more after it, growing the buffer only when it is full of bytes
 * that actually arrived — never to a declared length up front.
 *
 * Nesting is an explicit stack of frames (no recursion): each open
 * container's kind, its element type when typed ('$'), the elements left
 * when counted ('#'), and in a map whether a key is due. Every declared
 * count is checked before the container's begin event: against the bytes
 * left (memory input; each element takes at least the bytes of its type)
 * and, for elements that take no bytes (typed Z, T, F), against the
 * configured maximum, so that ten bytes cannot ask for billions of events.
 */
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "core/error.h"
#include "core/platform.h"
#include "core/stream.h"
#include "core/floatbits.h"
#include "core/utf8.h"
#include "sdx/ubjson.h"
#include "simd/simd.h"
#include "ubjson/ubjson_internal.h"

typedef unsigned char u8;

#define INLINE_STACK 32
#define MAX_DIMS 32

enum { STATE_READING, STATE_END, STATE_ERROR };
enum { KIND_ARRAY, KIND_MAP };

/* An open container (ubjson.h): kind is KIND_ARRAY or KIND_MAP. */
typedef sdx_ubjson_level frame;

struct sdx_ubjson_reader {
    sdx_ubjson_reader_hot hot; /* the window, the open containers and their
                                  depth, the last event's kind (first: the
                                  inline path of ubjson.h reads it) */
    uint32_t cap;
    uint32_t max_depth;
    uint32_t flags;
    uint64_t max_empty;
    uint64_t empty_left;  /* of max_empty, for the current top-level value */
    bool bjdata;
    bool root_done;       /* the current top-level value has been read */
    uint8_t state;
    /* the dimensions of the N-dimensional array being read (BJData) */
    uint32_t ndim;
    uint64_t dims[MAX_DIMS];
    size_t (*utf8_valid)(const char *s, size_t n); /* the SIMD kernel */
    sdx_err err;
    const char *msg;
    uint64_t err_offset;
    /* streams */
    sdx_read_fn read;     /* NULL for memory */
    void *ctx;
    u8 *store;
    size_t store_cap;
    size_t chunk;
    bool eof;
    sdx_alloc alloc;
    frame inline_stack[INLINE_STACK];
};

static const u8 empty_input[1] = {0};

static uint64_t offset_of(const sdx_ubjson_reader *r, const u8 *at) {
    return r->hot.base_offset + (uint64_t)(at - r->hot.base);
}

static uint64_t here(const sdx_ubjson_reader *r) { return offset_of(r, r->hot.p); }

static bool fail_at(sdx_ubjson_reader *r, sdx_err code, const char *msg, uint64_t offset) {
    if (r->state != STATE_ERROR) {
        r->err = code;
        r->msg = msg;
        r->err_offset = offset;
        r->state = STATE_ERROR;
    }
    return false;
}

/* Whether the inline path of ubjson.h may run from here on, and up to
 * which depth: only while reading on (no error, not at the end); it opens
 * containers while the stack has room and max_depth allows. */
static void hot_update(sdx_ubjson_reader *r) {
    r->hot.depth_limit =
        r->state == STATE_READING ? (r->cap < r->max_depth ? r->cap : r->max_depth) : 0;
}

/* ------------------------------------------------------------------------ */
/* Creating                                                                  */
/* ------------------------------------------------------------------------ */

/* The reader at r zeroed (its inline stack is left as it is), with the
 * options applied and no input yet. */
static void reader_init(sdx_ubjson_reader *r, const sdx_ubjson_read_opts *opts, const sdx_alloc *a) {
    /* the stack's entries are written before they are read (a reset
     * reader's hold the last input's levels; a new one's are zeroed) */
    sdx_zero_small(r, offsetof(sdx_ubjson_reader, inline_stack));
    r->alloc = *a;
    r->flags = opts ? opts->flags : 0;
    r->max_depth = opts && opts->max_depth ? opts->max_depth : SDX_UBJSON_DEFAULT_MAX_DEPTH;
    r->max_empty = opts && opts->max_empty ? opts->max_empty : SDX_UBJSON_DEFAULT_MAX_EMPTY;
    r->bjdata = (r->flags & SDX_UBJSON_READ_BJDATA) != 0;
    r->hot.stack = r->inline_stack;
    r->cap = INLINE_STACK;
    r->state = STATE_READING;
    r->hot.last_kind = SDX_NULL;
    r->utf8_valid = sdx_simd_active()->utf8_valid_prefix;
    r->hot.bjdata = r->bjdata;
    r->hot.ascii_mask =
        r->flags & SDX_UBJSON_READ_NO_UTF8_CHECK ? 0 : UINT64_C(0x8080808080808080);
    hot_update(r);
}

static sdx_ubjson_reader *reader_alloc(const sdx_ubjson_read_opts *opts) {
    const sdx_alloc *a;
    sdx_ubjson_reader *r = sdx_reader_malloc(opts ? opts->alloc : NULL, sizeof *r, &a);
    if (!r) return NULL;
    memset(r->inline_stack, 0, sizeof r->inline_stack);
    reader_init(r, opts, a);
    return r;
}

/* The input of a reader over memory. */
static void memory_input(sdx_ubjson_reader *r, const char *data, size_t len) {
    if (!data) len = 0;
    r->hot.base = r->hot.p = data ? (const u8 *)data : empty_input;
    r->hot.end = r->hot.p + len;
    r->eof = true;
}

sdx_ubjson_reader *sdx_ubjson_reader_new(const char *data, size_t len,
                                         const sdx_ubjson_read_opts *opts) {
    sdx_ubjson_reader *r = reader_alloc(opts);
    if (!r) return NULL;
    memory_input(r, data, len);
    return r;
}

/* Everything r allocated but r itself (no call for what it did not
 * allocate: a reset reader over short messages usually has nothing). */
static void free_parts(sdx_ubjson_reader *r) {
    if (r->hot.stack != r->inline_stack) r->alloc.free(r->alloc.ctx, r->hot.stack);
    if (r->store) r->alloc.free(r->alloc.ctx, r->store);
}

sdx_err sdx_ubjson_reader_reset(sdx_ubjson_reader *r, const char *data, size_t len) {
    if (!r) return SDX_ERR_INVALID_ARG;
    if (r->store) return SDX_ERR_USAGE; /* a stream's reader */
    const sdx_ubjson_read_opts o = {.flags = r->flags, .max_depth = r->max_depth, .max_empty = r->max_empty};
    const sdx_alloc a = r->alloc;
    free_parts(r);
    reader_init(r, &o, &a);
    memory_input(r, data, len);
    return SDX_OK;
}

sdx_ubjson_reader *sdx_ubjson_reader_new_stream(sdx_read_fn read, void *ctx, size_t chunk,
                                                const sdx_ubjson_read_opts *opts) {
    sdx_ubjson_reader *r = reader_alloc(opts);
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
sdx_ubjson_reader *sdx_ubjson_reader_new_file(FILE *f, const sdx_ubjson_read_opts *opts) {
    return sdx_ubjson_reader_new_stream(sdx_file_read, f, 0, opts);
}
#endif

void sdx_ubjson_reader_free(sdx_ubjson_reader *r) {
    if (!r) return;
    free_parts(r);
    r->alloc.free(r->alloc.ctx, r);
}

/* ------------------------------------------------------------------------ */
/* Input                                                                     */
/* ------------------------------------------------------------------------ */

/* Make n bytes available at r->hot.p: 1 when they are, 0 when the input ends
 * before (nothing is set), -1 on a read or allocation error (set). A stream
 * keeps only the window from p on, so pointers into the window taken
 * before a call are stale after it. */
static SDX_NOINLINE int need_slow(sdx_ubjson_reader *r, size_t n) {
    if (!r->read) return 0;
    while ((size_t)(r->hot.end - r->hot.p) < n) {
        if (r->eof) return 0;
        size_t have = (size_t)(r->hot.end - r->hot.p);
        if (r->hot.p != r->store) {
            memmove(r->store, r->hot.p, have);
            r->hot.base_offset += (uint64_t)(r->hot.p - r->store);
            r->hot.base = r->hot.p = r->store;
            r->hot.end = r->store + have;
        }
        const char *why;
        size_t room = sdx_stream_room(&r->alloc, &r->store, &r->store_cap, have, r->chunk, &why);
        if (!room) {
            fail_at(r, SDX_ERR_NOMEM, why, here(r));
            return -1;
        }
        r->hot.base = r->hot.p = r->store;
        r->hot.end = r->store + have;
        size_t got = r->read(r->ctx, (u8 *)r->hot.end, room);
        if (got == (size_t)-1) {
            fail_at(r, SDX_ERR_IO, "read error", offset_of(r, r->hot.end));
            return -1;
        }
        if (got == 0) r->eof = true;
        else r->hot.end += got > room ? room : got;
    }
    return 1;
}

static SDX_ALWAYS_INLINE int need(sdx_ubjson_reader *r, size_t n) {
    if (SDX_LIKELY((size_t)(r->hot.end - r->hot.p) >= n)) return 1;
    return need_slow(r, n);
}

static SDX_NOINLINE bool need_or_fail_slow(sdx_ubjson_reader *r, size_t n, uint64_t start) {
    int k = need_slow(r, n);
    if (k > 0) return true;
    if (k == 0) fail_at(r, SDX_ERR_TRUNCATED, "input ends inside a value", start);
    return false;
}

/* need(n), reporting an input that ends as SDX_ERR_TRUNCATED at `start`
 * (the first byte of the value being read). */
static SDX_ALWAYS_INLINE bool need_or_fail(sdx_ubjson_reader *r, size_t n, uint64_t start) {
    if (SDX_LIKELY((size_t)(r->hot.end - r->hot.p) >= n)) return true;
    return need_or_fail_slow(r, n, start);
}

/* Skip no-ops; true when a byte follows (in the window), false at the end
 * of the input or on an error (distinguished by r->state). */
static bool skip_noops(sdx_ubjson_reader *r) {
    for (;;) {
        if (need(r, 1) <= 0) return false;
        if (*r->hot.p != 'N') return true;
        r->hot.p++;
    }
}

/* ------------------------------------------------------------------------ */
/* Numbers, lengths                                                          */
/* ------------------------------------------------------------------------ */

/* Whether m is an integer marker of the dialect, and its size. */
static int int_size(const sdx_ubjson_reader *r, u8 m) {
    switch (m) {
    case 'i': case 'U': return 1;
    case 'I': return 2;
    case 'l': return 4;
    case 'L': return 8;
    case 'u': return r->bjdata ? 2 : 0;
    case 'm': return r->bjdata ? 4 : 0;
    case 'M': return r->bjdata ? 8 : 0;
    default: return 0;
    }
}

/* The integer payload of marker m (of size n, available at p) into an
 * event: SDX_INT, or SDX_UINT for an M above INT64_MAX. */
static void int_event(sdx_ubjson_reader *r, u8 m, int n, sdx_event *ev) {
    uint64_t v = sdx_ubj_load(r->hot.p, n, r->bjdata);
    r->hot.p += n;
    ev->kind = SDX_INT;
    switch (m) {
    case 'i': ev->v.i = (int8_t)(uint8_t)v; break;
    case 'I': ev->v.i = (int16_t)(uint16_t)v; break;
    case 'l': ev->v.i = (int32_t)(uint32_t)v; break;
    case 'L': ev->v.i = (int64_t)v; break;
    default: /* U u m M B: unsigned */
        ev->v.u = v;
        if (v > INT64_MAX) ev->kind = SDX_UINT;
        break;
    }
}

/* A length or count: an integer marker and its value, nonnegative.
 * `start` is the offset errors are reported at. */
static bool read_length(sdx_ubjson_reader *r, uint64_t *out, uint64_t start) {
    if (!need_or_fail(r, 1, start)) return false;
    u8 m = *r->hot.p;
    int n = int_size(r, m);
    if (!n) return fail_at(r, SDX_ERR_SYNTAX, "a length or count must be an integer", here(r));
    uint64_t at = here(r);
    r->hot.p++;
    if (!need_or_fail(r, (size_t)n, start)) return false;
    sdx_event e;
    int_event(r, m, n, &e);
    if (e.kind == SDX_INT && e.v.i < 0)
        return fail_at(r, SDX_ERR_SYNTAX, "negative length or count", at);
    *out = e.v.u;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Values                                                                    */
/* ------------------------------------------------------------------------ */

/* The least number of input bytes an element of a container takes: its
 * type's payload when typed, else a marker; in a map also the key (a
 * length of at least two bytes). 0 for typed Z, T, F. */
static uint64_t min_element(const sdx_ubjson_reader *r, uint8_t kind, u8 type) {
    int n = type ? sdx_ubj_payload(type, r->bjdata) : 1;
    uint64_t v = n < 0 ? (type == 'S' || type == 'H' ? 2 : 1) : (uint64_t)n;
    return kind == KIND_MAP ? v + 2 : v;
}

/* Whether the count of n elements of at least `each` bytes (or none) is
 * allowed, else the error at `start`. */
static bool count_ok(sdx_ubjson_reader *r, uint64_t n, uint64_t each, uint64_t start) {
    if (each == 0) {
        /* max_empty bounds all such elements of one top-level value, not
         * each container: else every 9 bytes of input ([$Z#l + count)
         * would be worth max_empty elements (and 16 MB of document) */
        if (n > r->empty_left)
            return fail_at(r, SDX_ERR_LIMIT, "typed containers of Z, T or F above max_empty",
                           start);
        r->empty_left -= n;
        return true;
    }
    if (!r->read && n > (uint64_t)(r->hot.end - r->hot.p) / each)
        return fail_at(r, SDX_ERR_TRUNCATED, "count exceeds the input left", start);
    return true;
}

static bool push(sdx_ubjson_reader *r, uint8_t kind, u8 type, bool counted, uint64_t count,
                 uint8_t nd, uint64_t start) {
    if (r->hot.depth >= r->max_depth) return fail_at(r, SDX_ERR_DEPTH, "nesting too deep", start);
    if (r->hot.depth == r->cap) {
        uint32_t cap = r->cap > UINT32_MAX / 2 ? UINT32_MAX : r->cap * 2;
        if (cap > r->max_depth) cap = r->max_depth;
        frame *s;
        if (r->hot.stack == r->inline_stack) {
            s = r->alloc.malloc(r->alloc.ctx, (size_t)cap * sizeof *s);
            if (s) memcpy(s, r->hot.stack, (size_t)r->cap * sizeof *s);
        } else {
            s = r->alloc.realloc(r->alloc.ctx, r->hot.stack, (size_t)r->cap * sizeof *s,
                                 (size_t)cap * sizeof *s);
        }
        if (!s) return fail_at(r, SDX_ERR_NOMEM, "out of memory", start);
        r->hot.stack = s;
        r->cap = cap;
    }
    frame *f = &r->hot.stack[r->hot.depth++];
    f->left = count;
    f->kind = kind;
    f->type = type;
    f->counted = counted;
    f->key_due = kind == KIND_MAP;
    f->nd = nd;
    return true;
}

/* The innermost level of an N-dimensional array of bytes (BJData 'B'),
 * read as one binary of n bytes, as a one-dimensional [$B#n is (unless
 * SDX_UBJSON_READ_BYTE_ARRAYS asks for integers): the writer writes that
 * binary as [$B#n again, so both forms read back the same. */
static bool nd_bytes(const sdx_ubjson_reader *r, u8 type) {
    return r->bjdata && type == 'B' && !(r->flags & SDX_UBJSON_READ_BYTE_ARRAYS);
}

static bool nd_bin(sdx_ubjson_reader *r, uint64_t n, uint64_t start, sdx_event *ev) {
    if (n > SIZE_MAX) return fail_at(r, SDX_ERR_TRUNCATED, "count exceeds the input left", start);
    if (!need_or_fail(r, (size_t)n, start)) return false;
    ev->kind = SDX_BIN;
    ev->v.str.ptr = (const char *)r->hot.p;
    ev->v.str.len = (size_t)n;
    r->hot.p += n;
    return true;
}

/* BJData's N-dimensional array header after "[$t#": the dimension vector,
 * itself a 1-D array of integers (typed and counted, counted, or plain).
 * Checks the element count against the input and the arrays of a zero
 * dimension against max_empty, then opens the outermost level. */
static bool nd_array(sdx_ubjson_reader *r, u8 type, uint64_t start, sdx_event *ev) {
    uint64_t vstart = here(r);
    r->hot.p++; /* the '[' of the dimension vector */
    u8 vtype = 0;
    bool counted = false;
    uint64_t count = 0;
    if (!need_or_fail(r, 1, start)) return false;
    if (*r->hot.p == '[')
        return fail_at(r, SDX_ERR_UNSUPPORTED, "column-major N-dimensional arrays", vstart);
    if (*r->hot.p == '$') {
        r->hot.p++;
        if (!need_or_fail(r, 1, start)) return false;
        vtype = *r->hot.p++;
        if (!int_size(r, vtype))
            return fail_at(r, SDX_ERR_SYNTAX, "dimensions must be integers", vstart);
        if (!need_or_fail(r, 1, start)) return false;
        if (*r->hot.p != '#') return fail_at(r, SDX_ERR_SYNTAX, "'$' without '#'", vstart);
    }
    if (*r->hot.p == '#') {
        r->hot.p++;
        if (!read_length(r, &count, start)) return false;
        counted = true;
    }
    if (counted && count > MAX_DIMS)
        return fail_at(r, SDX_ERR_LIMIT, "more than 32 dimensions", vstart);
    r->ndim = 0;
    for (;;) {
        if (counted && r->ndim == count) break;
        if (!need_or_fail(r, 1, start)) return false;
        u8 m = vtype;
        if (!m) {
            m = *r->hot.p++;
            if (!counted && m == ']') break;
        }
        int n = int_size(r, m);
        if (!n) return fail_at(r, SDX_ERR_SYNTAX, "dimensions must be integers", vstart);
        if (!need_or_fail(r, (size_t)n, start)) return false;
        sdx_event e;
        int_event(r, m, n, &e);
        if (e.kind == SDX_INT && e.v.i < 0)
            return fail_at(r, SDX_ERR_SYNTAX, "negative dimension", vstart);
        if (r->ndim == MAX_DIMS)
            return fail_at(r, SDX_ERR_LIMIT, "more than 32 dimensions", vstart);
        r->dims[r->ndim++] = e.v.u;
    }
    if (r->ndim == 0) return fail_at(r, SDX_ERR_SYNTAX, "empty dimension vector", vstart);
    /* elements = the product of the dimensions; arrays = 1 + d0 + d0 d1 +
     * ... up to the next-to-last level (both saturating at UINT64_MAX) */
    uint64_t elements = 1, arrays = 0, prefix = 1;
    for (uint32_t i = 0; i < r->ndim; i++) {
        arrays = arrays + prefix < arrays ? UINT64_MAX : arrays + prefix;
        uint64_t d = r->dims[i];
        prefix = d && prefix > UINT64_MAX / d ? UINT64_MAX : prefix * d;
    }
    elements = prefix;
    if (!count_ok(r, elements, (uint64_t)sdx_ubj_payload(type, true), start)) return false;
    if (elements == 0) { /* the empty arrays count against max_empty as above */
        if (arrays > r->empty_left)
            return fail_at(r, SDX_ERR_LIMIT, "N-dimensional arrays of empty arrays above max_empty",
                           start);
        r->empty_left -= arrays;
    }
    if (r->ndim == 1 && nd_bytes(r, type)) return nd_bin(r, r->dims[0], start, ev);
    if (!push(r, KIND_ARRAY, type, true, r->dims[0], 1, start)) return false;
    ev->kind = SDX_ARRAY;
    ev->v.count = r->dims[0];
    if (r->ndim == 1) { /* only the innermost arrays hold elements of the type */
        ev->tag_kind = SDX_TAG_UBJSON;
        ev->tag = type;
    }
    return true;
}

/* A container's header after its marker (or, typed '[' / '{', where the
 * marker is implied): '$' type, '#' count, or neither. */
static bool container(sdx_ubjson_reader *r, uint8_t kind, uint64_t start, sdx_event *ev) {
    u8 type = 0;
    bool counted = false;
    uint64_t count = SDX_COUNT_UNKNOWN;
    if (r->hot.depth >= r->max_depth) return fail_at(r, SDX_ERR_DEPTH, "nesting too deep", start);
    if (!need_or_fail(r, 1, start)) return false;
    if (*r->hot.p == '$') {
        r->hot.p++;
        if (!need_or_fail(r, 1, start)) return false;
        type = *r->hot.p;
        if (r->bjdata && type == '{')
            return fail_at(r, SDX_ERR_UNSUPPORTED, "structure-of-arrays containers", here(r));
        if (!sdx_ubj_type_ok(type, r->bjdata))
            return fail_at(r, SDX_ERR_SYNTAX, "type not allowed after '$'", here(r));
        r->hot.p++;
        if (!need_or_fail(r, 1, start)) return false;
        if (*r->hot.p != '#') return fail_at(r, SDX_ERR_SYNTAX, "'$' without '#'", here(r));
    }
    if (*r->hot.p == '#') {
        r->hot.p++;
        if (r->bjdata && type && kind == KIND_ARRAY) {
            if (!need_or_fail(r, 1, start)) return false;
            if (*r->hot.p == '[') return nd_array(r, type, start, ev);
        }
        if (!read_length(r, &count, start)) return false;
        counted = true;
        if (!count_ok(r, count, min_element(r, kind, type), start)) return false;
    }
    if (kind == KIND_ARRAY && counted && type == (r->bjdata ? 'B' : 'U') &&
        !(r->flags & SDX_UBJSON_READ_BYTE_ARRAYS)) {
        /* an array of bytes: binary data, one view */
        if (count > SIZE_MAX)
            return fail_at(r, SDX_ERR_TRUNCATED, "count exceeds the input left", start);
        if (!need_or_fail(r, (size_t)count, start)) return false;
        ev->kind = SDX_BIN;
        ev->v.str.ptr = (const char *)r->hot.p;
        ev->v.str.len = (size_t)count;
        r->hot.p += count;
        return true;
    }
    if (!push(r, kind, type, counted, count, 0, start)) return false;
    ev->kind = kind == KIND_MAP ? SDX_MAP : SDX_ARRAY;
    ev->v.count = count;
    if (type) {
        ev->tag_kind = SDX_TAG_UBJSON;
        ev->tag = type;
    }
    return true;
}

/* A length-prefixed string after its marker: S, H or a key. */
static bool sized(sdx_ubjson_reader *r, uint64_t start, const char **s, size_t *len) {
    uint64_t n;
    if (!read_length(r, &n, start)) return false;
    if (n > SIZE_MAX || !need_or_fail(r, (size_t)n, start)) {
        if (r->state != STATE_ERROR)
            fail_at(r, SDX_ERR_TRUNCATED, "input ends inside a value", start);
        return false;
    }
    *s = (const char *)r->hot.p;
    *len = (size_t)n;
    r->hot.p += n;
    return true;
}

/* Short strings are tested for ASCII inline, longer ones by the SIMD
 * kernel (core/utf8.h). */
static bool utf8_ok(const sdx_ubjson_reader *r, const char *s, size_t n) {
    return (r->flags & SDX_UBJSON_READ_NO_UTF8_CHECK) || sdx_utf8_ok(r->utf8_valid, s, n);
}

/* An H holding an integer above INT64_MAX that fits uint64, in its
 * canonical decimal text (no sign, no leading zero, no fraction or
 * exponent), becomes SDX_UINT: that is how the writer (and Draft 12) puts
 * such integers, which UBJSON has no integer type for, so MessagePack or
 * CBOR uint64 -> UBJSON -> MessagePack or CBOR keeps them. Other H values
 * stay SDX_RAW. */
static void big_uint(sdx_event *ev) {
    const char *s = ev->v.str.ptr;
    size_t n = ev->v.str.len;
    if (n != 19 && n != 20) return; /* INT64_MAX + 1 has 19 digits */
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned char)s[i] - '0';
        if (d > 9 || (i == 0 && d == 0)) return;
        if (v > (UINT64_MAX - d) / 10) return;
        v = v * 10 + d;
    }
    if (v <= INT64_MAX) return;
    ev->kind = SDX_UINT;
    ev->v.u = v;
}

/* The value of marker m (already consumed, or implied by the container's
 * type) that starts at input offset `start`. */
static bool value(sdx_ubjson_reader *r, u8 m, uint64_t start, sdx_event *ev) {
    int n;
    uint64_t bits;
    switch (m) {
    case 'Z': ev->kind = SDX_NULL; return true;
    case 'T': case 'F':
        ev->kind = SDX_BOOL;
        ev->v.b = m == 'T';
        return true;
    case 'd':
        if (!need_or_fail(r, 4, start)) return false;
        ev->kind = SDX_DOUBLE;
        ev->flags = SDX_EVENT_FLOAT32;
        ev->v.d = sdx_float_bits_to_double((uint32_t)sdx_ubj_load(r->hot.p, 4, r->bjdata));
        r->hot.p += 4;
        return true;
    case 'D':
        if (!need_or_fail(r, 8, start)) return false;
        bits = sdx_ubj_load(r->hot.p, 8, r->bjdata);
        ev->kind = SDX_DOUBLE;
        memcpy(&ev->v.d, &bits, 8);
        r->hot.p += 8;
        return true;
    case 'h':
        if (!r->bjdata) break;
        if (!need_or_fail(r, 2, start)) return false;
        ev->kind = SDX_DOUBLE;
        ev->flags = SDX_EVENT_FLOAT16;
        ev->v.d = sdx_half_bits_to_double((uint16_t)sdx_ubj_load(r->hot.p, 2, true));
        r->hot.p += 2;
        return true;
    case 'B':
        if (!r->bjdata) break;
        if (!need_or_fail(r, 1, start)) return false;
        ev->kind = SDX_INT;
        ev->v.i = *r->hot.p++;
        return true;
    case 'C':
        if (!need_or_fail(r, 1, start)) return false;
        if (*r->hot.p > 127) return fail_at(r, SDX_ERR_SYNTAX, "char above 127", start);
        ev->kind = SDX_STR;
        ev->v.str.ptr = (const char *)r->hot.p++;
        ev->v.str.len = 1;
        return true;
    case 'S':
        if (!sized(r, start, &ev->v.str.ptr, &ev->v.str.len)) return false;
        if (!utf8_ok(r, ev->v.str.ptr, ev->v.str.len))
            return fail_at(r, SDX_ERR_UTF8, "string is not valid UTF-8", start);
        ev->kind = SDX_STR;
        return true;
    case 'H':
        if (!sized(r, start, &ev->v.str.ptr, &ev->v.str.len)) return false;
        if (!sdx_ubj_number_ok(ev->v.str.ptr, ev->v.str.len))
            return fail_at(r, SDX_ERR_SYNTAX, "high-precision number is not a JSON number", start);
        ev->kind = SDX_RAW;
        big_uint(ev);
        return true;
    case '[': return container(r, KIND_ARRAY, start, ev);
    case '{': return container(r, KIND_MAP, start, ev);
    default: break;
    }
    n = int_size(r, m);
    if (!n) return fail_at(r, SDX_ERR_SYNTAX, "unknown marker", start);
    if (!need_or_fail(r, (size_t)n, start)) return false;
    int_event(r, m, n, ev);
    return true;
}

/* ------------------------------------------------------------------------ */
/* Events                                                                    */
/* ------------------------------------------------------------------------ */

static bool end_event(sdx_ubjson_reader *r, sdx_event *ev) {
    r->hot.depth--;
    ev->kind = SDX_END;
    ev->depth = r->hot.depth;
    r->hot.last_kind = SDX_END;
    return true;
}

/* A value whose marker comes from the input (the caller has skipped the
 * no-ops before it). */
static bool marked_value(sdx_ubjson_reader *r, sdx_event *ev) {
    uint64_t start = here(r);
    if (!need_or_fail(r, 1, start)) return false;
    return value(r, *r->hot.p++, start, ev);
}

static bool next_event(sdx_ubjson_reader *r, sdx_event *ev) {
    memset(ev, 0, sizeof *ev);
    if (r->state != STATE_READING) return false;
    if (r->hot.depth == 0) {
        if (r->root_done) {
            if (!skip_noops(r)) {
                if (r->state == STATE_READING) r->state = STATE_END;
                return false;
            }
            if (!(r->flags & SDX_UBJSON_READ_STOP_AFTER_VALUE))
                return fail_at(r, SDX_ERR_SYNTAX, "bytes after the value", here(r));
        } else if (!skip_noops(r)) {
            if (r->state == STATE_READING)
                fail_at(r, SDX_ERR_TRUNCATED, "no value in the input", here(r));
            return false;
        }
        r->root_done = true;
        r->empty_left = r->max_empty; /* a new top-level value */
        ev->depth = 0;
        return marked_value(r, ev);
    }
    frame *f = &r->hot.stack[r->hot.depth - 1];
    ev->depth = r->hot.depth;
    if (f->kind == KIND_MAP && f->key_due) {
        if (f->counted && f->left == 0) return end_event(r, ev);
        /* no-ops may come before a key: a key starts with an integer
         * marker, never with N */
        if (!skip_noops(r)) {
            if (r->state == STATE_READING)
                fail_at(r, SDX_ERR_TRUNCATED, "input ends inside an object", here(r));
            return false;
        }
        if (!f->counted && *r->hot.p == '}') {
            r->hot.p++;
            return end_event(r, ev);
        }
        uint64_t start = here(r);
        if (!sized(r, start, &ev->v.str.ptr, &ev->v.str.len)) return false;
        if (!utf8_ok(r, ev->v.str.ptr, ev->v.str.len))
            return fail_at(r, SDX_ERR_UTF8, "key is not valid UTF-8", start);
        ev->kind = SDX_KEY;
        if (f->counted) f->left--;
        f->key_due = 0;
        return true;
    }
    if (f->kind == KIND_MAP) {
        f->key_due = 1;
    } else if (f->counted) {
        if (f->left == 0) return end_event(r, ev);
        f->left--;
    }
    if (f->nd && f->nd < r->ndim) { /* the next level of an N-dimensional array */
        uint64_t start = here(r);
        if (f->nd + 1u == r->ndim && nd_bytes(r, f->type)) return nd_bin(r, r->dims[f->nd], start, ev);
        if (!push(r, KIND_ARRAY, f->type, true, r->dims[f->nd], (uint8_t)(f->nd + 1), start))
            return false;
        ev->kind = SDX_ARRAY;
        ev->v.count = r->hot.stack[r->hot.depth - 1].left;
        if (r->hot.stack[r->hot.depth - 1].nd == r->ndim) {
            ev->tag_kind = SDX_TAG_UBJSON;
            ev->tag = r->hot.stack[r->hot.depth - 1].type;
        }
        return true;
    }
    if (f->type) return value(r, f->type, here(r), ev);
    if (!skip_noops(r)) {
        if (r->state == STATE_READING)
            fail_at(r, SDX_ERR_TRUNCATED, "input ends inside a container", here(r));
        return false;
    }
    if (!f->counted && f->kind == KIND_ARRAY && *r->hot.p == ']') {
        r->hot.p++;
        return end_event(r, ev);
    }
    return marked_value(r, ev);
}

bool (sdx_ubjson_reader_next)(sdx_ubjson_reader *r, sdx_event *ev) {
    bool ok = next_event(r, ev);
    if (ok) r->hot.last_kind = ev->kind;
    hot_update(r);
    return ok;
}

sdx_err sdx_ubjson_reader_error(const sdx_ubjson_reader *r, sdx_error *err) {
    if (r->state != STATE_ERROR) {
        sdx_error_fill(err, SDX_OK, here(r), NULL);
        if (err) err->msg = "no error";
        return SDX_OK;
    }
    sdx_error_fill(err, r->err, r->err_offset, r->msg);
    return r->err;
}

uint64_t sdx_ubjson_reader_offset(const sdx_ubjson_reader *r) { return here(r); }

bool sdx_ubjson_reader_skip(sdx_ubjson_reader *r) {
    if (r->state == STATE_ERROR) return false;
    if (r->hot.last_kind != SDX_ARRAY && r->hot.last_kind != SDX_MAP) return true;
    uint32_t d = r->hot.depth - 1; /* the depth of the begin event */
    sdx_event ev;
    while (sdx_ubjson_reader_next(r, &ev))
        if (ev.kind == SDX_END && ev.depth == d) return true;
    return false;
}

static bool src_next(void *ctx, sdx_event *ev) { return sdx_ubjson_reader_next(ctx, ev); }
static sdx_err src_error(const void *ctx, sdx_error *err) {
    return sdx_ubjson_reader_error(ctx, err);
}
static uint64_t src_offset(const void *ctx) { return sdx_ubjson_reader_offset(ctx); }

static const sdx_source_vt ubjson_source_vt = {src_next, src_error, src_offset};

sdx_source sdx_ubjson_reader_source(sdx_ubjson_reader *r) {
    sdx_source s = {&ubjson_source_vt, r};
    return s;
}
