/*
 * Decoding: Python objects straight from a pull reader's events
 * (dec_tmpl.h, once per reader), the conversions of tagged values
 * (datetimes, UUIDs, decimals, bignums, Tagged), sdx.loads and the
 * iterator of sdx.iter_load over a file's read().
 */
/* The readers' fast paths inlined into the container loops of dec_tmpl.h
 * (common.h): about 6 % fewer instructions for a MessagePack loads. */
#define SDX_READER_ALWAYS_INLINE 1
#include "sdxpy.h"

#include <datetime.h>

#include <math.h>
#include <stdatomic.h>

#include "core/platform.h"

/* ------------------------------------------------------------------------ */
/* The decoding context                                                      */
/* ------------------------------------------------------------------------ */

#define DEC_INLINE_STACK 128

typedef struct dec_ctx {
    sp_format fmt;
    sdx_source src;         /* the reader, for its error and offset */
    int utf8_replace;       /* strings not checked by the reader: decode with U+FFFD */
    int in_key;             /* building a map key: arrays as tuples */
    PyObject *pending_exc;  /* an exception raised by the input's read() */
    uintptr_t in_lo, in_hi; /* the input in memory (sdx.loads), else 0, 0 */
    PyObject **stack;       /* the elements of the open arrays */
    Py_ssize_t sp, cap;
    PyObject *inline_stack[DEC_INLINE_STACK];
} dec_ctx;

static void dec_init(dec_ctx *c, sp_format f, const sp_opts *o) {
    c->fmt = f;
    c->utf8_replace = o->utf8_replace;
    c->in_key = 0;
    c->pending_exc = NULL;
    c->in_lo = c->in_hi = 0;
    c->stack = c->inline_stack;
    c->sp = 0;
    c->cap = DEC_INLINE_STACK;
}

static void dec_destroy(dec_ctx *c) {
    while (c->sp > 0) Py_DECREF(c->stack[--c->sp]);
    if (c->stack != c->inline_stack) PyMem_Free(c->stack);
    c->stack = c->inline_stack;
    c->cap = DEC_INLINE_STACK;
    Py_CLEAR(c->pending_exc);
}

static int dec_grow(dec_ctx *c) {
    Py_ssize_t cap = c->cap * 2;
    PyObject **s;
    if (c->stack == c->inline_stack) {
        s = PyMem_Malloc((size_t)cap * sizeof *s);
        if (s) memcpy(s, c->stack, (size_t)c->sp * sizeof *s);
    } else {
        s = PyMem_Realloc(c->stack, (size_t)cap * sizeof *s);
    }
    if (!s) {
        PyErr_NoMemory();
        return -1;
    }
    c->stack = s;
    c->cap = cap;
    return 0;
}

/* Raise the reader's error (or the read() exception behind an I/O error). */
static void dec_reader_fail(dec_ctx *c) {
    if (PyErr_Occurred()) return;
    sdx_error e;
    sdx_err code = sdx_source_error(c->src, &e);
    if (c->pending_exc) {
        PyObject *exc = c->pending_exc;
        c->pending_exc = NULL;
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
        return;
    }
    if (code == SDX_OK) {
        sp_decode_error_msg(c->fmt, SDX_ERR_TRUNCATED, sdx_source_offset(c->src), "the input ends inside a value");
        return;
    }
    sp_decode_error(c->fmt, &e);
}

/* A key that cannot go into a dict (unhashable): a DecodeError. */
static void dec_key_error(dec_ctx *c, PyObject *k) {
    if (!PyErr_ExceptionMatches(PyExc_TypeError)) return;
    PyErr_Clear();
    sp_decode_error_msg(c->fmt, SDX_ERR_KEY, sdx_source_offset(c->src), "a map key of type %.50s is not hashable",
                        Py_TYPE(k)->tp_name);
}

/* Sizing the dicts of maps. A dict made empty allocates its first table
 * at its first entry (5 entries), and CPython allocates a new one and
 * rehashes the entries into it at 6, 11, 22, 43, ... entries. Where the
 * number of entries is known or well guessed, the dict is made for them
 * at once (_PyDict_NewPresized, CPython before 3.13), as msgspec's and
 * orjson's are: on CPython 3.11, a loads of citm_catalog's first event (8
 * keys) took 0.90-0.93 of the time, JSON, MessagePack, CBOR and BSON
 * (bench/README.md, "Update, 2026-12-05 (sixth)").
 * Such a dict's table is the general kind (a hash beside each entry)
 * where one grown from empty with str keys holds none: twitter's value
 * takes 12 % more memory (1080 KB against 963 KB; orjson's 1078 KB,
 * msgspec's 1090 KB).
 *
 * dec_dict_new: a declared count, above 5 and up to DEC_DICT_PRESIZE (so
 * that a declared count, which no entry has backed yet, cannot make the
 * decoder allocate much at once). */
#define DEC_DICT_PRESIZE 64
#if PY_VERSION_HEX < 0x030D0000 && !defined(Py_LIMITED_API) && !defined(PYPY_VERSION)
#define DEC_PRESIZED(n) _PyDict_NewPresized(n)
#else
#define DEC_PRESIZED(n) PyDict_New()
#endif
static inline PyObject *dec_dict_new(uint64_t count) {
    if (count > 5 && count <= DEC_DICT_PRESIZE) return DEC_PRESIZED((Py_ssize_t)count);
    return PyDict_New();
}

/* dec_dict_guess: a map without a count (JSON's, BSON's, CBOR's and
 * UBJSON's of unknown length), made at its first key `k`: sized as the
 * last such map whose first key was the same str (the key cache gives a
 * repeated key the same object; another key that falls on the same slot
 * only makes a worse guess), at most DEC_DICT_GUESS_MAX, so that a wrong
 * guess costs a table of 32 slots at most. Records that repeat their
 * keys are sized right from the second one on. *guess gets the slot that
 * dec_dict_learn fills with the size the map had in the end. One table
 * for all decoders: the module holds the GIL (it declares no Py_mod_gil
 * slot). */
#define DEC_DICT_GUESS_MAX 21
static uint8_t dec_dict_sizes[256];

static inline PyObject *dec_dict_guess(PyObject *k, uint8_t **guess) {
    uint8_t *slot = &dec_dict_sizes[(uint64_t)(uintptr_t)k * UINT64_C(0x9e3779b97f4a7c15) >> 56];
    *guess = slot;
    return dec_dict_new(*slot);
}

static inline void dec_dict_learn(uint8_t *slot, PyObject *d) {
    Py_ssize_t n = PyDict_GET_SIZE(d);
    *slot = (uint8_t)(n < DEC_DICT_GUESS_MAX ? n : DEC_DICT_GUESS_MAX);
}

/* ------------------------------------------------------------------------ */
/* Strings and keys                                                          */
/* ------------------------------------------------------------------------ */

/* Whether n bytes at p are ASCII: 8 at a time. */
static inline int is_ascii(const char *p, size_t n) {
    uint64_t a = 0, w;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, p + i, 8);
        a |= w;
    }
    for (; i < n; i++) a |= (unsigned char)p[i];
    return (a & UINT64_C(0x8080808080808080)) == 0;
}

/* Byte tests on 8 bytes at a time (SWAR; each lane's result in its top
 * bit, no carry between lanes):
 *   UTF8_CONT: continuation bytes, 10xxxxxx (bit 7 set, bit 6 clear: the
 *              word shifted left by one puts each byte's bit 6 in its
 *              bit 7);
 *   UTF8_GE(w, k): bytes of at least 0x80 + k (the low seven bits plus
 *              0x80 - k reach bit 7; at most 0x7f + 0x7f, so no carry). */
#define UTF8_HI UINT64_C(0x8080808080808080)
#define UTF8_LO7 UINT64_C(0x7f7f7f7f7f7f7f7f)
#define UTF8_CONT(w) ((w) & ~((w) << 1) & UTF8_HI)
#define UTF8_GE(w, k) ((((w) & UTF8_LO7) + (UINT64_C(0x0101010101010101) * (0x80 - (k)))) & (w) & UTF8_HI)

static inline uint64_t load8(const char *p) {
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

/* The characters of n bytes of valid UTF-8 (the bytes that are not
 * continuation bytes) and the widest of them: *wide 0 up to U+00FF (lead
 * bytes below 0xC4), 1 up to U+FFFF (below 0xF0), 2 beyond. */
static size_t utf8_chars(const char *p, size_t n, unsigned *wide) {
    uint64_t ge_c4 = 0, ge_f0 = 0;
    size_t conts = 0, i = 0;
    while (n - i >= 8) {
        /* per lane at most 255 words, then the lanes are summed */
        size_t stop = n - i > 8 * 255 ? i + 8 * 255 : n;
        uint64_t lanes = 0;
        for (; i + 8 <= stop; i += 8) {
            uint64_t w = load8(p + i);
            lanes += UTF8_CONT(w) >> 7;
            ge_c4 |= UTF8_GE(w, 0x44);
            ge_f0 |= UTF8_GE(w, 0x70);
        }
        lanes = (lanes & UINT64_C(0x00ff00ff00ff00ff)) + ((lanes >> 8) & UINT64_C(0x00ff00ff00ff00ff));
        conts += (size_t)((lanes * UINT64_C(0x0001000100010001)) >> 48);
    }
    if (i < n) { /* the last bytes, zero (ASCII) after them */
        uint64_t w = 0;
        memcpy(&w, p + i, n - i);
        uint64_t m = UTF8_CONT(w) >> 7;
        conts += (size_t)((m * UINT64_C(0x0101010101010101)) >> 56);
        ge_c4 |= UTF8_GE(w, 0x44);
        ge_f0 |= UTF8_GE(w, 0x70);
    }
    *wide = ge_f0 ? 2 : ge_c4 ? 1 : 0;
    return n - conts;
}

/* Decode valid UTF-8 into the code units of type T (Py_UCS1, Py_UCS2 or
 * Py_UCS4, wide enough for every character): eight ASCII bytes at a time
 * where they come, else one character. */
#define UTF8_DECODE(T, dst, src, end)                                                                      \
    do {                                                                                                   \
        T *d_ = (T *)(dst);                                                                                \
        const unsigned char *q_ = (src);                                                                   \
        while (q_ < (end)) {                                                                               \
            Py_UCS4 ch = *q_;                                                                              \
            if (ch < 0x80) {                                                                               \
                if ((end) - q_ >= 8 && !(load8((const char *)q_) & UTF8_HI)) {                             \
                    for (int j_ = 0; j_ < 8; j_++) d_[j_] = (T)q_[j_];                                     \
                    d_ += 8;                                                                               \
                    q_ += 8;                                                                               \
                    continue;                                                                              \
                }                                                                                          \
                q_ += 1;                                                                                   \
            } else if (ch < 0xe0) {                                                                        \
                ch = (ch & 0x1f) << 6 | (q_[1] & 0x3f);                                                    \
                q_ += 2;                                                                                   \
            } else if (ch < 0xf0) {                                                                        \
                ch = (ch & 0x0f) << 12 | (Py_UCS4)(q_[1] & 0x3f) << 6 | (q_[2] & 0x3f);                    \
                q_ += 3;                                                                                   \
            } else {                                                                                       \
                ch = (ch & 0x07) << 18 | (Py_UCS4)(q_[1] & 0x3f) << 12 | (Py_UCS4)(q_[2] & 0x3f) << 6 |    \
                     (q_[3] & 0x3f);                                                                       \
                q_ += 4;                                                                                   \
            }                                                                                              \
            *d_++ = (T)ch;                                                                                 \
        }                                                                                                  \
    } while (0)

/* A str from n bytes of UTF-8 that the reader has checked: the
 * characters counted and the widest found from the lead bytes, then
 * decoded into a str of that width. Unchecked input (utf8="replace")
 * takes Python's decoder. */
static PyObject *dec_str_slow(dec_ctx *c, const char *p, size_t n) {
    if (c->utf8_replace) return PyUnicode_DecodeUTF8(p, (Py_ssize_t)n, "replace");
    const unsigned char *s = (const unsigned char *)p, *end = s + n;
    unsigned wide;
    size_t chars = utf8_chars(p, n, &wide);
    PyObject *u = PyUnicode_New((Py_ssize_t)chars, wide == 2 ? 0x10ffff : wide ? 0xffff : 0xff);
    if (!u) return NULL;
    void *data = PyUnicode_DATA(u);
    switch (PyUnicode_KIND(u)) {
    case PyUnicode_1BYTE_KIND: UTF8_DECODE(Py_UCS1, data, s, end); break;
    case PyUnicode_2BYTE_KIND: UTF8_DECODE(Py_UCS2, data, s, end); break;
    default: UTF8_DECODE(Py_UCS4, data, s, end); break;
    }
    return u;
}

static inline PyObject *dec_str(dec_ctx *c, const char *p, size_t n) {
    if (is_ascii(p, n)) {
        PyObject *s = PyUnicode_New((Py_ssize_t)n, 127);
        if (s && n) memcpy(PyUnicode_DATA(s), p, n);
        return s;
    }
    return dec_str_slow(c, p, n);
}

/* The key cache: recent short ASCII keys (most documents repeat their
 * keys), each str made once and its hash computed once.
 *
 * A key of up to 16 bytes is looked up by its bytes themselves: they are
 * read as two 64-bit words, zero past the key's end, and an entry holds
 * those two words and the length, so a hit is three compares of integers
 * (no memcmp call, no read of the cached str). Where 16 bytes can be read
 * from the key's start within the input (dec_ctx's in_lo/in_hi), the
 * words are one unaligned 16-byte read masked by the length, with no
 * branch on the length; elsewhere (the end of the input, a key the reader
 * unescaped into its own space, a streamed input) its n bytes are copied
 * into a zeroed pair of words. A longer key (up to 64 bytes) is found by a
 * hash of its bytes in `a` and compared with the cached str's bytes word
 * by word. */
#define KEY_CACHE_BITS 10
#define KEY_CACHE_SETS (1 << KEY_CACHE_BITS) /* of two entries, one 64-byte line each */
#define KEY_CACHE_MAX_LEN 64
#define KEY_SHORT 16

typedef struct {
    uint64_t a, b; /* short key: its bytes; long key: its hash in a */
    size_t n;
    PyObject *s;
} key_entry;

/* Two ways per set: a key whose slot another key took stays in the
 * second way, so that two keys with the same index do not evict each
 * other in turn (each eviction costs a new str and its hash). */
static _Alignas(64) key_entry key_cache[2 * KEY_CACHE_SETS];

void sp_key_cache_clear(void) {
    for (size_t i = 0; i < 2 * KEY_CACHE_SETS; i++) Py_CLEAR(key_cache[i].s);
}

/* 16 bytes of 0xff then 16 of 0: the mask of the first n bytes of a
 * 16-byte word pair is at key_mask_bytes + 16 - n (byte order free). */
static const unsigned char key_mask_bytes[32] = {
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

/* A hash of the n bytes at p (16 < n <= 64): whole words, then the last 8
 * overlapping, with no byte read outside. Each word is multiplied on its
 * own and the products are added, so the multiplications do not wait for
 * each other (a chain of them took about as long as the rest of a long
 * key's lookup); equal keys are still compared byte for byte. */
static inline uint64_t key_hash_long(const char *p, size_t n) {
    uint64_t h = (uint64_t)n * UINT64_C(0x9e3779b97f4a7c15);
    uint64_t k = UINT64_C(0xff51afd7ed558ccd);
    for (size_t i = 0; i + 8 < n; i += 8, k += UINT64_C(0x9e3779b97f4a7c16))
        h += (load8(p + i) ^ (k >> 7)) * k;
    h += (load8(p + n - 8) ^ UINT64_C(0x2545f4914f6cdd1d)) * UINT64_C(0xc4ceb9fe1a85ec53);
    h ^= h >> 29;
    h *= UINT64_C(0xbf58476d1ce4e5b9);
    return h ^ (h >> 32);
}

/* Whether the n bytes at p and q (n > 8) are equal: whole words, then
 * the last 8 overlapping (no call, no byte read outside). */
static inline int key_equal_long(const char *p, const char *q, size_t n) {
    uint64_t d = load8(p + n - 8) ^ load8(q + n - 8);
    for (size_t i = 0; i + 8 < n; i += 8) d |= load8(p + i) ^ load8(q + i);
    return d == 0;
}

/* Not in the set: a new str, hashed, into the set's first way (the first
 * way's key moves to the second, whose key is dropped). */
static SDX_NOINLINE PyObject *key_miss(dec_ctx *c, key_entry *set, const char *p, size_t n, uint64_t a,
                                       uint64_t b) {
    if (!is_ascii(p, n)) return dec_str_slow(c, p, n);
    PyObject *s = PyUnicode_New((Py_ssize_t)n, 127);
    if (!s) return NULL;
    if (n) memcpy(PyUnicode_DATA(s), p, n);
    if (PyObject_Hash(s) == -1) {
        Py_DECREF(s);
        return NULL;
    }
    PyObject *old = set[1].s;
    set[1] = set[0];
    set[0].a = a;
    set[0].b = b;
    set[0].n = n;
    set[0].s = Py_NewRef(s);
    Py_XDECREF(old);
    return s;
}

static SDX_NOINLINE PyObject *key_long(dec_ctx *c, const char *p, size_t n) {
    if (n > KEY_CACHE_MAX_LEN) return dec_str(c, p, n);
    const uint64_t h = key_hash_long(p, n);
    key_entry *set = &key_cache[2 * (h & (KEY_CACHE_SETS - 1))];
    for (int i = 0; i < 2; i++)
        if (set[i].a == h && set[i].n == n && set[i].s && key_equal_long(PyUnicode_DATA(set[i].s), p, n))
            return Py_NewRef(set[i].s);
    return key_miss(c, set, p, n, h, 0);
}

static inline PyObject *dec_key(dec_ctx *c, const char *p, size_t n) {
    if (n > KEY_SHORT) return key_long(c, p, n);
    uint64_t a, b;
    if ((uintptr_t)p >= c->in_lo && (uintptr_t)p + KEY_SHORT <= c->in_hi) {
        const unsigned char *m = key_mask_bytes + KEY_SHORT - n;
        a = load8(p) & load8((const char *)m);
        b = load8(p + 8) & load8((const char *)m + 8);
    } else {
        uint64_t w[2] = {0, 0};
        if (n) memcpy(w, p, n); /* p may be NULL when n is 0 */
        a = w[0];
        b = w[1];
    }
    /* one multiplication (the set's address is on the path of every key):
     * the product's top bits depend on every bit of the word, b's
     * rotated so that its bytes fall on other bits than a's */
    const uint64_t h = (a ^ (b << 29 | b >> 35) ^ n) * UINT64_C(0x9e3779b97f4a7c15);
    key_entry *set = &key_cache[2 * (h >> (64 - KEY_CACHE_BITS))];
    /* the entries' n of a long key (> 16) never equals a short key's */
    if (SDX_LIKELY(set[0].a == a && set[0].b == b && set[0].n == n && set[0].s)) return Py_NewRef(set[0].s);
    if (set[1].a == a && set[1].b == b && set[1].n == n && set[1].s) return Py_NewRef(set[1].s);
    return key_miss(c, set, p, n, a, b);
}

/* ------------------------------------------------------------------------ */
/* Scalars                                                                   */
/* ------------------------------------------------------------------------ */

/* A number kept as text (SDX_RAW: JSON beyond 64 bits, UBJSON's H): an
 * int when it is an integer, else a float (JSON) or a Decimal (UBJSON). */
static PyObject *dec_raw(dec_ctx *c, const char *p, size_t n) {
    int integer = 1;
    for (size_t i = 0; i < n; i++)
        if (p[i] == '.' || p[i] == 'e' || p[i] == 'E') integer = 0;
    PyObject *text = PyUnicode_FromStringAndSize(p, (Py_ssize_t)n);
    if (!text) return NULL;
    PyObject *v;
    if (integer) v = PyLong_FromUnicodeObject(text, 10);
    else if (c->fmt == SDX_FORMAT_JSON) v = PyFloat_FromString(text);
    else v = PyObject_CallOneArg(sp.Decimal, text);
    Py_DECREF(text);
    if (!v && PyErr_ExceptionMatches(PyExc_ValueError)) {
        PyErr_Clear();
        sp_decode_error_msg(c->fmt, SDX_ERR_LIMIT, sdx_source_offset(c->src),
                            "the number of %zu digits is beyond Python's int limit (sys.set_int_max_str_digits)",
                            n);
    }
    return v;
}

static PyObject *dec_scalar(dec_ctx *c, const sdx_event *ev) {
    switch ((sdx_kind)ev->kind) {
    case SDX_NULL: Py_RETURN_NONE;
    case SDX_BOOL:
        if (ev->v.b) Py_RETURN_TRUE;
        Py_RETURN_FALSE;
    case SDX_INT: return PyLong_FromLongLong(ev->v.i);
    case SDX_UINT: return PyLong_FromUnsignedLongLong(ev->v.u);
    case SDX_NINT: { /* -1 - n */
        PyObject *n = PyLong_FromUnsignedLongLong(ev->v.u);
        if (!n) return NULL;
        PyObject *v = PyNumber_Invert(n);
        Py_DECREF(n);
        return v;
    }
    case SDX_DOUBLE: return PyFloat_FromDouble(ev->v.d);
    case SDX_STR:
    case SDX_KEY: return dec_str(c, ev->v.str.ptr, ev->v.str.len);
    case SDX_BIN: return PyBytes_FromStringAndSize(ev->v.str.ptr, (Py_ssize_t)ev->v.str.len);
    case SDX_RAW: return dec_raw(c, ev->v.str.ptr, ev->v.str.len);
    default: break;
    }
    return sp_decode_error_msg(c->fmt, SDX_ERR_SYNTAX, sdx_source_offset(c->src), "unexpected event %d",
                               (int)ev->kind);
}

/* ------------------------------------------------------------------------ */
/* Tagged values                                                             */
/* ------------------------------------------------------------------------ */

/* Days since 1970-01-01 to a civil date (proleptic Gregorian). */
static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d) {
    z += 719468;
    const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const unsigned doe = (unsigned)(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

/* An aware UTC datetime for `sec` seconds and `usec` microseconds since
 * the epoch; NULL without an exception when out of datetime's range. */
static PyObject *datetime_utc(int64_t sec, int64_t usec) {
    /* datetime's range: 0001-01-01 to 9999-12-31 */
    if (sec < INT64_C(-62135596800) || sec > INT64_C(253402300799)) return NULL;
    int64_t days = sec / 86400, rem = sec % 86400;
    if (rem < 0) {
        rem += 86400;
        days--;
    }
    int64_t y;
    unsigned m, d;
    civil_from_days(days, &y, &m, &d);
    return PyDateTimeAPI->DateTime_FromDateAndTime((int)y, (int)m, (int)d, (int)(rem / 3600), (int)(rem / 60 % 60),
                                                   (int)(rem % 60), (int)usec, sp.utc, PyDateTimeAPI->DateTimeType);
}

static PyObject *from_iso(PyObject *str) {
    PyObject *v = PyObject_CallMethodOneArg((PyObject *)PyDateTimeAPI->DateTimeType, sp.s_fromisoformat, str);
    if (!v) PyErr_Clear();
    return v;
}

/* The value `v` (stolen) read with tag `tag` of kind `tk`, as the Python
 * type that tag means, or a Tagged. */
static PyObject *dec_tag(dec_ctx *c, uint8_t tk, uint64_t tag, PyObject *v) {
    PyObject *r = NULL;
    switch (tk) {
    case SDX_TAG_MSGPACK_EXT:
        if (tag == UINT64_MAX && PyBytes_Check(v)) { /* timestamp */
            int64_t sec;
            uint32_t ns;
            if (sdx_msgpack_timestamp_decode(PyBytes_AS_STRING(v), (size_t)PyBytes_GET_SIZE(v), &sec, &ns) &&
                ns % 1000 == 0)
                r = datetime_utc(sec, ns / 1000);
        }
        break;
    case SDX_TAG_CBOR:
        switch (tag) {
        case SDX_CBOR_TAG_SELF_DESCRIBE: return v;
        case SDX_CBOR_TAG_DATETIME_STRING:
            if (PyUnicode_Check(v)) r = from_iso(v);
            break;
        case SDX_CBOR_TAG_DATETIME_EPOCH:
            if (PyLong_CheckExact(v)) {
                int overflow;
                long long s = PyLong_AsLongLongAndOverflow(v, &overflow);
                if (!overflow) r = datetime_utc(s, 0);
            } else if (PyFloat_CheckExact(v)) {
                double x = PyFloat_AS_DOUBLE(v);
                if (isfinite(x) && x > -7e10 && x < 3e11) {
                    int64_t s, u;
                    sp_epoch_split(x, &s, &u);
                    r = datetime_utc(s, u);
                }
            }
            break;
        case SDX_CBOR_TAG_BIGNUM_POS:
        case SDX_CBOR_TAG_BIGNUM_NEG:
            if (PyBytes_Check(v)) {
                r = PyObject_CallMethodObjArgs((PyObject *)&PyLong_Type, sp.s_from_bytes, v, sp.s_big, NULL);
                if (r && tag == SDX_CBOR_TAG_BIGNUM_NEG) Py_SETREF(r, PyNumber_Invert(r));
                if (!r) {
                    Py_DECREF(v);
                    return NULL;
                }
            }
            break;
        case SDX_CBOR_TAG_DECIMAL:
            if (PyList_Check(v) && PyList_GET_SIZE(v) == 2 && PyLong_CheckExact(PyList_GET_ITEM(v, 0)) &&
                PyLong_CheckExact(PyList_GET_ITEM(v, 1))) {
                PyObject *text = PyUnicode_FromFormat("%SE%S", PyList_GET_ITEM(v, 1), PyList_GET_ITEM(v, 0));
                if (text) {
                    r = PyObject_CallOneArg(sp.Decimal, text);
                    Py_DECREF(text);
                }
                if (!r) PyErr_Clear();
            }
            break;
        case 37: /* UUID (IANA CBOR tags registry) */
            if (PyBytes_Check(v) && PyBytes_GET_SIZE(v) == 16) goto uuid;
            break;
        }
        break;
    case SDX_TAG_BSON:
        switch (tag & 0xff) {
        case SDX_BSON_BINARY:
            if ((tag >> 8) == 4 && PyBytes_Check(v) && PyBytes_GET_SIZE(v) == 16) goto uuid;
            break;
        case SDX_BSON_DATETIME:
            if (PyLong_CheckExact(v)) {
                long long ms = PyLong_AsLongLong(v);
                if (ms == -1 && PyErr_Occurred()) PyErr_Clear();
                else {
                    long long s = ms / 1000, m = ms % 1000;
                    if (m < 0) {
                        m += 1000;
                        s--;
                    }
                    r = datetime_utc(s, m * 1000);
                }
            }
            break;
        case SDX_BSON_INT32:
        case SDX_BSON_INT64: return v;
        case SDX_BSON_DECIMAL128:
            if (PyBytes_Check(v) && PyBytes_GET_SIZE(v) == 16) {
                char text[SDX_BSON_DECIMAL128_STRING_MAX + 1];
                size_t n = sdx_bson_decimal128_to_string((const uint8_t *)PyBytes_AS_STRING(v), text);
                PyObject *t = PyUnicode_FromStringAndSize(text, (Py_ssize_t)n);
                if (t) {
                    r = PyObject_CallOneArg(sp.Decimal, t);
                    Py_DECREF(t);
                }
                if (!r) PyErr_Clear();
            }
            break;
        }
        break;
    case SDX_TAG_UBJSON: return v; /* a typed container: how it was encoded */
    case SDX_TAG_BINN:
        if (tag == SDX_BINN_DATETIME && PyUnicode_Check(v)) r = from_iso(v);
        else if (tag == SDX_BINN_DECIMAL && PyUnicode_Check(v)) {
            r = PyObject_CallOneArg(sp.Decimal, v);
            if (!r) PyErr_Clear();
        }
        break;
    default: break;
    }
    if (r) {
        Py_DECREF(v);
        return r;
    }
    if (PyErr_Occurred()) {
        Py_DECREF(v);
        return NULL;
    }
    (void)c;
    return sp_tagged_new_u64(tk, tag, v);
uuid: {
    PyObject *kw = Py_BuildValue("{sO}", "bytes", v);
    PyObject *args = PyTuple_New(0);
    if (kw && args) r = PyObject_Call(sp.UUID, args, kw);
    Py_XDECREF(kw);
    Py_XDECREF(args);
    Py_DECREF(v);
    return r;
}
}

/* ------------------------------------------------------------------------ */
/* One decoder per reader                                                    */
/* ------------------------------------------------------------------------ */

#define DEC(name) json_##name
#define DEC_RT sdx_json_reader
#define DEC_NEXT(r, e) sdx_json_reader_next(r, e)
#define DEC_NEXT_COLD(r, e) (sdx_json_reader_next)(r, e)
#include "dec_tmpl.h"

#define DEC(name) msgpack_##name
#define DEC_RT sdx_msgpack_reader
#define DEC_NEXT(r, e) sdx_msgpack_reader_next(r, e)
#define DEC_NEXT_COLD(r, e) (sdx_msgpack_reader_next)(r, e)
#include "dec_tmpl.h"

#define DEC(name) cbor_##name
#define DEC_RT sdx_cbor_reader
#define DEC_NEXT(r, e) sdx_cbor_reader_next(r, e)
#define DEC_NEXT_COLD(r, e) (sdx_cbor_reader_next)(r, e)
#include "dec_tmpl.h"

#define DEC(name) bson_##name
#define DEC_RT sdx_bson_reader
#define DEC_NEXT(r, e) sdx_bson_reader_next(r, e)
#define DEC_NEXT_COLD(r, e) (sdx_bson_reader_next)(r, e)
#include "dec_tmpl.h"

#define DEC(name) ubjson_##name
#define DEC_RT sdx_ubjson_reader
#define DEC_NEXT(r, e) sdx_ubjson_reader_next(r, e)
#define DEC_NEXT_COLD(r, e) (sdx_ubjson_reader_next)(r, e)
#include "dec_tmpl.h"

#define DEC(name) binn_##name
#define DEC_RT sdx_binn_reader
#define DEC_NEXT(r, e) sdx_binn_reader_next(r, e)
#define DEC_NEXT_COLD(r, e) (sdx_binn_reader_next)(r, e)
#include "dec_tmpl.h"

/* ------------------------------------------------------------------------ */
/* Readers                                                                   */
/* ------------------------------------------------------------------------ */

/* A reader of format f over memory (read == NULL) or a stream; NULL when
 * it cannot be allocated. *src gets its source. */
static void *reader_open(sp_format f, const char *data, size_t len, sdx_read_fn read, void *ctx, size_t chunk,
                         const sp_opts *o, int seq, sdx_source *src) {
    uint32_t depth = o->max_depth;
    switch (f) {
    case SDX_FORMAT_JSON: {
        sdx_json_read_opts ro = {SDX_JSON_READ_BIGNUM_RAW | SDX_JSON_READ_BOM, depth, NULL};
        if (seq) ro.flags |= SDX_JSON_READ_STOP_AFTER_VALUE;
        if (o->allow_nan) ro.flags |= SDX_JSON_READ_NAN_INF;
        if (o->comments) ro.flags |= SDX_JSON_READ_COMMENTS;
        if (o->trailing_commas) ro.flags |= SDX_JSON_READ_TRAILING_COMMAS;
        sdx_json_reader *r = read ? sdx_json_reader_new_stream(read, ctx, chunk, &ro) : sdx_json_reader_new(data, len, &ro);
        if (r) *src = sdx_json_reader_source(r);
        return r;
    }
    case SDX_FORMAT_MSGPACK: {
        sdx_msgpack_read_opts ro = {0, depth, NULL};
        if (seq) ro.flags |= SDX_MSGPACK_READ_STOP_AFTER_VALUE;
        if (o->utf8_replace) ro.flags |= SDX_MSGPACK_READ_NO_UTF8_CHECK;
        sdx_msgpack_reader *r =
            read ? sdx_msgpack_reader_new_stream(read, ctx, chunk, &ro) : sdx_msgpack_reader_new(data, len, &ro);
        if (r) *src = sdx_msgpack_reader_source(r);
        return r;
    }
    case SDX_FORMAT_CBOR: {
        sdx_cbor_read_opts ro = {0, depth, 0, 0, NULL};
        if (seq) ro.flags |= SDX_CBOR_READ_STOP_AFTER_VALUE;
        if (o->utf8_replace) ro.flags |= SDX_CBOR_READ_NO_UTF8_CHECK;
        sdx_cbor_reader *r = read ? sdx_cbor_reader_new_stream(read, ctx, chunk, &ro) : sdx_cbor_reader_new(data, len, &ro);
        if (r) *src = sdx_cbor_reader_source(r);
        return r;
    }
    case SDX_FORMAT_BSON: {
        sdx_bson_read_opts ro = {0, depth, 0, NULL};
        if (seq) ro.flags |= SDX_BSON_READ_SEQUENCE;
        if (o->utf8_replace) ro.flags |= SDX_BSON_READ_NO_UTF8_CHECK;
        sdx_bson_reader *r = read ? sdx_bson_reader_new_stream(read, ctx, &ro) : sdx_bson_reader_new(data, len, &ro);
        if (r) *src = sdx_bson_reader_source(r);
        return r;
    }
    case SDX_FORMAT_UBJSON:
    case SDX_FORMAT_BJDATA: {
        sdx_ubjson_read_opts ro = {f == SDX_FORMAT_BJDATA ? SDX_UBJSON_READ_BJDATA : 0, depth, 0, NULL};
        if (seq) ro.flags |= SDX_UBJSON_READ_STOP_AFTER_VALUE;
        if (o->utf8_replace) ro.flags |= SDX_UBJSON_READ_NO_UTF8_CHECK;
        sdx_ubjson_reader *r =
            read ? sdx_ubjson_reader_new_stream(read, ctx, chunk, &ro) : sdx_ubjson_reader_new(data, len, &ro);
        if (r) *src = sdx_ubjson_reader_source(r);
        return r;
    }
    case SDX_FORMAT_BINN: {
        sdx_binn_read_opts ro = {0, depth, NULL};
        if (seq) ro.flags |= SDX_BINN_READ_STOP_AFTER_VALUE;
        if (o->utf8_replace) ro.flags |= SDX_BINN_READ_NO_UTF8_CHECK;
        sdx_binn_reader *r = read ? sdx_binn_reader_new_stream(read, ctx, chunk, &ro) : sdx_binn_reader_new(data, len, &ro);
        if (r) *src = sdx_binn_reader_source(r);
        return r;
    }
    default: return NULL;
    }
}

static void reader_free(sp_format f, void *r) {
    switch (f) {
    case SDX_FORMAT_JSON: sdx_json_reader_free(r); break;
    case SDX_FORMAT_MSGPACK: sdx_msgpack_reader_free(r); break;
    case SDX_FORMAT_CBOR: sdx_cbor_reader_free(r); break;
    case SDX_FORMAT_BSON: sdx_bson_reader_free(r); break;
    case SDX_FORMAT_UBJSON:
    case SDX_FORMAT_BJDATA: sdx_ubjson_reader_free(r); break;
    case SDX_FORMAT_BINN: sdx_binn_reader_free(r); break;
    default: break;
    }
}

/* One reader per format kept from one sdx.loads call to the next and
 * reset onto each new input (sdx_<format>_reader_reset: as if freed and
 * made again, without allocating): a small message's parse otherwise
 * spends a good part of its time making and freeing its reader. One call
 * holds the kept readers at a time (see kept_busy); a call that finds
 * them taken (a loads inside a tag's conversion, another thread) makes
 * its own. A kept reader made with other options is replaced. Only inputs
 * of up to KEEP_MAX bytes use them (where making a reader is a part of
 * the time that counts), so that what a kept reader grew for its input
 * (a deeper stack, scratch space), which it holds until its next reset,
 * stays small. */
#define KEEP_MAX 8192

/* What reader_open makes a reader with, from the call's options, as one
 * number: a kept reader is reset only for a call that would make the same
 * one. */
static uint64_t reader_key(const sp_opts *o, int seq) {
    return (uint64_t)o->max_depth << 32 | (uint64_t)(seq != 0) | (uint64_t)(o->utf8_replace != 0) << 1 |
           (uint64_t)(o->allow_nan != 0) << 2 | (uint64_t)(o->comments != 0) << 3 |
           (uint64_t)(o->trailing_commas != 0) << 4;
}

static struct {
    void *r;
    uint64_t key;
} kept_readers[SDX_FORMAT__COUNT];
/* Taken by one call at a time. Every access is made holding the GIL (the
 * module is single-phase, so one GIL for every interpreter that imports
 * it), so a plain flag does, as encode.c's shared_buf_busy: a locked
 * exchange costs about as much as a small message's reset. A build
 * without the GIL takes it atomically. */
#ifdef Py_GIL_DISABLED
static atomic_int kept_busy;
#define KEPT_TAKE() atomic_exchange_explicit(&kept_busy, 1, memory_order_acquire)
#define KEPT_DROP() atomic_store_explicit(&kept_busy, 0, memory_order_release)
#else
static int kept_busy;
#define KEPT_TAKE() (kept_busy ? 1 : (kept_busy = 1, 0))
#define KEPT_DROP() (kept_busy = 0)
#endif

/* Reset r (format f) onto [data, data + len); *src gets its source. */
static sdx_err reader_reset(sp_format f, void *r, const char *data, size_t len, sdx_source *src) {
#define RESET(F)                                                                                                \
    if (sdx_##F##_reader_reset(r, data, len) != SDX_OK) return SDX_ERR_USAGE;                                   \
    *src = sdx_##F##_reader_source(r);                                                                          \
    return SDX_OK
    switch (f) {
    case SDX_FORMAT_JSON: RESET(json);
    case SDX_FORMAT_MSGPACK: RESET(msgpack);
    case SDX_FORMAT_CBOR: RESET(cbor);
    case SDX_FORMAT_BSON: RESET(bson);
    case SDX_FORMAT_UBJSON:
    case SDX_FORMAT_BJDATA: RESET(ubjson);
    case SDX_FORMAT_BINN: RESET(binn);
    default: return SDX_ERR_USAGE;
    }
#undef RESET
}

/* A reader of format f over [data, data + len): the kept one (*kept set)
 * or a new one; NULL when it cannot be allocated. */
static void *reader_take(sp_format f, const char *data, size_t len, const sp_opts *o, int seq, sdx_source *src,
                         int *kept) {
    *kept = 0;
    if ((unsigned)f >= SDX_FORMAT__COUNT || len > KEEP_MAX || KEPT_TAKE())
        return reader_open(f, data, len, NULL, NULL, 0, o, seq, src);
    const uint64_t key = reader_key(o, seq);
    void **r = &kept_readers[f].r;
    if (!*r || kept_readers[f].key != key || reader_reset(f, *r, data, len, src) != SDX_OK) {
        if (*r) reader_free(f, *r);
        *r = reader_open(f, data, len, NULL, NULL, 0, o, seq, src);
        if (!*r) {
            KEPT_DROP();
            return NULL;
        }
        kept_readers[f].key = key;
    }
    *kept = 1;
    return *r;
}

/* Done with a reader from reader_take. */
static void reader_give(sp_format f, void *r, int kept) {
    if (kept) KEPT_DROP();
    else reader_free(f, r);
}

/* Inputs from this size on are read with the garbage collector paused:
 * the containers a document is made of cannot form cycles, and each of
 * them would otherwise count towards a collection that walks them all
 * (about a tenth of the time of a large document). */
#define GC_PAUSE_FROM 4096

/* The whole input as one value (or, seq, the list of its values), read
 * from [data, data + len). */
static PyObject *loads_exact(sp_format f, const char *data, size_t len, const sp_opts *o) {
    dec_ctx c;
    dec_init(&c, f, o);
    c.in_lo = (uintptr_t)data;
    c.in_hi = (uintptr_t)data + len;
    int kept;
    void *r = reader_take(f, data, len, o, o->seq, &c.src, &kept);
    if (!r) return PyErr_NoMemory();
    int gc_was_on = len >= GC_PAUSE_FROM ? PyGC_Disable() : 0;
    PyObject *v = NULL;
    switch (f) {
    case SDX_FORMAT_JSON: v = json_all(&c, r, o->seq); break;
    case SDX_FORMAT_MSGPACK: v = msgpack_all(&c, r, o->seq); break;
    case SDX_FORMAT_CBOR: v = cbor_all(&c, r, o->seq); break;
    case SDX_FORMAT_BSON: v = bson_all(&c, r, o->seq); break;
    case SDX_FORMAT_UBJSON:
    case SDX_FORMAT_BJDATA: v = ubjson_all(&c, r, o->seq); break;
    case SDX_FORMAT_BINN: v = binn_all(&c, r, o->seq); break;
    default: break;
    }
    if (gc_was_on) PyGC_Enable();
    reader_give(f, r, kept);
    dec_destroy(&c);
    return v;
}

/* Small inputs are read from a copy with padding after it. The readers'
 * inline paths take an item only when a fixed number of bytes past it are
 * in the input (JSON 128, MessagePack 19, CBOR and UBJSON alike), so the
 * end of every input goes through the exported functions, and a message of
 * a few hundred bytes is mostly its end. Nothing is decided by the padding:
 *  - JSON: the padding is spaces, which a JSON text may end with, and no
 *    token can be completed by them, so the padded text is valid exactly
 *    when the input is, with the same value. Its first value is read, and
 *    then what follows it up to the input's end must be whitespace, which
 *    is checked here (the reader's own end would scan the padding too, a
 *    call as costly as the first value's; anything but whitespace, such as
 *    a comment that an option allows, goes to loads_exact);
 *  - the binary formats: the padded copy is read as a sequence and only
 *    its first value is taken, which the readers end without looking past
 *    it; that value is the input's when it ends exactly at the input's
 *    end (each format's values delimit themselves).
 * Anything else (an error, a value ending before or after the input's
 * end) sends the input to loads_exact, whose error, offset and line are
 * the ones reported. */
#define PAD_MAX 4096
int sp_padded_loads = 1;
#define PAD_JSON 128  /* sdx_json_reader_next_inline's window */
#define PAD_JSON_FROM 16
#define PAD_BINARY 32 /* MessagePack's and CBOR's 19, UBJSON's 24 */

static PyObject *loads_padded(sp_format f, const char *data, size_t len, const sp_opts *o) {
    _Alignas(64) char buf[PAD_MAX + PAD_JSON];
    const size_t pad = f == SDX_FORMAT_JSON ? PAD_JSON : PAD_BINARY;
    memcpy(buf, data, len);
    /* constant sizes of at most 64 bytes, stored as vectors (a memset of a
     * size known only at run time is rep stosq, a third of this function's
     * own time) */
    if (f == SDX_FORMAT_JSON) {
        memset(buf + len, ' ', 64);
        memset(buf + len + 64, ' ', PAD_JSON - 64);
    } else {
        memset(buf + len, 0, PAD_BINARY);
    }
    const size_t n = len + pad;
    dec_ctx c;
    dec_init(&c, f, o);
    c.in_lo = (uintptr_t)buf;
    c.in_hi = (uintptr_t)buf + n;
    int kept;
    void *r = reader_take(f, buf, n, o, f != SDX_FORMAT_JSON, &c.src, &kept);
    if (!r) return PyErr_NoMemory();
    const int gc_was_on = f == SDX_FORMAT_JSON && n >= GC_PAUSE_FROM ? PyGC_Disable() : 0; /* as loads_exact */
    PyObject *v = NULL;
    switch (f) {
    case SDX_FORMAT_JSON: v = json_next_value(&c, r); break;
    case SDX_FORMAT_MSGPACK: v = msgpack_next_value(&c, r); break;
    case SDX_FORMAT_CBOR: v = cbor_next_value(&c, r); break;
    case SDX_FORMAT_UBJSON:
    case SDX_FORMAT_BJDATA: v = ubjson_next_value(&c, r); break;
    default: break;
    }
    if (gc_was_on) PyGC_Enable();
    if (v) {
        size_t end = (size_t)sdx_source_offset(c.src);
        if (f == SDX_FORMAT_JSON) /* whitespace may follow a JSON text */
            while (end < len && (buf[end] == ' ' || buf[end] == '\n' || buf[end] == '\r' || buf[end] == '\t')) end++;
        if (end != len) Py_CLEAR(v);
    }
    reader_give(f, r, kept);
    dec_destroy(&c);
    return v;
}

PyObject *sp_loads(sp_format f, const char *data, size_t len, const sp_opts *o) {
    /* an empty sequence holds no value (some readers call it an error) */
    if (o->seq && len == 0) return PyList_New(0);
    /* (a JSON text of a few bytes has too few tokens to gain what the
     * padding's 128 bytes cost to check and skip) */
    if (sp_padded_loads && !o->seq && len > 0 && len <= PAD_MAX &&
        ((f == SDX_FORMAT_JSON && len >= PAD_JSON_FROM) || f == SDX_FORMAT_MSGPACK || f == SDX_FORMAT_CBOR ||
         f == SDX_FORMAT_UBJSON || f == SDX_FORMAT_BJDATA)) {
        PyObject *v = loads_padded(f, data, len, o);
        if (v) return v;
        /* the input's own reading tells what is wrong with it; what is not
         * about the input (KeyboardInterrupt raised in a tag's Python
         * conversion, MemoryError) is not read again */
        if (PyErr_Occurred() &&
            (!PyErr_ExceptionMatches(PyExc_Exception) || PyErr_ExceptionMatches(PyExc_MemoryError)))
            return NULL;
        PyErr_Clear();
    }
    return loads_exact(f, data, len, o);
}

/* ------------------------------------------------------------------------ */
/* iter_load                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    PyObject *fp;
    PyObject *pending;      /* bytes read but not yet handed to the reader */
    Py_ssize_t pending_pos;
    sp_format fmt;          /* SDX_FORMAT_UNKNOWN until detected */
    sp_opts opts;
    size_t chunk;
    void *reader;
    int done;
    int busy;               /* inside __next__ (read() may run any code) */
    uint64_t total;         /* bytes read from fp */
    dec_ctx c;
} sp_iter;

/* The reader's read function: what is pending, else fp.read(cap). A str
 * (a file opened in text mode) is taken as its UTF-8. A Python exception
 * is kept for the iterator to raise, and the reader sees an I/O error. */
static size_t iter_read(void *ctx, void *buf, size_t cap) {
    sp_iter *it = ctx;
    while (!it->pending || it->pending_pos >= PyBytes_GET_SIZE(it->pending)) {
        Py_CLEAR(it->pending);
        it->pending_pos = 0;
        PyObject *b = PyObject_CallMethod(it->fp, "read", "n", (Py_ssize_t)cap);
        if (b && PyUnicode_Check(b)) Py_SETREF(b, PyUnicode_AsUTF8String(b));
        if (b && !PyBytes_Check(b)) {
            PyObject *copy = PyBytes_FromObject(b);
            Py_SETREF(b, copy);
        }
        if (!b) {
            PyObject *type, *value, *tb;
            PyErr_Fetch(&type, &value, &tb);
            PyErr_NormalizeException(&type, &value, &tb);
            if (tb) PyException_SetTraceback(value, tb);
            Py_XDECREF(type);
            Py_XDECREF(tb);
            Py_XSETREF(it->c.pending_exc, value);
            return (size_t)-1;
        }
        if (PyBytes_GET_SIZE(b) == 0) {
            Py_DECREF(b);
            return 0;
        }
        it->pending = b;
    }
    size_t n = (size_t)(PyBytes_GET_SIZE(it->pending) - it->pending_pos);
    if (n > cap) n = cap;
    memcpy(buf, PyBytes_AS_STRING(it->pending) + it->pending_pos, n);
    it->pending_pos += (Py_ssize_t)n;
    it->total += n;
    return n;
}

/* Detection over a stream: read up to SDX_DETECT_PEEK bytes (kept pending
 * for the reader) and detect the format from them. */
static int iter_detect(sp_iter *it) {
    PyObject *parts = PyList_New(0);
    if (!parts) return -1;
    Py_ssize_t total = 0;
    int at_end = 0;
    char tmp[4096];
    while (total < SDX_DETECT_PEEK) {
        size_t n = iter_read(it, tmp, sizeof tmp);
        if (n == (size_t)-1) {
            Py_DECREF(parts);
            dec_reader_fail(&it->c);
            return -1;
        }
        if (n == 0) {
            at_end = 1;
            break;
        }
        PyObject *b = PyBytes_FromStringAndSize(tmp, (Py_ssize_t)n);
        if (!b || PyList_Append(parts, b) < 0) {
            Py_XDECREF(b);
            Py_DECREF(parts);
            return -1;
        }
        Py_DECREF(b);
        total += (Py_ssize_t)n;
    }
    PyObject *empty = PyBytes_FromStringAndSize(NULL, 0);
    PyObject *peek = empty ? PyObject_CallMethod(empty, "join", "O", parts) : NULL;
    Py_XDECREF(empty);
    Py_DECREF(parts);
    if (!peek) return -1;
    /* what iter_read still holds goes after the look-ahead */
    if (it->pending && it->pending_pos < PyBytes_GET_SIZE(it->pending)) {
        PyObject *rest = PyBytes_FromStringAndSize(PyBytes_AS_STRING(it->pending) + it->pending_pos,
                                                   PyBytes_GET_SIZE(it->pending) - it->pending_pos);
        if (!rest) {
            Py_DECREF(peek);
            return -1;
        }
        PyBytes_ConcatAndDel(&peek, rest);
        if (!peek) return -1;
    }
    Py_XSETREF(it->pending, peek);
    it->pending_pos = 0;
    uint32_t flags = SDX_DETECT_SEQUENCE | (it->opts.utf8_replace ? SDX_DETECT_NO_UTF8_CHECK : 0);
    sdx_format f;
    if (sdx_detect_format(PyBytes_AS_STRING(peek), (size_t)PyBytes_GET_SIZE(peek),
                          at_end ? (uint64_t)PyBytes_GET_SIZE(peek) : UINT64_MAX, flags, &f, NULL) != SDX_OK) {
        PyErr_NoMemory();
        return -1;
    }
    it->fmt = f;
    it->c.fmt = f;
    return 0;
}

PyObject *sp_iter_new(PyObject *fp, sp_format f, Py_ssize_t chunk, const sp_opts *o) {
    if (!PyObject_HasAttrString(fp, "read")) {
        PyErr_SetString(PyExc_TypeError, "iter_load needs a file object with a read() method");
        return NULL;
    }
    sp_iter *it = PyObject_GC_New(sp_iter, &sp_iter_type);
    if (!it) return NULL;
    it->fp = Py_NewRef(fp);
    it->pending = NULL;
    it->pending_pos = 0;
    it->fmt = f;
    it->opts = *o;
    it->opts.default_fn = NULL;
    it->chunk = (size_t)chunk;
    it->reader = NULL;
    it->done = 0;
    it->busy = 0;
    it->total = 0;
    dec_init(&it->c, f, o);
    PyObject_GC_Track(it);
    return (PyObject *)it;
}

static PyObject *iter_next_locked(sp_iter *it);

/* __next__: not re-entered from the file's read(), which would run the
 * reader inside its own call. */
static PyObject *iter_next(sp_iter *it) {
    if (it->busy) {
        PyErr_SetString(PyExc_RuntimeError, "iter_load: next() called from the file's read()");
        return NULL;
    }
    it->busy = 1;
    PyObject *v = iter_next_locked(it);
    it->busy = 0;
    return v;
}

static PyObject *iter_next_locked(sp_iter *it) {
    if (it->done) return NULL;
    if (!it->reader) {
        if (it->fmt == SDX_FORMAT_UNKNOWN && iter_detect(it) < 0) {
            it->done = 1;
            return NULL;
        }
        it->reader = reader_open(it->fmt, NULL, 0, iter_read, it, it->chunk, &it->opts, 1, &it->c.src);
        if (!it->reader) {
            it->done = 1;
            return PyErr_NoMemory();
        }
    }
    PyObject *v = NULL;
    dec_ctx *c = &it->c;
    void *r = it->reader;
    switch (it->fmt) {
    case SDX_FORMAT_JSON: v = json_next_value(c, r); break;
    case SDX_FORMAT_MSGPACK: v = msgpack_next_value(c, r); break;
    case SDX_FORMAT_CBOR: v = cbor_next_value(c, r); break;
    case SDX_FORMAT_BSON: v = bson_next_value(c, r); break;
    case SDX_FORMAT_UBJSON:
    case SDX_FORMAT_BJDATA: v = ubjson_next_value(c, r); break;
    case SDX_FORMAT_BINN: v = binn_next_value(c, r); break;
    default: break;
    }
    if (!v && it->total == 0 && !it->c.pending_exc && PyErr_ExceptionMatches(sp.DecodeError)) {
        /* an empty file is an empty sequence (some readers call it an error) */
        PyErr_Clear();
    }
    if (!v) {
        /* the end, or an error (sticky in the reader): no more values */
        it->done = 1;
        reader_free(it->fmt, it->reader);
        it->reader = NULL;
        Py_CLEAR(it->pending);
    }
    return v;
}

static int iter_traverse(sp_iter *it, visitproc visit, void *arg) {
    Py_VISIT(it->fp);
    Py_VISIT(it->c.pending_exc);
    return 0;
}

static int iter_clear(sp_iter *it) {
    Py_CLEAR(it->fp);
    Py_CLEAR(it->c.pending_exc);
    return 0;
}

static void iter_dealloc(sp_iter *it) {
    PyObject_GC_UnTrack(it);
    if (it->reader) reader_free(it->fmt, it->reader);
    dec_destroy(&it->c);
    Py_CLEAR(it->pending);
    iter_clear(it);
    PyObject_GC_Del(it);
}

PyTypeObject sp_iter_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "sdx._sdx.iter_load",
    .tp_basicsize = sizeof(sp_iter),
    .tp_dealloc = (destructor)iter_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The values of a sequence read from a file, one at a time.",
    .tp_traverse = (traverseproc)iter_traverse,
    .tp_clear = (inquiry)iter_clear,
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)iter_next,
};

int sp_decode_init(void) {
    PyDateTime_IMPORT;
    return PyDateTimeAPI ? 0 : -1;
}
