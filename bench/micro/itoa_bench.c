/*
 * Micro-benchmark of integer printing: nanoseconds per value for
 * sdx_u64_to_dec (num/itoa.h), against the portable path of the same
 * header (sdx_itoa_u64_swar, the SWAR steps, which is what sdx_u64_to_dec
 * is without SSE2) and, on x86-64, against sdx_u64_to_dec as it was before
 * 2026-11-28 (kept here as sse2_before: 5 to 20 digits in SSE2 registers,
 * where now 5 to 12 take the SWAR steps), on 14,000 values of each digit count (1 to 20) and on
 * 14,000 values of random lengths. The values are printed one after another
 * into one buffer with a comma between them, as a writer does (where the
 * next one goes depends on this one's length). The contenders run in
 * interleaved passes, 300 of each; the fastest pass is reported, and the
 * outputs are compared. Not part of the build.
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

#ifdef SDX_ITOA_SSE2
/* sdx_u64_to_dec before 2026-11-28. */
static SDX_ALWAYS_INLINE uint64_t before_ascii8(uint32_t lo) {
    __m128i d = sdx_itoa_ascii16(0, lo);
    return (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(d, d));
}

static SDX_ALWAYS_INLINE char *sse2_before(char *dst, uint64_t v) {
    if (v < 10000u) return sdx_itoa_upto4(dst, (uint32_t)v);
    if (v < 100000000u) {
        const unsigned len = sdx_itoa_len5to8(v);
        sdx_store64le(dst, before_ascii8((uint32_t)v) >> (8 * (8 - len)));
        return dst + len;
    }
    if (v < 10000000000000000ull) {
        const uint64_t hi = v / 100000000u, lo = v - hi * 100000000u;
        if (hi < 10000u) {
            dst = sdx_itoa_upto4(dst, (uint32_t)hi);
            sdx_store64le(dst, before_ascii8((uint32_t)lo));
            return dst + 8;
        }
        const __m128i d = sdx_itoa_ascii16(hi, lo);
        const unsigned len = sdx_itoa_len5to8(hi);
        sdx_store64le(dst, (uint64_t)_mm_cvtsi128_si64(d) >> (8 * (8 - len)));
        sdx_store64le(dst + len, (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(d, d)));
        return dst + len + 8;
    }
    return sdx_u64_to_dec(dst, v); /* 17 to 20 digits: unchanged */
}
#define CONTENDERS 3
#else
#define CONTENDERS 2
#endif

static char out[CONTENDERS][N * 24];

static void run(const char *name, const uint64_t *v) {
    double best[CONTENDERS];
    size_t used[CONTENDERS];
    for (int k = 0; k < CONTENDERS; k++) best[k] = 1e9, used[k] = 0;
    for (int pass = 0; pass < PASSES; pass++) {
        for (int k = 0; k < CONTENDERS; k++) {
            char *p = out[k];
            double t = micro_now();
            if (k == 0)
                for (int i = 0; i < N; i++) *(p = sdx_itoa_u64_swar(p, v[i])) = ',', p++;
            else if (k == 1)
                for (int i = 0; i < N; i++) *(p = sdx_u64_to_dec(p, v[i])) = ',', p++;
#ifdef SDX_ITOA_SSE2
            else
                for (int i = 0; i < N; i++) *(p = sse2_before(p, v[i])) = ',', p++;
#endif
            double e = micro_now() - t;
            if (e < best[k]) best[k] = e;
            used[k] = (size_t)(p - out[k]);
        }
    }
    int same = 1;
    for (int k = 1; k < CONTENDERS; k++) same &= used[k] == used[0] && memcmp(out[k], out[0], used[0]) == 0;
    printf("%-10s portable %5.2f ns  sdx_u64_to_dec %5.2f ns", name, best[0] / N * 1e9, best[1] / N * 1e9);
#ifdef SDX_ITOA_SSE2
    printf("  sse2_before %5.2f ns", best[2] / N * 1e9);
#endif
    printf("  %s\n", same ? "same output" : "OUTPUTS DIFFER");
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
