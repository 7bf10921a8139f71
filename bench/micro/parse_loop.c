/*
 * One format's tree parser in a loop, the way a program that parses one
 * kind of document again and again would run it: sdx_<FMT>_parse of the
 * file with the default options and the C library's allocator as it comes
 * (run it without GLIBC_TUNABLES: the suite fixes glibc's malloc
 * thresholds for every program, bench/README.md "Malloc", and so never
 * sees what this measures), then sdx_doc_free. Prints the median over
 * --rounds rounds of --parses parses each of the thread's CPU time per
 * parse and the page faults per parse (getrusage), one line:
 *
 *   <file> <fmt>: <us> us per parse, <faults> page faults per parse
 *
 *   cc -O2 -std=c11 -Iinclude -DFMT=json bench/micro/parse_loop.c \
 *      build/release/libsdx.a -lm -o /tmp/parse_loop
 *   /tmp/parse_loop build/bench/data/citm_catalog.json
 *
 * bench/micro/parse_loop_ab.py runs it for two revisions of the library in
 * alternating processes. Not part of the build.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "micro.h"
#include "sdx/sdx.h"

#ifndef FMT
#define FMT json
#endif
#define STR_(x) #x
#define STR(x) STR_(x)

static long faults(void) {
    struct rusage u;
    getrusage(RUSAGE_THREAD, &u);
    return u.ru_minflt + u.ru_majflt;
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    const char *path = NULL;
    int parses = 20, rounds = 7;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--parses") && i + 1 < argc) parses = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
        else path = argv[i];
    }
    if (!path || parses < 1 || rounds < 1 || rounds > 99) {
        fprintf(stderr, "usage: %s FILE [--parses N] [--rounds R]\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = malloc(n > 0 ? (size_t)n : 1);
    if (!data || fread(data, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "%s: cannot read\n", path);
        return 1;
    }
    fclose(f);
    double us[99], pf[99];
    for (int r = 0; r < rounds; r++) {
        const long f0 = faults();
        const double t0 = micro_now();
        for (int i = 0; i < parses; i++) {
            sdx_error err;
            sdx_doc *d = F(_parse)(data, (size_t)n, NULL, &err);
            if (!d) {
                fprintf(stderr, "%s: %s at byte %zu\n", path, err.msg ? err.msg : "error", err.offset);
                return 1;
            }
            sdx_doc_free(d);
        }
        us[r] = (micro_now() - t0) * 1e6 / parses;
        pf[r] = (double)(faults() - f0) / parses;
    }
    qsort(us, (size_t)rounds, sizeof us[0], cmp_double);
    qsort(pf, (size_t)rounds, sizeof pf[0], cmp_double);
    printf("%s %s: %.1f us per parse, %.1f page faults per parse\n", path, STR(FMT), us[rounds / 2],
           pf[rounds / 2]);
    free(data);
    return 0;
}
