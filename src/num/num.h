/*
 * Internal: conversions between numbers and their decimal text.
 */
#ifndef SDX_NUM_H
#define SDX_NUM_H

#include <stdint.h>

/* Decimal digits of an unsigned 64-bit integer at dst, no terminator; returns
 * the end. Writes at most 20 digits but may store up to 24 bytes: the caller
 * reserves 24 bytes (SDX_ITOA_RESERVE). */
char *sdx_u64_to_dec(char *dst, uint64_t v);

/* The same for a signed value, with a leading '-' when negative. May store
 * up to SDX_ITOA_RESERVE bytes. */
char *sdx_i64_to_dec(char *dst, int64_t v);

#define SDX_ITOA_RESERVE 24

/* Shortest decimal that round-trips: for a finite, nonzero, positive double
 * `v`, the integer `*digits` (1 to 17 decimal digits, no trailing zeros) and
 * the exponent `*exp10` such that digits * 10^exp10 is the decimal of fewest
 * significant digits that reads back (round to nearest, ties to even) as v,
 * and of those the closest to v (ties to an even last digit).
 * Schubfach algorithm: R. Giulietti, "The Schubfach way to render doubles",
 * 2020/2021. */
void sdx_dtoa_shortest(double v, uint64_t *digits, int *exp10);

/* A finite double in JSON text at dst, no terminator; returns the end. Stores
 * at most SDX_DTOA_RESERVE bytes. The layout is ECMAScript's
 * Number.prototype.toString on the shortest digits, except that an integral
 * value keeps a ".0" so that it reads back as a double:
 *   0.0, -0.0, 1.0, 1.5, 123456789012345680000.0, 1e21, 0.000001, 1e-7,
 *   1.7976931348623157e308, 5e-324
 * (fixed notation when the decimal exponent n of d.ddd x 10^(n-1) satisfies
 * -6 < n <= 21, otherwise d.ddde[-]x). NaN and infinity are the caller's
 * business. */
char *sdx_dtoa_json(char *dst, double v);

#define SDX_DTOA_RESERVE 32

#endif /* SDX_NUM_H */
