/*
 * Internal: conversions between numbers and their decimal text.
 */
#ifndef SDX_NUM_H
#define SDX_NUM_H

#include <stdint.h>

/* Integers: sdx_u64_to_dec, sdx_i64_to_dec (inline, see itoa.h). */
#include "num/itoa.h"

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
