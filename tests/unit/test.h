/*
 * A small unit-test framework: one executable per module, driven by ctest.
 *
 *   TEST(name) { CHECK(x == 1); CHECK_EQ_U64(a, b); CHECK_MEM(p, n, q, m); }
 *   int main(int argc, char **argv) { return test_run(argc, argv, (test_case[]){
 *       {"name", name}, ..., {0}}); }
 *
 * A failed check prints file:line and what differed, and the test goes on so
 * that one run shows every failure. A test may stop early with
 * `if (!CHECK(...)) return;`. The executable's exit status is 0 only if every
 * check passed. `test_x name...` runs only the named tests; `--list` lists.
 * Environment: SDX_TEST_SCALE multiplies the size of randomized tests
 * (default 1, 0.5 in the reduced builds); see test_scale().
 */
#ifndef SDX_TEST_H
#define SDX_TEST_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct test_case {
    const char *name;
    void (*fn)(void);
} test_case;

static long test_checks_run;
static long test_checks_failed;
static const char *test_current;

#define TEST(name) static void name(void)

static inline int test_fail_at(const char *file, int line, const char *what) {
    test_checks_failed++;
    fprintf(stderr, "%s:%d: [%s] check failed: %s\n", file, line, test_current ? test_current : "?",
            what);
    return 0;
}

#define CHECK(cond) \
    (test_checks_run++, (cond) ? 1 : test_fail_at(__FILE__, __LINE__, #cond))

#define CHECK_EQ_U64(a, b)                                                                  \
    (test_checks_run++, ((uint64_t)(a) == (uint64_t)(b))                                     \
                            ? 1                                                              \
                            : (fprintf(stderr, "  %s = %" PRIu64 ", %s = %" PRIu64 "\n", #a, \
                                       (uint64_t)(a), #b, (uint64_t)(b)),                    \
                               test_fail_at(__FILE__, __LINE__, #a " == " #b)))

#define CHECK_EQ_INT(a, b)                                                                 \
    (test_checks_run++, ((long long)(a) == (long long)(b))                                  \
                            ? 1                                                             \
                            : (fprintf(stderr, "  %s = %lld, %s = %lld\n", #a, (long long)(a), \
                                       #b, (long long)(b)),                                 \
                               test_fail_at(__FILE__, __LINE__, #a " == " #b)))

/* Compare two byte ranges; on mismatch print both (escaped) and where. */
static inline int test_mem_eq(const char *file, int line, const void *a, size_t an, const void *b,
                              size_t bn, const char *what) {
    test_checks_run++;
    if (an == bn && (an == 0 || memcmp(a, b, an) == 0)) return 1;
    size_t i = 0;
    while (i < an && i < bn && ((const unsigned char *)a)[i] == ((const unsigned char *)b)[i]) i++;
    fprintf(stderr, "  lengths %zu and %zu, first difference at byte %zu\n", an, bn, i);
    for (int k = 0; k < 2; k++) {
        const unsigned char *p = k ? b : a;
        size_t n = k ? bn : an, shown = n < 400 ? n : 400;
        fprintf(stderr, "  %s: \"", k ? "expected" : "actual  ");
        for (size_t j = 0; j < shown; j++) {
            if (p[j] >= 0x20 && p[j] < 0x7f && p[j] != '\\') fputc(p[j], stderr);
            else fprintf(stderr, "\\x%02x", p[j]);
        }
        fprintf(stderr, "%s\"\n", shown < n ? "..." : "");
    }
    return test_fail_at(file, line, what);
}

#define CHECK_MEM(a, an, b, bn) test_mem_eq(__FILE__, __LINE__, (a), (an), (b), (bn), #a " == " #b)
#define CHECK_STR(a, an, lit) \
    test_mem_eq(__FILE__, __LINE__, (a), (an), (lit), strlen(lit), #a " == " #lit)

/* Multiplier for randomized test sizes: SDX_TEST_SCALE, by default 1, or
 * SDX_TEST_SCALE_DEFAULT where the build defines it (0.5 in the sanitizer
 * and emulated builds, SDX_TEST_REDUCED in CMakeLists.txt). */
#ifndef SDX_TEST_SCALE_DEFAULT
#define SDX_TEST_SCALE_DEFAULT 1.0
#endif
static inline double test_scale(void) {
    const char *s = getenv("SDX_TEST_SCALE");
    double v = s ? atof(s) : SDX_TEST_SCALE_DEFAULT;
    return v > 0 ? v : SDX_TEST_SCALE_DEFAULT;
}

/* A whole file in a new allocation (free it) with *len its size; NULL when
 * it cannot be read. */
static inline char *test_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (!p || fread(p, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(p);
        return NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return p;
}

/* The file `name` in directory `dir`, read whole (free it) with *len its
 * size; NULL, after a message naming the path, when it cannot be read. */
static inline char *test_read_in(const char *dir, const char *name, size_t *len) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *p = test_read_file(path, len);
    if (!p) fprintf(stderr, "  cannot read %s\n", path);
    return p;
}

/* A small deterministic PRNG (splitmix64) for randomized tests. */
static inline uint64_t test_rand(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline int test_run(int argc, char **argv, const test_case *cases) {
    if (argc > 1 && strcmp(argv[1], "--list") == 0) {
        for (const test_case *c = cases; c->name; c++) printf("%s\n", c->name);
        return 0;
    }
    int ran = 0, failed_tests = 0;
    for (const test_case *c = cases; c->name; c++) {
        if (argc > 1) {
            int wanted = 0;
            for (int i = 1; i < argc; i++) wanted |= strcmp(argv[i], c->name) == 0;
            if (!wanted) continue;
        }
        long before = test_checks_failed;
        test_current = c->name;
        c->fn();
        ran++;
        int ok = test_checks_failed == before;
        failed_tests += !ok;
        printf("%s %s\n", ok ? "ok  " : "FAIL", c->name);
        fflush(stdout);
    }
    printf("%d tests, %d failed; %ld checks, %ld failed\n", ran, failed_tests, test_checks_run,
           test_checks_failed);
    if (ran == 0) {
        fprintf(stderr, "no test matched\n");
        return 1;
    }
    return test_checks_failed ? 1 : 0;
}

#endif /* SDX_TEST_H */
