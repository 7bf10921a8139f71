/*
 * Internal: arbitrary-length unsigned integers for the mapping layer
 * (src/map): base 256 (CBOR bignums, big-endian bytes) <-> base 10 (JSON
 * number text), and the small multiplications bigfloats need.
 *
 * A number is little-endian limbs of 32 bits in caller memory. The
 * algorithms are the schoolbook ones (D. E. Knuth, TAOCP vol. 2, §4.3.1,
 * multiplication and division by a single-limb number; §4.4, radix
 * conversion by repeated division): quadratic in the length, which the
 * layer bounds by its digit limit (map.h).
 */
#ifndef SDX_MAP_INTERNAL_H
#define SDX_MAP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sdx/map.h"

typedef struct sdx_big {
    uint32_t *limb; /* limb[0] is the least significant */
    size_t n;       /* limbs in use; the top one is nonzero (n = 0: zero) */
} sdx_big;

/* Limbs that hold a number of `bytes` bytes, with one to spare for a carry. */
static inline size_t sdx_big_limbs_for_bytes(size_t bytes) { return bytes / 4 + 2; }

/* Limbs that hold a number of `digits` decimal digits, with one to spare. */
static inline size_t sdx_big_limbs_for_digits(size_t digits) { return digits / 9 + 2; }

/* Decimal digits of a number of n limbs, at most (9.64 per limb), rounded
 * up to whole groups of nine. */
static inline size_t sdx_big_digits_for_limbs(size_t n) { return (n * 10 / 9 + 1) * 9 + 9; }

/* b = the big-endian magnitude p[0, len) (leading zeros allowed). */
void sdx_big_from_be(sdx_big *b, const uint8_t *p, size_t len);

/* b = v. */
void sdx_big_from_u64(sdx_big *b, uint64_t v);

/* b += v; the limb array must have room for one more limb. */
void sdx_big_add_small(sdx_big *b, uint32_t v);

/* b -= 1; b must not be zero. */
void sdx_big_sub_one(sdx_big *b);

/* b *= v; room for one more limb. */
void sdx_big_mul_small(sdx_big *b, uint32_t v);

/* b <<= bits; room for bits / 32 + 1 more limbs. */
void sdx_big_shl(sdx_big *b, uint64_t bits);

/* b /= d (d > 0); returns the remainder. */
uint32_t sdx_big_div_small(sdx_big *b, uint32_t d);

/* The decimal digits of b at dst (room for sdx_big_digits_for_limbs(b->n)
 * bytes), without leading zeros ("0" for zero); b becomes zero. Returns
 * the number of digits. */
size_t sdx_big_to_dec(sdx_big *b, char *dst);

/* b = the decimal digits s[0, n) (all '0'-'9'); room for
 * sdx_big_limbs_for_digits(n) limbs. */
void sdx_big_from_dec(sdx_big *b, const char *s, size_t n);

/* The minimal big-endian bytes of b at dst (room for 4 * b->n bytes; none
 * for zero); returns their count. */
size_t sdx_big_to_be(const sdx_big *b, uint8_t *dst);

/* Whether b fits 64 bits; if so *v gets it. */
bool sdx_big_to_u64(const sdx_big *b, uint64_t *v);

/* Scratch memory that grows to the largest request (through `a`): a pointer
 * to `size` bytes, or NULL when allocating fails (the old block is kept). */
void *sdx_map_scratch_get(sdx_map_scratch *s, const sdx_alloc *a, size_t size);

/* Free a scratch block. */
void sdx_map_scratch_free(sdx_map_scratch *s, const sdx_alloc *a);

/* An event of `kind` with no tag and a zero value. */
static inline sdx_event sdx_map_event(sdx_kind kind) {
    sdx_event e;
    memset(&e, 0, sizeof e);
    e.kind = (uint8_t)kind;
    return e;
}

/* The from-JSON layer's sticky error: keep the first. */
static inline sdx_err sdx_map_from_json_fail(sdx_map_from_json *m, sdx_err e) {
    if (!m->err) m->err = e;
    return m->err;
}

/* Send ev to `out` (the layer's out, or a $scope's writer) unless the
 * from-JSON layer has failed; out's error becomes the layer's. */
static inline sdx_err sdx_map_from_json_send(sdx_map_from_json *m, sdx_sink out, const sdx_event *ev) {
    if (m->err) return m->err;
    sdx_err e = sdx_sink_put(out, ev);
    if (e) m->err = e;
    return m->err;
}

/* Whether the flags of sdx_map_opts are known and consistent (at most one
 * TAGS policy, at most one EJSON mode). */
bool sdx_map_flags_ok(uint32_t flags);

/* dst = the n bytes at src in ascending order (a counting sort: linear in
 * n). Extended JSON regex options are written sorted. */
void sdx_map_sort_bytes(char *dst, const char *src, size_t n);

/* The from-JSON layer for SDX_MAP_TARGET_BSON (src/map/ejson.c): take one
 * event, and at the end send what is held (before out is finished). */
sdx_err sdx_map_ejson_put(sdx_map_from_json *m, const sdx_event *ev);
sdx_err sdx_map_ejson_finish(sdx_map_from_json *m);

#endif /* SDX_MAP_INTERNAL_H */
