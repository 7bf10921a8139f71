/*
 * The diagnostic printer (diag.h). Strings, doubles and base64 are
 * formatted by the library's JSON writer into a scratch buffer, so the
 * view escapes and rounds exactly as the JSON output does.
 */
#include "diag.h"

#include <inttypes.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "color.h"

static sdx_err fail(cli_diag *d, sdx_err e) {
    if (!d->err) d->err = e;
    return d->err;
}

static void put(cli_diag *d, const char *p, size_t n) {
    if (sdx_buf_write(d->out, p, n) != SDX_OK) fail(d, sdx_buf_error(d->out));
}

static void puts_(cli_diag *d, const char *s) { put(d, s, strlen(s)); }

/* Text in a colour (reset after it) when colouring. */
static void put_colored(cli_diag *d, const char *sgr, const char *p, size_t n) {
    if (d->color) puts_(d, sgr);
    put(d, p, n);
    if (d->color) puts_(d, CLI_SGR_RESET);
}

static void note(cli_diag *d, const char *text) { put_colored(d, CLI_SGR_NOTE, text, strlen(text)); }

static void newline_indent(cli_diag *d, size_t levels) {
    put(d, "\n", 1);
    size_t spaces = levels * d->indent;
    static const char blanks[] = "                                ";
    while (spaces) {
        size_t n = spaces < sizeof blanks - 1 ? spaces : sizeof blanks - 1;
        put(d, blanks, n);
        spaces -= n;
    }
}

/* Before an array element or a map key: the comma, and the line break and
 * indentation when indenting. Nothing before a map value or a root value. */
static void item_prefix(cli_diag *d) {
    if (!d->depth) return;
    cli_diag_frame *f = &d->frames[d->depth - 1];
    if (f->is_map && !f->key_next) return;
    if (f->items++) put(d, ",", 1);
    if (d->indent) newline_indent(d, d->depth);
    else if (d->cbor && (f->items > 1 || f->indef)) put(d, " ", 1); /* "[1, 2]", "[_ 1]" */
}

/* After a complete item: ": " after a key, the newline after a root value. */
static void item_done(cli_diag *d) {
    if (!d->depth) {
        put(d, "\n", 1);
        return;
    }
    cli_diag_frame *f = &d->frames[d->depth - 1];
    if (!f->is_map) return;
    if (f->key_next) put(d, d->indent || d->cbor ? ": " : ":", d->indent || d->cbor ? 2 : 1);
    f->key_next = !f->key_next;
}

/* The tag prefix of a tagged value; returns whether a ')' must follow. */
static bool open_tag(cli_diag *d, const sdx_event *ev) {
    char text[48];
    switch ((sdx_tag_kind)ev->tag_kind) {
    case SDX_TAG_NONE:
    case SDX_TAG_CBOR_SIMPLE: return false; /* shown as the value itself */
    case SDX_TAG_MSGPACK_EXT: snprintf(text, sizeof text, "ext(%d, ", (int)(int8_t)(uint8_t)ev->tag); break;
    case SDX_TAG_CBOR: snprintf(text, sizeof text, "%" PRIu64 "(", ev->tag); break;
    case SDX_TAG_BSON: snprintf(text, sizeof text, "bson(%" PRIu64 ", ", ev->tag); break;
    case SDX_TAG_BINN: snprintf(text, sizeof text, "binn(0x%" PRIx64 ", ", ev->tag); break;
    default: snprintf(text, sizeof text, "tag%u:%" PRIu64 "(", (unsigned)ev->tag_kind, ev->tag); break;
    }
    note(d, text);
    return true;
}

/* Format one scalar with the scratch JSON writer; returns its text (no
 * newline) or NULL when the writer refuses it with `flags`. */
static const char *json_text(cli_diag *d, const sdx_event *ev, uint32_t flags, size_t *len) {
    sdx_json_write_opts o = {SDX_JSON_WRITE_SEQUENCE | flags, 0, NULL};
    sdx_buf_clear(&d->scratch);
    sdx_json_writer_init(&d->jw, &d->scratch, &o);
    if (ev->kind == SDX_KEY) sdx_json_writer_string(&d->jw, ev->v.str.ptr, ev->v.str.len);
    else sdx_json_writer_put(&d->jw, ev);
    sdx_err e = sdx_json_writer_finish(&d->jw);
    if (e) {
        if (e == SDX_ERR_NOMEM) fail(d, e);
        return NULL;
    }
    *len = sdx_buf_len(&d->scratch) - 1;
    return sdx_buf_data(&d->scratch);
}

/* The shortest text of a float32 that reads back (as a float) exactly. */
static void float32_text(float f, char *buf, size_t cap) {
    for (int digits = 1; digits <= 9; digits++) {
        snprintf(buf, cap, "%.*g", digits, (double)f);
        if (strtof(buf, NULL) == f) break;
    }
    if (!strpbrk(buf, ".en")) strncat(buf, ".0", cap - strlen(buf) - 1); /* 1 -> 1.0 */
}


/* ------------------------------------------------------------------------ */
/* CBOR diagnostic notation (RFC 8949 section 8)                             */
/* ------------------------------------------------------------------------ */

/* Whether a double is exactly a binary16 value (RFC 8949 section 3.3:
 * 11 significant bits, normal exponents -14..15, subnormals down to
 * 2^-24). NaN is not asked about. */
static bool fits_half(double v) {
    if (isinf(v)) return true;
    double a = fabs(v);
    if (a > 65504.0) return false;
    double s;
    if (a < ldexp(1.0, -14)) {
        s = ldexp(a, 24); /* subnormal: a multiple of 2^-24 */
    } else {
        int e;
        s = ldexp(frexp(a, &e), 11); /* 11 significant bits */
    }
    return s == floor(s);
}

/* Whether a double is exactly a binary32 value (the range is checked first:
 * converting a double beyond it to float is undefined). */
static bool fits_float(double v) {
    if (isinf(v)) return true;
    if (fabs(v) > FLT_MAX) return false;
    return (double)(float)v == v;
}

/* Whether the decimal digits dg (k of them) times 10^(n-k) read back as a. */
static bool reads_back(const char *dg, size_t k, int n, double a, double *got) {
    char buf[48];
    snprintf(buf, sizeof buf, "%.*se%d", (int)k, dg, n - (int)k);
    *got = strtod(buf, NULL);
    return *got == a;
}

/* A finite, nonzero double's shortest decimal digits that read back
 * exactly (the digits ECMA-262's Number::toString asks for): digits[] (no
 * point, k of them, returned) and n with |v| = 0.d1..dk * 10^n. For each
 * count of digits from 1 up, the correctly rounded digits are tried and,
 * when they do not read back, the neighbour on the other side of v (one
 * unit more or less in the last digit): a value next to a power of two
 * has a narrower interval below it than above (2^-24 reads back from
 * 5.960464477539063e-8, not from its rounded 5.960464477539062e-8). */
static size_t shortest_digits(double v, char *digits, int *n) {
    double a = fabs(v), got;
    char buf[40];
    for (int prec = 0; prec < 17; prec++) {
        snprintf(buf, sizeof buf, "%.*e", prec, a); /* "d[.ddd]e[+-]xx" */
        size_t k = 0;
        const char *p = buf;
        for (; *p != 'e'; p++)
            if (*p != '.') digits[k++] = *p;
        digits[k] = '\0';
        *n = atoi(p + 1) + 1;
        if (reads_back(digits, k, *n, a, &got) || prec == 16) {
            while (k > 1 && digits[k - 1] == '0') k--;
            digits[k] = '\0';
            return k;
        }
        char alt[24];
        memcpy(alt, digits, k + 1);
        size_t i = k;
        if (got < a) { /* one more in the last digit, carrying */
            while (i-- > 0 && alt[i] == '9') alt[i] = '0';
            if (i == (size_t)-1) continue; /* 99..9 + 1: one digit more, tried next */
            alt[i]++;
        } else { /* one less, borrowing */
            while (i-- > 0 && alt[i] == '0') alt[i] = '9';
            if (i == 0 && alt[0] == '1') continue; /* would lose a digit */
            alt[i]--;
        }
        if (reads_back(alt, k, *n, a, &got)) {
            memcpy(digits, alt, k + 1);
            while (k > 1 && digits[k - 1] == '0') k--;
            digits[k] = '\0';
            return k;
        }
    }
    return 0; /* not reached: 17 digits always read back */
}

/* A float as Appendix A of RFC 8949 writes it: the shortest digits that
 * read back, laid out as ECMAScript's Number::toString does (ECMA-262,
 * section 6.1.6.1.20: plain decimals for exponents -6..20, e-notation
 * outside), with ".0" added where the text has no fraction (1.0, 1.0e+300);
 * Infinity, -Infinity, NaN. */
static void cbor_float_text(double v, char *out, size_t cap) {
    if (isnan(v)) {
        snprintf(out, cap, "NaN");
        return;
    }
    if (isinf(v)) {
        snprintf(out, cap, v > 0 ? "Infinity" : "-Infinity");
        return;
    }
    if (v == 0) {
        snprintf(out, cap, signbit(v) ? "-0.0" : "0.0");
        return;
    }
    char dg[24], t[48]; /* at most 17 digits, 21 places, sign, point, ".0" */
    int n;
    int k = (int)shortest_digits(v, dg, &n);
    size_t len = 0;
    if (v < 0) t[len++] = '-';
    if (0 < n && n <= 21) { /* plain: digits, the point where n says */
        for (int i = 0; i < n; i++) t[len++] = i < k ? dg[i] : '0';
        t[len++] = '.';
        if (k <= n) t[len++] = '0'; /* integral: ".0" */
        for (int i = n; i < k; i++) t[len++] = dg[i];
        t[len] = '\0';
    } else if (-6 < n && n <= 0) { /* 0.000ddd */
        t[len++] = '0';
        t[len++] = '.';
        for (int i = 0; i < -n; i++) t[len++] = '0';
        for (int i = 0; i < k; i++) t[len++] = dg[i];
        t[len] = '\0';
    } else { /* d.ddde+x, with ".0" for a single digit */
        t[len++] = dg[0];
        t[len++] = '.';
        if (k == 1) t[len++] = '0';
        for (int i = 1; i < k; i++) t[len++] = dg[i];
        snprintf(t + len, sizeof t - len, "e%c%d", n - 1 < 0 ? '-' : '+', n - 1 < 0 ? 1 - n : n - 1);
    }
    snprintf(out, cap, "%s", t);
}

static void scalar(cli_diag *d, const sdx_event *tagged, bool float32) {
    /* The tag is shown around the value: format the plain value. */
    sdx_event plain = *tagged;
    plain.tag_kind = SDX_TAG_NONE;
    plain.tag = 0;
    const sdx_event *ev = &plain;
    const char *sgr = CLI_SGR_NUMBER, *t;
    size_t n;
    char num[48];
    switch ((sdx_kind)ev->kind) {
    case SDX_NULL:
        if (tagged->tag_kind == SDX_TAG_CBOR_SIMPLE) {
            if (tagged->tag == 23) snprintf(num, sizeof num, "undefined");
            else snprintf(num, sizeof num, "simple(%" PRIu64 ")", tagged->tag);
            put_colored(d, CLI_SGR_LITERAL, num, strlen(num));
            return;
        }
        put_colored(d, CLI_SGR_LITERAL, "null", 4);
        return;
    case SDX_NINT: /* -1 - n, below INT64_MIN */
        if (ev->v.u == UINT64_MAX) snprintf(num, sizeof num, "-18446744073709551616");
        else snprintf(num, sizeof num, "-%" PRIu64, ev->v.u + 1);
        put_colored(d, sgr, num, strlen(num));
        return;
    case SDX_BOOL: put_colored(d, CLI_SGR_LITERAL, ev->v.b ? "true" : "false", ev->v.b ? 4 : 5); return;
    case SDX_DOUBLE:
        if (float32 && isfinite(ev->v.d)) {
            float32_text((float)ev->v.d, num, sizeof num);
            put_colored(d, sgr, num, strlen(num));
            note(d, "_f32");
            return;
        }
        if (!isfinite(ev->v.d)) {
            t = isnan(ev->v.d) ? "NaN" : ev->v.d > 0 ? "Infinity" : "-Infinity";
            put_colored(d, sgr, t, strlen(t));
            if (float32) note(d, "_f32");
            return;
        }
        break;
    case SDX_STR:
    case SDX_KEY:
        sgr = ev->kind == SDX_KEY ? CLI_SGR_KEY : CLI_SGR_STRING;
        t = json_text(d, ev, 0, &n);
        if (!t) {
            t = json_text(d, ev, SDX_JSON_WRITE_REPLACE_INVALID_UTF8, &n);
            if (!t) return;
            put_colored(d, sgr, t, n);
            note(d, " /invalid UTF-8/");
            return;
        }
        put_colored(d, sgr, t, n);
        return;
    case SDX_BIN:
        t = json_text(d, ev, SDX_JSON_WRITE_BIN_BASE64, &n);
        if (!t) return;
        if (d->color) puts_(d, CLI_SGR_BINARY);
        put(d, "b64'", 4);
        put(d, t + 1, n - 2); /* without the quotes */
        put(d, "'", 1);
        if (d->color) puts_(d, CLI_SGR_RESET);
        snprintf(num, sizeof num, " /%zu bytes/", ev->v.str.len);
        note(d, num);
        return;
    case SDX_RAW: put_colored(d, sgr, ev->v.str.ptr, ev->v.str.len); return;
    default: break;
    }
    t = json_text(d, ev, 0, &n); /* integers and finite doubles */
    if (t) put_colored(d, sgr, t, n);
    else fail(d, SDX_ERR_INVALID_ARG);
}

/* The width suffix of a float whose encoding is not the preferred one
 * (RFC 8949 section 8.1: _1 half, _2 single, _3 double), else "". The
 * preferred encoding is the shortest width that keeps the value (section
 * 4.1), NaN as a half. */
static const char *float_suffix(const sdx_event *ev) {
    int width = ev->flags & SDX_EVENT_FLOAT16 ? 1 : ev->flags & SDX_EVENT_FLOAT32 ? 2 : 3;
    double v = ev->v.d;
    int preferred = isnan(v) || fits_half(v) ? 1 : fits_float(v) ? 2 : 3;
    static const char *const suffix[] = {"", "_1", "_2", "_3"};
    return width == preferred ? "" : suffix[width];
}

/* A text string or key with JSON escapes and every non-ASCII character as
 * \uXXXX, as Appendix A writes them; text that is not UTF-8 with U+FFFD
 * for each bad sequence and a comment after it. */
static void cbor_text(cli_diag *d, const sdx_event *ev, const char *p, size_t len) {
    sdx_event one = *ev;
    one.kind = SDX_STR;
    one.v.str.ptr = p;
    one.v.str.len = len;
    size_t n;
    const char *sgr = ev->kind == SDX_KEY ? CLI_SGR_KEY : CLI_SGR_STRING;
    const char *t = json_text(d, &one, SDX_JSON_WRITE_ESCAPE_UNICODE, &n);
    if (t) {
        put_colored(d, sgr, t, n);
        return;
    }
    t = json_text(d, &one, SDX_JSON_WRITE_ESCAPE_UNICODE | SDX_JSON_WRITE_REPLACE_INVALID_UTF8, &n);
    if (!t) return;
    put_colored(d, sgr, t, n);
    note(d, " /invalid UTF-8/");
}

/* A byte string as h'...' in lowercase hex (RFC 8949 section 8). */
static void cbor_bytes(cli_diag *d, const char *p, size_t len) {
    static const char hex[] = "0123456789abcdef";
    char buf[128];
    if (d->color) puts_(d, CLI_SGR_BINARY);
    put(d, "h'", 2);
    for (size_t i = 0; i < len;) {
        size_t m = 0;
        for (; i < len && m < sizeof buf; i++) {
            buf[m++] = hex[(unsigned char)p[i] >> 4];
            buf[m++] = hex[(unsigned char)p[i] & 15];
        }
        put(d, buf, m);
    }
    put(d, "'", 1);
    if (d->color) puts_(d, CLI_SGR_RESET);
}

/* A string event: whole, or for an indefinite-length one its chunks as
 * (_ chunk, chunk) and no chunks as ''_ or ""_ (section 8.1). */
static void cbor_string(cli_diag *d, const sdx_event *ev) {
    size_t nchunks = 0;
    const size_t *lens = NULL;
    bool indef = (ev->flags & SDX_EVENT_INDEFINITE) && d->chunks;
    if (indef) lens = d->chunks(d->chunks_ctx, &nchunks);
    const char *p = ev->v.str.ptr;
    if (!indef) {
        if (ev->kind == SDX_BIN) cbor_bytes(d, p, ev->v.str.len);
        else cbor_text(d, ev, p, ev->v.str.len);
        return;
    }
    if (!nchunks) {
        put_colored(d, ev->kind == SDX_BIN ? CLI_SGR_BINARY : CLI_SGR_STRING, ev->kind == SDX_BIN ? "''_" : "\"\"_", 3);
        return;
    }
    put(d, "(_ ", 3);
    size_t at = 0;
    for (size_t i = 0; i < nchunks; i++) {
        if (i) put(d, ", ", 2);
        if (lens[i] > ev->v.str.len - at) { /* the reader's chunks cover the string */
            fail(d, SDX_ERR_INVALID_ARG);
            return;
        }
        if (ev->kind == SDX_BIN) cbor_bytes(d, p + at, lens[i]);
        else cbor_text(d, ev, p + at, lens[i]);
        at += lens[i];
    }
    put(d, ")", 1);
}

/* Bignums shown as numbers: at most this many bytes (the conversion to
 * decimal takes time quadratic in the length). */
#define CBOR_BIGNUM_MAX 4096

/* Whether an event is a bignum (tag 2 or 3 on a byte string, RFC 8949
 * section 3.4.3) in preferred form that the view shows as its number:
 * beyond 64 bits (a smaller one has a preferred form in major type 0 or
 * 1), no leading zero byte, at most CBOR_BIGNUM_MAX bytes. */
static bool cbor_bignum(const sdx_event *ev) {
    return ev->kind == SDX_BIN && ev->tag_kind == SDX_TAG_CBOR && (ev->tag == 2 || ev->tag == 3) &&
           !(ev->flags & SDX_EVENT_INDEFINITE) && ev->v.str.len > 8 && ev->v.str.len <= CBOR_BIGNUM_MAX &&
           ev->v.str.ptr[0] != 0;
}

/* The decimal text of a bignum: n (tag 2) or -1 - n (tag 3), n the bytes
 * big-endian. n is held in 32-bit limbs, most significant first, and
 * divided by 10^9 over and over; each remainder is nine more digits. */
static void cbor_bignum_text(cli_diag *d, const sdx_event *ev) {
    size_t len = ev->v.str.len, nl = (len + 3) / 4 + 1; /* a limb more for n + 1 */
    uint32_t *limb = malloc(nl * sizeof *limb);
    char *digits = malloc(nl * 10 + 2); /* 2^32 < 10^10 */
    if (!limb || !digits) {
        free(limb);
        free(digits);
        fail(d, SDX_ERR_NOMEM);
        return;
    }
    const unsigned char *b = (const unsigned char *)ev->v.str.ptr;
    for (size_t i = 0; i < nl; i++) limb[i] = 0;
    for (size_t i = 0; i < len; i++) { /* byte i from the end goes to limb nl-1 - i/4 */
        size_t from_end = len - 1 - i;
        limb[nl - 1 - from_end / 4] |= (uint32_t)b[i] << (8 * (from_end % 4));
    }
    if (ev->tag == 3) /* -1 - n: show n + 1 after a minus */
        for (size_t i = nl; i-- > 0;)
            if (++limb[i]) break;
    size_t nd = 0, first = 0;
    while (first < nl) {
        uint64_t rem = 0;
        for (size_t i = first; i < nl; i++) {
            uint64_t cur = rem << 32 | limb[i];
            limb[i] = (uint32_t)(cur / 1000000000u);
            rem = cur % 1000000000u;
        }
        while (first < nl && !limb[first]) first++;
        for (int j = 0; j < 9 && (first < nl || rem); j++) { /* no leading zeros at the top */
            digits[nd++] = (char)('0' + rem % 10);
            rem /= 10;
        }
    }
    if (ev->tag == 3) digits[nd++] = '-';
    for (size_t i = 0; i < nd / 2; i++) { /* the digits came least significant first */
        char c = digits[i];
        digits[i] = digits[nd - 1 - i];
        digits[nd - 1 - i] = c;
    }
    put_colored(d, CLI_SGR_NUMBER, digits, nd);
    free(limb);
    free(digits);
}

/* One item that is not a container in CBOR notation (its tags are shown
 * around it by the caller). */
static void cbor_scalar(cli_diag *d, const sdx_event *ev) {
    char num[64];
    switch ((sdx_kind)ev->kind) {
    case SDX_DOUBLE:
        cbor_float_text(ev->v.d, num, sizeof num - 3);
        strcat(num, float_suffix(ev));
        put_colored(d, CLI_SGR_NUMBER, num, strlen(num));
        return;
    case SDX_STR:
    case SDX_KEY:
    case SDX_BIN:
        if (cbor_bignum(ev)) cbor_bignum_text(d, ev);
        else cbor_string(d, ev);
        return;
    default: scalar(d, ev, false); return;
    }
}

static bool push(cli_diag *d, bool is_map, bool indef, uint32_t closes) {
    if (d->depth == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 32;
        cli_diag_frame *f = realloc(d->frames, cap * sizeof *f);
        if (!f) {
            fail(d, SDX_ERR_NOMEM);
            return false;
        }
        d->frames = f;
        d->cap = cap;
    }
    cli_diag_frame *f = &d->frames[d->depth++];
    f->items = 0;
    f->is_map = is_map;
    f->indef = indef;
    f->key_next = true;
    f->closes = closes;
    return true;
}

static sdx_err diag_put(void *ctx, const sdx_event *ev) {
    cli_diag *d = ctx;
    if (d->err) return d->err;
    if (ev->kind == SDX_END) {
        if (!d->depth) return fail(d, SDX_ERR_USAGE);
        cli_diag_frame f = d->frames[--d->depth];
        if (f.items && d->indent) newline_indent(d, d->depth);
        else if (f.indef && !f.items) put(d, " ", 1); /* "[_ ]" */
        put(d, f.is_map ? "}" : "]", 1);
        while (f.closes--) note(d, ")");
        item_done(d);
        return d->err;
    }
    if (!d->tags) item_prefix(d); /* else done by the item's first tag */
    /* A bignum shown as its number has no tag around it. */
    bool number = d->cbor && cbor_bignum(ev);
    uint32_t closes = d->tags + (number ? 0 : open_tag(d, ev));
    if (ev->kind == SDX_TAG) { /* one more tag on the next item */
        d->tags = closes;
        return d->err;
    }
    d->tags = 0;
    if (ev->kind == SDX_ARRAY || ev->kind == SDX_MAP) {
        bool indef = d->cbor && ev->v.count == SDX_COUNT_UNKNOWN;
        put(d, ev->kind == SDX_MAP ? "{" : "[", 1);
        if (indef) put(d, "_", 1);
        push(d, ev->kind == SDX_MAP, indef, closes);
        return d->err;
    }
    if (d->cbor) cbor_scalar(d, ev);
    else scalar(d, ev, (ev->flags & SDX_EVENT_FLOAT32) != 0);
    while (closes--) note(d, ")");
    item_done(d);
    return d->err;
}

static sdx_err diag_finish(void *ctx) {
    cli_diag *d = ctx;
    if (!d->err && d->depth) fail(d, SDX_ERR_USAGE);
    if (!d->err && sdx_buf_flush(d->out) != SDX_OK) fail(d, sdx_buf_error(d->out));
    return d->err;
}

static const sdx_sink_vt diag_vt = {diag_put, diag_finish};

void cli_diag_init(cli_diag *d, sdx_buf *out, uint32_t indent, bool color) {
    memset(d, 0, sizeof *d);
    d->out = out;
    d->indent = indent;
    d->color = color;
    sdx_buf_init(&d->scratch, NULL);
}

void cli_diag_cbor(cli_diag *d, const size_t *(*chunks)(const void *ctx, size_t *n), const void *ctx) {
    d->cbor = true;
    d->chunks = chunks;
    d->chunks_ctx = ctx;
}

sdx_sink cli_diag_sink(cli_diag *d) {
    sdx_sink s = {&diag_vt, d};
    return s;
}

void cli_diag_destroy(cli_diag *d) {
    free(d->frames);
    d->frames = NULL;
    sdx_buf_destroy(&d->scratch);
}
