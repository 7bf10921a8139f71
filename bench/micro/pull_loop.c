/*
 * Micro-benchmark of a pull reader's inline path as a program compiled at
 * the caller's optimization level sees it: one file read in memory, read
 * event by event with sdx_<fmt>_reader_next (the header's inline path) in
 * passes of `iters` whole readings; the fastest pass per reading is
 * printed in microseconds. The format is chosen when compiling. Built with
 * the headers of two commits and run alternately (bench/README.md,
 * "Update, 2026-12-02 (afternoon)"), it shows what a header change does
 * for programs built at -O2, which gcc and CMake's RelWithDebInfo use.
 * Not part of the build.
 *
 *   cmake --build build/release
 *   cc -O2 -std=c11 -DFMT=bson -Iinclude bench/micro/pull_loop.c \
 *       build/release/libsdx.a -o /tmp/pull_bson
 *   taskset -c 1 /tmp/pull_bson build/bench/data/twitter.bson 20
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>

#include "micro.h"
#include "sdx/sdx.h"

#ifndef FMT
#define FMT bson /* F(suffix) is sdx_<FMT><suffix> (micro.h) */
#endif

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s FILE ITERS\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    if (fseek(f, 0, SEEK_END) != 0) return 1;
    long len = ftell(f);
    if (len < 0 || fseek(f, 0, SEEK_SET) != 0) return 1;
    char *data = malloc((size_t)len + 1);
    if (!data || fread(data, 1, (size_t)len, f) != (size_t)len) return 1;
    fclose(f);
    (void)micro_rand; /* micro.h's generator: not needed here */
    long iters = atol(argv[2]);
    if (iters < 1) iters = 1;
    double best = 1e30;
    uint64_t sum = 0; /* depends on every event, so none is optimized away */
    for (int pass = 0; pass < 15; pass++) {
        double t0 = micro_now();
        for (long i = 0; i < iters; i++) {
            F(_reader) *r = F(_reader_new)(data, (size_t)len, NULL);
            if (!r) return 1;
            sdx_event ev;
            while (F(_reader_next)(r, &ev)) sum += ev.kind + ev.v.str.len;
            sdx_error err;
            if (F(_reader_error)(r, &err) != SDX_OK) {
                fprintf(stderr, "%s: error at byte %zu\n", argv[1], err.offset);
                return 1;
            }
            F(_reader_free)(r);
        }
        double t = (micro_now() - t0) / (double)iters;
        if (t < best) best = t;
    }
    printf("%.1f us per reading (checksum %llu)\n", best * 1e6, (unsigned long long)sum);
    free(data);
    return 0;
}
