/*
 * The to-JSON mapping layer (map.h): tagged and special events in, events
 * the JSON writer has out, by the conventions map.h documents.
 */
#include <math.h>
#include <string.h>

#include "core/base64.h"
#include "core/endian.h"
#include "map/map_internal.h"
#include "num/itoa.h"
#include "sdx/bson.h"
#include "msgpack/msgpack_internal.h"
#include "num/num.h"

/* ------------------------------------------------------------------------ */
/* Basics                                                                    */
/* ------------------------------------------------------------------------ */

static sdx_err fail(sdx_map_to_json *m, sdx_err e) {
    if (!m->err) m->err = e;
    return m->err;
}

static sdx_err emit(sdx_map_to_json *m, const sdx_event *ev) {
    if (m->err) return m->err;
    sdx_err e = sdx_sink_put(m->out, ev);
    if (e) m->err = e;
    return m->err;
}

static sdx_err emit_str(sdx_map_to_json *m, sdx_kind kind, const char *s, size_t n) {
    sdx_event e = sdx_map_event(kind);
    e.v.str.ptr = s;
    e.v.str.len = n;
    return emit(m, &e);
}

static sdx_err emit_count(sdx_map_to_json *m, sdx_kind kind, uint64_t count) {
    sdx_event e = sdx_map_event(kind);
    e.v.count = count;
    return emit(m, &e);
}

/* After an item completed at the current depth: close the wrappers opened
 * for it ({"$tag":N,"$value": ...}). */
static sdx_err close_wraps(sdx_map_to_json *m) {
    while (!m->err && m->nwraps && m->wraps[m->nwraps - 1] == m->depth) {
        sdx_event end = sdx_map_event(SDX_END);
        emit(m, &end);
        m->nwraps--;
    }
    return m->err;
}

/* Send an event as it is (tags already dealt with) and keep the depth. */
static sdx_err plain(sdx_map_to_json *m, const sdx_event *ev) {
    sdx_event e = *ev;
    e.tag_kind = SDX_TAG_NONE;
    e.tag = 0;
    if (emit(m, &e)) return m->err;
    if (e.kind == SDX_ARRAY || e.kind == SDX_MAP) {
        m->depth++;
        return SDX_OK;
    }
    if (e.kind == SDX_KEY) return SDX_OK; /* a key is not an item */
    return close_wraps(m);
}

/* A scalar made by the layer (a number's text, a date string). */
static sdx_err made(sdx_map_to_json *m, sdx_kind kind, const char *s, size_t n) {
    if (emit_str(m, kind, s, n)) return m->err;
    return close_wraps(m);
}

/* Room for one more entry on a stack of uint64 (the wrappers, the keyless
 * arrays); false after SDX_ERR_NOMEM. */
static bool reserve_slot(sdx_map_to_json *m, uint64_t **stack, size_t n, size_t *cap) {
    if (n < *cap) return true;
    size_t c = *cap ? *cap * 2 : 8;
    void *p = *stack ? m->alloc.realloc(m->alloc.ctx, *stack, *cap * sizeof **stack, c * sizeof **stack)
                     : m->alloc.malloc(m->alloc.ctx, c * sizeof **stack);
    if (!p) return fail(m, SDX_ERR_NOMEM), false;
    *stack = p;
    *cap = c;
    return true;
}

/* Open {"$tag":N,"$value": for the item that follows. */
static sdx_err open_wrap(sdx_map_to_json *m, const sdx_event *tag) {
    if (!reserve_slot(m, &m->wraps, m->nwraps, &m->capwraps)) return m->err;
    sdx_event n = sdx_map_event(SDX_UINT);
    n.v.u = tag->tag;
    if (tag->tag_kind != SDX_TAG_CBOR) { /* the other kinds' tags are signed */
        n.kind = SDX_INT;
        n.v.i = (int64_t)tag->tag;
    }
    emit_count(m, SDX_MAP, 2);
    emit_str(m, SDX_KEY, "$tag", 4);
    emit(m, &n);
    emit_str(m, SDX_KEY, "$value", 6);
    if (m->err) return m->err;
    m->wraps[m->nwraps++] = m->depth;
    return SDX_OK;
}

/* A tag without a JSON form on the item that follows: the tags policy. */
static sdx_err no_form(sdx_map_to_json *m, const sdx_event *tag) {
    if (m->flags & SDX_MAP_TAGS_DROP) return SDX_OK;
    if (m->flags & SDX_MAP_TAGS_WRAP) return open_wrap(m, tag);
    return fail(m, SDX_ERR_UNSUPPORTED);
}

/* The tags policy for `tag`, then the value plain. */
static sdx_err no_form_value(sdx_map_to_json *m, const sdx_event *tag, const sdx_event *v) {
    if (no_form(m, tag)) return m->err;
    return plain(m, v);
}

static sdx_err ejson_untagged(sdx_map_to_json *m, const sdx_event *v);

/* Whether every value goes by Extended JSON (an explicit mode), not only
 * BSON-tagged ones. */
static bool ejson_all(const sdx_map_to_json *m) {
    return (m->flags & (SDX_MAP_EJSON_RELAXED | SDX_MAP_EJSON_CANONICAL)) != 0;
}

/* ------------------------------------------------------------------------ */
/* Numbers                                                                   */
/* ------------------------------------------------------------------------ */

/* A big-endian magnitude as decimal digits (in m->text, from offset `at`;
 * room for a sign before it): returns the number of digits, 0 after an
 * error. `plus_one` adds 1 first (CBOR tag 3 and major type 1 store
 * -1 - value). */
static size_t magnitude_digits(sdx_map_to_json *m, const uint8_t *p, size_t len, bool plus_one, size_t at) {
    while (len && *p == 0) {
        p++;
        len--;
    }
    /* Each byte below the top one adds more than two digits: a number of
     * len bytes has more than 2 (len - 1) digits. Refuse before any
     * quadratic work what is sure to be too long. */
    if (len && (len - 1) * 2 > m->max_digits) return fail(m, SDX_ERR_LIMIT), 0;
    size_t limbs = sdx_big_limbs_for_bytes(len);
    sdx_big b = {sdx_map_scratch_get(&m->limbs, &m->alloc, limbs * 4), 0};
    char *text = sdx_map_scratch_get(&m->text, &m->alloc, at + sdx_big_digits_for_limbs(limbs));
    if (!b.limb || !text) return fail(m, SDX_ERR_NOMEM), 0;
    sdx_big_from_be(&b, p, len);
    if (plus_one) sdx_big_add_small(&b, 1);
    size_t n = sdx_big_to_dec(&b, text + at);
    if (n > m->max_digits) return fail(m, SDX_ERR_LIMIT), 0;
    return n;
}

/* CBOR tags 2 and 3 (RFC 8949 §3.4.3): n and -1 - n for the big-endian
 * magnitude n, as exact JSON number text. */
static sdx_err bignum(sdx_map_to_json *m, bool negative, const sdx_event *v) {
    size_t n = magnitude_digits(m, (const uint8_t *)v->v.str.ptr, v->v.str.len, negative, 1);
    if (!n) return m->err;
    m->text.ptr[0] = '-';
    return made(m, SDX_RAW, m->text.ptr + !negative, n + negative);
}

/* An integer element of a decimal fraction or bigfloat: its sign and its
 * magnitude as big-endian bytes in buf (9 bytes: 2^64 needs them). */
static size_t int_magnitude(const sdx_event *e, bool *neg, uint8_t buf[9]) {
    uint64_t mag;
    int carry = 0;
    switch ((sdx_kind)e->kind) {
    case SDX_INT:
        *neg = e->v.i < 0;
        mag = *neg ? (uint64_t)(-(e->v.i + 1)) + 1 : (uint64_t)e->v.i;
        break;
    case SDX_UINT:
        *neg = false;
        mag = e->v.u;
        break;
    default: /* SDX_NINT: -1 - n, magnitude n + 1 */
        *neg = true;
        mag = e->v.u + 1;
        carry = mag == 0;
        break;
    }
    buf[0] = (uint8_t)carry;
    sdx_store_be64(buf + 1, mag);
    return 9;
}

/* The mantissa of a decimal fraction or bigfloat (element 1) as a number
 * in m->limbs: an integer or a bignum. */
static bool mantissa(sdx_map_to_json *m, size_t extra_limbs, sdx_big *b, bool *neg) {
    const sdx_event *e = &m->frac_elem[1];
    uint8_t buf[9];
    const uint8_t *p = buf;
    size_t len;
    bool plus_one = false;
    if (e->kind == SDX_BIN) {
        p = (const uint8_t *)e->v.str.ptr;
        len = e->v.str.len;
        *neg = e->tag == 3;
        plus_one = *neg;
    } else {
        len = int_magnitude(e, neg, buf);
    }
    while (len && *p == 0) {
        p++;
        len--;
    }
    if (len && (len - 1) * 2 > m->max_digits) return fail(m, SDX_ERR_LIMIT), false;
    size_t limbs = sdx_big_limbs_for_bytes(len) + extra_limbs;
    b->limb = sdx_map_scratch_get(&m->limbs, &m->alloc, limbs * 4);
    if (!b->limb) return fail(m, SDX_ERR_NOMEM), false;
    sdx_big_from_be(b, p, len);
    if (plus_one) sdx_big_add_small(b, 1);
    return true;
}

/* The exponent (element 0): sign and magnitude; *huge when it is 2^64
 * (the magnitude of -1 - (2^64 - 1)). */
static uint64_t exponent(const sdx_map_to_json *m, bool *neg, bool *huge) {
    uint8_t buf[9];
    int_magnitude(&m->frac_elem[0], neg, buf);
    *huge = buf[0] != 0;
    return sdx_load_be64(buf + 1);
}

/* Append an exponent's decimal text (with its sign) at p. */
static char *put_exponent(char *p, bool neg, uint64_t mag, bool huge) {
    if (neg) *p++ = '-';
    if (huge) {
        memcpy(p, "18446744073709551616", 20);
        return p + 20;
    }
    return sdx_u64_to_dec(p, mag);
}

/* Places of zeros written out before the exponent form is used. */
#define PLAIN_ZEROS 6

/* Write sign, digits d[0, n) and the point `point` places from the right
 * (0: none) as plain text: "273.15", "0.0015". */
static char *put_point(char *p, bool neg, const char *d, size_t n, uint64_t point) {
    if (neg) *p++ = '-';
    if (point == 0) {
        memmove(p, d, n);
        return p + n;
    }
    if (point < n) {
        memmove(p, d, n - point);
        p += n - point;
        *p++ = '.';
        memmove(p, d + n - point, point);
        return p + point;
    }
    *p++ = '0';
    *p++ = '.';
    for (uint64_t k = n; k < point; k++) *p++ = '0';
    memmove(p, d, n);
    return p + n;
}

/* CBOR tag 4 (RFC 8949 §3.4.4): m * 10^e as exact number text. */
static sdx_err decimal_fraction(sdx_map_to_json *m) {
    bool eneg, huge, mneg;
    uint64_t e = exponent(m, &eneg, &huge);
    sdx_big b;
    if (!mantissa(m, 0, &b, &mneg)) return m->err;
    if (b.n == 0) return made(m, SDX_RAW, "0", 1);
    /* Digits at the end of the text area, the number written before them
     * (it never catches up: at most PLAIN_ZEROS + 3 more bytes are written
     * than the digits take, and that much room is left in front). */
    size_t front = PLAIN_ZEROS + 3 + 24;
    char *text = sdx_map_scratch_get(&m->text, &m->alloc, front + sdx_big_digits_for_limbs(b.n));
    if (!text) return fail(m, SDX_ERR_NOMEM);
    size_t n = sdx_big_to_dec(&b, text + front);
    if (n > m->max_digits) return fail(m, SDX_ERR_LIMIT);
    char *d = text + front, *p;
    if (!eneg && !huge && e <= PLAIN_ZEROS) {
        p = put_point(text, mneg, d, n, 0);
        for (uint64_t k = 0; k < e; k++) *p++ = '0';
    } else if (eneg && !huge && e <= n + PLAIN_ZEROS) {
        p = put_point(text, mneg, d, n, e);
    } else {
        p = put_point(text, mneg, d, n, 0);
        *p++ = 'e';
        p = put_exponent(p, eneg, e, huge);
    }
    return made(m, SDX_RAW, text, (size_t)(p - text));
}

/* CBOR tag 5 (RFC 8949 §3.4.4): m * 2^e as exact decimal text: m << e, or
 * m * 5^k / 10^k for e = -k. */
static sdx_err bigfloat(sdx_map_to_json *m) {
    bool eneg, huge, mneg;
    uint64_t e = exponent(m, &eneg, &huge);
    /* 2^e has more than 0.301 e digits and 5^k more than 0.698 k: refuse
     * what is sure to be too long before multiplying. */
    if (huge || (!eneg && e / 1000 * 301 > m->max_digits) || (eneg && e / 1000 * 698 > m->max_digits) ||
        (!eneg && e > 4 * (uint64_t)m->max_digits + 64) || (eneg && e > 2 * (uint64_t)m->max_digits + 64))
        return fail(m, SDX_ERR_LIMIT);
    size_t extra = eneg ? (size_t)(e * 3 / 32 + 2) : (size_t)(e / 32 + 2);
    sdx_big b;
    if (!mantissa(m, extra, &b, &mneg)) return m->err;
    if (b.n == 0) return made(m, SDX_RAW, "0", 1);
    if (!eneg) {
        sdx_big_shl(&b, e);
    } else {
        uint64_t k = e;
        for (; k >= 13; k -= 13) sdx_big_mul_small(&b, 1220703125u); /* 5^13 */
        uint32_t rest = 1;
        for (; k; k--) rest *= 5;
        sdx_big_mul_small(&b, rest);
    }
    size_t front = (size_t)(eneg ? e : 0) + 4;
    char *text = sdx_map_scratch_get(&m->text, &m->alloc, front + sdx_big_digits_for_limbs(b.n));
    if (!text) return fail(m, SDX_ERR_NOMEM);
    size_t n = sdx_big_to_dec(&b, text + front);
    if (n > m->max_digits) return fail(m, SDX_ERR_LIMIT);
    uint64_t point = eneg ? e : 0;
    const char *d = text + front;
    /* Zeros at the end of the fraction say nothing: drop them. */
    while (point && d[n - 1] == '0') {
        n--;
        point--;
    }
    char *p = put_point(text, mneg, d, n, point);
    return made(m, SDX_RAW, text, (size_t)(p - text));
}

/* ------------------------------------------------------------------------ */
/* Dates, byte strings                                                       */
/* ------------------------------------------------------------------------ */

/* CBOR tag 1 (RFC 8949 §3.4.2): seconds since 1970-01-01T00:00Z as an
 * integer or a float. Written as RFC 3339 text when it is a whole number of
 * nanoseconds in years 0000-9999: a float by its shortest decimal form
 * (the one that reads back as the same double), which must have at most
 * nine fraction digits. Returns false when it cannot be. */
static bool epoch_text(const sdx_event *v, char *dst, char **end) {
    int64_t sec;
    uint32_t nsec = 0;
    if (v->kind == SDX_INT) {
        sec = v->v.i;
    } else if (v->kind == SDX_UINT) {
        if (v->v.u > INT64_MAX) return false;
        sec = (int64_t)v->v.u;
    } else if (v->kind == SDX_DOUBLE) {
        double d = v->v.d;
        /* the range of years 0000-9999, with a margin; NaN fails too */
        if (!(d > -7e10 && d < 3e11)) return false;
        double whole = floor(d);
        if (whole == d) {
            sec = (int64_t)d;
        } else {
            uint64_t digits;
            int exp10;
            sdx_dtoa_shortest(fabs(d), &digits, &exp10);
            if (exp10 >= 0 || exp10 < -9) return false;
            uint64_t scale = 1;
            for (int k = 0; k < -exp10; k++) scale *= 10;
            uint64_t frac = digits % scale;
            sec = (int64_t)(digits / scale);
            for (int k = -exp10; k < 9; k++) frac *= 10;
            nsec = (uint32_t)frac;
            if (d < 0) { /* -1.5 s is 2 s before the epoch plus 0.5 s */
                sec = -sec - 1;
                nsec = 1000000000u - nsec;
            }
        }
    } else {
        return false;
    }
    *end = sdx_rfc3339(dst, sec, nsec);
    return *end != NULL;
}

/* CBOR tags 21, 22, 23 on a byte string (RFC 8949 §3.4.5.2, converted as
 * §6.1 says): base64url without padding, base64, base16. */
static sdx_err expected_encoding(sdx_map_to_json *m, uint64_t tag, const sdx_event *v) {
    const uint8_t *s = (const uint8_t *)v->v.str.ptr;
    size_t n = v->v.str.len;
    if (n > (SIZE_MAX - 8) / 2) return fail(m, SDX_ERR_NOMEM);
    char *text = sdx_map_scratch_get(&m->text, &m->alloc, tag == 23 ? 2 * n + 1 : sdx_base64_len(n) + 1);
    if (!text) return fail(m, SDX_ERR_NOMEM);
    size_t len;
    if (tag == 23) {
        static const char hex[] = "0123456789abcdef";
        for (size_t i = 0; i < n; i++) {
            text[2 * i] = hex[s[i] >> 4];
            text[2 * i + 1] = hex[s[i] & 15];
        }
        len = 2 * n;
    } else {
        len = (size_t)(sdx_base64_encode(text, s, n) - text);
        if (tag == 21) { /* RFC 4648 §5: '-' and '_' for '+' and '/', no padding */
            while (len && text[len - 1] == '=') len--;
            for (size_t i = 0; i < len; i++) text[i] = text[i] == '+' ? '-' : text[i] == '/' ? '_' : text[i];
        }
    }
    return made(m, SDX_STR, text, len);
}

/* A MessagePack ext value: the timestamp (type -1) as RFC 3339, else the
 * tags policy ({"$ext":T,"$data":"BASE64"} when wrapping). */
static sdx_err ext_value(sdx_map_to_json *m, const sdx_event *tag, const sdx_event *v) {
    int64_t sec;
    uint32_t nsec;
    char text[SDX_RFC3339_MAX], *end;
    if ((int64_t)tag->tag == -1 /* the timestamp extension */ &&
        sdx_msgpack_ts_decode((const uint8_t *)v->v.str.ptr, v->v.str.len, &sec, &nsec) &&
        (end = sdx_rfc3339(text, sec, nsec)) != NULL)
        return made(m, SDX_STR, text, (size_t)(end - text));
    if (m->flags & SDX_MAP_TAGS_DROP) return plain(m, v);
    if (!(m->flags & SDX_MAP_TAGS_WRAP)) return fail(m, SDX_ERR_UNSUPPORTED);
    size_t n = v->v.str.len;
    if (n > SIZE_MAX / 4 * 3 - 3) return fail(m, SDX_ERR_NOMEM);
    char *b64 = sdx_map_scratch_get(&m->text, &m->alloc, sdx_base64_len(n) + 1);
    if (!b64) return fail(m, SDX_ERR_NOMEM);
    size_t len = (size_t)(sdx_base64_encode(b64, v->v.str.ptr, n) - b64);
    sdx_event type = sdx_map_event(SDX_INT);
    type.v.i = (int8_t)(uint8_t)tag->tag;
    emit_count(m, SDX_MAP, 2);
    emit_str(m, SDX_KEY, "$ext", 4);
    emit(m, &type);
    emit_str(m, SDX_KEY, "$data", 5);
    emit_str(m, SDX_STR, b64, len);
    emit(m, &(sdx_event){.kind = SDX_END});
    return close_wraps(m);
}

/* ------------------------------------------------------------------------ */
/* Tags                                                                      */
/* ------------------------------------------------------------------------ */

/* A CBOR tag as the innermost tag of the value v (untagged content). */
static sdx_err cbor_value(sdx_map_to_json *m, const sdx_event *tag, const sdx_event *v) {
    char text[SDX_RFC3339_MAX], *end;
    switch (tag->tag) {
    case 2:
    case 3:
        if (v->kind == SDX_BIN) return bignum(m, tag->tag == 3, v);
        break;
    case 4:
    case 5:
        if (v->kind == SDX_ARRAY && (v->v.count == 2 || v->v.count == SDX_COUNT_UNKNOWN)) {
            m->collecting = (int)tag->tag;
            m->nelem = 0;
            m->frac_array = *v;
            return SDX_OK;
        }
        break;
    case 0:
        if (v->kind == SDX_STR) return plain(m, v);
        break;
    case 1:
        if (epoch_text(v, text, &end)) return made(m, SDX_STR, text, (size_t)(end - text));
        break;
    case 24:
        if (v->kind == SDX_BIN) return plain(m, v);
        break;
    case 21:
    case 22:
    case 23:
        if (v->kind == SDX_BIN) return expected_encoding(m, tag->tag, v);
        break;
    default: break;
    }
    return no_form_value(m, tag, v);
}

/* A Binn type (SDX_TAG_BINN): datetime, date and time strings as they
 * are (map.h), everything else by the tags policy. */
static sdx_err binn_value(sdx_map_to_json *m, const sdx_event *tag, const sdx_event *v) {
    if (v->kind == SDX_STR && tag->tag >= 0xa1 && tag->tag <= 0xa3) return plain(m, v);
    return no_form_value(m, tag, v);
}

/* A CBOR simple value other than false, true and null. */
static sdx_err simple_value(sdx_map_to_json *m, uint64_t n) {
    sdx_event null = sdx_map_event(SDX_NULL);
    if ((n == 23 && (m->flags & SDX_MAP_UNDEFINED_NULL)) || (m->flags & SDX_MAP_TAGS_DROP)) return plain(m, &null);
    if (!(m->flags & SDX_MAP_TAGS_WRAP)) return fail(m, SDX_ERR_UNSUPPORTED);
    sdx_event num = sdx_map_event(SDX_UINT);
    num.v.u = n;
    emit_count(m, SDX_MAP, 1);
    emit_str(m, SDX_KEY, "$simple", 7);
    emit(m, &num);
    emit(m, &(sdx_event){.kind = SDX_END});
    return close_wraps(m);
}


/* The conventions of the MongoDB Extended JSON v2 specification
 * (mongodb/specifications, source/extended-json): each BSON type JSON lacks
 * becomes a one-key "type wrapper" map, canonical or relaxed (map.h). */

static bool ejson_canonical(const sdx_map_to_json *m) { return (m->flags & SDX_MAP_EJSON_CANONICAL) != 0; }

/* {"KEY": then the caller's value, then end_wrapper(). */
static sdx_err open_wrapper(sdx_map_to_json *m, const char *key) {
    emit_count(m, SDX_MAP, 1);
    return emit_str(m, SDX_KEY, key, strlen(key));
}

static sdx_err end_wrapper(sdx_map_to_json *m) {
    sdx_event end = sdx_map_event(SDX_END);
    if (emit(m, &end)) return m->err;
    return close_wraps(m);
}

/* {"KEY":"TEXT"} */
static sdx_err wrapper_str(sdx_map_to_json *m, const char *key, const char *s, size_t n) {
    open_wrapper(m, key);
    emit_str(m, SDX_STR, s, n);
    return end_wrapper(m);
}

/* {"KEY":{"$numberLong":"N"}} when key is not NULL, else {"$numberLong":"N"}. */
static sdx_err number_long(sdx_map_to_json *m, const char *key, int64_t v) {
    char text[24];
    size_t n = (size_t)(sdx_i64_to_dec(text, v) - text);
    if (key) open_wrapper(m, key);
    wrapper_str(m, "$numberLong", text, n);
    if (key) end_wrapper(m);
    return m->err;
}

/* A double as $numberDouble's text: "Infinity", "-Infinity", "NaN" or the
 * shortest text that reads back as it ("1.0", "-0.0", "1e+300" style of
 * sdx_dtoa_json). */
static sdx_err number_double(sdx_map_to_json *m, double d) {
    char text[SDX_DTOA_RESERVE];
    size_t n;
    if (isnan(d)) {
        memcpy(text, "NaN", n = 3);
    } else if (isinf(d)) {
        n = d < 0 ? 9 : 8;
        memcpy(text, d < 0 ? "-Infinity" : "Infinity", n);
    } else {
        n = (size_t)(sdx_dtoa_json(text, d) - text);
    }
    return wrapper_str(m, "$numberDouble", text, n);
}

/* Lower-case hex of n bytes at dst (2n bytes). */
static void put_hex(char *dst, const uint8_t *s, size_t n) {
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        dst[2 * i] = hex[s[i] >> 4];
        dst[2 * i + 1] = hex[s[i] & 15];
    }
}

/* {"$binary":{"base64":"...","subType":"xx"}} (two hex digits). */
static sdx_err ejson_binary(sdx_map_to_json *m, uint8_t subtype, const sdx_event *v) {
    size_t n = v->v.str.len;
    if (n > SIZE_MAX / 4 * 3 - 3) return fail(m, SDX_ERR_NOMEM);
    char *b64 = sdx_map_scratch_get(&m->text, &m->alloc, sdx_base64_len(n) + 1);
    if (!b64) return fail(m, SDX_ERR_NOMEM);
    size_t len = (size_t)(sdx_base64_encode(b64, v->v.str.ptr, n) - b64);
    char st[2];
    put_hex(st, &subtype, 1);
    open_wrapper(m, "$binary");
    emit_count(m, SDX_MAP, 2);
    emit_str(m, SDX_KEY, "base64", 6);
    emit_str(m, SDX_STR, b64, len);
    emit_str(m, SDX_KEY, "subType", 7);
    emit_str(m, SDX_STR, st, 2);
    emit(m, &(sdx_event){.kind = SDX_END});
    return end_wrapper(m);
}

/* A UTC datetime (milliseconds since the epoch). Relaxed: ISO-8601 text
 * with milliseconds ("2012-12-24T12:15:30.501Z", none when whole seconds)
 * for years 1970-9999, as the specification asks; otherwise and in
 * canonical mode {"$date":{"$numberLong":"N"}}. */
static sdx_err ejson_date(sdx_map_to_json *m, int64_t ms) {
    /* 253402300800000 ms is 10000-01-01T00:00:00Z */
    if (ejson_canonical(m) || ms < 0 || ms >= INT64_C(253402300800000)) return number_long(m, "$date", ms);
    char text[SDX_RFC3339_MAX + 4];
    char *end = sdx_rfc3339(text, ms / 1000, 0);
    if (!end) return number_long(m, "$date", ms); /* not reached: the range is checked */
    uint32_t frac = (uint32_t)(ms % 1000);
    if (frac) { /* ".mmm" before the 'Z' */
        end[-1] = '.';
        end[0] = (char)('0' + frac / 100);
        end[1] = (char)('0' + frac / 10 % 10);
        end[2] = (char)('0' + frac % 10);
        end[3] = 'Z';
        end += 4;
    }
    return wrapper_str(m, "$date", text, (size_t)(end - text));
}

/* The length of the cstring at p (NUL within the n bytes), or SIZE_MAX. */
static size_t cstring_len(const char *p, size_t n) {
    const char *z = memchr(p, 0, n);
    return z ? (size_t)(z - p) : SIZE_MAX;
}

/* A regular expression's bytes, pattern NUL options NUL:
 * {"$regularExpression":{"pattern":"...","options":"..."}} with the options
 * in alphabetical order, as the specification requires. */
static sdx_err ejson_regex(sdx_map_to_json *m, const sdx_event *v) {
    const char *p = v->v.str.ptr;
    size_t n = v->v.str.len;
    size_t plen = cstring_len(p, n);
    if (plen == SIZE_MAX) return fail(m, SDX_ERR_INVALID_ARG);
    const char *o = p + plen + 1;
    size_t olen = cstring_len(o, n - plen - 1);
    if (olen == SIZE_MAX || plen + olen + 2 != n) return fail(m, SDX_ERR_INVALID_ARG);
    char *sorted = sdx_map_scratch_get(&m->text, &m->alloc, olen + 1);
    if (!sorted) return fail(m, SDX_ERR_NOMEM);
    sdx_map_sort_bytes(sorted, o, olen);
    open_wrapper(m, "$regularExpression");
    emit_count(m, SDX_MAP, 2);
    emit_str(m, SDX_KEY, "pattern", 7);
    emit_str(m, SDX_STR, p, plen);
    emit_str(m, SDX_KEY, "options", 7);
    emit_str(m, SDX_STR, sorted, olen);
    emit(m, &(sdx_event){.kind = SDX_END});
    return end_wrapper(m);
}

/* {"$oid":"24 hex digits"} */
static sdx_err ejson_oid(sdx_map_to_json *m, const uint8_t id[12]) {
    char hex[24];
    put_hex(hex, id, 12);
    return wrapper_str(m, "$oid", hex, 24);
}

/* A DBPointer's bytes, int32 length, string, NUL, 12-byte id:
 * {"$dbPointer":{"$ref":"...","$id":{"$oid":"..."}}}. */
static sdx_err ejson_dbpointer(sdx_map_to_json *m, const sdx_event *v) {
    const char *p = v->v.str.ptr;
    size_t n = v->v.str.len;
    uint32_t len = n >= 4 ? sdx_load_le32(p) : 0;
    if (n < 17 || len < 1 || len != n - 16 || p[4 + len - 1] != 0) return fail(m, SDX_ERR_INVALID_ARG);
    open_wrapper(m, "$dbPointer");
    emit_count(m, SDX_MAP, 2);
    emit_str(m, SDX_KEY, "$ref", 4);
    emit_str(m, SDX_STR, p + 4, len - 1);
    emit_str(m, SDX_KEY, "$id", 3);
    ejson_oid(m, (const uint8_t *)p + 4 + len);
    emit(m, &(sdx_event){.kind = SDX_END});
    return end_wrapper(m);
}

/* A code with scope's bytes, int32 total, int32 length, string, document:
 * {"$code":"...","$scope":{...}}, the scope read with the BSON reader and
 * converted by this layer like any document (its nesting is bounded by the
 * reader's SDX_BSON_MAX_SCOPE_NESTING). */
static sdx_err ejson_code_w_scope(sdx_map_to_json *m, const sdx_event *v) {
    const char *p = v->v.str.ptr;
    size_t n = v->v.str.len;
    uint32_t total = n >= 8 ? sdx_load_le32(p) : 0, len = n >= 8 ? sdx_load_le32(p + 4) : 0;
    if (n < 14 || total != n || len < 1 || len > n - 8 - 5 || p[8 + len - 1] != 0)
        return fail(m, SDX_ERR_INVALID_ARG);
#ifdef SDX_NO_BSON
    /* the scope is a BSON document, and the BSON reader was left out */
    return fail(m, SDX_ERR_UNSUPPORTED);
#else
    sdx_bson_read_opts ro = {0, 0, 0, &m->alloc};
    sdx_bson_reader *r = sdx_bson_reader_new(p + 8 + len, n - 8 - len, &ro);
    if (!r) return fail(m, SDX_ERR_NOMEM);
    emit_count(m, SDX_MAP, 2);
    emit_str(m, SDX_KEY, "$code", 5);
    emit_str(m, SDX_STR, p + 8, len - 1);
    emit_str(m, SDX_KEY, "$scope", 6);
    sdx_event ev;
    while (!m->err && sdx_bson_reader_next(r, &ev)) sdx_map_to_json_put(m, &ev);
    sdx_err e = sdx_bson_reader_error(r, NULL);
    sdx_bson_reader_free(r);
    if (e) return fail(m, e == SDX_ERR_NOMEM ? e : SDX_ERR_INVALID_ARG);
    return end_wrapper(m);
#endif
}

/* A value tagged SDX_TAG_BSON (the table of bson.h) by MongoDB Extended
 * JSON v2, canonical or relaxed; a tag that does not fit the value's kind,
 * and every tag with SDX_MAP_EJSON_OFF: the tags policy. */
static sdx_err bson_value(sdx_map_to_json *m, const sdx_event *tag, const sdx_event *v) {
    if (m->flags & SDX_MAP_EJSON_OFF) return no_form_value(m, tag, v);
    uint64_t t = tag->tag;
    uint8_t type = (uint8_t)t;
    if (t >> 16 || (type != SDX_BSON_BINARY && t >> 8)) return no_form_value(m, tag, v);
    bool bin = v->kind == SDX_BIN, str = v->kind == SDX_STR, null = v->kind == SDX_NULL;
    bool integer = v->kind == SDX_INT;
    switch (type) {
    case SDX_BSON_BINARY:
        if (bin) return ejson_binary(m, (uint8_t)(t >> 8), v);
        break;
    case SDX_BSON_UNDEFINED:
        if (null) {
            sdx_event yes = sdx_map_event(SDX_BOOL);
            yes.v.b = true;
            open_wrapper(m, "$undefined");
            emit(m, &yes);
            return end_wrapper(m);
        }
        break;
    case SDX_BSON_OBJECTID:
        if (bin && v->v.str.len == 12) return ejson_oid(m, (const uint8_t *)v->v.str.ptr);
        break;
    case SDX_BSON_DATETIME:
        if (integer) return ejson_date(m, v->v.i);
        break;
    case SDX_BSON_REGEX:
        if (bin) return ejson_regex(m, v);
        break;
    case SDX_BSON_DBPOINTER:
        if (bin) return ejson_dbpointer(m, v);
        break;
    case SDX_BSON_CODE:
        if (str) return wrapper_str(m, "$code", v->v.str.ptr, v->v.str.len);
        break;
    case SDX_BSON_SYMBOL:
        if (str) return wrapper_str(m, "$symbol", v->v.str.ptr, v->v.str.len);
        break;
    case SDX_BSON_CODE_W_SCOPE:
        if (bin) return ejson_code_w_scope(m, v);
        break;
    case SDX_BSON_INT32:
        if (integer && v->v.i >= INT32_MIN && v->v.i <= INT32_MAX) return ejson_untagged(m, v);
        break;
    case SDX_BSON_TIMESTAMP:
        if (integer || v->kind == SDX_UINT) {
            uint64_t ts = v->v.u; /* INT and UINT alike: the uint64 BSON stores */
            sdx_event t32 = sdx_map_event(SDX_INT), i32 = sdx_map_event(SDX_INT);
            t32.v.i = (int64_t)(ts >> 32);
            i32.v.i = (int64_t)(ts & 0xffffffffu);
            open_wrapper(m, "$timestamp");
            emit_count(m, SDX_MAP, 2);
            emit_str(m, SDX_KEY, "t", 1);
            emit(m, &t32);
            emit_str(m, SDX_KEY, "i", 1);
            emit(m, &i32);
            emit(m, &(sdx_event){.kind = SDX_END});
            return end_wrapper(m);
        }
        break;
    case SDX_BSON_INT64:
        if (integer) return ejson_canonical(m) ? number_long(m, NULL, v->v.i) : plain(m, v);
        break;
    case SDX_BSON_DECIMAL128:
        if (bin && v->v.str.len == 16) {
            char text[SDX_BSON_DECIMAL128_STRING_MAX + 1];
            size_t n = sdx_bson_decimal128_to_string((const uint8_t *)v->v.str.ptr, text);
            return wrapper_str(m, "$numberDecimal", text, n);
        }
        break;
    case SDX_BSON_MINKEY:
    case SDX_BSON_MAXKEY:
        if (null) {
            sdx_event one = sdx_map_event(SDX_INT);
            one.v.i = 1;
            open_wrapper(m, type == SDX_BSON_MINKEY ? "$minKey" : "$maxKey");
            emit(m, &one);
            return end_wrapper(m);
        }
        break;
    case SDX_BSON_ARRAY:
        /* an array whose keys are not "0", "1", ...: a JSON array (the keys
         * are dropped, as the corpus's degenerate arrays expect) */
        if (v->kind == SDX_MAP) {
            sdx_event arr = *v;
            arr.kind = SDX_ARRAY;
            if (!reserve_slot(m, &m->keyless, m->nkeyless, &m->capkeyless) || plain(m, &arr)) return m->err;
            m->keyless[m->nkeyless++] = m->depth;
            return SDX_OK;
        }
        break;
    default: break;
    }
    return no_form_value(m, tag, v);
}

/* An untagged value in an explicit Extended JSON mode (SDX_MAP_EJSON_RELAXED
 * or _CANONICAL): canonical numbers ($numberInt for what fits int32, as the
 * BSON writer would write it, else $numberLong; $numberDouble), non-finite
 * doubles in relaxed mode too, binaries as subtype 0. */
static sdx_err ejson_untagged(sdx_map_to_json *m, const sdx_event *v) {
    bool canonical = ejson_canonical(m);
    switch ((sdx_kind)v->kind) {
    case SDX_INT:
        if (!canonical) break;
        if (v->v.i >= INT32_MIN && v->v.i <= INT32_MAX) {
            char text[24];
            return wrapper_str(m, "$numberInt", text, (size_t)(sdx_i64_to_dec(text, v->v.i) - text));
        }
        return number_long(m, NULL, v->v.i);
    case SDX_UINT:
        if (canonical && v->v.u <= INT64_MAX) return number_long(m, NULL, (int64_t)v->v.u);
        break;
    case SDX_DOUBLE:
        if (canonical || !isfinite(v->v.d)) return number_double(m, v->v.d);
        break;
    case SDX_BIN:
        if (m->flags & (SDX_MAP_EJSON_RELAXED | SDX_MAP_EJSON_CANONICAL)) return ejson_binary(m, 0, v);
        break;
    default: break;
    }
    return plain(m, v);
}

/* An item (anything but SDX_TAG and SDX_END) with the tags held for it. */
static sdx_err item(sdx_map_to_json *m, const sdx_event *ev) {
    sdx_event tags[SDX_MAP_MAX_TAGS + 1];
    uint32_t n = m->ntags;
    memcpy(tags, m->tags, n * sizeof *tags);
    m->ntags = 0;
    bool simple = ev->kind == SDX_NULL && ev->tag_kind == SDX_TAG_CBOR_SIMPLE;
    if (ev->tag_kind != SDX_TAG_NONE && !simple && !(ev->tag_kind == SDX_TAG_CBOR && ev->tag == 55799))
        tags[n++] = *ev;
    sdx_event v = *ev;
    v.tag_kind = SDX_TAG_NONE;
    v.tag = 0;
    if (n && ev->kind == SDX_KEY && (m->flags & SDX_MAP_TAGS_WRAP)) return fail(m, SDX_ERR_KEY);
    /* Tags outside the innermost have no meaning here (none of these tags
     * is defined on tagged content); so has every tag on a simple value. */
    uint32_t outer = simple ? n : n ? n - 1 : 0;
    for (uint32_t i = 0; i < outer; i++)
        if (no_form(m, &tags[i])) return m->err;
    if (simple) return simple_value(m, ev->tag);
    if (!n) return ejson_all(m) ? ejson_untagged(m, &v) : plain(m, &v);
    const sdx_event *inner = &tags[n - 1];
    switch (inner->tag_kind) {
    case SDX_TAG_CBOR: return cbor_value(m, inner, &v);
    case SDX_TAG_MSGPACK_EXT:
        if (v.kind == SDX_BIN) return ext_value(m, inner, &v);
        break;
    case SDX_TAG_BSON: return bson_value(m, inner, &v);
    case SDX_TAG_UBJSON:
        /* how the value was encoded (a char, a typed container), not what
         * it is: the plain value (map.h) */
        if (n == 1) return plain(m, &v);
        break;
    case SDX_TAG_BINN: return binn_value(m, inner, &v);
    default: break;
    }
    return no_form_value(m, inner, &v);
}

/* ------------------------------------------------------------------------ */
/* Decimal fractions and bigfloats: collecting [e, m]                        */
/* ------------------------------------------------------------------------ */

/* The array was no decimal fraction or bigfloat after all: send what was
 * held as the plain array under the tags policy for its tag. */
static sdx_err replay(sdx_map_to_json *m) {
    sdx_event tag = sdx_map_event(SDX_NULL);
    tag.tag_kind = SDX_TAG_CBOR;
    tag.tag = (uint64_t)m->collecting;
    m->collecting = 0;
    if (no_form(m, &tag) || plain(m, &m->frac_array)) return m->err;
    for (uint32_t i = 0; i < m->nelem; i++)
        if (item(m, &m->frac_elem[i])) return m->err;
    return SDX_OK;
}

static bool is_int(const sdx_event *e) {
    return (e->kind == SDX_INT || e->kind == SDX_UINT || e->kind == SDX_NINT) && e->tag_kind == SDX_TAG_NONE;
}

static sdx_err collect(sdx_map_to_json *m, const sdx_event *ev) {
    if (ev->kind == SDX_END && m->nelem == 2) {
        int tag = m->collecting;
        m->collecting = 0;
        return tag == 4 ? decimal_fraction(m) : bigfloat(m);
    }
    bool bignum_mantissa = m->nelem == 1 && ev->kind == SDX_BIN && ev->tag_kind == SDX_TAG_CBOR &&
                           (ev->tag == 2 || ev->tag == 3);
    if (m->nelem < 2 && (is_int(ev) || bignum_mantissa)) {
        sdx_event *e = &m->frac_elem[m->nelem++];
        *e = *ev;
        if (bignum_mantissa) { /* the bytes are the producer's until its next call */
            char *copy = sdx_map_scratch_get(&m->frac, &m->alloc, ev->v.str.len + 1);
            if (!copy) return fail(m, SDX_ERR_NOMEM);
            if (ev->v.str.len) memcpy(copy, ev->v.str.ptr, ev->v.str.len);
            e->v.str.ptr = copy;
        }
        return SDX_OK;
    }
    if (replay(m)) return m->err;
    return sdx_map_to_json_put(m, ev);
}

/* ------------------------------------------------------------------------ */
/* The API                                                                   */
/* ------------------------------------------------------------------------ */

sdx_err sdx_map_to_json_init(sdx_map_to_json *m, sdx_sink out, const sdx_map_opts *opts) {
    static const sdx_map_opts defaults = {0, 0, 0, NULL};
    if (!opts) opts = &defaults;
    memset(m, 0, sizeof *m);
    m->out = out;
    m->flags = opts->flags;
    m->max_digits = opts->max_digits ? opts->max_digits : SDX_MAP_DEFAULT_MAX_DIGITS;
    m->alloc = *(opts->alloc ? opts->alloc : sdx_alloc_default());
    if (!sdx_map_flags_ok(opts->flags) || opts->max_digits > SDX_MAP_MAX_DIGITS_CAP || opts->target)
        return fail(m, SDX_ERR_INVALID_ARG);
    return SDX_OK;
}

sdx_err sdx_map_to_json_put(sdx_map_to_json *m, const sdx_event *ev) {
    if (m->err) return m->err;
    if (m->collecting) return collect(m, ev);
    switch ((sdx_kind)ev->kind) {
    case SDX_TAG:
        if (ev->tag_kind == SDX_TAG_CBOR && ev->tag == 55799) return SDX_OK; /* RFC 8949 §3.4.6 */
        if (m->ntags == SDX_MAP_MAX_TAGS) return fail(m, SDX_ERR_LIMIT);
        m->tags[m->ntags++] = *ev;
        return SDX_OK;
    case SDX_END:
        if (m->ntags) return fail(m, SDX_ERR_USAGE); /* a tag on nothing */
        if (m->nkeyless && m->keyless[m->nkeyless - 1] == m->depth) m->nkeyless--;
        if (emit(m, ev)) return m->err;
        if (m->depth) m->depth--;
        return close_wraps(m);
    case SDX_KEY: /* inside a BSON array held as a map: dropped */
        if (m->nkeyless && m->keyless[m->nkeyless - 1] == m->depth && !m->ntags) return SDX_OK;
        return item(m, ev);
    default: return item(m, ev);
    }
}

sdx_err sdx_map_to_json_finish(sdx_map_to_json *m) {
    if (m->ntags || m->collecting) fail(m, SDX_ERR_USAGE);
    sdx_err e = sdx_sink_finish(m->out);
    if (e && !m->err) m->err = e;
    sdx_map_scratch_free(&m->frac, &m->alloc);
    sdx_map_scratch_free(&m->text, &m->alloc);
    sdx_map_scratch_free(&m->limbs, &m->alloc);
    if (m->wraps) m->alloc.free(m->alloc.ctx, m->wraps);
    if (m->keyless) m->alloc.free(m->alloc.ctx, m->keyless);
    m->wraps = m->keyless = NULL;
    m->nwraps = m->capwraps = m->nkeyless = m->capkeyless = 0;
    m->ntags = 0;
    m->collecting = 0;
    return m->err;
}

static sdx_err sink_put(void *ctx, const sdx_event *ev) { return sdx_map_to_json_put(ctx, ev); }
static sdx_err sink_finish(void *ctx) { return sdx_map_to_json_finish(ctx); }
static const sdx_sink_vt to_json_vt = {sink_put, sink_finish};

sdx_sink sdx_map_to_json_sink(sdx_map_to_json *m) {
    sdx_sink s = {&to_json_vt, m};
    return s;
}
