/*
 * Reference MessagePack codec (github.com/msgpack/msgpack spec.md).
 *
 * Encoder, smallest forms: integers >= 0 as positive fixint / uint 8, 16,
 * 32, 64, negative ones as negative fixint / int 8, 16, 32, 64; doubles as
 * float 64; strings as fixstr / str 8, 16, 32; arrays and maps as fix / 16 /
 * 32. All multi-byte numbers big-endian.
 *
 * Decoder: every type of the spec except ext (fixext 1-16, ext 8/16/32),
 * which has no meaning in the value hash and is an error, as is the
 * never-used 0xc1. float 32 is widened to double exactly; bin 8/16/32 are
 * binary values (sbh_bin). str must be UTF-8. A map key that is a string
 * is absorbed as a key (sbh_key); a key of any other type as that value.
 * A declared length or count larger than the bytes left is an error at
 * once (each element takes at least one byte).
 */
#include "ref_internal.h"

/* ---- encoder ------------------------------------------------------------- */

/* A length or count with the fix form (if fixmax > 0) or one of 8/16/32. */
static void enc_len(rbuf *b, size_t n, unsigned fixbase, size_t fixmax, int has8, unsigned base8) {
    if (n <= fixmax && fixmax) {
        rbuf_byte(b, fixbase | (unsigned)n);
    } else if (has8 && n <= 0xFF) {
        rbuf_byte(b, base8);
        rbuf_be(b, n, 1);
    } else if (n <= 0xFFFF) {
        rbuf_byte(b, base8 + (has8 ? 1u : 0u));
        rbuf_be(b, n, 2);
    } else if ((uint64_t)n <= 0xFFFFFFFFu) {
        rbuf_byte(b, base8 + (has8 ? 2u : 1u));
        rbuf_be(b, n, 4);
    } else {
        rbuf_fail(b);
    }
}

static void enc_uint(rbuf *b, uint64_t u) {
    if (u <= 0x7F) rbuf_byte(b, (unsigned)u);
    else if (u <= 0xFF) rbuf_byte(b, 0xcc), rbuf_be(b, u, 1);
    else if (u <= 0xFFFF) rbuf_byte(b, 0xcd), rbuf_be(b, u, 2);
    else if (u <= 0xFFFFFFFFu) rbuf_byte(b, 0xce), rbuf_be(b, u, 4);
    else rbuf_byte(b, 0xcf), rbuf_be(b, u, 8);
}

static void enc_int(rbuf *b, int64_t i) {
    if (i >= 0) enc_uint(b, (uint64_t)i);
    else if (i >= -32) rbuf_byte(b, (unsigned)(i & 0xFF));
    else if (i >= INT8_MIN) rbuf_byte(b, 0xd0), rbuf_be(b, (uint64_t)i, 1);
    else if (i >= INT16_MIN) rbuf_byte(b, 0xd1), rbuf_be(b, (uint64_t)i, 2);
    else if (i >= INT32_MIN) rbuf_byte(b, 0xd2), rbuf_be(b, (uint64_t)i, 4);
    else rbuf_byte(b, 0xd3), rbuf_be(b, (uint64_t)i, 8);
}

static void enc_str(rbuf *b, const char *p, size_t n) {
    enc_len(b, n, 0xa0, 31, 1, 0xd9);
    rbuf_put(b, p, n);
}

static void enc_value(rbuf *b, const bt_node *n, unsigned depth) {
    if (b->failed) return;
    switch (n->type) {
    case BT_NULL: rbuf_byte(b, 0xc0); break;
    case BT_BOOL: rbuf_byte(b, n->v.b ? 0xc3 : 0xc2); break;
    case BT_INT: enc_int(b, n->v.i); break;
    case BT_UINT: enc_uint(b, n->v.u); break;
    case BT_DOUBLE:
        rbuf_byte(b, 0xcb);
        rbuf_be(b, ref_double_bits(n->v.d), 8);
        break;
    case BT_STR: enc_str(b, n->v.str.ptr, n->v.str.len); break;
    case BT_ARRAY:
        if (depth >= REF_MAX_DEPTH) {
            rbuf_fail(b);
            return;
        }
        enc_len(b, n->v.c.count, 0x90, 15, 0, 0xdc);
        for (size_t i = 0; i < n->v.c.count; i++) enc_value(b, &n->v.c.items[i], depth + 1);
        break;
    case BT_MAP:
        if (depth >= REF_MAX_DEPTH) {
            rbuf_fail(b);
            return;
        }
        enc_len(b, n->v.c.count, 0x80, 15, 0, 0xde);
        for (size_t i = 0; i < n->v.c.count; i++) {
            const bt_node *k = &n->v.c.items[2 * i];
            enc_str(b, k->v.str.ptr, k->v.str.len);
            enc_value(b, &n->v.c.items[2 * i + 1], depth + 1);
        }
        break;
    default: rbuf_fail(b);
    }
}

char *ref_msgpack_encode(const bt_node *root, size_t *len) {
    rbuf b = {0};
    enc_value(&b, root, 0);
    return rbuf_finish(&b, len);
}

/* ---- decoder ------------------------------------------------------------- */

/* An unsigned big-endian number of n bytes at pos. */
static int read_be(rdec *d, int n, uint64_t *v) {
    if (rdec_need(d, (size_t)n)) return -1;
    *v = ref_load_be(d->p + d->pos, n);
    d->pos += (size_t)n;
    return 0;
}

static int sign_extend(uint64_t v, int nbytes, int64_t *out) {
    if (nbytes < 8 && (v >> (8 * nbytes - 1) & 1)) v |= ~(uint64_t)0 << (8 * nbytes);
    *out = (int64_t)v;
    return 0;
}

static int dec_value(rdec *d, int as_key);

static int dec_bytes(rdec *d, uint64_t n, int text, int as_key, size_t at) {
    if (n > d->len - d->pos) return rdec_fail(d, at, "length %llu exceeds the %zu bytes left", (unsigned long long)n, d->len - d->pos);
    const unsigned char *p = d->p + d->pos;
    d->pos += (size_t)n;
    if (text) return ref_text(d, p, (size_t)n, as_key, at);
    sbh_bin(d->h, p, (size_t)n);
    return 0;
}

static int dec_array(rdec *d, uint64_t n, int map, size_t at) {
    if (rdec_enter(d)) return -1;
    uint64_t left = d->len - d->pos;
    if (n > left || (map && 2 * n > left))
        return rdec_fail(d, at, "%s of %llu %s cannot fit in the %llu bytes left", map ? "map" : "array",
                         (unsigned long long)n, map ? "entries" : "elements", (unsigned long long)left);
    rdec_begin(d, map);
    for (uint64_t i = 0; i < n; i++) {
        if (map && dec_value(d, 1)) return -1;
        if (dec_value(d, 0)) return -1;
    }
    rdec_end(d);
    rdec_leave(d);
    return 0;
}

static int dec_value(rdec *d, int as_key) {
    size_t at = d->pos;
    uint64_t v = 0;
    int64_t i = 0;
    if (rdec_need(d, 1)) return -1;
    unsigned t = d->p[d->pos++];
    if (t <= 0x7f) {
        sbh_uint(d->h, t);
        return 0;
    }
    if (t >= 0xe0) {
        sbh_int(d->h, (int64_t)t - 256);
        return 0;
    }
    if (t <= 0x8f) return dec_array(d, t & 0x0f, 1, at);
    if (t <= 0x9f) return dec_array(d, t & 0x0f, 0, at);
    if (t <= 0xbf) return dec_bytes(d, t & 0x1f, 1, as_key, at);
    switch (t) {
    case 0xc0: sbh_null(d->h); return 0;
    case 0xc2: sbh_bool(d->h, 0); return 0;
    case 0xc3: sbh_bool(d->h, 1); return 0;
    case 0xc4: case 0xc5: case 0xc6: /* bin 8, 16, 32 */
        if (read_be(d, 1 << (t - 0xc4), &v)) return -1;
        return dec_bytes(d, v, 0, 0, at);
    case 0xca:
        if (read_be(d, 4, &v)) return -1;
        sbh_double(d->h, ref_double_from_binary32((uint32_t)v));
        return 0;
    case 0xcb:
        if (read_be(d, 8, &v)) return -1;
        sbh_double(d->h, ref_double_from_bits(v));
        return 0;
    case 0xcc: case 0xcd: case 0xce: case 0xcf: /* uint 8, 16, 32, 64 */
        if (read_be(d, 1 << (t - 0xcc), &v)) return -1;
        sbh_uint(d->h, v);
        return 0;
    case 0xd0: case 0xd1: case 0xd2: case 0xd3: /* int 8, 16, 32, 64 */
        if (read_be(d, 1 << (t - 0xd0), &v)) return -1;
        sign_extend(v, 1 << (t - 0xd0), &i);
        sbh_int(d->h, i);
        return 0;
    case 0xd9: case 0xda: case 0xdb: /* str 8, 16, 32 */
        if (read_be(d, 1 << (t - 0xd9), &v)) return -1;
        return dec_bytes(d, v, 1, as_key, at);
    case 0xdc: case 0xdd: /* array 16, 32 */
        if (read_be(d, t == 0xdc ? 2 : 4, &v)) return -1;
        return dec_array(d, v, 0, at);
    case 0xde: case 0xdf: /* map 16, 32 */
        if (read_be(d, t == 0xde ? 2 : 4, &v)) return -1;
        return dec_array(d, v, 1, at);
    case 0xc1: return rdec_fail(d, at, "0xc1 is never used");
    default: return rdec_fail(d, at, "ext type 0x%02x is not supported", t);
    }
}

int ref_msgpack_decode(rdec *d) { return dec_value(d, 0); }
