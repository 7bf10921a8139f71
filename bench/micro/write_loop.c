/*
 * Micro-benchmark of a binary writer's inline path (msgpack.h, cbor.h,
 * ubjson.h) as a program compiled at the caller's optimization level sees
 * it: an array of `n` values written with sdx_<fmt>_writer_uint, _int and
 * _double (the header's inline functions) into a memory buffer, in passes of
 * `iters` whole writings; the fastest pass is printed in nanoseconds per
 * value. The values: random unsigned integers of every width, negative
 * integers, and doubles, one third each, so that every store width is
 * taken. The format is chosen when compiling. Built with the headers of two
 * commits and run alternately (bench/README.md, "Update, 2026-12-02
 * (evening)"), it shows what a header change does for programs built at
 * -O2, which gcc and CMake's RelWithDebInfo use. Not part of the build.
 *
 *   cmake --build build/release
 *   cc -O2 -std=c11 -DFMT=msgpack -Iinclude bench/micro/write_loop.c \
 *       build/release/libsdx.a -o /tmp/write_msgpack
 *   taskset -c 1 /tmp/write_msgpack 100000 20
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>

#include "micro.h"
#include "sdx/sdx.h"

#ifndef FMT
#define FMT msgpack /* F(suffix) is sdx_<FMT><suffix> (micro.h) */
#endif

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s VALUES ITERS\n", argv[0]);
        return 2;
    }
    long n = atol(argv[1]), iters = atol(argv[2]);
    if (n < 3) n = 3;
    if (iters < 1) iters = 1;
    uint64_t *u = malloc((size_t)n * sizeof *u);
    double *d = malloc((size_t)n * sizeof *d);
    if (!u || !d) return 1;
    for (long i = 0; i < n; i++) {
        uint64_t r = micro_rand();
        u[i] = r >> (micro_rand() % 64); /* every width, 1 to 64 bits */
        d[i] = (double)(int64_t)(r >> 12) / 1024.0;
    }
    double best = 1e30;
    uint64_t sum = 0; /* depends on every output, so none is optimized away */
    for (int pass = 0; pass < 15; pass++) {
        double t0 = micro_now();
        for (long it = 0; it < iters; it++) {
            sdx_buf out;
            sdx_buf_init(&out, NULL);
            F(_writer) w;
            if (F(_writer_init)(&w, &out, NULL) != SDX_OK) return 1;
            F(_writer_begin_array)(&w, (uint64_t)n);
            for (long i = 0; i + 3 <= n; i += 3) {
                F(_writer_uint)(&w, u[i]);
                F(_writer_int)(&w, -(int64_t)(u[i + 1] >> 1) - 1);
                F(_writer_double)(&w, d[i + 2]);
            }
            for (long i = n - n % 3; i < n; i++) F(_writer_uint)(&w, u[i]);
            F(_writer_end)(&w);
            if (F(_writer_finish)(&w) != SDX_OK) {
                fprintf(stderr, "write failed\n");
                return 1;
            }
            sum += sdx_buf_len(&out) + (unsigned char)sdx_buf_data(&out)[sdx_buf_len(&out) - 1];
            sdx_buf_destroy(&out);
        }
        double t = (micro_now() - t0) / (double)iters / (double)n;
        if (t < best) best = t;
    }
    printf("%.2f ns per value (checksum %llu)\n", best * 1e9, (unsigned long long)sum);
    free(u);
    free(d);
    return 0;
}
