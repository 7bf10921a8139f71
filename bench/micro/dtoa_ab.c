/*
 * Before and after for sdx_dtoa_json: the working tree's src/num/dtoa.c
 * against the one of a git revision, both linked into this program (the
 * old one with its functions renamed), interleaved in one process. First
 * both print 20 million random bit patterns and every double of the input
 * files, and must give the same text; then each file's doubles are
 * printed 41 times by each, in alternating order, into a fixed buffer.
 * The report: the fastest pass of each (ns per double) and the median of
 * the 41 per-pass ratios new / old with the interval of ranks 14 and 28
 * (a distribution-free 95 % interval of the median for 41 samples). Not
 * part of the build; bench/micro/dtoa_ab.sh builds and runs it:
 *
 *   bench/micro/dtoa_ab.sh HEAD~1 /tmp/dtb-canada.json.f64 /tmp/dtb-random.f64
 *
 * The .f64 files (raw little-endian doubles) come from
 * `dtoa_bench --dump PREFIX FILE.json` (dtoa_bench.c).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "micro.h"

char *sdx_dtoa_json(char *dst, double v);
char *old_dtoa_json(char *dst, double v);

typedef char *(*print_fn)(char *, double);

static volatile size_t sink;

/* ns per double for printing all n doubles with f. */
static double pass(print_fn f, const double *d, size_t n) {
    char buf[64];
    size_t acc = 0;
    double t0 = micro_now();
    for (size_t i = 0; i < n; i++) acc += (size_t)(f(buf, d[i]) - buf) + (unsigned char)buf[1];
    double t = micro_now() - t0;
    sink += acc;
    return t / (double)n * 1e9;
}

static int same(double v) {
    char a[64], b[64];
    char *ea = sdx_dtoa_json(a, v), *eb = old_dtoa_json(b, v);
    if (ea - a == eb - b && !memcmp(a, b, (size_t)(ea - a))) return 1;
    uint64_t bits;
    memcpy(&bits, &v, 8);
    fprintf(stderr, "differ at %016llx: new %.*s, old %.*s\n", (unsigned long long)bits,
            (int)(ea - a), a, (int)(eb - b), b);
    return 0;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define PASSES 41

int main(int argc, char **argv) {
    for (long i = 0; i < 20000000; i++) {
        uint64_t bits = micro_rand();
        double v;
        if ((bits >> 52 & 0x7FF) == 0x7FF) continue; /* not finite: not printed */
        memcpy(&v, &bits, 8);
        if (!same(v)) return 1;
    }
    for (int a = 1; a < argc; a++) {
        FILE *f = fopen(argv[a], "rb");
        if (!f) {
            perror(argv[a]);
            return 1;
        }
        fseek(f, 0, SEEK_END);
        long len = ftell(f);
        rewind(f);
        double *d = malloc((size_t)len + 8);
        size_t n = d ? fread(d, 8, (size_t)len / 8, f) : 0;
        fclose(f);
        if (!n) {
            fprintf(stderr, "%s: no doubles\n", argv[a]);
            return 1;
        }
        for (size_t i = 0; i < n; i++)
            if (!same(d[i])) return 1;
        double tn[PASSES], to[PASSES], ratio[PASSES], mn = 1e30, mo = 1e30;
        for (int r = 0; r < PASSES; r++) {
            if (r & 1) {
                tn[r] = pass(sdx_dtoa_json, d, n);
                to[r] = pass(old_dtoa_json, d, n);
            } else {
                to[r] = pass(old_dtoa_json, d, n);
                tn[r] = pass(sdx_dtoa_json, d, n);
            }
            ratio[r] = tn[r] / to[r];
            mn = tn[r] < mn ? tn[r] : mn;
            mo = to[r] < mo ? to[r] : mo;
        }
        qsort(ratio, PASSES, sizeof *ratio, cmp_double);
        const char *name = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
        printf("%-24s %8zu doubles  new %6.2f ns  old %6.2f ns  new/old %.3f [%.3f-%.3f]\n", name, n,
               mn, mo, ratio[PASSES / 2], ratio[13], ratio[27]);
        free(d);
    }
    return 0;
}
