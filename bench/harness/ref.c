/*
 * The reference codecs' entry points (ref.h): dispatch by format name, and
 * the helpers every codec shares (ref_internal.h).
 */
#include "ref.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapter.h"
#include "ref_internal.h"

const char *const ref_formats[] = {"json", "msgpack", "cbor", "bson", "ubjson", "binn", NULL};

typedef struct ref_codec {
    const char *name;
    char *(*encode)(const bt_node *root, size_t *len);
    int (*decode)(rdec *d);
} ref_codec;

static const ref_codec codecs[] = {
    {"json", ref_json_encode, ref_json_decode},       {"msgpack", ref_msgpack_encode, ref_msgpack_decode},
    {"cbor", ref_cbor_encode, ref_cbor_decode},       {"bson", ref_bson_encode, ref_bson_decode},
    {"ubjson", ref_ubjson_encode, ref_ubjson_decode}, {"binn", ref_binn_encode, ref_binn_decode},
};

static const ref_codec *find_codec(const char *format) {
    if (!format) return NULL;
    for (size_t i = 0; i < sizeof codecs / sizeof codecs[0]; i++)
        if (strcmp(codecs[i].name, format) == 0) return &codecs[i];
    return NULL;
}

int ref_known_format(const char *format) { return find_codec(format) != NULL; }

char *ref_encode(const char *format, const bt_node *root, size_t *len) {
    const ref_codec *c = find_codec(format);
    size_t ignored;
    if (!len) len = &ignored;
    *len = 0;
    if (!c || !root) return NULL;
    return c->encode(root, len);
}

static int decode(const char *format, const char *data, size_t len, sbh *h, int unordered, char *err,
                  size_t errlen) {
    rdec d;
    memset(&d, 0, sizeof d);
    if (unordered) {
        d.frames = calloc(REF_MAX_DEPTH + 1, sizeof *d.frames);
        if (!d.frames) abort();
    }
    d.p = (const unsigned char *)data;
    d.len = len;
    d.h = h;
    d.err = err;
    d.errlen = errlen;
    if (err && errlen) err[0] = 0;
    const ref_codec *c = find_codec(format);
    if (!c) {
        if (err && errlen) snprintf(err, errlen, "unknown format '%s'", format ? format : "(null)");
        return 1;
    }
    if (!data && len) return rdec_fail(&d, 0, "no input"), 1;
    int rc = c->decode(&d);
    if (rc == 0 && d.pos != d.len) rc = rdec_fail(&d, d.pos, "unexpected data after the value");
    rbuf_free(&d.scratch);
    free(d.frames);
    return rc != 0 || d.failed;
}

int ref_decode(const char *format, const char *data, size_t len, sbh *h, char *err, size_t errlen) {
    return decode(format, data, len, h, 0, err, errlen);
}

int ref_decode_unordered(const char *format, const char *data, size_t len, sbh *h, char *err, size_t errlen) {
    return decode(format, data, len, h, 1, err, errlen);
}

/* ---- containers and keys, in order or not ---------------------------------- */

void rdec_begin(rdec *d, int is_map) {
    if (!d->frames) {
        if (is_map) sbh_map(d->h);
        else sbh_array(d->h);
        return;
    }
    if (d->nframes > REF_MAX_DEPTH) abort(); /* rdec_enter stops deeper input first */
    ref_frame *f = &d->frames[d->nframes++];
    memset(f, 0, sizeof *f);
    f->parent = d->h;
    f->is_map = is_map;
    if (!is_map) sbh_array(d->h);
}

void rdec_key(rdec *d, const char *p, size_t n) {
    if (!d->frames || d->nframes == 0 || !d->frames[d->nframes - 1].is_map) {
        sbh_key(d->h, p, n);
        return;
    }
    ref_frame *f = &d->frames[d->nframes - 1];
    if (f->open) f->sum += sbh_final(&f->entry);
    sbh_init(&f->entry);
    f->open = 1;
    f->count++;
    sbh_key(&f->entry, p, n);
    d->h = &f->entry;
}

void rdec_end(rdec *d) {
    if (!d->frames || d->nframes == 0) {
        sbh_end(d->h);
        return;
    }
    ref_frame *f = &d->frames[--d->nframes];
    d->h = f->parent;
    if (!f->is_map) {
        sbh_end(d->h);
        return;
    }
    if (f->open) f->sum += sbh_final(&f->entry);
    sbh_unordered_map(d->h, f->sum, f->count);
}

/* ---- rbuf ---------------------------------------------------------------- */

static int rbuf_reserve(rbuf *b, size_t n) {
    if (b->failed) return -1;
    if (n <= b->cap - b->len) return 0;
    if (n > SIZE_MAX / 2 - b->len) {
        rbuf_fail(b);
        return -1;
    }
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < n) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        rbuf_fail(b);
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

void rbuf_put(rbuf *b, const void *p, size_t n) {
    if (n == 0 || rbuf_reserve(b, n) != 0) return;
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

void rbuf_byte(rbuf *b, unsigned c) {
    unsigned char x = (unsigned char)c;
    rbuf_put(b, &x, 1);
}

void rbuf_be(rbuf *b, uint64_t v, int nbytes) {
    unsigned char x[8];
    for (int i = 0; i < nbytes; i++) x[i] = (unsigned char)(v >> (8 * (nbytes - 1 - i)));
    rbuf_put(b, x, (size_t)nbytes);
}

void rbuf_le(rbuf *b, uint64_t v, int nbytes) {
    unsigned char x[8];
    for (int i = 0; i < nbytes; i++) x[i] = (unsigned char)(v >> (8 * i));
    rbuf_put(b, x, (size_t)nbytes);
}

void rbuf_fail(rbuf *b) { b->failed = 1; }

void rbuf_free(rbuf *b) {
    free(b->p);
    memset(b, 0, sizeof *b);
}

char *rbuf_finish(rbuf *b, size_t *len) {
    if (rbuf_reserve(b, BENCH_PADDING) != 0) {
        rbuf_free(b);
        return NULL;
    }
    memset(b->p + b->len, 0, BENCH_PADDING);
    *len = b->len;
    char *p = b->p;
    b->p = NULL;
    b->len = b->cap = 0;
    return p;
}

/* ---- rdec ---------------------------------------------------------------- */

int rdec_fail(rdec *d, size_t at, const char *fmt, ...) {
    if (!d->failed) {
        d->failed = 1;
        if (d->err && d->errlen) {
            int n = snprintf(d->err, d->errlen, "byte %zu: ", at);
            if (n >= 0 && (size_t)n < d->errlen) {
                va_list ap;
                va_start(ap, fmt);
                vsnprintf(d->err + n, d->errlen - (size_t)n, fmt, ap);
                va_end(ap);
            }
        }
    }
    return -1;
}

int rdec_need(rdec *d, size_t n) {
    if (d->pos <= d->len && n <= d->len - d->pos) return 0;
    return rdec_fail(d, d->pos, "truncated: %zu more bytes needed, %zu left", n,
                     d->pos <= d->len ? d->len - d->pos : 0);
}

int rdec_enter(rdec *d) {
    if (d->depth >= REF_MAX_DEPTH) return rdec_fail(d, d->pos, "nested deeper than %d levels", REF_MAX_DEPTH);
    d->depth++;
    return 0;
}

void rdec_leave(rdec *d) { d->depth--; }

uint64_t ref_load_be(const unsigned char *p, int nbytes) {
    uint64_t v = 0;
    for (int i = 0; i < nbytes; i++) v = v << 8 | p[i];
    return v;
}

uint64_t ref_load_le(const unsigned char *p, int nbytes) {
    uint64_t v = 0;
    for (int i = nbytes; i-- > 0;) v = v << 8 | p[i];
    return v;
}

int ref_utf8_valid(const unsigned char *p, size_t n, size_t *bad) {
    size_t i = 0;
    while (i < n) {
        unsigned c = p[i];
        size_t k;        /* continuation bytes */
        unsigned lo = 0x80, hi = 0xBF; /* range of the first continuation byte */
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xC2 && c <= 0xDF) {
            k = 1;
        } else if (c >= 0xE0 && c <= 0xEF) {
            k = 2;
            if (c == 0xE0) lo = 0xA0;      /* no overlong forms */
            else if (c == 0xED) hi = 0x9F; /* no surrogates */
        } else if (c >= 0xF0 && c <= 0xF4) {
            k = 3;
            if (c == 0xF0) lo = 0x90;      /* no overlong forms */
            else if (c == 0xF4) hi = 0x8F; /* nothing above U+10FFFF */
        } else {
            if (bad) *bad = i;
            return 0;
        }
        if (n - i <= k || p[i + 1] < lo || p[i + 1] > hi) {
            if (bad) *bad = i;
            return 0;
        }
        for (size_t j = 2; j <= k; j++) {
            if (p[i + j] < 0x80 || p[i + j] > 0xBF) {
                if (bad) *bad = i;
                return 0;
            }
        }
        i += k + 1;
    }
    return 1;
}

int ref_text(rdec *d, const unsigned char *p, size_t n, int as_key, size_t at) {
    size_t bad;
    if (!ref_utf8_valid(p, n, &bad)) return rdec_fail(d, at + bad, "invalid UTF-8 in a string");
    if (as_key) rdec_key(d, (const char *)p, n);
    else sbh_str(d->h, (const char *)p, n);
    return 0;
}

double ref_double_from_bits(uint64_t bits) {
    double d;
    memcpy(&d, &bits, 8);
    return d;
}

uint64_t ref_double_bits(double d) {
    uint64_t bits;
    memcpy(&bits, &d, 8);
    return bits;
}

/* Rebuild the binary64 bits from a narrower format's sign, biased exponent
 * and fraction (mbits wide, exponent bias `bias`, all-ones exponent emax). */
static double widen(uint64_t sign, uint64_t exp, uint64_t frac, int mbits, uint64_t bias, uint64_t emax) {
    uint64_t bits = sign << 63;
    if (exp == emax) { /* infinity or NaN: payload kept, NaN made quiet */
        bits |= (uint64_t)0x7FF << 52 | frac << (52 - mbits);
        if (frac) bits |= (uint64_t)1 << 51;
    } else if (exp == 0) {
        if (frac) { /* subnormal: normalise, every such value is normal in binary64 */
            int shift = 0;
            while (!(frac & ((uint64_t)1 << mbits))) frac <<= 1, shift++;
            frac &= ((uint64_t)1 << mbits) - 1;
            uint64_t e = 1023 - bias + 1 - (uint64_t)shift;
            bits |= e << 52 | frac << (52 - mbits);
        }
    } else {
        bits |= (exp - bias + 1023) << 52 | frac << (52 - mbits);
    }
    return ref_double_from_bits(bits);
}

double ref_double_from_binary32(uint32_t b) {
    return widen(b >> 31, (b >> 23) & 0xFF, b & 0x7FFFFF, 23, 127, 0xFF);
}

double ref_double_from_binary16(uint16_t b) {
    return widen((uint64_t)b >> 15, ((uint64_t)b >> 10) & 0x1F, b & 0x3FF, 10, 15, 0x1F);
}
