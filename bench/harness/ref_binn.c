/*
 * Reference Binn codec (github.com/liteserver/binn spec.md).
 *
 * A value is [type][size][count][data]; all numbers big-endian. The size
 * and count parameters take 1 byte for values up to 127, else 4 bytes with
 * the top bit set (so at most 0x7FFFFFFF); readers accept the 4-byte form
 * for any value.
 *
 * Encoder: null 0x00, true 0x01, false 0x02; integers >= 0 as the smallest
 * of uint8 0x20, uint16 0x40, uint32 0x60, uint64 0x80, negative ones as
 * the smallest of int8 0x21, int16 0x41, int32 0x61, int64 0x81 (as the
 * spec's examples do: 123 -> uint8, -456 -> int16, 789 -> uint16); doubles
 * as 0x82; strings as text 0xA0: [size = byte length without the
 * terminator][bytes][0x00]; arrays as lists 0xE0 and maps as objects 0xE2:
 * [type][size][count] then the items, an object's keys each as one length
 * byte and the bytes (no terminator, at most 255 bytes). A container's
 * size is the whole container, its own header included: the 1-byte form
 * is used when that total, counted with a 1-byte size, is at most 127
 * (a 127-byte body plus header never yields a 1-byte size of 128).
 * Not representable (NULL): a key over 255 bytes, a string or container
 * over 0x7FFFFFFF bytes.
 *
 * Decoder: the spec's types: null, true, false, the eight integers, float
 * (0x62, widened exactly), double, text 0xA0 (must end with 0x00 after its
 * size, must be UTF-8), blob 0xC0 (sbh_bin, size as for strings), list
 * 0xE0, map 0xE1 (int32 keys, absorbed as integers) and object 0xE2
 * (string keys, sbh_key). A container's declared size must be exactly the
 * bytes its header and items take, its count the number of items. Every
 * other type (the other string sub-types DateTime, Date, Time, DecimalStr,
 * user-defined and two-byte types) is an error: it has no plain meaning in
 * the value hash.
 */
#include "ref_internal.h"

#define BINN_MAX 0x7FFFFFFFu

/* ---- encoder ------------------------------------------------------------- */

static size_t param_len(size_t v) { return v <= 127 ? 1 : 4; }

static void put_param(rbuf *b, size_t v) {
    if (v > BINN_MAX) rbuf_fail(b);
    else if (v <= 127) rbuf_byte(b, (unsigned)v);
    else rbuf_be(b, (uint64_t)v | 0x80000000u, 4);
}

/* Type byte and data width of an integer. */
static void int_type(const bt_node *n, unsigned *type, int *width) {
    uint64_t u = 0;
    int neg = n->type == BT_INT && n->v.i < 0;
    if (neg) {
        int64_t i = n->v.i;
        if (i >= INT8_MIN) *type = 0x21, *width = 1;
        else if (i >= INT16_MIN) *type = 0x41, *width = 2;
        else if (i >= INT32_MIN) *type = 0x61, *width = 4;
        else *type = 0x81, *width = 8;
        return;
    }
    u = n->type == BT_INT ? (uint64_t)n->v.i : n->v.u;
    if (u <= 0xFF) *type = 0x20, *width = 1;
    else if (u <= 0xFFFF) *type = 0x40, *width = 2;
    else if (u <= 0xFFFFFFFFu) *type = 0x60, *width = 4;
    else *type = 0x80, *width = 8;
}

static size_t value_size(const bt_node *n);

/* A container's items (keys included), without its header. */
static size_t body_size(const bt_node *n) {
    size_t total = 0;
    for (size_t i = 0; i < n->v.c.count; i++) {
        if (n->type == BT_MAP) {
            total += 1 + n->v.c.items[2 * i].v.str.len;
            total += value_size(&n->v.c.items[2 * i + 1]);
        } else {
            total += value_size(&n->v.c.items[i]);
        }
    }
    return total;
}

/* A container's total size from its body size and count. */
static size_t container_size(size_t body, size_t count) {
    size_t inner = 1 + param_len(count) + body; /* type, count, items */
    return inner + 1 <= 127 ? inner + 1 : inner + 4;
}

/* Bytes a value takes (saturating sizes are caught when written). */
static size_t value_size(const bt_node *n) {
    unsigned type;
    int width;
    switch (n->type) {
    case BT_NULL:
    case BT_BOOL: return 1;
    case BT_INT:
    case BT_UINT: int_type(n, &type, &width); return 1 + (size_t)width;
    case BT_DOUBLE: return 9;
    case BT_STR: return 1 + param_len(n->v.str.len) + n->v.str.len + 1;
    default: return container_size(body_size(n), n->v.c.count);
    }
}

static void enc_value(rbuf *b, const bt_node *n, unsigned depth) {
    unsigned type;
    int width;
    if (b->failed) return;
    switch (n->type) {
    case BT_NULL: rbuf_byte(b, 0x00); break;
    case BT_BOOL: rbuf_byte(b, n->v.b ? 0x01 : 0x02); break;
    case BT_INT:
    case BT_UINT:
        int_type(n, &type, &width);
        rbuf_byte(b, type);
        rbuf_be(b, n->type == BT_INT ? (uint64_t)n->v.i : n->v.u, width);
        break;
    case BT_DOUBLE:
        rbuf_byte(b, 0x82);
        rbuf_be(b, ref_double_bits(n->v.d), 8);
        break;
    case BT_STR:
        rbuf_byte(b, 0xA0);
        put_param(b, n->v.str.len);
        rbuf_put(b, n->v.str.ptr, n->v.str.len);
        rbuf_byte(b, 0);
        break;
    case BT_ARRAY:
    case BT_MAP: {
        int map = n->type == BT_MAP;
        if (depth >= REF_MAX_DEPTH) {
            rbuf_fail(b);
            return;
        }
        size_t start = b->len;
        size_t total = container_size(body_size(n), n->v.c.count);
        rbuf_byte(b, map ? 0xE2 : 0xE0);
        put_param(b, total);
        put_param(b, n->v.c.count);
        for (size_t i = 0; i < n->v.c.count; i++) {
            if (map) {
                const bt_node *k = &n->v.c.items[2 * i];
                if (k->v.str.len > 255) {
                    rbuf_fail(b);
                    return;
                }
                rbuf_byte(b, (unsigned)k->v.str.len);
                rbuf_put(b, k->v.str.ptr, k->v.str.len);
                enc_value(b, &n->v.c.items[2 * i + 1], depth + 1);
            } else {
                enc_value(b, &n->v.c.items[i], depth + 1);
            }
        }
        if (!b->failed && b->len - start != total) rbuf_fail(b); /* cannot happen: sizes agree */
        break;
    }
    default: rbuf_fail(b);
    }
}

char *ref_binn_encode(const bt_node *root, size_t *len) {
    rbuf b = {0};
    enc_value(&b, root, 0);
    return rbuf_finish(&b, len);
}

/* ---- decoder ------------------------------------------------------------- */

/* A size or count parameter. */
static int read_param(rdec *d, uint64_t *v) {
    if (rdec_need(d, 1)) return -1;
    if (d->p[d->pos] & 0x80) {
        if (rdec_need(d, 4)) return -1;
        *v = ref_load_be(d->p + d->pos, 4) & BINN_MAX;
        d->pos += 4;
    } else {
        *v = d->p[d->pos++];
    }
    return 0;
}

static int dec_value(rdec *d);

static int dec_container(rdec *d, unsigned type, size_t at) {
    uint64_t size = 0, count = 0;
    if (rdec_enter(d)) return -1;
    if (read_param(d, &size) || read_param(d, &count)) return -1;
    size_t header = d->pos - at;
    if (size < header) return rdec_fail(d, at, "container size %llu is smaller than its header", (unsigned long long)size);
    if (size > d->len - at)
        return rdec_fail(d, at, "container size %llu exceeds the %zu bytes left", (unsigned long long)size, d->len - at);
    size_t end = at + (size_t)size;
    /* each item takes at least 1 byte (list), 2 (object: key length, type), 5 (map: key, type) */
    uint64_t min_item = type == 0xE0 ? 1 : type == 0xE2 ? 2 : 5;
    if (count > (end - d->pos) / min_item)
        return rdec_fail(d, at, "count %llu cannot fit in the container's %zu bytes", (unsigned long long)count, end - d->pos);
    size_t outer_len = d->len;
    d->len = end; /* read nothing beyond the declared end */
    rdec_begin(d, type != 0xE0);
    for (uint64_t i = 0; i < count; i++) {
        if (type == 0xE2) {
            if (rdec_need(d, 1)) return -1;
            size_t kat = d->pos;
            size_t klen = d->p[d->pos++];
            if (rdec_need(d, klen)) return -1;
            if (ref_text(d, d->p + d->pos, klen, 1, kat + 1)) return -1;
            d->pos += klen;
        } else if (type == 0xE1) {
            if (rdec_need(d, 4)) return -1;
            uint32_t k = (uint32_t)ref_load_be(d->p + d->pos, 4);
            d->pos += 4;
            sbh_int(d->h, k <= INT32_MAX ? (int64_t)k : (int64_t)k - 0x100000000ll);
        }
        if (dec_value(d)) return -1;
    }
    if (d->pos != end) return rdec_fail(d, d->pos, "container ends %zu bytes before its declared size", end - d->pos);
    d->len = outer_len;
    rdec_end(d);
    rdec_leave(d);
    return 0;
}

static int dec_value(rdec *d) {
    size_t at = d->pos;
    if (rdec_need(d, 1)) return -1;
    unsigned type = d->p[d->pos++];
    uint64_t v, n = 0;
    int width = 0;
    switch (type) {
    case 0x00: sbh_null(d->h); return 0;
    case 0x01: sbh_bool(d->h, 1); return 0;
    case 0x02: sbh_bool(d->h, 0); return 0;
    case 0x20: case 0x21: width = 1; break;
    case 0x40: case 0x41: width = 2; break;
    case 0x60: case 0x61: case 0x62: width = 4; break;
    case 0x80: case 0x81: case 0x82: width = 8; break;
    case 0xA0:
    case 0xC0:
        if (read_param(d, &n)) return -1;
        if (n > d->len - d->pos || (type == 0xA0 && n == d->len - d->pos))
            return rdec_fail(d, at, "%s size %llu exceeds the bytes left", type == 0xA0 ? "string" : "blob",
                             (unsigned long long)n);
        if (type == 0xC0) {
            sbh_bin(d->h, d->p + d->pos, (size_t)n);
            d->pos += (size_t)n;
            return 0;
        }
        if (d->p[d->pos + (size_t)n] != 0) return rdec_fail(d, d->pos + (size_t)n, "string not terminated by 0x00");
        if (ref_text(d, d->p + d->pos, (size_t)n, 0, d->pos)) return -1;
        d->pos += (size_t)n + 1;
        return 0;
    case 0xE0:
    case 0xE1:
    case 0xE2: return dec_container(d, type, at);
    default: return rdec_fail(d, at, "type 0x%02x is not supported", type);
    }
    if (rdec_need(d, (size_t)width)) return -1;
    v = ref_load_be(d->p + d->pos, width);
    d->pos += (size_t)width;
    if (type == 0x62) {
        sbh_double(d->h, ref_double_from_binary32((uint32_t)v));
    } else if (type == 0x82) {
        sbh_double(d->h, ref_double_from_bits(v));
    } else if (type & 1) { /* signed */
        if (width < 8 && (v >> (8 * width - 1) & 1)) v |= ~(uint64_t)0 << (8 * width);
        sbh_int(d->h, (int64_t)v);
    } else {
        sbh_uint(d->h, v);
    }
    return 0;
}

int ref_binn_decode(rdec *d) { return dec_value(d); }
