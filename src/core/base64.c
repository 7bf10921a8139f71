/*
 * Base64 encoding, RFC 4648 section 4.
 */
#include "core/base64.h"

#include <stdint.h>

static const char sdx_base64_alphabet[64] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *sdx_base64_encode(char *dst, const void *src, size_t n) {
    const uint8_t *s = (const uint8_t *)src;
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)s[i] << 16 | (uint32_t)s[i + 1] << 8 | s[i + 2];
        dst[0] = sdx_base64_alphabet[v >> 18];
        dst[1] = sdx_base64_alphabet[v >> 12 & 63];
        dst[2] = sdx_base64_alphabet[v >> 6 & 63];
        dst[3] = sdx_base64_alphabet[v & 63];
        dst += 4;
    }
    if (i < n) {
        uint32_t v = (uint32_t)s[i] << 16 | (i + 1 < n ? (uint32_t)s[i + 1] << 8 : 0);
        dst[0] = sdx_base64_alphabet[v >> 18];
        dst[1] = sdx_base64_alphabet[v >> 12 & 63];
        dst[2] = i + 1 < n ? sdx_base64_alphabet[v >> 6 & 63] : '=';
        dst[3] = '=';
        dst += 4;
    }
    return dst;
}
