/*
 * Micro-benchmark of binary-to-decimal number printing: nanoseconds per
 * double for sdx_dtoa_json (shortest round-trip digits by Dragonbox, in
 * JSON's layout), and, when built in, simdjson's to_chars, on
 *   - every double of each JSON file named on the command line (read with
 *     sdx_json_parse; integers are left out);
 *   - 200,000 random finite doubles (random bit patterns);
 *   - 200,000 doubles uniform in [0, 1000) (what generated data holds).
 * Each set two ways: "fixed", every double printed into the same 64-byte
 * buffer (independent calls, the convention of the dtoa benchmarks such as
 * zmij's and Ryu's), and "stream", printed one after another into one
 * buffer with a comma between them, as a writer does (each position
 * depends on the previous length). The contenders run in interleaved
 * passes, about 0.5 s each in all (--seconds S); the fastest pass is
 * reported. Not part of the build.
 *
 *   cc -O3 -std=c11 -Isrc -Iinclude bench/micro/dtoa_bench.c \
 *      build/release/libsdx.a -lm -o /tmp/dtoa_bench
 *   /tmp/dtoa_bench ../shared/corpus/canada.json
 *
 * -DWITH_SIMDJSON /tmp/sj_to_chars.o /tmp/simdjson.o -lstdc++: simdjson's
 * simdjson::internal::to_chars (what its builder uses), with
 *   S=$(python3 bench/fetch-peer.py simdjson | head -1)
 *   printf '#include <simdjson.h>\nextern "C" char *sj_to_chars(char *p, double v)
 *     { return simdjson::internal::to_chars(p, nullptr, v); }\n' > /tmp/sj.cpp
 *   c++ -O3 -std=c++17 -I"$S" -c /tmp/sj.cpp -o /tmp/sj_to_chars.o
 *   c++ -O3 -std=c++17 -I"$S" -c "$S/simdjson.cpp" -o /tmp/simdjson.o
 * bench/micro/dtoa_rust prints the same sets with the Rust crates zmij and
 * ryu (cargo run --release -- FILE.f64, the doubles written by --dump).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "micro.h"
#include "num/num.h"
#include "sdx/sdx.h"

#ifdef WITH_SIMDJSON
char *sj_to_chars(char *p, double v);
#endif

typedef char *(*print_fn)(char *, double);

typedef struct {
    const char *name;
    print_fn print;
} contender;

static const contender contenders[] = {
    {"sdx", sdx_dtoa_json},
#ifdef WITH_SIMDJSON
    {"simdjson", sj_to_chars},
#endif
};
#define NCONT (sizeof contenders / sizeof *contenders)

typedef struct {
    double *v;
    size_t n, cap;
} dset;

static void push(dset *s, double d) {
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1024;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
        if (!s->v) exit(2);
    }
    s->v[s->n++] = d;
}


static void from_file(dset *s, const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    rewind(f);
    char *text = malloc((size_t)len + 1);
    if (!text || fread(text, 1, (size_t)len, f) != (size_t)len) exit(2);
    fclose(f);
    sdx_error err;
    sdx_doc *doc = sdx_json_parse(text, (size_t)len, NULL, &err);
    if (!doc) {
        fprintf(stderr, "%s: %s at byte %zu\n", path, err.msg ? err.msg : "error", (size_t)err.offset);
        exit(2);
    }
    /* every value slot of the document, in order */
    sdx_node root = sdx_doc_root(doc);
    for (const sdx_val *p = root.val, *e = sdx_val_next(root.val); p < e; p++)
        if (SDX_VAL_TYPE(p) == SDX_TYPE_DOUBLE) push(s, p->v.d);
    sdx_doc_free(doc);
    free(text);
}

static volatile size_t sink;

/* One pass over the set; seconds. */
static double pass(print_fn print, const dset *s, int stream, char *big) {
    double t0 = micro_now();
    size_t total = 0;
    if (stream) {
        char *p = big;
        for (size_t i = 0; i < s->n; i++) {
            p = print(p, s->v[i]);
            *p++ = ',';
        }
        total = (size_t)(p - big);
    } else {
        char buf[64];
        for (size_t i = 0; i < s->n; i++) {
            char *e = print(buf, s->v[i]);
            total += (size_t)(e - buf) + (unsigned char)buf[0];
            __asm__ volatile("" : : "r"(buf) : "memory");
        }
    }
    double t = micro_now() - t0;
    sink += total;
    return t;
}

static void run_set(const char *name, const dset *s, double seconds) {
    char *big = malloc(s->n * 40 + 64);
    if (!big || !s->n) return;
    for (int stream = 0; stream < 2; stream++) {
        double best[NCONT];
        for (size_t c = 0; c < NCONT; c++) best[c] = 1e30;
        double spent = 0;
        int rounds = 0;
        while (spent < seconds * NCONT || rounds < 3) {
            for (size_t c = 0; c < NCONT; c++) {
                double t = pass(contenders[c].print, s, stream, big);
                if (t < best[c]) best[c] = t;
                spent += t;
            }
            rounds++;
        }
        for (size_t c = 0; c < NCONT; c++)
            printf("%-14s %-7s %-9s %8zu doubles %7.2f ns/double\n", name, stream ? "stream" : "fixed",
                   contenders[c].name, s->n, best[c] * 1e9 / (double)s->n);
    }
    free(big);
}

int main(int argc, char **argv) {
    double seconds = 0.5;
    const char *dump = NULL;
    int a = 1;
    for (; a < argc && argv[a][0] == '-'; a++) {
        if (!strcmp(argv[a], "--seconds") && a + 1 < argc) seconds = atof(argv[++a]);
        else if (!strcmp(argv[a], "--dump") && a + 1 < argc) dump = argv[++a];
        else {
            fprintf(stderr, "usage: dtoa_bench [--seconds S] [--dump PREFIX] [FILE.json ...]\n");
            return 2;
        }
    }
    dset rnd = {0}, uni = {0};
    while (rnd.n < 200000) {
        uint64_t b = micro_rand();
        double d;
        memcpy(&d, &b, 8);
        if ((b >> 52 & 0x7ff) != 0x7ff) push(&rnd, d);
    }
    for (int i = 0; i < 200000; i++) push(&uni, (double)(micro_rand() >> 11) * 0x1p-53 * 1000.0);
    dset files[16];
    int nf = 0;
    for (; a < argc && nf < 16; a++, nf++) {
        memset(&files[nf], 0, sizeof files[nf]);
        from_file(&files[nf], argv[a]);
    }
    if (dump) { /* the sets as little-endian doubles, for bench/micro/dtoa_rust */
        const dset *sets[18] = {&rnd, &uni};
        const char *names[18] = {"random", "uniform"};
        int ns = 2;
        for (int i = 0; i < nf; i++, ns++) {
            sets[ns] = &files[i];
            names[ns] = argv[argc - nf + i];
            const char *slash = strrchr(names[ns], '/');
            if (slash) names[ns] = slash + 1;
        }
        for (int i = 0; i < ns; i++) {
            char path[512];
            snprintf(path, sizeof path, "%s%s.f64", dump, names[i]);
            FILE *f = fopen(path, "wb");
            if (!f || fwrite(sets[i]->v, 8, sets[i]->n, f) != sets[i]->n) return 2;
            fclose(f);
            printf("wrote %s\n", path);
        }
    }
    for (int i = 0; i < nf; i++) {
        const char *name = argv[argc - nf + i], *slash = strrchr(name, '/');
        run_set(slash ? slash + 1 : name, &files[i], seconds);
    }
    run_set("random bits", &rnd, seconds);
    run_set("uniform 0-1000", &uni, seconds);
    return 0;
}
