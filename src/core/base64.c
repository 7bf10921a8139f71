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

/* The value of each alphabet byte; 64 for every other byte. */
static int8_t base64_value_of(unsigned char c) {
    if (c >= 'A' && c <= 'Z') return (int8_t)(c - 'A');
    if (c >= 'a' && c <= 'z') return (int8_t)(c - 'a' + 26);
    if (c >= '0' && c <= '9') return (int8_t)(c - '0' + 52);
    if (c == '+') return 62;
    if (c == '/') return 63;
    return 64;
}

size_t sdx_base64_decode(void *dst, const char *src, size_t n) {
    uint8_t *d = (uint8_t *)dst;
    if (n % 4) return SIZE_MAX;
    for (size_t i = 0; i < n; i += 4) {
        int last = i + 4 == n;
        int8_t a = base64_value_of((unsigned char)src[i]), b = base64_value_of((unsigned char)src[i + 1]);
        int8_t c = base64_value_of((unsigned char)src[i + 2]), e = base64_value_of((unsigned char)src[i + 3]);
        if (a == 64 || b == 64) return SIZE_MAX;
        if (last && src[i + 2] == '=' && src[i + 3] == '=') {
            if (b & 15) return SIZE_MAX; /* bits the encoder leaves zero */
            *d++ = (uint8_t)(a << 2 | b >> 4);
            break;
        }
        if (c == 64) return SIZE_MAX;
        if (last && src[i + 3] == '=') {
            if (c & 3) return SIZE_MAX;
            *d++ = (uint8_t)(a << 2 | b >> 4);
            *d++ = (uint8_t)(b << 4 | c >> 2);
            break;
        }
        if (e == 64) return SIZE_MAX;
        *d++ = (uint8_t)(a << 2 | b >> 4);
        *d++ = (uint8_t)(b << 4 | c >> 2);
        *d++ = (uint8_t)(c << 6 | e);
    }
    return (size_t)(d - (uint8_t *)dst);
}
