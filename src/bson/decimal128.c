/*
 * Decimal128 text: the BSON Decimal128 specification (mongodb/specifications,
 * source/bson-decimal128), whose string forms are those of the General
 * Decimal Arithmetic specification ("Numeric strings" and "to-scientific-
 * string", speleotrove.com/decimal/daconvs.html), over the IEEE 754-2008
 * decimal128 interchange format in its binary integer decimal (BID)
 * encoding (IEEE 754-2008 section 3.5.2):
 *
 *   bit 127        sign
 *   bits 126..122  combination: 11110 infinity, 11111 NaN (bit 121 set for
 *                  a signaling NaN); otherwise
 *   bits 126..113  the biased exponent (bias 6176) and bits 112..0 the
 *                  coefficient, when bits 126..125 are not 11;
 *   bits 124..111  the biased exponent and the coefficient 100 followed by
 *                  bits 110..0, when bits 126..125 are 11 (such a
 *                  coefficient is at least 2^113 > 10^34 - 1: IEEE 754-2008
 *                  calls it non-canonical and reads it as zero).
 *
 * A finite value is coefficient * 10^exponent with a coefficient of at most
 * 34 digits (< 10^34 < 2^113) and an exponent in [-6176, 6111].
 *
 * The 113-bit coefficient lives in two uint64 limbs; multiplication by and
 * division by numbers below 2^32 go through its four 32-bit words, so no
 * 128-bit integer type is needed (portable C11).
 */
#include <string.h>

#include "core/endian.h"
#include "num/itoa.h"
#include "sdx/bson.h"

#define EXP_BIAS 6176
#define EXP_MIN (-6176)
#define EXP_MAX 6111
#define MAX_DIGITS 34

/* The high bits (bits 127..64) of the special values. */
#define SIGN_BIT 0x8000000000000000ull
#define INF_BITS 0x7800000000000000ull
#define NAN_BITS 0x7C00000000000000ull

/* A 128-bit unsigned number in two limbs. */
typedef struct u128 {
    uint64_t hi, lo;
} u128;

/* 10^34 - 1, the largest canonical coefficient. */
static const u128 COEFF_MAX = {0x0001ED09BEAD87C0ull, 0x378D8E63FFFFFFFFull};

static const uint32_t POW10[10] = {1,      10,      100,      1000,      10000,
                                   100000, 1000000, 10000000, 100000000, 1000000000};

/* x * m + a for m, a < 2^32 (the result must fit in 128 bits, as every
 * coefficient below 10^34 times 10^9 does): word by word from the lowest,
 * each partial product below 2^64. */
static u128 mul_add(u128 x, uint32_t m, uint32_t a) {
    uint64_t w[4] = {x.lo & 0xFFFFFFFFu, x.lo >> 32, x.hi & 0xFFFFFFFFu, x.hi >> 32};
    uint64_t carry = a;
    for (int i = 0; i < 4; i++) {
        uint64_t t = w[i] * m + carry; /* < 2^32 * 2^32 */
        w[i] = t & 0xFFFFFFFFu;
        carry = t >> 32;
    }
    return (u128){w[3] << 32 | w[2], w[1] << 32 | w[0]};
}

/* x / d for 0 < d < 2^32, the remainder in *rem: long division word by
 * word from the highest (each partial dividend is below d * 2^32). */
static u128 div_rem(u128 x, uint32_t d, uint32_t *rem) {
    uint64_t w[4] = {x.hi >> 32, x.hi & 0xFFFFFFFFu, x.lo >> 32, x.lo & 0xFFFFFFFFu};
    uint64_t r = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t t = r << 32 | w[i];
        w[i] = t / d;
        r = t % d;
    }
    *rem = (uint32_t)r;
    return (u128){w[0] << 32 | w[1], w[2] << 32 | w[3]};
}

static bool u128_gt(u128 a, u128 b) { return a.hi != b.hi ? a.hi > b.hi : a.lo > b.lo; }

/* ------------------------------------------------------------------------ */
/* To text                                                                   */
/* ------------------------------------------------------------------------ */

/* The decimal digits of c (no leading zeros; "0" for zero) at out (room
 * for 40); their number. c < 10^40, so five groups of eight digits hold
 * it, written by the writers' integer formatting (num/itoa.h). */
static int coeff_digits(u128 c, char *out) {
    uint32_t group[5];
    for (int i = 0; i < 5; i++) c = div_rem(c, 100000000u, &group[i]);
    char all[40];
    for (int i = 0; i < 5; i++) sdx_itoa_put8(all + 8 * i, group[4 - i]); /* most significant first */
    int first = 0;
    while (first < 39 && all[first] == '0') first++;
    memcpy(out, all + first, (size_t)(40 - first));
    return 40 - first;
}

/* Write the exponent e (|e| < 10^4) with its sign ('+' or '-') at p;
 * returns the end. */
static char *put_exponent(char *p, int e) {
    *p++ = e < 0 ? '-' : '+';
    return sdx_itoa_upto4(p, (uint32_t)(e < 0 ? -e : e));
}

size_t sdx_bson_decimal128_to_string(const uint8_t bytes[16], char *out) {
    uint64_t lo = sdx_load_le64(bytes), hi = sdx_load_le64(bytes + 8);
    char *p = out;
    int exponent;
    u128 coeff;
    if ((hi >> 61 & 3) == 3) {
        /* combination 11xxx: a special value, or the long-exponent form */
        if ((hi >> 58 & 0x1F) == 0x1F) { /* 11111: NaN, any sign and payload */
            memcpy(out, "NaN", 4);
            return 3;
        }
        if (hi & SIGN_BIT) *p++ = '-';
        if ((hi >> 58 & 0x1F) == 0x1E) { /* 11110: infinity */
            memcpy(p, "Infinity", 9);
            return (size_t)(p - out) + 8;
        }
        /* the coefficient is binary 100 followed by bits 110..0, at least
         * 2^113: non-canonical, read as zero (the exponent is bits 60..47) */
        exponent = (int)(hi >> 47 & 0x3FFF) - EXP_BIAS;
        coeff = (u128){0, 0};
    } else {
        if (hi & SIGN_BIT) *p++ = '-';
        exponent = (int)(hi >> 49 & 0x3FFF) - EXP_BIAS;
        coeff = (u128){hi & 0x1FFFFFFFFFFFFull, lo};
        if (u128_gt(coeff, COEFF_MAX)) coeff = (u128){0, 0}; /* non-canonical */
    }

    char digits[40];
    int n = coeff_digits(coeff, digits);
    int adjusted = exponent + n - 1;
    if (exponent <= 0 && adjusted >= -6) {
        /* plain notation: digits with a point -exponent places from the
         * right, zeros (and a "0") on its left when the point is beyond
         * the first digit */
        if (exponent == 0) {
            memcpy(p, digits, (size_t)n);
            p += n;
        } else if (-exponent < n) {
            int whole = n + exponent;
            memcpy(p, digits, (size_t)whole);
            p += whole;
            *p++ = '.';
            memcpy(p, digits + whole, (size_t)-exponent);
            p += -exponent;
        } else {
            *p++ = '0';
            *p++ = '.';
            for (int i = 0; i < -exponent - n; i++) *p++ = '0';
            memcpy(p, digits, (size_t)n);
            p += n;
        }
    } else {
        /* scientific notation: d[.ddd]E<sign><adjusted exponent> */
        *p++ = digits[0];
        if (n > 1) {
            *p++ = '.';
            memcpy(p, digits + 1, (size_t)(n - 1));
            p += n - 1;
        }
        *p++ = 'E';
        p = put_exponent(p, adjusted);
    }
    *p = '\0';
    return (size_t)(p - out);
}

/* ------------------------------------------------------------------------ */
/* From text                                                                 */
/* ------------------------------------------------------------------------ */

/* Whether the n bytes at s spell the ASCII word w (lower case), in any
 * case. */
static bool word_is(const char *s, size_t n, const char *w) {
    size_t wn = strlen(w);
    if (n != wn) return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != w[i]) return false;
    }
    return true;
}

/* The exponent's digits saturate here (the value stays below 10^18): far
 * beyond any exponent a decimal128 can hold even after as many digits as
 * memory can hold shift it, and far from overflowing an int64 when those
 * digit counts are added or subtracted. */
#define EXP_SATURATE 100000000000000000ll /* 10^17: exp * 10 + 9 < 10^18 */

static void encode(uint8_t out[16], bool negative, int exponent, u128 coeff) {
    uint64_t hi = (negative ? SIGN_BIT : 0) | (uint64_t)(exponent + EXP_BIAS) << 49 | coeff.hi;
    sdx_store_le64(out, coeff.lo);
    sdx_store_le64(out + 8, hi);
}

sdx_err sdx_bson_decimal128_from_string(const char *s, size_t len, uint8_t out[16]) {
    if (!out || (!s && len)) return SDX_ERR_INVALID_ARG;
    if (len == 0) return SDX_ERR_SYNTAX; /* also keeps a NULL s from being offset */
    size_t i = 0;
    bool negative = false;
    if (i < len && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';

    /* the special values: the rest of the text is the whole word */
    if (word_is(s + i, len - i, "inf") || word_is(s + i, len - i, "infinity")) {
        memset(out, 0, 8);
        sdx_store_le64(out + 8, (negative ? SIGN_BIT : 0) | INF_BITS);
        return SDX_OK;
    }
    if (word_is(s + i, len - i, "nan")) {
        memset(out, 0, 8);
        sdx_store_le64(out + 8, (negative ? SIGN_BIT : 0) | NAN_BITS);
        return SDX_OK;
    }

    /* decimal-part ::= digits '.' [digits] | ['.'] digits. The significant
     * digits are those from the first nonzero one to the last digit; the
     * first MAX_DIGITS of them are kept, and of the others only where the
     * last nonzero one is, since only zeros may be dropped. */
    char sig[MAX_DIGITS];
    int64_t nsig = 0;          /* significant digits */
    int64_t last_nonzero = -1; /* index in the significant digits */
    int64_t frac = 0;          /* digits after the point */
    bool any_digit = false, point = false;
    for (; i < len; i++) {
        char c = s[i];
        if (c == '.') {
            if (point) return SDX_ERR_SYNTAX;
            point = true;
            continue;
        }
        if (c < '0' || c > '9') break;
        any_digit = true;
        if (point) frac++;
        if (nsig == 0 && c == '0') continue; /* leading zero */
        if (nsig < MAX_DIGITS) sig[nsig] = c;
        if (c != '0') last_nonzero = nsig;
        nsig++;
    }
    if (!any_digit) return SDX_ERR_SYNTAX;

    /* exponent-part ::= indicator [sign] digits */
    int64_t exp = 0;
    if (i < len) {
        if (s[i] != 'e' && s[i] != 'E') return SDX_ERR_SYNTAX;
        i++;
        bool eneg = false;
        if (i < len && (s[i] == '+' || s[i] == '-')) eneg = s[i++] == '-';
        if (i == len) return SDX_ERR_SYNTAX;
        for (; i < len; i++) {
            if (s[i] < '0' || s[i] > '9') return SDX_ERR_SYNTAX;
            if (exp < EXP_SATURATE) exp = exp * 10 + (s[i] - '0');
        }
        if (eneg) exp = -exp;
    }

    /* value = significant digits * 10^e */
    int64_t e = exp - frac;
    if (nsig == 0) { /* zero: any exponent is exact once clamped */
        e = e < EXP_MIN ? EXP_MIN : e > EXP_MAX ? EXP_MAX : e;
        encode(out, negative, (int)e, (u128){0, 0});
        return SDX_OK;
    }

    /* Digits beyond MAX_DIGITS, and those that would put the exponent
     * below EXP_MIN, are dropped (raising the exponent): allowed only when
     * they are all zeros (exact rounding), else the value is inexact. */
    int64_t drop = nsig - MAX_DIGITS;
    if (EXP_MIN - e > drop) drop = EXP_MIN - e;
    if (drop < 0) drop = 0;
    int64_t keep = nsig - drop;
    if (last_nonzero >= keep) return SDX_ERR_RANGE; /* inexact or underflow */
    e += drop;

    /* Above EXP_MAX the exponent is clamped: zeros appended to the
     * coefficient, as long as it keeps at most MAX_DIGITS digits. */
    int64_t pad = 0;
    if (e > EXP_MAX) {
        pad = e - EXP_MAX;
        if (keep + pad > MAX_DIGITS) return SDX_ERR_RANGE; /* overflow */
        e = EXP_MAX;
    }

    u128 coeff = {0, 0};
    for (int64_t k = 0; k < keep;) {
        int64_t chunk = keep - k < 9 ? keep - k : 9;
        uint32_t v = 0;
        for (int64_t j = 0; j < chunk; j++) v = v * 10 + (uint32_t)(sig[k + j] - '0');
        coeff = mul_add(coeff, POW10[chunk], v);
        k += chunk;
    }
    while (pad > 0) {
        int64_t chunk = pad < 9 ? pad : 9;
        coeff = mul_add(coeff, POW10[chunk], 0);
        pad -= chunk;
    }
    encode(out, negative, (int)e, coeff);
    return SDX_OK;
}
