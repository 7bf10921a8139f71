/*
 * Internal: the escapes of JSON text (RFC 8259, section 7), shared by the
 * writer (src/json/writer.c) and the Python package's direct JSON path
 * (python/src/encode.c), so that both write the same bytes.
 */
#ifndef SDX_JSON_ESCAPE_H
#define SDX_JSON_ESCAPE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static const char sdx_json_hex_digits[16] = "0123456789abcdef";

/* The letter of the two-character escape of a control character (\b \t
 * \n \f \r); 0 for those written as \u00XX. */
static const char sdx_json_short_escape[32] = {['\b'] = 'b', ['\t'] = 't', ['\n'] = 'n',
                                               ['\f'] = 'f', ['\r'] = 'r'};

/* The length of the escape of ASCII byte c ('"', '\\', '/' or a control
 * character), without writing it: 2 or 6. */
static inline size_t sdx_json_escape_ascii_len(uint8_t c) {
    return c >= 0x20 || sdx_json_short_escape[c] ? 2 : 6;
}

/* That escape at e: the two-character form where there is one, else
 * \u00XX; returns its length (sdx_json_escape_ascii_len). */
static inline size_t sdx_json_escape_ascii(char *e, uint8_t c) {
    e[0] = '\\';
    if (c >= 0x20) {
        e[1] = (char)c;
        return 2;
    }
    if (sdx_json_short_escape[c]) {
        e[1] = sdx_json_short_escape[c];
        return 2;
    }
    memcpy(e + 1, "u00", 3);
    e[4] = sdx_json_hex_digits[c >> 4];
    e[5] = sdx_json_hex_digits[c & 15];
    return 6;
}

#endif /* SDX_JSON_ESCAPE_H */
