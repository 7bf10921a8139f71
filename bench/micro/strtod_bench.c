/*
 * Micro-benchmark of decimal-to-binary number parsing: nanoseconds per
 * number for sdx_json_number, the inline fast path the JSON parser and
 * reader use before it ("sdx-inline": num/json_number.h, falling back to
 * sdx_json_number as they do), the C library's strtod and, when built in,
 * other parsers, on
 *   - every number of each JSON file named on the command line (found by a
 *     small scanner that skips strings), read in place: the end passed to
 *     sdx is the end of the document, as the JSON parser passes it;
 *   - 100,000 random finite doubles printed with %.17g (random bit
 *     patterns), separated by commas;
 * each set twice: numbers taken from an array of their starts (independent
 * calls: throughput), and "chained", a comma-separated copy parsed from one
 * number's end to the next, as a parser does (latency).
 * The parsers run over all numbers of a set in interleaved rounds, each for
 * about 0.5 s in all (--seconds S); the fastest pass is reported. The sums
 * of the results' bits must agree between parsers (integers are taken as
 * doubles); a disagreement is printed. Not part of the build.
 *
 * Build and run, from the repository root, after building build/rel:
 *
 *   cc -O3 -std=c11 -Isrc -Iinclude bench/micro/strtod_bench.c \
 *      build/rel/libsdx.a -lm -o /tmp/strtod_bench
 *   /tmp/strtod_bench ../shared/corpus/canada.json ../shared/corpus/twitter.json \
 *      ../shared/corpus/citm_catalog.json
 *
 * `--only NAME` (before the files) runs one contender, e.g. under perf;
 * `--seconds S` sets the time per contender and set.
 *
 * Optional contenders, each enabled by a macro and an extra object:
 *   -DWITH_INTERIM /tmp/interim.o   another sdx_json_number, e.g. an earlier
 *        revision of src/num/strtod.c compiled with its symbols renamed:
 *          git show <rev>:src/num/strtod.c > /tmp/interim_strtod.c
 *          cc -O3 -std=c11 -Isrc -Iinclude -c /tmp/interim_strtod.c -o /tmp/interim.o \
 *             -Dsdx_json_number=interim_json_number -Dsdx_parse_double=interim_parse_double
 *   -DWITH_YYJSON -I<yyjson>/src /tmp/yyjson.o   yyjson_read_number (yyjson
 *        0.10, `bash bench/crate-source.sh yyjson-sys` finds the source;
 *        cc -O3 -c <yyjson>/src/yyjson.c -o /tmp/yyjson.o)
 *   -DWITH_SIMDJSON /tmp/simdjson_num.o /tmp/simdjson.o -lstdc++   simdjson's
 *        number parser (bench/micro/strtod_bench_simdjson.cpp; see there;
 *        /tmp/simdjson.o: c++ -O3 -std=c++17 -c "$S/simdjson.cpp")
 */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "num/json_number.h"
#include "num/num.h"

#ifdef WITH_INTERIM
const char *interim_json_number(const char *p, const char *end, unsigned flags, sdx_num *out,
                                const char **err_at);
#endif
#ifdef WITH_YYJSON
#include "yyjson.h"
#endif
#ifdef WITH_SIMDJSON
/* Returns the end of the number or NULL; the value as a double in *out. */
const char *simdjson_number(const char *p, double *out);
#endif

typedef struct numset {
    const char *name;
    char *text; /* NUL-terminated */
    size_t text_len;
    const char **at; /* start of each number */
    size_t n;
    char *chain; /* the same numbers joined by commas, NUL-terminated */
    size_t chain_len;
} numset;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void add_number(numset *s, const char *p, size_t *cap) {
    if (s->n == *cap) {
        *cap = *cap ? *cap * 2 : 1024;
        s->at = realloc(s->at, *cap * sizeof *s->at);
        if (!s->at) exit(2);
    }
    s->at[s->n++] = p;
}

/* The numbers of a JSON text: tokens starting with '-' or a digit outside
 * strings. */
static void find_numbers(numset *s) {
    size_t cap = 0;
    const char *p = s->text, *end = s->text + s->text_len;
    while (p < end) {
        char c = *p;
        if (c == '"') {
            for (p++; p < end && *p != '"'; p++)
                if (*p == '\\') p++;
            p++;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            add_number(s, p, &cap);
            while (p < end && strchr("+-.eE0123456789", *p)) p++;
        } else {
            p++;
        }
    }
}

static size_t number_length(const char *p) {
    size_t n = 0;
    while (p[n] && strchr("+-.eE0123456789", p[n])) n++;
    return n;
}

static void make_chain(numset *s) {
    size_t total = 0;
    for (size_t i = 0; i < s->n; i++) total += number_length(s->at[i]) + 1;
    s->chain = malloc(total + 1);
    if (!s->chain) exit(2);
    char *q = s->chain;
    for (size_t i = 0; i < s->n; i++) {
        size_t len = number_length(s->at[i]);
        memcpy(q, s->at[i], len);
        q += len;
        *q++ = ',';
    }
    *q = 0;
    s->chain_len = total;
}

static bool load_file(numset *s, const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    s->text = malloc((size_t)len + 1);
    if (!s->text || fread(s->text, 1, (size_t)len, f) != (size_t)len) exit(2);
    fclose(f);
    s->text[len] = 0;
    s->text_len = (size_t)len;
    const char *slash = strrchr(path, '/');
    s->name = slash ? slash + 1 : path;
    find_numbers(s);
    make_chain(s);
    return true;
}

static uint64_t splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static void random_doubles(numset *s, size_t count) {
    s->name = "random %.17g";
    s->text = malloc(count * 26 + 1);
    if (!s->text) exit(2);
    char *p = s->text;
    uint64_t seed = 42;
    for (size_t i = 0; i < count;) {
        uint64_t b = splitmix(&seed);
        double d;
        memcpy(&d, &b, sizeof d);
        if (d != d || d - d != 0) continue; /* NaN, infinity */
        p += sprintf(p, "%.17g,", d);
        i++;
    }
    *p = 0;
    s->text_len = (size_t)(p - s->text);
    size_t cap = 0;
    s->n = 0;
    s->at = NULL;
    const char *q = s->text;
    while (q < p) {
        add_number(s, q, &cap);
        q = strchr(q, ',') + 1;
    }
    make_chain(s);
}

static uint64_t bits_of(double d) {
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

static double num_as_double(const sdx_num *v) {
    switch (v->kind) {
    case SDX_NUM_INT: return (double)v->v.i;
    case SDX_NUM_UINT: return (double)v->v.u;
    case SDX_NUM_DOUBLE: return v->v.d;
    default: return 0;
    }
}

/* One pass over a set; returns the checksum. PARSE reads the number at p
 * into d and sets e to its end. The independent pass takes each number's
 * start from the array; the chained one parses the comma-separated copy, each
 * number starting after the previous one's end, as a parser does (latency
 * rather than throughput). */
#define DEFINE_PASS_INDEP(name, PARSE)                   \
    static uint64_t name##_indep(const numset *s) {      \
        uint64_t sum = 0;                                \
        const char *end = s->text + s->text_len;         \
        (void)end;                                       \
        for (size_t i = 0; i < s->n; i++) {              \
            const char *p = s->at[i], *e;                \
            double d;                                    \
            PARSE;                                       \
            (void)e;                                     \
            sum += bits_of(d);                           \
        }                                                \
        return sum;                                      \
    }
#define DEFINE_PASS(name, PARSE)                         \
    DEFINE_PASS_INDEP(name, PARSE)                       \
    static uint64_t name##_chain(const numset *s) {      \
        uint64_t sum = 0;                                \
        const char *end = s->chain + s->chain_len;       \
        (void)end;                                       \
        const char *p = s->chain, *e;                    \
        for (size_t i = 0; i < s->n; i++) {              \
            double d;                                    \
            PARSE;                                       \
            sum += bits_of(d);                           \
            p = e + 1;                                   \
        }                                                \
        return sum;                                      \
    }

DEFINE_PASS(pass_sdx, {
    sdx_num v;
    if (!(e = sdx_json_number(p, end, 0, &v, NULL))) exit(3);
    d = num_as_double(&v);
})
/* The inline fast path of the JSON parser and reader, falling back to
 * sdx_json_number as they do. */
DEFINE_PASS(pass_fast, {
    unsigned k;
    uint64_t b;
    sdx_num v;
    if ((e = sdx_json_number_fast(p, end, &k, &b))) {
        v.kind = (sdx_num_kind)k;
        v.v.u = b;
    } else if (!(e = sdx_json_number(p, end, 0, &v, NULL))) {
        exit(3);
    }
    d = num_as_double(&v);
})
DEFINE_PASS(pass_strtod, {
    /* strtod reads integers as doubles; the others convert theirs */
    char *ee;
    d = strtod(p, &ee);
    e = ee;
})
#ifdef WITH_INTERIM
DEFINE_PASS(pass_interim, {
    sdx_num v;
    if (!(e = interim_json_number(p, end, 0, &v, NULL))) exit(3);
    d = num_as_double(&v);
})
#endif
#ifdef WITH_YYJSON
DEFINE_PASS(pass_yyjson, {
    yyjson_val v;
    if (!(e = yyjson_read_number(p, &v, 0, NULL, NULL))) exit(3);
    d = yyjson_get_num(&v);
})
#endif
#ifdef WITH_SIMDJSON
/* simdjson's parser finds a number's end from its structural index, not
 * from the number parser: no chained pass. */
DEFINE_PASS_INDEP(pass_simdjson, {
    if (!simdjson_number(p, &d)) exit(3);
    e = NULL;
})
#endif

static const char *only; /* --only NAME: run one contender */
static double budget = 0.5; /* --seconds S: time per contender and set */

typedef struct contender {
    const char *name;
    uint64_t (*pass[2])(const numset *); /* independent, chained (or NULL) */
} contender;

static const contender contenders[] = {
    {"sdx", {pass_sdx_indep, pass_sdx_chain}},
    {"sdx-inline", {pass_fast_indep, pass_fast_chain}},
#ifdef WITH_INTERIM
    {"interim", {pass_interim_indep, pass_interim_chain}},
#endif
    {"strtod", {pass_strtod_indep, pass_strtod_chain}},
#ifdef WITH_YYJSON
    {"yyjson", {pass_yyjson_indep, pass_yyjson_chain}},
#endif
#ifdef WITH_SIMDJSON
    {"simdjson", {pass_simdjson_indep, NULL}},
#endif
};

static void run(const numset *s, int chained) {
    enum { MAXC = sizeof contenders / sizeof contenders[0] };
    double best[MAXC];
    uint64_t sums[MAXC];
    bool on[MAXC];
    int active = 0;
    for (size_t c = 0; c < MAXC; c++) {
        best[c] = 1e30;
        sums[c] = 0;
        on[c] = (!only || strcmp(only, contenders[c].name) == 0) && contenders[c].pass[chained];
        active += on[c];
    }
    /* Rounds that run every contender once, interleaved, until each has had
     * about `budget` seconds and at least 5 passes; the fastest pass counts. */
    double start = now();
    for (int round = 0; round < 5 || now() - start < budget * active; round++) {
        for (size_t c = 0; c < MAXC; c++) {
            if (!on[c]) continue;
            double t0 = now();
            sums[c] = contenders[c].pass[chained](s);
            double t = now() - t0;
            if (t < best[c]) best[c] = t;
        }
    }
    printf("%-20s %-8s %8zu numbers", s->name, chained ? "chained" : "", s->n);
    uint64_t first_sum = 0;
    for (size_t c = 0; c < MAXC; c++) {
        if (!on[c]) continue;
        if (first_sum == 0) first_sum = sums[c];
        printf("  %s %6.2f ns%s", contenders[c].name, best[c] * 1e9 / (double)s->n,
               sums[c] == first_sum ? "" : " (DIFFERENT RESULTS)");
    }
    printf("\n");
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            only = argv[++i];
            continue;
        }
        if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
            budget = atof(argv[++i]);
            continue;
        }
        numset s = {0};
        if (!load_file(&s, argv[i])) {
            fprintf(stderr, "cannot read %s\n", argv[i]);
            return 1;
        }
        run(&s, 0);
        run(&s, 1);
    }
    numset r = {0};
    random_doubles(&r, 100000);
    run(&r, 0);
    run(&r, 1);
    return 0;
}
