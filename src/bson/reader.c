/*
 * The BSON pull reader (bsonspec.org 1.1).
 *
 * Every length is checked before it is used: a document's against the
 * bytes left in its enclosing document (or the input, at the root), and
 * every element value's against the bytes left before its document's
 * terminator. A document ends exactly at its terminator: a 0x00 type
 * byte before the end and a last byte that is not 0x00 are both errors
 * (no validation step returns early with success). Nesting is kept on an
 * explicit stack of levels, bounded by max_depth. A code with scope's
 * scope document is checked in full before the value is handed out, by a
 * walk on the same stack (scope_ok): no recursion, whatever the nesting of
 * scopes in scopes.
 *
 * Stream and FILE* input: each root document's length is read first,
 * then its bytes into one buffer that grows only as bytes actually arrive
 * (never to a size the input merely claims), bounded by max_document; the
 * memory reader then runs over that buffer.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/endian.h"
#include "core/stream.h"
#include "bson/bson_internal.h"
#include "core/utf8.h"
#include "core/platform.h"
#include "sdx/bson.h"
#include "simd/simd.h"

typedef uint8_t u8;

typedef sdx_bson_level level;

#define INLINE_LEVELS 16

struct sdx_bson_reader {
    /* data, pos, the innermost document's end and kind, the depth, a
     * pending key's value and the skip flag: what the inline path in
     * bson.h reads and advances */
    sdx_bson_reader_hot h;
    size_t len;     /* bytes at h.data */
    uint64_t base;  /* input offset of h.data[0] */
    uint32_t flags;
    uint32_t max_depth;
    size_t max_document;
    sdx_alloc alloc;
    size_t cap;     /* levels at h.levels */
    u8 done;
    uint64_t roots;
    sdx_err err;
    uint64_t err_off;
    const char *msg;
    sdx_read_fn read; /* NULL for memory input */
    void *read_ctx;
    u8 *owned;
    size_t owned_cap;
    level inline_levels[INLINE_LEVELS];
};

static bool fail(sdx_bson_reader *r, sdx_err code, size_t at, const char *msg) {
    r->h.blocked = 1;
    if (!r->err) {
        r->err = code;
        r->err_off = r->base + at;
        r->msg = msg;
    }
    return false;
}

/* The reader at r zeroed (its inline stack is left as it is), with the
 * options applied and no input yet. */
static void reader_init(sdx_bson_reader *r, const sdx_bson_read_opts *opts, const sdx_alloc *a) {
    static const sdx_bson_read_opts defaults = {0, 0, 0, NULL};
    if (!opts) opts = &defaults;
    /* the stack's entries are written before they are read (a reset
     * reader's hold the last input's levels; a new one's are zeroed) */
    sdx_zero_small(r, offsetof(sdx_bson_reader, inline_levels));
    r->flags = opts->flags;
    r->max_depth = opts->max_depth ? opts->max_depth : SDX_BSON_DEFAULT_MAX_DEPTH;
    r->max_document = opts->max_document ? opts->max_document : SDX_BSON_DEFAULT_MAX_DOCUMENT;
    if (r->max_document > SDX_BSON_MAX_SIZE) r->max_document = SDX_BSON_MAX_SIZE;
    r->alloc = *a;
    r->h.levels = r->inline_levels;
    r->cap = INLINE_LEVELS;
    r->h.room = r->cap < r->max_depth ? r->cap : r->max_depth;
    r->h.high = opts->flags & SDX_BSON_READ_NO_UTF8_CHECK ? 0 : 0x80;
    r->h.utf8_valid = r->h.high ? sdx_simd_active()->utf8_valid_prefix : NULL;
    r->h.keep_keys = (opts->flags & SDX_BSON_READ_KEEP_ARRAY_KEYS) != 0;
    if (opts->flags & ~(uint32_t)(SDX_BSON_READ_NO_UTF8_CHECK | SDX_BSON_READ_SEQUENCE |
                                  SDX_BSON_READ_COPY_INPUT | SDX_BSON_READ_KEEP_ARRAY_KEYS))
        fail(r, SDX_ERR_INVALID_ARG, 0, "unknown read flags");
}

static sdx_bson_reader *reader_alloc(const sdx_bson_read_opts *opts) {
    const sdx_alloc *a;
    sdx_bson_reader *r = sdx_reader_malloc(opts ? opts->alloc : NULL, sizeof *r, &a);
    if (!r) return NULL;
    memset(r->inline_levels, 0, sizeof r->inline_levels);
    reader_init(r, opts, a);
    return r;
}

/* The input of a reader over memory. */
static void memory_input(sdx_bson_reader *r, const char *data, size_t len) {
    r->h.data = (const u8 *)data;
    r->len = data ? len : 0;
}

sdx_bson_reader *sdx_bson_reader_new(const char *data, size_t len, const sdx_bson_read_opts *opts) {
    sdx_bson_reader *r = reader_alloc(opts);
    if (!r) return NULL;
    memory_input(r, data, len);
    return r;
}

/* Everything r allocated but r itself (no call for what it did not
 * allocate: a reset reader over short messages usually has nothing). */
static void free_parts(sdx_bson_reader *r) {
    if (r->h.levels != r->inline_levels) r->alloc.free(r->alloc.ctx, r->h.levels);
    if (r->owned) r->alloc.free(r->alloc.ctx, r->owned);
}

sdx_err sdx_bson_reader_reset(sdx_bson_reader *r, const char *data, size_t len) {
    if (!r) return SDX_ERR_INVALID_ARG;
    if (r->read) return SDX_ERR_USAGE; /* a stream's reader */
    const sdx_alloc a = r->alloc;
    const sdx_bson_read_opts o = {.flags = r->flags, .max_depth = r->max_depth, .max_document = r->max_document};
    free_parts(r);
    reader_init(r, &o, &a);
    memory_input(r, data, len);
    return SDX_OK;
}

sdx_bson_reader *sdx_bson_reader_new_stream(sdx_read_fn read, void *ctx,
                                            const sdx_bson_read_opts *opts) {
    sdx_bson_reader *r = sdx_bson_reader_new(NULL, 0, opts);
    if (!r) return NULL;
    r->read = read;
    r->read_ctx = ctx;
    return r;
}

#ifndef SDX_NO_STDIO
sdx_bson_reader *sdx_bson_reader_new_file(FILE *f, const sdx_bson_read_opts *opts) {
    return sdx_bson_reader_new_stream(sdx_file_read, f, opts);
}
#endif

void sdx_bson_reader_free(sdx_bson_reader *r) {
    if (!r) return;
    free_parts(r);
    r->alloc.free(r->alloc.ctx, r);
}

sdx_err sdx_bson_reader_error(const sdx_bson_reader *r, sdx_error *err) {
    if (err) {
        err->code = r->err;
        err->offset = (size_t)(r->err ? r->err_off : r->base + r->h.pos);
        err->line = err->column = 0;
        err->msg = r->err ? r->msg : sdx_strerror(SDX_OK);
    }
    return r->err;
}

uint64_t sdx_bson_reader_offset(const sdx_bson_reader *r) { return r->base + r->h.pos; }

/* ------------------------------------------------------------------------ */
/* Stream input: one root document at a time                                */
/* ------------------------------------------------------------------------ */

/* Read up to n bytes into owned + have, growing the buffer only by what
 * arrives; returns the bytes read (fewer at the end of the input), or
 * (size_t)-1 after an error. */
static size_t fill(sdx_bson_reader *r, size_t have, size_t want) {
    size_t got = have;
    while (got < want) {
        if (got == r->owned_cap) {
            size_t cap = r->owned_cap ? r->owned_cap * 2 : 4096;
            if (cap > want) cap = want;
            u8 *p = r->owned ? r->alloc.realloc(r->alloc.ctx, r->owned, r->owned_cap, cap)
                             : r->alloc.malloc(r->alloc.ctx, cap);
            if (!p) {
                fail(r, SDX_ERR_NOMEM, 0, "out of memory");
                return (size_t)-1;
            }
            r->owned = p;
            r->owned_cap = cap;
        }
        size_t room = (want < r->owned_cap ? want : r->owned_cap) - got;
        size_t n = r->read(r->read_ctx, r->owned + got, room);
        if (n == (size_t)-1) {
            fail(r, SDX_ERR_IO, got, "read error");
            return (size_t)-1;
        }
        if (n == 0) break;
        got += n > room ? room : n;
    }
    return got;
}

/* Load the next root document from the stream; false at the end of the
 * input (r->done) or on an error. */
static bool load_root(sdx_bson_reader *r) {
    r->base += r->len;
    r->h.data = r->owned;
    r->len = r->h.pos = 0;
    size_t got = fill(r, 0, 4);
    if (got == (size_t)-1) return false;
    if (got < 4) {
        if (got == 0 && r->roots) {
            r->done = 1;
            return false;
        }
        return fail(r, SDX_ERR_TRUNCATED, got, "input ends inside a document's length");
    }
    int32_t l = (int32_t)sdx_load_le32(r->owned);
    if (l < 5) return fail(r, SDX_ERR_SYNTAX, 0, "document length below 5");
    if ((size_t)l > r->max_document) return fail(r, SDX_ERR_LIMIT, 0, "document above max_document");
    got = fill(r, 4, (size_t)l);
    if (got == (size_t)-1) return false;
    r->h.data = r->owned;
    r->len = got;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Element values                                                            */
/* ------------------------------------------------------------------------ */

static bool utf8_ok(const sdx_bson_reader *r, const u8 *s, size_t n) {
    return (r->flags & SDX_BSON_READ_NO_UTF8_CHECK) || sdx_utf8_ok(r->h.utf8_valid, (const char *)s, n);
}

/* A string value at `at` with `avail` bytes before the terminator of its
 * document: int32 length L >= 1 (counting the NUL), L bytes ending in NUL.
 * Stores L. */
static bool string_value(sdx_bson_reader *r, size_t at, size_t avail, size_t *len) {
    if (avail < 4) return fail(r, SDX_ERR_SYNTAX, at, "string length beyond its document");
    int32_t l = (int32_t)sdx_load_le32(r->h.data + at);
    if (l < 1) return fail(r, SDX_ERR_SYNTAX, at, "string length below 1");
    if ((size_t)l > avail - 4) return fail(r, SDX_ERR_SYNTAX, at, "string length beyond its document");
    if (r->h.data[at + 4 + (size_t)l - 1] != 0)
        return fail(r, SDX_ERR_SYNTAX, at + 4 + (size_t)l - 1, "string not terminated by NUL");
    if (!utf8_ok(r, r->h.data + at + 4, (size_t)l - 1))
        return fail(r, SDX_ERR_UTF8, at + 4, "string is not valid UTF-8");
    *len = (size_t)l;
    return true;
}

/* A cstring at `at` within `avail` bytes; stores its length (without NUL).
 * Keys are short: one pass finds the NUL and whether any byte is above
 * 0x7f (only then is the UTF-8 check needed). */
static bool cstring(sdx_bson_reader *r, size_t at, size_t avail, size_t *len, const char *what) {
    const u8 *s = r->h.data + at, *p = s, *end = s + avail;
    u8 high = 0;
    while (p < end && *p) high |= *p++;
    if (p == end) return fail(r, SDX_ERR_SYNTAX, at, what);
    *len = (size_t)(p - s);
    if ((high & 0x80) && !utf8_ok(r, s, *len)) return fail(r, SDX_ERR_UTF8, at, "cstring is not valid UTF-8");
    return true;
}

/* Read the n bytes at p to their end with a reader held in *sub (its
 * error then tells whether they are one well-formed document); frees what
 * it allocated. */
static void drain(sdx_bson_reader *sub, const u8 *p, size_t n, uint32_t flags, uint32_t max_depth,
                  const sdx_alloc *alloc) {
    const sdx_bson_read_opts o = {flags, max_depth, 0, NULL};
    memset(sub->inline_levels, 0, sizeof sub->inline_levels); /* a new reader's, as reader_alloc */
    reader_init(sub, &o, alloc ? alloc : sdx_alloc_default());
    memory_input(sub, (const char *)p, n);
    sdx_event ev;
    while (sdx_bson_reader_next(sub, &ev)) {
    }
    free_parts(sub);
    sub->h.levels = sub->inline_levels;
}

bool sdx_bson_valid_document(const void *p, size_t n, bool no_utf8, uint32_t max_depth,
                             const sdx_alloc *alloc, sdx_err *err) {
    sdx_bson_reader sub;
    drain(&sub, p, n, no_utf8 ? SDX_BSON_READ_NO_UTF8_CHECK : 0, max_depth, alloc);
    *err = sub.err;
    return sub.err == SDX_OK;
}

/* The size of the code with scope at `at` within `avail` bytes (at least
 * 4): its int32 total length, the code string and the scope document's
 * length, which must fill the rest exactly; *doc gets the scope's offset
 * from `at`. 0 with the error set when malformed. The scope's content is
 * not looked at (scope_ok does that). */
static size_t cws_size(sdx_bson_reader *r, size_t at, size_t avail, size_t *doc) {
    int32_t c = (int32_t)sdx_load_le32(r->h.data + at);
    size_t l;
    if (c < 4 + 5 + 5 || (size_t)c > avail) {
        fail(r, SDX_ERR_SYNTAX, at, "code with scope length out of range");
        return 0;
    }
    size_t cn = (size_t)c;
    if (!string_value(r, at + 4, cn - 4, &l)) return 0;
    *doc = 4 + 4 + l;
    if (cn - *doc < 5 || sdx_load_le32(r->h.data + at + *doc) != cn - *doc) {
        fail(r, SDX_ERR_SYNTAX, at + *doc, "code with scope's scope length disagrees");
        return 0;
    }
    return cn;
}

/* Whether the array document [at, end] (its length field at `at`, its
 * terminator at end) has the keys "0", "1", ... in order. Malformed
 * content answers false: reading it then reports the error. */
static bool array_keys_canonical(sdx_bson_reader *r, size_t at, size_t end);

/* The size of the value of type t at `at`, checked against `avail` (the
 * bytes before its document's terminator); 0 with the error set when it
 * is malformed. Documents and arrays: their whole length. */
static size_t value_size(sdx_bson_reader *r, u8 t, size_t at, size_t avail) {
    size_t n = 0, l;
    switch (t) {
    case SDX_BSON_DOUBLE:
    case SDX_BSON_DATETIME:
    case SDX_BSON_TIMESTAMP:
    case SDX_BSON_INT64: n = 8; break;
    case SDX_BSON_INT32: n = 4; break;
    case SDX_BSON_OBJECTID: n = 12; break;
    case SDX_BSON_DECIMAL128: n = 16; break;
    case SDX_BSON_BOOL: n = 1; break;
    case SDX_BSON_UNDEFINED:
    case SDX_BSON_NULL:
    case SDX_BSON_MINKEY:
    case SDX_BSON_MAXKEY: return (size_t)-2; /* no value bytes */
    case SDX_BSON_STRING:
    case SDX_BSON_CODE:
    case SDX_BSON_SYMBOL:
        if (!string_value(r, at, avail, &l)) return 0;
        return 4 + l;
    case SDX_BSON_DOCUMENT:
    case SDX_BSON_ARRAY: {
        if (avail < 4) break;
        int32_t d = (int32_t)sdx_load_le32(r->h.data + at);
        if (d < 5) {
            fail(r, SDX_ERR_SYNTAX, at, "document length below 5");
            return 0;
        }
        if ((size_t)d > avail) {
            fail(r, SDX_ERR_SYNTAX, at, "document length beyond its enclosing document");
            return 0;
        }
        return (size_t)d;
    }
    case SDX_BSON_BINARY: {
        if (avail < 5) break;
        int32_t b = (int32_t)sdx_load_le32(r->h.data + at);
        if (b < 0) {
            fail(r, SDX_ERR_SYNTAX, at, "negative binary length");
            return 0;
        }
        if ((size_t)b > avail - 5) {
            fail(r, SDX_ERR_SYNTAX, at, "binary length beyond its document");
            return 0;
        }
        if (r->h.data[at + 4] == 0x02) {
            if (b < 4 || (int32_t)sdx_load_le32(r->h.data + at + 5) != b - 4) {
                fail(r, SDX_ERR_SYNTAX, at + 5, "old binary's inner length disagrees");
                return 0;
            }
        }
        return 5 + (size_t)b;
    }
    case SDX_BSON_REGEX: {
        size_t p, o;
        if (!cstring(r, at, avail, &p, "regex pattern not terminated within its document") ||
            !cstring(r, at + p + 1, avail - p - 1, &o, "regex options not terminated within its document"))
            return 0;
        return p + o + 2;
    }
    case SDX_BSON_DBPOINTER:
        if (!string_value(r, at, avail, &l)) return 0;
        if (avail - 4 - l < 12) {
            fail(r, SDX_ERR_SYNTAX, at + 4 + l, "DBPointer id beyond its document");
            return 0;
        }
        return 4 + l + 12;
    case SDX_BSON_CODE_W_SCOPE: {
        if (avail < 4) break;
        size_t doc;
        return cws_size(r, at, avail, &doc);
    }
    default: fail(r, SDX_ERR_SYNTAX, at, "unknown element type"); return 0;
    }
    if (n == 0 || avail < n) {
        fail(r, SDX_ERR_SYNTAX, at, "value beyond its document");
        return 0;
    }
    if (t == SDX_BSON_BOOL && r->h.data[at] > 1) {
        fail(r, SDX_ERR_SYNTAX, at, "boolean other than 0 or 1");
        return 0;
    }
    return n;
}

/* One more than the value size of the types whose values have a fixed
 * size (values without bytes: 1); 0 for the others. */
static const u8 fixed_hop[256] = {
    [SDX_BSON_DOUBLE] = 9,     [SDX_BSON_DATETIME] = 9, [SDX_BSON_TIMESTAMP] = 9,
    [SDX_BSON_INT64] = 9,      [SDX_BSON_INT32] = 5,    [SDX_BSON_OBJECTID] = 13,
    [SDX_BSON_DECIMAL128] = 17, [SDX_BSON_BOOL] = 2,     [SDX_BSON_UNDEFINED] = 1,
    [SDX_BSON_NULL] = 1,       [SDX_BSON_MINKEY] = 1,   [SDX_BSON_MAXKEY] = 1,
};

/* How far to step over the value of type t at p within `avail` bytes, for
 * the array-key probe: its lengths bounded by avail and nothing else
 * checked (reading the array checks everything, and for a well-formed
 * array these are its exact sizes). 0 when it does not fit or t is
 * unknown; (size_t)-2 for types without value bytes. */
static size_t hop_size(const u8 *p, u8 t, size_t avail) {
    /* the fixed sizes from a table: in an array of mixed types a switch
     * on every element's type mispredicts */
    const size_t f = fixed_hop[t];
    if (f) return f == 1 ? (size_t)-2 : avail >= f - 1 ? f - 1 : 0;
    uint32_t l;
    const u8 *q;
    switch (t) {
    case SDX_BSON_STRING:
    case SDX_BSON_CODE:
    case SDX_BSON_SYMBOL:
    case SDX_BSON_DBPOINTER:
        if (avail < 4) return 0;
        l = sdx_load_le32(p);
        if (t == SDX_BSON_DBPOINTER) return l <= avail - 4 && avail - 4 - l >= 12 ? 4 + (size_t)l + 12 : 0;
        return l <= avail - 4 ? 4 + (size_t)l : 0;
    case SDX_BSON_DOCUMENT:
    case SDX_BSON_ARRAY:
    case SDX_BSON_CODE_W_SCOPE:
        if (avail < 4) return 0;
        l = sdx_load_le32(p);
        return l >= 1 && l <= avail ? l : 0;
    case SDX_BSON_BINARY:
        if (avail < 5) return 0;
        l = sdx_load_le32(p);
        return l <= avail - 5 ? 5 + (size_t)l : 0;
    case SDX_BSON_REGEX:
        q = memchr(p, 0, avail);
        if (!q) return 0;
        q = memchr(q + 1, 0, avail - (size_t)(q + 1 - p));
        return q ? (size_t)(q + 1 - p) : 0;
    default: return 0;
    }
}

static bool array_keys_canonical(sdx_bson_reader *r, size_t at, size_t end) {
    const u8 *d = r->h.data;
    char k[21] = "0"; /* the expected key, counted up in decimal */
    size_t kn = 1;
    /* while kn <= 7: k and its NUL as a little-endian word, compared with
     * the eight bytes after the type byte under a mask */
    uint64_t kw = '0';
    for (size_t pos = at + 4;;) {
        if (pos >= end) return pos == end;
        const u8 t = d[pos];
        if (t == 0 || end - pos - 1 < kn + 1) return false;
        if (kn <= 7 && end - pos - 1 >= 8) {
            if ((sdx_load_le64(d + pos + 1) & (~UINT64_C(0) >> (8 * (7 - kn)))) != kw) return false;
        } else {
            if (d[pos + 1 + kn]) return false;
            for (size_t i = 0; i < kn; i++)
                if (d[pos + 1 + i] != (u8)k[i]) return false;
        }
        const size_t vat = pos + 1 + kn + 1;
        const size_t vn = hop_size(d + vat, t, end - vat);
        if (vn == 0) return false;
        pos = vat + (vn == (size_t)-2 ? 0 : vn);
        /* the next index */
        if (k[kn - 1] != '9') {
            k[kn - 1]++;
            kw += (uint64_t)1 << (8 * (kn - 1));
            continue;
        }
        size_t i = kn;
        while (i > 0 && k[i - 1] == '9') k[--i] = '0';
        if (i == 0) {
            memmove(k + 1, k, kn++);
            k[0] = '1';
        } else {
            k[i - 1]++;
        }
        kw = 0;
        if (kn <= 7)
            for (i = 0; i < kn; i++) kw |= (uint64_t)(u8)k[i] << (8 * i);
    }
}

/* ------------------------------------------------------------------------ */
/* Events                                                                    */
/* ------------------------------------------------------------------------ */

static void head(sdx_event *ev, sdx_kind kind, uint32_t depth, uint64_t tag) {
    memset(ev, 0, sizeof *ev);
    ev->kind = (u8)kind;
    ev->depth = depth;
    if (tag) {
        ev->tag_kind = SDX_TAG_BSON;
        ev->tag = tag;
    }
}

static bool push(sdx_bson_reader *r, size_t at, size_t end, bool array) {
    if (r->h.depth >= r->max_depth) return fail(r, SDX_ERR_DEPTH, at, "nesting too deep");
    if (r->h.depth == r->cap) {
        size_t cap = r->cap * 2;
        level *l = r->h.levels == r->inline_levels
                       ? r->alloc.malloc(r->alloc.ctx, cap * sizeof *l)
                       : r->alloc.realloc(r->alloc.ctx, r->h.levels, r->cap * sizeof *l, cap * sizeof *l);
        if (!l) return fail(r, SDX_ERR_NOMEM, at, "out of memory");
        if (r->h.levels == r->inline_levels) memcpy(l, r->inline_levels, sizeof r->inline_levels);
        r->h.levels = l;
        r->cap = cap;
        r->h.room = r->cap < r->max_depth ? r->cap : r->max_depth;
    }
    level *lv = &r->h.levels[r->h.depth++];
    lv->end = end;
    lv->array = (u8)array;
    lv->scope = 0;
    r->h.end = end;
    r->h.array = (u8)array;
    return true;
}

/* The innermost document's end and kind into the inline path's state,
 * after levels were closed. */
static void set_top(sdx_bson_reader *r) {
    if (r->h.depth) {
        r->h.end = r->h.levels[r->h.depth - 1].end;
        r->h.array = r->h.levels[r->h.depth - 1].array;
    }
}

static bool known_type(u8 t) {
    return (t >= SDX_BSON_DOUBLE && t <= SDX_BSON_DECIMAL128) || t == SDX_BSON_MINKEY || t == SDX_BSON_MAXKEY;
}

/* Check a code with scope's scope document (the n bytes at `at`, its
 * length field already checked to be n) with every rule of the reader,
 * without events and without recursion: its documents, and the scope
 * documents of code with scope inside it, are levels pushed on the
 * reader's own stack above the current ones (so max_depth bounds them,
 * and SDX_BSON_MAX_SCOPE_NESTING the scopes in scopes); the stack is back
 * at its depth afterwards. */
static bool scope_ok(sdx_bson_reader *r, size_t at, size_t n) {
    const size_t bottom = r->h.depth;
    unsigned scopes = 1;
    if (!push(r, at, at + n - 1, false)) return false;
    r->h.levels[r->h.depth - 1].scope = 1;
    size_t pos = at + 4;
    bool ok = true;
    while (ok && r->h.depth > bottom) {
        const level *lv = &r->h.levels[r->h.depth - 1];
        const size_t end = lv->end;
        if (pos == end) {
            if (r->h.data[pos] != 0) {
                ok = fail(r, SDX_ERR_SYNTAX, pos, "document not terminated by 0x00");
                break;
            }
            scopes -= lv->scope;
            r->h.depth--;
            pos++;
            continue;
        }
        u8 t = r->h.data[pos];
        size_t klen = 0; /* set by cstring() when ok (gcc -O1 cannot tell) */
        if (t == 0) ok = fail(r, SDX_ERR_SYNTAX, pos, "terminator before the document's end");
        else if (!known_type(t)) ok = fail(r, SDX_ERR_SYNTAX, pos, "unknown element type");
        else ok = cstring(r, pos + 1, end - pos - 1, &klen, "key not terminated within its document");
        if (!ok) break;
        const size_t vat = pos + 1 + klen + 1, avail = end - vat;
        if (t == SDX_BSON_CODE_W_SCOPE && avail >= 4) {
            size_t doc, cn = cws_size(r, vat, avail, &doc);
            if (cn == 0) {
                ok = false;
            } else if (scopes >= SDX_BSON_MAX_SCOPE_NESTING) {
                ok = fail(r, SDX_ERR_DEPTH, vat + doc, "code with scope nested too deep");
            } else if ((ok = push(r, vat + doc, vat + cn - 1, false))) {
                /* the scope ends where the code with scope does */
                r->h.levels[r->h.depth - 1].scope = 1;
                scopes++;
                pos = vat + doc + 4;
            }
            continue;
        }
        size_t vn = value_size(r, t, vat, avail);
        if (vn == 0) {
            ok = false;
        } else if (t == SDX_BSON_DOCUMENT || t == SDX_BSON_ARRAY) {
            if ((ok = push(r, vat, vat + vn - 1, false))) pos = vat + 4;
        } else {
            pos = vat + (vn == (size_t)-2 ? 0 : vn);
        }
    }
    r->h.depth = bottom;
    set_top(r);
    return ok;
}

static bool value_slow(sdx_bson_reader *r, sdx_event *ev, u8 t, size_t at, size_t avail, uint32_t depth);

/* The value of the element whose type byte is at `el`, its value at `at`:
 * the common types here, each with its checks; the rest, and every
 * malformed value (for its error), in value_slow. */
static bool value(sdx_bson_reader *r, sdx_event *ev, size_t el, size_t at) {
    const u8 t = r->h.data[el];
    const size_t avail = r->h.levels[r->h.depth - 1].end - at;
    const uint32_t depth = (uint32_t)r->h.depth;
    const u8 *p = r->h.data + at;
    switch (t) {
    case SDX_BSON_INT32:
        if (avail < 4) break;
        head(ev, SDX_INT, depth, 0);
        ev->v.i = (int32_t)sdx_load_le32(p);
        r->h.pos = at + 4;
        return true;
    case SDX_BSON_INT64:
        if (avail < 8) break;
        head(ev, SDX_INT, depth, t);
        ev->v.i = (int64_t)sdx_load_le64(p);
        r->h.pos = at + 8;
        return true;
    case SDX_BSON_DOUBLE: {
        if (avail < 8) break;
        uint64_t bits = sdx_load_le64(p);
        head(ev, SDX_DOUBLE, depth, 0);
        memcpy(&ev->v.d, &bits, 8);
        r->h.pos = at + 8;
        return true;
    }
    case SDX_BSON_STRING: {
        size_t l;
        if (!string_value(r, at, avail, &l)) return false;
        head(ev, SDX_STR, depth, 0);
        ev->v.str.ptr = (const char *)p + 4;
        ev->v.str.len = l - 1;
        r->h.pos = at + 4 + l;
        return true;
    }
    case SDX_BSON_BOOL:
        if (avail < 1 || p[0] > 1) break;
        head(ev, SDX_BOOL, depth, 0);
        ev->v.b = p[0] != 0;
        r->h.pos = at + 1;
        return true;
    case SDX_BSON_NULL:
        head(ev, SDX_NULL, depth, 0);
        r->h.pos = at;
        return true;
    default: break;
    }
    return value_slow(r, ev, t, at, avail, depth);
}

/* Every type, malformed values reported. */
static bool value_slow(sdx_bson_reader *r, sdx_event *ev, u8 t, size_t at, size_t avail, uint32_t depth) {
    size_t n = value_size(r, t, at, avail);
    if (n == 0) return false;
    if (n == (size_t)-2) n = 0;
    const u8 *p = r->h.data + at;
    switch (t) {
    case SDX_BSON_DOUBLE: {
        uint64_t bits = sdx_load_le64(p);
        head(ev, SDX_DOUBLE, depth, 0);
        memcpy(&ev->v.d, &bits, 8);
        break;
    }
    case SDX_BSON_STRING:
    case SDX_BSON_CODE:
    case SDX_BSON_SYMBOL:
        head(ev, SDX_STR, depth, t == SDX_BSON_STRING ? 0 : t);
        ev->v.str.ptr = (const char *)p + 4;
        ev->v.str.len = n - 5;
        break;
    case SDX_BSON_DOCUMENT:
    case SDX_BSON_ARRAY: {
        bool array = t == SDX_BSON_ARRAY && (!r->h.keep_keys || array_keys_canonical(r, at, at + n - 1));
        if (!push(r, at, at + n - 1, array)) return false;
        head(ev, array ? SDX_ARRAY : SDX_MAP, depth, t == SDX_BSON_ARRAY && !array ? SDX_BSON_ARRAY : 0);
        ev->v.count = SDX_COUNT_UNKNOWN;
        r->h.pos = at + 4;
        return true;
    }
    case SDX_BSON_BINARY: {
        u8 sub = p[4];
        size_t skip = sub == 0x02 ? 9 : 5;
        head(ev, SDX_BIN, depth, sub ? SDX_BSON_BINARY_TAG(sub) : 0);
        ev->v.str.ptr = (const char *)p + skip;
        ev->v.str.len = n - skip;
        break;
    }
    case SDX_BSON_UNDEFINED:
    case SDX_BSON_MINKEY:
    case SDX_BSON_MAXKEY: head(ev, SDX_NULL, depth, t); break;
    case SDX_BSON_NULL: head(ev, SDX_NULL, depth, 0); break;
    case SDX_BSON_BOOL:
        head(ev, SDX_BOOL, depth, 0);
        ev->v.b = p[0] != 0;
        break;
    case SDX_BSON_INT32:
        head(ev, SDX_INT, depth, 0);
        ev->v.i = (int32_t)sdx_load_le32(p);
        break;
    case SDX_BSON_DATETIME:
    case SDX_BSON_INT64:
        head(ev, SDX_INT, depth, t);
        ev->v.i = (int64_t)sdx_load_le64(p);
        break;
    case SDX_BSON_TIMESTAMP: {
        uint64_t u = sdx_load_le64(p);
        head(ev, u > INT64_MAX ? SDX_UINT : SDX_INT, depth, t);
        ev->v.u = u;
        break;
    }
    case SDX_BSON_CODE_W_SCOPE: {
        size_t doc = 4 + 4 + (size_t)sdx_load_le32(p + 4); /* checked by value_size */
        if (!scope_ok(r, at + doc, n - doc)) return false;
        head(ev, SDX_BIN, depth, t);
        ev->v.str.ptr = (const char *)p;
        ev->v.str.len = n;
        break;
    }
    default: /* ObjectId, decimal128, regex, DBPointer */
        head(ev, SDX_BIN, depth, t);
        ev->v.str.ptr = (const char *)p;
        ev->v.str.len = n;
        break;
    }
    r->h.pos = at + n;
    return true;
}

static bool next_event(sdx_bson_reader *r, sdx_event *ev) {
    if (r->err || r->done) return false;
    if (r->h.value_due) {
        r->h.value_due = 0;
        return value(r, ev, r->h.pending, r->h.pending_value);
    }
    if (r->h.depth == 0) {
        /* a root document */
        if (r->read) {
            if (!load_root(r)) return false;
        } else if (r->h.pos == r->len && r->roots) {
            r->done = 1;
            return false;
        } else if (r->roots && !(r->flags & SDX_BSON_READ_SEQUENCE)) {
            return fail(r, SDX_ERR_SYNTAX, r->h.pos, "bytes after the document");
        }
        size_t left = r->len - r->h.pos;
        if (left < 4) return fail(r, SDX_ERR_TRUNCATED, r->len, "input ends inside a document's length");
        int32_t l = (int32_t)sdx_load_le32(r->h.data + r->h.pos);
        if (l < 5) return fail(r, SDX_ERR_SYNTAX, r->h.pos, "document length below 5");
        if ((size_t)l > left) return fail(r, SDX_ERR_TRUNCATED, r->len, "input ends inside a document");
        if (!push(r, r->h.pos, r->h.pos + (size_t)l - 1, false)) return false;
        r->h.pos += 4;
        head(ev, SDX_MAP, 0, 0);
        ev->v.count = SDX_COUNT_UNKNOWN;
        return true;
    }
    level *lv = &r->h.levels[r->h.depth - 1];
    size_t pos = r->h.pos;
    if (pos == lv->end) {
        if (r->h.data[pos] != 0) return fail(r, SDX_ERR_SYNTAX, pos, "document not terminated by 0x00");
        r->h.pos = pos + 1;
        r->h.depth--;
        set_top(r);
        head(ev, SDX_END, (uint32_t)r->h.depth, 0);
        if (r->h.depth == 0) {
            r->roots++;
            if (r->read && !(r->flags & SDX_BSON_READ_SEQUENCE)) {
                /* one document: the stream must end here */
                u8 extra;
                size_t n = r->read(r->read_ctx, &extra, 1);
                if (n == (size_t)-1) return fail(r, SDX_ERR_IO, r->h.pos, "read error");
                if (n) return fail(r, SDX_ERR_SYNTAX, r->h.pos, "bytes after the document");
                r->done = 1;
            }
        }
        return true;
    }
    u8 t = r->h.data[pos];
    if (t == 0) return fail(r, SDX_ERR_SYNTAX, pos, "terminator before the document's end");
    if (!known_type(t)) return fail(r, SDX_ERR_SYNTAX, pos, "unknown element type");
    size_t klen;
    if (!cstring(r, pos + 1, lv->end - pos - 1, &klen, "key not terminated within its document")) return false;
    /* an array's keys: checked when it began (SDX_BSON_READ_KEEP_ARRAY_KEYS), else not looked at */
    if (lv->array) return value(r, ev, pos, pos + 1 + klen + 1);
    head(ev, SDX_KEY, (uint32_t)r->h.depth, 0);
    ev->v.str.ptr = (const char *)r->h.data + pos + 1;
    ev->v.str.len = klen;
    r->h.pending = pos;
    r->h.pending_type = t;
    r->h.pending_value = pos + 1 + klen + 1;
    r->h.value_due = 1;
    r->h.pos = pos + 1 + klen + 1;
    return true;
}

bool(sdx_bson_reader_next)(sdx_bson_reader *r, sdx_event *ev) {
    bool ok = next_event(r, ev);
    r->h.began = ok && (ev->kind == SDX_MAP || ev->kind == SDX_ARRAY);
    return ok;
}

bool sdx_bson_reader_skip(sdx_bson_reader *r) {
    if (r->err) return false;
    if (!r->h.began) return true;
    /* The document just opened is the innermost level: read (and so
     * check) everything up to its SDX_END, whose depth is the level's. */
    uint32_t target = (uint32_t)(r->h.depth - 1);
    sdx_event ev;
    while (sdx_bson_reader_next(r, &ev))
        if (ev.kind == SDX_END && ev.depth == target) return true;
    return false;
}

static bool src_next(void *ctx, sdx_event *ev) { return sdx_bson_reader_next(ctx, ev); }
static sdx_err src_error(const void *ctx, sdx_error *err) { return sdx_bson_reader_error(ctx, err); }
static uint64_t src_offset(const void *ctx) { return sdx_bson_reader_offset(ctx); }
static const sdx_source_vt bson_source_vt = {src_next, src_error, src_offset};

sdx_source sdx_bson_reader_source(sdx_bson_reader *r) {
    sdx_source s = {&bson_source_vt, r};
    return s;
}
