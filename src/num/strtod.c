/*
 * Decimal text to binary: the JSON number scanner and a correctly rounded
 * decimal-to-double conversion.
 *
 * (Interim version: exact grammar and integers; doubles through the C
 * library's strtod, which is correctly rounded on glibc.)
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/platform.h"
#include "num/num.h"

static inline bool is_digit(char c) { return (unsigned char)(c - '0') < 10; }

/* strtod on a copy of [p, q) with a terminator. */
static double libc_strtod(const char *p, const char *q) {
    char local[128];
    size_t n = (size_t)(q - p);
    char *s = n < sizeof local ? local : malloc(n + 1);
    if (!s) return 0.0; /* not reached in practice; interim only */
    memcpy(s, p, n);
    s[n] = '\0';
    double d = strtod(s, NULL);
    if (s != local) free(s);
    return d;
}

const char *sdx_json_number(const char *p, const char *end, unsigned flags, sdx_num *out,
                            const char **err_at) {
    const char *start = p;
    bool neg = false;
    if (p < end && *p == '-') {
        neg = true;
        p++;
    }
    if (p >= end || !is_digit(*p)) goto fail;
    const char *int_start = p;
    if (*p == '0') {
        p++;
        if (p < end && is_digit(*p)) goto fail; /* leading zero */
    } else {
        while (p < end && is_digit(*p)) p++;
    }
    const char *int_end = p;
    bool is_int = true;
    if (p < end && *p == '.') {
        p++;
        if (p >= end || !is_digit(*p)) goto fail;
        while (p < end && is_digit(*p)) p++;
        is_int = false;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-')) p++;
        if (p >= end || !is_digit(*p)) goto fail;
        while (p < end && is_digit(*p)) p++;
        is_int = false;
    }
    if (is_int) {
        size_t nd = (size_t)(int_end - int_start);
        if (nd <= 20) {
            uint64_t v = 0;
            bool ovf = false;
            for (const char *q = int_start; q < int_end; q++) {
                unsigned d = (unsigned)(*q - '0');
                if (v > (UINT64_MAX - d) / 10) ovf = true;
                v = v * 10 + d;
            }
            if (!ovf) {
                if (!neg && v <= (uint64_t)INT64_MAX) {
                    out->kind = SDX_NUM_INT;
                    out->v.i = (int64_t)v;
                    return p;
                }
                if (!neg) {
                    out->kind = SDX_NUM_UINT;
                    out->v.u = v;
                    return p;
                }
                if (v != 0 && v <= (uint64_t)INT64_MAX + 1) {
                    out->kind = SDX_NUM_INT;
                    out->v.i = (int64_t)(0 - v);
                    return p;
                }
            }
            if (!ovf && v == 0) { /* "-0" */
                out->kind = SDX_NUM_DOUBLE;
                out->v.d = -0.0;
                return p;
            }
        }
        if (flags & SDX_NUM_BIG_RAW) {
            out->kind = SDX_NUM_BIG;
            return p;
        }
    }
    double d = libc_strtod(start, p);
    if ((flags & SDX_NUM_BIG_RAW) && (d > 1.7976931348623157e308 || d < -1.7976931348623157e308)) {
        out->kind = SDX_NUM_BIG;
        return p;
    }
    out->kind = SDX_NUM_DOUBLE;
    out->v.d = d;
    return p;
fail:
    if (err_at) *err_at = p;
    (void)start;
    return NULL;
}

const char *sdx_parse_double(const char *p, const char *end, double *out) {
    const char *start = p;
    if (p < end && (*p == '-' || *p == '+')) p++;
    if (p >= end || !is_digit(*p)) return NULL;
    while (p < end && is_digit(*p)) p++;
    if (p + 1 < end && *p == '.' && is_digit(p[1])) {
        p++;
        while (p < end && is_digit(*p)) p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        const char *q = p + 1;
        if (q < end && (*q == '+' || *q == '-')) q++;
        if (q < end && is_digit(*q)) {
            while (q < end && is_digit(*q)) q++;
            p = q;
        }
    }
    *out = libc_strtod(start, p);
    return p;
}
