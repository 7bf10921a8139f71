/*
 * Format names and content detection (detect.h): magic bytes, BSON's
 * leading length, JSON text, then each reader tried on the look-ahead.
 */
#include "sdx/detect.h"

#include <stdint.h>
#include <string.h>

#include "core/platform.h"
#include "simd/simd.h"
#include "sdx/sdx.h"

const char *sdx_format_name(sdx_format format) {
    switch (format) {
    case SDX_FORMAT_JSON: return "json";
    case SDX_FORMAT_MSGPACK: return "msgpack";
    case SDX_FORMAT_CBOR: return "cbor";
    case SDX_FORMAT_BSON: return "bson";
    case SDX_FORMAT_UBJSON: return "ubjson";
    case SDX_FORMAT_BJDATA: return "bjdata";
    case SDX_FORMAT_BINN: return "binn";
    default: return "unknown";
    }
}

/* Whether the look-ahead reads as JSON text: no control bytes but tab,
 * newline and carriage return, and after whitespace (and a UTF-8 BOM)
 * nothing, or a byte a JSON value starts with. Binary data is rarely like
 * that (lengths, counts and numbers put control bytes in almost every
 * document), while text that JSON rejects, "1 2" or a lone newline, is
 * better reported as bad JSON than read silently as a MessagePack integer
 * or a Binn blob. */
static bool looks_like_json(const unsigned char *p, size_t n) {
    /* The whole look-ahead is read, by the SIMD kernel: eight bytes at a
     * time it took 2.0 us of gen:2's 8.8 KB, a tenth of sdx.loads(data)
     * in Python. */
    if (sdx_simd_active()->text_control_scan((const char *)p, n) != n) return false;
    size_t i = n >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf ? 3 : 0;
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r')) i++;
    return i == n || strchr("{[\"-0123456789tfn", p[i]) != NULL;
}

#ifndef SDX_NO_BSON
/* BSON has no magic bytes; its leading int32 is the document's length.
 * Without a sequence that length must be the input's size exactly, when
 * the size is known (or be followed by another plausible length:
 * back-to-back documents read as one, reported by the reader as bytes
 * after the document); with a sequence the first document must be
 * plausible: a length within the reader's default bound and the input,
 * and, when the whole document is in the look-ahead, a document the
 * reader accepts; when it is not, a first element with a known type byte
 * and a key that ends within the look-ahead. JSON text cannot pass: its
 * first four bytes read as a length far beyond any text file (a length of
 * 5 to 16 MiB needs bytes 2-4 to be control characters or NUL). */
static bool bson_sniff(const unsigned char *p, size_t n, uint64_t size, bool seq) {
    if (n < 5) return false;
    int32_t l = (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
    if (l < 5 || (uint64_t)l > size || (size_t)l > SDX_BSON_DEFAULT_MAX_DOCUMENT) return false;
    size_t len = (size_t)l;
    if (!seq && (uint64_t)l != size && !(size == UINT64_MAX && len > n)) {
        /* (A pipe whose end is beyond the look-ahead, holding a document
         * larger than the look-ahead, is judged as a sequence.)
         * Back-to-back documents read as one: still BSON (the reader then
         * reports the bytes after the first document) when the first is
         * whole in the look-ahead and a plausible length follows. */
        if (len + 4 > n) return false;
        int32_t next = (int32_t)((uint32_t)p[len] | (uint32_t)p[len + 1] << 8 | (uint32_t)p[len + 2] << 16 |
                                 (uint32_t)p[len + 3] << 24);
        if (next < 5 || (uint64_t)next > size - (uint64_t)l) return false;
    }
    if (len <= n) {
        sdx_bson_reader *r = sdx_bson_reader_new((const char *)p, len, NULL);
        if (!r) return false;
        sdx_event ev;
        while (sdx_bson_reader_next(r, &ev)) {
        }
        bool ok = sdx_bson_reader_error(r, NULL) == SDX_OK;
        sdx_bson_reader_free(r);
        return ok;
    }
    unsigned t = p[4];
    if (!((t >= SDX_BSON_DOUBLE && t <= SDX_BSON_DECIMAL128) || t == SDX_BSON_MINKEY || t == SDX_BSON_MAXKEY))
        return false;
    return memchr(p + 5, 0, n - 5) != NULL;
}
#endif

/* A read function over the look-ahead: the probing readers are the
 * streaming ones, so that the end of the look-ahead looks like the end of
 * their input (and not like a declared length the input cannot hold). */
typedef struct peek_src {
    const unsigned char *p;
    size_t len, pos;
} peek_src;

static size_t peek_read(void *ctx, void *buf, size_t cap) {
    peek_src *m = ctx;
    size_t n = m->len - m->pos;
    if (n > cap) n = cap;
    memcpy(buf, m->p + m->pos, n);
    m->pos += n;
    return n;
}

/* One probing reader: its source, and how to free it. */
typedef struct probe_reader {
    void *r;
    sdx_source src;
    void (*free_fn)(void *r);
} probe_reader;

static void json_free(void *r) { sdx_json_reader_free(r); }
#ifndef SDX_NO_MSGPACK
static void msgpack_free(void *r) { sdx_msgpack_reader_free(r); }
#endif
#ifndef SDX_NO_CBOR
static void cbor_free(void *r) { sdx_cbor_reader_free(r); }
#endif
#ifndef SDX_NO_UBJSON
static void ubjson_free(void *r) { sdx_ubjson_reader_free(r); }
#endif
#ifndef SDX_NO_BINN
static void binn_free(void *r) { sdx_binn_reader_free(r); }
#endif

/* Open format f's streaming reader over m, reading one value; false when
 * it cannot be allocated (or f is not probed). */
static bool probe_open(sdx_format f, peek_src *m, bool no_utf8, probe_reader *pr) {
    pr->r = NULL;
    (void)no_utf8; /* unused when only JSON is built */
    switch (f) {
    case SDX_FORMAT_JSON: {
        sdx_json_read_opts o = {SDX_JSON_READ_BOM | SDX_JSON_READ_BIGNUM_RAW, 0, NULL};
        sdx_json_reader *r = sdx_json_reader_new_stream(peek_read, m, 0, &o);
        if (r) pr->src = sdx_json_reader_source(r);
        pr->r = r;
        pr->free_fn = json_free;
        break;
    }
#ifndef SDX_NO_MSGPACK
    case SDX_FORMAT_MSGPACK: {
        sdx_msgpack_read_opts o = {no_utf8 ? SDX_MSGPACK_READ_NO_UTF8_CHECK : 0, 0, NULL};
        sdx_msgpack_reader *r = sdx_msgpack_reader_new_stream(peek_read, m, 0, &o);
        if (r) pr->src = sdx_msgpack_reader_source(r);
        pr->r = r;
        pr->free_fn = msgpack_free;
        break;
    }
#endif
#ifndef SDX_NO_CBOR
    case SDX_FORMAT_CBOR: {
        sdx_cbor_read_opts o = {no_utf8 ? SDX_CBOR_READ_NO_UTF8_CHECK : 0, 0, 0, 0, NULL};
        sdx_cbor_reader *r = sdx_cbor_reader_new_stream(peek_read, m, 0, &o);
        if (r) pr->src = sdx_cbor_reader_source(r);
        pr->r = r;
        pr->free_fn = cbor_free;
        break;
    }
#endif
#ifndef SDX_NO_UBJSON
    case SDX_FORMAT_UBJSON:
    case SDX_FORMAT_BJDATA: {
        sdx_ubjson_read_opts o = {0, 0, 0, NULL};
        if (f == SDX_FORMAT_BJDATA) o.flags |= SDX_UBJSON_READ_BJDATA;
        if (no_utf8) o.flags |= SDX_UBJSON_READ_NO_UTF8_CHECK;
        sdx_ubjson_reader *r = sdx_ubjson_reader_new_stream(peek_read, m, 0, &o);
        if (r) pr->src = sdx_ubjson_reader_source(r);
        pr->r = r;
        pr->free_fn = ubjson_free;
        break;
    }
#endif
#ifndef SDX_NO_BINN
    case SDX_FORMAT_BINN: {
        sdx_binn_read_opts o = {no_utf8 ? SDX_BINN_READ_NO_UTF8_CHECK : 0, 0, NULL};
        sdx_binn_reader *r = sdx_binn_reader_new_stream(peek_read, m, 0, &o);
        if (r) pr->src = sdx_binn_reader_source(r);
        pr->r = r;
        pr->free_fn = binn_free;
        break;
    }
#endif
    default: break;
    }
    return pr->r != NULL;
}

/* How far format f reads the look-ahead as one value: UINT64_MAX when it
 * reads it without error (or runs out of look-ahead before the input
 * ends), else the offset of its error. */
static sdx_err probe(sdx_format f, const unsigned char *p, size_t n, bool at_end, bool no_utf8,
                     uint64_t *progress) {
    peek_src m = {p, n, 0};
    probe_reader pr;
    if (!probe_open(f, &m, no_utf8, &pr)) return SDX_ERR_NOMEM;
    sdx_event ev = {0};
    while (sdx_source_next(pr.src, &ev)) {
    }
    sdx_error e;
    sdx_err code = sdx_source_error(pr.src, &e);
    pr.free_fn(pr.r);
    if (code == SDX_ERR_NOMEM) return code;
    /* Cut by the end of the look-ahead: not a failure. Except a first item
     * that claims more than the look-ahead (CBOR reads text such as "{" as
     * the head of a string of 2^64 bytes): no progress at all. */
    bool cut = !at_end && ((code == SDX_ERR_TRUNCATED && e.offset > 0) || e.offset + 32 >= n);
    *progress = code == SDX_OK || cut ? UINT64_MAX : (uint64_t)e.offset;
    return SDX_OK;
}

sdx_err sdx_detect_format(const void *data, size_t len, uint64_t size, uint32_t flags, sdx_format *format,
                          bool *guessed) {
    if (format) *format = SDX_FORMAT_UNKNOWN;
    if (!format || (!data && len > 0) || (flags & ~(uint32_t)(SDX_DETECT_SEQUENCE | SDX_DETECT_NO_UTF8_CHECK)))
        return SDX_ERR_INVALID_ARG;
    const unsigned char *p = data;
    if (len > SDX_DETECT_PEEK) len = SDX_DETECT_PEEK;
    bool at_end = size != UINT64_MAX && size <= len;
    if (guessed) *guessed = false;
#ifndef SDX_NO_CBOR
    if (len >= 3 && memcmp(p, "\xd9\xd9\xf7", 3) == 0) {
        *format = SDX_FORMAT_CBOR;
        return SDX_OK;
    }
#endif
#ifndef SDX_NO_BSON
    if (bson_sniff(p, len, size, (flags & SDX_DETECT_SEQUENCE) != 0)) {
        *format = SDX_FORMAT_BSON;
        return SDX_OK;
    }
#endif
    if (looks_like_json(p, len)) {
        *format = SDX_FORMAT_JSON;
        return SDX_OK;
    }
    /* BSON is told by its length alone, never by trying its reader. */
    static const sdx_format order[] = {SDX_FORMAT_JSON,   SDX_FORMAT_MSGPACK, SDX_FORMAT_CBOR,
                                       SDX_FORMAT_UBJSON, SDX_FORMAT_BJDATA,  SDX_FORMAT_BINN};
    sdx_format best = SDX_FORMAT_UNKNOWN;
    uint64_t best_progress = 0;
    bool no_utf8 = (flags & SDX_DETECT_NO_UTF8_CHECK) != 0;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        sdx_format f = order[i];
#ifdef SDX_NO_MSGPACK
        if (f == SDX_FORMAT_MSGPACK) continue;
#endif
#ifdef SDX_NO_CBOR
        if (f == SDX_FORMAT_CBOR) continue;
#endif
#ifdef SDX_NO_UBJSON
        if (f == SDX_FORMAT_UBJSON || f == SDX_FORMAT_BJDATA) continue;
#endif
#ifdef SDX_NO_BINN
        if (f == SDX_FORMAT_BINN) continue;
#endif
        uint64_t progress;
        sdx_err e = probe(f, p, len, at_end, no_utf8, &progress);
        if (e) return e;
        if (best == SDX_FORMAT_UNKNOWN || progress > best_progress) {
            best = f;
            best_progress = progress;
        }
        if (progress == UINT64_MAX) break;
    }
    *format = best;
    if (guessed) *guessed = best_progress == 0;
    return SDX_OK;
}
