/*
 * Reference CBOR codec (RFC 8949).
 *
 * Encoder: preferred serialization of arguments (the shortest of the
 * immediate form, 1, 2, 4 or 8 bytes), definite lengths only; integers as
 * major types 0 and 1, strings as text strings (major 3), doubles always
 * as float64 (0xfb: the benchmark's data stays binary64, never shortened to
 * float16/32), false/true/null as simple values 20/21/22.
 *
 * Decoder: any well-formed encoding of the data model the hash knows:
 *   - arguments in any width (non-preferred forms accepted), definite or
 *     indefinite lengths for strings (chunks must be definite strings of
 *     the same major type; text chunks each valid UTF-8), arrays and maps;
 *   - integers: major 0 hashed as uint64, major 1 as int64; a negative
 *     integer below INT64_MIN cannot be hashed and is an error;
 *   - float16, float32 and float64, widened exactly to double;
 *   - false, true, null; `undefined` (23), other simple values, the
 *     reserved additional information 28-30 and a stray break are errors;
 *   - tags (the hash has no tag, so a tag that would change a value's
 *     meaning is refused): tag 55799 (self-described CBOR) is skipped;
 *     tags 2 and 3 (bignums) are accepted when the value fits the 64-bit
 *     integer range and hashed as that integer (a bignum is another valid
 *     encoding of it), otherwise an error; every other tag is an error.
 * A text-string map key is absorbed as a key (sbh_key); a key of any other
 * type as that value. A declared count larger than the bytes left is an
 * error at once.
 */
#include "ref_internal.h"

/* ---- encoder ------------------------------------------------------------- */

static void enc_head(rbuf *b, unsigned major, uint64_t arg) {
    unsigned m = major << 5;
    if (arg < 24) rbuf_byte(b, m | (unsigned)arg);
    else if (arg <= 0xFF) rbuf_byte(b, m | 24), rbuf_be(b, arg, 1);
    else if (arg <= 0xFFFF) rbuf_byte(b, m | 25), rbuf_be(b, arg, 2);
    else if (arg <= 0xFFFFFFFFu) rbuf_byte(b, m | 26), rbuf_be(b, arg, 4);
    else rbuf_byte(b, m | 27), rbuf_be(b, arg, 8);
}

static void enc_value(rbuf *b, const bt_node *n, unsigned depth) {
    if (b->failed) return;
    switch (n->type) {
    case BT_NULL: rbuf_byte(b, 0xf6); break;
    case BT_BOOL: rbuf_byte(b, n->v.b ? 0xf5 : 0xf4); break;
    case BT_INT:
        if (n->v.i >= 0) enc_head(b, 0, (uint64_t)n->v.i);
        else enc_head(b, 1, (uint64_t)(-(n->v.i + 1))); /* -1 - arg */
        break;
    case BT_UINT: enc_head(b, 0, n->v.u); break;
    case BT_DOUBLE:
        rbuf_byte(b, 0xfb);
        rbuf_be(b, ref_double_bits(n->v.d), 8);
        break;
    case BT_STR:
        enc_head(b, 3, n->v.str.len);
        rbuf_put(b, n->v.str.ptr, n->v.str.len);
        break;
    case BT_ARRAY:
        if (depth >= REF_MAX_DEPTH) {
            rbuf_fail(b);
            return;
        }
        enc_head(b, 4, n->v.c.count);
        for (size_t i = 0; i < n->v.c.count; i++) enc_value(b, &n->v.c.items[i], depth + 1);
        break;
    case BT_MAP:
        if (depth >= REF_MAX_DEPTH) {
            rbuf_fail(b);
            return;
        }
        enc_head(b, 5, n->v.c.count);
        for (size_t i = 0; i < n->v.c.count; i++) {
            const bt_node *k = &n->v.c.items[2 * i];
            enc_head(b, 3, k->v.str.len);
            rbuf_put(b, k->v.str.ptr, k->v.str.len);
            enc_value(b, &n->v.c.items[2 * i + 1], depth + 1);
        }
        break;
    default: rbuf_fail(b);
    }
}

char *ref_cbor_encode(const bt_node *root, size_t *len) {
    rbuf b = {0};
    enc_value(&b, root, 0);
    return rbuf_finish(&b, len);
}

/* ---- decoder ------------------------------------------------------------- */

#define INDEFINITE 31

typedef struct head {
    size_t at;     /* offset of the initial byte */
    unsigned major;
    unsigned info; /* additional information, 0-31 */
    uint64_t arg;  /* the argument (not for info 31) */
} head;

static int read_head(rdec *d, head *h) {
    h->at = d->pos;
    if (rdec_need(d, 1)) return -1;
    unsigned b = d->p[d->pos++];
    h->major = b >> 5;
    h->info = b & 31;
    if (h->info < 24) {
        h->arg = h->info;
    } else if (h->info <= 27) {
        int n = 1 << (h->info - 24);
        if (rdec_need(d, (size_t)n)) return -1;
        h->arg = ref_load_be(d->p + d->pos, n);
        d->pos += (size_t)n;
    } else if (h->info < INDEFINITE) {
        return rdec_fail(d, h->at, "reserved additional information %u", h->info);
    } else if (h->major == 0 || h->major == 1 || h->major == 6) {
        return rdec_fail(d, h->at, "indefinite length is not allowed for major type %u", h->major);
    }
    return 0;
}

static int is_break(rdec *d) { return d->pos < d->len && d->p[d->pos] == 0xff; }

/* The bytes of a byte or text string whose head is h: a pointer into the
 * input (definite) or into d->scratch (indefinite, chunks concatenated). */
static int string_bytes(rdec *d, const head *h, const unsigned char **p, size_t *n) {
    if (h->info != INDEFINITE) {
        if (h->arg > d->len - d->pos)
            return rdec_fail(d, h->at, "string length %llu exceeds the %zu bytes left", (unsigned long long)h->arg,
                             d->len - d->pos);
        *p = d->p + d->pos;
        *n = (size_t)h->arg;
        d->pos += (size_t)h->arg;
        if (h->major == 3) {
            size_t bad;
            if (!ref_utf8_valid(*p, *n, &bad)) return rdec_fail(d, h->at + bad, "invalid UTF-8 in a text string");
        }
        return 0;
    }
    rbuf *s = &d->scratch;
    s->len = 0;
    for (;;) {
        if (rdec_need(d, 1)) return -1;
        if (is_break(d)) {
            d->pos++;
            break;
        }
        head c;
        if (read_head(d, &c)) return -1;
        if (c.major != h->major || c.info == INDEFINITE)
            return rdec_fail(d, c.at, "a chunk of an indefinite-length string must be a definite string of the same type");
        if (c.arg > d->len - d->pos) return rdec_fail(d, c.at, "chunk length exceeds the bytes left");
        const unsigned char *cp = d->p + d->pos;
        size_t bad;
        if (h->major == 3 && !ref_utf8_valid(cp, (size_t)c.arg, &bad))
            return rdec_fail(d, d->pos + bad, "invalid UTF-8 in a text string chunk");
        rbuf_put(s, cp, (size_t)c.arg);
        d->pos += (size_t)c.arg;
    }
    if (s->failed) return rdec_fail(d, h->at, "out of memory");
    *p = (const unsigned char *)s->p;
    *n = s->len;
    return 0;
}

static int dec_value(rdec *d, int as_key);

static int dec_container(rdec *d, const head *h) {
    int map = h->major == 5;
    if (rdec_enter(d)) return -1;
    rdec_begin(d, map);
    if (h->info == INDEFINITE) {
        for (;;) {
            if (rdec_need(d, 1)) return -1;
            if (is_break(d)) {
                d->pos++;
                break;
            }
            if (map && dec_value(d, 1)) return -1;
            if (map && is_break(d)) return rdec_fail(d, d->pos, "break between a map key and its value");
            if (dec_value(d, 0)) return -1;
        }
    } else {
        uint64_t left = d->len - d->pos;
        if (h->arg > left || (map && h->arg > left / 2))
            return rdec_fail(d, h->at, "%s of %llu %s cannot fit in the %llu bytes left", map ? "map" : "array",
                             (unsigned long long)h->arg, map ? "entries" : "elements", (unsigned long long)left);
        for (uint64_t i = 0; i < h->arg; i++) {
            if (map && dec_value(d, 1)) return -1;
            if (dec_value(d, 0)) return -1;
        }
    }
    rdec_end(d);
    rdec_leave(d);
    return 0;
}

/* Tags 2 and 3: the byte string that follows, as a 64-bit integer. */
static int dec_bignum(rdec *d, const head *tag) {
    head h = {0, 0, 0, 0};
    if (read_head(d, &h)) return -1;
    if (h.major != 2) return rdec_fail(d, h.at, "a bignum tag must be followed by a byte string");
    const unsigned char *p = NULL;
    size_t n = 0;
    if (string_bytes(d, &h, &p, &n)) return -1;
    while (n && *p == 0) p++, n--; /* leading zeros */
    if (n > 8) return rdec_fail(d, tag->at, "bignum beyond 64 bits");
    uint64_t v = ref_load_be(p, (int)n);
    if (tag->arg == 2) {
        sbh_uint(d->h, v);
    } else {
        if (v > (uint64_t)INT64_MAX) return rdec_fail(d, tag->at, "negative bignum below INT64_MIN");
        sbh_int(d->h, -(int64_t)v - 1);
    }
    return 0;
}

static int dec_value(rdec *d, int as_key) {
    head h = {0, 0, 0, 0};
    if (read_head(d, &h)) return -1;
    switch (h.major) {
    case 0: sbh_uint(d->h, h.arg); return 0;
    case 1:
        if (h.arg > (uint64_t)INT64_MAX) return rdec_fail(d, h.at, "negative integer below INT64_MIN");
        sbh_int(d->h, -(int64_t)h.arg - 1);
        return 0;
    case 2:
    case 3: {
        const unsigned char *p = NULL;
        size_t n = 0;
        if (string_bytes(d, &h, &p, &n)) return -1;
        if (h.major == 2) sbh_bin(d->h, p, n);
        else if (as_key) rdec_key(d, (const char *)p, n);
        else sbh_str(d->h, (const char *)p, n);
        return 0;
    }
    case 4:
    case 5: return dec_container(d, &h);
    case 6:
        if (h.arg == 55799) {
            if (rdec_enter(d)) return -1;
            int rc = dec_value(d, as_key);
            rdec_leave(d);
            return rc;
        }
        if (h.arg == 2 || h.arg == 3) return dec_bignum(d, &h);
        return rdec_fail(d, h.at, "unsupported tag %llu", (unsigned long long)h.arg);
    default: /* 7 */
        switch (h.info) {
        case 20: sbh_bool(d->h, 0); return 0;
        case 21: sbh_bool(d->h, 1); return 0;
        case 22: sbh_null(d->h); return 0;
        case 23: return rdec_fail(d, h.at, "'undefined' is not supported");
        case 24:
            if (h.arg < 32) return rdec_fail(d, h.at, "simple value %u in two bytes is not well-formed", (unsigned)h.arg);
            return rdec_fail(d, h.at, "unsupported simple value %u", (unsigned)h.arg);
        case 25: sbh_double(d->h, ref_double_from_binary16((uint16_t)h.arg)); return 0;
        case 26: sbh_double(d->h, ref_double_from_binary32((uint32_t)h.arg)); return 0;
        case 27: sbh_double(d->h, ref_double_from_bits(h.arg)); return 0;
        case INDEFINITE: return rdec_fail(d, h.at, "unexpected break");
        default: return rdec_fail(d, h.at, "unsupported simple value %u", h.info);
        }
    }
}

int ref_cbor_decode(rdec *d) { return dec_value(d, 0); }
