/* sbh64: see hash.h and SPEC.md. */
#include "hash.h"

void sbh_bytes(sbh *s, const void *p, size_t n) {
    const unsigned char *b = (const unsigned char *)p;
    sbh_word(s, (uint64_t)n);
    while (n >= 8) {
        uint64_t w = 0;
        for (int i = 7; i >= 0; i--) w = w << 8 | b[i]; /* little-endian on any host */
        sbh_word(s, w);
        b += 8;
        n -= 8;
    }
    if (n) {
        uint64_t w = 0;
        for (size_t i = n; i-- > 0;) w = w << 8 | b[i];
        sbh_word(s, w);
    }
}
