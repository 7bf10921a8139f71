/*
 * Reference JSON codec (RFC 8259).
 *
 * Encoder: minified, no whitespace. Integers in decimal; doubles as
 * "%.17g" (enough digits to read back the same double), with ".0" added
 * when that text would read back as an integer ("5" -> "5.0", "-0" ->
 * "-0.0"); non-finite doubles cannot be written (NULL). Strings escape '"',
 * '\\' and the control characters (\b \f \n \r \t, else \u00XX with
 * lowercase hex); everything else, UTF-8 included, is written as is.
 *
 * Decoder: strict RFC 8259: one value with optional whitespace (space, tab,
 * LF, CR) around it; no byte-order mark, comments, trailing commas, leading
 * zeros, NaN or Infinity. Strings must be UTF-8 (no overlong forms, no
 * surrogates), escapes are the RFC's eight plus \uXXXX, where a surrogate
 * must be a high one followed by an escaped low one. Numbers:
 *   - no fraction and no exponent: an integer, hashed by value, if it fits
 *     in int64 (negative) or uint64 (non-negative); outside that range it is
 *     a double (the correctly rounded value);
 *   - "-0" is the integer 0 (the sign is lost: integers have no -0);
 *   - with a fraction or an exponent: a double, correctly rounded (strtod;
 *     bench_tool never changes the "C" locale); a magnitude too large for a
 *     double is an error, one too small rounds to 0 or a subnormal as
 *     strtod gives it.
 * Keys are hashed with sbh_key; duplicate keys are kept, in order.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref_internal.h"

/* ---- encoder ------------------------------------------------------------- */

static void put_str(rbuf *b, const char *s) { rbuf_put(b, s, strlen(s)); }

static void enc_string(rbuf *b, const char *p, size_t n) {
    static const char hex[] = "0123456789abcdef";
    rbuf_byte(b, '"');
    size_t run = 0; /* start of the bytes not yet written */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        char esc[7];
        size_t elen = 0;
        if (c == '"' || c == '\\') {
            esc[0] = '\\', esc[1] = (char)c, elen = 2;
        } else if (c < 0x20) {
            esc[0] = '\\', elen = 2;
            switch (c) {
            case '\b': esc[1] = 'b'; break;
            case '\f': esc[1] = 'f'; break;
            case '\n': esc[1] = 'n'; break;
            case '\r': esc[1] = 'r'; break;
            case '\t': esc[1] = 't'; break;
            default:
                esc[1] = 'u', esc[2] = '0', esc[3] = '0', esc[4] = hex[c >> 4], esc[5] = hex[c & 15];
                elen = 6;
            }
        } else {
            continue;
        }
        rbuf_put(b, p + run, i - run);
        rbuf_put(b, esc, elen);
        run = i + 1;
    }
    rbuf_put(b, p + run, n - run);
    rbuf_byte(b, '"');
}

static void enc_double(rbuf *b, double d) {
    if (!isfinite(d)) {
        rbuf_fail(b);
        return;
    }
    char s[40];
    snprintf(s, sizeof s, "%.17g", d);
    put_str(b, s);
    if (!strpbrk(s, ".eE")) put_str(b, ".0"); /* read back as a double, not an integer */
}

static void enc_value(rbuf *b, const bt_node *n, unsigned depth) {
    char num[32];
    if (b->failed) return;
    switch (n->type) {
    case BT_NULL: put_str(b, "null"); break;
    case BT_BOOL: put_str(b, n->v.b ? "true" : "false"); break;
    case BT_INT:
        snprintf(num, sizeof num, "%" PRId64, n->v.i);
        put_str(b, num);
        break;
    case BT_UINT:
        snprintf(num, sizeof num, "%" PRIu64, n->v.u);
        put_str(b, num);
        break;
    case BT_DOUBLE: enc_double(b, n->v.d); break;
    case BT_STR: enc_string(b, n->v.str.ptr, n->v.str.len); break;
    case BT_ARRAY:
    case BT_MAP: {
        int map = n->type == BT_MAP;
        if (depth >= REF_MAX_DEPTH) {
            rbuf_fail(b);
            return;
        }
        rbuf_byte(b, map ? '{' : '[');
        for (size_t i = 0; i < n->v.c.count; i++) {
            if (i) rbuf_byte(b, ',');
            if (map) {
                const bt_node *k = &n->v.c.items[2 * i];
                enc_string(b, k->v.str.ptr, k->v.str.len);
                rbuf_byte(b, ':');
                enc_value(b, &n->v.c.items[2 * i + 1], depth + 1);
            } else {
                enc_value(b, &n->v.c.items[i], depth + 1);
            }
        }
        rbuf_byte(b, map ? '}' : ']');
        break;
    }
    default: rbuf_fail(b);
    }
}

char *ref_json_encode(const bt_node *root, size_t *len) {
    rbuf b = {0};
    enc_value(&b, root, 0);
    return rbuf_finish(&b, len);
}

/* ---- decoder ------------------------------------------------------------- */

static void skip_ws(rdec *d) {
    while (d->pos < d->len) {
        unsigned char c = d->p[d->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
        d->pos++;
    }
}

static int is_digit(int c) { return c >= '0' && c <= '9'; }

int ref_json_number(rdec *d, const char *p, size_t n, size_t at) {
    size_t i = 0;
    int neg = 0, integral = 1;
    if (i < n && p[i] == '-') neg = 1, i++;
    size_t digits = i;
    if (i < n && p[i] == '0') {
        i++;
    } else if (i < n && p[i] >= '1' && p[i] <= '9') {
        while (i < n && is_digit(p[i])) i++;
    } else {
        return rdec_fail(d, at + i, "invalid number: a digit expected");
    }
    size_t int_end = i;
    if (i < n && p[i] == '.') {
        integral = 0;
        i++;
        if (i >= n || !is_digit(p[i])) return rdec_fail(d, at + i, "invalid number: a digit expected after '.'");
        while (i < n && is_digit(p[i])) i++;
    }
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        integral = 0;
        i++;
        if (i < n && (p[i] == '+' || p[i] == '-')) i++;
        if (i >= n || !is_digit(p[i])) return rdec_fail(d, at + i, "invalid number: a digit expected in the exponent");
        while (i < n && is_digit(p[i])) i++;
    }
    if (i != n) return rdec_fail(d, at + i, "invalid number");

    if (integral) {
        uint64_t mag = 0;
        int overflow = 0;
        for (size_t k = digits; k < int_end; k++) {
            unsigned dig = (unsigned)(p[k] - '0');
            if (mag > (UINT64_MAX - dig) / 10) {
                overflow = 1;
                break;
            }
            mag = mag * 10 + dig;
        }
        if (!overflow && !neg) {
            sbh_uint(d->h, mag);
            return 0;
        }
        if (!overflow && mag <= (uint64_t)INT64_MAX + 1) {
            /* -mag as int64 without overflow: -(mag - 1) - 1 */
            sbh_int(d->h, mag == 0 ? 0 : -(int64_t)(mag - 1) - 1);
            return 0;
        }
        /* out of the 64-bit range: a double */
    }
    /* strtod needs a terminated copy */
    rbuf *s = &d->scratch;
    s->len = 0;
    rbuf_put(s, p, n);
    rbuf_byte(s, 0);
    if (s->failed) return rdec_fail(d, at, "out of memory");
    char *end;
    errno = 0;
    double v = strtod(s->p, &end);
    if (end != s->p + n) return rdec_fail(d, at, "invalid number");
    if (isinf(v)) return rdec_fail(d, at, "number too large for a double");
    sbh_double(d->h, v);
    return 0;
}

static int hex4(rdec *d, size_t at, unsigned *out) {
    if (d->len - at < 4) return rdec_fail(d, at, "truncated \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char c = d->p[at + (size_t)i];
        unsigned x;
        if (c >= '0' && c <= '9') x = c - '0';
        else if (c >= 'a' && c <= 'f') x = c - 'a' + 10u;
        else if (c >= 'A' && c <= 'F') x = c - 'A' + 10u;
        else return rdec_fail(d, at + (size_t)i, "invalid hex digit in a \\u escape");
        v = v << 4 | x;
    }
    *out = v;
    return 0;
}

static void put_utf8(rbuf *b, unsigned cp) {
    if (cp < 0x80) {
        rbuf_byte(b, cp);
    } else if (cp < 0x800) {
        rbuf_byte(b, 0xC0 | cp >> 6);
        rbuf_byte(b, 0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        rbuf_byte(b, 0xE0 | cp >> 12);
        rbuf_byte(b, 0x80 | (cp >> 6 & 0x3F));
        rbuf_byte(b, 0x80 | (cp & 0x3F));
    } else {
        rbuf_byte(b, 0xF0 | cp >> 18);
        rbuf_byte(b, 0x80 | (cp >> 12 & 0x3F));
        rbuf_byte(b, 0x80 | (cp >> 6 & 0x3F));
        rbuf_byte(b, 0x80 | (cp & 0x3F));
    }
}

/* A string at d->pos (the opening quote), absorbed as a key or a value. */
static int dec_string(rdec *d, int as_key) {
    size_t start = ++d->pos; /* after the quote */
    rbuf *s = &d->scratch;
    int escaped = 0;
    s->len = 0;
    size_t run = start; /* start of the raw bytes not yet copied to scratch */
    for (;;) {
        if (d->pos >= d->len) return rdec_fail(d, start - 1, "unterminated string");
        unsigned char c = d->p[d->pos];
        if (c == '"') break;
        if (c < 0x20) return rdec_fail(d, d->pos, "control character in a string");
        if (c != '\\') {
            d->pos++;
            continue;
        }
        /* an escape: keep the raw bytes before it, then its value */
        size_t bad;
        if (!ref_utf8_valid(d->p + run, d->pos - run, &bad)) return rdec_fail(d, run + bad, "invalid UTF-8 in a string");
        rbuf_put(s, d->p + run, d->pos - run);
        escaped = 1;
        size_t at = d->pos;
        if (d->pos + 1 >= d->len) return rdec_fail(d, at, "unterminated string");
        unsigned char e = d->p[d->pos + 1];
        d->pos += 2;
        switch (e) {
        case '"': rbuf_byte(s, '"'); break;
        case '\\': rbuf_byte(s, '\\'); break;
        case '/': rbuf_byte(s, '/'); break;
        case 'b': rbuf_byte(s, '\b'); break;
        case 'f': rbuf_byte(s, '\f'); break;
        case 'n': rbuf_byte(s, '\n'); break;
        case 'r': rbuf_byte(s, '\r'); break;
        case 't': rbuf_byte(s, '\t'); break;
        case 'u': {
            unsigned cp;
            if (hex4(d, d->pos, &cp)) return -1;
            d->pos += 4;
            if (cp >= 0xDC00 && cp <= 0xDFFF) return rdec_fail(d, at, "unpaired low surrogate escape");
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                unsigned lo;
                if (d->len - d->pos < 2 || d->p[d->pos] != '\\' || d->p[d->pos + 1] != 'u')
                    return rdec_fail(d, at, "high surrogate escape not followed by a low one");
                if (hex4(d, d->pos + 2, &lo)) return -1;
                if (lo < 0xDC00 || lo > 0xDFFF) return rdec_fail(d, d->pos, "high surrogate escape not followed by a low one");
                d->pos += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
            put_utf8(s, cp);
            break;
        }
        default: return rdec_fail(d, at, "invalid escape");
        }
        run = d->pos;
    }
    size_t end = d->pos++; /* the closing quote */
    if (!escaped) return ref_text(d, d->p + start, end - start, as_key, start);
    size_t bad;
    if (!ref_utf8_valid(d->p + run, end - run, &bad)) return rdec_fail(d, run + bad, "invalid UTF-8 in a string");
    rbuf_put(s, d->p + run, end - run);
    if (s->failed) return rdec_fail(d, start, "out of memory");
    if (as_key) rdec_key(d, s->p, s->len);
    else sbh_str(d->h, s->p, s->len);
    return 0;
}

static int dec_literal(rdec *d, const char *word) {
    size_t n = strlen(word);
    if (d->len - d->pos < n || memcmp(d->p + d->pos, word, n) != 0) return rdec_fail(d, d->pos, "invalid literal");
    d->pos += n;
    return 0;
}

static int dec_value(rdec *d);

static int dec_container(rdec *d, int map) {
    if (rdec_enter(d)) return -1;
    char close = map ? '}' : ']';
    d->pos++; /* the opening bracket */
    rdec_begin(d, map);
    skip_ws(d);
    if (d->pos < d->len && d->p[d->pos] == close) {
        d->pos++;
    } else {
        for (;;) {
            if (map) {
                skip_ws(d);
                if (d->pos >= d->len || d->p[d->pos] != '"') return rdec_fail(d, d->pos, "a string key expected");
                if (dec_string(d, 1)) return -1;
                skip_ws(d);
                if (d->pos >= d->len || d->p[d->pos] != ':') return rdec_fail(d, d->pos, "':' expected");
                d->pos++;
            }
            if (dec_value(d)) return -1;
            skip_ws(d);
            if (d->pos >= d->len) return rdec_fail(d, d->pos, "unterminated %s", map ? "object" : "array");
            unsigned char c = d->p[d->pos++];
            if (c == close) break;
            if (c != ',') return rdec_fail(d, d->pos - 1, "',' or '%c' expected", close);
        }
    }
    rdec_end(d);
    rdec_leave(d);
    return 0;
}

static int dec_value(rdec *d) {
    skip_ws(d);
    if (d->pos >= d->len) return rdec_fail(d, d->pos, "a value expected");
    unsigned char c = d->p[d->pos];
    switch (c) {
    case '{': return dec_container(d, 1);
    case '[': return dec_container(d, 0);
    case '"': return dec_string(d, 0);
    case 't':
        if (dec_literal(d, "true")) return -1;
        sbh_bool(d->h, 1);
        return 0;
    case 'f':
        if (dec_literal(d, "false")) return -1;
        sbh_bool(d->h, 0);
        return 0;
    case 'n':
        if (dec_literal(d, "null")) return -1;
        sbh_null(d->h);
        return 0;
    default:
        if (c == '-' || is_digit(c)) {
            size_t start = d->pos;
            /* the longest run of number characters; the grammar is checked on it */
            while (d->pos < d->len) {
                unsigned char x = d->p[d->pos];
                if (!(is_digit(x) || x == '-' || x == '+' || x == '.' || x == 'e' || x == 'E')) break;
                d->pos++;
            }
            return ref_json_number(d, (const char *)d->p + start, d->pos - start, start);
        }
        return rdec_fail(d, d->pos, "unexpected character 0x%02x", c);
    }
}

int ref_json_decode(rdec *d) {
    if (dec_value(d)) return -1;
    skip_ws(d);
    return 0;
}
