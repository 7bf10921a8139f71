/*
 * Internal: conversions between numbers and their decimal text.
 */
#ifndef SDX_NUM_H
#define SDX_NUM_H

#include <stdbool.h>
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

/* ---- Decimal text to binary (src/num/strtod.c) ---- */

/* What sdx_json_number found. */
typedef enum sdx_num_kind {
    SDX_NUM_INT = 0, /* out->i: an integer that fits int64 */
    SDX_NUM_UINT,    /* out->u: an integer above INT64_MAX that fits uint64 */
    SDX_NUM_DOUBLE,  /* out->d: the correctly rounded double (round to
                        nearest, ties to even; may be +-0 or +-infinity) */
    SDX_NUM_BIG      /* only with SDX_NUM_BIG_RAW: an integer beyond 64 bits or
                        a number whose double is infinite; keep the text */
} sdx_num_kind;

typedef struct sdx_num {
    sdx_num_kind kind;
    union {
        int64_t i;
        uint64_t u;
        double d;
    } v;
} sdx_num;

/* Flags of sdx_json_number: report integers beyond 64 bits and numbers whose
 * double would be infinite as SDX_NUM_BIG instead of converting them. */
enum { SDX_NUM_BIG_RAW = 1u << 0 };

/* Scan one JSON number (RFC 8259 grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?
 * ([eE][+-]?[0-9]+)?) starting at p, reading no byte at or after `end`.
 * Returns the end of the number, or NULL when the text at p is not a number;
 * then *err_at, if err_at is not NULL, gets the first byte that cannot
 * continue it ("01": the '1'; "1.e5": the 'e'; "+1": the '+'), or `end`
 * when the input ends inside the number ("-", "1.", "1e+"). The number is the
 * longest match: the byte after it is not examined beyond deciding that it
 * cannot continue the number ("1.5x" and "0x10" end before the 'x'; the
 * caller checks that a delimiter follows), but a started fraction or
 * exponent must be complete ("1.5e" is an error).
 * *out gets:
 *   SDX_NUM_INT     an integer (no fraction or exponent) that fits int64;
 *   SDX_NUM_UINT    an integer above INT64_MAX that fits uint64;
 *   SDX_NUM_DOUBLE  "-0" as -0.0, and every other number as the correctly
 *                   rounded double (ties to even; +-infinity beyond the
 *                   largest double, +-0 below the smallest subnormal);
 *   SDX_NUM_BIG     only with SDX_NUM_BIG_RAW in flags, for an integer beyond
 *                   64 bits or a number whose double is infinite (out->v is
 *                   not set; the text is the caller's).
 * Any number of digits is accepted, in time linear in its length and
 * without allocating. The conversion (src/num/strtod.c) is Clinger's fast
 * path, then Eisel-Lemire (D. Lemire, "Number Parsing at a Gigabyte per
 * Second", Software: Practice and Experience 51(8), 2021), and an exact
 * big-integer comparison with the midpoint between the two candidate doubles
 * for the rare inputs those cannot decide. */
const char *sdx_json_number(const char *p, const char *end, unsigned flags, sdx_num *out,
                            const char **err_at);

/* The truncated top 128 bits of 10^q for SDX_NUM_POW10_MIN <= q <= 308, as
 * {high, low} words: sdx_num_pow10_128[q - SDX_NUM_POW10_MIN] (the table of
 * src/num/pow10_table.h, for the inline fast path in num/json_number.h). */
#define SDX_NUM_POW10_MIN (-342)
extern const uint64_t (*const sdx_num_pow10_128)[2];

/* The correctly rounded double for a decimal string at p, reading no byte at
 * or after `end`: an optional '+' or '-', digits (leading zeros allowed),
 * optionally '.' and digits, optionally an exponent ("007.5", "+1e400" give
 * 7.5, inf). The longest prefix of that form is read: "1." and "1e+" stop
 * before the '.' and the 'e'. Returns the end of what was read, or NULL (and
 * *out unchanged) if p does not start with a number. For tests and general
 * use. */
const char *sdx_parse_double(const char *p, const char *end, double *out);

#endif /* SDX_NUM_H */
