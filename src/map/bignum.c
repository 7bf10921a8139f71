/*
 * Arbitrary-length unsigned integers for the mapping layer (map_internal.h):
 * schoolbook arithmetic on 32-bit limbs (Knuth, TAOCP vol. 2, §4.3.1 and
 * §4.4). Every loop runs over the limbs in use, so a conversion of an
 * n-limb number costs O(n^2) and the layer's digit limit bounds n.
 */
#include <string.h>

#include "map/map_internal.h"

static void trim(sdx_big *b) {
    while (b->n && b->limb[b->n - 1] == 0) b->n--;
}

void sdx_big_from_be(sdx_big *b, const uint8_t *p, size_t len) {
    while (len && *p == 0) { /* leading zero bytes carry no value */
        p++;
        len--;
    }
    b->n = (len + 3) / 4;
    for (size_t i = 0; i < b->n; i++) b->limb[i] = 0;
    /* byte k from the end goes to limb k / 4, bits 8 * (k % 4) */
    for (size_t k = 0; k < len; k++) b->limb[k / 4] |= (uint32_t)p[len - 1 - k] << (8 * (k % 4));
    trim(b);
}

void sdx_big_from_u64(sdx_big *b, uint64_t v) {
    b->limb[0] = (uint32_t)v;
    b->limb[1] = (uint32_t)(v >> 32);
    b->n = 2;
    trim(b);
}

void sdx_big_add_small(sdx_big *b, uint32_t v) {
    uint64_t carry = v;
    for (size_t i = 0; carry && i < b->n; i++) {
        carry += b->limb[i];
        b->limb[i] = (uint32_t)carry;
        carry >>= 32;
    }
    if (carry) b->limb[b->n++] = (uint32_t)carry;
}

void sdx_big_sub_one(sdx_big *b) {
    for (size_t i = 0; i < b->n; i++)
        if (b->limb[i]-- != 0) break; /* no borrow out of this limb */
    trim(b);
}

void sdx_big_mul_small(sdx_big *b, uint32_t v) {
    uint64_t carry = 0;
    for (size_t i = 0; i < b->n; i++) {
        carry += (uint64_t)b->limb[i] * v;
        b->limb[i] = (uint32_t)carry;
        carry >>= 32;
    }
    if (carry) b->limb[b->n++] = (uint32_t)carry;
    trim(b);
}

void sdx_big_shl(sdx_big *b, uint64_t bits) {
    if (!b->n) return;
    size_t words = (size_t)(bits / 32);
    unsigned r = (unsigned)(bits % 32);
    b->limb[b->n + words] = 0;
    for (size_t i = b->n; i-- > 0;) {
        uint64_t v = (uint64_t)b->limb[i] << r;
        b->limb[i + words + 1] |= (uint32_t)(v >> 32);
        b->limb[i + words] = (uint32_t)v;
    }
    for (size_t i = 0; i < words; i++) b->limb[i] = 0;
    b->n += words + 1;
    trim(b);
}

uint32_t sdx_big_div_small(sdx_big *b, uint32_t d) {
    uint64_t rem = 0;
    for (size_t i = b->n; i-- > 0;) {
        uint64_t cur = rem << 32 | b->limb[i];
        b->limb[i] = (uint32_t)(cur / d);
        rem = cur % d;
    }
    trim(b);
    return (uint32_t)rem;
}

size_t sdx_big_to_dec(sdx_big *b, char *dst) {
    if (!b->n) {
        dst[0] = '0';
        return 1;
    }
    /* Groups of nine digits from the least significant, written from the
     * end of the room towards its start, then moved to dst. */
    size_t room = sdx_big_digits_for_limbs(b->n), at = room;
    while (b->n) {
        uint32_t group = sdx_big_div_small(b, 1000000000u);
        for (int k = 0; k < 9; k++) {
            dst[--at] = (char)('0' + group % 10);
            group /= 10;
        }
    }
    while (dst[at] == '0') at++;
    memmove(dst, dst + at, room - at);
    return room - at;
}

void sdx_big_from_dec(sdx_big *b, const char *s, size_t n) {
    b->n = 0;
    size_t first = n % 9 ? n % 9 : 9; /* the leading group may be short */
    for (size_t i = 0; i < n;) {
        size_t take = i == 0 ? first : 9;
        uint32_t group = 0, scale = 1;
        for (size_t k = 0; k < take; k++) {
            group = group * 10 + (uint32_t)(s[i + k] - '0');
            scale *= 10;
        }
        sdx_big_mul_small(b, scale);
        sdx_big_add_small(b, group);
        i += take;
    }
}

size_t sdx_big_to_be(const sdx_big *b, uint8_t *dst) {
    if (!b->n) return 0;
    uint32_t top = b->limb[b->n - 1];
    size_t top_bytes = top >> 24 ? 4 : top >> 16 ? 3 : top >> 8 ? 2 : 1;
    size_t len = (b->n - 1) * 4 + top_bytes;
    for (size_t k = 0; k < len; k++) dst[len - 1 - k] = (uint8_t)(b->limb[k / 4] >> (8 * (k % 4)));
    return len;
}

bool sdx_big_to_u64(const sdx_big *b, uint64_t *v) {
    if (b->n > 2) return false;
    *v = b->n == 0 ? 0 : b->n == 1 ? b->limb[0] : (uint64_t)b->limb[1] << 32 | b->limb[0];
    return true;
}

void *sdx_map_scratch_get(sdx_map_scratch *s, const sdx_alloc *a, size_t size) {
    if (size <= s->cap) return s->ptr;
    size_t cap = s->cap * 2 > size ? s->cap * 2 : size;
    if (cap < 64) cap = 64;
    void *p = s->ptr ? a->realloc(a->ctx, s->ptr, s->cap, cap) : a->malloc(a->ctx, cap);
    if (!p) return NULL;
    s->ptr = p;
    s->cap = cap;
    return p;
}

void sdx_map_scratch_free(sdx_map_scratch *s, const sdx_alloc *a) {
    if (s->ptr) a->free(a->ctx, s->ptr);
    s->ptr = NULL;
    s->cap = 0;
}
