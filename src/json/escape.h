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

/* The escape of ASCII byte c ('"', '\\', '/' or a control character) at e:
 * the two-character form where there is one, else \u00XX; returns its
 * length (2 or 6). */
static inline size_t sdx_json_escape_ascii(char *e, uint8_t c) {
    static const char short_form[32] = {['\b'] = 'b', ['\t'] = 't', ['\n'] = 'n',
                                        ['\f'] = 'f', ['\r'] = 'r'};
    e[0] = '\\';
    if (c >= 0x20) {
        e[1] = (char)c;
        return 2;
    }
    if (short_form[c]) {
        e[1] = short_form[c];
        return 2;
    }
    memcpy(e + 1, "u00", 3);
    e[4] = sdx_json_hex_digits[c >> 4];
    e[5] = sdx_json_hex_digits[c & 15];
    return 6;
}

/* The length of that escape, without writing it: 2 for '"', '\\', '/' and
 * the control characters with a short form (\b \t \n \f \r), else 6. */
static inline size_t sdx_json_escape_ascii_len(uint8_t c) {
    return c >= 0x20 || (c >= '\b' && c <= '\r' && c != 0x0B) ? 2 : 6;
}

#endif /* SDX_JSON_ESCAPE_H */
