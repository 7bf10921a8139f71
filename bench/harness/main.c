/*
 * The benchmark harness: main() of every benchmark program, linked with one
 * adapter (adapter.h).
 *
 *   PROG --tree SPEC [--input FILE] [--dataset NAME] --once OUT
 *   PROG --tree SPEC [--input FILE] [--dataset NAME] [--runs N] [--budget S]
 *
 * SPEC is gen:SIZE[:SEED] or json:PATH (tree.h); the tree is adapted to the
 * adapter's format. FILE is the encoded input of a Tree or Incremental test.
 *
 * --once runs the test a single time and writes its result to OUT: the
 * output bytes of a Write test, or the value hash (16 hex digits) of a
 * parse. The suite verifies it with the reference decoder before it asks
 * for timings.
 *
 * Otherwise the test runs `runs` times (default 7) for budget/runs seconds
 * each (default budget 1 s), after a warm-up; each run's time per iteration
 * is recorded, the best and the worst run are dropped (with 3 or more runs)
 * and the rest averaged. The cost of the hashing alone — the output bytes
 * for Write, the reference tree for Tree and Incremental — is measured the
 * same way. One JSON object is printed on stdout.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "adapter.h"
#include "hash.h"
#include "tree.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* What the test and the hash-only baseline work on. */
typedef struct state {
    const bt_node *tree;
    const char *input;
    size_t input_len;
    /* results of the last iteration */
    uint64_t result;
    int failed;
    size_t out_len;
    /* Write: the bytes of one output, for --once and the hash baseline */
    char *kept;
    size_t kept_len;
} state;

static void emit_hash(void *ctx, const void *data, size_t len) {
    state *s = ctx;
    s->result = sbh_of_bytes(data, len);
    s->out_len = len;
}

static void emit_keep(void *ctx, const void *data, size_t len) {
    state *s = ctx;
    free(s->kept);
    s->kept = malloc(len ? len : 1);
    if (!s->kept) abort();
    if (len) memcpy(s->kept, data, len);
    s->kept_len = len;
    s->result = sbh_of_bytes(data, len);
    s->out_len = len;
}

static void run_test(state *s) {
    if (bench_adapter_def.write) {
        s->failed |= bench_adapter_def.write(s->tree, emit_hash, s) != 0;
    } else {
        sbh h;
        sbh_init(&h);
        s->failed |= bench_adapter_def.parse(s->input, s->input_len, &h) != 0;
        s->result = sbh_final(&h);
    }
}

/* The hashing the test does, alone. */
static void run_hash_only(state *s) {
    if (bench_adapter_def.write) {
        s->result = sbh_of_bytes(s->kept, s->kept_len);
    } else {
        sbh h;
        sbh_init(&h);
        bt_hash(s->tree, &h);
        s->result = sbh_final(&h);
    }
}

typedef struct timing {
    double mean, min, max; /* seconds per iteration over the kept runs */
    long iterations;
} timing;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static timing measure(void (*fn)(state *), state *s, int runs, double budget) {
    timing t = {0, 0, 0, 0};
    double start = now();
    long warm = 0;
    while (warm < 2 || now() - start < budget / (2 * runs)) fn(s), warm++;
    double per = (now() - start) / (double)warm;
    double *per_run = malloc(sizeof(double) * (size_t)runs);
    if (!per_run) abort();
    for (int r = 0; r < runs; r++) {
        long iters = 0;
        double t0 = now(), elapsed;
        /* check the clock every few iterations, not after each short one */
        long batch = per > 0 ? (long)(1e-4 / per) + 1 : 1;
        do {
            for (long i = 0; i < batch; i++) fn(s);
            iters += batch;
            elapsed = now() - t0;
        } while (elapsed < budget / runs);
        per_run[r] = elapsed / (double)iters;
        t.iterations += iters;
    }
    qsort(per_run, (size_t)runs, sizeof(double), cmp_double);
    int lo = runs >= 3 ? 1 : 0, hi = runs >= 3 ? runs - 1 : runs;
    for (int r = lo; r < hi; r++) t.mean += per_run[r];
    t.mean /= (double)(hi - lo);
    t.min = per_run[lo];
    t.max = per_run[hi - 1];
    free(per_run);
    return t;
}

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *p = malloc(cap + BENCH_PADDING);
    for (;;) {
        if (!p) abort();
        n += fread(p + n, 1, cap - n, f);
        if (n < cap) break;
        cap *= 2;
        p = realloc(p, cap + BENCH_PADDING);
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(p);
        return NULL;
    }
    memset(p + n, 0, BENCH_PADDING);
    *len = n;
    return p;
}

/* A JSON string literal of a short ASCII-ish text (names, messages). */
static void print_json_string(const char *s) {
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20) printf("\\u%04x", *s);
        else putchar(*s);
    }
    putchar('"');
}

static void print_identity(const char *dataset) {
    printf("{\"library\":");
    print_json_string(bench_adapter_def.library);
    printf(",\"language\":");
    print_json_string(bench_adapter_def.language);
    printf(",\"format\":");
    print_json_string(bench_adapter_def.format);
    printf(",\"test\":");
    print_json_string(bench_adapter_def.test);
    printf(",\"dataset\":");
    print_json_string(dataset);
}

static int fail(const char *dataset, const char *msg) {
    print_identity(dataset);
    printf(",\"status\":\"error\",\"message\":");
    print_json_string(msg);
    printf("}\n");
    return 1;
}

static int usage(void) {
    fprintf(stderr, "usage: %s-%s-%s --tree gen:SIZE[:SEED]|json:PATH [--input FILE] [--dataset NAME]\n"
                    "         [--once OUT | --runs N --budget SECONDS]\n",
            bench_adapter_def.library, bench_adapter_def.format, bench_adapter_def.test);
    return 2;
}

int main(int argc, char **argv) {
    const char *tree_spec = NULL, *input_path = NULL, *once = NULL, *dataset = "";
    int runs = 7;
    double budget = 1.0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) return usage();
        if (strcmp(a, "--tree") == 0) tree_spec = v;
        else if (strcmp(a, "--input") == 0) input_path = v;
        else if (strcmp(a, "--once") == 0) once = v;
        else if (strcmp(a, "--dataset") == 0) dataset = v;
        else if (strcmp(a, "--runs") == 0) runs = atoi(v);
        else if (strcmp(a, "--budget") == 0) budget = atof(v);
        else return usage();
        i++;
    }
    int is_write = bench_adapter_def.write != NULL;
    if (!tree_spec || runs < 1 || budget <= 0 || (!is_write && !input_path)) return usage();

    bt_node *tree = bt_from_spec(tree_spec);
    if (!tree) return fail(dataset, "cannot load the tree");
    bt_adapt(bench_adapter_def.format, tree);
    sbh th;
    sbh_init(&th);
    bt_hash(tree, &th);
    uint64_t tree_hash = sbh_final(&th);

    state s = {0};
    s.tree = tree;
    if (!is_write) {
        s.input = read_file(input_path, &s.input_len);
        if (!s.input) return fail(dataset, strerror(errno));
    }

    /* One run: the result the suite verifies. */
    if (is_write) {
        s.failed = bench_adapter_def.write(tree, emit_keep, &s) != 0;
    } else {
        run_test(&s);
    }
    if (s.failed) return fail(dataset, "the library reported an error");
    if (once) {
        FILE *f = fopen(once, "wb");
        if (!f) return fail(dataset, strerror(errno));
        if (is_write) fwrite(s.kept, 1, s.kept_len, f);
        else fprintf(f, "%016" PRIx64 "\n", s.result);
        if (fclose(f) != 0) return fail(dataset, "cannot write the --once output");
        print_identity(dataset);
        printf(",\"status\":\"ok\",\"tree_hash\":\"%016" PRIx64 "\",\"result_hash\":\"%016" PRIx64
               "\",\"bytes\":%zu}\n",
               tree_hash, s.result, is_write ? s.kept_len : s.input_len);
        free(s.kept);
        free((void *)s.input);
        bt_free(tree);
        return 0;
    }

    uint64_t first = s.result;
    timing t = measure(run_test, &s, runs, budget);
    if (s.failed || s.result != first) return fail(dataset, "results differ between iterations");
    state hs = s;
    timing h = measure(run_hash_only, &hs, runs, budget / 4);

    print_identity(dataset);
    printf(",\"status\":\"ok\",\"tree_hash\":\"%016" PRIx64 "\",\"result_hash\":\"%016" PRIx64 "\"", tree_hash,
           s.result);
    printf(",\"bytes\":%zu,\"runs\":%d,\"iterations\":%ld", is_write ? s.kept_len : s.input_len, runs,
           t.iterations);
    printf(",\"time_ns\":%.1f,\"min_ns\":%.1f,\"max_ns\":%.1f,\"hash_ns\":%.1f}\n", t.mean * 1e9, t.min * 1e9,
           t.max * 1e9, h.mean * 1e9);
    free(s.kept);
    free((void *)s.input);
    bt_free(tree);
    return 0;
}
