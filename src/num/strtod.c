/*
 * Decimal text to binary: the JSON number scanner and a correctly rounded
 * decimal-to-double conversion (round to nearest, ties to even).
 *
 * A number is read as a significand of decimal digits (integer part, then
 * fraction) and an explicit exponent; its value is w * 10^q for an integer w.
 * Three steps, each used only when the one before cannot decide:
 *
 * 1. Clinger's fast path (W. D. Clinger, "How to Read Floating Point Numbers
 *    Accurately", PLDI 1990): when w <= 2^53 and |q| <= 22, both w and 10^|q|
 *    are doubles, so one correctly rounded multiplication or division gives
 *    the answer; also for 22 < q <= 22 + 16 when w * 10^(q-22) stays below
 *    2^53 (an exact integer product, then one multiplication by 1e22).
 *
 * 2. Eisel-Lemire (D. Lemire, "Number Parsing at a Gigabyte per Second",
 *    Software: Practice and Experience 51(8), 2021; N. Noble Mushtak and
 *    D. Lemire, "Fast Number Parsing Without Fallback", Software: Practice
 *    and Experience 53(7), 2023) for w < 2^64 (at most 19 digits): the
 *    normalized w times the top 128 bits of 10^q (src/num/pow10_table.h) gives
 *    the double's bits, usually from the high 64 bits of one 64 x 64-bit
 *    product. The derivation in this file (eisel_lemire() below) bounds the
 *    exact product in an interval and decides only when no rounding boundary
 *    lies inside it; the rare undecided case (the input within a relative
 *    2^-126 of a midpoint between doubles: in practice exact ties) goes to
 *    step 3 instead of being assumed away. With more than 19 significant digits, w is the
 *    first 19 and the value lies strictly between w * 10^q and
 *    (w + 1) * 10^q; when both round to the same double that is the answer.
 *
 * 3. Exact decision (decide_exact()): the two candidates are adjacent
 *    doubles b < b+; the input is compared with their midpoint exactly in a
 *    fixed-size big integer on the stack. Only the first DEC_MAX_DIGITS
 *    significant digits enter the big integer, and a sticky flag records a
 *    nonzero digit beyond them (see there for why that is exact).
 *
 * Scanning reads eight digits at a time where eight bytes remain before the
 * end (the SWAR digit conversion of Lemire's paper, derived below), never a
 * byte at or after `end`. Exponents saturate, so any number of exponent or
 * significand digits is handled in one linear pass without overflow.
 */
#include <float.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/platform.h"
#include "num/json_number.h"
#include "num/num.h"
#include "num/pow10_table.h"

#define INF_BITS 0x7FF0000000000000u

/* The table for the inline fast path (num/json_number.h), so that the
 * sources using it share this copy. */
_Static_assert(SDX_NUM_POW10_MIN == SDX_POW10_MIN, "the same first power");
const uint64_t (*const sdx_num_pow10_128)[2] = sdx_pow10_128;
#define MANT_MASK 0x000FFFFFFFFFFFFFu

/* Explicit exponents stop growing here, far beyond any finite or nonzero
 * result, so exponent arithmetic stays in range for any number of digits. */
#define EXP_SATURATE 100000000

/* Clinger's fast path needs each double operation rounded once to double
 * precision (not true of x87 extended evaluation). SDX_STRTOD_PORTABLE (for
 * testing) turns it off and uses the portable 64 x 64-bit multiplication. */
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0 && !defined(SDX_STRTOD_PORTABLE)
#define STRTOD_CLINGER 1
#endif
#if defined(SDX_HAVE_U128) && !defined(SDX_STRTOD_PORTABLE)
#define STRTOD_U128 1
#endif

static inline double from_bits(uint64_t b) {
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

/* ------------------------------------------------------------------------ */
/* Digit scanning                                                            */

/* Consume the run of digits at p (possibly empty), accumulating it into *acc
 * modulo 2^64 (exact while the total stays within 19 digits). With eight
 * bytes available, one load finds how many of them are digits: a byte b is
 * flagged when b >= 0x80, b + 0x46 >= 0x80 (b > '9') or b - 0x30 borrows
 * (b < '0'); digits neither carry nor borrow, so the first non-digit is
 * flagged correctly whatever follows it. The n leading digits are moved to
 * the top n lanes (the low lanes become zeros, leading zero digits) and
 * converted at once. */
static SDX_ALWAYS_INLINE const char *scan_digits(const char *p, const char *end, uint64_t *acc) {
    uint64_t w = *acc;
    while (end - p >= 8) {
        uint64_t v = sdx_load64le(p);
        uint64_t t = v - 0x3030303030303030u;
        uint64_t stop = (v | (v + 0x4646464646464646u) | t) & 0x8080808080808080u;
        if (stop == 0) {
            w = w * 100000000u + sdx_hot_eight_digits(t);
            p += 8;
            continue;
        }
        unsigned n = sdx_ctz64(stop) >> 3;
        if (n) {
            w = w * sdx_num_pow10[n] + sdx_hot_eight_digits(t << (64 - 8 * n));
            p += n;
        }
        *acc = w;
        return p;
    }
    while (p < end && sdx_num_is_digit(*p)) {
        w = w * 10 + (uint64_t)(*p - '0');
        p++;
    }
    *acc = w;
    return p;
}

/* The integer part's digits at p (p[0] is a digit) into *w. Most numbers
 * in real data have one to three integer digits: those are read one at a
 * time, so that branch prediction, not the digits' values, decides where the
 * number goes on and the following loads can issue early; a longer run
 * continues eight digits at a time. */
static SDX_ALWAYS_INLINE const char *scan_integer_digits(const char *p, const char *end,
                                                         uint64_t *w) {
    uint64_t v = (uint64_t)(*p++ - '0');
    if (p < end && sdx_num_is_digit(*p)) {
        v = v * 10 + (uint64_t)(*p++ - '0');
        if (p < end && sdx_num_is_digit(*p)) {
            v = v * 10 + (uint64_t)(*p++ - '0');
            if (p < end && sdx_num_is_digit(*p)) p = scan_digits(p, end, &v);
        }
    }
    *w = v;
    return p;
}

/* ------------------------------------------------------------------------ */
/* Eisel-Lemire                                                              */

/* The high 64 bits of a * b; the low 64 in *lo. */
static SDX_ALWAYS_INLINE uint64_t umul128(uint64_t a, uint64_t b, uint64_t *lo) {
#ifdef STRTOD_U128
    sdx_u128 r = (sdx_u128)a * b;
    *lo = (uint64_t)r;
    return (uint64_t)(r >> 64);
#else
    uint64_t al = a & 0xFFFFFFFFu, ah = a >> 32, bl = b & 0xFFFFFFFFu, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t cross = (ll >> 32) + (lh & 0xFFFFFFFFu) + (hl & 0xFFFFFFFFu);
    *lo = (cross << 32) | (ll & 0xFFFFFFFFu);
    return hh + (lh >> 32) + (hl >> 32) + (cross >> 32);
#endif
}

/*
 * The bits of the double nearest to w * 10^q (w > 0 or w = 0, any q).
 * Returns true with *bits the answer, or false with *bits the lower of the
 * two doubles the answer is one of (the caller decides exactly).
 *
 * Let w' = w * 2^lz (top bit set) and 10^q = (T + d) * 2^E with the table's
 * T = floor(10^q * 2^-E) in [2^127, 2^128) and 0 <= d < 1 (d = 0 exactly for
 * the exact entries, 0 <= q <= 55). The scaled value X = w' * (T + d) lies in
 * [2^190, 2^192) and w * 10^q = X * 2^(E - lz). Its binary exponent is
 * e = 63 + u + floor(log2(10^q)) - lz with u = 1 when X >= 2^191.
 *
 * With hi:lo = w' * T_hi (T = T_hi * 2^64 + T_lo):
 *   hi:lo * 2^64 <= w' * T <= X < w' * T + w' < (hi + 2) * 2^128,
 * so X / 2^128 lies in [hi, hi + 2). The double keeps hi >> k (k = 10 + u
 * bits below a 53-bit significand; more for subnormals); rounding changes
 * only at the midpoints, which in units of 2^128 are the integers
 * m = kept * 2^k + 2^(k-1). Writing rem = hi mod 2^k and half = 2^(k-1):
 *   rem < half - 1: X < (hi + 2) * 2^128 <= midpoint: round down;
 *   rem > half:     X >= hi * 2^128 > midpoint: round up;
 *   rem = half:     X >= midpoint, with equality (a tie, to even) only if
 *                   the product is exact and complete (exact entry with
 *                   T_lo = 0, i.e. q in [0, 27], and lo = 0); else round up;
 *   rem = half - 1: the midpoint (hi + 1) * 2^128 may lie in the interval.
 *                   With an exact entry and T_lo = 0, X = hi:lo * 2^64 is
 *                   below it. Otherwise the second product w' * T_lo gives
 *                   S = w' * T = hi:mid:lo2 exactly (plus a carry into hi):
 *                   with the carry, X >= S >= midpoint, and X > midpoint (an
 *                   inexact entry has d > 0; for exact entries q > 27 and
 *                   ties need q <= 23, see below); without it, X < S + w' is
 *                   below the midpoint unless mid = 2^64 - 1 and
 *                   lo2 + w' > 2^64 (for inexact entries): undecided.
 * A tie w * 10^q = (2c + 1) * 2^(j-1) with 2c + 1 < 2^54 needs 5^q to
 * divide 2c + 1 when q > 0 (so q <= 23), and 5^-q * (2c + 1) <= w < 2^64
 * when q < 0 (so q >= -4); the undecided case catches the ties with q < 0.
 * Lemire's paper decides with the approximate product and its rounding-mode
 * check; Mushtak and Lemire prove that the 128-bit product always suffices
 * for their variant of the table; here the interval argument above is the
 * whole proof, at the price of a branch that exact ties take.
 *
 * The u bit comes from hi, not X: when hi = 2^63 - 1 but X >= 2^191 the
 * rounding above carries kept up to 2^53, which gives the same bits.
 * Subnormals keep 1 - biased bits fewer (k grows by as many); no tie is
 * possible there (q <= -307 would need 5^307 to divide w). Overflow gives
 * infinity.
 */
static SDX_NOINLINE bool eisel_lemire(uint64_t w, int64_t q, uint64_t *bits) {
    if (w == 0 || q < SDX_POW10_MIN) { /* below 10^19 * 10^-343 < 2^-1075 */
        *bits = 0;
        return true;
    }
    if (q > 308) { /* at least 10^309 */
        *bits = INF_BITS;
        return true;
    }
    int lz = (int)sdx_clz64(w);
    w <<= lz;
    const uint64_t *t = sdx_pow10_128[q - SDX_POW10_MIN];
    uint64_t lo, hi = umul128(w, t[0], &lo);
    int u = (int)(hi >> 63);
    int biased = 63 + u + sdx_floor_log2_pow10((int)q) - lz + 1023;
    int k = 10 + u;
    if (SDX_UNLIKELY(biased <= 0)) {
        k += 1 - biased;
        biased = 1;
        if (k >= 64) {
            /* X / 2^128 < 2^64 + 2: for k >= 66 below the first midpoint
             * 2^(k-1) (zero); for 64 and 65 between zero and the smallest
             * subnormal, left to the exact decision. */
            *bits = 0;
            return k >= 66;
        }
    }
    uint64_t half = (uint64_t)1 << (k - 1);
    uint64_t rem = hi & ((half << 1) - 1);
    uint64_t kept = hi >> k;
    if (SDX_LIKELY(rem - (half - 1) > 1)) {
        kept += rem > half;
    } else {
        bool exact_full = q >= 0 && q <= 27 && t[1] == 0; /* X = hi:lo * 2^64 */
        if (rem == half) {
            kept += (exact_full && lo == 0) ? (kept & 1) : 1;
        } else if (!exact_full) {
            uint64_t lo2, hi2 = umul128(w, t[1], &lo2);
            uint64_t mid = lo + hi2;
            if (mid < lo) {
                kept += 1;
            } else if (mid == UINT64_MAX && lo2 > 0 - w &&
                       !(q >= SDX_POW10_EXACT_MIN && q <= SDX_POW10_EXACT_MAX)) {
                *bits = ((uint64_t)(biased - 1) << 52) + kept;
                return false;
            }
        }
    }
    uint64_t b = ((uint64_t)(biased - 1) << 52) + kept;
    *bits = b < INF_BITS ? b : INF_BITS;
    return true;
}

/* The common case of eisel_lemire(), inline: a normal result whose
 * rounding the first product decides (rem not next to the midpoint). Returns
 * false, having done nothing, for everything else; eisel_lemire() then
 * starts over. Keeping the rare cases out keeps this path short and free of
 * spilled registers. */
static SDX_ALWAYS_INLINE bool eisel_lemire_common(uint64_t w, int64_t q, uint64_t *bits) {
    if (w == 0 || (uint64_t)(q - SDX_POW10_MIN) > (uint64_t)(308 - SDX_POW10_MIN)) return false;
    int lz = (int)sdx_clz64(w);
    uint64_t lo, hi = umul128(w << lz, sdx_pow10_128[q - SDX_POW10_MIN][0], &lo);
    (void)lo;
    int u = (int)(hi >> 63);
    int biased = 63 + u + sdx_floor_log2_pow10((int)q) - lz + 1023;
    int k = 10 + u;
    uint64_t half = (uint64_t)1 << (k - 1);
    uint64_t rem = hi & ((half << 1) - 1);
    if (SDX_UNLIKELY(biased <= 0) || SDX_UNLIKELY(rem - (half - 1) <= 1)) return false;
    uint64_t b = ((uint64_t)(biased - 1) << 52) + (hi >> k) + (rem > half);
    *bits = b < INF_BITS ? b : INF_BITS;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Exact decision                                                            */

/*
 * Significant digits kept exactly. A midpoint between adjacent doubles is
 * h = (2c + 1) * 2^e with 2c + 1 < 2^54 and e >= -1075; for e < 0 it is
 * (2c + 1) * 5^-e / 10^-e, whose significant digits are those of the odd
 * integer (2c + 1) * 5^-e, at most 768 ((2^54 - 1) * 5^1075 has 768 digits;
 * the often quoted 767 is the most a double itself has, (2^53 - 1) * 5^1074,
 * and a midpoint has one bit more).
 * The input v is within a factor of two of h, so its leading digit is at
 * most one place above h's, and truncated to 800 significant digits it is
 * D * 10^e_d with h a multiple of 10^e_d. Then D * 10^e_d < h implies
 * v < (D + 1) * 10^e_d <= h; D * 10^e_d = h decides by the sticky flag; and
 * D * 10^e_d > h implies v > h.
 */
#define DEC_MAX_DIGITS 800

/*
 * A nonnegative integer in little-endian 32-bit limbs. Bound: the exact
 * decision compares D * 2^a with (2c + 1) * 5^s * 2^b (or D * 5^s with
 * (2c + 1) * 2^b). D < 10^800 < 2^2658. The decision runs only when the
 * Eisel-Lemire step had an exponent q >= -342 for the first 19 digits, so
 * the exponent of the last kept digit is e_d >= -342 + 19 - 800 = -1123 and
 * (2c + 1) * 5^1123 < 2^2662; with e_d >= 0 the value is below 2^1025, so
 * D * 5^e_d < 2^1025. The two sides are shifted only when their bit lengths
 * agree, so nothing exceeds 2662 bits: 84 limbs; 88 leave a margin.
 */
#define BIG_LIMBS 88

typedef struct big {
    int n; /* limbs in use; d[n - 1] != 0 unless n == 0 */
    uint32_t d[BIG_LIMBS];
} big;

static void big_set(big *b, uint64_t v) {
    b->d[0] = (uint32_t)v;
    b->d[1] = (uint32_t)(v >> 32);
    b->n = b->d[1] ? 2 : b->d[0] ? 1 : 0;
}

/* b = b * m + a. */
static void big_mul_add(big *b, uint32_t m, uint32_t a) {
    uint64_t carry = a;
    for (int i = 0; i < b->n; i++) {
        uint64_t x = (uint64_t)b->d[i] * m + carry;
        b->d[i] = (uint32_t)x;
        carry = x >> 32;
    }
    if (carry && b->n < BIG_LIMBS) b->d[b->n++] = (uint32_t)carry;
}

static void big_mul_pow5(big *b, int e) {
    static const uint32_t pow5[14] = {1,      5,       25,       125,       625,
                                      3125,   15625,   78125,    390625,    1953125,
                                      9765625, 48828125, 244140625, 1220703125};
    for (; e >= 13; e -= 13) big_mul_add(b, pow5[13], 0);
    if (e) big_mul_add(b, pow5[e], 0);
}

static int big_bit_length(const big *b) {
    if (b->n == 0) return 0;
    return 32 * b->n - (int)sdx_clz64(b->d[b->n - 1]) + 32;
}

static void big_shift_left(big *b, int s) {
    if (b->n == 0 || s <= 0) return;
    int limbs = s / 32, bits = s % 32;
    int n = b->n + limbs + 1;
    if (n > BIG_LIMBS) n = BIG_LIMBS;
    for (int i = n - 1; i >= limbs; i--) {
        int j = i - limbs;
        uint32_t hi = j < b->n ? b->d[j] : 0;
        uint32_t lo = j >= 1 && j - 1 < b->n ? b->d[j - 1] : 0;
        b->d[i] = bits ? (hi << bits) | (lo >> (32 - bits)) : hi;
    }
    for (int i = 0; i < limbs && i < n; i++) b->d[i] = 0;
    while (n > 0 && b->d[n - 1] == 0) n--;
    b->n = n;
}

static int big_compare(const big *a, const big *b) {
    if (a->n != b->n) return a->n < b->n ? -1 : 1;
    for (int i = a->n - 1; i >= 0; i--)
        if (a->d[i] != b->d[i]) return a->d[i] < b->d[i] ? -1 : 1;
    return 0;
}

/* The significand digits of a number: the integer part [ip, ip + in), the
 * fraction [fp, fp + fn) (fn may be 0), and the explicit exponent. */
typedef struct digits {
    const char *ip, *fp;
    size_t in, fn;
    int64_t exp;
} digits;

static inline char digit_at(const digits *s, size_t g) {
    return g < s->in ? s->ip[g] : s->fp[g - s->in];
}

/* How many '0' bytes p[0..n) starts with. */
static size_t count_leading_zeros(const char *p, size_t n) {
    size_t i = 0;
    while (n - i >= 8 && sdx_load64le(p + i) == 0x3030303030303030u) i += 8;
    while (i < n && p[i] == '0') i++;
    return i;
}

/* How many bytes remain of p[0..n) without its trailing '0' bytes. */
static size_t length_without_trailing_zeros(const char *p, size_t n) {
    while (n >= 8 && sdx_load64le(p + n - 8) == 0x3030303030303030u) n -= 8;
    while (n > 0 && p[n - 1] == '0') n--;
    return n;
}

/* The first and last nonzero significand digits (global indices over the
 * integer digits followed by the fraction digits); false if all are zero. */
static bool significant_range(const digits *s, size_t *first, size_t *last) {
    size_t z = count_leading_zeros(s->ip, s->in);
    if (z == s->in) {
        z = s->in + count_leading_zeros(s->fp, s->fn);
        if (z == s->in + s->fn) return false;
    }
    *first = z;
    size_t f = length_without_trailing_zeros(s->fp, s->fn);
    *last = f ? s->in + f - 1 : length_without_trailing_zeros(s->ip, s->in) - 1;
    return true;
}

/* The decimal exponent of the digit at global index g: exp + in - 1 - g,
 * clamped (far beyond any meaningful range; keeps the sum in int64). */
static int64_t digit_exponent(const digits *s, size_t g) {
    const int64_t lim = (int64_t)1 << 40;
    int64_t in = s->in < (size_t)lim ? (int64_t)s->in : lim;
    int64_t gg = g < (size_t)lim ? (int64_t)g : lim;
    return s->exp + in - 1 - gg;
}

/*
 * The double nearest to the (positive) number s, given that it is `lower`
 * or the next double up. Compares the number with the midpoint
 * h = (2c + 1) * 2^(e2 - 1) of lower = c * 2^e2 and its successor.
 */
static SDX_NOINLINE uint64_t decide_exact(const digits *s, uint64_t lower) {
    if (lower >= INF_BITS) return INF_BITS;
    size_t first, last;
    if (!significant_range(s, &first, &last)) return 0;
    size_t nsig = last - first + 1;
    size_t n = nsig < DEC_MAX_DIGITS ? nsig : DEC_MAX_DIGITS;
    bool sticky = nsig > DEC_MAX_DIGITS;
    int e_d = (int)digit_exponent(s, first + n - 1);

    big num, mid;
    num.n = 0;
    size_t g = first;
    for (size_t left = n; left > 0;) {
        size_t chunk = left < 9 ? left : 9;
        uint32_t v = 0;
        for (size_t i = 0; i < chunk; i++, g++) v = v * 10 + (uint32_t)(digit_at(s, g) - '0');
        big_mul_add(&num, (uint32_t)sdx_num_pow10[chunk], v);
        left -= chunk;
    }

    uint64_t c = lower & MANT_MASK;
    int ef = (int)(lower >> 52), e2 = -1074;
    if (ef) {
        c |= (uint64_t)1 << 52;
        e2 = ef - 1075;
    }
    big_set(&mid, 2 * c + 1);
    /* Compare num * 2^a with mid * 2^b. */
    int a = 0, b = e2 - 1;
    if (e_d >= 0) {
        big_mul_pow5(&num, e_d);
        a = e_d;
    } else {
        big_mul_pow5(&mid, -e_d);
        b -= e_d;
    }
    int la = big_bit_length(&num) + a, lb = big_bit_length(&mid) + b;
    int cmp;
    if (la != lb) {
        cmp = la < lb ? -1 : 1;
    } else {
        if (a > b) big_shift_left(&num, a - b);
        else big_shift_left(&mid, b - a);
        cmp = big_compare(&num, &mid);
    }
    if (cmp == 0) cmp = sticky ? 1 : (lower & 1) ? 1 : -1;
    return cmp < 0 ? lower : lower + 1;
}

/* ------------------------------------------------------------------------ */
/* Conversion                                                                */

#ifdef STRTOD_CLINGER
/* The largest w with w * 10^i <= 2^53. */
static const uint64_t clinger_limit[17] = {
    9007199254740992u, 900719925474099u, 90071992547409u, 9007199254740u, 900719925474u,
    90071992547u,      9007199254u,      900719925u,      90071992u,      9007199u,
    900719u,           90071u,           9007u,           900u,           90u,
    9u,                0u};
#endif

/* Clinger's fast path for the (positive) number w * 10^q, w exact: true
 * with *bits the answer when it applies. */
static SDX_ALWAYS_INLINE bool clinger(uint64_t w, int64_t q, uint64_t *bits) {
#ifdef STRTOD_CLINGER
    if (w <= ((uint64_t)1 << 53) && q >= -22 && q <= 22 + 16) {
        double d = (double)w;
        if (q < 0) {
            d /= sdx_num_pow10_f64[-q];
        } else if (q <= 22) {
            d *= sdx_num_pow10_f64[q];
        } else if (w <= clinger_limit[q - 22]) {
            d = (double)(w * sdx_num_pow10[q - 22]) * 1e22;
        } else {
            return false;
        }
        memcpy(bits, &d, sizeof *bits);
        return true;
    }
#else
    (void)w, (void)q, (void)bits;
#endif
    return false;
}

/* The bits of any (positive) number given by its digits: the path for more
 * than 19 significand digits (counting leading zeros) and for inputs that
 * need the exact decision. */
static SDX_NOINLINE uint64_t convert_slow(const char *ip, size_t in, const char *fp, size_t fn,
                                          int64_t exp) {
    const digits s = {ip, fp, in, fn, exp};
    size_t first, last;
    if (!significant_range(&s, &first, &last)) return 0;
    size_t nsig = last - first + 1;
    size_t n = nsig < 19 ? nsig : 19;
    uint64_t w = 0;
    for (size_t g = first; g < first + n; g++) w = w * 10 + (uint64_t)(digit_at(&s, g) - '0');
    int64_t q = digit_exponent(&s, first + n - 1);
    uint64_t b0;
    if (nsig <= 19)
        return clinger(w, q, &b0) || eisel_lemire(w, q, &b0) ? b0 : decide_exact(&s, b0);
    /* The value lies strictly between w * 10^q and (w + 1) * 10^q. */
    uint64_t b1;
    bool ok0 = eisel_lemire(w, q, &b0);
    bool ok1 = eisel_lemire(w + 1, q, &b1);
    if (ok0 && ok1 && b0 == b1) return b0;
    return decide_exact(&s, b0);
}

/* The bits of the (positive) number whose significand digits (integer part
 * ip[0..in), fraction fp[0..fn)) were read into w modulo 2^64. */
static SDX_ALWAYS_INLINE uint64_t convert(uint64_t w, const char *ip, size_t in, const char *fp,
                                          size_t fn, int64_t exp) {
    uint64_t bits;
    if (SDX_LIKELY(in + fn <= 19)) {
        int64_t q = exp - (int64_t)fn;
        if (clinger(w, q, &bits) || SDX_LIKELY(eisel_lemire_common(w, q, &bits))) return bits;
    }
    return convert_slow(ip, in, fp, fn, exp);
}

/* Read an exponent's digits at p (at least one); returns the end. */
static SDX_ALWAYS_INLINE const char *scan_exponent(const char *p, const char *end, bool neg,
                                                   int64_t *exp) {
    int64_t e = 0;
    if (SDX_LIKELY(end - p >= 8)) {
        /* Up to seven digits at once (an exponent has one to three), as in
         * scan_digits(); the first byte is a digit, so 1 <= n. */
        uint64_t v = sdx_load64le(p);
        uint64_t t = v - 0x3030303030303030u;
        uint64_t stop = (v | (v + 0x4646464646464646u) | t) & 0x8080808080808080u;
        if (SDX_LIKELY(stop != 0)) {
            unsigned n = sdx_ctz64(stop) >> 3;
            *exp = neg ? -(int64_t)sdx_hot_eight_digits(t << (64 - 8 * n))
                       : (int64_t)sdx_hot_eight_digits(t << (64 - 8 * n));
            return p + n;
        }
    }
    do {
        if (e < EXP_SATURATE) e = e * 10 + (*p - '0');
        p++;
    } while (p < end && sdx_num_is_digit(*p));
    *exp = neg ? -e : e;
    return p;
}

/* The integer of 20 digits at p if it fits uint64. */
static bool twenty_digits_u64(const char *p, uint64_t *v) {
    uint64_t x = 0;
    for (int i = 0; i < 19; i++) x = x * 10 + (uint64_t)(p[i] - '0');
    unsigned last = (unsigned)(p[19] - '0');
    if (x > (UINT64_MAX - last) / 10) return false;
    *v = x * 10 + last;
    return true;
}

const char *sdx_json_number(const char *p, const char *end, unsigned flags, sdx_num *out,
                            const char **err_at) {
    bool neg = false;
    if (p < end && *p == '-') {
        neg = true;
        p++;
    }
    if (SDX_UNLIKELY(p >= end || !sdx_num_is_digit(*p))) goto fail;
    digits s;
    s.ip = p;
    uint64_t w = 0;
    if (*p == '0') {
        p++;
        if (SDX_UNLIKELY(p < end && sdx_num_is_digit(*p))) goto fail; /* leading zero */
    } else {
        p = scan_integer_digits(p, end, &w);
    }
    s.in = (size_t)(p - s.ip);
    s.fp = p;
    s.fn = 0;
    s.exp = 0;
    bool is_int = true;
    if (p < end && *p == '.') {
        p++;
        s.fp = p;
        p = scan_digits(p, end, &w);
        s.fn = (size_t)(p - s.fp);
        if (SDX_UNLIKELY(s.fn == 0)) goto fail;
        is_int = false;
    }
    if (p < end && (*p | 0x20) == 'e') {
        p++;
        bool eneg = false;
        if (p < end && (*p == '+' || *p == '-')) {
            eneg = *p == '-';
            p++;
        }
        if (SDX_UNLIKELY(p >= end || !sdx_num_is_digit(*p))) goto fail;
        p = scan_exponent(p, end, eneg, &s.exp);
        is_int = false;
    }
    if (is_int) {
        if (SDX_LIKELY(s.in <= 19)) {
            if (!neg) {
                if (w <= (uint64_t)INT64_MAX) {
                    out->kind = SDX_NUM_INT;
                    out->v.i = (int64_t)w;
                } else {
                    out->kind = SDX_NUM_UINT;
                    out->v.u = w;
                }
                return p;
            }
            if (w - 1 <= (uint64_t)INT64_MAX) { /* 1 <= w <= 2^63 */
                out->kind = SDX_NUM_INT;
                out->v.i = -(int64_t)(w - 1) - 1;
                return p;
            }
            if (w == 0) {
                out->kind = SDX_NUM_DOUBLE;
                out->v.d = -0.0;
                return p;
            }
        } else if (s.in == 20 && !neg && twenty_digits_u64(s.ip, &w)) {
            out->kind = SDX_NUM_UINT;
            out->v.u = w;
            return p;
        }
        if (flags & SDX_NUM_BIG_RAW) {
            out->kind = SDX_NUM_BIG;
            return p;
        }
    }
    uint64_t bits = convert(w, s.ip, s.in, s.fp, s.fn, s.exp);
    if ((flags & SDX_NUM_BIG_RAW) && bits == INF_BITS) {
        out->kind = SDX_NUM_BIG;
        return p;
    }
    out->kind = SDX_NUM_DOUBLE;
    out->v.d = from_bits(bits | (uint64_t)neg << 63);
    return p;
fail:
    if (err_at) *err_at = p;
    return NULL;
}

const char *sdx_parse_double(const char *p, const char *end, double *out) {
    bool neg = false;
    if (p < end && (*p == '-' || *p == '+')) {
        neg = *p == '-';
        p++;
    }
    if (p >= end || !sdx_num_is_digit(*p)) return NULL;
    digits s;
    s.ip = p;
    uint64_t w;
    p = scan_integer_digits(p, end, &w);
    s.in = (size_t)(p - s.ip);
    s.fp = p;
    s.fn = 0;
    s.exp = 0;
    if (end - p >= 2 && *p == '.' && sdx_num_is_digit(p[1])) {
        s.fp = ++p;
        p = scan_digits(p, end, &w);
        s.fn = (size_t)(p - s.fp);
    }
    if (p < end && (*p | 0x20) == 'e') {
        const char *q = p + 1;
        bool eneg = false;
        if (q < end && (*q == '+' || *q == '-')) {
            eneg = *q == '-';
            q++;
        }
        if (q < end && sdx_num_is_digit(*q)) p = scan_exponent(q, end, eneg, &s.exp);
    }
    *out = from_bits(convert(w, s.ip, s.in, s.fp, s.fn, s.exp) | (uint64_t)neg << 63);
    return p;
}
