/*
 * Double to shortest decimal, and that decimal in JSON text.
 *
 * The digits come from Dragonbox: Junekey Jeon, "Dragonbox: A New
 * Floating-Point Binary-to-Decimal Conversion Algorithm" (2020, revised 2024),
 * the binary64 instance with kappa = 2, nearest rounding with ties to even for
 * the interval and a closest-to-v, ties-to-even pick among the shortest. This
 * is an implementation of the paper's algorithm with its own derivation of the
 * steps and its own checks of the arithmetic (tools/gen_pow10.py); no code
 * from the reference implementation. The paper builds on Schubfach (R.
 * Giulietti, "The Schubfach way to render doubles", 2020/2021), whose choice
 * of candidates it keeps; tests/unit/test_dtoa.c keeps a Schubfach
 * implementation as an independent reference.
 *
 * Outline. A positive double is v = c * 2^q with an integer c < 2^53. Every
 * real in its rounding interval R = [vl, vr] reads back as v, where
 *   vl = (2c - 1) * 2^(q-1),  vr = (2c + 1) * 2^(q-1),
 * except at a power of two (c = 2^52, q above the subnormal exponent, the
 * "shorter interval" case below). R is closed when c is even, open when odd.
 * Let k0 = floor(log10(2^q)) and D(i) the decimals d * 10^i. R is 2^q wide,
 * 10^k0 <= 2^q < 10^(k0+1), so R holds at most one member of D(k0+1), and if
 * it holds one, that member has the fewest digits (Schubfach's argument);
 * otherwise the answer is the member of D(k0) closest to v (it is in R, as R
 * is at least 10^k0 wide around v).
 *
 * Scaling (the paper's main case). Multiply by 10^k, k = kappa - k0 = 2 - k0:
 * at that scale the members of D(k0+1) are the multiples of 1000 (the paper's
 * "big divisor" 10^(kappa+1)) and those of D(k0) the multiples of 100 (the
 * "small divisor" 10^kappa); R scales to [vr' - Delta, vr'] with
 *   vr' = (2c + 1) * 2^(q-1) * 10^k,   Delta = 2^q * 10^k in [100, 1000).
 * Write 10^k = T * 2^E with E = floor(log2(10^k)) - 127, the real T in
 * [2^127, 2^128), and phi = ceil(T) (the paper's cache entry: the truncated
 * table entry of src/num/pow10_table.h plus one, except for the exact entries
 * 0 <= k <= 55). k, 2^beta, delta below and whether the entry is exact
 * come from a generated table indexed by the biased exponent (sdx_dbox_exp:
 * multiplying by 2^beta and loading delta replace two shifts by a count in
 * a register, 2-3 micro-operations each without BMI2). Then for an integer x
 *   x * 2^(q-1) * 10^k = (x << beta) * T / 2^128,  beta = q + floor(log2(10^k)),
 * beta in [6, 9], and (x << beta) * phi / 2^128 exceeds it by less than 2^-65
 * for x < 2^54. One 64 x 128-bit product, the upper 128 bits of 192, gives
 *   z = floor(vr') (its top 64 bits) and whether vr' is an integer (the next
 *   64 bits are zero),
 * and delta = floor(Delta) is phi's high word shifted (tabulated). The
 * generator checks, for every q, that the floor is exact (x * 2^(q-1) * 10^k
 * is an integer or at least 2^-62.2 below the next one), that delta is
 * exact, and that such a product can be an integer only for q in
 * [SDX_DBOX_INT_QMIN, SDX_DBOX_INT_QMAX], where its denominator is below 2^54 and the zero test
 * of the fraction bits is exact. Outside that range "integer" is simply false
 * (the paper restricts its integer checks to exponent ranges the same way).
 *
 * Step 1 (D(k0+1)). s = floor(z / 1000), r = z mod 1000: A = 1000s is the
 * largest multiple of 1000 not above vr', and A - vl' = Delta - r - frac(vr').
 *   - r < delta: A > vl'; A is in R unless A = vr' (r = 0, vr' an integer)
 *     and R is open, and then no member of D(k0+1) is in R: go to step 2 with
 *     s - 1 and r = 1000.
 *   - r > delta: A < vl', step 2.
 *   - r = delta: A - vl' is in (-1, 1), so floor(vl') is A - 1 (odd; A is in
 *     R) or A (even; A is in R only if vl' = A and R is closed). The paper's
 *     parity check: one more product, for x = 2c - 1.
 * Step 2 (D(k0)). The answer is round(y / 100), ties to even, for the scaled
 * value y = vr' - Delta / 2. With dist = r - floor(delta / 2) + 50, the real
 * y - 1000s + 50 lies in (dist - 1, dist + 1) (as 0 <= frac(vr') < 1 and
 * 0 <= frac(Delta) < 1), so the answer is 10s + floor(dist / 100) unless dist
 * is a multiple of 100; then y is within 1 of m = 1000s - 50 + dist, which is
 * even, and the parity of floor(y) (the paper's third product, x = 2c, taken
 * only here) tells y < m (odd: one less) from y >= m; y = m (y an integer) is
 * a tie, which goes to the even digit. The answer of step 2 never ends in 0
 * (it would be a member of D(k0+1) in R).
 *
 * The shorter interval: v = 2^52 * 2^q, vl = (2^54 - 1) * 2^(q-2),
 * vr = (2^54 + 2) * 2^(q-2), closed. With k1 = floor(log10(3/4 * 2^q)) (R is
 * 3/4 * 2^q wide) and the scale 10^-k1, the paper computes the endpoints and
 * the rounded value from phi's high word with shifts alone; the generator
 * checks all 2045 exponents exactly. xi = ceil(vl'), zi = floor(vr'); the
 * member of D(k1+1) is floor(zi / 10) * 10 if that is >= xi; otherwise the
 * rounded y (ties at one exponent only, to even) or, when that is below xi,
 * y + 1.
 *
 * Integers. A value below 2^53 that is an integer is its own shortest
 * digits (the paper's fast path for small integers); both entry points test
 * for it first.
 *
 * JSON layout (sdx_dtoa_json). For a normal double that is not a power of
 * two, the digits are those of s (step 1) or of s and one more digit (step
 * 2), and s has 15 or 16 digits; the decimal point goes after the same
 * number of digits in both cases. So the 16 digits of s (times 10 when it
 * has 15) are converted while the step is decided, without a branch on it:
 * SSE2 splits 8-digit halves into 4-, 2- and 1-digit lanes with
 * multiplications by reciprocals; a compare and a mask count the digits up to
 * the last nonzero one (step 1's trailing zeros are not stripped). The string
 * is stored once at its place, one byte to the right of the start, and the
 * first eight bytes are stored again with the decimal point inserted in a
 * register: fixed-size stores, no loads of what was stored, no per-digit loop,
 * no division by a variable. Other numbers (subnormals, powers of two, eight
 * or more integer digits, integers of 16 digits or more) take a general
 * layout of the same kind off the hot path. Without SSE2 (or with
 * SDX_DTOA_PORTABLE defined, for testing) the digits come from the SWAR
 * method of src/num/itoa.h.
 */
#include "num/num.h"

#include <stdbool.h>
#include <string.h>

#include "core/platform.h"
#include "num/pow10_table.h"

/* SSE2 digit conversion on x86-64, shared with itoa.h (which decides:
 * SSE2 is part of the baseline; SDX_DTOA_PORTABLE turns it off). */
#ifdef SDX_ITOA_SSE2
#define DTOA_SSE2 1
#endif

#if defined(SDX_HAVE_U128) && !defined(SDX_DTOA_PORTABLE)
#define DTOA_U128 1
#endif

/* The high half of a * b; the low half in *lo. */
static inline uint64_t mul_64x64(uint64_t a, uint64_t b, uint64_t *lo) {
#ifdef DTOA_U128
    sdx_u128 p = (sdx_u128)a * b;
    *lo = (uint64_t)p;
    return (uint64_t)(p >> 64);
#else
    uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10; /* < 3 * 2^32 */
    *lo = (mid << 32) | (uint32_t)p00;
    return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
#endif
}

/* The upper 128 bits of the 192-bit product x * {phi_hi, phi_lo}: the
 * integer part of x * phi / 2^128, and its top 64 fraction bits in *frac. */
static inline uint64_t mul_scaled(uint64_t x, uint64_t phi_hi, uint64_t phi_lo, uint64_t *frac) {
    uint64_t a_lo, a_hi = mul_64x64(x, phi_hi, &a_lo);
    uint64_t b_lo, b_hi = mul_64x64(x, phi_lo, &b_lo);
    (void)b_lo;
    uint64_t f = a_lo + b_hi;
    *frac = f;
    return a_hi + (f < a_lo);
}

/* Whether a scaled x * 2^(q-1) * 10^k can be an integer (see the header). */
static inline bool int_possible(int q) {
    return (unsigned)(q - SDX_DBOX_INT_QMIN) <= (unsigned)(SDX_DBOX_INT_QMAX - SDX_DBOX_INT_QMIN);
}

/* k0 = floor(log10(2^q)) from an entry of sdx_dbox_exp. */
static inline int dbox_k0(unsigned ent) {
    return 2 - ((int)SDX_DBOX_EXP_IDX(ent) + SDX_POW10_MIN);
}

/* phi = ceil(10^k * 2^-E) for the k of a table entry: one more than the
 * truncated sdx_pow10_128 entry unless it is exact (the low half never
 * carries: checked by the generator). */
static SDX_ALWAYS_INLINE uint64_t dbox_phi(unsigned ent, uint64_t *phi_lo) {
    const uint64_t *t = sdx_pow10_128[SDX_DBOX_EXP_IDX(ent)];
    *phi_lo = t[1] + SDX_DBOX_EXP_INEXACT(ent);
    return t[0];
}

/* The paper's parity check, off the hot path: for X = x * 2^(q-1) * 10^k,
 * bit 0 of floor(X), and bit 1 set when X is an integer. */
static SDX_NOINLINE unsigned dbox_parity(uint64_t x, int q, unsigned ent) {
    uint64_t phi_lo, phi_hi = dbox_phi(ent, &phi_lo);
    uint64_t f, w = mul_scaled(x * SDX_DBOX_EXP_POW2_BETA(ent), phi_hi, phi_lo, &f);
    return (unsigned)(w & 1) | (unsigned)(f == 0 && int_possible(q)) << 1;
}

/* Step 1's scaling (see the header), shared by dragonbox and
 * dragonbox_fast: z = floor(vr') for k = 2 - k0 and beta from the generated
 * table (sdx_dbox_exp); returns s = z / 1000, with *r = z mod 1000,
 * *delta = floor(Delta) and *zf the top 64 fraction bits of vr'. */
static SDX_ALWAYS_INLINE uint64_t dbox_scale(uint64_t c, unsigned ent, uint32_t *r, uint32_t *delta,
                                             uint64_t *zf) {
    uint64_t phi_lo, phi_hi = dbox_phi(ent, &phi_lo);
    uint64_t z = mul_scaled(((c << 1) | 1) * SDX_DBOX_EXP_POW2_BETA(ent), phi_hi, phi_lo, zf);
    *delta = SDX_DBOX_EXP_DELTA(ent); /* phi_hi >> (63 - beta), tabulated */
    uint64_t s = z / 1000;
    *r = (uint32_t)(z - s * 1000);
    return s;
}

/* Step 2's digit before its correction: floor(dist / 100), with
 * *dist = r - floor(delta / 2) + 50 (dist / 100 by a multiplication, exact
 * for dist < 1099; here dist <= 1000). */
static SDX_ALWAYS_INLINE uint32_t dbox_step2(uint32_t r, uint32_t delta, uint32_t *dist) {
    *dist = r - (delta >> 1) + 50;
    return (*dist * 656) >> 16;
}

/* The main case for v = c * 2^q with the symmetric interval (c not 2^52, or
 * a subnormal), k0 = floor(log10(2^q)), ent = sdx_dbox_exp[biased exponent].
 * The result is s and, when step 1 finds no member of D(k0+1) in R
 * (*small), a last digit: the shortest digits are
 *   s (maybe ending in zeros) with exponent k0 + 1,  if !*small,
 *   10s + *digit with exponent k0,                   if *small,
 * where then 1 <= *digit <= 9: 10s and 10s + 10 are members of D(k0+1),
 * and none is in R. The common decision is left to conditional moves; the
 * rare corrections (r = 0 or delta, a multiple of 100) take branches. */
static SDX_ALWAYS_INLINE uint64_t dragonbox(uint64_t c, int q, unsigned ent, bool *small,
                                            uint32_t *digit) {
    bool open = c & 1;
    uint32_t r, delta;
    uint64_t zf, s = dbox_scale(c, ent, &r, &delta, &zf);
    bool sm = r >= delta; /* step 1 fails unless corrected below */
    if (SDX_UNLIKELY(r == 0 || r == delta)) {
        if (r == 0) {
            if (open && zf == 0 && int_possible(q)) {
                s--; /* vr' = 1000s is excluded */
                r = 1000;
                sm = true;
            }
        } else {
            unsigned x = dbox_parity((c << 1) - 1, q, ent); /* the left endpoint */
            sm = !((x & 1) || (!open && (x & 2)));
        }
    }

    /* step 2 (the values are meaningless, and unused, when !sm) */
    uint32_t dist, h = dbox_step2(r, delta, &dist);
    if (SDX_UNLIKELY((h * 100 == dist) & sm)) { /* no branch on sm itself */
        unsigned y = dbox_parity(c << 1, q, ent);
        if (y & 1) h--;
        else if ((y & 2) && (h & 1)) h--;
    }
    *small = sm;
    *digit = h;
    return s;
}

/* dragonbox without its corrections, for the hot path of sdx_dtoa_json:
 * the same s, *small and *digit whenever it returns false, and true (the
 * values then meaningless) in the rare cases where dragonbox takes one of
 * its corrections (r = 0, r = delta, or step 2's dist a multiple of 100),
 * which the caller leaves to the full computation: the hot path then has
 * no call and no branch of its own for each correction. */
static SDX_ALWAYS_INLINE bool dragonbox_fast(uint64_t c, unsigned ent, uint64_t *s_out, bool *small,
                                             uint32_t *digit) {
    uint32_t r, delta, dist;
    uint64_t zf;
    *s_out = dbox_scale(c, ent, &r, &delta, &zf);
    bool sm = r >= delta;
    uint32_t h = dbox_step2(r, delta, &dist);
    *small = sm;
    *digit = h;
    /* r * (r - delta) is zero (mod 2^32) exactly when r is 0 or delta:
     * both are below 1000, so the product's magnitude is below 2^32 */
    return (r * (r - delta) == 0) | ((h * 100 == dist) & sm);
}

/* The shorter interval of v = 2^52 * 2^q (see the header). May end in zeros. */
static SDX_NOINLINE uint64_t dragonbox_shorter(int q, int *exp10) {
    int k1 = sdx_floor_log10_3q4_pow2(q);
    int beta = q + sdx_floor_log2_pow10(-k1);
    uint64_t ph = sdx_pow10_128[-k1 - SDX_POW10_MIN][0];
    int sh = 11 - beta;
    uint64_t xi = (ph - (ph >> 54)) >> sh;
    uint64_t zi = (ph + (ph >> 53)) >> sh;
    if (q < SDX_DBOX_SHORTER_LEFT_INT_QMIN || q > SDX_DBOX_SHORTER_LEFT_INT_QMAX) xi++;
    uint64_t s = zi / 10;
    if (s * 10 >= xi) {
        *exp10 = k1 + 1;
        return s;
    }
    uint64_t y = ((ph >> (sh - 1)) + 1) >> 1;
    if (q == SDX_DBOX_SHORTER_TIE_Q && (y & 1)) y--;
    if (y < xi) y++;
    *exp10 = k1;
    return y;
}

/* d without its trailing decimal zeros (at most 15, as 0 < d < 10^16),
 * *exp10 raised by their count. n is a multiple of 10^j exactly when
 * n * 5^-j (mod 2^64), rotated right by j bits, is at most (2^64 - 1) / 10^j:
 * the rotation brings any low bits that are not zero to the top (Granlund and
 * Montgomery's test for divisibility by multiplying by the inverse). */
static inline uint64_t rotr64(uint64_t x, unsigned r) {
    return (x >> r) | (x << (64 - r));
}

static inline uint64_t strip_zeros(uint64_t d, int *exp10) {
    /* conditional moves, not branches: the count of zeros is data */
    int e = *exp10;
    uint64_t r = rotr64(d * 0xc767074b22e90e21ull, 8); /* 5^-8 */
    bool z = r <= 184467440737ull;
    d = z ? r : d;
    e += z ? 8 : 0;
    r = rotr64(d * 0xd288ce703afb7e91ull, 4); /* 5^-4 */
    z = r <= 1844674407370955ull;
    d = z ? r : d;
    e += z ? 4 : 0;
    r = rotr64(d * 0x8f5c28f5c28f5c29ull, 2); /* 5^-2 */
    z = r <= 184467440737095516ull;
    d = z ? r : d;
    e += z ? 2 : 0;
    r = rotr64(d * 0xcccccccccccccccdull, 1); /* 5^-1 */
    z = r <= 1844674407370955161ull;
    d = z ? r : d;
    e += z;
    *exp10 = e;
    return d;
}

/* Shortest digits of the positive finite nonzero double with these bits,
 * possibly with trailing zeros; exponent in *exp10. */
static inline uint64_t digits_of_bits(uint64_t bits, int *exp10) {
    uint64_t frac = bits & ((1ull << 52) - 1);
    int bexp = (int)(bits >> 52);
    uint64_t c = frac | (1ull << 52);
    int q = bexp - 1075;
    if (SDX_UNLIKELY(bexp == 0)) {
        c = frac;
        q = -1074;
    } else if (SDX_UNLIKELY(frac == 0 && bexp > 1)) {
        return dragonbox_shorter(q, exp10);
    }
    unsigned ent = sdx_dbox_exp[bexp];
    int k0 = dbox_k0(ent);
    bool small;
    uint32_t digit;
    uint64_t s = dragonbox(c, q, ent, &small, &digit);
    *exp10 = small ? k0 : k0 + 1;
    return small ? s * 10 + digit : s;
}

void sdx_dtoa_shortest(double v, uint64_t *digits, int *exp10) {
    uint64_t bits;
    memcpy(&bits, &v, 8);
    bits &= ~(1ull << 63);
    /* integers below 2^53: v = m * 2^-shift, 0 <= shift <= 52 */
    unsigned shift = (unsigned)(1075 - (int)(bits >> 52));
    uint64_t m = (bits & ((1ull << 52) - 1)) | (1ull << 52);
    int e = 0;
    uint64_t d;
    if (shift <= 52 && (m & ((1ull << shift) - 1)) == 0) d = m >> shift;
    else d = digits_of_bits(bits, &e);
    *exp10 = e;
    *digits = strip_zeros(d, exp10);
}

/* ------------------------------------------------------------------------ */
/* JSON layout                                                              */

static const uint64_t pow10_u64[18] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
    100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
    10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
    100000000000000000ull};

/* Number of decimal digits of 0 < d < 10^17: floor(log10(d)) is t or
 * t - 1 for t = floor(bits * log10(2)), bits = bit length of d. */
static inline int decimal_length(uint64_t d) {
    int t = ((64 - (int)sdx_clz64(d)) * 1233) >> 12;
    return t + (d >= pow10_u64[t]);
}

/* "e" and the exponent x, -324 <= x <= 308: the entry of sdx_dtoa_exp_text
 * (pow10_table.h), the text in its low bytes and its length in the top
 * byte, stored whole (its top byte lands past the text, where the layouts
 * may store). A table rather than the digits computed: on doubles printed
 * with an exponent (random bit patterns) the computation and its shifts
 * took 14 % of the time (bench/README.md). */
static inline char *put_exponent(char *p, int x) {
    const uint64_t e = sdx_dtoa_exp_text[x - SDX_DTOA_EXP_MIN];
    sdx_store64le(p, e);
    return p + (e >> 56);
}

#define ZEROS8 0x3030303030303030ull /* "00000000" */

/* The 16 decimal digits of rest < 10^16, with leading zeros, as ASCII in a
 * 16-byte string (first digit in the lowest byte), and in *nsig the number
 * of digits up to the last nonzero one. rest = hi * 10^8 + lo; each half
 * splits into two 4-digit quarters, each quarter into two 2-digit parts, each
 * part into two digits, all lanes at once, with divisions by reciprocals.
 * SSE2 does it in one register (sdx_itoa_ascii16 of itoa.h, which lists
 * the reciprocals); elsewhere the same steps run on two 64-bit words
 * (sdx_itoa_digits8 of itoa.h, with its own reciprocals). */
#ifdef DTOA_SSE2

typedef __m128i dig16;

static SDX_ALWAYS_INLINE dig16 digits16(uint64_t rest, int *nsig) {
    uint64_t hi = rest / 100000000u, lo = rest - hi * 100000000u;
    __m128i x = sdx_itoa_ascii16(hi, lo); /* itoa.h */
    /* digits up to the last nonzero one: the bit length of the mask of
     * digits other than '0' */
    unsigned zero = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('0')));
    *nsig = 63 - (int)sdx_clz64(((uint64_t)(~zero & 0xffff) << 1) | 1);
    return x;
}

static inline void dig16_store(char *p, dig16 v) {
    _mm_storeu_si128((__m128i *)(void *)p, v);
}

static inline uint64_t dig16_first8(dig16 v) {
    return (uint64_t)_mm_cvtsi128_si64(v);
}

static inline uint64_t dig16_last8(dig16 v) {
    return (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(v, v));
}

#else /* !DTOA_SSE2 */

typedef struct {
    uint64_t w0, w1;
} dig16;

static SDX_ALWAYS_INLINE dig16 digits16(uint64_t rest, int *nsig) {
    uint64_t hi = rest / 100000000u, lo = rest - hi * 100000000u;
    uint64_t x0 = sdx_itoa_digits8((uint32_t)hi), x1 = sdx_itoa_digits8((uint32_t)lo);
    /* zero digits at the top of x1:x0 */
    uint64_t top = x1 ? x1 : x0;
    int tz = (int)((sdx_clz64(top | 1) + (top == 0)) >> 3) + (x1 ? 0 : 8);
    *nsig = 16 - tz;
    dig16 v = {x0 + ZEROS8, x1 + ZEROS8};
    return v;
}

static inline void dig16_store(char *p, dig16 v) {
    sdx_store64le(p, v.w0);
    sdx_store64le(p + 8, v.w1);
}

static inline uint64_t dig16_first8(dig16 v) {
    return v.w0;
}

static inline uint64_t dig16_last8(dig16 v) {
    return v.w1;
}

#endif /* DTOA_SSE2 */

/* The JSON text of d * 10^e at p (d of 1 to 17 digits, possibly with
 * trailing zeros), for any double: the general layout, off the hot path of
 * sdx_dtoa_json. Returns the end. The furthest byte stored is given in the
 * comments, relative to p (one less than SDX_DTOA_RESERVE is available). */
static SDX_NOINLINE char *put_decimal(char *p, uint64_t d, int e) {
    int nd = decimal_length(d);
    int n = nd + e; /* v = 0.d1d2...dnd * 10^n */
    /* d left-aligned to exactly 17 digits, a * 10^16 + rest: the first digit
     * a (not zero), then the 16 of rest */
    uint64_t dd = d * pow10_u64[17 - nd];
    uint64_t a = dd / 10000000000000000ull;
    int nds;
    dig16 dg = digits16(dd - a * 10000000000000000ull, &nds);
    nds += 1; /* significant digits */
    char ca = (char)('0' + a);

    if (SDX_LIKELY(n > 0 && n < nds)) {
        /* ddd.ddd: the 17 digits at p + 1, then the first eight again at p
         * with the point inserted, in a register (furthest: 17) */
        uint64_t w0 = dig16_first8(dg);
        uint64_t x0 = (uint64_t)(unsigned char)ca | (w0 << 8); /* digits 0..7 */
        dig16_store(p + 2, dg);
        if (SDX_LIKELY(n < 8)) {
            uint64_t low = (1ull << (8 * n)) - 1;
            sdx_store64le(p, (x0 & low) | ((x0 & ~low) << 8) | ((uint64_t)'.' << (8 * n)));
        } else {
            /* the integer part is 8 to 16 digits: digits 0..7 in place, the
             * point inserted in digits 8..15 (or after them) */
            uint64_t x1 = (w0 >> 56) | (dig16_last8(dg) << 8);
            unsigned j = (unsigned)n - 8;
            sdx_store64le(p, x0);
            if (j < 8) {
                uint64_t low = (1ull << (8 * j)) - 1;
                sdx_store64le(p + 8, (x1 & low) | ((x1 & ~low) << 8) | ((uint64_t)'.' << (8 * j)));
            } else {
                sdx_store64le(p + 8, x1);
                p[16] = '.';
            }
        }
        return p + nds + 1;
    }
    if (n <= 0 && n > -6) {
        /* 0.000ddd: "0.000000" then the digits over its tail (furthest:
         * 2 + 5 + 17 - 1 = 23) */
        memcpy(p, "0.000000", 8);
        char *q = p + 2 - n;
        q[0] = ca;
        dig16_store(q + 1, dg);
        return q + nds;
    }
    if (SDX_UNLIKELY(n > 0 && n <= 21)) {
        /* an integer (of 16 or more digits: smaller ones do not come here):
         * the 17 digits, padded with zeros, zeros to n, ".0" (furthest: 24) */
        p[0] = ca;
        dig16_store(p + 1, dg);
        sdx_store64le(p + 17, ZEROS8);
        p[n] = '.';
        p[n + 1] = '0';
        return p + n + 2;
    }
    /* d.ddde[-]x (furthest: 17; the exponent ends by 18 + 5) */
    p[0] = ca;
    p[1] = '.';
    dig16_store(p + 2, dg);
    return put_exponent(nds > 1 ? p + nds + 1 : p + 1, n - 1);
}

/* Subnormals and powers of two, off the hot path. */
static SDX_NOINLINE char *json_rare(char *p, uint64_t bits) {
    int e;
    uint64_t d = digits_of_bits(bits, &e);
    return put_decimal(p, d, e);
}

char *sdx_dtoa_json(char *dst, double v) {
    uint64_t bits;
    memcpy(&bits, &v, 8);
    *dst = '-';
    dst += bits >> 63;
    bits &= ~(1ull << 63);

    /* Integers below 2^53 (zero included) are their own shortest digits, in
     * fixed notation: print them directly. A nonzero double below 2^53 is
     * an integer when its biased exponent is 1023 to 1074 and the low
     * 1075 - bexp bits of its significand are zero. The tests are on the
     * bits, combined with & into one branch: on data of mixed magnitudes
     * (random doubles) "below 2^53" alone is a coin toss that no branch
     * predictor learns, while "an integer" is almost always predicted. */
    uint64_t frac = bits & ((1ull << 52) - 1);
    int bexp = (int)(bits >> 52);
    {
        const uint64_t sig = frac | (1ull << 52);
        const int tz = (int)sdx_ctz64(sig);
        if ((((unsigned)(bexp - 1023) < 52u) & (bexp + tz >= 1075)) | (bits == 0)) {
            char *z = sdx_u64_to_dec(dst, bits ? sig >> (1075 - bexp) : 0);
            z[0] = '.';
            z[1] = '0';
            return z + 2;
        }
    }
    if (SDX_UNLIKELY(bexp == 0 || frac == 0)) return json_rare(dst, bits);

    /* A normal double, not a power of two. Its digits are those of s, and
     * in step 2 one more digit. s lies in [2^52 / 10, 2^53) (the scaled vr'
     * is at least 2^52 * 100 and below 2^53 * 1000): 15 or 16 digits
     * (lz = 1 or 0). The digits converted are those of t = s * 10^lz, always
     * 16 with the first nonzero (the zero that s * 10 adds at the end is not
     * significant, and step 2's digit goes in its place). The point goes
     * after n = k0 + 17 - lz digits in either step. The digits are converted
     * while the step is decided. */
    unsigned ent = sdx_dbox_exp[bexp];
    int k0 = dbox_k0(ent);
    bool small;
    uint32_t digit;
    uint64_t s;
    if (SDX_UNLIKELY(dragonbox_fast(frac | (1ull << 52), ent, &s, &small, &digit))) return json_rare(dst, bits);
    unsigned lz = s < 1000000000000000ull;
    int nsig;
    dig16 dg = digits16(s * (1 + 9 * lz), &nsig); /* a multiplication, not a branch */
    int n = k0 + 17 - (int)lz;
    int sm_mask = -(int)small;
    int nds = ((17 - (int)lz) & sm_mask) | (nsig & ~sm_mask); /* significant digits */
    char last = (char)('0' + digit); /* step 2's last digit, at p + 17 - lz */
    char *p = dst;

    /* The digits stored at p + 1 put digit i at p + 1 + i; each layout then
     * rewrites the bytes before them. The furthest byte stored is given
     * relative to p (one less than SDX_DTOA_RESERVE is available). */
    if (SDX_LIKELY(n > 0 && n < 8 && n < nds)) {
        /* ddd.ddd: the first eight digits again at p with the point inserted
         * in a register (furthest: 17) */
        static const uint64_t low_bytes[8] = {
            0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xffffffffff, 0xffffffffffff, 0xffffffffffffff};
        uint64_t x0 = dig16_first8(dg);
        uint64_t low = low_bytes[n];
        dig16_store(p + 1, dg);
        p[17 - lz] = last;
        sdx_store64le(p, (x0 & low) | ((x0 & ~low) << 8) | ((low + 1) * '.'));
        return p + nds + 1;
    }
    if (n <= 0 && n > -6) {
        /* 0.000ddd: "0.000000" then the digits over its tail (furthest:
         * 2 + 5 + 16 = 23) */
        memcpy(p, "0.000000", 8);
        char *z = p + 2 - n;
        dig16_store(z, dg);
        z[16 - lz] = last;
        return z + nds;
    }
    if (n > 21 || n <= 0) {
        /* d.ddde[-]x (furthest: 17; the exponent's store ends by 17 + 8) */
        char first = (char)dig16_first8(dg);
        dig16_store(p + 1, dg);
        p[17 - lz] = last;
        p[0] = first;
        p[1] = '.';
        return put_exponent(nds > 1 ? p + nds + 1 : p + 1, n - 1);
    }
    /* 8 or more digits before the point, or an integer of 16 or more */
    return put_decimal(p, small ? s * 10 + digit : s, small ? k0 : k0 + 1);
}
