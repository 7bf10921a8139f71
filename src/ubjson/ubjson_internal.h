/*
 * Internal: what the UBJSON writer and reader share — the markers, the
 * byte order of the two dialects, the payload sizes of the fixed-size
 * types, and the check of a high-precision number's text.
 */
#ifndef SDX_UBJSON_INTERNAL_H
#define SDX_UBJSON_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/endian.h"
#include "num/num.h"
#include "sdx/ubjson.h"

/* Little-endian conversions, the counterparts of core/endian.h's
 * big-endian ones (BJData's numbers are little-endian). */
#ifdef SDX_BIG_ENDIAN
#define SDX_LE16(v) sdx_bswap16(v)
#define SDX_LE32(v) sdx_bswap32(v)
#define SDX_LE64(v) sdx_bswap64(v)
#else
#define SDX_LE16(v) (v)
#define SDX_LE32(v) (v)
#define SDX_LE64(v) (v)
#endif

/* Store the low n (1, 2, 4 or 8) bytes of v at p: big-endian (UBJSON) or
 * little-endian (BJData), as one byte swap and one store. */
static inline void sdx_ubj_store(unsigned char *p, uint64_t v, int n, bool le) {
    switch (n) {
    case 1: p[0] = (unsigned char)v; break;
    case 2: {
        uint16_t x = le ? SDX_LE16((uint16_t)v) : SDX_BE16((uint16_t)v);
        memcpy(p, &x, 2);
        break;
    }
    case 4: {
        uint32_t x = le ? SDX_LE32((uint32_t)v) : SDX_BE32((uint32_t)v);
        memcpy(p, &x, 4);
        break;
    }
    default: {
        uint64_t x = le ? SDX_LE64(v) : SDX_BE64(v);
        memcpy(p, &x, 8);
        break;
    }
    }
}

/* Load n (1, 2, 4 or 8) bytes at p in either order: one load and, where
 * the order differs from the machine's, one byte swap. */
static inline uint64_t sdx_ubj_load(const unsigned char *p, int n, bool le) {
    switch (n) {
    case 1: return p[0];
    case 2: {
        uint16_t v;
        memcpy(&v, p, 2);
        return le ? SDX_LE16(v) : SDX_BE16(v);
    }
    case 4: {
        uint32_t v;
        memcpy(&v, p, 4);
        return le ? SDX_LE32(v) : SDX_BE32(v);
    }
    default: {
        uint64_t v;
        memcpy(&v, p, 8);
        return le ? SDX_LE64(v) : SDX_BE64(v);
    }
    }
}

/* The payload size of a value marker in a dialect: the fixed size of a
 * number, char or byte; 0 for Z T F; -1 for the variable-size ones (S H [
 * {); -2 for a byte that is no value marker (N included: a no-op is not a
 * value). */
static inline int sdx_ubj_payload(unsigned char m, bool bjdata) {
    switch (m) {
    case 'Z': case 'T': case 'F': return 0;
    case 'i': case 'U': case 'C': return 1;
    case 'I': return 2;
    case 'l': case 'd': return 4;
    case 'L': case 'D': return 8;
    case 'S': case 'H': case '[': case '{': return -1;
    case 'u': case 'h': return bjdata ? 2 : -2;
    case 'm': return bjdata ? 4 : -2;
    case 'M': return bjdata ? 8 : -2;
    case 'B': return bjdata ? 1 : -2;
    default: return -2;
    }
}

/* Whether a marker may follow '$': any value marker in UBJSON (Draft 12),
 * the non-zero fixed-size ones in BJData (its specification, "Optimized
 * Format": i U I u l m L M h d D C B). */
static inline bool sdx_ubj_type_ok(unsigned char m, bool bjdata) {
    int n = sdx_ubj_payload(m, bjdata);
    return bjdata ? n > 0 : n >= -1;
}

/* Whether s[0, n) is exactly one JSON number (RFC 8259), the text an H
 * value must hold. */
static inline bool sdx_ubj_number_ok(const char *s, size_t n) {
    sdx_num num;
    if (n == 0) return false;
    return sdx_json_number(s, s + n, SDX_NUM_BIG_RAW, &num, NULL) == s + n;
}

/* sdx_ubjson_parse's two paths (parse.c), private, apart for the tests
 * that compare them: the direct parse of the common form (1 with the
 * document in *out, 0 when the input is not of that form or not valid,
 * -1 when out of memory), and the reader's events into the builder (the
 * parser's result, errors included, for any input). */
int sdx_ubjson_parse_direct_(const char *data, size_t len, const sdx_ubjson_read_opts *opts,
                             sdx_doc **out);
sdx_doc *sdx_ubjson_parse_events_(const char *data, size_t len, const sdx_ubjson_read_opts *opts,
                                  sdx_error *err);

#endif /* SDX_UBJSON_INTERNAL_H */
