/*
 * Internal: the encoding of CBOR heads (RFC 8949 section 3), shared by the
 * CBOR writer, reader and parser.
 *
 * Every data item starts with a head: the major type in the top three bits
 * of the initial byte, and in its low five bits the additional information
 * (section 3.1): 0-23 the argument itself, 24-27 an argument of 1, 2, 4 or
 * 8 bytes following, 28-30 reserved (not well-formed), 31 an
 * indefinite-length item (major types 2-5) or the break (major type 7).
 */
#ifndef SDX_CBOR_INTERNAL_H
#define SDX_CBOR_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/endian.h"
#include "core/floatbits.h"
#include "core/platform.h"
#include "sdx/cbor.h"
#include "sdx/common.h"

/* Major types (section 3.1), shifted into the initial byte. */
enum {
    SDX_CB_UINT = 0x00,
    SDX_CB_NINT = 0x20,
    SDX_CB_BYTES = 0x40,
    SDX_CB_TEXT = 0x60,
    SDX_CB_ARRAY = 0x80,
    SDX_CB_MAP = 0xa0,
    SDX_CB_TAG = 0xc0,
    SDX_CB_SIMPLE = 0xe0
};

/* Initial bytes of major type 7 (section 3.3). */
enum {
    SDX_CB_FALSE = 0xf4,
    SDX_CB_TRUE = 0xf5,
    SDX_CB_NULL = 0xf6,
    SDX_CB_UNDEFINED = 0xf7,
    SDX_CB_SIMPLE8 = 0xf8,
    SDX_CB_F16 = 0xf9,
    SDX_CB_F32 = 0xfa,
    SDX_CB_F64 = 0xfb,
    SDX_CB_BREAK = 0xff
};

/* The most bytes a head takes. */
#define SDX_CB_HEAD_MAX 9

/* Store the head of major type `major` (a SDX_CB_* byte) with argument
 * `arg` in its shortest form (preferred serialization, section 4.1) at p;
 * returns the end. */
static SDX_ALWAYS_INLINE uint8_t *sdx_cb_head(uint8_t *p, unsigned major, uint64_t arg) {
    if (arg < 24) {
        p[0] = (uint8_t)(major | arg);
        return p + 1;
    }
    if (arg <= 0xff) {
        p[0] = (uint8_t)(major | 24);
        p[1] = (uint8_t)arg;
        return p + 2;
    }
    if (arg <= 0xffff) {
        p[0] = (uint8_t)(major | 25);
        sdx_store_be16(p + 1, (uint16_t)arg);
        return p + 3;
    }
    if (arg <= 0xffffffffu) {
        p[0] = (uint8_t)(major | 26);
        sdx_store_be32(p + 1, (uint32_t)arg);
        return p + 5;
    }
    p[0] = (uint8_t)(major | 27);
    sdx_store_be64(p + 1, arg);
    return p + 9;
}

/* The size of the head whose initial byte is b: 1 + the argument's bytes
 * (additional information 24-27), 1 for everything else (28-31 included:
 * the caller rejects or handles those). */
static inline size_t sdx_cb_head_size(uint8_t b) {
    unsigned ai = b & 31u;
    return ai < 24 || ai > 27 ? 1 : 1 + ((size_t)1 << (ai - 24));
}

/* The argument of a head whose size is sdx_cb_head_size(p[0]) and whose
 * additional information is below 28. */
static inline uint64_t sdx_cb_arg(const uint8_t *p) {
    unsigned ai = p[0] & 31u;
    switch (ai) {
    case 24: return p[1];
    case 25: return sdx_load_be16(p + 1);
    case 26: return sdx_load_be32(p + 1);
    case 27: return sdx_load_be64(p + 1);
    default: return ai;
    }
}

/* Whether a head of additional information `ai` (below 28) with argument
 * `arg` is in its shortest form (section 4.2.1). */
static inline bool sdx_cb_head_shortest(unsigned ai, uint64_t arg) {
    switch (ai) {
    case 24: return arg >= 24;
    case 25: return arg > 0xff;
    case 26: return arg > 0xffff;
    case 27: return arg > 0xffffffffu;
    default: return true;
    }
}

/* sdx_cb_double for a double that may fit a float16 or float32: NaNs,
 * infinities and the doubles whose low 29 significand bits are zero (out of
 * line, in writer.c). */
uint8_t *sdx_cb_double_narrow(uint8_t *p, double d);

/* Store a double in preferred serialization (section 4.1): the shortest of
 * float16, float32 and float64 that keeps its value; every NaN as the
 * float16 quiet NaN f9 7e 00 (section 4.2.2's choice for deterministic
 * encoding, taken for all output). Returns the end (at most 9 bytes). */
static inline uint8_t *sdx_cb_double(uint8_t *p, double d) {
    uint64_t bits;
    memcpy(&bits, &d, 8);
    /* float64 told by one test (sdx/cbor.h), the common case of measured
     * data (canada.json: every coordinate); the round trips to float16 and
     * float32 stay out of line */
    if (!sdx_cb_w_f64_only(bits)) return sdx_cb_double_narrow(p, d);
    p[0] = SDX_CB_F64;
    sdx_store_be64(p + 1, bits);
    return p + 9;
}

#endif /* SDX_CBOR_INTERNAL_H */
