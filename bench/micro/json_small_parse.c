/*
 * Micro-benchmark: sdx_json_parse on small texts by each of its paths (the
 * one-pass parser, the two-stage parse, and the choice it makes itself:
 * src/json/parse.c, "Two stages"), to place the shortest text the two
 * stages take (IDX_MIN_LEN). Nanoseconds per parse (and free), the best of
 * seven repetitions, the paths alternating. Needs a CPU with AVX-512
 * VBMI2 for the two stages to differ. Not part of the build.
 *
 *   cc -O2 -std=c11 -Isrc -Iinclude bench/micro/json_small_parse.c \
 *      build/release/libsdx.a -o /tmp/json_small_parse
 *   taskset -c 1 /tmp/json_small_parse
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <string.h>

#include "json/parse_internal.h"
#include "micro.h"
#include "sdx/sdx.h"

int main(void) {
    static const char *const texts[] = {
        "{\"k\":\"v\"}",
        "{\"k\":\"v\",\"name\":\"Bob\",\"n\":[1,\"a\"]}",
        "{\"id\":1,\"name\":\"Alice\",\"tags\":[\"a\",\"b\"],\"ok\":true,\"c\":\"P\"}",
        "{\"id\":12345,\"name\":\"Alice\",\"tags\":[\"a\",\"b\",\"c\"],\"active\":true,"
        "\"score\":98.6,\"address\":{\"city\":\"Paris\",\"zip\":\"75001\"}}"};
    static const char *const names[3] = {"chosen", "one pass", "two stages"};
    enum { N = 200000 };
    (void)micro_rand;
    printf("two stages available: %s\n", sdx__json_parse_two_stage_available() ? "yes" : "no");
    for (size_t t = 0; t < sizeof texts / sizeof *texts; t++) {
        const size_t len = strlen(texts[t]);
        double best[3] = {1e30, 1e30, 1e30};
        for (int rep = 0; rep < 7; rep++) {
            for (int path = 0; path < 3; path++) {
                sdx__json_parse_force_path((sdx_json_path)path);
                const double t0 = micro_now();
                for (int i = 0; i < N; i++) sdx_doc_free(sdx_json_parse(texts[t], len, NULL, NULL));
                const double ns = (micro_now() - t0) / N * 1e9;
                if (ns < best[path]) best[path] = ns;
            }
        }
        sdx__json_parse_force_path(SDX_JSON_PATH_AUTO);
        printf("%3zu bytes:", len);
        for (int path = 0; path < 3; path++) printf("  %s %.1f ns", names[path], best[path]);
        printf("\n");
    }
    return 0;
}
