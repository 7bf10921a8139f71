/*
 * Reference BSON codec (bsonspec.org, version 1.1).
 *
 * Encoder: the root must be a map (bt_adapt makes it one); a document is
 * its int32 total length, its elements and a 0x00. Elements: double 0x01,
 * string 0x02 (int32 length counting the trailing 0x00, bytes, 0x00),
 * document 0x03, array 0x04 (a document with keys "0", "1", ...), boolean
 * 0x08, null 0x0A, int32 0x10 for integers that fit, else int64 0x12. All
 * numbers little-endian. Not representable (NULL): a key containing a 0x00
 * byte, an integer above INT64_MAX (bt_adapt turns those into doubles), a
 * document over INT32_MAX bytes.
 *
 * Decoder: the root is a document, absorbed as a map. Element types:
 * double, string, document, array (absorbed as an array: its keys must be
 * "0", "1", ... in order, and are not hashed), binary of subtype 0x00
 * (sbh_bin), boolean (0x00 or 0x01), null, int32, int64; every other type
 * is an error. Lengths must be consistent: a document ends exactly at its
 * declared length, a string's declared length includes its final 0x00.
 * Keys and strings must be UTF-8.
 */
#include <stdio.h>
#include <string.h>

#include "ref_internal.h"

/* ---- encoder ------------------------------------------------------------- */

static void enc_document(rbuf *b, const bt_node *n, unsigned depth);

static void enc_name(rbuf *b, const char *p, size_t len) {
    if (memchr(p, 0, len)) {
        rbuf_fail(b); /* a cstring cannot hold 0x00 */
        return;
    }
    rbuf_put(b, p, len);
    rbuf_byte(b, 0);
}

static void enc_element(rbuf *b, const char *name, size_t name_len, const bt_node *v, unsigned depth) {
    switch (v->type) {
    case BT_NULL:
        rbuf_byte(b, 0x0A);
        enc_name(b, name, name_len);
        break;
    case BT_BOOL:
        rbuf_byte(b, 0x08);
        enc_name(b, name, name_len);
        rbuf_byte(b, v->v.b ? 1 : 0);
        break;
    case BT_INT:
    case BT_UINT: {
        int64_t i;
        if (v->type == BT_UINT) {
            if (v->v.u > (uint64_t)INT64_MAX) {
                rbuf_fail(b);
                return;
            }
            i = (int64_t)v->v.u;
        } else {
            i = v->v.i;
        }
        int small = i >= INT32_MIN && i <= INT32_MAX;
        rbuf_byte(b, small ? 0x10 : 0x12);
        enc_name(b, name, name_len);
        rbuf_le(b, (uint64_t)i, small ? 4 : 8);
        break;
    }
    case BT_DOUBLE:
        rbuf_byte(b, 0x01);
        enc_name(b, name, name_len);
        rbuf_le(b, ref_double_bits(v->v.d), 8);
        break;
    case BT_STR:
        if (v->v.str.len >= (size_t)INT32_MAX) {
            rbuf_fail(b);
            return;
        }
        rbuf_byte(b, 0x02);
        enc_name(b, name, name_len);
        rbuf_le(b, v->v.str.len + 1, 4);
        rbuf_put(b, v->v.str.ptr, v->v.str.len);
        rbuf_byte(b, 0);
        break;
    case BT_ARRAY:
    case BT_MAP:
        rbuf_byte(b, v->type == BT_MAP ? 0x03 : 0x04);
        enc_name(b, name, name_len);
        enc_document(b, v, depth + 1);
        break;
    default: rbuf_fail(b);
    }
}

/* A map's entries, or an array's elements under the keys "0", "1", ... */
static void enc_document(rbuf *b, const bt_node *n, unsigned depth) {
    if (b->failed) return;
    if (depth >= REF_MAX_DEPTH) {
        rbuf_fail(b);
        return;
    }
    size_t start = b->len;
    rbuf_le(b, 0, 4); /* the length, patched below */
    for (size_t i = 0; i < n->v.c.count && !b->failed; i++) {
        if (n->type == BT_MAP) {
            const bt_node *k = &n->v.c.items[2 * i];
            enc_element(b, k->v.str.ptr, k->v.str.len, &n->v.c.items[2 * i + 1], depth);
        } else {
            char key[24];
            int len = snprintf(key, sizeof key, "%zu", i);
            enc_element(b, key, (size_t)len, &n->v.c.items[i], depth);
        }
    }
    rbuf_byte(b, 0);
    if (b->failed) return;
    size_t total = b->len - start;
    if (total > (size_t)INT32_MAX) {
        rbuf_fail(b);
        return;
    }
    for (int i = 0; i < 4; i++) b->p[start + (size_t)i] = (char)(total >> (8 * i));
}

char *ref_bson_encode(const bt_node *root, size_t *len) {
    rbuf b = {0};
    if (root->type != BT_MAP) rbuf_fail(&b); /* bt_adapt("bson") makes the root a map */
    else enc_document(&b, root, 0);
    return rbuf_finish(&b, len);
}

/* ---- decoder ------------------------------------------------------------- */

static int32_t read_i32(rdec *d) {
    uint32_t u = (uint32_t)ref_load_le(d->p + d->pos, 4);
    d->pos += 4;
    return u <= INT32_MAX ? (int32_t)u : (int32_t)(u - 0x80000000u) + INT32_MIN;
}

/* Is name[0, n) the decimal text of i (no leading zeros)? */
static int is_index(const unsigned char *name, size_t n, uint64_t i) {
    char want[24];
    int len = snprintf(want, sizeof want, "%llu", (unsigned long long)i);
    return (size_t)len == n && memcmp(want, name, n) == 0;
}

static int dec_document(rdec *d, int array) {
    size_t start = d->pos;
    if (rdec_enter(d)) return -1;
    if (rdec_need(d, 4)) return -1;
    int32_t total = read_i32(d);
    if (total < 5) return rdec_fail(d, start, "document length %ld is less than 5", (long)total);
    if ((size_t)total > d->len - start)
        return rdec_fail(d, start, "document length %ld exceeds the %zu bytes left", (long)total, d->len - start);
    size_t outer_len = d->len;
    d->len = start + (size_t)total; /* read nothing beyond the declared end */
    rdec_begin(d, !array);
    for (uint64_t index = 0;; index++) {
        size_t at = d->pos;
        if (rdec_need(d, 1)) return -1;
        unsigned type = d->p[d->pos++];
        if (type == 0) {
            if (d->pos != d->len) return rdec_fail(d, at, "document ends before its declared length");
            break;
        }
        /* the element's name: a cstring */
        const unsigned char *name = d->p + d->pos;
        const unsigned char *nul = memchr(name, 0, d->len - d->pos);
        if (!nul) return rdec_fail(d, d->pos, "unterminated element name");
        size_t name_len = (size_t)(nul - name);
        if (array) {
            if (!is_index(name, name_len, index)) return rdec_fail(d, d->pos, "array key is not its index %llu", (unsigned long long)index);
        } else if (ref_text(d, name, name_len, 1, d->pos)) {
            return -1;
        }
        d->pos += name_len + 1;
        size_t vat = d->pos;
        switch (type) {
        case 0x01:
            if (rdec_need(d, 8)) return -1;
            sbh_double(d->h, ref_double_from_bits(ref_load_le(d->p + d->pos, 8)));
            d->pos += 8;
            break;
        case 0x02: {
            if (rdec_need(d, 4)) return -1;
            int32_t n = read_i32(d);
            if (n < 1) return rdec_fail(d, vat, "string length %ld is less than 1", (long)n);
            if ((size_t)n > d->len - d->pos) return rdec_fail(d, vat, "string length %ld exceeds the document", (long)n);
            if (d->p[d->pos + (size_t)n - 1] != 0) return rdec_fail(d, vat, "string does not end with 0x00");
            if (ref_text(d, d->p + d->pos, (size_t)n - 1, 0, d->pos)) return -1;
            d->pos += (size_t)n;
            break;
        }
        case 0x03:
        case 0x04:
            if (dec_document(d, type == 0x04)) return -1;
            break;
        case 0x05: {
            if (rdec_need(d, 5)) return -1;
            int32_t n = read_i32(d);
            unsigned subtype = d->p[d->pos++];
            if (n < 0) return rdec_fail(d, vat, "negative binary length");
            if (subtype != 0) return rdec_fail(d, vat, "binary subtype 0x%02x is not supported", subtype);
            if ((size_t)n > d->len - d->pos) return rdec_fail(d, vat, "binary length %ld exceeds the document", (long)n);
            sbh_bin(d->h, d->p + d->pos, (size_t)n);
            d->pos += (size_t)n;
            break;
        }
        case 0x08:
            if (rdec_need(d, 1)) return -1;
            if (d->p[d->pos] > 1) return rdec_fail(d, vat, "boolean byte 0x%02x is neither 0 nor 1", d->p[d->pos]);
            sbh_bool(d->h, d->p[d->pos++]);
            break;
        case 0x0A: sbh_null(d->h); break;
        case 0x10:
            if (rdec_need(d, 4)) return -1;
            sbh_int(d->h, read_i32(d));
            break;
        case 0x12:
            if (rdec_need(d, 8)) return -1;
            sbh_int(d->h, (int64_t)ref_load_le(d->p + d->pos, 8));
            d->pos += 8;
            break;
        default: return rdec_fail(d, at, "element type 0x%02x is not supported", type);
        }
    }
    rdec_end(d);
    d->len = outer_len;
    rdec_leave(d);
    return 0;
}

int ref_bson_decode(rdec *d) { return dec_document(d, 0); }
