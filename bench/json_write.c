/*
 * JSON writer benchmark: write each corpus document as minified JSON from
 * the harness's plain tree, and memcpy the same number of bytes, in one run.
 *
 *   json_write [--runs N] [--budget SECONDS] FILE.json...
 *
 * Before timing, the output is parsed back with jansson and compared with
 * the source document (json_equal): a writer that produces wrong JSON is
 * reported and not timed. Reported figures are the median over the runs of
 * the time per iteration, as MB/s of output (1 MB = 10^6 bytes).
 *
 * Two writer variants: "fresh" initializes a growable sdx_buf for every
 * document (starting from its 64-byte inline storage, as a one-shot caller
 * would); "reused" keeps one buffer and clears it (as a server would).
 */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sdx/sdx.h"
#include "tree.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Keep the compiler from dropping work whose result is unused. */
static void clobber(void *p) { __asm__ volatile("" : : "g"(p) : "memory"); }

static void write_node(sdx_json_writer *w, const bt_node *n) {
    switch (n->type) {
    case BT_NULL: sdx_json_writer_null(w); break;
    case BT_BOOL: sdx_json_writer_bool(w, n->v.b); break;
    case BT_INT: sdx_json_writer_int(w, n->v.i); break;
    case BT_UINT: sdx_json_writer_uint(w, n->v.u); break;
    case BT_DOUBLE: sdx_json_writer_double(w, n->v.d); break;
    case BT_STR: sdx_json_writer_string(w, n->v.str.ptr, n->v.str.len); break;
    case BT_ARRAY:
        sdx_json_writer_begin_array(w, n->v.c.count);
        for (size_t i = 0; i < n->v.c.count; i++) write_node(w, &n->v.c.items[i]);
        sdx_json_writer_end(w);
        break;
    case BT_MAP:
        sdx_json_writer_begin_map(w, n->v.c.count);
        for (size_t i = 0; i < n->v.c.count; i++) {
            const bt_node *k = &n->v.c.items[2 * i];
            sdx_json_writer_key(w, k->v.str.ptr, k->v.str.len);
            write_node(w, &n->v.c.items[2 * i + 1]);
        }
        sdx_json_writer_end(w);
        break;
    }
}

typedef struct job {
    const bt_node *root;
    sdx_buf reused;
    char *copy_src, *copy_dst;
    size_t copy_len;
    size_t out_len;
} job;

static void run_fresh(job *j) {
    sdx_buf b;
    sdx_buf_init(&b, NULL);
    sdx_json_writer w;
    sdx_json_writer_init(&w, &b, NULL);
    write_node(&w, j->root);
    if (sdx_json_writer_finish(&w)) abort();
    j->out_len = sdx_buf_len(&b);
    clobber(b.start);
    sdx_buf_destroy(&b);
}

static void run_reused(job *j) {
    sdx_buf_clear(&j->reused);
    sdx_json_writer w;
    sdx_json_writer_init(&w, &j->reused, NULL);
    write_node(&w, j->root);
    if (sdx_json_writer_finish(&w)) abort();
    clobber(j->reused.start);
}

static void run_memcpy(job *j) {
    memcpy(j->copy_dst, j->copy_src, j->copy_len);
    clobber(j->copy_dst);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median seconds per iteration over `runs` runs of about budget/runs
 * seconds each, after a warm-up. */
static double measure(void (*fn)(job *), job *j, int runs, double budget) {
    double t0 = now();
    long warm = 0;
    while (now() - t0 < 0.05 || warm < 2) fn(j), warm++;
    double per = (now() - t0) / (double)warm;
    long iters = (long)(budget / runs / per);
    if (iters < 1) iters = 1;
    double *t = malloc(sizeof(double) * (size_t)runs);
    for (int r = 0; r < runs; r++) {
        double s = now();
        for (long i = 0; i < iters; i++) fn(j);
        t[r] = (now() - s) / (double)iters;
    }
    qsort(t, (size_t)runs, sizeof *t, cmp_double);
    double median = t[runs / 2];
    free(t);
    return median;
}

static void cpu_model(char *out, size_t n) {
    snprintf(out, n, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *c = strchr(line, ':');
            if (c) {
                snprintf(out, n, "%s", c + 2);
                out[strcspn(out, "\n")] = 0;
            }
            break;
        }
    }
    fclose(f);
}

/* Parse the writer's output with jansson and compare with the source. */
static int verify(const char *path, const char *out, size_t len) {
    json_error_t err;
    json_t *src = json_load_file(path, JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
    json_t *back = json_loadb(out, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
    int ok = src && back && json_equal(src, back);
    if (!back) fprintf(stderr, "%s: output does not parse: %s at %d:%d\n", path, err.text, err.line, err.column);
    else if (!ok) fprintf(stderr, "%s: output differs from the source document\n", path);
    json_decref(src);
    json_decref(back);
    return ok;
}

int main(int argc, char **argv) {
    int runs = 11;
    double budget = 1.0;
    int first = 1;
    while (first < argc && strncmp(argv[first], "--", 2) == 0) {
        if (strcmp(argv[first], "--runs") == 0 && first + 1 < argc) runs = atoi(argv[++first]);
        else if (strcmp(argv[first], "--budget") == 0 && first + 1 < argc) budget = atof(argv[++first]);
        else {
            fprintf(stderr, "usage: json_write [--runs N] [--budget SECONDS] FILE.json...\n");
            return 2;
        }
        first++;
    }
    if (first >= argc || runs < 1 || budget <= 0) {
        fprintf(stderr, "usage: json_write [--runs N] [--budget SECONDS] FILE.json...\n");
        return 2;
    }
    char cpu[256];
    cpu_model(cpu, sizeof cpu);
    printf("JSON writer: minified output from a plain in-memory tree\n");
    printf("CPU: %s; compiler: %s %s; SIMD kernels: %s; median of %d runs, %.2f s per test\n\n", cpu,
#if defined(__clang__)
           "clang",
#else
           "gcc",
#endif
           __VERSION__, sdx_simd_name(), runs, budget);
    printf("| document | values | output bytes | sdx fresh MB/s | sdx reused MB/s | memcpy MB/s | "
           "memcpy / sdx fresh |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|\n");
    int failed = 0;
    for (int a = first; a < argc; a++) {
        bt_node *root = bt_load_json_file(argv[a]);
        if (!root) {
            failed = 1;
            continue;
        }
        job j = {0};
        j.root = root;
        sdx_buf_init(&j.reused, NULL);
        run_reused(&j);
        const char *name = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
        if (!verify(argv[a], sdx_buf_data(&j.reused), sdx_buf_len(&j.reused))) {
            printf("| %s | | | FAILED verification | | | |\n", name);
            failed = 1;
        } else {
            j.copy_len = sdx_buf_len(&j.reused);
            j.copy_src = malloc(j.copy_len);
            j.copy_dst = malloc(j.copy_len);
            memcpy(j.copy_src, sdx_buf_data(&j.reused), j.copy_len);
            memset(j.copy_dst, 0, j.copy_len);
            double t_fresh = measure(run_fresh, &j, runs, budget);
            double t_reused = measure(run_reused, &j, runs, budget);
            double t_copy = measure(run_memcpy, &j, runs, budget);
            double mb = (double)j.copy_len / 1e6;
            printf("| %s | %zu | %zu | %.0f | %.0f | %.0f | %.1fx |\n", name, bt_count(root), j.copy_len,
                   mb / t_fresh, mb / t_reused, mb / t_copy, t_fresh / t_copy);
            fflush(stdout);
            free(j.copy_src);
            free(j.copy_dst);
        }
        sdx_buf_destroy(&j.reused);
        bt_free(root);
    }
    return failed;
}
