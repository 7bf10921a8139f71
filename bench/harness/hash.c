/* sbh64: see hash.h and SPEC.md. */
#include "hash.h"

static uint64_t load_le(const unsigned char *b) {
    uint64_t w = 0;
    for (int i = 7; i >= 0; i--) w = w << 8 | b[i]; /* little-endian on any host */
    return w;
}

static uint64_t lane(uint64_t l, uint64_t w) {
    l = (l ^ w) * 0x9E3779B97F4A7C15ull;
    return l ^ (l >> 29);
}

void sbh_bytes(sbh *s, const void *p, size_t n) {
    const unsigned char *b = (const unsigned char *)p;
    sbh_word(s, (uint64_t)n);
    if (n >= 32) {
        /* four independent lanes, folded back in order */
        uint64_t l0 = s->h, l1 = s->h ^ 1, l2 = s->h ^ 2, l3 = s->h ^ 3;
        while (n >= 32) {
            l0 = lane(l0, load_le(b));
            l1 = lane(l1, load_le(b + 8));
            l2 = lane(l2, load_le(b + 16));
            l3 = lane(l3, load_le(b + 24));
            b += 32;
            n -= 32;
        }
        s->h = l0;
        sbh_word(s, l1);
        sbh_word(s, l2);
        sbh_word(s, l3);
    }
    while (n >= 8) {
        sbh_word(s, load_le(b));
        b += 8;
        n -= 8;
    }
    if (n) {
        uint64_t w = 0;
        for (size_t i = n; i-- > 0;) w = w << 8 | b[i];
        sbh_word(s, w);
    }
}
