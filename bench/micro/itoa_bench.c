/*
 * Micro-benchmark of integer printing: nanoseconds per value for
 * sdx_u64_to_dec (num/itoa.h; on x86-64 its SSE2 path) against the
 * portable path of the same header (sdx_itoa_u64_swar, the SWAR steps,
 * which is what sdx_u64_to_dec is without SSE2), on 14,000
 * values of each digit count (1 to 20) and on 14,000 values of random
 * lengths. The values are printed one after another into one buffer with
 * a comma between them, as a writer does (where the next one goes depends
 * on this one's length). The two run in interleaved passes, 300 of each;
 * the fastest pass is reported, and both outputs are compared. Not part of
 * the build.
 *
 *   cc -O3 -std=c11 -Isrc -Iinclude bench/micro/itoa_bench.c -o /tmp/itoa_bench
 *   taskset -c 1 /tmp/itoa_bench
 */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "micro.h"
#include "num/itoa.h"

#define N 14000
#define PASSES 300


static char out[2][N * 24];

static void run(const char *name, const uint64_t *v) {
    double best[2] = {1e9, 1e9};
    size_t used[2] = {0, 0};
    for (int pass = 0; pass < PASSES; pass++) {
        for (int k = 0; k < 2; k++) {
            char *p = out[k];
            double t = micro_now();
            if (k == 0)
                for (int i = 0; i < N; i++) *(p = sdx_itoa_u64_swar(p, v[i])) = ',', p++;
            else
                for (int i = 0; i < N; i++) *(p = sdx_u64_to_dec(p, v[i])) = ',', p++;
            double e = micro_now() - t;
            if (e < best[k]) best[k] = e;
            used[k] = (size_t)(p - out[k]);
        }
    }
    int same = used[0] == used[1] && memcmp(out[0], out[1], used[0]) == 0;
    printf("%-10s portable %5.2f ns  sdx_u64_to_dec %5.2f ns  %s\n", name, best[0] / N * 1e9,
           best[1] / N * 1e9, same ? "same output" : "OUTPUTS DIFFER");
}

int main(void) {
#ifdef SDX_ITOA_SSE2
    puts("sdx_u64_to_dec: SSE2 path");
#else
    puts("sdx_u64_to_dec: portable path (no SSE2)");
#endif
    static uint64_t v[N];
    char name[32];
    uint64_t lo = 1;
    for (int digits = 1; digits <= 20; digits++, lo *= 10) {
        /* lo = 10^(digits-1); values in [lo, 10 lo), or up to 2^64 - 1 */
        uint64_t span = digits < 20 ? lo * 9 : UINT64_MAX - lo;
        for (int i = 0; i < N; i++) v[i] = lo + micro_rand() % span;
        snprintf(name, sizeof name, "%d digits", digits);
        run(name, v);
    }
    for (int i = 0; i < N; i++) v[i] = micro_rand() >> (micro_rand() % 64);
    run("mixed", v);
    return 0;
}
