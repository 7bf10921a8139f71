/*
 * ejson_tool: sdx's Extended JSON (the mapping layer, map.h) for a test
 * script (ejson_differential.py). Reads commands from standard input, one
 * a line, and answers each with one line on standard output:
 *
 *   c HEX    BSON bytes -> canonical Extended JSON (SDX_MAP_EJSON_CANONICAL)
 *   r HEX    BSON bytes -> relaxed Extended JSON (SDX_MAP_EJSON_RELAXED)
 *   b JSON   the rest of the line, Extended JSON -> the BSON bytes in hex
 *
 * A failed conversion answers "E <error name>". Exits 2 on a malformed
 * command.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ejson_test.h"
#include "msgpack_util.h"

int main(void) {
    static char line[1 << 22];
    static unsigned char bytes[1 << 21];
    while (fgets(line, sizeof line, stdin)) {
        size_t n = strcspn(line, "\n");
        line[n] = 0;
        if (n < 2 || line[1] != ' ') return 2;
        sdx_buf out;
        sdx_err rc;
        if (line[0] == 'c' || line[0] == 'r') {
            size_t len = mp_unhex(line + 2, bytes, sizeof bytes);
            if (len * 2 != n - 2) return 2;
            rc = ejson_from_bson(bytes, len, line[0] == 'c' ? SDX_MAP_EJSON_CANONICAL : SDX_MAP_EJSON_RELAXED, NULL,
                                 &out);
            if (!rc) fwrite(sdx_buf_data(&out), 1, sdx_buf_len(&out), stdout);
        } else if (line[0] == 'b') {
            rc = ejson_to_bson(line + 2, n - 2, NULL, &out);
            if (!rc)
                for (size_t i = 0; i < sdx_buf_len(&out); i++) printf("%02X", (unsigned char)sdx_buf_data(&out)[i]);
        } else {
            return 2;
        }
        if (rc) printf("E %s", sdx_strerror(rc));
        putchar('\n');
        fflush(stdout);
        sdx_buf_destroy(&out);
    }
    return 0;
}
