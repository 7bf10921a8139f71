/*
 * Reference UBJSON codec (ubjson.org, Draft 12).
 *
 * Encoder, plain form (no $ type, no # count: containers end with ']' and
 * '}'): integers with the first marker of i (int8), U (uint8), I (int16),
 * l (int32), L (int64) whose range holds them; doubles as D (float64);
 * strings as S with the length as the smallest integer; keys as the length
 * and the bytes; Z, T, F. Integers above INT64_MAX cannot be written (NULL;
 * bt_adapt turns them into doubles). All numbers big-endian.
 *
 * Decoder: every Draft 12 value: Z, T, F, the five integers, d (float32,
 * widened exactly), D, H (high-precision: its text must be a JSON number
 * and is absorbed with the JSON decoder's number rules), C (a char <= 127,
 * absorbed as a one-byte string), S; arrays and objects in plain form or
 * optimized with # count or $ type and # count ($ must be followed by #;
 * the type may be any value marker, containers included, but not N).
 * Lengths and counts are integers of any of the five markers and must not
 * be negative. The no-op N is skipped where a container expects its next
 * element (value, key, or end); it is not counted by # and may not stand
 * as the root (it "can only occur as elements of a container").
 * Strings and keys must be UTF-8. A count larger than the bytes left is an
 * error at once; a typed container of Z, T or F (whose elements take no
 * bytes) may declare at most REF_UBJSON_MAX_EMPTY elements.
 */
#include "ref_internal.h"

#define REF_UBJSON_MAX_EMPTY ((uint64_t)1 << 24)

/* ---- encoder ------------------------------------------------------------- */

static void enc_int(rbuf *b, int64_t i) {
    if (i >= INT8_MIN && i <= INT8_MAX) rbuf_byte(b, 'i'), rbuf_be(b, (uint64_t)i, 1);
    else if (i >= 0 && i <= UINT8_MAX) rbuf_byte(b, 'U'), rbuf_be(b, (uint64_t)i, 1);
    else if (i >= INT16_MIN && i <= INT16_MAX) rbuf_byte(b, 'I'), rbuf_be(b, (uint64_t)i, 2);
    else if (i >= INT32_MIN && i <= INT32_MAX) rbuf_byte(b, 'l'), rbuf_be(b, (uint64_t)i, 4);
    else rbuf_byte(b, 'L'), rbuf_be(b, (uint64_t)i, 8);
}

static void enc_len(rbuf *b, size_t n) {
    if ((uint64_t)n > (uint64_t)INT64_MAX) rbuf_fail(b);
    else enc_int(b, (int64_t)n);
}

static void enc_value(rbuf *b, const bt_node *n, unsigned depth) {
    if (b->failed) return;
    switch (n->type) {
    case BT_NULL: rbuf_byte(b, 'Z'); break;
    case BT_BOOL: rbuf_byte(b, n->v.b ? 'T' : 'F'); break;
    case BT_INT: enc_int(b, n->v.i); break;
    case BT_UINT:
        if (n->v.u > (uint64_t)INT64_MAX) rbuf_fail(b);
        else enc_int(b, (int64_t)n->v.u);
        break;
    case BT_DOUBLE:
        rbuf_byte(b, 'D');
        rbuf_be(b, ref_double_bits(n->v.d), 8);
        break;
    case BT_STR:
        rbuf_byte(b, 'S');
        enc_len(b, n->v.str.len);
        rbuf_put(b, n->v.str.ptr, n->v.str.len);
        break;
    case BT_ARRAY:
    case BT_MAP: {
        int map = n->type == BT_MAP;
        if (depth >= REF_MAX_DEPTH) {
            rbuf_fail(b);
            return;
        }
        rbuf_byte(b, map ? '{' : '[');
        for (size_t i = 0; i < n->v.c.count; i++) {
            if (map) {
                const bt_node *k = &n->v.c.items[2 * i];
                enc_len(b, k->v.str.len);
                rbuf_put(b, k->v.str.ptr, k->v.str.len);
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

char *ref_ubjson_encode(const bt_node *root, size_t *len) {
    rbuf b = {0};
    enc_value(&b, root, 0);
    return rbuf_finish(&b, len);
}

/* ---- decoder ------------------------------------------------------------- */

static int int_width(unsigned m) {
    switch (m) {
    case 'i': case 'U': return 1;
    case 'I': return 2;
    case 'l': return 4;
    case 'L': return 8;
    default: return 0;
    }
}

/* The payload of integer marker m at pos. */
static int read_int(rdec *d, unsigned m, int64_t *out) {
    int w = int_width(m);
    if (rdec_need(d, (size_t)w)) return -1;
    uint64_t v = ref_load_be(d->p + d->pos, w);
    d->pos += (size_t)w;
    if (m != 'U' && w < 8 && (v >> (8 * w - 1) & 1)) v |= ~(uint64_t)0 << (8 * w); /* sign-extend */
    *out = (int64_t)v;
    return 0;
}

/* A length or count: an integer with its marker, >= 0. */
static int read_len(rdec *d, uint64_t *n) {
    size_t at = d->pos;
    if (rdec_need(d, 1)) return -1;
    unsigned m = d->p[d->pos++];
    if (!int_width(m)) return rdec_fail(d, at, "a length must be an integer (marker 0x%02x)", m);
    int64_t v = 0;
    if (read_int(d, m, &v)) return -1;
    if (v < 0) return rdec_fail(d, at, "negative length %lld", (long long)v);
    *n = (uint64_t)v;
    return 0;
}

/* The bytes of a string or key (a length, then the bytes). */
static int read_bytes(rdec *d, const unsigned char **p, size_t *n) {
    size_t at = d->pos;
    uint64_t len = 0;
    if (read_len(d, &len)) return -1;
    if (len > d->len - d->pos)
        return rdec_fail(d, at, "length %llu exceeds the %zu bytes left", (unsigned long long)len, d->len - d->pos);
    *p = d->p + d->pos;
    *n = (size_t)len;
    d->pos += (size_t)len;
    return 0;
}

/* The next marker of a container's element (value, key or end), no-ops
 * skipped. */
static int next_marker(rdec *d, unsigned *m) {
    for (;;) {
        if (rdec_need(d, 1)) return -1;
        *m = d->p[d->pos];
        if (*m != 'N') return 0;
        d->pos++;
    }
}

static int dec_body(rdec *d, unsigned m, size_t at);

static int dec_key(rdec *d) {
    size_t at = d->pos;
    const unsigned char *p = NULL;
    size_t n = 0;
    if (read_bytes(d, &p, &n)) return -1;
    return ref_text(d, p, n, 1, at);
}

static int is_value_marker(unsigned m) {
    switch (m) {
    case 'Z': case 'T': case 'F': case 'i': case 'U': case 'I': case 'l': case 'L':
    case 'd': case 'D': case 'H': case 'C': case 'S': case '[': case '{': return 1;
    default: return 0;
    }
}

/* A container whose opening marker ('[' or '{') is just before pos. */
static int dec_container(rdec *d, int map, size_t at) {
    if (rdec_enter(d)) return -1;
    unsigned type = 0;
    uint64_t count = 0;
    int counted = 0;
    if (d->pos < d->len && d->p[d->pos] == '$') {
        size_t tat = d->pos++;
        if (rdec_need(d, 1)) return -1;
        type = d->p[d->pos++];
        if (!is_value_marker(type)) return rdec_fail(d, tat, "invalid container type marker 0x%02x", type);
        if (d->pos >= d->len || d->p[d->pos] != '#') return rdec_fail(d, d->pos, "'$' type must be followed by a '#' count");
    }
    if (d->pos < d->len && d->p[d->pos] == '#') {
        size_t cat = d->pos++;
        if (read_len(d, &count)) return -1;
        counted = 1;
        int empty = type == 'Z' || type == 'T' || type == 'F';
        uint64_t left = d->len - d->pos;
        if (empty ? (count > REF_UBJSON_MAX_EMPTY || (map && count > left)) : count > left)
            return rdec_fail(d, cat, "count %llu is more than the input can hold", (unsigned long long)count);
    }
    rdec_begin(d, map);
    if (counted) {
        for (uint64_t i = 0; i < count; i++) {
            if (map) {
                unsigned m;
                if (!type && next_marker(d, &m)) return -1;
                if (dec_key(d)) return -1;
            }
            size_t vat = d->pos;
            unsigned m = type;
            if (!type) {
                if (next_marker(d, &m)) return -1;
                vat = d->pos++;
            }
            if (dec_body(d, m, vat)) return -1;
        }
    } else {
        unsigned close = map ? '}' : ']';
        for (;;) {
            unsigned m;
            if (next_marker(d, &m)) return -1;
            if (m == close) {
                d->pos++;
                break;
            }
            if (map) {
                if (dec_key(d)) return -1;
                if (next_marker(d, &m)) return -1;
            }
            size_t vat = d->pos++;
            if (dec_body(d, m, vat)) return -1;
        }
    }
    rdec_end(d);
    rdec_leave(d);
    (void)at;
    return 0;
}

/* The value of marker m (at offset at); its payload starts at pos. */
static int dec_body(rdec *d, unsigned m, size_t at) {
    int64_t i = 0;
    uint64_t u;
    const unsigned char *p = NULL;
    size_t n = 0;
    switch (m) {
    case 'Z': sbh_null(d->h); return 0;
    case 'T': sbh_bool(d->h, 1); return 0;
    case 'F': sbh_bool(d->h, 0); return 0;
    case 'i': case 'U': case 'I': case 'l': case 'L':
        if (read_int(d, m, &i)) return -1;
        sbh_int(d->h, i);
        return 0;
    case 'd':
        if (rdec_need(d, 4)) return -1;
        u = ref_load_be(d->p + d->pos, 4);
        d->pos += 4;
        sbh_double(d->h, ref_double_from_binary32((uint32_t)u));
        return 0;
    case 'D':
        if (rdec_need(d, 8)) return -1;
        u = ref_load_be(d->p + d->pos, 8);
        d->pos += 8;
        sbh_double(d->h, ref_double_from_bits(u));
        return 0;
    case 'H':
        if (read_bytes(d, &p, &n)) return -1;
        return ref_json_number(d, (const char *)p, n, (size_t)(p - d->p));
    case 'C':
        if (rdec_need(d, 1)) return -1;
        if (d->p[d->pos] > 127) return rdec_fail(d, at, "char 0x%02x above 127", d->p[d->pos]);
        sbh_str(d->h, (const char *)d->p + d->pos, 1);
        d->pos++;
        return 0;
    case 'S':
        if (read_bytes(d, &p, &n)) return -1;
        return ref_text(d, p, n, 0, (size_t)(p - d->p));
    case '[': return dec_container(d, 0, at);
    case '{': return dec_container(d, 1, at);
    case 'N': return rdec_fail(d, at, "no-op outside a container");
    default: return rdec_fail(d, at, "invalid marker 0x%02x", m);
    }
}

int ref_ubjson_decode(rdec *d) {
    if (rdec_need(d, 1)) return -1;
    size_t at = d->pos++;
    return dec_body(d, d->p[at], at);
}
