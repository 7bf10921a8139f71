/*
 * The benchmark harness: main() of every benchmark program, linked with one
 * adapter (adapter.h). The Rust runner (bench/rust/src/harness.rs) has the
 * same command line, protocol and output.
 *
 *   PROG --tree SPEC [--input FILE] [--dataset NAME] --once OUT [--serve] [--clock cpu|wall]
 *   PROG --tree SPEC [--input FILE] [--dataset NAME] [--rounds N] [--round-ms MS] [--clock cpu|wall]
 *
 * SPEC is gen:SIZE[:SEED[:extended]] or tree:PATH (tree.h); the tree is
 * adapted to the adapter's format. FILE is the encoded input of a Tree,
 * Incremental or Serialize test.
 *
 * --once runs the test a single time and writes its result to OUT: the
 * output bytes of a Write or Serialize test, or the value hash (16 hex
 * digits) of a parse. One JSON line on stdout says "ok" (or "error" and the
 * library's own message) with the tree's reference hash and the result's.
 *
 * --serve (with --once) then stays alive for bench/run.py, which runs the
 * programs of one data set, format and test in interleaved rounds. It reads
 * commands on stdin, one per line, and answers each with one line:
 *
 *   time N H [W]  one untimed iteration of the test (none if W is 0), then
 *              N timed ones; then, if H > 0, one untimed iteration of the
 *              hashing alone and H timed ones. Answer: "ok TEST_NS HASH_NS
 *              RESULT" — the total nanoseconds of the N and of the H
 *              iterations and the result hash of the last iteration (16 hex
 *              digits) — or "error MSG".
 *   quit       (or end of input) exit.
 *
 * Without --once or --serve the program times itself: calibrated rounds of
 * about MS milliseconds (default 20), N of them (default 15), and prints one
 * JSON object with every round's time per iteration, their median and
 * minimum, and the same for the hashing alone.
 *
 * Times are the thread's CPU time by default (CLOCK_THREAD_CPUTIME_ID: time
 * the scheduler or the hypervisor takes from the thread is not counted);
 * --clock wall uses CLOCK_MONOTONIC. The hashing the test does is part of
 * its time; its cost alone — the output bytes for Write and Serialize, the
 * reference tree for Tree, the reference tree's events read from a tape
 * for Incremental — is what HASH_NS measures.
 *
 * Memory: started with LD_PRELOAD=libbenchmem.so (memcount.c; run.py does
 * this in a separate, untimed run), the program finds that library's
 * counters and its --once line also gives "peak_bytes": the most heap bytes
 * live at once during the run it verifies (the first, in a fresh process),
 * beyond those live before it — for a Tree test, the library's document and
 * whatever the parse needed beside it.
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "adapter.h"
#include "hash.h"
#include "pages.h"
#include "tree.h"

static clockid_t bench_clock = CLOCK_THREAD_CPUTIME_ID;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(bench_clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The library's last error message (bench_error). */
static char error_message[512];

void bench_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(error_message, sizeof error_message, fmt, ap);
    va_end(ap);
}

/* What the test and the hash-only baseline work on. */
typedef struct state {
    const bt_node *tree;
    const char *input;
    size_t input_len;
    void *doc; /* Serialize: the library's document */
    int unordered;
    /* results of the last iteration */
    uint64_t result;
    int failed;
    /* Write and Serialize: the bytes of one output, for --once and the hash baseline */
    char *kept;
    size_t kept_len;
} state;

static void emit_hash(void *ctx, const void *data, size_t len) {
    state *s = ctx;
    s->result = sbh_of_bytes(data, len);
}

/* The copy of one output, in pages of its own (pages.c says why). */
static void emit_keep(void *ctx, const void *data, size_t len) {
    state *s = ctx;
    bench_pages_free(s->kept, s->kept_len);
    s->kept = bench_pages(len);
    if (len) memcpy(s->kept, data, len);
    s->kept_len = len;
    s->result = sbh_of_bytes(data, len);
}

static int is_serialize(void) { return bench_adapter_def.serialize != NULL; }
static int is_write(void) { return bench_adapter_def.write != NULL; }
static int writes_bytes(void) { return is_write() || is_serialize(); }

static void run_once(state *s, bench_emit_fn emit) {
    if (is_write()) {
        s->failed |= bench_adapter_def.write(s->tree, emit, s) != 0;
    } else if (is_serialize()) {
        s->failed |= bench_adapter_def.serialize(s->doc, emit, s) != 0;
    } else {
        sbh h;
        sbh_init(&h);
        s->failed |= bench_adapter_def.parse(s->input, s->input_len, &h) != 0;
        s->result = sbh_final(&h);
    }
}

static void run_test(state *s) { run_once(s, emit_hash); }

static uint64_t hash_tree(const bt_node *tree, int unordered) {
    sbh h;
    sbh_init(&h);
    if (unordered) bt_hash_unordered(tree, &h);
    else bt_hash(tree, &h);
    return sbh_final(&h);
}

/* Incremental: the reference tree's events in document order as a tape
 * (SPEC.md, "The hashing alone"): per event its SBH tag byte, then 8
 * bytes (little-endian) for an integer or a double, or a 4-byte length and
 * the bytes for a string or key. A parser hands out its events in input
 * order with its strings in the input; hashing the same events read front
 * to back from the tape costs what the test's own hashing costs, where
 * walking the reference tree (nodes and strings spread over the heap)
 * would cost more, at times more than a whole fast parse. */
typedef struct tape {
    unsigned char *p;
    size_t len, cap;
} tape;

static void tape_put(tape *t, const void *data, size_t n) {
    if (t->cap - t->len < n) {
        while (t->cap - t->len < n) t->cap = t->cap ? 2 * t->cap : 1 << 16;
        t->p = realloc(t->p, t->cap);
        if (!t->p) abort();
    }
    memcpy(t->p + t->len, data, n);
    t->len += n;
}

static void tape_tag(tape *t, unsigned char tag) { tape_put(t, &tag, 1); }

static void tape_word(tape *t, unsigned char tag, uint64_t w) {
    unsigned char b[9] = {tag};
    for (int i = 0; i < 8; i++) b[1 + i] = (unsigned char)(w >> (8 * i));
    tape_put(t, b, 9);
}

static void tape_text(tape *t, unsigned char tag, const char *p, size_t n) {
    unsigned char b[5] = {tag, (unsigned char)n, (unsigned char)(n >> 8), (unsigned char)(n >> 16),
                          (unsigned char)(n >> 24)};
    if (n > UINT32_MAX) abort();
    tape_put(t, b, 5);
    tape_put(t, p, n);
}

static void tape_node(tape *t, const bt_node *n) {
    switch (n->type) {
    case BT_NULL: tape_tag(t, SBH_NULL); break;
    case BT_BOOL: tape_tag(t, n->v.b ? SBH_TRUE : SBH_FALSE); break;
    case BT_INT: tape_word(t, n->v.i < 0 ? SBH_NEGINT : SBH_UINT, (uint64_t)n->v.i); break;
    case BT_UINT: tape_word(t, SBH_UINT, n->v.u); break;
    case BT_DOUBLE: {
        uint64_t bits;
        memcpy(&bits, &n->v.d, 8);
        tape_word(t, SBH_DOUBLE, bits);
        break;
    }
    case BT_STR: tape_text(t, SBH_STR, n->v.str.ptr, n->v.str.len); break;
    case BT_ARRAY:
        tape_tag(t, SBH_ARRAY);
        for (size_t i = 0; i < n->v.c.count; i++) tape_node(t, &n->v.c.items[i]);
        tape_tag(t, SBH_END);
        break;
    case BT_MAP:
        tape_tag(t, SBH_MAP);
        for (size_t i = 0; i < n->v.c.count; i++) {
            const bt_node *k = &n->v.c.items[2 * i];
            tape_text(t, SBH_KEY, k->v.str.ptr, k->v.str.len);
            tape_node(t, &n->v.c.items[2 * i + 1]);
        }
        tape_tag(t, SBH_END);
        break;
    }
}

static uint64_t tape_load8(const unsigned char *p) {
    uint64_t w;
    memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    return w;
}

static uint64_t hash_tape(const tape *t) {
    sbh h;
    sbh_init(&h);
    const unsigned char *p = t->p, *end = t->p + t->len;
    while (p < end) {
        unsigned char tag = *p++;
        sbh_word(&h, tag);
        switch (tag) {
        case SBH_UINT:
        case SBH_NEGINT:
        case SBH_DOUBLE:
            sbh_word(&h, tape_load8(p));
            p += 8;
            break;
        case SBH_STR:
        case SBH_KEY: {
            size_t n = (size_t)(p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
            sbh_bytes(&h, p + 4, n);
            p += 4 + n;
            break;
        }
        default: break;
        }
    }
    return sbh_final(&h);
}

static tape events; /* Incremental with ordered maps: the reference tree's events */

/* The hashing the test does, alone. */
static void run_hash_only(state *s) {
    if (writes_bytes()) s->result = sbh_of_bytes(s->kept, s->kept_len);
    else if (events.p) s->result = hash_tape(&events);
    else s->result = hash_tree(s->tree, s->unordered);
}

/* Nanoseconds for n iterations of fn, after one untimed iteration if warm
 * (it brings code and data back into the caches after another program ran). */
static uint64_t time_iterations(void (*fn)(state *), state *s, long n, int warm) {
    if (n <= 0) return 0;
    if (warm) fn(s);
    uint64_t t0 = now_ns();
    for (long i = 0; i < n; i++) fn(s);
    return now_ns() - t0;
}

/* The file followed by BENCH_PADDING zero bytes, in pages of its own
 * (pages.c says why). */
static char *read_file(const char *path, size_t *len) {
    return bench_pages_file(path, len, BENCH_PADDING);
}

/* A JSON string literal of a short text (names, messages). */
static void print_json_string(const char *s) {
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20 || c == 0x7F) printf("\\u%04x", c);
        else putchar(c);
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
    printf(",\"unordered\":%s", (bench_adapter_def.flags & BENCH_UNORDERED_MAPS) ? "true" : "false");
}

static int fail(const char *dataset, const char *msg) {
    print_identity(dataset);
    printf(",\"status\":\"error\",\"message\":");
    print_json_string(msg);
    printf("}\n");
    fflush(stdout);
    return 1;
}

/* fail() with the library's message, if it left one. */
static int fail_library(const char *dataset, const char *what) {
    char msg[640];
    if (error_message[0]) snprintf(msg, sizeof msg, "%s: %s", what, error_message);
    else snprintf(msg, sizeof msg, "%s (no message from the library)", what);
    return fail(dataset, msg);
}

static int usage(void) {
    fprintf(stderr,
            "usage: %s-%s-%s --tree gen:SIZE[:SEED[:extended]]|tree:PATH [--input FILE] [--dataset NAME]\n"
            "         [--once OUT [--serve] | --rounds N --round-ms MS] [--clock cpu|wall]\n",
            bench_adapter_def.library, bench_adapter_def.format, bench_adapter_def.test);
    return 2;
}

/* --serve: answer run.py's commands until "quit" or end of input. */
static int serve(state *s, uint64_t expect) {
    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        long n = 0, h = 0, warm = 1;
        if (strncmp(line, "quit", 4) == 0) break;
        if (sscanf(line, "time %ld %ld %ld", &n, &h, &warm) < 2 || n < 0 || h < 0) {
            printf("error bad command\n");
            fflush(stdout);
            return 1;
        }
        uint64_t t = time_iterations(run_test, s, n, warm != 0);
        if (s->failed || (n > 0 && s->result != expect)) {
            printf("error %s\n", s->failed ? "the library reported an error" : "results differ between iterations");
            fflush(stdout);
            return 1;
        }
        state hs = *s;
        uint64_t th = time_iterations(run_hash_only, &hs, h, warm != 0);
        printf("ok %" PRIu64 " %" PRIu64 " %016" PRIx64 "\n", t, th, s->result);
        fflush(stdout);
    }
    return 0;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median of v[0, n) (sorts v). */
static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Iterations of fn that take about ms milliseconds. */
static long calibrate(void (*fn)(state *), state *s, double ms) {
    long n = 1;
    for (;;) {
        uint64_t t = time_iterations(fn, s, n, 1);
        if (t >= 2000000 || n >= (1L << 40)) {
            double per = (double)t / (double)n;
            long want = (long)(ms * 1e6 / (per > 0 ? per : 1));
            return want < 1 ? 1 : want;
        }
        n *= 4;
    }
}

/* Standalone timing: print every round and their median and minimum. */
static int self_timed(state *s, const char *dataset, uint64_t tree_hash, size_t bytes, int rounds, double round_ms) {
    uint64_t first = s->result;
    long n = calibrate(run_test, s, round_ms);
    state hs = *s;
    long nh = calibrate(run_hash_only, &hs, round_ms / 4);
    double *t = malloc(sizeof(double) * (size_t)rounds * 2);
    if (!t) abort();
    double *th = t + rounds;
    for (int r = 0; r < rounds; r++) {
        t[r] = (double)time_iterations(run_test, s, n, 1) / (double)n;
        th[r] = (double)time_iterations(run_hash_only, &hs, nh, 1) / (double)nh;
    }
    if (s->failed || s->result != first) return fail(dataset, "results differ between iterations");
    print_identity(dataset);
    printf(",\"status\":\"ok\",\"tree_hash\":\"%016" PRIx64 "\",\"result_hash\":\"%016" PRIx64 "\"", tree_hash,
           first);
    printf(",\"bytes\":%zu,\"clock\":\"%s\",\"iterations\":%ld,\"rounds_ns\":[", bytes,
           bench_clock == CLOCK_MONOTONIC ? "wall" : "cpu", n);
    for (int r = 0; r < rounds; r++) printf("%s%.1f", r ? "," : "", t[r]);
    printf("],\"hash_rounds_ns\":[");
    for (int r = 0; r < rounds; r++) printf("%s%.1f", r ? "," : "", th[r]);
    double hash_med = median(th, rounds);
    double med = median(t, rounds);
    printf("],\"median_ns\":%.1f,\"min_ns\":%.1f,\"hash_ns\":%.1f}\n", med, t[0], hash_med);
    free(t);
    return 0;
}

int main(int argc, char **argv) {
    /* stdio's buffers static, not from the heap at their first use (which
     * comes after the verified run, among the library's freed blocks) */
    static char out_buf[BUFSIZ], in_buf[BUFSIZ];
    setvbuf(stdout, out_buf, _IOFBF, sizeof out_buf);
    setvbuf(stdin, in_buf, _IOFBF, sizeof in_buf);
    const char *tree_spec = NULL, *input_path = NULL, *once = NULL, *dataset = "";
    int rounds = 15, serving = 0;
    double round_ms = 20;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--serve") == 0) {
            serving = 1;
            continue;
        }
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) return usage();
        if (strcmp(a, "--tree") == 0) tree_spec = v;
        else if (strcmp(a, "--input") == 0) input_path = v;
        else if (strcmp(a, "--once") == 0) once = v;
        else if (strcmp(a, "--dataset") == 0) dataset = v;
        else if (strcmp(a, "--rounds") == 0) rounds = atoi(v);
        else if (strcmp(a, "--round-ms") == 0) round_ms = atof(v);
        else if (strcmp(a, "--clock") == 0 && strcmp(v, "cpu") == 0) bench_clock = CLOCK_THREAD_CPUTIME_ID;
        else if (strcmp(a, "--clock") == 0 && strcmp(v, "wall") == 0) bench_clock = CLOCK_MONOTONIC;
        else return usage();
        i++;
    }
    if (!tree_spec || rounds < 1 || !(round_ms > 0) || (serving && !once) || (!is_write() && !input_path))
        return usage();

    bt_node *tree = bt_from_spec(tree_spec);
    if (!tree) return fail(dataset, "cannot load the tree");
    bt_adapt(bench_adapter_def.format, tree);
    state s;
    memset(&s, 0, sizeof s);
    s.tree = tree;
    s.unordered = (bench_adapter_def.flags & BENCH_UNORDERED_MAPS) != 0;
    uint64_t tree_hash = hash_tree(tree, s.unordered);
    if (strcmp(bench_adapter_def.test, "incremental") == 0 && !s.unordered) {
        tape_node(&events, tree);
        if (hash_tape(&events) != tree_hash) return fail(dataset, "the event tape's hash is not the tree's");
    }
    if (!is_write()) {
        s.input = read_file(input_path, &s.input_len);
        if (!s.input) return fail(dataset, strerror(errno));
    }
    if (is_serialize()) {
        s.doc = bench_adapter_def.load(s.input, s.input_len);
        if (!s.doc) return fail_library(dataset, "the library could not load the input");
    }

    /* One run: the result the suite verifies (and its memory, when
     * libbenchmem.so is preloaded). */
    void *self = dlopen(NULL, RTLD_LAZY);
    void (*mem_reset)(void) = NULL;
    size_t (*mem_peak)(void) = NULL;
    if (self) { /* dlsym gives object pointers: copied into function pointers */
        void *f = dlsym(self, "bench_mem_reset"), *g = dlsym(self, "bench_mem_peak");
        if (f && g && sizeof f == sizeof mem_reset) {
            memcpy(&mem_reset, &f, sizeof f);
            memcpy(&mem_peak, &g, sizeof g);
        }
    }
    if (mem_reset && mem_peak) mem_reset();
    run_once(&s, emit_keep);
    size_t peak_bytes = mem_reset && mem_peak ? mem_peak() : 0;
    if (self) dlclose(self);
    if (s.failed) return fail_library(dataset, "the library reported an error");
    size_t bytes = writes_bytes() ? s.kept_len : s.input_len;
    int rc = 0;
    if (once) {
        FILE *f = fopen(once, "wb");
        if (!f) return fail(dataset, strerror(errno));
        if (writes_bytes()) fwrite(s.kept, 1, s.kept_len, f);
        else fprintf(f, "%016" PRIx64 "\n", s.result);
        if (fclose(f) != 0) return fail(dataset, "cannot write the --once output");
        print_identity(dataset);
        printf(",\"status\":\"%s\",\"tree_hash\":\"%016" PRIx64 "\",\"result_hash\":\"%016" PRIx64
               "\",\"bytes\":%zu",
               serving ? "ready" : "ok", tree_hash, s.result, bytes);
        if (mem_reset && mem_peak) printf(",\"peak_bytes\":%zu", peak_bytes);
        printf("}\n");
        fflush(stdout);
        if (serving) rc = serve(&s, s.result);
    } else {
        rc = self_timed(&s, dataset, tree_hash, bytes, rounds, round_ms);
    }
    if (s.doc && bench_adapter_def.unload) bench_adapter_def.unload(s.doc);
    bench_pages_free(s.kept, s.kept_len);
    if (s.input) bench_pages_free((void *)s.input, s.input_len + BENCH_PADDING);
    bt_free(tree);
    return rc;
}
