/*
 * decimal128_tool: sdx's decimal128 text conversions for a test script
 * (decimal128_differential.py). Reads commands from standard input, one a
 * line, and answers each with one line on standard output:
 *
 *   t HEX   the 32 hex digits of 16 bytes as BSON stores them
 *           -> their text (sdx_bson_decimal128_to_string)
 *   p TEXT  the rest of the line, as it is (spaces included)
 *           -> the 32 hex digits of sdx_bson_decimal128_from_string's
 *              bytes, or "E SYNTAX" / "E RANGE" / "E <code>"
 *
 * Each text is handed over in an allocation of exactly its length, so a
 * sanitizer build sees any read past it. Exits 2 on a malformed command.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msgpack_util.h"
#include "sdx/bson.h"

int main(void) {
    static char line[1 << 20];
    while (fgets(line, sizeof line, stdin)) {
        size_t n = strcspn(line, "\n");
        line[n] = 0;
        if (n >= 2 && line[0] == 't' && line[1] == ' ') {
            unsigned char b[16];
            if (n != 34 || mp_unhex(line + 2, b, sizeof b) != 16) return 2;
            char text[SDX_BSON_DECIMAL128_STRING_MAX + 1];
            sdx_bson_decimal128_to_string(b, text);
            printf("%s\n", text);
        } else if (n >= 2 && line[0] == 'p' && line[1] == ' ') {
            size_t len = n - 2;
            char *s = malloc(len ? len : 1);
            if (!s) return 2;
            memcpy(s, line + 2, len);
            uint8_t b[16];
            sdx_err rc = sdx_bson_decimal128_from_string(s, len, b);
            free(s);
            if (rc == SDX_OK) {
                for (int i = 0; i < 16; i++) printf("%02X", b[i]);
                printf("\n");
            } else if (rc == SDX_ERR_SYNTAX) {
                printf("E SYNTAX\n");
            } else if (rc == SDX_ERR_RANGE) {
                printf("E RANGE\n");
            } else {
                printf("E %d\n", (int)rc);
            }
        } else {
            return 2;
        }
    }
    return 0;
}
